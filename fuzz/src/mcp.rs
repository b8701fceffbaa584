//! The pane's MCP server as its client drives it: JSON-RPC lines on standard input.

use std::io::BufReader;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};
use termplane_mcp::{MAX_MESSAGE_BYTES, Pane, Plane, Server};

use crate::cuts::PieceReader;

/// A plane that answers every request the same way (one of a few, by the input's first byte)
/// and records what it was asked.
struct TablePlane {
    answer: u8,
    seen: Arc<Mutex<Vec<(String, String)>>>,
}

impl Plane for TablePlane {
    fn request(
        &self,
        method: &str,
        path: &str,
        _body: Option<&Value>,
    ) -> Result<(u16, Value), String> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((method.to_owned(), path.to_owned()));
        match self.answer % 4 {
            0 => Ok((
                200,
                json!({
                    "id": "0123456789abcdef0123456789abcdef",
                    "fileId": "f1",
                    "pieceBytes": 3,
                    "head": { "seq": 4, "hash": "h" },
                    "entries": [{ "seq": 4, "body": "hi", "author": { "name": "a" } }],
                }),
            )),
            1 => Ok((
                404,
                json!({ "code": "NOT_FOUND", "message": "no such subshell", "metadata": { "field": "subshellId" } }),
            )),
            2 => Err("connection refused".into()),
            _ => Ok((
                200,
                json!([{ "id": "0123456789abcdef0123456789abcdef", "name": "ops" }]),
            )),
        }
    }
}

/// What the server must do with one line of input, by a reading of the rules of the server's
/// reader that is independent of its code.
#[derive(Debug, Default)]
struct Expected {
    answers: usize,
    too_large: usize,
    parse_errors: usize,
    cancels: usize,
    ids: Vec<Value>,
}

/// Whether one message of a batch (or a lone one) gets an answer: everything but a well-formed
/// notification and a response without an id.
fn answered(m: &Value) -> bool {
    let Some(obj) = m.as_object() else {
        return true;
    };
    let id = obj.get("id");
    let valid_id = |i: &Value| i.is_string() || i.is_i64() || i.is_u64();
    if id.is_some_and(|i| !valid_id(i)) || obj.get("jsonrpc") != Some(&json!("2.0")) {
        return true;
    }
    id.is_some()
}

fn expect(input: &[u8], cap: usize) -> Expected {
    let mut e = Expected::default();
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    for line in lines {
        if line.len() > cap {
            e.too_large += 1;
            e.answers += 1;
            continue;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            e.parse_errors += 1;
            e.answers += 1;
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        let Ok(msg) = serde_json::from_str::<Value>(text.trim()) else {
            e.parse_errors += 1;
            e.answers += 1;
            continue;
        };
        if msg.get("method") == Some(&json!("notifications/cancelled")) && msg.get("id").is_none() {
            e.cancels += 1;
            continue;
        }
        let items = match &msg {
            Value::Array(items) if !items.is_empty() => items.clone(),
            other => vec![other.clone()],
        };
        for m in &items {
            if let Some(id) = m.get("id") {
                e.ids.push(id.clone());
            }
        }
        if items.iter().any(answered) {
            e.answers += 1;
        }
    }
    e
}

/// A JSON-RPC answer as MCP wants it: `jsonrpc` "2.0", an id that is null, a string or an
/// integer (and one the client sent, unless null), and exactly one of `result` and `error`.
fn check_answer(a: &Value, ids: &[Value]) {
    let obj = a.as_object().expect("an answer is an object");
    assert_eq!(obj.get("jsonrpc"), Some(&json!("2.0")), "{a}");
    let id = obj.get("id").expect("an answer carries an id");
    assert!(
        id.is_null() || ((id.is_string() || id.is_i64() || id.is_u64()) && ids.contains(id)),
        "answer id {id} was not sent: {a}"
    );
    assert!(
        obj.contains_key("result") != obj.contains_key("error"),
        "{a}"
    );
}

/// The server's stdin loop on arbitrary bytes, read in seed-chosen pieces: it never fails or
/// panics; every line it writes is one JSON-RPC answer or a batch of them; it answers each
/// line of input at most once and exactly as the rules say when nothing is cancelled (oversize
/// lines refused as too large, invalid UTF-8 and JSON as parse errors, notifications never);
/// and each request it makes of the plane stays on one path, its arguments percent-encoded.
pub fn mcp_stdio(data: &[u8]) {
    let [flags, seed, rest @ ..] = data else {
        return;
    };
    let input = rest;
    // The line cap: the real one, or one that short inputs reach, so that every length around
    // it is tried.
    let cap = [MAX_MESSAGE_BYTES, 0, 24, 60, 90, 200, 1000, 4096][usize::from(flags >> 5)];
    let seen = Arc::new(Mutex::new(Vec::new()));
    let plane = TablePlane {
        answer: *flags,
        seen: Arc::clone(&seen),
    };
    let pane = Pane {
        url: "http://plane.invalid".into(),
        token: "tp_pane".into(),
        subshell_id: "0123456789abcdef0123456789abcdef".into(),
        node_id: (flags & 4 != 0).then(|| "n1".to_owned()),
        key_dir: None,
    };
    let server = Server::new(plane, pane);
    let mut out = Vec::new();
    let reader = BufReader::with_capacity(
        [1, 2, 7, 64, 4096, 65536][usize::from(flags >> 3 & 1) * 3 + usize::from(seed % 3)],
        PieceReader::new(input, *seed),
    );
    server
        .serve_capped(reader, &mut out, cap)
        .expect("reading from memory does not fail");

    let want = expect(input, cap);
    let text = std::str::from_utf8(&out).expect("answers are UTF-8");
    let mut got = Expected::default();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).expect("each answer line is JSON");
        got.answers += 1;
        let answers = match &v {
            Value::Array(items) => {
                assert!(!items.is_empty(), "an empty batch answer");
                items.clone()
            }
            one => vec![one.clone()],
        };
        for a in &answers {
            check_answer(a, &want.ids);
            let code = a.pointer("/error/code").and_then(Value::as_i64);
            let message = a.pointer("/error/message").and_then(Value::as_str);
            if code == Some(-32700) {
                got.parse_errors += 1;
            }
            if message == Some("message too large") {
                got.too_large += 1;
            }
        }
    }
    assert_eq!(got.too_large, want.too_large, "oversize lines");
    assert_eq!(got.parse_errors, want.parse_errors, "parse errors");
    assert!(
        got.answers <= want.answers && got.answers + want.cancels >= want.answers,
        "{} answers, expected {} with {} cancels",
        got.answers,
        want.answers,
        want.cancels
    );

    let seen = seen.lock().unwrap_or_else(PoisonError::into_inner).clone();
    for (method, path) in seen {
        assert!(
            ["GET", "POST", "PUT", "DELETE", "PATCH"].contains(&method.as_str()),
            "{method}"
        );
        assert!(path.starts_with("/api/"), "{path}");
        let (p, q) = path.split_once('?').unwrap_or((&path, ""));
        let clean = |s: &str, extra: &[u8]| {
            s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~%".contains(&b) || extra.contains(&b))
        };
        assert!(
            clean(p, b"/"),
            "an argument escaped its path segment: {path}"
        );
        assert!(
            clean(q, b"=&"),
            "an argument escaped its query value: {path}"
        );
    }
}
