//! Every row of the spec's "Node link (agent side)" table against the agent machine.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::json;
use termplane_machines::agent_link::{AgentAction, AgentInput};
use termplane_machines::timer::TimerKind;
use termplane_proto::CloseCode;
use termplane_proto::event::Event;

fn close(p: &mut Pair, code: u16) {
    let (now, unix) = (p.now, p.unix());
    p.current = None;
    p.agent.handle_input(
        AgentInput::Closed {
            code: Some(code),
            reason: "closing",
        },
        now,
        unix,
    );
    p.run();
}

#[test]
fn close_4406_exits_with_rollback() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    close(&mut p, 4406);
    assert_eq!(p.exits(), vec![(true, "closing".to_owned())]);
    assert_eq!(p.agent.poll_timeout(), None);
    let dials = p
        .agent_actions
        .iter()
        .filter(|a| **a == AgentAction::Dial)
        .count();
    p.advance(Duration::from_secs(3600));
    assert_eq!(
        p.agent_actions
            .iter()
            .filter(|a| **a == AgentAction::Dial)
            .count(),
        dials,
        "an exited agent never dials again"
    );
}

#[test]
fn close_4409_exits_without_rollback() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    close(&mut p, 4409);
    assert_eq!(p.exits(), vec![(false, "closing".to_owned())]);
}

#[test]
fn close_4410_redials_with_jittered_backoff_capped_at_60_seconds() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    p.plane_reachable = false;
    close(&mut p, 4410);
    let mut last = p.now;
    let mut gaps = vec![];
    for _ in 0..12 {
        let (at, kind) = p.agent.poll_timeout().unwrap();
        assert_eq!(kind, TimerKind::Redial);
        gaps.push(at - last);
        p.advance_to(at);
        last = at;
    }
    assert!(
        gaps.iter().all(|g| *g <= Duration::from_secs(60)),
        "{gaps:?}"
    );
    assert!(gaps[0] <= Duration::from_secs(1));
    assert!(
        gaps[11] >= Duration::from_secs(30),
        "the backoff grew to the cap: {gaps:?}"
    );
    // The config is unchanged: the pin is kept.
    assert!(p.agent.control_pin().is_some());
    assert!(!p.agent_actions.contains(&AgentAction::DropControlPin));
    // Once the plane is back, the link comes up and the backoff resets.
    p.plane_reachable = true;
    p.advance(Duration::from_secs(60));
    assert!(p.agent.is_established());
}

#[test]
fn close_4411_before_establishment_drops_only_the_pin_and_registers_next() {
    let mut p = Pair::new(ready("0.17.0", 14));
    // Dial, send the first flight, then the plane answers 4411 before any ok.
    p.plane_reachable = true;
    let (now, unix) = (p.now, p.unix());
    let AgentAction::Dial = p.agent.poll_action().unwrap() else {
        panic!()
    };
    p.open_socket();
    p.current = Some(0);
    p.agent.handle_input(AgentInput::Opened, now, unix);
    while p.agent.poll_action().is_some() {}
    close(&mut p, 4411);
    assert!(p.agent_actions.contains(&AgentAction::DropControlPin));
    assert_eq!(p.agent.control_pin(), None);
    // The next connect registers (the row still has its pin here, so the plane refuses with
    // 4410 naming the remedy; the agent keeps its static key and retries with backoff).
    p.advance(Duration::from_millis(1));
    let sent_register = p.sockets[1]
        .received
        .first()
        .is_some_and(|m| matches!(m, Msg::Text(t) if t.contains("\"register\"")));
    assert!(sent_register, "{:?}", p.sockets[1].received);
    assert_eq!(
        p.sockets[1].closed_by_plane.as_ref().unwrap().0,
        CloseCode::LinkRefused
    );
}

#[test]
fn close_4411_after_establishment_keeps_the_pin() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    p.plane_reachable = false;
    close(&mut p, 4411);
    assert!(!p.agent_actions.contains(&AgentAction::DropControlPin));
    assert!(p.agent.control_pin().is_some());
}

