//! What the translation reads from outside the file it translates: FreeOrion's game
//! rules (`focs/game_rules.txt` of the freeorion mod) and named values other files define.

use std::collections::BTreeMap;

/// Values the translation needs from outside the file: FreeOrion's game rules
/// (`GameRule name = "RULE_TECH_COST_FACTOR"`) and the named values other files define
/// (`NamedRealLookup name = "FU_RAMSCOOP_REFUEL"`), by name.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    /// Game rule values (and the mod's values for names the content never defines).
    pub game_rules: BTreeMap<String, f64>,
    /// Named values defined in other files ([`Rules::add_named_values`]).
    pub named: BTreeMap<String, f64>,
}

impl Rules {
    /// Adds the named values a file of FreeOrion's named-value definitions gives a number:
    /// `NamedReal(name="FU_RAMSCOOP_REFUEL", value=0.4)` and `NamedInteger(…)` (its
    /// `scripting/macros/named_values.focs.py`), or FOCS's `NamedReal name = "X" value = 0.4`.
    /// A definition whose value is not a plain number is skipped (a lookup of it stays
    /// unsupported, reported where it is used). Returns how many were added.
    pub fn add_named_values(&mut self, text: &str) -> usize {
        let mut added = 0;
        for kind in ["NamedReal", "NamedInteger"] {
            let mut rest = text;
            while let Some(at) = rest.find(kind) {
                rest = &rest[at + kind.len()..];
                if let Some((name, value)) = named_definition(rest) {
                    self.named.insert(name, value);
                    added += 1;
                }
            }
        }
        added
    }

    /// Reads `NAME = number` lines (`#` starts a comment); a line that is neither is
    /// reported with its 1-based number.
    pub fn parse(text: &str) -> Result<Rules, (usize, String)> {
        let mut game_rules = BTreeMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let parsed = line
                .split_once('=')
                .and_then(|(k, v)| Some((k.trim().to_owned(), v.trim().parse::<f64>().ok()?)));
            match parsed {
                Some((k, v)) if !k.is_empty() => {
                    game_rules.insert(k, v);
                }
                _ => return Err((i + 1, format!("`{line}` is not `NAME = number`"))),
            }
        }
        Ok(Rules {
            game_rules,
            named: BTreeMap::new(),
        })
    }
}

/// `(name="X", value=0.4)` or ` name = "X" value = 0.4` at the start of `text` (what
/// follows `NamedReal`): the name and the value when the value is a plain number.
fn named_definition(text: &str) -> Option<(String, f64)> {
    let text = text
        .trim_start()
        .strip_prefix('(')
        .unwrap_or(text)
        .trim_start();
    let text = text
        .strip_prefix("name")?
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let text = text.strip_prefix('"')?;
    let (name, text) = text.split_once('"')?;
    let text = text.trim_start();
    let text = text.strip_prefix(',').unwrap_or(text).trim_start();
    let text = text
        .strip_prefix("value")?
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
        .unwrap_or(text.len());
    // `value=30)`, or `value = 0.4` ending its line or followed by another label: a
    // number and nothing more (`value = 0.4 * X` is not a plain number).
    let after = text[end..].lines().next().unwrap_or("").trim_start();
    if !(after.is_empty()
        || after.starts_with([')', ']'])
        || after.starts_with(char::is_alphabetic))
    {
        return None;
    }
    Some((name.to_owned(), text[..end].parse().ok()?))
}
