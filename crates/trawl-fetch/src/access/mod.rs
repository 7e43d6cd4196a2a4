//! Access: what the crawl presents to get in — cookies ([`cookies`]), answers to HTTP Basic and Digest
//! challenges, and HTML form logins ([`form`]: what is submitted, how the answer is judged) — each credential
//! bound to its host and read once at the start. The fetch stage asks here what to send and tells here what
//! came back; nothing here does I/O but the cookie jar's save.
//!
//! A credential is only ever sent to a URL it [applies to](CredentialSpec::applies_to): redirects are not
//! followed by the fetcher (they become `R` links, fetched on their own), so a redirect to another origin
//! never carries it.

mod cookie_limits;
mod cookies;
pub mod form;

use std::{
    collections::HashMap,
    path::Path,
    sync::{Arc, Mutex},
};

use http::{HeaderMap, HeaderValue, header::WWW_AUTHENTICATE};
use http_auth::{PasswordClient, PasswordParams};
use url::Url;

pub use self::cookies::{COOKIES_FILE, CookiesFileError};
pub use self::cookies::{JarCookie, Jars};
use self::form::FormSignature;
pub use self::form::{login_worked, sign_shows};
use trawl_config::settings::{CrawlConfig, CredentialKind, CredentialSpec, access::SecretError};

/// Why the access settings could not be put to use when the crawl started.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    /// A credential's password could not be read.
    #[error("credentials[{index}]: {source}")]
    Secret {
        /// Its index in `[[credentials]]`.
        index: usize,
        /// Why.
        source: SecretError,
    },
    /// `[fetch] cookies_file` could not be read.
    #[error("fetch.cookies_file: {0}")]
    CookiesFile(#[from] CookiesFileError),
}

/// A credential with its password.
struct Credential {
    spec: CredentialSpec,
    password: String,
}

/// The login state of one origin with a form credential.
#[derive(Debug, Default)]
pub struct Session {
    /// Counts logins that worked; a page fetched under generation N that shows the session lost asks for a
    /// login only if no other worker logged in since.
    pub generation: u64,
    /// Whether the last login worked.
    pub logged_in: bool,
    /// Logins that failed in a row: past [`MAX_FAILED_LOGINS`] the origin is crawled without logging in.
    pub failures: u32,
    /// The login form of the last login: a page showing it again shows the session lost.
    pub form: Option<FormSignature>,
    /// Other sign-in pages (host and path) that pages still redirected to right after a fresh login: areas
    /// the account may not enter (Django's admin for a user who is not staff), no sign of a lost session.
    pub not_allowed: std::collections::HashSet<String>,
    /// Pages (whole URLs) that show the session lost whoever asks: one that still showed it right after a
    /// fresh login (a re-authentication form in the member area), or whose sign a re-login proved false (the
    /// login page sent the still logged-in crawler on). No sign of a lost session from then on (xt17a F1, F2).
    pub no_sign: std::collections::HashSet<String>,
    /// Pages spared that way right after a fresh login: past the first, the next one to stay lost ends the
    /// login, unless it was `proven`.
    pub spared: u32,
    /// Whether the last login proved it worked beyond the default signs (its `success` sign showed): a page
    /// still lost after it never ends it.
    pub proven: bool,
    /// When the last login that worked ended: a proven session is taken for alive this long after it
    /// ([`FORBIDDEN_WINDOW`]) once a page stayed lost right after a fresh login.
    pub logged_in_at: Option<std::time::Instant>,
    /// Pages behind the login: ones that showed the session lost and answered 2xx without the sign right
    /// after a login, or where a login its `success` sign proved led; the last one per folder, up to [`WITNESSES`]: one is fetched again to tell a page the account may not
    /// enter from a session the site ended ([`Session::witness_for`]).
    pub witnesses: Vec<url::Url>,
    /// Where the last login that worked led when no `success` sign proved it (the redirect of its answer,
    /// answered 2xx): a page behind the login if it shows the session alive and sends anyone else away,
    /// which a login's check asks when no page of [`Session::witnesses`] is known yet (xt46c N1).
    pub landing: Option<url::Url>,
    /// The cookies the last login that worked set (their names): a page clearing one ends the session.
    pub login_cookies: Vec<String>,
    /// The session generation a page ended by clearing a cookie of its login: the host's next page logs in
    /// again first.
    pub cleared: Option<u64>,
}

