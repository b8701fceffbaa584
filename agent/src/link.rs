//! The link driver: one [`termplane_machines::agent_link::AgentLink`] for the daemon's life,
//! driven by [`termplane_runtime_smol::agent::run`].
//!
//! * Dials the persisted `wsUrl` with `Authorization: Bearer <nodeKey>`; the control pin comes
//!   from the config file, and `PersistControlPin` / `DropControlPin` are written back into it
//!   (mode 0600, replaced atomically).
//! * Sends `ready` with the spec's fields, rebuilt before every dial so the runtime snapshot and
//!   the maintenance mirror are current.
//! * Verified commands go to the executor's [`Runner`]: **one long-lived worker thread** runs
//!   them in arrival order, one at a time, for the daemon's whole life (across reconnects), and
//!   `detect`, which only reads, runs beside it so that the commands after it do not wait for
//!   its version probes. A finished non-update command accepts a just-installed binary
//!   ([`crate::update::accept`]). Keystrokes (`input` of text alone) that find nothing queued
//!   are typed into tmux by the link's own task instead, and answered once tmux has said so.
//! * On each establishment: `subshells_report` (the census), then `inventory`.
//! * Heartbeat tick: `heartbeat`, then `maintenance` when the maintenance file changed.
//! * Every 2 s the exit tick runs; when panes ended, a changed maintenance mirror is sent first,
//!   then one `exit` event per pane.
//! * Pane-log tails run as tasks on the link's own thread
//!   ([`termplane_runtime_smol::tail::drive`]), their `output` events put straight onto the
//!   link's bounded queue: a pane's echo leaves without a thread hand-off. What does not fit is
//!   held (one read per tail at most) and sent, waiting for room, before that tail reads again.
//! * SIGINT / SIGTERM / SIGHUP close the socket with 1000 and end the driver
//!   ([`LinkEnd::Shutdown`]).
//! * Before a command runs, its replay record is appended to `<dataDir>/replay-guard`
//!   ([`crate::replay_log`]); the next process reads it back, so no restart runs a command
//!   twice.
//! * The link's state for people is kept in `<dataDir>/link-status` (shown by `status`), and
//!   a key the plane refuses — a 4401 close, an upgrade answered 401 — is said plainly in the
//!   log and there: the daemon keeps retrying (backoff up to 60 s) until the operator installs a
//!   new key.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_lite::{FutureExt as _, StreamExt as _};
use termplane_machines::agent_link::AgentConfig;
use termplane_machines::time::UnixSecs;
use termplane_proto::event::{
    Heartbeat, Inventory, MultiplexerInfo, Os, RuntimeSnapshot, SelfInvoke, SubshellsReport,
};
use termplane_proto::{Command, CommandResult, Event, Key32, NODE_PROTOCOL_VERSION, Ready};
use termplane_runtime_smol::agent::{
    self, AgentControl, AgentOptions, AgentOutcome, BoxFuture, Executor as LinkExecutor,
};

use crate::config::NodeConfig;
use termplane_exec::{Executor, Runner, TailJob};

use crate::host::NodeHost;
use crate::logging;
use crate::update;

/// Capabilities this build announces in `ready`.
pub const CAPABILITIES: &[&str] = &[
    "tmux",
    "tail",
    "capture",
    termplane_proto::command::SCREEN_REPLAY,
    termplane_proto::command::FORGET,
    termplane_proto::command::RECORDING,
    termplane_proto::command::RECORDING_TRIM,
    termplane_proto::command::SETTINGS_ENTRY,
    termplane_proto::command::SETTINGS_ENTRIES,
    termplane_proto::command::ACTIVITY,
    "write_file",
    "update",
    "maintenance",
];

/// Most node-produced events waiting for the link (backpressure for tails).
const EVENT_QUEUE: usize = 32;

/// Most tails waiting to be taken up by the link's thread; more run on threads of their own.
const TAIL_HANDOVER: usize = 64;

thread_local! {
    /// The tail task being run on the link's thread (its instance number), 0 elsewhere: a tail
    /// driven there must not wait for room on the link's queue (what makes room runs on that
    /// very thread).
    static CURRENT_TAIL: Cell<u64> = const { Cell::new(0) };
    /// Output a tail on the link's thread read while the link's queue was full, by tail
    /// instance (not by key: a tail started anew under a key while the old one's task is still
    /// ending must not have its output taken with the old one's); the tail's task sends it
    /// (waiting for room) before it reads again.
    static HELD: RefCell<HashMap<u64, VecDeque<AgentControl>>> = RefCell::new(HashMap::new());
}

