//! One card file → a [`Card`]: its name, `<init>` (registers, colours, card types,
//! properties), and its abilities, modifiers and attachment with every reference expanded.
//! Words of `<idcards>`, `<properties>` and `<colors>` are checked against the aliases
//! (an unknown one is a warning with its line: Magic Project's compiler reports and skips it).

use std::collections::HashMap;

use crate::decode::{decode, Encoding};
use crate::expand::{expand_all_with, ExpandError};
use crate::fragments::{ActionRef, Fragments};
use crate::tree::{self, Element};
use crate::{Error, ErrorKind};

/// A card, references expanded.
#[derive(Debug, Clone)]
pub struct Card {
    /// `<card name>`.
    pub name: String,
    /// How the file's bytes were read.
    pub encoding: Encoding,
    /// `<init><registers>`: register index (as written: `red`, `power`) → value.
    pub registers: Vec<(String, i64)>,
    /// `<init><registers>` whose value is an expression (`<register index="power"><value>
    /// <counter ...>`: a `*/*` creature), references expanded: index → the `<value>` element.
    pub computed: Vec<(String, Element)>,
    /// `<colors>` words.
    pub colors: Vec<String>,
    /// `<idcards>` words (card types: `creature`, `instant`, `global-enchantment`, …).
    pub idcards: Vec<String>,
    /// `<properties>` words (keywords and subtypes: `flying`, `angel`).
    pub properties: Vec<String>,
    /// `<abilities>` children, expanded.
    pub abilities: Vec<Element>,
    /// `<modifiers>` children, expanded.
    pub modifiers: Vec<Element>,
    /// `<attachment>`, expanded.
    pub attachment: Option<Element>,
    /// Other top-level elements (`<keywords>`), as written.
    pub other: Vec<Element>,
    /// Line of the `<card>` element.
    pub line: u32,
    /// Problems that do not stop the card being read (unknown alias words), with lines.
    pub warnings: Vec<String>,
}

impl Card {
    /// An `<init>` register's value (`power`, `red`, `colorless`).
    pub fn register(&self, index: &str) -> Option<i64> {
        self.registers
            .iter()
            .find(|(k, _)| k == index)
            .map(|(_, v)| *v)
    }

    /// Whether `<idcards>` has the word.
    pub fn is(&self, idcard: &str) -> bool {
        self.idcards.iter().any(|w| w == idcard)
    }

    /// Whether `<properties>` has the word.
    pub fn has(&self, property: &str) -> bool {
        self.properties.iter().any(|w| w == property)
    }
}

/// Reads one card file's bytes (`file` names it in errors).
pub fn parse_card(file: &str, bytes: &[u8], fragments: &Fragments) -> Result<Card, Error> {
    let decoded = decode(bytes).map_err(|message| Error {
        kind: ErrorKind::Encoding,
        file: file.to_owned(),
        line: 1,
        element: None,
        message,
    })?;
    let root = tree::parse(&decoded.text).map_err(|e| Error::syntax(file, e))?;
    card_of(file, root, decoded.encoding, fragments)
}

/// The card of a parsed root element.
fn card_of(
    file: &str,
    root: Element,
    encoding: Encoding,
    fragments: &Fragments,
) -> Result<Card, Error> {
    if root.name != "card" {
        return Err(Error::at(
            file,
            &root,
            "a card file's root element is `<card name=\"...\">`",
        ));
    }
    let Some(name) = root.attr("name").map(str::trim).filter(|n| !n.is_empty()) else {
        return Err(Error::at(
            file,
            &root,
            "the card has no `name`; add name=\"<card name>\"",
        ));
    };
    let local = match root.child("actions") {
        Some(decls) => local_actions(decls, file)?,
        None => HashMap::new(),
    };
    let refs = (fragments, &local);
    let expand = |list: Vec<Element>| {
        expand_all_with(fragments, &local, list).map_err(|e| reference_error(file, e))
    };
    let mut card = Card {
        name: name.to_owned(),
        encoding,
        registers: Vec::new(),
        computed: Vec::new(),
        colors: Vec::new(),
        idcards: Vec::new(),
        properties: Vec::new(),
        abilities: Vec::new(),
        modifiers: Vec::new(),
        attachment: None,
        other: Vec::new(),
        line: root.line,
        warnings: Vec::new(),
    };
    // The card's elements move into the card (no copies).
    for top in root.children {
        match top.name.as_str() {
            "init" => init(file, &top, refs, &mut card)?,
            "abilities" => card.abilities = expand(top.children)?,
            "modifiers" => card.modifiers = expand(top.children)?,
            "attachment" => card.attachment = expand(vec![top])?.into_iter().next(),
            "rules-author-comment" | "actions" => {}
            _ => card.other.push(top),
        }
    }
    local_abilities(file, &card)?;
    Ok(card)
}

