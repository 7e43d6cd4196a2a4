//! The normalized key: a lossy "perceptual hash" of a URL that groups spellings which probably name the same
//! page. It looks like a URL but is never fetched; the engine uses it to group URLs in reports and to pick the
//! best raw URL of a group ([`pick_best`]).
//!
//! Folded: the scheme (`https` is written `http`), `www.`/`wwwN.`, default ports, userinfo, the fragment, a last
//! path segment `index.*`/`default.*`, the extensions `.html .htm .shtml .php .asp .aspx .jsp .jspx .cfm`, a
//! trailing slash, repeated slashes, tracking query parameters ([`TrackingParams`]) and the order of the rest.

use std::fmt;

use url::Url;
use uuid::Uuid;

/// The namespace of trawl's normalized-key UUIDs: `Uuid::new_v5(&Uuid::NAMESPACE_URL,
/// b"https://trawl.invalid/ns/normalized-key")`, `da61329f-6017-5f00-a0e9-d1f5b9a16870` — fixed forever, since
/// the keys are stored.
pub const NORM_NAMESPACE: Uuid = Uuid::from_u128(0xda61329f_6017_5f00_a0e9_d1f5b9a16870);

/// Extensions dropped from the last path segment.
const FOLDED_EXTENSIONS: [&str; 9] = [
    ".html", ".htm", ".shtml", ".php", ".asp", ".aspx", ".jsp", ".jspx", ".cfm",
];

/// Query parameters that only track where a visitor came from. A name ending in `*` is a prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackingParams(Vec<String>);

impl TrackingParams {
    /// The default list: `utm_*`, `fbclid`, `gclid`, `dclid`, `gbraid`, `wbraid`, `msclkid`, `yclid`, `twclid`,
    /// `ttclid`, `igshid`, `mc_cid`, `mc_eid`, `_ga`, `_gl`, `_hsenc`, `_hsmi`, `mkt_tok`.
    pub fn default_names() -> Vec<String> {
        [
            "utm_*", "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid",
            "ttclid", "igshid", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok",
        ]
        .map(str::to_string)
        .to_vec()
    }

    /// A list of names (case-insensitive; a trailing `*` makes a prefix).
    pub fn new(names: impl IntoIterator<Item = impl Into<String>>) -> TrackingParams {
        TrackingParams(
            names
                .into_iter()
                .map(|n| n.into().to_ascii_lowercase())
                .collect(),
        )
    }

    /// Whether a query parameter called `name` is a tracking parameter.
    pub fn is_tracking(&self, name: &str) -> bool {
        self.0.iter().any(|p| match p.strip_suffix('*') {
            Some(prefix) => {
                name.len() >= prefix.len() && name[..prefix.len()].eq_ignore_ascii_case(prefix)
            }
            None => name.eq_ignore_ascii_case(p),
        })
    }
}

impl Default for TrackingParams {
    fn default() -> Self {
        TrackingParams::new(TrackingParams::default_names())
    }
}

/// A normalized key, as its string and as a UUIDv5 in [`NORM_NAMESPACE`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NormKey {
    key: String,
}

impl NormKey {
    /// The key as text, `http://example.com/document`.
    pub fn as_str(&self) -> &str {
        &self.key
    }

    /// The key as an opaque, stable identifier (computed on demand: it costs a SHA-1).
    pub fn uuid(&self) -> Uuid {
        Uuid::new_v5(&NORM_NAMESPACE, self.key.as_bytes())
    }
}

impl fmt::Display for NormKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key)
    }
}

/// The normalized key of `url`.
///
/// ```
/// use trawl_url::{Url, norm::{normalize, TrackingParams}};
/// let t = TrackingParams::default();
/// for u in ["https://example.com/document/index.aspx", "http://www.example.com/document.html",
///           "http://example.com/document/?utm_source=ref"] {
///     assert_eq!(normalize(&Url::parse(u).unwrap(), &t).as_str(), "http://example.com/document");
/// }
/// ```
pub fn normalize(url: &Url, tracking: &TrackingParams) -> NormKey {
    // What the canonical URL cleans away first (escapes of unreserved characters, the hex's case): a key
    // lossier than the canonical URL must not split what it merges (xt15b F12: `~`, `%7e`, `%7E`).
    NormKey {
        key: norm_string(&crate::canon::cleanup::cleanup(url), tracking),
    }
}

