//! The `core` content loaders: TOML and JSON. Both produce the same content tree and,
//! in the same pass, the span of every path, so any value can be pointed back at its
//! line and column.

use std::ops::Range;
use std::sync::Arc;

use serde_json::{Map, Number, Value as Json};

use crate::rules::registry::{builtin, LoaderKind, Registry};
use crate::rules::PathSeg;

type Spans<'a> = &'a mut dyn FnMut(&[PathSeg], Range<usize>);

/// Reads `.toml` content (one parse: tree and spans together).
struct TomlLoader;

impl LoaderKind for TomlLoader {
    fn extensions(&self) -> &[&str] {
        &["toml"]
    }

    fn parse(&self, text: &str, spans: Spans<'_>) -> Result<Json, (String, Option<Range<usize>>)> {
        use toml::de::{DeTable, DeValue};
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

/// Reads `.json` content (serde_json for the tree, jsonc-parser's syntax tree for spans).
struct JsonLoader;

impl LoaderKind for JsonLoader {
    fn extensions(&self) -> &[&str] {
        &["json"]
    }

    fn parse(&self, text: &str, spans: Spans<'_>) -> Result<Json, (String, Option<Range<usize>>)> {
        use jsonc_parser::ast::{ObjectPropName, Value};
        use jsonc_parser::common::Ranged;
        fn walk(v: &Value<'_>, path: &mut Vec<PathSeg>, out: Spans<'_>) {
            match v {
                Value::Object(o) => {
                    for p in &o.properties {
                        let key = match &p.name {
                            ObjectPropName::String(s) => s.value.to_string(),
                            ObjectPropName::Word(w) => w.value.to_string(),
                        };
                        path.push(PathSeg::Key(key));
                        out(path, p.range.start..p.range.end);
                        walk(&p.value, path, out);
                        path.pop();
                    }
                }
                Value::Array(a) => {
                    for (i, e) in a.elements.iter().enumerate() {
                        path.push(PathSeg::Index(i));
                        let r = e.range();
                        out(path, r.start..r.end);
                        walk(e, path, out);
                        path.pop();
                    }
                }
                _ => {}
            }
        }
        let tree: Json = serde_json::from_str(text).map_err(|e| {
            let offset = offset_of(text, e.line(), e.column());
            (e.to_string(), Some(offset..offset + 1))
        })?;
        if let Ok(parsed) =
            jsonc_parser::parse_to_ast(text, &Default::default(), &Default::default())
        {
            if let Some(root) = parsed.value {
                let r = root.range();
                spans(&[], r.start..r.end);
                walk(&root, &mut Vec::new(), spans);
            }
        }
        Ok(tree)
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

    fn find(loader: &dyn LoaderKind, text: &str, path: &[PathSeg]) -> (Json, Option<Range<usize>>) {
        let mut found = None;
        let tree = loader
            .parse(text, &mut |p, r| {
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
    }

    #[test]
    fn parse_errors_carry_spans() {
        let (msg, span) = TomlLoader.parse("a = \n", &mut |_, _| {}).unwrap_err();
        assert!(!msg.is_empty());
        assert!(span.is_some());
        let text = "{\n \"a\": }";
        let (_, span) = JsonLoader.parse(text, &mut |_, _| {}).unwrap_err();
        assert_eq!(crate::diag::line_col(text, span.unwrap().start).0, 2);
        assert!(
            TomlLoader.parse("a = 1\na = 2\n", &mut |_, _| {}).is_err(),
            "duplicate keys are errors"
        );
    }
}
