//! Retention: how long a pane's recording is kept.
//!
//! A pane's recording is kept where its log is, on its node (see the node's
//! recording module, `recording_trim`), and the marks of who typed into it on the plane. How long
//! they are kept is an administrator's setting: per workspace (`PUT
//! /api/workspaces/:id/recording`), else per node (`PUT /api/nodes/:id/recording`), else the
//! plane's `--recording-retention-days`; none of the three set, a recording is kept as long
//! as its pane, within its log's cap.
//!
//! The sweep runs at the plane's start, every hour after, and at once when a retention is
//! set. For each subshell with a retention of `d` days it deletes what is older than `d` days:
//! its input marks that ended before then, and, through the node's `recording_trim` (a node
//! that advertises it, reachable now; otherwise the next sweep tries again), what the pane
//! printed before then and its timing. Each sweep that deleted something of a pane is audited
//! as `subshell.recording_expired` (by the plane, with the cut's time, the bytes the node freed
//! and the marks deleted): deletion follows the retention, and says so. What the node keeps
//! then starts at a block boundary at or before the cut (a few KiB older may stay); the export
//! and the playback start at the first byte kept, marked *recording truncated*. The cut is
//! the plane's clock less the retention, compared with the node's timing records (its own
//! clock): a node whose clock is off by minutes keeps minutes more or less, never days.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use termplane_proto::command::{Command, RECORDING_TRIM, RecordingTrim};
use termplane_proto::ids::SubshellId;

use crate::clock::Clock;
use crate::error::ApiError;
use crate::service::dispatch::{Dispatcher, node_data};
use crate::store::{self, Store, SubshellFilter};

/// A day, in milliseconds.
const DAY_MS: i64 = 86_400_000;

/// What one sweep deleted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Swept {
    /// Panes something was deleted of.
    pub panes: u64,
    /// Bytes their nodes freed (logs and timing files).
    pub dropped_bytes: u64,
    /// Input marks deleted.
    pub input_marks: u64,
}

/// The retention sweep (see the module's documentation).
pub struct Retention {
    store: Store,
    clock: Arc<dyn Clock>,
    dispatcher: Arc<Dispatcher>,
    /// The plane's `--recording-retention-days`.
    default_days: Option<u16>,
    /// A retention was set: sweep now.
    wake: event_listener::Event,
}

impl std::fmt::Debug for Retention {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Retention")
            .field("default_days", &self.default_days)
            .finish_non_exhaustive()
    }
}

impl Retention {
    /// The sweep over `store`, trimming through `dispatcher`, with the plane's default.
    pub(in crate::service) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        dispatcher: Arc<Dispatcher>,
        default_days: Option<u16>,
    ) -> Arc<Self> {
        Arc::new(Self {
            store,
            clock,
            dispatcher,
            default_days,
            wake: event_listener::Event::new(),
        })
    }

    /// A retention changed: the running sweep task sweeps at once.
    pub fn wake(&self) {
        self.wake.notify(usize::MAX);
    }

    /// Sweeps now and then every `every`, and whenever woken, while the plane runs.
    pub fn spawn(self: &Arc<Self>, every: Duration) {
        let me = Arc::downgrade(self);
        smol::spawn(async move {
            loop {
                let Some(svc) = me.upgrade() else { return };
                // Listening before the sweep: a wake during it is a sweep after it.
                let woken = svc.wake.listen();
                if let Err(e) = svc.sweep().await {
                    tracing::warn!(code = e.code, "the recordings' retention sweep failed");
                }
                drop(svc);
                crate::wait::within(every, woken).await;
            }
        })
        .detach();
    }

    /// One sweep over every subshell (see the module's documentation).
    pub async fn sweep(&self) -> Result<Swept, ApiError> {
        let rows = self.store.subshells(&SubshellFilter::default()).await?;
        let mut nodes: BTreeMap<String, Option<store::Node>> = BTreeMap::new();
        let mut workspaces: BTreeMap<String, Option<store::Workspace>> = BTreeMap::new();
        let mut swept = Swept::default();
        for row in rows {
            if !nodes.contains_key(&row.node_id) {
                let n = self.store.node(&row.node_id).await?;
                nodes.insert(row.node_id.clone(), n);
            }
            let node_days = nodes
                .get(&row.node_id)
                .and_then(|n| n.as_ref()?.recording_retention_days);
            let mut workspace_days = None;
            if let Some(w) = &row.workspace_id {
                if !workspaces.contains_key(w) {
                    let found = self.store.workspace(w).await?;
                    workspaces.insert(w.clone(), found);
                }
                workspace_days = workspaces
                    .get(w)
                    .and_then(|w| w.as_ref()?.recording_retention_days);
            }
            let Some(days) = workspace_days
                .or(node_days)
                .or(self.default_days.map(i64::from))
            else {
                continue;
            };
            self.expire(&row, days, &mut swept).await?;
        }
        Ok(swept)
    }

    /// Deletes what of `row`'s recording is older than `days` days; audits what it deleted.
    async fn expire(
        &self,
        row: &store::Subshell,
        days: i64,
        swept: &mut Swept,
    ) -> Result<(), ApiError> {
        let now = self.clock.now_ms();
        let before_ms = now.saturating_sub(days.saturating_mul(DAY_MS));
        let marks = self
            .store
            .delete_input_marks_before(&row.id, before_ms)
            .await?;
        let mut dropped = 0;
        let mut log_from = None;
        if self.dispatcher.node_reachable(&row.node_id)
            && self.dispatcher.node_can(&row.node_id, RECORDING_TRIM).await
            && let Ok(subshell_id) = SubshellId::parse(&row.id)
        {
            let trim = Command::RecordingTrim(RecordingTrim {
                subshell_id,
                before_us: u64::try_from(before_ms).unwrap_or(0).saturating_mul(1000),
            });
            match self
                .dispatcher
                .node_command(&row.node_id, trim)
                .await
                .and_then(node_data)
            {
                Ok(d) => {
                    let number = |k: &str| d.get(k).and_then(serde_json::Value::as_u64);
                    dropped = number("droppedBytes").unwrap_or(0);
                    log_from = number("logFrom");
                }
                Err(e) => {
                    tracing::warn!(subshell = %row.id, code = e.code, "a recording past its retention could not be trimmed on its node; the next sweep tries again");
                }
            }
        }
        if marks == 0 && dropped == 0 {
            return Ok(());
        }
        swept.panes += 1;
        swept.dropped_bytes += dropped;
        swept.input_marks += marks;
        self.store
            .audit(
                now,
                None,
                "plane",
                "subshell.recording_expired",
                Some(&row.id),
                &serde_json::json!({
                    "retentionDays": days,
                    "before": before_ms,
                    "droppedBytes": dropped,
                    "logFrom": log_from,
                    "inputMarks": marks,
                }),
            )
            .await?;
        Ok(())
    }
}
