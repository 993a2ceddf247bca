//! One face of a card: reading its `Key:Value` lines, and the checks that need the
//! whole face (required keys, SVars that are named but never defined).

use crate::mana::ManaCost;
use crate::params::Params;
use crate::{Diagnostic, Script, Severity};

/// The keys a face line may start with (Forge's `Card-scripting-API.md`).
const KEYS: &[&str] = &[
    "Name",
    "ManaCost",
    "Types",
    "PT",
    "Loyalty",
    "Defense",
    "Colors",
    "K",
    "A",
    "T",
    "S",
    "R",
    "SVar",
    "Oracle",
    "Text",
    "AlternateMode",
    "AI",
    "DeckHints",
    "DeckNeeds",
    "DeckHas",
];

/// Parameters whose value names an SVar of the same face.
const SVAR_REFS: &[&str] = &["SubAbility", "Execute", "ReplaceWith"];
/// Parameters whose value is a comma-separated list of SVar names.
/// (`Choices$` only for `Charm`: elsewhere it is a card filter.)
const SVAR_LISTS: &[&str] = &["StaticAbilities", "Triggers"];

/// What an `A:` line (or an SVar holding an ability) is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AbilityKind {
    /// `SP$`: the card's spell.
    Spell,
    /// `AB$`: an activated ability (with a `Cost$`).
    Activated,
    /// `DB$`: a sub-ability, reached through `SubAbility$` or `Execute$`.
    Sub,
    /// Triggers (`Mode$ ChangesZone`), statics, replacements: no API key.
    Other,
}

/// An ability, trigger, static or replacement line: its parameters and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ability {
    /// Spell, activated, sub-ability or other.
    pub kind: AbilityKind,
    /// The API (`DealDamage`, `Draw`, `Pump`) for spells and abilities; the `Mode$` for
    /// triggers, statics and replacements.
    pub api: Option<String>,
    /// Every parameter, in order (the API pair included).
    pub params: Params,
    /// 1-based line.
    pub line: usize,
}

/// A keyword line: `K:Flying`, `K:Equip:2`, `K:Protection from red`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyword {
    /// The keyword.
    pub name: String,
    /// Its `:`-separated parameters.
    pub params: Vec<String>,
    /// 1-based line.
    pub line: usize,
}

/// A named variable: a sub-ability (`DB$ Draw | ...`), a count (`Count$CardPower`) or a
/// flag for the AI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SVar {
    /// Its name.
    pub name: String,
    /// The text after the second `:`.
    pub value: String,
    /// The value as an ability, when it is a parameter list.
    pub ability: Option<Ability>,
    /// 1-based line.
    pub line: usize,
}

/// One face of a card.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Face {
    /// `Name`.
    pub name: String,
    /// `ManaCost` (absent only on faces that give `Colors`).
    pub mana_cost: Option<ManaCost>,
    /// `Types`: card types, supertypes and subtypes, as written.
    pub types: Vec<String>,
    /// `PT`: power and toughness as written (`*` and `1+*` kept).
    pub pt: Option<(String, String)>,
    /// `Loyalty`.
    pub loyalty: Option<String>,
    /// `Colors` (a colour indicator).
    pub colors: Vec<String>,
    /// `K:` lines.
    pub keywords: Vec<Keyword>,
    /// `A:` lines.
    pub abilities: Vec<Ability>,
    /// `T:` lines.
    pub triggers: Vec<Ability>,
    /// `S:` lines.
    pub statics: Vec<Ability>,
    /// `R:` lines.
    pub replacements: Vec<Ability>,
    /// `SVar:` lines.
    pub svars: Vec<SVar>,
    /// `Oracle` text (`\n` kept as written).
    pub oracle: Option<String>,
    /// `AlternateMode` (`Split`, `Adventure`, `DoubleFaced`, ...).
    pub alternate_mode: Option<String>,
    /// 1-based line the face starts on.
    pub line: usize,
}

impl Face {
    /// The SVar named `name`.
    pub fn svar(&self, name: &str) -> Option<&SVar> {
        self.svars.iter().find(|s| s.name == name)
    }
}

/// Adds a finding.
fn note(
    script: &mut Script,
    code: &'static str,
    severity: Severity,
    line: usize,
    message: String,
    help: Option<String>,
) {
    script.diagnostics.push(Diagnostic {
        code,
        severity,
        line,
        message,
        help,
    });
}

/// Reads one face from its lines (numbered); blank lines and comments are skipped. A face with no
/// line at all (a trailing `ALTERNATE`) adds nothing.
pub(crate) fn read(lines: &[(usize, &str)], script: &mut Script) {
    // Blank lines and `#` comments are not part of the face.
    let lines: Vec<(usize, &str)> = lines
        .iter()
        .copied()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    let Some(&(first, _)) = lines.first() else {
        return;
    };
    let mut face = Face {
        line: first,
        ..Face::default()
    };
    for &(n, line) in &lines {
        read_line(&mut face, n, line, script);
    }
    check_face(&face, script);
    script.faces.push(face);
}

