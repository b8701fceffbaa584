//! Every row of the spec's "Node link (control-plane side)" and "Link classification" tables,
//! and the link-level cases of catalogue sections B and C, against the plane machine alone.
// Tests take one arbitrary origin `Instant::now()`; the simulated clock only adds to it.
#![allow(
    clippy::disallowed_methods,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use crate::common;

use std::time::{Duration, Instant};

use common::{NODE_ID, NODE_KEY, ready};
use termplane_machines::kx::{Initiator, InitiatorParams, StaticKeypair};
use termplane_machines::plane_link::{
    BindingRefusal, HeldReason, LinkClass, PlaneAction, PlaneInput, PlaneLink, SendError,
};
use termplane_proto::event::Ready;
use termplane_proto::frame::NodeFrame;
use termplane_proto::{Binding, CloseCode, Key32};

struct Rig {
    t0: Instant,
    plane: StaticKeypair,
    node: StaticKeypair,
    link: PlaneLink,
    actions: Vec<PlaneAction>,
}

impl Rig {
    fn new(pinned: bool) -> Self {
        let mut rng = termplane_machines::rng::from_seed([5; 32]);
        let plane = StaticKeypair::generate(&mut rng);
        let node = StaticKeypair::generate(&mut rng);
        let t0 = Instant::now();
        let class = if pinned {
            LinkClass::Pinned(node.public())
        } else {
            LinkClass::Legacy
        };
        let link = PlaneLink::new(NODE_ID, class, &plane, [6; 32], t0);
        Self {
            t0,
            plane,
            node,
            link,
            actions: vec![],
        }
    }

    fn feed(&mut self, input: PlaneInput<'_>, at: Duration) {
        self.link.handle_input(input, self.t0 + at);
        while let Some(a) = self.link.poll_action() {
            self.actions.push(a);
        }
    }

    fn tick(&mut self, at: Duration) {
        self.link.handle_timeout(self.t0 + at);
        while let Some(a) = self.link.poll_action() {
            self.actions.push(a);
        }
    }

    fn flight(&self, seed: u8, protocol: u32) -> (Initiator, String, Vec<u8>) {
        let mut rng = termplane_machines::rng::from_seed([seed; 32]);
        let params = InitiatorParams {
            plane_static: self.plane.public(),
            node_static: self.node.public(),
            binding: Binding {
                node_id: NODE_ID.into(),
                node_key: NODE_KEY.into(),
                protocol_version: protocol,
            },
        };
        let (i, hello) = Initiator::start(&params, &mut rng).unwrap();
        (i, NodeFrame::Kx(hello.kx).to_json(), hello.first_binary)
    }

    /// Runs the handshake to `AwaitReady`; returns the agent's established streams.
    fn establish(&mut self) -> termplane_machines::kx::Established {
        let (init, kx, bin) = self.flight(1, 14);
        self.feed(PlaneInput::Text(&kx), Duration::ZERO);
        self.feed(PlaneInput::Binary(&bin), Duration::ZERO);
        assert!(matches!(
            self.actions.last(),
            Some(PlaneAction::CheckBinding { .. })
        ));
        self.feed(PlaneInput::BindingVerdict(Ok(())), Duration::ZERO);
        let Some(PlaneAction::SendBinary(ok)) = self.actions.last().cloned() else {
            panic!("no ok: {:?}", self.actions)
        };
        init.on_first_binary(&ok).unwrap()
    }

    fn send_ready(&mut self, agent: &mut termplane_machines::kx::Established, r: Ready) {
        let text = NodeFrame::Ready(Box::new(r)).to_json();
        let ct = agent.sealer.seal_frame(text.as_bytes()).unwrap();
        self.feed(PlaneInput::Binary(&ct), Duration::ZERO);
    }

    fn closes(&self) -> Vec<(CloseCode, String)> {
        self.actions
            .iter()
            .filter_map(|a| match a {
                PlaneAction::Close { code, reason } => Some((*code, reason.clone())),
                _ => None,
            })
            .collect()
    }

    fn close(&self) -> (CloseCode, String) {
        let c = self.closes();
        assert_eq!(c.len(), 1, "exactly one close: {:?}", self.actions);
        c[0].clone()
    }

    fn online(&mut self) -> termplane_machines::kx::Established {
        let mut agent = self.establish();
        self.send_ready(&mut agent, ready("0.17.0", 14));
        assert!(self.link.is_online());
        agent
    }
}

