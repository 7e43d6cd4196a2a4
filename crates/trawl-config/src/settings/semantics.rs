//! The third check: values that parse but are wrong, each named by its key.

use std::{path::Path, sync::Arc};

use trawl_url::{UrlClasses, parse_lenient};

use super::{
    CrawlConfig,
    problem::{Problem, Stage},
    rules::RuleSpec,
    seed_list::{self, SeedLine, SeedLineError},
};
use crate::{CrawlUri, Scope, decide::Decision, scope::Gates, sheets::Sheets};

fn problem(key: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem::at_key(Stage::Semantics, key, message)
}

/// Where a URL class was defined: its name, its library file and that file's text (`None`: the config
/// itself), and its index among the file's `[[url_class]]` tables.
type ClassOrigin = (String, Option<(std::path::PathBuf, Arc<str>)>, usize);

/// A class's error or warning as a problem at its field (or its table): in its library file (located there),
/// or at `url_class[i]` of the config itself, each class's at its own place.
fn class_problem(w: &trawl_url::class::ClassError, origins: &[ClassOrigin]) -> Problem {
    class_problem_at(w, origins, 0)
}

/// As [`class_problem`], at the `nth` (from 0) of the classes of that name.
fn class_problem_at(
    w: &trawl_url::class::ClassError,
    origins: &[ClassOrigin],
    nth: usize,
) -> Problem {
    let class = w.class().unwrap_or_default();
    let Some((_, file, index)) = origins.iter().filter(|(name, _, _)| name == class).nth(nth)
    else {
        return problem("url_class", w.to_string());
    };
    let key = match w.field() {
        Some(field) => format!("url_class[{index}].{field}"),
        None => format!("url_class[{index}]"),
    };
    let mut p = problem(key.clone(), w.to_string());
    if let Some((path, text)) = file {
        p.file = path.clone();
        p.at = super::problem::locate(text, &key)
            .map(|span| super::problem::line_col(text, span.start));
    }
    p
}

/// What a SURT prefix as written probably does not mean, as warnings at `key`, each message after `at` (a
/// seed file's name and line, or nothing): a prefix written as a URL reaches to its last slash, as in
/// Heritrix (`http://example.org/docs` is the whole host: xt20b F5); a CDX-form path without its closing slash
/// takes in every path that starts so.
fn prefix_warnings(key: &str, at: &str, written: &str) -> Vec<Problem> {
    let mut out = Vec::new();
    if let Some(folder) = seed_list::cut_to_folder(written) {
        out.push(
            problem(
                key,
                format!(
                    "{at}the prefix {written:?} reaches to its last slash, as in Heritrix: it takes in \
                     everything under {folder}"
                ),
            )
            .with_hint(if written.contains('?') {
                "a prefix ends at its last slash, its query cut off: write the folder's URL, ending in a slash"
                    .to_string()
            } else {
                format!("write \"{}/\" for that folder only", written.trim())
            }),
        );
    }
    if seed_list::open_cdx_path(written) {
        out.push(
            problem(
                key,
                format!(
                    "{at}the prefix {written:?} takes in every path that starts so, not only that folder (`trawl \
                     url surt` leaves a folder's closing slash off)"
                ),
            )
            .with_hint(format!("write \"{}/\" for that folder only", written.trim())),
        );
    }
    if let Some(fixed) = port_among_labels(written) {
        out.push(
            problem(
                key,
                format!(
                    "{at}the prefix {written:?} writes a port among the host's labels: a SURT prefix puts it after \
                     the host's last comma (`(localhost,:8080)`), so this one matches no URL"
                ),
            )
            .with_hint(format!(
                "write \"{fixed}\", or the host with its port as a URL writes it (`localhost:8080`): `trawl url \
                 surt` shows a URL's prefix form"
            )),
        );
    }
    if let Some((dotted, reversed)) = seed_list::comma_address(written) {
        out.push(
            problem(
                key,
                format!(
                    "{at}the prefix {written:?} names an IP address with commas: a SURT prefix writes an address \
                     as it is, dotted, so this one matches no URL"
                ),
            )
            .with_hint(format!(
                "write \"{dotted}\", or \"{reversed}\" if the commas reversed it as the CDX index's form does \
                 (`trawl url surt` shows a URL's prefix form as surt_heritrix)"
            )),
        );
    }
    out
}

