//! The node's link driver: runs one [`AgentLink`] for the daemon's life, dialing the plane's
//! `/ws/node` with `Authorization: Bearer <nodeKey>` over a plain TCP client socket.
//!
//! ```text
//! runtime_smol::agent::run(config, AgentOptions { url, .. }, executor, control) -> AgentOutcome
//! ```
//!
//! Verified commands are handed to the caller's [`Executor`] in arrival order, across
//! reconnects, each as soon as its replay record is persisted: the driver does not wait for one
//! answer before handing over the next, so the executor decides what runs in order and what may
//! run beside it. Answers go back through the machine (which caches them against their jti) in
//! the order they finish. Each wake handles one input — an inbound message, a finished command,
//! a control message or a deadline — and then the machine's actions.
//!
//! `ws://` is dialed over plain TCP and `wss://` over TLS ([`crate::tls`]: the system's roots
//! plus `TERMPLANE_CA_FILE`, certificate and host name always verified, SNI = the URL's host)
//! before the WebSocket upgrade. A failed dial is reported with its one-line cause
//! ([`AgentReport::DialError`]) and the machine backs off.
//!
//! Between the socket and tungstenite sits [`CappedRead`]: an inbound message above 1 MiB is
//! dropped there and reported to the machine, and the link stays up. The machine's heartbeat
//! asks for a WebSocket ping; pings and pongs from the plane are fed as
//! [`AgentInput::Alive`], so a plane that stops answering is noticed ([`AgentOptions`]
//! `silence_limit`).
//!
//! Closes are never lost: when a send fails (a plane that closed and dropped its socket at once),
//! the driver reads what is still buffered for the plane's close frame before it reports the
//! socket gone; and the plane's close frame read while this side was closing is handed to the
//! machine too. Every terminal close therefore reaches the machine, in every phase.
//!
//! Before executing a command the driver asks the executor to persist its replay record
//! ([`Executor::record_admission`]); a command whose record cannot be persisted is not run.

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use async_tungstenite::WebSocketStream;
use async_tungstenite::tungstenite::client::IntoClientRequest;
use async_tungstenite::tungstenite::http::HeaderValue;
use futures_lite::FutureExt;
use futures_lite::io::{AsyncRead, AsyncWrite};
use futures_rustls::client::TlsStream;
use smol::channel::{Receiver, Sender};
use smol::net::TcpStream;
use termplane_machines::agent_link::{AgentAction, AgentConfig, AgentInput, AgentLink};
use termplane_machines::replay::ReplayRecord;
use termplane_proto::event::{Heartbeat, Inventory, SubshellsReport};
use termplane_proto::limits::MAX_FRAME_BYTES;
use termplane_proto::{Command, CommandResult, Event, Key32, Ready};

use crate::capped::{CappedRead, DroppedFrames};
use crate::ws::{self, Inbound};
use crate::{Clock, EntropyError, os_seed};

/// A boxed future the executor returns.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// What the node does with verified commands, and the node-side facts the link sends.
pub trait Executor: Send + Sync + 'static {
    /// Executes one verified, admitted command. Commands arrive in arrival order, each without
    /// waiting for the answers of those before it: running them one at a time, in that order, is
    /// the executor's to do. Answers may finish in any order; each is matched by its jti.
    fn execute(&self, jti: String, command: Command) -> BoxFuture<CommandResult>;

    /// The events sent right after each establishment (census first, then inventory).
    fn on_established(&self, at: String) -> Vec<Event> {
        vec![
            Event::SubshellsReport(SubshellsReport { subshells: vec![] }),
            Event::Inventory(Inventory {
                harnesses: vec![],
                at,
            }),
        ]
    }

    /// The events of one heartbeat tick (the heartbeat itself, then anything the node sends on
    /// that tick, such as a changed maintenance mirror).
    fn heartbeat(&self, at: String) -> Vec<Event> {
        vec![Event::Heartbeat(Heartbeat { at })]
    }

    /// A fresh `ready` frame for the next establishment (`None` keeps the current one). Asked
    /// before every dial, so the runtime snapshot and the maintenance mirror stay current.
    fn ready(&self) -> Option<Ready> {
        None
    }

    /// The periodic inventory push.
    fn inventory(&self, at: String) -> Event {
        Event::Inventory(Inventory {
            harnesses: vec![],
            at,
        })
    }

    /// Persist (`Some`) or forget (`None`) the plane's link key as the control pin.
    fn persist_control_pin(&self, pin: Option<Key32>) {
        let _ = pin;
    }

    /// Persist what the next process of this node needs to refuse `record`'s command (its jti,
    /// digest and `iat`), before the command runs. An error keeps the command from running.
    fn record_admission(&self, record: &ReplayRecord) -> Result<(), String> {
        let _ = record;
        Ok(())
    }
}

