//! The plane's end of one node socket.
//!
//! One [`PlaneLink`] drives one `/ws/node` socket after the upgrade authenticated its bearer node
//! key. It implements every row of the specification's "Node link (control-plane side)" and
//! "Link classification" tables. It reads no clock, opens no socket and draws randomness only
//! from the seed it was built with.
//!
//! ```text
//!                     pinned row                              legacy row (no pin)
//!                          │                                         │
//!                      AwaitKx ──register──▶ 4410 (remedy)       AwaitLegacy ──kx──▶ 4411
//!                          │ kx (shape, pin in constant time, DH)    │ register ──▶ ClaimPin ─▶ AwaitPinClaim
//!                    AwaitBinding                                     │                    │ ok: register-ok, 1000
//!                          │ sealed binding opens, node id, v14       │                    └ refused: 4410
//!                    AwaitVerdict ──CheckBinding(nodeKey, eph)──▶ runtime
//!                          │ accepted: send header‖seal(ok)           │ plaintext ready
//!                     AwaitReady ◀────────────────────────────────────┘
//!                          │ ready: PersistIdentity (not for a downgrade), gate 1, gate 2
//!                ┌─────────┴─────────┐
//!              Online               Held ── 10 idle min ──▶ 4406
//!                └─────────┬─────────┘
//!                        Closed  (4409 superseded, 4401 key rotated/deleted, 1009 oversize,
//!                                 4410 wrong kind or bad ciphertext, 1000 shutdown)
//! ```
//!
//! Every state has a 10-second handshake deadline until `ready` (or `register`) has been
//! handled. The machine emits at most one [`PlaneAction::Close`] and nothing after it.
//!
//! # Silence
//! An online link on which the node sends nothing — no frame, no ping ([`PlaneInput::Alive`]) —
//! for [`NODE_SILENCE_LIMIT`] (60 s) is closed with 1000 and a reason naming the silence, so
//! the node reads a close frame and reconnects. A held link is exempt: held nodes (an old agent
//! may send nothing while it waits) end only with the 10-minute idle close, 4406.
//!
//! # Register on a pinned row
//! A `register` whose `pub` is the row's pin (compared in constant time) is answered with
//! `register-ok` and a normal close exactly like the first one: a node whose `register-ok` was
//! lost resumes with the same static key. Any other `register` on a pinned row is refused with
//! 4410 naming the remedy.
//!
//! # Results that do not parse
//! A `result` frame that fails the strict decoder but names a `ref` is reported as
//! [`PlaneAction::MalformedResult`], so the command it answers is settled at once (the plane
//! answers 502 `NODE_BAD_RESULT`) instead of waiting for its deadline.
//!
//! # Driving it
//! 1. Build it with [`PlaneLink::new`] once the upgrade authenticated the bearer and read the row.
//! 2. Feed every WebSocket message with [`PlaneLink::handle_input`]; messages above the 1 MiB cap
//!    are fed as [`PlaneInput::Oversize`] without their bytes.
//! 3. After every call drain [`PlaneLink::poll_action`] until `None`, carrying out each action in
//!    order. [`PlaneAction::CheckBinding`] and [`PlaneAction::ClaimPin`] are decisions: answer them
//!    with [`PlaneInput::BindingVerdict`] and [`PlaneInput::PinClaimVerdict`].
//! 4. Sleep until [`PlaneLink::poll_timeout`] and then call [`PlaneLink::handle_timeout`].
//! 5. Send commands with [`PlaneLink::send_command`], which assigns the per-connection `seq`.

use std::collections::{BTreeSet, VecDeque};
use std::time::Instant;

use std::time::Duration;
use termplane_proto::event::Event;
use termplane_proto::frame::{NodeFrame, PlaneFrame, RegisterOk};

use subtle::ConstantTimeEq as _;
use termplane_proto::limits::{
    HANDSHAKE_DEADLINE, HELD_IDLE_TIMEOUT, MAX_FRAME_BYTES, MAX_PRE_HANDSHAKE_FRAME_BYTES,
    MAX_SEALED_PLAINTEXT_BYTES, NODE_SILENCE_LIMIT,
};
use termplane_proto::{
    CloseCode, Key32, MIN_NODE_VERSION, NODE_PROTOCOL_VERSION, Ready, Version,
    claimed_result_reference, close, decode_node_frame,
};

