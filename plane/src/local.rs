//! The local node: panes on the plane's own host, run in-process.
//!
//! The local node "never runs a node daemon". The plane embeds the same executor the daemon
//! uses ([`termplane_exec`]), driven the same way: one [`Runner`] keeps commands in arrival
//! order (a `detect` beside them), an exit check woken by tmux's word of a pane's death (and
//! every [`termplane_proto::limits::EXIT_DETECTION_TICK`] besides) reports panes that ended, tails stream
//! `output` events, and a census at start heals the rows before anything can read them. The
//! five commands about a daemon process (`update`, `service`, `set_server_url`,
//! `set_log_level`, `agent_log_read`) are refused by [`Daemonless`] with a message that says
//! why. Events go where a remote node's go: the node event log (`GET /api/nodes/:id/events`)
//! and the service's event application ([`NodeReports::apply_node_event`](crate::service::NodeReports::apply_node_event)).
//!
//! Its data directory is `<plane data dir>/local-node` (0700): the private tmux socket, pane
//! logs, exit files, the MCP registration files of its panes and the path allowlist. Panes
//! outlive the plane process, as they outlive a node daemon: the next start's census finds
//! them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use termplane_exec::host::{Daemonless, Level, Log};
use termplane_exec::{ExecConfig, Executor, Runner, TailJob};
use termplane_proto::event::SubshellsReport;
use termplane_proto::{Command, CommandResult, Event};

use crate::service::{LocalNode, Services};

/// The connection number the local node's census is recorded under (remote sockets count
/// from 1).
pub const LOCAL_CONN: u64 = 0;

/// Most local events waiting to be applied; more are dropped with a warning (as a remote
/// socket's).
const EVENT_QUEUE: usize = 4096;

/// The executor's log lines, into the plane's log.
struct Tracing;

impl Log for Tracing {
    fn log(&self, level: Level, message: &str) {
        match level {
            Level::Debug => tracing::debug!(target: "termplane::local", "{message}"),
            Level::Info => tracing::info!(target: "termplane::local", "{message}"),
            Level::Warn => tracing::warn!(target: "termplane::local", "{message}"),
        }
    }
}

/// The local node as the dispatcher sees it.
struct Local {
    runner: Runner,
    exec: Arc<Executor>,
    /// The keystrokes' waits for tmux's answers, sharing one registration of its output.
    keys: Arc<termplane_runtime_smol::keys::KeysWaits>,
}

impl LocalNode for Local {
    fn submit(&self, jti: String, cmd: Command) -> smol::channel::Receiver<CommandResult> {
        let (tx, rx) = smol::channel::bounded(1);
        // A stopped runner drops `tx`: the dispatcher then answers that the executor stopped.
        let _ = self.runner.submit(jti, cmd, move |r| {
            let _ = tx.try_send(r);
        });
        rx
    }

    fn type_now(&self, id: &termplane_proto::SubshellId, data: &str) -> Option<u64> {
        self.runner.type_now(id, data)
    }

    fn keys_typed(&self, ticket: u64) -> crate::service::KeysTyped {
        let exec = Arc::clone(&self.exec);
        let keys = Arc::clone(&self.keys);
        Box::pin(async move { keys.keys_typed(|| exec.keys_settle(ticket)).await })
    }

    fn stopping(&self) {
        self.exec.abandon_uploads();
    }
}

/// The local node's data directory under the plane's.
#[must_use]
pub fn data_dir(plane_data_dir: &Path) -> PathBuf {
    plane_data_dir.join("local-node")
}

/// Marks every descriptor the plane inherited close-on-exec (see
/// `termplane_exec::procs::keep_inherited_descriptors_to_ourselves`): the local node's tmux
/// server outlives the plane, and must not keep its launcher's descriptors open.
pub fn keep_inherited_descriptors_to_ourselves() {
    termplane_exec::procs::keep_inherited_descriptors_to_ourselves();
}

/// `termplane record-pane LOG TIMING`: a pane's recorder on the plane's own host, run by tmux's
/// `pipe-pane` for each pane (see `termplane_exec::recording`).
#[must_use]
pub fn record_pane(args: &[String]) -> std::process::ExitCode {
    termplane_exec::recording::main("termplane", args)
}

