//! Bodies of the fuzz targets, callable from stable `cargo test` (corpus replay) and from the
//! libFuzzer binaries in `fuzz_targets/`.
//!
//! Each body asserts its invariants with `assert!`: a violation is a crash the fuzzer saves.
//! Post-handshake paths are reachable because the harnesses run an honest peer next to the
//! machine under test and let the fuzzer choose what that peer seals and signs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::missing_panics_doc
)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

mod cuts;
mod exec;
mod mcp;
mod node_io;
mod plane_http;
mod recording;

pub use exec::{CONTROL_MARKER, pane_screen, tmux_control};
pub use mcp::mcp_stdio;
pub use node_io::ws_capped;
pub use plane_http::{http_head, plane_router};
pub use recording::recording_cast;

use arbitrary::{Arbitrary, Unstructured};
use termplane_machines::agent_link::{AgentAction, AgentConfig, AgentInput, AgentLink};
use termplane_machines::jws::{Es256Signer, Es256Verifier, Verified};
use termplane_machines::kx::{Established, Initiator, InitiatorParams, Responder, StaticKeypair};
use termplane_machines::plane_link::{
    BindingRefusal, LinkClass, PlaneAction, PlaneInput, PlaneLink,
};
use termplane_machines::replay::{Admission, JtiCache, SeqGate, admit};
use termplane_machines::rng::from_seed;
use termplane_machines::seal::{Opener, Sealer, SessionKey};
use termplane_machines::time::UnixSecs;
use termplane_proto::event::{Os, Ready};
use termplane_proto::frame::{NodeFrame, PlaneFrame};
use termplane_proto::{
    Binding, Claims, CommandResult, Key32, MIN_NODE_VERSION, NODE_PROTOCOL_VERSION, Version,
    decode_binding, decode_node_frame, decode_plane_frame, node_audience,
};

const NODE: &str = "n1";
const UNIX0: i64 = 1_800_000_000;

fn plane_keys() -> StaticKeypair {
    StaticKeypair::from_secret_bytes([0x11; 32])
}

fn node_keys() -> StaticKeypair {
    StaticKeypair::from_secret_bytes([0x22; 32])
}

fn signer() -> Es256Signer {
    let mut secret = [0x33; 32];
    secret[0] = 0x01;
    Es256Signer::from_secret_bytes(&secret).expect("fixed scalar is valid")
}

/// Decoders: never panic; whatever decodes re-encodes to something that decodes to the same.
pub fn frame_decode(data: &[u8]) {
    if let Ok(text) = core::str::from_utf8(data) {
        if let Ok(f) = decode_node_frame(text) {
            let again = decode_node_frame(&f.to_json()).expect("re-encoded node frame decodes");
            assert_eq!(again, f);
        }
        if let Ok(f) = decode_plane_frame(text) {
            let again = decode_plane_frame(&f.to_json()).expect("re-encoded plane frame decodes");
            assert_eq!(again, f);
        }
        let _ = termplane_proto::json::check_no_duplicate_keys(text);
        let _ = Version::parse(text);
        let _ = termplane_proto::SubshellId::parse(text);
    }
    if let Ok(b) = decode_binding(data) {
        assert_eq!(decode_binding(&b.to_json_bytes()).as_ref(), Ok(&b));
    }
}

fn valid_token(seq: u64) -> String {
    signer().sign(&Claims {
        iss: termplane_proto::COMMAND_ISSUER.into(),
        aud: node_audience(NODE),
        jti: "seedjti".into(),
        iat: UNIX0,
        exp: UNIX0 + 30,
        seq,
        cmd: serde_json::json!({"type":"ping"}),
    })
}

/// JWS verification: never panics; `Ok` implies the configured issuer and audience and a
/// lifetime of at most 30 s; any mutation of a valid token fails.
pub fn jws_verify(data: &[u8]) {
    let verifier = Es256Verifier::new(&signer().public_jwk(), NODE).expect("key");
    let now = UnixSecs(UNIX0 + 3);
    let check = |token: &str| {
        if let Ok(v) = verifier.verify(token, now) {
            assert_eq!(v.claims.iss, termplane_proto::COMMAND_ISSUER);
            assert_eq!(v.claims.aud, node_audience(NODE));
            assert!(v.claims.exp - v.claims.iat <= 30 && v.claims.exp > v.claims.iat);
            true
        } else {
            false
        }
    };
    match data.split_first() {
        Some((0, edits)) => {
            // Mutation mode: flip bytes of a genuine token at fuzz-chosen places.
            let token = valid_token(1);
            let mut bytes = token.clone().into_bytes();
            for pair in edits.chunks(2) {
                if let [pos, xor] = pair {
                    let i = usize::from(*pos) % bytes.len();
                    bytes[i] ^= *xor;
                }
            }
            match String::from_utf8(bytes) {
                Ok(mutated) if mutated != token => assert!(!check(&mutated), "mutation verified"),
                Ok(mutated) => assert!(check(&mutated)),
                Err(_) => {}
            }
        }
        _ => {
            if let Ok(text) = core::str::from_utf8(data) {
                check(text);
            }
        }
    }
}

