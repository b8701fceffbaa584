//! A terminal client written from the documented frames (`/docs/terminal`), not from the
//! plane's code: it opens `/api/subshells/:id/attach` (or any WebSocket path of the plane),
//! keeps every binary frame's bytes and every text frame, and notes the close. One client for
//! the plane's and the node daemon's suites, so both hold the plane to the same contract.

use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use async_tungstenite::tungstenite::client::IntoClientRequest;
use async_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
use async_tungstenite::tungstenite::{self, Message, WebSocket};
use serde_json::Value;

/// How long [`Viewer::until`] waits before failing the test.
pub const UNTIL: Duration = Duration::from_secs(20);

/// One terminal socket and everything it received.
pub struct Viewer {
    /// The socket (for frames a test writes by hand).
    pub ws: WebSocket<TcpStream>,
    /// Every binary frame's bytes so far, in order (the replay, then live output).
    pub bytes: Vec<u8>,
    /// Every text frame so far, parsed.
    pub frames: Vec<Value>,
    /// The close code and reason once the socket closed (1005 for a close frame without a code,
    /// 1006 for a connection that ended without one).
    pub closed: Option<(u16, String)>,
}

impl std::fmt::Debug for Viewer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Viewer")
            .field("frames", &self.frames)
            .field("bytes", &self.bytes.len())
            .field("closed", &self.closed)
            .finish_non_exhaustive()
    }
}

impl Viewer {
    /// Opens a WebSocket at `path` (with its query) on the plane at `addr`, sending `headers`
    /// with the upgrade; `Err` holds a refused upgrade's status and the error body's `code`.
    pub fn open(
        addr: SocketAddr,
        path: &str,
        headers: &[(&str, &str)],
    ) -> Result<Self, (u16, String)> {
        let mut req = format!("ws://{addr}{path}").into_client_request().unwrap();
        for (k, v) in headers {
            let name = HeaderName::from_bytes(k.as_bytes()).unwrap();
            req.headers_mut()
                .insert(name, HeaderValue::from_str(v).unwrap());
        }
        let stream = TcpStream::connect(addr).unwrap();
        // The upgrade's answer may take a while on a loaded machine: a long timeout for the
        // handshake (a short one ends it midway), a short one for reading frames after it.
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        match tungstenite::client::client(req, stream) {
            Ok((ws, _)) => {
                ws.get_ref()
                    .set_read_timeout(Some(Duration::from_millis(50)))
                    .unwrap();
                Ok(Self {
                    ws,
                    bytes: Vec::new(),
                    frames: Vec::new(),
                    closed: None,
                })
            }
            Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(resp))) => {
                let body: Value = resp
                    .body()
                    .as_ref()
                    .and_then(|b| serde_json::from_slice(b).ok())
                    .unwrap_or(Value::Null);
                Err((
                    resp.status().as_u16(),
                    body["code"].as_str().unwrap_or("").to_owned(),
                ))
            }
            Err(e) => panic!("handshake: {e:?}"),
        }
    }

    /// Reads whatever arrives for `wait` (less once the socket closed).
    pub fn pump(&mut self, wait: Duration) {
        let end = Instant::now() + wait;
        while Instant::now() < end && self.closed.is_none() {
            match self.ws.read() {
                Ok(Message::Binary(b)) => self.bytes.extend_from_slice(&b),
                Ok(Message::Text(t)) => self.frames.push(serde_json::from_str(t.as_str()).unwrap()),
                Ok(Message::Close(f)) => {
                    self.closed = Some(f.map_or((1005, String::new()), |f| {
                        (u16::from(f.code), f.reason.as_str().to_owned())
                    }));
                }
                Ok(_) => {}
                Err(e) if nothing_yet(&e) => {}
                Err(tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed) => {
                    self.closed.get_or_insert((1006, String::new()));
                }
                Err(e) => panic!("read: {e:?}"),
            }
        }
    }

    /// Reads until `f` holds, failing the test after [`UNTIL`] with what arrived.
    pub fn until(&mut self, what: &str, f: impl Fn(&Self) -> bool) {
        let deadline = Instant::now() + UNTIL;
        while !f(self) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; frames {:?}; bytes {:?}; closed {:?}",
                self.frames,
                String::from_utf8_lossy(&self.bytes),
                self.closed
            );
            self.pump(Duration::from_millis(50));
        }
    }

    /// The bytes received so far as text.
    #[must_use]
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// Whether a text frame of type `kind` for which `f` holds has arrived.
    pub fn has(&self, kind: &str, f: impl Fn(&Value) -> bool) -> bool {
        self.frames.iter().any(|v| v["type"] == kind && f(v))
    }

    /// The close code, once the socket closed.
    #[must_use]
    pub fn close_code(&self) -> Option<u16> {
        self.closed.as_ref().map(|c| c.0)
    }

    /// How many viewers the latest `presence` frame lists (`None` before the first one).
    #[must_use]
    pub fn viewers_now(&self) -> Option<usize> {
        let latest = self.frames.iter().rev().find(|v| v["type"] == "presence")?;
        latest["viewers"].as_array().map(Vec::len)
    }

    /// Sends one JSON text frame.
    pub fn send_json(&mut self, v: &Value) {
        self.ws.send(Message::text(v.to_string())).unwrap();
    }

    /// Types `s`: one binary frame of its UTF-8 bytes.
    pub fn keys(&mut self, s: &str) {
        self.ws
            .send(Message::binary(s.as_bytes().to_vec()))
            .unwrap();
    }

    /// Closes and waits (briefly) for the plane's answer; whatever ends the socket is fine.
    pub fn close(mut self) {
        let _ = self.ws.close(None);
        let end = Instant::now() + Duration::from_millis(500);
        while Instant::now() < end {
            match self.ws.read() {
                Ok(_) => {}
                Err(e) if nothing_yet(&e) => {}
                Err(_) => return,
            }
        }
    }
}

/// Whether a read failed only because nothing arrived within the socket's read timeout.
fn nothing_yet(e: &tungstenite::Error) -> bool {
    matches!(e, tungstenite::Error::Io(io) if matches!(
        io.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    ))
}