/// The refusal of a command whose replay record could not be persisted.
pub const NOT_RECORDED: &str = "cannot record the command for replay protection";

/// Driver settings.
#[derive(Clone, Debug)]
pub struct AgentOptions {
    /// The plane's `wsUrl` (`ws://host:port/path` or `wss://host:port/path`).
    pub url: String,
    /// The TLS client configuration for a `wss://` URL; `None` builds it on the first such dial
    /// from the system's roots and `TERMPLANE_CA_FILE` ([`crate::tls::client_config_from_env`]).
    pub tls: Option<Arc<rustls::ClientConfig>>,
    /// Bound on one dial (TCP connect plus the upgrade).
    pub dial_timeout: Duration,
    /// A single send that cannot complete within this long drops the socket.
    pub send_timeout: Duration,
    /// Where notable moments are reported (tests and logs); `None` for none.
    pub reports: Option<Sender<AgentReport>>,
    /// How long the plane may stay silent on an established link
    /// ([`termplane_proto::limits::PLANE_SILENCE_LIMIT`] when `None`; tests shorten it).
    pub silence_limit: Option<Duration>,
}

impl AgentOptions {
    /// Options for `url` with the default bounds.
    #[must_use]
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            tls: None,
            dial_timeout: Duration::from_secs(10),
            send_timeout: Duration::from_secs(30),
            reports: None,
            silence_limit: None,
        }
    }
}

/// Something worth knowing about the link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentReport {
    /// A socket opened.
    Opened,
    /// A dial failed; `status` is the HTTP status when the upgrade was refused.
    DialFailed {
        /// The refusal's status.
        status: Option<u16>,
    },
    /// Why the dial reported next as [`AgentReport::DialFailed`] failed, in one line (for
    /// example an untrusted certificate, or a refused connection).
    DialError(String),
    /// The link is established (after `ready` was sent).
    Established,
    /// The plane closed the socket (or it broke).
    Closed {
        /// Close code.
        code: Option<u16>,
        /// Reason.
        reason: String,
    },
    /// This side closed the socket.
    ClosedByAgent {
        /// Close code.
        code: u16,
    },
    /// The control pin was stored (register-ok) or dropped (4411).
    ControlPin(Option<String>),
    /// The machine told the process to exit.
    Exit {
        /// Roll back first.
        rollback: bool,
        /// Why.
        reason: String,
    },
    /// A log line from the machine.
    Note(String),
}

/// Control messages for a running agent.
#[derive(Clone, Debug)]
pub enum AgentControl {
    /// Close the link (1000) and return.
    Shutdown,
    /// Send an event the node produced on its own (`output`, `exit`, `maintenance`); lost when
    /// the link is not established, as the protocol allows.
    Send(Box<Event>),
}

/// How [`run`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentOutcome {
    /// The plane told the node to exit (4406 or 4409).
    Exit {
        /// Roll back a just-installed binary first (4406).
        rollback: bool,
        /// The plane's reason.
        reason: String,
    },
    /// [`AgentControl::Shutdown`] was received (or the control channel closed).
    Shutdown,
}

/// Why the agent could not start.
#[derive(Debug, thiserror::Error)]
pub enum AgentStartError {
    /// No OS randomness.
    #[error(transparent)]
    Entropy(#[from] EntropyError),
    /// The configured signing key is unusable.
    #[error("signing key unusable: {0}")]
    Key(String),
}

type Socket = WebSocketStream<CappedRead<LinkStream>>;

/// The byte stream under the link's WebSocket: plain TCP for `ws://`, TLS over TCP for `wss://`.
#[derive(Debug)]
pub enum LinkStream {
    /// `ws://`.
    Plain(TcpStream),
    /// `wss://`.
    Tls(Box<TlsStream<TcpStream>>),
}

impl AsyncRead for LinkStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for LinkStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_flush(cx),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_close(cx),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_close(cx),
        }
    }
}

