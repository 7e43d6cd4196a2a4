//! The entries of `on_hosts` and `on_domains`, read as URLs' hosts are: lower-case, IDNA-mapped
//! (`BÜCHER.de` is `xn--bcher-kva.de`). What can never equal a URL's host (a port, a scheme, a path, a
//! wildcard in `on_hosts`) is refused with the entry to write instead, so that no entry silently matches
//! nothing.

/// The host `text` names, as `url` writes hosts; for `on_domains` (`domain`) a leading `.` or `*.` is dropped
/// (a domain covers its subdomains already). The error says what to write.
pub(crate) fn host_entry(text: &str, domain: bool) -> Result<String, String> {
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
        return Err(match host {
            Some(h) => format!("{text:?} is a URL, not a host name: write {h:?}"),
            None => format!("{text:?} is a URL, not a host name: write the host alone"),
        });
    }
    if let Some(rest) = t.strip_prefix("*.") {
        return Err(format!(
            "{text:?}: on_hosts takes exact host names, without wildcards; for {rest:?} and all its \
             subdomains use the rule on_domains with {rest:?}"
        ));
    }
    if !t.starts_with('[')
        && let Some((name, port)) = t.rsplit_once(':')
        && !port.is_empty()
        && port.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(format!(
            "{text:?} has a port: host names match URLs whatever their port; write {name:?}"
        ));
    }
    let bad = || format!("{text:?} is not a host name (write example.org, or an IP address)");
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
        ] {
            let e = host_entry(entry, domain).unwrap_err();
            assert!(e.contains(says), "{entry}: {e}");
        }
    }
}
