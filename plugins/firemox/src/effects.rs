//! The pieces of an expanded ability that the translators recognise: runs of elements
//! that came from one reference ([`groups`]), targets (`target-creature`, ...), and effects
//! on the chosen target — damage, +N/+N until end of turn, destroy, counter, return to
//! hand, exile, gain life — as mtg actions, and `if-then-hop`/`hop` control flow as
//! structured `if` actions ([`actions`]). Anything else is reported by name.

use std::cell::RefCell;

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::plain_list;

/// Consecutive elements expanded from one reference, or one element written in the card.
pub struct Group<'a> {
    /// The reference, if the elements came from one.
    pub reference: Option<&'a str>,
    /// The elements.
    pub elems: &'a [Element],
}

/// Splits a list into [`Group`]s.
pub fn groups(list: &[Element]) -> Vec<Group<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let r = list[i].from_ref.as_deref();
        let mut j = i + 1;
        if r.is_some() {
            while j < list.len() && list[j].from_ref.as_deref() == r {
                j += 1;
            }
        }
        out.push(Group {
            reference: r,
            elems: &list[i..j],
        });
        i = j;
    }
    out
}

/// A target reference and the mtg tags of what it may target (`targets_creature`, ...).
pub const TARGETS: &[(&str, &[&str])] = &[
    ("target-creature", &["targets_creature"]),
    ("target-dealtable", &["targets_creature", "targets_player"]),
    ("target-player", &["targets_player"]),
    ("target-opponent", &["targets_player", "tgt_opponents"]),
    ("target-spell", &["targets_spell"]),
    ("target-permanent", &["targets_permanent", "tgt_permanent"]),
    ("target-card", &["targets_permanent", "tgt_permanent"]),
    ("target-land", &["targets_permanent", "tgt_land"]),
    ("target-artifact", &["targets_permanent", "tgt_artifact"]),
    (
        "target-enchantment",
        &["targets_permanent", "tgt_enchantment"],
    ),
];

/// Splits targeting tags ([`TARGETS`]) into the mtg rules' tags (`targets_permanent`) and
/// their `tgt_*` properties (1 each: what `legal_permanent_target` lets it target).
pub fn target_props(tags: &[String]) -> (Vec<String>, Vec<(String, Value)>) {
    let (props, tags): (Vec<&String>, Vec<&String>) =
        tags.iter().partition(|t| t.starts_with("tgt_"));
    (
        tags.into_iter().cloned().collect(),
        props.into_iter().map(|p| (p.clone(), json!(1))).collect(),
    )
}

/// The chosen target, re-checked as it resolves: the mtg rules' `permanent_target` for a
/// permanent (by the `tgt_*` properties), `graveyard_target` for a card in a graveyard
/// ([`crate::graveyard`]), else `spell_target` (a creature, a player, a spell).
pub fn chosen_ref(tags: &[String]) -> Value {
    if tags.iter().any(|t| t == "targets_graveyard_card") {
        json!({ "ref": "mtg:ref/graveyard_target" })
    } else if tags.iter().any(|t| t == "targets_permanent") {
        json!({ "ref": "mtg:ref/permanent_target" })
    } else if tags.iter().any(|t| t == crate::graveyard::TAG) {
        json!({ "ref": "mtg:ref/graveyard_target" })
    } else {
        json!({ "ref": "mtg:ref/spell_target" })
    }
}

/// The targeting tags of a target group, or what it lacks.
pub fn target(f: &Fragments, g: &Group<'_>) -> Result<Vec<String>, String> {
    match filtered_target(f, g)? {
        (tags, None) => Ok(tags),
        (_, Some(_)) => Err(format!("{} with a test", g.reference.unwrap_or("target"))),
    }
}

/// The targeting tags of a target group and, when the card gave the reference a MACRO
/// test, that test as an mtg condition on the candidate (`target-creature` with
/// `<has-color color="black"/>` under `<not>`: a nonblack creature).
pub fn filtered_target(
    f: &Fragments,
    g: &Group<'_>,
) -> Result<(Vec<String>, Option<Value>), String> {
    let r = g.reference.unwrap_or("");
    let Some((n, tags)) = TARGETS.iter().find(|(n, _)| *n == r) else {
        return Err(if r.starts_with("target-") {
            format!("cost {r}")
        } else {
            format!("cost {}", describe(g))
        });
    };
    let tags: Vec<String> = tags.iter().map(|t| (*t).to_owned()).collect();
    if plain_list(f, "action", n, g.elems) {
        return Ok((tags, None));
    }
    let plain = f.plain_expansion("action", n, &[]).map_err(|e| e.message)?;
    let with_test = format!("{n} with a test");
    let ([p], [c]) = (plain.as_slice(), g.elems) else {
        return Err(with_test);
    };
    let (Some(pt), Some(ct)) = (p.child("test"), c.child("test")) else {
        return Err(with_test);
    };
    let same_rest = p.attrs == c.attrs && p.children.len() == c.children.len();
    let extra = match ct.children.as_slice() {
        [and]
            if and.name == "and"
                && and.children.len() > pt.children.len()
                && and.children[..pt.children.len()] == pt.children[..] =>
        {
            &and.children[pt.children.len()..]
        }
        _ => return Err(with_test),
    };
    if !same_rest {
        return Err(with_test);
    }
    let conds = extra
        .iter()
        .map(|x| crate::conditions::condition(f, x))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|m| format!("{with_test}: {m}"))?;
    Ok((tags, Some(json!({ "all": conds }))))
}

