//! Subshells through the REST API of an in-process plane whose local node is the real executor
//! on a real tmux: the catalog (plugins, presets, workspaces), the subshell routes a person or a
//! script uses, the limits of a pane's own token, and the side effects of each refusal.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::Duration;

use common::local::{World, world};
use common::{Plane, Resp};
use serde_json::{Value, json};

impl World {
    fn as_admin(&self, method: &str, path: &str, body: Option<Value>) -> Resp {
        let mut r = self
            .p
            .req()
            .method(method)
            .path(path)
            .header("Origin", &self.p.origin())
            .header("Cookie", &self.admin);
        if let Some(b) = body {
            r = r.json(b);
        }
        r.send()
    }

    fn launch_with(&self, more: Value) -> Value {
        let mut body = json!({ "nodeId": self.node.node_id, "harnessId": "shell", "cwd": self.node.work.to_string_lossy() });
        for (k, v) in more.as_object().unwrap() {
            body[k] = v.clone();
        }
        let r = self.as_bearer(&self.key, "POST", "/api/subshells", Some(body));
        assert_eq!(r.status, 201, "{}", r.text());
        r.json()
    }

    fn get(&self, id: &str) -> Value {
        let r = self.as_bearer(&self.key, "GET", &format!("/api/subshells/{id}"), None);
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()
    }

