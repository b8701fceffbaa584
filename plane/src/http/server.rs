//! One HTTP/1.1 connection, from accept to close: hyper's server connection
//! (`hyper::server::conn::http1`) over the socket wrapped in [`Edge`], which keeps the rules
//! hyper does not (see the `edge` module).
//!
//! Every wait is bounded, whatever the client does:
//!
//! * a request head must arrive within [`Limits::header_timeout`] of the connection opening or
//!   of the previous answer (this is also the keep-alive idle time), and it is at most
//!   [`wire::MAX_HEAD_BYTES`] (hyper's `max_header_size`) and [`wire::MAX_HEADERS`] fields;
//! * a request body is read only up to [`Limits::body_limit`] (a larger declared length is
//!   answered 413 before any of it is read, and before `100 Continue`) into a buffer that grows
//!   only as bytes arrive; each read must bring bytes within [`Limits::io_timeout`], after a
//!   grace of [`Limits::io_timeout`] the body must average at least [`Limits::min_send_rate`]
//!   bytes per second, and the whole body must arrive within [`Limits::body_timeout`], else 408
//!   and close;
//! * an answer is written through hyper's buffer (at most two 64 KiB pieces; a file streams in
//!   64 KiB pieces, never whole): each write must make progress within [`Limits::io_timeout`],
//!   and after a grace of [`Limits::io_timeout`] the answer must average at least
//!   [`Limits::min_send_rate`] bytes per second, else the connection is dropped.
//!
//! Every head hyper parses is then held to the plane's rules ([`wire::build`]: the method
//! registry, one valid `Host`, UTF-8 fields, transfer codings, `Expect`), each refusal answered
//! with the spec's error body and a close. hyper differs from the plane's former server in one
//! case, and it is still correct: a request with both `Content-Length` and
//! `Transfer-Encoding: chunked` is read as chunked and the connection closed after the answer,
//! which RFC 9112 §6.1 allows in place of a refusal (the smuggling it guards against needs the
//! connection kept open).
//!
//! The connection's place among the caps ([`Admission`]) is decided by the accept loop; at
//! each request head the server asks the application whether the request carries a credential
//! it accepts ([`App::vouch`]): such a connection stops counting against the caps on
//! unauthenticated connections, and a connection admitted only on that condition (on trial) is
//! answered 503 `PLANE_BUSY` and closed when its first head carries none, or when no head comes
//! within [`TRIAL_HEAD_TIMEOUT`]. A connection that must close after its answer (a framing
//! fault, `Connection: close`, HTTP/1.0) is half-closed and its unread input drained for a
//! moment, so the answer is not lost to a reset.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_lite::{AsyncRead, AsyncWrite};
use http_body_util::BodyExt;
use hyper::body::{Body as _, Incoming};
use hyper::server::conn::http1;
use smol::net::TcpStream;

use super::edge::{self, BodyFault, Edge};
use super::handler::BoxFut;
use super::wire::{self, Framing, Head, Refusal, Tokens};
use crate::wait::WakeGate;

/// The time limits and sizes a connection is held to.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest request body.
    pub body_limit: usize,
    /// Time allowed for a request head (from connecting or from the previous answer).
    pub header_timeout: Duration,
    /// Longest wait for any single read of a body or write of an answer to make progress.
    pub io_timeout: Duration,
    /// Time allowed for a whole request body.
    pub body_timeout: Duration,
    /// Slowest average rate an answer may be read at, and a request body may arrive at, after
    /// the first `io_timeout`.
    pub min_send_rate: u64,
}

/// How long a connection admitted on trial may take to deliver its first request head (a
/// client with a credential sends its head as soon as it has connected).
pub const TRIAL_HEAD_TIMEOUT: Duration = Duration::from_secs(2);

/// A connection's place among the caps on not-upgraded connections, held for the connection's
/// life (dropped when it ends or becomes a WebSocket).
pub trait Admission: Send {
    /// Admitted only to show a credential: its first request head must carry one the
    /// application vouches for.
    fn on_trial(&self) -> bool;
    /// It has shown a credential.
    fn proven(&self) -> bool;
    /// It showed one: it no longer counts as unauthenticated.
    fn prove(&mut self);
}

