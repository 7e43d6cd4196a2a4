//! The default profile's scope, as a decide sequence that reads as prose.

use trawl_url::{SurtPrefix, Url};

use crate::{
    CrawlUri,
    config::ScopeConfig,
    decide::{
        DecideSequence, PathologicalPath, PrerequisiteAccept, RejectAll, SchemeNotInSet,
        SurtPrefixed, TooManyHops, TooManyPathSegments, Transclusion, Verdict,
    },
};

/// Which URIs the crawl wants.
#[derive(Debug)]
pub struct Scope {
    rules: DecideSequence,
}

impl Scope {
    /// The default scope for `seeds`: begin by rejecting everything; accept what lies under a seed's SURT prefix
    /// (or a configured one); reject what is too many hops away; accept embeds and redirects of in-scope pages
    /// a few hops deep; accept prerequisites; reject unfetchable schemes, repeating paths and very deep paths.
    pub fn default_for(seeds: &[Url], config: &ScopeConfig) -> Scope {
        let mut prefixes: Vec<SurtPrefix> = seeds.iter().map(SurtPrefix::from_seed).collect();
        prefixes.extend(
            config
                .surt_prefixes
                .iter()
                .map(|p| SurtPrefix::new(p.clone())),
        );
        prefixes.sort();
        prefixes.dedup();
        Scope {
            rules: DecideSequence::new(vec![
                Box::new(RejectAll),
                Box::new(SurtPrefixed::new(prefixes)),
                Box::new(TooManyHops {
                    max_hops: config.max_hops,
                }),
                Box::new(Transclusion {
                    max_trans_hops: config.max_trans_hops,
                    max_speculative_hops: config.max_speculative_hops,
                }),
                Box::new(PrerequisiteAccept),
                Box::new(SchemeNotInSet::default()),
                Box::new(PathologicalPath {
                    max_repeats: config.max_path_repeats,
                }),
                Box::new(TooManyPathSegments {
                    max_segments: config.max_path_depth,
                }),
            ]),
        }
    }

    /// The scope's verdict on `uri`, with the deciding rule.
    pub fn decide(&self, uri: &CrawlUri) -> Verdict<'_> {
        self.rules.decide(uri)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{Decision, test_util::uri};

    #[test]
    fn default_scope() {
        let seed = Url::parse("http://127.0.0.1:4000/").unwrap();
        let scope = Scope::default_for(&[seed], &ScopeConfig::default());
        let rows = [
            (
                "http://127.0.0.1:4000/a",
                "L",
                Decision::Accept,
                "surt_prefixed",
            ),
            ("http://127.0.0.2:4000/a", "L", Decision::Reject, "reject"),
            (
                "http://127.0.0.2:4000/a.png",
                "LE",
                Decision::Accept,
                "transclusion",
            ),
            (
                "http://127.0.0.2:4000/robots.txt",
                "LRP",
                Decision::Accept,
                "prerequisite_accept",
            ),
            (
                "http://127.0.0.1:4000/deep",
                "LLLLLLLLLLLLLLLLLLLLL",
                Decision::Reject,
                "too_many_hops",
            ),
            (
                "http://127.0.0.1:4000/x/x/x",
                "L",
                Decision::Reject,
                "pathological_path",
            ),
        ];
        for (u, path, want, rule) in rows {
            let v = scope.decide(&uri(u, path));
            assert_eq!((v.decision, v.rule), (want, rule), "{u} {path}");
        }
    }
}
