//! A scripted plane on loopback for the node's link tests: it speaks protocol 14 from the
//! plane's side with the core's own pieces (the kx responder, the sealed stream, the ES256
//! signer), but every step is the test's to take, so a test can do what a misbehaving or
//! independently written plane does: close right after `ready` and drop the socket, send an
//! oversize frame, re-send a command after a restart, answer `register` with a bad key, go
//! silent. Every wait is bounded.
//!
//! The node is either the real `termplane-node run` ([`NodeProc`]) or the runtime's driver in
//! a thread.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    dead_code,
    unreachable_pub
)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use async_tungstenite::WebSocketStream;
use async_tungstenite::tungstenite::protocol::CloseFrame;
use async_tungstenite::tungstenite::{Bytes, Message};
use futures_lite::{FutureExt as _, StreamExt as _};
use termplane_machines::jws::Es256Signer;
use termplane_machines::kx::{Established, Responder, StaticKeypair};
use termplane_proto::frame::NodeFrame;
use termplane_proto::{Claims, Event, PlaneFrame, Ready, decode_node_frame};

/// A plane the test drives step by step.
pub struct ScriptedPlane {
    listener: smol::Async<TcpListener>,
    pub port: u16,
    pub keys: StaticKeypair,
    pub signer: Es256Signer,
    pub node_id: String,
    pub node_key: String,
    /// The node's static link keypair (the row's pin).
    pub node: StaticKeypair,
}

fn rng(seed: u8) -> termplane_machines::rng::MachineRng {
    let mut s = termplane_runtime_smol::os_seed().unwrap();
    s[0] ^= seed;
    termplane_machines::rng::from_seed(s)
}

impl ScriptedPlane {
    pub fn new() -> Self {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let mut r = rng(1);
        Self {
            listener: smol::Async::new(l).unwrap(),
            port,
            keys: StaticKeypair::generate(&mut r),
            signer: Es256Signer::generate(&mut r),
            node_id: "0123abcd".into(),
            node_key: "tp_scriptedplanenodekey0123456789".into(),
            node: StaticKeypair::generate(&mut r),
        }
    }

    pub fn ws_url(&self) -> String {
        format!("ws://127.0.0.1:{}/ws/node", self.port)
    }

    /// The node's config file: paired with this plane unless `pinned` is false.
    pub fn node_config(&self, data_dir: &Path, pinned: bool) -> termplane_node::config::NodeConfig {
        termplane_node::config::NodeConfig {
            server_url: format!("http://127.0.0.1:{}", self.port),
            ws_url: self.ws_url(),
            node_id: self.node_id.clone(),
            node_key: self.node_key.clone(),
            signing_public_jwk: self.signer.public_jwk(),
            control_encrypt_public_key: pinned.then(|| self.keys.public().to_b64()),
            link_secret: termplane_proto::key::b64url_encode(&self.node.secret_bytes()),
            link_public: self.node.public().to_b64(),
            identity_key_path: data_dir.join("identity.jwk").display().to_string(),
            name: "scripted".into(),
            data_dir: Some(data_dir.display().to_string()),
        }
    }

    /// The next upgraded socket, or `None` when no node dialed within `limit`.
    pub fn accept(&self, limit: Duration) -> Option<Conn> {
        smol::block_on(
            async {
                let (tcp, _) = self.listener.accept().await.ok()?;
                let tcp = smol::net::TcpStream::from(tcp);
                let cfg = async_tungstenite::tungstenite::protocol::WebSocketConfig::default()
                    .max_message_size(Some(8 << 20))
                    .max_frame_size(Some(8 << 20));
                let ws = async_tungstenite::accept_async_with_config(tcp, Some(cfg))
                    .await
                    .ok()?;
                Some(Conn {
                    ws,
                    link: None,
                    pings: 0,
                })
            }
            .or(async {
                smol::Timer::after(limit).await;
                None
            }),
        )
    }

