//! A pane's recording on the wire and on disk: the records of its timing file.
//!
//! A node keeps, beside each pane's log (every byte the pane printed), a timing file saying
//! when the log grew and on what grid; `timing_read` answers its bytes as `log_read` answers
//! the log's. The file is a sequence of 16-byte records, each `at` (Unix microseconds,
//! little-endian `u64`, the node's wall clock) then `word` (little-endian `u64`: the record's
//! kind in the top 8 bits, its value in the low 56).
//!
//! | kind | record | value |
//! |---|---|---|
//! | 1 | `start` | the log's size when an incarnation of the pane began (a restart appends to the same log) |
//! | 2 | `output` | the log's size at the end of the output printed from `at` on (the output of one group of reads) |
//! | 3 | `grid` | `cols << 16 \| rows`: the pane's size from `at` on |
//!
//! Each writer's records are in time order, but not the file's: an output record is written
//! once its group is over, after a grid record of a slightly later time may have been. A reader
//! orders the records by `at`, keeping the file's order between equal times (a stable sort). A
//! wall clock set back makes `at` go backwards; a reader takes such a record as coming at the
//! time of the one before it. A trailing partial record (a writer stopped mid-write, or a read
//! that ended inside one) is not a record; an unknown kind makes the file unreadable as a
//! recording, never the log.

/// Bytes per record.
pub const RECORD_BYTES: usize = 16;

const VALUE_MASK: u64 = (1 << 56) - 1;

/// One record of a timing file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    /// An incarnation of the pane began with the log at `log_size` bytes.
    Start {
        /// Unix microseconds.
        at_us: u64,
        /// The log's size then.
        log_size: u64,
    },
    /// The output from `at_us` on ends at `log_end` in the log.
    Output {
        /// Unix microseconds of the group's first read.
        at_us: u64,
        /// The log's size at the group's end.
        log_end: u64,
    },
    /// The pane's grid from `at_us` on.
    Grid {
        /// Unix microseconds.
        at_us: u64,
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
    },
}

impl Record {
    /// The record as it is stored.
    #[must_use]
    pub fn encode(self) -> [u8; RECORD_BYTES] {
        let (at, kind, value) = match self {
            Self::Start { at_us, log_size } => (at_us, 1u64, log_size),
            Self::Output { at_us, log_end } => (at_us, 2, log_end),
            Self::Grid { at_us, cols, rows } => (at_us, 3, u64::from(cols) << 16 | u64::from(rows)),
        };
        let mut out = [0; RECORD_BYTES];
        out[..8].copy_from_slice(&at.to_le_bytes());
        out[8..].copy_from_slice(&(kind << 56 | value & VALUE_MASK).to_le_bytes());
        out
    }

    /// The record's time (Unix microseconds).
    #[must_use]
    pub fn at_us(self) -> u64 {
        match self {
            Self::Start { at_us, .. } | Self::Output { at_us, .. } | Self::Grid { at_us, .. } => {
                at_us
            }
        }
    }

    /// The record stored as `b`; `None` for an unknown kind or a grid value out of range.
    #[must_use]
    pub fn decode(b: &[u8; RECORD_BYTES]) -> Option<Self> {
        let mut at = [0; 8];
        at.copy_from_slice(&b[..8]);
        let mut word = [0; 8];
        word.copy_from_slice(&b[8..]);
        let at_us = u64::from_le_bytes(at);
        let word = u64::from_le_bytes(word);
        let value = word & VALUE_MASK;
        match word >> 56 {
            1 => Some(Self::Start {
                at_us,
                log_size: value,
            }),
            2 => Some(Self::Output {
                at_us,
                log_end: value,
            }),
            3 if value >> 32 == 0 => Some(Self::Grid {
                at_us,
                cols: u16::try_from(value >> 16).ok()?,
                rows: u16::try_from(value & 0xffff).ok()?,
            }),
            _ => None,
        }
    }
}

/// Every record of a timing file's bytes, in order (a trailing partial record left out); `Err`
/// with the offset of the first record that is not one.
pub fn decode_all(bytes: &[u8]) -> Result<Vec<Record>, usize> {
    bytes
        .chunks_exact(RECORD_BYTES)
        .enumerate()
        .map(|(i, c)| {
            let mut r = [0; RECORD_BYTES];
            r.copy_from_slice(c);
            Record::decode(&r).ok_or(i * RECORD_BYTES)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn records_survive_their_encoding_and_unknown_kinds_are_refused() {
        let all = [
            Record::Start {
                at_us: 1,
                log_size: VALUE_MASK,
            },
            Record::Output {
                at_us: u64::MAX,
                log_end: 0,
            },
            Record::Grid {
                at_us: 7,
                cols: 1000,
                rows: u16::MAX,
            },
        ];
        let bytes: Vec<u8> = all.iter().flat_map(|r| r.encode()).collect();
        assert_eq!(decode_all(&bytes), Ok(all.to_vec()));
        // A torn last record is not one.
        assert_eq!(decode_all(&bytes[..bytes.len() - 3]), Ok(all[..2].to_vec()));
        let mut bad = bytes.clone();
        bad[RECORD_BYTES + 15] = 9;
        assert_eq!(decode_all(&bad), Err(RECORD_BYTES));
        let mut wide_grid = Record::Grid {
            at_us: 0,
            cols: 1,
            rows: 1,
        }
        .encode();
        wide_grid[12] = 1;
        assert_eq!(Record::decode(&wide_grid), None);
    }
}
