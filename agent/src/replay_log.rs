//! The replay guard across restarts: every command's jti, digest and `iat`, written before the
//! command runs and read back by the next process of this node.
//!
//! The jti cache of the link lives in memory and dies with the process. A command issued less
//! than the 5-second skew before a new process started would pass that process's
//! process-start watermark; without this file, a plane (or anyone holding a captured envelope)
//! re-sending it as the next seq of the new socket would run it a second time. With it, the new
//! process answers the command with `already received by an earlier node process` and never
//! runs it.
//!
//! File: `<dataDir>/replay-guard`, mode 0600, one line per admitted command,
//! `<iat> <jti> <sha256 of the signing input, 64 hex>`. A line is appended before the command is
//! executed; a command whose line cannot be written is not executed. Lines are not fsynced: a
//! restart that loses the page cache is a machine restart, and a machine comes back long after
//! the 35 seconds for which an envelope can still verify. At start the file is read, entries
//! that can no longer verify are dropped and the rest are written back; while running it is
//! compacted the same way whenever it grows past [`COMPACT_AFTER`] lines.
//!
//! A file that exists but cannot be read makes [`ReplayLog::open`] fail; the caller then
//! refuses every command issued before the process started (no skew allowance), which closes
//! the window at the cost of a few refusals.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use termplane_machines::replay::ReplayRecord;
use termplane_proto::limits::{CLOCK_SKEW, COMMAND_LIFETIME};

/// File name under the data directory.
pub const FILE_NAME: &str = "replay-guard";

/// Lines written before the file is compacted.
pub const COMPACT_AFTER: usize = 8_192;

/// Bytes set aside on disk past the end of the file whenever it is opened for appending, more
/// than [`COMPACT_AFTER`] lines take: a disk that fills up (a pane writing without end, say)
/// then does not keep the node from recording, and so from running, the commands that would
/// end it. Best effort: a disk already full when the file is opened gets no reserve.
pub const RESERVE_BYTES: u64 = 1 << 20;

/// Opens `path` for appending (created 0600) with [`RESERVE_BYTES`] allocated past its end.
fn open_appender(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(path)?;
    let len = file.metadata()?.len();
    // `KEEP_SIZE`: the blocks are the file's, its length is unchanged, so readers and the
    // appends that fill them see nothing else.
    let _ = rustix::fs::fallocate(
        &file,
        rustix::fs::FallocateFlags::KEEP_SIZE,
        len,
        RESERVE_BYTES,
    );
    Ok(file)
}

/// Seconds after its `iat` for which an envelope can still verify (`exp` at most 30 s later,
/// plus the skew).
fn window() -> i64 {
    i64::try_from((COMMAND_LIFETIME + CLOCK_SKEW).as_secs()).unwrap_or(i64::MAX)
}

/// The log of one node's data directory.
#[derive(Debug)]
pub struct ReplayLog {
    path: PathBuf,
    state: Mutex<Appender>,
}

/// Lines in the file, and the file held open for appending (opened on the first append after
/// each start or compaction, since a compaction replaces the file).
#[derive(Debug)]
struct Appender {
    lines: usize,
    file: Option<std::fs::File>,
}

fn hex(bytes: &[u8]) -> String {
    termplane_exec::util::hex(bytes)
}