    /// Claims of a command for this node.
    pub fn claims(&self, jti: &str, iat: i64, seq: u64, cmd: serde_json::Value) -> Claims {
        Claims {
            iss: termplane_proto::COMMAND_ISSUER.into(),
            aud: termplane_proto::node_audience(&self.node_id),
            jti: jti.into(),
            iat,
            exp: iat + 30,
            seq,
            cmd,
        }
    }
}

/// Wall-clock seconds.
pub fn unix_now() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
    )
    .unwrap()
}

/// What arrived on a socket.
#[derive(Debug)]
pub enum Got {
    Text(String),
    Binary(Vec<u8>),
    Ping,
    Close(Option<u16>, String),
    Eof,
    Timeout,
}

/// One accepted node socket.
pub struct Conn {
    ws: WebSocketStream<smol::net::TcpStream>,
    link: Option<Established>,
    /// WebSocket pings the node sent, as seen by [`Conn::next_frame`].
    pub pings: usize,
}

impl Conn {
    /// The next message (pongs are skipped; pings are reported and answered by tungstenite).
    pub fn recv(&mut self, limit: Duration) -> Got {
        let ws = &mut self.ws;
        smol::block_on(
            async {
                loop {
                    match ws.next().await {
                        None | Some(Err(_)) => return Got::Eof,
                        Some(Ok(Message::Text(t))) => return Got::Text(t.as_str().to_owned()),
                        Some(Ok(Message::Binary(b))) => return Got::Binary(b.to_vec()),
                        Some(Ok(Message::Ping(_))) => return Got::Ping,
                        Some(Ok(Message::Close(f))) => {
                            return Got::Close(
                                f.as_ref().map(|f| u16::from(f.code)),
                                f.map(|f| f.reason.as_str().to_owned()).unwrap_or_default(),
                            );
                        }
                        Some(Ok(_)) => {}
                    }
                }
            }
            .or(async {
                smol::Timer::after(limit).await;
                Got::Timeout
            }),
        )
    }

    pub fn send(&mut self, m: Message) {
        smol::block_on(self.ws.send(m)).unwrap();
    }

    /// Runs the responder's side of the handshake and reads `ready`.
    pub fn handshake(&mut self, plane: &ScriptedPlane) -> Ready {
        let Got::Text(kx) = self.recv(Duration::from_secs(15)) else {
            panic!("no kx")
        };
        let Ok(NodeFrame::Kx(kx)) = decode_node_frame(&kx) else {
            panic!("not kx: {kx}")
        };
        let Got::Binary(binding) = self.recv(Duration::from_secs(15)) else {
            panic!("no binding")
        };
        let await_binding = Responder::new(&plane.keys, plane.node.public(), &plane.node_id)
            .on_kx(&kx)
            .unwrap();
        let opened = await_binding.on_binding(&binding).unwrap();
        assert_eq!(opened.binding.node_key, plane.node_key);
        let (link, first) = opened.accept(&mut rng(2));
        self.send(Message::Binary(Bytes::from(first)));
        self.link = Some(link);
        match self.next_frame(Duration::from_secs(15)) {
            Some(NodeFrame::Ready(r)) => *r,
            Some(other) => panic!("expected ready, got {other:?}"),
            None => panic!("no ready"),
        }
    }

