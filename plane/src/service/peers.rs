//! The replicas of a cluster reach one another: a command, a terminal's keys or a pane's
//! output for a node whose link another replica holds travel over a connection between the two.
//!
//! **The connection.** A replica dials a peer at the address the peer registered in the
//! membership (`plane_replicas.address`, `--cluster-address`), path `/ws/replica`, and the two
//! prove to each other that they hold the cluster's keys before anything else crosses
//! (`termplane_machines::peer`: each side's MAC over a transcript both made fresh, bound to the
//! dialled replica's id). Every message after that is sealed, one sealed stream each way, as on
//! the node link. A connection is made when a replica first needs the peer and kept while both
//! live; either side sends commands over it, whoever dialled. A peer that cannot prove itself
//! within [`HANDSHAKE_DEADLINE`] is closed; at most [`MAX_HANDSHAKES`] connections wait for
//! their proof at once, and a plane that holds its database alone answers `/ws/replica` 404.
//!
//! **What crosses.** `commands` (a node, its commands in order, an id for each), `result` (one
//! command's outcome, as the holder's dispatcher gave it: a node's result or the refusal), and
//! `output` (a pane's output for a viewer at the other replica). The holder signs and sends a
//! forwarded command as its own — the node sees one plane — and never forwards it again: a
//! node it no longer holds answers 409 `NODE_OFFLINE`.
//!
//! **Terminals.** A terminal socket is served by the replica the browser reached; its pump
//! tails the pane under a key that names that replica (`view-<subshell>@<replica>`), so the
//! holder of the node's link sends that tail's output to it ([`Peers::forward_output`]) and the
//! pump takes it as if from its own link. Output waiting to cross is bounded per connection
//! ([`MAX_QUEUED_OUTPUT`]); beyond it a piece is dropped, and the viewer, seeing the gap, gets a
//! fresh replay (as a viewer too slow for its own socket does).
//!
//! **Where it runs.** Each connection, and the task sending a forwarded batch's outcomes back,
//! runs on the executor of the HTTP server — beside the request handlers, the node links and
//! the terminal sockets it trades with ([`Terminals::spawn_or_detach`]) — so that a forwarded
//! message goes from task to task without waking another thread (on smol's shared executor,
//! the two thread crossings at each replica cost a keystroke about 0.3 ms: `benches/README.md`,
//! "Forwarding on the sockets' thread").
//!
//! **Where a node is.** The rows say it: a node held online by a replica whose lease holds is
//! reached through that replica. This replica keeps the rows' answer ([`Peers::refresh`]):
//! at every lease renewal, at a `link` word, and when a forward cannot reach the replica it
//! names.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use termplane_machines::peer::{Initiator, Keys, PeerKey, Responder};
use termplane_machines::seal::{Opener, Sealer};
use termplane_proto::event::Output;
use termplane_proto::{Command, CommandResult};
use termplane_runtime_smol::ws::{self as links_ws, Inbound};

use super::dispatch::{Dispatcher, ForwardFut, Forwarded, Forwarder};
use super::terminals::Terminals;
use crate::clock::Clock;
use crate::error::ApiError;
use crate::store::Store;

/// The longest a peer may take to prove itself (or to be proven) after the socket opened.
pub const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(5);

/// Most peer sockets waiting for their proof at once.
pub const MAX_HANDSHAKES: usize = 32;

/// Most bytes of pane output waiting to cross one connection.
pub const MAX_QUEUED_OUTPUT: usize = 4 * 1024 * 1024;

/// Most commands in one forwarded batch (a caller's commands back to back).
const MAX_BATCH: usize = 64;

/// One message between replicas (sealed).
#[derive(Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", deny_unknown_fields)]
enum Msg {
    /// Run these commands on `node`, in order: `ids[i]` names the outcome of `commands[i]`.
    Commands {
        ids: Vec<u64>,
        node: String,
        commands: Vec<Command>,
    },
    /// The outcome of one forwarded command.
    Result {
        id: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<CommandResult>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<Failure>,
    },
    /// Output of a tail the receiving replica started.
    Output { node: String, output: Output },
}

