//! Agents: controllers that play a seat — they pick moves ([`Controller::choose_move`])
//! and answer the choices those moves ask for. The random agent plays any legal move; the
//! greedy agent tries each legal move on a copy of the world and keeps the one the game's
//! `score` rates highest; the replay agent repeats a recorded game's inputs.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::record::Input;
use crate::game::{Choice, Controller, ControllerError, Game, MoveOption, RandomController};
use crate::state::{ObjId, World};

/// Plays uniformly random legal moves and answers, from its own seed.
#[derive(Debug)]
pub struct RandomAgent {
    rng: ChaCha8Rng,
    answers: RandomController,
}

impl RandomAgent {
    /// A random agent with its own seed.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            rng: ChaCha8Rng::seed_from_u64(seed),
            answers: RandomController::new(seed ^ 0x9e37_79b9_7f4a_7c15),
        }
    }
}

impl Controller for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose_move(
        &mut self,
        _game: &mut Game,
        _me: ObjId,
        moves: &[MoveOption],
    ) -> Result<usize, ControllerError> {
        let n = u64::try_from(moves.len()).unwrap_or(1).max(1);
        Ok(usize::try_from(self.rng.next_u64() % n).unwrap_or(0))
    }
    fn choose(&mut self, world: &World, choice: &Choice) -> Result<Vec<usize>, ControllerError> {
        Controller::choose(&mut self.answers, world, choice)
    }
}

/// Answers the first choice of a tried move with a fixed index and every later one with
/// the first options; remembers how many options the first choice had.
#[derive(Debug, Default)]
struct Probe {
    first: usize,
    asked: usize,
    first_options: Rc<std::cell::Cell<usize>>,
}

impl Controller for Probe {
    fn choose(&mut self, _world: &World, choice: &Choice) -> Result<Vec<usize>, ControllerError> {
        let n = choice.max.min(choice.len());
        let pick = if self.asked == 0 {
            self.first_options.set(choice.len());
            let i = self.first.min(choice.len().saturating_sub(1));
            let mut v = vec![i];
            v.extend(
                (0..choice.len())
                    .filter(|&j| j != i)
                    .take(n.saturating_sub(1)),
            );
            v
        } else {
            (0..n).collect()
        };
        self.asked += 1;
        Ok(pick)
    }
}

/// Tries every legal move (and every answer to its first choice, up to `width`) and
/// plays the one after which the game's `score` is highest for it. Ties go to the move
/// listed first; ending the turn is chosen when nothing else scores better.
#[derive(Debug)]
pub struct GreedyAgent {
    width: usize,
    pending_first: Option<usize>,
}

impl Default for GreedyAgent {
    fn default() -> Self {
        GreedyAgent {
            width: 8,
            pending_first: None,
        }
    }
}

impl GreedyAgent {
    /// A greedy agent.
    pub fn new() -> GreedyAgent {
        GreedyAgent::default()
    }
}

impl Controller for GreedyAgent {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn choose_move(
        &mut self,
        game: &mut Game,
        me: ObjId,
        moves: &[MoveOption],
    ) -> Result<usize, ControllerError> {
        let gen = game.generation().clone();
        let score = gen
            .game
            .as_ref()
            .and_then(|g| g.score.as_ref())
            .ok_or_else(|| {
                ControllerError::Unsupported(
                    "the greedy agent needs `score` in the game's `[game]` table".into(),
                )
            })?;
        let ends: Vec<bool> = moves
            .iter()
            .map(|m| gen.moves.iter().any(|d| d.id == m.id && d.ends_turn))
            .collect();
        let mut best: Option<(f64, bool, usize, usize)> = None;
        for (i, mv) in moves.iter().enumerate() {
            let mut first = 0;
            let mut options = 1;
            while first < options.min(self.width) {
                let seen = Rc::new(std::cell::Cell::new(1));
                let probe = Probe {
                    first,
                    asked: 0,
                    first_options: seen.clone(),
                };
                let (world, _) = game.try_move(mv, Box::new(probe));
                options = seen.get().max(1);
                if let Ok(world) = world {
                    let s = game
                        .eval_in(&world, score, me)
                        .map_err(|e| ControllerError::NoAnswer(e.to_string()))?;
                    // Highest score wins; on a tie, ending the turn wins (the agent
                    // does not spend cards and attacks for nothing).
                    let better = match best {
                        None => true,
                        Some((bs, bend, _, _)) => s > bs || (s == bs && ends[i] && !bend),
                    };
                    if better {
                        best = Some((s, ends[i], i, first));
                    }
                }
                first += 1;
            }
        }
        let (_, _, i, first) =
            best.ok_or_else(|| ControllerError::NoAnswer("no move could be played".into()))?;
        self.pending_first = Some(first);
        Ok(i)
    }

