//! A pane's recording as the plane reads it from a node: the timing file's records
//! (`termplane_proto::recording`) decoded, and laid over the log into an asciicast by the plane's
//! `CastWriter`, the log given in seed-chosen pieces.

use serde_json::Value;
use termplane::service::CastWriter;
use termplane_proto::recording::{RECORD_BYTES, Record, decode_all};

use crate::cuts::Cuts;

/// The first byte says how many records' worth of the input is the timing file (the rest is
/// the log), the second how the log is cut. Decoding refuses exactly at a record that is not
/// one, and every record it takes encodes back to its bytes; the cast is one JSON header with a
/// grid of at least one cell, then events in time order, each `[seconds, "o", text]` or
/// `[seconds, "r", "COLSxROWS"]`, whose text is the whole log, in order, as UTF-8 with U+FFFD
/// for what is not — whatever the records say and however the log is cut.
pub fn recording_cast(data: &[u8]) {
    let [records, seed, rest @ ..] = data else {
        return;
    };
    let cut = (usize::from(*records) * RECORD_BYTES / 2).min(rest.len());
    let (timing, log) = rest.split_at(cut);
    // A record that is not one: refused exactly there, and the cast made of the records before
    // it, marked damaged (as the plane exports a damaged timing file).
    let (records, timing, damaged) = match decode_all(timing) {
        Ok(r) => (r, timing, false),
        Err(at) => {
            assert!(
                at % RECORD_BYTES == 0 && at + RECORD_BYTES <= timing.len(),
                "{at}"
            );
            let before = &timing[..at];
            let records = decode_all(before).expect("the records before the bad one");
            (records, before, true)
        }
    };
    assert_eq!(records.len(), timing.len() / RECORD_BYTES);
    for (r, bytes) in records.iter().zip(timing.chunks_exact(RECORD_BYTES)) {
        assert_eq!(&r.encode()[..], bytes, "{r:?}");
    }
    // A log whose start its recorder dropped, one time in four.
    let start = if seed % 4 == 3 {
        usize::from(*seed) * 7 % (log.len() + 1)
    } else {
        0
    };
    let mut w = CastWriter::new(&records, "fuzz", (80, 24), start as u64);
    if damaged {
        w = w.damaged();
    }
    let log = &log[start..];
    let mut from = start as u64;
    for piece in Cuts::for_stream(*seed, log.len()).split(log) {
        w.piece(from, piece);
        from += piece.len() as u64;
    }
    let cast = w.finish();
    let text = std::str::from_utf8(&cast).expect("a cast is UTF-8");
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().expect("a header")).expect("JSON");
    assert_eq!(header["version"], 2);
    for k in ["width", "height"] {
        assert!(
            header[k].as_u64().is_some_and(|n| (1..=65535).contains(&n)),
            "{header}"
        );
    }
    let mut last = 0.0f64;
    let mut played = String::new();
    let mut marks = 0;
    let mut truncated = false;
    let mut damage_marked = false;
    for line in lines {
        let e: Value = serde_json::from_str(line).expect("each event is JSON");
        let [t, kind, body] = e.as_array().expect("an event is an array").as_slice() else {
            panic!("{e}");
        };
        let t = t.as_f64().expect("a time in seconds");
        assert!(t.is_finite() && t >= last, "{t} after {last}");
        last = t;
        let body = body.as_str().expect("a string");
        match kind.as_str() {
            Some("o") => played.push_str(body),
            Some("r") => {
                let (c, r) = body.split_once('x').expect("COLSxROWS");
                assert!(c.parse::<u16>().is_ok_and(|n| n > 0), "{body}");
                assert!(r.parse::<u16>().is_ok_and(|n| n > 0), "{body}");
            }
            Some("m") if body == "recording truncated" => {
                assert!(start > 0 && marks == 0 && played.is_empty(), "{e}");
                truncated = true;
            }
            Some("m") if body == "timing damaged" => {
                assert!(damaged && !damage_marked, "{e}");
                damage_marked = true;
            }
            Some("m") => {
                assert_eq!(body, "restarted");
                marks += 1;
            }
            _ => panic!("{e}"),
        }
    }
    // Every incarnation's start but the first is marked.
    let starts = records
        .iter()
        .filter(|r| matches!(r, Record::Start { .. }))
        .count();
    assert_eq!(truncated, start > 0);
    assert_eq!(damage_marked, damaged);
    if start == 0 {
        assert_eq!(marks, starts.saturating_sub(1));
    }
    assert_eq!(
        played,
        String::from_utf8_lossy(log),
        "the log, whole and in order"
    );
}