/// `<insert-ability ref>` / `<add-ability ref>` that are not shared references name one of
/// the card's own abilities (`reference-name`), or `this`.
fn local_abilities(file: &str, card: &Card) -> Result<(), Error> {
    fn names_one(e: &Element) -> bool {
        matches!(e.name.as_str(), "insert-ability" | "add-ability")
            && e.attr("ref").is_some_and(|r| r != "this")
            || e.children.iter().any(names_one)
    }
    let mut tops = card
        .abilities
        .iter()
        .chain(&card.modifiers)
        .chain(&card.attachment);
    if !tops.any(names_one) {
        return Ok(());
    }
    let all: Vec<&Element> = card
        .abilities
        .iter()
        .chain(&card.modifiers)
        .chain(&card.attachment)
        .flat_map(Element::descendants)
        .collect();
    let declared: Vec<&str> = all
        .iter()
        .filter_map(|e| e.attr("reference-name"))
        .collect();
    for e in &all {
        if let ("insert-ability" | "add-ability", Some(r)) = (e.name.as_str(), e.attr("ref")) {
            if r != "this" && !declared.contains(&r) {
                return Err(Error::at(file, e, &format!("no ability of this card has reference-name=\"{r}\"; declare it, or name a reference of fragment-references.xml")));
            }
        }
    }
    Ok(())
}

/// The card's own `<actions><action reference-name>` declarations (in front of the
/// fragments' action references while the card is expanded).
fn local_actions(decls: &Element, file: &str) -> Result<HashMap<String, ActionRef>, Error> {
    let mut local = HashMap::new();
    for a in &decls.children {
        let Some(name) = a.attr("reference-name") else {
            return Err(Error::at(
                file,
                a,
                "a local action without `reference-name`; name it",
            ));
        };
        let takes_parameters = a.attr("macro") != Some("false");
        local.insert(
            name.to_owned(),
            ActionRef {
                body: a.children.clone(),
                takes_parameters,
            },
        );
    }
    Ok(local)
}

fn reference_error(file: &str, e: ExpandError) -> Error {
    Error {
        kind: ErrorKind::Reference,
        file: file.to_owned(),
        line: e.line,
        element: Some(e.element),
        message: e.message,
    }
}

/// `<init>`: registers, colours, card types and properties (`refs`: the fragments and the
/// card's local actions).
fn init(
    file: &str,
    init: &Element,
    refs: (&Fragments, &HashMap<String, ActionRef>),
    card: &mut Card,
) -> Result<(), Error> {
    let (f, local) = refs;
    for part in &init.children {
        match part.name.as_str() {
            "registers" => {
                for r in &part.children {
                    let (Some(index), Some(value)) = (r.attr("index"), r.attr("value")) else {
                        // A register whose value is an expression element is kept out of the
                        // plain list; the translator sees the `<init>` element itself.
                        let Some(index) = r.attr("index") else {
                            return Err(Error::at(file, r, "a register needs an `index`"));
                        };
                        if let Some(v) = r.child("value") {
                            let mut v = v.clone();
                            let children = std::mem::take(&mut v.children);
                            v.children = expand_all_with(f, local, children)
                                .map_err(|e| reference_error(file, e))?;
                            card.computed.push((index.to_owned(), v));
                        }
                        continue;
                    };
                    match f.value(value) {
                        Some(v) => card.registers.push((index.to_owned(), v)),
                        None => {
                            return Err(Error::at(
                                file,
                                r,
                                &format!(
                                    "register value `{value}` is neither a number nor an alias"
                                ),
                            ))
                        }
                    }
                }
            }
            "colors" | "idcards" | "properties" => {
                let words: Vec<String> = part.text.split_whitespace().map(str::to_owned).collect();
                for w in &words {
                    if !f.aliases.contains_key(w) {
                        card.warnings.push(format!(
                            "{file}:{}: <{}>: unknown word `{w}` (not in fragment-aliases.xml)",
                            part.line, part.name
                        ));
                    }
                }
                match part.name.as_str() {
                    "colors" => card.colors = words,
                    "idcards" => card.idcards = words,
                    _ => card.properties = words,
                }
            }
            _ => {}
        }
    }
    Ok(())
}
