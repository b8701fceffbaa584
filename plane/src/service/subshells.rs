//! Subshells: launching harness panes on a node, reading and typing into them, and moving them
//! through their lifecycle ([`super::lifecycle`]).
//!
//! # Who may do what
//!
//! * A person (session) sees and acts on their own subshells; an administrator on every one.
//! * A script (system key) acts as the `system` account: on `system`'s subshells.
//! * A pane (its subshell's token) acts as its subshell's owner, on the owner's subshells only
//!   (never with an administrator's boost, never through a share), within its permission map:
//!   `subshells: read` lists and reads them, `subshells: write` also types into, resizes,
//!   restarts, stops, deletes and launches them. A pane reports attention and its session
//!   identity for its own subshell only.
//!
//! # Where a subshell may run
//!
//! * An administrator (session): any node.
//! * A person: the nodes they own.
//! * A script (system key): the local node, and the nodes an administrator opened to scripts
//!   (`PUT /api/nodes/{id}/system-access`).
//! * A pane: the node its own subshell runs on, and the nodes its owner may use as that owner
//!   would from a script or a browser, without an administrator's boost.
//!
//! # Keeping the node's queue quick
//!
//! Commands to a node run in order, so none of them may take long. A graceful stop types
//! Ctrl-C, then probes (short commands) until the program ends or the grace is over, then
//! kills; an initial prompt is typed once repeated captures show the pane quiet; a long paste
//! goes in pieces of at most [`INPUT_PIECE_BYTES`].

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use termplane_proto::command::{
    Capture, Command, Input, Launch, LogRead, NamedKey, Preset as ProtoPreset, Probe, Resize,
    SubshellRef,
};
use termplane_proto::{Event, SubshellId};

use super::lifecycle::{self, TokenEffect, Trigger};
use super::{Caller, RequestMeta, Service};
use crate::api::subshells::{
    Access, Attention, AttentionRequest, CreatedBy, InputDone, InputRequest, KeptAlive,
    LaunchRequest, LogChunk, LogsQuery, Permissions, ResizeRequest, Screen, ScreenQuery,
    SessionRequest, Subshell, SubshellState, SubshellStatus, SubshellsQuery,
};
use crate::error::ApiError;
use crate::plugins;
use crate::secret::{self, BEARER_PREFIX};
use crate::store::{self, Change, SubshellFilter};

/// Lifetime of a subshell token, extended while the pane's MCP child runs (ms).
pub const TOKEN_LIFETIME_MS: i64 = 7 * 24 * 60 * 60 * 1000;
/// Most bytes of text one `input` command carries (a longer paste is split, in order).
pub const INPUT_PIECE_BYTES: usize = 4096;
/// Default grid.
const DEFAULT_COLS: u16 = 120;
const DEFAULT_ROWS: u16 = 36;
/// An initial prompt waits for this much quiet (ms), and gives up after this long (ms).
const PROMPT_QUIET_MS: u64 = 1_500;
const PROMPT_TIMEOUT_MS: u64 = 120_000;

/// What a caller wants of a subshell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Need {
    Read,
    Write,
}

/// The parts of a launch kept on the row for relaunches: the launch without its credentials,
/// command line or session (rebuilt at each launch), and the preset's flags.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct LaunchSpec {
    launch: Launch,
    flags: Vec<String>,
    permissions: Permissions,
}

impl Service {
    // ----- who may see, act and launch -----

    /// The subshell `id` as `c` may see it, or 404; 403 when `need` is more than a pane's
    /// permission map allows.
    pub(super) async fn reach_subshell(
        &self,
        c: &Caller,
        id: &str,
        need: Need,
    ) -> Result<store::Subshell, ApiError> {
        let row = self
            .store
            .subshell(id)
            .await?
            .ok_or_else(|| ApiError::not_found("subshell"))?;
        let visible = match c {
            Caller::Session { user, .. } => user.role == "admin" || row.owner_user_id == user.id,
            Caller::SystemKey { user, .. } | Caller::Pane { user, .. } => {
                row.owner_user_id == user.id
            }
        };
        if !visible {
            return Err(ApiError::not_found("subshell"));
        }
        if let Caller::Pane { permissions, .. } = c {
            let allowed = match need {
                Need::Read => true,
                Need::Write => permissions.subshells == Access::Write,
            };
            if !allowed {
                return Err(ApiError::new(
                    403,
                    "PERMISSION_DENIED",
                    "the pane's token allows reading subshells, not changing them",
                ));
            }
        }
        Ok(row)
    }

    /// The node `node_id` if `c` may launch subshells on it (see the module documentation),
    /// else 404 (a node the caller cannot see) or 403.
    pub(super) async fn launchable_node(
        &self,
        c: &Caller,
        node_id: &str,
    ) -> Result<store::Node, ApiError> {
        let node = self
            .store
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
        let system_rules = |system_access: bool| node.is_local || system_access;
        let allowed = match c {
            Caller::Session { user, .. } if user.role == "admin" => true,
            Caller::Session { user, .. } => owner == Some(user.id.as_str()),
            Caller::SystemKey { user, .. } => {
                owner == Some(user.id.as_str())
                    || system_rules(self.node_system_access(node_id).await?)
            }
            Caller::Pane {
                user,
                node_id: own_node,
                ..
            } => {
                own_node == node_id
                    || owner == Some(user.id.as_str())
                    || (user.role == "service"
                        && system_rules(self.node_system_access(node_id).await?))
            }
        };
        if allowed {
            Ok(node)
        } else if node.is_local || owner == Some(c.user().id.as_str()) {
            Err(denied())
        } else {
            // A node the caller has no business with is not revealed.
            Err(ApiError::not_found("node"))
        }
    }

    async fn node_system_access(&self, node_id: &str) -> Result<bool, ApiError> {
        Ok(self
            .store
            .node_facts(node_id)
            .await?
            .is_some_and(|f| f.system_access))
    }

    /// Whether commands can reach `node_id` now: the local node once its executor runs; a
    /// remote node once its link is online and its census applied.
    #[must_use]
    pub fn node_reachable(&self, node_id: &str) -> bool {
        if self.local_node_id() == Some(node_id) {
            return self.local.get().is_some();
        }
        matches!(
            self.links.status(node_id),
            Some(crate::link::LinkStatus::Online)
        ) && self.censused_now(node_id)
    }