/// A request with its whole body.
pub struct Request {
    /// The parsed head.
    pub head: Head,
    /// The body (at most the body limit).
    pub body: Vec<u8>,
    /// The client's address.
    pub peer: SocketAddr,
}

/// The body of an answer.
pub enum Body {
    /// None.
    Empty,
    /// These bytes.
    Bytes(Vec<u8>),
    /// Bytes every answer shares (an embedded file, a document made once): written from where
    /// they are, never copied per connection.
    Shared(Shared),
    /// A file, streamed: exactly `len` bytes of it.
    File {
        /// Where it is.
        path: std::path::PathBuf,
        /// How many bytes to send.
        len: u64,
    },
}

/// Bytes shared by many answers.
#[derive(Clone)]
pub enum Shared {
    /// Embedded in the binary.
    Static(&'static [u8]),
    /// Made at run time and kept.
    Kept(Arc<[u8]>),
}

impl Shared {
    /// The bytes.
    #[must_use]
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Self::Static(b) => b,
            Self::Kept(b) => b,
        }
    }
}

/// What to run on the raw connection after a `101 Switching Protocols`.
pub type OnUpgrade = Box<dyn FnOnce(Upgraded) -> BoxFut<()> + Send>;

/// An answer.
pub struct Response {
    /// Status.
    pub status: u16,
    /// Headers (lower-case names); `content-length` and `connection` are the server's own.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Body,
    /// For a 101: what takes the connection over.
    pub upgrade: Option<OnUpgrade>,
    /// Close the connection after this answer.
    pub close: bool,
}

impl Response {
    /// A WebSocket's `101 Switching Protocols` for the client's `Sec-WebSocket-Key`, handing the
    /// connection to `on_upgrade` (no extension, no subprotocol).
    #[must_use]
    pub fn switching_protocols(key: &str, on_upgrade: OnUpgrade) -> Self {
        Self {
            status: 101,
            headers: vec![
                ("upgrade".into(), "websocket".into()),
                (
                    "sec-websocket-accept".into(),
                    async_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes()),
                ),
            ],
            body: Body::Empty,
            upgrade: Some(on_upgrade),
            close: false,
        }
    }

    /// An answer with a body of bytes.
    #[must_use]
    pub fn bytes(status: u16, content_type: &str, body: Vec<u8>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: Body::Bytes(body),
            upgrade: None,
            close: false,
        }
    }

    /// Sets a header, replacing any of the same name.
    pub fn set_header(&mut self, name: &str, value: impl Into<String>) {
        self.headers.retain(|(n, _)| n != name);
        self.headers.push((name.to_owned(), value.into()));
    }

    /// The first value of a header.
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server calls: the application, and how it renders a refusal of the wire layer.
pub trait App: Send + Sync + 'static {
    /// Answers one request.
    fn handle(&self, req: Request) -> BoxFut<Response>;
    /// Renders a refusal decided before the application saw the request.
    fn refuse(&self, refusal: &Refusal, peer: SocketAddr) -> Response;
    /// Whether `head` carries a credential the application accepts now (it decides nothing
    /// about the request: the handler still checks it).
    fn vouch(&self, head: &Head, peer: SocketAddr) -> BoxFut<bool>;
}

/// The raw connection after an upgrade: the bytes already read past the request head come first.
///
/// Its reads go to the socket only when the socket's last read was answered or the reactor has
/// since woken it ([`WakeGate`]): a WebSocket task that waits on its socket and on a queue at
/// once polls both whenever either wakes it, and each terminal frame sent would otherwise cost
/// a read of the socket that fails with `EAGAIN` first.
pub struct Upgraded {
    stream: TcpStream,
    early: Vec<u8>,
    at: usize,
    gate: WakeGate,
}

