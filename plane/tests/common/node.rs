//! An in-process test node: the core's agent machine under the runtime-smol agent driver, with a
//! fake executor that answers `ping`, `update` and `set_allowed_dirs` (and, for a node started
//! with [`TestNode::start_panes`], `detect`, and `launch`, `kill` and `probe` of make-believe
//! panes, which echo what is typed into them to their tails and replays) and
//! records what it ran.
//! Also a raw WebSocket client that speaks the handshake by hand (replays, frame-size probes).

use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_lite::FutureExt;
use serde_json::{Value, json};
use termplane::clock::{Clock as _, ManualClock};
use termplane_machines::agent_link::AgentConfig;
use termplane_machines::jws::PublicJwk;
use termplane_machines::kx::{Established, Initiator, InitiatorParams, StaticKeypair};
use termplane_machines::time::UnixSecs;
use termplane_proto::event::Os;
use termplane_proto::frame::NodeFrame;
use termplane_proto::{Binding, Command, CommandResult, Key32, Ready};
use termplane_runtime_smol::agent::{
    self, AgentControl, AgentOptions, AgentOutcome, AgentReport, BoxFuture, Executor,
};

use super::Plane;

/// The agent's clock: real monotonic time, wall time from the plane's manual clock (commands
/// carry the plane's `iat`).
pub struct TestClock(pub ManualClock);

impl termplane_runtime_smol::Clock for TestClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
    fn unix(&self) -> UnixSecs {
        UnixSecs(self.0.now_ms().div_euclid(1000))
    }
}

/// What a node holds after enrollment.
#[derive(Clone)]
pub struct Enrolled {
    pub node_id: String,
    pub node_key: String,
    pub node_static: Key32,
    pub control_pin: Option<Key32>,
    pub control_key: Key32,
    pub signing: PublicJwk,
    pub ws_url: String,
}

pub fn random_static() -> StaticKeypair {
    let mut rng = termplane_machines::rng::from_seed(termplane_runtime_smol::os_seed().unwrap());
    StaticKeypair::generate(&mut rng)
}

/// Enrolls a node over REST; with `pinned` the enrollment posts `encryptPublicKey`.
pub fn enroll(p: &Plane, cookie: &str, name: &str, pinned: bool) -> Enrolled {
    let (_, key) = p.setup_key(cookie);
    let kp = random_static();
    let mut body = super::enroll_body(&key, name);
    if pinned {
        body["encryptPublicKey"] = Value::String(kp.public().to_b64());
    } else {
        body.as_object_mut().unwrap().remove("encryptPublicKey");
    }
    let r = p
        .req()
        .method("POST")
        .path("/api/nodes/enroll")
        .json(body)
        .send();
    assert_eq!(r.status, 201, "{}", r.text());
    let v = r.json();
    let control_key = Key32::from_b64(v["controlEncryptPublicKey"].as_str().unwrap()).unwrap();
    Enrolled {
        node_id: v["nodeId"].as_str().unwrap().to_owned(),
        node_key: v["nodeKey"].as_str().unwrap().to_owned(),
        node_static: kp.public(),
        control_pin: pinned.then_some(control_key),
        control_key,
        signing: serde_json::from_value(v["signingPublicJwk"].clone()).unwrap(),
        ws_url: v["wsUrl"].as_str().unwrap().to_owned(),
    }
}

pub fn ready(version: &str) -> Ready {
    Ready {
        agent_version: Some(version.to_owned()),
        protocol_version: Some(u64::from(termplane_proto::NODE_PROTOCOL_VERSION)),
        os: Os::Linux,
        arch: "riscv64".into(),
        hostname: "agent-host".into(),
        data_dir: "/var/lib/termplane-node".into(),
        capabilities: vec![],
        self_invoke: None,
        home_dir: "/home/node".into(),
        runtime: None,
        maintenance: None,
    }
}

