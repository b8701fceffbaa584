//! `GET /api/subshells/{id}/attach?token=…`: the terminal WebSocket, one contract for panes on
//! the local node and on remote nodes.
//!
//! Before the 101 answer, in the spec's order: the attach token is spent and checked, the viewer
//! joins the pane's pump (the node's tail runs from then on), the pane is fitted to the smallest
//! grid of the viewers that take part in sizing, and the replay is read (with the pane's real
//! grid). Any refusal on the way is an HTTP error body and leaves the pump again. After the
//! upgrade the socket sends `attached`, the replay as one binary frame, then live output;
//! presence (each viewer's grid, whether it takes part in sizing, who holds the grid) goes to
//! every viewer.
//!
//! Keys a viewer sends go to a typist beside its socket, in order; when the socket ends, the
//! keys it took are typed (or refused, when the plane ended it) before the close frame.
//!
//! The socket never takes the caller's own credential (only the token in the query, which the
//! request log leaves out), and a browser upgrade (one with `Origin`) must come from a trusted
//! origin. Frames and close codes: [`crate::api::terminals`] and the `/docs/terminal` page.

use std::sync::Arc;
use std::time::Duration;

use async_tungstenite::WebSocketStream;
use async_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use async_tungstenite::tungstenite::{Bytes, Message, Utf8Bytes};
use futures_lite::io::AsyncWriteExt as _;
use futures_lite::{AsyncRead, AsyncWrite, FutureExt as _, StreamExt as _};

use super::handler::BoxFut;
use super::server::{Request, Response, Upgraded};
use super::{Ctx, ReqInfo, error_response};
use crate::api::terminals::{AttachQuery, ClientFrame, ServerFrame, Viewer};
use crate::error::ApiError;
use crate::service::Services;
use crate::service::normalize_origin;
use crate::service::terminals::ViewerQueue;
use crate::service::terminals::pump::{Behind, Chunk, Control, Next, Replay};
use crate::service::terminals::{AttachGrant, KeysTicket, ViewerHandle};

/// Largest frame a viewer may send.
pub(super) const MAX_CLIENT_FRAME: usize = 64 * 1024;
/// A send that does not finish in this time ends the socket (a client that stopped reading).
pub(super) const SEND_DEADLINE: Duration = Duration::from_secs(30);
/// How often an open socket checks that its access still holds.
pub(super) const RECHECK_EVERY: Duration = Duration::from_secs(15);
/// Fresh replays one viewer may need in [`RESYNC_WINDOW`] before it is dropped (4408).
pub(super) const MAX_RESYNCS: usize = 5;
/// See [`MAX_RESYNCS`].
pub(super) const RESYNC_WINDOW: Duration = Duration::from_secs(60);
/// Keystroke messages waiting for the node, per viewer.
const INPUT_QUEUE: usize = 64;
/// How long a socket that ended still types the keys it took before closing (the node's
/// command deadline): what is still untyped then is refused.
const DRAIN_LIMIT: Duration = Duration::from_secs(10);

/// What one read of a terminal socket asks for. A viewer sends keystrokes and small control
/// frames; the reader zeroes this much of its buffer before each read (twice per keystroke:
/// the read that brings it and the one that finds nothing more), so it is kept small. A paste
/// up to [`MAX_CLIENT_FRAME`] arrives in several reads.
const READ_CHUNK: usize = 4 * 1024;

pub(super) fn config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(MAX_CLIENT_FRAME))
        .max_frame_size(Some(MAX_CLIENT_FRAME))
        .accept_unmasked_frames(false)
        .read_buffer_size(READ_CHUNK)
        .write_buffer_size(0)
        .max_write_buffer_size(4 * 1024 * 1024)
}

fn refuse(e: &ApiError, req_id: &str) -> Response {
    error_response(e, req_id)
}

