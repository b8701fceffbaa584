//! A back-to-back harness: one agent link and the plane links of each of its sockets, wired in
//! memory with a simulated clock, and a tiny plane "store" answering the machines' decisions.
// Tests take one arbitrary origin `Instant::now()`; the simulated clock only adds to it.
#![allow(
    clippy::disallowed_methods,
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::collections::{BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use termplane_machines::agent_link::{AgentAction, AgentConfig, AgentInput, AgentLink};
use termplane_machines::jws::Es256Signer;
use termplane_machines::kx::StaticKeypair;
use termplane_machines::plane_link::{
    BindingRefusal, LinkClass, PlaneAction, PlaneInput, PlaneLink,
};
use termplane_machines::replay::ReplayRecord;
use termplane_machines::time::UnixSecs;
use termplane_proto::event::{Event, Os, Ready};
use termplane_proto::{Claims, CloseCode, CommandResult, Key32, node_audience};

pub const NODE_ID: &str = "node-1";
pub const NODE_KEY: &str = "tp_node_key_secret";
pub const UNIX0: i64 = 1_800_000_000;

/// A message in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Text(String),
    Binary(Vec<u8>),
}

/// The plane's row and its persisted facts, as the runtime would keep them.
pub struct Store {
    pub pin: Option<Key32>,
    pub node_key: String,
    pub seen_ephemerals: BTreeSet<Key32>,
    pub identity_writes: Vec<Ready>,
}

pub fn ready(version: &str, protocol: u64) -> Ready {
    Ready {
        agent_version: Some(version.to_owned()),
        protocol_version: Some(protocol),
        os: Os::Linux,
        arch: "x86_64".into(),
        hostname: "box".into(),
        data_dir: "/var/lib/termplane-node".into(),
        capabilities: vec!["tail".into()],
        self_invoke: None,
        home_dir: "/home/u".into(),
        runtime: None,
        maintenance: None,
    }
}

/// One plane socket with what it did.
pub struct Socket {
    pub link: PlaneLink,
    pub actions: Vec<PlaneAction>,
    pub to_plane: VecDeque<Msg>,
    pub to_agent: VecDeque<Msg>,
    pub closed_by_plane: Option<(CloseCode, String)>,
    pub closed_by_agent: Option<(CloseCode, String)>,
    pub authenticated: bool,
    /// Everything the plane machine was fed, in order (for replay tests).
    pub received: Vec<Msg>,
}

pub struct Pair {
    pub t0: Instant,
    pub now: Instant,
    pub plane_keys: StaticKeypair,
    pub signer: Es256Signer,
    pub store: Store,
    pub agent: AgentLink,
    pub agent_actions: Vec<AgentAction>,
    pub sockets: Vec<Socket>,
    /// Index of the socket the agent is on, if any.
    pub current: Option<usize>,
    /// The registry: index of the newest authenticated socket.
    pub newest: Option<usize>,
    /// Commands the agent was asked to execute, in order.
    pub executed: Vec<(String, termplane_proto::Command)>,
    /// Answer every Execute at once with `{ ok: true }`.
    pub auto_answer: bool,
    /// Whether a dial succeeds.
    pub plane_reachable: bool,
    /// The `Retry-After` an unreachable plane's refusal carries.
    pub refusal_retry_after: Option<Duration>,
    pub seed: u8,
    pub next_jti: u64,
    /// Every replay record the runtime persisted before an execution.
    pub persisted: Vec<ReplayRecord>,
    /// Whether the plane's WebSocket layer answers the agent's pings (a stopped plane does not).
    pub plane_answers_pings: bool,
    /// The node's static key (kept for a restarted agent).
    pub node_static: Key32,
}

impl Pair {
    /// A paired node (pin on both sides) whose agent reports `ready`.
    pub fn new(ready: Ready) -> Self {
        Self::build(ready, true)
    }

