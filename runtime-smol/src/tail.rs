//! Pane-log tails of `termplane-exec` run as tasks on the embedder's smol executor instead of a
//! thread each (see `termplane_exec::TailDriver`): the log's inotify descriptor and the tail's
//! wake-up eventfd are watched by smol's reactor, so a pane's output is read on the thread that
//! sends it on — the plane's terminal sockets for its own host's panes, the node daemon's link
//! for an enrolled node's — with one wake-up when the log grows and no thread hand-off.

use futures_lite::FutureExt as _;
use termplane_exec::events::{TAIL_COALESCE, TAIL_POLL};
use termplane_exec::{TailJob, TailStep};

/// Runs `job` until it is stopped, the loop `TailJob` describes. After each read that delivered
/// output, `after_read` runs (awaited) before the next read: the node daemon sends there what
/// its link's queue had no room for, which holds a fast pane back; answering `false` ends the
/// tail (nobody takes its output any more). Stopping the tail ends that wait too (the future
/// `after_read` returned is dropped).
///
/// When the reactor will not take the tail's descriptors, the job runs on a thread of its own,
/// as it does without a driver.
pub async fn drive<F, Fut>(mut job: TailJob, mut after_read: F)
where
    F: FnMut(&TailJob) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let wake = job
        .wake_fd()
        .try_clone_to_owned()
        .and_then(smol::Async::new);
    let Ok(wake) = wake else {
        let _ = std::thread::Builder::new()
            .name(format!("tail-{}", job.key()))
            .spawn(move || job.run_blocking());
        return;
    };
    let mut watch: Option<smol::Async<std::os::fd::OwnedFd>> = None;
    // One timer for the tail's life, set again only when it fires (a log not watched yet is
    // looked for on it; a watched one needs it only as a safety net).
    let mut poll = smol::Timer::after(TAIL_POLL);
    // Change notices may be waiting on the watch: they are drained after the read they woke,
    // once its output has gone on, and the log is read once more before the next wait.
    let mut notes = false;
    loop {
        match job.step() {
            TailStep::Read => {
                // A tail stopped while `after_read` waits (the node's link has no room) ends
                // at once rather than once room is made: what it held goes with it, and
                // `TailRegistry::stop` need not give up waiting for it.
                let stopped = async {
                    let _ = wake.readable().await;
                    if job.is_stopped() {
                        return false;
                    }
                    std::future::pending().await
                };
                if !after_read(&job).or(stopped).await {
                    return;
                }
                // Let the sockets write what was read before reading more; a pane that streams
                // has its output gather first (large frames, fewer wake-ups).
                if job.streaming() {
                    smol::Timer::after(TAIL_COALESCE).await;
                } else {
                    smol::future::yield_now().await;
                }
                if std::mem::take(&mut notes) {
                    job.drain_notes();
                }
                continue;
            }
            TailStep::Done => return,
            TailStep::Wait => {}
        }
        if std::mem::take(&mut notes) {
            // Woken, and nothing (more) to read: drained, and read once more before waiting.
            job.drain_notes();
            continue;
        }
        if watch.is_none()
            && let Some(fd) = job.watch_fd()
        {
            watch = fd.try_clone_to_owned().and_then(smol::Async::new).ok();
        }
        let grown = async {
            match &watch {
                Some(w) => {
                    let _ = w.readable().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        let timed_out = async {
            grown
                .or(async {
                    let _ = wake.readable().await;
                })
                .await;
            false
        }
        .or(async {
            (&mut poll).await;
            true
        })
        .await;
        if timed_out {
            poll.set_after(TAIL_POLL);
        }
        notes = true;
        // A pane that streams has its output gather first (its notices keep coming meanwhile,
        // and are drained after the read, as above).
        if job.streaming() && !job.is_stopped() {
            smol::Timer::after(TAIL_COALESCE).await;
        }
    }
}
