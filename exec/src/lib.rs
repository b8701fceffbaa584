//! The executor: every node command of the spec's table, carried out on the node's private tmux
//! server and file system. The node daemon (`termplane-node`) runs it for the plane; the
//! embedding process is its [`Host`].
//!
//! [`Executor::execute`] answers `Ok(data)` (the `result.data` value) or `Err(text)` (the
//! `result.error` text, one of the spec's refusal strings where one applies);
//! [`Executor::execute_result`] wraps it as the `result` event. Verified commands reach it
//! through a [`Runner`], which runs them one at a time in arrival order, except `detect`, which
//! only reads and runs beside them (see [`runner`]).
//!
//! The commands about the node daemon itself (`service`, `update`, `set_server_url`,
//! `set_log_level`, `agent_log_read`) and the executor's log lines go to the embedding
//! process's [`Host`] (see [`host`]).
//!
//! # Result shapes (`result.data`)
//! | command | data |
//! |---|---|
//! | `launch` | `{ session, pane, pid, binaryPath?, logPath, configDir?, resume?, note?, mcpFileRootOnly?, mcpWarning? }` (`note` when `bestEffortLog` downgraded a log failure; the last two with an MCP registration, as the launch module says) |
//! | `terminate` | `{ existed, graceful }` (`graceful`: the pane ended after Ctrl-C, before the session was killed) |
//! | `kill` | `{ existed }` |
//! | `prompt_deliver` | `{ delivered: true, waitedMs }` (the text typed once the pane showed something and went quiet, Enter apart once the program took it); error `pane never went quiet` on timeout |
//! | `input` | `{ bytes, keys }` |
//! | `resize` | `{ cols, rows }` |
//! | `capture` | `{ text }` (pane content with escapes, wrapped lines joined, `lines` of history first) |
//! | `pane_size` | `{ cols, rows }` or `null` when the pane is gone |
//! | `pane_cursor` | `{ x, y }` (viewport coordinates) or `null` when the pane is gone |
//! | `log_read` | `{ fromByte, toByte, size, data_b64 }` (at most 512 KiB per answer) |
//! | `tail_start` | `{ subId, fromByte }`; then `output` events `{ subId, fromByte, toByte, data_b64 }` on the event channel |
//! | `tail_stop` | `{ stopped }` |
//! | `stat_dir` | `{ path }` (the realpath) |
//! | `path_exists` | `{ exists }` |
//! | `fs_ls` | `{ path, entries: [{ name }], truncated }` (directories only, dotfiles hidden, ≤ 1,000) |
//! | `write_file` | `{ path, bytes, done }` |
//! | `remove_paths` | `{ removed: [path], failed: [{ path, error }] }` |
//! | `set_allowed_dirs` | `{ dirs }` (realpaths, persisted) |
//! | `service` | the host's: `{ action, scheduled }` or `{ action, done: [lines] }` |
//! | `agent_log_read` | the host's: `{ fromByte, toByte, size, data_b64 }` |
//! | `set_server_url` | the host's: `{ serverUrl, wsUrl, restartRequired: true }` |
//! | `set_log_level` | the host's: `{ level }` |
//! | `set_maintenance` | `{ on, changedAt }` |
//! | `update` | the host's: validated, then `{ ok: true, version }` once staged |
//! | `probe` | `{ subshells: [{ subshellId, alive, pane? }] }` |
//! | `inventory` | `{ harnesses: [], at }` |
//! | `detect` | `{ harnesses: [{ harnessId, installed, binaryPath?, version?, reason? }], env: { NAME: value \| null }, at }` |
//! | `ping` | `{ pong: true, at }` |

pub mod activity;
pub mod control;
pub mod deaths;
pub mod events;
pub mod fs;
pub mod host;
mod launch;
pub mod paths;
pub mod procs;
pub mod recording;
pub mod runner;
pub mod screen;
pub mod tmux;
pub mod util;

use std::collections::BTreeMap;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use termplane_proto::command::{Command, HARNESS_BINARY_PLACEHOLDER, Launch, NamedKey, Resolve};
use termplane_proto::event::{Event, Exit, SurvivingPane};
use termplane_proto::key::{b64url_decode, b64url_encode};
use termplane_proto::{CommandResult, SubshellId};

pub use events::{
    ExitTracker, MaintenanceWatch, OutputHook, TailDriver, TailJob, TailRegistry, TailStep,
};
pub use host::{Daemonless, Host, Level, Log, Silent, no_daemon};
use paths::{Policy, Uploads};
pub use runner::{Runner, Stopped, runs_aside};
use tmux::{Tmux, TmuxError, pane_target, session_name, session_target};

/// Most bytes of a `log_read` / `agent_log_read` answer (base64 keeps it under one frame).
pub const LOG_READ_CAP: u32 = 512 * 1024;
/// Most characters per `send-keys -l` call.
pub const SEND_CHUNK_CHARS: usize = 1_000;
/// Grace between Ctrl-C and `kill-session` in `terminate`.
pub const TERMINATE_GRACE: Duration = Duration::from_secs(3);
/// Most `output` events waiting in the executor's channel.
pub const EVENT_BUFFER: usize = 64;
/// Most history lines a capture may ask for.
pub const CAPTURE_MAX_LINES: u32 = tmux::HISTORY_LIMIT;

/// What a sender of keys typed without waiting ([`Executor::type_unanswered`]) waits on
/// until [`Executor::keys_settle`] knows how they went: the executor has no thread and no
/// timer of its own for it; the embedder's reactor waits for either of these, then asks again.
#[derive(Debug)]
pub struct KeysWatch {
    /// Notified when another caller read answers of keys sent this way (this sender's among
    /// them, perhaps) or the control client ended (their answers are lost: counted as typed).
    pub news: event_listener::EventListener,
    /// The control client's output, readable when tmux wrote something nobody read yet (for
    /// readiness only: [`Executor::keys_settle`] reads). `None` when there is no client, or it
    /// is busy (whoever holds it notifies `news` when it lets go). The same `Arc` for the
    /// client's life: a waiter may keep it registered with its reactor (see
    /// `termplane_runtime_smol::keys::KeysWaits`).
    pub answers: Option<std::sync::Arc<std::os::fd::OwnedFd>>,
}

