//! Subshell rows and their tokens.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Store, audit_in, flag};

/// A subshell row.
#[derive(Clone, Debug)]
pub struct Subshell {
    /// Row id (also the pane's id on the node).
    pub id: String,
    /// Owning account.
    pub owner_user_id: String,
    /// Node.
    pub node_id: String,
    /// Harness plugin.
    pub harness_id: String,
    /// Name.
    pub name: String,
    /// Working directory.
    pub cwd: String,
    /// Preset launched with.
    pub preset_id: Option<String>,
    /// Workspace launched in.
    pub workspace_id: Option<String>,
    /// What a relaunch needs (JSON text: the launch as first built, without its token).
    pub launch_spec: String,
    /// Lifecycle state (`api::subshells::SubshellState` spelling).
    pub state: String,
    /// Exit code once ended.
    pub exit_code: Option<i64>,
    /// Why the last launch failed.
    pub error: Option<String>,
    /// Columns.
    pub cols: i64,
    /// Rows.
    pub rows: i64,
    /// The initial prompt.
    pub prompt: Option<String>,
    /// `none`, `pending`, `delivered` or `failed`.
    pub prompt_state: String,
    /// Relaunch on crash.
    pub auto_restart: bool,
    /// Relaunches so far.
    pub restarts: i64,
    /// Attention reported by the harness.
    pub attention: String,
    /// When it was reported.
    pub attention_at: Option<i64>,
    /// The harness's own session id.
    pub harness_session_id: Option<String>,
    /// SHA-256 digest of the pane's token; `None` once revoked.
    pub token_digest: Option<String>,
    /// The token's permission map (JSON text).
    pub token_perms: String,
    /// When the token expires.
    pub token_expires_at: Option<i64>,
    /// The subshell whose pane launched this one.
    pub parent_subshell_id: Option<String>,
    /// `cookie`, `system_key` or `pane`.
    pub created_by_kind: String,
    /// When the pane's MCP child last showed it was alive.
    pub mcp_seen_at: Option<i64>,
    /// Creation time.
    pub created_at: i64,
    /// Last change.
    pub updated_at: i64,
    /// When the pane last started.
    pub started_at: Option<i64>,
    /// When it last ended.
    pub ended_at: Option<i64>,
    /// What its last launch could not do (its MCP server not loaded, and why).
    pub warning: Option<String>,
    /// What the agent in it is doing, as its signals last said.
    pub agent: AgentRow,
}

/// The agent state columns of a subshell row (spellings: `api::subshells::AgentState` and
/// `AgentSource`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentRow {
    /// The state.
    pub state: String,
    /// When it entered that state (ms; `None` on rows from before agent states).
    pub since: Option<i64>,
    /// A one-line summary.
    pub summary: Option<String>,
    /// A link the agent gave.
    pub link: Option<String>,
    /// The signal that set it.
    pub source: String,
    /// The reporter's own time of that signal (ms), when it gave one.
    pub observed_at: Option<i64>,
}

impl AgentRow {
    /// A pane being launched: `starting` since `now`, set by its lifecycle.
    #[must_use]
    pub fn starting(now: i64) -> Self {
        Self {
            state: "starting".into(),
            since: Some(now),
            summary: None,
            link: None,
            source: "lifecycle".into(),
            observed_at: None,
        }
    }
}

/// What [`Store::report_agent`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentWrite {
    /// Written; `from` is the state it replaced (the same as the new one when only the summary
    /// or link changed).
    Applied {
        /// The state before.
        from: String,
    },
    /// Refused: the report's `observed_at` is older than the one already recorded (`latest`).
    Stale {
        /// The newest `observed_at` recorded.
        latest: i64,
    },
    /// Not written: the state or its source is no longer the one the report was decided on.
    Moved,
    /// Refused: the subshell is not live (or is gone).
    NotLive,
}

const COLS: &str = "id, owner_user_id, node_id, harness_id, name, cwd, preset_id, workspace_id, \
     launch_spec, state, exit_code, error, cols, rows, prompt, prompt_state, auto_restart, \
     restarts, attention, attention_at, harness_session_id, token_digest, token_perms, \
     token_expires_at, parent_subshell_id, created_by_kind, mcp_seen_at, created_at, updated_at, \
     started_at, ended_at, warning, agent_state, agent_since, agent_summary, agent_link, \
     agent_source, agent_observed_at";

