//! The `core` content loaders: TOML and JSON. Both produce the same content tree and,
//! in the same pass, the span of every path, so any value can be pointed back at its
//! line and column.

use std::ops::Range;
use std::sync::Arc;

use serde_json::{Map, Number, Value as Json};

use crate::rules::registry::{builtin, LoadInput, LoaderKind, Registry};
use crate::rules::PathSeg;

type Spans<'a> = &'a mut dyn FnMut(&[PathSeg], Range<usize>);

/// Reads `.toml` content (one parse: tree and spans together).
struct TomlLoader;

impl LoaderKind for TomlLoader {
    fn extensions(&self) -> &[&str] {
        &["toml"]
    }

    fn parse(
        &self,
        input: &LoadInput<'_>,
        spans: Spans<'_>,
    ) -> Result<Json, (String, Option<Range<usize>>)> {
        use toml::de::{DeTable, DeValue};
        let text = input.text;
        fn convert(
            v: &DeValue<'_>,
            path: &mut Vec<PathSeg>,
            spans: Spans<'_>,
        ) -> Result<Json, String> {
            Ok(match v {
                DeValue::String(s) => Json::String(s.to_string()),
                DeValue::Integer(i) => {
                    let n = i64::from_str_radix(i.as_str(), i.radix())
                        .map_err(|e| format!("integer `{}`: {e}", i.as_str()))?;
                    Json::Number(n.into())
                }
                DeValue::Float(f) => {
                    let x: f64 = f
                        .as_str()
                        .parse()
                        .map_err(|e| format!("number `{}`: {e}", f.as_str()))?;
                    Number::from_f64(x)
                        .map(Json::Number)
                        .ok_or_else(|| format!("`{}` is not a finite number", f.as_str()))?
                }
                DeValue::Boolean(b) => Json::Bool(*b),
                DeValue::Datetime(d) => Json::String(d.to_string()),
                DeValue::Array(a) => {
                    let mut out = Vec::with_capacity(a.len());
                    for (i, item) in a.iter().enumerate() {
                        path.push(PathSeg::Index(i));
                        spans(path, item.span());
                        out.push(convert(item.get_ref(), path, spans)?);
                        path.pop();
                    }
                    Json::Array(out)
                }
                DeValue::Table(t) => {
                    let mut out = Map::with_capacity(t.len());
                    for (k, item) in t.iter() {
                        path.push(PathSeg::Key(k.get_ref().to_string()));
                        // Tables written as `[a.b]` headers have no useful value span: use the key.
                        let span = if matches!(item.get_ref(), DeValue::Table(_))
                            || item.span().is_empty()
                        {
                            k.span()
                        } else {
                            item.span()
                        };
                        spans(path, span);
                        let value = convert(item.get_ref(), path, spans)?;
                        if let Some(PathSeg::Key(k)) = path.pop() {
                            out.insert(k, value);
                        }
                    }
                    Json::Object(out)
                }
            })
        }
        let root = DeTable::parse(text).map_err(|e| (e.message().to_owned(), e.span()))?;
        spans(&[], root.span());
        let root_span = root.span();
        convert(&DeValue::Table(root.into_inner()), &mut Vec::new(), spans)
            .map_err(|m| (m, Some(root_span)))
    }
}

/// Reads `.json` content: one parse (jsonc-parser's syntax tree, held to strict JSON —
/// no comments, no trailing commas, quoted keys) gives the tree and every path's span.
struct JsonLoader;

type JsonError = (String, Option<Range<usize>>);

