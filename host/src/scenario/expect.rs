//! Running one scenario step and checking its expectations.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::format::{PlaySpec, StepSpec};
use super::matches::ScenarioMatch;
use super::paths::{self, Key};
use super::script::StepController;
use super::{event_of, resolve_id};
use crate::bus::Event;
use crate::game::{Game, Outcome};
use crate::id::{Id, Sym};
use crate::rules::registry::Action;
use crate::state::{ObjId, Object, Value, World};

/// The most ticks one scenario step may advance (their events are all kept in memory).
pub const MAX_TICKS_PER_STEP: u32 = 100_000;

/// Runs a step; `Err` is the failure message. `played` is the scenario's match, if it
/// has one (`turns` steps play it).
pub(super) fn run_step(
    game: &mut Game,
    ns: &str,
    step: &StepSpec,
    actions: Option<Vec<Box<dyn Action>>>,
    names: &mut BTreeMap<String, ObjId>,
    played: Option<&mut ScenarioMatch>,
) -> Result<(), String> {
    game.set_controller(Box::new(StepController::new(
        &step.answers,
        &step.randoms,
        names.clone(),
        played.is_some(),
    )?));
    one_command(step)?;
    let before = game.world().checksum();
    let result = perform(game, ns, step, actions, names, played);
    let outcome = match (&step.expect_error, result) {
        (Some(want), Err(got)) => {
            if !got.contains(want.as_str()) {
                return Err(format!("expected an error containing `{want}`, got: {got}"));
            }
            if game.world().checksum() != before {
                return Err("the step failed but the world changed (it must roll back)".into());
            }
            Outcome::default()
        }
        (Some(want), Ok(_)) => {
            return Err(format!(
                "expected an error containing `{want}`, but the step succeeded"
            ))
        }
        (None, Err(got)) => return Err(format!("the step failed: {got}")),
        (None, Ok(o)) => o,
    };
    name_created(step, &outcome, names)?;
    check_expectations(game, ns, step, names, &outcome)
}

/// A step does one thing: with two commands one would be left undone unnoticed.
fn one_command(step: &StepSpec) -> Result<(), String> {
    let given: Vec<&str> = [
        ("emit", step.emit.is_some()),
        ("do", step.actions.is_some()),
        ("tick", step.tick.is_some()),
        ("play", step.play.is_some()),
        ("turns", step.turns.is_some()),
        ("turn", step.turn.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, on)| on.then_some(k))
    .collect();
    if given.len() > 1 {
        return Err(format!(
            "the step has {}: a step does one of them; split it into one step each (in the order they should happen)",
            given.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(" and ")
        ));
    }
    Ok(())
}

/// Resolves an object name or path of the scenario.
fn look(n: &str, game: &Game, names: &BTreeMap<String, ObjId>) -> Result<ObjId, String> {
    paths::resolve(game.world(), names, n)
}

