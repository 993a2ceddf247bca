//! Abilities of permanents (`<activated-ability zone="play">`):
//!
//! - mana abilities (`playable="mana-source"`, or no target and `<give-mana>` in the
//!   effects) go to [`crate::mana`];
//! - other abilities whose cost is `{T}` and/or `<pay-mana>` (with at most one target)
//!   become an ability object (`<card>_ab`) the card puts on the stack when activated — by
//!   the mtg rules' `activate` move (`tap_ability`: the cost is `{T}` alone) or
//!   `activate_paid` (`paid_ability` with `ability_cost_*`, `ability_taps` when it also
//!   taps; costing only the sacrifice of the card, a zero `ability_cost`). The card's
//!   trigger sacrifices it when the cost says so. The ability remembers its card (`source_card`) and chooses its target when
//!   created; when it resolves it re-checks the target (gone: it fizzles) and acts
//!   ([`crate::effects::actions`]: `<target type="this"/>` aims at the card).
//!
//! Up to four such abilities per card, in the mtg rules' slots ([`crate::slot`]: the
//! second to fourth are activated with `activate_ability_N`), each with its restrictions
//! ([`crate::restrict`]); a card with more lists the rest as missing.

use firemox_xml::{Card as Xml, Element, Fragments};
use serde_json::{json, Map, Value};

use crate::card::{expands_to, plain_list, Parts, COLOURS};
use crate::cost_targets::Written;
use crate::effects::{describe, filtered_target, groups, Cx, Group};
use crate::slot::Slot;

/// The cost of an ability: `{T}`, a mana cost, sacrificing the card, a target (with a
/// filter from the card's MACRO test).
#[derive(Default)]
pub struct Cost {
    /// `{T}`.
    pub taps: bool,
    /// The mana paid (`ability_cost_*`, `ability_mana_value`).
    pub mana: Option<Vec<(String, i64)>>,
    /// Sacrificing the card.
    pub sacrifice: bool,
    /// Sacrificing another permanent of a kind (`creature`, `land`): the mtg rules'
    /// `sacrifices_<kind>`, chosen as the cost is paid.
    pub sacrifices: Option<&'static str>,
    /// Life paid (`pay-life`): the mtg rules' `ability_life`.
    pub life: i64,
    /// `use-once-each-turn` (with the ability's `once-each-turn` test, [`crate::restrict`]).
    once: bool,
    /// `<target type="this"/>`: the effects act on the card (as without a target).
    this: bool,
    /// `pay-x`: X chosen and paid as generic mana (the mtg rules' `ability_x`, first slot
    /// only); the effects read it as `<value register="stack" index="0"/>`.
    x: bool,
    /// The targeting tags of the ability's target.
    pub targets: Vec<String>,
    /// The target's filter (the card's MACRO test).
    pub filter: Option<Value>,
}

