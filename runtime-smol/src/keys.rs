//! Waiting for tmux's word on keystrokes typed without waiting (`termplane_exec`'s
//! `type_unanswered`): on the embedder's smol reactor, with no timer. The executor says how the
//! keys went, or hands back what to wait on before asking again — a notification that someone
//! else read tmux's answers, and tmux's output to wait on for its next words — and this waits
//! for either. A keystroke therefore costs no timer and no polling on either side; the answer is
//! known as soon as tmux has written it.

use futures_lite::FutureExt as _;
use termplane_exec::KeysWatch;

/// How the keys behind `settle` went: `Ok` typed (or their answer was lost with tmux's control
/// client, when they count as typed), `Err` with why not. `settle` is the executor's (or its
/// runner's) `keys_settle` for one ticket.
///
/// Every way an answer can be lost ends this wait: the control client is dropped (a failed call,
/// tmux gone), which notifies the watch. A tmux that stops answering altogether is found out by
/// the executor's next call, whose deadline drops the client.
pub async fn keys_typed<F>(mut settle: F) -> Result<(), String>
where
    F: FnMut() -> Result<Result<(), String>, KeysWatch>,
{
    loop {
        let watch = match settle() {
            Ok(r) => return r,
            Err(w) => w,
        };
        let output = watch.answers.and_then(|fd| smol::Async::new(fd).ok());
        match output {
            Some(output) => {
                watch
                    .news
                    .or(async {
                        let _ = output.readable().await;
                    })
                    .await;
            }
            None => watch.news.await,
        }
    }
}
