//! Reading TOML files into serde types with spans: the shared machinery behind `mod.toml`,
//! `server.toml` and `mods.lock`.
//!
//! Owns turning a document into a file's serde types (`toml::Spanned` for positions,
//! `serde_ignored` for keys the types do not know) while collecting *every* problem as a
//! [`Diagnostic`] with a byte span (so it renders file:line:column and the source line):
//! parse errors, unknown keys (with a did-you-mean), wrong types and missing keys. A value
//! of the wrong type does not stop the read: fields are [`Typed`], which records what was
//! found instead, so one pass reports all mistakes. It knows nothing about what the files
//! mean; the modules that own each file declare their types and decide that.

use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, DeserializeOwned, IntoDeserializer, Visitor};
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

/// A value that deserialized as `T`, or what was found instead (`"an integer"`).
///
/// Wrapping a field in `Typed` (usually as `Option<Spanned<Typed<T>>>`) turns a type
/// mismatch into data, so the rest of the file is still read and checked.
#[derive(Debug, Clone)]
pub(crate) enum Typed<T> {
    /// The value has the expected shape.
    Ok(T),
    /// The value is of another kind: `"a string"`, `"an integer"`, `"a table"`, ...
    Wrong(&'static str),
}

/// An optional field with its span, read leniently.
pub(crate) type Field<T> = Option<Spanned<Typed<T>>>;

/// A list of strings, each with its span and read leniently.
pub(crate) type StringList = Vec<Spanned<Typed<String>>>;

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Typed<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TypedVisitor(PhantomData))
    }
}

struct TypedVisitor<T>(PhantomData<T>);

impl<T> TypedVisitor<T> {
    fn scalar<'de, E: de::Error, V: IntoDeserializer<'de, E>>(
        v: V,
        found: &'static str,
    ) -> Result<Typed<T>, E>
    where
        T: Deserialize<'de>,
    {
        Ok(match T::deserialize(v.into_deserializer()) {
            Ok(t) => Typed::Ok(t),
            Err(_) => Typed::Wrong(found),
        })
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for TypedVisitor<T> {
    type Value = Typed<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any TOML value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Self::scalar(v, "a boolean")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Self::scalar(v, "an integer")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Self::scalar(v, "an integer")
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Self::scalar(v, "a float")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Self::scalar(v.to_owned(), "a string")
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Self::scalar(v, "a string")
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Ok(match T::deserialize(SeqAccessDeserializer::new(seq)) {
            Ok(t) => Typed::Ok(t),
            Err(_) => Typed::Wrong("an array"),
        })
    }
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok(match T::deserialize(MapAccessDeserializer::new(map)) {
            Ok(t) => Typed::Ok(t),
            Err(_) => Typed::Wrong("a table"),
        })
    }
}

/// `"^1.0"` or `{ version = "^1.0", ... }`: the two ways to write a dependency, conflict or
/// break. Anything else fails (and is caught by an enclosing [`Typed`]).
#[derive(Debug, Clone)]
pub(crate) enum StrOr<T> {
    /// The short form: just a string.
    Str(String),
    /// The long form: a table.
    Table(T),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for StrOr<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = StrOr<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a table")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(StrOr::Str(v.to_owned()))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(StrOr::Table)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// The field names a derived `Deserialize` struct accepts, read from the derive itself (so
/// the did-you-mean candidates and the schema tests cannot drift from the types).
pub(crate) fn fields_of<T: DeserializeOwned>() -> &'static [&'static str] {
    struct Probe<'a>(&'a mut &'static [&'static str]);
    impl<'de> de::Deserializer<'de> for Probe<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("probed"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut fields));
    fields
}

/// One step of a key path: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    /// `key` in a table.
    Key(String),
    /// `[i]` in an array.
    Index(usize),
}

impl Seg {
    /// The key, if this step is one.
    pub fn key(&self) -> Option<&str> {
        match self {
            Seg::Key(k) => Some(k),
            Seg::Index(_) => None,
        }
    }
}

