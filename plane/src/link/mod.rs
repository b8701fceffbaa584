//! The live node link, plane side: one task per `/ws/node` socket, the per-node registry where
//! the newest authenticated socket wins, the list of held nodes, and the command dispatcher.
//!
//! Nothing here names the HTTP framework: the HTTP adapter authenticates the upgrade (through
//! the services' `node_upgrade`), completes the WebSocket handshake and hands the raw stream to
//! [`serve`], generic over any `AsyncRead + AsyncWrite` socket.
//!
//! Nothing here names the services either: what a link needs from the plane around it, and where
//! what happens on it goes (a node changed, came online, sent output or an event), is the
//! [`LinkSink`] it is served with, which the services implement. The link layer depends only on
//! storage, metrics and its own types; the services depend on it, never the other way round.
//!
//! Each socket runs a [`PlaneLink`] under [`termplane_runtime_smol::plane::run`]; this module
//! supplies its decisions and mirrors its effects:
//!
//! | machine action | what the plane does |
//! |---|---|
//! | `CheckBinding` | re-verifies the sealed node key through the same digest chain as the upgrade (SHA-256 digest lookup, constant-time compare, enabled, bound to *this* row), then inserts the ephemeral key into the node's persisted seen set; a repeat is refused (4410) |
//! | `ClaimPin` | conditional write of the row's `encryptPublicKey` where it is still NULL |
//! | `Authenticated` | this socket becomes the node's current one; the previous one gets `Superseded` (4409) |
//! | `PersistIdentity` | os, arch, hostname, agentVersion, runtime, maintenance onto the row, before the gates |
//! | `Online` | this replica takes the node's row (`held_by`), liveness `online`, then `set_allowed_dirs` is pushed |
//! | `Held` | this replica takes the row, liveness `offline` (it never reads online for a held node); the node is listed by [`LinkHub::held`] |
//! | socket ends | if it was the node's current socket and this replica still holds the row: row `offline`, no holder; the registry entry goes |
//!
//! Liveness is the holder's in-process truth mirrored to the row. Several planes (replicas) may
//! run on one database: the row names the replica that holds the node's link (`held_by`), under
//! that replica's lease (`service::cluster`). The newest link wins across replicas as on one: a
//! replica whose socket passes the gates takes the row, and on PostgreSQL tells the others
//! (`NOTIFY`); a replica that hears its node was taken, or finds it so when it squares its
//! sockets with the rows ([`reconcile`], after each lease renewal), closes its socket with
//! `Superseded` (4409) and writes nothing more for it. A replica whose lease lapsed (it died)
//! has its nodes turned offline and holderless by any live replica's [`reconcile`]; they redial
//! to whichever replica the load balancer picks. A replica that finds its own node released
//! (its lease lapsed while it lived: the database was out of reach) takes the row again.
//!
//! Two replicas that take one node within the same moment may both give it up (each hears the
//! other's word after its own write); the node redials and one of them holds it.

pub mod events;

use std::collections::HashMap;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_tungstenite::WebSocketStream;
use futures_lite::{AsyncRead, AsyncWrite};
use smol::channel::Sender;
use termplane_machines::kx::StaticKeypair;
use termplane_machines::plane_link::{BindingRefusal, LinkClass, PlaneAction, PlaneLink};
use termplane_proto::Key32;
use termplane_runtime_smol::plane::{PlaneCommand, PlaneDriverOptions, PlaneHooks};
use termplane_runtime_smol::{Clock as _, SystemClock, os_seed};

use crate::store::{Node, ReportedIdentity, Store};

/// Where a registered socket stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkStatus {
    /// The handshake (or legacy bearer) authenticated it; `ready` not yet handled.
    Authenticated,
    /// Both gates passed.
    Online,
    /// A gate failed: offline for every purpose but `update`.
    Held {
        /// The machine's reason (names the required and found versions).
        reason: String,
    },
}

/// A held node, for the updates page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldNode {
    /// The node.
    pub node_id: String,
    /// Why it is held.
    pub reason: String,
}

struct Current {
    conn: u64,
    tx: Sender<PlaneCommand>,
    status: LinkStatus,
    /// Whether this replica's hold of the row was written for this socket (until then another
    /// replica's holding it says nothing about this socket).
    claimed: bool,
}

#[derive(Default)]
struct HubState {
    /// The current (newest authenticated) socket of each node.
    current: HashMap<String, Current>,
    /// Every open socket, authenticated or not: its node and its command channel.
    live: HashMap<u64, (String, Sender<PlaneCommand>)>,
    shutting_down: bool,
}

/// Most sockets one node may hold open at once, handshaking or linked (a reconnecting node
/// overlaps its old socket for a moment; the newest wins).
pub const MAX_SOCKETS_PER_NODE: usize = 4;
/// Most node sockets open on the plane at once unless its operator says otherwise
/// (`--max-node-links`): 10,000 nodes with room for their reconnections, within about 2 GiB
/// at the 80–130 KiB one link measures (`benches/README.md`; the most on PostgreSQL).
pub const MAX_NODE_SOCKETS: usize = 16_384;
/// Most sockets the nodes of one account hold open together: one account's nodes cannot fill
/// the plane's places and keep every other account's nodes from reconnecting.
pub const MAX_NODE_SOCKETS_PER_OWNER: usize = 512;

