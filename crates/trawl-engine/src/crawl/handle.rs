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
    pub(super) checkpoint_waiters: Arc<Mutex<Vec<oneshot::Sender<Reply>>>>,
    pub(super) paused: Arc<AtomicBool>,
    pub(super) commands: mpsc::UnboundedSender<Envelope>,
    pub(super) inbox: Arc<Mutex<Option<mpsc::UnboundedReceiver<Envelope>>>>,
}

/// A command on its way to the crawl, with where its reply goes.
pub(super) type Envelope = (Command, oneshot::Sender<Reply>);

impl Default for CrawlHandle {
    fn default() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        CrawlHandle {
            flag: Arc::default(),
            notify: Arc::default(),
            checkpoint: Arc::default(),
            checkpoint_waiters: Arc::default(),
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

    /// Asks for a checkpoint; `reply` gets its outcome once it is written.
    pub(super) fn checkpoint_then(&self, reply: oneshot::Sender<Reply>) {
        lock(&self.checkpoint_waiters).push(reply);
        self.request_checkpoint();
    }

    /// Takes the ask for a checkpoint, if one was made, with those waiting for it.
    pub(super) fn take_checkpoint_ask(&self) -> Option<Vec<oneshot::Sender<Reply>>> {
        self.checkpoint
            .swap(false, Ordering::SeqCst)
            .then(|| self.take_checkpoint_waiters())
    }

    /// Takes those waiting for a checkpoint (at the crawl's end, for its last one).
    pub(super) fn take_checkpoint_waiters(&self) -> Vec<oneshot::Sender<Reply>> {
        std::mem::take(&mut *lock(&self.checkpoint_waiters))
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
