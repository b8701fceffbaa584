//! Live terminals: the attach token and the frames of the terminal WebSocket.
//!
//! # Attach tokens (`POST /api/auth/ws-token`)
//!
//! A terminal WebSocket never takes the caller's own credential: the caller first mints an
//! attach token, then opens `GET /api/subshells/{id}/attach?token=…` within 30 seconds. A token
//! opens one socket (it is spent by its first presentation, whether that attach succeeds or
//! not) and is held only in the plane's memory (a restart spends every token).
//!
//! * A browser session may mint an unbound token (it attaches wherever the user's own access
//!   reaches) or one bound to a subshell.
//! * A bearer must name a subshell and the token is bound to it. A system key may name any
//!   subshell; a pane's own token may name only its own.
//! * A bound token is refused on every other pane and on the whole-user live feed.
//! * A token dies with what minted it: a session signed out, a system key disabled or deleted,
//!   a pane token revoked — checked when the token is presented.
//!
//! # The socket
//!
//! Frames are described by [`ServerFrame`] and [`ClientFrame`] (text frames, JSON) and by
//! binary frames: from the plane, terminal bytes (the replay, then the live output); from the
//! client, keystrokes (UTF-8). The `/docs/terminal` page lists them with their close codes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::RowId;

/// `POST /api/auth/ws-token`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WsTokenRequest {
    /// The subshell the token is bound to. A browser session without it gets an unbound token;
    /// a bearer credential may not have one (403 `PERMISSION_DENIED`): it names the subshell.
    #[serde(default)]
    pub subshell_id: Option<RowId>,
}

/// A minted attach token.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WsToken {
    /// The token: pass it as the `token` query parameter of the attach URL,
    /// `GET /api/subshells/{id}/attach?token=…` (a WebSocket). The same query may carry `cols`
    /// and `rows` (the viewer's grid), `readOnly=true` (watch only), `sizing=false` (watch, and
    /// type, without resizing the pane for the other viewers) and `device` (`phone`, `tablet`
    /// or `desktop`, shown to the other viewers). Frames, close codes and how the pane's grid
    /// follows its viewers: `/docs/terminal`.
    pub token: String,
    /// When it stops being accepted (ms since the Unix epoch); 30 seconds after minting.
    pub expires_at: i64,
    /// The subshell it is bound to, if any.
    pub subshell_id: Option<String>,
}

/// Query of `GET /api/subshells/{id}/attach`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AttachQuery {
    /// The attach token.
    pub token: String,
    /// The viewer's grid, if it has one yet (1 to 1,000 each; both or neither).
    #[serde(default)]
    pub cols: Option<u16>,
    /// See `cols`.
    #[serde(default)]
    pub rows: Option<u16>,
    /// Watch only, even with the right to type.
    #[serde(default)]
    pub read_only: Option<bool>,
    /// Whether this viewer's grid takes part in the pane's size (default `true`). With `false`
    /// it watches (and may still type) without resizing the pane for everyone: the pane keeps
    /// the grid of the viewers that take part, and this viewer shows it as it is. A `sizing`
    /// frame changes it later.
    #[serde(default)]
    pub sizing: Option<bool>,
    /// What the viewer runs on, as it says, shown to the other viewers (so a notice can say
    /// whose phone holds the pane's size).
    #[serde(default)]
    pub device: Option<Device>,
}

/// What a viewer runs on, as the viewer says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Device {
    /// A phone.
    Phone,
    /// A tablet.
    Tablet,
    /// A computer with a keyboard.
    Desktop,
}

/// One viewer of a pane, as presence frames list them (and as the `viewers` table keeps it, for
/// the other replicas of a cluster).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Viewer {
    /// The viewer's number: unique among the pane's viewers (on a cluster, among every
    /// replica's).
    pub viewer_id: u64,
    /// The viewer's account.
    pub user_id: String,
    /// That account's display name.
    pub display_name: String,
    /// Whether it only watches.
    pub read_only: bool,
    /// Its grid, when it sent one.
    pub cols: Option<u16>,
    /// See `cols`.
    pub rows: Option<u16>,
    /// Whether its grid takes part in the pane's size: it may type and did not ask to watch
    /// without resizing the others (`sizing=false`). A viewer that takes part and has a grid
    /// holds the pane to at most that grid.
    pub sizing: bool,
    /// What it runs on, when it said.
    pub device: Option<Device>,
}

/// The grid the viewers that take part in sizing hold a pane to, and who holds it: the viewer
/// with the fewest columns and the one with the fewest rows (usually the same one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeldGrid {
    /// Columns: the fewest among the viewers that take part.
    pub cols: u16,
    /// Rows: the fewest among them.
    pub rows: u16,
    /// The viewer (`viewerId`) whose grid has those columns.
    pub cols_by: u64,
    /// The viewer whose grid has those rows.
    pub rows_by: u64,
}