    /// 409 `NODE_OFFLINE` for `node_id`; for the local node, saying why it can be down.
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

    fn censused_now(&self, node_id: &str) -> bool {
        let conn = self.links.current_conn(node_id);
        self.censused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(node_id)
            .is_some_and(|c| Some(*c) == conn)
    }

    // ----- views -----

    /// A subshell row as the API shows it.
    pub(super) fn subshell_view(&self, r: &store::Subshell) -> Subshell {
        let state = SubshellState::from_stored(&r.state);
        let reachable = self.node_reachable(&r.node_id);
        let attention = Attention::from_stored(&r.attention);
        let status = match state {
            s if s.is_live() && !reachable => SubshellStatus::NodeUnreachable,
            SubshellState::Starting => SubshellStatus::Starting,
            SubshellState::Running if attention == Attention::NeedsInput => {
                SubshellStatus::NeedsAttention
            }
            SubshellState::Running => SubshellStatus::Running,
            SubshellState::Stopping => SubshellStatus::Stopping,
            SubshellState::Stopped => SubshellStatus::Stopped,
            SubshellState::Exited => SubshellStatus::Exited,
            SubshellState::Crashed => SubshellStatus::Crashed,
            SubshellState::Failed => SubshellStatus::Failed,
        };
        Subshell {
            id: r.id.clone(),
            name: r.name.clone(),
            owner_user_id: r.owner_user_id.clone(),
            node_id: r.node_id.clone(),
            harness_id: r.harness_id.clone(),
            cwd: r.cwd.clone(),
            preset_id: r.preset_id.clone(),
            workspace_id: r.workspace_id.clone(),
            state,
            status,
            node_reachable: reachable,
            exit_code: r.exit_code.and_then(|c| i32::try_from(c).ok()),
            error: r.error.clone(),
            cols: u16::try_from(r.cols).unwrap_or(DEFAULT_COLS),
            rows: u16::try_from(r.rows).unwrap_or(DEFAULT_ROWS),
            attention,
            attention_at: r.attention_at,
            harness_session_id: r.harness_session_id.clone(),
            permissions: serde_json::from_str(&r.token_perms).unwrap_or_default(),
            token_expires_at: r.token_expires_at,
            auto_restart: r.auto_restart,
            restarts: r.restarts,
            prompt_state: r.prompt_state.clone(),
            parent_subshell_id: r.parent_subshell_id.clone(),
            created_by: match r.created_by_kind.as_str() {
                "system_key" => CreatedBy::SystemKey,
                "pane" => CreatedBy::Pane,
                _ => CreatedBy::Cookie,
            },
            created_at: r.created_at,
            updated_at: r.updated_at,
            started_at: r.started_at,
            ended_at: r.ended_at,
        }
    }

    async fn fresh_view(&self, id: &str) -> Result<Subshell, ApiError> {
        let row = self
            .store
            .subshell(id)
            .await?
            .ok_or_else(|| ApiError::not_found("subshell"))?;
        Ok(self.subshell_view(&row))
    }

    /// `GET /api/subshells`.
    pub async fn subshells(
        &self,
        meta: &RequestMeta,
        q: SubshellsQuery,
    ) -> Result<Vec<Subshell>, ApiError> {
        let c = self.caller(meta).await?;
        let owner = match &c {
            Caller::Session { user, .. } if user.role == "admin" => None,
            _ => Some(c.user().id.as_str()),
        };
        let rows = self
            .store
            .subshells(&SubshellFilter {
                owner,
                node: q.node_id.as_ref().map(|n| n.as_str()),
                harness: q.harness_id.as_ref().map(|h| h.as_str()),
                state: q.state.map(SubshellState::as_str),
            })
            .await?;
        Ok(rows.iter().map(|r| self.subshell_view(r)).collect())
    }

    /// `GET /api/subshells/:id`.
    pub async fn subshell(&self, meta: &RequestMeta, id: &str) -> Result<Subshell, ApiError> {
        let c = self.caller(meta).await?;
        let row = self.reach_subshell(&c, id, Need::Read).await?;
        Ok(self.subshell_view(&row))
    }

    // ----- launching -----

    /// How the pane's MCP server is started on `node` with `env`: the plane's own binary on the
    /// local node, the node daemon's binary (as its `ready` said to invoke it) elsewhere.
    async fn mcp_server(
        &self,
        node: &store::Node,
        env: BTreeMap<String, String>,
    ) -> Result<plugins::McpServer, ApiError> {
        let (command, mut args) =
            if node.is_local {
                let exe = std::env::current_exe()
                    .map_err(|_| ApiError::internal())?
                    .to_string_lossy()
                    .into_owned();
                (exe, Vec::new())
            } else {
                let facts = self.store.node_facts(&node.id).await?.unwrap_or_default();
                match facts.self_invoke.as_deref().and_then(|s| {
                    serde_json::from_str::<termplane_proto::event::SelfInvoke>(s).ok()
                }) {
                    Some(si) => (si.command, si.args),
                    None => ("termplane-node".to_owned(), Vec::new()),
                }
            };
        args.push("mcp".to_owned());
        Ok(plugins::McpServer { command, args, env })
    }

    /// The plane's address as the node reaches it: the base URL for the local node; for a
    /// remote node, the address it dials (its `wsUrl`, with the WebSocket scheme and path
    /// turned back into HTTP).
    fn plane_url_for(&self, node: &store::Node) -> String {
        if node.is_local {
            return self.settings.base_url.clone();
        }
        node.ws_url
            .as_deref()
            .and_then(|u| {
                let u = u.strip_suffix("/ws/node")?;
                Some(if let Some(rest) = u.strip_prefix("wss://") {
                    format!("https://{rest}")
                } else if let Some(rest) = u.strip_prefix("ws://") {
                    format!("http://{rest}")
                } else {
                    u.to_owned()
                })
            })
            .unwrap_or_else(|| self.settings.base_url.clone())
    }

