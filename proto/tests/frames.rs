//! Round trips and refusals of every node-link frame.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use termplane_proto::command::*;
use termplane_proto::event::*;
use termplane_proto::frame::*;
use termplane_proto::{Claims, Key32, SubshellId};

fn sid(s: &str) -> SubshellId {
    SubshellId::parse(s).unwrap()
}

fn every_command() -> Vec<Command> {
    let s = || sid("0a1b-2c3d");
    vec![
        Command::Launch(Box::new(Launch {
            subshell_id: s(),
            argv: vec![HARNESS_BINARY_PLACEHOLDER.into(), "--flag".into()],
            resolve: Resolve {
                binary_name: "claude".into(),
                env_override: Some("CLAUDE_BIN".into()),
                known_paths: vec!["/usr/local/bin/claude".into()],
            },
            cwd: "/home/u/proj".into(),
            harness_id: "claude-code".into(),
            preset: Preset {
                env: [("A".to_string(), "1".to_string())].into(),
                flags: vec!["--x".into()],
                settings: Some(json!({"k": [1, 2]})),
                config_isolation: true,
            },
            credential_env: [("TERMPLANE_TOKEN".to_string(), "tp_x".to_string())].into(),
            mcp: Some(McpRegistration {
                path: "/home/u/.mcp.json".into(),
                file_content: "{}".into(),
                args: vec![],
                env: Default::default(),
                settings_entry: Some(SettingsEntry {
                    dir_env: "GEMINI_CLI_HOME".into(),
                    file: ".gemini/settings.json".into(),
                    keys: vec!["mcpServers".into(), "termplane".into()],
                    value: json!({ "command": "/usr/bin/termplane-node", "args": ["mcp"] }),
                }),
                settings_entries: vec![SettingsEntry {
                    dir_env: "GEMINI_CLI_HOME".into(),
                    file: ".gemini/settings.json".into(),
                    keys: vec!["hooks".into()],
                    value: json!({ "AfterAgent": [] }),
                }],
            }),
            resume: Some("abc".into()),
            cols: 120,
            rows: 40,
            best_effort_log: true,
            recording: Some(false),
        })),
        Command::Terminate(SubshellRef { subshell_id: s() }),
        Command::Kill(SubshellRef { subshell_id: s() }),
        Command::Forget(SubshellRef { subshell_id: s() }),
        Command::PromptDeliver(PromptDeliver {
            subshell_id: s(),
            text: "hello".into(),
            quiet_ms: Some(500),
            timeout_ms: None,
        }),
        Command::Input(Input {
            subshell_id: s(),
            data: "ls\r".into(),
            keys: vec![NamedKey::Enter, NamedKey::CtrlC],
        }),
        Command::Resize(Resize {
            subshell_id: s(),
            cols: 80,
            rows: 24,
        }),
        Command::Capture(Capture {
            subshell_id: s(),
            lines: Some(1000),
            replay: false,
        }),
        Command::PaneSize(SubshellRef { subshell_id: s() }),
        Command::PaneCursor(SubshellRef { subshell_id: s() }),
        Command::LogRead(LogRead {
            subshell_id: s(),
            from_byte: 10,
            max_bytes: 4096,
        }),
        Command::TimingRead(LogRead {
            subshell_id: s(),
            from_byte: 32,
            max_bytes: 4096,
        }),
        Command::RecordingTrim(RecordingTrim {
            subshell_id: s(),
            before_us: 1_780_000_000_000_000,
        }),
        Command::TailStart(TailStart {
            subshell_id: s(),
            sub_id: "t1".into(),
            from_byte: Some(0),
        }),
        Command::TailStop(TailStop {
            sub_id: "t1".into(),
        }),
        Command::StatDir(PathArg {
            path: "/tmp".into(),
        }),
        Command::PathExists(PathArg {
            path: "/tmp/x".into(),
        }),
        Command::FsLs(PathArg {
            path: String::new(),
        }),
        Command::WriteFile(WriteFile {
            path: "/tmp/up".into(),
            chunk_b64: "aGk".into(),
            chunk: 0,
            eof: true,
        }),
        Command::RemovePaths(RemovePaths {
            paths: vec!["/tmp/up".into()],
        }),
        Command::SetAllowedDirs(SetAllowedDirs { dirs: vec![] }),
        Command::Service(Service {
            action: ServiceAction::Restart,
            force: true,
        }),
        Command::AgentLogRead(AgentLogRead {
            from_byte: 0,
            max_bytes: 100,
        }),
        Command::SetServerUrl(SetServerUrl {
            url: "https://plane.example".into(),
        }),
        Command::SetLogLevel(SetLogLevel {
            level: LogLevel::Debug,
        }),
        Command::SetMaintenance(Maintenance {
            on: true,
            changed_at: "2026-11-22T10:00:00Z".into(),
        }),
        Command::Update(Update {
            version: "0.18.0".into(),
            url: "https://plane.example/api/downloads/node/linux-x64".into(),
            sha256: "00".repeat(32),
            force: None,
        }),
        Command::Probe(Probe {
            subshell_ids: vec![s()],
        }),
        Command::Inventory(Empty {}),
        Command::Detect(Detect {
            rules: vec![DetectRule {
                harness_id: "codex".into(),
                resolve: Resolve {
                    binary_name: "codex".into(),
                    ..Resolve::default()
                },
                version_args: vec!["--version".into()],
            }],
            env_names: vec!["OPENAI_API_KEY".into()],
        }),
        Command::Ping(Empty {}),
    ]
}

