//! Channels, their members and entries, and identities (see `api/channels.rs`). Bodies and
//! channel keys arrive here sealed; this module never sees a plaintext.

use sqlx::Row;

use super::{Store, audit_in};

/// An identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdentityRow {
    /// Row id.
    pub id: String,
    /// Its account (`None` once the account is deleted).
    pub user_id: Option<String>,
    /// Its pane, when a pane registered it.
    pub subshell_id: Option<String>,
    /// Its name.
    pub name: String,
    /// The public key as JWK JSON.
    pub public_jwk: String,
    /// RFC 7638 thumbprint.
    pub thumbprint: String,
    /// When it was registered (ms).
    pub created_at: i64,
    /// When it was revoked (ms).
    pub revoked_at: Option<i64>,
}

/// A channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelRow {
    /// Row id.
    pub id: String,
    /// Its owner.
    pub owner_user_id: String,
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its key, sealed under the plane's channel key (base64).
    pub sealed_key: String,
    /// Newest entry's seq (0: none).
    pub head_seq: i64,
    /// Newest entry's hash.
    pub head_hash: String,
    /// When it was made (ms).
    pub created_at: i64,
}

/// One entry as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryRow {
    /// Its channel.
    pub channel_id: String,
    /// Its position.
    pub seq: i64,
    /// The identity that signed it.
    pub identity_id: String,
    /// The previous entry's hash.
    pub prev_hash: String,
    /// Its hash.
    pub hash: String,
    /// Its signature (base64url).
    pub signature: String,
    /// Its body, sealed under the channel's key (base64).
    pub sealed_body: String,
    /// When it was taken (ms).
    pub created_at: i64,
}

/// What registering an identity did.
#[derive(Debug, PartialEq, Eq)]
pub enum AddIdentity {
    /// Registered.
    Added,
    /// Its key is registered already.
    Taken,
    /// Its account holds the most live identities it may.
    AccountLimit,
    /// Its pane registered the most identities it may.
    PaneLimit,
}

/// Why an append did not happen.
#[derive(Debug)]
pub enum AppendError {
    /// The head is no longer the one the entry names: the current one.
    HeadMoved {
        /// Current seq.
        seq: i64,
        /// Current hash.
        hash: String,
    },
    /// The channel is gone.
    Gone,
    /// A database fault.
    Db(sqlx::Error),
}

impl From<sqlx::Error> for AppendError {
    fn from(e: sqlx::Error) -> Self {
        Self::Db(e)
    }
}

macro_rules! identity_cols {
    () => {
        "id, user_id, subshell_id, name, public_jwk, thumbprint, created_at, revoked_at"
    };
}
macro_rules! channel_cols {
    () => {
        "c.id, c.owner_user_id, c.name, c.description, c.sealed_key, c.head_seq, c.head_hash, c.created_at"
    };
}
macro_rules! entry_cols {
    () => {
        "channel_id, seq, identity_id, prev_hash, hash, signature, sealed_body, created_at"
    };
}

fn identity(r: &sqlx::any::AnyRow) -> Result<IdentityRow, sqlx::Error> {
    Ok(IdentityRow {
        id: r.try_get("id")?,
        user_id: r.try_get("user_id")?,
        subshell_id: r.try_get("subshell_id")?,
        name: r.try_get("name")?,
        public_jwk: r.try_get("public_jwk")?,
        thumbprint: r.try_get("thumbprint")?,
        created_at: r.try_get("created_at")?,
        revoked_at: r.try_get("revoked_at")?,
    })
}

fn channel(r: &sqlx::any::AnyRow) -> Result<ChannelRow, sqlx::Error> {
    Ok(ChannelRow {
        id: r.try_get("id")?,
        owner_user_id: r.try_get("owner_user_id")?,
        name: r.try_get("name")?,
        description: r.try_get("description")?,
        sealed_key: r.try_get("sealed_key")?,
        head_seq: r.try_get("head_seq")?,
        head_hash: r.try_get("head_hash")?,
        created_at: r.try_get("created_at")?,
    })
}

