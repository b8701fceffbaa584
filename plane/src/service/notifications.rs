//! Devices, the notification inbox and Web Push delivery (the route shapes and the message are
//! described in [`crate::api::notifications`]).
//!
//! Notifications come from the same places the live feed does: every change of a subshell row
//! and of a node's liveness passes [`Notifications::notice_subshell`] or [`Notifications::notice_node`],
//! which compare it with what they saw last (in memory; nothing is told about the state a row
//! had when the plane started) and tell the *owner* — not administrators, not accounts a pane
//! is shared with, never the `system` account of scripts — when a pane starts needing input,
//! exits or crashes, or a node goes offline. The notification is stored first, then pushed to
//! each of the owner's devices from a task of its own, so a slow push service delays nothing.
//!
//! Delivery: `POST` to the endpoint with `Content-Encoding: aes128gcm`, `TTL: 86400`, `Urgency`
//! (`high` for needs-input), and `Authorization: vapid …`; 2xx is delivered, 404 or 410
//! removes the device, anything else is kept as the device's `lastError`. Endpoints must be
//! `https://` (a plane started with `TERMPLANE_PUSH_ALLOW_HTTP=1` also takes `http://`, for a
//! push service on a private network or in tests).
//!
//! An endpoint is chosen by whoever registers the device, so the plane must not become their
//! way to the services of its own host or network (a blind request forgery whose `lastError`
//! would tell them what answered). Pushes go only to the public internet, by one rule,
//! [`termplane_runtime_smol::http::resolve_reaching`]: the host is not `localhost` (nor a name
//! under it) and *every* address it resolves to is public. An endpoint is written as the WHATWG
//! URL parser reads it and must name its host by a DNS name
//! ([`crate::api::notifications::PushEndpoint`]: no address literal in any spelling, so `127.1`
//! or `2130706433` never reach a resolver as a name). At registration the name is resolved, for
//! at most [`RESOLVE_AT_REGISTRATION`], and refused when the rule refuses it; a name that does
//! not resolve then is taken, since the rule is met again at each push, on the addresses the
//! host resolves to *then* (so a name rebound since is not reached either; the device keeps the
//! reason as its `lastError`). A plane whose push service lives on its own network is started
//! with `TERMPLANE_PUSH_ALLOW_PRIVATE=1`, and then neither check is made.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use base64ct::{Base64UrlUnpadded, Encoding};
use termplane_machines::jws::Es256Signer;

use super::Caller;
use super::live::LiveBus;
use crate::api::notifications::{
    Device, DeviceRequest, EndpointHost, MarkedRead, Notification, NotificationKind,
    NotificationPrefs, NotificationsQuery, PushEndpoint, UnreadCount, VapidKey,
};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::secret;
use crate::store::{DeviceRow, NotificationRow, Prefs, Store};

/// File of the VAPID key in the data directory (mode 0600, like the other key files).
pub(crate) const VAPID_KEY_FILE: &str = "vapid.key";
/// The largest push response body read.
const RESPONSE_CAP: u64 = 16 * 1024;
/// The longest a registration waits for the endpoint's host to resolve.
pub(crate) const RESOLVE_AT_REGISTRATION: std::time::Duration = std::time::Duration::from_secs(3);

/// The notifications domain: devices, the inbox, what was last seen of each subshell and node,
/// and Web Push delivery. It holds only what it needs: the store, the clock, the live feed it
/// announces new notifications on, and its push settings.
pub struct Notifications {
    store: Store,
    clock: Arc<dyn Clock>,
    live: Arc<LiveBus>,
    /// The data directory, where the VAPID key is kept (`None`: kept in memory).
    data_dir: Option<PathBuf>,
    /// The plane's public URL (the VAPID `sub`ject).
    base_url: String,
    /// Whether push endpoints may be plain `http://`.
    push_http: bool,
    /// Whether pushes may go to addresses off the public internet.
    push_private: bool,
    subshells: Mutex<HashMap<String, (String, String)>>,
    nodes: Mutex<HashMap<String, String>>,
    vapid: OnceLock<Arc<Es256Signer>>,
    /// This service, for the push tasks it starts.
    me: Weak<Self>,
}

