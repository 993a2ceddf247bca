//! The controller of one scenario step: its scripted `answers` (for `chosen` picks) and
//! `randoms` (for random picks), each a list of references resolved when the choice is
//! made. Outside a match, a choice with no answer left fails the step; inside a match it
//! takes the first options, as Hearthbreaker's testing agents do (`targets[0]`). A random
//! pick with no scripted outcome left uses the world's seeded RNG. Random draws that are
//! not picks among objects (a class `create` picks from a list, a die, a chance roll) take
//! the next `randoms` entry too: one class id (or name) or one number.

use std::collections::VecDeque;

use super::paths::{self, Names};
use crate::game::{Choice, Controller, ControllerError, RandomDraw};
use crate::state::{ObjId, World};

/// Answers and random outcomes scripted by a step.
pub(super) struct StepController {
    answers: VecDeque<Vec<String>>,
    randoms: VecDeque<Vec<String>>,
    names: Names,
    first_when_unscripted: bool,
}

impl StepController {
    /// A controller for a step; `names` is a copy of the scenario's names at its start.
    /// Every reference is checked now (a bad one is the step's error, before it runs).
    pub(super) fn new(
        answers: &[Vec<String>],
        randoms: &[Vec<String>],
        names: Names,
        first_when_unscripted: bool,
    ) -> Result<StepController, String> {
        for (what, lists) in [("answers", answers), ("randoms", randoms)] {
            for (i, list) in lists.iter().enumerate() {
                for r in list {
                    // A plain word may be an option's label (`"3"`, `"draw"`), and in
                    // `randoms` an id is a class a `create` draws: it is checked when a
                    // choice or draw gets it.
                    let maybe_label = !r.contains('.') || (what == "randoms" && r.contains(':'));
                    match paths::check(&names, r) {
                        Err(_) if maybe_label => {}
                        other => other.map_err(|m| format!("{what}[{i}]: {m}"))?,
                    }
                }
            }
        }
        Ok(StepController {
            answers: answers.iter().cloned().collect(),
            randoms: randoms.iter().cloned().collect(),
            names,
            first_when_unscripted,
        })
    }

    /// Indices of the objects `refs` name among `options`.
    fn indices(
        &self,
        world: &World,
        refs: &[String],
        options: &[ObjId],
        what: &str,
    ) -> Result<Vec<usize>, String> {
        let mut out = Vec::with_capacity(refs.len());
        for r in refs {
            let o = paths::resolve(world, &self.names, r).map_err(|m| format!("{what}: {m}"))?;
            let i = options.iter().position(|x| *x == o).ok_or_else(|| {
                let names: Vec<String> = options
                    .iter()
                    .map(|x| paths::name_of(world, &self.names, *x))
                    .collect();
                format!(
                    "{what}: `{r}` is not one of the options ({})",
                    names.join(", ")
                )
            })?;
            if out.contains(&i) {
                return Err(format!("{what}: `{r}` is scripted twice"));
            }
            out.push(i);
        }
        Ok(out)
    }
}

impl Controller for StepController {
    fn name(&self) -> String {
        "scripted".into()
    }

    fn choose(&mut self, world: &World, choice: &Choice) -> Result<Vec<usize>, ControllerError> {
        self.answer(world, choice)
            .map_err(ControllerError::NoAnswer)
    }

    fn random_pick(
        &mut self,
        world: &World,
        options: &[ObjId],
        n: usize,
    ) -> Option<Result<Vec<usize>, ControllerError>> {
        let refs = self.randoms.pop_front()?;
        if refs.len() != n {
            return Some(Err(ControllerError::NoAnswer(format!(
                "scripted random {refs:?} has {} object(s), but the random pick takes {n}",
                refs.len()
            ))));
        }
        Some(
            self.indices(world, &refs, options, "scripted random")
                .map_err(ControllerError::NoAnswer),
        )
    }

    fn random_draw(
        &mut self,
        _world: &World,
        draw: &RandomDraw<'_>,
    ) -> Option<Result<i64, ControllerError>> {
        let refs = self.randoms.pop_front()?;
        Some(scripted_draw(&refs, draw).map_err(ControllerError::NoAnswer))
    }
}

impl StepController {
    /// The next scripted answer to `choice`, or the first options when unscripted inside
    /// a match.
    fn answer(&mut self, world: &World, choice: &Choice) -> Result<Vec<usize>, String> {
        match self.answers.pop_front() {
            Some(refs) if choice.options.is_empty() => label_indices(&refs, choice),
            Some(refs) => self.indices(
                world,
                &refs,
                &choice.options,
                &format!("scripted answer for `{}`", choice.prompt),
            ),
            None if self.first_when_unscripted => Ok((0..choice.max.min(choice.len())).collect()),
            None => {
                let names: Vec<String> = if choice.options.is_empty() {
                    choice.labels.clone()
                } else {
                    choice
                        .options
                        .iter()
                        .map(|x| paths::name_of(world, &self.names, *x))
                        .collect()
                };
                Err(format!(
                    "no scripted answer left for `{}` (options: {}); add one to the step's `answers`",
                    choice.prompt,
                    names.join(", ")
                ))
            }
        }
    }
}

/// A scripted random draw that is not a pick among objects: one entry, a label (class id
/// or name) or a number.
fn scripted_draw(refs: &[String], draw: &RandomDraw<'_>) -> Result<i64, String> {
    let [r] = refs else {
        return Err(format!(
            "scripted random {refs:?} has {} entries, but a random draw takes one",
            refs.len()
        ));
    };
    match draw {
        // A class by its id, or by its name alone (`spare_part_armor`).
        RandomDraw::OneOf(labels) => labels
            .iter()
            .position(|l| l == r || l.rsplit('/').next() == Some(r.as_str()))
            .map(|i| i64::try_from(i).unwrap_or(i64::MAX))
            .ok_or_else(|| {
                format!(
                    "scripted random `{r}` is not one of the options ({})",
                    labels.join(", ")
                )
            }),
        RandomDraw::Number { lo, hi } => r.parse::<i64>().map_err(|_| {
            format!(
                "scripted random `{r}` is not a number; this draw is a number from {lo} to {hi}"
            )
        }),
    }
}

/// A scripted answer to a choice among labels (a number, a mode): each answer is a label
/// as written.
fn label_indices(answers: &[String], choice: &Choice) -> Result<Vec<usize>, String> {
    answers
        .iter()
        .map(|a| {
            choice.labels.iter().position(|l| l == a).ok_or_else(|| {
                format!(
                    "scripted answer `{a}` is not one of the options for `{}` ({})",
                    choice.prompt,
                    choice.labels.join(", ")
                )
            })
        })
        .collect()
}
