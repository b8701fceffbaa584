//! One output pump per pane: the node tails the pane once (`tail_start`/`tail_stop` keyed by
//! `view-<subshell id>`) however many viewers are attached, and stops when the last one leaves.
//!
//! [`Pumps`] is the terminals' output domain: it holds the pumps, the store (a fitted grid is
//! recorded on the row), the clock and the dispatcher (the tails and resizes are node
//! commands), and tells the rest of the plane what changed through a [`PumpNews`] sink the
//! composition root wires to the live feed — it never names the service that listens.
//!
//! `output` events are handed to [`Pumps::route_output`] by the task that reads the node link
//! (or the local node's output thread) and fanned out without waiting: each viewer has its own
//! [`ViewerQueue`], bounded by [`VIEWER_QUEUE_BYTES`]. A viewer whose queue is full is marked
//! behind and its queue emptied (the memory is given back at once); its socket task then sends
//! it a fresh replay. Nothing a viewer does can stall the pump, the other viewers or the link.
//!
//! On a cluster of replicas (PostgreSQL) a pane's viewers are the cluster's: each replica keeps
//! a pump for the viewers attached at it, and each viewer is also a row of the `viewers` table
//! (numbered there, across the cluster), written when it attaches, changes its grid or its
//! sizing and leaves, with a `viewers` word naming the pane. A replica that hears the word reads
//! the pane's rows again ([`Pumps::viewers_heard`]): presence and the held grid are made of every
//! replica's viewers, and every replica with viewers of the pane fits it to that grid (the same
//! grid from the same rows, so the resizes agree; one already made is not made again by that
//! replica). The rows of a replica whose lease lapsed are swept by the others; each replica
//! squares its own rows with its viewers after every renewal of its lease
//! ([`Pumps::square_viewers`]).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use termplane_proto::SubshellId;
use termplane_proto::command::{Command, TailStart, TailStop};
use termplane_proto::event::Output;

use super::super::dispatch::Dispatcher;
use crate::api::terminals::{HeldGrid, Viewer};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::store;

pub use crate::link::VIEWER_TAIL_PREFIX;

/// The key a pump of replica `replica` tails pane `subshell_id` under.
#[must_use]
pub fn viewer_tail_key(subshell_id: &str, replica: &str) -> String {
    format!("{VIEWER_TAIL_PREFIX}{subshell_id}@{replica}")
}

/// The replica whose pump started viewer tail `sub_id`, when it names one.
#[must_use]
pub fn viewer_tail_replica(sub_id: &str) -> Option<&str> {
    sub_id
        .strip_prefix(VIEWER_TAIL_PREFIX)?
        .split_once('@')
        .map(|(_, r)| r)
}

/// Most bytes of output waiting for one viewer before it counts as behind.
pub const VIEWER_QUEUE_BYTES: usize = 1024 * 1024;

/// A replay read from a pane.
#[derive(Clone, Debug)]
pub struct Replay {
    /// Bytes for a fresh terminal.
    pub bytes: Vec<u8>,
    /// The pane-log offset it stands for (output before it is already in the replay); `None`
    /// from a node without the screen replay.
    pub log_offset: Option<u64>,
    /// The pane's grid.
    pub cols: u16,
    /// See `cols`.
    pub rows: u16,
}

/// A piece of a pane's output.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// Log offset of its first byte.
    pub from: u64,
    /// Log offset one past its last byte.
    pub to: u64,
    /// The bytes.
    pub bytes: Arc<[u8]>,
}

/// Something for one viewer besides output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// The viewers changed (or one's grid or sizing): all of them, and who holds the grid.
    Presence(Vec<Viewer>, Option<HeldGrid>),
    /// The shared grid changed.
    Size(u16, u16),
    /// The pane's program ended.
    Exit(Option<i32>),
    /// Close the socket with this code and reason.
    Close(u16, String),
    /// Something this viewer sent could not be done (code, message); the socket stays open.
    Refused(&'static str, String),
}

/// What a viewer's socket task gets next.
#[derive(Debug)]
pub enum Next {
    /// Output.
    Chunk(Chunk),
    /// The viewer's copy of the screen cannot be continued: send a fresh replay.
    Behind(Behind),
    /// A control message.
    Control(Control),
}

/// Why a viewer needs a fresh replay; its `resync` frame says which, and only the first counts
/// against a viewer that keeps falling behind (the others are no fault of its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behind {
    /// Its queue filled: it reads more slowly than the pane prints.
    Slow,
    /// Output was lost between the node and the plane (a gap in the log's offsets).
    Lost,
    /// The node's link came back and the pane's tail started again.
    Reconnected,
}

impl Behind {
    /// The `resync` frame's reason.
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            Self::Slow => "the viewer fell behind the pane's output",
            Self::Lost => "output was lost on the way from the node",
            Self::Reconnected => "the node's link came back",
        }
    }
}

