//! Attach tokens minted and redeemed, and the grants of open sockets re-checked: who may attach
//! to which pane, with what rights, and who may open the whole-user live feed.

use std::sync::Arc;

use super::super::subshells::{Lookup, Need};
use super::super::{Caller, Guard};
use super::{
    ATTACH_TOKEN_LIFETIME_MS, ATTACH_TOKEN_PREFIX, AttachGrant, FeedGrant, Grant,
    MAX_PENDING_TOKENS, Minter, Terminals,
};
use crate::api::subshells::Access;
use crate::api::terminals::{WsToken, WsTokenRequest};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::secret;
use crate::store::{self, AttachTokenRow, Store};

/// Minting and redeeming attach tokens, and re-checking what an open socket was granted: a
/// subshell's access rules ([`Lookup`]) applied to the credential that minted the token
/// ([`Guard`]), kept in the database ([`Store::put_attach_token`]), so that any replica spends
/// a token any other minted, once.
pub struct Grants {
    store: Store,
    clock: Arc<dyn Clock>,
    terminals: Arc<Terminals>,
    guard: Arc<Guard>,
    lookup: Arc<Lookup>,
}

impl std::fmt::Debug for Grants {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grants").finish_non_exhaustive()
    }
}

impl Grants {
    pub(in crate::service) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        terminals: Arc<Terminals>,
        guard: Arc<Guard>,
        lookup: Arc<Lookup>,
    ) -> Self {
        Self {
            store,
            clock,
            terminals,
            guard,
            lookup,
        }
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// `POST /api/auth/ws-token`.
    pub async fn mint_ws_token(
        &self,
        c: &Caller,
        req: WsTokenRequest,
    ) -> Result<WsToken, ApiError> {
        let bound = req.subshell_id.map(|id| id.as_str().to_owned());
        let minter = match c {
            Caller::Session { session_digest, .. } => Minter::Session(session_digest.clone()),
            Caller::SystemKey { key_digest, .. } => Minter::Bearer(key_digest.clone()),
            Caller::Pane { token_digest, .. } => Minter::Bearer(token_digest.clone()),
        };
        match (c, &bound) {
            (Caller::Session { .. }, None) => {}
            (Caller::Session { .. }, Some(id)) => {
                self.reach_for_attach(c, id).await?;
            }
            // A well-formed request a bearer may not make: its tokens are bound to one pane.
            (_, None) => {
                return Err(ApiError::new(
                    403,
                    "PERMISSION_DENIED",
                    "a bearer credential mints only tokens bound to one subshell: name it in \
                     `subshellId`",
                ));
            }
            (Caller::SystemKey { .. }, Some(id)) => {
                // Rule 6: a system key may name any subshell.
                self.store
                    .subshell(id)
                    .await?
                    .ok_or_else(|| ApiError::not_found("subshell"))?;
            }
            (Caller::Pane { subshell_id, .. }, Some(id)) => {
                if subshell_id != id {
                    return Err(ApiError::new(
                        403,
                        "PERMISSION_DENIED",
                        "a pane's token may mint an attach token for its own subshell only",
                    ));
                }
            }
        }
        let token = secret::new_token(ATTACH_TOKEN_PREFIX)?;
        let now = self.now();
        let expires_at = now + ATTACH_TOKEN_LIFETIME_MS;
        let (minter_kind, minter_digest) = match minter {
            Minter::Session(d) => ("session", d),
            Minter::Bearer(d) => ("bearer", d),
        };
        self.store
            .put_attach_token(
                &secret::digest(&token),
                &AttachTokenRow {
                    minter_kind: minter_kind.to_owned(),
                    minter_digest,
                    subshell_id: bound.clone(),
                    expires_at,
                },
                now,
                MAX_PENDING_TOKENS,
            )
            .await?;
        Ok(WsToken {
            token,
            expires_at,
            subshell_id: bound,
        })
    }

    /// Spends attach token `token` (a token is spent by its first presentation at any replica,
    /// whatever comes of it): its grant, or 401 when it is unknown, spent, malformed or expired.
    async fn spend_token(&self, token: &str) -> Result<Grant, ApiError> {
        let invalid = || {
            ApiError::new(
                401,
                "ATTACH_TOKEN_INVALID",
                "the attach token is unknown, spent or expired",
            )
        };
        if !secret::well_formed(token, ATTACH_TOKEN_PREFIX) {
            return Err(invalid());
        }
        let row = self
            .store
            .spend_attach_token(&secret::digest(token))
            .await?
            .ok_or_else(invalid)?;
        if row.expires_at <= self.now() {
            return Err(invalid());
        }
        let minter = match row.minter_kind.as_str() {
            "session" => Minter::Session(row.minter_digest),
            _ => Minter::Bearer(row.minter_digest),
        };
        Ok(Grant {
            minter,
            subshell_id: row.subshell_id,
        })
    }

    /// The subshell `id` as `c` reaches it for attaching: its row and whether `c` may type.
    /// A session reaches its own subshells, every one as an administrator, and those shared with
    /// it; a bearer never through a share.
    async fn reach_for_attach(
        &self,
        c: &Caller,
        id: &str,
    ) -> Result<(store::Subshell, bool), ApiError> {
        match c {
            Caller::Session { user, .. } => {
                let row = self
                    .store
                    .subshell(id)
                    .await?
                    .ok_or_else(|| ApiError::not_found("subshell"))?;
                if user.role == "admin" || row.owner_user_id == user.id {
                    return Ok((row, true));
                }
                match self.store.share_access(id, &user.id).await? {
                    Some(access) => Ok((row, access == "write")),
                    None => Err(ApiError::not_found("subshell")),
                }
            }
            Caller::SystemKey { .. } => {
                let row = self
                    .store
                    .subshell(id)
                    .await?
                    .ok_or_else(|| ApiError::not_found("subshell"))?;
                Ok((row, true))
            }
            Caller::Pane {
                subshell_id,
                permissions,
                ..
            } => {
                if subshell_id != id {
                    return Err(ApiError::not_found("subshell"));
                }
                let row = self.lookup.reach_subshell(c, id, Need::Read).await?;
                Ok((row, permissions.subshells == Access::Write))
            }
        }
    }

    async fn caller_of(&self, minter: &Minter) -> Result<Caller, ApiError> {
        let gone = || {
            ApiError::new(
                401,
                "ATTACH_TOKEN_INVALID",
                "what minted this attach token is no longer valid",
            )
        };
        match minter {
            Minter::Session(digest) => self.guard.session_by_digest(digest).await?.ok_or_else(gone),
            Minter::Bearer(digest) => self
                .guard
                .bearer_caller_by_digest(digest.clone())
                .await
                .map_err(|_| gone()),
        }
    }

    /// Spends attach token `token` for subshell `id`: the grant, or 401 (unknown, spent,
    /// expired, minter gone), 403 `ATTACH_TOKEN_BOUND` (bound to another pane) or 404.
    pub async fn redeem_attach_token(
        &self,
        token: &str,
        id: &str,
    ) -> Result<AttachGrant, ApiError> {
        let grant = self.spend_token(token).await?;
        if grant.subshell_id.as_deref().is_some_and(|b| b != id) {
            return Err(ApiError::new(
                403,
                "ATTACH_TOKEN_BOUND",
                "this attach token is bound to another subshell",
            ));
        }
        let c = self.caller_of(&grant.minter).await?;
        let (row, can_write) = self.reach_for_attach(&c, id).await?;
        // A pane that does not run has nothing to attach to (its log stays readable over REST).
        super::super::subshells::require_live(&row)?;
        Ok(AttachGrant {
            row,
            user_id: c.user().id.clone(),
            display_name: c.user().display_name.clone(),
            can_write,
            typer: crate::service::subshells::Typer::of(&c),
            minter: grant.minter,
        })
    }

    /// Spends attach token `token` for the whole-user live feed: only an unbound token minted by
    /// a browser session opens it (403 `ATTACH_TOKEN_BOUND` for a token bound to a pane).
    pub async fn redeem_feed_token(&self, token: &str) -> Result<FeedGrant, ApiError> {
        let grant = self.spend_token(token).await?;
        if grant.subshell_id.is_some() || !matches!(grant.minter, Minter::Session(_)) {
            return Err(ApiError::new(
                403,
                "ATTACH_TOKEN_BOUND",
                "the live feed takes an unbound token minted by a browser session",
            ));
        }
        let c = self.caller_of(&grant.minter).await?;
        Ok(FeedGrant {
            user_id: c.user().id.clone(),
            admin: c.user().role == "admin",
            minter: grant.minter,
        })
    }

    /// Whether an open feed's session still holds.
    pub async fn feed_still_valid(&self, g: &FeedGrant) -> Result<(), (u16, String)> {
        self.terminals.still_serving()?;
        let c = self
            .caller_of(&g.minter)
            .await
            .map_err(|_| (4403, "the session that opened this feed ended".to_owned()))?;
        // The feed's audience was fixed when it opened: an administrator sees every subshell.
        // A role that changed since closes it, and the client lists again and reopens it with
        // the audience the account has now.
        if (c.user().role == "admin") != g.admin {
            return Err((
                4403,
                "the account's role changed; list again and reopen".to_owned(),
            ));
        }
        Ok(())
    }

    /// Whether an open viewer's grant still holds: its minter is valid and it still reaches the
    /// pane (a revoked share, a deleted subshell, a disabled key end it). `Err` carries the
    /// close code and reason.
    pub async fn grant_still_valid(&self, g: &AttachGrant) -> Result<bool, (u16, String)> {
        self.terminals.still_serving()?;
        let c = self.caller_of(&g.minter).await.map_err(|_| {
            (
                4403,
                "the credential that minted this token is no longer valid".into(),
            )
        })?;
        match self.reach_for_attach(&c, &g.row.id).await {
            Ok((_, w)) => Ok(w),
            Err(e) if e.status == 404 => match self.store.subshell(&g.row.id).await {
                Ok(None) => Err((4404, "the subshell was deleted".into())),
                _ => Err((4403, "access to this subshell ended".into())),
            },
            Err(_) => Err((4403, "access to this subshell ended".into())),
        }
    }
}
