//! `[[credentials]]` and the access keys of `[fetch]` (cookies, proxy): what the crawl may present to get in,
//! and how those settings are checked. The secrets themselves are read when the crawl starts
//! ([`CredentialSpec::password`]) and never serialised: the job's copy of the config holds no inline password.

use std::{collections::BTreeMap, path::PathBuf};

use serde::{Deserialize, Serialize};
use trawl_url::Url;

/// `[fetch] cookies`: where cookies are kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CookieMode {
    /// No cookies are stored or sent.
    Off,
    /// One jar for the whole job. Default.
    #[default]
    Job,
    /// One jar per set of sheets that apply to a URI (a sheet isolates its hosts' cookies).
    Sheet,
}

/// How a credential answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CredentialKind {
    /// HTTP Basic, answered when a 401 asks for it.
    Basic,
    /// HTTP Digest, answered when a 401 asks for it.
    Digest,
    /// An HTML form posted before the host's first page.
    Form,
}

/// How a form login is known to have worked (exactly one key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LoginSuccess {
    /// The login response set a cookie of this name.
    Cookie(String),
    /// The login response redirected to a URL starting with this.
    RedirectTo(String),
    /// The login response's body contains this text.
    Text(String),
}

/// How a page shows the session was lost (for a form login: log in again and fetch the page once more).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LoggedOut {
    /// The page's body contains this text.
    Text(String),
    /// The page redirects to a URL starting with this.
    RedirectTo(String),
}

/// One `[[credentials]]` entry.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CredentialSpec {
    /// `basic`, `digest` or `form`.
    pub kind: CredentialKind,
    /// The host it is for (`example.org`, or `example.org:8443` for one port); only that host, never its
    /// subdomains (use `surt_prefix` for those).
    pub domain: Option<String>,
    /// A SURT prefix it is for instead, e.g. `http://(org,example,`.
    pub surt_prefix: Option<String>,
    /// For Basic and Digest: answer only a challenge of this realm. Default: any realm.
    pub realm: Option<String>,
    /// The user name.
    #[serde(default)]
    pub user: String,
    /// The environment variable holding the password.
    pub password_env: Option<String>,
    /// A file whose first line is the password (relative to the config's folder).
    pub password_file: Option<PathBuf>,
    /// The password itself (discouraged: `trawl check` warns; never written to the job's copy).
    #[serde(skip_serializing, default)]
    pub password: Option<String>,
    /// Form: the login page. It is read first (GET, with the jar's cookies) and its form submitted as a
    /// browser would: to the form's `action`, with its hidden fields and default values.
    pub login_url: Option<String>,
    /// Form: what a person would type into the form besides the password, e.g. `{ log = "archivist" }`; the
    /// form's hidden fields and default values come from the page.
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
    /// Form: the field the password goes in. Default: the form's password input.
    pub password_field: Option<String>,
    /// Form: a CSS selector picking the login form (e.g. `#loginform`). Default: the form with a password
    /// input.
    pub form: Option<String>,
    /// Form: regexes of more URLs never fetched while the crawl is logged in (besides sign-out links and
    /// nonce'd action links, which never are).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub avoid: Vec<String>,
    /// Form: how success shows. Default: the login set or changed a cookie, and neither its answer nor the
    /// page it redirects to shows the login form again.
    pub success: Option<LoginSuccess>,
    /// Form: how a lost session shows on a page. Default: a redirect to the login URL (any query), or the
    /// login form shown again.
    pub logged_out: Option<LoggedOut>,
    /// Send the secret (the form's password, the Basic or Digest answer) to a server whose TLS certificate
    /// failed validation too (a self-signed intranet host). Default false: such a server gets no secret.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_invalid_certificate: bool,
}

impl std::fmt::Debug for CredentialSpec {
    // The password never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialSpec")
            .field("kind", &self.kind)
            .field("domain", &self.domain)
            .field("surt_prefix", &self.surt_prefix)
            .field("user", &self.user)
            .field("login_url", &self.login_url)
            .finish_non_exhaustive()
    }
}

