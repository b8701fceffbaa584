//! Push devices, the notification inbox and notification preferences.

use sqlx::Row;

use super::{Store, audit_in};

/// One push device (a browser's subscription).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceRow {
    /// Row id.
    pub id: String,
    /// Its account.
    pub user_id: String,
    /// The name its owner gave it.
    pub name: String,
    /// The push service's URL for it.
    pub endpoint: String,
    /// Its P-256 key (base64url, uncompressed point).
    pub p256dh: String,
    /// Its auth secret (base64url, 16 bytes).
    pub auth: String,
    /// When it was added (ms).
    pub created_at: i64,
    /// When a push last reached its push service (ms).
    pub last_sent_at: Option<i64>,
    /// The last delivery failure, if the last attempt failed.
    pub last_error: Option<String>,
}

fn device(r: &sqlx::any::AnyRow) -> Result<DeviceRow, sqlx::Error> {
    Ok(DeviceRow {
        id: r.try_get("id")?,
        user_id: r.try_get("user_id")?,
        name: r.try_get("name")?,
        endpoint: r.try_get("endpoint")?,
        p256dh: r.try_get("p256dh")?,
        auth: r.try_get("auth")?,
        created_at: r.try_get("created_at")?,
        last_sent_at: r.try_get("last_sent_at")?,
        last_error: r.try_get("last_error")?,
    })
}

/// One notification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotificationRow {
    /// Row id.
    pub id: String,
    /// Its account.
    pub user_id: String,
    /// `needs_input`, `exited`, `crashed` or `node_offline`.
    pub kind: String,
    /// The subshell or node it is about.
    pub subject_id: String,
    /// A short title.
    pub title: String,
    /// One line of detail.
    pub body: String,
    /// When (ms).
    pub created_at: i64,
    /// When it was marked read (ms).
    pub read_at: Option<i64>,
}

fn notification(r: &sqlx::any::AnyRow) -> Result<NotificationRow, sqlx::Error> {
    Ok(NotificationRow {
        id: r.try_get("id")?,
        user_id: r.try_get("user_id")?,
        kind: r.try_get("kind")?,
        subject_id: r.try_get("subject_id")?,
        title: r.try_get("title")?,
        body: r.try_get("body")?,
        created_at: r.try_get("created_at")?,
        read_at: r.try_get("read_at")?,
    })
}

/// Quiet hours: from `from_min` to `to_min` (minutes after midnight; past midnight when
/// `to_min < from_min`) in time zone `zone` (an IANA name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quiet {
    /// Start, minutes after midnight.
    pub from_min: i64,
    /// End, minutes after midnight.
    pub to_min: i64,
    /// The IANA time zone they are read in.
    pub zone: String,
}

/// A pane an account muted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MuteRow {
    /// The subshell.
    pub subshell_id: String,
    /// Until when (ms); `None`: until unmuted.
    pub until_ms: Option<i64>,
    /// When it was muted (ms).
    pub created_at: i64,
}

/// What an account wants to be told about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prefs {
    /// A pane of theirs needs input.
    pub needs_input: bool,
    /// A pane of theirs exited.
    pub exited: bool,
    /// A pane of theirs crashed.
    pub crashed: bool,
    /// A node of theirs went offline.
    pub node_offline: bool,
    /// Their quiet hours, if they set any.
    pub quiet: Option<Quiet>,
}

impl Default for Prefs {
    fn default() -> Self {
        Self {
            needs_input: true,
            exited: true,
            crashed: true,
            node_offline: true,
            quiet: None,
        }
    }
}

/// Most devices one account registers.
pub const MAX_DEVICES_PER_ACCOUNT: i64 = 10;
/// Notifications kept per account (older ones are dropped as new ones come).
pub const KEPT_NOTIFICATIONS: i64 = 500;