/// A text frame from the plane.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerFrame {
    /// The first frame: the subscription is open; the replay follows as one binary frame.
    Attached {
        /// This viewer's number.
        #[serde(rename = "viewerId")]
        viewer_id: u64,
        /// The subshell.
        #[serde(rename = "subshellId")]
        subshell_id: String,
        /// Whether this viewer only watches (input and resize are refused).
        #[serde(rename = "readOnly")]
        read_only: bool,
        /// Whether this viewer's grid takes part in the pane's size (see `presence`).
        sizing: bool,
        /// The pane's grid as read from the pane (never a guess).
        cols: u16,
        /// See `cols`.
        rows: u16,
    },
    /// The shared grid changed (the smallest of the grids of the viewers that take part in
    /// sizing).
    Size {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
    },
    /// Who is attached to the pane now, with each viewer's grid and whether it takes part in
    /// sizing; sent when a viewer comes or goes and when one's grid or sizing changes.
    Presence {
        /// Every viewer.
        viewers: Vec<Viewer>,
        /// The grid the viewers that take part in sizing hold the pane to, and who holds it;
        /// `null` when none of them has a grid (the pane then keeps the grid it has).
        held: Option<HeldGrid>,
    },
    /// The viewer's screen cannot be continued from where it is: a fresh replay follows as one
    /// binary frame and replaces the screen.
    Resync {
        /// Why, in words: `the viewer fell behind the pane's output` (its queue of 1 MiB
        /// filled; a sixth within a minute closes the socket with 4408 instead), `output was
        /// lost on the way from the node`, or `the node's link came back` (neither counts
        /// against the viewer).
        reason: String,
    },
    /// The answer to a `ping`.
    Pong,
    /// A frame of this viewer was refused; the socket stays open (keys the plane refuses as
    /// the socket closes come just before its close frame).
    Error {
        /// Machine-readable: `READ_ONLY`, `BAD_FRAME`, `INPUT_FAILED`, `RESIZE_FAILED`.
        code: String,
        /// Prose.
        message: String,
    },
    /// The pane's program ended; the socket closes with 1000 next (after one `error`
    /// `INPUT_FAILED` for keys the plane still held, if any).
    Exit {
        /// Its exit code, when known.
        #[serde(rename = "exitCode")]
        exit_code: Option<i32>,
    },
}

/// A text frame from the client. (Keystrokes may also come as binary frames.)
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientFrame {
    /// Keystrokes or a paste, as a terminal sends them.
    Input {
        /// The text (escape sequences included).
        data: String,
    },
    /// This viewer's grid changed.
    Resize {
        /// Columns (1 to 1,000).
        cols: u16,
        /// Rows (1 to 1,000).
        rows: u16,
    },
    /// Whether this viewer's grid takes part in the pane's size from now on (as the attach
    /// query's `sizing`). Refused (`READ_ONLY`) to a viewer that only watches: it never does.
    Sizing {
        /// `false`: watch (and type) without resizing the pane for the others.
        on: bool,
    },
    /// Keepalive; answered with `pong`. (A struct variant: a `ping` with other fields is not
    /// a known frame, as for every other frame.)
    Ping {},
}

/// What becomes of keystrokes, as HTML for the `/docs/terminal` page: the same on a pane of the
/// plane's own host and on a remote node's.
pub const KEYSTROKES_HTML: &str = "Keystrokes are typed into the pane in the order the socket \
    received them. Every keystroke frame the plane has read is either typed or refused to the \
    socket that sent it with an <code>error</code> frame <code>INPUT_FAILED</code>, before that \
    socket's close frame; none is dropped without a word. A client that sends keys and closes \
    at once (its close frame, or a frame that ends the socket) has them all typed before the \
    plane answers its close, for at most 10 seconds (what is left then is not typed; a refusal \
    cannot follow the client's own close frame). Keys that reach the pane after its program \
    ended are refused, whether the node has noticed the end yet or not; keys the plane still \
    held when it noticed are refused in one <code>INPUT_FAILED</code>, then <code>exit</code> \
    and the close (1000) follow. When the plane closes the socket because access ended (4403, \
    4404) or it stops (1001), keys not on their way to the node yet are refused the same way. \
    Frames sent after the plane's close frame are not read.";

