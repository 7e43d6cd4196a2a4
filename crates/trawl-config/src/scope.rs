//! The scope (which URIs the crawl wants) and the gates at later points, built from the config.

use std::sync::Arc;

use trawl_url::{SurtPrefix, Url};

use crate::{
    CrawlConfig, CrawlUri,
    decide::{
        DecideInput, DecideSequence, LoginGuard, LoginGuardRule, PathologicalPath,
        PrerequisiteAccept, RejectAll, SchemeNotInSet, SurtPrefixed, TooManyHops,
        TooManyPathSegments, Traced, Transclusion, Verdict,
    },
    filters::{TextFilters, UrlFilter},
    settings::{
        ConfigError, FilterMode, ScopeConfig, Stage,
        rules::{BuildContext, build_into},
    },
};

/// Which URIs the crawl wants.
#[derive(Debug)]
pub struct Scope {
    rules: DecideSequence,
    guard: Option<Arc<LoginGuard>>,
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
                // A value that is not read is refused by `trawl check` (`scope.surt_prefixes[i]`).
                .filter_map(|p| crate::settings::seed_list::prefix_value(p).ok()),
        );
        prefixes.sort();
        prefixes.dedup();
        Scope {
            guard: None,
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

    /// The scope of `config` for `seeds`: its `[[scope.rules]]`, or the default sequence when it lists none;
    /// then, in `crawl` mode, the enabled URL filters (`url_filter[N]`); last, when the crawl logs in
    /// anywhere, the [`login_guard`](LoginGuard), which nothing before it can overrule. Every problem is
    /// reported, named by its key.
    pub fn from_config(config: &CrawlConfig, seeds: &[Url]) -> Result<Scope, ConfigError> {
        let mut problems = Vec::new();
        let mut rules = if config.scope.rules.is_empty() {
            Scope::default_for(seeds, &config.scope).rules
        } else {
            let ctx = context(config, seeds);
            let mut seq = DecideSequence::new(Vec::new());
            build_into(
                &mut seq,
                &config.scope.rules,
                "scope.rules",
                &ctx,
                &mut problems,
            );
            seq
        };
        if config.filters.url_mode == FilterMode::Crawl {
            url_filters(config, &mut rules, &mut problems);
        }
        let guard = login_guard(config);
        if let Some(g) = &guard {
            rules.push(Box::new(LoginGuardRule(g.clone())), None, None);
        }
        if problems.is_empty() {
            Ok(Scope { rules, guard })
        } else {
            Err(ConfigError::from_pairs(Stage::Semantics, "", problems))
        }
    }

    /// The scope's verdict on `uri`, with the deciding rule.
    pub fn decide(&self, uri: &CrawlUri) -> Verdict<'_> {
        self.rules.decide(uri)
    }

    /// The scope's verdict on `uri` with every rule's answer.
    pub fn decide_traced(&self, uri: &CrawlUri) -> Traced<'_> {
        self.rules.decide_traced(&DecideInput::new(uri))
    }

    /// The scope's rules.
    pub fn sequence(&self) -> &DecideSequence {
        &self.rules
    }

    /// Its login guard, when the crawl logs in anywhere.
    pub fn login_guard(&self) -> Option<&LoginGuard> {
        self.guard.as_deref()
    }
}

/// The login guard of `config`: over the hosts of its form credentials (with their `avoid` patterns) and
/// the domains of its `cookies_file` (a browser's login); `None` when there are none. A cookies file that
/// cannot be read adds nothing here (the config check and the crawl's start name it).
pub fn login_guard(config: &CrawlConfig) -> Option<Arc<LoginGuard>> {
    let mut cookies = Vec::new();
    if config.fetch.cookies != crate::settings::CookieMode::Off
        && let Some(file) = &config.fetch.cookies_file
        && let Ok(text) = crate::settings::named_file::read_named_to_string(file)
        && let Ok(entries) = crate::cookies_file::parse(&text)
    {
        for (cookie, url) in entries {
            let entry = match cookie.domain() {
                Some(d) => (d.to_string(), true),
                None => (url.host_str().unwrap_or_default().to_string(), false),
            };
            if !cookies.contains(&entry) {
                cookies.push(entry);
            }
        }
    }
    let guard = LoginGuard::new(&config.credentials, &cookies);
    (!guard.is_empty()).then(|| Arc::new(guard))
}

