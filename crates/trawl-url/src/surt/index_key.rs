//! The SURT key that CDX(J) indexes are looked up by: exactly what IA's python `surt` package (0.3.1) gives
//! for `surt.surt(url)` with its defaults, the key pywb computes for a lookup and cdxj-indexer writes.
//!
//! [`super::cdx`] is trawl's own reading of the same rules over a parsed [`url::Url`], and deliberately
//! departs from `surt` where `surt` is surprising (docs/url-identity.md). An index must not: a key that
//! differs by one byte from pywb's is a capture replay cannot find. So this works on the URL's bytes as
//! `surt` does, quirks and all:
//! - only `http`-family URLs get the "host in the path" repair; no WHATWG parsing;
//! - one leading `www.`/`wwwN.` is dropped (`www.www.example.com` → `com,example,www)/`);
//! - an IPv6 host keeps its spelling (`[2001:DB8:0:0:0:0:0:1]` → `2001:db8:0:0:0:0:0:1)`);
//! - a host is read as an IPv4 address only when it is all digits, or dotted decimal/octal as the C
//!   library's `inet_aton` reads it (`0x7f.0.0.1` stays a name);
//! - a backslash stays a backslash, and `..` above the root stays;
//! - a non-ASCII host goes through IDNA 2003 (nameprep, punycode), or stays as it is when that fails.
//!
//! Where `surt` raises (a port that is not a number up to 65535, a URL of white space only), the
//! reference indexer keys the capture by the URL itself, and so does [`index_key`].

use std::sync::LazyLock;

use regex::bytes::Regex;
use unicode_normalization::UnicodeNormalization as _;

/// The index key of `url`: python `surt.surt(url)`, or `url` itself where `surt` raises.
///
/// ```
/// use trawl_url::surt::index_key;
/// assert_eq!(index_key("http://www.www.example.com/"), "com,example,www)/");
/// assert_eq!(index_key("http://[2001:DB8:0:0:0:0:0:1]/"), "2001:db8:0:0:0:0:0:1)/");
/// assert_eq!(index_key("http://example.com:99999/"), "http://example.com:99999/");
/// ```
pub fn index_key(url: &str) -> String {
    if url.is_empty() {
        return "-".to_owned();
    }
    if url.starts_with("filedesc") {
        return url.to_owned();
    }
    match Parts::split(url.as_bytes()) {
        Some(mut parts) => {
            parts.google();
            parts.ia();
            parts.key()
        }
        None => url.to_owned(),
    }
}

/// A URL taken apart as `surt`'s `handyurl` holds it (user info and fragment are dropped on the way).
#[derive(Debug)]
struct Parts {
    scheme: Vec<u8>,
    /// Never empty: an empty host is no host.
    host: Option<Vec<u8>>,
    /// Never 0: port 0 is no port.
    port: Option<u16>,
    /// Never empty.
    path: Option<Vec<u8>>,
    /// Never empty.
    query: Option<Vec<u8>>,
}

/// The bytes Python's `bytes.strip()` strips.
fn is_py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// `Some(v)` unless `v` is empty.
fn non_empty(v: Vec<u8>) -> Option<Vec<u8>> {
    (!v.is_empty()).then_some(v)
}

