//! Word of panes dying, as it happens: each pane's wrapper signals the wait channel [`CHANNEL`]
//! once its program ended (see [`crate::PANE_WRAPPER`]), and so does the private tmux server's
//! `pane-died` hook (set by [`crate::tmux::Tmux::start_server`]); one thread per executor waits
//! on that channel with `tmux wait-for` and counts each signal.
//!
//! The exit check ([`crate::Executor::exit_tick`]) runs as soon as the count moves, and a stop's
//! grace ends as soon as its pane is dead, instead of looking every so often. tmux keeps a signal
//! sent while nobody waits (the next `wait-for` returns at once), so a death between two waits is
//! never lost; several deaths may be counted once, which is all a waiter needs: it looks at every
//! pane when woken. The exit check's tick stays as the backstop for what no signal reports: the
//! server killed, and a death tmux itself never learns of. tmux before 3.5 can lose the SIGCHLD
//! of a pane's process (seen here under load with 3.3a): the pane reads dead (its terminal
//! closed) with no exit status, and tmux, which runs `pane-died` only once it has the status,
//! never runs it. The wrapper's own signal does not depend on tmux reaping it, so such a death is
//! announced all the same; the tick finds that pane dead and takes its code from the exit file
//! the wrapper wrote.
//!
//! While no server runs, `wait-for` fails at once; the thread then waits for word that the
//! executor started its server ([`Deaths::watch`] is called after each start), looking again
//! after [`RETRY_WITHOUT_SERVER`] at the latest, and ends when the executor that started it is
//! gone.

use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

/// The tmux wait channel the `pane-died` hook signals.
pub const CHANNEL: &str = "termplane-pane-died";

/// The hook's command, as `set-hook -g pane-died` takes it.
pub const HOOK: &str = "wait-for -S termplane-pane-died";

/// The longest the thread waits, when no tmux server answers, before it looks again without
/// word of a start (and whether its executor is still there).
const RETRY_WITHOUT_SERVER: Duration = Duration::from_secs(5);

/// The count of deaths heard, and the condition its waiters sleep on.
#[derive(Debug, Default)]
pub struct Deaths {
    heard: Mutex<u64>,
    moved: Condvar,
    /// Whether the thread runs, and how many times the server was (re)started since.
    watching: Mutex<(bool, u64)>,
    started: Condvar,
}

impl Deaths {
    /// A count at zero, with no thread yet.
    #[must_use]
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// How many signals have been heard so far; pass it to [`Deaths::wait_after`].
    #[must_use]
    pub fn heard(&self) -> u64 {
        *self.heard.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts one signal and wakes every waiter.
    pub fn hear(&self) {
        *self.heard.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.moved.notify_all();
    }

    /// Waits until more than `seen` signals have been heard, or until `deadline`, and answers the
    /// count then (equal to `seen` when the deadline came first).
    pub fn wait_after(&self, seen: u64, deadline: Instant) -> u64 {
        let mut heard = self.heard.lock().unwrap_or_else(PoisonError::into_inner);
        while *heard == seen {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break;
            };
            if left.is_zero() {
                break;
            }
            heard = self
                .moved
                .wait_timeout(heard, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *heard
    }

    /// How many times the server was started, as told to [`Deaths::watch`].
    fn starts(&self) -> u64 {
        self.watching
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .1
    }

    /// Waits until the server is started again after `seen` starts, or for
    /// [`RETRY_WITHOUT_SERVER`].
    fn wait_for_start(&self, seen: u64) {
        let w = self.watching.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = self
            .started
            .wait_timeout_while(w, RETRY_WITHOUT_SERVER, |w| w.1 == seen);
    }

    /// Called after each start of the server: starts the waiting thread the first time, and
    /// wakes it later (it may be waiting for a server to wait on). `wait_for` builds the
    /// `tmux … wait-for CHANNEL` command on the executor's socket.
    pub fn watch(self: &Arc<Self>, wait_for: impl Fn() -> Command + Send + 'static) {
        {
            let mut w = self.watching.lock().unwrap_or_else(PoisonError::into_inner);
            w.1 += 1;
            self.started.notify_all();
            if w.0 {
                return;
            }
            w.0 = true;
        }
        let me: Weak<Self> = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("pane-deaths".into())
            .spawn(move || {
                loop {
                    let Some(starts) = me.upgrade().map(|d| d.starts()) else {
                        return;
                    };
                    let signalled = wait_for()
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .is_ok_and(|s| s.success());
                    let Some(deaths) = me.upgrade() else {
                        return;
                    };
                    if signalled {
                        deaths.hear();
                    } else {
                        deaths.wait_for_start(starts);
                    }
                }
            });
        if spawned.is_err() {
            // No thread: the exit check's tick alone finds the deaths, as before the hook.
            self.watching
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .0 = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiter_wakes_on_a_signal_and_answers_the_new_count() {
        let d = Deaths::new();
        let seen = d.heard();
        let other = Arc::clone(&d);
        let t = std::thread::spawn(move || {
            other.wait_after(seen, Instant::now() + Duration::from_secs(30))
        });
        d.hear();
        assert_eq!(t.join().unwrap_or(0), seen + 1);
    }

    #[test]
    fn a_signal_heard_before_the_wait_is_not_waited_for_again() {
        let d = Deaths::new();
        let seen = d.heard();
        d.hear();
        // The deadline is now: only a count already past `seen` answers more than `seen`.
        assert_eq!(d.wait_after(seen, Instant::now()), seen + 1);
    }

    #[test]
    fn with_no_signal_the_wait_ends_at_its_deadline_with_the_same_count() {
        let d = Deaths::new();
        let seen = d.heard();
        assert_eq!(
            d.wait_after(seen, Instant::now() + Duration::from_millis(20)),
            seen
        );
    }
}