/// The node's verification through its key's table (`fixed_key`) against the `p256` crate's:
/// never a panic, and always the same answer. Keys are one of four fixed ones (the table memo
/// holds four, so the fuzzer is not slowed by building tables).
pub fn p256_fixed_key(data: &[u8]) {
    use p256::ecdsa::signature::{Signer as _, Verifier as _};
    use p256::ecdsa::{Signature, SigningKey};
    use p256::elliptic_curve::ops::Reduce as _;
    use p256::{FieldBytes, ProjectivePoint, Scalar};
    use termplane_machines::fixed_key::FixedKey;

    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let mut secret = [0x44_u8; 32];
    secret[0] = 1 + (selector & 3);
    let signing = SigningKey::from_slice(&secret).expect("fixed scalar is valid");
    let key = *signing.verifying_key();
    let fixed = FixedKey::new(key);
    let scalar = |bytes: &[u8]| {
        let mut b = [0_u8; 32];
        for (dst, src) in b.iter_mut().zip(bytes) {
            *dst = *src;
        }
        Scalar::reduce(&FieldBytes::from(b))
    };
    match selector >> 2 & 3 {
        // The table walk itself, on any two scalars.
        0 => {
            let (a, b) = (scalar(rest), scalar(rest.get(32..).unwrap_or_default()));
            let q = ProjectivePoint::from(*key.as_affine());
            assert_eq!(
                fixed.mul_add(&a, &b),
                ProjectivePoint::GENERATOR * a + q * b
            );
        }
        // A genuine signature over the rest, with fuzz-chosen bytes of it flipped.
        1 => {
            let (message, edits) = rest.split_at(rest.len() / 2);
            let signature: Signature = signing.sign(message);
            let mut bytes = signature.to_bytes();
            for pair in edits.chunks(2) {
                if let [pos, xor] = pair {
                    let at = usize::from(*pos) % bytes.len();
                    bytes[at] ^= *xor;
                }
            }
            if let Ok(signature) = Signature::from_slice(&bytes) {
                assert_eq!(
                    fixed.verifies(message, &signature),
                    key.verify(message, &signature).is_ok()
                );
            }
        }
        // Any 64 bytes as a signature over the rest.
        _ => {
            let (signature, message) = rest.split_at(rest.len().min(64));
            if let Ok(signature) = Signature::from_slice(signature) {
                assert_eq!(
                    fixed.verifies(message, &signature),
                    key.verify(message, &signature).is_ok()
                );
            }
        }
    }
}

#[derive(Arbitrary, Debug)]
enum SealOp {
    /// A frame from the genuine sealer, possibly mutated at one byte.
    Genuine {
        plaintext: Vec<u8>,
        flip_at: u16,
        flip: u8,
    },
    /// Attacker bytes.
    Raw(Vec<u8>),
    /// Replay the previous genuine frame.
    Replay,
}

/// The opener: never panics; after its first failure it never opens again; it opens exactly the
/// genuine, unmodified frames in order.
pub fn seal_open(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(ops) = Vec::<SealOp>::arbitrary(&mut u) else {
        return;
    };
    let key = SessionKey([0x44; 32]);
    let mut sealer = Sealer::with_header(&key, [0x55; 24]);
    let mut opener = Opener::new(&key);
    let mut failed = false;
    let mut last: Option<Vec<u8>> = None;
    for op in ops.into_iter().take(64) {
        let (frame, expect) = match op {
            SealOp::Genuine {
                plaintext,
                flip_at,
                flip,
            } => {
                let Ok(mut frame) = sealer.seal_frame(&plaintext) else {
                    return;
                };
                last = Some(frame.clone());
                let i = usize::from(flip_at) % frame.len();
                frame[i] ^= flip;
                (frame, (flip == 0).then_some(plaintext))
            }
            SealOp::Raw(bytes) => (bytes, None),
            SealOp::Replay => match &last {
                Some(f) => (f.clone(), None),
                None => continue,
            },
        };
        let got = opener.open_frame(&frame);
        if failed {
            assert!(got.is_err(), "a failed opener opened again");
            continue;
        }
        match (got, expect) {
            (Ok(p), Some(e)) => assert_eq!(p, e),
            (Ok(_), None) => panic!("opened a frame that was not the next genuine one"),
            (Err(_), Some(_)) => panic!("a genuine frame failed to open"),
            (Err(_), None) => {
                failed = true;
                assert!(opener.is_failed());
            }
        }
        // After a failure the genuine stream can no longer be followed: stop producing.
        if failed {
            break;
        }
    }
}

fn honest_flight(seed: u8, node_id: &str, protocol: u32) -> (Initiator, String, Vec<u8>) {
    let params = InitiatorParams {
        plane_static: plane_keys().public(),
        node_static: node_keys().public(),
        binding: Binding {
            node_id: node_id.into(),
            node_key: "tp_k".into(),
            protocol_version: protocol,
        },
    };
    let mut rng = from_seed([seed; 32]);
    let (i, hello) = Initiator::start(&params, &mut rng).expect("honest start");
    (i, NodeFrame::Kx(hello.kx).to_json(), hello.first_binary)
}

#[derive(Arbitrary, Debug)]
struct KxInput {
    kx: String,
    binding: Vec<u8>,
    use_honest_kx: bool,
    flip_at: u16,
    flip: u8,
}

/// The responder: never panics; an opened binding always names the authenticated node and
/// protocol 14; a tampered honest flight never opens.
pub fn kx_responder(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(input) = KxInput::arbitrary(&mut u) else {
        return;
    };
    let (_, honest_kx, honest_bin) = honest_flight(1, NODE, NODE_PROTOCOL_VERSION);
    let (kx_text, mut binding, honest) = if input.use_honest_kx {
        (honest_kx, honest_bin, true)
    } else {
        (input.kx, input.binding, false)
    };
    if honest && !binding.is_empty() {
        let i = usize::from(input.flip_at) % binding.len();
        binding[i] ^= input.flip;
    }
    let responder = Responder::new(&plane_keys(), node_keys().public(), NODE);
    let Ok(NodeFrame::Kx(kx)) = decode_node_frame(&kx_text) else {
        return;
    };
    let Ok(await_binding) = responder.on_kx(&kx) else {
        return;
    };
    match await_binding.on_binding(&binding) {
        Ok(opened) => {
            assert_eq!(opened.binding.node_id, NODE);
            assert_eq!(opened.binding.protocol_version, NODE_PROTOCOL_VERSION);
            if honest {
                assert_eq!(input.flip, 0, "a tampered binding opened");
            }
        }
        Err(_) => assert!(!(honest && input.flip == 0), "the honest binding failed"),
    }
}

