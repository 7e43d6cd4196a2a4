//! The built-in self-test: a small site full of crawler traps, and the checks that judge a crawl of it.
//!
//! [`site::start`] serves the test site on 127.0.0.1 (plus an "offsite" host that must never be
//! visited). After a crawl of [`site::Site::seed`], [`trawl_engine::crawl_log::parse`] reads the job's `crawl.log`
//! and [`checks::run_all`] judges every scenario by both the log and the server's own hit counts.

pub mod checks;
mod run;
pub mod site;

pub use self::run::{Report, config, run};