impl Parts {
    /// Splits `url` as `handyurl.parse` does: white space trimmed and tabs and line breaks removed, `http://`
    /// supplied when no scheme is written, repeated `http://https://` prefixes reduced to the last, then the
    /// RFC 2396 split. `None` where `surt` raises.
    fn split(url: &[u8]) -> Option<Parts> {
        let start = url.iter().position(|&b| !is_py_space(b))?;
        let end = url.iter().rposition(|&b| !is_py_space(b))? + 1;
        let mut text: Vec<u8> = url[start..end]
            .iter()
            .copied()
            .filter(|b| !matches!(b, b'\n' | b'\r' | b'\t'))
            .collect();
        if scheme_len(&text).is_none() {
            text.splice(0..0, *b"http://");
        }
        let text = &text[last_http_prefix(&text)..];
        let colon = scheme_len(text)?;
        let scheme = text[..colon].to_vec();
        let rest = &text[colon + 1..];
        let (netloc, rest) = match rest.strip_prefix(b"//") {
            Some(r) => r.split_at(r.iter().position(|b| b"/?#".contains(b)).unwrap_or(r.len())),
            None => (&[][..], rest),
        };
        let rest = &rest[..rest.iter().position(|&b| b == b'#').unwrap_or(rest.len())];
        let (path, query) = match rest.iter().position(|&b| b == b'?') {
            Some(q) => (&rest[..q], &rest[q + 1..]),
            None => (rest, &[][..]),
        };
        let (host, port) = host_and_port(netloc)?;
        let mut parts = Parts {
            scheme,
            host,
            port,
            path: non_empty(path.to_vec()),
            query: non_empty(query.to_vec()),
        };
        // `http:////www.example.com/x`: the host was read as the path.
        if parts.scheme.starts_with(b"http")
            && parts.host.is_none()
            && let Some(path) = &parts.path
        {
            let trimmed = &path[path.iter().position(|&b| b != b'/').unwrap_or(path.len())..];
            let cut = trimmed
                .iter()
                .position(|&b| b == b'/')
                .unwrap_or(trimmed.len());
            let mut new_path = b"/".to_vec();
            new_path.extend_from_slice(trimmed.get(cut + 1..).unwrap_or_default());
            parts.host = non_empty(trimmed[..cut].to_vec());
            parts.path = Some(new_path);
        }
        Some(parts)
    }

    /// Google's canonicalization, the first half of `surt`'s: the query minimally escaped; the host
    /// unescaped, IDNA-encoded, dots tidied, read as an IPv4 address or lower-cased and escaped; the path
    /// unescaped, its dot segments resolved (when there is a host), and escaped once.
    fn google(&mut self) {
        if let Some(q) = &self.query {
            self.query = non_empty(escape_once(&unescape_repeatedly(q)));
        }
        if let Some(host) = self.host.take() {
            let mut host = unescape_repeatedly(&host);
            if !host.is_ascii() {
                let decoded: String = host.utf8_chunks().map(|c| c.valid()).collect();
                if let Some(ace) = idna_2003(&decoded) {
                    host = ace.into_bytes();
                }
            }
            let host = strip_dots(&collapse_double_dots(&host));
            let host = match ipv4(&host) {
                Some(ip) => ip.into_bytes(),
                None => escape_once(&host.to_ascii_lowercase()),
            };
            self.host = non_empty(host);
        }
        let path = self.path.as_deref().map(unescape_repeatedly);
        let path = if self.host.is_some() {
            Some(normalize_path(path.as_deref()))
        } else {
            path
        };
        self.path = path.map(|p| escape_once(&p));
    }

    /// IA's canonicalization, the second half: host lower-cased, one `www.` dropped, the scheme's default
    /// port dropped; path and query lower-cased and rid of session IDs, a trailing slash dropped, query
    /// arguments sorted.
    fn ia(&mut self) {
        if let Some(host) = &mut self.host {
            host.make_ascii_lowercase();
            if self.scheme != b"dns" {
                let www = www_prefix_len(host);
                host.drain(..www);
            }
        }
        self.host = self.host.take().and_then(non_empty);
        let default_port = match self.scheme.to_ascii_lowercase().as_slice() {
            b"http" => 80,
            b"https" => 443,
            _ => 0,
        };
        if self.port == Some(default_port) {
            self.port = None;
        }
        if let Some(path) = &mut self.path {
            path.make_ascii_lowercase();
            let mut p = strip_path_session_ids(path);
            if p.len() > 1 && p.ends_with(b"/") {
                p.pop();
            }
            *path = p;
        }
        if let Some(query) = &self.query {
            let mut q = strip_query_session_ids(query);
            q.make_ascii_lowercase();
            self.query = non_empty(sort_query(&q));
        }
    }