#[derive(Arbitrary, Debug)]
enum PlaneOp {
    Text(String),
    Binary(Vec<u8>),
    HonestKx,
    HonestBinding,
    Sealed(String),
    SealedReady { minor: u8, protocol: u8 },
    Oversize(u32),
    Advance(u16),
    Superseded,
    KeyRotated,
    Shutdown,
    PeerClosed,
    Verdict(bool),
    PinVerdict(bool),
    Send { update: bool },
    Alive,
}

fn gates_pass(r: &Ready) -> bool {
    r.agent_version
        .as_deref()
        .and_then(|v| Version::parse(v).ok())
        .is_some_and(|v| v >= MIN_NODE_VERSION)
        && r.protocol_version == Some(u64::from(NODE_PROTOCOL_VERSION))
}

/// The plane machine under arbitrary operation sequences: never panics, at most one close and
/// nothing after it, never online without both gates (and never online on a legacy row),
/// events only once the gates ran, deadlines always in the future after a timeout.
pub fn plane_link_ops(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(pinned) = bool::arbitrary(&mut u) else {
        return;
    };
    let Ok(ops) = Vec::<PlaneOp>::arbitrary(&mut u) else {
        return;
    };
    let t0 = Instant::now();
    let mut now = t0;
    let class = if pinned {
        LinkClass::Pinned(node_keys().public())
    } else {
        LinkClass::Legacy
    };
    let plane = plane_keys();
    let mut link = PlaneLink::new(NODE, class, &plane, [7; 32], now);
    let (initiator, kx_text, bin) = honest_flight(2, NODE, NODE_PROTOCOL_VERSION);
    let mut initiator = Some(initiator);
    let mut agent: Option<Established> = None;
    let mut closes = 0usize;
    let mut last_ready: Option<Ready> = None;
    let mut gated = false;
    for op in ops.into_iter().take(128) {
        match op {
            PlaneOp::Text(t) => link.handle_input(PlaneInput::Text(&t), now),
            PlaneOp::Binary(b) => link.handle_input(PlaneInput::Binary(&b), now),
            PlaneOp::HonestKx => link.handle_input(PlaneInput::Text(&kx_text), now),
            PlaneOp::HonestBinding => link.handle_input(PlaneInput::Binary(&bin), now),
            PlaneOp::Sealed(text) => {
                if let Some(a) = agent.as_mut()
                    && let Ok(ct) = a.sealer.seal_frame(text.as_bytes())
                {
                    link.handle_input(PlaneInput::Binary(&ct), now);
                }
            }
            PlaneOp::SealedReady { minor, protocol } => {
                let r = Ready {
                    agent_version: Some(format!("0.{minor}.0")),
                    protocol_version: Some(u64::from(protocol % 16)),
                    os: Os::Linux,
                    ..Ready::default()
                };
                let text = NodeFrame::Ready(Box::new(r)).to_json();
                match agent.as_mut() {
                    Some(a) => {
                        if let Ok(ct) = a.sealer.seal_frame(text.as_bytes()) {
                            link.handle_input(PlaneInput::Binary(&ct), now);
                        }
                    }
                    None => link.handle_input(PlaneInput::Text(&text), now),
                }
            }
            PlaneOp::Oversize(n) => link.handle_input(
                PlaneInput::Oversize {
                    len: u64::from(n) + 1_048_577,
                },
                now,
            ),
            PlaneOp::Advance(ms) => {
                now += Duration::from_millis(u64::from(ms) * 20);
                link.handle_timeout(now);
                if let Some((t, _)) = link.poll_timeout() {
                    assert!(
                        t > now,
                        "a deadline at or before now survived handle_timeout"
                    );
                }
            }
            PlaneOp::Superseded => link.handle_input(PlaneInput::Superseded, now),
            PlaneOp::KeyRotated => link.handle_input(PlaneInput::KeyRotatedOrDeleted, now),
            PlaneOp::Shutdown => link.handle_input(PlaneInput::Shutdown, now),
            PlaneOp::PeerClosed => link.handle_input(PlaneInput::PeerClosed { code: None }, now),
            PlaneOp::Verdict(ok) => link.handle_input(
                PlaneInput::BindingVerdict(if ok {
                    Ok(())
                } else {
                    Err(BindingRefusal::ReplayedEphemeral)
                }),
                now,
            ),
            PlaneOp::PinVerdict(ok) => link.handle_input(PlaneInput::PinClaimVerdict(ok), now),
            PlaneOp::Alive => link.handle_input(PlaneInput::Alive, now),
            PlaneOp::Send { update } => {
                let _ = link.send_command("j", update, now, |s| format!("a.{s}.b"));
            }
        }
        while let Some(action) = link.poll_action() {
            assert_eq!(closes, 0, "an action after the close: {action:?}");
            match action {
                PlaneAction::Close { .. } => closes += 1,
                PlaneAction::SendBinary(ok) => {
                    if let Some(i) = initiator.take() {
                        agent = i.on_first_binary(&ok).ok();
                    }
                }
                PlaneAction::PersistIdentity(r) => last_ready = Some(*r),
                PlaneAction::Online => {
                    assert!(pinned, "a legacy row came online");
                    let r = last_ready.as_ref().expect("online without a ready");
                    assert!(gates_pass(r), "online without both gates: {r:?}");
                    gated = true;
                }
                PlaneAction::Held(_) => gated = true,
                PlaneAction::Event(_) | PlaneAction::MalformedResult { .. } => {
                    assert!(gated, "an event before the gates");
                }
                _ => {}
            }
        }
    }
}

