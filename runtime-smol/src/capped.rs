//! The node's inbound frame cap that keeps the link up: [`CappedRead`] sits between the socket
//! and tungstenite's client and drops every WebSocket message above the cap before tungstenite
//! sees a byte of it.
//!
//! tungstenite refuses an oversize frame by returning an error with the frame unread, after
//! which its reader is out of step with the stream; the only way on would be to drop the
//! socket. The specification wants the opposite on the node: "an oversize frame received by the
//! node is dropped and the link stays up". So this filter reads the byte stream itself:
//!
//! 1. the HTTP upgrade response passes through untouched (up to and including the first blank
//!    line, exactly where tungstenite ends it);
//! 2. after it, every frame header is parsed. Control frames pass through. A data message whose
//!    payload (one frame, or the sum of its fragments) is at most the cap passes through — a
//!    fragmented one is held back until its last fragment arrived, so tungstenite never sees a
//!    message that will not complete. A message above the cap is discarded as it streams by,
//!    never buffered (a header claiming 2^63 bytes costs nothing), and in its place the reader
//!    gets an empty pong frame: the driver wakes, reads [`DroppedFrames`], and tells the machine
//!    ([`termplane_machines::agent_link::AgentInput::Oversize`]). A new data message inside
//!    an unfinished fragmented one is a protocol error: what was held and that frame pass,
//!    whatever its size, and tungstenite refuses it and reads no further.
//!
//! A dropped sealed frame is not decrypted, so the next sealed frame of that stream fails to
//! open and the machine closes with 4410: the plane must never send a frame above the cap. What
//! the filter protects is the transport: a frame the plane should not have sent does not tear
//! the socket down by itself.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use futures_lite::io::{AsyncRead, AsyncWrite};

/// Bytes read from the socket per read call.
const READ_CHUNK: usize = 16 * 1024;

/// An unmasked, final, empty pong frame: what replaces a dropped message.
const SYNTHETIC_PONG: [u8; 2] = [0x8a, 0x00];

/// Lengths of the messages [`CappedRead`] dropped, for the driver to drain.
#[derive(Clone, Debug, Default)]
pub struct DroppedFrames(Arc<Mutex<Vec<u64>>>);

impl DroppedFrames {
    /// Takes the lengths recorded so far.
    #[must_use]
    pub fn take(&self) -> Vec<u64> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn push(&self, len: u64) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(len);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// To the reader now.
    Pass,
    /// Into the held fragments of a message not yet complete.
    Hold,
    /// Discarded.
    Skip,
}

#[derive(Debug)]
enum Phase {
    /// Inside the HTTP response; `matched` bytes of `\r\n\r\n` seen.
    Http { matched: usize },
    /// Collecting a frame header.
    Header { buf: [u8; 14], have: usize },
    /// Inside a frame's payload.
    Payload { left: u64, mode: Mode, fin: bool },
}

/// The parser behind [`CappedRead`], separate from the IO for testing.
#[derive(Debug)]
struct Filter {
    cap: u64,
    phase: Phase,
    /// Bytes for the reader.
    ready: VecDeque<u8>,
    /// Header and payload bytes of a fragmented message still being received.
    held: Vec<u8>,
    /// Payload bytes of the held message so far.
    held_len: u64,
    holding: bool,
    /// Continuation frames of a dropped message are dropped too.
    skipping: bool,
    dropped: DroppedFrames,
}

impl Filter {
    fn new(cap: usize, dropped: DroppedFrames) -> Self {
        Self {
            cap: u64::try_from(cap).unwrap_or(u64::MAX),
            phase: Phase::Http { matched: 0 },
            ready: VecDeque::new(),
            held: Vec::new(),
            held_len: 0,
            holding: false,
            skipping: false,
            dropped,
        }
    }

    fn drop_message(&mut self, len: u64) {
        self.dropped.push(len);
        self.ready.extend(SYNTHETIC_PONG);
    }

