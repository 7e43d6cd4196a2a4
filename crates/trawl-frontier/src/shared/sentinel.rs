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

/// The sentinels of one service, asked in turn.
pub(crate) struct Sentinels {
    /// Each sentinel's client, with its name as messages show it (`HOST:PORT`); the one that answered last
    /// first, so a silent sentinel costs its timeout once, not at each reconnection.
    order: Mutex<Vec<(String, redis::Client)>>,
    service: String,
    db: i64,
}

impl Sentinels {
    /// The sentinels at `hosts` (`HOST:PORT`, each maybe with `USER:PASSWORD@`) watching `service`, whose
    /// primary is used with database `db`; or which one cannot be read, and why (its password left out).
    pub(crate) fn new(hosts: &[&str], service: &str, db: i64) -> Result<Sentinels, String> {
        let order = hosts
            .iter()
            .map(|h| {
                let shown = h.rsplit('@').next().unwrap_or(h).to_string();
                match redis::Client::open(format!("redis://{h}")) {
                    Ok(client) => Ok((shown, client)),
                    Err(e) => Err(format!("the sentinel {shown:?} is not HOST:PORT ({e})")),
                }
            })
            .collect::<Result<_, String>>()?;
        Ok(Sentinels {
            order: Mutex::new(order),
            service: service.to_string(),
            db,
        })
    }

    /// A connection to the primary the first sentinel that answers names; each one that does not is said
    /// (a warning naming it and why), and with none left the error names them all.
    pub(crate) fn primary(&self) -> RedisResult<redis::Connection> {
        let sentinels = self.lock().clone();
        let mut failed = Vec::new();
        for (i, (shown, sentinel)) in sentinels.iter().enumerate() {
            match self.ask(sentinel) {
                Ok(conn) => {
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
                    tracing::warn!("sentinel {shown}: {why}{next}");
                    failed.push(format!("sentinel {shown}: {why}"));
                }
            }
        }
        Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "no sentinel named a primary for {:?} ({})",
                self.service,
                failed.join("; ")
            ),
        )
        .into())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, redis::Client)>> {
        self.order
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Asks `sentinel` for the service's primary and connects to it, each step under [`SENTINEL_TIMEOUT`];
    /// why not, in words, when it fails.
    fn ask(&self, sentinel: &redis::Client) -> Result<redis::Connection, String> {
        let mut conn = timed(sentinel).map_err(|e| unreachable(&e))?;
        let named: Option<(String, u16)> = redis::cmd("SENTINEL")
            .arg("get-master-addr-by-name")
            .arg(&self.service)
            .query(&mut conn)
            .map_err(|e| silent(&e))?;
        let (host, port) = named.ok_or_else(|| format!("knows no service {:?}", self.service))?;
        let info = ConnectionAddr::Tcp(host.clone(), port)
            .into_connection_info()
            .map_err(|e| e.to_string())?
            .set_redis_settings(RedisConnectionInfo::default().set_db(self.db));
        let client = redis::Client::open(info).map_err(|e| e.to_string())?;
        let mut primary = timed(&client)
            .map_err(|e| format!("names {host}:{port}, which {}", unreachable(&e)))?;
        match redis::cmd("ROLE").query::<Role>(&mut primary) {
            Ok(Role::Primary { .. }) => Ok(primary),
            Ok(_) => Err(format!(
                "names {host}:{port}, which is not a primary (a failover under way?)"
            )),
            Err(e) => Err(format!("names {host}:{port}, which {}", silent(&e))),
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

/// Why a connection could not be made, in words.
fn unreachable(e: &redis::RedisError) -> String {
    if e.is_timeout() {
        format!("did not answer within {} s", SENTINEL_TIMEOUT.as_secs())
    } else {
        format!("cannot be reached ({e})")
    }
}

/// Why a query failed, in words: no answer within the timeout, or what was wrong.
fn silent(e: &redis::RedisError) -> String {
    if e.is_timeout() {
        format!("did not answer within {} s", SENTINEL_TIMEOUT.as_secs())
    } else {
        format!("answered with an error ({e})")
    }
}