enum Wake {
    In(Inbound),
    Done(CommandResult),
    Control(Option<AgentControl>),
    Timer,
}

struct Runner<'a, C: Clock> {
    machine: AgentLink,
    node_key: String,
    socket: Option<Socket>,
    opts: &'a AgentOptions,
    executor: &'a dyn Executor,
    clock: &'a C,
    queue: VecDeque<(String, Command, ReplayRecord)>,
    running: Vec<BoxFuture<CommandResult>>,
    outcome: Option<AgentOutcome>,
}

/// Runs the node's link until the plane says exit or `control` says shut down.
pub async fn run<C: Clock + Sync>(
    config: AgentConfig,
    opts: AgentOptions,
    executor: &dyn Executor,
    control: Receiver<AgentControl>,
    clock: &C,
) -> Result<AgentOutcome, AgentStartError> {
    let node_key = config.node_key.clone();
    let mut machine = AgentLink::new(config, os_seed()?, clock.now())
        .map_err(|e| AgentStartError::Key(e.to_string()))?;
    if let Some(limit) = opts.silence_limit {
        machine.set_silence_limit(limit);
    }
    let mut r = Runner {
        machine,
        node_key,
        socket: None,
        opts: &opts,
        executor,
        clock,
        queue: VecDeque::new(),
        running: Vec::new(),
        outcome: None,
    };
    let mut control_open = true;
    let mut streak = 0usize;
    let mut deadline = crate::deadline::Deadline::new();
    loop {
        r.drain().await;
        if let Some(outcome) = r.outcome.take() {
            return Ok(outcome);
        }
        if let Some((jti, command, record)) = r.queue.pop_front() {
            match executor.record_admission(&record) {
                Ok(()) => r.running.push(executor.execute(jti, command)),
                Err(e) => {
                    r.report(AgentReport::Note(format!("{NOT_RECORDED}: {e}")));
                    r.machine
                        .record_result(CommandResult::err_with_detail(jti, NOT_RECORDED, e));
                }
            }
            continue;
        }
        streak += 1;
        if streak >= 32 {
            streak = 0;
            futures_lite::future::yield_now().await;
        }
        deadline.arm(r.machine.poll_timeout().map(|(at, _)| at));
        let wake = wait(
            &mut r.socket,
            &mut r.running,
            &control,
            control_open,
            &mut deadline,
        )
        .await;
        let now = clock.now();
        let unix = clock.unix();
        match wake {
            Wake::In(inbound) => match inbound {
                Inbound::Control => {
                    let dropped = r
                        .socket
                        .as_ref()
                        .map(|s| s.get_ref().dropped().take())
                        .unwrap_or_default();
                    for len in dropped {
                        r.machine
                            .handle_input(AgentInput::Oversize { len }, now, unix);
                    }
                    r.machine.handle_input(AgentInput::Alive, now, unix);
                }
                Inbound::Text(t) => r.machine.handle_input(AgentInput::Text(&t), now, unix),
                Inbound::Binary(b) => r.machine.handle_input(AgentInput::Binary(&b), now, unix),
                Inbound::Oversize(len) => {
                    // [`CappedRead`] drops oversize messages before tungstenite sees them; one
                    // that still reaches it (it arrived with the upgrade response itself) leaves
                    // tungstenite's reader out of step: the socket is dropped.
                    r.machine
                        .handle_input(AgentInput::Oversize { len }, now, unix);
                    r.socket = None;
                    r.machine.handle_input(
                        AgentInput::Closed {
                            code: None,
                            reason: "oversize frame",
                        },
                        now,
                        unix,
                    );
                }
                Inbound::ProtocolViolation(why) => {
                    if let Some(mut s) = r.socket.take() {
                        let _ = ws::close(&mut s, 1002, "protocol error").await;
                    }
                    r.report(AgentReport::Closed {
                        code: None,
                        reason: why.clone(),
                    });
                    r.machine.handle_input(
                        AgentInput::Closed {
                            code: None,
                            reason: &why,
                        },
                        now,
                        unix,
                    );
                }
                Inbound::Closed { code, reason } => {
                    r.socket = None;
                    r.report(AgentReport::Closed {
                        code,
                        reason: reason.clone(),
                    });
                    r.machine.handle_input(
                        AgentInput::Closed {
                            code,
                            reason: &reason,
                        },
                        now,
                        unix,
                    );
                }
            },
            Wake::Done(result) => r.machine.record_result(result),
            Wake::Control(None) => control_open = false,
            Wake::Control(Some(AgentControl::Send(event))) => {
                r.machine.send_event(&event);
            }
            Wake::Control(Some(AgentControl::Shutdown)) => {
                r.machine.shutdown();
                r.drain().await;
                if let Some(mut s) = r.socket.take() {
                    let _ = ws::close(&mut s, 1000, "node shutting down").await;
                }
                return Ok(AgentOutcome::Shutdown);
            }
            Wake::Timer => r.machine.handle_timeout(now),
        }
    }
}

