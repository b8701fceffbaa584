//! First run, settings reads, sign-in and sessions, accounts.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{DisplayName, Email, NewPassword, Password};

/// `GET /api/setup/status`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetupStatus {
    /// Whether the first account exists.
    pub setup_done: bool,
}

/// `POST /api/setup`: the first (administrator) account.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SetupRequest {
    /// The administrator's email.
    pub email: Email,
    /// The administrator's display name.
    pub display_name: DisplayName,
    /// The administrator's password (8 to 1024 characters).
    pub password: NewPassword,
    /// The instance's name, shown in the browser's title bar and the app's header (1 to 64
    /// characters; the name set when the database was created stays without it).
    #[serde(default)]
    pub instance_name: Option<InstanceName>,
}

/// An instance's name: 1 to 64 characters.
pub type InstanceName = super::Name<1, 64>;

/// `PUT /api/settings/instance`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InstanceSettingsUpdate {
    /// The instance's new name.
    pub display_name: InstanceName,
}

/// `GET /api/settings/instance`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstanceSettings {
    /// The instance's display name.
    pub display_name: String,
}

/// `GET /api/settings/public`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicSettings {
    /// Every origin a browser may send state-changing requests from.
    pub trusted_origins: Vec<String>,
}

/// `POST /api/auth/sign-in`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SignInRequest {
    /// The account's email.
    pub email: Email,
    /// The account's password.
    pub password: Password,
}

/// An account's role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Administers the plane (with a browser session).
    Admin,
    /// A signed-in person.
    User,
    /// The `system` service account that system keys act as; it cannot sign in.
    Service,
}

impl Role {
    /// The stored spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Admin => "admin",
            Self::User => "user",
            Self::Service => "service",
        }
    }

    /// The role of a stored spelling (an unknown one reads as `user`, the least privileged).
    #[must_use]
    pub fn from_stored(s: &str) -> Self {
        match s {
            "admin" => Self::Admin,
            "service" => Self::Service,
            _ => Self::User,
        }
    }
}

/// A role an administrator can give (`service` is the `system` account's alone).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GrantableRole {
    /// Administers the plane.
    Admin,
    /// A person.
    #[default]
    User,
}

impl From<GrantableRole> for Role {
    fn from(r: GrantableRole) -> Self {
        match r {
            GrantableRole::Admin => Self::Admin,
            GrantableRole::User => Self::User,
        }
    }
}

/// An account (`GET /api/users` lists them for any credential).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct User {
    /// Account id.
    pub id: String,
    /// Email (normalised, lower-case); `system` for the service account.
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// Role.
    pub role: Role,
    /// Whether the account is disabled.
    pub disabled: bool,
}

/// How the caller authenticated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// A browser session cookie.
    Session,
    /// A system key.
    SystemKey,
    /// A subshell's own token.
    Pane,
}

/// `GET /api/auth/session`: the calling account.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Whoami {
    /// Account id.
    pub id: String,
    /// Email.
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// Role.
    pub role: Role,
    /// Whether the account is disabled.
    pub disabled: bool,
    /// An administrator's browser session (a bearer caller never reads as an administrator).
    pub is_admin: bool,
    /// How the caller authenticated.
    pub via: Via,
}

/// `POST /api/users`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateUserRequest {
    /// The new account's email.
    pub email: Email,
    /// Display name.
    pub display_name: DisplayName,
    /// Initial password (8 to 1024 characters).
    pub password: NewPassword,
    /// Role (default `user`).
    #[serde(default)]
    pub role: GrantableRole,
}

/// `PATCH /api/users/{id}`: what to change (absent fields stay).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UpdateUserRequest {
    /// The new role (the last enabled administrator cannot be demoted).
    #[serde(default)]
    pub role: Option<GrantableRole>,
    /// The new display name.
    #[serde(default)]
    pub display_name: Option<DisplayName>,
}

/// `POST /api/auth/password`: the signed-in account changes its own password.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChangePasswordRequest {
    /// The password now.
    pub current_password: Password,
    /// The new one (8 to 1024 characters).
    pub new_password: NewPassword,
    /// End the account's other sessions too (default true); this session stays.
    #[serde(default)]
    pub sign_out_others: Option<bool>,
}