/// The content tree of a JSON syntax tree, recording each path's span on the way.
fn json_value(
    text: &str,
    v: &jsonc_parser::ast::Value<'_>,
    path: &mut Vec<PathSeg>,
    spans: Spans<'_>,
) -> Result<Json, JsonError> {
    use jsonc_parser::ast::{ObjectPropName, Value};
    use jsonc_parser::common::Ranged;
    let at = |r: jsonc_parser::common::Range| Some(r.start..r.end);
    Ok(match v {
        Value::NullKeyword(_) => Json::Null,
        Value::BooleanLit(b) => Json::Bool(b.value),
        Value::StringLit(s) => {
            // jsonc-parser also reads single-quoted strings; JSON does not.
            if !text[s.range.start..].starts_with('"') {
                return Err(("strings are written in double quotes".into(), at(s.range)));
            }
            Json::String(s.value.to_string())
        }
        Value::NumberLit(n) => match serde_json::from_str::<Number>(n.value) {
            Ok(num) => Json::Number(num),
            Err(_) => {
                let why = format!("`{}` is not a JSON number", n.value);
                return Err((why, at(n.range)));
            }
        },
        Value::Array(a) => {
            separated(text, a.elements.iter().map(Ranged::range))?;
            let mut out = Vec::with_capacity(a.elements.len());
            for (i, e) in a.elements.iter().enumerate() {
                path.push(PathSeg::Index(i));
                let r = e.range();
                spans(path, r.start..r.end);
                out.push(json_value(text, e, path, spans)?);
                path.pop();
            }
            Json::Array(out)
        }
        Value::Object(o) => {
            separated(text, o.properties.iter().map(|p| p.range))?;
            let mut out = Map::new();
            for p in &o.properties {
                let key = match &p.name {
                    ObjectPropName::String(s) => s.value.to_string(),
                    ObjectPropName::Word(w) => w.value.to_string(),
                };
                if out.contains_key(&key) {
                    let why = format!("duplicate key `{key}`: each key is written once");
                    return Err((why, at(p.range)));
                }
                path.push(PathSeg::Key(key.clone()));
                spans(path, p.range.start..p.range.end);
                let value = json_value(text, &p.value, path, spans)?;
                path.pop();
                out.insert(key, value);
            }
            Json::Object(out)
        }
    })
}

/// Checks that a comma separates each pair of consecutive items (jsonc-parser also reads
/// `["a" "b"]`; JSON does not). Comments are refused, so only blanks may sit beside it.
fn separated(
    text: &str,
    items: impl Iterator<Item = jsonc_parser::common::Range>,
) -> Result<(), JsonError> {
    let mut prev: Option<usize> = None;
    for r in items {
        if let Some(end) = prev {
            if !text.get(end..r.start).is_some_and(|gap| gap.contains(',')) {
                return Err((
                    "expected `,` before this value".into(),
                    Some(r.start..r.end),
                ));
            }
        }
        prev = Some(r.end);
    }
    Ok(())
}

/// How deeply arrays and objects may nest (serde_json's own limit): the parser and the
/// tree walk recurse once per level, so deeper input would overflow the stack.
const MAX_JSON_DEPTH: usize = 128;

/// Refuses input nested deeper than [`MAX_JSON_DEPTH`], before anything recurses over it.
fn check_depth(text: &str) -> Result<(), JsonError> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, b) in text.bytes().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'[' | b'{' if !in_string => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    let why = format!("arrays and tables nest deeper than {MAX_JSON_DEPTH} levels");
                    return Err((why, Some(i..i + 1)));
                }
            }
            b']' | b'}' if !in_string => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

impl LoaderKind for JsonLoader {
    fn extensions(&self) -> &[&str] {
        &["json"]
    }

    fn parse(&self, input: &LoadInput<'_>, spans: Spans<'_>) -> Result<Json, JsonError> {
        let text = input.text;
        use jsonc_parser::common::Ranged;
        check_depth(text)?;
        let strict = jsonc_parser::ParseOptions {
            allow_comments: false,
            allow_loose_object_property_names: false,
            allow_trailing_commas: false,
        };
        let parsed =
            jsonc_parser::parse_to_ast(text, &Default::default(), &strict).map_err(|e| {
                let r = e.range();
                (e.kind().to_string(), Some(r.start..r.end.max(r.start + 1)))
            })?;
        let Some(root) = parsed.value else {
            return Err((
                "the file holds no JSON value".into(),
                Some(0..text.len().min(1)),
            ));
        };
        let r = root.range();
        spans(&[], r.start..r.end);
        json_value(text, &root, &mut Vec::new(), spans)
    }
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

    fn find(loader: &dyn LoaderKind, text: &str, path: &[PathSeg]) -> (Json, Option<Range<usize>>) {
        let mut found = None;
        let tree = loader
            .parse(&LoadInput::text(text), &mut |p, r| {
                if p == path {
                    found = Some(r);
                }
            })
            .unwrap();
        (tree, found)
    }

