//! The REST route table: one declarative list that both mounts the tide handlers and describes
//! every operation in the OpenAPI document (see [`super::openapi`]), so the two cannot drift.
//!
//! # Adding a route
//! 1. Write the handler below as `async fn name(req: Request<State>, ok: u16) -> tide::Result`;
//!    it calls the service and answers with [`reply`]`(&req, ok, result)` so that the status it
//!    sends is the one the list documents.
//! 2. Add one entry to [`routes`] in its section: method and path (tide syntax, `:id` for a
//!    parameter), an operation id, the [`Auth`] it requires, a summary, then optionally
//!    `.body(...)` (the request schema), `.ok(status, ...)` (the success status and response
//!    schema; the default is `200` with no body schema), `.errors(&[...])` (the codes *this*
//!    route can answer besides those its [`Auth`], method and body imply; every code must be in
//!    [`crate::error::CODES`]) and finally `.handler(name)`.
//! 3. Name any new schema in [`super::openapi::schemas`].
//!
//! The tests fail when a listed route does not answer on the running server, when a path or
//! method is listed twice, or when a code or schema is unknown.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;
use tide::Request;

use super::{State, info, json_body, param, reply, session_cookie};

/// HTTP methods the REST API uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    /// Lower-case name (OpenAPI's operation key).
    pub(crate) fn lower(self) -> &'static str {
        match self {
            Self::Get => "get",
            Self::Post => "post",
            Self::Put => "put",
            Self::Delete => "delete",
        }
    }

    /// Whether requests with this method change state (and so face the Origin check).
    pub(crate) fn is_safe(self) -> bool {
        matches!(self, Self::Get)
    }
}

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
    /// A node key (`Authorization: Bearer`); only the node WebSocket accepts one. No REST
    /// route takes it today; the variant documents routes a node itself would call.
    #[allow(dead_code)]
    NodeKey,
}

/// A request or response body, by schema name (see [`super::openapi::schemas`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Body {
    /// One value of the named schema.
    One(&'static str),
    /// A JSON array of the named schema.
    ListOf(&'static str),
    /// Raw bytes (`application/octet-stream`); responses only.
    Binary,
}

type Fut = Pin<Box<dyn Future<Output = tide::Result> + Send + 'static>>;

/// A handler: the request and the success status to answer with.
pub(crate) type Handler = fn(Request<State>, u16) -> Fut;

fn missing_handler(_req: Request<State>, _ok: u16) -> Fut {
    Box::pin(async { Err(tide::Error::from_str(500, "route has no handler")) })
}

/// One REST operation.
#[derive(Clone, Copy)]
pub(crate) struct RouteDef {
    pub(crate) method: Method,
    /// Path in tide syntax (`/api/nodes/:id`).
    pub(crate) path: &'static str,
    /// OpenAPI `operationId`.
    pub(crate) op: &'static str,
    pub(crate) auth: Auth,
    /// Group in the reference (the first path segment after `/api` unless set).
    pub(crate) tag: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) body: Option<Body>,
    pub(crate) ok: u16,
    pub(crate) response: Option<Body>,
    /// Codes specific to this route (the ones implied by auth, method and body are added).
    pub(crate) errors: &'static [&'static str],
    pub(crate) handler: Handler,
}

impl std::fmt::Debug for RouteDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method.lower().to_uppercase(), self.path)
    }
}

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
            body: None,
            ok: 200,
            response: None,
            errors: &[],
            handler: missing_handler,
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
    fn body(mut self, schema: &'static str) -> Self {
        self.body = Some(Body::One(schema));
        self
    }
    fn ok(mut self, status: u16, response: Option<Body>) -> Self {
        self.ok = status;
        self.response = response;
        self
    }
    fn returns(self, schema: &'static str) -> Self {
        let ok = self.ok;
        self.ok(ok, Some(Body::One(schema)))
    }
    fn returns_list(self, schema: &'static str) -> Self {
        let ok = self.ok;
        self.ok(ok, Some(Body::ListOf(schema)))
    }
    fn errors(mut self, codes: &'static [&'static str]) -> Self {
        self.errors = codes;
        self
    }
    fn handler(mut self, h: Handler) -> Self {
        self.handler = h;
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
    /// its authentication, method and body imply, the admin-surface guard's and a server fault.
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
            Auth::NodeKey => codes.extend(["UNAUTHENTICATED", "INVALID_CREDENTIAL"]),
        }
        if !self.method.is_safe() && self.auth != Auth::SetupKey {
            codes.push("ORIGIN_REJECTED");
        }
        if crate::service::is_admin_surface(&self.method.lower().to_uppercase(), self.path) {
            codes.push("BEARER_NOT_ALLOWED");
        }
        if self.body.is_some() {
            codes.extend(["INPUT_VALIDATION_ERROR", "PAYLOAD_TOO_LARGE"]);
        }
        codes.push("INTERNAL_ERROR");
        crate::error::CODES
            .iter()
            .map(|(_, c, _)| *c)
            .filter(|c| codes.contains(c))
            .collect()
    }
}

