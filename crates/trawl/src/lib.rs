//! The `trawl` binary's library half: the built-in self-test site and its checks, shared by the CLI and the
//! integration tests.
//!
//! What this crate must not hold: crawling logic; commands parse arguments, call the library crates and print.

pub mod selftest;