/// Where the executor keeps its state.
#[derive(Debug, Clone)]
pub struct ExecConfig {
    /// Data directory (tmux socket, pane logs, exit files, allowlist, harness configuration
    /// directories, and by default the maintenance mirror).
    pub data_dir: PathBuf,
    /// Home directory (`fs_ls` of `""`).
    pub home_dir: PathBuf,
    /// tmux binary.
    pub tmux_bin: String,
    /// Where the maintenance mirror is kept (`<dataDir>/maintenance.json` by default); `None`
    /// keeps it in memory only, for a host that has no maintenance file (the plane's own host).
    pub maintenance_file: Option<PathBuf>,
    /// The binary whose `record-pane LOG TIMING` subcommand records a pane's output (see
    /// [`recording`]): the embedding process's own. `None`, or a path that is no executable
    /// when a pane starts, logs the pane with `cat` and no timing.
    pub recorder: Option<PathBuf>,
    /// The cap on each pane's log the recorder keeps (see [`recording`]'s "The log's cap").
    pub log_limits: recording::Limits,
}

impl ExecConfig {
    /// A config rooted at `data_dir` with defaults for the rest.
    #[must_use]
    pub fn new(data_dir: PathBuf) -> Self {
        Self {
            home_dir: crate::fs::home_dir(),
            tmux_bin: "tmux".into(),
            maintenance_file: Some(data_dir.join("maintenance.json")),
            recorder: None,
            log_limits: recording::Limits::default(),
            data_dir,
        }
    }
}

/// The executor. It is `Sync`: the link driver runs commands while the exit tick runs elsewhere.
pub struct Executor {
    cfg: ExecConfig,
    tmux: Tmux,
    policy: RwLock<Policy>,
    uploads: Uploads,
    exits: ExitTracker,
    deaths: Arc<deaths::Deaths>,
    tails: TailRegistry,
    maintenance: MaintenanceWatch,
    activity: activity::ActivityWatch,
    host: Arc<dyn Host>,
}

fn tmux_err(e: &TmuxError) -> String {
    e.to_string()
}

fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Applies the `resolve` rule: `envOverride` (set and executable), else `PATH` lookup of
/// `binaryName`, else the first executable of `knownPaths`, where a path written `~/…` is read
/// against `home` (the node's home directory: installers put harnesses in `~/.local/bin` and
/// the like, which a service's `PATH` does not name).
#[must_use]
pub fn resolve_binary(r: &Resolve, home: &Path) -> Option<PathBuf> {
    if let Some(var) = &r.env_override
        && let Some(v) = std::env::var_os(var)
    {
        let p = PathBuf::from(v);
        if p.is_absolute() && is_executable(&p) {
            return Some(p);
        }
    }
    if !r.binary_name.is_empty()
        && !r.binary_name.contains('/')
        && r.binary_name != "."
        && r.binary_name != ".."
        && let Some(path) = std::env::var_os("PATH")
    {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(&r.binary_name);
            if dir.is_absolute() && is_executable(&p) {
                return Some(p);
            }
        }
    }
    r.known_paths
        .iter()
        .filter_map(|p| match p.strip_prefix("~/") {
            Some(rest) if home.is_absolute() => Some(home.join(rest)),
            Some(_) => None,
            None => Some(PathBuf::from(p)),
        })
        .find(|p| p.is_absolute() && is_executable(p))
}

/// A pane's first process: waits until the node opens its gate (a line on the FIFO `$2`,
/// written once the pane log is attached, so the log holds the program's output from its first
/// byte), runs the argv (`"$@"`, no word splitting, no expansion of its words), then writes its
/// exit status to the exit file (`$1`), lets go of the terminal, tells the node the pane died
/// (tmux `$3` on socket `$4` signals [`deaths::CHANNEL`]) and exits with the program's status.
/// Caught (not ignored) INT, QUIT and TSTP keep the wrapper waiting while Ctrl-C, Ctrl-\\ or
/// Ctrl-Z reach the program, whose dispositions are the defaults again (a caught signal is reset
/// by exec). A hangup (the pane closing) ends both as before, until the program has ended: then
/// the wrapper ignores it, since the terminal it lets go of is closed by tmux.
///
/// The wrapper's own word does not depend on tmux reaping it: tmux before 3.5 can lose a pane's
/// SIGCHLD and then never runs `pane-died` (see [`deaths`]). With its terminal let go of first,
/// tmux has usually read the pane's last output and seen it dead by the time the signal comes;
/// when not, `pane-died` or the exit check's tick reports it.
pub const PANE_WRAPPER: &str = "f=$1; g=$2; t=$3; k=$4; shift 4; read -r _ < \"$g\"; rm -f \"$g\"; trap : INT QUIT TSTP; \"$@\"; s=$?; printf '%s\\n' \"$s\" > \"$f\"; trap '' HUP; exec < /dev/null > /dev/null 2>&1; \"$t\" -u -S \"$k\" wait-for -S termplane-pane-died; exit \"$s\"";

/// How long the screen stays still after `prompt_deliver` typed its text before Enter.
const ENTER_AFTER_TEXT_QUIET: Duration = Duration::from_millis(200);
/// The longest `prompt_deliver` waits for the program to take its text before Enter.
const ENTER_AFTER_TEXT_LIMIT: Duration = Duration::from_secs(3);

/// Where the pane log cannot be watched, how often `prompt_deliver` looks at the screen.
const SCREEN_LOOK: Duration = Duration::from_millis(50);

/// How long a pane has printed nothing, for `prompt_deliver`: woken by the pane log growing
/// (every byte the pane prints is appended to it by `pipe-pane`), so the wait for a quiet
/// screen is one timer for the quiet itself, not a look at the screen every few milliseconds.
/// Where the log cannot be watched (no inotify), or stops telling — the screen changed with
/// no write to the log — the screen itself is looked at every [`SCREEN_LOOK`].
struct Stillness {
    watch: Option<fs::Watch>,
    /// When the pane last printed (or the screen last changed).
    since: Instant,
    /// Whether the log grew since the screen was last looked at.
    written: bool,
    /// The screen as last looked at.
    last: String,
}

