//! REJECT everything: the usual first rule of a scope.

use super::{DecideRule, Decision};
use crate::CrawlUri;

/// Answers REJECT for every URI, so that later rules accept only what they name.
#[derive(Debug, Clone, Copy)]
pub struct RejectAll;

impl DecideRule for RejectAll {
    fn name(&self) -> &'static str {
        "RejectAll"
    }

    fn decide(&self, _uri: &CrawlUri) -> Decision {
        Decision::Reject
    }
}
