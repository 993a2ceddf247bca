//! Matches: a game played by agents from the rules mod's `[game]` and `[move.NAME]`
//! tables — players and decks created, the start event raised, then one move at a time
//! from the active player's agent until a player has lost or the turn limit is reached.
//!
//! Owns setup (players, random decks from the world's seed), the move loop and its
//! limits, the readable log (`log`), agents (`agents`), the predictable agents of card
//! tests (`testing`) and recordings for replay (`record`). It changes the world only
//! through [`Game`] commands and reads no files.

pub mod agents;
pub mod log;
pub mod record;
mod setup;
pub mod testing;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use agents::{GreedyAgent, RandomAgent, ReplayAgent};
pub use log::{Namer, Translate};
pub use record::{Input, RecordedMod, Recording, RecordingError};
pub use setup::unplayable;
pub use testing::{TestAgent, TestSetup, TestStyle};

use crate::bus::Event;
use crate::game::{Controller, ControllerError, Game, MoveOption, ScriptedController};
use crate::rules::{Generation, MoveDef, RuleError};
use crate::state::ObjId;
use agents::SeatController;

/// A match could not be set up or played on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    /// The loaded rules cannot make or continue a match: no `[game]`, the wrong number
    /// of agents, no deck, no single player holding the turn, no legal move. The
    /// message says what the rules mod must provide.
    #[error("{0}")]
    Rules(String),
    /// A rule failed while the match was set up or a turn ended.
    #[error("{context}: {source}")]
    Rule {
        /// What the match was doing (`creating a player`, `ending the turn failed`).
        context: String,
        /// The rule's error.
        source: RuleError,
    },
    /// The legal moves could not be listed.
    #[error(transparent)]
    Moves(RuleError),
    /// An agent could not pick a move, or picked one that was not offered.
    #[error("{0}")]
    Agent(ControllerError),
}

impl PlayError {
    fn rule(context: impl Into<String>) -> impl FnOnce(RuleError) -> PlayError {
        let context = context.into();
        move |source| PlayError::Rule { context, source }
    }
}

/// Most moves one turn may take before only moves that end the turn are offered (while
/// none of them is legal — a stack still to resolve, a combat to finish — every legal move
/// still is, so the rules can reach a point where the turn may end).
pub const MOVES_PER_TURN: usize = 60;

/// How a match ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ending {
    /// The player in this seat (0-based) won.
    Won(usize),
    /// Every player lost at once, or the turn limit was reached.
    Draw(String),
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Won(seat) => write!(f, "Player {} wins", seat + 1),
            Ending::Draw(why) => write!(f, "draw ({why})"),
        }
    }
}

/// What a finished match reports.
#[derive(Debug, Clone)]
pub struct Summary {
    /// How it ended.
    pub ending: Ending,
    /// Turns played.
    pub turns: u32,
    /// Events handled.
    pub events: usize,
    /// Moves played.
    pub moves: usize,
    /// Wall time.
    pub elapsed: Duration,
    /// The final world checksum.
    pub checksum: u64,
}

/// A match in progress.
pub struct Match {
    game: Game,
    players: Vec<ObjId>,
    agents: Rc<RefCell<Vec<Box<dyn Controller>>>>,
    inputs: Rc<RefCell<Vec<Input>>>,
    namer: Namer,
    seed: u64,
    turns: u32,
    moves_this_turn: usize,
    refused: Vec<MoveOption>,
    events: usize,
    moves: usize,
    started: Instant,
    reloads: u32,
    announced_turn: Option<u32>,
    agent_time: Duration,
    /// A turn limit in place of the game's (`tessera run --turns`).
    turn_limit: Option<u32>,
    /// Whether [`Match::step`] makes log lines ([`Match::set_log`]).
    log: bool,
}

impl std::fmt::Debug for Match {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Match")
            .field("seed", &self.seed)
            .field("turns", &self.turns)
            .finish()
    }
}

