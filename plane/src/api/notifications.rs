//! Devices (Web Push subscriptions) and notifications.
//!
//! A person's browser subscribes with the Push API, using the plane's VAPID key
//! (`GET /api/devices/vapid`) as `applicationServerKey`, and registers the subscription with
//! `POST /api/devices`. The plane then tells that person — in the inbox (`GET
//! /api/notifications`) and on each of their devices — when one of their own subshells needs
//! them (its agent waits for input, is done or failed; the pane exits or crashes) and when one
//! of their own nodes goes offline, as far as their preferences (`GET`/`PUT
//! /api/notifications/preferences`, quiet hours included) and their mutes (`GET
//! /api/notifications/mutes`, `PUT`/`DELETE /api/notifications/mutes/{id}`) allow. A
//! subshell's need is told once it has held for a few seconds (10 by default:
//! `TERMPLANE_NOTIFY_HOLD_SECS`), never while the person has its terminal open, at most once per
//! subshell every two minutes (`TERMPLANE_NOTIFY_WINDOW_SECS`; the needs between are counted in
//! the next one's body), and is marked read once the need is over; the rules are the plane's
//! `service::needs_you` module. Pushes are encrypted for the
//! device (RFC 8291) and signed with the plane's VAPID key (RFC 8292); a push service that
//! answers 404 or 410 has forgotten the subscription, and the device is removed.
//!
//! The push message is JSON: `{"id", "kind", "subjectId", "title", "body", "url"}` (`url`: the
//! app's page for the subject).

use std::borrow::Cow;
use std::net::IpAddr;
use std::sync::OnceLock;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{HOST_NAME_PATTERN, PORT_PATTERN, ipv4_pattern, ipv6_pattern, schema_accepts};

/// Longest push endpoint accepted (characters).
pub const ENDPOINT_MAX_CHARS: usize = 2048;

/// The host of a [`PushEndpoint`], as a URL parser reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndpointHost {
    /// A DNS name (lower case, as the URL has it).
    Name(String),
    /// An address literal.
    Address(IpAddr),
}

/// A push service's URL for one subscription.
///
/// Its grammar, which its schema states: `https://` (or `http://`), a host, an optional port
/// (1 to 65535), an optional path of printable ASCII. The host is a DNS name whose last label
/// starts with a letter, a dotted-decimal IPv4 address or a bracketed IPv6 address — never the
/// other spellings of an address (`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`, `0`), so
/// what the plane judges is what a URL parser and a resolver would connect to — and no label
/// is an IDNA `xn--` one. It is kept as the WHATWG URL parser serialises it (host lower-cased,
/// default port dropped, no fragment).
///
/// This type takes what any plane takes; a plane narrows it ([`PushEndpoint::schema`]): only
/// `https://` unless started with `TERMPLANE_PUSH_ALLOW_HTTP=1`, and only a host name that is
/// not `localhost` unless started with `TERMPLANE_PUSH_ALLOW_PRIVATE=1` — and then the name
/// must not resolve to a loopback, private or reserved address, which no schema can state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushEndpoint {
    url: String,
    https: bool,
    host: EndpointHost,
    port: u16,
}

impl PushEndpoint {
    /// The pattern of an endpoint, `http://` allowed or not, address literals allowed or not.
    #[must_use]
    pub fn pattern(allow_http: bool, allow_addresses: bool) -> String {
        let scheme = if allow_http { "https?" } else { "https" };
        let host = if allow_addresses {
            format!(
                "(?:{HOST_NAME_PATTERN}|{}|\\[{}\\])",
                ipv4_pattern(),
                ipv6_pattern()
            )
        } else {
            HOST_NAME_PATTERN.to_owned()
        };
        format!("^{scheme}://{host}(?::{PORT_PATTERN})?(?:/[!-~]*)?$")
    }

    /// What no endpoint may match: a host label starting with `xn--` and, unless allowed,
    /// `localhost` or a name under it.
    #[must_use]
    pub fn refused_pattern(allow_localhost: bool) -> String {
        let idna = "[Xx][Nn]--";
        let localhost = "[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]\\.?(?::|/|$)";
        if allow_localhost {
            format!("^https?://(?:[^/:]*\\.)?{idna}")
        } else {
            format!("^https?://(?:[^/:]*\\.)?(?:{idna}|{localhost})")
        }
    }

