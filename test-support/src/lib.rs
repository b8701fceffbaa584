//! What the test suites of every crate share, so that each is written once: waiting on a
//! condition with a deadline ([`wait_until`], [`wait_for`]), the terminal client written from
//! the documented frames ([`viewer::Viewer`]), scratch directories ([`TempDir`]), and a host
//! that lacks a system call ([`without_openat2`]).
//!
//! A wait here looks at its condition again and again, first within a millisecond and then at
//! most every 50 ms, until it holds or the deadline passes: tests wait on what they can
//! observe, never on a fixed sleep that hopes something has happened by then.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)]

pub mod viewer;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The longest gap between two looks at a condition.
const MOST_GAP: Duration = Duration::from_millis(50);

/// Looks at `f` until it answers `Some`, for at most `limit`: `None` when it never did.
pub fn wait_for<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    let mut gap = Duration::from_millis(1);
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        std::thread::sleep(gap.min(deadline - now));
        gap = (gap * 2).min(MOST_GAP);
    }
}

/// Looks at `f` until it answers `Some`, for at most `limit`; panics naming `what` when it
/// never did.
pub fn wait_until<T>(what: &str, limit: Duration, f: impl FnMut() -> Option<T>) -> T {
    wait_for(limit, f).unwrap_or_else(|| panic!("timed out after {limit:?} waiting for {what}"))
}

static SCRATCH: AtomicU32 = AtomicU32::new(0);

/// A fresh directory under the system's temporary one, removed when dropped. Its path is
/// short (a tmux socket's path must fit in about 100 bytes) and canonical.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new, empty directory whose name carries `tag`.
    #[must_use]
    pub fn new(tag: &str) -> Self {
        let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("tpn{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("a scratch directory");
        Self(std::fs::canonicalize(&p).expect("a scratch directory"))
    }

    /// Where it is.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The numbers of the `last-N` lines on a screen, in screen order (what the terminal tests
/// print to check that keys arrived whole and in order).
#[must_use]
pub fn ran_lines(screen: &str) -> Vec<u32> {
    screen
        .lines()
        .filter_map(|l| l.trim().strip_prefix("last-")?.parse().ok())
        .collect()
}

/// A command that runs `program` as on a host whose kernel predates `openat2` (Linux 5.6): a
/// seccomp filter, installed by `hosts/without_openat2.py` before it executes `program`, answers
/// the call with `ENOSYS` for `program` and everything it starts. Needs `python3`.
#[must_use]
pub fn without_openat2(program: &Path) -> std::process::Command {
    let mut c = std::process::Command::new("python3");
    c.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/hosts/without_openat2.py"
    ))
    .arg(program);
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_answers_what_the_condition_found_and_gives_up_at_its_deadline() {
        let mut looks = 0;
        assert_eq!(
            wait_for(Duration::from_secs(5), || {
                looks += 1;
                (looks == 3).then_some(looks)
            }),
            Some(3)
        );
        let started = Instant::now();
        assert_eq!(wait_for(Duration::from_millis(120), || None::<()>), None);
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(120), "{took:?}");
        assert!(took < Duration::from_secs(2), "{took:?}");
    }

    #[test]
    #[should_panic(expected = "waiting for the answer")]
    fn wait_until_names_what_never_came() {
        wait_until("the answer", Duration::from_millis(10), || None::<()>);
    }

    #[test]
    fn scratch_directories_are_fresh_and_go_away() {
        let a = TempDir::new("x");
        let b = TempDir::new("x");
        assert_ne!(a.path(), b.path());
        let kept = a.path().to_path_buf();
        assert!(kept.is_dir());
        drop(a);
        assert!(!kept.exists());
    }
}