/// A refusal crossing between replicas.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Failure {
    status: u16,
    code: String,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<serde_json::Value>,
}

impl From<&ApiError> for Failure {
    fn from(e: &ApiError) -> Self {
        Self {
            status: e.status,
            code: e.code.to_owned(),
            message: e.message.clone(),
            metadata: e.metadata.clone(),
        }
    }
}

impl Failure {
    /// The refusal as this replica's error; a code this build does not know reads as the link
    /// having closed (the command's fate is unknown).
    fn into_error(self) -> ApiError {
        let e = match crate::error::known_code(&self.code) {
            Some(code) => ApiError::new(self.status, code, self.message),
            None => ApiError::new(
                502,
                "NODE_LINK_CLOSED",
                "the replica holding the node's link answered with an unknown refusal",
            ),
        };
        match self.metadata {
            Some(m) => e.with_metadata(m),
            None => e,
        }
    }
}

/// What goes out on a connection: a message, and how many of its bytes count as output.
struct Out {
    text: Vec<u8>,
    output_bytes: usize,
}

/// One connection to a peer, as the rest of this replica uses it.
struct Conn {
    peer: String,
    out: smol::channel::Sender<Out>,
    /// Bytes of output queued on `out`.
    queued: AtomicUsize,
    pending: Mutex<HashMap<u64, smol::channel::Sender<Result<CommandResult, ApiError>>>>,
    closed: AtomicBool,
}

impl Conn {
    fn is_open(&self) -> bool {
        !self.closed.load(Ordering::SeqCst) && !self.out.is_closed()
    }

    fn send(&self, m: &Msg, output_bytes: usize) -> bool {
        let Ok(text) = serde_json::to_vec(m) else {
            return false;
        };
        self.out.try_send(Out { text, output_bytes }).is_ok()
    }
}

/// The place of a peer socket waiting for its proof; given back when dropped.
#[derive(Debug)]
pub struct HandshakeSlot(Arc<AtomicUsize>);

impl Drop for HandshakeSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The connections between this replica and its peers.
pub struct Peers {
    me: String,
    key: PeerKey,
    /// Whether this replica has peers at all (it shares its database).
    enabled: bool,
    store: Store,
    clock: Arc<dyn Clock>,
    dispatcher: Arc<Dispatcher>,
    /// The terminals: their pumps take the output of this replica's viewers' tails that comes
    /// from a peer, and the connections run on their sockets' executor.
    terminals: Arc<Terminals>,
    /// Live connections by peer.
    conns: Mutex<HashMap<String, Arc<Conn>>>,
    /// One dial at a time per peer.
    dialing: Mutex<HashMap<String, Arc<smol::lock::Mutex<()>>>>,
    /// Nodes whose link another live replica holds online: node → replica.
    elsewhere: Mutex<HashMap<String, String>>,
    next_id: AtomicU64,
    handshakes: Arc<AtomicUsize>,
    /// Ends every connection when this replica stops.
    stopping: event_listener::Event,
    stopped: AtomicBool,
}

impl std::fmt::Debug for Peers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peers")
            .field("me", &self.me)
            .field("enabled", &self.enabled)
            .finish_non_exhaustive()
    }
}

fn unreachable_holder(node_id: &str, replica: &str) -> ApiError {
    ApiError::new(
        409,
        "NODE_OFFLINE",
        "the node's link is held by another replica of the cluster, which this one cannot reach",
    )
    .with_metadata(serde_json::json!({ "nodeId": node_id, "replica": replica }))
}

/// `http(s)://host[:port][/…]` → `ws(s)://host[:port]/ws/replica`.
fn peer_url(address: &str) -> Option<String> {
    let mut u = url::Url::parse(address).ok()?;
    let scheme = match u.scheme() {
        "http" | "ws" => "ws",
        "https" | "wss" => "wss",
        _ => return None,
    };
    u.set_scheme(scheme).ok()?;
    u.set_path("/ws/replica");
    u.set_query(None);
    u.set_fragment(None);
    Some(u.to_string())
}