    #[test]
    fn toml_paths_point_at_their_line() {
        let text = "[class.wolf]\ntags = [\"beast\"]\nproperties = { attack = 0x10, speed = 1.5 }\n\n[[class.wolf.trigger]]\nwhen = \"core:event/created\"\ndo = [{ type = \"damge\" }]\n";
        let path = [
            key("class"),
            key("wolf"),
            key("trigger"),
            PathSeg::Index(0),
            key("do"),
            PathSeg::Index(0),
            key("type"),
        ];
        let (tree, span) = find(&TomlLoader, text, &path);
        let span = span.unwrap();
        assert_eq!(&text[span.clone()], "\"damge\"");
        assert_eq!(crate::diag::line_col(text, span.start).0, 7);
        assert_eq!(tree["class"]["wolf"]["properties"]["attack"], 16);
        assert_eq!(tree["class"]["wolf"]["properties"]["speed"], 1.5);
    }

    #[test]
    fn json_paths_point_at_their_line() {
        let text = "{\n  \"class\": {\n    \"wolf\": {\n      \"tags\": [1, \"x\"]\n    }\n  }\n}";
        let (_, span) = find(
            &JsonLoader,
            text,
            &[key("class"), key("wolf"), key("tags"), PathSeg::Index(1)],
        );
        assert_eq!(&text[span.unwrap()], "\"x\"");
        // The same tree serde_json reads, numbers and escapes included.
        let text = r#"{"a": [1, -2, 1.5, 1e3, 18446744073709551615, -0.0], "b\u00e9": "x\n\"y\"",
            "c": {"d": null, "e": true, "f": false, "g": {}, "h": []}}"#;
        let (tree, _) = find(&JsonLoader, text, &[]);
        assert_eq!(tree, serde_json::from_str::<Json>(text).unwrap());
    }

    #[test]
    fn parse_errors_carry_spans() {
        let (msg, span) = TomlLoader
            .parse(&LoadInput::text("a = \n"), &mut |_, _| {})
            .unwrap_err();
        assert!(!msg.is_empty());
        assert!(span.is_some());
        let text = "{\n \"a\": }";
        let (_, span) = JsonLoader
            .parse(&LoadInput::text(text), &mut |_, _| {})
            .unwrap_err();
        assert_eq!(crate::diag::line_col(text, span.unwrap().start).0, 2);
        for (bad, line) in [
            ("{\n \"a\": 1, // note\n}", 2),
            ("{\n \"a\": [1, 2,]\n}", 2),
            ("{\n \"a\": 1,\n \"a\": 2\n}", 3),
            ("{\n \"a\": 'x'\n}", 2),
            ("{\n \"a\": 0x10\n}", 2),
            ("{\n \"a\": [\"x\"\n \"y\"]\n}", 3),
            ("{\n \"a\": 1\n \"b\": 2\n}", 3),
            ("{\n \"a\" 1\n}", 2),
            ("{\n \"a\": [,1]\n}", 2),
            ("{\n \"a\": tru\n}", 2),
        ] {
            let (msg, span) = JsonLoader
                .parse(&LoadInput::text(bad), &mut |_, _| {})
                .unwrap_err();
            let span = span.unwrap_or_else(|| panic!("no span for {bad:?}: {msg}"));
            assert_eq!(
                crate::diag::line_col(bad, span.start).0,
                line,
                "{bad:?}: {msg}"
            );
        }
        // Nesting deep enough to overflow a recursive parser is refused before parsing
        // (brackets inside strings do not count).
        let deep = format!("{{\"a\": {}1{}}}", "[".repeat(100_000), "]".repeat(100_000));
        let (msg, span) = JsonLoader
            .parse(&LoadInput::text(&deep), &mut |_, _| {})
            .unwrap_err();
        assert!(msg.contains("nest deeper than 128"), "{msg}");
        assert_eq!(span, Some(133..134), "the bracket opening level 129");
        let ok = format!(
            "{{\"s\": \"[[[\\\"{{\", \"a\": {}1{}}}",
            "[".repeat(100),
            "]".repeat(100)
        );
        assert!(
            JsonLoader
                .parse(&LoadInput::text(&ok), &mut |_, _| {})
                .is_ok(),
            "{ok}"
        );
        assert!(
            TomlLoader
                .parse(&LoadInput::text("a = 1\na = 2\n"), &mut |_, _| {})
                .is_err(),
            "duplicate keys are errors"
        );
    }
}