    fn choose(&mut self, _world: &World, choice: &Choice) -> Result<Vec<usize>, ControllerError> {
        // Objects or labels (a mode, a number): `len` counts either.
        let n = choice.max.min(choice.len());
        let first = self
            .pending_first
            .take()
            .unwrap_or(0)
            .min(choice.len().saturating_sub(1));
        let mut v = vec![first];
        v.extend(
            (0..choice.len())
                .filter(|&j| j != first)
                .take(n.saturating_sub(1)),
        );
        v.truncate(n);
        Ok(v)
    }
}

/// Repeats recorded inputs: move indices and choice answers, in order.
#[derive(Debug)]
pub struct ReplayAgent {
    inputs: Rc<RefCell<VecDeque<Input>>>,
}

impl ReplayAgent {
    /// An agent reading from a queue of inputs shared by every seat of the replay.
    pub fn new(inputs: Rc<RefCell<VecDeque<Input>>>) -> ReplayAgent {
        ReplayAgent { inputs }
    }
}

impl Controller for ReplayAgent {
    fn name(&self) -> String {
        "replay".into()
    }
    fn choose_move(
        &mut self,
        _game: &mut Game,
        _me: ObjId,
        moves: &[MoveOption],
    ) -> Result<usize, ControllerError> {
        match self.inputs.borrow_mut().pop_front() {
            Some(Input::Move(i)) if i < moves.len() => Ok(i),
            Some(Input::Move(i)) => Err(ControllerError::NoAnswer(format!(
                "the recording plays move {i}, but only {} are legal here: the game has diverged",
                moves.len()
            ))),
            Some(other) => Err(ControllerError::NoAnswer(format!(
                "the recording has {other:?} where a move was expected: the game has diverged"
            ))),
            None => Err(ended()),
        }
    }
    fn choose(&mut self, _world: &World, _choice: &Choice) -> Result<Vec<usize>, ControllerError> {
        match self.inputs.borrow_mut().pop_front() {
            Some(Input::Choice(v)) => Ok(v),
            Some(other) => Err(ControllerError::NoAnswer(format!(
                "the recording has {other:?} where a choice was expected: the game has diverged"
            ))),
            None => Err(ended()),
        }
    }
}

/// A recording that ran out.
fn ended() -> ControllerError {
    ControllerError::NoAnswer("the recording ended before the game did".into())
}

/// The controller of a match: routes each choice to the agent of the player choosing
/// and records the answer.
pub(crate) struct SeatController {
    pub(crate) players: Vec<ObjId>,
    pub(crate) agents: Rc<RefCell<Vec<Box<dyn Controller>>>>,
    pub(crate) inputs: Rc<RefCell<Vec<Input>>>,
}

impl Controller for SeatController {
    fn choose(&mut self, world: &World, choice: &Choice) -> Result<Vec<usize>, ControllerError> {
        let seat = choice
            .chooser
            .and_then(|c| self.players.iter().position(|p| *p == c))
            .unwrap_or(0);
        let answer = self
            .agents
            .try_borrow_mut()
            .map_err(|_| ControllerError::Busy)?
            .get_mut(seat)
            .ok_or_else(|| ControllerError::NoAnswer("no agent for this seat".into()))?
            .choose(world, choice)?;
        self.inputs.borrow_mut().push(Input::Choice(answer.clone()));
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A choice of labels (a mode, "you may"), not objects: the greedy agent answers one
    /// of them like any other choice (it used to count only objects and answer nothing).
    #[test]
    fn greedy_agent_answers_a_choice_of_labels() {
        let w = World::new(0);
        let choice = Choice {
            chooser: None,
            prompt: "choose".into(),
            options: Vec::new(),
            labels: vec!["option 1".into(), "decline".into()],
            min: 1,
            max: 1,
        };
        assert_eq!(GreedyAgent::new().choose(&w, &choice).unwrap(), vec![0]);
    }
}
