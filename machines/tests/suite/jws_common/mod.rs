//! Shared helpers of the JWS and replay-guard tests: fixed keys, claim builders, token surgery
//! and a simulated node that counts executions.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use base64ct::{Base64UrlUnpadded, Encoding as _};
use p256::ecdsa::Signature;
use serde_json::json;
use termplane_machines::jws::{Es256Signer, Es256Verifier, VerifyError};
use termplane_machines::replay::{Admission, JtiCache, ReplayRecord, SeqGate, admit};
use termplane_machines::time::UnixSecs;
use termplane_proto::{COMMAND_ISSUER, Claims, CommandResult, node_audience};

/// The node every test verifies for.
pub const NODE: &str = "node-7f3a";

/// A fixed wall time (2026-01-01T00:00:00Z).
pub const T0: i64 = 1_767_225_600;

/// The plane's signer (fixed scalar).
pub fn plane() -> Es256Signer {
    Es256Signer::from_secret_bytes(&[0x42; 32]).unwrap()
}

/// Another key, not trusted by the node.
pub fn attacker() -> Es256Signer {
    Es256Signer::from_secret_bytes(&[0x17; 32]).unwrap()
}

/// The node's verifier trusting [`plane`].
pub fn verifier() -> Es256Verifier {
    Es256Verifier::new(&plane().public_jwk(), NODE).unwrap()
}

/// Well-formed claims issued at `iat` with a 30-second lifetime.
pub fn claims(jti: &str, iat: i64, seq: u64) -> Claims {
    Claims {
        iss: COMMAND_ISSUER.into(),
        aud: node_audience(NODE),
        jti: jti.into(),
        iat,
        exp: iat + 30,
        seq,
        cmd: json!({"type": "ping"}),
    }
}

/// As [`claims`] with another command.
pub fn claims_with_cmd(jti: &str, iat: i64, seq: u64, cmd: serde_json::Value) -> Claims {
    Claims {
        cmd,
        ..claims(jti, iat, seq)
    }
}

/// The claims as a JSON object, for hand-edited payloads.
pub fn claims_value(jti: &str, iat: i64, seq: u64) -> serde_json::Value {
    serde_json::to_value(claims(jti, iat, seq)).unwrap()
}

/// Our header as a JSON value.
pub fn header_value() -> serde_json::Value {
    json!({"alg": "ES256", "typ": "termplane-command+jwt"})
}

/// Signs a JSON header and a JSON payload with the plane's key.
pub fn sign_values(header: &serde_json::Value, payload: &serde_json::Value) -> String {
    plane().sign_raw(
        header.to_string().as_bytes(),
        payload.to_string().as_bytes(),
    )
}

/// Signs raw header and payload text with the plane's key.
pub fn sign_text(header: &str, payload: &str) -> String {
    plane().sign_raw(header.as_bytes(), payload.as_bytes())
}

/// The three segments of a compact token.
pub fn segments(compact: &str) -> (String, String, String) {
    let mut it = compact.split('.');
    let h = it.next().unwrap().to_owned();
    let p = it.next().unwrap().to_owned();
    let s = it.next().unwrap().to_owned();
    assert!(it.next().is_none());
    (h, p, s)
}

/// The decoded signature of a compact token.
pub fn signature_of(compact: &str) -> Signature {
    let (_, _, s) = segments(compact);
    Signature::from_slice(&Base64UrlUnpadded::decode_vec(&s).unwrap()).unwrap()
}

/// Whether the token's `s` is in the upper half of the group order.
pub fn is_high_s(compact: &str) -> bool {
    let sig = signature_of(compact);
    sig.normalize_s() != sig
}

/// The same token with `s` replaced by `n - s` (still a valid signature).
pub fn malleate(compact: &str) -> String {
    let (h, p, _) = segments(compact);
    let sig = signature_of(compact);
    let (r, s) = sig.split_scalars();
    let twin = Signature::from_scalars(r, -s).unwrap();
    format!(
        "{h}.{p}.{}",
        Base64UrlUnpadded::encode_string(&twin.to_bytes())
    )
}

