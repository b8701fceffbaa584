//! Node enrollment with a setup key.

use super::backoff::ENROLL_ADDRESS;
use super::credentials::setup_key_status;
use std::sync::Arc;

use super::backoff::Backoff;
use super::{plane_public_material, too_many};
use crate::api::credentials::SetupKeyStatus;
use crate::api::enrollment::{EnrollRequest, Enrolled};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::keys::PlaneSecrets;
use crate::secret::{self, BEARER_PREFIX, SETUP_KEY_PREFIX};
use crate::store::Store;
use crate::store::{Consume, NewNode};
use termplane_proto::limits::NODE_NAME_MAX_CHARS;

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

/// `wanted`, or when one of `taken` is already called that, `wanted-2`, `wanted-3`… — the
/// first number free, the name shortened as needed to keep within the node name's length.
fn unique_name(wanted: &str, taken: &[String]) -> String {
    let free = |candidate: &str| !taken.iter().any(|t| t == candidate);
    if free(wanted) {
        return wanted.to_owned();
    }
    // One of 2..=taken.len()+1 is always free.
    (2..=taken.len() + 1)
        .map(|n| {
            let suffix = format!("-{n}");
            let room = NODE_NAME_MAX_CHARS.saturating_sub(suffix.chars().count());
            let stem: String = wanted.chars().take(room).collect();
            format!("{}{suffix}", stem.trim_end())
        })
        .find(|c| free(c))
        .unwrap_or_else(|| wanted.to_owned())
}

/// The enrollment domain: a node's first contact with a setup key, counted against its address.
/// It holds the store, the clock, the enrollment backoff, the plane's key material and the
/// node socket's URL it tells new nodes.
pub struct Enrollment {
    store: Store,
    clock: Arc<dyn Clock>,
    backoff: Backoff,
    secrets: Arc<PlaneSecrets>,
    ws_url: String,
}

impl Enrollment {
    /// The service over `store`.
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        secrets: Arc<PlaneSecrets>,
        ws_url: String,
    ) -> Self {
        Self {
            store,
            clock,
            backoff: Backoff::default(),
            secrets,
            ws_url,
        }
    }

    /// `POST /api/nodes/enroll` (the setup key in the body is the credential).
    ///
    /// Order: the body is already parsed and its fields validated; the setup key is looked up
    /// (peeked) for a specific answer per state — an unknown key counts against the caller's
    /// address and, once that address is backing off, is answered 429; a key the plane knows is
    /// never held up by the address's count. Then the checks JSON Schema cannot state: the
    /// identity JWK must be a point of P-256, and the X25519 link key must not be all-zero or of
    /// low order (400 naming the field; the key is not spent). Last, the single-winner consume,
    /// in the same transaction as the node row.
    pub async fn enroll(&self, peer_ip: &str, req: EnrollRequest) -> Result<Enrolled, ApiError> {
        let now = self.clock.now_ms();
        let address_key = format!("enroll:{peer_ip}");
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
            self.backoff
                .check(&address_key, ENROLL_ADDRESS, now)
                .map_err(too_many)?;
            self.backoff.fail(&address_key, ENROLL_ADDRESS, now);
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

        // A name another node of the same owner has already gets a number (`host-2`): two
        // machines of one host name would otherwise be told apart by their ids alone.
        let taken: Vec<String> = self
            .store
            .nodes(Some(&k.owner_user_id))
            .await?
            .into_iter()
            .filter(|n| n.owner_user_id.as_deref() == Some(k.owner_user_id.as_str()))
            .map(|n| n.name)
            .collect();
        let name = unique_name(req.name.as_str(), &taken);

        // Consume: one winner, in the same transaction as the node row.
        let node_key = secret::new_token(BEARER_PREFIX)?;
        let jwk_text =
            serde_json::to_string(&req.identity_jwk).map_err(|_| ApiError::internal())?;
        let new = NewNode {
            name,
            os: req.os.as_str().to_owned(),
            arch: req.arch.into_string(),
            hostname: req.hostname.into_string(),
            agent_version: req.agent_version.into_string(),
            identity_jwk: jwk_text,
            encrypt_public_key: req.encrypt_public_key.map(|k| k.to_b64()),
            node_key_digest: secret::digest(&node_key),
            ws_url: self.ws_url.clone(),
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
                    name: new.name,
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

#[cfg(test)]
mod tests {
    use super::unique_name;

    #[test]
    fn a_taken_name_gets_the_first_free_number_within_the_length() {
        let taken = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
        assert_eq!(unique_name("web", &taken(&[])), "web");
        assert_eq!(unique_name("web", &taken(&["db"])), "web");
        assert_eq!(unique_name("web", &taken(&["web"])), "web-2");
        assert_eq!(unique_name("web", &taken(&["web", "web-2"])), "web-3");
        assert_eq!(unique_name("web", &taken(&["web", "web-3"])), "web-2");
        let long = "h".repeat(64);
        let renamed = unique_name(&long, &taken(&[&long]));
        assert_eq!(renamed.chars().count(), 64);
        assert_eq!(renamed, format!("{}-2", "h".repeat(62)));
    }
}
