//! Where a shared crawl's server is: one Redis (or Valkey), a Redis Cluster (found by asking the node a
//! `redis://` URL names), or the primary that Sentinel names (`redis+sentinel://S1:PORT,S2:PORT/SERVICE/DB`,
//! asked again after a failover).

use std::time::Duration;

use redis::{
    Cmd, ConnectionLike, RedisResult, Value,
    cluster::{ClusterClient, ClusterConnection},
};

use super::{error::SharedError, sentinel::Sentinels};

/// How long a connection may take to be made, and a reply to come, before the server counts as unreachable
/// (and the step is tried again on a new connection): far longer than any of trawl's scripts runs (each is
/// bounded: milliseconds) or Redis's own `busy-reply-threshold` (5 s), yet short enough that a server that
/// stops answering without closing the connection (stopped, a dead host, a dropped link) pauses the crawl
/// within seconds instead of freezing it until the kernel gives up on the connection.
pub(crate) const REPLY_TIMEOUT: Duration = Duration::from_secs(6);

/// A server to (re)connect to.
pub(crate) enum Target {
    One(redis::Client),
    Cluster(ClusterClient),
    Sentinel(Sentinels),
}

/// A connection to it.
pub(crate) enum Conn {
    One(redis::Connection),
    Cluster(Box<ClusterConnection>),
}

impl Target {
    /// Reads `url`: `redis://HOST:PORT/DB` (a cluster node makes it a Cluster), or
    /// `redis+sentinel://S1:PORT[,S2:PORT…]/SERVICE[/DB]`.
    pub(crate) fn open(url: &str) -> Result<Target, SharedError> {
        if let Some(rest) = url.strip_prefix("redis+sentinel://") {
            return sentinel(url, rest);
        }
        let client = redis::Client::open(url).map_err(|e| {
            if e.kind() == redis::ErrorKind::InvalidClientConfig {
                SharedError::Address(format!(
                    "{}: not a Redis URL: write redis://[:PASSWORD@]HOST:PORT/DB (rediss:// with TLS, or \
                     redis+sentinel://HOST:PORT[,HOST:PORT…]/SERVICE[/DB]); a password holding `/`, `@`, `:`, \
                     `?`, `#` or `%` is written percent-encoded (`/` as %2F)",
                    without_password(url)
                ))
            } else {
                e.into()
            }
        })?;
        let mut conn = one(&client)?;
        let info: String = redis::cmd("INFO").arg("cluster").query(&mut conn)?;
        if info.contains("cluster_enabled:1") {
            let cluster = ClusterClient::builder(vec![url])
                .connection_timeout(REPLY_TIMEOUT)
                .response_timeout(REPLY_TIMEOUT)
                .build()?;
            return Ok(Target::Cluster(cluster));
        }
        Ok(Target::One(client))
    }

    /// A new connection (after a failover: to the new primary).
    pub(crate) fn connect(&self) -> RedisResult<Conn> {
        match self {
            Target::One(c) => one(c).map(Conn::One),
            Target::Cluster(c) => {
                let conn = c.get_connection()?;
                conn.set_write_timeout(Some(REPLY_TIMEOUT))?;
                Ok(Conn::Cluster(Box::new(conn)))
            }
            Target::Sentinel(s) => {
                let conn = s.primary()?;
                timed(&conn)?;
                Ok(Conn::One(conn))
            }
        }
    }
}

/// A connection to one server, made and used under [`REPLY_TIMEOUT`].
fn one(client: &redis::Client) -> RedisResult<redis::Connection> {
    let conn = client.get_connection_with_timeout(REPLY_TIMEOUT)?;
    timed(&conn)?;
    Ok(conn)
}

/// Bounds each read and write of `conn` by [`REPLY_TIMEOUT`].
fn timed(conn: &redis::Connection) -> RedisResult<()> {
    conn.set_read_timeout(Some(REPLY_TIMEOUT))?;
    conn.set_write_timeout(Some(REPLY_TIMEOUT))
}

