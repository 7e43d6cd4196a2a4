//! The handle operators steer a running crawl with.

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicBool, Ordering},
};

use tokio::sync::{Notify, mpsc, oneshot};

use crate::{
    control::{Command, Reply},
    lock::lock,
};

/// A handle to steer a running crawl from outside (Ctrl-C, the CLI, the web UI): stop it, pause it, ask for
/// a checkpoint, or send it any operator [`Command`].
#[derive(Debug, Clone)]
pub struct CrawlHandle {
    pub(super) flag: Arc<AtomicBool>,
    pub(super) notify: Arc<Notify>,
    pub(super) checkpoint: Arc<AtomicBool>,
    /// Those waiting for the checkpoint asked for to be written, answered with its name or why not.
    pub(super) checkpoint_asks: Arc<Mutex<CheckpointAsks>>,
    pub(super) paused: Arc<AtomicBool>,
    pub(super) commands: mpsc::UnboundedSender<Envelope>,
    pub(super) inbox: Arc<Mutex<Option<mpsc::UnboundedReceiver<Envelope>>>>,
}

/// A command on its way to the crawl, with where its reply goes.
pub(super) type Envelope = (Command, oneshot::Sender<Reply>);

/// Closes the asks for a checkpoint when dropped, answering any left: however a crawl's run ends (an error
/// before its end too), nobody waits for good (review 73 R5).
pub(super) struct AsksClosed(pub(super) CrawlHandle);

impl Drop for AsksClosed {
    fn drop(&mut self) {
        self.0.close_checkpoint_asks();
        let unwritten = Reply::Failed {
            message: "the crawl ended before writing the checkpoint".into(),
        };
        for waiter in self.0.answer_last_checkpoint(&unwritten) {
            let _ = waiter.send(unwritten.clone());
        }
    }
}

/// Those waiting for a checkpoint, until the crawl's end takes them for its last one and closes the asks.
#[derive(Debug, Default)]
pub(super) struct CheckpointAsks {
    waiters: Vec<oneshot::Sender<Reply>>,
    /// Past the start of the crawl's end: an ask waits for the end's last checkpoint (xt26a N11: it was told
    /// "ended" before that checkpoint existed), and once that is answered gets its answer at once (xt25a F6:
    /// one asked after the end was taken waited for good).
    closed: bool,
    /// The answer of the crawl's last checkpoint, once given (or why there is none).
    last: Option<Reply>,
}

impl Default for CrawlHandle {
    fn default() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        CrawlHandle {
            flag: Arc::default(),
            notify: Arc::default(),
            checkpoint: Arc::default(),
            checkpoint_asks: Arc::default(),
            paused: Arc::default(),
            commands: tx,
            inbox: Arc::new(Mutex::new(Some(rx))),
        }
    }
}

impl CrawlHandle {
    /// Asks for a checkpoint at the next tick (within a second, or once the one being written is done).
    pub fn request_checkpoint(&self) {
        self.checkpoint.store(true, Ordering::SeqCst);
    }

    /// Asks for a checkpoint and waits until it is written: its name, or why it was not (xt23a F5: the
    /// answer came before the checkpoint, which a script listing `checkpoints/` right after did not find).
    pub async fn checkpoint(&self) -> Reply {
        let (tx, rx) = oneshot::channel();
        self.checkpoint_then(tx);
        rx.await.unwrap_or(Reply::Failed {
            message: "the crawl ended before writing the checkpoint".into(),
        })
    }

    /// Asks for a checkpoint; `reply` gets its outcome once it is written: past the start of the crawl's end,
    /// the outcome of its last checkpoint, once that is written (at once when it is).
    pub(super) fn checkpoint_then(&self, reply: oneshot::Sender<Reply>) {
        let mut asks = lock(&self.checkpoint_asks);
        if asks.closed {
            match &asks.last {
                Some(last) => {
                    let _ = reply.send(last.clone());
                }
                None => asks.waiters.push(reply),
            }
            return;
        }
        asks.waiters.push(reply);
        drop(asks);
        self.request_checkpoint();
    }

    /// Takes the ask for a checkpoint, if one was made, with those waiting for it.
    pub(super) fn take_checkpoint_ask(&self) -> Option<Vec<oneshot::Sender<Reply>>> {
        self.checkpoint
            .swap(false, Ordering::SeqCst)
            .then(|| std::mem::take(&mut lock(&self.checkpoint_asks).waiters))
    }

    /// Takes those waiting for a checkpoint, for the crawl's last one, which every later ask waits for
    /// ([`CrawlHandle::answer_last_checkpoint`]).
    pub(super) fn close_checkpoint_asks(&self) -> Vec<oneshot::Sender<Reply>> {
        let mut asks = lock(&self.checkpoint_asks);
        asks.closed = true;
        std::mem::take(&mut asks.waiters)
    }