use crate::kx::{self, AwaitBinding, BindingOpened, Established, Responder, StaticKeypair};
use crate::rng::{MachineRng, from_seed};
use crate::timer::{TimerKind, TimerTable};

/// How the row classifies the socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkClass {
    /// The row has an `encryptPublicKey`: encrypted link required.
    Pinned(Key32),
    /// The row has none: plaintext accepted; a protocol-14 agent must register first.
    Legacy,
}

/// Why a node is held (offline for every purpose but `update`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeldReason {
    /// Gate 1: the reported version is below the floor, unparseable or absent.
    BelowFloor {
        /// The floor.
        required: Version,
        /// What the node reported (`None` when absent).
        found: Option<String>,
    },
    /// Gate 2: the protocol version differs from ours.
    ProtocolMismatch {
        /// Ours.
        required: u32,
        /// What the node reported (`None` when absent).
        found: Option<u64>,
    },
    /// A plaintext `ready` wearing protocol 14 on a legacy row: a downgrade attempt. The node must
    /// pair (register) first; its self-claimed identity is never written.
    Pairing,
}

impl core::fmt::Display for HeldReason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BelowFloor { required, found } => write!(
                f,
                "update required: agent version {} is below the minimum {required}",
                found.as_deref().map_or("(absent)".to_owned(), |v| {
                    let v: String = v.chars().take(32).collect();
                    format!("{v:?}")
                })
            ),
            Self::ProtocolMismatch { required, found } => write!(
                f,
                "update required: protocol {} differs from {required}",
                found.map_or("(absent)".to_owned(), |v| v.to_string())
            ),
            Self::Pairing => f.write_str(
                "pairing required: a protocol-14 agent on an unpaired row must register first",
            ),
        }
    }
}

/// Why the runtime refused a binding (each names the failed fact in the close reason).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindingRefusal {
    /// The node key in the binding does not re-verify for this row.
    NodeKey,
    /// The ephemeral key was accepted before: a replayed session.
    ReplayedEphemeral,
    /// Anything else, with its one-line reason.
    Other(String),
}

impl core::fmt::Display for BindingRefusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NodeKey => f.write_str("binding refused: node key does not verify for this node"),
            Self::ReplayedEphemeral => {
                f.write_str("binding refused: ephemeral key already used (replayed session)")
            }
            Self::Other(r) => write!(f, "binding refused: {r}"),
        }
    }
}

