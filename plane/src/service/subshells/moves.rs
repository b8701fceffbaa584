//! Lifecycle moves a person, a script or a pane asks for: terminate, kill, restart, delete.

use super::*;

impl Subshells {
    // ----- lifecycle moves -----

    /// Applies `trigger` to the row if the table allows it: the state and the token change in
    /// one statement, only if nobody moved the row meanwhile; `error` is recorded with a
    /// refused launch. `None` when the move does not apply (or lost the race); else the new
    /// state and, when the token rotated, the new token.
    pub(in crate::service) async fn move_subshell(
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
            self.subshells_moved.notify(usize::MAX);
            self.publisher.publish_subshell(&row.id).await;
            Ok(Some((m.to, token)))
        } else {
            Ok(None)
        }
    }

    /// Waits for, and holds, the lifecycle lock of subshell `id`: terminate, kill, restart
    /// (an automatic one too) and delete of one subshell run one at a time, each reading the
    /// row once it holds the lock, so none acts on a row another has just moved or removed (a
    /// restart and a delete at once left a pane running that no row named). A stop's grace
    /// runs without it, so a kill is not kept waiting by the stop it overrides.
    pub(in crate::service) async fn hold_subshell(
        &self,
        id: &str,
    ) -> smol::lock::MutexGuardArc<()> {
        let lock = {
            let mut all = self
                .subshell_locks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            all.retain(|_, l| l.strong_count() > 0);
            if let Some(l) = all.get(id).and_then(std::sync::Weak::upgrade) {
                l
            } else {
                let l = Arc::new(smol::lock::Mutex::new(()));
                all.insert(id.to_owned(), Arc::downgrade(&l));
                l
            }
        };
        lock.lock_arc().await
    }

    /// Finishes, in the background, a stop the node did not answer in time: the row is
    /// `stopping`, its token revoked; the pane is killed once the node answers and the row
    /// moves to `stopped`. A node that goes away meanwhile has its census finish the stop when
    /// it is back (`heal`); a row that moved on meanwhile is left alone.
    pub(in crate::service) fn finish_stop_later(&self, node_id: &str, id: &str) {
        self.finish_stop(node_id, id, Duration::from_secs(3), false);
    }

    /// [`Self::finish_stop_later`] for a stop whose grace is long over (a row found `stopping`
    /// at a census, its pane still running: the node went away, or the plane restarted, before
    /// the stop ended): the first try is as soon as the node takes commands.
    pub(in crate::service) fn finish_stop_soon(&self, node_id: &str, id: &str) {
        self.finish_stop(node_id, id, Duration::from_millis(50), false);
    }

    /// With `restart`, the stop was a restart's: once the stop is finished the subshell is
    /// launched again, as the restart asked.
    fn finish_stop(&self, node_id: &str, id: &str, first: Duration, restart: bool) {
        let Some(me) = self.me.upgrade() else {
            return;
        };
        let (node_id, id) = (node_id.to_owned(), id.to_owned());
        smol::spawn(async move {
            // Bounded: 20 tries 3 s apart (the first after `first`), each also bounded by the
            // node command deadline. A node out of reach is waited for: it may be one whose
            // census is being applied, or the local node being attached.
            let mut wait = first;
            for _ in 0..20 {
                smol::Timer::after(wait).await;
                wait = Duration::from_secs(3);
                let _held = me.hold_subshell(&id).await;
                let Ok(Some(row)) = me.store.subshell(&id).await else {
                    return;
                };
                let state = SubshellState::from_stored(&row.state);
                // The late kill's own exit report may have ended the stop already.
                let stopped = state == SubshellState::Stopped;
                if state != SubshellState::Stopping && !(restart && stopped) {
                    return;
                }
                if !me.dispatcher.node_reachable(&node_id) {
                    continue;
                }
                if !stopped {
                    if me.kill_or_gone(&node_id, &id).await.is_err() {
                        continue;
                    }
                    if let Err(e) = me.move_subshell(&row, Trigger::GraceOver, None).await {
                        tracing::debug!(subshell = %id, code = e.code, "a late stop was not recorded");
                        return;
                    }
                }
                if restart && let Ok(Some(row)) = me.store.subshell(&id).await {
                    match me.relaunch(&row, Trigger::RestartRequested).await {
                        Ok(()) => tracing::info!(subshell = %id, "a restart the node answered late is finished"),
                        Err(e) => tracing::info!(subshell = %id, code = e.code, "a restart the node answered late could not launch"),
                    }
                }
                return;
            }
            tracing::info!(subshell = %id, "a stop the node never answered is left to its census");
        })
        .detach();
    }

    /// Kills the pane `id`, taking a node that says there is no such pane as done (it ended on
    /// its own, or a kill queued before this one got there first).
    pub(in crate::service) async fn kill_or_gone(
        &self,
        node_id: &str,
        id: &str,
    ) -> Result<(), ApiError> {
        match self.kill_pane(node_id, id).await {
            Err(e) if e.code == "NODE_REFUSED" => match self.pane_alive(node_id, id).await? {
                Some(false) => Ok(()),
                _ => Err(e),
            },
            r => r,
        }
    }

    pub(in crate::service) async fn kill_pane(
        &self,
        node_id: &str,
        id: &str,
    ) -> Result<(), ApiError> {
        let r = self
            .dispatcher
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
    pub(in crate::service) async fn pane_alive(
        &self,
        node_id: &str,
        id: &str,
    ) -> Result<Option<bool>, ApiError> {
        let sid = SubshellId::parse(id).map_err(|_| ApiError::internal())?;
        let r = self
            .dispatcher
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
    pub async fn terminate(&self, c: &Caller, id: &str) -> Result<Subshell, ApiError> {
        let held = self.hold_subshell(id).await;
        let row = self.lookup.reach_subshell(c, id, Need::Write).await?;
        // A pane on a node out of reach cannot be stopped (and must not read as stopped while
        // it runs on): refused like kill and restart, before the row moves.
        if SubshellState::from_stored(&row.state) == SubshellState::Running
            && !self.dispatcher.node_reachable_soon(&row.node_id).await
        {
            return Err(self.dispatcher.offline(&row.node_id));
        }
        if self
            .move_subshell(&row, Trigger::TerminateRequested, None)
            .await?
            .is_none()
        {
            return Err(invalid_move(&row, "terminated"));
        }
        self.audit_as(c, "subshell.terminated", id).await?;
        let sid = SubshellId::parse(id).map_err(|_| ApiError::internal())?;
        // From here on the row is `stopping`. Should the node go away, its census finishes the
        // stop when it is back (`heal`); should it only be slow, `finish_stop_later` does.
        let late = |e: ApiError| {
            self.finish_stop_later(&row.node_id, id);
            e
        };
        let mut ended = false;
        if let Err(e) = self
            .typist
            .type_into(&row.node_id, &sid, "", &[NamedKey::CtrlC])
            .await
        {
            // No pane to type into: it ended (on its own, or a kill got there first).
            if e.code != "NODE_REFUSED"
                || self.pane_alive(&row.node_id, id).await.map_err(late)? != Some(false)
            {
                return Err(late(e));
            }
            ended = true;
        }
        // The grace runs without the lock: a kill or a restart may overtake this stop.
        drop(held);
        // Woken by each lifecycle move: the node's `exit` for this pane (sent as soon as tmux
        // announces the death) moves the row to `stopped`, as does a kill or a restart from
        // another hand; what is left `stopping` at the deadline is killed.
        let deadline = self.instant() + Duration::from_millis(lifecycle::TERMINATE_GRACE_MS);
        while !ended && self.instant() < deadline {
            let moved = self.subshells_moved.listen();
            let now_row = self
                .store
                .subshell(id)
                .await
                .map_err(|e| late(ApiError::from(e)))?;
            let still_stopping = now_row
                .is_some_and(|r| SubshellState::from_stored(&r.state) == SubshellState::Stopping);
            if !still_stopping {
                break;
            }
            crate::wait::until(deadline, moved).await;
        }
        let _held = self.hold_subshell(id).await;
        let now_row = self
            .store
            .subshell(id)
            .await?
            .ok_or_else(|| ApiError::not_found("subshell"))?;
        // Moved on meanwhile: killed (the stop is done, by another hand) or restarted (the pane
        // there now is a new one, not the one this stop was for: nothing is killed, and the
        // stop did not happen, so it is not answered as done).
        let state = SubshellState::from_stored(&now_row.state);
        if state != SubshellState::Stopping {
            if state.is_live() {
                return Err(ApiError::new(
                    409,
                    "INVALID_STATE",
                    "the subshell was restarted while this stop waited for it to end: it runs again",
                ));
            }
            return self.lookup.fresh_view(id).await;
        }
        if ended {
            self.move_subshell(&now_row, Trigger::PaneGone, None)
                .await?;
        } else {
            self.kill_or_gone(&row.node_id, id).await.map_err(late)?;
            self.move_subshell(&now_row, Trigger::GraceOver, None)
                .await?;
        }
        self.lookup.fresh_view(id).await
    }

    /// `POST /api/subshells/:id/kill`: kills the pane at once.
    pub async fn kill(&self, c: &Caller, id: &str) -> Result<Subshell, ApiError> {
        let _held = self.hold_subshell(id).await;
        let row = self.lookup.reach_subshell(c, id, Need::Write).await?;
        if !SubshellState::from_stored(&row.state).is_live() {
            return Err(invalid_move(&row, "killed"));
        }
        if !self.dispatcher.node_reachable_soon(&row.node_id).await {
            return Err(self.dispatcher.offline(&row.node_id));
        }
        // A running pane is `stopping` before the kill leaves: a plane that dies while the
        // kill is under way comes back to a stop to finish, not to a crash; and a write that
        // cannot be made (a full disk) refuses the kill before the pane is touched.
        let row = if SubshellState::from_stored(&row.state) == SubshellState::Running
            && self
                .move_subshell(&row, Trigger::TerminateRequested, None)
                .await?
                .is_some()
        {
            self.store
                .subshell(id)
                .await?
                .ok_or_else(|| ApiError::not_found("subshell"))?
        } else {
            row
        };
        if let Err(e) = self.kill_or_gone(&row.node_id, id).await {
            self.stop_unanswered(&row, false).await;
            return Err(e);
        }
        if self
            .move_subshell(&row, Trigger::KillRequested, None)
            .await?
            .is_none()
        {
            // It ended on its own meanwhile (an exit or the census moved it): killed all the same.
            tracing::debug!(subshell = %id, "killed a pane that had already ended");
        }
        self.audit_as(c, "subshell.killed", id).await?;
        self.lookup.fresh_view(id).await
    }

    /// `POST /api/subshells/:id/restart`: a live pane is killed first; the subshell starts
    /// again with the same launch and a new token (the old one stops working at once).
    pub async fn restart(&self, c: &Caller, id: &str) -> Result<Subshell, ApiError> {
        let _held = self.hold_subshell(id).await;
        let row = self.lookup.reach_subshell(c, id, Need::Write).await?;
        if !self.dispatcher.node_reachable_soon(&row.node_id).await {
            return Err(self.dispatcher.offline(&row.node_id));
        }
        self.relaunch(&row, Trigger::RestartRequested).await?;
        self.audit_as(c, "subshell.restarted", id).await?;
        self.lookup.fresh_view(id).await
    }

    /// A kill the node did not answer (it may yet run it, its commands queued in order): the
    /// row moves to `stopping` (its token revoked) and the stop is finished once the node
    /// answers, so the row ends `stopped`, not `crashed` when the pane is found gone.
    async fn stop_unanswered(&self, row: &store::Subshell, then_restart: bool) {
        let already = SubshellState::from_stored(&row.state) == SubshellState::Stopping;
        match self
            .move_subshell(row, Trigger::TerminateRequested, None)
            .await
        {
            Ok(Some(_)) => {
                self.finish_stop(&row.node_id, &row.id, Duration::from_secs(3), then_restart);
            }
            Ok(None) if already => {
                self.finish_stop(&row.node_id, &row.id, Duration::from_secs(3), then_restart);
            }
            Ok(None) => {}
            Err(e) => {
                tracing::debug!(subshell = %row.id, code = e.code, "an unanswered kill was not recorded")
            }
        }
    }

    /// Kills a live pane, rotates the token and launches again; the row ends `running`, or
    /// `failed` with the node's reason. The caller holds the subshell's lifecycle lock.
    pub(in crate::service) async fn relaunch(
        &self,
        row: &store::Subshell,
        trigger: Trigger,
    ) -> Result<(), ApiError> {
        let node = self
            .store
            .node(&row.node_id)
            .await?
            .ok_or_else(|| ApiError::not_found("node"))?;
        let spec: LaunchSpec =
            serde_json::from_str(&row.launch_spec).map_err(|_| ApiError::internal())?;
        // A running pane is `stopping` before its kill leaves (as a delete's is): a plane that
        // dies while the kill is under way comes back to a stop to finish, not to a running
        // row whose pane the kill then ends, read as a crash.
        let stopping;
        let row = if SubshellState::from_stored(&row.state) == SubshellState::Running
            && self
                .move_subshell(row, Trigger::TerminateRequested, None)
                .await?
                .is_some()
        {
            stopping = self
                .store
                .subshell(&row.id)
                .await?
                .ok_or_else(|| ApiError::not_found("subshell"))?;
            &stopping
        } else {
            row
        };
        if SubshellState::from_stored(&row.state).is_live() {
            if let Err(e) = self.kill_or_gone(&row.node_id, &row.id).await {
                // A restart the node took but did not answer in time is finished when it
                // answers: the stop, then the launch.
                let late = e.code == "NODE_TIMEOUT" && trigger == Trigger::RestartRequested;
                self.stop_unanswered(row, late).await;
                if late {
                    return Err(ApiError::new(
                        e.status,
                        e.code,
                        format!(
                            "{}: the subshell is stopping, and starts again once the node answers",
                            e.message
                        ),
                    ));
                }
                return Err(e);
            }
        } else if let Err(e) = self.kill_pane(&row.node_id, &row.id).await {
            // An ended row normally has no pane, and the node says so; one may be left by a
            // launch that answered too late, and it is killed here rather than refuse the
            // launch ("already running").
            tracing::debug!(subshell = %row.id, code = e.code, "no pane left to kill before the restart");
        }
        // The killed pane's `exit` (or a census that found it gone) may have been recorded
        // while the kill was on its way: the row then reads `stopped`, not the `stopping` this
        // move was read from. Only those can move it meanwhile (the caller holds the lifecycle
        // lock), and they only end it: the restart goes on from what the row reads now.
        let token = match self.move_subshell(row, trigger, None).await? {
            Some((_, Some(token))) => token,
            Some((_, None)) => return Err(invalid_move(row, "restarted")),
            None => {
                let now_row = self
                    .store
                    .subshell(&row.id)
                    .await?
                    .ok_or_else(|| ApiError::not_found("subshell"))?;
                if SubshellState::from_stored(&now_row.state).is_live() {
                    return Err(invalid_move(&now_row, "restarted"));
                }
                let Some((_, Some(token))) = self.move_subshell(&now_row, trigger, None).await?
                else {
                    return Err(invalid_move(&now_row, "restarted"));
                };
                token
            }
        };
        let session = self.restart_session(&node, &spec, row).await;
        let launch = self
            .launch_command(
                &node,
                row.workspace_id.as_deref(),
                &spec,
                &token,
                session,
                None,
            )
            .await?;
        let starting = self
            .store
            .subshell(&row.id)
            .await?
            .ok_or_else(|| ApiError::not_found("subshell"))?;
        let launch_sent = launch.clone();
        match self
            .dispatcher
            .node_command(&row.node_id, Command::Launch(Box::new(launch)))
            .await
        {
            Ok(r) if r.ok => {
                self.note_incarnation(&row.id, r.data.as_ref());
                let warning = Self::launch_warning(&launch_sent, r.data.as_ref());
                if warning != row.warning {
                    self.store
                        .set_subshell_warning(&row.id, warning.as_deref(), self.now())
                        .await?;
                }
                let moved = self
                    .move_subshell(&starting, Trigger::LaunchAccepted, None)
                    .await?;
                if moved.is_none() && self.store.subshell(&row.id).await?.is_none() {
                    // The row went while the launch was on its way: the pane it started has
                    // no row to stand for it.
                    self.kill_and_forget(&row.node_id, &row.id, true);
                    return Err(ApiError::not_found("subshell"));
                }
                self.settle_parked_exit(&row.id, true);
                Ok(())
            }
            Ok(r) => {
                let reason = r.error.unwrap_or_else(|| "refused".into());
                self.move_subshell(&starting, Trigger::LaunchRefused, Some(&reason))
                    .await?;
                self.settle_parked_exit(&row.id, false);
                Err(ApiError::new(
                    422,
                    "LAUNCH_REFUSED",
                    format!("the node refused the launch: {reason}"),
                ))
            }
            Err(e) => {
                self.move_subshell(&starting, Trigger::LaunchRefused, Some(&e.message))
                    .await?;
                self.settle_parked_exit(&row.id, false);
                self.kill_and_forget(&row.node_id, &row.id, false);
                Err(e)
            }
        }
    }

    /// How a restart of `row` starts its harness's session: a harness that resumes continues
    /// the session it had — by its id when one is known and, where the harness keeps it
    /// somewhere the plane can name, only once that session was saved (a harness asked to
    /// resume a session it never saved ends at once: a pane in which nothing was typed starts
    /// afresh under the same id); with no id known, in its own words for its most recent
    /// session; a harness that does not resume starts afresh.
    async fn restart_session<'a>(
        &self,
        node: &store::Node,
        spec: &LaunchSpec,
        row: &'a store::Subshell,
    ) -> plugins::Session<'a> {
        let Some(plugin) = plugins::find(&row.harness_id) else {
            return plugins::Session::New(None);
        };
        if plugin.resume == plugins::Resume::No {
            return plugins::Session::New(None);
        }
        let Some(id) = row.harness_session_id.as_deref() else {
            return if plugin.continue_last.is_empty() {
                plugins::Session::New(None)
            } else {
                plugins::Session::ContinueLast
            };
        };
        let fresh = plugins::Session::New(plugin.session_id_flag.map(|_| id));
        if plugin.session_file == plugins::SessionFile::Unknown {
            return plugins::Session::Resume(id);
        }
        let Ok((data_dir, home)) = self.node_dirs(node).await else {
            return fresh;
        };
        let config_dir = claude_config_dir(&spec.launch, &data_dir, &home);
        let Some(path) = config_dir.and_then(|d| plugin.session_path(&d, &row.cwd, id)) else {
            return fresh;
        };
        let saved = self
            .dispatcher
            .node_command(
                &node.id,
                Command::PathExists(termplane_proto::command::PathArg { path }),
            )
            .await
            .and_then(node_data)
            .ok()
            .and_then(|d| d.get("exists").and_then(serde_json::Value::as_bool));
        if saved == Some(true) {
            plugins::Session::Resume(id)
        } else {
            fresh
        }
    }

    /// Kills a pane no live row stands for, from a task of its own, and retries at the node's
    /// next census if the kill cannot reach it now (the pane is doomed). Used after a launch
    /// that got no answer (the node timed out or went away: the kill is queued behind it, so a
    /// node that runs the launch late kills that pane right after, its commands running in
    /// order; a node that never had the launch answers that there is nothing to kill) and, at
    /// a census, for the doomed panes of deleted subshells. With `forget` (no row names the
    /// pane any more) the node then forgets its log too.
    pub(in crate::service) fn kill_and_forget(&self, node_id: &str, id: &str, forget: bool) {
        let Some(me) = self.me.upgrade() else {
            return;
        };
        let (node_id, id) = (node_id.to_owned(), id.to_owned());
        smol::spawn(async move {
            match me.kill_pane(&node_id, &id).await {
                Ok(())
                | Err(ApiError {
                    code: "NODE_REFUSED",
                    ..
                }) => {
                    if forget {
                        me.forget_pane(&node_id, &id);
                    }
                }
                Err(e) => {
                    tracing::debug!(subshell = %id, code = e.code, "kill deferred to the census");
                    me.doom(&node_id, &id).await;
                }
            }
        })
        .detach();
    }

    /// Has the node forget what it keeps of the gone pane `id` (its log: what it printed goes
    /// with the deleted subshell), when the node takes `forget`; in the background.
    pub(in crate::service) fn forget_pane(&self, node_id: &str, id: &str) {
        let Some(me) = self.me.upgrade() else {
            return;
        };
        let (node_id, id) = (node_id.to_owned(), id.to_owned());
        smol::spawn(async move {
            if !me
                .dispatcher
                .node_can(&node_id, termplane_proto::command::FORGET)
                .await
            {
                return;
            }
            let Ok(sid) = SubshellId::parse(&id) else {
                return;
            };
            let r = me
                .dispatcher
                .node_command(&node_id, Command::Forget(SubshellRef { subshell_id: sid }))
                .await
                .and_then(node_data);
            if let Err(e) = r {
                tracing::debug!(subshell = %id, code = e.code, "pane log not forgotten");
            }
        })
        .detach();
    }

    /// Has the pane `id` killed at `node_id`'s next census (kept in the store, so a plane
    /// restart before the node returns does not forget it).
    pub(in crate::service) async fn doom(&self, node_id: &str, id: &str) {
        if let Err(e) = self.store.doom_pane(node_id, id, self.now()).await {
            tracing::warn!(node = %node_id, subshell = %id, error = %e, "a pane could not be doomed");
        }
    }

    /// The doomed panes of `node_id`, taken off the list (the census kills those it finds).
    pub(in crate::service) async fn take_doomed(
        &self,
        node_id: &str,
    ) -> Result<std::collections::HashSet<String>, ApiError> {
        Ok(self.store.take_doomed(node_id).await?.into_iter().collect())
    }

    /// `DELETE /api/subshells/:id`: a live pane is killed first (a running row is `stopping`,
    /// its token revoked, while the kill is under way); the row and its token go. A
    /// pane on a node out of reach is doomed with the row's deletion, in one transaction, and
    /// killed when that node is back (its census names it, see [`Self::doom`]), a plane
    /// restart between the two included; so is a pane whose kill the node took but did not
    /// answer in time (it is killed when the node answers).
    pub async fn delete(&self, c: &Caller, id: &str) -> Result<(), ApiError> {
        let _held = self.hold_subshell(id).await;
        let row = self.lookup.reach_subshell(c, id, Need::Write).await?;
        let reachable = self.dispatcher.node_reachable(&row.node_id);
        // A kill the node took but did not answer in time (or whose answer the link lost) may
        // yet run, its commands running in order: the subshell goes all the same, as for a node
        // out of reach, rather than answer an error and leave a row whose pane the late kill
        // then ends (read as a crash, and notified as one).
        let mut unanswered = false;
        if reachable && SubshellState::from_stored(&row.state).is_live() {
            // A running pane is `stopping` (its token revoked) before the kill leaves, so that
            // a plane that dies while the kill is under way comes back to a stop to finish
            // (`stopped` once the pane is gone), not to a running row whose pane the kill
            // then ends, read and notified as a crash.
            self.move_subshell(&row, Trigger::TerminateRequested, None)
                .await?;
            match self.kill_or_gone(&row.node_id, id).await {
                Ok(()) => {}
                Err(e) if matches!(e.code, "NODE_TIMEOUT" | "NODE_LINK_CLOSED") => {
                    tracing::info!(subshell = %id, code = e.code, "deleted; its pane is killed when the node answers");
                    unanswered = true;
                }
                Err(e) => {
                    // Not deleted: the stop it began is finished, as a terminate's would be.
                    if SubshellState::from_stored(&row.state) == SubshellState::Running {
                        self.finish_stop_later(&row.node_id, id);
                    }
                    return Err(e);
                }
            }
        }
        // Out of reach, the pane (or, for an ended row, its log) is doomed: the census has the
        // node kill it and forget its log.
        let doom = (!reachable || unanswered).then_some(row.node_id.as_str());
        let mut audience: std::collections::HashSet<String> = self
            .store
            .shares(id)
            .await?
            .into_iter()
            .map(|s| s.user_id)
            .collect();
        audience.insert(row.owner_user_id.clone());
        if !self
            .store
            .delete_subshell(id, &c.user().id, c.actor_kind(), doom, self.now())
            .await?
        {
            return Err(ApiError::not_found("subshell"));
        }
        if unanswered {
            // Queued behind the late kill: it finds the pane gone and has the log forgotten; a
            // node still silent leaves it doomed for its next census.
            self.kill_and_forget(&row.node_id, id, true);
        } else if reachable {
            self.forget_pane(&row.node_id, id);
        }
        self.publisher
            .publish_subshell_gone(id, audience, true)
            .await;
        self.publisher.subshell_deleted(id).await;
        self.pumps
            .close_viewers(id, None, 4404, "the subshell was deleted");
        if let Ok(mut m) = self.incarnations.lock() {
            m.remove(id);
        }
        Ok(())
    }

    pub(in crate::service) async fn audit_as(
        &self,
        c: &Caller,
        action: &str,
        target: &str,
    ) -> Result<(), ApiError> {
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
}

/// The configuration directory Claude Code has in a pane launched with `launch` on a node with
/// `data_dir` and `home`: the preset's `CLAUDE_CONFIG_DIR`, else the isolated one the node
/// keeps (`<data dir>/harness-config/<harness>/claude`), else `~/.claude` (`None` when the node
/// has not said where those are).
fn claude_config_dir(launch: &Launch, data_dir: &str, home: &str) -> Option<String> {
    if let Some(d) = launch
        .preset
        .env
        .get("CLAUDE_CONFIG_DIR")
        .filter(|d| d.starts_with('/'))
    {
        return Some(d.clone());
    }
    if launch.preset.config_isolation {
        return (!data_dir.is_empty()).then(|| {
            format!(
                "{}/harness-config/{}/claude",
                data_dir.trim_end_matches('/'),
                launch.harness_id
            )
        });
    }
    (!home.is_empty()).then(|| format!("{}/.claude", home.trim_end_matches('/')))
}

/// A 409: the subshell's state does not allow `what`.
fn invalid_move(row: &store::Subshell, what: &str) -> ApiError {
    ApiError::new(
        409,
        "INVALID_STATE",
        format!("the subshell is {}: it cannot be {what}", row.state),
    )
}