    /// Keeps `last`, the answer of the crawl's last checkpoint, for every later ask (the first answer kept
    /// stays), and gives back those who asked since the asks closed, for the caller to answer.
    pub(super) fn answer_last_checkpoint(&self, last: &Reply) -> Vec<oneshot::Sender<Reply>> {
        let mut asks = lock(&self.checkpoint_asks);
        asks.last.get_or_insert_with(|| last.clone());
        std::mem::take(&mut asks.waiters)
    }

    /// Asks the crawl to stop: URIs in flight finish (a body still arriving after `ticker::STOP_CUT` is cut),
    /// a checkpoint is written, archives are closed, reports written.
    pub fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// Whether a stop was asked for.
    pub fn is_stopped(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Pauses (true) or unpauses (false) the crawl: while paused, URIs in flight finish and no new ones start.
    pub fn set_paused(&self, paused: bool) {
        self.paused.store(paused, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// Whether the crawl is paused.
    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::SeqCst)
    }

    /// Sends an operator command to the running crawl and waits for its reply.
    pub async fn send(&self, command: Command) -> Reply {
        self.try_send(command).await.unwrap_or(Reply::Failed {
            message: "the crawl ended before answering".into(),
        })
    }

    /// Sends an operator command to the running crawl and waits for its reply; `None` when the crawl ended
    /// first, so the command was not applied (the caller may apply it to the stopped job).
    pub async fn try_send(&self, command: Command) -> Option<Reply> {
        let (tx, rx) = oneshot::channel();
        self.commands.send((command, tx)).ok()?;
        rx.await.ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xt25a F6: a checkpoint asked for after the crawl's end took the last asks waited for good (the API's
    /// request never answered); now it is answered at once. One asked before is answered by the end.
    #[tokio::test]
    async fn a_checkpoint_asked_after_the_end_is_answered_at_once() {
        let handle = CrawlHandle::default();
        let before = tokio::spawn({
            let handle = handle.clone();
            async move { handle.checkpoint().await }
        });
        while lock(&handle.checkpoint_asks).waiters.is_empty() {
            tokio::task::yield_now().await;
        }
        let last = Reply::Done {
            message: "checkpoint cp00002-x written".into(),
        };
        for waiter in handle.close_checkpoint_asks() {
            waiter.send(last.clone()).unwrap();
        }
        assert_eq!(before.await.unwrap(), last);
        // Asked while the end writes its last checkpoint: answered by it, once written (xt26a N11).
        let during = tokio::spawn({
            let handle = handle.clone();
            async move { handle.checkpoint().await }
        });
        while lock(&handle.checkpoint_asks).waiters.is_empty() {
            tokio::task::yield_now().await;
        }
        for waiter in handle.answer_last_checkpoint(&last) {
            waiter.send(last.clone()).unwrap();
        }
        assert_eq!(during.await.unwrap(), last);
        // After it: at once.
        let after =
            tokio::time::timeout(std::time::Duration::from_secs(5), handle.checkpoint()).await;
        assert_eq!(after.unwrap(), last);
    }

    /// Review 73 R5: a run that ends before its end phase (an error at its start) answers the asks it leaves.
    #[tokio::test]
    async fn a_run_ending_early_answers_the_asks_it_leaves() {
        let handle = CrawlHandle::default();
        let closing = AsksClosed(handle.clone());
        let asked = tokio::spawn({
            let handle = handle.clone();
            async move { handle.checkpoint().await }
        });
        while lock(&handle.checkpoint_asks).waiters.is_empty() {
            tokio::task::yield_now().await;
        }
        drop(closing);
        let answer = tokio::time::timeout(std::time::Duration::from_secs(5), asked).await;
        assert!(
            matches!(&answer, Ok(Ok(Reply::Failed { message })) if message.contains("before writing")),
            "{answer:?}"
        );
    }

    /// A command sent as the crawl ends is not applied, and `try_send` says so (`None`), so the server can
    /// apply it to the stopped job instead of answering "the crawl has ended" (xt6c F5).
    #[tokio::test]
    async fn a_command_the_ended_crawl_never_took_is_told_apart() {
        let handle = CrawlHandle::default();
        let mut inbox = handle.inbox.lock().unwrap().take().unwrap();
        let answered = tokio::spawn({
            let handle = handle.clone();
            async move { handle.try_send(Command::Queues).await }
        });
        // The crawl takes the command and answers it.
        let (_, reply) = inbox.recv().await.unwrap();
        reply.send(Reply::Queues { queues: Vec::new() }).unwrap();
        assert!(answered.await.unwrap().is_some());
        // The crawl ends with a command waiting, never taken: not applied, so `None`.
        let pending = tokio::spawn({
            let handle = handle.clone();
            async move { handle.try_send(Command::Queues).await }
        });
        tokio::task::yield_now().await;
        drop(inbox);
        assert_eq!(pending.await.unwrap(), None);
        assert_eq!(handle.try_send(Command::Queues).await, None);
    }
}
