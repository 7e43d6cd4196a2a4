//! Binary documents (PDF, office): what a parser found in one, read within a size cap and with a panic in the
//! parser caught, so a hostile file never takes a worker down.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::{Limits, Outlink, OutlinkSet};

/// What a binary document gave, with `P` the kind of problem its reader reports.
#[derive(Debug)]
pub struct DocumentLinks<P> {
    /// Its links, as `L` hops (contexts in the reader's module documentation).
    pub outlinks: Vec<Outlink>,
    /// Whether `scope.max_outlinks` cut the list.
    pub truncated: bool,
    /// What stopped it reading everything, if anything.
    pub problem: Option<P>,
}

impl<P> Default for DocumentLinks<P> {
    fn default() -> Self {
        DocumentLinks {
            outlinks: Vec::new(),
            truncated: false,
            problem: None,
        }
    }
}

/// The problems [`read_guarded`] reports itself.
pub(crate) trait GuardProblem {
    /// The document of `bytes` is over the cap `max`; it was not read.
    fn too_large(bytes: u64, max: u64) -> Self;
    /// The parser panicked on it.
    fn parser_panic() -> Self;
}

/// Runs `read` on a fresh set of at most `limits.max_outlinks` links, unless `body` is over `max_bytes`; a panic
/// in it is caught and reported as the parser's failure (with the links found until then).
pub(crate) fn read_guarded<P: GuardProblem>(
    body: &[u8],
    max_bytes: u64,
    limits: &Limits,
    read: impl FnOnce(&mut OutlinkSet) -> Option<P>,
) -> DocumentLinks<P> {
    if body.len() as u64 > max_bytes {
        return DocumentLinks {
            problem: Some(P::too_large(body.len() as u64, max_bytes)),
            ..DocumentLinks::default()
        };
    }
    let mut set = OutlinkSet::new(limits);
    let problem = catch_unwind(AssertUnwindSafe(|| read(&mut set)))
        .unwrap_or_else(|_| Some(P::parser_panic()));
    let (outlinks, truncated) = set.into_parts();
    DocumentLinks {
        outlinks,
        truncated,
        problem,
    }
}
