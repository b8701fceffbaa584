//! The REST route table: one declarative list that both mounts the handlers and describes every
//! operation in the OpenAPI document (see [`super::openapi`]), so the two cannot drift.
//!
//! # Adding a route
//! 1. Put its request and answer types in [`crate::api`] (in the domain's module), with their
//!    constraints on the types.
//! 2. Write the handler below: `async fn name(svc: Arc<Service>, meta: RequestMeta, …)
//!    -> Result<R, ApiError>` whose further arguments are extractors ([`Json`], [`Query`],
//!    [`Path`]) and whose answer `R` is [`Json`], [`NoContent`], [`Download`] or [`WithCookie`];
//!    it calls the service.
//! 3. Add one entry to [`routes`] in its section: method and path (`:id` for a parameter), an
//!    operation id, the [`Auth`] it requires, a summary, then optionally `.ok(status)` (default
//!    200; 204 for [`NoContent`]), `.errors(&[...])` (the codes *this* route can answer besides
//!    those its [`Auth`], method and body imply; every code must be in [`crate::error::CODES`])
//!    and finally `.handle(name)`, which records the parameters, body and answer schemas from the
//!    handler's types.
//!
//! The tests fail when a listed route does not answer on the running server, when a path or
//! method is listed twice, or when a code is unknown.

use std::sync::Arc;

use super::handler::{
    Download, ErasedHandler, Gens, Handler, Json, MaybeJson, NoContent, OpDoc, Path, Query,
    WithCookie,
};
use super::wire::Method;
use crate::api::accounts::{
    CreateUserRequest, InstanceSettings, PublicSettings, SetupRequest, SetupStatus, SignInRequest,
    User, Whoami,
};
use crate::api::audit::AuditEntry;
use crate::api::credentials::{
    CreateSystemKeyRequest, SetupKey, SystemKey, SystemKeyCreated, SystemKeyDisabled,
};
use crate::api::enrollment::{EnrollRequest, Enrolled};
use crate::api::nodes::{
    AllowedDirsRequest, HeldNodes, MaintenanceRequest, MaintenanceSet, Node, NodeCommandAnswer,
    NodeCommandRequest, NodeEvents, NodeEventsQuery, NodeKeyRotated, NodePing, PlatformParam,
};
use crate::api::{Empty, IdParam};
use crate::error::ApiError;
use crate::service::{RequestMeta, Service};

/// What a route requires of its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Auth {
    /// Nothing.
    None,
    /// Any credential: a system key (`Authorization: Bearer tp_…`) or a session cookie.
    Any,
    /// A session cookie; a bearer credential is refused.
    Cookie,
    /// An administrator's session cookie.
    CookieAdmin,
    /// A setup key, carried in the request body.
    SetupKey,
}

/// One REST operation.
#[derive(Clone)]
pub(crate) struct RouteDef {
    pub(crate) method: Method,
    /// Path with `:name` parameters (`/api/nodes/:id`).
    pub(crate) path: &'static str,
    /// OpenAPI `operationId`.
    pub(crate) op: &'static str,
    pub(crate) auth: Auth,
    /// Group in the reference (the first path segment after `/api` unless set).
    pub(crate) tag: &'static str,
    pub(crate) summary: &'static str,
    /// The success status.
    pub(crate) ok: u16,
    /// Codes specific to this route (the ones implied by auth, method and body are added).
    pub(crate) errors: &'static [&'static str],
    pub(crate) handler: ErasedHandler,
    /// Documents the operation from the handler's types.
    pub(crate) document: fn(&mut OpDoc, &mut Gens),
    /// Whether the handler takes a request body.
    pub(crate) has_body: bool,
}

impl std::fmt::Debug for RouteDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.path)
    }
}

fn no_handler(_: &mut OpDoc, _: &mut Gens) {}