impl Peers {
    /// This replica (`me`) among its peers, proving itself with the key derived from the
    /// cluster's `link_secret`; `enabled` when it shares its database with other replicas.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        me: String,
        link_secret: &[u8; 32],
        enabled: bool,
        store: Store,
        clock: Arc<dyn Clock>,
        dispatcher: Arc<Dispatcher>,
        terminals: Arc<Terminals>,
    ) -> Self {
        Self {
            me,
            key: PeerKey::derive(link_secret),
            enabled,
            store,
            clock,
            dispatcher,
            terminals,
            conns: Mutex::default(),
            dialing: Mutex::default(),
            elsewhere: Mutex::default(),
            next_id: AtomicU64::new(1),
            handshakes: Arc::new(AtomicUsize::new(0)),
            stopping: event_listener::Event::new(),
            stopped: AtomicBool::new(false),
        }
    }

    /// Whether this replica takes peer connections (it shares its database).
    #[must_use]
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// A place for one more socket waiting for its proof, if one is free.
    #[must_use]
    pub fn handshake_slot(&self) -> Option<HandshakeSlot> {
        let n = self.handshakes.fetch_add(1, Ordering::SeqCst);
        let slot = HandshakeSlot(self.handshakes.clone());
        (n < MAX_HANDSHAKES).then_some(slot)
    }

    /// Ends every connection (this replica stops).
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        self.stopping.notify(usize::MAX);
    }

    fn lock_elsewhere(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.elsewhere
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads again from the rows which nodes other live replicas hold (after a lease renewal).
    pub async fn refresh_all(&self) {
        if !self.enabled {
            return;
        }
        match self
            .store
            .links_held_elsewhere(&self.me, self.clock.now_ms())
            .await
        {
            Ok(all) => *self.lock_elsewhere() = all.into_iter().collect(),
            Err(e) => tracing::debug!(error = %e, "could not read where the nodes are held"),
        }
    }

    /// Reads again from its row which replica holds `node_id` (a `link` word, or a forward
    /// that could not reach the replica the last answer named): that replica, if another live one holds it online.
    pub async fn refresh(&self, node_id: &str) -> Option<String> {
        if !self.enabled {
            return None;
        }
        let now = self.clock.now_ms();
        let holder = match self.store.link_held_elsewhere(node_id, &self.me, now).await {
            Ok(h) => h,
            Err(e) => {
                tracing::debug!(error = %e, "could not read where a node is held");
                return self.lock_elsewhere().get(node_id).cloned();
            }
        };
        let mut all = self.lock_elsewhere();
        match &holder {
            Some(r) => all.insert(node_id.to_owned(), r.clone()),
            None => all.remove(node_id),
        };
        holder
    }

    fn conn(&self, peer: &str) -> Option<Arc<Conn>> {
        let all = self.conns.lock().unwrap_or_else(PoisonError::into_inner);
        all.get(peer).filter(|c| c.is_open()).cloned()
    }

    /// The connection to `peer`, dialled if there is none.
    async fn connect(self: &Arc<Self>, peer: &str) -> Result<Arc<Conn>, ApiError> {
        if let Some(c) = self.conn(peer) {
            return Ok(c);
        }
        let gate = {
            let mut all = self.dialing.lock().unwrap_or_else(PoisonError::into_inner);
            all.entry(peer.to_owned()).or_default().clone()
        };
        let _one = gate.lock().await;
        if let Some(c) = self.conn(peer) {
            return Ok(c);
        }
        let fail = |why: &str| {
            tracing::warn!(peer, why, "cannot reach a replica of the cluster");
            ApiError::new(
                502,
                "NODE_LINK_CLOSED",
                "the replica holding the node's link cannot be reached",
            )
        };
        let address = self
            .store
            .live_replica_address(peer, self.clock.now_ms())
            .await?
            .ok_or_else(|| fail("its lease lapsed"))?;
        let url = peer_url(&address).ok_or_else(|| fail("its address is not an http(s) URL"))?;
        let dial = termplane_runtime_smol::agent::dial_websocket(&url, None, None);
        let mut ws = crate::wait::within(HANDSHAKE_DEADLINE, dial)
            .await
            .ok_or_else(|| fail("the dial timed out"))?
            .map_err(|e| fail(&e.reason))?;
        let nonce = crate::secret::random_bytes::<32>()?;
        let initiator = Initiator::new(self.key.clone(), &self.me, peer, nonce)
            .ok_or_else(|| fail("a replica id is malformed"))?;
        let proven = crate::wait::within(HANDSHAKE_DEADLINE, async {
            let Inbound::Binary(challenge) = links_ws::next_inbound(&mut ws).await else {
                return Err("it sent no challenge");
            };
            let (wait, answer) = initiator
                .challenge(&challenge)
                .map_err(|_| "its challenge does not hold")?;
            if !links_ws::send_binary(&mut ws, answer).await {
                return Err("the socket closed");
            }
            let Inbound::Binary(proof) = links_ws::next_inbound(&mut ws).await else {
                return Err("it sent no proof");
            };
            wait.proof(&proof)
                .map_err(|_| "it does not hold the cluster's keys")
        })
        .await
        .ok_or_else(|| fail("the handshake timed out"))?
        .map_err(fail)?;
        Ok(self.clone().start(peer.to_owned(), ws, proven))
    }

    /// Serves a peer that dialled this replica: its proof, then the connection.
    pub async fn serve<S>(
        self: Arc<Self>,
        mut ws: async_tungstenite::WebSocketStream<S>,
        slot: HandshakeSlot,
    ) where
        S: futures_lite::AsyncRead + futures_lite::AsyncWrite + Unpin + Send + 'static,
    {
        let Ok(nonce) = crate::secret::random_bytes::<32>() else {
            return;
        };
        let Some((responder, challenge)) = Responder::new(self.key.clone(), &self.me, nonce) else {
            return;
        };
        let proven = crate::wait::within(HANDSHAKE_DEADLINE, async {
            if !links_ws::send_binary(&mut ws, challenge).await {
                return None;
            }
            let Inbound::Binary(answer) = links_ws::next_inbound(&mut ws).await else {
                return None;
            };
            let Ok((peer, proof, keys)) = responder.answer(&answer) else {
                tracing::warn!("a peer socket did not prove it holds the cluster's keys");
                return None;
            };
            links_ws::send_binary(&mut ws, proof)
                .await
                .then_some((peer, keys))
        })
        .await
        .flatten();
        // Its wait for a proof is over, whatever came of it.
        drop(slot);
        let Some((peer, keys)) = proven else {
            links_ws::close_discarding(&mut ws, 4401, "not a replica of this cluster").await;
            return;
        };
        let conn = self.clone().start(peer, ws, keys);
        drop(conn);
    }

    /// Registers a proven connection and runs it on a task of its own.
    fn start<S>(
        self: Arc<Self>,
        peer: String,
        ws: async_tungstenite::WebSocketStream<S>,
        keys: Keys,
    ) -> Arc<Conn>
    where
        S: futures_lite::AsyncRead + futures_lite::AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = smol::channel::unbounded();
        let conn = Arc::new(Conn {
            peer: peer.clone(),
            out: tx,
            queued: AtomicUsize::new(0),
            pending: Mutex::default(),
            closed: AtomicBool::new(false),
        });
        self.conns
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(peer, conn.clone());
        let c = conn.clone();
        let terminals = self.terminals.clone();
        terminals.spawn_or_detach(async move { self.run(c, ws, rx, keys).await });
        conn
    }

    /// One connection: sealed messages out, opened messages in, until either side ends it.
    async fn run<S>(
        self: Arc<Self>,
        conn: Arc<Conn>,
        mut ws: async_tungstenite::WebSocketStream<S>,
        out: smol::channel::Receiver<Out>,
        keys: Keys,
    ) where
        S: futures_lite::AsyncRead + futures_lite::AsyncWrite + Unpin + Send + 'static,
    {
        enum Step {
            Out(Out),
            In(Inbound),
            End,
        }
        let mut rng = termplane_machines::rng::from_seed(
            crate::secret::random_bytes::<32>().unwrap_or_default(),
        );
        let mut sealer = Sealer::new(&keys.send, &mut rng);
        let mut opener = Opener::new(&keys.receive);
        drop(keys);
        loop {
            let stop = self.stopping.listen();
            if self.stopped.load(Ordering::SeqCst) {
                break;
            }
            let step = futures_lite::future::or(
                futures_lite::future::or(
                    async { out.recv().await.map_or(Step::End, Step::Out) },
                    async { Step::In(links_ws::next_inbound(&mut ws).await) },
                ),
                async {
                    stop.await;
                    Step::End
                },
            )
            .await;
            match step {
                Step::Out(o) => {
                    conn.queued.fetch_sub(o.output_bytes, Ordering::SeqCst);
                    let Ok(frame) = sealer.seal_frame(&o.text) else {
                        break;
                    };
                    if !links_ws::send_binary(&mut ws, frame).await {
                        break;
                    }
                }
                Step::In(Inbound::Binary(b)) => {
                    let Ok(text) = opener.open_frame(&b) else {
                        tracing::warn!(peer = %conn.peer, "a peer's message did not open");
                        break;
                    };
                    let Ok(m) = serde_json::from_slice::<Msg>(&text) else {
                        tracing::warn!(peer = %conn.peer, "a peer's message did not parse");
                        break;
                    };
                    self.received(&conn, m).await;
                }
                Step::In(Inbound::Control) => {}
                Step::In(_) | Step::End => break,
            }
        }
        conn.closed.store(true, Ordering::SeqCst);
        out.close();
        // Whoever waits for an outcome from this connection learns it closed.
        conn.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        {
            let mut all = self.conns.lock().unwrap_or_else(PoisonError::into_inner);
            if all.get(&conn.peer).is_some_and(|c| Arc::ptr_eq(c, &conn)) {
                all.remove(&conn.peer);
            }
        }
        let _ = links_ws::close(&mut ws, 1000, "").await;
    }

    async fn received(&self, conn: &Arc<Conn>, m: Msg) {
        match m {
            Msg::Commands {
                ids,
                node,
                commands,
            } => {
                if ids.len() != commands.len() || commands.len() > MAX_BATCH {
                    return;
                }
                // Dispatched here in arrival order; their outcomes go back as they settle.
                let outcomes = self.dispatcher.run_forwarded(&node, commands).await;
                let conn = conn.clone();
                self.terminals.spawn_or_detach(async move {
                    for (id, r) in ids.into_iter().zip(outcomes.await) {
                        let m = match r {
                            Ok(result) => Msg::Result {
                                id,
                                result: Some(result),
                                error: None,
                            },
                            Err(e) => Msg::Result {
                                id,
                                result: None,
                                error: Some(Failure::from(&e)),
                            },
                        };
                        conn.send(&m, 0);
                    }
                });
            }
            Msg::Result { id, result, error } => {
                let waiting = conn
                    .pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&id);
                let outcome = match (result, error) {
                    (Some(r), None) => Ok(r),
                    (None, Some(f)) => Err(f.into_error()),
                    _ => Err(ApiError::new(
                        502,
                        "NODE_BAD_RESULT",
                        "the replica holding the node's link answered with a malformed outcome",
                    )),
                };
                if let Some(w) = waiting {
                    let _ = w.try_send(outcome);
                }
            }
            Msg::Output { node, output } => self.terminals.pumps().route_output(&node, &output),
        }
    }

    /// Sends the output of viewer tail `output.sub_id` (started by replica `peer`) of node
    /// `node_id` to that replica, without waiting; dropped when its connection is gone or
    /// holds [`MAX_QUEUED_OUTPUT`] already (the viewer there sees the gap and is replayed).
    pub fn forward_output(&self, peer: &str, node_id: &str, output: &Output) {
        let Some(conn) = self.conn(peer) else {
            return;
        };
        let bytes = output.data_b64.len();
        if conn.queued.fetch_add(bytes, Ordering::SeqCst) + bytes > MAX_QUEUED_OUTPUT {
            conn.queued.fetch_sub(bytes, Ordering::SeqCst);
            return;
        }
        let m = Msg::Output {
            node: node_id.to_owned(),
            output: output.clone(),
        };
        if !conn.send(&m, bytes) {
            conn.queued.fetch_sub(bytes, Ordering::SeqCst);
        }
    }

    async fn forward_to(
        self: &Arc<Self>,
        node_id: &str,
        commands: Vec<Command>,
    ) -> Result<Vec<Forwarded>, ApiError> {
        if commands.len() > MAX_BATCH {
            return Err(ApiError::internal());
        }
        let known = self.lock_elsewhere().get(node_id).cloned();
        let holder = match known {
            Some(h) => h,
            None => self
                .refresh(node_id)
                .await
                .ok_or_else(|| self.dispatcher.offline(node_id))?,
        };
        let conn = match self.connect(&holder).await {
            Ok(c) => c,
            Err(_) => {
                // Perhaps the node moved on: ask the rows once more.
                match self.refresh(node_id).await {
                    Some(h) if h != holder => self
                        .connect(&h)
                        .await
                        .map_err(|_| unreachable_holder(node_id, &h))?,
                    _ => return Err(unreachable_holder(node_id, &holder)),
                }
            }
        };
        let mut ids = Vec::with_capacity(commands.len());
        let mut outcomes = Vec::with_capacity(commands.len());
        {
            let mut pending = conn.pending.lock().unwrap_or_else(PoisonError::into_inner);
            for _ in &commands {
                let id = self.next_id.fetch_add(1, Ordering::Relaxed);
                let (tx, rx) = smol::channel::bounded(1);
                pending.insert(id, tx);
                ids.push(id);
                outcomes.push(rx);
            }
        }
        let m = Msg::Commands {
            ids: ids.clone(),
            node: node_id.to_owned(),
            commands,
        };
        if !conn.send(&m, 0) {
            let mut pending = conn.pending.lock().unwrap_or_else(PoisonError::into_inner);
            for id in ids {
                pending.remove(&id);
            }
            return Err(unreachable_holder(node_id, &conn.peer));
        }
        Ok(outcomes)
    }
}

