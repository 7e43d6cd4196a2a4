//! robots.txt parsing and matching under RFC 9309, as Google's reference parser reads the RFC.
//!
//! Written here rather than taken from a crate: robots.txt is the crawler's most important promise, and the
//! crate used before (texting_robots, unmaintained) disagreed with the public conformance suites on
//! user-agent matching, line endings and non-ASCII rules. `cargo test` runs both suites
//! (testdata/robots/) against this module; proptests and `fuzz/fuzz_targets/robots.rs` cover hostile input.
//!
//! - **Lines** end at LF, CR or CRLF; a UTF-8 byte order mark (or a prefix of one) at the start is skipped; a
//!   `#` starts a comment; a line is cut at [`MAX_LINE_BYTES`]. `key: value`, or (a common mistake) `key value`
//!   when the line holds exactly two words.
//! - **Keys**, case-insensitive and matched by prefix: `user-agent` (and the typos `useragent`, `user agent`),
//!   `allow`, `disallow` (and `dissallow`, `dissalow`, `disalow`, `diasllow`, `disallaw`), `sitemap`
//!   (`site-map`), `crawl-delay`. Others are ignored.
//! - **Groups**: user-agent lines in a row open a group; its rules follow; a user-agent line after a rule
//!   opens the next group. Rules before any user-agent line belong to no group.
//! - **Which group**: a user-agent line names its product token, the leading run of `[A-Za-z_-]` of its value,
//!   compared with the crawler's token case-insensitively and whole (`FooBot` is neither `Foo` nor
//!   `FooBotBar`), as Google's parser and both conformance suites do: a crawler named with other
//!   characters (`xt3bot`) finds no group of its own (`trawl check` and `trawl crawl` warn of such a
//!   name); `*` (alone or before a space) is every crawler. All groups naming the crawler count, merged; if there is none, all `*` groups, merged; a group naming the crawler with no rules allows all.
//! - **Which rule**: patterns with `*` (any run) and a final `$` (end), matched from the path's start against
//!   the path, parameters and query; the longest matching pattern (in bytes, as normalised) wins, `allow` on
//!   a tie; no match, or an empty pattern, allows. An `allow` for `…/index.htm(l)` also allows its directory
//!   (`…/`), as Google does.
//! - **Percent-encoding** (RFC 9309 §2.2.2): patterns and paths are brought to one spelling before they are
//!   compared: an escape of an unreserved character (`A-Z a-z 0-9 - . _ ~`) is decoded (`/%7Ejoe` is
//!   `/~joe`), every other escape's hex is upper-cased (`%c3%a9` is `%C3%A9`), and reserved escapes stay
//!   encoded (`%2F` is not `/`). A pattern's bytes over 0x7F are percent-encoded too, so a rule written in
//!   UTF-8 matches the encoded path. Here trawl follows the RFC's table (`/foo/bar/%62%61%7A` matches
//!   `/foo/bar/baz`) where Google's parser and its tests do not decode.

/// Lines are cut after this many bytes (Google's limit: 8 times the longest URL Internet Explorer took).
pub const MAX_LINE_BYTES: usize = 2083 * 8 - 1;

/// A parsed robots.txt: its groups, and the sitemaps it lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RobotsTxt {
    groups: Vec<Group>,
    sitemaps: Vec<String>,
}

/// One group: the crawlers it names, and its rules.
#[derive(Debug, Clone, Default, PartialEq)]
struct Group {
    /// Product tokens, lowercase; `*` for every crawler.
    agents: Vec<String>,
    rules: Vec<Rule>,
    crawl_delay: Option<f64>,
}

/// An `allow` or `disallow` line, its pattern percent-encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    allow: bool,
    pattern: String,
}

/// What a line says.
enum Line {
    UserAgent(String),
    Rule { allow: bool, pattern: String },
    Sitemap(String),
    CrawlDelay(String),
    Other,
}

