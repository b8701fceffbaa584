//! Presets and workspaces: a person's saved launch settings and the directories on nodes they
//! launch in. Each belongs to one account and is seen by nobody else (another's is a 404); a
//! workspace names a node its owner may launch on, checked when it is saved and again at launch.

use std::sync::Arc;

use super::Caller;
use super::nodes::launchable_node;
use crate::api::catalog::{Preset, PresetRequest, RecordingRequest, Workspace, WorkspaceRequest};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::secret;
use crate::store::{self, Store};

/// The presets and workspaces domain. It holds the store and the clock.
pub struct Presets {
    store: Store,
    clock: Arc<dyn Clock>,
}

fn preset_view(p: &store::Preset) -> Preset {
    Preset {
        id: p.id.clone(),
        owner_user_id: p.owner_user_id.clone(),
        name: p.name.clone(),
        harness_id: p.harness_id.clone(),
        env: serde_json::from_str(&p.env).unwrap_or_default(),
        flags: serde_json::from_str(&p.flags).unwrap_or_default(),
        settings: p
            .settings
            .as_deref()
            .and_then(|s| serde_json::from_str(s).ok()),
        config_isolation: p.config_isolation,
        auto_restart: p.auto_restart,
        created_at: p.created_at,
        updated_at: p.updated_at,
    }
}

fn workspace_view(w: &store::Workspace) -> Workspace {
    Workspace {
        id: w.id.clone(),
        owner_user_id: w.owner_user_id.clone(),
        name: w.name.clone(),
        node_id: w.node_id.clone(),
        path: w.path.clone(),
        recording: w.recording,
        recording_retention_days: w.recording_retention_days,
        created_at: w.created_at,
        updated_at: w.updated_at,
    }
}

fn preset_row(
    c: &Caller,
    id: String,
    req: PresetRequest,
    created_at: i64,
    now: i64,
) -> Result<store::Preset, ApiError> {
    Ok(store::Preset {
        id,
        owner_user_id: c.user().id.clone(),
        name: req.name.into_string(),
        harness_id: req.harness_id.map(|h| h.as_str().to_owned()),
        env: serde_json::to_string(&req.env.0).map_err(|_| ApiError::internal())?,
        flags: serde_json::to_string(
            &req.flags
                .into_iter()
                .map(|f| f.into_string())
                .collect::<Vec<_>>(),
        )
        .map_err(|_| ApiError::internal())?,
        settings: req
            .settings
            .map(|s| serde_json::Value::Object(s).to_string()),
        config_isolation: req.config_isolation,
        auto_restart: req.auto_restart,
        created_at,
        updated_at: now,
    })
}

