//! Triggered abilities (`<triggered-ability zone="play">`) whose event the mtg rules raise:
//! the card entering the battlefield (`<moved-card>` from outside play with `<is-this/>`
//! into play), the card attacking (`<declared-attacking>` with `<is-this/>`) or blocking
//! (`<declared-blocking>`), the beginning of the upkeep (yours: `during-your-upkeep`; or
//! every player's), a spell being cast (`<casting>` with a test on the spell). The card gets a trigger that puts an ability object
//! (`<card>_trig`) on the stack — choosing its target, if its cost has one, when created —
//! which resolves through [`crate::effects::actions`] like an activated ability.

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::Parts;
use crate::effects::{describe, filtered_target, groups, Cx};

/// Translates one triggered ability of the card `class` (titled `title`) into `out`.
pub fn translate(title: &str, class: &str, a: &Element, f: &Fragments, out: &mut Parts) {
    if a.attrs.iter().any(|(k, v)| {
        !(k == "zone" && (v == "play" || v == "graveyard")
            || k == "name"
            || k == "resolution" && v == "normal")
    }) {
        out.missing
            .push(format!("triggered ability {}", a.start_tag()));
        return;
    }
    let Some(event) = a.children.first() else {
        out.missing
            .push("triggered ability without an event".into());
        return;
    };
    let heard = match when(f, event) {
        Ok(w) if a.attr("zone") != Some("graveyard") || event.name == "moved-card" => w,
        Ok(_) => {
            return out
                .missing
                .push(format!("triggered ability {}", a.start_tag()))
        }
        Err(m) => return out.missing.push(m),
    };
    let before = out.missing.len();
    let (mut targets, mut filter) = (Vec::new(), None);
    for c in &a.children[1..] {
        match c.name.as_str() {
            "cost" => {
                for g in groups(&c.children) {
                    match filtered_target(f, &g) {
                        Ok((t, w))
                            if targets.is_empty() && !t.iter().any(|x| x == "targets_spell") =>
                        {
                            (targets, filter) = (t, w)
                        }
                        Ok(_) => out
                            .missing
                            .push("triggered ability with two targets or a spell target".into()),
                        Err(_) => out
                            .missing
                            .push(format!("triggered ability cost {}", describe(&g))),
                    }
                }
            }
            "effects" => {}
            other => out
                .missing
                .push(format!("triggered ability with <{other}>")),
        }
    }
    let this = json!({ "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": "battlefield" } });
    // Without a target chosen, Firemox's target list is empty and its modifiers go to
    // the card itself (Killer Whale's "{U}: gains flying until end of turn").
    let cx = Cx {
        target: if targets.is_empty() {
            this.clone()
        } else {
            crate::effects::chosen_ref(&targets)
        },
        this: Some(this),
        x: false,
    };
    let effects = a
        .child("effects")
        .map_or(&[][..], |e| e.children.as_slice());
    let actions = match crate::effects::actions(f, effects, &cx) {
        Ok(v) => v,
        Err(m) => {
            out.missing.extend(
                m.into_iter()
                    .map(|m| format!("triggered ability effect {m}")),
            );
            Vec::new()
        }
    };
    if out.missing.len() > before {
        return;
    }
    let n = out
        .classes
        .iter()
        .filter(|(n, _)| n.contains("_trig"))
        .count();
    let name = if n == 0 {
        format!("{class}_trig")
    } else {
        format!("{class}_trig{}", n + 1)
    };
    for when in heard.when {
        out.triggers.push(json!({
            "when": when,
            "zones": [heard.zone],
            "do": [{ "type": "create", "class": name, "zone": "stack" }],
        }));
    }
    out.classes.push((
        name,
        crate::play::ability_class(
            &format!("{title} (trigger)"),
            &targets,
            filter.as_ref(),
            actions,
        ),
    ));
}

/// What a card's trigger listens to: the mtg events (`when` specs; one trigger each) and
/// the zone the card hears them in.
struct Heard {
    when: Vec<Value>,
    zone: &'static str,
}

impl Heard {
    /// One event heard on the battlefield.
    fn play(when: Value) -> Self {
        Heard {
            when: vec![when],
            zone: "battlefield",
        }
    }
}

