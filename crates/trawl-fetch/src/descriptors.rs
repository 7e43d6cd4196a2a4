//! The machine's own limits on making connections: how many files the process may open (raised at start,
//! warned about when even the hard limit is too low), and which errors of `socket()`/`connect()` are trawl's
//! shortage rather than the host's failure (too many open files, no buffer space, out of memory), so that
//! the crawl puts such a URI back instead of blaming and resting the host.

use rustix::io::Errno;

use super::idle::FD_RESERVE;

/// Descriptors a crawl cannot do without besides its connections: the stores' journals and some of their
/// table files, the WARC, crawl.log, the job's other files.
const FD_FLOOR: u64 = 256;

/// Idle connections kept however short the limit ([`super::idle::idle_max`]'s floor).
pub(super) const IDLE_FLOOR: u64 = 16;

/// How many files the process may open (its soft RLIMIT_NOFILE; `None`: no limit), having raised it to the
/// hard limit (or to 65,536 under an unlimited hard limit): a broad crawl holds a socket per connection and
/// per idle host, past the common default of 1,024. The limit is the process's: a server running crawls
/// raises it once for all of them. Warns when even that is below what `max_connections` need
/// ([`needed`]).
pub(super) fn open_files_limit(max_connections: usize) -> Option<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let target = limit.maximum.unwrap_or(65_536);
    let now = match limit.current {
        Some(current)
            if current < target
                && setrlimit(
                    Resource::Nofile,
                    Rlimit {
                        current: Some(target),
                        maximum: limit.maximum,
                    },
                )
                .is_ok() =>
        {
            Some(target)
        }
        current => current,
    };
    if let Some(message) = now.and_then(|n| too_low(n, max_connections)) {
        tracing::warn!("{message}");
    }
    now
}

/// The fewest descriptors a crawl with `max_connections` needs (a socket and a DNS socket per connection,
/// a few idle connections, [`FD_FLOOR`]), and how many let it keep its idle connections and the stores'
/// table files open (`FD_RESERVE` instead of the floor).
pub(super) fn needed(max_connections: usize) -> (u64, u64) {
    let sockets = 2 * max_connections as u64 + IDLE_FLOOR;
    (sockets + FD_FLOOR, sockets + FD_RESERVE)
}

/// The warning for an open-files limit of `limit` when it is below what `max_connections` need.
fn too_low(limit: u64, max_connections: usize) -> Option<String> {
    let (least, comfortable) = needed(max_connections);
    (limit < least).then(|| {
        format!(
            "trawl may open only {limit} files (RLIMIT_NOFILE, at its hard limit), and a crawl with \
             fetch.max_connections = {max_connections} needs at least {least} ({comfortable} to keep its \
             idle connections): connections will fail with \"too many open files\" and be tried again. \
             Raise the limit (`ulimit -n {comfortable}` in the shell that starts trawl, `LimitNOFILE=` for a \
             service) or lower fetch.max_connections"
        )
    })
}

/// Whether `e`, from making a connection, is the machine's shortage rather than the host's failure: too
/// many open files (the process's or the system's), no buffer space, out of memory.
pub(super) fn is_shortage(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::OutOfMemory
        || Errno::from_io_error(e)
            .is_some_and(|n| [Errno::MFILE, Errno::NFILE, Errno::NOBUFS, Errno::NOMEM].contains(&n))
}

/// What a shortage `e` is, in the words an operator looks for.
pub(super) fn shortage_words(e: &std::io::Error) -> String {
    match Errno::from_io_error(e) {
        Some(Errno::MFILE) => format!("too many open files (the process's limit): {e}"),
        Some(Errno::NFILE) => format!("too many open files (the system's limit): {e}"),
        Some(Errno::NOBUFS) => format!("no buffer space for a socket: {e}"),
        _ => format!("out of memory: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_machines_own_shortages_are_told_apart() {
        let os = std::io::Error::from_raw_os_error;
        for shortage in [Errno::MFILE, Errno::NFILE, Errno::NOBUFS, Errno::NOMEM] {
            assert!(is_shortage(&os(shortage.raw_os_error())), "{shortage:?}");
        }
        assert!(
            shortage_words(&os(Errno::MFILE.raw_os_error())).starts_with("too many open files")
        );
        for failure in [
            Errno::CONNREFUSED,
            Errno::HOSTUNREACH,
            Errno::TIMEDOUT,
            Errno::AGAIN,
        ] {
            assert!(!is_shortage(&os(failure.raw_os_error())), "{failure:?}");
        }
    }

    #[test]
    fn a_limit_below_what_the_connections_need_is_warned_about() {
        assert_eq!(needed(32), (336, 1104));
        let said = too_low(64, 32).unwrap();
        assert!(
            said.contains("needs at least 336") && said.contains("ulimit -n 1104"),
            "{said}"
        );
        assert!(said.contains("fetch.max_connections"), "{said}");
        assert_eq!(too_low(336, 32), None);
        assert!(too_low(2000, 1000).is_some());
        assert_eq!(too_low(1 << 20, 1000), None);
    }
}