fn entry(r: &sqlx::any::AnyRow) -> Result<EntryRow, sqlx::Error> {
    Ok(EntryRow {
        channel_id: r.try_get("channel_id")?,
        seq: r.try_get("seq")?,
        identity_id: r.try_get("identity_id")?,
        prev_hash: r.try_get("prev_hash")?,
        hash: r.try_get("hash")?,
        signature: r.try_get("signature")?,
        sealed_body: r.try_get("sealed_body")?,
        created_at: r.try_get("created_at")?,
    })
}

impl Store {
    // ----- identities -----

    /// Registers an identity, with its audit entry, unless its key is registered already, its
    /// account holds `account_limit` live identities, or (registered by a pane's token) its
    /// pane registered `pane_limit` identities, revoked ones included. Both are counted inside
    /// the transaction, under the account's lock, so concurrent registrations cannot pass a
    /// limit together.
    pub async fn add_identity(
        &self,
        i: &IdentityRow,
        actor_kind: &str,
        account_limit: i64,
        pane_limit: i64,
    ) -> Result<AddIdentity, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        if let Some(user) = &i.user_id {
            Self::account_lock(&mut tx, user).await?;
            if let Some(pane) = &i.subshell_id {
                let registered: i64 = sqlx::query(
                    "SELECT COUNT(*) AS n FROM identities WHERE user_id = $1 AND subshell_id = $2",
                )
                .bind(user)
                .bind(pane)
                .fetch_one(&mut *tx)
                .await?
                .try_get("n")?;
                if registered >= pane_limit {
                    tx.rollback().await?;
                    return Ok(AddIdentity::PaneLimit);
                }
            }
            let live: i64 = sqlx::query(
                "SELECT COUNT(*) AS n FROM identities WHERE user_id = $1 AND revoked_at IS NULL",
            )
            .bind(user)
            .fetch_one(&mut *tx)
            .await?
            .try_get("n")?;
            if live >= account_limit {
                tx.rollback().await?;
                return Ok(AddIdentity::AccountLimit);
            }
        }
        let taken = sqlx::query("SELECT id FROM identities WHERE thumbprint = $1")
            .bind(&i.thumbprint)
            .fetch_optional(&mut *tx)
            .await?
            .is_some();
        if taken {
            tx.rollback().await?;
            return Ok(AddIdentity::Taken);
        }
        let inserted = sqlx::query(
            "INSERT INTO identities (id, user_id, subshell_id, name, public_jwk, thumbprint, \
             created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)",
        )
        .bind(&i.id)
        .bind(&i.user_id)
        .bind(&i.subshell_id)
        .bind(&i.name)
        .bind(&i.public_jwk)
        .bind(&i.thumbprint)
        .bind(i.created_at)
        .execute(&mut *tx)
        .await;
        match inserted {
            // Another registration of the same key got in between the check and the insert.
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                tx.rollback().await?;
                return Ok(AddIdentity::Taken);
            }
            other => {
                other?;
            }
        }
        let detail = serde_json::json!({
            "name": i.name, "thumbprint": i.thumbprint, "subshellId": i.subshell_id,
        })
        .to_string();
        audit_in(
            &mut tx,
            i.created_at,
            i.user_id.as_deref(),
            actor_kind,
            "identity.registered",
            Some(&i.id),
            &detail,
        )
        .await?;
        tx.commit().await?;
        Ok(AddIdentity::Added)
    }

    /// Identities an account registered, for itself or through its panes, newest first.
    pub async fn identities_of(&self, user_id: &str) -> Result<Vec<IdentityRow>, sqlx::Error> {
        sqlx::query(concat!(
            "SELECT ",
            identity_cols!(),
            " FROM identities WHERE user_id = $1 \
             ORDER BY created_at DESC, id"
        ))
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(identity)
        .collect()
    }

    /// How many live (not revoked) identities an account holds (its panes' included).
    pub async fn identity_count(&self, user_id: &str) -> Result<i64, sqlx::Error> {
        sqlx::query(
            "SELECT COUNT(*) AS n FROM identities WHERE user_id = $1 AND revoked_at IS NULL",
        )
        .bind(user_id)
        .fetch_one(&self.pool)
        .await?
        .try_get("n")
    }

    /// One identity.
    pub async fn identity(&self, id: &str) -> Result<Option<IdentityRow>, sqlx::Error> {
        sqlx::query(concat!(
            "SELECT ",
            identity_cols!(),
            " FROM identities WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| identity(&r))
        .transpose()
    }

    /// Revokes an identity (once), with its audit entry; `false` when it was revoked already.
    pub async fn revoke_identity(
        &self,
        id: &str,
        actor: &str,
        actor_kind: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let done = sqlx::query(
            "UPDATE identities SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if done {
            audit_in(
                &mut tx,
                now,
                Some(actor),
                actor_kind,
                "identity.revoked",
                Some(id),
                "{}",
            )
            .await?;
            tx.commit().await?;
        }
        Ok(done)
    }

    // ----- channels -----

    /// Makes a channel, with its audit entry.
    ///
    /// `false` (and nothing written) when the owner already owns `limit` channels, counted
    /// inside the transaction under the account's lock.
    pub async fn add_channel(
        &self,
        c: &ChannelRow,
        actor_kind: &str,
        limit: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        Self::account_lock(&mut tx, &c.owner_user_id).await?;
        let owned: i64 = sqlx::query("SELECT COUNT(*) AS n FROM channels WHERE owner_user_id = $1")
            .bind(&c.owner_user_id)
            .fetch_one(&mut *tx)
            .await?
            .try_get("n")?;
        if owned >= limit {
            tx.rollback().await?;
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO channels (id, owner_user_id, name, description, sealed_key, head_seq, \
             head_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&c.id)
        .bind(&c.owner_user_id)
        .bind(&c.name)
        .bind(&c.description)
        .bind(&c.sealed_key)
        .bind(c.head_seq)
        .bind(&c.head_hash)
        .bind(c.created_at)
        .execute(&mut *tx)
        .await?;
        let detail = serde_json::json!({ "name": c.name }).to_string();
        audit_in(
            &mut tx,
            c.created_at,
            Some(&c.owner_user_id),
            actor_kind,
            "channel.created",
            Some(&c.id),
            &detail,
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// How many channels an account owns.
    pub async fn channel_count(&self, owner: &str) -> Result<i64, sqlx::Error> {
        sqlx::query("SELECT COUNT(*) AS n FROM channels WHERE owner_user_id = $1")
            .bind(owner)
            .fetch_one(&self.pool)
            .await?
            .try_get("n")
    }

    /// One channel.
    pub async fn channel(&self, id: &str) -> Result<Option<ChannelRow>, sqlx::Error> {
        sqlx::query(concat!(
            "SELECT ",
            channel_cols!(),
            " FROM channels c WHERE c.id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| channel(&r))
        .transpose()
    }

    /// The channels an account owns or is a member of, with its access (`write` for the
    /// owner), newest first.
    pub async fn channels_of(
        &self,
        user_id: &str,
    ) -> Result<Vec<(ChannelRow, String)>, sqlx::Error> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            channel_cols!(),
            ", CASE WHEN c.owner_user_id = $1 THEN 'write' ELSE m.access END AS my_access \
             FROM channels c LEFT JOIN channel_members m ON m.channel_id = c.id AND m.user_id = $1 \
             WHERE c.owner_user_id = $1 OR m.user_id = $1 ORDER BY c.created_at DESC, c.id"
        ))
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((channel(r)?, r.try_get("my_access")?)))
            .collect()
    }

    /// A member's access to a channel (`None`: not a member; the owner is not a member row).
    pub async fn member_access(
        &self,
        channel_id: &str,
        user_id: &str,
    ) -> Result<Option<String>, sqlx::Error> {
        sqlx::query("SELECT access FROM channel_members WHERE channel_id = $1 AND user_id = $2")
            .bind(channel_id)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.try_get("access"))
            .transpose()
    }

    /// A channel's members (user id, email, access), by email.
    pub async fn members(
        &self,
        channel_id: &str,
    ) -> Result<Vec<(String, String, String)>, sqlx::Error> {
        sqlx::query(
            "SELECT m.user_id, u.email, m.access FROM channel_members m \
             JOIN users u ON u.id = m.user_id WHERE m.channel_id = $1 ORDER BY u.email",
        )
        .bind(channel_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| {
            Ok((
                r.try_get("user_id")?,
                r.try_get("email")?,
                r.try_get("access")?,
            ))
        })
        .collect()
    }

    /// Sets a member's access, with its audit entry.
    pub async fn set_member(
        &self,
        channel_id: &str,
        user_id: &str,
        access: &str,
        actor: &str,
        actor_kind: &str,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let updated = sqlx::query(
            "UPDATE channel_members SET access = $1 WHERE channel_id = $2 AND user_id = $3",
        )
        .bind(access)
        .bind(channel_id)
        .bind(user_id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if updated == 0 {
            sqlx::query(
                "INSERT INTO channel_members (channel_id, user_id, access) VALUES ($1, $2, $3)",
            )
            .bind(channel_id)
            .bind(user_id)
            .bind(access)
            .execute(&mut *tx)
            .await?;
        }
        let detail = serde_json::json!({ "userId": user_id, "access": access }).to_string();
        audit_in(
            &mut tx,
            now,
            Some(actor),
            actor_kind,
            "channel.member_set",
            Some(channel_id),
            &detail,
        )
        .await?;
        tx.commit().await
    }

    /// Removes a member, with its audit entry; `false` when it was not one.
    pub async fn remove_member(
        &self,
        channel_id: &str,
        user_id: &str,
        actor: &str,
        actor_kind: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let gone =
            sqlx::query("DELETE FROM channel_members WHERE channel_id = $1 AND user_id = $2")
                .bind(channel_id)
                .bind(user_id)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                == 1;
        if gone {
            let detail = serde_json::json!({ "userId": user_id }).to_string();
            audit_in(
                &mut tx,
                now,
                Some(actor),
                actor_kind,
                "channel.member_removed",
                Some(channel_id),
                &detail,
            )
            .await?;
            tx.commit().await?;
        }
        Ok(gone)
    }

    /// Deletes a channel and its entries, with its audit entry; `false` when it was gone.
    pub async fn delete_channel(
        &self,
        id: &str,
        actor: &str,
        actor_kind: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM channel_entries WHERE channel_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM channel_members WHERE channel_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let gone = sqlx::query("DELETE FROM channels WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        if gone {
            audit_in(
                &mut tx,
                now,
                Some(actor),
                actor_kind,
                "channel.deleted",
                Some(id),
                "{}",
            )
            .await?;
            tx.commit().await?;
        }
        Ok(gone)
    }

    // ----- entries -----

    /// Appends `e` when the channel's head is still `e.seq - 1` / `e.prev_hash`: the head moves
    /// and the entry is written in one transaction, so two writers never both take a `seq`.
    pub async fn append_entry(&self, e: &EntryRow) -> Result<(), AppendError> {
        let mut tx = self.write_tx().await?;
        let moved = sqlx::query(
            "UPDATE channels SET head_seq = $1, head_hash = $2 \
             WHERE id = $3 AND head_seq = $4 AND head_hash = $5",
        )
        .bind(e.seq)
        .bind(&e.hash)
        .bind(&e.channel_id)
        .bind(e.seq - 1)
        .bind(&e.prev_hash)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if moved != 1 {
            drop(tx);
            return Err(match self.channel(&e.channel_id).await? {
                Some(c) => AppendError::HeadMoved {
                    seq: c.head_seq,
                    hash: c.head_hash,
                },
                None => AppendError::Gone,
            });
        }
        sqlx::query(concat!(
            "INSERT INTO channel_entries (",
            entry_cols!(),
            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        ))
        .bind(&e.channel_id)
        .bind(e.seq)
        .bind(&e.identity_id)
        .bind(&e.prev_hash)
        .bind(&e.hash)
        .bind(&e.signature)
        .bind(&e.sealed_body)
        .bind(e.created_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Entries with `seq` from `from` (inclusive), at most `limit`, oldest first.
    pub async fn entries(
        &self,
        channel_id: &str,
        from: i64,
        limit: i64,
    ) -> Result<Vec<EntryRow>, sqlx::Error> {
        sqlx::query(concat!(
            "SELECT ",
            entry_cols!(),
            " FROM channel_entries WHERE channel_id = $1 AND seq >= $2 \
             ORDER BY seq LIMIT $3"
        ))
        .bind(channel_id)
        .bind(from)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(entry)
        .collect()
    }
}
