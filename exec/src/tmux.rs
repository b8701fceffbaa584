//! The node's private tmux server.
//!
//! Every call is an argv vector (never a shell string) against the node's own socket
//! (`tmux -u -S <dataDir>/tmux.sock -f /dev/null`), so the user's tmux and configuration are
//! untouched. A call travels over the node's persistent control-mode client when one is
//! attached ([`super::control`], each word quoted so it stays that word), and otherwise runs as
//! its own `tmux` process with the words as its arguments. The server starts with
//! `exit-empty off`, `remain-on-exit on` (so an exit code can be read from
//! `#{pane_dead_status}`) and a fixed history limit.
//!
//! Ids: sessions are named `tp-<subshellId>` (a [`SubshellId`] holds only hex and `-`); pane,
//! window and session ids read back from tmux are checked against `^%\d+$`, `^@\d+$` and
//! `^\$\d+$` before use. No user text ever reaches a format-expanding position: `-F` templates
//! are constants, the working directory is passed as the client's own cwd (not `-c`), and text
//! travels only through `send-keys -l --` (literal). [`escape_format`] doubles `#` for any
//! future caller that must place text in a format.
//!
//! # Locale
//!
//! A daemon often runs with no `LANG` or `LC_*` at all (a container, a service manager). A tmux
//! client that finds no UTF-8 locale in its environment prints every byte of a command's
//! answer outside printable ASCII as `_`: tabs, and each UTF-8 character (a pane title, a
//! path). Every client the node starts — the fallback processes and the control-mode client
//! alike — is therefore marked UTF-8 with `-u`, which changes only how answers are printed,
//! not the environment the server and its panes inherit. Fields of a multi-field `-F` template
//! are separated by [`FIELD_SEP`], which no locale rewrites either.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use termplane_proto::SubshellId;

use super::host::{Level, Log, Silent};
use crate::util::run_bounded;

/// Deadline of one tmux call.
pub const CALL_DEADLINE: Duration = Duration::from_secs(5);
/// Most output bytes read from one tmux call.
const OUTPUT_CAP: usize = 8 * 1024 * 1024;
/// Commands that change nothing, so running one twice is harmless.
const READ_ONLY: [&str; 5] = [
    "list-panes",
    "list-sessions",
    "capture-pane",
    "has-session",
    "display-message",
];
/// Separates the fields of every multi-field `-F` template read back: printable ASCII, which
/// tmux never rewrites in an answer, and found in none of the fields read that way (numbers,
/// `%`/`@`/`$` ids, and session names, in which tmux itself turns `:` into `_`).
pub const FIELD_SEP: char = ':';
/// Scrollback kept per pane.
pub const HISTORY_LIMIT: u32 = 50_000;

/// Why a tmux call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TmuxError {
    /// tmux said the target does not exist (authoritative).
    #[error("no such pane or session")]
    NoSuchTarget,
    /// No server runs on the socket (authoritative: nothing lives there).
    #[error("no tmux server running")]
    NoServer,
    /// tmux did not answer within [`CALL_DEADLINE`] (a stopped or wedged server); the call
    /// was abandoned.
    #[error("tmux did not answer in time")]
    TimedOut,
    /// tmux could not be run or failed otherwise.
    #[error("tmux failed: {0}")]
    Failed(String),
}

impl TmuxError {
    /// Whether the failure proves the target is gone.
    #[must_use]
    pub fn is_authoritative_gone(&self) -> bool {
        matches!(self, Self::NoSuchTarget | Self::NoServer)
    }
}

fn digits_after(s: &str, sigil: char) -> bool {
    s.strip_prefix(sigil)
        .is_some_and(|d| !d.is_empty() && d.len() <= 10 && d.bytes().all(|b| b.is_ascii_digit()))
}

/// `^%\d+$`.
#[must_use]
pub fn is_pane_id(s: &str) -> bool {
    digits_after(s, '%')
}

/// `^@\d+$`.
#[must_use]
pub fn is_window_id(s: &str) -> bool {
    digits_after(s, '@')
}

/// `^\$\d+$`.
#[must_use]
pub fn is_session_id(s: &str) -> bool {
    digits_after(s, '$')
}

/// Doubles `#` so that text placed in a format expands to itself.
#[must_use]
pub fn escape_format(s: &str) -> String {
    s.replace('#', "##")
}

/// What every subshell's session name starts with, before the subshell's id.
pub const SESSION_PREFIX: &str = "tp-";

