//! Node rows and the writes of the live node link.

#[allow(unused_imports)]
use super::*;

/// A node row.
#[derive(Clone, Debug)]
pub struct Node {
    /// Row id (`nodeId`).
    pub id: String,
    /// Owning account (none for the local node).
    pub owner_user_id: Option<String>,
    /// Name (≤ 64 characters).
    pub name: String,
    /// `linux`, `darwin` or `unknown`.
    pub os: String,
    /// Architecture.
    pub arch: String,
    /// Host name.
    pub hostname: String,
    /// Agent version.
    pub agent_version: String,
    /// Public identity JWK (JSON text).
    pub identity_jwk: Option<String>,
    /// The X25519 pin (unpadded base64url), absent when unpaired.
    pub encrypt_public_key: Option<String>,
    /// SHA-256 digest of the node key.
    pub node_key_digest: Option<String>,
    /// Whether the node key is disabled.
    pub key_disabled: bool,
    /// `online` or `offline`.
    pub liveness: String,
    /// Runtime snapshot (JSON text).
    pub runtime: Option<String>,
    /// Maintenance mirror (JSON text).
    pub maintenance: Option<String>,
    /// Allowed directories (JSON array text).
    pub allowed_dirs: String,
    /// Whether this is the plane host's own row.
    pub is_local: bool,
    /// Whether scripts (system keys) may launch subshells on it.
    pub system_access: bool,
    /// Whether its panes are recorded (when the plane records).
    pub recording: bool,
    /// Days its panes' recordings are kept (`None`: the plane's default).
    pub recording_retention_days: Option<i64>,
    /// The WebSocket URL handed out at enrollment.
    pub ws_url: Option<String>,
    /// Creation time (ms).
    pub created_at: i64,
    /// Last change (ms).
    pub updated_at: i64,
}

/// The identity a node reports in `ready`, as stored on its row.
#[derive(Clone, Debug, Default)]
pub struct ReportedIdentity {
    /// `linux`, `darwin` or `unknown`.
    pub os: String,
    /// Architecture.
    pub arch: String,
    /// Host name.
    pub hostname: String,
    /// Agent version text, when reported.
    pub agent_version: Option<String>,
    /// Runtime snapshot (JSON text).
    pub runtime: Option<String>,
    /// Maintenance mirror (JSON text).
    pub maintenance: Option<String>,
}

