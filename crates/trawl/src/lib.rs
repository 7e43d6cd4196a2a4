//! The `trawl` binary's library half: the built-in self-test site and its checks, shared by the CLI and the
//! integration tests.

pub mod selftest;