impl Match {
    /// Sets up a match: creates the players and deals their decks (from the world's
    /// seeded RNG), then raises the game's start event. `agents` play the seats in
    /// order (each a [`Controller`] that plays moves); `translate` looks up display names
    /// (a locale).
    pub fn new(
        gen: Arc<Generation>,
        seed: u64,
        agents: Vec<Box<dyn Controller>>,
        translate: Translate,
        out: &mut dyn FnMut(&str),
    ) -> Result<Match, PlayError> {
        let def = gen.game.as_ref().ok_or_else(|| PlayError::Rules(
            "no loaded mod defines `[game]`, so there is no game to run; load a rules mod such as `arena`".into(),
        ))?;
        if agents.len() != def.players {
            return Err(PlayError::Rules(format!(
                "the game has {} players but {} agents were given",
                def.players,
                agents.len()
            )));
        }
        let mut game = Game::new(gen.clone(), seed, Box::new(ScriptedController::default()));
        let mut players = Vec::new();
        for _ in 0..def.players {
            let p = game
                .spawn(def.player_class, None, def.player_zone.as_str())
                .map_err(PlayError::rule("creating a player"))?;
            players.push(p);
        }
        if let Some(deck) = &def.deck {
            setup::deal_decks(&mut game, &gen, deck, &players)?;
        }
        let agents = Rc::new(RefCell::new(agents));
        let inputs = Rc::new(RefCell::new(Vec::new()));
        game.set_controller(Box::new(SeatController {
            players: players.clone(),
            agents: agents.clone(),
            inputs: inputs.clone(),
        }));
        let namer = Namer::new(gen.clone(), players.clone(), translate);
        let mut m = Match {
            game,
            players,
            agents,
            inputs,
            namer,
            seed,
            turns: 0,
            moves_this_turn: 0,
            refused: Vec::new(),
            events: 0,
            moves: 0,
            started: Instant::now(),
            reloads: 0,
            announced_turn: None,
            agent_time: Duration::ZERO,
            turn_limit: None,
            log: true,
        };
        let before = m.game.world().clone();
        let outcome = m
            .game
            .emit(Event::new(def.start))
            .map_err(PlayError::rule(format!(
                "the start event `{}` failed",
                def.start
            )))?;
        m.events += outcome.events.len();
        m.report(&before, &outcome.events, out);
        Ok(m)
    }

    /// `-- turn 3: Player 1 (health: Player 1 27, Player 2 30) --` (see
    /// [`log::turn_header`]).
    fn turn_header(&self, seat: usize) -> String {
        log::turn_header(&self.game, &self.players, self.turns, seat)
    }

    /// Ends the match (a draw) after `turns` turns instead of the game's `turn_limit`.
    pub fn set_turn_limit(&mut self, turns: u32) {
        self.turn_limit = Some(turns.max(1));
    }

    /// The game being played.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The player objects, by seat.
    pub fn players(&self) -> &[ObjId] {
        &self.players
    }

    /// Every input so far.
    pub fn inputs(&self) -> Vec<Input> {
        self.inputs.borrow().clone()
    }

    /// How the game stands: `Some` once it is over.
    pub fn ending(&self) -> Option<Ending> {
        let def = self.game.generation().game.as_ref()?;
        let lost: Vec<usize> = self
            .players
            .iter()
            .enumerate()
            .filter(|(_, p)| self.game.world().has_tag(**p, def.lost_tag))
            .map(|(i, _)| i)
            .collect();
        let standing: Vec<usize> = (0..self.players.len())
            .filter(|i| !lost.contains(i))
            .collect();
        if !lost.is_empty() {
            return Some(match standing.as_slice() {
                [one] => Ending::Won(*one),
                [] => Ending::Draw("every player lost at once".into()),
                _ => return None,
            });
        }
        let limit = self.turn_limit.unwrap_or(def.turn_limit);
        if self.turns >= limit {
            return Some(Ending::Draw(format!("turn limit {limit} reached")));
        }
        None
    }

    fn summary(&self, ending: Ending) -> Summary {
        // A game that ends inside a turn (a hero dies in turn 15) has played that turn
        // too; `turns` counts only the turns that were ended.
        let in_turn = self.announced_turn == Some(self.turns);
        Summary {
            ending,
            turns: self.turns + u32::from(in_turn),
            events: self.events,
            moves: self.moves,
            elapsed: self.started.elapsed(),
            checksum: self.game.world().checksum(),
        }
    }

