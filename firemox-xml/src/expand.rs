//! Reference expansion, as Magic Project's card compiler does it:
//!
//! - `<action ref="R" value="v">` (or a `<value>` child) → R's actions; each action that
//!   has no value of its own gets `v` (the MACRO value parameter);
//! - a `<test>` child of the reference is ANDed with each action's own `<test>` (the MACRO
//!   test parameter), a `<counter-test>` child goes to every `<counter>` inside;
//! - `<actions>` children of a reference (action or `<ability ref>`) are plugged, in
//!   order, into the reference's `<macro>` nodes; a macro with nothing plugged in takes its
//!   `<default>`;
//! - `<ability ref="R">` → R's ability element; `<attachment ref="R">` → R's attachment;
//! - any other element with `ref` (`<test ref>`, `<if ref>`, `<replace-tested ref>`, …)
//!   takes the named test's content (ANDed with its own children, if any).
//!
//! - references resolved while a game runs stay as written: `this` (the ability holding
//!   the action), `context.*`, and `<insert-ability>`/`<add-ability>` naming one of the
//!   card's own abilities (`reference-name`; [`crate::card`] checks the name exists).
//!
//! The top elements of each expansion remember the reference (`from_ref`). Expansion is
//! recursive, with a depth limit that reports a cycle instead of looping.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::fragments::{ActionRef, Fragments};
use crate::tree::{Element, Str};

/// How deep references may nest (the corpus needs fewer than 10).
const MAX_DEPTH: u32 = 40;

/// How many elements one expansion may produce (the largest card of the corpus makes a
/// few thousand): references that fan out (each naming another twice, forty deep) stop
/// here with an error instead of running for hours.
const MAX_ELEMENTS: usize = 200_000;

/// The elements an expansion may still produce.
struct Budget(std::cell::Cell<usize>);

/// A reference that could not be expanded: the element (in the card) and why.
#[derive(Debug, Clone)]
pub struct ExpandError {
    /// The line of the element that names the reference.
    pub line: u32,
    /// The element as written (`<action ref="x">`).
    pub element: String,
    /// What is wrong and what to do.
    pub message: String,
}

/// Expands every reference in `children` (the card's line numbers are kept on elements
/// written in the card).
pub fn expand_all(f: &Fragments, children: &[Element]) -> Result<Vec<Element>, ExpandError> {
    BUDGET.with(|b| b.0.set(MAX_ELEMENTS));
    let local = HashMap::new();
    expand_list(&Scope { f, local: &local }, children, 0, None)
}

/// [`expand_all`] of elements the caller gives up (they move into the result instead of
/// being copied), with `local` action references (a card's own `<actions>` declarations)
/// in front of the fragments' (a local name hides a shared one).
pub fn expand_all_with(
    f: &Fragments,
    local: &HashMap<String, ActionRef>,
    children: Vec<Element>,
) -> Result<Vec<Element>, ExpandError> {
    BUDGET.with(|b| b.0.set(MAX_ELEMENTS));
    expand_owned(&Scope { f, local }, children, 0, None)
}

/// The references an expansion sees: the fragments, and a card's local actions.
struct Scope<'a> {
    f: &'a Fragments,
    local: &'a HashMap<String, ActionRef>,
}

impl Scope<'_> {
    fn action(&self, name: &str) -> Option<&ActionRef> {
        self.local.get(name).or_else(|| self.f.actions.get(name))
    }
}

impl std::ops::Deref for Scope<'_> {
    type Target = Fragments;

    fn deref(&self) -> &Fragments {
        self.f
    }
}

thread_local! {
    static BUDGET: Budget = const { Budget(std::cell::Cell::new(MAX_ELEMENTS)) };
}

fn expand_list(
    f: &Scope<'_>,
    list: &[Element],
    depth: u32,
    site: Option<&Element>,
) -> Result<Vec<Element>, ExpandError> {
    let mut out = Vec::with_capacity(list.len());
    for e in list {
        expand_one(f, Cow::Borrowed(e), depth, site, &mut out)?;
    }
    Ok(out)
}

