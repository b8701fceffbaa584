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
//!
//! # The log's cap
//! A pane that prints without pause must not fill its node's disk. The recorder keeps a log to
//! its last [`Limits::keep_bytes`] (256 MiB unless the node is told otherwise): past that, the
//! oldest bytes are dropped by punching a hole at the log's start (`fallocate`'s
//! `PUNCH_HOLE`), which frees their disk blocks while every offset stays what it was — the live
//! tails, the replay's offset and the timing records all go on pointing at the same bytes. A
//! log's first kept byte is where its data starts (`SEEK_DATA`): `log_read` answers from there,
//! and an export marks the recording as truncated. When the disk's free space falls below
//! [`Limits::reserve_bytes`] (1 GiB), every recorder keeps only its last [`LOW_KEEP_BYTES`]
//! until there is room again, so all of a node's panes together cannot fill it either. On a
//! file system that cannot punch holes the recorder stops appending at the cap instead (the
//! pane runs on; its log, live view and recording stop there), so the disk still never fills.
//! The timing file grows by at most one record per [`GROUP`] of output (5.6 MB an hour) and
//! stops at [`MAX_TIMING_BYTES`]; output after that is untimed.
//!
//! # Retention
//! A plane that keeps recordings for a limited time sends `recording_trim` with a time; the
//! node drops ([`expire`]) what the pane printed before it the same way, by punching holes: the
//! log's bytes up to the end of the last output timed before it, and the timing records before
//! it (in whole blocks: a few old records may stay, which a reader passes over as it passes the
//! log's dropped bytes). The grid the pane had at that time is written again, timed at it, when
//! its record goes, so what is kept still plays on the right grid. A pane with no timing file
//! (its recording off) keeps its log as it is: nothing says when its bytes were printed.

use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use termplane_proto::recording::{RECORD_BYTES, Record, decode_all};

/// The span of one output record: reads within it of a group's first read share its record.
pub const GROUP: Duration = Duration::from_millis(10);

/// What a log keeps while its disk is short of room.
pub const LOW_KEEP_BYTES: u64 = 1024 * 1024;
/// The most a timing file grows to (about 12 hours of output without a pause).
pub const MAX_TIMING_BYTES: u64 = 64 * 1024 * 1024;
/// Holes are punched in whole blocks of this size (the page size; a file system's blocks are
/// no larger).
const BLOCK: u64 = 4096;
/// Log bytes written between two looks at the disk's free space.
const FREE_CHECK_BYTES: u64 = 4 * 1024 * 1024;

/// A recorder's limits on its pane's log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most of a log kept: its oldest bytes beyond this are dropped.
    pub keep_bytes: u64,
    /// Free space on the log's disk below which every log keeps only [`LOW_KEEP_BYTES`].
    pub reserve_bytes: u64,
}

impl Limits {
    /// The limits the environment sets: `TERMPLANE_PANE_LOG_KEEP_MIB` (the most of each pane's
    /// log kept, default 256) and `TERMPLANE_PANE_LOG_RESERVE_MIB` (the free space below which
    /// logs keep only their last MiB, default 1024); a value that is not a whole number is
    /// named in the error.
    ///
    /// # Errors
    /// A variable that is set and not a whole number of MiB.
    pub fn from_env() -> Result<Self, String> {
        let mut l = Self::default();
        for (name, field) in [
            ("TERMPLANE_PANE_LOG_KEEP_MIB", &mut l.keep_bytes),
            ("TERMPLANE_PANE_LOG_RESERVE_MIB", &mut l.reserve_bytes),
        ] {
            if let Ok(v) = std::env::var(name) {
                let mib: u64 = v
                    .trim()
                    .parse()
                    .ok()
                    .filter(|n| (1..=1 << 30).contains(n))
                    .ok_or_else(|| {
                        format!("{name} must be a whole number of MiB from 1, not {v:?}")
                    })?;
                *field = mib * 1024 * 1024;
            }
        }
        Ok(l)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            keep_bytes: 256 * 1024 * 1024,
            reserve_bytes: 1024 * 1024 * 1024,
        }
    }
}

