//! An owned XML element tree with the line of every element, built from roxmltree's
//! borrowed document: references are spliced into cards, so elements must outlive the
//! text they came from. Comments and processing instructions are dropped; text is kept
//! trimmed (card XML uses text only in `<idcards>`, `<properties>`, `<colors>` and
//! `<rules-author-comment>`).

pub use crate::shared::Str;

/// One element: its local name (the Firemox namespace dropped), attributes in order,
/// children, trimmed text, and its 1-based line in the file it came from. Its strings are
/// [`Str`]s: copies of an element (reference expansion makes many) share their text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Element {
    /// The local name (`activated-ability`).
    pub name: Str,
    /// Attributes in document order (local names).
    pub attrs: Vec<(Str, Str)>,
    /// Child elements.
    pub children: Vec<Element>,
    /// The element's own text, trimmed (empty when none).
    pub text: Str,
    /// 1-based line of the start tag (in the file it came from: a card's, or the
    /// references file's for an expanded reference).
    pub line: u32,
    /// The reference this element was expanded from (`cast-spell`, `target-creature`),
    /// set on the top elements of an expansion.
    pub from_ref: Option<Str>,
}

impl Element {
    /// An attribute's value.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets (or adds, first) an attribute.
    pub fn set_attr(&mut self, name: &str, value: &str) {
        match self.attrs.iter_mut().find(|(k, _)| k == name) {
            Some(a) => a.1 = value.into(),
            None => self.attrs.insert(0, (name.into(), value.into())),
        }
    }

    /// The first child named `name`.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// The children named `name`.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// Every element of the subtree, this one first (depth first).
    pub fn descendants(&self) -> Vec<&Element> {
        let mut out = vec![self];
        let mut i = 0;
        while i < out.len() {
            let e = out[i];
            out.extend(e.children.iter());
            i += 1;
        }
        out
    }

    /// `<name a="v" ...>` as written, for error messages.
    pub fn start_tag(&self) -> String {
        use std::fmt::Write;
        let mut s = format!("<{}", self.name);
        for (k, v) in &self.attrs {
            let _ = write!(s, " {k}=\"{v}\"");
        }
        s.push('>');
        s
    }
}

/// Where an XML syntax error is, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// roxmltree's message.
    pub message: String,
}

/// Parses XML text into the owned tree of its root element.
pub fn parse(text: &str) -> Result<Element, SyntaxError> {
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, opts).map_err(|e| {
        let p = e.pos();
        SyntaxError {
            line: p.row,
            column: p.col,
            message: e.to_string(),
        }
    })?;
    let lines = LineIndex::new(text);
    Ok(convert(doc.root_element(), &lines))
}

/// Byte offsets of line starts, for the line of a position in O(log n).
struct LineIndex(Vec<usize>);

impl LineIndex {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex(starts)
    }

    fn line(&self, offset: usize) -> u32 {
        let n = self.0.partition_point(|&s| s <= offset);
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}

fn convert(node: roxmltree::Node<'_, '_>, lines: &LineIndex) -> Element {
    // Most elements have no text but whitespace, or one text node: only several text
    // nodes (text around child elements) are joined in a new string.
    let (mut elements, mut texts, mut only_text) = (0, 0, "");
    for c in node.children() {
        if c.is_element() {
            elements += 1;
        } else if c.is_text() {
            let t = c.text().unwrap_or("");
            if !t.trim().is_empty() {
                texts += 1;
                only_text = t;
            }
        }
    }
    let text = match texts {
        0 => Str::default(),
        1 => only_text.trim().into(),
        _ => {
            let mut text = String::new();
            for c in node.children().filter(|c| c.is_text()) {
                text.push_str(c.text().unwrap_or(""));
            }
            text.trim().into()
        }
    };
    let mut children = Vec::with_capacity(elements);
    for c in node.children().filter(|c| c.is_element()) {
        children.push(convert(c, lines));
    }
    Element {
        name: node.tag_name().name().into(),
        attrs: node
            .attributes()
            .filter(|a| a.namespace().is_none())
            .map(|a| (a.name().into(), a.value().into()))
            .collect(),
        children,
        text,
        line: lines.line(node.range().start),
        from_ref: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_know_their_lines_and_drop_the_namespace() {
        let e = parse("<?xml version=\"1.0\"?>\n<card xmlns=\"http://x\" xmlns:xsi=\"y\" xsi:s=\"z\" name=\"A\">\n <!-- c -->\n <init>\n  <colors> red </colors>\n </init>\n</card>").unwrap();
        assert_eq!(e.name, "card");
        assert_eq!(e.attrs, [("name".into(), "A".into())]);
        let init = e.child("init").unwrap();
        assert_eq!(init.line, 4);
        assert_eq!(init.child("colors").unwrap().text, "red");
        assert_eq!(e.descendants().len(), 3);
        // Text around child elements is joined, then trimmed.
        let e = parse("<a>\n x <b/>\n <c> z </c> y \n</a>").unwrap();
        assert_eq!(e.text, "x \n  y");
        assert_eq!(e.children[1].text, "z");
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let err = parse("<card>\n <init>\n</card>").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.message.contains("init"), "{}", err.message);
    }
}