fn device_view(d: &DeviceRow) -> Device {
    let push_service = d
        .endpoint
        .split_once("://")
        .map(|(s, rest)| format!("{s}://{}", rest.split(['/', '?', '#']).next().unwrap_or("")))
        .unwrap_or_default();
    Device {
        id: d.id.clone(),
        name: d.name.clone(),
        push_service,
        created_at: d.created_at,
        last_sent_at: d.last_sent_at,
        last_error: d.last_error.clone(),
    }
}

/// The app's page for a notification's subject.
fn subject_url(kind: NotificationKind, subject: &str) -> String {
    match kind {
        NotificationKind::NodeOffline => "/nodes".to_owned(),
        _ => format!("/subshells/{subject}"),
    }
}

fn notification_view(n: &NotificationRow) -> Notification {
    let kind = NotificationKind::from_stored(&n.kind);
    Notification {
        url: subject_url(kind, &n.subject_id),
        id: n.id.clone(),
        kind,
        subject_id: n.subject_id.clone(),
        title: n.title.clone(),
        body: n.body.clone(),
        created_at: n.created_at,
        read_at: n.read_at,
    }
}

fn allowed(p: Prefs, kind: NotificationKind) -> bool {
    match kind {
        NotificationKind::NeedsInput => p.needs_input,
        NotificationKind::Exited => p.exited,
        NotificationKind::Crashed => p.crashed,
        NotificationKind::NodeOffline => p.node_offline,
    }
}

