//! The socket as hyper sees it: the deadlines, paces and answers hyper does not keep itself.
//!
//! hyper parses heads, frames bodies, keeps connections alive, answers `100 Continue`, writes
//! answers and hands upgraded connections over. What it does not do, this wrapper around the
//! connection's socket does, knowing from the service ([`Exchanges`]) where each request begins
//! and when its body has been read and its answer let go:
//!
//! * **Waiting for a head.** From the connection's start, and from the end of each answer, a head
//!   must arrive within the header timeout (the keep-alive idle time too; a connection admitted
//!   on trial gets [`super::server::TRIAL_HEAD_TIMEOUT`]). When it passes: nothing read, the
//!   connection just closes; part of a head read, `408 REQUEST_TIMEOUT`; on trial,
//!   `503 PLANE_BUSY`.
//! * **A body.** While the service reads a request body, each read must bring bytes within the
//!   I/O timeout, the whole body must arrive within the body timeout, and after a grace of the
//!   I/O timeout the body must average the minimum send rate; a read past one of them fails, and
//!   the service answers 408 with the reason it finds in [`Exchanges::fault`].
//! * **An answer.** Each write must make progress within the I/O timeout, and after that grace
//!   the answer must average the minimum send rate, else the connection is dropped.
//! * **hyper's own answers.** hyper answers a head it cannot parse with a bare status (400, 431,
//!   414) and closes. Such an answer is the only thing hyper writes while no request is being
//!   served; this wrapper writes in its place the spec's error body, explained by the plane's
//!   own head parser ([`super::wire::parse_head`]) over the bytes that arrived since the last
//!   answer — so a request line in HTTP/2.0 is told 505, as before. (A head pipelined behind
//!   another request, already in hyper's buffer when its predecessor's answer ends, is explained
//!   by its status alone.)
//! * **A closing connection** is half-closed and its unread input drained for a moment
//!   (at most 2 s and 256 KiB), so the answer just written is not lost to a reset.
//!
//! After a `101 Switching Protocols` none of this applies: the service takes the socket back out
//! of hyper (see [`Edge::into_stream`]).
//!
//! The wrapper is hyper's I/O itself (`hyper::rt::Read` and `Write`), with no adapter between:
//! hyper lends its read buffer uninitialised, and a generic adapter from smol's traits zeroes
//! all of its spare room before every read. This one reads into a buffer of its own, zeroed
//! once, and copies on only what arrived (see `Edge::scratch`).

use std::future::Future;
use std::io;
use std::net::Shutdown;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_lite::{AsyncRead, AsyncWrite};
use hyper::rt::ReadBufCursor;
use smol::Timer;
use smol::net::TcpStream;

use super::server::{Limits, TRIAL_HEAD_TIMEOUT};
use super::wire::{self, Refusal};

/// Longest a closing connection is drained for.
const LINGER: Duration = Duration::from_secs(2);
/// Most bytes drained from a closing connection.
const LINGER_BYTES: usize = 256 * 1024;
/// Most bytes of a head kept to explain hyper's refusal of it.
const SEEN_MAX: usize = wire::MAX_HEAD_BYTES + 1024;
/// Most bytes one read from the socket brings.
const READ_MAX: usize = 64 * 1024;
/// Largest read buffer a connection keeps while it waits for its next head.
const READ_KEPT: usize = 16 * 1024;

/// Why a request body's read was cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BodyFault {
    /// A read brought nothing within the I/O timeout, or the body took longer than the body
    /// timeout.
    Timeout,
    /// The body arrived slower than the minimum rate.
    TooSlow,
}

/// What the service tells the wrapper about its requests, and the wrapper tells the service.
/// Both sides run in the connection's one task; the fields are atomics only so the service
/// (which hyper requires to be `Send`) can share them.
#[derive(Default)]
pub(super) struct Exchanges {
    /// Requests the service has begun.
    begun: AtomicU64,
    /// Answers hyper has let go of (written, or given up).
    answered: AtomicU64,
    /// The current request's body is being read.
    body_open: AtomicBool,
    /// Why the current body's read was cut: 0 not, 1 [`BodyFault::Timeout`], 2
    /// [`BodyFault::TooSlow`].
    fault: AtomicU8,
    /// The current answer is a `101`: the socket leaves hyper after it.
    upgrading: AtomicBool,
    /// The connection was admitted on trial and has shown no credential yet.
    on_trial: AtomicBool,
}

