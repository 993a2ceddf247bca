//! The match log: readable lines for moves, events and numbers that auras changed.
//!
//! Names come from each class's display-name key through the mods' translations
//! (falling back to the class's name), players are `Player N`. Core events have fixed
//! lines; a mod's own events are logged when its `[event.NAME]` has a `log` template.

use std::sync::Arc;

use crate::bus::Event;
use crate::game::MoveOption;
use crate::id::{Id, Sym};
use crate::rules::Generation;
use crate::state::{ObjId, Value, World};

/// Looks up the display text of a translation key (a locale), if there is one.
pub type Translate = std::rc::Rc<dyn Fn(&str) -> Option<String>>;

/// Gives objects their display names. A class's name is looked up when an object of it
/// is named, not ahead: a match whose log is off (many games in a row) never pays for
/// naming the generation's classes.
#[derive(Clone)]
pub struct Namer {
    gen: Arc<Generation>,
    translate: Translate,
    players: Vec<ObjId>,
}

impl std::fmt::Debug for Namer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Namer")
            .field("generation", &self.gen.number)
            .field("players", &self.players)
            .finish()
    }
}

impl Namer {
    /// Names for a generation's classes, translated by `translate` (a locale lookup), else
    /// a class's `title` text property, else its id's name.
    pub fn new(gen: Arc<Generation>, players: Vec<ObjId>, translate: Translate) -> Namer {
        Namer {
            gen,
            translate,
            players,
        }
    }

    /// The same names for another generation's classes (after a reload).
    pub(crate) fn for_generation(&self, gen: Arc<Generation>) -> Namer {
        Namer {
            gen,
            ..self.clone()
        }
    }

    /// A class's display name: translated, else its `title` (content read from another
    /// program's files carries its display names that way), else its id's name.
    fn class_name(&self, class: Id) -> String {
        let Some(c) = self.gen.classes.get(&class) else {
            return class.to_string();
        };
        let title = || {
            c.props.iter().find_map(|(k, v)| match v {
                Value::Text(t) if k.as_str() == "title" => Some(t.to_string()),
                _ => None,
            })
        };
        c.name
            .as_deref()
            .and_then(|n| (self.translate)(n))
            .or_else(title)
            .unwrap_or_else(|| c.id.name().replace('_', " "))
    }

    /// An object's display name (`Player 2`, `Ember Whelp`).
    pub fn name(&self, world: &World, id: ObjId) -> String {
        if let Some(i) = self.players.iter().position(|p| *p == id) {
            return format!("Player {}", i + 1);
        }
        match world.object(id) {
            Ok(o) => self.class_name(o.class),
            Err(_) => format!("{id}"),
        }
    }

    /// The line for a move (its `log` template, or `player: move subject -> target`).
    pub fn move_line(&self, gen: &Generation, world: &World, mv: &MoveOption) -> String {
        let template = gen
            .moves
            .iter()
            .find(|d| d.id == mv.id)
            .and_then(|d| d.log.clone());
        let player = self.name(world, mv.player);
        let subject = self.name(world, mv.subject);
        let target = mv.target.map(|t| self.name(world, t)).unwrap_or_default();
        match template {
            Some(t) => t
                .replace("{player}", &player)
                .replace("{subject}", &subject)
                .replace("{target}", &target),
            None if mv.target.is_some() => {
                format!("{player}: {} {subject} -> {target}", mv.id.name())
            }
            None => format!("{player}: {} {subject}", mv.id.name()),
        }
    }

    /// The line for an event, if it is one the log reports. `world` is the world after
    /// the command (names of objects that left play are still known).
    pub fn event_line(
        &self,
        gen: &Generation,
        world: &World,
        e: &Event,
        show_zones: &[Sym],
    ) -> Option<String> {
        let name = |o: Option<ObjId>| o.map(|o| self.name(world, o)).unwrap_or_default();
        let template: &str = match e.id.as_str() {
            "core:event/damaged" => "{target} takes {amount} damage",
            "core:event/healed" => "{target} is healed for {amount}",
            "core:event/shield_broken" => "{target}'s shield absorbs {amount} damage",
            "core:event/armor_lost" => "{target}'s armour absorbs {amount} damage",
            "core:event/destroyed" => {
                let from = e.field(Sym::new("from"));
                let on_board = matches!(from, Some(Value::Text(z)) if show_zones.iter().any(|s| s.as_str() == z.as_ref()));
                if on_board {
                    "{target} dies"
                } else {
                    "{target} is destroyed"
                }
            }
            "core:event/created" => {
                // Tokens summoned to the board; cards created elsewhere are not news.
                let zone = e.target.and_then(|t| world.object(t).ok()).map(|o| o.zone);
                if !zone.is_some_and(|z| show_zones.contains(&z)) {
                    return None;
                }
                "{target} is summoned"
            }
            _ => gen.event_logs.get(&e.id)?.as_str(),
        };
        Some(
            template
                .replace("{source}", &name(e.source))
                .replace("{target}", &name(e.target))
                .replace("{player}", &name(e.player))
                .replace("{amount}", &e.amount.to_string()),
        )
    }

    /// Lines for watched properties that changed on objects that stayed in a watched
    /// zone (`Ember Whelp: attack 2 -> 3`), in object order.
    pub fn changes(
        &self,
        before: &World,
        after: &World,
        keys: &[Sym],
        zones: &[Sym],
    ) -> Vec<String> {
        let mut out = Vec::new();
        if keys.is_empty() {
            return out;
        }
        // Only the watched zones' objects, through the zone index, in object order (a
        // walk over every object costs as much as the game's hidden zones hold).
        let mut watched: Vec<ObjId> = zones
            .iter()
            .flat_map(|&z| after.objects_in_zone(z))
            .collect();
        watched.sort_unstable();
        watched.dedup();
        for id in watched {
            let Ok(o) = after.object(id) else { continue };
            let Ok(was) = before.object(id) else { continue };
            if was.zone != o.zone {
                continue;
            }
            for &k in keys {
                let (a, b) = (before.get_int(id, k), after.get_int(id, k));
                if a != b {
                    out.push(format!("{}: {k} {a} -> {b}", self.name(after, id)));
                }
            }
        }
        out
    }
}

/// `-- turn 3: Player 1 (health: Player 1 27, Player 2 30) --`: the turn (`turns` ended
/// so far, plus one), who plays it (`seat`), and every player's health — or the game's
/// `[game] header` values.
pub(super) fn turn_header(
    game: &crate::game::Game,
    players: &[ObjId],
    turns: u32,
    seat: usize,
) -> String {
    let each = |value: &dyn Fn(ObjId) -> String| -> String {
        let all: Vec<String> = players
            .iter()
            .enumerate()
            .map(|(i, p)| format!("Player {} {}", i + 1, value(*p)))
            .collect();
        all.join(", ")
    };
    if let Some(def) = game
        .generation()
        .game
        .as_ref()
        .filter(|d| !d.header.is_empty())
    {
        let values: Vec<String> = def
            .header
            .iter()
            .map(|(name, e)| {
                let shown = each(&|p| {
                    game.eval_in(game.world(), e, p)
                        .map_or_else(|err| format!("({err})"), crate::state::decimal)
                });
                format!("{name}: {shown}")
            })
            .collect();
        return format!(
            "-- turn {}: Player {} ({}) --",
            turns + 1,
            seat + 1,
            values.join("; ")
        );
    }
    let health = Sym::new("health");
    let shown = each(&|p| game.world().get_int(p, health).to_string());
    format!(
        "-- turn {}: Player {} (health: {shown}) --",
        turns + 1,
        seat + 1
    )
}
