//! Node rows: listing, detail, deletion, key rotation, allowed directories, maintenance,
//! node downloads and held nodes.
//!
//! # Who may do what with a node
//!
//! A remote node belongs to the account that enrolled it. The local node (the plane's own host)
//! belongs to no account: it belongs to the administrators. Seeing a node's row is not owning
//! it: every signed-in account sees the local node, but only what an owner may do is allowed
//! to whoever owns the node, and on the local node that is an administrator's session.
//!
//! | route | a remote node | the local node |
//! |---|---|---|
//! | `GET /api/nodes`, `GET /api/nodes/{id}` (the row) | its owner, administrators | everyone signed in |
//! | `PUT …/allowed_dirs`, `POST …/ping`, `GET …/events` | its owner, administrators | administrators; others 403 `ADMIN_REQUIRED` |
//! | `DELETE`, `POST …/key_rotate`, `PUT …/maintenance` | its owner, administrators | refused: 403 `LOCAL_NODE` (others 403 `ADMIN_REQUIRED`) |
//! | `GET …/harnesses`, `GET …/dirs` (a launch's questions) | who may launch there | who may launch there |
//! | `POST …/commands` | administrators | administrators |
//! | `PUT …/system-access`, `POST /api/admin/updates/nodes/{id}` | administrators | refused: 403 `LOCAL_NODE` |
//!
//! Another account's remote node answers 404 to everything, as if absent (administrators
//! excepted). Who may launch where is [`launchable_node`]'s rule.

use termplane_proto::Command;

use std::sync::Arc;

use serde_json::json;

use super::dispatch::Dispatcher;
use super::{Caller, iso8601_utc, node_view};
use crate::api::nodes::{
    AllowedDirsRequest, BelowFloorNode, HeldNode, HeldNodes, Liveness, MaintenanceRequest,
    MaintenanceSet, Node, NodeCommandAnswer, NodeEvents, NodeEventsQuery, NodeKeyRotated, NodePing,
    NodeUpdateOutcome, NodeUpdateRequest,
};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::link::LinkHub;
use crate::link::events::EventLog;
use crate::secret::{self, BEARER_PREFIX};
use crate::store::{self, Store};

/// The nodes domain: node rows and who may see and manage them, their settings pushed to
/// them, their updates, downloads of the node program, and the admin's commands to a node. It
/// holds the store, the clock, the live links, the dispatcher, the nodes' recent events, the
/// base URL (an update's download address) and the downloads directory.
pub struct Nodes {
    store: Store,
    clock: Arc<dyn Clock>,
    links: Arc<LinkHub>,
    dispatcher: Arc<Dispatcher>,
    events: Arc<EventLog>,
    base_url: String,
    downloads_dir: Option<std::path::PathBuf>,
}