#[derive(Default)]
struct QueueState {
    chunks: VecDeque<Chunk>,
    bytes: usize,
    behind: Option<Behind>,
    controls: VecDeque<Control>,
    closed: bool,
}

/// One viewer's queue.
#[derive(Default)]
pub struct ViewerQueue {
    state: Mutex<QueueState>,
    notify: event_listener::Event,
}

impl std::fmt::Debug for ViewerQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ViewerQueue").finish_non_exhaustive()
    }
}

impl ViewerQueue {
    /// Queues output without waiting; a full queue marks the viewer behind and is emptied.
    pub fn push(&self, c: Chunk) {
        if let Ok(mut s) = self.state.lock() {
            if s.behind.is_some() || s.closed {
                return;
            }
            if s.bytes + c.bytes.len() > VIEWER_QUEUE_BYTES {
                s.chunks.clear();
                s.bytes = 0;
                s.behind = Some(Behind::Slow);
            } else {
                s.bytes += c.bytes.len();
                s.chunks.push_back(c);
            }
        }
        self.notify.notify(1);
    }

    /// Marks the viewer behind for a cause upstream of it ([`Behind::Lost`],
    /// [`Behind::Reconnected`]); a mark already set keeps its first cause.
    pub fn mark_behind(&self, why: Behind) {
        if let Ok(mut s) = self.state.lock() {
            s.chunks.clear();
            s.bytes = 0;
            s.behind.get_or_insert(why);
        }
        self.notify.notify(1);
    }

    /// Queues a control message; a presence or size replaces an older one still waiting.
    pub fn control(&self, c: Control) {
        if let Ok(mut s) = self.state.lock() {
            if s.closed {
                return;
            }
            s.controls.retain(|old| {
                !matches!(
                    (old, &c),
                    (Control::Presence(..), Control::Presence(..))
                        | (Control::Size(..), Control::Size(..))
                )
            });
            if matches!(c, Control::Close(..)) {
                s.closed = true;
            }
            s.controls.push_back(c);
        }
        self.notify.notify(1);
    }

    /// Clears the behind mark (before a fresh replay is read): output from now on is queued.
    pub fn resume(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.behind = None;
        }
    }

    /// Waits for the next thing to send. Control messages come first.
    pub async fn next(&self) -> Next {
        loop {
            let listener = self.notify.listen();
            if let Some(n) = self.try_next() {
                return n;
            }
            listener.await;
        }
    }

    fn try_next(&self) -> Option<Next> {
        let mut s = self.state.lock().ok()?;
        if let Some(c) = s.controls.pop_front() {
            return Some(Next::Control(c));
        }
        if s.closed {
            return None;
        }
        if let Some(why) = s.behind {
            return Some(Next::Behind(why));
        }
        let c = s.chunks.pop_front()?;
        s.bytes -= c.bytes.len();
        Some(Next::Chunk(c))
    }

    /// Bytes waiting (tests, metrics).
    #[must_use]
    pub fn queued_bytes(&self) -> usize {
        self.state.lock().map_or(0, |s| s.bytes)
    }
}

struct Entry {
    queue: Arc<ViewerQueue>,
    info: Viewer,
    can_write: bool,
}

#[derive(Default)]
struct PumpState {
    viewers: BTreeMap<u64, Entry>,
    /// The pane's viewers at the other replicas of a cluster (whether each may type), as last
    /// read from the database ([`Pumps::viewers_heard`]).
    elsewhere: BTreeMap<u64, (Viewer, bool)>,
    next_id: u64,
    grid: Option<(u16, u16)>,
    /// One past the last byte delivered.
    last_to: Option<u64>,
}

/// The pump of one pane.
pub struct Pump {
    /// The pane.
    pub subshell_id: String,
    /// Its node.
    pub node_id: String,
    /// Its tail's key on the node: `view-<subshell id>@<replica>`, so that the replica holding
    /// the node's link knows which replica's viewers its output is for.
    tail_key: String,
    state: Mutex<PumpState>,
    /// Whether the node's tail runs (held while starting or stopping it).
    tail: smol::lock::Mutex<bool>,
    /// Held while the viewers elsewhere are read and taken in, so that an older read never
    /// replaces a newer one.
    reading: smol::lock::Mutex<()>,
}

impl std::fmt::Debug for Pump {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pump")
            .field("subshell_id", &self.subshell_id)
            .finish_non_exhaustive()
    }
}

impl Pump {
    /// The tail key of this pane on its node.
    #[must_use]
    pub fn sub_id(&self) -> String {
        self.tail_key.clone()
    }

    /// Every viewer of the pane, here and at the other replicas, by number.
    pub(crate) fn presence(&self) -> Vec<Viewer> {
        self.state
            .lock()
            .map(|s| {
                let mut all: Vec<Viewer> = s
                    .viewers
                    .values()
                    .map(|e| e.info.clone())
                    .chain(s.elsewhere.values().map(|(v, _)| v.clone()))
                    .collect();
                all.sort_by_key(|v| v.viewer_id);
                all
            })
            .unwrap_or_default()
    }

