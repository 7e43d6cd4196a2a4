//! Outcomes: what becomes of a URI taken from the frontier ([`Disposition`]), and of the URIs it led to
//! ([`Child`] accepted, [`Cut`] refused). A value, not a call: the worker loop alone applies it.

use std::time::{Duration, Instant};

use trawl_config::CrawlUri;

/// A stage's early end: the URI's outcome, decided before the last stage.
pub(crate) type Ended = Box<Outcome>;

/// What becomes of a URI taken from the frontier, and of what it led to. Applied by the worker loop alone.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub(crate) disposition: Disposition,
    /// URIs accepted by the candidate chain, for the uniq filter and the frontier.
    pub(crate) children: Vec<Child>,
    /// The URL class's predicted next gallery page: queued only if this page's links brought something new.
    pub(crate) predicted: Option<Child>,
    /// URIs the candidate chain refused, to be logged once per uniq key (with their status and rule).
    pub(crate) cuts: Vec<Cut>,
    /// How many links the response held, accepted or not (refused ones without a line among them).
    pub(crate) links_found: usize,
    /// Queues held for a robots.txt this fetch settled, to be released.
    pub(crate) release: Vec<String>,
    /// Its crawl.log line, if it ended: handed to the journal as the outcome is applied, so the journal
    /// commits the outcome after writing the line.
    pub(crate) line: Option<String>,
    /// Redirect targets of seeds the crawl takes as seeds (see [`super::candidate::Judged::new_seeds`]).
    pub(crate) new_seeds: Vec<NewSeed>,
    /// The part of the disposition's delay the server asked for (a `Retry-After`, the origin's robots.txt
    /// `Crawl-delay`), or trawl's own pause for open files: an operator's delay for the queue does not cut it
    /// (`trawl_frontier::Pace`).
    pub(crate) asked: Duration,
}

/// A seed's redirect target the crawl takes as a seed (`scope.seed_redirects_new_seeds`).
#[derive(Debug)]
pub(crate) struct NewSeed {
    /// The seed (or a redirect of one) that redirected, as the log names it: `the seed URL`.
    pub(crate) from: String,
    /// The target, as accepted.
    pub(crate) target: CrawlUri,
}

/// What becomes of the URI itself.
#[derive(Debug)]
pub(crate) enum Disposition {
    /// Finished with `status` (logged); its queue rests `delay`.
    Done { status: i32, delay: Duration },
    /// Finished with `status` (logged) before any request went to the host (refused by robots.txt or a rule
    /// before the fetch): its queue's rest stays as it was (`trawl_frontier::Pace::UNFETCHED`).
    Unfetched { status: i32 },
    /// Back at the front of its queue, which rests `delay` first: a failure of the host (DNS, connection,
    /// TLS, a `Retry-After`, failures of several URLs in a row).
    Retry { uri: CrawlUri, delay: Duration },
    /// Tried again at `at`, at the back of its queue, which goes on after its politeness `delay`: a failure
    /// of this URL alone (a timeout, a cut connection, a 5xx) does not stall its host.
    RetryLater {
        uri: CrawlUri,
        at: Instant,
        delay: Duration,
    },
    /// Back at the front of its queue behind a prerequisite: scheduled with it (`hold: None`), or being
    /// fetched already, in which case the queue is held until that origin's robots.txt is settled.
    Held { uri: CrawlUri, hold: Option<Hold> },
    /// Replaced by another URI (a URL class's API URL, among the children): finished without a status.
    HandedOver,
}

/// A queue held until `until` passes (then it looks again): for an origin's robots.txt, which releases it
/// sooner once settled, or (`robots` false) for its `Crawl-delay` between two connections' fetches.
#[derive(Debug)]
pub(crate) struct Hold {
    pub(crate) origin: String,
    pub(crate) until: Instant,
    /// Held for the origin's robots.txt, not for its pace.
    pub(crate) robots: bool,
}

impl Outcome {
    /// An outcome with no children.
    pub(crate) fn only(disposition: Disposition) -> Outcome {
        Outcome {
            disposition,
            children: Vec::new(),
            predicted: None,
            cuts: Vec::new(),
            links_found: 0,
            release: Vec::new(),
            line: None,
            new_seeds: Vec::new(),
            asked: Duration::ZERO,
        }
    }

    /// This outcome, with `line` for crawl.log.
    pub(crate) fn logged(mut self, line: String) -> Outcome {
        self.line = Some(line);
        self
    }

    /// The URI is done with `status`; its queue rests `delay`.
    pub(crate) fn done(status: i32, delay: Duration) -> Outcome {
        Outcome::only(Disposition::Done { status, delay })
    }

    /// The URI is done with `status` before a request went to its host.
    pub(crate) fn unfetched(status: i32) -> Outcome {
        Outcome::only(Disposition::Unfetched { status })
    }
}

/// A URI the candidate chain accepted, with its queue and how it is to be queued.
#[derive(Debug)]
pub(crate) struct Child {
    pub(crate) uri: CrawlUri,
    pub(crate) queue: String,
    pub(crate) placement: Placement,
    /// For an outlink: its URL's fingerprint, remembered as known once it is in the uniq filter.
    pub(crate) known: Option<u128>,
}

/// How a child is queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Through the uniq filter, at the back of its queue (by precedence): outlinks, redirects, API URLs,
    /// predicted pages.
    New,
    /// At the front of its queue, past the uniq filter, its key marked seen: robots.txt.
    Prerequisite,
    /// At the back of its queue at this instant, past the uniq filter (it was seen: it is the same URL
    /// again): a watchable page's next visit.
    Revisit(Instant),
    /// At the front of its queue, past the uniq filter, whose key is seen already: a redirect's target that
    /// is another spelling of the URI that redirected (`www.` dropped, a trailing slash added, the case of
    /// the path changed), so it has that URI's key yet holds the page that was asked for.
    Redirect,
    /// Not queued, only its key marked seen: a URL a browser page asked for that got no response (refused
    /// by robots.txt, failed), logged already, which a link to it must not queue.
    Seen,
    /// Not queued, its key marked seen and marked [`fetched`]: a URL a browser page fetched (a response
    /// came, archived and logged), which the crawl must not fetch again, even where a link queued it before
    /// the page fetched it (the frontier hands it out and the worker ends it unfetched).
    Fetched,
}

/// The seen-set key that says a browser page fetched the URL of `uniq_key` (beside the URL's own key, as a
/// cut's line is marked, `cut KEY`): a queued item with it is ended without a second fetch (xt16a F6).
pub(crate) fn fetched(uniq_key: &str) -> String {
    format!("fetched {uniq_key}")
}

/// Whether a browser page's fetch of `item`'s URL may stand for the queued `item`: a page URI, not a watched
/// page's next visit, not a seed (its line makes the seeds report and may widen the scope), not one a URL
/// class hands over to its API URL (review 65 R3).
pub(crate) fn may_stand_for(item: &trawl_config::CrawlUri) -> bool {
    item.revisit == 0
        && !item.is_seed
        && matches!(item.kind, trawl_config::UriKind::Page)
        && item.class.as_ref().is_none_or(|c| c.api_url.is_none())
}

/// A URI the candidate chain refused, worth a crawl.log line: its annotation names the rule.
#[derive(Debug)]
pub(crate) struct Cut {
    pub(crate) uri: CrawlUri,
    pub(crate) status: i32,
}