impl Nodes {
    /// The service over `store`.
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        links: Arc<LinkHub>,
        dispatcher: Arc<Dispatcher>,
        events: Arc<EventLog>,
        base_url: String,
        downloads_dir: Option<std::path::PathBuf>,
    ) -> Self {
        Self {
            store,
            clock,
            links,
            dispatcher,
            events,
            base_url,
            downloads_dir,
        }
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    fn instant(&self) -> std::time::Instant {
        self.clock.instant()
    }

    /// The recent events each node sent on its own.
    #[must_use]
    pub fn events(&self) -> &EventLog {
        &self.events
    }

    // ----- nodes -----

    /// Node `id` as `c` may see it: any node for an administrator's session, the local node
    /// for everyone signed in, otherwise the caller's own; any other answers 404, as if absent.
    async fn visible_node(&self, c: &Caller, id: &str) -> Result<store::Node, ApiError> {
        let n = self
            .store
            .node(id)
            .await?
            .ok_or_else(|| ApiError::not_found("node"))?;
        let visible = c.is_admin_session()
            || n.is_local
            || n.owner_user_id.as_deref() == Some(c.user().id.as_str());
        if visible {
            Ok(n)
        } else {
            Err(ApiError::not_found("node"))
        }
    }

    /// Node `id` when `c` manages it: every write to a node and every read of what happens on
    /// it (its events) goes through here.
    ///
    /// A remote node is managed by its owner and by any administrator's session; another
    /// account's node answers 404, as if absent. The local node, the plane's own host, has no
    /// owner account: it belongs to the administrators. Everyone signed in sees its row (and
    /// launches on it as far as [`launchable_node`] lets them), but a person who is not an
    /// administrator manages none of it: 403 `ADMIN_REQUIRED`.
    pub(super) async fn managed_node(&self, c: &Caller, id: &str) -> Result<store::Node, ApiError> {
        let n = self.visible_node(c, id).await?;
        if n.is_local && !c.is_admin_session() {
            return Err(ApiError::new(
                403,
                "ADMIN_REQUIRED",
                "the local node belongs to the administrators: an administrator's session is \
                 required to change it or read its events",
            ));
        }
        Ok(n)
    }

    /// [`Self::managed_node`] for writes the local node does not support: 403 `LOCAL_NODE`
    /// saying `why` when `id` names the plane's own row.
    pub(super) async fn managed_remote_node(
        &self,
        c: &Caller,
        id: &str,
        why: &str,
    ) -> Result<store::Node, ApiError> {
        let n = self.managed_node(c, id).await?;
        if n.is_local {
            return Err(local_node_refusal(why));
        }
        Ok(n)
    }

    /// `GET /api/nodes`: the local node and the caller's own nodes — for an administrator's
    /// session every node; for a system key the local node, the `system` account's nodes and
    /// the nodes an administrator let scripts launch onto (`PUT /api/nodes/:id/system-access`);
    /// a node outside that list answers a system key 404, as if absent.
    pub async fn nodes(&self, c: &Caller) -> Result<Vec<Node>, ApiError> {
        // A pane's token sees what its owner does (without an administrator's boost).
        let scripts = match c {
            Caller::SystemKey { .. } => true,
            Caller::Pane { user, .. } => user.role == "service",
            Caller::Session { .. } => false,
        };
        let rows = if c.is_admin_session() {
            self.store.nodes(None).await?
        } else if scripts {
            self.store.nodes_for_scripts(&c.user().id).await?
        } else {
            self.store.nodes(Some(&c.user().id)).await?
        };
        Ok(rows.iter().map(|n| self.view_node(c, n)).collect())
    }

    /// A node row as the API shows it to `c`; the local node reads offline when this plane runs
    /// no panes on its own host (`--no-local-node`, or tmux missing): launches there are refused.
    fn view_node(&self, c: &Caller, n: &store::Node) -> Node {
        let mut v = node_view(n);
        if n.is_local && self.dispatcher.local_node().is_none() {
            v.liveness = crate::api::nodes::Liveness::Offline;
        }
        v.can_launch = may_launch_on(c, n);
        v
    }

    /// `GET /api/nodes/:id` (session only).
    /// Node `id` as caller `c` sees it (404 when `c` may not).
    pub async fn node(&self, c: &Caller, id: &str) -> Result<Node, ApiError> {
        Ok(self.view_node(c, &self.visible_node(c, id).await?))
    }

    /// `DELETE /api/nodes/:id` (session only).
    pub async fn delete_node(&self, c: &Caller, id: &str) -> Result<(), ApiError> {
        self.managed_remote_node(c, id, "the local node cannot be deleted")
            .await?;
        match self
            .store
            .delete_idle_node(&c.user().id, id, self.now())
            .await?
        {
            crate::store::NodeDeletion::Deleted => {}
            crate::store::NodeDeletion::NotFound => return Err(ApiError::not_found("node")),
            crate::store::NodeDeletion::LiveSubshells(live) => {
                return Err(super::live_subshells_refusal(
                    "NODE_HAS_LIVE_SUBSHELLS",
                    format!(
                        "{} subshell(s) on the node are live: terminate them first (deleting the \
                         node would leave their panes running out of reach)",
                        live.len()
                    ),
                    &live,
                ));
            }
        }
        self.links.kick(id);
        Ok(())
    }

    /// `POST /api/nodes/:id/key_rotate` (session only): the old key stops working at once, the
    /// new one is in this answer only, and the encryption pin is cleared.
    pub async fn rotate_node_key(&self, c: &Caller, id: &str) -> Result<NodeKeyRotated, ApiError> {
        self.managed_remote_node(c, id, "the local node has no node key")
            .await?;
        let node_key = secret::new_token(BEARER_PREFIX)?;
        if !self
            .store
            .rotate_node_key(&c.user().id, id, &secret::digest(&node_key), self.now())
            .await?
        {
            return Err(ApiError::not_found("node"));
        }
        self.links.kick(id);
        Ok(NodeKeyRotated {
            node_id: id.to_owned(),
            node_key,
        })
    }

    /// `PUT /api/nodes/:id/allowed_dirs` (session only): `{ allowedDirs: [absolute paths] }`.
    pub async fn set_allowed_dirs(
        &self,
        c: &Caller,
        id: &str,
        req: AllowedDirsRequest,
    ) -> Result<Node, ApiError> {
        self.managed_node(c, id).await?;
        let dirs: Vec<String> = req
            .allowed_dirs
            .iter()
            .map(|d| d.as_str().to_owned())
            .collect();
        let text = serde_json::to_string(&dirs).map_err(|_| ApiError::internal())?;
        // The write and its push in one order across concurrent edits. A node whose link is up
        // is told first (whether or not its census has been applied: the list does not depend
        // on it), and a list it refuses is not kept: the plane never shows a list the node does
        // not enforce. A node offline, or that does not answer in time, is told at its next
        // `ready` (which reads the row under this same lock). A list that could never reach a
        // node (too large for the link's envelope) is refused and not kept.
        let lock = self.links.node_lock(id);
        let _serial = lock.lock().await;
        let cmd = Command::SetAllowedDirs(termplane_proto::command::SetAllowedDirs { dirs });
        match self.dispatcher.node_command_serialized(id, cmd).await {
            Ok(r) if !r.ok => {
                let reason = r.error.unwrap_or_else(|| "refused".into());
                return Err(ApiError::new(
                    409,
                    "NODE_REFUSED",
                    format!("the node refused the list, which was not kept: {reason}"),
                )
                .with_metadata(serde_json::json!({ "reason": reason })));
            }
            Ok(_) => {}
            Err(e) if matches!(e.code, "NODE_OFFLINE" | "NODE_TIMEOUT" | "NODE_LINK_CLOSED") => {
                tracing::debug!(node = %id, code = e.code, "allowed directories pushed at the next ready");
            }
            Err(e) => return Err(e),
        }
        if !self
            .store
            .set_allowed_dirs(&c.user().id, id, &text, self.now())
            .await?
        {
            return Err(ApiError::not_found("node"));
        }
        self.node(c, id).await
    }

    /// `PUT /api/nodes/:id/maintenance` (session only): `{ on }`. Writes the row's maintenance
    /// mirror `{ on, changedAt }` (the plane's clock, ISO 8601 UTC), audits it, and pushes the
    /// same mirror to the node with `set_maintenance` when its link is online; the answer says
    /// whether the push reached it (`pushed`). A mirror that did not reach it is pushed at its
    /// next connect: of the row's mirror and the one the node reports in `ready`, the newer
    /// (`changedAt`) is kept.
    pub async fn set_maintenance(
        &self,
        c: &Caller,
        id: &str,
        req: MaintenanceRequest,
    ) -> Result<MaintenanceSet, ApiError> {
        self.managed_remote_node(c, id, "the local node has no maintenance mirror")
            .await?;
        let mirror = termplane_proto::command::Maintenance {
            on: req.on,
            changed_at: iso8601_utc(self.now()),
        };
        let text = serde_json::to_string(&mirror).unwrap_or_default();
        // The write and its push in one order across concurrent edits (the node's mirror ends
        // equal to the row's).
        let lock = self.links.node_lock(id);
        let _serial = lock.lock().await;
        if !self
            .store
            .set_maintenance(&c.user().id, id, &text, self.now())
            .await?
        {
            return Err(ApiError::not_found("node"));
        }
        let pushed = match self
            .dispatcher
            .node_command_serialized(id, Command::SetMaintenance(mirror.clone()))
            .await
        {
            Ok(r) => r.ok,
            Err(e) => {
                tracing::debug!(node = %id, code = e.code, "maintenance mirror not pushed");
                false
            }
        };
        Ok(MaintenanceSet {
            on: mirror.on,
            changed_at: mirror.changed_at,
            pushed,
        })
    }

    /// `GET /api/downloads/node/:platform` (no credential): where the node binary for
    /// `platform` (`<os>-<arch>`, e.g. `linux-x86_64`) is, its length and its SHA-256.
    ///
    /// With [`super::Settings::downloads_dir`] set, the file is
    /// `<that dir>/termplane-node-<platform>`; otherwise the plane serves the `termplane-node`
    /// next to its own executable, for this machine's platform only. Anything else is
    /// `NOT_FOUND`.
    pub async fn node_download(
        &self,
        platform: &str,
    ) -> Result<(std::path::PathBuf, u64, String), ApiError> {
        // `platform` has the shape of `api::nodes::Platform` (checked when the path was read).
        let missing = || ApiError::not_found("download");
        let path = match &self.downloads_dir {
            Some(dir) => dir.join(format!("termplane-node-{platform}")),
            _ => {
                let here = format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH);
                if platform != here {
                    return Err(missing());
                }
                std::env::current_exe()
                    .ok()
                    .and_then(|e| e.parent().map(|d| d.join("termplane-node")))
                    .ok_or_else(missing)?
            }
        };
        let hashed = smol::unblock(move || -> std::io::Result<_> {
            use sha2::Digest as _;
            use std::io::Read as _;
            let mut f = std::fs::File::open(&path)?;
            let meta = f.metadata()?;
            if !meta.is_file() {
                return Err(std::io::ErrorKind::NotFound.into());
            }
            let mut h = sha2::Sha256::new();
            let mut buf = vec![0_u8; 256 * 1024];
            let mut len = 0_u64;
            loop {
                let n = f.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                len += n as u64;
                h.update(&buf[..n]);
            }
            Ok((path, len, crate::secret::hex_lower(&h.finalize())))
        })
        .await;
        hashed.map_err(|_| missing())
    }

    /// `GET /api/admin/updates/held` (admin session only): nodes held for an update by a live
    /// socket (`held`), and rows whose stored agent version is below the floor (`belowFloor`).
    pub async fn held_nodes(&self) -> Result<HeldNodes, ApiError> {
        let mut held = Vec::new();
        for h in self.links.held() {
            let row = self.store.node(&h.node_id).await?;
            held.push(HeldNode {
                node_id: h.node_id,
                name: row.as_ref().map(|n| n.name.clone()),
                agent_version: row.as_ref().map(|n| n.agent_version.clone()),
                liveness: row.as_ref().map(|n| {
                    if n.liveness == "online" {
                        Liveness::Online
                    } else {
                        Liveness::Offline
                    }
                }),
                reason: h.reason,
            });
        }
        let below_floor = self
            .store
            .nodes(None)
            .await?
            .into_iter()
            .filter(|n| !n.is_local)
            .filter(|n| {
                termplane_proto::Version::parse(&n.agent_version)
                    .map_or(true, |v| v < termplane_proto::MIN_NODE_VERSION)
            })
            .map(|n| BelowFloorNode {
                node_id: n.id,
                name: n.name,
                agent_version: n.agent_version,
            })
            .collect();
        Ok(HeldNodes {
            min_node_version: termplane_proto::MIN_NODE_VERSION.to_string(),
            held,
            below_floor,
        })
    }

    /// `POST /api/admin/updates/nodes/{id}` (admin session): sends the node `update` with the
    /// plane's version, the address the plane serves the node's binary at
    /// (`/api/downloads/node/<os>-<arch>` under the base URL) and that binary's SHA-256, and
    /// reports the node's answer. A node that is offline, the local node (it runs in the plane)
    /// or a platform without a served binary is refused before anything is sent.
    pub async fn update_node(
        &self,
        c: &Caller,
        id: &str,
        req: NodeUpdateRequest,
    ) -> Result<NodeUpdateOutcome, ApiError> {
        let node = self
            .managed_remote_node(
                c,
                id,
                "the local node runs inside the plane: update the plane itself",
            )
            .await?;
        self.send_update(c, &node, req.force).await
    }

    /// Audits an update about to be sent to `node` (just before it is: it may run although its
    /// answer never comes; one refused before anything is sent is not audited).
    async fn audit_update(
        &self,
        c: &Caller,
        node: &store::Node,
        force: Option<bool>,
    ) -> Result<(), ApiError> {
        self.store
            .audit(
                self.now(),
                Some(&c.user().id),
                c.actor_kind(),
                "node.update_sent",
                Some(&node.id),
                &serde_json::json!({
                    "fromVersion": node.agent_version,
                    "toVersion": env!("CARGO_PKG_VERSION"),
                    "force": force.unwrap_or(false),
                }),
            )
            .await?;
        Ok(())
    }

    /// `POST /api/admin/updates/outdated` (admin session): [`Self::update_node`] for every
    /// remote node whose version is below the plane's (held nodes included), one after the
    /// other; each node's outcome is reported, a failure does not stop the others.
    pub async fn update_outdated_nodes(
        &self,
        c: &Caller,
        req: NodeUpdateRequest,
    ) -> Result<Vec<NodeUpdateOutcome>, ApiError> {
        let mine = termplane_proto::Version::parse(env!("CARGO_PKG_VERSION"));
        let mut out = Vec::new();
        for node in self.store.nodes(None).await? {
            let behind = match (termplane_proto::Version::parse(&node.agent_version), &mine) {
                (Ok(v), Ok(m)) => v < *m,
                _ => true,
            };
            if node.is_local || !behind {
                continue;
            }
            let outcome = match self.send_update(c, &node, req.force).await {
                Ok(o) => o,
                Err(e) => NodeUpdateOutcome {
                    node_id: node.id.clone(),
                    name: node.name.clone(),
                    from_version: node.agent_version.clone(),
                    to_version: env!("CARGO_PKG_VERSION").to_owned(),
                    ok: false,
                    reason: Some(e.message.clone()),
                },
            };
            out.push(outcome);
        }
        Ok(out)
    }

    async fn send_update(
        &self,
        c: &Caller,
        node: &store::Node,
        force: Option<bool>,
    ) -> Result<NodeUpdateOutcome, ApiError> {
        let platform = format!("{}-{}", node.os, node.arch);
        let valid = serde_json::from_value::<crate::api::nodes::Platform>(
            serde_json::Value::String(platform.clone()),
        )
        .is_ok();
        let served = if valid {
            self.node_download(&platform).await.ok()
        } else {
            None
        };
        let Some((_, _, sha256)) = served else {
            return Err(ApiError::new(
                404,
                "NOT_FOUND",
                format!("this plane serves no node binary for {platform}"),
            ));
        };
        let version = env!("CARGO_PKG_VERSION").to_owned();
        let url = format!(
            "{}/api/downloads/node/{platform}",
            self.base_url.trim_end_matches('/')
        );
        self.audit_update(c, node, force).await?;
        let r = self
            .dispatcher
            .node_command(
                &node.id,
                Command::Update(termplane_proto::command::Update {
                    version: version.clone(),
                    url,
                    sha256,
                    force: force.filter(|f| *f),
                }),
            )
            .await?;
        tracing::info!(node = %node.id, ok = r.ok, "update sent");
        Ok(NodeUpdateOutcome {
            node_id: node.id.clone(),
            name: node.name.clone(),
            from_version: node.agent_version.clone(),
            to_version: version,
            ok: r.ok,
            reason: if r.ok {
                None
            } else {
                Some(match (r.error, r.detail) {
                    (Some(e), Some(d)) => format!("{e} ({d})"),
                    (Some(e), None) => e,
                    (None, Some(d)) => d,
                    (None, None) => "refused".to_owned(),
                })
            },
        })
    }
}

