//! The node's own reader of what the plane (or any server it dials) sends: the WebSocket size
//! filter under tungstenite.

use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use futures_lite::io::AsyncRead;
use termplane_runtime_smol::capped::{CappedRead, DroppedFrames};

use crate::cuts::Cuts;

/// What replaces a dropped message.
const PONG: [u8; 2] = [0x8a, 0x00];

const UPGRADE: &[u8] = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";

/// A socket that hands out its bytes in seed-chosen pieces and now and then has nothing yet.
struct Socket<'a> {
    bytes: &'a [u8],
    cuts: Cuts,
    stall: bool,
}

impl AsyncRead for Socket<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        let n = self.cuts.next_len();
        // The harness polls again at once, so no waker is needed.
        self.stall = !self.stall && n.is_multiple_of(3);
        if self.stall {
            return Poll::Pending;
        }
        let n = n.min(buf.len()).min(self.bytes.len());
        let (piece, rest) = self.bytes.split_at(n);
        buf[..n].copy_from_slice(piece);
        self.bytes = rest;
        Poll::Ready(Ok(n))
    }
}

/// Everything the filter lets through, read in pieces of seed-chosen sizes, and the lengths it
/// reported dropped.
fn filtered(input: &[u8], cap: usize, socket_seed: u8, read_seed: u8) -> (Vec<u8>, Vec<u64>) {
    let dropped = DroppedFrames::default();
    let socket = Socket {
        bytes: input,
        cuts: Cuts::for_stream(socket_seed, input.len()),
        stall: false,
    };
    let mut reader = CappedRead::new(socket, cap, dropped.clone());
    let mut cx = Context::from_waker(Waker::noop());
    let mut reads = Cuts::for_stream(read_seed, input.len());
    let mut out = Vec::new();
    let mut buf = vec![0_u8; (input.len() + 16).min(65536)];
    // Each poll hands out a byte, stalls once, or takes input: a bound that a livelock breaks.
    for _ in 0..(input.len() + 16) * 8 {
        let want = reads.next_len().min(buf.len());
        match Pin::new(&mut reader).poll_read(&mut cx, &mut buf[..want]) {
            Poll::Ready(Ok(0)) => return (out, dropped.take()),
            Poll::Ready(Ok(n)) => out.extend_from_slice(&buf[..n]),
            Poll::Ready(Err(e)) => panic!("reading from memory failed: {e}"),
            Poll::Pending => {}
        }
    }
    panic!("the filter made no progress");
}

/// A frame header's fields and length, if `b` holds a whole header.
fn header(b: &[u8]) -> Option<(bool, u8, u64, usize)> {
    let (b0, b1) = (*b.first()?, *b.get(1)?);
    let mask = if b1 & 0x80 != 0 { 4 } else { 0 };
    let (len, at) = match b1 & 0x7f {
        126 => (u64::from(u16::from_be_bytes([*b.get(2)?, *b.get(3)?])), 4),
        127 => (u64::from_be_bytes(b.get(2..10)?.try_into().ok()?), 10),
        n => (u64::from(n), 2),
    };
    (b.len() >= at + mask).then_some((b0 & 0x80 != 0, b0 & 0x0f, len, at + mask))
}

/// Reads the frames after the upgrade as tungstenite would assemble messages, and checks that
/// no data message it would assemble is above the cap.
fn assert_capped(frames: &[u8], cap: u64) {
    let mut rest = frames;
    let mut open: Option<u64> = None;
    while let Some((fin, opcode, len, at)) = header(rest) {
        match opcode {
            // A new message inside an unfinished one: tungstenite refuses it (a protocol
            // error) and reads nothing after it, whatever its size.
            0x1 | 0x2 if open.is_some() => return,
            0x1 | 0x2 => {
                assert!(len <= cap, "a {len}-byte message passed a {cap}-byte cap");
                open = (!fin).then_some(len);
            }
            0x0 => {
                if let Some(total) = open {
                    let total = total.saturating_add(len);
                    assert!(
                        total <= cap,
                        "a {total}-byte message passed a {cap}-byte cap"
                    );
                    open = (!fin).then_some(total);
                }
            }
            _ => {}
        }
        let end = usize::try_from(len).ok().and_then(|l| l.checked_add(at));
        let Some(next) = end.and_then(|end| rest.get(end..)) else {
            return;
        };
        rest = next;
    }
}

/// One frame of a well-formed stream.
struct Frame {
    bytes: Vec<u8>,
    fin: bool,
    opcode: u8,
    len: u64,
}