/// What a missing variable is when trawl named it: the job's copy of crawl.toml writes `TRAWL_PASSWORD_N` in
/// place of an inline password (xt14a F20: a resume asked for a variable the operator never wrote).
fn stand_in_note(var: &str) -> &'static str {
    if var.starts_with("TRAWL_PASSWORD_") {
        " (the job's copy of crawl.toml names it in place of the credential's inline `password`, which it never \
         keeps: set it to that password)"
    } else {
        ""
    }
}

/// Why a credential's password could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// The named environment variable is not set.
    #[error("environment variable {var} is not set{note}", var = .0, note = stand_in_note(.0))]
    MissingEnv(String),
    /// The password file could not be read.
    #[error("cannot read {path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// None of `password_env`, `password_file`, `password` is given.
    #[error("no password: give password_env or password_file")]
    Missing,
    /// A form credential's password is empty: each login would post it and fail at the site, counting
    /// towards its lockout (xt18a F4).
    #[error(
        "the password from {0} is empty: set it (a form login posts nothing useful without one)"
    )]
    Empty(String),
}

impl CredentialSpec {
    /// The password: from the environment, a file (first line, a byte order mark before it dropped, as an
    /// editor on Windows writes one), or inline. A form credential's may not be empty (a Basic one's may: an
    /// API key as the user name, no password).
    pub fn password(&self, base: &std::path::Path) -> Result<String, SecretError> {
        let (password, whence) = if let Some(var) = &self.password_env {
            let value = std::env::var(var).map_err(|_| SecretError::MissingEnv(var.clone()))?;
            (value, format!("environment variable {var}"))
        } else if let Some(file) = &self.password_file {
            let path = base.join(file);
            let text = super::named_file::read_named_to_string(&path).map_err(|source| {
                SecretError::File {
                    path: path.clone(),
                    source,
                }
            })?;
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            let first = text.lines().next().unwrap_or_default().to_string();
            (first, format!("the first line of {}", path.display()))
        } else {
            let inline = self.password.clone().ok_or(SecretError::Missing)?;
            (inline, "`password`".to_string())
        };
        if password.is_empty() && self.kind == CredentialKind::Form {
            return Err(SecretError::Empty(whence));
        }
        Ok(password)
    }

    /// Whether the credential is for `url`'s host: the same host (and port, when `domain` names one), or under
    /// its SURT prefix.
    pub fn applies_to(&self, url: &Url) -> bool {
        if let Some(domain) = &self.domain {
            let host = url.host_str().unwrap_or_default();
            let (name, port) = match domain.rsplit_once(':') {
                Some((n, p)) if p.parse::<u16>().is_ok() => (n, p.parse::<u16>().ok()),
                _ => (domain.as_str(), None),
            };
            return host.eq_ignore_ascii_case(name)
                && port.is_none_or(|p| url.port_or_known_default() == Some(p));
        }
        self.surt_prefix
            .as_deref()
            .and_then(credential_prefix)
            .is_some_and(|p| p.contains(url))
    }

    /// The form field the password goes in when the login page has no form to name it: `password_field`,
    /// else `password`.
    pub fn password_field(&self) -> &str {
        self.password_field.as_deref().unwrap_or("password")
    }

