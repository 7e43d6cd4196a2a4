//! The cookie jars: RFC 6265 storage and matching by `cookie_store`, one jar per job or per set of sheets,
//! kept in the job's state (`state/cookies.json`) so a resumed crawl — after a clean stop or kill -9 — sends
//! what the servers set. A `Set-Cookie` whose `Domain` is a public suffix (`co.uk`, `github.io`) is refused
//! here with the `psl` list the rest of trawl uses, since cookie_store leaves that list to its caller. Each
//! site's cookies are bounded in number and size ([`super::cookie_limits`]).

use std::{
    collections::{BTreeMap, HashMap},
    path::{Path, PathBuf},
    sync::Mutex,
    time::{Duration, Instant},
};

use cookie_store::{Cookie, CookieStore, StoreAction};
use url::Url;

use trawl_config::settings::CookieMode;

use super::cookie_limits::Ledger;

/// The file the jars are saved in, under the job's state folder.
pub const COOKIES_FILE: &str = "cookies.json";
/// The longest a changed jar waits to be saved (a kill -9 loses at most this much of it).
const SAVE_EVERY: Duration = Duration::from_millis(250);

/// Why a cookies file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CookiesFileError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line or entry is not a cookie.
    #[error("{}, {source}", path.display())]
    Entry {
        /// The file.
        path: PathBuf,
        /// Which line or entry, and what is wrong.
        source: trawl_config::cookies_file::CookiesFileError,
    },
}

/// The jar a `cookies_file` is loaded into: every jar starts as a copy of it (with `cookies = "sheet"` the
/// file's cookies reach every set of sheets). Saved with the others, so a resumed job's new jars get them too.
const FILE_JAR: &str = "(cookies_file)";

/// One cookie of a jar as a browser holds it ([`Jars::matching`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JarCookie {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// The path it is sent under.
    pub path: String,
    /// Sent over HTTPS only.
    pub secure: bool,
    /// Kept from the page's scripts (`document.cookie`).
    pub http_only: bool,
}

/// The name and value of each cookie `jar` (jar `key`) sends to `url`, in the order RFC 6265 §5.4 gives:
/// longer paths first (a server reading the first `sid` gets the one of its own path), then the one set
/// earlier (`ledger`'s last setting: the jar keeps no creation time), then by name, so that two crawls send the
/// same request (xt46a F4: the jar's hash order).
fn in_order<'a>(
    jar: &'a CookieStore,
    url: &Url,
    key: &str,
    ledger: &Mutex<Ledger>,
) -> Vec<(&'a str, &'a str)> {
    let ledger = ledger.lock().unwrap_or_else(|e| e.into_inner());
    let mut cookies: Vec<_> = jar
        .matches(url)
        .into_iter()
        .map(|c| (String::from(&c.path).len(), ledger.set_at(key, c), c))
        .collect();
    cookies.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then_with(|| a.2.name().cmp(b.2.name()))
    });
    cookies
        .into_iter()
        .map(|(_, _, c)| (c.name(), c.value()))
        .collect()
}

/// Jar `key`, made from the file's cookies when it is new; those count against each site's bounds in the
/// new jar as cookies set there do (`ledger` is locked for that, so the caller must not hold it).
fn jar<'a>(
    jars: &'a mut HashMap<String, CookieStore>,
    key: &str,
    ledger: &Mutex<Ledger>,
) -> &'a mut CookieStore {
    if !jars.contains_key(key) {
        let mut start = jars.get(FILE_JAR).cloned().unwrap_or_default();
        let mut ledger = ledger.lock().unwrap_or_else(|e| e.into_inner());
        // In the file's order, so the file's first cookies are the first out.
        let mut cookies: Vec<_> = start.iter_unexpired().cloned().collect();
        cookies.sort_by_cached_key(|c| ledger.set_at(FILE_JAR, c));
        let evicted: Vec<_> = cookies
            .iter()
            .flat_map(|c| ledger.stored(key, c, &StoreAction::Inserted))
            .collect();
        for (d, p, n) in evicted {
            start.remove(&d, &p, &n);
        }
        jars.insert(key.to_string(), start);
    }
    jars.get_mut(key).expect("inserted above")
}

