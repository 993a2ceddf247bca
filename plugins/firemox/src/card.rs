//! One Firemox card → one class of the `firemox` mod on the `mtg` rules: name, cost, card
//! types, colours, power and toughness, the keywords the rules implement, and the
//! abilities [`crate::spell`] and [`crate::play`] translate. Everything else is listed in
//! `missing` (the class is then tagged `untranslated`, not `deck_card`).

use firemox_xml::{Card as Xml, Element, Fragments};
use serde_json::{json, Map, Value};

/// `<properties>` words the mtg rules implement, and the tag each becomes.
pub const KEYWORDS: &[(&str, &str)] = &[
    ("flying", "flying"),
    ("reach", "reach"),
    ("vigilance", "vigilance"),
    ("haste", "haste"),
    ("defender", "defender"),
    ("first-strike", "first_strike"),
    ("double-strike", "double_strike"),
    ("trample", "trample"),
    ("basic-land", "basic"),
    ("legend", "legendary"),
    ("cannot-block", "cannot_block"),
    ("cannot-attack", "cannot_attack"),
    ("flash", "flash"),
    ("indestructible", "indestructible"),
    ("plainswalk", "plainswalk"),
    ("islandwalk", "islandwalk"),
    ("swampwalk", "swampwalk"),
    ("mountainwalk", "mountainwalk"),
    ("forestwalk", "forestwalk"),
    ("protection-from-white", "protection_from_white"),
    ("protection-from-blue", "protection_from_blue"),
    ("protection-from-black", "protection_from_black"),
    ("protection-from-red", "protection_from_red"),
    ("protection-from-green", "protection_from_green"),
    ("arcane", "arcane"),
    ("snow", "snow"),
    ("aura", "aura"),
    ("horsemanship", "horsemanship"),
    ("fear", "fear"),
    ("shadow", "shadow"),
    ("shroud", "shroud"),
    ("unblockable", "unblockable"),
    ("does-not-untap", "does_not_untap"),
    ("block-only-flying", "blocks_only_flyers"),
];

/// Colour words (`<colors>`, registers) and the mtg letter of each.
pub const COLOURS: &[(&str, char)] = &[
    ("white", 'w'),
    ("blue", 'u'),
    ("black", 'b'),
    ("red", 'r'),
    ("green", 'g'),
];

/// Basic land types (`<idcards>`): each taps for one mana of its colour (305.6).
const LAND_TYPES: &[(&str, char)] = &[
    ("plains", 'w'),
    ("island", 'u'),
    ("swamp", 'b'),
    ("mountain", 'r'),
    ("forest", 'g'),
];

/// A translated card: its class name and content tree.
#[derive(Debug)]
pub struct Card {
    /// The class name (the card's name, lowercase, `_` between words).
    pub class: String,
    /// `{ "class": { NAME: {...}, ... } }`.
    pub tree: Value,
    /// What the card lacks (empty when it is playable).
    pub missing: Vec<String>,
}

/// What a card's parts add up to.
#[derive(Default)]
pub struct Parts {
    /// Tags of the card's class.
    pub tags: Vec<String>,
    /// Triggers of the card's class.
    pub triggers: Vec<Value>,
    /// Classes of abilities it puts on the stack.
    pub classes: Vec<(String, Value)>,
    /// What it lacks.
    pub missing: Vec<String>,
    /// Properties of the card's class besides the characteristics (an ability's cost).
    pub props: Vec<(String, Value)>,
    /// Named selectors of the card (`count(...)` in computed values, [`crate::counts`]).
    pub refs: Vec<(String, Value)>,
    /// Class auras of the card besides its statics (an ability's restriction,
    /// [`crate::restrict`]).
    pub auras: Vec<Value>,
    /// How many activated abilities (other than mana abilities) it has so far
    /// ([`crate::slot`]).
    pub activated: usize,
    /// Class replacements of the card ([`crate::replace`]).
    pub replacements: Vec<Value>,
    /// The card's mana abilities, completed by [`crate::mana::finish`].
    pub mana: Vec<crate::mana::Ability>,
}