    /// Plays one move (or reports the end). Log lines go to `out`.
    pub fn step(&mut self, out: &mut dyn FnMut(&str)) -> Result<Option<Summary>, PlayError> {
        if let Some(end) = self.ending() {
            return Ok(Some(self.summary(end)));
        }
        let gen = self.game.generation().clone();
        let def = gen.game.as_ref().ok_or_else(gone)?;
        let (seat, moves) = self.offered()?;
        let me = self.players[seat];
        if self.announced_turn != Some(self.turns) {
            self.announced_turn = Some(self.turns);
            if self.log {
                out(&self.turn_header(seat));
            }
        }
        let ends = |m: &MoveOption| gen.moves.iter().any(|d| d.id == m.id && d.ends_turn);
        let thinking = Instant::now();
        let pick = {
            let mut agents = self.agents.borrow_mut();
            let agent = agents.get_mut(seat).ok_or_else(|| {
                PlayError::Agent(ControllerError::NoAnswer("no agent for this seat".into()))
            })?;
            agent
                .choose_move(&mut self.game, me, &moves)
                .map_err(PlayError::Agent)?
        };
        self.agent_time += thinking.elapsed();
        let mv = *moves.get(pick).ok_or_else(|| {
            PlayError::Agent(ControllerError::Invalid(format!(
                "the agent picked move {pick} of {}",
                moves.len()
            )))
        })?;
        self.inputs.borrow_mut().push(Input::Move(pick));
        // The world before the move, for the report of what it changed.
        let before = self.log.then(|| self.game.world().clone());
        if let Some(before) = &before {
            out(&format!("  {}", self.namer.move_line(&gen, before, &mv)));
        }
        self.moves += 1;
        self.moves_this_turn += 1;
        // `mv` is one of the legal moves of the active player, listed on this world.
        match self.game.run_move(&mv) {
            Ok(outcome) => {
                if ends(&mv) {
                    self.turns += 1;
                    self.moves_this_turn = 0;
                    self.refused.clear();
                    // The next turn's header comes before what its start caused (draws).
                    if self.ending().is_none() {
                        if let Some(next) = (0..self.players.len())
                            .find(|&i| self.game.world().has_tag(self.players[i], def.active_tag))
                        {
                            self.announced_turn = Some(self.turns);
                            if self.log {
                                out(&self.turn_header(next));
                            }
                        }
                    }
                }
                self.events += outcome.events.len();
                if let Some(before) = &before {
                    self.report(before, &outcome.events, out);
                }
            }
            Err(e) => {
                out(&format!("    (refused: {e})"));
                if ends(&mv) {
                    return Err(PlayError::rule("ending the turn failed")(e));
                }
                self.refused.push(mv);
            }
        }
        Ok(None)
    }

    /// The seat whose turn it is and the moves its agent will be offered next, in the
    /// order [`Controller::choose_move`] sees them (moves refused this turn left out;
    /// after [`MOVES_PER_TURN`] moves see [`past_the_limit`]).
    pub fn offered(&self) -> Result<(usize, Vec<MoveOption>), PlayError> {
        let gen = self.game.generation();
        let def = gen.game.as_ref().ok_or_else(gone)?;
        let active: Vec<usize> = (0..self.players.len())
            .filter(|&i| self.game.world().has_tag(self.players[i], def.active_tag))
            .collect();
        let [seat] = active.as_slice() else {
            return Err(PlayError::Rules(format!(
                "exactly one player must have the `{}` tag, but {} do; the rules mod's start event must tag the first player and ending a turn must pass the tag on",
                def.active_tag,
                active.len()
            )));
        };
        let mut moves: Vec<MoveOption> = self
            .game
            .legal_moves(self.players[*seat])
            .map_err(PlayError::Moves)?
            .into_iter()
            .filter(|m| !self.refused.contains(m))
            .collect();
        if self.moves_this_turn >= MOVES_PER_TURN {
            past_the_limit(gen, &mut moves);
        }
        if moves.is_empty() {
            return Err(PlayError::Rules(format!(
                "Player {} has no legal move; the rules mod needs a move that ends the turn and is always legal",
                seat + 1
            )));
        }
        Ok((*seat, moves))
    }

    /// Tries a move with `controller` answering its choices and rolls it back (see
    /// [`Game::try_move`]): a network seat learns which choices a move asks before
    /// playing it.
    pub fn try_move(
        &mut self,
        mv: &MoveOption,
        controller: Box<dyn Controller>,
    ) -> Result<(), RuleError> {
        self.game.try_move(mv, controller).0.map(|_| ())
    }

    /// The display names of this match's objects.
    pub fn namer(&self) -> &Namer {
        &self.namer
    }

    /// Events handled so far.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Moves played so far (refused ones included).
    pub fn moves(&self) -> usize {
        self.moves
    }

