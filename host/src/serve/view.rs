//! Per-seat views: what one player may see of a world. Objects in a hidden zone (a hand)
//! are shown to their owner only, objects in a secret zone (the deck) to nobody; the rest
//! see a count per owner and zone.

use std::collections::BTreeMap;

use crate::game::MoveOption;
use crate::play::Match;
use crate::state::{ObjId, Value, World};

use super::protocol::{HiddenCount, MoveView, ObjectView, OptionView};

/// Which zones a seat may not look into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visibility {
    /// Zones only an object's owner sees (default `hand`, `secret`).
    pub hidden_zones: Vec<String>,
    /// Zones nobody sees (default `deck`, and always the game's deck zone).
    pub secret_zones: Vec<String>,
}

impl Default for Visibility {
    fn default() -> Self {
        Visibility {
            hidden_zones: vec!["hand".into(), "secret".into()],
            secret_zones: vec!["deck".into()],
        }
    }
}

/// The seat a player object sits in.
fn seat_of(players: &[ObjId], id: Option<ObjId>) -> Option<usize> {
    id.and_then(|id| players.iter().position(|p| *p == id))
}

fn json_of(world: &World, id: ObjId, key: crate::id::Sym, v: &Value) -> serde_json::Value {
    match v {
        Value::Int(_) | Value::Float(_) => world
            .get_number(id, key)
            .and_then(|n| {
                if n.fract() == 0.0 && n.abs() < 9e15 {
                    Some(serde_json::Value::from(n as i64))
                } else {
                    serde_json::Number::from_f64(n).map(serde_json::Value::Number)
                }
            })
            .unwrap_or(serde_json::Value::Null),
        Value::Obj(o) => serde_json::Value::String(o.to_string()),
        other => serde_json::to_value(other).unwrap_or(serde_json::Value::Null),
    }
}

/// The objects `seat` sees and the counts of those it does not.
pub(crate) fn objects(
    m: &Match,
    seat: usize,
    vis: &Visibility,
) -> (Vec<ObjectView>, Vec<HiddenCount>) {
    let world = m.game().world();
    let players = m.players();
    let deck_zone = m
        .game()
        .generation()
        .game
        .as_ref()
        .and_then(|g| g.deck.as_ref())
        .map(|d| d.zone.as_str().to_owned());
    let mut shown = Vec::new();
    let mut hidden: BTreeMap<(Option<usize>, String), usize> = BTreeMap::new();
    for (id, o) in world.objects() {
        let owner = seat_of(players, o.owner);
        let zone = o.zone.as_str();
        let secret =
            vis.secret_zones.iter().any(|z| z == zone) || deck_zone.as_deref() == Some(zone);
        let private = vis.hidden_zones.iter().any(|z| z == zone) && owner != Some(seat);
        if secret || private {
            *hidden.entry((owner, zone.to_owned())).or_default() += 1;
            continue;
        }
        let props = o
            .props
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), json_of(world, id, *k, v)))
            .collect();
        shown.push(ObjectView {
            id: id.to_string(),
            class: o.class.to_string(),
            name: m.namer().name(world, id),
            owner,
            seat: seat_of(players, Some(id)),
            zone: zone.to_owned(),
            props,
            tags: o.tags.iter().map(|t| t.as_str().to_owned()).collect(),
        });
    }
    let hidden = hidden
        .into_iter()
        .map(|((owner, zone), count)| HiddenCount { owner, zone, count })
        .collect();
    (shown, hidden)
}

/// The moves as a client sees them.
pub(crate) fn moves(m: &Match, moves: &[MoveOption]) -> Vec<MoveView> {
    let world = m.game().world();
    let gen = m.game().generation();
    moves
        .iter()
        .enumerate()
        .map(|(index, mv)| MoveView {
            index,
            id: mv.id.to_string(),
            subject: mv.subject.to_string(),
            target: mv.target.map(|t| t.to_string()),
            text: m.namer().move_line(gen, world, mv),
        })
        .collect()
}

/// The options of a choice as a client sees them.
pub(crate) fn options(m: &Match, choice: &crate::game::Choice) -> Vec<OptionView> {
    if choice.options.is_empty() {
        // Labels (a number, a mode): no object id.
        return choice
            .labels
            .iter()
            .enumerate()
            .map(|(index, label)| OptionView {
                index,
                id: String::new(),
                name: label.clone(),
            })
            .collect();
    }
    let world = m.game().world();
    choice
        .options
        .iter()
        .enumerate()
        .map(|(index, id)| OptionView {
            index,
            id: id.to_string(),
            name: m.namer().name(world, *id),
        })
        .collect()
}