    /// What is wrong with the entry, as `(key under the entry, message)`.
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut say = |k: &str, m: String| out.push((k.to_string(), m));
        match (&self.domain, &self.surt_prefix) {
            (None, None) => say(
                "",
                "a credential needs `domain` or `surt_prefix`: the host it may be sent to".into(),
            ),
            (Some(_), Some(_)) => say(
                "surt_prefix",
                "give `domain` or `surt_prefix`, not both".into(),
            ),
            (Some(d), None) if d.contains(['/', ' ']) || d.is_empty() => say(
                "domain",
                format!("{d:?} is not a host name (write example.org or example.org:8443)"),
            ),
            (None, Some(p)) if credential_prefix(p).is_none() => say(
                "surt_prefix",
                format!("{p:?} is not a SURT prefix (write http://(org,example,)"),
            ),
            _ => {}
        }
        // A prefix naming an address with commas matches nothing, whatever the credential's kind: said with
        // the form that matches (review 86 R8).
        let comma = self
            .surt_prefix
            .as_deref()
            .and_then(super::seed_list::comma_address);
        if let Some((dotted, reversed)) = &comma {
            say(
                "surt_prefix",
                format!(
                    "{:?} names an IP address with commas: a SURT prefix writes an address as it is, dotted, \
                     so no URL is under it; write {dotted:?}, or {reversed:?} if the commas reversed it as the \
                     CDX index's form does",
                    self.surt_prefix.as_deref().unwrap_or_default()
                ),
            );
        }
        let sources = [
            self.password_env.is_some(),
            self.password_file.is_some(),
            self.password.is_some(),
        ];
        match sources.iter().filter(|s| **s).count() {
            0 => say(
                "",
                "no password: give password_env (an environment variable) or password_file".into(),
            ),
            1 => {}
            _ => say(
                "password_env",
                "give one of password_env, password_file, password".into(),
            ),
        }
        if self.user.is_empty() && self.kind != CredentialKind::Form {
            say("user", "a Basic or Digest credential needs `user`".into());
        }
        if self.kind == CredentialKind::Form {
            // A form login types its user name through `fields` (xt17a F9: `user` was silently ignored).
            if !self.user.is_empty() && self.fields.is_empty() {
                say(
                    "user",
                    format!(
                        "`user` is for Basic and Digest credentials; a form login types it through `fields`, \
                         named as the form's input: fields = {{ username = {:?} }}",
                        self.user
                    ),
                );
            }
            // A path alone would be read as a host (`/login` as `http://login/`); a URL without its scheme
            // (`a.org/login`) is read as `http://` (review 66 R4).
            let path_only = |u: &str| u.trim_start().starts_with('/');
            match self.login_url.as_deref().map(trawl_url::parse_lenient) {
                None => say("login_url", "a form credential needs `login_url`".into()),
                Some(_) if self.login_url.as_deref().is_some_and(path_only) => say(
                    "login_url",
                    format!(
                        "{:?} is a path, not a URL: write it with its scheme and host (http://{}{})",
                        self.login_url.as_deref().unwrap_or_default(),
                        self.domain.as_deref().unwrap_or("HOST"),
                        self.login_url.as_deref().unwrap_or_default()
                    ),
                ),
                Some(Err(e)) => say("login_url", format!("not a URL: {e}")),
                Some(Ok(u)) if !matches!(u.scheme(), "http" | "https") => say(
                    "login_url",
                    format!("{u} is no http or https URL: a form login reads a web page"),
                ),
                // Said only of a credential with a host to compare with (xt44b F5).
                Some(Ok(u))
                    if (self.domain.is_some() || self.surt_prefix.is_some())
                        && !self.applies_to(&u) =>
                {
                    // A prefix naming an address with commas is said at the prefix (below), not here
                    // (xt46c N4: the login URL was blamed).
                    if comma.is_none() {
                        say(
                            "login_url",
                            "the login URL is not on the credential's host: the password would go elsewhere"
                                .into(),
                        )
                    }
                }
                Some(Ok(_)) => {}
            }
            if let Some(selector) = &self.form
                && let Err(e) = trawl_extract::form::check_selector(selector)
            {
                say("form", e.to_string());
            }
            for (i, pattern) in self.avoid.iter().enumerate() {
                if let Err(e) = regex::Regex::new(pattern) {
                    say(
                        &format!("avoid[{i}]"),
                        format!("{pattern:?} is not a valid regex: {e}"),
                    );
                }
            }
        } else {
            for (key, set) in [
                ("login_url", self.login_url.is_some()),
                ("fields", !self.fields.is_empty()),
                ("password_field", self.password_field.is_some()),
                ("form", self.form.is_some()),
                ("avoid", !self.avoid.is_empty()),
                ("success", self.success.is_some()),
                ("logged_out", self.logged_out.is_some()),
            ] {
                if set {
                    say(key, format!("`{key}` is for form credentials only"));
                }
            }
        }
        out
    }
}

/// A `[fetch] proxy`: where connections go through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proxy {
    /// SOCKS5 (`socks5://`) or HTTP CONNECT (`http://`).
    pub kind: ProxyKind,
    /// `host:port` of the proxy.
    pub address: String,
    /// User and password for the proxy, from the URL (the password from [`PROXY_PASSWORD_ENV`] where the URL
    /// names a user only): SOCKS5's username/password method, or an HTTP proxy's Basic `Proxy-Authorization`.
    pub auth: Option<(String, String)>,
}