/// The places for node sockets: per node ([`MAX_SOCKETS_PER_NODE`]), per owning account
/// ([`MAX_NODE_SOCKETS_PER_OWNER`]) and in all (the plane's cap, [`MAX_NODE_SOCKETS`] unless
/// configured).
struct NodeSlots {
    by_node: crate::slots::Slots,
    by_owner: crate::slots::Slots,
    all: usize,
}

impl NodeSlots {
    fn new(all: usize) -> Self {
        Self {
            by_node: crate::slots::Slots::new(all, MAX_SOCKETS_PER_NODE),
            by_owner: crate::slots::Slots::new(all, MAX_NODE_SOCKETS_PER_OWNER),
            all,
        }
    }
}

/// The places one node socket holds (its node's and its owner's), given back when dropped.
#[derive(Debug)]
pub struct SocketSlot {
    _node: crate::slots::Slot,
    _owner: crate::slots::Slot,
}

/// The registry of live node sockets.
pub struct LinkHub {
    /// This replica's id (what it writes into the rows it holds).
    replica: String,
    state: Mutex<HubState>,
    /// Taken before a node's upgrade is answered and held for the socket's life: what one
    /// node key can make the plane hold is bounded, handshake or not.
    slots: NodeSlots,
    next_conn: AtomicU64,
    node_locks: Mutex<HashMap<String, Arc<smol::lock::Mutex<()>>>>,
    liveness_locks: Mutex<HashMap<String, Arc<smol::lock::Mutex<()>>>>,
    options: Mutex<Option<PlaneDriverOptions>>,
    /// Notified whenever a node's current socket or its status changes, and when a service
    /// says something a node's reachability depends on changed ([`LinkHub::notify_changed`]):
    /// what waits for a node to come up listens here instead of polling.
    changed: event_listener::Event,
}

impl std::fmt::Debug for LinkHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkHub")
            .field("live", &self.live_count())
            .finish_non_exhaustive()
    }
}

impl LinkHub {
    /// The registry of replica `replica` (`service::cluster`), holding at most
    /// [`MAX_NODE_SOCKETS`] node sockets.
    #[must_use]
    pub fn new(replica: String) -> Self {
        Self::with_cap(replica, MAX_NODE_SOCKETS)
    }

    /// [`Self::new`], holding at most `max_node_sockets` node sockets at once.
    #[must_use]
    pub fn with_cap(replica: String, max_node_sockets: usize) -> Self {
        Self {
            replica,
            state: Mutex::default(),
            slots: NodeSlots::new(max_node_sockets.max(1)),
            next_conn: AtomicU64::default(),
            node_locks: Mutex::default(),
            liveness_locks: Mutex::default(),
            options: Mutex::default(),
            changed: event_listener::Event::new(),
        }
    }

