//! Live terminals: attach tokens, who may attach with what rights, and one output pump per pane
//! ([`pump`]).
//!
//! See [`crate::api::terminals`] for the token's rules as a client sees them. The socket itself
//! is driven by the HTTP layer (`http/terminal.rs`); everything it decides comes from here.
//!
//! # The attach order (spec: "Terminal attach over a node")
//!
//! The attach route (`http/terminal.rs`, before its 101) does, in order: join the pane's pump (the first viewer starts the node's
//! tail, so nothing printed from now on is missed); fit the pane to the smallest grid of the
//! viewers that take part in sizing (those that may type, unless they asked to stay out); read the replay from the pane (its grid comes with it — a pane that cannot
//! be read is a refusal, never a guessed size); then the socket task opens the subscription and
//! the pump broadcasts presence. A refusal after joining leaves the pump again, so a refused
//! attach leaves no tail running.

use std::sync::Arc;
use std::time::Duration;

use termplane_proto::SubshellId;
use termplane_proto::command::{Capture, Command, SCREEN_REPLAY, SubshellRef};

use super::dispatch::Dispatcher;
use super::typist::Typist;
use crate::error::ApiError;
use crate::link::LinkHub;
use crate::store;

mod grants;
pub mod pump;
pub use grants::Grants;

pub use pump::{Chunk, Pump, ViewerHandle, ViewerQueue};

/// How long an attach token is accepted (ms).
pub const ATTACH_TOKEN_LIFETIME_MS: i64 = 30_000;
/// Most attach tokens waiting to be used at once, across every replica on the database (older
/// ones are dropped first when full).
pub const MAX_PENDING_TOKENS: i64 = 10_000;
/// History lines a replay carries.
pub const REPLAY_HISTORY_LINES: u32 = 2_000;
/// Prefix of attach tokens (never accepted as a bearer credential).
pub const ATTACH_TOKEN_PREFIX: &str = "tpa_";

pub use crate::link::is_viewer_tail;

/// What minted a token; checked again when the token is presented.
#[derive(Clone, Debug)]
enum Minter {
    /// A browser session (the session's digest).
    Session(String),
    /// A bearer credential: a system key or a pane's token (its digest).
    Bearer(String),
}

#[derive(Clone, Debug)]
struct Grant {
    minter: Minter,
    subshell_id: Option<String>,
}

/// What a presented token allows on one pane.
#[derive(Clone, Debug)]
pub struct AttachGrant {
    /// The pane.
    pub row: store::Subshell,
    /// The acting account's id and display name.
    pub user_id: String,
    /// See `user_id`.
    pub display_name: String,
    /// Whether the viewer may type and resize.
    pub can_write: bool,
    /// Who types through it, for the pane's input marks.
    pub typer: crate::service::subshells::Typer,
    /// The token's minter, for [`Services::grant_still_valid`].
    minter: Minter,
}

/// What a presented token allows on the live feed.
#[derive(Clone, Debug)]
pub struct FeedGrant {
    /// The account.
    pub user_id: String,
    /// Whether it is an administrator's (it then sees every subshell and node).
    pub admin: bool,
    minter: Minter,
}

/// Most terminal sockets and live feeds one account holds open at once (its windows, its
/// scripts and its panes' attaches together): each may hold a viewer's queue of up to 1 MiB, so
/// what one account can make the plane keep stays bounded.
pub const MAX_SOCKETS_PER_ACCOUNT: usize = 256;
/// Most terminal sockets and live feeds open on the plane at once.
pub const MAX_SOCKETS: usize = 8192;

/// One open terminal socket or live feed, counted until dropped.
pub type OpenSocket = crate::slots::Slot;

/// The places for terminal sockets and live feeds: [`MAX_SOCKETS`], [`MAX_SOCKETS_PER_ACCOUNT`].
#[derive(Debug)]
struct SocketSlots(crate::slots::Slots);

impl Default for SocketSlots {
    fn default() -> Self {
        Self(crate::slots::Slots::new(
            MAX_SOCKETS,
            MAX_SOCKETS_PER_ACCOUNT,
        ))
    }
}

/// The terminals domain: the open sockets and their count, the
/// access-changed signal every open socket listens to, reading a pane's replay, and the output
/// pumps ([`pump::Pumps`]), and the executor the sockets run on. What needs a subshell's access
/// rules — minting and redeeming a token, re-checking a grant — is the [`Grants`] service's.
pub struct Terminals {
    /// Notified when a credential or an account changed (a sign-out, a password change that
    /// ended other sessions, an account disabled, deleted or demoted, a system key disabled or
    /// deleted): every open socket re-checks its grant at once instead of at its next
    /// periodic check.
    pub(crate) access: Arc<super::words::AccessSignal>,
    /// Terminal sockets and live feeds open now (upgraded), so a shutdown can wait for them
    /// to say goodbye (1001) before the plane exits.
    open_sockets: SocketSlots,
    pumps: Arc<pump::Pumps>,
    dispatcher: Arc<Dispatcher>,
    links: Arc<LinkHub>,
    typist: Arc<Typist>,
    /// The executor the terminal sockets run on (the HTTP server's), once it serves; weak, so
    /// that the server's shutdown still drops the tasks left on it.
    socket_executor: std::sync::OnceLock<std::sync::Weak<smol::Executor<'static>>>,
}

