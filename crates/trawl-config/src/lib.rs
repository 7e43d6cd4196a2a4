//! trawl's settings and the rules they build: what a crawl is told, and how it judges a URI.
//!
//! [`CrawlConfig`] is every setting of a crawl, loaded from `crawl.toml` (includes, profiles, seed files) and
//! checked in three stages, each problem at FILE:LINE:COL ([`settings`]). From it come the judges of a URI:
//! [`decide`] rules and their sequences (Heritrix's `deciderules`), HarvestMan's URL and text [`filters`],
//! [`Sheets`] (settings overridden for some URIs) and the [`Scope`] that runs them, traced so
//! `trawl url explain` can say why ([`explain`]). What they judge is a [`CrawlUri`]: one URI with its identity,
//! how it was found and the [`Annotation`]s stages add, as the frontier stores it.
//!
//! What this crate must not know: sockets, fetching, async runtimes, the frontier's storage, the crawl loop.
//! `trawl check` and `trawl import heritrix` depend on it alone.
#![deny(missing_docs)]

pub mod annotation;
pub mod assign;
pub mod cookies_file;
mod crawl_uri;
pub mod decide;
mod error;
pub mod explain;
pub mod filters;
mod scope;
pub mod settings;
pub mod sheets;
pub mod status;

pub use trawl_extract::Hop;

pub use crate::{
    annotation::Annotation,
    crawl_uri::{ClassFacts, CrawlUri, UriKind, Watch, origin},
    error::LoadError,
    scope::{Gates, Scope, login_guard},
    settings::{ConfigError, CrawlConfig},
    sheets::Sheets,
};
