//! Queue names, interned: each name is stored once and known elsewhere by its queue id (a `u32`), so the
//! frontier's per-queue tables, ready heap and waiting line hold ids instead of copies of strings.

use std::hash::BuildHasher;

use hashbrown::HashTable;

/// A span that holds no name: an id with no queue (a gap in a store's ids).
const NO_NAME: (u64, u32) = (u64::MAX, 0);

/// Every queue name in one string, found by id (its span) or by name (a hash table of ids).
#[derive(Debug, Default)]
pub(crate) struct Names {
    text: String,
    /// Where each id's name is in `text`: start and length.
    spans: Vec<(u64, u32)>,
    /// Ids by the hash of their name.
    index: HashTable<u32>,
    hasher: foldhash::fast::RandomState,
}

impl Names {
    /// The id of `name`, if it has one.
    pub(crate) fn get(&self, name: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(name);
        self.index
            .find(hash, |&id| self.name_of(id) == Some(name))
            .copied()
    }

    /// The name of `id` (empty for an id without one).
    pub(crate) fn name(&self, id: u32) -> &str {
        self.name_of(id).unwrap_or_default()
    }

    /// Whether `id` has a name.
    pub(crate) fn has(&self, id: u32) -> bool {
        self.name_of(id).is_some()
    }

    /// Gives `name` (not interned yet) the next id.
    pub(crate) fn add(&mut self, name: &str) -> u32 {
        let id = u32::try_from(self.spans.len()).expect("fewer than 2^32 queues");
        self.insert(id, name);
        id
    }

    /// Interns `name` under `id` (read back from a store, in any order); ids skipped so far have no name until
    /// given one.
    pub(crate) fn insert(&mut self, id: u32, name: &str) {
        let at = id as usize;
        if self.spans.len() <= at {
            self.spans.resize(at + 1, NO_NAME);
        }
        self.spans[at] = (
            self.text.len() as u64,
            u32::try_from(name.len()).expect("a queue name under 4 GiB"),
        );
        self.text.push_str(name);
        let Names {
            text,
            spans,
            index,
            hasher,
        } = self;
        let hash = hasher.hash_one(name);
        index.insert_unique(hash, id, |&other| {
            hasher.hash_one(span_text(text, spans, other).unwrap_or_default())
        });
    }

    fn name_of(&self, id: u32) -> Option<&str> {
        span_text(&self.text, &self.spans, id)
    }
}

fn span_text<'a>(text: &'a str, spans: &[(u64, u32)], id: u32) -> Option<&'a str> {
    let &(start, len) = spans.get(id as usize)?;
    if (start, len) == NO_NAME {
        return None;
    }
    let start = start as usize;
    text.get(start..start + len as usize)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn an_id_skipped_has_no_name() {
        let mut names = Names::default();
        names.insert(2, "b");
        assert_eq!(names.get("b"), Some(2));
        assert!(!names.has(0) && !names.has(1) && names.has(2));
        assert_eq!(names.name(1), "");
        assert_eq!(names.get(""), None);
        names.insert(0, "");
        assert_eq!(names.get(""), Some(0));
        assert_eq!(names.add("c"), 3);
    }

    proptest! {
        /// Names given ids in any order are found by id and by name, and unknown names are not.
        #[test]
        fn names_round_trip(
            set in proptest::collection::hash_set("[a-z,]{0,12}", 0..200),
            seed in any::<u64>(),
            gap in 0u32..3,
        ) {
            let mut named: Vec<(u32, String)> = set
                .into_iter()
                .enumerate()
                .map(|(i, n)| (i as u32 * (gap + 1), n))
                .collect();
            // a shuffle, as a store's records come back sorted by name rather than id
            named.sort_by_key(|(id, _)| (u64::from(*id) ^ seed).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let mut names = Names::default();
            for (id, name) in &named {
                names.insert(*id, name);
            }
            for (id, name) in &named {
                prop_assert_eq!(names.get(name), Some(*id));
                prop_assert_eq!(names.name(*id), name.as_str());
                prop_assert!(names.has(*id));
            }
            prop_assert_eq!(names.get("not-a-name!"), None);
            let next = names.spans.len() as u32;
            prop_assert_eq!(names.add("not-a-name!"), next);
            prop_assert_eq!(names.get("not-a-name!"), Some(next));
        }
    }
}