impl RobotsTxt {
    /// Parses a robots.txt body. Never fails: what cannot be read is ignored, as the RFC asks.
    pub fn parse(body: &[u8]) -> RobotsTxt {
        let mut txt = RobotsTxt::default();
        // Whether the current group has had a rule: a user-agent line then opens a new group.
        let mut rules_seen = false;
        for line in lines(body) {
            match classify(line) {
                Line::UserAgent(value) => {
                    if rules_seen || txt.groups.is_empty() {
                        txt.groups.push(Group::default());
                        rules_seen = false;
                    }
                    let agent = product_of_line(&value);
                    if let Some(group) = txt.groups.last_mut() {
                        group.agents.push(agent);
                    }
                }
                Line::Rule { allow, pattern } => {
                    if let Some(group) = txt.groups.last_mut() {
                        group.rules.push(Rule { allow, pattern });
                        rules_seen = true;
                    }
                }
                // Not a rule of the RFC, but a group's line all the same: the next user-agent line opens
                // another group.
                Line::CrawlDelay(value) => {
                    if let Some(group) = txt.groups.last_mut() {
                        group.crawl_delay = value.parse::<f64>().ok().or(group.crawl_delay);
                        rules_seen = true;
                    }
                }
                Line::Sitemap(value) if !value.is_empty() => txt.sitemaps.push(value),
                Line::Sitemap(_) | Line::Other => {}
            }
        }
        txt
    }

    /// Whether the crawler with product token `agent` may fetch `path` (path, parameters and query, as
    /// [`path_of`] takes them from a URL; already percent-encoded, in any spelling of its escapes).
    pub fn allowed(&self, agent: &str, path: &str) -> bool {
        let path = normalise_path(path);
        let path = path.as_ref();
        let (specific, global) = self.groups_for(agent);
        let groups = if specific.is_empty() {
            global
        } else {
            specific
        };
        let (mut allow, mut disallow) = (0, 0);
        for rule in groups.iter().flat_map(|g| &g.rules) {
            let priority = rule.priority(path);
            if rule.allow {
                allow = allow.max(priority);
            } else {
                disallow = disallow.max(priority);
            }
        }
        disallow <= allow
    }

    /// The `Crawl-delay` in seconds the groups for `agent` ask for (the specific groups', else the `*` ones').
    pub fn crawl_delay(&self, agent: &str) -> Option<f64> {
        let (specific, global) = self.groups_for(agent);
        let groups = if specific.is_empty() {
            global
        } else {
            specific
        };
        groups.iter().find_map(|g| g.crawl_delay)
    }

    /// The `Sitemap:` URLs, in order.
    pub fn sitemaps(&self) -> &[String] {
        &self.sitemaps
    }

    /// The groups naming `agent`, and the `*` groups.
    fn groups_for(&self, agent: &str) -> (Vec<&Group>, Vec<&Group>) {
        let mut specific = Vec::new();
        let mut global = Vec::new();
        for g in &self.groups {
            if g.agents
                .iter()
                .any(|a| a != "*" && a.eq_ignore_ascii_case(agent))
            {
                specific.push(g);
            } else if g.agents.iter().any(|a| a == "*") {
                global.push(g);
            }
        }
        (specific, global)
    }
}

impl Rule {
    /// How strongly the rule speaks for `path`: its pattern's length when it matches, else 0 (an empty pattern
    /// never counts).
    fn priority(&self, path: &str) -> usize {
        if matches(path, &self.pattern) {
            return self.pattern.len();
        }
        // An allow for `…/index.html` allows the directory itself (`…/`), but nothing below it.
        if self.allow
            && let Some(slash) = self.pattern.rfind('/')
            && self.pattern[slash..].starts_with("/index.htm")
        {
            let dir = format!("{}$", &self.pattern[..=slash]);
            if matches(path, &dir) {
                return dir.len();
            }
        }
        0
    }
}

/// The lines of a body: LF, CR and CRLF end a line; a byte order mark (or the start of one) at the very
/// start is skipped; a line is cut at [`MAX_LINE_BYTES`] and at a NUL byte.
fn lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
    let skip = body.iter().zip(BOM).take_while(|(b, m)| **b == *m).count();
    let body = &body[skip..];
    let mut rest = Some(body);
    std::iter::from_fn(move || {
        let text = rest?;
        let (line, next) = match text.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(i) => {
                let step = if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                (&text[..i], Some(&text[i + step..]))
            }
            None => (text, None),
        };
        rest = next;
        let line = &line[..line.len().min(MAX_LINE_BYTES)];
        let line = line.split(|&b| b == 0).next().unwrap_or_default();
        Some(line)
    })
}