/// The `Sec-WebSocket-Key` of a WebSocket upgrade whose `Origin`, when it has one (a browser),
/// is trusted: 400 `WEBSOCKET_UPGRADE_REQUIRED` or 403 `ORIGIN_REJECTED` otherwise.
pub(super) fn trusted_upgrade(
    svc: &Services,
    req: &Request,
    info: &ReqInfo,
) -> Result<String, ApiError> {
    let key = super::ws::upgrade_key(req).ok_or_else(|| {
        ApiError::new(
            400,
            "WEBSOCKET_UPGRADE_REQUIRED",
            "this endpoint only accepts a WebSocket upgrade",
        )
    })?;
    if let Some(origin) = info.meta.origin.as_deref() {
        let trusted =
            normalize_origin(origin).is_some_and(|o| svc.guard().trusted_origins().contains(&o));
        if !trusted {
            return Err(ApiError::new(
                403,
                "ORIGIN_REJECTED",
                "request Origin is not trusted",
            ));
        }
    }
    Ok(key)
}

/// The handler.
pub(super) fn attach_socket(
    ctx: Arc<Ctx>,
    req: Request,
    info: ReqInfo,
    params: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async move {
        let req_id = info.req_id.clone();
        let svc = ctx.svc.clone();
        let key = match trusted_upgrade(&svc, &req, &info) {
            Ok(k) => k,
            Err(e) => return refuse(&e, &req_id),
        };
        let id = params
            .iter()
            .find(|(k, _)| *k == "id")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let q: AttachQuery =
            match serde_urlencoded::from_str(req.head.query.as_deref().unwrap_or("")) {
                Ok(q) => q,
                Err(e) => {
                    return refuse(
                        &ApiError::validation("query", format!("bad attach query: {e}")),
                        &req_id,
                    );
                }
            };
        let grid = match (q.cols, q.rows) {
            (None, None) => None,
            (Some(c), Some(r)) if (1..=1000).contains(&c) && (1..=1000).contains(&r) => {
                Some((c, r))
            }
            _ => {
                return refuse(
                    &ApiError::validation("cols", "cols and rows come together, each 1 to 1,000"),
                    &req_id,
                );
            }
        };
        // Listening before the token is spent: a credential or an account that changes from
        // here on (its grant read as it was) makes the socket re-check at its first turn.
        let changed = svc.terminals().on_access_change();
        let grant = match svc.grants().redeem_attach_token(&q.token, &id).await {
            Ok(g) => g,
            Err(e) => return refuse(&e, &req_id),
        };
        if svc.links().is_shutting_down() {
            return refuse(
                &ApiError::new(503, "SHUTTING_DOWN", "the control plane is shutting down"),
                &req_id,
            );
        }
        let open = match svc.terminals().socket_opened(&grant.user_id) {
            Ok(o) => o,
            Err(e) => return refuse(&e, &req_id),
        };
        let read_only = !grant.can_write || q.read_only.unwrap_or(false);
        let viewer = Viewer {
            viewer_id: 0,
            user_id: grant.user_id.clone(),
            display_name: grant.display_name.clone(),
            read_only,
            cols: grid.map(|g| g.0),
            rows: grid.map(|g| g.1),
            sizing: !read_only && q.sizing.unwrap_or(true),
            device: q.device,
        };
        let sizing = viewer.sizing;
        let handle = match svc
            .terminals()
            .pumps()
            .join_pump(&grant.row, viewer, !read_only)
            .await
        {
            Ok(h) => h,
            Err(e) => return refuse(&e, &req_id),
        };
        let first = async {
            svc.terminals().pumps().fit(&handle.pump).await?;
            svc.terminals().read_replay(&grant.row).await
        };
        let replay = match first.await {
            Ok(r) => r,
            Err(e) => {
                svc.terminals().pumps().leave_pump(&handle).await;
                return refuse(&e, &req_id);
            }
        };
        let on_upgrade = Box::new(move |conn: Upgraded| -> BoxFut<()> {
            Box::pin(async move {
                let _open = open;
                let ws = WebSocketStream::from_raw_socket(conn, Role::Server, Some(config())).await;
                let mut s = Session {
                    svc: svc.clone(),
                    grant,
                    handle: handle.clone(),
                    read_only,
                    sizing,
                    skip_until: None,
                    resyncs: Resyncs::default(),
                    refuse_rest: None,
                };
                s.run(ws, replay, changed).await;
                svc.terminals().pumps().leave_pump(&handle).await;
            })
        });
        Response::switching_protocols(&key, on_upgrade)
    })
}

/// How a socket ended.
enum End {
    Close(u16, String),
    Gone,
}

enum Event {
    Client(Option<Result<Message, async_tungstenite::tungstenite::Error>>),
    Queue(Next),
    Recheck,
    /// A credential or account changed somewhere: re-check now.
    AccessChanged,
}