fn subshell_of(r: &AnyRow) -> Result<Subshell, sqlx::Error> {
    Ok(Subshell {
        id: r.try_get("id")?,
        owner_user_id: r.try_get("owner_user_id")?,
        node_id: r.try_get("node_id")?,
        harness_id: r.try_get("harness_id")?,
        name: r.try_get("name")?,
        cwd: r.try_get("cwd")?,
        preset_id: r.try_get("preset_id")?,
        workspace_id: r.try_get("workspace_id")?,
        launch_spec: r.try_get("launch_spec")?,
        state: r.try_get("state")?,
        exit_code: r.try_get("exit_code")?,
        error: r.try_get("error")?,
        cols: r.try_get("cols")?,
        rows: r.try_get("rows")?,
        prompt: r.try_get("prompt")?,
        prompt_state: r.try_get("prompt_state")?,
        auto_restart: flag(r, "auto_restart")?,
        restarts: r.try_get("restarts")?,
        attention: r.try_get("attention")?,
        attention_at: r.try_get("attention_at")?,
        harness_session_id: r.try_get("harness_session_id")?,
        token_digest: r.try_get("token_digest")?,
        token_perms: r.try_get("token_perms")?,
        token_expires_at: r.try_get("token_expires_at")?,
        parent_subshell_id: r.try_get("parent_subshell_id")?,
        created_by_kind: r.try_get("created_by_kind")?,
        mcp_seen_at: r.try_get("mcp_seen_at")?,
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
        started_at: r.try_get("started_at")?,
        ended_at: r.try_get("ended_at")?,
        warning: r.try_get("warning")?,
        agent: AgentRow {
            state: r.try_get("agent_state")?,
            since: r.try_get("agent_since")?,
            summary: r.try_get("agent_summary")?,
            link: r.try_get("agent_link")?,
            source: r.try_get("agent_source")?,
            observed_at: r.try_get("agent_observed_at")?,
        },
    })
}

/// A filter of [`Store::subshells`].
#[derive(Clone, Debug, Default)]
pub struct SubshellFilter<'a> {
    /// Only this owner's (none: every owner's).
    pub owner: Option<&'a str>,
    /// With `owner`: also the subshells shared with that account.
    pub with_shared: bool,
    /// Only this node's.
    pub node: Option<&'a str>,
    /// Only this harness's.
    pub harness: Option<&'a str>,
    /// Only in this state.
    pub state: Option<&'a str>,
}

/// A state change as one statement writes it.
#[derive(Clone, Debug, Default)]
pub struct Change<'a> {
    /// The new state.
    pub state: &'a str,
    /// Exit code to record (`Some(None)` clears it).
    pub exit_code: Option<Option<i64>>,
    /// Error to record (`Some(None)` clears it).
    pub error: Option<Option<&'a str>>,
    /// Revoke the token.
    pub revoke: bool,
    /// Rotate the token: its new digest and expiry.
    pub rotate: Option<(&'a str, i64)>,
    /// Set `started_at`.
    pub started: bool,
    /// Set `ended_at`.
    pub ended: bool,
    /// Count a relaunch.
    pub count_restart: bool,
}

