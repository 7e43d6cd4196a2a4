//! Why the shared frontier failed, and whether waiting may help.

/// Why the shared frontier failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SharedError {
    /// Redis cannot be reached now (down, restarting, a failover): the step may be tried again.
    #[error("redis is unreachable ({})", unreachable(.0))]
    Unavailable(redis::RedisError),
    /// Redis is out of memory (`maxmemory`): nothing more can be queued until an operator makes room.
    #[error(
        "redis is full (maxmemory reached): the crawl waits; raise maxmemory or add memory, and it goes on ({0})"
    )]
    Full(redis::RedisError),
    /// Redis refused a command.
    #[error("redis: {}", refused(.0))]
    Redis(redis::RedisError),
    /// The server's address cannot be read.
    #[error("{0}")]
    Address(String),
    /// Redis answered something a trawl script never returns (another program wrote the job's keys?).
    #[error(
        "redis answered {0:?} where trawl expected one of its scripts' replies; is another program using the keys trawl:{{JOB}}:*?"
    )]
    Reply(String),
    /// An item in Redis could not be read back: it was set aside, the crawl goes on.
    #[error(
        "queue {queue:?} held an item this version cannot read (damaged data, or another trawl version's \
         format): it was set aside in the list {list}, and the crawl goes on without it"
    )]
    Corrupt {
        /// Its queue.
        queue: String,
        /// The crawl's list of items set aside (`trawl:{JOB}:unreadable`).
        list: String,
    },
}

impl From<redis::RedisError> for SharedError {
    fn from(e: redis::RedisError) -> Self {
        // A transaction Redis aborted for its memory says so in its text only (xt46c N6: `add-seeds` and
        // `set` on a full Redis answered with the raw abort).
        if e.code() == Some("OOM")
            || e.to_string()
                .contains("command not allowed when used memory")
        {
            SharedError::Full(e)
        } else if e.is_io_error()
            || e.is_connection_dropped()
            || e.is_connection_refusal()
            || e.is_timeout()
            || matches!(
                e.code(),
                Some("LOADING" | "READONLY" | "MASTERDOWN" | "TRYAGAIN")
            )
        {
            SharedError::Unavailable(e)
        } else {
            SharedError::Redis(e)
        }
    }
}

/// Why Redis could not be reached, in an operator's words: a server that took no step within the reply
/// timeout is said so, not by the socket's errno (xt44a F6: "Resource temporarily unavailable (os error 11)"
/// read as a shortage of the machine's own).
fn unreachable(e: &redis::RedisError) -> String {
    use std::io::ErrorKind;
    // A message that says so already (a silent sentinel's, naming it) is kept.
    let text = e.to_string();
    if text.contains("did not answer") {
        return text;
    }
    let waited = e.is_timeout()
        || std::error::Error::source(e)
            .and_then(|s| s.downcast_ref::<std::io::Error>())
            .is_some_and(|io| matches!(io.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut))
        || text.contains("os error 11");
    if waited {
        format!(
            "it did not answer within {} s: a server stopped, overloaded or cut off",
            super::connect::REPLY_TIMEOUT.as_secs()
        )
    } else {
        text
    }
}

/// What Redis refused, with the fix where one is known (xt44a F7): a server that does not speak Redis's
/// protocol (a wrong port), one that wants a password.
fn refused(e: &redis::RedisError) -> String {
    let text = e.to_string();
    if e.code() == Some("NOAUTH") {
        return format!(
            "{text} (the server wants a password: set TRAWL_REDIS_PASSWORD, or write it in the URL, \
             redis://:PASSWORD@HOST:PORT/DB)"
        );
    }
    if matches!(e.kind(), redis::ErrorKind::Parse) || text.contains("Parse error") {
        return "the server does not answer in Redis's protocol: is the port that of a Redis (or Valkey) \
                server?"
            .to_string();
    }
    text
}

impl SharedError {
    /// Whether the same step may work when tried again later (Redis back, or given memory).
    pub fn is_transient(&self) -> bool {
        matches!(self, SharedError::Unavailable(_) | SharedError::Full(_))
    }
}

#[cfg(test)]
mod tests {
    use super::SharedError;

    /// A server that takes no step within the reply timeout, and one that does not speak Redis, are said in
    /// an operator's words (xt44a F6, F7).
    #[test]
    fn unreachable_and_foreign_servers_are_said_plainly() {
        let silent = SharedError::from(redis::RedisError::from(std::io::Error::from(
            std::io::ErrorKind::WouldBlock,
        )));
        assert!(silent.is_transient());
        assert!(
            silent.to_string().contains("did not answer within 6 s"),
            "{silent}"
        );
        let foreign = SharedError::from(redis::RedisError::from((
            redis::ErrorKind::Parse,
            "Parse error",
        )));
        assert!(
            foreign
                .to_string()
                .contains("does not answer in Redis's protocol"),
            "{foreign}"
        );
    }
}