fn norm_string(url: &Url, tracking: &TrackingParams) -> String {
    let Some(host) = url.host_str() else {
        let mut u = url.clone();
        u.set_fragment(None);
        return u.into();
    };
    let mut out = String::with_capacity(url.as_str().len());
    match url.scheme() {
        "https" => out.push_str("http"),
        s => out.push_str(s),
    }
    out.push_str("://");
    let mut h = host.to_ascii_lowercase();
    crate::canon::strip_www_repeatedly(&mut h);
    out.push_str(&h);
    if let Some(port) = url.port().filter(|p| !matches!(p, 80 | 443)) {
        out.push(':');
        out.push_str(&port.to_string());
    }
    if url.cannot_be_a_base() {
        out.push_str(url.path());
    } else {
        out.push_str(&fold_path(url.path()));
    }
    if let Some(q) = url.query() {
        // Each argument's escapes folded on their own: the cleanup keeps a query with a stray `%` as
        // written, and a tracking argument holding one, dropped here, would leave the others unfolded
        // until the key is normalized again (a proptest found `utm_source=x%&%0a`).
        let mut args: Vec<std::borrow::Cow<'_, str>> = q
            .split('&')
            .filter(|a| !a.is_empty())
            .filter(|a| !tracking.is_tracking(a.split('=').next().unwrap_or(a)))
            .map(|a| {
                crate::canon::cleanup::recode(a).map_or(std::borrow::Cow::Borrowed(a), Into::into)
            })
            .collect();
        if !args.is_empty() {
            args.sort_unstable();
            out.push('?');
            out.push_str(&args.join("&"));
        }
    }
    out
}

/// Folds the path until nothing changes: repeated slashes, `index.*`, extensions, trailing slash.
fn fold_path(path: &str) -> String {
    let last = path.rsplit('/').next().unwrap_or(path);
    if path.len() <= 1
        || !path.ends_with('/')
            && !last.contains('.')
            && !last.eq_ignore_ascii_case("index")
            && !path.contains("//")
    {
        return path.to_string();
    }
    let mut p = path.to_string();
    while p.contains("//") {
        p = p.replace("//", "/");
    }
    loop {
        let before = p.len();
        let (dir, last) = p.rsplit_once('/').unwrap_or(("", &p));
        let stem = last.split('.').next().unwrap_or(last);
        if last.contains('.')
            && (stem.eq_ignore_ascii_case("index") || stem.eq_ignore_ascii_case("default"))
            || last.eq_ignore_ascii_case("index")
        {
            p = format!("{dir}/");
        } else if let Some(ext) = FOLDED_EXTENSIONS
            .iter()
            .find(|e| ends_with_ignore_case(last, e))
        {
            let kept = &last[..last.len() - ext.len()];
            if !is_dot_segment(kept) {
                p.truncate(p.len() - ext.len());
            }
        }
        if p.len() > 1 && p.ends_with('/') {
            p.pop();
        }
        if p.len() == before {
            return if p.is_empty() { "/".to_string() } else { p };
        }
    }
}