#[derive(Arbitrary, Debug)]
enum AgentOp {
    Opened,
    DialFailed,
    Closed(Option<u16>),
    Text(String),
    Binary(Vec<u8>),
    Oversize,
    Advance(u16),
    PlaneAccepts,
    Command {
        jti: u8,
        seq: u8,
        skew: i8,
        ping: bool,
    },
    Answer(u8),
    Alive,
}

/// The agent machine under arbitrary operation sequences: never panics, never executes a jti
/// twice, does nothing after it exits, and keeps its deadlines in the future.
pub fn agent_link_ops(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(ops) = Vec::<AgentOp>::arbitrary(&mut u) else {
        return;
    };
    let t0 = Instant::now();
    let mut now = t0;
    let signer = signer();
    let cfg = AgentConfig {
        node_id: NODE.into(),
        node_key: "tp_k".into(),
        node_static: node_keys().public(),
        control_pin: Some(plane_keys().public()),
        signing_key: signer.public_jwk(),
        process_start: UnixSecs(UNIX0),
        carried_over: Vec::new(),
        ready: Ready::default(),
    };
    let mut agent = AgentLink::new(cfg, [8; 32], now).expect("agent");
    let mut flight: (Option<String>, Option<Vec<u8>>) = (None, None);
    let mut plane: Option<Established> = None;
    let mut executed: BTreeMap<String, usize> = BTreeMap::new();
    let mut exited = false;
    let unix = |now: Instant| UnixSecs(UNIX0 + i64::try_from((now - t0).as_secs()).unwrap_or(0));
    for op in ops.into_iter().take(128) {
        match op {
            AgentOp::Opened => agent.handle_input(AgentInput::Opened, now, unix(now)),
            AgentOp::Alive => agent.handle_input(AgentInput::Alive, now, unix(now)),
            AgentOp::DialFailed => {
                agent.handle_input(AgentInput::DialFailed { retry_after: None }, now, unix(now))
            }
            AgentOp::Closed(code) => {
                agent.handle_input(AgentInput::Closed { code, reason: "x" }, now, unix(now))
            }
            AgentOp::Text(t) => agent.handle_input(AgentInput::Text(&t), now, unix(now)),
            AgentOp::Binary(b) => agent.handle_input(AgentInput::Binary(&b), now, unix(now)),
            AgentOp::Oversize => {
                agent.handle_input(AgentInput::Oversize { len: 2 << 20 }, now, unix(now));
            }
            AgentOp::Advance(ms) => {
                now += Duration::from_millis(u64::from(ms) * 20);
                agent.handle_timeout(now);
                if let Some((t, _)) = agent.poll_timeout() {
                    assert!(
                        t > now,
                        "a deadline at or before now survived handle_timeout"
                    );
                }
            }
            AgentOp::PlaneAccepts => {
                if let (Some(kx_text), Some(bin)) = (flight.0.take(), flight.1.take()) {
                    let responder = Responder::new(&plane_keys(), node_keys().public(), NODE);
                    if let Ok(NodeFrame::Kx(kx)) = decode_node_frame(&kx_text)
                        && let Ok(ab) = responder.on_kx(&kx)
                        && let Ok(opened) = ab.on_binding(&bin)
                    {
                        let (est, ok) = opened.accept(&mut from_seed([9; 32]));
                        plane = Some(est);
                        agent.handle_input(AgentInput::Binary(&ok), now, unix(now));
                    }
                }
            }
            AgentOp::Command {
                jti,
                seq,
                skew,
                ping,
            } => {
                if let Some(p) = plane.as_mut() {
                    let iat = unix(now).0 + i64::from(skew % 8);
                    let cmd = if ping {
                        serde_json::json!({"type":"ping"})
                    } else {
                        serde_json::json!({"type":"inventory"})
                    };
                    let token = signer.sign(&Claims {
                        iss: termplane_proto::COMMAND_ISSUER.into(),
                        aud: node_audience(NODE),
                        jti: format!("j{}", jti % 16),
                        iat,
                        exp: iat + 30,
                        seq: u64::from(seq % 8),
                        cmd,
                    });
                    let text =
                        PlaneFrame::Command(termplane_proto::Envelope { jws: token }).to_json();
                    if let Ok(ct) = p.sealer.seal_frame(text.as_bytes()) {
                        agent.handle_input(AgentInput::Binary(&ct), now, unix(now));
                    }
                }
            }
            AgentOp::Answer(j) => {
                let jti = format!("j{}", j % 16);
                if executed.contains_key(&jti) {
                    agent.record_result(CommandResult::ok(jti, None));
                }
            }
        }
        while let Some(action) = agent.poll_action() {
            assert!(!exited, "an action after exit: {action:?}");
            match action {
                AgentAction::Exit { .. } => exited = true,
                AgentAction::SendText(t) if t.contains("\"kx\"") => flight.0 = Some(t),
                AgentAction::SendBinary(b) if flight.0.is_some() && flight.1.is_none() => {
                    flight.1 = Some(b);
                }
                AgentAction::Execute { jti, .. } => {
                    let n = executed.entry(jti.clone()).or_insert(0);
                    *n += 1;
                    assert_eq!(*n, 1, "jti {jti} executed twice");
                }
                AgentAction::Dial => {
                    flight = (None, None);
                    plane = None;
                }
                _ => {}
            }
        }
    }
}

#[derive(Arbitrary, Debug)]
enum ReplayOp {
    Fresh { iat_back: u8 },
    Replay(u8),
    Conflict(u8),
    Answer(u8),
    Reconnect,
    Advance(u8),
    BadSeq(u8),
}

