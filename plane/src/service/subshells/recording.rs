//! A pane's recording through the API: the node's timing records (`timing_read`, see
//! `termplane_proto::recording`) laid over the pane's log, exported as asciicast v2.
//!
//! An export is built in memory from the whole log and timing, so it is bounded: a log over
//! [`MAX_CAST_LOG_BYTES`] or a timing file over [`MAX_CAST_TIMING_BYTES`] is refused with 413
//! `RECORDING_TOO_LARGE` before anything is read. The log is read in the node's pieces and
//! turned into events as it comes, so an export holds one piece of the log and the cast it is
//! writing, never the log and the cast at once.
//!
//! # The asciicast
//! One header line `{ "version": 2, "width", "height", "timestamp", "title" }` (the grid the
//! recording starts on; the start in Unix seconds), then one line per event: `[seconds, "o",
//! text]` for output, `[seconds, "r", "COLSxROWS"]` for a resize and `[seconds, "m", "restarted"]`
//! (a marker) where a new incarnation of the pane starts, seconds counted from the recording's
//! first record. Output is text: a UTF-8 sequence cut between two records is kept
//! whole in the later event, and bytes that are not UTF-8 become U+FFFD (asciicast carries
//! JSON strings). Bytes of the log the timing does not cover — printed before the pane was
//! recorded (a pane launched on an older node), or after its recorder stopped — come at the time
//! of the record after them, or of the last record; a log with no timing at all is one event at
//! 0 s. A timing file holding a record that is not one (damaged) is read up to it: the cast plays
//! what it timed, marks `timing damaged` where it stops, and plays the rest of the log untimed
//! (the plane logs a warning); a recording is never refused for its timing.

use serde_json::json;
use termplane_proto::SubshellId;
use termplane_proto::command::{Command, LogRead, RECORDING};
use termplane_proto::recording::{RECORD_BYTES, Record, decode_all};

use super::*;

/// The largest log an export reads.
const MAX_CAST_LOG_BYTES: u64 = 16 * 1024 * 1024;
/// The largest timing file an export reads (a million records: 28 hours of a pane printing
/// without pause).
const MAX_CAST_TIMING_BYTES: u64 = 16 * 1024 * 1024;
/// Bytes asked of the node per read (the node's cap on one read, 512 KiB), a whole number
/// of records.
const PIECE_BYTES: u32 = 512 * 1024;

/// An asciicast v2 file, built from a log and its timing records.
#[derive(Debug)]
pub struct CastWriter {
    out: Vec<u8>,
    /// Events in time order: `(at_us, event)`, the output ones by where they end in the log.
    plan: Vec<(u64, Planned)>,
    next: usize,
    start_us: u64,
    /// Log bytes written out so far (the log's offset of the next byte).
    pos: u64,
    /// The start of a UTF-8 sequence cut at the end of the last piece.
    carry: Vec<u8>,
    /// The time of the last event written (a later event never goes back before it).
    last_us: u64,
    /// The grid the player has (a grid record of the same size is not an event).
    grid: (u16, u16),
    /// Whether an incarnation's start has been passed (the later ones are markers).
    seen_start: bool,
    /// Whether the timing stopped at a record that is not one: `Some(marked)` (the marker
    /// `timing damaged` is written where the readable records end, once).
    damaged: Option<bool>,
}

#[derive(Clone, Copy, Debug)]
enum Planned {
    /// Output up to this log offset.
    Upto(u64),
    /// An incarnation's start, the log being this long then.
    Start(u64),
    /// A grid.
    Grid(u16, u16),
}

