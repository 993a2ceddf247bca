//! What changed since aura recompute last ran (`Dirty`): property keys (and which
//! objects), structural changes by zone and object, own tags added or removed, granted
//! tags. Aura recompute takes it; settle rules read what is still pending.

use super::{Deps, ObjId};
use crate::id::Sym;

/// What changed since auras were last recomputed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dirty {
    /// Objects were created, moved, removed, re-owned, tagged or untagged.
    pub structural: bool,
    /// Base property keys that changed (each once; few, so a list compared by symbol
    /// identity beats a set ordered by text).
    pub keys: Vec<Sym>,
    /// Which objects' keys changed (in change order, repeats allowed), so auras that
    /// read a key only from their targets re-test only those objects. Empty with
    /// `keys` non-empty after [`Dirty::MAX_CHANGES`] changes: then every aura reading a
    /// changed key is evaluated whole.
    pub changed: Vec<(ObjId, Sym)>,
    /// More than [`Dirty::MAX_CHANGES`] changes: `changed` was dropped.
    pub too_many: bool,
    /// The zones structural changes happened in (an object created, removed, re-owned,
    /// re-parented or (un)tagged there, or moved out of or into it).
    pub zones: smallvec::SmallVec<[Sym; 4]>,
    /// The objects structurally changed (up to [`Dirty::MAX_OBJECTS`]).
    pub objects: smallvec::SmallVec<[ObjId; 8]>,
    /// A structural change that cannot be placed (more objects than listed, every
    /// object marked dirty): every structural read may be affected.
    pub anywhere: bool,
    /// A tag granted by a modifier appeared or went. Auras see it through its key;
    /// settle rules count it as a structural change anywhere ([`Changes`]).
    pub granted: bool,
    /// A structural change other than an object's own tag added or removed (created,
    /// moved, removed, re-owned, aura instances given or ended, ...). Without one, no
    /// aura switches on or off and only readers of [`Dirty::tags`] are affected.
    pub other: bool,
    /// The tags added or removed (own tags, by [`Dirty::tagged_at`]).
    pub tags: smallvec::SmallVec<[Sym; 4]>,
}

impl Dirty {
    /// How many (object, key) changes are remembered between two recomputes.
    pub const MAX_CHANGES: usize = 256;

    /// Records that `obj`'s `key` changed.
    pub fn touch(&mut self, obj: ObjId, key: Sym) {
        if !self.keys.contains(&key) {
            self.keys.push(key);
        }
        // After a structural change, recompute evaluates whole every aura the keys
        // concern: which objects changed is not looked at.
        if self.too_many || self.structural {
            return;
        }
        if self.changed.len() >= Self::MAX_CHANGES {
            self.too_many = true;
            self.changed = Vec::new();
        } else {
            self.changed.push((obj, key));
        }
    }

    /// How many structurally changed objects are listed before giving up placing them.
    pub const MAX_OBJECTS: usize = 32;

    /// Records a structural change to `obj` in `zone`.
    pub fn structural_at(&mut self, obj: ObjId, zone: Sym) {
        self.other = true;
        self.placed_at(obj, zone);
    }

    /// Records that `obj`, in `zone`, gained or lost its own tag `tag`.
    pub fn tagged_at(&mut self, obj: ObjId, zone: Sym, tag: Sym) {
        if !self.tags.contains(&tag) {
            self.tags.push(tag);
        }
        self.placed_at(obj, zone);
    }

    /// Whether every structural change recorded only (un)tagged objects, none of them
    /// with `silence` (which switches auras off).
    pub fn tags_only(&self, silence: Option<Sym>) -> bool {
        self.structural && !self.other && !silence.is_some_and(|s| self.tags.contains(&s))
    }

    fn placed_at(&mut self, obj: ObjId, zone: Sym) {
        self.structural = true;
        if !self.zones.contains(&zone) {
            self.zones.push(zone);
        }
        if self.anywhere {
            return;
        }
        if self.objects.len() >= Self::MAX_OBJECTS {
            self.anywhere = true;
            self.objects = smallvec::SmallVec::new();
        } else if !self.objects.contains(&obj) {
            self.objects.push(obj);
        }
    }

    /// Whether a structural change since the last recompute may change what a reader
    /// with these dependencies sees, judged for an aura held by `holder`.
    pub fn structural_hits(&self, deps: &Deps, holder: ObjId) -> bool {
        self.structural
            && deps.structural
            && (self.anywhere
                || !deps.confined()
                || self.objects.contains(&holder)
                || deps.zones.iter().any(|z| self.zones.contains(z)))
    }

    /// Whether anything changed.
    pub fn any(&self) -> bool {
        self.structural || !self.keys.is_empty()
    }
}
