//! Devices, the notification inbox and Web Push delivery (the route shapes and the message are
//! described in [`crate::api::notifications`]).
//!
//! Notifications come from the same places the live feed does: every change of a subshell row
//! passes [`Notifications::notice_subshell`], every change of who watches a pane
//! [`Notifications::notice_presence`], and a node's liveness [`Notifications::notice_node`]. A
//! subshell's *need* (its agent asks, finishes or fails; the pane exits or crashes) goes through
//! the "needs you" rules of [`super::needs_you`] — told once it has held, never while its owner
//! watches the pane, at most once per pane per window, cleared (marked read) when it leaves —
//! whose one timer task this service runs; a node going offline is told at once. The *owner*
//! is told — not administrators, not accounts a pane is shared with, never the `system`
//! account of scripts —, as far as their preferences allow: a kind switched off, or a pane
//! they muted (`PUT /api/notifications/mutes/{id}`), tells nothing; in their quiet hours (a
//! daily span in their IANA time zone) the notification reaches the inbox and the live feed
//! but no device. Nothing is told about the state a row had when the plane started. The
//! notification is stored first, then pushed to each of the owner's devices from a task of
//! its own, so a slow push service delays nothing.
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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use base64ct::{Base64UrlUnpadded, Encoding};
use termplane_machines::jws::Es256Signer;

use super::Caller;
use super::live::LiveBus;
use super::needs_you::{Decision, Detector, Need, need_of};
use crate::api::notifications::{
    Device, DeviceRequest, EndpointHost, MarkedRead, Mute, MuteRequest, Notification,
    NotificationKind, NotificationPrefs, NotificationsQuery, PushEndpoint, QuietHours, UnreadCount,
    VapidKey,
};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::secret;
use crate::store::{DeviceRow, MuteRow, NotificationRow, Prefs, Quiet, Store};

/// File of the VAPID key in the data directory (mode 0600, like the other key files).
use crate::keys::VAPID_KEY_FILE;
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
    /// The "needs you" rules, fed every subshell change and who watches each pane.
    detector: Mutex<Detector>,
    /// When this service began: the detector's time is counted from it.
    began: std::time::Instant,
    /// Wakes the task that tells of needs as they fall due.
    wake: event_listener::Event,
    /// Whether that task was started.
    timer: AtomicBool,
    /// Set when the service is dropped: the task ends.
    closed: AtomicBool,
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

fn allowed(p: &Prefs, kind: NotificationKind) -> bool {
    match kind {
        NotificationKind::NeedsInput => p.needs_input,
        NotificationKind::Done | NotificationKind::Exited => p.exited,
        NotificationKind::Error | NotificationKind::Crashed => p.crashed,
        NotificationKind::NodeOffline => p.node_offline,
    }
}

fn kind_of(need: Need) -> NotificationKind {
    match need {
        Need::Input => NotificationKind::NeedsInput,
        Need::Done => NotificationKind::Done,
        Need::Exited => NotificationKind::Exited,
        Need::Error => NotificationKind::Error,
        Need::Crashed => NotificationKind::Crashed,
    }
}

/// `<harness> <what>`, with the agent's own summary when it gave one.
fn agent_line(row: &crate::store::Subshell, what: &str) -> String {
    match row.agent.summary.as_deref() {
        Some(s) if !s.is_empty() => format!("{} {what}: {s}", row.harness_id),
        _ => format!("{} {what}", row.harness_id),
    }
}

/// `HH:MM` as minutes after midnight.
fn minutes(hhmm: &str) -> Option<i64> {
    let (h, m) = hhmm.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m) = (h.parse::<i64>().ok()?, m.parse::<i64>().ok()?);
    ((0..24).contains(&h) && (0..60).contains(&m)).then_some(h * 60 + m)
}

fn hhmm(min: i64) -> String {
    format!("{:02}:{:02}", min / 60, min % 60)
}

/// Whether `at_ms` (Unix ms) falls in quiet hours `q`: from `from_min` up to (not including)
/// `to_min`, past midnight when `to_min` is earlier, on the local clock of `q.zone`. A zone
/// the time zone database no longer knows reads as UTC.
pub(crate) fn in_quiet_hours(q: &Quiet, at_ms: i64) -> bool {
    let Ok(ts) = jiff::Timestamp::from_millisecond(at_ms) else {
        return false;
    };
    let zone = jiff::tz::TimeZone::get(&q.zone).unwrap_or(jiff::tz::TimeZone::UTC);
    let local = zone.to_datetime(ts);
    let now = i64::from(local.hour()) * 60 + i64::from(local.minute());
    if q.from_min <= q.to_min {
        (q.from_min..q.to_min).contains(&now)
    } else {
        now >= q.from_min || now < q.to_min
    }
}