    /// The key: reversed host labels, port, `)`, path and query; `scheme:path` when there is no host.
    fn key(&self) -> String {
        let mut out = Vec::with_capacity(64);
        match &self.host {
            Some(host) => {
                for (i, label) in host.rsplit(|&b| b == b'.').enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(label);
                }
                if let Some(port) = self.port {
                    out.extend_from_slice(format!(":{port}").as_bytes());
                }
                out.push(b')');
            }
            None => {
                out.extend_from_slice(&self.scheme);
                out.push(b':');
            }
        }
        match &self.path {
            Some(path) => out.extend_from_slice(path),
            None if self.query.is_some() => out.push(b'/'),
            None => {}
        }
        if let Some(q) = &self.query {
            out.push(b'?');
            out.extend_from_slice(q);
        }
        // Every part is ASCII by now (the scheme by its syntax, the rest escaped).
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// The length of the scheme of `url` (`[A-Za-z][A-Za-z0-9+.-]*` before a `:`), if it starts with one.
fn scheme_len(url: &[u8]) -> Option<usize> {
    let first = url.first()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    let len = url
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || b"+-.".contains(b)))?;
    (url[len] == b':').then_some(len)
}

/// Where the last of the `http://` / `https://` prefixes repeated at the start of `url` begins (0 when
/// there are none or one).
fn last_http_prefix(url: &[u8]) -> usize {
    let (mut at, mut last) = (0, 0);
    loop {
        let rest = &url[at..];
        let len = if rest.starts_with(b"http://") {
            7
        } else if rest.starts_with(b"https://") {
            8
        } else {
            return last;
        };
        last = at;
        at += len;
    }
}

/// The host and port of an authority as Python's `urllib` reads them (user info dropped, the part before
/// `%` of the host lower-cased, a bracketed host taken without its brackets). `None` where Python raises:
/// a port that is not digits, or over 65535.
fn host_and_port(netloc: &[u8]) -> Option<(Option<Vec<u8>>, Option<u16>)> {
    let netloc = &netloc[..netloc.iter().rposition(|&b| b != b':').map_or(0, |i| i + 1)];
    let hostinfo = match netloc.iter().rposition(|&b| b == b'@') {
        Some(at) => &netloc[at + 1..],
        None => netloc,
    };
    let (host, port) = match hostinfo.iter().position(|&b| b == b'[') {
        Some(open) => {
            let bracketed = &hostinfo[open + 1..];
            let close = bracketed
                .iter()
                .position(|&b| b == b']')
                .unwrap_or(bracketed.len());
            let after = bracketed.get(close + 1..).unwrap_or_default();
            let port = after
                .iter()
                .position(|&b| b == b':')
                .map_or(&[][..], |c| &after[c + 1..]);
            (&bracketed[..close], port)
        }
        None => match hostinfo.iter().position(|&b| b == b':') {
            Some(c) => (&hostinfo[..c], &hostinfo[c + 1..]),
            None => (hostinfo, &[][..]),
        },
    };
    let port = if port.is_empty() {
        None
    } else {
        if !port.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let digits = &port[port.iter().position(|&b| b != b'0').unwrap_or(port.len())..];
        if digits.len() > 5 {
            return None;
        }
        let n: u32 = std::str::from_utf8(digits).ok()?.parse().unwrap_or(0);
        if n > 65535 {
            return None;
        }
        u16::try_from(n).ok().filter(|&n| n != 0)
    };
    let host = non_empty(match host.iter().position(|&b| b == b'%') {
        Some(z) => [&host[..z].to_ascii_lowercase(), &host[z..]].concat(),
        None => host.to_ascii_lowercase(),
    });
    Some((host, port))
}

/// `%XX` decoded, once (an invalid escape stays as it is).
fn unquote(input: &[u8]) -> Vec<u8> {
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] == b'%'
            && let (Some(h), Some(l)) = (
                input.get(i + 1).and_then(|&b| hex(b)),
                input.get(i + 2).and_then(|&b| hex(b)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(input[i]);
            i += 1;
        }
    }
    out
}

