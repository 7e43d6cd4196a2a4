//! Outlinks already known to the uniq filter, remembered by their URL string so that a link seen on page after
//! page (navigation, footers) skips the candidate chain.

use std::collections::HashSet;

use xxhash_rust::xxh3::xxh3_128;

/// How many links one generation holds. Two generations are kept: at 16 B a fingerprint plus the hash table's
/// control bytes and spare room, at most about 17 MB; links repeated across pages (navigation) are recent ones.
const GENERATION: usize = 1 << 18;

/// A bounded set of outlink URLs (as extraction resolved them) whose uniq key is in the uniq filter.
///
/// Sound because both halves are fixed for a crawl: a URL string always gets the same uniq key (URL classes and
/// the canonicalizer do not change while it runs) and the uniq filter never forgets a key. Such a link can only
/// end as a duplicate, whatever its scope verdict; skipping identity, scope and the filter's lookup for it
/// changes nothing but the work done. 128-bit fingerprints, so that a collision, which would silently lose a
/// URL, is far less likely than one among the filter's own 64-bit keys.
#[derive(Default)]
pub(crate) struct KnownLinks {
    current: HashSet<u128, foldhash::fast::FixedState>,
    previous: HashSet<u128, foldhash::fast::FixedState>,
}

impl KnownLinks {
    /// The fingerprint `contains` and `insert` take.
    pub(crate) fn fingerprint(url: &str) -> u128 {
        xxh3_128(url.as_bytes())
    }

    pub(crate) fn contains(&self, fp: u128) -> bool {
        self.current.contains(&fp) || self.previous.contains(&fp)
    }

    /// Remembers a link whose uniq key is now in the filter; the oldest generation goes when a new one fills.
    pub(crate) fn insert(&mut self, fp: u128) {
        if self.current.len() >= GENERATION {
            self.previous = std::mem::take(&mut self.current);
        }
        self.current.insert(fp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_a_generation_back_and_forgets_beyond() {
        let mut known = KnownLinks::default();
        let first = KnownLinks::fingerprint("http://127.0.0.1/a");
        known.insert(first);
        assert!(known.contains(first));
        assert!(!known.contains(KnownLinks::fingerprint("http://127.0.0.1/b")));
        for i in 0..GENERATION as u128 {
            known.insert(i);
        }
        assert!(known.contains(first), "one generation back is kept");
        for i in 0..GENERATION as u128 {
            known.insert(i + GENERATION as u128);
        }
        assert!(!known.contains(first), "two generations back is forgotten");
    }
}
