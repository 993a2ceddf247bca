//! Hybrid mana costs (107.4e). Firemox writes a permanent with hybrid symbols (Wistful
//! Selkie's `{G/U}{G/U}{G/U}`) without `cast-spell`: one hand ability `playable="this"`
//! per way to pay, each exactly `cast-spell` with a fixed `<pay-mana>` (`blue="3"`,
//! `blue="2" green="1"`, ...) and `put-in-play`, and its `colorless` register holds the
//! mana value. When those ways are exactly every split of N symbols between one pair of
//! colours over a common part, the card gets the mtg rules' hybrid cost instead
//! (`cost_h_<pair>` = N, `cost_hybrid` = N, the common part in `cost_generic` and
//! `cost_w` ... `cost_g`), and is cast with the rules' own moves.

use firemox_xml::{Card as Xml, Element, Fragments};
use serde_json::{json, Map, Value};

use crate::card::plain_list;

/// The cost parts of one way to pay: generic, then W, U, B, R, G.
type Mana = [i64; 6];

/// The colour letters in the order of [`Mana`]'s coloured parts (and of the mtg rules'
/// pair names: `wu`, `wb`, ... `rg`).
const LETTERS: [char; 5] = ['w', 'u', 'b', 'r', 'g'];

/// Whether `a` is a hand ability casting the card for a fixed mana payment (its
/// `<pay-mana>` as [`Mana`]).
fn cast_for(f: &Fragments, a: &Element) -> Option<Mana> {
    if a.name != "activated-ability"
        || a.from_ref.is_some()
        || a.attr("zone") != Some("hand")
        || a.attr("playable") != Some("this")
        || a.attrs
            .iter()
            .any(|(k, _)| !matches!(k.as_str(), "zone" | "playable" | "name"))
    {
        return None;
    }
    let [cost, effects] = a.children.as_slice() else {
        return None;
    };
    if cost.name != "cost" || effects.name != "effects" {
        return None;
    }
    if !plain_list(f, "action", "put-in-play", &effects.children) {
        return None;
    }
    let [pay] = cost.children.as_slice() else {
        return None;
    };
    if pay.name != "pay-mana" || !pay.children.is_empty() {
        return None;
    }
    let mut m: Mana = [0; 6];
    for (k, v) in &pay.attrs {
        let n = v.parse::<i64>().ok().filter(|n| (0..=20).contains(n))?;
        let slot = match k.as_str() {
            "colorless" => 0,
            "white" => 1,
            "blue" => 2,
            "black" => 3,
            "red" => 4,
            "green" => 5,
            _ => return None,
        };
        m[slot] += n;
    }
    Some(m)
}

/// The hybrid cost the ways to pay `ways` spell out: the common part, the pair's colour
/// slots (1..=5 in [`Mana`]) and the number of hybrid symbols; `None` unless the ways are
/// exactly the N + 1 splits of N symbols of one pair.
fn hybrid(ways: &[Mana]) -> Option<(Mana, (usize, usize), i64)> {
    let mut common: Mana = ways.first().copied()?;
    for w in ways {
        for (c, x) in common.iter_mut().zip(w) {
            *c = (*c).min(*x);
        }
    }
    let rest: Vec<Mana> = ways
        .iter()
        .map(|w| std::array::from_fn(|i| w[i] - common[i]))
        .collect();
    let used: Vec<usize> = (1..6).filter(|&i| rest.iter().any(|r| r[i] > 0)).collect();
    let [a, b] = used.as_slice() else {
        return None;
    };
    let n = rest[0].iter().sum::<i64>();
    let all_splits = n > 0
        && rest.len() == usize::try_from(n + 1).ok()?
        && (0..=n).all(|i| {
            rest.iter()
                .any(|r| r[*a] == i && r[*b] == n - i && r.iter().sum::<i64>() == n)
        });
    all_splits.then_some((common, (*a, *b), n))
}

/// When the card's hand abilities are the ways to pay a hybrid cost, sets its cost
/// properties in `props` and returns true (those abilities are then translated); else
/// changes nothing. A card with `cast-spell` too is left alone.
pub fn cost(card: &Xml, f: &Fragments, props: &mut Map<String, Value>) -> bool {
    let hand: Vec<&Element> = card
        .abilities
        .iter()
        .filter(|a| a.name == "activated-ability" && a.attr("zone") == Some("hand"))
        .collect();
    let has_cast_spell = card
        .abilities
        .iter()
        .any(|a| a.from_ref.as_deref() == Some("cast-spell"));
    if hand.len() < 2 || has_cast_spell || card.is("instant") || card.is("sorcery") {
        return false;
    }
    let Some(ways) = hand
        .iter()
        .map(|a| cast_for(f, a))
        .collect::<Option<Vec<_>>>()
    else {
        return false;
    };
    let Some((common, (a, b), n)) = hybrid(&ways) else {
        return false;
    };
    let total = common.iter().sum::<i64>() + n;
    if card.register("colorless").unwrap_or(0) != total {
        return false;
    }
    props.insert("cost_generic".into(), json!(common[0]));
    for (i, c) in LETTERS.iter().enumerate() {
        props.insert(format!("cost_{c}"), json!(common[i + 1]));
    }
    props.insert(
        format!("cost_h_{}{}", LETTERS[a - 1], LETTERS[b - 1]),
        json!(n),
    );
    props.insert("cost_hybrid".into(), json!(n));
    props.insert("mana_value".into(), json!(total));
    true
}

/// Whether `a` is one of the ways to pay that [`cost`] turned into a hybrid cost.
pub fn is_way_to_pay(f: &Fragments, a: &Element) -> bool {
    cast_for(f, a).is_some()
}

#[cfg(test)]
mod tests {
    use super::hybrid;

    #[test]
    fn three_symbols_of_one_pair_over_one_generic() {
        // {1}{G/W}{G/W}{G/W}: generic 1, then W and G splits.
        let ways = [
            [1, 3, 0, 0, 0, 0],
            [1, 2, 0, 0, 0, 1],
            [1, 1, 0, 0, 0, 2],
            [1, 0, 0, 0, 0, 3],
        ];
        let (common, pair, n) = hybrid(&ways).expect("a hybrid cost");
        assert_eq!(common, [1, 0, 0, 0, 0, 0]);
        assert_eq!(pair, (1, 5));
        assert_eq!(n, 3);
    }

    #[test]
    fn a_missing_split_is_not_hybrid() {
        let ways = [[0, 2, 0, 0, 0, 0], [0, 0, 0, 0, 0, 2]];
        assert!(hybrid(&ways).is_none());
    }

    #[test]
    fn three_colours_are_not_one_pair() {
        let ways = [[0, 1, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0]];
        assert!(hybrid(&ways).is_none());
    }
}