#[test]
fn every_command_of_the_table_round_trips_under_its_spec_name() {
    let cmds = every_command();
    // The specification's table has 28; `forget`, `timing_read` and `recording_trim` are this
    // build's own, sent only to a node that advertises them.
    assert_eq!(
        cmds.len(),
        31,
        "the command table has 28 commands, forget, timing_read and recording_trim"
    );
    for c in cmds {
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["type"], c.kind(), "{c:?}");
        let back: Command = serde_json::from_value(v).unwrap();
        assert_eq!(back, c);
    }
}

#[test]
fn update_keeps_its_frozen_wire_shape() {
    let v = json!({"type":"update","version":"0.18.0","url":"u","sha256":"ab","force":true});
    let c: Command = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(serde_json::to_value(&c).unwrap(), v);
    let v2 = json!({"type":"update","version":"0.18.0","url":"u","sha256":"ab"});
    assert!(serde_json::from_value::<Command>(v2).is_ok());
}

#[test]
fn commands_with_unknown_type_or_wrong_shape_are_refused() {
    for bad in [
        json!({"type":"format_disk"}),
        json!({"type":"ping","extra":1}),
        json!({"type":"resize","subshellId":"ab","cols":"80","rows":24}),
        json!({"type":"resize","subshellId":"../x","cols":80,"rows":24}),
        json!({"type":"terminate"}),
        json!({"type":"service","action":"reboot"}),
        json!({"type":"input","subshellId":"ab","keys":["C-c; kill-server"]}),
        json!({"type":"detect","rules":[]}),
        json!({"cmd":"ping"}),
        json!("ping"),
    ] {
        assert!(
            serde_json::from_value::<Command>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

fn every_event() -> Vec<Event> {
    vec![
        Event::Inventory(Inventory {
            harnesses: vec![HarnessEntry {
                harness_id: "codex".into(),
                installed: false,
                version: None,
                binary_path: None,
                reason: Some("not found".into()),
                checked_at: None,
            }],
            at: "2026-11-22T10:00:00Z".into(),
        }),
        Event::Maintenance(Maintenance {
            on: false,
            changed_at: "2026-11-22T10:00:00Z".into(),
        }),
        Event::Heartbeat(Heartbeat {
            at: "2026-11-22T10:00:00Z".into(),
        }),
        Event::Result(CommandResult::ok("j1", Some(json!({"pong":true})))),
        Event::Result(CommandResult::err("j2", "kills panes")),
        Event::Output(Output {
            sub_id: "t".into(),
            from_byte: 0,
            to_byte: 2,
            data_b64: "aGk".into(),
        }),
        Event::Exit(Exit {
            subshell_id: sid("abc"),
            exit_code: None,
            at: "2026-11-22T10:00:00Z".into(),
        }),
        Event::SubshellsReport(SubshellsReport {
            subshells: vec![SurvivingPane {
                subshell_id: sid("abc"),
                pane: "%3".into(),
                pid: Some(42),
            }],
        }),
        Event::Error(ErrorEvent {
            code: VERIFY_ERROR_CODE.into(),
            message: "bad signature".into(),
        }),
    ]
}

#[test]
fn every_event_round_trips_through_the_node_frame_decoder() {
    for e in every_event() {
        let text = NodeFrame::Event(e.clone()).to_json();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["type"], e.kind());
        assert_eq!(decode_node_frame(&text).unwrap(), NodeFrame::Event(e));
    }
}

#[test]
fn result_serializes_ref_and_data_names() {
    let text = NodeFrame::Event(Event::Result(CommandResult::ok("j", None))).to_json();
    assert_eq!(text, r#"{"type":"result","ref":"j","ok":true}"#);
    assert!(CommandResult::ok("j", None).is_well_formed());
    assert!(CommandResult::err("j", "x").is_well_formed());
    let incoherent = CommandResult {
        reference: "j".into(),
        ok: false,
        data: None,
        error: None,
        detail: None,
    };
    assert!(!incoherent.is_well_formed());
}

#[test]
fn link_frames_round_trip_with_their_t_tag() {
    let k = Key32([7; 32]);
    let kx = NodeFrame::Kx(Kx {
        eph: Key32([1; 32]),
        node_static: k,
    });
    let text = kx.to_json();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["t"], "kx");
    assert_eq!(v["pub"], k.to_b64());
    assert_eq!(decode_node_frame(&text).unwrap(), kx);

    let reg = NodeFrame::Register(Register { node_static: k });
    assert_eq!(decode_node_frame(&reg.to_json()).unwrap(), reg);

    let ok = PlaneFrame::RegisterOk(RegisterOk {
        control_encrypt_public_key: k,
    });
    let text = ok.to_json();
    assert!(text.contains("\"t\":\"register-ok\"") && text.contains("controlEncryptPublicKey"));
    assert_eq!(decode_plane_frame(&text).unwrap(), ok);
    assert_eq!(decode_plane_frame(r#"{"t":"ok"}"#).unwrap(), PlaneFrame::Ok);
    assert_eq!(PlaneFrame::Ok.to_json(), r#"{"t":"ok"}"#);
    let env = PlaneFrame::Command(Envelope {
        jws: "a.b.c".into(),
    });
    assert_eq!(decode_plane_frame(&env.to_json()).unwrap(), env);
}

#[test]
fn unknown_and_ambiguous_frames_get_typed_errors() {
    use DecodeError as E;
    type Check = fn(&DecodeError) -> bool;
    let cases: Vec<(&str, Check)> = vec![
        ("not json", |e| matches!(e, E::Json(_))),
        ("[1,2]", |e| matches!(e, E::NotObject)),
        ("{}", |e| matches!(e, E::MissingTag)),
        (r#"{"t":5}"#, |e| matches!(e, E::MissingTag)),
        (r#"{"t":"kx","type":"ready"}"#, |e| {
            matches!(e, E::AmbiguousTag)
        }),
        (
            r#"{"t":"hello"}"#,
            |e| matches!(e, E::UnknownType(t) if t == "hello"),
        ),
        (r#"{"type":"launch"}"#, |e| matches!(e, E::UnknownType(_))),
        (r#"{"jws":"a.b.c"}"#, |e| matches!(e, E::UnknownType(_))),
        (r#"{"t":"kx","eph":"x"}"#, |e| matches!(e, E::Shape { .. })),
        (r#"{"type":"heartbeat","at":"x","extra":1}"#, |e| {
            matches!(e, E::Shape { .. })
        }),
        (r#"{"type":"heartbeat","at":"x","at":"y"}"#, |e| {
            matches!(e, E::Json(_))
        }),
        (
            r#"{"type":"exit","subshellId":"zz","exitCode":1,"at":"x"}"#,
            |e| matches!(e, E::Shape { .. }),
        ),
    ];
    for (text, check) in cases {
        let err = decode_node_frame(text).unwrap_err();
        assert!(check(&err), "{text}: {err:?}");
    }
    assert!(matches!(
        decode_plane_frame(r#"{"t":"ok","x":1}"#),
        Err(E::Shape { .. })
    ));
    assert!(matches!(
        decode_plane_frame(r#"{"type":"ping"}"#),
        Err(E::UnknownType(_))
    ));
    assert!(matches!(
        decode_plane_frame(r#"{"jws":"a","jws":"b"}"#),
        Err(E::Json(_))
    ));
}

#[test]
fn kx_keys_of_wrong_length_or_spelling_are_shape_errors() {
    let good = Key32([0xfb; 32]).to_b64();
    assert!(good.contains('-') && good.contains('_'));
    let b31 = termplane_proto::key::b64url_encode(&[1; 31]);
    let b33 = termplane_proto::key::b64url_encode(&[1; 33]);
    for (eph, pubk) in [
        (json!(b31), json!(good)),
        (json!(b33), json!(good)),
        (json!(""), json!(good)),
        (json!(format!("{good}=")), json!(good)),
        (json!(good.replace('_', "/")), json!(good.replace('-', "+"))),
        (json!(12345), json!(good)),
        (json!(good), json!(null)),
    ] {
        let text = json!({"t":"kx","eph":eph,"pub":pubk}).to_string();
        assert!(decode_node_frame(&text).is_err(), "{text}");
    }
}

fn full_ready() -> serde_json::Value {
    json!({
        "type": "ready",
        "agentVersion": "0.17.0",
        "protocolVersion": 14,
        "os": "linux",
        "arch": "x86_64",
        "hostname": "box",
        "dataDir": "/home/u/.local/share/termplane-node",
        "capabilities": ["tail", "pane_cursor"],
        "selfInvoke": {"command": "/usr/local/bin/termplane-node", "args": []},
        "homeDir": "/home/u",
        "runtime": {
            "serviceManager": "systemd", "supervised": true, "pid": 42, "autostart": true,
            "linger": true, "panesAtRisk": false, "configPath": "/c", "logPath": "/l",
            "binaryPath": "/b", "debugLogging": false, "debugLoggingForced": false,
            "multiplexer": {"name": "tmux", "version": "3.3a"}
        },
        "maintenance": {"on": false, "changedAt": "2026-11-22T10:00:00Z"}
    })
}

#[test]
fn ready_carries_every_field_of_the_table() {
    let text = full_ready().to_string();
    let NodeFrame::Ready(r) = decode_node_frame(&text).unwrap() else {
        panic!("not ready")
    };
    assert_eq!(r.agent_version.as_deref(), Some("0.17.0"));
    assert_eq!(r.protocol_version, Some(14));
    assert_eq!(r.os, Os::Linux);
    assert_eq!(r.home_dir, "/home/u");
    assert_eq!(
        r.self_invoke.as_ref().unwrap().command,
        "/usr/local/bin/termplane-node"
    );
    assert_eq!(r.runtime.as_ref().unwrap().pid, 42);
    assert!(r.maintenance.is_some());
    // And it round-trips.
    let again = NodeFrame::Ready(r.clone()).to_json();
    assert_eq!(decode_node_frame(&again).unwrap(), NodeFrame::Ready(r));
}

#[test]
fn malformed_runtime_or_maintenance_is_dropped_without_refusing() {
    let mut v = full_ready();
    v["runtime"] = json!("systemd, trust me");
    v["maintenance"] = json!({"on": "yes"});
    let NodeFrame::Ready(r) = decode_node_frame(&v.to_string()).unwrap() else {
        panic!("not ready")
    };
    assert!(r.runtime.is_none());
    assert!(r.maintenance.is_none());
    assert_eq!(r.hostname, "box");
}

#[test]
fn ready_versions_of_any_shape_are_left_for_the_gates() {
    let mut v = full_ready();
    v["agentVersion"] = json!(17);
    v.as_object_mut().unwrap().remove("protocolVersion");
    let NodeFrame::Ready(r) = decode_node_frame(&v.to_string()).unwrap() else {
        panic!("not ready")
    };
    assert_eq!(r.agent_version, None);
    assert_eq!(r.protocol_version, None);
    let mut v = full_ready();
    v["os"] = json!("plan9");
    let NodeFrame::Ready(r) = decode_node_frame(&v.to_string()).unwrap() else {
        panic!("not ready")
    };
    assert_eq!(r.os, Os::Unknown);
}

#[test]
fn binding_decodes_strictly() {
    let b = Binding {
        node_id: "n1".into(),
        node_key: "tp_secret".into(),
        protocol_version: 14,
    };
    assert_eq!(decode_binding(&b.to_json_bytes()).unwrap(), b);
    assert!(
        !format!("{b:?}").contains("tp_secret"),
        "the node key never reaches logs"
    );
    for bad in [
        &br#"{"nodeId":"n1","nodeKey":"k"}"#[..],
        br#"{"nodeId":"n1","nodeKey":"k","protocolVersion":14,"x":1}"#,
        br#"{"nodeId":"n1","nodeId":"n2","nodeKey":"k","protocolVersion":14}"#,
        br#"{"nodeId":"n1","nodeKey":"k","protocolVersion":"14"}"#,
        b"\xff\xfe",
    ] {
        assert!(decode_binding(bad).is_err());
    }
}

#[test]
fn claims_refuse_unknown_members_and_non_integer_times() {
    let ok = json!({"iss":"termplane-control","aud":"node:n","jti":"j","iat":1,"exp":31,"seq":1,"cmd":{"type":"ping"}});
    let c: Claims = serde_json::from_value(ok.clone()).unwrap();
    assert_eq!(c.command().unwrap(), Command::Ping(Empty {}));
    assert_eq!(c.command_kind(), Some("ping"));
    for (k, v) in [
        ("nbf", json!(1)),
        ("iat", json!(1.5)),
        ("exp", json!("31")),
        ("seq", json!(-1)),
        ("aud", json!(["node:n"])),
    ] {
        let mut bad = ok.clone();
        bad[k] = v;
        assert!(
            serde_json::from_value::<Claims>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn decoders_never_panic_on_garbage() {
    let samples = [
        "",
        "{",
        "}",
        "null",
        "\"\"",
        "{\"t\":null}",
        "{\"type\":[]}",
        "\u{0}",
        "{\"t\":\"kx\",\"eph\":{}}",
        "{\"type\":\"ready\"}",
        "{\"type\":\"result\",\"ref\":1}",
    ];
    for s in samples {
        let _ = decode_node_frame(s);
        let _ = decode_plane_frame(s);
        let _ = decode_binding(s.as_bytes());
    }
    // A bare `{"type":"ready"}` is a ready frame with everything absent: the gates refuse it.
    assert!(matches!(
        decode_node_frame(r#"{"type":"ready"}"#),
        Ok(NodeFrame::Ready(r)) if r.agent_version.is_none()
    ));
}

#[test]
fn long_numbers_in_result_data_survive_a_decode_encode_round_trip() {
    // Found by fuzzing: without exact float parsing, a 170-digit number in relayed data changed
    // value between decoding and re-encoding.
    let text = format!(
        r#"{{"type":"result","ref":"j","ok":true,"data":{{"x":[1{},2.5,0.1,1e-300,"s",null]}}}}"#,
        "2".repeat(170)
    );
    let first = decode_node_frame(&text).unwrap();
    let again = decode_node_frame(&first.to_json()).unwrap();
    assert_eq!(again, first);
}

#[test]
fn refusal_strings_are_kept_exact_and_details_go_to_their_own_field() {
    let r = CommandResult::refusal("j", "download failed: HTTP 404");
    assert_eq!(r.error.as_deref(), Some("download failed"));
    assert_eq!(r.detail.as_deref(), Some("HTTP 404"));
    assert!(r.is_well_formed());
    let text = NodeFrame::Event(Event::Result(r.clone())).to_json();
    assert_eq!(
        text,
        r#"{"type":"result","ref":"j","ok":false,"error":"download failed","detail":"HTTP 404"}"#
    );
    assert_eq!(
        decode_node_frame(&text).unwrap(),
        NodeFrame::Event(Event::Result(r))
    );
    let r = CommandResult::refusal("j", "installed binary reports a different version (exit 3)");
    assert_eq!(
        r.error.as_deref(),
        Some("installed binary reports a different version")
    );
    assert_eq!(r.detail.as_deref(), Some("exit 3"));
    let r = CommandResult::refusal("j", "digest mismatch");
    assert_eq!(
        (r.error.as_deref(), r.detail),
        (Some("digest mismatch"), None)
    );
    // Other messages stay whole; a refusal string inside a longer word is not split.
    let r = CommandResult::refusal("j", "unsupportedness: x");
    assert_eq!(r.error.as_deref(), Some("unsupportedness: x"));
    // `detail` only on failures.
    let mut bad = CommandResult::ok("j", None);
    bad.detail = Some("x".into());
    assert!(!bad.is_well_formed());
}

#[test]
fn capture_names_the_screen_replay_only_when_it_is_asked_for() {
    let id = SubshellId::parse("0a1b").unwrap();
    let plain = Command::Capture(Capture {
        subshell_id: id.clone(),
        lines: None,
        replay: false,
    });
    let v = serde_json::to_value(&plain).unwrap();
    assert!(
        v.get("replay").is_none(),
        "an older node's strict decoder must not see it: {v}"
    );
    let replay = Command::Capture(Capture {
        subshell_id: id,
        lines: Some(2000),
        replay: true,
    });
    let v = serde_json::to_value(&replay).unwrap();
    assert_eq!(v["replay"], true);
    assert_eq!(serde_json::from_value::<Command>(v).unwrap(), replay);
}
