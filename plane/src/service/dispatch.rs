//! The command dispatcher: the one seam every domain sends node commands through. A node is
//! local — the plane's own executor — or remote — the signed link.

use std::sync::{Arc, OnceLock};

use serde_json::json;
use termplane_machines::jws::Es256Signer;
use termplane_proto::{Command, CommandResult};
use termplane_runtime_smol::plane::{Dispatch, DispatchOutcome, PlaneCommand};

use crate::clock::Clock;
use crate::error::ApiError;
use crate::link::{LinkHub, LinkStatus};
use crate::secret;
use crate::store::Store;

/// Largest command JSON dispatched: its signed envelope (base64url of the claims, with the
/// header and signature) stays under the node's 64 KiB cap.
pub const MAX_COMMAND_JSON: usize = 47 * 1024;

/// The longest a launch or restart waits for the `ready` and the census of a node whose link
/// has just come up (they normally follow the link within milliseconds).
pub(super) const CENSUS_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The plane's own host as a node: it runs commands through the same executor the node daemon
/// uses, in call order, and answers each on its channel.
/// What [`LocalNode::keys_typed`] answers: how keys typed without waiting went, once known.
pub type KeysTyped =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>> + Send + 'static>>;

pub trait LocalNode: Send + Sync {
    /// Queues `cmd` (identified by `jti`); its result arrives on the returned channel.
    fn submit(&self, jti: String, cmd: Command) -> smol::channel::Receiver<CommandResult>;

    /// Types a viewer's keystrokes into a pane at once when nothing is queued before them (the
    /// executor's runner lets keys skip an empty queue), without waiting to hear they were:
    /// answers a ticket for [`Self::keys_typed`]. `None` means nothing was typed and they go
    /// as an `input` command.
    fn type_now(&self, _id: &termplane_proto::SubshellId, _data: &str) -> Option<u64> {
        None
    }

    /// Whether the keys of a ticket of [`Self::type_now`] were typed, once tmux has said so
    /// (woken by its answer, no timer): `Err` says why not.
    fn keys_typed(&self, _ticket: u64) -> KeysTyped {
        Box::pin(std::future::ready(Ok(())))
    }

    /// The plane stops: work this process cannot finish (uploads under way) is undone.
    fn stopping(&self) {}
}

/// A command's outcome as another replica of the cluster sends it back.
pub(super) type Forwarded = smol::channel::Receiver<Result<CommandResult, ApiError>>;

/// What [`Forwarder::forward`] answers.
pub(super) type ForwardFut<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Vec<Forwarded>, ApiError>> + Send + 'a>,
>;

/// The replicas of the cluster as the dispatcher sees them: a node whose link another replica
/// holds is reached through that replica (`service::peers`).
pub(super) trait Forwarder: Send + Sync {
    /// Whether another replica holds `node_id`'s link online, as last known here.
    fn reachable(&self, node_id: &str) -> bool;

    /// [`Self::reachable`], asking the database now.
    fn reachable_soon<'a>(
        &'a self,
        node_id: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = bool> + Send + 'a>>;

    /// Sends `commands` to the replica holding `node_id`'s link, in this order and back to
    /// back there: one outcome each. `Err` when no replica holds it or its holder cannot be
    /// reached (409 `NODE_OFFLINE`).
    fn forward<'a>(&'a self, node_id: &'a str, commands: Vec<Command>) -> ForwardFut<'a>;
}

/// How much longer than the holder's own deadline a forwarded command is waited for: the
/// holder's answer (its timeout among them) comes back rather than a timeout of this replica.
const FORWARD_MARGIN: std::time::Duration = std::time::Duration::from_secs(2);

enum Answer {
    Remote(smol::channel::Receiver<DispatchOutcome>, String),
    Local(smol::channel::Receiver<CommandResult>),
    Forwarded(Forwarded),
}

/// A dispatched command whose result is awaited.
struct Pending {
    jti: String,
    deadline: std::time::Duration,
    answer: Answer,
    /// Where the command's outcome and time are counted.
    measured: Measured,
}

