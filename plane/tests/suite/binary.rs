//! The `termplane` binary as an operator runs it: its files are private whatever the data
//! directory's mode, and its log is plain text when it goes to a file or a pipe.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Running {
    child: std::process::Child,
    base: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(data_dir: &std::path::Path) -> Running {
    start_on(data_dir, "127.0.0.1:0")
}

fn start_on(data_dir: &std::path::Path, listen: &str) -> Running {
    // The local node (and its tmux server) is covered by the end-to-end tests of
    // agent/tests/suite/subshells.rs; these tests are about the plane process itself.
    let mut c = Command::new(env!("CARGO_BIN_EXE_termplane"));
    c.args(["serve", "--no-local-node", "--listen", listen, "--data-dir"])
        .arg(data_dir);
    running(c)
}

/// Runs `c` (a `termplane serve`, its log to a pipe) until it says where it serves.
fn running(mut c: Command) -> Running {
    let mut child = c
        .env_remove("RUST_LOG")
        .env_remove("APP_BASE_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let base = line
        .trim()
        .strip_prefix("termplane is running: open ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .trim_end_matches('/')
        .to_owned();
    Running { child, base }
}

fn post_setup(base: &str) -> String {
    post_setup_from(base, base)
}

fn post_setup_from(base: &str, origin: &str) -> String {
    let addr = base.strip_prefix("http://").unwrap();
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let body = r#"{"email":"a@example.test","displayName":"A","password":"long enough pw"}"#;
    write!(
        s,
        "POST /api/setup HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut all = String::new();
    s.read_to_string(&mut all).unwrap();
    all
}

fn mode(p: &std::path::Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_loopback_plane_is_addressed_as_localhost_and_its_literal_address_is_trusted_too() {
    let dir = common::tempdir("binary-localhost");
    let mut run = start(&dir);
    let port = run
        .base
        .strip_prefix("http://localhost:")
        .unwrap_or_else(|| panic!("a loopback plane prints a localhost URL, not {}", run.base))
        .to_owned();
    let foreign = post_setup_from(&run.base, &format!("http://127.0.0.2:{port}"));
    assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
    let answer = post_setup_from(&run.base, &format!("http://127.0.0.1:{port}"));
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    let _ = run.child.kill();
    let _ = run.child.wait();
}

#[test]
fn a_plane_on_every_address_with_no_base_url_says_to_set_one_and_serves_this_host_meanwhile() {
    let dir = common::tempdir("binary-every-address");
    let mut run = start_on(&dir, "0.0.0.0:0");
    let port = run
        .base
        .strip_prefix("http://localhost:")
        .unwrap_or_else(|| panic!("no one can browse to 0.0.0.0: printed {}", run.base))
        .to_owned();
    let answer = post_setup_from(
        &format!("http://127.0.0.1:{port}"),
        &format!("http://127.0.0.1:{port}"),
    );
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    let log = stop_for_log(&mut run);
    assert!(
        log.contains("with no APP_BASE_URL: set APP_BASE_URL to the address"),
        "{log}"
    );
}

#[test]
fn a_plane_on_a_busy_port_stops_before_it_touches_its_data_directory() {
    let dir = common::tempdir("binary-busy-port");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let data = dir.join("never-made");
    let out = Command::new(env!("CARGO_BIN_EXE_termplane"))
        .args(["serve", "--no-local-node", "--listen"])
        .arg(format!("127.0.0.1:{port}"))
        .arg("--data-dir")
        .arg(&data)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("termplane: cannot listen on 127.0.0.1:{port}")),
        "{err}"
    );
    assert!(!data.exists(), "a data directory was made: {err}");
}

#[test]
fn database_files_are_private_in_a_world_readable_data_dir_and_the_log_is_plain() {
    let dir = common::tempdir("binary");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut run = start(&dir);
    let answer = post_setup(&run.base);
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    let db = dir.join("termplane.db");
    let wal = dir.join("termplane.db-wal");
    // The write went to the WAL; wait for SQLite to have created it.
    termplane_test_support::wait_until("SQLite's WAL file", Duration::from_secs(10), || {
        wal.exists().then_some(())
    });
    for f in [&db, &wal, &dir.join("link.key"), &dir.join("signing.key")] {
        assert_eq!(mode(f), 0o600, "{}", f.display());
    }
    let shm = dir.join("termplane.db-shm");
    if shm.exists() {
        assert_eq!(mode(&shm), 0o600);
    }
    // Stop it and read its log.
    let log = stop_for_log(&mut run);
    assert!(
        !log.contains('\u{1b}'),
        "ANSI escapes in a piped log: {log}"
    );
    assert!(
        log.contains("readable by group or others"),
        "no warning about the 0755 data directory: {log}"
    );
}

#[test]
fn an_existing_readable_database_is_tightened_at_start() {
    let dir = common::tempdir("binary-existing");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let db = dir.join("termplane.db");
    {
        let run = start(&dir);
        assert!(post_setup(&run.base).starts_with("HTTP/1.1 201"));
    }
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let run = start(&dir);
    assert_eq!(mode(&db), 0o600);
    drop(run);
}

/// One request over a fresh connection to `addr`; answers the whole raw response.
fn raw(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    write!(s, "{head}\r\n{body}").unwrap();
    let mut all = String::new();
    s.read_to_string(&mut all).unwrap();
    all
}

/// Stops a plane and answers its log.
fn stop_for_log(run: &mut Running) -> String {
    let _ = run.child.kill();
    let _ = run.child.wait();
    let mut log = String::new();
    run.child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    log
}

#[test]
fn a_host_without_openat2_is_told_at_start_why_panes_cannot_run_there_and_the_plane_still_serves() {
    // A seccomp filter answers `openat2` with ENOSYS, as a kernel before Linux 5.6 does.
    let dir = common::tempdir("binary-no-openat2");
    let mut c = termplane_test_support::without_openat2(env!("CARGO_BIN_EXE_termplane").as_ref());
    c.args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&dir);
    let mut run = running(c);
    let addr = run.base.strip_prefix("http://").unwrap().to_owned();
    let health = raw(&addr, "GET", "/healthz", &[], "");
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    let log = stop_for_log(&mut run);
    assert!(
        log.contains("panes cannot run on this host")
            && log.contains("`openat2` system call is unavailable")
            && log.contains("Linux 5.6"),
        "the start-up log does not say why: {log}"
    );
    // Refused before its tmux server was started: nothing was left running for it.
    assert!(
        !dir.join("local-node/tmux.sock").exists(),
        "a tmux server was started for a node that cannot run panes"
    );
}

#[test]
fn a_network_plugin_listens_again_when_the_plane_restarts() {
    let dir = common::tempdir("binary-network");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let port = common::unused_port();
    let extra = format!("127.0.0.1:{port}");
    {
        let run = start(&dir);
        assert!(post_setup(&run.base).starts_with("HTTP/1.1 201"));
        let addr = run.base.strip_prefix("http://").unwrap().to_owned();
        let json = [
            ("Origin", run.base.as_str()),
            ("Content-Type", "application/json"),
        ];
        let signed = raw(
            &addr,
            "POST",
            "/api/auth/sign-in",
            &json,
            r#"{"email":"a@example.test","password":"long enough pw"}"#,
        );
        assert!(signed.starts_with("HTTP/1.1 200"), "{signed}");
        let cookie = signed
            .lines()
            .find_map(|l| l.strip_prefix("set-cookie: "))
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned();
        let mut with_cookie = json.to_vec();
        with_cookie.push(("Cookie", cookie.as_str()));
        let added = raw(
            &addr,
            "POST",
            "/api/network",
            &with_cookie,
            &format!(r#"{{"name":"lan","address":"{extra}"}}"#),
        );
        assert!(added.starts_with("HTTP/1.1 201"), "{added}");
        let there = raw(&extra, "GET", "/api/setup/status", &[], "");
        assert!(there.starts_with("HTTP/1.1 200"), "{there}");
    }
    // Stopped: nothing listens there any more.
    let mut closed = false;
    for _ in 0..100 {
        if std::net::TcpStream::connect(&extra).is_err() {
            closed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(closed, "{extra} still listens after the plane stopped");
    // Started again: the stored plugin listens again.
    let _run = start(&dir);
    let mut answer = String::new();
    for _ in 0..200 {
        if std::net::TcpStream::connect(&extra).is_ok() {
            answer = raw(&extra, "GET", "/api/setup/status", &[], "");
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// A descriptor the plane inherited from whoever started it (a shell's pipe, an ssh session's)
/// reaches none of the processes it starts: the local node's tmux server outlives the plane,
/// and holding such a descriptor open would keep the launcher waiting for good.
/// The pids of the processes whose command line names `path`.
fn naming(path: &std::path::Path) -> Vec<String> {
    let needle = path.to_string_lossy();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|p| p.chars().all(|c| c.is_ascii_digit()))
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&*needle))
        })
        .collect()
}

#[test]
fn an_inherited_descriptor_reaches_no_process_the_plane_starts() {
    assert!(
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success()),
        "this test needs tmux"
    );
    let dir = common::tempdir("binary-fds");
    let marker = dir.join("inherited-marker");
    let data = dir.join("data");
    // The shell opens descriptor 7 without close-on-exec, then becomes the plane.
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg("exec 7>>\"$1\"; shift; exec \"$@\"")
        .arg("sh")
        .arg(&marker)
        .arg(env!("CARGO_BIN_EXE_termplane"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .env_remove("RUST_LOG")
        .env_remove("APP_BASE_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let run = Running {
        child,
        base: line.trim().to_owned(),
    };
    let socket = data.join("local-node/tmux.sock");
    let holds_marker = |pid: &str| {
        std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
            fds.filter_map(Result::ok)
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|t| t == marker))
        })
    };
    // The plane itself still holds it (it was not closed, only kept from its children).
    let plane_pid = run.child.id().to_string();
    assert!(
        holds_marker(&plane_pid),
        "the shell's descriptor is missing"
    );
    // The tmux processes of the local node (its server, the plane's control client).
    let deadline = Instant::now() + Duration::from_secs(20);
    let tmux = loop {
        let found: Vec<String> = naming(&socket)
            .into_iter()
            .filter(|p| *p != plane_pid)
            .collect();
        if found.len() >= 2 || Instant::now() > deadline {
            break found;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let leaked: Vec<&String> = tmux.iter().filter(|p| holds_marker(p)).collect();
    // The plane first (so it starts no server again), then every process naming the socket:
    // `kill-server` with the plane's control client attached can leave both behind.
    drop(run);
    for pid in &naming(&socket) {
        let _ = Command::new("kill").args(["-9", pid]).status();
    }
    assert!(
        !tmux.is_empty(),
        "no tmux process of the local node was found"
    );
    assert!(
        leaked.is_empty(),
        "tmux processes {leaked:?} (of {tmux:?}) hold the inherited descriptor"
    );
}

/// Runs `termplane serve` on `data` until it exits (a start expected to fail).
fn serve_to_the_end(data: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_termplane"))
        .args([
            "serve",
            "--no-local-node",
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
        ])
        .arg(data)
        .env_remove("RUST_LOG")
        .env_remove("APP_BASE_URL")
        .output()
        .unwrap()
}

/// A data directory lost (or swapped) while its database is kept: the plane does not make new
/// keys every enrolled node would refuse; it stops, naming the missing key file, and writes none.
#[test]
fn a_plane_whose_data_directory_lost_its_keys_refuses_its_database_instead_of_making_new_ones() {
    let dir = common::tempdir("keys-bin");
    let url = format!("sqlite://{}?mode=rwc", dir.join("kept.db").display());
    let serve = |data: &std::path::Path| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_termplane"));
        c.args([
            "serve",
            "--no-local-node",
            "--listen",
            "127.0.0.1:0",
            "--database-url",
            &url,
            "--data-dir",
        ])
        .arg(data)
        .env_remove("RUST_LOG")
        .env_remove("APP_BASE_URL");
        c
    };
    // Starts a plane on `data` and stops it once it says it runs.
    let starts = |data: &std::path::Path| {
        let mut child = serve(data).stdout(Stdio::piped()).spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(line.starts_with("termplane is running"), "{line}");
        child.kill().unwrap();
        child.wait().unwrap();
    };
    let first = dir.join("first");
    starts(&first);
    let second = dir.join("second");
    let out = serve(&second).output().unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("refusing to start") && said.contains("link.key"),
        "{said}"
    );
    for f in ["link.key", "signing.key", "channels.key", "vapid.key"] {
        assert!(!second.join(f).exists(), "{f} was made");
    }
    // Given the first one's key files, it starts.
    for f in ["link.key", "signing.key", "channels.key", "vapid.key"] {
        std::fs::copy(first.join(f), second.join(f)).unwrap();
    }
    starts(&second);
}

