//! Who may operate: one password (argon2-hashed in `JOBS/.trawl-auth.json`, or given as `TRAWL_PASSWORD`),
//! bearer tokens for the API (stored as SHA-256 digests: they are long and random), in-memory UI sessions
//! each with its CSRF token, and a login rate limit.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Mutex, PoisonError},
    time::{Duration, Instant},
};

use argon2::{Argon2, PasswordHash, PasswordHasher, PasswordVerifier, password_hash::SaltString};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Login attempts allowed per client address per [`LOGIN_WINDOW`]. Default: 5.
pub const LOGIN_ATTEMPTS: usize = 5;
/// The window of the login rate limit. Default: one minute.
pub const LOGIN_WINDOW: Duration = Duration::from_secs(60);

/// The auth file's name inside the jobs folder.
pub const AUTH_FILE: &str = ".trawl-auth.json";

#[derive(Debug, Default, Serialize, Deserialize)]
struct AuthFile {
    /// The password's argon2 PHC string.
    password: Option<String>,
    /// Hex SHA-256 digests of the API tokens.
    tokens: Vec<String>,
}

/// The credentials and the live sessions.
#[derive(Debug, Default)]
pub struct Auth {
    password: Option<String>,
    tokens: Vec<String>,
    sessions: Mutex<HashMap<String, String>>,
    attempts: Mutex<HashMap<String, Vec<Instant>>>,
}

/// Why a login failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginError {
    /// The password is wrong.
    Wrong,
    /// Too many attempts from this address in the last minute.
    Limited,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A fresh random secret: 24 bytes as lowercase hex (for one-time passwords and tokens).
pub fn random_secret() -> String {
    random_hex(24)
}

/// `n` random bytes as lowercase hex.
pub(crate) fn random_hex(n: usize) -> String {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf).expect("the OS random source failed");
    data_encoding::HEXLOWER.encode(&buf)
}

fn digest(token: &str) -> String {
    data_encoding::HEXLOWER.encode(&Sha256::digest(token.as_bytes()))
}

fn hash_password(password: &str) -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS random source failed");
    let salt = SaltString::encode_b64(&bytes).expect("16 bytes make a valid salt");
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .expect("argon2 hashing with default parameters cannot fail")
        .to_string()
}

/// Compares two strings in time that depends only on their lengths.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

impl Auth {
    /// No credentials: every protected route refuses.
    pub fn none() -> Auth {
        Auth::default()
    }

