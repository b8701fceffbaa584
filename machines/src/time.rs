//! The two kinds of time a machine is handed.
//!
//! Deadlines use a monotonic [`std::time::Instant`] passed into every call; claim checks (JWS
//! `iat`/`exp`) use wall-clock seconds passed in as [`UnixSecs`]. No machine ever reads a clock.

/// Wall-clock time in whole seconds since the Unix epoch, as handed in by the runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct UnixSecs(pub i64);

impl UnixSecs {
    /// The value in seconds.
    #[must_use]
    pub const fn get(self) -> i64 {
        self.0
    }
}
