//! What the frontier queues: anything with a uniq key that can be written to and read from bytes.

/// An item the frontier can keep on disk.
pub trait Item: Sized {
    /// The already-seen key (the canonical URL under the crawl's rules).
    fn uniq_key(&self) -> &str;
    /// Appends the item's bytes to `out`.
    fn encode(&self, out: &mut Vec<u8>);
    /// Reads an item back; `None` for bytes that are not one (a store from another version).
    fn decode(bytes: &[u8]) -> Option<Self>;
    /// Its place in its queue: lower first, FIFO among equals (Heritrix's URI precedence). Default: 1.
    fn precedence(&self) -> u8 {
        1
    }
    /// The precedence it gives its queue: a queue takes the lowest of its items', and among queues waiting
    /// for a turn the lower go first (Heritrix's queue precedence). Default: 3.
    fn queue_precedence(&self) -> u8 {
        3
    }
    /// The budget its settings give its queue when they differ from the frontier's (a sheet for a SURT
    /// prefix); an operator's budget for the queue still wins. Default: none.
    fn queue_budget(&self) -> Option<u64> {
        None
    }
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