impl CastWriter {
    /// A cast of the records `records` (in file order), titled `title`, whose grid is
    /// `fallback` until a grid record says otherwise, of a log whose first kept byte is
    /// `log_start` (the bytes before it were dropped to keep the log within its cap: the cast
    /// starts with the first output after them, marked `recording truncated`).
    #[must_use]
    pub fn new(records: &[Record], title: &str, fallback: (u16, u16), log_start: u64) -> Self {
        let mut timed: Vec<(u64, Planned)> = records
            .iter()
            .filter_map(|r| match *r {
                Record::Start { at_us, log_size } => Some((at_us, Planned::Start(log_size))),
                Record::Output { at_us, log_end } => Some((at_us, Planned::Upto(log_end))),
                // A grid with no cells is no grid a player can take (a node never records one).
                Record::Grid { cols: 0, .. } | Record::Grid { rows: 0, .. } => None,
                Record::Grid { at_us, cols, rows } => Some((at_us, Planned::Grid(cols, rows))),
            })
            .collect();
        // Each writer's records are in time order, the file's are not: ordered by time,
        // keeping the file's order between equal times.
        timed.sort_by_key(|(at, _)| *at);
        if log_start > 0 {
            // What was printed before the first kept byte is gone, and its time with it: the
            // cast starts where the first output past it does, on the grid the pane had then.
            let first = timed.iter().position(
                |(_, p)| matches!(p, Planned::Upto(u) | Planned::Start(u) if *u > log_start),
            );
            let cut = first.unwrap_or(timed.len());
            let at = timed.get(cut).map_or(0, |(at, _)| *at);
            let grid = timed[..cut]
                .iter()
                .rev()
                .find(|(_, p)| matches!(p, Planned::Grid(..)))
                .map(|(_, p)| (at, *p));
            timed.drain(..cut);
            if let Some(g) = grid {
                timed.insert(0, g);
            }
        }
        // The cast's clock starts at the whole second its header's `timestamp` names, so an
        // event's time plus the timestamp is its time of day to the millisecond (what the
        // playback lays input marks and audit entries on), not up to a second early.
        let start_us = timed.first().map_or(0, |(at, _)| *at) / 1_000_000 * 1_000_000;
        let (cols, rows) = timed
            .iter()
            .find_map(|(_, p)| match p {
                Planned::Grid(c, r) => Some((*c, *r)),
                Planned::Upto(_) | Planned::Start(_) => None,
            })
            .unwrap_or(fallback);
        let header = json!({
            "version": 2,
            "width": cols,
            "height": rows,
            "timestamp": start_us / 1_000_000,
            "title": title,
        });
        let mut out = header.to_string().into_bytes();
        out.push(b'\n');
        if log_start > 0 {
            out.extend_from_slice(
                json!([0.0, "m", "recording truncated"])
                    .to_string()
                    .as_bytes(),
            );
            out.push(b'\n');
        }
        Self {
            out,
            plan: timed,
            next: 0,
            start_us,
            pos: log_start,
            carry: Vec::new(),
            last_us: start_us,
            grid: (cols, rows),
            // Past a cut, every start kept is a restart.
            seen_start: log_start > 0,
            damaged: None,
        }
    }

    /// The records given were the readable ones before a damaged record: the cast says so
    /// where they end (`[t, "m", "timing damaged"]`), and plays the rest of the log untimed.
    #[must_use]
    pub fn damaged(mut self) -> Self {
        self.damaged = Some(false);
        self
    }

    fn mark_damage(&mut self) {
        if self.damaged == Some(false) {
            self.damaged = Some(true);
            let t = self.seconds(self.last_us);
            self.line(&json!([t, "m", "timing damaged"]));
        }
    }

    /// The log's next piece, `bytes` from offset `from` (pieces come in order, from 0).
    pub fn piece(&mut self, from: u64, bytes: &[u8]) {
        let end = from + bytes.len() as u64;
        while let Some(&(at, planned)) = self.plan.get(self.next) {
            match planned {
                Planned::Grid(cols, rows) => self.resize(at, cols, rows),
                Planned::Upto(upto) | Planned::Start(upto) => {
                    if upto > end {
                        // Waits for the log's next piece; what this one holds goes now.
                        let here = self.take(from, bytes, end);
                        self.output(at, &here);
                        return;
                    }
                    let here = self.take(from, bytes, upto);
                    self.output(at, &here);
                }
            }
            if let Planned::Start(_) = planned {
                self.started(at);
            }
            self.next += 1;
        }
        // Past the last record: the rest at the last record's time.
        self.mark_damage();
        let here = self.take(from, bytes, end);
        let at = self.last_us;
        self.output(at, &here);
    }

    /// The cast, once every piece of the log has been given.
    #[must_use]
    pub fn finish(mut self) -> Vec<u8> {
        // Grids after the log's end still count; output records past it have nothing to show.
        while let Some(&(at, planned)) = self.plan.get(self.next) {
            match planned {
                Planned::Grid(cols, rows) => self.resize(at, cols, rows),
                Planned::Start(_) => self.started(at),
                Planned::Upto(_) => {}
            }
            self.next += 1;
        }
        self.mark_damage();
        if !self.carry.is_empty() {
            let rest = String::from_utf8_lossy(&self.carry).into_owned();
            let t = self.seconds(self.last_us);
            self.line(&json!([t, "o", rest]));
        }
        self.out
    }