struct Session {
    svc: Arc<Services>,
    grant: AttachGrant,
    handle: ViewerHandle,
    read_only: bool,
    /// Whether this viewer's grid takes part in the pane's size (as it attached; the
    /// `presence` frames say what it is now).
    sizing: bool,
    /// Output before this log offset is already in the last replay.
    skip_until: Option<u64>,
    resyncs: Resyncs,
    /// Set when the plane ends the socket for a reason that makes typing pointless or no
    /// longer allowed (the pane ended, access ended, the plane stops): keys taken and not on
    /// their way yet are refused with this reason instead of typed.
    refuse_rest: Option<String>,
}

/// The fresh replays a viewer needed because it was slow, within the last [`RESYNC_WINDOW`].
#[derive(Debug, Default)]
struct Resyncs(Vec<std::time::Instant>);

impl Resyncs {
    /// Whether the viewer may have one more fresh replay for `why` at `now` (and counts it);
    /// `false` means it fell behind once too often and is closed. Only [`Behind::Slow`]
    /// counts: a node that drops and comes back is no fault of the viewer's.
    fn allow(&mut self, why: Behind, now: std::time::Instant) -> bool {
        if why != Behind::Slow {
            return true;
        }
        self.0.retain(|t| now.duration_since(*t) < RESYNC_WINDOW);
        if self.0.len() >= MAX_RESYNCS {
            return false;
        }
        self.0.push(now);
        true
    }
}

/// Sends one message; `false` when the socket failed or the send did not finish within
/// [`SEND_DEADLINE`] (a client that stopped reading).
///
/// The deadline's timer is armed only for a send that could not finish at once: most frames
/// (an echo, a control frame) fit the socket's buffer, and registering a timer with the reactor
/// for each of them would cost every keystroke's echo a wake-up of the reactor.
pub(super) async fn send<S>(ws: &mut WebSocketStream<S>, m: Message) -> bool
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut sending = std::pin::pin!(async { ws.send(m).await.is_ok() });
    if let Some(sent) = futures_lite::future::poll_once(sending.as_mut()).await {
        return sent;
    }
    crate::wait::within(SEND_DEADLINE, sending)
        .await
        .unwrap_or(false)
}

fn text(f: &ServerFrame) -> Message {
    Message::Text(Utf8Bytes::from(
        serde_json::to_string(f).unwrap_or_else(|_| "{}".into()),
    ))
}

impl Session {
    async fn run<S>(
        &mut self,
        mut ws: WebSocketStream<S>,
        replay: Replay,
        changed: event_listener::EventListener,
    ) where
        S: AsyncRead + AsyncWrite + Unpin + Send,
    {
        let (input_tx, input_rx) = smol::channel::bounded::<String>(INPUT_QUEUE);
        let refusals = Arc::new(Refusals::new(self.handle.queue.clone()));
        // The typist runs beside the socket in this same task, not on another thread: a
        // keystroke reaches it without a wake-up across threads, and a slow node command still
        // never holds up reading the socket.
        let mut typist = std::pin::pin!(typist(
            self.svc.clone(),
            self.grant.row.clone(),
            (self.grant.typer.clone(), self.handle.id),
            input_rx,
            refusals.clone(),
        ));
        let end = self
            .serve(&mut ws, replay, &input_tx, changed)
            .or(async {
                // Never ends while `input_tx` lives (the typist ends once its channel closed),
                // so it is polled again below only as the unfinished future it is.
                typist.as_mut().await;
                std::future::pending::<End>().await
            })
            .await;
        // The keys taken before the end are typed (or refused) before the closing handshake
        // finishes: a client that types and closes at once loses nothing. The typist finishes
        // the keys already on their way to the node whatever the end; the rest are refused
        // when the end was the plane's (the pane ended, access ended, the plane stops).
        drop(input_tx);
        refusals.hold();
        if let Some(why) = self.refuse_rest.take() {
            refusals.refuse_rest(why);
        }
        let typed = crate::wait::within(DRAIN_LIMIT, typist.as_mut()).await;
        let mut held = refusals.take_held();
        if typed.is_none() {
            tracing::debug!(subshell = %self.grant.row.id, "keys still untyped when the socket closed");
            held.push(format!(
                "the node did not take the keys within {} s of the socket's end",
                DRAIN_LIMIT.as_secs()
            ));
        }
        // A client that closed first takes no more frames (nothing to say, and nobody left to
        // hear it), and one that stopped reading would hold each frame up to the send deadline.
        let can_hear = matches!(&end, End::Close(code, _) if *code != 4408);
        for message in held {
            if !can_hear || !Self::refuse_frame(&mut ws, "INPUT_FAILED", &message).await {
                break;
            }
        }
        match end {
            End::Close(code, reason) => {
                let _ = termplane_runtime_smol::ws::close(&mut ws, code, &reason).await;
            }
            End::Gone => {
                let _ = ws.get_mut().close().await;
            }
        }
    }

