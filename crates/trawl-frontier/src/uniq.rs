//! The already-seen filter.

use std::collections::HashSet;

use xxhash_rust::xxh3::xxh3_64;

/// Remembers uniq keys by their xxh3 64-bit fingerprint (stable across versions, so it can be persisted).
///
/// At 64 bits a false "already seen" needs about 4 billion keys for even odds; the persistent store will
/// revisit the width when it measures.
#[derive(Debug, Default)]
pub struct UniqFilter {
    seen: HashSet<u64>,
}

impl UniqFilter {
    /// Adds `key`; returns true if it was not there before.
    pub fn add(&mut self, key: &str) -> bool {
        self.seen.insert(xxh3_64(key.as_bytes()))
    }

    /// Whether `key` was added before.
    pub fn contains(&self, key: &str) -> bool {
        self.seen.contains(&xxh3_64(key.as_bytes()))
    }

    /// How many keys were added.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether no key was added yet.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}