// ---- Link classification ----

#[test]
fn pinned_row_reads_no_frame_before_the_handshake() {
    let mut r = Rig::new(true);
    let text = NodeFrame::Ready(Box::new(ready("0.17.0", 14))).to_json();
    r.feed(PlaneInput::Text(&text), Duration::ZERO);
    assert_eq!(r.close().0, CloseCode::LinkRefused);
    assert!(
        !r.actions
            .iter()
            .any(|a| matches!(a, PlaneAction::PersistIdentity(_)))
    );
}

#[test]
fn pinned_row_ready_arrives_encrypted_and_the_gates_pass() {
    let mut r = Rig::new(true);
    let _agent = r.online();
    assert!(r.link.is_sealed());
    assert!(r.actions.contains(&PlaneAction::Online));
    assert!(r.actions.contains(&PlaneAction::Authenticated));
}

#[test]
fn legacy_row_accepts_plaintext_and_an_old_agent_meets_the_gates() {
    let mut r = Rig::new(false);
    let text = NodeFrame::Ready(Box::new(ready("0.12.3", 12))).to_json();
    r.feed(PlaneInput::Text(&text), Duration::ZERO);
    assert!(
        r.actions
            .iter()
            .any(|a| matches!(a, PlaneAction::PersistIdentity(_)))
    );
    assert_eq!(
        r.link.held_reason(),
        Some(&HeldReason::BelowFloor {
            required: termplane_proto::MIN_NODE_VERSION,
            found: Some("0.12.3".into())
        })
    );
}

#[test]
fn legacy_row_plaintext_ready_wearing_protocol_14_is_held_for_pairing_and_never_written() {
    let mut r = Rig::new(false);
    let text = NodeFrame::Ready(Box::new(ready("0.17.0", 14))).to_json();
    r.feed(PlaneInput::Text(&text), Duration::ZERO);
    assert_eq!(r.link.held_reason(), Some(&HeldReason::Pairing));
    assert!(
        !r.actions
            .iter()
            .any(|a| matches!(a, PlaneAction::PersistIdentity(_))),
        "the self-claimed identity is never written"
    );
    assert!(!r.actions.contains(&PlaneAction::Online));
}

#[test]
fn legacy_row_register_claims_the_pin_answers_register_ok_then_closes_normally() {
    let mut r = Rig::new(false);
    let text = NodeFrame::Register(termplane_proto::Register {
        node_static: r.node.public(),
    })
    .to_json();
    r.feed(PlaneInput::Text(&text), Duration::ZERO);
    assert_eq!(r.actions, vec![PlaneAction::ClaimPin(r.node.public())]);
    r.feed(PlaneInput::PinClaimVerdict(true), Duration::ZERO);
    let PlaneAction::SendText(ok) = &r.actions[1] else {
        panic!("{:?}", r.actions)
    };
    assert!(ok.contains("register-ok") && ok.contains(&r.plane.public().to_b64()));
    assert_eq!(r.close().0, CloseCode::Normal);
}

#[test]
fn register_losing_the_pin_race_is_refused_with_4410() {
    let mut r = Rig::new(false);
    let text = NodeFrame::Register(termplane_proto::Register {
        node_static: r.node.public(),
    })
    .to_json();
    r.feed(PlaneInput::Text(&text), Duration::ZERO);
    r.feed(PlaneInput::PinClaimVerdict(false), Duration::ZERO);
    let (code, reason) = r.close();
    assert_eq!(code, CloseCode::LinkRefused);
    assert!(reason.contains("rotate the node key"), "{reason}");
}

#[test]
fn register_at_a_pinned_row_is_refused_naming_the_remedy() {
    let mut r = Rig::new(true);
    // Another static key than the row's pin.
    let mut rng = termplane_machines::rng::from_seed([77; 32]);
    let other = StaticKeypair::generate(&mut rng).public();
    let text = NodeFrame::Register(termplane_proto::Register { node_static: other }).to_json();
    r.feed(PlaneInput::Text(&text), Duration::ZERO);
    let (code, reason) = r.close();
    assert_eq!(code, CloseCode::LinkRefused);
    assert!(
        reason.contains("rotate the node key to re-pair"),
        "{reason}"
    );
    assert!(
        !r.actions
            .iter()
            .any(|a| matches!(a, PlaneAction::ClaimPin(_)))
    );
}

