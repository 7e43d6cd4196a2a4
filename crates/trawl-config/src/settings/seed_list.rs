//! Seed lists as Heritrix writes them (`TextSeedModule`): one seed per line, `#` comments, and `+`/`-` lines that
//! are not seeds but SURT prefixes for the scope's ACCEPT / REJECT `surt_prefixed` rules.

use trawl_url::SurtPrefix;

use crate::decide::Decision;

/// A seed-list line that cannot be taken.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SeedLineError {
    /// A line that is neither a seed nor a directive.
    #[error("{0:?} is neither a seed nor a `+`/`-` SURT prefix line")]
    Neither(String),
    /// A directive naming no usable prefix.
    #[error("{text:?} is not a SURT prefix, URL or host: {source}")]
    BadPrefix {
        /// The directive's text.
        text: String,
        /// Why.
        source: trawl_url::Error,
    },
    /// A directive with no rule to take it.
    #[error(
        "a `{}` line needs a [[scope.rules]] surt_prefixed rule with decision = \"{}\" to take it",
        if *.0 == Decision::Accept { '+' } else { '-' },
        if *.0 == Decision::Accept { "accept" } else { "reject" }
    )]
    NoRule(Decision),
}

/// What one line of a seed list holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedLine {
    /// A seed URL (`http://` added to one written without a scheme).
    Seed(String),
    /// `+PREFIX`: a SURT prefix (or a URL or host, read as Heritrix reads it) the scope accepts.
    Accept(String),
    /// `-PREFIX`: a SURT prefix the scope rejects.
    Reject(String),
    /// A line starting with neither a letter, a digit, `+` nor `-` (Heritrix ignores it).
    Other(String),
}

/// The lines of a seed list, each with its 1-based line number, as Heritrix reads them: blank lines and lines
/// whose first non-blank character is `#` are skipped, a byte-order mark is ignored, and only the first
/// whitespace-free token of a line counts (so `http://a.org/ # note` is `http://a.org/`).
pub fn parse(text: &str) -> Vec<(usize, SeedLine)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let token = line.split_whitespace().next()?;
            if token.starts_with('#') {
                return None;
            }
            let parsed = if let Some(p) = token.strip_prefix('+') {
                SeedLine::Accept(p.to_owned())
            } else if let Some(p) = token.strip_prefix('-') {
                SeedLine::Reject(p.to_owned())
            } else if !token.starts_with(|c: char| c.is_alphanumeric()) {
                SeedLine::Other(token.to_owned())
            // One the crawl refuses (`https//host/`, a misspelt scheme) is kept as written, so the refusal says
            // what the file says (xt43a: `http://` put before it made it the host `https`).
            } else if token.contains("://") || trawl_url::parse_seed(token).is_err() {
                SeedLine::Seed(token.to_owned())
            } else {
                SeedLine::Seed(format!("http://{token}"))
            };
            Some((i + 1, parsed))
        })
        .collect()
}

/// Whether `seed` is a placeholder: its host is in the `.example` top-level domain, reserved for documentation
/// (RFC 2606), as in Heritrix's default profile's `http://example.example/example`. Such a host never resolves.
pub fn is_placeholder(seed: &str) -> bool {
    trawl_url::parse_lenient(seed)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
        })
        .is_some_and(|h| h == "example" || h.ends_with(".example"))
}

/// The SURT prefix a config value (`scope.surt_prefixes`, a `surt_prefixed` rule's `prefixes`, a sheet's
/// `surt_prefixes`) names, read as a `surtsSource` line is ([`directive_prefix`]): a value in SURT form (with
/// `(`) as written, a URL or host converted (`example.org` is the whole domain, `http://example.org/` the
/// host). The error says what to write.
pub fn prefix_value(text: &str) -> Result<SurtPrefix, NotAPrefix> {
    let text = text.trim();
    directive_prefix(text.strip_prefix('+').unwrap_or(text)).map_err(|source| NotAPrefix {
        text: text.to_string(),
        source,
    })
}

