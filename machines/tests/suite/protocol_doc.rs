//! `docs/protocol-14.md` cannot drift from the code: every byte of its worked example (one
//! handshake and one command, from fixed keys) is recomputed here, and the production paths —
//! the agent's initiator, the plane's responder, the sealed stream, the ES256 signer and
//! verifier, the frame encoders and decoders — are run over those very bytes.
//!
//! In the document a checked value is a fenced block right after a `<!-- check: NAME -->` line.
//! Hex blocks are compared with all whitespace removed; text blocks exactly (trailing newline
//! aside). A block the test does not know, or a known value missing from the document, fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::convert::Infallible;

use termplane_machines::jws::{Es256Signer, Es256Verifier};
use termplane_machines::kx::{
    self, Initiator, InitiatorParams, KX_LABEL, Responder, StaticKeypair,
};
use termplane_machines::seal::{Opener, Sealer, SessionKey};
use termplane_machines::time::UnixSecs;
use termplane_proto::event::{Os, SelfInvoke};
use termplane_proto::frame::NodeFrame;
use termplane_proto::{
    Binding, Claims, CommandResult, Envelope, Event, Key32, PlaneFrame, Ready, decode_node_frame,
    decode_plane_frame,
};

const DOC: &str = include_str!("../../../docs/protocol-14.md");

fn seq_bytes<const N: usize>(start: u8) -> [u8; N] {
    let mut out = [0u8; N];
    for (i, b) in out.iter_mut().enumerate() {
        *b = start.wrapping_add(u8::try_from(i).unwrap());
    }
    out
}

/// An "RNG" that hands out fixed bytes: the stream headers of the example.
struct Fixed(Vec<u8>);

impl rand_core::TryRng for Fixed {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let mut b = [0u8; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        assert!(
            self.0.len() >= dst.len(),
            "the example draws more than it fixed"
        );
        let rest = self.0.split_off(dst.len());
        dst.copy_from_slice(&self.0);
        self.0 = rest;
        Ok(())
    }
}

impl rand_core::TryCryptoRng for Fixed {}