    /// Feeds bytes from the socket.
    fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            match &mut self.phase {
                Phase::Http { matched } => {
                    let b = bytes[0];
                    bytes = &bytes[1..];
                    self.ready.push_back(b);
                    let want = b"\r\n\r\n"[*matched];
                    *matched = if b == want {
                        *matched + 1
                    } else if b == b'\r' {
                        1
                    } else {
                        0
                    };
                    if *matched == 4 {
                        self.phase = Phase::Header {
                            buf: [0; 14],
                            have: 0,
                        };
                    }
                }
                Phase::Header { buf, have } => {
                    buf[*have] = bytes[0];
                    *have += 1;
                    bytes = &bytes[1..];
                    let (buf, have) = (*buf, *have);
                    if let Some((len, header_len)) = header_size(&buf[..have])
                        && have == header_len
                    {
                        self.start_frame(&buf[..have], len);
                    }
                }
                Phase::Payload { left, mode, fin } => {
                    let n = usize::try_from((*left).min(bytes.len() as u64)).unwrap_or(0);
                    let (take, rest) = bytes.split_at(n);
                    match mode {
                        Mode::Pass => self.ready.extend(take),
                        Mode::Hold => self.held.extend_from_slice(take),
                        Mode::Skip => {}
                    }
                    *left -= n as u64;
                    bytes = rest;
                    if *left == 0 {
                        let (mode, fin) = (*mode, *fin);
                        self.end_frame(mode, fin);
                    }
                }
            }
        }
    }

    fn start_frame(&mut self, header: &[u8], len: u64) {
        let fin = header[0] & 0x80 != 0;
        let opcode = header[0] & 0x0f;
        let mode = match opcode {
            // Control frames (tungstenite checks their size and shape).
            0x8..=0xf => Mode::Pass,
            0x1 | 0x2 if self.holding => {
                // A new message before the last one ended: a protocol error. What was held
                // goes to tungstenite and this frame after it, whatever its size, so that
                // tungstenite sees the error and ends the stream there. Dropping this frame
                // instead would leave tungstenite inside the unfinished message, and the
                // continuation frames that follow would grow it past the cap.
                self.flush_held();
                self.skipping = false;
                Mode::Pass
            }
            0x1 | 0x2 => {
                self.skipping = false;
                if len > self.cap {
                    self.drop_message(len);
                    self.skipping = !fin;
                    Mode::Skip
                } else if fin {
                    Mode::Pass
                } else {
                    self.holding = true;
                    self.held_len = len;
                    Mode::Hold
                }
            }
            0x0 if self.skipping => {
                self.skipping = !fin;
                Mode::Skip
            }
            0x0 if self.holding => {
                self.held_len = self.held_len.saturating_add(len);
                if self.held_len > self.cap {
                    let total = self.held_len;
                    self.held.clear();
                    self.holding = false;
                    self.held_len = 0;
                    self.drop_message(total);
                    self.skipping = !fin;
                    Mode::Skip
                } else {
                    Mode::Hold
                }
            }
            // Reserved opcodes and a continuation with no message: tungstenite refuses them.
            _ => Mode::Pass,
        };
        match mode {
            Mode::Pass => self.ready.extend(header),
            Mode::Hold => self.held.extend_from_slice(header),
            Mode::Skip => {}
        }
        if len == 0 {
            self.end_frame(mode, fin);
        } else {
            self.phase = Phase::Payload {
                left: len,
                mode,
                fin,
            };
        }
    }

    fn end_frame(&mut self, mode: Mode, fin: bool) {
        if mode == Mode::Hold && fin {
            self.flush_held();
        }
        self.phase = Phase::Header {
            buf: [0; 14],
            have: 0,
        };
    }

    fn flush_held(&mut self) {
        self.ready.extend(self.held.drain(..));
        self.holding = false;
        self.held_len = 0;
    }
}

/// The payload length and the full header length of a frame whose first header bytes are
/// `h`, once enough of them are there.
fn header_size(h: &[u8]) -> Option<(u64, usize)> {
    let b1 = *h.get(1)?;
    let mask = if b1 & 0x80 != 0 { 4 } else { 0 };
    match b1 & 0x7f {
        126 => {
            let len = u16::from_be_bytes([*h.get(2)?, *h.get(3)?]);
            Some((u64::from(len), 4 + mask))
        }
        127 => {
            let b: [u8; 8] = h.get(2..10)?.try_into().ok()?;
            Some((u64::from_be_bytes(b), 10 + mask))
        }
        n => Some((u64::from(n), 2 + mask)),
    }
}