/// The replay guard against invariants a reference model states: a jti executes at most once
/// per process; a replay never executes; a resent answer is the one recorded for that jti; a
/// conflict is reported only for a known jti with other content; the cache stays bounded.
pub fn replay_model(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(ops) = Vec::<ReplayOp>::arbitrary(&mut u) else {
        return;
    };
    let capacity = 8;
    let mut cache = JtiCache::new(capacity, UnixSecs(UNIX0));
    let mut gate = SeqGate::new();
    let mut next_seq = 1u64;
    let mut now = UNIX0 + 40;
    let mut counter = 0u32;
    // Reference facts: digest and answer per jti ever admitted.
    let mut digests: BTreeMap<String, ([u8; 32], i64)> = BTreeMap::new();
    let mut answers: BTreeMap<String, CommandResult> = BTreeMap::new();
    let mut executed: BTreeMap<String, u32> = BTreeMap::new();
    let verified = |jti: &str, iat: i64, seq: u64, digest: [u8; 32]| Verified {
        claims: Claims {
            iss: termplane_proto::COMMAND_ISSUER.into(),
            aud: node_audience(NODE),
            jti: jti.into(),
            iat,
            exp: iat + 30,
            seq,
            cmd: serde_json::json!({"type":"ping"}),
        },
        digest,
    };
    let nth = |map: &BTreeMap<String, ([u8; 32], i64)>, i: u8| -> Option<(String, [u8; 32], i64)> {
        if map.is_empty() {
            return None;
        }
        let k = usize::from(i) % map.len();
        map.iter().nth(k).map(|(j, (d, t))| (j.clone(), *d, *t))
    };
    for op in ops.into_iter().take(200) {
        let (jti, v, fresh) = match op {
            ReplayOp::Fresh { iat_back } => {
                counter += 1;
                let jti = format!("f{counter}");
                let mut d = [0u8; 32];
                d[..4].copy_from_slice(&counter.to_le_bytes());
                let iat = now - i64::from(iat_back % 40);
                let v = verified(&jti, iat, next_seq, d);
                (jti, v, true)
            }
            ReplayOp::Replay(i) => match nth(&digests, i) {
                Some((j, d, iat)) => (j.clone(), verified(&j, iat, 1, d), false),
                None => continue,
            },
            ReplayOp::Conflict(i) => match nth(&digests, i) {
                Some((j, mut d, iat)) => {
                    d[31] ^= 0xff;
                    (j.clone(), verified(&j, iat, next_seq, d), false)
                }
                None => continue,
            },
            ReplayOp::Answer(i) => {
                if let Some((j, _, _)) = nth(&digests, i)
                    && executed.contains_key(&j)
                    && !answers.contains_key(&j)
                {
                    let a = CommandResult::ok(j.clone(), Some(serde_json::json!(j.len())));
                    cache.record_answer(&j, a.clone());
                    answers.insert(j, a);
                }
                continue;
            }
            ReplayOp::Reconnect => {
                gate = SeqGate::new();
                next_seq = 1;
                continue;
            }
            ReplayOp::Advance(s) => {
                now += i64::from(s % 20);
                continue;
            }
            ReplayOp::BadSeq(s) => {
                counter += 1;
                let jti = format!("b{counter}");
                let mut d = [1u8; 32];
                d[..4].copy_from_slice(&counter.to_le_bytes());
                let seq = u64::from(s % 4);
                let seq = if seq == next_seq { next_seq + 1 } else { seq };
                (jti.clone(), verified(&jti, now, seq, d), true)
            }
        };
        let known = digests.get(&jti).copied();
        let cached = cache.contains(&jti);
        let admission = admit(&mut cache, &mut gate, &v, UnixSecs(now));
        assert!(cache.len() <= capacity, "cache grew past its capacity");
        match admission {
            Admission::Execute => {
                assert!(fresh && !cached, "a replayed or conflicting jti executed");
                assert_eq!(v.claims.seq, next_seq, "executed out of order");
                next_seq += 1;
                *executed.entry(jti.clone()).or_insert(0) += 1;
                assert_eq!(executed[&jti], 1);
            }
            Admission::Resend(a) => {
                assert!(cached, "resend for a jti the cache does not hold");
                let (d, _) = known.expect("resend for an unknown jti");
                assert_eq!(d, v.digest, "resend across a content change");
                if let Some(expected) = answers.get(&jti) {
                    assert_eq!(&a, expected, "resent another answer");
                } else {
                    // A jti refused by the seq gate resends its refusal.
                    assert!(!a.ok);
                }
            }
            Admission::Wait => {
                assert!(cached);
                let (d, _) = known.expect("wait for an unknown jti");
                assert_eq!(d, v.digest);
                assert!(!answers.contains_key(&jti));
            }
            Admission::Conflict => {
                assert!(cached);
                let (d, _) = known.expect("conflict for an unknown jti");
                assert_ne!(d, v.digest);
            }
            Admission::Stale(_) => {
                // A step (3) refusal: not recorded, never executed, and the seq gate (step 4)
                // never sees it, so it uses up no seq whatever seq it carried and the link stays.
                assert!(!cached);
                assert!(!cache.contains(&jti), "a stale command was recorded");
            }
            Admission::DropLink(_) => {
                assert!(!cached);
                assert_ne!(v.claims.seq, next_seq, "an in-order seq dropped the link");
                gate = SeqGate::new();
                next_seq = 1;
            }
        }
        // A jti the guard recorded (executed, or burnt by the seq gate) is known from now on.
        if cache.contains(&jti) && !digests.contains_key(&jti) {
            digests.insert(jti.clone(), (v.digest, v.claims.iat));
        }
        assert!(executed.get(&jti).copied().unwrap_or(0) <= 1);
    }
}

/// An honest session's first flight, for seeds.
#[doc(hidden)]
pub fn seed_flight() -> (String, Vec<u8>) {
    let (_, kx, bin) = honest_flight(1, NODE, NODE_PROTOCOL_VERSION);
    (kx, bin)
}

/// A valid token, for seeds.
#[doc(hidden)]
pub fn seed_token() -> String {
    valid_token(1)
}