impl Stillness {
    fn new(log: &Path, screen: String) -> Self {
        Self {
            watch: fs::Watch::new(log, rustix::fs::inotify::WatchFlags::MODIFY),
            since: Instant::now(),
            written: false,
            last: screen,
        }
    }

    /// Counts from now again.
    fn restart(&mut self) {
        self.since = Instant::now();
        self.written = false;
    }

    fn quiet_for(&self) -> Duration {
        self.since.elapsed()
    }

    fn last(&self) -> &str {
        &self.last
    }

    /// After the quiet time, with the screen `now`: whether it is the settled one. With the
    /// watch, it is when the log told of every change since the last look — it grew, or the
    /// screen is unchanged; a change the log did not tell of ends the watch. Without it, when
    /// the screen did not change. A screen that is not settled starts the quiet over.
    fn settled(&mut self, now: String) -> bool {
        let told = std::mem::take(&mut self.written);
        let unchanged = now == self.last;
        let ok = match self.watch {
            Some(_) if told || unchanged => true,
            Some(_) => {
                self.watch = None;
                false
            }
            None => unchanged,
        };
        self.last = now;
        if !ok {
            self.since = Instant::now();
        }
        ok
    }

    /// Waits up to `limit` for the pane to print (the screen, from `screen`, is looked at only
    /// when there is no watch).
    fn wait(
        &mut self,
        limit: Duration,
        screen: impl FnOnce() -> Result<String, String>,
    ) -> Result<(), String> {
        match self.watch.as_mut() {
            Some(w) => {
                if w.wait(limit) {
                    self.since = Instant::now();
                    self.written = true;
                }
            }
            None => {
                std::thread::sleep(limit.min(SCREEN_LOOK));
                let now = screen()?;
                if now != self.last {
                    self.last = now;
                    self.since = Instant::now();
                }
            }
        }
        Ok(())
    }
}

/// How long the node keeps a launch gate open for a wrapper that has not taken its line yet.
const GATE_HOLD: Duration = Duration::from_secs(30);