    /// The next sealed frame from the node, opened (`None` on a close, EOF or timeout).
    pub fn next_frame(&mut self, limit: Duration) -> Option<NodeFrame> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.recv(left) {
                Got::Binary(b) => {
                    let plain = self.link.as_mut().unwrap().opener.open_frame(&b).unwrap();
                    return Some(decode_node_frame(std::str::from_utf8(&plain).unwrap()).unwrap());
                }
                Got::Ping => self.pings += 1,
                _ => return None,
            }
        }
    }

    /// The next event for which `pred` holds (others are skipped).
    pub fn event_where(&mut self, limit: Duration, pred: impl Fn(&Event) -> bool) -> Event {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_frame(left) {
                Some(NodeFrame::Event(e)) if pred(&e) => return e,
                Some(_) => {}
                None => panic!("no such event within {limit:?}"),
            }
        }
    }

    /// Seals a text frame on the established stream.
    pub fn send_sealed(&mut self, text: &str) {
        let ct = self
            .link
            .as_mut()
            .unwrap()
            .sealer
            .seal_frame(text.as_bytes())
            .unwrap();
        self.send(Message::Binary(Bytes::from(ct)));
    }

    /// Signs and sends a command.
    pub fn send_command(&mut self, plane: &ScriptedPlane, claims: &Claims) {
        let env = PlaneFrame::Command(termplane_proto::Envelope {
            jws: plane.signer.sign(claims),
        });
        self.send_sealed(&env.to_json());
    }

    /// The result of `jti` (other frames are skipped).
    pub fn result_of(&mut self, jti: &str) -> termplane_proto::CommandResult {
        match self.event_where(
            Duration::from_secs(20),
            |e| matches!(e, Event::Result(r) if r.reference == jti),
        ) {
            Event::Result(r) => r,
            _ => unreachable!(),
        }
    }

    /// Sends a close frame and drops the socket at once, without reading anything more (a plane
    /// that does not wait for the closing handshake).
    pub fn close_and_drop(mut self, code: u16, reason: &str) {
        let frame = CloseFrame {
            code: code.into(),
            reason: reason.to_owned().into(),
        };
        let _ = smol::block_on(self.ws.send(Message::Close(Some(frame))));
    }

    /// Closes properly: close frame, then waits (bounded) for the node's reply.
    pub fn close(mut self, code: u16, reason: &str) {
        let frame = CloseFrame {
            code: code.into(),
            reason: reason.to_owned().into(),
        };
        let _ = smol::block_on(self.ws.send(Message::Close(Some(frame))));
        for _ in 0..64 {
            if matches!(
                self.recv(Duration::from_secs(5)),
                Got::Close(..) | Got::Eof | Got::Timeout
            ) {
                return;
            }
        }
    }
}

/// A `termplane-node run` process over its own temp dir (HOME, XDG dirs, data dir), killed with
/// its tmux server on drop.
pub struct NodeProc {
    pub dir: PathBuf,
    pub config: PathBuf,
    child: Option<Child>,
}

impl NodeProc {
    /// A temp dir with the node's config written in it (not started).
    pub fn prepare(tag: &str, plane: &ScriptedPlane, pinned: bool) -> Self {
        let dir = std::env::temp_dir().join(format!("tps-{tag}-{}-{}", std::process::id(), {
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        }));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["home", "data", "cfg"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let dir = std::fs::canonicalize(&dir).unwrap();
        let config = dir.join("cfg/config.json");
        plane
            .node_config(&dir.join("data"), pinned)
            .save(&config)
            .unwrap();
        Self {
            dir,
            config,
            child: None,
        }
    }

    pub fn start(&mut self) {
        let err = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("node.stderr"))
            .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_termplane-node"))
            .args(["run", "--config"])
            .arg(&self.config)
            .env_remove("TMUX")
            .env_remove("TERMPLANE_SUPERVISED")
            .env_remove("TERMPLANE_DEBUG_LOGGING")
            .env("HOME", self.dir.join("home"))
            .env("XDG_CONFIG_HOME", self.dir.join("cfg"))
            .env("XDG_DATA_HOME", self.dir.join("data"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .unwrap();
        self.child = Some(child);
    }

    /// SIGKILL (a crash, or a fast restart by a supervisor).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The exit status, once the process ended within `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(st) = self.child.as_mut().unwrap().try_wait().unwrap() {
                self.child = None;
                return Some(st);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("data/node.log")).unwrap_or_default()
    }

    fn kill_tmux(&self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(self.dir.join("data/tmux.sock"))
            .arg("kill-server")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

impl Drop for NodeProc {
    fn drop(&mut self) {
        self.kill();
        self.kill_tmux();
        if std::thread::panicking() {
            eprintln!(
                "--- node log ---\n{}\n--- node stderr ---\n{}",
                self.log(),
                std::fs::read_to_string(self.dir.join("node.stderr")).unwrap_or_default()
            );
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