/// Input to the machine.
#[derive(Clone, Debug)]
pub enum PlaneInput<'a> {
    /// A text message.
    Text(&'a str),
    /// A binary message.
    Binary(&'a [u8]),
    /// A message above the frame cap; its bytes were not kept.
    Oversize {
        /// Its length (or the length its header claimed).
        len: u64,
    },
    /// A WebSocket ping or pong arrived: the node is alive, nothing else happened.
    Alive,
    /// Answer to [`PlaneAction::CheckBinding`].
    BindingVerdict(Result<(), BindingRefusal>),
    /// Answer to [`PlaneAction::ClaimPin`]: whether the claim was written onto the still-unpinned row.
    PinClaimVerdict(bool),
    /// A newer connection with the same identity won.
    Superseded,
    /// The node key was rotated or the node deleted.
    KeyRotatedOrDeleted,
    /// The plane is shutting down.
    Shutdown,
    /// The peer closed the socket (or it broke).
    PeerClosed {
        /// The close code, when there was one.
        code: Option<u16>,
    },
}

/// Liveness the runtime mirrors into the row.
#[derive(Clone, Debug, PartialEq)]
pub enum PlaneAction {
    /// Send a text message.
    SendText(String),
    /// Send a binary message.
    SendBinary(Vec<u8>),
    /// Close the socket; the last action the machine ever emits.
    Close {
        /// Code.
        code: CloseCode,
        /// One-line reason (fits a close frame).
        reason: String,
    },
    /// Decide whether the opened binding stands: re-verify `node_key` for this row through the
    /// same chain as the upgrade, and record `ephemeral` in the node's persisted set of accepted
    /// ephemeral keys, refusing one that is already there. Answer with
    /// [`PlaneInput::BindingVerdict`]. Until then nothing else happens on this socket: in
    /// particular, newest-wins must not fire for it.
    CheckBinding {
        /// The binding's node key (a secret: never log it).
        node_key: String,
        /// The handshake's ephemeral key.
        ephemeral: Key32,
    },
    /// Write `key` into the row's `encryptPublicKey` if the row is still unpinned (conditional
    /// write); answer with [`PlaneInput::PinClaimVerdict`].
    ClaimPin(Key32),
    /// The link is authenticated: register this socket as the node's newest (newest wins).
    Authenticated,
    /// Persist the identity the node reported (before the gates).
    PersistIdentity(Box<Ready>),
    /// Both gates passed: the row is online.
    Online,
    /// A gate failed: the row is offline for every purpose but `update`.
    Held(HeldReason),
    /// An event to deliver (results, output, inventory…).
    Event(Event),
    /// A `result` frame that does not decode, naming this `ref`: settle that command as
    /// malformed (the rest of the frame was not trusted).
    MalformedResult {
        /// The `ref` the frame names.
        reference: String,
        /// Why it was refused.
        reason: String,
    },
    /// A frame that was read and dropped (for logs).
    Discarded(String),
}

/// Why a command could not be sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// The link is not online (or held and the command is not `update`).
    #[error("node link is not accepting commands")]
    NotAccepting,
    /// The envelope does not fit one frame.
    #[error("command envelope exceeds the frame cap")]
    TooLarge,
}

enum State {
    AwaitKx(Responder),
    AwaitLegacy,
    AwaitPinClaim,
    AwaitBinding(AwaitBinding),
    AwaitVerdict(BindingOpened),
    AwaitReady(Option<Established>),
    Online(Option<Established>),
    Held {
        link: Option<Established>,
        reason: HeldReason,
    },
    Closed,
    /// Transient placeholder while a state is being moved out.
    Poisoned,
}

/// The plane's end of one node socket.
pub struct PlaneLink {
    node_id: String,
    plane_public: Key32,
    state: State,
    actions: VecDeque<PlaneAction>,
    timers: TimerTable,
    rng: MachineRng,
    next_seq: u64,
    pending_updates: BTreeSet<String>,
    closed: bool,
    silence_limit: Duration,
}

impl PlaneLink {
    /// A machine for a socket whose bearer authenticated as `node_id`, classified by its row.
    #[must_use]
    pub fn new(
        node_id: &str,
        class: LinkClass,
        plane: &StaticKeypair,
        rng_seed: [u8; 32],
        now: Instant,
    ) -> Self {
        let state = match class {
            LinkClass::Pinned(pin) => State::AwaitKx(Responder::new(plane, pin, node_id)),
            LinkClass::Legacy => State::AwaitLegacy,
        };
        let mut timers = TimerTable::default();
        timers.set(TimerKind::Handshake, now + HANDSHAKE_DEADLINE);
        Self {
            node_id: node_id.to_owned(),
            plane_public: plane.public(),
            state,
            actions: VecDeque::new(),
            timers,
            rng: from_seed(rng_seed),
            next_seq: 1,
            pending_updates: BTreeSet::new(),
            closed: false,
            silence_limit: NODE_SILENCE_LIMIT,
        }
    }

    /// Replaces the silence limit ([`NODE_SILENCE_LIMIT`] by default; tests shorten it).
    pub fn set_silence_limit(&mut self, limit: Duration) {
        self.silence_limit = limit;
    }

    /// The node this socket authenticated as.
    #[must_use]
    pub fn node_id(&self) -> &str {
        &self.node_id
    }

    /// Whether both gates passed and the link is up.
    #[must_use]
    pub fn is_online(&self) -> bool {
        matches!(self.state, State::Online(_))
    }

    /// Whether the link is held for an update.
    #[must_use]
    pub fn held_reason(&self) -> Option<&HeldReason> {
        match &self.state {
            State::Held { reason, .. } => Some(reason),
            _ => None,
        }
    }

