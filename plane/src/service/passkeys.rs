//! Passkeys: registering WebAuthn credentials on an account and signing in with them (the route
//! shapes are described in [`crate::api::passkeys`]).
//!
//! Verification is webauthn-rs's: the challenge is this ceremony's, the origin is the plane's
//! base URL and the relying-party id its host, user verification is required, the signature
//! checks against the stored public key, and a signature counter that does not move forward
//! refuses the sign-in (a cloned authenticator) and is logged. A ceremony's state (its
//! challenge and what it is for) waits in the database between its start and its finish
//! (`passkey_ceremonies`: the id's digest, the state as webauthn-rs serialises it, which its
//! `danger-allow-state-serialisation` feature allows and which never leaves the server), so that
//! a ceremony begun at one replica finishes at any other: at most [`MAX_CEREMONIES`] at once,
//! each for [`CEREMONY_MS`], and each finished at most once (it is deleted in the statement that
//! reads it, before its answer is verified).

use std::time::Duration;

use base64ct::{Base64UrlUnpadded, Encoding};
use sha2::{Digest, Sha256};
use webauthn_rs::prelude::{
    Passkey, PasskeyAuthentication, PasskeyRegistration, PublicKeyCredential,
    RegisterPublicKeyCredential, Url, Uuid, Webauthn, WebauthnBuilder,
};

use std::sync::Arc;

use super::{Caller, too_many};
use crate::api::accounts::Role;
use crate::api::passkeys::{
    PasskeyCeremony, PasskeyFinish, PasskeyInfo, PasskeyRegisterStart, PasskeySignInStart,
    WebAuthnJson,
};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::secret;
use crate::store::{self, AddPasskey, PasskeyRow, Store};

/// How long a ceremony may take, start to finish.
pub(crate) const CEREMONY_MS: i64 = 5 * 60 * 1000;
/// Ceremonies pending at once, in all and across every replica on the database
/// (unauthenticated starts cannot grow the table further).
pub(crate) const MAX_CEREMONIES: i64 = 4096;

/// A ceremony's server-side state, kept in the database between its start and its finish (so
/// any replica finishes it) and never sent to a client.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
enum Step {
    Register {
        user_id: String,
        name: String,
        state: PasskeyRegistration,
    },
    SignIn {
        email: String,
        /// `None` for the decoy ceremony of an unknown account or one without passkeys.
        known: Option<(String, PasskeyAuthentication)>,
    },
}

/// The passkeys domain: the verifier (absent when the base URL's host is an IP address), the
/// pending ceremonies, the store (and its metrics: a refused sign-in is counted) and the clock.
pub struct Passkeys {
    store: Store,
    clock: Arc<dyn Clock>,
    webauthn: Option<Webauthn>,
    why_not: String,
    rp_id: String,
    /// Keys the decoy credential ids of unknown accounts: derived from the plane's signing key,
    /// so every replica (and every restart) answers an unknown email with the same decoy, and
    /// comparing two answers tells nothing.
    decoy_key: [u8; 32],
}

