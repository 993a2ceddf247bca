//! Declared property keys (`[properties]` in content): gathering every loaded mod's
//! declarations, and warning when a class sets a key that no mod declares, with a
//! did-you-mean. Nothing is checked while no mod declares properties, so content written
//! before declarations existed loads as it did.

use std::collections::{HashMap, HashSet};

use super::{Compiler, ContentFile, ContentSource, OrderedAfter, PathSeg};
use crate::diag::Severity;
use crate::id::closest;
use crate::rules::ContentError;

/// Keys the engine itself reads (the default health rule), declared for every mod.
const ENGINE_KEYS: &[&str] = &["max_health", "damage", "health"];

/// For each mod that is held to declarations, the keys its classes may set. A mod is held
/// to them when it declares properties itself or is ordered after (depends on) a mod that
/// does; without a mod order (`None`), every mod is. Such a mod may set any key some
/// loaded mod declares (a mod that patches a rules mod's class declares the keys it adds).
/// A mod held to nothing is absent: its classes are not checked.
pub(super) fn visible(
    sources: &[ContentSource],
    files: &[(usize, ContentFile)],
    ordered_after: Option<OrderedAfter<'_>>,
) -> HashMap<String, HashSet<String>> {
    let mut declaring: HashSet<&str> = HashSet::new();
    let mut keys: HashSet<String> = ENGINE_KEYS.iter().map(|k| (*k).to_owned()).collect();
    for (i, f) in files {
        if !f.properties.is_empty() {
            declaring.insert(sources[*i].mod_id.as_str());
            keys.extend(f.properties.keys().cloned());
        }
        if let Some(armor) = f.world.as_ref().and_then(|w| w.armor_key.as_ref()) {
            keys.insert(armor.clone());
        }
    }
    let mut out = HashMap::new();
    if declaring.is_empty() {
        return out;
    }
    for s in sources {
        let m = s.mod_id.as_str();
        let held = declaring
            .iter()
            .any(|d| *d == m || ordered_after.is_none_or(|after| after(m, d)));
        if held && !out.contains_key(m) {
            out.insert(m.to_owned(), keys.clone());
        }
    }
    out
}

impl Compiler<'_> {
    /// Warns (`W-CONTENT-UNDECLARED-PROPERTY`) when the class at `path` sets `key` and
    /// properties are declared but `key` is not among them.
    pub(super) fn check_property_key(&mut self, class: &str, key: &str, path: &[PathSeg]) {
        let Some(declared) = self.defs.properties.get(&self.ns) else {
            return;
        };
        if declared.contains(key) {
            return;
        }
        let mut known: Vec<&str> = declared.iter().map(String::as_str).collect();
        known.sort_unstable();
        let help = match closest(key, known.iter().copied()).first() {
            Some(near) => format!(
                "did you mean `{near}`? If `{key}` is a new property, declare it: `[properties] {key} = \"what it means\"`"
            ),
            None => format!(
                "declare it in a content file: `[properties] {key} = \"what it means\"`"
            ),
        };
        let error = ContentError::new(
            "W-CONTENT-UNDECLARED-PROPERTY",
            path.to_vec(),
            format!("class `{class}` sets property `{key}`, which no loaded mod declares"),
        )
        .help(help);
        let mut d = self.diagnostic(error);
        d.severity = Severity::Warning;
        if known.len() <= 12 {
            d.notes.push(format!(
                "the loaded mods declare these properties (`[properties]`): {}",
                known.join(", ")
            ));
        }
        self.warnings.push(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceText;

    fn file(mod_id: &str, text: &str) -> (ContentSource, ContentFile) {
        let src = ContentSource::new(mod_id, SourceText::new("x.toml", text));
        (src, toml::from_str(text).unwrap())
    }

    #[test]
    fn a_mod_sees_its_own_and_its_dependencies_declarations() {
        let (s0, f0) = file(
            "rules",
            "[properties]\nattack = \"hits\"\n[world]\narmor_key = \"armor\"",
        );
        let (s1, f1) = file("cards", "[class.a]\nproperties = { atack = 1 }");
        let (s2, f2) = file("other", "[class.b]\nproperties = { anything = 1 }");
        let sources = [s0, s1, s2];
        let files = vec![(0, f0), (1, f1), (2, f2)];
        let after = |a: &str, b: &str| a == "cards" && b == "rules";
        let seen = visible(&sources, &files, Some(&after));
        let cards = &seen["cards"];
        for k in ["attack", "armor", "max_health", "damage", "health"] {
            assert!(cards.contains(k), "{k}");
        }
        assert!(!cards.contains("atack"));
        assert!(seen.contains_key("rules"));
        assert!(
            !seen.contains_key("other"),
            "no dependency declares anything for it"
        );
        // Without a mod order (a scenario's own content), every declaration counts.
        assert!(visible(&sources, &files, None).contains_key("other"));
        let (s3, f3) = file("patcher", "[properties]\nrunes = \"x\"");
        let sources = [sources[0].clone(), sources[1].clone(), s3];
        let files = vec![(0, files[0].1.clone()), (2, f3)];
        assert!(
            visible(&sources, &files, Some(&after))["rules"].contains("runes"),
            "a patcher's keys count for the class it patches"
        );
    }
}
