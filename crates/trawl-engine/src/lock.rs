//! Locks that outlive a panic: a worker that panicked while holding a lock leaves data the crawl can still use
//! (counters, queues), so a poisoned lock is taken as it is rather than stopping every other task.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// `m` locked, poisoned or not.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