#[doc(hidden)]
pub fn seed_key() -> Key32 {
    node_keys().public()
}

/// The replicas' handshake (`termplane_machines::peer`): each side's reading of the other's
/// message never panics; a challenge is taken exactly when it is well formed and names the
/// replica dialled, and an answer or a proof exactly when it is the honest one (made with the
/// cluster's key over this handshake's nonces). The first byte picks the message read (challenge, answer, proof) and
/// whether the honest one is read with one byte flipped (second and third bytes: where, which
/// bits) instead of the rest of the input.
pub fn peer_handshake(data: &[u8]) {
    use termplane_machines::peer::{Initiator, PeerKey, Responder};
    let [which, at, flip, rest @ ..] = data else {
        return;
    };
    let key = || PeerKey::derive(&[4; 32]);
    let (responder, challenge) = Responder::new(key(), "replica-b", [1; 32]).unwrap();
    let initiator = || Initiator::new(key(), "replica-a", "replica-b", [2; 32]).unwrap();
    let (waiting, answer) = initiator().challenge(&challenge).unwrap();
    let honest = match which % 3 {
        0 => challenge,
        1 => answer,
        _ => {
            let (_, proof, _) = Responder::new(key(), "replica-b", [1; 32])
                .unwrap()
                .0
                .answer(&answer)
                .unwrap();
            proof
        }
    };
    let msg = if which & 0x80 != 0 {
        let mut m = honest.clone();
        let i = usize::from(*at) % m.len();
        m[i] ^= flip;
        m
    } else {
        rest.to_vec()
    };
    match which % 3 {
        // A challenge proves nothing yet (its nonce is the responder's to choose): it is taken
        // when it is well formed and names the replica dialled.
        0 => {
            let taken = initiator().challenge(&msg).is_ok();
            let names_b = msg.len() == 1 + 32 + 1 + 9
                && msg[0] == 1
                && msg[33] == 9
                && &msg[34..] == b"replica-b";
            assert_eq!(taken, names_b, "a challenge was read wrongly");
        }
        1 => {
            let taken = responder.answer(&msg).is_ok();
            assert_eq!(
                taken,
                msg == honest,
                "an answer other than the honest one was taken"
            );
        }
        _ => {
            let taken = waiting.proof(&msg).is_ok();
            assert_eq!(
                taken,
                msg == honest,
                "a proof other than the honest one was taken"
            );
        }
    }
}

/// Replays every committed seed of every target (the `cargo test` side of fuzzing).
#[cfg(test)]
mod corpus {
    use super::*;
    use std::path::PathBuf;