/// [`expand_list`] of elements the expansion owns: they move into the result. Elements
/// naming no reference are expanded where they are; from the first reference on, the
/// list is rebuilt.
fn expand_owned(
    f: &Scope<'_>,
    mut list: Vec<Element>,
    depth: u32,
    site: Option<&Element>,
) -> Result<Vec<Element>, ExpandError> {
    for i in 0..list.len() {
        let Some(name) = reference(f, &list[i], depth, site)? else {
            let children = std::mem::take(&mut list[i].children);
            list[i].children = expand_owned(f, children, depth, site)?;
            continue;
        };
        let mut rest = list.split_off(i).into_iter();
        if let Some(first) = rest.next() {
            expand_reference(f, &first, name, depth, site, &mut list)?;
        }
        for e in rest {
            expand_one(f, Cow::Owned(e), depth, site, &mut list)?;
        }
        break;
    }
    Ok(list)
}

/// `e` without its children (which are expanded on their own).
fn shell(e: &Element) -> Element {
    Element {
        name: e.name.clone(),
        attrs: e.attrs.clone(),
        children: Vec::new(),
        text: e.text.clone(),
        line: e.line,
        from_ref: e.from_ref.clone(),
    }
}

/// An attribute's value, shared.
fn attr_str<'a>(e: &'a Element, name: &str) -> Option<&'a Str> {
    e.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

/// `e` expanded into `out`: a copy of it (children expanded) when it names no reference,
/// else what the reference expands to. `site` is the card element whose reference is
/// being expanded (for error lines). An owned `e` is moved, a borrowed one copied.
fn expand_one(
    f: &Scope<'_>,
    e: Cow<'_, Element>,
    depth: u32,
    site: Option<&Element>,
    out: &mut Vec<Element>,
) -> Result<(), ExpandError> {
    let Some(name) = reference(f, &e, depth, site)? else {
        match e {
            Cow::Borrowed(e) => {
                let mut copy = shell(e);
                copy.children = expand_list(f, &e.children, depth, site)?;
                out.push(copy);
            }
            Cow::Owned(mut e) => {
                let children = std::mem::take(&mut e.children);
                e.children = expand_owned(f, children, depth, site)?;
                out.push(e);
            }
        }
        return Ok(());
    };
    expand_reference(f, &e, name, depth, site, out)
}

/// The reference `e` names that expansion replaces (`None`: `e` stays, its children
/// expanded), counting `e` against the budget and checking the depth.
fn reference(
    f: &Scope<'_>,
    e: &Element,
    depth: u32,
    site: Option<&Element>,
) -> Result<Option<Str>, ExpandError> {
    let left = BUDGET.with(|b| {
        let n = b.0.get().saturating_sub(1);
        b.0.set(n);
        n
    });
    if left == 0 {
        return Err(err(site.unwrap_or(e), &format!("references expand to more than {MAX_ELEMENTS} elements; a reference that names others many times over?")));
    }
    if depth > MAX_DEPTH {
        return Err(err(
            site.unwrap_or(e),
            "references nest too deeply (a reference that refers to itself?)",
        ));
    }
    let runtime = |n: &str| n == "this" || n.starts_with("context.");
    let local_ability = |n: &str| {
        matches!(e.name.as_str(), "insert-ability" | "add-ability") && !f.abilities.contains_key(n)
    };
    Ok(attr_str(e, "ref")
        .filter(|n| !runtime(n) && !local_ability(n))
        .cloned())
}

