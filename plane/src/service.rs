//! The service layer: accounts, sessions, credentials, enrollment and node rows.
//!
//! Nothing here names the HTTP framework. A request reaches this layer as a [`RequestMeta`] (the
//! few facts of the request that authentication needs) plus a parsed JSON body, and leaves it as
//! a JSON value or an [`ApiError`]. The time comes from an injected [`Clock`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use serde_json::{Map, Value, json};
use termplane_machines::jws::Es256Signer;
use termplane_proto::{Command, CommandResult};
use termplane_runtime_smol::plane::{Dispatch, DispatchOutcome, PlaneCommand};

use crate::clock::Clock;
use crate::error::ApiError;
use crate::keys::PlaneSecrets;
use crate::link::{LinkHub, LinkStatus};
use crate::secret::{self, BEARER_PREFIX, SETUP_KEY_PREFIX};
use crate::store::{Consume, NewNode, Node, SYSTEM_USER_EMAIL, SetupKey, Store, User};

/// Lifetime of a browser session (server-side).
pub const SESSION_LIFETIME_MS: i64 = 14 * 24 * 60 * 60 * 1000;

/// The request facts the service needs, framework-free.
#[derive(Clone, Debug, Default)]
pub struct RequestMeta {
    /// Upper-case method.
    pub method: String,
    /// The path as received.
    pub path: String,
    /// Every `Authorization` header value, in order.
    pub authorization: Vec<String>,
    /// The session cookie's value, when present.
    pub session_cookie: Option<String>,
    /// `Origin`, when present.
    pub origin: Option<String>,
    /// `Sec-Fetch-Site`, when present.
    pub sec_fetch_site: Option<String>,
    /// The peer's IP address as text.
    pub peer_ip: String,
}

impl RequestMeta {
    fn is_safe_method(&self) -> bool {
        matches!(self.method.as_str(), "GET" | "HEAD" | "OPTIONS")
    }
}

/// Who is calling.
#[derive(Clone, Debug)]
pub enum Caller {
    /// A browser session.
    Session {
        /// The account.
        user: User,
        /// Digest of the session token.
        session_digest: String,
    },
    /// A system key; acts as the `system` service account.
    SystemKey {
        /// The `system` account.
        user: User,
        /// The key's row id.
        key_id: String,
    },
}

impl Caller {
    /// The acting account.
    #[must_use]
    pub fn user(&self) -> &User {
        match self {
            Self::Session { user, .. } | Self::SystemKey { user, .. } => user,
        }
    }

    fn is_admin_session(&self) -> bool {
        matches!(self, Self::Session { user, .. } if user.role == "admin")
    }
}

/// Fixed settings of a running plane.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The address the plane says it lives at, without a trailing slash (`http://127.0.0.1:7420`).
    pub base_url: String,
    /// Extra trusted origins (from `TRUSTED_ORIGINS`).
    pub extra_origins: Vec<String>,
}

impl Settings {
    /// Whether cookies must be `Secure` (the base URL is https).
    #[must_use]
    pub fn secure(&self) -> bool {
        self.base_url.starts_with("https://")
    }

    /// The session cookie's name: `__Host-tp_session` over https; browsers refuse a `__Host-`
    /// cookie without `Secure`, so over plain http it is `tp_session`.
    #[must_use]
    pub fn cookie_name(&self) -> &'static str {
        if self.secure() {
            "__Host-tp_session"
        } else {
            "tp_session"
        }
    }

    /// Every origin a browser may send state-changing requests from.
    #[must_use]
    pub fn trusted_origins(&self) -> Vec<String> {
        let mut out = Vec::new();
        for o in std::iter::once(&self.base_url).chain(self.extra_origins.iter()) {
            if let Some(o) = normalize_origin(o)
                && !out.contains(&o)
            {
                out.push(o);
            }
        }
        out
    }

    /// The node WebSocket address handed out at enrollment.
    #[must_use]
    pub fn ws_url(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        let ws = if let Some(rest) = base.strip_prefix("https://") {
            format!("wss://{rest}")
        } else if let Some(rest) = base.strip_prefix("http://") {
            format!("ws://{rest}")
        } else {
            base.to_owned()
        };
        format!("{ws}/ws/node")
    }
}

/// `scheme://host[:port]` of a URL, lowercased; `None` when it is not http(s).
#[must_use]
pub fn normalize_origin(url: &str) -> Option<String> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let host = rest.split(['/', '?', '#']).next()?.to_ascii_lowercase();
    if host.is_empty() || host.contains('@') {
        return None;
    }
    let host = match (scheme.as_str(), host.rsplit_once(':')) {
        ("http", Some((h, "80"))) | ("https", Some((h, "443"))) => h.to_owned(),
        _ => host,
    };
    Some(format!("{scheme}://{host}"))
}

/// Exponential backoff keyed by account and by client address.
///
/// An attempt *reserves* a failure on each key under one lock before any password is verified,
/// and only a success refunds it, so parallel guesses serialize on the counter: once the free
/// budget is used up every further attempt waits `base · 2^(excess-1)` (capped), however many
/// arrive at once.
#[derive(Debug)]
pub struct Backoff {
    entries: Mutex<HashMap<String, (u32, i64)>>,
    base_ms: i64,
    cap_ms: i64,
}

impl Backoff {
    /// A backoff with the given first delay and cap.
    #[must_use]
    pub fn new(base_ms: i64, cap_ms: i64) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            base_ms,
            cap_ms,
        }
    }

    fn delay(&self, excess: u32) -> i64 {
        let shift = excess.saturating_sub(1).min(30);
        self.base_ms.saturating_mul(1i64 << shift).min(self.cap_ms)
    }

    /// Checks every `(key, free)` pair and, if none is waiting, reserves a failure on each.
    /// `Err(ms)` tells how long the longest wait still is.
    pub fn reserve(&self, keys: &[(&str, u32)], now: i64) -> Result<(), i64> {
        let mut map = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.len() > 100_000 {
            map.retain(|_, (_, next)| *next > now);
        }
        let wait = keys
            .iter()
            .filter_map(|(k, _)| map.get(*k).map(|(_, next)| *next - now))
            .max()
            .unwrap_or(0);
        if wait > 0 {
            return Err(wait);
        }
        for (k, free) in keys {
            let e = map.entry((*k).to_owned()).or_insert((0, 0));
            e.0 = e.0.saturating_add(1);
            if e.0 > *free {
                e.1 = now + self.delay(e.0 - free);
            }
        }
        Ok(())
    }

    /// Checks without reserving.
    pub fn check(&self, key: &str, now: i64) -> Result<(), i64> {
        let map = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match map.get(key) {
            Some((_, next)) if *next > now => Err(*next - now),
            _ => Ok(()),
        }
    }

    /// Records one failure on `key` (no reservation was made).
    pub fn fail(&self, key: &str, free: u32, now: i64) {
        let mut map = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let e = map.entry(key.to_owned()).or_insert((0, 0));
        e.0 = e.0.saturating_add(1);
        if e.0 > free {
            e.1 = now + self.delay(e.0 - free);
        }
    }

    /// Forgets `key` entirely (a successful sign-in clears the account's count).
    pub fn clear(&self, key: &str) {
        let mut map = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.remove(key);
    }

    /// Returns one reserved failure on `key` (a success from that address).
    pub fn refund(&self, key: &str, free: u32) {
        let mut map = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(e) = map.get_mut(key) {
            e.0 = e.0.saturating_sub(1);
            if e.0 <= free {
                e.1 = 0;
            }
        }
    }
}

