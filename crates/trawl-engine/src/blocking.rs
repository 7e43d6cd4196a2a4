//! Work that may block a thread (extracting, encoding, decoding, a Redis round trip), run where blocking is
//! fine: in place when it is small, else off the async threads.

/// Inputs up to this many bytes are worked on in place: extracting or encoding them takes well under a
/// millisecond, less than handing the thread over costs (a wake-up in tokio's blocking pool and two
/// context switches each time, 7% of a crawl's CPU in `perf`).
pub(crate) const IN_PLACE_MAX: usize = 256 << 10;

/// Runs `f`, work on `bytes` of input, where blocking is fine: in place when the input is small, else off
/// the async threads on a multi-threaded runtime.
pub(crate) fn blocking<R>(bytes: usize, f: impl FnOnce() -> R) -> R {
    if bytes <= IN_PLACE_MAX {
        return f();
    }
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}