/// How a group is named in the list of what a card lacks: its reference, or the element.
pub fn describe(g: &Group<'_>) -> String {
    match g.reference {
        Some(r) => format!("action {r}"),
        None => g
            .elems
            .first()
            .map_or("nothing".into(), |e| format!("<{}>", e.name)),
    }
}

/// The effect of one group on the chosen target (`to`), with `self` the source: mtg
/// actions, or what it lacks.
pub fn effect(f: &Fragments, g: &Group<'_>, to: &Value, cx: &Cx) -> Result<Vec<Value>, String> {
    let [e] = g.elems else {
        return match g.reference {
            Some("return-to-hand" | "counter") => Err(format!("{} with parameters", describe(g))),
            _ => Err(describe(g)),
        };
    };
    let is = |name: &str| plain_list(f, "action", name, g.elems);
    match (g.reference, e.name.as_str()) {
        (Some("destroy"), _) if is("destroy") => Ok(vec![json!({ "type": "destroy", "to": to })]),
        // Burying is destroying that cannot be regenerated: the target's shields go first.
        (Some("bury"), _) if is("bury") => Ok(vec![
            json!({ "type": "set", "key": "regeneration", "value": 0, "to": to }),
            json!({ "type": "destroy", "to": to }),
        ]),
        // A spell that can't be countered (the mtg rules' `uncounterable`) stays.
        (Some("counter"), _) if is("counter") => Ok(vec![json!({ "type": "if", "to": to,
            "condition": { "not": { "type": "has_tag", "tag": "uncounterable" } },
            "then": [{ "type": "move", "zone": "graveyard" }] })]),
        (Some("move-library-top"), _) if is("move-library-top") => Ok(vec![
            json!({ "type": "move", "zone": "library", "slot": 0, "to": to }),
        ]),
        (Some("move-library-top" | "move-library-bottom") | None, "move-card") => {
            crate::movement::move_card(e, to)
        }
        (Some("return-to-hand"), _) if is("return-to-hand") => {
            Ok(vec![json!({ "type": "move", "zone": "hand", "to": to })])
        }
        (Some("gain-life" | "lose-life"), "modify-register") => crate::computed::own_life(f, e, cx),
        (Some("remove-from-game"), _) if is("remove-from-game") => {
            Ok(vec![json!({ "type": "move", "zone": "exile", "to": to })])
        }
        (None, "modify-register") => target_life(f, e),
        // "It doesn't untap during its controller's next untap step": the mtg rules'
        // `skips_next_untap`.
        (Some("does-not-untap-next-untap"), _) if is("does-not-untap-next-untap") => Ok(vec![
            json!({ "type": "tag", "tag": "skips_next_untap", "to": to }),
        ]),
        // Mana for the controller of `self` (a ritual, a trigger): fixed amounts.
        (None, "give-mana") => crate::mana::fixed(f, e),
        (_, "add-modifier") => pump(f, e, to),
        (None, "tap") if e.attrs.is_empty() && e.children.is_empty() => {
            Ok(vec![json!({ "type": "tag", "tag": "tapped", "to": to })])
        }
        (None, "untap") if e.attrs.is_empty() && e.children.is_empty() => {
            Ok(vec![json!({ "type": "untag", "tag": "tapped", "to": to })])
        }
        _ => crate::prevention::effect(f, g, to)
            .or_else(|| crate::life::effect(f, g, to))
            .ok_or_else(|| describe(g)),
    }
}

