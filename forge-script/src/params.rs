//! `Param$ Value | Param$ Value` lists: the shape of every ability, trigger, static,
//! replacement and most SVars.

/// An ordered list of `Param$ Value` pairs (the first is the API for abilities:
/// `SP$ DealDamage`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Params(pub Vec<(String, String)>);

impl Params {
    /// The value of `key` (first occurrence).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The parameter names not in `known`, in order (what a translator does not handle).
    pub fn keys_outside<'a>(&'a self, known: &'a [&str]) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| !known.contains(k))
    }

    /// Parses `Mode$ Continuous | Affected$ Creature`; returns the pairs and the
    /// segments that are not `Param$ Value` (for a diagnostic).
    pub(crate) fn parse(text: &str) -> (Params, Vec<String>) {
        let mut pairs = Vec::new();
        let mut bad = Vec::new();
        // Forge splits on `|` alone (`Defined$ TriggeredDefender| NumDmg$ 1` is two).
        for seg in text.split('|') {
            let seg = seg.trim();
            if seg.is_empty() {
                continue;
            }
            match seg.split_once('$') {
                Some((k, v)) if is_key(k.trim()) => {
                    pairs.push((k.trim().to_owned(), v.trim().to_owned()));
                }
                _ => bad.push(seg.to_owned()),
            }
        }
        (Params(pairs), bad)
    }

    /// Whether text looks like a parameter list (an SVar may be one, or a plain value
    /// such as `Count$CardPower` or `True`).
    pub(crate) fn looks_like(text: &str) -> bool {
        text.split_once('$')
            .is_some_and(|(k, _)| is_key(k.trim()) && !k.trim().is_empty())
            && text.contains("$ ")
    }
}

/// A parameter name: letters and digits (`NumDmg`, `ValidTgts`, `SP`).
fn is_key(k: &str) -> bool {
    !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_in_order_and_bad_segments_apart() {
        let (p, bad) = Params::parse("SP$ DealDamage | NumDmg$ 3 | oops | TgtPrompt$ a | b");
        assert_eq!(p.get("SP"), Some("DealDamage"));
        assert_eq!(p.get("NumDmg"), Some("3"));
        assert!(p.keys_outside(&["SP", "NumDmg"]).eq(["TgtPrompt"]));
        assert_eq!(p.get("TgtPrompt"), Some("a"));
        assert_eq!(bad, ["oops", "b"]);
    }

    #[test]
    fn which_svars_are_parameter_lists() {
        assert!(Params::looks_like("DB$ Draw | NumCards$ 1"));
        assert!(!Params::looks_like("Count$CardPower"));
        assert!(!Params::looks_like("True"));
    }
}