    fn replay(target: &str, body: fn(&[u8])) -> usize {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("corpus")
            .join(target);
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            body(&std::fs::read(&path).unwrap());
            n += 1;
        }
        assert!(n > 0, "no seeds for {target}");
        n
    }

    #[test]
    fn frame_decode_corpus() {
        replay("frame_decode", frame_decode);
    }
    #[test]
    fn jws_verify_corpus() {
        replay("jws_verify", jws_verify);
    }
    #[test]
    fn seal_open_corpus() {
        replay("seal_open", seal_open);
    }
    #[test]
    fn kx_responder_corpus() {
        replay("kx_responder", kx_responder);
    }
    #[test]
    fn plane_link_ops_corpus() {
        replay("plane_link_ops", plane_link_ops);
    }
    #[test]
    fn agent_link_ops_corpus() {
        replay("agent_link_ops", agent_link_ops);
    }
    #[test]
    fn replay_model_corpus() {
        replay("replay_model", replay_model);
    }
    #[test]
    fn p256_fixed_key_corpus() {
        replay("p256_fixed_key", p256_fixed_key);
    }
    #[test]
    fn tmux_control_corpus() {
        replay("tmux_control", tmux_control);
    }
    #[test]
    fn pane_screen_corpus() {
        replay("pane_screen", pane_screen);
    }
    #[test]
    fn mcp_stdio_corpus() {
        replay("mcp_stdio", mcp_stdio);
    }
    #[test]
    fn ws_capped_corpus() {
        replay("ws_capped", ws_capped);
    }
    #[test]
    fn http_head_corpus() {
        replay("http_head", http_head);
    }
    #[test]
    fn plane_router_corpus() {
        replay("plane_router", plane_router);
    }

    #[test]
    fn peer_handshake_corpus() {
        replay("peer_handshake", peer_handshake);
    }
    #[test]
    fn recording_cast_corpus() {
        replay("recording_cast", recording_cast);
    }

    /// Deterministic pseudo-random inputs through every body: a smoke run that needs no
    /// libFuzzer, so a broken invariant shows up in the ordinary test suite too.
    #[test]
    fn every_body_survives_pseudo_random_inputs() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let bodies: [fn(&[u8]); 15] = [
            p256_fixed_key,
            frame_decode,
            jws_verify,
            seal_open,
            kx_responder,
            plane_link_ops,
            agent_link_ops,
            replay_model,
            tmux_control,
            pane_screen,
            mcp_stdio,
            ws_capped,
            http_head,
            plane_router,
            recording_cast,
        ];
        for round in 0..300 {
            let len = 1 + (round * 7) % 900;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 24) as u8
                })
                .collect();
            for body in bodies {
                body(&bytes);
            }
        }
    }

    /// Catalogue 105: every body at the lengths on its limits (nothing, one byte, 0xffff, the
    /// pre-handshake, JWS and frame caps and one either side), filled with bytes that parse as
    /// little as possible and as much as possible: no panic, and each input done in bounded time.
    #[test]
    fn j105_every_parser_takes_inputs_at_its_length_limits() {
        use termplane_proto::limits::{
            MAX_FRAME_BYTES, MAX_JWS_BYTES, MAX_PRE_HANDSHAKE_FRAME_BYTES,
        };
        type Body = (&'static str, fn(&[u8]));
        let bodies: [Body; 15] = [
            ("p256_fixed_key", p256_fixed_key),
            ("frame_decode", frame_decode),
            ("jws_verify", jws_verify),
            ("seal_open", seal_open),
            ("kx_responder", kx_responder),
            ("plane_link_ops", plane_link_ops),
            ("agent_link_ops", agent_link_ops),
            ("replay_model", replay_model),
            ("tmux_control", tmux_control),
            ("pane_screen", pane_screen),
            ("mcp_stdio", mcp_stdio),
            ("ws_capped", ws_capped),
            ("http_head", http_head),
            ("plane_router", plane_router),
            ("recording_cast", recording_cast),
        ];
        let mut lengths = vec![0, 1, 0xffff];
        for cap in [
            MAX_PRE_HANDSHAKE_FRAME_BYTES,
            MAX_JWS_BYTES,
            MAX_FRAME_BYTES,
        ] {
            lengths.extend([cap - 1, cap, cap + 1]);
        }
        for len in lengths {
            for fill in [0u8, 1, b'{', b'A', 0xff] {
                let input = vec![fill; len];
                for (name, body) in bodies {
                    let started = Instant::now();
                    body(&input);
                    let took = started.elapsed();
                    assert!(
                        took < Duration::from_secs(10),
                        "{name} took {took:?} on {len} bytes of {fill:#04x}"
                    );
                }
            }
        }
    }

    /// Regenerates the committed seeds: `TERMPLANE_WRITE_SEEDS=1 cargo test -p termplane-fuzz
    /// write_seeds`. Without the variable it only checks that generation still works.
    #[test]
    fn write_seeds() {
        let (kx, bin) = seed_flight();
        let token = seed_token();
        let mut seeds: Vec<(&str, &str, Vec<u8>)> = vec![
            ("frame_decode", "kx", kx.clone().into_bytes()),
            ("frame_decode", "ready", br#"{"type":"ready","agentVersion":"0.17.0","protocolVersion":14,"os":"linux","arch":"x86_64","hostname":"h","dataDir":"/d","capabilities":[],"homeDir":"/h","runtime":{"serviceManager":"none","supervised":false,"pid":1},"maintenance":{"on":false,"changedAt":"t"}}"#.to_vec()),
            ("frame_decode", "result", br#"{"type":"result","ref":"j","ok":true,"data":{"x":[1,2.5,"s",null]}}"#.to_vec()),
            ("frame_decode", "register_ok", format!(r#"{{"t":"register-ok","controlEncryptPublicKey":"{}"}}"#, seed_key()).into_bytes()),
            ("frame_decode", "envelope", format!(r#"{{"jws":"{token}"}}"#).into_bytes()),
            ("frame_decode", "binding", br#"{"nodeId":"n1","nodeKey":"tp_k","protocolVersion":14}"#.to_vec()),
            ("jws_verify", "valid", token.clone().into_bytes()),
            ("jws_verify", "mutate", [&[0u8][..], &[5, 1, 60, 2, 200, 4]].concat()),
            ("seal_open", "zeros", vec![0; 64]),
            ("seal_open", "mixed", (0u8..=255).collect()),
            ("kx_responder", "honest", [&[1u8][..], kx.as_bytes(), &bin].concat()),
            ("kx_responder", "zeros", vec![0; 96]),
            ("plane_link_ops", "ops", (0u8..=255).rev().collect()),
            ("plane_link_ops", "ones", vec![1; 200]),
            ("agent_link_ops", "ops", (0u8..=255).collect()),
            ("agent_link_ops", "sevens", vec![7; 300]),
            ("replay_model", "ops", (0u8..=255).map(|b| b.wrapping_mul(37)).collect()),
            ("replay_model", "zeros", vec![0; 120]),
            ("p256_fixed_key", "walk", (0u8..64).map(|b| b.wrapping_mul(73)).collect()),
            ("p256_fixed_key", "walk_edges", [&[1u8][..], &[0xff; 32], &[0; 31], &[1]].concat()),
            ("p256_fixed_key", "genuine", [&[4u8][..], b"keystroke", &[0; 9]].concat()),
            ("p256_fixed_key", "flipped", [&[5u8][..], b"input", &[3, 1, 40, 128, 0, 0]].concat()),
            ("p256_fixed_key", "raw", [&[8u8][..], &[0x11; 64], b"m"].concat()),
            // The pane's MCP server: a session as an MCP client opens and uses it; a batch,
            // a cancellation and broken lines; a request padded around the line cap.
            ("mcp_stdio", "session", [&[0u8, 0x41][..], concat!(
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"claude-code","version":"2.0.0"}}}"#, "\n",
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "\n",
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_subshells","arguments":{"state":"running"}}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_output","arguments":{"subshellId":"../../x/y","lines":40}}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":"s4","method":"tools/call","params":{"name":"send_input","arguments":{"text":"ls\n","keys":["Enter"]}}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"report_attention","arguments":{"attention":"done"}}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#, "\n",
            ).as_bytes()].concat()),
            ("mcp_stdio", "channels", [&[3u8, 0x07][..], concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_channel","arguments":{"channel":"ops","limit":5,"waitMs":0}}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"post_to_channel","arguments":{"channel":"ops","text":"build is green"}}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"launch_subshell","arguments":{"plugin":"claude","cwd":"/tmp"}}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"report_session","arguments":{"sessionId":"abc"}}}"#, "\n",
            ).as_bytes()].concat()),
            ("mcp_stdio", "moves", [&[3u8, 0x07][..], concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_log","arguments":{"subshellId":"s2","fromByte":0,"maxBytes":4096}}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stop_subshell","arguments":{"subshellId":"s2"}}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"restart_subshell","arguments":{"subshellId":"s2"}}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"delete_subshell","arguments":{"subshellId":"s2"}}}"#, "\n",
            ).as_bytes()].concat()),
            ("mcp_stdio", "faults", [&[1u8, 0x22][..], concat!(
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"1.0","id":2,"method":"ping"}]"#, "\n",
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_output","arguments":{"lines":"many"}}}"#, "\n",
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#, "\n",
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, "\n",
                "[]\n   \n{\"jsonrpc\":\n",
            ).as_bytes(), b"\xff\xfe{}\n{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"nope\"}"].concat()),
            ("mcp_stdio", "at-the-cap", {
                // Under a 60-byte line cap: pings of 57 to 63 bytes.
                let mut v = vec![3 << 5, 0x03];
                for pad in 0..7 {
                    let p = "x".repeat(pad);
                    v.extend_from_slice(format!(r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"p":"{p}"}}}}"#).as_bytes());
                    v.push(b'\n');
                }
                v
            }),
            // The node's WebSocket filter: RFC 6455's example frames after a real upgrade
            // response; and well-formed streams built from operation bytes.
            ("ws_capped", "rfc6455", [&[0x40u8 | 9, 0x41, 0xa3][..],
                b"\x81\x05Hello",
                b"\x01\x03Hel\x80\x02lo",
                b"\x89\x05Hello\x8a\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58",
                &[0x82, 0x7e, 0x01, 0x00], &[7; 256],
                &[0x82, 0x7f, 0, 0, 0, 0, 0, 1, 0, 0], &[1; 64],
            ].concat()),
            ("ws_capped", "well-formed", [&[0x80u8 | 20, 0x62, 0xc1][..], &[0, 5, 0, 1, 20, 0, 2, 30, 0x81, 3, 40, 1, 5, 50, 2, 7, 60, 0, 6, 9, 0x80]].concat()),
            ("ws_capped", "raw", (0u8..=255).map(|b| b.wrapping_mul(29)).collect()),
            // The node's HTTP client: answers as the plane sends them, and generated ones.
            // The plane's request heads: what browsers, the node and scripts send.
            ("http_head", "browser", [&[0u8, 0, 0, 128][..], b"GET /api/subshells?state=running HTTP/1.1\r\nHost: plane.example:8443\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\nAccept: application/json\r\nAccept-Encoding: gzip, deflate, br\r\nCookie: tp_session=abc; theme=dark\r\nSec-Fetch-Site: same-origin\r\nConnection: keep-alive\r\n\r\n"].concat()),
            ("http_head", "post", [&[0u8, 0, 0, 200][..], b"POST /api/nodes/enroll HTTP/1.1\r\nHost: 127.0.0.1:7100\r\nUser-Agent: termplane/0.17.0\r\nAccept: */*\r\nConnection: close\r\nContent-Length: 64\r\nContent-Type: application/json\r\n\r\n{\"setupKey\":\"x\"}"].concat()),
            ("http_head", "upgrade", [&[0u8, 0, 0, 64][..], b"GET /ws/node HTTP/1.1\r\nHost: plane\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer tp_k\r\n\r\n"].concat()),
            ("http_head", "chunked", [&[0u8, 0, 0, 10][..], b"PUT http://plane/api/files/f1/pieces/0 HTTP/1.1\r\nHost: plane\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n"].concat()),
            ("http_head", "long-target", [&[1u8, 0x20, 0x00, 99][..], b"GET /docs/\x01 HTTP/1.0\r\n\r\n"].concat()),
            // The router: paths the browser app and scripts use, and hostile spellings.
            ("plane_router", "screen", [&[0u8][..], b"/api/subshells/0123456789abcdef0123456789abcdef/screen"].concat()),
            ("plane_router", "concrete", [&[2u8][..], b"/api/nodes/enroll"].concat()),
            ("plane_router", "encoded", [&[3u8][..], b"/api/files/a%2Fb%20c/pieces/%30"].concat()),
            ("plane_router", "dots", [&[4u8][..], b"/api/channels/../members/%2e%2e"].concat()),
            ("plane_router", "not-allowed", [&[7u8][..], b"/api/auth/session"].concat()),
            ("plane_router", "bad", [&[1u8][..], b"/docs/assets/%zz%C3"].concat()),
            // A recording: a grid, a start, output in two groups (one ending inside é), a
            // resize; then the log, with bytes past the last record and one that is not UTF-8.
            ("recording_cast", "pane", {
                use termplane_proto::recording::Record;
                let records = [
                    Record::Grid { at_us: 1_000, cols: 80, rows: 24 },
                    Record::Start { at_us: 1_001, log_size: 0 },
                    Record::Output { at_us: 2_000, log_end: 2 },
                    Record::Grid { at_us: 30_000, cols: 100, rows: 30 },
                    Record::Output { at_us: 20_000, log_end: 12 },
                ];
                let timing: Vec<u8> = records.iter().flat_map(|r| r.encode()).collect();
                let n = u8::try_from(timing.len() * 2 / 16).unwrap();
                [&[n, 0x65][..], &timing, "hé\u{1b}[1mllo\r\n€ and more \u{ff}".as_bytes(), b"\xff"].concat()
            }),
            ("peer_handshake", "flipped_answer", vec![0x81, 40, 1]),
            ("peer_handshake", "garbage_proof", [&[2u8, 0, 0][..], &[7; 32]].concat()),
            ("peer_handshake", "short_challenge", vec![0, 0, 0, 1, 2, 3]),
            ("recording_cast", "corrupt", [&[2u8, 0][..], &[0; 8], &[0, 0, 0, 0, 0, 0, 0, 9]].concat()),
        ];
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
        for (target, name, bytes) in seeds.drain(..) {
            let dir = root.join(target);
            if std::env::var_os("TERMPLANE_WRITE_SEEDS").is_some() {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join(name), &bytes).unwrap();
            }
            assert!(!bytes.is_empty());
        }
    }
}
