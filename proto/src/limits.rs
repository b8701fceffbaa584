//! Every figure of the specification's Limits table, as a named constant.
//!
//! Durations are `core::time::Duration` so that callers never confuse seconds and milliseconds.
//! Nothing here reads a clock.

use core::time::Duration;

/// Largest WebSocket message on the node link, in raw wire bytes, both directions (1 MiB).
///
/// The cap is measured on what travels: for a sealed frame that is the ciphertext (plaintext + 17,
/// plus the 24-byte stream header on the first push of each direction).
pub const MAX_FRAME_BYTES: usize = 1_048_576;

/// Largest text or binary frame accepted before a link is established (`kx`, `register` and the
/// sealed binding are all far smaller). Anything larger is refused with 4410 before parsing.
pub const MAX_PRE_HANDSHAKE_FRAME_BYTES: usize = 4_096;

/// Bytes a sealed frame adds to its plaintext: one tag byte and a 16-byte Poly1305 MAC.
pub const SEAL_OVERHEAD_BYTES: usize = 17;

/// Bytes of the secret-stream header that rides the first push of each direction.
pub const SEAL_HEADER_BYTES: usize = 24;

/// Largest plaintext that fits in one sealed frame after the first (cap minus overhead).
pub const MAX_SEALED_PLAINTEXT_BYTES: usize = MAX_FRAME_BYTES - SEAL_OVERHEAD_BYTES;

/// Lifetime of a subshell (pane) token; extended while the pane's MCP child runs.
pub const SUBSHELL_TOKEN_LIFETIME: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Lifetime of an attach token minted by a bearer credential (single use, one pane).
pub const ATTACH_TOKEN_LIFETIME: Duration = Duration::from_secs(30);

/// Validity of a setup key (single use).
pub const SETUP_KEY_VALIDITY: Duration = Duration::from_secs(24 * 60 * 60);

/// Longest node name accepted at enrollment, in characters.
pub const NODE_NAME_MAX_CHARS: usize = 64;

/// Lifetime of a signed command envelope: `exp = iat + 30`.
pub const COMMAND_LIFETIME: Duration = Duration::from_secs(30);

/// Clock-skew tolerance applied to `iat` and `exp` when verifying a command.
pub const CLOCK_SKEW: Duration = Duration::from_secs(5);

/// Entries in the node's jti replay cache (per node, per process, surviving reconnects).
pub const JTI_CACHE_CAPACITY: usize = 2_048;

/// Largest `jti` accepted, in bytes. The plane mints 32-character identifiers.
pub const MAX_JTI_BYTES: usize = 64;

/// Largest compact JWS accepted before any signature work (catalogue D69).
pub const MAX_JWS_BYTES: usize = 65_536;

/// Most entries one `fs_ls` answer carries.
pub const FS_LS_MAX_ENTRIES: usize = 1_000;

/// Longest subshell id usable in node-side paths (hex and hyphen only).
pub const SUBSHELL_ID_MAX_CHARS: usize = 64;

/// Interval between node heartbeats.
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(15);

/// Interval between inventory pushes (one is also pushed on every connect).
pub const INVENTORY_INTERVAL: Duration = Duration::from_secs(5 * 60);

/// Deadline of an ordinary command at the plane's dispatcher.
pub const COMMAND_DEADLINE: Duration = Duration::from_secs(10);

/// Deadline of the `update` command at the plane's dispatcher.
pub const UPDATE_COMMAND_DEADLINE: Duration = Duration::from_secs(5 * 60);

/// Idle time after which a held socket is closed with 4406.
pub const HELD_IDLE_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The plane closes an online link on which the node sent nothing — no frame, no ping — for this
/// long (close 1000 with a reason; the node reconnects). A live node sends a heartbeat every
/// 15 s and a WebSocket ping with it. A held link is exempt: it ends with the 10-minute 4406.
pub const NODE_SILENCE_LIMIT: Duration = Duration::from_secs(60);

/// The node gives up an established link on which the plane sent nothing — no frame, no pong —
/// for this long, and redials with backoff. The node pings the plane on every heartbeat, so a
/// live plane answers at least every 15 s.
pub const PLANE_SILENCE_LIMIT: Duration = Duration::from_secs(45);

/// Time a classified socket has to complete its handshake before 4410.
pub const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(10);

/// Upper bound of the agent's reconnect backoff.
pub const RECONNECT_BACKOFF_CAP: Duration = Duration::from_secs(60);

/// First delay of the agent's reconnect backoff (doubles per failed attempt up to the cap).
pub const RECONNECT_BACKOFF_BASE: Duration = Duration::from_secs(1);

/// Freshness of a node's `detect` answer for the launch gate.
pub const DETECTION_TTL: Duration = Duration::from_secs(10 * 60);

/// Tick of the node's pane exit detection: the backstop; a death announced (by the pane's
/// wrapper or tmux's `pane-died` hook) is checked at once.
pub const EXIT_DETECTION_TICK: Duration = Duration::from_secs(2);

/// Consecutive failed probes after which a pane is reported dead with `exitCode: null`.
pub const EXIT_FAILED_PROBES: u32 = 2;

/// Quiet time after which a node accepts a just-installed binary without any command.
pub const UPDATE_ACCEPT_QUIET: Duration = Duration::from_secs(15 * 60);

/// Typical size of a node binary download; the node refuses downloads over [`UPDATE_DOWNLOAD_MAX_BYTES`].
pub const UPDATE_DOWNLOAD_TYPICAL_BYTES: u64 = 70_000_000;

/// Hard ceiling of an update download (twice the typical size).
pub const UPDATE_DOWNLOAD_MAX_BYTES: u64 = 2 * UPDATE_DOWNLOAD_TYPICAL_BYTES;
