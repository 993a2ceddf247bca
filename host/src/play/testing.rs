//! Testing agents: the simple, predictable players of Hearthbreaker's card tests
//! (`tests/agents/testing_agents.py`), for scenario matches and `tessera run`.
//!
//! Each plays from the front of its hand, and answers every choice with the first
//! options (Hearthbreaker's `choose_target` returns `targets[0]`):
//!
//! | name | Hearthbreaker | a turn |
//! |---|---|---|
//! | `none` | `DoNothingAgent` | plays nothing |
//! | `play_first` | `OneCardPlayingAgent` | plays the first card in hand if it can (after the coin, if the coin is first) |
//! | `keep_playing` | `CardTestingAgent` | plays the first card in hand while it can |
//! | `play_and_attack` | `PlayAndAttackAgent` | plays like `keep_playing`, then the hero attacks while it can, then each minion that can attacks, in slot order |
//! | `predictable` | `PredictableAgent` | uses the hero power if it can (once), then the hero attacks, then plays like `keep_playing`, then each minion attacks |
//!
//! "Can play" means a legal move has the card as its subject (the first such move is
//! played); the agent stops at the first card it cannot play, as Hearthbreaker's do. An
//! attack is a legal attack move (the match's attack move, by default every move named
//! `attack`); its target is the first the move lists — with the game's attack target
//! order (enemy minions, then the hero; only taunts while there is one) that is
//! Hearthbreaker's rule of attacking `targets[0]`. The hero power is a legal move of the
//! match's power move (by default every move named `hero_power`).

use super::MoveOption;
use crate::game::{Choice, Controller, ControllerError, Game};
use crate::id::{Id, Sym};
use crate::state::{ObjId, World};

/// How a testing agent plays its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TestStyle {
    /// Plays nothing (`DoNothingAgent`).
    None,
    /// Plays the first card in hand once a turn, if it can (`OneCardPlayingAgent`).
    PlayFirst,
    /// Plays the first card in hand while it can (`CardTestingAgent`).
    KeepPlaying,
    /// Plays like [`TestStyle::KeepPlaying`], then attacks with the hero, then with every
    /// minion that can (`PlayAndAttackAgent`).
    PlayAndAttack,
    /// Uses the hero power (once), attacks with the hero, plays like
    /// [`TestStyle::KeepPlaying`], then attacks with every minion that can
    /// (`PredictableAgent`).
    Predictable,
}

impl TestStyle {
    /// Every style with the name scenarios use for it.
    pub const ALL: [(&'static str, TestStyle); 5] = [
        ("none", TestStyle::None),
        ("play_first", TestStyle::PlayFirst),
        ("keep_playing", TestStyle::KeepPlaying),
        ("play_and_attack", TestStyle::PlayAndAttack),
        ("predictable", TestStyle::Predictable),
    ];

    /// Whether it attacks (with the game's attack move).
    pub fn attacks(self) -> bool {
        matches!(self, TestStyle::PlayAndAttack | TestStyle::Predictable)
    }

    /// The style with this name (`none`, `play_first`, `keep_playing`, `play_and_attack`,
    /// `predictable`).
    pub fn parse(name: &str) -> Option<TestStyle> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    /// The name scenarios use for it.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, s)| *s == self)
            .map_or("none", |(n, _)| n)
    }
}

/// What a testing agent needs to know about the game.
#[derive(Debug, Clone)]
pub struct TestSetup {
    /// The zone of a player's hand (default `hand`).
    pub hand: Sym,
    /// The coin's class: `play_first` plays the coin and then the next card.
    pub coin: Option<Id>,
    /// The attack move (default: every move named `attack`, such as `arena:move/attack`).
    pub attack: Option<Id>,
    /// The hero power move `predictable` uses (default: every move named `hero_power`).
    pub power: Option<Id>,
}

impl Default for TestSetup {
    fn default() -> Self {
        TestSetup {
            hand: Sym::new("hand"),
            coin: None,
            attack: None,
            power: None,
        }
    }
}

impl TestSetup {
    /// Whether a move is an attack.
    pub fn is_attack(&self, id: Id) -> bool {
        match self.attack {
            Some(a) => a == id,
            None => id.name() == "attack",
        }
    }

    /// Whether a move is the hero power.
    pub fn is_power(&self, id: Id) -> bool {
        match self.power {
            Some(p) => p == id,
            None => id.name() == "hero_power",
        }
    }
}

/// Where a turn is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Power,
    Playing,
    HeroAttacks,
    MinionAttacks,
    Done,
}

/// A testing agent (see the module documentation).
#[derive(Debug, Clone)]
pub struct TestAgent {
    style: TestStyle,
    setup: TestSetup,
    phase: Phase,
    played: bool,
}

impl TestAgent {
    /// An agent of a style.
    pub fn new(style: TestStyle, setup: TestSetup) -> TestAgent {
        TestAgent {
            style,
            setup,
            phase: Self::first_phase(style),
            played: false,
        }
    }

    /// Its style.
    pub fn style(&self) -> TestStyle {
        self.style
    }

    fn first_phase(style: TestStyle) -> Phase {
        if style == TestStyle::Predictable {
            Phase::Power
        } else {
            Phase::Playing
        }
    }

