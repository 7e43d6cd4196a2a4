//! The frontier: which URI to fetch next, and when, without being rude to any host.
//!
//! - [`Frontier`] holds one FIFO [queue](Frontier::schedule) per politeness key (by default a SURT authority),
//!   and orders ready queues by the time each may next be fetched from;
//! - [`UniqFilter`] remembers which uniq keys were already scheduled, as 64-bit xxh3 fingerprints;
//! - [`Next`] is what a worker gets when it asks for work.
//!
//! The store is in memory for now; the persistent store comes with its own issue. The frontier is generic over
//! the item it queues, so it knows nothing of the engine's `CrawlUri`.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use trawl_frontier::{Frontier, Next, Scheduled};
//! let mut f = Frontier::new(1);
//! assert_eq!(f.schedule("com,example,", "http://example.com/", "seed"), Scheduled::Queued);
//! assert_eq!(f.schedule("com,example,", "http://example.com/", "again"), Scheduled::Duplicate);
//! let now = Instant::now();
//! let Next::Ready(item) = f.next(now) else { panic!() };
//! assert_eq!(item.item, "seed");
//! f.finished(&item.queue, now, Duration::from_secs(3));
//! assert!(matches!(f.next(now), Next::Empty));
//! ```
#![deny(missing_docs)]

mod frontier;
mod uniq;

pub use crate::{
    frontier::{Frontier, Next, Scheduled, Taken},
    uniq::UniqFilter,
};