    fn queues(&self) -> Vec<Arc<ViewerQueue>> {
        self.state
            .lock()
            .map(|s| s.viewers.values().map(|e| Arc::clone(&e.queue)).collect())
            .unwrap_or_default()
    }

    /// The grid the viewers that take part in sizing hold the pane to (the smallest of theirs),
    /// if any of them has a grid.
    #[must_use]
    pub fn held_grid(&self) -> Option<(u16, u16)> {
        self.held().map(|h| (h.cols, h.rows))
    }

    /// [`Self::held_grid`] with the viewers that hold it (here and at the other replicas).
    #[must_use]
    pub fn held(&self) -> Option<HeldGrid> {
        let s = self.state.lock().ok()?;
        held_by(
            s.viewers
                .values()
                .map(|e| (&e.info, e.can_write))
                .chain(s.elsewhere.values().map(|(v, w)| (v, *w))),
        )
    }

    /// Number of viewers attached here.
    #[must_use]
    pub fn viewer_count(&self) -> usize {
        self.state.lock().map_or(0, |s| s.viewers.len())
    }
}

/// Whether a viewer's grid counts towards the pane's size: it may type, watches with no
/// read-only wish and did not ask to stay out of sizing.
fn takes_part(v: &Viewer, can_write: bool) -> bool {
    can_write && !v.read_only && v.sizing
}

/// The smallest grid among the viewers (each with whether it may type) that take part in
/// sizing and have one, and who holds it: the viewer with the fewest columns (ties: fewer rows,
/// then the earlier viewer) and the one with the fewest rows (likewise).
fn held_by<'a>(viewers: impl Iterator<Item = (&'a Viewer, bool)>) -> Option<HeldGrid> {
    let grids: Vec<(u64, u16, u16)> = viewers
        .filter(|(v, w)| takes_part(v, *w))
        .filter_map(|(v, _)| Some((v.viewer_id, v.cols?, v.rows?)))
        .collect();
    let &(cols_by, cols, _) = grids.iter().min_by_key(|(id, c, r)| (*c, *r, *id))?;
    let &(rows_by, _, rows) = grids.iter().min_by_key(|(id, c, r)| (*r, *c, *id))?;
    Some(HeldGrid {
        cols,
        rows,
        cols_by,
        rows_by,
    })
}

/// What the pumps tell the rest of the plane (the live feed, through the composition root).
#[derive(Clone, Debug)]
pub enum PumpNews {
    /// The viewers of a pane changed (who is attached, a grid, sizing).
    Presence {
        /// The subshell.
        subshell_id: String,
        /// Its viewers now.
        viewers: Vec<Viewer>,
    },
    /// A pane was fitted to a new grid, recorded on its row.
    Grid {
        /// The subshell.
        subshell_id: String,
    },
}

/// Where [`PumpNews`] goes; called without waiting, from any task.
pub type PumpSink = Box<dyn Fn(PumpNews) + Send + Sync>;

/// Every pump, by subshell id, and what they need.
pub struct Pumps {
    by_subshell: Mutex<HashMap<String, Arc<Pump>>>,
    /// Viewers (pane, number) that left here whose row could not be removed (the database was
    /// out of reach): removed at the next look ([`Self::square_viewers`]).
    unremoved: Mutex<Vec<(String, u64)>>,
    store: store::Store,
    clock: Arc<dyn Clock>,
    dispatcher: Arc<Dispatcher>,
    news: PumpSink,
}

impl std::fmt::Debug for Pumps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pumps").finish_non_exhaustive()
    }
}

impl Pumps {
    /// No pump yet; `news` hears of presence and grid changes.
    #[must_use]
    pub fn new(
        store: store::Store,
        clock: Arc<dyn Clock>,
        dispatcher: Arc<Dispatcher>,
        news: PumpSink,
    ) -> Self {
        Self {
            by_subshell: Mutex::default(),
            unremoved: Mutex::default(),
            store,
            clock,
            dispatcher,
            news,
        }
    }

    /// Viewers attached to any pane (for the metrics).
    #[must_use]
    pub fn viewer_total(&self) -> usize {
        self.by_subshell
            .lock()
            .map_or(0, |all| all.values().map(|p| p.viewer_count()).sum())
    }

    /// Every pump now.
    #[must_use]
    pub fn all(&self) -> Vec<Arc<Pump>> {
        self.by_subshell
            .lock()
            .map(|all| all.values().cloned().collect())
            .unwrap_or_default()
    }
}

/// A viewer's place in a pump.
#[derive(Clone, Debug)]
pub struct ViewerHandle {
    /// The pump.
    pub pump: Arc<Pump>,
    /// The viewer's number.
    pub id: u64,
    /// Its queue.
    pub queue: Arc<ViewerQueue>,
}

