//! How long a queue rests after a fetch: its politeness delay, and the part of it the server asked for.

use std::time::Duration;

/// A queue's rest after a fetch: `delay`, the politeness computed for it (which an operator's delay for the
/// queue replaces), at least `asked`, what the server asked (a `Retry-After`, a robots.txt `Crawl-delay`),
/// which nothing shortens (xt21a F1: an operator's `queue-delay` of 300 ms sent a request 0.3 s after a
/// `Retry-After: 5`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pace {
    /// The politeness delay computed for the fetch, the server's ask included.
    pub delay: Duration,
    /// What the server asked for: the least rest, whatever the operator set.
    pub asked: Duration,
}

impl From<Duration> for Pace {
    /// A delay of which the server asked nothing.
    fn from(delay: Duration) -> Pace {
        Pace {
            delay,
            asked: Duration::ZERO,
        }
    }
}