/// The fake executor: records every command it ran.
#[derive(Clone, Default)]
pub struct FakeExec {
    pub ran: Arc<Mutex<Vec<Command>>>,
    pub pin: Arc<Mutex<Option<Option<Key32>>>>,
    /// Sends no census after establishing (a node between its `ready` and its census).
    pub withhold_census: bool,
    /// Answers `launch`, `kill` and `probe` for make-believe panes (`None`: refuses them).
    pub panes: Option<Panes>,
}

/// The make-believe panes of a [`FakeExec`]: which run, and how a kill ends one.
#[derive(Clone, Default)]
pub struct Panes {
    pub alive: Arc<Mutex<std::collections::HashSet<String>>>,
    /// The node's own control channel (set when it starts): where a kill sends its `exit`.
    pub control: Arc<Mutex<Option<smol::channel::Sender<AgentControl>>>>,
    /// When set, a kill first reports the pane's `exit` (as a node whose exit check saw the
    /// pane go does), then answers only once the test sends on this channel.
    pub exit_before_kill_answer: Option<smol::channel::Receiver<()>>,
    /// Each pane's make-believe terminal: what was typed into it is its output (an echo), read
    /// through `capture` (the replay) and tails (`tail_start`, `tail_stop`).
    pub screens: Screens,
    /// The node's make-believe disk, for uploads (`path_exists`, `write_file`).
    pub disk: Disk,
    /// Each pane's own token, as its launch carried it (`TERMPLANE_TOKEN`).
    pub tokens: Arc<Mutex<std::collections::HashMap<String, String>>>,
}

/// A partial file: the chunk expected next, and the bytes so far.
pub type Partial = (u32, Vec<u8>);

/// Files written by `write_file` as the node writes them: chunks in order into a partial file,
/// put in place with the last one; a chunk out of order (or the abandon, chunk `u32::MAX`) drops
/// the partial file.
#[derive(Clone, Default)]
pub struct Disk {
    /// Path → the chunk expected next and the bytes so far.
    pub partial: Arc<Mutex<std::collections::HashMap<String, Partial>>>,
    /// Path → a complete file.
    pub files: Arc<Mutex<std::collections::HashMap<String, Vec<u8>>>>,
}

impl Disk {
    fn write(&self, jti: String, w: &termplane_proto::command::WriteFile) -> CommandResult {
        let mut partial = self.partial.lock().unwrap();
        let (next, mut bytes) = partial.remove(&w.path).unwrap_or((0, Vec::new()));
        if w.chunk != next {
            return CommandResult::err(jti, "chunk out of order: the partial file was removed");
        }
        let Ok(data) = termplane_proto::key::b64url_decode(&w.chunk_b64) else {
            return CommandResult::err(jti, "chunk_b64 is not base64url");
        };
        bytes.extend_from_slice(&data);
        let n = bytes.len();
        if w.eof {
            self.files.lock().unwrap().insert(w.path.clone(), bytes);
        } else {
            partial.insert(w.path.clone(), (next + 1, bytes));
        }
        CommandResult::ok(
            jti,
            Some(json!({ "path": w.path, "bytes": n, "done": w.eof })),
        )
    }
}

/// The make-believe terminals of [`Panes`]: a log per pane (what was typed, Enter as CR LF),
/// and the tails running on them.
#[derive(Clone, Default)]
pub struct Screens {
    pub logs: Arc<Mutex<std::collections::HashMap<String, Vec<u8>>>>,
    /// Tail key → its pane.
    pub tails: Arc<Mutex<std::collections::HashMap<String, String>>>,
    /// Pane → the grid it was last resized to.
    pub grids: Arc<Mutex<std::collections::HashMap<String, (u16, u16)>>>,
}