/// Translates one activated ability of a permanent into `out`.
pub fn translate(card: &Xml, class: &str, a: &Element, f: &Fragments, out: &mut Parts) {
    let no = Element::default();
    if let Some(e) = a
        .children
        .iter()
        .find(|c| !matches!(c.name.as_str(), "cost" | "effects" | "test"))
    {
        out.missing
            .push(format!("activated ability with <{}>", e.name));
        return;
    }
    let effects = a.child("effects").unwrap_or(&no);
    let before = out.missing.len();
    let cost = cost(f, a.child("cost").unwrap_or(&no), out);
    if out.missing.len() > before {
        return;
    }
    if crate::mana::is_mana_ability(a, effects, &cost) {
        if a.child("test").is_some() || cost.once || cost.x || cost.this {
            return out.missing.push(
                "mana ability with a <test>, once each turn, X or the card as its target".into(),
            );
        }
        return crate::mana::translate(f, class, effects, cost, out);
    }
    if !cost.taps
        && cost.mana.is_none()
        && !cost.sacrifice
        && cost.sacrifices.is_none()
        && cost.life == 0
    {
        out.missing
            .push("activated ability without {T}, a mana cost or a sacrifice".into());
        return;
    }
    let Some(slot) = Slot::after(out.activated) else {
        out.missing.push("several activated abilities".into());
        return;
    };
    if cost.x && !slot.is_first() {
        return out
            .missing
            .push("X in the cost of a second activated ability".into());
    }
    let restrictions =
        match crate::restrict::translate(f, class, a.child("test"), cost.once, slot, out) {
            Ok(r) => r,
            Err(m) => return out.missing.push(format!("activated ability {m}")),
        };
    let this = json!({ "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": "battlefield" } });
    // Without a target chosen, Firemox's target list is empty and its modifiers go to
    // the card itself (Killer Whale's "{U}: gains flying until end of turn").
    let target = if cost.targets.is_empty() {
        this.clone()
    } else {
        crate::effects::chosen_ref(&cost.targets)
    };
    let cx = Cx::new(class, target, Some(this), &[], cost.x);
    let actions = crate::effects::actions(f, &effects.children, &cx);
    cx.counted_into(&mut out.refs);
    let actions = match actions {
        Ok(v) => v,
        Err(m) => {
            return out.missing.extend(
                m.into_iter()
                    .map(|m| format!("activated ability effect {m}")),
            )
        }
    };
    // (A sacrificed card's power would be read in the graveyard: no last-known
    // information, [`crate::computed`].)
    if cost.sacrifice
        && Value::Array(actions.clone())
            .to_string()
            .contains("self.source_card.")
    {
        return out
            .missing
            .push("activated ability reading the sacrificed card".into());
    }
    out.activated += 1;
    out.tags.extend(restrictions.tags);
    out.auras.extend(restrictions.auras);
    let name = slot.class(class);
    let paid_otherwise = cost.sacrifice || cost.sacrifices.is_some() || cost.life > 0;
    let mana = cost
        .mana
        .clone()
        .or_else(|| (paid_otherwise || cost.x || !slot.is_first()).then(pay_nothing));
    if cost.x {
        out.tags.push("ability_x".into());
    }
    let paid = mana.is_some();
    out.tags.push(slot.marker(paid));
    if let Some(mana) = &mana {
        if cost.taps {
            out.tags.push(slot.name("ability_taps"));
        }
        out.props
            .extend(mana.iter().map(|(k, v)| (slot.name(k), json!(v))));
        if cost.life > 0 {
            out.props
                .push((slot.name("ability_life"), json!(cost.life)));
        }
    }
    let event = slot.event(paid);
    let mut act = vec![json!({ "type": "create", "class": name, "zone": "stack" })];
    if cost.sacrifice {
        act.push(json!({ "type": "move", "zone": "graveyard", "to": "self" }));
    }
    if let Some(kind) = cost.sacrifices {
        out.tags.push(slot.name(&format!("sacrifices_{kind}")));
        act.insert(
            0,
            json!({ "type": "move", "zone": "graveyard", "to": { "type": "objects", "zone": "battlefield", "tag": kind, "owner": "friendly", "pick": { "chosen": 1, "prompt": format!("sacrifice a {kind}") } } }),
        );
    }
    // The first slot's "once each turn" is remembered by the card's trigger (the rules'
    // `activated_this_turn`); the other slots' moves remember it themselves.
    if cost.once && slot.is_first() {
        act.push(json!({ "type": "tag", "tag": "activated_this_turn", "to": "self" }));
    }
    out.triggers
        .push(json!({ "when": { "event": event, "target": { "type": "is_self" } }, "do": act }));
    let title = format!("{} (ability)", card.name);
    let mut def = ability_class(&title, &cost.targets, cost.filter.as_ref(), actions);
    if cost.x {
        // The ability keeps the X its card's cost was paid with (`x_paid`).
        if let Some(on_create) = def["trigger"][0]["do"].as_array_mut() {
            on_create.push(json!({ "type": "set", "key": "x_paid", "value": "self.source_card.ability_x_paid" }));
        }
    }
    out.classes.push((name, def));
}

/// A zero mana cost (an ability whose only cost is sacrificing the card).
fn pay_nothing() -> Vec<(String, i64)> {
    let mut v: Vec<(String, i64)> = ["generic", "w", "u", "b", "r", "g", "c"]
        .iter()
        .map(|k| (format!("ability_cost_{k}"), 0))
        .collect();
    v.push(("ability_mana_value".into(), 0));
    v
}