/// What the simulated node did with one frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Refused at steps (1) or (2).
    Refused(VerifyError),
    /// The replay guard's decision (after executing, for `Execute`).
    Admitted(Admission),
}

/// A node process: its verifier, its jti cache and its executor, with a side-effect counter.
pub struct Node {
    pub verifier: Es256Verifier,
    pub cache: JtiCache,
    pub gate: SeqGate,
    /// Executions per jti (the side effect the guard must bound to one).
    pub executions: std::collections::BTreeMap<String, u32>,
    /// Every result event sent, in order.
    pub sent: Vec<CommandResult>,
    /// jtis executing, not answered yet.
    pub running: Vec<String>,
    /// What the runtime persisted before each execution (handed to the next process).
    pub persisted: Vec<ReplayRecord>,
}

impl Node {
    /// A node process started at `start` with the production capacity.
    pub fn start(start: i64) -> Self {
        Self::with_capacity(start, termplane_proto::limits::JTI_CACHE_CAPACITY)
    }

    /// A node process with a small cache.
    pub fn with_capacity(start: i64, capacity: usize) -> Self {
        Self {
            verifier: verifier(),
            cache: JtiCache::new(capacity, UnixSecs(start)),
            gate: SeqGate::new(),
            executions: Default::default(),
            sent: Vec::new(),
            running: Vec::new(),
            persisted: Vec::new(),
        }
    }

    /// The next process of this node, started at `start`: a new cache that carries over what
    /// this one persisted, a new gate, no executions.
    pub fn restart(&self, start: i64) -> Self {
        let mut next = Self::start(start);
        next.cache.carry_over(self.persisted.iter().cloned());
        next.persisted.clone_from(&self.persisted);
        next
    }

    /// A new connection: new seq gate, same cache.
    pub fn reconnect(&mut self) {
        self.gate = SeqGate::new();
    }

    /// Total executions.
    pub fn total_executions(&self) -> u32 {
        self.executions.values().sum()
    }

    /// Delivers a frame and lets an execution finish at once.
    pub fn deliver(&mut self, compact: &str, now: i64) -> Outcome {
        let out = self.deliver_deferred(compact, now);
        if let Outcome::Admitted(Admission::Execute) = &out {
            let jti = self.running.pop().unwrap();
            self.finish(&jti);
        }
        out
    }

    /// Delivers a frame; an execution stays running until [`Node::finish`].
    pub fn deliver_deferred(&mut self, compact: &str, now: i64) -> Outcome {
        let verified = match self.verifier.verify(compact, UnixSecs(now)) {
            Ok(v) => v,
            Err(e) => return Outcome::Refused(e),
        };
        let admission = admit(&mut self.cache, &mut self.gate, &verified, UnixSecs(now));
        let jti = verified.claims.jti.clone();
        match &admission {
            Admission::Execute => {
                self.persisted.push(ReplayRecord::of(&verified));
                *self.executions.entry(jti.clone()).or_default() += 1;
                self.running.push(jti);
            }
            Admission::Resend(answer) => self.sent.push(answer.clone()),
            Admission::Wait => {}
            Admission::Conflict | Admission::Stale(_) | Admission::DropLink(_) => {}
        }
        Outcome::Admitted(admission)
    }

    /// Finishes a running execution: records the answer and sends it to the first copy and to
    /// every waiter.
    pub fn finish(&mut self, jti: &str) {
        self.running.retain(|j| j != jti);
        let n = self.executions.get(jti).copied().unwrap_or(0);
        let answer = CommandResult::ok(jti, Some(json!({ "execution": n })));
        let waiters = self.cache.record_answer(jti, answer.clone());
        for _ in 0..=waiters {
            self.sent.push(answer.clone());
        }
    }
}

/// The Wycheproof JWS vector file (the `shared` folder may be moved with `TERMPLANE_SHARED_DIR`).
pub fn wycheproof_jws() -> serde_json::Value {
    let path = match std::env::var_os("TERMPLANE_SHARED_DIR") {
        Some(dir) => {
            std::path::PathBuf::from(dir).join("vectors/wycheproof/json_web_signature_test.json")
        }
        None => std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/vectors/wycheproof/json_web_signature_test.json"
        )),
    };
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}