    /// `paired == false`: the row has no pin and the agent holds none.
    pub fn build(ready: Ready, paired: bool) -> Self {
        let mut rng = termplane_machines::rng::from_seed([42; 32]);
        let plane_keys = StaticKeypair::generate(&mut rng);
        let node_keys = StaticKeypair::generate(&mut rng);
        let signer = Es256Signer::generate(&mut rng);
        let t0 = Instant::now();
        let cfg = AgentConfig {
            node_id: NODE_ID.into(),
            node_key: NODE_KEY.into(),
            node_static: node_keys.public(),
            control_pin: paired.then(|| plane_keys.public()),
            signing_key: signer.public_jwk(),
            process_start: UnixSecs(UNIX0),
            carried_over: Vec::new(),
            ready,
        };
        let agent = AgentLink::new(cfg, [7; 32], t0).unwrap();
        let store = Store {
            pin: paired.then(|| node_keys.public()),
            node_key: NODE_KEY.into(),
            seen_ephemerals: BTreeSet::new(),
            identity_writes: vec![],
        };
        Self {
            t0,
            now: t0,
            plane_keys,
            signer,
            store,
            agent,
            agent_actions: vec![],
            sockets: vec![],
            current: None,
            newest: None,
            executed: vec![],
            auto_answer: true,
            plane_reachable: true,
            refusal_retry_after: None,
            seed: 1,
            next_jti: 1,
            persisted: Vec::new(),
            plane_answers_pings: true,
            node_static: node_keys.public(),
        }
    }

    /// The node process restarts now (SIGKILL and start again, `after` of wall time later): a new
    /// agent machine that carries over what the old one persisted; the old socket is gone.
    pub fn restart_agent(&mut self, after: Duration) {
        if let Some(i) = self.current.take() {
            let now = self.now;
            self.sockets[i].closed_by_agent = Some((CloseCode::Normal, "killed".into()));
            self.sockets[i]
                .link
                .handle_input(PlaneInput::PeerClosed { code: None }, now);
        }
        self.advance(after);
        let cfg = AgentConfig {
            node_id: NODE_ID.into(),
            node_key: NODE_KEY.into(),
            node_static: self.node_static,
            control_pin: Some(self.plane_keys.public()),
            signing_key: self.signer.public_jwk(),
            process_start: self.unix(),
            carried_over: self.persisted.clone(),
            ready: ready("0.17.0", 14),
        };
        self.agent = AgentLink::new(cfg, [9; 32], self.now).unwrap();
        self.run();
    }

    pub fn unix(&self) -> UnixSecs {
        UnixSecs(UNIX0 + i64::try_from((self.now - self.t0).as_secs()).unwrap())
    }

    /// A new plane socket classified by the store's row, as the upgrade handler would build it.
    pub fn open_socket(&mut self) -> usize {
        let class = match self.store.pin {
            Some(pin) => LinkClass::Pinned(pin),
            None => LinkClass::Legacy,
        };
        self.seed += 1;
        let link = PlaneLink::new(NODE_ID, class, &self.plane_keys, [self.seed; 32], self.now);
        self.sockets.push(Socket {
            link,
            actions: vec![],
            to_plane: VecDeque::new(),
            to_agent: VecDeque::new(),
            closed_by_plane: None,
            closed_by_agent: None,
            authenticated: false,
            received: vec![],
        });
        self.sockets.len() - 1
    }

    fn agent_socket_open(&self) -> Option<usize> {
        self.current.filter(|i| {
            let s = &self.sockets[*i];
            s.closed_by_plane.is_none() && s.closed_by_agent.is_none()
        })
    }

    /// Carries out everything both sides want until nothing moves.
    pub fn run(&mut self) {
        for _ in 0..10_000 {
            let mut moved = false;
            while let Some(a) = self.agent.poll_action() {
                moved = true;
                self.agent_action(a.clone());
                self.agent_actions.push(a);
            }
            for i in 0..self.sockets.len() {
                while let Some(a) = self.sockets[i].link.poll_action() {
                    moved = true;
                    self.plane_action(i, a.clone());
                    self.sockets[i].actions.push(a);
                }
            }
            for i in 0..self.sockets.len() {
                if let Some(m) = self.sockets[i].to_plane.pop_front() {
                    moved = true;
                    let now = self.now;
                    let s = &mut self.sockets[i];
                    s.received.push(m.clone());
                    match &m {
                        Msg::Text(t) => s.link.handle_input(PlaneInput::Text(t), now),
                        Msg::Binary(b) => s.link.handle_input(PlaneInput::Binary(b), now),
                    }
                }
                if let Some(m) = self.sockets[i].to_agent.pop_front() {
                    moved = true;
                    if self.current == Some(i) {
                        let (now, unix) = (self.now, self.unix());
                        match &m {
                            Msg::Text(t) => self.agent.handle_input(AgentInput::Text(t), now, unix),
                            Msg::Binary(b) => {
                                self.agent.handle_input(AgentInput::Binary(b), now, unix)
                            }
                        }
                    }
                }
            }
            if !moved {
                return;
            }
        }
        panic!("the pair never settled");
    }

