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

use std::sync::Arc;
use std::sync::mpsc::{Sender, channel};

use termplane_proto::{Command, CommandResult};

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
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner").finish_non_exhaustive()
    }
}

fn worker(name: &str, exec: Arc<Executor>) -> std::io::Result<Sender<Job>> {
    let (tx, rx) = channel::<Job>();
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            while let Ok(job) = rx.recv() {
                let result = exec.execute_result(&job.jti, &job.command);
                (job.reply)(result);
            }
        })?;
    Ok(tx)
}

impl Runner {
    /// Starts the ordered worker (thread `commands`) and the one beside it
    /// (`commands-aside`).
    pub fn start(exec: Arc<Executor>) -> std::io::Result<Self> {
        Ok(Self {
            ordered: worker("commands", Arc::clone(&exec))?,
            aside: worker("commands-aside", exec)?,
        })
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
        let lane = if runs_aside(&command) {
            &self.aside
        } else {
            &self.ordered
        };
        lane.send(Job {
            jti,
            command,
            reply: Box::new(reply),
        })
        .map_err(|_| Stopped)
    }
}
