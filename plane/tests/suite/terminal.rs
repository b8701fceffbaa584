//! Live terminals through the real server and a real tmux (the local node): attach tokens, the
//! terminal WebSocket seen by two clients written here, the replay of a full-screen program, and
//! sharing.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::net::TcpStream;
use std::time::{Duration, Instant};

use async_tungstenite::tungstenite::{self, Message};
use common::local::{World, world};
use common::{Plane, Resp};
use serde_json::{Value, json};
use termplane_proto::Command;
use termplane_proto::command::SubshellRef;
use termplane_test_support::ran_lines;
use termplane_test_support::viewer::Viewer;

fn until<T>(what: &str, f: impl FnMut() -> Option<T>) -> T {
    termplane_test_support::wait_until(what, Duration::from_secs(20), f)
}

impl World {
    fn as_cookie(&self, cookie: &str, method: &str, path: &str, body: Option<Value>) -> Resp {
        let mut r = self
            .p
            .req()
            .method(method)
            .path(path)
            .header("Origin", &self.p.origin())
            .header("Cookie", cookie);
        if let Some(b) = body {
            r = r.json(b);
        }
        r.send()
    }

    /// Sends piece `index` of upload `up` with the system key.
    fn put_piece(&self, up: &str, index: u64, bytes: &[u8]) -> Resp {
        self.as_bearer(
            &self.key,
            "PUT",
            &format!("/api/uploads/{up}/pieces/{index}"),
            Some(json!({ "dataB64": b64(bytes) })),
        )
    }

    fn launch_as(&self, cookie: Option<&str>) -> String {
        let body = json!({
            "nodeId": self.node.node_id, "harnessId": "shell",
            "cwd": self.node.work.to_string_lossy(),
        });
        let r = match cookie {
            Some(c) => self.as_cookie(c, "POST", "/api/subshells", Some(body)),
            None => self.as_bearer(&self.key, "POST", "/api/subshells", Some(body)),
        };
        assert_eq!(r.status, 201, "{}", r.text());
        let id = r.json()["id"].as_str().unwrap().to_owned();
        until("the pane to run", || {
            let path = format!("/api/subshells/{id}");
            let r = match cookie {
                Some(c) => self.as_cookie(c, "GET", &path, None),
                None => self.as_bearer(&self.key, "GET", &path, None),
            };
            (r.status == 200 && r.json()["state"] == "running").then_some(())
        });
        id
    }

    fn launch(&self) -> String {
        self.launch_as(None)
    }

    /// Types `text` and Enter into pane `id` through the API, as the administrator.
    fn say(&self, id: &str, text: &str) {
        let r = self.as_cookie(
            &self.admin,
            "POST",
            &format!("/api/subshells/{id}/input"),
            Some(json!({ "text": text, "keys": ["enter"] })),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }

    fn mint_cookie(&self, cookie: &str, subshell: Option<&str>) -> String {
        let body = subshell.map_or_else(|| json!({}), |s| json!({ "subshellId": s }));
        let r = self.as_cookie(cookie, "POST", "/api/auth/ws-token", Some(body));
        assert_eq!(r.status, 201, "{}", r.text());
        r.json()["token"].as_str().unwrap().to_owned()
    }

    fn mint_bearer(&self, bearer: &str, subshell: &str) -> Resp {
        self.as_bearer(
            bearer,
            "POST",
            "/api/auth/ws-token",
            Some(json!({ "subshellId": subshell })),
        )
    }

    fn pane_size(&self, id: &str) -> (u64, u64) {
        let v = self
            .node
            .exec
            .execute(&Command::PaneSize(SubshellRef {
                subshell_id: termplane_proto::SubshellId::parse(id).unwrap(),
            }))
            .unwrap();
        (v["cols"].as_u64().unwrap(), v["rows"].as_u64().unwrap())
    }
}

/// Opens the terminal socket; `Err` holds the HTTP refusal's status and error code.
fn attach(
    p: &Plane,
    id: &str,
    token: &str,
    extra: &str,
    origin: Option<&str>,
) -> Result<Viewer, (u16, String)> {
    open_ws(
        p,
        &format!("/api/subshells/{id}/attach?token={token}{extra}"),
        origin,
    )
}

/// Opens a WebSocket at `path` (with its query); `Err` holds the refusal's status and code.
fn open_ws(p: &Plane, path: &str, origin: Option<&str>) -> Result<Viewer, (u16, String)> {
    let headers: Vec<(&str, &str)> = origin.map(|o| ("Origin", o)).into_iter().collect();
    Viewer::open(p.addr, path, &headers)
}

#[test]
fn two_viewers_see_the_same_bytes_and_the_pane_takes_the_smallest_grid() {
    let w = world();
    let id = w.launch();
    let a_tok = w.mint_cookie(&w.admin, None);
    let b = w.mint_bearer(&w.key, &id);
    assert_eq!(b.status, 201, "{}", b.text());
    assert_eq!(b.json()["subshellId"], id.as_str());
    let b_tok = b.json()["token"].as_str().unwrap().to_owned();

    let mut a = attach(&w.p, &id, &a_tok, "&cols=100&rows=30", Some(&w.p.origin())).unwrap();
    a.until("attached and its replay", |t| {
        t.has("attached", |_| true) && !t.bytes.is_empty()
    });
    let attached = a.frames.iter().find(|v| v["type"] == "attached").unwrap();
    assert_eq!(
        (attached["cols"].as_u64(), attached["rows"].as_u64()),
        (Some(100), Some(30))
    );
    assert_eq!(attached["readOnly"], false);
    assert!(
        a.bytes.starts_with(b"\x1bc"),
        "the replay starts from a reset"
    );
    let mut b = attach(&w.p, &id, &b_tok, "&cols=90&rows=25", None).unwrap();
    b.until("attached", |t| t.has("attached", |_| true));
    // The pane takes the smallest grid, and every viewer hears of it.
    until("the pane to be 90x25", || {
        (w.pane_size(&id) == (90, 25)).then_some(())
    });
    a.until("the size frame", |t| {
        t.has("size", |v| v["cols"] == 90 && v["rows"] == 25)
    });
    // Presence: both viewers, each with its grid.
    b.until("presence of two", |t| t.viewers_now() == Some(2));
    // Keystrokes from one viewer; the output reaches both.
    a.keys("echo two-$((20+22))\r");
    a.until("the echo on a", |t| t.text().contains("two-42"));
    b.until("the echo on b", |t| t.text().contains("two-42"));
    // One pump for the pane: the node tails it once, whatever the number of viewers, and the
    // last viewer out stops it.
    assert_eq!(
        w.p.svc
            .terminals()
            .pumps()
            .pump_of(&id)
            .unwrap()
            .viewer_count(),
        2
    );
    drop(a);
    b.until("presence of one", |t| t.viewers_now() == Some(1));
    drop(b);
    until("the pump to stop", || {
        w.p.svc
            .terminals()
            .pumps()
            .pump_of(&id)
            .is_none()
            .then_some(())
    });
    // Keepalive.
    let tok = w.mint_cookie(&w.admin, Some(&id));
    let mut c = attach(&w.p, &id, &tok, "", None).unwrap();
    c.send_json(&json!({ "type": "ping" }));
    c.until("pong", |t| t.has("pong", |_| true));
    // An unknown frame closes with 4400.
    c.send_json(&json!({ "type": "launch-missiles" }));
    c.until("the close", |t| t.closed.is_some());
    assert_eq!(c.closed.as_ref().unwrap().0, 4400);
}

/// The grid of a pane people type into follows their windows: the subshell's row shows it
/// (and the live feed hears of it), and a grid set through the API while such a viewer is
/// attached is refused (409 `GRID_HELD`, naming the grid kept) rather than lay the screen out
/// for a size no viewer has. A viewer that only watches holds nothing.
#[test]
fn the_grid_typing_viewers_hold_shows_on_the_row_and_is_not_overridden_by_the_api() {
    let w = world();
    let id = w.launch();
    let tok = w.mint_cookie(&w.admin, None);
    let mut feed = open_ws(&w.p, &format!("/api/live?token={tok}"), Some(&w.p.origin())).unwrap();
    feed.until("hello", |t| t.has("hello", |_| true));
    let tok = w.mint_cookie(&w.admin, Some(&id));
    let mut typist = attach(&w.p, &id, &tok, "&cols=50&rows=15", Some(&w.p.origin())).unwrap();
    typist.until("attached", |t| t.has("attached", |_| true));
    assert_eq!(w.pane_size(&id), (50, 15));
    let row = w.as_cookie(&w.admin, "GET", &format!("/api/subshells/{id}"), None);
    assert_eq!(
        (row.json()["cols"].as_u64(), row.json()["rows"].as_u64()),
        (Some(50), Some(15))
    );
    feed.until("the row's new grid on the feed", |t| {
        t.has("subshell", |f| {
            f["subshell"]["cols"] == 50 && f["subshell"]["rows"] == 15
        })
    });
    let resize = |cols: u16, rows: u16| {
        w.as_bearer(
            &w.key,
            "POST",
            &format!("/api/subshells/{id}/resize"),
            Some(json!({ "cols": cols, "rows": rows })),
        )
    };
    let r = resize(90, 25);
    assert_eq!(r.error(409), "GRID_HELD");
    assert_eq!(r.json()["metadata"], json!({ "cols": 50, "rows": 15 }));
    assert_eq!(
        w.pane_size(&id),
        (50, 15),
        "the pane kept the viewer's grid"
    );
    // A watcher holds no grid; once the typist is gone the API sets it.
    let tok = w.mint_cookie(&w.admin, Some(&id));
    let mut watcher = attach(&w.p, &id, &tok, "&cols=40&rows=10&readOnly=true", None).unwrap();
    watcher.until("attached", |t| t.has("attached", |_| true));
    drop(typist);
    watcher.until("presence of one", |t| t.viewers_now() == Some(1));
    let r = resize(90, 25);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        (r.json()["cols"].as_u64(), r.json()["rows"].as_u64()),
        (Some(90), Some(25))
    );
    assert_eq!(w.pane_size(&id), (90, 25));
}