/// `%XX` decoded until nothing changes (`%2541` → `A`).
fn unescape_repeatedly(input: &[u8]) -> Vec<u8> {
    let mut cur = input.to_vec();
    loop {
        let next = unquote(&cur);
        if next == cur {
            return cur;
        }
        cur = next;
    }
}

/// Escapes what `surt` escapes: control characters, space, `#`, `%` and non-ASCII bytes, as `%XX`.
fn escape_once(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    for &b in input {
        if b > b' ' && b < 0x7f && b != b'#' && b != b'%' {
            out.push(b);
        } else {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        }
    }
    out
}

/// Each `..` replaced by `.`, left to right (`a...b` → `a..b`, as Python's `replace` does).
fn collapse_double_dots(host: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(host.len());
    let mut i = 0;
    while i < host.len() {
        out.push(host[i]);
        i += if host[i..].starts_with(b"..") { 2 } else { 1 };
    }
    out
}

/// `host` without dots at either end.
fn strip_dots(host: &[u8]) -> Vec<u8> {
    let start = host.iter().position(|&b| b != b'.').unwrap_or(host.len());
    let end = host
        .iter()
        .rposition(|&b| b != b'.')
        .map_or(start, |i| i + 1);
    host[start..end].to_vec()
}

/// The dot segments of `path` resolved as `surt` resolves them: `.` dropped, `..` drops the segment
/// before it or, at the root, stays; empty segments dropped except the last (a trailing slash).
fn normalize_path(path: Option<&[u8]>) -> Vec<u8> {
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        return b"/".to_vec();
    };
    let mut kept: Vec<&[u8]> = Vec::new();
    for segment in path.split(|&b| b == b'/').skip(1) {
        match segment {
            b"." => {}
            b".." if !kept.is_empty() => {
                kept.pop();
            }
            s => kept.push(s),
        }
    }
    let mut out = b"/".to_vec();
    if let Some((last, init)) = kept.split_last() {
        for s in init.iter().filter(|s| !s.is_empty()) {
            out.extend_from_slice(s);
            out.push(b'/');
        }
        out.extend_from_slice(last);
    }
    out
}

