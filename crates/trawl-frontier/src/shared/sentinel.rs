//! The primary that Sentinel names: each sentinel is asked in turn over a connection of trawl's own, made
//! and read under [`SENTINEL_TIMEOUT`], so a sentinel that takes the connection and never answers (a stopped
//! process, a dead host behind a live port) is skipped with a warning naming it instead of hanging the
//! worker (redis-rs's `SentinelClient` takes no read timeout for its query). The address named is checked
//! to be a primary (`ROLE`), as the Sentinel client guidelines ask.

use std::{sync::Mutex, time::Duration};

use redis::{ConnectionAddr, IntoConnectionInfo, RedisConnectionInfo, RedisResult, Role};

/// How long a sentinel (or the primary it names, for `ROLE`) may take to take the connection and to answer
/// before the next sentinel is asked: a sentinel answers from memory, in well under a millisecond.
pub(crate) const SENTINEL_TIMEOUT: Duration = Duration::from_secs(3);

/// Why one sentinel named no usable primary.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SentinelError {
    /// Its address cannot be read.
    #[error("the sentinel {shown:?} is not HOST:PORT ({source})")]
    Address {
        shown: String,
        source: redis::RedisError,
    },
    /// It (or the primary it named) took the connection or the question and did not answer in time.
    #[error("did not answer within {} s", SENTINEL_TIMEOUT.as_secs())]
    Silent,
    /// It (or the primary it named) could not be reached.
    #[error("cannot be reached ({0})")]
    Unreachable(redis::RedisError),
    /// It (or the primary it named) answered a question with an error.
    #[error("answered with an error ({0})")]
    Refused(redis::RedisError),
    /// It watches no service of that name: the URL's `SERVICE` is not the name in the sentinels' own
    /// `sentinel monitor` lines.
    #[error("knows no service {0:?}")]
    NoService(String),
    /// The primary it named could not be used.
    #[error("names {at}, which {why}")]
    Named { at: String, why: Box<SentinelError> },
    /// The address it named is not a primary now.
    #[error("names {0}, which is not a primary (a failover under way?)")]
    NotPrimary(String),
}

impl SentinelError {
    /// A failure to connect or to get an answer, in words: no answer in time, or what went wrong.
    fn connecting(e: redis::RedisError) -> Self {
        if e.is_timeout() {
            SentinelError::Silent
        } else {
            SentinelError::Unreachable(e)
        }
    }

    /// A failed question, in words.
    fn asking(e: redis::RedisError) -> Self {
        if e.is_timeout() {
            SentinelError::Silent
        } else {
            SentinelError::Refused(e)
        }
    }
}

/// The sentinels of one service, asked in turn.
pub(crate) struct Sentinels {
    /// Each sentinel's client, with its name as messages show it (`HOST:PORT`); the one that answered last
    /// first, so a silent sentinel costs its timeout once, not at each reconnection.
    order: Mutex<Vec<(String, redis::Client)>>,
    service: String,
    db: i64,
    /// Whether a sentinel ever named the primary: then "no such service" is a passing state (a sentinel
    /// restarted without its configuration), waited out as the crawl waits out an unreachable Redis.
    named: std::sync::atomic::AtomicBool,
    /// When each sentinel's failure was last said: once a minute at most, as the crawl says an unreachable
    /// Redis (xt16b F6: a failover was said several times a second, by every step and retry).
    said: Mutex<std::collections::HashMap<String, std::time::Instant>>,
}

/// How often one sentinel's failure is said at most.
const SAY_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