impl Passkeys {
    /// The verifier for a plane reached at `base_url`; its decoys keyed from `signing` (the
    /// plane's signing secret, through SHA-256: the key itself is never used for anything else).
    pub(crate) fn new(
        base_url: &str,
        store: Store,
        clock: Arc<dyn Clock>,
        signing: &[u8; 32],
    ) -> Self {
        let decoy_key: [u8; 32] = Sha256::new()
            .chain_update(b"termplane passkey decoys v1\0")
            .chain_update(signing)
            .finalize()
            .into();
        let mut me = Self {
            store,
            clock,
            webauthn: None,
            why_not: String::new(),
            rp_id: String::new(),
            decoy_key,
        };
        let url = match Url::parse(base_url) {
            Ok(u) => u,
            Err(e) => {
                me.why_not = format!("the base URL {base_url} does not parse: {e}");
                return me;
            }
        };
        let host = match url.host_str() {
            Some(h)
                if h.trim_matches(['[', ']'])
                    .parse::<std::net::IpAddr>()
                    .is_err() =>
            {
                h.to_owned()
            }
            Some(_) => {
                me.why_not = format!(
                    "the plane is addressed by an IP address ({base_url}); passkeys need a host \
                     name: set APP_BASE_URL (for a plane on this machine, \
                     APP_BASE_URL=http://localhost:PORT)"
                );
                return me;
            }
            None => {
                me.why_not = format!("the base URL {base_url} has no host");
                return me;
            }
        };
        match WebauthnBuilder::new(&host, &url).map(|b| {
            b.rp_name("termplane")
                .timeout(Duration::from_millis(CEREMONY_MS.unsigned_abs()))
                .build()
        }) {
            Ok(Ok(w)) => {
                me.webauthn = Some(w);
                me.rp_id = host;
            }
            Ok(Err(e)) | Err(e) => me.why_not = format!("passkeys are off: {e}"),
        }
        me
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    fn verifier(&self) -> Result<&Webauthn, ApiError> {
        self.webauthn
            .as_ref()
            .ok_or_else(|| ApiError::new(409, "PASSKEYS_UNAVAILABLE", self.why_not.clone()))
    }

    /// Keeps a ceremony under a fresh id (its digest in the database), dropping expired ones
    /// first; 429 when [`MAX_CEREMONIES`] are under way.
    async fn hold(&self, step: Step, now: i64) -> Result<String, ApiError> {
        let id = secret::new_token("")?;
        let state = serde_json::to_string(&step).map_err(|e| {
            tracing::error!(error = %e, "a passkey ceremony's state could not be written");
            ApiError::internal()
        })?;
        let kept = self
            .store
            .put_ceremony(
                &secret::digest(&id),
                &state,
                now + CEREMONY_MS,
                now,
                MAX_CEREMONIES,
            )
            .await?;
        if !kept {
            return Err(too_many(60_000));
        }
        Ok(id)
    }

    /// Takes a ceremony out (it can be finished once, at any replica), if it has not expired.
    /// A state that does not read back (written by another version) is no ceremony.
    async fn take(&self, id: &str, now: i64) -> Result<Option<Step>, ApiError> {
        let Some((state, expires_at)) = self.store.take_ceremony(&secret::digest(id)).await? else {
            return Ok(None);
        };
        if expires_at <= now {
            return Ok(None);
        }
        Ok(serde_json::from_str(&state)
            .inspect_err(
                |e| tracing::debug!(error = %e, "a passkey ceremony's state does not read back"),
            )
            .ok())
    }

    /// The decoy request options for `email`: one credential id derived from it.
    fn decoy_options(&self, email: &str) -> Result<serde_json::Value, ApiError> {
        let mut challenge = [0u8; 32];
        getrandom::fill(&mut challenge).map_err(|_| ApiError::internal())?;
        let mut h = Sha256::new();
        h.update(self.decoy_key);
        h.update(email.as_bytes());
        let id = h.finalize();
        Ok(serde_json::json!({
            "challenge": Base64UrlUnpadded::encode_string(&challenge),
            "timeout": CEREMONY_MS,
            "rpId": self.rp_id,
            "allowCredentials": [
                { "type": "public-key", "id": Base64UrlUnpadded::encode_string(&id[..16]) }
            ],
            "userVerification": "required"
        }))
    }
}

fn ceremony_invalid() -> ApiError {
    ApiError::new(
        404,
        "PASSKEY_CEREMONY_INVALID",
        "this passkey ceremony is unknown, expired, already finished or another account's; \
         start again",
    )
}

fn rejected(why: impl std::fmt::Display) -> ApiError {
    ApiError::new(400, "PASSKEY_REJECTED", "the passkey did not verify")
        .with_metadata(serde_json::json!({ "reason": why.to_string() }))
}

fn sign_in_refused() -> ApiError {
    ApiError::new(401, "INVALID_CREDENTIALS", "the passkey sign-in failed")
}

/// The `publicKey` member of a serialised challenge response.
fn public_key_of<T: serde::Serialize>(answer: &T) -> Result<serde_json::Value, ApiError> {
    let mut v = serde_json::to_value(answer).map_err(|_| ApiError::internal())?;
    v.get_mut("publicKey")
        .map(serde_json::Value::take)
        .ok_or_else(ApiError::internal)
}

/// The stable WebAuthn user handle of an account (a digest of its id).
fn user_handle(user_id: &str) -> Uuid {
    let d = Sha256::digest(format!("termplane-user:{user_id}").as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    Uuid::from_bytes(b)
}

fn credential_id_text(p: &Passkey) -> Result<String, ApiError> {
    Ok(Base64UrlUnpadded::encode_string(p.cred_id().as_slice()))
}

fn info(r: &PasskeyRow) -> PasskeyInfo {
    PasskeyInfo {
        id: r.id.clone(),
        name: r.name.clone(),
        created_at: r.created_at,
        last_used_at: r.last_used_at,
    }
}

impl Passkeys {
    /// `GET /api/auth/passkeys`.
    pub async fn list(&self, c: &Caller) -> Result<Vec<PasskeyInfo>, ApiError> {
        let user = c.user().clone();
        Ok(self
            .store
            .passkeys_of(&user.id)
            .await?
            .iter()
            .map(info)
            .collect())
    }

    /// `POST /api/auth/passkeys/register/start`.
    pub async fn register_start(
        &self,
        c: &Caller,
        req: PasskeyRegisterStart,
    ) -> Result<PasskeyCeremony, ApiError> {
        let user = c.user().clone();
        let w = self.verifier()?;
        let held = self.store.passkeys_of(&user.id).await?;
        if held.len() >= usize::try_from(crate::store::MAX_PASSKEYS_PER_ACCOUNT).unwrap_or(20) {
            return Err(passkey_limit());
        }
        let mut exclude = Vec::new();
        for r in &held {
            if let Ok(p) = serde_json::from_str::<Passkey>(&r.passkey) {
                exclude.push(p.cred_id().clone());
            }
        }
        let (options, state) = w
            .start_passkey_registration(
                user_handle(&user.id),
                &user.email,
                &user.display_name,
                Some(exclude),
            )
            .map_err(|e| {
                tracing::error!(error = %e, "passkey registration could not start");
                ApiError::internal()
            })?;
        let public_key = public_key_of(&options)?;
        let ceremony_id = self
            .hold(
                Step::Register {
                    user_id: user.id.clone(),
                    name: req.name.into_string(),
                    state,
                },
                self.now(),
            )
            .await?;
        Ok(PasskeyCeremony {
            ceremony_id,
            public_key: WebAuthnJson(public_key),
        })
    }

    /// `POST /api/auth/passkeys/register/finish`.
    pub async fn register_finish(
        &self,
        c: &Caller,
        req: PasskeyFinish,
    ) -> Result<PasskeyInfo, ApiError> {
        let user = c.user().clone();
        let w = self.verifier()?;
        let now = self.now();
        let Some(Step::Register {
            user_id,
            name,
            state,
        }) = self.take(req.ceremony_id.as_str(), now).await?
        else {
            return Err(ceremony_invalid());
        };
        if user_id != user.id {
            return Err(ceremony_invalid());
        }
        let credential: RegisterPublicKeyCredential =
            serde_json::from_value(req.credential.0).map_err(rejected)?;
        let passkey = w
            .finish_passkey_registration(&credential, &state)
            .map_err(rejected)?;
        let row = PasskeyRow {
            id: secret::new_id()?,
            user_id: user.id.clone(),
            name,
            credential_id: credential_id_text(&passkey)?,
            passkey: serde_json::to_string(&passkey).map_err(|_| ApiError::internal())?,
            created_at: now,
            last_used_at: None,
        };
        match self.store.add_passkey(&row).await? {
            AddPasskey::Added => Ok(info(&row)),
            AddPasskey::Exists => Err(ApiError::new(
                409,
                "PASSKEY_EXISTS",
                "this authenticator's passkey is registered already",
            )),
            AddPasskey::Limit => Err(passkey_limit()),
        }
    }

    /// `DELETE /api/auth/passkeys/{id}`.
    pub async fn delete(&self, c: &Caller, id: &str) -> Result<(), ApiError> {
        let user = c.user().clone();
        if self.store.delete_passkey(id, &user.id, self.now()).await? {
            Ok(())
        } else {
            Err(ApiError::not_found("passkey"))
        }
    }

    /// `POST /api/auth/passkey/start`: request options for the account's passkeys, or a decoy
    /// of the same shape.
    pub async fn sign_in_start(
        &self,
        req: PasskeySignInStart,
    ) -> Result<PasskeyCeremony, ApiError> {
        let w = self.verifier()?;
        let email = req.email.as_str().to_owned();
        let user = self
            .store
            .user_by_email(&email)
            .await?
            .filter(|u| !u.disabled && u.role != Role::Service.as_str());
        let mut keys = Vec::new();
        if let Some(u) = &user {
            for r in self.store.passkeys_of(&u.id).await? {
                if let Ok(p) = serde_json::from_str::<Passkey>(&r.passkey) {
                    keys.push(p);
                }
            }
        }
        let (public_key, known) = match (&user, keys.is_empty()) {
            (Some(u), false) => {
                let (options, state) = w.start_passkey_authentication(&keys).map_err(|e| {
                    tracing::error!(error = %e, "passkey sign-in could not start");
                    ApiError::internal()
                })?;
                (public_key_of(&options)?, Some((u.id.clone(), state)))
            }
            _ => (self.decoy_options(&email)?, None),
        };
        let ceremony_id = self.hold(Step::SignIn { email, known }, self.now()).await?;
        Ok(PasskeyCeremony {
            ceremony_id,
            public_key: WebAuthnJson(public_key),
        })
    }

    /// Takes the sign-in ceremony `id` out (it can be finished once): 404 when it is unknown,
    /// expired, finished or a registration.
    pub(super) async fn take_sign_in(&self, id: &str) -> Result<SignInCeremony, ApiError> {
        self.verifier()?;
        match self.take(id, self.now()).await? {
            Some(Step::SignIn { email, known }) => Ok(SignInCeremony { email, known }),
            _ => Err(ceremony_invalid()),
        }
    }

    /// Verifies a sign-in ceremony's answer: the account it signs in (enabled, a person's),
    /// with the use recorded on the passkey that signed (its counter and backup state), or 401
    /// `INVALID_CREDENTIALS` — counted and logged with the `address` it came from.
    pub(super) async fn verify_sign_in(
        &self,
        ceremony: SignInCeremony,
        credential: serde_json::Value,
        address: &str,
    ) -> Result<store::User, ApiError> {
        let w = self.verifier()?;
        let now = self.now();
        let Some((user_id, state)) = ceremony.known else {
            self.store.metrics().sign_in_failed("passkey");
            tracing::info!(ip = %address, "passkey sign-in refused");
            return Err(sign_in_refused());
        };
        let verified = serde_json::from_value::<PublicKeyCredential>(credential)
            .map_err(|e| e.to_string())
            .and_then(|c| {
                w.finish_passkey_authentication(&c, &state)
                    .map_err(|e| e.to_string())
            });
        let result = match verified {
            Ok(r) => r,
            Err(why) => {
                self.store.metrics().sign_in_failed("passkey");
                tracing::info!(ip = %address, reason = %why, "passkey sign-in refused");
                return Err(sign_in_refused());
            }
        };
        let user = match self.store.user_by_id(&user_id).await? {
            Some(u) if !u.disabled && u.role != Role::Service.as_str() => u,
            _ => return Err(sign_in_refused()),
        };
        // Record the use (counter, backup state) on the passkey that signed.
        for r in self.store.passkeys_of(&user.id).await? {
            let Ok(mut p) = serde_json::from_str::<Passkey>(&r.passkey) else {
                continue;
            };
            if p.cred_id() == result.cred_id() {
                p.update_credential(&result);
                let text = serde_json::to_string(&p).map_err(|_| ApiError::internal())?;
                self.store.passkey_used(&r.id, &text, now).await?;
            }
        }
        Ok(user)
    }
}

/// A sign-in ceremony taken out of the table, to be verified.
pub(super) struct SignInCeremony {
    /// The account it was started for.
    pub(super) email: String,
    /// `None` for the decoy ceremony of an unknown account or one without passkeys.
    known: Option<(String, PasskeyAuthentication)>,
}

fn passkey_limit() -> ApiError {
    ApiError::new(
        409,
        "PASSKEY_LIMIT",
        format!(
            "an account holds at most {} passkeys; remove one first",
            crate::store::MAX_PASSKEYS_PER_ACCOUNT
        ),
    )
}
