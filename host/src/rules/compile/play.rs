//! Compiling how a game is played: `[game]` (setup, turns, the end) and `[move.NAME]`
//! (what the active player may do), and the log lines of declared events.

use super::kinds::with;
use super::*;
use crate::rules::content::{GameSpec, MoveSpec};
use crate::rules::expr::Expr;
use crate::rules::registry::{scope_reads_of, Action, ScopeReads};
use crate::rules::select::Select;

/// `[game]`, compiled.
#[derive(Debug)]
pub struct GameDef {
    /// The class of player objects.
    pub player_class: Id,
    /// How many players.
    pub players: usize,
    /// The zone players are in.
    pub player_zone: Sym,
    /// Random decks, if the game deals them.
    pub deck: Option<DeckDef>,
    /// The event raised once players and decks exist.
    pub start: Id,
    /// The tag of the player whose turn it is.
    pub active_tag: Sym,
    /// The tag of a player who lost.
    pub lost_tag: Sym,
    /// Turns after which the game is a draw.
    pub turn_limit: u32,
    /// How good the world is for a player (`self`).
    pub score: Option<Expr>,
    /// Properties the match log watches.
    pub show: Vec<Sym>,
    /// Zones the match log watches.
    pub show_zones: Vec<Sym>,
    /// The turn header's values of each player (`[game] header`), in order.
    pub header: Vec<(String, Expr)>,
    /// Where it is written.
    pub origin: Origin,
}

/// `[game.deck]`, compiled.
#[derive(Debug, Clone)]
pub struct DeckDef {
    /// Classes with this tag may go in a deck.
    pub tag: Sym,
    /// Cards per deck.
    pub size: usize,
    /// Most copies of one class.
    pub copies: usize,
    /// The deck zone.
    pub zone: Sym,
    /// The classes with `tag`, in id order: listed on the first deal, kept for every
    /// match of the generation (whose classes never change).
    pub pool: std::sync::OnceLock<Vec<Id>>,
}

/// `[move.NAME]`, compiled.
#[derive(Debug)]
pub struct MoveDef {
    /// `namespace:move/name`.
    pub id: Id,
    /// What acts (selected with `self` = the player).
    pub subject: Select,
    /// What it acts on (selected with `self` = the subject).
    pub target: Option<Select>,
    /// Whether the target selection reads nothing of its scope but the player and the
    /// acting player (not `self`, nothing unkeyed such as the RNG): subjects with the
    /// same acting player then have the same targets (every minion of a player attacking
    /// the same enemy characters), selected once.
    pub targets_shared: bool,
    /// What happens.
    pub actions: Vec<Box<dyn Action>>,
    /// Whether it ends the turn.
    pub ends_turn: bool,
    /// Whether it gives up the player's chance to act (see `MoveSpec::passes`).
    pub passes: bool,
    /// Log line template.
    pub log: Option<String>,
    /// Where it is written.
    pub origin: Origin,
}

impl Compiler<'_> {
    /// Compiles `[game]`.
    pub(crate) fn game(&mut self, spec: &GameSpec) -> Result<GameDef, ContentError> {
        let path = vec![PathSeg::Key("game".into())];
        let player_class =
            self.reference(&spec.player_class, "class", &with(&path, "player_class"))?;
        let start = self.reference(&spec.start, "event", &with(&path, "start"))?;
        let players = spec.players.unwrap_or(2);
        if !(1..=8).contains(&players) {
            return Err(ContentError::new(
                "E-CONTENT-PARAM",
                with(&path, "players"),
                format!("a game needs 1 to 8 players, not {players}"),
            ));
        }
        let deck = match &spec.deck {
            None => None,
            Some(d) => {
                if d.size == 0 || d.size > 200 {
                    return Err(ContentError::new(
                        "E-CONTENT-PARAM",
                        with(&with(&path, "deck"), "size"),
                        format!("a deck of {} cards is not allowed", d.size),
                    )
                    .help("use 1 to 200 cards"));
                }
                Some(DeckDef {
                    tag: Sym::new(&d.tag),
                    size: d.size,
                    copies: d.copies.unwrap_or(2).max(1),
                    zone: Sym::new(d.zone.as_deref().unwrap_or("deck")),
                    pool: std::sync::OnceLock::new(),
                })
            }
        };
        let score = match &spec.score {
            Some(v) => Some(self.expr(v, &with(&path, "score"))?),
            None => None,
        };
        let mut header = Vec::new();
        for (name, v) in &spec.header {
            header.push((
                name.clone(),
                self.expr(v, &with(&with(&path, "header"), name))?,
            ));
        }
        let names = |v: &[String], default: &[&str]| -> Vec<Sym> {
            if v.is_empty() {
                default.iter().map(|s| Sym::new(s)).collect()
            } else {
                v.iter().map(|s| Sym::new(s)).collect()
            }
        };
        Ok(GameDef {
            player_class,
            players,
            player_zone: Sym::new(spec.player_zone.as_deref().unwrap_or("table")),
            deck,
            start,
            active_tag: Sym::new(spec.active_tag.as_deref().unwrap_or("active")),
            lost_tag: Sym::new(spec.lost_tag.as_deref().unwrap_or("lost")),
            turn_limit: spec.turn_limit.unwrap_or(60).max(1),
            score,
            show: names(&spec.show, &[]),
            show_zones: names(&spec.show_zones, &["board"]),
            header,
            origin: self.origin(&path, format!("game of `{}`", self.ns)),
        })
    }

    /// Compiles `[move.NAME]`.
    pub(crate) fn move_def(
        &mut self,
        name: &str,
        spec: &MoveSpec,
    ) -> Result<MoveDef, ContentError> {
        let path = vec![PathSeg::Key("move".into()), PathSeg::Key(name.to_owned())];
        let id = Id::from_parts(&self.ns, "move", name)
            .map_err(|e| ContentError::new("E-CONTENT-ID", path.clone(), e.to_string()))?;
        let subject = self.selector(&spec.subject, &with(&path, "subject"))?;
        let target = match &spec.target {
            Some(t) => Some(self.selector(t, &with(&path, "target"))?),
            None => None,
        };
        let actions = self.actions(&spec.actions, &with(&path, "do"))?;
        if let Some(log) = &spec.log {
            check_template(log, &["player", "subject", "target"], &with(&path, "log"))?;
        }
        let targets_shared = target.as_ref().is_some_and(|t| {
            scope_reads_of(t)
                .is_some_and(|r| !r.contains(ScopeReads::THIS) && !r.contains(ScopeReads::OTHER))
        });
        Ok(MoveDef {
            id,
            subject,
            target,
            targets_shared,
            actions,
            ends_turn: spec.ends_turn,
            passes: spec.passes,
            log: spec.log.clone(),
            origin: self.origin(&path, format!("move `{id}`")),
        })
    }
}

/// Checks that a log template only uses the placeholders it may.
pub(crate) fn check_template(
    text: &str,
    allowed: &[&str],
    path: &[PathSeg],
) -> Result<(), ContentError> {
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(ContentError::new(
                "E-CONTENT-PARAM",
                path.to_vec(),
                format!("`{text}` has a `{{` without its `}}`"),
            ));
        };
        let name = &after[..close];
        if !allowed.contains(&name) {
            return Err(ContentError::new(
                "E-CONTENT-PARAM",
                path.to_vec(),
                format!("`{{{name}}}` is not a placeholder here"),
            )
            .help(format!(
                "use {}",
                allowed
                    .iter()
                    .map(|a| format!("`{{{a}}}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        rest = &after[close + 1..];
    }
    Ok(())
}