/// The jars of a crawl.
pub struct Jars {
    mode: CookieMode,
    jars: Mutex<HashMap<String, CookieStore>>,
    /// When each cookie was set, to evict a site's oldest past its bounds; locked after `jars`.
    ledger: Mutex<Ledger>,
    /// Where they are saved; `None` in tests.
    path: Option<PathBuf>,
    /// When a change was last saved, and whether one is waiting.
    saved: Mutex<(Instant, bool)>,
}

impl std::fmt::Debug for Jars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jars").field("mode", &self.mode).finish()
    }
}

impl Jars {
    /// The jars saved in `state_dir` (a resumed job), else empty; with `mode` off, none at all.
    pub fn open(mode: CookieMode, state_dir: Option<&Path>) -> Jars {
        let path = state_dir.map(|d| d.join(COOKIES_FILE));
        let mut jars = HashMap::new();
        let mut ledger = Ledger::default();
        if let Some(text) = path.as_ref().and_then(|p| std::fs::read_to_string(p).ok()) {
            match serde_json::from_str::<BTreeMap<String, Vec<Cookie<'static>>>>(&text) {
                Ok(saved) => {
                    for (key, cookies) in saved {
                        // The ledger learns the cookies in the order saved (oldest first); a site over its
                        // bounds (a file from an older trawl) is cut back now.
                        let evicted: Vec<_> = cookies
                            .iter()
                            .flat_map(|c| ledger.stored(&key, c, &StoreAction::Inserted))
                            .collect();
                        let Ok(mut store) = CookieStore::from_cookies(
                            cookies.into_iter().map(Ok::<_, std::convert::Infallible>),
                            false,
                        );
                        for (d, p, n) in evicted {
                            store.remove(&d, &p, &n);
                        }
                        jars.insert(key, store);
                    }
                }
                Err(e) => tracing::warn!("{}: {e}; cookies start empty", COOKIES_FILE),
            }
        }
        Jars {
            mode,
            jars: Mutex::new(jars),
            ledger: Mutex::new(ledger),
            path,
            saved: Mutex::new((
                Instant::now()
                    .checked_sub(SAVE_EVERY)
                    .unwrap_or_else(Instant::now),
                false,
            )),
        }
    }

    /// Whether cookies are kept at all.
    pub fn enabled(&self) -> bool {
        self.mode != CookieMode::Off
    }

    /// The `Cookie` header value for `url` from jar `key`, if any cookie matches.
    pub fn header(&self, key: &str, url: &Url) -> Option<String> {
        if !self.enabled() {
            return None;
        }
        self.save_if_due();
        let mut jars = self.jars.lock().unwrap_or_else(|e| e.into_inner());
        let jar = jar(&mut jars, key, &self.ledger);
        let pairs: Vec<String> = in_order(jar, url, key, &self.ledger)
            .into_iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join("; "))
    }

    /// Stores the `Set-Cookie` values a response from `url` carried into jar `key`.
    pub fn store<'a>(&self, key: &str, url: &Url, set_cookies: impl Iterator<Item = &'a str>) {
        if !self.enabled() {
            return;
        }
        let mut changed = false;
        {
            let mut jars = self.jars.lock().unwrap_or_else(|e| e.into_inner());
            let jar = jar(&mut jars, key, &self.ledger);
            let mut ledger = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
            for value in set_cookies {
                if on_public_suffix(value, url) {
                    tracing::debug!(%url, "Set-Cookie for a public suffix refused");
                    continue;
                }
                if let Some(why) = refused_as_browsers_do(value, url) {
                    tracing::debug!(%url, "Set-Cookie refused: {why}");
                    continue;
                }
                let Ok(cookie) = Cookie::parse(value, url) else {
                    continue;
                };
                let cookie = cookie.into_owned();
                let noted = cookie.clone();
                if let Ok(action) = jar.insert(cookie, url) {
                    changed = true;
                    for (d, p, n) in ledger.stored(key, &noted, &action) {
                        tracing::debug!(%url, "cookie {n} for {d} evicted: the site is over its bounds");
                        jar.remove(&d, &p, &n);
                    }
                }
            }
        }
        if changed {
            self.changed();
        }
    }

    /// Whether jar `key` holds an unexpired cookie called `name` that would be sent to `url`.
    pub fn has(&self, key: &str, url: &Url, name: &str) -> bool {
        let jars = self.jars.lock().unwrap_or_else(|e| e.into_inner());
        jars.get(key)
            .or_else(|| jars.get(FILE_JAR))
            .is_some_and(|j| j.get_request_values(url).any(|(n, _)| n == name))
    }

    /// The name and value of each cookie jar `key` would send to `url`.
    pub fn values(&self, key: &str, url: &Url) -> Vec<(String, String)> {
        if !self.enabled() {
            return Vec::new();
        }
        let mut jars = self.jars.lock().unwrap_or_else(|e| e.into_inner());
        let jar = jar(&mut jars, key, &self.ledger);
        in_order(jar, url, key, &self.ledger)
            .into_iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    /// The cookies jar `key` would send to `url`, with the attributes a browser needs to hold them as the
    /// site set them: name, value, path, `Secure`, `HttpOnly`.
    pub fn matching(&self, key: &str, url: &Url) -> Vec<JarCookie> {
        if !self.enabled() {
            return Vec::new();
        }
        let mut jars = self.jars.lock().unwrap_or_else(|e| e.into_inner());
        jar(&mut jars, key, &self.ledger)
            .matches(url)
            .into_iter()
            .map(|c| JarCookie {
                name: c.name().to_owned(),
                value: c.value().to_owned(),
                path: c.path().unwrap_or("/").to_owned(),
                secure: c.secure().unwrap_or(false),
                http_only: c.http_only().unwrap_or(false),
            })
            .collect()
    }

    /// Adds the cookies of a cookies.txt or JSON export to every jar `key` will be.
    pub fn load_file(&self, path: &Path) -> Result<usize, CookiesFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| CookiesFileError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let entries =
            trawl_config::cookies_file::parse(&text).map_err(|source| CookiesFileError::Entry {
                path: path.to_path_buf(),
                source,
            })?;
        let n = entries.len();
        {
            let mut jars = self.jars.lock().unwrap_or_else(|e| e.into_inner());
            let mut ledger = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
            let jar = jars.entry(FILE_JAR.to_string()).or_default();
            for (raw, url) in entries {
                // A cookie that does not fit its own domain (a typo in the file) is skipped, not fatal.
                match jar.insert_raw(&raw, &url) {
                    // The ledger learns the file's order (the jars it starts evict in it).
                    Ok(action) => {
                        if let Ok(cookie) = Cookie::try_from_raw_cookie(&raw, &url) {
                            for (d, p, n) in ledger.stored(FILE_JAR, &cookie, &action) {
                                jar.remove(&d, &p, &n);
                            }
                        }
                    }
                    Err(e) => {
                        tracing::warn!("{}: cookie {} skipped: {e}", path.display(), raw.name());
                    }
                }
            }
        }
        self.changed();
        Ok(n)
    }

    /// Notes a change, saving it unless one was saved within [`SAVE_EVERY`] (then the next request's
    /// [`Jars::header`], a checkpoint or the end of the crawl saves it).
    fn changed(&self) {
        self.saved.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
        self.save_if_due();
    }

    fn save_if_due(&self) {
        let due = {
            let saved = self.saved.lock().unwrap_or_else(|e| e.into_inner());
            saved.1 && saved.0.elapsed() >= SAVE_EVERY
        };
        if due {
            self.flush();
        }
    }

    /// Saves the jars if they changed since the last save (at a checkpoint and at the end of the crawl).
    pub fn flush(&self) {
        let Some(path) = &self.path else { return };
        {
            let mut saved = self.saved.lock().unwrap_or_else(|e| e.into_inner());
            if !saved.1 {
                return;
            }
            *saved = (Instant::now(), false);
        }
        let text = {
            let jars = self.jars.lock().unwrap_or_else(|e| e.into_inner());
            let ledger = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
            // Each jar oldest first, so a resumed crawl evicts in the same order.
            let all: BTreeMap<&str, Vec<&Cookie<'static>>> = jars
                .iter()
                .map(|(k, j)| {
                    let mut cookies: Vec<_> = j.iter_unexpired().collect();
                    cookies.sort_by_cached_key(|c| ledger.set_at(k, c));
                    (k.as_str(), cookies)
                })
                .collect();
            serde_json::to_string(&all).unwrap_or_default()
        };
        // Written aside and renamed: a crash mid-write leaves the last whole file.
        let tmp = path.with_extension("json.tmp");
        if let Err(e) = write_private(&tmp, &text).and_then(|()| std::fs::rename(&tmp, path)) {
            tracing::warn!("saving {}: {e}", path.display());
        }
    }
}

