//! Checksums: a stable hash of everything observable in a world, for desync detection,
//! replays and "the failed command changed nothing" checks.

use super::World;

impl World {
    /// A checksum of the whole observable state (objects, properties, tags, zones,
    /// owners, modifiers, aura instances, scheduler, tick, RNG position). Two worlds
    /// with equal checksums are, for every rule, the same world.
    pub fn checksum(&self) -> u64 {
        let mut h = Fnv::new();
        for (id, o) in self.objects() {
            h.bytes(&id.index.to_le_bytes());
            h.bytes(&id.generation.to_le_bytes());
            h.str(o.class.as_str());
            h.bytes(
                &o.owner
                    .map_or(u64::MAX, |x| u64::from(x.index))
                    .to_le_bytes(),
            );
            h.str(o.zone.as_str());
            h.bytes(
                &o.parent
                    .map_or(u64::MAX, |x| u64::from(x.index))
                    .to_le_bytes(),
            );
            h.bytes(&o.timestamp.to_le_bytes());
            for (k, v) in &o.props {
                h.str(k.as_str());
                v.hash_into(&mut h);
            }
            for t in &o.tags {
                h.str(t.as_str());
            }
            for m in self.modifiers(id) {
                h.str(m.key.as_str());
                h.bytes(&m.value.to_bits().to_le_bytes());
                h.bytes(&m.timestamp.to_le_bytes());
            }
        }
        for (n, a) in &self.auras {
            h.bytes(&n.to_le_bytes());
            h.str(a.def.as_str());
            h.bytes(&a.holder.index.to_le_bytes());
        }
        for (n, e) in &self.effects {
            h.bytes(&n.to_le_bytes());
            h.str(e.def.as_str());
            h.bytes(&e.holder.index.to_le_bytes());
            h.bytes(&[u8::from(e.once), u8::from(e.given_silenced)]);
        }
        for ((due, seq), e) in &self.scheduled {
            h.bytes(&due.to_le_bytes());
            h.bytes(&seq.to_le_bytes());
            h.str(e.id.as_str());
        }
        h.bytes(&self.tick.to_le_bytes());
        h.bytes(&self.clock.to_le_bytes());
        h.bytes(&self.rng.borrow().get_word_pos().to_le_bytes());
        h.finish()
    }
}

/// FNV-1a, 64-bit: a stable hash for checksums (std's hasher may change between releases).
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    pub(crate) fn byte(&mut self, b: u8) {
        self.0 ^= u64::from(b);
        self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
    }
    pub(crate) fn bytes(&mut self, bs: &[u8]) {
        for &b in bs {
            self.byte(b);
        }
    }
    pub(crate) fn str(&mut self, s: &str) {
        self.bytes(&(s.len() as u64).to_le_bytes());
        self.bytes(s.as_bytes());
    }
    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}