fn hex_block(bytes: &[u8]) -> String {
    bytes
        .chunks(32)
        .map(hex::encode)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The example, computed.
fn example() -> BTreeMap<&'static str, String> {
    let mut v: BTreeMap<&'static str, String> = BTreeMap::new();
    let node_id = "5e1f0c2a9b7d4e36";
    let node_key = "tp_0123456789abcdefghijklmnopqrstuv";
    let plane = StaticKeypair::from_secret_bytes(seq_bytes(0x00));
    let node = StaticKeypair::from_secret_bytes(seq_bytes(0x20));
    let eph_secret: [u8; 32] = seq_bytes(0x40);
    let node_header: [u8; 24] = seq_bytes(0x60);
    let plane_header: [u8; 24] = seq_bytes(0x80);
    let signing = Es256Signer::from_secret_bytes(&seq_bytes(0xa0)).unwrap();

    v.insert("plane-static-secret", hex_block(&seq_bytes::<32>(0x00)));
    v.insert("node-static-secret", hex_block(&seq_bytes::<32>(0x20)));
    v.insert("eph-secret", hex_block(&eph_secret));
    v.insert("plane-static-public", hex_block(&plane.public().0));
    v.insert("node-static-public", hex_block(&node.public().0));
    let eph_public = Key32(x25519_dalek::x25519(
        eph_secret,
        x25519_dalek::X25519_BASEPOINT_BYTES,
    ));
    v.insert("eph-public", hex_block(&eph_public.0));

    // The agent's first flight, through the production initiator.
    let params = InitiatorParams {
        plane_static: plane.public(),
        node_static: node.public(),
        binding: Binding {
            node_id: node_id.into(),
            node_key: node_key.into(),
            protocol_version: 14,
        },
    };
    let (initiator, hello) =
        Initiator::start_with_ephemeral(&params, eph_secret, &mut Fixed(node_header.to_vec()))
            .unwrap();
    assert_eq!(hello.kx.eph, eph_public);
    let kx_text = NodeFrame::Kx(hello.kx.clone()).to_json();
    v.insert("kx-frame", kx_text.clone());

    // The derivation, step by step.
    let dh = kx::x25519_shared(&eph_secret, &plane.public()).unwrap();
    assert_eq!(
        kx::x25519_shared(&plane.secret_bytes(), &eph_public).unwrap(),
        dh
    );
    v.insert("dh", hex_block(&dh));
    let mut transcript = Vec::new();
    transcript.extend_from_slice(&u16::try_from(KX_LABEL.len()).unwrap().to_be_bytes());
    transcript.extend_from_slice(KX_LABEL);
    transcript.extend_from_slice(&14u32.to_be_bytes());
    transcript.extend_from_slice(&dh);
    transcript.extend_from_slice(&eph_public.0);
    transcript.extend_from_slice(&node.public().0);
    transcript.extend_from_slice(&plane.public().0);
    transcript.extend_from_slice(&u16::try_from(node_id.len()).unwrap().to_be_bytes());
    transcript.extend_from_slice(node_id.as_bytes());
    v.insert("transcript", hex_block(&transcript));
    let digest = {
        use blake2::Digest as _;
        blake2::Blake2b512::digest(&transcript)
    };
    v.insert("digest", hex_block(&digest));
    let keys = kx::derive_direction_keys(
        14,
        &dh,
        &eph_public,
        &node.public(),
        &plane.public(),
        node_id,
    )
    .unwrap();
    assert_eq!(keys.agent_to_plane.0, digest[..32]);
    assert_eq!(keys.plane_to_agent.0, digest[32..]);
    v.insert("agent-to-plane-key", hex_block(&keys.agent_to_plane.0));
    v.insert("plane-to-agent-key", hex_block(&keys.plane_to_agent.0));

    let binding_plain = String::from_utf8(params.binding.to_json_bytes()).unwrap();
    v.insert("binding-plaintext", binding_plain.clone());
    let mut node_stream = Sealer::with_header(&keys.agent_to_plane, node_header);
    let binding_frame = node_stream.seal_frame(binding_plain.as_bytes()).unwrap();
    assert_eq!(hello.first_binary, binding_frame, "the initiator's binding");
    v.insert("binding-frame", hex_block(&binding_frame));

    // The plane's side, through the production responder.
    let kx_in = match decode_node_frame(&kx_text).unwrap() {
        NodeFrame::Kx(k) => k,
        other => panic!("{other:?}"),
    };
    let opened = Responder::new(&plane, node.public(), node_id)
        .on_kx(&kx_in)
        .unwrap()
        .on_binding(&binding_frame)
        .unwrap();
    assert_eq!(opened.binding, params.binding);
    let (mut plane_link, ok_frame) = opened.accept(&mut Fixed(plane_header.to_vec()));
    let mut plane_stream = Sealer::with_header(&keys.plane_to_agent, plane_header);
    assert_eq!(
        plane_stream
            .seal_frame(PlaneFrame::Ok.to_json().as_bytes())
            .unwrap(),
        ok_frame
    );
    v.insert("ok-plaintext", PlaneFrame::Ok.to_json());
    v.insert("ok-frame", hex_block(&ok_frame));
    let mut agent_link = initiator.on_first_binary(&ok_frame).unwrap();

    // ready, the node's second push.
    let ready = Ready {
        agent_version: Some("0.17.0".into()),
        protocol_version: Some(14),
        os: Os::Linux,
        arch: "x86_64".into(),
        hostname: "node-a".into(),
        data_dir: "/home/a/.local/share/termplane-node".into(),
        capabilities: vec!["tmux".into()],
        self_invoke: Some(SelfInvoke {
            command: "/usr/local/bin/termplane-node".into(),
            args: vec![],
        }),
        home_dir: "/home/a".into(),
        runtime: None,
        maintenance: None,
    };
    let ready_text = NodeFrame::Ready(Box::new(ready.clone())).to_json();
    v.insert("ready-plaintext", ready_text.clone());
    let ready_frame = agent_link.sealer.seal_frame(ready_text.as_bytes()).unwrap();
    assert_eq!(ready_frame.len(), ready_text.len() + 17);
    v.insert("ready-frame", hex_block(&ready_frame));
    let opened = String::from_utf8(plane_link.opener.open_frame(&ready_frame).unwrap()).unwrap();
    assert_eq!(
        decode_node_frame(&opened).unwrap(),
        NodeFrame::Ready(Box::new(ready))
    );

    // One command: ping, seq 1.
    v.insert(
        "signing-jwk",
        serde_json::to_string(&signing.public_jwk()).unwrap(),
    );
    v.insert("jws-header", termplane_machines::jws::command_header());
    let claims = Claims {
        iss: "termplane-control".into(),
        aud: format!("node:{node_id}"),
        jti: "6a0c1f3e9d2b4c5a8e7f001122334455".into(),
        iat: 1_800_000_000,
        exp: 1_800_000_030,
        seq: 1,
        cmd: serde_json::json!({ "type": "ping" }),
    };
    v.insert("claims", serde_json::to_string(&claims).unwrap());
    let jws = signing.sign(&claims);
    v.insert("jws", jws.clone());
    let verified = Es256Verifier::new(&signing.public_jwk(), node_id)
        .unwrap()
        .verify(&jws, UnixSecs(1_800_000_002))
        .unwrap();
    assert_eq!(verified.claims, claims);
    let envelope = PlaneFrame::Command(Envelope { jws }).to_json();
    v.insert("envelope", envelope.clone());
    let command_frame = plane_link.sealer.seal_frame(envelope.as_bytes()).unwrap();
    assert_eq!(
        plane_stream.seal_frame(envelope.as_bytes()).unwrap(),
        command_frame
    );
    v.insert("command-frame", hex_block(&command_frame));
    let opened = String::from_utf8(agent_link.opener.open_frame(&command_frame).unwrap()).unwrap();
    assert_eq!(opened, envelope);
    assert!(matches!(
        decode_plane_frame(&opened).unwrap(),
        PlaneFrame::Command(_)
    ));

    // Its result, the node's third push.
    let result = Event::Result(CommandResult::ok(
        claims.jti.clone(),
        Some(serde_json::json!({ "pong": true, "at": "2027-01-15T08:00:00.000Z" })),
    ));
    let result_text = NodeFrame::Event(result.clone()).to_json();
    v.insert("result-plaintext", result_text.clone());
    let result_frame = agent_link
        .sealer
        .seal_frame(result_text.as_bytes())
        .unwrap();
    v.insert("result-frame", hex_block(&result_frame));
    let opened = String::from_utf8(plane_link.opener.open_frame(&result_frame).unwrap()).unwrap();
    assert_eq!(
        decode_node_frame(&opened).unwrap(),
        NodeFrame::Event(result)
    );

    // A reflected frame never opens: the directions have their own keys.
    let mut reflected = Opener::new(&SessionKey(keys.agent_to_plane.0));
    assert!(reflected.open_frame(&ok_frame).is_err());
    v
}

