//! What a rule reads of the world (`Deps`): property keys, zones, structural reads,
//! so derived values are recomputed only when something they read changed.

use crate::id::Sym;

/// What an aura's selector, conditions and values read, so it is recomputed only when
/// one of those changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deps {
    /// Property keys read.
    pub keys: smallvec::SmallVec<[Sym; 4]>,
    /// Reads zones, tags, owners or the set of objects.
    pub structural: bool,
    /// Some structural read is not confined to `zones` (a selection over every zone, an
    /// object reached through relations): a structural change anywhere may matter.
    pub anywhere: bool,
    /// The zones whose objects the structural reads look at, besides the holder's own
    /// zone, tags and owner (a change to the holder always counts).
    pub zones: smallvec::SmallVec<[Sym; 4]>,
    /// A condition reads the zone, tags, owner or class of the object it tests. Inside a
    /// selection confined to zones, that object is one of its candidates (confined too);
    /// anywhere else it could be any object.
    pub tested: bool,
    /// Reads something untracked (a plugin): recompute on any change.
    pub everything: bool,
    /// The keys of `keys` read from objects other than the selection's `target` (the
    /// holder, the source, a count over other objects). A change to one of these may
    /// change every target; a change to a key read only from the target changes only
    /// that target, so recompute re-tests just the objects that changed.
    pub nontarget: smallvec::SmallVec<[Sym; 4]>,
    /// Reads the evaluation's scope — the event or the objects it names, the acting
    /// player, the holder — or the world's RNG, last-known information. Auras ignore it
    /// (their scope is fixed); a settle rule that reads it is selected after every event.
    pub scoped: bool,
    /// Which parts of the scope the scoped reads read (see [`ScopeReads`]); a scoped
    /// read recorded without saying which counts as [`ScopeReads::OTHER`].
    pub scope_reads: ScopeReads,
    /// Tags read (own or granted; `has_tag`, selections by tag, owner relations through
    /// the `player` tag). Zone, class, owner and existence reads are not tag reads: a
    /// change that only (un)tags objects reaches a reader only through one of these.
    pub tags: smallvec::SmallVec<[Sym; 4]>,
    /// Where keys of `nontarget` are read from the objects of a selection confined to
    /// zones (`sum(my_weapon, attack)` reads `attack` in `weapon` only): (key, zone)
    /// pairs. A key read this way and no other ([`Deps::confined_zones_of`]) changes
    /// what is read only when it changes on an object in one of its zones.
    pub key_zones: smallvec::SmallVec<[(Sym, Sym); 2]>,
    /// Whether `key_zones` holds a pair: a flag beside the other flags, so the many
    /// readers that confine no key are answered without reading the list (recompute
    /// asks every aura on every change; a full galaxy's 2,000 auras felt the extra read).
    pub confines_keys: bool,
    /// The keys of `nontarget` read from objects that may be anywhere (the holder, the
    /// source, a selection not confined to zones).
    pub loose: smallvec::SmallVec<[Sym; 4]>,
    /// The keys of `keys` read from the object under test (`target.key`).
    pub targeted: smallvec::SmallVec<[Sym; 4]>,
}

/// The parts of an evaluation's scope a rule reads, so a result computed for one scope
/// can be reused for another that agrees on those parts (an effects pass selects each
/// distinct scope once).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScopeReads(u8);

impl ScopeReads {
    /// The holder (`self`).
    pub const THIS: ScopeReads = ScopeReads(1);
    /// The source (`source`).
    pub const SOURCE: ScopeReads = ScopeReads(2);
    /// The scope's player (`player`).
    pub const PLAYER: ScopeReads = ScopeReads(4);
    /// The acting player: the holder when it is a player, else the holder's owner, else
    /// the scope's player (owner relations such as `friendly`).
    pub const ACTING: ScopeReads = ScopeReads(8);
    /// Anything else: the event, the RNG, a controller's answer, last-known information,
    /// a running value — nothing a reuse could key on.
    pub const OTHER: ScopeReads = ScopeReads(16);

    /// Whether every part of `other` is read.
    pub fn contains(self, other: ScopeReads) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether nothing is read.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Both sets.
    pub fn union(self, other: ScopeReads) -> ScopeReads {
        ScopeReads(self.0 | other.0)
    }
}