    fn screen(&self, id: &str) -> String {
        let r = self.as_bearer(
            &self.key,
            "GET",
            &format!("/api/subshells/{id}/screen?lines=100"),
            None,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["text"].as_str().unwrap().to_owned()
    }

    fn wait_screen(&self, id: &str, needle: &str) -> String {
        let last = std::cell::RefCell::new(String::new());
        let found = wait_or_none(|| {
            let s = self.screen(id);
            let hit = s.contains(needle).then(|| s.clone());
            *last.borrow_mut() = s;
            hit
        });
        found.unwrap_or_else(|| {
            panic!(
                "timed out waiting for {needle:?} on the screen; it shows:\n{}",
                last.borrow()
            )
        })
    }
}

/// The longest any one wait of these tests lasts.
const WAIT: Duration = Duration::from_secs(30);

fn wait_or_none<T>(f: impl FnMut() -> Option<T>) -> Option<T> {
    termplane_test_support::wait_for(WAIT, f)
}

fn wait<T>(what: &str, f: impl FnMut() -> Option<T>) -> T {
    termplane_test_support::wait_until(what, WAIT, f)
}

#[test]
fn plugins_are_listed_for_any_credential_and_a_disabled_one_cannot_launch() {
    let w = world();
    let r = w.as_bearer(&w.key, "GET", "/api/plugins", None);
    assert_eq!(r.status, 200, "{}", r.text());
    let ids: Vec<String> = r
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    for id in ["shell", "claude-code", "codex", "gemini", "opencode"] {
        assert!(ids.contains(&id.to_owned()), "{ids:?}");
    }
    // Switching is for an administrator's session only.
    let r = w.as_bearer(
        &w.key,
        "PUT",
        "/api/plugins/shell",
        Some(json!({ "enabled": false })),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    let r = w.as_admin(
        "PUT",
        "/api/plugins/shell",
        Some(json!({ "enabled": false })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["enabled"], false);
    let body = json!({ "nodeId": w.node.node_id, "harnessId": "shell", "cwd": w.node.work.to_string_lossy() });
    let r = w.as_bearer(&w.key, "POST", "/api/subshells", Some(body.clone()));
    assert_eq!(r.error(409), "PLUGIN_DISABLED");
    assert_eq!(r.json()["metadata"]["reason"], "plugin_disabled");
    let r = w.as_bearer(&w.key, "GET", "/api/subshells", None);
    assert_eq!(r.json(), json!([]), "a refused launch left a row");
    // The node's view says why too.
    let r = w.as_admin(
        "GET",
        &format!("/api/nodes/{}/harnesses", w.node.node_id),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let shell = r
        .json()
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["harnessId"] == "shell")
        .cloned()
        .unwrap();
    assert_eq!(shell["launchable"], false, "{shell}");
    let r = w.as_admin(
        "PUT",
        "/api/plugins/shell",
        Some(json!({ "enabled": true })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = w.as_bearer(&w.key, "POST", "/api/subshells", Some(body));
    assert_eq!(r.status, 201, "{}", r.text());
    // The launch detected the shell: its version is the first line of `--version` (bash goes
    // on with a licence), with nothing a terminal would act on.
    let r = w.as_admin(
        "GET",
        &format!("/api/nodes/{}/harnesses", w.node.node_id),
        None,
    );
    let listed = r.json();
    let shell = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["harnessId"] == "shell")
        .unwrap();
    let version = shell["version"].as_str().unwrap_or_default();
    assert!(
        !version.is_empty() && !version.contains(['\n', '\r', '\u{1b}']),
        "{shell}"
    );
}

#[test]
fn presets_are_their_creators_full_crud_and_bad_input_leaves_nothing() {
    let w = world();
    let good =
        json!({ "name": "fast", "harnessId": "shell", "env": { "A_B": "1" }, "flags": ["--norc"] });
    let r = w.as_admin("POST", "/api/presets", Some(good.clone()));
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(r.json()["env"]["A_B"], "1");
    for bad in [
        json!({ "name": "x", "env": { "1BAD": "v" } }),
        json!({ "name": "x", "env": { "A": "v\u{0}" } }),
        json!({ "name": "", "flags": [] }),
        json!({ "name": "x", "flags": vec!["-x"; 33] }),
        json!({ "name": "x", "harnessId": "nope" }),
        json!({ "name": "x", "unknown": true }),
    ] {
        let r = w.as_admin("POST", "/api/presets", Some(bad.clone()));
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{bad}");
    }
    let r = w.as_admin("GET", "/api/presets", None);
    assert_eq!(r.json().as_array().unwrap().len(), 1, "{}", r.text());
    // Replace, read back.
    let r = w.as_admin(
        "PUT",
        &format!("/api/presets/{id}"),
        Some(json!({ "name": "renamed", "autoRestart": true })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = w.as_admin("GET", &format!("/api/presets/{id}"), None);
    assert_eq!(r.json()["name"], "renamed");
    assert_eq!(r.json()["autoRestart"], true);
    assert_eq!(r.json()["flags"], json!([]));
    // Another caller (the system account) does not see it; it is not revealed.
    let r = w.as_bearer(&w.key, "GET", &format!("/api/presets/{id}"), None);
    assert_eq!(r.error(404), "NOT_FOUND");
    let r = w.as_bearer(
        &w.key,
        "POST",
        "/api/subshells",
        Some(json!({ "nodeId": w.node.node_id, "harnessId": "shell", "presetId": id, "cwd": w.node.work.to_string_lossy() })),
    );
    assert_eq!(r.error(404), "NOT_FOUND");
    let r = w.as_admin("DELETE", &format!("/api/presets/{id}"), None);
    assert!(r.status == 200 || r.status == 204, "{}", r.text());
    let r = w.as_admin("GET", &format!("/api/presets/{id}"), None);
    assert_eq!(r.error(404), "NOT_FOUND");
}

#[test]
fn a_workspace_starts_its_pane_in_its_directory_and_one_on_another_node_is_refused() {
    let w = world();
    let dir = w.node.work.join("project");
    std::fs::create_dir_all(&dir).unwrap();
    let r = w.as_bearer(
        &w.key,
        "POST",
        "/api/workspaces",
        Some(json!({ "name": "project", "nodeId": w.node.node_id, "path": dir.to_string_lossy() })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let ws = r.json()["id"].as_str().unwrap().to_owned();
    for bad in [
        json!({ "name": "rel", "nodeId": w.node.node_id, "path": "relative/dir" }),
        json!({ "name": "nul", "nodeId": w.node.node_id, "path": "/tmp/a\u{0}b" }),
        json!({ "name": "", "nodeId": w.node.node_id, "path": "/tmp" }),
    ] {
        let r = w.as_bearer(&w.key, "POST", "/api/workspaces", Some(bad.clone()));
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{bad}");
    }
    let r = w.as_bearer(
        &w.key,
        "POST",
        "/api/workspaces",
        Some(json!({ "name": "x", "nodeId": "00000000000000000000000000000000", "path": "/tmp" })),
    );
    assert_eq!(r.error(404), "NOT_FOUND");
    let r = w.as_bearer(&w.key, "GET", "/api/workspaces", None);
    assert_eq!(r.json().as_array().unwrap().len(), 1, "{}", r.text());

    let r = w.as_bearer(
        &w.key,
        "POST",
        "/api/subshells",
        Some(json!({ "nodeId": w.node.node_id, "harnessId": "shell", "workspaceId": ws })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let s = r.json();
    assert_eq!(s["cwd"], dir.to_string_lossy().as_ref());
    assert_eq!(s["workspaceId"], ws.as_str());
    let id = s["id"].as_str().unwrap().to_owned();
    w.type_line(&id, "pwd");
    w.wait_screen(&id, &dir.to_string_lossy());

    // A workspace of another node: refused, naming the field, nothing kept.
    let (_, setup) = w.p.setup_key(&w.admin);
    let r = w.p.enroll(&setup, "elsewhere");
    assert_eq!(r.status, 201, "{}", r.text());
    let other = r.json()["nodeId"].as_str().unwrap().to_owned();
    let r = w.as_admin(
        "POST",
        "/api/workspaces",
        Some(json!({ "name": "far", "nodeId": other, "path": "/srv" })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let far = r.json()["id"].as_str().unwrap().to_owned();
    let before = w.as_admin("GET", "/api/subshells", None).json();
    let r = w.as_admin(
        "POST",
        "/api/subshells",
        Some(json!({ "nodeId": w.node.node_id, "harnessId": "shell", "workspaceId": far })),
    );
    assert_eq!(r.error(409), "REFERENCE_MISMATCH");
    assert_eq!(r.json()["metadata"]["field"], "workspaceId");
    assert_eq!(w.as_admin("GET", "/api/subshells", None).json(), before);
}

#[test]
fn waiting_for_a_pane_to_end_is_woken_by_its_end_and_bounded_by_its_deadline() {
    let w = world();
    let id = w.launch_with(json!({}))["id"].as_str().unwrap().to_owned();
    let ended = |query: &str| {
        w.as_bearer(
            &w.key,
            "GET",
            &format!("/api/subshells/{id}/ended?{query}"),
            None,
        )
    };
    // Still running at the deadline: answered as it is then.
    let r = ended("waitMs=0");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["state"], "running");
    for bad in ["waitMs=25001", "waitMs=-1", "waitMs=soon", "until=ended"] {
        assert_eq!(ended(bad).error(400), "INPUT_VALIDATION_ERROR", "{bad}");
    }
    let r = w.as_bearer(&w.key, "GET", "/api/subshells/nope/ended", None);
    assert_eq!(r.error(404), "NOT_FOUND");
    // A waiter of 25 s is answered when the pane ends, not at its deadline.
    std::thread::scope(|s| {
        let waiter = s.spawn(|| {
            let t = std::time::Instant::now();
            let r = ended("waitMs=25000");
            (t.elapsed(), r)
        });
        let r = w.as_bearer(&w.key, "POST", &format!("/api/subshells/{id}/kill"), None);
        assert_eq!(r.status, 200, "{}", r.text());
        let (took, r) = waiter.join().unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["state"], "stopped");
        assert!(
            took < Duration::from_secs(20),
            "answered at the deadline ({took:?}), not woken by the end"
        );
    });
    // Ended: answered at once, whatever the wait asked.
    assert_eq!(ended("waitMs=25000").json()["state"], "stopped");
}

#[test]
fn resize_changes_the_panes_grid_and_kill_ends_it_at_once() {
    let w = world();
    let s = w.launch_with(json!({ "cols": 100, "rows": 30 }));
    let id = s["id"].as_str().unwrap().to_owned();
    let target = format!("tp-{id}");
    assert_eq!(
        w.node
            .tmux_query(&target, "#{window_width}x#{window_height}"),
        "100x30"
    );
    let r = w.as_bearer(
        &w.key,
        "POST",
        &format!("/api/subshells/{id}/resize"),
        Some(json!({ "cols": 132, "rows": 43 })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        w.node
            .tmux_query(&target, "#{window_width}x#{window_height}"),
        "132x43"
    );
    let v = w.get(&id);
    assert_eq!(
        (v["cols"].clone(), v["rows"].clone()),
        (json!(132), json!(43))
    );
    for bad in [
        json!({ "cols": 0, "rows": 10 }),
        json!({ "cols": 10, "rows": 100000 }),
    ] {
        let r = w.as_bearer(
            &w.key,
            "POST",
            &format!("/api/subshells/{id}/resize"),
            Some(bad.clone()),
        );
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{bad}");
    }
    assert_eq!(w.get(&id)["cols"], 132);

    let r = w.as_bearer(&w.key, "POST", &format!("/api/subshells/{id}/kill"), None);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = w.get(&id);
    assert_eq!(v["state"], "stopped", "{v}");
    let out = std::process::Command::new("tmux")
        .arg("-S")
        .arg(w.node.socket())
        .args(["has-session", "-t", &target])
        .output()
        .unwrap();
    assert!(!out.status.success(), "the pane outlived kill");
    // Typing into a stopped pane is refused, not queued.
    let r = w.as_bearer(
        &w.key,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(json!({ "text": "x" })),
    );
    assert_eq!(r.error(409), "SUBSHELL_NOT_RUNNING");
}

#[test]
fn a_long_paste_is_split_into_ordered_pieces_and_arrives_whole() {
    let w = world();
    let s = w.launch_with(json!({}));
    let id = s["id"].as_str().unwrap().to_owned();
    let out = w.node.work.join("paste.txt");
    w.type_line(&id, &format!("stty -echo; cat > {}", out.display()));
    // The shell has opened the file for `cat`: it reads no more of the line, `cat` reads what
    // follows.
    wait("cat to start", || out.exists().then_some(()));
    // 200 lines of 80 characters with multi-byte characters spread through them (so piece
    // boundaries fall inside and beside them): about 19 KiB, several input pieces.
    let mut text = String::new();
    for i in 0..200 {
        let line: String = (0..80)
            .map(|j| match (i * 80 + j) % 7 {
                0 => 'é',
                1 => '€',
                2 => '字',
                _ => char::from(b'a' + u8::try_from((i + j) % 26).unwrap()),
            })
            .collect();
        text.push_str(&line);
        text.push('\n');
    }
    assert!(text.len() > 3 * termplane::service::INPUT_PIECE_BYTES);
    let r = w.as_bearer(
        &w.key,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(json!({ "text": text, "keys": ["ctrl-d"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let got = wait("the whole paste in the file", || {
        let got = std::fs::read_to_string(&out).ok()?;
        (got.len() >= text.len()).then_some(got)
    });
    assert_eq!(got, text);
}

#[test]
fn text_and_enter_sent_together_reach_the_program_in_separate_reads() {
    // A program that reads its terminal raw, half a second after it last did (busy, as a CLI
    // that renders or starts up), and shows what each read returned: an agent CLI takes text
    // and Enter that arrive in one read for a paste, and does not submit it.
    let w = world();
    let r = w.as_bearer(
        &w.key,
        "POST",
        "/api/presets",
        Some(json!({
            "name": "raw reader",
            "harnessId": "shell",
            "flags": ["-c", "exec python3 -c 'import os, time, tty; tty.setraw(0); os.write(1, b\"ready\\r\\n\"); [(time.sleep(0.5), os.write(1, repr(os.read(0, 4096)).encode() + b\"\\r\\n\")) for _ in range(9)]'"],
        })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let s = w.launch_with(json!({ "presetId": r.json()["id"] }));
    let id = s["id"].as_str().unwrap().to_owned();
    w.wait_screen(&id, "ready");
    w.type_line(&id, "hello there");
    let screen = w.wait_screen(&id, "b'\\r'");
    assert!(screen.contains("b'hello there'"), "{screen}");
    assert!(!screen.contains("there\\r"), "{screen}");
}

#[test]
fn a_command_over_the_links_envelope_is_refused_before_dispatch() {
    let w = world();
    let s = w.launch_with(json!({}));
    let id = s["id"].as_str().unwrap().to_owned();
    let r = w.as_admin(
        "POST",
        &format!("/api/nodes/{}/commands", w.node.node_id),
        Some(json!({ "type": "input", "subshellId": id, "data": "y".repeat(60 * 1024) })),
    );
    assert_eq!(r.error(413), "COMMAND_TOO_LARGE");
    // Keys typed after it reach the pane after anything it could have typed.
    w.type_line(&id, "echo after-$((40+2))");
    wait("the later keys", || {
        w.screen(&id).contains("after-42").then_some(())
    });
    assert!(!w.screen(&id).contains("yyyy"), "the command ran");
}

#[test]
fn the_list_filters_by_node_harness_and_state() {
    let w = world();
    let a = w.launch_with(json!({}))["id"].as_str().unwrap().to_owned();
    let b = w.launch_with(json!({}))["id"].as_str().unwrap().to_owned();
    let r = w.as_bearer(&w.key, "POST", &format!("/api/subshells/{b}/kill"), None);
    assert_eq!(r.status, 200, "{}", r.text());
    let ids = |q: &str| -> Vec<String> {
        let r = w.as_bearer(&w.key, "GET", &format!("/api/subshells{q}"), None);
        assert_eq!(r.status, 200, "{q}: {}", r.text());
        let mut v: Vec<String> = r
            .json()
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect();
        v.sort();
        v
    };
    let mut both = vec![a.clone(), b.clone()];
    both.sort();
    assert_eq!(ids(""), both);
    assert_eq!(ids("?state=running"), vec![a.clone()]);
    assert_eq!(ids("?state=stopped"), vec![b.clone()]);
    assert_eq!(ids(&format!("?nodeId={}", w.node.node_id)), both);
    assert_eq!(ids("?harnessId=shell&state=running"), vec![a]);
    assert_eq!(ids("?harnessId=codex"), Vec::<String>::new());
    let r = w.as_bearer(&w.key, "GET", "/api/subshells?state=sleeping", None);
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
}

#[test]
fn a_panes_own_token_self_reports_only_on_its_own_row_and_types_only_within_its_ceiling() {
    let w = world();
    let reader = w.launch_with(json!({}))["id"].as_str().unwrap().to_owned();
    let writer = w
        .launch_with(json!({ "permissions": { "channels": "read", "subshells": "write" } }))["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let reader_token = w.token_of(&reader);
    let writer_token = w.token_of(&writer);

    // Self-reports: only the pane's own token, on its own row.
    let attention = |token: &str, id: &str| {
        w.as_bearer(
            token,
            "POST",
            &format!("/api/subshells/{id}/attention"),
            Some(json!({ "attention": "done" })),
        )
    };
    assert_eq!(
        attention(&reader_token, &writer).error(403),
        "NOT_OWN_SUBSHELL"
    );
    let r = attention(&w.key, &reader);
    assert_eq!(r.status, 403, "{}", r.text());
    let r = w.as_admin(
        "POST",
        &format!("/api/subshells/{reader}/attention"),
        Some(json!({ "attention": "done" })),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(w.get(&reader)["attention"], "none");
    let r = attention(&reader_token, &reader);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(w.get(&reader)["attention"], "done");
    let r = w.as_bearer(
        &reader_token,
        "PUT",
        &format!("/api/subshells/{reader}/session"),
        Some(json!({ "harnessSessionId": "s-1" })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(w.get(&reader)["harnessSessionId"], "s-1");

    // The ceiling: `subshells: read` reads but does not type, resize, restart or stop.
    let r = w.as_bearer(
        &reader_token,
        "GET",
        &format!("/api/subshells/{writer}"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    for (path, body) in [
        (
            format!("/api/subshells/{writer}/input"),
            json!({ "text": "x" }),
        ),
        (
            format!("/api/subshells/{writer}/resize"),
            json!({ "cols": 50, "rows": 20 }),
        ),
        (format!("/api/subshells/{writer}/restart"), Value::Null),
        (format!("/api/subshells/{writer}/terminate"), Value::Null),
    ] {
        let r = w.as_bearer(&reader_token, "POST", &path, Some(body));
        assert_eq!(r.error(403), "PERMISSION_DENIED", "{path}");
    }
    assert_eq!(w.get(&writer)["state"], "running");
    // `subshells: write` types into another pane of its owner.
    let r = w.as_bearer(
        &writer_token,
        "POST",
        &format!("/api/subshells/{reader}/input"),
        Some(json!({ "text": "echo from-a-pane-$((2*21))", "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    w.wait_screen(&reader, "from-a-pane-42");
    // Neither reaches an administrator's surface.
    for t in [&reader_token, &writer_token] {
        let r = w.as_bearer(t, "GET", "/api/audit", None);
        assert_eq!(r.status, 403, "{}", r.text());
        let r = w.as_bearer(t, "POST", "/api/system-keys", Some(json!({ "name": "x" })));
        assert_eq!(r.status, 403, "{}", r.text());
    }
}

#[test]
fn a_folder_picker_lists_subdirectories_through_the_nodes_policy() {
    let w = world();
    for d in ["b", "a", ".hidden", "a/inner"] {
        std::fs::create_dir_all(w.node.work.join(d)).unwrap();
    }
    std::fs::write(w.node.work.join("file.txt"), "x").unwrap();
    let dirs = |q: &str| {
        w.as_bearer(
            &w.key,
            "GET",
            &format!("/api/nodes/{}/dirs{q}", w.node.node_id),
            None,
        )
    };
    let work = w.node.work.to_string_lossy().into_owned();
    let enc = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let r = dirs(&format!("?path={}", enc(&work)));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["path"], work.as_str());
    let names: Vec<&str> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"], "directories only, not hidden, sorted");
    assert_eq!(v["truncated"], false);
    // No path: the node's home directory.
    let r = dirs("");
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["path"].as_str().unwrap().starts_with('/'));
    // A relative path is refused before the node is asked; a missing one by the node.
    assert_eq!(dirs("?path=relative").error(400), "INPUT_VALIDATION_ERROR");
    let missing = format!("{work}/nope");
    assert_eq!(
        dirs(&format!("?path={}", enc(&missing))).error(409),
        "NODE_REFUSED"
    );
    // A node that is not connected.
    let (_, setup) = w.p.setup_key(&w.admin);
    let r = w.p.enroll(&setup, "elsewhere");
    let other = r.json()["nodeId"].as_str().unwrap().to_owned();
    let r = w.as_admin("GET", &format!("/api/nodes/{other}/dirs"), None);
    assert_eq!(r.error(409), "NODE_OFFLINE");
}

/// Catalogue 75, a pane's token: used on another pane, minting a child above its ceiling, an
/// action outside its ceiling, and used after its pane is deleted; each refusal leaves nothing
/// behind.
#[test]
fn e75_a_panes_token_keeps_to_its_pane_and_ceiling_and_dies_with_its_pane() {
    let w = world();
    let parent = w
        .launch_with(json!({ "permissions": { "channels": "read", "subshells": "write" } }))["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let other = w.launch_with(json!({}))["id"].as_str().unwrap().to_owned();
    let token = w.token_of(&parent);
    let rows = || {
        let r = w.as_bearer(&w.key, "GET", "/api/subshells", None);
        assert_eq!(r.status, 200, "{}", r.text());
        r.json().as_array().unwrap().len()
    };
    let channels = || {
        let r = w.as_admin("GET", "/api/channels", None);
        assert_eq!(r.status, 200, "{}", r.text());
        r.json().to_string()
    };

    // On another pane: its self-reports and an attach token for it are refused.
    let r = w.as_bearer(
        &token,
        "POST",
        &format!("/api/subshells/{other}/attention"),
        Some(json!({ "attention": "done" })),
    );
    assert_eq!(r.error(403), "NOT_OWN_SUBSHELL");
    assert_eq!(w.get(&other)["attention"], "none");
    let r = w.as_bearer(
        &token,
        "PUT",
        &format!("/api/subshells/{other}/session"),
        Some(json!({ "harnessSessionId": "stolen" })),
    );
    assert_eq!(r.error(403), "NOT_OWN_SUBSHELL");
    assert!(w.get(&other)["harnessSessionId"].is_null());
    let r = w.as_bearer(
        &token,
        "POST",
        "/api/auth/ws-token",
        Some(json!({ "subshellId": other })),
    );
    assert_eq!(r.status, 403, "{}", r.text());

    // A child above the ceiling (channels: write over read): refused, no row, no pane.
    let before = rows();
    let launch = |permissions: Value| {
        w.as_bearer(
            &token,
            "POST",
            "/api/subshells",
            Some(json!({
                "nodeId": w.node.node_id, "harnessId": "shell",
                "cwd": w.node.work.to_string_lossy(), "permissions": permissions,
            })),
        )
    };
    let r = launch(json!({ "channels": "write", "subshells": "read" }));
    assert_eq!(r.error(403), "PERMISSION_DENIED");
    assert_eq!(rows(), before);
    // Within it, the same launch goes through and the child names its parent.
    let r = launch(json!({ "channels": "read", "subshells": "write" }));
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["parentSubshellId"], parent.as_str());
    assert_eq!(rows(), before + 1);

    // An action outside the ceiling (creating a channel needs channels: write): refused, and
    // no channel appears.
    let seen = channels();
    let r = w.as_bearer(
        &token,
        "POST",
        "/api/channels",
        Some(json!({ "name": "from-a-reader" })),
    );
    assert_eq!(r.error(403), "PERMISSION_DENIED");
    assert_eq!(channels(), seen);

    // It opens no node link, and is told why.
    let r =
        w.p.get("/ws/node")
            .bearer(&token)
            .header("Upgrade", "websocket")
            .header("Connection", "Upgrade")
            .header("Sec-WebSocket-Version", "13")
            .header("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
            .send();
    assert_eq!(r.error(401), "NODE_KEY_WRONG_KIND");
    assert!(r.text().contains("a subshell's token"), "{}", r.text());

    // After its pane is deleted: 401 wherever it is presented.
    let log = w
        .node
        .exec
        .log_path(&termplane_proto::SubshellId::parse(&parent).unwrap());
    assert!(log.exists(), "{}", log.display());
    let r = w.as_admin("DELETE", &format!("/api/subshells/{parent}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    // What it printed goes with it: the node forgets its pane log.
    termplane_test_support::wait_until(
        "the log to go with its subshell",
        std::time::Duration::from_secs(10),
        || (!log.exists()).then_some(()),
    );
    for (method, path) in [
        ("GET", "/api/subshells".to_owned()),
        ("GET", format!("/api/subshells/{other}")),
        ("POST", format!("/api/subshells/{parent}/attention")),
    ] {
        let body = (method == "POST").then(|| json!({ "attention": "done" }));
        let r = w.as_bearer(&token, method, &path, body);
        assert_eq!(r.status, 401, "{method} {path}: {}", r.text());
    }
}

#[test]
fn a_restart_during_a_stops_grace_is_not_killed_by_that_stop() {
    let w = world();
    let id = w.launch_with(json!({}))["id"].as_str().unwrap().to_owned();
    // The pane ignores Ctrl-C, so the stop waits out its grace before it kills.
    w.type_line(&id, "trap '' INT; echo trap-$((6*7))");
    w.wait_screen(&id, "trap-42");
    let (stopped, restarted) = std::thread::scope(|s| {
        let stop = s.spawn(|| w.as_admin("POST", &format!("/api/subshells/{id}/terminate"), None));
        // The restart comes once the stop has typed its Ctrl-C and waits out its grace (the
        // row reads `stopping`), well before that grace (3 s) is over.
        wait("the stop to begin (the row `stopping`)", || {
            (w.get(&id)["state"] == "stopping").then_some(())
        });
        let restarted = w.as_admin("POST", &format!("/api/subshells/{id}/restart"), None);
        (stop.join().unwrap(), restarted)
    });
    // The restart takes over: it answers 200 with the new pane running.
    assert_eq!(restarted.status, 200, "{}", restarted.text());
    // The stop ended when it found the row restarted, and says it did not happen (409): it
    // killed nothing.
    assert_eq!(stopped.status, 409, "{}", stopped.text());
    assert!(
        stopped.text().contains("restarted while this stop waited"),
        "{}",
        stopped.text()
    );
    // The stop is over (it answered), and the new pane runs on: nothing of the stop is left
    // to kill it.
    assert_eq!(w.get(&id)["state"], "running", "{}", w.get(&id));
    w.type_line(&id, "echo alive-$((6*7))");
    w.wait_screen(&id, "alive-42");
}

#[test]
fn a_restart_and_a_delete_at_once_leave_no_pane_behind() {
    let w = world();
    let pane_of = |id: &str| {
        std::process::Command::new("tmux")
            .arg("-S")
            .arg(w.node.socket())
            .args(["has-session", "-t", &format!("=tp-{id}")])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    // Bounded: eight rounds, each within the waits below.
    for round in 0..8 {
        let id = w.launch_with(json!({}))["id"].as_str().unwrap().to_owned();
        assert_eq!(w.get(&id)["state"], "running");
        let (restarted, deleted) = std::thread::scope(|s| {
            let restart =
                s.spawn(|| w.as_admin("POST", &format!("/api/subshells/{id}/restart"), None));
            // The restart gets a head start of a few milliseconds, as in the rounds that
            // failed: the delete lands while the relaunch is on its way.
            std::thread::sleep(std::time::Duration::from_millis(2 * (round % 4)));
            let deleted = w.as_admin("DELETE", &format!("/api/subshells/{id}"), None);
            (restart.join().unwrap(), deleted)
        });
        assert_eq!(deleted.status, 204, "{}", deleted.text());
        assert!(
            [200, 404].contains(&restarted.status),
            "round {round}: {} {}",
            restarted.status,
            restarted.text()
        );
        let r = w.as_admin("GET", &format!("/api/subshells/{id}"), None);
        assert_eq!(r.status, 404, "round {round}: {}", r.text());
        wait(
            &format!("round {round}: the pane of the deleted subshell {id} to go"),
            || (!pane_of(&id)).then_some(()),
        );
        // And it stays gone (a launch on its way does not bring it back).
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(!pane_of(&id), "round {round}: a pane came back for {id}");
    }
}

#[test]
fn the_local_node_reads_offline_while_the_plane_runs_no_panes_on_its_host() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let local = |p: &Plane| {
        p.call(&admin, "GET", "/api/nodes", None)
            .json()
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["isLocal"] == true)
            .unwrap()
            .clone()
    };
    // As a plane started with --no-local-node (or without tmux): launches there are refused,
    // and the node list says so.
    assert_eq!(local(&p)["liveness"], "offline");
    let _node = common::local::attach(&p);
    assert_eq!(local(&p)["liveness"], "online");
}

#[test]
fn the_node_list_says_where_each_caller_may_launch_and_launches_agree() {
    let w = world();
    w.p.create_user(&w.admin, "person@example.com", "user");
    let person = w.p.sign_in("person@example.com", common::PASSWORD);
    let (_, setup) = w.p.setup_key(&person);
    let r = w.p.enroll(&setup, "persons-box");
    assert_eq!(r.status, 201, "{}", r.text());
    let own = r.json()["nodeId"].as_str().unwrap().to_owned();
    let can_launch = |r: Resp| -> Vec<(String, bool)> {
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n["nodeId"].as_str().unwrap().to_owned(),
                    n["canLaunch"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    let local = w.node.node_id.clone();
    // A person who is not an administrator: the local node is listed, but not theirs to use.
    assert_eq!(
        can_launch(w.p.call(&person, "GET", "/api/nodes", None)),
        [(local.clone(), false), (own.clone(), true)]
    );
    // An administrator may launch anywhere; a script on the local node.
    assert_eq!(
        can_launch(w.as_admin("GET", "/api/nodes", None)),
        [(local.clone(), true), (own.clone(), true)]
    );
    assert_eq!(
        can_launch(w.as_bearer(&w.key, "GET", "/api/nodes", None)),
        [(local.clone(), true)]
    );
    let r =
        w.p.call(&person, "GET", &format!("/api/nodes/{local}"), None);
    assert_eq!(r.json()["canLaunch"], false, "{}", r.text());
    // The launch and the harness check refuse what the list calls not launchable.
    let body =
        json!({ "nodeId": local, "harnessId": "shell", "cwd": w.node.work.to_string_lossy() });
    let r = w.p.call(&person, "POST", "/api/subshells", Some(body));
    assert_eq!(r.error(403), "NODE_NOT_ALLOWED");
    let r = w.p.call(
        &person,
        "GET",
        &format!("/api/nodes/{local}/harnesses"),
        None,
    );
    assert_eq!(r.error(403), "NODE_NOT_ALLOWED");
    let r = w.as_admin("GET", "/api/subshells", None);
    assert_eq!(r.json(), json!([]), "a refused launch left a row");
}

#[test]
fn a_launch_the_node_refuses_for_its_directory_names_the_directory_field() {
    let w = world();
    let missing = w.node.work.join("not-there");
    let body =
        json!({ "nodeId": w.node.node_id, "harnessId": "shell", "cwd": missing.to_string_lossy() });
    let r = w.as_bearer(&w.key, "POST", "/api/subshells", Some(body));
    assert_eq!(r.error(422), "LAUNCH_REFUSED");
    let v = r.json();
    assert_eq!(v["metadata"]["field"], "cwd", "{v}");
    let reason = v["metadata"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(&format!("{}:", missing.to_string_lossy())),
        "{reason}"
    );
    let r = w.as_bearer(&w.key, "GET", "/api/subshells", None);
    assert_eq!(r.json(), json!([]), "a refused launch left a row");
    // The same launch once the directory is there.
    std::fs::create_dir_all(&missing).unwrap();
    let body =
        json!({ "nodeId": w.node.node_id, "harnessId": "shell", "cwd": missing.to_string_lossy() });
    let r = w.as_bearer(&w.key, "POST", "/api/subshells", Some(body));
    assert_eq!(r.status, 201, "{}", r.text());
}

#[test]
fn a_harness_version_is_shown_as_its_number_beside_the_line_it_printed() {
    let w = world();
    let r = w.as_admin(
        "GET",
        &format!("/api/nodes/{}/harnesses?refresh=true", w.node.node_id),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let listed = r.json();
    let shell = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["harnessId"] == "shell")
        .unwrap();
    let line = shell["version"].as_str().unwrap();
    let number = shell["versionNumber"].as_str().unwrap();
    // `GNU bash, version 5.2.15(1)-release (…)` → `5.2.15`: dotted digits, found in the line.
    assert!(line.contains(number), "{shell}");
    assert!(
        number.split('.').count() >= 2
            && number
                .split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())),
        "{shell}"
    );
}

#[test]
fn a_restart_goes_on_when_the_killed_panes_exit_is_recorded_before_the_kill_answers() {
    // A node announces a pane's death as soon as it sees it: the `exit` of the pane a restart
    // kills can be recorded (the row moves from `stopping` to `stopped`) before the kill's
    // answer reaches the restart. The restart still starts the pane again.
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = common::node::enroll(&p, &admin, "exits-early", false);
    let (release, go_on) = smol::channel::unbounded();
    let panes = common::node::Panes {
        exit_before_kill_answer: Some(go_on),
        ..common::node::Panes::default()
    };
    let mut node = common::node::TestNode::start_panes(&p, &e, panes.clone());
    node.wait_established();
    common::node::wait_liveness(&p, &e.node_id, "online");
    let r = p.call(
        &admin,
        "POST",
        "/api/subshells",
        Some(json!({ "nodeId": e.node_id, "harnessId": "shell", "cwd": "/home/node" })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let state = || {
        p.call(&admin, "GET", &format!("/api/subshells/{id}"), None)
            .json()["state"]
            .clone()
    };
    assert_eq!(state(), "running");
    let restarted = std::thread::scope(|s| {
        let restart = s.spawn(|| {
            p.call(
                &admin,
                "POST",
                &format!("/api/subshells/{id}/restart"),
                None,
            )
        });
        // The kill's `exit` is recorded first; only then does the node answer the kill.
        termplane_test_support::wait_until(
            "the killed pane's exit to be recorded",
            Duration::from_secs(20),
            || (state() == "stopped").then_some(()),
        );
        release.try_send(()).unwrap();
        restart.join().unwrap()
    });
    assert_eq!(restarted.status, 200, "{}", restarted.text());
    assert_eq!(restarted.json()["state"], "running", "{}", restarted.text());
    assert!(
        panes.alive.lock().unwrap().contains(&id),
        "the pane was not launched again"
    );
}

/// The `subshell.agent_state` audit entries on `id`, oldest first: `(from, to, source)`.
fn agent_transitions(w: &World, id: &str) -> Vec<(String, String, String)> {
    let r = w.as_admin("GET", &format!("/api/audit?target={id}&limit=500"), None);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let mut out: Vec<(String, String, String)> = v
        .as_array()
        .or_else(|| v["entries"].as_array())
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "subshell.agent_state")
        .map(|e| {
            let d = &e["detail"];
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_owned();
            (s("from"), s("to"), s("source"))
        })
        .collect();
    out.reverse();
    out
}

#[test]
fn a_panes_agent_state_follows_its_own_reports_in_order_and_only_transitions_are_audited() {
    let w = world();
    let id = w.launch_with(json!({}))["id"].as_str().unwrap().to_owned();
    let other = w.launch_with(json!({}))["id"].as_str().unwrap().to_owned();
    let token = w.token_of(&id);
    let other_token = w.token_of(&other);
    // Running: before any report, the pane's screen speaks (its node saw it go quiet): a
    // shell whose foreground program is the shell itself waits at its prompt.
    let agent = |w: &World| w.get(&id)["agent"].clone();
    let a = wait("the screen's word", || {
        let a = agent(&w);
        (a["source"] == "screen").then_some(a)
    });
    assert_eq!(
        (a["state"].as_str(), a["summary"].as_str()),
        (Some("idle"), Some("at its prompt")),
        "{a}"
    );
    let report = |token: &str, body: Value| {
        w.as_bearer(
            token,
            "POST",
            &format!("/api/subshells/{id}/status"),
            Some(body),
        )
    };
    let now = w.get(&id)["updatedAt"].as_i64().unwrap();

    let r = report(
        &token,
        json!({ "state": "working", "summary": "reading the code", "source": "hook", "observedAt": now }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let a = r.json()["agent"].clone();
    assert_eq!(a["state"], "working", "{a}");
    assert_eq!(a["source"], "hook", "{a}");
    assert_eq!(a["summary"], "reading the code", "{a}");
    let since = a["since"].as_i64().unwrap();

    // The same state again: a new summary and link, the same time entered, no audit entry.
    let r = report(
        &token,
        json!({ "state": "working", "summary": "running the tests", "link": "https://ci.example/run/7", "observedAt": now + 10 }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let a = agent(&w);
    assert_eq!(a["summary"], "running the tests", "{a}");
    assert_eq!(a["link"], "https://ci.example/run/7", "{a}");
    assert_eq!(a["source"], "self_report", "{a}");
    assert_eq!(a["since"].as_i64().unwrap(), since, "{a}");

    // Refused, each changing nothing: a report observed before the newest one; a time a day
    // away; a link that is not http(s); a summary over a line; another pane's token; a script.
    let before = agent(&w);
    let r = report(&token, json!({ "state": "idle", "observedAt": now + 5 }));
    assert_eq!(r.error(409), "STALE_REPORT");
    assert_eq!(r.json()["metadata"]["latestObservedAt"], now + 10);
    let r = report(
        &token,
        json!({ "state": "idle", "observedAt": now + 2 * 86_400_000 }),
    );
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
    assert_eq!(r.json()["metadata"]["field"], "observedAt");
    for bad in [
        json!({ "state": "idle", "link": "javascript:alert(1)" }),
        json!({ "state": "idle", "link": "file:///etc/passwd" }),
        json!({ "state": "idle", "summary": "two\nlines" }),
        json!({ "state": "idle", "summary": "x".repeat(201) }),
        json!({ "state": "unknown" }),
        json!({ "state": "idle", "source": "lifecycle" }),
    ] {
        let r = report(&token, bad.clone());
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{bad}");
    }
    assert_eq!(
        report(&other_token, json!({ "state": "idle" })).error(403),
        "NOT_OWN_SUBSHELL"
    );
    assert_eq!(report(&w.key, json!({ "state": "idle" })).status, 403);
    assert_eq!(agent(&w), before);

    // Blocked on a person: the badge says so, and the owner's live feed hears of it.
    let mut feed = common::live_feed(&w.p, &w.admin);
    let r = report(
        &token,
        json!({ "state": "needs_input", "summary": "may I delete build/?" }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(w.get(&id)["status"], "needs_attention");
    loop {
        let f = common::next_frame_of(&mut feed, "subshell");
        if f["subshell"]["id"] == id.as_str() && f["subshell"]["agent"]["state"] == "needs_input" {
            assert_eq!(
                f["subshell"]["agent"]["summary"], "may I delete build/?",
                "{f}"
            );
            break;
        }
    }

    // A flood is refused once the pane's budget is spent, and the refused report changes
    // nothing.
    let mut refused = None;
    for i in 0..300 {
        let r = report(
            &token,
            json!({ "state": "needs_input", "summary": format!("again {i}") }),
        );
        if r.status == 429 {
            refused = Some((i, r));
            break;
        }
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let (i, r) = refused.expect("300 reports at once were all accepted");
    // Four reports came before the flood (the stale one counts: it was looked at).
    assert!(i + 4 >= 30, "refused after only {i}");
    assert!(r.header("retry-after").is_some());
    assert_eq!(r.error(429), "TOO_MANY_REPORTS");
    assert_eq!(agent(&w)["summary"], format!("again {}", i - 1));

    // The screen's word, then two transitions, each once, by the pane (the screen does not
    // override the pane's own word).
    assert_eq!(
        agent_transitions(&w, &id),
        [
            ("starting".into(), "idle".into(), "screen".into()),
            ("idle".into(), "working".into(), "hook".into()),
            ("working".into(), "needs_input".into(), "self_report".into()),
        ]
    );

    // Ended by a person: its lifecycle decides, and the revoked token reports nothing more.
    let r = w.as_bearer(&w.key, "POST", &format!("/api/subshells/{id}/kill"), None);
    assert_eq!(r.status, 200, "{}", r.text());
    let a = agent(&w);
    assert_eq!(
        (a["state"].as_str(), a["source"].as_str()),
        (Some("done"), Some("lifecycle")),
        "{a}"
    );
    assert_eq!(report(&token, json!({ "state": "working" })).status, 401);

    // A restart starts over: nothing of the ended pane's word is kept. The new shell's first
    // prompt may already have been seen (its node reports the printing pane with its
    // foreground program, which for a shell is its reading), so the state is the lifecycle's
    // (no word yet) or that new screen's, never the old reports'.
    let r = w.as_bearer(
        &w.key,
        "POST",
        &format!("/api/subshells/{id}/restart"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let a = r.json()["agent"].clone();
    match a["source"].as_str() {
        Some("none" | "lifecycle") => {
            assert!(
                ["starting", "unknown"].contains(&a["state"].as_str().unwrap()),
                "{a}"
            );
            assert!(a["summary"].is_null(), "{a}");
        }
        Some("screen") => assert_eq!(
            (a["state"].as_str(), a["summary"].as_str()),
            (Some("idle"), Some("at its prompt")),
            "{a}"
        ),
        _ => panic!("a restarted pane kept another's word: {a}"),
    }
    // Either way the new shell's screen has the last word.
    let a = wait("the new shell's screen", || {
        let a = agent(&w);
        (a["source"] == "screen").then_some(a)
    });
    assert_eq!(a["state"], "idle", "{a}");
}

/// A node speaks of its own panes only: its `activity` word about a pane it does not run (the
/// plane's own host's, here), whatever it says, changes nothing; word about its own panes that
/// the plane does not know changes nothing either.
#[test]
fn a_nodes_screen_word_about_a_pane_it_does_not_run_changes_nothing() {
    let w = world();
    let id = w.launch_with(json!({}))["id"].as_str().unwrap().to_owned();
    let agent = |w: &World| w.get(&id)["agent"].clone();
    let before = wait("the screen's word", || {
        let a = agent(&w);
        (a["source"] == "screen").then_some(a)
    });
    let e = common::node::enroll(&w.p, &w.admin, "forger", true);
    let mut n = common::node::TestNode::start(&w.p, &e, env!("CARGO_PKG_VERSION"));
    n.wait_established();
    common::node::wait_liveness(&w.p, &e.node_id, "online");
    let forged = |subshell: &str| {
        termplane_proto::Event::Activity(termplane_proto::event::Activity {
            subshell_id: termplane_proto::SubshellId::parse(subshell).unwrap(),
            active: false,
            at: "2026-01-01T00:00:00.000Z".into(),
            command: Some("vim".into()),
            screen: Some("Do you want to proceed?".into()),
        })
    };
    n.send(forged(&id));
    n.send(forged("0123456789abcdef0123456789abcdef"));
    // Events of one node are applied in order: once the inventory sent after them is recorded,
    // they have been applied.
    n.send(termplane_proto::Event::Inventory(
        termplane_proto::event::Inventory {
            harnesses: vec![],
            at: "after the forged ones".into(),
        },
    ));
    wait("the inventory sent after them", || {
        smol::block_on(w.p.svc.store().inventory(&e.node_id))
            .unwrap()
            .filter(|(text, _)| text.contains("after the forged ones"))
    });
    assert_eq!(agent(&w), before);
    let audited = w.as_admin("GET", &format!("/api/audit?target={id}&limit=100"), None);
    assert!(!audited.text().contains("vim"), "{}", audited.text());
}