    /// The schema of an endpoint on a plane that takes `http://` or not and pushes to private
    /// addresses or not.
    #[must_use]
    pub fn schema(allow_http: bool, allow_private: bool) -> Value {
        let said = match (allow_http, allow_private) {
            (false, false) => {
                "The push service's URL for this subscription, as the browser gives it: \
                 `https://`, a host name (not an address, not `localhost`), an optional port and \
                 a path of printable ASCII. Push services are on the public internet: a name \
                 that resolves to a loopback, private or reserved address is refused too (400), \
                 when it is registered and again when each push is sent."
            }
            (true, false) => {
                "The push service's URL for this subscription: `https://` or (this plane allows \
                 it) `http://`, a host name (not an address, not `localhost`), an optional port \
                 and a path of printable ASCII. A name that resolves to a loopback, private or \
                 reserved address is refused too (400), when it is registered and again when \
                 each push is sent."
            }
            (false, true) => {
                "The push service's URL for this subscription: `https://`, a host name, a \
                 dotted-decimal IPv4 address or a bracketed IPv6 address (this plane pushes to \
                 private networks), an optional port and a path of printable ASCII."
            }
            (true, true) => {
                "The push service's URL for this subscription: `https://` or `http://`, a host \
                 name, a dotted-decimal IPv4 address or a bracketed IPv6 address, an optional \
                 port and a path of printable ASCII. A plane takes `http://` only when started \
                 with TERMPLANE_PUSH_ALLOW_HTTP=1, and an address, `localhost` or a name that \
                 resolves inside its network only when started with \
                 TERMPLANE_PUSH_ALLOW_PRIVATE=1."
            }
        };
        json!({
            "type": "string",
            "maxLength": ENDPOINT_MAX_CHARS,
            "pattern": Self::pattern(allow_http, allow_private),
            "not": { "pattern": Self::refused_pattern(allow_private) },
            "description": said,
        })
    }

    /// Parses `s` by the grammar of the widest schema, then with the WHATWG URL parser.
    pub fn parse(s: &str) -> Result<Self, String> {
        static WIDEST: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
        let bad = || {
            "must be the push service's URL: http(s)://host[:port][/path] in printable ASCII, \
             the host a DNS name whose last label starts with a letter, a dotted-decimal IPv4 \
             address or a bracketed IPv6 address"
                .to_owned()
        };
        if s.chars().count() > ENDPOINT_MAX_CHARS {
            return Err(format!("must be at most {ENDPOINT_MAX_CHARS} characters"));
        }
        if !schema_accepts(&WIDEST, || Self::schema(true, true), s) {
            return Err(bad());
        }
        let mut url = url::Url::parse(s).map_err(|_| bad())?;
        url.set_fragment(None);
        let https = match url.scheme() {
            "https" => true,
            "http" => false,
            _ => return Err(bad()),
        };
        let host = match url.host() {
            Some(url::Host::Domain(d)) => EndpointHost::Name(d.to_owned()),
            Some(url::Host::Ipv4(a)) => EndpointHost::Address(IpAddr::V4(a)),
            Some(url::Host::Ipv6(a)) => EndpointHost::Address(IpAddr::V6(a)),
            None => return Err(bad()),
        };
        let port = url.port_or_known_default().ok_or_else(bad)?;
        Ok(Self {
            url: url.into(),
            https,
            host,
            port,
        })
    }

    /// The URL, as kept.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.url
    }

    /// Whether it is `https://`.
    #[must_use]
    pub fn is_https(&self) -> bool {
        self.https
    }

    /// Its host.
    #[must_use]
    pub fn host(&self) -> &EndpointHost {
        &self.host
    }

    /// Its port (the scheme's when the URL names none).
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl<'de> Deserialize<'de> for PushEndpoint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(de::Error::custom)
    }
}

impl JsonSchema for PushEndpoint {
    fn schema_name() -> Cow<'static, str> {
        "PushEndpoint".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Schema::try_from(Self::schema(true, true)).unwrap_or_default()
    }
}

/// `POST /api/devices`: a browser's `PushSubscription` (its `toJSON()`), and a name.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeviceRequest {
    /// A name to tell it from the account's other devices.
    pub name: super::Name<1, 64>,
    /// The push service's URL for this subscription.
    pub endpoint: PushEndpoint,
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
    /// A subshell's agent said it finished what it was asked (told by the `exited` preference).
    Done,
    /// A subshell's agent said it failed (told by the `crashed` preference).
    Error,
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
            Self::Done => "done",
            Self::Error => "error",
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
            "done" => Self::Done,
            "error" => Self::Error,
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
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
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
    /// Quiet hours: while they last, a notification reaches the inbox (and the live feed) but
    /// no push device. Absent (or `null`): none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_hours: Option<QuietHours>,
}

/// A daily span of quiet hours, read in the person's own time zone (it may run past midnight:
/// `22:00` to `07:00`; `from` equal to `to` is refused).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct QuietHours {
    /// Start, `HH:MM` (24-hour).
    #[schemars(regex(pattern = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"))]
    pub from: String,
    /// End, `HH:MM` (24-hour).
    #[schemars(regex(pattern = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"))]
    pub to: String,
    /// An IANA time zone name (`Europe/Berlin`, `America/New_York`, `UTC`).
    #[schemars(length(min = 1, max = 64))]
    pub time_zone: String,
}

