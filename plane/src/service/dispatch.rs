//! The node link's authentication (node keys) and the command dispatcher.

use serde_json::json;
use termplane_proto::{Command, CommandResult};
use termplane_runtime_smol::plane::{Dispatch, DispatchOutcome, PlaneCommand};

use super::{Caller, RequestMeta, Service};
use crate::api::nodes::{NodeCommandAnswer, NodeEvents, NodeEventsQuery, NodePing};
use crate::error::ApiError;
use crate::link::LinkStatus;
use crate::secret::{self, BEARER_PREFIX};
use crate::store::Node;

/// Largest command JSON dispatched: its signed envelope (base64url of the claims, with the
/// header and signature) stays under the node's 64 KiB cap.
pub const MAX_COMMAND_JSON: usize = 47 * 1024;

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

enum Answer {
    Remote(smol::channel::Receiver<DispatchOutcome>, String),
    Local(smol::channel::Receiver<CommandResult>),
}

/// A dispatched command whose result is awaited.
struct Pending {
    jti: String,
    deadline: std::time::Duration,
    answer: Answer,
    /// The command's type, when it left, and where its outcome is counted.
    measured: (
        &'static str,
        std::time::Instant,
        std::sync::Arc<crate::metrics::Metrics>,
    ),
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
        let (kind, sent, metrics) = self.measured.clone();
        let answer = self.exchange().await;
        metrics.command(kind, outcome_label(&answer), sent.elapsed());
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

impl Service {
    // ----- the node link -----

    /// The node a node key authenticates, through the one digest chain the upgrade and the
    /// sealed binding share: well-formed `tp_` token, SHA-256 digest lookup, constant-time
    /// compare, key enabled, row remote.
    ///
    /// * 401 — absent, malformed, unknown (a rotated key's digest is gone from its row, and a
    ///   deleted node's row is gone: both read as unknown), disabled, or another kind of key;
    /// * 403 — a valid node key whose row is the local node, or whose row no longer carries its
    ///   digest when re-read (the binding flipped between lookup and check).
    pub async fn node_by_key(&self, token: &str) -> Result<Node, ApiError> {
        let unauthorized = |code: &'static str, msg: &str| ApiError::new(401, code, msg.to_owned());
        if !secret::well_formed(token, BEARER_PREFIX) {
            return Err(unauthorized("NODE_KEY_INVALID", "not a node key"));
        }
        let digest = secret::digest(token);
        let Some(node) = self.store.node_by_key_digest(&digest).await? else {
            if self.store.system_key_by_digest(&digest).await?.is_some() {
                return Err(unauthorized(
                    "NODE_KEY_WRONG_KIND",
                    "a system key cannot open the node WebSocket",
                ));
            }
            if self.store.subshell_by_token(&digest).await?.is_some() {
                return Err(unauthorized(
                    "NODE_KEY_WRONG_KIND",
                    "a subshell's token cannot open the node WebSocket",
                ));
            }
            return Err(unauthorized(
                "NODE_KEY_INVALID",
                "unknown node key (rotated, or its node was deleted)",
            ));
        };
        let bound = node
            .node_key_digest
            .as_deref()
            .is_some_and(|d| secret::ct_eq(d, &digest));
        if !bound {
            return Err(ApiError::new(
                403,
                "NODE_KEY_UNBOUND",
                "the node key is no longer bound to this node",
            ));
        }
        if node.key_disabled {
            return Err(unauthorized(
                "NODE_KEY_DISABLED",
                "the node key is disabled",
            ));
        }
        if node.is_local {
            return Err(ApiError::new(
                403,
                "LOCAL_NODE",
                "the local node runs no node daemon",
            ));
        }
        Ok(node)
    }

