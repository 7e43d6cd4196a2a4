//! Decide rules: each answers ACCEPT, REJECT or PASS for a candidate URI; a sequence's last non-PASS answer wins.
//!
//! Each rule lives in its own file, named for what it tests, and says its default.

mod pathological_path;
mod prerequisite;
mod reject_all;
mod scheme;
mod surt_prefixed;
mod too_many_hops;
mod too_many_path_segments;
mod transclusion;

pub use self::{
    pathological_path::PathologicalPath, prerequisite::PrerequisiteAccept, reject_all::RejectAll,
    scheme::SchemeNotInSet, surt_prefixed::SurtPrefixed, too_many_hops::TooManyHops,
    too_many_path_segments::TooManyPathSegments, transclusion::Transclusion,
};

use crate::CrawlUri;

/// A rule's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The URI is wanted.
    Accept,
    /// The URI is not wanted.
    Reject,
    /// This rule has no opinion.
    Pass,
}

/// One rule of a decide sequence.
pub trait DecideRule: Send + Sync + std::fmt::Debug {
    /// The rule's name, as written in decision traces.
    fn name(&self) -> &'static str;
    /// The rule's answer for `uri`.
    fn decide(&self, uri: &CrawlUri) -> Decision;
}

/// The outcome of a sequence, with the rule that decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// The last non-PASS answer (REJECT if every rule passed).
    pub decision: Decision,
    /// The deciding rule's position in the sequence, if any rule answered.
    pub rule_index: Option<usize>,
    /// The deciding rule's name, or `"default"`.
    pub rule: &'static str,
}

/// An ordered list of rules; the last non-PASS answer wins.
#[derive(Debug, Default)]
pub struct DecideSequence {
    rules: Vec<Box<dyn DecideRule>>,
}

impl DecideSequence {
    /// A sequence of `rules`, applied in order.
    pub fn new(rules: Vec<Box<dyn DecideRule>>) -> DecideSequence {
        DecideSequence { rules }
    }

    /// Runs every rule and returns the last non-PASS answer with its rule.
    pub fn decide(&self, uri: &CrawlUri) -> Verdict {
        let mut verdict = Verdict {
            decision: Decision::Reject,
            rule_index: None,
            rule: "default",
        };
        for (i, rule) in self.rules.iter().enumerate() {
            let d = rule.decide(uri);
            if d != Decision::Pass {
                verdict = Verdict {
                    decision: d,
                    rule_index: Some(i),
                    rule: rule.name(),
                };
            }
        }
        verdict
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use url::Url;

    use crate::CrawlUri;

    /// A URI at `url` reached by `hop_path` from a seed.
    pub(crate) fn uri(url: &str, hop_path: &str) -> CrawlUri {
        let url = Url::parse(url).unwrap();
        let mut u = CrawlUri::seed(url.clone(), url.to_string());
        u.hop_path = hop_path.to_string();
        u.is_seed = hop_path.is_empty();
        u
    }
}

#[cfg(test)]
mod tests {
    use super::{test_util::uri, *};

    #[test]
    fn last_non_pass_wins_and_is_traced() {
        let seq = DecideSequence::new(vec![
            Box::new(RejectAll),
            Box::new(TooManyHops { max_hops: 1 }),
        ]);
        let v = seq.decide(&uri("http://a.org/", "LL"));
        assert_eq!(
            (v.decision, v.rule_index, v.rule),
            (Decision::Reject, Some(1), "TooManyHops")
        );
        let v = seq.decide(&uri("http://a.org/", "L"));
        assert_eq!((v.decision, v.rule), (Decision::Reject, "RejectAll"));
    }
}
