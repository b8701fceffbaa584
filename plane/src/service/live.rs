//! The whole-user live feed: what changes on everything an account can see, pushed to its open
//! feeds (and, through the same calls, to the notifier: `service/notifications.rs`) (`GET /api/live`, see [`crate::api::terminals::FeedFrame`]).
//!
//! Publishing never waits: each feed has a queue of at most [`FEED_QUEUE`] frames; a feed whose
//! queue is full is closed (4408) and its client lists again over REST, so a client that stops
//! reading costs at most that queue. Who receives a frame is decided when it is published:
//! a subshell's owner, every administrator, and the accounts it is shared with; a node's owner,
//! every administrator, and everyone for the local node; presence goes where the subshell goes.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::Notifications;
use super::dispatch::Dispatcher;
use crate::api::terminals::{FeedFrame, Viewer};
use crate::store::Store;

/// Most frames waiting for one feed.
pub const FEED_QUEUE: usize = 1024;
/// How long who was told a subshell is gone is kept for the other replicas (ms).
const GONE_KEPT_MS: i64 = 60_000;
/// Most feeds open at once on the plane.
pub const MAX_FEEDS: usize = 4096;

/// What a feed's socket gets next.
#[derive(Debug)]
pub enum FeedNext {
    /// A frame (JSON text).
    Frame(String),
    /// The feed fell behind: close it with 4408.
    Behind,
}

#[derive(Default)]
struct QueueState {
    frames: VecDeque<String>,
    behind: bool,
}

/// One feed's queue.
#[derive(Default)]
pub struct FeedQueue {
    state: Mutex<QueueState>,
    notify: event_listener::Event,
}

impl FeedQueue {
    fn push(&self, frame: String) {
        if let Ok(mut s) = self.state.lock() {
            if s.behind {
                return;
            }
            if s.frames.len() >= FEED_QUEUE {
                s.frames.clear();
                s.behind = true;
            } else {
                s.frames.push_back(frame);
            }
        }
        self.notify.notify(1);
    }

    /// Waits for the next frame.
    pub async fn next(&self) -> FeedNext {
        loop {
            let listener = self.notify.listen();
            if let Ok(mut s) = self.state.lock() {
                if s.behind {
                    return FeedNext::Behind;
                }
                if let Some(f) = s.frames.pop_front() {
                    return FeedNext::Frame(f);
                }
            }
            listener.await;
        }
    }
}

struct Sub {
    id: u64,
    user_id: String,
    admin: bool,
    queue: Arc<FeedQueue>,
}

/// Every open feed.
#[derive(Default)]
pub struct LiveBus {
    subs: Mutex<Vec<Sub>>,
    next: AtomicU64,
}

/// Who a frame is for.
pub(crate) struct Audience {
    /// These accounts.
    pub users: HashSet<String>,
    /// Every administrator too.
    pub admins: bool,
    /// Everyone.
    pub everyone: bool,
}

impl LiveBus {
    /// Opens a feed for `user_id`; `None` when [`MAX_FEEDS`] are open.
    pub fn subscribe(&self, user_id: &str, admin: bool) -> Option<(u64, Arc<FeedQueue>)> {
        let mut subs = self.subs.lock().ok()?;
        if subs.len() >= MAX_FEEDS {
            return None;
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let queue = Arc::new(FeedQueue::default());
        subs.push(Sub {
            id,
            user_id: user_id.to_owned(),
            admin,
            queue: Arc::clone(&queue),
        });
        Some((id, queue))
    }

    /// Closes a feed.
    pub fn unsubscribe(&self, id: u64) {
        if let Ok(mut subs) = self.subs.lock() {
            subs.retain(|s| s.id != id);
        }
    }

    /// Number of open feeds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.subs.lock().map_or(0, |s| s.len())
    }

    /// Whether no feed is open.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn publish(&self, frame: &FeedFrame, to: &Audience) {
        let Ok(text) = serde_json::to_string(frame) else {
            return;
        };
        if let Ok(subs) = self.subs.lock() {
            for s in subs.iter() {
                if to.everyone || (to.admins && s.admin) || to.users.contains(&s.user_id) {
                    s.queue.push(text.clone());
                }
            }
        }
    }
}