/// Flattens a `serde_ignored` path, dropping the steps `toml::Spanned` adds.
fn segments(path: &serde_ignored::Path<'_>, out: &mut Vec<Seg>) {
    use serde_ignored::Path;
    match path {
        Path::Root => {}
        Path::Seq { parent, index } => {
            segments(parent, out);
            out.push(Seg::Index(*index));
        }
        Path::Map { parent, key } => {
            segments(parent, out);
            if !key.starts_with("$__serde_spanned_private") {
                out.push(Seg::Key(key.clone()));
            }
        }
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => segments(parent, out),
    }
}

/// A parsed document: the typed value, the raw tree (for key spans) and the keys the
/// types did not use.
pub(crate) struct Document<'i, T> {
    /// The file's serde type.
    pub value: T,
    /// The span of the whole document.
    pub span: Range<usize>,
    tree: DeTable<'i>,
    /// Keys no field took, as paths from the root, until reported.
    unknown: RefCell<Vec<Vec<Seg>>>,
}

impl<T> Document<'_, T> {
    /// The span of the key at `path` (to point at `[section]` headers and map keys).
    pub fn key_span(&self, path: &[Seg]) -> Option<Range<usize>> {
        let (last, parents) = path.split_last()?;
        let mut table = &self.tree;
        let mut value: Option<&DeValue<'_>> = None;
        for seg in parents {
            let next = match (seg, value) {
                (Seg::Key(k), None) => entry(table, k).map(|(_, v)| v),
                (Seg::Key(k), Some(DeValue::Table(t))) => entry(t, k).map(|(_, v)| v),
                (Seg::Index(i), Some(DeValue::Array(a))) => a.get(*i),
                _ => None,
            }?;
            value = Some(next.get_ref());
        }
        if let Some(v) = value {
            table = v.as_table()?;
        }
        entry(table, last.key()?).map(|(k, _)| k)
    }
}