/// The shared [`Exchanges`].
pub(super) type Shared = Arc<Exchanges>;

impl Exchanges {
    /// A new request's head has been parsed; `body` says whether a body follows.
    pub(super) fn begin(&self, body: bool) {
        self.body_open.store(body, SeqCst);
        self.fault.store(0, SeqCst);
        self.upgrading.store(false, SeqCst);
        self.begun.fetch_add(1, SeqCst);
    }
    /// The current request's body has been read (or abandoned).
    pub(super) fn body_read(&self) {
        self.body_open.store(false, SeqCst);
    }
    /// hyper let go of an answer.
    pub(super) fn answered(&self) {
        self.answered.fetch_add(1, SeqCst);
    }
    /// The current answer is a `101 Switching Protocols`.
    pub(super) fn upgrade(&self) {
        self.upgrading.store(true, SeqCst);
    }
    /// Why the current body's read was cut, if it was.
    #[must_use]
    pub(super) fn fault(&self) -> Option<BodyFault> {
        match self.fault.load(SeqCst) {
            1 => Some(BodyFault::Timeout),
            2 => Some(BodyFault::TooSlow),
            _ => None,
        }
    }
    fn cut(&self, fault: BodyFault) {
        let code = match fault {
            BodyFault::Timeout => 1,
            BodyFault::TooSlow => 2,
        };
        self.fault.store(code, SeqCst);
    }
    /// Whether the connection is still on trial.
    pub(super) fn set_on_trial(&self, on_trial: bool) {
        self.on_trial.store(on_trial, SeqCst);
    }
    fn on_trial(&self) -> bool {
        self.on_trial.load(SeqCst)
    }
}

/// Where the connection is.
enum Phase {
    /// Waiting for a head (and keeping what arrives, to explain a refusal).
    Idle { deadline: Instant, seen: Vec<u8> },
    /// Serving the request the service began (`begun` of [`Exchanges`]).
    Serving {
        request: u64,
        body: Option<BodyClock>,
        pace: Option<Pace>,
    },
    /// Writing an answer of its own, then closing.
    Own { bytes: Vec<u8>, at: usize },
    /// Draining before the close.
    Linger { deadline: Instant, drained: usize },
    /// Closed: reads end, writes are swallowed.
    Closed,
}

/// Renders the plane's answer to a refusal as the bytes of a closing HTTP/1.1 answer.
pub(super) type Render = Box<dyn Fn(&Refusal) -> Vec<u8> + Send + Sync>;

/// The connection's socket, wrapped.
pub(super) struct Edge {
    stream: TcpStream,
    shared: Shared,
    limits: Limits,
    render: Render,
    phase: Phase,
    /// Where the socket is read into before the bytes are handed to hyper. hyper lends its own
    /// buffer uninitialised; reading into it needs either `unsafe` or zeroing its whole spare
    /// room on every read (what a generic adapter does, a memset of 8 KiB or more per read).
    /// This buffer is zeroed once, when it grows, and only the bytes read are copied on. It
    /// grows with hyper's spare room up to [`READ_MAX`] and is let go, past [`READ_KEPT`],
    /// when the connection waits for its next head.
    scratch: Vec<u8>,
    /// The last request (`begun` of [`Exchanges`]) this wrapper has seen begin.
    followed: u64,
    /// A read returned pending while an answer was being served, with no deadline armed: the
    /// end of the answer must wake the task so the read is polled again under the head's.
    read_unarmed: bool,
    read_timer: Timer,
    read_at: Option<Instant>,
    write_timer: Timer,
    write_at: Option<Instant>,
}

impl Edge {
    /// Wraps a connection's socket, just accepted: its first head is due within the header
    /// timeout from now.
    pub(super) fn new(stream: TcpStream, shared: Shared, limits: Limits, render: Render) -> Self {
        let on_trial = shared.on_trial();
        let mut edge = Self {
            stream,
            shared,
            limits,
            render,
            phase: Phase::Closed,
            scratch: Vec::new(),
            followed: 0,
            read_unarmed: false,
            read_timer: Timer::never(),
            read_at: None,
            write_timer: Timer::never(),
            write_at: None,
        };
        edge.idle(on_trial);
        edge
    }

