//! Node-side event sources the runtime drives: pane exit detection (2 s tick), the
//! `subshells_report` census, the maintenance mirror's watch and the log tails behind `output`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::event::{EventfdFlags, PollFd, PollFlags, eventfd, poll};
use rustix::fd::OwnedFd;
use rustix::fs::inotify;

use termplane_proto::SubshellId;
use termplane_proto::command::Maintenance;
use termplane_proto::event::{Event, Exit, Output, SurvivingPane};
use termplane_proto::limits::EXIT_FAILED_PROBES;

use super::tmux::{FIELD_SEP, SESSION_PREFIX, Tmux, TmuxError, is_pane_id};

/// The constant template of the pane listing (no user text; fields separated by
/// [`FIELD_SEP`]).
pub(crate) const LIST_FORMAT: &str =
    "#{session_name}:#{pane_id}:#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}:#{pane_pid}";

/// The constant template that reads a pane's death and status (fields separated by
/// [`FIELD_SEP`]).
pub(crate) const STATUS_FORMAT: &str = "#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}";

/// How often, and how far apart, a dead pane whose status tmux has not reaped yet is asked again
/// within one tick (tmux can see the pty close before it reaps the child).
const STATUS_RETRIES: u32 = 5;
const STATUS_RETRY_GAP: Duration = Duration::from_millis(20);

/// One pane of the node's tmux server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneRow {
    /// The subshell.
    pub id: SubshellId,
    /// `%N`.
    pub pane: String,
    /// Whether the pane's process has exited (kept by `remain-on-exit`).
    pub dead: bool,
    /// Its exit status when dead: the process's exit code, or 128 + the signal number when a
    /// signal ended it (the shell's convention). `None` while tmux has not reaped the child yet.
    pub status: Option<i32>,
    /// The pane process id.
    pub pid: Option<u32>,
}

/// Lists every pane whose session is a subshell's (`tp-<id>`), first pane per session.
pub fn list_panes(tmux: &Tmux) -> Result<Vec<PaneRow>, TmuxError> {
    let text = match tmux.run(&["list-panes", "-a", "-F", LIST_FORMAT]) {
        Ok(t) => t,
        // With no session at all `list-panes -a` fails; an empty session list proves it.
        Err(TmuxError::Failed(e)) => match tmux.run(&["list-sessions", "-F", "#{session_id}"]) {
            Ok(s) if s.trim().is_empty() => String::new(),
            _ => return Err(TmuxError::Failed(e)),
        },
        Err(e) => return Err(e),
    };
    let mut rows: Vec<PaneRow> = Vec::new();
    for line in text.lines() {
        let mut f = line.split(FIELD_SEP);
        let (Some(sess), Some(pane), Some(dead), Some(status), Some(signal), Some(pid)) =
            (f.next(), f.next(), f.next(), f.next(), f.next(), f.next())
        else {
            continue;
        };
        let Some(id) = sess
            .strip_prefix(SESSION_PREFIX)
            .and_then(|s| SubshellId::parse(s).ok())
        else {
            continue;
        };
        if !is_pane_id(pane) || rows.iter().any(|r| r.id == id) {
            continue;
        }
        rows.push(PaneRow {
            id,
            pane: pane.to_owned(),
            dead: dead == "1",
            status: dead_status(status, signal),
            pid: pid.parse().ok(),
        });
    }
    Ok(rows)
}

/// The exit status from tmux's `pane_dead_status` and `pane_dead_signal` fields.
pub(crate) fn dead_status(status: &str, signal: &str) -> Option<i32> {
    status
        .parse()
        .ok()
        .or_else(|| signal.parse::<i32>().ok().map(|s| 128 + s))
}

/// Asks tmux again, a few times in quick succession, for the status of a dead pane whose child
/// had not been reaped when it was listed.
fn settle_status(tmux: &Tmux, pane: &str) -> Option<i32> {
    for _ in 0..STATUS_RETRIES {
        std::thread::sleep(STATUS_RETRY_GAP);
        let Ok(s) = tmux.query(pane, STATUS_FORMAT) else {
            return None;
        };
        let mut f = s.split(FIELD_SEP);
        if let (Some(_), Some(status), Some(signal)) = (f.next(), f.next(), f.next())
            && let Some(code) = dead_status(status, signal)
        {
            return Some(code);
        }
    }
    None
}

/// The census of surviving (live) panes for `subshells_report`.
#[must_use]
pub fn census_of(rows: &[PaneRow]) -> Vec<SurvivingPane> {
    rows.iter()
        .filter(|r| !r.dead)
        .map(|r| SurvivingPane {
            subshell_id: r.id.clone(),
            pane: r.pane.clone(),
            pid: r.pid,
        })
        .collect()
}

