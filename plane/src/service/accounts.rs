//! First run, settings reads, sign-in and sessions, accounts.

use super::backoff::{ACCOUNT, ADDRESS, PAIR};
use super::{Caller, RequestMeta, SESSION_LIFETIME_MS, Service, passwords, too_many, user_view};
use crate::api::accounts::{
    ChangePasswordRequest, CreateUserRequest, InstanceSettings, InstanceSettingsUpdate,
    PublicSettings, ResetPasswordRequest, Role, SetupRequest, SetupStatus, SignInRequest,
    TrustedOrigins, TrustedOriginsUpdate, UpdateUserRequest, User, Via, Whoami,
};
use crate::error::ApiError;
use crate::secret;
use crate::store::{EndSessions, UserChange};

impl Service {
    // ----- setup and settings -----

    /// `GET /api/setup/status`.
    pub async fn setup_status(&self) -> Result<SetupStatus, ApiError> {
        Ok(SetupStatus {
            setup_done: self.store.setup_done().await?,
        })
    }

    /// `POST /api/setup`: the first (admin) account.
    pub async fn setup(&self, req: SetupRequest) -> Result<User, ApiError> {
        let done = || {
            ApiError::new(
                409,
                "SETUP_ALREADY_DONE",
                "the first account already exists",
            )
        };
        if self.store.setup_done().await? {
            return Err(done());
        }
        let password = req.password.into_string();
        let hash = passwords::hash(password).await?;
        match self
            .store
            .create_first_admin(
                req.email.as_str(),
                req.display_name.as_str(),
                &hash,
                req.instance_name.as_ref().map(|n| n.as_str()),
                self.now(),
            )
            .await?
        {
            Some(u) => Ok(user_view(&u)),
            None => Err(done()),
        }
    }

    /// `GET /api/settings/instance`.
    pub async fn instance_settings(&self) -> Result<InstanceSettings, ApiError> {
        Ok(InstanceSettings {
            display_name: self.store.display_name().await?,
        })
    }

    /// `PUT /api/settings/instance` (cookie-session admin): renames the instance.
    pub async fn rename_instance(
        &self,
        admin: &Caller,
        req: InstanceSettingsUpdate,
    ) -> Result<InstanceSettings, ApiError> {
        self.store
            .set_display_name(req.display_name.as_str(), &admin.user().id, self.now())
            .await?;
        self.instance_settings().await
    }

    /// `GET /api/settings/trusted-origins` (admin session).
    pub async fn trusted_origin_settings(&self) -> Result<TrustedOrigins, ApiError> {
        Ok(self.origin_view())
    }