/// Translates a parsed card. Every card becomes a class; what the rules cannot play yet
/// is listed in `missing`.
pub fn translate(card: &Xml, f: &Fragments) -> Card {
    let class = slug(&card.name);
    let mut props = Map::new();
    let mut parts = Parts {
        tags: vec!["card".into(), "firemox".into()],
        ..Parts::default()
    };
    props.insert("title".into(), json!(card.name));
    types(card, &mut parts);
    cost(card, &mut props, &mut parts);
    let hybrid = crate::hybrid::cost(card, f, &mut props);
    let mut auras = Vec::new();
    if let Some(a) = crate::counts::power_toughness(f, &class, &card.computed, &mut parts) {
        auras.push(a);
    }
    power_toughness(card, &mut props, &mut parts);
    properties(card, f, &mut parts);
    for a in &card.abilities {
        if hybrid && crate::hybrid::is_way_to_pay(f, a) {
            continue;
        }
        ability(card, &class, a, f, &mut parts);
    }
    for m in &card.modifiers {
        let own = matches!(m.name.as_str(), "register-modifier" | "property-modifier");
        let a = if own {
            crate::statics::translate_own(f, &class, m, &mut parts)
        } else {
            crate::statics::translate(f, &class, m, &mut parts)
        };
        match a {
            Ok(a) => auras.push(a),
            Err(m) => parts.missing.push(m),
        }
    }
    crate::mana::finish(&mut parts);
    auras.append(&mut parts.auras);
    ability_colours(card, &mut parts.classes);
    match (&card.attachment, card.is("local-enchantment")) {
        (Some(a), true) => auras.extend(crate::attach::translate(f, a, &mut parts)),
        (Some(_), false) => parts.missing.push("attachment".into()),
        (None, true) => parts
            .missing
            .push("local-enchantment without an attachment".into()),
        (None, false) => {}
    }
    for o in &card.other {
        parts.missing.push(format!("<{}>", o.name));
    }
    props.extend(std::mem::take(&mut parts.props));
    let mut missing = parts.missing;
    missing.sort();
    missing.dedup();
    let mut tags = parts.tags;
    if missing.is_empty() {
        tags.push("deck_card".into());
    } else {
        tags.push("untranslated".into());
        props.insert("missing".into(), json!(missing.join("; ")));
    }
    // The first of each tag, in order (a card has a few: no set of copies).
    let mut i = 0;
    while i < tags.len() {
        if tags[..i].contains(&tags[i]) {
            tags.remove(i);
        } else {
            i += 1;
        }
    }
    // Moved in, not `json!`'s deep copy of the properties.
    let mut def = Map::new();
    def.insert("properties".into(), Value::Object(props));
    def.insert("tags".into(), tags.into());
    let mut def = Value::Object(def);
    if missing.is_empty() && !parts.triggers.is_empty() {
        def["trigger"] = Value::Array(parts.triggers);
    }
    if missing.is_empty() && !parts.replacements.is_empty() {
        def["replacement"] = Value::Array(parts.replacements);
    }
    if missing.is_empty() && !auras.is_empty() {
        def["aura"] = Value::Array(auras);
    }
    let mut classes = Map::new();
    classes.insert(class.clone(), def);
    let mut tree = json!({});
    if missing.is_empty() {
        classes.extend(parts.classes);
        if !parts.refs.is_empty() {
            tree["ref"] = Value::Object(parts.refs.into_iter().collect());
        }
    }
    tree["class"] = Value::Object(classes);
    Card {
        tree,
        class,
        missing,
    }
}

/// Gives the classes of the card's abilities (tag `ability`) its colours: protection from
/// a colour, and tests of a colour, see an ability as its card (the mtg rules'
/// `targetable_by_me` reads the ability's colour tags).
fn ability_colours(card: &Xml, classes: &mut [(String, Value)]) {
    let colours: Vec<Value> = card
        .colors
        .iter()
        .filter(|c| COLOURS.iter().any(|(n, _)| n == c))
        .map(|c| json!(c))
        .collect();
    for (_, def) in classes.iter_mut() {
        if let Some(tags) = def["tags"].as_array_mut() {
            if tags.iter().any(|t| t == "ability") {
                tags.extend(colours.iter().cloned());
            }
        }
    }
}