/// The environment that points a harness at its private configuration directory.
type IsolationEnv = Vec<(&'static str, String)>;

/// A resume pin: 1 to 256 of ASCII letters, digits, `.`, `_`, `:`, `-`.
fn valid_resume_pin(pin: &str) -> bool {
    (1..=256).contains(&pin.len())
        && pin
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

/// A harness id usable as one directory name.
fn valid_harness_dir_name(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id != "."
        && id != ".."
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

fn valid_env_name(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 256
        && k.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn key_name(k: NamedKey) -> &'static str {
    match k {
        NamedKey::Enter => "Enter",
        NamedKey::Escape => "Escape",
        NamedKey::Tab => "Tab",
        NamedKey::Backspace => "BSpace",
        NamedKey::CtrlC => "C-c",
        NamedKey::CtrlD => "C-d",
        NamedKey::CtrlZ => "C-z",
        NamedKey::Up => "Up",
        NamedKey::Down => "Down",
        NamedKey::Left => "Left",
        NamedKey::Right => "Right",
    }
}

/// Splits `s` into pieces of at most `n` characters.
fn chunks(s: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut count = 0;
    for (i, _) in s.char_indices() {
        if count == n {
            out.push(&s[start..i]);
            start = i;
            count = 0;
        }
        count += 1;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// Reads at most `max` (capped at [`LOG_READ_CAP`]) bytes of the file at `path` from byte
/// `from`: `{ fromByte, toByte, size, data_b64 }` (a missing file reads as empty).
pub fn read_range(path: &Path, from: u64, max: u32) -> Result<Value, String> {
    let max = max.min(LOG_READ_CAP) as usize;
    let mut f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(json!({ "fromByte": from, "toByte": from, "size": 0, "data_b64": "" }));
        }
        Err(e) => return Err(e.to_string()),
    };
    let size = f.metadata().map_err(|e| e.to_string())?.len();
    // Bytes a recorder dropped to keep the log within its cap are not answered: the read
    // starts at the first byte kept.
    let from = from.max(recording::kept_from(&f));
    let mut buf = Vec::with_capacity(max.min(64 * 1024));
    if from < size {
        f.seek(SeekFrom::Start(from)).map_err(|e| e.to_string())?;
        f.take(max as u64)
            .read_to_end(&mut buf)
            .map_err(|e| e.to_string())?;
    }
    let start = from.min(size);
    Ok(json!({
        "fromByte": start,
        "toByte": start + buf.len() as u64,
        "size": size,
        "data_b64": b64url_encode(&buf),
    }))
}

impl Executor {
    /// An executor and the receiver of the events it produces on its own (`output`). The
    /// daemon's own commands and the log lines go to `host`.
    pub fn new(cfg: ExecConfig, host: Arc<dyn Host>) -> (Self, Receiver<Event>) {
        // Bounded: a tail waits for the link instead of buffering a fast pane without limit.
        let (tx, rx) = sync_channel(EVENT_BUFFER);
        let log: Arc<dyn Log> = host.clone();
        let tmux =
            Tmux::new(cfg.tmux_bin.clone(), cfg.data_dir.join("tmux.sock")).with_log(log.clone());
        let allowed: Vec<PathBuf> = std::fs::read(cfg.data_dir.join("allowed-dirs.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .and_then(|v| v.get("dirs").cloned())
            .and_then(|d| serde_json::from_value::<Vec<String>>(d).ok())
            .unwrap_or_default()
            .into_iter()
            .map(PathBuf::from)
            .collect();
        // Temp files of uploads a killed daemon left behind go now.
        let (uploads, removed) = Uploads::with_journal(cfg.data_dir.join("uploads"));
        if removed > 0 {
            log.log(
                crate::host::Level::Info,
                &format!("removed {removed} partial upload file(s) a previous run left behind"),
            );
        }
        let maintenance = match &cfg.maintenance_file {
            Some(p) => MaintenanceWatch::new(p.clone()),
            None => MaintenanceWatch::in_memory(),
        };
        let activity =
            activity::ActivityWatch::new(cfg.data_dir.join("logs"), tmux.clone(), tx.clone());
        (
            Self {
                tmux,
                policy: RwLock::new(Policy::new(allowed)),
                uploads,
                exits: ExitTracker::new(cfg.data_dir.join("exits")),
                deaths: deaths::Deaths::new(),
                activity,
                tails: TailRegistry::new(tx),
                maintenance,
                host,
                cfg,
            },
            rx,
        )
    }

    /// Hands the output of the tails started from now on to `hook` first (see [`OutputHook`]).
    pub fn set_output_hook(&self, hook: OutputHook) {
        self.tails.set_output_hook(hook);
    }

    /// Hands the tails started from now on to `driver` instead of a thread each (see
    /// [`TailDriver`]).
    pub fn set_tail_driver(&self, driver: TailDriver) {
        self.tails.set_driver(driver);
    }

    /// The tmux handle.
    #[must_use]
    pub fn tmux(&self) -> &Tmux {
        &self.tmux
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &ExecConfig {
        &self.cfg
    }

    /// Writes a log line through the host.
    pub fn log(&self, level: Level, message: &str) {
        self.host.log(level, message);
    }

    /// The maintenance watch (heartbeat tick: `maintenance_watch().check()`).
    #[must_use]
    pub fn maintenance_watch(&self) -> &MaintenanceWatch {
        &self.maintenance
    }

    /// The current allowlist.
    #[must_use]
    pub fn policy(&self) -> Policy {
        self.policy.read().map(|p| p.clone()).unwrap_or_default()
    }

    /// Starts the private tmux server and begins tracking every pane that survived. Refused
    /// first on a host whose kernel cannot confine paths ([`paths::check_kernel`]).
    pub fn start(&self) -> Result<(), String> {
        paths::check_kernel()?;
        crate::fs::ensure_private_dir(&self.cfg.data_dir).map_err(|e| e.to_string())?;
        crate::fs::ensure_private_dir(&self.logs_dir()).map_err(|e| e.to_string())?;
        self.tmux.start_server().map_err(|e| tmux_err(&e))?;
        self.deaths.watch(self.tmux.wait_for_maker(deaths::CHANNEL));
        let _ = self.census();
        Ok(())
    }

    /// How many pane deaths tmux has announced so far (see [`deaths`]); pass it to
    /// [`Executor::wait_for_deaths`].
    #[must_use]
    pub fn deaths_heard(&self) -> u64 {
        self.deaths.heard()
    }

    /// Waits until tmux announces a pane death after `seen` was read, or until `deadline`; answers
    /// the count then. The exit check runs after it: a pane that ended is reported at once
    /// rather than at the next tick.
    #[must_use]
    pub fn wait_for_deaths(&self, seen: u64, deadline: Instant) -> u64 {
        self.deaths.wait_after(seen, deadline)
    }

    /// Kills the private tmux server and whatever its live panes leave behind (tests; uninstall).
    pub fn stop_server(&self) {
        self.tails.stop_all();
        // As `kill` does for one pane: what outlives the hangup is ended too (see [`procs`]).
        let sessions: Vec<(i32, Vec<i32>)> = self
            .tmux
            .run(&["list-panes", "-a", "-F", "#{pane_dead} #{pane_pid}"])
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.strip_prefix("0 ")?.parse::<i32>().ok())
            .filter(|&sid| sid > 1)
            .map(|sid| (sid, procs::session_members(sid)))
            .collect();
        let _ = self.tmux.kill_server();
        for (sid, members) in sessions {
            procs::kill_left(&members, sid);
        }
    }

    fn logs_dir(&self) -> PathBuf {
        self.cfg.data_dir.join("logs")
    }

    /// Turns the `activity` events on (a pane is quiet after `quiet_ms`) or off; answers
    /// `{ on, quietMs }`.
    pub fn set_activity(&self, on: bool, quiet_ms: u32) -> Result<Value, String> {
        if !termplane_proto::command::ACTIVITY_QUIET_MS.contains(&quiet_ms) {
            return Err(format!(
                "quietMs must be {} to {}",
                termplane_proto::command::ACTIVITY_QUIET_MS.start(),
                termplane_proto::command::ACTIVITY_QUIET_MS.end()
            ));
        }
        crate::fs::ensure_private_dir(&self.logs_dir()).map_err(|e| e.to_string())?;
        self.activity
            .set(on, Duration::from_millis(u64::from(quiet_ms)))?;
        Ok(json!({ "on": on, "quietMs": quiet_ms }))
    }

    /// The pane log of a subshell.
    #[must_use]
    pub fn log_path(&self, id: &SubshellId) -> PathBuf {
        self.logs_dir().join(format!("{id}.log"))
    }

    /// Where a pane's recording (the timing of its log, see [`recording`]) is kept:
    /// `recordings/<id>.timing`, out of the `logs` directory, whose every write the activity
    /// watch is woken by.
    #[must_use]
    pub fn timing_path(&self, id: &SubshellId) -> PathBuf {
        self.recordings_dir().join(format!("{id}.timing"))
    }

    fn recordings_dir(&self) -> PathBuf {
        self.cfg.data_dir.join("recordings")
    }

    /// Abandons every upload under way, removing its partial file (the daemon stops: the
    /// plane cannot finish them).
    pub fn abandon_uploads(&self) {
        self.uploads.abandon_all();
    }

    /// One exit-detection tick (every 2 s); it also abandons uploads gone idle.
    pub fn exit_tick(&self) -> Vec<Exit> {
        let dropped = self.uploads.sweep(std::time::Instant::now());
        if dropped > 0 {
            self.log(
                Level::Info,
                &format!("{dropped} idle upload(s) abandoned, their partial files removed"),
            );
        }
        self.exits.tick(&self.tmux)
    }

    /// The `subshells_report` census; every survivor is tracked for exit detection.
    pub fn census(&self) -> Result<Vec<SurvivingPane>, String> {
        let _hold = self.exits.hold();
        let rows = events::list_panes(&self.tmux).or_else(|e| match e {
            TmuxError::NoServer => Ok(Vec::new()),
            e => Err(tmux_err(&e)),
        })?;
        for r in &rows {
            if !self.exits.is_tracked(&r.id) {
                self.exits.track(&r.id);
            }
        }
        Ok(events::census_of(&rows))
    }

    /// Runs one command and wraps the answer for `record_result`.
    pub fn execute_result(&self, jti: &str, cmd: &Command) -> CommandResult {
        match self.execute(cmd) {
            Ok(v) => CommandResult::ok(jti, Some(v)),
            Err(e) => CommandResult::refusal(jti, &e),
        }
    }

    /// Runs one command.
    pub fn execute(&self, cmd: &Command) -> Result<Value, String> {
        self.log(Level::Debug, &format!("command {}", cmd.kind()));
        match cmd {
            Command::Launch(l) => self.launch(l),
            Command::Terminate(r) => self.terminate(&r.subshell_id),
            Command::Kill(r) => self.kill(&r.subshell_id),
            Command::Forget(r) => self.forget(&r.subshell_id),
            Command::PromptDeliver(p) => self.prompt_deliver(
                &p.subshell_id,
                &p.text,
                p.quiet_ms.unwrap_or(1_500),
                p.timeout_ms.unwrap_or(60_000),
            ),
            Command::Input(i) => self.input(&i.subshell_id, &i.data, &i.keys),
            Command::Resize(r) => self.resize(&r.subshell_id, r.cols, r.rows),
            Command::Capture(c) if c.replay => self.replay(&c.subshell_id, c.lines.unwrap_or(0)),
            Command::Capture(c) => self.capture(&c.subshell_id, c.lines),
            Command::PaneSize(r) => self.pane_query(
                &r.subshell_id,
                "#{pane_width} #{pane_height}",
                ("cols", "rows"),
            ),
            Command::PaneCursor(r) => {
                self.pane_query(&r.subshell_id, "#{cursor_x} #{cursor_y}", ("x", "y"))
            }
            Command::LogRead(l) => {
                read_range(&self.log_path(&l.subshell_id), l.from_byte, l.max_bytes)
            }
            Command::TimingRead(l) => {
                read_range(&self.timing_path(&l.subshell_id), l.from_byte, l.max_bytes)
            }
            Command::RecordingTrim(t) => {
                let e = recording::expire(
                    &self.log_path(&t.subshell_id),
                    &self.timing_path(&t.subshell_id),
                    t.before_us,
                )
                .map_err(|e| format!("the recording could not be trimmed: {e}"))?;
                Ok(json!({
                    "logFrom": e.log_from,
                    "timingFrom": e.timing_from,
                    "droppedBytes": e.dropped_bytes,
                }))
            }
            Command::TailStart(t) => {
                let from =
                    self.tails
                        .start(&t.sub_id, self.log_path(&t.subshell_id), t.from_byte)?;
                Ok(json!({ "subId": t.sub_id, "fromByte": from }))
            }
            Command::TailStop(t) => Ok(json!({ "stopped": self.tails.stop(&t.sub_id) })),
            Command::StatDir(p) => {
                paths::lexical_components(&p.path)?;
                let real =
                    std::fs::canonicalize(&p.path).map_err(|e| format!("{}: {e}", p.path))?;
                if !real.is_dir() {
                    return Err(format!("{}: not a directory", p.path));
                }
                std::fs::read_dir(&real).map_err(|e| format!("{}: {e}", p.path))?;
                Ok(json!({ "path": real.to_string_lossy() }))
            }
            Command::PathExists(p) => {
                paths::lexical_components(&p.path)?;
                Ok(json!({ "exists": paths::exists(Path::new(&p.path)) }))
            }
            Command::FsLs(p) => {
                // No path: the home directory, or the first allowed directory when the home
                // is outside them (the picker must start somewhere it may go).
                let path = if p.path.is_empty() {
                    let home = self.cfg.home_dir.to_string_lossy().into_owned();
                    let policy = self.policy();
                    if policy.locate(&home).is_ok() {
                        home
                    } else {
                        policy
                            .allowed()
                            .first()
                            .map_or(home, |d| d.to_string_lossy().into_owned())
                    }
                } else {
                    p.path.clone()
                };
                let (names, truncated) = self
                    .policy()
                    .list_dirs(&path, termplane_proto::limits::FS_LS_MAX_ENTRIES)?;
                let entries: Vec<Value> = names.into_iter().map(|n| json!({ "name": n })).collect();
                Ok(json!({ "path": path, "entries": entries, "truncated": truncated }))
            }
            Command::WriteFile(w) => {
                let data = b64url_decode(&w.chunk_b64).map_err(|_| "chunk_b64 is not base64url")?;
                let done =
                    self.uploads
                        .write_chunk(&self.policy(), &w.path, w.chunk, &data, w.eof)?;
                Ok(json!({ "path": w.path, "bytes": done.bytes, "done": done.done }))
            }
            Command::RemovePaths(r) => {
                if r.paths.len() > 1_000 {
                    return Err("at most 1,000 paths per call".into());
                }
                let policy = self.policy();
                let mut removed = Vec::new();
                let mut failed = Vec::new();
                for p in &r.paths {
                    match policy.remove(p) {
                        Ok(()) => removed.push(p.clone()),
                        Err(e) => failed.push(json!({ "path": p, "error": e })),
                    }
                }
                Ok(json!({ "removed": removed, "failed": failed }))
            }
            Command::SetAllowedDirs(s) => self.set_allowed_dirs(&s.dirs),
            Command::Service(s) => self.host.service(self, s),
            Command::AgentLogRead(a) => self.host.agent_log_read(self, a),
            Command::SetServerUrl(s) => self.host.set_server_url(self, s),
            Command::SetLogLevel(s) => self.host.set_log_level(self, s),
            Command::SetMaintenance(m) => {
                self.maintenance.set(m)?;
                Ok(json!({ "on": m.on, "changedAt": m.changed_at }))
            }
            Command::Update(u) => self.host.update(self, u),
            Command::Probe(p) => self.probe(&p.subshell_ids),
            Command::Inventory(_) => Ok(json!({ "harnesses": [], "at": crate::util::now_iso() })),
            Command::Detect(d) => Ok(detect(d, &self.cfg.home_dir)),
            Command::Ping(_) => Ok(json!({ "pong": true, "at": crate::util::now_iso() })),
            Command::Activity(a) => self.set_activity(a.on, a.quiet_ms),
        }
    }

    fn in_maintenance(&self) -> bool {
        self.maintenance.current().is_some_and(|m| m.on)
    }

    /// `Some(code)` when the pane is dead (`code` is `None` while tmux has not reaped the child).
    fn pane_dead(&self, id: &SubshellId) -> Result<Option<Option<i32>>, TmuxError> {
        let s = self.tmux.query(&pane_target(id), events::STATUS_FORMAT)?;
        let mut it = s.split(tmux::FIELD_SEP);
        if it.next() == Some("1") {
            Ok(Some(events::dead_status(
                it.next().unwrap_or(""),
                it.next().unwrap_or(""),
            )))
        } else {
            Ok(None)
        }
    }

    fn terminate(&self, id: &SubshellId) -> Result<Value, String> {
        let target = pane_target(id);
        match self.tmux.run(&["send-keys", "-t", target.as_str(), "C-c"]) {
            Err(e) if e.is_authoritative_gone() => {
                return Ok(json!({ "existed": false, "graceful": false }));
            }
            Err(e) => return Err(tmux_err(&e)),
            Ok(_) => {}
        }
        // The grace: looked at again each time tmux announces a death (this pane's or
        // another's), until the deadline.
        let deadline = Instant::now() + TERMINATE_GRACE;
        let mut graceful = false;
        loop {
            let seen = self.deaths.heard();
            match self.pane_dead(id) {
                Ok(Some(code)) => {
                    self.exits.note_code(id, code);
                    graceful = true;
                    break;
                }
                Err(e) if e.is_authoritative_gone() => {
                    graceful = true;
                    break;
                }
                _ => {}
            }
            if Instant::now() >= deadline {
                break;
            }
            let _ = self.deaths.wait_after(seen, deadline);
        }
        match self.close_pane(id) {
            Ok(_) => {}
            Err(e) if e.is_authoritative_gone() => {}
            Err(e) => return Err(tmux_err(&e)),
        }
        Ok(json!({ "existed": true, "graceful": graceful }))
    }

    /// `forget`: the pane log, its recording's timing and the exit record of a subshell whose
    /// pane is gone are removed (the subshell was deleted: what it printed goes with it).
    /// Refused while the pane runs.
    fn forget(&self, id: &SubshellId) -> Result<Value, String> {
        if self.pane_dead(id).is_ok_and(|d| d.is_none()) {
            return Err(format!("{id}: the pane still runs"));
        }
        let mut removed = 0;
        let log = self.log_path(id);
        let timing = self.timing_path(id);
        for path in [log, timing, events::exit_file(self.exits.dir(), id)] {
            match std::fs::remove_file(&path) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("{}: {e}", path.display())),
            }
        }
        Ok(json!({ "removed": removed }))
    }

    fn kill(&self, id: &SubshellId) -> Result<Value, String> {
        if let Ok(Some(code)) = self.pane_dead(id) {
            self.exits.note_code(id, code);
        }
        match self.close_pane(id) {
            Ok(_) => Ok(json!({ "existed": true })),
            Err(e) if e.is_authoritative_gone() => Ok(json!({ "existed": false })),
            Err(e) => Err(tmux_err(&e)),
        }
    }

    /// Closes a pane's session and then ends every process of the pane that outlived the
    /// hangup (see [`procs`]).
    fn close_pane(&self, id: &SubshellId) -> Result<String, TmuxError> {
        // Listed while the wrapper is alive: then its pid is the session's id and no one else's.
        let session = self
            .tmux
            .query(&pane_target(id), "#{pane_dead} #{pane_pid}")
            .ok()
            .and_then(|s| s.strip_prefix("0 ").and_then(|p| p.parse::<i32>().ok()))
            .filter(|&sid| sid > 1)
            .map(|sid| (sid, procs::start_ticks(sid), procs::session_members(sid)));
        let closed = self
            .tmux
            .run(&["kill-session", "-t", session_target(id).as_str()])?;
        if let Some((sid, leader_start, members)) = session {
            let killed = procs::kill_left(&members, sid) + procs::sweep_session(sid, leader_start);
            if killed > 0 {
                self.log(
                    Level::Info,
                    &format!(
                        "{killed} process(es) of pane {id} outlived its hangup and were killed"
                    ),
                );
            }
        }
        Ok(closed)
    }

    fn send_literal(&self, target: &str, text: &str) -> Result<(), String> {
        for piece in chunks(text, SEND_CHUNK_CHARS) {
            self.tmux
                .run(&["send-keys", "-t", target, "-l", "--", piece])
                .map_err(|e| tmux_err(&e))?;
        }
        Ok(())
    }

    /// Types `data` into a subshell's pane at once, without waiting for tmux to say it did:
    /// the way a viewer's keystrokes go when nothing else is queued (see
    /// [`Runner::type_now`]). Answers a ticket for [`Self::keys_settled`] when it was sent;
    /// `None` (nothing sent) when the text is empty or longer than one `send-keys` call
    /// carries, or the control client could not take it.
    #[must_use]
    pub fn type_unanswered(&self, id: &SubshellId, data: &str) -> Option<u64> {
        if data.is_empty() || data.chars().nth(SEND_CHUNK_CHARS).is_some() || self.program_ended(id)
        {
            return None;
        }
        let target = pane_target(id);
        self.tmux
            .send_unanswered(&["send-keys", "-t", target.as_str(), "-l", "--", data])
    }

    /// How keys typed with [`Self::type_unanswered`] went, once tmux has said so: `Ok(Err)`
    /// with why not (the pane is gone); until then, what to wait on before asking again
    /// ([`KeysWatch`]; nothing here waits).
    pub fn keys_settle(&self, ticket: u64) -> Result<Result<(), String>, KeysWatch> {
        match self.tmux.settle_or_watch(ticket) {
            Ok(r) => Ok(r.map_err(|e| tmux_err(&e))),
            Err((news, answers)) => Err(KeysWatch { news, answers }),
        }
    }

    /// Whether keys typed with [`Self::type_unanswered`] were typed, once tmux has said so:
    /// `Some(Err)` with why not (the pane is gone), `None` while it has not (see
    /// [`Self::keys_settle`] for what to wait on).
    #[must_use]
    pub fn keys_settled(&self, ticket: u64) -> Option<Result<(), String>> {
        self.keys_settle(ticket).ok()
    }

    /// Whether the program of a subshell's pane has ended: its wrapper wrote the exit file
    /// (removed when the end is reported, and by the next launch). tmux keeps the dead pane
    /// (`remain-on-exit`) until then, and takes keys sent to it without a word.
    fn program_ended(&self, id: &SubshellId) -> bool {
        self.exits.has_ended(id)
    }

    /// `input`: refused once the pane's program has ended, rather than typed into a dead pane
    /// where nothing reads them (see [`Self::program_ended`]).
    fn input(&self, id: &SubshellId, data: &str, keys: &[NamedKey]) -> Result<Value, String> {
        if self.program_ended(id) {
            return Err(format!("{id}: the pane's program has ended"));
        }
        let target = pane_target(id);
        self.send_literal(&target, data)?;
        for k in keys {
            self.tmux
                .run(&["send-keys", "-t", target.as_str(), key_name(*k)])
                .map_err(|e| tmux_err(&e))?;
        }
        Ok(json!({ "bytes": data.len(), "keys": keys.len() }))
    }

    /// Waits for the pane to show something and then stay unchanged for `quiet`, types `text`,
    /// and presses Enter apart from it: once the screen moved off what it showed (the program
    /// took the text) and stayed still for [`ENTER_AFTER_TEXT_QUIET`], or
    /// [`ENTER_AFTER_TEXT_LIMIT`] went by. A program that reads text and Enter in one burst may
    /// take them for a paste, whose Enter does not submit.
    fn prompt_deliver(
        &self,
        id: &SubshellId,
        text: &str,
        quiet_ms: u32,
        timeout_ms: u32,
    ) -> Result<Value, String> {
        let target = pane_target(id);
        let quiet = Duration::from_millis(u64::from(quiet_ms.min(60_000)));
        let timeout = Duration::from_millis(u64::from(timeout_ms.min(300_000)));
        let start = Instant::now();
        let screen = || {
            self.tmux
                .run(&["capture-pane", "-p", "-t", target.as_str()])
                .map_err(|e| tmux_err(&e))
        };
        let mut still = Stillness::new(&self.log_path(id), screen()?);
        loop {
            if still.quiet_for() >= quiet
                && still.settled(screen()?)
                && !still.last().trim().is_empty()
            {
                break;
            }
            let left = timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Err("pane never went quiet".into());
            }
            // Until the quiet is over, or — an empty screen — until something is printed.
            let quiet_left = quiet.saturating_sub(still.quiet_for());
            let limit = if quiet_left.is_zero() {
                left
            } else {
                quiet_left.min(left)
            };
            still.wait(limit, screen)?;
        }
        self.send_literal(&target, text)?;
        let typed = Instant::now();
        let before = still.last().to_owned();
        still.restart();
        loop {
            if still.quiet_for() >= ENTER_AFTER_TEXT_QUIET
                && still.settled(screen()?)
                && still.last() != before
            {
                break;
            }
            let left = ENTER_AFTER_TEXT_LIMIT.saturating_sub(typed.elapsed());
            if left.is_zero() {
                break;
            }
            let quiet_left = ENTER_AFTER_TEXT_QUIET.saturating_sub(still.quiet_for());
            let limit = if quiet_left.is_zero() {
                left
            } else {
                quiet_left.min(left)
            };
            still.wait(limit, screen)?;
        }
        self.tmux
            .run(&["send-keys", "-t", target.as_str(), "Enter"])
            .map_err(|e| tmux_err(&e))?;
        Ok(json!({ "delivered": true, "waitedMs": start.elapsed().as_millis() as u64 }))
    }

    /// Notes the pane's grid in its recording (`start`: the one a launch begins; else only
    /// into a recording that exists, so a pane not recorded gets none). A recording that
    /// cannot be written loses the mark, never the command.
    fn record_grid(&self, id: &SubshellId, cols: u16, rows: u16, start: bool) {
        let grid = recording::Record::Grid {
            at_us: recording::now_us(),
            cols,
            rows,
        };
        let path = self.timing_path(id);
        if !start && !path.exists() {
            return;
        }
        if let Err(e) = recording::append(&path, grid) {
            self.log(Level::Debug, &format!("{id}: grid not recorded: {e}"));
        }
    }

    fn resize(&self, id: &SubshellId, cols: u16, rows: u16) -> Result<Value, String> {
        if !(1..=1000).contains(&cols) || !(1..=1000).contains(&rows) {
            return Err("cols and rows must be 1 to 1,000".into());
        }
        self.tmux
            .run(&[
                "resize-window",
                "-t",
                pane_target(id).as_str(),
                "-x",
                cols.to_string().as_str(),
                "-y",
                rows.to_string().as_str(),
            ])
            .map_err(|e| tmux_err(&e))?;
        self.record_grid(id, cols, rows, false);
        Ok(json!({ "cols": cols, "rows": rows }))
    }

    fn capture(&self, id: &SubshellId, lines: Option<u32>) -> Result<Value, String> {
        let target = pane_target(id);
        let mut args = vec![
            "capture-pane".to_owned(),
            "-p".into(),
            "-e".into(),
            "-J".into(),
            "-t".into(),
            target,
        ];
        if let Some(n) = lines {
            args.push("-S".into());
            args.push(format!("-{}", n.min(CAPTURE_MAX_LINES)));
        }
        let text = self.tmux.run(&args).map_err(|e| tmux_err(&e))?;
        Ok(json!({ "text": text }))
    }

    fn replay(&self, id: &SubshellId, lines: u32) -> Result<Value, String> {
        let lines = lines.min(CAPTURE_MAX_LINES);
        match screen::replay(&self.tmux, &pane_target(id), &self.log_path(id), lines) {
            Ok(Some(r)) => Ok(json!({
                "replay_b64": b64url_encode(&r.bytes),
                "logOffset": r.log_offset,
                "cols": r.cols,
                "rows": r.rows,
                "alternate": r.alternate,
            })),
            Ok(None) => Ok(Value::Null),
            Err(e) => Err(tmux_err(&e)),
        }
    }

    fn pane_query(
        &self,
        id: &SubshellId,
        format: &'static str,
        names: (&str, &str),
    ) -> Result<Value, String> {
        match self.tmux.query(&pane_target(id), format) {
            Ok(s) => {
                let mut it = s.split_whitespace().map(str::parse::<u32>);
                match (it.next(), it.next()) {
                    (Some(Ok(a)), Some(Ok(b))) => Ok(json!({ names.0: a, names.1: b })),
                    _ => Ok(Value::Null),
                }
            }
            Err(e) if e.is_authoritative_gone() => Ok(Value::Null),
            Err(e) => Err(tmux_err(&e)),
        }
    }

    fn probe(&self, ids: &[SubshellId]) -> Result<Value, String> {
        let rows = match events::list_panes(&self.tmux) {
            Ok(r) => r,
            Err(TmuxError::NoServer) => Vec::new(),
            Err(e) => return Err(tmux_err(&e)),
        };
        let out: Vec<Value> = ids
            .iter()
            .map(|id| match rows.iter().find(|r| &r.id == id) {
                Some(r) => json!({ "subshellId": id, "alive": !r.dead, "pane": r.pane }),
                None => json!({ "subshellId": id, "alive": false }),
            })
            .collect();
        Ok(json!({ "subshells": out }))
    }

    fn set_allowed_dirs(&self, dirs: &[String]) -> Result<Value, String> {
        let real = Policy::canonicalize(dirs)?;
        let list: Vec<String> = real
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let text = serde_json::to_vec(&json!({ "dirs": list })).map_err(|e| e.to_string())?;
        crate::fs::write_private_atomic(&self.cfg.data_dir.join("allowed-dirs.json"), &text)
            .map_err(|e| e.to_string())?;
        if let Ok(mut p) = self.policy.write() {
            *p = Policy::new(real);
        }
        Ok(json!({ "dirs": list }))
    }

    /// Whether any pane of the private server is alive.
    pub fn panes_running(&self) -> bool {
        self.census().is_ok_and(|c| !c.is_empty())
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        self.tails.stop_all();
    }
}

/// How long one harness's version probe may take (a probe still running then is ended, and
/// its harness answered without a version). The probes of one `detect` run side by side, so
/// the whole answer comes within about this long however many harnesses it names — inside the
/// plane's 10 s command deadline, with room for a big CLI that starts slowly on a busy host.
pub const VERSION_PROBE_LIMIT: Duration = Duration::from_secs(8);

/// `detect`: binaries by the rules (`~/` read against `home`), raw version text (the probes run
/// at once, each for at most [`VERSION_PROBE_LIMIT`]), and exactly the named environment
/// variables.
fn detect(d: &termplane_proto::command::Detect, home: &Path) -> Value {
    let mut env = serde_json::Map::new();
    for n in d.env_names.iter().take(256) {
        let v = if valid_env_name(n) {
            std::env::var(n).ok().map_or(Value::Null, Value::String)
        } else {
            Value::Null
        };
        env.insert(n.clone(), v);
    }
    let rules: Vec<_> = d
        .rules
        .iter()
        .take(64)
        .map(|r| (r, resolve_binary(&r.resolve, home)))
        .collect();
    let versions: Vec<Option<String>> = std::thread::scope(|s| {
        let probes: Vec<_> = rules
            .iter()
            .map(|(r, bin)| {
                bin.as_ref().map(|bin| {
                    s.spawn(move || {
                        let mut c = std::process::Command::new(bin);
                        c.args(r.version_args.iter().take(16));
                        crate::util::run_bounded(&mut c, VERSION_PROBE_LIMIT, 4096)
                            .ok()
                            .map(|o| {
                                let text = if o.stdout.iter().any(|b| !b.is_ascii_whitespace()) {
                                    o.stdout
                                } else {
                                    o.stderr
                                };
                                String::from_utf8_lossy(&text).trim().to_owned()
                            })
                    })
                })
            })
            .collect();
        probes
            .into_iter()
            .map(|p| p.and_then(|h| h.join().ok().flatten()))
            .collect()
    });
    let harnesses: Vec<Value> = rules
        .iter()
        .zip(versions)
        .map(|((r, bin), version)| match bin {
            None => json!({ "harnessId": r.harness_id, "installed": false, "reason": "binary not found" }),
            Some(bin) => json!({
                "harnessId": r.harness_id,
                "installed": true,
                "binaryPath": bin.to_string_lossy(),
                "version": version,
            }),
        })
        .collect();
    json!({ "harnesses": harnesses, "env": env, "at": crate::util::now_iso() })
}

/// Shared executor plus its event receiver, as `run` builds them.
pub fn shared(cfg: ExecConfig, host: Arc<dyn Host>) -> (Arc<Executor>, Receiver<Event>) {
    let (e, rx) = Executor::new(cfg, host);
    (Arc::new(e), rx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunking_keeps_characters_whole() {
        assert_eq!(chunks("abcdé", 2), vec!["ab", "cd", "é"]);
        assert!(chunks("", 3).is_empty());
    }

    #[test]
    fn the_pane_wrapper_signals_the_channel_the_death_watcher_waits_on() {
        assert!(
            PANE_WRAPPER.contains(&format!("wait-for -S {}", deaths::CHANNEL)),
            "{PANE_WRAPPER}"
        );
        assert!(deaths::HOOK.ends_with(deaths::CHANNEL));
    }
}
