//! Reading TOML files with spans: the shared walker behind `mod.toml`, `server.toml` and
//! `mods.lock`.
//!
//! Owns turning a `toml` document into typed values while collecting *every* problem as a
//! [`Diagnostic`] with a byte span (so it renders file:line:column and the source line):
//! parse errors, unknown keys (with a did-you-mean), wrong types and missing keys. It knows
//! nothing about what the files mean; the modules that own each file decide that.

use std::ops::Range;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::diag::{Diagnostic, Location, SourceText};
use crate::id::closest;

/// The stable codes one file kind reports its structural problems under.
pub(crate) struct Codes {
    /// Not valid TOML.
    pub parse: &'static str,
    /// A key the format does not know.
    pub unknown_key: &'static str,
    /// A value of the wrong type.
    pub wrong_type: &'static str,
    /// A required key is absent.
    pub missing_key: &'static str,
}

/// Collects diagnostics for one file while its values are read.
pub(crate) struct Reader<'s> {
    pub src: &'s SourceText,
    pub codes: &'static Codes,
    pub diags: Vec<Diagnostic>,
    /// The mod the file belongs to, once known (stamped on every diagnostic).
    pub mod_id: Option<String>,
}

impl<'s> Reader<'s> {
    pub fn new(src: &'s SourceText, codes: &'static Codes) -> Reader<'s> {
        Reader {
            src,
            codes,
            diags: Vec::new(),
            mod_id: None,
        }
    }

    /// Parses the document; on failure records one parse error and returns `None`.
    pub fn parse<'i>(&mut self, text: &'i str, file_kind: &str) -> Option<Spanned<DeTable<'i>>> {
        match DeTable::parse(text) {
            Ok(t) => Some(t),
            Err(e) => {
                let msg = e
                    .message()
                    .lines()
                    .next()
                    .unwrap_or("invalid TOML")
                    .trim()
                    .to_string();
                let span = e.span().unwrap_or(0..0);
                self.push(
                    Diagnostic::error(
                        self.codes.parse,
                        format!("{file_kind} is not valid TOML: {msg}"),
                    )
                    .at(Location::span(self.src, span))
                    .with_help("fix the TOML syntax here (https://toml.io describes the format)"),
                );
                None
            }
        }
    }

    /// Records a diagnostic, stamping the mod id when known.
    pub fn push(&mut self, mut d: Diagnostic) {
        if d.mod_id.is_none() {
            d.mod_id = self.mod_id.clone();
        }
        self.diags.push(d);
    }

    /// A location in this file.
    pub fn loc(&self, span: Range<usize>) -> Location {
        Location::span(self.src, span)
    }

    /// Reports every key of `table` not in `known`, with the closest known key.
    /// `context` names the table as the user wrote it (`[mod]`, `the top level`).
    pub fn check_keys(&mut self, table: &DeTable<'_>, known: &[&str], context: &str) {
        for (key, _) in table.iter() {
            let k: &str = key.get_ref();
            if known.contains(&k) {
                continue;
            }
            let mut d = Diagnostic::error(
                self.codes.unknown_key,
                format!("unknown key `{k}` in {context}"),
            )
            .at(self.loc(key.span()))
            .with_label("unknown key");
            match closest(k, known.iter().copied()).first() {
                Some(best) => d = d.with_help(format!("did you mean `{best}`?")),
                None => {
                    d = d.with_help(format!(
                        "remove it; the keys allowed in {context} are: {}",
                        known
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
            }
            self.push(d);
        }
    }

    fn wrong_type(&mut self, v: &Spanned<DeValue<'_>>, key: &str, expected: &str, example: &str) {
        self.push(
            Diagnostic::error(
                self.codes.wrong_type,
                format!(
                    "`{key}` must be {expected}, found {}",
                    describe(v.get_ref())
                ),
            )
            .at(self.loc(v.span()))
            .with_label(format!("expected {expected}"))
            .with_help(format!("write it like `{example}`")),
        );
    }

    /// Reports a missing required key, pointing at the table that should hold it.
    pub fn missing(&mut self, span: Range<usize>, key: &str, context: &str, example: &str) {
        self.push(
            Diagnostic::error(
                self.codes.missing_key,
                format!("missing key `{key}` in {context}"),
            )
            .at(self.loc(span))
            .with_label(format!("`{key}` is required here"))
            .with_help(format!("add `{example}`")),
        );
    }

    /// A string value, or a type error.
    pub fn string(
        &mut self,
        v: &Spanned<DeValue<'_>>,
        key: &str,
        example: &str,
    ) -> Option<(String, Range<usize>)> {
        match v.get_ref().as_str() {
            Some(s) => Some((s.to_string(), v.span())),
            None => {
                self.wrong_type(v, key, "a string", example);
                None
            }
        }
    }

    /// A boolean value, or a type error.
    pub fn boolean(&mut self, v: &Spanned<DeValue<'_>>, key: &str, example: &str) -> Option<bool> {
        match v.get_ref().as_bool() {
            Some(b) => Some(b),
            None => {
                self.wrong_type(v, key, "`true` or `false`", example);
                None
            }
        }
    }

    /// A non-negative integer value, or a type error.
    pub fn unsigned(&mut self, v: &Spanned<DeValue<'_>>, key: &str, example: &str) -> Option<u64> {
        let parsed = v
            .get_ref()
            .as_integer()
            .and_then(|i| u64::from_str_radix(i.as_str(), i.radix()).ok());
        match parsed {
            Some(n) => Some(n),
            None => {
                self.wrong_type(v, key, "a non-negative integer", example);
                None
            }
        }
    }

    /// A table value, or a type error.
    pub fn table<'a, 'i>(
        &mut self,
        v: &'a Spanned<DeValue<'i>>,
        key: &str,
        example: &str,
    ) -> Option<&'a DeTable<'i>> {
        match v.get_ref().as_table() {
            Some(t) => Some(t),
            None => {
                self.wrong_type(v, key, "a table", example);
                None
            }
        }
    }

    /// An array of strings, or type errors (one per bad element).
    pub fn string_list(
        &mut self,
        v: &Spanned<DeValue<'_>>,
        key: &str,
        example: &str,
    ) -> Option<Vec<(String, Range<usize>)>> {
        let Some(items) = v.get_ref().as_array() else {
            self.wrong_type(v, key, "an array of strings", example);
            return None;
        };
        let mut out = Vec::new();
        let mut ok = true;
        for item in items {
            match item.get_ref().as_str() {
                Some(s) => out.push((s.to_string(), item.span())),
                None => {
                    self.wrong_type(item, &format!("{key}[..]"), "a string", example);
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }
}

/// Looks up a key in a table.
pub(crate) fn get<'a, 'i>(table: &'a DeTable<'i>, key: &str) -> Option<&'a Spanned<DeValue<'i>>> {
    table
        .iter()
        .find(|(k, _)| k.get_ref() == key)
        .map(|(_, v)| v)
}

/// The span of a key in a table (to point at `[section]` headers).
pub(crate) fn key_span(table: &DeTable<'_>, key: &str) -> Option<Range<usize>> {
    table
        .iter()
        .find(|(k, _)| k.get_ref() == key)
        .map(|(k, _)| k.span())
}

/// "a string", "an integer", ... for type errors.
fn describe(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date-time",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODES: Codes = Codes {
        parse: "E-T-PARSE",
        unknown_key: "E-T-KEY",
        wrong_type: "E-T-TYPE",
        missing_key: "E-T-MISSING",
    };
    static C: Codes = CODES;

    #[test]
    fn unknown_keys_get_a_suggestion_and_a_span() {
        let src = SourceText::new("x.toml", "verison = 1\n");
        let mut r = Reader::new(&src, &C);
        let text = src.text.clone();
        let t = r.parse(&text, "x.toml").unwrap();
        r.check_keys(t.get_ref(), &["version", "id"], "the top level");
        assert_eq!(r.diags.len(), 1);
        assert_eq!(r.diags[0].help, vec!["did you mean `version`?".to_string()]);
        assert_eq!(
            r.diags[0].location.as_ref().unwrap().line_col(),
            Some((1, 1))
        );
    }

    #[test]
    fn integers_in_all_radixes() {
        let src = SourceText::new("x.toml", "a = 0x10\nb = 1_000\nc = -1\n");
        let mut r = Reader::new(&src, &C);
        let text = src.text.clone();
        let t = r.parse(&text, "x.toml").unwrap();
        let t = t.get_ref();
        assert_eq!(r.unsigned(get(t, "a").unwrap(), "a", "a = 1"), Some(16));
        assert_eq!(r.unsigned(get(t, "b").unwrap(), "b", "b = 1"), Some(1000));
        assert_eq!(r.unsigned(get(t, "c").unwrap(), "c", "c = 1"), None);
        assert_eq!(r.diags.len(), 1);
    }

    #[test]
    fn parse_errors_are_located() {
        let src = SourceText::new("x.toml", "a = \n");
        let mut r = Reader::new(&src, &C);
        let text = src.text.clone();
        assert!(r.parse(&text, "x.toml").is_none());
        assert_eq!(r.diags[0].code, "E-T-PARSE");
        assert!(r.diags[0].location.as_ref().unwrap().line_col().is_some());
    }
}