fn mute_view(m: &MuteRow) -> Mute {
    Mute {
        subshell_id: m.subshell_id.clone(),
        until: m.until_ms,
        created_at: m.created_at,
    }
}

impl Drop for Notifications {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::SeqCst);
        self.wake.notify(usize::MAX);
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
        let began = clock.instant();
        Arc::new_cyclic(|me| Self {
            store,
            clock,
            live,
            data_dir: settings.data_dir.clone(),
            base_url: settings.base_url.clone(),
            push_http: settings.push_http,
            push_private: settings.push_private,
            detector: Mutex::new(Detector::new(settings.needs_you)),
            began,
            wake: event_listener::Event::new(),
            timer: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            nodes: Mutex::default(),
            vapid: OnceLock::new(),
            me: me.clone(),
        })
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The plane's VAPID key: `<data dir>/vapid.key`, made at the plane's first start (a plane
    /// without a data directory keeps one in memory).
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
            quiet_hours: p.quiet.map(|q| QuietHours {
                from: hhmm(q.from_min),
                to: hhmm(q.to_min),
                time_zone: q.zone,
            }),
        })
    }

    /// `PUT /api/notifications/preferences`.
    pub async fn set_notification_prefs(
        &self,
        who: &Caller,
        p: NotificationPrefs,
    ) -> Result<NotificationPrefs, ApiError> {
        let me = who.user().id.clone();
        let quiet = match &p.quiet_hours {
            None => None,
            Some(q) => {
                let from = minutes(&q.from)
                    .ok_or_else(|| ApiError::validation("quietHours.from", "must be HH:MM"))?;
                let to = minutes(&q.to)
                    .ok_or_else(|| ApiError::validation("quietHours.to", "must be HH:MM"))?;
                if from == to {
                    return Err(ApiError::validation(
                        "quietHours.to",
                        "must differ from quietHours.from",
                    ));
                }
                let zone = jiff::tz::TimeZone::get(&q.time_zone).map_err(|_| {
                    ApiError::validation(
                        "quietHours.timeZone",
                        "must be an IANA time zone name, such as Europe/Berlin or UTC",
                    )
                })?;
                Some(Quiet {
                    from_min: from,
                    to_min: to,
                    zone: zone.iana_name().unwrap_or(&q.time_zone).to_owned(),
                })
            }
        };
        let prefs = Prefs {
            needs_input: p.needs_input,
            exited: p.exited,
            crashed: p.crashed,
            node_offline: p.node_offline,
            quiet,
        };
        self.store.set_prefs(&me, &prefs).await?;
        Ok(NotificationPrefs {
            quiet_hours: prefs.quiet.map(|q| QuietHours {
                from: hhmm(q.from_min),
                to: hhmm(q.to_min),
                time_zone: q.zone,
            }),
            ..p
        })
    }

    /// `GET /api/notifications/mutes`: the panes the caller muted, in force now.
    pub async fn mutes(&self, who: &Caller) -> Result<Vec<Mute>, ApiError> {
        let me = who.user().id.clone();
        Ok(self
            .store
            .mutes_of(&me, self.now())
            .await?
            .iter()
            .map(mute_view)
            .collect())
    }

    /// `PUT /api/notifications/mutes/{id}`: mutes one of the caller's own panes (notifications
    /// go to a pane's owner alone, so only the owner mutes it).
    pub async fn mute(&self, who: &Caller, id: &str, req: MuteRequest) -> Result<Mute, ApiError> {
        let me = who.user().id.clone();
        let now = self.now();
        if let Some(until) = req.until
            && !(now < until && until <= now + 366 * 24 * 60 * 60 * 1000)
        {
            return Err(ApiError::validation(
                "until",
                "must be in the future and at most a year ahead (ms since the Unix epoch)",
            ));
        }
        match self.store.subshell(id).await? {
            Some(row) if row.owner_user_id == me => {}
            _ => return Err(ApiError::not_found("subshell")),
        }
        Ok(mute_view(&self.store.mute(&me, id, req.until, now).await?))
    }

    /// `DELETE /api/notifications/mutes/{id}`.
    pub async fn unmute(&self, who: &Caller, id: &str) -> Result<(), ApiError> {
        let me = who.user().id.clone();
        if self.store.unmute(&me, id).await? {
            Ok(())
        } else {
            Err(ApiError::not_found("mute"))
        }
    }

    /// Now on the detector's clock: monotonic milliseconds since this service began.
    fn mono(&self) -> u64 {
        u64::try_from(
            self.clock
                .instant()
                .saturating_duration_since(self.began)
                .as_millis(),
        )
        .unwrap_or(u64::MAX)
    }

    /// Runs `f` on the detector, then acts on what it decided and wakes the timer.
    async fn detect(&self, f: impl FnOnce(&mut Detector, u64) -> Vec<Decision>) {
        let now = self.mono();
        let decided = match self.detector.lock() {
            Ok(mut d) => f(&mut d, now),
            Err(_) => return,
        };
        self.start_timer();
        self.wake.notify(usize::MAX);
        for d in decided {
            self.act(d).await;
        }
    }

    /// Starts the task that tells of needs as they fall due (once).
    fn start_timer(&self) {
        if self.timer.swap(true, Ordering::SeqCst) {
            return;
        }
        let me = self.me.clone();
        let began = self.began;
        smol::spawn(async move {
            loop {
                let Some(this) = me.upgrade() else { return };
                let listener = this.wake.listen();
                let now = this.mono();
                let (due, next) = match this.detector.lock() {
                    Ok(mut d) => (d.poll(now), d.next_due()),
                    Err(_) => return,
                };
                for d in due {
                    this.act(d).await;
                }
                if this.closed.load(Ordering::SeqCst) {
                    return;
                }
                drop(this);
                match next {
                    Some(at) => {
                        let at = began + std::time::Duration::from_millis(at);
                        crate::wait::until(at, listener).await;
                    }
                    None => listener.await,
                }
            }
        })
        .detach();
    }

    /// Does what the detector decided.
    async fn act(&self, d: Decision) {
        match d {
            Decision::Tell {
                pane,
                owner,
                need,
                coalesced,
            } => {
                let Ok(Some(row)) = self.store.subshell(&pane).await else {
                    return;
                };
                let kind = kind_of(need);
                let (title, mut body) = match kind {
                    NotificationKind::NeedsInput => (
                        format!("{} needs input", row.name),
                        agent_line(&row, "is waiting for you"),
                    ),
                    NotificationKind::Done => (
                        format!("{} is done", row.name),
                        agent_line(&row, "finished"),
                    ),
                    NotificationKind::Error => (
                        format!("{} failed", row.name),
                        agent_line(&row, "reported a failure"),
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
                if coalesced > 0 {
                    let times = if coalesced == 1 { "time" } else { "times" };
                    body.push_str(&format!(
                        " (it needed you {coalesced} more {times} since the last notification)"
                    ));
                }
                self.tell(&owner, kind, &pane, title, body, subject_url(kind, &pane))
                    .await;
            }
            Decision::Clear { pane, owner, .. } => {
                if let Err(e) = self.store.clear_subject(&owner, &pane, self.now()).await {
                    tracing::debug!(error = %e, "a cleared need's notification was not marked read");
                }
            }
        }
    }

    /// Hears of a subshell row (every change of it) and tells its owner, by the rules of
    /// [`super::needs_you`], when it starts needing them.
    pub(crate) async fn notice_subshell(&self, row: &crate::store::Subshell) {
        let need = need_of(&row.state, &row.agent.state, &row.attention);
        self.detect(|d, now| d.observe(&row.id, &row.owner_user_id, need, now))
            .await;
    }

    /// Hears who watches subshell `id` now (the accounts of its attached terminals).
    pub(crate) async fn notice_presence(&self, id: &str, users: impl IntoIterator<Item = String>) {
        self.detect(|d, _| {
            d.presence(id, users);
            Vec::new()
        })
        .await;
    }

    /// Hears that subshell `id` is gone.
    pub(crate) async fn notice_gone(&self, id: &str) {
        self.detect(|d, _| d.forget(id)).await;
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
        if !allowed(&prefs, kind) {
            return;
        }
        let now = self.now();
        if kind != NotificationKind::NodeOffline
            && self
                .store
                .is_muted(user_id, subject, now)
                .await
                .unwrap_or(false)
        {
            return;
        }
        // Quiet hours: the inbox and the live feed, no device.
        let quiet = prefs.quiet.as_ref().is_some_and(|q| in_quiet_hours(q, now));
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
        if quiet {
            return;
        }
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
