//! Pane recordings: when each byte of a pane's log was printed, and on what grid.
//!
//! A pane's log (`logs/<id>.log`) already holds every byte the pane printed, whether or not
//! anyone watches, across restarts of the node and of its subshell; the live terminals and the
//! replay read it. What it lacks is time. Next to it, `recordings/<id>.timing` says when the log
//! grew and what size the pane's grid had, so the log can be played back as it was printed (its
//! own directory: every write into `logs/` wakes the activity watch). The recording is kept on
//! the node, with the log, rather than on the plane: the plane sees a
//! pane's output only while someone watches it, a node keeps recording while its link is down,
//! and the bytes are not copied a second time.
//!
//! # The timing file
//! Its records are `termplane_proto::recording`'s (the format is there, since `timing_read`
//! answers the file's bytes). Two writers append to it with `O_APPEND`, each record in one
//! `write`, so records never interleave: the pane's recorder process (this module's
//! [`record_pane`], run by tmux's `pipe-pane` in place of `cat`) writes `start` and `output`,
//! the executor writes `grid` at launch and on each resize.
//!
//! Output is grouped: reads that come less than [`GROUP`] after the first read of a group go
//! into its record, so a pane that prints without pause costs at most one record (16 bytes) per
//! [`GROUP`] — at most 5.6 MB an hour — and an idle pane nothing; a byte's time is known to
//! within [`GROUP`]. The record of a group is written once the group's time is over, never
//! before the bytes reach the log: recording adds no wait to the output's path.

use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use termplane_proto::recording::{RECORD_BYTES, Record, decode_all};

/// The span of one output record: reads within it of a group's first read share its record.
pub const GROUP: Duration = Duration::from_millis(10);

/// The grouping of reads into output records, without IO: told of each read and asked when
/// its open group is due.
#[derive(Debug, Default)]
pub struct Grouping {
    open: Option<(u64, u64)>,
}

impl Grouping {
    /// Output up to `log_end` was read at `now_us`: the record of the group this read closes,
    /// if it closes one.
    pub fn read(&mut self, now_us: u64, log_end: u64) -> Option<Record> {
        match self.open {
            Some((first, _)) if now_us < first.saturating_add(group_us()) => {
                self.open = Some((first, log_end));
                None
            }
            closed => {
                self.open = Some((now_us, log_end));
                closed.map(|(at_us, log_end)| Record::Output { at_us, log_end })
            }
        }
    }

    /// When the open group's time is over (Unix microseconds), if one is open.
    #[must_use]
    pub fn due_us(&self) -> Option<u64> {
        self.open.map(|(first, _)| first.saturating_add(group_us()))
    }

    /// Closes the open group: its record, if one was open.
    pub fn close(&mut self) -> Option<Record> {
        self.open
            .take()
            .map(|(at_us, log_end)| Record::Output { at_us, log_end })
    }
}

fn group_us() -> u64 {
    u64::try_from(GROUP.as_micros()).unwrap_or(u64::MAX)
}

/// Now on the node's wall clock, in Unix microseconds.
#[must_use]
pub fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

/// A timing file beside the log `log` (where `record-pane LOG` with no timing path keeps it).
#[must_use]
pub fn timing_path(log: &Path) -> PathBuf {
    log.with_extension("timing")
}

/// Opens (creating it private, 0600, never through a symlink) the timing file `path` to append.
pub fn open_timing(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).unwrap_or(0))
        .open(path)
}

/// Appends `record` to the timing file `path` (the executor's grid records).
pub fn append(path: &Path, record: Record) -> io::Result<()> {
    open_timing(path)?.write_all(&record.encode())
}

