//! `aggressive`: urlcanon's aggressive canonicalizer, close to what Wayback matches on. Everything
//! [`super::semantic`] does, then: `https` becomes `http`; `www.`/`wwwN.` is stripped from the host; path and
//! query are lower-cased; session ids are stripped from query and path; empty query arguments and an empty
//! query are dropped.
//!
//! Deviations, for idempotence: the query is sorted again after lower-casing; `www.` is stripped repeatedly
//! (`www.www.a.org` gives `a.org`), and so is a path's closing `;jsessionid=`; an `http` port of 80 left by the
//! `https` fold is dropped.

use std::sync::LazyLock;

use regex::Regex;

use super::{ia, parts::Parts};

static QUERY_SESSION_ARG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:jsessionid=[0-9a-z$]{10,}|sessionid=[0-9a-z]{16,}|phpsessid=[0-9a-z]{16,}",
        r"|sid=[0-9a-z]{16,}|aspsessionid[a-z]{8}=[0-9a-z]{16,})$"
    ))
    .unwrap()
});
static CFID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^cfid=[0-9]+$").unwrap());
static CFTOKEN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^cftoken=[0-9a-z-]+$").unwrap());
static ASPX_PATH_SESSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"/(?:\([0-9a-z]{24}\)|\((?:[a-z]\([0-9a-z]{24}\))+\))/").unwrap());
static PATH_JSESSIONID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r";jsessionid=[0-9a-z]{32}$").unwrap());

/// Applies the aggressive rules (after the semantic ones) in place.
pub(crate) fn apply(p: &mut Parts) {
    if p.scheme == "https" {
        p.scheme = "http".to_string();
        if p.port == Some(80) {
            p.port = None;
        }
    }
    let Some(host) = p.host.as_mut() else {
        return;
    };
    super::strip_www_repeatedly(host);
    p.path.make_ascii_lowercase();
    if let Some(q) = p.query.as_mut() {
        q.make_ascii_lowercase();
        *q = strip_query_sessions(q);
    }
    if p.path.ends_with(".aspx") {
        while let Some(m) = ASPX_PATH_SESSION.find(&p.path) {
            p.path.replace_range(m.start()..m.end(), "/");
        }
    }
    // Until none is left, so that the output is canonical too (xt23b F2: a path ending in two ids kept one).
    while let Some(m) = PATH_JSESSIONID.find(&p.path) {
        p.path.truncate(m.start());
    }
    if let Some(q) = p.query.take() {
        let joined = q
            .split('&')
            .filter(|a| !a.is_empty())
            .collect::<Vec<_>>()
            .join("&");
        p.query = (!joined.is_empty()).then(|| ia::alpha_reorder(&joined));
    }
}

/// Drops query arguments that are session ids (CFID followed by CFTOKEN counts as one).
fn strip_query_sessions(q: &str) -> String {
    if !(q.contains("sid") || q.contains("sessionid") || q.contains("cfid")) {
        return q.to_string();
    }
    let args: Vec<&str> = q.split('&').collect();
    let mut kept = Vec::with_capacity(args.len());
    let mut i = 0;
    while i < args.len() {
        if QUERY_SESSION_ARG.is_match(args[i]) {
            i += 1;
        } else if CFID.is_match(args[i]) && args.get(i + 1).is_some_and(|n| CFTOKEN.is_match(n)) {
            i += 2;
        } else {
            kept.push(args[i]);
            i += 1;
        }
    }
    kept.join("&")
}

#[cfg(test)]
mod tests {
    use crate::canon::Canonicalizer;

    #[test]
    fn rows() {
        let rows = [
            ("https://www12.foo.com/", "http://foo.com/"),
            (
                "http://www.flickr.com/photos/36050182@N05/",
                "http://flickr.com/photos/36050182@n05/",
            ),
            ("https://www.chub.org:443/foo", "http://chub.org/foo"),
            (
                "http://example.com/foo?&&a=1&&&&b=2&c=3&",
                "http://example.com/foo?a=1&b=2&c=3",
            ),
            ("http://example.com/foo?&", "http://example.com/foo"),
            (
                "http://example.com/?a=1&CFID=12412453&CFTOKEN=15501799&foo=bar",
                "http://example.com/?a=1&foo=bar",
            ),
            (
                "http://example.com/something/;jsessionid=E85FAC04E331FFCA55549B10B7C7A4FA",
                "http://example.com/something/",
            ),
            (
                "http://legislature.mi.gov/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx",
                "http://legislature.mi.gov/mileg.aspx",
            ),
            ("https://foo:80/", "http://foo/"),
            ("http://www.www.a.org/", "http://a.org/"),
            (
                "http://example.com/;jsessionid=E85FAC04E331FFCA55549B10B7C7A4FA;JSESSIONID=E85FAC04E331FFCA55549B10B7C7A4FB?x",
                "http://example.com/?x",
            ),
        ];
        for (input, want) in rows {
            let url = url::Url::parse(input).unwrap();
            assert_eq!(
                Canonicalizer::Aggressive.canonicalize(&url),
                want,
                "{input}"
            );
        }
    }
}