/// Session name of a subshell.
#[must_use]
pub fn session_name(id: &SubshellId) -> String {
    format!("{SESSION_PREFIX}{id}")
}

/// Exact-match pane target of a subshell's session (`=tp-<id>:`: its current window's active pane).
#[must_use]
pub fn pane_target(id: &SubshellId) -> String {
    // Without the formatter: it is on each keystroke's way to tmux.
    let mut t = String::with_capacity(SESSION_PREFIX.len() + id.as_str().len() + 2);
    t.push('=');
    t.push_str(SESSION_PREFIX);
    t.push_str(id.as_str());
    t.push(':');
    t
}

/// Exact-match session target.
#[must_use]
pub fn session_target(id: &SubshellId) -> String {
    format!("={}", session_name(id))
}

/// Keeps one argv word literal through tmux's command-line parsing: tmux treats a word ending
/// in `;` as a command separator and turns a trailing `\;` into `;`, so a backslash is inserted
/// before a final `;`. Every word [`Tmux::run`] passes goes through this.
#[must_use]
pub fn literal_arg(s: &str) -> String {
    match s.strip_suffix(';') {
        Some(head) => format!("{head}\\;"),
        None => s.to_owned(),
    }
}

/// Quotes a word for the POSIX shell `pipe-pane` runs, and escapes `#` for tmux's format pass.
#[must_use]
pub fn shell_quote_for_pipe(s: &str) -> String {
    format!("'{}'", escape_format(&s.replace('\'', "'\\''")))
}

/// A `tmux` command on the server at `socket`, with no configuration file and no inherited
/// client.
fn command_on(bin: &str, socket: &Path) -> Command {
    let mut c = Command::new(bin);
    c.arg("-u")
        .arg("-S")
        .arg(socket)
        .arg("-f")
        .arg("/dev/null")
        .env_remove("TMUX")
        .env_remove("TMUX_PANE");
    c
}

/// A handle on the node's tmux server (clones share one control-mode client).
#[derive(Clone)]
pub struct Tmux {
    bin: String,
    socket: PathBuf,
    control: Arc<super::control::Control>,
    log: Arc<dyn Log>,
}

impl std::fmt::Debug for Tmux {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tmux")
            .field("bin", &self.bin)
            .field("socket", &self.socket)
            .field("control", &self.control)
            .finish_non_exhaustive()
    }
}

fn classify(stderr: &str) -> TmuxError {
    let s = stderr.to_ascii_lowercase();
    if s.contains("no server running")
        || s.contains("error connecting to")
        || s.contains("server exited unexpectedly")
    {
        TmuxError::NoServer
    } else if s.contains("can't find")
        || s.contains("no such")
        || s.contains("session not found")
        // With no session at all, tmux names no target: nothing can be found either.
        || s.contains("no current target")
    {
        TmuxError::NoSuchTarget
    } else {
        TmuxError::Failed(stderr.trim().to_owned())
    }
}

impl Tmux {
    /// A handle for `bin` on `socket` that logs nothing.
    #[must_use]
    pub fn new(bin: impl Into<String>, socket: impl Into<PathBuf>) -> Self {
        Self {
            bin: bin.into(),
            socket: socket.into(),
            control: Arc::new(super::control::Control::new()),
            log: Arc::new(Silent),
        }
    }

    /// The same handle, writing its log lines (the control client's state) to `log`.
    #[must_use]
    pub fn with_log(mut self, log: Arc<dyn Log>) -> Self {
        self.log = log;
        self
    }

    /// Writes a debug line to the handle's log.
    pub fn debug(&self, message: &str) {
        self.log.log(Level::Debug, message);
    }

    /// Whether calls currently travel over the control-mode client.
    #[must_use]
    pub fn control_attached(&self) -> bool {
        self.control.is_attached()
    }

    /// The tmux binary the node runs (a name looked up on `PATH`, or a path).
    #[must_use]
    pub fn bin(&self) -> &str {
        &self.bin
    }

    /// The socket path.
    #[must_use]
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// A command with the socket and config fixed, its answers printed as they are whatever the
    /// locale (`-u`, see the module documentation), and the caller's tmux environment removed.
    #[must_use]
    pub fn command(&self) -> Command {
        command_on(&self.bin, &self.socket)
    }