#[test]
fn a_repeated_register_with_the_pinned_key_is_answered_register_ok_again() {
    // The row was pinned by this very key, and its register-ok was lost: the node registers
    // again with the same static key and resumes.
    let mut r = Rig::new(true);
    let text = NodeFrame::Register(termplane_proto::Register {
        node_static: r.node.public(),
    })
    .to_json();
    r.feed(PlaneInput::Text(&text), Duration::ZERO);
    let PlaneAction::SendText(ok) = &r.actions[0] else {
        panic!("{:?}", r.actions)
    };
    assert!(ok.contains("register-ok") && ok.contains(&r.plane.public().to_b64()));
    assert_eq!(r.close().0, CloseCode::Normal);
    // Idempotent: no write of the row.
    assert!(
        !r.actions
            .iter()
            .any(|a| matches!(a, PlaneAction::ClaimPin(_)))
    );
}

#[test]
fn kx_at_a_row_with_no_pin_is_the_repair_signal_4411() {
    let mut r = Rig::new(false);
    let (_, kx, _) = r.flight(1, 14);
    r.feed(PlaneInput::Text(&kx), Duration::ZERO);
    assert_eq!(r.close().0, CloseCode::Repair);
}

// ---- Ready gates ----

fn gate(version: Option<&str>, protocol: Option<u64>) -> (Rig, Option<HeldReason>) {
    let mut r = Rig::new(true);
    let mut agent = r.establish();
    let mut rd = ready("0.17.0", 14);
    rd.agent_version = version.map(str::to_owned);
    rd.protocol_version = protocol;
    r.send_ready(&mut agent, rd);
    let held = r.link.held_reason().cloned();
    (r, held)
}

#[test]
fn gate_one_runs_first_and_names_required_and_found_versions() {
    let (r, held) = gate(Some("0.16.0"), Some(13));
    let reason = held.unwrap();
    assert!(
        matches!(reason, HeldReason::BelowFloor { .. }),
        "{reason:?}"
    );
    let text = reason.to_string();
    assert!(text.contains("0.17.0") && text.contains("0.16.0"), "{text}");
    // Identity persisted before the gates, and the row reads held, not online.
    let persist = r
        .actions
        .iter()
        .position(|a| matches!(a, PlaneAction::PersistIdentity(_)));
    let held_at = r
        .actions
        .iter()
        .position(|a| matches!(a, PlaneAction::Held(_)));
    assert!(persist.unwrap() < held_at.unwrap());
    assert!(!r.actions.contains(&PlaneAction::Online));
}

#[test]
fn unparseable_or_absent_versions_fail_gate_one() {
    for v in [Some("seventeen"), Some("0.17"), None] {
        let (_, held) = gate(v, Some(14));
        assert_eq!(
            held,
            Some(HeldReason::BelowFloor {
                required: termplane_proto::MIN_NODE_VERSION,
                found: v.map(str::to_owned)
            })
        );
    }
}

#[test]
fn gate_two_is_an_exact_protocol_match_in_both_directions() {
    for p in [Some(13), Some(15), None] {
        let (_, held) = gate(Some("0.99.0"), p);
        assert_eq!(
            held,
            Some(HeldReason::ProtocolMismatch {
                required: 14,
                found: p
            })
        );
    }
    let (r, held) = gate(Some("0.17.0"), Some(14));
    assert_eq!(held, None);
    assert!(r.link.is_online());
}

// ---- Held ----

#[test]
fn held_link_accepts_only_update_and_closes_4406_after_10_idle_minutes() {
    let (mut r, _) = gate(Some("0.1.0"), Some(14));
    let sign = |_seq: u64| "h.p.s".to_owned();
    assert_eq!(
        r.link.send_command("a", false, r.t0, sign),
        Err(SendError::NotAccepting)
    );
    assert_eq!(r.link.send_command("u", true, r.t0, sign), Ok(1));
    r.tick(Duration::from_secs(599));
    assert!(r.closes().is_empty());
    r.tick(Duration::from_secs(600));
    let (code, reason) = r.close();
    assert_eq!(code, CloseCode::UpdateRequired);
    assert!(reason.starts_with("update required"), "{reason}");
}