    /// The bytes of the piece (`bytes` from `from`) between the writer's position and `upto`.
    fn take(&mut self, from: u64, bytes: &[u8], upto: u64) -> Vec<u8> {
        let a = usize::try_from(self.pos.saturating_sub(from)).unwrap_or(usize::MAX);
        let b = usize::try_from(upto.saturating_sub(from)).unwrap_or(usize::MAX);
        let (a, b) = (a.min(bytes.len()), b.min(bytes.len()));
        if b <= a {
            return Vec::new();
        }
        self.pos = from + b as u64;
        bytes[a..b].to_vec()
    }

    /// An output event of `bytes` at `at_us`, its text cut before a UTF-8 sequence the bytes
    /// end inside of (kept for the next event).
    fn output(&mut self, at_us: u64, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let mut all = std::mem::take(&mut self.carry);
        all.extend_from_slice(bytes);
        let cut = unfinished_tail(&all);
        self.carry = all.split_off(all.len() - cut);
        if all.is_empty() {
            return;
        }
        let text = String::from_utf8_lossy(&all).into_owned();
        let t = self.seconds(at_us);
        self.line(&json!([t, "o", text]));
    }

    /// A marker at `at_us` for an incarnation's start, unless it is the recording's first.
    fn started(&mut self, at_us: u64) {
        if !self.seen_start {
            self.seen_start = true;
            return;
        }
        let t = self.seconds(at_us);
        self.line(&json!([t, "m", "restarted"]));
    }

    /// A resize event at `at_us`, unless the grid is that already.
    fn resize(&mut self, at_us: u64, cols: u16, rows: u16) {
        if self.grid == (cols, rows) {
            return;
        }
        self.grid = (cols, rows);
        let t = self.seconds(at_us);
        self.line(&json!([t, "r", format!("{cols}x{rows}")]));
    }

    /// Seconds from the recording's start to `at_us`, never before the last event's.
    fn seconds(&mut self, at_us: u64) -> f64 {
        self.last_us = self.last_us.max(at_us);
        // Microseconds to seconds: exact to the microsecond for any recording shorter than
        // a century.
        #[allow(clippy::cast_precision_loss)]
        let s = (self.last_us - self.start_us) as f64 / 1e6;
        s
    }

    fn line(&mut self, v: &serde_json::Value) {
        self.out.extend_from_slice(v.to_string().as_bytes());
        self.out.push(b'\n');
    }
}

/// How many bytes at the end of `b` are the start of a UTF-8 sequence not finished yet (0 to
/// 3): the rest decodes (or is not UTF-8 whatever follows).
fn unfinished_tail(b: &[u8]) -> usize {
    for back in 1..=3.min(b.len()) {
        let lead = b[b.len() - back];
        if lead & 0xC0 == 0x80 {
            continue;
        }
        let need = match lead {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return 0,
        };
        return if need > back { back } else { 0 };
    }
    0
}

