//! Waiting on word or a deadline, whichever comes first: the one shape of every wait in the plane
//! that is woken by an event (a listener, a channel, a count reaching zero) and bounded in time.
//!
//! The future is polled first, so word that is already there wins over a deadline already past.
//!
//! [`when_woken`] is the other shape: a future polled only when it asked to be.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

/// Runs `f` until it finishes or `deadline` passes: its output, or `None` at the deadline.
pub async fn until<T>(deadline: Instant, f: impl Future<Output = T>) -> Option<T> {
    futures_lite::future::or(async { Some(f.await) }, async {
        smol::Timer::at(deadline).await;
        None
    })
    .await
}

/// Runs `f` for at most `limit`: its output, or `None` once `limit` is over.
pub async fn within<T>(limit: Duration, f: impl Future<Output = T>) -> Option<T> {
    futures_lite::future::or(async { Some(f.await) }, async {
        smol::Timer::after(limit).await;
        None
    })
    .await
}

/// `f`, polled only on its first poll and after its own waker was woken.
///
/// A future that shares a poll with others is polled again whenever any of them is woken: the
/// future given to an executor's `run` is polled each time one of the executor's tasks is
/// scheduled. Most futures take that in their stride, but an I/O future of smol's that waits
/// for readiness takes a poll to mean its socket may be ready and tries it again — a system call
/// that fails (`EAGAIN`) and the socket registered with the reactor anew, twice per wake-up of
/// the thread for the server's listening socket and its signal pipe. Wrapped, such a future is
/// asked again only when the reactor said so.
pub fn when_woken<F: Future>(f: F) -> WhenWoken<F> {
    WhenWoken {
        inner: Box::pin(f),
        gate: WakeGate::default(),
    }
}

/// What [`when_woken`] answers.
pub struct WhenWoken<F> {
    inner: Pin<Box<F>>,
    gate: WakeGate,
}

impl<F: Future> Future for WhenWoken<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        match this.gate.pass(cx) {
            Some(waker) => this.inner.as_mut().poll(&mut Context::from_waker(waker)),
            None => Poll::Pending,
        }
    }
}

/// Lets a poll through to what it guards only when that asked for it: on the first poll, after
/// the guarded side's waker was woken, or after [`WakeGate::open`] (the guarded side answered
/// and may have more). Whoever polls is woken when the guarded side is.
pub struct WakeGate {
    flag: Arc<Flag>,
    /// The waker the guarded side is polled with: it opens the gate and wakes whoever polled
    /// last.
    waker: Waker,
}

impl Default for WakeGate {
    fn default() -> Self {
        let flag = Arc::new(Flag {
            woken: AtomicBool::new(true),
            outer: Mutex::new(None),
        });
        Self {
            waker: Waker::from(flag.clone()),
            flag,
        }
    }
}

impl std::fmt::Debug for WakeGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WakeGate")
            .field("open", &self.flag.woken.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

impl WakeGate {
    /// Keeps `cx`'s waker to wake, and answers the waker to poll the guarded side with when the
    /// gate is open (closing it), or `None`: the guarded side has not been woken, so polling it
    /// would only ask it again what it already said.
    pub fn pass(&self, cx: &Context<'_>) -> Option<&Waker> {
        // The poller's waker is kept before the flag is read: a wake in between is not lost.
        {
            let mut outer = self.flag.outer();
            if !outer.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                *outer = Some(cx.waker().clone());
            }
        }
        self.flag
            .woken
            .swap(false, Ordering::SeqCst)
            .then_some(&self.waker)
    }

    /// Opens the gate: the guarded side answered, and is asked again at the next poll.
    pub fn open(&self) {
        self.flag.woken.store(true, Ordering::SeqCst);
    }
}

struct Flag {
    woken: AtomicBool,
    outer: Mutex<Option<Waker>>,
}

impl Flag {
    fn outer(&self) -> std::sync::MutexGuard<'_, Option<Waker>> {
        self.outer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        if let Some(w) = self.outer().as_ref() {
            w.wake_by_ref();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    /// A future that counts its polls and is ready once told.
    struct Counted {
        polls: Arc<std::sync::atomic::AtomicUsize>,
        ready: Arc<AtomicBool>,
        waker: Arc<Mutex<Option<Waker>>>,
    }

    impl Future for Counted {
        type Output = ();
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            self.polls.fetch_add(1, Ordering::SeqCst);
            if self.ready.load(Ordering::SeqCst) {
                return Poll::Ready(());
            }
            *self
                .waker
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(cx.waker().clone());
            Poll::Pending
        }
    }

    #[test]
    fn a_wrapped_future_is_polled_again_only_after_its_own_wake() {
        let polls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let ready = Arc::new(AtomicBool::new(false));
        let inner_waker = Arc::new(Mutex::new(None::<Waker>));
        let mut f = std::pin::pin!(when_woken(Counted {
            polls: polls.clone(),
            ready: ready.clone(),
            waker: inner_waker.clone(),
        }));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(f.as_mut().poll(&mut cx).is_pending());
        assert_eq!(polls.load(Ordering::SeqCst), 1, "the first poll reaches it");
        // Polled again for someone else's sake: not passed on.
        for _ in 0..5 {
            assert!(f.as_mut().poll(&mut cx).is_pending());
        }
        assert_eq!(
            polls.load(Ordering::SeqCst),
            1,
            "spurious polls stop at the wrapper"
        );
        // Its own waker fires: the next poll reaches it, and it finishes.
        ready.store(true, Ordering::SeqCst);
        let w = inner_waker
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        w.expect("the wrapped future left its waker").wake();
        assert!(f.as_mut().poll(&mut cx).is_ready());
        assert_eq!(polls.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_wake_of_the_wrapped_future_wakes_its_poller() {
        struct Count(std::sync::atomic::AtomicUsize);
        impl Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let count = Arc::new(Count(std::sync::atomic::AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        let (tx, rx) = smol::channel::bounded::<u8>(1);
        let mut f = std::pin::pin!(when_woken(async move { rx.recv().await }));
        assert!(f.as_mut().poll(&mut cx).is_pending());
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
        tx.try_send(7).expect("room for one");
        assert_eq!(count.0.load(Ordering::SeqCst), 1, "the poller was woken");
        assert!(matches!(f.as_mut().poll(&mut cx), Poll::Ready(Ok(7))));
    }

    #[test]
    fn word_that_comes_first_is_answered() {
        let got = smol::block_on(within(Duration::from_secs(30), async { 7 }));
        assert_eq!(got, Some(7));
    }

    #[test]
    fn word_already_there_wins_over_a_deadline_already_past() {
        let past = crate::clock::monotonic();
        assert_eq!(smol::block_on(until(past, async { "here" })), Some("here"));
    }

    #[test]
    fn word_that_never_comes_ends_at_the_deadline() {
        let never = futures_lite::future::pending::<()>();
        let deadline = crate::clock::monotonic() + Duration::from_millis(20);
        assert_eq!(smol::block_on(until(deadline, never)), None);
        assert!(crate::clock::monotonic() >= deadline);
    }
}