/// Where a log's kept bytes start, without IO: told of the log's size and whether its disk is
/// short of room, it answers the range of old bytes to drop, if one is due. It drops in steps of
/// a quarter of what it keeps (at least 64 KiB), block-aligned, so a hole is punched now and
/// then, not at every write.
#[derive(Debug, Clone, Copy)]
pub struct Trim {
    keep: u64,
    /// The log's first kept byte.
    pub start: u64,
}

impl Trim {
    /// A log keeping at most `keep` bytes whose first kept byte is `start`.
    #[must_use]
    pub fn new(keep: u64, start: u64) -> Self {
        Self {
            keep: keep.max(BLOCK),
            start,
        }
    }

    /// The log is `size` bytes long: the range `[from, to)` to drop now, if any (and `start`
    /// moves to `to`).
    pub fn after(&mut self, size: u64, short_of_room: bool) -> Option<(u64, u64)> {
        let keep = if short_of_room {
            self.keep.min(LOW_KEEP_BYTES)
        } else {
            self.keep
        };
        let step = (keep / 4).max(64 * 1024);
        if size.saturating_sub(self.start) < keep.saturating_add(step) {
            return None;
        }
        let to = (size - keep) / BLOCK * BLOCK;
        if to <= self.start {
            return None;
        }
        let from = self.start;
        self.start = to;
        Some((from, to))
    }
}

/// The first byte a log still holds: where its data starts past the hole its recorder punched
/// (0 for a log never trimmed; its size for one that is all hole).
#[must_use]
pub fn kept_from(f: &File) -> u64 {
    match rustix::fs::seek(f, rustix::fs::SeekFrom::Data(0)) {
        Ok(at) => at,
        // No data at all past 0: everything was dropped (or the log is empty).
        Err(rustix::io::Errno::NXIO) => f.metadata().map_or(0, |m| m.len()),
        Err(_) => 0,
    }
}

/// Where a recording's expiry cuts, without IO: told the timing records in file order from
/// the first kept one, it answers how much of the log and of the timing file to drop to be rid
/// of what was printed before `before_us`.
#[derive(Debug, Clone, Copy)]
pub struct Expiry {
    before_us: u64,
    /// The log's bytes printed before the cut end here.
    log_to: u64,
    /// The timing records before the cut, from the first kept one, end here.
    prefix_end: u64,
    prefix_open: bool,
    /// The latest grid before the cut: its time, its record's offset, its size.
    grid: Option<(u64, u64, u16, u16)>,
}

/// How far past the cut a timing file is read: its writers' records are each in time order
/// and apart by at most a group, so none before the cut comes this long after one past it.
const EXPIRY_SCAN_PAST_US: u64 = 60_000_000;

impl Expiry {
    /// An expiry of what was printed before `before_us`, of a timing file whose first kept
    /// record is at `timing_from`.
    #[must_use]
    pub fn new(before_us: u64, timing_from: u64) -> Self {
        Self {
            before_us,
            log_to: 0,
            prefix_end: timing_from,
            prefix_open: true,
            grid: None,
        }
    }

    /// The record `r`, stored at `offset`; `false` once no later record can be before the
    /// cut (the rest need not be read).
    pub fn record(&mut self, offset: u64, r: Record) -> bool {
        let at = r.at_us();
        if at >= self.before_us {
            self.prefix_open = false;
            return at < self.before_us.saturating_add(EXPIRY_SCAN_PAST_US);
        }
        match r {
            Record::Start { log_size: end, .. } | Record::Output { log_end: end, .. } => {
                self.log_to = self.log_to.max(end);
            }
            Record::Grid { cols, rows, .. } => {
                if self.grid.is_none_or(|(g, ..)| at >= g) {
                    self.grid = Some((at, offset, cols, rows));
                }
            }
        }
        if self.prefix_open {
            self.prefix_end = offset + RECORD_BYTES as u64;
        }
        true
    }

