//! How long a queue rests after a fetch: its politeness delay, and the part of it the server asked for.

use std::time::Duration;

/// A queue's rest after a taken item: `delay`, the politeness computed for it (which an operator's delay for
/// the queue replaces), at least `asked`, what the server asked (a `Retry-After`, a robots.txt `Crawl-delay`),
/// which nothing shortens (xt21a F1: an operator's `queue-delay` of 300 ms sent a request 0.3 s after a
/// `Retry-After: 5`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// The politeness delay computed for the fetch, the server's ask included.
    pub delay: Duration,
    /// What the server asked for: the least rest, whatever the operator set.
    pub asked: Duration,
    /// Whether a request went to the host. An item ended before one (refused by robots.txt or a rule, held,
    /// handed over) does not rest its queue the operator's delay either (xt22a F5: each URL robots.txt
    /// refused cost its host a whole `queue-delay`).
    pub fetched: bool,
}

impl Pace {
    /// The pace of an item that ended without a request: its queue's rest stays as it was.
    pub const UNFETCHED: Pace = Pace {
        delay: Duration::ZERO,
        asked: Duration::ZERO,
        fetched: false,
    };

    /// The pace of a fetch: its computed `delay`, and what the server `asked`.
    pub fn fetch(delay: Duration, asked: Duration) -> Pace {
        Pace {
            delay,
            asked,
            fetched: true,
        }
    }

    /// The rest it gives a queue for which the operator set `own`: `own` replaces the computed delay of a
    /// fetch, never what the server asked.
    pub fn rest(self, own: Option<Duration>) -> Duration {
        let computed = match own {
            Some(own) if self.fetched => own,
            _ => self.delay,
        };
        computed.max(self.asked)
    }
}

impl From<Duration> for Pace {
    /// A fetch's delay, of which the server asked nothing.
    fn from(delay: Duration) -> Pace {
        Pace::fetch(delay, Duration::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn an_operator_delay_replaces_a_fetch_delay_but_not_the_servers_ask() {
        let pace = Pace {
            delay: MS(1000),
            asked: MS(800),
            fetched: true,
        };
        assert_eq!(pace.rest(None), MS(1000));
        assert_eq!(pace.rest(Some(MS(300))), MS(800));
        assert_eq!(pace.rest(Some(MS(2500))), MS(2500));
    }

    #[test]
    fn an_item_ended_without_a_request_does_not_rest_its_queue_the_operator_delay() {
        assert_eq!(Pace::UNFETCHED.rest(Some(MS(2500))), Duration::ZERO);
        assert_eq!(Pace::from(Duration::ZERO).rest(Some(MS(2500))), MS(2500));
    }
}
