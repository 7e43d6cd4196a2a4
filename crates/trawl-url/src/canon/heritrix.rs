//! Heritrix's default canonicalization rules, applied to the URL string in the order Heritrix applies them.

use std::sync::LazyLock;

use regex::Regex;

/// `scheme://userinfo@` — userinfo is dropped.
static USERINFO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([a-z][a-z0-9+.-]*://)[^/?#@]*@").unwrap());

/// `http(s)://wwwN.` followed by a host and something after the first slash.
static WWWN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(https?://)www[0-9]*\.([^/]*/.+)$").unwrap());

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

/// Applies the rules to an already parsed (hence normalised, fragment-free) URL string.
pub(super) fn canonicalize(url: &str) -> String {
    let mut s = url.to_lowercase();
    s = USERINFO.replace(&s, "$1").into_owned();
    s = WWWN.replace(&s, "$1$2").into_owned();
    for re in SESSION_IDS.iter() {
        while let Some(m) = re.captures(&s).and_then(|c| c.get(1)) {
            let (start, mut end) = (m.start(), m.end());
            if s[end..].starts_with('&') {
                end += 1;
            }
            s.replace_range(start..end, "");
        }
    }
    fixup_query(s)
}

/// Heritrix's FixupQueryString: `?&` becomes `?`, and a trailing `?` or `&` is dropped.
///
/// Heritrix removes one `&` after the `?`; this removes all of them so that the rule is idempotent.
fn fixup_query(mut s: String) -> String {
    if let Some(q) = s.find('?') {
        let amps = s[q + 1..].bytes().take_while(|&b| b == b'&').count();
        s.replace_range(q + 1..q + 1 + amps, "");
    }
    while s.ends_with('&') || s.ends_with('?') {
        s.pop();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::canonicalize;

    #[test]
    fn rules_in_order() {
        let rows = [
            ("http://WWW.Example.COM/A", "http://example.com/a"),
            ("http://www.example.com/", "http://www.example.com/"),
            ("http://www3.example.com/x", "http://example.com/x"),
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
