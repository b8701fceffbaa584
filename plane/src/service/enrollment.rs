//! Node enrollment with a setup key.

use super::backoff::ENROLL_ADDRESS;
use super::credentials::setup_key_status;
use super::{RequestMeta, Service, plane_public_material, too_many};
use crate::api::credentials::SetupKeyStatus;
use crate::api::enrollment::{EnrollRequest, Enrolled};
use crate::error::ApiError;
use crate::secret::{self, BEARER_PREFIX, SETUP_KEY_PREFIX};
use crate::store::{Consume, NewNode};

fn state_error(status: SetupKeyStatus) -> Option<ApiError> {
    match status {
        SetupKeyStatus::Used => Some(ApiError::new(
            409,
            "SETUP_KEY_SPENT",
            "the setup key was already used",
        )),
        SetupKeyStatus::Revoked => Some(ApiError::new(
            401,
            "SETUP_KEY_REVOKED",
            "the setup key was revoked",
        )),
        SetupKeyStatus::Expired => Some(ApiError::new(
            401,
            "SETUP_KEY_EXPIRED",
            "the setup key expired",
        )),
        SetupKeyStatus::Active => None,
    }
}

impl Service {
    /// `POST /api/nodes/enroll` (the setup key in the body is the credential).
    ///
    /// Order: the body is already parsed and its fields validated; the setup key is looked up
    /// (peeked) for a specific answer per state — an unknown key counts against the caller's
    /// address and, once that address is backing off, is answered 429; a key the plane knows is
    /// never held up by the address's count. Then the checks JSON Schema cannot state: the
    /// identity JWK must be a point of P-256, and the X25519 link key must not be all-zero or of
    /// low order (400 naming the field; the key is not spent). Last, the single-winner consume,
    /// in the same transaction as the node row.
    pub async fn enroll(
        &self,
        meta: &RequestMeta,
        req: EnrollRequest,
    ) -> Result<Enrolled, ApiError> {
        let now = self.now();
        let address_key = format!("enroll:{}", meta.peer_ip);
        let invalid = || ApiError::new(401, "SETUP_KEY_INVALID", "the setup key is not valid");

        // Peek: a specific answer for each state of the key.
        let text = req.setup_key.as_str();
        let digest = secret::digest(text);
        let known = if secret::well_formed(text, SETUP_KEY_PREFIX) {
            self.store
                .setup_key_by_digest(&digest)
                .await?
                .filter(|k| secret::ct_eq(&k.digest, &digest))
        } else {
            None
        };
        let Some(k) = known else {
            self.enroll_backoff
                .check(&address_key, ENROLL_ADDRESS, now)
                .map_err(too_many)?;
            self.enroll_backoff.fail(&address_key, ENROLL_ADDRESS, now);
            return Err(invalid());
        };
        if let Some(e) = state_error(setup_key_status(&k, now)) {
            return Err(e);
        }

        if !req.identity_jwk.is_on_curve() {
            return Err(ApiError::validation(
                "identityJwk",
                "`identityJwk` must be a point of P-256",
            ));
        }
        if let Some(key) = &req.encrypt_public_key
            && termplane_machines::kx::is_low_order(&termplane_proto::key::Key32(key.0))
        {
            return Err(ApiError::validation(
                "encryptPublicKey",
                "`encryptPublicKey` is all-zero or of low order: it cannot key a link",
            ));
        }

        // Consume: one winner, in the same transaction as the node row.
        let node_key = secret::new_token(BEARER_PREFIX)?;
        let jwk_text =
            serde_json::to_string(&req.identity_jwk).map_err(|_| ApiError::internal())?;
        let new = NewNode {
            name: req.name.into_string(),
            os: req.os.as_str().to_owned(),
            arch: req.arch.into_string(),
            hostname: req.hostname.into_string(),
            agent_version: req.agent_version.into_string(),
            identity_jwk: jwk_text,
            encrypt_public_key: req.encrypt_public_key.map(|k| k.to_b64()),
            node_key_digest: secret::digest(&node_key),
            ws_url: self.settings.ws_url(),
        };
        match self
            .store
            .enroll(&k.id, &k.owner_user_id, &new, now)
            .await?
        {
            Consume::Enrolled(node_id) => {
                let (jwk, control_key) = plane_public_material(&self.secrets)?;
                Ok(Enrolled {
                    node_id,
                    node_key,
                    signing_public_jwk: jwk,
                    control_encrypt_public_key: control_key,
                    ws_url: new.ws_url,
                })
            }
            Consume::Lost => {
                let status = match self.store.setup_key_by_id(&k.id).await? {
                    Some(k) => setup_key_status(&k, now),
                    None => SetupKeyStatus::Used,
                };
                Err(state_error(status).unwrap_or_else(|| {
                    ApiError::new(409, "SETUP_KEY_SPENT", "the setup key was already used")
                }))
            }
        }
    }
}