/// How many pages that showed the session alive a session keeps, one per folder.
pub const WITNESSES: usize = 64;

impl Session {
    /// Keeps `page` as the page that showed the session alive in its folder, in place of the one before it.
    pub fn alive_at(&mut self, page: &url::Url) {
        let here = folder(page.path());
        self.witnesses.retain(|w| folder(w.path()) != here);
        if self.witnesses.len() >= WITNESSES {
            self.witnesses.remove(0);
        }
        self.witnesses.push(page.clone());
    }

    /// The page that showed the session alive nearest to `page`: the longest path in common, the latest
    /// among equals.
    pub fn witness_for(&self, page: &url::Url) -> Option<&url::Url> {
        let path = page.path().as_bytes();
        let common = |w: &url::Url| {
            w.path()
                .bytes()
                .zip(path.iter())
                .take_while(|(a, b)| a == *b)
                .count()
        };
        self.witnesses
            .iter()
            .filter(|w| w.as_str() != page.as_str())
            .max_by_key(|w| common(w))
    }
}

/// The name of the cookie a `Set-Cookie` value clears: one expired already (`Max-Age` 0 or less, an
/// `Expires` in the past), as a sign-out page clears its session's.
pub fn cleared_cookie(set_cookie: &str) -> Option<String> {
    let c = cookie::Cookie::parse(set_cookie).ok()?;
    let expired = c.max_age().is_some_and(|age| age.whole_seconds() <= 0)
        || c.expires_datetime()
            .is_some_and(|at| at <= cookie::time::OffsetDateTime::now_utc());
    expired.then(|| c.name().to_string())
}

/// The name of the cookie a `Set-Cookie` value sets, if it reads as one.
pub fn set_cookie_name(set_cookie: &str) -> Option<String> {
    cookie::Cookie::parse(set_cookie)
        .ok()
        .map(|c| c.name().to_string())
}

/// The folder of a path: up to its last `/`.
fn folder(path: &str) -> &str {
    &path[..path.rfind('/').map_or(0, |i| i + 1)]
}

/// How long after a proven login a page showing the session lost is taken for an area the account may not
/// enter, with no login for it, on a host where a page already stayed lost right after a fresh login
/// (xt17c F3: each forbidden page that redirected to the login page cost a login). A session the site ends
/// within it is noticed at the first page after it.
pub const FORBIDDEN_WINDOW: std::time::Duration = std::time::Duration::from_secs(300);

/// A protection space of an origin (RFC 7617 §2.2, RFC 7616 §3.3): one credential's answers to one realm's
/// challenge, and where they are sent up front.
struct Space {
    /// The credential's index.
    index: usize,
    /// The challenge's realm.
    realm: String,
    /// The client of its last challenge.
    client: PasswordClient,
    /// Path prefixes where an answer worked: the directory of each URL answered successfully (`/a/b` gives
    /// `/a/`), and a Digest challenge's `domain` paths on the origin.
    paths: Vec<String>,
    /// Whether its answer was refused (a 401 to it) before it ever worked: not answered again, unless a
    /// Digest challenge says its nonce was stale.
    refused: bool,
}

impl Space {
    /// Whether an answer goes up front to `url`.
    fn covers(&self, url: &Url) -> bool {
        !self.refused
            && self
                .paths
                .iter()
                .any(|p| url.path().starts_with(p.as_str()))
    }
}

/// The directory of `url`'s path: up to its last `/`.
fn directory(url: &Url) -> String {
    let path = url.path();
    path[..path.rfind('/').map_or(0, |i| i + 1)].to_string()
}

/// Failed logins in a row after which an origin is no longer logged into.
pub const MAX_FAILED_LOGINS: u32 = 3;