impl Store {
    /// Inserts a new subshell row (state `starting`) and audits who launched it.
    pub async fn insert_subshell(
        &self,
        s: &Subshell,
        actor: &str,
        actor_kind: &str,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO subshells ({COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
             $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, \
             $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38)"
        )))
        .bind(&s.id)
        .bind(&s.owner_user_id)
        .bind(&s.node_id)
        .bind(&s.harness_id)
        .bind(&s.name)
        .bind(&s.cwd)
        .bind(s.preset_id.clone())
        .bind(s.workspace_id.clone())
        .bind(&s.launch_spec)
        .bind(&s.state)
        .bind(s.exit_code)
        .bind(s.error.clone())
        .bind(s.cols)
        .bind(s.rows)
        .bind(s.prompt.clone())
        .bind(&s.prompt_state)
        .bind(i64::from(s.auto_restart))
        .bind(s.restarts)
        .bind(&s.attention)
        .bind(s.attention_at)
        .bind(s.harness_session_id.clone())
        .bind(s.token_digest.clone())
        .bind(&s.token_perms)
        .bind(s.token_expires_at)
        .bind(s.parent_subshell_id.clone())
        .bind(&s.created_by_kind)
        .bind(s.mcp_seen_at)
        .bind(s.created_at)
        .bind(s.updated_at)
        .bind(s.started_at)
        .bind(s.ended_at)
        .bind(s.warning.clone())
        .bind(&s.agent.state)
        .bind(s.agent.since)
        .bind(s.agent.summary.clone())
        .bind(s.agent.link.clone())
        .bind(&s.agent.source)
        .bind(s.agent.observed_at)
        .execute(&mut *tx)
        .await?;
        audit_in(
            &mut tx,
            s.created_at,
            Some(actor),
            actor_kind,
            "subshell.launched",
            Some(&s.id),
            &serde_json::json!({
                "nodeId": s.node_id,
                "harnessId": s.harness_id,
                "cwd": s.cwd,
            })
            .to_string(),
        )
        .await?;
        tx.commit().await
    }

    /// A subshell by id.
    pub async fn subshell(&self, id: &str) -> Result<Option<Subshell>, sqlx::Error> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {COLS} FROM subshells WHERE id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| subshell_of(&r))
        .transpose()
    }

    /// The subshell a token's digest belongs to (its token unrevoked).
    pub async fn subshell_by_token(&self, digest: &str) -> Result<Option<Subshell>, sqlx::Error> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {COLS} FROM subshells WHERE token_digest = $1"
        )))
        .bind(digest)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| subshell_of(&r))
        .transpose()
    }

    /// Subshells matching `f`, newest first.
    pub async fn subshells(&self, f: &SubshellFilter<'_>) -> Result<Vec<Subshell>, sqlx::Error> {
        let mut conds = Vec::new();
        let mut binds: Vec<&str> = Vec::new();
        if let Some(owner) = f.owner {
            binds.push(owner);
            let n = binds.len();
            conds.push(if f.with_shared {
                format!(
                    "(owner_user_id = ${n} OR id IN \
                     (SELECT subshell_id FROM subshell_shares WHERE user_id = ${n}))"
                )
            } else {
                format!("owner_user_id = ${n}")
            });
        }
        for (col, v) in [
            ("node_id", f.node),
            ("harness_id", f.harness),
            ("state", f.state),
        ] {
            if let Some(v) = v {
                binds.push(v);
                conds.push(format!("{col} = ${}", binds.len()));
            }
        }
        let cond = if conds.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", conds.join(" AND "))
        };
        let sql = format!("SELECT {COLS} FROM subshells {cond} ORDER BY created_at DESC, id");
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for b in binds {
            q = q.bind(b);
        }
        q.fetch_all(&self.pool)
            .await?
            .iter()
            .map(subshell_of)
            .collect()
    }

    /// Applies a state change when the row is still in `from` (a compare-and-set: of two racing
    /// changes only one applies). `false` when the row moved on or is gone.
    pub async fn change_subshell(
        &self,
        id: &str,
        from: &str,
        c: &Change<'_>,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut sets = vec!["state = $1".to_owned(), "updated_at = $2".to_owned()];
        let mut n = 2;
        let mut next = |sets: &mut Vec<String>, col: &str| {
            n += 1;
            sets.push(format!("{col} = ${n}"));
        };
        if c.exit_code.is_some() {
            next(&mut sets, "exit_code");
        }
        if c.error.is_some() {
            next(&mut sets, "error");
        }
        if c.revoke {
            sets.push("token_digest = NULL".into());
            sets.push("token_expires_at = NULL".into());
        }
        if c.rotate.is_some() {
            next(&mut sets, "token_digest");
            next(&mut sets, "token_expires_at");
        }
        if c.started {
            sets.push("started_at = $2".into());
            sets.push("ended_at = NULL".into());
        }
        if c.ended {
            sets.push("ended_at = $2".into());
        }
        if c.count_restart {
            sets.push("restarts = restarts + 1".into());
        }
        if c.state == "starting" {
            // A fresh launch: the agent's last state belonged to the pane that ended.
            sets.push("agent_state = 'starting'".into());
            sets.push("agent_since = $2".into());
            sets.push("agent_summary = NULL".into());
            sets.push("agent_link = NULL".into());
            sets.push("agent_source = 'lifecycle'".into());
            sets.push("agent_observed_at = NULL".into());
        }
        let sql = format!(
            "UPDATE subshells SET {} WHERE id = ${} AND state = ${}",
            sets.join(", "),
            n + 1,
            n + 2
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(c.state.to_owned())
            .bind(now);
        if let Some(code) = c.exit_code {
            q = q.bind(code);
        }
        if let Some(err) = c.error {
            q = q.bind(err.map(str::to_owned));
        }
        if let Some((digest, expires)) = c.rotate {
            q = q.bind(digest.to_owned()).bind(expires);
        }
        let n = q
            .bind(id.to_owned())
            .bind(from.to_owned())
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(n == 1)
    }

    /// Deletes a subshell row (its token goes with it) and audits it; with `doom`, its pane
    /// on `doom`'s node is doomed in the same transaction ([`Self::doom_pane`]).
    pub async fn delete_subshell(
        &self,
        id: &str,
        actor: &str,
        actor_kind: &str,
        doom: Option<&str>,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let n = sqlx::query("DELETE FROM subshells WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        if let Some(node_id) = doom {
            doom_in(&mut tx, node_id, id, now).await?;
        }
        // The pane's channel identities sign nothing more; what they signed keeps verifying.
        sqlx::query(
            "UPDATE identities SET revoked_at = $1 WHERE subshell_id = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        audit_in(
            &mut tx,
            now,
            Some(actor),
            actor_kind,
            "subshell.deleted",
            Some(id),
            "{}",
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Dooms the pane `subshell_id` of `node_id`: no row stands for it, and the node's next
    /// census has it killed and forgotten ([`Self::take_doomed`]). Dooming it again is no
    /// change; a node's doomed panes go with the node.
    pub async fn doom_pane(
        &self,
        node_id: &str,
        subshell_id: &str,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        doom_in(&mut tx, node_id, subshell_id, now).await?;
        tx.commit().await
    }

    /// The doomed panes of `node_id`, taken off the list (a kill that fails again dooms its
    /// pane again).
    pub async fn take_doomed(&self, node_id: &str) -> Result<Vec<String>, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let ids = sqlx::query("SELECT subshell_id FROM doomed_panes WHERE node_id = $1")
            .bind(node_id)
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(|r| r.try_get::<String, _>(0))
            .collect::<Result<Vec<_>, _>>()?;
        sqlx::query("DELETE FROM doomed_panes WHERE node_id = $1")
            .bind(node_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(ids)
    }

    /// Deletes the row of a launch that failed (the node refused it, or did not answer):
    /// nothing was created, so nothing is left but the audit log's account of the attempt,
    /// which this ends with `subshell.launch_failed` and the reason.
    pub async fn forget_subshell(
        &self,
        id: &str,
        actor: &str,
        actor_kind: &str,
        reason: &str,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM subshells WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        // The log keeps the attempt (`subshell.launched`) and says how it ended.
        audit_in(
            &mut tx,
            now,
            Some(actor),
            actor_kind,
            "subshell.launch_failed",
            Some(id),
            &serde_json::json!({ "reason": reason }).to_string(),
        )
        .await?;
        tx.commit().await
    }

    /// Sets the grid of a subshell.
    pub async fn set_subshell_grid(
        &self,
        id: &str,
        cols: i64,
        rows: i64,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE subshells SET cols = $1, rows = $2, updated_at = $3 WHERE id = $4")
            .bind(cols)
            .bind(rows)
            .bind(now)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Records the attention a harness reported.
    pub async fn set_subshell_attention(
        &self,
        id: &str,
        attention: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let n = sqlx::query(
            "UPDATE subshells SET attention = $1, attention_at = $2, updated_at = $2 WHERE id = $3",
        )
        .bind(attention)
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }

    /// Records what the agent in a live subshell reports it is doing, in one transaction: the
    /// report is refused when the row is not live or when `observed_at` is older than the one
    /// recorded; a change of state (not of summary or link alone) is audited as
    /// `subshell.agent_state` by `actor` (`actor_kind`), with `detail`'s `from`, `to` and
    /// `source`. With `keep_words`, a report of the state already recorded keeps the recorded
    /// summary and link (a report that carries none of its own, like an attention signal).
    pub async fn report_agent(
        &self,
        id: &str,
        report: &AgentRow,
        keep_words: bool,
        expect: Option<(&str, &str)>,
        actor: (Option<&str>, &str),
        now: i64,
    ) -> Result<AgentWrite, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        // Takes the row's lock first (PostgreSQL; SQLite's write transaction holds the whole
        // database already), so two reports racing read and audit one after the other.
        sqlx::query("UPDATE subshells SET updated_at = updated_at WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let Some(r) = sqlx::query(
            "SELECT state, agent_state, agent_source, agent_observed_at FROM subshells WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        else {
            return Ok(AgentWrite::NotLive);
        };
        let state: String = r.try_get("state")?;
        let from: String = r.try_get("agent_state")?;
        let latest: Option<i64> = r.try_get("agent_observed_at")?;
        let source: String = r.try_get("agent_source")?;
        if !matches!(state.as_str(), "starting" | "running" | "stopping") {
            return Ok(AgentWrite::NotLive);
        }
        if expect.is_some_and(|(s, src)| s != from || src != source) {
            return Ok(AgentWrite::Moved);
        }
        if let (Some(latest), Some(seen)) = (latest, report.observed_at)
            && seen < latest
        {
            return Ok(AgentWrite::Stale { latest });
        }
        let changed = from != report.state;
        sqlx::query(
            "UPDATE subshells SET agent_state = $1, \
             agent_since = CASE WHEN agent_state = $1 AND agent_since IS NOT NULL \
             THEN agent_since ELSE $2 END, \
             agent_summary = CASE WHEN $8 = 1 AND agent_state = $1 THEN agent_summary ELSE $3 END, \
             agent_link = CASE WHEN $8 = 1 AND agent_state = $1 THEN agent_link ELSE $4 END, \
             agent_source = $5, \
             agent_observed_at = COALESCE($6, agent_observed_at), updated_at = $2 WHERE id = $7",
        )
        .bind(&report.state)
        .bind(now)
        .bind(report.summary.clone())
        .bind(report.link.clone())
        .bind(&report.source)
        .bind(report.observed_at)
        .bind(id)
        .bind(i64::from(keep_words))
        .execute(&mut *tx)
        .await?;
        if changed {
            audit_in(
                &mut tx,
                now,
                actor.0,
                actor.1,
                "subshell.agent_state",
                Some(id),
                &serde_json::json!({
                    "from": from,
                    "to": report.state,
                    "source": report.source,
                    "summary": report.summary,
                })
                .to_string(),
            )
            .await?;
        }
        tx.commit().await?;
        Ok(AgentWrite::Applied { from })
    }

    /// Records the harness's own session id.
    pub async fn set_subshell_session(
        &self,
        id: &str,
        session: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let n = sqlx::query(
            "UPDATE subshells SET harness_session_id = $1, updated_at = $2 WHERE id = $3",
        )
        .bind(session)
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }

    /// Extends a live token to `expires` and notes the MCP child's liveness; `false` when the
    /// token is revoked or the row gone.
    pub async fn keep_subshell_token(
        &self,
        id: &str,
        digest: &str,
        expires: i64,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let n = sqlx::query(
            "UPDATE subshells SET token_expires_at = $1, mcp_seen_at = $2 \
             WHERE id = $3 AND token_digest = $4",
        )
        .bind(expires)
        .bind(now)
        .bind(id)
        .bind(digest)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }

    /// Records what the subshell's last launch could not do (`None`: nothing).
    pub async fn set_subshell_warning(
        &self,
        id: &str,
        warning: Option<&str>,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE subshells SET warning = $1, updated_at = $2 WHERE id = $3")
            .bind(warning.map(str::to_owned))
            .bind(now)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Records the initial prompt's delivery.
    pub async fn set_prompt_state(
        &self,
        id: &str,
        state: &str,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE subshells SET prompt_state = $1, updated_at = $2 WHERE id = $3")
            .bind(state)
            .bind(now)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

async fn doom_in(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    node_id: &str,
    subshell_id: &str,
    now: i64,
) -> Result<(), sqlx::Error> {
    // A node deleted meanwhile has no panes to doom (the foreign key would refuse the row).
    sqlx::query(
        "INSERT INTO doomed_panes (node_id, subshell_id, doomed_at) \
         SELECT id, $2, $3 FROM nodes WHERE id = $1 \
         ON CONFLICT (node_id, subshell_id) DO NOTHING",
    )
    .bind(node_id)
    .bind(subshell_id)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
