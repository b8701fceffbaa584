//! Subshells: launching harness panes on a node, reading and typing into them, and moving them
//! through their lifecycle ([`super::lifecycle`]).
//!
//! # Who may do what
//!
//! * A person (session) sees and acts on their own subshells; an administrator on every one. A
//!   subshell shared with a person is readable by them too (`service::terminals` for sharing).
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
//! kills; an initial prompt that cannot go on the harness's command line is typed once repeated
//! captures show the pane's first screen settled, and keys after typed text are pressed once
//! captures show the program took the text; a long paste goes in pieces of at most
//! [`INPUT_PIECE_BYTES`].

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use termplane_proto::command::{
    Capture, Command, Launch, LogRead, NamedKey, Preset as ProtoPreset, Probe, Resize, SubshellRef,
};
use termplane_proto::{Event, SubshellId};

use super::lifecycle::{self, TokenEffect, Trigger};

use super::{Caller, Service};
use crate::api::subshells::{
    Access, Attention, AttentionRequest, CreatedBy, InputDone, InputRequest, KeptAlive,
    LaunchRequest, LogChunk, LogsQuery, Permissions, ResizeRequest, Screen, ScreenQuery,
    SessionRequest, Subshell, SubshellState, SubshellStatus, SubshellsQuery,
};
use crate::error::ApiError;
use crate::plugins;
use crate::secret::{self, BEARER_PREFIX};
use crate::store::{self, Change, SubshellFilter};

mod events;
pub use events::GONE_GRACE_MS;
mod io;
mod launch;
mod moves;
mod reports;

/// Lifetime of a subshell token, extended while the pane's MCP child runs (ms).
pub const TOKEN_LIFETIME_MS: i64 = 7 * 24 * 60 * 60 * 1000;
/// Most bytes of text one `input` command carries (a longer paste is split, in order).
pub const INPUT_PIECE_BYTES: usize = 4096;
/// Default grid.
pub(in crate::service) const DEFAULT_COLS: u16 = 120;
pub(in crate::service) const DEFAULT_ROWS: u16 = 36;
/// An initial prompt waits for this much quiet (ms), and gives up after this long (ms).
pub(in crate::service) const PROMPT_QUIET_MS: u64 = 1_500;
pub(in crate::service) const PROMPT_TIMEOUT_MS: u64 = 120_000;
/// How long the screen must stay still after typed text before the keys after it are pressed
/// (ms).
pub(in crate::service) const KEYS_AFTER_TEXT_QUIET_MS: u64 = 200;
/// The longest keys after typed text wait for the program to take it (ms).
pub(in crate::service) const KEYS_AFTER_TEXT_LIMIT_MS: u64 = 3_000;

/// What a caller wants of a subshell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::service) enum Need {
    Read,
    Write,
}

/// The parts of a launch kept on the row for relaunches: the launch without its credentials,
/// command line or session (rebuilt at each launch), and the preset's flags.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(in crate::service) struct LaunchSpec {
    launch: Launch,
    flags: Vec<String>,
    permissions: Permissions,
}

impl Service {
    // ----- who may see, act and launch -----

    /// The subshell `id` as `c` may see it, or 404; 403 when `need` is more than a pane's
    /// permission map allows.
    pub(in crate::service) async fn reach_subshell(
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
            // A share lets a person read a subshell over REST (typing goes through the terminal).
            Caller::Session { user, .. } => {
                user.role == "admin"
                    || row.owner_user_id == user.id
                    || (need == Need::Read
                        && self.store.share_access(id, &user.id).await?.is_some())
            }
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

    // ----- views -----

    /// A subshell row as the API shows it.
    pub(in crate::service) fn subshell_view(&self, r: &store::Subshell) -> Subshell {
        view_of(r, self.dispatcher.node_reachable(&r.node_id))
    }

    pub(in crate::service) async fn fresh_view(&self, id: &str) -> Result<Subshell, ApiError> {
        let row = self
            .store
            .subshell(id)
            .await?
            .ok_or_else(|| ApiError::not_found("subshell"))?;
        Ok(self.subshell_view(&row))
    }

    /// `GET /api/subshells`: the caller's own subshells (every one for an administrator's
    /// session), and for a person also those shared with them.
    pub async fn subshells(
        &self,
        c: &Caller,
        q: SubshellsQuery,
    ) -> Result<Vec<Subshell>, ApiError> {
        let owner = match &c {
            Caller::Session { user, .. } if user.role == "admin" => None,
            _ => Some(c.user().id.as_str()),
        };
        let rows = self
            .store
            .subshells(&SubshellFilter {
                owner,
                // A person also sees what is shared with them; a bearer never reaches a share.
                with_shared: matches!(c, Caller::Session { .. }),
                node: q.node_id.as_ref().map(|n| n.as_str()),
                harness: q.harness_id.as_ref().map(|h| h.as_str()),
                state: q.state.map(SubshellState::as_str),
            })
            .await?;
        Ok(rows.iter().map(|r| self.subshell_view(r)).collect())
    }

    /// `GET /api/subshells/:id`.
    pub async fn subshell(&self, c: &Caller, id: &str) -> Result<Subshell, ApiError> {
        let row = self.reach_subshell(c, id, Need::Read).await?;
        Ok(self.subshell_view(&row))
    }
}

/// Row `r` as the API shows it, its node `reachable` or not.
pub(in crate::service) fn view_of(r: &store::Subshell, reachable: bool) -> Subshell {
    let state = SubshellState::from_stored(&r.state);
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
        warning: r.warning.clone(),
    }
}

/// A random (version 4) UUID.
pub(in crate::service) fn new_uuid() -> Result<String, ApiError> {
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

pub(in crate::service) use super::dispatch::{node_data, refusal_metadata};