/// The pane's recorder, run by tmux's `pipe-pane` in place of `cat >> LOG`: copies standard
/// input to the log `log` as it comes and writes the timing records beside it. A write to the
/// log that fails ends it, as it ends `cat`; the timing file failing (a full disk, say) stops
/// only the timing, never the log the live terminals read.
pub fn record_pane(log: &Path, timing: &Path) -> io::Result<()> {
    let mut out = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).unwrap_or(0))
        .open(log)?;
    let mut size = out.metadata()?.len();
    let mut timing = open_timing(timing).ok();
    let mut put = |r: Record| {
        if let Some(f) = &mut timing
            && f.write_all(&r.encode()).is_err()
        {
            timing = None;
        }
    };
    put(Record::Start {
        at_us: now_us(),
        log_size: size,
    });
    // Read straight from the descriptor (a buffer of our own in front of it would hold bytes
    // the poll below cannot see), without blocking: output waiting is read at once, one call per
    // read as `cat` does, and only an empty pipe is waited on — until output comes, or the open
    // group is due and its record is written. Were the descriptor to stay blocking, a group's
    // record would be written at the next read instead (its time is its first read's all the
    // same).
    let input = io::stdin();
    let _ = rustix::fs::fcntl_getfl(&input)
        .and_then(|f| rustix::fs::fcntl_setfl(&input, f | rustix::fs::OFlags::NONBLOCK));
    let mut grouping = Grouping::default();
    // As large as `cat`'s.
    let mut buf = vec![0u8; 128 * 1024];
    loop {
        let n = match rustix::io::read(&input, &mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(rustix::io::Errno::AGAIN) => {
                let due = grouping
                    .due_us()
                    .map(|d| Duration::from_micros(d.saturating_sub(now_us())));
                if !readable_within(&input, due)?
                    && let Some(r) = grouping.close()
                {
                    put(r);
                }
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        out.write_all(&buf[..n])?;
        size += n as u64;
        if let Some(r) = grouping.read(now_us(), size) {
            put(r);
        }
    }
    if let Some(r) = grouping.close() {
        put(r);
    }
    Ok(())
}

/// `record-pane LOG [TIMING]`, the subcommand of the node daemon and the plane that tmux's `pipe-pane`
/// runs for each pane: [`record_pane`] until the pane's output ends.
#[must_use]
pub fn main(program: &str, args: &[String]) -> std::process::ExitCode {
    let (log, timing) = match args {
        [log, timing] => (Path::new(log), PathBuf::from(timing)),
        // Beside the log, as a pane launched by a build that passed no timing path expects.
        [log] => (Path::new(log), timing_path(Path::new(log))),
        _ => {
            eprintln!("usage: {program} record-pane LOG [TIMING]");
            return std::process::ExitCode::from(2);
        }
    };
    match record_pane(log, &timing) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program} record-pane: {}: {e}", log.display());
            std::process::ExitCode::FAILURE
        }
    }
}

/// Whether `fd` has something to read (or its end) within `wait` (`None`: waits for it).
fn readable_within(fd: &impl AsFd, wait: Option<Duration>) -> io::Result<bool> {
    use rustix::event::{PollFd, PollFlags, Timespec};
    let timeout = wait.map(|w| Timespec {
        tv_sec: i64::try_from(w.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(w.subsec_nanos()),
    });
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    loop {
        match rustix::event::poll(&mut fds, timeout.as_ref()) {
            Ok(n) => return Ok(n > 0),
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn reads_within_a_group_share_its_record_and_a_pause_closes_it() {
        let mut g = Grouping::default();
        assert_eq!(g.due_us(), None);
        assert_eq!(g.read(1_000, 5), None);
        assert_eq!(g.due_us(), Some(11_000));
        // Reads before the group's time is over join it.
        assert_eq!(g.read(10_999, 9), None);
        // The first read after it closes the group with the last size read in it.
        assert_eq!(
            g.read(11_000, 12),
            Some(Record::Output {
                at_us: 1_000,
                log_end: 9
            })
        );
        // A pause: the group is closed on its own once due.
        assert_eq!(g.due_us(), Some(21_000));
        assert_eq!(
            g.close(),
            Some(Record::Output {
                at_us: 11_000,
                log_end: 12
            })
        );
        assert_eq!(g.close(), None);
        assert_eq!(g.due_us(), None);
    }

    #[test]
    fn the_recorder_copies_its_input_to_the_log_and_times_it() {
        let dir = termplane_test_support::TempDir::new("recorder");
        let log = dir.path().join("p.log");
        std::fs::write(&log, b"before\n").unwrap();
        let me = std::env::current_exe().unwrap();
        // The test binary itself, told to be the recorder (see `recorder_child` below).
        let mut child = std::process::Command::new(me)
            .args(["--exact", "recording::tests::recorder_child", "--nocapture"])
            .env("TERMPLANE_TEST_RECORDER_LOG", &log)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let piece = vec![b'x'; 100_000];
        let t0 = now_us();
        stdin.write_all(&piece).unwrap();
        stdin.write_all(b"end\n").unwrap();
        drop(stdin);
        assert!(child.wait().unwrap().success());
        let t1 = now_us();
        let logged = std::fs::read(&log).unwrap();
        assert_eq!(logged.len(), 7 + 100_004);
        assert!(logged.ends_with(b"xend\n") && logged.starts_with(b"before\n"));
        let records = decode_all(&std::fs::read(timing_path(&log)).unwrap()).unwrap();
        let Some((Record::Start { at_us, log_size }, rest)) = records.split_first() else {
            panic!("{records:?}");
        };
        assert_eq!(*log_size, 7);
        assert!(*at_us <= t1);
        // Output records cover the input in order and end at the log's end.
        let mut last = 7;
        for r in rest {
            let Record::Output { at_us, log_end } = r else {
                panic!("{r:?}");
            };
            assert!(*log_end > last && (t0..=t1).contains(at_us), "{r:?}");
            last = *log_end;
        }
        assert_eq!(last, logged.len() as u64);
    }

    /// Not a test on its own: the recorder process of the test above (it does nothing unless
    /// that test started it).
    #[test]
    fn recorder_child() {
        if let Some(log) = std::env::var_os("TERMPLANE_TEST_RECORDER_LOG") {
            let log = Path::new(&log);
            record_pane(log, &timing_path(log)).unwrap();
        }
    }
}
