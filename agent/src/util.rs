//! Small helpers shared by the modules: UTC timestamps, OS randomness, bounded child processes.

use std::io::Read;
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

/// Most open files the daemon asks for.
pub const OPEN_FILE_WANT: u64 = 65_536;

/// Raises the soft open-file limit towards the hard one (at most [`OPEN_FILE_WANT`]): every
/// pane-log tail holds its log, an inotify instance and an eventfd, and the common soft limit of
/// 1,024 would run out before the tail cap does. Answers the soft limit in effect.
pub fn raise_open_file_limit() -> Option<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let now = getrlimit(Resource::Nofile);
    let want = now
        .maximum
        .map_or(OPEN_FILE_WANT, |m| m.min(OPEN_FILE_WANT));
    if now.current.is_none_or(|c| c >= want) {
        return now.current;
    }
    let raised = Rlimit {
        current: Some(want),
        maximum: now.maximum,
    };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => Some(want),
        Err(_) => now.current,
    }
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

fn read_capped(mut r: impl Read, cap: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0_u8; 8192];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = cap.saturating_sub(out.len());
                out.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    out
}

/// Runs `cmd` (stdin closed) for at most `deadline`, keeping at most `cap` bytes of each output
/// stream. The child is killed when the deadline passes.
pub fn run_bounded(cmd: &mut Command, deadline: Duration, cap: usize) -> std::io::Result<Bounded> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let out = child.stdout.take();
    let err = child.stderr.take();
    let t_out = std::thread::spawn(move || out.map(|o| read_capped(o, cap)).unwrap_or_default());
    let t_err = std::thread::spawn(move || err.map(|e| read_capped(e, cap)).unwrap_or_default());
    let start = Instant::now();
    let mut timed_out = false;
    let mut sleep = Duration::from_micros(200);
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break Some(st);
        }
        if start.elapsed() >= deadline {
            let _ = child.kill();
            timed_out = true;
            break child.wait().ok();
        }
        std::thread::sleep(sleep);
        sleep = (sleep * 2).min(Duration::from_millis(10));
    };
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
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

#[cfg(test)]
#[allow(clippy::expect_used, clippy::unwrap_used)]
mod open_files {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

    const NAME: &str = "util::open_files::the_soft_open_file_limit_is_raised_towards_the_hard_one";

    /// Runs in a child test process (`TERMPLANE_RLIMIT_CHILD`), so lowering the limit cannot
    /// starve the other tests of this process.
    #[test]
    fn the_soft_open_file_limit_is_raised_towards_the_hard_one() {
        if std::env::var_os("TERMPLANE_RLIMIT_CHILD").is_none() {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", NAME, "--test-threads=1"])
                .env("TERMPLANE_RLIMIT_CHILD", "1")
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success() && text.contains("1 passed"), "{text}");
            return;
        }
        let before = getrlimit(Resource::Nofile);
        let Some(hard) = before.maximum else {
            return; // unlimited: nothing to raise
        };
        if hard <= 256 {
            return;
        }
        setrlimit(
            Resource::Nofile,
            Rlimit {
                current: Some(256),
                maximum: Some(hard),
            },
        )
        .expect("lowering the soft limit");
        let got = super::raise_open_file_limit();
        let after = getrlimit(Resource::Nofile);
        let want = hard.min(super::OPEN_FILE_WANT);
        assert_eq!(got, Some(want));
        assert_eq!(after.current, Some(want));
        assert_eq!(after.maximum, Some(hard), "the hard limit is never touched");
    }
}
