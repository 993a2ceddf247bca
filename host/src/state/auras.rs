//! Aura instances in the world: giving and removing them, and the modifiers they put on
//! objects (the recompute itself is the rules' job, in `rules::aura`).

use super::{AppliedMod, AuraInstance, Layer, ObjId, StateError, World};
use crate::id::Id;

impl World {
    /// Gives an aura instance to `holder`; returns the instance number.
    pub fn give_aura(
        &mut self,
        def: Id,
        holder: ObjId,
        source: Option<ObjId>,
    ) -> Result<u64, StateError> {
        self.give_aura_frozen(def, holder, source, None)
    }

    /// Gives an aura instance whose modifier values are fixed (`frozen`, in modifier
    /// order), or evaluated live (`None`); returns the instance number.
    pub fn give_aura_frozen(
        &mut self,
        def: Id,
        holder: ObjId,
        source: Option<ObjId>,
        frozen: Option<std::sync::Arc<[f64]>>,
    ) -> Result<u64, StateError> {
        let zone = self.object(holder)?.zone;
        let timestamp = self.next_timestamp();
        self.next_aura += 1;
        let n = self.next_aura;
        self.auras.insert(
            n,
            AuraInstance {
                def,
                holder,
                source,
                timestamp,
                zone,
                frozen,
            },
        );
        self.dirty.structural = true;
        self.dirty.other = true;
        Ok(n)
    }

    /// Removes the aura instances matching `pred`; returns how many were removed.
    pub fn remove_auras(&mut self, mut pred: impl FnMut(&AuraInstance) -> bool) -> usize {
        let gone: Vec<u64> = self
            .auras
            .iter()
            .filter(|(_, a)| pred(a))
            .map(|(k, _)| *k)
            .collect();
        for k in &gone {
            self.auras.remove(k);
        }
        let removed = gone.len();
        if removed > 0 {
            self.dirty.structural = true;
            self.dirty.other = true;
        }
        removed
    }

    /// Ends one aura instance; returns whether it existed.
    pub fn remove_aura_instance(&mut self, n: u64) -> bool {
        let removed = self.auras.remove(&n).is_some();
        self.dirty.structural |= removed;
        self.dirty.other |= removed;
        removed
    }

    /// The runtime aura instances, by instance number.
    pub fn aura_instances(&self) -> impl Iterator<Item = (u64, &AuraInstance)> + '_ {
        self.auras.iter().map(|(k, v)| (*k, v))
    }

    /// The modifiers currently in effect on an object.
    pub fn modifiers(&self, id: ObjId) -> &[AppliedMod] {
        self.applied(id).map_or(&[], |m| m.as_slice())
    }

    /// Replaces the modifiers in effect on an object (empty: none), keeping the indexes of
    /// granted and removed tags in step.
    pub(crate) fn set_modifiers(&mut self, id: ObjId, list: Vec<AppliedMod>) {
        let of = |mods: &[AppliedMod], layer: Layer| -> smallvec::SmallVec<[crate::id::Sym; 4]> {
            mods.iter()
                .filter(|m| m.layer == layer)
                .map(|m| m.key)
                .collect()
        };
        let old: &[AppliedMod] = self.applied(id).map_or(&[][..], |l| l.as_slice());
        // Without a granted or removed tag before or after, the tag indexes and the
        // layered-tag check have nothing to do (most lists: every galaxy object's).
        if !old.iter().chain(&list).any(|m| m.layer.is_tag()) {
            self.store_list(id, list);
            return;
        }
        let (before, removed_before) = (of(old, Layer::Tag), of(old, Layer::Untag));
        let (after, removed_after) = (of(&list, Layer::Tag), of(&list, Layer::Untag));
        // A tag granted or removed in a layer can switch auras off (ability removal):
        // which auras are on must be looked at again.
        let layered =
            |mods: &[AppliedMod]| -> smallvec::SmallVec<[(crate::id::Sym, u16, Layer); 2]> {
                mods.iter()
                    .filter(|m| m.layer.is_tag() && m.rank != u16::MAX)
                    .map(|m| (m.key, m.rank, m.layer))
                    .collect()
            };
        if layered(old) != layered(&list) {
            match self.zone_and_owner(id) {
                Some((zone, _)) => self.dirty.structural_at(id, zone),
                None => self.dirty.anywhere = true,
            }
            self.dirty.structural = true;
            self.dirty.other = true;
        }
        if before != after || removed_before != removed_after {
            self.dirty.granted = true;
        }
        reindex(&mut self.by_granted_tag, id, &before, &after);
        reindex(
            &mut self.by_removed_tag,
            id,
            &removed_before,
            &removed_after,
        );
        self.store_list(id, list);
    }

    /// Stores an object's list of modifiers in effect (empty: none).
    fn store_list(&mut self, id: ObjId, list: Vec<AppliedMod>) {
        if list.is_empty() {
            self.store_applied(id, None);
        } else {
            self.store_applied(id, Some(std::sync::Arc::new(list)));
        }
    }
}

/// Moves `id` in a tag index from the tags of `before` to those of `after`.
fn reindex(
    index: &mut super::Index<crate::id::Sym>,
    id: ObjId,
    before: &[crate::id::Sym],
    after: &[crate::id::Sym],
) {
    for t in before.iter().filter(|t| !after.contains(t)) {
        if let Some(set) = index.get_mut(t) {
            set.remove(&id);
        }
    }
    for t in after.iter().filter(|t| !before.contains(t)) {
        index.entry(*t).or_default().insert(id);
    }
}