impl Notifications {
    /// The service over `store`, with the plane's push settings.
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        live: Arc<LiveBus>,
        settings: &super::Settings,
    ) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            store,
            clock,
            live,
            data_dir: settings.data_dir.clone(),
            base_url: settings.base_url.clone(),
            push_http: settings.push_http,
            push_private: settings.push_private,
            subshells: Mutex::default(),
            nodes: Mutex::default(),
            vapid: OnceLock::new(),
            me: me.clone(),
        })
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The plane's VAPID key: `<data dir>/vapid.key`, created on first use (a plane without a
    /// data directory keeps one in memory).
    fn vapid(&self) -> Result<Arc<Es256Signer>, ApiError> {
        if let Some(k) = self.vapid.get() {
            return Ok(k.clone());
        }
        let secret = match &self.data_dir {
            Some(dir) => crate::keys::load_or_create_file(&dir.join(VAPID_KEY_FILE), |b| {
                Es256Signer::from_secret_bytes(b).is_ok()
            })
            .map_err(|e| {
                tracing::error!(error = %e, "the VAPID key is unusable");
                ApiError::internal()
            })?,
            None => {
                let mut b = [0u8; 32];
                loop {
                    getrandom::fill(&mut b).map_err(|_| ApiError::internal())?;
                    if Es256Signer::from_secret_bytes(&b).is_ok() {
                        break b;
                    }
                }
            }
        };
        let key = Es256Signer::from_secret_bytes(&secret).map_err(|_| ApiError::internal())?;
        Ok(self.vapid.get_or_init(|| Arc::new(key)).clone())
    }

    /// `GET /api/devices/vapid`.
    pub fn vapid_key(&self) -> Result<VapidKey, ApiError> {
        Ok(VapidKey {
            public_key: crate::push::vapid_public_key(&*self.vapid()?),
        })
    }

    /// `GET /api/devices`.
    pub async fn devices(&self, who: &Caller) -> Result<Vec<Device>, ApiError> {
        let me = who.user().id.clone();
        Ok(self
            .store
            .devices_of(&me)
            .await?
            .iter()
            .map(device_view)
            .collect())
    }

    /// `POST /api/devices`: registers a subscription (the same endpoint again replaces its
    /// keys).
    pub async fn add_device(&self, who: &Caller, req: DeviceRequest) -> Result<Device, ApiError> {
        let me = who.user().id.clone();
        let endpoint = req.endpoint.as_str();
        if !req.endpoint.is_https() && !self.push_http {
            return Err(ApiError::validation(
                "endpoint",
                "must be the push service's https:// URL (a plane started with \
                 TERMPLANE_PUSH_ALLOW_HTTP=1 also takes http://)",
            ));
        }
        if !self.push_private {
            reaches_outside(&req.endpoint).await?;
        }
        let key = Base64UrlUnpadded::decode_vec(req.keys.p256dh.trim_end_matches('='))
            .ok()
            .filter(|k| k.len() == 65 && p256::PublicKey::from_sec1_bytes(k).is_ok())
            .ok_or_else(|| {
                ApiError::validation("keys.p256dh", "must be a P-256 point, base64url")
            })?;
        let auth = Base64UrlUnpadded::decode_vec(req.keys.auth.trim_end_matches('='))
            .ok()
            .filter(|a| a.len() == 16)
            .ok_or_else(|| ApiError::validation("keys.auth", "must be 16 bytes, base64url"))?;
        let row = DeviceRow {
            id: secret::new_id()?,
            user_id: me,
            name: req.name.as_str().to_owned(),
            endpoint: endpoint.to_owned(),
            p256dh: Base64UrlUnpadded::encode_string(&key),
            auth: Base64UrlUnpadded::encode_string(&auth),
            created_at: self.now(),
            last_sent_at: None,
            last_error: None,
        };
        match self.store.put_device(&row).await? {
            Some(d) => Ok(device_view(&d)),
            None => Err(ApiError::new(
                409,
                "DEVICE_LIMIT",
                format!(
                    "an account registers at most {} devices; remove one first",
                    crate::store::MAX_DEVICES_PER_ACCOUNT
                ),
            )),
        }
    }

    /// `DELETE /api/devices/{id}`.
    pub async fn delete_device(&self, who: &Caller, id: &str) -> Result<(), ApiError> {
        let me = who.user().id.clone();
        if self.store.delete_device(id, Some(&me), self.now()).await? {
            Ok(())
        } else {
            Err(ApiError::not_found("device"))
        }
    }

    /// `GET /api/notifications/unread`.
    pub async fn unread_count(&self, who: &Caller) -> Result<UnreadCount, ApiError> {
        let me = who.user().id.clone();
        Ok(UnreadCount {
            unread: self.store.unread_count(&me).await?,
        })
    }

    /// `GET /api/notifications`.
    pub async fn notifications(
        &self,
        who: &Caller,
        q: NotificationsQuery,
    ) -> Result<Vec<Notification>, ApiError> {
        let me = who.user().id.clone();
        let limit = q.limit.unwrap_or(50);
        if !(1..=200).contains(&limit) {
            return Err(ApiError::validation("limit", "must be 1 to 200"));
        }
        Ok(self
            .store
            .notifications_of(
                &me,
                q.unread,
                q.before
                    .map(|b| (b, q.before_id.as_ref().map(|i| i.as_str()))),
                i64::from(limit),
            )
            .await?
            .iter()
            .map(notification_view)
            .collect())
    }

    /// `POST /api/notifications/{id}/read` (`id: None`: `…/read-all`).
    pub async fn mark_read(&self, who: &Caller, id: Option<&str>) -> Result<MarkedRead, ApiError> {
        let me = who.user().id.clone();
        if let Some(id) = id
            && !self.store.has_notification(&me, id).await?
        {
            return Err(ApiError::not_found("notification"));
        }
        Ok(MarkedRead {
            marked: self.store.mark_read(&me, id, self.now()).await?,
        })
    }

    /// `GET /api/notifications/preferences`.
    pub async fn notification_prefs(&self, who: &Caller) -> Result<NotificationPrefs, ApiError> {
        let me = who.user().id.clone();
        let p = self.store.prefs_of(&me).await?;
        Ok(NotificationPrefs {
            needs_input: p.needs_input,
            exited: p.exited,
            crashed: p.crashed,
            node_offline: p.node_offline,
        })
    }

    /// `PUT /api/notifications/preferences`.
    pub async fn set_notification_prefs(
        &self,
        who: &Caller,
        p: NotificationPrefs,
    ) -> Result<NotificationPrefs, ApiError> {
        let me = who.user().id.clone();
        self.store
            .set_prefs(
                &me,
                Prefs {
                    needs_input: p.needs_input,
                    exited: p.exited,
                    crashed: p.crashed,
                    node_offline: p.node_offline,
                },
            )
            .await?;
        Ok(p)
    }

    /// Compares a subshell row with what was seen last and tells its owner what changed.
    pub(crate) async fn notice_subshell(&self, row: &crate::store::Subshell) {
        // Waiting for a person, by the harness's attention or by its agent's state.
        let needs = if row.attention == "needs_input" || row.agent.state == "needs_input" {
            "needs_input"
        } else {
            "none"
        };
        let now = (row.state.clone(), needs.to_owned());
        let before = self
            .subshells
            .lock()
            .ok()
            .and_then(|mut m| m.insert(row.id.clone(), now.clone()));
        let Some((state_was, attention_was)) = before else {
            return;
        };
        let mut told = Vec::new();
        if now.1 == "needs_input" && attention_was != "needs_input" {
            told.push(NotificationKind::NeedsInput);
        }
        if now.0 != state_was {
            match now.0.as_str() {
                "exited" => told.push(NotificationKind::Exited),
                "crashed" => told.push(NotificationKind::Crashed),
                _ => {}
            }
        }
        for kind in told {
            let (title, body) = match kind {
                NotificationKind::NeedsInput => (
                    format!("{} needs input", row.name),
                    format!("{} is waiting for you", row.harness_id),
                ),
                NotificationKind::Exited => (
                    format!("{} exited", row.name),
                    format!("{} finished (exit code 0)", row.harness_id),
                ),
                _ => (
                    format!("{} crashed", row.name),
                    match row.exit_code {
                        Some(c) => format!("{} ended with exit code {c}", row.harness_id),
                        None => format!("{}'s pane is gone", row.harness_id),
                    },
                ),
            };
            self.tell(
                &row.owner_user_id,
                kind,
                &row.id,
                title,
                body,
                subject_url(kind, &row.id),
            )
            .await;
        }
    }

    /// Compares a node's liveness with what was seen last and tells its owner when it went
    /// offline.
    pub(crate) async fn notice_node(&self, node: &crate::store::Node) {
        if node.is_local {
            return;
        }
        let before = self
            .nodes
            .lock()
            .ok()
            .and_then(|mut m| m.insert(node.id.clone(), node.liveness.clone()));
        if before.as_deref() == Some("online")
            && node.liveness != "online"
            && let Some(owner) = &node.owner_user_id
        {
            self.tell(
                owner,
                NotificationKind::NodeOffline,
                &node.id,
                format!("{} went offline", node.name),
                "its link to the plane is down".to_owned(),
                subject_url(NotificationKind::NodeOffline, &node.id),
            )
            .await;
        }
    }

    /// Stores a notification for `user_id` (when its preferences allow) and pushes it to the
    /// account's devices from a task of its own.
    async fn tell(
        &self,
        user_id: &str,
        kind: NotificationKind,
        subject: &str,
        title: String,
        body: String,
        url: String,
    ) {
        let person = match self.store.user_by_id(user_id).await {
            Ok(Some(u)) => u.role != "service" && !u.disabled,
            _ => false,
        };
        if !person {
            return;
        }
        let prefs = self.store.prefs_of(user_id).await.unwrap_or_default();
        if !allowed(prefs, kind) {
            return;
        }
        let Ok(id) = secret::new_id() else {
            return;
        };
        let row = NotificationRow {
            id: id.clone(),
            user_id: user_id.to_owned(),
            kind: kind.as_str().to_owned(),
            subject_id: subject.to_owned(),
            title,
            body,
            created_at: self.now(),
            read_at: None,
        };
        if let Err(e) = self.store.add_notification(&row).await {
            tracing::warn!(error = %e, "a notification could not be stored");
            return;
        }
        self.live.publish(
            &crate::api::terminals::FeedFrame::Notification {
                notification: Box::new(notification_view(&row)),
            },
            &super::live::Audience {
                users: std::iter::once(user_id.to_owned()).collect(),
                admins: false,
                everyone: false,
            },
        );
        let message = serde_json::json!({
            "id": row.id, "kind": row.kind, "subjectId": row.subject_id,
            "title": row.title, "body": row.body, "url": url,
        })
        .to_string();
        let Some(me) = self.me.upgrade() else {
            return;
        };
        let user = user_id.to_owned();
        let urgent = kind == NotificationKind::NeedsInput;
        smol::spawn(async move { me.push_to_devices(&user, message, urgent).await }).detach();
    }

    async fn push_to_devices(self: Arc<Self>, user_id: &str, message: String, urgent: bool) {
        let Ok(devices) = self.store.devices_of(user_id).await else {
            return;
        };
        let Ok(vapid) = self.vapid() else {
            return;
        };
        for d in devices {
            let outcome = self.push_one(&vapid, &d, &message, urgent).await;
            let now = self.now();
            let stored = match outcome {
                Ok(()) => self.store.device_delivery(&d.id, None, now).await,
                Err(Gone) => self.store.delete_device(&d.id, None, now).await.map(|_| ()),
                Err(Failed(why)) => self.store.device_delivery(&d.id, Some(&why), now).await,
            };
            if let Err(e) = stored {
                tracing::debug!(error = %e, "a push outcome was not stored");
            }
        }
    }

    async fn push_one(
        &self,
        vapid: &Arc<Es256Signer>,
        d: &DeviceRow,
        message: &str,
        urgent: bool,
    ) -> Result<(), Delivery> {
        use Delivery::{Failed, Gone};
        let ua = Base64UrlUnpadded::decode_vec(&d.p256dh).map_err(|_| Gone)?;
        let auth = Base64UrlUnpadded::decode_vec(&d.auth).map_err(|_| Gone)?;
        let mut eph = [0u8; 32];
        let mut salt = [0u8; 16];
        let body = loop {
            getrandom::fill(&mut eph).map_err(|_| Failed("no randomness".into()))?;
            getrandom::fill(&mut salt).map_err(|_| Failed("no randomness".into()))?;
            match crate::push::encrypt(&ua, &auth, message.as_bytes(), &eph, &salt) {
                Ok(b) => break b,
                Err(crate::push::PushError::BadKey) => {}
                Err(crate::push::PushError::BadSubscription) => return Err(Gone),
                Err(crate::push::PushError::TooLong) => {
                    return Err(Failed("the message is too long".into()));
                }
            }
        };
        let authorization =
            crate::push::vapid_authorization(vapid, &d.endpoint, &self.base_url, self.now() / 1000);
        let endpoint = d.endpoint.clone();
        let reach = if self.push_private {
            termplane_runtime_smol::http::Reach::Any
        } else {
            termplane_runtime_smol::http::Reach::PublicOnly
        };
        let r = smol::unblock(move || {
            termplane_runtime_smol::http::request_reaching(
                reach,
                "POST",
                &endpoint,
                &[
                    ("Authorization", authorization.as_str()),
                    ("Content-Encoding", "aes128gcm"),
                    ("TTL", "86400"),
                    ("Urgency", if urgent { "high" } else { "normal" }),
                ],
                Some("application/octet-stream"),
                &body,
                RESPONSE_CAP,
            )
        })
        .await;
        match r {
            Ok(resp) if (200..300).contains(&resp.status) => Ok(()),
            Ok(resp) if resp.status == 404 || resp.status == 410 => Err(Gone),
            Ok(resp) => Err(Failed(format!("the push service answered {}", resp.status))),
            Err(e) => Err(Failed(e)),
        }
    }
}

