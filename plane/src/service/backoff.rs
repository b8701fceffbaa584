//! Exponential backoff of sign-in and enrollment attempts.
//!
//! # Sign-in
//!
//! Brute force must stay slow, and no third party may lock an account out. Failures are counted
//! under three keys, each with its own [`Rule`]:
//!
//! * **account × address** ([`PAIR`]): 5 free failures, then waits of 1 s doubling up to
//!   15 minutes. This is what slows a guesser, and only the guesser: failures from one address
//!   never delay the same account from another address.
//! * **account** ([`ACCOUNT`]), across addresses: 50 free failures, then waits doubling from 1 s up
//!   to 1 minute. Only a guesser spread over many addresses reaches it.
//! * **address** ([`ADDRESS`]), across accounts: 100 free failures, then waits doubling from 1 s up
//!   to 1 minute. It slows one address trying many accounts, while people behind one NAT or
//!   proxy (see [`crate::net`] for `X-Forwarded-For`) keep signing in.
//!
//! An address where the account signed in successfully in the last 30 days is *known* for that
//! account ([`KnownGood`]): its attempts meet only the account × address key, so a distributed
//! attack on the account cannot keep its owner out from the places they use. A new address of
//! theirs meets the account-wide key too, whose wait is at most a minute.
//!
//! Every attempt *reserves* a failure on each of its keys under one lock before any password is
//! verified, and only a success refunds it, so parallel guesses serialize on the counters: once a
//! key's free budget is used up every further attempt waits, however many arrive at once. A key
//! with no failure for its rule's `reset_after_ms` starts over.
//!
//! # Enrollment
//!
//! Unknown setup keys are counted per address ([`ENROLL_ADDRESS`]). A setup key the plane knows
//! is always looked at, whatever the address's count: 256 random bits cannot be guessed, so a
//! valid key is never held up by someone else's failures.
//!
//! # Node keys
//!
//! `/ws/node` upgrades whose bearer opens no node are counted per address the same way
//! ([`NODE_KEY_ADDRESS`]: 20 free, then waits doubling from 1 s up to 1 minute; 429
//! `TOO_MANY_ATTEMPTS` with `Retry-After`). A valid node key is always looked at, so nodes
//! behind one address with a misconfigured neighbour keep connecting; a disabled key (known,
//! and refused for that) is not counted.

use std::collections::HashMap;
use std::sync::Mutex;

/// How one key backs off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Failures allowed before waits begin.
    pub free: u32,
    /// The first wait (ms); each further failure doubles it.
    pub base_ms: i64,
    /// The longest wait (ms).
    pub cap_ms: i64,
    /// A key with no failure for this long (ms) starts over.
    pub reset_after_ms: i64,
}

const MINUTE: i64 = 60_000;
const HOUR: i64 = 60 * MINUTE;
const DAY: i64 = 24 * HOUR;

/// Sign-in failures of one account from one address.
pub const PAIR: Rule = Rule {
    free: 5,
    base_ms: 1_000,
    cap_ms: 15 * MINUTE,
    reset_after_ms: DAY,
};
/// Sign-in failures of one account from addresses not known for it.
pub const ACCOUNT: Rule = Rule {
    free: 50,
    base_ms: 1_000,
    cap_ms: MINUTE,
    reset_after_ms: HOUR,
};
/// Sign-in failures from one address, across accounts not known there.
pub const ADDRESS: Rule = Rule {
    free: 100,
    base_ms: 1_000,
    cap_ms: MINUTE,
    reset_after_ms: HOUR,
};
/// Unknown setup keys from one address.
pub const ENROLL_ADDRESS: Rule = Rule {
    free: 10,
    base_ms: 1_000,
    cap_ms: 15 * MINUTE,
    reset_after_ms: DAY,
};

/// Node keys from one address that open no node: missing, malformed, unknown (rotated, or
/// of a deleted node) or another kind of credential (catalogue B24).
pub(super) const NODE_KEY_ADDRESS: Rule = Rule {
    free: 20,
    base_ms: 1_000,
    cap_ms: MINUTE,
    reset_after_ms: HOUR,
};

/// How long a successful sign-in makes its address known for the account.
pub const KNOWN_GOOD_MS: i64 = 30 * DAY;
/// Most entries of each table before the stale ones are swept.
const SWEEP_AT: usize = 100_000;

#[derive(Clone, Copy, Debug)]
struct Entry {
    failures: u32,
    next_at: i64,
    last_at: i64,
}

/// Failure counters by key.
#[derive(Debug, Default)]
pub struct Backoff {
    entries: Mutex<HashMap<String, Entry>>,
}

fn delay(rule: Rule, excess: u32) -> i64 {
    let shift = excess.saturating_sub(1).min(30);
    rule.base_ms.saturating_mul(1_i64 << shift).min(rule.cap_ms)
}

impl Backoff {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn live(map: &mut HashMap<String, Entry>, key: &str, rule: Rule, now: i64) -> Option<Entry> {
        match map.get(key) {
            Some(e) if now - e.last_at >= rule.reset_after_ms && now >= e.next_at => {
                map.remove(key);
                None
            }
            other => other.copied(),
        }
    }