/// How a credential's logins went, for the end of the crawl.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginRecord {
    /// A login worked (and was not found wrong later).
    Worked,
    /// No login worked: the last failure's sign.
    Failed(String),
    /// A form login worked, then a later one (after the session was lost) failed: its sign.
    Stopped(String),
}

/// What a credential does with a 401's challenge.
#[derive(Debug, Clone)]
pub enum Challenge {
    /// Answers it: which credential, and the `Authorization`.
    Answer(usize, HeaderValue),
    /// Would answer it, but the server's TLS certificate failed validation and the credential does not
    /// allow that: nothing is sent.
    Untrusted(usize),
}

/// What the crawl presents to get in.
pub struct Access {
    /// The cookie jars, one per set of sheets (or one for the crawl).
    pub cookies: Jars,
    credentials: Vec<Credential>,
    /// Per origin: the protection spaces of the Basic and Digest challenges answered, each answered again up
    /// front within the paths where it worked, so later pages there need no second round trip (Digest
    /// counts its nonce uses).
    challenges: Mutex<HashMap<String, Vec<Space>>>,
    /// Per origin with a form credential: its session, locked while one worker logs in.
    sessions: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Session>>>>,
    /// Per credential tried: how its logins went.
    logins: Mutex<HashMap<usize, LoginRecord>>,
    /// Per form credential: the pages that sent the crawler away (to sign in, or refused) as a lost session
    /// and were kept so, no login made for them, for the end of the crawl (xt44b F13: "pages behind it are
    /// missing" where none was).
    lost_pages: Mutex<HashMap<usize, u64>>,
    /// The credentials whose hosts' cookies were withheld over an unverified connection (each told once).
    withheld: Mutex<std::collections::HashSet<usize>>,
}

impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Access")
            .field("credentials", &self.credentials.len())
            .finish_non_exhaustive()
    }
}

impl Access {
    /// The access of a crawl: its credentials with their passwords (read from the environment or files now),
    /// and its cookie jars (a resumed job's, plus `cookies_file`). `state_dir`: where the jars are saved.
    pub fn new(
        config: &CrawlConfig,
        base: &Path,
        state_dir: Option<&Path>,
    ) -> Result<Access, AccessError> {
        let credentials = config
            .credentials
            .iter()
            .enumerate()
            .map(|(index, spec)| {
                let password = spec
                    .password(base)
                    .map_err(|source| AccessError::Secret { index, source })?;
                Ok(Credential {
                    spec: spec.clone(),
                    password,
                })
            })
            .collect::<Result<Vec<_>, AccessError>>()?;
        let resumed = state_dir.is_some_and(|d| d.join(COOKIES_FILE).exists());
        let cookies = Jars::open(config.fetch.cookies, state_dir);
        // A resumed job's jar already holds what the file gave at the start (and what servers set since).
        if let Some(file) = &config.fetch.cookies_file
            && cookies.enabled()
            && !resumed
        {
            let n = cookies.load_file(&base.join(file))?;
            tracing::info!("{n} cookies loaded from {}", file.display());
        }
        Ok(Access {
            cookies,
            credentials,
            challenges: Mutex::default(),
            sessions: Mutex::default(),
            logins: Mutex::default(),
            lost_pages: Mutex::default(),
            withheld: Mutex::default(),
        })
    }

    /// The `Authorization` to send up front to `url` (and the credential giving it): the answer of a
    /// credential for it to a challenge of its origin, when `url`'s path is at or below where that answer
    /// worked ([`Access::answered`]).
    pub fn up_front(&self, url: &Url, method: &str) -> Option<(usize, HeaderValue)> {
        let mut challenges = self.challenges.lock().unwrap_or_else(|e| e.into_inner());
        if challenges.is_empty() {
            return None;
        }
        let space = challenges
            .get_mut(&trawl_config::origin(url))?
            .iter_mut()
            .find(|s| s.covers(url) && self.credentials[s.index].spec.applies_to(url))?;
        let index = space.index;
        let value = respond(&mut space.client, &self.credentials[index], url, method)?;
        Some((index, value))
    }

