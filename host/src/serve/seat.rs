//! Who plays a hosted match's seats: one [`Controller`] per seat, all reading one shared
//! queue of inputs. A human seat plays the move its client sent and answers choices with
//! the answers its client gave (collected beforehand by [`Probe`]); an AI seat decides
//! from a seed mixed with the number of decisions so far, so it keeps no state a save
//! would lose; while a save is being restored every seat repeats the saved inputs.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use crate::game::{Choice, Controller, ControllerError, Game, MoveOption, RandomController};
use crate::play::{GreedyAgent, Input, RandomAgent};
use crate::state::{ObjId, World};

use super::protocol::SeatKind;

/// What every seat of one match shares.
#[derive(Debug, Default)]
pub(crate) struct Inputs {
    /// The match seed (AI seeds are mixed from it).
    pub seed: u64,
    /// Decisions taken so far (moves and choices), replayed ones included.
    pub decisions: u64,
    /// Saved inputs still to repeat (restoring a save).
    pub replay: VecDeque<Input>,
    /// The move index a human client sent, for its seat's next move.
    pub next_move: Option<usize>,
    /// A human client's answers to the choices of that move, in order.
    pub answers: VecDeque<Vec<usize>>,
}

/// A seat's controller.
pub(crate) struct Seat {
    pub seat: usize,
    pub kind: SeatKind,
    pub inputs: Rc<RefCell<Inputs>>,
    greedy: GreedyAgent,
}

impl Seat {
    pub fn new(seat: usize, kind: SeatKind, inputs: Rc<RefCell<Inputs>>) -> Seat {
        Seat {
            seat,
            kind,
            inputs,
            greedy: GreedyAgent::new(),
        }
    }

    /// A seed for this seat's next decision (splitmix64 of seed, seat and count).
    fn decision_seed(&self) -> u64 {
        let i = self.inputs.borrow();
        let mut z = i
            .seed
            .wrapping_add(0x9e37_79b9_7f4a_7c15u64.wrapping_mul(i.decisions + 1))
            .wrapping_add(self.seat as u64);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The next saved input, if a save is being restored (counted as a decision).
    fn replayed(&self) -> Option<Input> {
        let mut i = self.inputs.borrow_mut();
        let next = i.replay.pop_front();
        i.decisions += 1;
        next
    }
}

impl Controller for Seat {
    fn name(&self) -> String {
        match self.kind {
            SeatKind::Human => "human",
            SeatKind::Random => "random",
            SeatKind::Greedy => "greedy",
        }
        .into()
    }

    fn choose_move(
        &mut self,
        game: &mut Game,
        me: ObjId,
        moves: &[MoveOption],
    ) -> Result<usize, ControllerError> {
        let seed = self.decision_seed();
        match self.replayed() {
            Some(Input::Move(i)) => return Ok(i),
            Some(other) => {
                return Err(ControllerError::NoAnswer(format!(
                "the save has {other:?} where a move was expected: it does not match these rules"
            )))
            }
            None => {}
        }
        match self.kind {
            SeatKind::Human => self.inputs.borrow_mut().next_move.take().ok_or_else(|| {
                ControllerError::NoAnswer(format!(
                    "waiting for Player {}'s client to send a move",
                    self.seat + 1
                ))
            }),
            SeatKind::Random => RandomAgent::new(seed).choose_move(game, me, moves),
            SeatKind::Greedy => self.greedy.choose_move(game, me, moves),
        }
    }

    fn choose(&mut self, world: &World, choice: &Choice) -> Result<Vec<usize>, ControllerError> {
        let seed = self.decision_seed();
        match self.replayed() {
            Some(Input::Choice(v)) => return Ok(v),
            Some(other) => {
                return Err(ControllerError::NoAnswer(format!(
                "the save has {other:?} where a choice was expected: it does not match these rules"
            )))
            }
            None => {}
        }
        if let Some(answer) = self.inputs.borrow_mut().answers.pop_front() {
            return Ok(answer);
        }
        match self.kind {
            // A human asked outside its own move (another seat's move made it choose):
            // the first options, as Hearthbreaker's agents take `targets[0]`.
            SeatKind::Human => Ok((0..choice.min.max(1).min(choice.len())).collect()),
            SeatKind::Random => RandomController::new(seed).choose(world, choice),
            SeatKind::Greedy => self.greedy.choose(world, choice),
        }
    }
}

/// What a probe found out about a move a client sent.
#[derive(Debug, Default)]
pub(crate) enum Probed {
    /// Every choice it asked had an answer.
    #[default]
    Answered,
    /// It asks this choice next.
    Needs(Choice),
    /// The last answer does not fit its choice (why).
    BadAnswer(String),
}

/// Tries a move on a copy of the world with the answers a client gave so far, to learn
/// the next choice it asks (the command is rolled back, so nothing is kept).
pub(crate) struct Probe {
    pub answers: VecDeque<Vec<usize>>,
    pub found: Rc<RefCell<Probed>>,
}

impl Controller for Probe {
    fn choose(&mut self, _world: &World, choice: &Choice) -> Result<Vec<usize>, ControllerError> {
        let Some(answer) = self.answers.pop_front() else {
            *self.found.borrow_mut() = Probed::Needs(choice.clone());
            return Err(ControllerError::NoAnswer(
                "waiting for the client's answer".into(),
            ));
        };
        if let Err(why) = check_answer(choice, &answer) {
            *self.found.borrow_mut() = Probed::BadAnswer(why.clone());
            return Err(ControllerError::Invalid(why));
        }
        Ok(answer)
    }
}

/// Whether an answer fits a choice: distinct option indices, between min and max of them.
pub(crate) fn check_answer(choice: &Choice, answer: &[usize]) -> Result<(), String> {
    let n = choice.len();
    if let Some(bad) = answer.iter().find(|&&i| i >= n) {
        return Err(format!(
            "option {bad} does not exist: `{}` has options 0 to {}",
            choice.prompt,
            n.saturating_sub(1)
        ));
    }
    let mut seen = answer.to_vec();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() != answer.len() {
        return Err("an option may be chosen once; the answer repeats one".into());
    }
    let max = choice.max.min(n);
    let min = choice.min.min(max);
    if answer.len() < min || answer.len() > max {
        return Err(format!(
            "`{}` takes {} option(s); the answer has {}",
            choice.prompt,
            if min == max {
                min.to_string()
            } else {
                format!("{min} to {max}")
            },
            answer.len()
        ));
    }
    Ok(())
}
