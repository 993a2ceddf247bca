//! Running values of an effect pass's properties, kept aside while its effects apply.
//!
//! Most of a pass's work is one property of one object changed many times over (a
//! galaxy's 1,000 techs each add to the same planets' target meters). When nothing an
//! effect reads is something an effect of the pass writes (but through `value`), the
//! running values live here from the reset on:
//! - the reset puts a meter's reset value here ([`Running::seed`]), not in the world;
//! - the effects change the values here;
//! - the clamps whose bounds are numbers or the object's own properties bound them here
//!   ([`Running::clamp`]);
//! - each property that ends different from what the world holds is written once
//!   ([`Running::flush`]). The world ends as if each step had written it.
//!
//! A turn that brings every meter back to what it was writes nothing, so the world copies
//! nothing and aura recompute has nothing to look at. The meters left that way are away
//! from their reset values without an edit: the reset's mark holds them
//! ([`World::hold`]), and the next reset visits them.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use super::{base_number, EffectsGroupDef, PassClamp};
use crate::id::{Id, Sym};
use crate::rules::expr::Expr;
use crate::rules::Generation;
use crate::state::{AccountEntry, Accounting, Deps, IdHash, ObjId, StateError, Value, World};

/// A property's running value during one pass.
struct Slot {
    obj: ObjId,
    key: Sym,
    value: f64,
    /// Whether the world holds (or will hold) it as a decimal.
    decimal: bool,
    /// Whether the reset or an effect set it (the world must end with `value`).
    written: bool,
    /// Whether the reset set it (the world held another value).
    seeded: bool,
}

/// The running values of one pass run, in the order first touched.
#[derive(Default)]
pub(super) struct Running {
    at: HashMap<(ObjId, Sym), usize, IdHash>,
    slots: Vec<Slot>,
}

impl Running {
    /// The reset put `key` of `obj` back to `value` (the world holds another value).
    pub(super) fn seed(&mut self, obj: ObjId, key: Sym, value: f64) {
        let slot = Slot {
            obj,
            key,
            value,
            decimal: true,
            written: true,
            seeded: true,
        };
        match self.at.entry((obj, key)) {
            Entry::Occupied(e) => self.slots[*e.get()] = slot,
            Entry::Vacant(e) => {
                e.insert(self.slots.len());
                self.slots.push(slot);
            }
        }
    }

    /// Where `key` of `obj` is kept, with its running value (absent or not a number: 0)
    /// and whether it is a decimal.
    pub(super) fn get(&mut self, world: &World, obj: ObjId, key: Sym) -> (usize, f64, bool) {
        match self.at.entry((obj, key)) {
            Entry::Occupied(e) => {
                let s = &self.slots[*e.get()];
                (*e.get(), s.value, s.decimal)
            }
            Entry::Vacant(e) => {
                let (value, decimal) = base_number(world, obj, key);
                e.insert(self.slots.len());
                self.slots.push(Slot {
                    obj,
                    key,
                    value,
                    decimal,
                    written: false,
                    seeded: false,
                });
                (self.slots.len() - 1, value, decimal)
            }
        }
    }

    /// An effect set the property kept at `at` to `value` (a decimal; not a number
    /// reads 0 after, as the world would store it).
    pub(super) fn set(&mut self, at: usize, value: f64) {
        if let Some(s) = self.slots.get_mut(at) {
            s.value = if value.is_nan() { 0.0 } else { value };
            s.decimal = true;
            s.written = true;
        }
    }

    /// Bounds the set values of every clamp whose bounds are numbers or properties of
    /// the object clamped (`target.max_troops`, read as the pass left it), recording each
    /// change under the label `clamp`. The other clamps bound the world after the flush.
    pub(super) fn clamp(
        &mut self,
        world: &World,
        clamps: &[PassClamp],
        mut book: Option<&mut Accounting>,
    ) {
        let label = Sym::new("clamp");
        for c in clamps.iter().filter(|c| bounds_local(c)) {
            for n in 0..self.slots.len() {
                let s = &self.slots[n];
                if s.key != c.key || !s.written {
                    continue;
                }
                let (obj, before) = (s.obj, s.value);
                let bound = |e: &Expr| self.bound(world, obj, e);
                let mut v = before;
                if let Some(max) = &c.max {
                    v = v.min(bound(max));
                }
                if let Some(min) = &c.min {
                    v = v.max(bound(min));
                }
                if v != before {
                    self.slots[n].value = v;
                    if let Some(b) = book.as_deref_mut() {
                        let entry = AccountEntry {
                            source: obj,
                            label,
                            before,
                            after: v,
                        };
                        b.record(obj, c.key, entry);
                    }
                }
            }
        }
    }