/// Does what the step says (emit, actions, tick, play, turns, turn, or nothing); `Err` is
/// the game's error (which the step may expect).
fn perform(
    game: &mut Game,
    ns: &str,
    step: &StepSpec,
    actions: Option<Vec<Box<dyn Action>>>,
    names: &mut BTreeMap<String, ObjId>,
    mut played: Option<&mut ScenarioMatch>,
) -> Result<Outcome, String> {
    if !step.controllers.is_empty() {
        let m = played.as_deref_mut().ok_or(
            "`controllers` changes who plays a match: add a `[match]` table (decks and controllers) to the scenario",
        )?;
        m.set_controllers(game, &step.controllers)?;
    }
    if let Some(seed) = step.seed {
        game.setup(|w| {
            w.reseed(seed);
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    }
    if let Some(e) = &step.emit {
        let event = event_of(e, ns, names, game.generation(), game.world())?;
        game.emit(event).map_err(|e| e.to_string())
    } else if let Some(actions) = actions {
        let this = step
            .this
            .as_deref()
            .map(|n| look(n, game, names))
            .transpose()?;
        let targets = step
            .targets
            .iter()
            .map(|n| look(n, game, names))
            .collect::<Result<Vec<_>, _>>()?;
        game.run_actions(&actions, this, &targets)
            .map_err(|e| e.to_string())
    } else if let Some(n) = step.tick {
        // Every tick's events are kept for the step's expectations: bound them.
        if n > MAX_TICKS_PER_STEP {
            return Err(format!(
                "`tick = {n}` is more than {MAX_TICKS_PER_STEP} ticks in one step (each tick's events are kept for the expectations); split it into several steps or tick less"
            ));
        }
        game.tick(n).map_err(|e| e.to_string())
    } else if let Some(p) = &step.play {
        play(game, ns, p, names)
    } else if let Some(n) = step.turns {
        let played = played.ok_or(
            "`turns` plays turns of a match: add a `[match]` table (decks and controllers) to the scenario",
        )?;
        played.play_turns(game, n, names)
    } else if let Some(half) = &step.turn {
        let played = played.ok_or(
            "`turn` plays half a turn of a match: add a `[match]` table (decks and controllers) to the scenario",
        )?;
        let half = match half.as_str() {
            "start" => super::matches::Half::Start,
            "end" => super::matches::Half::End,
            other => {
                return Err(format!(
                    "`turn = \"{other}\"`: write `turn = \"start\"` (start the next turn and play it) or `turn = \"end\"` (end it)"
                ))
            }
        };
        played.play_half(game, half, names)
    } else {
        Ok(Outcome::default())
    }
}

/// A `play` step: one move, its player defaulting to the subject's side.
fn play(
    game: &mut Game,
    ns: &str,
    p: &PlaySpec,
    names: &BTreeMap<String, ObjId>,
) -> Result<Outcome, String> {
    let subject = look(&p.subject, game, names)?;
    let player = match &p.player {
        Some(n) => look(n, game, names)?,
        None => crate::rules::core::side_of(game.world(), subject).ok_or_else(|| {
            format!(
                "`{}` has no owner; name the `player` making the move",
                p.subject
            )
        })?,
    };
    let mv = crate::game::MoveOption {
        id: resolve_id(&p.id, "move", ns)?,
        player,
        subject,
        target: p
            .target
            .as_deref()
            .map(|n| look(n, game, names))
            .transpose()?,
    };
    game.play_move(&mv).map_err(|e| e.to_string())
}

/// Names the objects the step created (`name_created`), in creation order.
fn name_created(
    step: &StepSpec,
    outcome: &Outcome,
    names: &mut BTreeMap<String, ObjId>,
) -> Result<(), String> {
    let created_event = Id::parse("core:event/created").map_err(|e| e.to_string())?;
    let created: Vec<ObjId> = outcome
        .events
        .iter()
        .filter(|e| e.id == created_event)
        .filter_map(|e| e.target)
        .collect();
    for (i, n) in step.name_created.iter().enumerate() {
        let id = created.get(i).ok_or_else(|| {
            format!(
                "expected at least {} objects created, found {}",
                i + 1,
                created.len()
            )
        })?;
        names.insert(n.clone(), *id);
    }
    Ok(())
}

/// Checks every `expect*` of the step; all failures are reported together.
fn check_expectations(
    game: &Game,
    ns: &str,
    step: &StepSpec,
    names: &BTreeMap<String, ObjId>,
    outcome: &Outcome,
) -> Result<(), String> {
    let mut problems = Vec::new();
    for (key, want) in &step.expect {
        if let Err(m) = check_value(game, names, key, want) {
            problems.push(m);
        }
    }
    for (zone, want) in &step.expect_count {
        let z = Sym::new(zone);
        let got = game.world().objects().filter(|(_, o)| o.zone == z).count();
        if got != *want {
            problems.push(format!(
                "expected {want} objects in zone `{zone}`, found {got}"
            ));
        }
    }
    if let Err(m) = check_events(game, ns, names, &step.expect_events, &outcome.events) {
        problems.push(m);
    }
    for (e, want) in &step.expect_event_counts {
        let id = event_id(game, ns, e)?;
        let got = outcome.events.iter().filter(|x| x.id == id).count();
        if got != *want {
            problems.push(format!(
                "expected `{id}` {want} time(s), it happened {got} time(s)"
            ));
        }
    }
    for (key, want) in &step.expect_accounting {
        if let Err(m) = check_accounting(game, names, key, want) {
            problems.push(m);
        }
    }
    for e in &step.expect_no_events {
        let id = event_id(game, ns, e)?;
        if outcome.events.iter().any(|x| x.id == id) {
            problems.push(format!("expected no `{id}` event, but it happened"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// `expect_accounting`: the last pass's records for `object.property`, line by line.
fn check_accounting(
    game: &Game,
    names: &BTreeMap<String, ObjId>,
    key: &str,
    want: &[String],
) -> Result<(), String> {
    let (reference, prop) = key
        .rsplit_once('.')
        .ok_or_else(|| format!("`{key}` in expect_accounting must be `object.property`"))?;
    let id = paths::resolve(game.world(), names, reference)?;
    let got: Vec<String> = game
        .world()
        .accounting()
        .of(id, Sym::new(prop))
        .iter()
        .map(|e| e.describe())
        .collect();
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "expected the accounting of {key} to be {want:?}, found {got:?}"
        ))
    }
}

fn event_id(game: &Game, ns: &str, s: &str) -> Result<Id, String> {
    let id = resolve_id(s, "event", ns)?;
    if game.generation().events.contains(&id) || s.contains(':') {
        return Ok(id);
    }
    resolve_id(s, "event", "core")
}

fn check_value(
    game: &Game,
    names: &BTreeMap<String, ObjId>,
    key: &str,
    want: &Json,
) -> Result<(), String> {
    let w = game.world();
    let Some((reference, prop)) = reference_of(w, names, key, want)? else {
        return Ok(());
    };
    let reference = reference.as_str();
    let name = reference;
    let id = match paths::resolve(w, names, reference) {
        Ok(id) => id,
        // A path to an empty slot is an object that does not exist.
        Err(_) if prop == "exists" && reference.contains('.') => {
            paths::check(names, reference)?;
            return if want.as_bool() == Some(false) {
                Ok(())
            } else {
                Err(format!("expected {key} = {want}, found false"))
            };
        }
        Err(m) => return Err(m),
    };
    if prop == "exists" {
        let got = w.exists(id);
        return if Some(got) == want.as_bool() {
            Ok(())
        } else {
            Err(format!("expected {key} = {want}, found {got}"))
        };
    }
    let obj = w.object(id).map_err(|e| format!("{key}: {e}"))?;
    let got: Json = match prop {
        "zone" => Json::String(obj.zone.as_str().to_owned()),
        "class" => Json::String(obj.class.as_str().to_owned()),
        "owner" => Json::String(
            obj.owner
                .map_or_else(|| "none".into(), |o| paths::name_of(w, names, o)),
        ),
        "tags" => return check_tags(w, id, obj, name, want, true),
        "no_tags" => return check_tags(w, id, obj, name, want, false),
        p => property(w, id, key, p, want)?,
    };
    let equal = match (want.as_f64(), got.as_f64()) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-9,
        _ => *want == got,
    };
    if equal {
        Ok(())
    } else {
        Err(format!("expected {key} = {want}, found {got}"))
    }
}

/// What an `expect` key names: the object reference and the property. `None` when the key
/// was a zone count, checked here (`Err` if it differs).
fn reference_of<'k>(
    w: &World,
    names: &BTreeMap<String, ObjId>,
    key: &'k str,
    want: &Json,
) -> Result<Option<(String, &'k str)>, String> {
    Ok(Some(match paths::parse_key(key)? {
        Key::Count { owner, zone } => {
            let who = paths::resolve(w, names, owner)?;
            let got = paths::zone_of(w, who, Sym::new(zone)).len();
            return if want.as_u64() == Some(got as u64) {
                Ok(None)
            } else {
                Err(format!("expected {key} = {want}, found {got}"))
            };
        }
        Key::Property {
            reference,
            property,
        } => (reference.to_owned(), property),
        Key::ZoneOrProperty {
            owner,
            zone,
            property,
            whole,
        } => {
            let who = paths::resolve(w, names, owner)?;
            if paths::zone_of(w, who, Sym::new(zone)).is_empty() {
                (owner.to_owned(), whole)
            } else {
                (format!("{owner}.{zone}"), property)
            }
        }
    }))
}

/// `tags` (`has` true: every wanted tag is on the object) or `no_tags` (`has` false: none
/// of them is).
fn check_tags(
    w: &World,
    id: ObjId,
    obj: &Object,
    name: &str,
    want: &Json,
    has: bool,
) -> Result<(), String> {
    let wanted: Vec<&str> = want
        .as_array()
        .map(|a| a.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default();
    let wrong: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|t| w.object_has_tag(id, obj, Sym::new(t)) != has)
        .collect();
    if wrong.is_empty() {
        return Ok(());
    }
    if !has {
        return Err(format!("expected {name} not to have tags {wrong:?}"));
    }
    let have: Vec<&str> = obj.tags.iter().map(|t| t.as_str()).collect();
    Err(format!(
        "expected {name} to have tags {wanted:?}, missing {wrong:?} (has {have:?})"
    ))
}

/// A number or base property `p` of object `id`, as the expectation compares it.
fn property(w: &World, id: ObjId, key: &str, p: &str, want: &Json) -> Result<Json, String> {
    Ok(match w.get_number(id, Sym::new(p)) {
        // Whole numbers print as integers (`found 3`, not `found 3.0`).
        #[expect(
            clippy::cast_possible_truncation,
            reason = "only whole numbers well inside i64's range are converted"
        )]
        Some(n) if n.fract() == 0.0 && n.abs() < 1e15 => Json::from(n as i64),
        Some(n) => serde_json::Number::from_f64(n).map_or(Json::Null, Json::Number),
        None => match w.base(id, Sym::new(p)) {
            // Text as written (`"VOLCANIC_ASH_SPECIAL"`, not its quoted display).
            Some(Value::Text(t)) => Json::String(t.to_string()),
            Some(v) => Json::String(v.to_string()),
            // Unset reads as 0, as it does in expressions.
            None if want.as_f64().is_some_and(|n| n != 0.0) => {
                return Err(format!(
                    "expected {key} = {want}, found 0{}",
                    paths::unset_hint(p)
                ));
            }
            None if want.is_number() => Json::from(0),
            None => Json::Null,
        },
    })
}