    fn add_failure(map: &mut HashMap<String, Entry>, key: &str, rule: Rule, now: i64) {
        let e = map.entry(key.to_owned()).or_insert(Entry {
            failures: 0,
            next_at: 0,
            last_at: now,
        });
        e.failures = e.failures.saturating_add(1);
        e.last_at = now;
        if e.failures > rule.free {
            e.next_at = now + delay(rule, e.failures - rule.free);
        }
    }

    /// Checks every key and, if none is waiting, reserves a failure on each. `Err(ms)` tells how
    /// long the longest wait still is.
    pub fn reserve(&self, keys: &[(&str, Rule)], now: i64) -> Result<(), i64> {
        let mut map = self.lock();
        if map.len() > SWEEP_AT {
            map.retain(|_, e| e.next_at > now || now - e.last_at < DAY);
        }
        let mut wait = 0;
        for (k, rule) in keys {
            if let Some(e) = Self::live(&mut map, k, *rule, now) {
                wait = wait.max(e.next_at - now);
            }
        }
        if wait > 0 {
            return Err(wait);
        }
        for (k, rule) in keys {
            Self::add_failure(&mut map, k, *rule, now);
        }
        Ok(())
    }

    /// Checks one key without reserving.
    pub fn check(&self, key: &str, rule: Rule, now: i64) -> Result<(), i64> {
        let mut map = self.lock();
        match Self::live(&mut map, key, rule, now) {
            Some(e) if e.next_at > now => Err(e.next_at - now),
            _ => Ok(()),
        }
    }

    /// Records one failure on `key` (no reservation was made).
    pub fn fail(&self, key: &str, rule: Rule, now: i64) {
        let mut map = self.lock();
        Self::live(&mut map, key, rule, now);
        Self::add_failure(&mut map, key, rule, now);
    }

    /// Forgets `key` entirely.
    pub fn clear(&self, key: &str) {
        self.lock().remove(key);
    }

    /// Returns one reserved failure on `key` (a success).
    pub fn refund(&self, key: &str, rule: Rule) {
        let mut map = self.lock();
        if let Some(e) = map.get_mut(key) {
            e.failures = e.failures.saturating_sub(1);
            if e.failures <= rule.free {
                e.next_at = 0;
            }
        }
    }
}

/// Addresses where each account signed in successfully, for [`KNOWN_GOOD_MS`].
#[derive(Debug, Default)]
pub struct KnownGood {
    seen: Mutex<HashMap<(String, String), i64>>,
}

impl KnownGood {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), i64>> {
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether `account` signed in from `address` within [`KNOWN_GOOD_MS`] of `now`.
    #[must_use]
    pub fn contains(&self, account: &str, address: &str, now: i64) -> bool {
        self.lock()
            .get(&(account.to_owned(), address.to_owned()))
            .is_some_and(|at| now - at < KNOWN_GOOD_MS)
    }

    /// Records a successful sign-in.
    pub fn insert(&self, account: &str, address: &str, now: i64) {
        let mut map = self.lock();
        if map.len() > SWEEP_AT {
            map.retain(|_, at| now - *at < KNOWN_GOOD_MS);
        }
        map.insert((account.to_owned(), address.to_owned()), now);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    const R: Rule = Rule {
        free: 3,
        base_ms: 1_000,
        cap_ms: 60_000,
        reset_after_ms: 3_600_000,
    };

    #[test]
    fn backoff_reservations_serialize_parallel_attempts() {
        let b = Backoff::default();
        let mut passed = 0;
        for _ in 0..50 {
            if b.reserve(&[("k", R)], 0).is_ok() {
                passed += 1;
            }
        }
        assert_eq!(passed, 4);
        assert_eq!(b.reserve(&[("k", R)], 999), Err(1));
        assert!(b.reserve(&[("k", R)], 1_000).is_ok());
        // fifth failure: wait doubles
        assert_eq!(b.reserve(&[("k", R)], 2_999), Err(1));
        assert!(b.reserve(&[("k", R)], 3_000).is_ok());
        assert_eq!(b.reserve(&[("k", R)], 3_000), Err(4_000));
    }

    #[test]
    fn waits_are_capped_and_keys_reset_after_quiet() {
        let b = Backoff::default();
        let mut now = 0;
        for _ in 0..40 {
            if let Err(w) = b.reserve(&[("k", R)], now) {
                assert!(w <= R.cap_ms);
                now += w;
            }
        }
        let later = now + R.reset_after_ms + R.cap_ms;
        assert!(b.check("k", R, later).is_ok());
        // A reset key has its free budget back.
        for _ in 0..3 {
            assert!(b.reserve(&[("k", R)], later).is_ok());
        }
    }

    #[test]
    fn a_refund_returns_a_reservation() {
        let b = Backoff::default();
        for _ in 0..4 {
            b.reserve(&[("k", R)], 0).unwrap();
        }
        assert!(b.check("k", R, 0).is_err());
        b.refund("k", R);
        assert!(b.check("k", R, 0).is_ok());
    }

    #[test]
    fn known_good_addresses_expire() {
        let k = KnownGood::default();
        k.insert("a@x", "10.0.0.1", 0);
        assert!(k.contains("a@x", "10.0.0.1", KNOWN_GOOD_MS - 1));
        assert!(!k.contains("a@x", "10.0.0.1", KNOWN_GOOD_MS));
        assert!(!k.contains("a@x", "10.0.0.2", 0));
        assert!(!k.contains("b@x", "10.0.0.1", 0));
    }
}
