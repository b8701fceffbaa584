//! Waiting on word or a deadline, whichever comes first: the one shape of every wait in the plane
//! that is woken by an event (a listener, a channel, a count reaching zero) and bounded in time.
//!
//! The future is polled first, so word that is already there wins over a deadline already past.

use std::future::Future;
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

#[cfg(test)]
mod tests {
    use super::*;

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
