//! Reads Forge's card scripts (`cardsfolder/**/*.txt`) into a typed model.
//!
//! A script is `Key:Value` lines — `Name`, `ManaCost`, `Types`, `PT`, `K:` keywords,
//! `A:` spells and abilities, `T:` triggers, `S:` statics, `R:` replacements, `SVar:`
//! named sub-abilities and values — with faces separated by a line `ALTERNATE`. Ability
//! lines are `Param$ Value | Param$ Value` lists. [`parse`] never fails: it returns every
//! face it could read and linter-style [`Diagnostic`]s (a stable code, the line, what to
//! do), so a loader can report them as `file:line` and still use what parsed.
//!
//! The model is Forge's vocabulary, untranslated: turning `SP$ DealDamage | NumDmg$ 3`
//! into rules is the loader's job (`plugins/forge`), not this crate's.

mod face;
mod mana;
mod params;

pub use face::{Ability, AbilityKind, Face, Keyword, SVar};
pub use mana::{ManaCost, Shard};
pub use params::Params;

/// How serious a finding is: an error means the script (or a part of it) cannot be used
/// as written; a warning means it can, but something looks wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The face or line cannot be used as written.
    Error,
    /// Usable, but suspicious (an unknown key, say).
    Warning,
}

/// One finding, linter style: a stable code, the 1-based line, what is wrong and how to
/// fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable code: `F-UNKNOWN-KEY`, `F-MISSING-KEY`, `F-UNDEFINED-SVAR`, `F-BAD-LINE`,
    /// `F-BAD-PARAM`, `F-BAD-PT`, `F-BAD-MANA`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// 1-based line in the file.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{level}[{}] line {}: {}",
            self.code, self.line, self.message
        )?;
        if let Some(h) = &self.help {
            write!(f, " (help: {h})")?;
        }
        Ok(())
    }
}

/// A whole script: its faces (one, or two and more for split, adventure and
/// double-faced cards) and what was found wrong.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    /// The faces, in file order.
    pub faces: Vec<Face>,
    /// Findings, in line order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Script {
    /// Whether it parsed without errors (warnings allowed).
    pub fn is_ok(&self) -> bool {
        !self.faces.is_empty()
            && self
                .diagnostics
                .iter()
                .all(|d| d.severity == Severity::Warning)
    }
}

/// Parses a script's text (a leading byte-order mark and CRLF line ends are accepted).
pub fn parse(text: &str) -> Script {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut script = Script::default();
    let mut lines: Vec<(usize, &str)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        if line.trim() == "ALTERNATE" {
            face::read(&lines, &mut script);
            lines.clear();
            continue;
        }
        lines.push((i + 1, line));
    }
    face::read(&lines, &mut script);
    script.diagnostics.sort_by_key(|d| d.line);
    script
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vanilla_creature() {
        let s = parse("Name:Grizzly Bears\nManaCost:1 G\nTypes:Creature Bear\nPT:2/2\nOracle:\n");
        assert!(s.is_ok(), "{:?}", s.diagnostics);
        let f = &s.faces[0];
        assert_eq!(f.name, "Grizzly Bears");
        assert_eq!(f.types, ["Creature", "Bear"]);
        assert_eq!(f.pt, Some(("2".into(), "2".into())));
        assert_eq!(f.mana_cost.as_ref().unwrap().mana_value(), 2);
    }

    #[test]
    fn two_faces_split_on_alternate() {
        let s = parse(
            "Name:A\nManaCost:R\nTypes:Instant\nAlternateMode:Split\n\nALTERNATE\n\nName:B\nManaCost:U\nTypes:Sorcery\n",
        );
        assert!(s.is_ok(), "{:?}", s.diagnostics);
        assert_eq!(s.faces.len(), 2);
        assert_eq!(s.faces[1].name, "B");
        assert_eq!(s.faces[1].line, 8);
    }

    #[test]
    fn findings_name_the_line_and_what_to_do() {
        let s = parse(
            "Name:X\nTypes:Creature\nPT:two/2\nFoo:bar\nA:SP$ DealDamage | NumDmg 3 | SubAbility$ DBNope\nno colon here\n",
        );
        let codes: Vec<(&str, usize)> = s.diagnostics.iter().map(|d| (d.code, d.line)).collect();
        assert_eq!(
            codes,
            [
                ("F-MISSING-KEY", 1),
                ("F-BAD-PT", 3),
                ("F-UNKNOWN-KEY", 4),
                ("F-BAD-PARAM", 5),
                ("F-UNDEFINED-SVAR", 5),
                ("F-BAD-LINE", 6),
            ]
        );
        assert!(!s.is_ok());
        let text = s.diagnostics[4].to_string();
        assert!(
            text.contains("`DBNope`") && text.contains("SVar:DBNope:"),
            "{text}"
        );
    }
}