/// The proxy protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProxyKind {
    /// SOCKS5 (RFC 1928), the origin's address resolved here (the address policy is checked first).
    Socks5,
    /// An HTTP proxy, through a `CONNECT` tunnel for every origin (so the archive holds the origin exchange).
    HttpConnect,
}

/// The environment variable a proxy's password comes from when its URL names a user but no password
/// (`socks5://user@host:port`, `http://user@host:port`): the job's copy of the config never keeps a proxy password, so a resumed crawl
/// reads it from here.
pub const PROXY_PASSWORD_ENV: &str = "TRAWL_PROXY_PASSWORD";

/// `text` with any password of its URL left out (`socks5://user:secret@h:1` → `socks5://user@h:1`): what the
/// job's copy of the config, the warcinfo record and reports keep.
pub fn proxy_without_password(text: &str) -> String {
    match Url::parse(text) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(None);
            url.to_string().trim_end_matches('/').to_string()
        }
        _ => text.to_string(),
    }
}

/// Serialises a `proxy` key without its password (see [`proxy_without_password`]).
pub(crate) fn serialize_proxy<S: serde::Serializer>(
    proxy: &Option<String>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match proxy {
        Some(p) => s.serialize_some(&proxy_without_password(p)),
        None => s.serialize_none(),
    }
}

/// Serialises a sheet's `set` table with any `fetch.proxy` value's password left out.
pub(crate) fn serialize_sheet_set<S: serde::Serializer>(
    set: &toml::Table,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::Serialize;
    without_proxy_password(set).serialize(s)
}

/// Puts into `v`, `base` as serialised, the secrets that serialisation left out (see [`serialize_proxy`]):
/// the proxy's password, inline credential passwords and the sheets' `set` tables whole. A sheet or a live
/// change builds its config from that form, and without this the URIs under a sheet went through the proxy
/// without its password and a changed crawl logged in with none (stop 61's review). They are put back before
/// the change is applied, so a setting the change makes wins as written.
pub(crate) fn put_secrets(base: &super::CrawlConfig, v: &mut toml::Value) {
    if let Some(full) = &base.fetch.proxy
        && let Some(fetch) = v.get_mut("fetch").and_then(toml::Value::as_table_mut)
    {
        fetch.insert("proxy".into(), toml::Value::String(full.clone()));
    }
    if let Some(toml::Value::Array(credentials)) = v.get_mut("credentials") {
        for (spec, table) in base.credentials.iter().zip(credentials) {
            if let (Some(password), Some(table)) = (&spec.password, table.as_table_mut()) {
                table.insert("password".into(), toml::Value::String(password.clone()));
            }
        }
    }
    if let Some(toml::Value::Array(sheets)) = v.get_mut("sheet") {
        for (spec, table) in base.sheets.iter().zip(sheets) {
            if let Some(table) = table.as_table_mut() {
                table.insert("set".into(), toml::Value::Table(spec.set.clone()));
            }
        }
    }
}

impl super::CrawlConfig {
    /// Every proxy the config names, with its key: `fetch.proxy` and each sheet's (a sheet's `""` names
    /// none: its hosts are fetched direct, xt46a F6).
    fn proxies(&self) -> impl Iterator<Item = (String, &str)> {
        let sheets = self.sheets.iter().enumerate().filter_map(|(i, sheet)| {
            let proxy = match sheet.set.get("fetch.proxy") {
                Some(toml::Value::String(p)) => Some(p),
                _ => match sheet.set.get("fetch").and_then(|f| f.get("proxy")) {
                    Some(toml::Value::String(p)) => Some(p),
                    _ => None,
                },
            };
            proxy.map(|p| (format!("sheet[{i}].set: fetch.proxy"), p.as_str()))
        });
        self.fetch
            .proxy
            .as_deref()
            .map(|p| ("fetch.proxy".to_string(), p))
            .into_iter()
            .chain(sheets)
            .filter(|(_, p)| !p.is_empty())
    }

