//! What nodes report, applied to the rows: exits, the census, the reconcile sweep, automatic restarts.

use super::*;

/// How long a pane found gone waits for the node's `exit` before a sweep moves its row:
/// two exit-check ticks.
pub const GONE_GRACE_MS: i64 = 2 * 2000;

#[cfg(test)]
mod grace_tests {
    #[test]
    fn the_grace_is_two_exit_check_ticks() {
        assert_eq!(
            u128::try_from(super::GONE_GRACE_MS).unwrap_or(0),
            2 * termplane_proto::limits::EXIT_DETECTION_TICK.as_millis()
        );
    }
}

/// What nodes report, applied to the rows: a node's events (exits, the census after a connect,
/// its inventory), exits retried when they could not be recorded, and the reconcile sweep.
pub struct NodeReports {
    store: Store,
    clock: Arc<dyn Clock>,
    dispatcher: Arc<Dispatcher>,
    pumps: Arc<Pumps>,
    uploads: Arc<Uploads>,
    subshells: Arc<Subshells>,
    /// Panes the reconcile sweep found gone, and when it first did (ms).
    gone_seen: std::sync::Mutex<std::collections::HashMap<String, i64>>,
    /// Exits whose recording failed (a full disk, a database fault) and that are being retried
    /// (node id, event): until then the census and the sweep leave their rows alone, so the
    /// pane's end is recorded as it happened, not as a crash found later.
    unapplied_exits:
        std::sync::Mutex<std::collections::HashMap<String, (String, termplane_proto::event::Exit)>>,
}

impl std::fmt::Debug for NodeReports {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeReports").finish_non_exhaustive()
    }
}