    fn agent_action(&mut self, a: AgentAction) {
        let (now, unix) = (self.now, self.unix());
        match a {
            AgentAction::Dial => {
                if self.plane_reachable {
                    let i = self.open_socket();
                    self.current = Some(i);
                    self.agent.handle_input(AgentInput::Opened, now, unix);
                } else {
                    self.current = None;
                    self.agent.handle_input(
                        AgentInput::DialFailed {
                            retry_after: self.refusal_retry_after,
                        },
                        now,
                        unix,
                    );
                }
            }
            AgentAction::SendText(t) => {
                if let Some(i) = self.agent_socket_open() {
                    self.sockets[i].to_plane.push_back(Msg::Text(t));
                }
            }
            AgentAction::SendBinary(b) => {
                if let Some(i) = self.agent_socket_open() {
                    self.sockets[i].to_plane.push_back(Msg::Binary(b));
                }
            }
            AgentAction::Close { code, reason } => {
                if let Some(i) = self.agent_socket_open() {
                    // Frames the agent sent before its close reach the plane first.
                    while let Some(m) = self.sockets[i].to_plane.pop_front() {
                        self.sockets[i].received.push(m.clone());
                        match &m {
                            Msg::Text(t) => {
                                self.sockets[i].link.handle_input(PlaneInput::Text(t), now)
                            }
                            Msg::Binary(b) => self.sockets[i]
                                .link
                                .handle_input(PlaneInput::Binary(b), now),
                        }
                    }
                    while let Some(a) = self.sockets[i].link.poll_action() {
                        self.plane_action(i, a.clone());
                        self.sockets[i].actions.push(a);
                    }
                    self.sockets[i].closed_by_agent = Some((code, reason));
                    self.sockets[i].link.handle_input(
                        PlaneInput::PeerClosed {
                            code: Some(code.as_u16()),
                        },
                        now,
                    );
                }
                self.current = None;
            }
            AgentAction::Execute {
                jti,
                command,
                record,
            } => {
                self.persisted.push(record);
                self.executed.push((jti.clone(), *command));
                if self.auto_answer {
                    self.agent.record_result(CommandResult::ok(
                        jti,
                        Some(serde_json::json!({"done": true})),
                    ));
                }
            }
            AgentAction::Ping => {
                // The plane's WebSocket layer sees the ping and answers it with a pong.
                if self.plane_answers_pings
                    && let Some(i) = self.agent_socket_open()
                {
                    self.sockets[i].link.handle_input(PlaneInput::Alive, now);
                    self.agent.handle_input(AgentInput::Alive, now, unix);
                }
            }
            AgentAction::HeartbeatDue => {
                let at = format!("{}", unix.0);
                self.agent
                    .send_event(&Event::Heartbeat(termplane_proto::event::Heartbeat { at }));
            }
            _ => {}
        }
    }

    fn plane_action(&mut self, i: usize, a: PlaneAction) {
        let now = self.now;
        match a {
            PlaneAction::SendText(t) => self.sockets[i].to_agent.push_back(Msg::Text(t)),
            PlaneAction::SendBinary(b) => self.sockets[i].to_agent.push_back(Msg::Binary(b)),
            PlaneAction::Close { code, reason } => {
                self.sockets[i].closed_by_plane = Some((code, reason.clone()));
                if self.current == Some(i) {
                    // Frames already queued towards the agent arrive before the close.
                    while let Some(m) = self.sockets[i].to_agent.pop_front() {
                        let unix = self.unix();
                        match &m {
                            Msg::Text(t) => self.agent.handle_input(AgentInput::Text(t), now, unix),
                            Msg::Binary(b) => {
                                self.agent.handle_input(AgentInput::Binary(b), now, unix)
                            }
                        }
                    }
                    if self.current == Some(i) {
                        self.current = None;
                        let unix = self.unix();
                        self.agent.handle_input(
                            AgentInput::Closed {
                                code: Some(code.as_u16()),
                                reason: &reason,
                            },
                            now,
                            unix,
                        );
                    }
                }
            }
            PlaneAction::CheckBinding {
                node_key,
                ephemeral,
            } => {
                let verdict = if node_key != self.store.node_key {
                    Err(BindingRefusal::NodeKey)
                } else if !self.store.seen_ephemerals.insert(ephemeral) {
                    Err(BindingRefusal::ReplayedEphemeral)
                } else {
                    Ok(())
                };
                self.sockets[i]
                    .link
                    .handle_input(PlaneInput::BindingVerdict(verdict), now);
            }
            PlaneAction::ClaimPin(k) => {
                let ok = self.store.pin.is_none();
                if ok {
                    self.store.pin = Some(k);
                }
                self.sockets[i]
                    .link
                    .handle_input(PlaneInput::PinClaimVerdict(ok), now);
            }
            PlaneAction::Authenticated => {
                self.sockets[i].authenticated = true;
                if let Some(old) = self.newest.replace(i)
                    && old != i
                {
                    self.sockets[old]
                        .link
                        .handle_input(PlaneInput::Superseded, now);
                }
            }
            PlaneAction::PersistIdentity(r) => self.store.identity_writes.push(*r),
            _ => {}
        }
    }