/// Dotted decimal, and dotted with an octal first part: what `surt` hands to the resolver as an address.
static DECIMAL_IP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?-u)^[1-9][0-9]*(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$").unwrap());
static OCTAL_IP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?-u)^0[0-7]*(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$").unwrap());

/// The IPv4 address `host` names, dotted decimal, if `surt` reads it as one: all digits (taken modulo
/// 2³²), or a dotted form the C library's `inet_aton` accepts (`1.2.3` is `1.2.0.3`, `0177.1` is
/// `127.0.0.1`).
fn ipv4(host: &[u8]) -> Option<String> {
    let address = if !host.is_empty() && host.iter().all(u8::is_ascii_digit) {
        host.iter().fold(0u32, |v, &d| {
            v.wrapping_mul(10).wrapping_add(u32::from(d - b'0'))
        })
    } else if DECIMAL_IP.is_match(host) || OCTAL_IP.is_match(host) {
        inet_aton(host)?
    } else {
        return None;
    };
    Some(std::net::Ipv4Addr::from(address).to_string())
}

/// glibc's `inet_aton` over digits and dots: each part decimal, or octal after a leading `0`; all but the
/// last part one byte each, the last filling the rest.
fn inet_aton(host: &[u8]) -> Option<u32> {
    let parts: Vec<&[u8]> = host.split(|&b| b == b'.').collect();
    let mut address: u32 = 0;
    for (i, part) in parts.iter().enumerate() {
        let (digits, radix) = match part {
            [b'0', rest @ ..] => (rest, 8),
            _ => (&part[..], 10),
        };
        let value = if digits.is_empty() {
            0
        } else {
            u32::from_str_radix(std::str::from_utf8(digits).ok()?, radix).ok()?
        };
        let last = i + 1 == parts.len();
        if !last {
            if value > 0xff {
                return None;
            }
            address |= value << (24 - 8 * i);
        } else {
            let room = 32 - 8 * i as u32;
            if room < 32 && value >> room != 0 {
                return None;
            }
            address |= value;
        }
    }
    Some(address)
}

/// How long the leading `www.` or `wwwN.` of `host` is (0 without one).
fn www_prefix_len(host: &[u8]) -> usize {
    let Some(rest) = host.strip_prefix(b"www") else {
        return 0;
    };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if rest.get(digits) == Some(&b'.') {
        3 + digits + 1
    } else {
        0
    }
}

/// ASP.NET session IDs in a path (`/(S(…24…))/x.aspx`, `/(…24…)/x.aspx`), which `surt` removes.
static PATH_SESSION_IDS: LazyLock<[Regex; 2]> = LazyLock::new(|| {
    [
        r"(?i-u)^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^\?]+\.aspx.*)$",
        r"(?i-u)^(.*/)(\([0-9a-z]{24}\)/)([^\?]+\.aspx.*)$",
    ]
    .map(|p| Regex::new(p).unwrap())
});

/// Session IDs in a query (`jsessionid=`, `phpsessid=`, `sid=` with 32 characters, `ASPSESSIONIDxxxxxxxx=`,
/// `cfid=…&cftoken=…`), which `surt` removes.
static QUERY_SESSION_IDS: LazyLock<[Regex; 5]> = LazyLock::new(|| {
    [
        r"(?i-u)^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$",
        r"(?i-u)^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$",
        r"(?i-u)^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$",
        r"(?i-u)^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$",
        r"(?i-u)^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$",
    ]
    .map(|p| Regex::new(p).unwrap())
});

/// `path` without the session IDs of [`PATH_SESSION_IDS`].
fn strip_path_session_ids(path: &[u8]) -> Vec<u8> {
    let mut path = path.to_vec();
    for re in PATH_SESSION_IDS.iter() {
        if let Some(c) = re.captures(&path) {
            path = [&c[1], &c[3]].concat();
        }
    }
    path
}

/// `query` without the session IDs of [`QUERY_SESSION_IDS`].
fn strip_query_session_ids(query: &[u8]) -> Vec<u8> {
    let mut query = query.to_vec();
    for re in QUERY_SESSION_IDS.iter() {
        if let Some(c) = re.captures(&query) {
            let after = c.get(2).map_or(&[][..], |m| m.as_bytes());
            query = [&c[1], after].concat();
        }
    }
    query
}

/// The `&`-separated arguments of `query` sorted by name, then value (an argument without `=` before
/// one with), as `surt` sorts them.
fn sort_query(query: &[u8]) -> Vec<u8> {
    if query.len() <= 1 {
        return query.to_vec();
    }
    let mut args: Vec<(&[u8], Option<&[u8]>)> = query
        .split(|&b| b == b'&')
        .map(|arg| match arg.iter().position(|&b| b == b'=') {
            Some(eq) => (&arg[..eq], Some(&arg[eq + 1..])),
            None => (arg, None),
        })
        .collect();
    args.sort();
    let mut out = Vec::with_capacity(query.len());
    for (i, (name, value)) in args.iter().enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        out.extend_from_slice(name);
        if let Some(v) = value {
            out.push(b'=');
            out.extend_from_slice(v);
        }
    }
    out
}

/// A non-ASCII host in ASCII by IDNA 2003 (RFC 3490 ToASCII with nameprep, unassigned code points
/// allowed), as Python's `idna` codec writes it; `None` where that codec raises (a label empty or over 63
/// bytes, a prohibited character, bad bidi, an `xn--` label needing encoding).
fn idna_2003(host: &str) -> Option<String> {
    if host.is_empty() {
        return Some(String::new());
    }
    if host.is_ascii() {
        let labels: Vec<&str> = host.split('.').collect();
        let (last, init) = labels.split_last()?;
        let fits = init.iter().all(|l| (1..64).contains(&l.len())) && last.len() < 64;
        return fits.then(|| host.to_owned());
    }
    let mut labels: Vec<&str> = host
        .split(['.', '\u{3002}', '\u{ff0e}', '\u{ff61}'])
        .collect();
    let trailing_dot = labels.last().is_some_and(|l| l.is_empty());
    if trailing_dot {
        labels.pop();
    }
    let mut out = labels
        .iter()
        .map(|l| label_to_ascii(l))
        .collect::<Option<Vec<String>>>()?
        .join(".");
    if trailing_dot {
        out.push('.');
    }
    Some(out)
}