#[test]
fn attach_tokens_are_single_use_bound_short_lived_and_die_with_their_minter() {
    let w = world();
    let one = w.launch();
    let two = w.launch();
    // Bound to `one`: refused on `two` (and spent by that attempt).
    let tok = w.mint_bearer(&w.key, &one).json()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        attach(&w.p, &two, &tok, "", None).err(),
        Some((403, "ATTACH_TOKEN_BOUND".into()))
    );
    assert_eq!(
        attach(&w.p, &one, &tok, "", None).err(),
        Some((401, "ATTACH_TOKEN_INVALID".into()))
    );
    // Single use: a second attach with a token that opened a socket is refused.
    let tok = w.mint_bearer(&w.key, &one).json()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let _open = attach(&w.p, &one, &tok, "", None).unwrap();
    assert_eq!(
        attach(&w.p, &one, &tok, "", None).err(),
        Some((401, "ATTACH_TOKEN_INVALID".into()))
    );
    // 30 seconds.
    let tok = w.mint_cookie(&w.admin, None);
    w.p.clock.advance_ms(30_001);
    assert_eq!(
        attach(&w.p, &one, &tok, "", None).err(),
        Some((401, "ATTACH_TOKEN_INVALID".into()))
    );
    // A bearer must name the pane; a session's own credential never opens the socket.
    let r = w.as_bearer(&w.key, "POST", "/api/auth/ws-token", Some(json!({})));
    assert_eq!(
        (r.status, r.code()),
        (403, "PERMISSION_DENIED".to_owned()),
        "{}",
        r.text()
    );
    assert_eq!(
        attach(&w.p, &one, "tpa_notatoken", "", None).err(),
        Some((401, "ATTACH_TOKEN_INVALID".into()))
    );
    assert_eq!(
        attach(&w.p, &one, &w.key, "", None).err(),
        Some((401, "ATTACH_TOKEN_INVALID".into()))
    );
    // A browser upgrade from an untrusted Origin.
    let tok = w.mint_cookie(&w.admin, None);
    assert_eq!(
        attach(&w.p, &one, &tok, "", Some("https://evil.example")).err(),
        Some((403, "ORIGIN_REJECTED".into()))
    );
    // A pane's token mints for its own pane only.
    let pane = w.token_of(&one);
    assert_eq!(w.mint_bearer(&pane, &two).status, 403);
    let own = w.mint_bearer(&pane, &one);
    assert_eq!(own.status, 201, "{}", own.text());
    // Dies with its minter: a token minted by a system key that is then disabled.
    let tok = w.mint_bearer(&w.key, &one).json()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = w.as_cookie(
        &w.admin,
        "POST",
        &format!("/api/system-keys/{}/disable", w.key_id),
        Some(json!({})),
    );
    assert!(r.status < 300, "{}", r.text());
    assert_eq!(
        attach(&w.p, &one, &tok, "", None).err(),
        Some((401, "ATTACH_TOKEN_INVALID".into()))
    );
}

#[test]
fn coming_back_to_a_full_screen_program_restores_its_screen_and_modes() {
    let w = world();
    let id = w.launch();
    w.type_line(
        &id,
        "printf '\\033[?1049h\\033[?1h\\033=\\033[?2004h\\033[2J\\033[3;4HFULL-SCREEN'; sleep 600",
    );
    let tok = w.mint_cookie(&w.admin, Some(&id));
    let mut t = attach(&w.p, &id, &tok, "", None).unwrap();
    t.until("the replay", |t| t.text().contains("FULL-SCREEN"));
    let (cols, rows) = w.pane_size(&id);
    let mut vt = vt100::Parser::new(
        u16::try_from(rows).unwrap(),
        u16::try_from(cols).unwrap(),
        0,
    );
    vt.process(&t.bytes);
    let s = vt.screen();
    assert!(
        s.alternate_screen(),
        "the program's alternate screen is back"
    );
    assert!(s.application_cursor() && s.application_keypad() && s.bracketed_paste());
    assert_eq!(s.cell(2, 3).unwrap().contents(), "F");
}

