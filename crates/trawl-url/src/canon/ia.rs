//! `ia`: what IA's `surt` package does to a URL before writing its SURT — Google's rules ([`super::google`]),
//! then IAURLCanonicalizer: lower-case host, path and query; strip `www`/`wwwN` (the "host massage", optional);
//! drop userinfo, default port and fragment; strip session ids from path and query; drop a trailing slash unless
//! the path is `/`; sort the query's `key=value` pairs; drop an empty query.
//!
//! Deviations, for idempotence: `www.` is stripped repeatedly (`www.www.a.org` gives `a.org`), and so are
//! query session ids are stripped argument by argument (see [`strip_query_session_ids`]).

use std::{cmp::Ordering, sync::LazyLock};

use regex::Regex;

use super::parts::Parts;

/// ASP.NET cookieless session ids in the path: `/(S(xxxxxxxxxxxxxxxxxxxxxxxx))/page.aspx` and
/// `/(xxxxxxxxxxxxxxxxxxxxxxxx)/page.aspx`.
static PATH_SESSION_IDS: LazyLock<[Regex; 2]> = LazyLock::new(|| {
    [
        Regex::new(r"(?i)^(.*/)\((?:[a-z]\([0-9a-z]{24}\))+\)/([^?]+\.aspx.*)$").unwrap(),
        Regex::new(r"(?i)^(.*/)\([0-9a-z]{24}\)/([^?]+\.aspx.*)$").unwrap(),
    ]
});

/// A query argument that ends in a session id (IA's patterns, tried earliest-first); the prefix is kept.
static QUERY_SESSION_ARG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)^(.*?)(?:jsessionid=[0-9a-z]{32}|phpsessid=[0-9a-z]{32}|sid=[0-9a-z]{32}",
        r"|aspsessionid[a-z]{8}=[a-z]{24})$"
    ))
    .unwrap()
});
/// ColdFusion's pair, `CFID=...&CFTOKEN=...`, as two arguments.
static CFID_ARG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)^(.*?)cfid=.+$").unwrap());
static CFTOKEN_ARG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)^cftoken=.+$").unwrap());

/// Applies IA's rules (after Google's) in place; `host_massage` strips a leading `www.`/`wwwN.`.
pub(crate) fn apply(p: &mut Parts, host_massage: bool) {
    p.fragment = None;
    let Some(host) = p.host.as_mut() else {
        return;
    };
    host.make_ascii_lowercase();
    if host_massage {
        super::strip_www_repeatedly(host);
    }
    p.username.clear();
    p.password = None;
    if p.port.is_some() && p.port == p.default_port() {
        p.port = None;
    }
    p.path.make_ascii_lowercase();
    p.path = strip_path_session_id(&p.path);
    if p.path.len() > 1 && p.path.ends_with('/') {
        p.path.pop();
    }
    p.query = match p.query.take() {
        Some(q) if !q.is_empty() => {
            let mut q = strip_query_session_ids(&q);
            q.make_ascii_lowercase();
            let q = alpha_reorder(&q);
            (!q.is_empty()).then_some(q)
        }
        _ => None,
    };
}

fn strip_path_session_id(path: &str) -> String {
    if !path.contains('(') {
        return path.to_string();
    }
    let mut path = path.to_string();
    for re in PATH_SESSION_IDS.iter() {
        if let Some(c) = re.captures(&path) {
            path = format!("{}{}", &c[1], &c[2]);
        }
    }
    path
}

/// Strips session ids from the query (IA's `stripQuerySessionID`), argument by argument: an argument ending in
/// a session id keeps what came before the id, and is dropped when nothing did.
///
/// IA matches its patterns against the whole query, once each, so the result depends on the order of the
/// arguments (a last-argument id leaves a `&` behind); this version is order-independent, which keeps the
/// canonicalizer idempotent and the SURT of a query-sorted URL equal to the SURT of the URL.
pub(crate) fn strip_query_session_ids(query: &str) -> String {
    let lower = query.to_ascii_lowercase();
    if !(lower.contains("sid") || lower.contains("sessionid") || lower.contains("cfid")) {
        return query.to_string();
    }
    let args: Vec<&str> = query.split('&').collect();
    let mut kept: Vec<&str> = Vec::with_capacity(args.len());
    let mut i = 0;
    while i < args.len() {
        let arg = args[i];
        if QUERY_SESSION_ARG.is_match(arg) {
            let mut prefix = arg;
            while let Some(c) = QUERY_SESSION_ARG.captures(prefix) {
                prefix = c.get(1).map_or("", |m| m.as_str());
            }
            if !prefix.is_empty() {
                kept.push(prefix);
            }
            i += 1;
        } else if let Some(c) = CFID_ARG.captures(arg)
            && args.get(i + 1).is_some_and(|n| CFTOKEN_ARG.is_match(n))
        {
            let prefix = c.get(1).map_or("", |m| m.as_str());
            if !prefix.is_empty() {
                kept.push(prefix);
            }
            i += 2;
        } else {
            kept.push(arg);
            i += 1;
        }
    }
    kept.join("&")
}