fn ends_with_ignore_case(s: &str, suffix: &str) -> bool {
    s.len() >= suffix.len()
        && s.as_bytes()[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// Whether a segment would read back as `.` or `..` (or nothing), which the URL parser would remove.
fn is_dot_segment(seg: &str) -> bool {
    seg.to_ascii_lowercase()
        .replace("%2e", ".")
        .bytes()
        .all(|b| b == b'.')
}

/// The best raw URL of a group that shares a normalized key: https before http, no query before a query, then
/// the shortest, then the first in byte order (so the choice does not depend on the group's order).
pub fn pick_best<'a>(group: impl IntoIterator<Item = &'a Url>) -> Option<&'a Url> {
    group.into_iter().min_by(|a, b| {
        let rank = |u: &Url| (u.scheme() != "https", u.query().is_some(), u.as_str().len());
        rank(a)
            .cmp(&rank(b))
            .then_with(|| a.as_str().cmp(b.as_str()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> String {
        normalize(&Url::parse(s).unwrap(), &TrackingParams::default()).key
    }

    #[test]
    fn namespace_is_derived_as_documented() {
        let derived = Uuid::new_v5(
            &Uuid::NAMESPACE_URL,
            b"https://trawl.invalid/ns/normalized-key",
        );
        assert_eq!(NORM_NAMESPACE, derived, "{derived}");
    }

    /// Spellings the canonical URL merges get one key (xt15b F12).
    #[test]
    fn escapes_fold_as_the_canonical_url_folds_them() {
        for group in [
            [
                "http://example.com/x/~",
                "http://example.com/x/%7e",
                "http://example.com/x/%7E",
            ],
            [
                "http://example.com/caf%c3%a9",
                "http://example.com/caf%C3%A9",
                "http://example.com/café",
            ],
        ] {
            let keys: Vec<String> = group.iter().map(|u| n(u)).collect();
            assert!(keys.windows(2).all(|w| w[0] == w[1]), "{keys:?}");
        }
    }

    #[test]
    fn folds() {
        let rows = [
            (
                "https://example.com/document/index.aspx",
                "http://example.com/document",
            ),
            (
                "http://www.example.com/document.html",
                "http://example.com/document",
            ),
            (
                "http://example.com/document/?utm_source=ref",
                "http://example.com/document",
            ),
            ("http://example.com/", "http://example.com/"),
            ("https://www.example.com/index.html", "http://example.com/"),
            (
                "http://example.com/a.html/index.htm",
                "http://example.com/a",
            ),
            (
                "http://example.com/a//b/?b=2&a=1&fbclid=x#top",
                "http://example.com/a/b?a=1&b=2",
            ),
            ("http://example.com:8080/x", "http://example.com:8080/x"),
            ("http://example.com/..html", "http://example.com/..html"),
            ("http://u:p@example.com/Doc", "http://example.com/Doc"),
        ];
        for (input, want) in rows {
            assert_eq!(n(input), want, "{input}");
        }
    }

    /// A dropped tracking argument with a stray `%` leaves the other arguments folded, as a second
    /// normalizing would fold them (the key is idempotent).
    #[test]
    fn arguments_are_folded_apart_from_a_dropped_one() {
        let t = TrackingParams::default();
        let u = Url::parse("http://a?utm_source=x%&&%0a&b=%7e").unwrap();
        let once = normalize(&u, &t);
        assert_eq!(once.as_str(), "http://a/?%0A&b=~");
        assert_eq!(normalize(&Url::parse(once.as_str()).unwrap(), &t), once);
        // An argument with a stray `%` of its own is kept as written.
        let u = Url::parse("http://a?q=5%&r=%7e").unwrap();
        assert_eq!(normalize(&u, &t).as_str(), "http://a/?q=5%&r=~");
    }

    #[test]
    fn tracking_is_configurable() {
        let t = TrackingParams::new(["ref", "src*"]);
        let u = Url::parse("http://a.org/x?ref=1&srcid=2&utm_source=3").unwrap();
        assert_eq!(normalize(&u, &t).as_str(), "http://a.org/x?utm_source=3");
    }

    #[test]
    fn picks_best() {
        let urls: Vec<Url> = [
            "http://example.com/document/?utm_source=ref",
            "http://www.example.com/document.html",
            "https://example.com/document/index.aspx",
            "https://example.com/document?x=1",
        ]
        .iter()
        .map(|s| Url::parse(s).unwrap())
        .collect();
        assert_eq!(
            pick_best(&urls).unwrap().as_str(),
            "https://example.com/document/index.aspx"
        );
    }
}