fn frame(fin: bool, opcode: u8, len: usize, form: u8, masked: bool, fill: u8) -> Frame {
    let mut bytes = vec![if fin { 0x80 } else { 0 } | opcode];
    let m = if masked { 0x80 } else { 0 };
    // Lengths in their shortest form, or in a longer one (legal, and the parser must read it).
    match (form % 3, len) {
        (0, 0..=125) => bytes.push(m | u8::try_from(len).unwrap_or(0)),
        (0 | 1, 0..=0xffff) => {
            bytes.push(m | 126);
            bytes.extend_from_slice(&u16::try_from(len).unwrap_or(0).to_be_bytes());
        }
        _ => {
            bytes.push(m | 127);
            bytes.extend_from_slice(&(len as u64).to_be_bytes());
        }
    }
    if masked {
        bytes.extend_from_slice(&[1, 2, 3, 4]);
    }
    bytes.resize(bytes.len() + len, fill);
    Frame {
        bytes,
        fin,
        opcode,
        len: len as u64,
    }
}

/// A well-formed frame stream from fuzz bytes: control frames of up to 125 bytes, whole
/// messages, and fragmented ones with control frames between their fragments.
fn well_formed(spec: &[u8]) -> Vec<Frame> {
    let mut frames = Vec::new();
    for op in spec.chunks(3).take(64) {
        let [kind, len, form] = *op else { break };
        let masked = form & 0x80 != 0;
        let len = usize::from(len);
        match kind % 4 {
            0 => frames.push(frame(true, 0x9 + kind / 4 % 2, len % 126, 0, masked, kind)),
            1 => frames.push(frame(true, 1 + kind / 4 % 2, len * 3, form, masked, kind)),
            _ => {
                let parts = 2 + usize::from(kind / 4 % 4);
                for p in 0..parts {
                    let opcode = if p == 0 { 1 + kind / 16 % 2 } else { 0 };
                    let fin = p + 1 == parts;
                    let size = (len * (p + 1)) % 200;
                    frames.push(frame(fin, opcode, size, form >> p, masked, kind));
                    if kind % 4 == 3 && !fin {
                        frames.push(frame(true, 0xa, p, 0, false, 0));
                    }
                }
            }
        }
    }
    frames
}

/// What the filter must make of a well-formed stream: control frames where they are; a
/// message of at most `cap` bytes whole where its last fragment ends; a larger one as one
/// pong where the fragment that took it past the cap begins, and nothing of it after.
fn expected(frames: &[Frame], cap: u64) -> (Vec<u8>, Vec<u64>) {
    let mut out = UPGRADE.to_vec();
    let mut dropped = Vec::new();
    let mut message: Vec<u8> = Vec::new();
    let mut total = 0_u64;
    let mut dropping = false;
    for f in frames {
        if f.opcode >= 0x8 {
            out.extend_from_slice(&f.bytes);
            continue;
        }
        if f.opcode != 0 {
            message.clear();
            total = 0;
            dropping = false;
        }
        if !dropping {
            total += f.len;
            message.extend_from_slice(&f.bytes);
            if total > cap {
                dropping = true;
                dropped.push(total);
                out.extend_from_slice(&PONG);
            } else if f.fin {
                out.append(&mut message);
            }
        }
    }
    (out, dropped)
}

/// The node's inbound size filter on arbitrary byte streams and on well-formed frame streams,
/// split at arbitrary places: whatever the split, the same bytes come out; no data message
/// above the cap ever reaches tungstenite; and a well-formed stream comes out exactly as its
/// reference says (every message up to the cap intact and in order, control frames passed,
/// each larger message one pong), so the filter never loses its place in a valid stream.
pub fn ws_capped(data: &[u8]) {
    let [flags, socket_seed, read_seed, rest @ ..] = data else {
        return;
    };
    let cap = usize::from(flags & 0x3f) * 7;
    let (input, reference) = if flags & 0x80 != 0 {
        let frames = well_formed(rest);
        let mut input = UPGRADE.to_vec();
        for f in &frames {
            input.extend_from_slice(&f.bytes);
        }
        let reference = expected(&frames, cap as u64);
        (input, Some(reference))
    } else if flags & 0x40 != 0 {
        ([UPGRADE, rest].concat(), None)
    } else {
        (rest.to_vec(), None)
    };
    let got = filtered(&input, cap, *socket_seed, *read_seed);
    let whole = filtered(&input, cap, 0xff, 0xff);
    assert_eq!(got, whole, "the output depends on where the stream was cut");
    if let Some(reference) = reference {
        assert_eq!(got, reference, "a well-formed stream came out wrong");
    }
    let (out, _) = got;
    let Some(end) = input.windows(4).position(|w| w == b"\r\n\r\n") else {
        assert_eq!(out, input, "the upgrade response was not passed untouched");
        return;
    };
    assert_eq!(
        out.get(..end + 4),
        Some(&input[..end + 4]),
        "the upgrade response was not passed untouched"
    );
    assert_capped(&out[end + 4..], cap as u64);
}