impl Pumps {
    /// Joins the pump of `row` (creating it, and starting the node's tail for the first viewer).
    pub async fn join_pump(
        &self,
        row: &store::Subshell,
        mut info: Viewer,
        can_write: bool,
    ) -> Result<ViewerHandle, ApiError> {
        let queue = Arc::new(ViewerQueue::default());
        // On a cluster the viewer is numbered by the database, among every replica's.
        let numbered = if self.store.shares_viewers() {
            Some(
                self.store
                    .add_viewer(self.dispatcher.replica(), &row.id, can_write, &info)
                    .await?,
            )
        } else {
            None
        };
        let (pump, id) = {
            let mut all = self.by_subshell.lock().map_err(|_| ApiError::internal())?;
            let pump = Arc::clone(all.entry(row.id.clone()).or_insert_with(|| {
                Arc::new(Pump {
                    tail_key: viewer_tail_key(&row.id, self.dispatcher.replica()),
                    subshell_id: row.id.clone(),
                    node_id: row.node_id.clone(),
                    state: Mutex::default(),
                    tail: smol::lock::Mutex::new(false),
                    reading: smol::lock::Mutex::new(()),
                })
            }));
            let mut s = pump.state.lock().map_err(|_| ApiError::internal())?;
            let id = numbered.unwrap_or_else(|| {
                s.next_id += 1;
                s.next_id
            });
            info.viewer_id = id;
            s.viewers.insert(
                id,
                Entry {
                    queue: Arc::clone(&queue),
                    info,
                    can_write,
                },
            );
            drop(s);
            (pump, id)
        };
        let handle = ViewerHandle {
            pump: Arc::clone(&pump),
            id,
            queue,
        };
        if numbered.is_some()
            && let Err(e) = self.read_elsewhere(&pump).await
        {
            self.leave_pump(&handle).await;
            return Err(e);
        }
        let mut running = pump.tail.lock().await;
        if !*running {
            let started = self
                .dispatcher
                .node_command(
                    &pump.node_id,
                    Command::TailStart(TailStart {
                        subshell_id: SubshellId::parse(&pump.subshell_id)
                            .map_err(|_| ApiError::internal())?,
                        sub_id: pump.sub_id(),
                        from_byte: None,
                    }),
                )
                .await
                .and_then(super::super::dispatch::node_data);
            if let Err(e) = started {
                drop(running);
                self.leave_pump(&handle).await;
                return Err(e);
            }
            *running = true;
        }
        Ok(handle)
    }

    /// Leaves a pump; the last viewer out stops the node's tail. Presence is broadcast.
    pub async fn leave_pump(&self, h: &ViewerHandle) {
        let pump = &h.pump;
        let empty = pump
            .state
            .lock()
            .map(|mut s| {
                s.viewers.remove(&h.id);
                s.viewers.is_empty()
            })
            .unwrap_or(true);
        if self.store.shares_viewers()
            && let Err(e) = self
                .store
                .remove_viewer(self.dispatcher.replica(), &pump.subshell_id, h.id)
                .await
        {
            tracing::warn!(subshell = %pump.subshell_id, error = %e, "a viewer that left is still listed for the other replicas; removing it at the next look");
            if let Ok(mut u) = self.unremoved.lock() {
                u.push((pump.subshell_id.clone(), h.id));
            }
        }
        if !empty {
            self.broadcast_presence(pump);
            // The grid follows the viewers that remain.
            if let Err(e) = self.fit(pump).await {
                tracing::debug!(subshell = %pump.subshell_id, code = e.code, "grid not refitted");
            }
            return;
        }
        // Nobody watches now: the live feeds (and the "needs you" rules) hear of it.
        self.broadcast_presence(pump);
        let mut running = pump.tail.lock().await;
        if *running && pump.viewer_count() == 0 {
            let stop = self
                .dispatcher
                .node_command(
                    &pump.node_id,
                    Command::TailStop(TailStop {
                        sub_id: pump.sub_id(),
                    }),
                )
                .await;
            if let Err(e) = stop {
                tracing::debug!(subshell = %pump.subshell_id, code = e.code, "tail_stop not delivered");
            }
            *running = false;
        }
        drop(running);
        if let Ok(mut all) = self.by_subshell.lock()
            && pump.viewer_count() == 0
            && all
                .get(&pump.subshell_id)
                .is_some_and(|p| Arc::ptr_eq(p, pump))
        {
            all.remove(&pump.subshell_id);
        }
    }

    /// The pump of a subshell, if any viewer is attached.
    #[must_use]
    pub fn pump_of(&self, subshell_id: &str) -> Option<Arc<Pump>> {
        self.by_subshell
            .lock()
            .ok()
            .and_then(|all| all.get(subshell_id).cloned())
    }

