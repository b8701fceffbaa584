//! The processes of a pane: every process in the session its wrapper leads.
//!
//! Closing a pane (tmux `kill-session`) hangs its terminal up, and most programs end with the
//! SIGHUP. Not all do: a program that ignores SIGHUP never hears it, and a shell running a loop
//! whose foreground job took the hangup goes on writing to a dead terminal for ever. tmux starts
//! each pane's wrapper as a session leader, so every process the pane started and did not move
//! out of its session carries the wrapper's pid as its session id.
//!
//! `kill`, and `terminate` when the pane did not end by itself, list that session while the
//! wrapper is alive (its pid is then the session's and no one else's), close the pane, and send
//! SIGKILL to what is left of the list, reading each pid's session again just before (a pid that
//! ended and was reused belongs to someone else and is left alone); then the session is swept
//! again for processes forked between the listing and the hangup, for as long as the wrapper's
//! pid is still the wrapper's or no one's. A dead pane's wrapper no
//! longer holds its pid, so nothing is listed for it. Linux only, as it reads `/proc`; elsewhere
//! the hangup is all a pane gets.

/// Marks every descriptor from 3 up that this process inherited close-on-exec, so none of
/// them reaches what it starts. The plane and the node daemon call it first thing: the tmux
/// server they start lives on after them, and a descriptor their launcher left open (a pipe of
/// a shell, of an ssh session, of a supervisor) would otherwise stay open in it for good —
/// keeping the launcher waiting for an end of file that never comes. Descriptors stay open
/// here (one may have been passed on purpose); the process's own are close-on-exec already.
pub fn keep_inherited_descriptors_to_ourselves() {
    close_fds::set_fds_cloexec_threadsafe(3, &[]);
}

/// The session id of process `pid`, from `/proc/<pid>/stat` (None when it is gone).
#[cfg(target_os = "linux")]
fn session_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp session …`; the command name may hold spaces and parentheses.
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    rest.split_ascii_whitespace().nth(3)?.parse().ok()
}

/// The processes whose session id is `sid`.
#[cfg(target_os = "linux")]
#[must_use]
pub fn session_members(sid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| session_of(pid) == Some(sid))
        .collect()
}

/// Sends SIGKILL to each of `members` still in session `sid`; answers how many it signalled.
#[cfg(target_os = "linux")]
pub fn kill_left(members: &[i32], sid: i32) -> usize {
    use rustix::process::{Pid, Signal, kill_process};
    members
        .iter()
        .filter(|&&pid| session_of(pid) == Some(sid))
        .filter_map(|&pid| Pid::from_raw(pid))
        .filter(|&pid| kill_process(pid, Signal::KILL).is_ok())
        .count()
}

/// After [`kill_left`]: sends SIGKILL to whatever else is in session `sid` — a process forked
/// between the listing and the hangup that ignores SIGHUP — in a few rounds (one may fork while
/// a round runs), as long as the session's id still names the pane's: its leader, the process
/// that started at `leader_start`, is alive or gone, never a later process that reused its pid.
/// Answers how many it signalled.
#[cfg(target_os = "linux")]
pub fn sweep_session(sid: i32, leader_start: Option<u64>) -> usize {
    use rustix::process::{Pid, Signal, kill_process};
    let mut signalled = 0;
    for _ in 0..8 {
        if leader_start.is_none() || start_ticks(sid).is_some_and(|t| Some(t) != leader_start) {
            break;
        }
        let left = session_members(sid);
        if left.is_empty() {
            break;
        }
        signalled += left
            .into_iter()
            .filter(|&pid| session_of(pid) == Some(sid))
            .filter_map(Pid::from_raw)
            .filter(|&pid| kill_process(pid, Signal::KILL).is_ok())
            .count();
    }
    signalled
}

/// Nothing to do off Linux.
#[cfg(not(target_os = "linux"))]
pub fn sweep_session(_sid: i32, _leader_start: Option<u64>) -> usize {
    0
}

/// When process `pid` started, in clock ticks since boot (`/proc/<pid>/stat`, field 22); None
/// when it is gone. A pid and its start time name one process for good: a pid reused after
/// a process ended comes with a later start.
#[cfg(target_os = "linux")]
#[must_use]
pub fn start_ticks(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    // After the command name: state is field 3, so start time (22) is the 20th word.
    rest.split_ascii_whitespace().nth(19)?.parse().ok()
}

/// Not known off Linux.
#[cfg(not(target_os = "linux"))]
#[must_use]
pub fn start_ticks(_pid: i32) -> Option<u64> {
    None
}

/// The processes whose session id is `sid` (none known off Linux).
#[cfg(not(target_os = "linux"))]
#[must_use]
pub fn session_members(_sid: i32) -> Vec<i32> {
    Vec::new()
}

/// Nothing to do off Linux.
#[cfg(not(target_os = "linux"))]
pub fn kill_left(_members: &[i32], _sid: i32) -> usize {
    0
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_process_is_found_in_its_own_session_and_nowhere_else() {
        let me = i32::try_from(std::process::id()).unwrap_or(0);
        let sid = session_of(me);
        assert!(sid.is_some());
        if let Some(sid) = sid {
            assert!(session_members(sid).contains(&me));
            // A session no process has: nothing listed, nothing signalled.
            assert!(session_members(-7).is_empty());
            assert_eq!(kill_left(&[me], sid.wrapping_add(1)), 0);
        }
    }

    #[test]
    fn a_start_time_is_read_for_a_live_process_and_differs_between_processes() {
        let me = i32::try_from(std::process::id()).unwrap_or(0);
        let mine = start_ticks(me);
        assert!(mine.is_some());
        assert_eq!(start_ticks(me), mine, "stable for one process");
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let theirs = start_ticks(i32::try_from(child.id()).unwrap_or(0));
        let _ = child.kill();
        let _ = child.wait();
        assert!(theirs.is_some());
        assert!(theirs >= mine);
        assert_eq!(start_ticks(-1), None);
    }
}
