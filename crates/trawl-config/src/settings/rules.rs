//! `[[scope.rules]]` and `[decide]` entries: one TOML table per decide rule, named by its `rule` key.

use std::{path::PathBuf, sync::Arc};

use regex::Regex;
use serde::{Deserialize, Serialize};
use trawl_url::{SurtPrefix, Url, UrlClasses, class::UrlKind};

use crate::decide::{self, DecideRule, DecideSequence, Decision, StatusPattern};

/// One decide rule as written in TOML: `{ rule = "too_many_hops", max_hops = 20 }`. Every entry may also set
/// `decision = "accept" | "reject"`, the answer when its condition holds (default: the rule's own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum RuleSpec {
    /// Every URI (default ACCEPT).
    Accept {
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// Every URI (default REJECT).
    Reject {
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// URIs under SURT prefixes (default ACCEPT).
    SurtPrefixed(SurtPrefixedSpec),
    /// URIs outside every SURT prefix (default REJECT).
    NotSurtPrefixed(SurtPrefixedSpec),
    /// URIs on these hosts (default ACCEPT).
    OnHosts(HostsSpec),
    /// URIs on other hosts (default REJECT).
    NotOnHosts(HostsSpec),
    /// URIs on these domains or below (default ACCEPT).
    OnDomains(DomainsSpec),
    /// URIs elsewhere (default REJECT).
    NotOnDomains(DomainsSpec),
    /// URIs more than `max_hops` from a seed (default REJECT).
    TooManyHops {
        /// The most hops. Default: `scope.max_hops` (20).
        max_hops: Option<usize>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// Embeds and redirects of in-scope pages (default ACCEPT).
    Transclusion {
        /// The most trailing non-link hops. Default: `scope.max_trans_hops` (2).
        max_trans_hops: Option<usize>,
        /// The most speculative hops among them. Default: `scope.max_speculative_hops` (1).
        max_speculative_hops: Option<usize>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// Prerequisites (last hop `P`) (default ACCEPT).
    PrerequisiteAccept {
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// Seeds (default ACCEPT).
    SeedAccept {
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// URIs found on another document (default ACCEPT).
    HasVia {
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// URLs the regex matches (default ACCEPT).
    MatchesRegex(RegexSpec),
    /// URLs the regex does not match (default REJECT).
    NotMatchesRegex(RegexSpec),
    /// URLs matching any (or all) of the regexes (default ACCEPT).
    MatchesListRegex(ListRegexSpec),
    /// URLs not matching any (or all) of the regexes (default REJECT).
    NotMatchesListRegex(ListRegexSpec),
    /// Hop paths the regex matches (default ACCEPT).
    HopsPathMatchesRegex(RegexSpec),
    /// Paths with too many segments (default REJECT).
    TooManyPathSegments {
        /// The most segments. Default: `scope.max_path_depth` (20).
        max_segments: Option<usize>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// Paths repeating a segment (default REJECT).
    PathologicalPath {
        /// The most repetitions in a row. Default: `scope.max_path_repeats` (2).
        max_repeats: Option<usize>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// Schemes outside the set (default REJECT).
    SchemeNotInSet {
        /// The schemes allowed. Default: http, https.
        #[serde(default = "web_schemes")]
        schemes: Vec<String>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// A hop to another registered domain (default REJECT).
    HopCrossesRegisteredDomain {
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// Addresses in a set (default REJECT).
    IpAddressSet {
        /// CIDR ranges or single addresses, as written: each is read when the rule is built, so every one
        /// that is neither is said at its own key (xt47a F1: only the first was, at the table).
        addresses: Vec<String>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// Media types the regex matches (default REJECT; needs the response head).
    ContentTypeMatchesRegex(RegexSpec),
    /// Media types the regex does not match (default REJECT; needs the response head).
    NotContentTypeMatchesRegex(RegexSpec),
    /// Fetch statuses (default REJECT; needs the response head).
    FetchStatusMatches {
        /// Statuses: `404` or `"5xx"`. Default: `[404, "5xx"]` (xt12a F18: the docs gave it, the rule
        /// wanted it written).
        #[serde(default = "missing_and_failing")]
        statuses: Vec<StatusPattern>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// Bodies longer or shorter than bounds (default REJECT; needs the length).
    ContentLength {
        /// Match bodies longer than this many bytes.
        longer_than: Option<u64>,
        /// Match bodies shorter than this many bytes.
        shorter_than: Option<u64>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// URLs a URL class recognises as one of `kinds` (default ACCEPT).
    UrlClassKind {
        /// `file`, `post`, `gallery`, `watchable`.
        kinds: Vec<UrlKind>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// URIs whose sitemap `<lastmod>` is before `before` and/or after `after` (default REJECT).
    SitemapLastmod {
        /// Match dates earlier than this W3C datetime (`2026-06-01`, `2026-06-01T12:00:00Z`).
        before: Option<String>,
        /// Match dates later than this W3C datetime.
        after: Option<String>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// Every inner condition holds; `decision` is required, but for an inner rule of `all`/`any`/`not`, whose decision is
    /// ignored.
    All {
        /// The inner rules (their decisions are ignored).
        of: Vec<RuleSpec>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// Some inner condition holds; `decision` is required, but for an inner rule of `all`/`any`/`not`, whose decision is
    /// ignored.
    Any {
        /// The inner rules (their decisions are ignored).
        of: Vec<RuleSpec>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
    /// The inner condition does not hold; `decision` is required, but for an inner rule of `all`/`any`/`not`, whose decision is
    /// ignored.
    Not {
        /// The inner rule (its decision is ignored).
        of: Box<RuleSpec>,
        /// The answer when the condition holds.
        decision: Option<Decision>,
    },
}

/// `surt_prefixed` / `not_surt_prefixed` settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurtPrefixedSpec {
    /// Prefixes in Heritrix form, e.g. `http://(org,example,`. Default: none.
    #[serde(default)]
    pub prefixes: Vec<String>,
    /// Files of prefixes (or URLs, taken as seeds are), one per line, `#` comments. Default: none.
    #[serde(default)]
    pub files: Vec<PathBuf>,
    /// Whether every seed's prefix, and every prefix of `scope.surt_prefixes`, is included. Default: true.
    #[serde(default = "yes")]
    pub seeds_as_prefixes: bool,
    /// Whether a URI whose via is under a prefix matches too. Default: false.
    #[serde(default)]
    pub also_check_via: bool,
    /// The answer when the condition holds.
    pub decision: Option<Decision>,
}

/// `on_hosts` / `not_on_hosts` settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostsSpec {
    /// Host names.
    pub hosts: Vec<String>,
    /// The answer when the condition holds.
    pub decision: Option<Decision>,
}

/// `on_domains` / `not_on_domains` settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainsSpec {
    /// Domains.
    pub domains: Vec<String>,
    /// The answer when the condition holds.
    pub decision: Option<Decision>,
}

/// Settings of the rules with one regex.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegexSpec {
    /// The pattern (Rust `regex` syntax; searched, anchor with `^…$`).
    pub regex: String,
    /// The answer when the condition holds.
    pub decision: Option<Decision>,
}

/// `matches_list_regex` settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListRegexSpec {
    /// The patterns.
    pub regexes: Vec<String>,
    /// `any` (default) or `all`.
    #[serde(default)]
    pub list_logic: ListLogic,
    /// The answer when the condition holds.
    pub decision: Option<Decision>,
}

/// How a list of regexes combines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ListLogic {
    /// One match is enough. Default.
    #[default]
    Any,
    /// Every pattern must match.
    All,
}

fn yes() -> bool {
    true
}
fn web_schemes() -> Vec<String> {
    vec!["http".into(), "https".into()]
}

/// The statuses `fetch_status_matches` matches when none are given: not found, and server errors.
fn missing_and_failing() -> Vec<StatusPattern> {
    vec![StatusPattern::Exact(404), StatusPattern::Class(5)]
}

/// What building a rule needs from outside its entry.
#[derive(Debug, Clone)]
pub struct BuildContext<'a> {
    /// The crawl's seeds.
    pub seeds: &'a [Url],
    /// The folder relative paths are read from.
    pub base: &'a std::path::Path,
    /// The crawl's URL classes.
    pub classes: Arc<UrlClasses>,
    /// The `[scope]` keys: the bounds a rule takes when its entry gives none (`max_hops`, …), and the prefixes
    /// a `surt_prefixed` rule adds to the seeds' (`surt_prefixes`), so that the default sequence written out
    /// behaves as the default does.
    pub scope: &'a super::ScopeConfig,
}

/// A problem building one entry: the key under the entry (empty for the entry itself) and what is wrong.
pub type BuildProblem = (String, String);

fn regex(key: &str, pattern: &str, problems: &mut Vec<BuildProblem>) -> Regex {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .unwrap_or_else(|e| {
            problems.push((
                key.to_string(),
                format!("{pattern:?} is not a valid regex: {e}"),
            ));
            Regex::new("$^").expect("never-matching regex")
        })
}

fn prefixes(
    spec: &SurtPrefixedSpec,
    ctx: &BuildContext<'_>,
    problems: &mut Vec<BuildProblem>,
) -> Vec<SurtPrefix> {
    let mut out: Vec<SurtPrefix> = Vec::new();
    if spec.seeds_as_prefixes {
        out.extend(ctx.seeds.iter().map(SurtPrefix::from_seed));
        out.extend(
            ctx.scope
                .surt_prefixes
                .iter()
                .filter_map(|p| super::seed_list::prefix_value(p).ok()),
        );
    }
    for (i, p) in spec.prefixes.iter().enumerate() {
        match super::seed_list::prefix_value(p) {
            Ok(prefix) => out.push(prefix),
            Err(message) => problems.push((format!("prefixes[{i}]"), message.to_string())),
        }
    }
    for (i, file) in spec.files.iter().enumerate() {
        let path = ctx.base.join(file);
        match super::named_file::read_named_to_string(&path) {
            Ok(text) => {
                // Heritrix's `surtsSource` form: the first word of a line; `#` comments; a `+` marks a
                // literal SURT prefix; a URL or host gives its prefix (a whole domain without a slash).
                let words = text
                    .lines()
                    .enumerate()
                    .filter_map(|(n, l)| Some((n + 1, l.split_whitespace().next()?)));
                for (n, line) in words {
                    if line.starts_with('#') {
                        continue;
                    }
                    if let Ok(prefix) =
                        super::seed_list::directive_prefix(line.trim_start_matches('+'))
                    {
                        out.push(prefix);
                    } else {
                        problems.push((
                            format!("files[{i}]"),
                            format!(
                                "{}, line {n}: {line:?} is neither a SURT prefix nor a URL; write a host \
                                 (example.org), a URL (http://example.org/dir/) or a SURT prefix \
                                 (http://(org,example,)",
                                path.display()
                            ),
                        ));
                    }
                }
            }
            Err(e) => problems.push((
                format!("files[{i}]"),
                format!("cannot read {}: {e}", path.display()),
            )),
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The entries of `on_hosts` (`hosts`) or `on_domains` (`domains`) as URLs write hosts; an entry that could
/// never match is a problem at its key (`hosts[1]`).
fn host_entries(
    key: &str,
    entries: &[String],
    domain: bool,
    problems: &mut Vec<BuildProblem>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        match super::host_name::host_entry(e, domain) {
            Ok(host) => out.push(host),
            Err(message) => problems.push((format!("{key}[{i}]"), message.to_string())),
        }
    }
    out
}

impl RuleSpec {
    /// The `decision` the entry sets, if any.
    pub fn decision(&self) -> Option<Decision> {
        use RuleSpec::*;
        match self {
            Accept { decision }
            | Reject { decision }
            | TooManyHops { decision, .. }
            | Transclusion { decision, .. }
            | PrerequisiteAccept { decision }
            | SeedAccept { decision }
            | HasVia { decision }
            | TooManyPathSegments { decision, .. }
            | PathologicalPath { decision, .. }
            | SchemeNotInSet { decision, .. }
            | HopCrossesRegisteredDomain { decision }
            | IpAddressSet { decision, .. }
            | FetchStatusMatches { decision, .. }
            | ContentLength { decision, .. }
            | UrlClassKind { decision, .. }
            | SitemapLastmod { decision, .. }
            | All { decision, .. }
            | Any { decision, .. }
            | Not { decision, .. } => *decision,
            SurtPrefixed(s) | NotSurtPrefixed(s) => s.decision,
            OnHosts(s) | NotOnHosts(s) => s.decision,
            OnDomains(s) | NotOnDomains(s) => s.decision,
            MatchesRegex(s)
            | NotMatchesRegex(s)
            | HopsPathMatchesRegex(s)
            | ContentTypeMatchesRegex(s)
            | NotContentTypeMatchesRegex(s) => s.decision,
            MatchesListRegex(s) | NotMatchesListRegex(s) => s.decision,
        }
    }

    /// The rule, compiled; problems (bad regexes, unreadable files, missing bounds) are added to `problems`
    /// with the key they concern, and the rule is still returned so that every problem is found at once.
    pub fn build(
        &self,
        ctx: &BuildContext<'_>,
        problems: &mut Vec<BuildProblem>,
    ) -> Box<dyn DecideRule> {
        use RuleSpec as S;
        match self {
            S::Accept { .. } => Box::new(decide::AcceptAll),
            S::Reject { .. } => Box::new(decide::RejectAll),
            S::SurtPrefixed(s) | S::NotSurtPrefixed(s) => Box::new(decide::SurtPrefixed {
                prefixes: prefixes(s, ctx, problems),
                also_check_via: s.also_check_via,
                negate: matches!(self, S::NotSurtPrefixed(_)),
            }),
            S::OnHosts(s) | S::NotOnHosts(s) => Box::new(decide::OnHosts {
                hosts: host_entries("hosts", &s.hosts, false, problems),
                negate: matches!(self, S::NotOnHosts(_)),
            }),
            S::OnDomains(s) | S::NotOnDomains(s) => Box::new(decide::OnDomains {
                domains: host_entries("domains", &s.domains, true, problems),
                negate: matches!(self, S::NotOnDomains(_)),
            }),
            S::TooManyHops { max_hops, .. } => Box::new(decide::TooManyHops {
                max_hops: max_hops.unwrap_or(ctx.scope.max_hops),
            }),
            S::Transclusion {
                max_trans_hops,
                max_speculative_hops,
                ..
            } => Box::new(decide::Transclusion {
                max_trans_hops: max_trans_hops.unwrap_or(ctx.scope.max_trans_hops),
                max_speculative_hops: max_speculative_hops
                    .unwrap_or(ctx.scope.max_speculative_hops),
            }),
            S::PrerequisiteAccept { .. } => Box::new(decide::PrerequisiteAccept),
            S::SeedAccept { .. } => Box::new(decide::SeedAccept),
            S::HasVia { .. } => Box::new(decide::HasVia),
            S::MatchesRegex(s) | S::NotMatchesRegex(s) => Box::new(decide::MatchesRegex {
                regex: regex("regex", &s.regex, problems),
                negate: matches!(self, S::NotMatchesRegex(_)),
            }),
            S::MatchesListRegex(s) | S::NotMatchesListRegex(s) => {
                Box::new(decide::MatchesListRegex {
                    regexes: s
                        .regexes
                        .iter()
                        .enumerate()
                        .map(|(i, r)| regex(&format!("regexes[{i}]"), r, problems))
                        .collect(),
                    all: s.list_logic == ListLogic::All,
                    negate: matches!(self, S::NotMatchesListRegex(_)),
                })
            }
            S::HopsPathMatchesRegex(s) => Box::new(decide::HopsPathMatchesRegex {
                regex: regex("regex", &s.regex, problems),
            }),
            S::TooManyPathSegments { max_segments, .. } => Box::new(decide::TooManyPathSegments {
                max_segments: max_segments.unwrap_or(ctx.scope.max_path_depth),
            }),
            S::PathologicalPath { max_repeats, .. } => Box::new(decide::PathologicalPath {
                max_repeats: max_repeats.unwrap_or(ctx.scope.max_path_repeats),
            }),
            S::SchemeNotInSet { schemes, .. } => Box::new(decide::SchemeNotInSet {
                schemes: schemes.clone(),
            }),
            S::HopCrossesRegisteredDomain { .. } => Box::new(decide::HopCrossesRegisteredDomain),
            S::IpAddressSet { addresses, .. } => Box::new(decide::IpAddressSet {
                addresses: addresses
                    .iter()
                    .enumerate()
                    .filter_map(|(i, text)| {
                        let net = super::addresses::parse(text);
                        if net.is_none() {
                            problems.push((
                                format!("addresses[{i}]"),
                                super::addresses::not_an_address(text),
                            ));
                        }
                        net
                    })
                    .collect(),
            }),
            S::ContentTypeMatchesRegex(s) | S::NotContentTypeMatchesRegex(s) => {
                Box::new(decide::ContentTypeMatchesRegex {
                    regex: regex("regex", &s.regex, problems),
                    negate: matches!(self, S::NotContentTypeMatchesRegex(_)),
                })
            }
            S::FetchStatusMatches { statuses, .. } => Box::new(decide::FetchStatusMatches {
                statuses: statuses.clone(),
            }),
            S::ContentLength {
                longer_than,
                shorter_than,
                ..
            } => {
                if longer_than.is_none() && shorter_than.is_none() {
                    problems.push((
                        String::new(),
                        "content_length needs `longer_than` or `shorter_than` (or both)".into(),
                    ));
                }
                Box::new(decide::ContentLength {
                    longer_than: *longer_than,
                    shorter_than: *shorter_than,
                })
            }
            S::UrlClassKind { kinds, .. } => Box::new(decide::UrlClassKind {
                classes: ctx.classes.clone(),
                kinds: kinds.clone(),
            }),
            S::SitemapLastmod { before, after, .. } => {
                let mut date = |key: &str, text: &Option<String>| {
                    let text = text.as_deref()?;
                    let t = trawl_extract::sitemap::w3c_datetime(text);
                    if t.is_none() {
                        problems.push((
                            key.to_string(),
                            format!("{text:?} is not a W3C date (write 2026-06-01 or 2026-06-01T12:00:00Z)"),
                        ));
                    }
                    t
                };
                let rule = decide::SitemapLastmod {
                    before: date("before", before),
                    after: date("after", after),
                };
                if before.is_none() && after.is_none() {
                    problems.push((
                        String::new(),
                        "sitemap_lastmod needs `before` or `after` (or both)".into(),
                    ));
                }
                Box::new(rule)
            }
            S::All { of, .. } | S::Any { of, .. } => {
                let rules = of
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let mut inner = Vec::new();
                        let rule = r.build(ctx, &mut inner);
                        problems.extend(
                            inner
                                .into_iter()
                                .map(|(k, m)| (join(&format!("of[{i}]"), &k), m)),
                        );
                        rule
                    })
                    .collect();
                if matches!(self, S::All { .. }) {
                    Box::new(decide::All { rules })
                } else {
                    Box::new(decide::Any { rules })
                }
            }
            S::Not { of, .. } => {
                let mut inner = Vec::new();
                let rule = of.build(ctx, &mut inner);
                problems.extend(inner.into_iter().map(|(k, m)| (join("of", &k), m)));
                Box::new(decide::Not { rule })
            }
        }
    }
}

/// `prefix.key`, or `prefix` when `key` is empty.
pub(crate) fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else if key.is_empty() {
        prefix.to_string()
    } else if key.starts_with('[') {
        format!("{prefix}{key}")
    } else {
        format!("{prefix}.{key}")
    }
}

/// Appends `specs` to `seq`; problems are named `key[i].…`.
pub fn build_into(
    seq: &mut DecideSequence,
    specs: &[RuleSpec],
    key: &str,
    ctx: &BuildContext<'_>,
    problems: &mut Vec<BuildProblem>,
) {
    for (i, spec) in specs.iter().enumerate() {
        let mut inner = Vec::new();
        let rule = spec.build(ctx, &mut inner);
        let at = format!("{key}[{i}]");
        problems.extend(inner.into_iter().map(|(k, m)| (join(&at, &k), m)));
        let combined = match spec {
            RuleSpec::All { decision: None, .. } => Some("all"),
            RuleSpec::Any { decision: None, .. } => Some("any"),
            RuleSpec::Not { decision: None, .. } => Some("not"),
            _ => None,
        };
        if let Some(name) = combined {
            problems.push((
                format!("{at}.decision"),
                format!(
                    "`{name}` needs a `decision` (\"accept\" or \"reject\"): the answer when its condition \
                     holds (only the rules inside an `of` go without one)"
                ),
            ));
        }
        seq.push(rule, spec.decision(), None);
    }
}

/// The `[decide]` section: sequences that gate later points of a URI's way. Each answers ACCEPT when all its
/// rules pass, so an empty sequence lets everything through.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DecideConfig {
    /// Checked when a URI leaves the frontier, before its prerequisites and fetch (its host's address not yet
    /// known: `ip_address_set` sees only IP literals here). A REJECT means not fetched. Default: none.
    pub before_fetch: Vec<RuleSpec>,
    /// Checked once the response head is in (status, type, declared length). A REJECT stops the download.
    /// Default: none.
    pub after_headers: Vec<RuleSpec>,
    /// Checked before the WARC records are written (real length known). A REJECT means not archived (links
    /// are still followed). Default: none.
    pub before_write: Vec<RuleSpec>,
}
/// Where a `+` / `-` line of a seed list goes: the prefixes of every `surt_prefixed` rule of `rules` with that
/// decision (ACCEPT by default), as written. Returns how many rules took it.
pub fn give_to_rules(rules: &mut [RuleSpec], prefix: &str, decision: Decision) -> usize {
    let mut taken = 0;
    for rule in rules {
        if let RuleSpec::SurtPrefixed(spec) = rule
            && spec.decision.unwrap_or(Decision::Accept) == decision
        {
            spec.prefixes.push(prefix.to_owned());
            taken += 1;
        }
    }
    taken
}
