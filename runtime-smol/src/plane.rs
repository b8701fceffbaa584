//! The plane's link driver: runs one [`PlaneLink`] over one upgraded `/ws/node` socket.
//!
//! Each wake does a bounded amount of work: it waits for whichever comes first of an inbound
//! message, a command from the plane, or the machine's next deadline (one timer for the socket's
//! life, see `deadline.rs`), feeds it, then drains the machine's actions in order. Decisions
//! ([`PlaneAction::CheckBinding`], [`PlaneAction::ClaimPin`]) are answered through the caller's
//! [`PlaneHooks`] and fed straight back; everything the plane must mirror (authenticated,
//! identity, online, held, events) goes to [`PlaneHooks::effect`].
//!
//! Commands correlate here: a [`Dispatch`] is sealed by the machine (which assigns its `seq`) and
//! its reply channel waits in this connection's table under its jti. Only a `result` event read
//! from *this* socket settles it; when the socket ends, the table is dropped and every waiting
//! caller sees its channel close. A result is handed over only if it is well formed.
//!
//! Closes are the machine's: the driver carries out [`PlaneAction::Close`], including the
//! silence close of an online link (the machine's timer; pings and pongs count as traffic and are
//! fed as [`PlaneInput::Alive`]). After a 1009 the driver shuts its side and reads and discards
//! the rest of the oversize message ([`ws::close_discarding`]), so the socket is not reset with
//! input unread and the close frame reaches the node. Two transport-level endings sit below the
//! machine and are fed to it as `PeerClosed`: a WebSocket protocol violation (the driver answers
//! 1002, as RFC 6455 requires) and a send that stalls for [`PlaneDriverOptions::send_timeout`].
//!
//! A `result` that does not decode but names a pending `ref` ([`PlaneAction::MalformedResult`])
//! settles that dispatch at once with [`DispatchOutcome::Malformed`].

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use async_tungstenite::WebSocketStream;
use futures_lite::{AsyncRead, AsyncWrite, FutureExt};
use smol::channel::{Receiver, Sender};
use termplane_machines::plane_link::{
    BindingRefusal, PlaneAction, PlaneInput, PlaneLink, SendError,
};
use termplane_proto::{CloseCode, CommandResult, Event, Key32};

use crate::Clock;
use crate::ws::{self, Inbound};

/// How many inbound messages and commands one wake may handle before yielding.
const MAX_ITEMS_PER_WAKE: usize = 32;

/// Driver settings.
#[derive(Clone, Copy, Debug)]
pub struct PlaneDriverOptions {
    /// The machine's silence limit for an online link
    /// ([`termplane_proto::limits::NODE_SILENCE_LIMIT`] unless a test shortens it).
    pub silence_limit: Duration,
    /// A single send that cannot complete within this long (the peer stopped reading) ends the
    /// connection.
    pub send_timeout: Duration,
}

impl Default for PlaneDriverOptions {
    fn default() -> Self {
        Self {
            silence_limit: termplane_proto::limits::NODE_SILENCE_LIMIT,
            send_timeout: Duration::from_secs(30),
        }
    }
}

/// What the plane asks a running link to do.
pub enum PlaneCommand {
    /// Send a signed command and settle `reply` with its result.
    Dispatch(Dispatch),
    /// A newer connection with the same identity won (4409).
    Superseded,
    /// The node key was rotated or the node deleted (4401).
    KeyRotatedOrDeleted,
    /// The plane is shutting down (1000).
    Shutdown,
}

impl core::fmt::Debug for PlaneCommand {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Dispatch(d) => write!(f, "Dispatch({})", d.jti),
            Self::Superseded => f.write_str("Superseded"),
            Self::KeyRotatedOrDeleted => f.write_str("KeyRotatedOrDeleted"),
            Self::Shutdown => f.write_str("Shutdown"),
        }
    }
}

/// A command to send.
pub struct Dispatch {
    /// The command's jti (its result's `ref`).
    pub jti: String,
    /// Whether it is `update` (the only command a held link carries).
    pub is_update: bool,
    /// Signs the envelope for the `seq` the machine assigns.
    pub sign: Box<dyn FnOnce(u64) -> String + Send>,
    /// Receives the outcome.
    pub reply: Sender<DispatchOutcome>,
}

