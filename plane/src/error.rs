//! The error body every failed REST request answers with, and the codes the plane uses.
//!
//! | status | code | when |
//! |---|---|---|
//! | 400 | `INPUT_VALIDATION_ERROR` | a body or parameter failed validation (`metadata.field` names it) |
//! | 400 | `BAD_REQUEST` | a request the server cannot read: a malformed head, path, framing or body encoding |
//! | 400 | `WEBSOCKET_UPGRADE_REQUIRED` | a request to a WebSocket endpoint (`/ws/node`, a terminal attach, the live feed) that is not an HTTP/1.1 WebSocket upgrade |
//! | 401 | `UNAUTHENTICATED` | no credential where one is required |
//! | 401 | `AUTH_HEADER_INVALID` | an `Authorization` header that is not exactly one `Bearer <token>` |
//! | 401 | `INVALID_CREDENTIAL` | an unknown, disabled or malformed bearer credential or session |
//! | 401 | `NODE_KEY_NOT_ACCEPTED` | a node key presented to REST (it only opens `/ws/node`) |
//! | 401 | `NODE_KEY_MISSING` | a `/ws/node` upgrade without a bearer node key |
//! | 401 | `NODE_KEY_INVALID` | a `/ws/node` upgrade with a malformed or unknown node key (a rotated key, a deleted node's) |
//! | 401 | `NODE_KEY_WRONG_KIND` | a `/ws/node` upgrade with another kind of credential (a system key, a setup key, a pane's token) |
//! | 401 | `NODE_KEY_DISABLED` | a `/ws/node` upgrade with a disabled node key |
//! | 401 | `ATTACH_TOKEN_INVALID` | a terminal attach with an unknown, spent or expired attach token, or one whose minter is no longer valid |
//! | 401 | `INVALID_CREDENTIALS` | password or passkey sign-in failed (unknown and known accounts alike) |
//! | 401 | `SETUP_KEY_INVALID` | enrollment with an unknown or malformed setup key |
//! | 401 | `SETUP_KEY_EXPIRED` | enrollment with a setup key older than 24 hours |
//! | 401 | `SETUP_KEY_REVOKED` | enrollment with a revoked setup key |
//! | 409 | `SETUP_KEY_SPENT` | enrollment with a setup key that was already used |
//! | 409 | `SETUP_KEY_NOT_REVOCABLE` | revoking a setup key that is already used or revoked |
//! | 403 | `NODE_KEY_UNBOUND` | a `/ws/node` upgrade with a node key no longer bound to its row |
//! | 403 | `BEARER_NOT_ALLOWED` | a bearer credential on an admin surface or a cookie-only route |
//! | 403 | `ADMIN_REQUIRED` | a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators) |
//! | 403 | `SYSTEM_KEY_REQUIRED` | `GET /metrics` on the main address with a credential that is not a system key |
//! | 403 | `PANE_TOKEN_NOT_ALLOWED` | a subshell's token where only a person or a script may act |
//! | 403 | `PERMISSION_DENIED` | a subshell's token acting beyond its permission map |
//! | 403 | `ATTACH_TOKEN_BOUND` | an attach token bound to another subshell (or presented to the live feed) |
//! | 403 | `NOT_OWN_SUBSHELL` | a report for a subshell made with another subshell's token or another credential |
//! | 403 | `NODE_NOT_ALLOWED` | launching on a node the credential may not use |
//! | 403 | `ORIGIN_REJECTED` | a browser-style state-changing request from an untrusted or missing Origin |
//! | 403 | `LOCAL_NODE` | a write the local node does not support (delete, key rotation, maintenance, system access, update) |
//! | 404 | `NOT_FOUND` | no such route or row |
//! | 405 | `METHOD_NOT_ALLOWED` | the route exists for other methods (`Allow` lists them) |
//! | 408 | `REQUEST_TIMEOUT` | a request head or body that did not arrive in time (the connection closes) |
//! | 409 | `SETUP_ALREADY_DONE` | `POST /api/setup` once the first account exists |
//! | 409 | `EMAIL_TAKEN` | creating an account whose email exists |
//! | 409 | `CANNOT_DISABLE_SELF` | an administrator disabling, deleting or resetting the password of their own account |
//! | 409 | `LAST_ADMIN` | demoting or deleting the last enabled administrator |
//! | 409 | `NODE_HAS_LIVE_SUBSHELLS` | deleting a node on which subshells still run (`metadata.live`: how many; `metadata.subshells`: their `id` and `name`) |
//! | 409 | `USER_HAS_LIVE_SUBSHELLS` | deleting an account whose subshells still run (`metadata.live`: how many; `metadata.subshells`: their `id` and `name`) |
//! | 403 | `CURRENT_PASSWORD_WRONG` | a password change whose current password is wrong |
//! | 409 | `NODE_OFFLINE` | a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`) |
//! | 409 | `PLUGIN_DISABLED` | launching a harness whose plugin an administrator turned off |
//! | 409 | `HARNESS_NOT_INSTALLED` | launching a harness the node's fresh detection did not find (`metadata.reason`) |
//! | 409 | `INVALID_STATE` | a lifecycle move the subshell's state does not allow; an upload's piece or cancel while another replica writes a piece of it |
//! | 409 | `SUBSHELL_NOT_RUNNING` | reading the screen of, typing into or resizing a subshell that is not live, or reporting its agent's state |
//! | 409 | `STALE_REPORT` | an agent state report whose `observedAt` is older than the newest recorded for the pane (`metadata.latestObservedAt`) |
//! | 409 | `GRID_HELD` | resizing a pane whose grid follows the viewers attached to it that take part in sizing (the smallest of their grids; `metadata.cols`, `metadata.rows`: the grid it keeps) |
//! | 409 | `UPLOAD_EXISTS` | an upload to a file that exists (without `overwrite`) or is being uploaded |
//! | 409 | `UPLOADS_BUSY` | too many uploads in progress on the plane at once (64 of each kind); try again shortly |
//! | 409 | `QUOTA_EXCEEDED` | a file an account would keep past its 1 GiB of kept files |
//! | 409 | `UPLOAD_ABANDONED` | an upload piece out of order or of the wrong size: the upload was abandoned, nothing left behind |
//! | 409 | `NODE_REFUSED` | the node refused a command (`metadata.reason` holds its words) |
//! | 409 | `RECORDING_UNSUPPORTED` | a recording asked of a pane whose node does not record (its version does not advertise `recording`): update the node |
//! | 409 | `REFERENCE_MISMATCH` | a request naming rows that do not fit together (`metadata.field`: a preset for another harness, a workspace on another node) |
//! | 413 | `PAYLOAD_TOO_LARGE` | a request body over the limit |
//! | 413 | `COMMAND_TOO_LARGE` | a node command that would not fit the link's 64 KiB envelope |
//! | 413 | `RECORDING_TOO_LARGE` | an export of a recording whose log or timing is over 16 MiB (`metadata.bytes`, `metadata.maxBytes`) |
//! | 414 | `URI_TOO_LONG` | a request target over 8 KiB |
//! | 417 | `EXPECTATION_FAILED` | an `Expect` other than `100-continue` |
//! | 429 | `TOO_MANY_ATTEMPTS` | sign-in, enrollment or node-key backoff in force (`Retry-After` and `metadata.retryAfterMs`) |
//! | 429 | `TOO_MANY_REPORTS` | a pane reporting its agent's state or attention past its budget: 30 at once, then 5 a second (`Retry-After` and `metadata.retryAfterMs`) |
//! | 429 | `TOO_MANY_SOCKETS` | a WebSocket upgrade past a holder's limit: an account holds at most 256 terminal sockets and live feeds open at once, a node 4 link sockets, the nodes of one account 512 |
//! | 404 | `PASSKEY_CEREMONY_INVALID` | a passkey ceremony that is unknown, expired (5 minutes), already finished or another account's |
//! | 400 | `PASSKEY_REJECTED` | the browser's passkey answer did not verify (`metadata.reason`) |
//! | 409 | `PASSKEY_EXISTS` | that authenticator's passkey is already registered |
//! | 409 | `NETWORK_BIND_FAILED` | a network plugin whose address the plane cannot listen on (`metadata.reason`) |
//! | 409 | `DEVICE_LIMIT` | an account registers at most 10 push devices |
//! | 409 | `PASSKEY_LIMIT` | an account holds at most 20 passkeys |
//! | 409 | `PASSKEYS_UNAVAILABLE` | the plane is addressed by an IP address (`APP_BASE_URL`); a passkey needs a host name |
//! | 400 | `SIGNATURE_INVALID` | a signature that does not verify with its identity's key: an identity's proof or a channel entry |
//! | 403 | `IDENTITY_NOT_YOURS` | signing with, or revoking, an identity the caller does not hold (a pane holds only the ones its token registered) |
//! | 409 | `IDENTITY_EXISTS` | registering a public key that is registered already |
//! | 409 | `IDENTITY_REVOKED` | posting with a revoked identity |
//! | 409 | `CHANNEL_HEAD_MOVED` | an entry whose `seq` and `prev` are not the channel's head + 1 (`metadata.head` is the current head; sign again) |
//! | 409 | `CHANNEL_LIMIT` | an account owns at most 1,000 channels |
//! | 409 | `IDENTITY_LIMIT` | an account holds at most 1,000 live identities, or a pane's token registered its 8 |
//! | 431 | `HEADERS_TOO_LARGE` | a request head over 16 KiB or 64 fields |
//! | 422 | `LAUNCH_REFUSED` | the node refused a launch (`metadata.reason`); nothing is left behind |
//! | 500 | `INTERNAL_ERROR` | a server fault, including a panic in a handler |
//! | 501 | `NOT_IMPLEMENTED` | a method or transfer coding the server does not implement |
//! | 502 | `NODE_LINK_CLOSED` | the node's socket closed before the command's result arrived |
//! | 502 | `NODE_BAD_RESULT` | the node answered with a malformed result |
//! | 502 | `PANE_UNREADABLE` | a terminal attach to a pane whose screen could not be read |
//! | 503 | `SHUTTING_DOWN` | a WebSocket upgrade (node link, terminal, live feed) while the plane shuts down |
//! | 503 | `DATABASE_UNAVAILABLE` | no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After` |
//! | 503 | `PLANE_BUSY` | a WebSocket upgrade while the plane holds as many as it serves: 8,192 terminal sockets and live feeds (4,096 live feeds), 2,048 node sockets |
//! | 504 | `NODE_TIMEOUT` | no result within the command deadline (10 s; 5 min for `update`) |
//! | 505 | `HTTP_VERSION_NOT_SUPPORTED` | an HTTP version other than 1.0 and 1.1 |
//! | 507 | `STORAGE_FULL` | the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again |
//!
//! [`CODES`] holds the same table for the API reference; a test keeps the two identical.

