//! What each pass's effects write, worked out once a generation is built
//! ([`Generation::pass_writes`]): the properties its effects set, the other properties
//! their flat programs read of their targets, and whether any of its groups runs
//! actions. A run keeps its running values aside unless one of the properties set is
//! one the world's own rules act on when written ([`world_allows`]).

use std::collections::{HashMap, HashSet};

use crate::id::{Id, IdHash, Sym};
use crate::rules::Generation;
use crate::state::World;

/// What the effects groups of one pass write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PassWrites {
    /// The properties its effects set, sorted by name.
    pub keys: Vec<Sym>,
    /// The properties its effects' flat programs read of their targets that no effect
    /// of it sets (`target.population`), sorted by name: a run keeps each target's once
    /// read, beside the running values.
    pub reads: Vec<Sym>,
    /// Whether a group of it runs actions (they may make objects, and read anything).
    pub actions: bool,
}

/// What each pass with effects groups writes.
pub(crate) fn pass_writes(gen: &Generation) -> HashMap<Id, PassWrites, IdHash> {
    let mut keys: HashMap<Id, HashSet<Sym>> = HashMap::new();
    let mut reads: HashMap<Id, HashSet<Sym>> = HashMap::new();
    let mut actions: HashSet<Id> = HashSet::new();
    let groups = gen
        .effects_classes
        .iter()
        .filter_map(|c| gen.classes.get(c))
        .flat_map(|c| c.effects.iter());
    for g in groups {
        if !g.actions.is_empty() {
            actions.insert(g.pass);
        }
        keys.entry(g.pass)
            .or_default()
            .extend(g.effects.iter().map(|(k, _)| *k));
        reads
            .entry(g.pass)
            .or_default()
            .extend(g.flat.iter().flatten().flat_map(|f| f.target_keys()));
    }
    let by_name = |set: HashSet<Sym>| {
        let mut v: Vec<Sym> = set.into_iter().collect();
        v.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        v
    };
    keys.into_iter()
        .map(|(pass, w)| {
            let mut read = reads.remove(&pass).unwrap_or_default();
            read.retain(|k| !w.contains(k));
            let actions = actions.contains(&pass);
            let (keys, reads) = (by_name(w), by_name(read));
            (
                pass,
                PassWrites {
                    keys,
                    reads,
                    actions,
                },
            )
        })
        .collect()
}

/// Whether the world's own rules make an intermediate write of one of `keys` matter (a
/// falling maximum health takes damage with it; a slot write moves the object): then
/// the effects write each value as they go.
pub(super) fn world_allows(world: &World, keys: &[Sym]) -> bool {
    let h = world.health_rule();
    let special = [
        h.health_key,
        h.max_key,
        h.damage_key,
        crate::state::slot_key(),
    ];
    !keys.iter().any(|k| special.contains(k))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::diag::SourceText;
    use crate::id::Id;
    use crate::rules::registry::Registry;
    use crate::rules::{ContentSource, Generation};

    const CONTENT: &str = r#"
[pass.economy]
[pass.events]
[pass.quiet]

[class.colony]
properties = { population = 3.0, output = 0.0, research = 0.0, upkeep = 0.0 }

[class.lab]
[[class.lab.effects]]
pass = "economy"
effects = [{ key = "research", value = "value + target.output" }]
[[class.lab.effects]]
pass = "economy"
effects = [{ key = "output", value = "value + 2" }]
[[class.lab.effects]]
pass = "events"
effects = [{ key = "upkeep", value = "value + target.population / 10" }]
do = [{ type = "tag", tag = "counted" }]
"#;

    #[test]
    fn each_pass_with_groups_lists_its_keys_and_whether_it_runs_actions() {
        let src = ContentSource::new("t", SourceText::new("t.toml", CONTENT));
        let gen = Generation::build(Arc::new(Registry::with_core()), &[src], 1)
            .unwrap_or_else(|d| panic!("{d:?}"));
        let pass = |n: &str| Id::parse(&format!("t:pass/{n}")).expect("id");
        let economy = gen.pass_writes.get(&pass("economy")).expect("economy");
        let names = |w: &super::PassWrites| w.keys.iter().map(|k| k.as_str()).collect::<Vec<_>>();
        assert_eq!(names(economy), ["output", "research"]);
        // `target.output` is read, but `output` is set: nothing is only read.
        assert!(economy.reads.is_empty());
        assert!(!economy.actions);
        let events = gen.pass_writes.get(&pass("events")).expect("events");
        assert_eq!((names(events), events.actions), (vec!["upkeep"], true));
        let reads: Vec<&str> = events.reads.iter().map(|k| k.as_str()).collect();
        assert_eq!(reads, ["population"]);
        assert!(!gen.pass_writes.contains_key(&pass("quiet")), "no groups");
    }
}
