//! Sharing a subshell with another account (cookie sessions only: rule 4 refuses bearers).
//!
//! The owner of a subshell, or an administrator, grants `read` (watch: attach read-only, read
//! the row, its screen and logs) or `write` (also type and resize through the terminal). A share
//! never reaches a bearer actor: a pane's token or a system key acts on its owner's own
//! subshells only. Revoking or changing a share closes that account's open sockets on the pane
//! (4403), so the next attach carries the new rights.

use std::sync::Arc;

use super::Caller;
use super::live::Publisher;
use super::terminals::pump::Pumps;
use crate::api::terminals::{Share, ShareAccess, ShareRequest};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::store;
use crate::store::Store;

fn view(s: store::Share) -> Share {
    Share {
        subshell_id: s.subshell_id,
        user_id: s.user_id,
        access: if s.access == "write" {
            ShareAccess::Write
        } else {
            ShareAccess::Read
        },
        granted_by: s.granted_by,
        created_at: s.created_at,
        updated_at: s.updated_at,
    }
}

/// Sharing a pane: who else may watch it (read) or type into it (write), granted by its owner or
/// an administrator.
pub struct Shares {
    store: Store,
    clock: Arc<dyn Clock>,
    pumps: Arc<Pumps>,
    publisher: Arc<Publisher>,
    /// Told when a share narrows: the viewers through it at the other replicas re-check.
    access: Arc<super::words::AccessSignal>,
}

impl std::fmt::Debug for Shares {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shares").finish_non_exhaustive()
    }
}

impl Shares {
    pub(in crate::service) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        pumps: Arc<Pumps>,
        publisher: Arc<Publisher>,
        access: Arc<super::words::AccessSignal>,
    ) -> Self {
        Self {
            store,
            clock,
            pumps,
            publisher,
            access,
        }
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The subshell `id` if `c` (a session) owns it or is an administrator; 404 otherwise.
    async fn shareable(&self, c: &Caller, id: &str) -> Result<store::Subshell, ApiError> {
        let row = self
            .store
            .subshell(id)
            .await?
            .ok_or_else(|| ApiError::not_found("subshell"))?;
        let user = c.user();
        if user.role == "admin" || row.owner_user_id == user.id {
            Ok(row)
        } else {
            Err(ApiError::not_found("subshell"))
        }
    }

    /// `GET /api/subshells/:id/shares`.
    pub async fn list_shares(&self, c: &Caller, id: &str) -> Result<Vec<Share>, ApiError> {
        self.shareable(c, id).await?;
        Ok(self.store.shares(id).await?.into_iter().map(view).collect())
    }

    /// `PUT /api/subshells/:id/shares/:userId`.
    pub async fn put_share(
        &self,
        c: &Caller,
        id: &str,
        user_id: &str,
        req: ShareRequest,
    ) -> Result<Share, ApiError> {
        let row = self.shareable(c, id).await?;
        let target = self
            .store
            .user_by_id(user_id)
            .await?
            .ok_or_else(|| ApiError::not_found("user"))?;
        if target.id == row.owner_user_id {
            return Err(ApiError::validation(
                "userId",
                "a subshell cannot be shared with its owner",
            ));
        }
        if target.email == store::SYSTEM_USER_EMAIL {
            return Err(ApiError::validation(
                "userId",
                "the system account acts through keys, which never reach a share",
            ));
        }
        let before = self.store.share_access(id, user_id).await?;
        let share = self
            .store
            .put_share(id, user_id, req.access.as_str(), &c.user().id, self.now())
            .await?;
        if before.is_some_and(|b| b != req.access.as_str()) {
            self.pumps
                .close_viewers(id, Some(user_id), 4403, "the share's access changed");
            self.access.changed();
        }
        self.publisher.publish_subshell(id).await;
        Ok(view(share))
    }

    /// `DELETE /api/subshells/:id/shares/:userId`: closes that account's sockets on the pane.
    pub async fn delete_share(&self, c: &Caller, id: &str, user_id: &str) -> Result<(), ApiError> {
        self.shareable(c, id).await?;
        if !self
            .store
            .delete_share(id, user_id, &c.user().id, self.now())
            .await?
        {
            return Err(ApiError::not_found("share"));
        }
        self.pumps
            .close_viewers(id, Some(user_id), 4403, "the share was revoked");
        self.access.changed();
        self.publisher
            .publish_subshell_gone(id, std::iter::once(user_id.to_owned()).collect(), false)
            .await;
        Ok(())
    }
}