/// `<idcards>`: creatures, lands (basic land types make mana) and instants/sorceries are
/// played; other card types are missing.
fn types(card: &Xml, out: &mut Parts) {
    let mut playable = false;
    for w in &card.idcards {
        match w.as_str() {
            "creature" | "artifact-creature" => {
                out.tags.extend(["creature".into(), "permanent".into()]);
                if w == "artifact-creature" {
                    out.tags.push("artifact".into());
                }
                playable = true;
            }
            "land" => {
                out.tags.extend(["land".into(), "permanent".into()]);
                playable = true;
            }
            "instant" | "sorcery" => {
                out.tags.extend([w.clone(), "spell".into()]);
                playable = true;
            }
            // The aura's tags come with its attachment ([`crate::attach`]).
            "local-enchantment" => playable = true,
            "artifact" | "global-enchantment" => {
                let t = if w == "artifact" {
                    "artifact"
                } else {
                    "enchantment"
                };
                out.tags.extend([t.into(), "permanent".into()]);
                playable = true;
            }
            other => match LAND_TYPES.iter().find(|(t, _)| *t == other) {
                Some((t, c)) => {
                    out.tags.extend([
                        "land".into(),
                        "permanent".into(),
                        (*t).into(),
                        format!("makes_{c}"),
                    ]);
                    playable = true;
                }
                None => out.missing.push(format!("card type {other}")),
            },
        }
    }
    if !playable && card.idcards.is_empty() {
        out.missing.push("no card type".into());
    }
}

/// Registers `colorless`, `white` ... `green` → the cost; other registers of `<init>` (hybrid
/// mana, loyalty) are missing. Colour tags from `<colors>`.
fn cost(card: &Xml, props: &mut Map<String, Value>, out: &mut Parts) {
    let mut total = 0;
    let generic = card.register("colorless").unwrap_or(0);
    props.insert("cost_generic".into(), json!(generic));
    total += generic;
    for (name, c) in COLOURS {
        let n = card.register(name).unwrap_or(0);
        props.insert(format!("cost_{c}"), json!(n));
        total += n;
    }
    props.insert("cost_c".into(), json!(0));
    props.insert("mana_value".into(), json!(total));
    for (index, _) in &card.registers {
        let known = index == "colorless"
            || index == "power"
            || index == "toughness"
            || COLOURS.iter().any(|(n, _)| n == index);
        if !known {
            out.missing.push(format!("register {index}"));
        }
    }
    for w in &card.colors {
        if COLOURS.iter().any(|(n, _)| n == w) {
            out.tags.push(w.clone());
        }
    }
}

/// `power` and `toughness` registers (0 for a computed one, [`crate::counts`]); a creature
/// needs both.
fn power_toughness(card: &Xml, props: &mut Map<String, Value>, out: &mut Parts) {
    let computed = |i: &str| card.computed.iter().any(|(k, _)| k == i).then_some(0);
    match (
        card.register("power").or_else(|| computed("power")),
        card.register("toughness").or_else(|| computed("toughness")),
    ) {
        (Some(p), Some(t)) => {
            props.insert("power".into(), json!(p));
            props.insert("max_health".into(), json!(t));
        }
        _ if out.tags.iter().any(|t| t == "creature") => out
            .missing
            .push("a creature without power and toughness registers".into()),
        _ => {}
    }
}

/// `<properties>`: subtypes (the aliases between `FIRST_SUB_TYPE` and `LAST_SUB_TYPE`)
/// become tags; keywords the rules implement become their tags; other rules words
/// (protection, landwalk, legend, ...) are missing.
fn properties(card: &Xml, f: &Fragments, out: &mut Parts) {
    let first = f.aliases.get("FIRST_SUB_TYPE").copied().unwrap_or(i64::MAX);
    let last = f.aliases.get("LAST_SUB_TYPE").copied().unwrap_or(i64::MIN);
    for w in &card.properties {
        if let Some((_, tag)) = KEYWORDS.iter().find(|(k, _)| k == w) {
            out.tags.push((*tag).into());
            continue;
        }
        match f.aliases.get(w) {
            Some(v) if (first..=last).contains(v) => out.tags.push(slug(w)),
            _ => out.missing.push(format!("property {w}")),
        }
    }
}

