//! A URL taken apart into strings the byte-level canonicalizers (google, ia, semantic, aggressive) edit freely,
//! then put back together. The WHATWG parser has already run, so every part is well formed to begin with.

use url::Url;

/// The parts of a URL, as plain strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parts {
    pub(crate) scheme: String,
    pub(crate) username: String,
    pub(crate) password: Option<String>,
    /// `None` for URLs without an authority (`mailto:`, `dns:`); those are left as they are.
    pub(crate) host: Option<String>,
    pub(crate) port: Option<u16>,
    pub(crate) path: String,
    pub(crate) query: Option<String>,
    pub(crate) fragment: Option<String>,
}

impl Parts {
    pub(crate) fn from_url(url: &Url) -> Parts {
        Parts {
            scheme: url.scheme().to_string(),
            username: url.username().to_string(),
            password: url.password().map(str::to_string),
            host: url.host_str().map(str::to_string),
            port: url.port(),
            path: url.path().to_string(),
            query: url.query().map(str::to_string),
            fragment: url.fragment().map(str::to_string),
        }
    }

    /// The default port of the scheme, as IA's canonicalizer knows it (http and https only).
    pub(crate) fn default_port(&self) -> Option<u16> {
        match self.scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        }
    }

    /// `scheme://user:pass@host:port/path?query#fragment`, or `scheme:path...` when there is no host.
    pub(crate) fn serialize(&self) -> String {
        let mut out = String::with_capacity(
            self.scheme.len()
                + self.host.as_ref().map_or(0, String::len)
                + self.path.len()
                + self.query.as_ref().map_or(0, String::len)
                + 16,
        );
        out.push_str(&self.scheme);
        out.push(':');
        if let Some(host) = &self.host {
            out.push_str("//");
            if !self.username.is_empty() || self.password.is_some() {
                out.push_str(&self.username);
                if let Some(p) = &self.password {
                    out.push(':');
                    out.push_str(p);
                }
                out.push('@');
            }
            out.push_str(host);
            if let Some(port) = self.port {
                out.push(':');
                out.push_str(&port.to_string());
            }
        } else if self.path.starts_with("//") {
            // As the WHATWG serializer does: without it, `x:` + `//a/b` would read back with `a` as its host.
            out.push_str("/.");
        }
        out.push_str(&self.path);
        if let Some(q) = &self.query {
            out.push('?');
            out.push_str(q);
        }
        if let Some(f) = &self.fragment {
            out.push('#');
            out.push_str(f);
        }
        out
    }
}
