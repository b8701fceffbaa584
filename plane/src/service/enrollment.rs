//! Node enrollment with a setup key.

#[allow(unused_imports)]
use super::*;

impl Service {
    // ----- enrollment -----

    /// `POST /api/nodes/enroll` (the setup key in the body is the credential).
    pub async fn enroll(&self, meta: &RequestMeta, body: &Value) -> Result<Value, ApiError> {
        let now = self.now();
        let ip_key = format!("enroll-ip:{}", meta.peer_ip);
        self.enroll_backoff.check(&ip_key, now).map_err(too_many)?;
        let obj = object(body)?;
        let invalid = || ApiError::new(401, "SETUP_KEY_INVALID", "the setup key is not valid");
        let key_text = obj.get("setupKey").and_then(Value::as_str).unwrap_or("");
        if !secret::well_formed(key_text, SETUP_KEY_PREFIX) {
            self.enroll_backoff.fail(&ip_key, ENROLL_FREE_FAILURES, now);
            return Err(invalid());
        }
        only_fields(
            obj,
            &[
                "setupKey",
                "name",
                "os",
                "arch",
                "hostname",
                "agentVersion",
                "identityJwk",
                "encryptPublicKey",
            ],
        )?;
        let name =
            string_field(obj, "name", 1, termplane_proto::limits::NODE_NAME_MAX_CHARS)?.to_owned();
        let os = string_field(obj, "os", 1, 16)?;
        if !matches!(os, "linux" | "darwin" | "unknown") {
            return Err(ApiError::validation(
                "os",
                "`os` must be linux, darwin or unknown",
            ));
        }
        let arch = string_field(obj, "arch", 1, 64)?.to_owned();
        let hostname = string_field(obj, "hostname", 1, 255)?.to_owned();
        let agent_version = string_field(obj, "agentVersion", 1, 64)?.to_owned();
        let jwk = validate_jwk(obj.get("identityJwk"))?;
        let encrypt_public_key = match obj.get("encryptPublicKey") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(
                termplane_proto::key::Key32::from_b64(s)
                    .map_err(|_| {
                        ApiError::validation(
                            "encryptPublicKey",
                            "`encryptPublicKey` must be 32 bytes of unpadded base64url",
                        )
                    })?
                    .to_b64(),
            ),
            Some(_) => {
                return Err(ApiError::validation(
                    "encryptPublicKey",
                    "`encryptPublicKey` must be a string",
                ));
            }
        };

        // Peek: a specific answer for each state of the key.
        let digest = secret::digest(key_text);
        let Some(k) = self
            .store
            .setup_key_by_digest(&digest)
            .await?
            .filter(|k| secret::ct_eq(&k.digest, &digest))
        else {
            self.enroll_backoff.fail(&ip_key, ENROLL_FREE_FAILURES, now);
            return Err(invalid());
        };
        let state_error = |status: &str| match status {
            "used" => Some(ApiError::new(
                409,
                "SETUP_KEY_SPENT",
                "the setup key was already used",
            )),
            "revoked" => Some(ApiError::new(
                401,
                "SETUP_KEY_REVOKED",
                "the setup key was revoked",
            )),
            "expired" => Some(ApiError::new(
                401,
                "SETUP_KEY_EXPIRED",
                "the setup key expired",
            )),
            _ => None,
        };
        if let Some(e) = state_error(setup_key_status(&k, now)) {
            return Err(e);
        }

        // Consume: one winner, in the same transaction as the node row.
        let node_key = secret::new_token(BEARER_PREFIX)?;
        let new = NewNode {
            name,
            os: os.to_owned(),
            arch,
            hostname,
            agent_version,
            identity_jwk: jwk.to_string(),
            encrypt_public_key,
            node_key_digest: secret::digest(&node_key),
            ws_url: self.settings.ws_url(),
        };
        match self
            .store
            .enroll(&k.id, &k.owner_user_id, &new, now)
            .await?
        {
            Consume::Enrolled(node_id) => {
                let (jwk, control_key) = plane_public_material(&self.secrets);
                Ok(json!({
                    "nodeId": node_id,
                    "nodeKey": node_key,
                    "signingPublicJwk": jwk,
                    "controlEncryptPublicKey": control_key,
                    "wsUrl": new.ws_url,
                }))
            }
            Consume::Lost => {
                let status = match self.store.setup_key_by_id(&k.id).await? {
                    Some(k) => setup_key_status(&k, now),
                    None => "used",
                };
                Err(state_error(status).unwrap_or_else(|| {
                    ApiError::new(409, "SETUP_KEY_SPENT", "the setup key was already used")
                }))
            }
        }
    }
}

fn validate_jwk(v: Option<&Value>) -> Result<Value, ApiError> {
    let field = "identityJwk";
    let bad = || {
        ApiError::validation(
            field,
            "`identityJwk` must be a P-256 public JWK { kty: EC, crv: P-256, x, y }",
        )
    };
    let obj = v.and_then(Value::as_object).ok_or_else(bad)?;
    if obj
        .keys()
        .any(|k| !matches!(k.as_str(), "kty" | "crv" | "x" | "y"))
    {
        return Err(bad());
    }
    let coord = |k: &str| {
        obj.get(k)
            .and_then(Value::as_str)
            .and_then(|s| termplane_proto::key::b64url_decode(s).ok())
            .is_some_and(|b| b.len() == 32)
    };
    if obj.get("kty").and_then(Value::as_str) != Some("EC")
        || obj.get("crv").and_then(Value::as_str) != Some("P-256")
        || !coord("x")
        || !coord("y")
    {
        return Err(bad());
    }
    Ok(json!({ "kty": "EC", "crv": "P-256", "x": obj["x"], "y": obj["y"] }))
}