    /// Where the log's and the timing file's kept bytes are to start (whole blocks), and the
    /// grid record to write first when the one in force at the cut is dropped.
    #[must_use]
    pub fn cuts(&self) -> (u64, u64, Option<Record>) {
        let log_to = self.log_to / BLOCK * BLOCK;
        let timing_to = self.prefix_end / BLOCK * BLOCK;
        let grid =
            self.grid
                .filter(|&(_, offset, ..)| offset < timing_to)
                .map(|(_, _, cols, rows)| Record::Grid {
                    at_us: self.before_us,
                    cols,
                    rows,
                });
        (log_to, timing_to, grid)
    }
}

/// What [`expire`] left: where the log's and the timing file's kept bytes start, and how many
/// bytes it dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expired {
    /// The log's first kept byte.
    pub log_from: u64,
    /// The timing file's first kept byte.
    pub timing_from: u64,
    /// Bytes dropped from the two, this time.
    pub dropped_bytes: u64,
}

/// Drops what the pane whose log is `log` and timing file `timing` printed before `before_us`
/// (see the module's "Retention"). A missing log or timing file drops nothing; a file system
/// that cannot punch holes is an error.
pub fn expire(log: &Path, timing: &Path, before_us: u64) -> io::Result<Expired> {
    let open = |p: &Path| {
        OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).unwrap_or(0))
            .open(p)
    };
    let missing = |e: &io::Error| e.kind() == io::ErrorKind::NotFound;
    let log_file = match open(log) {
        Ok(f) => f,
        Err(e) if missing(&e) => {
            return Ok(Expired {
                log_from: 0,
                timing_from: 0,
                dropped_bytes: 0,
            });
        }
        Err(e) => return Err(e),
    };
    let log_from = kept_from(&log_file);
    let mut timing_file = match open(timing) {
        Ok(f) => f,
        Err(e) if missing(&e) => {
            return Ok(Expired {
                log_from,
                timing_from: 0,
                dropped_bytes: 0,
            });
        }
        Err(e) => return Err(e),
    };
    let timing_from = kept_from(&timing_file);
    let mut expiry = Expiry::new(before_us, timing_from);
    io::Seek::seek(&mut timing_file, io::SeekFrom::Start(timing_from))?;
    let mut chunk = vec![0u8; 64 * 1024];
    let mut offset = timing_from;
    'read: loop {
        let n = read_full(&mut timing_file, &mut chunk)?;
        for c in chunk[..n].chunks_exact(RECORD_BYTES) {
            let mut b = [0; RECORD_BYTES];
            b.copy_from_slice(c);
            // A record that is not one ends what can be read as a recording.
            let Some(r) = Record::decode(&b) else {
                break 'read;
            };
            if !expiry.record(offset, r) {
                break 'read;
            }
            offset += RECORD_BYTES as u64;
        }
        if n < chunk.len() {
            break;
        }
    }
    let (log_to, timing_to, grid) = expiry.cuts();
    if let Some(g) = grid {
        append(timing, g)?;
    }
    let mut dropped = 0;
    for (f, from, to) in [
        (&timing_file, timing_from, timing_to),
        (&log_file, log_from, log_to),
    ] {
        if to > from {
            punch(f, from, to)?;
            dropped += to - from;
        }
    }
    Ok(Expired {
        log_from: log_from.max(log_to),
        timing_from: timing_from.max(timing_to),
        dropped_bytes: dropped,
    })
}

/// Frees `[from, to)` of `f` in place (every offset stays what it was).
fn punch(f: &File, from: u64, to: u64) -> io::Result<()> {
    rustix::fs::fallocate(
        f,
        rustix::fs::FallocateFlags::PUNCH_HOLE | rustix::fs::FallocateFlags::KEEP_SIZE,
        from,
        to - from,
    )
    .map_err(io::Error::from)
}

