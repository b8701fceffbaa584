//! Time as the service layer sees it: integer Unix milliseconds from an injectable clock, and
//! the monotonic instants its waits and deadlines are measured in.
//!
//! This module and the plane's runtime (`main.rs`, the HTTP adapter, the store, backup and the
//! instance lock) are the only places that read the operating system's clocks:
//! `plane/clippy.toml` forbids `Instant::now` and `SystemTime::now` everywhere else, so a
//! service takes its time from its [`Clock`] (`Services::now`, `Services::instant`).
#![allow(clippy::disallowed_methods)]

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// A source of the current time in Unix milliseconds.
pub trait Clock: Send + Sync + 'static {
    /// Now, in Unix milliseconds.
    fn now_ms(&self) -> i64;

    /// Now on the monotonic clock that waits, deadlines and durations are measured on (the
    /// one smol's timers run on). A [`ManualClock`] moves wall time only: what it tests is
    /// expiry and backoff, while a wait still lasts what it says.
    fn instant(&self) -> Instant {
        Instant::now()
    }
}

/// The host's wall clock in Unix microseconds, for timestamps set beside those of other hosts
/// (a node's own clock in the admin's command view, the link's event log): shown, never used
/// to decide anything.
#[must_use]
pub fn wall_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

/// Now on the monotonic clock, for the parts of the plane that hold no [`Clock`] (the link
/// registry's event log).
#[must_use]
pub fn monotonic() -> Instant {
    Instant::now()
}

/// The operating system's wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }
}

/// A clock that only moves when told to (tests of expiry and backoff).
#[derive(Clone, Debug)]
pub struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    /// A clock standing at `start_ms`.
    #[must_use]
    pub fn new(start_ms: i64) -> Self {
        Self(Arc::new(AtomicI64::new(start_ms)))
    }

    /// Moves the clock forward by `ms` (negative moves it back).
    pub fn advance_ms(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }

    /// Sets the clock to `ms`.
    pub fn set_ms(&self, ms: i64) {
        self.0.store(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}
