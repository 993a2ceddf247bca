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
        !(k == "zone" && v == "play" || k == "name" || k == "resolution" && v == "normal")
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
    let when = match when(f, event) {
        Ok(w) => w,
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
    let cx = Cx {
        target: json!({ "ref": "mtg:ref/spell_target" }),
        this: Some(this),
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
    out.triggers.push(
        json!({ "when": when, "do": [{ "type": "create", "class": name, "zone": "stack" }] }),
    );
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

/// The mtg event a Firemox trigger event stands for, or what it lacks.
fn when(f: &Fragments, e: &Element) -> Result<Value, String> {
    let self_test = |t: Option<&Element>| matches!(t.map(|t| t.children.as_slice()), Some([x]) if x.name == "is-this" && x.children.is_empty());
    match e.name.as_str() {
        "moved-card" if enters_play(e) => Ok(
            json!({ "event": "core:event/moved", "target": [{ "type": "is_self" }, { "type": "in_zone", "zone": "battlefield" }] }),
        ),
        "declared-attacking"
            if e.attrs.is_empty() && e.children.len() == 1 && self_test(e.child("test")) =>
        {
            Ok(json!({ "event": "mtg:event/attacks", "target": { "type": "is_self" } }))
        }
        "declared-blocking"
            if e.attrs.is_empty() && e.children.len() == 1 && self_test(e.child("test")) =>
        {
            Ok(json!({ "event": "mtg:event/blocks", "target": { "type": "is_self" } }))
        }
        "beginning-of-phase" if e.attr("phase") == Some("upkeep") && e.attrs.len() == 1 => {
            match e.children.as_slice() {
                [] => Ok(json!({ "event": "mtg:event/upkeep" })),
                [t] if t.from_ref.as_deref() == Some("during-your-upkeep")
                    && t.attrs.is_empty()
                    && f.tests
                        .get("during-your-upkeep")
                        .is_some_and(|r| same_test(f, r, t)) =>
                {
                    Ok(json!({ "event": "mtg:event/upkeep", "player": "friendly" }))
                }
                _ => Err("trigger <beginning-of-phase> upkeep with a test".into()),
            }
        }
        "casting" if e.attrs.is_empty() => match e.children.as_slice() {
            [t] if t.name == "test" => crate::conditions::condition(f, t)
                .map(|c| json!({ "event": "mtg:event/cast", "target": c }))
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

/// Whether `t` (a card's `<test ref>`, expanded) holds exactly the referenced test `r`.
fn same_test(f: &Fragments, r: &Element, t: &Element) -> bool {
    firemox_xml::expand::expand_all(f, &r.children).is_ok_and(|v| v == t.children)
}

/// `<moved-card>` whose source test is "this card, not in play" and whose destination test
/// is "in play": this card enters the battlefield.
fn enters_play(e: &Element) -> bool {
    let in_play = |x: &Element| {
        x.name == "in-zone"
            && x.attr("zone") == Some("play")
            && matches!(x.attr("card"), None | Some("tested"))
            && x.children.is_empty()
    };
    let flat = |t: &Element| -> Vec<Element> {
        match t.children.as_slice() {
            [and] if and.name == "and" => and.children.clone(),
            list => list.to_vec(),
        }
    };
    let (Some(src), Some(dst)) = (e.child("source-test"), e.child("destination-test")) else {
        return false;
    };
    if !e.attrs.is_empty() || e.children.len() != 2 {
        return false;
    }
    let src = flat(src);
    let dst = flat(dst);
    let src_ok = src.len() == 2
        && src
            .iter()
            .any(|x| x.name == "is-this" && x.children.is_empty())
        && src
            .iter()
            .any(|x| x.name == "not" && matches!(x.children.as_slice(), [z] if in_play(z)));
    let dst_ok = !dst.is_empty()
        && dst
            .iter()
            .all(|x| in_play(x) || x.name == "is-this" && x.children.is_empty());
    src_ok && dst_ok
}