/// What a line says: its key (by prefix, case-insensitive, common typos accepted) and its value. Works on
/// bytes: a rule's pattern keeps the bytes the file has (percent-encoded), whatever their encoding.
fn classify(line: &[u8]) -> Line {
    let line = line
        .split(|&b| b == b'#')
        .next()
        .unwrap_or_default()
        .trim_ascii();
    let Some((key, value)) = split_key_value(line) else {
        return Line::Other;
    };
    let key = key.to_ascii_lowercase();
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| key.starts_with(p.as_bytes()));
    let text = || String::from_utf8_lossy(value).into_owned();
    if starts(&["user-agent", "useragent", "user agent"]) {
        Line::UserAgent(text())
    } else if starts(&["allow"]) {
        Line::Rule {
            allow: true,
            pattern: escape_pattern(value),
        }
    } else if starts(&[
        "disallow",
        "dissallow",
        "dissalow",
        "disalow",
        "diasllow",
        "disallaw",
    ]) {
        Line::Rule {
            allow: false,
            pattern: escape_pattern(value),
        }
    } else if starts(&["sitemap", "site-map"]) {
        Line::Sitemap(text())
    } else if starts(&["crawl-delay"]) {
        Line::CrawlDelay(text())
    } else {
        Line::Other
    }
}

/// `key: value`; or, when the line has no colon and exactly two words, `key value`.
fn split_key_value(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    if let Some(colon) = line.iter().position(|&b| b == b':') {
        return Some((line[..colon].trim_ascii(), line[colon + 1..].trim_ascii()));
    }
    let gap = line.iter().position(blank)?;
    let value = &line[gap..];
    let value = &value[value.iter().position(|b| !blank(b))?..];
    if value.iter().any(blank) {
        return None;
    }
    Some((&line[..gap], value))
}

/// The product token a user-agent line names: `*`, or the leading run of `[A-Za-z_-]` of its value.
fn product_of_line(value: &str) -> String {
    if value == "*" || value.starts_with("* ") || value.starts_with("*\t") {
        return "*".to_string();
    }
    token_run(value).to_ascii_lowercase()
}

/// The leading run of `[A-Za-z_-]` of `value`: the characters RFC 9309 allows in a product token.
pub fn token_run(value: &str) -> &str {
    let end = value
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '-' || c == '_'))
        .unwrap_or(value.len());
    &value[..end]
}

/// A pattern as it is matched: bytes over 0x7F percent-encoded, escapes in one spelling ([`normalise`]).
fn escape_pattern(value: &[u8]) -> String {
    normalise(value, true)
}

/// A path as it is matched: its escapes in one spelling ([`normalise`]); borrowed when it has none.
fn normalise_path(path: &str) -> std::borrow::Cow<'_, str> {
    if path.contains('%') {
        std::borrow::Cow::Owned(normalise(path.as_bytes(), false))
    } else {
        std::borrow::Cow::Borrowed(path)
    }
}

