//! Signing in and out, sessions, and the trusted origins the credential guard checks a
//! browser's requests against.

use super::backoff::{ACCOUNT, ADDRESS, PAIR};
use super::guard::Guard;
use super::{Caller, RequestMeta, SESSION_LIFETIME_MS, passwords, user_view};
use crate::api::accounts::{
    PublicSettings, Role, SignInRequest, TrustedOrigins, TrustedOriginsUpdate, User,
};
use crate::api::passkeys::PasskeyFinish;
use crate::error::ApiError;
use crate::secret;

impl Guard {
    // ----- sign-in -----

    /// `POST /api/auth/sign-in`. Returns the new session token (for the cookie) and the account.
    /// Failures back off as [`super::backoff`] describes; unknown and known accounts answer
    /// alike and take the same time (a dummy hash is verified for unknown ones).
    pub async fn sign_in(
        &self,
        meta: &RequestMeta,
        req: SignInRequest,
    ) -> Result<(String, User), ApiError> {
        let email = req.email.as_str().to_owned();
        let address = meta.peer_ip.clone();
        let now = self.now();
        let pair_key = format!("pair:{email}|{address}");
        let account_key = format!("account:{email}");
        let address_key = format!("address:{address}");
        let known = self.sign_in_backoff.known(&email, &address, now).await?;
        let mut keys = vec![(pair_key.as_str(), PAIR)];
        if !known {
            keys.push((account_key.as_str(), ACCOUNT));
            keys.push((address_key.as_str(), ADDRESS));
        }
        self.sign_in_backoff.reserve(&keys, now).await?;
        let user = self.store.user_by_email(&email).await?;
        let phc = user
            .as_ref()
            .and_then(|u| u.password_hash.clone())
            .unwrap_or_else(|| self.dummy_hash.clone());
        let password = req.password.into_string();
        let ok = passwords::verify(password, phc).await;
        let user = match user {
            Some(u) if ok && !u.disabled && u.role != Role::Service.as_str() => u,
            _ => {
                self.store.metrics().sign_in_failed("password");
                tracing::info!(ip = %address, "sign-in refused");
                return Err(ApiError::new(
                    401,
                    "INVALID_CREDENTIALS",
                    "email or password is wrong",
                ));
            }
        };
        self.sign_in_backoff.clear(&pair_key).await?;
        if !known {
            self.sign_in_backoff.refund(&account_key, ACCOUNT).await?;
            self.sign_in_backoff.refund(&address_key, ADDRESS).await?;
        }
        self.sign_in_backoff
            .signed_in(&email, &address, now)
            .await?;
        let token = self.open_session(meta, &user.id, now).await?;
        Ok((token, user_view(&user)))
    }

    /// A new session for `user_id` after a successful sign-in; the caller's previous session,
    /// if any, ends (the session id rotates). Returns the token for the cookie.
    pub(super) async fn open_session(
        &self,
        meta: &RequestMeta,
        user_id: &str,
        now: i64,
    ) -> Result<String, ApiError> {
        let previous = match self.session_caller(meta).await? {
            Some(Caller::Session { session_digest, .. }) => Some(session_digest),
            _ => meta.session_cookie.as_deref().map(secret::digest),
        };
        let token = secret::new_token("")?;
        self.store
            .create_session(
                &secret::digest(&token),
                user_id,
                previous.as_deref(),
                now,
                now + SESSION_LIFETIME_MS,
            )
            .await?;
        Ok(token)
    }

    /// `POST /api/auth/sign-out`: destroys the caller's session.
    pub async fn sign_out(&self, c: &Caller) -> Result<(), ApiError> {
        if let Caller::Session { session_digest, .. } = c {
            let digest = session_digest.clone();
            self.revocations
                .revoke(
                    format!("session:{session_digest}"),
                    Box::new(move |store| {
                        let digest = digest.clone();
                        Box::pin(async move {
                            store.delete_session(&digest).await.map_err(ApiError::from)
                        })
                    }),
                )
                .await?;
            // The session's open terminals and feed close now, not at their next check.
            self.access_changed.changed();
        }
        Ok(())
    }

    /// `GET /api/settings/trusted-origins` (admin session).
    pub async fn trusted_origin_settings(&self) -> Result<TrustedOrigins, ApiError> {
        Ok(self.origin_view())
    }

    fn origin_view(&self) -> TrustedOrigins {
        TrustedOrigins {
            configured: self.configured_origins.clone(),
            added: self
                .added_origins
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone(),
        }
    }

    /// `PUT /api/settings/trusted-origins` (admin session): replaces the added origins. Each
    /// must be `http(s)://host[:port]` exactly (stored in its normal form); a refusal names the
    /// entry and changes nothing.
    pub async fn set_trusted_origins(
        &self,
        admin: &Caller,
        req: TrustedOriginsUpdate,
    ) -> Result<TrustedOrigins, ApiError> {
        if req.added.len() > 32 {
            return Err(ApiError::validation("added", "at most 32 origins"));
        }
        let mut list: Vec<String> = Vec::new();
        for (i, o) in req.added.iter().enumerate() {
            let Some(n) = super::normalize_origin(o.as_str().trim_end_matches('/')) else {
                return Err(ApiError::validation(
                    &format!("added[{i}]"),
                    "must be http(s)://host[:port] with nothing after it",
                ));
            };
            if !list.contains(&n) {
                list.push(n);
            }
        }
        self.store
            .set_added_origins(&list, &admin.user().id, self.now())
            .await?;
        *self
            .added_origins
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = list;
        Ok(self.origin_view())
    }

    /// `GET /api/settings/public`.
    pub async fn public_settings(&self) -> Result<PublicSettings, ApiError> {
        Ok(PublicSettings {
            trusted_origins: self.trusted_origins(),
        })
    }

    /// `POST /api/auth/passkey/finish`: a new session (its token, for the cookie) and the
    /// account. Failures count toward the same backoff as passwords.
    pub async fn passkey_sign_in_finish(
        &self,
        meta: &RequestMeta,
        req: PasskeyFinish,
    ) -> Result<(String, User), ApiError> {
        let ceremony = self.passkeys.take_sign_in(req.ceremony_id.as_str()).await?;
        let now = self.now();
        let email = ceremony.email.clone();
        let address = meta.peer_ip.clone();
        let pair_key = format!("pair:{email}|{address}");
        let account_key = format!("account:{email}");
        let address_key = format!("address:{address}");
        let good_before = self.sign_in_backoff.known(&email, &address, now).await?;
        let mut keys = vec![(pair_key.as_str(), PAIR)];
        if !good_before {
            keys.push((account_key.as_str(), ACCOUNT));
            keys.push((address_key.as_str(), ADDRESS));
        }
        self.sign_in_backoff.reserve(&keys, now).await?;
        let user = self
            .passkeys
            .verify_sign_in(ceremony, req.credential.0, &address)
            .await?;
        self.sign_in_backoff.clear(&pair_key).await?;
        if !good_before {
            self.sign_in_backoff.refund(&account_key, ACCOUNT).await?;
            self.sign_in_backoff.refund(&address_key, ADDRESS).await?;
        }
        self.sign_in_backoff
            .signed_in(&email, &address, now)
            .await?;
        let token = self.open_session(meta, &user.id, now).await?;
        Ok((token, user_view(&user)))
    }
}