/// The span of `key` in `table`, with its value.
fn entry<'a, 'i>(
    table: &'a DeTable<'i>,
    key: &str,
) -> Option<(Range<usize>, &'a Spanned<DeValue<'i>>)> {
    table
        .iter()
        .find(|(k, _)| k.get_ref() == key)
        .map(|(k, v)| (k.span(), v))
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

    /// Parses the document into `T`; on a TOML syntax error records one parse error and
    /// returns `None`. Unknown keys are returned in the document, not yet reported (the
    /// owner knows what each table is called: see [`Reader::report_unknown`]).
    pub fn read<'i, T: DeserializeOwned>(
        &mut self,
        text: &'i str,
        file_kind: &str,
    ) -> Option<Document<'i, T>> {
        let doc = match DeTable::parse(text) {
            Ok(t) => t,
            Err(e) => {
                self.parse_error(e.message(), e.span(), file_kind);
                return None;
            }
        };
        let span = doc.span();
        let tree = doc.get_ref().clone();
        let mut unknown = Vec::new();
        let de = toml::de::Deserializer::from(doc);
        let value = serde_ignored::deserialize(de, |path| {
            let mut segs = Vec::new();
            segments(&path, &mut segs);
            unknown.push(segs);
        });
        match value {
            Ok(value) => Some(Document {
                value,
                span,
                tree,
                unknown: RefCell::new(unknown),
            }),
            Err(e) => {
                // Every field is lenient, so this is a shape the types cannot hold at all.
                self.parse_error(e.message(), e.span(), file_kind);
                None
            }
        }
    }

    fn parse_error(&mut self, message: &str, span: Option<Range<usize>>, file_kind: &str) {
        let msg = message
            .lines()
            .next()
            .unwrap_or("invalid TOML")
            .trim()
            .to_string();
        self.push(
            Diagnostic::error(
                self.codes.parse,
                format!("{file_kind} is not valid TOML: {msg}"),
            )
            .at(Location::span(self.src, span.unwrap_or(0..0)))
            .with_help("fix the TOML syntax here (https://toml.io describes the format)"),
        );
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

    /// Reports the document's unknown keys for which `table` names the enclosing table
    /// (as the user wrote it: `[mod]`, `the top level`) and the keys it accepts; the others
    /// are kept for a later call.
    pub fn report_unknown<T>(
        &mut self,
        doc: &Document<'_, T>,
        table: impl Fn(&[Seg]) -> Option<(String, &'static [&'static str])>,
    ) {
        let unknown = doc.unknown.take();
        for path in unknown {
            let Some((parent, key)) = path.split_last().and_then(|(k, p)| Some((p, k.key()?)))
            else {
                continue;
            };
            let Some((context, known)) = table(parent) else {
                doc.unknown.borrow_mut().push(path);
                continue;
            };
            let span = doc.key_span(&path).unwrap_or(0..0);
            self.unknown_key(key, span, &context, known);
        }
    }

    fn unknown_key(&mut self, k: &str, span: Range<usize>, context: &str, known: &[&str]) {
        let mut d = Diagnostic::error(
            self.codes.unknown_key,
            format!("unknown key `{k}` in {context}"),
        )
        .at(self.loc(span))
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

    /// Reports a value of the wrong type.
    pub fn wrong_type(
        &mut self,
        span: Range<usize>,
        found: &str,
        key: &str,
        expected: &str,
        example: &str,
    ) {
        self.push(
            Diagnostic::error(
                self.codes.wrong_type,
                format!("`{key}` must be {expected}, found {found}"),
            )
            .at(self.loc(span))
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

    /// The value of a present field with its span, or a type error (`expected` says what
    /// it should have been: `"a string"`).
    pub fn typed<'v, T>(
        &mut self,
        v: &'v Spanned<Typed<T>>,
        key: &str,
        expected: &str,
        example: &str,
    ) -> Option<(&'v T, Range<usize>)> {
        match v.get_ref() {
            Typed::Ok(t) => Some((t, v.span())),
            Typed::Wrong(found) => {
                self.wrong_type(v.span(), found, key, expected, example);
                None
            }
        }
    }

    /// A string field, or a type error.
    pub fn string(
        &mut self,
        v: &Spanned<Typed<String>>,
        key: &str,
        example: &str,
    ) -> Option<(String, Range<usize>)> {
        self.typed(v, key, "a string", example)
            .map(|(s, span)| (s.clone(), span))
    }

    /// A boolean field, or a type error.
    pub fn boolean(&mut self, v: &Spanned<Typed<bool>>, key: &str, example: &str) -> Option<bool> {
        self.typed(v, key, "`true` or `false`", example)
            .map(|(b, _)| *b)
    }

    /// A non-negative integer field, or a type error.
    pub fn unsigned(&mut self, v: &Spanned<Typed<u64>>, key: &str, example: &str) -> Option<u64> {
        self.typed(v, key, "a non-negative integer", example)
            .map(|(n, _)| *n)
    }

    /// A list of strings, or type errors (one for the list, or one per bad element).
    pub fn string_list(
        &mut self,
        v: &Spanned<Typed<StringList>>,
        key: &str,
        example: &str,
    ) -> Option<Vec<(String, Range<usize>)>> {
        let (items, _) = self.typed(v, key, "an array of strings", example)?;
        let mut out = Vec::new();
        let mut ok = true;
        for item in items {
            match self.string(item, &format!("{key}[..]"), example) {
                Some(s) => out.push(s),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use indexmap::IndexMap;
    use serde::Deserialize;

    use super::*;

    static C: Codes = Codes {
        parse: "E-T-PARSE",
        unknown_key: "E-T-KEY",
        wrong_type: "E-T-TYPE",
        missing_key: "E-T-MISSING",
    };

    #[derive(Deserialize)]
    #[expect(dead_code, reason = "read only for its unknown keys")]
    struct Doc {
        version: Field<u64>,
        id: Field<String>,
        list: Field<StringList>,
        table: Field<IndexMap<String, Spanned<Typed<StrOr<Inner>>>>>,
    }

    #[derive(Deserialize)]
    #[expect(dead_code, reason = "read only for its unknown keys")]
    struct Inner {
        name: Field<String>,
    }

    fn read(text: &str) -> (Reader<'static>, Option<Document<'static, Doc>>) {
        let src: &'static SourceText = Box::leak(Box::new(SourceText::new("x.toml", text)));
        let mut r = Reader::new(src, &C);
        let doc = r.read::<Doc>(&src.text, "x.toml");
        if let Some(doc) = &doc {
            r.report_unknown(doc, |p| match p {
                [] => Some(("the top level".into(), fields_of::<Doc>())),
                [Seg::Key(t), Seg::Key(k)] if t == "table" => {
                    Some((format!("entry `{k}`"), fields_of::<Inner>()))
                }
                _ => None,
            });
        }
        (r, doc)
    }

    #[test]
    fn unknown_keys_get_a_suggestion_and_a_span() {
        let (r, _) = read("id = \"a\"\nverison = 1\n[table]\nx = { nmae = \"y\" }\n");
        assert_eq!(r.diags.len(), 2, "{:?}", r.diags);
        // Tables are read in key order: `table` before `verison`.
        let (nested, top) = (&r.diags[0], &r.diags[1]);
        assert_eq!(top.code, "E-T-KEY");
        assert_eq!(top.message, "unknown key `verison` in the top level");
        assert_eq!(top.help, vec!["did you mean `version`?".to_string()]);
        assert_eq!(top.location.as_ref().unwrap().line_col(), Some((2, 1)));
        assert_eq!(nested.message, "unknown key `nmae` in entry `x`");
        assert_eq!(nested.help, vec!["did you mean `name`?".to_string()]);
        assert_eq!(nested.location.as_ref().unwrap().line_col(), Some((4, 7)));
    }

    #[test]
    fn wrong_types_are_reported_with_their_position_and_reading_goes_on() {
        let (mut r, doc) = read("version = \"1\"\nid = 3\nlist = [\"a\", 2]\n");
        let doc = doc.unwrap();
        let v = doc.value;
        assert_eq!(
            r.unsigned(v.version.as_ref().unwrap(), "version", "version = 1"),
            None
        );
        assert_eq!(r.string(v.id.as_ref().unwrap(), "id", "id = \"a\""), None);
        assert_eq!(
            r.string_list(v.list.as_ref().unwrap(), "list", "list = []"),
            None
        );
        let msgs: Vec<_> = r.diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            msgs,
            vec![
                "`version` must be a non-negative integer, found a string",
                "`id` must be a string, found an integer",
                "`list[..]` must be a string, found an integer",
            ]
        );
        let lines: Vec<_> = r
            .diags
            .iter()
            .map(|d| d.location.as_ref().unwrap().line_col())
            .collect();
        assert_eq!(lines, vec![Some((1, 11)), Some((2, 6)), Some((3, 14))]);
    }

    #[test]
    fn missing_keys_point_at_their_table() {
        let (mut r, doc) = read("[table]\nx = \"^1\"\n");
        let doc = doc.unwrap();
        assert!(doc.value.id.is_none());
        let header = doc.key_span(&[Seg::Key("table".into())]).unwrap();
        r.missing(header, "id", "the top level", "id = \"a\"");
        assert_eq!(r.diags[0].code, "E-T-MISSING");
        assert_eq!(r.diags[0].message, "missing key `id` in the top level");
        assert_eq!(
            r.diags[0].location.as_ref().unwrap().line_col(),
            Some((1, 2))
        );
    }

    #[test]
    fn integers_in_all_radixes() {
        let (mut r, doc) = read("version = 0x10\n");
        let v = doc.unwrap().value;
        assert_eq!(
            r.unsigned(v.version.as_ref().unwrap(), "v", "v = 1"),
            Some(16)
        );
        let (mut r, doc) = read("version = -1\n");
        let v = doc.unwrap().value;
        assert_eq!(r.unsigned(v.version.as_ref().unwrap(), "v", "v = 1"), None);
    }

    #[test]
    fn parse_errors_are_located() {
        let (r, doc) = read("a = \n");
        assert!(doc.is_none());
        assert_eq!(r.diags[0].code, "E-T-PARSE");
        assert!(r.diags[0].location.as_ref().unwrap().line_col().is_some());
    }

    #[test]
    fn fields_come_from_the_derive() {
        assert_eq!(fields_of::<Doc>(), &["version", "id", "list", "table"]);
    }
}
