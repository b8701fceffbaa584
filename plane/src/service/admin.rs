//! The administrator's views: `GET /api/admin/status` and `GET /api/admin/deployment`.

use std::collections::BTreeMap;

use std::sync::Arc;

use super::install::Installer;
use super::{Dispatcher, Guard, Settings};
use crate::api::admin::{AdminStatus, Deployment, NodeDownload};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::link::LinkHub;
use crate::store::Backend;
use crate::store::Store;

fn backend_name(b: Backend) -> String {
    match b {
        Backend::Sqlite => "sqlite".into(),
        Backend::Postgres => "postgres".into(),
    }
}

/// The administrator's views of the plane: its status (nodes, subshells, the database) and how
/// it is deployed (addresses, data, the node programs it serves).
pub struct Admin {
    store: Store,
    clock: Arc<dyn Clock>,
    settings: Settings,
    started_at: i64,
    links: Arc<LinkHub>,
    dispatcher: Arc<Dispatcher>,
    guard: Arc<Guard>,
    installer: Arc<Installer>,
}

impl std::fmt::Debug for Admin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admin").finish_non_exhaustive()
    }
}

impl Admin {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        settings: Settings,
        started_at: i64,
        links: Arc<LinkHub>,
        dispatcher: Arc<Dispatcher>,
        guard: Arc<Guard>,
        installer: Arc<Installer>,
    ) -> Self {
        Self {
            store,
            clock,
            settings,
            started_at,
            links,
            dispatcher,
            guard,
            installer,
        }
    }

    /// `GET /api/admin/status` (an administrator's session: the route's signature requires it).
    pub async fn status(&self) -> Result<AdminStatus, ApiError> {
        let held: Vec<String> = self.links.held().into_iter().map(|h| h.node_id).collect();
        let mut by_liveness = BTreeMap::new();
        let mut by_version = BTreeMap::new();
        for n in self.store.nodes(None).await? {
            if n.is_local {
                continue;
            }
            let liveness = if held.contains(&n.id) {
                "held".to_owned()
            } else {
                n.liveness.clone()
            };
            *by_liveness.entry(liveness).or_insert(0) += 1;
            *by_version.entry(n.agent_version.clone()).or_insert(0) += 1;
        }
        let mut by_state = BTreeMap::new();
        for (state, n) in self.store.subshell_state_counts().await? {
            by_state.insert(state, u64::try_from(n).unwrap_or(0));
        }
        Ok(AdminStatus {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            uptime_secs: (self.clock.now_ms() - self.started_at).max(0) / 1000,
            database: backend_name(self.store.backend()),
            database_bytes: self.store.database_bytes().await?,
            nodes_by_liveness: by_liveness,
            nodes_by_version: by_version,
            held_nodes: held.len() as u64,
            local_node: self.dispatcher.local_node().is_some(),
            subshells_by_state: by_state,
        })
    }

    /// `GET /api/admin/deployment` (an administrator's session: the route's signature requires
    /// it).
    pub async fn deployment(&self) -> Result<Deployment, ApiError> {
        let base = self.settings.base_url.trim_end_matches('/').to_owned();
        let downloads = self
            .installer
            .served_node_programs()
            .await
            .into_iter()
            .map(|p| NodeDownload {
                url: format!("{base}/api/downloads/node/{}", p.platform),
                platform: p.platform,
                bytes: p.bytes,
                sha256: p.sha256,
            })
            .collect();
        Ok(Deployment {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            listen: self.settings.listen.iter().cloned().collect(),
            base_url: self.settings.base_url.clone(),
            data_dir: self
                .settings
                .data_dir
                .as_ref()
                .map(|d| d.display().to_string()),
            database: backend_name(self.store.backend()),
            trusted_origins: self.guard.trusted_origins(),
            node_downloads: downloads,
        })
    }
}