/// `POST /api/users/{id}/password`: an administrator sets another account's password.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResetPasswordRequest {
    /// The new password (8 to 1024 characters); every session of the account ends.
    pub new_password: NewPassword,
}

/// `GET` and `PUT /api/settings/trusted-origins`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrustedOrigins {
    /// Trusted by configuration: the base URL (`APP_BASE_URL`) and `TRUSTED_ORIGINS`; changed
    /// only by restarting the plane with other settings.
    pub configured: Vec<String>,
    /// Added by administrators (stored in the database).
    pub added: Vec<String>,
}

/// `PUT /api/settings/trusted-origins`: the whole list of added origins (at most 32), each
/// `http(s)://host[:port]` with nothing after it.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TrustedOriginsUpdate {
    /// The origins, replacing the ones added before.
    #[schemars(length(max = 32))]
    pub added: Vec<OriginText>,
}

/// The pattern of an origin: `http(s)://host[:port]`, an optional `/` after it; the host's
/// labels of letters, digits and inner hyphens (1 to 63 long), the port 1 to 65535.
pub const ORIGIN_PATTERN: &str = concat!(
    r"^[Hh][Tt][Tt][Pp][Ss]?://",
    r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*",
    r"(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?/?$"
);

/// An origin as a person types it (checked against [`ORIGIN_PATTERN`]): a host name or an
/// IPv4 address; an IPv6 literal origin is trusted through `TRUSTED_ORIGINS` instead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct OriginText(String);

impl OriginText {
    /// The text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn valid(s: &str) -> bool {
        let Some((scheme, rest)) = s.split_once("://") else {
            return false;
        };
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return false;
        }
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let (host, port) = match rest.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (rest, None),
        };
        // As ORIGIN_PATTERN says, so that the published schema and this check agree.
        let host_ok = host.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        });
        let port_ok = port.is_none_or(|p| {
            (1..=5).contains(&p.len())
                && p.bytes().all(|b| b.is_ascii_digit())
                && !p.starts_with('0')
                && p.parse::<u16>().is_ok()
        });
        host_ok && port_ok
    }
}

impl<'de> Deserialize<'de> for OriginText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if Self::valid(&s) {
            Ok(Self(s))
        } else {
            Err(serde::de::Error::custom(
                "must be http(s)://host[:port] with nothing after it",
            ))
        }
    }
}

impl JsonSchema for OriginText {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Origin".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "pattern": ORIGIN_PATTERN, "maxLength": 270 })
    }
}

#[cfg(test)]
mod origin_tests {
    #![allow(clippy::unwrap_used)]
    use super::OriginText;

    /// Texts and whether each is a trusted origin.
    const CASES: &[(&str, bool)] = &[
        ("http://a.example", true),
        ("HTTPS://A.example:8443/", true),
        ("http://localhost:1", true),
        ("http://10.0.0.1", true),
        ("http://10.0.0.1:65535", true),
        ("http://a-.example", false),
        ("ftp://a", false),
        ("http://", false),
        ("http://a/b", false),
        ("http://u@a", false),
        ("http://a?q", false),
        ("http://a:", false),
        ("http://a:123456", false),
        ("http://a:b", false),
        ("http://[zz]", false),
        ("http://a b", false),
        ("a.example", false),
        ("http://[::1]:7420", false),
        ("http://[.8.1c3]", false),
        ("http://x.example:65536", false),
        ("http://x.example:99999", false),
        ("http://x.example:0", false),
        ("http://x.example:080", false),
        ("http://-.-", false),
        ("http://a..b", false),
        ("http://a.example.", false),
        ("http://-a.example", false),
        ("http://a_b.example", false),
    ];

    #[test]
    fn origins_are_scheme_host_and_port_only() {
        for &(s, ok) in CASES {
            assert_eq!(OriginText::valid(s), ok, "{s}");
        }
    }

    #[test]
    fn the_published_pattern_and_the_check_agree() {
        let schema = serde_json::json!({ "type": "string", "pattern": super::ORIGIN_PATTERN });
        let v = jsonschema::validator_for(&schema).unwrap();
        for &(s, _) in CASES {
            assert_eq!(
                v.is_valid(&serde_json::json!(s)),
                OriginText::valid(s),
                "{s}"
            );
        }
    }
}