impl Deps {
    /// Records a read of part of the scope.
    pub fn scope(&mut self, part: ScopeReads) {
        self.scoped = true;
        self.scope_reads = self.scope_reads.union(part);
    }

    /// The parts of the scope read, when they are known: `None` when a scoped read did
    /// not say which part, or when something untracked (a plugin) is read.
    pub fn known_scope_reads(&self) -> Option<ScopeReads> {
        let unsaid = self.scoped && self.scope_reads.is_empty();
        (!self.everything && !unsaid && !self.scope_reads.contains(ScopeReads::OTHER))
            .then_some(self.scope_reads)
    }

    /// Records a property key, read from any object (the conservative choice).
    pub fn key(&mut self, k: Sym) {
        self.nontarget_key(k);
        push_new(&mut self.loose, k);
    }

    /// Records a property key read from the objects a selection picks, the selection
    /// reading `inner`: confined to its zones when the selection's reads are
    /// ([`Deps::confined`]), otherwise read from any object.
    pub fn key_of_selected(&mut self, k: Sym, inner: &Deps) {
        if !inner.structural || !inner.confined() || inner.zones.is_empty() {
            self.key(k);
            return;
        }
        self.nontarget_key(k);
        self.confines_keys = true;
        for z in &inner.zones {
            if !self.key_zones.contains(&(k, *z)) {
                self.key_zones.push((k, *z));
            }
        }
    }

    fn nontarget_key(&mut self, k: Sym) {
        push_new(&mut self.keys, k);
        push_new(&mut self.nontarget, k);
    }

    /// The zones a key is read in, when it is read only from other objects and only
    /// in these zones (see [`Deps::key_zones`]); `None` when a change to it anywhere
    /// may matter.
    pub fn confined_zones_of(&self, k: Sym) -> Option<smallvec::SmallVec<[Sym; 2]>> {
        // Most readers confine no key: one test answers them.
        if !self.confines_keys
            || self.everything
            || self.loose.contains(&k)
            || self.targeted.contains(&k)
        {
            return None;
        }
        let zones: smallvec::SmallVec<[Sym; 2]> = self
            .key_zones
            .iter()
            .filter(|(key, _)| *key == k)
            .map(|(_, z)| *z)
            .collect();
        (!zones.is_empty()).then_some(zones)
    }

    /// Records a tag read.
    pub fn tag(&mut self, t: Sym) {
        if !self.tags.contains(&t) {
            self.tags.push(t);
        }
    }

    /// Whether it reads one of `tags`.
    pub fn reads_tag_of(&self, tags: &[Sym]) -> bool {
        self.tags.iter().any(|t| tags.contains(t))
    }

    /// Records a property key read only from the object under test (`target.key`).
    pub fn target_key(&mut self, k: Sym) {
        push_new(&mut self.keys, k);
        push_new(&mut self.targeted, k);
    }

    /// Merges what a nested part reads (a selection inside a count, a condition on the
    /// holder): its `target` is some other object, so every key it reads counts as
    /// read from other objects.
    pub fn nested(&mut self, inner: &Deps) {
        for k in &inner.keys {
            self.key(*k);
        }
        self.structural |= inner.structural;
        self.everything |= inner.everything;
        self.scoped |= inner.scoped;
        self.scope_reads = self.scope_reads.union(inner.scope_reads);
        for t in &inner.tags {
            self.tag(*t);
        }
        self.anywhere |= inner.anywhere || inner.tested;
        self.add_zones(&inner.zones);
    }

    /// Merges another part read from the same objects (keys keep whether they are read
    /// only from the target).
    pub fn merge(&mut self, other: &Deps) {
        for k in &other.keys {
            push_new(&mut self.keys, *k);
        }
        for k in &other.targeted {
            push_new(&mut self.targeted, *k);
        }
        for k in &other.nontarget {
            push_new(&mut self.nontarget, *k);
        }
        for k in &other.loose {
            push_new(&mut self.loose, *k);
        }
        for kz in &other.key_zones {
            if !self.key_zones.contains(kz) {
                self.key_zones.push(*kz);
            }
        }
        self.confines_keys |= other.confines_keys;
        self.structural |= other.structural;
        self.everything |= other.everything;
        self.scoped |= other.scoped;
        self.scope_reads = self.scope_reads.union(other.scope_reads);
        for t in &other.tags {
            self.tag(*t);
        }
        self.anywhere |= other.anywhere;
        self.tested |= other.tested;
        self.add_zones(&other.zones);
    }