/// A command's type, when it left on the dispatcher's clock, and where its outcome is counted.
#[derive(Clone)]
struct Measured {
    kind: &'static str,
    sent: std::time::Instant,
    clock: Arc<dyn Clock>,
    metrics: Arc<crate::metrics::Metrics>,
}

impl Measured {
    /// Counts the command's outcome `label` with the time since it left.
    fn count(&self, label: &'static str) {
        let took = self.clock.instant().saturating_duration_since(self.sent);
        self.metrics.command(self.kind, label, took);
    }
}

/// The metrics' name for a command's outcome: `ok`, `refused` (the node said no) or the
/// error's code.
fn outcome_label(r: &Result<CommandResult, ApiError>) -> &'static str {
    match r {
        Ok(r) if r.ok => "ok",
        Ok(_) => "refused",
        Err(e) => e.code,
    }
}

impl Pending {
    async fn wait(self) -> Result<CommandResult, ApiError> {
        let measured = self.measured.clone();
        let answer = self.exchange().await;
        measured.count(outcome_label(&answer));
        answer
    }

    async fn exchange(self) -> Result<CommandResult, ApiError> {
        let jti = self.jti;
        let exchange = async {
            match self.answer {
                Answer::Local(rx) => rx.recv().await.map_err(|_| {
                    ApiError::new(
                        502,
                        "NODE_LINK_CLOSED",
                        "the plane's own executor stopped before it answered",
                    )
                }),
                Answer::Forwarded(rx) => rx.recv().await.unwrap_or_else(|_| {
                    Err(ApiError::new(
                        502,
                        "NODE_LINK_CLOSED",
                        "the replica holding the node's link went away before it answered",
                    ))
                }),
                Answer::Remote(rx, node_id) => match rx.recv().await {
                    Ok(DispatchOutcome::Result(r)) if r.reference == jti => Ok(r),
                    Ok(DispatchOutcome::Result(_) | DispatchOutcome::Malformed) => {
                        Err(ApiError::new(
                            502,
                            "NODE_BAD_RESULT",
                            "the node answered with a malformed result",
                        ))
                    }
                    Ok(DispatchOutcome::NotSent(_)) => {
                        Err(ApiError::new(409, "NODE_OFFLINE", "the node is offline")
                            .with_metadata(json!({ "nodeId": node_id })))
                    }
                    Err(_) => Err(ApiError::new(
                        502,
                        "NODE_LINK_CLOSED",
                        "the node's connection closed before it answered",
                    )),
                },
            }
        };
        crate::wait::within(self.deadline, exchange)
            .await
            .unwrap_or_else(|| {
                Err(ApiError::new(
                    504,
                    "NODE_TIMEOUT",
                    "the node did not answer in time",
                ))
            })
    }
}

/// The dispatcher domain: the live links (shared with the link layer's sink), the plane's own
/// host as a node once its executor runs, the command-signing key, the store (for its
/// metrics) and the clock.
pub struct Dispatcher {
    store: Store,
    clock: Arc<dyn Clock>,
    links: Arc<LinkHub>,
    signer: Arc<Es256Signer>,
    /// The plane's own host as a node, once its executor runs.
    local: OnceLock<Arc<dyn LocalNode>>,
    /// The local node's row id.
    local_node_id: OnceLock<String>,
    /// The connection whose census was applied, per node: a node is reachable only once the
    /// census of its current connection is in.
    censused: std::sync::Mutex<std::collections::HashMap<String, u64>>,
    /// The other replicas of the cluster, once attached.
    forwarder: OnceLock<Arc<dyn Forwarder>>,
}

