//! System keys and setup keys.

use std::sync::Arc;

use super::Caller;
use super::revocations::Revocations;
use crate::api::credentials::{
    CreateSystemKeyRequest, SetupKey, SetupKeyStatus, SystemKey, SystemKeyCreated,
    SystemKeyDisabled,
};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::secret::{self, BEARER_PREFIX, SETUP_KEY_PREFIX};
use crate::store::{self, Store};

/// A setup key's state at `now`.
#[must_use]
pub fn setup_key_status(k: &store::SetupKey, now: i64) -> SetupKeyStatus {
    if k.used_at.is_some() {
        SetupKeyStatus::Used
    } else if k.revoked_at.is_some() {
        SetupKeyStatus::Revoked
    } else if now >= k.expires_at {
        SetupKeyStatus::Expired
    } else {
        SetupKeyStatus::Active
    }
}

fn system_key_view(k: &store::SystemKey) -> SystemKey {
    SystemKey {
        id: k.id.clone(),
        name: k.name.clone(),
        preview: k.preview.clone(),
        enabled: k.enabled,
        created_at: k.created_at,
    }
}

/// A setup key as listed: the key in full only while it is active.
fn setup_key_view(k: &store::SetupKey, now: i64) -> SetupKey {
    let status = setup_key_status(k, now);
    SetupKey {
        id: k.id.clone(),
        key: (status == SetupKeyStatus::Active).then(|| k.key_text.clone()),
        preview: secret::preview(&k.key_text, SETUP_KEY_PREFIX),
        status,
        created_at: k.created_at,
        expires_at: k.expires_at,
        used_at: k.used_at,
        used_by_node_id: k.used_by_node_id.clone(),
        revoked_at: k.revoked_at,
        install: None,
    }
}

/// The credentials domain: system keys (scripts' bearer keys) and setup keys (a node's
/// single-use enrollment key). It holds the store, the clock, the revocations a full disk
/// holds in force, and the signal that re-checks every open socket's grant when a key stops
/// working.
pub struct Credentials {
    store: Store,
    clock: Arc<dyn Clock>,
    revocations: Arc<Revocations>,
    access_changed: Arc<super::words::AccessSignal>,
}

impl Credentials {
    /// The service over `store`.
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        revocations: Arc<Revocations>,
        access_changed: Arc<super::words::AccessSignal>,
    ) -> Self {
        Self {
            store,
            clock,
            revocations,
            access_changed,
        }
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    // ----- system keys -----

    /// `POST /api/system-keys`: the plaintext is in this answer and nowhere else, ever.
    pub async fn create_system_key(
        &self,
        admin: &Caller,
        req: CreateSystemKeyRequest,
    ) -> Result<SystemKeyCreated, ApiError> {
        let token = secret::new_token(BEARER_PREFIX)?;
        let preview = secret::preview(&token, BEARER_PREFIX);
        let k = self
            .store
            .create_system_key(
                &admin.user().id,
                req.name.as_str(),
                &secret::digest(&token),
                &preview,
                self.now(),
            )
            .await?;
        Ok(SystemKeyCreated {
            id: k.id,
            name: k.name,
            preview: k.preview,
            enabled: k.enabled,
            created_at: k.created_at,
            key: token,
        })
    }

    /// `GET /api/system-keys`.
    pub async fn system_keys(&self) -> Result<Vec<SystemKey>, ApiError> {
        Ok(self
            .store
            .system_keys()
            .await?
            .iter()
            .map(system_key_view)
            .collect())
    }

    /// `POST /api/system-keys/:id/disable`.
    pub async fn disable_system_key(
        &self,
        admin: &Caller,
        id: &str,
    ) -> Result<SystemKeyDisabled, ApiError> {
        self.revoke_system_key(admin, id, false).await?;
        // Terminals opened with its attach tokens and feeds re-check their grants now.
        self.access_changed.changed();
        Ok(SystemKeyDisabled {
            id: id.to_owned(),
            enabled: false,
        })
    }

    /// `DELETE /api/system-keys/:id`.
    pub async fn delete_system_key(&self, admin: &Caller, id: &str) -> Result<(), ApiError> {
        self.revoke_system_key(admin, id, true).await?;
        self.access_changed.changed();
        Ok(())
    }

    /// Disables (or with `delete`, deletes) system key `id`; 404 when there is none. On a full
    /// disk the key is refused from now on all the same (see [`super::revocations`]).
    async fn revoke_system_key(
        &self,
        admin: &super::Caller,
        id: &str,
        delete: bool,
    ) -> Result<(), ApiError> {
        if !self.store.system_keys().await?.iter().any(|k| k.id == id) {
            return Err(ApiError::not_found("system key"));
        }
        let (actor, key, now) = (admin.user().id.clone(), id.to_owned(), self.now());
        self.revocations
            .revoke(
                format!("system-key:{id}"),
                Box::new(move |store| {
                    let (actor, key) = (actor.clone(), key.clone());
                    Box::pin(async move {
                        let found = if delete {
                            store.delete_system_key(&actor, &key, now).await?
                        } else {
                            store.disable_system_key(&actor, &key, now).await?
                        };
                        if found {
                            Ok(())
                        } else {
                            Err(ApiError::not_found("system key"))
                        }
                    })
                }),
            )
            .await
    }

    // ----- setup keys -----

    /// `POST /api/setup-keys`: the key (the [`super::Installer`] adds the commands that add a node
    /// with it).
    pub(super) async fn create_setup_key(&self, c: &Caller) -> Result<SetupKey, ApiError> {
        let now = self.now();
        let key_text = secret::new_token(SETUP_KEY_PREFIX)?;
        let validity = i64::try_from(termplane_proto::limits::SETUP_KEY_VALIDITY.as_millis())
            .unwrap_or(i64::MAX);
        let k = store::SetupKey {
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
        Ok(setup_key_view(&k, now))
    }

    /// `GET /api/setup-keys`: an admin sees every key, others their own (the [`super::Installer`]
    /// adds the install commands).
    pub(super) async fn setup_keys(&self, c: &Caller) -> Result<Vec<SetupKey>, ApiError> {
        let owner = if c.is_admin_session() {
            None
        } else {
            Some(c.user().id.as_str())
        };
        let now = self.now();
        Ok(self
            .store
            .setup_keys(owner)
            .await?
            .iter()
            .map(|k| setup_key_view(k, now))
            .collect())
    }

    /// `DELETE /api/setup-keys/:id`: revokes an unused key.
    pub async fn revoke_setup_key(&self, c: &Caller, id: &str) -> Result<(), ApiError> {
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