    /// Advances the simulated clock to `until`, firing every timer on the way in order.
    pub fn advance_to(&mut self, until: Instant) {
        loop {
            self.run();
            let mut next: Option<Instant> = self.agent.poll_timeout().map(|(t, _)| t);
            for s in &self.sockets {
                if let Some((t, _)) = s.link.poll_timeout() {
                    next = Some(next.map_or(t, |n| n.min(t)));
                }
            }
            match next {
                Some(t) if t <= until => {
                    self.now = self.now.max(t);
                    let now = self.now;
                    self.agent.handle_timeout(now);
                    for s in &mut self.sockets {
                        s.link.handle_timeout(now);
                    }
                }
                _ => {
                    self.now = until;
                    self.run();
                    return;
                }
            }
        }
    }

    pub fn advance(&mut self, d: Duration) {
        let until = self.now + d;
        self.advance_to(until);
    }

    pub fn socket(&self, i: usize) -> &Socket {
        &self.sockets[i]
    }

    pub fn last(&self) -> &Socket {
        self.sockets.last().unwrap()
    }

    /// Claims of a command from the plane to this node, issued now.
    pub fn claims(&mut self, seq: u64, cmd: serde_json::Value) -> Claims {
        let jti = format!("jti{:06}", self.next_jti);
        self.next_jti += 1;
        let iat = self.unix().0;
        Claims {
            iss: termplane_proto::COMMAND_ISSUER.into(),
            aud: node_audience(NODE_ID),
            jti,
            iat,
            exp: iat + 30,
            seq,
            cmd,
        }
    }

    /// Sends a signed command on socket `i` through the plane machine. Returns its jti.
    pub fn send(
        &mut self,
        i: usize,
        cmd: serde_json::Value,
        is_update: bool,
    ) -> Result<String, termplane_machines::plane_link::SendError> {
        let jti = format!("jti{:06}", self.next_jti);
        self.next_jti += 1;
        let iat = self.unix().0;
        let now = self.now;
        let signer = &self.signer;
        let jti2 = jti.clone();
        self.sockets[i]
            .link
            .send_command(&jti, is_update, now, |seq| {
                signer.sign(&Claims {
                    iss: termplane_proto::COMMAND_ISSUER.into(),
                    aud: node_audience(NODE_ID),
                    jti: jti2,
                    iat,
                    exp: iat + 30,
                    seq,
                    cmd,
                })
            })?;
        self.run();
        Ok(jti)
    }

    /// Results the plane delivered on socket `i`.
    pub fn results(&self, i: usize) -> Vec<CommandResult> {
        self.sockets[i]
            .actions
            .iter()
            .filter_map(|a| match a {
                PlaneAction::Event(Event::Result(r)) => Some(r.clone()),
                _ => None,
            })
            .collect()
    }

    /// Events (other than results) the plane delivered on socket `i`.
    pub fn events(&self, i: usize) -> Vec<Event> {
        self.sockets[i]
            .actions
            .iter()
            .filter_map(|a| match a {
                PlaneAction::Event(e) => Some(e.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn exits(&self) -> Vec<(bool, String)> {
        self.agent_actions
            .iter()
            .filter_map(|a| match a {
                AgentAction::Exit { rollback, reason } => Some((*rollback, reason.clone())),
                _ => None,
            })
            .collect()
    }
}

/// Count of plane `Close` actions on a socket (the machine must emit at most one).
pub fn closes(s: &Socket) -> usize {
    s.actions
        .iter()
        .filter(|a| matches!(a, PlaneAction::Close { .. }))
        .count()
}