async fn wait(
    socket: &mut Option<Socket>,
    running: &mut Vec<BoxFuture<CommandResult>>,
    control: &Receiver<AgentControl>,
    control_open: bool,
    deadline: &mut crate::deadline::Deadline,
) -> Wake {
    let ctl = async {
        if control_open {
            Wake::Control(control.recv().await.ok())
        } else {
            futures_lite::future::pending().await
        }
    };
    let inbound = async {
        match socket.as_mut() {
            Some(s) => Wake::In(ws::next_inbound(s).await),
            None => futures_lite::future::pending().await,
        }
    };
    // The first command to finish, of all those handed over (pending while there are none).
    let done = futures_lite::future::poll_fn(|cx| {
        let finished =
            running
                .iter_mut()
                .enumerate()
                .find_map(|(i, f)| match f.as_mut().poll(cx) {
                    Poll::Ready(result) => Some((i, result)),
                    Poll::Pending => None,
                });
        match finished {
            Some((i, result)) => {
                drop(running.swap_remove(i));
                Poll::Ready(Wake::Done(result))
            }
            None => Poll::Pending,
        }
    });
    let timer = async {
        deadline.fired().await;
        Wake::Timer
    };
    // The order settles ties: a steady stream of control messages (output events) must not
    // starve the socket, a finished command or the timers.
    inbound.or(done).or(timer).or(ctl).await
}