    async fn serve<S>(
        &mut self,
        ws: &mut WebSocketStream<S>,
        replay: Replay,
        input: &smol::channel::Sender<String>,
        mut changed: event_listener::EventListener,
    ) -> End
    where
        S: AsyncRead + AsyncWrite + Unpin + Send,
    {
        let attached = ServerFrame::Attached {
            viewer_id: self.handle.id,
            subshell_id: self.grant.row.id.clone(),
            read_only: self.read_only,
            sizing: self.sizing,
            cols: replay.cols,
            rows: replay.rows,
        };
        if !send(ws, text(&attached)).await || !self.send_replay(ws, replay).await {
            return End::Gone;
        }
        self.svc
            .terminals()
            .pumps()
            .broadcast_presence(&self.handle.pump);
        let queue = self.handle.queue.clone();
        // One timer for the session, reset only when it fires: a socket that is always busy is
        // still re-checked, and a turn of the loop (a keystroke's echo) registers no timer with
        // the reactor, which would wake the reactor's thread.
        let mut recheck = smol::Timer::after(RECHECK_EVERY);
        // `changed` was armed before the token was spent, and is armed again after it fires,
        // like the timer: a session ended, an account disabled or demoted, a key disabled —
        // the grant is re-checked at once.
        loop {
            let ev = async { Event::Client(ws.next().await) }
                .or(async { Event::Queue(queue.next().await) })
                .or(async {
                    (&mut recheck).await;
                    Event::Recheck
                })
                .or(async {
                    (&mut changed).await;
                    Event::AccessChanged
                })
                .await;
            match ev {
                // Read past the frame limit: the socket says so (1009) before it ends.
                Event::Client(Some(Err(async_tungstenite::tungstenite::Error::Capacity(_)))) => {
                    return End::Close(1009, "a frame above 64 KiB".into());
                }
                // A text frame that is not UTF-8: 1007 (RFC 6455 §7.4.1), not a bare end.
                Event::Client(Some(Err(async_tungstenite::tungstenite::Error::Utf8(_)))) => {
                    return End::Close(1007, "text frames must be UTF-8".into());
                }
                Event::Client(None | Some(Err(_))) => return End::Gone,
                Event::Client(Some(Ok(m))) => {
                    if let Some(end) = self.on_client_frame(ws, m, input).await {
                        return end;
                    }
                }
                Event::Queue(Next::Chunk(c)) => {
                    if let Some(bytes) = self.trim(&c)
                        && !send(ws, Message::Binary(bytes)).await
                    {
                        return End::Close(4408, "the viewer stopped reading".into());
                    }
                }
                Event::Queue(Next::Behind(why)) => {
                    if !self.resyncs.allow(why, std::time::Instant::now()) {
                        return End::Close(4408, "the viewer fell behind too often".into());
                    }
                    queue.resume();
                    let Ok(replay) = self.svc.terminals().read_replay(&self.grant.row).await else {
                        return End::Close(4502, "the pane could not be read".into());
                    };
                    let frame = ServerFrame::Resync {
                        reason: why.reason().into(),
                    };
                    if !send(ws, text(&frame)).await || !self.send_replay(ws, replay).await {
                        return End::Gone;
                    }
                }
                Event::Queue(Next::Control(c)) => match c {
                    Control::Presence(viewers, held) => {
                        if !send(ws, text(&ServerFrame::Presence { viewers, held })).await {
                            return End::Gone;
                        }
                    }
                    Control::Size(cols, rows) => {
                        if !send(ws, text(&ServerFrame::Size { cols, rows })).await {
                            return End::Gone;
                        }
                    }
                    Control::Exit(exit_code) => {
                        self.refuse_rest = Some("the pane's program ended".into());
                        if !send(ws, text(&ServerFrame::Exit { exit_code })).await {
                            return End::Gone;
                        }
                    }
                    Control::Close(code, reason) => {
                        self.refuse_rest
                            .get_or_insert_with(|| format!("the socket closes: {reason}"));
                        return End::Close(code, reason);
                    }
                    Control::Refused(code, message) => {
                        if !Self::refuse_frame(ws, code, &message).await {
                            return End::Gone;
                        }
                    }
                },
                Event::Recheck | Event::AccessChanged => {
                    if matches!(ev, Event::AccessChanged) {
                        changed = self.svc.terminals().on_access_change();
                    } else {
                        recheck.set_after(RECHECK_EVERY);
                    }
                    match self.svc.grants().grant_still_valid(&self.grant).await {
                        Err((code, reason)) => {
                            self.refuse_rest = Some(format!("the socket closes: {reason}"));
                            return End::Close(code, reason);
                        }
                        // It may still watch but no longer type (an administrator demoted
                        // while watching through a read share): the socket that types ends,
                        // as it does when a share is lowered to read.
                        Ok(false) if !self.read_only => {
                            let reason = "write access to this subshell ended";
                            self.refuse_rest = Some(reason.into());
                            return End::Close(4403, reason.into());
                        }
                        Ok(_) => {}
                    }
                }
            }
        }
    }

