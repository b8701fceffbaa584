//! A plane link and an agent link back to back, in memory, with a simulated clock.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::json;
use termplane_machines::agent_link::AgentAction;
use termplane_machines::plane_link::{HeldReason, PlaneAction, PlaneInput};
use termplane_proto::event::Event;
use termplane_proto::{CloseCode, MIN_NODE_VERSION};

#[test]
fn handshake_completes_and_the_node_comes_online() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    assert!(p.agent.is_established());
    let s = p.socket(0);
    assert!(s.link.is_online() && s.link.is_sealed());
    // Identity persisted before the gates, then online; nothing was closed.
    let persist = s
        .actions
        .iter()
        .position(|a| matches!(a, PlaneAction::PersistIdentity(_)));
    let online = s
        .actions
        .iter()
        .position(|a| matches!(a, PlaneAction::Online));
    assert!(persist.unwrap() < online.unwrap());
    assert_eq!(closes(s), 0);
    assert_eq!(p.store.identity_writes.len(), 1);
    assert!(p.agent_actions.contains(&AgentAction::Established));
    // Everything after kx travelled sealed: exactly one text frame (kx) reached the plane.
    let texts = s
        .received
        .iter()
        .filter(|m| matches!(m, Msg::Text(_)))
        .count();
    assert_eq!(texts, 1);
}

#[test]
fn commands_round_trip_in_order_and_results_settle_on_the_same_socket() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    let a = p.send(0, json!({"type":"ping"}), false).unwrap();
    let b = p.send(0, json!({"type":"inventory"}), false).unwrap();
    let kinds: Vec<&str> = p.executed.iter().map(|(_, c)| c.kind()).collect();
    assert_eq!(kinds, ["ping", "inventory"]);
    let refs: Vec<String> = p.results(0).into_iter().map(|r| r.reference).collect();
    assert_eq!(refs, [a, b]);
}

#[test]
fn heartbeats_flow_every_15_seconds_and_inventory_every_5_minutes() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    p.advance(Duration::from_secs(5 * 60));
    let beats = p
        .events(0)
        .iter()
        .filter(|e| matches!(e, Event::Heartbeat(_)))
        .count();
    assert_eq!(beats, 20);
    let inv = p
        .agent_actions
        .iter()
        .filter(|a| matches!(a, AgentAction::InventoryDue))
        .count();
    assert_eq!(inv, 1);
}

#[test]
fn held_agent_exits_at_exactly_600_seconds() {
    let mut p = Pair::new(ready("0.16.9", 14));
    p.run();
    let s = p.socket(0);
    assert_eq!(
        s.link.held_reason(),
        Some(&HeldReason::BelowFloor {
            required: MIN_NODE_VERSION,
            found: Some("0.16.9".into())
        })
    );
    // Identity still persisted even though a gate failed.
    assert_eq!(p.store.identity_writes.len(), 1);
    // Heartbeats keep arriving but are dropped unread; they do not keep the socket alive.
    p.advance(Duration::from_millis(599_999));
    assert!(p.exits().is_empty());
    assert!(
        p.events(0).is_empty(),
        "a held link delivers nothing but the update result"
    );
    p.advance(Duration::from_millis(1));
    assert_eq!(p.now - p.t0, Duration::from_secs(600));
    let (code, reason) = p.socket(0).closed_by_plane.clone().unwrap();
    assert_eq!(code, CloseCode::UpdateRequired);
    assert!(
        reason.contains("0.17.0") && reason.contains("0.16.9"),
        "{reason}"
    );
    assert_eq!(p.exits(), vec![(true, reason)]);
    assert!(p.agent.has_exited());
}

#[test]
fn held_link_carries_update_and_reads_only_its_result() {
    let mut p = Pair::new(ready("0.17.0", 13));
    p.run();
    assert!(matches!(
        p.socket(0).link.held_reason(),
        Some(HeldReason::ProtocolMismatch {
            required: 14,
            found: Some(13)
        })
    ));
    assert!(p.send(0, json!({"type":"ping"}), false).is_err());
    let jti = p
        .send(
            0,
            json!({"type":"update","version":"0.18.0","url":"https://p/x","sha256":"ab"}),
            true,
        )
        .unwrap();
    let results = p.results(0);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].reference, jti);
}

#[test]
fn b21_replayed_session_is_refused_without_displacing_the_live_one() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    assert!(p.socket(0).link.is_online());
    let recorded = p.socket(0).received.clone();
    // An attacker with a valid bearer replays the whole captured stream on a new socket.
    let evil = p.open_socket();
    for m in &recorded {
        let now = p.now;
        match m {
            Msg::Text(t) => p.sockets[evil].link.handle_input(PlaneInput::Text(t), now),
            Msg::Binary(b) => p.sockets[evil]
                .link
                .handle_input(PlaneInput::Binary(b), now),
        }
        p.run();
    }
    let (code, reason) = p.socket(evil).closed_by_plane.clone().unwrap();
    assert_eq!(code, CloseCode::LinkRefused);
    assert!(reason.contains("replayed"), "{reason}");
    assert!(
        !p.socket(evil).authenticated,
        "newest-wins never fired for the replay"
    );
    assert!(p.socket(0).link.is_online());
    assert!(p.socket(0).closed_by_plane.is_none());
    assert_eq!(p.newest, Some(0));
}