fn context<'a>(config: &'a CrawlConfig, seeds: &'a [Url]) -> BuildContext<'a> {
    BuildContext {
        seeds,
        base: std::path::Path::new("."),
        classes: Arc::new(config.compile_classes().unwrap_or_default()),
        scope: &config.scope,
    }
}

/// Appends the enabled URL filters to `seq`, named `url_filter[N]`.
fn url_filters(
    config: &CrawlConfig,
    seq: &mut DecideSequence,
    problems: &mut Vec<(String, String)>,
) {
    for (i, spec) in config.filters.url.iter().enumerate() {
        match UrlFilter::from_spec(spec) {
            Ok(f) if spec.enable => seq.push(Box::new(f), None, Some(format!("url_filter[{i}]"))),
            Ok(_) => {}
            Err((k, m)) => problems.push((
                crate::settings::rules::join(&format!("filters.url[{i}]"), &k),
                m,
            )),
        }
    }
}

/// The decisions after the scope: sequences gating the fetch, the response and the write, and the text
/// filters.
///
/// Each sequence answers ACCEPT when all its rules pass. Call [`Gates::before_fetch`] when a URI leaves the
/// frontier (REJECT: not fetched, log the rule), [`Gates::after_headers`] with the status, type and declared
/// length (REJECT: stop reading, keep what was read), [`Gates::before_write`] with the real length (REJECT:
/// not archived, links still followed; in `download` mode the URL filters sit here), and
/// [`Gates::text_filters`] on the page's text and head after extraction.
#[derive(Debug)]
pub struct Gates {
    /// Checked before the fetch.
    pub before_fetch: DecideSequence,
    /// Checked after the response head.
    pub after_headers: DecideSequence,
    /// Checked before writing.
    pub before_write: DecideSequence,
    /// The text filters.
    pub text_filters: TextFilters,
    /// What a URL filter match does.
    pub url_filter_mode: FilterMode,
}