impl Sentinels {
    /// The sentinels at `hosts` (`HOST:PORT`, each maybe with `USER:PASSWORD@`) watching `service`, whose
    /// primary is used with database `db`; or which one cannot be read, and why (its password left out).
    pub(crate) fn new(hosts: &[&str], service: &str, db: i64) -> Result<Sentinels, SentinelError> {
        let order = hosts
            .iter()
            .map(|h| {
                let shown = h.rsplit('@').next().unwrap_or(h).to_string();
                match redis::Client::open(format!("redis://{h}")) {
                    Ok(client) => Ok((shown, client)),
                    Err(source) => Err(SentinelError::Address { shown, source }),
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(Sentinels {
            order: Mutex::new(order),
            service: service.to_string(),
            db,
            named: std::sync::atomic::AtomicBool::new(false),
            said: Mutex::default(),
        })
    }

    /// A connection to the primary the first sentinel that answers names; each one that does not is said
    /// (a warning naming it and why), and with none left the error names them all. The error is a timeout,
    /// which the crawl waits out, unless every sentinel answered that it knows no such service before any
    /// ever named a primary: that is the URL's mistake, and no wait mends it.
    pub(crate) fn primary(&self) -> RedisResult<redis::Connection> {
        let sentinels = self.lock().clone();
        let mut failed = Vec::new();
        let mut unknown = 0;
        for (i, (shown, sentinel)) in sentinels.iter().enumerate() {
            match self.ask(sentinel) {
                Ok(conn) => {
                    self.named.store(true, std::sync::atomic::Ordering::Relaxed);
                    if i > 0 {
                        let mut order = self.lock();
                        if let Some(at) = order.iter().position(|(s, _)| s == shown) {
                            let answered = order.remove(at);
                            order.insert(0, answered);
                        }
                    }
                    return Ok(conn);
                }
                Err(why) => {
                    let next = if i + 1 < sentinels.len() {
                        "; asking the next one"
                    } else {
                        ""
                    };
                    let mut said = self
                        .said
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    // By what is said: another reason of the same sentinel is said at once (review 64b R9).
                    let line = format!("sentinel {shown}: {why}{next}");
                    if said.get(&line).is_none_or(|at| at.elapsed() >= SAY_EVERY) {
                        tracing::warn!("{line}");
                        said.insert(line, std::time::Instant::now());
                    }
                    unknown += usize::from(matches!(why, SentinelError::NoService(_)));
                    failed.push(format!("sentinel {shown}: {why}"));
                }
            }
        }
        let detail = format!(
            "no sentinel named a primary for {:?} ({})",
            self.service,
            failed.join("; ")
        );
        if unknown == sentinels.len() && !self.named.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(redis::RedisError::from((
                redis::ErrorKind::MasterNameNotFoundBySentinel,
                "no sentinel knows the service: write the name of their `sentinel monitor` lines in the URL",
                detail,
            )));
        }
        Err(std::io::Error::new(std::io::ErrorKind::TimedOut, detail).into())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, redis::Client)>> {
        self.order
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Asks `sentinel` for the service's primary and connects to it, each step under [`SENTINEL_TIMEOUT`].
    fn ask(&self, sentinel: &redis::Client) -> Result<redis::Connection, SentinelError> {
        let mut conn = timed(sentinel).map_err(SentinelError::connecting)?;
        let named: Option<(String, u16)> = redis::cmd("SENTINEL")
            .arg("get-master-addr-by-name")
            .arg(&self.service)
            .query(&mut conn)
            .map_err(SentinelError::asking)?;
        let (host, port) = named.ok_or_else(|| SentinelError::NoService(self.service.clone()))?;
        let at = format!("{host}:{port}");
        let named = |why| SentinelError::Named {
            at: at.clone(),
            why: Box::new(why),
        };
        let info = ConnectionAddr::Tcp(host, port)
            .into_connection_info()
            .and_then(|info| {
                redis::Client::open(
                    info.set_redis_settings(RedisConnectionInfo::default().set_db(self.db)),
                )
            })
            .map_err(|e| named(SentinelError::Refused(e)))?;
        let mut primary = timed(&info).map_err(|e| named(SentinelError::connecting(e)))?;
        match redis::cmd("ROLE").query::<Role>(&mut primary) {
            Ok(Role::Primary { .. }) => Ok(primary),
            Ok(_) => Err(SentinelError::NotPrimary(at)),
            Err(e) => Err(named(SentinelError::asking(e))),
        }
    }
}

/// A connection to `client`'s server, made, read and written under [`SENTINEL_TIMEOUT`].
fn timed(client: &redis::Client) -> RedisResult<redis::Connection> {
    let conn = client.get_connection_with_timeout(SENTINEL_TIMEOUT)?;
    conn.set_read_timeout(Some(SENTINEL_TIMEOUT))?;
    conn.set_write_timeout(Some(SENTINEL_TIMEOUT))?;
    Ok(conn)
}
