//! Word between the replicas on one database (`store::Topic`): what one replica changes that
//! another must act on without waiting for its next look — a node's link taken, a node's or a
//! subshell's row changed (the live feeds of every replica publish it), a channel's new entry
//! (every replica's long-polls wake), a credential or an account changed (every replica's open
//! sockets re-check their grants), a pane's viewers changed (every replica's terminals on it hear
//! who watches now, the pane is fitted to every viewer's grid, and each replica's notifier learns
//! who watches: the "needs you" rules hold back while its owner watches, wherever). A replica
//! says a word after its own change, without waiting for it ([`Words::say`]), or in the
//! transaction that makes it; the others read the rows the word names and act as if the change
//! were theirs, except that they tell no notifier of news (the replica that made the change did)
//! and say nothing further. A listening connection that was lost is followed by a look at
//! everything a lost word could have been about: the links squared with the rows, every grant
//! re-checked, every long-poll woken, every watched pane's viewers read again.

use std::sync::Arc;

use crate::store::{Heard, Store, Topic, Word};

/// What this replica says to the others.
#[derive(Clone)]
pub struct Words {
    store: Store,
    replica: String,
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Words")
            .field("replica", &self.replica)
            .finish_non_exhaustive()
    }
}

impl Words {
    /// Words of replica `replica`.
    #[must_use]
    pub fn new(store: Store, replica: String) -> Self {
        Self { store, replica }
    }

    /// Says `topic` about `id` to the other replicas, on a task of its own (the change is made
    /// and published here already; nothing waits for the word). Nothing on SQLite.
    pub fn say(&self, topic: Topic, id: &str) {
        if self.store.backend() != crate::store::Backend::Postgres {
            return;
        }
        let (store, replica, id) = (self.store.clone(), self.replica.clone(), id.to_owned());
        smol::spawn(async move {
            if let Err(e) = store.say(&replica, topic, &id).await {
                tracing::debug!(?topic, error = %e, "a word to the other replicas was not said");
            }
        })
        .detach();
    }
}

/// The signal that a credential or an account changed: every open terminal socket and live
/// feed, on every replica, re-checks its grant at once instead of at its next periodic check.
#[derive(Debug)]
pub struct AccessSignal {
    event: event_listener::Event,
    words: Words,
}

impl AccessSignal {
    /// A signal whose changes are said to the other replicas through `words`.
    #[must_use]
    pub fn new(words: Words) -> Self {
        Self {
            event: event_listener::Event::new(),
            words,
        }
    }

    /// Access changed here: every socket here re-checks now, and the other replicas are told.
    pub fn changed(&self) {
        self.event.notify(usize::MAX);
        self.words.say(Topic::Access, "");
    }

    /// Every socket on this replica re-checks now (another replica's change, or this replica's
    /// shutdown: nothing to tell the others).
    pub fn here(&self) {
        self.event.notify(usize::MAX);
    }

    /// A listener woken at the next change.
    pub fn listen(&self) -> event_listener::EventListener {
        self.event.listen()
    }
}

impl super::Services {
    /// Listens to the other replicas' words while the services live and the replica has not
    /// left (PostgreSQL: nothing to hear on SQLite). A listening connection that cannot be made
    /// again is tried again after a heartbeat.
    pub(super) async fn spawn_hearing(self: &Arc<Self>) {
        let mut listener = match self.store().word_listener().await {
            Ok(Some(l)) => l,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(error = %e, "cannot hear the other replicas: what they change is seen here at the next look");
                return;
            }
        };
        let svc = Arc::downgrade(self);
        let cluster = self.cluster().clone();
        smol::spawn(async move {
            loop {
                let left = cluster.left_listener();
                if cluster.has_left() {
                    return;
                }
                let heard =
                    futures_lite::future::or(async { Some(listener.next().await) }, async {
                        left.await;
                        None
                    })
                    .await;
                let Some(heard) = heard else { return };
                let Some(svc) = svc.upgrade() else { return };
                match heard {
                    Ok(Heard::Word(w)) => svc.hear(w).await,
                    Ok(Heard::Lost) => svc.heard_nothing_for_a_while().await,
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot hear the other replicas; trying again");
                        drop(svc);
                        let left = cluster.left_listener();
                        // Paced: the database is out of reach.
                        if crate::wait::within(super::cluster::HEARTBEAT, left)
                            .await
                            .is_some()
                        {
                            return;
                        }
                    }
                }
            }
        })
        .detach();
    }

    /// Acts on another replica's word (this replica's own words come back too: ignored).
    async fn hear(&self, w: Word) {
        if w.replica == self.links().replica() {
            return;
        }
        match w.topic {
            // The replica that took the link publishes the node's row (a `Node` word).
            Topic::Link => {
                self.links()
                    .check_holder(self.store(), &w.id, self.now_ms())
                    .await;
                self.peers.refresh(&w.id).await;
            }
            Topic::Node => self.publisher.publish_node_here(&w.id).await,
            Topic::Subshell => self.publisher.publish_subshell_here(&w.id).await,
            Topic::Gone => self.publisher.publish_gone_heard(&w.id).await,
            Topic::Channel => self.channels.appended_elsewhere(&w.id).await,
            Topic::Access => self.terminals.access.here(),
            Topic::Viewers => self.terminals.pumps().viewers_heard(&w.id).await,
        }
    }

    /// The listening connection was lost and made again: whatever a lost word was about is
    /// looked at again.
    async fn heard_nothing_for_a_while(&self) {
        tracing::info!(
            "the connection that hears the other replicas was lost and made again; looking at what a lost word could have been about"
        );
        self.reconcile_links().await;
        self.terminals.access.here();
        self.channels.wake_readers();
        for pump in self.terminals.pumps().all() {
            self.terminals
                .pumps()
                .viewers_heard(&pump.subshell_id)
                .await;
        }
    }
}