impl PaneIo {
    /// `GET /api/subshells/:id/recording/cast`: the pane's whole recording as asciicast v2,
    /// and the subshell's name (the file is saved under it).
    pub async fn recording_cast(
        &self,
        c: &Caller,
        id: &str,
    ) -> Result<(Vec<u8>, String), ApiError> {
        let row = self.lookup.reach_subshell(c, id, Need::Read).await?;
        if !self.dispatcher.node_can(&row.node_id, RECORDING).await {
            return Err(ApiError::new(
                409,
                "RECORDING_UNSUPPORTED",
                "the pane's node does not record its panes: update the node",
            ));
        }
        let sid = SubshellId::parse(&row.id).map_err(|_| ApiError::internal())?;
        let read = |timing: bool, from: u64| {
            let l = LogRead {
                subshell_id: sid.clone(),
                from_byte: from,
                max_bytes: PIECE_BYTES,
            };
            let command = if timing {
                Command::TimingRead(l)
            } else {
                Command::LogRead(l)
            };
            self.read_piece(&row.node_id, command)
        };
        // The timing first, whole, from its first kept record (a retention drops the oldest,
        // in whole blocks of records); then the log, piece by piece, into the cast.
        let (first, size, start) = read(true, 0).await?;
        too_large(size.saturating_sub(start), MAX_CAST_TIMING_BYTES, "timing")?;
        let mut at = start + first.len() as u64;
        let mut timing = first;
        while at < size {
            let (more, _, from) = read(true, at).await?;
            if more.is_empty() {
                break;
            }
            // Records dropped meanwhile are skipped: a record never spans two pieces.
            at = from.max(at) + more.len() as u64;
            timing.extend(more);
        }
        // A record that is not one (a damaged file) ends the timing there: what comes before it
        // is played as recorded, the rest of the log untimed, the cast marked where it stops.
        let (records, damaged) = match decode_all(&timing) {
            Ok(r) => (r, false),
            Err(at) => {
                tracing::warn!(subshell = %row.id, at_byte = at, "a pane's timing file holds a record that is not one: the recording is played untimed from there");
                (decode_all(&timing[..at]).unwrap_or_default(), true)
            }
        };
        let fallback = (
            u16::try_from(row.cols).unwrap_or(DEFAULT_COLS),
            u16::try_from(row.rows).unwrap_or(DEFAULT_ROWS),
        );
        // The node answers from the log's first kept byte (a log past its cap lost its start).
        let (piece, size, start) = read(false, 0).await?;
        too_large(size.saturating_sub(start), MAX_CAST_LOG_BYTES, "log")?;
        let mut cast = CastWriter::new(&records, &row.name, fallback, start);
        if damaged {
            cast = cast.damaged();
        }
        let mut from = start;
        let mut piece = piece;
        loop {
            if piece.is_empty() {
                break;
            }
            cast.piece(from, &piece);
            from += piece.len() as u64;
            if from >= size {
                break;
            }
            // A log trimmed meanwhile answers from its new first byte: what is skipped is gone.
            let (next, _, at) = read(false, from).await?;
            from = from.max(at);
            piece = next;
        }
        Ok((cast.finish(), row.name))
    }

    /// One `log_read` or `timing_read`: its bytes, the file's size and where the bytes start.
    async fn read_piece(
        &self,
        node_id: &str,
        command: Command,
    ) -> Result<(Vec<u8>, u64, u64), ApiError> {
        let d = node_data(self.dispatcher.node_command(node_id, command).await?)?;
        let number = |k: &str| d.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
        let bytes = super::io::read_bytes(&d)?;
        Ok((bytes, number("size"), number("fromByte")))
    }
}

fn too_large(size: u64, max: u64, what: &str) -> Result<(), ApiError> {
    if size <= max {
        return Ok(());
    }
    Err(ApiError::new(
        413,
        "RECORDING_TOO_LARGE",
        format!("the recording's {what} is {size} bytes; an export reads at most {max}"),
    )
    .with_metadata(json!({ "bytes": size, "maxBytes": max })))
}

