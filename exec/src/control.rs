//! A persistent tmux control-mode client (`tmux -C`) for the node's private server.
//!
//! Starting a tmux client process costs about 1.8 ms per call; a request over one long-lived
//! control-mode client costs about a tenth of that. [`Control`] keeps such a client attached to
//! a quiet session of its own (`termplane-ctl`, whose single pane runs `cat` and prints
//! nothing), writes one command per line and reads tmux's framed answers. The client is
//! started like every other tmux process of the node ([`super::tmux::Tmux::command`]): marked
//! UTF-8, so tmux prints its answers as they are whatever the locale.
//!
//! # Keeping the argv guarantee
//!
//! A control-mode line is parsed by tmux's command parser, so each word is quoted by
//! [`quote_word`]: printable text inside single quotes (where tmux expands nothing: no `$VAR`,
//! no `~`, no `;`, no `#` comment), and a `'` or control character as a double-quoted octal
//! escape. A newline or `;` in a word therefore can never end a command, and a word is exactly
//! the argv word it stands for. Formats are expanded by the same commands as before, so callers
//! keep escaping text placed in a format ([`super::tmux::escape_format`]).
//!
//! # Reading answers that carry pane text
//!
//! tmux frames each command's output as `%begin T N F` … `%end T N F` (or `%error T N F`);
//! notifications (`%sessions-changed`, …) come only between blocks. `capture-pane` output is
//! pane text, which a program in a pane controls, so it could print a line that looks like a
//! frame. Every request is therefore followed by a second line, `display-message -p` of a
//! marker carrying a 128-bit secret of this process and a counter, and the answer is accepted
//! only when exactly two blocks arrive, each closed by the guard of its own `%begin`, the second
//! holding the marker and nothing else. Any other shape (a stray line, an end with no begin, an
//! extra block) means the stream is out of step: the client is killed and the call fails; it is
//! never resynchronised and no half-read answer is used.
//!
//! # Commands sent without waiting
//!
//! A keystroke typed into a pane that a viewer watches need not wait for tmux's word that it
//! was typed: its echo is the answer. [`Control::send_unanswered`] writes a `send-keys` line
//! with no marker and returns at once with a ticket; its block (empty, or an error) is read and
//! checked by the next call, ahead of that call's own blocks, so the stream is never read out
//! of step, or by [`Control::try_settle`], which reads only what has already arrived and tells
//! the sender how it went. A sender that wants to know waits rather than asking on a timer: on
//! [`Control::listen`] (notified whenever someone else read answers, or the client was
//! dropped) and on the readiness of [`Control::answers_fd`] (tmux wrote something nobody has
//! read), then asks again. An unanswered block that holds anything but nothing (success) or an
//! error text ends the client as any other stray line does. At most [`MAX_UNANSWERED`] are
//! outstanding; past that the caller waits as usual (which reads them all).
//!
//! # Falling back
//!
//! When no control client runs (no server yet, the server was killed, a client died), a call
//! runs as its own tmux process exactly as before, and a new control client is attached at most
//! once a second after a call shows that the server is up. A control client that fails while a
//! command may already have run does not re-run it: the call reports the failure.

use std::collections::VecDeque;
use std::os::fd::OwnedFd;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, poll};
use rustix::io::Errno;

use super::tmux::TmuxError;

/// Name of the control client's own session (never a subshell's: those start with `tp-`).
pub const CONTROL_SESSION: &str = "termplane-ctl";
/// Longest line read from the control client (longer lines are cut and the stream is
/// treated as out of step).
const LINE_CAP: usize = 8 * 1024 * 1024;
/// Least time between two attach attempts.
const RECONNECT_GAP: Duration = Duration::from_secs(1);
/// How long an attach may take.
const ATTACH_DEADLINE: Duration = Duration::from_secs(3);
/// Most commands sent without waiting whose blocks are not read yet (their blocks wait in the
/// client's pipe, about 60 bytes each, well inside its 64 KiB).
pub const MAX_UNANSWERED: usize = 256;
/// Longest line sent without waiting: a pipe takes a write of up to this many bytes whole or
/// not at all (POSIX `PIPE_BUF`), so a full pipe never leaves half a command behind.
const ATOMIC_LINE: usize = 4096;
/// Most bytes read from the client at once.
const READ_BYTES: usize = 16 * 1024;

/// One line from the client's standard output, or its end.
enum Line {
    Text(String),
    End,
}

/// Why no line came.
#[derive(Debug, PartialEq, Eq)]
enum NoLine {
    /// None arrived before the deadline.
    TimedOut,
    /// The stream ended (its end was already handed out).
    Closed,
}

/// The client's standard output, read by whoever calls, when it calls: no thread of the
/// executor waits on it (a sender of keys waits on its readiness in the embedder's reactor,
/// see [`Control::answers_fd`]).
struct Lines {
    /// Non-blocking; `None` for a stream given whole in advance (see [`read_scripted`]).
    fd: Option<OwnedFd>,
    /// The bytes of a line not ended yet.
    partial: Vec<u8>,
    ready: VecDeque<Line>,
    ended: bool,
}

impl Lines {
    fn new(fd: OwnedFd) -> std::io::Result<Self> {
        let flags = rustix::fs::fcntl_getfl(&fd)?;
        rustix::fs::fcntl_setfl(&fd, flags | rustix::fs::OFlags::NONBLOCK)?;
        Ok(Self {
            fd: Some(fd),
            partial: Vec::new(),
            ready: VecDeque::new(),
            ended: false,
        })
    }

