//! One HTTP/1.1 connection, from accept to close.
//!
//! Every wait is bounded, whatever the client does:
//!
//! * a request head must arrive within [`Limits::header_timeout`] of the connection opening or of
//!   the previous answer (this is also the keep-alive idle time), and it is at most
//!   [`wire::MAX_HEAD_BYTES`];
//! * a request body is read only up to [`Limits::body_limit`] (a larger declared length is
//!   answered 413 before any of it is read) into a buffer that grows only as bytes arrive; each
//!   read must bring bytes within [`Limits::io_timeout`], after a grace of
//!   [`Limits::io_timeout`] the body must average at least [`Limits::min_send_rate`] bytes per
//!   second, and the whole body must arrive within [`Limits::body_timeout`], else 408 and close;
//! * an answer is written through a fixed buffer (a file streams in 64 KiB pieces, never whole):
//!   each write must make progress within [`Limits::io_timeout`], and after a grace of
//!   [`Limits::io_timeout`] the answer must average at least [`Limits::min_send_rate`] bytes per
//!   second, else the connection is dropped.
//!
//! So a connection holds at most one head buffer, one body of at most the limit and one 64 KiB
//! piece of a file, and a client that trickles or stops reading is cut.
//!
//! The connection's place among the caps ([`Admission`]) is decided by the accept loop; after
//! each request head the server asks the application whether the request carries a credential
//! it accepts ([`App::vouch`]): such a connection stops counting against the caps on
//! unauthenticated connections, and a connection admitted only on that condition (on trial) is
//! answered 503 `PLANE_BUSY` and closed when its first head carries none, or when no head comes
//! within [`TRIAL_HEAD_TIMEOUT`]. A connection that must
//! close after its answer (a framing fault, `Connection: close`, HTTP/1.0) is half-closed and its
//! unread input drained for a moment, so the answer is not lost to a reset.

use std::future::Future;
use std::io;
use std::net::{Shutdown, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_lite::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, FutureExt};
use smol::net::TcpStream;