    /// Logs what a command did: event lines, then watched numbers that changed.
    fn report(
        &mut self,
        before: &crate::state::World,
        events: &[Event],
        out: &mut dyn FnMut(&str),
    ) {
        let gen = self.game.generation().clone();
        let Some(def) = gen.game.as_ref() else { return };
        let after = self.game.world();
        for e in events {
            if let Some(line) = self.namer.event_line(&gen, after, e, &def.show_zones) {
                out(&format!("    {line}"));
            }
        }
        for line in self
            .namer
            .changes(before, after, &def.show, &def.show_zones)
        {
            out(&format!("    {line}"));
        }
    }

    /// Whether [`Match::step`] writes log lines (turn headers, moves, events, watched
    /// numbers that changed) to its `out`; on by default. Off, it does not make them: a
    /// caller that throws them away (`tessera run --quiet`, many games in a row) does
    /// not pay for naming objects or for keeping the world before each move.
    pub fn set_log(&mut self, on: bool) {
        self.log = on;
    }

    /// Plays until the game ends.
    pub fn play(&mut self, out: &mut dyn FnMut(&str)) -> Result<Summary, PlayError> {
        loop {
            if let Some(s) = self.step(out)? {
                return Ok(s);
            }
        }
    }

    /// Turns per-mod timing on (before the first move) or off.
    pub fn set_profiling(&self, on: bool) {
        self.game.runtime().set_profiling(on);
    }

    /// Time per mod since profiling was turned on (it includes agents trying moves),
    /// and the time agents spent choosing moves.
    pub fn take_profile(&mut self) -> (crate::plugins::TimeSplit, Duration) {
        (
            self.game.runtime().take_profile(),
            std::mem::take(&mut self.agent_time),
        )
    }

    /// Turns completed so far.
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// Applies a hot-reload staging between two moves (see [`reload::apply`]): the
    /// log line, and the swap report when the new generation went live.
    ///
    /// [`reload::apply`]: crate::reload::apply
    pub fn apply_reload(
        &mut self,
        staged: &crate::reload::Staged,
    ) -> (String, Option<crate::game::SwapReport>) {
        if let Some(why) = unplayable(staged) {
            let current = self.game.generation().number;
            return (
                format!("reload refused: {why} — keeping generation {current}"),
                None,
            );
        }
        let (line, report) = crate::reload::apply(&mut self.game, staged);
        if let Some(r) = &report {
            self.reloads += 1;
            self.events += r.outcome.events.len();
            self.namer = self.namer.for_generation(self.game.generation().clone());
        }
        (line, report)
    }

    /// Replaces the display-name lookup (after a reload changed translations).
    pub fn set_translate(&mut self, translate: Translate) {
        self.namer = Namer::new(
            self.game.generation().clone(),
            self.players.clone(),
            translate,
        );
    }

    /// The recording of the game so far.
    pub fn recording(&self, mods: Vec<RecordedMod>, result: &str) -> Recording {
        Recording {
            format: 1,
            seed: self.seed,
            agents: self.agents.borrow().iter().map(|a| a.name()).collect(),
            mods,
            inputs: self.inputs(),
            checksum: format!("{:016x}", self.game.world().checksum()),
            result: result.to_owned(),
            reloads: self.reloads,
        }
    }
}

/// Narrows the legal moves of a turn that has taken [`MOVES_PER_TURN`] moves, in the
/// spirit of Magic's loop rule (104.4b): the moves that end the turn if any is legal, else
/// those that pass (`passes = true`: giving priority away lets the stack resolve) if any
/// is, else all of them (so a turn that cannot end yet still goes on). A free action
/// repeated forever therefore cannot keep a turn from ending.
fn past_the_limit(gen: &Generation, moves: &mut Vec<MoveOption>) {
    let flagged = |m: &MoveOption, flag: fn(&MoveDef) -> bool| {
        gen.moves.iter().any(|d| d.id == m.id && flag(d))
    };
    let ends = |m: &MoveOption| flagged(m, |d| d.ends_turn);
    let passes = |m: &MoveOption| flagged(m, |d| d.passes);
    if moves.iter().any(ends) {
        moves.retain(ends);
    } else if moves.iter().any(passes) {
        moves.retain(passes);
    }
}

/// The game definition vanished from a generation the match runs under (a reload that
/// dropped `[game]` is refused before it goes live): a bug in Tessera.
fn gone() -> PlayError {
    PlayError::Rule {
        context: "the match".into(),
        source: RuleError::internal("the game definition is gone"),
    }
}
