//! Small helpers shared by the modules: UTC timestamps, OS randomness, bounded child processes.

use std::os::fd::AsFd as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Seconds and milliseconds since the Unix epoch (0 if the clock reads before it).
#[must_use]
pub fn unix_millis() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// The current time as an ISO 8601 UTC timestamp with milliseconds (`2026-11-22T13:30:39.123Z`).
#[must_use]
pub fn now_iso() -> String {
    iso_from_millis(unix_millis())
}

/// Formats milliseconds since the epoch as ISO 8601 UTC.
#[must_use]
pub fn iso_from_millis(ms: u128) -> String {
    let secs = (ms / 1000) as i64;
    let milli = (ms % 1000) as u32;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{milli:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// Gregorian date of a day count since 1970-01-01 (proleptic calendar, era arithmetic).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `n` bytes of operating-system randomness.
pub fn random_bytes<const N: usize>() -> std::io::Result<[u8; N]> {
    let mut buf = [0_u8; N];
    getrandom::fill(&mut buf).map_err(|e| std::io::Error::other(format!("OS randomness: {e}")))?;
    Ok(buf)
}

/// Lowercase hex of `bytes`.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// What a bounded child process produced.
#[derive(Debug)]
pub struct Bounded {
    /// Exit status code (`None` when killed by a signal or by the deadline).
    pub code: Option<i32>,
    /// Whether the deadline killed it.
    pub timed_out: bool,
    /// Captured standard output (at most the cap).
    pub stdout: Vec<u8>,
    /// Captured standard error (at most the cap).
    pub stderr: Vec<u8>,
}

impl Bounded {
    /// Whether it exited with status 0.
    #[must_use]
    pub fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }

    /// Standard error as lossy text, trimmed.
    #[must_use]
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).trim().to_owned()
    }
}

/// How long output is still read after the child exited: a tmux client hands its standard
/// output to the server, which may hold it (a stopped server holds it for good).
const AFTER_EXIT_GRACE: Duration = Duration::from_millis(200);

/// Reads what `fd` has now (non-blocking) into `out` (kept up to `cap`); `false` at EOF or on
/// an error other than "would block".
fn drain_ready(fd: &impl std::os::fd::AsFd, out: &mut Vec<u8>, cap: usize) -> bool {
    let mut buf = [0_u8; 8192];
    // Bounded: each round consumes input; a writer faster than this reader is cut by the
    // caller's deadline.
    for _ in 0..1024 {
        match rustix::io::read(fd, &mut buf) {
            Ok(0) => return false,
            Ok(n) => {
                let room = cap.saturating_sub(out.len());
                out.extend_from_slice(&buf[..n.min(room)]);
            }
            Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR) => return true,
            Err(_) => return false,
        }
    }
    true
}

/// Runs `cmd` (stdin closed) for at most `deadline`, keeping at most `cap` bytes of each output
/// stream. The child is killed when the deadline passes.
///
/// Everything happens on the calling thread and ends by the deadline (plus a short grace after
/// the child exits), whoever else holds the write ends of the output pipes: a tmux client passes
/// its standard output to the tmux server, and a stopped server keeps it, unread, for as long as
/// it stays stopped; waiting for EOF there would never end.
pub fn run_bounded(cmd: &mut Command, deadline: Duration, cap: usize) -> std::io::Result<Bounded> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let out = child.stdout.take();
    let err = child.stderr.take();
    for fd in [
        out.as_ref().map(|o| o.as_fd()),
        err.as_ref().map(|e| e.as_fd()),
    ]
    .into_iter()
    .flatten()
    {
        let flags = rustix::fs::fcntl_getfl(fd)?;
        rustix::fs::fcntl_setfl(fd, flags | rustix::fs::OFlags::NONBLOCK)?;
    }
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let (mut out_open, mut err_open) = (out.is_some(), err.is_some());
    let mut status = None;
    let mut exited_at: Option<Instant> = None;
    let mut timed_out = false;
    loop {
        if status.is_none()
            && let Some(st) = child.try_wait()?
        {
            status = Some(st);
            exited_at = Some(Instant::now());
        }
        if let Some(at) = exited_at
            && (!(out_open || err_open) || at.elapsed() >= AFTER_EXIT_GRACE)
        {
            break;
        }
        if status.is_none() && start.elapsed() >= deadline {
            let _ = child.kill();
            status = child.wait().ok();
            timed_out = true;
            break;
        }
        let left = deadline.saturating_sub(start.elapsed());
        let wait = left.min(Duration::from_millis(10));
        let timeout = Timespec {
            tv_sec: 0,
            tv_nsec: i64::from(wait.subsec_nanos()),
        };
        let mut fds = Vec::with_capacity(2);
        if out_open && let Some(o) = &out {
            fds.push(PollFd::new(o, PollFlags::IN));
        }
        if err_open && let Some(e) = &err {
            fds.push(PollFd::new(e, PollFlags::IN));
        }
        if fds.is_empty() {
            std::thread::sleep(wait);
        } else {
            let _ = poll(&mut fds, Some(&timeout));
        }
        if out_open && let Some(o) = &out {
            out_open = drain_ready(o, &mut stdout, cap);
        }
        if err_open && let Some(e) = &err {
            err_open = drain_ready(e, &mut stderr, cap);
        }
    }
    // What was written up to the end is read; the read ends close here.
    if let Some(o) = &out {
        drain_ready(o, &mut stdout, cap);
    }
    if let Some(e) = &err {
        drain_ready(e, &mut stderr, cap);
    }
    Ok(Bounded {
        code: if timed_out {
            None
        } else {
            status.and_then(|s| s.code())
        },
        timed_out,
        stdout,
        stderr,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn iso_timestamps_match_known_dates() {
        assert_eq!(iso_from_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            iso_from_millis(1_795_354_239_123),
            "2026-11-22T13:30:39.123Z"
        );
        assert_eq!(iso_from_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn bounded_children_are_killed_at_the_deadline() {
        let b = run_bounded(
            Command::new("sleep").arg("5"),
            Duration::from_millis(100),
            16,
        )
        .unwrap();
        assert!(b.timed_out);
        let ok = run_bounded(Command::new("echo").arg("hi"), Duration::from_secs(5), 1).unwrap();
        assert!(ok.success());
        assert_eq!(ok.stdout, b"h");
    }
}
