//! Word of which panes are printing and which have gone quiet, for the plane's screen signal
//! (the `activity` command and event, capability `activity`).
//!
//! One thread per executor, started by the first `activity { on: true }`, watches the pane-log
//! directory with one inotify instance (`IN_MODIFY`: `pipe-pane` appends every byte a pane
//! prints to `<id>.log`), so a thousand panes cost one descriptor and no timer per pane. It
//! keeps, per pane, when the log last grew and whether the pane counts as printing:
//!
//! - a pane whose log grows while it was quiet (or was never seen) becomes *printing*: one
//!   event `{ active: true, command }` at once;
//! - a printing pane whose log has not grown for `quietMs` becomes *quiet*: one event
//!   `{ active: false, command, screen }`, the screen read then (`capture-pane -p -J`, plain
//!   text, the visible grid only);
//! - a pane that keeps printing without a pause of `quietMs` is *sampled*: every `quietMs`
//!   while it prints, one event `{ active: true, command, screen }`. A TUI that animates while
//!   it waits (Codex's spinner beside its question) is never quiet, yet its question is on
//!   screen: the sample lets the plane read it.
//!
//! So a pane sends at most two events per `quietMs` whatever it prints. When the events are
//! turned on, every pane log present counts as printing from that moment: each live pane is
//! reported quiet (with its screen) `quietMs` later unless it prints, so the plane learns every
//! pane's screen after a (re)connect. A pane whose screen cannot be read (it is gone) is
//! dropped without an event. The thread waits on the inotify descriptor, an eventfd that
//! `activity { on: false }` or a change of `quietMs` rings, and the earliest quiet deadline:
//! nothing runs while nothing prints, and panes printing without pause wake it at most every
//! [`GATHER`] (it reads the notices that gathered meanwhile at once), a gathering that a stop
//! or a new quiet ends at once.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::event::{EventfdFlags, PollFd, PollFlags, eventfd, poll};
use rustix::fd::OwnedFd;
use rustix::fs::inotify;

use termplane_proto::SubshellId;
use termplane_proto::event::{
    ACTIVITY_COMMAND_MAX_BYTES, ACTIVITY_SCREEN_MAX_BYTES, Activity, Event, within_bytes,
};

use super::tmux::{Tmux, pane_target};

/// Most panes tracked at once (a log directory holding more is read as far as this).
const MAX_PANES: usize = 4096;

/// How long the thread lets notices gather after reading some: a pane printing without pause
/// wakes it at most this often, whatever its rate (the kernel merges a file's notices while
/// they wait). It delays only word of printing, never the pane's output.
const GATHER: Duration = Duration::from_millis(50);

/// What the thread is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Setting {
    on: bool,
    quiet: Duration,
}

/// The running watcher's handle.
struct Running {
    setting: Arc<Mutex<Setting>>,
    wake: Arc<OwnedFd>,
}

/// The `activity` source of one executor.
pub struct ActivityWatch {
    logs: PathBuf,
    tmux: Tmux,
    tx: SyncSender<Event>,
    running: Mutex<Option<Running>>,
}

impl ActivityWatch {
    /// A watch of the pane logs in `logs`, reading screens through `tmux`, sending into `tx`.
    pub(crate) fn new(logs: PathBuf, tmux: Tmux, tx: SyncSender<Event>) -> Self {
        Self {
            logs,
            tmux,
            tx,
            running: Mutex::new(None),
        }
    }

    /// Turns the events on (every `quiet`) or off; answers the setting in force.
    pub fn set(&self, on: bool, quiet: Duration) -> Result<(bool, Duration), String> {
        let mut running = self.running.lock().map_err(|_| "activity watch poisoned")?;
        let wanted = Setting { on, quiet };
        if let Some(r) = running.as_ref() {
            if let Ok(mut s) = r.setting.lock() {
                *s = wanted;
            }
            let _ = rustix::io::write(&*r.wake, &1_u64.to_ne_bytes());
            if !on {
                *running = None;
            }
            return Ok((on, quiet));
        }
        if !on {
            return Ok((false, quiet));
        }
        let notices = inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK)
            .map_err(|e| format!("activity: inotify: {e}"))?;
        inotify::add_watch(
            &notices,
            &self.logs,
            inotify::WatchFlags::MODIFY | inotify::WatchFlags::DELETE,
        )
        .map_err(|e| format!("activity: watching {}: {e}", self.logs.display()))?;
        let wake = Arc::new(
            eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)
                .map_err(|e| format!("activity: {e}"))?,
        );
        let setting = Arc::new(Mutex::new(wanted));
        let mut job = Job {
            logs: self.logs.clone(),
            tmux: self.tmux.clone(),
            tx: self.tx.clone(),
            notices,
            wake: Arc::clone(&wake),
            setting: Arc::clone(&setting),
            panes: HashMap::new(),
        };
        std::thread::Builder::new()
            .name("activity".into())
            .spawn(move || job.run())
            .map_err(|e| format!("activity: {e}"))?;
        *running = Some(Running { setting, wake });
        Ok((on, quiet))
    }
}

