//! Waking idle workers: one at a time, and at the moment the frontier said work would be ready.
//!
//! A broad crawl runs hundreds of workers (one per connection) and most of them are idle most of the time.
//! Waking them all whenever anything changed, or letting each re-poll on its own timer, costs a frontier lock
//! per idle worker per event: at 1,000 connections that was half the crawl's CPU. Here a change wakes one
//! idle worker; a worker that takes a URI wakes the next when the frontier says more is ready now (so a
//! burst of ready queues is picked up in a cascade, and a broad crawl's single ready queue wakes no one in
//! vain); and one alarm task sleeps until the earliest instant an idle worker was told work would be ready,
//! then wakes one.

use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::handle::CrawlHandle;
use crate::lock::lock;

/// What a worker does before it asks for work: `false` once the crawl is stopped; while it is paused, waits
/// for the unpause (or the stop).
pub(super) async fn running(stop: &CrawlHandle) -> bool {
    loop {
        // Armed before the flags are read, so an unpause or stop between the two is not missed.
        let changed = stop.notify.notified();
        tokio::pin!(changed);
        changed.as_mut().enable();
        if stop.is_stopped() {
            return false;
        }
        if !stop.is_paused() {
            return true;
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(1)) => {}
            _ = changed => {}
        }
    }
}

/// The alarm also wakes one worker at least this often, so a change nobody announced (a robots.txt hold
/// running out, an item due later) is seen within this long.
const FALLBACK: Duration = Duration::from_millis(250);

/// What idle workers wait on.
#[derive(Default)]
pub(super) struct Wake {
    notify: Notify,
    /// The earliest instant an idle worker was told work would be ready.
    earliest: Mutex<Option<Instant>>,
    /// Tells the alarm `earliest` moved sooner.
    retime: Notify,
}

impl Wake {
    /// Wakes one idle worker (or the next one to wait, if none is waiting).
    pub(super) fn one(&self) {
        self.notify.notify_one();
    }

    /// Wakes every idle worker (the end of the crawl).
    pub(super) fn all(&self) {
        self.notify.notify_waiters();
        self.notify.notify_one();
    }

    /// Asks the alarm to wake a worker at `at` (the frontier's next ready instant).
    pub(super) fn at(&self, at: std::time::Instant) {
        let at = Instant::from_std(at);
        let mut earliest = lock(&self.earliest);
        if earliest.is_none_or(|e| at < e) {
            *earliest = Some(at);
            self.retime.notify_one();
        }
    }

    /// Waits until woken, or until the crawl is stopped or paused.
    pub(super) async fn wait(&self, stop: &CrawlHandle) {
        // Armed before the flags are read, so a stop or pause between the two is not missed.
        let stopped = stop.notify.notified();
        tokio::pin!(stopped);
        stopped.as_mut().enable();
        if stop.is_stopped() || stop.is_paused() {
            return;
        }
        tokio::select! {
            _ = self.notify.notified() => {}
            _ = stopped => {}
        }
    }

    /// The alarm: runs until aborted, waking one worker at each instant asked for with [`Wake::at`] (and at
    /// least every [`FALLBACK`]). A due instant is cleared and its wake given in one step, so an instant
    /// reported meanwhile is kept for the next turn, and the woken worker's poll reports the next one.
    pub(super) async fn alarm(&self) {
        let mut fallback = Instant::now() + FALLBACK;
        loop {
            let now = Instant::now();
            let (due, next) = {
                let mut earliest = lock(&self.earliest);
                let due = earliest.is_some_and(|e| e <= now);
                if due {
                    *earliest = None;
                }
                (due, *earliest)
            };
            if due || now >= fallback {
                self.one();
                fallback = now + FALLBACK;
            }
            let at = next.map_or(fallback, |e| e.min(fallback));
            tokio::select! {
                _ = tokio::time::sleep_until(at) => {}
                _ = self.retime.notified() => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// A wake with its alarm running.
    fn with_alarm() -> (Arc<Wake>, tokio::task::JoinHandle<()>) {
        let wake = Arc::new(Wake::default());
        let alarm = tokio::spawn({
            let wake = wake.clone();
            async move { wake.alarm().await }
        });
        (wake, alarm)
    }

    #[tokio::test(start_paused = true)]
    async fn the_alarm_wakes_one_worker_at_the_instant_asked_for() {
        let (wake, alarm) = with_alarm();
        let start = Instant::now();
        wake.at((start + Duration::from_millis(100)).into_std());
        wake.notify.notified().await;
        let waited = start.elapsed();
        assert!(
            waited >= Duration::from_millis(100) && waited < FALLBACK,
            "{waited:?}"
        );
        // Nothing asked for: the fallback wakes one all the same.
        let start = Instant::now();
        wake.notify.notified().await;
        assert!(start.elapsed() <= FALLBACK, "{:?}", start.elapsed());
        alarm.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn a_sooner_instant_moves_the_alarm() {
        let (wake, alarm) = with_alarm();
        let start = Instant::now();
        wake.at((start + Duration::from_millis(200)).into_std());
        tokio::task::yield_now().await;
        wake.at((start + Duration::from_millis(30)).into_std());
        wake.notify.notified().await;
        let waited = start.elapsed();
        assert!(waited < Duration::from_millis(100), "{waited:?}");
        alarm.abort();
    }
}
