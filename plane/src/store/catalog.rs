//! The launch catalog: plugin switches, what nodes detected and reported about their harnesses,
//! presets, workspaces, and the node facts a launch needs.

use serde_json::json;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Entry, Store, audit_in, commit_if_changed, flag};

/// A preset row (JSON columns as text).
#[derive(Clone, Debug)]
pub struct Preset {
    /// Row id.
    pub id: String,
    /// Owning account.
    pub owner_user_id: String,
    /// Name.
    pub name: String,
    /// Harness it is for.
    pub harness_id: Option<String>,
    /// Environment (JSON object text).
    pub env: String,
    /// Flags (JSON array text).
    pub flags: String,
    /// Settings (JSON object text).
    pub settings: Option<String>,
    /// Config isolation.
    pub config_isolation: bool,
    /// Relaunch on crash.
    pub auto_restart: bool,
    /// Creation time.
    pub created_at: i64,
    /// Last change.
    pub updated_at: i64,
}

/// A workspace row.
#[derive(Clone, Debug)]
pub struct Workspace {
    /// Row id.
    pub id: String,
    /// Owning account.
    pub owner_user_id: String,
    /// Name.
    pub name: String,
    /// Node.
    pub node_id: String,
    /// Directory.
    pub path: String,
    /// Whether its panes are recorded (when their plane and node record).
    pub recording: bool,
    /// Days its panes' recordings are kept (`None`: its node's setting).
    pub recording_retention_days: Option<i64>,
    /// Creation time.
    pub created_at: i64,
    /// Last change.
    pub updated_at: i64,
}

/// A node's last detection of one harness.
#[derive(Clone, Debug)]
pub struct Detected {
    /// Harness plugin.
    pub harness_id: String,
    /// Found.
    pub installed: bool,
    /// Version text.
    pub version: Option<String>,
    /// Binary path.
    pub binary_path: Option<String>,
    /// Why not found.
    pub reason: Option<String>,
    /// When (ms).
    pub checked_at: i64,
}

/// What `ready` said about the node daemon.
#[derive(Clone, Debug, Default)]
pub struct NodeFacts {
    /// `selfInvoke` (JSON text).
    pub self_invoke: Option<String>,
    /// Home directory.
    pub home_dir: Option<String>,
    /// Data directory.
    pub data_dir: Option<String>,
    /// Capabilities (JSON array text).
    pub capabilities: String,
    /// Scripts may launch here.
    pub system_access: bool,
}

const PRESET_COLS: &str = "id, owner_user_id, name, harness_id, env, flags, settings, \
     config_isolation, auto_restart, created_at, updated_at";
const WORKSPACE_COLS: &str = "id, owner_user_id, name, node_id, path, recording, \
     recording_retention_days, created_at, updated_at";

fn preset_of(r: &AnyRow) -> Result<Preset, sqlx::Error> {
    Ok(Preset {
        id: r.try_get("id")?,
        owner_user_id: r.try_get("owner_user_id")?,
        name: r.try_get("name")?,
        harness_id: r.try_get("harness_id")?,
        env: r.try_get("env")?,
        flags: r.try_get("flags")?,
        settings: r.try_get("settings")?,
        config_isolation: flag(r, "config_isolation")?,
        auto_restart: flag(r, "auto_restart")?,
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
    })
}

fn workspace_of(r: &AnyRow) -> Result<Workspace, sqlx::Error> {
    Ok(Workspace {
        id: r.try_get("id")?,
        owner_user_id: r.try_get("owner_user_id")?,
        name: r.try_get("name")?,
        node_id: r.try_get("node_id")?,
        path: r.try_get("path")?,
        recording: flag(r, "recording")?,
        recording_retention_days: r.try_get("recording_retention_days")?,
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
    })
}

impl Store {
    // ----- plugins -----

