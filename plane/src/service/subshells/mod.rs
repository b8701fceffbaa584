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

use super::live::Publisher;
use super::terminals::pump::Pumps;
use super::typist::Typist;
use super::{Caller, Catalog, Dispatcher, Presets, Uploads};
use crate::api::subshells::{
    Access, AgentSource, AgentState, Attention, AttentionRequest, CreatedBy, InputDone,
    InputRequest, KeptAlive, LaunchRequest, LogChunk, LogsQuery, Permissions, ReportSource,
    ResizeRequest, Screen, ScreenQuery, SessionRequest, StatusRequest, Subshell, SubshellState,
    SubshellStatus, SubshellsQuery,
};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::plugins;
use crate::secret::{self, BEARER_PREFIX};
use crate::store::Store;
use crate::store::{self, Change, SubshellFilter};

pub(in crate::service) mod agent;
mod events;
pub use events::NodeReports;
mod lookup;
pub use events::GONE_GRACE_MS;
pub use inputs::{KeyBatch, Marker, Typer};
pub use io::PaneIo;
pub(in crate::service) use io::require_live;
pub use lookup::Lookup;
pub use recording::CastWriter;
pub use retention::{Retention, Swept};
mod inputs;
mod io;
mod launch;
mod moves;
mod recording;
mod reports;
mod retention;
pub(in crate::service) mod screen;

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

/// The subshells domain: who may see and act on which subshell, launching panes, moving them
/// through their lifecycle, applying what their nodes report, reading and typing into them.
pub struct Subshells {
    store: Store,
    clock: Arc<dyn Clock>,
    /// The plane's base URL (the local node's panes reach the plane there).
    base_url: String,
    /// Whether panes are recorded (`TERMPLANE_RECORDING`, see the `recording` module).
    recording: bool,
    dispatcher: Arc<Dispatcher>,
    lookup: Arc<Lookup>,
    publisher: Arc<Publisher>,
    pumps: Arc<Pumps>,
    typist: Arc<Typist>,
    presets: Arc<Presets>,
    catalog: Arc<Catalog>,
    /// The local node's data and home directories.
    local_dirs: std::sync::OnceLock<(String, String)>,
    /// One lifecycle move at a time per subshell (see [`Self::hold_subshell`]).
    subshell_locks:
        std::sync::Mutex<std::collections::HashMap<String, std::sync::Weak<smol::lock::Mutex<()>>>>,
    /// Announced after every lifecycle move of any subshell (a stop's grace waits on it).
    subshells_moved: event_listener::Event,
    /// When each subshell's current pane started, on its node's clock (from the launch answer).
    incarnations: std::sync::Mutex<std::collections::HashMap<String, String>>,
    /// Exits that arrived while their subshell's launch was on its way (node id, event).
    parked_exits:
        std::sync::Mutex<std::collections::HashMap<String, (String, termplane_proto::event::Exit)>>,
    /// This domain, for the tasks it starts.
    me: std::sync::Weak<Self>,
}

impl std::fmt::Debug for Subshells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subshells").finish_non_exhaustive()
    }
}

impl Subshells {
    /// The domain over `store`, launching and moving panes through `dispatcher`.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::service) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        base_url: String,
        recording: bool,
        dispatcher: Arc<Dispatcher>,
        lookup: Arc<Lookup>,
        publisher: Arc<Publisher>,
        pumps: Arc<Pumps>,
        typist: Arc<Typist>,
        presets: Arc<Presets>,
        catalog: Arc<Catalog>,
    ) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            store,
            clock,
            base_url,
            recording,
            dispatcher,
            lookup,
            publisher,
            pumps,
            typist,
            presets,
            catalog,
            local_dirs: std::sync::OnceLock::new(),
            subshell_locks: std::sync::Mutex::default(),
            subshells_moved: event_listener::Event::new(),
            incarnations: std::sync::Mutex::default(),
            parked_exits: std::sync::Mutex::default(),
            me: me.clone(),
        })
    }

    /// Where the local node keeps its data, and its home (set once, when it is attached).
    pub(in crate::service) fn set_local_dirs(&self, data_dir: &str, home_dir: &str) {
        let _ = self
            .local_dirs
            .set((data_dir.to_owned(), home_dir.to_owned()));
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    fn instant(&self) -> std::time::Instant {
        self.clock.instant()
    }
}

/// Row `r` as the API shows it, its node `reachable` or not.
pub(in crate::service) fn view_of(r: &store::Subshell, reachable: bool) -> Subshell {
    let state = SubshellState::from_stored(&r.state);
    let attention = Attention::from_stored(&r.attention);
    let agent = agent::agent_view(r, state);
    let status = match state {
        s if s.is_live() && !reachable => SubshellStatus::NodeUnreachable,
        SubshellState::Starting => SubshellStatus::Starting,
        SubshellState::Running
            if attention == Attention::NeedsInput
                || agent.state == crate::api::subshells::AgentState::NeedsInput =>
        {
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
        agent,
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