#[derive(Debug, Default)]
struct Tracked {
    failed: u32,
    known_code: Option<i32>,
    /// Ticks that saw the pane dead with no status yet.
    unreaped: u32,
}

/// Exit detection: tracked subshells are probed on every tick with one `list-panes`.
///
/// Where the code comes from: a pane's first process is a small `/bin/sh` wrapper that runs
/// the argv and writes its exit status (128 + the signal when a signal ended it) to
/// `<dataDir>/exits/<subshellId>` (see `PANE_WRAPPER` in the executor). That file is the
/// authority, because tmux 3.3a sometimes never records `#{pane_dead_status}` (its pty can close
/// before its SIGCHLD handler reaps the child, and the status is then lost for good); tmux's
/// own status is the fallback.
///
/// * session gone, or no server at all: exit at once (authoritative), with the exit file's
///   code, else the one `terminate` saw, else `null`;
/// * pane dead (`remain-on-exit`): exit with the exit file's code, else
///   `#{pane_dead_status}`, and the session is removed; with neither yet, the pane is asked
///   again briefly and, if still without a code, left for one more tick before it is reported
///   with `exitCode: null`;
/// * the probe itself failed: one strike; [`EXIT_FAILED_PROBES`] consecutive strikes report
///   `exitCode: null`;
/// * a relaunch ([`ExitTracker::track`]) resets the count.
#[derive(Debug)]
pub struct ExitTracker {
    tracked: Mutex<HashMap<SubshellId, Tracked>>,
    /// Held by a tick from its probe until its verdicts are applied, and by whoever creates
    /// panes or re-tracks them ([`ExitTracker::hold`]), so a tick never judges a pane by a probe
    /// taken before that pane was (re)created: it would report a false exit, forget the new
    /// pane, or kill a freshly relaunched session.
    lifecycle: Mutex<()>,
    dir: PathBuf,
    /// `dir`, opened (`O_PATH`) the first time a pane's end is asked after it exists: the
    /// check on a keystroke's way ([`ExitTracker::has_ended`]) then looks up one name in it
    /// instead of walking the data directory's whole path. The directory is made once and
    /// never removed or replaced while the executor runs, so the descriptor stays its own.
    dir_fd: std::sync::OnceLock<OwnedFd>,
}

/// The exit file of a subshell under `dir`.
#[must_use]
pub fn exit_file(dir: &std::path::Path, id: &SubshellId) -> PathBuf {
    dir.join(id.as_str())
}

/// The code in an exit file, if it holds one.
fn read_exit_file(dir: &std::path::Path, id: &SubshellId) -> Option<i32> {
    std::fs::read_to_string(exit_file(dir, id))
        .ok()?
        .trim()
        .parse()
        .ok()
}

impl ExitTracker {
    /// A tracker whose panes write their exit files under `dir`.
    #[must_use]
    pub fn new(dir: PathBuf) -> Self {
        Self {
            tracked: Mutex::new(HashMap::new()),
            lifecycle: Mutex::new(()),
            dir,
            dir_fd: std::sync::OnceLock::new(),
        }
    }

    /// Whether the program of `id`'s pane has ended: its wrapper wrote the exit file. Asked
    /// before each keystroke is typed, so it costs one lookup of one name (measured on a
    /// keystroke's way, caches cold after an idle gap: the walk of the whole path from `/`
    /// took 6 to 25 µs, the one name about 3 µs). Before any pane made the directory, nothing
    /// has ended.
    #[must_use]
    pub fn has_ended(&self, id: &SubshellId) -> bool {
        use rustix::fs::{AtFlags, Mode, OFlags};
        let fd = match self.dir_fd.get() {
            Some(fd) => fd,
            None => match rustix::fs::open(
                &self.dir,
                OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            ) {
                Ok(fd) => self.dir_fd.get_or_init(|| fd),
                Err(_) => return exit_file(&self.dir, id).exists(),
            },
        };
        rustix::fs::statat(fd, id.as_str(), AtFlags::empty()).is_ok()
    }

    /// Keeps ticks out while panes are created or re-tracked (see the `lifecycle` field). Never
    /// call [`ExitTracker::tick`] while holding it.
    pub fn hold(&self) -> std::sync::MutexGuard<'_, ()> {
        self.lifecycle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Where the panes write their exit files.
    #[must_use]
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// Starts (or restarts) tracking `id`.
    pub fn track(&self, id: &SubshellId) {
        if let Ok(mut t) = self.tracked.lock() {
            t.insert(id.clone(), Tracked::default());
        }
    }

