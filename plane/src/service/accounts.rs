//! First run, settings reads, sign-in and sessions, accounts.

#[allow(unused_imports)]
use super::*;

impl Service {
    // ----- setup and settings -----

    /// `GET /api/setup/status`.
    pub async fn setup_status(&self) -> Result<Value, ApiError> {
        Ok(json!({ "setupDone": self.store.setup_done().await? }))
    }

    /// `POST /api/setup`: the first (admin) account.
    pub async fn setup(&self, body: &Value) -> Result<Value, ApiError> {
        let obj = object(body)?;
        only_fields(obj, &["email", "displayName", "password"])?;
        let email = email_field(obj)?;
        let display = string_field(obj, "displayName", 1, 100)?.to_owned();
        let password = string_field(obj, "password", 8, 1024)?.to_owned();
        if self.store.setup_done().await? {
            return Err(ApiError::new(
                409,
                "SETUP_ALREADY_DONE",
                "the first account already exists",
            ));
        }
        let hash = smol::unblock(move || hash_password(&password)).await?;
        match self
            .store
            .create_first_admin(&email, &display, &hash, self.now())
            .await?
        {
            Some(u) => Ok(user_json(&u)),
            None => Err(ApiError::new(
                409,
                "SETUP_ALREADY_DONE",
                "the first account already exists",
            )),
        }
    }

    /// `GET /api/settings/instance`.
    pub async fn instance_settings(&self) -> Result<Value, ApiError> {
        Ok(json!({ "displayName": self.store.display_name().await? }))
    }

    /// `GET /api/settings/public`.
    pub async fn public_settings(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        self.caller(meta).await?;
        Ok(json!({ "trustedOrigins": self.settings.trusted_origins() }))
    }

    // ----- sign-in -----

    /// `POST /api/auth/sign-in`. Returns the new session token (for the cookie) and the account.
    pub async fn sign_in(
        &self,
        meta: &RequestMeta,
        body: &Value,
    ) -> Result<(String, Value), ApiError> {
        let obj = object(body)?;
        only_fields(obj, &["email", "password"])?;
        let email = email_field(obj)?;
        let password = string_field(obj, "password", 1, 1024)?.to_owned();
        let acct_key = format!("acct:{email}");
        let ip_key = format!("ip:{}", meta.peer_ip);
        self.sign_in_backoff
            .reserve(
                &[
                    (&acct_key, ACCOUNT_FREE_FAILURES),
                    (&ip_key, IP_FREE_FAILURES),
                ],
                self.now(),
            )
            .map_err(too_many)?;
        let user = self.store.user_by_email(&email).await?;
        let phc = user
            .as_ref()
            .and_then(|u| u.password_hash.clone())
            .unwrap_or_else(|| self.dummy_hash.clone());
        let ok = smol::unblock(move || verify_password(&password, &phc)).await;
        let user = match user {
            Some(u) if ok && !u.disabled && u.role != "service" => u,
            _ => {
                tracing::info!(ip = %meta.peer_ip, "sign-in refused");
                return Err(ApiError::new(
                    401,
                    "INVALID_CREDENTIALS",
                    "email or password is wrong",
                ));
            }
        };
        self.sign_in_backoff.clear(&acct_key);
        self.sign_in_backoff.refund(&ip_key, IP_FREE_FAILURES);
        let previous = match self.session_caller(meta).await? {
            Some(Caller::Session { session_digest, .. }) => Some(session_digest),
            _ => meta.session_cookie.as_deref().map(secret::digest),
        };
        let token = secret::new_token("")?;
        let now = self.now();
        self.store
            .create_session(
                &secret::digest(&token),
                &user.id,
                previous.as_deref(),
                now,
                now + SESSION_LIFETIME_MS,
            )
            .await?;
        Ok((token, user_json(&user)))
    }

    /// `POST /api/auth/sign-out`: destroys the caller's session.
    pub async fn sign_out(&self, meta: &RequestMeta) -> Result<(), ApiError> {
        if let Caller::Session { session_digest, .. } = self.session(meta).await? {
            self.store.delete_session(&session_digest).await?;
        }
        Ok(())
    }

    /// `GET /api/auth/session`: the signed-in account.
    pub async fn whoami(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        let c = self.caller(meta).await?;
        let mut u = user_json(c.user());
        if let Some(o) = u.as_object_mut() {
            o.insert("isAdmin".into(), Value::Bool(c.is_admin_session()));
            o.insert(
                "via".into(),
                Value::from(match c {
                    Caller::Session { .. } => "session",
                    Caller::SystemKey { .. } => "system_key",
                }),
            );
        }
        Ok(u)
    }

    // ----- users -----

    /// `GET /api/users`.
    pub async fn users(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        self.caller(meta).await?;
        Ok(Value::Array(
            self.store.users().await?.iter().map(user_json).collect(),
        ))
    }

    /// `POST /api/users`.
    pub async fn create_user(&self, meta: &RequestMeta, body: &Value) -> Result<Value, ApiError> {
        let admin = self.admin(meta).await?;
        let obj = object(body)?;
        only_fields(obj, &["email", "displayName", "password", "role"])?;
        let email = email_field(obj)?;
        let display = string_field(obj, "displayName", 1, 100)?.to_owned();
        let password = string_field(obj, "password", 8, 1024)?.to_owned();
        let role = match obj.get("role") {
            None => "user",
            Some(Value::String(r)) if r == "user" || r == "admin" => r.as_str(),
            Some(_) => {
                return Err(ApiError::validation(
                    "role",
                    "`role` must be `user` or `admin`",
                ));
            }
        }
        .to_owned();
        let hash = smol::unblock(move || hash_password(&password)).await?;
        match self
            .store
            .create_user(&admin.user().id, &email, &display, &role, &hash, self.now())
            .await?
        {
            Some(u) => Ok(user_json(&u)),
            None => Err(ApiError::new(
                409,
                "EMAIL_TAKEN",
                "an account with that email exists",
            )),
        }
    }

    /// `POST /api/users/:id/disable` and `…/enable`.
    pub async fn set_user_disabled(
        &self,
        meta: &RequestMeta,
        id: &str,
        disabled: bool,
    ) -> Result<Value, ApiError> {
        let admin = self.admin(meta).await?;
        if disabled && admin.user().id == id {
            return Err(ApiError::validation(
                "id",
                "an administrator cannot disable their own account",
            ));
        }
        if !self
            .store
            .set_user_disabled(&admin.user().id, id, disabled, self.now())
            .await?
        {
            return Err(ApiError::not_found("account"));
        }
        let u = self
            .store
            .user_by_id(id)
            .await?
            .ok_or_else(|| ApiError::not_found("account"))?;
        Ok(user_json(&u))
    }
}
