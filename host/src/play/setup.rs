//! Setting a match up: the random decks dealt to the players, and the trial match that
//! tells whether a staged generation is still a playable game.

use std::collections::HashMap;

use super::{Match, PlayError, Translate};
use crate::game::Controller;
use crate::game::Game;
use crate::id::Id;
use crate::rules::{DeckDef, Generation};
use crate::state::ObjId;

/// Deals each player a random deck of `deck.size` classes tagged `deck.tag` (at most
/// `deck.copies` of each), from the world's seeded RNG.
pub(super) fn deal_decks(
    game: &mut Game,
    gen: &Generation,
    deck: &DeckDef,
    players: &[ObjId],
) -> Result<(), PlayError> {
    let pool = deck.pool.get_or_init(|| {
        let mut pool: Vec<Id> = gen
            .classes
            .values()
            .filter(|c| c.tags.contains(&deck.tag))
            .map(|c| c.id)
            .collect();
        pool.sort();
        pool
    });
    if pool.is_empty() {
        return Err(PlayError::Rules(format!(
                "no class has the tag `{}`, so no deck can be dealt; tag the cards that may go in a deck",
                deck.tag
            )));
    }
    // Every card is drawn first, then both decks are created in one command. Creating an
    // object draws nothing from the RNG, so these are the draws one spawn per card took.
    let mut cards = Vec::with_capacity(deck.size * players.len());
    for &p in players {
        // The classes still open (fewer copies dealt than the limit), in pool
        // order; a class leaves when its last allowed copy is dealt.
        let mut copies: HashMap<Id, usize> = HashMap::new();
        let mut open: Vec<Id> = if deck.copies > 0 {
            pool.clone()
        } else {
            Vec::new()
        };
        for _ in 0..deck.size {
            if open.is_empty() {
                break;
            }
            let hi = i64::try_from(open.len() - 1).unwrap_or(0);
            let i = usize::try_from(game.world().random_range(0, hi)).unwrap_or(0);
            let class = open[i];
            let dealt = copies.entry(class).or_default();
            *dealt += 1;
            if *dealt >= deck.copies {
                open.remove(i);
            }
            cards.push((class, Some(p), deck.zone));
        }
    }
    game.spawn_all(&cards)
        .map_err(PlayError::rule("dealing the decks"))?;
    Ok(())
}

/// Why a staged generation that validated would still leave the game unplayable (no
/// `[game]` any more, no cards to deal, a start event that fails), found by setting up a
/// match under it; `None` when a match starts. A reload is refused for it: deleting every
/// card is a valid set of mods but no game.
pub fn unplayable(staged: &crate::reload::Staged) -> Option<String> {
    staged
        .unplayable
        .get_or_init(|| trial_match(staged))
        .clone()
}

/// Sets up a throwaway match under the staged generation; the error if it fails.
fn trial_match(staged: &crate::reload::Staged) -> Option<String> {
    let gen = staged
        .loaded
        .generation
        .clone()
        .filter(|_| staged.is_good())?;
    let players = gen.game.as_ref().map_or(0, |g| g.players);
    let agents: Vec<Box<dyn Controller>> = (0..players)
        .map(|i| Box::new(crate::game::RandomController::new(i as u64)) as Box<dyn Controller>)
        .collect();
    let translate: Translate = std::rc::Rc::new(|_: &str| None);
    Match::new(gen, 1, agents, translate, &mut |_| {})
        .err()
        .map(|e| format!("a new match could not start under it: {e}"))
}
