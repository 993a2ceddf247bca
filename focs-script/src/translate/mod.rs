//! Translates parsed FOCS entries into Tessera content (the tree of a JSON content file)
//! for the `freeorion` rules mod: each entry becomes a class, each `EffectsGroup` an
//! effects group of the class's effect pass (`[[class.X.effects]]`), a building's
//! `location` a content-defined condition.
//!
//! | FOCS | Tessera |
//! |---|---|
//! | `Tech`, `Policy` | class tagged `tech`/`policy`; groups act for `self.owner.capital` while the object is in zone `researched`/`adopted` |
//! | `BuildingType`, `FieldType` | class tagged `building`/`field`; groups act for the object |
//! | `Species`, `Special`, `Hull`, `Part` | class tagged `species`/`special`/`hull`/`part`, attached to the planet or ship it belongs to; groups act for `self.parent` |
//! | `SetTargetIndustry value = Value + 1` | effect `{ key = "target_industry", value = "value + 1" }` |
//! | `priority`, `stackinggroup`, `accountinglabel` | `priority`, `stacking`, `label` |
//! | `Planet`, `Building name = X`, `OwnedBy empire = Source.Owner`, `Focus type = X`, … | conditions ([`conditions`]) |
//! | `Target.Population * 0.5`, `Statistic Count condition = …`, `GameRule`, `NamedReal` | expressions ([`values`]) |
//!
//! Anything else is *unsupported*: the effects group (or location) using it is left out
//! and the construct is listed with its file:line in [`Translation::unsupported`] — the
//! loader reports each as a warning and tags the class `untranslated` — never dropped
//! silently.

mod change;
mod conditions;
mod create;
mod design;
mod effects;
mod empire;
mod opinions;
mod parts;
mod rules;
mod values;

pub use rules::Rules;

use std::collections::BTreeMap;

use serde_json::{json, Map, Value as Json};

use crate::{Node, Preprocessed, Value};

/// A construct the translation does not support, where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// The entry (`LRN_XENOARCHAEOLOGY`).
    pub entry: String,
    /// The file it was written in (relative to the content root).
    pub file: String,
    /// The 1-based line there.
    pub line: u32,
    /// The construct (`SetEmpireMeter`, `Random`, `RootCandidate`).
    pub construct: String,
    /// What was left out because of it.
    pub dropped: String,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "FOCS-UNSUPPORTED: {}:{}: `{}` in {} is not supported; {} is left out",
            self.file, self.line, self.construct, self.entry, self.dropped
        )
    }
}

/// The content of one `.focs.txt` file.
#[derive(Debug, Clone, Default)]
pub struct Translation {
    /// The content tree: `{ "class": {…}, "condition": {…} }`.
    pub tree: Json,
    /// The classes it defines, in order (class names, lowercase).
    pub classes: Vec<String>,
    /// What it could not translate.
    pub unsupported: Vec<Unsupported>,
    /// Where each part of the tree was written: its dotted path (`class.lrn_algo_elegance`,
    /// `condition.bld_regional_admin_location`), the file and the 1-based line.
    pub spans: Vec<(String, String, u32)>,
}

/// How each kind of entry becomes a class.
struct EntryKind {
    focs: &'static str,
    tag: &'static str,
    /// The object its effects groups act for, relative to the class's object.
    source: Option<&'static str>,
    /// The zone its object must be in for its groups to act (a tech once researched, a
    /// policy once adopted).
    zone: Option<&'static str>,
}

const KINDS: &[EntryKind] = &[
    EntryKind {
        focs: "Tech",
        tag: "tech",
        source: Some("self.owner.capital"),
        zone: Some("researched"),
    },
    EntryKind {
        focs: "Policy",
        tag: "policy",
        source: Some("self.owner.capital"),
        zone: Some("adopted"),
    },
    EntryKind {
        focs: "BuildingType",
        tag: "building",
        source: None,
        zone: None,
    },
    EntryKind {
        focs: "FieldType",
        tag: "field",
        source: None,
        zone: None,
    },
    EntryKind {
        focs: "Species",
        tag: "species",
        source: Some("self.parent"),
        zone: None,
    },
    EntryKind {
        focs: "Special",
        tag: "special",
        source: Some("self.parent"),
        zone: None,
    },
    EntryKind {
        focs: "Hull",
        tag: "hull",
        source: Some("self.parent"),
        zone: None,
    },
    EntryKind {
        focs: "Part",
        tag: "part",
        source: Some("self.parent"),
        zone: None,
    },
];

