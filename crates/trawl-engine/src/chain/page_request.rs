//! What a rendered page's own request carries on to trawl's fetcher (docs/browser.md, "The page's request
//! fields"): the page's header fields — an API key, `Accept: application/json`, `Authorization`, `Origin` —
//! so the server answers trawl as it answers the application, and the cookies the browser sent, those its
//! scripts set with `document.cookie` among them, merged with the crawl's cookie jar.
//!
//! Fields the fetcher owns are not taken from the page: the connection's (`Host`, `Content-Length`,
//! `Connection` and the other hop-by-hop fields), trawl's identity (`User-Agent`, and the `Sec-CH-UA*` client
//! hints that would name the headless browser), `Accept-Encoding` (what trawl can decode), the conditional
//! and range fields (a capture is the whole resource, not the browser cache's 304 or a 206 slice), and any
//! field the operator's `fetch.headers` sets.

use http::{HeaderName, HeaderValue, header::COOKIE};
use url::Url;

use super::pipeline::Pipeline;

/// The fields never taken from the page, lower case.
const OWNED: &[&str] = &[
    "host",
    "content-length",
    "content-type",
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "expect",
    "user-agent",
    "accept-encoding",
    "cookie",
    "if-none-match",
    "if-modified-since",
    "if-match",
    "if-unmodified-since",
    "if-range",
    "range",
];

/// Field names taken from the page by none of their forms.
const OWNED_PREFIXES: &[&str] = &["proxy-", "sec-ch-ua"];

/// The fields and cookies of one request the page made.
#[derive(Debug, Default, Clone)]
pub(crate) struct PageRequest {
    /// The page's fields trawl sends, in the page's order.
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
    /// The cookies the browser sent (name, value), in its order.
    pub(crate) cookies: Vec<(String, String)>,
    /// Whether the jar's cookie wins over the browser's of the same name: after a login the browser's page
    /// did not see ([`PageRequest::after_login`]).
    pub(crate) jar_wins: bool,
}

impl PageRequest {
    /// Whether the browser asked for a frame's document: part of the page, shown inside it. Told by
    /// `Sec-Fetch-Dest: iframe` or `frame`; Chromium sends that field to secure and local origins only, so
    /// elsewhere by `Upgrade-Insecure-Requests: 1`, which a navigation sends and a script's fetch or a
    /// prefetch does not (review 64b R2; the page's own navigation never reaches here).
    pub(crate) fn is_frame(&self) -> bool {
        let field = |name: &str| {
            self.headers
                .iter()
                .find(|(n, _)| n.as_str() == name)
                .map(|(_, v)| v.as_bytes())
        };
        match field("sec-fetch-dest") {
            Some(dest) => matches!(dest, b"iframe" | b"frame"),
            None => field("upgrade-insecure-requests") == Some(b"1"),
        }
    }

    /// Whether a script of the page asked it (`fetch()`, `XMLHttpRequest`: `Sec-Fetch-Dest: empty`), as an
    /// application asks its API, rather than the browser for an image, a style sheet, a font or a script.
    pub(crate) fn is_script_fetch(&self) -> bool {
        self.headers
            .iter()
            .any(|(n, v)| n.as_str() == "sec-fetch-dest" && v.as_bytes() == b"empty")
    }

    /// Whether the browser fetched it ahead of need (`<link rel=prefetch>`, speculation rules): told by
    /// `Sec-Purpose` or the older `Purpose` naming `prefetch`. A site may answer a prefetch otherwise (a 204,
    /// a 403, a page trimmed down), so its capture never stands for the URL.
    pub(crate) fn is_prefetch(&self) -> bool {
        self.headers.iter().any(|(n, v)| {
            matches!(n.as_str(), "sec-purpose" | "purpose")
                && String::from_utf8_lossy(v.as_bytes())
                    .to_ascii_lowercase()
                    .contains("prefetch")
        })
    }

