//! Importers of other crawlers' configurations: each reads the other crawler's files and writes a commented
//! trawl profile, listing what it could not carry over.
//!
//! What this crate must not know: the engine and fetching; it reads files and writes a profile's text, and
//! checks it with `trawl-config`.

pub mod heritrix;