fn node_of(row: &AnyRow) -> Result<Node, sqlx::Error> {
    Ok(Node {
        id: row.try_get("id")?,
        owner_user_id: row.try_get("owner_user_id")?,
        name: row.try_get("name")?,
        os: row.try_get("os")?,
        arch: row.try_get("arch")?,
        hostname: row.try_get("hostname")?,
        agent_version: row.try_get("agent_version")?,
        identity_jwk: row.try_get("identity_jwk")?,
        encrypt_public_key: row.try_get("encrypt_public_key")?,
        node_key_digest: row.try_get("node_key_digest")?,
        key_disabled: flag(row, "key_disabled")?,
        liveness: row.try_get("liveness")?,
        runtime: row.try_get("runtime")?,
        maintenance: row.try_get("maintenance")?,
        allowed_dirs: row.try_get("allowed_dirs")?,
        is_local: flag(row, "is_local")?,
        system_access: flag(row, "system_access")?,
        recording: flag(row, "recording")?,
        recording_retention_days: row.try_get("recording_retention_days")?,
        ws_url: row.try_get("ws_url")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

pub(super) const NODE_COLS: &str = "id, owner_user_id, name, os, arch, hostname, agent_version, identity_jwk, \
     encrypt_public_key, node_key_digest, key_disabled, liveness, runtime, maintenance, \
     allowed_dirs, is_local, system_access, recording, recording_retention_days, ws_url, created_at, \
     updated_at";

impl Store {
    // ----- nodes -----

    /// Every node (`owner` = `None`) or the nodes of one account plus the local node.
    pub async fn nodes(&self, owner: Option<&str>) -> Result<Vec<Node>, sqlx::Error> {
        let rows = match owner {
            Some(o) => {
                sqlx::query(AssertSqlSafe(format!("SELECT {NODE_COLS} FROM nodes WHERE owner_user_id = $1 OR is_local = 1 ORDER BY is_local DESC, created_at, id")))
                    .bind(o)
                    .fetch_all(&self.pool)
                    .await?
            }
            None => {
                sqlx::query(AssertSqlSafe(format!("SELECT {NODE_COLS} FROM nodes ORDER BY is_local DESC, created_at, id")))
                    .fetch_all(&self.pool)
                    .await?
            }
        };
        rows.iter().map(node_of).collect()
    }

    /// The nodes a system key sees: the local node, the system account's own, and those an
    /// administrator let scripts launch onto.
    pub async fn nodes_for_scripts(&self, system_user: &str) -> Result<Vec<Node>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {NODE_COLS} FROM nodes WHERE owner_user_id = $1 OR is_local = 1 OR system_access = 1 \
             ORDER BY is_local DESC, created_at, id"
        )))
        .bind(system_user)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(node_of)
        .collect()
    }

    /// Nodes owned by one account only (a bearer listing).
    pub async fn nodes_owned_by(&self, owner: &str) -> Result<Vec<Node>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {NODE_COLS} FROM nodes WHERE owner_user_id = $1 ORDER BY created_at, id"
        )))
        .bind(owner)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(node_of)
        .collect()
    }

    /// Number of node rows, the local one included.
    pub async fn node_count(&self) -> Result<i64, sqlx::Error> {
        sqlx::query("SELECT COUNT(*) AS n FROM nodes")
            .fetch_one(&self.pool)
            .await?
            .try_get("n")
    }

    /// A node by id.
    pub async fn node(&self, id: &str) -> Result<Option<Node>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {NODE_COLS} FROM nodes WHERE id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| node_of(&r))
        .transpose()
    }

    /// A node by the digest of its (current) node key.
    pub async fn node_by_key_digest(&self, digest: &str) -> Result<Option<Node>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {NODE_COLS} FROM nodes WHERE node_key_digest = $1"
        )))
        .bind(digest)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| node_of(&r))
        .transpose()
    }

    /// Deletes a remote node row (its seen ephemeral keys go with it).
    pub async fn delete_node(&self, actor: &str, id: &str, now: i64) -> Result<bool, sqlx::Error> {
        Ok(matches!(
            self.delete_idle_node(actor, id, now).await?,
            NodeDeletion::Deleted
        ))
    }

    /// Deletes a remote node unless a subshell on it is live (`starting`, `running`,
    /// `stopping`): its rows would go with the node while its panes ran on, out of anyone's
    /// reach. The check and the delete are one transaction.
    pub async fn delete_idle_node(
        &self,
        actor: &str,
        id: &str,
        now: i64,
    ) -> Result<NodeDeletion, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let live = super::live_subshells_in(&mut tx, super::LiveOf::Node, id).await?;
        if !live.is_empty() {
            return Ok(NodeDeletion::LiveSubshells(live));
        }
        let n = sqlx::query("DELETE FROM nodes WHERE id = $1 AND is_local = 0")
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        commit_if_changed(
            tx,
            n,
            now,
            Entry::by_cookie(actor, "node.deleted", id, "{}"),
        )
        .await
        .map(|done| {
            if done {
                NodeDeletion::Deleted
            } else {
                NodeDeletion::NotFound
            }
        })
    }

    /// Replaces a remote node's key digest (the old key stops matching at once), clears its
    /// encryption pin and marks it offline, in one transaction.
    pub async fn rotate_node_key(
        &self,
        actor: &str,
        id: &str,
        new_digest: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let n = sqlx::query(
            "UPDATE nodes SET node_key_digest = $1, key_disabled = 0, encrypt_public_key = NULL, \
             liveness = 'offline', held_by = NULL, updated_at = $2 WHERE id = $3 AND is_local = 0",
        )
        .bind(new_digest)
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        commit_if_changed(
            tx,
            n,
            now,
            Entry::by_cookie(actor, "node.key_rotated", id, "{}"),
        )
        .await
    }

    /// Stores a node's allowed directories (JSON array text).
    pub async fn set_allowed_dirs(
        &self,
        actor: &str,
        id: &str,
        dirs_json: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let n = sqlx::query("UPDATE nodes SET allowed_dirs = $1, updated_at = $2 WHERE id = $3")
            .bind(dirs_json)
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let dirs = serde_json::from_str::<serde_json::Value>(dirs_json).unwrap_or_default();
        let detail = serde_json::json!({ "allowedDirs": dirs }).to_string();
        commit_if_changed(
            tx,
            n,
            now,
            Entry::by_cookie(actor, "node.allowed_dirs_set", id, &detail),
        )
        .await
    }

    /// Writes a node's maintenance mirror (`{ on, changedAt }` JSON) and audits it, in one
    /// transaction; `false` when there is no such node.
    pub async fn set_maintenance(
        &self,
        actor: &str,
        id: &str,
        mirror_json: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let n = sqlx::query("UPDATE nodes SET maintenance = $1, updated_at = $2 WHERE id = $3")
            .bind(mirror_json)
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        commit_if_changed(
            tx,
            n,
            now,
            Entry::by_cookie(actor, "node.maintenance_set", id, mirror_json),
        )
        .await
    }

    /// Writes a node's maintenance mirror as the node itself reported it (its `maintenance`
    /// event); no person acted, so nothing is audited. `false` when there is no such remote row.
    pub async fn mirror_node_maintenance(
        &self,
        id: &str,
        mirror_json: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let n = sqlx::query(
            "UPDATE nodes SET maintenance = $1, updated_at = $2 WHERE id = $3 AND is_local = 0",
        )
        .bind(mirror_json)
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }

    /// The local node's row id.
    pub async fn local_node_id(&self) -> Result<Option<String>, sqlx::Error> {
        sqlx::query("SELECT id FROM nodes WHERE is_local = 1")
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.try_get("id"))
            .transpose()
    }

    /// Records an accepted link ephemeral key; `false` when it was seen before for this node
    /// (a replayed handshake).
    pub async fn record_ephemeral(
        &self,
        node_id: &str,
        eph: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let n = sqlx::query(
            "INSERT INTO seen_ephemeral_keys (node_id, eph, at) VALUES ($1, $2, $3) ON CONFLICT (node_id, eph) DO NOTHING",
        )
        .bind(node_id)
        .bind(eph)
        .bind(now)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }

    // ----- the live link -----

    /// Writes the identity a node reported in `ready` onto its row. An absent agent version
    /// keeps the stored one; `runtime` and `maintenance` are replaced (JSON text or NULL).
    pub async fn persist_identity(
        &self,
        id: &str,
        identity: &ReportedIdentity,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "UPDATE nodes SET os = $1, arch = $2, hostname = $3, \
             agent_version = COALESCE($4, agent_version), runtime = $5, maintenance = $6, \
             updated_at = $7 WHERE id = $8 AND is_local = 0",
        )
        .bind(&identity.os)
        .bind(&identity.arch)
        .bind(&identity.hostname)
        .bind(identity.agent_version.clone())
        .bind(identity.runtime.clone())
        .bind(identity.maintenance.clone())
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Writes `pin` as the row's `encryptPublicKey` only where none is set (a register's claim);
    /// `true` when this call wrote it.
    pub async fn claim_pin(&self, id: &str, pin: &str, now: i64) -> Result<bool, sqlx::Error> {
        let n = sqlx::query(
            "UPDATE nodes SET encrypt_public_key = $1, updated_at = $2 \
             WHERE id = $3 AND is_local = 0 AND encrypt_public_key IS NULL",
        )
        .bind(pin)
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }

    /// Number of ephemeral keys recorded for a node (tests).
    pub async fn seen_ephemeral_count(&self, id: &str) -> Result<i64, sqlx::Error> {
        sqlx::query("SELECT COUNT(*) AS n FROM seen_ephemeral_keys WHERE node_id = $1")
            .bind(id)
            .fetch_one(&self.pool)
            .await?
            .try_get("n")
    }
}

/// What [`Store::delete_idle_node`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum NodeDeletion {
    /// The node and its rows are gone.
    Deleted,
    /// No such remote node.
    NotFound,
    /// Refused: these subshells (id, name) on it are live.
    LiveSubshells(Vec<(String, String)>),
}
