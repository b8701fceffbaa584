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
//! account ([`SignInBackoff::known`]): its attempts meet only the account × address key, so a distributed
//! attack on the account cannot keep its owner out from the places they use. A new address of
//! theirs meets the account-wide key too, whose wait is at most a minute.
//!
//! Every attempt *reserves* a failure on each of its keys under one lock before any password is
//! verified, and only a success refunds it, so parallel guesses serialize on the counters: once a
//! key's free budget is used up every further attempt waits, however many arrive at once. A key
//! with no failure for its rule's `reset_after_ms` starts over.
//!
//! The sign-in counters and known addresses are kept in the database ([`SignInBackoff`]), so
//! every replica on it counts one budget: the keys' rows are locked while a reservation is
//! decided, so parallel attempts at any replicas take turns. (A sign-in verifies a password or
//! a passkey, which costs far more than the rows.) The enrollment and node-key counters below
//! stay in each replica's memory: they answer unauthenticated clients before anything else, and
//! must cost no write; a guesser spread over `n` replicas meets `n` times their budgets, which
//! guard against floods, not against guessing 256-bit keys.
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

impl Entry {
    /// Whether the entry still counts at `now` (a quiet key whose wait ended starts over).
    fn counts(&self, rule: Rule, now: i64) -> bool {
        !(now - self.last_at >= rule.reset_after_ms && now >= self.next_at)
    }

    /// The entry after one more failure at `now` (from `None`: the first).
    fn failed(e: Option<Self>, rule: Rule, now: i64) -> Self {
        let mut e = e.unwrap_or(Self {
            failures: 0,
            next_at: 0,
            last_at: now,
        });
        e.failures = e.failures.saturating_add(1);
        e.last_at = now;
        if e.failures > rule.free {
            e.next_at = now + delay(rule, e.failures - rule.free);
        }
        e
    }

    /// The entry after one reserved failure is given back.
    fn refunded(mut self, rule: Rule) -> Self {
        self.failures = self.failures.saturating_sub(1);
        if self.failures <= rule.free {
            self.next_at = 0;
        }
        self
    }
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
            Some(e) if !e.counts(rule, now) => {
                map.remove(key);
                None
            }
            other => other.copied(),
        }
    }

    fn add_failure(map: &mut HashMap<String, Entry>, key: &str, rule: Rule, now: i64) {
        let e = Entry::failed(map.get(key).copied(), rule, now);
        map.insert(key.to_owned(), e);
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
            *e = e.refunded(rule);
        }
    }
}

/// The sign-in backoff and known addresses every replica on the database shares: the same
/// rules and arithmetic as [`Backoff`], the counters in the database (keys and
/// pairs as digests), so a guesser spread over the replicas meets one budget. Reserving takes
/// the keys' rows under a write lock: parallel attempts at any replicas take turns.
#[derive(Clone, Debug)]
pub struct SignInBackoff {
    store: crate::store::Store,
}

fn entry_of(r: crate::store::BackoffRow) -> Entry {
    Entry {
        failures: u32::try_from(r.failures.max(0)).unwrap_or(u32::MAX),
        next_at: r.next_at,
        last_at: r.last_at,
    }
}

fn row_of(e: Entry) -> crate::store::BackoffRow {
    crate::store::BackoffRow {
        failures: i64::from(e.failures),
        next_at: e.next_at,
        last_at: e.last_at,
    }
}

impl SignInBackoff {
    /// Over `store`.
    #[must_use]
    pub fn new(store: crate::store::Store) -> Self {
        Self { store }
    }

    fn digest(key: &str) -> String {
        crate::secret::digest(key)
    }

    /// Checks every key and, if none is waiting, reserves a failure on each (see
    /// [`Backoff::reserve`]); 429 `TOO_MANY_ATTEMPTS` with the longest wait otherwise.
    pub async fn reserve(
        &self,
        keys: &[(&str, Rule)],
        now: i64,
    ) -> Result<(), crate::error::ApiError> {
        let digests: Vec<String> = keys.iter().map(|(k, _)| Self::digest(k)).collect();
        let rules: Vec<Rule> = keys.iter().map(|(_, r)| *r).collect();
        let done = self
            .store
            .update_backoff(&digests, |rows| {
                let live: Vec<Option<Entry>> = rows
                    .into_iter()
                    .zip(&rules)
                    .map(|(r, rule)| r.map(entry_of).filter(|e| e.counts(*rule, now)))
                    .collect();
                let wait = live
                    .iter()
                    .flatten()
                    .map(|e| e.next_at - now)
                    .max()
                    .unwrap_or(0);
                if wait > 0 {
                    return Err(wait);
                }
                Ok(live
                    .into_iter()
                    .zip(&rules)
                    .map(|(e, rule)| Some(row_of(Entry::failed(e, *rule, now))))
                    .collect())
            })
            .await?;
        done.map_err(super::too_many)?;
        if let Err(e) = self.store.sweep_backoff(now, now - DAY).await {
            tracing::debug!(error = %e, "quiet sign-in counters were not swept");
        }
        Ok(())
    }

    /// Forgets `key` entirely.
    pub async fn clear(&self, key: &str) -> Result<(), crate::error::ApiError> {
        self.store
            .update_backoff::<()>(&[Self::digest(key)], |_| Ok(vec![None]))
            .await?
            .ok();
        Ok(())
    }

    /// Returns one reserved failure on `key` (a success).
    pub async fn refund(&self, key: &str, rule: Rule) -> Result<(), crate::error::ApiError> {
        self.store
            .update_backoff::<()>(&[Self::digest(key)], |rows| {
                Ok(rows
                    .into_iter()
                    .map(|r| r.map(|r| row_of(entry_of(r).refunded(rule))))
                    .collect())
            })
            .await?
            .ok();
        Ok(())
    }

    /// Whether `account` signed in from `address` within [`KNOWN_GOOD_MS`] of `now`.
    pub async fn known(
        &self,
        account: &str,
        address: &str,
        now: i64,
    ) -> Result<bool, crate::error::ApiError> {
        let pair = Self::digest(&format!("{account}|{address}"));
        Ok(self
            .store
            .known_address(&pair)
            .await?
            .is_some_and(|at| now - at < KNOWN_GOOD_MS))
    }

    /// Records a successful sign-in of `account` from `address`.
    pub async fn signed_in(
        &self,
        account: &str,
        address: &str,
        now: i64,
    ) -> Result<(), crate::error::ApiError> {
        let pair = Self::digest(&format!("{account}|{address}"));
        self.store
            .put_known_address(&pair, now, now - KNOWN_GOOD_MS)
            .await?;
        Ok(())
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
}