    /// Which credential answers `url` up front, if one does.
    pub fn answering(&self, url: &Url) -> Option<usize> {
        let challenges = self.challenges.lock().unwrap_or_else(|e| e.into_inner());
        if challenges.is_empty() {
            return None;
        }
        challenges
            .get(&trawl_config::origin(url))?
            .iter()
            .find(|s| s.covers(url) && self.credentials[s.index].spec.applies_to(url))
            .map(|s| s.index)
    }

    /// The `Authorization` answering the challenge of a 401 from `url` (and which credential gave it), when a
    /// Basic or Digest credential applies to `url` and accepts the challenge's scheme and realm, and its
    /// answer to that realm was not refused before (a stale Digest nonce aside). Tell [`Access::answered`]
    /// how the answer fared. `cert_invalid`: the 401 came over TLS whose certificate failed validation,
    /// which only a credential with `allow_invalid_certificate` answers.
    pub fn answer(
        &self,
        url: &Url,
        method: &str,
        headers: &HeaderMap,
        cert_invalid: bool,
    ) -> Option<Challenge> {
        let challenges = headers.get_all(WWW_AUTHENTICATE);
        let client = PasswordClient::try_from(challenges).ok()?;
        let (scheme, realm, stale) = match &client {
            PasswordClient::Basic(b) => (CredentialKind::Basic, b.realm(), false),
            PasswordClient::Digest(d) => (CredentialKind::Digest, d.realm(), d.stale()),
            _ => return None,
        };
        let realm = realm.to_string();
        let index = self.credentials.iter().position(|c| {
            c.spec.kind == scheme
                && c.spec.applies_to(url)
                && c.spec.realm.as_deref().is_none_or(|r| r == realm)
        })?;
        if cert_invalid && !self.credentials[index].spec.allow_invalid_certificate {
            return Some(Challenge::Untrusted(index));
        }
        let mut challenges = self.challenges.lock().unwrap_or_else(|e| e.into_inner());
        let spaces = challenges.entry(trawl_config::origin(url)).or_default();
        let known = spaces
            .iter()
            .position(|s| s.index == index && s.realm == realm);
        if known.is_some_and(|at| spaces[at].refused) && !stale {
            return None;
        }
        let mut client = client;
        let value = respond(&mut client, &self.credentials[index], url, method)?;
        // The space answered last goes last, where `answered` looks for it.
        match known {
            Some(at) => {
                let mut space = spaces.remove(at);
                space.client = client;
                spaces.push(space);
            }
            None => spaces.push(Space {
                index,
                realm,
                client,
                paths: Vec::new(),
                refused: false,
            }),
        }
        Some(Challenge::Answer(index, value))
    }

    /// How credential `index`'s answer to a challenge of `url` fared: `accepted` (the answer got no 401),
    /// its protection space takes in `url`'s directory (and a Digest challenge's `domain` paths on the
    /// origin), answered up front from then on; refused before it ever worked, it is not answered again.
    pub fn answered(&self, url: &Url, index: usize, accepted: bool) {
        let mut challenges = self.challenges.lock().unwrap_or_else(|e| e.into_inner());
        let Some(spaces) = challenges.get_mut(&trawl_config::origin(url)) else {
            return;
        };
        // The space answered last for this credential: the one `answer` just updated.
        let Some(space) = spaces.iter_mut().rev().find(|s| s.index == index) else {
            return;
        };
        if !accepted {
            space.refused |= space.paths.is_empty();
            return;
        }
        space.refused = false;
        let mut paths = vec![directory(url)];
        if let PasswordClient::Digest(d) = &space.client {
            paths.extend(
                d.domain()
                    .split_ascii_whitespace()
                    .filter_map(|u| url.join(u).ok())
                    .filter(|u| trawl_config::origin(u) == trawl_config::origin(url))
                    .map(|u| u.path().to_string()),
            );
        }
        for p in paths {
            if !space.paths.contains(&p) {
                space.paths.push(p);
            }
        }
    }