/// What `e`, naming the reference `name`, expands to, into `out`.
fn expand_reference(
    f: &Scope<'_>,
    e: &Element,
    name: Str,
    depth: u32,
    site: Option<&Element>,
    out: &mut Vec<Element>,
) -> Result<(), ExpandError> {
    let here = site.unwrap_or(e);
    match e.name.as_str() {
        "action" => {
            let r = f.action(&name).ok_or_else(|| {
                unknown(
                    here,
                    "action",
                    &name,
                    f.local.keys().chain(f.actions.keys()),
                )
            })?;
            let plugged: Vec<Cow<'_, Element>> = if has_macro(&r.body) {
                let plugged = plug_macros(&r.body, &macro_args(e));
                plugged.into_iter().map(Cow::Owned).collect()
            } else {
                r.body.iter().map(Cow::Borrowed).collect()
            };
            let takes = r.takes_parameters && has_parameters(e);
            for a in plugged {
                let a = if takes {
                    let mut a = a.into_owned();
                    parameters(f, e, &mut a, depth, here)?;
                    Cow::Owned(a)
                } else {
                    a
                };
                let before = out.len();
                expand_one(f, a, depth + 1, Some(here), out)?;
                for x in &mut out[before..] {
                    x.from_ref.get_or_insert_with(|| name.clone());
                }
            }
        }
        "ability" | "add-ability" => {
            let r = f
                .abilities
                .get(name.as_str())
                .ok_or_else(|| unknown(here, "ability", &name, f.abilities.keys()))?;
            let before = out.len();
            let body = std::slice::from_ref(r);
            if has_macro(body) {
                for a in plug_macros(body, &macro_args(e)) {
                    expand_one(f, Cow::Owned(a), depth + 1, Some(here), out)?;
                }
            } else {
                expand_one(f, Cow::Borrowed(r), depth + 1, Some(here), out)?;
            }
            for x in &mut out[before..] {
                x.from_ref = Some(name.clone());
            }
        }
        "attachment" => {
            let r = f
                .attachments
                .get(name.as_str())
                .ok_or_else(|| unknown(here, "attachment", &name, f.attachments.keys()))?;
            let mut a = shell(r);
            a.name = e.name.clone();
            a.attrs.retain(|(k, _)| k != "reference-name");
            a.children = expand_list(f, &r.children, depth + 1, Some(here))?;
            a.children.extend(expand_list(f, &e.children, depth, site)?);
            a.from_ref = Some(name);
            out.push(a);
        }
        _ => {
            let r = f
                .tests
                .get(name.as_str())
                .ok_or_else(|| unknown(here, "test", &name, f.tests.keys()))?;
            let referenced = expand_list(f, &r.children, depth + 1, Some(here))?;
            let own = expand_list(f, &e.children, depth, site)?;
            let mut copy = shell(e);
            copy.attrs.retain(|(k, _)| k != "ref");
            copy.children = and_of(e, referenced, own);
            copy.from_ref = Some(name);
            out.push(copy);
        }
    }
    Ok(())
}

/// Whether a `<macro>` is anywhere in `list` (else plugging changes nothing).
fn has_macro(list: &[Element]) -> bool {
    list.iter()
        .any(|e| e.name == "macro" || has_macro(&e.children))
}

/// Whether the site gives a referenced action MACRO parameters ([`parameters`]).
fn has_parameters(site: &Element) -> bool {
    site.attr("value").is_some()
        || site
            .children
            .iter()
            .any(|c| matches!(c.name.as_str(), "value" | "test" | "counter-test"))
}

/// The `<actions>` children of a reference site: what its `<macro>` nodes take.
fn macro_args(site: &Element) -> Vec<&Element> {
    site.children
        .iter()
        .filter(|c| c.name == "actions")
        .collect()
}

/// The body with each `<macro>` (in document order) replaced by the next `<actions>`'
/// children, or by its `<default>`'s children when none is left.
fn plug_macros(body: &[Element], args: &[&Element]) -> Vec<Element> {
    let mut next = 0;
    plug_list(body, args, &mut next)
}

fn plug_list(list: &[Element], args: &[&Element], next: &mut usize) -> Vec<Element> {
    let mut out = Vec::with_capacity(list.len());
    for e in list {
        if e.name == "macro" {
            match args.get(*next) {
                Some(a) => out.extend(a.children.iter().cloned()),
                None => {
                    if let Some(d) = e.child("default") {
                        out.extend(d.children.iter().cloned());
                    }
                }
            }
            *next += 1;
        } else {
            let mut c = shell(e);
            c.children = plug_list(&e.children, args, next);
            out.push(c);
        }
    }
    out
}