    /// What keeps a crawl from starting with these proxies: one naming a user whose password is neither in
    /// the URL nor in [`PROXY_PASSWORD_ENV`] (a config is checked without it: see [`Proxy::check_form`]).
    pub fn proxy_password_problem(&self) -> Option<String> {
        self.proxies()
            .find_map(|(key, text)| Proxy::parse(text).err().map(|e| format!("{key}: {e}")))
    }

    /// The first password written in the config itself (a credential's `password`, a proxy's `USER:PASS@`),
    /// by its key: what a shared crawl cannot carry to its other workers (xt14a F2).
    pub fn inline_secret(&self) -> Option<String> {
        let credential = self
            .credentials
            .iter()
            .position(|c| c.password.is_some())
            .map(|i| format!("credentials[{i}].password"));
        credential.or_else(|| {
            self.proxies()
                .find(|(_, text)| Url::parse(text).is_ok_and(|u| u.password().is_some()))
                .map(|(key, _)| key)
        })
    }
}

/// A sheet's `set` table with any `fetch.proxy` value's password left out.
pub fn without_proxy_password(set: &toml::Table) -> toml::Table {
    let mut set = set.clone();
    if let Some(toml::Value::String(p)) = set.get_mut("fetch.proxy") {
        *p = proxy_without_password(p);
    }
    if let Some(toml::Value::Table(fetch)) = set.get_mut("fetch")
        && let Some(toml::Value::String(p)) = fetch.get_mut("proxy")
    {
        *p = proxy_without_password(p);
    }
    set
}

/// Why a `[fetch] proxy` value is not a proxy: the message says what to write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadProxy(String);

impl Proxy {
    /// Reads `socks5://[user[:pass]@]host:port` or `http://host:port`; a user without a password takes it from
    /// [`PROXY_PASSWORD_ENV`].
    pub fn parse(text: &str) -> Result<Proxy, BadProxy> {
        Proxy::parse_inner(text, true)
    }

    /// Whether `text` is a proxy trawl can use, its password aside: what a config is checked for. The
    /// password of a user named without one is looked for where a crawl starts ([`Proxy::parse`]), so a job's
    /// copy of crawl.toml (which never keeps it) is read, verified and changed without it (xt14a F4).
    pub fn check_form(text: &str) -> Result<(), BadProxy> {
        Proxy::parse_inner(text, false).map(|_| ())
    }

    fn parse_inner(text: &str, with_password: bool) -> Result<Proxy, BadProxy> {
        // Messages name the proxy without its password.
        let shown = proxy_without_password(text);
        let url = Url::parse(text).map_err(|e| BadProxy(format!("{shown:?} is not a URL: {e}")))?;
        let kind = match url.scheme() {
            "socks5" => ProxyKind::Socks5,
            "socks5h" => {
                return Err(BadProxy(format!(
                    "{shown:?}: socks5h (names resolved by the proxy) is not supported: trawl resolves every name \
                     itself so the address policy can judge the address; write socks5://"
                )));
            }
            "http" => ProxyKind::HttpConnect,
            other => {
                return Err(BadProxy(format!(
                    "proxy scheme {other:?} is not supported: write socks5://HOST:PORT or http://HOST:PORT"
                )));
            }
        };
        let host = url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| BadProxy(format!("{shown:?} names no proxy host")))?;
        let port = url.port().ok_or_else(|| {
            BadProxy(format!(
                "{shown:?} names no port (write {}://{host}:PORT)",
                url.scheme()
            ))
        })?;
        // RFC 7617: a Basic user-id holds no colon (the first one ends it).
        if kind == ProxyKind::HttpConnect
            && percent_encoding::percent_decode_str(url.username())
                .decode_utf8_lossy()
                .contains(':')
        {
            return Err(BadProxy(format!(
                "{shown:?}: an HTTP proxy's user name cannot hold a colon (Basic credentials end it there)"
            )));
        }
        let auth = if url.username().is_empty() {
            None
        } else {
            // As written in a URL, percent-encoded (`p%40ss` is `p@ss`); the variable's is as it is.
            let decoded = |t: &str| {
                percent_encoding::percent_decode_str(t)
                    .decode_utf8_lossy()
                    .into_owned()
            };
            let password = match url.password() {
                Some(p) => decoded(p),
                None if !with_password => String::new(),
                None => std::env::var(PROXY_PASSWORD_ENV).map_err(|_| {
                    BadProxy(format!(
                        "{} names user {:?} but no password: set the environment variable \
                         {PROXY_PASSWORD_ENV} (the job's copy of crawl.toml never keeps a proxy password)",
                        shown,
                        url.username()
                    ))
                })?,
            };
            Some((decoded(url.username()), password))
        };
        Ok(Proxy {
            kind,
            address: format!("{host}:{port}"),
            auth,
        })
    }
}

