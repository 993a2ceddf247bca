//! `firemox-xml`: reads Magic Project's (Firemox's) card XML — the format of its 6,620
//! card files, `validator.xsd`'s grammar — into an owned element tree with every reference
//! expanded:
//!
//! - **Encodings**: each file's XML declaration is honoured (`ISO-8859-1`, `ISO-8859-15`,
//!   `US-ASCII`, `UTF-8`); an undeclared file that is not UTF-8 is read as Latin-1
//!   ([`decode`]).
//! - **Fragments**: `fragment-references.xml` (named tests, actions, abilities, attachments)
//!   and `fragment-aliases.xml` (named numbers) are read once ([`Fragments`]); a card's own
//!   `<actions>` declarations add to them for that card.
//! - **Expansion**: `<action ref>` with its MACRO parameters (`value`, `<test>`,
//!   `<counter-test>`, `<actions>` plugged into `<macro>`), `<ability ref>`,
//!   `<attachment ref>`, `<test ref>` ([`expand`]).
//!
//! ```
//! let refs = r#"<references><actions><action reference-name="hit"><assign-damage/></action></actions><abilities/></references>"#;
//! let aliases = r#"<aliases><alias name="red" value="4"/></aliases>"#;
//! let f = firemox_xml::Fragments::load("refs.xml", refs, "aliases.xml", aliases).unwrap();
//! let card = firemox_xml::parse_card("Shock.xml", br#"<card name="Shock"><init><registers><register index="red" value="1"/></registers><idcards>instant</idcards></init>
//!   <abilities><activated-ability playable="this" zone="hand"><effects><action ref="hit" value="2"/></effects></activated-ability></abilities></card>"#, &f).unwrap();
//! assert_eq!(card.name, "Shock");
//! assert_eq!(card.register("red"), Some(1));
//! let effects = card.abilities[0].child("effects").unwrap();
//! assert_eq!(effects.children[0].attr("value"), Some("2"));
//! assert_eq!(effects.children[0].from_ref.as_deref(), Some("hit"));
//! ```
//!
//! Errors name the file, the line and the element ([`Error`]); nothing here panics on any
//! input.

pub mod card;
pub mod decode;
pub mod expand;
pub mod fragments;
pub mod shared;
pub mod tree;

pub use card::{parse_card, Card};
pub use decode::{decode, Encoding};
pub use fragments::Fragments;
pub use shared::Str;
pub use tree::Element;

/// What kind of problem an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The bytes are not text in the declared encoding.
    Encoding,
    /// The XML is not well-formed.
    Syntax,
    /// A reference names nothing, or references nest without end.
    Reference,
    /// Well-formed XML that is not a card (no `<card name>`, a register without a value).
    Structure,
}

/// A file that cannot be read as a card: where (file:line, the element) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What kind of problem.
    pub kind: ErrorKind,
    /// The file.
    pub file: String,
    /// 1-based line (1 when the whole file is at fault).
    pub line: u32,
    /// The element at fault, as written (`<action ref="x">`), when there is one.
    pub element: Option<String>,
    /// What is wrong and what to do.
    pub message: String,
}

impl Error {
    /// An error at an element of `file`.
    pub fn at(file: &str, e: &Element, message: &str) -> Error {
        Error {
            kind: ErrorKind::Structure,
            file: file.to_owned(),
            line: e.line,
            element: Some(e.start_tag()),
            message: message.to_owned(),
        }
    }

    /// An XML syntax error of `file`.
    pub fn syntax(file: &str, e: tree::SyntaxError) -> Error {
        Error {
            kind: ErrorKind::Syntax,
            file: file.to_owned(),
            line: e.line,
            element: None,
            message: format!("column {}: {}", e.column, e.message),
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: ", self.file, self.line)?;
        if let Some(e) = &self.element {
            write!(f, "{e}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