/// Starts the local node and attaches it to `svc`: the executor and its tmux server, the census
/// applied, the runner, the exit checks and the event forwarding. An error (no tmux, say)
/// leaves the plane without a local node: launches there are refused with a reason.
///
/// `recorder` is the binary whose `record-pane` records each pane's output (this process's, when
/// it is the `termplane` binary; see `termplane_exec::recording`).
pub async fn start(
    svc: &Arc<Services>,
    plane_data_dir: &Path,
    recorder: Option<PathBuf>,
) -> Result<(), String> {
    let node_id = svc
        .local_node_id()
        .ok_or("the local node's row is missing")?
        .to_owned();
    let cfg = ExecConfig {
        maintenance_file: None,
        recorder,
        log_limits: termplane_exec::recording::Limits::from_env()?,
        ..ExecConfig::new(data_dir(plane_data_dir))
    };
    let dirs = (
        cfg.data_dir.to_string_lossy().into_owned(),
        cfg.home_dir.to_string_lossy().into_owned(),
    );
    let (exec, output) = termplane_exec::shared(cfg, Arc::new(Daemonless(Tracing)));
    let setup = Arc::clone(&exec);
    let census = smol::unblock(move || {
        setup.start()?;
        setup.census()
    })
    .await?;
    let alive = census.len();
    svc.node_reports()
        .apply_node_event(
            &node_id,
            LOCAL_CONN,
            &Event::SubshellsReport(SubshellsReport { subshells: census }),
        )
        .await;
    let runner = Runner::start(Arc::clone(&exec)).map_err(|e| format!("runner: {e}"))?;

    let (events, to_apply) = smol::channel::bounded::<Event>(EVENT_QUEUE);
    smol::spawn(apply_events(Arc::clone(svc), node_id.clone(), to_apply)).detach();
    // Everything the executor reports but terminal output is applied in order.
    let forward = events.clone();
    std::thread::Builder::new()
        .name("local-events".into())
        .spawn(move || {
            while let Ok(e) = output.recv() {
                if forward.send_blocking(e).is_err() {
                    return;
                }
            }
        })
        .map_err(|e| format!("event thread: {e}"))?;
    let ticker = Arc::clone(&exec);
    std::thread::Builder::new()
        .name("local-exit-tick".into())
        .spawn(move || exit_ticks(&ticker, &events))
        .map_err(|e| format!("exit-tick thread: {e}"))?;

    attach(svc, &exec, runner, &dirs.0, &dirs.1);
    svc.nodes().push_allowed_dirs(&node_id).await;
    tracing::info!(data_dir = %dirs.0, panes = alive, "local node running");
    Ok(())
}

/// Attaches a started executor to `svc` as its local node, its commands run by `runner`:
/// terminal output goes straight from a pane's tail to its viewers' queues (the tails run as
/// tasks beside the terminal sockets once the plane serves, so a pane's echo reaches its
/// viewers without a thread hand-off), and a viewer's keys go straight to tmux when nothing is
/// queued before them. The executor's other events are the caller's to apply.
pub fn attach(
    svc: &Arc<Services>,
    exec: &Arc<Executor>,
    runner: Runner,
    data_dir: &str,
    home_dir: &str,
) {
    let Some(node_id) = svc.local_node_id().map(str::to_owned) else {
        return;
    };
    let router = Arc::clone(svc.terminals().pumps());
    exec.set_output_hook(Arc::new(move |sub_id: &str, from: u64, bytes: &[u8]| {
        router.route_bytes(&node_id, sub_id, from, bytes)
    }));
    let host = Arc::downgrade(svc);
    exec.set_tail_driver(Arc::new(move |job: TailJob| match host.upgrade() {
        // Not serving yet (or no longer): the job runs on a thread of its own.
        Some(svc) if svc.terminals().serves_sockets() => {
            // Should the server stop in between, the task is dropped with the job: the tail
            // ends as it does when the server's executor drops its tasks.
            // Its output goes to the pumps by the hook, which never waits.
            let tail = termplane_runtime_smol::tail::drive(job, |_| std::future::ready(true));
            let _ = svc.terminals().spawn_beside_sockets(tail);
            None
        }
        _ => Some(job),
    }));
    // Its panes' screens speak as a remote node's do (`activity` events, applied by the caller),
    // unless the screen signal is off.
    let screen_signal = svc.settings().screen_signal;
    if screen_signal && let Err(e) = exec.set_activity(true, crate::plugins::SCREEN_QUIET_MS) {
        tracing::warn!(error = %e, "the local node's panes have no screen signal");
    }
    svc.attach_local_node(
        Arc::new(Local {
            runner,
            exec: Arc::clone(exec),
            keys: Arc::default(),
        }),
        data_dir,
        home_dir,
    );
}

/// Checks for ended panes as soon as tmux announces a death, and every tick besides (the
/// backstop), for the process's life.
fn exit_ticks(exec: &Executor, events: &smol::channel::Sender<Event>) {
    let mut seen = exec.deaths_heard();
    loop {
        seen = exec.wait_for_deaths(
            seen,
            crate::clock::monotonic() + termplane_proto::limits::EXIT_DETECTION_TICK,
        );
        for e in exec.exit_tick() {
            tracing::info!(subshell = %e.subshell_id, code = ?e.exit_code, "local pane exited");
            if events.send_blocking(Event::Exit(e)).is_err() {
                return;
            }
        }
    }
}

/// Applies the local node's events in order, as a remote socket's are.
async fn apply_events(svc: Arc<Services>, node_id: String, rx: smol::channel::Receiver<Event>) {
    while let Ok(e) = rx.recv().await {
        svc.nodes().events().push(&node_id, &e);
        svc.node_reports()
            .apply_node_event(&node_id, LOCAL_CONN, &e)
            .await;
    }
}