impl Store {
    /// An account's devices, oldest first.
    pub async fn devices_of(&self, user_id: &str) -> Result<Vec<DeviceRow>, sqlx::Error> {
        sqlx::query(
            "SELECT id, user_id, name, endpoint, p256dh, auth, created_at, last_sent_at, \
             last_error FROM devices WHERE user_id = $1 ORDER BY created_at, id",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(device)
        .collect()
    }

    /// Adds a device, or replaces the keys of the account's device with that endpoint; `None`
    /// when the account has [`MAX_DEVICES_PER_ACCOUNT`] others.
    pub async fn put_device(&self, d: &DeviceRow) -> Result<Option<DeviceRow>, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        Self::account_lock(&mut tx, &d.user_id).await?;
        let existing: Option<String> =
            sqlx::query("SELECT id FROM devices WHERE user_id = $1 AND endpoint = $2")
                .bind(&d.user_id)
                .bind(&d.endpoint)
                .fetch_optional(&mut *tx)
                .await?
                .map(|r| r.try_get("id"))
                .transpose()?;
        let id = if let Some(id) = existing {
            sqlx::query(
                "UPDATE devices SET name = $1, p256dh = $2, auth = $3, last_error = NULL \
                 WHERE id = $4",
            )
            .bind(&d.name)
            .bind(&d.p256dh)
            .bind(&d.auth)
            .bind(&id)
            .execute(&mut *tx)
            .await?;
            id
        } else {
            let n: i64 = sqlx::query("SELECT COUNT(*) AS n FROM devices WHERE user_id = $1")
                .bind(&d.user_id)
                .fetch_one(&mut *tx)
                .await?
                .try_get("n")?;
            if n >= MAX_DEVICES_PER_ACCOUNT {
                return Ok(None);
            }
            sqlx::query(
                "INSERT INTO devices (id, user_id, name, endpoint, p256dh, auth, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(&d.id)
            .bind(&d.user_id)
            .bind(&d.name)
            .bind(&d.endpoint)
            .bind(&d.p256dh)
            .bind(&d.auth)
            .bind(d.created_at)
            .execute(&mut *tx)
            .await?;
            d.id.clone()
        };
        let detail = serde_json::json!({ "name": d.name }).to_string();
        audit_in(
            &mut tx,
            d.created_at,
            Some(&d.user_id),
            "cookie",
            "device.added",
            Some(&id),
            &detail,
        )
        .await?;
        tx.commit().await?;
        Ok(self
            .devices_of(&d.user_id)
            .await?
            .into_iter()
            .find(|x| x.id == id))
    }

    /// Removes a device: by its owner (`Some(user)`, audited) or because its push service said
    /// it is gone (`None`). `false` when there was no such device.
    pub async fn delete_device(
        &self,
        id: &str,
        owner: Option<&str>,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let row: Option<String> = sqlx::query("SELECT user_id FROM devices WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?
            .map(|r| r.try_get("user_id"))
            .transpose()?;
        let Some(user) = row.filter(|u| owner.is_none_or(|o| o == u)) else {
            return Ok(false);
        };
        sqlx::query("DELETE FROM devices WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let (kind, action) = if owner.is_some() {
            ("cookie", "device.removed")
        } else {
            ("plane", "device.gone")
        };
        audit_in(&mut tx, now, Some(&user), kind, action, Some(id), "{}").await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Records a delivery attempt's outcome on a device.
    pub async fn device_delivery(
        &self,
        id: &str,
        error: Option<&str>,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        if error.is_none() {
            sqlx::query("UPDATE devices SET last_sent_at = $1, last_error = NULL WHERE id = $2")
                .bind(now)
                .bind(id)
                .execute(&self.pool)
                .await?;
        } else {
            sqlx::query("UPDATE devices SET last_error = $1 WHERE id = $2")
                .bind(error)
                .bind(id)
                .execute(&self.pool)
                .await?;
        }
        Ok(())
    }

    /// An account's preferences (the defaults until it sets them).
    pub async fn prefs_of(&self, user_id: &str) -> Result<Prefs, sqlx::Error> {
        let row = sqlx::query(
            "SELECT needs_input, exited, crashed, node_offline, quiet_from, quiet_to, quiet_zone \
             FROM notification_prefs WHERE user_id = $1",
        )
        .bind(user_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else {
            return Ok(Prefs::default());
        };
        let flag = |c: &str| -> Result<bool, sqlx::Error> { Ok(r.try_get::<i64, _>(c)? != 0) };
        Ok(Prefs {
            needs_input: flag("needs_input")?,
            exited: flag("exited")?,
            crashed: flag("crashed")?,
            node_offline: flag("node_offline")?,
            quiet: match (
                r.try_get::<Option<i64>, _>("quiet_from")?,
                r.try_get::<Option<i64>, _>("quiet_to")?,
                r.try_get::<Option<String>, _>("quiet_zone")?,
            ) {
                (Some(from_min), Some(to_min), Some(zone)) => Some(Quiet {
                    from_min,
                    to_min,
                    zone,
                }),
                _ => None,
            },
        })
    }

    /// Sets an account's preferences.
    pub async fn set_prefs(&self, user_id: &str, p: &Prefs) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO notification_prefs (user_id, needs_input, exited, crashed, node_offline, \
             quiet_from, quiet_to, quiet_zone) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (user_id) DO UPDATE SET \
             needs_input = $2, exited = $3, crashed = $4, node_offline = $5, \
             quiet_from = $6, quiet_to = $7, quiet_zone = $8",
        )
        .bind(user_id)
        .bind(i64::from(p.needs_input))
        .bind(i64::from(p.exited))
        .bind(i64::from(p.crashed))
        .bind(i64::from(p.node_offline))
        .bind(p.quiet.as_ref().map(|q| q.from_min))
        .bind(p.quiet.as_ref().map(|q| q.to_min))
        .bind(p.quiet.as_ref().map(|q| q.zone.clone()))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Stores a notification and drops the account's oldest beyond [`KEPT_NOTIFICATIONS`].
    pub async fn add_notification(&self, n: &NotificationRow) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query(
            "INSERT INTO notifications (id, user_id, kind, subject_id, title, body, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&n.id)
        .bind(&n.user_id)
        .bind(&n.kind)
        .bind(&n.subject_id)
        .bind(&n.title)
        .bind(&n.body)
        .bind(n.created_at)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "DELETE FROM notifications WHERE user_id = $1 AND id NOT IN \
             (SELECT id FROM notifications WHERE user_id = $1 \
              ORDER BY created_at DESC, id DESC LIMIT $2)",
        )
        .bind(&n.user_id)
        .bind(KEPT_NOTIFICATIONS)
        .execute(&mut *tx)
        .await?;
        tx.commit().await
    }

    /// How many of an account's notifications are unread.
    pub async fn unread_count(&self, user_id: &str) -> Result<i64, sqlx::Error> {
        sqlx::query(
            "SELECT COUNT(*) AS n FROM notifications WHERE user_id = $1 AND read_at IS NULL",
        )
        .bind(user_id)
        .fetch_one(&self.pool)
        .await?
        .try_get("n")
    }

    /// An account's notifications, newest first (only unread ones when asked), after the
    /// `before` cursor (a `created_at`, and the id of the entry it came from) when given.
    pub async fn notifications_of(
        &self,
        user_id: &str,
        unread_only: bool,
        before: Option<(i64, Option<&str>)>,
        limit: i64,
    ) -> Result<Vec<NotificationRow>, sqlx::Error> {
        sqlx::query(
            "SELECT id, user_id, kind, subject_id, title, body, created_at, read_at \
             FROM notifications WHERE user_id = $1 \
             AND ($2 = 0 OR read_at IS NULL) \
             AND (CAST($3 AS BIGINT) IS NULL OR created_at < CAST($3 AS BIGINT) \
                  OR (created_at = CAST($3 AS BIGINT) AND CAST($5 AS TEXT) IS NOT NULL \
                      AND id < CAST($5 AS TEXT))) \
             ORDER BY created_at DESC, id DESC LIMIT $4",
        )
        .bind(user_id)
        .bind(i64::from(unread_only))
        .bind(before.map(|b| b.0))
        .bind(limit)
        .bind(before.and_then(|b| b.1))
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(notification)
        .collect()
    }

    /// Marks one notification (or, with `None`, every one) of an account read; answers how
    /// many changed.
    pub async fn mark_read(
        &self,
        user_id: &str,
        id: Option<&str>,
        now: i64,
    ) -> Result<u64, sqlx::Error> {
        let r = sqlx::query(
            "UPDATE notifications SET read_at = $1 WHERE user_id = $2 AND read_at IS NULL \
             AND (CAST($3 AS TEXT) IS NULL OR id = CAST($3 AS TEXT))",
        )
        .bind(now)
        .bind(user_id)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(r.rows_affected())
    }

    /// Whether an account has a notification with this id.
    pub async fn has_notification(&self, user_id: &str, id: &str) -> Result<bool, sqlx::Error> {
        Ok(
            sqlx::query("SELECT id FROM notifications WHERE user_id = $1 AND id = $2")
                .bind(user_id)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?
                .is_some(),
        )
    }

    /// Marks read every unread notification of an account about `subject` (what it was told
    /// no longer holds); answers how many changed.
    pub async fn clear_subject(
        &self,
        user_id: &str,
        subject: &str,
        now: i64,
    ) -> Result<u64, sqlx::Error> {
        let r = sqlx::query(
            "UPDATE notifications SET read_at = $1 WHERE user_id = $2 AND subject_id = $3 \
             AND read_at IS NULL",
        )
        .bind(now)
        .bind(user_id)
        .bind(subject)
        .execute(&self.pool)
        .await?;
        Ok(r.rows_affected())
    }

    /// Mutes subshell `subshell_id` for an account (until `until_ms`, or until unmuted),
    /// replacing an earlier mute of it.
    pub async fn mute(
        &self,
        user_id: &str,
        subshell_id: &str,
        until_ms: Option<i64>,
        now: i64,
    ) -> Result<MuteRow, sqlx::Error> {
        sqlx::query(
            "INSERT INTO notification_mutes (user_id, subshell_id, until_ms, created_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (user_id, subshell_id) DO UPDATE SET \
             until_ms = $3, created_at = $4",
        )
        .bind(user_id)
        .bind(subshell_id)
        .bind(until_ms)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(MuteRow {
            subshell_id: subshell_id.to_owned(),
            until_ms,
            created_at: now,
        })
    }

    /// Unmutes a subshell for an account; answers whether it was muted.
    pub async fn unmute(&self, user_id: &str, subshell_id: &str) -> Result<bool, sqlx::Error> {
        let r =
            sqlx::query("DELETE FROM notification_mutes WHERE user_id = $1 AND subshell_id = $2")
                .bind(user_id)
                .bind(subshell_id)
                .execute(&self.pool)
                .await?;
        Ok(r.rows_affected() > 0)
    }

    /// An account's mutes in force at `now`, newest first (ended ones are dropped on the way).
    pub async fn mutes_of(&self, user_id: &str, now: i64) -> Result<Vec<MuteRow>, sqlx::Error> {
        sqlx::query(
            "DELETE FROM notification_mutes WHERE user_id = $1 AND until_ms IS NOT NULL \
             AND until_ms <= $2",
        )
        .bind(user_id)
        .bind(now)
        .execute(&self.pool)
        .await?;
        sqlx::query(
            "SELECT subshell_id, until_ms, created_at FROM notification_mutes \
             WHERE user_id = $1 ORDER BY created_at DESC, subshell_id",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| {
            Ok(MuteRow {
                subshell_id: r.try_get("subshell_id")?,
                until_ms: r.try_get("until_ms")?,
                created_at: r.try_get("created_at")?,
            })
        })
        .collect()
    }

    /// Whether an account muted subshell `subshell_id` at `now`.
    pub async fn is_muted(
        &self,
        user_id: &str,
        subshell_id: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        Ok(sqlx::query(
            "SELECT subshell_id FROM notification_mutes WHERE user_id = $1 AND subshell_id = $2 \
             AND (until_ms IS NULL OR until_ms > $3)",
        )
        .bind(user_id)
        .bind(subshell_id)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?
        .is_some())
    }
}
