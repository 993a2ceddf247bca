//! "Pay this cost, or else" — a `<choice>` asked of the ability's controller (no
//! `controller` attribute, or `you` / `controller`: Firemox's default is the controller)
//! among `<either>` branches, one of which may begin by paying: echo (`<pay-mana
//! value="manacost"/>`, else sacrifice), cumulative upkeep (mana per age counter, life per
//! age counter, else sacrifice), Carnophage (pay 1 life, else tap it). It is what a
//! triggered ability's `<cost>` holds at the upkeep, paid as the ability resolves (the
//! rules' "unless you pay"), and what echo's effects begin with.
//!
//! A branch's payment becomes the `if` of its `choose_mode` mode (offered only while it
//! can be paid) and the first of its actions:
//! - mana (`<pay-mana>` with colour attributes, colour elements holding a computed value,
//!   or `value="manacost"`: the card's own cost): what is due goes into the ability
//!   object's `due_*` before the choice, then the mtg rules' `can_pay_due_now` /
//!   `pay_due_now` (`mods/mtg/content/upkeep_costs.toml`);
//! - life (`pay-life`): offered at that life or more (119.4), lost as life is.
//!
//! The rest of each branch goes through [`crate::effects::actions`]. A computed amount is
//! a number, a counter on the card itself (`<counter object-name="age" card="this"/>`)
//! or arithmetic on them; anything else is missing.

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::effects::{groups, Cx};

/// The colours of a `<pay-mana>`: Firemox's attribute (or element) name, the mtg rules'
/// `due_*` suffix and the card's cost property (`value="manacost"`).
const COLOURS: &[(&str, &str, &str)] = &[
    ("white", "w", "cost_w"),
    ("blue", "u", "cost_u"),
    ("black", "b", "cost_b"),
    ("red", "r", "cost_r"),
    ("green", "g", "cost_g"),
    ("colorless", "generic", "cost_generic"),
];

/// The counters a `<counter object-name card="this">` may count: Firemox's object name
/// and the mtg rules' property.
const COUNTERS: &[(&str, &str)] = &[("age", "age"), ("+1/+1", "p1p1"), ("-1/-1", "m1m1")];

/// Whether `e` is a `<choice>` this module reads: asked of the ability's controller.
pub fn is_controllers_choice(e: &Element) -> bool {
    e.name == "choice"
        && e.from_ref.is_none()
        && matches!(e.attr("controller"), None | Some("you" | "controller"))
}

/// The actions for the choice `e` (see the module comment): the dues set on the ability
/// object, then a `choose_mode`. `Err` lists what is missing.
pub fn pay_or_else(f: &Fragments, e: &Element, cx: &Cx) -> Result<Vec<Value>, Vec<String>> {
    let lacks = |m: &str| vec![format!("<choice> {m}")];
    let cancel = match e.attr("cancel") {
        Some("true") => true,
        Some("false") | None => false,
        Some(v) => return Err(lacks(&format!("cancel={v}"))),
    };
    let known = e
        .attrs
        .iter()
        .all(|(k, _)| matches!(k.as_str(), "controller" | "cancel" | "name"));
    if !is_controllers_choice(e) || !known {
        return Err(lacks(&e.start_tag()));
    }
    if e.children.is_empty()
        || e.children
            .iter()
            .any(|c| c.name != "either" || !c.attrs.is_empty())
    {
        return Err(lacks("with something else than <either>"));
    }
    let (mut before, mut modes) = (Vec::new(), Vec::new());
    for (n, either) in e.children.iter().enumerate() {
        let mut mode = json!({ "label": format!("option {}", n + 1) });
        let mut actions = Vec::new();
        let rest = match leading(f, &either.children) {
            Some(Ok((pay, rest))) => {
                let key = |d: &Value| d["key"].clone();
                if pay
                    .dues
                    .iter()
                    .any(|p| before.iter().any(|d| key(d) == key(p)))
                {
                    return Err(lacks("with two payments of one kind"));
                }
                before.extend(pay.dues);
                mode["if"] = pay.when;
                actions.push(pay.pay);
                rest
            }
            Some(Err(m)) => return Err(vec![m]),
            None => &either.children[..],
        };
        if !rest.is_empty() {
            actions.extend(crate::effects::actions(f, rest, cx)?);
        }
        mode["do"] = Value::Array(actions);
        modes.push(mode);
    }
    if cancel {
        modes.push(json!({ "label": "decline", "do": [] }));
    }
    if modes.len() == 1 {
        return Err(lacks("of a single branch that must be taken"));
    }
    before.push(json!({ "type": "choose_mode", "modes": modes, "prompt": "pay, or else" }));
    Ok(before)
}

/// A payment at the head of a branch: the dues to set first (mana), the mode's `if`, the
/// paying action.
struct Payment {
    dues: Vec<Value>,
    when: Value,
    pay: Value,
}