/// Failures allowed per account before delays begin.
pub const ACCOUNT_FREE_FAILURES: u32 = 3;
/// Failures allowed per client address before delays begin.
pub const IP_FREE_FAILURES: u32 = 10;
/// Unknown setup keys allowed per client address before enrollment backs off.
pub const ENROLL_FREE_FAILURES: u32 = 10;

/// The public halves handed to nodes at enrollment.
///
/// This is the one place that derives them from the secrets: the command-signing public JWK and
/// the X25519 link public key in its wire spelling.
#[must_use]
pub fn plane_public_material(secrets: &PlaneSecrets) -> (Value, Value) {
    let link = termplane_machines::kx::StaticKeypair::from_secret_bytes(secrets.link);
    // The scalar was validated when the file was loaded (`keys::is_p256_scalar`).
    let jwk = termplane_machines::jws::Es256Signer::from_secret_bytes(&secrets.signing)
        .map(|s| serde_json::to_value(s.public_jwk()).unwrap_or(Value::Null))
        .unwrap_or(Value::Null);
    (jwk, Value::String(link.public().to_b64()))
}

/// The control plane's services.
pub struct Service {
    store: Store,
    clock: Arc<dyn Clock>,
    settings: Settings,
    secrets: Arc<PlaneSecrets>,
    sign_in_backoff: Backoff,
    enroll_backoff: Backoff,
    dummy_hash: String,
    links: LinkHub,
    events: crate::link::events::EventLog,
    signer: Arc<Es256Signer>,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

fn hash_password(password: &str) -> Result<String, ApiError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| {
            tracing::error!(error = %e, "password hashing failed");
            ApiError::internal()
        })
}

fn verify_password(password: &str, phc: &str) -> bool {
    Argon2::default()
        .verify_password(password.as_bytes(), phc)
        .is_ok()
}

// ----- body helpers -----

fn object(body: &Value) -> Result<&Map<String, Value>, ApiError> {
    body.as_object()
        .ok_or_else(|| ApiError::validation("body", "the body must be a JSON object"))
}

fn only_fields(obj: &Map<String, Value>, allowed: &[&str]) -> Result<(), ApiError> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(ApiError::validation(k, format!("unknown field `{k}`"))),
        None => Ok(()),
    }
}

fn string_field<'a>(
    obj: &'a Map<String, Value>,
    field: &str,
    min: usize,
    max: usize,
) -> Result<&'a str, ApiError> {
    let s = obj
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::validation(field, format!("`{field}` must be a string")))?;
    let n = s.chars().count();
    if n < min || n > max {
        return Err(ApiError::validation(
            field,
            format!("`{field}` must be {min} to {max} characters"),
        ));
    }
    if s.chars().any(char::is_control) {
        return Err(ApiError::validation(
            field,
            format!("`{field}` must not contain control characters"),
        ));
    }
    Ok(s)
}

fn email_field(obj: &Map<String, Value>) -> Result<String, ApiError> {
    let e = string_field(obj, "email", 3, 254)?.trim().to_lowercase();
    if !e.contains('@') || e.contains(char::is_whitespace) {
        return Err(ApiError::validation(
            "email",
            "`email` must be an email address",
        ));
    }
    Ok(e)
}

fn too_many(wait_ms: i64) -> ApiError {
    ApiError::new(
        429,
        "TOO_MANY_ATTEMPTS",
        "too many failed attempts; wait before trying again",
    )
    .with_metadata(json!({ "retryAfterMs": wait_ms }))
}

fn user_json(u: &User) -> Value {
    json!({
        "id": u.id,
        "email": u.email,
        "displayName": u.display_name,
        "role": u.role,
        "disabled": u.disabled,
    })
}

fn node_json(n: &Node) -> Value {
    let parse = |s: &Option<String>| {
        s.as_deref()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .unwrap_or(Value::Null)
    };
    json!({
        "nodeId": n.id,
        "name": n.name,
        "os": n.os,
        "arch": n.arch,
        "hostname": n.hostname,
        "agentVersion": n.agent_version,
        "identityJwk": parse(&n.identity_jwk),
        "encryptPublicKey": n.encrypt_public_key,
        "liveness": n.liveness,
        "runtime": parse(&n.runtime),
        "maintenance": parse(&n.maintenance),
        "allowedDirs": serde_json::from_str::<Value>(&n.allowed_dirs).unwrap_or_else(|_| json!([])),
        "isLocal": n.is_local,
        "createdAt": n.created_at,
        "updatedAt": n.updated_at,
    })
}

/// A setup key's state at `now`.
#[must_use]
pub fn setup_key_status(k: &SetupKey, now: i64) -> &'static str {
    if k.used_at.is_some() {
        "used"
    } else if k.revoked_at.is_some() {
        "revoked"
    } else if now >= k.expires_at {
        "expired"
    } else {
        "active"
    }
}

/// Canonical form of a request path for the admin-surface guard: percent-decoded, lowercased,
/// matrix parameters (`;…`) and trailing dots of segments dropped, empty and `.` segments
/// removed and `..` applied.
#[must_use]
pub fn canonical_path(path: &str) -> String {
    let decoded = percent_decode(path).to_ascii_lowercase();
    let mut segs: Vec<String> = Vec::new();
    for seg in decoded.split(['/', '\\']) {
        let seg = seg.split(';').next().unwrap_or("");
        let seg = if seg == "." || seg == ".." {
            seg
        } else {
            seg.trim_end_matches('.')
        };
        match seg {
            "" | "." => {}
            ".." => {
                segs.pop();
            }
            s => segs.push(s.to_owned()),
        }
    }
    format!("/{}", segs.join("/"))
}

fn percent_decode(s: &str) -> String {
    // Two rounds catch double encoding (`%252e`).
    let mut cur = s.to_owned();
    for _ in 0..2 {
        let b = cur.as_bytes();
        let mut out = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%' && i + 2 < b.len() {
                let hex = std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                if let Some(v) = hex {
                    out.push(v);
                    i += 3;
                    continue;
                }
            }
            out.push(b[i]);
            i += 1;
        }
        cur = String::from_utf8_lossy(&out).into_owned();
    }
    cur
}

/// Whether `method` on (canonical) `path` is an admin surface that no bearer credential may use.
#[must_use]
pub fn is_admin_surface(method: &str, path: &str) -> bool {
    let under = |prefix: &str| path == prefix || path.starts_with(&format!("{prefix}/"));
    let read = matches!(method, "GET" | "HEAD");
    [
        "/api/system-keys",
        "/api/audit",
        "/api/admin",
        "/api/auth-providers",
        "/api/network",
        "/api/setup-keys",
    ]
    .iter()
    .any(|p| under(p))
        || (!read
            && ["/api/users", "/api/settings", "/api/plugins"]
                .iter()
                .any(|p| under(p)))
        || under("/admin")
}