/// A first start on a full disk fails with the reason and leaves no short key file behind:
/// once space is freed the plane starts (a key file cut short used to be refused as corrupt
/// at every later start).
#[test]
fn a_first_start_on_a_full_disk_leaves_no_short_key_file_and_the_next_start_works() {
    // Room, once freed, for a first start: its migrations' write-ahead log passes 1 MiB.
    let Some(disk) = common::SmallDisk::mount(4 * 1024 * 1024) else {
        return;
    };
    let data = disk.dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    disk.fill("filler");
    let out = serve_to_the_end(&data);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("No space left"), "{said}");
    for f in ["link.key", "signing.key"] {
        let p = data.join(f);
        assert!(
            std::fs::metadata(&p).map_or(true, |m| m.len() == 32),
            "{f} was left short"
        );
    }
    let left: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".new-"))
        .collect();
    assert!(left.is_empty(), "half-written files left: {left:?}");
    std::fs::remove_file(disk.dir.join("filler")).unwrap();
    let run = start(&data);
    assert!(post_setup(&run.base).starts_with("HTTP/1.1 201"));
}

/// A start without room for the database fails saying the disk is full (the pool's "timed out"
/// alone named no reason, and SQLite's own can be a "disk I/O error"), within its 10 s
/// connection timeout.
#[test]
fn a_start_without_room_for_the_database_says_the_disk_is_full() {
    let Some(disk) = common::SmallDisk::mount(1024 * 1024) else {
        return;
    };
    let data = disk.dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    // Room for the instance's two lock files (a page each), not for the database (which is
    // opened before the key files are read). With a little more room SQLite fails to grow its
    // write-ahead index instead and calls it a "disk I/O error": the plane says the disk is full.
    for room in [8, 20, 28] {
        disk_full_start(&disk, &data, room * 1024);
    }
}