fn check_events(
    game: &Game,
    ns: &str,
    names: &BTreeMap<String, ObjId>,
    want: &[Json],
    got: &[Event],
) -> Result<(), String> {
    let mut pos = 0;
    for w in want {
        let (event, target, amount) = match w {
            Json::String(s) => (s.as_str(), None, None),
            Json::Object(m) => (
                m.get("event")
                    .and_then(Json::as_str)
                    .ok_or("an expected event table needs `event`")?,
                m.get("target").and_then(Json::as_str),
                m.get("amount").and_then(Json::as_i64),
            ),
            _ => return Err(format!("expected event {w} must be an id or a table")),
        };
        let id = event_id(game, ns, event)?;
        let target = target
            .map(|t| paths::resolve(game.world(), names, t))
            .transpose()?;
        let found = got[pos..].iter().position(|e| {
            e.id == id
                && target.is_none_or(|t| e.target == Some(t))
                && amount.is_none_or(|a| e.amount == a)
        });
        match found {
            Some(i) => pos += i + 1,
            None => {
                let seen: Vec<String> = got.iter().map(|e| e.to_string()).collect();
                return Err(format!(
                    "expected event {w} (in order), not found; events were:\n  {}",
                    seen.join("\n  ")
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(text: &str) -> StepSpec {
        toml::from_str(text).expect("a step")
    }

    /// A step with `do` and `play` used to run the actions and skip the move silently.
    #[test]
    fn a_step_with_two_commands_is_refused_naming_both() {
        assert!(one_command(&step("tick = 1")).is_ok());
        assert!(one_command(&step("name = \"nothing\"")).is_ok());
        let err = one_command(&step("tick = 1\nturns = 2\ndo = []")).unwrap_err();
        assert!(
            err.contains("`do` and `tick` and `turns`") && err.contains("split it"),
            "{err}"
        );
    }
}
