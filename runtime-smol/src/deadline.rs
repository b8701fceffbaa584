//! The one reactor timer a link driver keeps for its machine's next deadline.
//!
//! A new `smol::Timer` registered on every turn of a driver's loop (a keystroke's command, its
//! result, its output event: several turns each) notifies the reactor each time, a wake-up of
//! the reactor's thread that competes with the keystroke's own work. [`Deadline`] keeps one
//! timer for the loop's life and moves it only when the machine's next deadline comes earlier
//! than the one armed. When the deadline moved later instead (a silence limit pushed back by a
//! frame, say), the timer fires early; the machine's `handle_timeout` fires only what is due, so
//! an early wake-up does nothing but re-arm the timer for the deadline that stands then.

use std::time::Instant;

/// A driver loop's deadline timer; see the module's documentation.
pub(crate) struct Deadline {
    timer: smol::Timer,
    armed: Option<Instant>,
}

impl Deadline {
    pub(crate) fn new() -> Self {
        Self {
            timer: smol::Timer::never(),
            armed: None,
        }
    }

    /// Makes sure the timer fires no later than `want` (nothing to do for `None`).
    pub(crate) fn arm(&mut self, want: Option<Instant>) {
        if let Some(at) = want
            && self.armed.is_none_or(|armed| at < armed)
        {
            self.timer.set_at(at);
            self.armed = Some(at);
        }
    }

    /// The instant the timer is armed for, if it is.
    #[cfg(test)]
    pub(crate) fn armed(&self) -> Option<Instant> {
        self.armed
    }

    /// Completes when the armed timer fires (never while none is armed).
    pub(crate) async fn fired(&mut self) {
        if self.armed.is_none() {
            futures_lite::future::pending::<()>().await;
        }
        (&mut self.timer).await;
        self.armed = None;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use futures_lite::FutureExt as _;

    use super::Deadline;

    fn fires_within(d: &mut Deadline, limit: Duration) -> bool {
        smol::block_on(
            async {
                d.fired().await;
                true
            }
            .or(async {
                smol::Timer::after(limit).await;
                false
            }),
        )
    }

    #[test]
    fn moves_only_earlier_and_fires_then_rearms() {
        let mut d = Deadline::new();
        assert!(
            !fires_within(&mut d, Duration::from_millis(20)),
            "nothing armed"
        );
        let now = std::time::Instant::now();
        d.arm(Some(now + Duration::from_secs(60)));
        // A later deadline leaves the earlier one armed.
        d.arm(Some(now + Duration::from_secs(600)));
        assert_eq!(d.armed(), Some(now + Duration::from_secs(60)));
        // An earlier one moves it.
        d.arm(Some(now + Duration::from_millis(30)));
        assert_eq!(d.armed(), Some(now + Duration::from_millis(30)));
        // `None` leaves it armed.
        d.arm(None);
        assert!(fires_within(&mut d, Duration::from_secs(5)));
        assert_eq!(d.armed(), None, "a fired timer is disarmed");
        assert!(
            !fires_within(&mut d, Duration::from_millis(20)),
            "it does not fire twice"
        );
        d.arm(Some(std::time::Instant::now() + Duration::from_secs(600)));
        assert!(
            !fires_within(&mut d, Duration::from_millis(30)),
            "re-armed for the later deadline"
        );
    }
}