    /// The socket, after an upgrade.
    #[must_use]
    pub(super) fn into_stream(self) -> TcpStream {
        self.stream
    }

    fn idle(&mut self, on_trial: bool) {
        let wait = if on_trial {
            self.limits.header_timeout.min(TRIAL_HEAD_TIMEOUT)
        } else {
            self.limits.header_timeout
        };
        self.phase = Phase::Idle {
            deadline: Instant::now() + wait,
            seen: Vec::new(),
        };
        if self.scratch.len() > READ_KEPT {
            self.scratch = Vec::new();
        }
    }

    /// Follows what the service did since the last poll: a request begun, its body read.
    fn follow(&mut self) {
        let begun = self.shared.begun.load(SeqCst);
        if begun > self.followed {
            self.followed = begun;
            self.phase = Phase::Serving {
                request: begun,
                body: self
                    .shared
                    .body_open
                    .load(SeqCst)
                    .then(|| BodyClock::new(&self.limits)),
                pace: None,
            };
        } else if let Phase::Serving { body, .. } = &mut self.phase
            && body.is_some()
            && !self.shared.body_open.load(SeqCst)
        {
            *body = None;
        }
    }

    /// Whether the answer to the current request has been let go of and flushed: back to
    /// waiting for a head. The task is woken when hyper already left a read pending in the
    /// answer's phase, so the read is polled again under the head deadline.
    fn answer_done(&mut self, cx: &mut Context<'_>) {
        let x = &self.shared;
        let answered = x.answered.load(SeqCst);
        let begun = x.begun.load(SeqCst);
        let done = matches!(self.phase, Phase::Serving { request, .. }
            if answered >= request && begun == request && !x.upgrading.load(SeqCst));
        let on_trial = x.on_trial();
        if done {
            self.idle(on_trial);
            if std::mem::take(&mut self.read_unarmed) {
                cx.waker().wake_by_ref();
            }
        }
    }

    /// Starts an answer of the plane's own, which ends the connection.
    fn own(&mut self, refusal: &Refusal) {
        tracing::debug!(status = refusal.status, reason = %refusal.message, "answered at the edge");
        let bytes = (self.render)(refusal);
        self.phase = Phase::Own { bytes, at: 0 };
    }

    /// Drives an answer of its own and the drain after it. Ready when the connection is done.
    fn poll_finish(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            match &mut self.phase {
                Phase::Own { bytes, at } => {
                    if *at >= bytes.len() {
                        self.start_linger();
                        continue;
                    }
                    match Pin::new(&mut self.stream).poll_write(cx, &bytes[*at..]) {
                        Poll::Ready(Ok(n)) if n > 0 => *at += n,
                        Poll::Ready(_) => self.phase = Phase::Closed,
                        Poll::Pending => {
                            // The answer is small; a client that takes none of it within the
                            // I/O timeout is not waited for.
                            let at = self
                                .write_at
                                .unwrap_or_else(|| Instant::now() + self.limits.io_timeout);
                            if poll_at(&mut self.write_timer, &mut self.write_at, at, cx) {
                                self.phase = Phase::Closed;
                                continue;
                            }
                            return Poll::Pending;
                        }
                    }
                }
                Phase::Linger { deadline, drained } => {
                    let deadline = *deadline;
                    let mut sink = [0_u8; 4096];
                    match Pin::new(&mut self.stream).poll_read(cx, &mut sink) {
                        Poll::Ready(Ok(n)) if n > 0 && *drained + n < LINGER_BYTES => {
                            *drained += n;
                        }
                        Poll::Ready(_) => self.close(),
                        Poll::Pending => {
                            if poll_at(&mut self.read_timer, &mut self.read_at, deadline, cx) {
                                self.close();
                            } else {
                                return Poll::Pending;
                            }
                        }
                    }
                }
                _ => return Poll::Ready(()),
            }
        }
    }

    fn start_linger(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Write);
        self.read_at = None;
        self.phase = Phase::Linger {
            deadline: Instant::now() + LINGER,
            drained: 0,
        };
    }

    fn close(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
        self.phase = Phase::Closed;
    }

    /// The plane's explanation of a head hyper refused with `status`.
    fn explain(seen: &[u8], status: u16) -> Refusal {
        match wire::parse_head(seen) {
            Err(r) => r,
            Ok(_) => Refusal {
                status,
                code: match status {
                    431 => "HEADERS_TOO_LARGE",
                    414 => "URI_TOO_LONG",
                    _ => "BAD_REQUEST",
                },
                message: "malformed request head".into(),
                close: true,
            },
        }
    }
}

