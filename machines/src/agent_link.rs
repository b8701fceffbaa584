//! The node's end of the link, across every socket of the daemon's life.
//!
//! One [`AgentLink`] lives as long as the daemon. It dials, registers when it holds no control
//! pin, runs the handshake, sends `ready`, keeps the heartbeat and inventory timers, verifies and
//! admits every command (signature and claims, jti cache, per-connection seq), and reacts to each
//! close code as the specification's "Node link (agent side)" table says:
//!
//! | close | reaction |
//! |---|---|
//! | 4406 | [`AgentAction::Exit`] with `rollback: true`, in every phase |
//! | 4409 | [`AgentAction::Exit`] with `rollback: false`, in every phase |
//! | 4410 | redial after a jittered backoff (cap 60 s), config unchanged |
//! | 4411 | before establishment: [`AgentAction::DropControlPin`], then redial (the next connect registers); after: redial |
//! | 1000 | ordinary reconnect (at once) |
//! | other / none (4401, 1009, an abnormal end) | redial after backoff |
//!
//! "Every phase" includes a socket this side was already closing: a 4406 or 4409 that crossed
//! this side's own close still ends the daemon.
//!
//! The jti cache lives in the machine, so it survives reconnects; the seq gate is per socket.
//! The jtis an earlier process of this node admitted arrive in [`AgentConfig::carried_over`]:
//! each [`AgentAction::Execute`] carries the [`ReplayRecord`] the runtime must persist before it
//! executes the command, so that no restart, however fast, runs a command twice.
//! Verified commands leave as [`AgentAction::Execute`] in arrival order; the runtime hands them
//! to its executor in that order (across reconnects) and reports each answer with
//! [`AgentLink::record_result`], in whatever order they finish. An oversize inbound frame is dropped and the link stays up.
//!
//! # Liveness of the plane
//! Every heartbeat tick also asks for a WebSocket ping ([`AgentAction::Ping`]). Anything from the
//! plane — a frame, a pong ([`AgentInput::Alive`]), even an oversize frame — restarts the
//! silence timer; after [`PLANE_SILENCE_LIMIT`] (45 s) without any, the link is given up (close
//! 1000, reason naming the silence) and redialed after backoff.
//!
//! # The control pin
//! A low-order (or all-zero) plane key is never pinned: a `register-ok` carrying one closes the
//! socket with 4410 and leaves the config unchanged, and a configured pin that is low-order is
//! dropped at start ([`AgentAction::DropControlPin`]) so the next connect registers.
//!
//! # Driving it
//! Same verbs as the plane's machine: [`AgentLink::handle_input`] for every socket event,
//! [`AgentLink::handle_timeout`] at [`AgentLink::poll_timeout`], and drain
//! [`AgentLink::poll_action`] after each call. Wall time arrives as [`UnixSecs`] with every input
//! (claims are checked against it); deadlines use the monotonic `Instant`.
//!
//! The node's static link keypair must be persisted before the machine is built: a register
//! whose reply is lost then resumes with the same static key.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use termplane_proto::command::Command;
use termplane_proto::event::{ErrorEvent, Event, VERIFY_ERROR_CODE};
use termplane_proto::frame::{NodeFrame, PlaneFrame, Register};
use termplane_proto::limits::{
    HANDSHAKE_DEADLINE, HEARTBEAT_INTERVAL, INVENTORY_INTERVAL, JTI_CACHE_CAPACITY,
    MAX_SEALED_PLAINTEXT_BYTES, PLANE_SILENCE_LIMIT, RECONNECT_BACKOFF_BASE, RECONNECT_BACKOFF_CAP,
};
use termplane_proto::{
    Binding, CloseCode, CommandResult, Key32, NODE_PROTOCOL_VERSION, Ready, close,
    decode_plane_frame,
};

use crate::backoff::Backoff;
use crate::jws::{Es256Verifier, KeyError, PublicJwk};
use crate::kx::{Established, Initiator, InitiatorParams, is_low_order};
use crate::replay::{Admission, JtiCache, ReplayRecord, SeqGate, admit};
use crate::rng::{MachineRng, from_seed};
use crate::time::UnixSecs;
use crate::timer::{TimerKind, TimerTable};

