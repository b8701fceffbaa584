//! The checks every request meets before routing (admin surfaces, Origin), and who the caller
//! is (bearer credential or session cookie).

use std::sync::{Arc, RwLock};

use super::backoff::{Backoff, SignInBackoff};
use super::network::Network;
use super::passkeys::Passkeys;
use super::revocations::Revocations;
use super::{Caller, RequestMeta, normalize_origin};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::secret::{self, BEARER_PREFIX};
use crate::store::{Node, SYSTEM_USER_EMAIL, Store};

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

/// Whether (canonical) `path` lies in a family that is an admin surface for every method:
/// system keys, setup keys, audit, `/api/admin/*`, auth providers, network plugins. A bearer
/// credential is refused there whatever the method or the spelling of the path.
///
/// The families that are admin surfaces for writes only (`/api/users`, `/api/settings`,
/// `/api/plugins`) are guarded by their routes: each write there requires an administrator's
/// session (a bearer gets the same 403), which a test of the route list enforces.
#[must_use]
pub fn is_admin_surface(path: &str) -> bool {
    let under = |prefix: &str| path == prefix || path.starts_with(&format!("{prefix}/"));
    [
        "/api/system-keys",
        "/api/audit",
        "/api/admin",
        "/api/auth-providers",
        "/api/network",
        "/api/setup-keys",
        "/admin",
    ]
    .iter()
    .any(|p| under(p))
}

/// The families whose writes are admin surfaces (see [`is_admin_surface`]).
pub const ADMIN_WRITE_FAMILIES: &[&str] = &["/api/users", "/api/settings", "/api/plugins"];

/// The guard domain: the checks every request meets, who a credential says the caller is,
/// signing in and out, and the trusted origins. It holds the store, the clock, the trusted
/// origins (configured, added by administrators, and the network listeners'), the revocations
/// a full disk holds in force, the sign-in and node-key backoffs, the addresses known good for
/// an account, the filler hash, the passkeys domain (a passkey sign-in) and the signal that
/// re-checks every open socket's grant at a sign-out.
pub struct Guard {
    pub(super) store: Store,
    clock: Arc<dyn Clock>,
    pub(super) configured_origins: Vec<String>,
    /// Origins administrators added to the trusted list (mirrors the database).
    pub(super) added_origins: RwLock<Vec<String>>,
    network: Arc<Network>,
    pub(super) revocations: Arc<Revocations>,
    pub(super) sign_in_backoff: Arc<SignInBackoff>,
    /// `/ws/node` upgrades whose key opens no node, per address ([`super::backoff::NODE_KEY_ADDRESS`]).
    node_key_backoff: Backoff,
    pub(super) dummy_hash: String,
    pub(super) passkeys: Arc<Passkeys>,
    pub(super) access_changed: Arc<super::words::AccessSignal>,
}