/// Reads until `buf` is full or the file ends: how many bytes were read.
fn read_full(f: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match io::Read::read(f, &mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Whether the file system of directory `dir` frees a file's start in place (what keeps a log
/// to its cap without stopping it): tried on a scratch file there.
#[must_use]
pub fn can_punch_holes(dir: &Path) -> bool {
    let probe = dir.join(format!(".punch-probe-{}", std::process::id()));
    let punched = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&probe)
            .ok()?;
        f.write_all(&[1; 2 * BLOCK as usize]).ok()?;
        punch(&f, 0, BLOCK).ok()
    })()
    .is_some();
    let _ = std::fs::remove_file(&probe);
    punched
}

/// Whether the disk holding `f` has less than `reserve` bytes free for its user.
fn short_of_room(f: &File, reserve: u64) -> bool {
    rustix::fs::fstatvfs(f).is_ok_and(|s| s.f_bavail.saturating_mul(s.f_frsize) < reserve)
}

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
/// input to the log `log` as it comes, keeping it within `limits` (see the module's "The log's
/// cap"), and writes the timing records to `timing` (none when it is `None`). A write to the
/// log that fails ends it, as it ends `cat`; the timing file failing (a full disk, say) stops
/// only the timing, never the log the live terminals read.
pub fn record_pane(log: &Path, timing: Option<&Path>, limits: Limits) -> io::Result<()> {
    let mut out = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).unwrap_or(0))
        .open(log)?;
    let mut size = out.metadata()?.len();
    let mut trim = Trim::new(limits.keep_bytes, kept_from(&out));
    let mut low = short_of_room(&out, limits.reserve_bytes);
    let mut checked_at = size;
    // Set when the file system cannot punch holes: the log is kept to its cap by no longer
    // appending past it.
    let mut full = false;
    let mut timing = timing.and_then(|t| open_timing(t).ok());
    let mut timing_size = timing
        .as_ref()
        .and_then(|f| f.metadata().ok())
        .map_or(0, |m| m.len());
    let mut put = |r: Record| {
        if timing_size + RECORD_BYTES as u64 > MAX_TIMING_BYTES {
            timing = None;
        }
        if let Some(f) = &mut timing {
            if f.write_all(&r.encode()).is_err() {
                timing = None;
            }
            timing_size += RECORD_BYTES as u64;
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
        if full {
            // Read and dropped, so the pane never waits on a pipe nobody empties.
            continue;
        }
        out.write_all(&buf[..n])?;
        size += n as u64;
        if let Some(r) = grouping.read(now_us(), size) {
            put(r);
        }
        if size - checked_at >= FREE_CHECK_BYTES {
            checked_at = size;
            low = short_of_room(&out, limits.reserve_bytes);
        }
        if let Some((from, to)) = trim.after(size, low)
            && punch(&out, from, to).is_err()
        {
            full = true;
        }
    }
    if let Some(r) = grouping.close() {
        put(r);
    }
    Ok(())
}

/// The `record-pane` command line that logs (and, given `timing`, times) a pane into `log`
/// within `limits`, as [`main`] reads it.
#[must_use]
pub fn command_args(log: &Path, timing: Option<&Path>, limits: Limits) -> Vec<String> {
    let mut args = vec![
        "record-pane".to_owned(),
        "--keep".to_owned(),
        limits.keep_bytes.to_string(),
        "--reserve".to_owned(),
        limits.reserve_bytes.to_string(),
    ];
    match timing {
        Some(t) => args.extend([log, t].map(|p| p.to_string_lossy().into_owned())),
        None => args.extend(["--no-timing".to_owned(), log.to_string_lossy().into_owned()]),
    }
    args
}