    async fn send_replay<S>(&mut self, ws: &mut WebSocketStream<S>, r: Replay) -> bool
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        self.skip_until = r.log_offset;
        send(ws, Message::Binary(Bytes::from(r.bytes))).await
    }

    /// The part of a chunk the viewer has not seen in its replay.
    fn trim(&self, c: &Chunk) -> Option<Bytes> {
        match self.skip_until {
            Some(skip) if c.to <= skip => None,
            Some(skip) if c.from < skip => {
                let cut = usize::try_from(skip - c.from).ok()?;
                Some(Bytes::copy_from_slice(c.bytes.get(cut..)?))
            }
            _ => Some(Bytes::copy_from_slice(&c.bytes)),
        }
    }

    async fn refuse_frame<S>(ws: &mut WebSocketStream<S>, code: &str, message: &str) -> bool
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        send(
            ws,
            text(&ServerFrame::Error {
                code: code.into(),
                message: message.into(),
            }),
        )
        .await
    }

    async fn on_client_frame<S>(
        &mut self,
        ws: &mut WebSocketStream<S>,
        m: Message,
        input: &smol::channel::Sender<String>,
    ) -> Option<End>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send,
    {
        let frame = match m {
            Message::Binary(b) => match String::from_utf8(b.to_vec()) {
                Ok(s) => ClientFrame::Input { data: s },
                Err(_) => return Some(End::Close(1003, "keystrokes must be UTF-8".into())),
            },
            Message::Text(t) => match super::schema::decode_frame::<ClientFrame>(t.as_str()) {
                Some(f) => f,
                None => return Some(End::Close(4400, "not a known frame".into())),
            },
            // Answered with our own close frame (the closing handshake), not a bare TCP close.
            Message::Close(_) => return Some(End::Close(1000, String::new())),
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => return None,
        };
        match frame {
            ClientFrame::Ping {} => {
                (!send(ws, text(&ServerFrame::Pong)).await).then_some(End::Gone)
            }
            ClientFrame::Input { .. } | ClientFrame::Resize { .. } | ClientFrame::Sizing { .. }
                if self.read_only =>
            {
                (!Self::refuse_frame(ws, "READ_ONLY", "this viewer only watches").await)
                    .then_some(End::Gone)
            }
            ClientFrame::Input { data } => {
                if data.is_empty() {
                    return None;
                }
                // Waits when the node is slower than the typing: the socket then stops reading,
                // and the client's own buffer holds the keys.
                if input.send(data).await.is_err() {
                    return Some(End::Gone);
                }
                // The typist (in this task) types the keys before the socket is read again.
                futures_lite::future::yield_now().await;
                None
            }
            ClientFrame::Resize { cols, rows } => {
                if !(1..=1000).contains(&cols) || !(1..=1000).contains(&rows) {
                    return (!Self::refuse_frame(
                        ws,
                        "BAD_FRAME",
                        "cols and rows must be 1 to 1,000",
                    )
                    .await)
                        .then_some(End::Gone);
                }
                match self
                    .svc
                    .terminals()
                    .pumps()
                    .viewer_grid(&self.handle, Some((cols, rows)))
                    .await
                {
                    Ok(()) => None,
                    Err(e) => (!Self::refuse_frame(ws, "RESIZE_FAILED", &e.message).await)
                        .then_some(End::Gone),
                }
            }
            ClientFrame::Sizing { on } => {
                match self
                    .svc
                    .terminals()
                    .pumps()
                    .viewer_sizing(&self.handle, on)
                    .await
                {
                    Ok(()) => None,
                    // Either the choice was not recorded (on a cluster, the database could not
                    // take it: nothing changed) or it was and only fitting the pane to it
                    // failed (its node is away): the pane is fitted again when it comes back.
                    Err(e) => (!Self::refuse_frame(ws, "RESIZE_FAILED", &e.message).await)
                        .then_some(End::Gone),
                }
            }
        }
    }
}