/// The node `node_id` if `c` may launch subshells on it (the rule of [`super::subshells`]' documentation),
/// else 404 (a node the caller cannot see) or 403.
pub(in crate::service) async fn launchable_node(
    store: &Store,
    c: &Caller,
    node_id: &str,
) -> Result<store::Node, ApiError> {
    let node = store
        .node(node_id)
        .await?
        .ok_or_else(|| ApiError::not_found("node"))?;
    let denied = || {
        ApiError::new(
            403,
            "NODE_NOT_ALLOWED",
            "this credential may not launch subshells on that node",
        )
    };
    let owner = node.owner_user_id.as_deref();
    if may_launch_on(c, &node) {
        Ok(node)
    } else if node.is_local || owner == Some(c.user().id.as_str()) {
        Err(denied())
    } else {
        // A node the caller has no business with is not revealed.
        Err(ApiError::not_found("node"))
    }
}

/// Whether `c` may launch subshells on `node` (the rule of [`super::subshells`]' documentation): the node
/// listing answers it as `canLaunch`, and every launch, harness check and folder listing
/// checks it.
pub(in crate::service) fn may_launch_on(c: &Caller, node: &store::Node) -> bool {
    let owner = node.owner_user_id.as_deref();
    let open_to_scripts = node.is_local || node.system_access;
    match c {
        Caller::Session { user, .. } if user.role == "admin" => true,
        Caller::Session { user, .. } => owner == Some(user.id.as_str()),
        Caller::SystemKey { user, .. } => owner == Some(user.id.as_str()) || open_to_scripts,
        Caller::Pane {
            user,
            node_id: own_node,
            ..
        } => {
            *own_node == node.id
                || owner == Some(user.id.as_str())
                || (user.role == "service" && open_to_scripts)
        }
    }
}

