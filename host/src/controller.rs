//! Controllers: who answers choices (targets, modes) — an AI, a scripted test, or a
//! network client — and what they are asked (`Choice`, `RandomDraw`, `MoveOption`). The
//! interface every layer that asks or answers shares; it knows only the world. Random
//! choices come only from seeded RNGs, so games replay.

use std::collections::VecDeque;

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::id::Id;
use crate::state::{ObjId, World};

/// One legal move: a move definition, who plays it, what acts and on what.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveOption {
    /// The move's id (`arena:move/attack`).
    pub id: Id,
    /// The player making it.
    pub player: ObjId,
    /// What acts.
    pub subject: ObjId,
    /// What it acts on, if the move has a target.
    pub target: Option<ObjId>,
}

/// A choice a rule needs made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The player choosing (the holder's owner), if known.
    pub chooser: Option<ObjId>,
    /// What it is for.
    pub prompt: String,
    /// The options, in selection order.
    pub options: Vec<ObjId>,
    /// Options that are not objects — a number, a colour, a mode — when `options` is
    /// empty: the answer's indices are into these.
    pub labels: Vec<String>,
    /// Fewest options to choose.
    pub min: usize,
    /// Most options to choose.
    pub max: usize,
}

impl Choice {
    /// How many options there are (objects or labels).
    pub fn len(&self) -> usize {
        self.options.len().max(self.labels.len())
    }

    /// Whether there is nothing to choose from.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Why a controller gave no usable answer. Inside a command the error fails it (rolled
/// back, as [`RuleError::Choice`](crate::RuleError::Choice)); in a match it ends the match
/// (as [`PlayError::Agent`](crate::play::PlayError::Agent)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ControllerError {
    /// The controller does not answer this kind of question (one that answers choices
    /// but does not play moves).
    #[error("{0}")]
    Unsupported(String),
    /// It has no answer: a script ran out, or names something that is not an option.
    #[error("{0}")]
    NoAnswer(String),
    /// Its answer does not fit the question: an option that does not exist or repeats,
    /// too few or too many, a number out of range.
    #[error("{0}")]
    Invalid(String),
    /// The player behind it is gone (disconnected, or did not answer in time).
    #[error("{0}")]
    Disconnected(String),
    /// It was asked while already answering (a choice inside a choice).
    #[error("the controller is busy (a choice inside a choice)")]
    Busy,
}

/// Plays for a player: answers choices inside commands (targets, modes) and, in a match,
/// picks the player's next move. Returns indices; an `Err` fails the command (rolled
/// back) with the error.
pub trait Controller {
    /// Makes a choice: indices into `choice.options`.
    fn choose(&mut self, world: &World, choice: &Choice) -> Result<Vec<usize>, ControllerError>;

    /// Picks one of `moves` (never empty) for player `me` and returns its index. `game`
    /// may be used to look ahead with [`Game::try_move`](super::Game::try_move). By
    /// default a controller does not play moves (it only answers choices).
    fn choose_move(
        &mut self,
        game: &mut super::Game,
        me: ObjId,
        moves: &[MoveOption],
    ) -> Result<usize, ControllerError> {
        let _ = (game, me, moves);
        Err(ControllerError::Unsupported(
            "this controller answers choices but does not play moves".into(),
        ))
    }

    /// Scripts a random pick (`pick = "random"` or `{ random = N }`): returns indices into
    /// `options` (`n` of them), or `None` to let the world's seeded RNG pick, which is
    /// the default. Tests use it to fix what a random effect picks; an `Err` fails the
    /// command (rolled back) with the message.
    fn random_pick(
        &mut self,
        world: &World,
        options: &[ObjId],
        n: usize,
    ) -> Option<Result<Vec<usize>, ControllerError>> {
        let _ = (world, options, n);
        None
    }

    /// Scripts a random draw that is not a pick among objects: one of a list of labels
    /// (a class `create` picks from a list) or a number in a range (a die, a chance roll).
    /// Returns the label's index or the number, or `None` to let the world's seeded RNG
    /// draw, which is the default. An `Err` fails the command (rolled back).
    fn random_draw(
        &mut self,
        world: &World,
        draw: &RandomDraw<'_>,
    ) -> Option<Result<i64, ControllerError>> {
        let _ = (world, draw);
        None
    }

    /// A short name for logs and recordings (`random`, `greedy`, `scripted`).
    fn name(&self) -> String {
        "controller".into()
    }
}

/// A random draw the engine makes that is not a pick among objects (those go to
/// [`Controller::random_pick`]); a controller may script it with
/// [`Controller::random_draw`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RandomDraw<'a> {
    /// One of these labels (class ids, for a `create` from a list); the answer is an index.
    OneOf(&'a [String]),
    /// A number from `lo` to `hi` inclusive (a die's face, a chance roll); the answer is
    /// the number.
    Number {
        /// The smallest number drawn.
        lo: i64,
        /// The largest number drawn.
        hi: i64,
    },
}

