//! Accounts: the first run, the instance's name, people's accounts and their passwords.
//!
//! Signing in and sessions are the credential guard's (`sessions.rs`): an account is what a
//! session, a system key or a pane's token resolves to.

use std::sync::Arc;

use super::backoff::{PAIR, SignInBackoff};
use super::files::Files;
use super::{Caller, passwords, user_view};
use crate::api::accounts::{
    ChangePasswordRequest, CreateUserRequest, InstanceSettings, InstanceSettingsUpdate,
    ResetPasswordRequest, Role, SetupRequest, SetupStatus, UpdateUserRequest, User, Via, Whoami,
};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::store::{EndSessions, Store, UserChange};

/// The accounts domain. It holds the store, the clock, the sign-in backoff (a wrong current
/// password counts toward it), the filler hash a missing password is checked against, the
/// signal that re-checks every open socket's grant when an account changes, and the kept
/// files (an account's go with it).
pub struct Accounts {
    store: Store,
    clock: Arc<dyn Clock>,
    sign_in_backoff: Arc<SignInBackoff>,
    dummy_hash: String,
    access_changed: Arc<super::words::AccessSignal>,
    files: Arc<Files>,
}

impl Accounts {
    /// The service over `store`.
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        sign_in_backoff: Arc<SignInBackoff>,
        dummy_hash: String,
        access_changed: Arc<super::words::AccessSignal>,
        files: Arc<Files>,
    ) -> Self {
        Self {
            store,
            clock,
            sign_in_backoff,
            dummy_hash,
            access_changed,
            files,
        }
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    // ----- setup and the instance's name -----

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
                    self.access_changed.changed();
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
                self.access_changed.changed();
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
                self.access_changed.changed();
                // Its kept files went with the account: their bytes go too, not at the next
                // start.
                self.files.drop_unused_blobs(&kept).await
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
            .await?;
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
        self.sign_in_backoff.clear(&key).await?;
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
        self.access_changed.changed();
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
            self.access_changed.changed();
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
