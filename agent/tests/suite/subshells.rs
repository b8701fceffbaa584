//! Subshells on a remote node, end to end with real processes on loopback: a `termplane serve`
//! plane, an enrolled `termplane-node run` with its own tmux server, and people and panes using
//! the plane's REST API.
//!
//! The harness binaries (`claude`, `codex`, `gemini`, `opencode`) are a stand-in script
//! (`support/harness_standin.py`, its docs say why) that loads the pane's MCP server the way
//! each harness does and drives it with the official Python MCP SDK's client — so these tests
//! check each harness's registration dialect, the MCP server and the pane token together, with
//! a real MCP client, from inside real panes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::support::{WAIT, World, http, wait_until};
use serde_json::{Value, json};

const NODE: &str = env!("CARGO_BIN_EXE_termplane-node");
const STANDIN: &str = include_str!("support/harness_standin.py");
/// The harness plugins with an MCP client, and their binaries' names.
const HARNESSES: [(&str, &str); 4] = [
    ("claude-code", "claude"),
    ("codex", "codex"),
    ("gemini", "gemini"),
    ("opencode", "opencode"),
];

/// The tools every pane's MCP server lists.
const TOOLS: [&str; 21] = [
    "create_channel",
    "delete_subshell",
    "launch_subshell",
    "list_channels",
    "list_files",
    "list_nodes",
    "list_subshells",
    "post_to_channel",
    "publish_file",
    "read_channel",
    "read_file",
    "read_log",
    "read_output",
    "report_attention",
    "report_session",
    "report_status",
    "restart_subshell",
    "run_command",
    "send_input",
    "stop_subshell",
    "terminate_subshell",
];

fn need(program: &str, check: &[&str]) {
    assert!(
        Command::new(program)
            .args(check)
            .output()
            .is_ok_and(|o| o.status.success()),
        "these tests need {program} {}",
        check.join(" ")
    );
}

/// A world whose node has the stand-in harnesses on its `PATH` (when `standins`).
fn world(tag: &str, standins: bool) -> World {
    need("tmux", &["-V"]);
    need("python3", &["-c", "import mcp.client.stdio"]);
    let mut w = World::new(tag, Path::new(NODE));
    if standins {
        let bin = install_standins(&w);
        let path = std::env::var("PATH").unwrap_or_default();
        w.node_env
            .push(("PATH".into(), format!("{}:{path}", bin.display())));
    }
    w.start_node();
    w.wait_online(WAIT);
    w
}

/// A world for the local node only: the plane (its local node on), no node daemon running; with
/// the stand-in harnesses on the plane's `PATH` when `standins`.
fn local_world(tag: &str, standins: bool) -> World {
    need("tmux", &["-V"]);
    need("python3", &["-c", "import mcp.client.stdio"]);
    let mut w = World::new(tag, Path::new(NODE));
    if standins {
        let bin = install_standins(&w);
        w.stop_plane();
        let path = std::env::var("PATH").unwrap_or_default();
        w.plane_env
            .push(("PATH".into(), format!("{}:{path}", bin.display())));
        w.start_plane();
    }
    w
}

/// Puts the stand-in harnesses in `<world>/harness-bin`; that directory.
fn install_standins(w: &World) -> PathBuf {
    let bin = w.dir.join("harness-bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (_, name) in HARNESSES {
        let p = bin.join(name);
        std::fs::write(&p, STANDIN).unwrap();
        let mut perm = std::fs::metadata(&p).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&p, perm).unwrap();
    }
    bin
}