/// Polls `timer` set for `at` (set again only when `at` moved): whether it has passed.
fn poll_at(
    timer: &mut Timer,
    armed: &mut Option<Instant>,
    at: Instant,
    cx: &mut Context<'_>,
) -> bool {
    if *armed != Some(at) {
        timer.set_at(at);
        *armed = Some(at);
    }
    Pin::new(timer).poll(cx).is_ready()
}

/// The status of an answer hyper began to write (`HTTP/1.1 NNN ...`).
fn status_of(answer: &[u8]) -> u16 {
    answer
        .get(9..12)
        .and_then(|d| std::str::from_utf8(d).ok())
        .and_then(|d| d.parse().ok())
        .unwrap_or(400)
}

impl hyper::rt::Read for Edge {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let want = buf.remaining().min(READ_MAX);
        if want == 0 {
            return Poll::Ready(Ok(()));
        }
        if this.scratch.len() < want {
            this.scratch.resize(want, 0);
        }
        let mut scratch = std::mem::take(&mut this.scratch);
        let r = this.read_into(cx, &mut scratch[..want]);
        if let Poll::Ready(Ok(n)) = r {
            buf.put_slice(&scratch[..n]);
        }
        this.scratch = scratch;
        r.map(|r| r.map(|_| ()))
    }
}

impl Edge {
    /// Reads into `buf` under the deadline of the connection's phase.
    fn read_into(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.follow();
        loop {
            match &mut self.phase {
                Phase::Idle { deadline, seen } => {
                    let deadline = *deadline;
                    match Pin::new(&mut self.stream).poll_read(cx, buf) {
                        Poll::Ready(Ok(n)) => {
                            let room = SEEN_MAX.saturating_sub(seen.len()).min(n);
                            seen.extend_from_slice(&buf[..room]);
                            return Poll::Ready(Ok(n));
                        }
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                        Poll::Pending => {}
                    }
                    if !poll_at(&mut self.read_timer, &mut self.read_at, deadline, cx) {
                        return Poll::Pending;
                    }
                    let began = !seen.is_empty();
                    let on_trial = self.shared.on_trial();
                    tracing::debug!("no request head within the header timeout; closing");
                    if on_trial {
                        self.own(&super::server::busy());
                    } else if began {
                        self.own(&Refusal {
                            status: 408,
                            code: "REQUEST_TIMEOUT",
                            message: "the request head did not arrive in time".into(),
                            close: true,
                        });
                    } else {
                        self.close();
                        return Poll::Ready(Ok(0));
                    }
                }
                Phase::Serving {
                    body: Some(clock), ..
                } => {
                    let (at, fault) = clock.next_deadline();
                    match Pin::new(&mut self.stream).poll_read(cx, buf) {
                        Poll::Ready(Ok(n)) => {
                            clock.arrived(n);
                            return Poll::Ready(Ok(n));
                        }
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                        Poll::Pending => {}
                    }
                    if !poll_at(&mut self.read_timer, &mut self.read_at, at, cx) {
                        return Poll::Pending;
                    }
                    self.shared.cut(fault);
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the request body did not arrive in time",
                    )));
                }
                Phase::Serving { body: None, .. } => {
                    let r = Pin::new(&mut self.stream).poll_read(cx, buf);
                    self.read_unarmed = r.is_pending();
                    return r;
                }
                Phase::Own { .. } | Phase::Linger { .. } | Phase::Closed => {
                    return self.poll_finish(cx).map(|()| Ok(0));
                }
            }
        }
    }
}

