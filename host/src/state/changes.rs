//! When each kind of change last happened (`Changes`): per property key, per zone, and
//! for structural changes anywhere, stamped with a world-local count. Settle rules use it:
//! a rule whose selection found nothing stays quiet until something it reads changes.
//!
//! Owns the stamps and the quiet marks of settle rules; it does not know what a rule is
//! (rules are numbered by the caller) and never looks at objects.

use super::{Deps, Dirty, HealthRule};
use crate::id::Sym;

/// When each kind of change last happened. Changes reach it from [`Dirty`] when aura
/// recompute takes the dirty set ([`Changes::fold`]); what is still pending in the dirty
/// set is looked at beside it ([`Changes::quiet`]).
#[derive(Debug, Clone, Default)]
pub struct Changes {
    /// The stamp of the last fold that recorded something.
    now: u64,
    /// Each watched property key (one a quiet rule reads), with the stamp of its last
    /// change (0: none since it was first watched). Only watched keys are stamped: a
    /// rule is marked quiet after its keys are watched, so earlier changes cannot matter.
    keys: smallvec::SmallVec<[(Sym, u64); 4]>,
    /// Each watched zone, with the stamp of the last structural change in it (other
    /// than own tags added or removed: those stamp `tags`).
    zones: smallvec::SmallVec<[(Sym, u64); 4]>,
    /// Each watched tag, with the stamp of the last time an object gained or lost it.
    tags: smallvec::SmallVec<[(Sym, u64); 4]>,
    /// The last structural change of any kind.
    structural: u64,
    /// The last structural change that could not be placed in zones.
    anywhere: u64,
    /// Per settle rule (by its place in the generation's list): the stamp at which its
    /// selection last found nothing, or `None` (it must select again).
    quiet: smallvec::SmallVec<[Option<u64>; 4]>,
}

fn stamp_of(list: &[(Sym, u64)], key: Sym) -> u64 {
    list.iter().find(|(k, _)| *k == key).map_or(0, |(_, s)| *s)
}

/// Stamps `key` if it is watched.
fn stamp(list: &mut [(Sym, u64)], key: Sym, now: u64) {
    if let Some(e) = list.iter_mut().find(|(k, _)| *k == key) {
        e.1 = now;
    }
}

/// Watches `key` (stamp 0: unchanged since).
fn watch(list: &mut smallvec::SmallVec<[(Sym, u64); 4]>, key: Sym) {
    if !list.iter().any(|(k, _)| *k == key) {
        list.push((key, 0));
    }
}

impl Changes {
    /// Records what `dirty` holds as changed now. `health` names the derived health key:
    /// a change to the maximum or the damage changes it too.
    pub(crate) fn fold(&mut self, dirty: &Dirty, health: &HealthRule) {
        if !dirty.any() && !dirty.granted {
            return;
        }
        self.now += 1;
        let now = self.now;
        if !self.keys.is_empty() {
            for &k in &dirty.keys {
                stamp(&mut self.keys, k, now);
                if k == health.max_key || k == health.damage_key {
                    stamp(&mut self.keys, health.health_key, now);
                }
            }
        }
        // Own tags added or removed reach only readers of those tags ([`Deps::tags`]);
        // any other structural change is placed by zone.
        let moved = dirty.structural && dirty.other;
        for &t in &dirty.tags {
            stamp(&mut self.tags, t, now);
        }
        if moved || dirty.granted {
            self.structural = now;
        }
        // A tag granted by a modifier is not structural for auras (they see it through
        // its key); a settle rule cannot tell, so it counts as a change anywhere.
        if (moved && dirty.anywhere) || dirty.granted {
            self.anywhere = now;
        }
        if moved {
            for &z in &dirty.zones {
                stamp(&mut self.zones, z, now);
            }
        }
    }

    /// Whether settle rule `rule`, reading `deps`, may be skipped: its selection found
    /// nothing, and nothing it reads changed since (neither folded nor still `pending`).
    pub fn quiet(&self, rule: usize, deps: &Deps, pending: &Dirty, health: &HealthRule) -> bool {
        let Some(Some(since)) = self.quiet.get(rule).copied() else {
            return false;
        };
        if deps.everything || deps.scoped {
            return false;
        }
        let key_changed = deps.keys.iter().any(|&k| {
            stamp_of(&self.keys, k) > since
                || pending.keys.contains(&k)
                || (k == health.health_key
                    && (pending.keys.contains(&health.max_key)
                        || pending.keys.contains(&health.damage_key)))
        });
        if key_changed {
            return false;
        }
        if !deps.structural {
            return true;
        }
        let tag_changed = deps
            .tags
            .iter()
            .any(|&t| stamp_of(&self.tags, t) > since || pending.tags.contains(&t));
        if tag_changed {
            return false;
        }
        let folded = if deps.confined() {
            self.anywhere > since || deps.zones.iter().any(|&z| stamp_of(&self.zones, z) > since)
        } else {
            self.structural > since
        };
        let pending_hits = pending.granted
            || (pending.structural
                && pending.other
                && (pending.anywhere
                    || !deps.confined()
                    || deps.zones.iter().any(|z| pending.zones.contains(z))));
        !folded && !pending_hits
    }

    /// Marks settle rule `rule` quiet (its selection, reading `deps`, found nothing:
    /// `Some`) or not (`None`). What a quiet rule reads is watched from now on.
    pub fn set_quiet(&mut self, rule: usize, deps: Option<&Deps>) {
        if self.quiet.len() <= rule {
            if deps.is_none() {
                return;
            }
            self.quiet.resize(rule + 1, None);
        }
        self.quiet[rule] = deps.map(|_| self.now);
        if let Some(d) = deps {
            for &k in &d.keys {
                watch(&mut self.keys, k);
            }
            for &z in &d.zones {
                watch(&mut self.zones, z);
            }
            for &t in &d.tags {
                watch(&mut self.tags, t);
            }
        }
    }

