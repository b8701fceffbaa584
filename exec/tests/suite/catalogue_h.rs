//! Section H of the catalogue: node file operations against the allowlist (case 100, about the
//! node daemon's platform, is the daemon's: `agent/tests/suite/catalogue_h.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::os::unix::fs::{PermissionsExt as _, symlink};
use std::path::Path;
use std::time::{Duration, Instant};

use common::{Node, TempDir, b64};
use serde_json::{Value, json};

struct Fixture {
    node: Node,
    root: String,
    outside: TempDir,
}

fn fixture(tag: &str) -> Fixture {
    let node = Node::new(tag);
    let root = node.dir.path().join("allowed");
    std::fs::create_dir_all(&root).unwrap();
    let outside = TempDir::new(&format!("{tag}-out"));
    std::fs::write(outside.path().join("victim"), b"keep").unwrap();
    node.run(json!({ "type": "set_allowed_dirs", "dirs": [root.to_string_lossy()] }))
        .unwrap();
    Fixture {
        node,
        root: root.to_string_lossy().into_owned(),
        outside,
    }
}

fn write(n: &Node, path: &str, data: &[u8]) -> Result<Value, String> {
    n.run(json!({ "type": "write_file", "path": path, "chunk_b64": b64(data), "chunk": 0, "eof": true }))
}

fn remove(n: &Node, path: &str) -> Value {
    n.run(json!({ "type": "remove_paths", "paths": [path] }))
        .unwrap()
}

fn removed_ok(v: &Value) -> bool {
    v["failed"].as_array().unwrap().is_empty()
}

fn outside_untouched(f: &Fixture) {
    assert_eq!(
        std::fs::read(f.outside.path().join("victim")).unwrap(),
        b"keep"
    );
    let names: Vec<_> = std::fs::read_dir(f.outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "something appeared outside: {names:?}");
}

#[test]
fn h91_lexical_escapes_are_refused() {
    let f = fixture("h91");
    let r = &f.root;
    for p in [
        format!("{r}/../../etc/passwd"),
        format!("{r}/./../x"),
        "/etc/passwd".into(),
        "//etc".into(),
        format!("{r}//../.."),
        "..".into(),
        format!("{r}/.."),
        "relative/x".into(),
    ] {
        assert!(write(&f.node, &p, b"x").is_err(), "{p}");
        assert!(!removed_ok(&remove(&f.node, &p)), "{p}");
        assert!(
            f.node.run(json!({ "type": "fs_ls", "path": p })).is_err(),
            "{p}"
        );
    }
    outside_untouched(&f);
}

#[test]
fn h92_encoded_and_odd_forms_are_refused() {
    let f = fixture("h92");
    let r = &f.root;
    for p in [
        format!("{r}/%2e%2e%2f%2e%2e/x"),
        format!("{r}/%252e%252e/x"),
        format!("{r}/..%c0%af../x"),
        format!("{r}/\u{FF0E}\u{FF0E}/x"),
        format!("{r}/x\0/../../y"),
        format!("{r}/a\u{2215}b"),
    ] {
        assert!(write(&f.node, &p, b"x").is_err(), "{p:?}");
        assert!(!removed_ok(&remove(&f.node, &p)), "{p:?}");
    }
    // Non-UTF-8 cannot even be expressed: JSON strings are UTF-8, lone surrogates do not parse.
    let bad = format!(
        r#"{{"type":"write_file","path":"{r}/\udc80","chunk_b64":"","chunk":0,"eof":true}}"#
    );
    assert!(serde_json::from_str::<termplane_proto::Command>(&bad).is_err());
    let names: Vec<_> = std::fs::read_dir(r).unwrap().collect();
    assert!(names.is_empty(), "nothing may be created");
    outside_untouched(&f);
}