/// Whether `url` is on this machine (a loopback address or `localhost`): a crawl of only such URLs may keep
/// the placeholder user agent.
pub fn is_local(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d == "localhost" || d.ends_with(".localhost"),
        None => false,
    }
}

/// Whether a user agent names a way to reach the operator: a URL (`+https://…`) or an e-mail address, and not
/// the shipped placeholder.
pub fn user_agent_has_contact(agent: &str) -> bool {
    if agent.contains("example.invalid") || agent.contains("ENTER-") {
        return false;
    }
    agent.contains("http://")
        || agent.contains("https://")
        || agent
            .split(|c: char| c.is_whitespace() || "();+<>".contains(c))
            .any(|w| {
                w.split_once('@')
                    .is_some_and(|(a, d)| !a.is_empty() && d.contains('.'))
            })
}

/// A credential's `surt_prefix`, read as the scope's SURT prefixes are (`https://(` folded to http, `(org,`,
/// the CDX form `org,example)/`: xt44b F12), but only one written in SURT form: a bare host or URL, which the
/// scope reads as a whole domain, would send the password to every subdomain (review 83 R3).
fn credential_prefix(text: &str) -> Option<trawl_url::SurtPrefix> {
    if !text.contains(['(', ')']) {
        return None;
    }
    super::seed_list::directive_prefix(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> CredentialSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_prefix_naming_an_address_with_commas_is_blamed_not_the_login_url() {
        let c = spec(
            "kind = \"form\"\nsurt_prefix = \"http://(1,0,0,127:18371)/\"\n\
             login_url = \"http://127.0.0.1:18371/login\"\npassword_env = \"X\"\n",
        );
        let problems = c.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].0, "surt_prefix");
        assert!(
            problems[0].1.contains("\"http://(127.0.0.1:18371)/\""),
            "{problems:?}"
        );
        // A Basic credential's too (review 86 R8).
        let c = spec(
            "kind = \"basic\"\nsurt_prefix = \"http://(1,0,0,127:18371)/\"\nuser = \"u\"\n\
             password_env = \"X\"\n",
        );
        let keys: Vec<String> = c.problems().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["surt_prefix"]);
    }

    #[test]
    fn a_credential_applies_to_its_host_only() {
        let c = spec("kind = \"basic\"\ndomain = \"a.org\"\nuser = \"u\"\npassword_env = \"X\"\n");
        let at = |u: &str| c.applies_to(&Url::parse(u).unwrap());
        assert!(at("http://a.org/x") && at("https://A.org:8443/"));
        assert!(!at("http://b.a.org/") && !at("http://a.org.evil/") && !at("http://b.org/"));
        let c =
            spec("kind = \"basic\"\ndomain = \"a.org:8080\"\nuser = \"u\"\npassword_env = \"X\"\n");
        assert!(c.applies_to(&Url::parse("http://a.org:8080/").unwrap()));
        assert!(!c.applies_to(&Url::parse("http://a.org/").unwrap()));
        let c = spec(
            "kind = \"digest\"\nsurt_prefix = \"http://(org,a,\"\nuser = \"u\"\npassword_env = \"X\"\n",
        );
        assert!(c.applies_to(&Url::parse("http://www.a.org/").unwrap()));
        assert!(c.problems().is_empty(), "{:?}", c.problems());
        assert!(!c.allow_invalid_certificate, "off by default");
        // Written as the scope's prefixes may be: `https://(`, `(org,` (xt44b F12).
        // A bare host is no SURT prefix: read as the scope reads one, it would take in every subdomain.
        let bare =
            spec("kind = \"basic\"\nsurt_prefix = \"a.org\"\nuser = \"u\"\npassword_env = \"X\"\n");
        assert!(!bare.applies_to(&Url::parse("http://x.a.org/").unwrap()));
        assert_eq!(bare.problems()[0].0, "surt_prefix");
        for prefix in ["https://(127.0.0.1:8443)/", "(127.0.0.1:8443)/"] {
            let c = spec(&format!(
                "kind = \"basic\"\nsurt_prefix = \"{prefix}\"\nuser = \"u\"\npassword_env = \"X\"\n"
            ));
            assert!(
                c.applies_to(&Url::parse("https://127.0.0.1:8443/login").unwrap()),
                "{prefix}"
            );
            assert!(!c.applies_to(&Url::parse("https://127.0.0.1:8444/login").unwrap()));
            assert!(c.problems().is_empty(), "{prefix}: {:?}", c.problems());
        }
    }

    /// A credential without a host is said so once, not also of its login URL (xt44b F5).
    #[test]
    fn a_credential_without_a_host_is_said_once() {
        let c = spec("kind = \"form\"\nlogin_url = \"http://a.org/login\"\npassword_env = \"X\"\n");
        let keys: Vec<String> = c.problems().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, [""], "{:?}", c.problems());
    }

    /// A form credential's empty password is refused before any login posts it; a password file's byte order
    /// mark is no part of the password; a Basic credential may have an empty one (xt18a F4).
    #[test]
    fn an_empty_form_password_is_refused_and_a_bom_dropped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bom.txt"), "\u{feff}s3cret\r\n").unwrap();
        std::fs::write(dir.path().join("empty.txt"), "\n").unwrap();
        let form = |password: &str| {
            spec(&format!(
                "kind = \"form\"\ndomain = \"a.org\"\nlogin_url = \"http://a.org/l\"\n{password}\n"
            ))
        };
        let base = dir.path();
        assert_eq!(
            form("password_file = \"bom.txt\"").password(base).unwrap(),
            "s3cret"
        );
        let e = form("password_file = \"empty.txt\"")
            .password(base)
            .unwrap_err();
        assert!(e.to_string().contains("is empty"), "{e}");
        let e = form("password = \"\"").password(base).unwrap_err();
        assert!(e.to_string().contains("`password` is empty"), "{e}");
        let basic = spec("kind = \"basic\"\ndomain = \"a.org\"\nuser = \"key\"\npassword = \"\"\n");
        assert_eq!(basic.password(base).unwrap(), "");
    }

    #[test]
    fn allow_invalid_certificate_is_read_and_kept() {
        let c = spec(
            "kind = \"basic\"\ndomain = \"a.org\"\nuser = \"u\"\npassword_env = \"X\"\nallow_invalid_certificate = true\n",
        );
        assert!(c.allow_invalid_certificate && c.problems().is_empty());
        let copy = toml::to_string(&c).unwrap();
        assert!(copy.contains("allow_invalid_certificate = true"), "{copy}");
        assert_eq!(spec(&copy), c);
    }

    #[test]
    fn mistakes_are_named_at_their_key() {
        let c = spec(
            "kind = \"form\"\ndomain = \"a.org\"\npassword = \"p\"\npassword_env = \"P\"\nlogin_url = \"http://b.org/login\"\n\
             form = \"form[\"\navoid = [\"ok\", \"(\"]\n",
        );
        let keys: Vec<String> = c.problems().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["password_env", "login_url", "form", "avoid[1]"]);
        // Neither `success` nor `logged_out` is needed.
        let c = spec(
            "kind = \"form\"\ndomain = \"a.org\"\npassword_env = \"P\"\nlogin_url = \"http://a.org/login\"\n",
        );
        assert!(c.problems().is_empty(), "{:?}", c.problems());
        let c = spec(
            "kind = \"basic\"\ndomain = \"a.org\"\nuser = \"u\"\npassword_env = \"P\"\navoid = [\"x\"]\n",
        );
        assert_eq!(c.problems()[0].0, "avoid");
        assert!(
            !format!("{c:?}").contains("\"p\""),
            "the password is not in Debug"
        );
        assert!(!toml::to_string(&c).unwrap().contains("password ="));
    }

    #[test]
    fn a_port_keeps_a_credential_to_https() {
        let c =
            spec("kind = \"basic\"\ndomain = \"a.org:443\"\nuser = \"u\"\npassword_env = \"P\"\n");
        assert!(c.applies_to(&Url::parse("https://a.org/x").unwrap()));
        assert!(!c.applies_to(&Url::parse("http://a.org/x").unwrap()));
        assert!(!c.applies_to(&Url::parse("https://b.a.org/x").unwrap()));
    }

    #[test]
    fn proxies_and_user_agents() {
        let p = Proxy::parse("socks5://u:p@127.0.0.1:1080").unwrap();
        assert_eq!(
            (p.kind, p.address.as_str()),
            (ProxyKind::Socks5, "127.0.0.1:1080")
        );
        assert_eq!(p.auth, Some(("u".into(), "p".into())));
        assert_eq!(
            Proxy::parse("http://[::1]:3128").unwrap().address,
            "[::1]:3128"
        );
        assert_eq!(
            proxy_without_password("socks5://u:secret@127.0.0.1:1080"),
            "socks5://u@127.0.0.1:1080"
        );
        assert_eq!(
            proxy_without_password("http://127.0.0.1:3128"),
            "http://127.0.0.1:3128"
        );
        for bad in ["ftp://x:1", "socks5h://h:1", "socks5://host", "nonsense"] {
            assert!(Proxy::parse(bad).is_err(), "{bad}");
        }
        // An HTTP proxy's user and password too, as written in a URL: percent-encoded (xt46a F8).
        assert_eq!(
            Proxy::parse("http://u%40x:p%3Aw@x:1").unwrap().auth,
            Some(("u@x".into(), "p:w".into()))
        );
        assert!(
            Proxy::parse("http://u%3Ax:p@x:1").is_err(),
            "a colon in a Basic user-id"
        );
        assert!(user_agent_has_contact(
            "bot/1 (+https://archive.example.org/bot)"
        ));
        assert!(user_agent_has_contact("bot/1 (crawl-team@example.org)"));
        assert!(!user_agent_has_contact(
            "trawl/0.1 (+https://example.invalid/trawl)"
        ));
        assert!(!user_agent_has_contact("Mozilla/5.0"));
    }

    /// A job's copy names a proxy user without the password: it is checked, read and changed without it; a
    /// crawl starting from it needs the variable (xt14a F4). A password written in the config is named for a
    /// shared crawl (xt14a F2).
    #[test]
    fn a_proxy_password_is_needed_to_crawl_only() {
        let text = "[fetch]\nproxy = \"socks5://u@127.0.0.1:1080\"\n";
        let c = crate::CrawlConfig::check_str(text, std::path::Path::new("crawl.toml")).unwrap();
        if std::env::var(PROXY_PASSWORD_ENV).is_err() {
            let problem = c.proxy_password_problem().unwrap();
            assert!(
                problem.starts_with("fetch.proxy: ") && problem.contains(PROXY_PASSWORD_ENV),
                "{problem}"
            );
        }
        assert_eq!(c.inline_secret(), None);
        let inline: crate::CrawlConfig = toml::from_str(
            "[[sheet]]\nname = \"s\"\nsurt_prefixes = [\"http://(org,\"]\n\
             set = { \"fetch.proxy\" = \"socks5://u:pw@127.0.0.1:1080\" }\n",
        )
        .unwrap();
        assert_eq!(inline.proxy_password_problem(), None);
        assert_eq!(
            inline.inline_secret().as_deref(),
            Some("sheet[0].set: fetch.proxy")
        );
        // A sheet's `""` is no proxy: its hosts are fetched direct (xt46a F6: the crawl refused it as a URL).
        let direct: crate::CrawlConfig = toml::from_str(
            "[fetch]\nproxy = \"http://127.0.0.1:3128\"\n[[sheet]]\nname = \"s\"\n\
             surt_prefixes = [\"http://(org,\"]\nset = { \"fetch.proxy\" = \"\" }\n",
        )
        .unwrap();
        assert_eq!(direct.proxy_password_problem(), None);
    }
}