    /// The credential that keeps the cookies of a request to `url` off a TLS connection whose certificate
    /// failed validation: the first credential for `url`'s host that does not set `allow_invalid_certificate`.
    /// A login's session cookie is as good as its password to whoever intercepts the connection, and which
    /// cookie is the session cannot be told reliably (a site may set or rotate it on any page), so all the
    /// cookies sent to a credential's hosts are kept off such connections.
    pub fn cookie_guard(&self, url: &Url) -> Option<usize> {
        self.credentials
            .iter()
            .position(|c| !c.spec.allow_invalid_certificate && c.spec.applies_to(url))
    }

    /// Records that credential `index`'s cookies were withheld; true the first time (to warn once).
    pub fn note_withheld(&self, index: usize) -> bool {
        self.withheld
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(index)
    }

    /// Credential `index` of `[[credentials]]`.
    pub fn spec(&self, index: usize) -> Option<&CredentialSpec> {
        self.credentials.get(index).map(|c| &c.spec)
    }

    /// Records how a login of credential `index` went (`failed`: the sign of its failure, `None` when it
    /// worked): a credential that logged in once stays [`LoginRecord::Worked`]. True when the record changed.
    pub fn note_login(&self, index: usize, failed: Option<String>) -> bool {
        let mut logins = self.logins.lock().unwrap_or_else(|e| e.into_inner());
        let new = match failed {
            None => LoginRecord::Worked,
            Some(_) if logins.get(&index) == Some(&LoginRecord::Worked) => return false,
            Some(why) => LoginRecord::Failed(why),
        };
        logins.insert(index, new.clone()) != Some(new)
    }

    /// Records how a form login of credential `index` went: as [`Access::note_login`], except that a failure
    /// after a login that worked is kept ([`LoginRecord::Stopped`]): the pages after it were crawled logged
    /// out (xt10a F6).
    pub fn note_form_login(&self, index: usize, failed: Option<String>) {
        let mut logins = self.logins.lock().unwrap_or_else(|e| e.into_inner());
        let new = match (failed, logins.get(&index)) {
            (None, _) => LoginRecord::Worked,
            (Some(why), Some(LoginRecord::Worked | LoginRecord::Stopped(_))) => {
                LoginRecord::Stopped(why)
            }
            (Some(why), _) => LoginRecord::Failed(why),
        };
        logins.insert(index, new);
    }