    /// Fans one `output` event of node `node_id` out to the viewers of its pane, without
    /// waiting. An event for a tail this plane did not start, or from another node, is dropped.
    pub fn route_output(&self, node_id: &str, o: &Output) {
        if o.to_byte < o.from_byte || !o.sub_id.starts_with(VIEWER_TAIL_PREFIX) {
            return;
        }
        let Ok(bytes) = termplane_proto::key::b64url_decode(&o.data_b64) else {
            return;
        };
        if o.to_byte - o.from_byte != bytes.len() as u64 {
            return;
        }
        self.route_bytes(node_id, &o.sub_id, o.from_byte, &bytes);
    }

    /// [`Pumps::route_output`] for bytes already decoded: `bytes` read from the log of tail
    /// `sub_id` at offset `from`. Answers whether the tail is a viewer tail (whatever became of
    /// the bytes), so the local node's tails hand their output here directly.
    pub fn route_bytes(&self, node_id: &str, sub_id: &str, from: u64, bytes: &[u8]) -> bool {
        let Some(id) = sub_id.strip_prefix(VIEWER_TAIL_PREFIX) else {
            return false;
        };
        let id = id.split_once('@').map_or(id, |(id, _)| id);
        let Some(pump) = self.pump_of(id) else {
            return true;
        };
        // Output of another replica's tail of this pane (or of an earlier one) is not this
        // pump's.
        if pump.node_id != node_id || pump.tail_key != sub_id {
            return true;
        }
        let to = from + bytes.len() as u64;
        self.store.metrics().terminal_bytes(bytes.len());
        let chunk = Chunk {
            from,
            to,
            bytes: bytes.into(),
        };
        let gap = pump
            .state
            .lock()
            .map(|mut s| {
                let gap = s.last_to.is_some_and(|t| from > t);
                s.last_to = Some(to);
                gap
            })
            .unwrap_or(false);
        for q in pump.queues() {
            if gap {
                // Output was lost on the way (a link that dropped and came back).
                q.mark_behind(Behind::Lost);
            } else {
                q.push(chunk.clone());
            }
        }
        true
    }

    /// Sends every viewer of a pump who is attached now.
    pub fn broadcast_presence(&self, pump: &Pump) {
        let p = pump.presence();
        let held = pump.held();
        for q in pump.queues() {
            q.control(Control::Presence(p.clone(), held));
        }
        // And to the live feeds of everyone who sees the pane.
        (self.news)(PumpNews::Presence {
            subshell_id: pump.subshell_id.clone(),
            viewers: p,
        });
    }

    /// Records viewer `h`'s grid and fits the pane to the smallest grid of the viewers that take
    /// part in sizing; the viewers hear of the new grid (`presence`) and of the pane's new size
    /// when it changed. The pane's grid is resized only when that smallest grid differs from
    /// what it was.
    pub async fn viewer_grid(
        &self,
        h: &ViewerHandle,
        grid: Option<(u16, u16)>,
    ) -> Result<(), ApiError> {
        self.change_viewer(h, |v| {
            v.cols = grid.map(|g| g.0);
            v.rows = grid.map(|g| g.1);
        })
        .await
    }

    /// Records whether viewer `h`'s grid takes part in the pane's size, and fits the pane
    /// again as [`Self::viewer_grid`] does.
    pub async fn viewer_sizing(&self, h: &ViewerHandle, on: bool) -> Result<(), ApiError> {
        self.change_viewer(h, |v| v.sizing = on).await
    }

    async fn change_viewer(
        &self,
        h: &ViewerHandle,
        change: impl FnOnce(&mut Viewer),
    ) -> Result<(), ApiError> {
        // The change, made on a copy: on a cluster it is taken here only once the other
        // replicas can read it (a viewer's frames are taken one at a time, so nothing else
        // changes this viewer meanwhile).
        let changed = h.pump.state.lock().ok().and_then(|s| {
            s.viewers.get(&h.id).and_then(|e| {
                let mut after = e.info.clone();
                change(&mut after);
                (after != e.info).then_some((after, e.can_write))
            })
        });
        if let Some((info, can_write)) = changed {
            if self.store.shares_viewers() {
                self.store
                    .put_viewer(
                        self.dispatcher.replica(),
                        &h.pump.subshell_id,
                        can_write,
                        &info,
                    )
                    .await?;
            }
            if let Ok(mut s) = h.pump.state.lock()
                && let Some(e) = s.viewers.get_mut(&h.id)
            {
                e.info = info;
            }
            self.broadcast_presence(&h.pump);
        }
        self.fit(&h.pump).await
    }