/// Puts one `output` event on the link's queue from a tail: waiting for room on a tail thread,
/// held for the tail's task when on the link's thread. Answers whether the link takes events.
fn tail_output(to_link: &smol::channel::Sender<AgentControl>, ev: AgentControl) -> bool {
    let tail = CURRENT_TAIL.get();
    if tail == 0 {
        return to_link.send_blocking(ev).is_ok();
    }
    HELD.with_borrow_mut(|held| {
        // Behind output already held, in order.
        if let Some(q) = held.get_mut(&tail).filter(|q| !q.is_empty()) {
            q.push_back(ev);
            return true;
        }
        match to_link.try_send(ev) {
            Ok(()) => true,
            Err(smol::channel::TrySendError::Full(ev)) => {
                held.entry(tail).or_default().push_back(ev);
                true
            }
            Err(smol::channel::TrySendError::Closed(_)) => false,
        }
    })
}

/// Sends what tail instance `tail` had held, waiting for room; `false` once the link takes no
/// more.
async fn send_held(tail: u64, to_link: smol::channel::Sender<AgentControl>) -> bool {
    loop {
        let next = HELD.with_borrow_mut(|held| held.get_mut(&tail).and_then(VecDeque::pop_front));
        let Some(ev) = next else { return true };
        if to_link.send(ev).await.is_err() {
            return false;
        }
    }
}

/// Drops what a tail instance held when its task ends.
struct ForgetHeld(u64);

impl Drop for ForgetHeld {
    fn drop(&mut self) {
        let _ = HELD.try_with(|h| {
            if let Ok(mut h) = h.try_borrow_mut() {
                h.remove(&self.0);
            }
        });
    }
}

/// A tail's task on the link's thread: names its instance in [`CURRENT_TAIL`] while it runs,
/// so the output hook, called from inside the tail's read, knows whose output it holds.
struct AsTail<F> {
    tail: u64,
    task: std::pin::Pin<Box<F>>,
}

impl<F: std::future::Future> std::future::Future for AsTail<F> {
    type Output = F::Output;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        /// Puts back whichever tail was current, however the poll ends.
        struct Restore(u64);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT_TAIL.set(self.0);
            }
        }
        let _restore = Restore(CURRENT_TAIL.replace(self.tail));
        self.task.as_mut().poll(cx)
    }
}

/// Runs the tails handed over on `jobs` as tasks of `tails` (the link thread's executor).
async fn drive_tails(
    tails: &smol::LocalExecutor<'_>,
    jobs: smol::channel::Receiver<TailJob>,
    to_link: smol::channel::Sender<AgentControl>,
) {
    let mut started: u64 = 0;
    while let Ok(job) = jobs.recv().await {
        started += 1;
        let tail = started;
        let to_link = to_link.clone();
        let task = async move {
            // What the tail held goes with it, however its task ends (stopped, or dropped
            // with the link's executor).
            let _forget = ForgetHeld(tail);
            termplane_runtime_smol::tail::drive(job, |_| send_held(tail, to_link.clone())).await;
        };
        tails
            .spawn(AsTail {
                tail,
                task: Box::pin(task),
            })
            .detach();
    }
}

/// Why the link could not start.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// A key in the config file is unusable.
    #[error("config: {0}")]
    Config(String),
    /// The driver could not start.
    #[error("link driver: {0}")]
    Start(String),
}

/// How the link ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkEnd {
    /// SIGINT / SIGTERM: the socket was closed with 1000.
    Shutdown,
    /// The plane said exit: 4406 (`rollback: true`) or 4409.
    Exit {
        /// The plane refused this version (4406).
        rollback: bool,
        /// The plane's reason.
        reason: String,
    },
}

/// What [`run_link`] needs.
pub struct LinkArgs {
    /// The config file (control pin changes are written back here).
    pub config_path: PathBuf,
    /// The loaded config.
    pub config: NodeConfig,
    /// The daemon's own files (the executor's host).
    pub host: Arc<NodeHost>,
}

/// The file under the data directory that says how the link stands (read by `status`).
pub const LINK_STATUS_FILE: &str = "link-status";

