//! A persistent tmux control-mode client (`tmux -C`) for the node's private server.
//!
//! Starting a tmux client process costs about 1.8 ms per call; a request over one long-lived
//! control-mode client costs about a tenth of that. [`Control`] keeps such a client attached to
//! a quiet session of its own (`termplane-ctl`, whose single pane runs `cat` and prints
//! nothing), writes one command per line and reads tmux's framed answers.
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
//! # Falling back
//!
//! When no control client runs (no server yet, the server was killed, a client died), a call
//! runs as its own tmux process exactly as before, and a new control client is attached at most
//! once a second after a call shows that the server is up. A control client that fails while a
//! command may already have run does not re-run it: the call reports the failure.

use std::collections::VecDeque;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError, channel};
use std::time::{Duration, Instant};

use super::tmux::TmuxError;

/// Name of the control client's own session (never a subshell's: those start with `tp-`).
pub const CONTROL_SESSION: &str = "termplane-ctl";
/// Longest line read from the control client (longer lines are cut and the stream is
/// treated as out of step).
const LINE_CAP: usize = 8 * 1024 * 1024;
/// Most lines the reader hands over in one batch.
const BATCH_LINES: usize = 256;
/// Least time between two attach attempts.
const RECONNECT_GAP: Duration = Duration::from_secs(1);
/// How long an attach may take.
const ATTACH_DEADLINE: Duration = Duration::from_secs(3);

/// One line from the client's standard output, or its end.
enum Line {
    Text(String),
    End,
}

/// The client's output as its reader thread hands it over: every line that could be read
/// without waiting travels in one batch, so a caller is woken once per burst of tmux's output
/// (a call's answer is five lines) instead of once per line.
struct Lines {
    rx: Receiver<Vec<Line>>,
    ready: VecDeque<Line>,
}

impl Lines {
    fn new(rx: Receiver<Vec<Line>>) -> Self {
        Self {
            rx,
            ready: VecDeque::new(),
        }
    }

    /// The next line if one has arrived (`None` when none has, or the reader is gone).
    fn try_next(&mut self) -> Option<Line> {
        if self.ready.is_empty() {
            match self.rx.try_recv() {
                Ok(batch) => self.ready.extend(batch),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return None,
            }
        }
        self.ready.pop_front()
    }

    /// The next line, waiting until `deadline`.
    fn next(&mut self, deadline: Instant) -> Result<Line, RecvTimeoutError> {
        loop {
            if let Some(l) = self.ready.pop_front() {
                return Ok(l);
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            let batch = self.rx.recv_timeout(wait)?;
            self.ready.extend(batch);
        }
    }
}

struct Conn {
    child: Child,
    stdin: ChildStdin,
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
}

impl State {
    fn drop_conn(&mut self) {
        if let Some(c) = self.conn.take() {
            c.kill();
        }
    }
}

/// The control-mode client of one tmux server (shared by every clone of its [`super::tmux::Tmux`]).
pub struct Control {
    secret: String,
    state: Mutex<State>,
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control").finish_non_exhaustive()
    }
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
        Self {
            secret,
            state: Mutex::new(State {
                conn: None,
                server_up: false,
                next_attach: None,
                counter: 0,
            }),
        }
    }

    /// Records what a process-run call showed about the server.
    pub fn note_server(&self, up: bool) {
        if let Ok(mut s) = self.state.lock() {
            s.server_up = up;
            if !up {
                s.drop_conn();
            }
        }
    }

    /// Drops the client (the server is being stopped).
    pub fn disconnect(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.drop_conn();
        }
    }

    /// Whether a client is attached now.
    #[must_use]
    pub fn is_attached(&self) -> bool {
        self.state.lock().is_ok_and(|s| s.conn.is_some())
    }

    /// Runs one command (`words`, unquoted) over the control client.
    pub fn call(&self, tmux: &super::tmux::Tmux, words: &[&str], deadline: Duration) -> Outcome {
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
                Ok(c) => st.conn = Some(c),
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
        let mut line = words
            .iter()
            .map(|w| quote_word(w))
            .collect::<Vec<_>>()
            .join(" ");
        line.push('\n');
        line.push_str("display-message -p ");
        line.push_str(&quote_word(&marker));
        line.push('\n');
        let Some(conn) = st.conn.as_mut() else {
            return Outcome::Unavailable;
        };
        // Notifications that arrived since the last call; anything else is out of step.
        loop {
            match conn.lines.try_next() {
                Some(Line::Text(l)) if is_notification(&l) => {}
                Some(Line::Text(l)) => {
                    tmux.debug(&format!("tmux control client out of step: {l:?}"));
                    st.drop_conn();
                    return Outcome::Unavailable;
                }
                Some(Line::End) => {
                    tmux.debug("tmux control client exited");
                    st.drop_conn();
                    return Outcome::Unavailable;
                }
                None => break,
            }
        }
        if conn
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| conn.stdin.flush())
            .is_err()
        {
            st.drop_conn();
            return Outcome::Unavailable;
        }
        match read_answer(&mut conn.lines, &marker, Instant::now() + deadline) {
            Ok(answer) => Outcome::Answer(answer),
            Err(e) => {
                tmux.debug(&format!("tmux control call failed: {e}"));
                st.drop_conn();
                Outcome::Failed(e)
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

/// Quotes one argv word for tmux's command parser so that it stays exactly that word.
#[must_use]
pub fn quote_word(w: &str) -> String {
    let mut out = String::with_capacity(w.len() + 2);
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
                out.push_str(&format!("\\{b:03o}"));
            }
            out.push('"');
        }
    }
    if in_single {
        out.push('\'');
    }
    if out.is_empty() {
        out.push_str("''");
    }
    out
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

