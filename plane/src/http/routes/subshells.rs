//! Routes of subshells: launching, listing, reading, typing, lifecycle moves and the reports a
//! pane makes about itself.

use std::sync::Arc;

use super::super::callers::SubshellCaller;
use super::super::handler::{Cast, Json, MaybeJson, NoContent, Path, Query};
use super::RouteDef;
use crate::api::subshells::{
    AttentionRequest, EndedQuery, InputDone, InputMarks, InputRequest, KeptAlive, LaunchRequest,
    LogChunk, LogsQuery, PaneEvents, ResizeRequest, Screen, ScreenQuery, SessionRequest,
    StatusRequest, Subshell, SubshellsQuery,
};
use crate::api::{Empty, IdParam};
use crate::error::ApiError;
use crate::service::Services;

/// The routes of this domain, in the order the reference lists them.
#[allow(clippy::too_many_lines)]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        RouteDef::post(
            "/api/subshells",
            "launchSubshell",
            "Launch a harness in a pane on a node (a launch the node refuses leaves nothing behind)",
        )
        .ok(201)
        .errors(&[
            "NOT_FOUND",
            "NODE_NOT_ALLOWED",
            "REFERENCE_MISMATCH",
            "NODE_OFFLINE",
            "PLUGIN_DISABLED",
            "HARNESS_NOT_INSTALLED",
            "LAUNCH_REFUSED",
            "COMMAND_TOO_LARGE",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(launch),
        RouteDef::get(
            "/api/subshells",
            "listSubshells",
            "The caller's subshells (an administrator's session: every one), newest first",
        )
        .errors(&["INPUT_VALIDATION_ERROR"])
        .handle(list),
        RouteDef::get("/api/subshells/:id", "getSubshell", "One subshell")
            .handle(get),
        RouteDef::delete(
            "/api/subshells/:id",
            "deleteSubshell",
            "Delete a subshell: a live pane is killed, its token revoked, its row removed (a pane \
             on a node out of reach, or whose node answers the kill too late, is killed when \
             that node answers)",
        )
        .errors(&["NODE_REFUSED", "NODE_BAD_RESULT"])
        .handle(delete),
        RouteDef::get(
            "/api/subshells/:id/logs",
            "subshellLogs",
            "A byte range of the pane's log (everything it printed)",
        )
        .errors(&[
            "INPUT_VALIDATION_ERROR",
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(logs),
        RouteDef::get(
            "/api/subshells/:id/recording/cast",
            "subshellRecordingCast",
            "The pane's whole recording (everything it printed, when, and on what grid) as an \
             asciicast v2 file, for `asciinema play` and other players; a log over 16 MiB is \
             refused",
        )
        .errors(&[
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
            "RECORDING_UNSUPPORTED",
            "RECORDING_TOO_LARGE",
        ])
        .handle(recording_cast),
        RouteDef::get(
            "/api/subshells/:id/recording/inputs",
            "subshellRecordingInputs",
            "Who put input into the pane and when — typed in a terminal, pasted, sent through the \
             API, uploaded — oldest first, for the recording's playback; what was typed is not \
             kept",
        )
        .handle(recording_inputs),
        RouteDef::get(
            "/api/subshells/:id/recording/events",
            "subshellRecordingEvents",
            "The pane's launches, restarts, stops and its agent's state changes, oldest first, \
             for the recording's timeline",
        )
        .handle(recording_events),
        RouteDef::get(
            "/api/subshells/:id/screen",
            "subshellScreen",
            "The pane's text as it shows now (with `lines` of history above it)",
        )
        .errors(&[
            "INPUT_VALIDATION_ERROR",
            "SUBSHELL_NOT_RUNNING",
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(screen),
        RouteDef::get(
            "/api/subshells/:id/ended",
            "waitSubshellEnded",
            "The subshell once its pane has ended, waiting up to `waitMs` (default and at most 25000) for that; at the deadline, as it is then",
        )
        .errors(&["INPUT_VALIDATION_ERROR"])
        .handle(ended),
        RouteDef::post(
            "/api/subshells/:id/input",
            "subshellInput",
            "Type text (a long paste goes in pieces, in order) and press named keys",
        )
        .errors(&[
            "SUBSHELL_NOT_RUNNING",
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "COMMAND_TOO_LARGE",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(input),
        RouteDef::post(
            "/api/subshells/:id/resize",
            "resizeSubshell",
            "Set the pane's grid (while no viewer that takes part in sizing is attached)",
        )
        .errors(&[
            "SUBSHELL_NOT_RUNNING",
            "GRID_HELD",
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(resize),
        RouteDef::post(
            "/api/subshells/:id/restart",
            "restartSubshell",
            "Relaunch: a live pane is killed first; the token is replaced (the old one stops working)",
        )
        .errors(&[
            "INVALID_STATE",
            "LAUNCH_REFUSED",
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "COMMAND_TOO_LARGE",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(restart),
        RouteDef::post(
            "/api/subshells/:id/terminate",
            "terminateSubshell",
            "Graceful stop: the token is revoked at once, Ctrl-C is typed, and the pane is killed when the grace ends; \
             a kill during the grace finishes the stop, a restart during it supersedes the stop (409 INVALID_STATE)",
        )
        .errors(&[
            "INVALID_STATE",
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(terminate),
        RouteDef::post(
            "/api/subshells/:id/kill",
            "killSubshell",
            "Hard stop: the pane is killed and the token revoked",
        )
        .errors(&[
            "INVALID_STATE",
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(kill),
        RouteDef::post(
            "/api/subshells/:id/attention",
            "reportAttention",
            "The pane reports that it needs input, is done, or neither (its own token only)",
        )
        .errors(&["NOT_OWN_SUBSHELL", "TOO_MANY_REPORTS"])
        .handle(attention),
        RouteDef::post(
            "/api/subshells/:id/status",
            "reportStatus",
            "The pane reports what its agent is doing: working, idle, needs input, done or error, \
             with a summary and a link, from its harness's hook or the agent itself (its own \
             token only)",
        )
        .errors(&[
            "NOT_OWN_SUBSHELL",
            "SUBSHELL_NOT_RUNNING",
            "STALE_REPORT",
            "TOO_MANY_REPORTS",
        ])
        .handle(status),
        RouteDef::put(
            "/api/subshells/:id/session",
            "reportSession",
            "The pane reports its harness's own session id, for resuming (its own token only)",
        )
        .errors(&["NOT_OWN_SUBSHELL"])
        .handle(session),
        RouteDef::post(
            "/api/subshells/:id/keepalive",
            "keepSubshellTokenAlive",
            "The pane's MCP child is alive: its token lives seven more days (its own token only)",
        )
        .errors(&["NOT_OWN_SUBSHELL"])
        .handle(keepalive),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn launch(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Json(b): Json<LaunchRequest>,
) -> Res<Json<Subshell>> {
    svc.subshells().launch(&c, b).await.map(Json)
}

async fn list(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Query(q): Query<SubshellsQuery>,
) -> Res<Json<Vec<Subshell>>> {
    svc.lookup().list(&c, q).await.map(Json)
}

async fn get(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
) -> Res<Json<Subshell>> {
    svc.lookup().get(&c, p.id.as_str()).await.map(Json)
}

async fn delete(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.subshells().delete(&c, p.id.as_str()).await?;
    Ok(NoContent)
}

async fn recording_cast(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
) -> Res<Cast> {
    let (bytes, name) = svc.pane_io().recording_cast(&c, p.id.as_str()).await?;
    Ok(Cast { bytes, name })
}

async fn recording_inputs(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
) -> Res<Json<InputMarks>> {
    svc.pane_io()
        .recording_inputs(&c, p.id.as_str())
        .await
        .map(Json)
}

async fn recording_events(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
) -> Res<Json<PaneEvents>> {
    svc.pane_io()
        .recording_events(&c, p.id.as_str())
        .await
        .map(Json)
}

async fn logs(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    Query(q): Query<LogsQuery>,
) -> Res<Json<LogChunk>> {
    svc.pane_io().logs(&c, p.id.as_str(), q).await.map(Json)
}

async fn ended(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    Query(q): Query<EndedQuery>,
) -> Res<Json<Subshell>> {
    let wait = std::time::Duration::from_millis(u64::from(q.wait_ms));
    svc.pane_io()
        .wait_ended(&c, p.id.as_str(), wait)
        .await
        .map(Json)
}

async fn screen(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    Query(q): Query<ScreenQuery>,
) -> Res<Json<Screen>> {
    svc.pane_io().screen(&c, p.id.as_str(), q).await.map(Json)
}

async fn input(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    Json(b): Json<InputRequest>,
) -> Res<Json<InputDone>> {
    svc.pane_io().input(&c, p.id.as_str(), b).await.map(Json)
}

async fn resize(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    Json(b): Json<ResizeRequest>,
) -> Res<Json<Subshell>> {
    svc.pane_io().resize(&c, p.id.as_str(), b).await.map(Json)
}

async fn restart(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<Subshell>> {
    svc.subshells().restart(&c, p.id.as_str()).await.map(Json)
}

async fn terminate(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<Subshell>> {
    svc.subshells().terminate(&c, p.id.as_str()).await.map(Json)
}

async fn kill(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<Subshell>> {
    svc.subshells().kill(&c, p.id.as_str()).await.map(Json)
}

async fn attention(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    Json(b): Json<AttentionRequest>,
) -> Res<Json<Subshell>> {
    svc.pane_io()
        .report_attention(&c, p.id.as_str(), b)
        .await
        .map(Json)
}

async fn status(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    Json(b): Json<StatusRequest>,
) -> Res<Json<Subshell>> {
    svc.pane_io()
        .report_status(&c, p.id.as_str(), b)
        .await
        .map(Json)
}

async fn session(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    Json(b): Json<SessionRequest>,
) -> Res<Json<Subshell>> {
    svc.pane_io()
        .report_session(&c, p.id.as_str(), b)
        .await
        .map(Json)
}

async fn keepalive(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<KeptAlive>> {
    svc.pane_io().keepalive(&c, p.id.as_str()).await.map(Json)
}
