//! What a pane says about itself, with its own token: attention, its harness session, that it is alive.

use super::*;

impl PaneIo {
    // ----- what a pane says about itself -----

    /// `POST /api/subshells/:id/attention` (its own token only).
    pub async fn report_attention(
        &self,
        c: &Caller,
        id: &str,
        req: AttentionRequest,
    ) -> Result<Subshell, ApiError> {
        own_pane(c, id)?;
        self.take_report(id)?;
        let now = self.now();
        self.store
            .set_subshell_attention(id, req.attention.as_str(), now)
            .await?;
        // The agent's state follows (rule 2 of `agent`); a pane that is not live keeps its own.
        let state = match req.attention {
            Attention::NeedsInput => AgentState::NeedsInput,
            Attention::Done => AgentState::Done,
            Attention::None => AgentState::Working,
        };
        let report = store::AgentRow {
            state: state.as_str().to_owned(),
            since: Some(now),
            summary: None,
            link: None,
            source: AgentSource::SelfReport.as_str().to_owned(),
            observed_at: None,
        };
        self.store
            .report_agent(
                id,
                &report,
                true,
                None,
                (Some(&c.user().id), c.actor_kind()),
                now,
            )
            .await?;
        self.publisher.publish_subshell(id).await;
        self.lookup.fresh_view(id).await
    }

    /// `POST /api/subshells/:id/status` (its own token only): what the agent is doing, from its
    /// harness's hook or from the agent itself (the rules are `agent`'s).
    pub async fn report_status(
        &self,
        c: &Caller,
        id: &str,
        req: StatusRequest,
    ) -> Result<Subshell, ApiError> {
        own_pane(c, id)?;
        let now = self.now();
        if let Some(at) = req.observed_at
            && (at - now).abs() > agent::OBSERVED_AT_SKEW_MS
        {
            return Err(ApiError::validation(
                "observedAt",
                "must be within a day of the control plane's clock",
            ));
        }
        self.take_report(id)?;
        let state = AgentState::from(req.state);
        let report = store::AgentRow {
            state: state.as_str().to_owned(),
            since: Some(now),
            summary: req.summary.map(|s| s.into_string()),
            link: req.link.map(|l| l.as_str().to_owned()),
            source: match req.source {
                ReportSource::Hook => AgentSource::Hook,
                ReportSource::SelfReport => AgentSource::SelfReport,
            }
            .as_str()
            .to_owned(),
            observed_at: req.observed_at,
        };
        match self
            .store
            .report_agent(
                id,
                &report,
                false,
                None,
                (Some(&c.user().id), c.actor_kind()),
                now,
            )
            .await?
        {
            store::AgentWrite::Applied { .. } => {}
            store::AgentWrite::NotLive | store::AgentWrite::Moved => {
                return Err(ApiError::new(
                    409,
                    "SUBSHELL_NOT_RUNNING",
                    "the subshell is not running",
                ));
            }
            store::AgentWrite::Stale { latest } => {
                return Err(ApiError::new(
                    409,
                    "STALE_REPORT",
                    "a report observed later is already recorded for this pane",
                )
                .with_metadata(serde_json::json!({ "latestObservedAt": latest })));
            }
        }
        self.publisher.publish_subshell(id).await;
        self.lookup.fresh_view(id).await
    }

    /// One report from pane `id`'s budget (rule 6 of `agent`): 429 `TOO_MANY_REPORTS` when it
    /// is spent.
    fn take_report(&self, id: &str) -> Result<(), ApiError> {
        self.gate.take(id, self.clock.instant()).map_err(|wait| {
            let ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
            ApiError::new(
                429,
                "TOO_MANY_REPORTS",
                "this pane reports faster than the control plane records; slow down",
            )
            .with_metadata(serde_json::json!({ "retryAfterMs": ms }))
        })
    }

    /// `PUT /api/subshells/:id/session` (its own token only).
    pub async fn report_session(
        &self,
        c: &Caller,
        id: &str,
        req: SessionRequest,
    ) -> Result<Subshell, ApiError> {
        own_pane(c, id)?;
        self.store
            .set_subshell_session(id, req.harness_session_id.as_str(), self.now())
            .await?;
        self.publisher.publish_subshell(id).await;
        self.lookup.fresh_view(id).await
    }

    /// `POST /api/subshells/:id/keepalive` (its own token only): the pane's MCP child is alive,
    /// so its token lives another seven days.
    pub async fn keepalive(&self, c: &Caller, id: &str) -> Result<KeptAlive, ApiError> {
        let digest = own_pane(c, id)?;
        let now = self.now();
        let expires = now + TOKEN_LIFETIME_MS;
        if !self
            .store
            .keep_subshell_token(id, &digest, expires, now)
            .await?
        {
            return Err(ApiError::new(
                401,
                "INVALID_CREDENTIAL",
                "the credential is not valid here",
            ));
        }
        Ok(KeptAlive {
            token_expires_at: expires,
        })
    }
}

/// The subshell `id` when `c` is that subshell's own token; 403 otherwise.
pub(in crate::service) fn own_pane(c: &Caller, id: &str) -> Result<String, ApiError> {
    match c {
        Caller::Pane {
            subshell_id,
            token_digest,
            ..
        } if subshell_id == id => Ok(token_digest.clone()),
        _ => Err(ApiError::new(
            403,
            "NOT_OWN_SUBSHELL",
            "only the subshell's own token may report for it",
        )),
    }
}
