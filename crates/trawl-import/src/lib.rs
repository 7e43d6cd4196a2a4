//! Importers of other crawlers' configurations: each reads the other crawler's files and writes a commented
//! trawl profile, listing what it could not carry over.

pub mod heritrix;