/// The mtg event a Firemox trigger event stands for, or what it lacks.
fn when(f: &Fragments, e: &Element) -> Result<Heard, String> {
    let self_test = |t: Option<&Element>| matches!(t.map(|t| t.children.as_slice()), Some([x]) if x.name == "is-this" && x.children.is_empty());
    let one_test =
        |name: &str| e.attrs.is_empty() && e.children.len() == 1 && self_test(e.child(name));
    match e.name.as_str() {
        "moved-card" => moved(f, e),
        "declared-attacking" if one_test("test") => Ok(Heard::play(
            json!({ "event": "mtg:event/attacks", "target": { "type": "is_self" } }),
        )),
        "declared-blocking" if one_test("test") || one_test("blocking-test") => Ok(Heard::play(
            json!({ "event": "mtg:event/blocks", "target": { "type": "is_self" } }),
        )),
        "declared-blocking" if one_test("attacking-test") => Ok(Heard::play(
            json!({ "event": "mtg:event/becomes_blocked", "target": { "type": "is_self" } }),
        )),
        "assigned-damage" => assigned_damage(e).map(Heard::play),
        "beginning-of-phase" if e.attr("phase") == Some("upkeep") && e.attrs.len() == 1 => {
            match e.children.as_slice() {
                [] => Ok(Heard::play(json!({ "event": "mtg:event/upkeep" }))),
                [t] if t.from_ref.as_deref() == Some("during-your-upkeep")
                    && t.attrs.is_empty()
                    && f.tests
                        .get("during-your-upkeep")
                        .is_some_and(|r| same_test(f, r, t)) =>
                {
                    Ok(Heard::play(
                        json!({ "event": "mtg:event/upkeep", "player": "friendly" }),
                    ))
                }
                _ => Err("trigger <beginning-of-phase> upkeep with a test".into()),
            }
        }
        "casting" if e.attrs.is_empty() => match e.children.as_slice() {
            [t] if t.name == "test" => crate::conditions::condition(f, t)
                .map(|c| Heard::play(json!({ "event": "mtg:event/cast", "target": c })))
                .map_err(|m| format!("trigger <casting> {m}")),
            _ => Err("trigger <casting> without one test".into()),
        },
        "beginning-of-phase" => Err(format!(
            "trigger <beginning-of-phase> {}",
            e.attr("phase").unwrap_or("?")
        )),
        other => Err(format!("trigger <{other}>")),
    }
}

/// `<assigned-damage type="damage-combat|damage-any">`: this card dealing damage to a
/// player or a creature (`<source-test><is-this/>`), or being dealt damage
/// (`<destination-test>` with `<is-this/>`) → `core:event/damaged`. Combat damage is
/// damage whose source is attacking or blocking.
fn assigned_damage(e: &Element) -> Result<Value, String> {
    let lacks = || format!("trigger <assigned-damage> {}", e.start_tag());
    let combat = match e.attrs.as_slice() {
        [(k, v)] if k == "type" && v == "damage-combat" => true,
        [(k, v)] if k == "type" && v == "damage-any" => false,
        _ => return Err(lacks()),
    };
    let flat = |name: &str| e.child(name).map(|t| flat_test(t));
    let is = |list: &[Element], name: &str| {
        list.iter()
            .any(|x| x.name == name && x.children.is_empty() && x.attrs.is_empty())
    };
    let in_play = |x: &Element| {
        x.name == "in-zone" && x.attr("zone") == Some("play") && x.children.is_empty()
    };
    let mut source = Vec::new();
    let target = match (
        flat("source-test"),
        flat("destination-test"),
        e.children.len(),
    ) {
        (Some(s), Some(d), 2) if matches!(s.as_slice(), [x] if x.name == "is-this" && x.children.is_empty()) =>
        {
            source.push(json!({ "type": "is_self" }));
            match d.as_slice() {
                [x] if x.name == "is-player" && x.children.is_empty() => {
                    json!({ "type": "has_tag", "tag": "player" })
                }
                [x] if x.name == "has-idcard" && x.attr("idcard") == Some("creature") => {
                    json!({ "type": "has_tag", "tag": "creature" })
                }
                _ => return Err(lacks()),
            }
        }
        (None, Some(d), 1)
            if is(&d, "is-this") && d.iter().all(|x| x.name == "is-this" || in_play(x)) =>
        {
            json!({ "type": "is_self" })
        }
        _ => return Err(lacks()),
    };
    if combat {
        source.push(json!({ "any": [{ "type": "has_tag", "tag": "attacking" }, { "type": "has_tag", "tag": "blocking" }] }));
    }
    let mut when = json!({ "event": "core:event/damaged", "target": target });
    if !source.is_empty() {
        when["condition"] = Value::Array(source);
    }
    Ok(when)
}