impl RouteDef {
    fn new(
        method: Method,
        path: &'static str,
        op: &'static str,
        auth: Auth,
        summary: &'static str,
    ) -> Self {
        let tag = path
            .strip_prefix("/api/")
            .and_then(|p| p.split('/').next())
            .unwrap_or("other");
        Self {
            method,
            path,
            op,
            auth,
            tag,
            summary,
            ok: 200,
            errors: &[],
            handler: Arc::new(|_, _| {
                Box::pin(async {
                    Err(ApiError::new(500, "INTERNAL_ERROR", "route has no handler"))
                })
            }),
            document: no_handler,
            has_body: false,
        }
    }
    fn get(path: &'static str, op: &'static str, auth: Auth, summary: &'static str) -> Self {
        Self::new(Method::Get, path, op, auth, summary)
    }
    fn post(path: &'static str, op: &'static str, auth: Auth, summary: &'static str) -> Self {
        Self::new(Method::Post, path, op, auth, summary)
    }
    fn put(path: &'static str, op: &'static str, auth: Auth, summary: &'static str) -> Self {
        Self::new(Method::Put, path, op, auth, summary)
    }
    fn delete(path: &'static str, op: &'static str, auth: Auth, summary: &'static str) -> Self {
        Self::new(Method::Delete, path, op, auth, summary)
    }
    fn tag(mut self, tag: &'static str) -> Self {
        self.tag = tag;
        self
    }
    fn ok(mut self, status: u16) -> Self {
        self.ok = status;
        self
    }
    fn errors(mut self, codes: &'static [&'static str]) -> Self {
        self.errors = codes;
        self
    }
    /// Sets the handler; its types document the parameters, body and answer.
    ///
    /// A credential refusal takes precedence over an input refusal: when the request fails with
    /// 400 or 404, the route's [`Auth`] is checked, and its refusal (401, 403) is what answers.
    /// So a caller without the right credential learns nothing about what it sent.
    fn handle<Args: 'static, H: Handler<Args>>(mut self, h: H) -> Self {
        let h = Arc::new(h);
        let auth = self.auth;
        self.handler = Arc::new(move |svc, call| {
            let meta = call.meta.clone();
            let fut = h.call(svc.clone(), call);
            Box::pin(async move {
                match fut.await {
                    Err(e) if e.status == 400 || e.status == 404 => {
                        check_auth(&svc, auth, &meta).await?;
                        Err(e)
                    }
                    other => other,
                }
            })
        });
        self.document = <H as Handler<Args>>::document;
        let mut doc = OpDoc::default();
        (self.document)(&mut doc, &mut Gens::new());
        self.has_body = doc.request.is_some();
        if doc.answer.as_ref().is_some_and(|a| a.content.is_none()) && self.ok == 200 {
            self.ok = 204;
        }
        self
    }

    /// The path's parameters (`:id` → `id`).
    pub(crate) fn params(&self) -> Vec<&'static str> {
        self.path
            .split('/')
            .filter_map(|s| s.strip_prefix(':'))
            .collect()
    }

    /// Every error code this route can answer, in [`crate::error::CODES`] order: its own, those
    /// its authentication, method, parameters and body imply, the admin-surface guard's and a
    /// server fault.
    pub(crate) fn error_codes(&self) -> Vec<&'static str> {
        let mut codes: Vec<&str> = self.errors.to_vec();
        match self.auth {
            Auth::None | Auth::SetupKey => {}
            Auth::Any => codes.extend([
                "UNAUTHENTICATED",
                "AUTH_HEADER_INVALID",
                "INVALID_CREDENTIAL",
                "NODE_KEY_NOT_ACCEPTED",
            ]),
            Auth::Cookie => codes.extend(["UNAUTHENTICATED", "BEARER_NOT_ALLOWED"]),
            Auth::CookieAdmin => {
                codes.extend(["UNAUTHENTICATED", "BEARER_NOT_ALLOWED", "ADMIN_REQUIRED"]);
            }
        }
        if self.method != Method::Get && self.auth != Auth::SetupKey {
            codes.push("ORIGIN_REJECTED");
        }
        if crate::service::is_admin_surface(self.path) {
            codes.push("BEARER_NOT_ALLOWED");
        }
        if !self.params().is_empty() {
            codes.push("NOT_FOUND");
        }
        if self.has_body {
            codes.extend(["INPUT_VALIDATION_ERROR", "PAYLOAD_TOO_LARGE"]);
        }
        // Every route may meet a malformed request (400 `BAD_REQUEST`) and a server fault.
        codes.extend(["BAD_REQUEST", "INTERNAL_ERROR"]);
        crate::error::CODES
            .iter()
            .map(|(_, c, _)| *c)
            .filter(|c| codes.contains(c))
            .collect()
    }
}