    /// Records an exit code seen before the session was removed.
    pub fn note_code(&self, id: &SubshellId, code: Option<i32>) {
        if let Ok(mut t) = self.tracked.lock()
            && let Some(e) = t.get_mut(id)
        {
            e.known_code = code.or(e.known_code);
        }
    }

    /// Whether `id` is tracked.
    #[must_use]
    pub fn is_tracked(&self, id: &SubshellId) -> bool {
        self.tracked.lock().is_ok_and(|t| t.contains_key(id))
    }

    /// One tick: probes and answers the exits to report.
    pub fn tick(&self, tmux: &Tmux) -> Vec<Exit> {
        let _hold = self.hold();
        let probe = list_panes(tmux);
        let now = crate::util::now_iso();
        let Ok(mut tracked) = self.tracked.lock() else {
            return Vec::new();
        };
        let mut exits = Vec::new();
        let mut gone = Vec::new();
        match probe {
            Ok(rows) => {
                for (id, t) in tracked.iter_mut() {
                    match rows.iter().find(|r| &r.id == id) {
                        None => {
                            let code = read_exit_file(&self.dir, id).or(t.known_code);
                            exits.push((id.clone(), code));
                            gone.push(id.clone());
                        }
                        Some(r) if r.dead => {
                            let status = read_exit_file(&self.dir, id)
                                .or(r.status)
                                .or_else(|| settle_status(tmux, &r.pane))
                                .or_else(|| read_exit_file(&self.dir, id));
                            if status.is_none() && t.known_code.is_none() && t.unreaped == 0 {
                                t.unreaped = 1;
                                continue;
                            }
                            exits.push((id.clone(), status.or(t.known_code)));
                            gone.push(id.clone());
                            let _ = tmux.run(&[
                                "kill-session",
                                "-t",
                                super::tmux::session_target(id).as_str(),
                            ]);
                        }
                        Some(_) => t.failed = 0,
                    }
                }
            }
            Err(TmuxError::NoServer) => {
                for (id, t) in tracked.iter() {
                    let code = read_exit_file(&self.dir, id).or(t.known_code);
                    exits.push((id.clone(), code));
                    gone.push(id.clone());
                }
            }
            Err(_) => {
                for (id, t) in tracked.iter_mut() {
                    t.failed += 1;
                    if t.failed >= EXIT_FAILED_PROBES {
                        exits.push((id.clone(), None));
                        gone.push(id.clone());
                    }
                }
            }
        }
        for id in gone {
            tracked.remove(&id);
            let _ = std::fs::remove_file(exit_file(&self.dir, &id));
        }
        exits
            .into_iter()
            .map(|(subshell_id, exit_code)| Exit {
                subshell_id,
                exit_code,
                at: now.clone(),
            })
            .collect()
    }
}

/// The maintenance mirror (`set_maintenance` sets it, `launch` obeys it) and its watch for the
/// heartbeat tick. It lives in a file — the node daemon's `<dataDir>/maintenance.json`, so it
/// survives a restart — or, for a host that keeps no such file (the plane's own host), in memory
/// only.
#[derive(Debug)]
pub struct MaintenanceWatch {
    path: Option<PathBuf>,
    held: Mutex<Option<Maintenance>>,
    last: Mutex<Option<Maintenance>>,
}

/// Reads the maintenance mirror (absent or unreadable = `None`).
#[must_use]
pub fn read_maintenance(path: &std::path::Path) -> Option<Maintenance> {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
}

impl MaintenanceWatch {
    /// A mirror kept in the file at `path`, primed with its current content.
    #[must_use]
    pub fn new(path: PathBuf) -> Self {
        let last = read_maintenance(&path);
        Self {
            path: Some(path),
            held: Mutex::new(None),
            last: Mutex::new(last),
        }
    }

    /// A mirror kept in memory only: off until [`Self::set`], forgotten with the process.
    #[must_use]
    pub fn in_memory() -> Self {
        Self {
            path: None,
            held: Mutex::new(None),
            last: Mutex::new(None),
        }
    }

    /// The file the mirror is kept in, if any.
    #[must_use]
    pub fn path(&self) -> Option<&std::path::Path> {
        self.path.as_deref()
    }

    /// The current mirror.
    #[must_use]
    pub fn current(&self) -> Option<Maintenance> {
        match &self.path {
            Some(p) => read_maintenance(p),
            None => self.held.lock().ok().and_then(|m| m.clone()),
        }
    }