/// What `status` prints for the link, if a daemon ever wrote it. The file names the daemon's
/// process (its pid and, on Linux, its start time, so a pid reused by another process after a
/// crash does not read as the daemon); when that process is gone (stopped, killed), the status
/// says so rather than repeat what the daemon last saw.
#[must_use]
pub fn read_link_status(data_dir: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(data_dir.join(LINK_STATUS_FILE))
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())?;
    let Some((daemon, said)) = parse_link_status(&text) else {
        return Some(text);
    };
    Some(if daemon.is_alive() {
        said.to_owned()
    } else {
        format!("the daemon is not running (it last said: {said})")
    })
}

/// The pid of the daemon that writes the link status under `data_dir`, when it is running.
#[must_use]
pub fn running_daemon(data_dir: &std::path::Path) -> Option<i32> {
    let text = std::fs::read_to_string(data_dir.join(LINK_STATUS_FILE)).ok()?;
    let (daemon, _) = parse_link_status(text.trim())?;
    daemon.is_alive().then_some(daemon.pid)
}

/// The process a link-status line names.
#[derive(Debug, PartialEq, Eq)]
struct Daemon {
    pid: i32,
    /// Its start time (clock ticks since boot), written since `status` checks it.
    start: Option<u64>,
}

impl Daemon {
    fn is_alive(&self) -> bool {
        // Only "no such process" means gone (another user's process answers EPERM).
        let signalled = rustix::process::Pid::from_raw(self.pid).is_some_and(|p| {
            !matches!(
                rustix::process::test_kill_process(p),
                Err(rustix::io::Errno::SRCH)
            )
        });
        signalled
            && match (self.start, termplane_exec::procs::start_ticks(self.pid)) {
                (Some(wrote), Some(now)) => wrote == now,
                _ => true,
            }
    }
}

/// `pid N[ start T]: what it said`.
fn parse_link_status(text: &str) -> Option<(Daemon, &str)> {
    let (who, said) = text.strip_prefix("pid ")?.split_once(": ")?;
    let (pid, start) = match who.split_once(" start ") {
        Some((p, t)) => (p, Some(t.parse().ok()?)),
        None => (who, None),
    };
    Some((
        Daemon {
            pid: pid.parse().ok()?,
            start,
        },
        said,
    ))
}

fn write_link_status(data_dir: &std::path::Path, text: &str) {
    let pid = std::process::id();
    let start = i32::try_from(pid)
        .ok()
        .and_then(termplane_exec::procs::start_ticks)
        .map(|t| format!(" start {t}"))
        .unwrap_or_default();
    let line = format!(
        "pid {pid}{start}: {text} (since {})\n",
        termplane_exec::util::now_iso()
    );
    if let Err(e) =
        termplane_exec::fs::write_private_atomic(&data_dir.join(LINK_STATUS_FILE), line.as_bytes())
    {
        logging::debug(&format!("cannot write the link status: {e}"));
    }
}

/// What the log and `status` say when the plane refuses this node's key.
pub const KEY_REFUSED: &str = "the plane refuses this node's key: it was rotated or revoked, or the node was deleted; install a new key with `termplane-node configure --key <key>` and restart the daemon";

fn unix_now() -> UnixSecs {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    UnixSecs(i64::try_from(secs).unwrap_or(i64::MAX))
}

/// The `ready` frame as of now.
#[must_use]
pub fn build_ready(exec: &Executor, host: &NodeHost, config_path: &std::path::Path) -> Ready {
    let cfg = exec.config();
    let manager = crate::service::Manager::current();
    let has_def = crate::service::definition_path(manager).exists();
    let supervised = crate::service::supervised();
    let panes = exec.census().is_ok_and(|c| !c.is_empty());
    Ready {
        agent_version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        protocol_version: Some(u64::from(NODE_PROTOCOL_VERSION)),
        os: match std::env::consts::OS {
            "linux" => Os::Linux,
            "macos" => Os::Darwin,
            _ => Os::Unknown,
        },
        arch: std::env::consts::ARCH.to_owned(),
        hostname: crate::enroll::hostname(),
        data_dir: cfg.data_dir.to_string_lossy().into_owned(),
        capabilities: CAPABILITIES.iter().map(|c| (*c).to_owned()).collect(),
        self_invoke: Some(SelfInvoke {
            command: std::env::current_exe()
                .unwrap_or_else(|_| host.binary_path.clone())
                .to_string_lossy()
                .into_owned(),
            args: Vec::new(),
        }),
        home_dir: cfg.home_dir.to_string_lossy().into_owned(),
        runtime: Some(RuntimeSnapshot {
            service_manager: if has_def { manager.name() } else { "none" }.to_owned(),
            supervised,
            pid: std::process::id(),
            autostart: has_def,
            linger: None,
            panes_at_risk: panes,
            config_path: config_path.to_string_lossy().into_owned(),
            log_path: host.log_path.to_string_lossy().into_owned(),
            binary_path: host.binary_path.to_string_lossy().into_owned(),
            debug_logging: logging::debug_enabled(),
            debug_logging_forced: logging::debug_forced(),
            multiplexer: Some(MultiplexerInfo {
                name: "tmux".into(),
                version: exec.tmux().version().ok(),
                socket: Some(exec.tmux().socket().to_string_lossy().into_owned()),
            }),
        }),
        maintenance: exec.maintenance_watch().current(),
    }
}