    /// This request as sent after a login its page's browser did not see: the jar's cookies, which hold the
    /// new session, win over the browser's of the same name (its older session would hide it: xt17a F4, the
    /// page's stale session cookie won, and the working login was given up); a cookie only the browser has (a
    /// script's CSRF or consent cookie) still goes (review 66 R5: all of them were dropped).
    pub(crate) fn after_login(&self) -> PageRequest {
        PageRequest {
            headers: self.headers.clone(),
            cookies: self.cookies.clone(),
            jar_wins: true,
        }
    }

    /// The page's request fields `headers` less those trawl owns and those the operator sets (`operator`, the
    /// names of `fetch.headers`); a field HTTP cannot carry is left out.
    pub(crate) fn new<'a>(
        headers: &[(String, String)],
        operator: impl IntoIterator<Item = &'a String> + Clone,
    ) -> PageRequest {
        let mut out = PageRequest::default();
        for (name, value) in headers {
            let lower = name.to_ascii_lowercase();
            if lower == "cookie" {
                out.cookies.extend(cookie_pairs(value));
                continue;
            }
            let operators = operator
                .clone()
                .into_iter()
                .any(|o| o.eq_ignore_ascii_case(name));
            if operators
                || OWNED.contains(&lower.as_str())
                || OWNED_PREFIXES.iter().any(|p| lower.starts_with(p))
            {
                continue;
            }
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                out.headers.push((name, value));
            }
        }
        out
    }

    /// Whether the page sent its own `Authorization`: trawl then adds none of its credentials' answers.
    pub(crate) fn authorizes(&self) -> bool {
        self.headers
            .iter()
            .any(|(name, _)| name == http::header::AUTHORIZATION)
    }

    /// The `Cookie` field of this request to `url`: the browser's cookies, then those of jar `jar` the browser
    /// did not send by name (the other way round after a login, [`PageRequest::after_login`]). A cookie of the browser the jar lacks (a script's `document.cookie`) is kept in
    /// the jar for the host's later requests, as a host-only cookie for its whole site.
    pub(crate) fn cookie_header(
        &self,
        p: &Pipeline,
        jar: &str,
        url: &Url,
    ) -> Option<(HeaderName, HeaderValue)> {
        let jars = &p.access.cookies;
        if !jars.enabled() {
            return None;
        }
        let stored = jars.values(jar, url);
        let new: Vec<String> = self
            .cookies
            .iter()
            .filter(|(name, _)| !name.is_empty() && !stored.iter().any(|(n, _)| n == name))
            .map(|(name, value)| format!("{name}={value}; Path=/"))
            .collect();
        jars.store(jar, url, new.iter().map(String::as_str));
        let value = match self.jar_wins {
            true => merged(&stored, &self.cookies)?,
            false => merged(&self.cookies, &stored)?,
        };
        Some((COOKIE, HeaderValue::from_str(&value).ok()?))
    }
}

/// The name-value pairs of a `Cookie` field (RFC 6265 §5.4: pairs split by `;`); a pair without `=` has an
/// empty name, as browsers send a nameless cookie; empty pairs are skipped. Too simple a syntax to need a
/// parser crate, and `cookie`'s drops nameless cookies.
fn cookie_pairs(value: &str) -> impl Iterator<Item = (String, String)> + '_ {
    value
        .split(';')
        .map(str::trim)
        .filter(|pair| !pair.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) => (name.trim().to_owned(), value.trim().to_owned()),
            None => (String::new(), pair.to_owned()),
        })
}

