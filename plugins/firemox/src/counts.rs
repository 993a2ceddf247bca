//! Computed values: `<counter restriction-zone="play"><test/></counter>` (how many cards
//! of a zone pass a test) as a selector ref of the card's own and `count(ref)` in an mtg
//! expression, with `<add>`, `<minus>` and `<mult>` around it. Used for `*/*` creatures
//! (`<register index="power"><value>...`), whose power and toughness become a class aura
//! setting them (layer 7b) while the card is on the battlefield.

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::Parts;
use crate::conditions::{comparison, condition};

/// Zones a `<counter restriction-zone>` may name, as mtg selectors' zone and extra test.
fn zone(z: &str) -> Option<(&'static str, Option<Value>)> {
    match z {
        "play" => Some(("battlefield", None)),
        "playANDtapped" => Some((
            "battlefield",
            Some(json!({ "type": "has_tag", "tag": "tapped" })),
        )),
        "playANDuntapped" => Some((
            "battlefield",
            Some(json!({ "not": { "type": "has_tag", "tag": "tapped" } })),
        )),
        "hand" => Some(("hand", None)),
        "graveyard" => Some(("graveyard", None)),
        "library" => Some(("library", None)),
        _ => None,
    }
}

/// Where a computed value is read: how its counted selectors are named (and kept), and
/// how a register it reads becomes an mtg expression.
pub trait Scope {
    /// Keeps `selector` as a named selector ref and returns its name (for `count(...)`).
    fn count(&mut self, selector: Value) -> String;
    /// A register leaf (`<value register="this" index="power"/>`) as an mtg expression.
    fn register(&self, e: &Element) -> Option<String>;
    /// The class of the card whose value it is.
    fn class(&self) -> &str;
}

/// A card's own computed values (its statics, its `*/*`): selectors become refs of the
/// card (`<class>_count_<n>` in `out.refs`) and `this` is the card itself
/// ([`crate::conditions::register`]).
struct Own<'a> {
    class: &'a str,
    out: &'a mut Parts,
}

impl Scope for Own<'_> {
    fn count(&mut self, selector: Value) -> String {
        let name = format!("{}_count_{}", self.class, self.out.refs.len());
        self.out
            .refs
            .push((name.clone(), json!({ "selector": selector })));
        name
    }
    fn register(&self, e: &Element) -> Option<String> {
        crate::conditions::register(e, true)
    }
    fn class(&self) -> &str {
        self.class
    }
}

/// The mtg expression for a value element's content (`<value>`'s one child, or a register
/// of the card itself or its controller, [`crate::conditions::register`]): a counter
/// (its selector added to `out.refs` under `<class>_count_<n>`), or arithmetic on one.
pub fn expression(
    f: &Fragments,
    class: &str,
    e: &Element,
    out: &mut Parts,
) -> Result<String, String> {
    expression_in(f, e, &mut Own { class, out })
}

/// [`expression`] read in any [`Scope`].
pub fn expression_in(f: &Fragments, e: &Element, scope: &mut dyn Scope) -> Result<String, String> {
    match e.name.as_str() {
        "value" | "left" | "right" => match e.children.as_slice() {
            [one] if e.attrs.is_empty() => expression_in(f, one, scope),
            [] => e
                .attr("value")
                .and_then(|v| f.value(v))
                .map(|n| n.to_string())
                .or_else(|| scope.register(e))
                .ok_or_else(|| format!("computed value {}", e.start_tag())),
            _ => Err(format!("computed value <{}> of several parts", e.name)),
        },
        "counter" => {
            let z = e.attr("restriction-zone").unwrap_or("?");
            let (zone, extra) = zone(z).ok_or_else(|| format!("counter in zone {z}"))?;
            if e.attrs.len() != 1 {
                return Err("counter with attributes other than restriction-zone".into());
            }
            let mut tests: Vec<Value> = extra.into_iter().collect();
            match e.children.as_slice() {
                [] => {}
                [t] => {
                    tests.push(counted(f, t, scope.class()).map_err(|m| format!("counter {m}"))?)
                }
                _ => return Err("counter with several tests".into()),
            }
            let name = scope.count(json!({ "type": "objects", "zone": zone, "where": tests }));
            Ok(format!("count({name})"))
        }
        op @ ("add" | "minus" | "mult") => {
            let sym = match op {
                "add" => "+",
                "minus" => "-",
                _ => "*",
            };
            let mut side = |name: &str| match (e.attr(name), e.child(name)) {
                (Some(v), None) => f
                    .value(v)
                    .map(|n| n.to_string())
                    .ok_or_else(|| format!("value `{v}`")),
                (None, Some(c)) => expression_in(f, c, scope),
                _ => Err(format!("<{op}> without one {name}")),
            };
            let left = side("left")?;
            let right = side("right")?;
            Ok(format!("({left} {sym} {right})"))
        }
        other => Err(format!("computed value <{other}>")),
    }
}