/// The MACRO value and test parameters of the site applied to one referenced action.
fn parameters(
    f: &Scope<'_>,
    site: &Element,
    a: &mut Element,
    depth: u32,
    here: &Element,
) -> Result<(), ExpandError> {
    if a.attr("value").is_none() && a.child("value").is_none() {
        if let Some(v) = attr_str(site, "value") {
            match a.attrs.iter_mut().find(|(k, _)| k == "value") {
                Some(x) => x.1 = v.clone(),
                None => a.attrs.insert(0, ("value".into(), v.clone())),
            }
        } else if let Some(v) = site.child("value") {
            a.children.insert(0, v.clone());
        }
    }
    if let Some(t) = site.child("test") {
        let given = expand_list(f, std::slice::from_ref(t), depth + 1, Some(here))?;
        let given: Vec<Element> = given.into_iter().flat_map(|t| t.children).collect();
        match a.children.iter().position(|c| c.name == "test") {
            Some(i) => {
                let old = a.children.remove(i);
                let old = expand_owned(f, vec![old], depth + 1, Some(here))?;
                let old: Vec<Element> = old.into_iter().flat_map(|t| t.children).collect();
                a.children.insert(
                    0,
                    Element {
                        children: and_of(t, old, given),
                        ..shell(t)
                    },
                );
            }
            None => a.children.insert(
                0,
                Element {
                    children: given,
                    attrs: Vec::new(),
                    ..shell(t)
                },
            ),
        }
    }
    if let Some(ct) = site.child("counter-test") {
        give_counter_test(a, ct);
    }
    Ok(())
}
/// Every `<counter>` in the subtree gets the counter-test (ANDed with its own test).
fn give_counter_test(e: &mut Element, ct: &Element) {
    for c in &mut e.children {
        if c.name == "counter" {
            let own: Vec<Element> = c
                .children
                .iter()
                .filter(|x| x.name == "test")
                .flat_map(|t| t.children.clone())
                .collect();
            c.children.retain(|x| x.name != "test");
            let test = Element {
                name: "test".into(),
                attrs: Vec::new(),
                children: and_of(ct, own, ct.children.clone()),
                text: Str::default(),
                line: ct.line,
                from_ref: None,
            };
            c.children.insert(0, test);
        }
        give_counter_test(c, ct);
    }
}

/// Two test lists as one: the non-empty one, or `<and>` of both.
fn and_of(at: &Element, a: Vec<Element>, b: Vec<Element>) -> Vec<Element> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let mut children = a;
    children.extend(b);
    vec![Element {
        name: "and".into(),
        attrs: Vec::new(),
        children,
        text: Str::default(),
        line: at.line,
        from_ref: None,
    }]
}

fn err(e: &Element, message: &str) -> ExpandError {
    ExpandError {
        line: e.line,
        element: e.start_tag(),
        message: message.to_owned(),
    }
}