/// The runtime's view of the executor: its runner plus the node's facts.
struct Node {
    exec: Arc<Executor>,
    /// The keystrokes' waits for tmux's answers, sharing one registration of its output.
    keys: Arc<termplane_runtime_smol::keys::KeysWaits>,
    host: Arc<NodeHost>,
    config_path: PathBuf,
    runner: Runner,
    replay: Option<crate::replay_log::ReplayLog>,
}

/// After a verified command other than `update` ran: a just-installed binary is accepted.
fn accept_pending_update(binary: &Path) {
    if update::pending(binary) {
        match update::accept(binary) {
            Ok(()) => logging::info("update accepted after a verified command"),
            Err(e) => logging::warn(&format!("cannot accept the update: {e}")),
        }
    }
}

impl Node {
    /// Keystrokes typed straight into tmux when nothing is queued before them (see
    /// `Runner::type_now`): no wake-up of the command thread on the echo's way, and the answer
    /// leaves once tmux has said they were typed — woken by tmux's own answer on the link's
    /// reactor, with no timer (`termplane_runtime_smol::keys`). `None` when they must queue.
    fn type_now(&self, jti: &str, command: &Command) -> Option<BoxFuture<CommandResult>> {
        let Command::Input(input) = command else {
            return None;
        };
        if !input.keys.is_empty() {
            return None;
        }
        let ticket = self.runner.type_now(&input.subshell_id, &input.data)?;
        let exec = Arc::clone(&self.exec);
        let keys = Arc::clone(&self.keys);
        let binary = self.host.binary_path.clone();
        let answer = serde_json::json!({ "bytes": input.data.len(), "keys": 0 });
        let jti = jti.to_owned();
        Some(Box::pin(async move {
            if let Err(e) = keys.keys_typed(|| exec.keys_settle(ticket)).await {
                return CommandResult::refusal(jti, &e);
            }
            accept_pending_update(&binary);
            CommandResult::ok(jti, Some(answer))
        }))
    }
}

impl LinkExecutor for Node {
    fn execute(&self, jti: String, command: Command) -> BoxFuture<CommandResult> {
        if let Some(typed) = self.type_now(&jti, &command) {
            return typed;
        }
        let (tx, rx) = smol::channel::bounded(1);
        let accepts = (!command.is_update()).then(|| self.host.binary_path.clone());
        // The reply runs on the worker's thread right after the command, before its answer
        // leaves; when the runner has stopped it is dropped and the answer says so.
        let _ = self.runner.submit(jti.clone(), command, move |result| {
            if let Some(binary) = accepts {
                accept_pending_update(&binary);
            }
            let _ = tx.send_blocking(result);
        });
        Box::pin(async move {
            rx.recv()
                .await
                .unwrap_or_else(|_| CommandResult::err(jti, termplane_exec::runner::STOPPED))
        })
    }

    fn on_established(&self, at: String) -> Vec<Event> {
        logging::info("link established");
        let mut out = Vec::new();
        match self.exec.census() {
            Ok(subshells) => out.push(Event::SubshellsReport(SubshellsReport { subshells })),
            Err(e) => logging::warn(&format!("census failed; no subshells_report: {e}")),
        }
        out.push(self.inventory(at));
        out
    }

