//! Equipment (301.5): `K:Equip N` (an Equipment's equip ability, 702.6) becomes the mtg
//! rules' tag `equip` with its cost in `equip_cost_*` and `equip_mana_value`; the rules'
//! `equip` move activates it (`content/equipment.toml`). The Equipment's static abilities
//! over `Creature.EquippedBy` are class auras over the rules' `equipped` ([`crate::statics`]).

use serde_json::{json, Value};

/// `Equip 2`, `Equip 1 W` (the keyword as Forge writes it) → the tag and the cost
/// properties; `None` for another keyword, `Err` for a cost the rules cannot pay.
pub fn equip(keyword: &str) -> Option<Result<(String, Vec<(String, Value)>), String>> {
    let cost = keyword.strip_prefix("Equip ")?;
    Some(
        cost_parts("equip", cost)
            .map(|props| ("equip".to_owned(), props))
            .ok_or_else(|| format!("K:{keyword}")),
    )
}

/// A mana cost written `2 W W` → `<what>_cost_generic`, `<what>_cost_w`, ... and
/// `<what>_mana_value` (`equip`, `ninjutsu`); `None` with another symbol.
pub fn cost_parts(what: &str, cost: &str) -> Option<Vec<(String, Value)>> {
    let mut generic = 0i64;
    let mut coloured: Vec<(char, i64)> = "wubrgc".chars().map(|c| (c, 0)).collect();
    for symbol in cost.split_whitespace() {
        match symbol.parse::<i64>() {
            Ok(n) if n >= 0 => generic += n,
            _ => {
                let c = symbol
                    .to_ascii_lowercase()
                    .chars()
                    .next()
                    .filter(|_| symbol.len() == 1)?;
                coloured.iter_mut().find(|(k, _)| *k == c)?.1 += 1;
            }
        }
    }
    let total = generic + coloured.iter().map(|(_, n)| n).sum::<i64>();
    let mut props = vec![(format!("{what}_cost_generic"), json!(generic))];
    props.extend(
        coloured
            .iter()
            .map(|(c, n)| (format!("{what}_cost_{c}"), json!(n))),
    );
    props.push((format!("{what}_mana_value"), json!(total)));
    Some(props)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equip_costs() {
        let (tag, props) = equip("Equip 2").unwrap().unwrap();
        assert_eq!(tag, "equip");
        assert!(props.contains(&("equip_cost_generic".into(), json!(2))));
        assert!(props.contains(&("equip_mana_value".into(), json!(2))));
        let (_, props) = equip("Equip 1 W").unwrap().unwrap();
        assert!(props.contains(&("equip_cost_w".into(), json!(1))));
        assert!(props.contains(&("equip_mana_value".into(), json!(2))));
        assert!(equip("Equip X").unwrap().is_err());
        assert!(equip("Flying").is_none());
    }
}