/// Reads the two blocks of one call: the command's, then the marker's.
fn read_answer(
    lines: &mut Lines,
    marker: &str,
    deadline: Instant,
) -> Result<Result<String, String>, TmuxError> {
    let mut first: Option<Result<String, String>> = None;
    let mut open: Option<(String, String)> = None;
    loop {
        let line = match lines.next(deadline) {
            Ok(Line::Text(l)) => l,
            Ok(Line::End) | Err(RecvTimeoutError::Disconnected) => {
                return Err(TmuxError::Failed("tmux control client exited".into()));
            }
            Err(RecvTimeoutError::Timeout) => {
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
    let (tx, rx) = channel();
    let spawned = std::thread::Builder::new()
        .name("tmux-control".into())
        .spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut buf = Vec::new();
            let mut batch = Vec::new();
            loop {
                buf.clear();
                let limit = u64::try_from(LINE_CAP).unwrap_or(u64::MAX);
                match (&mut r).take(limit).read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if buf.last() == Some(&b'\n') {
                            buf.pop();
                        } else if buf.len() >= LINE_CAP {
                            // A cut line: end the stream so the caller sees it out of step.
                            break;
                        }
                        batch.push(Line::Text(String::from_utf8_lossy(&buf).into_owned()));
                        // Hand over what was read once nothing more is buffered (or a batch
                        // is full: a long answer still streams to the caller).
                        let full = batch.len() >= BATCH_LINES;
                        if (full || r.buffer().is_empty())
                            && tx.send(std::mem::take(&mut batch)).is_err()
                        {
                            return;
                        }
                    }
                }
            }
            batch.push(Line::End);
            let _ = tx.send(batch);
        });
    if let Err(e) = spawned {
        let _ = child.kill();
        let _ = child.wait();
        return Err(e.to_string());
    }
    let mut conn = Conn {
        child,
        stdin,
        lines: Lines::new(rx),
    };
    // The attach command's own block comes first.
    let deadline = Instant::now() + ATTACH_DEADLINE;
    let mut guard: Option<String> = None;
    loop {
        let Ok(Line::Text(line)) = conn.lines.next(deadline) else {
            conn.kill();
            return Err("tmux control client did not attach".into());
        };
        match &guard {
            None => {
                if let Some(g) = line.strip_prefix("%begin ") {
                    guard = Some(g.to_owned());
                } else if !is_notification(&line) {
                    conn.kill();
                    return Err(format!("tmux control client said {line:?}"));
                }
            }
            Some(g) => {
                if line.strip_prefix("%end ") == Some(g.as_str()) {
                    return Ok(conn);
                }
                if line.strip_prefix("%error ") == Some(g.as_str()) {
                    conn.kill();
                    return Err("tmux refused the control client".into());
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

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
        // No raw newline or carriage return ever reaches the line.
        for w in ["x\ny", "\r", "a\r\nkill-server"] {
            assert!(!quote_word(w).contains(['\n', '\r']));
        }
    }

    /// `lines` as the reader thread would hand them over in batches of `per` lines.
    fn feed(lines: &[&str], per: usize) -> Lines {
        let (tx, rx) = channel();
        for chunk in lines.chunks(per) {
            tx.send(chunk.iter().map(|l| Line::Text((*l).to_owned())).collect())
                .unwrap();
        }
        Lines::new(rx)
    }

    /// The answer read from `lines`; the same whichever way they were batched.
    fn read(lines: &[&str]) -> Result<Result<String, String>, TmuxError> {
        let answers: Vec<String> = [1, 2, 3, lines.len().max(1)]
            .into_iter()
            .map(|per| {
                let r = read_answer(
                    &mut feed(lines, per),
                    "tpsync s 1",
                    Instant::now() + Duration::from_millis(50),
                );
                format!("{r:?}")
            })
            .collect();
        assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
        read_answer(
            &mut feed(lines, 1),
            "tpsync s 1",
            Instant::now() + Duration::from_millis(50),
        )
    }

    #[test]
    fn lines_come_out_in_order_across_batches_and_end_after_the_last() {
        let (tx, rx) = channel();
        tx.send(vec![Line::Text("a".into()), Line::Text("b".into())])
            .unwrap();
        tx.send(vec![Line::Text("c".into()), Line::End]).unwrap();
        drop(tx);
        let mut lines = Lines::new(rx);
        let mut seen = Vec::new();
        while let Some(l) = lines.try_next() {
            seen.push(match l {
                Line::Text(t) => t,
                Line::End => "<end>".into(),
            });
        }
        assert_eq!(seen, ["a", "b", "c", "<end>"]);
        assert!(matches!(
            lines.next(Instant::now()),
            Err(RecvTimeoutError::Disconnected)
        ));
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