    fn heartbeat(&self, at: String) -> Vec<Event> {
        let mut out = vec![Event::Heartbeat(Heartbeat { at })];
        if let Some(m) = self.exec.maintenance_watch().check() {
            out.push(Event::Maintenance(m));
        }
        out
    }

    fn ready(&self) -> Option<Ready> {
        Some(build_ready(&self.exec, &self.host, &self.config_path))
    }

    fn inventory(&self, at: String) -> Event {
        Event::Inventory(Inventory {
            harnesses: vec![],
            at,
        })
    }

    fn record_admission(
        &self,
        record: &termplane_machines::replay::ReplayRecord,
    ) -> Result<(), String> {
        match &self.replay {
            Some(log) => log.append(record, unix_now().0),
            // The log could not be opened at start: commands issued before this process
            // started are refused outright (see `run_link`), and those after it need no record
            // from an earlier process.
            None => Ok(()),
        }
    }

    fn persist_control_pin(&self, pin: Option<Key32>) {
        let r = NodeConfig::load(&self.config_path).and_then(|mut c| {
            c.control_encrypt_public_key = pin.map(|k| k.to_b64());
            c.save(&self.config_path)
        });
        match (r, pin) {
            (Ok(()), Some(_)) => logging::info("control key pinned"),
            (Ok(()), None) => logging::info("control pin dropped; the next connect registers"),
            (Err(e), _) => logging::warn(&format!("cannot write the control pin: {e}")),
        }
    }
}

fn spawn_named(name: &str, f: impl FnOnce() + Send + 'static) -> Result<(), LinkError> {
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(f)
        .map(|_| ())
        .map_err(|e| LinkError::Start(e.to_string()))
}