/// Publishing to the live feeds: what a subshell, a node or a pane's viewers look like now,
/// sent to everyone who sees them (and the notifier told of the same changes). Holds the
/// store (who sees what), the dispatcher (a subshell's view says whether its node is
/// reachable), the bus and the notifications.
pub struct Publisher {
    store: Store,
    dispatcher: Arc<Dispatcher>,
    bus: Arc<LiveBus>,
    notifications: Arc<Notifications>,
    /// What this replica tells the others (a row it published).
    words: super::words::Words,
    /// How long who was told a subshell is gone is kept is counted on it.
    clock: Arc<dyn crate::clock::Clock>,
    /// Told of every subshell row published (those waiting for a pane to end listen to it).
    changed: event_listener::Event,
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher").finish_non_exhaustive()
    }
}

impl Publisher {
    /// Publishes on `bus`.
    #[must_use]
    pub fn new(
        store: Store,
        dispatcher: Arc<Dispatcher>,
        bus: Arc<LiveBus>,
        notifications: Arc<Notifications>,
        words: super::words::Words,
        clock: Arc<dyn crate::clock::Clock>,
    ) -> Self {
        Self {
            clock,
            store,
            dispatcher,
            bus,
            notifications,
            words,
            changed: event_listener::Event::new(),
        }
    }

    /// A listener woken at the next subshell row published (take it before reading the row
    /// it is to tell about, so a change between the two still wakes it).
    #[must_use]
    pub fn on_subshell_change(&self) -> event_listener::EventListener {
        self.changed.listen()
    }

    /// The live feeds.
    #[must_use]
    pub fn bus(&self) -> &LiveBus {
        &self.bus
    }

    /// Who sees subshell `id` (owned by `owner`): its owner, administrators, its shares.
    async fn subshell_audience(&self, id: &str, owner: &str) -> Audience {
        let mut users: HashSet<String> = self
            .store
            .shares(id)
            .await
            .map(|v| v.into_iter().map(|s| s.user_id).collect())
            .unwrap_or_default();
        users.insert(owner.to_owned());
        Audience {
            users,
            admins: true,
            everyone: false,
        }
    }

    /// Publishes subshell `id`'s current view (or its deletion) to the feeds that see it, tells
    /// the notifier, and the other replicas.
    pub async fn publish_subshell(&self, id: &str) {
        self.publish_subshell_row(id, true).await;
        self.words.say(crate::store::Topic::Subshell, id);
    }

    /// Publishes subshell `id`'s current view to the feeds here: another replica changed it
    /// (and told its notifier).
    pub async fn publish_subshell_here(&self, id: &str) {
        self.publish_subshell_row(id, false).await;
    }

    async fn publish_subshell_row(&self, id: &str, notice: bool) {
        self.changed.notify(usize::MAX);
        match self.store.subshell(id).await {
            Ok(Some(row)) => {
                if notice {
                    self.notifications.notice_subshell(&row).await;
                }
                if self.bus.is_empty() {
                    return;
                }
                let to = self.subshell_audience(id, &row.owner_user_id).await;
                let reachable = self.dispatcher.node_reachable(&row.node_id);
                let frame = FeedFrame::Subshell {
                    subshell: Box::new(super::subshells::view_of(&row, reachable)),
                };
                self.bus.publish(&frame, &to);
            }
            Ok(None) => {}
            Err(e) => tracing::debug!(subshell = %id, error = %e, "live feed: row not read"),
        }
    }

    /// Subshell `id` was deleted: what its owner was told of it is cleared.
    pub async fn subshell_deleted(&self, id: &str) {
        self.notifications.notice_gone(id).await;
    }

    /// Publishes that subshell `id` is gone for `users` (and administrators), and tells the
    /// other replicas: who was told is kept in the database a minute for them to read (a word
    /// carries only the id).
    pub async fn publish_subshell_gone(&self, id: &str, users: HashSet<String>, admins: bool) {
        let audience: Vec<String> = users.iter().cloned().collect();
        self.publish_gone_here(id, users, admins);
        if self.store.backend() != crate::store::Backend::Postgres {
            return;
        }
        let now = self.clock.now_ms();
        match self
            .store
            .put_gone(id, &audience, admins, now, now - GONE_KEPT_MS)
            .await
        {
            Ok(()) => self.words.say(crate::store::Topic::Gone, id),
            Err(e) => {
                tracing::debug!(subshell = %id, error = %e, "the other replicas were not told a subshell is gone")
            }
        }
    }

    /// Publishes that subshell `id` is gone to the feeds here, to whom another replica told.
    pub async fn publish_gone_heard(&self, id: &str) {
        match self.store.gone(id).await {
            Ok(Some((users, admins))) => {
                self.publish_gone_here(id, users.into_iter().collect(), admins);
            }
            Ok(None) => {}
            Err(e) => {
                tracing::debug!(subshell = %id, error = %e, "live feed: who was told a subshell is gone was not read")
            }
        }
    }