/// The dispatcher's view of the peers (it holds them as a trait object: `Peers` holds the
/// dispatcher).
pub(super) struct PeersForwarder(pub(super) Arc<Peers>);

impl Forwarder for PeersForwarder {
    fn reachable(&self, node_id: &str) -> bool {
        self.0.enabled && self.0.lock_elsewhere().contains_key(node_id)
    }

    fn reachable_soon<'a>(
        &'a self,
        node_id: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = bool> + Send + 'a>> {
        Box::pin(async move { self.0.refresh(node_id).await.is_some() })
    }

    fn forward<'a>(&'a self, node_id: &'a str, commands: Vec<Command>) -> ForwardFut<'a> {
        Box::pin(async move {
            if !self.0.enabled {
                return Err(self.0.dispatcher.offline(node_id));
            }
            self.0.forward_to(node_id, commands).await
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_peers_address_becomes_its_socket_url() {
        assert_eq!(
            peer_url("http://10.0.0.2:8080").as_deref(),
            Some("ws://10.0.0.2:8080/ws/replica")
        );
        assert_eq!(
            peer_url("https://plane.example/base/?x=1#y").as_deref(),
            Some("wss://plane.example/ws/replica")
        );
        assert_eq!(peer_url("ftp://x"), None);
        assert_eq!(peer_url("not a url"), None);
    }

    #[test]
    fn a_refusal_crosses_with_its_code_and_an_unknown_code_reads_as_a_closed_link() {
        let e = ApiError::new(409, "NODE_OFFLINE", "the node is offline")
            .with_metadata(serde_json::json!({ "nodeId": "n" }));
        let back = Failure::from(&e).into_error();
        assert_eq!(back, e);
        let odd = Failure {
            status: 418,
            code: "TEAPOT".into(),
            message: "x".into(),
            metadata: None,
        };
        assert_eq!(odd.into_error().code, "NODE_LINK_CLOSED");
    }
}