/// Where a typist's refusals go (`error INPUT_FAILED`): to the viewer's queue while the socket
/// serves, and once it ended, held for the socket to send before its close frame (the queue
/// takes nothing after a close). Also says whether keys still waiting are to be refused rather
/// than typed.
struct Refusals {
    queue: Arc<ViewerQueue>,
    state: std::sync::Mutex<RefusalState>,
}

#[derive(Default)]
struct RefusalState {
    /// `Some` once the socket ended: the refusals to send before its close.
    held: Option<Vec<String>>,
    /// Why keys not on their way yet are refused instead of typed.
    refuse_rest: Option<String>,
    /// Keystroke messages refused for that reason so far.
    refused: usize,
}

impl Refusals {
    fn new(queue: Arc<ViewerQueue>) -> Self {
        Self {
            queue,
            state: std::sync::Mutex::default(),
        }
    }

    /// Keys the node could not type.
    fn refuse(&self, why: &str) {
        let message = format!("the keys were not typed: {why}");
        if let Ok(mut s) = self.state.lock()
            && let Some(held) = s.held.as_mut()
        {
            held.push(message);
            return;
        }
        self.queue
            .control(Control::Refused("INPUT_FAILED", message));
    }

    /// From now on refusals are held for the closing socket.
    fn hold(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.held.get_or_insert_with(Vec::new);
        }
    }

    /// Keys that are not on their way to the node yet are refused for `why`.
    fn refuse_rest(&self, why: String) {
        if let Ok(mut s) = self.state.lock() {
            s.refuse_rest = Some(why);
        }
    }

    /// Whether a keystroke message is refused unsent (and counts it).
    fn skips(&self) -> bool {
        self.state.lock().is_ok_and(|mut s| {
            let skip = s.refuse_rest.is_some();
            if skip {
                s.refused += 1;
            }
            skip
        })
    }

    /// The refusals held for the close, the untyped rest summed up in one.
    fn take_held(&self) -> Vec<String> {
        let Ok(mut s) = self.state.lock() else {
            return Vec::new();
        };
        let mut held = s.held.take().unwrap_or_default();
        if s.refused > 0
            && let Some(why) = &s.refuse_rest
        {
            held.push(format!(
                "{} keystroke message(s) were not typed: {why}",
                s.refused
            ));
        }
        held
    }
}