    /// Sets the mirror (`set_maintenance`): the file is replaced atomically (mode 0600).
    pub fn set(&self, m: &Maintenance) -> Result<(), String> {
        match &self.path {
            Some(p) => {
                let text = serde_json::to_vec(m).map_err(|e| e.to_string())?;
                crate::fs::write_private_atomic(p, &text).map_err(|e| e.to_string())
            }
            None => {
                let mut held = self
                    .held
                    .lock()
                    .map_err(|_| "maintenance mirror poisoned")?;
                *held = Some(m.clone());
                Ok(())
            }
        }
    }

    /// Answers the new mirror when it changed since the last check.
    pub fn check(&self) -> Option<Maintenance> {
        let now = self.current();
        let mut last = self.last.lock().ok()?;
        if *last == now {
            return None;
        }
        last.clone_from(&now);
        now
    }
}

/// Most bytes in one `output` event.
pub const TAIL_CHUNK: usize = 256 * 1024;
/// How often a tail whose log does not exist yet looks for it (and, as a safety net, how long a
/// tail waits without a change notice before reading again).
pub const TAIL_POLL: Duration = Duration::from_millis(100);
/// A read at least this large marks a streaming pane: a wake soon after it (within
/// [`TAIL_STREAM_WINDOW`]) waits [`TAIL_COALESCE`] so that output arrives in fewer, larger
/// events. Small reads (a keystroke's echo) never wait, nor does the first output after a pause,
/// so a keystroke typed after a large repaint is not held back.
pub const TAIL_STREAMING_READ: usize = 8 * 1024;
/// How recent a large read must be for a wake to count as part of a stream.
pub const TAIL_STREAM_WINDOW: Duration = Duration::from_millis(5);
/// How long a streaming tail lets output gather before reading again.
pub const TAIL_COALESCE: Duration = Duration::from_millis(4);
/// Most tails at once.
pub const MAX_TAILS: usize = 256;

/// An embedder's direct receiver of pane output, called on the thread that drives the tail
/// with the tail's key, the log offset of the first byte and the bytes. It answers whether it
/// took them; output it leaves goes out as an `output` event as usual. While it runs the tail
/// reads no more, so it may wait to hold a fast pane back (the node daemon waits for room on
/// its link's queue), and must not wait for anything else. The plane's local node hands its
/// viewers' output to the terminal pumps this way, and the daemon to its link, each without a
/// thread hand-off (and the plane without a base64 round trip).
pub type OutputHook = Arc<dyn Fn(&str, u64, &[u8]) -> bool + Send + Sync>;

/// An embedder that drives tails itself instead of giving each a thread: it receives every
/// [`TailJob`] started from then on and must run it until [`TailJob::step`] answers
/// [`TailStep::Done`] (see [`TailJob`] for the loop), or drop it. The plane drives its local
/// node's tails on the thread that serves its terminal sockets, so a pane's echo reaches its
/// viewers without a wake-up of another thread. Answering `Some(job)` hands the job back to
/// run on a thread of its own (no place to run it yet).
pub type TailDriver = Arc<dyn Fn(TailJob) -> Option<TailJob> + Send + Sync>;

struct Tail {
    stop: Arc<AtomicBool>,
    wake: Arc<OwnedFd>,
    /// Disconnected once the tail's job has ended (its thread returned, or its driver dropped it).
    done: std::sync::mpsc::Receiver<()>,
}

/// How long [`TailRegistry::stop`] waits for a stopped tail's job to end.
const TAIL_STOP_WAIT: Duration = Duration::from_secs(2);

/// Tails of pane logs, each reading one pane's log as it grows and sending what it reads as
/// `output` events into the executor's channel (or to the [`OutputHook`]).
///
/// A tail is driven by writes, not by a timer: it waits on an inotify watch of its log
/// (`IN_MODIFY`) and reads to the end of the file whenever the kernel reports a write, so an
/// `output` event leaves within microseconds of the pane log growing. Stopping a tail wakes it
/// through an eventfd, so `tail_stop` does not wait for a timeout. A log that does not exist
/// yet is looked for every [`TAIL_POLL`]. Each tail runs on a thread of its own unless a
/// [`TailDriver`] is set.
pub struct TailRegistry {
    tx: Mutex<SyncSender<Event>>,
    hook: Mutex<Option<OutputHook>>,
    driver: Mutex<Option<TailDriver>>,
    tails: Mutex<HashMap<String, Tail>>,
}