/// Writes `text` to `path` readable by its owner only: a session cookie is as good as the password that made
/// it (xt44b F15: the jar was world-readable). A checkpoint's copy keeps the mode.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    // A file left by an earlier version keeps its mode through `truncate`.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(text.as_bytes())
}

/// Whether a `Set-Cookie` value names a public suffix as its `Domain` (other than the host itself, which
/// RFC 6265 §5.3 step 5 allows as a host-only cookie).
fn on_public_suffix(set_cookie: &str, url: &Url) -> bool {
    let Ok(c) = cookie::Cookie::parse(set_cookie) else {
        return false;
    };
    let Some(domain) = c.domain() else {
        return false;
    };
    let domain = domain.trim_start_matches('.').to_ascii_lowercase();
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    domain != host && psl::suffix_str(&domain) == Some(domain.as_str())
}

/// The longest name and value together a cookie may have (RFC 6265bis §5.7; browsers ignore longer ones).
const MAX_NAME_VALUE: usize = 4096;

/// Why a `Set-Cookie` value is refused by the rules RFC 6265bis added (§4.1.3, §5.7) and browsers keep, or
/// `None`: a name and value over [`MAX_NAME_VALUE`] bytes; a `__Secure-` cookie without `Secure` or from an
/// origin that is not `https`; a `__Host-` cookie the same, or with a `Domain`, or without `Path=/`. The
/// prefixes are matched in any case.
fn refused_as_browsers_do(set_cookie: &str, url: &Url) -> Option<&'static str> {
    let c = cookie::Cookie::parse(set_cookie).ok()?;
    if c.name().len() + c.value().len() > MAX_NAME_VALUE {
        return Some("its name and value are over 4096 bytes");
    }
    let name = c.name().as_bytes();
    let prefixed =
        |p: &str| name.len() >= p.len() && name[..p.len()].eq_ignore_ascii_case(p.as_bytes());
    let (secure, host) = (prefixed("__Secure-"), prefixed("__Host-"));
    if (secure || host) && (c.secure() != Some(true) || url.scheme() != "https") {
        return Some("a __Secure- or __Host- cookie without Secure, or not from https");
    }
    if host && (c.domain().is_some() || c.path() != Some("/")) {
        return Some("a __Host- cookie with a Domain or without Path=/");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn rfc_6265_rules_and_public_suffixes() {
        let jars = Jars::open(CookieMode::Job, None);
        let from = u("http://www.example.co.uk/login");
        jars.store(
            "",
            &from,
            [
                "sid=1; Path=/",
                "wide=2; Domain=example.co.uk",
                "evil=3; Domain=co.uk",
                "other=4; Domain=elsewhere.org",
                "sec=5; Secure",
                "gone=6; Max-Age=0",
            ]
            .into_iter(),
        );
        let sorted = |h: Option<String>| {
            let mut v: Vec<String> = h
                .unwrap_or_default()
                .split("; ")
                .map(String::from)
                .collect();
            v.sort();
            v.join("; ")
        };
        assert_eq!(
            sorted(jars.header("", &u("http://www.example.co.uk/a"))),
            "sid=1; wide=2"
        );
        assert_eq!(
            jars.header("", &u("http://shop.example.co.uk/")).as_deref(),
            Some("wide=2")
        );
        assert_eq!(jars.header("", &u("http://other.co.uk/")), None);
        let https = jars.header("", &u("https://www.example.co.uk/")).unwrap();
        assert!(https.contains("sec=5"), "{https}");
        assert!(jars.has("", &from, "sid") && !jars.has("", &from, "gone"));
        assert_eq!(jars.header("sheet", &from), None, "jars are apart");
        let off = Jars::open(CookieMode::Off, None);
        off.store("", &from, ["sid=1"].into_iter());
        assert_eq!(off.header("", &from), None);
    }

    /// RFC 6265 §5.4: longer paths first, then the one set earlier, whatever the jar's hash order (xt46a F4).
    #[test]
    fn cookies_go_out_longest_path_first() {
        let jars = Jars::open(CookieMode::Job, None);
        let at = u("http://a.example/c/sub/set");
        for (i, set) in [
            "r=1; Path=/",
            "p=1; Path=/c/sub",
            "a=1; Path=/c",
            "sid=root; Path=/",
            "sid=sub; Path=/c/sub",
            "b=1; Path=/",
        ]
        .into_iter()
        .enumerate()
        {
            // A tick apart, so each is set later than the one before.
            if i > 0 {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            jars.store("", &at, [set].into_iter());
        }
        for _ in 0..20 {
            assert_eq!(
                jars.header("", &u("http://a.example/c/sub/check"))
                    .as_deref(),
                Some("p=1; sid=sub; a=1; r=1; sid=root; b=1")
            );
        }
    }

    #[test]
    fn a_cookies_file_reaches_every_jar_also_after_resume() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cookies.txt");
        std::fs::write(&file, "a.org\tFALSE\t/\tFALSE\t0\tlogin\tyes\n").unwrap();
        let jars = Jars::open(CookieMode::Sheet, Some(dir.path()));
        assert_eq!(jars.load_file(&file).unwrap(), 1);
        let url = u("http://a.org/");
        jars.store("isolated", &url, ["own=1"].into_iter());
        let mut both: Vec<String> = jars
            .header("isolated", &url)
            .unwrap_or_default()
            .split("; ")
            .map(String::from)
            .collect();
        both.sort();
        assert_eq!(both, ["login=yes", "own=1"]);
        assert_eq!(jars.header("other", &url).as_deref(), Some("login=yes"));
        assert!(jars.has("never-used", &url, "login"));
        jars.flush();
        let back = Jars::open(CookieMode::Sheet, Some(dir.path()));
        assert_eq!(
            back.header("new-after-resume", &url).as_deref(),
            Some("login=yes")
        );
    }

    #[test]
    fn saved_and_read_back_session_cookies_too() {
        let dir = tempfile::tempdir().unwrap();
        let jars = Jars::open(CookieMode::Job, Some(dir.path()));
        let url = u("http://a.org/");
        jars.store("", &url, ["session=abc; HttpOnly"].into_iter());
        jars.flush();
        // Readable by its owner only (xt44b F15).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(COOKIES_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let back = Jars::open(CookieMode::Job, Some(dir.path()));
        assert_eq!(back.header("", &url).as_deref(), Some("session=abc"));
    }

    #[test]
    fn prefixed_and_oversized_cookies_are_refused_as_browsers_do() {
        let jars = Jars::open(CookieMode::Job, None);
        let big = format!("k_big={}", "x".repeat(4092));
        let fits = format!("k_fit={}", "y".repeat(4091));
        let set = [
            "__Host-p=1; Path=/",
            "__Secure-q=1",
            "__Secure-r=1; Secure",
            "__Host-s=1; Secure; Path=/",
            "__host-t=1; Path=/",
            big.as_str(),
            fits.as_str(),
            "plain=1",
        ];
        let plain = u("http://ck.example/set");
        jars.store("", &plain, set.into_iter());
        let names = |url: &Url| {
            let mut v: Vec<String> = jars.values("", url).into_iter().map(|(n, _)| n).collect();
            v.sort();
            v
        };
        assert_eq!(
            names(&u("https://ck.example/")),
            ["k_fit", "plain"],
            "over http"
        );
        let https = Jars::open(CookieMode::Job, None);
        https.store(
            "",
            &u("https://ck.example/set"),
            set.into_iter().chain([
                "__Host-d=1; Secure; Path=/; Domain=ck.example",
                "__Host-e=1; Secure; Path=/sub",
                "__Host-f=1; Secure",
                "__SECURE-g=1; Secure; Domain=ck.example",
            ]),
        );
        let mut got: Vec<String> = https
            .values("", &u("https://ck.example/sub/x"))
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        got.sort();
        assert_eq!(
            got,
            ["__Host-s", "__SECURE-g", "__Secure-r", "k_fit", "plain"]
        );
    }

    /// A server setting 4000-byte cookies on page after page: the jar keeps the newest within the site's
    /// bounds, so the `Cookie` header stays small (the old code sent all of them: megabytes).
    #[test]
    fn a_site_is_bounded_in_bytes_and_count_oldest_evicted_first() {
        use super::super::cookie_limits::{MAX_PER_SITE, MAX_SITE_BYTES};
        let jars = Jars::open(CookieMode::Job, None);
        let page = u("http://www.ck.example/set");
        for n in 0..40 {
            let set: Vec<String> = (0..14)
                .map(|i| format!("c{n}_{i}={}; Path=/", "v".repeat(4000)))
                .collect();
            jars.store("", &page, set.iter().map(String::as_str));
        }
        let header = jars.header("", &u("http://www.ck.example/leaf")).unwrap();
        assert!(
            header.len() <= MAX_SITE_BYTES + 3 * MAX_PER_SITE,
            "{}",
            header.len()
        );
        assert!(header.contains("c39_13="), "the newest is kept");
        assert!(!header.contains("c0_0="), "the oldest is evicted");
        // By count: small cookies, some on the parent domain (the same site); another site is apart.
        let jars = Jars::open(CookieMode::Job, None);
        jars.store("", &u("http://other.example/"), ["keep=1"].into_iter());
        for n in 0..MAX_PER_SITE + 20 {
            let domain = if n % 2 == 0 {
                "; Domain=ck.example"
            } else {
                ""
            };
            jars.store("", &page, [format!("k{n}=1{domain}").as_str()].into_iter());
        }
        let names: Vec<String> = jars.values("", &page).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), MAX_PER_SITE);
        assert!(!names.contains(&"k19".to_string()) && names.contains(&"k20".to_string()));
        assert_eq!(
            jars.header("", &u("http://other.example/")).as_deref(),
            Some("keep=1")
        );
    }

    /// The cookies a `cookies_file` gives a new jar count against its sites' bounds: a site setting its
    /// own cookies later keeps the jar at the bound, the file's oldest first out.
    #[test]
    fn a_cookies_file_counts_against_the_site_bounds() {
        use super::super::cookie_limits::MAX_PER_SITE;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cookies.txt");
        let lines: String = (0..100)
            .map(|i| format!("ck.example\tFALSE\t/\tFALSE\t0\tf{i}\t1\n"))
            .collect();
        std::fs::write(&file, lines).unwrap();
        let jars = Jars::open(CookieMode::Job, None);
        assert_eq!(jars.load_file(&file).unwrap(), 100);
        let page = u("http://ck.example/");
        for n in 0..MAX_PER_SITE - 50 {
            jars.store("", &page, [format!("s{n}=1").as_str()].into_iter());
        }
        let names: Vec<String> = jars.values("", &page).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), MAX_PER_SITE);
        assert!(names.contains(&format!("s{}", MAX_PER_SITE - 51)));
        let kept: Vec<_> = (0..100)
            .filter(|i| names.contains(&format!("f{i}")))
            .collect();
        assert_eq!(
            kept,
            (50..100).collect::<Vec<_>>(),
            "the file's first went first"
        );
    }

    /// Setting a cookie again makes it the newest; the order survives a resume.
    #[test]
    fn eviction_order_is_by_last_set_and_survives_a_resume() {
        use super::super::cookie_limits::MAX_PER_SITE;
        let dir = tempfile::tempdir().unwrap();
        let jars = Jars::open(CookieMode::Job, Some(dir.path()));
        let url = u("http://127.0.0.2:8081/");
        jars.store("", &url, ["session=1"].into_iter());
        for n in 1..MAX_PER_SITE {
            jars.store("", &url, [format!("k{n}=1").as_str()].into_iter());
        }
        jars.store("", &url, ["session=2"].into_iter());
        jars.flush();
        let back = Jars::open(CookieMode::Job, Some(dir.path()));
        back.store("", &url, ["late=1"].into_iter());
        let names: Vec<String> = back.values("", &url).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), MAX_PER_SITE);
        assert!(names.contains(&"session".to_string()) && names.contains(&"late".to_string()));
        assert!(!names.contains(&"k1".to_string()), "the oldest went");
        // Another address is another site.
        back.store("", &u("http://127.0.0.3:8081/"), ["x=1"].into_iter());
        assert_eq!(back.values("", &url).len(), MAX_PER_SITE);
    }
}
