//! Routes of enrollment, nodes, node downloads and held nodes.

use std::sync::Arc;

use super::super::callers::{AdminSession, AnyCaller, Session};
use super::super::handler::{Download, Json, MaybeJson, NoContent, Path, Query};
use crate::api::enrollment::{EnrollRequest, Enrolled};
use crate::api::nodes::{
    AllowedDirsRequest, HeldNodes, MaintenanceRequest, MaintenanceSet, Node, NodeCommandAnswer,
    NodeCommandRequest, NodeEvents, NodeEventsQuery, NodeKeyRotated, NodePing, NodeUpdateOutcome,
    NodeUpdateRequest, PlatformParam,
};
use crate::api::{Empty, IdParam};
use crate::error::ApiError;
use crate::service::{RequestMeta, Services};

use super::RouteDef;

/// The routes of this domain, in the order the reference lists them.
#[allow(clippy::too_many_lines)]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        // ----- enrollment and nodes -----
        RouteDef::post(
            "/api/nodes/enroll",
            "enrollNode",
            "Enroll a node with a setup key",
        )
        .setup_key()
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
            "List the caller's nodes and the local node (a pane's token: its owner's, each with whether the pane may launch there)",
        )
        .handle(nodes),
        RouteDef::get("/api/nodes/:id", "getNode", "One node")
            .describe(LOCAL_NODE_SEEN)
            .handle(node),
        RouteDef::delete(
            "/api/nodes/:id",
            "deleteNode",
            "Delete a node; refused while subshells on it are live",
        )
        .describe(
            "By its owner or an administrator. The local node cannot be deleted (403 \
             `LOCAL_NODE`; 403 `ADMIN_REQUIRED` for a person who is not an administrator).",
        )
        .errors(&["ADMIN_REQUIRED", "LOCAL_NODE", "NODE_HAS_LIVE_SUBSHELLS"])
        .handle(delete_node),
        RouteDef::post(
            "/api/nodes/:id/key_rotate",
            "rotateNodeKey",
            "Issue a new node key; the old one stops working",
        )
        .describe(
            "By its owner or an administrator. The local node has no node key (403 \
             `LOCAL_NODE`; 403 `ADMIN_REQUIRED` for a person who is not an administrator).",
        )
        .errors(&["ADMIN_REQUIRED", "LOCAL_NODE"])
        .handle(rotate_node_key),
        RouteDef::put(
            "/api/nodes/:id/allowed_dirs",
            "setAllowedDirs",
            "Replace a node's allowed directories",
        )
        .describe(
            "By its owner or an administrator. The local node's list confines the panes of the \
             plane's own host: only an administrator changes it (403 `ADMIN_REQUIRED` for \
             anyone else, and nothing changes).",
        )
        .errors(&["ADMIN_REQUIRED", "NODE_REFUSED", "COMMAND_TOO_LARGE"])
        .handle(set_allowed_dirs),
        RouteDef::put(
            "/api/nodes/:id/maintenance",
            "setNodeMaintenance",
            "Set a node's maintenance mirror and push it to the node when it is online",
        )
        .describe(
            "By its owner or an administrator. The local node has no maintenance mirror (403 \
             `LOCAL_NODE`; 403 `ADMIN_REQUIRED` for a person who is not an administrator).",
        )
        .errors(&["ADMIN_REQUIRED", "LOCAL_NODE"])
        .handle(set_maintenance),
        RouteDef::post(
            "/api/nodes/:id/ping",
            "pingNode",
            "Send `ping` through the node link and report the round trip",
        )
        .describe(
            "By its owner or an administrator; on the local node, by an administrator (403 \
             `ADMIN_REQUIRED` for anyone else).",
        )
        .errors(&[
            "ADMIN_REQUIRED",
            "NODE_OFFLINE",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(ping_node),
        RouteDef::post(
            "/api/nodes/:id/commands",
            "sendNodeCommand",
            "Admin and debug surface: send one node command (through the link, or to the plane's own executor for the local node) and answer its result",
        )
        .errors(&[
            "COMMAND_TOO_LARGE",
            "NODE_OFFLINE",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(node_command),
        RouteDef::get(
            "/api/nodes/:id/events",
            "nodeEvents",
            "Recent events the node sent on its own (`?after=N&waitMs=M` long-polls up to 25 s)",
        )
        .describe(
            "By its owner or an administrator. The events name every pane of the node, whoever \
             owns it: the local node's are an administrator's to read (403 `ADMIN_REQUIRED` \
             for anyone else).",
        )
        .errors(&["ADMIN_REQUIRED", "INPUT_VALIDATION_ERROR"])
        .handle(node_events),
        // ----- downloads -----
        RouteDef::get(
            "/api/downloads/node/:platform",
            "downloadNode",
            "The node binary for a platform (`linux-x86_64`, …), with `X-Content-SHA256`",
        )
        .handle(download_node),
        // ----- updates -----
        RouteDef::get(
            "/api/admin/updates/held",
            "heldNodes",
            "Nodes held for an update (refused by a gate) and nodes below the version floor",
        )
        .handle(held_nodes),
        RouteDef::post(
            "/api/admin/updates/nodes/:id",
            "updateNode",
            "Update one node to the plane's version with the binary the plane serves; the node \
             verifies it, installs it and restarts (it comes back online on the new version)",
        )
        .errors(&["NOT_FOUND", "NODE_OFFLINE", "LOCAL_NODE", "NODE_TIMEOUT"])
        .handle(update_node),
        RouteDef::post(
            "/api/admin/updates/outdated",
            "updateOutdatedNodes",
            "Update every remote node below the plane's version (held ones included), one after \
             the other, reporting each node's outcome",
        )
        .handle(update_outdated),
    ]
}

/// What the reference says about seeing a node.
const LOCAL_NODE_SEEN: &str = "Its owner and administrators see a node; every signed-in account \
     sees the local node (the plane's own host), which belongs to the administrators: seeing it \
     is not managing it.";

type Res<T> = Result<T, ApiError>;

async fn enroll(
    svc: Arc<Services>,
    meta: RequestMeta,
    Json(b): Json<EnrollRequest>,
) -> Res<Json<Enrolled>> {
    svc.enrollment().enroll(&meta.peer_ip, b).await.map(Json)
}

async fn nodes(svc: Arc<Services>, AnyCaller(c): AnyCaller) -> Res<Json<Vec<Node>>> {
    svc.nodes().nodes(&c).await.map(Json)
}

async fn node(svc: Arc<Services>, Session(c): Session, Path(p): Path<IdParam>) -> Res<Json<Node>> {
    svc.nodes().node(&c, p.id.as_str()).await.map(Json)
}

async fn delete_node(
    svc: Arc<Services>,
    Session(c): Session,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.nodes().delete_node(&c, p.id.as_str()).await?;
    Ok(NoContent)
}

async fn rotate_node_key(
    svc: Arc<Services>,
    Session(c): Session,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<NodeKeyRotated>> {
    svc.nodes()
        .rotate_node_key(&c, p.id.as_str())
        .await
        .map(Json)
}

async fn set_allowed_dirs(
    svc: Arc<Services>,
    Session(c): Session,
    Path(p): Path<IdParam>,
    Json(b): Json<AllowedDirsRequest>,
) -> Res<Json<Node>> {
    svc.nodes()
        .set_allowed_dirs(&c, p.id.as_str(), b)
        .await
        .map(Json)
}

async fn set_maintenance(
    svc: Arc<Services>,
    Session(c): Session,
    Path(p): Path<IdParam>,
    Json(b): Json<MaintenanceRequest>,
) -> Res<Json<MaintenanceSet>> {
    svc.nodes()
        .set_maintenance(&c, p.id.as_str(), b)
        .await
        .map(Json)
}

async fn ping_node(
    svc: Arc<Services>,
    Session(c): Session,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<NodePing>> {
    svc.nodes().ping_node(&c, p.id.as_str()).await.map(Json)
}

async fn node_command(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
    Json(b): Json<NodeCommandRequest>,
) -> Res<Json<NodeCommandAnswer>> {
    svc.nodes()
        .node_command_admin(&c, p.id.as_str(), b.0)
        .await
        .map(Json)
}

async fn node_events(
    svc: Arc<Services>,
    Session(c): Session,
    Path(p): Path<IdParam>,
    Query(q): Query<NodeEventsQuery>,
) -> Res<Json<NodeEvents>> {
    svc.nodes()
        .node_events_read(&c, p.id.as_str(), q)
        .await
        .map(Json)
}

async fn download_node(
    svc: Arc<Services>,
    _: RequestMeta,
    Path(p): Path<PlatformParam>,
) -> Res<Download> {
    let (path, len, sha256) = svc.nodes().node_download(p.platform.as_str()).await?;
    Ok(Download {
        path,
        len,
        sha256,
        file_name: None,
    })
}

async fn update_node(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
    b: MaybeJson<NodeUpdateRequest>,
) -> Res<Json<NodeUpdateOutcome>> {
    svc.nodes()
        .update_node(&c, p.id.as_str(), b.0.unwrap_or_default())
        .await
        .map(Json)
}

async fn update_outdated(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    b: MaybeJson<NodeUpdateRequest>,
) -> Res<Json<Vec<NodeUpdateOutcome>>> {
    svc.nodes()
        .update_outdated_nodes(&c, b.0.unwrap_or_default())
        .await
        .map(Json)
}

async fn held_nodes(svc: Arc<Services>, _: AdminSession) -> Res<Json<HeldNodes>> {
    svc.nodes().held_nodes().await.map(Json)
}