impl Screens {
    /// `output` events for the tails of pane `id` of the bytes from `from` on.
    fn outputs(&self, id: &str, only: Option<&str>, from: u64) -> Vec<termplane_proto::Event> {
        let logs = self.logs.lock().unwrap();
        let log = logs.get(id).map_or(&[][..], Vec::as_slice);
        let from = usize::try_from(from).unwrap().min(log.len());
        if from == log.len() {
            return Vec::new();
        }
        self.tails
            .lock()
            .unwrap()
            .iter()
            .filter(|(k, p)| p.as_str() == id && only.is_none_or(|o| o == k.as_str()))
            .map(|(k, _)| {
                termplane_proto::Event::Output(termplane_proto::event::Output {
                    sub_id: k.clone(),
                    from_byte: from as u64,
                    to_byte: log.len() as u64,
                    data_b64: termplane_proto::key::b64url_encode(&log[from..]),
                })
            })
            .collect()
    }
}

impl Panes {
    /// Launch answers say this start; exits are seen after it.
    const STARTED_AT: &str = "2026-01-01T00:00:00Z";
    const ENDED_AT: &str = "2026-01-01T00:00:01Z";

    async fn run(&self, jti: String, command: Command) -> CommandResult {
        match command {
            Command::Launch(l) => {
                self.alive
                    .lock()
                    .unwrap()
                    .insert(l.subshell_id.as_str().to_owned());
                if let Some(t) = l.credential_env.get("TERMPLANE_TOKEN") {
                    self.tokens
                        .lock()
                        .unwrap()
                        .insert(l.subshell_id.as_str().to_owned(), t.clone());
                }
                CommandResult::ok(jti, Some(json!({ "startedAt": Self::STARTED_AT })))
            }
            Command::Kill(r) => {
                let id = r.subshell_id.as_str().to_owned();
                let existed = self.alive.lock().unwrap().remove(&id);
                if let Some(go_on) = &self.exit_before_kill_answer {
                    let exit = termplane_proto::Event::Exit(termplane_proto::event::Exit {
                        subshell_id: r.subshell_id.clone(),
                        exit_code: None,
                        at: Self::ENDED_AT.into(),
                    });
                    let control = self.control.lock().unwrap().clone();
                    if let Some(c) = control {
                        let _ = c.send(AgentControl::Send(Box::new(exit))).await;
                    }
                    let _ = go_on.recv().await;
                }
                CommandResult::ok(jti, Some(json!({ "existed": existed })))
            }
            // Every harness asked for is there.
            Command::Detect(d) => {
                let found: Vec<Value> = d
                    .rules
                    .iter()
                    .map(|r| json!({ "harnessId": r.harness_id, "installed": true, "binaryPath": format!("/usr/bin/{}", r.harness_id), "version": "1.0.0" }))
                    .collect();
                CommandResult::ok(
                    jti,
                    Some(json!({ "harnesses": found, "env": {}, "at": Self::STARTED_AT })),
                )
            }
            Command::Probe(p) => {
                let alive = self.alive.lock().unwrap().clone();
                let rows: Vec<Value> = p
                    .subshell_ids
                    .iter()
                    .map(|id| json!({ "subshellId": id.as_str(), "alive": alive.contains(id.as_str()) }))
                    .collect();
                CommandResult::ok(jti, Some(json!({ "subshells": rows })))
            }
            Command::Capture(c) if c.replay => {
                let log = self
                    .screens
                    .logs
                    .lock()
                    .unwrap()
                    .get(c.subshell_id.as_str())
                    .cloned()
                    .unwrap_or_default();
                CommandResult::ok(
                    jti,
                    Some(json!({
                        "replay_b64": termplane_proto::key::b64url_encode(&log),
                        "logOffset": log.len(), "cols": 80, "rows": 24, "alternate": false,
                    })),
                )
            }
            Command::TailStart(t) => {
                let id = t.subshell_id.as_str().to_owned();
                self.screens
                    .tails
                    .lock()
                    .unwrap()
                    .insert(t.sub_id.clone(), id.clone());
                let from = t.from_byte.unwrap_or(u64::MAX);
                self.emit(self.screens.outputs(&id, Some(&t.sub_id), from))
                    .await;
                CommandResult::ok(jti, None)
            }
            Command::TailStop(t) => {
                let existed = self.screens.tails.lock().unwrap().remove(&t.sub_id);
                CommandResult::ok(jti, Some(json!({ "existed": existed.is_some() })))
            }
            Command::Input(i) => {
                let id = i.subshell_id.as_str().to_owned();
                let from = {
                    let mut logs = self.screens.logs.lock().unwrap();
                    let log = logs.entry(id.clone()).or_default();
                    let from = log.len() as u64;
                    log.extend_from_slice(i.data.as_bytes());
                    for _ in &i.keys {
                        log.extend_from_slice(b"\r\n");
                    }
                    from
                };
                self.emit(self.screens.outputs(&id, None, from)).await;
                CommandResult::ok(jti, None)
            }
            Command::Resize(r) => {
                self.screens
                    .grids
                    .lock()
                    .unwrap()
                    .insert(r.subshell_id.as_str().to_owned(), (r.cols, r.rows));
                CommandResult::ok(jti, None)
            }
            Command::PathExists(p) => {
                let exists = self.disk.files.lock().unwrap().contains_key(&p.path);
                CommandResult::ok(jti, Some(json!({ "exists": exists })))
            }
            Command::WriteFile(w) => self.disk.write(jti, &w),
            other => CommandResult::err(jti, format!("unsupported: {}", other.kind())),
        }
    }