/// What the agent link needs to know.
#[derive(Clone, Debug)]
pub struct AgentConfig {
    /// This node's id.
    pub node_id: String,
    /// The bearer node key (also sealed into the binding).
    pub node_key: String,
    /// The node's long-term static X25519 public key (its keypair is already persisted).
    pub node_static: Key32,
    /// The pinned plane link key, if paired.
    pub control_pin: Option<Key32>,
    /// The plane's command-signing key.
    pub signing_key: PublicJwk,
    /// When this process started (refuses commands minted before it, minus the skew).
    pub process_start: UnixSecs,
    /// The jtis earlier processes of this node admitted (persisted from each
    /// [`AgentAction::Execute`]'s record): they are answered, never run again.
    pub carried_over: Vec<ReplayRecord>,
    /// The `ready` frame to send on every establishment.
    pub ready: Ready,
}

/// Input to the agent machine.
#[derive(Clone, Debug)]
pub enum AgentInput<'a> {
    /// The WebSocket opened (the upgrade with the bearer node key succeeded).
    Opened,
    /// The dial or the upgrade failed. `retry_after` is the wait the plane asked for with the
    /// refusal (`Retry-After`), if any: the next dial waits at least that long, but never
    /// longer than the backoff's cap (60 s).
    DialFailed {
        /// The wait the refusal asked for.
        retry_after: Option<Duration>,
    },
    /// A text message.
    Text(&'a str),
    /// A binary message.
    Binary(&'a [u8]),
    /// A message above the frame cap, dropped by the transport.
    Oversize {
        /// Its length.
        len: u64,
    },
    /// A WebSocket ping or pong arrived: the plane is alive, nothing else happened.
    Alive,
    /// The socket closed.
    Closed {
        /// The close code, when there was one.
        code: Option<u16>,
        /// The close reason.
        reason: &'a str,
    },
}

/// Why the agent exits.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentAction {
    /// Open a socket to the persisted `wsUrl` with the bearer node key.
    Dial,
    /// Send a text message.
    SendText(String),
    /// Send a binary message.
    SendBinary(Vec<u8>),
    /// Close the socket (the machine already plans its next move).
    Close {
        /// Code.
        code: CloseCode,
        /// Reason.
        reason: String,
    },
    /// Persist the plane's link key as the control pin (from `register-ok`).
    PersistControlPin(Key32),
    /// Forget the control pin (4411 before establishment): the next connect registers.
    DropControlPin,
    /// The link is established and `ready` is sent: send `subshells_report` and `inventory`.
    Established,
    /// Time to send a heartbeat.
    HeartbeatDue,
    /// Time to push the inventory.
    InventoryDue,
    /// Send a WebSocket ping (each heartbeat tick): a live plane's pong restarts the silence
    /// timer.
    Ping,
    /// Execute a verified, admitted command; answer with [`AgentLink::record_result`].
    ///
    /// Persist `record` first (where the next process of this node reads it back into
    /// [`AgentConfig::carried_over`]); if it cannot be persisted, do not execute: answer with an
    /// error instead.
    Execute {
        /// The command's jti (the result's `ref`).
        jti: String,
        /// The command.
        command: Box<Command>,
        /// What to persist before executing.
        record: ReplayRecord,
    },
    /// Leave the process (after rolling back a just-installed binary when `rollback`).
    Exit {
        /// Roll back a just-installed binary first.
        rollback: bool,
        /// The plane's reason.
        reason: String,
    },
    /// Something worth a log line.
    Note(String),
}

enum State {
    Dialing,
    Registering,
    Handshaking(Initiator),
    Established { link: Established, seq: SeqGate },
    Waiting,
    Exited,
}

/// The node's end of the link.
pub struct AgentLink {
    cfg: AgentConfig,
    verifier: Es256Verifier,
    cache: JtiCache,
    state: State,
    actions: VecDeque<AgentAction>,
    timers: TimerTable,
    backoff: Backoff,
    rng: MachineRng,
    silence_limit: Duration,
}