/// The Tessera name of a FOCS name: `LRN_ALGO_ELEGANCE` → `lrn_algo_elegance`.
pub fn class_name(focs: &str) -> String {
    focs.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// A FOCS property or meter name in Tessera's spelling: `TargetPopulation` →
/// `target_population`, `HabitableSize` → `habitable_size`.
pub fn snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// Translates the entries of one preprocessed file.
pub fn translate(pre: &Preprocessed, entries: &[Node], rules: &Rules) -> Translation {
    let mut t = Translation::default();
    let mut classes = Map::new();
    let mut conditions = Map::new();
    for entry in entries {
        if entry.kind == "SpeciesCensusOrdering" {
            // The order species are listed in by their tags (a display setting): a class
            // holding the tags in order.
            let order: Vec<Json> = entry
                .params
                .iter()
                .filter_map(|(l, v)| match (l.as_str(), v) {
                    ("tag", Value::Str(s)) => Some(json!(class_name(s))),
                    _ => None,
                })
                .collect();
            let name = "species_census_ordering".to_owned();
            classes.insert(
                name.clone(),
                json!({ "tags": ["census_ordering"], "properties": { "order": order } }),
            );
            t.classes.push(name);
            continue;
        }
        let Some(kind) = KINDS.iter().find(|k| k.focs == entry.kind) else {
            let mut cx = Cx::new(pre, rules, &entry.kind);
            let _ = cx.unsupported::<()>(entry.line, &entry.kind, "the whole entry");
            t.unsupported.append(&mut cx.found);
            continue;
        };
        let name = match entry.get("name") {
            Some(Value::Str(s)) => s.clone(),
            _ => {
                let mut cx = Cx::new(pre, rules, &entry.kind);
                let _ =
                    cx.unsupported::<()>(entry.line, "an entry without a name", "the whole entry");
                t.unsupported.append(&mut cx.found);
                continue;
            }
        };
        let mut cx = Cx::new(pre, rules, &name);
        cx.kind = entry.kind.clone();
        let class = cx.class(entry, kind);
        if let Some(loc) = entry.get("location") {
            if let Some(c) = cx.guarded("the location condition", |cx| cx.condition(loc)) {
                conditions.insert(format!("{}_location", class_name(&name)), json!({
                    "description": format!("where {name} may be built (its FOCS `location`); `source` is the empire's capital"),
                    "condition": c,
                }));
            }
        }
        let mut class = class;
        if !cx.found.is_empty() {
            let missing: Vec<Json> = cx
                .found
                .iter()
                .map(|u| Json::String(u.construct.clone()))
                .collect();
            if let Some(tags) = class["tags"].as_array_mut() {
                tags.push(json!("untranslated"));
            }
            class["properties"]["missing"] = Json::Array(missing);
        }
        if let Some(o) = pre.origin(entry.line) {
            t.spans.push((
                format!("class.{}", class_name(&name)),
                o.file.to_string(),
                o.line,
            ));
            if conditions.contains_key(&format!("{}_location", class_name(&name))) {
                let path = format!("condition.{}_location", class_name(&name));
                t.spans.push((path, o.file.to_string(), o.line));
            }
        }
        t.classes.push(class_name(&name));
        classes.insert(class_name(&name), class);
        t.unsupported.append(&mut cx.found);
    }
    let mut tree = Map::new();
    if !classes.is_empty() {
        tree.insert("class".into(), Json::Object(classes));
    }
    if !conditions.is_empty() {
        tree.insert("condition".into(), Json::Object(conditions));
    }
    t.tree = Json::Object(tree);
    t
}

/// A constructed part, or the construct that stopped it (already recorded).
type Built<T> = Result<T, Stop>;

/// Translation of a part stopped at an unsupported construct (recorded in `Cx::found`).
#[derive(Debug)]
pub(crate) struct Stop;

/// What translating one entry carries: where lines come from, the rules, named values
/// the entry defined, and what was unsupported.
pub(crate) struct Cx<'a> {
    pre: &'a Preprocessed,
    rules: &'a Rules,
    entry: String,
    /// `NamedReal` definitions seen so far, for `NamedRealLookup`.
    named: BTreeMap<String, String>,
    /// The ship part whose meter the effect being translated sets (`partname`), if any.
    pub(crate) ship_part: Option<String>,
    /// The FOCS kind of the entry being translated (`Species`, `Tech`, …).
    pub(crate) kind: String,
    /// Whether the effects group being translated acts on its source only (`scope =
    /// Source`, or no scope).
    scope_is_source: bool,
    /// Whether the candidates of the scope being translated are owned by the source's owner
    /// (`OwnedBy empire = Source.Owner` in the same `And`): then `LocalCandidate.Owner` at
    /// depth 0 is the source's owner.
    pub(crate) candidate_owned_by_source_owner: bool,
    /// How deeply conditions nest (`RootCandidate` is the candidate only at depth 0).
    depth: usize,
    /// Whether a meter effect's value is being translated: there `Target` inside a
    /// nested condition is the effect's target (the host's `effect_target`), not the
    /// nested candidate.
    in_meter_value: bool,
    found: Vec<Unsupported>,
    /// What the part being translated is (for `Unsupported::dropped`).
    part: String,
    /// The line of the innermost node being translated (values carry no line).
    pub(crate) line: usize,
}

