//! System keys and setup keys.

#[allow(unused_imports)]
use super::*;

/// A setup key's state at `now`.
#[must_use]
pub fn setup_key_status(k: &SetupKey, now: i64) -> &'static str {
    if k.used_at.is_some() {
        "used"
    } else if k.revoked_at.is_some() {
        "revoked"
    } else if now >= k.expires_at {
        "expired"
    } else {
        "active"
    }
}

impl Service {
    // ----- system keys -----

    /// `POST /api/system-keys`: the plaintext is in this answer and nowhere else, ever.
    pub async fn create_system_key(
        &self,
        meta: &RequestMeta,
        body: &Value,
    ) -> Result<Value, ApiError> {
        let admin = self.admin(meta).await?;
        let obj = object(body)?;
        only_fields(obj, &["name"])?;
        let name = string_field(obj, "name", 1, 100)?;
        let token = secret::new_token(BEARER_PREFIX)?;
        let preview = secret::preview(&token, BEARER_PREFIX);
        let k = self
            .store
            .create_system_key(
                &admin.user().id,
                name,
                &secret::digest(&token),
                &preview,
                self.now(),
            )
            .await?;
        Ok(
            json!({ "id": k.id, "name": k.name, "preview": k.preview, "enabled": k.enabled, "createdAt": k.created_at, "key": token }),
        )
    }

    /// `GET /api/system-keys`.
    pub async fn system_keys(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        self.admin(meta).await?;
        Ok(serde_json::to_value(self.store.system_keys().await?).unwrap_or_default())
    }

    /// `POST /api/system-keys/:id/disable`.
    pub async fn disable_system_key(
        &self,
        meta: &RequestMeta,
        id: &str,
    ) -> Result<Value, ApiError> {
        let admin = self.admin(meta).await?;
        if !self
            .store
            .disable_system_key(&admin.user().id, id, self.now())
            .await?
        {
            return Err(ApiError::not_found("system key"));
        }
        Ok(json!({ "id": id, "enabled": false }))
    }

    /// `DELETE /api/system-keys/:id`.
    pub async fn delete_system_key(&self, meta: &RequestMeta, id: &str) -> Result<(), ApiError> {
        let admin = self.admin(meta).await?;
        if !self
            .store
            .delete_system_key(&admin.user().id, id, self.now())
            .await?
        {
            return Err(ApiError::not_found("system key"));
        }
        Ok(())
    }

    // ----- setup keys -----

    pub(super) fn setup_key_json(k: &SetupKey, now: i64) -> Value {
        let status = setup_key_status(k, now);
        json!({
            "id": k.id,
            "key": if status == "active" { Value::from(k.key_text.clone()) } else { Value::Null },
            "preview": secret::preview(&k.key_text, SETUP_KEY_PREFIX),
            "status": status,
            "createdAt": k.created_at,
            "expiresAt": k.expires_at,
            "usedAt": k.used_at,
            "usedByNodeId": k.used_by_node_id,
            "revokedAt": k.revoked_at,
        })
    }

    /// `POST /api/setup-keys`.
    pub async fn create_setup_key(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        let c = self.session(meta).await?;
        let now = self.now();
        let key_text = secret::new_token(SETUP_KEY_PREFIX)?;
        let validity = i64::try_from(termplane_proto::limits::SETUP_KEY_VALIDITY.as_millis())
            .unwrap_or(i64::MAX);
        let k = SetupKey {
            id: secret::new_id()?,
            digest: secret::digest(&key_text),
            key_text,
            owner_user_id: c.user().id.clone(),
            created_at: now,
            expires_at: now + validity,
            used_at: None,
            used_by_node_id: None,
            revoked_at: None,
        };
        self.store.create_setup_key(&k).await?;
        Ok(Self::setup_key_json(&k, now))
    }

    /// `GET /api/setup-keys`: an admin sees every key, others their own.
    pub async fn setup_keys(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        let c = self.session(meta).await?;
        let owner = if c.is_admin_session() {
            None
        } else {
            Some(c.user().id.as_str())
        };
        let now = self.now();
        Ok(Value::Array(
            self.store
                .setup_keys(owner)
                .await?
                .iter()
                .map(|k| Self::setup_key_json(k, now))
                .collect(),
        ))
    }

    /// `DELETE /api/setup-keys/:id`: revokes an unused key.
    pub async fn revoke_setup_key(&self, meta: &RequestMeta, id: &str) -> Result<(), ApiError> {
        let c = self.session(meta).await?;
        let k = self
            .store
            .setup_key_by_id(id)
            .await?
            .ok_or_else(|| ApiError::not_found("setup key"))?;
        if !c.is_admin_session() && k.owner_user_id != c.user().id {
            return Err(ApiError::not_found("setup key"));
        }
        if !self
            .store
            .revoke_setup_key(&c.user().id, id, self.now())
            .await?
        {
            return Err(ApiError::new(
                409,
                "SETUP_KEY_NOT_REVOCABLE",
                "the setup key is already used or revoked",
            ));
        }
        Ok(())
    }
}
