//! The `core` content loaders: TOML and JSON, both producing the same content tree and
//! both able to point a path back at its line and column.

use std::ops::Range;
use std::sync::Arc;

use crate::registry::{builtin, LoaderKind, Registry};
use crate::rules::PathSeg;

/// Reads `.toml` content.
struct TomlLoader;

impl LoaderKind for TomlLoader {
    fn extensions(&self) -> &[&str] {
        &["toml"]
    }

    fn parse(&self, text: &str) -> Result<serde_json::Value, (String, Option<Range<usize>>)> {
        toml::from_str::<serde_json::Value>(text).map_err(|e| (e.message().to_owned(), e.span()))
    }

    fn locate(&self, text: &str, path: &[PathSeg]) -> Option<Range<usize>> {
        use toml::de::{DeTable, DeValue};
        let root = DeTable::parse(text).ok()?;
        let mut span = root.span();
        let mut table: Option<&DeTable<'_>> = Some(root.get_ref());
        let mut array: Option<&toml::de::DeArray<'_>> = None;
        for seg in path {
            let next = match seg {
                PathSeg::Key(k) => table?
                    .iter()
                    .find(|(key, _)| key.get_ref() == k)
                    .map(|(key, v)| (key.span(), v))?,
                PathSeg::Index(i) => {
                    let v = array?.iter().nth(*i)?;
                    (v.span(), v)
                }
            };
            let (key_span, value) = next;
            span = if value.span().is_empty() {
                key_span.clone()
            } else {
                value.span()
            };
            // Tables written as `[a.b]` headers have no useful value span: use the key.
            if matches!(value.get_ref(), DeValue::Table(_)) && matches!(seg, PathSeg::Key(_)) {
                span = key_span;
            }
            table = None;
            array = None;
            match value.get_ref() {
                DeValue::Table(t) => table = Some(t),
                DeValue::Array(a) => array = Some(a),
                _ => {}
            }
        }
        Some(span)
    }
}

/// Reads `.json` content.
struct JsonLoader;

impl LoaderKind for JsonLoader {
    fn extensions(&self) -> &[&str] {
        &["json"]
    }

    fn parse(&self, text: &str) -> Result<serde_json::Value, (String, Option<Range<usize>>)> {
        serde_json::from_str(text).map_err(|e| {
            let offset = offset_of(text, e.line(), e.column());
            (e.to_string(), Some(offset..offset + 1))
        })
    }

    fn locate(&self, text: &str, path: &[PathSeg]) -> Option<Range<usize>> {
        use jsonc_parser::ast::{ObjectPropName, Value};
        use jsonc_parser::common::Ranged;
        let parsed =
            jsonc_parser::parse_to_ast(text, &Default::default(), &Default::default()).ok()?;
        let mut value = parsed.value?;
        let mut span = value.range();
        for seg in path {
            let next = match (seg, value) {
                (PathSeg::Key(k), Value::Object(o)) => {
                    o.properties.into_iter().find(|p| match &p.name {
                        ObjectPropName::String(s) => s.value == k.as_str(),
                        ObjectPropName::Word(w) => w.value == k.as_str(),
                    })?
                }
                (PathSeg::Index(i), Value::Array(a)) => {
                    let v = a.elements.into_iter().nth(*i)?;
                    span = v.range();
                    value = v;
                    continue;
                }
                _ => return Some(span.start..span.end),
            };
            span = next.range;
            value = next.value;
        }
        Some(span.start..span.end)
    }
}

/// Byte offset of a 1-based line and column.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (line_start + column.saturating_sub(1)).min(text.len())
}

/// Registers the TOML and JSON loaders.
pub(super) fn register(r: &mut Registry) {
    r.loaders
        .register(builtin(
            "core:loader/toml",
            "TOML content files",
            Vec::new(),
            Arc::new(TomlLoader) as Arc<dyn LoaderKind>,
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    r.loaders
        .register(builtin(
            "core:loader/json",
            "JSON content files",
            Vec::new(),
            Arc::new(JsonLoader) as Arc<dyn LoaderKind>,
        ))
        .unwrap_or_else(|e| panic!("{e}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> PathSeg {
        PathSeg::Key(s.into())
    }

    #[test]
    fn toml_paths_point_at_their_line() {
        let text = "[class.wolf]\ntags = [\"beast\"]\n\n[[class.wolf.trigger]]\nwhen = \"core:event/created\"\ndo = [{ type = \"damge\" }]\n";
        let span = TomlLoader
            .locate(
                text,
                &[
                    key("class"),
                    key("wolf"),
                    key("trigger"),
                    PathSeg::Index(0),
                    key("do"),
                    PathSeg::Index(0),
                    key("type"),
                ],
            )
            .unwrap();
        assert_eq!(&text[span.clone()], "\"damge\"");
        assert_eq!(crate::diag::line_col(text, span.start).0, 6);
    }

    #[test]
    fn json_paths_point_at_their_line() {
        let text = "{\n  \"class\": {\n    \"wolf\": {\n      \"tags\": [1, \"x\"]\n    }\n  }\n}";
        let span = JsonLoader
            .locate(
                text,
                &[key("class"), key("wolf"), key("tags"), PathSeg::Index(1)],
            )
            .unwrap();
        assert_eq!(&text[span], "\"x\"");
    }

    #[test]
    fn parse_errors_carry_spans() {
        let (msg, span) = TomlLoader.parse("a = \n").unwrap_err();
        assert!(!msg.is_empty());
        assert!(span.is_some());
        let (_, span) = JsonLoader.parse("{\n \"a\": }").unwrap_err();
        assert_eq!(
            crate::diag::line_col("{\n \"a\": }", span.unwrap().start).0,
            2
        );
    }
}