/// `rest` (a URL after its `scheme://`) split where its authority ends: at the first `/` after its last
/// `@`, so a password holding a `/` (which it should not: `%2F`) is still taken for the user part, and
/// hidden, not for the path.
fn split_authority(rest: &str) -> (&str, &str) {
    let from = rest.rfind('@').unwrap_or(0);
    rest.split_at(rest[from..].find('/').map_or(rest.len(), |at| from + at))
}

/// `url` without the password of its user part (`redis://:secret@host` -> `redis://:PASSWORD@host`): the
/// marker, the hints made from it and every message naming the Redis are not where a secret belongs.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = split_authority(rest);
    match authority.rsplit_once('@') {
        Some((user, hosts)) => {
            let user = match user.split_once(':') {
                Some((name, _)) => format!("{name}:PASSWORD"),
                None => user.to_string(),
            };
            format!("{scheme}://{user}@{hosts}{tail}")
        }
        None => url.to_string(),
    }
}

/// `url` with the password `encoded` (percent-encoded already) in its user part, read as
/// [`without_password`] reads it; a URL with a password of its own keeps it.
pub fn with_password(url: &str, encoded: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = split_authority(rest);
    match authority.rsplit_once('@') {
        Some((user, _)) if user.contains(':') => url.to_string(),
        Some((user, hosts)) => format!("{scheme}://{user}:{encoded}@{hosts}{tail}"),
        None => format!("{scheme}://:{encoded}@{authority}{tail}"),
    }
}

fn sentinel(url: &str, rest: &str) -> Result<Target, SharedError> {
    // A sentinel's user part (`:secret@`) is not for messages: the address is shown by its sentinels'
    // `HOST:PORT`s only.
    let (authority, path) = split_authority(rest);
    let hosts_only: Vec<&str> = authority
        .split(',')
        .map(|h| h.rsplit('@').next().unwrap_or(h))
        .collect();
    let shown = url.replacen(authority, &hosts_only.join(","), 1);
    let bad = |why: &str| {
        SharedError::Address(format!(
            "{shown}: {why}; write redis+sentinel://SENTINEL:PORT[,SENTINEL:PORT…]/SERVICE[/DB]"
        ))
    };
    // Split as the message above is: a password holding a `/` is not read as the service name.
    let hosts = Some(authority)
        .filter(|h| !h.is_empty())
        .ok_or_else(|| bad("no sentinel"))?;
    let mut parts = path.strip_prefix('/').unwrap_or(path).split('/');
    let service = parts
        .next()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| bad("no service name"))?;
    let db: i64 = match parts.next().filter(|d| !d.is_empty()) {
        Some(d) => d.parse().map_err(|_| bad("the database is not a number"))?,
        None => 0,
    };
    let sentinels: Vec<&str> = hosts.split(',').collect();
    let sentinels = Sentinels::new(&sentinels, service, db).map_err(|why| bad(&why.to_string()))?;
    Ok(Target::Sentinel(sentinels))
}

impl ConnectionLike for Conn {
    fn req_packed_command(&mut self, cmd: &[u8]) -> RedisResult<Value> {
        match self {
            Conn::One(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands(
        &mut self,
        cmd: &[u8],
        offset: usize,
        count: usize,
    ) -> RedisResult<Vec<Value>> {
        match self {
            Conn::One(c) => c.req_packed_commands(cmd, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(cmd, offset, count),
        }
    }

    fn req_command(&mut self, cmd: &Cmd) -> RedisResult<Value> {
        match self {
            Conn::One(c) => c.req_command(cmd),
            Conn::Cluster(c) => c.req_command(cmd),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::One(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }

    fn check_connection(&mut self) -> bool {
        match self {
            Conn::One(c) => c.check_connection(),
            Conn::Cluster(c) => c.check_connection(),
        }
    }

    fn is_open(&self) -> bool {
        match self {
            Conn::One(c) => c.is_open(),
            Conn::Cluster(c) => c.is_open(),
        }
    }
}