    /// Sends `events` as the node's own event sources would.
    async fn emit(&self, events: Vec<termplane_proto::Event>) {
        let control = self.control.lock().unwrap().clone();
        if let Some(c) = control {
            for e in events {
                let _ = c.send(AgentControl::Send(Box::new(e))).await;
            }
        }
    }
}

impl FakeExec {
    pub fn kinds(&self) -> Vec<String> {
        self.ran
            .lock()
            .unwrap()
            .iter()
            .map(|c| c.kind().to_owned())
            .collect()
    }
}

impl Executor for FakeExec {
    fn execute(&self, jti: String, command: Command) -> BoxFuture<CommandResult> {
        self.ran.lock().unwrap().push(command.clone());
        let panes = self.panes.clone();
        Box::pin(async move {
            match command {
                Command::Launch(_)
                | Command::Kill(_)
                | Command::Probe(_)
                | Command::Detect(_)
                | Command::Capture(_)
                | Command::TailStart(_)
                | Command::TailStop(_)
                | Command::Input(_)
                | Command::Resize(_)
                | Command::PathExists(_)
                | Command::WriteFile(_)
                    if panes.is_some() =>
                {
                    panes.unwrap().run(jti, command).await
                }
                Command::Ping(_) => CommandResult::ok(jti, Some(json!({"pong": true}))),
                Command::Update(_) | Command::SetAllowedDirs(_) | Command::SetMaintenance(_) => {
                    CommandResult::ok(jti, None)
                }
                _ => CommandResult::err(jti, "unsupported"),
            }
        })
    }

    fn on_established(&self, at: String) -> Vec<termplane_proto::Event> {
        let all = vec![
            termplane_proto::Event::SubshellsReport(termplane_proto::event::SubshellsReport {
                subshells: vec![],
            }),
            termplane_proto::Event::Inventory(termplane_proto::event::Inventory {
                harnesses: vec![],
                at,
            }),
        ];
        let skip = usize::from(self.withhold_census);
        all.into_iter().skip(skip).collect()
    }

    fn persist_control_pin(&self, pin: Option<Key32>) {
        *self.pin.lock().unwrap() = Some(pin);
    }
}

/// A running test node (its own thread and smol runtime).
pub struct TestNode {
    pub exec: FakeExec,
    pub reports: smol::channel::Receiver<AgentReport>,
    control: smol::channel::Sender<AgentControl>,
    thread: Option<std::thread::JoinHandle<AgentOutcome>>,
    pub seen: Vec<AgentReport>,
}

impl TestNode {
    pub fn start(p: &Plane, e: &Enrolled, version: &str) -> Self {
        Self::start_with(p, e, e.control_pin, version)
    }