impl Drop for ActivityWatch {
    fn drop(&mut self) {
        let _ = self.set(false, Duration::ZERO);
    }
}

/// One pane's word so far.
#[derive(Debug, Clone, Copy)]
struct Pane {
    /// When its log last grew.
    wrote: Instant,
    /// Whether it counts as printing (a quiet event is due `quiet` after `wrote`).
    printing: bool,
    /// When it started printing or was last sampled (a sample is due `quiet` after it).
    sampled: Instant,
}

impl Pane {
    fn printing_since(now: Instant) -> Self {
        Self {
            wrote: now,
            printing: true,
            sampled: now,
        }
    }
}

struct Job {
    logs: PathBuf,
    tmux: Tmux,
    tx: SyncSender<Event>,
    notices: OwnedFd,
    wake: Arc<OwnedFd>,
    setting: Arc<Mutex<Setting>>,
    panes: HashMap<SubshellId, Pane>,
}

impl Job {
    fn setting(&self) -> Setting {
        self.setting.lock().map_or(
            Setting {
                on: false,
                quiet: Duration::ZERO,
            },
            |s| *s,
        )
    }

    fn run(&mut self) {
        let now = Instant::now();
        if let Ok(dir) = std::fs::read_dir(&self.logs) {
            for entry in dir.flatten().take(MAX_PANES) {
                if let Some(id) = log_id(&entry.file_name().to_string_lossy()) {
                    self.panes.insert(id, Pane::printing_since(now));
                }
            }
        }
        let mut buf = vec![std::mem::MaybeUninit::<u8>::uninit(); 4096];
        loop {
            let setting = self.setting();
            if !setting.on {
                return;
            }
            let now = Instant::now();
            self.report_quiet(now, setting.quiet);
            self.sample_printing(now, setting.quiet);
            let next = self
                .panes
                .values()
                .filter(|p| p.printing)
                .map(|p| (p.wrote.min(p.sampled) + setting.quiet).saturating_duration_since(now))
                .min();
            let timeout = next.map(|d| rustix::time::Timespec {
                tv_sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                // Rounded up to the next millisecond so the wait does not end just short.
                tv_nsec: i64::from(d.subsec_nanos().div_ceil(1_000_000) * 1_000_000)
                    .min(999_999_999),
            });
            let mut fds = [
                PollFd::new(&self.notices, PollFlags::IN),
                PollFd::new(&*self.wake, PollFlags::IN),
            ];
            match poll(&mut fds, timeout.as_ref()) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(_) => return,
            }
            let mut ring = [0_u8; 8];
            let rung = rustix::io::read(&*self.wake, &mut ring).is_ok();
            if self.read_notices(&mut buf) && !rung {
                // Let notices gather, but wake at once when told to stop or change.
                let gather = rustix::time::Timespec {
                    tv_sec: 0,
                    tv_nsec: i64::try_from(GATHER.as_nanos()).unwrap_or(50_000_000),
                };
                let mut told = [PollFd::new(&*self.wake, PollFlags::IN)];
                let _ = poll(&mut told, Some(&gather));
            }
        }
    }

    /// Reads every pending notice: panes that printed, logs removed. Answers whether there
    /// were any.
    fn read_notices(&mut self, buf: &mut [std::mem::MaybeUninit<u8>]) -> bool {
        let mut reader = inotify::Reader::new(&self.notices, buf);
        let now = Instant::now();
        let mut woke: Vec<SubshellId> = Vec::new();
        let mut any = false;
        while let Ok(ev) = reader.next() {
            any = true;
            let Some(id) = ev
                .file_name()
                .and_then(|n| n.to_str().ok())
                .and_then(log_id)
            else {
                continue;
            };
            if ev.events().contains(inotify::ReadFlags::DELETE) {
                self.panes.remove(&id);
                continue;
            }
            let full = self.panes.len() >= MAX_PANES;
            match self.panes.get_mut(&id) {
                Some(p) => {
                    p.wrote = now;
                    if !p.printing {
                        *p = Pane::printing_since(now);
                        woke.push(id);
                    }
                }
                None if !full => {
                    self.panes.insert(id.clone(), Pane::printing_since(now));
                    woke.push(id);
                }
                None => {}
            }
        }
        for id in woke {
            let command = self.command(&id);
            self.send(Activity {
                subshell_id: id,
                active: true,
                at: crate::util::now_iso(),
                command,
                screen: None,
            });
        }
        any
    }

    /// Sends the quiet event of every printing pane whose quiet has lasted `quiet` by `now`.
    fn report_quiet(&mut self, now: Instant, quiet: Duration) {
        self.report_screens(now, quiet, false);
    }

    /// Sends a sample (`active: true` with the screen) of every pane that has printed without
    /// a pause of `quiet` for `quiet` since it started or was last sampled.
    fn sample_printing(&mut self, now: Instant, quiet: Duration) {
        self.report_screens(now, quiet, true);
    }

    /// Sends, with its screen, every printing pane that `quiet` has passed since it last wrote
    /// (`active` false: it went quiet) or since it started printing or was last sampled
    /// (`active` true: a sample).
    fn report_screens(&mut self, now: Instant, quiet: Duration, active: bool) {
        let since = |p: &Pane| if active { p.sampled } else { p.wrote };
        let due: Vec<SubshellId> = self
            .panes
            .iter()
            .filter(|(_, p)| p.printing && now.saturating_duration_since(since(p)) >= quiet)
            .map(|(id, _)| id.clone())
            .collect();
        for id in due {
            let Some(screen) = self.screen(&id) else {
                continue;
            };
            if let Some(p) = self.panes.get_mut(&id) {
                if active {
                    p.sampled = now;
                } else {
                    p.printing = false;
                }
            }
            let command = self.command(&id);
            self.send(Activity {
                subshell_id: id,
                active,
                at: crate::util::now_iso(),
                command,
                screen: Some(screen),
            });
        }
    }

    /// The pane's visible screen as sent; `None` (and the pane forgotten) when it cannot be
    /// read: it is gone, or its server is.
    fn screen(&mut self, id: &SubshellId) -> Option<String> {
        let captured = self
            .tmux
            .run(&["capture-pane", "-p", "-J", "-t", &pane_target(id)]);
        match captured {
            Ok(c) => Some(screen_text(&c)),
            Err(_) => {
                self.panes.remove(id);
                None
            }
        }
    }

    /// The pane's foreground program.
    fn command(&self, id: &SubshellId) -> Option<String> {
        let out = self
            .tmux
            .run(&[
                "display-message",
                "-p",
                "-t",
                &pane_target(id),
                "#{pane_current_command}",
            ])
            .ok()?;
        let name = out.trim();
        (!name.is_empty()).then(|| within_bytes(name, ACTIVITY_COMMAND_MAX_BYTES, false).to_owned())
    }

    fn send(&self, a: Activity) {
        // A full channel holds the thread back as a tail is held: the link is backed up.
        let _ = self.tx.send(Event::Activity(a));
    }
}