impl<C: Clock + Sync> Runner<'_, C> {
    fn report(&self, r: AgentReport) {
        if let Some(tx) = &self.opts.reports {
            let _ = tx.try_send(r);
        }
    }

    fn at(&self) -> String {
        termplane_proto::time::iso8601_utc_millis(self.clock.unix_millis())
    }

    async fn drain(&mut self) {
        while let Some(action) = self.machine.poll_action() {
            match action {
                AgentAction::Dial => {
                    self.socket = None;
                    if let Some(ready) = self.executor.ready() {
                        self.machine.set_ready(ready);
                    }
                    let limit = self.opts.dial_timeout;
                    let dialed = dial(self.opts, &self.node_key)
                        .or(async {
                            smol::Timer::after(limit).await;
                            Err(DialError {
                                status: None,
                                reason: format!(
                                    "{}: no connection within {limit:?}",
                                    self.opts.url
                                ),
                                retry_after: None,
                            })
                        })
                        .await;
                    let (now, unix) = (self.clock.now(), self.clock.unix());
                    match dialed {
                        Ok(s) => {
                            self.socket = Some(s);
                            self.report(AgentReport::Opened);
                            self.machine.handle_input(AgentInput::Opened, now, unix);
                        }
                        Err(DialError {
                            status,
                            reason,
                            retry_after,
                        }) => {
                            tracing::debug!(%reason, "node link dial failed");
                            self.report(AgentReport::DialError(reason));
                            self.report(AgentReport::DialFailed { status });
                            self.machine.handle_input(
                                AgentInput::DialFailed { retry_after },
                                now,
                                unix,
                            );
                        }
                    }
                }
                AgentAction::SendText(t) => {
                    let ok = match self.socket.as_mut() {
                        Some(s) => timed(ws::send_text(s, t), self.opts.send_timeout).await,
                        None => false,
                    };
                    if !ok {
                        self.lost_socket().await;
                    }
                }
                AgentAction::SendBinary(b) => {
                    let ok = match self.socket.as_mut() {
                        Some(s) => timed(ws::send_binary(s, b), self.opts.send_timeout).await,
                        None => false,
                    };
                    if !ok {
                        self.lost_socket().await;
                    }
                }
                AgentAction::Ping => {
                    let ok = match self.socket.as_mut() {
                        Some(s) => timed(ws::send_ping(s), self.opts.send_timeout).await,
                        None => true,
                    };
                    if !ok {
                        self.lost_socket().await;
                    }
                }
                AgentAction::Close { code, reason } => {
                    let crossed = match self.socket.take() {
                        Some(mut s) => ws::close(&mut s, code.as_u16(), &reason).await,
                        None => None,
                    };
                    self.report(AgentReport::ClosedByAgent {
                        code: code.as_u16(),
                    });
                    // The plane's own close may have crossed ours: a terminal one still counts.
                    if let Some(peer) = crossed
                        && peer.code != Some(code.as_u16())
                    {
                        self.report(AgentReport::Closed {
                            code: peer.code,
                            reason: peer.reason.clone(),
                        });
                        self.machine.handle_input(
                            AgentInput::Closed {
                                code: peer.code,
                                reason: &peer.reason,
                            },
                            self.clock.now(),
                            self.clock.unix(),
                        );
                    }
                }
                AgentAction::PersistControlPin(k) => {
                    self.executor.persist_control_pin(Some(k));
                    self.report(AgentReport::ControlPin(Some(k.to_b64())));
                }
                AgentAction::DropControlPin => {
                    self.executor.persist_control_pin(None);
                    self.report(AgentReport::ControlPin(None));
                }
                AgentAction::Established => {
                    self.report(AgentReport::Established);
                    for e in self.executor.on_established(self.at()) {
                        self.machine.send_event(&e);
                    }
                }
                AgentAction::HeartbeatDue => {
                    for e in self.executor.heartbeat(self.at()) {
                        self.machine.send_event(&e);
                    }
                }
                AgentAction::InventoryDue => {
                    let e = self.executor.inventory(self.at());
                    self.machine.send_event(&e);
                }
                AgentAction::Execute {
                    jti,
                    command,
                    record,
                } => {
                    self.queue.push_back((jti, *command, record));
                }
                AgentAction::Exit { rollback, reason } => {
                    if let Some(mut s) = self.socket.take() {
                        // The plane already closed; answer its close frame if it is still there.
                        let _ = ws::close(&mut s, 1000, "").await;
                    }
                    self.report(AgentReport::Exit {
                        rollback,
                        reason: reason.clone(),
                    });
                    self.outcome = Some(AgentOutcome::Exit { rollback, reason });
                }
                AgentAction::Note(n) => {
                    tracing::debug!(note = %n, "node link");
                    self.report(AgentReport::Note(n));
                }
            }
        }
    }

    /// A send failed: the socket is gone, but the plane's close frame may still be waiting in
    /// the receive buffer (a plane that closes and drops its socket at once). It is looked for
    /// before the machine hears of the end, so that a terminal close is never lost.
    async fn lost_socket(&mut self) {
        let Some(mut s) = self.socket.take() else {
            return;
        };
        let peer = ws::pending_close(&mut s).await;
        drop(s);
        let (code, reason) = match peer {
            Some(p) => (p.code, p.reason),
            None => (None, "send failed".to_owned()),
        };
        self.report(AgentReport::Closed {
            code,
            reason: reason.clone(),
        });
        self.machine.handle_input(
            AgentInput::Closed {
                code,
                reason: &reason,
            },
            self.clock.now(),
            self.clock.unix(),
        );
    }
}

async fn timed(f: impl Future<Output = bool>, limit: Duration) -> bool {
    f.or(async {
        smol::Timer::after(limit).await;
        false
    })
    .await
}

/// Why a dial failed: the HTTP status when the upgrade was refused with one, and a one-line
/// cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialError {
    /// The refusal's status.
    pub status: Option<u16>,
    /// What went wrong.
    pub reason: String,
    /// The refusal's `Retry-After`, when it gave one in seconds.
    pub retry_after: Option<Duration>,
}

/// Opens `url` (`ws://` or `wss://`) and performs the WebSocket upgrade with the bearer
/// `node_key`. A `wss://` dial uses `tls`, or the configuration from the system's roots and
/// `TERMPLANE_CA_FILE` when `None`.
pub async fn dial_link(
    url: &str,
    tls: Option<&Arc<rustls::ClientConfig>>,
    node_key: &str,
) -> Result<WebSocketStream<CappedRead<LinkStream>>, DialError> {
    dial_websocket(url, tls, Some(&format!("Bearer {node_key}"))).await
}

