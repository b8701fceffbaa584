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
        self.store
            .set_subshell_attention(id, req.attention.as_str(), self.now())
            .await?;
        self.publisher.publish_subshell(id).await;
        self.lookup.fresh_view(id).await
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