    /// A node that sends no census after establishing until the test sends one.
    pub fn start_without_census(p: &Plane, e: &Enrolled, version: &str) -> Self {
        let exec = FakeExec {
            withhold_census: true,
            ..FakeExec::default()
        };
        Self::start_exec(p, e, e.control_pin, version, exec)
    }

    pub fn start_with(p: &Plane, e: &Enrolled, pin: Option<Key32>, version: &str) -> Self {
        Self::start_exec(p, e, pin, version, FakeExec::default())
    }

    /// A node whose panes are make-believe: launches, kills and probes are answered (see
    /// [`Panes`]).
    pub fn start_panes(p: &Plane, e: &Enrolled, panes: Panes) -> Self {
        let exec = FakeExec {
            panes: Some(panes),
            ..FakeExec::default()
        };
        Self::start_exec(p, e, e.control_pin, "0.17.0", exec)
    }

    /// A node of make-believe panes whose `ready` offers the screen replay (so a terminal
    /// attaches to its panes: see [`Screens`]).
    pub fn start_screens(p: &Plane, e: &Enrolled, panes: Panes) -> Self {
        let exec = FakeExec {
            panes: Some(panes),
            ..FakeExec::default()
        };
        let mut r = ready("0.17.0");
        r.capabilities = vec![termplane_proto::command::SCREEN_REPLAY.to_owned()];
        Self::start_full(p, e, e.control_pin, r, exec)
    }

    /// A node whose `ready` says what `ready` holds.
    pub fn start_ready(p: &Plane, e: &Enrolled, ready: Ready) -> Self {
        Self::start_full(p, e, e.control_pin, ready, FakeExec::default())
    }

    fn start_exec(
        p: &Plane,
        e: &Enrolled,
        pin: Option<Key32>,
        version: &str,
        exec: FakeExec,
    ) -> Self {
        Self::start_full(p, e, pin, ready(version), exec)
    }

    fn start_full(
        p: &Plane,
        e: &Enrolled,
        pin: Option<Key32>,
        ready: Ready,
        exec: FakeExec,
    ) -> Self {
        let cfg = AgentConfig {
            node_id: e.node_id.clone(),
            node_key: e.node_key.clone(),
            node_static: e.node_static,
            control_pin: pin,
            signing_key: e.signing.clone(),
            process_start: UnixSecs(p.clock.now_ms().div_euclid(1000) - 60),
            carried_over: Vec::new(),
            ready,
        };
        let (rtx, rrx) = smol::channel::unbounded();
        let (ctx, crx) = smol::channel::unbounded();
        if let Some(panes) = &exec.panes {
            *panes.control.lock().unwrap() = Some(ctx.clone());
        }
        let mut opts = AgentOptions::new(e.ws_url.clone());
        opts.reports = Some(rtx);
        opts.dial_timeout = Duration::from_secs(5);
        let exec2 = exec.clone();
        let clock = TestClock(p.clock.clone());
        let thread = std::thread::spawn(move || {
            smol::block_on(agent::run(cfg, opts, &exec2, crx, &clock)).unwrap()
        });
        Self {
            exec,
            reports: rrx,
            control: ctx,
            thread: Some(thread),
            seen: Vec::new(),
        }
    }