/// Reads the cost groups: `T`, `<pay-mana>` with colour attributes, one target.
fn cost(f: &Fragments, cost: &Element, out: &mut Parts) -> Cost {
    let mut c = Cost::default();
    let list = groups(&cost.children);
    let mut i = 0;
    while i < list.len() {
        let g = Group { ..list[i] };
        i += 1;
        if let Some(kind) = sacrifice_kind(f, &g, list.get(i)) {
            if c.sacrifices.is_none() {
                c.sacrifices = Some(kind);
                i += 1;
                continue;
            }
        }
        if let Some(n) = life_paid(f, &g) {
            if c.life == 0 {
                c.life = n;
                continue;
            }
        }
        match (g.reference, g.elems) {
            (Some("T"), _) if !c.taps && plain_list(f, "action", "T", g.elems) => c.taps = true,
            (Some("pay-x"), _) if !c.x && plain_list(f, "action", "pay-x", g.elems) => c.x = true,
            (Some("use-once-each-turn"), _)
                if !c.once && plain_list(f, "action", "use-once-each-turn", g.elems) =>
            {
                c.once = true
            }
            (Some("sacrifice-this"), _)
                if !c.sacrifice && plain_list(f, "action", "sacrifice-this", g.elems) =>
            {
                c.sacrifice = true
            }
            (None, [p]) if p.name == "pay-mana" && c.mana.is_none() => match pay_mana(f, p) {
                Some(m) => c.mana = Some(m),
                None => out
                    .missing
                    .push(format!("activated ability cost {}", p.start_tag())),
            },
            (None, [t]) if t.name == "target" && c.targets.is_empty() && !c.this => {
                match crate::cost_targets::read(f, t) {
                    Ok(Written::This) => c.this = true,
                    Ok(Written::Chosen(targets, filter)) => {
                        (c.targets, c.filter) = (targets, filter)
                    }
                    Err(m) => out.missing.push(format!("activated ability {m}")),
                }
            }
            (Some(r), _) if r.starts_with("target-") && c.targets.is_empty() && !c.this => {
                match filtered_target(f, &g) {
                    Ok((t, filter)) => (c.targets, c.filter) = (t, filter),
                    Err(m) => out.missing.push(format!("activated ability {m}")),
                }
            }
            _ => out.missing.push(format!(
                "activated ability costing {}",
                describe(&Group { ..g })
            )),
        }
    }
    c
}

/// `sacrifice-a-creature` / `-a-land` / `-an-artifact` / `-a-permanent` without parameters (the group `g` and the
/// `sacrifice` group it expands to after it, `next`): the kind of permanent sacrificed.
fn sacrifice_kind(f: &Fragments, g: &Group<'_>, next: Option<&Group<'_>>) -> Option<&'static str> {
    let kind = match g.reference? {
        "sacrifice-a-creature" => "creature",
        "sacrifice-a-land" => "land",
        "sacrifice-an-artifact" => "artifact",
        "sacrifice-a-permanent" => "permanent",
        _ => return None,
    };
    let next = next.filter(|n| n.reference == Some("sacrifice"))?;
    let all: Vec<Element> = g.elems.iter().chain(next.elems).cloned().collect();
    let r = g.reference?;
    (plain_list(f, "action", r, &all) || expands_to(f, "action", r, &[("value", "1")], &all))
        .then_some(kind)
}

/// `<action ref="pay-life" value="N"/>`: the life paid.
fn life_paid(f: &Fragments, g: &Group<'_>) -> Option<i64> {
    match (g.reference?, g.elems) {
        ("pay-life", [m]) if m.name == "modify-register" && m.children.is_empty() => {
            let attr_is = |k: &str, v: &str| m.attr(k) == Some(v);
            let only = m.attrs.iter().all(|(k, _)| {
                matches!(
                    k.as_str(),
                    "register" | "index" | "operation" | "value" | "name"
                )
            });
            (only
                && attr_is("register", "controller")
                && attr_is("index", "life")
                && attr_is("operation", "minus"))
            .then(|| m.attr("value").and_then(|v| f.value(v)))
            .flatten()
            .filter(|n| (1..=40).contains(n))
        }
        _ => None,
    }
}