/// Refuses an endpoint a push would not be sent to, as far as registration can know: an
/// address literal (push services are named), or a name the push-time rule refuses now
/// ([`termplane_runtime_smol::http::resolve_reaching`]). A name that does not resolve within
/// [`RESOLVE_AT_REGISTRATION`] is taken: each push meets the rule again.
async fn reaches_outside(endpoint: &PushEndpoint) -> Result<(), ApiError> {
    use termplane_runtime_smol::http::{Reach, Unreachable, resolve_reaching};
    let hint = "push services are on the public internet (a plane whose push service is on its \
                own network is started with TERMPLANE_PUSH_ALLOW_PRIVATE=1)";
    let name = match endpoint.host() {
        EndpointHost::Address(_) => {
            return Err(ApiError::validation(
                "endpoint",
                format!("names an address, not a host name: {hint}"),
            ));
        }
        EndpointHost::Name(n) => n.clone(),
    };
    let port = endpoint.port();
    let resolved = crate::wait::within(
        RESOLVE_AT_REGISTRATION,
        smol::unblock(move || resolve_reaching(&name, port, Reach::PublicOnly)),
    )
    .await;
    match resolved {
        Some(Err(Unreachable::Inside(why))) => {
            Err(ApiError::validation("endpoint", format!("{why}: {hint}")))
        }
        Some(Ok(_) | Err(Unreachable::Unresolved(_))) | None => Ok(()),
    }
}

/// Why a push was not delivered.
enum Delivery {
    /// The push service forgot the subscription (404/410), or it cannot be used.
    Gone,
    /// Anything else (kept as the device's `lastError`).
    Failed(String),
}

use Delivery::{Failed, Gone};
