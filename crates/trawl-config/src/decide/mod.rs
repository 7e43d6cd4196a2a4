//! Decide rules: each answers ACCEPT, REJECT or PASS for a URI; a sequence's last non-PASS answer wins.
//!
//! A rule is a condition ([`DecideRule::matches`]) and the answer it gives when the condition holds (its
//! default, or the `decision` its TOML entry sets); otherwise it answers PASS. Each rule lives in its own file,
//! named for what it tests, and says its default. A [`DecideSequence`] runs its rules in order and returns a
//! [`Verdict`], or with [`DecideSequence::decide_traced`] a [`Traced`] verdict holding every rule's answer.
//!
//! Rules that need fetch results read them from [`FetchFacts`] in the [`DecideInput`]; before the fetch they
//! are unknown and such rules answer PASS.

mod accept;
mod content_length;
mod content_type_matches_regex;
mod fetch_status_matches;
mod has_via;
mod hop_crosses_registered_domain;
mod hops_path_matches_regex;
mod ip_address_set;
pub mod login_guard;
mod matches_list_regex;
mod matches_regex;
mod on_domains;
mod on_hosts;
mod pathological_path;
mod predicate;
mod prerequisite;
mod reject_all;
mod scheme;
mod seed_accept;
mod sequence;
mod sitemap_lastmod;
mod surt_prefixed;
mod too_many_hops;
mod too_many_path_segments;
mod transclusion;
mod url_class_kind;

pub use self::{
    accept::AcceptAll,
    content_length::ContentLength,
    content_type_matches_regex::ContentTypeMatchesRegex,
    fetch_status_matches::{FetchStatusMatches, StatusPattern},
    has_via::HasVia,
    hop_crosses_registered_domain::HopCrossesRegisteredDomain,
    hops_path_matches_regex::HopsPathMatchesRegex,
    ip_address_set::IpAddressSet,
    login_guard::{LoginGuard, LoginGuardRule},
    matches_list_regex::MatchesListRegex,
    matches_regex::MatchesRegex,
    on_domains::OnDomains,
    on_hosts::OnHosts,
    pathological_path::PathologicalPath,
    predicate::{All, Any, Not},
    prerequisite::PrerequisiteAccept,
    reject_all::RejectAll,
    scheme::SchemeNotInSet,
    seed_accept::SeedAccept,
    sequence::{DecideSequence, Traced, Verdict},
    sitemap_lastmod::SitemapLastmod,
    surt_prefixed::SurtPrefixed,
    too_many_hops::TooManyHops,
    too_many_path_segments::TooManyPathSegments,
    transclusion::Transclusion,
    url_class_kind::UrlClassKind,
};

use std::{fmt, net::IpAddr};

use serde::{Deserialize, Serialize};

use crate::CrawlUri;

/// A rule's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The URI is wanted.
    Accept,
    /// The URI is not wanted.
    Reject,
    /// This rule has no opinion.
    Pass,
}

impl Decision {
    /// The default answer of a rule with a `not_` form: ACCEPT for the rule, REJECT for its negation.
    pub fn for_negated(negate: bool) -> Decision {
        if negate {
            Decision::Reject
        } else {
            Decision::Accept
        }
    }

    /// `accept`, `reject` or `pass`, as written in traces and TOML.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Accept => "accept",
            Decision::Reject => "reject",
            Decision::Pass => "pass",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a fetch has told about a URI so far; each field is `None` until known.
///
/// Fill it in as the fetch goes: `ip` after DNS (before fetch), `status`, `mime` and `length` (from
/// `Content-Length`) after the response head, `length` again with the real body size before writing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchFacts {
    /// The address connected to.
    pub ip: Option<IpAddr>,
    /// The HTTP status (or a negative trawl status).
    pub status: Option<i32>,
    /// The response's media type, e.g. `text/html; charset=utf-8`.
    pub mime: Option<String>,
    /// The body's length in bytes.
    pub length: Option<u64>,
}

/// What a rule looks at: the URI, and what the fetch has told so far.
#[derive(Debug, Clone, Copy)]
pub struct DecideInput<'a> {
    /// The URI.
    pub uri: &'a CrawlUri,
    /// Fetch results; `None` before the fetch.
    pub fetch: Option<&'a FetchFacts>,
}

impl<'a> DecideInput<'a> {
    /// The input for `uri` before it is fetched.
    pub fn new(uri: &'a CrawlUri) -> DecideInput<'a> {
        DecideInput { uri, fetch: None }
    }

    /// The input for `uri` with what its fetch told.
    pub fn fetched(uri: &'a CrawlUri, fetch: &'a FetchFacts) -> DecideInput<'a> {
        DecideInput {
            uri,
            fetch: Some(fetch),
        }
    }
}

/// One rule of a decide sequence: a condition, and the answer it gives when the condition holds.
pub trait DecideRule: Send + Sync + fmt::Debug {
    /// The rule's name, as written in TOML (`rule = "too_many_hops"`) and in decision traces.
    fn name(&self) -> &str;
    /// The answer when [`matches`](DecideRule::matches) holds, unless the config sets another.
    fn default_decision(&self) -> Decision;
    /// Whether the rule's condition holds for `input`: false while what it reads is unknown.
    fn matches(&self, input: &DecideInput<'_>) -> bool;
    /// Whether what the rule reads is known for `input`: a rule of fetch results (status, content type,
    /// length, a host's address) knows nothing before the fetch, so a `not` of it is unknown too, not true
    /// (xt15b F4: `not` of a content-type rule in `before_fetch` refused every URL).
    fn knows(&self, input: &DecideInput<'_>) -> bool {
        let _ = input;
        true
    }
    /// The crawl.log status of a URI this rule rejects: out of scope (-5000) unless the rule names a more
    /// precise cause.
    fn rejection_status(&self) -> i32 {
        crate::status::OUT_OF_SCOPE
    }
    /// The rule's answer with its default decision.
    fn decide(&self, input: &DecideInput<'_>) -> Decision {
        if self.matches(input) {
            self.default_decision()
        } else {
            Decision::Pass
        }
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use url::Url;

    use super::{DecideInput, DecideRule, Decision};
    use crate::CrawlUri;

    /// A URI at `url` reached by `hop_path` from a seed (via `http://via.example/` unless a seed).
    pub(crate) fn uri(url: &str, hop_path: &str) -> CrawlUri {
        let url = Url::parse(url).unwrap();
        let mut u = CrawlUri::seed(url.clone(), url.to_string());
        u.hop_path = hop_path.to_string();
        u.is_seed = hop_path.is_empty();
        if !u.is_seed {
            u.via = Some(Url::parse("http://via.example/").unwrap());
        }
        u
    }

    /// `rule`'s answer for `url` reached by `hop_path`, before fetching.
    pub(crate) fn decide(rule: &dyn DecideRule, url: &str, hop_path: &str) -> Decision {
        rule.decide(&DecideInput::new(&uri(url, hop_path)))
    }
}