impl Guard {
    /// The guard over `store`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        configured_origins: Vec<String>,
        added_origins: Vec<String>,
        network: Arc<Network>,
        revocations: Arc<Revocations>,
        sign_in_backoff: Arc<SignInBackoff>,
        dummy_hash: String,
        passkeys: Arc<Passkeys>,
        access_changed: Arc<super::words::AccessSignal>,
    ) -> Self {
        Self {
            store,
            clock,
            configured_origins,
            added_origins: RwLock::new(added_origins),
            network,
            revocations,
            sign_in_backoff,
            node_key_backoff: Backoff::default(),
            dummy_hash,
            passkeys,
            access_changed,
        }
    }

    pub(super) fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Every origin a browser may send state-changing requests from: the configured ones
    /// ([`super::Settings::trusted_origins`]), the ones administrators added, and those of the
    /// running network plugins.
    #[must_use]
    pub fn trusted_origins(&self) -> Vec<String> {
        let mut all = self.configured_origins.clone();
        let added = self
            .added_origins
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for o in added.iter().cloned().chain(self.network.origins()) {
            if !all.contains(&o) {
                all.push(o);
            }
        }
        all
    }

    // ----- guards -----

    /// The check every request meets before routing: a bearer credential on an admin surface
    /// is 403 whatever else comes with it (path variants and methods included).
    pub fn guard_admin_surface(&self, meta: &RequestMeta) -> Result<(), ApiError> {
        if !meta.authorization.is_empty() && is_admin_surface(&canonical_path(&meta.path)) {
            return Err(ApiError::new(
                403,
                "BEARER_NOT_ALLOWED",
                "bearer credentials are not accepted on admin surfaces",
            ));
        }
        Ok(())
    }

    /// The check a request for an existing operation meets before its handler: a browser-style
    /// state-changing request (no `Authorization`; enrollment excepted) must come from a trusted
    /// Origin and not be `Sec-Fetch-Site: cross-site`. (A request for no operation changes
    /// nothing and is answered 404 or 405 first.)
    pub fn guard_origin(&self, meta: &RequestMeta) -> Result<(), ApiError> {
        let canonical = canonical_path(&meta.path);
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
                .is_some_and(|o| self.trusted_origins().contains(&o));
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

    pub(super) async fn bearer_caller(&self, token: &str) -> Result<Caller, ApiError> {
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
        self.bearer_caller_by_digest(secret::digest(token)).await
    }

    /// The caller whose bearer credential has `digest` (a system key or a subshell's token), as
    /// it stands now; 401 when it is not (or no longer) valid.
    pub(super) async fn bearer_caller_by_digest(&self, digest: String) -> Result<Caller, ApiError> {
        let invalid = || {
            ApiError::new(
                401,
                "INVALID_CREDENTIAL",
                "the credential is not valid here",
            )
        };
        if let Some(key) = self.store.system_key_by_digest(&digest).await? {
            if !secret::ct_eq(&key.digest, &digest)
                || !key.enabled
                || self.revocations.contains(&format!("system-key:{}", key.id))
            {
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
                key_digest: digest,
            });
        }
        if let Some(sub) = self.store.subshell_by_token(&digest).await? {
            let live = sub
                .token_digest
                .as_deref()
                .is_some_and(|d| secret::ct_eq(d, &digest))
                && sub.token_expires_at.is_some_and(|t| t > self.now());
            if !live {
                return Err(invalid());
            }
            let user = self
                .store
                .user_by_id(&sub.owner_user_id)
                .await?
                .filter(|u| !u.disabled)
                .ok_or_else(invalid)?;
            let permissions = serde_json::from_str(&sub.token_perms).map_err(|_| invalid())?;
            return Ok(Caller::Pane {
                user,
                subshell_id: sub.id,
                node_id: sub.node_id,
                permissions,
                token_digest: digest,
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

    pub(super) async fn session_caller(
        &self,
        meta: &RequestMeta,
    ) -> Result<Option<Caller>, ApiError> {
        let Some(token) = meta.session_cookie.as_deref() else {
            return Ok(None);
        };
        if token.len() != secret::TOKEN_BODY_CHARS {
            return Ok(None);
        }
        self.session_by_digest(&secret::digest(token)).await
    }

    /// The session whose token's digest is `digest`, unless it ended: expired, deleted, or
    /// signed out on a full disk (refused although its row is still there). Requests and the
    /// sockets a session opened are checked through here alike.
    pub(super) async fn session_by_digest(&self, digest: &str) -> Result<Option<Caller>, ApiError> {
        Ok(self
            .store
            .session_user(digest, self.now())
            .await?
            .filter(|(d, _)| !self.revocations.contains(&format!("session:{d}")))
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

    /// Whether the request carries a credential the plane accepts now: a session cookie, a
    /// system key, a subshell's token or a node key. It only tells the HTTP layer which
    /// connections are authenticated (see the caps in `crate::http`); nothing is counted,
    /// logged or refused here, and each route still checks its own credential.
    pub async fn vouches_for(&self, meta: &RequestMeta) -> bool {
        match self.bearer(meta) {
            Ok(Some(token)) => {
                self.bearer_caller(token).await.is_ok() || self.node_by_key(token).await.is_ok()
            }
            Ok(None) => matches!(self.session_caller(meta).await, Ok(Some(_))),
            Err(_) => false,
        }
    }

    /// A person or a script: a session cookie or a system key. A subshell's token is refused
    /// (403): a pane acts only on subshells and the instance-wide reads.
    pub async fn user_caller(&self, meta: &RequestMeta) -> Result<Caller, ApiError> {
        let c = self.caller(meta).await?;
        if matches!(c, Caller::Pane { .. }) {
            return Err(ApiError::new(
                403,
                "PANE_TOKEN_NOT_ALLOWED",
                "a subshell's token is not accepted here",
            ));
        }
        Ok(c)
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
}

// ----- the node link -----

impl Guard {
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
            if self.store.subshell_by_token(&digest).await?.is_some() {
                return Err(unauthorized(
                    "NODE_KEY_WRONG_KIND",
                    "a subshell's token cannot open the node WebSocket",
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

    /// Authenticates a `/ws/node` upgrade by its bearer node key. An upgrade whose bearer
    /// opens no node (401, but for a disabled key) counts against its address: past the free
    /// attempts of [`super::backoff::NODE_KEY_ADDRESS`], such upgrades are answered 429
    /// `TOO_MANY_ATTEMPTS` until the wait is over, while a valid key is never held up.
    pub async fn node_upgrade(&self, meta: &RequestMeta) -> Result<Node, ApiError> {
        let found = match self.bearer(meta) {
            Ok(Some(token)) => self.node_by_key(token).await,
            Ok(None) => Err(ApiError::new(
                401,
                "NODE_KEY_MISSING",
                "the node WebSocket needs a bearer node key",
            )),
            Err(e) => Err(e),
        };
        match found {
            Err(e) if e.status == 401 && e.code != "NODE_KEY_DISABLED" => {
                let now = self.now();
                let address = format!("node-key:{}", meta.peer_ip);
                let rule = super::backoff::NODE_KEY_ADDRESS;
                self.node_key_backoff
                    .check(&address, rule, now)
                    .map_err(super::too_many)?;
                self.node_key_backoff.fail(&address, rule, now);
                Err(e)
            }
            other => other,
        }
    }
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
            assert!(is_admin_surface(&canonical_path(p)), "{p}");
        }
        assert!(!is_admin_surface("/api/users"));
        assert!(!is_admin_surface("/api/settings/public"));
        assert!(is_admin_surface("/api/audit"));
        assert!(is_admin_surface("/admin"));
    }
}