/// An unknown reference, with the closest known name.
fn unknown<'a>(
    e: &Element,
    kind: &str,
    name: &str,
    known: impl Iterator<Item = &'a String>,
) -> ExpandError {
    let distance = |k: &str| strsim::levenshtein(k, name);
    let best = known.min_by_key(|k| (distance(k), (*k).clone()));
    let hint = match best {
        Some(b) if distance(b) <= 3 => format!("; did you mean `{b}`?"),
        _ => "; the names are in fragment-references.xml".to_owned(),
    };
    err(e, &format!("no {kind} reference named `{name}`{hint}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fragments() -> Fragments {
        let refs = r#"<references>
          <tests>
            <test reference-name="is-creature"><has-idcard idcard="creature"/></test>
          </tests>
          <actions>
            <action reference-name="hit"><assign-damage type="damage-normal"/></action>
            <action reference-name="hit-fixed"><assign-damage value="1"/></action>
            <action reference-name="pick"><target type="card"><test ref="is-creature"/></target></action>
            <action reference-name="count-them"><modify-register index="life"><value><counter restriction-zone="play"/></value></modify-register></action>
            <action reference-name="twice"><action ref="hit"/><action ref="hit"/></action>
            <action reference-name="loop"><action ref="loop"/></action>
          </actions>
          <abilities>
            <ability reference-name="cast"><activated-ability zone="hand"><cost><pay-mana value="manacost"/><macro><default><nothing/></default></macro></cost><effects><macro/></effects></activated-ability></ability>
          </abilities>
        </references>"#;
        Fragments::load(
            "refs.xml",
            refs,
            "aliases.xml",
            r#"<aliases><alias name="manacost" value="255"/></aliases>"#,
        )
        .unwrap()
    }

    fn expand(xml: &str) -> Result<Vec<Element>, ExpandError> {
        let e = crate::tree::parse(xml).unwrap();
        expand_all(&fragments(), &e.children)
    }

    #[test]
    fn the_macro_value_reaches_actions_without_one() {
        let v =
            expand(r#"<x><action ref="hit" value="3"/><action ref="hit-fixed" value="3"/></x>"#)
                .unwrap();
        assert_eq!(v[0].attr("value"), Some("3"));
        assert_eq!(v[1].attr("value"), Some("1"), "an action's own value wins");
        assert_eq!(v[0].from_ref.as_deref(), Some("hit"));
        // Nested references: each action of `twice` gets the value.
        let v = expand(r#"<x><action ref="twice" value="2"/></x>"#).unwrap();
        assert_eq!(v.len(), 2);
        assert!(v
            .iter()
            .all(|a| a.attr("value") == Some("2") && a.from_ref.as_deref() == Some("hit")));
    }

    #[test]
    fn the_macro_test_is_anded_and_test_references_expand() {
        let v =
            expand(r#"<x><action ref="pick"><test><has-color color="red"/></test></action></x>"#)
                .unwrap();
        let test = v[0].child("test").unwrap();
        let and = &test.children[0];
        assert_eq!(and.name, "and");
        assert_eq!(
            and.children
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>(),
            ["has-idcard", "has-color"]
        );
    }

    #[test]
    fn counter_tests_and_macro_actions_are_plugged_in() {
        let v = expand(r#"<x><action ref="count-them"><counter-test><has-idcard idcard="land"/></counter-test></action></x>"#).unwrap();
        let counter = &v[0].child("value").unwrap().children[0];
        assert_eq!(
            counter.child("test").unwrap().children[0].attr("idcard"),
            Some("land")
        );
        let v = expand(r#"<x><ability ref="cast"/></x>"#).unwrap();
        let cost = v[0].child("cost").unwrap();
        assert_eq!(
            cost.children
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>(),
            ["pay-mana", "nothing"],
            "a macro takes its default"
        );
        let v = expand(r#"<x><ability ref="cast"><actions><a1/></actions><actions><a2/></actions></ability></x>"#).unwrap();
        assert_eq!(v[0].child("cost").unwrap().children[1].name, "a1");
        assert_eq!(v[0].child("effects").unwrap().children[0].name, "a2");
    }

    #[test]
    fn unknown_and_cyclic_references_are_errors_at_their_element() {
        let e = expand("<x>\n<action ref=\"hitt\"/></x>").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("did you mean `hit`"), "{}", e.message);
        assert_eq!(e.element, "<action ref=\"hitt\">");
        let e = expand(r#"<x><action ref="loop"/></x>"#).unwrap_err();
        assert!(e.message.contains("nest too deeply"), "{}", e.message);
        // References that fan out stop at the budget, quickly.
        let mut refs =
            String::from("<references><actions><action reference-name=\"r0\"><leaf/></action>");
        for i in 1..30 {
            refs.push_str(&format!("<action reference-name=\"r{i}\"><action ref=\"r{}\"/><action ref=\"r{}\"/></action>", i - 1, i - 1));
        }
        refs.push_str("</actions></references>");
        let f = Fragments::load("refs.xml", &refs, "aliases.xml", "<aliases/>").unwrap();
        let site = crate::tree::parse("<x><action ref=\"r29\"/></x>").unwrap();
        let e = expand_all(&f, &site.children).unwrap_err();
        assert!(e.message.contains("more than"), "{}", e.message);
        // A plain expansion is computed once, then shared.
        let f = fragments();
        let plain = f
            .plain_expansion("action", "hit", &[("value", "2")])
            .unwrap();
        assert_eq!(
            *plain,
            expand(r#"<x><action ref="hit" value="2"/></x>"#).unwrap()
        );
        let again = f
            .plain_expansion("action", "hit", &[("value", "2")])
            .unwrap();
        assert!(std::sync::Arc::ptr_eq(&plain, &again));
        assert!(f.plain_expansion("action", "hitt", &[]).is_err());
        // Runtime references stay as written.
        let v = expand(r#"<x><add-ability ref="this"/></x>"#).unwrap();
        assert_eq!(v[0].attr("ref"), Some("this"));
    }
}
