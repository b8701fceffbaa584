//! The channel tools: `read_channel` and `post_to_channel` (`list_channels` and
//! `create_channel` are plain REST calls).
//!
//! A pane signs its entries with its own identity: a P-256 key made the first time the pane
//! posts, registered with the pane's token (so it is the pane's alone) and kept in
//! `<key dir>/<subshell id>.key` — a mode-0600 file in a mode-0700 directory on the pane's
//! host, holding `<identity id> <secret scalar, base64url>`. A restarted server reuses it; a
//! key the plane no longer knows, or revoked, is replaced by a new one.

use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::PathBuf;

use base64ct::{Base64UrlUnpadded, Encoding as _};
use serde_json::{Value, json};
use termplane_machines::channel as signed;
use termplane_machines::jws::Es256Signer;

use crate::{Plane, Server, encode, message, refused, str_arg, structured_result, tool_text};

/// How many entries `read_channel` answers without a `limit` (the plane's default page).
const DEFAULT_READ: u64 = 50;

/// How many times a post is signed again when another writer moved the head first.
const MAX_HEAD_RETRIES: usize = 8;

/// The pane's identity: its id and secret scalar.
pub(crate) struct Held {
    id: String,
    secret: [u8; 32],
}

/// Where identity keys are kept (see [`crate::Pane::key_dir`]).
pub(crate) fn key_dir(get: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |k: &str| get(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    set("TERMPLANE_IDENTITY_DIR")
        .or_else(|| set("XDG_STATE_HOME").map(|d| d.join("termplane/identities")))
        .or_else(|| set("HOME").map(|d| d.join(".local/state/termplane/identities")))
}

fn is_row_id(s: &str) -> bool {
    s.len() == 32
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl<P: Plane> Server<P> {
    fn key_file(&self) -> Option<PathBuf> {
        let dir = self.pane.key_dir.as_ref()?;
        let name: String = self
            .pane
            .subshell_id
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        (!name.is_empty()).then(|| dir.join(format!("{name}.key")))
    }

    fn load_identity(&self) -> Option<Held> {
        let text = std::fs::read_to_string(self.key_file()?).ok()?;
        let (id, secret) = text.trim().split_once(' ')?;
        let secret: [u8; 32] = Base64UrlUnpadded::decode_vec(secret)
            .ok()?
            .try_into()
            .ok()?;
        Es256Signer::from_secret_bytes(&secret).ok()?;
        is_row_id(id).then(|| Held {
            id: id.to_owned(),
            secret,
        })
    }

    fn save_identity(&self, held: &Held) -> Result<(), String> {
        let Some(path) = self.key_file() else {
            return Ok(());
        };
        if let Some(dir) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        }
        let tmp = path.with_extension("tmp");
        let _ = std::fs::remove_file(&tmp);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        writeln!(
            f,
            "{} {}",
            held.id,
            Base64UrlUnpadded::encode_string(&held.secret)
        )
        .and_then(|()| f.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// Makes and registers a new identity for the pane.
    fn new_identity(&self) -> Result<Held, Value> {
        let mut secret = [0u8; 32];
        let signer = loop {
            getrandom::fill(&mut secret)
                .map_err(|e| tool_text(format!("no randomness: {e}"), true))?;
            if let Ok(s) = Es256Signer::from_secret_bytes(&secret) {
                break s;
            }
        };
        let jwk = signer.public_jwk();
        let short: String = self.pane.subshell_id.chars().take(8).collect();
        let name = format!("pane {short}");
        let proof = signed::sign(&signer, &signed::identity_proof_input(&name, &jwk));
        let body = json!({ "name": name, "publicKey": jwk, "proof": proof });
        match self.plane.request("POST", "/api/identities", Some(&body)) {
            Ok((201 | 200, v)) => {
                let Some(id) = v.get("id").and_then(Value::as_str) else {
                    return Err(tool_text(
                        "the plane's answer names no identity".into(),
                        true,
                    ));
                };
                let held = Held {
                    id: id.to_owned(),
                    secret,
                };
                if let Err(e) = self.save_identity(&held) {
                    eprintln!("termplane mcp: {e}; the identity lasts as long as this server");
                }
                Ok(held)
            }
            Ok((status, v)) => Err(refused(status, &v)),
            Err(e) => Err(tool_text(
                format!("the plane could not be reached: {e}"),
                true,
            )),
        }
    }

    /// The pane's identity: the one in memory, else the key file's, else a new one.
    fn identity(&self, fresh: bool) -> Result<(String, Es256Signer), Value> {
        let mut held = self
            .identity
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if fresh {
            *held = None;
        } else if held.is_none() {
            *held = self.load_identity();
        }
        if held.is_none() {
            *held = Some(self.new_identity()?);
        }
        let h = held
            .as_ref()
            .ok_or_else(|| tool_text("no identity".into(), true))?;
        let signer = Es256Signer::from_secret_bytes(&h.secret)
            .map_err(|_| tool_text("the identity key is unusable".into(), true))?;
        Ok((h.id.clone(), signer))
    }

    /// The id of the channel named by `channel` (an id, or a name of exactly one channel).
    fn resolve_channel(&self, channel: &str) -> Result<String, Value> {
        if is_row_id(channel) {
            return Ok(channel.to_owned());
        }
        let list = match self.plane.request("GET", "/api/channels", None) {
            Ok((200, v)) => v,
            Ok((status, v)) => return Err(refused(status, &v)),
            Err(e) => {
                return Err(tool_text(
                    format!("the plane could not be reached: {e}"),
                    true,
                ));
            }
        };
        let ids: Vec<&str> = list
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c.get("name").and_then(Value::as_str) == Some(channel))
            .filter_map(|c| c.get("id").and_then(Value::as_str))
            .collect();
        match ids.as_slice() {
            [one] => Ok((*one).to_owned()),
            [] => Err(tool_text(
                format!(
                    "no channel named {channel:?} (list_channels shows the ones this pane can read)"
                ),
                true,
            )),
            many => Err(tool_text(
                format!(
                    "{} channels are named {channel:?}; name one by id: {}",
                    many.len(),
                    many.join(", ")
                ),
                true,
            )),
        }
    }

    /// `read_channel`.
    pub(crate) fn read_channel(&self, args: &Value) -> Value {
        let Some(channel) = str_arg(args, "channel") else {
            return tool_text("read_channel needs a channel".into(), true);
        };
        let id = match self.resolve_channel(channel) {
            Ok(id) => id,
            Err(e) => return e,
        };
        let limit = args.get("limit").and_then(Value::as_u64);
        // Without a cursor, the newest entries: what a reader coming to a channel wants first.
        let after = match args.get("after").and_then(Value::as_u64) {
            Some(a) => a,
            None => match self
                .plane
                .request("GET", &format!("/api/channels/{}", encode(&id)), None)
            {
                Ok((200, v)) => v
                    .pointer("/head/seq")
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
                    .saturating_sub(limit.unwrap_or(DEFAULT_READ)),
                Ok((status, v)) => return refused(status, &v),
                Err(e) => return tool_text(format!("the plane could not be reached: {e}"), true),
            },
        };
        let mut q = vec![format!("after={after}")];
        if let Some(l) = limit {
            q.push(format!("limit={l}"));
        }
        if let Some(w) = args.get("waitMs").and_then(Value::as_u64) {
            q.push(format!("waitMs={w}"));
        }
        let path = format!("/api/channels/{}/entries?{}", encode(&id), q.join("&"));
        match self.plane.request("GET", &path, None) {
            Ok((200, v)) => {
                // What a reader needs: who wrote what, and whether it verified.
                let entries: Vec<Value> = v
                    .get("entries")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|e| {
                        json!({
                            "seq": e.get("seq"),
                            "author": e.pointer("/author/name"),
                            "authorPane": e.pointer("/author/subshellId"),
                            "createdAt": e.get("createdAt"),
                            "verified": e.get("verified"),
                            "problem": e.get("problem"),
                            "text": e.get("body"),
                        })
                    })
                    .collect();
                let out = json!({
                    "channelId": id,
                    "entries": entries,
                    "next": v.get("next"),
                    "headSeq": v.pointer("/head/seq"),
                });
                structured_result(out)
            }
            Ok((status, v)) => refused(status, &v),
            Err(e) => tool_text(format!("the plane could not be reached: {e}"), true),
        }
    }

    /// `post_to_channel`: signs the text at the channel's head and appends it, signing again
    /// when another writer got there first.
    pub(crate) fn post_to_channel(&self, args: &Value) -> Value {
        let (Some(channel), Some(text)) = (str_arg(args, "channel"), str_arg(args, "text")) else {
            return tool_text("post_to_channel needs a channel and a text".into(), true);
        };
        let id = match self.resolve_channel(channel) {
            Ok(id) => id,
            Err(e) => return e,
        };
        let (mut identity, mut signer) = match self.identity(false) {
            Ok(x) => x,
            Err(e) => return e,
        };
        let path = format!("/api/channels/{}", encode(&id));
        let head = match self.plane.request("GET", &path, None) {
            Ok((200, v)) => v.get("head").cloned().unwrap_or(Value::Null),
            Ok((status, v)) => return refused(status, &v),
            Err(e) => return tool_text(format!("the plane could not be reached: {e}"), true),
        };
        let mut seq = head.get("seq").and_then(Value::as_u64).unwrap_or(0) + 1;
        let mut prev = head
            .get("hash")
            .and_then(Value::as_str)
            .unwrap_or(signed::GENESIS)
            .to_owned();
        let mut renewed = false;
        for _ in 0..MAX_HEAD_RETRIES {
            let input = signed::entry_signing_input(&id, seq, &prev, &identity, text);
            let body = json!({
                "identityId": identity,
                "seq": seq,
                "prev": prev,
                "body": text,
                "signature": signed::sign(&signer, &input),
            });
            match self
                .plane
                .request("POST", &format!("{path}/entries"), Some(&body))
            {
                Ok((201 | 200, v)) => {
                    let out = json!({
                        "channelId": id,
                        "seq": v.get("seq"),
                        "hash": v.get("hash"),
                        "identityId": identity,
                    });
                    return structured_result(out);
                }
                Ok((409, v))
                    if v.get("code").and_then(Value::as_str) == Some("CHANNEL_HEAD_MOVED") =>
                {
                    let h = v.pointer("/metadata/head").cloned().unwrap_or(Value::Null);
                    seq = h.get("seq").and_then(Value::as_u64).unwrap_or(0) + 1;
                    h.get("hash")
                        .and_then(Value::as_str)
                        .unwrap_or(signed::GENESIS)
                        .clone_into(&mut prev);
                }
                Ok((status, v))
                    if !renewed
                        && (v.get("code").and_then(Value::as_str) == Some("IDENTITY_REVOKED")
                            || (status == 404 && message(&v).contains("identity"))) =>
                {
                    // The plane no longer knows (or honours) the kept key: make another.
                    renewed = true;
                    match self.identity(true) {
                        Ok((i, s)) => (identity, signer) = (i, s),
                        Err(e) => return e,
                    }
                }
                Ok((status, v)) => return refused(status, &v),
                Err(e) => return tool_text(format!("the plane could not be reached: {e}"), true),
            }
        }
        tool_text(
            "the channel kept moving: other writers posted first every time; try again".into(),
            true,
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use std::cell::RefCell;

    use super::*;
    use crate::Pane;

    /// A plane that answers from a script, in order, and records each request.
    struct Scripted {
        answers: RefCell<Vec<(u16, Value)>>,
        seen: RefCell<Vec<(String, String, Option<Value>)>>,
    }

    impl Plane for &Scripted {
        fn request(&self, m: &str, p: &str, b: Option<&Value>) -> Result<(u16, Value), String> {
            self.seen
                .borrow_mut()
                .push((m.to_owned(), p.to_owned(), b.cloned()));
            let mut a = self.answers.borrow_mut();
            assert!(!a.is_empty(), "unexpected {m} {p}");
            Ok(a.remove(0))
        }
    }

    const CHAN: &str = "0123456789abcdef0123456789abcdef";
    const IDENT: &str = "fedcba9876543210fedcba9876543210";

    fn pane(dir: &std::path::Path) -> Pane {
        Pane {
            url: "http://p".into(),
            token: "tp_x".into(),
            subshell_id: "sub1".into(),
            node_id: None,
            key_dir: Some(dir.to_owned()),
        }
    }

    #[test]
    fn a_post_registers_a_kept_identity_once_and_signs_again_when_the_head_moved() {
        // A directory of this test's own: tests of this binary run on parallel threads.
        let dir = std::env::temp_dir().join(format!("tp-mcp-identity-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let h1 = "1".repeat(64);
        let plane = Scripted {
            answers: RefCell::new(vec![
                (201, json!({ "id": IDENT })),
                (
                    200,
                    json!({ "head": { "seq": 0, "hash": signed::GENESIS } }),
                ),
                (
                    409,
                    json!({ "code": "CHANNEL_HEAD_MOVED", "message": "moved",
                            "metadata": { "head": { "seq": 1, "hash": h1 } } }),
                ),
                (201, json!({ "seq": 2, "hash": "h2" })),
            ]),
            seen: RefCell::default(),
        };
        let s = Server::new(&plane, pane(&dir));
        let out = s.post_to_channel(&json!({ "channel": CHAN, "text": "hello" }));
        assert_eq!(out["isError"], false, "{out}");
        let seen = plane.seen.borrow().clone();
        // The identity: registered with a proof by the key the entries are signed with.
        let reg = seen[0].2.clone().unwrap();
        assert_eq!(seen[0].1, "/api/identities");
        let jwk: termplane_machines::jws::PublicJwk =
            serde_json::from_value(reg["publicKey"].clone()).unwrap();
        let name = reg["name"].as_str().unwrap();
        signed::verify(
            &jwk,
            &signed::identity_proof_input(name, &jwk),
            reg["proof"].as_str().unwrap(),
        )
        .unwrap();
        // Signed at the head it read, then again after the head the plane named.
        let first = seen[2].2.clone().unwrap();
        let second = seen[3].2.clone().unwrap();
        assert_eq!(
            (first["seq"].as_u64(), first["prev"].as_str()),
            (Some(1), Some(signed::GENESIS))
        );
        assert_eq!(
            (second["seq"].as_u64(), second["prev"].as_str()),
            (Some(2), Some(h1.as_str()))
        );
        let input = signed::entry_signing_input(CHAN, 2, &h1, IDENT, "hello");
        signed::verify(&jwk, &input, second["signature"].as_str().unwrap()).unwrap();
        // The key is kept, owner-only; a restarted server reuses it without registering again.
        let file = dir.join("sub1.key");
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&file).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        let again = Scripted {
            answers: RefCell::new(vec![
                (200, json!({ "head": { "seq": 2, "hash": "h2" } })),
                (201, json!({ "seq": 3, "hash": "h3" })),
            ]),
            seen: RefCell::default(),
        };
        let s = Server::new(&again, pane(&dir));
        let out = s.post_to_channel(&json!({ "channel": CHAN, "text": "again" }));
        assert_eq!(out["isError"], false, "{out}");
        let seen = again.seen.borrow();
        assert_eq!(seen.len(), 2, "no second registration: {seen:?}");
        assert_eq!(seen[1].2.as_ref().unwrap()["identityId"], IDENT);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_channel_is_named_by_id_or_by_a_unique_name() {
        let plane = Scripted {
            answers: RefCell::new(vec![
                (
                    200,
                    json!([{ "id": CHAN, "name": "ops" }, { "id": IDENT, "name": "dup" }, { "id": "x", "name": "dup" }]),
                ),
                (
                    200,
                    json!({ "entries": [], "next": 0, "head": { "seq": 0 } }),
                ),
                (
                    200,
                    json!({ "id": CHAN, "head": { "seq": 42, "hash": "h" } }),
                ),
                (
                    200,
                    json!({ "entries": [], "next": 42, "head": { "seq": 42 } }),
                ),
                (
                    200,
                    json!([{ "id": IDENT, "name": "dup" }, { "id": "x", "name": "dup" }]),
                ),
                (200, json!([])),
            ]),
            seen: RefCell::default(),
        };
        let s = Server::new(&plane, pane(std::path::Path::new("/nonexistent")));
        let out = s.read_channel(&json!({ "channel": "ops", "after": 3, "waitMs": 100 }));
        assert_eq!(out["isError"], false, "{out}");
        assert_eq!(
            plane.seen.borrow()[1].1,
            format!("/api/channels/{CHAN}/entries?after=3&waitMs=100")
        );
        let out = s.read_channel(&json!({ "channel": CHAN, "limit": 10 }));
        assert_eq!(out["isError"], false, "{out}");
        assert_eq!(
            plane.seen.borrow()[3].1,
            format!("/api/channels/{CHAN}/entries?after=32&limit=10"),
            "without a cursor: the newest ten of 42"
        );
        let out = s.read_channel(&json!({ "channel": "dup" }));
        assert_eq!(out["isError"], true);
        let out = s.read_channel(&json!({ "channel": "none" }));
        assert_eq!(out["isError"], true);
        assert_eq!(plane.seen.borrow().len(), 6);
    }
}