/// One ability of the card.
fn ability(card: &Xml, class: &str, a: &Element, f: &Fragments, out: &mut Parts) {
    let reference = a.from_ref.as_deref().unwrap_or("");
    match (reference, a.name.as_str()) {
        ("cast-spell", _) => {
            if !plain(f, "ability", "cast-spell", a) {
                out.missing.push("cast-spell with extra costs or effects".into());
            } else if !out.tags.iter().any(|t| t == "permanent") {
                out.missing.push("cast-spell of a card that is not a permanent".into());
            }
        }
        ("cast-land", _) if plain(f, "ability", "cast-land", a) => {}
        ("cast-enchant", _) if card.is("local-enchantment") && plain(f, "ability", "cast-enchant", a) => {}
        // An Aura with flash (702.8): cast at instant timing.
        ("cast-enchant-flash", _)
            if card.is("local-enchantment") && plain(f, "ability", "cast-enchant-flash", a) =>
        {
            out.tags.push("flash".into())
        }
        (_, _) if crate::granted::keyword_ability(f, a).is_some() => {
            out.tags.extend(crate::granted::keyword_ability(f, a).map(String::from));
        }
        ("cycling", _) => crate::hand::cycling(f, a, out),
        ("cast-spell-kicker", _) => crate::kicker::translate(card, f, class, a, out),
        ("come-into-play-tapped", _) => out.triggers.push(json!({
            "when": { "event": "core:event/moved", "target": [{ "type": "is_self" }, { "type": "in_zone", "zone": "battlefield" }] },
            "do": [{ "type": "tag", "tag": "tapped" }],
        })),
        ("", "activated-ability") if a.attr("zone") == Some("hand") && a.attr("playable") == Some("this") && card.is_spell() => {
            crate::spell::translate(card, a, f, out);
        }
        (_, "activated-ability") if a.attr("zone") == Some("play") => crate::play::translate(card, class, a, f, out),
        ("", "triggered-ability") => crate::triggers::translate(&card.name, class, a, f, out),
        // Keyword abilities the corpus writes as triggered abilities ([`crate::upkeep`]).
        ("echo" | "cumulative-upkeep", "triggered-ability") => {
            crate::triggers::translate(&card.name, class, a, f, out)
        }
        ("", "replacement-ability") => crate::replace::translate(f, class, a, out),
        ("", name) => out.missing.push(name.to_owned()),
        (r, _) => out.missing.push(format!("ability {r}")),
    }
}

/// Instants and sorceries.
trait IsSpell {
    fn is_spell(&self) -> bool;
}

impl IsSpell for Xml {
    fn is_spell(&self) -> bool {
        self.is("instant") || self.is("sorcery")
    }
}

/// Whether `e` is exactly what the reference `name` expands to with no parameters (no
/// MACRO value, test or plugged actions): `kind` is `ability` or `action`.
pub fn plain(f: &Fragments, kind: &str, name: &str, e: &Element) -> bool {
    plain_list(f, kind, name, std::slice::from_ref(e))
}

/// [`plain`] for the elements one action reference expanded to.
pub fn plain_list(f: &Fragments, kind: &str, name: &str, list: &[Element]) -> bool {
    expands_to(f, kind, name, &[], list)
}

/// Whether the reference `name` with the attributes `attrs` (a MACRO `value`) and
/// nothing else expands to exactly `list`.
pub fn expands_to(
    f: &Fragments,
    kind: &str,
    name: &str,
    attrs: &[(&str, &str)],
    list: &[Element],
) -> bool {
    f.plain_expansion(kind, name, attrs)
        .is_ok_and(|v| v.as_slice() == list)
}

/// A card name as a class name: lowercase letters and digits, `_` between words
/// (`AEther Burst` → `aether_burst`, `Gaea's Cradle` → `gaeas_cradle`).
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if c == '\'' {
            continue;
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() {
        out.push_str("unnamed");
    }
    out
}
