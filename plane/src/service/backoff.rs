//! Exponential backoff of sign-in and enrollment attempts.

#[allow(unused_imports)]
use super::*;

/// Exponential backoff keyed by account and by client address.
///
/// An attempt *reserves* a failure on each key under one lock before any password is verified,
/// and only a success refunds it, so parallel guesses serialize on the counter: once the free
/// budget is used up every further attempt waits `base · 2^(excess-1)` (capped), however many
/// arrive at once.
#[derive(Debug)]
pub struct Backoff {
    entries: Mutex<HashMap<String, (u32, i64)>>,
    base_ms: i64,
    cap_ms: i64,
}

impl Backoff {
    /// A backoff with the given first delay and cap.
    #[must_use]
    pub fn new(base_ms: i64, cap_ms: i64) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            base_ms,
            cap_ms,
        }
    }

    fn delay(&self, excess: u32) -> i64 {
        let shift = excess.saturating_sub(1).min(30);
        self.base_ms.saturating_mul(1i64 << shift).min(self.cap_ms)
    }

    /// Checks every `(key, free)` pair and, if none is waiting, reserves a failure on each.
    /// `Err(ms)` tells how long the longest wait still is.
    pub fn reserve(&self, keys: &[(&str, u32)], now: i64) -> Result<(), i64> {
        let mut map = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.len() > 100_000 {
            map.retain(|_, (_, next)| *next > now);
        }
        let wait = keys
            .iter()
            .filter_map(|(k, _)| map.get(*k).map(|(_, next)| *next - now))
            .max()
            .unwrap_or(0);
        if wait > 0 {
            return Err(wait);
        }
        for (k, free) in keys {
            let e = map.entry((*k).to_owned()).or_insert((0, 0));
            e.0 = e.0.saturating_add(1);
            if e.0 > *free {
                e.1 = now + self.delay(e.0 - free);
            }
        }
        Ok(())
    }

    /// Checks without reserving.
    pub fn check(&self, key: &str, now: i64) -> Result<(), i64> {
        let map = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match map.get(key) {
            Some((_, next)) if *next > now => Err(*next - now),
            _ => Ok(()),
        }
    }

    /// Records one failure on `key` (no reservation was made).
    pub fn fail(&self, key: &str, free: u32, now: i64) {
        let mut map = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let e = map.entry(key.to_owned()).or_insert((0, 0));
        e.0 = e.0.saturating_add(1);
        if e.0 > free {
            e.1 = now + self.delay(e.0 - free);
        }
    }

    /// Forgets `key` entirely (a successful sign-in clears the account's count).
    pub fn clear(&self, key: &str) {
        let mut map = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.remove(key);
    }

    /// Returns one reserved failure on `key` (a success from that address).
    pub fn refund(&self, key: &str, free: u32) {
        let mut map = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(e) = map.get_mut(key) {
            e.0 = e.0.saturating_sub(1);
            if e.0 <= free {
                e.1 = 0;
            }
        }
    }
}

/// Failures allowed per account before delays begin.
pub const ACCOUNT_FREE_FAILURES: u32 = 3;
/// Failures allowed per client address before delays begin.
pub const IP_FREE_FAILURES: u32 = 10;
/// Unknown setup keys allowed per client address before enrollment backs off.
pub const ENROLL_FREE_FAILURES: u32 = 10;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn backoff_reservations_serialize_parallel_attempts() {
        let b = Backoff::new(1_000, 60_000);
        let mut passed = 0;
        for _ in 0..50 {
            if b.reserve(&[("k", 3)], 0).is_ok() {
                passed += 1;
            }
        }
        assert_eq!(passed, 4);
        assert_eq!(b.reserve(&[("k", 3)], 999), Err(1));
        assert!(b.reserve(&[("k", 3)], 1_000).is_ok());
        // fifth failure: wait doubles
        assert_eq!(b.reserve(&[("k", 3)], 2_999), Err(1));
        assert!(b.reserve(&[("k", 3)], 3_000).is_ok());
        assert_eq!(b.reserve(&[("k", 3)], 3_000), Err(4_000));
    }
}