/// `<add-modifier>` until the cleanup step → an aura on the target until the mtg rules'
/// `cleanup`: register modifiers adding to or subtracting from power/toughness (+N/-N),
/// property modifiers giving a keyword the rules implement (flying until end of turn),
/// and "becomes an N/N creature" ([`crate::animate`]).
fn pump(f: &Fragments, e: &Element, to: &Value) -> Result<Vec<Value>, String> {
    let mut modifiers = Vec::new();
    for m in &e.children {
        let until_cleanup = crate::granted::until_cleanup(m);
        let unlinked = matches!(m.attr("linked"), None | Some("false"));
        if let Some(v) = crate::animate::modifier(f, m).filter(|_| until_cleanup && unlinked) {
            modifiers.extend(v);
            continue;
        }
        if m.name == "property-modifier" {
            let keyword = m
                .attr("property")
                .and_then(|p| crate::card::KEYWORDS.iter().find(|(k, _)| *k == p));
            let adds = matches!(m.attr("operation"), None | Some("add"));
            let known = m
                .attrs
                .iter()
                .all(|(k, _)| matches!(k.as_str(), "property" | "linked" | "operation" | "name"));
            match keyword {
                Some((_, tag)) if until_cleanup && unlinked && adds && known => {
                    modifiers.push(json!({ "key": tag, "op": "tag" }));
                    continue;
                }
                _ => {
                    return Err(
                        "<add-modifier> of something else than power/toughness or a keyword".into(),
                    )
                }
            }
        }
        let key = match m.attr("index") {
            Some("power") => "power",
            Some("toughness") => "max_health",
            _ => return Err("<add-modifier> of something else than power/toughness".into()),
        };
        let value = m.attr("value").and_then(|v| f.value(v));
        let sign = match m.attr("operation") {
            Some("add") => 1,
            Some("minus") => -1,
            _ => 0,
        };
        match (m.name.as_str(), value) {
            ("register-modifier", Some(n)) if until_cleanup && unlinked && sign != 0 => {
                modifiers.push(json!({ "key": key, "op": "add", "value": sign * n }));
            }
            _ => return Err("<add-modifier> other than +N/+N until end of turn".into()),
        }
    }
    let aura = json!({ "modifiers": modifiers, "until": "mtg:event/cleanup" });
    Ok(vec![json!({ "type": "give_aura", "aura": aura, "to": to })])
}

/// `<modify-register register="target.controller" index="life" operation="add">` with a
/// value of the target (Swords to Plowshares: its power) → the target's controller gains it.
fn target_life(f: &Fragments, e: &Element) -> Result<Vec<Value>, String> {
    let ok = e.attr("register") == Some("target.controller")
        && e.attr("index") == Some("life")
        && e.attr("operation") == Some("add");
    if !ok {
        return Err(format!("<modify-register> {}", e.start_tag()));
    }
    let amount = crate::conditions::value(f, e.child("value"), e.attr("value"))
        .map_err(|m| format!("<modify-register> of {m}"))?;
    Ok(vec![
        json!({ "type": "add", "key": "damage", "amount": format!("0 - ({amount})"), "to": { "type": "owner", "of": "self.chosen" } }),
    ])
}

/// What effects act on: the target chosen when the spell or ability was put on the stack
/// (`target`), and the card itself (`this`, after `<target type="this"/>`; `None` where the
/// card is the spell).
pub struct Cx {
    /// The chosen target's selector.
    pub target: Value,
    /// The source card's selector, for abilities of permanents.
    pub this: Option<Value>,
    /// The registers of the triggering event that a triggered ability remembers, with
    /// the references they are kept from (`("card", "event.target")`: Firemox's
    /// `context.card`, the ability object's `context_card` link); empty outside triggered
    /// abilities.
    pub context: &'static [(&'static str, &'static str)],
    /// Whether the cost paid X (`pay-x`), which `<value register="stack" index="0"/>`
    /// reads as the ability's `x_paid` ([`crate::computed`]).
    pub x: bool,
    /// The card's class, naming the selectors its computed amounts count.
    pub class: String,
    /// The selectors computed amounts count (`count(...)`), to become refs of the card
    /// once the effects are read ([`Cx::counted_into`]).
    pub counted: RefCell<Vec<(String, Value)>>,
}

impl Cx {
    /// The context of effects of the card `class` acting on `target`, with `this` the
    /// card of an ability and `context` what its trigger remembers.
    pub fn new(
        class: &str,
        target: Value,
        this: Option<Value>,
        context: &'static [(&'static str, &'static str)],
        x: bool,
    ) -> Cx {
        Cx {
            target,
            this,
            context,
            x,
            class: class.to_owned(),
            counted: RefCell::default(),
        }
    }

    /// Moves the selectors counted so far to the card's refs.
    pub fn counted_into(&self, refs: &mut Vec<(String, Value)>) {
        refs.extend(self.counted.take());
    }
}

