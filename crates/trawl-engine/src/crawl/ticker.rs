//! The ticker: once a second it commits the frontier's recent changes and reports progress; it saves the
//! counters and writes progress.log every 20 seconds, and starts checkpoints (on a blocking thread, so
//! neither it nor the workers wait for the copy).

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use super::shared::{Shared, answer_checkpoint, checkpoint, checkpoint_reply, save_stats};
use crate::stats::Snapshot;

/// How long URIs in flight have to finish once a stop is asked for: then a body still arriving is cut
/// and archived as far as it came (`timeTrunc`), so a trickling server cannot hold a stop for
/// `fetch.max_fetch_ms`.
pub(super) const STOP_CUT: Duration = Duration::from_secs(10);

/// Ticks until aborted.
pub(super) async fn run(
    shared: Arc<Shared>,
    on_progress: Arc<impl Fn(&Snapshot) + Send + Sync + 'static>,
    checkpoint_interval_s: u64,
) {
    let progress_log = shared.job.logs_dir().join("progress.log");
    let checkpointing = Arc::new(AtomicBool::new(false));
    let mut tick = 0u64;
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        // Commit the frontier's recent changes that no crawl.log line brought to the journal (retries,
        // holds): a crash loses at most about a second of them.
        shared.pipeline.log.commit();
        if shared.pipeline.stop.is_stopped() {
            shared
                .pipeline
                .fetcher
                .cut_at(std::time::Instant::now() + STOP_CUT);
        }
        let snap = shared.snapshot();
        on_progress(&snap);
        tick += 1;
        let due = checkpoint_interval_s > 0 && tick.is_multiple_of(checkpoint_interval_s);
        // An ask waits while a checkpoint is being written: that one's copy may be older than the ask.
        let asked = match checkpointing.load(Ordering::SeqCst) {
            true => None,
            false => shared.pipeline.stop.take_checkpoint_ask(),
        };
        if (due || asked.is_some()) && !checkpointing.swap(true, Ordering::SeqCst) {
            let shared = shared.clone();
            let checkpointing = checkpointing.clone();
            let waiters = asked.unwrap_or_default();
            tokio::task::spawn_blocking(move || {
                let written = checkpoint(&shared, true);
                answer_checkpoint(waiters, checkpoint_reply(&shared, &written));
                if let Err(e) = written {
                    shared.pipeline.fail(e.to_string());
                }
                checkpointing.store(false, Ordering::SeqCst);
            });
        }
        if tick.is_multiple_of(20) {
            save_stats(&shared, &shared.job.state_dir());
            append_line(
                &progress_log,
                &format!(
                    "{} {}",
                    crate::crawl_log::timestamp(chrono::Utc::now()),
                    snap.line()
                ),
            );
        }
    }
}

/// Appends one line to a log file (best effort: progress lines are not worth failing a crawl over).
pub(super) fn append_line(path: &std::path::Path, line: &str) {
    use std::io::Write;
    if let Ok(mut f) = std::fs::File::options()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{line}");
    }
}