/// Runs the node link until a signal or the plane ends it.
pub fn run_link(
    args: LinkArgs,
    exec: Arc<Executor>,
    events: Receiver<Event>,
) -> Result<LinkEnd, LinkError> {
    let c = &args.config;
    let node_static = Key32::from_b64(&c.link_public)
        .map_err(|e| LinkError::Config(format!("linkPublic: {e}")))?;
    let control_pin = match &c.control_encrypt_public_key {
        Some(k) => Some(
            Key32::from_b64(k)
                .map_err(|e| LinkError::Config(format!("controlEncryptPublicKey: {e}")))?,
        ),
        None => None,
    };
    let started = unix_now();
    let data_dir = exec.config().data_dir.clone();
    let (replay, carried_over, process_start) =
        match crate::replay_log::ReplayLog::open(&data_dir, started.0) {
            Ok((log, records)) => (Some(log), records, started),
            Err(e) => {
                logging::warn(&format!(
                    "replay guard unreadable ({e}): refusing every command issued before this start"
                ));
                // `process_start` minus the 5 s skew is the watermark: shifting it by the skew
                // refuses every iat before now.
                let skew = i64::try_from(termplane_proto::limits::CLOCK_SKEW.as_secs())
                    .unwrap_or(i64::MAX);
                (None, Vec::new(), UnixSecs(started.0.saturating_add(skew)))
            }
        };
    let cfg = AgentConfig {
        node_id: c.node_id.clone(),
        node_key: c.node_key.clone(),
        node_static,
        control_pin,
        signing_key: c.signing_public_jwk.clone(),
        process_start,
        carried_over,
        ready: build_ready(&exec, &args.host, &args.config_path),
    };
    let (control_tx, control_rx) = smol::channel::bounded::<AgentControl>(EVENT_QUEUE);

    let runner = Runner::start(Arc::clone(&exec)).map_err(|e| LinkError::Start(e.to_string()))?;

    // A pane's output goes from its tail straight onto the link's queue (the tail held back
    // while the link is backed up), without a thread hand-off: the tails run on the link's
    // thread (a thread of their own only when handed over faster than it takes them up).
    let to_link = control_tx.clone();
    exec.set_output_hook(Arc::new(move |sub_id: &str, from: u64, bytes: &[u8]| {
        let ev = Event::Output(termplane_proto::event::Output {
            sub_id: sub_id.to_owned(),
            from_byte: from,
            to_byte: from + bytes.len() as u64,
            data_b64: termplane_proto::key::b64url_encode(bytes),
        });
        tail_output(&to_link, AgentControl::Send(Box::new(ev)))
    }));
    let (jobs_tx, jobs_rx) = smol::channel::bounded::<TailJob>(TAIL_HANDOVER);
    exec.set_tail_driver(Arc::new(move |job: TailJob| {
        jobs_tx.try_send(job).err().map(|e| e.into_inner())
    }));
    let tail_link = control_tx.clone();
    let forward = control_tx.clone();
    spawn_named("events", move || {
        while let Ok(e) = events.recv() {
            if forward
                .send_blocking(AgentControl::Send(Box::new(e)))
                .is_err()
            {
                return;
            }
        }
    })?;

    let ticker = Arc::clone(&exec);
    let exits = control_tx.clone();
    spawn_named("exit-tick", move || {
        // Woken by tmux's word of a pane's death, or by the tick (the backstop).
        let mut seen = ticker.deaths_heard();
        loop {
            seen = ticker.wait_for_deaths(
                seen,
                std::time::Instant::now() + termplane_proto::limits::EXIT_DETECTION_TICK,
            );
            let ended = ticker.exit_tick();
            if ended.is_empty() {
                continue;
            }
            if let Some(m) = ticker.maintenance_watch().check() {
                let _ = exits.send_blocking(AgentControl::Send(Box::new(Event::Maintenance(m))));
            }
            for e in ended {
                logging::info(&format!(
                    "pane {} exited ({:?})",
                    e.subshell_id, e.exit_code
                ));
                if exits
                    .send_blocking(AgentControl::Send(Box::new(Event::Exit(e))))
                    .is_err()
                {
                    return;
                }
            }
        }
    })?;

    let node = Node {
        exec,
        keys: Arc::default(),
        host: Arc::clone(&args.host),
        config_path: args.config_path.clone(),
        runner,
        replay,
    };
    let mut opts = AgentOptions::new(c.ws_url.clone());
    if c.ws_url.starts_with("wss://") {
        // The trust store is read once, up front: a bad TERMPLANE_CA_FILE stops the start with
        // its cause instead of failing every dial.
        let tls = termplane_runtime_smol::tls::client_config_from_env()
            .map_err(|e| LinkError::Config(e.to_string()))?;
        opts.tls = Some(tls);
    }
    let (reports_tx, reports_rx) = smol::channel::bounded(64);
    opts.reports = Some(reports_tx);
    logging::info(&format!("dialing {}", c.ws_url));
    let tails = smol::LocalExecutor::new();
    let outcome = smol::block_on(tails.run(async {
        // SIGHUP too: a closed terminal or a supervisor's hangup stops the daemon cleanly
        // rather than by the default action (no close frame, no clean-up).
        let signals = async_signal::Signals::new([
            async_signal::Signal::Term,
            async_signal::Signal::Int,
            async_signal::Signal::Hup,
        ]);
        match signals {
            Ok(mut signals) => {
                let stop = control_tx.clone();
                smol::spawn(async move {
                    if let Some(sig) = signals.next().await {
                        let name = match sig {
                            Ok(async_signal::Signal::Term) => "SIGTERM",
                            Ok(async_signal::Signal::Int) => "SIGINT",
                            Ok(async_signal::Signal::Hup) => "SIGHUP",
                            _ => "a signal",
                        };
                        logging::info(&format!("{name} received; closing the link"));
                        let _ = stop.send(AgentControl::Shutdown).await;
                    }
                })
                .detach();
            }
            Err(e) => logging::warn(&format!("cannot install signal handlers: {e}")),
        }
        smol::spawn(log_link_reports(reports_rx, data_dir)).detach();
        let clock = termplane_runtime_smol::SystemClock;
        agent::run(cfg, opts, &node, control_rx, &clock)
            .or(async {
                drive_tails(&tails, jobs_rx, tail_link).await;
                std::future::pending().await
            })
            .await
    }))
    .map_err(|e| LinkError::Start(e.to_string()))?;
    Ok(match outcome {
        AgentOutcome::Shutdown => LinkEnd::Shutdown,
        AgentOutcome::Exit { rollback, reason } => LinkEnd::Exit { rollback, reason },
    })
}

