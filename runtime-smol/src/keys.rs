//! Waiting for tmux's word on keystrokes typed without waiting (`termplane_exec`'s
//! `type_unanswered`): on the embedder's smol reactor, with no timer. The executor says how the
//! keys went, or hands back what to wait on before asking again — a notification that someone
//! else read tmux's answers, and tmux's output to wait on for its next words — and this waits
//! for either. A keystroke therefore costs no timer and no polling on either side; the answer is
//! known as soon as tmux has written it.
//!
//! [`KeysWaits`] keeps the control client's output registered with the reactor for the client's
//! life, so a keystroke's wait only re-arms it: registering it for each keystroke cost six
//! system calls (a duplicate descriptor, made non-blocking, added to the reactor and armed, then
//! removed and closed).

use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

use futures_lite::FutureExt as _;
use termplane_exec::KeysWatch;

/// How the keys behind `settle` went: `Ok` typed (or their answer was lost with tmux's control
/// client, when they count as typed), `Err` with why not. `settle` is the executor's (or its
/// runner's) `keys_settle` for one ticket. The client's output is registered with the reactor
/// for this wait only; [`KeysWaits::keys_typed`] keeps it registered across waits.
///
/// Every way an answer can be lost ends this wait: the control client is dropped (a failed call,
/// tmux gone), which notifies the watch. A tmux that stops answering altogether is found out by
/// the executor's next call, whose deadline drops the client.
pub async fn keys_typed<F>(settle: F) -> Result<(), String>
where
    F: FnMut() -> Result<Result<(), String>, KeysWatch>,
{
    KeysWaits::default().keys_typed(settle).await
}

/// The waits of keystrokes on one executor: they share one registration of its control
/// client's output with the reactor, made when a client is first waited on and replaced when
/// another client takes its place.
#[derive(Default)]
pub struct KeysWaits {
    /// The client's output as the executor shares it, and its registration.
    watched: Mutex<Option<Watched>>,
    /// Registrations made so far.
    registered: std::sync::atomic::AtomicU64,
}

struct Watched {
    fd: Arc<OwnedFd>,
    output: Arc<smol::Async<Arc<OwnedFd>>>,
}

impl std::fmt::Debug for KeysWaits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeysWaits").finish_non_exhaustive()
    }
}

impl KeysWaits {
    /// How many times a client's output was registered with the reactor: once per client
    /// waited on.
    #[must_use]
    pub fn registrations(&self) -> u64 {
        self.registered.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// [`keys_typed`], with the client's output registered once for all the waits here.
    pub async fn keys_typed<F>(&self, mut settle: F) -> Result<(), String>
    where
        F: FnMut() -> Result<Result<(), String>, KeysWatch>,
    {
        loop {
            let watch = match settle() {
                Ok(r) => return r,
                Err(w) => w,
            };
            match watch.answers.and_then(|fd| self.output(fd)) {
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

    /// The registration of `fd`: the one kept when it is the client's output already watched,
    /// else a new one, kept in place of the last (whose client is gone).
    fn output(&self, fd: Arc<OwnedFd>) -> Option<Arc<smol::Async<Arc<OwnedFd>>>> {
        let mut watched = self
            .watched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(w) = watched.as_ref()
            && Arc::ptr_eq(&w.fd, &fd)
        {
            return Some(Arc::clone(&w.output));
        }
        let output = Arc::new(smol::Async::new(Arc::clone(&fd)).ok()?);
        self.registered
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        *watched = Some(Watched {
            fd,
            output: Arc::clone(&output),
        });
        Some(output)
    }
}