use super::chunked::Chunked;
use super::handler::BoxFut;
use super::wire::{self, Framing, Head, Refusal};

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
pub struct Upgraded {
    stream: TcpStream,
    early: Vec<u8>,
    at: usize,
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
        Pin::new(&mut self.stream).poll_read(cx, buf)
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

/// Marks the connection busy (a request is being handled) for the header-timeout watchdog and
/// the shutdown drain.
pub trait Activity: Send + Sync {
    /// A request head arrived.
    fn begin(&self);
    /// Its answer went out.
    fn end(&self);
}

/// Runs `f` with a deadline: `None` when it passed first.
async fn until<T>(deadline: Instant, f: impl Future<Output = T>) -> Option<T> {
    async { Some(f.await) }
        .or(async {
            smol::Timer::at(deadline).await;
            None
        })
        .await
}

/// Why a body could not be read.
enum BodyFault {
    TooLarge,
    Timeout,
    TooSlow,
    Malformed(&'static str),
    Closed,
}

/// The answer to a connection on trial whose head carried no credential the plane accepts.
fn busy() -> Refusal {
    Refusal {
        status: 503,
        code: "PLANE_BUSY",
        message: "too many connections are open from this address, or in all; \
                  only requests with a valid credential are served now; try again shortly"
            .into(),
        close: true,
    }
}

/// Serves one connection until it closes. `place` is dropped when the connection upgrades
/// (it stops counting against the caps on plain HTTP connections).
pub async fn serve_connection<A: App + ?Sized>(
    stream: TcpStream,
    peer: SocketAddr,
    app: Arc<A>,
    limits: Limits,
    activity: &dyn Activity,
    place: Box<dyn Admission>,
) {
    let mut place = Some(place);
    let mut buf: Vec<u8> = Vec::new();
    let mut tmp = vec![0_u8; 8 * 1024];
    let mut stream = stream;
    loop {
        // ----- the head -----
        let on_trial = place.as_ref().is_some_and(|p| p.on_trial());
        let head_deadline = Instant::now()
            + if on_trial {
                limits.header_timeout.min(TRIAL_HEAD_TIMEOUT)
            } else {
                limits.header_timeout
            };
        let parsed = loop {
            if !buf.is_empty() {
                match wire::parse_head(&buf) {
                    Ok(Some(done)) => break Ok(done),
                    Ok(None) => {}
                    Err(r) => break Err(r),
                }
            }
            match until(head_deadline, stream.read(&mut tmp)).await {
                None => {
                    tracing::debug!(peer = %peer, "no request head within the header timeout; closing");
                    if !buf.is_empty() || on_trial {
                        let r = if on_trial {
                            busy()
                        } else {
                            Refusal {
                                status: 408,
                                code: "REQUEST_TIMEOUT",
                                message: "the request head did not arrive in time".into(),
                                close: true,
                            }
                        };
                        let mut res = app.refuse(&r, peer);
                        if on_trial {
                            res.set_header("retry-after", "1");
                        }
                        res.close = true;
                        let _ = write_response(&mut stream, res, false, &limits).await;
                        linger(&stream).await;
                    }
                    let _ = stream.shutdown(Shutdown::Both);
                    return;
                }
                Some(Ok(0) | Err(_)) => return,
                Some(Ok(n)) => buf.extend_from_slice(&tmp[..n]),
            }
        };
        let (head, used) = match parsed {
            Ok(x) => x,
            Err(refusal) => {
                tracing::debug!(peer = %peer, status = refusal.status, reason = %refusal.message, "request head refused");
                let mut res = app.refuse(&refusal, peer);
                res.close = true;
                let _ = write_response(&mut stream, res, false, &limits).await;
                linger(&stream).await;
                return;
            }
        };
        buf.drain(..used);
        activity.begin();

        // ----- the credential -----
        if let Some(p) = place.as_mut()
            && !p.proven()
            && app.vouch(&head, peer).await
        {
            p.prove();
        }
        if place.as_ref().is_some_and(|p| p.on_trial()) {
            tracing::debug!(peer = %peer, "connection on trial showed no credential; refused");
            let mut res = app.refuse(&busy(), peer);
            res.set_header("retry-after", "1");
            res.close = true;
            let _ = write_response(&mut stream, res, false, &limits).await;
            activity.end();
            linger(&stream).await;
            return;
        }

        // ----- the body -----
        if let Framing::Length(n) = head.framing
            && n > limits.body_limit as u64
        {
            let r = Refusal {
                status: 413,
                code: "PAYLOAD_TOO_LARGE",
                message: format!("request body is larger than {} bytes", limits.body_limit),
                close: true,
            };
            let _ = write_response(&mut stream, app.refuse(&r, peer), false, &limits).await;
            activity.end();
            linger(&stream).await;
            return;
        }
        if head.expect_continue
            && write_paced(&mut stream, b"HTTP/1.1 100 Continue\r\n\r\n", &limits)
                .await
                .is_err()
        {
            activity.end();
            return;
        }
        let body = match read_body(&mut stream, &mut buf, &mut tmp, head.framing, &limits).await {
            Ok(b) => b,
            Err(fault) => {
                let r = match fault {
                    BodyFault::Closed => {
                        activity.end();
                        return;
                    }
                    BodyFault::TooLarge => Refusal {
                        status: 413,
                        code: "PAYLOAD_TOO_LARGE",
                        message: format!("request body is larger than {} bytes", limits.body_limit),
                        close: true,
                    },
                    BodyFault::Timeout => Refusal {
                        status: 408,
                        code: "REQUEST_TIMEOUT",
                        message: "the request body did not arrive in time".into(),
                        close: true,
                    },
                    BodyFault::TooSlow => Refusal {
                        status: 408,
                        code: "REQUEST_TIMEOUT",
                        message: format!(
                            "the request body arrived slower than {} bytes per second",
                            limits.min_send_rate
                        ),
                        close: true,
                    },
                    BodyFault::Malformed(why) => Refusal {
                        status: 400,
                        code: "BAD_REQUEST",
                        message: format!("malformed request body: {why}"),
                        close: true,
                    },
                };
                tracing::debug!(peer = %peer, status = r.status, "request body refused");
                let _ = write_response(&mut stream, app.refuse(&r, peer), false, &limits).await;
                activity.end();
                linger(&stream).await;
                return;
            }
        };

        // ----- the answer -----
        let head_only = head.method == wire::Method::Head;
        let keep_alive = head.keep_alive;
        let mut res = app.handle(Request { head, body, peer }).await;
        if !keep_alive {
            res.close = true;
        }
        let upgrade = res.upgrade.take();
        let close = res.close;
        let written = write_response(&mut stream, res, head_only, &limits).await;
        activity.end();
        if let Some(on_upgrade) = upgrade {
            if written.is_ok() {
                drop(place.take());
                let early = std::mem::take(&mut buf);
                on_upgrade(Upgraded {
                    stream,
                    early,
                    at: 0,
                })
                .await;
            }
            return;
        }
        if written.is_err() {
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
        if close {
            linger(&stream).await;
            return;
        }
    }
}

async fn read_body(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    tmp: &mut [u8],
    framing: Framing,
    limits: &Limits,
) -> Result<Vec<u8>, BodyFault> {
    let mut clock = BodyClock::new(limits);
    match framing {
        Framing::Empty => Ok(Vec::new()),
        Framing::Length(n) => {
            let n = usize::try_from(n).map_err(|_| BodyFault::TooLarge)?;
            // The buffer grows with what arrives, never with what is only declared.
            let mut body = Vec::with_capacity(n.min(tmp.len()));
            let take = buf.len().min(n);
            body.extend(buf.drain(..take));
            clock.arrived(take);
            while body.len() < n {
                let got = clock.read(stream, tmp).await?;
                let want = n - body.len();
                if got > want {
                    body.extend_from_slice(&tmp[..want]);
                    buf.extend_from_slice(&tmp[want..got]);
                } else {
                    body.extend_from_slice(&tmp[..got]);
                }
            }
            Ok(body)
        }
        Framing::Chunked => {
            let mut decoder = Chunked::default();
            let mut body = Vec::new();
            let mut pending = std::mem::take(buf);
            clock.arrived(pending.len());
            loop {
                let step = decoder
                    .feed(&pending, &mut body)
                    .map_err(BodyFault::Malformed)?;
                if body.len() > limits.body_limit {
                    return Err(BodyFault::TooLarge);
                }
                if step.done {
                    buf.extend_from_slice(&pending[step.used..]);
                    return Ok(body);
                }
                let got = clock.read(stream, tmp).await?;
                pending.clear();
                pending.extend_from_slice(&tmp[..got]);
            }
        }
    }
}

/// The deadlines of one request body: each read within `io_timeout`, the whole body within
/// `body_timeout`, and, after a grace of `io_timeout`, an average of at least `min_send_rate`
/// bytes per second since the body began (what a client trickling just fast enough to beat the
/// progress timeout fails).
struct BodyClock {
    started: Instant,
    deadline: Instant,
    io_timeout: Duration,
    min_rate: u64,
    received: u64,
}

impl BodyClock {
    fn new(limits: &Limits) -> Self {
        let started = Instant::now();
        Self {
            started,
            deadline: started + limits.body_timeout,
            io_timeout: limits.io_timeout,
            min_rate: limits.min_send_rate,
            received: 0,
        }
    }

    fn arrived(&mut self, n: usize) {
        self.received = self.received.saturating_add(n as u64);
    }

    /// When the average falls below the minimum rate unless more bytes arrive (never within
    /// the grace).
    fn rate_deadline(&self) -> Option<Instant> {
        if self.min_rate == 0 {
            return None;
        }
        let covered = Duration::from_millis(self.received.saturating_mul(1000) / self.min_rate);
        self.started.checked_add(covered.max(self.io_timeout))
    }

    /// One read of body bytes, bounded by whichever deadline comes first.
    async fn read(&mut self, stream: &mut TcpStream, tmp: &mut [u8]) -> Result<usize, BodyFault> {
        let mut step = (Instant::now() + self.io_timeout).min(self.deadline);
        let mut fault = BodyFault::Timeout;
        if let Some(pace) = self.rate_deadline()
            && pace < step
        {
            step = pace;
            fault = BodyFault::TooSlow;
        }
        match until(step, stream.read(tmp)).await {
            None => Err(fault),
            Some(Ok(0) | Err(_)) => Err(BodyFault::Closed),
            Some(Ok(n)) => {
                self.arrived(n);
                Ok(n)
            }
        }
    }
}

/// Writes `bytes` with the progress and pace rules of the module.
async fn write_paced(stream: &mut TcpStream, bytes: &[u8], limits: &Limits) -> io::Result<()> {
    Pacer::new(limits).write(stream, bytes).await
}

struct Pacer {
    started: Instant,
    sent: u64,
    idle: Duration,
    min_rate: u64,
}

impl Pacer {
    fn new(limits: &Limits) -> Self {
        Self {
            started: Instant::now(),
            sent: 0,
            idle: limits.io_timeout,
            min_rate: limits.min_send_rate,
        }
    }

    async fn write(&mut self, stream: &mut TcpStream, mut bytes: &[u8]) -> io::Result<()> {
        let stalled = || io::Error::new(io::ErrorKind::TimedOut, "the client stopped reading");
        while !bytes.is_empty() {
            let n = until(Instant::now() + self.idle, stream.write(bytes))
                .await
                .ok_or_else(stalled)??;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            bytes = &bytes[n..];
            self.sent += n as u64;
            let elapsed = self.started.elapsed();
            if elapsed > self.idle {
                let floor = self.min_rate.saturating_mul(elapsed.as_secs());
                if self.sent < floor {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client reads slower than the minimum rate",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The piece a file answer is read and written in.
const FILE_PIECE: usize = 64 * 1024;

/// Statuses that carry no body and no `content-length`.
fn bodiless(status: u16) -> bool {
    status < 200 || status == 204 || status == 304
}

async fn write_response(
    stream: &mut TcpStream,
    res: Response,
    head_only: bool,
    limits: &Limits,
) -> io::Result<()> {
    let mut file = None;
    let len: u64 = match &res.body {
        Body::Empty => 0,
        Body::Bytes(b) => b.len() as u64,
        Body::Shared(b) => b.as_slice().len() as u64,
        Body::File { path, len } => {
            if !head_only {
                // A file is read on the blocking pool through a 64 KiB pipe (smol's default pipe
                // is 8 MiB, which a client that never reads would hold for the connection's life).
                let path = path.clone();
                let f = smol::unblock(move || std::fs::File::open(path)).await?;
                file = Some(smol::Unblock::with_capacity(FILE_PIECE, f));
            }
            *len
        }
    };
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(
        format!("HTTP/1.1 {} {}\r\n", res.status, wire::reason(res.status)).as_bytes(),
    );
    for (n, v) in &res.headers {
        if n == "content-length" || n == "connection" || n == "transfer-encoding" {
            continue;
        }
        // Header values are the plane's own; a newline in one would split the answer.
        if v.contains(['\r', '\n']) || n.contains(['\r', '\n', ':']) {
            continue;
        }
        out.extend_from_slice(n.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    if res.status == 101 {
        out.extend_from_slice(b"connection: upgrade\r\n");
    } else {
        if !bodiless(res.status) {
            out.extend_from_slice(format!("content-length: {len}\r\n").as_bytes());
        }
        if res.close {
            out.extend_from_slice(b"connection: close\r\n");
        }
    }
    out.extend_from_slice(b"\r\n");
    let mut pacer = Pacer::new(limits);
    let bytes: Option<&[u8]> = match &res.body {
        Body::Bytes(b) => Some(b),
        Body::Shared(b) => Some(b.as_slice()),
        Body::Empty | Body::File { .. } => None,
    };
    match (&res.body, bytes) {
        (_, Some(b)) if !head_only && !bodiless(res.status) => {
            if b.len() <= 16 * 1024 {
                out.extend_from_slice(b);
                pacer.write(stream, &out).await?;
            } else {
                pacer.write(stream, &out).await?;
                pacer.write(stream, b).await?;
            }
        }
        (Body::File { .. }, _) if !head_only => {
            pacer.write(stream, &out).await?;
            let Some(mut f) = file else {
                return Ok(());
            };
            let mut piece = vec![0_u8; FILE_PIECE];
            let mut left = len;
            while left > 0 {
                let want = usize::try_from(left.min(piece.len() as u64)).unwrap_or(piece.len());
                let n = f.read(&mut piece[..want]).await?;
                if n == 0 {
                    // The file shrank under us: the answer cannot be completed.
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                pacer.write(stream, &piece[..n]).await?;
                left -= n as u64;
            }
        }
        _ => pacer.write(stream, &out).await?,
    }
    stream.flush().await
}

/// Half-closes the connection and drains what the client still sends for a moment, so the
/// answer just written reaches it instead of being lost to a reset.
async fn linger(stream: &TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let mut s = stream.clone();
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut sink = [0_u8; 4096];
    let mut drained = 0_usize;
    while drained < 256 * 1024 {
        match until(deadline, s.read(&mut sink)).await {
            Some(Ok(n)) if n > 0 => drained += n,
            _ => break,
        }
    }
    let _ = stream.shutdown(Shutdown::Both);
}