/// The one spelling a path and a pattern are compared in (RFC 9309 §2.2.2): `%XX` of an unreserved ASCII
/// character decoded, every other escape's hex upper-cased (reserved characters keep their escapes: `%2F` is
/// not a `/`); with `encode_non_ascii`, bytes over 0x7F written `%XX` (a rule in UTF-8). Only ASCII is ever
/// replaced, so UTF-8 in stays UTF-8 out.
fn normalise(value: &[u8], encode_non_ascii: bool) -> String {
    let unreserved = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
    let hex = |b: u8| char::from(b).to_digit(16);
    let mut out = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        let b = value[i];
        let escape = if b == b'%' {
            value
                .get(i + 1)
                .zip(value.get(i + 2))
                .and_then(|(&h, &l)| Some((h, l, hex(h)? * 16 + hex(l)?)))
        } else {
            None
        };
        if let Some((h, l, code)) = escape {
            match u8::try_from(code) {
                Ok(c) if unreserved(c) => out.push(c),
                _ => out.extend([b'%', h.to_ascii_uppercase(), l.to_ascii_uppercase()]),
            }
            i += 3;
        } else if b >= 0x80 && encode_non_ascii {
            out.extend(format!("%{b:02X}").bytes());
            i += 1;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Whether `pattern` (with `*` and a final `$`) matches `path` from its start. The pattern is cut at its `*`s
/// into literal pieces (a run of `*` gives empty ones, which match anywhere): the first must start the path,
/// each later one is found leftmost after the one before, and with `$` the last must end the path. Leftmost
/// is always right for `*`-only globs, so every piece is searched once from where the last one ended: linear
/// in the path and the pattern, whatever either holds (a robots.txt of thousands of `*` costs no more than
/// their bytes; xt12a F1).
fn matches(path: &str, pattern: &str) -> bool {
    let path = path.as_bytes();
    let pattern = pattern.as_bytes();
    let (pattern, anchored) = match pattern.strip_suffix(b"$") {
        Some(rest) => (rest, true),
        None => (pattern, false),
    };
    let mut pieces = pattern.split(|&b| b == b'*');
    let first = pieces.next().unwrap_or_default();
    if !path.starts_with(first) {
        return false;
    }
    let mut at = first.len();
    let Some(mut last) = pieces.next() else {
        // No `*`: the pattern is a prefix, or with `$` the whole path.
        return !anchored || at == path.len();
    };
    for piece in pieces {
        // `last` is a middle piece: it has a piece after it.
        match memchr::memmem::find(&path[at..], last) {
            Some(i) => at += i + last.len(),
            None => return false,
        }
        last = piece;
    }
    if anchored {
        path.len() - at >= last.len() && path.ends_with(last)
    } else {
        memchr::memmem::find(&path[at..], last).is_some()
    }
}

/// The path, parameters and query of a URL written as text, as robots.txt rules match them: from the first
/// `/`, `?` or `;` after the authority to the fragment; `/` when there is none. Works on the text as given
/// (no parsing, no encoding), like Google's reference parser.
pub fn path_of(url: &str) -> String {
    let start = if url.starts_with("//") { 2 } else { 0 };
    let early = url[start..].find(['/', '?', ';']).map(|i| i + start);
    let scheme_end = url[start..].find("://").map(|i| i + start);
    let authority = match (early, scheme_end) {
        (Some(e), Some(s)) if e < s => start,
        (_, Some(s)) => s + 3,
        (_, None) => start,
    };
    let Some(path_start) = url[authority..]
        .find(['/', '?', ';'])
        .map(|i| i + authority)
    else {
        return "/".to_string();
    };
    let hash = url[start..].find('#').map(|i| i + start);
    if hash.is_some_and(|h| h < path_start) {
        return "/".to_string();
    }
    let path = &url[path_start..hash.unwrap_or(url.len())];
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/{path}")
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn allowed(body: &str, agent: &str, url: &str) -> bool {
        RobotsTxt::parse(body.as_bytes()).allowed(agent, &path_of(url))
    }

    #[test]
    fn the_crawler_is_named_by_its_whole_product_token() {
        let body = "User-agent: FooBotBar\nDisallow: /\n\nUser-agent: Foo\nDisallow: /\n";
        assert!(
            allowed(body, "FooBot", "http://a.org/x"),
            "neither longer nor shorter names are ours"
        );
        assert!(
            !allowed(body, "foobotbar", "http://a.org/x"),
            "case-insensitive"
        );
        let body = "User-agent: FooBot/1.2 (+http://foo)\nDisallow: /\n";
        assert!(
            !allowed(body, "FooBot", "http://a.org/x"),
            "the token ends at the version"
        );
    }

    /// A crawler whose name has characters a token may not (a digit, a dot) finds no group of its own: the
    /// group `xt3bot` is read as `xt`, and the crawler's whole name is compared (the conformance suites'
    /// `AB42bot` cases); it is read by the `*` groups.
    #[test]
    fn a_name_with_a_digit_finds_no_group_of_its_own() {
        let body = "User-agent: xt3bot\nDisallow: /\n\nUser-agent: *\nAllow: /\n";
        assert!(allowed(body, "xt3bot", "http://a.org/x"));
        assert!(!allowed(body, "xt", "http://a.org/x"));
        assert_eq!(token_run("xt3bot"), "xt");
        assert_eq!(token_run("archive.org_bot"), "archive");
        assert_eq!(token_run("Foo-Bar_x"), "Foo-Bar_x");
    }

    #[test]
    fn specific_groups_win_and_merge() {
        let body = "User-agent: *\nDisallow: /\n\nUser-agent: FooBot\nDisallow: /a\n\nUser-agent: x\n\
                    Allow: /\nUser-agent: FooBot\nDisallow: /b\n";
        assert!(allowed(body, "FooBot", "http://a.org/c"));
        assert!(!allowed(body, "FooBot", "http://a.org/a"));
        assert!(!allowed(body, "FooBot", "http://a.org/b"));
        assert!(!allowed(body, "BarBot", "http://a.org/c"));
        // Blank lines do not end a group: the empty `Allow:` (a rule that never counts) does.
        let empty = "User-agent: FooBot\nAllow:\n\nUser-agent: *\nDisallow: /\n";
        assert!(
            allowed(empty, "FooBot", "http://a.org/x"),
            "a group without rules allows all"
        );
    }

    #[test]
    fn longest_match_wins_and_allow_wins_ties() {
        let body = "User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /*.gif$\nAllow: /x\nDisallow: /x\n";
        assert!(!allowed(body, "t", "http://a.org/a/c"));
        assert!(allowed(body, "t", "http://a.org/a/b/c"));
        assert!(!allowed(body, "t", "http://a.org/p/q.gif"));
        assert!(allowed(body, "t", "http://a.org/p/q.gif?x"));
        assert!(allowed(body, "t", "http://a.org/x"));
    }

    #[test]
    fn line_endings_bom_and_missing_colons() {
        let body = "\u{feff}User-agent: t\rDisallow: /a\r\nUser-agent: u\nDisallow /b\n";
        let txt = RobotsTxt::parse(body.as_bytes());
        assert!(!txt.allowed("t", "/a"));
        assert!(!txt.allowed("u", "/b"));
        assert!(txt.allowed("u", "/a"));
    }

    #[test]
    fn rules_are_percent_encoded_before_matching() {
        let body = "User-agent: *\nDisallow: /ツ\n";
        assert!(!allowed(body, "t", "http://a.org/%E3%83%84"));
        assert!(!allowed(body, "t", "http://a.org/%e3%83%84"));
        assert!(
            allowed(body, "t", "http://a.org/ツ"),
            "a path is not encoded: the caller does (Google's ID_Encoding#3)"
        );
    }

    /// xt12a F2: RFC 9309 §2.2.2 compares paths and patterns with escapes of unreserved characters decoded
    /// and hex in one case; each spelling here named the same resource as its rule and was fetched.
    #[test]
    fn escapes_are_compared_in_one_spelling() {
        let body = "User-agent: *\nDisallow: /~bar\nDisallow: /%7Efoo\nDisallow: /caf%C3%A9\n\
                    Disallow: /secret\nDisallow: /a%2Fb\nAllow: /%2A\nDisallow: /x%2fy/\n";
        for url in [
            "http://h/%7ebar",
            "http://h/%7Ebar/x",
            "http://h/~foo",
            "http://h/%7efoo",
            "http://h/caf%c3%a9",
            "http://h/caf%C3%a9/x",
            "http://h/%73ecret",
            "http://h/%73%65%63%72%65%74?q",
            "http://h/a%2fb",
            "http://h/x%2Fy/z",
        ] {
            assert!(!allowed(body, "t", url), "{url} is disallowed");
        }
        for url in [
            "http://h/a/b",
            "http://h/x/y/z",
            "http://h/caf%C3%A",
            "http://h/%7",
            "http://h/%zzsecret",
        ] {
            assert!(allowed(body, "t", url), "{url} is allowed");
        }
        // A reserved escape is not the character: `%2A` is no wildcard, `%24` no anchor.
        assert!(!matches("/ab", &normalise(b"/%2Ab", true)));
        assert!(matches("/%2Ab", &normalise(b"/%2ab", true)));
        assert_eq!(normalise(b"/a%24", true), "/a%24");
        assert!(!matches("/a", &normalise(b"/a%24", true)));
        // Lengths are the normalised ones: `Disallow: /%7Ex/` (6 bytes as written, `/~x/` once read) loses to
        // `Allow: /~x/a` (5 bytes) on `/~x/a`.
        let longest = "User-agent: *\nDisallow: /%7Ex/\nAllow: /~x/a\n";
        assert!(allowed(longest, "t", "http://h/~x/a"));
        assert!(allowed(longest, "t", "http://h/%7Ex/a"));
        assert!(!allowed(longest, "t", "http://h/~x/b"));
    }

    #[test]
    fn paths_are_taken_from_the_text_of_the_url() {
        for (url, path) in [
            ("http://a.org", "/"),
            ("http://a.org/", "/"),
            ("http://a.org/a?b=c#d", "/a?b=c"),
            ("http://a.org?q", "/?q"),
            ("http://a.org;p", "/;p"),
            ("//a.org/x", "/x"),
            ("/x/y", "/x/y"),
            ("", "/"),
            ("http://a.org#f/x", "/"),
        ] {
            assert_eq!(path_of(url), path, "{url}");
        }
    }

    #[test]
    fn crawl_delay_and_sitemaps() {
        let body = "Sitemap: http://a.org/s.xml\nUser-agent: *\nCrawl-delay: 2.5\n\nUser-agent: t\nCrawl-delay: 9\n";
        let txt = RobotsTxt::parse(body.as_bytes());
        assert_eq!(txt.crawl_delay("t"), Some(9.0));
        assert_eq!(txt.crawl_delay("u"), Some(2.5));
        assert_eq!(txt.sitemaps(), ["http://a.org/s.xml"]);
    }

    /// The matcher trawl had until xt12a F1, kept as the reference the linear one is checked against: the set
    /// of path positions the pattern so far can end at, advanced one pattern byte at a time.
    fn reference_matches(path: &str, pattern: &str) -> bool {
        let path = path.as_bytes();
        let pattern = pattern.as_bytes();
        let mut positions = vec![0usize];
        for (i, &p) in pattern.iter().enumerate() {
            if p == b'$' && i + 1 == pattern.len() {
                return positions.last() == Some(&path.len());
            }
            if p == b'*' {
                let from = positions[0];
                positions = (from..=path.len()).collect();
            } else {
                positions.retain_mut(|at| {
                    let hit = path.get(*at) == Some(&p);
                    *at += 1;
                    hit
                });
                if positions.is_empty() {
                    return false;
                }
            }
        }
        true
    }

    #[test]
    fn wildcards_and_end_anchors() {
        for (path, pattern, want) in [
            ("/a/b.gif", "/*.gif$", true),
            ("/a/b.gif?x", "/*.gif$", false),
            ("/a/b.gif?x", "/*.gif", true),
            ("/x", "/x$", true),
            ("/xy", "/x$", false),
            ("/", "$", false),
            ("", "$", true),
            ("/a$b", "/a$b", true),
            ("/a$", "/a$$", true),
            ("/abcabd", "/*ab*d$", true),
            ("/abab", "/**ab**ab$", true),
            ("/ab", "/*ab*ab", false),
            ("/anything", "/***", true),
            ("/aXbXc", "/a*b*c$", true),
            ("/aXbXcX", "/a*b*c$", false),
            ("/abc", "/a*bc*$", true),
            ("/aaa", "/a*aa$", true),
            ("/aa", "/a*aa$", false),
        ] {
            assert_eq!(matches(path, pattern), want, "{pattern:?} on {path:?}");
            assert_eq!(
                reference_matches(path, pattern),
                want,
                "reference: {pattern:?} on {path:?}"
            );
        }
    }

    /// xt12a F1: 30 rules of 8,000 `*a` against an 8,000-byte path cost the old matcher some 2·10⁹ steps
    /// (0.8 s per URL in a release build, minutes in a test build), and every other host waited on it. Now it
    /// is one pass over the path per rule: this test is a regression guard by finishing at all.
    #[test]
    fn thousands_of_wildcards_are_decided_in_one_pass() {
        let rule = format!("Disallow: /{}c\n", "*a".repeat(8000));
        let body = format!("User-agent: *\n{}", rule.repeat(30));
        let txt = RobotsTxt::parse(body.as_bytes());
        // The tester's page linked 40 such URLs; four of them cost the old matcher about two minutes here.
        for n in 0..4 {
            assert!(txt.allowed("trawl", &format!("/{}b{n}", "a".repeat(8000))));
        }
        assert!(!txt.allowed("trawl", &format!("/{}c", "a".repeat(8000))));
    }

    proptest! {
        #[test]
        fn the_linear_matcher_agrees_with_the_reference(
            pattern in "[ab/*$]{0,10}",
            path in "[ab/*$]{0,12}",
        ) {
            prop_assert_eq!(matches(&path, &pattern), reference_matches(&path, &pattern), "{:?} on {:?}", pattern, path);
        }

        /// Any two spellings of one path (an unreserved character written as itself or `%xx` in either hex
        /// case; a reserved one kept as itself or kept escaped, as the two must agree on that) read the
        /// same, and a rule in one spelling decides the other.
        #[test]
        fn every_spelling_of_a_path_reads_the_same(
            chars in proptest::collection::vec(
                (proptest::sample::select(b"az09-._~/?=&:+!".to_vec()), any::<(bool, bool, bool, bool)>()),
                0..12,
            ),
        ) {
            let spell = |c: u8, escaped: bool, lower: bool| {
                if escaped {
                    let e = format!("%{c:02X}");
                    if lower { e.to_ascii_lowercase() } else { e }
                } else {
                    char::from(c).to_string()
                }
            };
            let (mut a, mut b) = (String::from("/"), String::from("/"));
            for (c, (esc_a, esc_b, low_a, low_b)) in chars {
                let reserved = !(c.is_ascii_alphanumeric() || b"-._~".contains(&c));
                a.push_str(&spell(c, esc_a, low_a));
                b.push_str(&spell(c, if reserved { esc_a } else { esc_b }, low_b));
            }
            prop_assert_eq!(normalise(a.as_bytes(), true), normalise(b.as_bytes(), true));
            prop_assert_eq!(normalise_path(&a), normalise_path(&b));
            let body = format!("User-agent: *\nDisallow: {a}$\n");
            prop_assert!(!allowed(&body, "t", &format!("http://h{b}")), "{} vs {}", a, b);
            let once = normalise(a.as_bytes(), true);
            prop_assert_eq!(normalise(once.as_bytes(), true), once.clone(), "idempotent");
        }

        #[test]
        fn any_bytes_parse_and_match_without_panicking(
            body in proptest::collection::vec(any::<u8>(), 0..600),
            path in "/[a-z*$%/?.]{0,20}",
        ) {
            let txt = RobotsTxt::parse(&body);
            let _ = txt.allowed("trawl", &path);
            let _ = txt.crawl_delay("trawl");
        }

        #[test]
        fn a_pattern_matches_itself_and_its_extensions(pattern in "/[a-z0-9/._-]{0,30}", tail in "[a-z0-9/]{0,10}") {
            prop_assert!(matches(&pattern, &pattern));
            let longer = format!("{pattern}{tail}");
            prop_assert!(matches(&longer, &pattern));
            let anchored = format!("{pattern}$");
            prop_assert_eq!(matches(&longer, &anchored), tail.is_empty());
        }

        #[test]
        fn a_wildcard_matches_what_it_stands_for(a in "/[a-z]{0,8}", mid in "[a-z/]{0,8}", b in "[a-z]{0,8}") {
            let path = format!("{a}{mid}{b}");
            let pattern = format!("{a}*{b}");
            prop_assert!(matches(&path, &pattern));
        }
    }
}