impl Dispatcher {
    /// The dispatcher over `links`, signing with `signer`; `local_node_id` is the local node's
    /// row when it has one already.
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        links: Arc<LinkHub>,
        signer: Arc<Es256Signer>,
        local_node_id: Option<String>,
    ) -> Self {
        let id = OnceLock::new();
        if let Some(l) = local_node_id {
            let _ = id.set(l);
        }
        Self {
            store,
            clock,
            links,
            signer,
            local: OnceLock::new(),
            local_node_id: id,
            censused: std::sync::Mutex::default(),
            forwarder: OnceLock::new(),
        }
    }

    /// Attaches the other replicas: from now on a node whose link another replica holds is
    /// reached through it. Only the first call takes effect.
    pub(super) fn attach_forwarder(&self, forwarder: Arc<dyn Forwarder>) {
        let _ = self.forwarder.set(forwarder);
    }

    /// This replica's id.
    #[must_use]
    pub fn replica(&self) -> &str {
        self.links.replica()
    }

    /// Whether this replica holds `node_id`'s link (a socket, whatever its state).
    fn linked_here(&self, node_id: &str) -> bool {
        self.links.status(node_id).is_some()
    }

    /// Whether the node is remote and its link is held by another replica, not here.
    fn forwarded(&self, node_id: &str) -> Option<&Arc<dyn Forwarder>> {
        if self.local_node_id() == Some(node_id) || self.linked_here(node_id) {
            return None;
        }
        self.forwarder.get()
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    fn instant(&self) -> std::time::Instant {
        self.clock.instant()
    }

    /// A command of type `kind` leaving now, to be counted in the metrics.
    fn measured(&self, kind: &'static str) -> Measured {
        Measured {
            kind,
            sent: self.instant(),
            clock: self.clock.clone(),
            metrics: self.store.metrics().clone(),
        }
    }

    /// Attaches the plane's own executor: from now on commands for the local node run on it.
    /// Only the first call takes effect.
    pub(super) fn attach_local(&self, local: Arc<dyn LocalNode>) {
        let _ = self.local.set(local);
    }

    /// The plane's own executor, once attached.
    pub(super) fn local_node(&self) -> Option<&Arc<dyn LocalNode>> {
        self.local.get()
    }

    /// Whether a node's `ready` advertised `capability` (the local node, this build, has all).
    pub async fn node_can(&self, node_id: &str, capability: &str) -> bool {
        if self.local_node_id().is_some_and(|l| l == node_id) {
            return true;
        }
        match self.store.node_facts(node_id).await {
            Ok(Some(f)) => serde_json::from_str::<Vec<String>>(&f.capabilities)
                .is_ok_and(|c| c.iter().any(|c| c == capability)),
            _ => false,
        }
    }

    /// The local node's row id.
    #[must_use]
    pub fn local_node_id(&self) -> Option<&str> {
        self.local_node_id.get().map(String::as_str)
    }

    /// Whether commands can reach `node_id` now: the local node once its executor runs; a
    /// remote node once its link is online and its census applied.
    #[must_use]
    pub fn node_reachable(&self, node_id: &str) -> bool {
        if self.local_node_id() == Some(node_id) {
            return self.local_node().is_some();
        }
        if let Some(f) = self.forwarded(node_id) {
            return f.reachable(node_id);
        }
        matches!(
            self.links.status(node_id),
            Some(crate::link::LinkStatus::Online)
        ) && self.censused_now(node_id)
    }

    /// [`Self::node_reachable`], but a remote node whose link is online and whose census has
    /// not been applied yet (the moment between its `ready` and its `subshells_report`) is waited
    /// for, at most [`CENSUS_WAIT`]: a launch or restart on a node the API already shows online
    /// is not refused as offline in that moment.
    pub(super) async fn node_reachable_soon(&self, node_id: &str) -> bool {
        if let Some(f) = self.forwarded(node_id) {
            return f.reachable_soon(node_id).await;
        }
        let deadline = self.instant() + CENSUS_WAIT;
        loop {
            // Listening first: a change between the look below and the wait still wakes it.
            let changed = self.links.listen_changes();
            if self.node_reachable(node_id) {
                return true;
            }
            // A link authenticated but whose `ready` is not handled yet is coming up too (the
            // node has its `ok` and may say so: a launch right then waits, as for the census).
            let online = matches!(
                self.links.status(node_id),
                Some(crate::link::LinkStatus::Online | crate::link::LinkStatus::Authenticated)
            );
            if !online || self.instant() >= deadline {
                return false;
            }
            // Woken by the link's next change (status, socket, census), or the deadline.
            crate::wait::until(deadline, changed).await;
        }
    }

    fn censused_now(&self, node_id: &str) -> bool {
        let conn = self.links.current_conn(node_id);
        self.censused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(node_id)
            .is_some_and(|c| Some(*c) == conn)
    }

    /// Records that the census of connection `conn` of `node_id` is applied: the node is
    /// reachable from now on, and a launch waiting for it ([`Self::node_reachable_soon`]) goes
    /// on.
    pub(super) fn censused(&self, node_id: &str, conn: u64) {
        self.censused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(node_id.to_owned(), conn);
        self.links.notify_changed();
    }

    /// 409 `NODE_OFFLINE` for `node_id`, saying why when it is the plane's own host.
    pub(super) fn offline(&self, node_id: &str) -> ApiError {
        let message = if self.local_node_id() == Some(node_id) {
            "the plane's own host runs no panes: tmux is missing or the local node is off \
             (see the plane's log)"
        } else {
            "the node is offline"
        };
        ApiError::new(409, "NODE_OFFLINE", message)
            .with_metadata(serde_json::json!({ "nodeId": node_id }))
    }

    /// Sends one command to a node and waits for its result: through the signed link for a
    /// remote node, to the plane's own executor for the local node (the one seam everything
    /// above dispatch is written against).
    ///
    /// Commands to one node are dispatched in call order: a FIFO lock per node is held while a
    /// command is signed and queued on the socket (or the local queue), and released before its
    /// result is awaited, so a slow command never holds the next one's dispatch. The envelope
    /// is an ES256 JWS with `iss`, `aud: node:<id>`, a random 128-bit hex `jti` (also the
    /// result's `ref`), `iat`, `exp = iat + 30` and the `seq` the socket's machine assigns. The
    /// result settles only on the socket the command left on: if that socket ends first, the
    /// call fails. Deadline 10 s, 5 min for `update`.
    ///
    /// Errors: 409 `NODE_OFFLINE` (no online socket; a held node takes only `update`), 413
    /// `COMMAND_TOO_LARGE` (the envelope would pass the node's 64 KiB cap), 502
    /// `NODE_LINK_CLOSED` (the socket ended before answering), 502 `NODE_BAD_RESULT`, 504
    /// `NODE_TIMEOUT`.
    pub async fn node_command(
        &self,
        node_id: &str,
        command: Command,
    ) -> Result<CommandResult, ApiError> {
        let pending = {
            let lock = self.links.node_lock(node_id);
            let _serial = lock.lock().await;
            self.dispatch(node_id, command).await?
        };
        pending.wait().await
    }

    /// A viewer's keystrokes typed into a pane on the local node at once, skipping the queue
    /// when nothing is queued before them (under the node's command lock, so no command
    /// dispatched before them is overtaken), without waiting to hear they were: a ticket for
    /// [`Self::local_keys_typed`]. `None` when they were not typed: a remote node, something
    /// queued, or text too long for one go; the caller then sends `input`.
    pub(super) async fn type_now_on_local_node(
        &self,
        node_id: &str,
        id: &termplane_proto::SubshellId,
        data: &str,
    ) -> Option<u64> {
        if self.local_node_id.get().is_none_or(|l| l != node_id) {
            return None;
        }
        let local = self.local.get()?;
        let lock = self.links.node_lock(node_id);
        let _serial = lock.lock().await;
        local.type_now(id, data)
    }

    /// Whether keys typed with [`Self::type_now_on_local_node`] were typed, once the local
    /// node's tmux has said so (woken by its answer; nothing polls).
    #[must_use]
    pub fn local_keys_typed(&self, ticket: u64) -> KeysTyped {
        match self.local.get() {
            Some(l) => l.keys_typed(ticket),
            None => Box::pin(std::future::ready(Ok(()))),
        }
    }

    /// Dispatches `commands` to one node back to back (no other command between them) and
    /// waits for every result, in order. The first failure ends the wait (later commands were
    /// already dispatched and still run).
    pub async fn node_commands_in_order(
        &self,
        node_id: &str,
        commands: Vec<Command>,
    ) -> Result<Vec<CommandResult>, ApiError> {
        let pending = {
            let lock = self.links.node_lock(node_id);
            let _serial = lock.lock().await;
            if self.forwarded(node_id).is_some() {
                // Back to back at the holder too: one message.
                self.dispatch_forwarded(node_id, commands).await?
            } else {
                let mut all = Vec::with_capacity(commands.len());
                for c in commands {
                    all.push(self.dispatch(node_id, c).await?);
                }
                all
            }
        };
        let mut out = Vec::with_capacity(pending.len());
        for p in pending {
            out.push(p.wait().await?);
        }
        Ok(out)
    }

    /// [`Self::node_command`] for a caller that already holds the node's command lock (to
    /// keep a row write and the push that mirrors it in one order across callers).
    pub(super) async fn node_command_serialized(
        &self,
        node_id: &str,
        command: Command,
    ) -> Result<CommandResult, ApiError> {
        self.dispatch(node_id, command).await?.wait().await
    }

    /// Signs and queues one command (the caller holds the node's lock), or sends it to the
    /// replica holding the node's link; one that cannot leave is counted in the metrics with
    /// its error's code.
    async fn dispatch(&self, node_id: &str, command: Command) -> Result<Pending, ApiError> {
        if self.forwarded(node_id).is_some() {
            let mut one = self.dispatch_forwarded(node_id, vec![command]).await?;
            return one.pop().ok_or_else(ApiError::internal);
        }
        let measured = self.measured(command.kind());
        let sent = self.dispatch_unmeasured(node_id, command).await;
        if let Err(e) = &sent {
            measured.count(e.code);
        }
        sent
    }

    /// Sends `commands` to the replica holding the node's link (the caller holds the node's
    /// lock here, so they leave in call order).
    async fn dispatch_forwarded(
        &self,
        node_id: &str,
        commands: Vec<Command>,
    ) -> Result<Vec<Pending>, ApiError> {
        let Some(f) = self.forwarder.get() else {
            return Err(self.offline(node_id));
        };
        let kinds: Vec<(&'static str, bool)> =
            commands.iter().map(|c| (c.kind(), c.is_update())).collect();
        let measured: Vec<Measured> = kinds.iter().map(|(k, _)| self.measured(k)).collect();
        let checked = commands
            .iter()
            .try_for_each(|c| checked_size(c).map(|_| ()));
        let forwarded = match checked {
            Ok(()) => f.forward(node_id, commands).await,
            Err(e) => Err(e),
        };
        let outcomes = match forwarded {
            Ok(o) => o,
            Err(e) => {
                for m in &measured {
                    m.count(e.code);
                }
                return Err(e);
            }
        };
        Ok(outcomes
            .into_iter()
            .zip(kinds)
            .zip(measured)
            .map(|((rx, (_, is_update)), measured)| Pending {
                jti: String::new(),
                deadline: FORWARD_MARGIN
                    + if is_update {
                        termplane_proto::limits::UPDATE_COMMAND_DEADLINE
                    } else {
                        termplane_proto::limits::COMMAND_DEADLINE
                    },
                answer: Answer::Forwarded(rx),
                measured,
            })
            .collect())
    }

    /// Runs `commands` another replica forwarded for `node_id`, whose link this replica must
    /// hold (a command is forwarded once, never on again): each is signed and queued on the
    /// node's socket in this order, back to back under the node's lock; then their outcomes,
    /// in order, as they settle.
    pub(super) async fn run_forwarded(
        &self,
        node_id: &str,
        commands: Vec<Command>,
    ) -> impl std::future::Future<Output = Vec<Result<CommandResult, ApiError>>> + use<> {
        let mut sent = Vec::with_capacity(commands.len());
        {
            let lock = self.links.node_lock(node_id);
            let _serial = lock.lock().await;
            for c in commands {
                let measured = self.measured(c.kind());
                let r = if self.linked_here(node_id) {
                    self.dispatch_unmeasured(node_id, c).await
                } else {
                    Err(self.offline(node_id))
                };
                if let Err(e) = &r {
                    measured.count(e.code);
                }
                sent.push(r);
            }
        }
        async move {
            let mut out = Vec::with_capacity(sent.len());
            for p in sent {
                out.push(match p {
                    Ok(p) => p.wait().await,
                    Err(e) => Err(e),
                });
            }
            out
        }
    }

    async fn dispatch_unmeasured(
        &self,
        node_id: &str,
        command: Command,
    ) -> Result<Pending, ApiError> {
        let measured = self.measured(command.kind());
        let offline = || {
            ApiError::new(409, "NODE_OFFLINE", "the node is offline")
                .with_metadata(json!({ "nodeId": node_id }))
        };
        let cmd = checked_size(&command)?;
        let jti = secret::hex_lower(&secret::random_bytes::<16>()?);
        let is_update = command.is_update();
        let deadline = if is_update {
            termplane_proto::limits::UPDATE_COMMAND_DEADLINE
        } else {
            termplane_proto::limits::COMMAND_DEADLINE
        };
        if self.local_node_id.get().is_some_and(|l| l == node_id) {
            let local = self.local.get().ok_or_else(|| self.offline(node_id))?;
            return Ok(Pending {
                jti: jti.clone(),
                deadline,
                answer: Answer::Local(local.submit(jti, command)),
                measured,
            });
        }
        let (tx, status) = self.links.current(node_id).ok_or_else(offline)?;
        match status {
            LinkStatus::Online => {}
            LinkStatus::Held { .. } if is_update => {}
            _ => return Err(offline()),
        }
        let iat = self.now().div_euclid(1000);
        let signer = self.signer.clone();
        let aud = termplane_proto::node_audience(node_id);
        let claims_jti = jti.clone();
        let sign = Box::new(move |seq: u64| {
            signer.sign(&termplane_proto::Claims {
                iss: termplane_proto::COMMAND_ISSUER.to_owned(),
                aud,
                jti: claims_jti,
                iat,
                exp: iat + 30,
                seq,
                cmd,
            })
        });
        let (reply, outcome) = smol::channel::bounded(1);
        tx.send(PlaneCommand::Dispatch(Dispatch {
            jti: jti.clone(),
            is_update,
            sign,
            reply,
        }))
        .await
        .map_err(|_| offline())?;
        Ok(Pending {
            jti,
            deadline,
            answer: Answer::Remote(outcome, node_id.to_owned()),
            measured,
        })
    }
}

/// The command as JSON, refused 413 `COMMAND_TOO_LARGE` when its envelope would not fit the
/// node's cap (whichever replica holds the node's link).
fn checked_size(command: &Command) -> Result<serde_json::Value, ApiError> {
    let cmd = serde_json::to_value(command).map_err(|_| ApiError::internal())?;
    if cmd.to_string().len() > MAX_COMMAND_JSON {
        return Err(ApiError::new(
            413,
            "COMMAND_TOO_LARGE",
            "the command would not fit the node link's 64 KiB envelope",
        ));
    }
    Ok(cmd)
}

/// `{ reason, detail? }`: a node's refusal as error metadata (`detail` only when the node gave
/// one).
pub(in crate::service) fn refusal_metadata(
    reason: String,
    detail: Option<String>,
) -> serde_json::Value {
    let mut m = serde_json::json!({ "reason": reason });
    if let Some(d) = detail {
        m["detail"] = serde_json::Value::String(d);
    }
    m
}

/// The data of a successful result; a refusal is 409 `NODE_REFUSED` with the node's words.
pub(in crate::service) fn node_data(
    r: termplane_proto::CommandResult,
) -> Result<serde_json::Value, ApiError> {
    if r.ok {
        Ok(r.data.unwrap_or(serde_json::Value::Null))
    } else {
        let reason = r.error.unwrap_or_default();
        Err(
            ApiError::new(409, "NODE_REFUSED", format!("the node refused: {reason}"))
                .with_metadata(refusal_metadata(reason, r.detail)),
        )
    }
}
