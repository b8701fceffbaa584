//! Counted places for long-lived connections: at most so many in all and so many per key (an
//! account, a node). A connection takes a [`Slot`] before it is accepted and holds it for its
//! life; dropping the slot gives the place back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    by_key: HashMap<String, usize>,
}

/// Places for connections, with a limit in all and one per key.
#[derive(Debug)]
pub struct Slots {
    total: usize,
    each: usize,
    counts: Arc<Mutex<Counts>>,
    given_back: Arc<event_listener::Event>,
}

/// Which limit refused a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// The key holds its limit already.
    Key,
    /// Every place is taken.
    All,
}

impl Slots {
    /// At most `total` places, at most `each` for one key.
    #[must_use]
    pub fn new(total: usize, each: usize) -> Self {
        Self {
            total,
            each,
            counts: Arc::default(),
            given_back: Arc::default(),
        }
    }

    /// Takes a place for `key`.
    pub fn take(&self, key: &str) -> Result<Slot, Full> {
        let mut c = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        if c.total >= self.total {
            return Err(Full::All);
        }
        let mine = c.by_key.entry(key.to_owned()).or_insert(0);
        if *mine >= self.each {
            return Err(Full::Key);
        }
        *mine += 1;
        c.total += 1;
        Ok(Slot {
            counts: Arc::clone(&self.counts),
            given_back: Arc::clone(&self.given_back),
            key: key.to_owned(),
        })
    }

    /// How many places are taken.
    #[must_use]
    pub fn taken(&self) -> usize {
        self.counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .total
    }

    /// Waits until every place is given back (woken by each one given back; never returns
    /// while places stay taken: the caller bounds the wait).
    pub async fn all_given_back(&self) {
        loop {
            let given_back = self.given_back.listen();
            if self.taken() == 0 {
                return;
            }
            given_back.await;
        }
    }
}

/// One place, given back when dropped.
#[derive(Debug)]
pub struct Slot {
    counts: Arc<Mutex<Counts>>,
    given_back: Arc<event_listener::Event>,
    key: String,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut c = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        c.total = c.total.saturating_sub(1);
        if let Some(n) = c.by_key.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                c.by_key.remove(&self.key);
            }
        }
        drop(c);
        self.given_back.notify(usize::MAX);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_wait_for_every_place_ends_when_the_last_one_is_given_back() {
        use futures_lite::future::poll_once;
        let s = Slots::new(3, 3);
        let a = s.take("a").unwrap();
        let b = s.take("b").unwrap();
        smol::block_on(async {
            let wait = s.all_given_back();
            futures_lite::pin!(wait);
            assert!(poll_once(&mut wait).await.is_none(), "two places taken");
            drop(a);
            assert!(poll_once(&mut wait).await.is_none(), "one place taken");
            drop(b);
            assert!(
                poll_once(&mut wait).await.is_some(),
                "every place given back"
            );
        });
    }

    #[test]
    fn places_are_limited_per_key_and_in_all_and_given_back_when_dropped() {
        let s = Slots::new(3, 2);
        let a1 = s.take("a").unwrap();
        let a2 = s.take("a").unwrap();
        assert_eq!(s.take("a").err(), Some(Full::Key));
        let b1 = s.take("b").unwrap();
        assert_eq!(s.take("c").err(), Some(Full::All));
        assert_eq!(s.taken(), 3);
        drop(a1);
        assert_eq!(s.taken(), 2);
        let a3 = s.take("a").unwrap();
        drop((a2, a3, b1));
        assert_eq!(s.taken(), 0);
        // A key with nothing left is forgotten.
        assert!(s.counts.lock().unwrap().by_key.is_empty());
    }
}