fn disk_full_start(disk: &common::SmallDisk, data: &std::path::Path, room: u64) {
    disk.fill("filler");
    disk.free("filler", room);
    let started = Instant::now();
    let out = serve_to_the_end(data);
    assert!(!out.status.success());
    assert!(started.elapsed() < Duration::from_secs(60));
    let said = String::from_utf8_lossy(&out.stderr);
    let last = said.lines().last().unwrap_or_default();
    assert!(
        last.contains("cannot open database") && last.contains("disk is full"),
        "{room} bytes free: {said}"
    );
    std::fs::remove_file(disk.dir.join("filler")).unwrap();
    for f in std::fs::read_dir(data).unwrap() {
        std::fs::remove_file(f.unwrap().path()).unwrap();
    }
}

/// The plane's peak resident memory (kB).
fn peak_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Sign-in is open to anyone, and each password hash holds 19 MiB while it runs: a burst of
/// sign-ins at once (a stranger guessing sixteen addresses, each hashed against a stand-in so
/// that unknown addresses take as long as known ones) must not make the plane hold 19 MiB per
/// attempt (sixteen made it hold about 300 MiB more when each ran on a thread of the blocking
/// pool). At most two hash at once.
#[test]
fn a_burst_of_sign_ins_does_not_hold_a_password_hash_of_memory_each() {
    let dir = common::tempdir("binary-signins");
    let plane = start(&dir);
    let addr = plane.base.strip_prefix("http://").unwrap().to_owned();
    assert!(post_setup(&plane.base).starts_with("HTTP/1.1 201"));
    let sign_in = |who: &str, password: &str| {
        raw(
            &addr,
            "POST",
            "/api/auth/sign-in",
            &[
                ("Origin", plane.base.as_str()),
                ("Content-Type", "application/json"),
            ],
            &format!(r#"{{"email":"{who}","password":"{password}"}}"#),
        )
    };
    assert!(sign_in("a@example.test", "long enough pw").starts_with("HTTP/1.1 200"));
    let before = peak_kib(plane.child.id());
    let answers: Vec<String> = std::thread::scope(|s| {
        let all: Vec<_> = (0..16)
            .map(|i| s.spawn(move || sign_in(&format!("guess{i}@example.test"), "guessed pw")))
            .collect();
        all.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for a in &answers {
        assert!(a.starts_with("HTTP/1.1 401"), "{a}");
    }
    let after = peak_kib(plane.child.id());
    assert!(
        after < before + 100 * 1024,
        "peak resident memory grew from {before} kB to {after} kB over 16 sign-ins"
    );
    drop(plane);
    let _ = std::fs::remove_dir_all(&dir);
}