/// Logs what happens to the link and keeps `<dataDir>/link-status` current: why dials fail
/// (each cause once until it changes or a link is established, so a plane that stays
/// unreachable does not flood the log), and in plain words when the plane refuses this node's
/// key.
async fn log_link_reports(reports: smol::channel::Receiver<agent::AgentReport>, data_dir: PathBuf) {
    use agent::AgentReport as R;
    let mut last: Option<String> = None;
    let mut key_refused = false;
    let mut status: Option<String> = None;
    let mut set_status = |text: String| {
        if status.as_deref() != Some(text.as_str()) {
            write_link_status(&data_dir, &text);
            status = Some(text);
        }
    };
    while let Ok(r) = reports.recv().await {
        match r {
            R::Closed {
                code: Some(4401),
                reason,
            } => {
                logging::warn(&format!(
                    "the plane closed the link with 4401 ({reason}): this node's key was rotated or revoked, or the node was deleted"
                ));
                set_status(
                    "closed by the plane with 4401: the node key was rotated or revoked, or the node deleted"
                        .to_owned(),
                );
            }
            R::Closed {
                code: Some(code),
                reason,
            } => {
                logging::info(&format!("the plane closed the link ({code}): {reason}"));
            }
            R::DialFailed {
                status: Some(401 | 403),
            } => {
                set_status(format!("not connected: {KEY_REFUSED}"));
                if !key_refused {
                    logging::warn(KEY_REFUSED);
                    key_refused = true;
                }
            }
            R::DialError(reason) if last.as_deref() != Some(reason.as_str()) => {
                logging::warn(&format!("cannot reach the plane: {reason}"));
                if !key_refused {
                    set_status(format!("not connected: {reason}"));
                }
                last = Some(reason);
            }
            R::Established => {
                last = None;
                key_refused = false;
                set_status("connected".to_owned());
            }
            R::Note(n) if n.contains("from the plane for") => {
                logging::warn(&format!("{n}: redialing"));
            }
            _ => {}
        }
    }
}

/// How long a just-installed binary stays on probation without a verified command.
pub const UPDATE_QUIET_ACCEPT: Duration = Duration::from_secs(15 * 60);

