//! What the frontier queues: anything with a uniq key that can be written to and read from bytes.

/// An item the frontier can keep on disk.
pub trait Item: Sized {
    /// The already-seen key (the canonical URL under the crawl's rules).
    fn uniq_key(&self) -> &str;
    /// Appends the item's bytes to `out`.
    fn encode(&self, out: &mut Vec<u8>);
    /// Reads an item back; `None` for bytes that are not one (a store from another version).
    fn decode(bytes: &[u8]) -> Option<Self>;
}

/// Strings are items whose uniq key is themselves: handy in tests and tools.
impl Item for String {
    fn uniq_key(&self) -> &str {
        self
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.as_bytes());
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        String::from_utf8(bytes.to_vec()).ok()
    }
}
