//! The trawl crawl engine: the crawl itself.
//!
//! A URI's way through a crawl, in the order of the pipeline: the frontier -> the chain of stages (`chain/`:
//! prefetch, fetch through `trawl_fetch`, extract through `trawl_extract`, the gates of `trawl_config`, write,
//! post) -> outlinks back through the scope to the frontier. [`Crawl`] runs that loop for a job directory;
//! around it live the WARC writer and dedup ([`write`]), the journal (crawl.log, then the frontier's commit),
//! checkpoints, operator control, live settings, statistics and reports; [`login`] makes a form login's
//! exchanges for the crawl's login stage and for `trawl login`.
//!
//! What this crate must not hold: how a URI is fetched, what a document links to, or how settings are read
//! and rules built — those are `trawl-fetch`, `trawl-extract` and `trawl-config`, usable without a crawl.
#![deny(missing_docs)]

mod blocking;
mod chain;
pub mod checkpoint;
pub mod control;
mod crawl;
pub mod crawl_log;
mod error;
mod fetch_record;
pub mod job;
mod journal;
pub mod live;
mod lock;
pub mod login;
pub mod package;
pub mod report;
pub mod shared_job;
pub mod stats;
pub mod write;

pub use crate::{
    crawl::{
        Crawl, CrawlHandle, ENDING, FailedLogin, LoginFailure, RemoteSpec, Restored, Summary,
        job_name,
    },
    error::Error,
};