/// The test of a counter: `<has-name name="...">` naming the card itself (Kindle's "cards
/// named Kindle") is being of its class; other tests through [`condition`].
fn counted(f: &Fragments, t: &Element, class: &str) -> Result<Value, String> {
    match t.attr("name") {
        Some(n) if t.name == "has-name" && t.children.is_empty() && t.attrs.len() == 1 => {
            if crate::card::slug(n) == class {
                Ok(json!({ "type": "of_class", "class": format!("firemox:class/{class}") }))
            } else {
                Err("test <has-name> of another card".into())
            }
        }
        _ => condition(f, t),
    }
}

/// A `*/*` creature's computed `power` and `toughness` registers as a class aura setting
/// them while it is on the battlefield (`None` when it has no computed register).
pub fn power_toughness(
    f: &Fragments,
    class: &str,
    computed: &[(String, Element)],
    out: &mut Parts,
) -> Option<Value> {
    let mut modifiers = Vec::new();
    for (index, v) in computed {
        let key = match index.as_str() {
            "power" => "power",
            "toughness" => "max_health",
            other => {
                out.missing.push(format!("computed register {other}"));
                continue;
            }
        };
        match expression(f, class, v, out) {
            Ok(x) => modifiers.push(json!({ "key": key, "op": "set", "value": x })),
            Err(m) => out.missing.push(format!("computed {key}: {m}")),
        }
    }
    (!modifiers.is_empty()).then(|| json!({ "modifiers": modifiers, "zones": ["battlefield"] }))
}

/// A test that may count cards (`<has restriction-zone>`: some card passes; `<sup>`,
/// `<inf>`, `<equal>`, ... of computed values: threshold), with `and` / `or` / `not`
/// around; any other test through [`condition`]. Counted selectors go to `out.refs`.
pub fn test(f: &Fragments, class: &str, e: &Element, out: &mut Parts) -> Result<Value, String> {
    match e.name.as_str() {
        "and" | "test" | "while" => {
            let all = e
                .children
                .iter()
                .map(|c| test(f, class, c, out))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(json!({ "all": all }));
        }
        "or" => {
            let any = e
                .children
                .iter()
                .map(|c| test(f, class, c, out))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(json!({ "any": any }));
        }
        "not" => {
            return match e.children.as_slice() {
                [one] => Ok(json!({ "not": test(f, class, one, out)? })),
                _ => Err("test <not> with several tests".into()),
            }
        }
        "has" => {
            let counter = Element {
                name: "counter".into(),
                ..e.clone()
            };
            let n = expression(f, class, &counter, out)?;
            return Ok(json!({ "type": "compare", "left": n, "op": ">", "right": 0 }));
        }
        _ => {}
    }
    let Some(op) = comparison(&e.name) else {
        return condition(f, e);
    };
    let mut side = |name: &str| match (e.attr(name), e.child(name)) {
        (Some(v), None) => f
            .value(v)
            .map(|n| n.to_string())
            .ok_or_else(|| format!("value `{v}`")),
        (None, Some(c)) => expression(f, class, c, out),
        _ => Err(format!("<{}> without one {name}", e.name)),
    };
    let left = side("left")?;
    let right = side("right")?;
    Ok(json!({ "type": "compare", "left": left, "op": op, "right": right }))
}