/// RFC 3490 ToASCII of one label (`UseSTD3ASCIIRules` off).
fn label_to_ascii(label: &str) -> Option<String> {
    let fits = |l: String| (1..64).contains(&l.len()).then_some(l);
    if label.is_ascii() {
        return fits(label.to_owned());
    }
    let prepped = nameprep(label)?;
    if prepped.is_ascii() {
        return fits(prepped);
    }
    if prepped.starts_with("xn--") {
        return None;
    }
    fits(format!("xn--{}", idna::punycode::encode_str(&prepped)?))
}

/// RFC 3491 nameprep as Python's `encodings.idna` does it: mapped (B.1, B.2), NFKC, prohibited
/// characters (C.1.2 to C.9) and bidi rules refused, unassigned code points allowed.
fn nameprep(label: &str) -> Option<String> {
    use stringprep::tables as t;
    let mapped: String = label
        .chars()
        .filter(|&c| !t::commonly_mapped_to_nothing(c))
        .flat_map(t::case_fold_for_nfkc)
        .collect();
    let prepped: String = mapped.nfkc().collect();
    let prohibited = |c: char| {
        t::non_ascii_space_character(c)
            || t::non_ascii_control_character(c)
            || t::private_use(c)
            || t::non_character_code_point(c)
            || t::surrogate_code(c)
            || t::inappropriate_for_plain_text(c)
            || t::inappropriate_for_canonical_representation(c)
            || t::change_display_properties_or_deprecated(c)
            || t::tagging_character(c)
    };
    if prepped.chars().any(prohibited) {
        return None;
    }
    if prepped.chars().any(t::bidi_r_or_al) {
        let ends_rtl = prepped.chars().next().is_some_and(t::bidi_r_or_al)
            && prepped.chars().next_back().is_some_and(t::bidi_r_or_al);
        if prepped.chars().any(t::bidi_l) || !ends_rtl {
            return None;
        }
    }
    Some(prepped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What python `surt` 0.3.1 gives (`surt.surt(url)`), and so what pywb looks each URL up by.
    #[test]
    fn keys_as_python_surt_writes_them() {
        for (url, key) in [
            ("http://www.www.example.com/", "com,example,www)/"),
            ("http://[2001:DB8:0:0:0:0:0:1]/", "2001:db8:0:0:0:0:0:1)/"),
            ("http://0x7f.0.0.1/x", "1,0,0,0x7f)/x"),
            ("http://example.com/a\\b", "com,example)/a\\b"),
            ("http://example.com/..?a=1", "com,example)/..?a=1"),
            ("http://www.Example.com/a?b=2&a=1", "com,example)/a?a=1&b=2"),
            ("http://1.2.3/", "3,0,2,1)/"),
            ("http://0177.1/", "1,0,0,127)/"),
            ("http://4294967296/", "0,0,0,0)/"),
            ("http://1.08.1.1/", "1,1,08,1)/"),
            ("http://example.com:99999/", "http://example.com:99999/"),
        ] {
            assert_eq!(index_key(url), key, "{url}");
        }
    }

    proptest! {
        #[test]
        fn any_url_has_a_key(url in "\\PC{0,60}") {
            let _ = index_key(&url);
        }

        #[test]
        fn any_url_like_string_has_a_key(url in "(https?://)?[a-zA-Z0-9.%:@\\[\\]/?#&=;()_~-]{0,60}") {
            let _ = index_key(&url);
        }
    }
}
