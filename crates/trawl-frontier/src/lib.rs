//! The frontier: which URI to fetch next, and when, without being rude to any host.
//!
//! What this crate must not know: what an item is (the [`Item`] trait stores and keys it), how it is fetched,
//! the crawl's settings and decide rules.
//!
//! - [`Frontier`] holds one FIFO queue per politeness key (by default a SURT authority) and orders ready queues
//!   by the time each may next be fetched from; [`Next`] is what a worker gets when it asks for work and
//!   [`Taken`] what it hands back with [`Frontier::finished`];
//! - the queued [`Item`]s and the uniq filter live in an embedded store on disk ([`Frontier::open`]), so memory
//!   holds only the head of each queue and a crawl survives being killed; [`Frontier::in_memory`] keeps
//!   everything in memory;
//! - operators inspect and steer queues: [`QueueInfo`], [`Control`], budgets and delays.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use trawl_frontier::{Frontier, Next, Scheduled};
//! let mut f = Frontier::in_memory(1);
//! assert_eq!(f.schedule("com,example,", "http://example.com/".to_string()), Scheduled::Queued);
//! assert_eq!(f.schedule("com,example,", "http://example.com/".to_string()), Scheduled::Duplicate);
//! let now = Instant::now();
//! let Next::Ready(taken) = f.next(now).unwrap() else { panic!() };
//! assert_eq!(taken.item, "http://example.com/");
//! f.finished(&taken.queue, taken.ticket, Some(200), now, Duration::from_secs(3));
//! assert!(matches!(f.next(now).unwrap(), Next::Empty));
//! ```
#![deny(missing_docs)]

mod error;
mod frontier;
mod item;
mod pace;
mod queue;
mod shared;
mod store;

pub use crate::{
    error::{Error, no_room, store_failure},
    frontier::{Frontier, Next, Scheduled, Taken, Ticket, UrlStatus},
    item::Item,
    pace::Pace,
    queue::{Control, QueueInfo, QueueState},
    shared::{
        Claim, Completion, Lease, SharedCache, SharedCounts, SharedError, SharedFrontier,
        SharedQueue, WorkerInfo, shared_crawls, with_password, without_password,
    },
    store::{CommitWaiter, StoreCopy, clear_unmade},
};