/// The subshell whose pane log is named `name` (`<id>.log`).
fn log_id(name: &str) -> Option<SubshellId> {
    SubshellId::parse(name.strip_suffix(".log")?).ok()
}

/// A captured screen as sent: trailing blank lines and spaces dropped, its end kept within
/// [`ACTIVITY_SCREEN_MAX_BYTES`].
#[must_use]
pub fn screen_text(captured: &str) -> String {
    let lines: Vec<&str> = captured.lines().map(str::trim_end).collect();
    let end = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |i| i + 1);
    let text = lines[..end].join("\n");
    within_bytes(&text, ACTIVITY_SCREEN_MAX_BYTES, true).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_screen_is_sent_without_its_blank_end_and_within_its_limit() {
        assert_eq!(screen_text("a  \n\nb\n   \n\n"), "a\n\nb");
        assert_eq!(screen_text("\n\n"), "");
        let long = "é".repeat(ACTIVITY_SCREEN_MAX_BYTES);
        let cut = screen_text(&long);
        assert!(cut.len() <= ACTIVITY_SCREEN_MAX_BYTES);
        assert!(cut.chars().all(|c| c == 'é'));
        assert_eq!(within_bytes("ééé", 3, false), "é");
    }

    #[test]
    fn only_pane_logs_name_panes() {
        assert!(log_id("abc-123.log").is_some());
        assert!(log_id("abc-123.exit").is_none());
        assert!(log_id(".log").is_none());
        assert!(log_id("a b.log").is_none());
    }
}