impl Service {
    /// A service over `store`.
    pub async fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        settings: Settings,
        secrets: PlaneSecrets,
    ) -> Result<Self, ApiError> {
        let filler = secret::new_token("")?;
        let dummy_hash = smol::unblock(move || hash_password(&filler)).await?;
        let signer = Es256Signer::from_secret_bytes(&secrets.signing).map_err(|e| {
            tracing::error!(error = %e, "the signing key is unusable");
            ApiError::internal()
        })?;
        // No link survives a restart: every remote row starts offline.
        store.all_remote_offline(clock.now_ms()).await?;
        Ok(Self {
            store,
            clock,
            settings,
            secrets: Arc::new(secrets),
            sign_in_backoff: Backoff::new(1_000, 15 * 60 * 1_000),
            enroll_backoff: Backoff::new(1_000, 15 * 60 * 1_000),
            dummy_hash,
            links: LinkHub::default(),
            events: crate::link::events::EventLog::default(),
            signer: Arc::new(signer),
        })
    }

    /// The store (tests inspect rows through it).
    #[must_use]
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The settings.
    #[must_use]
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Now, in Unix milliseconds, from the injected clock.
    #[must_use]
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The live node sockets.
    #[must_use]
    pub fn links(&self) -> &LinkHub {
        &self.links
    }

    /// The recent events each node sent on its own.
    #[must_use]
    pub fn node_events(&self) -> &crate::link::events::EventLog {
        &self.events
    }

    /// The plane's X25519 link secret (for building a socket's handshake responder).
    #[must_use]
    pub fn link_secret(&self) -> [u8; 32] {
        self.secrets.link
    }

    // ----- guards -----

    /// Checks that run on every request before routing: a bearer credential on an admin
    /// surface is 403 whatever else comes with it (path variants included), and a browser-style
    /// state-changing request (no `Authorization`; enrollment excepted) must come from a trusted
    /// Origin and not be `Sec-Fetch-Site: cross-site`.
    pub fn guard(&self, meta: &RequestMeta) -> Result<(), ApiError> {
        let canonical = canonical_path(&meta.path);
        if !meta.authorization.is_empty() && is_admin_surface(&meta.method, &canonical) {
            return Err(ApiError::new(
                403,
                "BEARER_NOT_ALLOWED",
                "bearer credentials are not accepted on admin surfaces",
            ));
        }
        if meta.authorization.is_empty()
            && !meta.is_safe_method()
            && canonical != "/api/nodes/enroll"
        {
            if meta
                .sec_fetch_site
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case("cross-site"))
            {
                return Err(ApiError::new(
                    403,
                    "ORIGIN_REJECTED",
                    "cross-site request refused",
                ));
            }
            let trusted = meta
                .origin
                .as_deref()
                .and_then(normalize_origin)
                .is_some_and(|o| self.settings.trusted_origins().contains(&o));
            if !trusted {
                return Err(ApiError::new(
                    403,
                    "ORIGIN_REJECTED",
                    "request Origin is missing or not trusted",
                ));
            }
        }
        Ok(())
    }

    /// The bearer token of a request: `None` without `Authorization`; a 401 unless there is
    /// exactly one header reading `Bearer <token>` (one space, case-sensitive scheme).
    pub fn bearer<'m>(&self, meta: &'m RequestMeta) -> Result<Option<&'m str>, ApiError> {
        let bad = || {
            ApiError::new(
                401,
                "AUTH_HEADER_INVALID",
                "expected exactly one `Authorization: Bearer <token>` header",
            )
        };
        match meta.authorization.as_slice() {
            [] => Ok(None),
            [one] => {
                let token = one.strip_prefix("Bearer ").ok_or_else(bad)?;
                if token.is_empty() || !token.bytes().all(|c| c.is_ascii_graphic()) {
                    return Err(bad());
                }
                Ok(Some(token))
            }
            _ => Err(bad()),
        }
    }

    async fn bearer_caller(&self, token: &str) -> Result<Caller, ApiError> {
        let invalid = || {
            ApiError::new(
                401,
                "INVALID_CREDENTIAL",
                "the credential is not valid here",
            )
        };
        if !secret::well_formed(token, BEARER_PREFIX) {
            return Err(invalid());
        }
        let digest = secret::digest(token);
        if let Some(key) = self.store.system_key_by_digest(&digest).await? {
            if !secret::ct_eq(&key.digest, &digest) || !key.enabled {
                return Err(invalid());
            }
            let user = self
                .store
                .user_by_email(SYSTEM_USER_EMAIL)
                .await?
                .ok_or_else(ApiError::internal)?;
            return Ok(Caller::SystemKey {
                user,
                key_id: key.id,
            });
        }
        if self.store.node_by_key_digest(&digest).await?.is_some() {
            return Err(ApiError::new(
                401,
                "NODE_KEY_NOT_ACCEPTED",
                "node keys only open the node WebSocket",
            ));
        }
        Err(invalid())
    }

    async fn session_caller(&self, meta: &RequestMeta) -> Result<Option<Caller>, ApiError> {
        let Some(token) = meta.session_cookie.as_deref() else {
            return Ok(None);
        };
        if token.len() != secret::TOKEN_BODY_CHARS {
            return Ok(None);
        }
        Ok(self
            .store
            .session_user(&secret::digest(token), self.now())
            .await?
            .map(|(session_digest, user)| Caller::Session {
                user,
                session_digest,
            }))
    }

    /// Any valid credential: a bearer system key or a session cookie.
    pub async fn caller(&self, meta: &RequestMeta) -> Result<Caller, ApiError> {
        if let Some(token) = self.bearer(meta)? {
            return self.bearer_caller(token).await;
        }
        self.session_caller(meta)
            .await?
            .ok_or_else(|| ApiError::new(401, "UNAUTHENTICATED", "sign in first"))
    }

    /// A session cookie only; any bearer credential is 403.
    pub async fn session(&self, meta: &RequestMeta) -> Result<Caller, ApiError> {
        if !meta.authorization.is_empty() {
            return Err(ApiError::new(
                403,
                "BEARER_NOT_ALLOWED",
                "this route accepts a browser session only",
            ));
        }
        self.session_caller(meta)
            .await?
            .ok_or_else(|| ApiError::new(401, "UNAUTHENTICATED", "sign in first"))
    }

    /// An admin's session cookie only.
    pub async fn admin(&self, meta: &RequestMeta) -> Result<Caller, ApiError> {
        let c = self.session(meta).await?;
        if c.is_admin_session() {
            Ok(c)
        } else {
            Err(ApiError::new(
                403,
                "ADMIN_REQUIRED",
                "an administrator's session is required",
            ))
        }
    }

    // ----- setup and settings -----

    /// `GET /api/setup/status`.
    pub async fn setup_status(&self) -> Result<Value, ApiError> {
        Ok(json!({ "setupDone": self.store.setup_done().await? }))
    }

    /// `POST /api/setup`: the first (admin) account.
    pub async fn setup(&self, body: &Value) -> Result<Value, ApiError> {
        let obj = object(body)?;
        only_fields(obj, &["email", "displayName", "password"])?;
        let email = email_field(obj)?;
        let display = string_field(obj, "displayName", 1, 100)?.to_owned();
        let password = string_field(obj, "password", 8, 1024)?.to_owned();
        if self.store.setup_done().await? {
            return Err(ApiError::new(
                409,
                "SETUP_ALREADY_DONE",
                "the first account already exists",
            ));
        }
        let hash = smol::unblock(move || hash_password(&password)).await?;
        match self
            .store
            .create_first_admin(&email, &display, &hash, self.now())
            .await?
        {
            Some(u) => Ok(user_json(&u)),
            None => Err(ApiError::new(
                409,
                "SETUP_ALREADY_DONE",
                "the first account already exists",
            )),
        }
    }

    /// `GET /api/settings/instance`.
    pub async fn instance_settings(&self) -> Result<Value, ApiError> {
        Ok(json!({ "displayName": self.store.display_name().await? }))
    }

    /// `GET /api/settings/public`.
    pub async fn public_settings(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        self.caller(meta).await?;
        Ok(json!({ "trustedOrigins": self.settings.trusted_origins() }))
    }

    // ----- sign-in -----

    /// `POST /api/auth/sign-in`. Returns the new session token (for the cookie) and the account.
    pub async fn sign_in(
        &self,
        meta: &RequestMeta,
        body: &Value,
    ) -> Result<(String, Value), ApiError> {
        let obj = object(body)?;
        only_fields(obj, &["email", "password"])?;
        let email = email_field(obj)?;
        let password = string_field(obj, "password", 1, 1024)?.to_owned();
        let acct_key = format!("acct:{email}");
        let ip_key = format!("ip:{}", meta.peer_ip);
        self.sign_in_backoff
            .reserve(
                &[
                    (&acct_key, ACCOUNT_FREE_FAILURES),
                    (&ip_key, IP_FREE_FAILURES),
                ],
                self.now(),
            )
            .map_err(too_many)?;
        let user = self.store.user_by_email(&email).await?;
        let phc = user
            .as_ref()
            .and_then(|u| u.password_hash.clone())
            .unwrap_or_else(|| self.dummy_hash.clone());
        let ok = smol::unblock(move || verify_password(&password, &phc)).await;
        let user = match user {
            Some(u) if ok && !u.disabled && u.role != "service" => u,
            _ => {
                tracing::info!(ip = %meta.peer_ip, "sign-in refused");
                return Err(ApiError::new(
                    401,
                    "INVALID_CREDENTIALS",
                    "email or password is wrong",
                ));
            }
        };
        self.sign_in_backoff.clear(&acct_key);
        self.sign_in_backoff.refund(&ip_key, IP_FREE_FAILURES);
        let previous = match self.session_caller(meta).await? {
            Some(Caller::Session { session_digest, .. }) => Some(session_digest),
            _ => meta.session_cookie.as_deref().map(secret::digest),
        };
        let token = secret::new_token("")?;
        let now = self.now();
        self.store
            .create_session(
                &secret::digest(&token),
                &user.id,
                previous.as_deref(),
                now,
                now + SESSION_LIFETIME_MS,
            )
            .await?;
        Ok((token, user_json(&user)))
    }

    /// `POST /api/auth/sign-out`: destroys the caller's session.
    pub async fn sign_out(&self, meta: &RequestMeta) -> Result<(), ApiError> {
        if let Caller::Session { session_digest, .. } = self.session(meta).await? {
            self.store.delete_session(&session_digest).await?;
        }
        Ok(())
    }

    /// `GET /api/auth/session`: the signed-in account.
    pub async fn whoami(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        let c = self.caller(meta).await?;
        let mut u = user_json(c.user());
        if let Some(o) = u.as_object_mut() {
            o.insert("isAdmin".into(), Value::Bool(c.is_admin_session()));
            o.insert(
                "via".into(),
                Value::from(match c {
                    Caller::Session { .. } => "session",
                    Caller::SystemKey { .. } => "system_key",
                }),
            );
        }
        Ok(u)
    }

    // ----- users -----

    /// `GET /api/users`.
    pub async fn users(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        self.caller(meta).await?;
        Ok(Value::Array(
            self.store.users().await?.iter().map(user_json).collect(),
        ))
    }

    /// `POST /api/users`.
    pub async fn create_user(&self, meta: &RequestMeta, body: &Value) -> Result<Value, ApiError> {
        let admin = self.admin(meta).await?;
        let obj = object(body)?;
        only_fields(obj, &["email", "displayName", "password", "role"])?;
        let email = email_field(obj)?;
        let display = string_field(obj, "displayName", 1, 100)?.to_owned();
        let password = string_field(obj, "password", 8, 1024)?.to_owned();
        let role = match obj.get("role") {
            None => "user",
            Some(Value::String(r)) if r == "user" || r == "admin" => r.as_str(),
            Some(_) => {
                return Err(ApiError::validation(
                    "role",
                    "`role` must be `user` or `admin`",
                ));
            }
        }
        .to_owned();
        let hash = smol::unblock(move || hash_password(&password)).await?;
        match self
            .store
            .create_user(&admin.user().id, &email, &display, &role, &hash, self.now())
            .await?
        {
            Some(u) => Ok(user_json(&u)),
            None => Err(ApiError::new(
                409,
                "EMAIL_TAKEN",
                "an account with that email exists",
            )),
        }
    }

    /// `POST /api/users/:id/disable` and `…/enable`.
    pub async fn set_user_disabled(
        &self,
        meta: &RequestMeta,
        id: &str,
        disabled: bool,
    ) -> Result<Value, ApiError> {
        let admin = self.admin(meta).await?;
        if disabled && admin.user().id == id {
            return Err(ApiError::validation(
                "id",
                "an administrator cannot disable their own account",
            ));
        }
        if !self
            .store
            .set_user_disabled(&admin.user().id, id, disabled, self.now())
            .await?
        {
            return Err(ApiError::not_found("account"));
        }
        let u = self
            .store
            .user_by_id(id)
            .await?
            .ok_or_else(|| ApiError::not_found("account"))?;
        Ok(user_json(&u))
    }

    // ----- system keys -----

    /// `POST /api/system-keys`: the plaintext is in this answer and nowhere else, ever.
    pub async fn create_system_key(
        &self,
        meta: &RequestMeta,
        body: &Value,
    ) -> Result<Value, ApiError> {
        let admin = self.admin(meta).await?;
        let obj = object(body)?;
        only_fields(obj, &["name"])?;
        let name = string_field(obj, "name", 1, 100)?;
        let token = secret::new_token(BEARER_PREFIX)?;
        let preview = secret::preview(&token, BEARER_PREFIX);
        let k = self
            .store
            .create_system_key(
                &admin.user().id,
                name,
                &secret::digest(&token),
                &preview,
                self.now(),
            )
            .await?;
        Ok(
            json!({ "id": k.id, "name": k.name, "preview": k.preview, "enabled": k.enabled, "createdAt": k.created_at, "key": token }),
        )
    }

    /// `GET /api/system-keys`.
    pub async fn system_keys(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        self.admin(meta).await?;
        Ok(serde_json::to_value(self.store.system_keys().await?).unwrap_or_default())
    }

    /// `POST /api/system-keys/:id/disable`.
    pub async fn disable_system_key(
        &self,
        meta: &RequestMeta,
        id: &str,
    ) -> Result<Value, ApiError> {
        let admin = self.admin(meta).await?;
        if !self
            .store
            .disable_system_key(&admin.user().id, id, self.now())
            .await?
        {
            return Err(ApiError::not_found("system key"));
        }
        Ok(json!({ "id": id, "enabled": false }))
    }

    /// `DELETE /api/system-keys/:id`.
    pub async fn delete_system_key(&self, meta: &RequestMeta, id: &str) -> Result<(), ApiError> {
        let admin = self.admin(meta).await?;
        if !self
            .store
            .delete_system_key(&admin.user().id, id, self.now())
            .await?
        {
            return Err(ApiError::not_found("system key"));
        }
        Ok(())
    }

    // ----- setup keys -----

    fn setup_key_json(k: &SetupKey, now: i64) -> Value {
        let status = setup_key_status(k, now);
        json!({
            "id": k.id,
            "key": if status == "active" { Value::from(k.key_text.clone()) } else { Value::Null },
            "preview": secret::preview(&k.key_text, SETUP_KEY_PREFIX),
            "status": status,
            "createdAt": k.created_at,
            "expiresAt": k.expires_at,
            "usedAt": k.used_at,
            "usedByNodeId": k.used_by_node_id,
            "revokedAt": k.revoked_at,
        })
    }

    /// `POST /api/setup-keys`.
    pub async fn create_setup_key(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        let c = self.session(meta).await?;
        let now = self.now();
        let key_text = secret::new_token(SETUP_KEY_PREFIX)?;
        let validity = i64::try_from(termplane_proto::limits::SETUP_KEY_VALIDITY.as_millis())
            .unwrap_or(i64::MAX);
        let k = SetupKey {
            id: secret::new_id()?,
            digest: secret::digest(&key_text),
            key_text,
            owner_user_id: c.user().id.clone(),
            created_at: now,
            expires_at: now + validity,
            used_at: None,
            used_by_node_id: None,
            revoked_at: None,
        };
        self.store.create_setup_key(&k).await?;
        Ok(Self::setup_key_json(&k, now))
    }

    /// `GET /api/setup-keys`: an admin sees every key, others their own.
    pub async fn setup_keys(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        let c = self.session(meta).await?;
        let owner = if c.is_admin_session() {
            None
        } else {
            Some(c.user().id.as_str())
        };
        let now = self.now();
        Ok(Value::Array(
            self.store
                .setup_keys(owner)
                .await?
                .iter()
                .map(|k| Self::setup_key_json(k, now))
                .collect(),
        ))
    }

    /// `DELETE /api/setup-keys/:id`: revokes an unused key.
    pub async fn revoke_setup_key(&self, meta: &RequestMeta, id: &str) -> Result<(), ApiError> {
        let c = self.session(meta).await?;
        let k = self
            .store
            .setup_key_by_id(id)
            .await?
            .ok_or_else(|| ApiError::not_found("setup key"))?;
        if !c.is_admin_session() && k.owner_user_id != c.user().id {
            return Err(ApiError::not_found("setup key"));
        }
        if !self
            .store
            .revoke_setup_key(&c.user().id, id, self.now())
            .await?
        {
            return Err(ApiError::new(
                409,
                "SETUP_KEY_NOT_REVOCABLE",
                "the setup key is already used or revoked",
            ));
        }
        Ok(())
    }

    // ----- enrollment -----

    /// `POST /api/nodes/enroll` (the setup key in the body is the credential).
    pub async fn enroll(&self, meta: &RequestMeta, body: &Value) -> Result<Value, ApiError> {
        let now = self.now();
        let ip_key = format!("enroll-ip:{}", meta.peer_ip);
        self.enroll_backoff.check(&ip_key, now).map_err(too_many)?;
        let obj = object(body)?;
        let invalid = || ApiError::new(401, "SETUP_KEY_INVALID", "the setup key is not valid");
        let key_text = obj.get("setupKey").and_then(Value::as_str).unwrap_or("");
        if !secret::well_formed(key_text, SETUP_KEY_PREFIX) {
            self.enroll_backoff.fail(&ip_key, ENROLL_FREE_FAILURES, now);
            return Err(invalid());
        }
        only_fields(
            obj,
            &[
                "setupKey",
                "name",
                "os",
                "arch",
                "hostname",
                "agentVersion",
                "identityJwk",
                "encryptPublicKey",
            ],
        )?;
        let name =
            string_field(obj, "name", 1, termplane_proto::limits::NODE_NAME_MAX_CHARS)?.to_owned();
        let os = string_field(obj, "os", 1, 16)?;
        if !matches!(os, "linux" | "darwin" | "unknown") {
            return Err(ApiError::validation(
                "os",
                "`os` must be linux, darwin or unknown",
            ));
        }
        let arch = string_field(obj, "arch", 1, 64)?.to_owned();
        let hostname = string_field(obj, "hostname", 1, 255)?.to_owned();
        let agent_version = string_field(obj, "agentVersion", 1, 64)?.to_owned();
        let jwk = validate_jwk(obj.get("identityJwk"))?;
        let encrypt_public_key = match obj.get("encryptPublicKey") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(
                termplane_proto::key::Key32::from_b64(s)
                    .map_err(|_| {
                        ApiError::validation(
                            "encryptPublicKey",
                            "`encryptPublicKey` must be 32 bytes of unpadded base64url",
                        )
                    })?
                    .to_b64(),
            ),
            Some(_) => {
                return Err(ApiError::validation(
                    "encryptPublicKey",
                    "`encryptPublicKey` must be a string",
                ));
            }
        };

        // Peek: a specific answer for each state of the key.
        let digest = secret::digest(key_text);
        let Some(k) = self
            .store
            .setup_key_by_digest(&digest)
            .await?
            .filter(|k| secret::ct_eq(&k.digest, &digest))
        else {
            self.enroll_backoff.fail(&ip_key, ENROLL_FREE_FAILURES, now);
            return Err(invalid());
        };
        let state_error = |status: &str| match status {
            "used" => Some(ApiError::new(
                409,
                "SETUP_KEY_SPENT",
                "the setup key was already used",
            )),
            "revoked" => Some(ApiError::new(
                401,
                "SETUP_KEY_REVOKED",
                "the setup key was revoked",
            )),
            "expired" => Some(ApiError::new(
                401,
                "SETUP_KEY_EXPIRED",
                "the setup key expired",
            )),
            _ => None,
        };
        if let Some(e) = state_error(setup_key_status(&k, now)) {
            return Err(e);
        }

        // Consume: one winner, in the same transaction as the node row.
        let node_key = secret::new_token(BEARER_PREFIX)?;
        let new = NewNode {
            name,
            os: os.to_owned(),
            arch,
            hostname,
            agent_version,
            identity_jwk: jwk.to_string(),
            encrypt_public_key,
            node_key_digest: secret::digest(&node_key),
            ws_url: self.settings.ws_url(),
        };
        match self
            .store
            .enroll(&k.id, &k.owner_user_id, &new, now)
            .await?
        {
            Consume::Enrolled(node_id) => {
                let (jwk, control_key) = plane_public_material(&self.secrets);
                Ok(json!({
                    "nodeId": node_id,
                    "nodeKey": node_key,
                    "signingPublicJwk": jwk,
                    "controlEncryptPublicKey": control_key,
                    "wsUrl": new.ws_url,
                }))
            }
            Consume::Lost => {
                let status = match self.store.setup_key_by_id(&k.id).await? {
                    Some(k) => setup_key_status(&k, now),
                    None => "used",
                };
                Err(state_error(status).unwrap_or_else(|| {
                    ApiError::new(409, "SETUP_KEY_SPENT", "the setup key was already used")
                }))
            }
        }
    }

    // ----- nodes -----

    async fn owned_node(&self, c: &Caller, id: &str) -> Result<Node, ApiError> {
        let n = self
            .store
            .node(id)
            .await?
            .ok_or_else(|| ApiError::not_found("node"))?;
        let visible = c.is_admin_session()
            || n.is_local
            || n.owner_user_id.as_deref() == Some(c.user().id.as_str());
        if visible {
            Ok(n)
        } else {
            Err(ApiError::not_found("node"))
        }
    }

    /// [`Self::owned_node`] for writes the local node does not support: 403 `LOCAL_NODE`
    /// saying `why` when `id` names the plane's own row.
    async fn owned_remote_node(&self, c: &Caller, id: &str, why: &str) -> Result<Node, ApiError> {
        let n = self.owned_node(c, id).await?;
        if n.is_local {
            return Err(ApiError::new(403, "LOCAL_NODE", why.to_owned()));
        }
        Ok(n)
    }

    /// `GET /api/nodes`: a session sees its nodes and the local node (an admin sees all); a
    /// system key lists the nodes owned by `system`.
    pub async fn nodes(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        let c = self.caller(meta).await?;
        let rows = match &c {
            Caller::SystemKey { user, .. } => self.store.nodes_owned_by(&user.id).await?,
            Caller::Session { user, .. } if user.role == "admin" => self.store.nodes(None).await?,
            Caller::Session { user, .. } => self.store.nodes(Some(&user.id)).await?,
        };
        Ok(Value::Array(rows.iter().map(node_json).collect()))
    }

    /// `GET /api/nodes/:id` (session only).
    pub async fn node(&self, meta: &RequestMeta, id: &str) -> Result<Value, ApiError> {
        let c = self.session(meta).await?;
        Ok(node_json(&self.owned_node(&c, id).await?))
    }

    /// `DELETE /api/nodes/:id` (session only).
    pub async fn delete_node(&self, meta: &RequestMeta, id: &str) -> Result<(), ApiError> {
        let c = self.session(meta).await?;
        self.owned_remote_node(&c, id, "the local node cannot be deleted")
            .await?;
        if !self.store.delete_node(&c.user().id, id, self.now()).await? {
            return Err(ApiError::not_found("node"));
        }
        self.links.kick(id);
        Ok(())
    }

    /// `POST /api/nodes/:id/key_rotate` (session only): the old key stops working at once, the
    /// new one is in this answer only, and the encryption pin is cleared.
    pub async fn rotate_node_key(&self, meta: &RequestMeta, id: &str) -> Result<Value, ApiError> {
        let c = self.session(meta).await?;
        self.owned_remote_node(&c, id, "the local node has no node key")
            .await?;
        let node_key = secret::new_token(BEARER_PREFIX)?;
        if !self
            .store
            .rotate_node_key(&c.user().id, id, &secret::digest(&node_key), self.now())
            .await?
        {
            return Err(ApiError::not_found("node"));
        }
        self.links.kick(id);
        Ok(json!({ "nodeId": id, "nodeKey": node_key }))
    }

    /// `PUT /api/nodes/:id/allowed_dirs` (session only): `{ allowedDirs: [absolute paths] }`.
    pub async fn set_allowed_dirs(
        &self,
        meta: &RequestMeta,
        id: &str,
        body: &Value,
    ) -> Result<Value, ApiError> {
        let c = self.session(meta).await?;
        self.owned_node(&c, id).await?;
        let obj = object(body)?;
        only_fields(obj, &["allowedDirs"])?;
        let field = "allowedDirs";
        let dirs = obj.get(field).and_then(Value::as_array).ok_or_else(|| {
            ApiError::validation(field, "`allowedDirs` must be an array of absolute paths")
        })?;
        if dirs.len() > 256 {
            return Err(ApiError::validation(field, "at most 256 directories"));
        }
        let mut out = Vec::with_capacity(dirs.len());
        for d in dirs {
            let s = d.as_str().filter(|s| {
                s.starts_with('/')
                    && s.len() <= 4096
                    && !s.contains('\0')
                    && !s.split('/').any(|p| p == "..")
            });
            match s {
                Some(s) => out.push(Value::from(s)),
                None => {
                    return Err(ApiError::validation(
                        field,
                        "every entry must be an absolute path without `..`",
                    ));
                }
            }
        }
        let text = Value::Array(out).to_string();
        if !self
            .store
            .set_allowed_dirs(&c.user().id, id, &text, self.now())
            .await?
        {
            return Err(ApiError::not_found("node"));
        }
        self.push_allowed_dirs(id).await;
        self.node(meta, id).await
    }

    /// `PUT /api/nodes/:id/maintenance` (session only): `{ on }`. Writes the row's maintenance
    /// mirror `{ on, changedAt }` (the plane's clock, ISO 8601 UTC), audits it, and pushes the
    /// same mirror to the node with `set_maintenance` when its link is online. Nothing re-sends
    /// the mirror to a node that was offline: the node's own maintenance file is what it reports
    /// in `ready`, so the answer says whether the push reached it (`pushed`).
    pub async fn set_maintenance(
        &self,
        meta: &RequestMeta,
        id: &str,
        body: &Value,
    ) -> Result<Value, ApiError> {
        let c = self.session(meta).await?;
        self.owned_remote_node(&c, id, "the local node has no maintenance mirror")
            .await?;
        let obj = object(body)?;
        only_fields(obj, &["on"])?;
        let on = obj
            .get("on")
            .and_then(Value::as_bool)
            .ok_or_else(|| ApiError::validation("on", "`on` must be a boolean"))?;
        let mirror = termplane_proto::command::Maintenance {
            on,
            changed_at: iso8601_utc(self.now()),
        };
        let text = serde_json::to_string(&mirror).unwrap_or_default();
        // The write and its push in one order across concurrent edits (the node's mirror ends
        // equal to the row's).
        let lock = self.links.node_lock(id);
        let _serial = lock.lock().await;
        if !self
            .store
            .set_maintenance(&c.user().id, id, &text, self.now())
            .await?
        {
            return Err(ApiError::not_found("node"));
        }
        let pushed = match self
            .node_command_serialized(id, Command::SetMaintenance(mirror.clone()))
            .await
        {
            Ok(r) => r.ok,
            Err(e) => {
                tracing::debug!(node = %id, code = e.code, "maintenance mirror not pushed");
                false
            }
        };
        Ok(json!({ "on": mirror.on, "changedAt": mirror.changed_at, "pushed": pushed }))
    }

    // ----- the node link -----

    /// The node a node key authenticates, through the one digest chain the upgrade and the
    /// sealed binding share: well-formed `tp_` token, SHA-256 digest lookup, constant-time
    /// compare, key enabled, row remote.
    ///
    /// * 401 — absent, malformed, unknown (a rotated key's digest is gone from its row, and a
    ///   deleted node's row is gone: both read as unknown), disabled, or another kind of key;
    /// * 403 — a valid node key whose row is the local node, or whose row no longer carries its
    ///   digest when re-read (the binding flipped between lookup and check).
    pub async fn node_by_key(&self, token: &str) -> Result<Node, ApiError> {
        let unauthorized = |code: &'static str, msg: &str| ApiError::new(401, code, msg.to_owned());
        if !secret::well_formed(token, BEARER_PREFIX) {
            return Err(unauthorized("NODE_KEY_INVALID", "not a node key"));
        }
        let digest = secret::digest(token);
        let Some(node) = self.store.node_by_key_digest(&digest).await? else {
            if self.store.system_key_by_digest(&digest).await?.is_some() {
                return Err(unauthorized(
                    "NODE_KEY_WRONG_KIND",
                    "a system key cannot open the node WebSocket",
                ));
            }
            return Err(unauthorized(
                "NODE_KEY_INVALID",
                "unknown node key (rotated, or its node was deleted)",
            ));
        };
        let bound = node
            .node_key_digest
            .as_deref()
            .is_some_and(|d| secret::ct_eq(d, &digest));
        if !bound {
            return Err(ApiError::new(
                403,
                "NODE_KEY_UNBOUND",
                "the node key is no longer bound to this node",
            ));
        }
        if node.key_disabled {
            return Err(unauthorized(
                "NODE_KEY_DISABLED",
                "the node key is disabled",
            ));
        }
        if node.is_local {
            return Err(ApiError::new(
                403,
                "LOCAL_NODE",
                "the local node runs no node daemon",
            ));
        }
        Ok(node)
    }

    /// Authenticates a `/ws/node` upgrade by its bearer node key.
    pub async fn node_upgrade(&self, meta: &RequestMeta) -> Result<Node, ApiError> {
        let token = self.bearer(meta)?.ok_or_else(|| {
            ApiError::new(
                401,
                "NODE_KEY_MISSING",
                "the node WebSocket needs a bearer node key",
            )
        })?;
        self.node_by_key(token).await
    }

    /// Sends one command to a node over its current socket and waits for the result.
    ///
    /// Commands to one node are serialized in call order (a FIFO lock per node). The envelope
    /// is an ES256 JWS with `iss`, `aud: node:<id>`, a random 128-bit hex `jti` (also the
    /// result's `ref`), `iat`, `exp = iat + 30` and the `seq` the socket's machine assigns. The
    /// result settles only on the socket the command left on: if that socket ends first, the
    /// call fails. Deadline 10 s, 5 min for `update`.
    ///
    /// Errors: 409 `NODE_OFFLINE` (no online socket; a held node takes only `update`), 502
    /// `NODE_LINK_CLOSED` (the socket ended before answering), 502 `NODE_BAD_RESULT`, 504
    /// `NODE_TIMEOUT`.
    pub async fn node_command(
        &self,
        node_id: &str,
        command: Command,
    ) -> Result<CommandResult, ApiError> {
        let lock = self.links.node_lock(node_id);
        let _serial = lock.lock().await;
        self.node_command_serialized(node_id, command).await
    }

    /// [`Service::node_command`] for a caller that already holds the node's command lock (to
    /// keep a row write and the push that mirrors it in one order across callers).
    async fn node_command_serialized(
        &self,
        node_id: &str,
        command: Command,
    ) -> Result<CommandResult, ApiError> {
        let offline = || {
            ApiError::new(409, "NODE_OFFLINE", "the node is offline")
                .with_metadata(json!({ "nodeId": node_id }))
        };
        let is_update = command.is_update();
        let (tx, status) = self.links.current(node_id).ok_or_else(offline)?;
        match status {
            LinkStatus::Online => {}
            LinkStatus::Held { .. } if is_update => {}
            _ => return Err(offline()),
        }
        let jti = secret::hex_lower(&secret::random_bytes::<16>()?);
        let iat = self.now().div_euclid(1000);
        let cmd = serde_json::to_value(&command).map_err(|_| ApiError::internal())?;
        let signer = self.signer.clone();
        let aud = termplane_proto::node_audience(node_id);
        let claims_jti = jti.clone();
        let sign = Box::new(move |seq: u64| {
            signer.sign(&termplane_proto::Claims {
                iss: termplane_proto::COMMAND_ISSUER.to_owned(),
                aud,
                jti: claims_jti,
                iat,
                exp: iat + 30,
                seq,
                cmd,
            })
        });
        let (reply, outcome) = smol::channel::bounded(1);
        let deadline = if is_update {
            termplane_proto::limits::UPDATE_COMMAND_DEADLINE
        } else {
            termplane_proto::limits::COMMAND_DEADLINE
        };
        let exchange = async {
            tx.send(PlaneCommand::Dispatch(Dispatch {
                jti: jti.clone(),
                is_update,
                sign,
                reply,
            }))
            .await
            .map_err(|_| offline())?;
            match outcome.recv().await {
                Ok(DispatchOutcome::Result(r)) if r.reference == jti => Ok(r),
                Ok(DispatchOutcome::Result(_) | DispatchOutcome::Malformed) => Err(ApiError::new(
                    502,
                    "NODE_BAD_RESULT",
                    "the node answered with a malformed result",
                )),
                Ok(DispatchOutcome::NotSent(_)) => Err(offline()),
                Err(_) => Err(ApiError::new(
                    502,
                    "NODE_LINK_CLOSED",
                    "the node's connection closed before it answered",
                )),
            }
        };
        futures_lite::FutureExt::or(exchange, async {
            smol::Timer::after(deadline).await;
            Err(ApiError::new(
                504,
                "NODE_TIMEOUT",
                "the node did not answer in time",
            ))
        })
        .await
    }

    /// Pushes a node's persisted allowed directories with `set_allowed_dirs` (after each ready
    /// and on every edit). An offline node gets them after its next ready.
    ///
    /// The row is read under the node's command lock, so of two pushes racing (an edit and a
    /// ready, or two edits) the later one always carries the newer list.
    pub async fn push_allowed_dirs(&self, node_id: &str) {
        let lock = self.links.node_lock(node_id);
        let _serial = lock.lock().await;
        let Ok(Some(node)) = self.store.node(node_id).await else {
            return;
        };
        let dirs: Vec<String> = serde_json::from_str(&node.allowed_dirs).unwrap_or_default();
        let cmd = Command::SetAllowedDirs(termplane_proto::command::SetAllowedDirs { dirs });
        match self.node_command_serialized(node_id, cmd).await {
            Ok(r) if r.ok => tracing::debug!(node = %node_id, "allowed directories pushed"),
            Ok(r) => {
                tracing::warn!(node = %node_id, error = ?r.error, "node refused set_allowed_dirs")
            }
            Err(e) => {
                tracing::debug!(node = %node_id, code = e.code, "allowed directories not pushed")
            }
        }
    }

    /// `POST /api/nodes/:id/ping` (session only): `{ ok, rttMs }` (and `error` when the node
    /// refused).
    pub async fn ping_node(&self, meta: &RequestMeta, id: &str) -> Result<Value, ApiError> {
        let c = self.session(meta).await?;
        let n = self.owned_node(&c, id).await?;
        if n.is_local {
            return Ok(json!({ "ok": true, "rttMs": 0 }));
        }
        let clock = termplane_runtime_smol::SystemClock;
        let started = termplane_runtime_smol::Clock::now(&clock);
        let r = self
            .node_command(id, Command::Ping(termplane_proto::command::Empty {}))
            .await?;
        let rtt = termplane_runtime_smol::Clock::now(&clock).duration_since(started);
        let mut v =
            json!({ "ok": r.ok, "rttMs": u64::try_from(rtt.as_millis()).unwrap_or(u64::MAX) });
        if let Some(e) = r.error {
            v["error"] = Value::String(e);
        }
        Ok(v)
    }

    /// `POST /api/nodes/:id/commands` (administrator session only): the admin and debug surface
    /// of the dispatcher. The body is one node command as its JSON (`{ "type": "capture", … }`,
    /// the protocol's `Command`); it is signed and sent through the live link like any other and
    /// the node's `result` comes back as `result`, with `sentAtUs` (Unix microseconds just before
    /// dispatch) and `elapsedUs` (dispatch to result, measured in the plane).
    pub async fn node_command_admin(
        &self,
        meta: &RequestMeta,
        id: &str,
        body: &Value,
    ) -> Result<Value, ApiError> {
        let c = self.admin(meta).await?;
        self.owned_remote_node(
            &c,
            id,
            "the local node has no link to send commands through",
        )
        .await?;
        let command: Command = serde_json::from_value(body.clone())
            .map_err(|e| ApiError::validation("body", format!("not a node command: {e}")))?;
        let sent_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
        let started = std::time::Instant::now();
        let r = self.node_command(id, command).await?;
        let elapsed = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        Ok(json!({
            "result": serde_json::to_value(&r).map_err(|_| ApiError::internal())?,
            "sentAtUs": sent_at,
            "elapsedUs": elapsed,
        }))
    }

    /// `GET /api/nodes/:id/events?after=N&waitMs=M` (session only): the node's recent events
    /// after sequence number `N` (see [`crate::link::events`]), waiting up to `M` ms (at most
    /// 25 s) for the first one.
    pub async fn node_events_read(
        &self,
        meta: &RequestMeta,
        id: &str,
        after: u64,
        wait_ms: u64,
    ) -> Result<Value, ApiError> {
        let c = self.session(meta).await?;
        self.owned_node(&c, id).await?;
        Ok(self
            .events
            .read(id, after, std::time::Duration::from_millis(wait_ms))
            .await)
    }

    /// `GET /api/downloads/node/:platform` (no credential): where the node binary for
    /// `platform` (`<os>-<arch>`, e.g. `linux-x86_64`) is, its length and its SHA-256.
    ///
    /// With `TERMPLANE_NODE_DOWNLOADS` set, the file is `<that dir>/termplane-node-<platform>`;
    /// otherwise the plane serves the `termplane-node` next to its own executable, for this
    /// machine's platform only. Anything else is `NOT_FOUND`.
    pub async fn node_download(
        &self,
        platform: &str,
    ) -> Result<(std::path::PathBuf, u64, String), ApiError> {
        let missing = || ApiError::not_found("download");
        let valid = platform.len() <= 64
            && platform.split_once('-').is_some_and(|(os, arch)| {
                let part = |p: &str| {
                    !p.is_empty()
                        && p.bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                };
                part(os) && part(arch)
            });
        if !valid {
            return Err(missing());
        }
        let path = match std::env::var_os("TERMPLANE_NODE_DOWNLOADS") {
            Some(dir) if !dir.is_empty() => {
                std::path::PathBuf::from(dir).join(format!("termplane-node-{platform}"))
            }
            _ => {
                let here = format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH);
                if platform != here {
                    return Err(missing());
                }
                std::env::current_exe()
                    .ok()
                    .and_then(|e| e.parent().map(|d| d.join("termplane-node")))
                    .ok_or_else(missing)?
            }
        };
        let hashed = smol::unblock(move || -> std::io::Result<_> {
            use sha2::Digest as _;
            use std::io::Read as _;
            let mut f = std::fs::File::open(&path)?;
            let meta = f.metadata()?;
            if !meta.is_file() {
                return Err(std::io::ErrorKind::NotFound.into());
            }
            let mut h = sha2::Sha256::new();
            let mut buf = vec![0_u8; 256 * 1024];
            let mut len = 0_u64;
            loop {
                let n = f.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                len += n as u64;
                h.update(&buf[..n]);
            }
            Ok((path, len, crate::secret::hex_lower(&h.finalize())))
        })
        .await;
        hashed.map_err(|_| missing())
    }

    /// `GET /api/admin/updates/held` (admin session only): nodes held for an update by a live
    /// socket (`held`), and rows whose stored agent version is below the floor (`belowFloor`).
    pub async fn held_nodes(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        self.admin(meta).await?;
        let mut held = Vec::new();
        for h in self.links.held() {
            let row = self.store.node(&h.node_id).await?;
            held.push(json!({
                "nodeId": h.node_id,
                "name": row.as_ref().map(|n| n.name.clone()),
                "agentVersion": row.as_ref().map(|n| n.agent_version.clone()),
                "liveness": row.as_ref().map(|n| n.liveness.clone()),
                "reason": h.reason,
            }));
        }
        let below: Vec<Value> = self
            .store
            .nodes(None)
            .await?
            .into_iter()
            .filter(|n| !n.is_local)
            .filter(|n| {
                termplane_proto::Version::parse(&n.agent_version)
                    .map_or(true, |v| v < termplane_proto::MIN_NODE_VERSION)
            })
            .map(|n| json!({ "nodeId": n.id, "name": n.name, "agentVersion": n.agent_version }))
            .collect();
        Ok(json!({
            "minNodeVersion": termplane_proto::MIN_NODE_VERSION.to_string(),
            "held": held,
            "belowFloor": below,
        }))
    }

    // ----- audit -----

    /// `GET /api/audit` (admin session only).
    pub async fn audit(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        self.admin(meta).await?;
        Ok(serde_json::to_value(self.store.audit_entries(500).await?).unwrap_or_default())
    }
}