/// The payment `list` begins with and the rest of it; `None` when it begins with none.
fn leading<'a>(
    f: &Fragments,
    list: &'a [Element],
) -> Option<Result<(Payment, &'a [Element]), String>> {
    let first = list.first()?;
    if first.name == "pay-mana" && first.from_ref.is_none() {
        return Some(mana(f, first).map(|p| (p, &list[1..])));
    }
    let g = groups(list).into_iter().next()?;
    if g.reference != Some("pay-life") {
        return None;
    }
    Some(life(f, g.elems).map(|p| (p, &list[g.elems.len()..])))
}

/// `<pay-mana>` → the dues (`due_*` of the ability object, `self`), `can_pay_due_now`,
/// `pay_due_now`.
fn mana(f: &Fragments, p: &Element) -> Result<Payment, String> {
    let lacks = || format!("<choice> paying {}", p.start_tag());
    let mut dues: Vec<(&str, String)> = Vec::new();
    if p.attr("value") == Some("manacost") {
        if p.attrs.len() != 1 || !p.children.is_empty() {
            return Err(lacks());
        }
        for (_, due, cost) in COLOURS {
            dues.push((due, format!("self.source_card.{cost}")));
        }
    } else {
        for (k, v) in &p.attrs {
            let due = colour(k).ok_or_else(lacks)?;
            let n = f
                .value(v)
                .filter(|n| (0..=40).contains(n))
                .ok_or_else(lacks)?;
            dues.push((due, n.to_string()));
        }
        for c in &p.children {
            let due = colour(&c.name).filter(|_| c.attrs.is_empty());
            let (Some(due), [v]) = (due, c.children.as_slice()) else {
                return Err(lacks());
            };
            dues.push((
                due,
                amount(f, v).map_err(|m| format!("{} of {m}", lacks()))?,
            ));
        }
    }
    if dues.is_empty() {
        return Err(lacks());
    }
    let mut set: Vec<Value> = COLOURS
        .iter()
        .map(|(_, due, _)| json!({ "type": "set", "key": format!("due_{due}"), "value": 0, "to": "self" }))
        .collect();
    for (due, value) in dues {
        set.push(
            json!({ "type": "add", "key": format!("due_{due}"), "amount": value, "to": "self" }),
        );
    }
    Ok(Payment {
        dues: set,
        when: json!({ "ref": "mtg:ref/can_pay_due_now" }),
        pay: json!({ "ref": "mtg:ref/pay_due_now" }),
    })
}

/// The `due_*` suffix of a Firemox colour name.
fn colour(name: &str) -> Option<&'static str> {
    COLOURS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, due, _)| *due)
}

/// `pay-life` (`<modify-register register="controller" index="life" operation="minus">`
/// with a `value` or a `<value>`): kept in the ability object's `due_life`, offered at
/// that life or more; the controller loses it.
fn life(f: &Fragments, elems: &[Element]) -> Result<Payment, String> {
    let lacks = || "<choice> paying life other than an amount".to_owned();
    let [m] = elems else { return Err(lacks()) };
    let attr_is = |k: &str, v: &str| m.attr(k) == Some(v);
    let known = m.attrs.iter().all(|(k, _)| {
        matches!(
            k.as_str(),
            "register" | "index" | "operation" | "value" | "name"
        )
    });
    if m.name != "modify-register"
        || !known
        || !attr_is("register", "controller")
        || !attr_is("index", "life")
        || !attr_is("operation", "minus")
    {
        return Err(lacks());
    }
    let n = match (m.attr("value"), m.children.as_slice()) {
        (Some(v), []) => f
            .value(v)
            .filter(|n| (1..=40).contains(n))
            .map(|n| n.to_string())
            .ok_or_else(lacks)?,
        (None, [v]) if v.name == "value" && v.attrs.is_empty() => match v.children.as_slice() {
            [x] => amount(f, x).map_err(|m| format!("{} ({m})", lacks()))?,
            _ => return Err(lacks()),
        },
        _ => return Err(lacks()),
    };
    Ok(Payment {
        dues: vec![json!({ "type": "set", "key": "due_life", "value": n, "to": "self" })],
        when: json!({ "type": "compare", "left": "target.owner.health", "op": ">=", "right": "target.due_life" }),
        pay: json!({ "type": "add", "key": "damage", "amount": "self.due_life", "to": "owner" }),
    })
}