/// Opens `url` (`ws://` or `wss://`) and performs the WebSocket upgrade, with `authorization`
/// as its `Authorization` header when given (the node's dial, and the plane's dial of a
/// replica of its cluster, whose proof is made inside the socket). The socket's caps are the
/// link's ([`ws::link_config`]).
pub async fn dial_websocket(
    url: &str,
    tls: Option<&Arc<rustls::ClientConfig>>,
    authorization: Option<&str>,
) -> Result<WebSocketStream<CappedRead<LinkStream>>, DialError> {
    let fail = |reason: String| DialError {
        status: None,
        reason,
        retry_after: None,
    };
    let mut request = url
        .into_client_request()
        .map_err(|e| fail(format!("{url}: not a usable WebSocket URL ({e})")))?;
    if let Some(a) = authorization {
        let value = HeaderValue::from_str(a)
            .map_err(|_| fail("the credential cannot be sent as a header".into()))?;
        request.headers_mut().insert("authorization", value);
    }
    let uri = request.uri().clone();
    let secure = match uri.scheme_str() {
        Some("ws") => false,
        Some("wss") => true,
        _ => return Err(fail(format!("{url}: only ws:// and wss:// can be dialed"))),
    };
    let host = uri
        .host()
        .ok_or_else(|| fail(format!("{url}: no host")))?
        .trim_start_matches('[')
        .trim_end_matches(']');
    let port = uri.port_u16().unwrap_or(if secure { 443 } else { 80 });
    let target = format!(
        "{}://{}",
        if secure { "wss" } else { "ws" },
        authority(host, port)
    );
    let tcp = TcpStream::connect((host, port))
        .await
        .map_err(|e| fail(format!("{target}: cannot connect: {e}")))?;
    let _ = tcp.set_nodelay(true);
    let stream = if secure {
        let config = match tls {
            Some(c) => Arc::clone(c),
            None => {
                crate::tls::client_config_from_env().map_err(|e| fail(format!("{target}: {e}")))?
            }
        };
        let name = crate::tls::server_name(host).map_err(|e| fail(format!("{target}: {e}")))?;
        let tls = futures_rustls::TlsConnector::from(config)
            .connect(name, tcp)
            .await
            .map_err(|e| fail(crate::tls::describe(&target, &e)))?;
        LinkStream::Tls(Box::new(tls))
    } else {
        LinkStream::Plain(tcp)
    };
    let stream = CappedRead::new(stream, MAX_FRAME_BYTES, DroppedFrames::default());
    match async_tungstenite::client_async_with_config(request, stream, Some(ws::link_config()))
        .await
    {
        Ok((s, _response)) => Ok(s),
        Err(async_tungstenite::tungstenite::Error::Http(resp)) => Err(DialError {
            status: Some(resp.status().as_u16()),
            reason: format!(
                "{target}: the upgrade was refused with HTTP {}",
                resp.status()
            ),
            retry_after: retry_after(resp.headers()),
        }),
        Err(e) => Err(fail(format!("{target}: the WebSocket upgrade failed: {e}"))),
    }
}

/// A refusal's `Retry-After` in whole seconds (RFC 9110 §10.2.3); the HTTP-date form is not
/// used by the plane and reads as absent.
fn retry_after(headers: &async_tungstenite::tungstenite::http::HeaderMap) -> Option<Duration> {
    let v = headers.get("retry-after")?.to_str().ok()?.trim();
    if v.is_empty() || v.len() > 9 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse().ok().map(Duration::from_secs)
}

/// `host:port`, bracketing an IPv6 address.
fn authority(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Opens `opts.url` with the bearer node key.
async fn dial(opts: &AgentOptions, node_key: &str) -> Result<Socket, DialError> {
    dial_link(&opts.url, opts.tls.as_ref(), node_key).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use async_tungstenite::tungstenite::http::{HeaderMap, HeaderValue};

    fn with(value: &'static str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static(value));
        h
    }

    /// Whole seconds are read; a date, a negative, a fraction, an empty value and a number
    /// too long to mean anything are absent.
    #[test]
    fn retry_after_reads_whole_seconds_only() {
        assert_eq!(retry_after(&with("5")), Some(Duration::from_secs(5)));
        assert_eq!(retry_after(&with(" 60 ")), Some(Duration::from_secs(60)));
        for bad in [
            "",
            "-1",
            "1.5",
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "9999999999",
        ] {
            assert_eq!(retry_after(&with(bad)), None, "{bad:?}");
        }
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }
}