    /// Records a structural read that may look at any object.
    pub fn structural_anywhere(&mut self) {
        self.structural = true;
        self.anywhere = true;
    }

    /// Records a structural read of the objects in `zones` only.
    pub fn structural_in(&mut self, zones: &[Sym]) {
        self.structural = true;
        self.add_zones(zones);
    }

    /// Records a structural read of the object under test (a condition's own object).
    pub fn structural_of_tested(&mut self) {
        self.structural = true;
        self.tested = true;
    }

    /// Settles reads of the object under test: confined when the objects tested are
    /// candidates of a selection confined to zones, otherwise anywhere.
    pub fn confine_tested(&mut self, confined: bool) {
        if std::mem::take(&mut self.tested) && !confined {
            self.anywhere = true;
        }
    }

    /// Whether every structural read is confined to `zones` (and the holder).
    pub fn confined(&self) -> bool {
        !self.anywhere && !self.everything && !self.tested
    }

    fn add_zones(&mut self, zones: &[Sym]) {
        for z in zones {
            if !self.zones.contains(z) {
                self.zones.push(*z);
            }
        }
    }
}

/// Appends `k` unless `v` holds it.
fn push_new<const N: usize>(v: &mut smallvec::SmallVec<[Sym; N]>, k: Sym)
where
    [Sym; N]: smallvec::Array<Item = Sym>,
{
    if !v.contains(&k) {
        v.push(k);
    }
}

#[cfg(test)]
mod tests {
    use super::{Deps, ScopeReads};
    use crate::id::Sym;

    #[test]
    fn a_key_read_from_a_selection_confined_to_zones_is_confined_to_them() {
        let (attack, weapon) = (Sym::new("attack"), Sym::new("weapon"));
        let mut weapons = Deps::default();
        weapons.structural_in(&[weapon]);
        let mut d = Deps::default();
        d.key_of_selected(attack, &weapons);
        assert!(d.keys.contains(&attack) && d.nontarget.contains(&attack));
        assert_eq!(d.confined_zones_of(attack).as_deref(), Some(&[weapon][..]));
        let mut merged = Deps::default();
        merged.merge(&d);
        assert_eq!(
            merged.confined_zones_of(attack),
            d.confined_zones_of(attack)
        );

        // Read from any object as well (the holder), or from the object under test, or
        // nested in a condition: anywhere.
        let mut holder_too = d.clone();
        holder_too.key(attack);
        let mut target_too = d.clone();
        target_too.target_key(attack);
        let mut nested = Deps::default();
        nested.nested(&d);
        for (what, deps) in [
            ("holder", holder_too),
            ("target", target_too),
            ("nested", nested),
        ] {
            assert_eq!(deps.confined_zones_of(attack), None, "{what}");
        }
        // A selection whose reads are not confined to zones.
        let mut everywhere = Deps::default();
        everywhere.structural_anywhere();
        let mut loose = Deps::default();
        loose.key_of_selected(attack, &everywhere);
        assert_eq!(loose.confined_zones_of(attack), None);
    }

    #[test]
    fn scope_reads_are_known_only_when_every_scoped_read_said_which() {
        let mut d = Deps::default();
        assert_eq!(d.known_scope_reads(), Some(ScopeReads::default()));
        d.scope(ScopeReads::ACTING);
        let mut inner = Deps::default();
        inner.scope(ScopeReads::SOURCE);
        d.nested(&inner);
        let known = d.known_scope_reads().expect("acting player and source");
        assert!(known.contains(ScopeReads::ACTING) && known.contains(ScopeReads::SOURCE));
        assert!(!known.contains(ScopeReads::THIS));

        let unsaid = Deps {
            scoped: true,
            ..Deps::default()
        };
        assert_eq!(
            unsaid.known_scope_reads(),
            None,
            "scoped without saying which"
        );
        let mut other = Deps::default();
        other.scope(ScopeReads::OTHER);
        assert_eq!(other.known_scope_reads(), None, "the event, the RNG, ...");
        let plugin = Deps {
            everything: true,
            ..Deps::default()
        };
        assert_eq!(plugin.known_scope_reads(), None, "untracked reads");
    }
}