/// The checked blocks of the document, by name.
fn documented() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = DOC.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line
            .trim()
            .strip_prefix("<!-- check: ")
            .and_then(|r| r.strip_suffix(" -->"))
        else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "{name}: no fenced block after the marker"
        );
        let mut body = Vec::new();
        for l in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            body.push(l);
        }
        assert!(
            out.insert(name.to_owned(), body.join("\n")).is_none(),
            "{name} is checked twice"
        );
    }
    out
}

#[test]
fn the_worked_example_in_protocol_14_md_is_what_the_code_produces() {
    let want = example();
    let doc = documented();
    let mut problems = Vec::new();
    for (name, value) in &want {
        match doc.get(*name) {
            None => problems.push(format!(
                "missing in the document: {name}\n<!-- check: {name} -->\n```\n{value}\n```"
            )),
            Some(text) => {
                let hex_like = value
                    .lines()
                    .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_hexdigit()));
                let same = if hex_like {
                    let strip = |s: &str| s.split_whitespace().collect::<String>();
                    strip(text) == strip(value)
                } else {
                    text == value
                };
                if !same {
                    problems.push(format!(
                        "differs: {name}\n<!-- check: {name} -->\n```\n{value}\n```"
                    ));
                }
            }
        }
    }
    for name in doc.keys() {
        if !want.contains_key(name.as_str()) {
            problems.push(format!("unknown checked block in the document: {name}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
