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
use crate::effects::Cx;
use crate::trigger_context::Context;

/// Translates one triggered ability of the card `class` (titled `title`) into `out`.
pub fn translate(title: &str, class: &str, a: &Element, f: &Fragments, out: &mut Parts) {
    if a.attrs.iter().any(|(k, v)| {
        !(k == "zone" && (v == "play" || v == "graveyard")
            || k == "name"
            || k == "reference-name"
            || k == "resolution" && (v == "normal" || v == "hidden"))
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
    let (mut targets, mut filter, mut optional, mut choice) = (Vec::new(), None, false, None);
    let mut effects = a
        .child("effects")
        .map_or(&[][..], |e| e.children.as_slice());
    for c in &a.children[1..] {
        match c.name.as_str() {
            "cost" => match crate::trigger_targets::from_cost(f, &c.children) {
                Ok(cost) => {
                    optional = cost.optional;
                    if let Some(t) = cost.target {
                        (targets, filter) = t;
                    }
                }
                // "Pay this, or else" ([`crate::upkeep`]), paid as the ability resolves.
                Err(_) if matches!(c.children.as_slice(), [x] if crate::upkeep::is_controllers_choice(x)) => {
                    choice = c.children.first()
                }
                Err(m) => out
                    .missing
                    .extend(m.into_iter().map(|m| format!("triggered ability {m}"))),
            },
            "effects" => {}
            other => out
                .missing
                .push(format!("triggered ability with <{other}>")),
        }
    }
    if targets.is_empty() && choice.is_none() {
        if let Some(((t, w), n)) = crate::trigger_targets::leading(f, effects) {
            (targets, filter, effects) = (t, w, &effects[n..]);
        }
    }
    let this = json!({ "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": "battlefield" } });
    // Without a target chosen, Firemox's target list is empty and its modifiers go to
    // the card itself (Killer Whale's "{U}: gains flying until end of turn").
    let target = if targets.is_empty() {
        this.clone()
    } else {
        crate::effects::chosen_ref(&targets)
    };
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
    let hidden = a.attr("resolution") == Some("hidden");
    let cx = if hidden {
        crate::upkeep::hidden_cx(class, effects, &targets, choice)
    } else {
        Ok(Cx::new(
            class,
            target,
            Some(this),
            heard.context.links(),
            false,
        ))
    };
    let resolution = cx.and_then(|cx| {
        let r = crate::upkeep::resolution(f, choice, effects, &cx);
        cx.counted_into(&mut out.refs);
        r
    });
    let (mut actions, once) = match resolution {
        Ok(r) => (r.actions, r.once),
        Err(m) => {
            out.missing.extend(
                m.into_iter()
                    .map(|m| format!("triggered ability effect {m}")),
            );
            (Vec::new(), false)
        }
    };
    if once && hidden {
        out.missing
            .push("hidden triggered ability unregistering itself".into());
    }
    if out.missing.len() > before {
        return;
    }
    if hidden {
        // Resolved as it triggers, without going on the stack (the card itself acts).
        for when in heard.when {
            out.triggers
                .push(json!({ "when": when, "zones": [heard.zone], "do": actions }));
        }
        return;
    }
    // "You may": the target is chosen as the ability goes on the stack; as it resolves,
    // its controller acts or declines.
    if optional {
        actions = vec![
            json!({ "type": "choose_mode", "prompt": "choose", "modes": [
            { "label": "option 1", "do": actions },
            { "label": "decline", "do": [] },
        ] }),
        ];
    }
    let mut create = json!({ "type": "create", "class": name, "zone": "stack" });
    heard.context.remember(&mut create);
    if once {
        out.triggers
            .push(crate::upkeep::register_on_entering(&name));
        actions.push(crate::upkeep::unregister(&name));
        let tag = crate::upkeep::registered_tag(&name);
        create = json!({ "type": "if", "condition": { "type": "has_tag", "tag": tag }, "then": [create], "else": [] });
    }
    for when in heard.when {
        let mut trigger = json!({ "when": when, "zones": [heard.zone], "do": [create] });
        // A creature dealt lethal damage is in the graveyard when the damage is heard:
        // its zone is judged as it was before the damage (the mtg rules' last-known
        // information).
        if matches!(heard.context, Context::Damage) {
            trigger["look_back"] = json!(true);
        }
        out.triggers.push(trigger);
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
    context: Context,
}

impl Heard {
    /// One event heard on the battlefield.
    fn play(when: Value, context: Context) -> Self {
        Heard {
            when: vec![when],
            zone: "battlefield",
            context,
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
        "declared-attacking" if e.attrs.is_empty() => match e.children.as_slice() {
            [t] if t.name == "test" && t.attrs.is_empty() => tested(f, t)
                .map(|c| {
                    Heard::play(
                        json!({ "event": "mtg:event/attacks", "target": c }),
                        Context::Card,
                    )
                })
                .map_err(|m| format!("trigger <declared-attacking> {m}")),
            _ => Err("trigger <declared-attacking> without one test".into()),
        },
        "end-of-phase" if e.attr("phase") == Some("eot") && e.attrs.len() == 1 => end_step(f, e)
            .map(|player| {
                Heard::play(
                    json!({ "event": "mtg:event/end_step", "player": player }),
                    Context::Nothing,
                )
            }),
        "declared-blocking" if one_test("test") || one_test("blocking-test") => Ok(Heard::play(
            json!({ "event": "mtg:event/blocks", "target": { "type": "is_self" } }),
            Context::Blocking,
        )),
        "declared-blocking" if one_test("attacking-test") => Ok(Heard::play(
            json!({ "event": "mtg:event/becomes_blocked", "target": { "type": "is_self" } }),
            Context::Blocking,
        )),
        "declared-blocking" if e.attrs.is_empty() => {
            blocking(f, e).map(|w| Heard::play(w, Context::Blocking))
        }
        "assigned-damage" => assigned_damage(f, e).map(|w| Heard::play(w, Context::Damage)),
        // A permanent becoming tapped: the mtg rules tap with the tag `tapped`, which the
        // host announces (`core:event/tagged`).
        "become-tapped" if e.attrs.is_empty() => match e.children.as_slice() {
            [t] if t.name == "test" && t.attrs.is_empty() => tested(f, t)
                .map(|c| {
                    let tapped = json!({ "type": "event_field", "field": "tag", "is": "tapped" });
                    Heard::play(
                        json!({ "event": "core:event/tagged", "target": c, "condition": tapped }),
                        Context::Card,
                    )
                })
                .map_err(|m| format!("trigger <become-tapped> {m}")),
            _ => Err("trigger <become-tapped> without one test".into()),
        },
        "beginning-of-phase" if e.attr("phase") == Some("upkeep") && e.attrs.len() == 1 => {
            match e.children.as_slice() {
                [] => Ok(Heard::play(
                    json!({ "event": "mtg:event/upkeep" }),
                    Context::Nothing,
                )),
                [t] if t.from_ref.as_deref() == Some("during-your-upkeep")
                    && t.attrs.is_empty()
                    && f.tests
                        .get("during-your-upkeep")
                        .is_some_and(|r| same_test(f, r, t)) =>
                {
                    Ok(Heard::play(
                        json!({ "event": "mtg:event/upkeep", "player": "friendly" }),
                        Context::Nothing,
                    ))
                }
                [t] if t.name == "test" && t.attrs.is_empty() => upkeep_of(f, t).map(|player| {
                    Heard::play(
                        json!({ "event": "mtg:event/upkeep", "player": player }),
                        Context::Nothing,
                    )
                }),
                _ => Err("trigger <beginning-of-phase> upkeep with a test".into()),
            }
        }
        "casting" if e.attrs.is_empty() => match e.children.as_slice() {
            [t] if t.name == "test" => crate::conditions::condition(f, t)
                .map(|c| {
                    Heard::play(
                        json!({ "event": "mtg:event/cast", "target": c }),
                        Context::Cast,
                    )
                })
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

/// `<assigned-damage type="damage-any|damage-combat|damage-combat-only">`: damage dealt
/// by a source passing `<source-test>` to a player or permanent passing
/// `<destination-test>` (either test may be left out: any source, any recipient) →
/// `core:event/damaged`, the source's test as the trigger's `condition` (on the event's
/// source), the recipient's as its `target`. Both tests go through
/// [`crate::conditions::condition`]. Combat damage is damage from a source the mtg rules
/// tag `striking` (dealing combat damage); an event of 0 damage triggers nothing.
fn assigned_damage(f: &Fragments, e: &Element) -> Result<Value, String> {
    let lacks = |what: &str| format!("trigger <assigned-damage> {what}");
    let combat = match e.attrs.as_slice() {
        [] => false,
        [(k, v)] if k == "type" && v == "damage-any" => false,
        [(k, v)] if k == "type" && (v == "damage-combat" || v == "damage-combat-only") => true,
        _ => return Err(lacks(&e.start_tag())),
    };
    let (mut source, mut target) = (None, None);
    for t in &e.children {
        match t.name.as_str() {
            "source-test" if source.is_none() => {
                source = Some(tested(f, t).map_err(|m| lacks(&format!("source {m}")))?)
            }
            "destination-test" if target.is_none() => {
                let t = &in_play_before(t);
                target = Some(tested(f, t).map_err(|m| lacks(&format!("destination {m}")))?)
            }
            _ => return Err(lacks(&format!("with <{}>", t.name))),
        }
    }
    let mut source: Vec<Value> = source.into_iter().collect();
    // Damage is dealt only when more than 0 (120.8); combat damage comes from a creature
    // the mtg rules tag `striking` while it deals it.
    source.push(json!({ "type": "compare", "left": "event.amount", "op": ">", "right": 0 }));
    if combat {
        source.push(json!({ "type": "has_tag", "tag": "striking" }));
    }
    let mut when = json!({ "event": "core:event/damaged" });
    if let Some(t) = target {
        when["target"] = t;
    }
    when["condition"] = Value::Array(source);
    Ok(when)
}

/// A damage trigger's destination test without `<in-zone zone="play"/>` beside
/// `<is-this/>` (Filthy Cur): the card hears damage only while in play, judged as it was
/// before the damage (`look_back`), where the test, judged once the damage is handled,
/// would miss lethal damage.
fn in_play_before(t: &Element) -> Element {
    let list = flat_test(t);
    let plain = |c: &Element, name: &str| c.name == name && c.children.is_empty();
    if !list
        .iter()
        .any(|c| plain(c, "is-this") && c.attrs.is_empty())
    {
        return t.clone();
    }
    let in_play =
        |c: &Element| plain(c, "in-zone") && c.attrs.len() == 1 && c.attr("zone") == Some("play");
    Element {
        children: list.into_iter().filter(|c| !in_play(c)).collect(),
        ..t.clone()
    }
}

/// `<declared-blocking>` with a test on the blocker (`<blocking-test>`, or `<test>`) and
/// one on the attacker (`<attacking-test>`), either left out: the mtg rules' attacker
/// `becomes_blocked` (raised by the blocker, its source), the attacker's test as the
/// trigger's `target`, the blocker's as its `condition`.
fn blocking(f: &Fragments, e: &Element) -> Result<Value, String> {
    let lacks = |what: &str| format!("trigger <declared-blocking> {what}");
    let (mut blocker, mut attacker) = (None, None);
    for t in &e.children {
        let slot = match t.name.as_str() {
            "blocking-test" | "test" => &mut blocker,
            "attacking-test" => &mut attacker,
            other => return Err(lacks(&format!("with <{other}>"))),
        };
        if slot.is_some() || !t.attrs.is_empty() {
            return Err(lacks(&format!("with two <{}>", t.name)));
        }
        *slot = Some(tested(f, t).map_err(|m| lacks(&m))?);
    }
    let mut when = json!({ "event": "mtg:event/becomes_blocked" });
    if let Some(a) = attacker {
        when["target"] = a;
    }
    if let Some(b) = blocker {
        when["condition"] = json!([b]);
    }
    Ok(when)
}

/// Whose upkeep a `<beginning-of-phase phase="upkeep">` trigger's test names: the
/// controller's (`during-your-upkeep`, `<is-this player="controller"/>`) → `friendly`,
/// an opponent's (either under `<not>`) → `enemy`; `<phase-is phase="upkeep"/>` beside
/// them says nothing more.
fn upkeep_of(f: &Fragments, t: &Element) -> Result<&'static str, String> {
    let lacks = || "trigger <beginning-of-phase> upkeep with a test".to_owned();
    let yours = |x: &Element| {
        (x.from_ref.as_deref() == Some("during-your-upkeep")
            && x.attrs.is_empty()
            && f.tests
                .get("during-your-upkeep")
                .is_some_and(|r| same_test(f, r, x)))
            || (x.name == "is-this"
                && x.children.is_empty()
                && x.attrs.as_slice() == [("player".into(), "controller".into())])
            || crate::upkeep::is_controllers_turn(x)
    };
    let mut player = None;
    for x in flat_test(t) {
        let whose = match x.children.as_slice() {
            _ if x.name == "phase-is"
                && x.attr("phase") == Some("upkeep")
                && x.children.is_empty() =>
            {
                continue
            }
            _ if yours(&x) => "friendly",
            [inner] if x.name == "not" && yours(inner) => "enemy",
            _ => return Err(lacks()),
        };
        if player.replace(whose).is_some_and(|p| p != whose) {
            return Err(lacks());
        }
    }
    player.ok_or_else(lacks)
}

/// A trigger's `<test>` on the card its event is about, as one mtg condition.
fn tested(f: &Fragments, t: &Element) -> Result<Value, String> {
    let all = t
        .children
        .iter()
        .map(|c| on_card(f, c))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({ "all": all }))
}

/// Whose end step `<end-of-phase phase="eot">` hears: every player's (no test) or the
/// controller's (`during-your-eot`) — the mtg rules' `end_step`, raised as it begins
/// (Firemox's "end of turn" phase is the end step; its cleanup is not a phase there).
fn end_step(f: &Fragments, e: &Element) -> Result<&'static str, String> {
    match e.children.as_slice() {
        [] => Ok("any"),
        [t] if t.from_ref.as_deref() == Some("during-your-eot")
            && t.attrs.is_empty()
            && f.tests
                .get("during-your-eot")
                .is_some_and(|r| same_test(f, r, t)) =>
        {
            Ok("friendly")
        }
        _ => Err("trigger <end-of-phase> eot with a test".into()),
    }
}

/// A test in a card's trigger as an mtg condition: `<is target="attachedto"/>` (what
/// the card, an Aura or Equipment, is attached to: the mtg rules' `parent`), or any test
/// [`crate::conditions::condition`] knows.
fn on_card(f: &Fragments, e: &Element) -> Result<Value, String> {
    if e.name == "is" && e.attrs.len() == 1 && e.children.is_empty() {
        return match e.attr("target") {
            Some("attachedto") => Ok(json!({ "type": "same", "a": "target", "b": "self.parent" })),
            other => Err(format!("test is target={}", other.unwrap_or("?"))),
        };
    }
    crate::conditions::condition(f, e)
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
    // The zone it goes to, and tests of the card there (Cloudstone Curio: yours, not an
    // artifact).
    let mut to = None;
    for x in flat_test(dst) {
        match zone_of(&x) {
            Some("play") if to.is_none() => to = Some("battlefield"),
            Some("graveyard") if to.is_none() => to = Some("graveyard"),
            Some(_) => return Err(lacks("to a zone other than play or the graveyard")),
            None => target.push(
                crate::conditions::condition(f, &x)
                    .map_err(|m| lacks(&format!("destination {m}")))?,
            ),
        }
    }
    let to = to.ok_or_else(|| lacks("with a destination test without a zone"))?;
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
        context: Context::Card,
    })
}