impl Terminals {
    /// No token and no socket yet; `access_changed` is shared with the domains that change
    /// access.
    #[must_use]
    pub fn new(
        access: Arc<super::words::AccessSignal>,
        pumps: Arc<pump::Pumps>,
        dispatcher: Arc<Dispatcher>,
        links: Arc<LinkHub>,
        typist: Arc<Typist>,
    ) -> Self {
        Self {
            access,
            open_sockets: SocketSlots::default(),
            pumps,
            dispatcher,
            links,
            typist,
            socket_executor: std::sync::OnceLock::new(),
        }
    }

    /// Attaches the executor the terminal sockets run on (the HTTP server's, once it serves).
    /// Only the first call takes effect.
    pub fn attach_socket_executor(&self, ex: &Arc<smol::Executor<'static>>) {
        let _ = self.socket_executor.set(Arc::downgrade(ex));
    }

    /// Whether an executor for the terminal sockets is attached and alive (the plane serves).
    #[must_use]
    pub fn serves_sockets(&self) -> bool {
        self.socket_executor
            .get()
            .is_some_and(|w| w.strong_count() > 0)
    }

    /// Runs `f` as a task beside the terminal sockets, on their executor's thread: work that
    /// feeds them (the local node's pane tails) then reaches a socket without a wake-up of
    /// another thread. Answers `f` back when no such executor is attached yet.
    pub fn spawn_beside_sockets<F>(&self, f: F) -> Result<(), F>
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        match self
            .socket_executor
            .get()
            .and_then(std::sync::Weak::upgrade)
        {
            Some(ex) => {
                ex.spawn(f).detach();
                Ok(())
            }
            None => Err(f),
        }
    }

    /// Runs `f` as a task beside the terminal sockets ([`Self::spawn_beside_sockets`]), or on
    /// the process's shared executor when the plane does not serve yet. What hands work to the
    /// sockets and the node links (the connections between replicas) runs there: a message
    /// then goes from one task to the next without waking another thread.
    pub fn spawn_or_detach<F>(&self, f: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        if let Err(f) = self.spawn_beside_sockets(f) {
            smol::spawn(f).detach();
        }
    }

    /// The output pumps.
    #[must_use]
    pub fn pumps(&self) -> &Arc<pump::Pumps> {
        &self.pumps
    }

    /// Counts one open terminal socket or live feed of `account` for as long as the answer
    /// lives; refused when the account holds [`MAX_SOCKETS_PER_ACCOUNT`] already (429
    /// `TOO_MANY_SOCKETS`) or the plane [`MAX_SOCKETS`] (503 `PLANE_BUSY`).
    pub fn socket_opened(&self, account: &str) -> Result<OpenSocket, ApiError> {
        self.open_sockets
            .0
            .take(account)
            .map_err(|full| match full {
                crate::slots::Full::All => ApiError::new(
                    503,
                    "PLANE_BUSY",
                    format!("the plane holds {MAX_SOCKETS} terminal sockets and live feeds open already; try again later"),
                ),
                crate::slots::Full::Key => ApiError::new(
                    429,
                    "TOO_MANY_SOCKETS",
                    format!("an account holds at most {MAX_SOCKETS_PER_ACCOUNT} terminal sockets and live feeds open at once; close some first"),
                ),
            })
    }

    /// How many terminal sockets and live feeds are open.
    fn open_socket_count(&self) -> usize {
        self.open_sockets.0.taken()
    }

    /// Closes every open terminal socket and live feed with 1001 ("the control plane is
    /// shutting down", once shutdown began: their next grant check says so) and waits until
    /// they are closed, at most `limit`; answers how many are still open.
    pub async fn close_sockets_for_shutdown(&self, limit: Duration) -> usize {
        self.access.here();
        crate::wait::within(limit, self.open_sockets.0.all_given_back()).await;
        self.open_socket_count()
    }

    /// Has every open terminal socket and live feed re-check its grant now: a credential or
    /// an account changed (the `access_changed` signal's cases).
    pub fn access_changed(&self) {
        self.access.changed();
    }

    /// A listener for [`Self::access_changed`].
    pub fn on_access_change(&self) -> event_listener::EventListener {
        self.access.listen()
    }

    /// 1001 once the plane began shutting down.
    fn still_serving(&self) -> Result<(), (u16, String)> {
        if self.links.is_shutting_down() {
            return Err((1001, "the control plane is shutting down".to_owned()));
        }
        Ok(())
    }

    /// Whether the node of a pane answers the full-screen replay.
    async fn node_replays_screens(&self, node_id: &str) -> bool {
        self.dispatcher.node_can(node_id, SCREEN_REPLAY).await
    }

    /// The replay of a pane and the log offset it stands for, with the pane's grid. A node
    /// without the `screen_replay` capability gets the plainer replay: its text with colours
    /// and the cursor.
    pub async fn read_replay(&self, row: &store::Subshell) -> Result<pump::Replay, ApiError> {
        let sid = SubshellId::parse(&row.id).map_err(|_| ApiError::internal())?;
        let gone = || ApiError::new(502, "PANE_UNREADABLE", "the pane could not be read");
        if self.node_replays_screens(&row.node_id).await {
            let r = self
                .dispatcher
                .node_command(
                    &row.node_id,
                    Command::Capture(Capture {
                        subshell_id: sid,
                        lines: Some(REPLAY_HISTORY_LINES),
                        replay: true,
                    }),
                )
                .await?;
            let d = super::dispatch::node_data(r)?;
            let bytes = d
                .get("replay_b64")
                .and_then(serde_json::Value::as_str)
                .and_then(|s| termplane_proto::key::b64url_decode(s).ok())
                .ok_or_else(gone)?;
            let num = |k: &str| d.get(k).and_then(serde_json::Value::as_u64);
            let (Some(cols), Some(rows)) = (num("cols"), num("rows")) else {
                return Err(gone());
            };
            return Ok(pump::Replay {
                bytes,
                log_offset: num("logOffset"),
                cols: u16::try_from(cols).map_err(|_| gone())?,
                rows: u16::try_from(rows).map_err(|_| gone())?,
            });
        }
        // An older node: the screen's text, then the cursor.
        let size = self
            .dispatcher
            .node_command(
                &row.node_id,
                Command::PaneSize(SubshellRef {
                    subshell_id: sid.clone(),
                }),
            )
            .await?;
        let size = super::dispatch::node_data(size)?;
        let num = |v: &serde_json::Value, k: &str| {
            v.get(k)
                .and_then(serde_json::Value::as_u64)
                .and_then(|n| u16::try_from(n).ok())
        };
        let (Some(cols), Some(rows)) = (num(&size, "cols"), num(&size, "rows")) else {
            return Err(gone());
        };
        let text = self
            .dispatcher
            .node_command(
                &row.node_id,
                Command::Capture(Capture {
                    subshell_id: sid.clone(),
                    lines: Some(REPLAY_HISTORY_LINES),
                    replay: false,
                }),
            )
            .await?;
        let text = super::dispatch::node_data(text)?;
        let cursor = self
            .dispatcher
            .node_command(
                &row.node_id,
                Command::PaneCursor(SubshellRef { subshell_id: sid }),
            )
            .await?;
        let cursor = super::dispatch::node_data(cursor)?;
        let mut bytes = b"\x1bc".to_vec();
        let body = text
            .get("text")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default();
        bytes.extend_from_slice(body.trim_end_matches('\n').replace('\n', "\r\n").as_bytes());
        if let (Some(x), Some(y)) = (num(&cursor, "x"), num(&cursor, "y")) {
            bytes.extend_from_slice(format!("\x1b[0m\x1b[{};{}H", y + 1, x + 1).as_bytes());
        }
        Ok(pump::Replay {
            bytes,
            log_offset: None,
            cols,
            rows,
        })
    }

    /// Whether the keys of a [`KeysTicket`] were typed, once the node's tmux has said so (the
    /// future is woken by its answer): `Err` with why not (the pane is gone).
    #[must_use]
    pub fn keys_typed(&self, ticket: KeysTicket) -> super::KeysTyped {
        self.dispatcher.local_keys_typed(ticket.0)
    }

    /// Types a viewer's `data` into a pane. On the plane's own host the keys go straight to
    /// tmux when nothing is queued before them, and this answers before tmux has said they were
    /// typed (a viewer's echo is their answer): a [`KeysTicket`] to wait on with
    /// [`Self::keys_typed`]. Elsewhere it answers once the node has typed them.
    pub async fn type_into_pane(
        &self,
        row: &store::Subshell,
        data: String,
    ) -> Result<Option<KeysTicket>, ApiError> {
        if data.is_empty() {
            return Ok(None);
        }
        let sid = SubshellId::parse(&row.id).map_err(|_| ApiError::internal())?;
        if let Some(t) = self
            .dispatcher
            .type_now_on_local_node(&row.node_id, &sid, &data)
            .await
        {
            return Ok(Some(KeysTicket(t)));
        }
        // In pieces, as the REST route types: a frame of up to 64 KiB, or several queued
        // together, can be more than one command carries once JSON escapes it.
        self.typist
            .type_into(&row.node_id, &sid, &data, &[])
            .await
            .map(|_| None)
    }
}

impl std::fmt::Debug for Terminals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminals").finish_non_exhaustive()
    }
}

/// Keys typed into a pane before the node said they were (see [`Terminals::type_into_pane`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeysTicket(u64);