    /// Reads the pane's viewers at the other replicas into `pump` (a cluster on PostgreSQL).
    async fn read_elsewhere(&self, pump: &Pump) -> Result<(), ApiError> {
        let _turn = pump.reading.lock().await;
        let me = self.dispatcher.replica();
        let rows = self.store.viewers_of(&pump.subshell_id).await?;
        if let Ok(mut s) = pump.state.lock() {
            s.elsewhere = rows
                .into_iter()
                .filter(|r| r.replica != me)
                .map(|r| (r.info.viewer_id, (r.info, r.can_write)))
                .collect();
        }
        Ok(())
    }

    /// The viewers of pane `subshell_id` changed at another replica (its word, or its rows
    /// swept): this replica's viewers of the pane hear who watches now and the pane is fitted to
    /// every viewer's grid; without viewers here, the live feeds and the notifier hear of it.
    pub async fn viewers_heard(&self, subshell_id: &str) {
        if let Some(pump) = self.pump_of(subshell_id) {
            if let Err(e) = self.read_elsewhere(&pump).await {
                tracing::debug!(subshell = %subshell_id, code = e.code, "the viewers elsewhere were not read");
                return;
            }
            self.broadcast_presence(&pump);
            if let Err(e) = self.fit(&pump).await {
                tracing::debug!(subshell = %subshell_id, code = e.code, "grid not refitted");
            }
            return;
        }
        match self.store.viewers_of(subshell_id).await {
            Ok(rows) => (self.news)(PumpNews::Presence {
                subshell_id: subshell_id.to_owned(),
                viewers: rows.into_iter().map(|r| r.info).collect(),
            }),
            Err(e) => {
                tracing::debug!(subshell = %subshell_id, error = %e, "the viewers elsewhere were not read");
            }
        }
    }