/// The prefix `written` with its port after the host's last comma, where it is written among the host's labels
/// (`http://(localhost:8080,`: a `:` not right after a comma, nor after an address), which matches nothing
/// (xt46a F5).
fn port_among_labels(written: &str) -> Option<String> {
    let written = written.trim();
    let (scheme, rest) = match written.split_once("://(") {
        Some((scheme, rest)) => (scheme, rest),
        None => ("http", written.strip_prefix('(')?),
    };
    let host = &rest[..rest.find(')').unwrap_or(rest.len())];
    let colon = host.find(':')?;
    // An address is written as it is, its port right after it (`(127.0.0.1:8080)`, `([::1]:8080)`).
    let address = host.starts_with('[') || host[..colon].parse::<std::net::Ipv4Addr>().is_ok();
    if colon == 0
        || host[..colon].ends_with(',')
        || address
        || seed_list::comma_address(written).is_some()
    {
        return None;
    }
    let port: String = host[colon + 1..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some(format!("{scheme}://({},:{port})", &host[..colon]))
}

/// Makes the relative `files` of SURT prefix rules absolute, so the job's copy of the config still finds them.
fn absolute_prefix_files(rules: &mut [RuleSpec], base: &Path) {
    for r in rules {
        match r {
            RuleSpec::SurtPrefixed(s) | RuleSpec::NotSurtPrefixed(s) => {
                for f in &mut s.files {
                    *f = base.join(&*f);
                }
            }
            RuleSpec::All { of, .. } | RuleSpec::Any { of, .. } => absolute_prefix_files(of, base),
            RuleSpec::Not { of, .. } => {
                absolute_prefix_files(std::slice::from_mut(of.as_mut()), base)
            }
            _ => {}
        }
    }
}

/// The shortest `frontier.lease_ms` accepted: a second, the lease renewed every third of it.
const MIN_LEASE_MS: u64 = 1000;

impl CrawlConfig {
    /// Takes one line of a seed list: a seed is returned; a `+`/`-` SURT prefix goes to the scope (the default
    /// scope's `surt_prefixes`, or the `surt_prefixed` rules with that decision).
    pub fn seed_line(&mut self, line: SeedLine) -> Result<Option<String>, SeedLineError> {
        let (text, decision) = match line {
            SeedLine::Seed(url) => return Ok(Some(url)),
            SeedLine::Other(text) => return Err(SeedLineError::Neither(text)),
            SeedLine::Accept(text) => (text, Decision::Accept),
            SeedLine::Reject(text) => (text, Decision::Reject),
        };
        if let Err(source) = seed_list::directive_prefix(&text) {
            return Err(SeedLineError::BadPrefix { text, source });
        }
        // Kept as written, and read again as every prefix value is: a SURT string would lose what the
        // written form implies beyond it (the CDX form's `www.` host: review 69 R1).
        if self.scope.rules.is_empty() && decision == Decision::Accept {
            self.scope.surt_prefixes.push(text);
            return Ok(None);
        }
        if super::rules::give_to_rules(&mut self.scope.rules, &text, decision) == 0 {
            return Err(SeedLineError::NoRule(decision));
        }
        Ok(None)
    }

    /// Every list of SURT prefixes, by its key: the default scope's, the `surt_prefixed` rules', the sheets'.
    fn prefix_lists(&self) -> impl Iterator<Item = (String, &Vec<String>)> {
        let rule_prefixes = self
            .scope
            .rules
            .iter()
            .enumerate()
            .filter_map(|(i, r)| match r {
                RuleSpec::SurtPrefixed(s) | RuleSpec::NotSurtPrefixed(s) => {
                    Some((format!("scope.rules[{i}].prefixes"), &s.prefixes))
                }
                _ => None,
            });
        let sheet_prefixes = self
            .sheets
            .iter()
            .enumerate()
            .map(|(i, sh)| (format!("sheet[{i}].surt_prefixes"), &sh.surt_prefixes));
        std::iter::once(("scope.surt_prefixes".to_string(), &self.scope.surt_prefixes))
            .chain(rule_prefixes)
            .chain(sheet_prefixes)
    }

    /// What is allowed but probably not meant, each as a problem at its key: `trawl check` prints them as
    /// warnings (errors with `--strict`).
    pub fn warnings(&self) -> Vec<Problem> {
        let mut out = self.read_warnings.clone();
        for (i, sheet) in self.sheets.iter().enumerate() {
            for key in sheet.set.keys() {
                if super::sheet_cannot_set(key) {
                    out.push(problem(
                        format!("sheet[{i}].set"),
                        format!("{key} is read once when the crawl starts, so sheet {:?} setting it changes nothing", sheet.name),
                    ).with_hint(format!("set {key} for the whole crawl instead")));
                }
            }
        }
        for (i, c) in self.credentials.iter().enumerate() {
            if c.password.is_some() {
                out.push(
                    problem(
                        format!("credentials[{i}].password"),
                        "a password written in the config is easy to leak (and is not kept in the job's copy, so a \
                         resumed crawl cannot use it)",
                    )
                    .with_hint("use password_env = \"VAR\" or password_file = \"FILE\" instead"),
                );
            }
        }
        // The WARC tools' limit (trawl-warc's reader) on a record, of which the body is all but the HTTP head
        // (up to 1 MiB) and a chunked body's framing: a record over it is written, and read back only by a
        // resume's repair and index (xt25b F7, review 73 R4).
        const READABLE: u64 = (1 << 30) - (2 << 20);
        if self.fetch.max_bytes > READABLE {
            out.push(
                problem(
                    "fetch.max_bytes",
                    format!(
                        "{} bytes: a body this large is archived whole (and held in memory while it is fetched), \
                         but its record may pass 1 GiB, which `trawl warc verify`, `index`, `convert` and \
                         `recompress` refuse, and so does the WACZ package `warc.wacz` makes at the crawl's end",
                        self.fetch.max_bytes
                    ),
                )
                .with_hint(format!(
                    "keep it at {READABLE} or under unless such bodies are wanted"
                )),
            );
        }
        let sheet_proxies = self.sheets.iter().enumerate().filter_map(|(i, sh)| {
            sh.set
                .get("fetch.proxy")
                .and_then(|v| v.as_str())
                .map(|p| (format!("sheet[{i}].set"), p))
        });
        let proxies = self
            .fetch
            .proxy
            .as_deref()
            .map(|p| ("fetch.proxy".to_string(), p))
            .into_iter()
            .chain(sheet_proxies);
        for (key, proxy) in proxies {
            if url::Url::parse(proxy).is_ok_and(|u| u.password().is_some()) {
                out.push(
                    problem(
                        key,
                        "a proxy password written in the config is easy to leak (and is not kept in the job's \
                         copy, so a resumed crawl reads it from TRAWL_PROXY_PASSWORD)",
                    )
                    .with_hint("write socks5://USER@HOST:PORT and set TRAWL_PROXY_PASSWORD instead"),
                );
            }
        }
        if self.may_render() && self.browser.chromium().is_none() {
            let key = if self.browser.executable.is_empty() {
                "browser.mode"
            } else {
                "browser.executable"
            };
            let exe = &self.browser.executable;
            let (message, hint) = if exe.is_empty() {
                (
                    "pages are to be rendered, but no Chromium can be found: the crawl cannot start".to_owned(),
                    "install it (`apt-get install chromium`) or set [browser] executable to its path".to_owned(),
                )
            } else if !exe.contains('/') {
                (
                    format!(
                        "pages are to be rendered, but no executable `{exe}` is on PATH: the crawl cannot start"
                    ),
                    format!(
                        "`{exe}` is looked for on PATH (a name without a `/`): for a file beside the config \
                         write \"./{exe}\""
                    ),
                )
            } else {
                // The path itself is named, and the fix is another path (xt45b F3: the hint said to set the key).
                (
                    format!(
                        "pages are to be rendered, but {exe} is no executable file: the crawl cannot start"
                    ),
                    "install Chromium (`apt-get install chromium`) and write its path here, or leave \
                     executable empty to find it on PATH"
                        .to_owned(),
                )
            };
            out.push(problem(key, message).with_hint(hint));
        }
        // Browser settings that cannot work, or do nothing (xt16a F10).
        let b = &self.browser;
        if self.may_render() && b.idle_ms.saturating_mul(10) >= b.page_timeout_ms.saturating_mul(6)
        {
            out.push(
                problem(
                    "browser.idle_ms",
                    format!(
                        "browser.idle_ms = {} is not under the loading share of browser.page_timeout_ms = {} \
                         (60% of it): no page reaches the quiet that ends its loading, so every page is cut at \
                         its time (browser:timeout)",
                        b.idle_ms, b.page_timeout_ms
                    ),
                )
                .with_hint("lower idle_ms or raise page_timeout_ms"),
            );
        }
        if self.may_render() && (b.max_requests_per_page == 0 || b.max_bytes_per_page == 0) {
            let key = if b.max_requests_per_page == 0 {
                "browser.max_requests_per_page"
            } else {
                "browser.max_bytes_per_page"
            };
            out.push(
                problem(
                    key,
                    format!(
                        "{key} = 0 refuses every request a page makes: its scripts, styles and data never load"
                    ),
                )
                .with_hint("raise it (the defaults are 500 requests and 52428800 bytes)"),
            );
        }
        if !self.may_render() && (b.screenshot || !b.behaviors_file.is_empty()) {
            let key = if b.screenshot {
                "browser.screenshot"
            } else {
                "browser.behaviors_file"
            };
            out.push(
                problem(
                    key,
                    "no page is rendered (browser.mode is off, and no sheet or URL class renders pages): \
                     it does nothing",
                )
                .with_hint("set [browser] mode = \"auto\" or \"all\" for it to work"),
            );
        }
        // A form login is kept in cookies: without a jar it cannot work (xt10a F13).
        if self.fetch.cookies == super::CookieMode::Off
            && let Some(i) = self
                .credentials
                .iter()
                .position(|c| c.kind == super::CredentialKind::Form)
        {
            out.push(
                problem(
                    "fetch.cookies",
                    format!(
                        "credentials[{i}] is a form login, whose session lives in cookies: with cookies off it \
                         cannot work (a site's CSRF check refuses it, and no page is fetched logged in)"
                    ),
                )
                .with_hint("set [fetch] cookies = \"job\" (the default), or take the form credential out"),
            );
        }
        // A cookies file (a logged-in browser's session, exported) sends nothing without a jar (xt46a F7).
        if self.fetch.cookies == super::CookieMode::Off && self.fetch.cookies_file.is_some() {
            out.push(
                problem(
                    "fetch.cookies_file",
                    "with [fetch] cookies = \"off\" no cookie is sent: the file's cookies are not used, and the \
                     crawl is anonymous",
                )
                .with_hint("set [fetch] cookies = \"job\" (the default) to send them, or take cookies_file out"),
            );
        }
        // A host has one form login, the first that covers it: a second for the same `domain` is never used
        // (xt17a F10: an admin account beside a member's was silently left out).
        let forms: Vec<(usize, &str)> = self
            .credentials
            .iter()
            .enumerate()
            .filter(|(_, c)| c.kind == super::CredentialKind::Form)
            .filter_map(|(i, c)| Some((i, c.domain.as_deref()?)))
            .collect();
        for (at, &(i, domain)) in forms.iter().enumerate() {
            if let Some(&(first, _)) = forms[..at]
                .iter()
                .find(|(_, d)| d.eq_ignore_ascii_case(domain))
            {
                out.push(
                    problem(
                        format!("credentials[{i}].domain"),
                        format!(
                            "credentials[{first}] is already the form login of {domain}: a host has one form \
                             login, the first, so this one is never used"
                        ),
                    )
                    .with_hint("crawl the other account's pages in a job of their own"),
                );
            }
        }
        // A form credential written with a SURT prefix closed at its host (`http://(127.0.0.1:8080)/`) covers
        // that host alone: one an earlier form login already covers is never used either (xt44b F5).
        let form_logins: Vec<(usize, &super::CredentialSpec)> = self
            .credentials
            .iter()
            .enumerate()
            .filter(|(_, c)| c.kind == super::CredentialKind::Form)
            .collect();
        for (at, &(i, c)) in form_logins.iter().enumerate() {
            let Some(prefix) = c.surt_prefix.as_deref().filter(|p| p.contains(')')) else {
                continue;
            };
            let Some(root) = c
                .login_url
                .as_deref()
                .and_then(|u| trawl_url::parse_lenient(u).ok())
                .filter(|u| c.applies_to(u))
                .and_then(|u| u.join("/").ok())
            else {
                continue;
            };
            if let Some(&(first, _)) = form_logins[..at]
                .iter()
                .find(|(_, earlier)| earlier.applies_to(&root))
            {
                out.push(
                    problem(
                        format!("credentials[{i}].surt_prefix"),
                        format!(
                            "credentials[{first}] is already the form login of {prefix}: a host has one form \
                             login, the first, so this one is never used"
                        ),
                    )
                    .with_hint("crawl the other account's pages in a job of their own"),
                );
            }
        }
        // A form login for a host no seed is on logs in only if the crawl reaches that host by links: said here,
        // not only at the crawl's end (xt18a F10: `localhost:P` beside seeds on `127.0.0.1:P`).
        let seeds: Vec<url::Url> = self
            .seeds
            .urls
            .iter()
            .filter_map(|s| trawl_url::parse_lenient(s).ok())
            .collect();
        for (i, c) in self.credentials.iter().enumerate() {
            if c.kind != super::CredentialKind::Form
                || seeds.is_empty()
                || seeds.iter().any(|s| c.applies_to(s))
            {
                continue;
            }
            let (key, host) = match (&c.domain, &c.surt_prefix) {
                (Some(d), _) => (format!("credentials[{i}].domain"), d.clone()),
                (None, Some(p)) => (format!("credentials[{i}].surt_prefix"), p.clone()),
                (None, None) => continue,
            };
            out.push(
                problem(
                    key,
                    format!(
                        "no seed is on {host}: this form login runs only if the crawl reaches that host by links \
                         (localhost, 127.0.0.1 and a name of the same machine are different hosts)"
                    ),
                )
                .with_hint("write the credential's domain as the seeds write their host"),
            );
        }
        // Settings that do nothing without others (xt10b F12).
        if self.conditional_recrawl_anywhere()
            && (!self.warc.dedup || self.warc.dedup_from.is_empty())
        {
            out.push(
                problem(
                    "fetch.conditional_recrawl",
                    "a conditional recrawl sends the validators of a `warc.dedup_from` job's captures, read only \
                     with `warc.dedup = true`: here it does nothing",
                )
                .with_hint("name the earlier crawl in [warc] dedup_from, and keep [warc] dedup = true"),
            );
        }
        if !self.warc.dedup && !self.warc.dedup_from.is_empty() {
            out.push(
                problem(
                    "warc.dedup_from",
                    "the earlier crawls are not read with `warc.dedup = false`: nothing is deduplicated",
                )
                .with_hint("set [warc] dedup = true, or take dedup_from out"),
            );
        }
        if self.seeds.urls.is_empty() && self.seeds.files.is_empty() {
            out.push(problem("seeds", "the config names no seeds").with_hint(
                "give them on the command line (`trawl crawl -c FILE URL...`) or in [seeds] urls",
            ));
        }
        for (i, seed) in self.seeds.urls.iter().enumerate() {
            if seed_list::is_placeholder(seed) {
                out.push(
                    problem(
                        format!("seeds.urls[{i}]"),
                        format!(
                            "{seed} is a placeholder: the .example domain is reserved for examples and never \
                             resolves, so this seed is never fetched"
                        ),
                    )
                    .with_hint("replace it with a seed of your own, or remove it"),
                );
            } else if trawl_url::is_bare_word(seed) && trawl_url::parse_seed(seed).is_ok() {
                out.push(
                    problem(
                        format!("seeds.urls[{i}]"),
                        format!(
                            "{seed:?} has no scheme, dot or port: it is read as the host of that one name, \
                             looked up in the DNS"
                        ),
                    )
                    .with_hint(format!(
                        "write \"http://{}\" if that host is meant",
                        seed.trim().trim_start_matches('/')
                    )),
                );
            }
        }
        // A URL class fetches a seed in its server form: a change of scheme or host is easy to miss (a plain
        // http mirror whose class prefers https stalls on TLS).
        if let Ok(classes) = self.compile_classes()
            && !self.url_classes.is_empty()
        {
            for (i, seed) in self.seeds.urls.iter().enumerate() {
                let Ok(url) = parse_lenient(seed) else {
                    continue;
                };
                let Some(m) = classes.match_url(&url) else {
                    continue;
                };
                let to = &m.for_server;
                if to.scheme() != url.scheme() || to.host_str() != url.host_str() {
                    out.push(
                        problem(
                            format!("seeds.urls[{i}]"),
                            format!(
                                "url class {:?} fetches the seed {seed} as {to} (another scheme or host)",
                                m.class
                            ),
                        )
                        .with_hint(
                            "if the site is not served there, set the class's preferred_scheme (default \
                             \"https\") or give the seed in the class's form",
                        ),
                    );
                }
            }
        }
        // Before the fetch, the address of a host named by name is not known yet: there the rule sees only IP
        // literals (xt12a F15: a rule against 127.0.0.1 let `localhost` through without a word).
        // Nested in `any`, `all` or `not` too, and in a sheet's rules (xt13a F9).
        fn reads_address(rule: &RuleSpec) -> bool {
            match rule {
                RuleSpec::IpAddressSet { .. } => true,
                RuleSpec::All { of, .. } | RuleSpec::Any { of, .. } => of.iter().any(reads_address),
                RuleSpec::Not { of, .. } => reads_address(of),
                _ => false,
            }
        }
        fn reads_response(rule: &RuleSpec) -> bool {
            match rule {
                RuleSpec::ContentTypeMatchesRegex(_)
                | RuleSpec::NotContentTypeMatchesRegex(_)
                | RuleSpec::FetchStatusMatches { .. }
                | RuleSpec::ContentLength { .. } => true,
                RuleSpec::All { of, .. } | RuleSpec::Any { of, .. } => {
                    of.iter().any(reads_response)
                }
                RuleSpec::Not { of, .. } => reads_response(of),
                _ => false,
            }
        }
        let sheet_rules: Vec<(String, &Vec<RuleSpec>)> = self
            .sheets
            .iter()
            .enumerate()
            .map(|(i, sheet)| (format!("sheet[{i}].rules"), &sheet.rules))
            .collect();
        for (key, rules) in [
            ("scope.rules".to_string(), &self.scope.rules),
            ("decide.before_fetch".to_string(), &self.decide.before_fetch),
        ]
        .into_iter()
        .chain(sheet_rules)
        {
            // A rule of the response answers PASS before the fetch: here it never decides (xt15c F15). Each
            // one is named (xt20b F7: only the first was).
            for i in (0..rules.len()).filter(|&i| reads_response(&rules[i])) {
                out.push(
                    problem(
                        format!("{key}[{i}]"),
                        "a rule of the response (content type, status, length) never decides here: nothing is \
                         fetched yet, so it answers PASS",
                    )
                    .with_hint(if key.starts_with("sheet[") {
                        "pick the sheet's URIs by their URLs instead"
                    } else {
                        "move it to decide.after_headers or decide.before_write"
                    }),
                );
            }
            for i in (0..rules.len()).filter(|&i| reads_address(&rules[i])) {
                out.push(
                    problem(
                        format!("{key}[{i}]"),
                        "an ip_address_set rule here matches only hosts written as IP addresses: a host named by \
                         name has no address yet",
                    )
                    .with_hint(if key.starts_with("sheet[") {
                        "pick the sheet's URIs by their hosts (surt_prefixes, on_hosts) instead"
                    } else {
                        "move it to decide.after_headers, which sees the address the fetch connected to"
                    }),
                );
            }
        }
        if self.url_classes.is_empty() {
            let with_rules = [
                ("scope.rules", &self.scope.rules),
                ("decide.before_fetch", &self.decide.before_fetch),
                ("decide.after_headers", &self.decide.after_headers),
                ("decide.before_write", &self.decide.before_write),
            ];
            for (key, rules) in with_rules {
                if let Some(i) = rules
                    .iter()
                    .position(|r| matches!(r, RuleSpec::UrlClassKind { .. }))
                {
                    out.push(
                        problem(
                            format!("{key}[{i}]"),
                            "a url_class_kind rule never matches: the config has no URL classes",
                        )
                        .with_hint(
                            "add [classes] files = [\"LIBRARY.toml\"] or [[url_class]] tables, or remove the rule",
                        ),
                    );
                }
            }
        }
        // The prefixes seed files added are warned of at their lines, as they were read.
        for (key, prefixes) in self.prefix_lists() {
            let written = self.prefixes_written.get(&key).copied();
            for (j, prefix) in prefixes.iter().enumerate() {
                if written.is_none_or(|n| j < n) {
                    out.extend(prefix_warnings(&format!("{key}[{j}]"), "", prefix));
                }
            }
        }
        let has_prerequisites = self
            .scope
            .rules
            .iter()
            .any(|r| matches!(r, RuleSpec::PrerequisiteAccept { .. }));
        if self.fetch.obey_robots && !self.scope.rules.is_empty() && !has_prerequisites {
            out.push(
                problem(
                    "scope.rules",
                    "the scope has no `prerequisite_accept` rule: a robots.txt it refuses leaves its whole host \
                     unfetched (status -63)",
                )
                .with_hint("add [[scope.rules]] rule = \"prerequisite_accept\" after the rules that reject"),
            );
        }
        // Sitemaps are found through robots.txt (its `Sitemap:` lines, and the probe after it): without its
        // fetch none is read (xt12a F8: silent).
        if !self.fetch.obey_robots && self.extract.sitemaps {
            out.push(
                problem(
                    "fetch.obey_robots",
                    "with obey_robots = false no robots.txt is fetched, so no sitemap is read (neither its \
                     `Sitemap:` lines nor the sitemap_probe)",
                )
                .with_hint(
                    "keep obey_robots = true to read the sitemaps, or set [extract] sitemaps = false to say they \
                     are not wanted",
                ),
            );
        }
        // As `trawl crawl` refuses it: only for seeds beyond this machine (a profile without seeds is
        // checked again when it is crawled).
        let beyond = self
            .seeds
            .urls
            .iter()
            .filter_map(|s| parse_lenient(s).ok())
            .any(|u| !super::access::is_local(&u));
        if beyond && !super::access::user_agent_has_contact(&self.fetch.user_agent) {
            out.push(
                problem(
                    "fetch.user_agent",
                    format!(
                        "the user agent {:?} names no contact: a crawl refuses to go beyond this machine with it",
                        self.fetch.user_agent
                    ),
                )
                .with_hint("write a URL or e-mail address webmasters can reach you at, e.g. \"mybot/1.0 (+https://example.org/bot)\""),
            );
        }
        out
    }

    /// Every contradiction among plain settings, each as `(key, message)`.
    pub fn validate_all(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if let Err(e) = self.identity.build() {
            let Problem { key, message, .. } = *e;
            out.push((key.unwrap_or_else(|| "identity".into()), message));
        }
        let f = &self.frontier;
        if !(f.delay_factor.is_finite() && f.delay_factor >= 0.0) {
            out.push((
                "frontier.delay_factor".into(),
                format!(
                    "frontier.delay_factor = {} must be a number >= 0",
                    f.delay_factor
                ),
            ));
        }
        if f.min_delay_ms > f.max_delay_ms {
            // A value the text may never have written says it is the default (xt12b F8).
            let defaults = super::FrontierConfig::default();
            let default_note = |value, default| {
                if value == default {
                    " (the default)"
                } else {
                    ""
                }
            };
            out.push((
                "frontier.min_delay_ms".into(),
                format!(
                    "frontier.min_delay_ms = {}{} is above frontier.max_delay_ms = {}{}; lower the first or raise \
                     the second",
                    f.min_delay_ms,
                    default_note(f.min_delay_ms, defaults.min_delay_ms),
                    f.max_delay_ms,
                    default_note(f.max_delay_ms, defaults.max_delay_ms),
                ),
            ));
        }
        if f.uri_precedence_base > 200 {
            out.push((
                "frontier.uri_precedence_base".into(),
                format!(
                    "frontier.uri_precedence_base = {} is above 200 (hops are added to it, up to 50)",
                    f.uri_precedence_base
                ),
            ));
        }
        // A lease shorter than a fetch expires while the fetch runs: every worker claims the URI again, and
        // again (xt6a: 32,852 requests for one robots.txt in two minutes at 1 ms).
        if f.lease_ms < MIN_LEASE_MS {
            out.push((
                "frontier.lease_ms".into(),
                format!(
                    "frontier.lease_ms = {} is under {MIN_LEASE_MS}: a lease must outlast a fetch (and its renewal \
                     every third of it), or other workers claim the URI while it is fetched (the default is 30000)",
                    f.lease_ms
                ),
            ));
        }
        let b = &self.browser;
        if b.pages == 0 {
            out.push((
                "browser.pages".into(),
                "browser.pages must be at least 1".into(),
            ));
        }
        if b.page_timeout_ms < 1000 {
            out.push((
                "browser.page_timeout_ms".into(),
                format!(
                    "browser.page_timeout_ms = {} is under a second: no page loads that fast",
                    b.page_timeout_ms
                ),
            ));
        }
        if !(f.bloom_fp_rate > 0.0 && f.bloom_fp_rate < 1.0) {
            out.push((
                "frontier.bloom_fp_rate".into(),
                format!(
                    "frontier.bloom_fp_rate = {} must be above 0 and below 1 (0.01 is one new URL in a hundred \
                     taken for seen)",
                    f.bloom_fp_rate
                ),
            ));
        }
        if f.bloom_items == 0 {
            out.push((
                "frontier.bloom_items".into(),
                "frontier.bloom_items must be at least 1".into(),
            ));
        }
        if f.queue_precedence == 0 {
            out.push((
                "frontier.queue_precedence".into(),
                "frontier.queue_precedence must be at least 1".into(),
            ));
        }
        if f.max_active_queues == 0 {
            out.push((
                "frontier.max_active_queues".into(),
                "frontier.max_active_queues must be at least 1".into(),
            ));
        }
        for (i, p) in self.scope.surt_prefixes.iter().enumerate() {
            if let Err(message) = seed_list::prefix_value(p) {
                out.push((format!("scope.surt_prefixes[{i}]"), message.to_string()));
            }
        }
        let fc = &self.fetch;
        for (name, v) in [
            ("fetch.max_connections", fc.max_connections as u64),
            (
                "fetch.max_connections_per_host",
                fc.max_connections_per_host as u64,
            ),
            ("fetch.timeout_ms", fc.timeout_ms),
            ("fetch.connect_timeout_ms", fc.connect_timeout_ms),
            ("fetch.header_timeout_ms", fc.header_timeout_ms),
            ("fetch.max_fetch_ms", fc.max_fetch_ms),
            ("fetch.max_decode_ratio", fc.max_decode_ratio),
            ("fetch.max_headers", fc.max_headers as u64),
            // 0 would archive every body empty, and read every robots.txt as empty (allow all).
            ("fetch.max_bytes", fc.max_bytes),
            ("fetch.max_robots_bytes", fc.max_robots_bytes),
            // 0 would extract no link from any page, without a word (xt12a b F5).
            ("fetch.max_decoded_bytes", fc.max_decoded_bytes),
        ] {
            if v == 0 {
                out.push((name.into(), format!("{name} must be at least 1")));
            }
        }
        if self.classes.watch_interval_s == 0 {
            out.push((
                "classes.watch_interval_s".into(),
                "classes.watch_interval_s must be at least 1: at 0 a watchable page is fetched again as soon as \
                 politeness allows, and one that changes on every load (a clock, a token) never ends the crawl; \
                 hydrus checks a thread every few minutes (the default is 300)"
                    .into(),
            ));
        }
        if fc.max_header_bytes < 1024 {
            out.push((
                "fetch.max_header_bytes".into(),
                "fetch.max_header_bytes must be at least 1024".into(),
            ));
        }
        // An HTTP header value: visible ASCII and spaces only.
        if fc.user_agent.trim().is_empty()
            || !fc
                .user_agent
                .bytes()
                .all(|b| b == b' ' || b.is_ascii_graphic())
        {
            out.push((
                "fetch.user_agent".into(),
                "fetch.user_agent must be one non-empty line of printable ASCII".into(),
            ));
        }
        if let Some(proxy) = &fc.proxy
            && let Err(e) = super::Proxy::check_form(proxy)
        {
            out.push(("fetch.proxy".into(), e.to_string()));
        }
        for (name, value) in &fc.headers {
            if http::HeaderName::from_bytes(name.as_bytes()).is_err()
                || http::HeaderValue::from_str(value).is_err()
            {
                out.push((
                    "fetch.headers".into(),
                    format!("{name:?} = {value:?} cannot be sent as an HTTP header (a token name, a printable ASCII value)"),
                ));
            } else if let Some(why) = reserved_header(name) {
                out.push((
                    "fetch.headers".into(),
                    format!("{name:?} cannot be set in fetch.headers: {why}; remove it"),
                ));
            }
        }
        for (i, c) in self.credentials.iter().enumerate() {
            for (key, message) in c.problems() {
                let key = if key.is_empty() {
                    format!("credentials[{i}]")
                } else {
                    format!("credentials[{i}].{key}")
                };
                out.push((key, message));
            }
        }
        // A file name is the prefix, a timestamp, a serial and the host name (about 40 bytes and the host);
        // most file systems take 255 bytes. White space breaks the space-separated CDX and crawl.log fields
        // that name the file (xt12a b F6: a long prefix failed the crawl at its first write).
        let prefix = &self.warc.prefix;
        if prefix.is_empty()
            || prefix.contains(['/', '\\'])
            || prefix.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            out.push((
                "warc.prefix".into(),
                format!(
                    "warc.prefix = {prefix:?} must be a non-empty file name part without white space (letters, \
                     digits, `-`, `_`, `.`)"
                ),
            ));
        } else if prefix.len() > 100 {
            out.push((
                "warc.prefix".into(),
                format!(
                    "warc.prefix is {} bytes long: with the timestamp, serial and host name a WARC's file name \
                     would pass the 255 bytes most file systems allow; keep it to 100",
                    prefix.len()
                ),
            ));
        }
        if !(1..=9).contains(&self.warc.gzip_level) {
            out.push((
                "warc.gzip_level".into(),
                format!("warc.gzip_level = {} must be 1 to 9", self.warc.gzip_level),
            ));
        }
        if self.warc.zstd_dictionary && self.warc.compression != super::Compression::Zstd {
            out.push((
                "warc.zstd_dictionary".into(),
                "warc.zstd_dictionary = true needs warc.compression = \"zstd\" (a dictionary is for zstd \
                 frames only)"
                    .into(),
            ));
        }
        out
    }

    /// Reads what the config names (seed files, class libraries) into it and checks everything that needs the
    /// whole config: rules, filters, sheets, URL class examples, seeds in scope.
    pub(crate) fn semantics(mut self, base: &Path) -> (CrawlConfig, Vec<Problem>) {
        let mut out: Vec<Problem> = self
            .validate_all()
            .into_iter()
            .map(|(k, m)| problem(k, m))
            .collect();
        // Seed files; their prefix lines are warned of at their lines, not among the lists they join.
        self.prefixes_written = self.prefix_lists().map(|(k, v)| (k, v.len())).collect();
        let mut seeds = std::mem::take(&mut self.seeds.urls);
        // Where each seed was given, to name it in a problem: its key, and its file and line if from a file.
        let mut places: Vec<(String, String)> = (0..seeds.len())
            .map(|i| (format!("seeds.urls[{i}]"), String::new()))
            .collect();
        for (i, file) in std::mem::take(&mut self.seeds.files).iter().enumerate() {
            match super::SeedsConfig::read_file(base, file) {
                Ok(lines) => {
                    for (line, what) in lines {
                        let prefix = match &what {
                            SeedLine::Accept(p) | SeedLine::Reject(p) => Some(p.clone()),
                            _ => None,
                        };
                        let at = format!("{}, line {line}: ", file.display());
                        match self.seed_line(what) {
                            Ok(None) => {
                                let warned = prefix.iter().flat_map(|p| {
                                    prefix_warnings(&format!("seeds.files[{i}]"), &at, p)
                                });
                                self.read_warnings.extend(warned);
                            }
                            Ok(Some(seed)) => {
                                seeds.push(seed);
                                places.push((format!("seeds.files[{i}]"), at));
                            }
                            Err(e) => {
                                out.push(problem(format!("seeds.files[{i}]"), format!("{at}{e}")))
                            }
                        }
                    }
                }
                Err(e) => out.push(problem(format!("seeds.files[{i}]"), e.to_string())),
            }
        }
        self.seeds.urls = seeds;
        // Kept only for the lists seed files added to, so that configs read alike compare equal.
        let now: std::collections::HashMap<String, usize> =
            self.prefix_lists().map(|(k, v)| (k, v.len())).collect();
        self.prefixes_written
            .retain(|key, written| now.get(key) != Some(written));
        // Class libraries; inline classes win over same-named library classes. Where each came from, to place
        // its warnings: (name, library file and its text, index in that file).
        let mut defs = Vec::new();
        let mut origins: Vec<ClassOrigin> = Vec::new();
        for (i, file) in self.classes.files.iter().enumerate() {
            let lib_path = base.join(file);
            match super::named_file::read_named_to_string(&lib_path) {
                Ok(text) => {
                    match UrlClasses::defs_from_toml_str(&text, &lib_path.display().to_string()) {
                        Ok(lib) => {
                            let text: Arc<str> = text.into();
                            for (j, d) in lib.into_iter().enumerate() {
                                if !self.url_classes.iter().any(|c| c.name == d.name) {
                                    origins.push((
                                        d.name.clone(),
                                        Some((lib_path.clone(), text.clone())),
                                        j,
                                    ));
                                    defs.push(d);
                                }
                            }
                        }
                        Err(e) => out.push(problem(format!("classes.files[{i}]"), e.to_string())),
                    }
                }
                Err(e) => out.push(problem(
                    format!("classes.files[{i}]"),
                    format!("cannot read {}: {e}", lib_path.display()),
                )),
            }
        }
        // Each inline class at its entry as written: the nth of its name among the file's entries, which
        // counts an entry left out for its own problem (xt47a F5); else (a class of an included file) its
        // index here.
        let written = &self.url_classes_written;
        origins.extend(self.url_classes.iter().enumerate().map(|(i, d)| {
            let nth = self.url_classes[..i]
                .iter()
                .filter(|c| c.name == d.name)
                .count();
            let at = written
                .iter()
                .enumerate()
                .filter(|(_, n)| **n == d.name)
                .nth(nth)
                .map_or(i, |(j, _)| j);
            (d.name.clone(), None, at)
        }));
        defs.append(&mut self.url_classes);
        self.url_classes = defs;
        self.classes.files.clear();
        match self.compile_classes() {
            Ok(classes) => {
                self.read_warnings
                    .extend(classes.warnings().map(|w| class_problem(w, &origins)));
                for e in classes.check_examples() {
                    out.push(
                        class_problem(&e, &origins).with_hint("fix the class or its `example`"),
                    );
                }
            }
            Err(e) => {
                // A repeated name is placed at the repeat: the second class of a name at its own table.
                let mut repeats: std::collections::HashMap<&str, usize> = Default::default();
                out.extend(e.iter().map(|e| match e {
                    trawl_url::class::ClassError::DuplicateName { class } => {
                        let n = repeats.entry(class.as_str()).or_insert(0);
                        *n += 1;
                        class_problem_at(e, &origins, *n)
                    }
                    _ => class_problem(e, &origins),
                }))
            }
        }
        absolute_prefix_files(&mut self.scope.rules, base);
        for (i, source) in self.warc.dedup_from.iter_mut().enumerate() {
            *source = base.join(&*source);
            if !source.exists() {
                out.push(
                    problem(
                        format!("warc.dedup_from[{i}]"),
                        format!("{} does not exist", source.display()),
                    )
                    .with_hint("give an earlier job's directory or a .cdxj index (`trawl warc index` writes one)"),
                );
            }
        }
        for seq in [
            &mut self.decide.before_fetch,
            &mut self.decide.after_headers,
            &mut self.decide.before_write,
        ] {
            absolute_prefix_files(seq, base);
        }
        for s in &mut self.sheets {
            absolute_prefix_files(&mut s.rules, base);
        }
        // Files the access settings name: absolute, so the job's copy finds them; checked now.
        if let Some(file) = &mut self.fetch.cookies_file {
            *file = base.join(&*file);
            let checked = super::named_file::read_named_to_string(file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))
                .and_then(|t| {
                    crate::cookies_file::parse(&t).map_err(|e| format!("{}: {e}", file.display()))
                });
            if let Err(message) = checked {
                out.push(problem("fetch.cookies_file", message));
            }
        }
        for (i, c) in self.credentials.iter_mut().enumerate() {
            if let Some(file) = &mut c.password_file {
                *file = base.join(&*file);
                if !file.is_file() {
                    out.push(problem(
                        format!("credentials[{i}].password_file"),
                        format!("{} is not a readable file", file.display()),
                    ));
                }
            }
        }
        // A path to Chromium is the config's folder's, as every path it names (a bare name is looked up on
        // PATH).
        if self.browser.executable.contains('/') {
            self.browser.executable = base
                .join(&self.browser.executable)
                .to_string_lossy()
                .into_owned();
        }
        if !self.browser.behaviors_file.is_empty() {
            let file = base.join(&self.browser.behaviors_file);
            if !file.is_file() {
                out.push(
                    problem(
                        "browser.behaviors_file",
                        format!("{} is not a readable file", file.display()),
                    )
                    .with_hint("give a JavaScript file, relative to the config's folder"),
                );
            }
            self.browser.behaviors_file = file.to_string_lossy().into_owned();
        }
        // Seeds, scope, gates, sheets.
        let mut parsed = Vec::new();
        let mut parsed_places = Vec::new();
        // Read as the crawl reads them, so a seed it refuses (`https//host/`, `ht!tp://host/`, `ftp://host/`)
        // fails the check too (xt42a: passed, or warned of as a host's name).
        for ((key, from), s) in places.iter().zip(&self.seeds.urls) {
            match trawl_url::parse_seed(s) {
                Ok(u) => {
                    parsed.push(u);
                    parsed_places.push((key, from));
                }
                Err(e) => out.push(problem(key.clone(), format!("{from}seed {s:?}: {e}"))),
            }
        }
        match Scope::from_config(&self, &parsed) {
            Ok(scope) => {
                for (seed, (key, from)) in parsed.iter().zip(&parsed_places) {
                    let uri = CrawlUri::seed(seed.clone(), seed.to_string());
                    let v = scope.decide(&uri);
                    if v.decision != Decision::Accept {
                        out.push(
                            problem(
                                (*key).clone(),
                                format!(
                                    "{from}seed {seed} is outside the scope: rule {} rejects it",
                                    v.rule
                                ),
                            )
                            .with_hint("add a `seed_accept` rule or widen the scope"),
                        );
                    }
                }
            }
            Err(e) => out.extend(e.problems),
        }
        if let Err(e) = Gates::from_config(&self, &parsed) {
            out.extend(e.problems);
        }
        let shared = Arc::new(self.clone());
        if let Err(pairs) = Sheets::from_config(&shared, &parsed, base) {
            out.extend(pairs.into_iter().map(|(k, m)| problem(k, m)));
        }
        (self, out)
    }
}

/// Why a header field may not be set through `fetch.headers`, if it may not: the fields that frame the
/// message or manage the connection, which trawl writes itself (a second `Host` or a `Content-Length` with no
/// body makes a request servers must refuse, or desynchronises a kept-alive connection), and `User-Agent`,
/// which has its own key.
fn reserved_header(name: &str) -> Option<&'static str> {
    match name.to_ascii_lowercase().as_str() {
        "host" => Some("trawl sends the URL's host"),
        "content-length" | "transfer-encoding" | "trailer" => {
            Some("it frames the message, which trawl does")
        }
        "connection" | "keep-alive" | "proxy-connection" | "te" | "upgrade" => {
            Some("it manages the connection, which trawl does")
        }
        "user-agent" => Some("set fetch.user_agent instead"),
        _ => None,
    }
}