/// How a dispatch ended on this connection.
#[derive(Clone, Debug, PartialEq)]
pub enum DispatchOutcome {
    /// The machine refused to send it.
    NotSent(SendError),
    /// The node's well-formed result.
    Result(CommandResult),
    /// A result with this ref arrived but was malformed.
    Malformed,
}

/// The caller's side of a link: decisions and effects.
pub trait PlaneHooks {
    /// Re-verify the binding's node key for this row and record the ephemeral key.
    fn check_binding(
        &mut self,
        node_key: String,
        ephemeral: Key32,
    ) -> impl Future<Output = Result<(), BindingRefusal>> + Send;
    /// Write `key` as the row's pin if it is still unpinned.
    fn claim_pin(&mut self, key: Key32) -> impl Future<Output = bool> + Send;
    /// Mirror one effect (`Authenticated`, `PersistIdentity`, `Online`, `Held`, an uncorrelated
    /// `Event`, `Discarded`, and the final `Close` for the record).
    fn effect(&mut self, action: PlaneAction) -> impl Future<Output = ()> + Send;
}

/// How the connection ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkEnd {
    /// The machine closed it with this code.
    Closed(u16),
    /// The peer closed it (or the transport failed).
    PeerClosed(Option<u16>),
    /// A WebSocket protocol violation (answered with 1002).
    ProtocolViolation,
    /// A send stalled (the peer stopped reading).
    Stalled,
}

enum Wake {
    In(Inbound),
    Cmd(Option<PlaneCommand>),
    Timer,
}

/// Runs `machine` over `ws` until the link ends.
pub async fn run<S, H, C>(
    mut ws: WebSocketStream<S>,
    mut machine: PlaneLink,
    hooks: &mut H,
    commands: Receiver<PlaneCommand>,
    clock: &C,
    opts: PlaneDriverOptions,
) -> LinkEnd
where
    S: AsyncRead + AsyncWrite + Unpin + Send,
    H: PlaneHooks + Send,
    C: Clock + Sync,
{
    let mut pending: HashMap<String, Sender<DispatchOutcome>> = HashMap::new();
    let mut commands_open = true;
    let mut streak = 0usize;
    machine.set_silence_limit(opts.silence_limit);
    let mut deadline = crate::deadline::Deadline::new();
    loop {
        // Drain whatever the last input produced.
        if let Some(end) = drain(&mut ws, &mut machine, hooks, &mut pending, clock, opts).await {
            return end;
        }
        // Per-wake work is one input plus its actions; a streak of always-ready inputs (a flood)
        // hands the executor back regularly.
        streak += 1;
        if streak >= MAX_ITEMS_PER_WAKE {
            streak = 0;
            futures_lite::future::yield_now().await;
        }
        deadline.arm(machine.poll_timeout().map(|(at, _)| at));
        let wake = wait(&mut ws, &commands, commands_open, &mut deadline).await;
        let now = clock.now();
        match wake {
            Wake::In(inbound) => match inbound {
                Inbound::Control => machine.handle_input(PlaneInput::Alive, now),
                Inbound::Text(t) => machine.handle_input(PlaneInput::Text(&t), now),
                Inbound::Binary(b) => machine.handle_input(PlaneInput::Binary(&b), now),
                Inbound::Oversize(len) => {
                    machine.handle_input(PlaneInput::Oversize { len }, now);
                }
                Inbound::ProtocolViolation(why) => {
                    tracing::debug!(node = machine.node_id(), %why, "websocket protocol violation");
                    machine.handle_input(PlaneInput::PeerClosed { code: None }, now);
                    drain_effects_only(&mut machine, hooks).await;
                    let _ = ws::close(&mut ws, 1002, "protocol error").await;
                    return LinkEnd::ProtocolViolation;
                }
                Inbound::Closed { code, .. } => {
                    machine.handle_input(PlaneInput::PeerClosed { code }, now);
                    drain_effects_only(&mut machine, hooks).await;
                    return LinkEnd::PeerClosed(code);
                }
            },
            Wake::Cmd(None) => commands_open = false,
            Wake::Cmd(Some(cmd)) => match cmd {
                PlaneCommand::Superseded => machine.handle_input(PlaneInput::Superseded, now),
                PlaneCommand::KeyRotatedOrDeleted => {
                    machine.handle_input(PlaneInput::KeyRotatedOrDeleted, now);
                }
                PlaneCommand::Shutdown => machine.handle_input(PlaneInput::Shutdown, now),
                PlaneCommand::Dispatch(d) => {
                    pending.retain(|_, tx| !tx.is_closed());
                    match machine.send_command(&d.jti, d.is_update, now, d.sign) {
                        Ok(_seq) => {
                            pending.insert(d.jti, d.reply);
                        }
                        Err(e) => {
                            let _ = d.reply.try_send(DispatchOutcome::NotSent(e));
                        }
                    }
                }
            },
            Wake::Timer => machine.handle_timeout(now),
        }
    }
}