    fn origin_view(&self) -> TrustedOrigins {
        TrustedOrigins {
            configured: self.settings.trusted_origins(),
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
        let known = self.known_good.contains(&email, &address, now);
        let mut keys = vec![(pair_key.as_str(), PAIR)];
        if !known {
            keys.push((account_key.as_str(), ACCOUNT));
            keys.push((address_key.as_str(), ADDRESS));
        }
        self.sign_in_backoff.reserve(&keys, now).map_err(too_many)?;
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
                self.metrics().sign_in_failed("password");
                tracing::info!(ip = %address, "sign-in refused");
                return Err(ApiError::new(
                    401,
                    "INVALID_CREDENTIALS",
                    "email or password is wrong",
                ));
            }
        };
        self.sign_in_backoff.clear(&pair_key);
        if !known {
            self.sign_in_backoff.refund(&account_key, ACCOUNT);
            self.sign_in_backoff.refund(&address_key, ADDRESS);
        }
        self.known_good.insert(&email, &address, now);
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
            self.revoke(
                format!("session:{session_digest}"),
                Box::new(move |svc| {
                    let digest = digest.clone();
                    Box::pin(async move {
                        svc.store
                            .delete_session(&digest)
                            .await
                            .map_err(ApiError::from)
                    })
                }),
            )
            .await?;
            // The session's open terminals and feed close now, not at their next check.
            self.access_changed();
        }
        Ok(())
    }

    /// `GET /api/auth/session`: the signed-in account.
    pub async fn whoami(&self, c: &Caller) -> Result<Whoami, ApiError> {
        let u = user_view(c.user());
        Ok(Whoami {
            id: u.id,
            email: u.email,
            display_name: u.display_name,
            role: u.role,
            disabled: u.disabled,
            is_admin: c.is_admin_session(),
            via: match c {
                Caller::Session { .. } => Via::Session,
                Caller::SystemKey { .. } => Via::SystemKey,
                Caller::Pane { .. } => Via::Pane,
            },
        })
    }

    // ----- users -----

    /// `GET /api/users`.
    pub async fn users(&self) -> Result<Vec<User>, ApiError> {
        // An instance-wide read: open to any valid credential, a pane's token included.
        Ok(self.store.users().await?.iter().map(user_view).collect())
    }

    /// `POST /api/users`.
    pub async fn create_user(
        &self,
        admin: &Caller,
        req: CreateUserRequest,
    ) -> Result<User, ApiError> {
        let role = Role::from(req.role);
        let password = req.password.into_string();
        let hash = passwords::hash(password).await?;
        match self
            .store
            .create_user(
                &admin.user().id,
                req.email.as_str(),
                req.display_name.as_str(),
                role.as_str(),
                &hash,
                self.now(),
            )
            .await?
        {
            Some(u) => Ok(user_view(&u)),
            None => Err(ApiError::new(
                409,
                "EMAIL_TAKEN",
                "an account with that email exists",
            )),
        }
    }

    /// `POST /api/users/:id/disable` and `…/enable`. Disabling ends the account's sessions.
    pub async fn set_user_disabled(
        &self,
        admin: &Caller,
        id: &str,
        disabled: bool,
    ) -> Result<User, ApiError> {
        if disabled && admin.user().id == id {
            return Err(ApiError::new(
                409,
                "CANNOT_DISABLE_SELF",
                "an administrator cannot disable their own account",
            ));
        }
        match self
            .store
            .set_user_disabled(&admin.user().id, id, disabled, self.now())
            .await?
        {
            UserChange::Done(u) => {
                if disabled {
                    self.access_changed();
                }
                Ok(user_view(&u))
            }
            UserChange::NotFound => Err(ApiError::not_found("account")),
            UserChange::LastAdmin => Err(last_admin()),
            UserChange::LiveSubshells(_) => Err(ApiError::internal()),
        }
    }

    /// `PATCH /api/users/{id}` (admin session): role and display name.
    pub async fn update_user(
        &self,
        admin: &Caller,
        id: &str,
        req: UpdateUserRequest,
    ) -> Result<User, ApiError> {
        let role = req.role.map(|r| Role::from(r).as_str());
        match self
            .store
            .update_user(
                &admin.user().id,
                id,
                role,
                req.display_name.as_ref().map(|d| d.as_str()),
                self.now(),
            )
            .await?
        {
            UserChange::Done(u) => {
                // Open terminals and feeds re-check their grants now (a demotion ends typing
                // at once).
                self.access_changed();
                Ok(user_view(&u))
            }
            UserChange::NotFound => Err(ApiError::not_found("account")),
            UserChange::LastAdmin => Err(last_admin()),
            UserChange::LiveSubshells(_) => Err(ApiError::internal()),
        }
    }

    /// `DELETE /api/users/{id}` (admin session).
    pub async fn delete_user(&self, admin: &Caller, id: &str) -> Result<(), ApiError> {
        if admin.user().id == id {
            return Err(ApiError::new(
                409,
                "CANNOT_DISABLE_SELF",
                "an administrator cannot delete their own account",
            ));
        }
        let kept = self.store.files_of(id).await?;
        match self
            .store
            .delete_user(&admin.user().id, id, self.now())
            .await?
        {
            UserChange::Done(_) => {
                self.access_changed();
                // Its kept files went with the account: their bytes go too, not at the next
                // start.
                self.drop_unused_blobs(&kept).await
            }
            UserChange::NotFound => Err(ApiError::not_found("account")),
            UserChange::LastAdmin => Err(last_admin()),
            UserChange::LiveSubshells(live) => Err(super::live_subshells_refusal(
                "USER_HAS_LIVE_SUBSHELLS",
                format!(
                    "the account has {} live subshell(s): terminate them first",
                    live.len()
                ),
                &live,
            )),
        }
    }

    /// `POST /api/auth/password` (browser session): the account's own password, checked
    /// against the current one (wrong guesses count toward the sign-in backoff). The other
    /// sessions end unless `signOutOthers` is false; this one stays.
    pub async fn change_password(
        &self,
        c: &Caller,
        req: ChangePasswordRequest,
    ) -> Result<(), ApiError> {
        let Caller::Session {
            user,
            session_digest,
        } = c
        else {
            return Err(ApiError::internal());
        };
        let now = self.now();
        let key = format!("password-change:{}", user.id);
        self.sign_in_backoff
            .reserve(&[(key.as_str(), PAIR)], now)
            .map_err(too_many)?;
        let phc = user
            .password_hash
            .clone()
            .unwrap_or_else(|| self.dummy_hash.clone());
        let current = req.current_password.into_string();
        if !passwords::verify(current, phc).await {
            return Err(ApiError::new(
                403,
                "CURRENT_PASSWORD_WRONG",
                "the current password is wrong",
            ));
        }
        self.sign_in_backoff.clear(&key);
        let password = req.new_password.into_string();
        let hash = passwords::hash(password).await?;
        let end = if req.sign_out_others == Some(false) {
            EndSessions::None
        } else {
            EndSessions::AllBut(session_digest)
        };
        self.store
            .set_password(&user.id, &user.id, &hash, end, now)
            .await?;
        self.access_changed();
        Ok(())
    }

    /// `POST /api/users/{id}/password` (admin session): sets another account's password; every
    /// session of that account ends.
    pub async fn reset_password(
        &self,
        admin: &Caller,
        id: &str,
        req: ResetPasswordRequest,
    ) -> Result<(), ApiError> {
        if admin.user().id == id {
            return Err(ApiError::new(
                409,
                "CANNOT_DISABLE_SELF",
                "change your own password with POST /api/auth/password (it asks for the current one)",
            ));
        }
        let password = req.new_password.into_string();
        let hash = passwords::hash(password).await?;
        if self
            .store
            .set_password(&admin.user().id, id, &hash, EndSessions::All, self.now())
            .await?
        {
            self.access_changed();
            Ok(())
        } else {
            Err(ApiError::not_found("account"))
        }
    }
}

fn last_admin() -> ApiError {
    ApiError::new(
        409,
        "LAST_ADMIN",
        "this is the last enabled administrator: make another account an administrator first",
    )
}
