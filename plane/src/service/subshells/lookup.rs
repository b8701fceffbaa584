//! Looking subshells up: who may see and act on which, and a subshell row as the API shows it.

use super::*;

/// Looking subshells up: the access rules of [`super`] applied to a caller, and the API's view of a
/// row (which needs only whether its node is reachable).
pub struct Lookup {
    store: Store,
    dispatcher: Arc<Dispatcher>,
}

impl std::fmt::Debug for Lookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lookup").finish_non_exhaustive()
    }
}

impl Lookup {
    pub(in crate::service) fn new(store: Store, dispatcher: Arc<Dispatcher>) -> Self {
        Self { store, dispatcher }
    }

    // ----- who may see, act and launch -----

    /// The subshell `id` as `c` may see it, or 404; 403 when `need` is more than a pane's
    /// permission map allows.
    pub(in crate::service) async fn reach_subshell(
        &self,
        c: &Caller,
        id: &str,
        need: Need,
    ) -> Result<store::Subshell, ApiError> {
        let row = self
            .store
            .subshell(id)
            .await?
            .ok_or_else(|| ApiError::not_found("subshell"))?;
        let visible = match c {
            // A share lets a person read a subshell over REST (typing goes through the terminal).
            Caller::Session { user, .. } => {
                user.role == "admin"
                    || row.owner_user_id == user.id
                    || (need == Need::Read
                        && self.store.share_access(id, &user.id).await?.is_some())
            }
            Caller::SystemKey { user, .. } | Caller::Pane { user, .. } => {
                row.owner_user_id == user.id
            }
        };
        if !visible {
            return Err(ApiError::not_found("subshell"));
        }
        if let Caller::Pane { permissions, .. } = c {
            let allowed = match need {
                Need::Read => true,
                Need::Write => permissions.subshells == Access::Write,
            };
            if !allowed {
                return Err(ApiError::new(
                    403,
                    "PERMISSION_DENIED",
                    "the pane's token allows reading subshells, not changing them",
                ));
            }
        }
        Ok(row)
    }

    // ----- views -----

    /// A subshell row as the API shows it.
    pub(in crate::service) fn subshell_view(&self, r: &store::Subshell) -> Subshell {
        view_of(r, self.dispatcher.node_reachable(&r.node_id))
    }

    pub(in crate::service) async fn fresh_view(&self, id: &str) -> Result<Subshell, ApiError> {
        let row = self
            .store
            .subshell(id)
            .await?
            .ok_or_else(|| ApiError::not_found("subshell"))?;
        Ok(self.subshell_view(&row))
    }

    /// `GET /api/subshells`: the caller's own subshells (every one for an administrator's
    /// session), and for a person also those shared with them.
    pub async fn list(&self, c: &Caller, q: SubshellsQuery) -> Result<Vec<Subshell>, ApiError> {
        let owner = match &c {
            Caller::Session { user, .. } if user.role == "admin" => None,
            _ => Some(c.user().id.as_str()),
        };
        let rows = self
            .store
            .subshells(&SubshellFilter {
                owner,
                // A person also sees what is shared with them; a bearer never reaches a share.
                with_shared: matches!(c, Caller::Session { .. }),
                node: q.node_id.as_ref().map(|n| n.as_str()),
                harness: q.harness_id.as_ref().map(|h| h.as_str()),
                state: q.state.map(SubshellState::as_str),
            })
            .await?;
        Ok(rows.iter().map(|r| self.subshell_view(r)).collect())
    }

    /// `GET /api/subshells/:id`.
    pub async fn get(&self, c: &Caller, id: &str) -> Result<Subshell, ApiError> {
        let row = self.reach_subshell(c, id, Need::Read).await?;
        Ok(self.subshell_view(&row))
    }
}
