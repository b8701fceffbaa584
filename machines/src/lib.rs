//! IO-free state machines of the termplane node link.
//!
//! Everything security-critical about the link between the plane and a node lives here, as
//! machines that take bytes, time and randomness as inputs and hand back actions. They read no
//! clock, open no socket or file and never ask the operating system for entropy (clippy's
//! `disallowed-methods` in this crate's `clippy.toml` enforces it), so every behaviour is testable
//! in memory with a simulated clock, fuzzable, and identical under any runtime.
//!
//! | module | what |
//! |---|---|
//! | [`kx`] | the protocol-14 handshake: one X25519 DH plus a BLAKE2b hash binding; typestates `Initiator` (agent) and `Responder → AwaitBinding → BindingOpened → Established` (plane) |
//! | [`seal`] | the sealed stream, byte-compatible with libsodium's `crypto_secretstream_xchacha20poly1305` |
//! | [`jws`] | the plane's ES256 signer and the node's verifier (steps 1–2 of the verification order) |
//! | [`fixed_key`] | ECDSA P-256 verification under one long-lived key with precomputed multiples (the node verifies every command under the plane's key) |
//! | [`replay`] | the jti cache and the per-connection seq gate (steps 3–4) |
//! | [`plane_link`] | the plane's end of one socket |
//! | [`agent_link`] | the node's end, across every socket of the daemon's life |
//! | [`timer`], [`backoff`], [`rng`], [`time`] | deadlines, jittered redial delays, the seeded CSPRNG, wall-clock seconds |
//!
//! # How a runtime drives a link machine
//!
//! Both link machines have the same four verbs, in the style of quinn-proto and str0m:
//!
//! * `handle_input(input, now)` — one event from the outside: a WebSocket message, the socket
//!   opening or closing, an oversize message (its length only), or the answer to a decision. The
//!   agent's variant also takes the wall time as [`time::UnixSecs`], against which command claims
//!   are checked.
//! * `handle_timeout(now)` — fire every deadline at or before `now`.
//! * `poll_action()` — the next thing to do: send a frame, close the socket (at most once, and
//!   nothing follows it), persist something, deliver an event, execute a command. Drain it until
//!   `None` after every `handle_*` call and carry the actions out in order.
//! * `poll_timeout()` — the next deadline and why, or `None`.
//!
//! Decisions that need the outside world come out as actions and go back in as inputs, so the
//! machine never blocks: the plane's [`plane_link::PlaneAction::CheckBinding`] (does the sealed
//! node key still verify for this row, and is this ephemeral key new?) is answered with
//! [`plane_link::PlaneInput::BindingVerdict`]; [`plane_link::PlaneAction::ClaimPin`] with
//! [`plane_link::PlaneInput::PinClaimVerdict`]. Commands enter the plane's machine through
//! [`plane_link::PlaneLink::send_command`], which assigns the per-connection `seq` and hands it to
//! the signing closure; the agent's answers go back through
//! [`agent_link::AgentLink::record_result`].
//!
//! A runtime's loop therefore looks like this (the smol one is `termplane-runtime-smol`):
//!
//! ```text
//! loop {
//!     while let Some(action) = machine.poll_action() { carry_out(action) }   // sends, closes, decisions
//!     let deadline = machine.poll_timeout();
//!     match wait_for(next_message, deadline, command_channel) {
//!         Message(m)  => machine.handle_input(m.into(), clock.now()),
//!         Deadline    => machine.handle_timeout(clock.now()),
//!         Command(c)  => machine.send_command(&c.jti, c.is_update, clock.now(), |seq| sign(c, seq)),
//!     }
//! }
//! ```
//!
//! Time comes in two kinds: deadlines use the monotonic `Instant` passed to every call; claim
//! checks use wall-clock [`time::UnixSecs`]. Randomness comes from a 32-byte seed given at
//! construction (the runtime reads it from the OS once); tests pass fixed seeds and get
//! reproducible runs. The back-to-back harness in `tests/common` wires both machines together in
//! memory and is the best worked example.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod agent_link;
pub mod backoff;
pub mod channel;
pub mod fixed_key;
pub mod jws;
pub mod kx;
pub mod peer;
pub mod plane_link;
pub mod replay;
pub mod rng;
pub mod seal;
pub mod time;
pub mod timer;