impl AsyncRead for Upgraded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        if self.at < self.early.len() {
            let n = (self.early.len() - self.at).min(buf.len());
            let at = self.at;
            buf[..n].copy_from_slice(&self.early[at..at + n]);
            self.at += n;
            if self.at == self.early.len() {
                self.early = Vec::new();
                self.at = 0;
            }
            return Poll::Ready(Ok(n));
        }
        let this = self.get_mut();
        let Some(waker) = this.gate.pass(cx) else {
            return Poll::Pending;
        };
        let r = Pin::new(&mut this.stream).poll_read(&mut Context::from_waker(waker), buf);
        if r.is_ready() {
            this.gate.open();
        }
        r
    }
}

impl AsyncWrite for Upgraded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }
    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_close(cx)
    }
}

/// Marks the connection busy (a request is being handled) for the shutdown drain.
pub trait Activity: Send + Sync {
    /// A request head arrived.
    fn begin(&self);
    /// Its answer went out (or was given up).
    fn end(&self);
}

/// The answer to a connection on trial whose head carried no credential the plane accepts.
pub(super) fn busy() -> Refusal {
    Refusal {
        status: 503,
        code: "PLANE_BUSY",
        message: "too many connections are open from this address, or in all; \
                  only requests with a valid credential are served now; try again shortly"
            .into(),
        close: true,
    }
}

/// The piece a file answer is read and written in.
const FILE_PIECE: usize = 64 * 1024;

/// Statuses that carry no body and no `content-length`.
fn bodiless(status: u16) -> bool {
    status < 200 || status == 204 || status == 304
}

/// What one connection's requests share.
struct Conn<A: ?Sized> {
    app: Arc<A>,
    peer: SocketAddr,
    limits: Limits,
    activity: Arc<dyn Activity>,
    shared: edge::Shared,
    place: Mutex<Option<Box<dyn Admission>>>,
    upgrade: Mutex<Option<(hyper::upgrade::OnUpgrade, OnUpgrade)>>,
}