/// The credential `auth` asks for, checked as the service checks it.
async fn check_auth(svc: &Service, auth: Auth, meta: &RequestMeta) -> Result<(), ApiError> {
    match auth {
        Auth::None | Auth::SetupKey => Ok(()),
        Auth::Any => svc.caller(meta).await.map(|_| ()),
        Auth::Cookie => svc.session(meta).await.map(|_| ()),
        Auth::CookieAdmin => svc.admin(meta).await.map(|_| ()),
    }
}

/// Every REST route of the plane, in the order the reference lists them.
#[allow(clippy::too_many_lines)]
pub(crate) fn routes() -> Vec<RouteDef> {
    use Auth::{Any, Cookie, CookieAdmin, None as Open, SetupKey};
    vec![
        // ----- the reference itself -----
        RouteDef::get(
            "/api/openapi.json",
            "openApiDocument",
            Open,
            "This OpenAPI 3.1 document",
        )
        .tag("reference")
        .handle(openapi_json),
        // ----- first run and settings -----
        RouteDef::get(
            "/api/setup/status",
            "setupStatus",
            Open,
            "Whether the first account exists",
        )
        .handle(setup_status),
        RouteDef::post(
            "/api/setup",
            "setup",
            Open,
            "Create the first (administrator) account",
        )
        .ok(201)
        .errors(&["SETUP_ALREADY_DONE"])
        .handle(setup),
        RouteDef::get(
            "/api/settings/instance",
            "instanceSettings",
            Open,
            "The instance's display name",
        )
        .handle(instance_settings),
        RouteDef::get(
            "/api/settings/public",
            "publicSettings",
            Any,
            "Settings any signed-in caller may read",
        )
        .handle(public_settings),
        // ----- sign-in and sessions -----
        RouteDef::post(
            "/api/auth/sign-in",
            "signIn",
            Open,
            "Sign in with a password; sets the session cookie",
        )
        .errors(&["INVALID_CREDENTIALS", "TOO_MANY_ATTEMPTS"])
        .handle(sign_in),
        RouteDef::post(
            "/api/auth/sign-out",
            "signOut",
            Cookie,
            "Destroy the session and clear its cookie",
        )
        .handle(sign_out),
        RouteDef::get("/api/auth/session", "session", Any, "The calling account").handle(whoami),
        // ----- accounts -----
        RouteDef::get("/api/users", "listUsers", Any, "List accounts").handle(users),
        RouteDef::post("/api/users", "createUser", CookieAdmin, "Create an account")
            .ok(201)
            .errors(&["EMAIL_TAKEN"])
            .handle(create_user),
        RouteDef::post(
            "/api/users/:id/disable",
            "disableUser",
            CookieAdmin,
            "Disable an account (its sessions end at once)",
        )
        .errors(&["CANNOT_DISABLE_SELF"])
        .handle(disable_user),
        RouteDef::post(
            "/api/users/:id/enable",
            "enableUser",
            CookieAdmin,
            "Enable an account",
        )
        .handle(enable_user),
        // ----- system keys -----
        RouteDef::get(
            "/api/system-keys",
            "listSystemKeys",
            CookieAdmin,
            "List system keys (never the secret)",
        )
        .handle(system_keys),
        RouteDef::post(
            "/api/system-keys",
            "createSystemKey",
            CookieAdmin,
            "Mint a system key; its plaintext is in this answer only",
        )
        .ok(201)
        .handle(create_system_key),
        RouteDef::post(
            "/api/system-keys/:id/disable",
            "disableSystemKey",
            CookieAdmin,
            "Disable a system key",
        )
        .handle(disable_system_key),
        RouteDef::delete(
            "/api/system-keys/:id",
            "deleteSystemKey",
            CookieAdmin,
            "Delete a system key",
        )
        .handle(delete_system_key),
        // ----- setup keys -----
        RouteDef::get(
            "/api/setup-keys",
            "listSetupKeys",
            Cookie,
            "List setup keys (an administrator sees all)",
        )
        .handle(setup_keys),
        RouteDef::post(
            "/api/setup-keys",
            "createSetupKey",
            Cookie,
            "Mint a single-use setup key valid for 24 hours",
        )
        .ok(201)
        .handle(create_setup_key),
        RouteDef::delete(
            "/api/setup-keys/:id",
            "revokeSetupKey",
            Cookie,
            "Revoke an unused setup key",
        )
        .errors(&["SETUP_KEY_NOT_REVOCABLE"])
        .handle(revoke_setup_key),
        // ----- enrollment and nodes -----
        RouteDef::post(
            "/api/nodes/enroll",
            "enrollNode",
            SetupKey,
            "Enroll a node with a setup key",
        )
        .ok(201)
        .errors(&[
            "SETUP_KEY_INVALID",
            "SETUP_KEY_EXPIRED",
            "SETUP_KEY_REVOKED",
            "SETUP_KEY_SPENT",
            "TOO_MANY_ATTEMPTS",
        ])
        .handle(enroll),
        RouteDef::get(
            "/api/nodes",
            "listNodes",
            Any,
            "List the caller's nodes and the local node",
        )
        .handle(nodes),
        RouteDef::get("/api/nodes/:id", "getNode", Cookie, "One node").handle(node),
        RouteDef::delete("/api/nodes/:id", "deleteNode", Cookie, "Delete a node")
            .errors(&["LOCAL_NODE"])
            .handle(delete_node),
        RouteDef::post(
            "/api/nodes/:id/key_rotate",
            "rotateNodeKey",
            Cookie,
            "Issue a new node key; the old one stops working",
        )
        .errors(&["LOCAL_NODE"])
        .handle(rotate_node_key),
        RouteDef::put(
            "/api/nodes/:id/allowed_dirs",
            "setAllowedDirs",
            Cookie,
            "Replace a node's allowed directories",
        )
        .handle(set_allowed_dirs),
        RouteDef::put(
            "/api/nodes/:id/maintenance",
            "setNodeMaintenance",
            Cookie,
            "Set a node's maintenance mirror and push it to the node when it is online",
        )
        .errors(&["LOCAL_NODE"])
        .handle(set_maintenance),
        RouteDef::post(
            "/api/nodes/:id/ping",
            "pingNode",
            Cookie,
            "Send `ping` through the node link and report the round trip",
        )
        .errors(&[
            "NODE_OFFLINE",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(ping_node),
        RouteDef::post(
            "/api/nodes/:id/commands",
            "sendNodeCommand",
            CookieAdmin,
            "Admin and debug surface: send one node command through the link and answer its result",
        )
        .errors(&[
            "LOCAL_NODE",
            "NODE_OFFLINE",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(node_command),
        RouteDef::get(
            "/api/nodes/:id/events",
            "nodeEvents",
            Cookie,
            "Recent events the node sent on its own (`?after=N&waitMs=M` long-polls up to 25 s)",
        )
        .errors(&["INPUT_VALIDATION_ERROR"])
        .handle(node_events),
        // ----- downloads -----
        RouteDef::get(
            "/api/downloads/node/:platform",
            "downloadNode",
            Open,
            "The node binary for a platform (`linux-x86_64`, …), with `X-Content-SHA256`",
        )
        .handle(download_node),
        // ----- updates -----
        RouteDef::get(
            "/api/admin/updates/held",
            "heldNodes",
            CookieAdmin,
            "Nodes held for an update (refused by a gate) and nodes below the version floor",
        )
        .handle(held_nodes),
        // ----- audit -----
        RouteDef::get(
            "/api/audit",
            "auditLog",
            CookieAdmin,
            "The latest audit entries, newest first",
        )
        .handle(audit),
    ]
}

// ----- handlers -----

type Res<T> = Result<T, ApiError>;

async fn openapi_json(svc: Arc<Service>, _: RequestMeta) -> Res<Json<super::openapi::Document>> {
    let s = svc.settings();
    Ok(Json(super::openapi::document(
        &routes(),
        &s.base_url,
        s.cookie_name(),
    )))
}

async fn setup_status(svc: Arc<Service>, _: RequestMeta) -> Res<Json<SetupStatus>> {
    svc.setup_status().await.map(Json)
}

async fn setup(svc: Arc<Service>, _: RequestMeta, Json(b): Json<SetupRequest>) -> Res<Json<User>> {
    svc.setup(b).await.map(Json)
}

async fn instance_settings(svc: Arc<Service>, _: RequestMeta) -> Res<Json<InstanceSettings>> {
    svc.instance_settings().await.map(Json)
}

async fn public_settings(svc: Arc<Service>, meta: RequestMeta) -> Res<Json<PublicSettings>> {
    svc.public_settings(&meta).await.map(Json)
}

fn session_cookie(svc: &Service, value: &str, max_age: i64) -> String {
    let s = svc.settings();
    let secure = if s.secure() { "; Secure" } else { "" };
    format!(
        "{}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}",
        s.cookie_name()
    )
}

async fn sign_in(
    svc: Arc<Service>,
    meta: RequestMeta,
    Json(b): Json<SignInRequest>,
) -> Res<WithCookie<Json<User>>> {
    let (token, user) = svc.sign_in(&meta, b).await?;
    let max_age = crate::service::SESSION_LIFETIME_MS / 1000;
    Ok(WithCookie {
        set_cookie: session_cookie(&svc, &token, max_age),
        answer: Json(user),
    })
}

async fn sign_out(svc: Arc<Service>, meta: RequestMeta) -> Res<WithCookie<NoContent>> {
    svc.sign_out(&meta).await?;
    Ok(WithCookie {
        set_cookie: session_cookie(&svc, "", 0),
        answer: NoContent,
    })
}

async fn whoami(svc: Arc<Service>, meta: RequestMeta) -> Res<Json<Whoami>> {
    svc.whoami(&meta).await.map(Json)
}

async fn users(svc: Arc<Service>, meta: RequestMeta) -> Res<Json<Vec<User>>> {
    svc.users(&meta).await.map(Json)
}

async fn create_user(
    svc: Arc<Service>,
    meta: RequestMeta,
    Json(b): Json<CreateUserRequest>,
) -> Res<Json<User>> {
    svc.create_user(&meta, b).await.map(Json)
}

async fn disable_user(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<User>> {
    svc.set_user_disabled(&meta, p.id.as_str(), true)
        .await
        .map(Json)
}

async fn enable_user(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<User>> {
    svc.set_user_disabled(&meta, p.id.as_str(), false)
        .await
        .map(Json)
}

async fn system_keys(svc: Arc<Service>, meta: RequestMeta) -> Res<Json<Vec<SystemKey>>> {
    svc.system_keys(&meta).await.map(Json)
}

async fn create_system_key(
    svc: Arc<Service>,
    meta: RequestMeta,
    Json(b): Json<CreateSystemKeyRequest>,
) -> Res<Json<SystemKeyCreated>> {
    svc.create_system_key(&meta, b).await.map(Json)
}

async fn disable_system_key(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<SystemKeyDisabled>> {
    svc.disable_system_key(&meta, p.id.as_str()).await.map(Json)
}

async fn delete_system_key(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.delete_system_key(&meta, p.id.as_str()).await?;
    Ok(NoContent)
}

async fn setup_keys(svc: Arc<Service>, meta: RequestMeta) -> Res<Json<Vec<SetupKey>>> {
    svc.setup_keys(&meta).await.map(Json)
}

async fn create_setup_key(
    svc: Arc<Service>,
    meta: RequestMeta,
    _: MaybeJson<Empty>,
) -> Res<Json<SetupKey>> {
    svc.create_setup_key(&meta).await.map(Json)
}

async fn revoke_setup_key(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.revoke_setup_key(&meta, p.id.as_str()).await?;
    Ok(NoContent)
}

async fn enroll(
    svc: Arc<Service>,
    meta: RequestMeta,
    Json(b): Json<EnrollRequest>,
) -> Res<Json<Enrolled>> {
    svc.enroll(&meta, b).await.map(Json)
}

async fn nodes(svc: Arc<Service>, meta: RequestMeta) -> Res<Json<Vec<Node>>> {
    svc.nodes(&meta).await.map(Json)
}

async fn node(svc: Arc<Service>, meta: RequestMeta, Path(p): Path<IdParam>) -> Res<Json<Node>> {
    svc.node(&meta, p.id.as_str()).await.map(Json)
}

async fn delete_node(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.delete_node(&meta, p.id.as_str()).await?;
    Ok(NoContent)
}

async fn rotate_node_key(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<NodeKeyRotated>> {
    svc.rotate_node_key(&meta, p.id.as_str()).await.map(Json)
}

async fn set_allowed_dirs(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
    Json(b): Json<AllowedDirsRequest>,
) -> Res<Json<Node>> {
    svc.set_allowed_dirs(&meta, p.id.as_str(), b)
        .await
        .map(Json)
}

async fn set_maintenance(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
    Json(b): Json<MaintenanceRequest>,
) -> Res<Json<MaintenanceSet>> {
    svc.set_maintenance(&meta, p.id.as_str(), b).await.map(Json)
}

async fn ping_node(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<NodePing>> {
    svc.ping_node(&meta, p.id.as_str()).await.map(Json)
}

async fn node_command(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
    Json(b): Json<NodeCommandRequest>,
) -> Res<Json<NodeCommandAnswer>> {
    svc.node_command_admin(&meta, p.id.as_str(), b.0)
        .await
        .map(Json)
}

async fn node_events(
    svc: Arc<Service>,
    meta: RequestMeta,
    Path(p): Path<IdParam>,
    Query(q): Query<NodeEventsQuery>,
) -> Res<Json<NodeEvents>> {
    svc.node_events_read(&meta, p.id.as_str(), q)
        .await
        .map(Json)
}

async fn download_node(
    svc: Arc<Service>,
    _: RequestMeta,
    Path(p): Path<PlatformParam>,
) -> Res<Download> {
    let (path, len, sha256) = svc.node_download(p.platform.as_str()).await?;
    Ok(Download { path, len, sha256 })
}

async fn held_nodes(svc: Arc<Service>, meta: RequestMeta) -> Res<Json<HeldNodes>> {
    svc.held_nodes(&meta).await.map(Json)
}

async fn audit(svc: Arc<Service>, meta: RequestMeta) -> Res<Json<Vec<AuditEntry>>> {
    svc.audit(&meta).await.map(Json)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn routes_are_unique_and_well_formed() {
        let all = routes();
        for (i, r) in all.iter().enumerate() {
            assert!(r.path.starts_with("/api/"), "{r:?}");
            assert!(
                all[i + 1..]
                    .iter()
                    .all(|o| (o.method, o.path) != (r.method, r.path)),
                "{r:?} listed twice"
            );
            assert!(all[i + 1..].iter().all(|o| o.op != r.op), "{} twice", r.op);
            assert!(!r.summary.is_empty(), "{r:?}");
            assert!((200..300).contains(&r.ok), "{r:?}");
            for c in r.errors {
                assert!(crate::error::code_info(c).is_some(), "{r:?}: unknown {c}");
            }
            assert!(
                !std::ptr::fn_addr_eq(r.document, no_handler as fn(&mut OpDoc, &mut Gens)),
                "{r:?} has no handler"
            );
            let mut doc = OpDoc::default();
            (r.document)(&mut doc, &mut Gens::new());
            let answer = doc.answer.expect("every handler documents its answer");
            assert_eq!(
                r.ok == 204,
                answer.content.is_none(),
                "{r:?}: 204 iff no body"
            );
        }
    }

    /// REST routes are mounted only from the list: the adapter adds no other `/api` path (the
    /// test-only panic route aside), so the document lists every one the server has.
    #[test]
    fn no_rest_route_is_mounted_outside_the_list() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/http");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            seen += 1;
            for (i, _) in text.match_indices(".add(Method::") {
                let rest = &text[i..];
                let lit = &rest[rest.find('"').unwrap() + 1..];
                let lit = &lit[..lit.find('"').unwrap()];
                assert!(
                    !lit.starts_with("/api/") || lit == "/api/__test/panic",
                    "{}: `{lit}` is mounted outside `routes()`; declare it there",
                    path.display()
                );
            }
        }
        assert!(seen >= 5);
    }

    /// Rule 4 of the spec: writes to `/api/users`, `/api/settings` and `/api/plugins` are admin
    /// surfaces, and the whole of the admin families is cookie-only.
    #[test]
    fn admin_surfaces_are_cookie_admin_routes() {
        for r in routes() {
            let write_family = crate::service::ADMIN_WRITE_FAMILIES
                .iter()
                .any(|f| r.path == *f || r.path.starts_with(&format!("{f}/")));
            if write_family && r.method != Method::Get {
                assert_eq!(r.auth, Auth::CookieAdmin, "{r:?} is an admin write");
            }
            if crate::service::is_admin_surface(r.path) {
                assert!(
                    matches!(r.auth, Auth::Cookie | Auth::CookieAdmin),
                    "{r:?} is an admin surface"
                );
            }
        }
    }

    #[test]
    fn implied_error_codes() {
        let all = routes();
        let find = |m: Method, p: &str| {
            all.iter()
                .find(|r| r.method == m && r.path == p)
                .unwrap()
                .error_codes()
        };
        let create_key = find(Method::Post, "/api/system-keys");
        for c in [
            "INPUT_VALIDATION_ERROR",
            "UNAUTHENTICATED",
            "BEARER_NOT_ALLOWED",
            "ADMIN_REQUIRED",
            "ORIGIN_REJECTED",
            "PAYLOAD_TOO_LARGE",
            "INTERNAL_ERROR",
        ] {
            assert!(create_key.contains(&c), "{c}");
        }
        let enroll = find(Method::Post, "/api/nodes/enroll");
        assert!(!enroll.contains(&"ORIGIN_REJECTED"));
        assert!(enroll.contains(&"SETUP_KEY_SPENT"));
        assert_eq!(
            find(Method::Get, "/api/setup/status"),
            vec!["BAD_REQUEST", "INTERNAL_ERROR"]
        );
        // Reading accounts is open to bearers; writing them is an admin surface.
        assert!(!find(Method::Get, "/api/users").contains(&"BEARER_NOT_ALLOWED"));
        assert!(find(Method::Get, "/api/nodes/:id").contains(&"NOT_FOUND"));
    }
}