    /// The administrator's switch of each plugin that has one: `(plugin id, enabled)`.
    pub async fn plugin_switches(&self) -> Result<Vec<(String, bool)>, sqlx::Error> {
        sqlx::query("SELECT plugin_id, enabled FROM plugin_settings")
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|r| Ok((r.try_get("plugin_id")?, flag(r, "enabled")?)))
            .collect()
    }

    /// Turns a plugin on or off, audited.
    pub async fn set_plugin_enabled(
        &self,
        actor: &str,
        plugin_id: &str,
        enabled: bool,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query(
            "INSERT INTO plugin_settings (plugin_id, enabled, updated_at) VALUES ($1, $2, $3) \
             ON CONFLICT (plugin_id) DO UPDATE SET enabled = $2, updated_at = $3",
        )
        .bind(plugin_id)
        .bind(i64::from(enabled))
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let action = if enabled {
            "plugin.enabled"
        } else {
            "plugin.disabled"
        };
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            action,
            Some(plugin_id),
            "{}",
        )
        .await?;
        tx.commit().await
    }

    // ----- what nodes detected and reported -----

    /// Replaces a node's detections of the harnesses in `found` (others are kept).
    pub async fn record_detections(
        &self,
        node_id: &str,
        found: &[Detected],
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        for d in found {
            sqlx::query(
                "INSERT INTO node_harnesses (node_id, harness_id, installed, version, binary_path, \
                 reason, checked_at) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                 ON CONFLICT (node_id, harness_id) DO UPDATE SET installed = $3, version = $4, \
                 binary_path = $5, reason = $6, checked_at = $7",
            )
            .bind(node_id)
            .bind(&d.harness_id)
            .bind(i64::from(d.installed))
            .bind(d.version.clone())
            .bind(d.binary_path.clone())
            .bind(d.reason.clone())
            .bind(d.checked_at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await
    }

    /// A node's detections.
    pub async fn detections(&self, node_id: &str) -> Result<Vec<Detected>, sqlx::Error> {
        sqlx::query(
            "SELECT harness_id, installed, version, binary_path, reason, checked_at \
             FROM node_harnesses WHERE node_id = $1 ORDER BY harness_id",
        )
        .bind(node_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| {
            Ok(Detected {
                harness_id: r.try_get("harness_id")?,
                installed: flag(r, "installed")?,
                version: r.try_get("version")?,
                binary_path: r.try_get("binary_path")?,
                reason: r.try_get("reason")?,
                checked_at: r.try_get("checked_at")?,
            })
        })
        .collect()
    }

    /// Stores a node's `inventory` event (JSON text), replacing the previous one.
    pub async fn record_inventory(
        &self,
        node_id: &str,
        inventory: &str,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO node_inventory (node_id, inventory, at) VALUES ($1, $2, $3) \
             ON CONFLICT (node_id) DO UPDATE SET inventory = $2, at = $3",
        )
        .bind(node_id)
        .bind(inventory)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// A node's last `inventory` (JSON text) and when it came.
    pub async fn inventory(&self, node_id: &str) -> Result<Option<(String, i64)>, sqlx::Error> {
        sqlx::query("SELECT inventory, at FROM node_inventory WHERE node_id = $1")
            .bind(node_id)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| Ok((r.try_get("inventory")?, r.try_get("at")?)))
            .transpose()
    }

    // ----- node facts -----

    /// Stores what `ready` said about the node daemon.
    pub async fn record_node_facts(
        &self,
        node_id: &str,
        facts: &NodeFacts,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "UPDATE nodes SET self_invoke = $1, home_dir = $2, data_dir = $3, capabilities = $4, \
             updated_at = $5 WHERE id = $6",
        )
        .bind(facts.self_invoke.clone())
        .bind(facts.home_dir.clone())
        .bind(facts.data_dir.clone())
        .bind(&facts.capabilities)
        .bind(now)
        .bind(node_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// What `ready` said about the node daemon, and whether scripts may launch there.
    pub async fn node_facts(&self, node_id: &str) -> Result<Option<NodeFacts>, sqlx::Error> {
        sqlx::query(
            "SELECT self_invoke, home_dir, data_dir, capabilities, system_access FROM nodes \
             WHERE id = $1",
        )
        .bind(node_id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| {
            Ok(NodeFacts {
                self_invoke: r.try_get("self_invoke")?,
                home_dir: r.try_get("home_dir")?,
                data_dir: r.try_get("data_dir")?,
                capabilities: r.try_get("capabilities")?,
                system_access: flag(&r, "system_access")?,
            })
        })
        .transpose()
    }

    /// Lets scripts (system keys) launch onto a node, or stops letting them, audited.
    pub async fn set_system_access(
        &self,
        actor: &str,
        node_id: &str,
        allowed: bool,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        self.set_audited(
            actor,
            Settable::Node,
            node_id,
            &[("system_access", Some(i64::from(allowed)))],
            ("node.system_access_set", json!({ "allowed": allowed })),
            now,
        )
        .await
    }

    /// Records the panes of a node or a workspace from their next launch on, or stops
    /// recording them, and sets how long their recordings are kept (`None`: the default),
    /// audited.
    pub async fn set_recording(
        &self,
        actor: &str,
        of: Settable,
        id: &str,
        on: bool,
        retention_days: Option<i64>,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let action = match of {
            Settable::Node => "node.recording_set",
            Settable::Workspace => "workspace.recording_set",
        };
        self.set_audited(
            actor,
            of,
            id,
            &[
                ("recording", Some(i64::from(on))),
                ("recording_retention_days", retention_days),
            ],
            (action, json!({ "on": on, "retentionDays": retention_days })),
            now,
        )
        .await
    }

    /// Sets columns of a node's or a workspace's row (`sets`: fixed column names, never input)
    /// and audits it as `audit` (action, detail), in one transaction; `false` when there is no
    /// such row.
    async fn set_audited(
        &self,
        actor: &str,
        of: Settable,
        id: &str,
        sets: &[(&'static str, Option<i64>)],
        audit: (&str, serde_json::Value),
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let table = match of {
            Settable::Node => "nodes",
            Settable::Workspace => "workspaces",
        };
        let columns: Vec<String> = sets
            .iter()
            .enumerate()
            .map(|(i, (c, _))| format!("{c} = ${}", i + 1))
            .collect();
        let n = sets.len();
        let sql = format!(
            "UPDATE {table} SET {}, updated_at = ${} WHERE id = ${}",
            columns.join(", "),
            n + 1,
            n + 2
        );
        let mut tx = self.write_tx().await?;
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for (_, v) in sets {
            q = q.bind(*v);
        }
        let changed = q
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        commit_if_changed(
            tx,
            changed,
            now,
            Entry::by_cookie(actor, audit.0, id, &audit.1.to_string()),
        )
        .await
    }

    // ----- presets -----

    /// Stores a new preset.
    pub async fn insert_preset(&self, p: &Preset) -> Result<(), sqlx::Error> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO presets ({PRESET_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
        )))
        .bind(&p.id)
        .bind(&p.owner_user_id)
        .bind(&p.name)
        .bind(p.harness_id.clone())
        .bind(&p.env)
        .bind(&p.flags)
        .bind(p.settings.clone())
        .bind(i64::from(p.config_isolation))
        .bind(i64::from(p.auto_restart))
        .bind(p.created_at)
        .bind(p.updated_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Replaces a preset's fields; `false` when absent.
    pub async fn update_preset(&self, p: &Preset) -> Result<bool, sqlx::Error> {
        let n = sqlx::query(
            "UPDATE presets SET name = $1, harness_id = $2, env = $3, flags = $4, settings = $5, \
             config_isolation = $6, auto_restart = $7, updated_at = $8 WHERE id = $9",
        )
        .bind(&p.name)
        .bind(p.harness_id.clone())
        .bind(&p.env)
        .bind(&p.flags)
        .bind(p.settings.clone())
        .bind(i64::from(p.config_isolation))
        .bind(i64::from(p.auto_restart))
        .bind(p.updated_at)
        .bind(&p.id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }

    /// A preset by id.
    pub async fn preset(&self, id: &str) -> Result<Option<Preset>, sqlx::Error> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {PRESET_COLS} FROM presets WHERE id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| preset_of(&r))
        .transpose()
    }

    /// An account's presets, oldest first.
    pub async fn presets(&self, owner: &str) -> Result<Vec<Preset>, sqlx::Error> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {PRESET_COLS} FROM presets WHERE owner_user_id = $1 ORDER BY created_at, id"
        )))
        .bind(owner)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(preset_of)
        .collect()
    }

    /// Deletes a preset; `false` when absent.
    pub async fn delete_preset(&self, id: &str) -> Result<bool, sqlx::Error> {
        let n = sqlx::query("DELETE FROM presets WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(n == 1)
    }

    // ----- workspaces -----

    /// Stores a new workspace.
    pub async fn insert_workspace(&self, w: &Workspace) -> Result<(), sqlx::Error> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO workspaces ({WORKSPACE_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        )))
        .bind(&w.id)
        .bind(&w.owner_user_id)
        .bind(&w.name)
        .bind(&w.node_id)
        .bind(&w.path)
        .bind(i64::from(w.recording))
        .bind(w.recording_retention_days)
        .bind(w.created_at)
        .bind(w.updated_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Replaces a workspace's fields; `false` when absent.
    pub async fn update_workspace(&self, w: &Workspace) -> Result<bool, sqlx::Error> {
        let n = sqlx::query(
            "UPDATE workspaces SET name = $1, node_id = $2, path = $3, updated_at = $4 WHERE id = $5",
        )
        .bind(&w.name)
        .bind(&w.node_id)
        .bind(&w.path)
        .bind(w.updated_at)
        .bind(&w.id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }

    /// A workspace by id.
    pub async fn workspace(&self, id: &str) -> Result<Option<Workspace>, sqlx::Error> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {WORKSPACE_COLS} FROM workspaces WHERE id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| workspace_of(&r))
        .transpose()
    }

    /// An account's workspaces, oldest first.
    pub async fn workspaces(&self, owner: &str) -> Result<Vec<Workspace>, sqlx::Error> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {WORKSPACE_COLS} FROM workspaces WHERE owner_user_id = $1 ORDER BY created_at, id"
        )))
        .bind(owner)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(workspace_of)
        .collect()
    }

    /// Deletes a workspace; `false` when absent.
    pub async fn delete_workspace(&self, id: &str) -> Result<bool, sqlx::Error> {
        let n = sqlx::query("DELETE FROM workspaces WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(n == 1)
    }
}

/// A row whose settings an administrator sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settable {
    /// A node.
    Node,
    /// A workspace.
    Workspace,
}