/// A test's conditions, the children of its `<and>` if it is one.
fn flat_test(t: &Element) -> Vec<Element> {
    match t.children.as_slice() {
        [and] if and.name == "and" => and.children.clone(),
        list => list.to_vec(),
    }
}

/// Whether `t` (a card's `<test ref>`, expanded) holds exactly the referenced test `r`.
fn same_test(f: &Fragments, r: &Element, t: &Element) -> bool {
    firemox_xml::expand::expand_all(f, &r.children).is_ok_and(|v| v == t.children)
}

/// `<moved-card>`: a card passing the source test (its zone — in play or not in play —
/// and conditions on it, [`crate::conditions::condition`]) going to play or to
/// the graveyard → `core:event/moved` (and `core:event/destroyed`, from play) with the
/// mtg rules' `from` field and the card's new zone. The card hears it on the battlefield,
/// or in the graveyard when it is the one dying (`<is-this/>`, from play to the graveyard).
fn moved(f: &Fragments, e: &Element) -> Result<Heard, String> {
    let lacks = |what: &str| format!("trigger <moved-card> {what}");
    let (Some(src), Some(dst)) = (e.child("source-test"), e.child("destination-test")) else {
        return Err(lacks("without a source and a destination test"));
    };
    if !e.attrs.is_empty() || e.children.len() != 2 {
        return Err(lacks("with attributes"));
    }
    fn zone_of(x: &Element) -> Option<&str> {
        (x.name == "in-zone"
            && matches!(x.attr("card"), None | Some("tested"))
            && x.attrs.iter().all(|(k, _)| k == "zone" || k == "card")
            && x.children.is_empty())
        .then(|| x.attr("zone"))
        .flatten()
    }
    let mut from = None;
    let mut not_from_play = false;
    let mut target = Vec::new();
    for x in flat_test(src) {
        match (zone_of(&x), x.name.as_str()) {
            (Some("play"), _) if from.is_none() => from = Some("play"),
            (None, "not") if matches!(x.children.as_slice(), [z] if zone_of(z) == Some("play")) => {
                not_from_play = true
            }
            _ => target.push(
                crate::conditions::condition(f, &x).map_err(|m| lacks(&format!("source {m}")))?,
            ),
        }
    }
    let to = match flat_test(dst).as_slice() {
        [x] => match zone_of(x) {
            Some("play") => "battlefield",
            Some("graveyard") => "graveyard",
            _ => return Err(lacks("to a zone other than play or the graveyard")),
        },
        _ => return Err(lacks("with a destination test other than a zone")),
    };
    let from = match from {
        Some("play") if to == "battlefield" || not_from_play => {
            return Err(lacks("from play to play"))
        }
        Some("play") => Some("battlefield"),
        other => other,
    };
    if from.is_none() && to == "graveyard" {
        return Err(lacks("to the graveyard from anywhere"));
    }
    let this = target.iter().any(|c| c == &json!({ "type": "is_self" }));
    target.push(json!({ "type": "in_zone", "zone": to }));
    if let Some(z) = from {
        target.push(json!({ "type": "event_field", "field": "from", "is": z }));
    }
    let events: &[&str] = if from == Some("battlefield") {
        &["core:event/destroyed", "core:event/moved"]
    } else {
        &["core:event/moved"]
    };
    Ok(Heard {
        when: events
            .iter()
            .map(|event| json!({ "event": event, "target": target }))
            .collect(),
        zone: if this && to == "graveyard" {
            "graveyard"
        } else {
            "battlefield"
        },
    })
}