impl AgentLink {
    /// A machine that dials at once.
    pub fn new(cfg: AgentConfig, rng_seed: [u8; 32], _now: Instant) -> Result<Self, KeyError> {
        let verifier = Es256Verifier::new(&cfg.signing_key, &cfg.node_id)?;
        let mut cache = JtiCache::new(JTI_CACHE_CAPACITY, cfg.process_start);
        let mut cfg = cfg;
        cache.carry_over(core::mem::take(&mut cfg.carried_over));
        let mut me = Self {
            cfg,
            verifier,
            cache,
            state: State::Dialing,
            actions: VecDeque::new(),
            timers: TimerTable::default(),
            backoff: Backoff::new(RECONNECT_BACKOFF_BASE, RECONNECT_BACKOFF_CAP),
            rng: from_seed(rng_seed),
            silence_limit: PLANE_SILENCE_LIMIT,
        };
        if me.cfg.control_pin.is_some_and(|pin| is_low_order(&pin)) {
            me.cfg.control_pin = None;
            me.actions.push_back(AgentAction::Note(
                "the pinned plane key is a low-order point: dropped; the next connect registers"
                    .to_owned(),
            ));
            me.actions.push_back(AgentAction::DropControlPin);
        }
        me.actions.push_back(AgentAction::Dial);
        Ok(me)
    }

    /// Replaces the silence limit ([`PLANE_SILENCE_LIMIT`] by default; tests shorten it).
    pub fn set_silence_limit(&mut self, limit: Duration) {
        self.silence_limit = limit;
    }

    /// Whether the link is established.
    #[must_use]
    pub fn is_established(&self) -> bool {
        matches!(self.state, State::Established { .. })
    }

    /// Whether the machine told the runtime to exit.
    #[must_use]
    pub fn has_exited(&self) -> bool {
        matches!(self.state, State::Exited)
    }

    /// The current control pin.
    #[must_use]
    pub fn control_pin(&self) -> Option<Key32> {
        self.cfg.control_pin
    }

    /// Replaces the `ready` frame sent on the next establishment (runtime snapshot changes).
    pub fn set_ready(&mut self, ready: Ready) {
        self.cfg.ready = ready;
    }

    /// The next action.
    #[must_use]
    pub fn poll_action(&mut self) -> Option<AgentAction> {
        self.actions.pop_front()
    }