/// A list of effects with Firemox's control flow made structured: `<if-then-hop
/// elsehop="N">` runs the next N-1 actions only when its test holds; when the last of
/// them is `<hop value="M">`, the M-1 actions after it are the else branch. Hops that
/// leave the list (`abort`, past the end) are missing. `Err` lists what is missing.
pub fn actions(f: &Fragments, list: &[Element], cx: &Cx) -> Result<Vec<Value>, Vec<String>> {
    let (mut out, mut missing) = (Vec::new(), Vec::new());
    let mut to = cx.target.clone();
    let mut repeat: Option<Value> = None;
    let mut i = 0;
    while i < list.len() {
        let e = &list[i];
        if let Some(sel) = crate::retarget::retarget(f, e, cx) {
            // Firemox adds the card to the target list: with a target chosen, what follows
            // acts on both (Serrated Biskelion), which is not translated.
            let adds_this = e.attr("type") == Some("this")
                && cx.this.is_some()
                && Some(&cx.target) != cx.this.as_ref();
            match sel {
                Ok(_) if adds_this => {
                    missing.push("<target type=\"this\"> added to a chosen target".into())
                }
                Ok(sel) => to = sel,
                Err(m) => missing.push(m),
            }
            i += 1;
            continue;
        }
        if e.name == "repeat" && e.from_ref.is_none() {
            // N times, N a number or computed as the effect happens (Flow of Ideas: the
            // Islands you control).
            match e.attr("value").and_then(|v| f.value(v)) {
                Some(n) if (1..=20).contains(&n) && e.children.is_empty() => {
                    repeat = Some(json!(n))
                }
                _ if e.attr("value").is_none() => match crate::computed::amount(f, e, cx) {
                    Ok(x) => repeat = Some(json!(x)),
                    Err(m) => missing.push(format!("<repeat> of {m}")),
                },
                _ => missing.push(format!("<repeat> {}", e.start_tag())),
            }
            i += 1;
            continue;
        }
        if e.name == "choice" && e.from_ref.is_none() {
            match choice(f, e, i + 1 < list.len(), &to, cx) {
                Ok(action) => out.push(action),
                Err(m) => missing.extend(m),
            }
            i += 1;
            continue;
        }
        if e.name == "if-then-hop" && e.from_ref.is_none() {
            match branch(f, list, i, cx) {
                Ok((action, next)) => {
                    out.push(action);
                    i = next;
                }
                Err(m) => {
                    missing.extend(m);
                    break;
                }
            }
            continue;
        }
        let g = groups(&list[i..]).into_iter().next();
        let Some(g) = g else { break };
        i += g.elems.len();
        if g.reference == Some("draw-a-card") && plain_list(f, "action", "draw-a-card", g.elems) {
            let count = repeat.take().unwrap_or(json!(1));
            out.push(json!({ "type": "emit", "event": "mtg:event/draw", "count": count, "to": to.clone() }));
            continue;
        }
        // Sacrificing the card of an ability: it goes to its owner's graveyard (what
        // follows acts on the target list Firemox clears: nothing is translated after it).
        if g.reference == Some("sacrifice-this")
            && plain_list(f, "action", "sacrifice-this", g.elems)
        {
            match &cx.this {
                Some(this) if i == list.len() => {
                    out.push(json!({ "type": "move", "zone": "graveyard", "to": this }));
                }
                Some(_) => missing.push("effects after sacrifice-this".into()),
                None => missing.push("sacrifice-this in a spell".into()),
            }
            continue;
        }
        // A regeneration shield (the mtg rules' `regeneration`, until the cleanup) on the
        // card itself (`regenerate`) or the target (`regenerate-target`).
        if let Some(r @ ("regenerate" | "regenerate-target")) = g.reference {
            let on = if r == "regenerate" {
                cx.this.clone()
            } else {
                Some(to.clone())
            };
            match on.filter(|_| plain_list(f, "action", r, g.elems)) {
                Some(on) => {
                    out.push(json!({ "type": "add", "key": "regeneration", "amount": 1, "to": on }))
                }
                None => missing.push(describe(&g)),
            }
            continue;
        }
        if let Some(v) = crate::counters::add_object(g.elems, &to, repeat.clone()) {
            repeat = None;
            out.extend(v);
            continue;
        }
        if let Some(done) = g
            .elems
            .first()
            .and_then(|e| crate::computed::damage(f, e, &to, cx))
        {
            match done {
                Ok(v) if g.elems.len() == 1 => out.extend(v),
                Ok(_) => missing.push(describe(&g)),
                Err(m) => missing.push(m),
            }
            continue;
        }
        if let Some(n) = repeat.take() {
            missing.push(format!("<repeat> {n} times of {}", describe(&g)));
        }
        match effect(f, &g, &to, cx) {
            Ok(v) => out.extend(v),
            Err(m) => missing.push(m),
        }
    }
    if missing.is_empty() && out.is_empty() && !list.is_empty() {
        missing.push("effects that do nothing the rules know".into());
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(missing)
    }
}

