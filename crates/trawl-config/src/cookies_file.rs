//! Cookies users export from a browser: the Netscape `cookies.txt` format (curl, wget, yt-dlp and browser
//! add-ons write it) and the JSON array browser add-ons export (`[{ "domain", "path", "name", "value",
//! "secure", "expirationDate" … }]`). No maintained crate reads cookies.txt (it is seven tab-separated
//! fields), so it is read here; each entry becomes a `cookie` crate cookie with the URL it belongs to, and the
//! fetcher's jar applies RFC 6265 to it like any received cookie. `trawl check` reads the file with [`parse`]
//! too, so a bad line is found before the crawl starts.

use cookie::Cookie;
use serde::Deserialize;
use url::Url;

/// A cookie and the URL it is stored as if received from.
pub type Entry = (Cookie<'static>, Url);

/// A line or entry of a cookies file that is not a cookie.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {message}")]
pub struct CookiesFileError {
    /// Where: `line N`, `entry N` or `JSON`.
    pub at: String,
    /// What is wrong with it.
    pub message: String,
}

/// Reads a cookies file (cookies.txt or a JSON export); the first bad line or entry is the error.
pub fn parse(text: &str) -> Result<Vec<Entry>, CookiesFileError> {
    if text.trim_start().starts_with('[') {
        json(text)
    } else {
        netscape(text)
    }
}

/// One cookie's fields, as both formats give them.
struct Fields<'a> {
    domain: &'a str,
    /// Whether subdomains get it too (a domain cookie).
    subdomains: bool,
    path: &'a str,
    secure: bool,
    http_only: bool,
    /// Seconds since the epoch; `None`: a session cookie.
    expires: Option<i64>,
    name: &'a str,
    value: &'a str,
}

fn netscape(text: &str) -> Result<Vec<Entry>, CookiesFileError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bad = |message: String| CookiesFileError {
            at: format!("line {}", i + 1),
            message,
        };
        // `#HttpOnly_` marks an HttpOnly cookie (curl's form); other `#` lines are comments.
        let (line, http_only) = match line.strip_prefix("#HttpOnly_") {
            Some(rest) => (rest, true),
            None => (line, false),
        };
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.trim_end_matches('\r').split('\t').collect();
        if f.len() != 7 {
            return Err(bad(format!(
                "{} fields, want 7 tab-separated: domain, subdomains, path, secure, expiry, name, value",
                f.len()
            )));
        }
        let flag = |s: &str| s.eq_ignore_ascii_case("TRUE");
        let expires: i64 = f[4]
            .parse()
            .map_err(|_| bad(format!("expiry {:?} is not a number of seconds", f[4])))?;
        out.push(
            entry(Fields {
                domain: f[0],
                subdomains: flag(f[1]),
                path: f[2],
                secure: flag(f[3]),
                http_only,
                expires: (expires > 0).then_some(expires),
                name: f[5],
                value: f[6],
            })
            .map_err(|e| bad(e.message))?,
        );
    }
    Ok(out)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonCookie {
    domain: String,
    #[serde(default = "root")]
    path: String,
    name: String,
    value: String,
    #[serde(default)]
    secure: bool,
    #[serde(default)]
    http_only: bool,
    #[serde(default)]
    host_only: bool,
    expiration_date: Option<f64>,
}

fn root() -> String {
    "/".into()
}

fn json(text: &str) -> Result<Vec<Entry>, CookiesFileError> {
    let cookies: Vec<JsonCookie> = serde_json::from_str(text).map_err(|e| CookiesFileError {
        at: "JSON".to_string(),
        message: e.to_string(),
    })?;
    cookies
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            entry(Fields {
                domain: &c.domain,
                subdomains: !c.host_only,
                path: &c.path,
                secure: c.secure,
                http_only: c.http_only,
                expires: c.expiration_date.map(|t| t as i64),
                name: &c.name,
                value: &c.value,
            })
            .map_err(|e| CookiesFileError {
                at: format!("entry {}", i + 1),
                ..e
            })
        })
        .collect()
}

/// The cookie of `f`; `Err` says what is wrong with it, `at` left for the caller to say.
fn entry(f: Fields<'_>) -> Result<Entry, CookiesFileError> {
    let Fields {
        domain,
        subdomains,
        path,
        secure,
        http_only,
        expires,
        name,
        value,
    } = f;
    let bad = |message: String| CookiesFileError {
        at: String::new(),
        message,
    };
    let host = domain.trim_start_matches('.');
    if host.is_empty() || name.is_empty() {
        return Err(bad("a cookie needs a domain and a name".into()));
    }
    let scheme = if secure { "https" } else { "http" };
    let url = Url::parse(&format!("{scheme}://{host}{path}")).map_err(|e| {
        bad(format!(
            "domain {domain:?} and path {path:?} make no URL: {e}"
        ))
    })?;
    let mut c = Cookie::build((name.to_string(), value.to_string()))
        .path(path.to_string())
        .secure(secure)
        .http_only(http_only)
        .build();
    // A leading dot or the subdomain flag: a domain cookie; else host-only (no Domain attribute).
    if subdomains || domain.starts_with('.') {
        c.set_domain(host.to_string());
    }
    if let Some(t) = expires {
        let at = time::OffsetDateTime::from_unix_timestamp(t)
            .map_err(|_| bad(format!("expiry {t} is out of range")))?;
        c.set_expires(at);
    }
    Ok((c, url))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn netscape_and_json_exports() {
        let txt = "# Netscape HTTP Cookie File\n\
                   .a.org\tTRUE\t/\tFALSE\t4102444800\tsid\tabc\n\
                   #HttpOnly_b.org\tFALSE\t/x\tTRUE\t0\ttok\tv=1\n\n";
        let got = parse(txt).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].0.name(), got[0].0.domain()), ("sid", Some("a.org")));
        assert_eq!(got[1].1.as_str(), "https://b.org/x");
        assert_eq!(got[1].0.http_only(), Some(true));
        assert_eq!(got[1].0.domain(), None, "host-only");
        let json = r#"[{"domain":".a.org","path":"/","name":"n","value":"v","secure":false,
                        "hostOnly":false,"expirationDate":4102444800.5}]"#;
        let got = parse(json).unwrap();
        assert_eq!((got[0].0.name(), got[0].0.value()), ("n", "v"));
        let err = parse("a.org\tTRUE\t/\n").unwrap_err();
        assert_eq!(err.at, "line 1");
        assert!(
            parse("a.org\tTRUE\t/\tFALSE\tsoon\tn\tv\n")
                .unwrap_err()
                .message
                .contains("soon")
        );
        assert!(parse("[{\"name\": 1}]").is_err());
    }

    proptest! {
        #[test]
        fn never_panics(text in "[ -~\t\n#]{0,300}") {
            let _ = parse(&text);
        }
    }
}