#[test]
fn h93_symlink_inside_allowlist_pointing_out_is_not_followed() {
    let f = fixture("h93");
    let r = Path::new(&f.root);
    let out = f.outside.path();
    let depth = r.components().count();
    let rel_up = format!(
        "{}{}",
        "../".repeat(depth),
        out.display().to_string().trim_start_matches('/')
    );
    let links = [
        ("abs", out.to_path_buf()),
        ("rel", Path::new(&rel_up).to_path_buf()),
        (
            "procroot",
            Path::new("/proc/self/root").join(out.strip_prefix("/").unwrap()),
        ),
        ("proccwd", Path::new("/proc/self/cwd").to_path_buf()),
        ("garbage", Path::new("/proc/self/fd/0").to_path_buf()),
    ];
    for (name, target) in &links {
        symlink(target, r.join(name)).unwrap();
    }
    // The relative link really does point out (so refusing it is the policy, not an accident).
    assert!(r.join("rel").join("victim").exists());
    for (name, _) in &links {
        let via = format!("{}/{name}", f.root);
        assert!(
            write(&f.node, &format!("{via}/new"), b"x").is_err(),
            "write through {name}"
        );
        assert!(
            write(&f.node, &format!("{via}/victim"), b"x").is_err(),
            "overwrite through {name}"
        );
        assert!(
            !removed_ok(&remove(&f.node, &format!("{via}/victim"))),
            "remove through {name}"
        );
        assert!(
            f.node.run(json!({ "type": "fs_ls", "path": via })).is_err(),
            "list through {name}"
        );
        // Writing onto the link itself does not follow it either.
        assert!(write(&f.node, &via, b"x").is_err(), "write onto {name}");
    }
    outside_untouched(&f);
    // Removing a link removes the link, never its target.
    assert!(removed_ok(&remove(&f.node, &format!("{}/abs", f.root))));
    assert!(!r.join("abs").exists());
    outside_untouched(&f);
    // A link that stays inside is fine for writes below it.
    std::fs::create_dir(r.join("d")).unwrap();
    symlink("d", r.join("inner")).unwrap();
    write(&f.node, &format!("{}/inner/ok", f.root), b"fine").unwrap();
    assert_eq!(std::fs::read(r.join("d/ok")).unwrap(), b"fine");
}

#[test]
fn h94_swap_race_never_touches_outside() {
    let f = fixture("h94");
    let r = Path::new(&f.root).to_path_buf();
    let out = f.outside.path().to_path_buf();
    std::fs::write(out.join("x"), b"keep").unwrap();
    std::fs::create_dir(out.join("sub")).unwrap();
    std::fs::write(out.join("sub/y"), b"keep").unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    let rr = r.clone();
    let oo = out.clone();
    let swapper = std::thread::spawn(move || {
        let mut n = 0_u32;
        while !flag.load(std::sync::atomic::Ordering::Relaxed) && n < 1_000_000 {
            n += 1;
            let d = rr.join("a");
            // Directory with files…
            let _ = std::fs::create_dir(&d);
            let _ = std::fs::write(d.join("x"), b"inside");
            let _ = std::fs::create_dir(d.join("sub"));
            let _ = std::fs::write(d.join("sub/y"), b"inside");
            // …swapped for a symlink to the outside.
            let tmp = rr.join(format!("a.{n}"));
            let _ = std::fs::rename(&d, &tmp);
            let _ = symlink(&oo, &d);
            std::thread::yield_now();
            let _ = std::fs::remove_file(&d);
            let _ = std::fs::remove_dir_all(&tmp);
        }
    });
    let start = Instant::now();
    let mut i = 0;
    // At least 100 rounds however slow the disk (each write syncs), at most 2,000 or 5 s beyond.
    while i < 2_000 && (i < 100 || start.elapsed() < Duration::from_secs(5)) {
        i += 1;
        let a = format!("{}/a", f.root);
        let _ = f.node.run(json!({ "type": "remove_paths", "paths": [format!("{a}/x"), format!("{a}/sub"), a.clone()] }));
        let _ = write(&f.node, &format!("{a}/x"), b"pwn");
        let _ = write(&f.node, &format!("{a}/sub/y"), b"pwn");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(i >= 100, "the race ran only {i} rounds");
    assert_eq!(std::fs::read(out.join("x")).unwrap(), b"keep");
    assert_eq!(std::fs::read(out.join("sub/y")).unwrap(), b"keep");
    assert_eq!(std::fs::read(out.join("victim")).unwrap(), b"keep");
    let mut names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, vec!["sub", "victim", "x"]);
    assert_eq!(std::fs::read_dir(out.join("sub")).unwrap().count(), 1);
}