/// Every REST route of the plane, in the order the reference lists them.
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
        .returns("OpenApiDocument")
        .handler(|r, ok| Box::pin(openapi_json(r, ok))),
        // ----- first run and settings -----
        RouteDef::get(
            "/api/setup/status",
            "setupStatus",
            Open,
            "Whether the first account exists",
        )
        .returns("SetupStatus")
        .handler(|r, ok| Box::pin(setup_status(r, ok))),
        RouteDef::post(
            "/api/setup",
            "setup",
            Open,
            "Create the first (administrator) account",
        )
        .body("SetupRequest")
        .ok(201, Some(Body::One("User")))
        .errors(&["SETUP_ALREADY_DONE"])
        .handler(|r, ok| Box::pin(setup(r, ok))),
        RouteDef::get(
            "/api/settings/instance",
            "instanceSettings",
            Open,
            "The instance's display name",
        )
        .returns("InstanceSettings")
        .handler(|r, ok| Box::pin(instance_settings(r, ok))),
        RouteDef::get(
            "/api/settings/public",
            "publicSettings",
            Any,
            "Settings any signed-in caller may read",
        )
        .returns("PublicSettings")
        .handler(|r, ok| Box::pin(public_settings(r, ok))),
        // ----- sign-in and sessions -----
        RouteDef::post(
            "/api/auth/sign-in",
            "signIn",
            Open,
            "Sign in with a password; sets the session cookie",
        )
        .body("SignInRequest")
        .returns("User")
        .errors(&["INVALID_CREDENTIALS", "TOO_MANY_ATTEMPTS"])
        .handler(|r, ok| Box::pin(sign_in(r, ok))),
        RouteDef::post(
            "/api/auth/sign-out",
            "signOut",
            Cookie,
            "Destroy the session and clear its cookie",
        )
        .ok(204, None)
        .handler(|r, ok| Box::pin(sign_out(r, ok))),
        RouteDef::get("/api/auth/session", "session", Any, "The calling account")
            .returns("Whoami")
            .handler(|r, ok| Box::pin(whoami(r, ok))),
        // ----- accounts -----
        RouteDef::get("/api/users", "listUsers", Any, "List accounts")
            .returns_list("User")
            .handler(|r, ok| Box::pin(users(r, ok))),
        RouteDef::post("/api/users", "createUser", CookieAdmin, "Create an account")
            .body("CreateUserRequest")
            .ok(201, Some(Body::One("User")))
            .errors(&["EMAIL_TAKEN"])
            .handler(|r, ok| Box::pin(create_user(r, ok))),
        RouteDef::post(
            "/api/users/:id/disable",
            "disableUser",
            CookieAdmin,
            "Disable an account",
        )
        .returns("User")
        .errors(&["INPUT_VALIDATION_ERROR", "NOT_FOUND"])
        .handler(|r, ok| Box::pin(disable_user(r, ok))),
        RouteDef::post(
            "/api/users/:id/enable",
            "enableUser",
            CookieAdmin,
            "Enable an account",
        )
        .returns("User")
        .errors(&["NOT_FOUND"])
        .handler(|r, ok| Box::pin(enable_user(r, ok))),
        // ----- system keys -----
        RouteDef::get(
            "/api/system-keys",
            "listSystemKeys",
            CookieAdmin,
            "List system keys (never the secret)",
        )
        .returns_list("SystemKey")
        .handler(|r, ok| Box::pin(system_keys(r, ok))),
        RouteDef::post(
            "/api/system-keys",
            "createSystemKey",
            CookieAdmin,
            "Mint a system key; its plaintext is in this answer only",
        )
        .body("CreateSystemKeyRequest")
        .ok(201, Some(Body::One("SystemKeyCreated")))
        .handler(|r, ok| Box::pin(create_system_key(r, ok))),
        RouteDef::post(
            "/api/system-keys/:id/disable",
            "disableSystemKey",
            CookieAdmin,
            "Disable a system key",
        )
        .returns("SystemKeyDisabled")
        .errors(&["NOT_FOUND"])
        .handler(|r, ok| Box::pin(disable_system_key(r, ok))),
        RouteDef::delete(
            "/api/system-keys/:id",
            "deleteSystemKey",
            CookieAdmin,
            "Delete a system key",
        )
        .ok(204, None)
        .errors(&["NOT_FOUND"])
        .handler(|r, ok| Box::pin(delete_system_key(r, ok))),
        // ----- setup keys -----
        RouteDef::get(
            "/api/setup-keys",
            "listSetupKeys",
            Cookie,
            "List setup keys (an administrator sees all)",
        )
        .returns_list("SetupKey")
        .handler(|r, ok| Box::pin(setup_keys(r, ok))),
        RouteDef::post(
            "/api/setup-keys",
            "createSetupKey",
            Cookie,
            "Mint a single-use setup key valid for 24 hours",
        )
        .ok(201, Some(Body::One("SetupKey")))
        .handler(|r, ok| Box::pin(create_setup_key(r, ok))),
        RouteDef::delete(
            "/api/setup-keys/:id",
            "revokeSetupKey",
            Cookie,
            "Revoke an unused setup key",
        )
        .ok(204, None)
        .errors(&["NOT_FOUND", "SETUP_KEY_NOT_REVOCABLE"])
        .handler(|r, ok| Box::pin(revoke_setup_key(r, ok))),
        // ----- enrollment and nodes -----
        RouteDef::post(
            "/api/nodes/enroll",
            "enrollNode",
            SetupKey,
            "Enroll a node with a setup key",
        )
        .body("EnrollRequest")
        .ok(201, Some(Body::One("Enrolled")))
        .errors(&[
            "SETUP_KEY_INVALID",
            "SETUP_KEY_EXPIRED",
            "SETUP_KEY_REVOKED",
            "SETUP_KEY_SPENT",
            "TOO_MANY_ATTEMPTS",
        ])
        .handler(|r, ok| Box::pin(enroll(r, ok))),
        RouteDef::get(
            "/api/nodes",
            "listNodes",
            Any,
            "List the caller's nodes and the local node",
        )
        .returns_list("Node")
        .handler(|r, ok| Box::pin(nodes(r, ok))),
        RouteDef::get("/api/nodes/:id", "getNode", Cookie, "One node")
            .returns("Node")
            .errors(&["NOT_FOUND"])
            .handler(|r, ok| Box::pin(node(r, ok))),
        RouteDef::delete("/api/nodes/:id", "deleteNode", Cookie, "Delete a node")
            .ok(204, None)
            .errors(&["NOT_FOUND", "LOCAL_NODE"])
            .handler(|r, ok| Box::pin(delete_node(r, ok))),
        RouteDef::post(
            "/api/nodes/:id/key_rotate",
            "rotateNodeKey",
            Cookie,
            "Issue a new node key; the old one stops working",
        )
        .returns("NodeKeyRotated")
        .errors(&["NOT_FOUND", "LOCAL_NODE"])
        .handler(|r, ok| Box::pin(rotate_node_key(r, ok))),
        RouteDef::put(
            "/api/nodes/:id/allowed_dirs",
            "setAllowedDirs",
            Cookie,
            "Replace a node's allowed directories",
        )
        .body("AllowedDirsRequest")
        .returns("Node")
        .errors(&["NOT_FOUND"])
        .handler(|r, ok| Box::pin(set_allowed_dirs(r, ok))),
        RouteDef::put(
            "/api/nodes/:id/maintenance",
            "setNodeMaintenance",
            Cookie,
            "Set a node's maintenance mirror and push it to the node when it is online",
        )
        .body("MaintenanceRequest")
        .returns("MaintenanceSet")
        .errors(&["NOT_FOUND", "LOCAL_NODE"])
        .handler(|r, ok| Box::pin(set_maintenance(r, ok))),
        RouteDef::post(
            "/api/nodes/:id/ping",
            "pingNode",
            Cookie,
            "Send `ping` through the node link and report the round trip",
        )
        .returns("NodePing")
        .errors(&[
            "NOT_FOUND",
            "LOCAL_NODE",
            "NODE_OFFLINE",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handler(|r, ok| Box::pin(ping_node(r, ok))),
        RouteDef::post(
            "/api/nodes/:id/commands",
            "sendNodeCommand",
            CookieAdmin,
            "Admin and debug surface: send one node command through the link and answer its result",
        )
        .body("NodeCommandRequest")
        .returns("NodeCommandAnswer")
        .errors(&[
            "NOT_FOUND",
            "LOCAL_NODE",
            "NODE_OFFLINE",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handler(|r, ok| Box::pin(node_command(r, ok))),
        RouteDef::get(
            "/api/nodes/:id/events",
            "nodeEvents",
            Cookie,
            "Recent events the node sent on its own (`?after=N&waitMs=M` long-polls up to 25 s)",
        )
        .returns("NodeEvents")
        .errors(&["NOT_FOUND"])
        .handler(|r, ok| Box::pin(node_events(r, ok))),
        // ----- downloads -----
        RouteDef::get(
            "/api/downloads/node/:platform",
            "downloadNode",
            Open,
            "The node binary for a platform (`linux-x86_64`, …), with `X-Content-SHA256`",
        )
        .ok(200, Some(Body::Binary))
        .errors(&["NOT_FOUND"])
        .handler(|r, ok| Box::pin(download_node(r, ok))),
        // ----- updates -----
        RouteDef::get(
            "/api/admin/updates/held",
            "heldNodes",
            CookieAdmin,
            "Nodes held for an update (refused by a gate) and nodes below the version floor",
        )
        .returns("HeldNodes")
        .handler(|r, ok| Box::pin(held_nodes(r, ok))),
        // ----- audit -----
        RouteDef::get(
            "/api/audit",
            "auditLog",
            CookieAdmin,
            "The latest audit entries, newest first",
        )
        .returns_list("AuditEntry")
        .handler(|r, ok| Box::pin(audit(r, ok))),
    ]
}

// ----- handlers -----

async fn openapi_json(req: Request<State>, ok: u16) -> tide::Result {
    let s = req.state().svc.settings();
    let doc = super::openapi::document(&routes(), &s.base_url, s.cookie_name());
    reply(&req, ok, Ok(doc))
}

async fn setup_status(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.setup_status().await;
    reply(&req, ok, r)
}

async fn setup(mut req: Request<State>, ok: u16) -> tide::Result {
    let r = match json_body(&mut req).await {
        Ok(b) => req.state().svc.setup(&b).await,
        Err(e) => Err(e),
    };
    reply(&req, ok, r)
}

async fn instance_settings(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.instance_settings().await;
    reply(&req, ok, r)
}

async fn public_settings(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.public_settings(&info(&req).meta).await;
    reply(&req, ok, r)
}

async fn sign_in(mut req: Request<State>, ok: u16) -> tide::Result {
    let meta = info(&req).meta;
    let r = match json_body(&mut req).await {
        Ok(b) => req.state().svc.sign_in(&meta, &b).await,
        Err(e) => Err(e),
    };
    match r {
        Ok((token, user)) => {
            let s = req.state().svc.settings();
            let mut res = reply(&req, ok, Ok(user))?;
            let max_age = crate::service::SESSION_LIFETIME_MS / 1000;
            res.insert_header(
                "set-cookie",
                session_cookie(s.cookie_name(), &token, max_age, s.secure()),
            );
            Ok(res)
        }
        Err(e) => reply(&req, ok, Err(e)),
    }
}

async fn sign_out(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.sign_out(&info(&req).meta).await;
    let s = req.state().svc.settings();
    let signed_out = r.is_ok();
    let mut res = reply(&req, ok, r.map(|()| Value::Null))?;
    if signed_out {
        res.insert_header(
            "set-cookie",
            session_cookie(s.cookie_name(), "", 0, s.secure()),
        );
    }
    Ok(res)
}

async fn whoami(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.whoami(&info(&req).meta).await;
    reply(&req, ok, r)
}

async fn users(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.users(&info(&req).meta).await;
    reply(&req, ok, r)
}

async fn create_user(mut req: Request<State>, ok: u16) -> tide::Result {
    let meta = info(&req).meta;
    let r = match json_body(&mut req).await {
        Ok(b) => req.state().svc.create_user(&meta, &b).await,
        Err(e) => Err(e),
    };
    reply(&req, ok, r)
}

async fn disable_user(req: Request<State>, ok: u16) -> tide::Result {
    let r = req
        .state()
        .svc
        .set_user_disabled(&info(&req).meta, &param(&req, "id"), true)
        .await;
    reply(&req, ok, r)
}

async fn enable_user(req: Request<State>, ok: u16) -> tide::Result {
    let r = req
        .state()
        .svc
        .set_user_disabled(&info(&req).meta, &param(&req, "id"), false)
        .await;
    reply(&req, ok, r)
}

async fn system_keys(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.system_keys(&info(&req).meta).await;
    reply(&req, ok, r)
}

async fn create_system_key(mut req: Request<State>, ok: u16) -> tide::Result {
    let meta = info(&req).meta;
    let r = match json_body(&mut req).await {
        Ok(b) => req.state().svc.create_system_key(&meta, &b).await,
        Err(e) => Err(e),
    };
    reply(&req, ok, r)
}

async fn disable_system_key(req: Request<State>, ok: u16) -> tide::Result {
    let r = req
        .state()
        .svc
        .disable_system_key(&info(&req).meta, &param(&req, "id"))
        .await;
    reply(&req, ok, r)
}

async fn delete_system_key(req: Request<State>, ok: u16) -> tide::Result {
    let r = req
        .state()
        .svc
        .delete_system_key(&info(&req).meta, &param(&req, "id"))
        .await;
    reply(&req, ok, r.map(|()| Value::Null))
}

async fn setup_keys(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.setup_keys(&info(&req).meta).await;
    reply(&req, ok, r)
}

async fn create_setup_key(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.create_setup_key(&info(&req).meta).await;
    reply(&req, ok, r)
}

async fn revoke_setup_key(req: Request<State>, ok: u16) -> tide::Result {
    let r = req
        .state()
        .svc
        .revoke_setup_key(&info(&req).meta, &param(&req, "id"))
        .await;
    reply(&req, ok, r.map(|()| Value::Null))
}

async fn enroll(mut req: Request<State>, ok: u16) -> tide::Result {
    let meta = info(&req).meta;
    let r = match json_body(&mut req).await {
        Ok(b) => req.state().svc.enroll(&meta, &b).await,
        Err(e) => Err(e),
    };
    reply(&req, ok, r)
}

async fn nodes(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.nodes(&info(&req).meta).await;
    reply(&req, ok, r)
}

async fn node(req: Request<State>, ok: u16) -> tide::Result {
    let r = req
        .state()
        .svc
        .node(&info(&req).meta, &param(&req, "id"))
        .await;
    reply(&req, ok, r)
}

async fn delete_node(req: Request<State>, ok: u16) -> tide::Result {
    let r = req
        .state()
        .svc
        .delete_node(&info(&req).meta, &param(&req, "id"))
        .await;
    reply(&req, ok, r.map(|()| Value::Null))
}

async fn rotate_node_key(req: Request<State>, ok: u16) -> tide::Result {
    let r = req
        .state()
        .svc
        .rotate_node_key(&info(&req).meta, &param(&req, "id"))
        .await;
    reply(&req, ok, r)
}

async fn set_maintenance(mut req: Request<State>, ok: u16) -> tide::Result {
    let meta = info(&req).meta;
    let id = param(&req, "id");
    let r = match json_body(&mut req).await {
        Ok(b) => req.state().svc.set_maintenance(&meta, &id, &b).await,
        Err(e) => Err(e),
    };
    reply(&req, ok, r)
}

async fn ping_node(req: Request<State>, ok: u16) -> tide::Result {
    let r = req
        .state()
        .svc
        .ping_node(&info(&req).meta, &param(&req, "id"))
        .await;
    reply(&req, ok, r)
}

async fn node_command(mut req: Request<State>, ok: u16) -> tide::Result {
    let meta = info(&req).meta;
    let id = param(&req, "id");
    let r = match json_body(&mut req).await {
        Ok(b) => req.state().svc.node_command_admin(&meta, &id, &b).await,
        Err(e) => Err(e),
    };
    reply(&req, ok, r)
}

async fn node_events(req: Request<State>, ok: u16) -> tide::Result {
    let mut after = 0_u64;
    let mut wait_ms = 0_u64;
    for (k, v) in req.url().query_pairs() {
        match k.as_ref() {
            "after" => after = v.parse().unwrap_or(0),
            "waitMs" => wait_ms = v.parse().unwrap_or(0),
            _ => {}
        }
    }
    let r = req
        .state()
        .svc
        .node_events_read(&info(&req).meta, &param(&req, "id"), after, wait_ms)
        .await;
    reply(&req, ok, r)
}

async fn download_node(req: Request<State>, ok: u16) -> tide::Result {
    let found = req
        .state()
        .svc
        .node_download(&param(&req, "platform"))
        .await;
    let (path, len, sha) = match found {
        Ok(f) => f,
        Err(e) => return reply(&req, ok, Err(e)),
    };
    let Ok(file) = smol::fs::File::open(&path).await else {
        return reply(&req, ok, Err(crate::error::ApiError::not_found("download")));
    };
    let mut res =
        tide::Response::new(tide::StatusCode::try_from(ok).unwrap_or(tide::StatusCode::Ok));
    res.set_body(tide::Body::from_reader(
        futures_lite::io::BufReader::new(file),
        usize::try_from(len).ok(),
    ));
    res.insert_header("content-type", "application/octet-stream");
    res.insert_header("x-content-sha256", sha);
    res.insert_header("cache-control", "no-store");
    Ok(res)
}

async fn held_nodes(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.held_nodes(&info(&req).meta).await;
    reply(&req, ok, r)
}

async fn set_allowed_dirs(mut req: Request<State>, ok: u16) -> tide::Result {
    let meta = info(&req).meta;
    let id = param(&req, "id");
    let r = match json_body(&mut req).await {
        Ok(b) => req.state().svc.set_allowed_dirs(&meta, &id, &b).await,
        Err(e) => Err(e),
    };
    reply(&req, ok, r)
}

async fn audit(req: Request<State>, ok: u16) -> tide::Result {
    let r = req.state().svc.audit(&info(&req).meta).await;
    reply(&req, ok, r)
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
            assert_eq!(r.ok == 204, r.response.is_none(), "{r:?}: 204 iff no body");
            for c in r.errors {
                assert!(crate::error::code_info(c).is_some(), "{r:?}: unknown {c}");
            }
            assert!(
                !std::ptr::fn_addr_eq(r.handler, missing_handler as Handler),
                "{r:?} has no handler"
            );
        }
    }

    /// REST routes are mounted only from the list: no other `at` of an `/api` path in the adapter
    /// (the test-only panic route aside), so the document lists every one the server has.
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
            for (i, _) in text.match_indices(".at(\"/api") {
                let lit = &text[i + 5..];
                let lit = &lit[..lit.find('"').unwrap()];
                assert_eq!(
                    lit,
                    "/api/__test/panic",
                    "{}: `{lit}` is mounted outside `routes()`; declare it there",
                    path.display()
                );
            }
        }
        assert!(seen >= 3);
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
            vec!["INTERNAL_ERROR"]
        );
        // Reading accounts is open to bearers; writing them is an admin surface.
        assert!(!find(Method::Get, "/api/users").contains(&"BEARER_NOT_ALLOWED"));
    }
}