    /// Waits (bounded) for a report matching `pred`, keeping every report seen.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&AgentReport) -> bool) -> AgentReport {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let r = smol::block_on(async {
                async { self.reports.recv().await.ok() }
                    .or(async {
                        smol::Timer::after(left).await;
                        None
                    })
                    .await
            });
            match r {
                Some(r) => {
                    self.seen.push(r.clone());
                    if pred(&r) {
                        return r;
                    }
                }
                None => panic!("timed out waiting for {what}; saw {:?}", self.seen),
            }
        }
    }

    pub fn wait_established(&mut self) {
        self.wait_for("established", |r| matches!(r, AgentReport::Established));
    }

    /// Sends `event` to the plane, as the node's own event sources would.
    pub fn send(&self, event: termplane_proto::Event) {
        let _ = self.control.try_send(AgentControl::Send(Box::new(event)));
    }

    /// Reports already delivered, without waiting.
    pub fn drain(&mut self) -> Vec<AgentReport> {
        while let Ok(r) = self.reports.try_recv() {
            self.seen.push(r);
        }
        self.seen.clone()
    }

    /// Asks the node to shut down and returns how its driver ended.
    pub fn shutdown(mut self) -> AgentOutcome {
        let _ = self.control.try_send(AgentControl::Shutdown);
        self.thread.take().unwrap().join().unwrap()
    }

    /// Waits for the driver to end on its own (an exit the plane caused).
    pub fn join(mut self) -> AgentOutcome {
        let t = self.thread.take().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while !t.is_finished() {
            assert!(Instant::now() < deadline, "agent did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
        t.join().unwrap()
    }
}

impl Drop for TestNode {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            let _ = self.control.try_send(AgentControl::Shutdown);
            let _ = t.join();
        }
    }
}

/// The node's row (it must exist).
pub fn node_row(p: &Plane, id: &str) -> termplane::store::Node {
    smol::block_on(p.svc.store().node(id))
        .unwrap()
        .expect("the node row exists")
}

/// The row's liveness.
pub fn liveness(p: &Plane, id: &str) -> String {
    smol::block_on(p.svc.store().node(id))
        .unwrap()
        .map(|n| n.liveness)
        .unwrap_or_default()
}

/// Waits (at most 10 s) until the row reads `want`.
pub fn wait_liveness(p: &Plane, id: &str, want: &str) {
    termplane_test_support::wait_until(
        &format!("row {id} to read {want}"),
        Duration::from_secs(10),
        || (liveness(p, id) == want).then_some(()),
    );
}

// ----- raw WebSocket client -----

pub type RawWs = async_tungstenite::WebSocketStream<smol::net::TcpStream>;