/// How a pane's grid follows its viewers, as HTML for the `/docs/terminal` page.
pub const SIZING_HTML: &str = "Every viewer that may type takes part in the pane's size unless \
    it asks not to: the pane takes the smallest grid among those that take part and gave one \
    (<code>cols</code>/<code>rows</code> in the query, then <code>resize</code> frames). A \
    viewer attached with <code>&amp;sizing=false</code>, or after it sent \
    <code>{\"type\":\"sizing\",\"on\":false}</code>, watches (and may still type) without \
    resizing the pane for the others: it shows the pane's grid as it is. Viewers that only \
    watch (<code>readOnly</code>) never take part. Every <code>presence</code> frame lists each \
    viewer's grid, whether it takes part (<code>sizing</code>) and what it runs on \
    (<code>device</code>, as it said with <code>&amp;device=phone</code>, <code>tablet</code> \
    or <code>desktop</code>), and names who holds the grid (<code>held</code>: the viewer with \
    the fewest columns and the one with the fewest rows), so a larger viewer can say whose \
    window the pane is sized to. On a cluster of planes the viewers are the pane's at every \
    replica: presence lists them all and the grid is the smallest of all of theirs, whichever \
    replica each is attached at. The browser app attaches a phone or tablet out of sizing until \
    its person types on it, unless they chose otherwise on that device (\"Don't resize \
    others\").";

/// Close codes of the terminal WebSocket.
pub const CLOSE_CODES: &[(u16, &str)] = &[
    (
        1000,
        "the pane's program ended (an `exit` frame came first)",
    ),
    (1001, "the control plane is shutting down"),
    (1003, "a binary frame that is not UTF-8"),
    (1007, "a text frame that is not UTF-8"),
    (1009, "a frame above 64 KiB"),
    (4400, "a text frame that is not a known frame"),
    (
        4403,
        "access ended: the share was revoked, or what minted the token was",
    ),
    (4404, "the subshell was deleted"),
    (4408, "the viewer fell behind too often to resynchronise"),
    (
        4502,
        "the pane could not be read (its node is offline or answered an error)",
    ),
];

/// Access a share gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShareAccess {
    /// Watch the pane (attach read-only; read its row, screen and logs).
    Read,
    /// Also type into it and resize it through the terminal. Typing is full control of the
    /// pane, and through the token it can be made to print, of whatever that token reaches
    /// (with the default ceiling, every subshell of its owner to read): see
    /// `PUT /api/subshells/{id}/shares/{userId}` in the reference.
    Write,
}

impl ShareAccess {
    /// The stored spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
        }
    }
}

/// `PUT /api/subshells/{id}/shares/{userId}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShareRequest {
    /// What the account may do.
    pub access: ShareAccess,
}

/// Path of the share routes.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShareParams {
    /// The subshell.
    pub id: RowId,
    /// The account.
    #[serde(rename = "userId")]
    pub user_id: RowId,
}

/// One share of a subshell.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Share {
    /// The subshell.
    pub subshell_id: String,
    /// The account it is shared with.
    pub user_id: String,
    /// What that account may do.
    pub access: ShareAccess,
    /// Who granted it.
    pub granted_by: String,
    /// When it was granted (ms since the Unix epoch).
    pub created_at: i64,
    /// When its access last changed.
    pub updated_at: i64,
}

/// A text frame of the whole-user live feed (`GET /api/live?token=…`), from the plane.
///
/// The feed carries what changes on everything the account can see: its subshells (all of them
/// for an administrator) and those shared with it, the nodes it can see, and who is attached to
/// those panes. A client lists once over REST, then applies these frames. When the feed closes
/// (4408: the client fell behind; 4403: its session ended or its account's role changed; 1001:
/// the plane stops; 1007, 1009, 4400: the client sent a text frame that is not UTF-8, is above
/// 64 KiB, or is not a known frame) the client lists again.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FeedFrame {
    /// The first frame.
    Hello {
        /// The account the feed is for.
        #[serde(rename = "userId")]
        user_id: String,
    },
    /// A subshell's row changed (state, attention, session, grid…): its whole view.
    Subshell {
        /// The subshell as `GET /api/subshells/{id}` shows it.
        subshell: Box<super::subshells::Subshell>,
    },
    /// A subshell was deleted (or is no longer shared with this account).
    SubshellGone {
        /// Its id.
        #[serde(rename = "subshellId")]
        subshell_id: String,
    },
    /// A node went online or offline.
    Node {
        /// The node.
        #[serde(rename = "nodeId")]
        node_id: String,
        /// `online` or `offline`.
        liveness: String,
    },
    /// The viewers of a pane changed; also sent right after `hello` for every pane someone
    /// watches already.
    Presence {
        /// The pane.
        #[serde(rename = "subshellId")]
        subshell_id: String,
        /// Who is attached.
        viewers: Vec<Viewer>,
    },
    /// A notification for this account was stored (it is in `GET /api/notifications`).
    Notification {
        /// The notification.
        notification: Box<super::notifications::Notification>,
    },
    /// A new entry in a channel this account can read (read it with
    /// `GET /api/channels/{channelId}/entries?after=<seq - 1>`).
    ChannelEntry {
        /// The channel.
        #[serde(rename = "channelId")]
        channel_id: String,
        /// The entry's `seq`.
        seq: i64,
        /// The entry's hash.
        hash: String,
    },
    /// The answer to a `ping`.
    Pong,
}