/// Sorts the `&`-separated arguments by key, then value, with a bare key before `key=` (IA's
/// `alphaReorderQuery`).
pub(crate) fn alpha_reorder(query: &str) -> String {
    if query.len() <= 1 || !query.contains('&') {
        return query.to_string();
    }
    let mut args: Vec<(&str, Option<&str>)> = query
        .split('&')
        .map(|a| match a.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (a, None),
        })
        .collect();
    args.sort_by(|a, b| match a.0.as_bytes().cmp(b.0.as_bytes()) {
        Ordering::Equal => a.1.map(str::as_bytes).cmp(&b.1.map(str::as_bytes)),
        o => o,
    });
    let mut out = String::with_capacity(query.len());
    for (i, (k, v)) in args.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(k);
        if let Some(v) = v {
            out.push('=');
            out.push_str(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canon::Canonicalizer;

    #[test]
    fn reorders() {
        // Rows from IAURLCanonicalizerTest's alphaReorderQuery.
        let rows = [
            ("", ""),
            ("a", "a"),
            ("ab=1", "ab=1"),
            ("a=1&", "&a=1"),
            ("b=1&a=1", "a=1&b=1"),
            ("a=b&a=a", "a=a&a=b"),
            ("b=b&a=b&b=a&a=a", "a=a&a=b&b=a&b=b"),
            ("a=2&b&a=1", "a=1&a=2&b"),
        ];
        for (input, want) in rows {
            assert_eq!(alpha_reorder(input), want, "{input:?}");
        }
    }

    #[test]
    fn session_ids() {
        let id = "0123456789abcdefghijklemopqrstuv";
        let rows = [
            (format!("jsessionid={id}"), String::new()),
            (format!("jsessionid={id}0"), format!("jsessionid={id}0")),
            (
                format!("one=two&jsessionid={id}&x=y"),
                "one=two&x=y".to_string(),
            ),
            (format!("one=two&phpsessid={id}"), "one=two".to_string()),
            (
                "CFID=1169580&CFTOKEN=48630702&dtstamp=22%2F08".to_string(),
                "dtstamp=22%2F08".to_string(),
            ),
        ];
        for (input, want) in rows {
            assert_eq!(strip_query_session_ids(&input), want, "{input}");
        }
        assert_eq!(
            strip_path_session_id(
                "/(a(4hqa0555fwsecu455xqckv45)s(4hqa0555fwsecu455xqckv45))/mileg.aspx?p=1"
            ),
            "/mileg.aspx?p=1"
        );
        assert_eq!(
            strip_path_session_id("/photos/36050182@n05/"),
            "/photos/36050182@n05/"
        );
    }

    #[test]
    fn rows() {
        let rows = [
            ("http://ARCHIVE.ORG/", "http://archive.org/"),
            ("http://www.archive.org:80/", "http://archive.org/"),
            ("https://www.archive.org:80/", "https://archive.org:80/"),
            ("http://www.archive.org:443/", "http://archive.org:443/"),
            ("http://www.archive.org/big/", "http://archive.org/big"),
            (
                "http://www34.archive.org/index.html?b=a&b=b&a=b",
                "http://archive.org/index.html?a=b&b=a&b=b",
            ),
            ("dns:www.archive.org", "dns:www.archive.org"),
        ];
        for (input, want) in rows {
            let url = url::Url::parse(input).unwrap();
            assert_eq!(Canonicalizer::Ia.canonicalize(&url), want, "{input}");
        }
    }
}
