//! Mana costs: `ManaCost:2 W W`, `X R`, hybrid `W/U` (also written `WU`), two-or-colour
//! `2/W`, Phyrexian `W/P`, and `no cost`.

/// One mana symbol of a cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shard {
    /// `{N}`: N of any mana.
    Generic(u32),
    /// `{W}`, `{U}`, `{B}`, `{R}`, `{G}`, colourless `{C}` or snow `{S}`.
    Colored(char),
    /// `{X}` (also `Y`, `Z`): a number chosen on casting.
    Variable(char),
    /// `{W/U}`: either colour.
    Hybrid(char, char),
    /// `{2/W}`: two generic or one of the colour.
    TwoOr(char),
    /// `{W/P}`: the colour or 2 life.
    Phyrexian(char),
}

/// A parsed mana cost (`None` cost, `no cost`, is an empty list with `castable` false).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManaCost {
    /// The symbols, in the order written.
    pub shards: Vec<Shard>,
    /// `false` for `no cost` (the card cannot be cast for mana).
    pub castable: bool,
}

const COLOURS: &str = "WUBRG";

impl ManaCost {
    /// Parses a cost; an unknown symbol is returned as the error.
    pub(crate) fn parse(text: &str) -> Result<ManaCost, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("no cost") {
            return Ok(ManaCost {
                shards: Vec::new(),
                castable: false,
            });
        }
        let shards = text
            .split_whitespace()
            .map(shard)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ManaCost {
            shards,
            castable: true,
        })
    }

    /// The mana value (X counts 0; hybrid 1; two-or-colour 2; Phyrexian 1).
    pub fn mana_value(&self) -> u32 {
        self.shards
            .iter()
            .map(|s| match s {
                Shard::Generic(n) => *n,
                Shard::Variable(_) => 0,
                Shard::TwoOr(_) => 2,
                _ => 1,
            })
            .sum()
    }
}

/// One symbol.
fn shard(s: &str) -> Result<Shard, String> {
    let up = s.to_ascii_uppercase();
    let chars: Vec<char> = up.chars().collect();
    let colour = |c: char| COLOURS.contains(c);
    Ok(match chars.as_slice() {
        _ if up.chars().all(|c| c.is_ascii_digit()) => {
            Shard::Generic(up.parse().map_err(|_| s.to_owned())?)
        }
        [c] if colour(*c) || *c == 'C' || *c == 'S' => Shard::Colored(*c),
        [c] if "XYZ".contains(*c) => Shard::Variable(*c),
        [a, '/', 'P'] | ['P', '/', a] if colour(*a) => Shard::Phyrexian(*a),
        ['2', '/', c] if colour(*c) => Shard::TwoOr(*c),
        [a, '/', b] | [a, b] if colour(*a) && colour(*b) && a != b => Shard::Hybrid(*a, *b),
        _ => return Err(s.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_symbol() {
        let c = ManaCost::parse("X 2 W W/U GW 2/R B/P C").unwrap();
        assert_eq!(
            c.shards,
            [
                Shard::Variable('X'),
                Shard::Generic(2),
                Shard::Colored('W'),
                Shard::Hybrid('W', 'U'),
                Shard::Hybrid('G', 'W'),
                Shard::TwoOr('R'),
                Shard::Phyrexian('B'),
                Shard::Colored('C'),
            ]
        );
        assert_eq!(c.mana_value(), 2 + 1 + 1 + 1 + 2 + 1 + 1);
        assert!(!ManaCost::parse("no cost").unwrap().castable);
        assert_eq!(ManaCost::parse("2 Q"), Err("Q".into()));
    }
}