    /// Forgets what it did this turn (a new turn starts).
    pub fn start_turn(&mut self) {
        self.phase = Self::first_phase(self.style);
        self.played = false;
    }

    /// The next move of this turn, as an index into `moves` (the legal moves of `me`),
    /// or `None` when it has nothing more to do this turn. Never picks a move that ends
    /// the turn.
    pub fn next_move(&mut self, game: &Game, me: ObjId, moves: &[MoveOption]) -> Option<usize> {
        let gen = game.generation();
        let world = game.world();
        let ends = |m: &MoveOption| gen.moves.iter().any(|d| d.id == m.id && d.ends_turn);
        loop {
            match self.phase {
                Phase::Power => {
                    // Once: the power, then the hero's attack (one pass; a hero that can
                    // attack twice attacks once here, as `PredictableAgent` does).
                    self.phase = Phase::HeroAttacks;
                    if let Some(i) = moves
                        .iter()
                        .position(|m| self.setup.is_power(m.id) && !ends(m))
                    {
                        return Some(i);
                    }
                }
                Phase::Playing => {
                    let may_play = match self.style {
                        TestStyle::None => false,
                        TestStyle::PlayFirst => !self.played,
                        TestStyle::KeepPlaying
                        | TestStyle::PlayAndAttack
                        | TestStyle::Predictable => true,
                    };
                    if may_play {
                        if let Some(card) = first_in_hand(world, me, self.setup.hand) {
                            if let Some(i) =
                                moves.iter().position(|m| m.subject == card && !ends(m))
                            {
                                let coin = world
                                    .object(card)
                                    .is_ok_and(|o| Some(o.class) == self.setup.coin);
                                // The coin comes before the card, not instead of it.
                                if !coin {
                                    self.played = true;
                                }
                                return Some(i);
                            }
                        }
                    }
                    self.phase = match self.style {
                        TestStyle::PlayAndAttack => Phase::HeroAttacks,
                        TestStyle::Predictable => Phase::MinionAttacks,
                        _ => Phase::Done,
                    };
                }
                Phase::HeroAttacks => {
                    if let Some(i) = moves
                        .iter()
                        .position(|m| m.subject == me && self.setup.is_attack(m.id) && !ends(m))
                    {
                        // `PredictableAgent` attacks with its hero once, then plays.
                        if self.style == TestStyle::Predictable {
                            self.phase = Phase::Playing;
                        }
                        return Some(i);
                    }
                    self.phase = if self.style == TestStyle::Predictable {
                        Phase::Playing
                    } else {
                        Phase::MinionAttacks
                    };
                }
                Phase::MinionAttacks => {
                    // Board order: the leftmost minion that can attack, at its first target.
                    let best = moves
                        .iter()
                        .enumerate()
                        .filter(|(_, m)| m.subject != me && self.setup.is_attack(m.id) && !ends(m))
                        .min_by_key(|(i, m)| (world.slot(m.subject), *i));
                    if let Some((i, _)) = best {
                        return Some(i);
                    }
                    self.phase = Phase::Done;
                }
                Phase::Done => return None,
            }
        }
    }
}

/// The card in slot 0 of a player's hand.
fn first_in_hand(world: &World, me: ObjId, hand: Sym) -> Option<ObjId> {
    world
        .objects_in_zone(hand)
        .filter(|o| world.object(*o).is_ok_and(|x| x.owner == Some(me)))
        .min_by_key(|o| world.slot(*o))
}

impl Controller for TestAgent {
    fn name(&self) -> String {
        self.style.name().into()
    }

    /// Its next move; when it is done, the first move that ends the turn (and it starts
    /// afresh next turn).
    fn choose_move(
        &mut self,
        game: &mut Game,
        me: ObjId,
        moves: &[MoveOption],
    ) -> Result<usize, ControllerError> {
        if let Some(i) = self.next_move(game, me, moves) {
            return Ok(i);
        }
        self.start_turn();
        let gen = game.generation();
        moves
            .iter()
            .position(|m| gen.moves.iter().any(|d| d.id == m.id && d.ends_turn))
            .ok_or_else(|| {
                ControllerError::NoAnswer(format!(
                    "the `{}` agent is done with its turn, but no legal move ends it",
                    self.style.name()
                ))
            })
    }

    /// The first options, as many as the choice takes.
    fn choose(&mut self, _world: &World, choice: &Choice) -> Result<Vec<usize>, ControllerError> {
        Ok((0..choice.max.min(choice.options.len())).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_have_names() {
        for (n, s) in TestStyle::ALL {
            assert_eq!(TestStyle::parse(n), Some(s));
            assert_eq!(s.name(), n);
        }
        assert_eq!(TestStyle::parse("play_frist"), None);
    }

    #[test]
    fn attacks_are_moves_named_attack_unless_named() {
        let attack = Id::parse("arena:move/attack").unwrap();
        let end = Id::parse("arena:move/end_turn").unwrap();
        let s = TestSetup::default();
        assert!(s.is_attack(attack) && !s.is_attack(end));
        let s = TestSetup {
            attack: Some(end),
            ..TestSetup::default()
        };
        assert!(!s.is_attack(attack) && s.is_attack(end));
    }
}