impl RandomDraw<'_> {
    /// Checks a scripted answer: an index among the labels, or a number in the range.
    pub fn check(&self, answer: i64) -> Result<i64, ControllerError> {
        match self {
            RandomDraw::OneOf(labels) => {
                if usize::try_from(answer).is_ok_and(|i| i < labels.len()) {
                    Ok(answer)
                } else {
                    Err(ControllerError::Invalid(format!(
                        "scripted random draw {answer} is not one of the {} options",
                        labels.len()
                    )))
                }
            }
            RandomDraw::Number { lo, hi } => {
                if (*lo..=*hi).contains(&answer) {
                    Ok(answer)
                } else {
                    Err(ControllerError::Invalid(format!(
                        "scripted random number {answer} is not between {lo} and {hi}"
                    )))
                }
            }
        }
    }
}

/// One scripted answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Answer {
    /// Choose these objects (must be among the options).
    Objects(Vec<ObjId>),
    /// Choose these option indices.
    Indices(Vec<usize>),
}

/// Answers from a script, in order; for tests and replays.
#[derive(Debug, Clone, Default)]
pub struct ScriptedController {
    answers: VecDeque<Answer>,
    /// Every prompt asked so far.
    pub asked: Vec<String>,
}

impl ScriptedController {
    /// A controller that will give these answers in order.
    pub fn new(answers: impl IntoIterator<Item = Answer>) -> ScriptedController {
        ScriptedController {
            answers: answers.into_iter().collect(),
            asked: Vec::new(),
        }
    }

    /// Queues more answers.
    pub fn push(&mut self, a: Answer) {
        self.answers.push_back(a);
    }

    /// Answers not used yet.
    pub fn remaining(&self) -> usize {
        self.answers.len()
    }
}

impl Controller for ScriptedController {
    fn name(&self) -> String {
        "scripted".into()
    }

    fn choose(&mut self, _world: &World, choice: &Choice) -> Result<Vec<usize>, ControllerError> {
        self.asked.push(choice.prompt.clone());
        match self.answers.pop_front() {
            None => Err(ControllerError::NoAnswer(format!(
                "no scripted answer left for `{}` (options: {:?})",
                choice.prompt, choice.options
            ))),
            Some(Answer::Indices(i)) => Ok(i),
            Some(Answer::Objects(objs)) => objs
                .iter()
                .map(|o| {
                    choice.options.iter().position(|x| x == o).ok_or_else(|| {
                        ControllerError::NoAnswer(format!(
                            "scripted answer {o} is not one of the options for `{}` ({:?})",
                            choice.prompt, choice.options
                        ))
                    })
                })
                .collect(),
        }
    }
}

/// Chooses uniformly at random (distinct options, as many as allowed) from its own
/// seeded RNG.
#[derive(Debug, Clone)]
pub struct RandomController {
    rng: ChaCha8Rng,
}

impl RandomController {
    /// A random controller with its own seed.
    pub fn new(seed: u64) -> RandomController {
        RandomController {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Controller for RandomController {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, _world: &World, choice: &Choice) -> Result<Vec<usize>, ControllerError> {
        let mut idx: Vec<usize> = (0..choice.len()).collect();
        let n = choice.max.min(idx.len());
        for i in 0..n {
            let span = u64::try_from(idx.len() - i).unwrap_or(1);
            let j = i + usize::try_from(self.rng.next_u64() % span).unwrap_or(0);
            idx.swap(i, j);
        }
        idx.truncate(n);
        Ok(idx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(n: u32, k: usize) -> Choice {
        Choice {
            chooser: None,
            prompt: "p".into(),
            options: (0..n)
                .map(|i| ObjId {
                    index: i,
                    generation: 0,
                })
                .collect(),
            labels: Vec::new(),
            min: k,
            max: k,
        }
    }

    #[test]
    fn random_controller_is_seeded_and_legal() {
        let w = World::new(0);
        let a = RandomController::new(7).choose(&w, &choice(10, 3)).unwrap();
        let b = RandomController::new(7).choose(&w, &choice(10, 3)).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 3);
        let mut d = a.clone();
        d.dedup();
        assert_eq!(d.len(), 3);
    }

    #[test]
    fn scripted_controller_maps_objects_and_runs_out_cleanly() {
        let w = World::new(0);
        let c = choice(3, 1);
        let mut s = ScriptedController::new([Answer::Objects(vec![c.options[2]])]);
        assert_eq!(s.choose(&w, &c).unwrap(), vec![2]);
        let err = s.choose(&w, &c).unwrap_err();
        assert!(matches!(err, ControllerError::NoAnswer(_)), "{err:?}");
        assert!(err.to_string().contains("no scripted answer"));
    }
}
