//! The shared fragments cards refer to: `fragment-references.xml` (named tests, actions,
//! abilities and attachments, `<… reference-name="…">`) and `fragment-aliases.xml` (named
//! constants: card types, properties, register indexes, colours). Read once, then shared
//! by every card's expansion ([`crate::expand`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::expand::{expand_all, ExpandError};
use crate::tree::{self, Element};
use crate::Error;

/// One named action reference: its actions, and whether it takes macro parameters.
#[derive(Debug, Clone)]
pub struct ActionRef {
    /// The actions, in order.
    pub body: Vec<Element>,
    /// `macro="false"` turns off the value/test parameters.
    pub takes_parameters: bool,
}

/// The references and aliases of a Firemox game.
#[derive(Debug, Default, Clone)]
pub struct Fragments {
    /// `<test reference-name>`: the test element (a container of one test).
    pub tests: HashMap<String, Element>,
    /// `<action reference-name>`.
    pub actions: HashMap<String, ActionRef>,
    /// `<ability reference-name>`: the ability element it holds.
    pub abilities: HashMap<String, Element>,
    /// `<attachment reference-name>`: the attachment element.
    pub attachments: HashMap<String, Element>,
    /// `<alias name value>`.
    pub aliases: HashMap<String, i64>,
    /// [`Fragments::plain_expansion`]s computed so far.
    plain: Plain,
}

/// A [`Fragments::plain_expansion`]: the elements, or why the reference does not expand.
pub type Expansion = Result<Arc<Vec<Element>>, ExpandError>;

/// Expansions of references named without parameters, by kind, name and attributes.
#[derive(Default)]
struct Plain(Mutex<HashMap<String, Expansion>>);

/// A clone starts with no expansions (its references may be changed before it expands).
impl Clone for Plain {
    fn clone(&self) -> Plain {
        Plain::default()
    }
}

impl std::fmt::Debug for Plain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Plain(..)")
    }
}

impl Fragments {
    /// Reads the references file and the aliases file (their decoded text; `*_file` name
    /// them in errors).
    pub fn load(
        references_file: &str,
        references: &str,
        aliases_file: &str,
        aliases: &str,
    ) -> Result<Fragments, Error> {
        let mut f = Fragments::default();
        let refs = tree::parse(references).map_err(|e| Error::syntax(references_file, e))?;
        for group in &refs.children {
            for item in &group.children {
                let Some(name) = item.attr("reference-name") else {
                    return Err(Error::at(
                        references_file,
                        item,
                        "a reference without `reference-name`; name it",
                    ));
                };
                let name = name.to_owned();
                match group.name.as_str() {
                    "tests" => {
                        f.tests.insert(name, item.clone());
                    }
                    "actions" => {
                        let takes_parameters = item.attr("macro") != Some("false");
                        f.actions.insert(name, ActionRef { body: item.children.clone(), takes_parameters });
                    }
                    "abilities" => match item.children.as_slice() {
                        [one] => {
                            f.abilities.insert(name, one.clone());
                        }
                        _ => return Err(Error::at(references_file, item, "an ability reference holds exactly one ability")),
                    },
                    "attachments" => {
                        f.attachments.insert(name, item.clone());
                    }
                    other => {
                        return Err(Error::at(
                            references_file,
                            group,
                            &format!("unknown reference group `{other}`; expected tests, actions, abilities or attachments"),
                        ))
                    }
                }
            }
        }
        let al = tree::parse(aliases).map_err(|e| Error::syntax(aliases_file, e))?;
        for a in al.descendants().into_iter().filter(|e| e.name == "alias") {
            let (Some(name), Some(value)) = (a.attr("name"), a.attr("value")) else {
                return Err(Error::at(
                    aliases_file,
                    a,
                    "an alias needs `name` and `value`",
                ));
            };
            let Ok(v) = value.trim().parse::<i64>() else {
                return Err(Error::at(
                    aliases_file,
                    a,
                    &format!("alias value `{value}` is not a whole number"),
                ));
            };
            f.aliases.insert(name.to_owned(), v);
        }
        Ok(f)
    }

    /// What `<kind ref="name" attrs…/>` with nothing else (no MACRO test, counter-test or
    /// plugged actions) expands to: translators compare a card's expanded elements with it
    /// to recognise a reference used plainly. Each is expanded once and then shared, so
    /// the public maps must not change after the first call (a clone starts afresh).
    pub fn plain_expansion(&self, kind: &str, name: &str, attrs: &[(&str, &str)]) -> Expansion {
        let mut key = format!("{kind}\0{name}");
        for (k, v) in attrs {
            key.push('\0');
            key.push_str(k);
            key.push('\0');
            key.push_str(v);
        }
        let known = self
            .plain
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(known) = known {
            return known;
        }
        let mut all = vec![("ref".into(), name.into())];
        all.extend(attrs.iter().map(|&(k, v)| (k.into(), v.into())));
        let site = Element {
            name: kind.into(),
            attrs: all,
            ..Element::default()
        };
        let expanded = expand_all(self, &[site]).map(Arc::new);
        self.plain
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, expanded.clone());
        expanded
    }

    /// A number written as digits or as an alias (`manacost` → 255).
    pub fn value(&self, text: &str) -> Option<i64> {
        let t = text.trim();
        t.parse().ok().or_else(|| self.aliases.get(t).copied())
    }
}