    /// A stream of exactly `chunks`, as if they had been read in that order and then the
    /// stream had ended.
    fn scripted(chunks: &[&[u8]]) -> Self {
        let mut lines = Self {
            fd: None,
            partial: Vec::new(),
            ready: VecDeque::new(),
            ended: false,
        };
        for c in chunks {
            lines.take(c);
        }
        if !lines.ended {
            lines.finish();
        }
        lines
    }

    /// Reads what has arrived without waiting; `false` when nothing had.
    fn fill(&mut self) -> bool {
        if self.ended {
            return false;
        }
        let Some(fd) = &self.fd else {
            self.finish();
            return true;
        };
        // On the stack: a buffer on the heap, made when the client attaches, could stand above
        // a large block freed just before (a password hash's) and keep the heap from shrinking.
        // Left unfilled: the read says how much of it holds bytes, and zeroing 16 KiB before
        // each read (two per keystroke: the answer, then the read that finds nothing) is work
        // for nothing.
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); READ_BYTES];
        loop {
            match rustix::io::read(fd, &mut buf) {
                Ok(([], _)) => break,
                Ok((got, _)) => {
                    self.take(got);
                    return true;
                }
                Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => return false,
                Err(_) => break,
            }
        }
        self.finish();
        true
    }

    fn take(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            self.partial.extend_from_slice(&rest[..i]);
            let line = String::from_utf8_lossy(&self.partial).into_owned();
            self.partial.clear();
            self.ready.push_back(Line::Text(line));
            rest = &rest[i + 1..];
        }
        self.partial.extend_from_slice(rest);
        if self.partial.len() >= LINE_CAP {
            // A cut line: the stream ends here, so the caller sees it out of step.
            self.partial.clear();
            self.ready.push_back(Line::End);
            self.ended = true;
        }
    }

    /// The stream ended: a last line with no newline is still a line.
    fn finish(&mut self) {
        if !self.partial.is_empty() {
            let line = String::from_utf8_lossy(&self.partial).into_owned();
            self.partial.clear();
            self.ready.push_back(Line::Text(line));
        }
        self.ready.push_back(Line::End);
        self.ended = true;
    }

    /// The next line if one has arrived (`None` when none has, or the stream ended).
    fn try_next(&mut self) -> Option<Line> {
        if self.ready.is_empty() {
            self.fill();
        }
        self.ready.pop_front()
    }

    /// The next line, waiting until `deadline`.
    fn next(&mut self, deadline: Instant) -> Result<Line, NoLine> {
        loop {
            if let Some(l) = self.ready.pop_front() {
                return Ok(l);
            }
            if self.ended {
                return Err(NoLine::Closed);
            }
            if self.fill() {
                continue;
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            if wait.is_zero() {
                return Err(NoLine::TimedOut);
            }
            if let Some(fd) = &self.fd {
                wait_for(fd, PollFlags::IN, wait);
            }
        }
    }
}