#[test]
fn h95_hardlinked_file_is_not_truncated() {
    let f = fixture("h95");
    let link = Path::new(&f.root).join("hl");
    // Same file system needed for a hard link: put the "outside" file beside the allowed root.
    let shared = Path::new(&f.root).parent().unwrap().join("shared");
    std::fs::write(&shared, b"keep").unwrap();
    std::fs::hard_link(&shared, &link).unwrap();
    let e = write(&f.node, &link.to_string_lossy(), b"pwn").unwrap_err();
    assert!(e.contains("hard link"), "{e}");
    assert_eq!(std::fs::read(&shared).unwrap(), b"keep");
}

#[test]
fn h96_removing_the_root_or_empty_forms_is_refused() {
    let f = fixture("h96");
    std::fs::write(Path::new(&f.root).join("f"), b"x").unwrap();
    for p in [
        f.root.clone(),
        format!("{}/", f.root),
        String::new(),
        ".".into(),
        "/".into(),
    ] {
        let v = remove(&f.node, &p);
        assert!(!removed_ok(&v), "{p:?}: {v}");
    }
    assert!(Path::new(&f.root).join("f").exists());
    // Unrestricted mode refuses `/` too.
    let n = Node::new("h96u");
    assert!(!removed_ok(&remove(&n, "/")));
}

#[test]
fn h97_fifo_device_socket_are_not_written() {
    let f = fixture("h97");
    let r = Path::new(&f.root);
    assert!(
        std::process::Command::new("mkfifo")
            .arg(r.join("fifo"))
            .status()
            .unwrap()
            .success()
    );
    let _sock = std::os::unix::net::UnixListener::bind(r.join("sock")).unwrap();
    let mut targets = vec!["fifo", "sock"];
    if std::process::Command::new("mknod")
        .arg(r.join("dev"))
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success())
    {
        targets.push("dev");
    }
    let start = Instant::now();
    for t in targets {
        let e = write(&f.node, &r.join(t).to_string_lossy(), b"x").unwrap_err();
        assert!(e.contains("not a regular file"), "{t}: {e}");
    }
    assert!(start.elapsed() < Duration::from_secs(5), "a write blocked");
    assert!(r.join("fifo").exists());
}

#[test]
fn h98_prefix_confusion_is_refused() {
    let f = fixture("h98");
    let sibling = format!("{}2", f.root);
    std::fs::create_dir_all(&sibling).unwrap();
    assert!(
        write(&f.node, &format!("{sibling}/x"), b"x")
            .unwrap_err()
            .contains("outside")
    );
    assert!(!Path::new(&sibling).join("x").exists());
    // Trailing slash on the allowlist entry is normalised the same way.
    f.node
        .run(json!({ "type": "set_allowed_dirs", "dirs": [format!("{}/", f.root)] }))
        .unwrap();
    assert!(write(&f.node, &format!("{sibling}/x"), b"x").is_err());
    write(&f.node, &format!("{}/ok", f.root), b"x").unwrap();
}

#[test]
fn h99_fs_ls_is_capped_and_names_are_json_escaped() {
    let f = fixture("h99");
    let r = Path::new(&f.root);
    for i in 0..1_100 {
        std::fs::create_dir(r.join(format!("d{i:04}"))).unwrap();
    }
    std::fs::create_dir(r.join("anl\nesc\u{1b}[31m")).unwrap();
    std::fs::create_dir(r.join(".hidden")).unwrap();
    std::fs::write(r.join("afile"), b"x").unwrap();
    let v = f
        .node
        .run(json!({ "type": "fs_ls", "path": f.root }))
        .unwrap();
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1_000);
    assert_eq!(v["truncated"], true);
    assert!(
        entries
            .iter()
            .all(|e| e["name"] != ".hidden" && e["name"] != "afile")
    );
    let text = serde_json::to_string(&v).unwrap();
    assert!(text.contains("anl\\nesc\\u001b[31m"), "escaped names");
    assert!(!text.contains('\n') && !text.contains('\u{1b}'));
}

