//! Routes of the launch catalog: harness plugins and their detection on nodes, presets,
//! workspaces, and which nodes scripts may launch on.

use std::sync::Arc;

use super::super::callers::{AdminSession, AnyCaller, UserCaller};
use super::super::handler::{Json, NoContent, Path, Query};
use super::RouteDef;
use crate::api::IdParam;
use crate::api::catalog::{
    HarnessStatus, HarnessesQuery, Plugin, PluginParam, PluginUpdate, Preset, PresetRequest,
    RecordingRequest, SystemAccessRequest, Workspace, WorkspaceRequest,
};
use crate::api::nodes::Node;
use crate::error::ApiError;
use crate::service::Services;

/// The routes of this domain, in the order the reference lists them.
#[allow(clippy::too_many_lines)]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        RouteDef::get(
            "/api/plugins",
            "listPlugins",
            "The harness plugins, with whether each is enabled",
        )
        .handle(plugins),
        RouteDef::put(
            "/api/plugins/:id",
            "setPluginEnabled",
            "Turn a plugin on or off",
        )
        .handle(set_plugin),
        RouteDef::get(
            "/api/nodes/:id/harnesses",
            "nodeHarnesses",
            "Every harness as a node has it, and whether it can be launched there (detects when asked or when the last answer is older than ten minutes)",
        )
        .errors(&[
            "INPUT_VALIDATION_ERROR",
            "NODE_NOT_ALLOWED",
            "NODE_OFFLINE",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(harnesses),
        RouteDef::get(
            "/api/nodes/:id/dirs",
            "nodeDirs",
            "The subdirectories of one directory of a node (its home when no path is given), \
             within the node's allowed directories: a folder picker's listing",
        )
        .errors(&[
            "INPUT_VALIDATION_ERROR",
            "NODE_NOT_ALLOWED",
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(dirs),
        RouteDef::put(
            "/api/nodes/:id/system-access",
            "setNodeSystemAccess",
            "Let scripts (system keys) launch subshells on a node, or stop letting them",
        )
        .describe(
            "The local node is always open to scripts: setting its access, either way, is \
             refused with 403 `LOCAL_NODE` (as its deletion and key rotation are) and nothing \
             changes.",
        )
        .errors(&["LOCAL_NODE"])
        .handle(system_access),
        RouteDef::put(
            "/api/nodes/:id/recording",
            "setNodeRecording",
            "Record a node's panes or stop recording them (from their next launch or restart), \
             and set how long their recordings are kept",
        )
        .describe(
            "On by default. Off, the node's panes launched or restarted from then on are logged \
             with no timing: their export is their log, untimed. The plane's own `--recording \
             off`, and a workspace's own setting, turn recording off whatever this says. \
             `retentionDays`: what the node's panes printed longer ago than that is deleted \
             from their recordings (and their input marks with it), within the hour; absent, \
             the plane's `--recording-retention-days`; a workspace's own retention wins for its \
             panes. The local node's too. Audited as `node.recording_set`.",
        )
        .handle(node_recording),
        RouteDef::get("/api/presets", "listPresets", "The caller's presets")
            .handle(presets),
        RouteDef::post("/api/presets", "createPreset", "Create a preset")
            .ok(201)
            .handle(create_preset),
        RouteDef::get("/api/presets/:id", "getPreset", "One preset").handle(preset),
        RouteDef::put(
            "/api/presets/:id",
            "updatePreset",
            "Replace a preset's fields",
        )
        .handle(update_preset),
        RouteDef::delete(
            "/api/presets/:id",
            "deletePreset",
            "Delete a preset (subshells launched with it keep what they had)",
        )
        .handle(delete_preset),
        RouteDef::get(
            "/api/workspaces",
            "listWorkspaces",
            "The caller's workspaces",
        )
        .handle(workspaces),
        RouteDef::post(
            "/api/workspaces",
            "createWorkspace",
            "Name a directory on a node the caller may launch on",
        )
        .ok(201)
        .errors(&["NOT_FOUND", "NODE_NOT_ALLOWED"])
        .handle(create_workspace),
        RouteDef::get("/api/workspaces/:id", "getWorkspace", "One workspace")
            .handle(workspace),
        RouteDef::put(
            "/api/workspaces/:id",
            "updateWorkspace",
            "Replace a workspace's fields",
        )
        .errors(&["NODE_NOT_ALLOWED"])
        .handle(update_workspace),
        RouteDef::delete(
            "/api/workspaces/:id",
            "deleteWorkspace",
            "Delete a workspace",
        )
        .handle(delete_workspace),
        RouteDef::put(
            "/api/workspaces/:id/recording",
            "setWorkspaceRecording",
            "Record a workspace's panes or stop recording them (from their next launch or \
             restart), and set how long their recordings are kept",
        )
        .describe(
            "An administrator's, for any account's workspace (a subshell's `workspaceId` names \
             it). On by default; off, the workspace's panes launched or restarted from then on \
             are logged with no timing, whatever their node says. `retentionDays` wins over \
             their node's; absent, theirs applies. Audited as `workspace.recording_set`.",
        )
        .handle(workspace_recording),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn plugins(svc: Arc<Services>, _: AnyCaller) -> Res<Json<Vec<Plugin>>> {
    svc.catalog().plugins().await.map(Json)
}

async fn set_plugin(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<PluginParam>,
    Json(b): Json<PluginUpdate>,
) -> Res<Json<Plugin>> {
    svc.catalog()
        .set_plugin_enabled(&c, p.id.as_str(), b.enabled)
        .await
        .map(Json)
}

async fn dirs(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Path(p): Path<IdParam>,
    Query(q): Query<crate::api::catalog::DirsQuery>,
) -> Res<Json<crate::api::catalog::DirListing>> {
    svc.catalog()
        .list_node_dirs(&c, p.id.as_str(), q)
        .await
        .map(Json)
}

async fn harnesses(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Path(p): Path<IdParam>,
    Query(q): Query<HarnessesQuery>,
) -> Res<Json<Vec<HarnessStatus>>> {
    svc.catalog()
        .node_harnesses(&c, p.id.as_str(), q.refresh)
        .await
        .map(Json)
}

async fn system_access(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
    Json(b): Json<SystemAccessRequest>,
) -> Res<Json<Node>> {
    svc.catalog()
        .set_system_access(&c, p.id.as_str(), b.allowed)
        .await
        .map(Json)
}

async fn node_recording(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
    Json(b): Json<RecordingRequest>,
) -> Res<Json<Node>> {
    let node = svc
        .catalog()
        .set_node_recording(&c, p.id.as_str(), &b)
        .await?;
    svc.retention().wake();
    Ok(Json(node))
}

async fn presets(svc: Arc<Services>, UserCaller(c): UserCaller) -> Res<Json<Vec<Preset>>> {
    svc.presets().presets(&c).await.map(Json)
}

async fn create_preset(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Json(b): Json<PresetRequest>,
) -> Res<Json<Preset>> {
    svc.presets().create_preset(&c, b).await.map(Json)
}

async fn preset(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Path(p): Path<IdParam>,
) -> Res<Json<Preset>> {
    svc.presets().preset(&c, p.id.as_str()).await.map(Json)
}

async fn update_preset(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Path(p): Path<IdParam>,
    Json(b): Json<PresetRequest>,
) -> Res<Json<Preset>> {
    svc.presets()
        .update_preset(&c, p.id.as_str(), b)
        .await
        .map(Json)
}

async fn delete_preset(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.presets().delete_preset(&c, p.id.as_str()).await?;
    Ok(NoContent)
}

async fn workspaces(svc: Arc<Services>, UserCaller(c): UserCaller) -> Res<Json<Vec<Workspace>>> {
    svc.presets().workspaces(&c).await.map(Json)
}

async fn create_workspace(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Json(b): Json<WorkspaceRequest>,
) -> Res<Json<Workspace>> {
    svc.presets().create_workspace(&c, b).await.map(Json)
}

async fn workspace(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Path(p): Path<IdParam>,
) -> Res<Json<Workspace>> {
    svc.presets().workspace(&c, p.id.as_str()).await.map(Json)
}

async fn update_workspace(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Path(p): Path<IdParam>,
    Json(b): Json<WorkspaceRequest>,
) -> Res<Json<Workspace>> {
    svc.presets()
        .update_workspace(&c, p.id.as_str(), b)
        .await
        .map(Json)
}

async fn workspace_recording(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
    Json(b): Json<RecordingRequest>,
) -> Res<Json<Workspace>> {
    let w = svc
        .presets()
        .set_workspace_recording(&c, p.id.as_str(), &b)
        .await?;
    svc.retention().wake();
    Ok(Json(w))
}

async fn delete_workspace(
    svc: Arc<Services>,
    UserCaller(c): UserCaller,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.presets().delete_workspace(&c, p.id.as_str()).await?;
    Ok(NoContent)
}