async fn wait<S>(
    ws: &mut WebSocketStream<S>,
    commands: &Receiver<PlaneCommand>,
    commands_open: bool,
    deadline: &mut crate::deadline::Deadline,
) -> Wake
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let inbound = async { Wake::In(ws::next_inbound(ws).await) };
    let cmd = async {
        if commands_open {
            Wake::Cmd(commands.recv().await.ok())
        } else {
            futures_lite::future::pending().await
        }
    };
    let timer = async {
        deadline.fired().await;
        Wake::Timer
    };
    // Commands first so a flood of inbound frames cannot starve a shutdown.
    cmd.or(inbound).or(timer).await
}

/// Carries out every queued action; `Some` when the link ended.
async fn drain<S, H, C>(
    ws: &mut WebSocketStream<S>,
    machine: &mut PlaneLink,
    hooks: &mut H,
    pending: &mut HashMap<String, Sender<DispatchOutcome>>,
    clock: &C,
    opts: PlaneDriverOptions,
) -> Option<LinkEnd>
where
    S: AsyncRead + AsyncWrite + Unpin + Send,
    H: PlaneHooks + Send,
    C: Clock + Sync,
{
    while let Some(action) = machine.poll_action() {
        match action {
            PlaneAction::SendText(t) => {
                if !timed(ws::send_text(ws, t), opts.send_timeout).await {
                    machine.handle_input(PlaneInput::PeerClosed { code: None }, clock.now());
                    return Some(LinkEnd::Stalled);
                }
            }
            PlaneAction::SendBinary(b) => {
                if !timed(ws::send_binary(ws, b), opts.send_timeout).await {
                    machine.handle_input(PlaneInput::PeerClosed { code: None }, clock.now());
                    return Some(LinkEnd::Stalled);
                }
            }
            PlaneAction::Close { code, reason } => {
                let c = code.as_u16();
                hooks
                    .effect(PlaneAction::Close {
                        code,
                        reason: reason.clone(),
                    })
                    .await;
                if code == CloseCode::TooBig {
                    ws::close_discarding(ws, c, &reason).await;
                } else {
                    ws::close(ws, c, &reason).await;
                }
                return Some(LinkEnd::Closed(c));
            }
            PlaneAction::CheckBinding {
                node_key,
                ephemeral,
            } => {
                let verdict = hooks.check_binding(node_key, ephemeral).await;
                machine.handle_input(PlaneInput::BindingVerdict(verdict), clock.now());
            }
            PlaneAction::ClaimPin(key) => {
                let ok = hooks.claim_pin(key).await;
                machine.handle_input(PlaneInput::PinClaimVerdict(ok), clock.now());
            }
            PlaneAction::MalformedResult { reference, reason }
                if pending.contains_key(&reference) =>
            {
                tracing::debug!(node = machine.node_id(), %reason, "malformed result");
                if let Some(tx) = pending.remove(&reference) {
                    let _ = tx.try_send(DispatchOutcome::Malformed);
                }
            }
            PlaneAction::Event(Event::Result(r)) if pending.contains_key(&r.reference) => {
                if let Some(tx) = pending.remove(&r.reference) {
                    let outcome = if r.is_well_formed() {
                        DispatchOutcome::Result(r)
                    } else {
                        DispatchOutcome::Malformed
                    };
                    let _ = tx.try_send(outcome);
                }
            }
            other => hooks.effect(other).await,
        }
    }
    None
}

/// After the peer went away: pass any remaining effects on (the machine emits no sends then).
async fn drain_effects_only<H: PlaneHooks + Send>(machine: &mut PlaneLink, hooks: &mut H) {
    while let Some(action) = machine.poll_action() {
        if !matches!(
            action,
            PlaneAction::SendText(_) | PlaneAction::SendBinary(_)
        ) {
            hooks.effect(action).await;
        }
    }
}

async fn timed(f: impl Future<Output = bool>, limit: Duration) -> bool {
    f.or(async {
        smol::Timer::after(limit).await;
        false
    })
    .await
}
