//! `firemox`: a content loader for Magic Project's (Firemox's) card XML (`cards/*.xml`,
//! read with the `firemox-xml` crate, references from the corpus' own
//! `fragment-references.xml` and aliases from `fragment-aliases.xml` expanded). Every card
//! file becomes one class of the `firemox` mod, which plays on the `mtg` mod's rules
//! (`Serra Angel` → `firemox:class/serra_angel`):
//!
//! | Firemox | Tessera |
//! |---|---|
//! | `<card name>` | property `title` |
//! | `<register index="white" value="2"/>`, `colorless` | `cost_w = 2`, `cost_generic`, `mana_value` |
//! | `power`, `toughness` registers | `power`, `max_health` |
//! | `<colors>` | colour tags (`white`) |
//! | `<idcards>creature</idcards>` | tags `creature`, `permanent` |
//! | `<properties>flying angel</properties>` | tags `flying`, `angel` (keywords the mtg rules implement; subtypes) |
//! | `cast-spell`, `cast-land`, `tap-add-G`, `<give-mana>` on `{T}`, `come-into-play-tapped` | the mtg rules' casting, land play, `makes_g`, entering tapped ([`card`]) |
//! | an instant's or sorcery's hand ability: pay the cost, one target, damage / +N/+N until end of turn / counter / destroy / bounce / gain life, `finish-spell` | a trigger on `mtg:event/resolve` ([`spell`]) |
//! | `{T}`: deal N damage to a target | an ability put on the stack ([`play`]) |
//! | `<triggered-ability>` on entering the battlefield, attacking, blocking | an ability put on the stack ([`triggers`]) |
//! | `<static-modifier filter-zone="play">` with a `<while>` test: +N/+N, keywords | a class aura ([`statics`]) |
//! | keywords granted or removed, colours added or set, keyword abilities granted (`<property-modifier operation="remove">`, `<color-modifier>`, `<ability-modifier>` of `flanking`) | `op = "tag"` / `op = "untag"` aura modifiers ([`granted`]) |
//! | `artifact`, `global-enchantment` | cast with the mtg rules' `cast_permanent` |
//! | `local-enchantment`, `cast-enchant`, `<attachment>` with modifiers | an Aura of the mtg rules (`cast_aura`, a class aura over `mtg:enchanted`) ([`attach`]) |
//!
//! A card using anything else is still a class — tagged `untranslated`, with the features
//! it lacks in its `missing` property — but not `deck_card`, so decks leave it out. Each
//! lacking feature is also reported at its element (`report_unsupported`), so `tessera
//! check --format json` lists every such card with what it lacks, and a histogram.

pub mod animate;
pub mod attach;
pub mod card;
pub mod computed;
pub mod conditions;
pub mod cost_targets;
pub mod counters;
pub mod counts;
pub mod effects;
pub mod granted;
pub mod graveyard;
pub mod hand;
pub mod hybrid;
pub mod kicker;
pub mod life;
pub mod mana;
pub mod movement;
pub mod pay;
pub mod play;
pub mod prevention;
pub mod replace;
pub mod replace_damage;
pub mod restrict;
pub mod retarget;
pub mod slot;
pub mod spell;
pub mod statics;
pub mod trigger_context;
pub mod trigger_targets;
pub mod triggers;
pub mod upkeep;

use std::cell::RefCell;
use std::rc::Rc;

use firemox_xml::Fragments;
use serde_json::Value;
use tessera_plugin_api::prelude::*;

thread_local! {
    /// The fragments, read once per folder of the corpus (the loader instance lives for
    /// the whole load).
    static FRAGMENTS: RefCell<Option<(String, Rc<Fragments>)>> = const { RefCell::new(None) };
}

/// One Firemox card file → one `[class.*]` (and the classes of its stack abilities).
#[loader("firemox:loader/cards", extensions = ["firemoxcard"])]
fn cards(text: &str) -> Result<Value, LoadError> {
    let path = load_path().ok_or_else(|| LoadError::new("the loader runs without a file path"))?;
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path.as_str()));
    let root = dir.rsplit_once('/').map_or(".", |(r, _)| r).to_owned();
    let fragments = fragments(&root)?;
    // The host reads non-UTF-8 files as Latin-1, but a file that declares Latin-1 and
    // happens to be valid UTF-8 must still be read as Latin-1: the crate decodes the bytes.
    let bytes = if text.is_ascii() {
        text.as_bytes().to_vec()
    } else {
        load_file(&path).map_err(|e| LoadError::new(format!("{path}: {e}")))?
    };
    let parsed = firemox_xml::parse_card(file, &bytes, &fragments)
        .map_err(|e| LoadError::at(line_offset(text, e.line), e.to_string()))?;
    let card = card::translate(&parsed, &fragments);
    report_span(format!("class.{}", card.class), 0..text.len());
    for m in &card.missing {
        report_unsupported(
            m.clone(),
            format!("`{m}` is not supported yet: `{}` loads tagged `untranslated` and decks leave it out", card.class),
            Some(offset_of(text, m)),
        );
    }
    Ok(card.tree)
}

/// The fragments of the corpus at `root` (the folder holding `cards/`), read once.
fn fragments(root: &str) -> Result<Rc<Fragments>, LoadError> {
    if let Some(f) = FRAGMENTS.with(|c| {
        c.borrow()
            .as_ref()
            .filter(|(r, _)| r == root)
            .map(|(_, f)| f.clone())
    }) {
        return Ok(f);
    }
    let read = |name: &str| -> Result<String, LoadError> {
        let p = format!("{root}/{name}");
        let bytes = load_file(&p).map_err(|e| {
            LoadError::new(format!(
                "{p}: {e}; the card files need the corpus' {name} beside their folder"
            ))
        })?;
        firemox_xml::decode(&bytes)
            .map(|d| d.text)
            .map_err(|e| LoadError::new(format!("{p}: {e}")))
    };
    let refs = read("fragment-references.xml")?;
    let aliases = read("fragment-aliases.xml")?;
    let f = Fragments::load(
        "fragment-references.xml",
        &refs,
        "fragment-aliases.xml",
        &aliases,
    )
    .map_err(|e| LoadError::new(e.to_string()))?;
    let f = Rc::new(f);
    FRAGMENTS.with(|c| *c.borrow_mut() = Some((root.to_owned(), f.clone())));
    Ok(f)
}

/// The byte offset where 1-based `line` starts.
/// Where a missing feature is written: the first `<element` it names (`<choice>`,
/// `activated ability with <repeat>`), else the `<card` element.
fn offset_of(text: &str, missing: &str) -> usize {
    let element = missing.split_once('<').map(|(_, rest)| {
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .unwrap_or(rest.len());
        &rest[..end]
    });
    element
        .filter(|e| !e.is_empty())
        .and_then(|e| text.find(&format!("<{e}")))
        .or_else(|| text.find("<card"))
        .unwrap_or(0)
}

fn line_offset(text: &str, line: u32) -> usize {
    let n = usize::try_from(line).unwrap_or(1).saturating_sub(1);
    text.split_inclusive('\n').take(n).map(str::len).sum()
}

export_plugin!(provides = [cards]);