    fn publish_gone_here(&self, id: &str, users: HashSet<String>, admins: bool) {
        let frame = FeedFrame::SubshellGone {
            subshell_id: id.to_owned(),
        };
        self.bus.publish(
            &frame,
            &Audience {
                users,
                admins,
                everyone: false,
            },
        );
    }

    /// Publishes node `node_id`'s liveness to the feeds that see it, tells the notifier, and
    /// the other replicas.
    pub async fn publish_node(&self, node_id: &str) {
        self.publish_node_row(node_id, true).await;
        self.words.say(crate::store::Topic::Node, node_id);
    }

    /// Publishes node `node_id`'s liveness to the feeds here: another replica changed it (and
    /// told its notifier).
    pub async fn publish_node_here(&self, node_id: &str) {
        self.publish_node_row(node_id, false).await;
    }

    async fn publish_node_row(&self, node_id: &str, notice: bool) {
        let Ok(Some(n)) = self.store.node(node_id).await else {
            return;
        };
        if notice {
            self.notifications.notice_node(&n).await;
        }
        if self.bus.is_empty() {
            return;
        }
        let to = Audience {
            users: n.owner_user_id.iter().cloned().collect(),
            admins: true,
            everyone: n.is_local,
        };
        let frame = FeedFrame::Node {
            node_id: n.id.clone(),
            liveness: n.liveness.clone(),
        };
        self.bus.publish(&frame, &to);
    }

    /// The presence of every pane among `watched` (each with its viewers: see
    /// `Pumps::watched`) a feed of `user_id` may see, for a feed that just opened (presence
    /// frames otherwise come only when a viewer joins or leaves, and a list read now would show
    /// nobody watching).
    pub async fn presence_for(
        &self,
        watched: Vec<(String, Vec<Viewer>)>,
        user_id: &str,
        admin: bool,
    ) -> Vec<FeedFrame> {
        let mut out = Vec::new();
        for (subshell_id, viewers) in watched {
            if viewers.is_empty() {
                continue;
            }
            let Ok(Some(row)) = self.store.subshell(&subshell_id).await else {
                continue;
            };
            let to = self
                .subshell_audience(&subshell_id, &row.owner_user_id)
                .await;
            if to.everyone || to.users.contains(user_id) || (admin && to.admins) {
                out.push(FeedFrame::Presence {
                    subshell_id,
                    viewers,
                });
            }
        }
        out
    }

    /// Publishes who watches subshell `subshell_id` now to the feeds that see it.
    pub async fn publish_presence(&self, subshell_id: &str, viewers: Vec<Viewer>) {
        self.notifications
            .notice_presence(subshell_id, viewers.iter().map(|v| v.user_id.clone()))
            .await;
        if self.bus.is_empty() {
            return;
        }
        let Ok(Some(row)) = self.store.subshell(subshell_id).await else {
            return;
        };
        let to = self
            .subshell_audience(subshell_id, &row.owner_user_id)
            .await;
        let frame = FeedFrame::Presence {
            subshell_id: subshell_id.to_owned(),
            viewers,
        };
        self.bus.publish(&frame, &to);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn a_feed_that_stops_reading_is_closed_not_grown() {
        let bus = LiveBus::default();
        let (_, q) = bus.subscribe("u", false).unwrap();
        let to = Audience {
            users: ["u".to_owned()].into_iter().collect(),
            admins: false,
            everyone: false,
        };
        for _ in 0..FEED_QUEUE {
            bus.publish(&FeedFrame::Pong, &to);
        }
        assert!(matches!(smol::block_on(q.next()), FeedNext::Frame(_)));
        bus.publish(&FeedFrame::Pong, &to);
        bus.publish(&FeedFrame::Pong, &to);
        assert!(matches!(smol::block_on(q.next()), FeedNext::Behind));
    }

    #[test]
    fn frames_go_only_to_their_audience() {
        let bus = LiveBus::default();
        let (_, alice) = bus.subscribe("alice", false).unwrap();
        let (_, admin) = bus.subscribe("root", true).unwrap();
        let to_bob = Audience {
            users: ["bob".to_owned()].into_iter().collect(),
            admins: true,
            everyone: false,
        };
        bus.publish(&FeedFrame::Pong, &to_bob);
        assert!(matches!(smol::block_on(admin.next()), FeedNext::Frame(_)));
        assert!(alice.state.lock().unwrap().frames.is_empty());
    }
}