impl Presets {
    /// The service over `store`.
    pub(super) fn new(store: Store, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    // ----- presets -----

    /// A preset of the caller's (404 for anyone else's).
    pub(super) async fn own_preset(&self, c: &Caller, id: &str) -> Result<store::Preset, ApiError> {
        self.store
            .preset(id)
            .await?
            .filter(|p| p.owner_user_id == c.user().id)
            .ok_or_else(|| ApiError::not_found("preset"))
    }

    /// `POST /api/presets`.
    pub async fn create_preset(&self, c: &Caller, req: PresetRequest) -> Result<Preset, ApiError> {
        let now = self.now();
        let row = preset_row(c, secret::new_id()?, req, now, now)?;
        self.store.insert_preset(&row).await?;
        Ok(preset_view(&row))
    }

    /// `GET /api/presets`: the caller's.
    pub async fn presets(&self, c: &Caller) -> Result<Vec<Preset>, ApiError> {
        Ok(self
            .store
            .presets(&c.user().id)
            .await?
            .iter()
            .map(preset_view)
            .collect())
    }

    /// `GET /api/presets/:id`.
    pub async fn preset(&self, c: &Caller, id: &str) -> Result<Preset, ApiError> {
        Ok(preset_view(&self.own_preset(c, id).await?))
    }

    /// `PUT /api/presets/:id`: replaces every field.
    pub async fn update_preset(
        &self,
        c: &Caller,
        id: &str,
        req: PresetRequest,
    ) -> Result<Preset, ApiError> {
        let old = self.own_preset(c, id).await?;
        let row = preset_row(c, old.id, req, old.created_at, self.now())?;
        if !self.store.update_preset(&row).await? {
            return Err(ApiError::not_found("preset"));
        }
        Ok(preset_view(&row))
    }

    /// `DELETE /api/presets/:id` (subshells launched with it keep what they were launched with).
    pub async fn delete_preset(&self, c: &Caller, id: &str) -> Result<(), ApiError> {
        self.own_preset(c, id).await?;
        if !self.store.delete_preset(id).await? {
            return Err(ApiError::not_found("preset"));
        }
        Ok(())
    }

    // ----- workspaces -----

    /// A workspace of the caller's (404 for anyone else's).
    pub(super) async fn own_workspace(
        &self,
        c: &Caller,
        id: &str,
    ) -> Result<store::Workspace, ApiError> {
        self.store
            .workspace(id)
            .await?
            .filter(|w| w.owner_user_id == c.user().id)
            .ok_or_else(|| ApiError::not_found("workspace"))
    }

    /// `POST /api/workspaces`: the node must be one the caller may launch on.
    pub async fn create_workspace(
        &self,
        c: &Caller,
        req: WorkspaceRequest,
    ) -> Result<Workspace, ApiError> {
        launchable_node(&self.store, c, req.node_id.as_str()).await?;
        let now = self.now();
        let row = store::Workspace {
            id: secret::new_id()?,
            owner_user_id: c.user().id.clone(),
            name: req.name.into_string(),
            node_id: req.node_id.as_str().to_owned(),
            path: req.path.as_str().to_owned(),
            recording: true,
            recording_retention_days: None,
            created_at: now,
            updated_at: now,
        };
        self.store.insert_workspace(&row).await?;
        Ok(workspace_view(&row))
    }

    /// `GET /api/workspaces`: the caller's.
    pub async fn workspaces(&self, c: &Caller) -> Result<Vec<Workspace>, ApiError> {
        Ok(self
            .store
            .workspaces(&c.user().id)
            .await?
            .iter()
            .map(workspace_view)
            .collect())
    }

    /// `GET /api/workspaces/:id`.
    pub async fn workspace(&self, c: &Caller, id: &str) -> Result<Workspace, ApiError> {
        Ok(workspace_view(&self.own_workspace(c, id).await?))
    }

    /// `PUT /api/workspaces/:id`: replaces every field.
    pub async fn update_workspace(
        &self,
        c: &Caller,
        id: &str,
        req: WorkspaceRequest,
    ) -> Result<Workspace, ApiError> {
        let old = self.own_workspace(c, id).await?;
        launchable_node(&self.store, c, req.node_id.as_str()).await?;
        let row = store::Workspace {
            id: old.id,
            owner_user_id: old.owner_user_id,
            name: req.name.into_string(),
            node_id: req.node_id.as_str().to_owned(),
            path: req.path.as_str().to_owned(),
            recording: old.recording,
            recording_retention_days: old.recording_retention_days,
            created_at: old.created_at,
            updated_at: self.now(),
        };
        if !self.store.update_workspace(&row).await? {
            return Err(ApiError::not_found("workspace"));
        }
        Ok(workspace_view(&row))
    }

    /// `PUT /api/workspaces/:id/recording` (an administrator's session, any account's
    /// workspace): whether its panes launched or restarted from now on are recorded, and how
    /// long their recordings are kept. Audited as `workspace.recording_set`.
    pub async fn set_workspace_recording(
        &self,
        admin: &Caller,
        id: &str,
        req: &RecordingRequest,
    ) -> Result<Workspace, ApiError> {
        let days = req.retention_days.map(|d| i64::from(d.0));
        if !self
            .store
            .set_recording(
                &admin.user().id,
                store::Settable::Workspace,
                id,
                req.on,
                days,
                self.now(),
            )
            .await?
        {
            return Err(ApiError::not_found("workspace"));
        }
        let w = self
            .store
            .workspace(id)
            .await?
            .ok_or_else(|| ApiError::not_found("workspace"))?;
        Ok(workspace_view(&w))
    }

    /// `DELETE /api/workspaces/:id`.
    pub async fn delete_workspace(&self, c: &Caller, id: &str) -> Result<(), ApiError> {
        self.own_workspace(c, id).await?;
        if !self.store.delete_workspace(id).await? {
            return Err(ApiError::not_found("workspace"));
        }
        Ok(())
    }
}