impl NodeReports {
    pub(in crate::service) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        dispatcher: Arc<Dispatcher>,
        pumps: Arc<Pumps>,
        uploads: Arc<Uploads>,
        subshells: Arc<Subshells>,
    ) -> Self {
        Self {
            store,
            clock,
            dispatcher,
            pumps,
            uploads,
            subshells,
            gone_seen: std::sync::Mutex::default(),
            unapplied_exits: std::sync::Mutex::default(),
        }
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    fn instant(&self) -> std::time::Instant {
        self.clock.instant()
    }

    // ----- what nodes report -----

    /// Applies one event a node sent on its own (in the order the node sent them).
    pub async fn apply_node_event(self: &Arc<Self>, node_id: &str, conn: u64, event: &Event) {
        let outcome = match event {
            Event::Exit(e) => {
                let r = self.subshells.apply_exit(node_id, e).await;
                if let Err(err) = &r
                    && err.status >= 500
                {
                    self.retry_exit(node_id, e);
                }
                if self
                    .pumps
                    .pump_of(e.subshell_id.as_str())
                    .is_some_and(|p| p.node_id == node_id)
                {
                    self.pumps.pane_ended(e.subshell_id.as_str(), e.exit_code);
                }
                r
            }
            Event::SubshellsReport(r) => self.apply_census(node_id, conn, r).await,
            Event::Activity(a) => self.subshells.apply_activity(node_id, a).await,
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

    /// Most exits retried at once; past it, a pane's end is left to the census and the sweep.
    const MAX_UNAPPLIED_EXITS: usize = 4096;

    /// Retries, in the background, an exit whose recording failed (a full disk, a database
    /// fault): after 1 s, then at most 5 s apart, for 10 minutes. Applied late, it is still
    /// checked against the pane's incarnation, so the exit of a pane replaced meanwhile is
    /// ignored.
    fn retry_exit(self: &Arc<Self>, node_id: &str, e: &termplane_proto::event::Exit) {
        let id = e.subshell_id.as_str().to_owned();
        {
            let mut all = self
                .unapplied_exits
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if all.len() >= Self::MAX_UNAPPLIED_EXITS && !all.contains_key(&id) {
                return;
            }
            all.insert(id.clone(), (node_id.to_owned(), e.clone()));
        }
        let me = Arc::downgrade(self);
        let at = e.at.clone();
        let give_up = self.instant() + Duration::from_secs(600);
        smol::spawn(async move {
            let mut wait = Duration::from_secs(1);
            loop {
                smol::Timer::after(wait).await;
                wait = (wait * 2).min(Duration::from_secs(5));
                let Some(svc) = me.upgrade() else { return };
                if svc.instant() >= give_up {
                    break;
                }
                let entry = svc
                    .unapplied_exits
                    .lock()
                    .ok()
                    .and_then(|m| m.get(&id).cloned());
                // Replaced by a later exit of the same subshell (its own task retries it).
                let Some((node_id, exit)) = entry.filter(|(_, x)| x.at == at) else {
                    return;
                };
                match svc.subshells.apply_exit(&node_id, &exit).await {
                    Err(err) if err.status >= 500 => continue,
                    r => {
                        if let Err(err) = r {
                            tracing::debug!(subshell = %id, code = err.code, "a retried exit was refused");
                        } else {
                            tracing::info!(subshell = %id, "an exit that could not be recorded is recorded");
                        }
                        svc.forget_unapplied_exit(&id, &at);
                        return;
                    }
                }
            }
            if let Some(svc) = me.upgrade() {
                svc.forget_unapplied_exit(&id, &at);
            }
            tracing::warn!(subshell = %id, "an exit could not be recorded for 10 minutes: left to the census");
        })
        .detach();
    }

    fn forget_unapplied_exit(&self, id: &str, at: &str) {
        if let Ok(mut m) = self.unapplied_exits.lock()
            && m.get(id).is_some_and(|(_, x)| x.at == at)
        {
            m.remove(id);
        }
    }

    /// Whether an exit of subshell `id` waits to be recorded (see [`Self::retry_exit`]).
    fn exit_unapplied(&self, id: &str) -> bool {
        self.unapplied_exits
            .lock()
            .is_ok_and(|m| m.contains_key(id))
    }

    /// The census a node sends after each connect: every live row of the node is found alive
    /// or gone. Until it is applied, the node is not reachable for any reader.
    pub(in crate::service) async fn apply_census(
        self: &Arc<Self>,
        node_id: &str,
        conn: u64,
        r: &termplane_proto::event::SubshellsReport,
    ) -> Result<(), ApiError> {
        let alive: HashSet<&str> = r.subshells.iter().map(|p| p.subshell_id.as_str()).collect();
        let known = self.heal(node_id, &alive).await?;
        // Doomed panes (a row deleted while the node was out of reach, a launch that answered
        // after the plane gave up on it) found alive: nobody can reach them, they are killed. A
        // pane with a row again is not doomed any more (its row rules). Panes with no row that
        // nobody doomed (the admin's raw `launch` command) are left alone.
        for stray in self
            .subshells
            .take_doomed(node_id)
            .await?
            .iter()
            .filter(|id| !known.contains(*id))
        {
            if alive.contains(stray.as_str()) {
                tracing::info!(node = %node_id, subshell = %stray, "killing a pane whose subshell is gone");
            }
            self.subshells.kill_and_forget(node_id, stray, true);
        }
        self.uploads.abandon_uploads_to(node_id);
        // A launch waiting for this census (`node_reachable_soon`) goes on now.
        self.dispatcher.censused(node_id, conn);
        // Terminals watching panes of this node lost what it printed while the link was down.
        let me = Arc::clone(self);
        let node = node_id.to_owned();
        smol::spawn(async move { me.pumps.node_relinked(&node).await }).detach();
        Ok(())
    }

    /// Moves every live row of `node_id` by whether its pane is in `alive`; answers the ids of
    /// all the node's rows. A row left `stopping` (its stop was cut short: the node went away,
    /// or the plane restarted, before the grace ended) whose pane still runs is killed now, its
    /// grace long over.
    pub(in crate::service) async fn heal(
        self: &Arc<Self>,
        node_id: &str,
        alive: &HashSet<&str>,
    ) -> Result<HashSet<String>, ApiError> {
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
            if SubshellState::from_stored(&row.state) == SubshellState::Stopping
                && alive.contains(row.id.as_str())
            {
                // Not here and now: the census is applied before the node can take commands
                // (the local node at the plane's start is attached just after its census).
                self.subshells.finish_stop_soon(node_id, &row.id);
                continue;
            }
            let trigger = if alive.contains(row.id.as_str()) {
                Trigger::PaneAlive
            } else if self.exit_unapplied(&row.id) {
                // Its exit is being recorded: it says how the pane ended.
                continue;
            } else {
                Trigger::PaneGone
            };
            if let Some((SubshellState::Crashed, _)) =
                self.subshells.move_subshell(row, trigger, None).await?
            {
                self.subshells.maybe_auto_restart(&row.id);
            }
        }
        Ok(rows.into_iter().map(|r| r.id).collect())
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
    /// panes are gone (after a grace for the node's own exit report, see below). Rows of
    /// unreachable nodes are skipped (their panes may well run).
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
            if !self.dispatcher.node_reachable(&node_id) {
                continue;
            }
            let sids: Vec<SubshellId> = ids
                .iter()
                .filter_map(|i| SubshellId::parse(i).ok())
                .collect();
            let Ok(r) = self
                .dispatcher
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
            // A pane found gone is given the node's exit checks first: its `exit` (with the
            // code) normally follows within a tick, and a row moved to "gone" now would lose
            // that code (an `exit 0` would read as a crash). Only a pane still gone at a sweep
            // at least [`GONE_GRACE_MS`] after it was first seen gone is moved here.
            let now = self.now();
            let due: HashSet<String> = {
                let mut seen = self
                    .gone_seen
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                seen.retain(|id, _| {
                    probed.contains(id.as_str()) && !alive_refs.contains(id.as_str())
                });
                ids.iter()
                    .filter(|id| !alive_refs.contains(id.as_str()))
                    .filter(|id| {
                        let first = *seen.entry((*id).clone()).or_insert(now);
                        now - first >= GONE_GRACE_MS
                    })
                    .cloned()
                    .collect()
            };
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
                } else if due.contains(&row.id) && !self.exit_unapplied(&row.id) {
                    Trigger::PaneGone
                } else {
                    continue;
                };
                if let Some((SubshellState::Crashed, _)) =
                    self.subshells.move_subshell(row, trigger, None).await?
                {
                    self.subshells.maybe_auto_restart(&row.id);
                }
            }
        }
        Ok(())
    }
}

