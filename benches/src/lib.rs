//! Fixtures shared by the benchmarks: fixed keys, an in-memory link establishment that times
//! each side separately, and the command pipeline.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::missing_panics_doc
)]

use std::time::{Duration, Instant};

use termplane_machines::agent_link::{AgentAction, AgentConfig, AgentInput, AgentLink};
use termplane_machines::jws::{Es256Signer, Es256Verifier};
use termplane_machines::kx::{Established, Initiator, InitiatorParams, Responder, StaticKeypair};
use termplane_machines::plane_link::{LinkClass, PlaneAction, PlaneInput, PlaneLink};
use termplane_machines::replay::{Admission, JtiCache, SeqGate, admit};
use termplane_machines::rng::from_seed;
use termplane_machines::time::UnixSecs;
use termplane_proto::event::{Os, Ready};
use termplane_proto::frame::PlaneFrame;
use termplane_proto::{Binding, Claims, decode_plane_frame, node_audience};

/// The node id of every fixture.
pub const NODE: &str = "0c7a1f3e-node";
/// Wall time the fixtures run at.
pub const UNIX0: i64 = 1_800_000_000;

/// The plane's link keypair.
#[must_use]
pub fn plane_keys() -> StaticKeypair {
    StaticKeypair::from_secret_bytes([0x11; 32])
}

/// The node's link keypair.
#[must_use]
pub fn node_keys() -> StaticKeypair {
    StaticKeypair::from_secret_bytes([0x22; 32])
}

/// The plane's signer.
#[must_use]
pub fn signer() -> Es256Signer {
    Es256Signer::generate(&mut from_seed([0x33; 32]))
}

/// A `ready` frame of a current node.
#[must_use]
pub fn ready() -> Ready {
    Ready {
        agent_version: Some("0.17.0".into()),
        protocol_version: Some(14),
        os: Os::Linux,
        arch: "x86_64".into(),
        hostname: "bench".into(),
        data_dir: "/var/lib/termplane-node".into(),
        capabilities: vec!["tail".into()],
        self_invoke: None,
        home_dir: "/home/bench".into(),
        runtime: None,
        maintenance: None,
    }
}

/// The handshake parameters of the fixture node.
#[must_use]
pub fn initiator_params() -> InitiatorParams {
    InitiatorParams {
        plane_static: plane_keys().public(),
        node_static: node_keys().public(),
        binding: Binding {
            node_id: NODE.into(),
            node_key: "tp_0123456789abcdef0123456789abcdef".into(),
            protocol_version: 14,
        },
    }
}

/// A long-lived agent machine (built once per daemon life, so not part of a link's cost),
/// with its first `Dial` already taken.
#[must_use]
pub fn agent_machine(seed: u8) -> AgentLink {
    let mut agent = AgentLink::new(
        AgentConfig {
            node_id: NODE.into(),
            node_key: initiator_params().binding.node_key,
            node_static: node_keys().public(),
            control_pin: Some(plane_keys().public()),
            signing_key: signer().public_jwk(),
            process_start: UnixSecs(UNIX0),
            carried_over: Vec::new(),
            ready: ready(),
        },
        [seed; 32],
        Instant::now(),
    )
    .unwrap();
    while agent.poll_action().is_some() {}
    agent
}

/// One link establishment (kx → ok → ready → online) through both machines, in memory.
/// Returns the time spent inside each side's calls: (agent, plane).
#[must_use]
pub fn establish_once(
    agent: &mut AgentLink,
    plane_keys: &StaticKeypair,
    seed: u8,
) -> (Duration, Duration) {
    let t = Instant::now();
    let mut agent_time = Duration::ZERO;
    let mut plane_time = Duration::ZERO;
    // The agent dials (its Dial action was drained by the previous round or at creation).
    let s = Instant::now();
    agent.handle_input(AgentInput::Opened, t, UnixSecs(UNIX0));
    let mut to_plane = vec![];
    while let Some(a) = agent.poll_action() {
        match a {
            AgentAction::SendText(x) => to_plane.push((Some(x), None)),
            AgentAction::SendBinary(b) => to_plane.push((None, Some(b))),
            _ => {}
        }
    }
    agent_time += s.elapsed();

    let s = Instant::now();
    let mut plane = PlaneLink::new(
        NODE,
        LinkClass::Pinned(node_keys_public()),
        plane_keys,
        [seed; 32],
        t,
    );
    let mut to_agent = vec![];
    let pump = |plane: &mut PlaneLink, to_agent: &mut Vec<Vec<u8>>| {
        while let Some(a) = plane.poll_action() {
            match a {
                PlaneAction::SendBinary(b) => to_agent.push(b),
                PlaneAction::CheckBinding { .. } => {
                    plane.handle_input(PlaneInput::BindingVerdict(Ok(())), t);
                }
                _ => {}
            }
        }
    };
    for (text, bin) in &to_plane {
        if let Some(x) = text {
            plane.handle_input(PlaneInput::Text(x), t);
        }
        if let Some(b) = bin {
            plane.handle_input(PlaneInput::Binary(b), t);
        }
        pump(&mut plane, &mut to_agent);
    }
    plane_time += s.elapsed();

    let s = Instant::now();
    let mut ready_frames = vec![];
    for b in &to_agent {
        agent.handle_input(AgentInput::Binary(b), t, UnixSecs(UNIX0));
    }
    while let Some(a) = agent.poll_action() {
        if let AgentAction::SendBinary(b) = a {
            ready_frames.push(b);
        }
    }
    agent_time += s.elapsed();

    let s = Instant::now();
    for b in &ready_frames {
        plane.handle_input(PlaneInput::Binary(b), t);
    }
    let mut sink = vec![];
    pump(&mut plane, &mut sink);
    assert!(plane.is_online(), "the fixture link did not come online");
    plane_time += s.elapsed();

    // Reset the agent for the next round (a normal close redials at once).
    agent.handle_input(
        AgentInput::Closed {
            code: Some(1000),
            reason: "",
        },
        t,
        UnixSecs(UNIX0),
    );
    agent.handle_timeout(t);
    while agent.poll_action().is_some() {}
    (agent_time, plane_time)
}