    /// A maker of `tmux wait-for CHANNEL` commands on this server, for a thread that outlives
    /// no borrow of this `Tmux` (see [`crate::deaths`]).
    pub fn wait_for_maker(&self, channel: &'static str) -> impl Fn() -> Command + Send + 'static {
        let (bin, socket) = (self.bin.clone(), self.socket.clone());
        move || {
            let mut c = command_on(&bin, &socket);
            c.args(["wait-for", channel]);
            c
        }
    }

    /// Writes one command whose success prints nothing (`send-keys`) over the control-mode
    /// client without waiting for tmux's answer; its ticket, or `None` when it could not be
    /// sent that way (see [`super::control::Control::send_unanswered`]) and must be run as
    /// usual.
    #[must_use]
    pub fn send_unanswered(&self, args: &[&str]) -> Option<u64> {
        self.control.send_unanswered(args)
    }

    /// How a command sent unanswered went, or what to wait on before asking again (see
    /// [`super::control::Control::settle_or_watch`]).
    pub fn settle_or_watch(
        &self,
        ticket: u64,
    ) -> Result<Result<(), TmuxError>, super::control::AnswerWatch> {
        self.control
            .settle_or_watch(ticket)
            .map(|r| r.map_err(|text| classify(&text)))
    }

    /// Runs one tmux command (`args`, each an exact word) and answers its output: over the
    /// control-mode client when one is attached, else as its own process ([`Self::run_spawned`]).
    pub fn run<S: AsRef<str>>(&self, args: &[S]) -> Result<String, TmuxError> {
        let words: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
        match self.control.call(self, &words, CALL_DEADLINE) {
            super::control::Outcome::Answer(Ok(out)) => Ok(out),
            super::control::Outcome::Answer(Err(text)) => Err(classify(&text)),
            // A command that only reads is asked again as a process: a server that died under
            // the client then reads as "no server" at once. A server that did not answer in time
            // is not asked again: one deadline per call, so nothing queues behind a stopped
            // server.
            super::control::Outcome::Failed(e)
                if e != TmuxError::TimedOut
                    && words.first().is_some_and(|w| READ_ONLY.contains(w)) =>
            {
                self.run_spawned(&words)
            }
            super::control::Outcome::Failed(e) => Err(e),
            super::control::Outcome::Unavailable => self.run_spawned(&words),
        }
    }

    /// Runs `tmux <args>` as its own process with every word kept literal ([`literal_arg`]);
    /// answers standard output.
    pub fn run_spawned<S: AsRef<str>>(&self, args: &[S]) -> Result<String, TmuxError> {
        let mut c = self.command();
        c.args(args.iter().map(|a| literal_arg(a.as_ref())));
        self.run_command(&mut c)
    }

    /// Runs a sequence of constant commands joined by `;` separators.
    fn run_sequence(&self, commands: &[&[&str]]) -> Result<String, TmuxError> {
        let mut c = self.command();
        for (i, words) in commands.iter().enumerate() {
            if i > 0 {
                c.arg(";");
            }
            c.args(words.iter().map(|w| literal_arg(w)));
        }
        self.run_command(&mut c)
    }

    /// Runs a prepared command and answers its standard output together with its verdict:
    /// `(stdout, Ok)` on success, `(stdout, Err)` when tmux failed after printing something
    /// (a later command of a `;` sequence failed). `Err` alone when tmux could not run.
    pub fn run_command_output(
        &self,
        c: &mut Command,
    ) -> Result<(String, Result<(), TmuxError>), TmuxError> {
        let out = Self::bounded(c)?;
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        if out.success() {
            self.control.note_server(true);
            Ok((stdout, Ok(())))
        } else {
            Ok((stdout, Err(classify(&out.stderr_text()))))
        }
    }

    /// Runs a prepared command.
    pub fn run_command(&self, c: &mut Command) -> Result<String, TmuxError> {
        let result = Self::run_unnoted(c);
        match &result {
            Ok(_) | Err(TmuxError::NoSuchTarget) => self.control.note_server(true),
            Err(TmuxError::NoServer) => self.control.note_server(false),
            Err(TmuxError::Failed(_) | TmuxError::TimedOut) => {}
        }
        result
    }

    /// Runs `tmux <args>` as its own process without telling the control client what it
    /// showed (the control client itself uses this while it attaches).
    pub(crate) fn run_spawned_unnoted(&self, args: &[&str]) -> Result<String, TmuxError> {
        let mut c = self.command();
        c.args(args.iter().map(|a| literal_arg(a)));
        Self::run_unnoted(&mut c)
    }

    /// Runs a tmux process within [`CALL_DEADLINE`], keeping at most [`OUTPUT_CAP`] bytes.
    fn bounded(c: &mut Command) -> Result<crate::util::Bounded, TmuxError> {
        let out = run_bounded(c, CALL_DEADLINE, OUTPUT_CAP).map_err(|e| {
            let hint = if e.kind() == std::io::ErrorKind::NotFound {
                " (install tmux)"
            } else {
                ""
            };
            TmuxError::Failed(format!("cannot run tmux: {e}{hint}"))
        })?;
        if out.timed_out {
            return Err(TmuxError::TimedOut);
        }
        Ok(out)
    }

    fn run_unnoted(c: &mut Command) -> Result<String, TmuxError> {
        let out = Self::bounded(c)?;
        if out.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(classify(&out.stderr_text()))
        }
    }