#[test]
fn held_link_drops_other_frames_unread() {
    let mut r = Rig::new(true);
    let mut agent = r.establish();
    r.send_ready(&mut agent, ready("0.1.0", 14));
    assert!(r.link.held_reason().is_some());
    let hb = r#"{"type":"heartbeat","at":"x"}"#;
    let ct = agent.sealer.seal_frame(hb.as_bytes()).unwrap();
    r.feed(PlaneInput::Binary(&ct), Duration::ZERO);
    // A result whose ref is not a pending update is dropped too.
    let res = r#"{"type":"result","ref":"nope","ok":true}"#;
    let ct = agent.sealer.seal_frame(res.as_bytes()).unwrap();
    r.feed(PlaneInput::Binary(&ct), Duration::ZERO);
    assert!(matches!(r.actions.last(), Some(PlaneAction::Discarded(_))));
    assert!(!r.actions.iter().any(|a| matches!(a, PlaneAction::Event(_))));
    assert!(r.closes().is_empty());
}

// ---- Online ----

#[test]
fn online_link_delivers_events_and_assigns_seq_from_1() {
    let mut r = Rig::new(true);
    let mut agent = r.online();
    let ev = r#"{"type":"heartbeat","at":"now"}"#;
    let ct = agent.sealer.seal_frame(ev.as_bytes()).unwrap();
    r.feed(PlaneInput::Binary(&ct), Duration::ZERO);
    assert!(matches!(r.actions.last(), Some(PlaneAction::Event(_))));
    let seqs: Vec<u64> = (0..3)
        .map(|i| {
            r.link
                .send_command(&format!("j{i}"), false, r.t0, |s| format!("x.{s}.y"))
                .unwrap()
        })
        .collect();
    assert_eq!(seqs, [1, 2, 3]);
}