fn node_keys_public() -> termplane_proto::Key32 {
    node_keys().public()
}

/// An established pair of streams (agent side, plane side).
#[must_use]
pub fn established_streams() -> (Established, Established) {
    let plane = plane_keys();
    let (init, hello) = Initiator::start(&initiator_params(), &mut from_seed([1; 32])).unwrap();
    let r = Responder::new(&plane, node_keys().public(), NODE);
    let opened = r
        .on_kx(&hello.kx)
        .unwrap()
        .on_binding(&hello.first_binary)
        .unwrap();
    let (plane_side, ok) = opened.accept(&mut from_seed([2; 32]));
    let agent_side = init.on_first_binary(&ok).unwrap();
    (agent_side, plane_side)
}

/// Claims of the `i`-th command of a run in which one second passes every 1,000 commands.
#[must_use]
pub fn claims(i: u64) -> Claims {
    let iat = UNIX0 + i64::try_from(i / 1000).unwrap();
    Claims {
        iss: termplane_proto::COMMAND_ISSUER.into(),
        aud: node_audience(NODE),
        jti: format!("{i:032x}"),
        iat,
        exp: iat + 30,
        seq: i + 1,
        cmd: serde_json::json!({"type":"input","subshellId":"0a1b2c3d","data":"ls -la\r"}),
    }
}

/// The command pipeline of one connection: plane signs and seals, node opens, verifies, admits.
pub struct Pipeline {
    signer: Es256Signer,
    verifier: Es256Verifier,
    plane: Established,
    agent: Established,
    cache: JtiCache,
    gate: SeqGate,
    next: u64,
}

impl Default for Pipeline {
    fn default() -> Self {
        Self::new()
    }
}

impl Pipeline {
    /// A fresh connection with an empty cache.
    #[must_use]
    pub fn new() -> Self {
        let signer = signer();
        let verifier = Es256Verifier::new(&signer.public_jwk(), NODE).unwrap();
        let (agent, plane) = established_streams();
        Self {
            signer,
            verifier,
            plane,
            agent,
            cache: JtiCache::new(termplane_proto::limits::JTI_CACHE_CAPACITY, UnixSecs(UNIX0)),
            gate: SeqGate::new(),
            next: 0,
        }
    }

    /// Runs one command through every stage; asserts it is admitted for execution.
    pub fn one(&mut self) {
        let c = claims(self.next);
        self.next += 1;
        let now = UnixSecs(c.iat);
        let jws = self.signer.sign(&c);
        let text = PlaneFrame::Command(termplane_proto::Envelope { jws }).to_json();
        let frame = self.plane.sealer.seal_frame(text.as_bytes()).unwrap();
        let plain = self.agent.opener.open_frame(&frame).unwrap();
        let PlaneFrame::Command(env) =
            decode_plane_frame(core::str::from_utf8(&plain).unwrap()).unwrap()
        else {
            panic!("not a command")
        };
        let v = self.verifier.verify(&env.jws, now).unwrap();
        let jti = v.claims.jti.clone();
        assert_eq!(
            admit(&mut self.cache, &mut self.gate, &v, now),
            Admission::Execute
        );
        let _ = v.claims.command().unwrap();
        self.cache
            .record_answer(&jti, termplane_proto::CommandResult::ok(jti.clone(), None));
    }
}