/// Serves one connection until it closes: hyper's HTTP/1.1 state machine over the socket
/// wrapped in [`Edge`] (the deadlines and answers hyper does not keep). `place` is dropped when
/// the connection upgrades (it stops counting against the caps on plain HTTP connections).
pub async fn serve_connection<A: App + ?Sized>(
    stream: TcpStream,
    peer: SocketAddr,
    app: Arc<A>,
    limits: Limits,
    activity: Arc<dyn Activity>,
    place: Box<dyn Admission>,
) {
    let shared: edge::Shared = Arc::default();
    shared.set_on_trial(place.on_trial());
    let conn = Arc::new(Conn {
        app,
        peer,
        limits,
        activity,
        shared: shared.clone(),
        place: Mutex::new(Some(place)),
        upgrade: Mutex::new(None),
    });
    let renderer = conn.app.clone();
    let render: edge::Render = Box::new(move |r| {
        let mut res = renderer.refuse(r, peer);
        if r.status == 503 {
            res.set_header("retry-after", "1");
        }
        own_answer(&res)
    });
    let io = Edge::new(stream, shared, limits, render);
    let c = conn.clone();
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        // Called as soon as hyper has the head: the wrapper's head deadline ends here.
        let busy = Busy::begin(&c, !req.body().is_end_stream());
        let c = c.clone();
        async move { Ok::<_, Infallible>(c.answer(req, busy).await) }
    });
    let mut http = http1::Builder::new();
    // hyper's own cap on fields stays at its default (100: a set cap makes it fill a buffer of
    // that many entries for every head, its default leaves them uninitialised); `wire::build`
    // refuses a head above MAX_HEADERS fields.
    http.max_header_size(wire::MAX_HEAD_BYTES)
        .max_buf_size(2 * FILE_PIECE)
        .header_read_timeout(None)
        .half_close(false)
        .keep_alive(true);
    if let Err(e) = http.serve_connection(io, service).with_upgrades().await {
        tracing::debug!(peer = %peer, error = %e, "connection ended with an error");
    }
    let pending = lock(&conn.upgrade).take();
    if let Some((on_up, on_upgrade)) = pending {
        let Ok(up) = on_up.await else {
            return;
        };
        let Ok(parts) = up.downcast::<Edge>() else {
            tracing::error!("an upgraded connection is not the plane's own socket");
            return;
        };
        drop(lock(&conn.place).take());
        let stream = parts.io.into_stream();
        on_upgrade(Upgraded {
            stream,
            early: parts.read_buf.to_vec(),
            at: 0,
            gate: WakeGate::default(),
        })
        .await;
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A request in flight, from its head to the moment hyper lets go of its answer (carried by
/// the answer's body): tells the shutdown drain and the socket's wrapper.
struct Busy {
    activity: Arc<dyn Activity>,
    shared: edge::Shared,
}

impl Busy {
    fn begin<A: ?Sized>(c: &Conn<A>, body: bool) -> Self {
        c.shared.begin(body);
        c.activity.begin();
        Self {
            activity: c.activity.clone(),
            shared: c.shared.clone(),
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.shared.body_read();
        self.shared.answered();
        self.activity.end();
    }
}

impl<A: App + ?Sized> Conn<A> {
    /// One request, start to answer.
    async fn answer(&self, mut req: hyper::Request<Incoming>, busy: Busy) -> hyper::Response<Out> {
        let head_only = req.method() == hyper::Method::HEAD;
        let version = req.version();
        let mut keep_alive = true;
        let mut res = self.respond(&mut req, &mut keep_alive).await;
        self.shared.body_read();
        if !keep_alive {
            res.close = true;
        }
        if let Some(on_upgrade) = res.upgrade.take() {
            if res.status == 101 {
                self.shared.upgrade();
                *lock(&self.upgrade) = Some((hyper::upgrade::on(&mut req), on_upgrade));
            } else {
                res.close = true;
            }
        }
        let mut out = to_hyper(res, head_only, busy);
        // An HTTP/1.0 request is answered in HTTP/1.0 (hyper would anyway): so hyper reads the
        // answer's `connection: close` as the HTTP/1.0 it is, and adds no `keep-alive` to it.
        if version == hyper::Version::HTTP_10 {
            *out.version_mut() = hyper::Version::HTTP_10;
        }
        out
    }

    /// The plane's answer to a request (the checks of the head, the credential of a connection
    /// on trial, the body, then the application).
    async fn respond(&self, req: &mut hyper::Request<Incoming>, keep_alive: &mut bool) -> Response {
        let head = match head_of(req) {
            Ok(h) => h,
            Err(r) => return self.refused(&r),
        };
        *keep_alive = head.keep_alive;

        // ----- the credential -----
        let proven = lock(&self.place).as_ref().is_none_or(|p| p.proven());
        if !proven && self.app.vouch(&head, self.peer).await {
            if let Some(p) = lock(&self.place).as_mut() {
                p.prove();
            }
            self.shared.set_on_trial(false);
        }
        if lock(&self.place).as_ref().is_some_and(|p| p.on_trial()) {
            tracing::debug!(peer = %self.peer, "connection on trial showed no credential; refused");
            let mut res = self.refused(&busy());
            res.set_header("retry-after", "1");
            return res;
        }

        // ----- the body -----
        let limit = self.limits.body_limit;
        if let Framing::Length(n) = head.framing
            && n > limit as u64
        {
            return self.too_large();
        }
        let mut body = Vec::new();
        while let Some(frame) = req.body_mut().frame().await {
            match frame {
                Ok(f) => {
                    if let Ok(d) = f.into_data() {
                        if body.len() + d.len() > limit {
                            return self.too_large();
                        }
                        body.extend_from_slice(&d);
                    }
                }
                Err(e) => return self.body_failed(&e),
            }
        }
        self.shared.body_read();

        // ----- the answer -----
        self.app
            .handle(Request {
                head,
                body,
                peer: self.peer,
            })
            .await
    }

    fn refused(&self, r: &Refusal) -> Response {
        let mut res = self.app.refuse(r, self.peer);
        res.close = true;
        res
    }

    fn too_large(&self) -> Response {
        self.refused(&Refusal {
            status: 413,
            code: "PAYLOAD_TOO_LARGE",
            message: format!(
                "request body is larger than {} bytes",
                self.limits.body_limit
            ),
            close: true,
        })
    }

    /// The answer to a body that could not be read: cut by a deadline (the wrapper says which),
    /// or malformed.
    fn body_failed(&self, e: &hyper::Error) -> Response {
        let fault = self.shared.fault();
        let r = match fault {
            Some(BodyFault::Timeout) => Refusal {
                status: 408,
                code: "REQUEST_TIMEOUT",
                message: "the request body did not arrive in time".into(),
                close: true,
            },
            Some(BodyFault::TooSlow) => Refusal {
                status: 408,
                code: "REQUEST_TIMEOUT",
                message: format!(
                    "the request body arrived slower than {} bytes per second",
                    self.limits.min_send_rate
                ),
                close: true,
            },
            None => Refusal {
                status: 400,
                code: "BAD_REQUEST",
                message: format!("malformed request body: {e}"),
                close: true,
            },
        };
        tracing::debug!(peer = %self.peer, status = r.status, "request body refused");
        self.refused(&r)
    }
}

/// The plane's [`Head`] of a head hyper parsed, held to every rule of [`wire`] (hyper has
/// already refused what its tokeniser does not take; it also drops a `Content-Length` sent
/// beside `Transfer-Encoding: chunked`, frames the body as chunked and closes the connection
/// after the answer, which RFC 9112 §6.1 allows in place of a refusal).
fn head_of(req: &hyper::Request<Incoming>) -> Result<Head, Refusal> {
    let http11 = match req.version() {
        hyper::Version::HTTP_11 => true,
        hyper::Version::HTTP_10 => false,
        _ => {
            return Err(Refusal {
                status: 505,
                code: "HTTP_VERSION_NOT_SUPPORTED",
                message: "only HTTP/1.1 and HTTP/1.0 are served".into(),
                close: true,
            });
        }
    };
    let uri = req.uri();
    let absolute;
    let target = if uri.scheme().is_some() {
        absolute = uri.to_string();
        absolute.as_str()
    } else {
        uri.path_and_query().map_or("/", |pq| pq.as_str())
    };
    let fields = req
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_bytes()))
        .collect();
    wire::build(Tokens {
        method: req.method().as_str(),
        target,
        http11,
        fields,
    })
}

/// An answer of the plane as hyper writes it.
fn to_hyper(res: Response, head_only: bool, busy: Busy) -> hyper::Response<Out> {
    let len: u64 = match &res.body {
        Body::Empty => 0,
        Body::Bytes(b) => b.len() as u64,
        Body::Shared(b) => b.as_slice().len() as u64,
        Body::File { len, .. } => *len,
    };
    let mut out = hyper::Response::new(Out {
        piece: Piece::Done,
        left: 0,
        _busy: busy,
    });
    *out.status_mut() =
        hyper::StatusCode::from_u16(res.status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let headers = out.headers_mut();
    for (n, v) in &res.headers {
        if n == "content-length" || n == "connection" || n == "transfer-encoding" {
            continue;
        }
        // Header values are the plane's own; one that is not a valid field is left out.
        let (Ok(name), Ok(value)) = (
            hyper::header::HeaderName::from_bytes(n.as_bytes()),
            hyper::header::HeaderValue::from_str(v),
        ) else {
            continue;
        };
        headers.append(name, value);
    }
    if res.status == 101 {
        headers.insert(
            hyper::header::CONNECTION,
            hyper::header::HeaderValue::from_static("upgrade"),
        );
        return out;
    }
    if !bodiless(res.status) {
        headers.insert(hyper::header::CONTENT_LENGTH, len.into());
    }
    if res.close {
        headers.insert(
            hyper::header::CONNECTION,
            hyper::header::HeaderValue::from_static("close"),
        );
    }
    if head_only || bodiless(res.status) || len == 0 {
        return out;
    }
    let body = out.body_mut();
    body.left = len;
    body.piece = match res.body {
        Body::Empty => Piece::Done,
        Body::Bytes(b) => Piece::Bytes(Some(b.into())),
        Body::Shared(Shared::Static(b)) => Piece::Bytes(Some(hyper::body::Bytes::from_static(b))),
        Body::Shared(Shared::Kept(b)) => Piece::Bytes(Some(hyper::body::Bytes::from_owner(b))),
        Body::File { path, .. } => {
            Piece::Opening(Box::pin(smol::unblock(move || std::fs::File::open(path))))
        }
    };
    out
}

/// The body of an answer as hyper reads it.
pub(super) struct Out {
    piece: Piece,
    /// Bytes still to give.
    left: u64,
    _busy: Busy,
}

enum Piece {
    Done,
    Bytes(Option<hyper::body::Bytes>),
    /// A file being opened on the blocking pool.
    Opening(Pin<Box<dyn Future<Output = io::Result<std::fs::File>> + Send>>),
    /// A file read through a 64 KiB pipe (smol's default pipe is 8 MiB, which a client that
    /// never reads would hold for the connection's life), one piece at a time.
    Reading(smol::Unblock<std::fs::File>),
}

impl hyper::body::Body for Out {
    type Data = hyper::body::Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        loop {
            match &mut this.piece {
                Piece::Done => return Poll::Ready(None),
                Piece::Bytes(b) => {
                    this.left = 0;
                    let b = b.take();
                    this.piece = Piece::Done;
                    return Poll::Ready(b.map(|b| Ok(hyper::body::Frame::data(b))));
                }
                Piece::Opening(f) => match f.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Err(e)) => {
                        this.piece = Piece::Done;
                        return Poll::Ready(Some(Err(e)));
                    }
                    Poll::Ready(Ok(f)) => {
                        this.piece = Piece::Reading(smol::Unblock::with_capacity(FILE_PIECE, f));
                    }
                },
                Piece::Reading(f) => {
                    if this.left == 0 {
                        this.piece = Piece::Done;
                        continue;
                    }
                    let want =
                        usize::try_from(this.left.min(FILE_PIECE as u64)).unwrap_or(FILE_PIECE);
                    let mut piece = vec![0_u8; want];
                    return match Pin::new(f).poll_read(cx, &mut piece) {
                        Poll::Pending => Poll::Pending,
                        Poll::Ready(Err(e)) => {
                            this.piece = Piece::Done;
                            Poll::Ready(Some(Err(e)))
                        }
                        Poll::Ready(Ok(0)) => {
                            // The file shrank under us: the answer cannot be completed.
                            this.piece = Piece::Done;
                            Poll::Ready(Some(Err(io::ErrorKind::UnexpectedEof.into())))
                        }
                        Poll::Ready(Ok(n)) => {
                            piece.truncate(n);
                            this.left -= n as u64;
                            Poll::Ready(Some(Ok(hyper::body::Frame::data(piece.into()))))
                        }
                    };
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.piece, Piece::Done)
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        hyper::body::SizeHint::with_exact(self.left)
    }
}

/// The bytes of a closing answer the socket's wrapper writes itself (a refusal of a head, or
/// of a connection that sent none in time).
fn own_answer(res: &Response) -> Vec<u8> {
    let body: &[u8] = match &res.body {
        Body::Bytes(b) => b,
        Body::Shared(b) => b.as_slice(),
        Body::Empty | Body::File { .. } => &[],
    };
    let mut out = Vec::with_capacity(256 + body.len());
    out.extend_from_slice(
        format!("HTTP/1.1 {} {}\r\n", res.status, wire::reason(res.status)).as_bytes(),
    );
    for (n, v) in &res.headers {
        if n == "content-length" || n == "connection" || n == "transfer-encoding" {
            continue;
        }
        if v.contains(['\r', '\n']) || n.contains(['\r', '\n', ':']) {
            continue;
        }
        out.extend_from_slice(n.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(
        format!(
            "content-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(body);
    out
}
