//! The runtime side of termplane's sans-IO machines: the only crate that reads clocks and asks
//! the operating system for randomness on the machines' behalf, and the socket drivers that run
//! a link machine over an async-tungstenite WebSocket on smol:
//!
//! * [`ws`] — the frame caps and the message mapping both ends share;
//! * [`plane`] — one `/ws/node` socket on the plane ([`termplane_machines::plane_link`]);
//! * [`agent`] — the node's dialing side for the daemon's life ([`termplane_machines::agent_link`]);
//! * [`capped`] — the node's inbound frame cap that drops an oversize message and keeps the link;
//! * [`tls`] — the node's TLS client configuration (system roots plus `TERMPLANE_CA_FILE`), shared
//!   by the `wss://` dial and the blocking `https://` client;
//! * [`http`] — a small blocking HTTP/1.1 client for enrollment, downloads and the pane's MCP
//!   server;
//! * [`tail`] — the executor's pane-log tails run as tasks on the embedder's executor.

pub mod agent;
pub mod capped;
mod deadline;
pub mod http;
pub mod keys;
pub mod plane;
pub mod tail;
pub mod tls;
pub mod ws;

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use termplane_machines::time::UnixSecs;

/// Where a runtime reads time from. Swappable so end-to-end tests can simulate its flow.
pub trait Clock {
    /// Monotonic now, for deadlines.
    fn now(&self) -> Instant;
    /// Wall-clock now in whole seconds since the epoch, for claim checks.
    fn unix(&self) -> UnixSecs;
    /// Wall-clock now in milliseconds since the epoch, for timestamps (`at`).
    fn unix_millis(&self) -> i64 {
        self.unix().0.saturating_mul(1000)
    }
}

/// The operating system's clocks.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn unix(&self) -> UnixSecs {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        UnixSecs(i64::try_from(secs).unwrap_or(i64::MAX))
    }

    fn unix_millis(&self) -> i64 {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        i64::try_from(ms).unwrap_or(i64::MAX)
    }
}

/// Why the operating system could not supply randomness.
#[derive(Debug, thiserror::Error)]
#[error("operating system randomness unavailable: {0}")]
pub struct EntropyError(String);

/// A 32-byte seed for a machine's RNG, from the operating system.
pub fn os_seed() -> Result<[u8; 32], EntropyError> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| EntropyError(e.to_string()))?;
    Ok(seed)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn seeds_differ_and_the_clock_moves_forward() {
        assert_ne!(os_seed().unwrap(), os_seed().unwrap());
        let c = SystemClock;
        let a = c.now();
        assert!(c.now() >= a);
        assert!(c.unix().0 > 1_700_000_000);
    }
}