/// The local node's id.
fn local_node(w: &World) -> String {
    let nodes = w.get("/api/nodes").json();
    nodes
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["isLocal"] == true)
        .unwrap_or_else(|| panic!("no local node in {nodes}"))["nodeId"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A request with `cookie` (and the plane's own `Origin` on writes).
fn call(
    w: &World,
    cookie: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> crate::support::Resp {
    let origin = w.base();
    let mut h = vec![("Cookie", cookie)];
    if method != "GET" {
        h.push(("Origin", origin.as_str()));
    }
    http(w.port, method, path, &h, body).unwrap()
}

/// A request with a bearer token (a pane's, or a system key).
fn bearer(
    w: &World,
    token: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> crate::support::Resp {
    let auth = format!("Bearer {token}");
    http(
        w.port,
        method,
        path,
        &[("Authorization", auth.as_str())],
        body,
    )
    .unwrap()
}

/// A second administrator, signed in: its cookie.
fn second_admin(w: &World) -> String {
    let r = w.post(
        "/api/users",
        &json!({ "email": "other@example.test", "displayName": "Other", "password": "another horse battery", "role": "admin" }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let r = http(
        w.port,
        "POST",
        "/api/auth/sign-in",
        &[("Origin", w.base().as_str())],
        Some(&json!({ "email": "other@example.test", "password": "another horse battery" })),
    )
    .unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    r.header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

/// Launches `harness` in `cwd` as the world's administrator; the subshell.
fn launch(w: &World, harness: &str, cwd: &Path) -> Value {
    launch_with(w, harness, cwd, &json!({}))
}

/// [`launch`] with more fields of the request.
fn launch_with(w: &World, harness: &str, cwd: &Path, more: &Value) -> Value {
    let mut body =
        json!({ "nodeId": w.node_id, "harnessId": harness, "cwd": cwd.display().to_string() });
    for (k, v) in more.as_object().unwrap() {
        body[k] = v.clone();
    }
    let r = w.post("/api/subshells", &body);
    assert_eq!(r.status, 201, "launch {harness}: {}", r.text());
    r.json()
}

fn subshell(w: &World, id: &str) -> Value {
    let r = w.get(&format!("/api/subshells/{id}"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

/// The subshell's warning (what its last launch could not do), if any.
fn now_warning(w: &World, id: &str) -> Option<String> {
    subshell(w, id)["warning"].as_str().map(str::to_owned)
}

/// Waits for the stand-in's report in `dir` and answers it (the file is removed, so a later
/// run of the pane writes a fresh one).
fn report(dir: &Path) -> Value {
    let v = read_report(dir);
    assert!(v.get("error").is_none(), "the stand-in failed: {v}");
    v
}

/// [`report`], failed or not.
fn read_report(dir: &Path) -> Value {
    let file = dir.join("standin-report.json");
    let v: Value = wait_until(
        &format!("the stand-in's report in {}", dir.display()),
        Duration::from_secs(90),
        || {
            std::fs::read(&file)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok())
        },
    );
    std::fs::remove_file(&file).unwrap();
    v
}

/// The pane's current screen text.
fn screen(w: &World, id: &str) -> String {
    let r = w.get(&format!("/api/subshells/{id}/screen?lines=50"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["text"].as_str().unwrap().to_owned()
}

/// The node's MCP registration file of a subshell.
fn registration_file(w: &World, id: &str) -> PathBuf {
    let dir = w.dir.join("xdg-data/termplane-node/mcp");
    ["json", "env", "js"]
        .iter()
        .map(|ext| dir.join(format!("{id}.{ext}")))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no MCP registration file for {id} in {}", dir.display()))
}

/// The node's MCP registration file of a subshell and the token in it.
fn registered_token(w: &World, id: &str) -> (PathBuf, String) {
    let p = registration_file(w, id);
    let text = std::fs::read_to_string(&p).unwrap();
    let token = text
        .split(['"', '\n', '='])
        .find(|s| s.starts_with("tp_"))
        .unwrap_or_else(|| panic!("no token in {}: {text}", p.display()))
        .to_owned();
    (p, token)
}

#[test]
fn every_harness_loads_its_mcp_server_in_its_own_dialect_and_acts_as_its_pane() {
    let w = world("mcp", true);
    // Another administrator's pane on the same node: the panes below must not reach it.
    let other = second_admin(&w);
    let foreign_dir = w.dir.join("work/foreign");
    std::fs::create_dir_all(&foreign_dir).unwrap();
    let r = call(
        &w,
        &other,
        "POST",
        "/api/subshells",
        Some(
            &json!({ "nodeId": w.node_id, "harnessId": "shell", "cwd": foreign_dir.display().to_string() }),
        ),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let foreign = r.json()["id"].as_str().unwrap().to_owned();
    // A channel of the panes' owner, which each pane posts to through its MCP server.
    let r = w.post("/api/channels", &json!({ "name": "coordination" }));
    assert_eq!(r.status, 201, "{}", r.text());
    let channel = r.json()["id"].as_str().unwrap().to_owned();

    // Gemini CLI loads a pane's server on a node such as this one (its data directory is in
    // a folder anyone may write to) only from the settings of a Gemini home the node keeps:
    // with config isolation.
    let r = w.post(
        "/api/presets",
        &json!({ "name": "isolated gemini", "harnessId": "gemini", "configIsolation": true }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let isolated = r.json()["id"].as_str().unwrap().to_owned();

    for (h, binary) in HARNESSES {
        let dir = w.dir.join("work").join(h);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("standin-plan.json"),
            json!({ "foreignId": foreign, "channelName": "coordination" }).to_string(),
        )
        .unwrap();
        // Claude Code's pane may write to its owner's subshells; the others have the default
        // ceiling (`subshells: read`).
        let writer = h == "claude-code";
        let mut more = if writer {
            json!({ "permissions": { "channels": "write", "subshells": "write" } })
        } else {
            json!({})
        };
        if h == "gemini" {
            more["presetId"] = json!(isolated);
        }
        let s = launch_with(&w, h, &dir, &more);
        let id = s["id"].as_str().unwrap().to_owned();
        let rep = report(&dir);
        assert_eq!(rep["subshellId"], id.as_str(), "{rep}");
        assert_eq!(rep["protocolVersion"], "2025-11-25", "{h}: {rep}");
        assert_eq!(rep["tools"], json!(TOOLS), "{h}: {rep}");
        // The registration: the node binary's `mcp`, credentials in the file (Codex's
        // overrides carry no secret: its server reads a 0600 env file).
        let reg = &rep["registration"];
        assert!(
            reg["command"].as_str().unwrap().ends_with("termplane-node"),
            "{h}: {reg}"
        );
        assert_eq!(reg["args"][0], "mcp", "{h}: {reg}");
        if h == "codex" || h == "gemini" {
            assert_eq!(reg["envKeys"], json!([]), "{reg}");
            assert_eq!(reg["args"][1], "--env-file", "{reg}");
            // Gemini's entry names the pane's own file through the pane's environment.
            let (file, _) = registered_token(&w, &id);
            assert_eq!(reg["args"][2], file.display().to_string().as_str(), "{reg}");
        } else {
            assert!(
                reg["envKeys"]
                    .as_array()
                    .unwrap()
                    .contains(&json!("TERMPLANE_TOKEN")),
                "{h}: {reg}"
            );
        }
        assert_eq!(now_warning(&w, &id), None, "{h}");
        let file = registration_file(&w, &id);
        if h == "opencode" {
            // Its file is the plugin that reports the agent's state; the credentials are in
            // the pane's environment only.
            let plugin = std::fs::read_to_string(&file).unwrap();
            assert!(
                plugin.contains("export const TermplaneAgentState"),
                "{plugin}"
            );
            assert!(!plugin.contains("tp_"), "{plugin}");
        }
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&file).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600, "{}", file.display());

        // It lists its owner's panes, and only those.
        let listed = rep["listSubshells"]["text"].as_str().unwrap();
        assert_eq!(rep["listSubshells"]["isError"], false, "{rep}");
        assert!(listed.contains(&id), "{h}: {listed}");
        assert!(!listed.contains(&foreign), "{h}: {listed}");
        // Another owner's pane is out of its reach; launching needs `subshells: write`, which
        // a pane launched with the default permissions does not have.
        assert_eq!(rep["readForeign"]["isError"], true, "{rep}");
        assert!(
            !rep["readForeign"]["text"].as_str().unwrap().contains("$ "),
            "{rep}"
        );
        assert_eq!(rep["readOwn"]["isError"], false, "{rep}");
        // It published an artifact for its owner, who finds it whole among their files.
        assert_eq!(rep["publishFile"]["isError"], false, "{rep}");
        let artifact = format!("artifact-{binary}.txt");
        let expected = format!("artifact of {binary}\n").repeat(10000);
        let kept = w.get("/api/files").json();
        let row = kept
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == artifact.as_str())
            .unwrap_or_else(|| panic!("{artifact} not among {kept}"))
            .clone();
        assert_eq!(row["size"], expected.len(), "{row}");
        use sha2::Digest as _;
        assert_eq!(
            row["sha256"],
            sha2::Sha256::digest(expected.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>(),
            "{row}"
        );
        assert!(
            rep["listFiles"]["text"]
                .as_str()
                .unwrap()
                .contains(&artifact),
            "{rep}"
        );
        // It posted to its owner's channel, signed as its own identity, and read it back; its
        // owner reads the entry, verified and attributed to the pane.
        assert_eq!(rep["postChannel"]["isError"], false, "{rep}");
        assert_eq!(rep["readChannel"]["isError"], false, "{rep}");
        let text = format!("progress from {binary}");
        assert!(
            rep["readChannel"]["text"].as_str().unwrap().contains(&text),
            "{rep}"
        );
        let page = w
            .get(&format!("/api/channels/{channel}/entries?limit=200"))
            .json();
        let entry = page["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["body"] == text.as_str())
            .unwrap_or_else(|| panic!("{text} not in {page}"))
            .clone();
        assert_eq!(entry["verified"], true, "{entry}");
        assert_eq!(entry["author"]["subshellId"], id.as_str(), "{entry}");
        if writer {
            // Within its ceiling: it types into its own pane and launches a child pane.
            assert_eq!(rep["sendInput"]["isError"], false, "{rep}");
            assert_eq!(rep["launchChild"]["isError"], false, "{rep}");
            wait_until("the pane's own typing to arrive", WAIT, || {
                screen(&w, &id)
                    .contains("got: typed by my own tool")
                    .then_some(())
            });
            let all = w.get("/api/subshells").json();
            let child = all
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["parentSubshellId"] == id.as_str())
                .unwrap_or_else(|| panic!("no child of {id} in {all}"));
            assert_eq!(child["createdBy"], "pane", "{child}");
            assert_eq!(child["harnessId"], "shell", "{child}");
            // A child gets the default ceiling, never more than its parent's.
            assert_eq!(child["permissions"]["subshells"], "read", "{child}");
        } else {
            for call in ["sendInput", "launchChild"] {
                assert_eq!(rep[call]["isError"], true, "{call}: {rep}");
                assert!(
                    rep[call]["text"]
                        .as_str()
                        .unwrap()
                        .contains("PERMISSION_DENIED"),
                    "{call}: {rep}"
                );
            }
        }
        // What it reported is on its subshell, and the running MCP server extended the token.
        let now = subshell(&w, &id);
        assert!(
            now["tokenExpiresAt"].as_i64().unwrap() > s["tokenExpiresAt"].as_i64().unwrap(),
            "{h}: the keepalive did not extend the token: {now}"
        );
        assert_eq!(now["attention"], "needs_input", "{now}");
        assert_eq!(now["status"], "needs_attention", "{now}");
        if rep["argv"]
            .as_array()
            .unwrap()
            .contains(&json!("--session-id"))
        {
            assert_eq!(rep["reportSession"]["isError"], false, "{rep}");
            assert!(now["harnessSessionId"].is_string(), "{now}");
        }
        // Typing reaches the harness.
        let r = w.post(
            &format!("/api/subshells/{id}/input"),
            &json!({ "text": format!("hello {h}"), "keys": ["enter"] }),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        wait_until("the echo of the typed line", WAIT, || {
            screen(&w, &id)
                .contains(&format!("got: hello {h}"))
                .then_some(())
        });
    }
    // The foreign pane never saw a thing.
    let theirs = call(
        &w,
        &other,
        "GET",
        &format!("/api/subshells/{foreign}"),
        None,
    );
    assert_eq!(theirs.json()["attention"], "none", "{}", theirs.text());
    // The audit log names the pane as the actor of the launch it made.
    let audit = w.get("/api/audit").json();
    let by_pane = audit
        .as_array()
        .or_else(|| audit["entries"].as_array())
        .unwrap()
        .iter()
        .filter(|e| e["actorKind"] == "pane")
        .count();
    assert!(by_pane >= 1, "{audit}");
}

#[test]
fn a_system_key_launches_on_a_node_only_once_an_admin_grants_it_and_types_into_it() {
    let w = world("syskey", false);
    let r = w.post("/api/system-keys", &json!({ "name": "ci" }));
    assert_eq!(r.status, 201, "{}", r.text());
    let key = r.json()["key"].as_str().unwrap().to_owned();
    let body = json!({ "nodeId": w.node_id, "harnessId": "shell", "cwd": w.dir.join("work").display().to_string() });
    // Not granted: to the key the node does not exist (it is not in its node list either).
    let r = bearer(&w, &key, "POST", "/api/subshells", Some(&body));
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(r.json()["code"], "NOT_FOUND", "{}", r.text());
    assert_eq!(w.get("/api/subshells").json(), json!([]));
    let seen = |w: &World| {
        let r = bearer(w, &key, "GET", "/api/nodes", None);
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["nodeId"] == w.node_id.as_str())
    };
    assert!(!seen(&w));
    let access = |w: &World| {
        call(
            w,
            &w.cookie,
            "GET",
            &format!("/api/nodes/{}", w.node_id),
            None,
        )
        .json()["systemAccess"]
            .clone()
    };
    assert_eq!(access(&w), json!(false));
    // Only a person can grant it: the key itself is refused.
    let grant = format!("/api/nodes/{}/system-access", w.node_id);
    let r = bearer(&w, &key, "PUT", &grant, Some(&json!({ "allowed": true })));
    assert_eq!(r.status, 403, "{}", r.text());
    let r = call(
        &w,
        &w.cookie,
        "PUT",
        &grant,
        Some(&json!({ "allowed": true })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(seen(&w));
    assert_eq!(access(&w), json!(true), "the node's row says so");

    let r = bearer(&w, &key, "POST", "/api/subshells", Some(&body));
    assert_eq!(r.status, 201, "{}", r.text());
    let s = r.json();
    let id = s["id"].as_str().unwrap().to_owned();
    assert_eq!(s["createdBy"], "system_key", "{s}");
    let r = bearer(
        &w,
        &key,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(&json!({ "text": "echo sys-$((6*7))", "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // The output, read back through the byte-ranged log.
    wait_until("the output in the pane log", WAIT, || {
        let r = bearer(
            &w,
            &key,
            "GET",
            &format!("/api/subshells/{id}/logs?fromByte=0"),
            None,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let b64 = r.json()["dataB64"].as_str().unwrap().to_owned();
        let bytes = <base64ct::Base64 as base64ct::Encoding>::decode_vec(&b64).unwrap();
        String::from_utf8_lossy(&bytes)
            .contains("sys-42")
            .then_some(())
    });
    // Withdrawn: no new launches; the running pane stays the key's.
    let r = call(
        &w,
        &w.cookie,
        "PUT",
        &grant,
        Some(&json!({ "allowed": false })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = bearer(&w, &key, "POST", "/api/subshells", Some(&body));
    assert_eq!(r.status, 404, "{}", r.text());
    assert!(!seen(&w));
    let r = bearer(&w, &key, "GET", &format!("/api/subshells/{id}"), None);
    assert_eq!(r.status, 200, "{}", r.text());
    let audit = w.get("/api/audit").json();
    let entries = audit
        .as_array()
        .or_else(|| audit["entries"].as_array())
        .unwrap();
    assert!(
        entries
            .iter()
            .any(|e| e["actorKind"] == "system_key" && e["target"] == id.as_str()),
        "{audit}"
    );
}

#[test]
fn restart_resumes_the_session_with_a_new_token_and_terminate_revokes_it() {
    let w = world("restart", true);
    let dir = w.dir.join("work/claude");
    std::fs::create_dir_all(&dir).unwrap();
    let s = launch(&w, "claude-code", &dir);
    let id = s["id"].as_str().unwrap().to_owned();
    let first = report(&dir);
    let argv = first["argv"].as_array().unwrap().clone();
    let at = argv.iter().position(|a| a == "--session-id").unwrap();
    let session = argv[at + 1].as_str().unwrap().to_owned();
    // Nothing was typed, so Claude Code saved no session: a restart that asked to resume it
    // would end at once; it starts afresh under the same id instead.
    let r = w.post(&format!("/api/subshells/{id}/restart"), &Value::Null);
    assert_eq!(r.status, 200, "{}", r.text());
    let again = report(&dir);
    let argv: Vec<String> = serde_json::from_value(again["argv"].clone()).unwrap();
    assert!(!argv.contains(&"--resume".to_owned()), "{argv:?}");
    let at = argv.iter().position(|a| a == "--session-id").unwrap();
    assert_eq!(argv[at + 1], session, "{argv:?}");
    assert_eq!(subshell(&w, &id)["state"], "running");
    // Once a line is typed the session is saved, and the next restart resumes it.
    let r = w.post(
        &format!("/api/subshells/{id}/input"),
        &json!({ "text": "remember this", "keys": ["enter"] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the typed line", WAIT, || {
        screen(&w, &id).contains("got: remember this").then_some(())
    });
    let first = again;
    let (_, old_token) = registered_token(&w, &id);
    // The pane's own token reads its subshell.
    let me = bearer(&w, &old_token, "GET", &format!("/api/subshells/{id}"), None);
    assert_eq!(me.status, 200, "{}", me.text());
    // A pane token is not a person: no admin surface, even though its owner is an admin.
    let r = bearer(
        &w,
        &old_token,
        "POST",
        "/api/system-keys",
        Some(&json!({ "name": "x" })),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    let r = bearer(&w, &old_token, "GET", "/api/audit", None);
    assert_eq!(r.status, 403, "{}", r.text());

    let r = w.post(&format!("/api/subshells/{id}/restart"), &Value::Null);
    assert_eq!(r.status, 200, "{}", r.text());
    let second = report(&dir);
    let argv: Vec<String> = serde_json::from_value(second["argv"].clone()).unwrap();
    let at = argv.iter().position(|a| a == "--resume").unwrap();
    assert_eq!(argv[at + 1], session, "{argv:?}");
    assert!(!argv.contains(&"--session-id".to_owned()), "{argv:?}");
    assert_ne!(second["tokenSha256"], first["tokenSha256"]);
    let (_, new_token) = registered_token(&w, &id);
    assert_ne!(new_token, old_token);
    let r = bearer(&w, &old_token, "GET", &format!("/api/subshells/{id}"), None);
    assert_eq!(r.status, 401, "the old token still works: {}", r.text());
    let r = bearer(&w, &new_token, "GET", &format!("/api/subshells/{id}"), None);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(subshell(&w, &id)["restarts"], 2);

    let r = w.post(&format!("/api/subshells/{id}/terminate"), &Value::Null);
    assert!(r.status == 200 || r.status == 202, "{}", r.text());
    let r = bearer(&w, &new_token, "GET", &format!("/api/subshells/{id}"), None);
    assert_eq!(
        r.status,
        401,
        "a stopped pane's token still works: {}",
        r.text()
    );
    wait_until("the pane to stop", WAIT, || {
        (subshell(&w, &id)["state"] == "stopped").then_some(())
    });
    // The pane's tmux session goes too (the node clears a dead pane at its next exit check).
    wait_until("the pane's tmux session to go", WAIT, || {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(w.tmux_socket())
            .args(["list-sessions", "-F", "#{session_name}"])
            .output()
            .unwrap();
        (!String::from_utf8_lossy(&out.stdout).contains(&id)).then_some(())
    });
}

#[test]
fn a_restart_that_knows_no_session_continues_the_harness_s_latest_in_its_own_words() {
    let w = world("continue", true);
    let r = w.post(
        "/api/presets",
        &json!({ "name": "isolated gemini", "harnessId": "gemini", "configIsolation": true }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let isolated = json!({ "presetId": r.json()["id"] });
    for (h, words) in [
        ("codex", vec!["resume", "--last"]),
        ("gemini", vec!["--resume", "latest"]),
        ("opencode", vec!["--continue"]),
    ] {
        let dir = w.dir.join("work").join(h);
        std::fs::create_dir_all(&dir).unwrap();
        let more = if h == "gemini" {
            isolated.clone()
        } else {
            json!({})
        };
        let s = launch_with(&w, h, &dir, &more);
        let id = s["id"].as_str().unwrap().to_owned();
        let first = report(&dir);
        assert!(s["harnessSessionId"].is_null(), "{s}");
        let r = w.post(&format!("/api/subshells/{id}/restart"), &Value::Null);
        assert_eq!(r.status, 200, "{}", r.text());
        let second = report(&dir);
        let argv: Vec<String> = serde_json::from_value(second["argv"].clone()).unwrap();
        let at = argv
            .windows(words.len())
            .position(|w| w == words.as_slice())
            .unwrap_or_else(|| panic!("{h}: {words:?} not in {argv:?}"));
        if h == "codex" {
            // A subcommand: right after the registration's six words of overrides (its MCP
            // server's command and arguments, its notify program).
            assert_eq!(at, 6, "{argv:?}");
        }
        assert_ne!(second["tokenSha256"], first["tokenSha256"]);
        assert_eq!(subshell(&w, &id)["state"], "running", "{h}");
    }
}

#[test]
fn the_initial_prompt_goes_on_the_harness_s_command_line_and_is_typed_only_where_it_cannot() {
    let w = world("cli-prompt", true);
    let r = w.post(
        "/api/presets",
        &json!({ "name": "isolated gemini", "harnessId": "gemini", "configIsolation": true }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let isolated = r.json()["id"].as_str().unwrap().to_owned();
    for (h, prompt, tail) in [
        (
            "claude-code",
            "-fix the build, then stop",
            vec!["--", "-fix the build, then stop"],
        ),
        ("codex", "resume", vec!["--", "resume"]),
        (
            "gemini",
            "explain this folder",
            vec!["--prompt-interactive=explain this folder"],
        ),
        (
            "opencode",
            "list the files",
            vec!["--prompt=list the files"],
        ),
    ] {
        let dir = w.dir.join("work").join(h);
        std::fs::create_dir_all(&dir).unwrap();
        let mut more = json!({ "prompt": prompt });
        if h == "gemini" {
            more["presetId"] = json!(isolated);
        }
        let s = launch_with(&w, h, &dir, &more);
        let id = s["id"].as_str().unwrap().to_owned();
        let rep = report(&dir);
        let argv: Vec<String> = serde_json::from_value(rep["argv"].clone()).unwrap();
        assert_eq!(argv[argv.len() - tail.len()..], tail, "{h}: {argv:?}");
        assert_eq!(subshell(&w, &id)["promptState"], "delivered", "{h}");
        // Nothing was typed into it.
        assert!(
            !screen(&w, &id).contains("got:"),
            "{h}: {}",
            screen(&w, &id)
        );
    }
    // A one-word prompt would name one of Claude Code's subcommands: it is typed, with Enter
    // apart, once the pane's first screen has settled.
    let dir = w.dir.join("work/claude-word");
    std::fs::create_dir_all(&dir).unwrap();
    let s = launch_with(&w, "claude-code", &dir, &json!({ "prompt": "doctor" }));
    let id = s["id"].as_str().unwrap().to_owned();
    let rep = report(&dir);
    assert!(
        !rep["argv"].as_array().unwrap().contains(&json!("doctor")),
        "{rep}"
    );
    wait_until("the typed prompt", WAIT, || {
        screen(&w, &id).contains("got: doctor").then_some(())
    });
    wait_until("the prompt's state", WAIT, || {
        (subshell(&w, &id)["promptState"] == "delivered").then_some(())
    });
    // A shell takes none on its command line.
    let s = launch_with(
        &w,
        "shell",
        &w.dir.join("work"),
        &json!({ "prompt": "echo prompt-$((6*7))" }),
    );
    let id = s["id"].as_str().unwrap().to_owned();
    wait_until("the shell's prompt to run", WAIT, || {
        screen(&w, &id).contains("prompt-42").then_some(())
    });
}

#[test]
fn gemini_without_isolation_on_a_node_whose_data_directory_others_can_write_says_so() {
    let w = world("gemini-warn", true);
    let dir = w.dir.join("work/gemini");
    std::fs::create_dir_all(&dir).unwrap();
    let s = launch(&w, "gemini", &dir);
    let id = s["id"].as_str().unwrap().to_owned();
    // Gemini skips the system settings file here (the node's data directory is in the
    // temporary directory, which anyone may write to), as the stand-in does.
    let rep = read_report(&dir);
    assert!(
        rep["error"]
            .as_str()
            .unwrap_or_default()
            .contains("no termplane server"),
        "{rep}"
    );
    let warning = now_warning(&w, &id).expect("a warning on the subshell");
    assert!(warning.contains("config isolation"), "{warning}");
    assert!(
        warning.contains("GEMINI_CLI_SYSTEM_SETTINGS_PATH"),
        "{warning}"
    );
    // The list shows it too; a shell, which loads no MCP server, has none.
    let all = w.get("/api/subshells").json();
    let row = all
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["warning"], warning.as_str(), "{row}");
    let sh = launch(&w, "shell", &w.dir.join("work"));
    assert!(sh["warning"].is_null(), "{sh}");
}

#[test]
fn a_killed_node_daemon_leaves_its_panes_unreachable_until_the_census_heals_them() {
    let mut w = world("census", false);
    let dir = w.dir.join("work");
    let s = launch(&w, "shell", &dir);
    let id = s["id"].as_str().unwrap().to_owned();
    wait_until("the shell to run", WAIT, || {
        (subshell(&w, &id)["state"] == "running").then_some(())
    });
    w.kill_node();
    w.wait_offline();
    let v = subshell(&w, &id);
    assert_eq!(v["status"], "node_unreachable", "{v}");
    assert_eq!(v["nodeReachable"], false, "{v}");
    // Input to an unreachable pane is refused with a reason, not queued.
    let r = w.post(
        &format!("/api/subshells/{id}/input"),
        &json!({ "text": "lost" }),
    );
    assert_eq!(r.status, 409, "{}", r.text());
    w.start_node();
    w.wait_online(WAIT);
    wait_until("the census to heal the pane", WAIT, || {
        let v = subshell(&w, &id);
        (v["status"] == "running" && v["nodeReachable"] == true).then_some(())
    });
    // It is the same pane, usable again.
    let r = w.post(
        &format!("/api/subshells/{id}/input"),
        &json!({ "text": "echo still-$((40+2))", "keys": ["enter"] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the pane to answer", WAIT, || {
        screen(&w, &id).contains("still-42").then_some(())
    });
    // The pane ends by itself: the node reports the exit and the state follows.
    let r = w.post(
        &format!("/api/subshells/{id}/input"),
        &json!({ "text": "exit 3", "keys": ["enter"] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the exit to be recorded", WAIT, || {
        let v = subshell(&w, &id);
        (v["state"] == "crashed" && v["exitCode"] == 3).then_some(())
    });
}

#[test]
fn a_harness_missing_on_the_node_is_refused_and_leaves_nothing_behind() {
    let w = world("missing", false);
    let r = w.post(
        "/api/subshells",
        &json!({ "nodeId": w.node_id, "harnessId": "opencode", "cwd": w.dir.join("work").display().to_string() }),
    );
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["code"], "HARNESS_NOT_INSTALLED", "{}", r.text());
    assert_eq!(
        r.json()["metadata"]["reason"],
        "not_installed",
        "{}",
        r.text()
    );
    assert_eq!(w.get("/api/subshells").json(), json!([]));
    // A directory the node does not have: refused by the node, and again nothing is kept.
    let r = w.post(
        "/api/subshells",
        &json!({ "nodeId": w.node_id, "harnessId": "shell", "cwd": "/nonexistent/termplane-e2e" }),
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(r.json()["code"], "LAUNCH_REFUSED", "{}", r.text());
    assert_eq!(w.get("/api/subshells").json(), json!([]));
    // The audit log keeps the attempt and says how it ended.
    let audit = w.get("/api/audit?action=subshell.").json();
    let actions: Vec<&str> = audit["entries"]
        .as_array()
        .or_else(|| audit.as_array())
        .unwrap()
        .iter()
        .filter_map(|e| e["action"].as_str())
        .collect();
    assert!(actions.contains(&"subshell.launched"), "{audit}");
    assert!(actions.contains(&"subshell.launch_failed"), "{audit}");
}

#[test]
fn a_first_launch_on_a_fresh_node_probes_only_its_own_harness() {
    // Every other harness on the node answers `--version` slowly (4 s each, as a big CLI
    // starting under load does): a launch that waited on all of them one after another would
    // outlast the node command deadline.
    let mut w = World::new("gate", Path::new(NODE));
    let bin = w.dir.join("slow-bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (_, name) in HARNESSES {
        let p = bin.join(name);
        std::fs::write(
            &p,
            format!(
                "#!/bin/sh\necho \"$0\" >> '{}'\nsleep 4\necho \"{name} 9.9\"\n",
                w.dir.join("probed.log").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let path = std::env::var("PATH").unwrap_or_default();
    w.node_env
        .push(("PATH".into(), format!("{}:{path}", bin.display())));
    w.start_node();
    w.wait_online(WAIT);
    let s = launch(&w, "shell", &w.dir.join("work"));
    assert_eq!(s["state"], "running", "{s}");
    assert!(
        !w.dir.join("probed.log").exists(),
        "the launch of a shell probed other harnesses: {}",
        std::fs::read_to_string(w.dir.join("probed.log")).unwrap_or_default()
    );
    // The node's harness page still asks about every harness (side by side, within the
    // deadline), since the launch left the others unasked.
    let r = w.get(&format!("/api/nodes/{}/harnesses", w.node_id));
    assert_eq!(r.status, 200, "{}", r.text());
    for (h, name) in HARNESSES {
        let row = r
            .json()
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["harnessId"] == h)
            .unwrap()
            .clone();
        assert_eq!(row["version"], format!("{name} 9.9").as_str(), "{row}");
        assert_eq!(row["launchable"], true, "{row}");
    }
}

/// The text on screen of `id` once `needle` shows (as the given credential).
fn wait_screen(w: &World, token: &str, id: &str, needle: &str) -> String {
    wait_until(&format!("{needle:?} on the screen of {id}"), WAIT, || {
        let r = bearer(
            w,
            token,
            "GET",
            &format!("/api/subshells/{id}/screen?lines=50"),
            None,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let text = r.json()["text"].as_str().unwrap().to_owned();
        text.contains(needle).then_some(text)
    })
}

/// Types `text` and Enter into `id` with `token`.
fn type_line(w: &World, token: &str, id: &str, text: &str) {
    let r = bearer(
        w,
        token,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(&json!({ "text": text, "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn a_script_runs_a_shell_on_the_planes_own_host_with_the_same_lifecycle() {
    let w = local_world("local", false);
    let local = local_node(&w);
    let r = w.post("/api/system-keys", &json!({ "name": "ci" }));
    assert_eq!(r.status, 201, "{}", r.text());
    let key = r.json()["key"].as_str().unwrap().to_owned();
    // Scripts may use the local node without a grant.
    let body = json!({ "nodeId": local, "harnessId": "shell", "cwd": w.dir.join("work").display().to_string() });
    let r = bearer(&w, &key, "POST", "/api/subshells", Some(&body));
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(r.json()["nodeId"], local.as_str());
    type_line(&w, &key, &id, "echo local-$((6*7))");
    wait_screen(&w, &key, &id, "local-42");
    // The pane runs in the plane's own tmux server, not a node daemon's.
    let out = Command::new("tmux")
        .arg("-S")
        .arg(w.local_tmux_socket())
        .args(["list-sessions", "-F", "#{session_name}"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(&id));

    // The pane's own token, as the pane sees it.
    type_line(&w, &key, &id, "echo token=$TERMPLANE_TOKEN.");
    let screen = wait_screen(&w, &key, &id, "token=tp_");
    let old_token = screen
        .split("token=")
        .filter_map(|s| s.split('.').next())
        .find(|t| t.starts_with("tp_"))
        .unwrap()
        .to_owned();
    let r = bearer(&w, &old_token, "GET", &format!("/api/subshells/{id}"), None);
    assert_eq!(r.status, 200, "{}", r.text());

    let r = bearer(
        &w,
        &key,
        "POST",
        &format!("/api/subshells/{id}/restart"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = bearer(&w, &old_token, "GET", &format!("/api/subshells/{id}"), None);
    assert_eq!(
        r.status,
        401,
        "the old token outlived the restart: {}",
        r.text()
    );
    type_line(&w, &key, &id, "echo again-$((6*7))");
    wait_screen(&w, &key, &id, "again-42");

    let r = bearer(
        &w,
        &key,
        "POST",
        &format!("/api/subshells/{id}/terminate"),
        None,
    );
    assert!(r.status == 200 || r.status == 202, "{}", r.text());
    wait_until("the pane to stop", WAIT, || {
        (subshell(&w, &id)["state"] == "stopped").then_some(())
    });

    // The commands about a node daemon are refused here, with the reason.
    for cmd in [
        json!({ "type": "update", "version": "99.0.0", "url": "http://127.0.0.1:1/x", "sha256": "0".repeat(64) }),
        json!({ "type": "service", "action": "install" }),
        json!({ "type": "set_server_url", "url": "http://127.0.0.1:1" }),
    ] {
        let r = w.post(&format!("/api/nodes/{local}/commands"), &cmd);
        assert_eq!(r.status, 200, "{cmd}: {}", r.text());
        let res = &r.json()["result"];
        assert_eq!(res["ok"], false, "{cmd}: {res}");
        assert!(
            res["error"]
                .as_str()
                .unwrap()
                .contains("runs no node daemon"),
            "{cmd}: {res}"
        );
    }
}

#[test]
fn local_panes_outlive_a_plane_restart_and_its_census_heals_them() {
    let mut w = local_world("local-restart", false);
    let local = local_node(&w);
    let cookie = w.cookie.clone();
    let launch_local = |w: &World| {
        let r = w.post(
            "/api/subshells",
            &json!({ "nodeId": local, "harnessId": "shell", "cwd": w.dir.join("work").display().to_string() }),
        );
        assert_eq!(r.status, 201, "{}", r.text());
        r.json()["id"].as_str().unwrap().to_owned()
    };
    let kept = launch_local(&w);
    let ending = launch_local(&w);
    let as_cookie = |w: &World, id: &str, text: &str| {
        let r = call(
            w,
            &cookie,
            "POST",
            &format!("/api/subshells/{id}/input"),
            Some(&json!({ "text": text, "keys": ["enter"] })),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    };
    as_cookie(&w, &kept, "export MARK=kept");
    // The second pane ends when told to, once no plane watches it: it waits for `go` to
    // appear, removes it and exits.
    let go = w.dir.join("work").join("go");
    as_cookie(
        &w,
        &ending,
        &format!(
            "while [ ! -e {0} ]; do sleep 0.05; done; rm {0}; exit 7",
            go.display()
        ),
    );
    w.stop_plane();
    std::fs::write(&go, b"").unwrap();
    wait_until("the second pane to end", WAIT, || {
        (!go.exists()).then_some(())
    });
    w.start_plane();
    wait_until("the census to heal the rows", WAIT, || {
        let a = subshell(&w, &kept);
        let b = subshell(&w, &ending);
        (a["status"] == "running" && a["nodeReachable"] == true && b["state"] == "crashed")
            .then_some(())
    });
    as_cookie(&w, &kept, "echo $MARK-ok");
    wait_until("the kept pane to answer", WAIT, || {
        screen(&w, &kept).contains("kept-ok").then_some(())
    });
}

/// A stop of a local pane cut short by the plane's crash (killed in the stop's grace, with the
/// local node inside it, before the pane was closed) is finished at the next start: the row
/// found `stopping` with its pane still running does not stay so for good, the pane is closed.
#[test]
fn a_local_stop_cut_short_by_a_plane_crash_is_finished_at_the_next_start() {
    let mut w = local_world("local-stop-crash", false);
    let local = local_node(&w);
    let r = w.post(
        "/api/subshells",
        &json!({ "nodeId": local, "harnessId": "shell", "cwd": w.dir.join("work").display().to_string() }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    // A program deaf to Ctrl-C: the stop must wait out its grace.
    let r = w.post(
        &format!("/api/subshells/{id}/input"),
        &json!({ "text": "trap '' INT HUP TERM QUIT; echo deaf-$((6*7)); while :; do sleep 1; done", "keys": ["enter"] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the trap", WAIT, || {
        screen(&w, &id).contains("deaf-42").then_some(())
    });
    let port = w.port;
    let headers = [
        ("Origin".to_owned(), w.base()),
        ("Cookie".to_owned(), w.cookie.clone()),
    ];
    let path = format!("/api/subshells/{id}/terminate");
    let stopping = std::thread::spawn(move || {
        let h: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let _ = http(port, "POST", &path, &h, None);
    });
    wait_until("the row to be stopping", WAIT, || {
        (subshell(&w, &id)["state"] == "stopping").then_some(())
    });
    w.kill_plane();
    let _ = stopping.join();
    let socket = w.local_tmux_socket();
    let alive = |id: &str| {
        Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(["has-session", "-t", &format!("=tp-{id}")])
            .status()
            .is_ok_and(|s| s.success())
    };
    assert!(
        alive(&id),
        "the crash left the pane running (as it should for this test)"
    );
    w.start_plane();
    wait_until("the stop to be finished", WAIT, || {
        (subshell(&w, &id)["state"] == "stopped").then_some(())
    });
    assert!(!alive(&id), "the pane of a stopped subshell still runs");
}

#[test]
fn a_harness_on_the_local_node_loads_termplane_mcp_and_acts_as_its_pane() {
    let w = local_world("local-mcp", true);
    let local = local_node(&w);
    let dir = w.dir.join("work/local-claude");
    std::fs::create_dir_all(&dir).unwrap();
    let r = w.post(
        "/api/subshells",
        &json!({ "nodeId": local, "harnessId": "claude-code", "cwd": dir.display().to_string() }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let rep = report(&dir);
    let reg = &rep["registration"];
    // The plane's own binary serves the pane's MCP: `termplane mcp`.
    assert!(
        reg["command"].as_str().unwrap().ends_with("/termplane"),
        "{reg}"
    );
    assert_eq!(reg["args"], json!(["mcp"]), "{reg}");
    assert_eq!(rep["tools"], json!(TOOLS), "{rep}");
    assert_eq!(rep["listSubshells"]["isError"], false, "{rep}");
    assert!(rep["listSubshells"]["text"].as_str().unwrap().contains(&id));
    let file = w
        .dir
        .join("plane/local-node/mcp")
        .join(format!("{id}.json"));
    assert!(file.exists(), "{}", file.display());
    let v = subshell(&w, &id);
    assert_eq!(v["attention"], "needs_input", "{v}");
    assert!(v["harnessSessionId"].is_string(), "{v}");
}

#[test]
fn a_keystroke_does_not_wait_behind_another_panes_prompt_delivery() {
    let w = world("prompt", false);
    // Pane A never goes quiet (it prints every 100 ms), so its initial prompt stays pending:
    // the plane keeps watching it for the quiet moment that does not come.
    let r = w.post(
        "/api/presets",
        &json!({ "name": "ticker", "harnessId": "shell", "flags": ["-c", "while :; do date +%N; sleep 0.1; done"] }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let preset = r.json()["id"].as_str().unwrap().to_owned();
    let busy = launch_with(
        &w,
        "shell",
        &w.dir.join("work"),
        &json!({ "presetId": preset, "prompt": "never typed" }),
    );
    let busy_id = busy["id"].as_str().unwrap().to_owned();
    assert_eq!(busy["promptState"], "pending", "{busy}");
    let quick = launch(&w, "shell", &w.dir.join("work"));
    let quick_id = quick["id"].as_str().unwrap().to_owned();
    // Pane B answers typing while A's delivery is still under way (it would not before A's
    // two-minute give-up if B's keystrokes queued behind it).
    for i in 0..3 {
        let r = w.post(
            &format!("/api/subshells/{quick_id}/input"),
            &json!({ "text": format!("echo quick-$(({i}+40))"), "keys": ["enter"] }),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        wait_until("pane B to answer", WAIT, || {
            screen(&w, &quick_id)
                .contains(&format!("quick-{}", i + 40))
                .then_some(())
        });
        assert_eq!(subshell(&w, &busy_id)["promptState"], "pending");
    }
    assert!(!screen(&w, &busy_id).contains("never typed"));
}

/// A local-node world with a system key: (world, local node id, key).
fn local_with_key(tag: &str) -> (World, String, String) {
    let w = local_world(tag, false);
    let local = local_node(&w);
    let r = w.post("/api/system-keys", &json!({ "name": tag }));
    assert_eq!(r.status, 201, "{}", r.text());
    let key = r.json()["key"].as_str().unwrap().to_owned();
    (w, local, key)
}

/// Launches a shell on `node` with `key` (and `more` fields); its id.
fn shell_as(w: &World, key: &str, node: &str, more: &Value) -> String {
    let mut body = json!({ "nodeId": node, "harnessId": "shell", "cwd": w.dir.join("work").display().to_string() });
    for (k, v) in more.as_object().unwrap() {
        body[k] = v.clone();
    }
    let r = bearer(w, key, "POST", "/api/subshells", Some(&body));
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()["id"].as_str().unwrap().to_owned()
}

/// The pane's token as the pane sees it (`$TERMPLANE_TOKEN`, echoed inside the pane).
fn token_in_pane(w: &World, key: &str, id: &str) -> String {
    let marker = format!("m{}", &id[..6]);
    type_line(w, key, id, &format!("echo {marker}=$TERMPLANE_TOKEN."));
    let screen = wait_screen(w, key, id, &format!("{marker}=tp_"));
    screen
        .split(&format!("{marker}="))
        .filter_map(|s| s.split('.').next())
        .find(|t| t.starts_with("tp_"))
        .unwrap()
        .to_owned()
}

fn reads_own_row(w: &World, token: &str, id: &str) -> u16 {
    bearer(w, token, "GET", &format!("/api/subshells/{id}"), None).status
}

#[test]
fn subshell_token_valid_then_terminated_is_revoked_at_once() {
    let (w, local, key) = local_with_key("tok-term");
    let id = shell_as(&w, &key, &local, &json!({}));
    let token = token_in_pane(&w, &key, &id);
    assert_eq!(reads_own_row(&w, &token, &id), 200);
    let r = bearer(
        &w,
        &key,
        "POST",
        &format!("/api/subshells/{id}/terminate"),
        None,
    );
    assert!(r.status == 200 || r.status == 202, "{}", r.text());
    // Refused on the very next request, before the pane has even finished stopping.
    assert_eq!(reads_own_row(&w, &token, &id), 401);
}

#[test]
fn subshell_token_valid_then_deleted_is_revoked_and_refused_once_the_row_is_gone() {
    let (w, local, key) = local_with_key("tok-del");
    let id = shell_as(&w, &key, &local, &json!({}));
    let token = token_in_pane(&w, &key, &id);
    let r = bearer(&w, &key, "DELETE", &format!("/api/subshells/{id}"), None);
    assert!(r.status == 200 || r.status == 204, "{}", r.text());
    assert_eq!(reads_own_row(&w, &token, &id), 401);
    let r = bearer(&w, &token, "GET", "/api/subshells", None);
    assert_eq!(r.status, 401, "{}", r.text());
    let r = bearer(&w, &key, "GET", &format!("/api/subshells/{id}"), None);
    assert_eq!(r.status, 404, "{}", r.text());
    // Deleting a live pane ends it.
    wait_until("the deleted pane's session to go", WAIT, || {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(w.local_tmux_socket())
            .args(["list-sessions", "-F", "#{session_name}"])
            .output()
            .unwrap();
        (!String::from_utf8_lossy(&out.stdout).contains(&id)).then_some(())
    });
}

#[test]
fn subshell_token_valid_then_restarted_is_rotated_in_place_manually_and_automatically() {
    let (w, local, key) = local_with_key("tok-restart");
    let r = bearer(
        &w,
        &key,
        "POST",
        "/api/presets",
        Some(&json!({ "name": "again", "harnessId": "shell", "autoRestart": true })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let preset = r.json()["id"].as_str().unwrap().to_owned();
    let id = shell_as(&w, &key, &local, &json!({ "presetId": preset }));
    let first = token_in_pane(&w, &key, &id);

    // Manual: the same row, a new token, the old one refused.
    let r = bearer(
        &w,
        &key,
        "POST",
        &format!("/api/subshells/{id}/restart"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let second = token_in_pane(&w, &key, &id);
    assert_ne!(second, first);
    assert_eq!(reads_own_row(&w, &first, &id), 401);
    assert_eq!(reads_own_row(&w, &second, &id), 200);

    // Automatic: the program crashes, the preset relaunches it with yet another token.
    type_line(&w, &key, &id, "exit 3");
    wait_until("the automatic restart", WAIT, || {
        let v = subshell(&w, &id);
        (v["restarts"] == 2 && v["state"] == "running").then_some(())
    });
    let third = token_in_pane(&w, &key, &id);
    assert_ne!(third, second);
    assert_eq!(reads_own_row(&w, &second, &id), 401);
    assert_eq!(reads_own_row(&w, &third, &id), 200);
}

/// Whether the node's tmux server has the pane of subshell `id`.
/// Sends `sig` (`-STOP`, `-CONT`, …) to the running node daemon.
fn signal_node(w: &World, sig: &str) {
    let pid = w.node.as_ref().unwrap().id().to_string();
    let ok = Command::new("kill")
        .args([sig, &pid])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {sig} {pid}");
}

fn node_has_pane(w: &World, id: &str) -> bool {
    Command::new("tmux")
        .arg("-S")
        .arg(w.tmux_socket())
        .args(["has-session", "-t", &format!("=tp-{id}")])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn stops_and_deletes_that_could_not_reach_the_node_are_finished_when_it_returns_after_a_plane_restart()
 {
    let mut w = world("strays", false);
    let dir = w.dir.join("work");
    let ids: Vec<String> = (0..3)
        .map(|_| launch(&w, "shell", &dir)["id"].as_str().unwrap().to_owned())
        .collect();
    let (kept, deleted, stopping) = (&ids[0], &ids[1], &ids[2]);
    for id in &ids {
        wait_until("the shell to run", WAIT, || {
            (subshell(&w, id)["state"] == "running").then_some(())
        });
    }
    // One pane ignores Ctrl-C, so its stop waits out the grace; the node goes away during it.
    let r = w.post(
        &format!("/api/subshells/{stopping}/input"),
        &json!({ "text": "trap '' INT; echo trap-$((6*7))", "keys": ["enter"] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the trap", WAIT, || {
        screen(&w, stopping).contains("trap-42").then_some(())
    });
    let stop = {
        let (port, headers) = (
            w.port,
            vec![("Origin", w.base()), ("Cookie", w.cookie.clone())],
        );
        let path = format!("/api/subshells/{stopping}/terminate");
        std::thread::spawn(move || {
            let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            http(port, "POST", &path, &h, Some(&json!({}))).unwrap()
        })
    };
    // The stop is in its grace (the row `stopping`) when the node goes.
    wait_until("the stop's grace", WAIT, || {
        (subshell(&w, stopping)["state"] == "stopping").then_some(())
    });
    w.kill_node();
    let r = stop.join().unwrap();
    assert_ne!(
        r.status,
        200,
        "a stop cut short is not a stop: {}",
        r.text()
    );
    assert_eq!(subshell(&w, stopping)["state"], "stopping");
    w.wait_offline();
    // A stop of a pane out of reach is refused, and the row does not move.
    let r = w.post(&format!("/api/subshells/{kept}/terminate"), &json!({}));
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["code"], "NODE_OFFLINE");
    assert_eq!(subshell(&w, kept)["state"], "running");
    // A delete goes through; its pane cannot be killed yet.
    let r = w.send("DELETE", &format!("/api/subshells/{deleted}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    assert!(node_has_pane(&w, deleted));
    // The plane restarts before the node is back: what it owes the node is in its store.
    w.stop_plane();
    w.start_plane();
    // The node returns: its census names a pane with no row (killed) and a pane whose stop
    // was cut short (killed, the row stopped); the other pane runs on.
    w.start_node();
    w.wait_online(WAIT);
    wait_until("the deleted subshell's pane to be killed", WAIT, || {
        (!node_has_pane(&w, deleted)).then_some(())
    });
    wait_until("the cut-short stop to finish", WAIT, || {
        (subshell(&w, stopping)["state"] == "stopped" && !node_has_pane(&w, stopping)).then_some(())
    });
    assert!(node_has_pane(&w, kept));
    assert_eq!(subshell(&w, kept)["state"], "running");
    // What the deleted subshell printed goes with it: the node forgets its pane log, at the
    // census for the one deleted while the node was away, at once for one deleted now.
    let log = |id: &str| w.dir.join(format!("xdg-data/termplane-node/logs/{id}.log"));
    assert!(log(kept).exists() && log(stopping).exists());
    // What a pane prints is its owner's alone.
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(log(kept)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "pane log mode {mode:o}");
    wait_until("the deleted subshell's log to go", WAIT, || {
        (!log(deleted).exists()).then_some(())
    });
    let r = w.send("DELETE", &format!("/api/subshells/{kept}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    wait_until("the log of the subshell deleted now to go", WAIT, || {
        (!log(kept).exists() && !node_has_pane(&w, kept)).then_some(())
    });
    assert!(log(stopping).exists(), "a stopped subshell keeps its log");
}

#[test]
fn a_launch_that_got_no_answer_leaves_no_pane_when_the_node_runs_it_late() {
    let mut w = world("late", false);
    let dir = w.dir.join("work");
    // A first pane: the node's harnesses are known from here on, so the next launch goes
    // straight to the node.
    let first = launch(&w, "shell", &dir)["id"].as_str().unwrap().to_owned();
    wait_until("the shell to run", WAIT, || {
        (subshell(&w, &first)["state"] == "running").then_some(())
    });
    let signal = |sig: &str| signal_node(&w, sig);
    // A frozen node: its link stays up for a while, so the launch waits out the command's
    // deadline and fails; nothing of it may be left behind.
    signal("-STOP");
    let body =
        json!({ "nodeId": w.node_id, "harnessId": "shell", "cwd": dir.display().to_string() });
    let r = w.post("/api/subshells", &body);
    signal("-CONT");
    assert_eq!(r.status, 504, "{}", r.text());
    let r = w.get("/api/subshells");
    assert_eq!(
        r.json().as_array().map(Vec::len),
        Some(1),
        "a row was left: {}",
        r.text()
    );
    // The node wakes up and runs the launch it had queued; the kill the plane queued behind it
    // follows.
    let panes = || {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(w.tmux_socket())
            .args(["list-sessions", "-F", "#{session_name}"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("tp-"))
            .count()
    };
    wait_until("the node to run the launch it had queued", WAIT, || {
        (w.node_log().matches("launched ").count() == 2).then_some(())
    });
    wait_until("only the first pane left on the node", WAIT, || {
        (panes() == 1).then_some(())
    });
    assert!(node_has_pane(&w, &first));
    assert_eq!(subshell(&w, &first)["state"], "running");
    w.kill_node();
}

/// Starts an upload of two pieces into a pane of `node` working in `dir` and sends the first;
/// the partial files in `dir` are then checked by the caller.
fn half_an_upload(w: &World, node: &str, dir: &Path) {
    let r = w.post(
        "/api/subshells",
        &json!({ "nodeId": node, "harnessId": "shell", "cwd": dir.display().to_string() }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    wait_until("the shell to run", WAIT, || {
        (subshell(w, &id)["state"] == "running").then_some(())
    });
    let r = w.post(
        "/api/uploads",
        &json!({ "subshellId": id, "name": "big.bin", "size": 600_000 }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let up = r.json();
    let piece = up["pieceBytes"].as_u64().unwrap() as usize;
    let path = format!("/api/uploads/{}/pieces/0", up["uploadId"].as_str().unwrap());
    let data = vec![7u8; piece];
    let body = json!({ "dataB64": <base64ct::Base64 as base64ct::Encoding>::encode_string(&data) });
    let r = w.send("PUT", &path, Some(&body));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        partial_files(dir).len(),
        1,
        "the partial file while the upload runs"
    );
}

fn partial_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".part"))
        .collect()
}

#[test]
fn a_node_daemon_or_a_plane_that_stops_or_is_killed_mid_upload_leaves_no_partial_file() {
    let mut w = world("upload-stop", false);
    let dir = w.dir.join("work");
    // The node daemon is asked to stop (SIGTERM, as a service manager does).
    half_an_upload(&w, &w.node_id.clone(), &dir);
    let pid = w.node.as_ref().unwrap().id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let mut node = w.node.take().unwrap();
    wait_until("the daemon to exit", WAIT, || node.try_wait().unwrap());
    assert!(
        partial_files(&dir).is_empty(),
        "left behind: {:?}",
        partial_files(&dir)
    );
    // A daemon killed outright (SIGKILL) cannot clean up: its next start does.
    let links = |w: &World| w.node_log().matches("link established").count();
    let before = links(&w);
    w.start_node();
    wait_until("the daemon to link", WAIT, || {
        (links(&w) > before).then_some(())
    });
    half_an_upload(&w, &w.node_id.clone(), &dir);
    w.kill_node();
    assert_eq!(partial_files(&dir).len(), 1, "SIGKILL runs no clean-up");
    let before = links(&w);
    w.start_node();
    wait_until(
        "the restarted daemon to remove the partial file",
        WAIT,
        || partial_files(&dir).is_empty().then_some(()),
    );
    // Linked before the test goes on (a daemon stopped while it starts its tmux server can
    // leave that server running past the test).
    wait_until("the daemon to link", WAIT, || {
        (links(&w) > before).then_some(())
    });
    // The plane stops with an upload under way into a pane of its own host.
    let local = local_node(&w);
    let local_dir = w.dir.join("local-work");
    std::fs::create_dir_all(&local_dir).unwrap();
    half_an_upload(&w, &local, &local_dir);
    w.stop_plane();
    assert!(
        partial_files(&local_dir).is_empty(),
        "left behind: {:?}",
        partial_files(&local_dir)
    );
    assert!(!dir.join("big.bin").exists() && !local_dir.join("big.bin").exists());
}

#[test]
fn a_node_that_allows_only_other_directories_than_its_home_starts_there() {
    let w = world("allowed-start", false);
    let work = w.dir.join("work");
    let dirs_path = format!("/api/nodes/{}/allowed_dirs", w.node_id);
    // A directory that does not exist yet, and a file where a directory is named, are kept
    // (and restrict: nothing opens under them), pushed at once or at the node's next ready
    // alike: a list never fails open.
    let later = w.dir.join("not-yet");
    let file = w.dir.join("a-file");
    std::fs::write(&file, b"").unwrap();
    let r = w.send(
        "PUT",
        &dirs_path,
        Some(&json!({ "allowedDirs": [work.display().to_string(), later.display().to_string(), file.display().to_string()] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["allowedDirs"].as_array().map(Vec::len), Some(3));
    let r = w.post(
        "/api/subshells",
        &json!({ "nodeId": w.node_id, "harnessId": "shell", "cwd": w.dir.display().to_string() }),
    );
    assert_eq!(r.status, 422, "outside the list: {}", r.text());
    // The folder picker, asked for no path, starts in the allowed directory (the home, outside
    // it, would be refused).
    let listing = wait_until("the node to take the new list", WAIT, || {
        let r = w.get(&format!("/api/nodes/{}/dirs", w.node_id));
        (r.status == 200).then(|| r.json())
    });
    assert_eq!(listing["path"], work.display().to_string(), "{listing}");
    // A launch that names no directory starts there too.
    let r = w.post(
        "/api/subshells",
        &json!({ "nodeId": w.node_id, "harnessId": "shell" }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["cwd"], work.display().to_string());
}

#[test]
fn a_stop_or_kill_the_node_answers_too_late_still_ends_stopped() {
    let w = world("late-stop", false);
    let dir = w.dir.join("work");
    let signal = |sig: &str| signal_node(&w, sig);
    for op in ["terminate", "kill"] {
        let id = launch(&w, "shell", &dir)["id"].as_str().unwrap().to_owned();
        wait_until("the shell to run", WAIT, || {
            (subshell(&w, &id)["state"] == "running").then_some(())
        });
        // A frozen node: the command waits out its deadline and fails.
        signal("-STOP");
        let r = w.post(&format!("/api/subshells/{id}/{op}"), &json!({}));
        // The user asked for a stop: the row says so at once (its token is revoked), and the
        // stop is finished once the node answers, never read as a crash. Read while the node
        // is still frozen: once it runs again it may finish the stop before a read.
        let meanwhile = subshell(&w, &id);
        signal("-CONT");
        assert_eq!(r.status, 504, "{op}: {}", r.text());
        assert_eq!(meanwhile["state"], "stopping", "{op}: {meanwhile}");
        let row = wait_until("the stop to finish", WAIT, || {
            let row = subshell(&w, &id);
            (row["state"] != "stopping").then_some(row)
        });
        assert_eq!(row["state"], "stopped", "{op}: {row}");
        assert!(!node_has_pane(&w, &id), "{op}: the pane outlived the stop");
    }
}

/// A restart whose kill the frozen node answers too late (504) is finished once the node
/// answers: the row is `stopping` meanwhile (the old token revoked), then the subshell runs
/// again in a new pane, instead of ending `stopped` as if the user had asked for a stop.
#[test]
fn a_restart_the_node_answers_too_late_is_finished_when_it_answers() {
    let w = world("late-restart", false);
    let dir = w.dir.join("work");
    let id = launch(&w, "shell", &dir)["id"].as_str().unwrap().to_owned();
    wait_until("the shell to run", WAIT, || {
        (subshell(&w, &id)["state"] == "running").then_some(())
    });
    signal_node(&w, "-STOP");
    let r = w.post(&format!("/api/subshells/{id}/restart"), &json!({}));
    // Read while the node is still frozen: once it runs again the restart may finish first.
    let meanwhile = subshell(&w, &id);
    signal_node(&w, "-CONT");
    assert_eq!(r.status, 504, "{}", r.text());
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .contains("starts again once the node answers"),
        "{}",
        r.text()
    );
    assert_eq!(meanwhile["state"], "stopping", "{meanwhile}");
    let row = wait_until("the restart to finish", WAIT, || {
        let row = subshell(&w, &id);
        (row["state"] == "running").then_some(row)
    });
    assert_eq!(row["state"], "running", "{row}");
    assert!(node_has_pane(&w, &id), "no pane after the late restart");
}

/// A delete whose kill the frozen node answers too late: the subshell is deleted all the same
/// (204, as for a node out of reach) and its pane is killed once the node answers, instead of
/// an error that leaves a row the late kill then ends (read and notified as a crash).
#[test]
fn a_delete_the_node_answers_too_late_still_deletes_and_ends_the_pane() {
    let w = world("late-delete", false);
    let dir = w.dir.join("work");
    let id = launch(&w, "shell", &dir)["id"].as_str().unwrap().to_owned();
    wait_until("the shell to run", WAIT, || {
        (subshell(&w, &id)["state"] == "running").then_some(())
    });
    signal_node(&w, "-STOP");
    let r = w.send("DELETE", &format!("/api/subshells/{id}"), None);
    signal_node(&w, "-CONT");
    assert_eq!(r.status, 204, "{}", r.text());
    assert_eq!(w.get(&format!("/api/subshells/{id}")).status, 404);
    wait_until("the late kill to end the pane", WAIT, || {
        (!node_has_pane(&w, &id)).then_some(())
    });
    // Nothing came back to stand for it.
    assert_eq!(w.get(&format!("/api/subshells/{id}")).status, 404);
    let listed = w.get("/api/subshells").json();
    assert!(
        !listed.to_string().contains(&id),
        "the deleted subshell is listed again: {listed}"
    );
}

/// Sends `method` to `/api/subshells/{id}{suffix}` while the shell's node is frozen, waits for
/// the row to read `stopping`, kills the plane, thaws the node and starts the plane again; returns
/// the row once it has left `stopping`.
fn cut_short_by_a_plane_crash(
    tag: &str,
    method: &'static str,
    suffix: &str,
) -> (World, String, Value) {
    let mut w = world(tag, false);
    let dir = w.dir.join("work");
    let id = launch(&w, "shell", &dir)["id"].as_str().unwrap().to_owned();
    wait_until("the shell to run", WAIT, || {
        (subshell(&w, &id)["state"] == "running").then_some(())
    });
    signal_node(&w, "-STOP");
    let port = w.port;
    let headers = [
        ("Origin".to_owned(), w.base()),
        ("Cookie".to_owned(), w.cookie.clone()),
    ];
    let path = format!("/api/subshells/{id}{suffix}");
    let under_way = std::thread::spawn(move || {
        let h: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let body = (method == "POST").then(|| json!({}));
        let _ = http(port, method, &path, &h, body.as_ref());
    });
    // At once, long before the node command deadline (10 s) could make it so.
    wait_until("the row to be stopping", Duration::from_secs(5), || {
        (subshell(&w, &id)["state"] == "stopping").then_some(())
    });
    w.kill_plane();
    let _ = under_way.join();
    signal_node(&w, "-CONT");
    w.start_plane();
    let row = wait_until("the stop to be finished", WAIT, || {
        let row = subshell(&w, &id);
        (row["state"] != "stopping").then_some(row)
    });
    (w, id, row)
}

/// A delete under way to a frozen node when the plane is killed: the row was `stopping` before
/// the kill left, so the plane that comes back finishes a stop (`stopped`, no crash) when the
/// node runs the queued kill, instead of reading the pane's end as a crash.
#[test]
fn a_delete_cut_short_by_a_plane_crash_ends_stopped_not_crashed() {
    let (w, id, row) = cut_short_by_a_plane_crash("delete-crash", "DELETE", "");
    assert_eq!(row["state"], "stopped", "{row}");
    assert!(!node_has_pane(&w, &id));
    // It can be deleted now, at once.
    let r = w.send("DELETE", &format!("/api/subshells/{id}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
}

/// The same for a kill: the plane that comes back finds a stop to finish, not a crash.
#[test]
fn a_kill_cut_short_by_a_plane_crash_ends_stopped_not_crashed() {
    let (w, id, row) = cut_short_by_a_plane_crash("kill-crash", "POST", "/kill");
    assert_eq!(row["state"], "stopped", "{row}");
    assert!(!node_has_pane(&w, &id));
}

/// The same for a restart: the plane that comes back finds a stop to finish, not a crash.
#[test]
fn a_restart_cut_short_by_a_plane_crash_ends_stopped_not_crashed() {
    let (w, id, row) = cut_short_by_a_plane_crash("restart-crash", "POST", "/restart");
    assert_eq!(row["state"], "stopped", "{row}");
    assert!(!node_has_pane(&w, &id));
    // And it can be started again.
    let r = w.post(&format!("/api/subshells/{id}/restart"), &json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn a_node_with_live_subshells_is_not_deleted_until_they_end() {
    let w = world("delete-node", false);
    let dir = w.dir.join("work");
    let id = launch(&w, "shell", &dir)["id"].as_str().unwrap().to_owned();
    wait_until("the shell to run", WAIT, || {
        (subshell(&w, &id)["state"] == "running").then_some(())
    });
    let node_path = format!("/api/nodes/{}", w.node_id);
    let r = w.send("DELETE", &node_path, None);
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["code"], "NODE_HAS_LIVE_SUBSHELLS");
    assert_eq!(r.json()["metadata"]["subshells"][0]["id"], id.as_str());
    // Nothing moved: the node, its subshell and its pane are all there.
    assert_eq!(w.get(&node_path).status, 200);
    assert_eq!(subshell(&w, &id)["state"], "running");
    assert!(node_has_pane(&w, &id));
    let r = w.post(&format!("/api/subshells/{id}/kill"), &json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    let r = w.send("DELETE", &node_path, None);
    assert_eq!(r.status, 204, "{}", r.text());
    assert_eq!(w.get(&node_path).status, 404);
    assert!(!node_has_pane(&w, &id));
}

#[test]
fn maintenance_set_while_the_node_is_away_reaches_it_when_it_returns() {
    let mut w = world("maintenance-away", false);
    let node_path = format!("/api/nodes/{}", w.node_id);
    w.kill_node();
    w.wait_offline();
    let r = w.send(
        "PUT",
        &format!("{node_path}/maintenance"),
        Some(&json!({ "on": true })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["pushed"], false);
    w.start_node();
    w.wait_online(WAIT);
    // The owner's choice, newer than anything the node had, holds on both sides.
    let file = w.dir.join("xdg-data/termplane-node/maintenance.json");
    let on_node = wait_until("the node to take the mirror", WAIT, || {
        let text = std::fs::read_to_string(&file).ok()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        (v["on"] == true).then_some(v)
    });
    let row = w.get(&node_path).json();
    assert_eq!(row["maintenance"]["on"], true, "{row}");
    assert_eq!(
        row["maintenance"]["changedAt"], on_node["changedAt"],
        "{row}"
    );
}

/// Unmounts (lazily) the tmpfs on the path it holds, when dropped.
struct Unmount(Option<PathBuf>);

impl Drop for Unmount {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            let _ = Command::new("umount").arg("-l").arg(p).status();
        }
    }
}

/// A pane that fills its node's disk can still be killed: the node records the kill for its
/// replay guard in the space the guard keeps reserved, instead of refusing every command.
#[test]
fn a_pane_on_a_node_whose_disk_is_full_can_still_be_killed() {
    need("tmux", &["-V"]);
    // Dropped after the world: the node and its tmux server are gone before the unmount.
    let mut unmount = Unmount(None);
    let mut w = World::new("full-node-disk", Path::new(NODE));
    // The node's data directory (its replay guard, logs, tmux socket) on a small disk of its
    // own, holding what enrollment wrote there.
    let data = w.dir.join("xdg-data");
    let saved = w.dir.join("xdg-data.saved");
    std::fs::rename(&data, &saved).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=8m", "tmpfs"])
        .arg(&data)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: this test mounts a tmpfs (run as root)"
        );
        return;
    }
    unmount.0 = Some(data.clone());
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(format!("{}/.", saved.display()))
            .arg(&data)
            .status()
            .unwrap()
            .success()
    );
    w.start_node();
    w.wait_online(WAIT);
    let id = launch(&w, "shell", &w.dir.join("work"))["id"]
        .as_str()
        .unwrap()
        .to_owned();
    wait_until("the shell to run", WAIT, || {
        (subshell(&w, &id)["state"] == "running").then_some(())
    });
    // The disk fills up.
    let mut filler = std::fs::File::create(data.join("filler")).unwrap();
    let chunk = vec![0_u8; 64 * 1024];
    while let Ok(n) = std::io::Write::write(&mut filler, &chunk) {
        if n == 0 {
            break;
        }
    }
    drop(filler);
    assert!(std::fs::write(data.join("probe"), [1_u8; 8192]).is_err());
    // Commands go on running (each one recorded first), more than the slack of the guard's
    // last page could hold…
    for i in 0..64 {
        let r = w.post(
            &format!("/api/subshells/{id}/input"),
            &json!({ "text": "x" }),
        );
        assert_eq!(r.status, 200, "input {i}: {}", r.text());
    }
    // …and the kill that ends the pane.
    let r = w.post(&format!("/api/subshells/{id}/kill"), &json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["state"], "stopped");
    assert!(!node_has_pane(&w, &id));
    w.kill_node();
    w.kill_tmux();
    drop(unmount);
}

/// The stand-in in `dir` runs `calls` (`[tool, arguments]` pairs) through its MCP server first.
fn plan_calls(dir: &Path, calls: &Value) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("standin-plan.json"),
        json!({ "calls": calls }).to_string(),
    )
    .unwrap();
}

/// The audit actions the plane recorded on subshell `id`, oldest first, with their actor kind.
fn audited(w: &World, id: &str) -> Vec<(String, String)> {
    let audit = w.get(&format!("/api/audit?target={id}&limit=500")).json();
    let mut out: Vec<(String, String)> = audit
        .as_array()
        .or_else(|| audit["entries"].as_array())
        .unwrap()
        .iter()
        .filter(|e| e["target"] == id)
        .map(|e| {
            (
                e["action"].as_str().unwrap_or_default().to_owned(),
                e["actorKind"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    out.reverse();
    out
}

#[test]
fn a_pane_reads_stops_restarts_and_deletes_a_sibling_through_its_mcp_server() {
    let w = world("mcp-moves", true);
    // The sibling: a plain shell of the same owner, which has printed a marker into its log.
    let sib_dir = w.dir.join("work/sibling");
    std::fs::create_dir_all(&sib_dir).unwrap();
    let sib = launch(&w, "shell", &sib_dir)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = w.post(
        &format!("/api/subshells/{sib}/input"),
        &json!({ "text": "echo sibling-$((6*7))-marker", "keys": ["enter"] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the sibling's marker on its screen", WAIT, || {
        screen(&w, &sib).contains("sibling-42-marker").then_some(())
    });
    let read_log = json!(["read_log", { "subshellId": sib, "maxBytes": 65536 }]);

    // A pane with the default ceiling (`subshells: read`) reads the sibling's log, and its
    // moves are refused: the sibling runs on, its row untouched.
    let reader_dir = w.dir.join("work/reader");
    plan_calls(
        &reader_dir,
        &json!([
            read_log,
            ["stop_subshell", { "subshellId": sib }],
            ["delete_subshell", { "subshellId": sib }],
        ]),
    );
    launch(&w, "codex", &reader_dir);
    let rep = report(&reader_dir);
    let calls = rep["calls"].as_array().unwrap();
    assert_eq!(calls[0]["isError"], false, "{rep}");
    let log = &calls[0]["structured"];
    assert!(
        log["text"].as_str().unwrap().contains("sibling-42-marker"),
        "{log}"
    );
    assert_eq!(log["fromByte"], 0, "{log}");
    assert!(log["toByte"].as_u64().unwrap() <= log["size"].as_u64().unwrap());
    for refused in &calls[1..] {
        assert_eq!(refused["isError"], true, "{refused}");
        assert!(
            refused["text"]
                .as_str()
                .unwrap()
                .starts_with("refused (403 PERMISSION_DENIED)"),
            "{refused}"
        );
        assert!(refused["structured"].is_null(), "{refused}");
    }
    assert_eq!(subshell(&w, &sib)["state"], "running");
    assert!(audited(&w, &sib).iter().all(|(_, kind)| kind != "pane"));
    // The client saw every tool's effect.
    let hints = &rep["annotations"];
    assert_eq!(hints["read_log"]["readOnlyHint"], true, "{hints}");
    assert_eq!(hints["delete_subshell"]["destructiveHint"], true, "{hints}");
    assert_eq!(
        hints["restart_subshell"]["idempotentHint"], false,
        "{hints}"
    );
    assert_eq!(
        rep["outputSchemas"],
        json!([
            "create_channel",
            "delete_subshell",
            "launch_subshell",
            "list_channels",
            "list_files",
            "list_nodes",
            "list_subshells",
            "post_to_channel",
            "publish_file",
            "read_channel",
            "read_file",
            "read_log",
            "read_output",
            "report_attention",
            "report_status",
            "restart_subshell",
            "run_command",
            "stop_subshell",
            "terminate_subshell",
        ])
    );

    // A pane that may change its owner's subshells: kills the sibling, restarts it, stops it
    // gracefully and deletes it, each answer the row as the client checked it against the
    // tool's output schema.
    let writer_dir = w.dir.join("work/writer");
    plan_calls(
        &writer_dir,
        &json!([
            read_log,
            ["terminate_subshell", { "subshellId": sib }],
            ["restart_subshell", { "subshellId": sib }],
            ["stop_subshell", { "subshellId": sib }],
            ["delete_subshell", { "subshellId": sib }],
            ["read_log", { "subshellId": sib }],
        ]),
    );
    launch_with(
        &w,
        "claude-code",
        &writer_dir,
        &json!({ "permissions": { "channels": "read", "subshells": "write" } }),
    );
    let rep = report(&writer_dir);
    let calls = rep["calls"].as_array().unwrap();
    for c in &calls[..5] {
        assert_eq!(c["isError"], false, "{c}");
    }
    let state = |i: usize| calls[i]["structured"]["state"].as_str().unwrap().to_owned();
    assert_eq!(state(1), "stopped", "{}", calls[1]);
    assert_eq!(state(2), "running", "{}", calls[2]);
    assert!(
        ["stopping", "stopped"].contains(&state(3).as_str()),
        "{}",
        calls[3]
    );
    assert_eq!(
        calls[4]["structured"],
        json!({ "deleted": true, "subshellId": sib })
    );
    // Gone: the row, and the log the last call asked for.
    assert_eq!(calls[5]["isError"], true, "{}", calls[5]);
    assert!(
        calls[5]["text"].as_str().unwrap().contains("404"),
        "{}",
        calls[5]
    );
    assert_eq!(w.get(&format!("/api/subshells/{sib}")).status, 404);
    let by_pane: Vec<String> = audited(&w, &sib)
        .into_iter()
        .filter(|(_, kind)| kind == "pane")
        .map(|(action, _)| action)
        .collect();
    assert_eq!(
        by_pane,
        [
            "subshell.killed",
            "subshell.restarted",
            "subshell.terminated",
            "subshell.deleted"
        ],
        "{:?}",
        audited(&w, &sib)
    );
}

#[test]
fn a_pane_reports_its_agents_state_through_its_mcp_server() {
    let w = world("mcp-status", true);
    let dir = w.dir.join("work/reporter");
    plan_calls(
        &dir,
        &json!([
            ["report_status", { "state": "working", "summary": "reading the code" }],
            ["report_status", { "state": "needs_input", "summary": "may I run the migrations?" }],
            // A link that is not http(s) is refused, and changes nothing.
            ["report_status", { "state": "done", "summary": "x", "link": "javascript:alert(1)" }],
        ]),
    );
    let id = launch(&w, "codex", &dir)["id"].as_str().unwrap().to_owned();
    let rep = report(&dir);
    let calls = rep["calls"].as_array().unwrap();
    assert_eq!(calls[0]["isError"], false, "{rep}");
    assert_eq!(calls[0]["structured"]["state"], "working", "{rep}");
    assert_eq!(calls[1]["structured"]["state"], "needs_input", "{rep}");
    assert_eq!(calls[1]["structured"]["source"], "self_report", "{rep}");
    assert_eq!(calls[2]["isError"], true, "{rep}");
    assert!(
        calls[2]["text"]
            .as_str()
            .unwrap()
            .contains("INPUT_VALIDATION_ERROR"),
        "{rep}"
    );
    assert_eq!(
        rep["annotations"]["report_status"]["destructiveHint"], false,
        "{rep}"
    );
    let row = subshell(&w, &id);
    assert_eq!(row["agent"]["state"], "needs_input", "{row}");
    assert_eq!(
        row["agent"]["summary"], "may I run the migrations?",
        "{row}"
    );
    assert_eq!(row["status"], "needs_attention", "{row}");
    let transitions: Vec<String> = audited(&w, &id)
        .into_iter()
        .filter(|(action, kind)| action == "subshell.agent_state" && kind == "pane")
        .map(|(action, _)| action)
        .collect();
    assert_eq!(transitions.len(), 2, "{:?}", audited(&w, &id));
}

/// A pane lists the nodes its owner may launch on and reads a kept file by byte range through
/// its MCP server, each answer checked by a real MCP client against the tool's output schema.
#[test]
fn a_pane_lists_its_owners_nodes_and_reads_a_kept_file_through_its_mcp_server() {
    use base64ct::Encoding as _;
    let w = world("mcp-nodes-files", true);
    // A kept file of the owner's: text with a character across the first read's end.
    let text = "notes: café au lait\n";
    let r = w.post(
        "/api/files",
        &json!({ "name": "notes.txt", "size": text.len() }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let file = r.json()["fileId"].as_str().unwrap().to_owned();
    let r = w.send(
        "PUT",
        &format!("/api/files/{file}/pieces/0"),
        Some(&json!({ "dataB64": base64ct::Base64::encode_string(text.as_bytes()) })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let cut = text.find('é').unwrap() + 1;
    let dir = w.dir.join("work/reader");
    plan_calls(
        &dir,
        &json!([
            ["list_nodes", {}],
            ["read_file", { "fileId": file, "maxBytes": cut }],
            ["read_file", { "fileId": file, "fromByte": cut - 1 }],
            ["read_file", { "fileId": "no-such-file" }],
        ]),
    );
    launch(&w, "codex", &dir);
    let rep = report(&dir);
    let calls = rep["calls"].as_array().unwrap();
    for c in &calls[..3] {
        assert_eq!(c["isError"], false, "{c}");
    }
    // The plane's own host and the enrolled node, where this pane may launch.
    let nodes = calls[0]["structured"]["nodes"].as_array().unwrap();
    let enrolled = nodes
        .iter()
        .find(|n| n["isLocal"] == false)
        .expect("the enrolled node");
    assert_eq!(enrolled["canLaunch"], true, "{nodes:?}");
    assert_eq!(enrolled["liveness"], "online", "{nodes:?}");
    // The first read stops before the cut character; the next starts with it.
    let first = &calls[1]["structured"];
    assert_eq!(first["text"], "notes: caf", "{first}");
    assert_eq!(first["toByte"], cut - 1, "{first}");
    let rest = &calls[2]["structured"];
    assert_eq!(rest["text"], "é au lait\n", "{rest}");
    assert_eq!(rest["size"], text.len(), "{rest}");
    assert_eq!(rest["name"], "notes.txt", "{rest}");
    assert_eq!(calls[3]["isError"], true, "{}", calls[3]);
    assert!(
        calls[3]["text"].as_str().unwrap().contains("404"),
        "{}",
        calls[3]
    );
    for tool in ["list_nodes", "read_file"] {
        assert_eq!(rep["annotations"][tool]["readOnlyHint"], true, "{rep}");
    }
}

/// A pane runs commands in new panes through its MCP server and gets each one's exit code and
/// output, waiting on the plane's long-poll: a failing command, one killed at its timeout, and
/// one whose pane is kept; the others' panes are gone afterwards.
#[test]
fn a_pane_runs_a_command_in_a_new_pane_and_waits_for_its_exit_through_its_mcp_server() {
    let w = world("mcp-run", true);
    let work = w.dir.join("work/runs");
    std::fs::create_dir_all(&work).unwrap();
    let dir = w.dir.join("work/runner");
    plan_calls(
        &dir,
        &json!([
            ["run_command", {
                "command": "echo one; echo \"it's\" two >&2\nprintf 'caf\\303\\251 %s\\n' \"$PWD\"; exit 3",
                "cwd": work.to_string_lossy(),
            }],
            // The timeout counts from the call: long enough for the plane to type the command
            // into a new pane on a loaded host, far shorter than the command.
            ["run_command", { "command": "echo started; sleep 600", "timeoutSec": 20 }],
            ["run_command", { "command": "true", "keep": true }],
        ]),
    );
    launch_with(
        &w,
        "codex",
        &dir,
        &json!({ "permissions": { "channels": "read", "subshells": "write" } }),
    );
    let rep = report(&dir);
    let calls = rep["calls"].as_array().unwrap();
    for c in calls {
        assert_eq!(c["isError"], false, "{c}");
    }
    let failing = &calls[0]["structured"];
    assert_eq!(failing["exitCode"], 3, "{failing}");
    assert_eq!(failing["state"], "crashed", "{failing}");
    assert_eq!(failing["timedOut"], false, "{failing}");
    assert_eq!(
        failing["output"],
        format!("one\nit's two\ncafé {}", work.display()),
        "{failing}"
    );
    let slow = &calls[1]["structured"];
    assert_eq!(slow["timedOut"], true, "{slow}");
    assert_eq!(slow["state"], "stopped", "{slow}");
    assert_eq!(slow["output"], "started", "{slow}");
    let kept = &calls[2]["structured"];
    assert_eq!(
        (kept["exitCode"].as_i64(), kept["kept"].as_bool()),
        (Some(0), Some(true)),
        "{kept}"
    );
    assert_eq!(kept["state"], "exited", "{kept}");
    // Gone unless kept.
    for (c, status) in [(&calls[0], 404), (&calls[1], 404), (&calls[2], 200)] {
        let id = c["structured"]["subshellId"].as_str().unwrap();
        assert_eq!(w.get(&format!("/api/subshells/{id}")).status, status, "{c}");
    }
    assert_eq!(
        rep["annotations"]["run_command"]["destructiveHint"], true,
        "{rep}"
    );
}

/// The hooks the plane configures at launch, run as each harness runs them, report the pane's
/// agent state with its own token: Claude Code's command hooks (the event on stdin), Codex's
/// `notify` program (the event as an argument). Each hook exits 0, even one the plane refuses.
#[test]
fn the_hooks_the_plane_configures_report_the_agents_state() {
    let w = world("hooks", true);
    let dir = w.dir.join("work/claude-hooks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("standin-plan.json"),
        json!({ "hooks": [
            { "hook_event_name": "SessionStart", "source": "startup" },
            { "hook_event_name": "UserPromptSubmit", "prompt": "the secret is hunter2" },
            { "hook_event_name": "PermissionRequest", "tool_name": "Bash" },
        ] })
        .to_string(),
    )
    .unwrap();
    let id = launch(&w, "claude-code", &dir)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let rep = report(&dir);
    assert_eq!(rep["hooks"], json!([0, 0, 0]), "{rep}");
    let row = subshell(&w, &id);
    // The stand-in's attention report (after the hooks) kept the hook's words.
    assert_eq!(row["agent"]["state"], "needs_input", "{row}");
    assert_eq!(
        row["agent"]["summary"], "waiting for permission to use Bash",
        "{row}"
    );
    let trail: Vec<Value> = {
        let audit = w.get(&format!("/api/audit?target={id}&limit=500")).json();
        let mut v: Vec<Value> = audit
            .as_array()
            .or_else(|| audit["entries"].as_array())
            .unwrap()
            .iter()
            .filter(|e| e["action"] == "subshell.agent_state")
            .map(|e| json!([e["detail"]["to"], e["detail"]["source"]]))
            .collect();
        v.reverse();
        v
    };
    assert_eq!(
        trail,
        [
            json!(["idle", "hook"]),
            json!(["working", "hook"]),
            json!(["needs_input", "hook"])
        ]
    );
    assert!(!audited_details(&w, &id).contains("hunter2"));

    let dir = w.dir.join("work/codex-hooks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("standin-plan.json"),
        json!({ "hooks": [
            { "type": "agent-turn-complete", "turn-id": "1", "last-assistant-message": "hunter2" },
        ] })
        .to_string(),
    )
    .unwrap();
    let id = launch(&w, "codex", &dir)["id"].as_str().unwrap().to_owned();
    let rep = report(&dir);
    assert_eq!(rep["hooks"], json!([0]), "{rep}");
    let audit = audited_details(&w, &id);
    assert!(audit.contains("turn finished"), "{audit}");
    assert!(!audit.contains("hunter2"));
}

/// Every audit entry on subshell `id`, as one text.
fn audited_details(w: &World, id: &str) -> String {
    w.get(&format!("/api/audit?target={id}&limit=500")).text()
}

/// The screen signal on an enrolled node, for a harness with no hooks: the node reports the
/// pane quiet with its screen, a question the harness's plugin knows on it makes the agent
/// `needs_input` (said by the screen) and tells its owner once the need has held, and the pane
/// printing again ends the need and marks that notification read.
#[test]
fn a_question_on_the_quiet_screen_of_a_node_pane_needs_its_owner_once_and_printing_again_clears_it()
{
    let mut w = world("screen-signal", true);
    w.stop_plane();
    w.plane_env
        .push(("TERMPLANE_NOTIFY_HOLD_SECS".into(), "1".into()));
    w.start_plane();
    w.wait_online(WAIT);
    let dir = w.dir.join("work").join("screen");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("standin-plan.json"), r#"{"silent": true}"#).unwrap();
    let s = launch(&w, "opencode", &dir);
    let id = s["id"].as_str().unwrap().to_owned();
    let agent = |w: &World| subshell(w, &id)["agent"].clone();
    let agent_where = |what: &str, f: &dyn Fn(&Value) -> bool| {
        wait_until(what, WAIT, || Some(agent(&w)).filter(|a| f(a)))
    };
    // Quiet, and its screen shows nothing opencode shows: the screen says it cannot tell.
    read_report(&dir);
    let a = agent_where("the screen's word on the quiet pane", &|a| {
        a["source"] == "screen" && a["state"] == "unknown"
    });
    assert_eq!(
        a["summary"], "quiet; the screen shows nothing recognised",
        "{a}"
    );
    let type_text = |text: &str| {
        let r = w.post(
            &format!("/api/subshells/{id}/input"),
            &json!({ "text": text, "keys": ["enter"] }),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    };
    // opencode's permission prompt, shown and left: the agent needs its owner.
    type_text("Permission required");
    let a = agent_where("needs_input from the screen", &|a| {
        a["state"] == "needs_input"
    });
    assert_eq!(a["source"], "screen", "{a}");
    assert!(
        a["summary"]
            .as_str()
            .unwrap()
            .contains("Permission required"),
        "{a}"
    );
    let told = |w: &World| w.notifications_about(&id);
    let n = wait_until("the owner told", WAIT, || {
        told(&w).into_iter().find(|n| n["kind"] == "needs_input")
    });
    assert!(n["readAt"].is_null(), "{n}");
    // Answered: the pane prints (working), the need leaves and what was told is read.
    type_text("clear");
    agent_where("working again", &|a| a["state"] != "needs_input");
    wait_until("the notification read", WAIT, || {
        told(&w)
            .iter()
            .all(|n| !n["readAt"].is_null())
            .then_some(())
    });
    assert_eq!(told(&w).len(), 1, "{:?}", told(&w));
    // Each change of state is in the audit trail, by the plane, from the screen.
    let audit = w.get(&format!("/api/audit?target={id}&limit=100")).json();
    let entries = audit
        .as_array()
        .or_else(|| audit["entries"].as_array())
        .unwrap()
        .clone();
    let from_screen: Vec<&str> = entries
        .iter()
        .rev()
        .filter(|e| e["action"] == "subshell.agent_state" && e["detail"]["source"] == "screen")
        .map(|e| e["detail"]["to"].as_str().unwrap())
        .collect();
    // Printing at its start, quiet with nothing recognised, printing what was typed, the
    // question left on screen, printing again (then quiet once more, maybe, by now).
    assert_eq!(
        from_screen[..5],
        ["working", "unknown", "working", "needs_input", "working"],
        "{from_screen:?}"
    );
    assert!(
        entries
            .iter()
            .filter(|e| e["action"] == "subshell.agent_state" && e["detail"]["source"] == "screen")
            .all(|e| e["actorKind"] == "plane" && e["actorUserId"].is_null()),
        "{entries:?}"
    );
}

/// What the real `asciinema cat` (PyPI's asciinema 2.4.0, installed by tools/test.sh) prints
/// of the cast `file`.
fn asciinema_cat(file: &Path) -> String {
    let out = match Command::new("asciinema").arg("cat").arg(file).output() {
        Ok(o) => o,
        Err(e) => panic!("asciinema is not installed ({e}): pip install asciinema==2.4.0"),
    };
    assert!(
        out.status.success(),
        "asciinema cat failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The records of a pane's timing file (`recordings/<id>.timing` in the node's data directory).
fn timing_records(w: &World, id: &str) -> Vec<termplane_exec::recording::Record> {
    let path = w
        .dir
        .join(format!("xdg-data/termplane-node/recordings/{id}.timing"));
    let bytes = std::fs::read(&path).unwrap_or_default();
    termplane_exec::recording::decode_all(&bytes)
        .unwrap_or_else(|at| panic!("{}: no record at byte {at}", path.display()))
}

/// Every pane's output is recorded with its timing next to its log, whether or not anyone
/// watches (see `termplane_exec::recording`): the grid it started on and each resize, the start
/// of each incarnation at the log's size then, and output records in order, in time, that end
/// where the log ends; a restart appends a new incarnation to the same recording; the recording
/// is private as the log is, and goes with it when the subshell is deleted.
#[test]
fn a_pane_flooding_its_log_is_kept_to_its_cap_on_disk_stays_live_and_exports_marked_truncated() {
    use std::os::unix::fs::MetadataExt as _;
    need("tmux", &["-V"]);
    let mut w = World::new("log-cap", Path::new(NODE));
    w.node_env
        .push(("TERMPLANE_PANE_LOG_KEEP_MIB".into(), "1".into()));
    w.start_node();
    w.wait_online(WAIT);
    let dir = w.dir.join("work");
    let s = launch(&w, "shell", &dir);
    let id = s["id"].as_str().unwrap().to_owned();
    wait_until("the shell to run", WAIT, || {
        (subshell(&w, &id)["state"] == "running").then_some(())
    });
    // About 6.4 MB of output, six times the cap, then a line to find at the end.
    let r = w.post(
        &format!("/api/subshells/{id}/input"),
        &json!({ "text": "seq -w 1 800000; echo flood-$((6*7))-done", "keys": ["enter"] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let log_path = w.dir.join(format!("xdg-data/termplane-node/logs/{id}.log"));
    if !termplane_exec::recording::can_punch_holes(log_path.parent().unwrap()) {
        // A file system that cannot free a file's start: the log stops at its cap instead,
        // and the pane runs on.
        wait_until(
            "the flood's end on the screen",
            Duration::from_secs(60),
            || screen(&w, &id).contains("flood-42-done").then_some(()),
        );
        let len = std::fs::metadata(&log_path).unwrap().len();
        assert!(len < 2 * 1024 * 1024, "{len} bytes logged past a 1 MiB cap");
        return;
    }
    wait_until(
        "the flood's end in the log",
        Duration::from_secs(60),
        || {
            let log = std::fs::read(&log_path).unwrap();
            String::from_utf8_lossy(&log[log.len().saturating_sub(4096)..])
                .contains("flood-42-done")
                .then_some(())
        },
    );
    let meta = std::fs::metadata(&log_path).unwrap();
    assert!(
        meta.len() > 6_000_000,
        "every offset is kept: {}",
        meta.len()
    );
    assert!(
        meta.blocks() * 512 < 2 * 1024 * 1024,
        "{} bytes on disk for a cap of 1 MiB",
        meta.blocks() * 512
    );
    // The pane is still live: its output still reaches the plane.
    let r = w.post(
        &format!("/api/subshells/{id}/input"),
        &json!({ "text": "echo after-$((5*5))", "keys": ["enter"] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the pane to answer after its log was trimmed", WAIT, || {
        screen(&w, &id).contains("after-25").then_some(())
    });
    // Its log reads from the first kept byte; its recording exports the kept part, marked.
    let r = w.get(&format!("/api/subshells/{id}/logs?fromByte=0"));
    assert_eq!(r.status, 200, "{}", r.text());
    let from = r.json()["fromByte"].as_u64().unwrap();
    assert!(from > 4_000_000, "read from {from}");
    let cast = wait_until("the export to hold the last answer", WAIT, || {
        let r = w.get(&format!("/api/subshells/{id}/recording/cast"));
        assert_eq!(r.status, 200, "{}", r.text());
        let t = r.text();
        t.contains("after-25").then_some(t)
    });
    let first: Value = serde_json::from_str(cast.lines().nth(1).unwrap()).unwrap();
    assert_eq!(first, json!([0.0, "m", "recording truncated"]));
    assert!(
        !cast.contains("000001\\r\\n"),
        "the dropped start is not in it"
    );
    let played = asciinema_cat_text(&w, &cast);
    assert!(played.contains("flood-42-done") && played.contains("after-25"));
}

#[test]
fn a_panes_output_is_recorded_with_its_timing_and_grid_beside_its_log() {
    use termplane_exec::recording::Record;
    let mut w = world("recording", false);
    let dir = w.dir.join("work");
    let began = termplane_exec::recording::now_us();
    let s = launch_with(&w, "shell", &dir, &json!({ "cols": 90, "rows": 30 }));
    let id = s["id"].as_str().unwrap().to_owned();
    wait_until("the shell to run", WAIT, || {
        (subshell(&w, &id)["state"] == "running").then_some(())
    });
    let r = w.post(
        &format!("/api/subshells/{id}/input"),
        &json!({ "text": "echo rec-$((6*7))", "keys": ["enter"] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the pane to answer", WAIT, || {
        screen(&w, &id).contains("rec-42").then_some(())
    });
    let r = w.post(
        &format!("/api/subshells/{id}/resize"),
        &json!({ "cols": 70, "rows": 20 }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let log_path = w.dir.join(format!("xdg-data/termplane-node/logs/{id}.log"));
    let log_len = || std::fs::metadata(&log_path).unwrap().len();
    // The last output's record is written once its group's time is over.
    let records = wait_until("the recording to reach the log's end", WAIT, || {
        let records = timing_records(&w, &id);
        records
            .iter()
            .any(|r| matches!(r, Record::Output { log_end, .. } if *log_end == log_len()))
            .then_some(records)
    });
    let ended = termplane_exec::recording::now_us();
    let grids: Vec<(u16, u16)> = records
        .iter()
        .filter_map(|r| match r {
            Record::Grid { cols, rows, .. } => Some((*cols, *rows)),
            _ => None,
        })
        .collect();
    assert_eq!(grids, [(90, 30), (70, 20)], "{records:?}");
    let starts: Vec<u64> = records
        .iter()
        .filter_map(|r| match r {
            Record::Start { log_size, .. } => Some(*log_size),
            _ => None,
        })
        .collect();
    assert_eq!(starts, [0], "{records:?}");
    // Each writer's records are in time order (an output record, written once its group is
    // over, may follow a grid record of a later time: readers order by time).
    let mut last = (began, began, 0);
    for r in &records {
        match r {
            Record::Output { at_us, log_end } => {
                assert!(
                    (last.0..=ended).contains(at_us),
                    "out of order: {records:?}"
                );
                assert!(*log_end > last.2, "output records go forward: {records:?}");
                last.0 = *at_us;
                last.2 = *log_end;
            }
            Record::Start { at_us, .. } | Record::Grid { at_us, .. } => {
                assert!(
                    (last.1..=ended).contains(at_us),
                    "out of order: {records:?}"
                );
                last.1 = *at_us;
            }
        }
    }
    // The recorded output is the pane's: the echo's answer lies within it.
    let log = std::fs::read(&log_path).unwrap();
    assert!(String::from_utf8_lossy(&log[..usize::try_from(last.2).unwrap()]).contains("rec-42"));
    use std::os::unix::fs::PermissionsExt as _;
    let timing = w
        .dir
        .join(format!("xdg-data/termplane-node/recordings/{id}.timing"));
    let mode = std::fs::metadata(&timing).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "timing file mode {mode:o}");

    // Exported as asciicast v2, it plays in the real asciinema player: what the pane printed,
    // on the grid it was printed on, at the times it was printed.
    let r = w.get(&format!("/api/subshells/{id}/recording/cast"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/x-asciicast"));
    // Saved under the subshell's name.
    let name = subshell(&w, &id)["name"].as_str().unwrap().to_owned();
    let plain: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    assert!(
        r.header("content-disposition")
            .is_some_and(|d| d.contains(&format!("filename=\"{plain}.cast\""))),
        "{:?}",
        r.headers
    );
    let cast = r.text();
    let mut lines = cast.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(
        (&header["version"], &header["width"], &header["height"]),
        (&json!(2), &json!(90), &json!(30)),
        "{header}"
    );
    let events: Vec<Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    let times: Vec<f64> = events.iter().map(|e| e[0].as_f64().unwrap()).collect();
    assert!(times.windows(2).all(|t| t[0] <= t[1]), "{times:?}");
    assert!(
        events.iter().any(|e| e[1] == "r" && e[2] == "70x20"),
        "the resize: {events:?}"
    );
    let played = asciinema_cat_text(&w, &cast);
    assert!(played.contains("rec-42"), "asciinema cat printed: {played}");
    // The pane's own log, byte for byte, is what the cast plays (all of it was UTF-8).
    let log_now = std::fs::read(&log_path).unwrap();
    let cast_text: String = events
        .iter()
        .filter(|e| e[1] == "o")
        .map(|e| e[2].as_str().unwrap())
        .collect();
    assert!(
        String::from_utf8_lossy(&log_now).starts_with(&cast_text) && !cast_text.is_empty(),
        "the cast's output is the log's"
    );

    // A restart is a new incarnation in the same recording, starting where the log stood.
    let r = w.post(&format!("/api/subshells/{id}/terminate"), &json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    let stopped_at = log_len();
    let r = w.post(&format!("/api/subshells/{id}/restart"), &Value::Null);
    assert!(r.status == 200 || r.status == 201, "{}", r.text());
    wait_until("the new incarnation's start", WAIT, || {
        let starts: Vec<u64> = timing_records(&w, &id)
            .iter()
            .filter_map(|r| match r {
                Record::Start { log_size, .. } => Some(*log_size),
                _ => None,
            })
            .collect();
        (starts.len() == 2).then_some(starts)
    })
    .iter()
    .for_each(|s| assert!(*s == 0 || *s >= stopped_at, "start at {s}"));
    // The export marks where the new incarnation starts, and still plays in asciinema.
    let r = w.get(&format!("/api/subshells/{id}/recording/cast"));
    assert_eq!(r.status, 200, "{}", r.text());
    let cast = r.text();
    let marks: Vec<Value> = cast
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e[1] == "m")
        .collect();
    assert_eq!(marks.len(), 1, "{marks:?}");
    assert_eq!(marks[0][2], "restarted");
    assert!(asciinema_cat_text(&w, &cast).contains("rec-42"));
    // A damaged timing file (a record of no known kind) does not cost the recording: the export
    // plays what was timed, marks where the timing stops, and plays the rest of the log untimed.
    {
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&timing)
            .unwrap();
        f.write_all(&[0xff; 16]).unwrap();
    }
    let r = w.get(&format!("/api/subshells/{id}/recording/cast"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(
        r.text().contains(r#""m","timing damaged"]"#),
        "{}",
        r.text()
    );
    assert!(asciinema_cat_text(&w, &r.text()).contains("rec-42"));
    // Deleted: the recording goes with the log.
    let r = w.send("DELETE", &format!("/api/subshells/{id}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    wait_until("the recording to go", WAIT, || {
        (!timing.exists() && !log_path.exists()).then_some(())
    });

    // Recording turned off on the plane: a pane launched then is logged, not recorded; its
    // export is its log, untimed.
    w.stop_plane();
    w.plane_env
        .push(("TERMPLANE_RECORDING".into(), "off".into()));
    w.start_plane();
    w.wait_online(WAIT);
    let s = launch(&w, "shell", &dir);
    let id = s["id"].as_str().unwrap().to_owned();
    wait_until("the shell to run", WAIT, || {
        (subshell(&w, &id)["state"] == "running").then_some(())
    });
    let r = w.post(
        &format!("/api/subshells/{id}/input"),
        &json!({ "text": "echo unrecorded-$((6*7))", "keys": ["enter"] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the pane to answer", WAIT, || {
        screen(&w, &id).contains("unrecorded-42").then_some(())
    });
    let r = w.post(
        &format!("/api/subshells/{id}/resize"),
        &json!({ "cols": 60, "rows": 20 }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let log_path = w.dir.join(format!("xdg-data/termplane-node/logs/{id}.log"));
    assert!(log_path.exists());
    assert!(
        !w.dir
            .join(format!("xdg-data/termplane-node/recordings/{id}.timing"))
            .exists(),
        "a pane launched with recording off has no timing"
    );
    let r = w.get(&format!("/api/subshells/{id}/recording/cast"));
    assert_eq!(r.status, 200, "{}", r.text());
    let events: Vec<Value> = r
        .text()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(events.iter().all(|e| e[0] == 0.0), "untimed: {events:?}");
    assert!(
        asciinema_cat_text(&w, &r.text()).contains("unrecorded-42"),
        "the log plays all the same"
    );
}

/// [`asciinema_cat`] of the cast `text`, written in the world's directory.
fn asciinema_cat_text(w: &World, text: &str) -> String {
    let file = w.dir.join("played.cast");
    std::fs::write(&file, text).unwrap();
    asciinema_cat(&file)
}
