//! The order commands run in, for every process that embeds the executor.
//!
//! A [`Runner`] owns two threads for as long as it lives. The ordered worker runs commands one
//! at a time in arrival order: a `launch` after a `terminate` of the same subshell sees the
//! terminate done, and the chunks of an upload are written in order. `detect` only reads (it
//! resolves binaries, runs version probes of up to 5 s each and reads environment variables),
//! so it runs on the second thread, beside the ordered worker ([`runs_aside`]): a keystroke that
//! arrives after a `detect` does not wait for its probes. `detect`s run in arrival order among
//! themselves.
//!
//! Answers therefore may come back out of arrival order; each carries its command's jti as
//! `ref`, which is how the plane matches them.
//!
//! A viewer's keystrokes may skip the queue when it is empty ([`Runner::type_now`]): nothing
//! queued or running means nothing they could overtake, and they reach tmux without waking the
//! worker, which is a good share of a keystroke's echo on a small machine.

use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};

use termplane_proto::{Command, CommandResult, SubshellId};

use crate::Executor;

/// The answer of a command submitted to a runner whose worker has ended.
pub const STOPPED: &str = "executor stopped";

/// Whether `command` runs beside the ordered worker instead of in arrival order: only `detect`,
/// which changes nothing.
#[must_use]
pub fn runs_aside(command: &Command) -> bool {
    matches!(command, Command::Detect(_))
}

/// Where a command's answer goes. It is called on the thread that ran the command, right after
/// it ran.
type Reply = Box<dyn FnOnce(CommandResult) + Send>;

struct Job {
    jti: String,
    command: Command,
    reply: Reply,
}

/// The runner's worker has ended (it panicked while running a command); nothing runs any more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{STOPPED}")]
pub struct Stopped;

/// Runs commands on an executor: in arrival order, but `detect` beside them (see the module
/// docs). Dropping it lets both threads finish what they were given and end.
pub struct Runner {
    ordered: Sender<Job>,
    aside: Sender<Job>,
    /// Ordered commands submitted and not answered yet; held while one is queued, and while
    /// keys skip the queue, so the two never pass each other.
    waiting: Arc<Mutex<usize>>,
    exec: Arc<Executor>,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner").finish_non_exhaustive()
    }
}

fn worker(
    name: &str,
    exec: Arc<Executor>,
    waiting: Option<Arc<Mutex<usize>>>,
) -> std::io::Result<Sender<Job>> {
    let (tx, rx) = channel::<Job>();
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            while let Ok(job) = rx.recv() {
                let result = exec.execute_result(&job.jti, &job.command);
                (job.reply)(result);
                if let Some(w) = &waiting
                    && let Ok(mut n) = w.lock()
                {
                    *n = n.saturating_sub(1);
                }
            }
        })?;
    Ok(tx)
}

impl Runner {
    /// Starts the ordered worker (thread `commands`) and the one beside it
    /// (`commands-aside`).
    pub fn start(exec: Arc<Executor>) -> std::io::Result<Self> {
        let waiting = Arc::new(Mutex::new(0));
        Ok(Self {
            ordered: worker("commands", Arc::clone(&exec), Some(Arc::clone(&waiting)))?,
            aside: worker("commands-aside", Arc::clone(&exec), None)?,
            waiting,
            exec,
        })
    }

    /// Types a viewer's keystrokes into a subshell's pane at once, skipping the queue, when no
    /// ordered command is queued or running (so they overtake nothing) and the executor can send
    /// them without waiting for tmux's answer ([`Executor::type_unanswered`]). Answers a ticket
    /// for [`Self::keys_settled`] when it did; `None` means nothing was typed and the keys go
    /// through [`Self::submit`] as an `input` command.
    #[must_use]
    pub fn type_now(&self, id: &SubshellId, data: &str) -> Option<u64> {
        let waiting = self.waiting.lock().ok()?;
        if *waiting > 0 {
            return None;
        }
        self.exec.type_unanswered(id, data)
    }

    /// How keys typed with [`Self::type_now`] went, or what to wait on before asking again (see
    /// [`Executor::keys_settle`]).
    pub fn keys_settle(&self, ticket: u64) -> Result<Result<(), String>, crate::KeysWatch> {
        self.exec.keys_settle(ticket)
    }

    /// Whether keys typed with [`Self::type_now`] were typed, once tmux has said so (see
    /// [`Executor::keys_settled`]).
    #[must_use]
    pub fn keys_settled(&self, ticket: u64) -> Option<Result<(), String>> {
        self.exec.keys_settled(ticket)
    }

    /// Queues one command; `reply` receives its answer (`ref` = `jti`) on the worker's thread
    /// once it ran. Commands run in the order they were submitted, except those that
    /// [`runs_aside`]. When the worker has ended, the command does not run, `reply` is dropped
    /// uncalled and the answer is [`Stopped`].
    pub fn submit(
        &self,
        jti: String,
        command: Command,
        reply: impl FnOnce(CommandResult) + Send + 'static,
    ) -> Result<(), Stopped> {
        let job = Job {
            jti,
            command,
            reply: Box::new(reply),
        };
        if runs_aside(&job.command) {
            return self.aside.send(job).map_err(|_| Stopped);
        }
        let mut waiting = self.waiting.lock().map_err(|_| Stopped)?;
        self.ordered.send(job).map_err(|_| Stopped)?;
        *waiting += 1;
        Ok(())
    }
}
