//! Deadlines a link machine asks to be woken for.

use std::time::Instant;

/// Why a machine wants to be woken (for logs; the machine knows what to do on its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimerKind {
    /// Plane: a classified socket must finish its handshake (10 s → 4410).
    /// Agent: the plane must answer the first flight.
    Handshake,
    /// Plane: a held socket idle for 10 minutes is closed with 4406.
    HeldIdle,
    /// Agent: heartbeat every 15 s.
    Heartbeat,
    /// Agent: inventory push every 5 minutes.
    Inventory,
    /// Agent: the backoff before the next dial is over.
    Redial,
    /// Plane: the online node said nothing for 60 s. Agent: the plane said nothing (not even a
    /// pong) for 45 s.
    Silence,
}

const KINDS: usize = 6;

impl TimerKind {
    const fn index(self) -> usize {
        match self {
            Self::Handshake => 0,
            Self::HeldIdle => 1,
            Self::Heartbeat => 2,
            Self::Inventory => 3,
            Self::Redial => 4,
            Self::Silence => 5,
        }
    }

    const ALL: [Self; KINDS] = [
        Self::Handshake,
        Self::HeldIdle,
        Self::Heartbeat,
        Self::Inventory,
        Self::Redial,
        Self::Silence,
    ];
}

/// One optional deadline per [`TimerKind`].
#[derive(Clone, Debug, Default)]
pub struct TimerTable {
    at: [Option<Instant>; KINDS],
}

impl TimerTable {
    /// Arms `kind` for `at`.
    pub fn set(&mut self, kind: TimerKind, at: Instant) {
        self.at[kind.index()] = Some(at);
    }

    /// Disarms `kind`.
    pub fn stop(&mut self, kind: TimerKind) {
        self.at[kind.index()] = None;
    }

    /// Disarms everything.
    pub fn clear(&mut self) {
        self.at = [None; KINDS];
    }

    /// The deadline of `kind`, if armed.
    #[must_use]
    pub fn get(&self, kind: TimerKind) -> Option<Instant> {
        self.at[kind.index()]
    }

    /// The earliest armed deadline.
    #[must_use]
    pub fn next(&self) -> Option<(Instant, TimerKind)> {
        TimerKind::ALL
            .iter()
            .filter_map(|k| self.get(*k).map(|t| (t, *k)))
            .min_by_key(|(t, _)| *t)
    }

    /// Disarms and returns every kind whose deadline is at or before `now`, earliest first.
    pub fn expired(&mut self, now: Instant) -> Vec<TimerKind> {
        let mut due: Vec<(Instant, TimerKind)> = TimerKind::ALL
            .iter()
            .filter_map(|k| self.get(*k).filter(|t| *t <= now).map(|t| (t, *k)))
            .collect();
        due.sort_by_key(|(t, _)| *t);
        for (_, k) in &due {
            self.stop(*k);
        }
        due.into_iter().map(|(_, k)| k).collect()
    }
}

#[cfg(test)]
// The test takes one arbitrary origin instant and only adds to it.
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn next_is_the_earliest_and_expired_disarms_in_order() {
        let t0 = Instant::now();
        let mut t = TimerTable::default();
        assert_eq!(t.next(), None);
        t.set(TimerKind::Heartbeat, t0 + Duration::from_secs(15));
        t.set(TimerKind::Handshake, t0 + Duration::from_secs(10));
        t.set(TimerKind::Inventory, t0 + Duration::from_secs(300));
        assert_eq!(
            t.next(),
            Some((t0 + Duration::from_secs(10), TimerKind::Handshake))
        );
        assert!(t.expired(t0 + Duration::from_secs(9)).is_empty());
        assert_eq!(
            t.expired(t0 + Duration::from_secs(15)),
            vec![TimerKind::Handshake, TimerKind::Heartbeat]
        );
        assert_eq!(
            t.next(),
            Some((t0 + Duration::from_secs(300), TimerKind::Inventory))
        );
        t.stop(TimerKind::Inventory);
        assert_eq!(t.next(), None);
    }
}
