//! The entries of `on_hosts` and `on_domains`, read as URLs' hosts are: lower-case, IDNA-mapped
//! (`BÜCHER.de` is `xn--bcher-kva.de`). What can never equal a URL's host (a port, a scheme, a path, a
//! wildcard in `on_hosts`) is refused with the entry to write instead, so that no entry silently matches
//! nothing.

/// An `on_hosts` or `on_domains` entry that can never equal a URL's host, and the entry to write instead.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotAHost {
    /// A URL: its host is what to write, when it has one.
    #[error("{text:?} is a URL, not a host name: write {}", .host.as_ref().map_or("the host alone".to_string(), |h| format!("{h:?}")))]
    Url { text: String, host: Option<String> },
    /// A wildcard in `on_hosts`: the domain rule covers subdomains.
    #[error(
        "{text:?}: on_hosts takes exact host names, without wildcards; for {domain:?} and all its \
         subdomains use the rule on_domains with {domain:?}"
    )]
    Wildcard { text: String, domain: String },
    /// A port: hosts match whatever the port.
    #[error("{text:?} has a port: host names match URLs whatever their port; write {name:?}")]
    Port { text: String, name: String },
    /// An IPv6 address without the brackets a URL writes it in.
    #[error("{text:?} is an IPv6 address: a URL writes it in brackets; write {bracketed:?}")]
    Ipv6 { text: String, bracketed: String },
    /// Anything else no host can be.
    #[error("{0:?} is not a host name (write example.org, or an IP address)")]
    Other(String),
}

/// The host `text` names, as `url` writes hosts; for `on_domains` (`domain`) a leading `.` or `*.` is dropped
/// (a domain covers its subdomains already). The error says what to write.
pub(crate) fn host_entry(text: &str, domain: bool) -> Result<String, NotAHost> {
    let t = text.trim();
    let t = if domain {
        t.strip_prefix("*.")
            .or_else(|| t.strip_prefix('.'))
            .unwrap_or(t)
    } else {
        t
    };
    if t.contains("://") {
        let host = url::Url::parse(t)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned));
        return Err(NotAHost::Url {
            text: text.to_string(),
            host,
        });
    }
    if let Some(rest) = t.strip_prefix("*.") {
        return Err(NotAHost::Wildcard {
            text: text.to_string(),
            domain: rest.to_string(),
        });
    }
    // An IPv6 address is written in brackets, as in a URL (xt15b F10: `::1` was said to have a port).
    if let Ok(v6) = t.parse::<std::net::Ipv6Addr>() {
        return Err(NotAHost::Ipv6 {
            text: text.to_string(),
            bracketed: format!("[{v6}]"),
        });
    }
    if !t.starts_with('[')
        && let Some((name, port)) = t.rsplit_once(':')
        && !port.is_empty()
        && port.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(NotAHost::Port {
            text: text.to_string(),
            name: name.to_string(),
        });
    }
    let bad = || NotAHost::Other(text.to_string());
    if t.is_empty() || t.contains(['/', '@', '?', '#', '\\', '*', ' ']) {
        return Err(bad());
    }
    if t.contains(':') && !t.starts_with('[') {
        return Err(bad());
    }
    url::Url::parse(&format!("http://{t}/"))
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::host_entry;

    #[test]
    fn entries_are_hosts_as_urls_write_them() {
        assert_eq!(host_entry("Example.COM", false).unwrap(), "example.com");
        assert_eq!(host_entry("BÜCHER.de", true).unwrap(), "xn--bcher-kva.de");
        assert_eq!(host_entry("*.example.info", true).unwrap(), "example.info");
        assert_eq!(host_entry(".example.org", true).unwrap(), "example.org");
        assert_eq!(host_entry("127.0.0.2", false).unwrap(), "127.0.0.2");
        assert_eq!(host_entry("[::1]", false).unwrap(), "[::1]");
    }

    /// xt5 F8: what could never match is refused, naming what to write.
    #[test]
    fn entries_that_never_match_are_refused() {
        for (entry, domain, says) in [
            ("127.0.0.2:8601", false, "write \"127.0.0.2\""),
            ("http://example.net/", false, "write \"example.net\""),
            ("*.example.info", false, "on_domains"),
            ("example.org/path", true, "is not a host name"),
            ("", false, "is not a host name"),
            // xt15b F10.
            ("::1", false, "write \"[::1]\""),
            ("2001:db8::1", true, "write \"[2001:db8::1]\""),
        ] {
            let e = host_entry(entry, domain).unwrap_err();
            assert!(e.to_string().contains(says), "{entry}: {e}");
        }
    }
}