/// `first`'s cookies, then those of `second` whose names `first` lacks, as a `Cookie` value; `None` when there
/// are none.
fn merged(first: &[(String, String)], second: &[(String, String)]) -> Option<String> {
    let pairs: Vec<String> = first
        .iter()
        .chain(
            second
                .iter()
                .filter(|(name, _)| !first.iter().any(|(n, _)| n == name)),
        )
        .map(|(name, value)| match name.is_empty() {
            true => value.clone(),
            false => format!("{name}={value}"),
        })
        .collect();
    (!pairs.is_empty()).then(|| pairs.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_pages_own_fields_go_on_and_trawls_stay_its_own() {
        let page = fields(&[
            ("Host", "a.test"),
            ("User-Agent", "Mozilla/5.0 HeadlessChrome/120"),
            ("sec-ch-ua", "\"HeadlessChrome\";v=\"120\""),
            ("Accept", "application/json"),
            ("X-Api-Key", "secret-key"),
            ("Accept-Encoding", "gzip, deflate, br, zstd"),
            ("Accept-Language", "en-US"),
            ("Range", "bytes=0-"),
            ("If-None-Match", "\"x\""),
            ("Proxy-Authorization", "Basic x"),
            ("Content-Length", "3"),
            ("Cookie", "a=1; jscookie=fromjs"),
            ("Authorization", "Bearer t"),
            ("Origin", "http://a.test"),
        ]);
        let operator = ["accept-language".to_string()];
        let r = PageRequest::new(&page, &operator);
        let names: Vec<&str> = r.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["accept", "x-api-key", "authorization", "origin"]);
        assert!(r.authorizes());
        assert_eq!(
            r.cookies,
            [
                ("a".into(), "1".into()),
                ("jscookie".into(), "fromjs".into())
            ]
        );
    }

    #[test]
    fn a_field_http_cannot_carry_is_left_out() {
        let r = PageRequest::new(&fields(&[("X-Bad", "a\nb"), ("X-Ok", "1")]), &[]);
        assert_eq!(r.headers.len(), 1);
        assert!(!r.authorizes());
    }

    #[test]
    fn the_browsers_cookie_wins_and_the_jar_adds_the_rest() {
        let page: Vec<_> = cookie_pairs("theme=dark; nameless;").collect();
        let jar = fields(&[("session", "s1"), ("theme", "light")]);
        assert_eq!(
            merged(&page, &jar).as_deref(),
            Some("theme=dark; nameless; session=s1")
        );
        assert_eq!(merged(&[], &[]), None);
    }

    /// After a login the page did not see, the jar's cookie of a name wins, and the browser's own cookies
    /// still go (review 66 R5: all of them were dropped).
    #[test]
    fn after_a_login_the_jar_wins_and_the_browsers_own_cookies_stay() {
        let page = PageRequest {
            cookies: cookie_pairs("session=old; csrftoken=c1").collect(),
            ..PageRequest::default()
        };
        let after = page.after_login();
        assert!(after.jar_wins && !page.jar_wins);
        assert_eq!(after.cookies, page.cookies);
        let jar = fields(&[("session", "new")]);
        assert_eq!(
            merged(&jar, &after.cookies).as_deref(),
            Some("session=new; csrftoken=c1")
        );
    }

    proptest::proptest! {
        #[test]
        fn cookie_fields_read_back_as_written(
            pairs in proptest::collection::vec(("[a-zA-Z0-9_]{1,8}", "[a-zA-Z0-9_=./-]{0,12}"), 0..6),
        ) {
            let value = merged(&pairs, &[]).unwrap_or_default();
            let read: Vec<(String, String)> = cookie_pairs(&value).collect();
            proptest::prop_assert_eq!(read, pairs);
        }

        #[test]
        fn a_merged_field_names_each_cookie_once(
            first in proptest::collection::vec(("[a-c]", "[0-9]{1,3}"), 0..5),
            second in proptest::collection::vec(("[a-e]", "[0-9]{1,3}"), 0..5),
        ) {
            let (first, second) = (dedup(first), dedup(second));
            let value = merged(&first, &second).unwrap_or_default();
            let read: Vec<(String, String)> = cookie_pairs(&value).collect();
            for (name, value) in &first {
                proptest::prop_assert!(read.contains(&(name.clone(), value.clone())));
            }
            let mut names: Vec<&String> = read.iter().map(|(n, _)| n).collect();
            let all = names.len();
            names.sort();
            names.dedup();
            proptest::prop_assert_eq!(names.len(), all);
        }

        #[test]
        fn any_cookie_field_parses_without_panicking(value in "\\PC{0,60}") {
            let _ = cookie_pairs(&value).count();
        }
    }

    /// One pair per name (the first), as a jar or a browser sends them.
    fn dedup(pairs: Vec<(String, String)>) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for (n, v) in pairs {
            if !out.iter().any(|(m, _)| *m == n) {
                out.push((n, v));
            }
        }
        out
    }
}
