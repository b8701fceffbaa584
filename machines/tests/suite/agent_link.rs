//! Every row of the spec's "Node link (agent side)" table against the agent machine.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

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

/// A refused dial whose answer asks for a wait (`Retry-After`) waits at least that long, but
/// never past the backoff's 60 s cap, whatever the answer asks.
#[test]
fn a_refusal_with_retry_after_waits_that_long_but_never_past_the_cap() {
    for (asked, floor, ceiling) in [(20, 20, 60), (3_600, 60, 60)] {
        let mut p = Pair::new(ready("0.17.0", 14));
        p.run();
        p.plane_reachable = false;
        p.refusal_retry_after = Some(Duration::from_secs(asked));
        close(&mut p, 4410);
        // The first redial after the close is the machine's own; the refusals come after it.
        let (at, _) = p.agent.poll_timeout().unwrap();
        p.advance_to(at);
        let mut last = at;
        for _ in 0..4 {
            let (at, kind) = p.agent.poll_timeout().unwrap();
            assert_eq!(kind, TimerKind::Redial);
            let gap = at - last;
            assert!(
                gap >= Duration::from_secs(floor.min(asked)) && gap <= Duration::from_secs(ceiling),
                "asked {asked} s, waited {gap:?}"
            );
            p.advance_to(at);
            last = at;
        }
    }
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
    // The next connect registers the same static key. The row still holds that key as its pin
    // here, so the register is idempotent: register-ok, a normal close, and the redial
    // handshakes under the pin again.
    p.advance(Duration::from_millis(1));
    let sent_register = p.sockets[1]
        .received
        .first()
        .is_some_and(|m| matches!(m, Msg::Text(t) if t.contains("\"register\"")));
    assert!(sent_register, "{:?}", p.sockets[1].received);
    assert_eq!(
        p.sockets[1].closed_by_plane.as_ref().unwrap().0,
        CloseCode::Normal
    );
    p.advance(Duration::from_millis(1));
    assert!(p.agent.is_established());
    assert_eq!(p.agent.control_pin(), Some(p.plane_keys.public()));
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

/// Codes the close table does not list, and a close with no code, end the socket the way an
/// abnormal end does: a redial after backoff, the configuration unchanged, never an exit.
#[test]
fn a_close_the_table_does_not_list_redials_after_backoff_and_changes_nothing() {
    let unlisted = [
        1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 3000, 4000, 4400, 4401, 4403,
        4404, 4405, 4407, 4408, 4412, 4999,
    ];
    for code in unlisted.into_iter().map(Some).chain([None]) {
        let mut p = Pair::new(ready("0.17.0", 14));
        p.run();
        let pin = p.agent.control_pin();
        assert!(pin.is_some());
        p.plane_reachable = false;
        let (now, unix) = (p.now, p.unix());
        p.current = None;
        p.agent.handle_input(
            AgentInput::Closed {
                code,
                reason: "closing",
            },
            now,
            unix,
        );
        p.run();
        assert!(!p.agent.has_exited(), "{code:?}");
        assert!(p.exits().is_empty(), "{code:?}");
        assert_eq!(p.agent.control_pin(), pin, "{code:?}");
        assert!(
            !p.agent_actions.contains(&AgentAction::DropControlPin),
            "{code:?}"
        );
        let (at, kind) = p.agent.poll_timeout().unwrap();
        assert_eq!(kind, TimerKind::Redial, "{code:?}");
        assert!(
            at - now >= Duration::from_millis(500) && at - now <= Duration::from_secs(1),
            "{code:?}: the first redial waits the backoff, not {:?}",
            at - now
        );
        p.plane_reachable = true;
        p.advance(Duration::from_secs(2));
        assert!(p.agent.is_established(), "{code:?}");
    }
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

const LOW_ORDER: [&str; 14] = [
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000080",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f11d7",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b880",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
];

fn low_order_keys() -> Vec<termplane_proto::Key32> {
    LOW_ORDER
        .iter()
        .map(|h| termplane_proto::Key32(hex::decode(h).unwrap().try_into().unwrap()))
        .collect()
}

/// Dials by hand and leaves the agent waiting for `register-ok`.
fn registering(p: &mut Pair) {
    let AgentAction::Dial = p.agent.poll_action().unwrap() else {
        panic!()
    };
    let (now, unix) = (p.now, p.unix());
    p.agent.handle_input(AgentInput::Opened, now, unix);
    let Some(AgentAction::SendText(t)) = p.agent.poll_action() else {
        panic!()
    };
    assert!(t.contains(r#""t":"register""#), "{t}");
}

#[test]
fn a_register_ok_with_a_low_order_plane_key_is_refused_and_nothing_is_pinned() {
    for key in low_order_keys() {
        let mut p = Pair::build(ready("0.17.0", 14), false);
        registering(&mut p);
        let ok = termplane_proto::PlaneFrame::RegisterOk(termplane_proto::RegisterOk {
            control_encrypt_public_key: key,
        })
        .to_json();
        let (now, unix) = (p.now, p.unix());
        p.agent.handle_input(AgentInput::Text(&ok), now, unix);
        let mut actions = vec![];
        while let Some(a) = p.agent.poll_action() {
            actions.push(a);
        }
        assert!(
            !actions
                .iter()
                .any(|a| matches!(a, AgentAction::PersistControlPin(_))),
            "{key:?}: {actions:?}"
        );
        let Some(AgentAction::Close { code, reason }) = actions.first() else {
            panic!("{key:?}: {actions:?}")
        };
        assert_eq!(*code, CloseCode::LinkRefused);
        assert!(reason.contains("low-order"), "{reason}");
        assert_eq!(p.agent.control_pin(), None);
        // It redials (with backoff) and registers again, config unchanged.
        assert_eq!(p.agent.poll_timeout().unwrap().1, TimerKind::Redial);
    }
}

#[test]
fn a_low_order_pin_in_the_config_is_dropped_and_the_next_connect_registers() {
    for key in low_order_keys() {
        let mut p = Pair::build(ready("0.17.0", 14), false);
        let cfg = termplane_machines::agent_link::AgentConfig {
            node_id: NODE_ID.into(),
            node_key: NODE_KEY.into(),
            node_static: p.node_static,
            control_pin: Some(key),
            signing_key: p.signer.public_jwk(),
            process_start: p.unix(),
            carried_over: vec![],
            ready: ready("0.17.0", 14),
        };
        p.agent = termplane_machines::agent_link::AgentLink::new(cfg, [3; 32], p.now).unwrap();
        assert_eq!(p.agent.control_pin(), None);
        p.run();
        assert!(p.agent_actions.contains(&AgentAction::DropControlPin));
        // The row has no pin: the register pairs it and the redial establishes.
        p.advance(Duration::from_secs(1));
        assert!(p.agent.is_established(), "{key:?}");
        assert_eq!(p.agent.control_pin(), Some(p.plane_keys.public()));
    }
}

#[test]
fn a_terminal_close_that_crosses_the_agents_own_close_still_exits() {
    for (code, rollback) in [(4409, false), (4406, true)] {
        let mut p = Pair::new(ready("0.17.0", 14));
        p.run();
        // The agent drops the socket (a seq regression) ...
        p.send(0, json!({"type":"ping"}), false).unwrap();
        let claims = p.claims(1, json!({"type":"ping"}));
        let token = p.signer.sign(&claims);
        let now = p.now;
        p.sockets[0]
            .link
            .send_command(&claims.jti, false, now, |_| token)
            .unwrap();
        p.run();
        assert_eq!(
            p.socket(0).closed_by_agent.as_ref().unwrap().0,
            CloseCode::Normal
        );
        // ... while the plane's own terminal close was on its way.
        let (now, unix) = (p.now, p.unix());
        p.agent.handle_input(
            AgentInput::Closed {
                code: Some(code),
                reason: "crossed",
            },
            now,
            unix,
        );
        p.run();
        assert_eq!(p.exits(), vec![(rollback, "crossed".to_owned())], "{code}");
        assert!(p.agent.has_exited());
    }
}

#[test]
fn terminal_closes_exit_while_registering_and_while_handshaking() {
    for code in [4406_u16, 4409] {
        let mut p = Pair::build(ready("0.17.0", 14), false);
        registering(&mut p);
        close(&mut p, code);
        assert!(p.agent.has_exited(), "registering, {code}");
        let mut p = Pair::new(ready("0.17.0", 14));
        let AgentAction::Dial = p.agent.poll_action().unwrap() else {
            panic!()
        };
        let (now, unix) = (p.now, p.unix());
        p.agent.handle_input(AgentInput::Opened, now, unix);
        while p.agent.poll_action().is_some() {}
        close(&mut p, code);
        assert!(p.agent.has_exited(), "handshaking, {code}");
    }
}

#[test]
fn a_silent_plane_is_noticed_after_45_seconds_and_redialed() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    // A live plane answers the heartbeat pings: ten minutes pass on one socket.
    p.advance(Duration::from_secs(600));
    assert!(p.agent.is_established());
    assert_eq!(p.sockets.len(), 1);
    assert!(p.agent_actions.contains(&AgentAction::Ping));
    // The plane stops answering (a stopped process, a dead route).
    p.plane_answers_pings = false;
    p.plane_reachable = false;
    p.advance(Duration::from_secs(44));
    assert!(p.socket(0).closed_by_agent.is_none());
    p.advance(Duration::from_secs(2));
    let (code, reason) = p.socket(0).closed_by_agent.clone().unwrap();
    assert_eq!(code, CloseCode::Normal);
    assert!(
        reason.contains("no frame or pong from the plane"),
        "{reason}"
    );
    assert_eq!(p.agent.poll_timeout().unwrap().1, TimerKind::Redial);
    // Once the plane answers again, the link comes back.
    p.plane_answers_pings = true;
    p.plane_reachable = true;
    p.advance(Duration::from_secs(60));
    assert!(p.agent.is_established());
}

#[test]
fn a_stale_command_uses_up_no_seq_and_the_link_stays_up() {
    let mut p = Pair::new(ready("0.17.0", 14));
    p.run();
    // Issued 10 s before this process started: refused at step 3 (replay), seq 1.
    let mut stale = p.claims(1, json!({"type":"ping"}));
    stale.iat -= 10;
    stale.exp -= 10;
    let token = p.signer.sign(&stale);
    let now = p.now;
    p.sockets[0]
        .link
        .send_command(&stale.jti, false, now, |_| token)
        .unwrap();
    p.run();
    assert!(p.executed.is_empty());
    // The next good command carries seq 1 again: it runs, and the socket stays.
    let fresh = p.claims(1, json!({"type":"ping"}));
    let token = p.signer.sign(&fresh);
    p.sockets[0]
        .link
        .send_command(&fresh.jti, false, now, |_| token)
        .unwrap();
    p.run();
    assert_eq!(p.executed.len(), 1);
    assert!(p.socket(0).closed_by_agent.is_none());
    assert!(p.agent.is_established());
}

#[test]
fn d61_a_command_resent_one_to_four_seconds_after_a_restart_is_answered_not_run() {
    for delay in 1..=4 {
        let mut p = Pair::new(ready("0.17.0", 14));
        p.run();
        let jti = p.send(0, json!({"type":"ping"}), false).unwrap();
        assert_eq!(p.executed.len(), 1);
        let mut claims = p.claims(1, json!({"type":"ping"}));
        claims.jti.clone_from(&jti);
        claims.iat = p.unix().0;
        claims.exp = claims.iat + 30;
        p.restart_agent(Duration::from_secs(delay));
        assert!(p.agent.is_established(), "{delay}");
        // The same command, re-sent as seq 1 of the new socket.
        let token = p.signer.sign(&claims);
        let i = p.sockets.len() - 1;
        let now = p.now;
        p.sockets[i]
            .link
            .send_command(&jti, false, now, |_| token)
            .unwrap();
        p.run();
        assert_eq!(p.executed.len(), 1, "ran twice after {delay} s");
        let answers = p.results(i);
        assert_eq!(answers.len(), 1, "{delay}");
        assert!(!answers[0].ok);
        assert_eq!(
            answers[0].error.as_deref(),
            Some(termplane_machines::replay::EARLIER_PROCESS_REFUSAL)
        );
    }
}
