//! WebSocket close codes of `/ws/node`, shared by both ends so they cannot disagree.

use core::fmt;

/// A close code of the node link (spec: "WebSocket close codes on /ws/node").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u16)]
pub enum CloseCode {
    /// 1000: graceful close (node shutdown, seq-regression drop, plane restart). Ordinary reconnect.
    Normal = 1000,
    /// 1009: an inbound frame above 1 MiB.
    TooBig = 1009,
    /// 4401: no verified identity; also the courtesy close when the node key is rotated or deleted.
    Unauthenticated = 4401,
    /// 4406: update required (below the floor or protocol mismatch); sent by the held idle close.
    UpdateRequired = 4406,
    /// 4409: newest-wins replacement by a newer connection with the same identity.
    Superseded = 4409,
    /// 4410: encrypted link refused (handshake, phase, pin, binding, ciphertext, timeout, register at a pinned row).
    LinkRefused = 4410,
    /// 4411: re-pair signal: a `kx` claim at a row with no matching pin.
    Repair = 4411,
}

impl CloseCode {
    /// Every code, in numeric order.
    pub const ALL: [Self; 7] = [
        Self::Normal,
        Self::TooBig,
        Self::Unauthenticated,
        Self::UpdateRequired,
        Self::Superseded,
        Self::LinkRefused,
        Self::Repair,
    ];

    /// The code for a numeric value, if it is one of ours.
    #[must_use]
    pub const fn from_u16(v: u16) -> Option<Self> {
        Some(match v {
            1000 => Self::Normal,
            1009 => Self::TooBig,
            4401 => Self::Unauthenticated,
            4406 => Self::UpdateRequired,
            4409 => Self::Superseded,
            4410 => Self::LinkRefused,
            4411 => Self::Repair,
            _ => return None,
        })
    }

    /// The numeric value sent in the close frame.
    #[must_use]
    pub const fn as_u16(self) -> u16 {
        self as u16
    }

    /// Whether the agent stops for good on receiving this code (4406 and 4409).
    #[must_use]
    pub const fn is_terminal_for_agent(self) -> bool {
        matches!(self, Self::UpdateRequired | Self::Superseded)
    }
}

impl fmt::Display for CloseCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_u16())
    }
}

/// Close reasons travel in a WebSocket close frame, whose reason is at most 123 bytes of UTF-8.
pub const MAX_CLOSE_REASON_BYTES: usize = 123;

/// Cuts `reason` to fit a close frame without splitting a character.
#[must_use]
pub fn fit_close_reason(reason: &str) -> &str {
    if reason.len() <= MAX_CLOSE_REASON_BYTES {
        return reason;
    }
    let mut end = MAX_CLOSE_REASON_BYTES;
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    &reason[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_its_number() {
        for c in CloseCode::ALL {
            assert_eq!(CloseCode::from_u16(c.as_u16()), Some(c));
        }
        assert_eq!(CloseCode::from_u16(1001), None);
        assert_eq!(CloseCode::from_u16(4400), None);
    }

    #[test]
    fn only_4406_and_4409_end_the_agent() {
        let terminal: Vec<u16> = CloseCode::ALL
            .iter()
            .filter(|c| c.is_terminal_for_agent())
            .map(|c| c.as_u16())
            .collect();
        assert_eq!(terminal, vec![4406, 4409]);
    }

    #[test]
    fn close_reasons_are_cut_on_a_character_boundary() {
        let long = "é".repeat(100);
        let cut = fit_close_reason(&long);
        assert!(cut.len() <= MAX_CLOSE_REASON_BYTES);
        assert_eq!(cut.len() % 2, 0);
        assert_eq!(fit_close_reason("short"), "short");
    }
}