/// Types a viewer's keystrokes into the pane in order; keys that queued up while one was on its
/// way go together in the next command. Keys the node could not type are reported to that viewer
/// (`error INPUT_FAILED`): at once, or — for keys that went straight to tmux on the plane's own
/// host, answered before tmux had said they were typed — as soon as tmux says they were not
/// (the typist is woken by tmux's answer: no timer, no polling). Ends once the socket's sender
/// is gone and every key it took is typed or refused, the fate of those sent without waiting
/// known. Each message of keys it types is marked as the viewer's input (`subshells::Marker`:
/// who typed and when, never what).
async fn typist(
    svc: Arc<Services>,
    row: crate::store::Subshell,
    (typer, viewer_id): (crate::service::Typer, u64),
    rx: smol::channel::Receiver<String>,
    refusals: Arc<Refusals>,
) {
    let marks = svc.input_marks();
    let mut batch = crate::service::KeyBatch::default();
    enum Step {
        Keys(Result<String, smol::channel::RecvError>),
        Settled(Result<(), String>),
    }
    let refuse = |why: &str| {
        tracing::debug!(subshell = %row.id, "keystrokes not delivered: {why}");
        refusals.refuse(why);
    };
    // Keys sent without waiting whose fate is not known yet, oldest first, and the wait for
    // the oldest's answer.
    let mut unsettled: std::collections::VecDeque<KeysTicket> = std::collections::VecDeque::new();
    let mut oldest: Option<crate::service::KeysTyped> = None;
    let mut open = true;
    loop {
        if oldest.is_none()
            && let Some(&t) = unsettled.front()
        {
            oldest = Some(svc.terminals().keys_typed(t));
        }
        let step = match (oldest.as_mut(), open) {
            (Some(wait), true) => {
                async { Step::Keys(rx.recv().await) }
                    .or(async { Step::Settled(wait.await) })
                    .await
            }
            (Some(wait), false) => Step::Settled(wait.await),
            (None, true) => Step::Keys(rx.recv().await),
            // The socket is done with and every key's fate is known.
            (None, false) => {
                marks.end(&mut batch);
                return;
            }
        };
        match step {
            Step::Settled(r) => {
                oldest = None;
                unsettled.pop_front();
                if let Err(why) = r {
                    refuse(&why);
                }
            }
            Step::Keys(Ok(_)) if refusals.skips() => {}
            Step::Keys(Ok(mut data)) => {
                marks.keys(&mut batch, &row.id, &typer, viewer_id, &data);
                while data.len() < 4096 {
                    match rx.try_recv() {
                        Ok(more) => {
                            marks.keys(&mut batch, &row.id, &typer, viewer_id, &more);
                            data.push_str(&more);
                        }
                        Err(_) => break,
                    }
                }
                match svc.terminals().type_into_pane(&row, data).await {
                    Ok(Some(ticket)) => unsettled.push_back(ticket),
                    Ok(None) => {}
                    Err(e) => refuse(&e.message),
                }
            }
            // The socket is done with: what was sent without waiting is still to be settled.
            Step::Keys(Err(_)) => open = false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_go_to_the_viewer_while_it_is_served_and_wait_for_the_close_after() {
        let queue = Arc::new(ViewerQueue::default());
        let r = Refusals::new(queue.clone());
        r.refuse("the pane is gone");
        assert!(matches!(
            smol::block_on(queue.next()),
            Next::Control(Control::Refused("INPUT_FAILED", m)) if m.contains("the pane is gone")
        ));
        // The socket ended: refusals wait for its close; the untyped rest is summed up.
        r.hold();
        assert!(!r.skips(), "keys are typed until the plane says otherwise");
        r.refuse("tmux said no");
        r.refuse_rest("the pane's program ended".into());
        assert!(r.skips() && r.skips());
        assert_eq!(
            r.take_held(),
            [
                "the keys were not typed: tmux said no".to_owned(),
                "2 keystroke message(s) were not typed: the pane's program ended".to_owned(),
            ]
        );
        assert_eq!(queue.queued_bytes(), 0);
    }

    #[test]
    fn the_reference_states_how_long_a_closing_socket_still_types() {
        assert!(
            crate::api::terminals::KEYSTROKES_HTML
                .contains(&format!("for at most {} seconds", DRAIN_LIMIT.as_secs()))
        );
    }

    #[test]
    fn only_a_slow_viewer_runs_out_of_fresh_replays() {
        let start = std::time::Instant::now();
        let mut r = Resyncs::default();
        // A node that comes back, or output lost on the way, costs the viewer nothing.
        for _ in 0..3 * MAX_RESYNCS {
            assert!(r.allow(Behind::Reconnected, start));
            assert!(r.allow(Behind::Lost, start));
        }
        for _ in 0..MAX_RESYNCS {
            assert!(r.allow(Behind::Slow, start));
        }
        assert!(!r.allow(Behind::Slow, start), "one slow spell too many");
        assert!(r.allow(Behind::Reconnected, start));
        // The window moves on: a minute later the old spells no longer count.
        let later = start + RESYNC_WINDOW;
        for _ in 0..MAX_RESYNCS {
            assert!(r.allow(Behind::Slow, later));
        }
        assert!(!r.allow(Behind::Slow, later));
    }
}
