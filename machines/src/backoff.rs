//! Reconnect backoff with injected jitter.
//!
//! The n-th consecutive failed attempt waits a uniformly random time in `[d/2, d]` where
//! `d = min(cap, base · 2^n)`; the cap is 60 s. Jitter spreads a fleet of nodes that lost the
//! plane at the same moment. Randomness comes from the machine's seeded RNG.

use std::time::Duration;

use rand_core::Rng;

/// Exponential backoff state.
#[derive(Clone, Debug)]
pub struct Backoff {
    base: Duration,
    cap: Duration,
    attempt: u32,
}

impl Backoff {
    /// A backoff from `base` doubling up to `cap`.
    #[must_use]
    pub const fn new(base: Duration, cap: Duration) -> Self {
        Self {
            base,
            cap,
            attempt: 0,
        }
    }

    /// The delay before the next attempt; counts the attempt.
    pub fn next_delay<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Duration {
        let shift = self.attempt.min(20);
        self.attempt = self.attempt.saturating_add(1);
        let full = self
            .base
            .checked_mul(1u32 << shift)
            .unwrap_or(self.cap)
            .min(self.cap);
        let half = full / 2;
        let span_ms = u64::try_from((full - half).as_millis()).unwrap_or(u64::MAX);
        let jitter = if span_ms == 0 {
            0
        } else {
            rng.next_u64() % (span_ms + 1)
        };
        half + Duration::from_millis(jitter)
    }

    /// Forgets failures (after a link is established).
    pub fn reset(&mut self) {
        self.attempt = 0;
    }

    /// Consecutive failed attempts so far.
    #[must_use]
    pub const fn attempts(&self) -> u32 {
        self.attempt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_with_jitter_and_stop_at_the_cap() {
        let mut rng = crate::rng::from_seed([3; 32]);
        let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(60));
        let mut prev_full = Duration::ZERO;
        for n in 0..30u32 {
            let d = b.next_delay(&mut rng);
            let full = Duration::from_secs(1u64 << n.min(6)).min(Duration::from_secs(60));
            assert!(
                d >= full / 2 && d <= full,
                "attempt {n}: {d:?} outside [{:?}, {full:?}]",
                full / 2
            );
            assert!(full >= prev_full);
            prev_full = full;
        }
        assert!(b.next_delay(&mut rng) <= Duration::from_secs(60));
        b.reset();
        assert!(b.next_delay(&mut rng) <= Duration::from_secs(1));
    }

    #[test]
    fn jitter_spreads_a_fleet() {
        let mut rng = crate::rng::from_seed([9; 32]);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..50 {
            let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(60));
            for _ in 0..6 {
                b.next_delay(&mut rng);
            }
            seen.insert(b.next_delay(&mut rng).as_millis());
        }
        assert!(seen.len() > 40, "only {} distinct delays", seen.len());
    }
}