/// The folder a prefix written as a URL with a last path segment (or a query) stands for
/// (`http://example.org/docs` is cut after its last slash, as Heritrix cuts it, to `http://example.org/`:
/// the whole host), to warn of (xt20b F5). None for a value in SURT or CDX form, a host, a URL ending in `/`,
/// a fragment, or a query holding a slash (cut there).
pub fn cut_to_folder(text: &str) -> Option<String> {
    let text = text.trim().trim_start_matches('+');
    if text.contains(['(', ')', '#']) || text.ends_with('/') {
        return None;
    }
    let url = trawl_url::parse_lenient(text).ok()?;
    if url.query().is_some_and(|q| q.contains('/')) {
        return None;
    }
    let path = url.path();
    let folder = &path[..=path.rfind('/')?];
    (folder.len() < path.len() || url.query().is_some()).then(|| {
        let mut cut = url.clone();
        cut.set_path(folder);
        cut.set_query(None);
        cut.to_string()
    })
}

/// Whether a prefix in the CDX form ends in a path without its closing slash (`org,example)/docs`), so it
/// takes in `/docsx` too: IA's `surt` leaves a folder's slash off, so a line pasted from `trawl url surt`
/// reads so (xt21b F5).
pub fn open_cdx_path(text: &str) -> bool {
    let text = text.trim().trim_start_matches('+');
    !text.contains("://")
        && !text.contains(['?', '#'])
        && !text.starts_with('(')
        && text.split_once(')').is_some_and(|(_, path)| {
            path.len() > 1 && path.starts_with('/') && !path.ends_with('/')
        })
}

/// A config value that names no SURT prefix, and what to write instead.
#[derive(Debug, thiserror::Error)]
#[error(
    "{text:?} is neither a SURT prefix nor a URL or host ({source}); write a host (example.org), a URL \
     (http://example.org/dir/) or a SURT prefix (http://(org,example,)"
)]
pub struct NotAPrefix {
    text: String,
    source: trawl_url::Error,
}

/// The SURT prefix a `+`/`-` line names: a literal SURT prefix when it holds `(`, else a URL or host read by
/// Heritrix's rules ([`SurtPrefix::from_plain`]: no slash after the host means the whole domain).
pub fn directive_prefix(text: &str) -> Result<SurtPrefix, trawl_url::Error> {
    // Candidates are compared as `http://(`, https folded to http (xt15b F8: `https://(`, `(org,` and the
    // CDX form `org,example)/`, which `trawl url surt` prints, each matched nothing, silently).
    let lower = text.to_ascii_lowercase();
    let bad = |why| trawl_url::Error::BadSurtPrefix {
        input: text.to_string(),
        why,
    };
    if let Some(rest) = lower.strip_prefix("https://(") {
        return Ok(SurtPrefix::new(format!("http://({rest}")));
    }
    if lower.starts_with('(') {
        return Ok(SurtPrefix::new(format!("http://{lower}")));
    }
    if text.contains('(') {
        return match lower.find("://(") {
            Some(_) => Ok(SurtPrefix::new(lower)),
            None => Err(bad(
                "a SURT prefix starts with its scheme and `(`: write http://(org,example, for example.org",
            )),
        };
    }
    // The CDX form (`org,example)/path`, `org,example:8080)/`): its host part, reversed already, and without
    // the `www.` IA's `surt` drops, so the prefix takes in the `www.` host too. An IPv4 address is reversed
    // there (`1,0,0,127:8601)/`), and not in Heritrix's form (`http://(127.0.0.1:8601)/`): xt20b F3.
    if let Some((host, path)) = lower.split_once(')')
        && !lower.contains("://")
        && path.starts_with('/')
    {
        // `--trailing-comma` puts a comma after the port too (`org,example:8080,)/`).
        let host = host.trim_end_matches(',');
        // `--no-reverse-ip` leaves an address as it is (`127.0.0.1:8601)/`).
        let (name, port) = host.split_once(':').unwrap_or((host, ""));
        if name.parse::<std::net::Ipv4Addr>().is_ok() && port.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(SurtPrefix::new(format!("http://({host}){path}")));
        }
    }
    if let Some((host, path)) = lower.split_once(')')
        && !lower.contains("://")
        && host.contains(',')
        && !host.contains(['/', '.', '?', '#'])
        && path.starts_with('/')
    {
        let host = host.trim_end_matches(',');
        let (host, port) = match host.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host, None),
        };
        let host = host.trim_end_matches(',');
        let labels: Vec<&str> = host.split(',').collect();
        let address = labels.len() == 4
            && labels
                .iter()
                .all(|l| !l.is_empty() && l.len() <= 3 && l.bytes().all(|b| b.is_ascii_digit()));
        if address {
            let ip: Vec<&str> = labels.into_iter().rev().collect();
            let port = port.map(|p| format!(":{p}")).unwrap_or_default();
            return Ok(SurtPrefix::new(format!(
                "http://({}{port}){path}",
                ip.join(".")
            )));
        }
        let port = port.map_or(",".to_owned(), |p| format!(",:{p}"));
        return Ok(SurtPrefix::new(format!("http://({host}{port}){path}")).with_www());
    }
    SurtPrefix::from_plain(text)
}