/// A byte stream whose inbound WebSocket messages above a cap are dropped (see the module
/// documentation). Writes pass through.
#[derive(Debug)]
pub struct CappedRead<S> {
    inner: S,
    filter: Filter,
    eof: bool,
}

impl<S> CappedRead<S> {
    /// Wraps a client socket before its WebSocket upgrade; `dropped` receives the length of each
    /// dropped message.
    pub fn new(inner: S, cap: usize, dropped: DroppedFrames) -> Self {
        Self {
            inner,
            filter: Filter::new(cap, dropped),
            eof: false,
        }
    }

    /// The wrapped stream.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Where the dropped messages are recorded.
    #[must_use]
    pub fn dropped(&self) -> &DroppedFrames {
        &self.filter.dropped
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for CappedRead<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        // Bounded: each round either hands bytes out, reports EOF or pending, or consumes input.
        loop {
            if !me.filter.ready.is_empty() {
                let n = buf.len().min(me.filter.ready.len());
                for (slot, b) in buf.iter_mut().zip(me.filter.ready.drain(..n)) {
                    *slot = b;
                }
                return Poll::Ready(Ok(n));
            }
            if me.eof || buf.is_empty() {
                return Poll::Ready(Ok(0));
            }
            // Only a read of the socket needs (and clears) the scratch buffer: handing out
            // bytes already filtered, the common case of a large message, does not.
            let mut scratch = [0u8; READ_CHUNK];
            match Pin::new(&mut me.inner).poll_read(cx, &mut scratch) {
                Poll::Ready(Ok(0)) => me.eof = true,
                Poll::Ready(Ok(n)) => me.filter.feed(&scratch[..n]),
                other => return other,
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for CappedRead<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_close(cx)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn frame(first: u8, payload_len: u64, fill: u8) -> Vec<u8> {
        let mut out = vec![first];
        if payload_len < 126 {
            out.push(u8::try_from(payload_len).unwrap());
        } else if payload_len <= 0xffff {
            out.push(126);
            out.extend_from_slice(&u16::try_from(payload_len).unwrap().to_be_bytes());
        } else {
            out.push(127);
            out.extend_from_slice(&payload_len.to_be_bytes());
        }
        out.extend(std::iter::repeat_n(
            fill,
            usize::try_from(payload_len).unwrap(),
        ));
        out
    }

    fn run(cap: usize, input: &[u8], chunk: usize) -> (Vec<u8>, Vec<u64>) {
        let dropped = DroppedFrames::default();
        let mut f = Filter::new(cap, dropped.clone());
        for c in input.chunks(chunk.max(1)) {
            f.feed(c);
        }
        (f.ready.into_iter().collect(), dropped.take())
    }

    const HTTP: &[u8] = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n";

    #[test]
    fn messages_up_to_the_cap_pass_and_bigger_ones_become_an_empty_pong() {
        for chunk in [1, 3, 64, 4096] {
            let small = frame(0x82, 16, 1);
            let big = frame(0x82, 17, 2);
            let text = frame(0x81, 5, b'a');
            let input = [HTTP, &small, &big, &text].concat();
            let (out, dropped) = run(16, &input, chunk);
            assert_eq!(
                out,
                [HTTP, &small, &SYNTHETIC_PONG, &text].concat(),
                "{chunk}"
            );
            assert_eq!(dropped, vec![17]);
        }
    }

    #[test]
    fn fragments_are_held_until_complete_and_dropped_when_their_sum_is_above_the_cap() {
        let ok = [frame(0x02, 8, 1), frame(0x89, 2, 9), frame(0x80, 8, 1)].concat();
        let (out, dropped) = run(16, &[HTTP, &ok].concat(), 5);
        // The ping between the fragments comes out first; the message whole after it.
        let expected = [
            HTTP.to_vec(),
            frame(0x89, 2, 9),
            frame(0x02, 8, 1),
            frame(0x80, 8, 1),
        ]
        .concat();
        assert_eq!(out, expected);
        assert!(dropped.is_empty());

        let over = [
            frame(0x02, 10, 1),
            frame(0x00, 10, 1),
            frame(0x80, 10, 1),
            frame(0x81, 1, b'x'),
        ]
        .concat();
        let (out, dropped) = run(16, &[HTTP, &over].concat(), 7);
        assert_eq!(
            out,
            [HTTP, &SYNTHETIC_PONG, &frame(0x81, 1, b'x')[..]].concat()
        );
        assert_eq!(dropped, vec![20]);
    }

    /// A small deterministic generator (xorshift) for the property below.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn random_streams_keep_exactly_the_messages_up_to_the_cap_in_any_chunking() {
        let mut st = 0x9e37_79b9_7f4a_7c15_u64;
        for round in 0..300 {
            let cap = 1 + usize::try_from(next(&mut st) % 64).unwrap();
            let mut input = HTTP.to_vec();
            let mut want = HTTP.to_vec();
            let mut dropped = Vec::new();
            for _ in 0..(next(&mut st) % 12) {
                let len = next(&mut st) % 80;
                let kind = next(&mut st) % 3;
                if kind == 0 {
                    // A ping (control frames up to 125 bytes always pass).
                    let f = frame(0x89, len, 7);
                    input.extend_from_slice(&f);
                    want.extend_from_slice(&f);
                } else if kind == 1 {
                    let f = frame(0x82, len, 1);
                    input.extend_from_slice(&f);
                    if len as usize > cap {
                        want.extend_from_slice(&SYNTHETIC_PONG);
                        dropped.push(len);
                    } else {
                        want.extend_from_slice(&f);
                    }
                } else {
                    // Two fragments.
                    let a = frame(0x01, len, b'a');
                    let b = frame(0x80, len / 2, b'b');
                    input.extend_from_slice(&a);
                    input.extend_from_slice(&b);
                    let total = len + len / 2;
                    if total as usize > cap {
                        want.extend_from_slice(&SYNTHETIC_PONG);
                        dropped.push(if len as usize > cap { len } else { total });
                    } else {
                        want.extend_from_slice(&a);
                        want.extend_from_slice(&b);
                    }
                }
            }
            let chunk = 1 + usize::try_from(next(&mut st) % 50).unwrap();
            let (out, got) = run(cap, &input, chunk);
            assert_eq!(out, want, "round {round}");
            assert_eq!(got, dropped, "round {round}");
        }
        // And arbitrary bytes after the upgrade never panic and never grow without bound.
        for _ in 0..300 {
            let mut input = HTTP.to_vec();
            for _ in 0..(next(&mut st) % 4096) {
                input.push(u8::try_from(next(&mut st) & 0xff).unwrap());
            }
            let (out, _) = run(32, &input, 1 + usize::try_from(next(&mut st) % 64).unwrap());
            assert!(out.len() <= input.len() + 2 * input.len());
        }
    }

    /// Found by the `ws_capped` fuzz target: an unfinished fragmented message, then a new
    /// oversize message, then continuation frames. Dropping the new message left tungstenite
    /// inside the first one, and the continuations grew it past the cap.
    #[test]
    fn a_new_message_inside_an_unfinished_one_reaches_tungstenite_whatever_its_size() {
        for chunk in [1, 5, 4096] {
            let first = frame(0x01, 1, b'a');
            let big = frame(0x82, 40, 2);
            let more = frame(0x00, 30, b'b');
            let input = [HTTP, &first, &big, &more, &more].concat();
            let (out, dropped) = run(16, &input, chunk);
            // Everything passes: tungstenite refuses the second data frame (a new message
            // before the first ended) and reads no further, so no continuation can grow the
            // first message.
            assert_eq!(out, input, "{chunk}");
            assert!(dropped.is_empty(), "{chunk}: {dropped:?}");
        }
    }

    #[test]
    fn a_header_claiming_two_to_the_63_bytes_is_skipped_without_buffering() {
        let mut input = HTTP.to_vec();
        input.extend_from_slice(&[0x82, 127]);
        input.extend_from_slice(&(1u64 << 63).to_be_bytes());
        input.extend(std::iter::repeat_n(0u8, 100_000));
        let dropped = DroppedFrames::default();
        let mut f = Filter::new(16, dropped.clone());
        f.feed(&input);
        assert_eq!(f.ready.len(), HTTP.len() + 2);
        assert!(f.held.capacity() < 1024);
        assert_eq!(dropped.take(), vec![1u64 << 63]);
    }
}
