//! The trawl crawl engine.
//!
//! A URI's way through the engine, in the order of the pipeline:
//! [`CrawlUri`] (one URI in flight) -> [`Scope`] (decide rules, traced) -> the frontier ->
//! [`Fetcher`] (exact wire bytes) -> [`extract`] (outlinks) -> WARC and crawl.log -> outlinks back to scope.
//! [`Crawl`] runs that loop for a job directory with a [`CrawlConfig`].
#![deny(missing_docs)]

pub mod access;
mod annotation;
pub mod assign;
mod chain;
pub mod checkpoint;
pub mod config;
pub mod control;
mod crawl;
pub mod crawl_log;
mod crawl_uri;
pub mod decide;
mod decode;
mod error;
pub mod explain;
pub mod extract;
pub mod fetch;
mod fetch_record;
pub mod filters;
mod hop;
pub mod job;
mod journal;
pub mod live;
pub mod package;
pub mod report;
pub mod robots;
mod scope;
pub mod sheets;
pub mod stats;
pub mod status;
pub mod write;

pub use crate::{
    annotation::Annotation,
    config::{ConfigError, CrawlConfig},
    crawl::{Crawl, CrawlHandle, RemoteSpec, Summary, job_name},
    crawl_uri::{ClassFacts, CrawlUri, UriKind, Watch},
    error::Error,
    fetch::Fetcher,
    hop::Hop,
    scope::{Gates, Scope},
    sheets::Sheets,
};