/// `<pay-mana colorless="1" red="2"/>` → the `ability_cost_*` properties.
pub fn pay_mana(f: &Fragments, p: &Element) -> Option<Vec<(String, i64)>> {
    if !p.children.is_empty() {
        return None;
    }
    let mut props: Vec<(String, i64)> = ["generic", "w", "u", "b", "r", "g", "c"]
        .iter()
        .map(|k| (format!("ability_cost_{k}"), 0))
        .collect();
    let mut total = 0;
    for (k, v) in &p.attrs {
        let n = f.value(v).filter(|n| (0..=20).contains(n))?;
        let key = match k.as_str() {
            "colorless" => "generic".to_owned(),
            "name" => continue,
            colour => COLOURS.iter().find(|(c, _)| *c == colour)?.1.to_string(),
        };
        let slot = props
            .iter_mut()
            .find(|(pk, _)| *pk == format!("ability_cost_{key}"))?;
        slot.1 += n;
        total += n;
    }
    props.push(("ability_mana_value".into(), total));
    Some(props)
}

/// An ability object's class: when created it remembers its card and chooses its target
/// (if it has one); when it resolves on the stack it acts if the target is still legal,
/// else fizzles; then it leaves the stack.
pub fn ability_class(
    title: &str,
    targets: &[String],
    filter: Option<&Value>,
    effect: Vec<Value>,
) -> Value {
    let mut props = Map::new();
    props.insert("title".into(), json!(title));
    props.extend(crate::effects::target_props(targets).1);
    let mut on_create = vec![
        json!({ "type": "link", "key": "source_card", "object": { "type": "object", "object": "event.source" } }),
    ];
    let resolve = if targets.is_empty() {
        effect
    } else {
        let from: Vec<Value> = targets
            .iter()
            .filter(|t| !t.starts_with("tgt_"))
            .map(|t| match t.as_str() {
                "targets_player" if targets.iter().any(|t| t == "tgt_opponents") => {
                    json!({ "type": "players", "which": "enemy" })
                }
                "targets_player" => json!({ "type": "players" }),
                "targets_permanent" => json!({ "type": "objects", "zone": "battlefield", "tag": "permanent", "where": { "ref": "mtg:ref/legal_permanent_target" } }),
                crate::graveyard::TAG => crate::graveyard::candidates(),
                "targets_spell" => json!({ "type": "objects", "zone": "stack", "tag": "card" }),
                _ => json!({ "type": "objects", "zone": "battlefield", "tag": "creature" }),
            })
            .map(|mut sel| {
                if let Some(w) = filter {
                    sel["where"] = match sel.get("where") {
                        Some(old) => json!({ "all": [old, w] }),
                        None => w.clone(),
                    };
                }
                sel
            })
            .collect();
        on_create.push(json!({ "type": "link", "key": "chosen", "object": { "from": from, "pick": { "chosen": 1, "prompt": "Select a target" } } }));
        let mut fizzle = json!({ "type": "if", "condition": { "type": "compare", "left": { "count": crate::effects::chosen_ref(targets) }, "op": "==", "right": 0 },
            "then": [{ "type": "emit", "event": "mtg:event/fizzled", "to": "self" }],
            "else": null });
        fizzle["else"] = Value::Array(effect);
        vec![fizzle]
    };
    let mut resolve = resolve;
    resolve.push(json!({ "type": "move", "zone": "resolved", "to": "self" }));
    let mut class = json!({
        "properties": null,
        "tags": ["ability"],
        "trigger": [
            { "when": { "event": "core:event/created", "target": { "type": "is_self" } }, "do": null },
            { "when": { "event": "mtg:event/resolve", "target": { "type": "is_self" } }, "zones": ["stack"], "do": null },
        ],
    });
    // Moved into their places, not deep-copied by `json!`.
    class["properties"] = Value::Object(props);
    class["trigger"][0]["do"] = Value::Array(on_create);
    class["trigger"][1]["do"] = Value::Array(resolve);
    class
}