fn validate_jwk(v: Option<&Value>) -> Result<Value, ApiError> {
    let field = "identityJwk";
    let bad = || {
        ApiError::validation(
            field,
            "`identityJwk` must be a P-256 public JWK { kty: EC, crv: P-256, x, y }",
        )
    };
    let obj = v.and_then(Value::as_object).ok_or_else(bad)?;
    if obj
        .keys()
        .any(|k| !matches!(k.as_str(), "kty" | "crv" | "x" | "y"))
    {
        return Err(bad());
    }
    let coord = |k: &str| {
        obj.get(k)
            .and_then(Value::as_str)
            .and_then(|s| termplane_proto::key::b64url_decode(s).ok())
            .is_some_and(|b| b.len() == 32)
    };
    if obj.get("kty").and_then(Value::as_str) != Some("EC")
        || obj.get("crv").and_then(Value::as_str) != Some("P-256")
        || !coord("x")
        || !coord("y")
    {
        return Err(bad());
    }
    Ok(json!({ "kty": "EC", "crv": "P-256", "x": obj["x"], "y": obj["y"] }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn canonical_paths_fold_variants() {
        for p in [
            "/api/system-keys",
            "/API/System-Keys",
            "//api//system-keys",
            "/api/../api/system-keys",
            "/api/%2e%2e/api/system-keys",
            "/api/system-keys;jsessionid=1",
            "/api/system-keys.",
            "/api/%73ystem-keys",
            "/api/./system-keys/",
        ] {
            assert_eq!(canonical_path(p), "/api/system-keys", "{p}");
            assert!(is_admin_surface("GET", &canonical_path(p)), "{p}");
        }
        assert!(!is_admin_surface("GET", "/api/users"));
        assert!(is_admin_surface("POST", "/api/users"));
        assert!(is_admin_surface("OPTIONS", "/api/users/x/disable"));
        assert!(is_admin_surface("HEAD", "/api/audit"));
    }

    #[test]
    fn origins_normalize() {
        assert_eq!(
            normalize_origin("HTTPS://Plane.Example:443/x").as_deref(),
            Some("https://plane.example")
        );
        assert_eq!(
            normalize_origin("http://127.0.0.1:7420").as_deref(),
            Some("http://127.0.0.1:7420")
        );
        assert_eq!(normalize_origin("null"), None);
        assert_eq!(normalize_origin("ftp://x"), None);
    }

    #[test]
    fn backoff_reservations_serialize_parallel_attempts() {
        let b = Backoff::new(1_000, 60_000);
        let mut passed = 0;
        for _ in 0..50 {
            if b.reserve(&[("k", 3)], 0).is_ok() {
                passed += 1;
            }
        }
        assert_eq!(passed, 4);
        assert_eq!(b.reserve(&[("k", 3)], 999), Err(1));
        assert!(b.reserve(&[("k", 3)], 1_000).is_ok());
        // fifth failure: wait doubles
        assert_eq!(b.reserve(&[("k", 3)], 2_999), Err(1));
        assert!(b.reserve(&[("k", 3)], 3_000).is_ok());
        assert_eq!(b.reserve(&[("k", 3)], 3_000), Err(4_000));
    }
}

/// `ms` (Unix milliseconds) as an ISO 8601 UTC timestamp with millisecond precision.
#[must_use]
pub fn iso8601_utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod iso_tests {
    use super::iso8601_utc;

    #[test]
    fn milliseconds_format_as_iso8601_utc() {
        assert_eq!(iso8601_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601_utc(1_795_353_911_123), "2026-11-22T13:25:11.123Z");
        assert_eq!(iso8601_utc(4_107_542_399_999), "2100-02-28T23:59:59.999Z");
        assert_eq!(iso8601_utc(-1), "1969-12-31T23:59:59.999Z");
    }
}