    /// Authenticates a `/ws/node` upgrade by its bearer node key. An upgrade whose bearer
    /// opens no node (401, but for a disabled key) counts against its address: past the free
    /// attempts of [`super::backoff::NODE_KEY_ADDRESS`], such upgrades are answered 429
    /// `TOO_MANY_ATTEMPTS` until the wait is over, while a valid key is never held up.
    pub async fn node_upgrade(&self, meta: &RequestMeta) -> Result<Node, ApiError> {
        let found = match self.bearer(meta) {
            Ok(Some(token)) => self.node_by_key(token).await,
            Ok(None) => Err(ApiError::new(
                401,
                "NODE_KEY_MISSING",
                "the node WebSocket needs a bearer node key",
            )),
            Err(e) => Err(e),
        };
        match found {
            Err(e) if e.status == 401 && e.code != "NODE_KEY_DISABLED" => {
                let now = self.now();
                let address = format!("node-key:{}", meta.peer_ip);
                let rule = super::backoff::NODE_KEY_ADDRESS;
                self.node_key_backoff
                    .check(&address, rule, now)
                    .map_err(super::too_many)?;
                self.node_key_backoff.fail(&address, rule, now);
                Err(e)
            }
            other => other,
        }
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
            let mut all = Vec::with_capacity(commands.len());
            for c in commands {
                all.push(self.dispatch(node_id, c).await?);
            }
            all
        };
        let mut out = Vec::with_capacity(pending.len());
        for p in pending {
            out.push(p.wait().await?);
        }
        Ok(out)
    }

    /// [`Service::node_command`] for a caller that already holds the node's command lock (to
    /// keep a row write and the push that mirrors it in one order across callers).
    pub(super) async fn node_command_serialized(
        &self,
        node_id: &str,
        command: Command,
    ) -> Result<CommandResult, ApiError> {
        self.dispatch(node_id, command).await?.wait().await
    }

    /// Signs and queues one command (the caller holds the node's lock); one that cannot
    /// leave is counted in the metrics with its error's code.
    async fn dispatch(&self, node_id: &str, command: Command) -> Result<Pending, ApiError> {
        let kind = command.kind();
        let started = self.instant();
        let sent = self.dispatch_unmeasured(node_id, command).await;
        if let Err(e) = &sent {
            self.metrics().command(kind, e.code, started.elapsed());
        }
        sent
    }