#[test]
fn chunked_write_then_rename_and_unrestricted_mode() {
    let n = Node::new("wf");
    let dest = n.dir.path().join("up.bin");
    let p = dest.to_string_lossy().into_owned();
    n.run(json!({ "type": "write_file", "path": p, "chunk_b64": b64(b"hello "), "chunk": 0, "eof": false })).unwrap();
    assert!(!dest.exists(), "nothing in place before eof");
    let v = n.run(json!({ "type": "write_file", "path": p, "chunk_b64": b64(b"world"), "chunk": 1, "eof": true })).unwrap();
    assert_eq!(v["bytes"], 11);
    assert_eq!(v["done"], true);
    assert_eq!(std::fs::read(&dest).unwrap(), b"hello world");
    assert!(
        n.run(json!({ "type": "write_file", "path": p, "chunk_b64": "", "chunk": 5, "eof": true }))
            .is_err()
    );
    let ex = n.run(json!({ "type": "path_exists", "path": p })).unwrap();
    assert_eq!(ex["exists"], true);
    assert!(removed_ok(&remove(&n, &p)));
    assert!(!dest.exists());
    let home = n.run(json!({ "type": "fs_ls", "path": "" })).unwrap();
    assert_eq!(home["path"], n.dir.path().to_string_lossy().as_ref());
}

/// A launch in the allowed root whose MCP registration file goes to `mcp_path`.
fn launch_with_mcp(f: &Fixture, id: &str, mcp_path: &str) -> Result<Value, String> {
    f.node.run(json!({
        "type": "launch", "subshellId": id, "argv": ["true"],
        "resolve": { "binaryName": "true" }, "cwd": f.root, "harnessId": "shell",
        "cols": 80, "rows": 24,
        "mcp": { "path": mcp_path, "fileContent": "{\"planted\":true}", "env": {} },
    }))
}

#[test]
fn h93_registration_files_go_to_the_nodes_own_mcp_directory_and_nowhere_else() {
    // The allowlist holds only `allowed/`; the node's data directory is outside it, and its
    // `mcp/` directory is where the plane puts registration files.
    let f = fixture("h93own");
    let own = f.node.exec.registrations_dir();
    let file = own.join("0a1b2c3d.json");
    launch_with_mcp(&f, "0a1b2c3d", &file.to_string_lossy()).unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), b"{\"planted\":true}");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&own), 0o700);
    // A symlink planted where the next file goes is replaced, not followed.
    let next = own.join("1a1b2c3d.json");
    symlink(f.outside.path().join("victim"), &next).unwrap();
    launch_with_mcp(&f, "1a1b2c3d", &next.to_string_lossy()).unwrap();
    assert!(
        !std::fs::symlink_metadata(&next)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    outside_untouched(&f);
    // Only plain names directly in it; anything else is judged by the allowlist, and refused.
    let data = own.parent().unwrap().to_string_lossy().into_owned();
    for (i, path) in [
        format!("{data}/mcp/.hidden.json"),
        format!("{data}/mcp/sub/x.json"),
        format!("{data}/mcp/../x.json"),
        format!("{data}/elsewhere.json"),
        format!("{data}/mcp/a b.json"),
    ]
    .iter()
    .enumerate()
    {
        let e = launch_with_mcp(&f, &format!("b{i}"), path).unwrap_err();
        assert!(e.starts_with("mcp registration file"), "{path}: {e}");
    }
    assert!(!own.join(".hidden.json").exists());
    assert!(!own.parent().unwrap().join("x.json").exists());
}

#[test]
fn h93_the_launch_mcp_file_never_leaves_the_allowlist() {
    let f = fixture("h93mcp");
    let out = f.outside.path().to_string_lossy().into_owned();
    let root = Path::new(&f.root);
    symlink(f.outside.path(), root.join("dirlink")).unwrap();
    symlink(f.outside.path().join("victim"), root.join("filelink")).unwrap();
    let cases = [
        // An absolute path outside the allowed directories.
        format!("{out}/planted.json"),
        // An existing file outside: never overwritten.
        format!("{out}/victim"),
        // Through a directory symlink inside the allowlist.
        format!("{}/dirlink/planted.json", f.root),
        format!("{}/dirlink/victim", f.root),
        // A final symlink inside the allowlist pointing out.
        format!("{}/filelink", f.root),
        // Lexical escapes.
        format!("{}/../planted.json", f.root),
        "relative/planted.json".to_owned(),
    ];
    for (i, path) in cases.iter().enumerate() {
        let e = launch_with_mcp(&f, &format!("a{i}"), path).unwrap_err();
        assert!(e.starts_with("mcp registration file"), "{path}: {e}");
        outside_untouched(&f);
    }
    // The symlinks themselves are left alone.
    assert!(
        std::fs::symlink_metadata(root.join("filelink"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}
