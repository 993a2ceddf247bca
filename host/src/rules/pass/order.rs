//! The order a pass's matched groups apply in: priority (lower first), then holder, then
//! the group's index in its class.

use super::Matched;
use crate::state::ObjId;

/// The positions of `matched` in the order they apply. Each group's place is packed in
/// one number ([`place`]) and the numbers sorted (a galaxy's turn sorts 2,000 groups:
/// comparing one number and moving 16 bytes, not a tuple of three fields and a group's
/// whole match). No two matched groups share a holder and an index, so an unstable sort
/// orders them as a stable one would.
pub(super) fn apply_order(matched: &[Matched<'_>]) -> Vec<u32> {
    let mut keyed: Vec<(u128, u32)> = matched
        .iter()
        .enumerate()
        .map(|(n, m)| {
            // A run matches far fewer than 2^32 groups.
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            (place(m.priority, m.holder, m.index), n)
        })
        .collect();
    keyed.sort_unstable_by_key(|&(place, _)| place);
    keyed.into_iter().map(|(_, n)| n).collect()
}

/// `(priority, holder, index)` as one number that orders as the tuple does: the priority
/// offset by `i32::MIN` (so negative priorities come first), the holder's slot
/// index and generation, and the index (a class has far fewer than 2^32 groups).
fn place(priority: i32, holder: ObjId, index: usize) -> u128 {
    // `priority - i32::MIN` is always within u32.
    let priority = u32::try_from(i64::from(priority) - i64::from(i32::MIN)).unwrap_or(0);
    let priority = u128::from(priority);
    let index = u128::from(u32::try_from(index).unwrap_or(u32::MAX));
    priority << 96 | u128::from(holder.index) << 64 | u128::from(holder.generation) << 32 | index
}

#[cfg(test)]
mod tests {
    use super::place;
    use crate::state::ObjId;

    #[test]
    fn places_order_as_priority_holder_index_do() {
        let holders = [(0, 0), (0, 1), (1, 0), (7, 3), (u32::MAX, u32::MAX)];
        let mut tuples = Vec::new();
        for priority in [i32::MIN, -5, -1, 0, 1, 50, i32::MAX] {
            for (index, generation) in holders {
                for n in [0usize, 1, 9] {
                    tuples.push((priority, ObjId { index, generation }, n));
                }
            }
        }
        let mut by_tuple = tuples.clone();
        by_tuple.sort();
        let mut by_place = tuples;
        by_place.sort_by_key(|&(p, h, n)| place(p, h, n));
        assert_eq!(by_place, by_tuple);
    }
}