    async fn dispatch_unmeasured(
        &self,
        node_id: &str,
        command: Command,
    ) -> Result<Pending, ApiError> {
        let measured = (command.kind(), self.instant(), self.metrics().clone());
        let offline = || {
            ApiError::new(409, "NODE_OFFLINE", "the node is offline")
                .with_metadata(json!({ "nodeId": node_id }))
        };
        let cmd = serde_json::to_value(&command).map_err(|_| ApiError::internal())?;
        if cmd.to_string().len() > MAX_COMMAND_JSON {
            return Err(ApiError::new(
                413,
                "COMMAND_TOO_LARGE",
                "the command would not fit the node link's 64 KiB envelope",
            ));
        }
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

    /// Pushes a node's persisted allowed directories with `set_allowed_dirs` (after each ready
    /// and on every edit). An offline node gets them after its next ready.
    ///
    /// The row is read under the node's command lock, so of two pushes racing (an edit and a
    /// ready, or two edits) the later one always carries the newer list.
    pub async fn push_allowed_dirs(&self, node_id: &str) {
        let lock = self.links.node_lock(node_id);
        let _serial = lock.lock().await;
        let Ok(Some(node)) = self.store.node(node_id).await else {
            return;
        };
        let dirs: Vec<String> = serde_json::from_str(&node.allowed_dirs).unwrap_or_default();
        let cmd = Command::SetAllowedDirs(termplane_proto::command::SetAllowedDirs { dirs });
        match self.node_command_serialized(node_id, cmd).await {
            Ok(r) if r.ok => tracing::debug!(node = %node_id, "allowed directories pushed"),
            Ok(r) => {
                tracing::warn!(node = %node_id, error = ?r.error, "node refused set_allowed_dirs")
            }
            Err(e) => {
                tracing::debug!(node = %node_id, code = e.code, "allowed directories not pushed")
            }
        }
    }

    /// Pushes a remote node's maintenance mirror from its row (kept there at the connect when
    /// it was newer than the node's own: set by the owner while the node was away).
    pub async fn push_maintenance(&self, node_id: &str) {
        let lock = self.links.node_lock(node_id);
        let _serial = lock.lock().await;
        let Ok(Some(node)) = self.store.node(node_id).await else {
            return;
        };
        let Some(mirror) = node
            .maintenance
            .as_deref()
            .filter(|_| !node.is_local)
            .and_then(|t| serde_json::from_str::<termplane_proto::command::Maintenance>(t).ok())
        else {
            return;
        };
        match self
            .node_command_serialized(node_id, Command::SetMaintenance(mirror))
            .await
        {
            Ok(r) if r.ok => tracing::debug!(node = %node_id, "maintenance mirror pushed"),
            Ok(r) => {
                tracing::warn!(node = %node_id, error = ?r.error, "node refused set_maintenance")
            }
            Err(e) => {
                tracing::debug!(node = %node_id, code = e.code, "maintenance mirror not pushed")
            }
        }
    }

    /// `POST /api/nodes/:id/ping` (session only): `{ ok, rttMs }` (and `error` when the node
    /// refused).
    pub async fn ping_node(&self, c: &Caller, id: &str) -> Result<NodePing, ApiError> {
        let n = self.managed_node(c, id).await?;
        if n.is_local {
            return Ok(NodePing {
                ok: true,
                rtt_ms: 0,
                error: None,
            });
        }
        let clock = termplane_runtime_smol::SystemClock;
        let started = termplane_runtime_smol::Clock::now(&clock);
        let r = self
            .node_command(id, Command::Ping(termplane_proto::command::Empty {}))
            .await?;
        let rtt = termplane_runtime_smol::Clock::now(&clock).duration_since(started);
        Ok(NodePing {
            ok: r.ok,
            rtt_ms: u64::try_from(rtt.as_millis()).unwrap_or(u64::MAX),
            error: r.error,
        })
    }

    /// `POST /api/nodes/:id/commands` (administrator session only): the admin and debug surface
    /// of the dispatcher. The body is one node command as its JSON (`{ "type": "capture", … }`,
    /// the protocol's `Command`); it is signed and sent through the live link like any other and
    /// the node's `result` comes back as `result`, with `sentAtUs` (Unix microseconds just before
    /// dispatch) and `elapsedUs` (dispatch to result, measured in the plane). On the local node
    /// the command runs in the plane's own executor, unsigned (there is no link), and the
    /// commands about a node daemon (`update`, `service`, `set_server_url`, `set_log_level`,
    /// `agent_log_read`) come back refused: that node runs none.
    pub async fn node_command_admin(
        &self,
        c: &Caller,
        id: &str,
        command: Command,
    ) -> Result<NodeCommandAnswer, ApiError> {
        self.managed_node(c, id).await?;
        // The terminal pumps' tails belong to the pumps: a raw command must not replace or stop one.
        let pump_tail = match &command {
            Command::TailStart(t) => crate::link::is_viewer_tail(&t.sub_id),
            Command::TailStop(t) => crate::link::is_viewer_tail(&t.sub_id),
            _ => false,
        };
        if pump_tail {
            return Err(ApiError::validation(
                "subId",
                "tail keys starting with `view-` belong to the plane's terminal pumps",
            ));
        }
        // Audited before it is sent (a command that times out may still have run): its type
        // and its fields, long values (a file's content) cut to their length. An update is
        // audited as one, whichever route sent it.
        let action = if matches!(command, Command::Update(_)) {
            "node.update_sent"
        } else {
            "node.command_sent"
        };
        let mut detail = serde_json::to_value(&command).unwrap_or_default();
        if let Some(fields) = detail.as_object_mut() {
            for v in fields.values_mut() {
                if let Some(text) = v.as_str()
                    && text.chars().count() > 200
                {
                    *v = json!(format!("({} characters)", text.chars().count()));
                }
            }
        }
        self.store
            .audit(
                self.now(),
                Some(&c.user().id),
                c.actor_kind(),
                action,
                Some(id),
                &json!({ "command": detail }),
            )
            .await?;
        // Set beside the node's own clock in the answer: the host's wall clock, not the
        // service's (which a test may hold still).
        let sent_at = crate::clock::wall_micros();
        let started = self.instant();
        let r = self.node_command(id, command).await?;
        let elapsed = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        Ok(NodeCommandAnswer {
            result: r.into(),
            sent_at_us: sent_at,
            elapsed_us: elapsed,
        })
    }

    /// `GET /api/nodes/:id/events?after=N&waitMs=M` (session only): the node's recent events
    /// after sequence number `N` (see [`crate::link::events`]), waiting up to `M` ms (at most
    /// 25 s) for the first one.
    pub async fn node_events_read(
        &self,
        c: &Caller,
        id: &str,
        q: NodeEventsQuery,
    ) -> Result<NodeEvents, ApiError> {
        self.managed_node(c, id).await?;
        Ok(self
            .events
            .read(id, q.after, std::time::Duration::from_millis(q.wait_ms))
            .await)
    }
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