    /// Forgets every quiet mark and what was watched for them (the rules changed: a
    /// generation swap).
    pub fn forget_quiet(&mut self) {
        self.quiet.clear();
        self.keys.clear();
        self.zones.clear();
        self.tags.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::ObjId;

    fn deps(keys: &[&str], zones: &[&str]) -> Deps {
        let mut d = Deps::default();
        for k in keys {
            d.target_key(Sym::new(k));
        }
        let zones: Vec<Sym> = zones.iter().map(|z| Sym::new(z)).collect();
        d.structural_in(&zones);
        d
    }

    fn touched(key: &str) -> Dirty {
        let mut d = Dirty::default();
        d.touch(
            ObjId {
                index: 1,
                generation: 0,
            },
            Sym::new(key),
        );
        d
    }

    fn moved(zone: &str) -> Dirty {
        let mut d = Dirty::default();
        d.structural_at(
            ObjId {
                index: 1,
                generation: 0,
            },
            Sym::new(zone),
        );
        d
    }

    #[test]
    fn a_quiet_rule_wakes_only_for_what_it_reads() {
        let h = HealthRule::default();
        let none = Dirty::default();
        let d = deps(&["health"], &["board"]);
        let mut c = Changes::default();
        assert!(!c.quiet(0, &d, &none, &h), "never selected: must select");
        c.set_quiet(0, Some(&d));
        assert!(c.quiet(0, &d, &none, &h));
        // Keys and zones it does not read leave it quiet, folded or pending.
        c.fold(&touched("attack"), &h);
        c.fold(&moved("hand"), &h);
        assert!(c.quiet(0, &d, &touched("attack"), &h));
        assert!(c.quiet(0, &d, &moved("deck"), &h));
        // Pending changes it reads wake it; damage changes the derived health.
        assert!(!c.quiet(0, &d, &touched("damage"), &h));
        assert!(!c.quiet(0, &d, &moved("board"), &h));
        // So do folded ones, until it is marked quiet again.
        c.fold(&touched("max_health"), &h);
        assert!(!c.quiet(0, &d, &none, &h));
        c.set_quiet(0, Some(&d));
        assert!(c.quiet(0, &d, &none, &h));
        c.fold(&moved("board"), &h);
        assert!(!c.quiet(0, &d, &none, &h));
        c.set_quiet(0, None);
        assert!(!c.quiet(0, &d, &none, &h));
    }

    fn tagged(zone: &str, tag: &str) -> Dirty {
        let mut d = Dirty::default();
        d.tagged_at(
            ObjId {
                index: 1,
                generation: 0,
            },
            Sym::new(zone),
            Sym::new(tag),
        );
        d
    }

    #[test]
    fn tag_changes_wake_only_readers_of_the_tag() {
        let h = HealthRule::default();
        let none = Dirty::default();
        let mut d = deps(&["health"], &["board"]);
        d.tag(Sym::new("minion"));
        let mut c = Changes::default();
        c.set_quiet(0, Some(&d));
        // Another tag, even in its zone: still quiet, pending or folded.
        assert!(c.quiet(0, &d, &tagged("board", "exhausted"), &h));
        c.fold(&tagged("board", "exhausted"), &h);
        assert!(c.quiet(0, &d, &none, &h));
        // The tag it reads, even in a zone it does not read (the tag may move it into
        // its selection): awake.
        assert!(!c.quiet(0, &d, &tagged("hand", "minion"), &h));
        c.fold(&tagged("hand", "minion"), &h);
        assert!(!c.quiet(0, &d, &none, &h));
        // A tag change folded with a move in its zone: awake through the zone.
        c.set_quiet(0, Some(&d));
        let mut both = tagged("board", "exhausted");
        both.structural_at(
            ObjId {
                index: 2,
                generation: 0,
            },
            Sym::new("board"),
        );
        assert!(!c.quiet(0, &d, &both, &h));
        c.fold(&both, &h);
        assert!(!c.quiet(0, &d, &none, &h));
    }

    #[test]
    fn unconfined_scoped_and_granted_reads_are_conservative() {
        let h = HealthRule::default();
        let none = Dirty::default();
        let mut c = Changes::default();
        let mut anywhere = deps(&["health"], &[]);
        anywhere.structural_anywhere();
        let mut scoped = deps(&["health"], &["board"]);
        scoped.scoped = true;
        let confined = deps(&["health"], &["board"]);
        c.set_quiet(0, Some(&anywhere));
        c.set_quiet(1, Some(&scoped));
        c.set_quiet(2, Some(&confined));
        assert!(
            !c.quiet(1, &scoped, &none, &h),
            "a scoped read is never quiet"
        );
        c.fold(&moved("hand"), &h);
        assert!(!c.quiet(0, &anywhere, &none, &h));
        assert!(c.quiet(2, &confined, &none, &h));
        let granted = Dirty {
            granted: true,
            ..Dirty::default()
        };
        assert!(!c.quiet(2, &confined, &granted, &h));
        c.fold(&granted, &h);
        assert!(!c.quiet(2, &confined, &none, &h));
        c.forget_quiet();
        c.set_quiet(2, Some(&confined));
        assert!(c.quiet(2, &confined, &none, &h));
        assert!(!c.quiet(0, &confined, &none, &h), "forgotten");
    }
}
