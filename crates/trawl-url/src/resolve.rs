//! Raw URLs: an href resolved against its document's base, as browsers do.

use std::{borrow::Cow, fmt::Write};

use url::Url;

use crate::Error;

/// Resolves `href` against `base` with WHATWG rules and drops the fragment, which never reaches the server.
///
/// Leading and trailing ASCII whitespace is ignored, as browsers do.
pub fn resolve(base: &Url, href: &str) -> Result<Url, Error> {
    let href = href.trim_matches(|c: char| c.is_ascii_whitespace());
    let mut url = base.join(href).map_err(|reason| Error::InvalidUrl {
        input: href.to_string(),
        reason,
    })?;
    url.set_fragment(None);
    Ok(url)
}

/// Resolves `href` given as a header's raw bytes (a `Location`), as [`resolve`] once they are text (see
/// [`href_text`]).
pub fn resolve_bytes(base: &Url, href: &[u8]) -> Result<Url, Error> {
    resolve(base, &href_text(href))
}

/// A header's raw bytes as URL text: valid UTF-8 as it is (the URL parser percent-encodes it as UTF-8),
/// otherwise every byte >= 0x80 as `%XX`, so a latin-1 `é` stays the server's byte (`%E9`) rather than being
/// lost. ASCII is left to the URL parser, which treats controls as a browser does (tabs and newlines dropped,
/// the others percent-encoded).
pub fn href_text(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + 16);
    for &b in bytes {
        if b.is_ascii() {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    Cow::Owned(out)
}

/// Parses a seed given by an operator: an absolute http(s) URL, or a bare host such as `example.com/path`, which
/// is read as `http://example.com/path`.
pub fn parse_seed(input: &str) -> Result<Url, Error> {
    let text = input.trim();
    // `http//host/` or `https:/host/` is a slip, not a host named `http` (xt13a F12).
    let lower = text.to_ascii_lowercase();
    for scheme in ["https", "http"] {
        if let Some(rest) = lower.strip_prefix(scheme)
            && !rest.starts_with("://")
            && (rest.starts_with("//") || rest.starts_with(":/") || rest.starts_with('/'))
        {
            return Err(Error::MisspeltScheme {
                input: input.to_string(),
                scheme: scheme.to_string(),
            });
        }
    }
    // Text before `://` that cannot be a scheme (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`) is a
    // slip too, not a host with an empty port.
    if let Some((found, _)) = text.split_once("://")
        && !found.contains(['/', '?', '#'])
        && !(found.starts_with(|c: char| c.is_ascii_alphabetic())
            && found
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    {
        return Err(Error::NotAScheme {
            input: input.to_string(),
            found: found.to_string(),
        });
    }
    let parsed = match Url::parse(text) {
        Ok(url) if is_host_and_port(&url) => Url::parse(&format!("http://{text}")),
        Ok(url) => Ok(url),
        Err(url::ParseError::RelativeUrlWithoutBase) => Url::parse(&format!("http://{text}")),
        Err(e) => Err(e),
    };
    let mut url = parsed.map_err(|reason| Error::InvalidUrl {
        input: input.to_string(),
        reason,
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(Error::UnsupportedScheme {
            input: input.to_string(),
            scheme: url.scheme().to_string(),
        });
    }
    url.set_fragment(None);
    Ok(url)
}

/// Parses a seed an operator gives now (the command line, `add-seeds`, the web API) as [`parse_seed`] does,
/// refusing a bare word ([`is_bare_word`]): `add-seeds pause` is a slip, not the host `pause` (xt23a F3: it
/// was queued and looked up in the DNS). Seeds a config or a job already holds are read with [`parse_seed`],
/// so a job keeps resuming as it did (review 71 R1).
pub fn parse_typed_seed(input: &str) -> Result<Url, Error> {
    let text = input.trim();
    // Text that names a scheme (`javascript:alert(1)`) is said as such by `parse_seed` (xt37a F11).
    if is_bare_word(text) && Url::parse(text).is_err() {
        let meant = format!("http://{}", text.trim_start_matches('/'));
        // A hint only where the word could be a host's one name: `not a url` or `ht!tp:/bad` is none.
        let name = text
            .trim_start_matches('/')
            .split(['/', '?', '#'])
            .next()
            .unwrap_or_default();
        let a_name = Url::parse(&meant).is_ok()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        return Err(match a_name {
            true => Error::BareWord {
                input: text.to_string(),
                meant,
            },
            false => Error::NotASeed {
                input: text.to_string(),
            },
        });
    }
    parse_seed(input)
}

/// Whether seed text names its host without a scheme, a dot or a port, and is not `localhost` or an address
/// (`pause`, `bad_url`, `5000`, `intranet/docs`): read as a host, it would be looked up in the DNS as one.
/// Judged on the text as typed, before parsing (`5000` parses as the address 0.0.19.136).
pub fn is_bare_word(text: &str) -> bool {
    let text = text.trim();
    if text.contains("://") {
        return false;
    }
    let authority = text
        .trim_start_matches('/')
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let has_port = host
        .rsplit_once(':')
        .is_some_and(|(_, p)| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    !host.is_empty()
        && !has_port
        && !host.starts_with('[')
        && !host.contains('.')
        && !host.eq_ignore_ascii_case("localhost")
}

/// Parses any absolute URL as the identity tools take it: surrounding whitespace is ignored, the fragment is
/// kept, and text without a scheme (`www.example.com/a`) is read as `http://` + text. Any scheme is accepted.
pub fn parse_lenient(input: &str) -> Result<Url, Error> {
    let text = input.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_control());
    let parsed = match Url::parse(text) {
        Err(url::ParseError::RelativeUrlWithoutBase) => Url::parse(&format!("http://{text}")),
        Ok(url) if is_host_and_port(&url) => Url::parse(&format!("http://{text}")),
        other => other,
    };
    parsed.map_err(|reason| Error::InvalidUrl {
        input: input.to_string(),
        reason,
    })
}

/// Whether `text`, parsed as `url`, is a host and port written without a scheme (`example.org:8080/x`,
/// `localhost:8601`, `intranet:8080/docs/`), which parses as the scheme `example.org`: its "path" is the port's
/// digits, up to a `/` (xt15b F8: `localhost:18617` was a URL of the scheme `localhost`, and a SURT prefix of
/// it matched nothing). Operators write these; no scheme is followed by a port.
fn is_host_and_port(url: &Url) -> bool {
    let port = url.path().split('/').next().unwrap_or_default();
    url.cannot_be_a_base() && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_a_browser() {
        let base = Url::parse("http://example.com/dir/sub/page.html").unwrap();
        let rows = [
            ("../rel", "http://example.com/dir/rel"),
            ("./same", "http://example.com/dir/sub/same"),
            ("//other.org/x", "http://other.org/x"),
            ("  /abs#frag ", "http://example.com/abs"),
            ("?q=1", "http://example.com/dir/sub/page.html?q=1"),
            ("HTTP://EXAMPLE.COM:80/A", "http://example.com/A"),
        ];
        for (href, want) in rows {
            assert_eq!(
                resolve(&base, href).unwrap().as_str(),
                want,
                "href {href:?}"
            );
        }
    }

    #[test]
    fn header_bytes_are_percent_encoded() {
        let base = Url::parse("http://example.com/dir/page").unwrap();
        let rows: [(&[u8], &str); 5] = [
            (
                "/leaf/café-€".as_bytes(),
                "http://example.com/leaf/caf%C3%A9-%E2%82%AC",
            ),
            (b"/leaf/caf\xe9", "http://example.com/leaf/caf%E9"),
            (b"/a?q=\xe9\xff#\xe9", "http://example.com/a?q=%E9%FF"),
            (b"/a\x01b\tc", "http://example.com/a%01bc"),
            (
                b"http://b\xc3\xbccher.ch/\xe9",
                "http://xn--bcher-kva.ch/%E9",
            ),
        ];
        for (href, want) in rows {
            assert_eq!(
                resolve_bytes(&base, href).unwrap().as_str(),
                want,
                "{href:?}"
            );
        }
        assert!(matches!(href_text(b"/plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn lenient() {
        let rows = [
            ("www.google.com", "http://www.google.com/"),
            ("  http://a.org/x#f ", "http://a.org/x#f"),
            ("mailto:a@b.org", "mailto:a@b.org"),
            ("b\u{fc}cher.ch:8080", "http://xn--bcher-kva.ch:8080/"),
        ];
        for (input, want) in rows {
            assert_eq!(parse_lenient(input).unwrap().as_str(), want, "{input}");
        }
        assert!(parse_lenient("http://").is_err());
    }

    #[test]
    fn seeds() {
        assert_eq!(
            parse_seed("example.com/x").unwrap().as_str(),
            "http://example.com/x"
        );
        assert_eq!(parse_seed("https://a.b/").unwrap().as_str(), "https://a.b/");
        assert!(parse_seed("ftp://a.b/").is_err());
        // A misspelt scheme is no host named `http` (xt13a F12).
        for slip in ["http//a.b/", "https:/a.b/", "HTTP//a.b/"] {
            let err = parse_seed(slip).unwrap_err().to_string();
            assert!(err.contains("its scheme is misspelt"), "{slip}: {err}");
        }
        assert!(parse_seed("httpbin.org/x").is_ok());
        // Text before `://` that is no scheme is no host with an empty port (xt42a); `://` later on is none.
        for slip in ["ht!tp://127.0.0.1:18100/docs/", "://a.b/", "1http://a.b/"] {
            let err = parse_seed(slip).unwrap_err().to_string();
            assert!(
                err.contains("before `://` is not a scheme"),
                "{slip}: {err}"
            );
        }
        assert!(parse_seed("a.b/r?to=http://c.d/").is_ok());
        assert!(parse_seed("svn+ssh://a.b/").is_err());
        // A bare word typed now is refused, not one a config holds; a host with a dot, localhost, an address
        // or a port is one (xt23a F3, review 71 R1, R4).
        // Text that is no host's name gets no hint to write it so; a scheme is said as one (xt37a F11).
        for (text, says) in [
            ("not a url", "is not a URL: a seed is written as"),
            ("ht!tp:/bad", "is not a URL: a seed is written as"),
            ("javascript:alert(1)", "has scheme \"javascript\""),
        ] {
            let err = parse_typed_seed(text).unwrap_err().to_string();
            assert!(
                err.contains(says) && !err.contains("write http"),
                "{text}: {err}"
            );
        }
        for word in ["pause", "bad_url", "intranet/docs", "5000", "//intranet/x"] {
            let err = parse_typed_seed(word).unwrap_err();
            assert!(matches!(err, Error::BareWord { .. }), "{word}: {err}");
            assert!(parse_seed(word).is_ok(), "{word}");
        }
        let said = parse_typed_seed("intranet/docs").unwrap_err().to_string();
        assert!(said.contains("write http://intranet/docs if"), "{said}");
        for host in [
            "localhost/x",
            "127.0.0.1/",
            "[::1]/",
            "intranet:8080/",
            "http://intranet/",
            "a.org",
        ] {
            assert!(parse_typed_seed(host).is_ok(), "{host}");
        }
        // A host and port without a scheme, a dot in the host or not (xt15b F8).
        for (written, url) in [
            ("localhost:18617", "http://localhost:18617/"),
            ("intranet:8080/docs/", "http://intranet:8080/docs/"),
            ("example.com:8080/x", "http://example.com:8080/x"),
        ] {
            assert_eq!(parse_seed(written).unwrap().as_str(), url);
            assert_eq!(parse_lenient(written).unwrap().as_str(), url);
        }
        assert!(parse_seed("mailto:a@b.org").is_err());
        assert!(parse_seed("http://").is_err());
        let err = parse_seed("http://exa mple.com/").unwrap_err().to_string();
        assert!(err.contains("exa mple.com"), "{err}");
    }
}
