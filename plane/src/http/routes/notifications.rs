//! Routes of push devices and notifications (see [`crate::api::notifications`]). A browser
//! session's own: a bearer credential is refused.

use std::sync::Arc;

use super::super::callers::Session;
use super::super::handler::{Json, MaybeJson, NoContent, Path, Query};
use super::RouteDef;
use crate::api::notifications::{
    Device, DeviceRequest, MarkedRead, Mute, MuteRequest, Notification, NotificationPrefs,
    NotificationsQuery, UnreadCount, VapidKey,
};
use crate::api::{Empty, IdParam};
use crate::error::ApiError;
use crate::service::Services;

/// The routes of this domain, in the order the reference lists them.
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        RouteDef::get(
            "/api/devices/vapid",
            "vapidKey",
            "The plane's VAPID public key (the Push API's `applicationServerKey`)",
        )
        .handle(vapid),
        RouteDef::get("/api/devices", "listDevices", "Your push devices").handle(devices),
        RouteDef::post(
            "/api/devices",
            "addDevice",
            "Register a browser's push subscription (the same endpoint again replaces its keys)",
        )
        .ok(201)
        .errors(&["DEVICE_LIMIT"])
        .handle(add_device),
        RouteDef::delete("/api/devices/:id", "deleteDevice", "Remove a push device")
            .errors(&["NOT_FOUND"])
            .handle(delete_device),
        RouteDef::get(
            "/api/notifications",
            "listNotifications",
            "Your notifications, newest first (`unread`, `before` cursor, `limit`)",
        )
        .handle(list),
        RouteDef::get(
            "/api/notifications/unread",
            "unreadNotificationCount",
            "How many of your notifications are unread",
        )
        .handle(unread),
        RouteDef::post(
            "/api/notifications/:id/read",
            "markNotificationRead",
            "Mark one notification read",
        )
        .errors(&["NOT_FOUND"])
        .handle(read_one),
        RouteDef::post(
            "/api/notifications/read-all",
            "markAllNotificationsRead",
            "Mark every notification read",
        )
        .handle(read_all),
        RouteDef::get(
            "/api/notifications/preferences",
            "notificationPreferences",
            "What you are notified about",
        )
        .handle(prefs),
        RouteDef::put(
            "/api/notifications/preferences",
            "setNotificationPreferences",
            "Choose what you are notified about",
        )
        .handle(set_prefs),
        RouteDef::get(
            "/api/notifications/mutes",
            "listMutes",
            "The panes whose notifications you muted",
        )
        .handle(mutes),
        RouteDef::put(
            "/api/notifications/mutes/:id",
            "mutePane",
            "Mute the notifications of one of your own panes (`until`, or until you unmute it)",
        )
        .errors(&["NOT_FOUND"])
        .handle(mute),
        RouteDef::delete(
            "/api/notifications/mutes/:id",
            "unmutePane",
            "Unmute a pane's notifications",
        )
        .errors(&["NOT_FOUND"])
        .handle(unmute),
    ]
}

async fn mutes(svc: Arc<Services>, Session(me): Session) -> Res<Json<Vec<Mute>>> {
    svc.notifications().mutes(&me).await.map(Json)
}

async fn mute(
    svc: Arc<Services>,
    Session(me): Session,
    Path(p): Path<IdParam>,
    MaybeJson(b): MaybeJson<MuteRequest>,
) -> Res<Json<Mute>> {
    svc.notifications()
        .mute(&me, p.id.as_str(), b.unwrap_or_default())
        .await
        .map(Json)
}

async fn unmute(
    svc: Arc<Services>,
    Session(me): Session,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.notifications().unmute(&me, p.id.as_str()).await?;
    Ok(NoContent)
}

type Res<T> = Result<T, ApiError>;

async fn vapid(svc: Arc<Services>, _: Session) -> Res<Json<VapidKey>> {
    svc.notifications().vapid_key().map(Json)
}

async fn devices(svc: Arc<Services>, Session(me): Session) -> Res<Json<Vec<Device>>> {
    svc.notifications().devices(&me).await.map(Json)
}

async fn add_device(
    svc: Arc<Services>,
    Session(me): Session,
    Json(b): Json<DeviceRequest>,
) -> Res<Json<Device>> {
    svc.notifications().add_device(&me, b).await.map(Json)
}

async fn delete_device(
    svc: Arc<Services>,
    Session(me): Session,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.notifications()
        .delete_device(&me, p.id.as_str())
        .await?;
    Ok(NoContent)
}

async fn unread(svc: Arc<Services>, Session(me): Session) -> Res<Json<UnreadCount>> {
    svc.notifications().unread_count(&me).await.map(Json)
}

async fn list(
    svc: Arc<Services>,
    Session(me): Session,
    Query(q): Query<NotificationsQuery>,
) -> Res<Json<Vec<Notification>>> {
    svc.notifications().notifications(&me, q).await.map(Json)
}

async fn read_one(
    svc: Arc<Services>,
    Session(me): Session,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<MarkedRead>> {
    svc.notifications()
        .mark_read(&me, Some(p.id.as_str()))
        .await
        .map(Json)
}

async fn read_all(
    svc: Arc<Services>,
    Session(me): Session,
    _: MaybeJson<Empty>,
) -> Res<Json<MarkedRead>> {
    svc.notifications().mark_read(&me, None).await.map(Json)
}

async fn prefs(svc: Arc<Services>, Session(me): Session) -> Res<Json<NotificationPrefs>> {
    svc.notifications().notification_prefs(&me).await.map(Json)
}

async fn set_prefs(
    svc: Arc<Services>,
    Session(me): Session,
    Json(b): Json<NotificationPrefs>,
) -> Res<Json<NotificationPrefs>> {
    svc.notifications()
        .set_notification_prefs(&me, b)
        .await
        .map(Json)
}