impl TailRegistry {
    /// A registry sending into `tx`.
    #[must_use]
    pub fn new(tx: SyncSender<Event>) -> Self {
        Self {
            tx: Mutex::new(tx),
            hook: Mutex::new(None),
            driver: Mutex::new(None),
            tails: Mutex::new(HashMap::new()),
        }
    }

    /// Sets the [`OutputHook`] of the tails started from now on.
    pub fn set_output_hook(&self, hook: OutputHook) {
        if let Ok(mut h) = self.hook.lock() {
            *h = Some(hook);
        }
    }

    /// Sets the [`TailDriver`] of the tails started from now on.
    pub fn set_driver(&self, driver: TailDriver) {
        if let Ok(mut d) = self.driver.lock() {
            *d = Some(driver);
        }
    }

    /// Starts a tail of `log` under `sub_id` from `from` (None = the current end). Answers the
    /// start offset. An existing tail with the same key is replaced.
    pub fn start(&self, sub_id: &str, log: PathBuf, from: Option<u64>) -> Result<u64, String> {
        if sub_id.is_empty() || sub_id.len() > 128 || sub_id.chars().any(char::is_control) {
            return Err("subId must be 1 to 128 printable characters".into());
        }
        self.stop(sub_id);
        let mut tails = self.tails.lock().map_err(|_| "tail table poisoned")?;
        if tails.len() >= MAX_TAILS {
            return Err("too many tails".into());
        }
        let size = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
        let start = from.unwrap_or(size);
        let stop = Arc::new(AtomicBool::new(false));
        let wake = Arc::new(
            eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)
                .map_err(|e| format!("tail: {e}"))?,
        );
        let (ended, done) = std::sync::mpsc::channel();
        let job = TailJob {
            key: sub_id.to_owned(),
            log,
            pos: start,
            stop: Arc::clone(&stop),
            wake: Arc::clone(&wake),
            tx: self.tx.lock().map_err(|_| "tail sender poisoned")?.clone(),
            hook: self.hook.lock().map_err(|_| "tail hook poisoned")?.clone(),
            buf: vec![0_u8; TAIL_CHUNK],
            file: None,
            watch: inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK)
                .ok(),
            watching: false,
            last_read: None,
            _ended: ended,
        };
        let driver = self
            .driver
            .lock()
            .map_err(|_| "tail driver poisoned")?
            .clone();
        let job = match driver {
            Some(d) => d(job),
            None => Some(job),
        };
        if let Some(job) = job {
            std::thread::Builder::new()
                .name(format!("tail-{sub_id}"))
                .spawn(move || job.run_blocking())
                .map_err(|e| e.to_string())?;
        }
        tails.insert(sub_id.to_owned(), Tail { stop, wake, done });
        Ok(start)
    }

    /// Stops a tail; answers whether one existed. Returns once the tail's job has ended (or
    /// after [`TAIL_STOP_WAIT`]), so no output under the key follows.
    pub fn stop(&self, sub_id: &str) -> bool {
        let tail = self.tails.lock().ok().and_then(|mut t| t.remove(sub_id));
        match tail {
            Some(t) => {
                t.stop.store(true, Ordering::Relaxed);
                let _ = rustix::io::write(&*t.wake, &1_u64.to_ne_bytes());
                let _ = t.done.recv_timeout(TAIL_STOP_WAIT);
                true
            }
            None => false,
        }
    }

    /// Stops every tail.
    pub fn stop_all(&self) {
        let keys: Vec<String> = self
            .tails
            .lock()
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default();
        for k in keys {
            self.stop(&k);
        }
    }
}

impl Drop for TailRegistry {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// Whether a tail woken `since` after a read of `last` bytes lets output gather first.
#[must_use]
pub fn should_gather(last: usize, since: Duration) -> bool {
    last >= TAIL_STREAMING_READ && since < TAIL_STREAM_WINDOW
}

/// One tail: a pane log read from an offset as it grows.
///
/// Whoever drives it runs this loop until it is done:
///
/// 1. [`TailJob::step`] reads once: [`TailStep::Read`] means call it again (letting others
///    run in between), [`TailStep::Done`] that the tail was stopped (drop the job).
/// 2. On [`TailStep::Wait`], wait until [`TailJob::watch_fd`] (when there is one) or
///    [`TailJob::wake_fd`] is readable, or [`TAIL_POLL`] passes; then call
///    [`TailJob::woken`], and if it answers `true`, wait [`TAIL_COALESCE`] more (a pane that
///    streams has its output gathered into larger reads) before stepping again.
pub struct TailJob {
    key: String,
    log: PathBuf,
    pos: u64,
    stop: Arc<AtomicBool>,
    wake: Arc<OwnedFd>,
    tx: SyncSender<Event>,
    hook: Option<OutputHook>,
    buf: Vec<u8>,
    file: Option<std::fs::File>,
    watch: Option<OwnedFd>,
    watching: bool,
    /// The size and time of the last read that returned data.
    last_read: Option<(usize, std::time::Instant)>,
    /// Dropped with the job: tells [`TailRegistry::stop`] it has ended.
    _ended: std::sync::mpsc::Sender<()>,
}

/// What a [`TailJob`] asks of its driver after one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailStep {
    /// Output was read and delivered; step again.
    Read,
    /// At the end of the log: wait (see [`TailJob`]).
    Wait,
    /// Stopped, or nobody receives its events any more.
    Done,
}