/// The refusal of a write the local node does not support (403 `LOCAL_NODE`), saying `why`.
pub(super) fn local_node_refusal(why: &str) -> ApiError {
    ApiError::new(403, "LOCAL_NODE", why.to_owned())
}

// ----- commands to a node from its routes, and the settings pushed to it -----

impl Nodes {
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
        match self.dispatcher.node_command_serialized(node_id, cmd).await {
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
            .dispatcher
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

    /// Asks a node that can for its `activity` events, which feed the screen signal
    /// (`subshells::screen`), or (`on` false: the plane's screen signal is off) tells it to
    /// stop them, since a node keeps them on across links; the local node's are turned on
    /// where it starts.
    pub async fn push_activity(&self, node_id: &str, on: bool) {
        if !self
            .dispatcher
            .node_can(node_id, termplane_proto::command::ACTIVITY)
            .await
        {
            return;
        }
        let watch = termplane_proto::command::ActivityWatch {
            on,
            quiet_ms: crate::plugins::SCREEN_QUIET_MS,
        };
        match self
            .dispatcher
            .node_command_serialized(node_id, Command::Activity(watch))
            .await
        {
            Ok(r) if r.ok => tracing::debug!(node = %node_id, "activity events asked for"),
            Ok(r) => tracing::warn!(node = %node_id, error = ?r.error, "node refused activity"),
            Err(e) => tracing::debug!(node = %node_id, code = e.code, "activity not asked for"),
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
            .dispatcher
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
        let r = self.dispatcher.node_command(id, command).await?;
        let took = self.instant().saturating_duration_since(started);
        let elapsed = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
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
