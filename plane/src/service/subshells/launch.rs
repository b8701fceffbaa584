//! Launching: the node's `launch` built from the request, the preset and the harness plugin; the initial prompt.

use super::*;
use crate::service::nodes::launchable_node;

impl Subshells {
    // ----- launching -----

    /// How the pane's MCP server is started on `node` with `env`: the plane's own binary on the
    /// local node, the node daemon's binary (as its `ready` said to invoke it) elsewhere.
    pub(in crate::service) async fn mcp_server(
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
    pub(in crate::service) fn plane_url_for(&self, node: &store::Node) -> String {
        if node.is_local {
            return self.base_url.clone();
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
            .unwrap_or_else(|| self.base_url.clone())
    }

    /// The node's data directory (where MCP registration files go) and home directory.
    pub(in crate::service) async fn node_dirs(
        &self,
        node: &store::Node,
    ) -> Result<(String, String), ApiError> {
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

    /// Builds the node's `launch` for a subshell in the workspace `workspace_id` (if any), with
    /// a fresh token's credentials: `session` says how the harness starts its session, and
    /// `prompt` is the initial prompt, placed on the command line where the harness takes it
    /// there.
    pub(in crate::service) async fn launch_command(
        &self,
        node: &store::Node,
        workspace_id: Option<&str>,
        spec: &LaunchSpec,
        token: &str,
        session: plugins::Session<'_>,
        prompt: Option<&str>,
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
        // A harness that reads MCP servers only from its own settings gets its entry there when
        // its configuration is the node's to keep (isolation) and the node can set it.
        let in_settings = plugin.mcp == plugins::McpDialect::GeminiSettings
            && spec.launch.preset.config_isolation
            && self
                .dispatcher
                .node_can(&node.id, termplane_proto::command::SETTINGS_ENTRY)
                .await;
        let file = format!(
            "{}/mcp/{}",
            data_dir.trim_end_matches('/'),
            plugin.registration_file(&id, in_settings)
        );
        let server = self.mcp_server(node, credentials.clone()).await?;
        let mut mcp = if data_dir.is_empty() {
            None
        } else {
            plugin.registration(&server, &file, in_settings)
        };
        if let Some(m) = &mut mcp
            && !m.settings_entries.is_empty()
            && !self
                .dispatcher
                .node_can(&node.id, termplane_proto::command::SETTINGS_ENTRIES)
                .await
        {
            // An older node's strict decoder would refuse them: its panes run without the
            // hooks (their agent state comes from the agent's own word).
            m.settings_entries.clear();
        }
        let mut launch = spec.launch.clone();
        launch.argv = plugin.argv(&spec.flags, session, prompt);
        launch.resume = match session {
            plugins::Session::Resume(id) => Some(id.to_owned()),
            _ => None,
        };
        if let Some(m) = &mcp {
            // The harness's own arguments for the registration come right after the binary.
            let at = launch.argv.len().min(1);
            for (i, a) in m.args.iter().enumerate() {
                launch.argv.insert(at + i, a.clone());
            }
        }
        launch.credential_env = credentials;
        launch.mcp = mcp;
        // Recording turned off on this plane, for this node or for the pane's workspace: said to
        // a node that records (one that does not records nothing, and would refuse the field).
        // The settings of the moment count, at each launch and restart alike.
        let workspace_on = match workspace_id {
            Some(w) => self.store.workspace(w).await?.is_none_or(|w| w.recording),
            None => true,
        };
        launch.recording = ((!self.recording || !node.recording || !workspace_on)
            && self
                .dispatcher
                .node_can(&node.id, termplane_proto::command::RECORDING)
                .await)
            .then_some(false);
        Ok(launch)
    }

    /// What a launch the node accepted could not do, in words for the pane's page: its
    /// harness will not load the pane's MCP server, and why (`None`: nothing).
    pub(in crate::service) fn launch_warning(
        launch: &Launch,
        answer: Option<&serde_json::Value>,
    ) -> Option<String> {
        let plugin = plugins::find(&launch.harness_id)?;
        if plugin.mcp == plugins::McpDialect::None {
            return None;
        }
        let Some(m) = &launch.mcp else {
            return Some(
                "The pane's MCP server is not registered: the node has not said where its data directory is."
                    .to_owned(),
            );
        };
        if let Some(w) = answer
            .and_then(|a| a.get("mcpWarning"))
            .and_then(serde_json::Value::as_str)
        {
            return Some(format!("The pane's MCP server is not loaded: {w}."));
        }
        let root_only = answer
            .and_then(|a| a.get("mcpFileRootOnly"))
            .and_then(serde_json::Value::as_bool);
        if plugin.mcp == plugins::McpDialect::GeminiSettings
            && m.settings_entry.is_none()
            && root_only == Some(false)
        {
            return Some(
                "Gemini CLI does not load the pane's MCP server: it reads the settings file named by GEMINI_CLI_SYSTEM_SETTINGS_PATH only when root owns it and every folder above it and none of them is writable by others, which this node's data directory is not (a node run by an ordinary user never is). Turn on config isolation in the preset (on an up-to-date node): the server is then entered in the settings of the Gemini home the node keeps for it."
                    .to_owned(),
            );
        }
        None
    }

    /// `POST /api/subshells`: launches a harness in a new pane. A launch the node refuses
    /// leaves nothing behind (no row, no token) and answers 422 `LAUNCH_REFUSED` with the
    /// node's reason.
    pub async fn launch(&self, c: &Caller, req: LaunchRequest) -> Result<Subshell, ApiError> {
        let mut permissions = req.permissions.unwrap_or_default();
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
            if req.permissions.is_none() {
                permissions = permissions.capped(ceiling);
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
        let node = launchable_node(&self.store, c, req.node_id.as_str()).await?;
        let plugin = plugins::find(req.harness_id.as_str())
            .ok_or_else(|| ApiError::not_found("harness plugin"))?;
        let preset = match &req.preset_id {
            Some(p) => Some(self.presets.own_preset(c, p.as_str()).await?),
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
                let w = self.presets.own_workspace(c, w.as_str()).await?;
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
        if !self.dispatcher.node_reachable_soon(&node.id).await {
            return Err(self.dispatcher.offline(&node.id));
        }
        if let Err(why) = self.catalog.launch_gate(&node.id, plugin.id, true).await? {
            let (status, code) = match why {
                crate::service::catalog::NotLaunchable::Disabled => (409, "PLUGIN_DISABLED"),
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
            (None, None) => default_dir(&home, &node.allowed_dirs),
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
        // The initial prompt goes on the harness's command line where it takes one there;
        // else it is typed once the pane has started.
        let inline_prompt = req
            .prompt
            .as_ref()
            .map(|p| p.as_str())
            .filter(|p| plugin.takes_prompt(p));
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
                recording: None,
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
            warning: None,
            agent: store::AgentRow::starting(now),
        };
        let session = match (&resume, &new_session) {
            (Some(r), _) => plugins::Session::Resume(r),
            (None, n) => plugins::Session::New(n.as_deref()),
        };
        let launch = self
            .launch_command(
                &node,
                row.workspace_id.as_deref(),
                &spec,
                &token,
                session,
                inline_prompt,
            )
            .await?;
        self.store
            .insert_subshell(&row, &c.user().id, c.actor_kind())
            .await
            .map_err(|e| {
                // The node was deleted while the launch was being prepared.
                if crate::store::is_foreign_key_violation(&e) {
                    ApiError::not_found("node")
                } else {
                    ApiError::from(e)
                }
            })?;
        let launch_sent = launch.clone();
        let outcome = self
            .dispatcher
            .node_command(&node.id, Command::Launch(Box::new(launch)))
            .await;
        match outcome {
            Ok(r) if r.ok => {
                self.note_incarnation(&id, r.data.as_ref());
                let warning = Self::launch_warning(&launch_sent, r.data.as_ref());
                if warning.is_some() {
                    self.store
                        .set_subshell_warning(&id, warning.as_deref(), self.now())
                        .await?;
                }
                if inline_prompt.is_some() {
                    self.store
                        .set_prompt_state(&id, "delivered", self.now())
                        .await?;
                }
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
                let reason = r.error.unwrap_or_else(|| "refused".into());
                self.store
                    .forget_subshell(&id, &c.user().id, c.actor_kind(), &reason, self.now())
                    .await?;
                self.settle_parked_exit(&id, false);
                let about_dir = refuses_directory(&reason, &row.cwd);
                let mut metadata = refusal_metadata(reason.clone(), r.detail);
                if about_dir {
                    // The form can show it at its directory field.
                    metadata["field"] = serde_json::Value::String("cwd".into());
                }
                return Err(ApiError::new(
                    422,
                    "LAUNCH_REFUSED",
                    format!("the node refused the launch: {reason}"),
                )
                .with_metadata(metadata));
            }
            Err(e) => {
                self.store
                    .forget_subshell(&id, &c.user().id, c.actor_kind(), &e.message, self.now())
                    .await?;
                self.settle_parked_exit(&id, false);
                self.kill_and_forget(&node.id, &id, true);
                return Err(e);
            }
        }
        self.settle_parked_exit(&id, true);
        // A refused launch leaves nothing, so feeds hear of a subshell once it runs.
        self.publisher.publish_subshell(&id).await;
        let typed = inline_prompt.is_none();
        if let Some(p) = req.prompt.filter(|_| typed) {
            self.spawn_prompt(id.clone(), node.id.clone(), p.as_str().to_owned());
        }
        self.lookup.fresh_view(&id).await
    }

    /// Types the initial prompt once the pane's first screen has settled, in the background.
    pub(in crate::service) fn spawn_prompt(&self, id: String, node_id: String, text: String) {
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
            me.publisher.publish_subshell(&id).await;
        })
        .detach();
    }

    /// Types the initial prompt: once the pane's first screen shows and has stayed still for
    /// a moment, its text, and — once the harness has taken it (its screen moved and settled
    /// again) — Enter, apart: a harness that reads text and Enter in one burst takes them for
    /// a paste and does not submit it.
    pub(in crate::service) async fn deliver_prompt(
        &self,
        id: &str,
        node_id: &str,
        text: &str,
    ) -> Result<(), ApiError> {
        let subshell_id = SubshellId::parse(id).map_err(|_| ApiError::internal())?;
        if !self
            .typist
            .screen_settles(
                node_id,
                &subshell_id,
                None,
                Duration::from_millis(PROMPT_QUIET_MS),
                Duration::from_millis(PROMPT_TIMEOUT_MS),
            )
            .await?
        {
            return Err(ApiError::new(
                504,
                "NODE_TIMEOUT",
                "the pane never showed a settled screen",
            ));
        }
        self.typist
            .type_into(node_id, &subshell_id, text, &[NamedKey::Enter])
            .await
            .map(|_| ())
    }
}
/// Where a launch that names no directory starts: the node's home, unless the node allows only
/// other directories — then the first of those (a home outside them would be refused).
fn default_dir(home: &str, allowed_json: &str) -> String {
    let allowed: Vec<String> = serde_json::from_str(allowed_json).unwrap_or_default();
    let within = |dir: &str| {
        let d = dir.trim_end_matches('/');
        home == d
            || home
                .strip_prefix(d)
                .is_some_and(|rest| rest.starts_with('/'))
            || d.is_empty()
    };
    if !home.is_empty() && (allowed.is_empty() || allowed.iter().any(|d| within(d))) {
        return home.to_owned();
    }
    allowed.first().cloned().unwrap_or_else(|| {
        if home.is_empty() {
            "/".to_owned()
        } else {
            home.to_owned()
        }
    })
}

/// Whether a node's refusal of a launch is about its directory: the node's path checks name the
/// path first (`/srv/x: no such file or directory`, `/etc: outside the allowed directories`),
/// or say what is wrong with a path (`path must be absolute`).
fn refuses_directory(reason: &str, cwd: &str) -> bool {
    // The node names the path as it reads it: without a trailing slash.
    let path = match cwd.trim_end_matches('/') {
        "" => "/",
        p => p,
    };
    reason
        .strip_prefix(path)
        .is_some_and(|rest| rest.starts_with(':'))
        || reason.starts_with("path ")
        || reason.starts_with("a path component ")
}

#[cfg(test)]
mod refusal_tests {
    use super::refuses_directory;

    #[test]
    fn a_refusal_naming_the_directory_is_about_the_directory() {
        assert!(refuses_directory(
            "/srv/x: no such file or directory",
            "/srv/x"
        ));
        assert!(refuses_directory(
            "/etc: outside the allowed directories",
            "/etc"
        ));
        assert!(refuses_directory("/srv/x: not a directory", "/srv/x/"));
        assert!(refuses_directory("/: outside the allowed directories", "/"));
        assert!(refuses_directory(
            "path holds a `.` or `..` component",
            "/a/../b"
        ));
        assert!(!refuses_directory(
            "harness binary \"claude\" not found",
            "/srv/x"
        ));
        assert!(!refuses_directory("in maintenance", "/srv/x"));
        // A longer path that merely starts like the directory is not it.
        assert!(!refuses_directory(
            "/srv/xy: no such file or directory",
            "/srv/x"
        ));
    }
}

#[cfg(test)]
mod default_dir_tests {
    use super::default_dir;

    #[test]
    fn a_launch_with_no_directory_starts_where_the_node_allows() {
        assert_eq!(default_dir("/home/a", "[]"), "/home/a");
        assert_eq!(default_dir("/home/a", r#"["/home"]"#), "/home/a");
        assert_eq!(default_dir("/home/a", r#"["/home/a"]"#), "/home/a");
        assert_eq!(
            default_dir("/home/a", r#"["/srv/work","/opt"]"#),
            "/srv/work"
        );
        assert_eq!(default_dir("/home/ab", r#"["/home/a"]"#), "/home/a");
        assert_eq!(default_dir("/home/a", r#"["/"]"#), "/home/a");
        assert_eq!(default_dir("", "[]"), "/");
    }
}