/// A computed amount as an mtg expression on the ability object (`self`): a number, a
/// counter on the card (`self.source_card.<counter>`), `<add>` / `<minus>` / `<mult>` of
/// them.
fn amount(f: &Fragments, e: &Element) -> Result<String, String> {
    match e.name.as_str() {
        "counter" => {
            let only = e
                .attrs
                .iter()
                .all(|(k, _)| matches!(k.as_str(), "object-name" | "card"));
            let key = COUNTERS
                .iter()
                .find(|(n, _)| Some(*n) == e.attr("object-name"))
                .map(|(_, k)| *k);
            match key {
                Some(k) if only && e.attr("card") == Some("this") && e.children.is_empty() => {
                    Ok(format!("self.source_card.{k}"))
                }
                _ => Err(format!("computed amount {}", e.start_tag())),
            }
        }
        op @ ("add" | "minus" | "mult") => {
            let sym = match op {
                "add" => "+",
                "minus" => "-",
                _ => "*",
            };
            let side = |name: &str| match (e.attr(name), e.child(name)) {
                (Some(v), None) => f
                    .value(v)
                    .map(|n| n.to_string())
                    .ok_or_else(|| format!("computed amount {name}={v}")),
                (None, Some(s)) => match s.children.as_slice() {
                    [x] if s.attrs.is_empty() => amount(f, x),
                    _ => Err(format!("computed amount <{name}>")),
                },
                _ => Err(format!("computed amount <{op}>")),
            };
            Ok(format!("({} {sym} {})", side("left")?, side("right")?))
        }
        other => Err(format!("computed amount <{other}>")),
    }
}

/// What a triggered ability does as it resolves, and whether it ends with
/// `<unregister-this/>` ("only the first time": echo).
pub struct Resolution {
    /// Its actions.
    pub actions: Vec<Value>,
    /// Whether it unregisters itself.
    pub once: bool,
}

/// A triggered ability's resolution: its `<cost>` `<choice>` (`cost`, [`pay_or_else`])
/// first, then its effects — a leading choice asked of its controller without a
/// `controller` attribute read the same way, a trailing `<unregister-this/>` noted, the
/// rest through [`crate::effects::actions`]. A branch of a choice that retargets
/// (`<target>`) while effects follow is missing (what those act on would change).
pub fn resolution(
    f: &Fragments,
    cost: Option<&Element>,
    effects: &[Element],
    cx: &Cx,
) -> Result<Resolution, Vec<String>> {
    let (once, effects) = match effects.split_last() {
        Some((u, rest))
            if u.name == "unregister-this" && u.attrs.is_empty() && u.children.is_empty() =>
        {
            (true, rest)
        }
        _ => (false, effects),
    };
    let (choice, effects) = match effects.split_first() {
        Some((c, rest))
            if cost.is_none() && is_controllers_choice(c) && c.attr("controller").is_none() =>
        {
            (Some(c), rest)
        }
        _ => (cost, effects),
    };
    let mut actions = Vec::new();
    if let Some(c) = choice {
        let retargets = c
            .children
            .iter()
            .any(|b| b.children.iter().any(|x| x.name == "target"));
        if retargets && !effects.is_empty() {
            return Err(vec![
                "<choice> changing the target of the effects after it".into()
            ]);
        }
        actions.extend(pay_or_else(f, c, cx)?);
    }
    if !effects.is_empty() || actions.is_empty() {
        actions.extend(crate::effects::actions(f, effects, cx)?);
    }
    Ok(Resolution { actions, once })
}

/// The tag a card's triggered ability `name` that unregisters itself keeps while it is
/// registered: given as the card enters the battlefield (Firemox registers a card's
/// abilities then), taken by `<unregister-this/>`.
pub fn registered_tag(name: &str) -> String {
    format!("{name}_registered")
}

/// The card's trigger registering its ability `name` as it enters the battlefield.
pub fn register_on_entering(name: &str) -> Value {
    json!({
        "when": { "event": "core:event/moved", "target": [{ "type": "is_self" }, { "type": "in_zone", "zone": "battlefield" }] },
        "do": [{ "type": "tag", "tag": registered_tag(name) }],
    })
}

/// `<unregister-this/>` on the ability object: its card's tag taken.
pub fn unregister(name: &str) -> Value {
    json!({ "type": "untag", "tag": registered_tag(name), "to": { "type": "object", "object": "self.source_card" } })
}

/// What the effects of a hidden triggered ability (`resolution="hidden"`: it resolves as
/// it triggers, never on the stack — cumulative upkeep's age counter) act on: the card
/// itself, the trigger's holder. Such an ability with a target, a cost, or effects
/// retargeting to anything but the card itself is missing.
pub fn hidden_cx(
    class: &str,
    effects: &[Element],
    targets: &[String],
    choice: Option<&Element>,
) -> Result<Cx, Vec<String>> {
    fn retargets(list: &[Element]) -> bool {
        list.iter().any(|e| {
            (e.name == "target" && e.attr("type") != Some("this")) || retargets(&e.children)
        })
    }
    if !targets.is_empty() || choice.is_some() || retargets(effects) {
        return Err(vec![
            "hidden resolution with a cost or a target other than the card".into(),
        ]);
    }
    Ok(Cx::new(
        class,
        json!("self"),
        Some(json!("self")),
        &[],
        false,
    ))
}

/// Whether the test `x` says the current player controls this card (`<controller
/// player="currentplayer" card="this"/>`: "your upkeep", as echo and cumulative upkeep
/// write it).
pub fn is_controllers_turn(x: &Element) -> bool {
    x.name == "controller"
        && x.children.is_empty()
        && x.attrs.len() == 2
        && x.attr("player") == Some("currentplayer")
        && x.attr("card") == Some("this")
}