/// `<choice controller="you">` of `<either>` branches → the core `choose_mode` asked of
/// the card's controller (the owner of the spell or ability): one branch, or — with
/// `cancel="true"`, "you may" — none (`decline`); a branch paying generic mana first is
/// offered only while it can be paid ([`crate::pay`]). `more` says effects follow the choice:
/// a branch that retargets (`<target>`) would change what they act on in Firemox, which
/// is not translated.
fn choice(
    f: &Fragments,
    e: &Element,
    more: bool,
    to: &Value,
    cx: &Cx,
) -> Result<Value, Vec<String>> {
    let lacks = || vec![format!("<choice> {}", e.start_tag())];
    let cancel = match e.attr("cancel") {
        Some("true") => true,
        Some("false") | None => false,
        Some(_) => return Err(lacks()),
    };
    let known = e
        .attrs
        .iter()
        .all(|(k, _)| matches!(k.as_str(), "controller" | "cancel" | "name"));
    if e.attr("controller") != Some("you") || !known || e.children.is_empty() {
        return Err(lacks());
    }
    if e.children
        .iter()
        .any(|c| c.name != "either" || !c.attrs.is_empty())
    {
        return Err(vec!["<choice> with something else than <either>".into()]);
    }
    if more
        && e.children
            .iter()
            .any(|c| c.children.iter().any(|x| x.name == "target"))
    {
        return Err(vec![
            "<choice> changing the target of the effects after it".into()
        ]);
    }
    let inner = Cx::new(&cx.class, to.clone(), cx.this.clone(), cx.context, cx.x);
    let mut modes = Vec::new();
    for (n, either) in e.children.iter().enumerate() {
        let mut mode = json!({ "label": format!("option {}", n + 1) });
        let rest = match crate::pay::leading(f, &either.children) {
            Some(Ok(p)) => {
                mode["if"] = p.when;
                mode["do"] = json!([p.pay]);
                p.rest
            }
            Some(Err(m)) => return Err(vec![m]),
            None => &either.children[..],
        };
        let mut all = mode["do"].as_array().cloned().unwrap_or_default();
        all.extend(actions(f, rest, &inner)?);
        mode["do"] = Value::Array(all);
        modes.push(mode);
    }
    inner.counted_into(&mut cx.counted.borrow_mut());
    if cancel {
        modes.push(json!({ "label": "decline", "do": [] }));
    }
    if modes.len() == 1 {
        return Err(vec!["<choice> of a single branch that must be taken".into()]);
    }
    Ok(json!({ "type": "choose_mode", "modes": modes, "prompt": "choose" }))
}

/// The `if` for the `if-then-hop` at `i`, and the index after it.
fn branch(
    f: &Fragments,
    list: &[Element],
    i: usize,
    cx: &Cx,
) -> Result<(Value, usize), Vec<String>> {
    let e = &list[i];
    let hop = |x: &Element, attr: &str| {
        x.attr(attr)
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n >= 1)
    };
    let Some(n) = hop(e, "elsehop") else {
        return Err(vec![format!(
            "if-then-hop elsehop={}",
            e.attr("elsehop").unwrap_or("?")
        )]);
    };
    let end = i + n;
    if end > list.len() {
        return Err(vec!["if-then-hop past the end".into()]);
    }
    let test = e
        .child("test")
        .ok_or_else(|| vec!["if-then-hop without a test".to_owned()])?;
    let condition =
        crate::conditions::test(f, test).map_err(|m| vec![format!("if-then-hop {m}")])?;
    let mut then = &list[i + 1..end];
    let mut next = end;
    let mut otherwise: &[Element] = &[];
    if let Some(last) = then
        .last()
        .filter(|l| l.name == "hop" && l.from_ref.is_none())
    {
        let m = hop(last, "value").ok_or_else(|| vec![format!("hop {}", last.start_tag())])?;
        if end - 1 + m > list.len() {
            return Err(vec!["hop past the end".into()]);
        }
        otherwise = &list[end..end - 1 + m];
        next = end - 1 + m;
        then = &then[..then.len() - 1];
    }
    let then = actions(f, then, cx)?;
    let otherwise = actions(f, otherwise, cx)?;
    Ok((
        json!({ "type": "if", "condition": condition, "then": then, "else": otherwise }),
        next,
    ))
}