fn parse_line(line: &str) -> Option<ReplayRecord> {
    let mut f = line.split(' ');
    let (Some(iat), Some(jti), Some(digest), None) = (f.next(), f.next(), f.next(), f.next())
    else {
        return None;
    };
    let iat: i64 = iat.parse().ok()?;
    if jti.is_empty()
        || jti.len() > termplane_proto::limits::MAX_JTI_BYTES
        || !jti
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        || digest.len() != 64
    {
        return None;
    }
    let mut d = [0u8; 32];
    for (i, out) in d.iter_mut().enumerate() {
        *out = u8::from_str_radix(digest.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(ReplayRecord {
        jti: jti.to_owned(),
        digest: d,
        iat,
    })
}

fn line_of(r: &ReplayRecord) -> String {
    format!("{} {} {}\n", r.iat, r.jti, hex(&r.digest))
}

impl ReplayLog {
    /// Opens the log of `data_dir` at wall time `now` (seconds): answers the log and the records
    /// that can still verify, and rewrites the file with only those.
    pub fn open(data_dir: &Path, now: i64) -> Result<(Self, Vec<ReplayRecord>), String> {
        let path = data_dir.join(FILE_NAME);
        let text = match std::fs::read(&path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let live: Vec<ReplayRecord> = text
            .lines()
            .filter_map(parse_line)
            .filter(|r| r.iat.saturating_add(window()) >= now)
            .collect();
        let body: String = live.iter().map(line_of).collect();
        termplane_exec::fs::write_private_atomic(&path, body.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        // Opened now, so its reserve is taken while the disk has room.
        let file = open_appender(&path).ok();
        let log = Self {
            path,
            state: Mutex::new(Appender {
                lines: live.len(),
                file,
            }),
        };
        Ok((log, live))
    }

    /// Appends `record` (before its command runs); `now` is wall time in seconds, used when the
    /// file is compacted.
    ///
    /// The file stays open between appends (one `write` per command on the keystroke path);
    /// a compaction writes a new file in its place, so the handle is dropped and the next
    /// append opens the new one. A failed write drops it too: the next append starts afresh.
    pub fn append(&self, record: &ReplayRecord, now: i64) -> Result<(), String> {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if state.lines >= COMPACT_AFTER {
            state.file = None;
            let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
            let (_, live) = Self::open(dir, now)?;
            state.lines = live.len();
        }
        let failed = |e: std::io::Error| format!("{}: {e}", self.path.display());
        let file = match &mut state.file {
            Some(f) => f,
            empty => empty.insert(open_appender(&self.path).map_err(failed)?),
        };
        if let Err(e) = file.write_all(line_of(record).as_bytes()) {
            state.file = None;
            return Err(failed(e));
        }
        state.lines += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tp-replay-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn rec(jti: &str, iat: i64) -> ReplayRecord {
        ReplayRecord {
            jti: jti.into(),
            digest: [0xab; 32],
            iat,
        }
    }

    /// A tmpfs of `bytes` on `dir`, unmounted when dropped.
    struct Mounted(PathBuf);
    impl Drop for Mounted {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount")
                .arg("-l")
                .arg(&self.0)
                .status();
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A disk that fills up after the node started (a pane writing without end) still takes
    /// the records of the commands that would end it: the file's reserve holds them.
    #[test]
    fn a_disk_that_fills_up_after_the_start_still_takes_records() {
        let d = tmp("full");
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
            .arg(&d)
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI: this test mounts a tmpfs (run as root)"
            );
            return;
        }
        let _guard = Mounted(d.clone());
        let (log, _) = ReplayLog::open(&d, 1000).unwrap();
        let mut filler = std::fs::File::create(d.join("filler")).unwrap();
        let chunk = vec![0_u8; 64 * 1024];
        loop {
            match filler.write(&chunk) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::StorageFull => break,
                Err(e) => panic!("{e}"),
            }
        }
        assert!(
            std::fs::write(d.join("probe"), [1_u8; 4096]).is_err(),
            "the disk is full"
        );
        for i in 0..2_000 {
            log.append(&rec(&format!("j{i}"), 1000), 1000)
                .unwrap_or_else(|e| panic!("record {i}: {e}"));
        }
        let text = std::fs::read_to_string(d.join(FILE_NAME)).unwrap();
        assert_eq!(text.lines().count(), 2_000);
    }

    #[test]
    fn records_survive_a_reopen_until_they_can_no_longer_verify() {
        let d = tmp("survive");
        let (log, none) = ReplayLog::open(&d, 1000).unwrap();
        assert!(none.is_empty());
        log.append(&rec("a", 990), 1000).unwrap();
        log.append(&rec("b", 1000), 1000).unwrap();
        let (_, back) = ReplayLog::open(&d, 1003).unwrap();
        assert_eq!(back, vec![rec("a", 990), rec("b", 1000)]);
        // 35 s after its iat an envelope cannot verify any more: its record goes.
        let (_, back) = ReplayLog::open(&d, 1026).unwrap();
        assert_eq!(back, vec![rec("b", 1000)]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn appends_after_a_compaction_land_in_the_new_file() {
        let d = tmp("compact");
        let (log, _) = ReplayLog::open(&d, 1000).unwrap();
        // A full file of records too old to verify at the time of the next append.
        for i in 0..COMPACT_AFTER {
            log.append(&rec(&format!("old{i}"), 900), 900).unwrap();
        }
        log.append(&rec("new1", 1000), 1000).unwrap();
        log.append(&rec("new2", 1000), 1000).unwrap();
        let text = std::fs::read_to_string(d.join(FILE_NAME)).unwrap();
        assert_eq!(
            text,
            format!(
                "{}{}",
                line_of(&rec("new1", 1000)),
                line_of(&rec("new2", 1000))
            )
        );
        let (_, back) = ReplayLog::open(&d, 1001).unwrap();
        assert_eq!(back, vec![rec("new1", 1000), rec("new2", 1000)]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn damaged_lines_are_skipped_and_the_file_is_private() {
        use std::os::unix::fs::PermissionsExt as _;
        let d = tmp("damaged");
        let good = line_of(&rec("ok", 100));
        std::fs::write(
            d.join(FILE_NAME),
            format!("garbage\n1 a/b {}\n{good}100 x zz\n", "0".repeat(64)),
        )
        .unwrap();
        let (_, back) = ReplayLog::open(&d, 100).unwrap();
        assert_eq!(back, vec![rec("ok", 100)]);
        let mode = std::fs::metadata(d.join(FILE_NAME))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let _ = std::fs::remove_dir_all(&d);
    }
}
