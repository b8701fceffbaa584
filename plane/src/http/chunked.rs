//! The chunked transfer coding of request bodies (RFC 9112 §7.1), as a decoder fed with bytes.

use super::wire::{MAX_CHUNK_LINE, MAX_TRAILER_BYTES};

/// A chunked-body decoder: feed it bytes, it yields body bytes, and tells when the body (and its
/// trailers) ended. Chunk-size lines are bounded by [`MAX_CHUNK_LINE`], trailers by
/// [`MAX_TRAILER_BYTES`]; a size that overflows or a malformed line is an error.
#[derive(Debug, Default)]
pub struct Chunked {
    state: ChunkState,
    line: Vec<u8>,
    trailer_bytes: usize,
}

#[derive(Debug, Default, PartialEq, Eq)]
enum ChunkState {
    /// Reading a chunk-size line.
    #[default]
    Size,
    /// Reading this many more data bytes.
    Data(u64),
    /// Expecting the CRLF after a chunk's data.
    DataEnd,
    /// Reading trailer lines after the last chunk.
    Trailers,
    /// Finished.
    Done,
}

/// What a chunked decoder made of some input.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ChunkStep {
    /// Input bytes used.
    pub used: usize,
    /// Whether the body ended (input after `used` belongs to the next request).
    pub done: bool,
}

impl Chunked {
    /// Decodes from `input`, appending body bytes to `out`.
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<ChunkStep, &'static str> {
        let mut i = 0;
        while i < input.len() {
            match self.state {
                ChunkState::Done => break,
                ChunkState::Data(left) => {
                    let take = usize::try_from(left)
                        .unwrap_or(usize::MAX)
                        .min(input.len() - i);
                    out.extend_from_slice(&input[i..i + take]);
                    i += take;
                    let left = left - take as u64;
                    self.state = if left == 0 {
                        ChunkState::DataEnd
                    } else {
                        ChunkState::Data(left)
                    };
                }
                ChunkState::Size | ChunkState::DataEnd | ChunkState::Trailers => {
                    let b = input[i];
                    i += 1;
                    self.line.push(b);
                    if self.state == ChunkState::Trailers {
                        self.trailer_bytes += 1;
                        if self.trailer_bytes > MAX_TRAILER_BYTES {
                            return Err("chunked trailers too large");
                        }
                    } else if self.line.len() > MAX_CHUNK_LINE {
                        return Err("chunk-size line too long");
                    }
                    if b == b'\n' {
                        let line = std::mem::take(&mut self.line);
                        self.on_line(&line)?;
                    }
                }
            }
        }
        Ok(ChunkStep {
            used: i,
            done: self.state == ChunkState::Done,
        })
    }

    fn on_line(&mut self, line: &[u8]) -> Result<(), &'static str> {
        let Some(text) = line.strip_suffix(b"\r\n") else {
            return Err("chunked lines must end in CRLF");
        };
        match self.state {
            ChunkState::DataEnd => {
                if !text.is_empty() {
                    return Err("chunk data longer than its size");
                }
                self.state = ChunkState::Size;
            }
            ChunkState::Size => {
                let size = text.split(|b| *b == b';').next().unwrap_or_default();
                if size.is_empty() || size.len() > 16 || !size.iter().all(u8::is_ascii_hexdigit) {
                    return Err("malformed chunk size");
                }
                let hex = std::str::from_utf8(size).map_err(|_| "malformed chunk size")?;
                let n = u64::from_str_radix(hex, 16).map_err(|_| "chunk size out of range")?;
                self.state = if n == 0 {
                    ChunkState::Trailers
                } else {
                    ChunkState::Data(n)
                };
            }
            ChunkState::Trailers => {
                if text.is_empty() {
                    self.state = ChunkState::Done;
                }
            }
            ChunkState::Data(_) | ChunkState::Done => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn chunked_bodies_decode_in_any_split() {
        let wire =
            b"4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nT: v\r\n\r\nNEXT";
        for split in 1..wire.len() {
            let mut d = Chunked::default();
            let mut out = Vec::new();
            let a = d.feed(&wire[..split], &mut out).unwrap();
            let step = if a.done {
                a
            } else {
                let b = d.feed(&wire[split..], &mut out).unwrap();
                ChunkStep {
                    used: split + b.used,
                    done: b.done,
                }
            };
            assert!(step.done, "split {split}");
            assert_eq!(&wire[step.used..], b"NEXT", "split {split}");
            assert_eq!(out, b"Wikipedia in\r\n\r\nchunks.");
        }
    }

    #[test]
    fn malformed_chunked_bodies_are_refused() {
        for bad in [
            &b"x\r\n"[..],
            b"1\r\nab\r\n",
            b"11111111111111111\r\n",
            b"1\nA\n",
            b"-1\r\n",
        ] {
            let mut d = Chunked::default();
            assert!(d.feed(bad, &mut Vec::new()).is_err(), "{bad:?}");
        }
        let mut d = Chunked::default();
        let long = vec![b'0'; MAX_CHUNK_LINE + 1];
        assert!(d.feed(&long, &mut Vec::new()).is_err());
    }
}
