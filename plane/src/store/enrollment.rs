//! The single-winner enrollment transaction.

#[allow(unused_imports)]
use super::*;

/// Fields of a node row written at enrollment.
#[derive(Clone, Debug)]
pub struct NewNode {
    /// Name.
    pub name: String,
    /// OS.
    pub os: String,
    /// Architecture.
    pub arch: String,
    /// Host name.
    pub hostname: String,
    /// Agent version.
    pub agent_version: String,
    /// Identity JWK (JSON text).
    pub identity_jwk: String,
    /// Optional X25519 pin.
    pub encrypt_public_key: Option<String>,
    /// Digest of the freshly minted node key.
    pub node_key_digest: String,
    /// WebSocket URL handed out.
    pub ws_url: String,
}

/// Outcome of consuming a setup key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Consume {
    /// This call consumed it and wrote the node row.
    Enrolled(String),
    /// Another call (or an earlier one) won.
    Lost,
}

impl Store {
    /// The single-winner enrollment: consumes the setup key (only if unused, unrevoked and
    /// unexpired at `now`) and writes the node row, both in one transaction.
    pub async fn enroll(
        &self,
        setup_key_id: &str,
        owner_user_id: &str,
        node: &NewNode,
        now: i64,
    ) -> Result<Consume, sqlx::Error> {
        let node_id = secret::new_id().map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
        let mut tx = self.write_tx().await?;
        let won = sqlx::query(
            "UPDATE setup_keys SET used_at = $1, used_by_node_id = $2 \
             WHERE id = $3 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $1",
        )
        .bind(now)
        .bind(&node_id)
        .bind(setup_key_id)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if !won {
            return Ok(Consume::Lost);
        }
        if self.faults.fail_after_consume.load(Ordering::SeqCst) {
            return Err(sqlx::Error::Protocol("injected fault after consume".into()));
        }
        sqlx::query(
            "INSERT INTO nodes (id, owner_user_id, name, os, arch, hostname, agent_version, identity_jwk, \
             encrypt_public_key, node_key_digest, key_disabled, liveness, allowed_dirs, is_local, ws_url, \
             created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, 'offline', '[]', 0, $11, $12, $12)",
        )
        .bind(&node_id)
        .bind(owner_user_id)
        .bind(&node.name)
        .bind(&node.os)
        .bind(&node.arch)
        .bind(&node.hostname)
        .bind(&node.agent_version)
        .bind(&node.identity_jwk)
        .bind(node.encrypt_public_key.clone())
        .bind(&node.node_key_digest)
        .bind(&node.ws_url)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        audit_in(
            &mut tx,
            now,
            Some(owner_user_id),
            "setup_key",
            "node.enrolled",
            Some(&node_id),
            &serde_json::json!({"setupKeyId": setup_key_id, "name": node.name}).to_string(),
        )
        .await?;
        tx.commit().await?;
        Ok(Consume::Enrolled(node_id))
    }
}