    /// This replica's id.
    #[must_use]
    pub fn replica(&self) -> &str {
        &self.replica
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HubState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Overrides the driver options of sockets opened from now on (tests shorten timeouts).
    pub fn set_driver_options(&self, opts: PlaneDriverOptions) {
        *self.options.lock().unwrap_or_else(PoisonError::into_inner) = Some(opts);
    }

    fn driver_options(&self) -> PlaneDriverOptions {
        self.options
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .unwrap_or_default()
    }

    /// A place for one more socket of `node_id`, owned by `owner` (a node without an owner
    /// counts under its own id); refused when the node holds [`MAX_SOCKETS_PER_NODE`], its
    /// owner's nodes [`MAX_NODE_SOCKETS_PER_OWNER`] or the plane's cap
    /// ([`Self::max_node_sockets`]).
    pub fn socket_slot(
        &self,
        node_id: &str,
        owner: Option<&str>,
    ) -> Result<SocketSlot, crate::slots::Full> {
        let node = self.slots.by_node.take(node_id)?;
        let owner = self.slots.by_owner.take(owner.unwrap_or(node_id))?;
        Ok(SocketSlot {
            _node: node,
            _owner: owner,
        })
    }

    /// Most node sockets this plane holds open at once.
    #[must_use]
    pub fn max_node_sockets(&self) -> usize {
        self.slots.all
    }

    /// Whether shutdown began (new sockets are refused).
    #[must_use]
    pub fn is_shutting_down(&self) -> bool {
        self.lock().shutting_down
    }

    /// Number of open node sockets (authenticated or not).
    #[must_use]
    pub fn live_count(&self) -> usize {
        self.lock().live.len()
    }

    /// The current socket's status for a node.
    #[must_use]
    pub fn status(&self, node_id: &str) -> Option<LinkStatus> {
        self.lock().current.get(node_id).map(|c| c.status.clone())
    }

    /// A listener woken at the next change of any node's socket or status. Take it before
    /// looking at the state it is about, so that no change falls between the look and the wait.
    pub fn listen_changes(&self) -> event_listener::EventListener {
        self.changed.listen()
    }

    /// Wakes every [`LinkHub::listen_changes`] listener: a change the hub cannot see (a
    /// node's census applied) makes a node reachable.
    pub fn notify_changed(&self) {
        self.changed.notify(usize::MAX);
    }

    /// The current socket of a node (its connection number).
    #[must_use]
    pub fn current_conn(&self, node_id: &str) -> Option<u64> {
        self.lock().current.get(node_id).map(|c| c.conn)
    }

    /// Every held node.
    #[must_use]
    pub fn held(&self) -> Vec<HeldNode> {
        let mut out: Vec<HeldNode> = self
            .lock()
            .current
            .iter()
            .filter_map(|(id, c)| match &c.status {
                LinkStatus::Held { reason } => Some(HeldNode {
                    node_id: id.clone(),
                    reason: reason.clone(),
                }),
                _ => None,
            })
            .collect();
        out.sort_by(|a, b| a.node_id.cmp(&b.node_id));
        out
    }

    /// Number of nodes whose current socket is online.
    #[must_use]
    pub fn online_count(&self) -> usize {
        self.lock()
            .current
            .values()
            .filter(|c| c.status == LinkStatus::Online)
            .count()
    }

    fn open(&self, node_id: &str, tx: Sender<PlaneCommand>) -> Option<u64> {
        let conn = self.next_conn.fetch_add(1, Ordering::Relaxed);
        let mut st = self.lock();
        if st.shutting_down {
            return None;
        }
        st.live.insert(conn, (node_id.to_owned(), tx));
        Some(conn)
    }

    /// Makes `conn` the node's current socket; the previous one is superseded (4409).
    fn authenticate(&self, node_id: &str, conn: u64, tx: Sender<PlaneCommand>) {
        let old = self.lock().current.insert(
            node_id.to_owned(),
            Current {
                conn,
                tx,
                status: LinkStatus::Authenticated,
                claimed: false,
            },
        );
        if let Some(old) = old
            && old.conn != conn
        {
            let _ = old.tx.try_send(PlaneCommand::Superseded);
        }
        self.notify_changed();
    }

    /// Sets the status if `conn` is still current; `false` when it is not.
    fn set_status(&self, node_id: &str, conn: u64, status: LinkStatus) -> bool {
        match self.lock().current.get_mut(node_id) {
            Some(c) if c.conn == conn => {
                c.status = status;
                self.notify_changed();
                true
            }
            _ => false,
        }
    }

    /// Forgets `conn` as an open socket (after its row was updated, so a shutdown that waits for
    /// the sockets also waits for their last writes).
    fn forget(&self, conn: u64) {
        self.lock().live.remove(&conn);
        // A shutdown waiting for the sockets to end hears it.
        self.notify_changed();
    }

    /// Drops `conn` as the node's current socket; `true` when it was current.
    fn release(&self, node_id: &str, conn: u64) -> bool {
        let mut st = self.lock();
        if st.current.get(node_id).is_some_and(|c| c.conn == conn) {
            st.current.remove(node_id);
            drop(st);
            self.notify_changed();
            true
        } else {
            false
        }
    }

    /// Feeds `KeyRotatedOrDeleted` (4401) to every socket of a node.
    pub fn kick(&self, node_id: &str) {
        let st = self.lock();
        for (id, tx) in st.live.values() {
            if id == node_id {
                let _ = tx.try_send(PlaneCommand::KeyRotatedOrDeleted);
            }
        }
    }

    /// Refuses new sockets and feeds `Shutdown` (1000) to every open one.
    pub fn begin_shutdown(&self) {
        let mut st = self.lock();
        st.shutting_down = true;
        for (_, tx) in st.live.values() {
            let _ = tx.try_send(PlaneCommand::Shutdown);
        }
    }

    /// Waits until every socket ended or `limit` passed; returns how many are still open.
    pub async fn wait_closed(&self, limit: Duration) -> usize {
        // Woken by each socket forgotten (a change), the look after each wake-up decides.
        let wait = async {
            loop {
                let changed = self.listen_changes();
                if self.live_count() == 0 {
                    break;
                }
                changed.await;
            }
        };
        crate::wait::within(limit, wait).await;
        self.live_count()
    }

    /// The per-node lock that serializes commands in call order (the lock is FIFO-fair).
    pub(crate) fn node_lock(&self, node_id: &str) -> Arc<smol::lock::Mutex<()>> {
        keyed_lock(&self.node_locks, node_id)
    }

    /// Writes the row from the hub's present truth: a current socket past the gates takes the
    /// row for this replica (online exactly when the socket is), no current socket lets go of
    /// the row if this replica holds it (another replica's hold is left alone), and a socket
    /// still before its gates writes nothing. Every hub transition is followed by this call;
    /// the per-node lock makes the last write always reflect the hub as it was when that write
    /// began, so a slow write for an ended socket can never land after — and overwrite — the
    /// newer socket's `online`.
    pub(crate) async fn sync_liveness(&self, store: &crate::store::Store, node_id: &str, now: i64) {
        let lock = keyed_lock(&self.liveness_locks, node_id);
        let _guard = lock.lock().await;
        self.write_liveness(store, node_id, now).await;
    }

    /// [`Self::sync_liveness`] under its lock.
    async fn write_liveness(&self, store: &crate::store::Store, node_id: &str, now: i64) {
        let current = self
            .lock()
            .current
            .get(node_id)
            .map(|c| (c.conn, c.status.clone()));
        let written = match current {
            Some((_, LinkStatus::Authenticated)) => return,
            Some((conn, status)) => {
                let online = status == LinkStatus::Online;
                let held = store.hold_link(node_id, &self.replica, online, now).await;
                if held.is_ok()
                    && let Some(c) = self.lock().current.get_mut(node_id)
                    && c.conn == conn
                {
                    c.claimed = true;
                }
                held.map(|_| ())
            }
            None => store
                .release_link(node_id, &self.replica, now)
                .await
                .map(|_| ()),
        };
        if let Err(e) = written {
            tracing::warn!(node = %node_id, error = %e, "could not write the node's liveness");
        }
    }

    /// Squares a node's current socket with its row, after another replica said it took the
    /// node or the rows say this replica does not hold it: a socket whose hold was written but
    /// whose row names another replica was superseded there, and is closed here with
    /// `Superseded` (4409) and forgotten as current; a row no replica holds any more (this
    /// replica's lease lapsed while it lived) is taken again. `true` when either happened.
    pub(crate) async fn check_holder(
        &self,
        store: &crate::store::Store,
        node_id: &str,
        now: i64,
    ) -> bool {
        let lock = keyed_lock(&self.liveness_locks, node_id);
        let _guard = lock.lock().await;
        let claimed = self
            .lock()
            .current
            .get(node_id)
            .and_then(|c| c.claimed.then_some(c.conn));
        let Some(conn) = claimed else {
            return false;
        };
        match store.link_holder(node_id).await {
            Ok(Some(holder)) if holder == self.replica => false,
            Ok(Some(holder)) => {
                let mut st = self.lock();
                if st.current.get(node_id).is_some_and(|c| c.conn == conn)
                    && let Some(old) = st.current.remove(node_id)
                {
                    drop(st);
                    tracing::info!(node = %node_id, %holder, "the node linked to another replica: this socket is superseded");
                    let _ = old.tx.try_send(PlaneCommand::Superseded);
                    self.notify_changed();
                    return true;
                }
                false
            }
            Ok(None) => {
                self.write_liveness(store, node_id, now).await;
                true
            }
            Err(e) => {
                tracing::warn!(node = %node_id, error = %e, "could not read who holds the node's link");
                false
            }
        }
    }

    /// The nodes whose current socket's hold was written.
    fn claimed_nodes(&self) -> Vec<String> {
        self.lock()
            .current
            .iter()
            .filter(|(_, c)| c.claimed)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// The command channel and status of a node's current socket.
    pub(crate) fn current(&self, node_id: &str) -> Option<(Sender<PlaneCommand>, LinkStatus)> {
        self.lock()
            .current
            .get(node_id)
            .map(|c| (c.tx.clone(), c.status.clone()))
    }
}

/// The lock for `key` in `map`, made on first use; unused entries are pruned past 4,096 keys.
fn keyed_lock(
    map: &Mutex<HashMap<String, Arc<smol::lock::Mutex<()>>>>,
    key: &str,
) -> Arc<smol::lock::Mutex<()>> {
    let mut locks = map.lock().unwrap_or_else(PoisonError::into_inner);
    // Found without copying the key: every keystroke typed on a node asks for its lock.
    if let Some(l) = locks.get(key) {
        return l.clone();
    }
    if locks.len() > 4096 {
        locks.retain(|_, l| Arc::strong_count(l) > 1);
    }
    locks.entry(key.to_owned()).or_default().clone()
}

/// Classifies a socket by its row: an `encryptPublicKey` requires the encrypted link. A stored
/// pin that does not decode (never written by this plane) classifies as pinned to an all-zero
/// key, so the machine refuses every `kx` (4410) rather than falling back to plaintext.
#[must_use]
pub fn classify(node: &Node) -> LinkClass {
    match node.encrypt_public_key.as_deref() {
        Some(pin) => LinkClass::Pinned(Key32::from_b64(pin).unwrap_or(Key32([0; 32]))),
        None => LinkClass::Legacy,
    }
}

/// Prefix of the tail keys of the plane's terminal pumps (`view-<subshell id>`).
pub const VIEWER_TAIL_PREFIX: &str = "view-";

/// Whether a tail key is a terminal pump's: its `output` events go to the pane's viewers, not to
/// the node's event log (other tails, started with the admin command route, stay readable at
/// `GET /api/nodes/{id}/events`).
#[must_use]
pub fn is_viewer_tail(sub_id: &str) -> bool {
    sub_id.starts_with(VIEWER_TAIL_PREFIX)
}

/// What a link needs from the plane around it, and where what happens on a link goes: the
/// link's typed events. The services implement it (the composition root hands them to
/// [`serve`]); the link never names them.
pub trait LinkSink: Send + Sync + 'static {
    /// The registry of live sockets.
    fn hub(&self) -> &LinkHub;
    /// Storage: the rows a link writes (identity, pin claims, seen ephemerals, liveness).
    fn store(&self) -> &Store;
    /// The plane's X25519 link secret (for a socket's handshake responder).
    fn link_secret(&self) -> [u8; 32];
    /// The wall clock, Unix milliseconds.
    fn now_ms(&self) -> i64;
    /// The plane's metrics (links established and closed).
    fn metrics(&self) -> &crate::metrics::Metrics;
    /// The node whose valid, enabled key `token` is, if any (the binding's re-check).
    fn node_of_key(&self, token: &str) -> impl Future<Output = Option<String>> + Send;
    /// A node's liveness changed (online, held, offline): whoever watches is told.
    fn node_changed(&self, node_id: &str) -> impl Future<Output = ()> + Send;
    /// A node came online: what the plane keeps for it is pushed to it. Runs on a task of its
    /// own (pushing dispatches commands, which wait on this very socket's driver).
    fn node_online(self: Arc<Self>, node_id: String) -> impl Future<Output = ()> + Send;
    /// Output of a tail: routed at once when it is a terminal viewer's (answers `true`);
    /// otherwise it goes on as any other event.
    fn viewer_output(&self, node_id: &str, output: &termplane_proto::event::Output) -> bool;
    /// Any other event, as it arrives (kept for the node's event log).
    fn event_arrived(&self, node_id: &str, event: &termplane_proto::Event);
    /// The same event applied to the plane's rows: one at a time, in arrival order, on the
    /// socket's applying task.
    fn apply_event(
        self: &Arc<Self>,
        node_id: &str,
        conn: u64,
        event: &termplane_proto::Event,
    ) -> impl Future<Output = ()> + Send;
}

/// Squares this replica's sockets with the rows: lets go of the links no live replica holds
/// (their holder's lease lapsed), closes the sockets of nodes another replica took, takes again
/// the rows of nodes whose hold was lost while this replica lived, and lets go of rows this
/// replica holds without a socket (a write that failed). Whoever watches is told of each node
/// whose row changed. Run after each lease renewal, and when the word from other replicas may
/// have been missed.
pub async fn reconcile<K: LinkSink>(svc: &K) -> Result<(), sqlx::Error> {
    let hub = svc.hub();
    let store = svc.store();
    let now = svc.now_ms();
    let mut changed = store.release_lapsed_links(hub.replica(), now).await?;
    let held: std::collections::HashSet<String> = store
        .links_held_by(hub.replica())
        .await?
        .into_iter()
        .collect();
    for node in hub.claimed_nodes() {
        if !held.contains(&node) && hub.check_holder(store, &node, now).await {
            changed.push(node);
        }
    }
    for node in held {
        if hub.current_conn(&node).is_none() {
            hub.sync_liveness(store, &node, now).await;
            changed.push(node);
        }
    }
    for node in changed {
        svc.node_changed(&node).await;
    }
    Ok(())
}

/// Serves one upgraded `/ws/node` socket for `node` (authenticated by its bearer) until it ends.
pub async fn serve<S, K>(svc: Arc<K>, node: Node, ws: WebSocketStream<S>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send,
    K: LinkSink,
{
    let hub = svc.hub();
    let (tx, rx) = smol::channel::bounded(64);
    let Some(conn) = hub.open(&node.id, tx.clone()) else {
        return;
    };
    // The row is read again now that the socket is registered: a rotation or deletion that
    // landed after the upgrade's check but before registration found no socket to kick (it
    // writes the row first, then kicks), and a legacy link has no later key check.
    match svc.store().node(&node.id).await {
        Ok(Some(row)) if !row.key_disabled && row.node_key_digest == node.node_key_digest => {}
        Ok(_) => {
            let _ = tx.try_send(PlaneCommand::KeyRotatedOrDeleted);
        }
        Err(e) => {
            tracing::warn!(node = %node.id, error = %e, "cannot re-read the node row; dropping the socket");
            hub.forget(conn);
            return;
        }
    }
    let seed = match os_seed() {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "no randomness for a node link");
            hub.forget(conn);
            return;
        }
    };
    let clock = SystemClock;
    let keypair = StaticKeypair::from_secret_bytes(svc.link_secret());
    let machine = PlaneLink::new(&node.id, classify(&node), &keypair, seed, clock.now());
    drop(keypair);
    let opts = hub.driver_options();
    let (applier, to_apply) = applier();
    smol::spawn(apply_events(svc.clone(), node.id.clone(), conn, to_apply)).detach();
    let mut hooks = Hooks {
        svc: svc.clone(),
        node_id: node.id.clone(),
        conn,
        tx,
        applier,
    };
    tracing::debug!(node = %node.id, conn, "node socket opened");
    let end = termplane_runtime_smol::plane::run(ws, machine, &mut hooks, rx, &clock, opts).await;
    tracing::info!(node = %node.id, conn, end = ?end, "node socket ended");
    let (by, code) = match end {
        termplane_runtime_smol::plane::LinkEnd::Closed(c) => ("plane", Some(c)),
        termplane_runtime_smol::plane::LinkEnd::PeerClosed(c) => ("node", c),
        termplane_runtime_smol::plane::LinkEnd::ProtocolViolation => ("plane", Some(1002)),
        termplane_runtime_smol::plane::LinkEnd::Stalled => ("transport", None),
    };
    svc.metrics().link_closed(by, code);
    if hub.release(&node.id, conn) {
        hub.sync_liveness(svc.store(), &node.id, svc.now_ms()).await;
        svc.node_changed(&node.id).await;
    }
    hub.forget(conn);
}