    /// The form credentials never tried that apply to none of `hosts` (host names, as the crawl's counts
    /// name them, without a port): no page of the crawl was on their hosts (xt10a F8: a `domain` of
    /// `localhost` for a crawl of `127.0.0.1`). A host is tried with the credential's own login page's scheme
    /// and port, so a `domain` naming a port matches it.
    pub fn forms_for_none_of<'a>(
        &self,
        hosts: impl Iterator<Item = &'a String> + Clone,
    ) -> Vec<usize> {
        let logins = self.logins.lock().unwrap_or_else(|e| e.into_inner());
        self.credentials
            .iter()
            .enumerate()
            .filter(|(i, c)| c.spec.kind == CredentialKind::Form && !logins.contains_key(i))
            .filter(|(_, c)| {
                let login = c.spec.login_url.as_deref().and_then(|u| Url::parse(u).ok());
                !hosts.clone().any(|h| {
                    let mut urls = vec![format!("http://{h}/"), format!("https://{h}/")];
                    if let Some(l) = &login {
                        let port = l.port().map_or(String::new(), |p| format!(":{p}"));
                        urls.push(format!("{}://{h}{port}/", l.scheme()));
                    }
                    urls.iter()
                        .filter_map(|u| Url::parse(u).ok())
                        .any(|u| c.spec.applies_to(&u))
                })
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Records that the logins of credential `index` judged to work did not (`why`).
    pub fn overturn_login(&self, index: usize, why: String) {
        self.logins
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(index, LoginRecord::Failed(why));
    }

    /// Counts `url` as a page that sent the crawler away as a lost session of its form credential and was
    /// kept so.
    pub fn note_lost_page(&self, url: &Url) {
        if let Some((index, _)) = self.form_credential(url) {
            *self
                .lost_pages
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(index)
                .or_default() += 1;
        }
    }

    /// How many pages sent the crawler away as a lost session of form credential `index` and were kept so.
    pub fn lost_pages(&self, index: usize) -> u64 {
        self.lost_pages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&index)
            .copied()
            .unwrap_or(0)
    }

    /// The credentials tried that never logged in, or whose form login stopped working, by index, with the
    /// last failure's sign (and true for one that stopped working).
    pub fn failed_logins(&self) -> Vec<(usize, String, bool)> {
        let logins = self.logins.lock().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<(usize, String, bool)> = logins
            .iter()
            .filter_map(|(i, r)| match r {
                LoginRecord::Failed(why) => Some((*i, why.clone(), false)),
                LoginRecord::Stopped(why) => Some((*i, why.clone(), true)),
                LoginRecord::Worked => None,
            })
            .collect();
        out.sort();
        out
    }

    /// The form credential for `url`'s host, if any: its index and settings.
    pub fn form_for(&self, url: &Url) -> Option<&CredentialSpec> {
        self.form_credential(url).map(|(_, spec)| spec)
    }

    /// The form credential for `url`'s host, if any: its index in `[[credentials]]` and settings.
    pub fn form_credential(&self, url: &Url) -> Option<(usize, &CredentialSpec)> {
        self.credentials
            .iter()
            .enumerate()
            .find(|(_, c)| c.spec.kind == CredentialKind::Form && c.spec.applies_to(url))
            .map(|(i, c)| (i, &c.spec))
    }

    /// The session of `url`'s origin.
    pub fn session(&self, url: &Url) -> Arc<tokio::sync::Mutex<Session>> {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(trawl_config::origin(url))
            .or_default()
            .clone()
    }

    /// The password of form credential `spec` (empty when the crawl holds no such credential).
    pub fn password(&self, spec: &CredentialSpec) -> &str {
        self.credentials
            .iter()
            .find(|c| &c.spec == spec)
            .map_or("", |c| c.password.as_str())
    }

    /// Where a form credential applies, with its index in `[[credentials]]`: the form credentials in order.
    pub fn forms(&self) -> impl Iterator<Item = (usize, &CredentialSpec)> {
        self.credentials
            .iter()
            .enumerate()
            .filter(|(_, c)| c.spec.kind == CredentialKind::Form)
            .map(|(i, c)| (i, &c.spec))
    }
}

/// The answer of `client` for `cred` to a request of `url`; marked sensitive so HTTP/2 never indexes it.
fn respond(
    client: &mut PasswordClient,
    cred: &Credential,
    url: &Url,
    method: &str,
) -> Option<HeaderValue> {
    let mut target = url.path().to_string();
    if let Some(q) = url.query() {
        target.push('?');
        target.push_str(q);
    }
    let text = client
        .respond(&PasswordParams {
            username: &cred.spec.user,
            password: &cred.password,
            uri: &target,
            method,
            body: None,
        })
        .ok()?;
    let mut value = HeaderValue::from_str(&text).ok()?;
    value.set_sensitive(true);
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(text: &str) -> Access {
        let config: CrawlConfig = toml::from_str(text).unwrap();
        Access::new(&config, Path::new("."), None).unwrap()
    }

    /// The answer to the challenge in `h` from `url`, over a connection whose certificate was valid.
    fn answer_plain(a: &Access, url: &Url, h: &HeaderMap) -> Option<(usize, HeaderValue)> {
        match a.answer(url, "GET", h, false) {
            Some(Challenge::Answer(i, v)) => Some((i, v)),
            _ => None,
        }
    }

    #[test]
    fn basic_and_digest_answer_their_host_and_realm_only() {
        let a = access(
            "[[credentials]]\nkind = \"basic\"\ndomain = \"a.org\"\nrealm = \"staff\"\nuser = \"u\"\npassword = \"p\"\n\
             [[credentials]]\nkind = \"digest\"\ndomain = \"b.org\"\nuser = \"u\"\npassword = \"p\"\n",
        );
        let url = Url::parse("http://a.org/x").unwrap();
        let mut h = HeaderMap::new();
        h.insert(WWW_AUTHENTICATE, "Basic realm=\"staff\"".parse().unwrap());
        // Over TLS whose certificate failed validation: not answered, and nothing kept for later pages.
        assert!(matches!(
            a.answer(&url, "GET", &h, true),
            Some(Challenge::Untrusted(0))
        ));
        assert!(a.up_front(&url, "GET").is_none());
        let (i, auth) = answer_plain(&a, &url, &h).unwrap();
        assert_eq!(auth.to_str().unwrap(), "Basic dTpw");
        assert!(auth.is_sensitive());
        let y = Url::parse("http://a.org/y").unwrap();
        assert!(a.up_front(&y, "GET").is_none(), "not before it worked");
        a.answered(&url, i, true);
        assert!(a.up_front(&y, "GET").is_some());
        h.insert(WWW_AUTHENTICATE, "Basic realm=\"other\"".parse().unwrap());
        assert!(a.answer(&url, "GET", &h, false).is_none(), "another realm");
        let c = Url::parse("http://c.org/").unwrap();
        h.insert(WWW_AUTHENTICATE, "Basic realm=\"staff\"".parse().unwrap());
        assert!(a.answer(&c, "GET", &h, false).is_none(), "another host");
        assert!(a.up_front(&c, "GET").is_none());
        let b = Url::parse("http://b.org/d?q=1").unwrap();
        h.insert(
            WWW_AUTHENTICATE,
            "Digest realm=\"r\", nonce=\"n1\", qop=\"auth\""
                .parse()
                .unwrap(),
        );
        let (i, digest) = answer_plain(&a, &b, &h).unwrap();
        a.answered(&b, i, true);
        let text = digest.to_str().unwrap();
        assert!(
            text.starts_with("Digest ") && text.contains("uri=\"/d?q=1\""),
            "{text}"
        );
        let (_, next) = a
            .up_front(&Url::parse("http://b.org/e").unwrap(), "GET")
            .unwrap();
        assert!(next.to_str().unwrap().contains("nc=00000002"), "{next:?}");
    }

    #[test]
    fn a_credential_that_never_logged_in_is_told() {
        let a = access(
            "[[credentials]]\nkind = \"basic\"\ndomain = \"a.org\"\nuser = \"u\"\npassword = \"p\"\n\
             [[credentials]]\nkind = \"basic\"\ndomain = \"b.org\"\nuser = \"u\"\npassword = \"p\"\n",
        );
        assert!(a.note_login(0, Some("refused".into())));
        assert!(!a.note_login(0, Some("refused".into())), "told once");
        assert!(a.note_login(1, None));
        assert!(!a.note_login(1, Some("later".into())), "it did log in");
        assert_eq!(a.failed_logins(), [(0, "refused".to_string(), false)]);
        a.overturn_login(1, "found wrong".into());
        assert_eq!(a.failed_logins().len(), 2);
    }

    /// A form login that worked and then failed is told as one that stopped working; a form credential
    /// no page used is told too (xt10a F6, F8).
    #[test]
    fn a_form_login_that_stopped_working_or_was_never_used_is_told() {
        let a = access(
            "[[credentials]]\nkind = \"form\"\ndomain = \"a.org\"\nlogin_url = \"http://a.org/login\"\n\
             password = \"p\"\n\
             [[credentials]]\nkind = \"form\"\ndomain = \"b.org\"\nlogin_url = \"http://b.org/login\"\n\
             password = \"p\"\n",
        );
        let hosts = ["a.org".to_string(), "c.org".to_string()];
        assert_eq!(a.forms_for_none_of(hosts.iter()), [1]);
        // A credential tried is never "not tried", and one whose domain names its login page's port matches
        // the host without it (xt11a F2).
        let p = access(
            "[[credentials]]\nkind = \"form\"\ndomain = \"b.org:8821\"\nlogin_url = \"http://b.org:8821/login\"\n\
             password = \"p\"\n",
        );
        assert!(p.forms_for_none_of(["b.org".to_string()].iter()).is_empty());
        assert_eq!(p.forms_for_none_of(["c.org".to_string()].iter()), [0]);
        p.note_form_login(0, Some("refused".into()));
        assert!(p.forms_for_none_of(["c.org".to_string()].iter()).is_empty());
        a.note_form_login(0, None);
        a.note_form_login(0, Some("the answer was 429".into()));
        assert_eq!(
            a.failed_logins(),
            [(0, "the answer was 429".to_string(), true)]
        );
        a.note_form_login(0, None);
        assert!(a.failed_logins().is_empty());
    }

    #[test]
    fn answers_go_up_front_only_below_where_their_realm_worked() {
        let a = access(
            "[[credentials]]\nkind = \"basic\"\ndomain = \"a.org\"\nrealm = \"staff\"\nuser = \"u\"\npassword = \"p\"\n\
             [[credentials]]\nkind = \"digest\"\ndomain = \"a.org\"\nrealm = \"R2\"\nuser = \"u\"\npassword = \"p\"\n",
        );
        let u = |path: &str| Url::parse(&format!("http://a.org{path}")).unwrap();
        let mut h = HeaderMap::new();
        h.insert(WWW_AUTHENTICATE, "Basic realm=\"staff\"".parse().unwrap());
        let (basic, _) = answer_plain(&a, &u("/basic/1"), &h).unwrap();
        a.answered(&u("/basic/1"), basic, true);
        for path in ["/basic/2", "/basic/deep/3?q=1", "/basic/"] {
            assert_eq!(a.answering(&u(path)), Some(basic), "{path}");
            let auth = a.up_front(&u(path), "GET").unwrap().1;
            assert!(auth.to_str().unwrap().starts_with("Basic "), "{path}");
        }
        for path in ["/sha/1", "/noch/1", "/basicx", "/", "/other/basic/1"] {
            assert!(a.up_front(&u(path), "GET").is_none(), "{path}");
            assert_eq!(a.answering(&u(path)), None, "{path}");
        }
        // Digest's `domain` names its protection space; the challenged URL's directory is in it too.
        h.insert(
            WWW_AUTHENTICATE,
            "Digest realm=\"R2\", nonce=\"n1\", qop=\"auth\", domain=\"/sha/ http://a.org/more/ http://b.org/x/\""
                .parse()
                .unwrap(),
        );
        let (digest, _) = answer_plain(&a, &u("/sha/1"), &h).unwrap();
        assert_ne!(digest, basic);
        assert!(
            a.up_front(&u("/sha/2"), "GET").is_none(),
            "not before it worked"
        );
        a.answered(&u("/sha/1"), digest, true);
        for path in ["/sha/2", "/more/a"] {
            let auth = a.up_front(&u(path), "GET").unwrap().1;
            assert!(auth.to_str().unwrap().starts_with("Digest "), "{path}");
        }
        assert!(
            a.up_front(&u("/x/1"), "GET").is_none(),
            "another origin's domain entry"
        );
        assert!(a.up_front(&u("/noch/1"), "GET").is_none());
        assert!(
            a.up_front(&u("/basic/2"), "GET")
                .unwrap()
                .1
                .to_str()
                .unwrap()
                .starts_with("Basic ")
        );
    }

    #[test]
    fn a_refused_answer_is_not_sent_again() {
        let a = access(
            "[[credentials]]\nkind = \"basic\"\ndomain = \"a.org\"\nuser = \"u\"\npassword = \"wrong\"\n",
        );
        let url = Url::parse("http://a.org/p/1").unwrap();
        let mut h = HeaderMap::new();
        h.insert(WWW_AUTHENTICATE, "Basic realm=\"r\"".parse().unwrap());
        let (i, _) = answer_plain(&a, &url, &h).unwrap();
        a.answered(&url, i, false);
        assert!(a.up_front(&url, "GET").is_none());
        let next = Url::parse("http://a.org/p/2").unwrap();
        assert!(
            answer_plain(&a, &next, &h).is_none(),
            "refused before: its one 401"
        );
        // Another realm of the origin is answered.
        h.insert(WWW_AUTHENTICATE, "Basic realm=\"other\"".parse().unwrap());
        assert!(answer_plain(&a, &next, &h).is_some());
    }
}