    /// The node's data directory (where MCP registration files go) and home directory.
    async fn node_dirs(&self, node: &store::Node) -> Result<(String, String), ApiError> {
        if node.is_local {
            let local = self.local_dirs.get().cloned().unwrap_or_default();
            return Ok(local);
        }
        let facts = self.store.node_facts(&node.id).await?.unwrap_or_default();
        Ok((
            facts.data_dir.unwrap_or_default(),
            facts.home_dir.unwrap_or_default(),
        ))
    }

    /// Builds the node's `launch` for a subshell, with a fresh token's credentials: `resume`
    /// continues a harness session, `new_session` starts one under a chosen id.
    async fn launch_command(
        &self,
        node: &store::Node,
        spec: &LaunchSpec,
        token: &str,
        resume: Option<&str>,
        new_session: Option<&str>,
    ) -> Result<Launch, ApiError> {
        let plugin = plugins::find(&spec.launch.harness_id)
            .ok_or_else(|| ApiError::not_found("harness plugin"))?;
        let id = spec.launch.subshell_id.as_str().to_owned();
        let credentials = BTreeMap::from([
            ("TERMPLANE_URL".to_owned(), self.plane_url_for(node)),
            ("TERMPLANE_TOKEN".to_owned(), token.to_owned()),
            ("TERMPLANE_SUBSHELL_ID".to_owned(), id.clone()),
            ("TERMPLANE_NODE_ID".to_owned(), node.id.clone()),
        ]);
        let (data_dir, _) = self.node_dirs(node).await?;
        let ext = if plugin.mcp == plugins::McpDialect::CodexOverrides {
            "env"
        } else {
            "json"
        };
        let file = format!("{}/mcp/{id}.{ext}", data_dir.trim_end_matches('/'));
        let server = self.mcp_server(node, credentials.clone()).await?;
        let mcp = if data_dir.is_empty() {
            None
        } else {
            plugin.registration(&server, &file)
        };
        let mut launch = spec.launch.clone();
        launch.argv = plugin.argv(&spec.flags, resume, new_session);
        launch.resume = resume.map(str::to_owned);
        if let Some(m) = &mcp {
            // The harness's own arguments for the registration come right after the binary.
            let at = launch.argv.len().min(1);
            for (i, a) in m.args.iter().enumerate() {
                launch.argv.insert(at + i, a.clone());
            }
        }
        launch.credential_env = credentials;
        launch.mcp = mcp;
        Ok(launch)
    }