#[test]
fn a_newer_connection_supersedes_the_older_with_4409() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    // The agent's network breaks without the plane noticing (half-open TCP): it redials.
    let (now, unix) = (p.now, p.unix());
    p.agent.handle_input(
        termplane_machines::agent_link::AgentInput::Closed {
            code: None,
            reason: "",
        },
        now,
        unix,
    );
    p.current = None;
    p.advance(Duration::from_secs(2));
    assert_eq!(p.sockets.len(), 2);
    assert!(p.socket(1).link.is_online());
    // Newest wins: the stale socket is closed with 4409, exactly once.
    assert_eq!(
        p.socket(0).closed_by_plane.clone().unwrap().0,
        CloseCode::Superseded
    );
    assert_eq!(closes(p.socket(0)), 1);
    assert_eq!(p.newest, Some(1));
}

#[test]
fn key_rotation_closes_4401_and_the_node_repairs_through_register() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    // Rotation: the plane clears the pin and closes live sockets with 4401.
    p.store.pin = None;
    let now = p.now;
    p.sockets[0]
        .link
        .handle_input(PlaneInput::KeyRotatedOrDeleted, now);
    p.run();
    assert_eq!(
        p.socket(0).closed_by_plane.clone().unwrap().0,
        CloseCode::Unauthenticated
    );
    // The agent redials after backoff: its kx meets a row with no pin → 4411, it drops only
    // the pin, registers the same static key, then handshakes under the new pin.
    p.advance(Duration::from_secs(61));
    let codes: Vec<CloseCode> = p
        .sockets
        .iter()
        .filter_map(|s| s.closed_by_plane.as_ref().map(|c| c.0))
        .collect();
    assert_eq!(
        codes,
        [
            CloseCode::Unauthenticated,
            CloseCode::Repair,
            CloseCode::Normal
        ]
    );
    assert!(p.agent_actions.contains(&AgentAction::DropControlPin));
    assert!(p.agent.is_established());
    assert!(p.last().link.is_online());
    assert_eq!(p.agent.control_pin(), Some(p.plane_keys.public()));
}

#[test]
fn an_unpaired_node_registers_then_comes_online_under_the_new_pin() {
    let mut p = Pair::build(ready("0.17.0", 14), false);
    p.run();
    // register-ok, then a normal close; the redial (at once) runs the handshake.
    p.advance(Duration::ZERO);
    assert_eq!(
        p.socket(0).closed_by_plane.clone().unwrap().0,
        CloseCode::Normal
    );
    assert!(p.store.pin.is_some());
    assert!(
        p.agent_actions
            .contains(&AgentAction::PersistControlPin(p.plane_keys.public()))
    );
    assert!(p.agent.is_established());
    assert!(p.socket(1).link.is_online());
}

#[test]
fn plane_restart_reconnects_within_the_backoff_cap() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    let now = p.now;
    p.plane_reachable = false;
    p.sockets[0].link.handle_input(PlaneInput::Shutdown, now);
    p.run();
    // The plane is down for 5 minutes: the agent keeps trying, never waiting more than 60 s.
    p.advance(Duration::from_secs(300));
    p.plane_reachable = true;
    let down_at = p.now;
    p.advance(Duration::from_secs(61));
    assert!(p.agent.is_established());
    assert!(p.last().link.is_online());
    let _ = down_at;
}

#[test]
fn verify_failures_surface_as_error_events_and_never_execute() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    // A command whose exp is in the past: signed by the right key, refused at step 2.
    let now = p.now;
    let iat = p.unix().0 - 100;
    let signer = &p.signer;
    p.sockets[0]
        .link
        .send_command("old", false, now, |seq| {
            signer.sign(&termplane_proto::Claims {
                iss: termplane_proto::COMMAND_ISSUER.into(),
                aud: termplane_proto::node_audience(NODE_ID),
                jti: "old".into(),
                iat,
                exp: iat + 30,
                seq,
                cmd: json!({"type":"ping"}),
            })
        })
        .unwrap();
    p.run();
    assert!(p.executed.is_empty());
    let errors: Vec<Event> = p
        .events(0)
        .into_iter()
        .filter(|e| matches!(e, Event::Error(er) if er.code == "verify"))
        .collect();
    assert_eq!(errors.len(), 1, "{:?}", p.events(0));
}

#[test]
fn unknown_command_types_answer_unsupported() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    let jti = p.send(0, json!({"type":"teleport"}), false).unwrap();
    assert!(p.executed.is_empty());
    let r = p.results(0);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].reference, jti);
    assert_eq!(r[0].error.as_deref(), Some("unsupported"));
}
