//! `IdHash`: the hasher of maps keyed by engine keys.

/// Hashes engine keys: interned symbols and ids (hashed by address), object ids and small
/// tuples of them. Keys come from the engine, never from players, so a fast
/// multiply-fold beats SipHash's flood resistance (SipHash was ~5% of a game in the
/// world's indexes, and ~2.5% in the generation's maps by id).
///
/// ```
/// use std::collections::HashMap;
/// use tessera_host::{IdHash, Sym};
/// let mut by_key: HashMap<Sym, u32, IdHash> = HashMap::default();
/// by_key.insert(Sym::new("attack"), 1);
/// assert_eq!(by_key.get(&Sym::new("attack")), Some(&1));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct IdHash;

impl std::hash::BuildHasher for IdHash {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher(0)
    }
}

/// The hasher of [`IdHash`].
#[derive(Debug, Default)]
pub struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, n: u64) {
        // Fold, then mix so low bits (aligned addresses end in zeros) vary too.
        let x = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 29);
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