    /// `POST /api/subshells`: launches a harness in a new pane. A launch the node refuses
    /// leaves nothing behind (no row, no token) and answers 422 `LAUNCH_REFUSED` with the
    /// node's reason.
    pub async fn launch_subshell(
        &self,
        meta: &RequestMeta,
        req: LaunchRequest,
    ) -> Result<Subshell, ApiError> {
        let c = self.caller(meta).await?;
        let permissions = req.permissions.unwrap_or_default();
        let mut parent = None;
        if let Caller::Pane {
            permissions: ceiling,
            subshell_id,
            ..
        } = &c
        {
            if ceiling.subshells != Access::Write {
                return Err(ApiError::new(
                    403,
                    "PERMISSION_DENIED",
                    "the pane's token does not allow launching subshells",
                ));
            }
            if !permissions.within(ceiling) {
                return Err(ApiError::new(
                    403,
                    "PERMISSION_DENIED",
                    "a pane cannot give a new subshell more than its own permissions",
                ));
            }
            parent = Some(subshell_id.clone());
        }
        let node = self.launchable_node(&c, req.node_id.as_str()).await?;
        let plugin = plugins::find(req.harness_id.as_str())
            .ok_or_else(|| ApiError::not_found("harness plugin"))?;
        let preset = match &req.preset_id {
            Some(p) => Some(self.own_preset(&c, p.as_str()).await?),
            None => None,
        };
        if let Some(p) = &preset
            && p.harness_id.as_deref().is_some_and(|h| h != plugin.id)
        {
            return Err(ApiError::new(
                409,
                "REFERENCE_MISMATCH",
                "the preset is for another harness",
            )
            .with_metadata(serde_json::json!({ "field": "presetId" })));
        }
        let workspace = match &req.workspace_id {
            Some(w) => {
                let w = self.own_workspace(&c, w.as_str()).await?;
                if w.node_id != node.id {
                    return Err(ApiError::new(
                        409,
                        "REFERENCE_MISMATCH",
                        "the workspace is on another node",
                    )
                    .with_metadata(serde_json::json!({ "field": "workspaceId" })));
                }
                Some(w)
            }
            None => None,
        };
        if !self.node_reachable(&node.id) {
            return Err(self.offline(&node.id));
        }
        if let Err(why) = self.launch_gate(&node.id, plugin.id, true).await? {
            let (status, code) = match why {
                super::catalog::NotLaunchable::Disabled => (409, "PLUGIN_DISABLED"),
                _ => (409, "HARNESS_NOT_INSTALLED"),
            };
            return Err(ApiError::new(
                status,
                code,
                format!(
                    "{} cannot be launched on this node: {}",
                    plugin.name,
                    why.as_str()
                ),
            )
            .with_metadata(serde_json::json!({ "harnessId": plugin.id, "reason": why.as_str() })));
        }
        let (_, home) = self.node_dirs(&node).await?;
        let cwd = match (&workspace, &req.cwd) {
            (_, Some(p)) => p.as_str().to_owned(),
            (Some(w), None) => w.path.clone(),
            (None, None) if !home.is_empty() => home,
            (None, None) => "/".to_owned(),
        };
        let flags: Vec<String> = preset
            .as_ref()
            .and_then(|p| serde_json::from_str(&p.flags).ok())
            .unwrap_or_default();
        let env: BTreeMap<String, String> = preset
            .as_ref()
            .and_then(|p| serde_json::from_str(&p.env).ok())
            .unwrap_or_default();
        let settings = preset
            .as_ref()
            .and_then(|p| p.settings.as_deref())
            .and_then(|s| serde_json::from_str(s).ok());
        let id = secret::new_id()?;
        let subshell_id = SubshellId::parse(&id).map_err(|_| ApiError::internal())?;
        let cols = req.cols.map_or(DEFAULT_COLS, |g| g.0);
        let rows = req.rows.map_or(DEFAULT_ROWS, |g| g.0);
        let resume = req.resume.as_ref().map(|r| r.as_str().to_owned());
        // A harness that starts a session under a chosen id gets one now, so the session can
        // be resumed without asking the harness.
        let new_session = match (&resume, plugin.session_id_flag) {
            (None, Some(_)) => Some(new_uuid()?),
            _ => None,
        };
        let spec = LaunchSpec {
            launch: Launch {
                subshell_id,
                argv: Vec::new(),
                resolve: plugin.resolve(),
                cwd: cwd.clone(),
                harness_id: plugin.id.to_owned(),
                preset: ProtoPreset {
                    env,
                    flags: Vec::new(),
                    settings,
                    config_isolation: preset.as_ref().is_some_and(|p| p.config_isolation),
                },
                credential_env: BTreeMap::new(),
                mcp: None,
                resume: None,
                cols,
                rows,
                best_effort_log: false,
            },
            flags,
            permissions,
        };
        let token = secret::new_token(BEARER_PREFIX)?;
        let now = self.now();
        let name = req.name.map_or_else(
            || format!("{} {}", plugin.name, &id[..6]),
            |n| n.into_string(),
        );
        let row = store::Subshell {
            id: id.clone(),
            owner_user_id: c.user().id.clone(),
            node_id: node.id.clone(),
            harness_id: plugin.id.to_owned(),
            name,
            cwd,
            preset_id: preset.as_ref().map(|p| p.id.clone()),
            workspace_id: workspace.as_ref().map(|w| w.id.clone()),
            launch_spec: serde_json::to_string(&spec).map_err(|_| ApiError::internal())?,
            state: SubshellState::Starting.as_str().to_owned(),
            exit_code: None,
            error: None,
            cols: i64::from(cols),
            rows: i64::from(rows),
            prompt: req.prompt.as_ref().map(|p| p.as_str().to_owned()),
            prompt_state: if req.prompt.is_some() {
                "pending"
            } else {
                "none"
            }
            .to_owned(),
            auto_restart: preset.as_ref().is_some_and(|p| p.auto_restart),
            restarts: 0,
            attention: Attention::None.as_str().to_owned(),
            attention_at: None,
            harness_session_id: new_session.clone().or_else(|| resume.clone()),
            token_digest: Some(secret::digest(&token)),
            token_perms: serde_json::to_string(&permissions).map_err(|_| ApiError::internal())?,
            token_expires_at: Some(now + TOKEN_LIFETIME_MS),
            parent_subshell_id: parent,
            created_by_kind: c.actor_kind().to_owned(),
            mcp_seen_at: None,
            created_at: now,
            updated_at: now,
            started_at: None,
            ended_at: None,
        };
        let launch = self
            .launch_command(
                &node,
                &spec,
                &token,
                resume.as_deref(),
                new_session.as_deref(),
            )
            .await?;
        self.store
            .insert_subshell(&row, &c.user().id, c.actor_kind())
            .await?;
        let outcome = self
            .node_command(&node.id, Command::Launch(Box::new(launch)))
            .await;
        match outcome {
            Ok(r) if r.ok => {
                // The table's row for an accepted launch (starting → running).
                let to = lifecycle::next(SubshellState::Starting, Trigger::LaunchAccepted)
                    .map_or(SubshellState::Running, |m| m.to);
                self.store
                    .change_subshell(
                        &id,
                        SubshellState::Starting.as_str(),
                        &Change {
                            state: to.as_str(),
                            started: true,
                            ..Change::default()
                        },
                        self.now(),
                    )
                    .await?;
            }
            Ok(r) => {
                self.store.forget_subshell(&id).await?;
                let reason = r.error.unwrap_or_else(|| "refused".into());
                return Err(ApiError::new(
                    422,
                    "LAUNCH_REFUSED",
                    format!("the node refused the launch: {reason}"),
                )
                .with_metadata(refusal_metadata(reason, r.detail)));
            }
            Err(e) => {
                self.store.forget_subshell(&id).await?;
                return Err(e);
            }
        }
        if let Some(p) = req.prompt {
            self.spawn_prompt(id.clone(), node.id.clone(), p.as_str().to_owned());
        }
        self.fresh_view(&id).await
    }

    /// Types the initial prompt once the pane has been quiet for a moment, in the background.
    fn spawn_prompt(&self, id: String, node_id: String, text: String) {
        let Some(me) = self.me.upgrade() else {
            return;
        };
        smol::spawn(async move {
            let state = match me.deliver_prompt(&id, &node_id, &text).await {
                Ok(()) => "delivered",
                Err(e) => {
                    tracing::info!(subshell = %id, code = e.code, "initial prompt not delivered");
                    "failed"
                }
            };
            let _ = me.store.set_prompt_state(&id, state, me.now()).await;
        })
        .detach();
    }

    async fn deliver_prompt(&self, id: &str, node_id: &str, text: &str) -> Result<(), ApiError> {
        let subshell_id = SubshellId::parse(id).map_err(|_| ApiError::internal())?;
        let started = std::time::Instant::now();
        let mut last = None;
        let mut quiet_since = std::time::Instant::now();
        loop {
            if started.elapsed() > Duration::from_millis(PROMPT_TIMEOUT_MS) {
                return Err(ApiError::new(
                    504,
                    "NODE_TIMEOUT",
                    "the pane never went quiet",
                ));
            }
            let r = self
                .node_command(
                    node_id,
                    Command::Capture(Capture {
                        subshell_id: subshell_id.clone(),
                        lines: None,
                    }),
                )
                .await?;
            if !r.ok {
                return Err(ApiError::new(
                    409,
                    "SUBSHELL_NOT_RUNNING",
                    "the pane is gone",
                ));
            }
            let text_now = r.data.as_ref().and_then(|d| d.get("text")).cloned();
            if text_now != last {
                last = text_now;
                quiet_since = std::time::Instant::now();
            } else if quiet_since.elapsed() >= Duration::from_millis(PROMPT_QUIET_MS) {
                break;
            }
            smol::Timer::after(Duration::from_millis(250)).await;
        }
        self.type_into(node_id, &subshell_id, text, &[NamedKey::Enter])
            .await
            .map(|_| ())
    }