    /// A local bound's value for `obj`: a number, or the object's property as the pass
    /// left it (modifiers applied, as the world would read it).
    fn bound(&self, world: &World, obj: ObjId, e: &Expr) -> f64 {
        let Some(key) = e.target_key() else {
            return e.number().unwrap_or(0.0);
        };
        match self.at.get(&(obj, key)).map(|&n| &self.slots[n]) {
            Some(s) if s.written => world.number_over(obj, key, s.value),
            _ => world.get_number(obj, key).unwrap_or(0.0),
        }
    }

    /// Writes every property the reset or an effect set that ends different from what
    /// the world holds, in the order first touched. Returns the objects the reset put
    /// here that end as the world holds them (away from their reset values, unwritten).
    pub(super) fn flush(self, world: &mut World) -> Result<Vec<ObjId>, StateError> {
        let mut held: Vec<ObjId> = Vec::new();
        for s in self.slots.into_iter().filter(|s| s.written) {
            let same = matches!(world.base(s.obj, s.key),
                Some(Value::Float(x)) if x.to_bits() == s.value.to_bits());
            if !same {
                world.set(s.obj, s.key, Value::float(s.value))?;
            } else if s.seeded && held.last() != Some(&s.obj) {
                // An object's reset values are seeded together: one entry an object.
                held.push(s.obj);
            }
        }
        Ok(held)
    }
}

/// Whether a clamp's bounds are numbers or properties of the object clamped.
fn bounds_local(c: &PassClamp) -> bool {
    let local = |e: &Option<Expr>| {
        e.as_ref()
            .is_none_or(|e| e.number().is_some() || e.target_key().is_some())
    };
    local(&c.min) && local(&c.max)
}

/// The passes whose effects may keep running values aside, with the keys their effects
/// write: no effect's value reads (but through `value`) a key an effect of the pass
/// writes, and no group runs actions (which may read anything).
pub(crate) fn buffered_passes(gen: &Generation) -> HashMap<Id, Vec<Sym>> {
    let mut writes: HashMap<Id, HashSet<Sym>> = HashMap::new();
    let mut reads: HashMap<Id, Deps> = HashMap::new();
    let mut refused: HashSet<Id> = HashSet::new();
    let groups = gen
        .effects_classes
        .iter()
        .filter_map(|c| gen.classes.get(c))
        .flat_map(|c| c.effects.iter());
    for g in groups {
        note_group(g, &mut writes, &mut reads, &mut refused);
    }
    writes
        .into_iter()
        .filter(|(pass, w)| {
            let clash = |r: &Deps| r.everything || r.keys.iter().any(|k| w.contains(k));
            !refused.contains(pass) && !reads.get(pass).is_some_and(clash)
        })
        .map(|(pass, w)| {
            let mut keys: Vec<Sym> = w.into_iter().collect();
            keys.sort_by(|a, b| a.as_str().cmp(b.as_str()));
            (pass, keys)
        })
        .collect()
}

fn note_group(
    g: &EffectsGroupDef,
    writes: &mut HashMap<Id, HashSet<Sym>>,
    reads: &mut HashMap<Id, Deps>,
    refused: &mut HashSet<Id>,
) {
    if !g.actions.is_empty() {
        refused.insert(g.pass);
    }
    let r = reads.entry(g.pass).or_default();
    let w = writes.entry(g.pass).or_default();
    for (key, expr) in &g.effects {
        w.insert(*key);
        expr.deps(r);
    }
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
[pass.upkeep]
[pass.events]

[class.colony]
properties = { population = 3.0, output = 0.0, research = 0.0, upkeep = 0.0 }

[class.lab]
[[class.lab.effects]]
pass = "economy"
effects = [{ key = "output", value = "value + 2" }]
[[class.lab.effects]]
pass = "economy"
effects = [{ key = "research", value = "value + target.output" }]
[[class.lab.effects]]
pass = "upkeep"
effects = [{ key = "upkeep", value = "value + target.population" }]
[[class.lab.effects]]
pass = "events"
effects = [{ key = "upkeep", value = "value + 1" }]
do = [{ type = "tag", tag = "counted" }]
"#;

    #[test]
    fn only_passes_reading_nothing_they_write_and_running_no_actions_are_buffered() {
        let src = ContentSource::new("t", SourceText::new("t.toml", CONTENT));
        let gen = Generation::build(Arc::new(Registry::with_core()), &[src], 1)
            .unwrap_or_else(|d| panic!("{d:?}"));
        let pass = |n: &str| Id::parse(&format!("t:pass/{n}")).expect("id");
        let upkeep = gen.buffered_passes.get(&pass("upkeep")).expect("buffered");
        assert_eq!(
            upkeep.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
            ["upkeep"]
        );
        assert!(
            !gen.buffered_passes.contains_key(&pass("economy")),
            "reads output"
        );
        assert!(
            !gen.buffered_passes.contains_key(&pass("events")),
            "runs actions"
        );
    }
}