impl<'a> Cx<'a> {
    fn new(pre: &'a Preprocessed, rules: &'a Rules, entry: &str) -> Cx<'a> {
        Cx {
            pre,
            rules,
            entry: entry.to_owned(),
            named: BTreeMap::new(),
            depth: 0,
            in_meter_value: false,
            kind: String::new(),
            ship_part: None,
            scope_is_source: false,
            candidate_owned_by_source_owner: false,
            found: Vec::new(),
            part: "the entry".into(),
            line: 0,
        }
    }

    /// Records an unsupported construct at preprocessed line `line` and stops.
    /// Line 0 means the innermost node's.
    pub(crate) fn unsupported<T>(
        &mut self,
        line: usize,
        construct: &str,
        dropped: &str,
    ) -> Built<T> {
        let line = if line == 0 { self.line } else { line };
        let (file, l) = match self.pre.origin(line) {
            Some(o) => (o.file.to_string(), o.line),
            None => (String::new(), 0),
        };
        self.found.push(Unsupported {
            entry: self.entry.clone(),
            file,
            line: l,
            construct: construct.to_owned(),
            dropped: if dropped.is_empty() {
                self.part.clone()
            } else {
                dropped.to_owned()
            },
        });
        Err(Stop)
    }

    /// Runs `f` as part `what`: `None` when it stopped.
    fn guarded<T>(&mut self, what: &str, f: impl FnOnce(&mut Cx<'a>) -> Built<T>) -> Option<T> {
        let before = std::mem::replace(&mut self.part, what.to_owned());
        let r = f(self).ok();
        self.part = before;
        r
    }

    /// One entry's class: tags, properties, effects groups.
    fn class(&mut self, entry: &Node, kind: &EntryKind) -> Json {
        let mut tags = vec![json!(kind.tag)];
        if let Some(Value::List(items)) = entry.get("tags") {
            for i in items {
                if let Value::Str(s) = i {
                    tags.push(json!(class_name(s)));
                }
            }
        }
        // A part's class (`class = ShortRange`) as a tag: `short_range`.
        if let Some(Value::Node(c)) = entry.get("class") {
            tags.push(json!(snake(&c.kind)));
        }
        // Entry flags (`CanColonize`, `Playable`, …) as tags: `can_colonize`.
        for a in &entry.args {
            if let Value::Node(f) = a {
                if f.params.is_empty() && f.args.is_empty() {
                    tags.push(json!(snake(&f.kind)));
                }
            }
        }
        let mut props = Map::new();
        if let Some(Value::Str(s)) = entry.get("name") {
            props.insert("title".into(), json!(s));
            // A species object names its species as planets do (`sp_human`).
            if kind.focs == "Species" {
                props.insert("species".into(), json!(class_name(s)));
            }
        }
        // The turn a policy object was last adopted (moved to zone `adopted`; the mod's
        // `policy_adopted` trigger records it), for `TurnsSincePolicyAdopted`.
        if kind.focs == "Policy" {
            props.insert("adopted_turn".into(), json!(0.0));
        }
        self.properties(entry, &mut props);
        if kind.focs == "Part" {
            // The meters a part object carries (see `parts`): reset and set each turn.
            for meter in [
                "capacity",
                "max_capacity",
                "secondary_stat",
                "max_secondary_stat",
            ] {
                props.insert(meter.into(), json!(0.0));
            }
        }
        let mut groups = Vec::new();
        let list = match entry.get("effectsgroups") {
            Some(Value::List(l)) => l.clone(),
            Some(one) => vec![one.clone()],
            None => Vec::new(),
        };
        for (n, g) in list.iter().enumerate() {
            let Value::Node(g) = g else { continue };
            let what = format!("effects group {} (line {})", n + 1, self.line_of(g.line));
            if let Some(more) = self.guarded(&what, |cx| cx.effects_group(g, kind)) {
                groups.extend(more);
            }
        }
        let mut class = json!({ "tags": tags, "properties": props });
        if !groups.is_empty() {
            class["effects"] = Json::Array(groups);
        }
        class
    }

    /// The line in its own file of preprocessed line `line`.
    fn line_of(&self, line: usize) -> u32 {
        self.pre.origin(line).map_or(0, |o| o.line)
    }

    /// Numeric and text properties of an entry: costs and times when they are constant,
    /// the category, prerequisites, the producible flag.
    fn properties(&mut self, entry: &Node, props: &mut Map<String, Json>) {
        for (focs, key) in [
            ("researchcost", "research_cost"),
            ("researchturns", "research_turns"),
            ("buildcost", "build_cost"),
            ("buildtime", "build_time"),
            ("adoptioncost", "adoption_cost"),
            // A hull's or part's stats, named apart from the meters of the same names
            // (a ship's `fuel`, `structure`): the pass resets and clamps those on every
            // object that has them.
            ("capacity", "base_capacity"),
            // A weapon's damage is its capacity, its shots its secondary stat.
            ("damage", "base_capacity"),
            ("shots", "base_secondary_stat"),
            ("speed", "base_speed"),
            ("structure", "base_structure"),
            ("fuel", "base_fuel"),
            ("stealth", "base_stealth"),
        ] {
            if let Some(v) = entry.get(focs) {
                if let Some(n) = self.constant(v) {
                    props.insert(key.into(), json!(n));
                }
            }
        }
        if let Some(Value::Str(s)) = entry.get("preferredfocus") {
            props.insert("preferred_focus".into(), json!(s));
        }
        if let Some(Value::Str(s)) = entry.get("category") {
            props.insert("category".into(), json!(s));
        }
        match entry.get("prerequisites") {
            Some(Value::Str(s)) => {
                props.insert("prerequisites".into(), json!([class_name(s)]));
            }
            Some(Value::List(l)) => {
                let names: Vec<Json> = l
                    .iter()
                    .filter_map(|v| match v {
                        Value::Str(s) => Some(json!(class_name(s))),
                        _ => None,
                    })
                    .collect();
                props.insert("prerequisites".into(), Json::Array(names));
            }
            _ => {}
        }
    }

    /// The number a value always has (arithmetic over literals and game rules), if any.
    fn constant(&self, v: &Value) -> Option<f64> {
        values::fold(v, self.rules)
    }

    /// One `EffectsGroup`: one group, and one more for each ship part whose meters it
    /// sets (see `parts`).
    fn effects_group(&mut self, g: &Node, kind: &EntryKind) -> Built<Vec<Json>> {
        self.line = g.line;
        if g.kind != "EffectsGroup" {
            return self.unsupported(g.line, &g.kind, "");
        }
        let mut group = Map::new();
        if let Some(s) = kind.source {
            group.insert("source".into(), json!(s));
        }
        if let Some(z) = kind.zone {
            group.insert("zones".into(), json!([z]));
        }
        self.scope_is_source = true;
        if let Some(scope) = g.get("scope") {
            if let Some(sel) = self.scope(scope)? {
                group.insert("scope".into(), sel);
                self.scope_is_source = false;
            }
        }
        if let Some(a) = g.get("activation") {
            group.insert("activation".into(), self.condition(a)?);
        }
        if let Some(Value::Str(s)) = g.get("stackinggroup") {
            group.insert("stacking".into(), json!(s));
        }
        // FreeOrion's default priority is 100 (DEFAULT_PRIORITY).
        let priority = match g.get("priority") {
            Some(p) => match self.constant(p) {
                Some(n) => n.round() as i64,
                None => return self.unsupported(g.line, "a priority that is not a number", ""),
            },
            None => 100,
        };
        group.insert("priority".into(), json!(priority));
        let effects = match g.get("effects") {
            Some(Value::List(l)) => l.clone(),
            Some(one) => vec![one.clone()],
            None => Vec::new(),
        };
        let built = self.effects(&effects)?;
        // The accounting label: the effect's own, the group's, else the entry's name.
        let group_label = match g.get("accountinglabel") {
            Some(Value::Str(s)) => Some(s.clone()),
            _ => None,
        };
        let label = built
            .label
            .or(group_label)
            .unwrap_or_else(|| self.entry.clone());
        group.insert("label".into(), json!(label));
        if built.sets.is_empty()
            && built.actions.is_empty()
            && built.parts.is_empty()
            && built.empire.is_empty()
            && built.removals.is_empty()
        {
            // `effects = NoOp`: a group that does nothing translates to nothing.
            return Err(Stop);
        }
        let mut out = self.part_groups(&group, &built.parts)?;
        out.extend(self.empire_groups(&group, &built.empire, g.get("scope"))?);
        out.extend(self.removal_groups(&group, &built.removals)?);
        if !built.sets.is_empty() {
            group.insert("effects".into(), Json::Array(built.sets));
        }
        if !built.actions.is_empty() {
            group.insert("do".into(), Json::Array(built.actions));
        }
        if group.contains_key("effects") || group.contains_key("do") {
            out.insert(0, Json::Object(group));
        }
        Ok(out)
    }
}