/// Opens `/ws/node` with a bearer (no handshake frames sent). Returns the response status on a
/// refused upgrade.
pub fn open_ws(addr: SocketAddr, bearer: Option<&str>) -> Result<RawWs, u16> {
    use async_tungstenite::tungstenite::client::IntoClientRequest;
    smol::block_on(async {
        let mut req = format!("ws://{addr}/ws/node")
            .into_client_request()
            .unwrap();
        if let Some(b) = bearer {
            req.headers_mut()
                .insert("authorization", format!("Bearer {b}").parse().unwrap());
        }
        let tcp = smol::net::TcpStream::connect(addr).await.unwrap();
        let cfg = async_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(Some(4 << 20))
            .max_frame_size(Some(4 << 20));
        match async_tungstenite::client_async_with_config(req, tcp, Some(cfg)).await {
            Ok((ws, _)) => Ok(ws),
            Err(async_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
            Err(e) => panic!("upgrade failed: {e}"),
        }
    })
}

/// The first flight of a handshake (kx text, sealed binding) and the initiator to finish it.
pub fn first_flight(e: &Enrolled) -> (String, Vec<u8>, Initiator) {
    let mut rng = termplane_machines::rng::from_seed(termplane_runtime_smol::os_seed().unwrap());
    let params = InitiatorParams {
        plane_static: e.control_key,
        node_static: e.node_static,
        binding: Binding {
            node_id: e.node_id.clone(),
            node_key: e.node_key.clone(),
            protocol_version: termplane_proto::NODE_PROTOCOL_VERSION,
        },
    };
    let (init, hello) = Initiator::start(&params, &mut rng).unwrap();
    (NodeFrame::Kx(hello.kx).to_json(), hello.first_binary, init)
}

pub fn send_text(ws: &mut RawWs, t: &str) {
    use async_tungstenite::tungstenite::Message;
    smol::block_on(ws.send(Message::Text(t.to_owned().into()))).unwrap();
}

pub fn send_binary(ws: &mut RawWs, b: Vec<u8>) {
    use async_tungstenite::tungstenite::Message;
    smol::block_on(ws.send(Message::Binary(b.into()))).unwrap();
}

/// Next data message or the close code (bounded wait).
#[derive(Debug)]
pub enum Got {
    Binary(Vec<u8>),
    Text(String),
    Close(Option<u16>, String),
    Eof,
    Timeout,
}

pub fn recv(ws: &mut RawWs, limit: Duration) -> Got {
    use async_tungstenite::tungstenite::Message;
    use futures_lite::StreamExt;
    smol::block_on(
        async {
            loop {
                match ws.next().await {
                    None | Some(Err(_)) => return Got::Eof,
                    Some(Ok(Message::Binary(b))) => return Got::Binary(b.to_vec()),
                    Some(Ok(Message::Text(t))) => return Got::Text(t.as_str().to_owned()),
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

/// A hand-driven node that completes the handshake and sends `ready`: returns the socket and
/// the established keys (to seal frames of chosen sizes).
pub fn manual_online(p: &Plane, e: &Enrolled) -> (RawWs, Established) {
    let mut ws = open_ws(p.addr, Some(&e.node_key)).unwrap();
    let (kx, binding, init) = first_flight(e);
    send_text(&mut ws, &kx);
    send_binary(&mut ws, binding);
    let Got::Binary(push) = recv(&mut ws, Duration::from_secs(10)) else {
        panic!("no first push");
    };
    let mut link = init.on_first_binary(&push).unwrap();
    let ready = NodeFrame::Ready(Box::new(ready("0.17.0"))).to_json();
    send_binary(&mut ws, link.sealer.seal_frame(ready.as_bytes()).unwrap());
    wait_liveness(p, &e.node_id, "online");
    (ws, link)
}

/// A raw TCP socket that completed the `/ws/node` upgrade by hand (for malformed frames).
pub fn raw_upgraded(addr: SocketAddr, bearer: &str, extra: &str) -> (TcpStream, String) {
    use std::io::{Read, Write};
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    let req = format!(
        "GET /ws/node HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Authorization: Bearer {bearer}\r\n{extra}\r\n"
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(s.read(&mut b).unwrap(), 1, "closed during the upgrade");
        head.push(b[0]);
    }
    (s, String::from_utf8(head).unwrap())
}

/// A masked client frame.
pub fn client_frame(first: u8, payload: &[u8], masked: bool) -> Vec<u8> {
    let mut out = vec![first];
    let mask_bit = if masked { 0x80 } else { 0 };
    let n = payload.len();
    if n < 126 {
        out.push(mask_bit | u8::try_from(n).unwrap());
    } else if n <= 0xffff {
        out.push(mask_bit | 126);
        out.extend_from_slice(&u16::try_from(n).unwrap().to_be_bytes());
    } else {
        out.push(mask_bit | 127);
        out.extend_from_slice(&(n as u64).to_be_bytes());
    }
    if masked {
        let key = [0x11, 0x22, 0x33, 0x44];
        out.extend_from_slice(&key);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    } else {
        out.extend_from_slice(payload);
    }
    out
}

/// Reads server frames until a close frame (its code) or EOF (`None`), bounded by the socket's
/// read timeout.
pub fn read_close(s: &mut TcpStream) -> Option<u16> {
    use std::io::Read;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        // Parse whole frames from the front.
        loop {
            if buf.len() < 2 {
                break;
            }
            let op = buf[0] & 0x0f;
            let len7 = usize::from(buf[1] & 0x7f);
            let (len, hdr) = match len7 {
                126 if buf.len() >= 4 => (usize::from(u16::from_be_bytes([buf[2], buf[3]])), 4),
                127 if buf.len() >= 10 => (
                    usize::try_from(u64::from_be_bytes(buf[2..10].try_into().unwrap())).unwrap(),
                    10,
                ),
                126 | 127 => break,
                n => (n, 2),
            };
            if buf.len() < hdr + len {
                break;
            }
            if op == 0x8 {
                return (len >= 2).then(|| u16::from_be_bytes([buf[hdr], buf[hdr + 1]]));
            }
            buf.drain(..hdr + len);
        }
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}