/// `record-pane [--keep BYTES] [--reserve BYTES] [--no-timing] LOG [TIMING]`, the subcommand
/// of the node daemon and the plane that tmux's `pipe-pane` runs for each pane: [`record_pane`]
/// until the pane's output ends. Without TIMING (and without `--no-timing`) the timing file is
/// beside the log, as a pane launched by an earlier build expects.
#[must_use]
pub fn main(program: &str, args: &[String]) -> std::process::ExitCode {
    let usage = || {
        eprintln!(
            "usage: {program} record-pane [--keep BYTES] [--reserve BYTES] [--no-timing] LOG [TIMING]"
        );
        std::process::ExitCode::from(2)
    };
    let mut limits = Limits::default();
    let mut timed = true;
    let mut rest = args;
    loop {
        match rest {
            [flag, n, more @ ..] if flag == "--keep" || flag == "--reserve" => {
                let Ok(n) = n.parse::<u64>() else {
                    return usage();
                };
                if flag == "--keep" {
                    limits.keep_bytes = n;
                } else {
                    limits.reserve_bytes = n;
                }
                rest = more;
            }
            [flag, more @ ..] if flag == "--no-timing" => {
                timed = false;
                rest = more;
            }
            _ => break,
        }
    }
    let (log, timing) = match rest {
        [log, timing] if timed => (Path::new(log), Some(PathBuf::from(timing))),
        [log] if timed => (Path::new(log), Some(timing_path(Path::new(log)))),
        [log] => (Path::new(log), None),
        _ => return usage(),
    };
    match record_pane(log, timing.as_deref(), limits) {
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

    #[test]
    fn a_log_drops_its_oldest_bytes_in_steps_past_its_cap_and_keeps_less_when_the_disk_is_short() {
        const MIB: u64 = 1 << 20;
        let mut t = Trim::new(4 * MIB, 0);
        // Under the cap and its step (a quarter of it): nothing dropped.
        assert_eq!(t.after(4 * MIB, false), None);
        assert_eq!(t.after(5 * MIB - 1, false), None);
        // A step past it: the oldest bytes go, in whole blocks, down to the cap.
        let size = 5 * MIB + 1000;
        assert_eq!(t.after(size, false), Some((0, MIB)));
        assert_eq!(t.start, MIB);
        assert!(size - t.start >= 4 * MIB);
        assert_eq!(t.after(size + 10, false), None);
        // Short of room: down to the low keep at once.
        let (from, to) = t.after(size, true).unwrap();
        assert_eq!(from, MIB);
        assert_eq!(size - to, LOW_KEEP_BYTES + 1000);
        assert_eq!(to % BLOCK, 0);
        // A tiny cap is held to at least one block; the step is at least 64 KiB.
        let mut t = Trim::new(1, 0);
        assert_eq!(t.after(64 * 1024 + BLOCK - 1, false), None);
        assert_eq!(t.after(64 * 1024 + BLOCK, false), Some((0, 64 * 1024)));
    }

    #[test]
    fn a_flooding_pane_keeps_its_log_to_its_cap_on_disk_with_every_offset_unchanged() {
        let dir = termplane_test_support::TempDir::new("recorder-cap");
        let log = dir.path().join("p.log");
        let me = std::env::current_exe().unwrap();
        let mut child = std::process::Command::new(me)
            .args(["--exact", "recording::tests::recorder_child", "--nocapture"])
            .env("TERMPLANE_TEST_RECORDER_LOG", &log)
            .env("TERMPLANE_TEST_RECORDER_KEEP", "262144")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // 8 MiB, each byte telling its own offset (mod 251), the last line recognisable.
        let total: usize = 8 << 20;
        let data: Vec<u8> = (0..total).map(|i| (i % 251) as u8).collect();
        for piece in data.chunks(64 * 1024) {
            stdin.write_all(piece).unwrap();
        }
        drop(stdin);
        assert!(
            child.wait().unwrap().success(),
            "the recorder read all of it"
        );
        let f = File::open(&log).unwrap();
        let meta = f.metadata().unwrap();
        if !can_punch_holes(dir.path()) {
            // A file system that cannot free a file's start: the log stops at its cap instead
            // (a step past it at most, and the read that crossed it).
            assert!(
                meta.len() <= 262_144 + 65_536 + 128 * 1024,
                "{}",
                meta.len()
            );
            return;
        }
        // Every offset is where it was: the file's length is all that was printed.
        assert_eq!(meta.len(), total as u64);
        let start = kept_from(&f);
        assert!(start > 0, "the log was trimmed");
        let kept = total as u64 - start;
        assert!(
            (262_144..=262_144 + 65_536 + BLOCK).contains(&kept),
            "{kept} bytes kept"
        );
        // On disk, only what is kept (and a block or so of slack).
        use std::os::unix::fs::MetadataExt as _;
        assert!(
            meta.blocks() * 512 <= kept + 4 * BLOCK,
            "{} bytes on disk",
            meta.blocks() * 512
        );
        // What is kept is the pane's output, byte for byte, at its own offsets.
        let read = crate::read_range(&log, 0, 1 << 20).unwrap();
        assert_eq!(read["fromByte"], start);
        let bytes =
            termplane_proto::key::b64url_decode(read["data_b64"].as_str().unwrap()).unwrap();
        assert_eq!(bytes, &data[start as usize..]);
        // The timing covers the whole log, trimmed or not.
        let records = decode_all(&std::fs::read(timing_path(&log)).unwrap()).unwrap();
        assert!(
            matches!(records.last(), Some(Record::Output { log_end, .. }) if *log_end == total as u64)
        );
        // A new incarnation's recorder finds where the log starts.
        assert_eq!(Trim::new(262_144, kept_from(&f)).start, start);
    }

    #[test]
    fn an_expiry_cuts_the_log_after_the_last_output_before_its_time_and_keeps_the_grid_then() {
        // 600 outputs of 1 KiB, one a second from t = 1 s; the grid changes at 100.5 s; a
        // second writer's grid record comes in the file a little after a later output.
        let mut records = vec![
            Record::Start {
                at_us: 0,
                log_size: 0,
            },
            Record::Grid {
                at_us: 0,
                cols: 80,
                rows: 24,
            },
        ];
        for i in 1..=600u64 {
            records.push(Record::Output {
                at_us: i * 1_000_000,
                log_end: i * 1024,
            });
            if i == 101 {
                records.push(Record::Grid {
                    at_us: 100_500_000,
                    cols: 120,
                    rows: 40,
                });
            }
        }
        let cut_at = 550_500_000;
        let mut e = Expiry::new(cut_at, 0);
        let mut read = 0;
        for (i, r) in records.iter().enumerate() {
            read += 1;
            if !e.record(i as u64 * 16, *r) {
                break;
            }
        }
        // The whole file is within a minute of the cut: all of it was read.
        assert_eq!(read, records.len());
        let (log_to, timing_to, grid) = e.cuts();
        // What was printed up to 550 s ends at 550 KiB: the log is cut at the block at or
        // before it, never past a byte printed after the cut.
        assert_eq!(log_to, 550 * 1024 / BLOCK * BLOCK);
        // The records before the cut (553 of them) are dropped in whole blocks.
        assert_eq!(timing_to, 553 * 16 / BLOCK * BLOCK);
        assert!(timing_to > 0);
        // The grid in force at the cut (120x40) was in the dropped block: written again, timed
        // at the cut.
        assert_eq!(
            grid,
            Some(Record::Grid {
                at_us: cut_at,
                cols: 120,
                rows: 40
            })
        );
        // A cut before everything drops nothing; a record far past the cut ends the reading.
        let mut early = Expiry::new(1, 0);
        assert!(early.record(0, records[0]));
        assert!(!early.record(16, records[200]));
        assert_eq!(early.cuts(), (0, 0, None));
    }

    #[test]
    fn expiring_a_recording_frees_what_was_printed_before_its_time_and_plays_the_rest() {
        let dir = termplane_test_support::TempDir::new("recorder-expire");
        if !can_punch_holes(dir.path()) {
            // This file system cannot free a file's start: the node says so.
            let log = dir.path().join("p.log");
            std::fs::write(&log, [0u8; 8192]).unwrap();
            std::fs::write(timing_path(&log), []).unwrap();
            assert!(expire(&log, &timing_path(&log), 1).is_ok());
            return;
        }
        let log = dir.path().join("p.log");
        let timing = timing_path(&log);
        // Nothing to expire yet: no files.
        assert_eq!(
            expire(&log, &timing, u64::MAX).unwrap(),
            Expired {
                log_from: 0,
                timing_from: 0,
                dropped_bytes: 0
            }
        );
        // 64 KiB printed at t = 1 s .. 64 s (one KiB a second), 8 KiB more at 1000 s.
        let data: Vec<u8> = (0..72 * 1024).map(|i| (i % 251) as u8).collect();
        std::fs::write(&log, &data).unwrap();
        append(
            &timing,
            Record::Grid {
                at_us: 0,
                cols: 100,
                rows: 30,
            },
        )
        .unwrap();
        for i in 1..=64u64 {
            append(
                &timing,
                Record::Output {
                    at_us: i * 1_000_000,
                    log_end: i * 1024,
                },
            )
            .unwrap();
        }
        for _ in 0..300 {
            // Padding (output records of nothing more, at 400 s), so the records before the
            // cut fill a whole block.
            append(
                &timing,
                Record::Output {
                    at_us: 400_000_000,
                    log_end: 64 * 1024,
                },
            )
            .unwrap();
        }
        append(
            &timing,
            Record::Output {
                at_us: 1_000_000_000,
                log_end: 72 * 1024,
            },
        )
        .unwrap();
        let timing_len = std::fs::metadata(&timing).unwrap().len();
        // Keep what was printed from 500 s on.
        let e = expire(&log, &timing, 500_000_000).unwrap();
        assert_eq!(e.log_from, 64 * 1024);
        let before_cut = (1 + 64 + 300) * 16;
        assert_eq!(e.timing_from, before_cut / BLOCK * BLOCK);
        assert_eq!(e.dropped_bytes, e.log_from + e.timing_from);
        // The log answers from the first byte printed after the cut, at its own offset.
        let read = crate::read_range(&log, 0, 1 << 20).unwrap();
        assert_eq!(read["fromByte"], 64 * 1024);
        let bytes =
            termplane_proto::key::b64url_decode(read["data_b64"].as_str().unwrap()).unwrap();
        assert_eq!(bytes, &data[64 * 1024..]);
        // The timing file answers from its first kept record; every record there is one, and
        // the grid in force at the cut (dropped with its block) was written again, at the cut.
        let read = crate::read_range(&timing, 0, 1 << 20).unwrap();
        assert_eq!(read["fromByte"], e.timing_from);
        let kept = decode_all(
            &termplane_proto::key::b64url_decode(read["data_b64"].as_str().unwrap()).unwrap(),
        )
        .unwrap();
        assert_eq!(
            kept.last(),
            Some(&Record::Grid {
                at_us: 500_000_000,
                cols: 100,
                rows: 30
            })
        );
        assert!(kept.contains(&Record::Output {
            at_us: 1_000_000_000,
            log_end: 72 * 1024
        }));
        assert_eq!(read["size"], timing_len + 16);
        // On disk, the dropped blocks are freed.
        use std::os::unix::fs::MetadataExt as _;
        let on_disk = std::fs::metadata(&log).unwrap().blocks() * 512;
        assert!(
            on_disk <= 8 * 1024 + BLOCK,
            "{on_disk} bytes of log on disk"
        );
        // Expiring again at the same time drops nothing more, and writes no second grid.
        let again = expire(&log, &timing, 500_000_000).unwrap();
        assert_eq!(again.dropped_bytes, 0);
        assert_eq!(again.log_from, e.log_from);
        assert_eq!(std::fs::metadata(&timing).unwrap().len(), timing_len + 16);
    }

    /// Not a test on its own: the recorder process of the test above (it does nothing unless
    /// that test started it).
    #[test]
    fn recorder_child() {
        if let Some(log) = std::env::var_os("TERMPLANE_TEST_RECORDER_LOG") {
            let log = Path::new(&log);
            let keep = std::env::var("TERMPLANE_TEST_RECORDER_KEEP")
                .map_or(Limits::default().keep_bytes, |k| k.parse().unwrap());
            let limits = Limits {
                keep_bytes: keep,
                ..Limits::default()
            };
            record_pane(log, Some(&timing_path(log)), limits).unwrap();
        }
    }
}