impl std::fmt::Debug for TailJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TailJob")
            .field("key", &self.key)
            .field("pos", &self.pos)
            .finish_non_exhaustive()
    }
}

impl TailJob {
    /// The tail's key (`subId`).
    #[must_use]
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Whether the tail was told to stop.
    #[must_use]
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The inotify descriptor that becomes readable when the log grows; `None` while the log
    /// is not watched yet (it does not exist), when only [`TAIL_POLL`] and the wake count.
    #[must_use]
    pub fn watch_fd(&self) -> Option<rustix::fd::BorrowedFd<'_>> {
        self.watch
            .as_ref()
            .filter(|_| self.watching)
            .map(rustix::fd::AsFd::as_fd)
    }

    /// The eventfd that becomes readable when the tail is stopped.
    #[must_use]
    pub fn wake_fd(&self) -> rustix::fd::BorrowedFd<'_> {
        use rustix::fd::AsFd as _;
        self.wake.as_fd()
    }

    /// Reads once from the log at the tail's offset and delivers what it read.
    pub fn step(&mut self) -> TailStep {
        if self.is_stopped() {
            return TailStep::Done;
        }
        if self.file.is_none() {
            self.file = std::fs::File::open(&self.log).ok();
        }
        if let (Some(w), false, Some(_)) = (&self.watch, self.watching, &self.file) {
            self.watching = inotify::add_watch(w, &self.log, inotify::WatchFlags::MODIFY).is_ok();
        }
        // A positional read: one system call, and the file's own offset is never used.
        let n = match self.file.as_ref() {
            Some(f) => std::os::unix::fs::FileExt::read_at(f, &mut self.buf, self.pos).unwrap_or(0),
            None => 0,
        };
        if n == 0 {
            return TailStep::Wait;
        }
        self.last_read = Some((n, std::time::Instant::now()));
        let bytes = &self.buf[..n];
        let from = self.pos;
        self.pos += n as u64;
        if self
            .hook
            .as_ref()
            .is_some_and(|h| h(&self.key, from, bytes))
        {
            return TailStep::Read;
        }
        let ev = Event::Output(Output {
            sub_id: self.key.clone(),
            from_byte: from,
            to_byte: self.pos,
            data_b64: termplane_proto::key::b64url_encode(bytes),
        });
        if self.tx.send(ev).is_err() {
            return TailStep::Done;
        }
        TailStep::Read
    }

    /// Whether the pane is streaming (the last read was large and recent): a driver that
    /// lets others run between reads waits [`TAIL_COALESCE`] before the next one then, so the
    /// output gathers into large reads instead of being read in the pieces that arrive while
    /// the last one is sent.
    #[must_use]
    pub fn streaming(&self) -> bool {
        self.last_read
            .is_some_and(|(n, at)| should_gather(n, at.elapsed()))
    }

    /// After a wait: drops the change notices (their content is not needed; one read takes
    /// up to 256 of them, and any left make the next wait end at once) and answers whether to
    /// let output gather for [`TAIL_COALESCE`] before reading.
    pub fn woken(&mut self) -> bool {
        if !self.drain_notes() {
            return false;
        }
        !self.is_stopped() && self.streaming()
    }

    /// Drops the change notices waiting on the watch (up to 256 of them; any left end the next
    /// wait at once). Answers whether the log is watched. A driver may read the log first and
    /// drain after, so the notice's read is not between a write and its delivery, provided it
    /// steps again after draining before it waits: a write just before the drain is read then.
    pub fn drain_notes(&mut self) -> bool {
        let mut notes = [0_u8; 4096];
        if let (Some(w), true) = (&self.watch, self.watching) {
            let _ = rustix::io::read(w, &mut notes);
            true
        } else {
            false
        }
    }

    /// Runs the tail on the calling thread until it is stopped.
    pub fn run_blocking(mut self) {
        let timeout = rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: i64::try_from(TAIL_POLL.as_nanos()).unwrap_or(100_000_000),
        };
        loop {
            match self.step() {
                TailStep::Read => continue,
                TailStep::Done => return,
                TailStep::Wait => {}
            }
            // At the end of the log: sleep until it grows, the tail is stopped, or the timer.
            let wake = self.wake_fd();
            match self.watch_fd() {
                Some(w) => {
                    let mut fds = [
                        PollFd::new(&w, PollFlags::IN),
                        PollFd::new(&wake, PollFlags::IN),
                    ];
                    let _ = poll(&mut fds, Some(&timeout));
                }
                None => {
                    let mut fds = [PollFd::new(&wake, PollFlags::IN)];
                    let _ = poll(&mut fds, Some(&timeout));
                }
            }
            if self.woken() {
                std::thread::sleep(TAIL_COALESCE);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn only_a_recent_large_read_makes_a_tail_wait() {
        let ms = Duration::from_millis;
        // A stream: a large read a moment ago.
        assert!(should_gather(TAIL_STREAMING_READ, ms(1)));
        assert!(should_gather(TAIL_CHUNK, Duration::ZERO));
        // A keystroke's echo, however soon.
        assert!(!should_gather(3, Duration::ZERO));
        assert!(!should_gather(TAIL_STREAMING_READ - 1, ms(1)));
        // The first output after a pause, even after a large repaint.
        assert!(!should_gather(TAIL_CHUNK, TAIL_STREAM_WINDOW));
        assert!(!should_gather(TAIL_CHUNK, ms(250)));
    }

    /// A driver that runs each job step by step on a thread of the test's, as an embedder's
    /// event loop would: the job waits on its descriptors, reads the log as it grows, and ends
    /// when stopped; `stop` returns only once the driven job has ended.
    #[test]
    fn a_driven_tail_reads_as_the_log_grows_and_ends_when_stopped() {
        let (dir, log) = empty_log("driven");
        let (tx, _rx) = std::sync::mpsc::sync_channel(16);
        let tails = TailRegistry::new(tx);
        let (seen_tx, seen) = std::sync::mpsc::channel::<(u64, Vec<u8>)>();
        let seen_tx = Mutex::new(seen_tx);
        tails.set_output_hook(Arc::new(move |_: &str, from: u64, bytes: &[u8]| {
            let _ = seen_tx.lock().unwrap().send((from, bytes.to_vec()));
            true
        }));
        let (ended_tx, ended) = std::sync::mpsc::channel::<()>();
        let ended_tx = Mutex::new(ended_tx);
        tails.set_driver(Arc::new(move |mut job: TailJob| {
            let ended = ended_tx.lock().unwrap().clone();
            std::thread::spawn(move || {
                let timeout = rustix::time::Timespec {
                    tv_sec: 0,
                    tv_nsec: 100_000_000,
                };
                loop {
                    match job.step() {
                        TailStep::Read => continue,
                        TailStep::Done => break,
                        TailStep::Wait => {}
                    }
                    let wake = job.wake_fd();
                    let mut fds = vec![PollFd::new(&wake, PollFlags::IN)];
                    let watch = job.watch_fd();
                    if let Some(w) = &watch {
                        fds.push(PollFd::new(w, PollFlags::IN));
                    }
                    let _ = poll(&mut fds, Some(&timeout));
                    drop(fds);
                    if job.woken() {
                        std::thread::sleep(TAIL_COALESCE);
                    }
                }
                // Seen ending only once the job itself is gone.
                drop(job);
                let _ = ended.send(());
            });
            None
        }));
        // The log does not exist yet: the job looks for it, then reads it as it grows.
        assert_eq!(tails.start("view-1", log.clone(), Some(0)).unwrap(), 0);
        append(&log, b"first");
        let wait = Duration::from_secs(10);
        assert_eq!(seen.recv_timeout(wait).unwrap(), (0, b"first".to_vec()));
        append(&log, b" second");
        assert_eq!(seen.recv_timeout(wait).unwrap(), (5, b" second".to_vec()));
        assert!(ended.try_recv().is_err(), "ended while running");
        assert!(tails.stop("view-1"));
        assert!(
            ended.recv_timeout(wait).is_ok(),
            "the driven job never ended"
        );
        append(&log, b" third");
        assert!(seen.recv_timeout(Duration::from_millis(300)).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A driver that declines (it has nowhere to run the job yet) hands it back: it runs on a
    /// thread of its own, as without a driver.
    #[test]
    fn a_tail_its_driver_hands_back_runs_on_a_thread() {
        let (dir, log) = empty_log("declined");
        append(&log, b"there");
        let (tx, rx) = std::sync::mpsc::sync_channel(16);
        let tails = TailRegistry::new(tx);
        tails.set_driver(Arc::new(Some));
        tails.start("plain", log.clone(), Some(0)).unwrap();
        match rx.recv_timeout(Duration::from_secs(10)).unwrap() {
            Event::Output(o) => assert_eq!((o.from_byte, o.to_byte), (0, 5)),
            other => panic!("expected output, got {other:?}"),
        }
        assert!(tails.stop("plain"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_pane_has_ended_once_its_exit_file_is_in_the_directory_whenever_that_was_made() {
        let top = termplane_test_support::TempDir::new("exits");
        let dir = top.path().join("exits");
        let t = ExitTracker::new(dir.clone());
        let a = SubshellId::parse("a0").unwrap();
        let b = SubshellId::parse("b0").unwrap();
        // No pane has made the directory yet: nothing has ended, and nothing is kept open.
        assert!(!t.has_ended(&a));
        assert!(t.dir_fd.get().is_none());
        std::fs::create_dir(&dir).unwrap();
        assert!(!t.has_ended(&a));
        assert!(
            t.dir_fd.get().is_some(),
            "the directory is opened once it exists"
        );
        std::fs::write(exit_file(&dir, &a), "3\n").unwrap();
        assert!(
            t.has_ended(&a),
            "the exit file is seen through the kept descriptor"
        );
        assert!(!t.has_ended(&b), "another pane's file is its own");
        // A relaunch removes the file: the pane runs again.
        std::fs::remove_file(exit_file(&dir, &a)).unwrap();
        assert!(!t.has_ended(&a));
    }

    /// A test directory `tp-<tag>-<pid>` and the path of a pane log in it that does not exist.
    fn empty_log(tag: &str) -> (std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("tp-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("pane.log");
        let _ = std::fs::remove_file(&log);
        (dir, log)
    }

    fn append(log: &std::path::Path, bytes: &[u8]) {
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap();
        f.write_all(bytes).unwrap();
    }

    #[test]
    fn an_output_hook_takes_what_it_accepts_and_the_rest_goes_out_as_events() {
        let (dir, log) = empty_log("hook");
        append(&log, b"before ");
        let (tx, rx) = std::sync::mpsc::sync_channel(16);
        let tails = TailRegistry::new(tx);
        let (seen_tx, seen) = std::sync::mpsc::channel::<(String, u64, Vec<u8>)>();
        let seen_tx = Mutex::new(seen_tx);
        tails.set_output_hook(Arc::new(move |key: &str, from: u64, bytes: &[u8]| {
            let _ = seen_tx
                .lock()
                .unwrap()
                .send((key.to_owned(), from, bytes.to_vec()));
            key.starts_with("view-")
        }));
        // From offset 0: the bytes already there, then what is appended, with their offsets.
        assert_eq!(tails.start("view-1", log.clone(), Some(0)).unwrap(), 0);
        let wait = Duration::from_secs(10);
        let (key, from, bytes) = seen.recv_timeout(wait).unwrap();
        assert_eq!(
            (key.as_str(), from, bytes.as_slice()),
            ("view-1", 0, &b"before "[..])
        );
        append(&log, "é\x1b[A".as_bytes());
        let (_, from, bytes) = seen.recv_timeout(wait).unwrap();
        assert_eq!((from, bytes.as_slice()), (7, "é\x1b[A".as_bytes()));
        // Taken by the hook: no event for it.
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
        assert!(tails.stop("view-1"));
        // A tail the hook leaves: the same bytes arrive as an `output` event as well.
        tails.start("other", log.clone(), Some(7)).unwrap();
        let (key, from, _) = seen.recv_timeout(wait).unwrap();
        assert_eq!((key.as_str(), from), ("other", 7));
        match rx.recv_timeout(wait).unwrap() {
            Event::Output(o) => {
                assert_eq!(
                    (o.sub_id.as_str(), o.from_byte, o.to_byte),
                    ("other", 7, 12)
                );
                assert_eq!(
                    termplane_proto::key::b64url_decode(&o.data_b64).unwrap(),
                    "é\x1b[A".as_bytes()
                );
            }
            other => panic!("expected output, got {other:?}"),
        }
        tails.stop_all();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