/// The prefix `written` with its host dotted, in the order written and reversed, when that host is four
/// numbers between commas (`http://(127,0,0,1:8080)/`, with or without a scheme or a trailing comma): an IP
/// address written as a host name's labels are, which matches nothing (xt42b, xt43a N3).
pub(super) fn comma_address(written: &str) -> Option<(String, String)> {
    let written = written.trim();
    let (scheme, rest) = match written.split_once("://(") {
        Some((scheme, rest)) => (scheme, rest),
        None => ("http", written.strip_prefix('(')?),
    };
    let end = rest.find([')', ':']).unwrap_or(rest.len());
    let host = rest[..end].strip_suffix(',').unwrap_or(&rest[..end]);
    let labels: Vec<&str> = host.split(',').collect();
    let numbers = labels.len() == 4
        && labels.iter().all(|l| {
            (1..=3).contains(&l.len())
                && l.bytes().all(|b| b.is_ascii_digit())
                && l.parse::<u16>().is_ok_and(|n| n <= 255)
        });
    let tail = &rest[end..];
    let reversed: Vec<&str> = labels.iter().rev().copied().collect();
    numbers.then(|| {
        (
            format!("{scheme}://({}{tail}", labels.join(".")),
            format!("{scheme}://({}{tail}", reversed.join(".")),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders() {
        assert!(is_placeholder("http://example.example/example"));
        assert!(is_placeholder("https://www.site.EXAMPLE/"));
        assert!(!is_placeholder("http://example.com/"));
        assert!(!is_placeholder("http://example.org/x.example"));
        assert!(!is_placeholder("not a url"));
    }
    use proptest::prelude::*;

    proptest! {
        /// Any text: one entry per line with a first word, never a panic, lines numbered in order.
        #[test]
        fn any_seed_list_parses(text in "\\PC{0,300}") {
            let lines = parse(&text);
            prop_assert!(lines.windows(2).all(|w| w[0].0 < w[1].0));
            for (_, line) in lines {
                if let SeedLine::Accept(t) | SeedLine::Reject(t) = line {
                    let _ = directive_prefix(&t);
                }
            }
        }
    }

    #[test]
    fn heritrix_seed_lists() {
        let text = "\u{feff}# seeds\n\n  http://a.org/ # the main site\nexample.com/x\n+http://(org,b,\n-c.org/private/\n   # indented comment\nhttps://d.org/#frag\n*odd\n";
        assert_eq!(
            parse(text),
            vec![
                (3, SeedLine::Seed("http://a.org/".into())),
                (4, SeedLine::Seed("http://example.com/x".into())),
                (5, SeedLine::Accept("http://(org,b,".into())),
                (6, SeedLine::Reject("c.org/private/".into())),
                (8, SeedLine::Seed("https://d.org/#frag".into())),
                (9, SeedLine::Other("*odd".into())),
            ]
        );
        // A line the crawl refuses is kept as written, for the refusal to quote (xt43a N1).
        assert_eq!(
            parse("https//a.org/docs/\n"),
            vec![(1, SeedLine::Seed("https//a.org/docs/".into()))]
        );
    }

    /// A URL prefix's last segment is cut, and said to be (xt20b F5); a folder, host or SURT is as written.
    #[test]
    fn a_cut_segment_is_found() {
        assert_eq!(
            cut_to_folder("http://example.org/docs").as_deref(),
            Some("http://example.org/")
        );
        assert_eq!(
            cut_to_folder("example.org/a/b.html").as_deref(),
            Some("http://example.org/a/")
        );
        assert!(open_cdx_path("org,example)/docs"));
        assert!(!open_cdx_path("org,example)/docs?x=1"));
        // A query is cut off with the last segment (review 70 R6).
        assert_eq!(
            cut_to_folder("http://example.org/docs?x=1").as_deref(),
            Some("http://example.org/")
        );
        for closed in [
            "org,example)/docs/",
            "org,example)/",
            "http://(org,example,)/docs",
            "(org,example,)/d",
        ] {
            assert!(!open_cdx_path(closed), "{closed}");
        }
        for kept in [
            "http://example.org/docs/",
            "example.org",
            "http://example.org",
            "http://(org,example,)/docs",
            "org,example)/docs",
            "http://example.org/docs?next=/a/",
        ] {
            assert_eq!(cut_to_folder(kept), None, "{kept}");
        }
    }

    #[test]
    fn directives_are_prefixes_as_heritrix_reads_them() {
        assert_eq!(
            directive_prefix("http://(org,b,").unwrap().as_str(),
            "http://(org,b,"
        );
        assert_eq!(
            directive_prefix("example.org").unwrap().as_str(),
            "http://(org,example,"
        );
        assert_eq!(
            directive_prefix("c.org/private/").unwrap().as_str(),
            "http://(org,c,)/private/"
        );
        // Spellings that matched nothing (xt15b F8): a host and port, https, no scheme, the CDX form.
        for (written, prefix) in [
            ("localhost:18617", "http://(localhost,:18617"),
            ("https://(org,example,", "http://(org,example,"),
            ("(org,example,", "http://(org,example,"),
            ("org,example)/", "http://(org,example,)/"),
            (
                "org,example:8080)/docs/",
                "http://(org,example,:8080)/docs/",
            ),
            // An address is reversed in the CDX form, not in Heritrix's (xt20b F3).
            ("1,0,0,127:8601)/deep", "http://(127.0.0.1:8601)/deep"),
            ("1,0,0,127)/", "http://(127.0.0.1)/"),
        ] {
            assert_eq!(
                directive_prefix(written).unwrap().as_str(),
                prefix,
                "{written}"
            );
        }
        // The CDX form drops a `www.`: its prefix takes in the `www.` host too, which the prefix it was printed
        // from named (xt20b F3).
        // As `trawl url surt --trailing-comma` and `--no-reverse-ip` print them (review 69 R6).
        for (written, prefix) in [
            ("org,example:8080,)/", "http://(org,example,:8080)/"),
            ("127.0.0.1:8601)/deep", "http://(127.0.0.1:8601)/deep"),
            ("127.0.0.1)/", "http://(127.0.0.1)/"),
        ] {
            assert_eq!(
                directive_prefix(written).unwrap().as_str(),
                prefix,
                "{written}"
            );
        }
        let cdx = directive_prefix("org,example)/docs").unwrap();
        for url in ["http://example.org/docs/a", "http://www.example.org/docs/a"] {
            assert!(cdx.contains(&url::Url::parse(url).unwrap()), "{url}");
        }
        let ip = directive_prefix("1,0,0,127:8601)/deep").unwrap();
        assert!(ip.contains(&url::Url::parse("http://127.0.0.1:8601/deep/1/").unwrap()));
        // A host with a path holding `,` and `)` is a URL, not the CDX form.
        assert_eq!(
            directive_prefix("example.org/a,b)c/").unwrap().as_str(),
            "http://(org,example,)/a,b)c/"
        );
        let err = directive_prefix("org,example,(").unwrap_err().to_string();
        assert!(err.contains("starts with its scheme and `(`"), "{err}");
    }
}
