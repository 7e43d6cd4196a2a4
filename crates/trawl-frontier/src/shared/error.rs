//! Why the shared frontier failed, and whether waiting may help.

/// Why the shared frontier failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SharedError {
    /// Redis cannot be reached now (down, restarting, a failover): the step may be tried again.
    #[error("redis is unreachable ({0})")]
    Unavailable(redis::RedisError),
    /// Redis is out of memory (`maxmemory`): nothing more can be queued until an operator makes room.
    #[error(
        "redis is full (maxmemory reached): the crawl waits; raise maxmemory or add memory, and it goes on ({0})"
    )]
    Full(redis::RedisError),
    /// Redis refused a command.
    #[error("redis: {0}")]
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
        if e.code() == Some("OOM") {
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

impl SharedError {
    /// Whether the same step may work when tried again later (Redis back, or given memory).
    pub fn is_transient(&self) -> bool {
        matches!(self, SharedError::Unavailable(_) | SharedError::Full(_))
    }
}