impl Subshells {
    /// Records when the node started a subshell's current pane (its launch answer's
    /// `startedAt`, on the node's clock).
    pub(in crate::service) fn note_incarnation(&self, id: &str, data: Option<&serde_json::Value>) {
        if let Some(at) = data
            .and_then(|d| d.get("startedAt"))
            .and_then(serde_json::Value::as_str)
            && let Ok(mut m) = self.incarnations.lock()
        {
            m.insert(id.to_owned(), at.to_owned());
        }
    }

    /// After a launch answered: an exit kept while it was on its way is applied if it is the
    /// new pane's (seen after its start), dropped if it was the replaced pane's or the launch
    /// failed.
    pub(in crate::service) fn settle_parked_exit(&self, id: &str, launched: bool) {
        let parked = self.parked_exits.lock().ok().and_then(|mut p| p.remove(id));
        let Some((node_id, exit)) = parked else {
            return;
        };
        if !launched {
            return;
        }
        if let Some(me) = self.me.upgrade() {
            smol::spawn(async move {
                if let Err(e) = me.apply_exit(&node_id, &exit).await {
                    tracing::warn!(subshell = %exit.subshell_id, code = e.code, "kept exit not applied");
                }
            })
            .detach();
        }
    }

    pub(in crate::service) async fn apply_exit(
        self: &Arc<Self>,
        node_id: &str,
        e: &termplane_proto::event::Exit,
    ) -> Result<(), ApiError> {
        // A restart kills the pane and launches it again under the same id; the node's exit
        // check can see the killed pane go in between, and that `exit` can be applied after the
        // new pane's launch answer. It belongs to the earlier pane: never to the new one.
        let started = self
            .incarnations
            .lock()
            .ok()
            .and_then(|m| m.get(e.subshell_id.as_str()).cloned());
        if started.is_some_and(|s| exit_is_stale(&e.at, &s)) {
            tracing::debug!(subshell = %e.subshell_id, at = %e.at, "exit of an earlier pane ignored");
            return Ok(());
        }
        let Some(row) = self
            .store
            .subshell(e.subshell_id.as_str())
            .await?
            .filter(|r| r.node_id == node_id)
        else {
            return Ok(());
        };
        // While a launch is on its way, whose pane an exit belongs to is known only once the
        // launch answers: keep it until then (`settle_parked_exit`).
        if SubshellState::from_stored(&row.state) == SubshellState::Starting {
            if let Ok(mut p) = self.parked_exits.lock() {
                p.insert(row.id.clone(), (node_id.to_owned(), e.clone()));
            }
            return Ok(());
        }
        let moved = self
            .move_subshell(&row, Trigger::Exit(e.exit_code), None)
            .await?;
        if let Some((SubshellState::Crashed, _)) = moved {
            self.maybe_auto_restart(&row.id);
        }
        Ok(())
    }

    /// Relaunches a crashed subshell whose preset asks for it, after a short pause, unless it
    /// already restarted [`lifecycle::AUTO_RESTART_LIMIT`] times.
    pub(in crate::service) fn maybe_auto_restart(self: &Arc<Self>, id: &str) {
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
            let _held = me.hold_subshell(&id).await;
            let Ok(Some(row)) = me.store.subshell(&id).await else {
                return;
            };
            if me.dispatcher.node_reachable(&row.node_id)
                && let Err(e) = me.relaunch(&row, Trigger::AutoRestart).await
            {
                tracing::info!(subshell = %id, code = e.code, "automatic restart failed");
            }
        })
        .detach();
    }
}

/// Whether an `exit` seen at `exit_at` happened no later than the pane's start at `started_at`
/// (both ISO 8601 UTC with milliseconds from the same node's clock, so they compare as text).
fn exit_is_stale(exit_at: &str, started_at: &str) -> bool {
    exit_at.len() == started_at.len() && exit_at <= started_at
}

#[cfg(test)]
mod tests {
    use super::exit_is_stale;

    #[test]
    fn an_exit_seen_before_the_current_pane_started_is_an_earlier_panes() {
        let started = "2026-11-24T08:52:48.266Z";
        assert!(exit_is_stale("2026-11-24T08:52:48.227Z", started));
        assert!(exit_is_stale(started, started));
        assert!(!exit_is_stale("2026-11-24T08:52:50.001Z", started));
        // Spellings that do not compare as text are never taken as stale.
        assert!(!exit_is_stale("2026-11-24T08:52:48Z", started));
    }
}