// A whole number of records per piece, so a piece never ends inside one.
const _: () = assert!((PIECE_BYTES as usize).is_multiple_of(RECORD_BYTES));

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn parse(cast: &[u8]) -> (serde_json::Value, Vec<serde_json::Value>) {
        let text = std::str::from_utf8(cast).unwrap();
        let mut lines = text.lines().map(|l| serde_json::from_str(l).unwrap());
        let header = lines.next().unwrap();
        (header, lines.collect())
    }

    fn output(events: &[serde_json::Value]) -> String {
        events
            .iter()
            .filter(|e| e[1] == "o")
            .map(|e| e[2].as_str().unwrap())
            .collect()
    }

    #[test]
    fn a_cast_plays_the_log_at_its_records_times_in_any_pieces() {
        let s = 1_700_000_000_000_000;
        let log = "héllo\r\nwörld\r\n€ end".as_bytes();
        let records = [
            Record::Grid {
                at_us: s,
                cols: 80,
                rows: 24,
            },
            Record::Start {
                at_us: s + 10,
                log_size: 0,
            },
            // Written after the grid that follows it in time.
            Record::Grid {
                at_us: s + 2_500_000,
                cols: 100,
                rows: 30,
            },
            Record::Output {
                at_us: s + 1_000_000,
                log_end: 2, // inside the two bytes of é
            },
            Record::Output {
                at_us: s + 2_000_000,
                log_end: 15,
            },
            Record::Output {
                at_us: s + 3_000_000,
                log_end: log.len() as u64,
            },
        ];
        for piece in [1, 2, 3, 7, log.len()] {
            let mut w = CastWriter::new(&records, "pane", (120, 36), 0);
            for (i, chunk) in log.chunks(piece).enumerate() {
                w.piece((i * piece) as u64, chunk);
            }
            let (header, events) = parse(&w.finish());
            assert_eq!(header["version"], 2);
            assert_eq!(
                (header["width"].clone(), header["height"].clone()),
                (json!(80), json!(24))
            );
            assert_eq!(header["timestamp"], 1_700_000_000);
            assert_eq!(header["title"], "pane");
            assert_eq!(
                output(&events),
                "héllo\r\nwörld\r\n€ end",
                "pieces of {piece}"
            );
            let times: Vec<f64> = events.iter().map(|e| e[0].as_f64().unwrap()).collect();
            assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
            let resize: Vec<_> = events.iter().filter(|e| e[1] == "r").collect();
            assert_eq!(resize.len(), 1);
            assert_eq!(resize[0][0], 2.5);
            assert_eq!(resize[0][2], "100x30");
            // "wörld" is out by the record of 2 s, " end" only with the one of 3 s.
            let at = |needle: &str| {
                let mut so_far = String::new();
                events.iter().filter(|e| e[1] == "o").find_map(|e| {
                    so_far.push_str(e[2].as_str().unwrap());
                    so_far.contains(needle).then(|| e[0].as_f64().unwrap())
                })
            };
            // The record of 1 s ends inside é: "h" then, é whole with the next.
            assert_eq!(at("h"), Some(1.0), "{events:?}");
            assert_eq!(at("hé"), Some(2.0), "{events:?}");
            assert_eq!(at("wörld"), Some(2.0), "{events:?}");
            assert_eq!(at(" end"), Some(3.0), "{events:?}");
        }
    }

    #[test]
    fn a_casts_clock_starts_at_its_timestamps_whole_second() {
        // The first record is 0.37 s into a second: its event is at 0.37, so the header's
        // timestamp plus an event's time is the event's time of day to the millisecond.
        let s = 1_700_000_000_370_000;
        let records = [
            Record::Start {
                at_us: s,
                log_size: 0,
            },
            Record::Output {
                at_us: s + 1_250_000,
                log_end: 2,
            },
        ];
        let mut w = CastWriter::new(&records, "t", (80, 24), 0);
        w.piece(0, b"ok");
        let (header, events) = parse(&w.finish());
        assert_eq!(header["timestamp"], 1_700_000_000);
        assert_eq!(events, [json!([1.62, "o", "ok"])]);
    }

    #[test]
    fn a_log_without_timing_is_one_event_and_bytes_past_the_records_come_last() {
        let mut w = CastWriter::new(&[], "old", (90, 20), 0);
        w.piece(0, b"all of it");
        let (header, events) = parse(&w.finish());
        assert_eq!(
            (header["width"].clone(), header["height"].clone()),
            (json!(90), json!(20))
        );
        assert_eq!(events, [json!([0.0, "o", "all of it"])]);

        let records = [Record::Output {
            at_us: 5_000_000,
            log_end: 3,
        }];
        let mut w = CastWriter::new(&records, "t", (80, 24), 0);
        w.piece(0, b"abcdef\xff");
        let (_, events) = parse(&w.finish());
        assert_eq!(output(&events), "abcdef\u{fffd}");
        assert!(events.iter().all(|e| e[0] == 0.0), "{events:?}");
    }

    #[test]
    fn a_restart_is_a_marker_where_its_incarnation_starts_and_the_first_start_is_not() {
        let records = [
            Record::Start {
                at_us: 1_000_000,
                log_size: 0,
            },
            Record::Output {
                at_us: 1_500_000,
                log_end: 3,
            },
            Record::Start {
                at_us: 4_000_000,
                log_size: 3,
            },
            Record::Output {
                at_us: 4_250_000,
                log_end: 6,
            },
            // A restart whose output never came, past the log's end.
            Record::Start {
                at_us: 9_000_000,
                log_size: 6,
            },
        ];
        for cut in 0..=6 {
            let mut w = CastWriter::new(&records, "t", (80, 24), 0);
            let log = b"onetwo";
            w.piece(0, &log[..cut]);
            w.piece(cut as u64, &log[cut..]);
            let (_, events) = parse(&w.finish());
            let marks: Vec<_> = events.iter().filter(|e| e[1] == "m").collect();
            assert_eq!(
                marks,
                [
                    &json!([3.0, "m", "restarted"]),
                    &json!([8.0, "m", "restarted"])
                ],
                "cut at {cut}: {events:?}"
            );
            assert_eq!(output(&events), "onetwo");
            // The second incarnation's output comes after its marker.
            let mark = events
                .iter()
                .position(|e| e == &json!([3.0, "m", "restarted"]));
            let two = events.iter().position(|e| e[0] == 3.25 && e[1] == "o");
            assert!(mark.unwrap() < two.unwrap(), "{events:?}");
        }
    }

    #[test]
    fn a_log_that_lost_its_start_plays_from_its_first_kept_byte_marked_truncated() {
        let records = [
            Record::Start {
                at_us: 1_000_000,
                log_size: 0,
            },
            Record::Grid {
                at_us: 1_000_000,
                cols: 100,
                rows: 30,
            },
            Record::Output {
                at_us: 2_000_000,
                log_end: 4,
            },
            Record::Grid {
                at_us: 3_000_000,
                cols: 60,
                rows: 20,
            },
            Record::Output {
                at_us: 5_000_000,
                log_end: 10,
            },
            Record::Start {
                at_us: 7_000_000,
                log_size: 10,
            },
            Record::Output {
                at_us: 7_500_000,
                log_end: 14,
            },
        ];
        // The log's first 6 bytes were dropped: the cast starts with the output they were part
        // of, on the grid the pane had then, says it was truncated, and marks the restart.
        let mut w = CastWriter::new(&records, "t", (80, 24), 6);
        w.piece(6, b"6789abcd");
        let (header, events) = parse(&w.finish());
        assert_eq!(
            (&header["width"], &header["height"], &header["timestamp"]),
            (&json!(60), &json!(20), &json!(5))
        );
        assert_eq!(
            events,
            [
                json!([0.0, "m", "recording truncated"]),
                json!([0.0, "o", "6789"]),
                json!([2.0, "m", "restarted"]),
                json!([2.5, "o", "abcd"]),
            ]
        );
    }

    #[test]
    fn a_damaged_timing_plays_its_readable_records_then_the_rest_untimed_marked_where_it_stops() {
        let records = [
            Record::Start {
                at_us: 1_000_000,
                log_size: 0,
            },
            Record::Output {
                at_us: 3_000_000,
                log_end: 4,
            },
        ];
        for cut in 0..=9 {
            let mut w = CastWriter::new(&records, "t", (80, 24), 0).damaged();
            let log = b"timed+rest";
            w.piece(0, &log[..cut]);
            w.piece(cut as u64, &log[cut..]);
            let (_, events) = parse(&w.finish());
            assert_eq!(output(&events), "timed+rest", "cut at {cut}");
            let marks: Vec<_> = events.iter().filter(|e| e[1] == "m").collect();
            assert_eq!(
                marks,
                [&json!([2.0, "m", "timing damaged"])],
                "cut at {cut}: {events:?}"
            );
            // The timed output comes before the mark, the untimed after it.
            let mark = events.iter().position(|e| e[1] == "m").unwrap();
            let before: String = events[..mark]
                .iter()
                .map(|e| e[2].as_str().unwrap())
                .collect();
            assert_eq!(before, "time", "cut at {cut}: {events:?}");
        }
        // An undamaged cast has no such mark.
        let mut w = CastWriter::new(&records, "t", (80, 24), 0);
        w.piece(0, b"timed+rest");
        assert!(!String::from_utf8(w.finish()).unwrap().contains("damaged"));
    }

    #[test]
    fn a_sequence_cut_at_the_end_is_kept_for_later_and_never_lost() {
        assert_eq!(unfinished_tail(b"ab"), 0);
        assert_eq!(unfinished_tail("é".as_bytes()), 0);
        assert_eq!(unfinished_tail(&"é".as_bytes()[..1]), 1);
        assert_eq!(unfinished_tail(&"€".as_bytes()[..2]), 2);
        assert_eq!(unfinished_tail(&"😀".as_bytes()[..3]), 3);
        assert_eq!(unfinished_tail(b"\xff"), 0);
        // A log that ends inside a sequence: the bytes still come out, as U+FFFD.
        let mut w = CastWriter::new(&[], "t", (80, 24), 0);
        w.piece(0, &"x€".as_bytes()[..3]);
        let (_, events) = parse(&w.finish());
        assert_eq!(output(&events), "x\u{fffd}");
    }
}