#[test]
fn close_1000_is_an_ordinary_reconnect() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    close(&mut p, 1000);
    assert_eq!(p.agent.poll_timeout().unwrap().1, TimerKind::Redial);
    assert_eq!(p.agent.poll_timeout().unwrap().0, p.now, "at once");
    p.advance(Duration::ZERO);
    assert_eq!(p.sockets.len(), 2);
    assert!(p.agent.is_established());
}

#[test]
fn register_first_when_there_is_no_pin() {
    let mut p = Pair::build(ready("0.17.0", 14), false);
    p.run();
    let first = p.sockets[0].received.first().unwrap().clone();
    let Msg::Text(t) = first else { panic!() };
    assert!(t.contains(r#""t":"register""#), "{t}");
}

#[test]
fn an_oversize_inbound_frame_is_dropped_and_the_link_stays_up() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    let (now, unix) = (p.now, p.unix());
    p.agent
        .handle_input(AgentInput::Oversize { len: 2 << 20 }, now, unix);
    p.run();
    assert!(p.agent.is_established());
    assert!(matches!(p.agent_actions.last(), Some(AgentAction::Note(_))));
    assert!(p.socket(0).closed_by_agent.is_none());
}

#[test]
fn a_silent_plane_is_given_up_on_and_redialed() {
    let mut p = Pair::new(ready("0.17.0", 14));
    let AgentAction::Dial = p.agent.poll_action().unwrap() else {
        panic!()
    };
    let (now, unix) = (p.now, p.unix());
    p.agent.handle_input(AgentInput::Opened, now, unix);
    while p.agent.poll_action().is_some() {}
    let (at, kind) = p.agent.poll_timeout().unwrap();
    assert_eq!(kind, TimerKind::Handshake);
    p.agent.handle_timeout(at);
    let a = p.agent.poll_action().unwrap();
    assert!(
        matches!(
            a,
            AgentAction::Close {
                code: CloseCode::LinkRefused,
                ..
            }
        ),
        "{a:?}"
    );
    assert_eq!(p.agent.poll_timeout().unwrap().1, TimerKind::Redial);
}

#[test]
fn verified_commands_run_in_arrival_order_and_the_jti_cache_survives_reconnects() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    let jti = p.send(0, json!({"type":"ping"}), false).unwrap();
    assert_eq!(p.executed.len(), 1);
    // Reconnect (1000) and replay the same signed command on the new socket: answered from the
    // cache, never run twice.
    let claims = {
        let mut c = p.claims(1, json!({"type":"ping"}));
        c.jti = jti.clone();
        c
    };
    let token = p.signer.sign(&claims);
    close(&mut p, 1000);
    p.advance(Duration::ZERO);
    assert!(p.agent.is_established());
    let now = p.now;
    let i = p.sockets.len() - 1;
    p.sockets[i]
        .link
        .send_command(&jti, false, now, |_| token)
        .unwrap();
    p.run();
    assert_eq!(p.executed.len(), 1, "never runs twice");
    let again = p.results(i);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].reference, jti);
}

#[test]
fn a_genuine_seq_regression_drops_the_connection_with_1000_and_redials() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    p.send(0, json!({"type":"ping"}), false).unwrap();
    // A second command signed with seq 1 again (a regression) under a fresh jti.
    let claims = p.claims(1, json!({"type":"ping"}));
    let token = p.signer.sign(&claims);
    let now = p.now;
    p.sockets[0]
        .link
        .send_command(&claims.jti, false, now, |_| token)
        .unwrap();
    p.run();
    assert_eq!(p.executed.len(), 1);
    let (code, _) = p.socket(0).closed_by_agent.clone().unwrap();
    assert_eq!(code, CloseCode::Normal);
    let errors = p
        .events(0)
        .into_iter()
        .filter(|e| matches!(e, Event::Error(er) if er.code == "verify"))
        .count();
    assert_eq!(errors, 1);
    p.advance(Duration::ZERO);
    assert!(p.agent.is_established(), "a fresh connection");
    assert_eq!(p.sockets.len(), 2);
}