    /// `tmux -V`.
    pub fn version(&self) -> Result<String, TmuxError> {
        let out = run_bounded(Command::new(&self.bin).arg("-V"), CALL_DEADLINE, 4096)
            .map_err(|e| TmuxError::Failed(e.to_string()))?;
        if out.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        } else {
            Err(TmuxError::Failed(out.stderr_text()))
        }
    }

    /// Starts the server (idempotent) with the node's options.
    pub fn start_server(&self) -> Result<(), TmuxError> {
        if let Some(dir) = self.socket.parent() {
            crate::fs::ensure_private_dir(dir)
                .map_err(|e| TmuxError::Failed(format!("{}: {e}", dir.display())))?;
        }
        let limit = HISTORY_LIMIT.to_string();
        self.run_sequence(&[
            &["start-server"],
            &["set-option", "-s", "exit-empty", "off"],
            &["set-option", "-g", "remain-on-exit", "on"],
            &["set-option", "-g", "history-limit", limit.as_str()],
            &["set-option", "-g", "status", "off"],
            // Word of every pane's death at once (`crate::deaths`).
            &["set-hook", "-g", "pane-died", crate::deaths::HOOK],
        ])
        .map(|_| ())
    }

    /// Stops the server.
    pub fn kill_server(&self) -> Result<(), TmuxError> {
        self.control.disconnect();
        let r = self.run_spawned(&["kill-server"]);
        self.control.note_server(false);
        match r {
            Ok(_) | Err(TmuxError::NoServer) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// One query with a constant format against the first pane of a target window (a
    /// subshell's session has one). `list-panes` is used rather than `display-message`, which
    /// answers for the client's own pane, or with empty fields, when the target is missing;
    /// `list-panes` fails with "can't find".
    pub fn query(&self, target: &str, format: &'static str) -> Result<String, TmuxError> {
        let out = self.run(&["list-panes", "-t", target, "-F", format])?;
        Ok(out.lines().next().unwrap_or("").to_owned())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_pane_target_is_its_session_name_matched_exactly_with_its_current_pane() {
        for id in ["a0", "0-7f", "0123456789abcdef-0123456789abcdef"] {
            let id = SubshellId::parse(id).unwrap();
            assert_eq!(pane_target(&id), format!("={}:", session_name(&id)));
        }
    }

    #[test]
    fn i101_ids_are_validated() {
        assert!(is_pane_id("%0") && is_pane_id("%12"));
        assert!(is_window_id("@3") && is_session_id("$4"));
        let long = "%".to_owned() + &"1".repeat(10_000);
        for bad in [
            "",
            "%",
            "%1; kill-server",
            "%1 \\; run-shell id",
            "%1\nkill-server",
            "$(id)",
            "`id`",
            "-t",
            "--",
            "{kill-server}",
            "#{pane_id}",
            "#(id)",
            "~",
            "$HOME",
            "\\u0041",
            "a:b.c",
            "%-1",
            "%1a",
            "１",
            &long,
        ] {
            assert!(
                !is_pane_id(bad) && !is_window_id(bad) && !is_session_id(bad),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn trailing_semicolons_stay_literal() {
        assert_eq!(literal_arg(";"), "\\;");
        assert_eq!(literal_arg("a;"), "a\\;");
        assert_eq!(literal_arg("\\;"), "\\\\;");
        assert_eq!(literal_arg("a;b"), "a;b");
    }

    #[test]
    fn format_text_is_escaped() {
        assert_eq!(escape_format("#(touch x)#{a}"), "##(touch x)##{a}");
        assert_eq!(shell_quote_for_pipe("/a b/'c'#"), "'/a b/'\\''c'\\''##'");
    }
}