#[cfg(test)]
mod status_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_link_status_of_a_daemon_that_is_gone_says_so() {
        let dir = std::env::temp_dir().join(format!("tp-link-status-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Written by this (running) process: read as written.
        write_link_status(&dir, "connected");
        let now = read_link_status(&dir).unwrap();
        assert!(now.starts_with("connected (since "), "{now}");
        // Written by a process that has ended.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let line = std::fs::read_to_string(dir.join(LINK_STATUS_FILE)).unwrap();
        let rest = line.split_once(": ").unwrap().1;
        std::fs::write(dir.join(LINK_STATUS_FILE), format!("pid {gone}: {rest}")).unwrap();
        let then = read_link_status(&dir).unwrap();
        assert!(
            then.starts_with("the daemon is not running (it last said: connected"),
            "{then}"
        );
        // A file of an older daemon (no pid) is shown as it is.
        std::fs::write(dir.join(LINK_STATUS_FILE), "connected (since x)\n").unwrap();
        assert_eq!(read_link_status(&dir).unwrap(), "connected (since x)");
        assert_eq!(running_daemon(&dir), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A daemon that crashed and whose pid another process took since: the pid is alive, its
    /// start time is not the one written, so the daemon reads as not running.
    #[test]
    fn a_pid_reused_by_another_process_is_not_the_daemon() {
        let dir = std::env::temp_dir().join(format!("tp-link-reuse-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_link_status(&dir, "connected");
        let me = std::process::id();
        assert_eq!(running_daemon(&dir), i32::try_from(me).ok());
        let line = std::fs::read_to_string(dir.join(LINK_STATUS_FILE)).unwrap();
        let (who, rest) = line.split_once(": ").unwrap();
        let start: u64 = who.split_once(" start ").unwrap().1.parse().unwrap();
        // This process, but as if it had started at another time.
        let other = format!("pid {me} start {}: {rest}", start + 1);
        std::fs::write(dir.join(LINK_STATUS_FILE), other).unwrap();
        let said = read_link_status(&dir).unwrap();
        assert!(said.starts_with("the daemon is not running"), "{said}");
        assert_eq!(running_daemon(&dir), None);
        // The line an older daemon wrote (no start time) still reads by its pid alone.
        std::fs::write(dir.join(LINK_STATUS_FILE), format!("pid {me}: {rest}")).unwrap();
        assert!(read_link_status(&dir).unwrap().starts_with("connected"));
        // Garbage after `start` is shown as it is, not read as a process.
        std::fs::write(
            dir.join(LINK_STATUS_FILE),
            format!("pid {me} start x: {rest}"),
        )
        .unwrap();
        assert!(read_link_status(&dir).unwrap().starts_with("pid "));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[cfg(test)]
mod tail_output_tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn output(n: u64) -> AgentControl {
        AgentControl::Send(Box::new(Event::Output(termplane_proto::event::Output {
            sub_id: "v".into(),
            from_byte: n,
            to_byte: n + 1,
            data_b64: String::new(),
        })))
    }

    fn from_byte(c: AgentControl) -> u64 {
        match c {
            AgentControl::Send(e) => match *e {
                Event::Output(o) => o.from_byte,
                other => panic!("{other:?}"),
            },
            _ => panic!("not an event"),
        }
    }

    /// On the link's thread a full queue never blocks a tail: its output is held, in order
    /// behind what was held before, and sent before the tail reads again; nothing is lost.
    #[test]
    fn output_the_link_has_no_room_for_is_held_in_order_and_sent_once_there_is() {
        std::thread::spawn(|| {
            let (tx, rx) = smol::channel::bounded(2);
            CURRENT_TAIL.set(1);
            for n in 0..5 {
                assert!(tail_output(&tx, output(n)));
            }
            // Two went onto the queue, three are held for tail 1; another tail's output is
            // not held behind them.
            assert_eq!(rx.len(), 2);
            assert_eq!(HELD.with_borrow(|h| h[&1].len()), 3);
            assert_eq!(from_byte(rx.try_recv().unwrap()), 0);
            CURRENT_TAIL.set(2);
            assert!(tail_output(&tx, output(100)));
            assert_eq!(rx.len(), 2);
            let reader = std::thread::spawn(move || {
                let mut got = Vec::new();
                while let Ok(c) = rx.recv_blocking() {
                    got.push(from_byte(c));
                }
                got
            });
            assert!(smol::block_on(send_held(1, tx.clone())));
            assert!(HELD.with_borrow(|h| h[&1].is_empty()));
            drop(tx);
            assert_eq!(reader.join().unwrap(), [1, 100, 2, 3, 4]);
            // A tail's task that ends takes its place with it.
            drop(ForgetHeld(1));
            assert!(HELD.with_borrow(|h| !h.contains_key(&1)));
            // A link that takes nothing more says so.
            let (tx, rx) = smol::channel::bounded(1);
            drop(rx);
            assert!(!tail_output(&tx, output(0)));
        })
        .join()
        .unwrap();
    }

    /// A pane's tail started anew (another viewer came) while the old tail's task is still
    /// ending behind a full link: the old task's end drops only what it held itself.
    #[test]
    fn a_tail_started_anew_keeps_what_it_held_when_the_old_one_ends() {
        std::thread::spawn(|| {
            let (tx, rx) = smol::channel::bounded(1);
            assert!(tx.try_send(output(0)).is_ok());
            CURRENT_TAIL.set(1);
            assert!(tail_output(&tx, output(10)));
            CURRENT_TAIL.set(2);
            assert!(tail_output(&tx, output(20)));
            CURRENT_TAIL.set(0);
            drop(ForgetHeld(1));
            assert_eq!(HELD.with_borrow(|h| h.get(&2).map(VecDeque::len)), Some(1));
            assert_eq!(from_byte(rx.try_recv().unwrap()), 0);
            assert!(smol::block_on(send_held(2, tx.clone())));
            assert_eq!(from_byte(rx.try_recv().unwrap()), 20);
            assert!(rx.try_recv().is_err());
        })
        .join()
        .unwrap();
    }

    /// A tail's task names its instance while it runs, and only then.
    #[test]
    fn a_tail_task_is_current_only_while_it_runs() {
        std::thread::spawn(|| {
            let ex = smol::LocalExecutor::new();
            let seen = smol::block_on(ex.run(async {
                let first = ex.spawn(AsTail {
                    tail: 7,
                    task: Box::pin(async {
                        let before = CURRENT_TAIL.get();
                        smol::future::yield_now().await;
                        (before, CURRENT_TAIL.get())
                    }),
                });
                let second = ex.spawn(AsTail {
                    tail: 8,
                    task: Box::pin(async { CURRENT_TAIL.get() }),
                });
                (first.await, second.await, CURRENT_TAIL.get())
            }));
            assert_eq!(seen, ((7, 7), 8, 0));
        })
        .join()
        .unwrap();
    }
}