impl Gates {
    /// The gates of `config`; every problem is reported, named by its key.
    pub fn from_config(config: &CrawlConfig, seeds: &[Url]) -> Result<Gates, ConfigError> {
        let ctx = context(config, seeds);
        let mut problems = Vec::new();
        let mut build = |specs: &[crate::settings::RuleSpec], key: &str| {
            let mut seq = DecideSequence::accepting();
            build_into(&mut seq, specs, key, &ctx, &mut problems);
            seq
        };
        let mut before_fetch = build(&config.decide.before_fetch, "decide.before_fetch");
        // What reached the frontier another way (a seed, an earlier job's queue) is refused here too.
        if let Some(g) = login_guard(config) {
            before_fetch.push(Box::new(LoginGuardRule(g)), None, None);
        }
        let after_headers = build(&config.decide.after_headers, "decide.after_headers");
        let mut before_write = build(&config.decide.before_write, "decide.before_write");
        if config.filters.url_mode == FilterMode::Download {
            url_filters(config, &mut before_write, &mut problems);
        }
        let text_filters = match TextFilters::from_config(&config.filters) {
            Ok(t) => t,
            Err(p) => {
                problems.extend(p.into_iter().map(|(k, m)| (format!("filters.{k}"), m)));
                TextFilters::default()
            }
        };
        if problems.is_empty() {
            Ok(Gates {
                before_fetch,
                after_headers,
                before_write,
                text_filters,
                url_filter_mode: config.filters.url_mode,
            })
        } else {
            Err(ConfigError::from_pairs(Stage::Semantics, "", problems))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{Decision, test_util::uri};

    /// xt5 F4: `scope.surt_prefixes` and a `surt_prefixed` rule's `prefixes` given as URLs or hosts are
    /// converted to their SURT prefixes; a value that is neither is refused at its key.
    #[test]
    fn surt_prefixes_written_as_urls_or_hosts_are_converted() {
        let seeds = [Url::parse("http://127.0.0.1:8601/").unwrap()];
        let default: CrawlConfig = toml::from_str(
            "[scope]\nsurt_prefixes = [\"http://127.0.0.2:8601/\", \"example.org\"]\n",
        )
        .unwrap();
        let ruled: CrawlConfig = toml::from_str(
            "[[scope.rules]]\nrule = \"reject\"\n[[scope.rules]]\nrule = \"surt_prefixed\"\n\
             prefixes = [\"http://127.0.0.2:8601/\", \"example.org\"]\n",
        )
        .unwrap();
        for config in [default, ruled] {
            let scope = Scope::from_config(&config, &seeds).unwrap();
            for (u, want) in [
                ("http://127.0.0.2:8601/x", Decision::Accept),
                ("http://example.org/", Decision::Accept),
                ("http://www.example.org/a", Decision::Accept),
                ("http://127.0.0.3:8601/x", Decision::Reject),
            ] {
                assert_eq!(scope.decide(&uri(u, "L")).decision, want, "{u}");
            }
        }
        let bad: CrawlConfig =
            toml::from_str("[scope]\nsurt_prefixes = [\"http://[::1\"]\n").unwrap();
        let problems = bad.validate_all();
        assert!(
            problems.iter().any(|(k, _)| k == "scope.surt_prefixes[0]"),
            "{problems:?}"
        );
        let bad: CrawlConfig = toml::from_str(
            "[[scope.rules]]\nrule = \"surt_prefixed\"\nprefixes = [\"http://[::1\"]\n",
        )
        .unwrap();
        let e = Scope::from_config(&bad, &seeds).unwrap_err().to_string();
        assert!(e.contains("prefixes[0]"), "{e}");
    }

    /// xt5 F8: `on_hosts`/`on_domains` entries are read as URLs write hosts (case, IDNA, a leading `*.` of a
    /// domain); entries that could never match are refused at their keys.
    #[test]
    fn host_and_domain_entries_are_normalised_or_refused() {
        let seeds = [Url::parse("http://127.0.0.1:8601/").unwrap()];
        let rules = |hosts: &str, domains: &str| -> CrawlConfig {
            toml::from_str(&format!(
                "[[scope.rules]]\nrule = \"reject\"\n[[scope.rules]]\nrule = \"on_hosts\"\nhosts = {hosts}\n\
                 [[scope.rules]]\nrule = \"on_domains\"\ndomains = {domains}\n"
            ))
            .unwrap()
        };
        let good = rules(
            r#"["Example.COM"]"#,
            r#"[".example.org", "*.example.info", "BÜCHER.de"]"#,
        );
        let scope = Scope::from_config(&good, &seeds).unwrap();
        for (u, rule) in [
            ("http://example.com/", "on_hosts"),
            ("http://a.example.org/", "on_domains"),
            ("http://a.example.info/", "on_domains"),
            ("http://xn--bcher-kva.de/", "on_domains"),
            ("http://bücher.de/", "on_domains"),
            ("http://example.net/", "reject"),
        ] {
            assert_eq!(scope.decide(&uri(u, "L")).rule, rule, "{u}");
        }
        let bad = rules(
            r#"["127.0.0.2:8601", "http://example.net/"]"#,
            r#"["example.org/x"]"#,
        );
        let e = Scope::from_config(&bad, &seeds).unwrap_err().to_string();
        for key in [
            "scope.rules[1].hosts[0]",
            "scope.rules[1].hosts[1]",
            "scope.rules[2].domains[0]",
        ] {
            assert!(e.contains(key), "{key} in {e}");
        }
    }

    #[test]
    fn the_login_guard_comes_last_in_the_scope_and_the_before_fetch_gate() {
        let config: CrawlConfig = toml::from_str(
            "[[scope.rules]]\nrule = \"accept\"\n\
             [[credentials]]\nkind = \"form\"\ndomain = \"a.org\"\npassword_env = \"P\"\n\
             login_url = \"http://a.org/login\"\navoid = ['/private-area/']\n",
        )
        .unwrap();
        let seeds = [Url::parse("http://a.org/").unwrap()];
        let scope = Scope::from_config(&config, &seeds).unwrap();
        assert_eq!(scope.sequence().labels().last(), Some("login_guard"));
        for (u, want, rule) in [
            ("http://a.org/logout", Decision::Reject, "login_guard"),
            (
                "http://a.org/private-area/x",
                Decision::Reject,
                "login_guard",
            ),
            ("http://a.org/page", Decision::Accept, "accept"),
            ("http://b.org/logout", Decision::Accept, "accept"),
        ] {
            let v = scope.decide(&uri(u, "L"));
            assert_eq!((v.decision, v.rule), (want, rule), "{u}");
        }
        let gates = Gates::from_config(&config, &seeds).unwrap();
        let v = gates
            .before_fetch
            .decide_input(&DecideInput::new(&uri("http://a.org/logout", "")));
        assert_eq!((v.decision, v.rule), (Decision::Reject, "login_guard"));
        // No login anywhere: no guard.
        let plain: CrawlConfig = toml::from_str("").unwrap();
        assert!(
            Scope::from_config(&plain, &seeds)
                .unwrap()
                .login_guard()
                .is_none()
        );
    }

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

    /// The default sequence written out (as docs/scope.md and the default profile give it) takes its bounds
    /// and extra prefixes from the `[scope]` keys, so it decides as the default does.
    #[test]
    fn written_out_rules_take_the_scope_keys() {
        let keys = "[scope]\nmax_hops = 2\nmax_trans_hops = 1\nmax_speculative_hops = 0\n\
                    max_path_depth = 3\nmax_path_repeats = 1\nsurt_prefixes = [\"http://(test,gamma,\"]\n";
        let written = format!(
            "{keys}{}",
            [
                "reject",
                "surt_prefixed",
                "too_many_hops",
                "transclusion",
                "prerequisite_accept",
                "scheme_not_in_set",
                "pathological_path",
                "too_many_path_segments",
            ]
            .map(|r| format!("[[scope.rules]]\nrule = \"{r}\"\n"))
            .concat()
        );
        let default: CrawlConfig = toml::from_str(keys).unwrap();
        let written: CrawlConfig = toml::from_str(&written).unwrap();
        assert_eq!(written.scope.rules.len(), 8);
        let seeds = [Url::parse("http://alpha.test/").unwrap()];
        let default = Scope::from_config(&default, &seeds).unwrap();
        let written = Scope::from_config(&written, &seeds).unwrap();
        for (u, path) in [
            ("http://alpha.test/a", "LL"),
            ("http://alpha.test/deep", "LLL"),
            ("http://gamma.test/x", "L"),
            ("http://beta.test/a.png", "LE"),
            ("http://beta.test/a.png", "LEE"),
            ("http://beta.test/a.js", "LX"),
            ("http://alpha.test/a/a/b", "L"),
            ("http://alpha.test/a/b/c/d", "L"),
            ("http://alpha.test/a/b/c", "L"),
            ("http://beta.test/robots.txt", "LP"),
        ] {
            let (d, w) = (default.decide(&uri(u, path)), written.decide(&uri(u, path)));
            assert_eq!((d.decision, d.rule), (w.decision, w.rule), "{u} {path}");
        }
        assert_eq!(
            written.decide(&uri("http://gamma.test/x", "L")).decision,
            Decision::Accept
        );
        assert_eq!(
            written.decide(&uri("http://alpha.test/deep", "LLL")).rule,
            "too_many_hops"
        );
    }
}