    /// The next deadline.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<(Instant, TimerKind)> {
        if matches!(self.state, State::Exited) {
            None
        } else {
            self.timers.next()
        }
    }

    /// Fires every deadline at or before `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        for kind in self.timers.expired(now) {
            match kind {
                TimerKind::Redial => {
                    if matches!(self.state, State::Waiting) {
                        self.state = State::Dialing;
                        self.actions.push_back(AgentAction::Dial);
                    }
                }
                TimerKind::Handshake => {
                    if matches!(self.state, State::Handshaking(_) | State::Registering) {
                        self.drop_socket(
                            CloseCode::LinkRefused,
                            "plane did not answer the handshake",
                            now,
                            true,
                        );
                    }
                }
                TimerKind::Heartbeat => {
                    if self.is_established() {
                        self.actions.push_back(AgentAction::HeartbeatDue);
                        self.actions.push_back(AgentAction::Ping);
                        self.timers
                            .set(TimerKind::Heartbeat, now + HEARTBEAT_INTERVAL);
                    }
                }
                TimerKind::Silence => {
                    if self.is_established() {
                        let reason = format!(
                            "no frame or pong from the plane for {} seconds",
                            self.silence_limit.as_secs()
                        );
                        self.actions.push_back(AgentAction::Note(reason.clone()));
                        self.drop_socket(CloseCode::Normal, &reason, now, true);
                    }
                }
                TimerKind::Inventory => {
                    if self.is_established() {
                        self.actions.push_back(AgentAction::InventoryDue);
                        self.timers
                            .set(TimerKind::Inventory, now + INVENTORY_INTERVAL);
                    }
                }
                TimerKind::HeldIdle => {}
            }
        }
    }

    /// Feeds one input.
    pub fn handle_input(&mut self, input: AgentInput<'_>, now: Instant, unix: UnixSecs) {
        if matches!(self.state, State::Exited) {
            return;
        }
        if self.is_established()
            && matches!(
                input,
                AgentInput::Text(_)
                    | AgentInput::Binary(_)
                    | AgentInput::Oversize { .. }
                    | AgentInput::Alive
            )
        {
            self.timers
                .set(TimerKind::Silence, now + self.silence_limit);
        }
        match input {
            AgentInput::Alive => {}
            AgentInput::Opened => self.on_opened(now),
            AgentInput::DialFailed { retry_after } => {
                if matches!(self.state, State::Dialing) {
                    let own = self.backoff.next_delay(&mut self.rng);
                    let asked = retry_after.unwrap_or_default().min(RECONNECT_BACKOFF_CAP);
                    self.redial_after(own.max(asked), now);
                }
            }
            AgentInput::Oversize { len } => {
                self.actions.push_back(AgentAction::Note(format!(
                    "dropped an inbound frame of {len} bytes (over the cap)"
                )));
            }
            AgentInput::Closed { code, reason } => self.on_closed(code, reason, now),
            AgentInput::Text(text) => self.on_text(text, now),
            AgentInput::Binary(bytes) => self.on_binary(bytes, now, unix),
        }
    }

    /// Records the answer of an executed command and sends it (once for the command and once
    /// for each duplicate that waited for it) when the link is up.
    pub fn record_result(&mut self, result: CommandResult) {
        let jti = result.reference.clone();
        let waiters = self.cache.record_answer(&jti, result.clone());
        for _ in 0..=waiters {
            self.send_event(&Event::Result(result.clone()));
        }
    }

    /// Seals and sends an event; `false` when the link is not established (the event is lost,
    /// which the protocol tolerates: the next connect sends a fresh census).
    pub fn send_event(&mut self, event: &Event) -> bool {
        let State::Established { link, .. } = &mut self.state else {
            return false;
        };
        let text = NodeFrame::Event(event.clone()).to_json();
        if text.len() > MAX_SEALED_PLAINTEXT_BYTES {
            self.actions.push_back(AgentAction::Note(format!(
                "event {} of {} bytes exceeds the frame cap; not sent",
                event.kind(),
                text.len()
            )));
            return false;
        }
        match link.sealer.seal_frame(text.as_bytes()) {
            Ok(ct) => {
                self.actions.push_back(AgentAction::SendBinary(ct));
                true
            }
            Err(_) => false,
        }
    }

    /// Closes the link for a daemon shutdown (1000) without redialing.
    pub fn shutdown(&mut self) {
        if !matches!(self.state, State::Exited) {
            self.actions.push_back(AgentAction::Close {
                code: CloseCode::Normal,
                reason: "node shutting down".to_owned(),
            });
            self.state = State::Exited;
            self.timers.clear();
        }
    }

    fn on_opened(&mut self, now: Instant) {
        if !matches!(self.state, State::Dialing) {
            return;
        }
        self.timers.set(
            TimerKind::Handshake,
            now + HANDSHAKE_DEADLINE + Duration::from_secs(5),
        );
        match self.cfg.control_pin {
            None => {
                let frame = NodeFrame::Register(Register {
                    node_static: self.cfg.node_static,
                });
                self.actions
                    .push_back(AgentAction::SendText(frame.to_json()));
                self.state = State::Registering;
            }
            Some(pin) => {
                let params = InitiatorParams {
                    plane_static: pin,
                    node_static: self.cfg.node_static,
                    binding: Binding {
                        node_id: self.cfg.node_id.clone(),
                        node_key: self.cfg.node_key.clone(),
                        protocol_version: NODE_PROTOCOL_VERSION,
                    },
                };
                match Initiator::start(&params, &mut self.rng) {
                    Ok((initiator, hello)) => {
                        self.actions
                            .push_back(AgentAction::SendText(NodeFrame::Kx(hello.kx).to_json()));
                        self.actions
                            .push_back(AgentAction::SendBinary(hello.first_binary));
                        self.state = State::Handshaking(initiator);
                    }
                    Err(e) => {
                        let reason = format!("cannot start the handshake: {e}");
                        self.drop_socket(CloseCode::LinkRefused, &reason, now, true);
                    }
                }
            }
        }
    }

    fn on_closed(&mut self, code: Option<u16>, reason: &str, now: Instant) {
        let was_established = self.is_established();
        let code = code.and_then(CloseCode::from_u16);
        let reason: String = reason.chars().take(200).collect();
        // A terminal close ends the daemon in every phase, even on a socket this side was
        // already closing (the plane's close crossed ours).
        if matches!(self.state, State::Waiting) {
            match code {
                Some(CloseCode::UpdateRequired) => self.exit(true, reason),
                Some(CloseCode::Superseded) => self.exit(false, reason),
                _ => {}
            }
            return;
        }
        if matches!(self.state, State::Exited) {
            return;
        }
        match code {
            Some(CloseCode::UpdateRequired) => self.exit(true, reason),
            Some(CloseCode::Superseded) => self.exit(false, reason),
            Some(CloseCode::Repair) => {
                if !was_established {
                    self.cfg.control_pin = None;
                    self.actions.push_back(AgentAction::DropControlPin);
                }
                self.redial_after(Duration::ZERO, now);
            }
            Some(CloseCode::Normal) => {
                self.backoff.reset();
                self.redial_after(Duration::ZERO, now);
            }
            _ => self.wait_backoff(now),
        }
    }

    fn on_text(&mut self, text: &str, now: Instant) {
        match &self.state {
            State::Registering => match decode_plane_frame(text) {
                Ok(PlaneFrame::RegisterOk(ok)) if is_low_order(&ok.control_encrypt_public_key) => {
                    self.drop_socket(
                        CloseCode::LinkRefused,
                        "register-ok refused: the plane key is a low-order point",
                        now,
                        true,
                    );
                }
                Ok(PlaneFrame::RegisterOk(ok)) => {
                    self.cfg.control_pin = Some(ok.control_encrypt_public_key);
                    self.actions.push_back(AgentAction::PersistControlPin(
                        ok.control_encrypt_public_key,
                    ));
                    // The plane closes the socket normally; the redial runs the handshake.
                }
                Ok(_) => {
                    self.drop_socket(CloseCode::LinkRefused, "expected register-ok", now, true)
                }
                Err(e) => {
                    let reason = format!("expected register-ok: {e}");
                    self.drop_socket(CloseCode::LinkRefused, &reason, now, true);
                }
            },
            State::Handshaking(_) => {
                self.drop_socket(
                    CloseCode::LinkRefused,
                    "plaintext frame during the handshake",
                    now,
                    true,
                );
            }
            State::Established { .. } => {
                self.drop_socket(
                    CloseCode::LinkRefused,
                    "plaintext frame on an encrypted link",
                    now,
                    true,
                );
            }
            State::Dialing | State::Waiting | State::Exited => {}
        }
    }

    fn on_binary(&mut self, bytes: &[u8], now: Instant, unix: UnixSecs) {
        let state = core::mem::replace(&mut self.state, State::Waiting);
        match state {
            State::Handshaking(initiator) => match initiator.on_first_binary(bytes) {
                Ok(link) => self.establish(link, now),
                Err(e) => {
                    let reason = format!("handshake failed: {e}");
                    self.drop_socket(CloseCode::LinkRefused, &reason, now, true);
                }
            },
            State::Established { mut link, seq } => {
                let opened = link
                    .opener
                    .open_frame(bytes)
                    .ok()
                    .and_then(|p| String::from_utf8(p).ok());
                self.state = State::Established { link, seq };
                let Some(text) = opened else {
                    return self.drop_socket(
                        CloseCode::LinkRefused,
                        "ciphertext does not open",
                        now,
                        true,
                    );
                };
                self.on_sealed_text(&text, now, unix);
            }
            State::Registering => {
                self.state = State::Registering;
                self.drop_socket(
                    CloseCode::LinkRefused,
                    "ciphertext on an unpaired link",
                    now,
                    true,
                );
            }
            other => self.state = other,
        }
    }

    fn on_sealed_text(&mut self, text: &str, now: Instant, unix: UnixSecs) {
        let envelope = match decode_plane_frame(text) {
            Ok(PlaneFrame::Command(env)) => env,
            Ok(_) => {
                return self.drop_socket(
                    CloseCode::LinkRefused,
                    "unexpected frame on an established link",
                    now,
                    true,
                );
            }
            Err(e) => {
                self.report_verify(&format!("dropped at parse: {e}"));
                return;
            }
        };
        let verified = match self.verifier.verify(&envelope.jws, unix) {
            Ok(v) => v,
            Err(e) => return self.report_verify(&e.to_string()),
        };
        let State::Established { seq, .. } = &mut self.state else {
            return;
        };
        let jti = verified.claims.jti.clone();
        match admit(&mut self.cache, seq, &verified, unix) {
            Admission::Execute => match verified.claims.command() {
                Ok(command) => self.actions.push_back(AgentAction::Execute {
                    jti,
                    command: Box::new(command),
                    record: ReplayRecord::of(&verified),
                }),
                Err(e) => {
                    let known = verified
                        .claims
                        .command_kind()
                        .is_some_and(|k| KNOWN_COMMANDS.contains(&k));
                    let answer = if known {
                        self.report_verify(&format!("malformed command: {e}"));
                        CommandResult::err(jti, format!("invalid command: {e}"))
                    } else {
                        CommandResult::err(jti, "unsupported")
                    };
                    self.record_result(answer);
                }
            },
            Admission::Resend(answer) => {
                self.send_event(&Event::Result(answer));
            }
            Admission::Wait => {
                // The cache counts the waiter; record_result answers it with the first answer.
            }
            Admission::Conflict => {
                self.report_verify("jti reused with other content");
            }
            Admission::Stale(reason) => self.report_verify(&reason),
            Admission::DropLink(reason) => {
                self.report_verify(&reason);
                self.backoff.reset();
                self.drop_socket(CloseCode::Normal, &reason, now, false);
                self.redial_after(Duration::ZERO, now);
            }
        }
    }

    fn establish(&mut self, link: Established, now: Instant) {
        self.state = State::Established {
            link,
            seq: SeqGate::new(),
        };
        self.backoff.reset();
        self.timers.stop(TimerKind::Handshake);
        let ready = NodeFrame::Ready(Box::new(self.cfg.ready.clone())).to_json();
        if let State::Established { link, .. } = &mut self.state
            && let Ok(ct) = link.sealer.seal_frame(ready.as_bytes())
        {
            self.actions.push_back(AgentAction::SendBinary(ct));
        }
        self.actions.push_back(AgentAction::Established);
        self.timers
            .set(TimerKind::Heartbeat, now + HEARTBEAT_INTERVAL);
        self.timers
            .set(TimerKind::Inventory, now + INVENTORY_INTERVAL);
        self.timers
            .set(TimerKind::Silence, now + self.silence_limit);
    }

    fn report_verify(&mut self, message: &str) {
        let event = Event::Error(ErrorEvent {
            code: VERIFY_ERROR_CODE.to_owned(),
            message: message.chars().take(200).collect(),
        });
        self.send_event(&event);
    }

    /// Closes the current socket (when `send_close`) and schedules the next dial by backoff.
    fn drop_socket(&mut self, code: CloseCode, reason: &str, now: Instant, backoff: bool) {
        self.actions.push_back(AgentAction::Close {
            code,
            reason: close::fit_close_reason(reason).to_owned(),
        });
        if backoff {
            self.wait_backoff(now);
        } else {
            self.state = State::Waiting;
            self.stop_link_timers();
        }
    }

    fn wait_backoff(&mut self, now: Instant) {
        let delay = self.backoff.next_delay(&mut self.rng);
        self.redial_after(delay, now);
    }

    fn redial_after(&mut self, delay: Duration, now: Instant) {
        self.state = State::Waiting;
        self.stop_link_timers();
        self.timers.set(TimerKind::Redial, now + delay);
    }

    fn stop_link_timers(&mut self) {
        for k in [
            TimerKind::Handshake,
            TimerKind::Heartbeat,
            TimerKind::Inventory,
            TimerKind::Silence,
        ] {
            self.timers.stop(k);
        }
    }

    fn exit(&mut self, rollback: bool, reason: String) {
        self.state = State::Exited;
        self.timers.clear();
        self.actions
            .push_back(AgentAction::Exit { rollback, reason });
    }
}

/// Every command type this build knows (a command of another type answers `unsupported`).
const KNOWN_COMMANDS: [&str; 28] = [
    "launch",
    "terminate",
    "kill",
    "prompt_deliver",
    "input",
    "resize",
    "capture",
    "pane_size",
    "pane_cursor",
    "log_read",
    "tail_start",
    "tail_stop",
    "stat_dir",
    "path_exists",
    "fs_ls",
    "write_file",
    "remove_paths",
    "set_allowed_dirs",
    "service",
    "agent_log_read",
    "set_server_url",
    "set_log_level",
    "set_maintenance",
    "update",
    "probe",
    "inventory",
    "detect",
    "ping",
];