/// A pane whose notifications you muted.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Mute {
    /// The subshell.
    pub subshell_id: String,
    /// Until when (ms since the Unix epoch); `null`: until you unmute it.
    pub until: Option<i64>,
    /// When you muted it.
    pub created_at: i64,
}

/// `PUT /api/notifications/mutes/{subshellId}`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MuteRequest {
    /// Until when (ms since the Unix epoch, in the future, at most a year ahead); absent or
    /// `null`: until you unmute it.
    #[serde(default)]
    pub until: Option<i64>,
}

/// How many notifications changed.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarkedRead {
    /// Notifications newly marked read.
    pub marked: u64,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use proptest::prelude::*;

    static REFUSED: std::sync::LazyLock<jsonschema::Validator> = std::sync::LazyLock::new(|| {
        jsonschema::validator_for(
            &json!({ "type": "string", "pattern": PushEndpoint::refused_pattern(true) }),
        )
        .unwrap()
    });
    static PLAIN: std::sync::LazyLock<jsonschema::Validator> = std::sync::LazyLock::new(|| {
        jsonschema::validator_for(&PushEndpoint::schema(false, false)).unwrap()
    });

    fn unanchored(p: &str) -> String {
        p.strip_prefix('^')
            .and_then(|p| p.strip_suffix('$'))
            .unwrap()
            .to_owned()
    }

    #[test]
    fn every_other_spelling_of_an_address_is_refused_and_the_schema_says_so() {
        let widest = jsonschema::validator_for(&PushEndpoint::schema(true, true)).unwrap();
        let plain = jsonschema::validator_for(&PushEndpoint::schema(false, false)).unwrap();
        for host in [
            "127.1",
            "2130706433",
            "0x7f000001",
            "0177.0.0.1",
            "0",
            "1.2.3.09",
            "01.2.3.4",
            "256.1.1.1",
            "[1:2:3:4:5:6:7::8]",
            "[::01.2.3.4]",
            "[fe80::1%25eth0]",
            "a.123",
            "xn--a.com",
            "a_b.example",
            "user@push.example",
        ] {
            let url = format!("https://{host}/push");
            assert!(PushEndpoint::parse(&url).is_err(), "{url}");
            assert!(!widest.is_valid(&json!(url)), "{url}");
            assert!(!plain.is_valid(&json!(url)), "{url}");
        }
        // Literals and localhost are a private plane's only.
        for url in [
            "https://127.0.0.1/push",
            "https://[::1]:8443/push",
            "https://[::ffff:127.0.0.1]/push",
            "https://localhost/push",
            "https://LocalHost./push",
            "https://api.localhost:9/push",
            "http://push.example/x",
        ] {
            assert!(PushEndpoint::parse(url).is_ok(), "{url}");
            assert!(widest.is_valid(&json!(url)), "{url}");
            assert!(!plain.is_valid(&json!(url)), "{url}");
        }
        let e = PushEndpoint::parse("https://Push.Example:443/send/A#frag").unwrap();
        assert_eq!(e.as_str(), "https://push.example/send/A");
        assert_eq!(e.host(), &EndpointHost::Name("push.example".into()));
        assert_eq!((e.is_https(), e.port()), (true, 443));
        assert!(plain.is_valid(&json!("https://fcm.googleapis.com/fcm/send/x:y-z")));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// What the widest schema matches, the type takes, and the URL parser reads the host
        /// as the pattern did: an address exactly when it is written as one.
        #[test]
        fn the_type_takes_what_its_widest_schema_matches(
            s in proptest::string::string_regex(&unanchored(&PushEndpoint::pattern(true, true))).unwrap()
        ) {
            match PushEndpoint::parse(&s) {
                Ok(e) => {
                    let authority = s.split_once("://").unwrap().1;
                    let literal = authority.starts_with('[')
                        || authority
                            .split(['/', ':'])
                            .next()
                            .unwrap()
                            .trim_end_matches('.')
                            .rsplit('.')
                            .next()
                            .unwrap()
                            .starts_with(|c: char| c.is_ascii_digit());
                    prop_assert_eq!(matches!(e.host(), EndpointHost::Address(_)), literal, "{}", s);
                    prop_assert!(url::Url::parse(e.as_str()).is_ok());
                }
                Err(why) => prop_assert!(REFUSED.is_valid(&json!(s)), "{}: {}", s, why),
            }
        }

        /// What the narrowest schema matches (and does not refuse) is an `https://` URL whose
        /// host is a name.
        #[test]
        fn the_narrowest_schema_matches_only_names(
            s in proptest::string::string_regex(&unanchored(&PushEndpoint::pattern(false, false))).unwrap()
        ) {
            if PLAIN.is_valid(&json!(s)) {
                let e = PushEndpoint::parse(&s).unwrap();
                prop_assert!(e.is_https());
                prop_assert!(matches!(e.host(), EndpointHost::Name(_)), "{}", s);
            }
        }
    }
}