/// Waits up to `wait` for `fd` to be ready for `flags` (a signal or a spurious wake-up returns
/// early; callers loop).
fn wait_for(fd: &OwnedFd, flags: PollFlags, wait: Duration) {
    let timeout = rustix::time::Timespec {
        tv_sec: i64::try_from(wait.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(wait.subsec_nanos()),
    };
    let mut fds = [PollFd::new(fd, flags)];
    let _ = poll(&mut fds, Some(&timeout));
}

/// Writes all of `bytes` to the non-blocking `fd`, waiting for room until `deadline`.
fn write_until(fd: &OwnedFd, mut bytes: &[u8], deadline: Instant) -> Result<(), Errno> {
    while !bytes.is_empty() {
        match rustix::io::write(fd, bytes) {
            Ok(n) => bytes = bytes.get(n..).unwrap_or_default(),
            Err(Errno::INTR) => {}
            Err(Errno::AGAIN) => {
                let wait = deadline.saturating_duration_since(Instant::now());
                if wait.is_zero() {
                    return Err(Errno::TIMEDOUT);
                }
                wait_for(fd, PollFlags::OUT, wait);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

struct Conn {
    child: Child,
    /// The client's standard input, non-blocking.
    stdin: OwnedFd,
    lines: Lines,
}

impl Conn {
    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct State {
    conn: Option<Conn>,
    /// Set when a call proved the server is running; cleared when it proved it is not.
    server_up: bool,
    next_attach: Option<Instant>,
    counter: u64,
    /// Tickets of the commands sent with [`Control::send_unanswered`] whose blocks are not read
    /// yet, oldest first.
    unanswered: VecDeque<u64>,
    next_ticket: u64,
    /// How unanswered commands went, read but not yet asked for (the newest
    /// [`MAX_UNANSWERED`]).
    settled: std::collections::BTreeMap<u64, Result<(), String>>,
    /// A duplicate of the attached client's output, for [`Control::answers_fd`] (shared with
    /// it, so that a sender gets it without taking this state's lock). One per client: a new
    /// client is a new `Arc`, which is how a waiter tells it from the last.
    answers: Arc<Mutex<Option<Arc<OwnedFd>>>>,
}

/// What a sender of keys not yet answered waits on: a notification that someone else read
/// answers (or the client ended), and the client's output ([`Control::answers_fd`]).
pub type AnswerWatch = (event_listener::EventListener, Option<Arc<OwnedFd>>);

impl State {
    fn attached(&mut self, conn: Conn) {
        let dup = conn
            .lines
            .fd
            .as_ref()
            .and_then(|fd| fd.try_clone().ok())
            .map(Arc::new);
        if let Ok(mut a) = self.answers.lock() {
            *a = dup;
        }
        self.conn = Some(conn);
    }

    fn drop_conn(&mut self) {
        if let Ok(mut a) = self.answers.lock() {
            *a = None;
        }
        // Their blocks will never be read: whether they were typed is not known.
        self.unanswered.clear();
        if let Some(c) = self.conn.take() {
            c.kill();
        }
    }
}

/// The control-mode client of one tmux server (shared by every clone of its [`super::tmux::Tmux`]).
pub struct Control {
    secret: String,
    state: Mutex<State>,
    answers: Arc<Mutex<Option<Arc<OwnedFd>>>>,
    /// Notified each time the state lock is let go after answers of commands sent unanswered
    /// may have been read or lost (see [`Self::listen`]).
    answered: event_listener::Event,
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control").finish_non_exhaustive()
    }
}

/// What [`Control::settle`] found out about a command sent unanswered.
#[derive(Debug, PartialEq, Eq)]
pub enum Settle {
    /// tmux answered: typed, or its error text (a command whose answer was lost with its
    /// client, or was already asked for, counts as typed).
    Done(Result<(), String>),
    /// tmux has not written the whole answer yet.
    NotYet,
    /// Someone else holds the client; it notifies [`Control::listen`]ers on letting go.
    Busy,
}

/// Why a control call did not produce an answer.
pub enum Outcome {
    /// tmux answered: the command's output, or its error text.
    Answer(Result<String, String>),
    /// No control client could take the call; nothing was sent. Run it as a process.
    Unavailable,
    /// The client failed after the command was sent; it may or may not have run.
    Failed(TmuxError),
}

impl Control {
    /// A control slot with no client yet.
    #[must_use]
    pub fn new() -> Self {
        let secret = crate::util::random_bytes::<16>()
            .map(|b| crate::util::hex(&b))
            .unwrap_or_else(|_| format!("{:x}", crate::util::unix_millis()));
        let answers = Arc::new(Mutex::new(None));
        Self {
            secret,
            answers: Arc::clone(&answers),
            state: Mutex::new(State {
                conn: None,
                server_up: false,
                next_attach: None,
                counter: 0,
                unanswered: VecDeque::new(),
                next_ticket: 0,
                settled: std::collections::BTreeMap::new(),
                answers,
            }),
            answered: event_listener::Event::new(),
        }
    }

    /// A listener notified the next time what is known about commands sent unanswered may have
    /// changed. Every holder of the state lets go of it with this notification, except
    /// [`Self::settle`] when it read nothing new for others (so two senders waiting at once
    /// never wake each other in turn): blocks read by a call, keys sent, the client dropped (the
    /// answers of keys sent before are then lost, and they count as typed). Take it *before*
    /// asking [`Self::settle`] (as [`Self::settle_or_watch`] does), so that nothing between the
    /// two is missed.
    pub fn listen(&self) -> event_listener::EventListener {
        self.answered.listen()
    }

    /// A duplicate of the attached client's standard output (non-blocking), to wait on for
    /// tmux's next words; `None` when no client is attached. Reading is left to
    /// [`Self::settle`]: the descriptor is only for readiness. Never waits for the state, and
    /// makes no system call: the same descriptor is shared for the client's life, so a waiter
    /// may keep it registered with its reactor until a new client brings another.
    #[must_use]
    pub fn answers_fd(&self) -> Option<Arc<OwnedFd>> {
        self.answers.lock().ok()?.clone()
    }

    /// Wakes those waiting on [`Self::listen`].
    fn announce(&self) {
        self.answered.notify(usize::MAX);
    }

    /// Records what a process-run call showed about the server.
    pub fn note_server(&self, up: bool) {
        if let Ok(mut s) = self.state.lock() {
            s.server_up = up;
            if !up {
                s.drop_conn();
            }
        }
        self.announce();
    }

    /// Drops the client (the server is being stopped).
    pub fn disconnect(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.drop_conn();
        }
        self.announce();
    }

    /// Whether a client is attached now.
    #[must_use]
    pub fn is_attached(&self) -> bool {
        let attached = self.state.lock().is_ok_and(|s| s.conn.is_some());
        self.announce();
        attached
    }

    /// Runs one command (`words`, unquoted) over the control client.
    pub fn call(&self, tmux: &super::tmux::Tmux, words: &[&str], deadline: Duration) -> Outcome {
        let outcome = self.call_locked(tmux, words, deadline);
        // The answers of keys sent unanswered before it were read with it (or lost with the
        // client): their senders look again.
        self.announce();
        outcome
    }

    fn call_locked(&self, tmux: &super::tmux::Tmux, words: &[&str], deadline: Duration) -> Outcome {
        let Ok(mut st) = self.state.lock() else {
            return Outcome::Unavailable;
        };
        if st.conn.is_none() {
            let due = st.next_attach.is_none_or(|t| Instant::now() >= t);
            if !st.server_up || !due {
                return Outcome::Unavailable;
            }
            st.next_attach = Some(Instant::now() + RECONNECT_GAP);
            match attach(tmux) {
                Ok(c) => st.attached(c),
                // The server did not answer the attach's own check: asking it again as a
                // process would only wait another deadline.
                Err(e) if e == TmuxError::TimedOut.to_string() => {
                    tmux.debug("tmux control client not attached: no answer in time");
                    return Outcome::Failed(TmuxError::TimedOut);
                }
                Err(e) => {
                    tmux.debug(&format!("tmux control client not attached: {e}"));
                    return Outcome::Unavailable;
                }
            }
        }
        st.counter += 1;
        let marker = format!("tpsync {} {}", self.secret, st.counter);
        let mut line = command_line(words);
        line.push_str("display-message -p ");
        line.push_str(&quote_word(&marker));
        line.push('\n');
        // Blocks of commands sent without waiting come first; they are read with the answer.
        let tickets = std::mem::take(&mut st.unanswered);
        let skip = tickets.len();
        let st = &mut *st;
        let Some(conn) = st.conn.as_mut() else {
            return Outcome::Unavailable;
        };
        // Notifications that arrived since the last call; anything else is out of step (unless
        // it belongs to a block still to be read).
        while skip == 0
            && let Some(next) = conn.lines.try_next()
        {
            match next {
                Line::Text(l) if is_notification(&l) => {}
                Line::Text(l) => {
                    tmux.debug(&format!("tmux control client out of step: {l:?}"));
                    st.drop_conn();
                    return Outcome::Unavailable;
                }
                Line::End => {
                    tmux.debug("tmux control client exited");
                    st.drop_conn();
                    return Outcome::Unavailable;
                }
            }
        }
        match write_until(&conn.stdin, line.as_bytes(), Instant::now() + deadline) {
            Ok(()) => {}
            // tmux took no input for the whole deadline: it may have read part of the line.
            Err(Errno::TIMEDOUT) => {
                tmux.debug("tmux control client took no input in time");
                st.drop_conn();
                return Outcome::Failed(TmuxError::TimedOut);
            }
            Err(_) => {
                st.drop_conn();
                return Outcome::Unavailable;
            }
        }
        let mut tickets = tickets.into_iter();
        let settled = &mut st.settled;
        let mut on_unanswered = |r: Result<(), String>| {
            if let Err(e) = &r {
                tmux.debug(&format!("keys sent unanswered: {e}"));
            }
            if let Some(t) = tickets.next() {
                keep_settled(settled, t, r);
            }
        };
        match read_answer(
            &mut conn.lines,
            skip,
            &mut on_unanswered,
            &marker,
            Instant::now() + deadline,
        ) {
            Ok(answer) => Outcome::Answer(answer),
            Err(e) => {
                tmux.debug(&format!("tmux control call failed: {e}"));
                st.drop_conn();
                Outcome::Failed(e)
            }
        }
    }

    /// Writes one command (`words`, unquoted) over the control client without waiting for its
    /// answer (see the module docs): answers its ticket when it was sent, for
    /// [`Self::try_settle`]. `None` when no client is attached, the client is busy with a call,
    /// [`MAX_UNANSWERED`] are already outstanding, or the write failed; the caller then runs
    /// the command as usual. Only for commands whose success prints nothing (`send-keys`).
    pub fn send_unanswered(&self, words: &[&str]) -> Option<u64> {
        let sent = self.send_unanswered_locked(words);
        // A sender that found the state busy with this waits for its release.
        self.announce();
        sent
    }

    fn send_unanswered_locked(&self, words: &[&str]) -> Option<u64> {
        let Ok(mut st) = self.state.try_lock() else {
            return None;
        };
        if st.unanswered.len() >= MAX_UNANSWERED {
            return None;
        }
        let conn = st.conn.as_mut()?;
        let line = command_line(words);
        if line.len() > ATOMIC_LINE {
            return None;
        }
        // Whole or not at all (see ATOMIC_LINE); a full pipe (tmux not reading) is a refusal,
        // never a wait: the caller may be serving sockets.
        match rustix::io::write(&conn.stdin, line.as_bytes()) {
            Ok(n) if n == line.len() => {
                st.next_ticket += 1;
                let ticket = st.next_ticket;
                st.unanswered.push_back(ticket);
                Some(ticket)
            }
            Err(Errno::AGAIN | Errno::INTR) => None,
            // Half a line went, or the pipe broke: the client is done for.
            // (Keys sent before lose their answers with the client: they count as typed.)
            Ok(_) | Err(_) => {
                st.drop_conn();
                None
            }
        }
    }

    /// How the command sent unanswered as `ticket` went, from what tmux has already written
    /// (nothing waits): `Some(Ok)` typed (or no longer known: its client ended, or it was asked
    /// for before), `Some(Err)` with tmux's words, `None` not known yet (asked again later).
    pub fn try_settle(&self, ticket: u64) -> Option<Result<(), String>> {
        match self.settle(ticket) {
            Settle::Done(r) => Some(r),
            Settle::NotYet | Settle::Busy => None,
        }
    }

    /// How the command sent unanswered as `ticket` went, or what to wait on before asking again:
    /// a listener ([`Self::listen`], taken before asking) and, when tmux's next words are what
    /// is awaited, its output ([`Self::answers_fd`]). While the state is busy only the listener
    /// is given: its holder notifies on letting go (a wait on the descriptor would spin, since
    /// the answer may sit there unread until then).
    pub fn settle_or_watch(&self, ticket: u64) -> Result<Result<(), String>, AnswerWatch> {
        let news = self.listen();
        match self.settle(ticket) {
            Settle::Done(r) => Ok(r),
            Settle::NotYet => Err((news, self.answers_fd())),
            Settle::Busy => Err((news, None)),
        }
    }

    /// How the command sent unanswered as `ticket` went, from what tmux has already written
    /// (nothing waits).
    pub fn settle(&self, ticket: u64) -> Settle {
        let (answer, news) = self.settle_locked(ticket);
        if news {
            // Blocks of other senders' keys may have been read on the way to this one.
            self.announce();
        }
        answer
    }

    /// [`Self::settle`], and whether others may have news: answers of other tickets were
    /// read (kept for them, or left read ahead in the buffer, where their descriptor no longer
    /// shows them), or the client was dropped. Looking and finding nothing new is not news, so
    /// two senders waiting at once never wake each other in turn.
    fn settle_locked(&self, ticket: u64) -> (Settle, bool) {
        let Ok(mut st) = self.state.try_lock() else {
            return (Settle::Busy, false);
        };
        if let Some(r) = st.settled.remove(&ticket) {
            return (Settle::Done(r), false);
        }
        if !st.unanswered.contains(&ticket) {
            return (Settle::Done(Ok(())), false);
        }
        let mut news = false;
        loop {
            let st = &mut *st;
            let Some(conn) = st.conn.as_mut() else {
                return (Settle::Done(Ok(())), news);
            };
            match next_block(&mut conn.lines) {
                Ok(None) => return (Settle::NotYet, news),
                Ok(Some(block)) => {
                    let r = match block {
                        Ok(b) if b.is_empty() => Ok(()),
                        Ok(_) => {
                            st.drop_conn();
                            return (Settle::Done(Ok(())), true);
                        }
                        Err(e) => Err(e.trim_end().to_owned()),
                    };
                    let Some(t) = st.unanswered.pop_front() else {
                        st.drop_conn();
                        return (Settle::Done(Ok(())), true);
                    };
                    if t == ticket {
                        return (Settle::Done(r), news || !st.unanswered.is_empty());
                    }
                    keep_settled(&mut st.settled, t, r);
                    news = true;
                }
                Err(()) => {
                    st.drop_conn();
                    return (Settle::Done(Ok(())), true);
                }
            }
        }
    }
}

impl Default for Control {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Control {
    fn drop(&mut self) {
        self.disconnect();
    }
}

/// One tmux command as a line of the control client's input: each word quoted back into itself.
/// Built in one buffer (it runs on each keystroke's way to tmux).
fn command_line(words: &[&str]) -> String {
    let mut line = String::with_capacity(words.iter().map(|w| w.len() + 3).sum::<usize>() + 1);
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        quote_word_into(&mut line, w);
    }
    line.push('\n');
    line
}

/// Quotes one argv word for tmux's command parser so that it stays exactly that word.
#[must_use]
pub fn quote_word(w: &str) -> String {
    let mut out = String::with_capacity(w.len() + 2);
    quote_word_into(&mut out, w);
    out
}

/// [`quote_word`], appended to `out`.
fn quote_word_into(out: &mut String, w: &str) {
    let start = out.len();
    let mut in_single = false;
    for c in w.chars() {
        let plain = c != '\'' && !c.is_control();
        if plain {
            if !in_single {
                out.push('\'');
                in_single = true;
            }
            out.push(c);
        } else {
            if in_single {
                out.push('\'');
                in_single = false;
            }
            out.push('"');
            let mut buf = [0_u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                // `\ooo`: three octal digits.
                out.push('\\');
                for shift in [6, 3, 0] {
                    out.push(char::from(b'0' + ((b >> shift) & 7)));
                }
            }
            out.push('"');
        }
    }
    if in_single {
        out.push('\'');
    }
    if out.len() == start {
        out.push_str("''");
    }
}

fn is_notification(line: &str) -> bool {
    line.starts_with('%')
        && !line.starts_with("%begin ")
        && !line.starts_with("%end ")
        && !line.starts_with("%error ")
        && line != "%exit"
        && !line.starts_with("%exit ")
}

fn out_of_step(what: &str) -> TmuxError {
    TmuxError::Failed(format!("tmux control stream out of step: {what}"))
}

/// Keeps how an unanswered command went until it is asked for (the newest
/// [`MAX_UNANSWERED`]: a sender that never asks does not make the table grow).
fn keep_settled(
    settled: &mut std::collections::BTreeMap<u64, Result<(), String>>,
    ticket: u64,
    r: Result<(), String>,
) {
    settled.insert(ticket, r);
    while settled.len() > MAX_UNANSWERED {
        settled.pop_first();
    }
}

/// The next whole block among the lines that have already arrived (notifications before it
/// are passed over), without waiting: `Ok(None)` when it has not arrived whole yet (its lines
/// stay for the next look), `Err` when the stream is out of step or ended.
fn next_block(lines: &mut Lines) -> Result<Option<Result<String, String>>, ()> {
    while lines.fill() {}
    loop {
        match lines.ready.front() {
            None => return Ok(None),
            Some(Line::End) => return Err(()),
            Some(Line::Text(l)) if is_notification(l) => {
                lines.ready.pop_front();
            }
            Some(Line::Text(l)) => {
                let Some(guard) = l.strip_prefix("%begin ").map(str::to_owned) else {
                    return Err(());
                };
                let end = lines.ready.iter().skip(1).position(|l| match l {
                    Line::Text(t) => {
                        t.strip_prefix("%end ") == Some(guard.as_str())
                            || t.strip_prefix("%error ") == Some(guard.as_str())
                    }
                    Line::End => false,
                });
                let Some(end) = end else {
                    return Ok(None);
                };
                let mut body = String::new();
                let mut failed = false;
                for (i, l) in lines.ready.drain(..end + 2).enumerate() {
                    let Line::Text(t) = l else { return Err(()) };
                    if i == 0 {
                        continue;
                    }
                    if i == end + 1 {
                        failed = t.starts_with("%error ");
                        break;
                    }
                    body.push_str(&t);
                    body.push('\n');
                }
                return Ok(Some(if failed { Err(body) } else { Ok(body) }));
            }
        }
    }
}

/// Reads the blocks of one call: first `skip` blocks of commands sent without waiting (each
/// empty, or an error; `on_unanswered` hears how each went, in order), then the command's,
/// then the marker's.
fn read_answer(
    lines: &mut Lines,
    mut skip: usize,
    on_unanswered: &mut dyn FnMut(Result<(), String>),
    marker: &str,
    deadline: Instant,
) -> Result<Result<String, String>, TmuxError> {
    let mut first: Option<Result<String, String>> = None;
    let mut open: Option<(String, String)> = None;
    loop {
        let line = match lines.next(deadline) {
            Ok(Line::Text(l)) => l,
            Ok(Line::End) | Err(NoLine::Closed) => {
                return Err(TmuxError::Failed("tmux control client exited".into()));
            }
            Err(NoLine::TimedOut) => {
                return Err(TmuxError::TimedOut);
            }
        };
        match open.as_mut() {
            None => {
                if let Some(guard) = line.strip_prefix("%begin ") {
                    open = Some((guard.to_owned(), String::new()));
                } else if is_notification(&line) {
                } else if line == "%exit" || line.starts_with("%exit ") {
                    return Err(TmuxError::Failed("tmux control client exited".into()));
                } else {
                    return Err(out_of_step("a line outside any block"));
                }
            }
            Some((guard, body)) => {
                let closed = if line.strip_prefix("%end ") == Some(guard.as_str()) {
                    Some(Ok(std::mem::take(body)))
                } else if line.strip_prefix("%error ") == Some(guard.as_str()) {
                    Some(Err(std::mem::take(body)))
                } else {
                    body.push_str(&line);
                    body.push('\n');
                    None
                };
                if let Some(block) = closed {
                    open = None;
                    if skip > 0 {
                        skip -= 1;
                        match block {
                            Ok(b) if b.is_empty() => on_unanswered(Ok(())),
                            Ok(_) => return Err(out_of_step("output from unanswered keys")),
                            Err(e) => on_unanswered(Err(e.trim_end().to_owned())),
                        }
                        continue;
                    }
                    match first.take() {
                        None => first = Some(block),
                        Some(answer) => {
                            let want = format!("{marker}\n");
                            return match block {
                                Ok(b) if b == want && !answer_is_marker(&answer, &want) => {
                                    Ok(answer)
                                }
                                _ => Err(out_of_step("the closing marker did not follow")),
                            };
                        }
                    }
                }
            }
        }
    }
}

fn answer_is_marker(answer: &Result<String, String>, want: &str) -> bool {
    matches!(answer, Ok(a) if a == want)
}

/// Ensures the control session exists and attaches a control client to it.
fn attach(tmux: &super::tmux::Tmux) -> Result<Conn, String> {
    let target = format!("={CONTROL_SESSION}");
    match tmux.run_spawned_unnoted(&["has-session", "-t", target.as_str()]) {
        Ok(_) => {}
        Err(TmuxError::NoSuchTarget) => {
            match tmux.run_spawned_unnoted(&[
                "new-session",
                "-d",
                "-s",
                CONTROL_SESSION,
                "-x",
                "80",
                "-y",
                "24",
                "--",
                "cat",
            ]) {
                Ok(_) => {}
                Err(TmuxError::Failed(e)) if e.contains("duplicate session") => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        Err(e) => return Err(e.to_string()),
    }
    let mut c: Command = tmux.command();
    c.args(["-C", "attach-session", "-t", target.as_str()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = c.spawn().map_err(|e| format!("cannot run tmux: {e}"))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err("tmux control client has no pipes".into());
    };
    let pipes = OwnedFd::from(stdin);
    let opened = rustix::fs::fcntl_getfl(&pipes)
        .and_then(|f| rustix::fs::fcntl_setfl(&pipes, f | rustix::fs::OFlags::NONBLOCK))
        .map_err(std::io::Error::from)
        .and_then(|()| Lines::new(OwnedFd::from(stdout)));
    let lines = match opened {
        Ok(l) => l,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("tmux control client's pipes: {e}"));
        }
    };
    let mut conn = Conn {
        child,
        stdin: pipes,
        lines,
    };
    match read_attach(&mut conn.lines, Instant::now() + ATTACH_DEADLINE) {
        Ok(()) => Ok(conn),
        Err(e) => {
            conn.kill();
            Err(e)
        }
    }
}

/// Reads the attach command's own block, which comes first (notifications may precede it).
fn read_attach(lines: &mut Lines, deadline: Instant) -> Result<(), String> {
    let mut guard: Option<String> = None;
    loop {
        let Ok(Line::Text(line)) = lines.next(deadline) else {
            return Err("tmux control client did not attach".into());
        };
        match &guard {
            None => {
                if let Some(g) = line.strip_prefix("%begin ") {
                    guard = Some(g.to_owned());
                } else if !is_notification(&line) {
                    return Err(format!("tmux control client said {line:?}"));
                }
            }
            Some(g) => {
                if line.strip_prefix("%end ") == Some(g.as_str()) {
                    return Ok(());
                }
                if line.strip_prefix("%error ") == Some(g.as_str()) {
                    return Err("tmux refused the control client".into());
                }
            }
        }
    }
}

/// What the control client's readers make of one stream of tmux output (see
/// [`read_scripted`]).
#[doc(hidden)]
#[derive(Debug)]
pub struct Scripted {
    /// What a call that sent `skip` commands unanswered before its own would get: the
    /// command's output or error text, or why the stream was refused.
    pub answer: Result<Result<String, String>, String>,
    /// How the call heard each of those unanswered commands went, in order.
    pub unanswered: Vec<Result<(), String>>,
    /// The blocks a caller settling unanswered commands reads from the same stream, in order,
    /// and whether it then found the stream out of step or ended (`Err`) or waiting for more
    /// (`Ok`).
    pub blocks: (Vec<Result<String, String>>, Result<(), ()>),
    /// Whether an attach reading the same stream would find its block.
    pub attached: Result<(), String>,
}

/// Runs every reader of the control client over `chunks`, the stream as tmux wrote it and
/// then ended, with `marker` as the closing marker the call expects. Pure; for the fuzz
/// targets, which drive the readers with arbitrary output.
#[doc(hidden)]
#[must_use]
pub fn read_scripted(chunks: &[&[u8]], skip: usize, marker: &str) -> Scripted {
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut unanswered = Vec::new();
    let answer = read_answer(
        &mut Lines::scripted(chunks),
        skip,
        &mut |r| unanswered.push(r),
        marker,
        deadline,
    )
    .map_err(|e| e.to_string());
    let mut lines = Lines::scripted(chunks);
    let mut read = Vec::new();
    let end = loop {
        match next_block(&mut lines) {
            Ok(Some(b)) => read.push(b),
            Ok(None) => break Ok(()),
            Err(()) => break Err(()),
        }
    };
    Scripted {
        answer,
        unanswered,
        blocks: (read, end),
        attached: read_attach(&mut Lines::scripted(chunks), deadline),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_is_its_words_quoted_one_space_apart_ending_in_a_newline() {
        assert_eq!(command_line(&[]), "\n");
        assert_eq!(command_line(&[""]), "''\n");
        assert_eq!(
            command_line(&["send-keys", "-t", "=tp-a0:", "-l", "--", "it's\r"]),
            "'send-keys' '-t' '=tp-a0:' '-l' '--' 'it'\"\\047\"'s'\"\\015\"\n"
        );
        for words in [&["a", "", "b"][..], &["\u{1b}[A", "x y"][..]] {
            let joined = words
                .iter()
                .map(|w| quote_word(w))
                .collect::<Vec<_>>()
                .join(" ");
            assert_eq!(command_line(words), format!("{joined}\n"));
        }
    }

    #[test]
    fn quoted_words_keep_separators_and_expansions_literal() {
        assert_eq!(quote_word("abc"), "'abc'");
        assert_eq!(quote_word(""), "''");
        assert_eq!(quote_word("a;"), "'a;'");
        assert_eq!(quote_word("$HOME ~ #{x} {"), "'$HOME ~ #{x} {'");
        assert_eq!(quote_word("it's"), "'it'\"\\047\"'s'");
        assert_eq!(quote_word("a\nb"), "'a'\"\\012\"'b'");
        assert_eq!(quote_word("\u{1b}[A"), "\"\\033\"'[A'");
        assert_eq!(quote_word("\u{85}"), "\"\\302\\205\"");
        assert_eq!(quote_word("\u{7f}\0"), "\"\\177\"\"\\000\"");
        // No raw newline or carriage return ever reaches the line.
        for w in ["x\ny", "\r", "a\r\nkill-server"] {
            assert!(!quote_word(w).contains(['\n', '\r']));
        }
    }

    /// `lines` as tmux would write them, `per` lines to a write, then the end of the stream.
    fn feed(lines: &[&str], per: usize) -> Lines {
        let (reader, writer) = pipe_pair();
        let lines: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
        std::thread::spawn(move || {
            use std::io::Write as _;
            let mut writer = writer;
            for chunk in lines.chunks(per) {
                let mut text = chunk.join("\n");
                text.push('\n');
                let _ = writer.write_all(text.as_bytes());
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        Lines::new(reader).unwrap()
    }

    fn pipe_pair() -> (OwnedFd, std::io::PipeWriter) {
        let (r, w) = std::io::pipe().unwrap();
        (OwnedFd::from(r), w)
    }

    /// The answer read from `lines`; the same whichever way they were batched.
    fn read(lines: &[&str]) -> Result<Result<String, String>, TmuxError> {
        let answers: Vec<String> = [1, 2, 3, lines.len().max(1)]
            .into_iter()
            .map(|per| {
                let r = read_answer(
                    &mut feed(lines, per),
                    0,
                    &mut |_| {},
                    "tpsync s 1",
                    Instant::now() + Duration::from_millis(50),
                );
                format!("{r:?}")
            })
            .collect();
        assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
        read_answer(
            &mut feed(lines, 1),
            0,
            &mut |_| {},
            "tpsync s 1",
            Instant::now() + Duration::from_millis(50),
        )
    }

    #[test]
    fn lines_come_out_in_order_across_reads_and_end_after_the_last() {
        use std::io::Write as _;
        let (reader, mut writer) = pipe_pair();
        let mut lines = Lines::new(reader).unwrap();
        assert!(lines.try_next().is_none(), "nothing written yet");
        writer.write_all(b"a\nb\nc").unwrap();
        let mut seen = Vec::new();
        while let Some(Line::Text(t)) = lines.try_next() {
            seen.push(t);
        }
        assert_eq!(seen, ["a", "b"], "a line is handed out only once it ends");
        writer.write_all(b"d\ne").unwrap();
        drop(writer);
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut rest = Vec::new();
        loop {
            match lines.next(deadline) {
                Ok(Line::Text(t)) => rest.push(t),
                Ok(Line::End) => rest.push("<end>".into()),
                Err(e) => {
                    assert_eq!(e, NoLine::Closed);
                    break;
                }
            }
        }
        // The last line needs no newline when the stream ends.
        assert_eq!(rest, ["cd", "e", "<end>"]);
    }

    #[test]
    fn a_line_past_the_cap_ends_the_stream_and_silence_times_out() {
        use std::io::Write as _;
        let (reader, mut writer) = pipe_pair();
        let mut lines = Lines::new(reader).unwrap();
        let started = Instant::now();
        assert!(matches!(
            lines.next(started + Duration::from_millis(30)),
            Err(NoLine::TimedOut)
        ));
        assert!(started.elapsed() >= Duration::from_millis(30));
        let chunk = vec![b'x'; 64 * 1024];
        let writing = std::thread::spawn(move || {
            for _ in 0..(LINE_CAP / chunk.len() + 2) {
                if writer.write_all(&chunk).is_err() {
                    return;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        assert!(matches!(lines.next(deadline), Ok(Line::End)));
        assert_eq!(lines.next(deadline).err(), Some(NoLine::Closed));
        drop(lines);
        writing.join().unwrap();
    }

    #[test]
    fn unanswered_blocks_are_read_before_the_answer() {
        let mut settled = Vec::new();
        let lines = [
            "%begin 1 3 1",
            "%end 1 3 1",
            "%sessions-changed",
            "%begin 1 4 1",
            "can't find pane: %9",
            "%error 1 4 1",
            "%begin 1 5 1",
            "hello",
            "%end 1 5 1",
            "%begin 1 6 1",
            "tpsync s 1",
            "%end 1 6 1",
        ];
        let r = read_answer(
            &mut feed(&lines, 2),
            2,
            &mut |r| settled.push(r),
            "tpsync s 1",
            Instant::now() + Duration::from_secs(5),
        );
        assert!(matches!(r, Ok(Ok(ref s)) if s == "hello\n"), "{r:?}");
        assert_eq!(settled, [Ok(()), Err("can't find pane: %9".to_owned())]);
        // An unanswered block that printed something is not what it claims to be.
        let r = read_answer(
            &mut feed(&["%begin 1 3 1", "%end 1 5 1", "%end 1 3 1"], 1),
            1,
            &mut |_| {},
            "tpsync s 1",
            Instant::now() + Duration::from_secs(5),
        );
        assert!(r.is_err());
        // Counting one block too few leaves the marker out of place: refused, never misread.
        let r = read_answer(
            &mut feed(&lines, 3),
            1,
            &mut |_| {},
            "tpsync s 1",
            Instant::now() + Duration::from_secs(5),
        );
        assert!(r.is_err(), "{r:?}");
    }

    #[test]
    fn an_answer_is_its_block_followed_by_the_marker_block() {
        let ok = read(&[
            "%sessions-changed",
            "%begin 1 5 1",
            "hello",
            "%end 1 5 1",
            "%begin 1 6 1",
            "tpsync s 1",
            "%end 1 6 1",
        ]);
        assert!(matches!(ok, Ok(Ok(ref s)) if s == "hello\n"));
        let err = read(&[
            "%begin 1 5 1",
            "can't find session: tp-ab",
            "%error 1 5 1",
            "%begin 1 6 1",
            "tpsync s 1",
            "%end 1 6 1",
        ]);
        assert!(matches!(err, Ok(Err(ref s)) if s.contains("can't find")));
    }

    #[test]
    fn pane_text_that_forges_frames_is_refused_not_used() {
        // A pane printed "%end 1 5 1" in its text: the real end then arrives outside a block.
        let forged_end = read(&[
            "%begin 1 5 1",
            "top",
            "%end 1 5 1",
            "rest of the pane",
            "%end 1 5 1",
        ]);
        assert!(forged_end.is_err());
        // Forged end + forged begin with the same guard: the marker block is wrong.
        let forged_pair = read(&[
            "%begin 1 5 1",
            "top",
            "%end 1 5 1",
            "%begin 1 5 1",
            "tail",
            "%end 1 5 1",
            "%begin 1 6 1",
            "tpsync s 1",
            "%end 1 6 1",
        ]);
        assert!(forged_pair.is_err());
        // A guessed marker without the secret does not close the answer either.
        let guessed = read(&[
            "%begin 1 5 1",
            "x",
            "%end 1 5 1",
            "%begin 1 6 1",
            "tpsync guess 1",
            "%end 1 6 1",
        ]);
        assert!(guessed.is_err());
        // An end with another guard is just text.
        let other = read(&[
            "%begin 1 5 1",
            "%end 9 9 9",
            "%end 1 5 1",
            "%begin 1 6 1",
            "tpsync s 1",
            "%end 1 6 1",
        ]);
        assert!(matches!(other, Ok(Ok(ref s)) if s == "%end 9 9 9\n"));
    }

    #[test]
    fn silence_and_exit_fail_the_call() {
        assert!(read(&["%begin 1 5 1", "x"]).is_err());
        assert!(read(&["%exit"]).is_err());
    }
}
