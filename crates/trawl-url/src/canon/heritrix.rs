//! Heritrix's default canonicalization rules, applied to the URL string in the order Heritrix applies them,
//! and the optional extra rules Heritrix ships (strip `www` always, strip extra slashes, regex rewrites).
//!
//! Deviations, for idempotence: `www.` is stripped repeatedly (`www.www.a.org/x` gives `a.org/x`) but never
//! when it is the whole host (Heritrix turns `http://www./x` into `http:///x`, which has no host), and every
//! `&` after the `?` is dropped, not just the first.

use std::sync::LazyLock;

use regex::Regex;

use crate::Rewrite;

/// `scheme://userinfo@` — userinfo is dropped.
static USERINFO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([a-z][a-z0-9+.-]*://)[^/?#@]*@").unwrap());

/// `http(s)://wwwN.` followed by a host (not empty, not just a port) and something after the first slash.
static WWWN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(https?://)www[0-9]*\.([^/:][^/]*/.+)$").unwrap());

/// Session ids Heritrix strips: jsessionid, phpsessid, aspsessionid, sid (32 hex digits), CFID/CFTOKEN.
/// The URL is lowercased first, so the patterns are lowercase.
static SESSION_IDS: LazyLock<[Regex; 5]> = LazyLock::new(|| {
    [
        Regex::new(r"(?:^|[;&?])(jsessionid=[0-9a-z$]{32,}(?:![0-9-]+)*)(?:&|$)").unwrap(),
        Regex::new(r"(?:^|[&?])(phpsessid=[0-9a-z]{32})(?:&|$)").unwrap(),
        Regex::new(r"(?:^|[&?])(sid=[0-9a-z]{32})(?:&|$)").unwrap(),
        Regex::new(r"(?:^|[&?])(aspsessionid[a-z]{8}=[a-z]{24})(?:&|$)").unwrap(),
        Regex::new(r"(?:^|[&?])(cfid=[0-9]+&cftoken=[0-9a-z-]+)(?:&|$)").unwrap(),
    ]
});

/// `http(s)://wwwN.` at the start, whatever follows but for the end of the host.
static WWWN_ALWAYS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(https?://)www[0-9]*\.([^/:])").unwrap());

/// Heritrix's optional rules, off by default, applied after the default ones in this order.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HeritrixRules {
    /// Strip `www`/`wwwN` even on slash-only pages (`http://www.a.org/` gives `http://a.org/`). Default: false.
    pub strip_www_always: bool,
    /// Collapse repeated slashes in the path (`/a//b` gives `/a/b`). Default: false.
    pub strip_extra_slashes: bool,
    /// Regex rules: when a pattern matches the whole (canonicalized) URL, it is replaced. Default: none.
    pub regex_rules: Vec<Rewrite>,
}

impl HeritrixRules {
    /// No extra rules: Heritrix's defaults only.
    pub const DEFAULT: HeritrixRules = HeritrixRules {
        strip_www_always: false,
        strip_extra_slashes: false,
        regex_rules: Vec::new(),
    };

    /// Canonicalizes `url` under the default rules plus these extra ones.
    pub fn canonicalize(&self, url: &url::Url) -> String {
        canonicalize(url.as_str(), self)
    }
}

/// Applies the rules to an already parsed (hence normalised, fragment-free) URL string.
pub(super) fn canonicalize(url: &str, extra: &HeritrixRules) -> String {
    // Heritrix's UURI never carries the fragment.
    let url = url.split_once('#').map_or(url, |(u, _)| u);
    let mut s = if url.is_ascii() {
        url.to_ascii_lowercase()
    } else {
        url.to_lowercase()
    };
    if s.contains('@') {
        s = USERINFO.replace(&s, "$1").into_owned();
    }
    while s.contains("://www") && WWWN.is_match(&s) {
        s = WWWN.replace(&s, "$1$2").into_owned();
    }
    // Stripping an id can expose another (or a `?`/`&` the fixup removes), so repeat until stable.
    loop {
        let before = s.len();
        if s.contains("sid") || s.contains("sessionid") || s.contains("cfid") {
            strip_session_ids(&mut s);
        }
        s = fixup_query(s);
        if s.len() == before {
            break;
        }
    }
    if extra.strip_www_always {
        while WWWN_ALWAYS.is_match(&s) {
            s = WWWN_ALWAYS.replace(&s, "$1$2").into_owned();
        }
    }
    if extra.strip_extra_slashes {
        s = strip_extra_slashes(&s);
    }
    for rule in &extra.regex_rules {
        if let Some(out) = rule.apply_full(&s) {
            s = out;
        }
    }
    s
}

fn strip_session_ids(s: &mut String) {
    for re in SESSION_IDS.iter() {
        while let Some(m) = re.captures(s).and_then(|c| c.get(1)) {
            let (start, mut end) = (m.start(), m.end());
            if s[end..].starts_with('&') {
                end += 1;
            }
            s.replace_range(start..end, "");
        }
    }
}

/// Collapses runs of `/` in the path (after `scheme://host`, before `?`).
fn strip_extra_slashes(s: &str) -> String {
    let start = s.find("://").map_or(0, |i| i + 3);
    let path_start = s[start..].find('/').map_or(s.len(), |i| start + i);
    let end = s[path_start..]
        .find('?')
        .map_or(s.len(), |i| path_start + i);
    let mut out = String::with_capacity(s.len());
    out.push_str(&s[..path_start]);
    for c in s[path_start..end].chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    out.push_str(&s[end..]);
    out
}

/// Heritrix's FixupQueryString: `?&` becomes `?`, and a trailing `?` or `&` is dropped.
///
/// Heritrix removes one `&` after the `?`; this removes all of them so that the rule is idempotent, and it
/// leaves a `&` at the end of a path (no `?`) alone.
fn fixup_query(mut s: String) -> String {
    let Some(q) = s.find('?') else {
        return s;
    };
    let amps = s[q + 1..].bytes().take_while(|&b| b == b'&').count();
    s.replace_range(q + 1..q + 1 + amps, "");
    while s.len() > q && (s.ends_with('&') || s.ends_with('?')) {
        s.pop();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{HeritrixRules, canonicalize as canon_with};

    fn canonicalize(s: &str) -> String {
        canon_with(s, &HeritrixRules::DEFAULT)
    }

    #[test]
    fn extra_rules() {
        let extra = HeritrixRules {
            strip_www_always: true,
            strip_extra_slashes: true,
            regex_rules: vec![
                crate::Rewrite::new(r"^(http://a\.org/)old/(.*)$", "${1}new/$2").unwrap(),
            ],
        };
        let rows = [
            ("http://www.a.org/", "http://a.org/"),
            ("http://b.org//x///y?q=//", "http://b.org/x/y?q=//"),
            ("http://a.org/old/p", "http://a.org/new/p"),
            ("http://www./x", "http://www./x"),
            ("http://www.:8080/x", "http://www.:8080/x"),
        ];
        for (input, want) in rows {
            assert_eq!(canon_with(input, &extra), want, "{input}");
        }
    }

    #[test]
    fn rules_in_order() {
        let rows = [
            ("http://WWW.Example.COM/A", "http://example.com/a"),
            ("http://www.example.com/", "http://www.example.com/"),
            ("http://www3.example.com/x", "http://example.com/x"),
            ("http://www.www.example.com/x", "http://example.com/x"),
            ("http://www./x", "http://www./x"),
            ("http://www.www./x", "http://www./x"),
            ("http://www.:8080/x", "http://www.:8080/x"),
            (
                "http://a.org/x?sid=0123456789abcdef0123456789abcdef#f",
                "http://a.org/x",
            ),
            ("http://user:pw@example.com/x", "http://example.com/x"),
            ("http://a.org/x?", "http://a.org/x"),
            ("http://a.org/x?&a=1", "http://a.org/x?a=1"),
            ("http://a.org/x?a=1&", "http://a.org/x?a=1"),
            (
                "http://a.org/x?jsessionid=0123456789abcdef0123456789abcdef&a=1",
                "http://a.org/x?a=1",
            ),
            (
                "http://a.org/x?a=1&phpsessid=0123456789abcdef0123456789abcdef",
                "http://a.org/x?a=1",
            ),
            (
                "http://a.org/x?sid=0123456789abcdef0123456789abcdef",
                "http://a.org/x",
            ),
            (
                "http://a.org/x?cfid=123&cftoken=abc-1&b=2",
                "http://a.org/x?b=2",
            ),
            (
                "http://a.org/x?aspsessionidabcdefgh=abcdefghijklmnopqrstuvwx",
                "http://a.org/x",
            ),
        ];
        for (input, want) in rows {
            assert_eq!(canonicalize(input), want, "{input}");
        }
    }

    proptest::proptest! {
        #[test]
        fn idempotent(s in "http://(www[0-9]?\\.)?[a-z]{1,5}\\.org/[a-z?&=;]{0,12}") {
            let once = canonicalize(&s);
            proptest::prop_assert_eq!(canonicalize(&once), once);
        }
    }
}