use serde::Serialize;
use serde_json::Value;

/// Every error code the plane answers with: `(status, code, when)`, as in the module table.
pub const CODES: &[(u16, &str, &str)] = &[
    (
        400,
        "INPUT_VALIDATION_ERROR",
        "a body or parameter failed validation (`metadata.field` names it)",
    ),
    (
        400,
        "BAD_REQUEST",
        "a request the server cannot read: a malformed head, path, framing or body encoding",
    ),
    (
        400,
        "WEBSOCKET_UPGRADE_REQUIRED",
        "a request to a WebSocket endpoint (`/ws/node`, a terminal attach, the live feed) that is not an HTTP/1.1 WebSocket upgrade",
    ),
    (
        401,
        "UNAUTHENTICATED",
        "no credential where one is required",
    ),
    (
        401,
        "AUTH_HEADER_INVALID",
        "an `Authorization` header that is not exactly one `Bearer <token>`",
    ),
    (
        401,
        "INVALID_CREDENTIAL",
        "an unknown, disabled or malformed bearer credential or session",
    ),
    (
        401,
        "NODE_KEY_NOT_ACCEPTED",
        "a node key presented to REST (it only opens `/ws/node`)",
    ),
    (
        401,
        "NODE_KEY_MISSING",
        "a `/ws/node` upgrade without a bearer node key",
    ),
    (
        401,
        "NODE_KEY_INVALID",
        "a `/ws/node` upgrade with a malformed or unknown node key (a rotated key, a deleted node's)",
    ),
    (
        401,
        "NODE_KEY_WRONG_KIND",
        "a `/ws/node` upgrade with another kind of credential (a system key, a setup key, a pane's token)",
    ),
    (
        401,
        "NODE_KEY_DISABLED",
        "a `/ws/node` upgrade with a disabled node key",
    ),
    (
        401,
        "ATTACH_TOKEN_INVALID",
        "a terminal attach with an unknown, spent or expired attach token, or one whose minter is no longer valid",
    ),
    (
        401,
        "INVALID_CREDENTIALS",
        "password or passkey sign-in failed (unknown and known accounts alike)",
    ),
    (
        401,
        "SETUP_KEY_INVALID",
        "enrollment with an unknown or malformed setup key",
    ),
    (
        401,
        "SETUP_KEY_EXPIRED",
        "enrollment with a setup key older than 24 hours",
    ),
    (
        401,
        "SETUP_KEY_REVOKED",
        "enrollment with a revoked setup key",
    ),
    (
        409,
        "SETUP_KEY_SPENT",
        "enrollment with a setup key that was already used",
    ),
    (
        409,
        "SETUP_KEY_NOT_REVOCABLE",
        "revoking a setup key that is already used or revoked",
    ),
    (
        403,
        "NODE_KEY_UNBOUND",
        "a `/ws/node` upgrade with a node key no longer bound to its row",
    ),
    (
        403,
        "BEARER_NOT_ALLOWED",
        "a bearer credential on an admin surface or a cookie-only route",
    ),
    (
        403,
        "ADMIN_REQUIRED",
        "a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)",
    ),
    (
        403,
        "SYSTEM_KEY_REQUIRED",
        "`GET /metrics` on the main address with a credential that is not a system key",
    ),
    (
        403,
        "PANE_TOKEN_NOT_ALLOWED",
        "a subshell's token where only a person or a script may act",
    ),
    (
        403,
        "PERMISSION_DENIED",
        "a subshell's token acting beyond its permission map",
    ),
    (
        403,
        "ATTACH_TOKEN_BOUND",
        "an attach token bound to another subshell (or presented to the live feed)",
    ),
    (
        403,
        "NOT_OWN_SUBSHELL",
        "a report for a subshell made with another subshell's token or another credential",
    ),
    (
        403,
        "NODE_NOT_ALLOWED",
        "launching on a node the credential may not use",
    ),
    (
        403,
        "ORIGIN_REJECTED",
        "a browser-style state-changing request from an untrusted or missing Origin",
    ),
    (
        403,
        "LOCAL_NODE",
        "a write the local node does not support (delete, key rotation, maintenance, system access, update)",
    ),
    (404, "NOT_FOUND", "no such route or row"),
    (
        405,
        "METHOD_NOT_ALLOWED",
        "the route exists for other methods (`Allow` lists them)",
    ),
    (
        408,
        "REQUEST_TIMEOUT",
        "a request head or body that did not arrive in time (the connection closes)",
    ),
    (
        409,
        "SETUP_ALREADY_DONE",
        "`POST /api/setup` once the first account exists",
    ),
    (409, "EMAIL_TAKEN", "creating an account whose email exists"),
    (
        409,
        "CANNOT_DISABLE_SELF",
        "an administrator disabling, deleting or resetting the password of their own account",
    ),
    (
        409,
        "LAST_ADMIN",
        "demoting or deleting the last enabled administrator",
    ),
    (
        409,
        "NODE_HAS_LIVE_SUBSHELLS",
        "deleting a node on which subshells still run (`metadata.live`: how many; `metadata.subshells`: their `id` and `name`)",
    ),
    (
        409,
        "USER_HAS_LIVE_SUBSHELLS",
        "deleting an account whose subshells still run (`metadata.live`: how many; `metadata.subshells`: their `id` and `name`)",
    ),
    (
        403,
        "CURRENT_PASSWORD_WRONG",
        "a password change whose current password is wrong",
    ),
    (
        409,
        "NODE_OFFLINE",
        "a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)",
    ),
    (
        409,
        "PLUGIN_DISABLED",
        "launching a harness whose plugin an administrator turned off",
    ),
    (
        409,
        "HARNESS_NOT_INSTALLED",
        "launching a harness the node's fresh detection did not find (`metadata.reason`)",
    ),
    (
        409,
        "INVALID_STATE",
        "a lifecycle move the subshell's state does not allow; an upload's piece or cancel while another replica writes a piece of it",
    ),
    (
        409,
        "SUBSHELL_NOT_RUNNING",
        "reading the screen of, typing into or resizing a subshell that is not live, or reporting its agent's state",
    ),
    (
        409,
        "STALE_REPORT",
        "an agent state report whose `observedAt` is older than the newest recorded for the pane (`metadata.latestObservedAt`)",
    ),
    (
        409,
        "GRID_HELD",
        "resizing a pane whose grid follows the viewers attached to it that take part in sizing (the smallest of their grids; `metadata.cols`, `metadata.rows`: the grid it keeps)",
    ),
    (
        409,
        "UPLOAD_EXISTS",
        "an upload to a file that exists (without `overwrite`) or is being uploaded",
    ),
    (
        409,
        "UPLOADS_BUSY",
        "too many uploads in progress on the plane at once (64 of each kind); try again shortly",
    ),
    (
        409,
        "QUOTA_EXCEEDED",
        "a file an account would keep past its 1 GiB of kept files",
    ),
    (
        409,
        "UPLOAD_ABANDONED",
        "an upload piece out of order or of the wrong size: the upload was abandoned, nothing left behind",
    ),
    (
        409,
        "NODE_REFUSED",
        "the node refused a command (`metadata.reason` holds its words)",
    ),
    (
        409,
        "RECORDING_UNSUPPORTED",
        "a recording asked of a pane whose node does not record (its version does not advertise `recording`): update the node",
    ),
    (
        409,
        "REFERENCE_MISMATCH",
        "a request naming rows that do not fit together (`metadata.field`: a preset for another harness, a workspace on another node)",
    ),
    (413, "PAYLOAD_TOO_LARGE", "a request body over the limit"),
    (
        413,
        "COMMAND_TOO_LARGE",
        "a node command that would not fit the link's 64 KiB envelope",
    ),
    (
        413,
        "RECORDING_TOO_LARGE",
        "an export of a recording whose log or timing is over 16 MiB (`metadata.bytes`, `metadata.maxBytes`)",
    ),
    (414, "URI_TOO_LONG", "a request target over 8 KiB"),
    (
        417,
        "EXPECTATION_FAILED",
        "an `Expect` other than `100-continue`",
    ),
    (
        429,
        "TOO_MANY_ATTEMPTS",
        "sign-in, enrollment or node-key backoff in force (`Retry-After` and `metadata.retryAfterMs`)",
    ),
    (
        429,
        "TOO_MANY_REPORTS",
        "a pane reporting its agent's state or attention past its budget: 30 at once, then 5 a second (`Retry-After` and `metadata.retryAfterMs`)",
    ),
    (
        429,
        "TOO_MANY_SOCKETS",
        "a WebSocket upgrade past a holder's limit: an account holds at most 256 terminal sockets and live feeds open at once, a node 4 link sockets, the nodes of one account 512",
    ),
    (
        404,
        "PASSKEY_CEREMONY_INVALID",
        "a passkey ceremony that is unknown, expired (5 minutes), already finished or another account's",
    ),
    (
        400,
        "PASSKEY_REJECTED",
        "the browser's passkey answer did not verify (`metadata.reason`)",
    ),
    (
        409,
        "PASSKEY_EXISTS",
        "that authenticator's passkey is already registered",
    ),
    (
        409,
        "NETWORK_BIND_FAILED",
        "a network plugin whose address the plane cannot listen on (`metadata.reason`)",
    ),
    (
        409,
        "DEVICE_LIMIT",
        "an account registers at most 10 push devices",
    ),
    (409, "PASSKEY_LIMIT", "an account holds at most 20 passkeys"),
    (
        409,
        "PASSKEYS_UNAVAILABLE",
        "the plane is addressed by an IP address (`APP_BASE_URL`); a passkey needs a host name",
    ),
    (
        400,
        "SIGNATURE_INVALID",
        "a signature that does not verify with its identity's key: an identity's proof or a channel entry",
    ),
    (
        403,
        "IDENTITY_NOT_YOURS",
        "signing with, or revoking, an identity the caller does not hold (a pane holds only the ones its token registered)",
    ),
    (
        409,
        "IDENTITY_EXISTS",
        "registering a public key that is registered already",
    ),
    (409, "IDENTITY_REVOKED", "posting with a revoked identity"),
    (
        409,
        "CHANNEL_HEAD_MOVED",
        "an entry whose `seq` and `prev` are not the channel's head + 1 (`metadata.head` is the current head; sign again)",
    ),
    (
        409,
        "CHANNEL_LIMIT",
        "an account owns at most 1,000 channels",
    ),
    (
        409,
        "IDENTITY_LIMIT",
        "an account holds at most 1,000 live identities, or a pane's token registered its 8",
    ),
    (
        431,
        "HEADERS_TOO_LARGE",
        "a request head over 16 KiB or 64 fields",
    ),
    (
        422,
        "LAUNCH_REFUSED",
        "the node refused a launch (`metadata.reason`); nothing is left behind",
    ),
    (
        500,
        "INTERNAL_ERROR",
        "a server fault, including a panic in a handler",
    ),
    (
        501,
        "NOT_IMPLEMENTED",
        "a method or transfer coding the server does not implement",
    ),
    (
        502,
        "NODE_LINK_CLOSED",
        "the node's socket closed before the command's result arrived",
    ),
    (
        502,
        "NODE_BAD_RESULT",
        "the node answered with a malformed result",
    ),
    (
        502,
        "PANE_UNREADABLE",
        "a terminal attach to a pane whose screen could not be read",
    ),
    (
        503,
        "SHUTTING_DOWN",
        "a WebSocket upgrade (node link, terminal, live feed) while the plane shuts down",
    ),
    (
        503,
        "DATABASE_UNAVAILABLE",
        "no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`",
    ),
    (
        503,
        "PLANE_BUSY",
        "a WebSocket upgrade while the plane holds as many as it serves: 8,192 terminal sockets and live feeds (4,096 live feeds), 2,048 node sockets",
    ),
    (
        504,
        "NODE_TIMEOUT",
        "no result within the command deadline (10 s; 5 min for `update`)",
    ),
    (
        505,
        "HTTP_VERSION_NOT_SUPPORTED",
        "an HTTP version other than 1.0 and 1.1",
    ),
    (
        507,
        "STORAGE_FULL",
        "the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again",
    ),
];

