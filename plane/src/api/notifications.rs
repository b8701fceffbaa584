//! Devices (Web Push subscriptions) and notifications.
//!
//! A person's browser subscribes with the Push API, using the plane's VAPID key
//! (`GET /api/devices/vapid`) as `applicationServerKey`, and registers the subscription with
//! `POST /api/devices`. The plane then tells that person — in the inbox (`GET
//! /api/notifications`) and on each of their devices — when one of their own subshells needs
//! input, exits or crashes, and when one of their own nodes goes offline, as far as their
//! preferences (`GET`/`PUT /api/notifications/preferences`) allow. Pushes are encrypted for the
//! device (RFC 8291) and signed with the plane's VAPID key (RFC 8292); a push service that
//! answers 404 or 410 has forgotten the subscription, and the device is removed.
//!
//! The push message is JSON: `{"id", "kind", "subjectId", "title", "body", "url"}` (`url`: the
//! app's page for the subject).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Text;

/// `POST /api/devices`: a browser's `PushSubscription` (its `toJSON()`), and a name.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeviceRequest {
    /// A name to tell it from the account's other devices.
    pub name: super::Name<1, 64>,
    /// The push service's URL for this subscription (`https://`).
    #[schemars(regex(pattern = r"^https?://[^\s/?#@]+(/[^\s]*)?$"))]
    pub endpoint: Text<1, 2048>,
    /// The subscription's keys.
    pub keys: DeviceKeys,
    /// When the subscription expires (ms), as the browser says; not used.
    #[serde(default)]
    pub expiration_time: Option<serde_json::Value>,
}

/// A subscription's keys, base64url as the browser gives them.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceKeys {
    /// The P-256 public key (an uncompressed point, 65 bytes, base64url).
    #[schemars(regex(pattern = r"^B[A-Za-z0-9_-]{86}=?$"))]
    pub p256dh: String,
    /// The 16-byte authentication secret (base64url).
    #[schemars(regex(pattern = r"^[A-Za-z0-9_-]{21}[AQgw](==)?$"))]
    pub auth: String,
}

/// A registered device.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Device {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its push service's origin (the full endpoint is a secret of the subscription).
    pub push_service: String,
    /// When it was added (ms since the Unix epoch).
    pub created_at: i64,
    /// When a push last reached its push service.
    pub last_sent_at: Option<i64>,
    /// The last delivery failure, when the last attempt failed.
    pub last_error: Option<String>,
}

/// `GET /api/devices/vapid`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VapidKey {
    /// The plane's VAPID public key: an uncompressed P-256 point, base64url.
    pub public_key: String,
}

/// What a notification is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotificationKind {
    /// A subshell's agent waits for input.
    NeedsInput,
    /// A subshell's program ended with exit code 0.
    Exited,
    /// A subshell's program ended otherwise, or its pane vanished.
    Crashed,
    /// A node's link went down.
    NodeOffline,
}

impl NotificationKind {
    /// The stored spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NeedsInput => "needs_input",
            Self::Exited => "exited",
            Self::Crashed => "crashed",
            Self::NodeOffline => "node_offline",
        }
    }

    /// The kind of a stored spelling.
    #[must_use]
    pub fn from_stored(s: &str) -> Self {
        match s {
            "needs_input" => Self::NeedsInput,
            "exited" => Self::Exited,
            "node_offline" => Self::NodeOffline,
            _ => Self::Crashed,
        }
    }
}

/// One notification.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    /// Its id.
    pub id: String,
    /// What it is about.
    pub kind: NotificationKind,
    /// The subshell or node.
    pub subject_id: String,
    /// A short title.
    pub title: String,
    /// One line of detail.
    pub body: String,
    /// When (ms since the Unix epoch).
    pub created_at: i64,
    /// When it was marked read.
    pub read_at: Option<i64>,
    /// The app's page for its subject (`/subshells/{id}` or `/nodes`), as the push carries it.
    pub url: String,
}

/// `GET /api/notifications/unread`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnreadCount {
    /// How many of the account's notifications are unread.
    pub unread: i64,
}

/// `GET /api/notifications` query.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NotificationsQuery {
    /// Only unread ones.
    #[serde(default)]
    pub unread: bool,
    /// Only ones older than this `createdAt` (the cursor: the last entry's `createdAt`).
    #[serde(default)]
    pub before: Option<i64>,
    /// With `before`: the last entry's `id` too, so entries of the same millisecond at a page's
    /// edge are neither skipped nor repeated.
    #[serde(default)]
    pub before_id: Option<super::RowId>,
    /// Page size: 1 to 200 (default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u16>,
}

/// `GET`/`PUT /api/notifications/preferences`: what the account is told about.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NotificationPrefs {
    /// One of their subshells needs input.
    pub needs_input: bool,
    /// One of their subshells exited.
    pub exited: bool,
    /// One of their subshells crashed.
    pub crashed: bool,
    /// One of their nodes went offline.
    pub node_offline: bool,
}

/// How many notifications changed.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarkedRead {
    /// Notifications newly marked read.
    pub marked: u64,
}