/// A pane's recording is read as the pane is: its owner and an account it is shared with (read
/// is enough) export it, an account it is not shared with is told it does not exist; the cast
/// is the local node's recording of what the pane printed, at the times it printed it.
#[test]
fn a_panes_recording_exports_for_its_owner_and_a_read_share_and_not_for_a_stranger() {
    let w = world();
    let id = w.launch_as(Some(&w.admin));
    let r = w.as_cookie(
        &w.admin,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(json!({ "text": "echo first-$((1+1))", "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    until("the first answer", || {
        w.node_screen(&id).contains("first-2").then_some(())
    });
    let r = w.as_cookie(
        &w.admin,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(json!({ "text": "echo second-$((2+2))", "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let path = format!("/api/subshells/{id}/recording/cast");
    // When an output's record is written (its group's 10 ms over), the cast plays it at its
    // own time; until then, at the last record's time (the cast holds the whole log).
    let when = |cast: &str, needle: &str| {
        let mut so_far = String::new();
        cast.lines().skip(1).find_map(|l| {
            let e: Value = serde_json::from_str(l).unwrap();
            if e[1] == "o" {
                so_far.push_str(e[2].as_str().unwrap());
            }
            so_far.contains(needle).then(|| e[0].as_f64().unwrap())
        })
    };
    until(
        "the second answer later than the first in the recording",
        || {
            let r = w.as_cookie(&w.admin, "GET", &path, None);
            assert_eq!(r.status, 200, "{}", r.text());
            let cast = r.text();
            let first = when(&cast, "first-2").expect("the first answer is recorded");
            when(&cast, "second-4")
                .is_some_and(|second| second > first)
                .then_some(())
        },
    );
    let bob_id = w.p.create_user(&w.admin, "bob@example.test", "user");
    let bob = w.p.sign_in("bob@example.test", common::PASSWORD);
    let r = w.as_cookie(&bob, "GET", &path, None);
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(r.json()["code"], "NOT_FOUND");
    let share = format!("/api/subshells/{id}/shares/{bob_id}");
    let r = w.as_cookie(&w.admin, "PUT", &share, Some(json!({ "access": "read" })));
    assert_eq!(r.status, 200, "{}", r.text());
    let r = w.as_cookie(&bob, "GET", &path, None);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("second-4"));
    let r = w.as_cookie(&w.admin, "DELETE", &share, None);
    assert!(r.status == 204 || r.status == 200, "{}", r.text());
    let r = w.as_cookie(&bob, "GET", &path, None);
    assert_eq!(r.status, 404, "{}", r.text());
}

#[test]
fn an_administrator_turns_recording_off_for_a_node_and_its_next_panes_are_logged_untimed() {
    let w = world();
    let path = format!("/api/nodes/{}/recording", w.node.node_id);
    // An administrator's: another account is refused, and nothing changes.
    w.p.create_user(&w.admin, "bob@example.test", "user");
    let bob = w.p.sign_in("bob@example.test", common::PASSWORD);
    let r = w.as_cookie(&bob, "PUT", &path, Some(json!({ "on": false })));
    assert_eq!(r.status, 403, "{}", r.text());
    let r = w.as_cookie(&w.admin, "PUT", &path, Some(json!({ "on": "no" })));
    assert_eq!(r.status, 400, "{}", r.text());
    let node = w.as_cookie(
        &w.admin,
        "GET",
        &format!("/api/nodes/{}", w.node.node_id),
        None,
    );
    assert_eq!(node.json()["recording"], true, "on by default");
    let r = w.as_cookie(&w.admin, "PUT", &path, Some(json!({ "on": false })));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["recording"], false);
    let timing = |id: &str| {
        w.node
            .exec
            .timing_path(&termplane_proto::SubshellId::parse(id).unwrap())
    };
    // Off: a pane launched now is logged, not timed; its export is its log at 0 s.
    let off = w.launch_as(Some(&w.admin));
    w.say(&off, "echo untimed-$((3*5))");
    let cast = until("the export to hold the answer", || {
        let r = w.as_cookie(
            &w.admin,
            "GET",
            &format!("/api/subshells/{off}/recording/cast"),
            None,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let t = r.text();
        t.contains("untimed-15").then_some(t)
    });
    assert!(
        !timing(&off).exists(),
        "no timing for a pane launched while recording was off"
    );
    assert!(
        cast.lines().skip(1).all(|l| l.starts_with("[0.0,")),
        "untimed: {cast}"
    );
    // Audited.
    let r = w.as_cookie(
        &w.admin,
        "GET",
        "/api/audit?action=node.recording_set",
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let entries = r.json();
    assert_eq!(entries[0]["target"], w.node.node_id.as_str());
    assert_eq!(entries[0]["detail"]["on"], false);
    // On again: the next pane is recorded.
    let r = w.as_cookie(&w.admin, "PUT", &path, Some(json!({ "on": true })));
    assert_eq!(r.status, 200, "{}", r.text());
    let on = w.launch_as(Some(&w.admin));
    w.say(&on, "echo timed");
    until("the new pane's timing", || {
        timing(&on).exists().then_some(())
    });
    // An unknown node is not found.
    let r = w.as_cookie(
        &w.admin,
        "PUT",
        "/api/nodes/00000000000000000000000000000000/recording",
        Some(json!({ "on": true })),
    );
    assert_eq!(r.status, 404, "{}", r.text());
}

#[test]
fn a_recording_past_its_retention_loses_what_is_older_on_its_node_and_its_marks_audited_and_a_workspace_says_otherwise()
 {
    let w = world();
    let wall_ms = || i64::try_from(termplane::clock::wall_micros() / 1000).unwrap();
    // The plane's clock at the node's (its timing records are on the host's wall clock).
    w.p.clock.set_ms(wall_ms());
    let cast = |id: &str| {
        let r = w.as_cookie(
            &w.admin,
            "GET",
            &format!("/api/subshells/{id}/recording/cast"),
            None,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.text()
    };
    let printed = |id: &str, what: &str| {
        until(&format!("the export to hold {what}"), || {
            cast(id).contains(what).then_some(())
        });
    };
    // A workspace whose own retention (ten years) wins over its node's.
    let r = w.as_cookie(
        &w.admin,
        "POST",
        "/api/workspaces",
        Some(json!({ "name": "kept", "nodeId": w.node.node_id, "path": w.node.work.to_string_lossy() })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let ws = r.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(r.json()["recording"], true);
    let ws_path = format!("/api/workspaces/{ws}/recording");
    w.p.create_user(&w.admin, "bob@example.test", "user");
    let bob = w.p.sign_in("bob@example.test", common::PASSWORD);
    let r = w.as_cookie(
        &bob,
        "PUT",
        &ws_path,
        Some(json!({ "on": true, "retentionDays": 1 })),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    for bad in [
        json!({ "on": true, "retentionDays": 0 }),
        json!({ "on": true, "retentionDays": 3651 }),
        json!({ "retentionDays": 5 }),
    ] {
        let r = w.as_cookie(&w.admin, "PUT", &ws_path, Some(bad.clone()));
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
    }
    let r = w.as_cookie(
        &w.admin,
        "PUT",
        &ws_path,
        Some(json!({ "on": true, "retentionDays": 3650 })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["recordingRetentionDays"], 3650);
    let launch_in_workspace = || {
        let r = w.as_cookie(
            &w.admin,
            "POST",
            "/api/subshells",
            Some(json!({ "nodeId": w.node.node_id, "harnessId": "shell", "workspaceId": ws })),
        );
        assert_eq!(r.status, 201, "{}", r.text());
        let id = r.json()["id"].as_str().unwrap().to_owned();
        until("the pane to run", || {
            let r = w.as_cookie(&w.admin, "GET", &format!("/api/subshells/{id}"), None);
            (r.json()["state"] == "running").then_some(())
        });
        id
    };
    let kept = launch_in_workspace();
    let id = w.launch_as(Some(&w.admin));
    // Before the cut: a line, then 20 KB more (so the line is whole blocks before the cut).
    for pane in [&id, &kept] {
        w.say(pane, "echo early-$((6*7)); seq 1 4000; echo first-$((5*5))");
        printed(pane, "first-25");
    }
    let cut_ms = wall_ms();
    // After the cut: the plane's clock there too, so the input's mark is kept.
    w.p.clock.set_ms(cut_ms + 1_000);
    w.say(&id, "echo late-$((7*8))");
    printed(&id, "late-56");
    // A day later, the node keeps recordings for a day.
    w.p.clock.set_ms(cut_ms + 86_400_000);
    let r = w.as_cookie(
        &w.admin,
        "PUT",
        &format!("/api/nodes/{}/recording", w.node.node_id),
        Some(json!({ "on": true, "retentionDays": 1 })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["recordingRetentionDays"], 1);
    let swept = smol::block_on(w.p.svc.retention().sweep()).unwrap();
    assert_eq!(swept.input_marks, 1, "{swept:?}");
    let punches = termplane_exec::recording::can_punch_holes(&w.node.work);
    let log = w.as_cookie(&w.admin, "GET", &format!("/api/subshells/{id}/logs"), None);
    assert_eq!(log.status, 200, "{}", log.text());
    let after = cast(&id);
    if punches {
        assert!(swept.dropped_bytes >= 16 * 1024, "{swept:?}");
        // What was printed before the cut is gone from the recording and the log; what came
        // after plays.
        assert!(!after.contains("early-42"), "{after}");
        assert!(after.contains("late-56"), "{after}");
        assert!(after.contains("recording truncated"), "{after}");
        assert!(!log.text().contains("early-42"));
    }
    // Its input marks before the cut are gone, the one after stays.
    let marks = w.as_cookie(
        &w.admin,
        "GET",
        &format!("/api/subshells/{id}/recording/inputs"),
        None,
    );
    assert_eq!(marks.status, 200, "{}", marks.text());
    let marks = marks.json();
    let marks = marks["marks"].as_array().unwrap();
    assert_eq!(marks.len(), 1, "{marks:?}");
    assert_eq!(marks[0]["at"], cut_ms + 1_000, "{marks:?}");
    // The workspace's pane keeps all of it (its retention is its workspace's).
    let whole = cast(&kept);
    assert!(whole.contains("early-42") && !whole.contains("recording truncated"));
    // Audited, by the plane, for the one pane.
    let r = w.as_cookie(
        &w.admin,
        "GET",
        "/api/audit?action=subshell.recording_expired",
        None,
    );
    let entries = r.json();
    let entries = entries.as_array().unwrap();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["target"], id.as_str());
    assert_eq!(entries[0]["actorKind"], "plane");
    assert_eq!(entries[0]["detail"]["retentionDays"], 1);
    assert_eq!(entries[0]["detail"]["inputMarks"], 1);
    assert_eq!(entries[0]["detail"]["before"], cut_ms);
    // A second sweep finds nothing more to delete, and says nothing.
    let again = smol::block_on(w.p.svc.retention().sweep()).unwrap();
    assert_eq!(again.panes, 0, "{again:?}");
    // The workspace's recording switched off: its next pane is logged, not timed, whatever
    // its node says; the change is audited.
    let r = w.as_cookie(&w.admin, "PUT", &ws_path, Some(json!({ "on": false })));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["recording"], false);
    assert_eq!(r.json()["recordingRetentionDays"], Value::Null);
    let off = launch_in_workspace();
    w.say(&off, "echo untimed-$((3*5))");
    printed(&off, "untimed-15");
    assert!(
        !w.node
            .exec
            .timing_path(&termplane_proto::SubshellId::parse(&off).unwrap())
            .exists()
    );
    let r = w.as_cookie(
        &w.admin,
        "GET",
        "/api/audit?action=workspace.recording_set",
        None,
    );
    assert_eq!(r.json()[0]["detail"]["on"], false, "{}", r.text());
    let r = w.as_cookie(
        &w.admin,
        "PUT",
        "/api/workspaces/00000000000000000000000000000000/recording",
        Some(json!({ "on": true })),
    );
    assert_eq!(r.status, 404, "{}", r.text());
}

#[test]
fn who_typed_into_a_pane_is_marked_beside_its_recording_and_what_they_typed_is_not_and_its_life_is_on_the_timeline()
 {
    let w = world();
    // A pane whose token may type into its owner's panes (itself among them).
    let r = w.as_cookie(
        &w.admin,
        "POST",
        "/api/subshells",
        Some(json!({
            "nodeId": w.node.node_id, "harnessId": "shell",
            "cwd": w.node.work.to_string_lossy(),
            "permissions": { "channels": "read", "subshells": "write" },
        })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    until("the pane to run", || {
        let r = w.as_cookie(&w.admin, "GET", &format!("/api/subshells/{id}"), None);
        (r.json()["state"] == "running").then_some(())
    });
    let tok = w.mint_cookie(&w.admin, Some(&id));
    let mut t = attach(&w.p, &id, &tok, "", None).unwrap();
    t.until("attached", |t| t.has("attached", |_| true));
    let viewer = t.frames.iter().find(|f| f["type"] == "attached").unwrap()["viewerId"]
        .as_u64()
        .unwrap();
    // Keys one message each, as a person types them; then a paste, many characters in one.
    for c in "echo typed-$((2*3))\r".chars() {
        t.keys(&c.to_string());
    }
    t.until("the typed line's answer", |t| t.text().contains("typed-6"));
    t.keys("echo pasted-$((3*3))\r");
    t.until("the paste's answer", |t| t.text().contains("pasted-9"));
    // Sent through the API by the pane's own token (as an agent's `send_input` is).
    let r = w.as_cookie(
        &w.admin,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(json!({ "text": "echo tok=$TERMPLANE_TOKEN.", "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let pane = until("the pane's token", || {
        w.node_screen(&id)
            .split("tok=")
            .filter_map(|x| x.split('.').next())
            .find(|t| t.starts_with("tp_"))
            .map(str::to_owned)
    });
    let r = w.as_bearer(
        &pane,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(json!({ "text": "echo sent-$((4*4))", "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let path = format!("/api/subshells/{id}/recording/inputs");
    let marks = until("the marks", || {
        let r = w.as_cookie(&w.admin, "GET", &path, None);
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        let marks = v["marks"].as_array().unwrap().clone();
        (marks.iter().filter(|m| m["kind"] == "sent").count() == 2).then_some((marks, r.text()))
    });
    let (marks, body) = marks;
    let admin_id = w
        .as_cookie(&w.admin, "GET", "/api/auth/session", None)
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let typed: Vec<&Value> = marks.iter().filter(|m| m["kind"] == "typed").collect();
    assert!(!typed.is_empty(), "{marks:?}");
    for m in &typed {
        assert_eq!(
            (&m["viewerId"], &m["actorKind"], &m["actorUserId"]),
            (&json!(viewer), &json!("cookie"), &json!(admin_id)),
            "{m}"
        );
        assert!(m["until"].as_i64() >= m["at"].as_i64());
    }
    let paste: Vec<&Value> = marks.iter().filter(|m| m["kind"] == "paste").collect();
    assert_eq!(paste.len(), 1, "{marks:?}");
    assert_eq!(paste[0]["viewerId"], json!(viewer));
    let sent: Vec<&Value> = marks.iter().filter(|m| m["kind"] == "sent").collect();
    // (The test plane's clock stands still: marks of the same time come in no set order.)
    let by = |kind: &str| *sent.iter().find(|m| m["actorKind"] == kind).unwrap();
    assert_eq!(by("cookie")["viaSubshellId"], Value::Null);
    assert_eq!(by("pane")["viaSubshellId"], json!(id));
    assert_eq!(by("pane")["actorName"], by("cookie")["actorName"]);
    let at: Vec<i64> = marks.iter().map(|m| m["at"].as_i64().unwrap()).collect();
    assert!(at.windows(2).all(|p| p[0] <= p[1]), "oldest first: {at:?}");
    // Who and when, never what.
    for what in ["typed-", "pasted-", "sent-", "$((", "tp_"] {
        assert!(!body.contains(what), "{what} is in the marks: {body}");
    }
    // The pane's life is on the timeline too: its launch, and its agent's word about itself.
    let r = w.as_bearer(
        &pane,
        "POST",
        &format!("/api/subshells/{id}/status"),
        Some(json!({ "state": "needs_input", "summary": "approve the plan?" })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let events_path = format!("/api/subshells/{id}/recording/events");
    let r = w.as_cookie(&w.admin, "GET", &events_path, None);
    assert_eq!(r.status, 200, "{}", r.text());
    let events = r.json()["events"].as_array().unwrap().clone();
    assert_eq!(events[0]["kind"], "launched", "{events:?}");
    assert!(
        events.iter().any(|e| e["kind"] == "agent_state"
            && e["state"] == "needs_input"
            && e["summary"] == "approve the plan?"),
        "{events:?}"
    );
    assert!(!r.text().contains(&admin_id), "who acted is not in it");
    // Read like the recording: a stranger is told it is not there, a read share reads them.
    let bob_id = w.p.create_user(&w.admin, "bob@example.test", "user");
    let bob = w.p.sign_in("bob@example.test", common::PASSWORD);
    let r = w.as_cookie(&bob, "GET", &path, None);
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (404, json!("NOT_FOUND"))
    );
    let r = w.as_cookie(&bob, "GET", &events_path, None);
    assert_eq!(r.status, 404, "{}", r.text());
    let share = format!("/api/subshells/{id}/shares/{bob_id}");
    let r = w.as_cookie(&w.admin, "PUT", &share, Some(json!({ "access": "read" })));
    assert_eq!(r.status, 200, "{}", r.text());
    let r = w.as_cookie(&bob, "GET", &path, None);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["marks"].as_array().unwrap().len(), marks.len());
    let r = w.as_cookie(&bob, "GET", &events_path, None);
    assert_eq!(r.json()["events"].as_array().unwrap().len(), events.len());
    // Deleted with the pane: a pane launched again with the same id could not inherit them.
    let r = w.as_cookie(&w.admin, "POST", &format!("/api/subshells/{id}/kill"), None);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = w.as_cookie(&w.admin, "DELETE", &format!("/api/subshells/{id}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    let r = w.as_cookie(&w.admin, "GET", &path, None);
    assert_eq!(r.status, 404, "{}", r.text());
}

#[test]
fn a_read_share_watches_a_write_share_types_and_revoking_closes_the_socket() {
    let w = world();
    let id = w.launch_as(Some(&w.admin));
    let bob_id = w.p.create_user(&w.admin, "bob@example.test", "user");
    let bob = w.p.sign_in("bob@example.test", common::PASSWORD);
    // Not shared: bob cannot see it, or attach.
    let r = w.as_cookie(
        &bob,
        "POST",
        "/api/auth/ws-token",
        Some(json!({ "subshellId": id })),
    );
    assert_eq!(r.status, 404, "{}", r.text());
    // Sharing routes take a session only.
    let share = format!("/api/subshells/{id}/shares/{bob_id}");
    let r = w.as_bearer(&w.key, "PUT", &share, Some(json!({ "access": "read" })));
    assert_eq!(r.status, 403, "{}", r.text());
    let r = w.as_cookie(&w.admin, "PUT", &share, Some(json!({ "access": "read" })));
    assert_eq!(r.status, 200, "{}", r.text());
    let r = w.as_cookie(
        &w.admin,
        "GET",
        &format!("/api/subshells/{id}/shares"),
        None,
    );
    assert_eq!(r.json()[0]["access"], "read");
    let listed = |who: &str| {
        let r = w.as_cookie(who, "GET", "/api/subshells", None);
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["id"] == id.as_str())
    };
    assert!(
        listed(&bob),
        "a shared subshell is listed for the account it is shared with"
    );
    // A read share watches: attach is read-only; keys and resizes are refused.
    let tok = w.mint_cookie(&bob, Some(&id));
    let mut t = attach(&w.p, &id, &tok, "&cols=40&rows=10", None).unwrap();
    t.until("attached", |t| t.has("attached", |v| v["readOnly"] == true));
    t.keys("echo sneaky-$((1+1))\r");
    t.until("the refusal", |t| {
        t.has("error", |v| v["code"] == "READ_ONLY")
    });
    // The owner's keys, typed after the refused ones, reach the pane after anything the read
    // share could have typed.
    let r = w.as_cookie(
        &w.admin,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(json!({ "text": "echo owner-$((3+4))", "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    until("the owner's keys", || {
        w.node_screen(&id).contains("owner-7").then_some(())
    });
    assert!(
        !w.node_screen(&id).contains("sneaky-2"),
        "a read share typed"
    );
    // Its grid does not shrink the pane.
    assert_ne!(w.pane_size(&id), (40, 10));
    // Upgrading the share closes the socket (4403); the next attach can type.
    let r = w.as_cookie(&w.admin, "PUT", &share, Some(json!({ "access": "write" })));
    assert_eq!(r.status, 200, "{}", r.text());
    t.until("the close", |t| t.closed.is_some());
    assert_eq!(t.closed.as_ref().unwrap().0, 4403);
    let tok = w.mint_cookie(&bob, Some(&id));
    let mut t = attach(&w.p, &id, &tok, "", None).unwrap();
    t.until("attached", |t| {
        t.has("attached", |v| v["readOnly"] == false)
    });
    t.keys("echo shared-$((2+3))\r");
    t.until("bob's echo", |t| t.text().contains("shared-5"));
    // Revoking closes bob's socket; bob no longer sees the pane.
    let r = w.as_cookie(&w.admin, "DELETE", &share, None);
    assert_eq!(r.status, 204, "{}", r.text());
    t.until("the close", |t| t.closed.is_some());
    assert_eq!(t.closed.as_ref().unwrap().0, 4403);
    let r = w.as_cookie(&bob, "GET", &format!("/api/subshells/{id}"), None);
    assert_eq!(r.status, 404);
    assert!(!listed(&bob));
    let r = w.as_cookie(&w.admin, "DELETE", &share, None);
    assert_eq!(r.status, 404, "revoking twice");
}

impl World {
    fn node_screen(&self, id: &str) -> String {
        let r = self.as_cookie(
            &self.admin,
            "GET",
            &format!("/api/subshells/{id}/screen"),
            None,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["text"].as_str().unwrap_or("").to_owned()
    }

    /// The administrator attached to `id` with a token of their session, once `attached` came.
    fn admin_viewer(&self, id: &str) -> Viewer {
        let tok = self.mint_cookie(&self.admin, Some(id));
        let mut t = attach(&self.p, id, &tok, "", None).unwrap();
        t.until("attached", |t| t.has("attached", |_| true));
        t
    }
}

#[test]
fn deleting_a_subshell_closes_its_viewers_with_4404() {
    let w = world();
    let id = w.launch();
    let mut t = w.admin_viewer(&id);
    let r = w.as_bearer(&w.key, "DELETE", &format!("/api/subshells/{id}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    t.until("the close", |t| t.closed.is_some());
    let (code, _) = t.closed.clone().unwrap();
    // The kill may be seen first as the program's exit (1000), or the deletion (4404).
    assert!(code == 4404 || code == 1000, "{code}");
}

#[test]
fn a_client_that_closes_gets_its_close_frame_back_on_the_terminal_and_the_live_feed() {
    let w = world();
    let id = w.launch();
    let mut stays = w.admin_viewer(&id);
    let mut leaves = w.admin_viewer(&id);
    stays.until("presence of two", |t| t.viewers_now() == Some(2));
    // The closing handshake (RFC 6455 §5.5.1): the plane echoes the client's close frame
    // before its TCP connection ends, instead of a bare end that the client reads as 1006.
    let bye = |t: &mut Viewer| {
        t.ws.close(Some(tungstenite::protocol::CloseFrame {
            code: tungstenite::protocol::frame::coding::CloseCode::Normal,
            reason: "bye".into(),
        }))
        .unwrap();
        t.until("the close", |t| t.closed.is_some());
        assert_eq!(t.closed, Some((1000, "bye".to_owned())));
    };
    bye(&mut leaves);
    stays.until("presence of one", |t| t.viewers_now() == Some(1));
    let tok = w.mint_cookie(&w.admin, None);
    let mut feed = open_ws(&w.p, &format!("/api/live?token={tok}"), Some(&w.p.origin())).unwrap();
    feed.until("hello", |t| t.has("hello", |_| true));
    bye(&mut feed);
}

/// A plane that stops says goodbye on every terminal socket and live feed with 1001, as the
/// close-code table promises, instead of dropping the connection (a client could not tell a
/// restart from a network fault).
#[test]
fn a_plane_that_stops_closes_terminals_and_feeds_with_1001() {
    let mut w = world();
    let id = w.launch();
    let mut viewer = w.admin_viewer(&id);
    viewer.until("the replay", |t| t.has("attached", |_| true));
    let tok = w.mint_cookie(&w.admin, None);
    let mut feed = open_ws(&w.p, &format!("/api/live?token={tok}"), Some(&w.p.origin())).unwrap();
    feed.until("hello", |t| t.has("hello", |_| true));
    w.p.stop();
    for t in [&mut viewer, &mut feed] {
        t.until("the close", |t| t.closed.is_some());
        assert_eq!(
            t.closed,
            Some((1001, "the control plane is shutting down".to_owned()))
        );
    }
}

#[test]
fn a_pane_token_never_reaches_a_pane_merely_shared_with_its_owner() {
    let w = world();
    // The admin's pane, and the admin's pane's own token.
    let own = w.launch_as(Some(&w.admin));
    let r = w.as_cookie(
        &w.admin,
        "POST",
        &format!("/api/subshells/{own}/input"),
        Some(json!({ "text": "echo tok=$TERMPLANE_TOKEN.", "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let pane = until("the pane's token", || {
        let s = w.node_screen(&own);
        s.split("tok=")
            .filter_map(|x| x.split('.').next())
            .find(|t| t.starts_with("tp_"))
            .map(str::to_owned)
    });
    // Another person's pane, shared with the admin for writing.
    w.p.create_user(&w.admin, "carol@example.test", "admin");
    let carol = w.p.sign_in("carol@example.test", common::PASSWORD);
    let theirs = w.launch_as(Some(&carol));
    let admin_id = w
        .as_cookie(&w.admin, "GET", "/api/users", None)
        .json()
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["email"] == common::ADMIN)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = w.as_cookie(
        &carol,
        "PUT",
        &format!("/api/subshells/{theirs}/shares/{admin_id}"),
        Some(json!({ "access": "write" })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // The pane acts as its owner, but never through a share (nor with an admin's boost).
    let r = w.as_bearer(&pane, "GET", &format!("/api/subshells/{theirs}"), None);
    assert_eq!(r.status, 404, "{}", r.text());
    let r = w.as_bearer(
        &pane,
        "POST",
        &format!("/api/subshells/{theirs}/input"),
        Some(json!({ "text": "echo no" })),
    );
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(w.mint_bearer(&pane, &theirs).status, 403);
    // Its own pane it still reaches.
    assert_eq!(w.mint_bearer(&pane, &own).status, 201);
}

#[test]
fn the_admin_command_route_cannot_take_over_a_terminal_pump_tail() {
    let w = world();
    let id = w.launch();
    let path = format!("/api/nodes/{}/commands", w.node.node_id);
    for cmd in [
        json!({ "type": "tail_start", "subshellId": id, "subId": format!("view-{id}") }),
        json!({ "type": "tail_stop", "subId": format!("view-{id}") }),
    ] {
        let r = w.as_cookie(&w.admin, "POST", &path, Some(cmd));
        assert_eq!(r.status, 400, "{}", r.text());
        assert_eq!(r.json()["metadata"]["field"], "subId");
    }
    // Other tail keys are the administrator's to use.
    let r = w.as_cookie(
        &w.admin,
        "POST",
        &path,
        Some(json!({ "type": "tail_start", "subshellId": id, "subId": "mine" })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn the_live_feed_follows_what_its_account_sees_and_takes_only_unbound_session_tokens() {
    let w = world();
    let bob_id = w.p.create_user(&w.admin, "bob@example.test", "user");
    let bob = w.p.sign_in("bob@example.test", common::PASSWORD);
    let feed = |cookie: &str| {
        let tok = w.mint_cookie(cookie, None);
        let mut f = open_ws(&w.p, &format!("/api/live?token={tok}"), Some(&w.p.origin())).unwrap();
        f.until("hello", |t| t.has("hello", |_| true));
        f
    };
    let mut admin = feed(&w.admin);
    let mut bobs = feed(&bob);
    // A launch shows up as the running subshell.
    let id = w.launch_as(Some(&w.admin));
    admin.until("the subshell", |t| {
        t.has("subshell", |v| {
            v["subshell"]["id"] == id.as_str() && v["subshell"]["state"] == "running"
        })
    });
    // Presence of a viewer attached to it.
    let _viewer = w.admin_viewer(&id); // stays attached to the end of the test
    admin.until("presence", |t| {
        t.has("presence", |v| {
            v["subshellId"] == id.as_str() && v["viewers"].as_array().is_some_and(|a| a.len() == 1)
        })
    });
    // Bob hears nothing of it until the pane is shared with him.
    bobs.pump(Duration::from_millis(300));
    assert!(
        !bobs.frames.iter().any(|v| v["type"] != "hello"),
        "bob's feed heard of a pane he cannot see: {:?}",
        bobs.frames
    );
    let share = format!("/api/subshells/{id}/shares/{bob_id}");
    let r = w.as_cookie(&w.admin, "PUT", &share, Some(json!({ "access": "read" })));
    assert_eq!(r.status, 200, "{}", r.text());
    bobs.until("the shared subshell", |t| {
        t.has("subshell", |v| v["subshell"]["id"] == id.as_str())
    });
    // A deletion reaches both.
    let r = w.as_cookie(&w.admin, "DELETE", &format!("/api/subshells/{id}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    admin.until("gone", |t| {
        t.has("subshell_gone", |v| v["subshellId"] == id.as_str())
    });
    bobs.until("gone", |t| {
        t.has("subshell_gone", |v| v["subshellId"] == id.as_str())
    });
    // Keepalive.
    admin.send_json(&json!({ "type": "ping" }));
    admin.until("pong", |t| t.has("pong", |_| true));
    // Only an unbound token minted by a session opens the feed.
    let other = w.launch();
    let bound = w.mint_cookie(&w.admin, Some(&other));
    assert_eq!(
        open_ws(&w.p, &format!("/api/live?token={bound}"), None).err(),
        Some((403, "ATTACH_TOKEN_BOUND".into()))
    );
    let by_key = w.mint_bearer(&w.key, &other).json()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        open_ws(&w.p, &format!("/api/live?token={by_key}"), None).err(),
        Some((403, "ATTACH_TOKEN_BOUND".into()))
    );
    assert_eq!(
        open_ws(&w.p, &format!("/api/live?token={}", w.key), None).err(),
        Some((401, "ATTACH_TOKEN_INVALID".into()))
    );
}

fn b64(bytes: &[u8]) -> String {
    <base64ct::Base64 as base64ct::Encoding>::encode_string(bytes)
}

/// Everything in the pane's working directory, hidden partial files included.
fn work_files(w: &World) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(&w.node.work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn an_upload_lands_whole_in_the_panes_directory_and_a_failure_leaves_nothing_behind() {
    let w = world();
    let id = w.launch();
    let body: Vec<u8> = (0..500_000u32).map(|i| (i % 251) as u8).collect();
    let start = |name: &str, size: usize, overwrite: bool| {
        w.as_bearer(
            &w.key,
            "POST",
            "/api/uploads",
            Some(json!({ "subshellId": id, "name": name, "size": size, "overwrite": overwrite })),
        )
    };
    let put = |up: &str, index: u64, bytes: &[u8]| w.put_piece(up, index, bytes);
    let r = start("data.bin", body.len(), false);
    assert_eq!(r.status, 201, "{}", r.text());
    let up = r.json();
    let up_id = up["uploadId"].as_str().unwrap().to_owned();
    let piece = up["pieceBytes"].as_u64().unwrap() as usize;
    assert_eq!(up["pieces"], 3);
    assert_eq!(
        up["path"],
        format!("{}/data.bin", w.node.work.display()).as_str()
    );
    for (i, part) in body.chunks(piece).enumerate() {
        let r = put(&up_id, i as u64, part);
        assert_eq!(r.status, 200, "{}", r.text());
        // Progress.
        assert_eq!(r.json()["received"], (piece * i + part.len()) as u64);
        assert_eq!(r.json()["done"], i == 2);
    }
    assert_eq!(std::fs::read(w.node.work.join("data.bin")).unwrap(), body);
    assert_eq!(work_files(&w), ["data.bin"], "no partial file is left");
    // An existing file is replaced only on request.
    let r = start("data.bin", 3, false);
    assert_eq!(
        (r.status, r.json()["code"].as_str()),
        (409, Some("UPLOAD_EXISTS"))
    );
    let r = start("data.bin", 3, true);
    assert_eq!(r.status, 201, "{}", r.text());
    let r = put(r.json()["uploadId"].as_str().unwrap(), 0, b"new");
    assert_eq!(r.json()["done"], true);
    assert_eq!(std::fs::read(w.node.work.join("data.bin")).unwrap(), b"new");

    // A piece out of order abandons the upload; nothing is left.
    let r = start("half.bin", body.len(), false);
    let half = r.json()["uploadId"].as_str().unwrap().to_owned();
    assert_eq!(put(&half, 0, &body[..piece]).status, 200);
    assert!(
        work_files(&w).iter().any(|f| f.ends_with(".part")),
        "the node writes a partial file"
    );
    let r = put(&half, 2, &body[2 * piece..]);
    assert_eq!(
        (r.status, r.json()["code"].as_str()),
        (409, Some("UPLOAD_ABANDONED"))
    );
    assert_eq!(work_files(&w), ["data.bin"]);
    assert_eq!(
        w.as_bearer(&w.key, "GET", &format!("/api/uploads/{half}"), None)
            .status,
        404
    );
    // So does a piece of the wrong size, a cancel, and a minute of silence.
    let r = start("short.bin", body.len(), false);
    let short = r.json()["uploadId"].as_str().unwrap().to_owned();
    assert_eq!(put(&short, 0, &body[..piece]).status, 200);
    let r = put(&short, 1, &body[..10]);
    assert_eq!(
        (r.status, r.json()["code"].as_str()),
        (409, Some("UPLOAD_ABANDONED"))
    );
    let r = start("cancel.bin", body.len(), false);
    let cancel = r.json()["uploadId"].as_str().unwrap().to_owned();
    assert_eq!(put(&cancel, 0, &body[..piece]).status, 200);
    let r = w.as_bearer(&w.key, "DELETE", &format!("/api/uploads/{cancel}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    let r = start("idle.bin", body.len(), false);
    let idle = r.json()["uploadId"].as_str().unwrap().to_owned();
    assert_eq!(put(&idle, 0, &body[..piece]).status, 200);
    w.p.clock.advance_ms(61_000);
    until("the idle upload to be abandoned", || {
        (w.as_bearer(&w.key, "GET", &format!("/api/uploads/{idle}"), None)
            .status
            == 404)
            .then_some(())
    });
    until("no partial file", || {
        (work_files(&w) == ["data.bin"]).then_some(())
    });

    // Names are file names; sizes are capped; another account's upload is not there.
    for bad in ["../x", "a/b", ".", "..", ""] {
        let r = start(bad, 1, false);
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
        assert_eq!(r.json()["metadata"]["field"], "name", "{bad}");
    }
    let r = start("big.bin", 64 * 1024 * 1024 + 1, false);
    assert_eq!(r.status, 400, "{}", r.text());
    let r = start("mine.bin", 10, false);
    let mine = r.json()["uploadId"].as_str().unwrap().to_owned();
    let r = w.as_cookie(&w.admin, "GET", &format!("/api/uploads/{mine}"), None);
    assert_eq!(r.status, 404, "an upload is its starter's");
    assert_eq!(work_files(&w), ["data.bin"]);
    // The two uploads that completed are marked beside the pane's recording, the system
    // key's; the ones that failed are not.
    let uploads = until("the upload marks", || {
        let r = w.as_bearer(
            &w.key,
            "GET",
            &format!("/api/subshells/{id}/recording/inputs"),
            None,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let marks: Vec<Value> = r.json()["marks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["kind"] == "upload")
            .cloned()
            .collect();
        (marks.len() >= 2).then_some(marks)
    });
    let mut details: Vec<Value> = uploads.iter().map(|m| m["detail"].clone()).collect();
    details.sort_by_key(|d| d["bytes"].as_u64());
    assert_eq!(
        details,
        [
            json!({ "name": "data.bin", "bytes": 3 }),
            json!({ "name": "data.bin", "bytes": body.len() })
        ]
    );
    assert!(uploads.iter().all(|m| m["actorKind"] == "system_key"));
}

/// A second upload to a file that one is writing is refused even while a piece of the first is
/// on its way to the node (the collision check used to skip an upload busy with a piece, and
/// two uploads then wrote one file).
#[test]
fn an_upload_busy_with_a_piece_still_holds_its_file() {
    let w = world();
    let id = w.launch();
    let start = || {
        w.as_bearer(
            &w.key,
            "POST",
            "/api/uploads",
            Some(json!({ "subshellId": id, "name": "busy.bin", "size": 64 * 1024 * 1024 })),
        )
    };
    let r = start();
    assert_eq!(r.status, 201, "{}", r.text());
    let up = r.json()["uploadId"].as_str().unwrap().to_owned();
    let piece = vec![5_u8; usize::try_from(r.json()["pieceBytes"].as_u64().unwrap()).unwrap()];
    let writing = std::sync::atomic::AtomicBool::new(true);
    let deadline = Instant::now() + Duration::from_secs(60);
    let let_in = std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..40_u64 {
                let r = w.put_piece(&up, i, &piece);
                assert_eq!(r.status, 200, "{}", r.text());
                if Instant::now() > deadline {
                    break;
                }
            }
            writing.store(false, std::sync::atomic::Ordering::SeqCst);
        });
        let mut let_in = Vec::new();
        while writing.load(std::sync::atomic::Ordering::SeqCst) && Instant::now() < deadline {
            let r = start();
            if r.status != 409 {
                let_in.push(r.text());
            }
        }
        let_in
    });
    assert!(let_in.is_empty(), "second uploads to one file: {let_in:?}");
}

/// A piece that arrives together with what ends its upload (a cancel, or a bad piece that
/// abandons it) either lands before it or is refused: a cancelled upload never writes its file
/// afterwards, a cancel answered 204 means no file, and no partial file is left either way.
/// (A piece waiting behind the cancel used to write the whole file after the cancel was
/// answered, and be answered `done`.)
#[test]
fn a_piece_racing_what_ends_its_upload_lands_before_it_or_not_at_all() {
    let w = world();
    let id = w.launch();
    let body = vec![7_u8; 192 * 1024];
    let start = |name: &str| {
        let r = w.as_bearer(
            &w.key,
            "POST",
            "/api/uploads",
            Some(json!({ "subshellId": id, "name": name, "size": body.len() })),
        );
        assert_eq!(r.status, 201, "{}", r.text());
        r.json()["uploadId"].as_str().unwrap().to_owned()
    };
    let put = |up: &str, index: u64, bytes: &[u8]| w.put_piece(up, index, bytes);
    // How long one piece takes on its own here: the ends are sent across one and a half times
    // that, from at once to after it landed.
    let calibrate = start("calibrate.bin");
    let t = Instant::now();
    assert_eq!(put(&calibrate, 0, &body).json()["done"], true);
    let whole = t.elapsed();
    let rounds = 40_u32;
    let (mut landed, mut refused) = (1, 0);
    for round in 0..rounds {
        let name = format!("race-{round}.bin");
        let up = start(&name);
        let cancels = round % 2 == 0;
        let barrier = std::sync::Barrier::new(2);
        let (piece, ender) = std::thread::scope(|s| {
            let piece = s.spawn(|| {
                barrier.wait();
                put(&up, 0, &body)
            });
            let ender = s.spawn(|| {
                barrier.wait();
                // Swept across the piece's way in: its body is read and decoded, then its
                // chunks go to the node one by one.
                std::thread::sleep(whole * 3 * (round / 2) / rounds);
                if cancels {
                    w.as_bearer(&w.key, "DELETE", &format!("/api/uploads/{up}"), None)
                } else {
                    put(&up, 1, &body[..1])
                }
            });
            (piece.join().unwrap(), ender.join().unwrap())
        });
        let file = w.node.work.join(&name);
        match piece.status {
            200 => {
                landed += 1;
                assert_eq!(piece.json()["done"], true);
                assert_eq!(std::fs::read(&file).unwrap(), body, "round {round}");
                // What came after it found the upload complete and gone.
                assert_eq!(ender.status, 404, "round {round}: {}", ender.text());
            }
            404 => {
                refused += 1;
                if cancels {
                    assert_eq!(ender.status, 204, "round {round}: {}", ender.text());
                } else {
                    assert_eq!(ender.json()["code"], "UPLOAD_ABANDONED", "round {round}");
                }
                assert!(
                    !file.exists(),
                    "round {round}: a refused piece wrote its file"
                );
            }
            other => panic!("round {round}: piece answered {other}: {}", piece.text()),
        }
    }
    // Nothing partial anywhere, once the node has run what was sent to it.
    until("no partial file", || {
        (!work_files(&w).iter().any(|f| f.contains(".part"))).then_some(())
    });
    assert_eq!(
        work_files(&w).len(),
        landed,
        "only the pieces answered 200 wrote files ({refused} refused)"
    );
    assert!(
        landed > 1 && refused > 0,
        "the sweep saw both outcomes ({landed} landed, {refused} refused)"
    );
}

/// The cap on uploads in progress holds when starts arrive together: 320 starts from 16
/// clients at once, and exactly 256 are taken (each start asks the node about its file between
/// the first look at the count and adding itself).
#[test]
fn concurrent_upload_starts_keep_to_the_cap() {
    let w = world();
    let id = w.launch();
    let outcomes: Vec<(u16, String)> = std::thread::scope(|s| {
        let clients: Vec<_> = (0..16)
            .map(|c| {
                let (w, id) = (&w, &id);
                s.spawn(move || {
                    (0..20)
                        .map(|n| {
                            let r = w.as_bearer(
                                &w.key,
                                "POST",
                                "/api/uploads",
                                Some(json!({
                                    "subshellId": id, "name": format!("f{c}-{n}.bin"), "size": 10,
                                })),
                            );
                            let code = r.json()["code"].as_str().unwrap_or_default().to_owned();
                            (r.status, code)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        clients
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    let taken = outcomes.iter().filter(|(s, _)| *s == 201).count();
    let busy = outcomes
        .iter()
        .filter(|(s, c)| *s == 409 && c == "UPLOADS_BUSY")
        .count();
    assert_eq!((taken, busy), (256, 64));
}

#[test]
fn an_open_socket_closes_once_its_system_key_is_disabled_even_while_output_flows() {
    let w = world();
    let id = w.launch();
    // Output every 200 ms: the socket is never idle for the 15 s between checks.
    w.type_line(&id, "while true; do echo tick; sleep 0.2; done");
    let tok = w.mint_bearer(&w.key, &id).json()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut t = attach(&w.p, &id, &tok, "", None).unwrap();
    t.until("ticks", |t| t.text().matches("tick").count() > 3);
    let r = w.as_cookie(
        &w.admin,
        "POST",
        &format!("/api/system-keys/{}/disable", w.key_id),
        Some(json!({})),
    );
    assert!(r.status < 300, "{}", r.text());
    let deadline = Instant::now() + Duration::from_secs(25);
    while t.closed.is_none() {
        assert!(Instant::now() < deadline, "the socket outlived its key");
        t.pump(Duration::from_millis(200));
    }
    assert_eq!(t.closed.as_ref().unwrap().0, 4403);
}

#[test]
fn keys_the_node_cannot_type_are_reported_to_that_viewer() {
    let w = world();
    let id = w.launch();
    let mut t = w.admin_viewer(&id);
    // The pane vanishes behind the plane's back (this test's local node runs no exit checks).
    w.node
        .exec
        .execute(&Command::Kill(SubshellRef {
            subshell_id: termplane_proto::SubshellId::parse(&id).unwrap(),
        }))
        .unwrap();
    t.keys("echo lost\r");
    t.until("the refusal", |t| {
        t.has("error", |v| v["code"] == "INPUT_FAILED")
    });
    assert!(
        t.closed.is_none(),
        "a refused key does not close the socket"
    );
}

/// Catalogue 76, the attach token: eight upgrades racing with one token get exactly one 101
/// (twenty rounds); 29.999 s old it opens, 30.001 s old it does not; it carries its minter's
/// reach (another account's session mints nothing that opens this pane); the mint is
/// `no-store` and `no-referrer`; and no token, used or refused, appears in any log line.
#[test]
fn e76_one_attach_token_opens_one_socket_however_many_race_and_is_never_logged() {
    let w = world();
    let id = w.launch();
    let addr = w.p.addr;
    let mut tokens = Vec::new();
    for round in 0..20 {
        let tok = w.mint_cookie(&w.admin, Some(&id));
        tokens.push(tok.clone());
        let barrier = std::sync::Barrier::new(8);
        let path = format!("/api/subshells/{id}/attach?token={tok}");
        let results: Vec<Result<Viewer, (u16, String)>> = std::thread::scope(|s| {
            let racers: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        Viewer::open(addr, &path, &[])
                    })
                })
                .collect();
            racers.into_iter().map(|r| r.join().unwrap()).collect()
        });
        let opened = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(opened, 1, "round {round}: {opened} sockets opened");
        for r in &results {
            if let Err(e) = r {
                assert_eq!(
                    e,
                    &(401, "ATTACH_TOKEN_INVALID".to_owned()),
                    "round {round}"
                );
            }
        }
        let mut open = results.into_iter().find_map(Result::ok).unwrap();
        open.until("attached", |t| t.has("attached", |_| true));
    }
    until("the racers' viewers to leave", || {
        w.p.svc
            .terminals()
            .pumps()
            .pump_of(&id)
            .is_none()
            .then_some(())
    });

    // Thirty seconds to the millisecond.
    let young = w.mint_cookie(&w.admin, Some(&id));
    let old = w.mint_cookie(&w.admin, Some(&id));
    tokens.extend([young.clone(), old.clone()]);
    w.p.clock.advance_ms(29_999);
    let mut t = attach(&w.p, &id, &young, "", None).unwrap();
    t.until("attached", |t| t.has("attached", |_| true));
    w.p.clock.advance_ms(2);
    assert_eq!(
        attach(&w.p, &id, &old, "", None).err(),
        Some((401, "ATTACH_TOKEN_INVALID".into()))
    );

    // Bound to its minter's reach: another account's unbound token does not open this pane.
    w.p.create_user(&w.admin, "carol@example.test", "user");
    let carol = w.p.sign_in("carol@example.test", common::PASSWORD);
    let hers = w.mint_cookie(&carol, None);
    tokens.push(hers.clone());
    let refused = attach(&w.p, &id, &hers, "", None).err().unwrap();
    assert!(matches!(refused.0, 403 | 404), "{refused:?}");

    // The mint is neither cached nor leaked through a Referer.
    let r = w.as_cookie(
        &w.admin,
        "POST",
        "/api/auth/ws-token",
        Some(json!({ "subshellId": id })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert_eq!(r.header("referrer-policy"), Some("no-referrer"));
    tokens.push(r.json()["token"].as_str().unwrap().to_owned());

    drop(t);
    let logs = String::from_utf8_lossy(&common::logs().lock().unwrap()).into_owned();
    assert!(
        logs.contains(&format!("/api/subshells/{id}/attach")),
        "the attaches were not logged at all, so this check would prove nothing"
    );
    for tok in &tokens {
        assert!(
            !logs.contains(tok.as_str()),
            "an attach token is in the logs"
        );
    }
}

/// Catalogue 82, cross-site WebSocket hijacking: a browser-style upgrade carrying the
/// session's cookie and a valid token, from a foreign, `null`, other-port, other-scheme or
/// lookalike Origin, is refused 403 before any 101, on the terminal socket and on the live
/// feed; the refusal spends nothing (the same tokens then open both from a trusted Origin).
#[test]
fn f82_a_foreign_origin_upgrade_is_refused_before_101_and_spends_nothing() {
    let w = world();
    let id = w.launch();
    let port = w.p.addr.port();
    let own = w.p.origin();
    // The test plane trusts its own origin and `https://extra.example`.
    let foreign = [
        "https://evil.example".to_owned(),
        "null".to_owned(),
        String::new(),
        format!("http://127.0.0.1:{}", port.wrapping_add(1)),
        format!("https://127.0.0.1:{port}"),
        "http://127.0.0.1".to_owned(),
        format!("{own}.evil.example"),
        format!("http://127.0.0.1:{port}@evil.example"),
        "https://extra.example.evil.example".to_owned(),
        "https://evilextra.example".to_owned(),
        "http://extra.example".to_owned(),
        "https://extra.example:8443".to_owned(),
        "https://extra.example.".to_owned(),
        "wss://extra.example".to_owned(),
        "file://".to_owned(),
    ];
    let pane_tok = w.mint_cookie(&w.admin, Some(&id));
    let feed_tok = w.mint_cookie(&w.admin, None);
    let pane_path = format!("/api/subshells/{id}/attach?token={pane_tok}");
    let feed_path = format!("/api/live?token={feed_tok}");
    for origin in &foreign {
        for path in [&pane_path, &feed_path] {
            let r = Viewer::open(
                w.p.addr,
                path,
                &[("Origin", origin.as_str()), ("Cookie", w.admin.as_str())],
            );
            assert_eq!(
                r.err(),
                Some((403, "ORIGIN_REJECTED".into())),
                "Origin {origin:?} on {path}"
            );
        }
    }
    assert!(
        w.p.svc.terminals().pumps().pump_of(&id).is_none(),
        "a refused upgrade joined the pane"
    );
    // Nothing was spent: the same tokens open both sockets from a trusted Origin.
    let mut t = Viewer::open(
        w.p.addr,
        &pane_path,
        &[
            ("Origin", "https://extra.example"),
            ("Cookie", w.admin.as_str()),
        ],
    )
    .unwrap();
    t.until("attached", |t| t.has("attached", |_| true));
    let mut f = Viewer::open(w.p.addr, &feed_path, &[("Origin", own.as_str())]).unwrap();
    f.until("hello", |t| t.has("hello", |_| true));
}

#[test]
fn a_demoted_administrator_stops_typing_through_a_read_share_and_its_feed_is_reopened() {
    let w = world();
    let id = w.launch_as(Some(&w.admin));
    let carol_id = w.p.create_user(&w.admin, "carol@example.test", "admin");
    let carol = w.p.sign_in("carol@example.test", common::PASSWORD);
    let r = w.as_cookie(
        &w.admin,
        "PUT",
        &format!("/api/subshells/{id}/shares/{carol_id}"),
        Some(json!({ "access": "read" })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // As an administrator she types, whatever the share says, and her feed is an
    // administrator's.
    let tok = w.mint_cookie(&carol, None);
    let mut t = attach(&w.p, &id, &tok, "", Some(&w.p.origin())).unwrap();
    t.until("attached", |t| {
        t.has("attached", |v| v["readOnly"] == false)
    });
    let tok = w.mint_cookie(&carol, None);
    let mut feed = open_ws(&w.p, &format!("/api/live?token={tok}"), Some(&w.p.origin())).unwrap();
    feed.until("hello", |t| t.has("hello", |_| true));
    let r = w.as_cookie(
        &w.admin,
        "PATCH",
        &format!("/api/users/{carol_id}"),
        Some(json!({ "role": "user" })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // At once (not at the periodic check, 15 s): the typing socket ends, and so does the feed
    // that listed every account's panes; both say why.
    let deadline = Instant::now() + Duration::from_secs(5);
    while t.closed.is_none() || feed.closed.is_none() {
        assert!(
            Instant::now() < deadline,
            "open after the demotion: terminal {:?}, feed {:?}",
            t.closed,
            feed.closed
        );
        t.pump(Duration::from_millis(100));
        feed.pump(Duration::from_millis(100));
    }
    assert_eq!(
        t.closed,
        Some((4403, "write access to this subshell ended".to_owned()))
    );
    assert_eq!(
        feed.closed,
        Some((
            4403,
            "the account's role changed; list again and reopen".to_owned()
        ))
    );
    // She may still watch, read-only.
    let tok = w.mint_cookie(&carol, Some(&id));
    let mut t = attach(&w.p, &id, &tok, "", Some(&w.p.origin())).unwrap();
    t.until("attached", |t| t.has("attached", |v| v["readOnly"] == true));
}

#[test]
fn frames_sent_back_to_back_all_reach_the_pane_even_above_one_commands_size() {
    let w = world();
    let id = w.launch();
    let out = std::env::temp_dir().join(format!(
        "tp-typed-{}-{}",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    ));
    w.type_line(&id, &format!("stty -icanon -echo; cat > {}", out.display()));
    let mut t = w.admin_viewer(&id);
    // The shell has opened the file for `cat`: what is typed next goes to `cat`.
    until("cat to start", || out.exists().then_some(()));
    // Three frames in one go: queued together they are above what one node command carries
    // (47 KiB of JSON); and one frame of escape bytes, 9,000 of them, six times that as JSON.
    let frames = [
        "a".repeat(10),
        "b".repeat(4_000),
        "c".repeat(45_000),
        "\u{1b}".repeat(9_000),
    ];
    for f in &frames {
        t.keys(f);
    }
    let want: usize = frames.iter().map(String::len).sum();
    let got = until("every byte in the file", || {
        let n = std::fs::metadata(&out).map_or(0, |m| m.len() as usize);
        (n >= want).then_some(n)
    });
    assert_eq!(got, want);
    t.pump(Duration::from_millis(200));
    assert!(!t.has("error", |_| true), "a refusal: {:?}", t.frames);
    let typed = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let expected: Vec<u8> = frames.concat().into_bytes();
    assert!(typed == expected, "the bytes arrived out of order");
}

#[test]
fn a_frame_above_64_kib_closes_with_1009_and_a_ping_with_fields_is_not_a_known_frame() {
    let w = world();
    let id = w.launch();
    let mut t = w.admin_viewer(&id);
    t.ws.send(Message::binary(vec![b'x'; 64 * 1024 + 1]))
        .unwrap();
    t.until("the close", |t| t.closed.is_some());
    assert_eq!(t.closed, Some((1009, "a frame above 64 KiB".to_owned())));
    let mut t = w.admin_viewer(&id);
    t.send_json(&json!({ "type": "ping", "x": 1 }));
    t.until("the close", |t| t.closed.is_some());
    assert_eq!(t.closed.as_ref().map(|c| c.0), Some(4400));
    // The live feed alike.
    let open_feed = || {
        let tok = w.mint_cookie(&w.admin, None);
        let mut feed =
            open_ws(&w.p, &format!("/api/live?token={tok}"), Some(&w.p.origin())).unwrap();
        feed.until("hello", |t| t.has("hello", |_| true));
        feed
    };
    let mut feed = open_feed();
    feed.ws
        .send(Message::text("x".repeat(64 * 1024 + 1)))
        .unwrap();
    feed.until("the close", |t| t.closed.is_some());
    assert_eq!(feed.closed, Some((1009, "a frame above 64 KiB".to_owned())));
    let mut feed = open_feed();
    feed.send_json(&json!({ "type": "ping" }));
    feed.until("the pong", |t| t.has("pong", |_| true));
    feed.send_json(&json!({ "type": "ping", "x": 1 }));
    feed.until("the close", |t| t.closed.is_some());
    assert_eq!(feed.closed.as_ref().map(|c| c.0), Some(4400));
}

/// A text frame whose payload is not UTF-8 closes with 1007 (RFC 6455 §7.4.1) on the terminal
/// socket and on the live feed, rather than a connection dropped without a close frame.
#[test]
fn a_text_frame_that_is_not_utf8_closes_with_1007() {
    let w = world();
    let id = w.launch();
    // A masked, final text frame of two bytes that are no UTF-8 (mask 0: payload as is),
    // written under the client library, which only sends valid text.
    let bad_text = |t: &mut Viewer| {
        use std::io::Write as _;
        t.ws.get_mut()
            .write_all(&[0x81, 0x82, 0, 0, 0, 0, 0xff, 0xfe])
            .unwrap();
        t.until("the close", |t| t.closed.is_some());
        assert_eq!(
            t.closed,
            Some((1007, "text frames must be UTF-8".to_owned()))
        );
    };
    let mut t = w.admin_viewer(&id);
    t.until("the replay", |t| t.has("attached", |_| true));
    bad_text(&mut t);
    let tok = w.mint_cookie(&w.admin, None);
    let mut feed = open_ws(&w.p, &format!("/api/live?token={tok}"), Some(&w.p.origin())).unwrap();
    feed.until("hello", |t| t.has("hello", |_| true));
    bad_text(&mut feed);
}

/// A whole number written with a fraction (`80.0`) is an integer, as in request bodies: a
/// resize so written is taken, not closed as an unknown frame; `80.5` still is one.
#[test]
fn a_resize_written_with_zero_fractions_is_taken() {
    let w = world();
    let id = w.launch();
    let mut t = w.admin_viewer(&id);
    t.until("the replay", |t| t.has("attached", |_| true));
    t.ws.send(Message::text(
        r#"{"type":"resize","cols":83.0,"rows":2.4e1}"#,
    ))
    .unwrap();
    t.until("the new grid", |t| {
        t.has("size", |f| f["cols"] == 83 && f["rows"] == 24)
    });
    assert!(t.closed.is_none());
    t.ws.send(Message::text(r#"{"type":"resize","cols":80.5,"rows":24}"#))
        .unwrap();
    t.until("the close", |t| t.closed.is_some());
    assert_eq!(t.closed.as_ref().map(|c| c.0), Some(4400));
}

/// RFC 6455 §4.1: an opening handshake is HTTP/1.1. The same upgrade in HTTP/1.0 is refused
/// with 400 on the terminal, the live feed and the node socket, and spends no token.
#[test]
fn an_upgrade_in_http_1_0_is_refused_and_spends_nothing() {
    use std::io::{Read as _, Write as _};
    let w = world();
    let id = w.launch();
    let pane_tok = w.mint_cookie(&w.admin, Some(&id));
    let feed_tok = w.mint_cookie(&w.admin, None);
    let pane_path = format!("/api/subshells/{id}/attach?token={pane_tok}");
    let feed_path = format!("/api/live?token={feed_tok}");
    for path in [pane_path.as_str(), feed_path.as_str(), "/ws/node"] {
        let mut s = TcpStream::connect(w.p.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.0\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Authorization: Bearer tp_x\r\n\r\n",
            w.p.addr
        )
        .unwrap();
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        // An HTTP/1.0 request is answered in HTTP/1.0 (hyper's choice, RFC 9110 §2.5 allows it).
        assert!(answer.starts_with("HTTP/1.0 400 "), "{path}: {answer}");
        assert!(
            answer.contains("WEBSOCKET_UPGRADE_REQUIRED"),
            "{path}: {answer}"
        );
    }
    // Nothing was spent: both tokens still open their sockets.
    let mut t = attach(&w.p, &id, &pane_tok, "", Some(&w.p.origin())).unwrap();
    t.until("the replay", |t| t.has("attached", |_| true));
    let mut feed = open_ws(&w.p, &feed_path, Some(&w.p.origin())).unwrap();
    feed.until("hello", |t| t.has("hello", |_| true));
}

/// What one account can make the plane hold is bounded: at most 256 terminal sockets and live
/// feeds open at once (each may hold a viewer's queue of up to 1 MiB); one more is refused with
/// 429 `TOO_MANY_SOCKETS` before it joins the pane, and one closing makes room again. Another
/// account is not affected.
#[test]
fn an_account_holds_at_most_256_sockets_and_one_more_is_refused_429() {
    let w = world();
    let id = w.launch();
    let me = w
        .as_cookie(&w.admin, "GET", "/api/auth/session", None)
        .json();
    let admin_id = me["user"]["id"]
        .as_str()
        .or_else(|| me["id"].as_str())
        .unwrap_or_else(|| panic!("no id in {me}"))
        .to_owned();
    // 256 sockets of the admin's, held here as the plane counts them.
    let mut held: Vec<_> = (0..termplane::service::terminals::MAX_SOCKETS_PER_ACCOUNT)
        .map(|_| w.p.svc.terminals().socket_opened(&admin_id).unwrap())
        .collect();
    let tok = w.mint_cookie(&w.admin, Some(&id));
    assert_eq!(
        attach(&w.p, &id, &tok, "", Some(&w.p.origin())).err(),
        Some((429, "TOO_MANY_SOCKETS".to_owned()))
    );
    assert!(
        w.p.svc.terminals().pumps().pump_of(&id).is_none(),
        "the refused attach joined the pane"
    );
    let tok = w.mint_cookie(&w.admin, None);
    assert_eq!(
        open_ws(&w.p, &format!("/api/live?token={tok}"), Some(&w.p.origin())).err(),
        Some((429, "TOO_MANY_SOCKETS".to_owned()))
    );
    // Another account still opens one.
    assert!(w.p.svc.terminals().socket_opened("another-account").is_ok());
    held.pop();
    let tok = w.mint_cookie(&w.admin, Some(&id));
    let mut t = attach(&w.p, &id, &tok, "", Some(&w.p.origin())).unwrap();
    t.until("attached", |t| t.has("attached", |_| true));
}

#[test]
fn signing_out_closes_the_sessions_terminals_and_feed_at_once() {
    let w = world();
    let id = w.launch_as(Some(&w.admin));
    let cookie = w.p.sign_in(common::ADMIN, common::PASSWORD);
    let tok = w.mint_cookie(&cookie, None);
    let mut t = attach(&w.p, &id, &tok, "", Some(&w.p.origin())).unwrap();
    t.until("attached", |t| t.has("attached", |_| true));
    let tok = w.mint_cookie(&cookie, None);
    let mut feed = open_ws(&w.p, &format!("/api/live?token={tok}"), Some(&w.p.origin())).unwrap();
    feed.until("hello", |t| t.has("hello", |_| true));
    // Another session of the same account stays.
    let mut other = w.admin_viewer(&id);
    let r = w.as_cookie(&cookie, "POST", "/api/auth/sign-out", Some(json!({})));
    assert!(r.status < 300, "{}", r.text());
    let deadline = Instant::now() + Duration::from_secs(5);
    while t.closed.is_none() || feed.closed.is_none() {
        assert!(
            Instant::now() < deadline,
            "open after the sign-out: terminal {:?}, feed {:?}",
            t.closed,
            feed.closed
        );
        t.pump(Duration::from_millis(100));
        feed.pump(Duration::from_millis(100));
    }
    assert_eq!(t.closed.as_ref().map(|c| c.0), Some(4403));
    assert_eq!(feed.closed.as_ref().map(|c| c.0), Some(4403));
    other.pump(Duration::from_millis(300));
    assert!(
        other.closed.is_none(),
        "another session's viewer closed: {:?}",
        other.closed
    );
    other.keys("echo still-$((6*7))\r");
    other.until("the other session types", |t| t.text().contains("still-42"));
}

#[test]
fn a_feed_that_opens_hears_who_already_watches() {
    let w = world();
    let id = w.launch_as(Some(&w.admin));
    let mut viewer = w.admin_viewer(&id);
    viewer.until("attached", |t| t.has("attached", |_| true));
    let open_feed = |cookie: &str| {
        let tok = w.mint_cookie(cookie, None);
        let mut feed =
            open_ws(&w.p, &format!("/api/live?token={tok}"), Some(&w.p.origin())).unwrap();
        feed.until("hello", |t| t.has("hello", |_| true));
        feed.pump(Duration::from_millis(300));
        feed
    };
    let feed = open_feed(&w.admin);
    assert!(
        feed.has("presence", |v| v["subshellId"] == id.as_str()
            && v["viewers"].as_array().is_some_and(|a| a.len() == 1)),
        "{:?}",
        feed.frames
    );
    // Someone who may not see the pane hears nothing of it.
    w.p.create_user(&w.admin, "dora@example.test", "user");
    let dora = w.p.sign_in("dora@example.test", common::PASSWORD);
    let feed = open_feed(&dora);
    assert!(!feed.has("presence", |_| true), "{:?}", feed.frames);
}

/// Keys a client sent just before its normal close are all typed before the plane finishes the
/// closing handshake: twenty commands and a close frame at once, and all twenty run, in order.
#[test]
fn keys_sent_right_before_a_close_all_reach_the_pane_in_order() {
    let w = world();
    let id = w.launch();
    // Typed-ahead keys are not echoed by the terminal, so each command's output is a line of
    // its own whatever the timing.
    w.type_line(&id, "stty -echo; echo ready-$((1+1))");
    until("the shell to answer", || {
        w.node_screen(&id).contains("ready-2").then_some(())
    });
    let mut t = w.admin_viewer(&id);
    for n in 1..=20 {
        t.send_json(&json!({ "type": "input", "data": format!("echo last-{n}\r") }));
    }
    t.ws.close(Some(tungstenite::protocol::CloseFrame {
        code: tungstenite::protocol::frame::coding::CloseCode::Normal,
        reason: "".into(),
    }))
    .unwrap();
    t.until("the close", |t| t.closed.is_some());
    assert_eq!(t.closed.as_ref().map(|c| c.0), Some(1000));
    // Once the plane answered the close, whatever it took in was typed: a line typed after it
    // runs after all twenty.
    w.type_line(&id, "echo done-$((2+3))");
    let screen = until("the line typed after the close", || {
        let r = w.as_cookie(
            &w.admin,
            "GET",
            &format!("/api/subshells/{id}/screen?lines=500"),
            None,
        );
        let s = r.json()["text"].as_str().unwrap_or("").to_owned();
        s.lines().any(|l| l.trim() == "done-5").then_some(s)
    });
    assert_eq!(
        ran_lines(&screen),
        (1..=20).collect::<Vec<_>>(),
        "commands lost or out of order:\n{screen}"
    );
}

/// Keys sent after the pane's program ended, before its end was noticed, are refused to the
/// viewer that sent them (`error INPUT_FAILED`), not typed into the dead pane where nothing
/// reads them; then the end comes as `exit` and the close (1000).
#[test]
fn keys_sent_after_the_panes_program_ended_are_refused_before_exit_and_close() {
    let w = world();
    let id = w.launch();
    let mut t = w.admin_viewer(&id);
    t.keys("exit 7\r");
    let pane = format!("=tp-{id}:");
    until("the pane's program to end", || {
        (w.node.tmux_query(&pane, "#{pane_dead}") == "1").then_some(())
    });
    t.send_json(&json!({ "type": "input", "data": "echo too-late\r" }));
    t.until("the refusal", |t| {
        t.has("error", |v| v["code"] == "INPUT_FAILED")
    });
    assert!(t.closed.is_none(), "a refusal does not close the socket");
    // The end noticed (this test's local node runs its exit checks here).
    let exit = until("the pane's exit", || {
        w.node.exec.exit_tick().into_iter().next()
    });
    smol::block_on(w.p.svc.node_reports().apply_node_event(
        &w.node.node_id,
        termplane::local::LOCAL_CONN,
        &termplane_proto::Event::Exit(exit),
    ));
    t.until("the close", |t| t.closed.is_some());
    assert_eq!(t.closed.as_ref().map(|c| c.0), Some(1000));
    let kinds: Vec<&str> = t.frames.iter().filter_map(|v| v["type"].as_str()).collect();
    let at = |k: &str| kinds.iter().position(|x| *x == k).unwrap();
    assert!(at("error") < at("exit"), "{kinds:?}");
    assert!(t.has("exit", |v| v["exitCode"] == 7), "{:?}", t.frames);
}

/// The latest `presence` frame.
fn latest_presence(t: &Viewer) -> Option<&Value> {
    t.frames.iter().rev().find(|v| v["type"] == "presence")
}

/// A viewer that watches without taking part in sizing (a phone glancing at the pane) does not
/// shrink it; every viewer hears each one's grid, whether it takes part and who holds the
/// pane's grid. Taking part (a `sizing` frame) fits the pane to it, and leaving lets it grow.
#[test]
fn a_viewer_out_of_sizing_keeps_the_pane_and_presence_names_who_holds_the_grid() {
    let w = world();
    let id = w.launch();
    let tok = w.mint_cookie(&w.admin, Some(&id));
    let mut desk = attach(
        &w.p,
        &id,
        &tok,
        "&cols=160&rows=48&device=desktop",
        Some(&w.p.origin()),
    )
    .unwrap();
    desk.until("attached", |t| t.has("attached", |v| v["sizing"] == true));
    let desk_id = desk.frames[0]["viewerId"].as_u64().unwrap();
    assert_eq!(w.pane_size(&id), (160, 48));
    let tok = w.mint_cookie(&w.admin, Some(&id));
    let mut phone = attach(
        &w.p,
        &id,
        &tok,
        "&cols=45&rows=20&sizing=false&device=phone",
        Some(&w.p.origin()),
    )
    .unwrap();
    phone.until("attached out of sizing", |t| {
        t.has("attached", |v| {
            v["sizing"] == false && v["readOnly"] == false
        })
    });
    let phone_id = phone.frames[0]["viewerId"].as_u64().unwrap();
    // Both hear of both, with their grids; the desktop holds the grid.
    desk.until("presence of two", |t| t.viewers_now() == Some(2));
    let p = latest_presence(&desk).unwrap().clone();
    let of = |p: &Value, id: u64| {
        p["viewers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["viewerId"] == id)
            .unwrap()
            .clone()
    };
    let ph = of(&p, phone_id);
    assert_eq!(
        (&ph["cols"], &ph["rows"], &ph["sizing"], &ph["device"]),
        (&json!(45), &json!(20), &json!(false), &json!("phone")),
        "{p}"
    );
    assert_eq!(of(&p, desk_id)["sizing"], true);
    assert_eq!(
        p["held"],
        json!({ "cols": 160, "rows": 48, "colsBy": desk_id, "rowsBy": desk_id })
    );
    assert_eq!(w.pane_size(&id), (160, 48), "the phone shrank the pane");
    // The phone may still type.
    phone.keys("echo from-the-phone-$((6*7))\r");
    desk.until("the phone's keys", |t| {
        t.text().contains("from-the-phone-42")
    });
    assert_eq!(w.pane_size(&id), (160, 48));
    assert!(!desk.has("size", |v| v["cols"] == 45), "{:?}", desk.frames);
    // Taking part: the pane takes the phone's grid and the phone is named as its holder.
    phone.send_json(&json!({ "type": "sizing", "on": true }));
    desk.until("the phone's grid", |t| {
        t.has("size", |v| v["cols"] == 45 && v["rows"] == 20)
    });
    assert_eq!(w.pane_size(&id), (45, 20));
    desk.until("the phone named as holder", |t| {
        latest_presence(t).is_some_and(|p| {
            p["held"] == json!({ "cols": 45, "rows": 20, "colsBy": phone_id, "rowsBy": phone_id })
        })
    });
    // While it holds the grid, the API cannot set another.
    let r = w.as_bearer(
        &w.key,
        "POST",
        &format!("/api/subshells/{id}/resize"),
        Some(json!({ "cols": 100, "rows": 30 })),
    );
    assert_eq!(r.error(409), "GRID_HELD");
    // Out again: the pane grows back to the desktop's grid.
    phone.send_json(&json!({ "type": "sizing", "on": false }));
    desk.until("the desktop's grid again", |t| {
        t.frames
            .iter()
            .rev()
            .find(|v| v["type"] == "size")
            .is_some_and(|v| v["cols"] == 160 && v["rows"] == 48)
    });
    assert_eq!(w.pane_size(&id), (160, 48));
    // A viewer that only watches cannot take part.
    let tok = w.mint_cookie(&w.admin, Some(&id));
    let mut reader = attach(&w.p, &id, &tok, "&cols=30&rows=10&readOnly=true", None).unwrap();
    reader.until("attached read-only", |t| {
        t.has("attached", |v| {
            v["readOnly"] == true && v["sizing"] == false
        })
    });
    reader.send_json(&json!({ "type": "sizing", "on": true }));
    reader.until("the refusal", |t| {
        t.has("error", |v| v["code"] == "READ_ONLY")
    });
    assert_eq!(w.pane_size(&id), (160, 48));
}