fn read_line(face: &mut Face, n: usize, line: &str, script: &mut Script) {
    let Some((key, value)) = line.split_once(':') else {
        note(
            script,
            "F-BAD-LINE",
            Severity::Error,
            n,
            format!("`{line}` is not a `Key:Value` line"),
            Some(
                "write `Key:Value`, e.g. `K:Flying`; faces are separated by a line `ALTERNATE`"
                    .into(),
            ),
        );
        return;
    };
    let value = value.trim();
    match key {
        "Name" => face.name = value.to_owned(),
        "ManaCost" => match ManaCost::parse(value) {
            Ok(c) => face.mana_cost = Some(c),
            Err(bad) => note(
                script,
                "F-BAD-MANA",
                Severity::Error,
                n,
                format!("`{bad}` is not a mana symbol"),
                Some("use numbers, W U B R G C S X, hybrids `W/U`, `2/W`, Phyrexian `W/P`, or `no cost`".into()),
            ),
        },
        "Types" => face.types = value.split_whitespace().map(str::to_owned).collect(),
        "PT" => match value.split_once('/') {
            Some((p, t)) if !p.is_empty() && !t.is_empty() && is_stat(p) && is_stat(t) => {
                face.pt = Some((p.to_owned(), t.to_owned()));
            }
            _ => note(
                script,
                "F-BAD-PT",
                Severity::Error,
                n,
                format!("`PT:{value}` is not power/toughness"),
                Some("write `PT:2/3` (`*` and `1+*` for characteristic-defining values)".into()),
            ),
        },
        "Loyalty" => face.loyalty = Some(value.to_owned()),
        "Colors" => face.colors = value.split(',').map(|c| c.trim().to_owned()).collect(),
        "K" => {
            let mut parts = value.split(':');
            face.keywords.push(Keyword {
                name: parts.next().unwrap_or_default().to_owned(),
                params: parts.map(str::to_owned).collect(),
                line: n,
            });
        }
        "A" | "T" | "S" | "R" => {
            let a = ability(value, n, script);
            match key {
                "A" => face.abilities.push(a),
                "T" => face.triggers.push(a),
                "S" => face.statics.push(a),
                _ => face.replacements.push(a),
            }
        }
        "SVar" => svar(face, value, n, script),
        "Oracle" => face.oracle = Some(value.to_owned()),
        "AlternateMode" => face.alternate_mode = Some(value.to_owned()),
        _ if KEYS.contains(&key) => {}
        _ => note(
            script,
            "F-UNKNOWN-KEY",
            Severity::Warning,
            n,
            format!("`{key}` is not a card script key; the line is ignored"),
            Some(format!("the keys are: {}", KEYS.join(", "))),
        ),
    }
}

/// `2`, `*`, `1+*`, `-1`: a power or toughness as Forge writes it.
fn is_stat(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_digit() || "*+-".contains(c))
}

/// Parses an ability-shaped value; bad segments become findings.
fn ability(value: &str, n: usize, script: &mut Script) -> Ability {
    let (params, bad) = Params::parse(value);
    for b in bad {
        note(
            script,
            "F-BAD-PARAM",
            Severity::Error,
            n,
            format!("`{b}` is not a `Param$ Value` pair"),
            Some("separate parameters with ` | ` and write each as `Name$ Value`".into()),
        );
    }
    let first = params.0.first().map(|(k, v)| (k.as_str(), v.clone()));
    let (kind, api) = match first {
        Some(("SP", v)) => (AbilityKind::Spell, Some(v)),
        Some(("AB", v)) => (AbilityKind::Activated, Some(v)),
        Some(("DB", v)) => (AbilityKind::Sub, Some(v)),
        _ => (AbilityKind::Other, params.get("Mode").map(str::to_owned)),
    };
    Ability {
        kind,
        api,
        params,
        line: n,
    }
}

/// `SVar:Name:Value`.
fn svar(face: &mut Face, value: &str, n: usize, script: &mut Script) {
    let Some((name, v)) = value.split_once(':') else {
        note(
            script,
            "F-BAD-LINE",
            Severity::Error,
            n,
            format!("`SVar:{value}` has no value"),
            Some("write `SVar:Name:Value`".into()),
        );
        return;
    };
    let ability = Params::looks_like(v).then(|| ability(v, n, script));
    face.svars.push(SVar {
        name: name.trim().to_owned(),
        value: v.to_owned(),
        ability,
        line: n,
    });
}

/// Whole-face checks: required keys, and SVars named by parameters but not defined.
fn check_face(face: &Face, script: &mut Script) {
    for (present, key, example) in [
        (!face.name.is_empty(), "Name", "Name:Grizzly Bears"),
        (!face.types.is_empty(), "Types", "Types:Creature Bear"),
        (
            face.mana_cost.is_some() || !face.colors.is_empty(),
            "ManaCost",
            "ManaCost:1 G",
        ),
    ] {
        if !present {
            note(
                script,
                "F-MISSING-KEY",
                Severity::Error,
                face.line,
                format!("the face starting here has no `{key}`"),
                Some(format!("add a line such as `{example}`")),
            );
        }
    }
    let lines = face
        .abilities
        .iter()
        .chain(&face.triggers)
        .chain(&face.statics)
        .chain(&face.replacements)
        .chain(face.svars.iter().filter_map(|s| s.ability.as_ref()));
    for a in lines {
        for (k, v) in &a.params.0 {
            let charm = k == "Choices" && a.api.as_deref() == Some("Charm");
            let names: Vec<&str> = if SVAR_REFS.contains(&k.as_str()) {
                vec![v.as_str()]
            } else if SVAR_LISTS.contains(&k.as_str()) || charm {
                v.split(',').map(str::trim).collect()
            } else {
                continue;
            };
            for name in names.into_iter().filter(|n| face.svar(n).is_none()) {
                note(
                    script,
                    "F-UNDEFINED-SVAR",
                    Severity::Error,
                    a.line,
                    format!("`{k}$ {v}` names `{name}`, which this face does not define"),
                    Some(format!(
                        "add `SVar:{name}:DB$ ...` to the face, or fix the name"
                    )),
                );
            }
        }
    }
}