impl hyper::rt::Write for Edge {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.follow();
        match &mut this.phase {
            Phase::Idle { seen, .. } => {
                // hyper's own answer to a head it refused: ours goes out instead.
                let refusal = Self::explain(seen, status_of(buf));
                this.own(&refusal);
                match this.poll_finish(cx) {
                    Poll::Ready(()) => Poll::Ready(Ok(buf.len())),
                    Poll::Pending => Poll::Pending,
                }
            }
            Phase::Own { .. } | Phase::Linger { .. } | Phase::Closed => {
                match this.poll_finish(cx) {
                    Poll::Ready(()) => Poll::Ready(Ok(buf.len())),
                    Poll::Pending => Poll::Pending,
                }
            }
            Phase::Serving { pace, .. } => {
                let pace = pace.get_or_insert_with(|| Pace::new(&this.limits));
                match Pin::new(&mut this.stream).poll_write(cx, buf) {
                    Poll::Ready(Ok(n)) => {
                        this.write_at = None;
                        pace.sent(n)?;
                        Poll::Ready(Ok(n))
                    }
                    Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                    Poll::Pending => {
                        // The stall's start (kept while it lasts) plus the I/O timeout.
                        let at = this
                            .write_at
                            .unwrap_or_else(|| Instant::now() + this.limits.io_timeout);
                        if poll_at(&mut this.write_timer, &mut this.write_at, at, cx) {
                            return Poll::Ready(Err(io::Error::new(
                                io::ErrorKind::TimedOut,
                                "the client stopped reading",
                            )));
                        }
                        Poll::Pending
                    }
                }
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.follow();
        match &this.phase {
            Phase::Own { .. } | Phase::Linger { .. } | Phase::Closed => {
                this.poll_finish(cx).map(|()| Ok(()))
            }
            _ => {
                let r = Pin::new(&mut this.stream).poll_flush(cx);
                if matches!(r, Poll::Ready(Ok(()))) {
                    this.answer_done(cx);
                }
                r
            }
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match &this.phase {
            Phase::Serving { .. } | Phase::Idle { .. } => {
                this.start_linger();
                this.poll_finish(cx).map(|()| Ok(()))
            }
            _ => this.poll_finish(cx).map(|()| Ok(())),
        }
    }
}

/// The deadlines of one request body: each read within the I/O timeout, the whole body within
/// the body timeout, and, after a grace of the I/O timeout, an average of at least the minimum
/// rate since the body began (what a client trickling just fast enough to beat the progress
/// timeout fails).
struct BodyClock {
    started: Instant,
    deadline: Instant,
    io_timeout: Duration,
    min_rate: u64,
    received: u64,
    last: Instant,
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
            last: started,
        }
    }

    fn arrived(&mut self, n: usize) {
        self.received = self.received.saturating_add(n as u64);
        self.last = Instant::now();
    }

    /// The first deadline the next read must beat, and what passing it means.
    fn next_deadline(&self) -> (Instant, BodyFault) {
        let mut at = (self.last + self.io_timeout).min(self.deadline);
        let mut fault = BodyFault::Timeout;
        if let Some(ms) = self
            .received
            .saturating_mul(1000)
            .checked_div(self.min_rate)
        {
            let covered = Duration::from_millis(ms);
            if let Some(pace) = self.started.checked_add(covered.max(self.io_timeout))
                && pace < at
            {
                at = pace;
                fault = BodyFault::TooSlow;
            }
        }
        (at, fault)
    }
}

/// The pace of one answer: progress within the I/O timeout, and after that grace at least the
/// minimum rate on average.
struct Pace {
    started: Instant,
    sent: u64,
    grace: Duration,
    min_rate: u64,
}

impl Pace {
    fn new(limits: &Limits) -> Self {
        Self {
            started: Instant::now(),
            sent: 0,
            grace: limits.io_timeout,
            min_rate: limits.min_send_rate,
        }
    }

    fn sent(&mut self, n: usize) -> io::Result<()> {
        self.sent += n as u64;
        let elapsed = self.started.elapsed();
        if elapsed > self.grace && self.sent < self.min_rate.saturating_mul(elapsed.as_secs()) {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client reads slower than the minimum rate",
            ));
        }
        Ok(())
    }
}