struct Hooks<K> {
    svc: Arc<K>,
    node_id: String,
    conn: u64,
    tx: Sender<PlaneCommand>,
    applier: Applier,
}

/// Most events of one socket waiting to be applied.
const APPLY_QUEUE: usize = 4096;

/// Where a socket's events wait to be applied: at most [`APPLY_QUEUE`] of them, in a queue that
/// holds memory only for the events in it. (A bounded channel sets aside room for all of them
/// up front: 4,096 events' worth, over half a MiB, for every idle link.)
struct Applier {
    tx: Sender<termplane_proto::Event>,
    waiting: Arc<AtomicU64>,
}

/// What [`apply_events`] takes events from.
struct ToApply {
    rx: smol::channel::Receiver<termplane_proto::Event>,
    waiting: Arc<AtomicU64>,
}

fn applier() -> (Applier, ToApply) {
    let (tx, rx) = smol::channel::unbounded();
    let waiting = Arc::new(AtomicU64::new(0));
    (
        Applier {
            tx,
            waiting: waiting.clone(),
        },
        ToApply { rx, waiting },
    )
}

impl Applier {
    /// Queues `e`; `false` (and `e` dropped) when [`APPLY_QUEUE`] events wait already.
    fn push(&self, e: termplane_proto::Event) -> bool {
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= APPLY_QUEUE as u64 {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        if self.tx.try_send(e).is_err() {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        true
    }
}

impl ToApply {
    async fn next(&self) -> Option<termplane_proto::Event> {
        let e = self.rx.recv().await.ok()?;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        Some(e)
    }
}

/// Applies a socket's events to the plane's rows, one at a time, in the order they came.
async fn apply_events<K: LinkSink>(svc: Arc<K>, node_id: String, conn: u64, rx: ToApply) {
    while let Some(e) = rx.next().await {
        if let termplane_proto::Event::Maintenance(m) = &e {
            mirror_maintenance(svc.as_ref(), &node_id, m, svc.now_ms()).await;
        }
        svc.apply_event(&node_id, conn, &e).await;
    }
}

impl<K: LinkSink> PlaneHooks for Hooks<K> {
    async fn check_binding(
        &mut self,
        node_key: String,
        ephemeral: Key32,
    ) -> Result<(), BindingRefusal> {
        if self.svc.node_of_key(&node_key).await.as_deref() != Some(self.node_id.as_str()) {
            return Err(BindingRefusal::NodeKey);
        }
        match self
            .svc
            .store()
            .record_ephemeral(&self.node_id, &ephemeral.to_b64(), self.svc.now_ms())
            .await
        {
            Ok(true) => Ok(()),
            Ok(false) => Err(BindingRefusal::ReplayedEphemeral),
            Err(e) => {
                tracing::error!(error = %e, "cannot record the ephemeral key");
                Err(BindingRefusal::Other("storage unavailable".into()))
            }
        }
    }

    async fn claim_pin(&mut self, key: Key32) -> bool {
        match self
            .svc
            .store()
            .claim_pin(&self.node_id, &key.to_b64(), self.svc.now_ms())
            .await
        {
            Ok(won) => won,
            Err(e) => {
                tracing::error!(error = %e, "cannot write the pin claim");
                false
            }
        }
    }

    async fn effect(&mut self, action: PlaneAction) {
        let hub = self.svc.hub();
        let now = self.svc.now_ms();
        match action {
            PlaneAction::Authenticated => {
                self.svc.metrics().link_established();
                hub.authenticate(&self.node_id, self.conn, self.tx.clone());
            }
            PlaneAction::PersistIdentity(ready) => {
                let identity = ReportedIdentity {
                    os: serde_json::to_value(ready.os)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_else(|| "unknown".into()),
                    arch: shown_as_text(&ready.arch, 64),
                    hostname: shown_as_text(&ready.hostname, 255),
                    agent_version: ready.agent_version.as_deref().map(|v| shown_as_text(v, 64)),
                    runtime: ready
                        .runtime
                        .as_ref()
                        .and_then(|r| serde_json::to_string(r).ok()),
                    maintenance: self.newer_maintenance(ready.maintenance.as_ref()).await,
                };
                if let Err(e) = self
                    .svc
                    .store()
                    .persist_identity(&self.node_id, &identity, now)
                    .await
                {
                    tracing::warn!(node = %self.node_id, error = %e, "cannot persist the node identity");
                }
                let facts = crate::store::NodeFacts {
                    self_invoke: ready
                        .self_invoke
                        .as_ref()
                        .and_then(|si| serde_json::to_string(si).ok()),
                    home_dir: Some(ready.home_dir.chars().take(4096).collect()),
                    data_dir: Some(ready.data_dir.chars().take(4096).collect()),
                    capabilities: serde_json::to_string(
                        &ready.capabilities.iter().take(256).collect::<Vec<_>>(),
                    )
                    .unwrap_or_else(|_| "[]".into()),
                    system_access: false,
                };
                if let Err(e) = self
                    .svc
                    .store()
                    .record_node_facts(&self.node_id, &facts, now)
                    .await
                {
                    tracing::warn!(node = %self.node_id, error = %e, "cannot record what ready said");
                }
            }
            PlaneAction::Online => {
                if hub.set_status(&self.node_id, self.conn, LinkStatus::Online) {
                    hub.sync_liveness(self.svc.store(), &self.node_id, now)
                        .await;
                    self.svc.node_changed(&self.node_id).await;
                    // Dispatching waits on this very socket's driver: never inline.
                    smol::spawn(Arc::clone(&self.svc).node_online(self.node_id.clone())).detach();
                }
            }
            PlaneAction::Held(reason) => {
                let reason = reason.to_string();
                tracing::info!(node = %self.node_id, %reason, "node held for an update");
                if hub.set_status(&self.node_id, self.conn, LinkStatus::Held { reason }) {
                    hub.sync_liveness(self.svc.store(), &self.node_id, now)
                        .await;
                    self.svc.node_changed(&self.node_id).await;
                }
            }
            PlaneAction::Event(e) => {
                // Terminal output goes straight to the pane's viewers, without waiting.
                if let termplane_proto::Event::Output(o) = &e
                    && self.svc.viewer_output(&self.node_id, o)
                {
                    return;
                }
                tracing::debug!(node = %self.node_id, kind = e.kind(), "node event");
                self.svc.event_arrived(&self.node_id, &e);
                // Applied in the order they came, on their own task: applying may dispatch
                // commands, which wait on this very socket's driver.
                if !self.applier.push(e) {
                    tracing::warn!(node = %self.node_id, "node events arrive faster than they are applied; one was dropped");
                }
            }
            PlaneAction::MalformedResult { reference, reason } => {
                tracing::debug!(node = %self.node_id, %reference, %reason, "malformed result for no pending command");
            }
            PlaneAction::Discarded(why) => {
                tracing::debug!(node = %self.node_id, %why, "node frame discarded");
            }
            PlaneAction::Close { code, reason } => {
                tracing::info!(node = %self.node_id, code = code.as_u16(), %reason, "closing node socket");
            }
            PlaneAction::SendText(_)
            | PlaneAction::SendBinary(_)
            | PlaneAction::CheckBinding { .. }
            | PlaneAction::ClaimPin(_) => {}
        }
    }
}

impl<K: LinkSink> Hooks<K> {
    /// The maintenance mirror to keep at a connect: the one `ready` reports, unless the row's
    /// is newer (set by the owner while the node was away, `pushed: false`), which is kept and
    /// pushed to the node once it is online ([`LinkSink::node_online`]).
    async fn newer_maintenance(
        &self,
        reported: Option<&termplane_proto::command::Maintenance>,
    ) -> Option<String> {
        let row = self
            .svc
            .store()
            .node(&self.node_id)
            .await
            .ok()
            .flatten()
            .and_then(|n| n.maintenance);
        let row_mirror = row
            .as_deref()
            .and_then(|t| serde_json::from_str::<termplane_proto::command::Maintenance>(t).ok());
        let keep_row = match (&row_mirror, reported) {
            (Some(r), Some(n)) => r.changed_at > n.changed_at,
            (Some(_), None) => true,
            _ => false,
        };
        if keep_row {
            row
        } else {
            reported.and_then(|m| serde_json::to_string(m).ok())
        }
    }
}

/// Mirrors a node's `maintenance` event (`{ on, changedAt }`: the node's own maintenance file
/// changed) into its row's maintenance mirror, as `ready.maintenance` is at every connect. The
/// node is the author here, so no person is audited for it; the event also stays in the node's
/// event buffer.
async fn mirror_maintenance<K: LinkSink>(
    svc: &K,
    node_id: &str,
    mirror: &termplane_proto::command::Maintenance,
    now: i64,
) {
    let Ok(text) = serde_json::to_string(mirror) else {
        return;
    };
    match svc
        .store()
        .mirror_node_maintenance(node_id, &text, now)
        .await
    {
        Ok(_) => {
            tracing::info!(node = %node_id, mirror = %text, "node reported a maintenance change")
        }
        Err(e) => tracing::warn!(node = %node_id, error = %e, "maintenance mirror not written"),
    }
}

/// What a node reports about itself, as the plane keeps and shows it: at most `max`
/// characters, each control, invisible or bidirectional-control character (which the API
/// refuses in any text a client sends) replaced by U+FFFD, so a node cannot write escape
/// sequences or reordered text into an administrator's view.
fn shown_as_text(reported: &str, max: usize) -> String {
    reported
        .chars()
        .take(max)
        .map(|c| {
            if crate::api::is_forbidden_char(c) {
                char::REPLACEMENT_CHARACTER
            } else {
                c
            }
        })
        .collect()
}

#[cfg(test)]
mod shown_tests {
    #[test]
    fn what_a_node_reports_is_kept_as_plain_text() {
        assert_eq!(
            super::shown_as_text("prod-db\u{202e}exe.sh\u{1b}]0;x\u{7}\n", 255),
            "prod-db\u{fffd}exe.sh\u{fffd}]0;x\u{fffd}\u{fffd}"
        );
        assert_eq!(
            super::shown_as_text("x86_64\0\u{200b}", 64),
            "x86_64\u{fffd}\u{fffd}"
        );
        assert_eq!(super::shown_as_text("héllo-wörld", 5), "héllo");
    }
}

#[cfg(test)]
mod slot_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A socket's events waiting to be applied are capped at [`APPLY_QUEUE`], and a place is
    /// given back as each is taken; the queue sets no room aside while it is empty.
    #[test]
    fn at_most_apply_queue_events_wait_and_each_taken_makes_room() {
        let (applier, to_apply) = applier();
        let event = || {
            termplane_proto::Event::Heartbeat(termplane_proto::event::Heartbeat {
                at: String::new(),
            })
        };
        for _ in 0..APPLY_QUEUE {
            assert!(applier.push(event()));
        }
        assert!(!applier.push(event()), "one past the cap is refused");
        assert!(smol::block_on(to_apply.next()).is_some());
        assert!(applier.push(event()), "a taken event makes room");
        assert!(!applier.push(event()));
        assert_eq!(to_apply.rx.len(), APPLY_QUEUE);
        assert_eq!(to_apply.rx.capacity(), None, "no room set aside up front");
    }

    /// The plane's cap on node sockets is its operator's: one past it is refused as the
    /// plane's (`Full::All`, answered 503 `PLANE_BUSY`), and a socket given back makes room.
    #[test]
    fn the_plane_holds_as_many_node_sockets_as_it_is_given_and_no_more() {
        assert_eq!(
            LinkHub::new("r".into()).max_node_sockets(),
            MAX_NODE_SOCKETS
        );
        let hub = LinkHub::with_cap("r".into(), 3);
        assert_eq!(hub.max_node_sockets(), 3);
        let mut held: Vec<SocketSlot> = (0..3)
            .map(|i| {
                hub.socket_slot(&format!("n{i}"), Some(&format!("o{i}")))
                    .unwrap()
            })
            .collect();
        assert_eq!(
            hub.socket_slot("n3", Some("o3")).err(),
            Some(crate::slots::Full::All)
        );
        held.pop();
        assert!(hub.socket_slot("n3", Some("o3")).is_ok());
    }

    /// One account's nodes together hold at most [`MAX_NODE_SOCKETS_PER_OWNER`] sockets, so
    /// they cannot fill the plane's places and keep other accounts' nodes out; each node at
    /// most [`MAX_SOCKETS_PER_NODE`].
    #[test]
    fn one_accounts_nodes_cannot_take_every_place() {
        let hub = LinkHub::new("replica".into());
        let held: Vec<SocketSlot> = (0..MAX_NODE_SOCKETS_PER_OWNER)
            .map(|i| {
                hub.socket_slot(&format!("node-{i}"), Some("greedy"))
                    .unwrap()
            })
            .collect();
        assert_eq!(
            hub.socket_slot("node-new", Some("greedy")).err(),
            Some(crate::slots::Full::Key)
        );
        // Refused by its owner's limit, the node's own place was given back.
        assert!(hub.socket_slot("node-new", Some("other")).is_ok());
        // Another account's node still links, up to its own per-node limit.
        let other: Vec<SocketSlot> = (0..MAX_SOCKETS_PER_NODE)
            .map(|_| hub.socket_slot("theirs", Some("other")).unwrap())
            .collect();
        assert_eq!(
            hub.socket_slot("theirs", Some("other")).err(),
            Some(crate::slots::Full::Key)
        );
        drop((held, other));
        assert!(hub.socket_slot("node-new", Some("greedy")).is_ok());
    }
}

#[cfg(test)]
mod lock_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// One key has one lock while anyone holds it; the map keeps at most about 4,096 locks
    /// nobody holds, pruned when a new key comes.
    #[test]
    fn a_key_keeps_its_lock_and_unheld_locks_are_pruned_when_a_new_key_comes() {
        let map = Mutex::new(HashMap::new());
        let a = keyed_lock(&map, "node-a");
        assert!(Arc::ptr_eq(&a, &keyed_lock(&map, "node-a")));
        assert!(!Arc::ptr_eq(&a, &keyed_lock(&map, "node-b")));
        for i in 0..4095 {
            drop(keyed_lock(&map, &format!("n{i}")));
        }
        assert_eq!(map.lock().unwrap().len(), 4097);
        // Asking for a known key prunes nothing; a new one prunes every lock nobody holds.
        assert!(Arc::ptr_eq(&a, &keyed_lock(&map, "node-a")));
        assert_eq!(map.lock().unwrap().len(), 4097);
        let c = keyed_lock(&map, "node-c");
        let left: Vec<String> = {
            let mut k: Vec<String> = map.lock().unwrap().keys().cloned().collect();
            k.sort();
            k
        };
        assert_eq!(left, ["node-a", "node-c"]);
        assert!(Arc::ptr_eq(&a, &keyed_lock(&map, "node-a")));
        drop(c);
    }
}