    // ----- reading -----

    /// `GET /api/subshells/:id/logs`: a byte range of the pane's log.
    pub async fn subshell_logs(
        &self,
        meta: &RequestMeta,
        id: &str,
        q: LogsQuery,
    ) -> Result<LogChunk, ApiError> {
        let c = self.caller(meta).await?;
        let row = self.reach_subshell(&c, id, Need::Read).await?;
        let r = self
            .node_command(
                &row.node_id,
                Command::LogRead(LogRead {
                    subshell_id: SubshellId::parse(&row.id).map_err(|_| ApiError::internal())?,
                    from_byte: q.from_byte,
                    max_bytes: q.max_bytes,
                }),
            )
            .await?;
        let d = node_data(r)?;
        let get = |k: &str| d.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
        // The node speaks unpadded base64url; the API answers the standard padded alphabet
        // that `base64 -d` and every language's default decoder read.
        let bytes = termplane_proto::key::b64url_decode(
            d.get("data_b64")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default(),
        )
        .map_err(|_| {
            ApiError::new(
                502,
                "NODE_BAD_RESULT",
                "the node answered a log read that is not base64url",
            )
        })?;
        Ok(LogChunk {
            from_byte: get("fromByte"),
            to_byte: get("toByte"),
            size: get("size"),
            data_b64: <base64ct::Base64 as base64ct::Encoding>::encode_string(&bytes),
        })
    }

    /// `GET /api/subshells/:id/screen`: the pane's text as it shows now.
    pub async fn subshell_screen(
        &self,
        meta: &RequestMeta,
        id: &str,
        q: ScreenQuery,
    ) -> Result<Screen, ApiError> {
        let c = self.caller(meta).await?;
        let row = self.reach_subshell(&c, id, Need::Read).await?;
        self.require_live(&row)?;
        let r = self
            .node_command(
                &row.node_id,
                Command::Capture(Capture {
                    subshell_id: SubshellId::parse(&row.id).map_err(|_| ApiError::internal())?,
                    lines: (q.lines > 0).then_some(q.lines),
                }),
            )
            .await?;
        let d = node_data(r)?;
        let mut text = String::new();
        for k in ["history", "text"] {
            if let Some(t) = d.get(k).and_then(serde_json::Value::as_str) {
                text.push_str(t);
            }
        }
        Ok(Screen { text })
    }

    fn require_live(&self, row: &store::Subshell) -> Result<(), ApiError> {
        if SubshellState::from_stored(&row.state).is_live() {
            Ok(())
        } else {
            Err(ApiError::new(
                409,
                "SUBSHELL_NOT_RUNNING",
                format!("the subshell is {}", row.state),
            ))
        }
    }

    // ----- typing and resizing -----