    /// Squares the viewers' rows with what is so, after each renewal of this replica's lease
    /// (a cluster on PostgreSQL): the viewers of replicas whose lease lapsed are removed (they
    /// cannot leave by themselves) and what that changes here is taken in (the others hear of
    /// it); this replica's own viewers whose row could not be removed when they left are removed
    /// now, and those whose row is missing (swept by the others while this replica's lease had
    /// lapsed) are written again.
    pub async fn square_viewers(&self) {
        if !self.store.shares_viewers() {
            return;
        }
        self.sweep_lapsed_viewers().await;
        let me = self.dispatcher.replica();
        let unremoved = self
            .unremoved
            .lock()
            .map(|mut u| std::mem::take(&mut *u))
            .unwrap_or_default();
        for (pane, id) in unremoved {
            if self.store.remove_viewer(me, &pane, id).await.is_err()
                && let Ok(mut u) = self.unremoved.lock()
            {
                u.push((pane, id));
            }
        }
        // The rows first, then the viewers: a viewer that joins meanwhile has its row already
        // (written again unchanged), one that leaves is gone from the viewers first.
        let rows = match self.store.viewers_at(me).await {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!(error = %e, "this replica's viewers were not squared with their rows");
                return;
            }
        };
        let rows: std::collections::HashSet<u64> = rows.into_iter().collect();
        let missing: Vec<(String, Viewer, bool)> = self
            .all()
            .iter()
            .flat_map(|p| {
                p.state
                    .lock()
                    .map(|s| {
                        s.viewers
                            .values()
                            .filter(|e| !rows.contains(&e.info.viewer_id))
                            .map(|e| (p.subshell_id.clone(), e.info.clone(), e.can_write))
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
            })
            .collect();
        for (pane, info, can_write) in missing {
            if let Err(e) = self.store.put_viewer(me, &pane, can_write, &info).await {
                tracing::debug!(subshell = %pane, error = %e, "a viewer's row was not written again");
            }
        }
    }

    /// Removes the viewers of replicas whose lease lapsed (they cannot leave by themselves),
    /// and takes in what that changes here (the others hear of it).
    async fn sweep_lapsed_viewers(&self) {
        match self
            .store
            .sweep_viewers(self.dispatcher.replica(), self.clock.now_ms())
            .await
        {
            Ok(panes) => {
                for p in panes {
                    self.viewers_heard(&p).await;
                }
            }
            Err(e) => tracing::debug!(error = %e, "the viewers of lapsed replicas were not swept"),
        }
    }

    /// Every watched pane and its viewers: at every replica on a cluster (read from the
    /// database), else this plane's own pumps.
    pub async fn watched(&self) -> Vec<(String, Vec<Viewer>)> {
        if self.store.shares_viewers() {
            match self.store.all_viewers().await {
                Ok(rows) => {
                    let mut out: Vec<(String, Vec<Viewer>)> = Vec::new();
                    for r in rows {
                        match out.last_mut() {
                            Some((id, vs)) if *id == r.subshell_id => vs.push(r.info),
                            _ => out.push((r.subshell_id, vec![r.info])),
                        }
                    }
                    return out;
                }
                Err(e) => {
                    tracing::debug!(error = %e, "the viewers at every replica were not read; telling this replica's");
                }
            }
        }
        self.all()
            .into_iter()
            .map(|p| (p.subshell_id.clone(), p.presence()))
            .filter(|(_, v)| !v.is_empty())
            .collect()
    }

    /// The grid the viewers that take part in sizing hold pane `subshell_id` to, at whichever
    /// replica they are attached.
    pub async fn held_grid_of(&self, subshell_id: &str) -> Result<Option<(u16, u16)>, ApiError> {
        if let Some(p) = self.pump_of(subshell_id) {
            return Ok(p.held_grid());
        }
        if !self.store.shares_viewers() {
            return Ok(None);
        }
        let rows = self.store.viewers_of(subshell_id).await?;
        Ok(held_by(rows.iter().map(|r| (&r.info, r.can_write))).map(|h| (h.cols, h.rows)))
    }

    /// Fits the pane to the smallest grid of the viewers that take part in sizing.
    pub async fn fit(&self, pump: &Pump) -> Result<(), ApiError> {
        let Some(want) = pump.held_grid() else {
            return Ok(());
        };
        let changed = pump
            .state
            .lock()
            .map(|mut s| {
                let changed = s.grid != Some(want);
                s.grid = Some(want);
                changed
            })
            .unwrap_or(false);
        if changed {
            if let Err(e) = self
                .resize_pane(&pump.node_id, &pump.subshell_id, want.0, want.1)
                .await
            {
                // The pane keeps a size nobody knows for sure now: the next fit resizes it
                // whatever it wants (a viewer's next grid, or the node's link coming back).
                if let Ok(mut s) = pump.state.lock() {
                    s.grid = None;
                }
                return Err(e);
            }
            for q in pump.queues() {
                q.control(Control::Size(want.0, want.1));
            }
            // The row shows the grid the pane has (`GET /api/subshells/:id`, the live feed).
            if let Err(e) = self
                .store
                .set_subshell_grid(
                    &pump.subshell_id,
                    i64::from(want.0),
                    i64::from(want.1),
                    self.clock.now_ms(),
                )
                .await
            {
                tracing::debug!(subshell = %pump.subshell_id, error = %e, "the fitted grid was not recorded");
            } else {
                (self.news)(PumpNews::Grid {
                    subshell_id: pump.subshell_id.clone(),
                });
            }
        }
        Ok(())
    }

    /// Tells every viewer of a subshell that its program ended, then closes them (1000).
    pub fn pane_ended(&self, subshell_id: &str, exit_code: Option<i32>) {
        if let Some(p) = self.pump_of(subshell_id) {
            for q in p.queues() {
                q.control(Control::Exit(exit_code));
                q.control(Control::Close(1000, "the pane's program ended".into()));
            }
        }
    }

    /// Closes the viewers of a subshell (all of them, or one account's) with `code`.
    pub fn close_viewers(&self, subshell_id: &str, user_id: Option<&str>, code: u16, reason: &str) {
        if let Some(p) = self.pump_of(subshell_id)
            && let Ok(s) = p.state.lock()
        {
            for e in s.viewers.values() {
                if user_id.is_none_or(|u| u == e.info.user_id) {
                    e.queue.control(Control::Close(code, reason.to_owned()));
                }
            }
        }
    }

    /// After a node's link came back: every pump on it starts its tail again where it stopped,
    /// and its viewers get a fresh replay (output sent while the link was down was lost).
    pub async fn node_relinked(&self, node_id: &str) {
        let pumps: Vec<Arc<Pump>> = self
            .by_subshell
            .lock()
            .map(|all| {
                all.values()
                    .filter(|p| p.node_id == node_id)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        for pump in pumps {
            let running = pump.tail.lock().await;
            if !*running {
                continue;
            }
            let from = pump.state.lock().ok().and_then(|s| s.last_to);
            let Ok(sid) = SubshellId::parse(&pump.subshell_id) else {
                continue;
            };
            let r = self
                .dispatcher
                .node_command(
                    node_id,
                    Command::TailStart(TailStart {
                        subshell_id: sid,
                        sub_id: pump.sub_id(),
                        from_byte: from,
                    }),
                )
                .await;
            drop(running);
            if let Err(e) = r {
                tracing::debug!(subshell = %pump.subshell_id, code = e.code, "tail not restarted");
            }
            for q in pump.queues() {
                q.mark_behind(Behind::Reconnected);
            }
            // A resize refused while the link was down, or one made on the node meanwhile:
            // the pane is fitted to its viewers again.
            if let Ok(mut s) = pump.state.lock() {
                s.grid = None;
            }
            if let Err(e) = self.fit(&pump).await {
                tracing::debug!(subshell = %pump.subshell_id, code = e.code, "pane not refitted");
            }
        }
    }

    /// Resizes a pane's grid on its node.
    pub async fn resize_pane(
        &self,
        node_id: &str,
        subshell_id: &str,
        cols: u16,
        rows: u16,
    ) -> Result<(), ApiError> {
        let sid = SubshellId::parse(subshell_id).map_err(|_| ApiError::internal())?;
        let r = self
            .dispatcher
            .node_command(
                node_id,
                Command::Resize(termplane_proto::command::Resize {
                    subshell_id: sid,
                    cols,
                    rows,
                }),
            )
            .await?;
        super::super::dispatch::node_data(r).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn chunk(from: u64, n: usize) -> Chunk {
        Chunk {
            from,
            to: from + n as u64,
            bytes: vec![b'x'; n].into(),
        }
    }

    fn viewer(grid: Option<(u16, u16)>, can_write: bool, sizing: bool) -> Entry {
        Entry {
            queue: Arc::new(ViewerQueue::default()),
            info: Viewer {
                viewer_id: 0,
                user_id: "u".into(),
                display_name: "U".into(),
                read_only: !can_write,
                cols: grid.map(|g| g.0),
                rows: grid.map(|g| g.1),
                sizing,
                device: None,
            },
            can_write,
        }
    }

    fn held(entries: &[(u64, Entry)]) -> Option<HeldGrid> {
        let numbered: Vec<(Viewer, bool)> = entries
            .iter()
            .map(|(id, e)| {
                let mut v = e.info.clone();
                v.viewer_id = *id;
                (v, e.can_write)
            })
            .collect();
        held_by(numbered.iter().map(|(v, w)| (v, *w)))
    }

    #[test]
    fn a_viewer_out_of_sizing_does_not_shrink_the_pane_and_the_holder_is_named() {
        let desk = (1, viewer(Some((160, 48)), true, true));
        // A phone that watches without taking part, and one that only may read.
        let phone = (2, viewer(Some((45, 20)), true, false));
        let reader = (3, viewer(Some((30, 10)), false, false));
        let all = [desk, phone, reader];
        assert_eq!(
            held(&all),
            Some(HeldGrid {
                cols: 160,
                rows: 48,
                cols_by: 1,
                rows_by: 1
            })
        );
        // The phone takes part: it holds the pane to its grid, and is named for both.
        let [desk, mut phone, reader] = all;
        phone.1.info.sizing = true;
        let all = [desk, phone, reader];
        assert_eq!(
            held(&all),
            Some(HeldGrid {
                cols: 45,
                rows: 20,
                cols_by: 2,
                rows_by: 2
            })
        );
        // Fewer columns here, fewer rows there: each is named for its own.
        let wide = (4, viewer(Some((200, 12)), true, true));
        let [desk, phone, reader] = all;
        let all = [desk, phone, reader, wide];
        assert_eq!(
            held(&all),
            Some(HeldGrid {
                cols: 45,
                rows: 12,
                cols_by: 2,
                rows_by: 4
            })
        );
        // Nobody taking part has a grid: nothing holds the pane.
        assert_eq!(
            held(&[
                (1, viewer(None, true, true)),
                (2, viewer(Some((45, 20)), true, false))
            ]),
            None
        );
    }

    #[test]
    fn a_full_queue_marks_the_viewer_behind_and_frees_its_memory() {
        let q = ViewerQueue::default();
        for i in 0..16 {
            q.push(chunk(i * 65_536, 65_536));
        }
        assert_eq!(q.queued_bytes(), VIEWER_QUEUE_BYTES);
        q.push(chunk(16 * 65_536, 1));
        assert_eq!(q.queued_bytes(), 0, "a viewer behind holds nothing");
        assert!(matches!(
            smol::block_on(q.next()),
            Next::Behind(Behind::Slow)
        ));
        // Output keeps being dropped until the viewer resumes.
        q.push(chunk(0, 10));
        assert_eq!(q.queued_bytes(), 0);
        q.resume();
        q.push(chunk(0, 10));
        assert!(matches!(smol::block_on(q.next()), Next::Chunk(c) if c.bytes.len() == 10));
    }

    #[test]
    fn controls_come_first_and_a_newer_presence_replaces_an_older_one() {
        let q = ViewerQueue::default();
        q.push(chunk(0, 3));
        q.control(Control::Presence(Vec::new(), None));
        q.control(Control::Size(80, 24));
        q.control(Control::Presence(vec![], None));
        q.control(Control::Size(100, 30));
        assert_eq!(
            match smol::block_on(q.next()) {
                Next::Control(c) => c,
                n => panic!("{n:?}"),
            },
            Control::Presence(vec![], None)
        );
        assert!(matches!(
            smol::block_on(q.next()),
            Next::Control(Control::Size(100, 30))
        ));
        assert!(matches!(smol::block_on(q.next()), Next::Chunk(_)));
        q.control(Control::Close(4403, "x".into()));
        q.push(chunk(3, 3));
        assert!(matches!(
            smol::block_on(q.next()),
            Next::Control(Control::Close(4403, _))
        ));
    }
}