/// The status and description of a known code.
#[must_use]
pub fn code_info(code: &str) -> Option<(u16, &'static str)> {
    CODES
        .iter()
        .find(|(_, c, _)| *c == code)
        .map(|(s, _, when)| (*s, *when))
}

/// The catalogue's own spelling of `code`, if it is one of its codes (a code read from
/// elsewhere — another replica's answer — becomes the catalogue's).
#[must_use]
pub fn known_code(code: &str) -> Option<&'static str> {
    CODES
        .iter()
        .find(|(_, c, _)| *c == code)
        .map(|(_, c, _)| *c)
}

/// A refusal, as the service layer reports it; the HTTP adapter renders it as the error body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: u16,
    /// Machine-readable code.
    pub code: &'static str,
    /// Prose; may change.
    pub message: String,
    /// Extra facts (`field` for validation errors).
    pub metadata: Option<Value>,
}

impl ApiError {
    /// A refusal with no metadata.
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            metadata: None,
        }
    }

    /// 400 `INPUT_VALIDATION_ERROR` naming `field`.
    pub fn validation(field: &str, message: impl Into<String>) -> Self {
        Self::new(400, "INPUT_VALIDATION_ERROR", message)
            .with_metadata(serde_json::json!({ "field": field }))
    }

    /// 404 `NOT_FOUND`.
    pub fn not_found(what: &str) -> Self {
        Self::new(404, "NOT_FOUND", format!("{what} not found"))
    }

    /// 500 `INTERNAL_ERROR` (the cause is logged, never sent).
    pub fn internal() -> Self {
        Self::new(500, "INTERNAL_ERROR", "internal server error")
    }

    /// 507 `STORAGE_FULL`: a write the request needed found the disk full. What the request
    /// began is undone by its caller (a transaction rolled back, a partial file removed), so
    /// the same request succeeds once space is freed.
    pub fn storage_full() -> Self {
        Self::new(
            507,
            "STORAGE_FULL",
            "the control plane's disk is full; nothing was changed: free space on its host and try again",
        )
    }

    /// The answer to a failed file-system call: [`Self::storage_full`] when the disk or a
    /// quota on it is full, else [`Self::internal`]. The cause is logged either way.
    pub fn from_io(e: &std::io::Error, what: &str) -> Self {
        if is_disk_full(e) {
            tracing::warn!(error = %e, what, "the disk is full");
            Self::storage_full()
        } else {
            tracing::error!(error = %e, what, "file system call failed");
            Self::internal()
        }
    }

    /// Attaches metadata.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Value) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// The body for this error with a fresh `errId`.
    #[must_use]
    pub fn body(&self, err_id: String, req_id: Option<String>) -> ErrorBody {
        ErrorBody {
            err_id,
            code: self.code.to_owned(),
            message: self.message.clone(),
            status_code: self.status,
            req_id,
            metadata: self.metadata.clone(),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status, self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

/// Whether a file-system error says the disk, or a quota on it, is full.
#[must_use]
pub fn is_disk_full(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}

/// Whether a database error says its storage is full: SQLite's `SQLITE_FULL` (13, with any
/// extended code), PostgreSQL's `disk_full` (53100), or a file-system error saying so.
#[must_use]
pub fn is_database_full(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(io) => is_disk_full(io),
        sqlx::Error::Database(d) => match d.code() {
            Some(code) if code == "53100" => true,
            Some(code) => code.parse::<i64>().is_ok_and(|n| n & 0xff == 13),
            None => false,
        },
        _ => false,
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        if is_database_full(&e) {
            tracing::warn!(error = %e, "the database's disk is full");
            return Self::storage_full();
        }
        if matches!(e, sqlx::Error::PoolTimedOut) {
            // No connection could be had in time: PostgreSQL down or restarting, or SQLite
            // unable to open one (a disk too full for its files). Worth a retry, unlike a fault.
            tracing::warn!("no database connection within the acquire timeout");
            return Self::new(
                503,
                "DATABASE_UNAVAILABLE",
                "the control plane cannot reach its database right now; try again shortly",
            )
            .with_metadata(serde_json::json!({ "retryAfterMs": 5_000 }));
        }
        if matches!(e, sqlx::Error::PoolClosed) {
            // The plane is stopping: work still under way when its pool closed ends here.
            tracing::debug!("the database pool is closed: the plane is stopping");
            return Self::new(
                503,
                "DATABASE_UNAVAILABLE",
                "the control plane is stopping; try again shortly",
            )
            .with_metadata(serde_json::json!({ "retryAfterMs": 5_000 }));
        }
        tracing::error!(error = %e, "database error");
        Self::internal()
    }
}

impl From<crate::secret::RandomError> for ApiError {
    fn from(e: crate::secret::RandomError) -> Self {
        tracing::error!(error = %e, "randomness error");
        Self::internal()
    }
}

/// The JSON error body of the specification.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// Unique per occurrence; logged with the error.
    pub err_id: String,
    /// Machine-readable code.
    pub code: String,
    /// Prose.
    pub message: String,
    /// Mirrors the HTTP status.
    pub status_code: u16,
    /// The request id, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub req_id: Option<String>,
    /// Extra facts, when any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    /// A full disk (ENOSPC) and a full quota (EDQUOT) answer 507; other file-system faults
    /// stay 500.
    #[test]
    fn a_full_disk_or_quota_answers_507_and_other_faults_500() {
        for errno in [28, 122] {
            let e = std::io::Error::from_raw_os_error(errno);
            assert!(is_disk_full(&e), "{errno}");
            assert_eq!(ApiError::from_io(&e, "test").status, 507);
            assert!(is_database_full(&sqlx::Error::Io(e)));
        }
        for errno in [2, 5, 13] {
            let e = std::io::Error::from_raw_os_error(errno);
            assert_eq!(
                ApiError::from_io(&e, "test").code,
                "INTERNAL_ERROR",
                "{errno}"
            );
        }
    }

    /// A database that cannot be reached in time answers 503 with a wait, not a fault.
    #[test]
    fn no_database_connection_in_time_answers_503_with_a_wait() {
        let e = ApiError::from(sqlx::Error::PoolTimedOut);
        assert_eq!((e.status, e.code), (503, "DATABASE_UNAVAILABLE"));
        assert_eq!(e.metadata.unwrap()["retryAfterMs"], 5_000);
        // Work still under way while the plane stops, its pool closed: the same, not a fault.
        let e = ApiError::from(sqlx::Error::PoolClosed);
        assert_eq!((e.status, e.code), (503, "DATABASE_UNAVAILABLE"));
    }

    /// The module documentation's table and [`CODES`] list the same rows in the same order.
    #[test]
    fn codes_match_the_documented_table() {
        let doc: Vec<String> = include_str!("error.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//! | "))
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .map(str::to_owned)
            .collect();
        let consts: Vec<String> = CODES
            .iter()
            .map(|(s, c, when)| format!("{s} | `{c}` | {when} |"))
            .collect();
        assert_eq!(doc, consts);
        for (i, (_, c, _)) in CODES.iter().enumerate() {
            assert!(
                CODES[i + 1..].iter().all(|(_, d, _)| d != c),
                "{c} listed twice"
            );
        }
        assert_eq!(code_info("NOT_FOUND").map(|x| x.0), Some(404));
        assert_eq!(code_info("NO_SUCH_CODE"), None);
    }

    /// Every code the plane's source answers with (`ApiError::new(status, "CODE", …)`) is in
    /// the table, with that status: a client can look up whatever it receives.
    #[test]
    fn every_code_the_source_answers_is_in_the_table_with_its_status() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let mut seen = 0;
        let mut missing = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            for (at, _) in text.match_indices("ApiError::new(") {
                let args = &text[at + "ApiError::new(".len()..];
                let status: String = args
                    .trim_start()
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                let Ok(code_status) = status.parse::<u16>() else {
                    continue; // a status held in a variable
                };
                // `status, "CODE"`: a code held in a variable is not read.
                let rest = args.trim_start()[status.len()..].trim_start();
                let Some(code) = rest
                    .strip_prefix(',')
                    .map(str::trim_start)
                    .and_then(|r| r.strip_prefix('"'))
                    .and_then(|r| r.split('"').next())
                    .filter(|c| {
                        !c.is_empty() && c.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                    })
                else {
                    continue;
                };
                seen += 1;
                if code_info(code).map(|x| x.0) != Some(code_status) {
                    missing.push(format!("{} {code_status} {code}", f.display()));
                }
            }
        }
        assert!(seen > 100, "the scan found only {seen} codes");
        assert!(missing.is_empty(), "not in the table: {missing:#?}");
    }
}