    /// Types `text` (in pieces of at most [`INPUT_PIECE_BYTES`], in order, back to back) and
    /// then presses `keys`.
    async fn type_into(
        &self,
        node_id: &str,
        id: &SubshellId,
        text: &str,
        keys: &[NamedKey],
    ) -> Result<u64, ApiError> {
        let mut pieces = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let mut end = rest.len().min(INPUT_PIECE_BYTES);
            while !rest.is_char_boundary(end) {
                end -= 1;
            }
            pieces.push(&rest[..end]);
            rest = &rest[end..];
        }
        let mut commands: Vec<Command> = pieces
            .iter()
            .map(|p| {
                Command::Input(Input {
                    subshell_id: id.clone(),
                    data: (*p).to_owned(),
                    keys: Vec::new(),
                })
            })
            .collect();
        if !keys.is_empty() || commands.is_empty() {
            commands.push(Command::Input(Input {
                subshell_id: id.clone(),
                data: String::new(),
                keys: keys.to_vec(),
            }));
        }
        let n = commands.len() as u64;
        for r in self.node_commands_in_order(node_id, commands).await? {
            node_data(r)?;
        }
        Ok(n)
    }

    /// `POST /api/subshells/:id/input`.
    pub async fn subshell_input(
        &self,
        meta: &RequestMeta,
        id: &str,
        req: InputRequest,
    ) -> Result<InputDone, ApiError> {
        let c = self.caller(meta).await?;
        let row = self.reach_subshell(&c, id, Need::Write).await?;
        self.require_live(&row)?;
        let sid = SubshellId::parse(&row.id).map_err(|_| ApiError::internal())?;
        let pieces = self
            .type_into(&row.node_id, &sid, req.text.as_str(), &req.keys)
            .await?;
        Ok(InputDone {
            chars: req.text.as_str().chars().count() as u64,
            keys: req.keys.len() as u64,
            pieces,
        })
    }

    /// `POST /api/subshells/:id/resize`.
    pub async fn subshell_resize(
        &self,
        meta: &RequestMeta,
        id: &str,
        req: ResizeRequest,
    ) -> Result<Subshell, ApiError> {
        let c = self.caller(meta).await?;
        let row = self.reach_subshell(&c, id, Need::Write).await?;
        self.require_live(&row)?;
        let r = self
            .node_command(
                &row.node_id,
                Command::Resize(Resize {
                    subshell_id: SubshellId::parse(&row.id).map_err(|_| ApiError::internal())?,
                    cols: req.cols.0,
                    rows: req.rows.0,
                }),
            )
            .await?;
        node_data(r)?;
        self.store
            .set_subshell_grid(
                &row.id,
                i64::from(req.cols.0),
                i64::from(req.rows.0),
                self.now(),
            )
            .await?;
        self.fresh_view(id).await
    }

    // ----- lifecycle moves -----

    /// Applies `trigger` to the row if the table allows it: the state and the token change in
    /// one statement, only if nobody moved the row meanwhile; `error` is recorded with a
    /// refused launch. `None` when the move does not apply (or lost the race); else the new
    /// state and, when the token rotated, the new token.
    pub(super) async fn move_subshell(
        &self,
        row: &store::Subshell,
        trigger: Trigger,
        error: Option<&str>,
    ) -> Result<Option<(SubshellState, Option<String>)>, ApiError> {
        let from = SubshellState::from_stored(&row.state);
        let Some(m) = lifecycle::next(from, trigger) else {
            return Ok(None);
        };
        let now = self.now();
        let token = match m.token {
            TokenEffect::Rotate => Some(secret::new_token(BEARER_PREFIX)?),
            _ => None,
        };
        let digest = token.as_deref().map(secret::digest);
        let mut change = Change {
            state: m.to.as_str(),
            revoke: m.token == TokenEffect::Revoke,
            rotate: digest.as_deref().map(|d| (d, now + TOKEN_LIFETIME_MS)),
            ..Change::default()
        };
        match trigger {
            Trigger::Exit(code) => {
                change.exit_code = Some(code.map(i64::from));
                change.ended = true;
            }
            Trigger::PaneGone | Trigger::GraceOver | Trigger::KillRequested => {
                change.ended = true;
            }
            Trigger::LaunchAccepted => change.started = true,
            Trigger::RestartRequested | Trigger::AutoRestart => {
                change.exit_code = Some(None);
                change.error = Some(None);
                change.count_restart = true;
            }
            _ => {}
        }
        if error.is_some() {
            change.error = Some(error);
        }
        if self
            .store
            .change_subshell(&row.id, &row.state, &change, now)
            .await?
        {
            Ok(Some((m.to, token)))
        } else {
            Ok(None)
        }
    }

    fn invalid_move(row: &store::Subshell, what: &str) -> ApiError {
        ApiError::new(
            409,
            "INVALID_STATE",
            format!("a {} subshell cannot be {what}", row.state),
        )
    }

    async fn kill_pane(&self, node_id: &str, id: &str) -> Result<(), ApiError> {
        let r = self
            .node_command(
                node_id,
                Command::Kill(SubshellRef {
                    subshell_id: SubshellId::parse(id).map_err(|_| ApiError::internal())?,
                }),
            )
            .await?;
        node_data(r).map(|_| ())
    }

    /// Whether the pane `id` is alive on `node_id` (`None` when the node cannot say).
    async fn pane_alive(&self, node_id: &str, id: &str) -> Result<Option<bool>, ApiError> {
        let sid = SubshellId::parse(id).map_err(|_| ApiError::internal())?;
        let r = self
            .node_command(
                node_id,
                Command::Probe(Probe {
                    subshell_ids: vec![sid],
                }),
            )
            .await?;
        let d = node_data(r)?;
        Ok(d.get("subshells")
            .and_then(serde_json::Value::as_array)
            .and_then(|a| a.first())
            .and_then(|e| e.get("alive"))
            .and_then(serde_json::Value::as_bool))
    }

    /// `POST /api/subshells/:id/terminate`: the token is revoked at once; Ctrl-C is typed, and
    /// the pane is killed if the program has not ended when the grace is over.
    pub async fn terminate_subshell(
        &self,
        meta: &RequestMeta,
        id: &str,
    ) -> Result<Subshell, ApiError> {
        let c = self.caller(meta).await?;
        let row = self.reach_subshell(&c, id, Need::Write).await?;
        if self
            .move_subshell(&row, Trigger::TerminateRequested, None)
            .await?
            .is_none()
        {
            return Err(Self::invalid_move(&row, "terminated"));
        }
        self.audit_as(&c, "subshell.terminated", id).await?;
        let sid = SubshellId::parse(id).map_err(|_| ApiError::internal())?;
        let typed = self
            .type_into(&row.node_id, &sid, "", &[NamedKey::CtrlC])
            .await;
        let deadline =
            std::time::Instant::now() + Duration::from_millis(lifecycle::TERMINATE_GRACE_MS);
        let mut ended = typed.is_err();
        while !ended && std::time::Instant::now() < deadline {
            smol::Timer::after(Duration::from_millis(150)).await;
            ended = self.pane_alive(&row.node_id, id).await? == Some(false);
        }
        let now_row = self
            .store
            .subshell(id)
            .await?
            .ok_or_else(|| ApiError::not_found("subshell"))?;
        if ended {
            self.move_subshell(&now_row, Trigger::PaneGone, None)
                .await?;
        } else {
            self.kill_pane(&row.node_id, id).await?;
            self.move_subshell(&now_row, Trigger::GraceOver, None)
                .await?;
        }
        self.fresh_view(id).await
    }

    /// `POST /api/subshells/:id/kill`: kills the pane at once.
    pub async fn kill_subshell(&self, meta: &RequestMeta, id: &str) -> Result<Subshell, ApiError> {
        let c = self.caller(meta).await?;
        let row = self.reach_subshell(&c, id, Need::Write).await?;
        if !SubshellState::from_stored(&row.state).is_live() {
            return Err(Self::invalid_move(&row, "killed"));
        }
        self.kill_pane(&row.node_id, id).await?;
        if self
            .move_subshell(&row, Trigger::KillRequested, None)
            .await?
            .is_none()
        {
            // It ended on its own meanwhile (an exit or the census moved it): killed all the same.
            tracing::debug!(subshell = %id, "killed a pane that had already ended");
        }
        self.audit_as(&c, "subshell.killed", id).await?;
        self.fresh_view(id).await
    }

    /// `POST /api/subshells/:id/restart`: a live pane is killed first; the subshell starts
    /// again with the same launch and a new token (the old one stops working at once).
    pub async fn restart_subshell(
        &self,
        meta: &RequestMeta,
        id: &str,
    ) -> Result<Subshell, ApiError> {
        let c = self.caller(meta).await?;
        let row = self.reach_subshell(&c, id, Need::Write).await?;
        if !self.node_reachable(&row.node_id) {
            return Err(self.offline(&row.node_id));
        }
        self.relaunch(&row, Trigger::RestartRequested).await?;
        self.audit_as(&c, "subshell.restarted", id).await?;
        self.fresh_view(id).await
    }

    /// Kills a live pane, rotates the token and launches again; the row ends `running`, or
    /// `failed` with the node's reason.
    async fn relaunch(&self, row: &store::Subshell, trigger: Trigger) -> Result<(), ApiError> {
        let node = self
            .store
            .node(&row.node_id)
            .await?
            .ok_or_else(|| ApiError::not_found("node"))?;
        let spec: LaunchSpec =
            serde_json::from_str(&row.launch_spec).map_err(|_| ApiError::internal())?;
        if SubshellState::from_stored(&row.state).is_live() {
            self.kill_pane(&row.node_id, &row.id).await?;
        }
        let Some((_, Some(token))) = self.move_subshell(row, trigger, None).await? else {
            return Err(Self::invalid_move(row, "restarted"));
        };
        // A harness that resumes continues the session it had; another starts afresh.
        let plugin = plugins::find(&row.harness_id);
        let resume = plugin
            .as_ref()
            .filter(|p| p.resume != plugins::Resume::No)
            .and(row.harness_session_id.as_deref());
        let launch = self
            .launch_command(&node, &spec, &token, resume, None)
            .await?;
        let starting = self
            .store
            .subshell(&row.id)
            .await?
            .ok_or_else(|| ApiError::not_found("subshell"))?;
        match self
            .node_command(&row.node_id, Command::Launch(Box::new(launch)))
            .await
        {
            Ok(r) if r.ok => {
                self.move_subshell(&starting, Trigger::LaunchAccepted, None)
                    .await?;
                Ok(())
            }
            Ok(r) => {
                let reason = r.error.unwrap_or_else(|| "refused".into());
                self.move_subshell(&starting, Trigger::LaunchRefused, Some(&reason))
                    .await?;
                Err(ApiError::new(
                    422,
                    "LAUNCH_REFUSED",
                    format!("the node refused the launch: {reason}"),
                ))
            }
            Err(e) => {
                self.move_subshell(&starting, Trigger::LaunchRefused, Some(&e.message))
                    .await?;
                Err(e)
            }
        }
    }

    /// `DELETE /api/subshells/:id`: a live pane is killed first; the row and its token go.
    pub async fn delete_subshell(&self, meta: &RequestMeta, id: &str) -> Result<(), ApiError> {
        let c = self.caller(meta).await?;
        let row = self.reach_subshell(&c, id, Need::Write).await?;
        if SubshellState::from_stored(&row.state).is_live() && self.node_reachable(&row.node_id) {
            self.kill_pane(&row.node_id, id).await?;
        }
        if !self
            .store
            .delete_subshell(id, &c.user().id, c.actor_kind(), self.now())
            .await?
        {
            return Err(ApiError::not_found("subshell"));
        }
        Ok(())
    }

    async fn audit_as(&self, c: &Caller, action: &str, target: &str) -> Result<(), ApiError> {
        let detail = match c {
            Caller::Pane { subshell_id, .. } => serde_json::json!({ "pane": subshell_id }),
            _ => serde_json::json!({}),
        };
        self.store
            .audit(
                self.now(),
                Some(&c.user().id),
                c.actor_kind(),
                action,
                Some(target),
                &detail,
            )
            .await?;
        Ok(())
    }

    // ----- what a pane says about itself -----

    /// The subshell `id` when `c` is that subshell's own token; 403 otherwise.
    fn own_pane(c: &Caller, id: &str) -> Result<String, ApiError> {
        match c {
            Caller::Pane {
                subshell_id,
                token_digest,
                ..
            } if subshell_id == id => Ok(token_digest.clone()),
            _ => Err(ApiError::new(
                403,
                "NOT_OWN_SUBSHELL",
                "only the subshell's own token may report for it",
            )),
        }
    }

    /// `POST /api/subshells/:id/attention` (its own token only).
    pub async fn report_attention(
        &self,
        meta: &RequestMeta,
        id: &str,
        req: AttentionRequest,
    ) -> Result<Subshell, ApiError> {
        let c = self.caller(meta).await?;
        Self::own_pane(&c, id)?;
        self.store
            .set_subshell_attention(id, req.attention.as_str(), self.now())
            .await?;
        self.fresh_view(id).await
    }

    /// `PUT /api/subshells/:id/session` (its own token only).
    pub async fn report_session(
        &self,
        meta: &RequestMeta,
        id: &str,
        req: SessionRequest,
    ) -> Result<Subshell, ApiError> {
        let c = self.caller(meta).await?;
        Self::own_pane(&c, id)?;
        self.store
            .set_subshell_session(id, req.harness_session_id.as_str(), self.now())
            .await?;
        self.fresh_view(id).await
    }

    /// `POST /api/subshells/:id/keepalive` (its own token only): the pane's MCP child is alive,
    /// so its token lives another seven days.
    pub async fn keepalive(&self, meta: &RequestMeta, id: &str) -> Result<KeptAlive, ApiError> {
        let c = self.caller(meta).await?;
        let digest = Self::own_pane(&c, id)?;
        let now = self.now();
        let expires = now + TOKEN_LIFETIME_MS;
        if !self
            .store
            .keep_subshell_token(id, &digest, expires, now)
            .await?
        {
            return Err(ApiError::new(
                401,
                "INVALID_CREDENTIAL",
                "the credential is not valid here",
            ));
        }
        Ok(KeptAlive {
            token_expires_at: expires,
        })
    }

    // ----- what nodes report -----

    /// Applies one event a node sent on its own (in the order the node sent them).
    pub async fn apply_node_event(self: &Arc<Self>, node_id: &str, conn: u64, event: &Event) {
        let outcome = match event {
            Event::Exit(e) => self.apply_exit(node_id, e).await,
            Event::SubshellsReport(r) => self.apply_census(node_id, conn, r).await,
            Event::Inventory(inv) => match serde_json::to_string(inv) {
                Ok(text) => self
                    .store
                    .record_inventory(node_id, &text, self.now())
                    .await
                    .map_err(ApiError::from),
                Err(_) => Ok(()),
            },
            _ => Ok(()),
        };
        if let Err(e) = outcome {
            tracing::warn!(node = %node_id, kind = event.kind(), code = e.code, "node event not applied");
        }
    }

    async fn apply_exit(
        self: &Arc<Self>,
        node_id: &str,
        e: &termplane_proto::event::Exit,
    ) -> Result<(), ApiError> {
        let Some(row) = self
            .store
            .subshell(e.subshell_id.as_str())
            .await?
            .filter(|r| r.node_id == node_id)
        else {
            return Ok(());
        };
        let moved = self
            .move_subshell(&row, Trigger::Exit(e.exit_code), None)
            .await?;
        if let Some((SubshellState::Crashed, _)) = moved {
            self.maybe_auto_restart(&row.id);
        }
        Ok(())
    }

    /// The census a node sends after each connect: every live row of the node is found alive
    /// or gone. Until it is applied, the node is not reachable for any reader.
    async fn apply_census(
        self: &Arc<Self>,
        node_id: &str,
        conn: u64,
        r: &termplane_proto::event::SubshellsReport,
    ) -> Result<(), ApiError> {
        let alive: HashSet<&str> = r.subshells.iter().map(|p| p.subshell_id.as_str()).collect();
        self.heal(node_id, &alive).await?;
        self.censused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(node_id.to_owned(), conn);
        Ok(())
    }

    /// Moves every live row of `node_id` by whether its pane is in `alive`.
    async fn heal(self: &Arc<Self>, node_id: &str, alive: &HashSet<&str>) -> Result<(), ApiError> {
        let rows = self
            .store
            .subshells(&SubshellFilter {
                node: Some(node_id),
                ..SubshellFilter::default()
            })
            .await?;
        for row in rows
            .iter()
            .filter(|r| SubshellState::from_stored(&r.state).is_live())
        {
            let trigger = if alive.contains(row.id.as_str()) {
                Trigger::PaneAlive
            } else {
                Trigger::PaneGone
            };
            if let Some((SubshellState::Crashed, _)) =
                self.move_subshell(row, trigger, None).await?
            {
                self.maybe_auto_restart(&row.id);
            }
        }
        Ok(())
    }

    /// Runs [`Self::reconcile`] every `every`, for the process's life (the first sweep after one
    /// interval: a node's census already healed its rows when it came online).
    pub fn spawn_reconcile_sweep(self: &Arc<Self>, every: Duration) {
        let me = Arc::downgrade(self);
        smol::spawn(async move {
            loop {
                smol::Timer::after(every).await;
                let Some(svc) = me.upgrade() else { return };
                if let Err(e) = svc.reconcile().await {
                    tracing::warn!(code = e.code, "reconcile sweep failed");
                }
            }
        })
        .detach();
    }

    /// The reconcile sweep: probes the live rows of every reachable node and moves those whose
    /// panes are gone. Rows of unreachable nodes are skipped (their panes may well run).
    pub async fn reconcile(self: &Arc<Self>) -> Result<(), ApiError> {
        let rows = self.store.subshells(&SubshellFilter::default()).await?;
        let mut by_node: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in rows
            .iter()
            .filter(|r| SubshellState::from_stored(&r.state) == SubshellState::Running)
        {
            by_node
                .entry(r.node_id.clone())
                .or_default()
                .push(r.id.clone());
        }
        for (node_id, ids) in by_node {
            if !self.node_reachable(&node_id) {
                continue;
            }
            let sids: Vec<SubshellId> = ids
                .iter()
                .filter_map(|i| SubshellId::parse(i).ok())
                .collect();
            let Ok(r) = self
                .node_command(&node_id, Command::Probe(Probe { subshell_ids: sids }))
                .await
            else {
                continue;
            };
            let Ok(d) = node_data(r) else { continue };
            let alive: HashSet<String> = d
                .get("subshells")
                .and_then(serde_json::Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter(|e| {
                            e.get("alive").and_then(serde_json::Value::as_bool) == Some(true)
                        })
                        .filter_map(|e| e.get("subshellId")?.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            let alive_refs: HashSet<&str> = alive.iter().map(String::as_str).collect();
            // Only the probed rows: a row launched meanwhile is not judged by an older probe.
            let probed: HashSet<&str> = ids.iter().map(String::as_str).collect();
            for row in self
                .store
                .subshells(&SubshellFilter {
                    node: Some(&node_id),
                    ..SubshellFilter::default()
                })
                .await?
                .iter()
                .filter(|r| probed.contains(r.id.as_str()))
            {
                let trigger = if alive_refs.contains(row.id.as_str()) {
                    Trigger::PaneAlive
                } else {
                    Trigger::PaneGone
                };
                if let Some((SubshellState::Crashed, _)) =
                    self.move_subshell(row, trigger, None).await?
                {
                    self.maybe_auto_restart(&row.id);
                }
            }
        }
        Ok(())
    }

    /// Relaunches a crashed subshell whose preset asks for it, after a short pause, unless it
    /// already restarted [`lifecycle::AUTO_RESTART_LIMIT`] times.
    fn maybe_auto_restart(self: &Arc<Self>, id: &str) {
        let me = self.clone();
        let id = id.to_owned();
        smol::spawn(async move {
            let Ok(Some(row)) = me.store.subshell(&id).await else {
                return;
            };
            if !row.auto_restart || row.restarts >= lifecycle::AUTO_RESTART_LIMIT {
                return;
            }
            smol::Timer::after(Duration::from_secs(1)).await;
            let Ok(Some(row)) = me.store.subshell(&id).await else {
                return;
            };
            if me.node_reachable(&row.node_id)
                && let Err(e) = me.relaunch(&row, Trigger::AutoRestart).await
            {
                tracing::info!(subshell = %id, code = e.code, "automatic restart failed");
            }
        })
        .detach();
    }
}

/// A random (version 4) UUID.
fn new_uuid() -> Result<String, ApiError> {
    let mut b = secret::random_bytes::<16>()?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = secret::hex_lower(&b);
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    ))
}

/// `{ reason, detail? }`: a node's refusal as error metadata (`detail` only when the node gave
/// one).
fn refusal_metadata(reason: String, detail: Option<String>) -> serde_json::Value {
    let mut m = serde_json::json!({ "reason": reason });
    if let Some(d) = detail {
        m["detail"] = serde_json::Value::String(d);
    }
    m
}

/// The data of a successful result; a refusal is 409 `NODE_REFUSED` with the node's words.
fn node_data(r: termplane_proto::CommandResult) -> Result<serde_json::Value, ApiError> {
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