    /// Credentials from `JOBS/.trawl-auth.json` (if present), with `env_password` (the `TRAWL_PASSWORD`
    /// variable) replacing the stored password when given.
    pub fn load(jobs_dir: &Path, env_password: Option<&str>) -> std::io::Result<Auth> {
        let path = jobs_dir.join(AUTH_FILE);
        let file: AuthFile = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}: {e}", path.display()),
                )
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => AuthFile::default(),
            Err(e) => return Err(e),
        };
        Ok(Auth {
            password: env_password.map(hash_password).or(file.password),
            tokens: file.tokens,
            ..Auth::default()
        })
    }

    /// Stores `password` (hashed) and a new API token in `JOBS/.trawl-auth.json`, replacing what was there,
    /// and returns the token (shown once; only its digest is kept).
    pub fn set_password(jobs_dir: &Path, password: &str) -> std::io::Result<(PathBuf, String)> {
        std::fs::create_dir_all(jobs_dir)?;
        let token = format!("trawl_{}", random_hex(24));
        let file = AuthFile {
            password: Some(hash_password(password)),
            tokens: vec![digest(&token)],
        };
        let path = jobs_dir.join(AUTH_FILE);
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(&file)?)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))?;
        }
        std::fs::rename(&tmp, &path)?;
        Ok((path, token))
    }

    /// Credentials held in memory only: `password`, and `token` for the API.
    pub fn with_password(password: &str, token: Option<&str>) -> Auth {
        Auth {
            password: Some(hash_password(password)),
            tokens: token.map(digest).into_iter().collect(),
            ..Auth::default()
        }
    }

    /// Adds an API token (kept as its digest).
    pub fn add_token(&mut self, token: &str) {
        self.tokens.push(digest(token));
    }

    /// Whether a password is set.
    pub fn has_password(&self) -> bool {
        self.password.is_some()
    }

    /// Whether any API token is known.
    pub fn has_tokens(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// Whether `token` is one of the API tokens.
    pub fn check_token(&self, token: &str) -> bool {
        let d = digest(token);
        self.tokens.iter().any(|t| same(t, &d))
    }

    fn check_password(&self, password: &str) -> bool {
        let Some(phc) = &self.password else {
            return false;
        };
        PasswordHash::new(phc).is_ok_and(|h| {
            Argon2::default()
                .verify_password(password.as_bytes(), &h)
                .is_ok()
        })
    }

    /// Checks `password` from client `addr` under the rate limit; on success opens a session and returns
    /// its id and CSRF token.
    pub fn login(&self, addr: &str, password: &str) -> Result<(String, String), LoginError> {
        // Counted before the password is checked, so a burst of guesses at once is limited too; a log-in
        // that succeeds is then taken off the count (the limit is on failed ones).
        let now = Instant::now();
        {
            let mut attempts = lock(&self.attempts);
            let mine = attempts.entry(addr.to_string()).or_default();
            mine.retain(|t| now.duration_since(*t) < LOGIN_WINDOW);
            if mine.len() >= LOGIN_ATTEMPTS {
                return Err(LoginError::Limited);
            }
            mine.push(now);
        }
        if !self.check_password(password) {
            return Err(LoginError::Wrong);
        }
        if let Some(mine) = lock(&self.attempts).get_mut(addr)
            && let Some(at) = mine.iter().rposition(|t| *t == now)
        {
            mine.remove(at);
        }
        let sid = random_hex(24);
        let csrf = random_hex(16);
        lock(&self.sessions).insert(sid.clone(), csrf.clone());
        Ok((sid, csrf))
    }

    /// The CSRF token of session `sid`, if it is open.
    pub fn session(&self, sid: &str) -> Option<String> {
        lock(&self.sessions).get(sid).cloned()
    }

    /// Closes session `sid`.
    pub fn logout(&self, sid: &str) {
        lock(&self.sessions).remove(sid);
    }

    /// Whether `given` is the CSRF token `expected` (in constant time).
    pub fn csrf_ok(expected: &str, given: &str) -> bool {
        same(expected, given)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_token_and_rate_limit() {
        let dir = tempfile::tempdir().unwrap();
        let (_, token) = Auth::set_password(dir.path(), "s3cret").unwrap();
        let auth = Auth::load(dir.path(), None).unwrap();
        assert!(auth.check_token(&token));
        assert!(!auth.check_token("trawl_nope"));
        assert_eq!(auth.login("a", "wrong"), Err(LoginError::Wrong));
        let (sid, csrf) = auth.login("a", "s3cret").unwrap();
        assert_eq!(auth.session(&sid), Some(csrf));
        // Successful log-ins do not count toward the limit; failed ones do.
        for _ in 0..LOGIN_ATTEMPTS + 1 {
            assert!(auth.login("a", "s3cret").is_ok());
        }
        for _ in 0..LOGIN_ATTEMPTS - 1 {
            let _ = auth.login("a", "wrong");
        }
        assert_eq!(auth.login("a", "s3cret"), Err(LoginError::Limited));
        assert!(
            auth.login("b", "s3cret").is_ok(),
            "the limit is per address"
        );
        let env = Auth::load(dir.path(), Some("other")).unwrap();
        assert!(env.login("c", "other").is_ok());
        assert!(env.check_token(&token), "tokens survive an env password");
    }
}