    /// Whether the machine has closed (or seen the peer close).
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Whether the link is encrypted (pinned and established).
    #[must_use]
    pub fn is_sealed(&self) -> bool {
        matches!(
            self.state,
            State::AwaitReady(Some(_)) | State::Online(Some(_)) | State::Held { link: Some(_), .. }
        )
    }

    /// The next action to carry out, in order.
    #[must_use]
    pub fn poll_action(&mut self) -> Option<PlaneAction> {
        self.actions.pop_front()
    }

    /// The next deadline.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<(Instant, TimerKind)> {
        if self.closed {
            None
        } else {
            self.timers.next()
        }
    }

    /// Fires every deadline at or before `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.closed {
            return;
        }
        for kind in self.timers.expired(now) {
            match kind {
                TimerKind::Handshake => {
                    self.close(
                        CloseCode::LinkRefused,
                        "handshake not completed within 10 seconds",
                    );
                }
                TimerKind::HeldIdle => {
                    let reason = self
                        .held_reason()
                        .map_or_else(|| "update required".to_owned(), ToString::to_string);
                    self.close(CloseCode::UpdateRequired, &reason);
                }
                TimerKind::Silence => {
                    if self.is_online() {
                        let reason = format!(
                            "no frame from the node for {} seconds: reconnect",
                            self.silence_limit.as_secs()
                        );
                        self.close(CloseCode::Normal, &reason);
                    }
                }
                TimerKind::Heartbeat | TimerKind::Inventory | TimerKind::Redial => {}
            }
        }
    }

    /// Feeds one input.
    pub fn handle_input(&mut self, input: PlaneInput<'_>, now: Instant) {
        if self.closed {
            return;
        }
        if matches!(
            input,
            PlaneInput::Text(_)
                | PlaneInput::Binary(_)
                | PlaneInput::Oversize { .. }
                | PlaneInput::Alive
        ) && self.is_online()
        {
            self.timers
                .set(TimerKind::Silence, now + self.silence_limit);
        }
        match input {
            PlaneInput::Alive => {}
            PlaneInput::Oversize { len } => {
                let reason = format!("frame of {len} bytes exceeds {MAX_FRAME_BYTES}");
                self.close(CloseCode::TooBig, &reason);
            }
            PlaneInput::Superseded => {
                self.close(CloseCode::Superseded, "superseded by a newer connection");
            }
            PlaneInput::KeyRotatedOrDeleted => {
                self.close(
                    CloseCode::Unauthenticated,
                    "node key rotated or node deleted",
                );
            }
            PlaneInput::Shutdown => self.close(CloseCode::Normal, "control plane restarting"),
            PlaneInput::PeerClosed { .. } => {
                self.closed = true;
                self.state = State::Closed;
                self.timers.clear();
            }
            PlaneInput::BindingVerdict(v) => self.on_verdict(v),
            PlaneInput::PinClaimVerdict(ok) => self.on_pin_claim(ok),
            PlaneInput::Text(text) => self.on_text(text, now),
            PlaneInput::Binary(bytes) => self.on_binary(bytes, now),
        }
    }

    /// Seals and sends one command. `sign` receives the `seq` to put in the claims and returns
    /// the compact JWS. Online links carry every command; held links carry only `update`.
    pub fn send_command(
        &mut self,
        jti: &str,
        is_update: bool,
        now: Instant,
        sign: impl FnOnce(u64) -> String,
    ) -> Result<u64, SendError> {
        let accepting = match &self.state {
            State::Online(_) => true,
            State::Held { .. } => is_update,
            _ => false,
        };
        if self.closed || !accepting {
            return Err(SendError::NotAccepting);
        }
        let seq = self.next_seq;
        let text = PlaneFrame::Command(termplane_proto::Envelope { jws: sign(seq) }).to_json();
        let frame = match &mut self.state {
            State::Online(Some(link))
            | State::Held {
                link: Some(link), ..
            } => {
                if text.len() > MAX_SEALED_PLAINTEXT_BYTES {
                    return Err(SendError::TooLarge);
                }
                match link.sealer.seal_frame(text.as_bytes()) {
                    Ok(ct) => PlaneAction::SendBinary(ct),
                    Err(_) => return Err(SendError::NotAccepting),
                }
            }
            _ => {
                if text.len() > MAX_FRAME_BYTES {
                    return Err(SendError::TooLarge);
                }
                PlaneAction::SendText(text)
            }
        };
        self.next_seq += 1;
        self.actions.push_back(frame);
        if is_update {
            self.pending_updates.insert(jti.to_owned());
            if matches!(self.state, State::Held { .. }) {
                self.timers
                    .set(TimerKind::HeldIdle, now + HELD_IDLE_TIMEOUT);
            }
        }
        Ok(seq)
    }

    /// Seals and sends the plane's FINAL-free graceful close: equivalent to
    /// `handle_input(PlaneInput::Shutdown)`.
    pub fn shutdown(&mut self) {
        self.close(CloseCode::Normal, "control plane restarting");
    }

    fn close(&mut self, code: CloseCode, reason: &str) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.state = State::Closed;
        self.timers.clear();
        self.actions.push_back(PlaneAction::Close {
            code,
            reason: close::fit_close_reason(reason).to_owned(),
        });
    }

    fn refuse(&mut self, reason: &str) {
        self.close(CloseCode::LinkRefused, reason);
    }

    fn on_text(&mut self, text: &str, now: Instant) {
        let state = core::mem::replace(&mut self.state, State::Poisoned);
        match state {
            State::AwaitKx(responder) => {
                if text.len() > MAX_PRE_HANDSHAKE_FRAME_BYTES {
                    return self.refuse("pre-handshake frame too large");
                }
                match decode_node_frame(text) {
                    Ok(NodeFrame::Kx(k)) => match responder.on_kx(&k) {
                        Ok(next) => self.state = State::AwaitBinding(next),
                        Err(e) => self.refuse(&format!("handshake refused: {e}")),
                    },
                    Ok(NodeFrame::Register(r)) => {
                        if bool::from(r.node_static.0.ct_eq(&responder.pin().0)) {
                            // The pin this node claimed before: its register-ok was lost.
                            self.on_pin_claim_accepted();
                        } else {
                            self.refuse(
                                "register refused: this node is already paired; rotate the node key to re-pair",
                            );
                        }
                    }
                    Ok(other) => self.refuse(&format!(
                        "expected kx, got plaintext {}",
                        frame_name(&other)
                    )),
                    Err(e) => self.refuse(&format!("expected kx: {e}")),
                }
            }
            State::AwaitLegacy => {
                if text.len() > MAX_FRAME_BYTES {
                    return self.close(CloseCode::TooBig, "frame exceeds the cap");
                }
                match decode_node_frame(text) {
                    Ok(NodeFrame::Kx(_)) => {
                        self.close(
                            CloseCode::Repair,
                            "no pinned key for this node: re-pair via register",
                        );
                    }
                    Ok(NodeFrame::Register(r)) => {
                        if text.len() > MAX_PRE_HANDSHAKE_FRAME_BYTES {
                            return self.refuse("pre-handshake frame too large");
                        }
                        self.state = State::AwaitPinClaim;
                        self.actions.push_back(PlaneAction::ClaimPin(r.node_static));
                    }
                    Ok(NodeFrame::Ready(ready)) => {
                        self.timers.stop(TimerKind::Handshake);
                        // A legacy link is authenticated by its bearer alone.
                        self.actions.push_back(PlaneAction::Authenticated);
                        if ready.protocol_version == Some(u64::from(NODE_PROTOCOL_VERSION)) {
                            // A protocol-14 agent speaking plaintext on an unpaired row: a
                            // downgrade attempt. Never write its self-claimed identity.
                            self.enter_held(None, HeldReason::Pairing, now);
                        } else {
                            self.on_ready(None, ready, now);
                        }
                    }
                    Ok(NodeFrame::Event(e)) => {
                        self.refuse(&format!("expected ready, got {}", e.kind()));
                    }
                    Err(e) => self.refuse(&format!("expected ready or register: {e}")),
                }
            }
            State::AwaitBinding(_) => self.refuse("plaintext frame before the sealed binding"),
            State::AwaitVerdict(_) | State::AwaitPinClaim => {
                self.refuse("unexpected frame during the handshake");
            }
            State::AwaitReady(Some(_))
            | State::Online(Some(_))
            | State::Held { link: Some(_), .. } => {
                self.refuse("plaintext frame on an encrypted link");
            }
            State::AwaitReady(None) => {
                // Unreachable in practice: legacy links read ready in AwaitLegacy.
                self.refuse("unexpected frame");
            }
            State::Online(None) => {
                self.state = State::Online(None);
                self.on_plain_event(text);
            }
            State::Held { link: None, reason } => {
                self.state = State::Held { link: None, reason };
                self.on_held_frame(text, now);
            }
            State::Closed | State::Poisoned => {}
        }
    }

    fn on_binary(&mut self, bytes: &[u8], now: Instant) {
        let state = core::mem::replace(&mut self.state, State::Poisoned);
        match state {
            State::AwaitKx(_) => self.refuse("ciphertext before kx"),
            State::AwaitLegacy | State::AwaitPinClaim => {
                self.refuse("ciphertext on an unpaired link");
            }
            State::AwaitBinding(await_binding) => {
                if bytes.len() > MAX_PRE_HANDSHAKE_FRAME_BYTES {
                    return self.refuse("pre-handshake frame too large");
                }
                match await_binding.on_binding(bytes) {
                    Ok(opened) => {
                        let node_key = opened.binding.node_key.clone();
                        let ephemeral = opened.ephemeral();
                        self.state = State::AwaitVerdict(opened);
                        self.actions.push_back(PlaneAction::CheckBinding {
                            node_key,
                            ephemeral,
                        });
                    }
                    Err(e) => self.refuse(&format!("binding refused: {e}")),
                }
            }
            State::AwaitVerdict(_) => self.refuse("unexpected frame during the handshake"),
            State::AwaitReady(Some(mut link)) => {
                let Some(text) = open_text(&mut link, bytes) else {
                    return self.refuse("ciphertext does not open");
                };
                match decode_node_frame(&text) {
                    Ok(NodeFrame::Ready(ready)) => {
                        self.timers.stop(TimerKind::Handshake);
                        self.on_ready(Some(link), ready, now);
                    }
                    Ok(other) => {
                        self.refuse(&format!("expected ready, got {}", frame_name(&other)));
                    }
                    Err(e) => self.refuse(&format!("expected ready: {e}")),
                }
            }
            State::Online(Some(mut link)) => {
                let Some(text) = open_text(&mut link, bytes) else {
                    return self.refuse("ciphertext does not open");
                };
                self.state = State::Online(Some(link));
                self.on_plain_event(&text);
            }
            State::Held {
                link: Some(mut link),
                reason,
            } => {
                let Some(text) = open_text(&mut link, bytes) else {
                    return self.refuse("ciphertext does not open");
                };
                self.state = State::Held {
                    link: Some(link),
                    reason,
                };
                self.on_held_frame(&text, now);
            }
            State::AwaitReady(None) | State::Online(None) | State::Held { link: None, .. } => {
                self.refuse("binary frame on a plaintext link");
            }
            State::Closed | State::Poisoned => {}
        }
    }

    fn on_verdict(&mut self, verdict: Result<(), BindingRefusal>) {
        let state = core::mem::replace(&mut self.state, State::Poisoned);
        let State::AwaitVerdict(opened) = state else {
            // A verdict nobody asked for: a runtime bug, never the peer's doing.
            self.state = state;
            return;
        };
        match verdict {
            Ok(()) => {
                let (link, first_push) = opened.accept(&mut self.rng);
                self.actions.push_back(PlaneAction::Authenticated);
                self.actions.push_back(PlaneAction::SendBinary(first_push));
                self.state = State::AwaitReady(Some(link));
            }
            Err(refusal) => self.refuse(&refusal.to_string()),
        }
    }

    fn on_pin_claim_accepted(&mut self) {
        let frame = PlaneFrame::RegisterOk(RegisterOk {
            control_encrypt_public_key: self.plane_public,
        });
        self.actions
            .push_back(PlaneAction::SendText(frame.to_json()));
        self.close(CloseCode::Normal, "paired: reconnect with the handshake");
    }

    fn on_pin_claim(&mut self, ok: bool) {
        if !matches!(self.state, State::AwaitPinClaim) {
            return;
        }
        if ok {
            self.on_pin_claim_accepted();
        } else {
            self.refuse(
                "register refused: this node is already paired; rotate the node key to re-pair",
            );
        }
    }

    fn on_ready(&mut self, link: Option<Established>, ready: Box<Ready>, now: Instant) {
        self.actions
            .push_back(PlaneAction::PersistIdentity(ready.clone()));
        // Gate 1: the version floor, naming the required and the found version.
        let floor_ok = ready
            .agent_version
            .as_deref()
            .and_then(|v| Version::parse(v).ok())
            .is_some_and(|v| v >= MIN_NODE_VERSION);
        if !floor_ok {
            let reason = HeldReason::BelowFloor {
                required: MIN_NODE_VERSION,
                found: ready.agent_version.clone(),
            };
            return self.enter_held(link, reason, now);
        }
        // Gate 2: the exact protocol.
        if ready.protocol_version != Some(u64::from(NODE_PROTOCOL_VERSION)) {
            let reason = HeldReason::ProtocolMismatch {
                required: NODE_PROTOCOL_VERSION,
                found: ready.protocol_version,
            };
            return self.enter_held(link, reason, now);
        }
        self.actions.push_back(PlaneAction::Online);
        self.state = State::Online(link);
        self.timers
            .set(TimerKind::Silence, now + self.silence_limit);
    }

    fn enter_held(&mut self, link: Option<Established>, reason: HeldReason, now: Instant) {
        self.timers
            .set(TimerKind::HeldIdle, now + HELD_IDLE_TIMEOUT);
        self.actions.push_back(PlaneAction::Held(reason.clone()));
        self.state = State::Held { link, reason };
    }

    fn on_plain_event(&mut self, text: &str) {
        match decode_node_frame(text) {
            Ok(NodeFrame::Event(e)) => self.actions.push_back(PlaneAction::Event(e)),
            Ok(other) => self.refuse(&format!(
                "unexpected {} on an online link",
                frame_name(&other)
            )),
            Err(e) => match claimed_result_reference(text) {
                Some(reference) => self.actions.push_back(PlaneAction::MalformedResult {
                    reference,
                    reason: e.to_string(),
                }),
                None => self
                    .actions
                    .push_back(PlaneAction::Discarded(e.to_string())),
            },
        }
    }

    /// Held links read only the result of an `update` command (well formed or not);
    /// everything else is dropped.
    fn on_held_frame(&mut self, text: &str, now: Instant) {
        let decoded = decode_node_frame(text);
        let reference = match &decoded {
            Ok(NodeFrame::Event(Event::Result(r))) => Some(r.reference.clone()),
            Ok(_) => None,
            Err(_) => claimed_result_reference(text),
        };
        match reference {
            Some(reference) if self.pending_updates.remove(&reference) => {
                self.timers
                    .set(TimerKind::HeldIdle, now + HELD_IDLE_TIMEOUT);
                match decoded {
                    Ok(NodeFrame::Event(e)) => self.actions.push_back(PlaneAction::Event(e)),
                    Err(e) => self.actions.push_back(PlaneAction::MalformedResult {
                        reference,
                        reason: e.to_string(),
                    }),
                    Ok(_) => {}
                }
            }
            _ => self.actions.push_back(PlaneAction::Discarded(
                "held link: frame dropped unread".to_owned(),
            )),
        }
    }
}

fn open_text(link: &mut Established, bytes: &[u8]) -> Option<String> {
    let plain = link.opener.open_frame(bytes).ok()?;
    String::from_utf8(plain).ok()
}

fn frame_name(f: &NodeFrame) -> &'static str {
    match f {
        NodeFrame::Kx(_) => "kx",
        NodeFrame::Register(_) => "register",
        NodeFrame::Ready(_) => "ready",
        NodeFrame::Event(e) => e.kind(),
    }
}

/// Re-export so runtimes name one module.
pub use kx::HandshakeError;