#[test]
fn online_link_discards_a_malformed_event_but_stays_up() {
    let mut r = Rig::new(true);
    let mut agent = r.online();
    let ct = agent.sealer.seal_frame(br#"{"type":"heartbeat"}"#).unwrap();
    r.feed(PlaneInput::Binary(&ct), Duration::ZERO);
    assert!(matches!(r.actions.last(), Some(PlaneAction::Discarded(_))));
    assert!(r.link.is_online());
}

#[test]
fn a_result_with_an_unknown_field_or_a_wrong_typed_ok_is_reported_malformed_at_once() {
    let mut r = Rig::new(true);
    let mut agent = r.online();
    for (i, bad) in [
        r#"{"type":"result","ref":"jA","ok":true,"extra":1}"#,
        r#"{"type":"result","ref":"jB","ok":"yes"}"#,
    ]
    .iter()
    .enumerate()
    {
        let ct = agent.sealer.seal_frame(bad.as_bytes()).unwrap();
        r.feed(PlaneInput::Binary(&ct), Duration::ZERO);
        let Some(PlaneAction::MalformedResult { reference, .. }) = r.actions.last() else {
            panic!("{i}: {:?}", r.actions.last())
        };
        assert_eq!(reference, ["jA", "jB"][i]);
    }
    assert!(r.link.is_online());
    // A malformed frame that is not a result is still discarded quietly.
    let ct = agent.sealer.seal_frame(br#"{"type":"heartbeat"}"#).unwrap();
    r.feed(PlaneInput::Binary(&ct), Duration::ZERO);
    assert!(matches!(r.actions.last(), Some(PlaneAction::Discarded(_))));
}

#[test]
fn a_silent_online_node_is_closed_with_1000_and_a_reason_after_60_seconds() {
    let mut r = Rig::new(true);
    let mut agent = r.online();
    // Traffic (a frame, then a ping) keeps it open.
    r.tick(Duration::from_secs(50));
    let hb = agent
        .sealer
        .seal_frame(br#"{"type":"heartbeat","at":"x"}"#)
        .unwrap();
    r.feed(PlaneInput::Binary(&hb), Duration::from_secs(50));
    r.tick(Duration::from_secs(100));
    r.feed(PlaneInput::Alive, Duration::from_secs(100));
    r.tick(Duration::from_secs(159));
    assert!(r.closes().is_empty(), "{:?}", r.actions);
    // Then 60 silent seconds.
    r.tick(Duration::from_secs(160));
    let (code, reason) = r.close();
    assert_eq!(code, CloseCode::Normal);
    assert!(
        reason.contains("no frame from the node for 60 seconds"),
        "{reason}"
    );
}

#[test]
fn a_silent_held_node_is_closed_only_by_the_4406_at_10_minutes() {
    let (mut r, held) = gate(Some("0.1.0"), Some(14));
    assert!(held.is_some());
    r.tick(Duration::from_secs(599));
    assert!(r.closes().is_empty(), "{:?}", r.actions);
    r.tick(Duration::from_secs(600));
    assert_eq!(r.close().0, CloseCode::UpdateRequired);
}

#[test]
fn a_second_ready_on_an_online_link_is_a_wrong_kind_frame() {
    let mut r = Rig::new(true);
    let mut agent = r.online();
    r.send_ready(&mut agent, ready("0.17.0", 14));
    assert_eq!(r.close().0, CloseCode::LinkRefused);
}

#[test]
fn commands_are_refused_before_the_link_is_online() {
    let mut r = Rig::new(true);
    assert_eq!(
        r.link.send_command("a", false, r.t0, |_| String::new()),
        Err(SendError::NotAccepting)
    );
    let _agent = r.establish();
    assert_eq!(
        r.link.send_command("a", false, r.t0, |_| String::new()),
        Err(SendError::NotAccepting)
    );
}

#[test]
fn superseded_rotated_oversize_and_shutdown_close_with_their_codes() {
    let cases: [(PlaneInput<'static>, CloseCode); 4] = [
        (PlaneInput::Superseded, CloseCode::Superseded),
        (PlaneInput::KeyRotatedOrDeleted, CloseCode::Unauthenticated),
        (PlaneInput::Oversize { len: 1_048_577 }, CloseCode::TooBig),
        (PlaneInput::Shutdown, CloseCode::Normal),
    ];
    for (input, code) in cases {
        let mut r = Rig::new(true);
        let _agent = r.online();
        r.feed(input, Duration::ZERO);
        assert_eq!(r.close().0, code);
        assert!(!r.link.is_online());
    }
}

#[test]
fn at_most_one_close_and_nothing_after_it() {
    let mut r = Rig::new(true);
    let _agent = r.online();
    r.feed(PlaneInput::Superseded, Duration::ZERO);
    let n = r.actions.len();
    r.feed(PlaneInput::KeyRotatedOrDeleted, Duration::ZERO);
    r.feed(PlaneInput::Text("{}"), Duration::ZERO);
    r.feed(PlaneInput::Binary(&[0; 64]), Duration::ZERO);
    r.tick(Duration::from_secs(10_000));
    assert_eq!(r.actions.len(), n);
    assert_eq!(r.closes().len(), 1);
    assert_eq!(r.link.poll_timeout(), None);
}

// ---- Catalogue section B, link level ----

#[test]
fn b17_a_node_key_that_no_longer_verifies_is_refused_and_live_sessions_close() {
    let mut r = Rig::new(true);
    let (_, kx, bin) = r.flight(1, 14);
    r.feed(PlaneInput::Text(&kx), Duration::ZERO);
    r.feed(PlaneInput::Binary(&bin), Duration::ZERO);
    r.feed(
        PlaneInput::BindingVerdict(Err(BindingRefusal::NodeKey)),
        Duration::ZERO,
    );
    let (code, reason) = r.close();
    assert_eq!(code, CloseCode::LinkRefused);
    assert!(reason.contains("node key"), "{reason}");
    assert!(!r.actions.contains(&PlaneAction::Authenticated));
    // And a live session of a rotated key is closed at once.
    let mut live = Rig::new(true);
    let _agent = live.online();
    live.feed(PlaneInput::KeyRotatedOrDeleted, Duration::ZERO);
    assert_eq!(live.close().0, CloseCode::Unauthenticated);
}

#[test]
fn b20_frames_out_of_handshake_order_close_with_4410() {
    // Binding before kx.
    let mut r = Rig::new(true);
    let (_, _, bin) = r.flight(1, 14);
    r.feed(PlaneInput::Binary(&bin), Duration::ZERO);
    assert_eq!(r.close().0, CloseCode::LinkRefused);
    // kx twice.
    let mut r = Rig::new(true);
    let (_, kx, _) = r.flight(1, 14);
    r.feed(PlaneInput::Text(&kx), Duration::ZERO);
    r.feed(PlaneInput::Text(&kx), Duration::ZERO);
    assert_eq!(r.close().0, CloseCode::LinkRefused);
    // kx after the binding (awaiting the verdict).
    let mut r = Rig::new(true);
    let (_, kx, bin) = r.flight(1, 14);
    r.feed(PlaneInput::Text(&kx), Duration::ZERO);
    r.feed(PlaneInput::Binary(&bin), Duration::ZERO);
    r.feed(PlaneInput::Text(&kx), Duration::ZERO);
    assert_eq!(r.close().0, CloseCode::LinkRefused);
    assert!(!r.actions.contains(&PlaneAction::Authenticated));
    // A second kx mid-session (plaintext on the established link).
    let mut r = Rig::new(true);
    let _agent = r.online();
    let (_, kx, _) = r.flight(2, 14);
    r.feed(PlaneInput::Text(&kx), Duration::ZERO);
    assert_eq!(r.close().0, CloseCode::LinkRefused);
    // An event before the binding is accepted.
    let mut r = Rig::new(true);
    let (_, kx, _) = r.flight(1, 14);
    r.feed(PlaneInput::Text(&kx), Duration::ZERO);
    r.feed(
        PlaneInput::Text(r#"{"type":"heartbeat","at":"x"}"#),
        Duration::ZERO,
    );
    assert_eq!(r.close().0, CloseCode::LinkRefused);
}

#[test]
fn b22_replayed_kx_and_binding_are_refused_before_any_authenticated_frame() {
    let mut live = Rig::new(true);
    let (_, kx, bin) = live.flight(1, 14);
    live.feed(PlaneInput::Text(&kx), Duration::ZERO);
    live.feed(PlaneInput::Binary(&bin), Duration::ZERO);
    let Some(PlaneAction::CheckBinding { ephemeral, .. }) = live.actions.last().cloned() else {
        panic!()
    };
    live.feed(PlaneInput::BindingVerdict(Ok(())), Duration::ZERO);
    // A replay on another socket of the same node carries the same ephemeral key, so the store
    // refuses it; the live socket is untouched.
    let mut replay = Rig {
        link: PlaneLink::new(
            NODE_ID,
            LinkClass::Pinned(live.node.public()),
            &live.plane,
            [9; 32],
            live.t0,
        ),
        actions: vec![],
        t0: live.t0,
        plane: StaticKeypair::from_secret_bytes(live.plane.secret_bytes()),
        node: StaticKeypair::from_secret_bytes(live.node.secret_bytes()),
    };
    replay.feed(PlaneInput::Text(&kx), Duration::ZERO);
    replay.feed(PlaneInput::Binary(&bin), Duration::ZERO);
    let Some(PlaneAction::CheckBinding {
        ephemeral: again, ..
    }) = replay.actions.last().cloned()
    else {
        panic!()
    };
    assert_eq!(again, ephemeral);
    replay.feed(
        PlaneInput::BindingVerdict(Err(BindingRefusal::ReplayedEphemeral)),
        Duration::ZERO,
    );
    assert_eq!(replay.close().0, CloseCode::LinkRefused);
    assert!(live.closes().is_empty());
    // Even if a store forgot the ephemeral, the replayer cannot continue: its next frame is
    // garbage to the plane's opener and the socket closes at the first authenticated frame.
    let mut forgetful = Rig {
        link: PlaneLink::new(
            NODE_ID,
            LinkClass::Pinned(live.node.public()),
            &live.plane,
            [10; 32],
            live.t0,
        ),
        actions: vec![],
        t0: live.t0,
        plane: StaticKeypair::from_secret_bytes(live.plane.secret_bytes()),
        node: StaticKeypair::from_secret_bytes(live.node.secret_bytes()),
    };
    forgetful.feed(PlaneInput::Text(&kx), Duration::ZERO);
    forgetful.feed(PlaneInput::Binary(&bin), Duration::ZERO);
    forgetful.feed(PlaneInput::BindingVerdict(Ok(())), Duration::ZERO);
    forgetful.feed(PlaneInput::Binary(&[0x42; 80]), Duration::ZERO);
    assert_eq!(forgetful.close().0, CloseCode::LinkRefused);
    assert!(!forgetful.link.is_online());
}

#[test]
fn b23_a_silent_or_partial_handshake_closes_within_10_seconds() {
    let mut r = Rig::new(true);
    r.tick(Duration::from_millis(9_999));
    assert!(r.closes().is_empty());
    r.tick(Duration::from_secs(10));
    let (code, reason) = r.close();
    assert_eq!(code, CloseCode::LinkRefused);
    assert!(reason.contains("10 seconds"), "{reason}");
    // Established but no ready: still the handshake deadline.
    let mut r = Rig::new(true);
    let _agent = r.establish();
    r.tick(Duration::from_secs(10));
    assert_eq!(r.close().0, CloseCode::LinkRefused);
    // A partial kx is refused at once.
    let mut r = Rig::new(true);
    r.feed(PlaneInput::Text(r#"{"t":"kx","eph":"#), Duration::ZERO);
    assert_eq!(r.close().0, CloseCode::LinkRefused);
    // Pre-handshake frames above 4 KiB are refused before parsing.
    let mut r = Rig::new(true);
    let big = format!(r#"{{"t":"kx","pad":"{}"}}"#, "x".repeat(5000));
    r.feed(PlaneInput::Text(&big), Duration::ZERO);
    let (code, reason) = r.close();
    assert_eq!(code, CloseCode::LinkRefused);
    assert!(reason.contains("too large"), "{reason}");
    let mut r = Rig::new(true);
    let (_, kx, _) = r.flight(1, 14);
    r.feed(PlaneInput::Text(&kx), Duration::ZERO);
    r.feed(PlaneInput::Binary(&vec![0u8; 5000]), Duration::ZERO);
    assert!(r.close().1.contains("too large"));
}

// b24 (kx flood from one IP → rate limited): admission control of unauthenticated sockets is the
// plane's upgrade handler's job; the machine's share is bounding the work of each socket, which
// these tests show: a wrong pin never reaches key derivation (b15 in kx tests) and every socket
// closes after its first bad frame.
#[test]
fn b24_each_socket_does_bounded_work_and_stops_at_its_first_bad_frame() {
    let mut r = Rig::new(true);
    let (_, kx, _) = r.flight(1, 14);
    let wrong = kx.replace(&r.node.public().to_b64(), &Key32([9; 32]).to_b64());
    r.feed(PlaneInput::Text(&wrong), Duration::ZERO);
    let n = r.actions.len();
    for _ in 0..1000 {
        r.feed(PlaneInput::Text(&kx), Duration::ZERO);
    }
    assert_eq!(r.actions.len(), n, "nothing is processed after the close");
    assert!(r.close().1.contains("pinned"));
}

// ---- Catalogue section C, link level ----

#[test]
fn c31_a_stream_that_ends_without_final_is_abnormal_and_leaves_nothing_half_done() {
    let mut r = Rig::new(true);
    let _agent = r.online();
    r.feed(PlaneInput::PeerClosed { code: None }, Duration::ZERO);
    assert!(r.link.is_closed());
    assert!(!r.link.is_online());
    let n = r.actions.len();
    r.feed(PlaneInput::Binary(&[1; 40]), Duration::ZERO);
    assert_eq!(r.actions.len(), n);
    // The plane emits no close of its own for a socket the peer ended.
    assert!(r.closes().is_empty());
}

#[test]
fn c33_plaintext_after_establishment_closes_and_is_never_parsed_as_a_command() {
    let mut r = Rig::new(true);
    let _agent = r.online();
    r.feed(
        PlaneInput::Text(r#"{"type":"result","ref":"x","ok":true}"#),
        Duration::ZERO,
    );
    assert_eq!(r.close().0, CloseCode::LinkRefused);
    assert!(!r.actions.iter().any(|a| matches!(a, PlaneAction::Event(_))));
}

#[test]
fn c34_text_and_binary_frame_types_must_match_the_phase() {
    // The binding sent as text.
    let mut r = Rig::new(true);
    let (_, kx, bin) = r.flight(1, 14);
    r.feed(PlaneInput::Text(&kx), Duration::ZERO);
    let as_text = String::from_utf8_lossy(&bin).into_owned();
    r.feed(PlaneInput::Text(&as_text), Duration::ZERO);
    assert_eq!(r.close().0, CloseCode::LinkRefused);
    // kx sent as binary.
    let mut r = Rig::new(true);
    let (_, kx, _) = r.flight(1, 14);
    r.feed(PlaneInput::Binary(kx.as_bytes()), Duration::ZERO);
    assert_eq!(r.close().0, CloseCode::LinkRefused);
    // Binary on a legacy (plaintext) link.
    let mut r = Rig::new(false);
    r.feed(PlaneInput::Binary(&[1, 2, 3]), Duration::ZERO);
    assert_eq!(r.close().0, CloseCode::LinkRefused);
}
