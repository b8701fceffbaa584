//! Files kept on the plane, through the real server: chunked uploads whose refusals keep
//! nothing, one blob per content, owners only, the caps, downloads with their name, and sending
//! a file into a real pane's directory on the local node.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::{Duration, Instant};

use base64ct::{Base64, Encoding};
use common::*;
use serde_json::json;
use sha2::Digest as _;

const PIECE: usize = 192 * 1024;

/// Uploads `bytes` as `name`; returns the kept file's id.
fn keep(p: &Plane, cookie: &str, name: &str, bytes: &[u8]) -> String {
    let r = p.call(
        cookie,
        "POST",
        "/api/files",
        Some(json!({"name": name, "size": bytes.len()})),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let v = r.json();
    assert_eq!(v["pieceBytes"], PIECE);
    let id = v["fileId"].as_str().unwrap().to_owned();
    let mut last = v;
    for (i, chunk) in bytes.chunks(PIECE).enumerate() {
        let r = p.call(
            cookie,
            "PUT",
            &format!("/api/files/{id}/pieces/{i}"),
            Some(json!({"dataB64": Base64::encode_string(chunk)})),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        last = r.json();
    }
    assert_eq!(last["done"], true, "{last}");
    id
}

fn files_dir(p: &Plane) -> std::path::PathBuf {
    p.svc.settings().data_dir.clone().unwrap().join("files")
}

fn blobs(p: &Plane) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(files_dir(p))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.len() == 64)
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn tmp_files(p: &Plane) -> usize {
    std::fs::read_dir(files_dir(p).join("tmp")).map_or(0, Iterator::count)
}

#[test]
fn a_file_is_kept_whole_downloaded_with_its_name_and_stored_once_per_content() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let bytes: Vec<u8> = (0..(PIECE * 2 + 1234)).map(|i| (i % 251) as u8).collect();
    let id = keep(&p, &admin, "notes ☂.bin", &bytes);
    let list = p.call(&admin, "GET", "/api/files", None).json();
    assert_eq!(list.as_array().unwrap().len(), 1);
    let sha = hex::encode(sha2::Sha256::digest(&bytes));
    assert_eq!(list[0]["sha256"], sha.as_str());
    assert_eq!(list[0]["size"], bytes.len());
    assert_eq!(list[0]["name"], "notes ☂.bin");

    let r = p.call(&admin, "GET", &format!("/api/files/{id}/content"), None);
    assert_eq!(r.status, 200);
    assert_eq!(r.body, bytes);
    assert_eq!(r.header("x-content-sha256"), Some(sha.as_str()));
    assert_eq!(
        r.header("content-disposition"),
        Some("attachment; filename=\"notes__.bin\"; filename*=UTF-8''notes%20%E2%98%82.bin")
    );

    // A byte range as JSON, for clients that read JSON only: anywhere in the file, the end
    // reads nothing, past it is refused.
    let range = |from: usize, max: usize| {
        p.call(
            &admin,
            "GET",
            &format!("/api/files/{id}/bytes?fromByte={from}&maxBytes={max}"),
            None,
        )
    };
    for (from, max) in [
        (0, 10),
        (PIECE - 3, 7),
        (bytes.len() - 5, 1_048_576),
        (bytes.len(), 1),
    ] {
        let r = range(from, max);
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        let got = Base64::decode_vec(v["dataB64"].as_str().unwrap()).unwrap();
        let to = (from + max).min(bytes.len());
        assert_eq!(got, bytes[from..to], "{from}+{max}");
        assert_eq!(
            (v["fromByte"].as_u64(), v["toByte"].as_u64()),
            (Some(from as u64), Some(to as u64))
        );
        assert_eq!(v["size"], bytes.len());
        assert_eq!(v["name"], "notes ☂.bin");
    }
    // Past the end: nothing, at the end.
    let past = range(bytes.len() + 1000, 1).json();
    assert_eq!(
        (past["fromByte"].as_u64(), past["toByte"].as_u64()),
        (Some(bytes.len() as u64), Some(bytes.len() as u64))
    );
    assert_eq!(past["dataB64"], "");
    for bad in [
        "maxBytes=0",
        "maxBytes=1048577",
        "fromByte=-1",
        "fromByte=x",
    ] {
        p.call(&admin, "GET", &format!("/api/files/{id}/bytes?{bad}"), None)
            .error(400);
    }

    // The same content again: a second row, one blob.
    let again = keep(&p, &admin, "copy.bin", &bytes);
    assert_eq!(blobs(&p), vec![sha.clone()]);
    assert_eq!(tmp_files(&p), 0);
    let r = p.call(&admin, "DELETE", &format!("/api/files/{id}"), None);
    assert_eq!(r.status, 204);
    assert_eq!(blobs(&p), vec![sha.clone()], "still named by the copy");
    let r = p.call(&admin, "DELETE", &format!("/api/files/{again}"), None);
    assert_eq!(r.status, 204);
    assert!(blobs(&p).is_empty(), "the last row took its blob");
    p.call(&admin, "GET", &format!("/api/files/{id}"), None)
        .error(404);

    // An empty file is kept at once.
    let r = p.call(
        &admin,
        "POST",
        "/api/files",
        Some(json!({"name": "empty", "size": 0})),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["done"], true);
}

#[test]
fn a_bad_piece_abandons_the_upload_and_keeps_nothing() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let start = |size: usize| {
        let r = p.call(
            &admin,
            "POST",
            "/api/files",
            Some(json!({"name": "f", "size": size})),
        );
        assert_eq!(r.status, 201, "{}", r.text());
        r.json()["fileId"].as_str().unwrap().to_owned()
    };
    let piece = |id: &str, i: usize, n: usize| {
        p.call(
            &admin,
            "PUT",
            &format!("/api/files/{id}/pieces/{i}"),
            Some(json!({"dataB64": Base64::encode_string(&vec![7u8; n])})),
        )
    };
    // Out of order.
    let id = start(PIECE * 2);
    assert_eq!(piece(&id, 1, PIECE).error(409), "UPLOAD_ABANDONED");
    assert_eq!(piece(&id, 0, PIECE).error(404), "NOT_FOUND");
    // Wrong size after a good piece.
    let id = start(PIECE * 2);
    assert_eq!(piece(&id, 0, PIECE).status, 200);
    assert_eq!(piece(&id, 1, 10).error(409), "UPLOAD_ABANDONED");
    // Not base64.
    let id2 = start(10);
    let r = p.call(
        &admin,
        "PUT",
        &format!("/api/files/{id2}/pieces/0"),
        Some(json!({"dataB64": "***"})),
    );
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
    // Abandoned by DELETE.
    let r = p.call(&admin, "DELETE", &format!("/api/files/{id2}"), None);
    assert_eq!(r.status, 204);
    assert_eq!(p.call(&admin, "GET", "/api/files", None).json(), json!([]));
    assert_eq!(tmp_files(&p), 0, "no partial file left");
    assert!(blobs(&p).is_empty());
    // Abandoned by silence.
    let id3 = start(PIECE * 2);
    assert_eq!(piece(&id3, 0, PIECE).status, 200);
    p.clock.advance_ms(61_000);
    start(1);
    assert_eq!(piece(&id3, 1, PIECE).error(404), "NOT_FOUND");
    assert_eq!(tmp_files(&p), 1, "only the fresh upload's file");
}

#[test]
fn files_are_their_owners_alone_and_capped() {
    let p = Plane::start();
    let admin = p.setup_admin();
    p.create_user(&admin, "o@example.test", "user");
    let other = p.sign_in("o@example.test", PASSWORD);
    let id = keep(&p, &admin, "secret.txt", b"mine");
    for (m, path) in [
        ("GET", format!("/api/files/{id}")),
        ("GET", format!("/api/files/{id}/content")),
        ("GET", format!("/api/files/{id}/bytes")),
        ("DELETE", format!("/api/files/{id}")),
    ] {
        p.call(&other, m, &path, None).error(404);
    }
    assert_eq!(p.call(&other, "GET", "/api/files", None).json(), json!([]));
    assert_eq!(
        p.call(&admin, "GET", "/api/files", None)
            .json()
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // 64 MiB per file; 1 GiB per account, uploads in progress included.
    let r = p.call(
        &other,
        "POST",
        "/api/files",
        Some(json!({"name": "big", "size": 64 * 1024 * 1024 + 1})),
    );
    r.error(400);
    for _ in 0..16 {
        let r = p.call(
            &other,
            "POST",
            "/api/files",
            Some(json!({"name": "big", "size": 64 * 1024 * 1024})),
        );
        assert_eq!(r.status, 201, "{}", r.text());
    }
    let r = p.call(
        &other,
        "POST",
        "/api/files",
        Some(json!({"name": "one more", "size": 1})),
    );
    assert_eq!(r.error(409), "QUOTA_EXCEEDED");
    // Another account is not held back by it.
    keep(&p, &admin, "small", b"x");
    // At most 64 uploads are in progress on the plane at once (the 16 above among them); the
    // next waits for one to end, and its refusal leaves nothing behind.
    let mut started = Vec::new();
    for _ in 16..64 {
        let r = p.call(
            &admin,
            "POST",
            "/api/files",
            Some(json!({"name": "pending", "size": 1})),
        );
        assert_eq!(r.status, 201, "{}", r.text());
        started.push(r.json()["fileId"].as_str().unwrap().to_owned());
    }
    let before = tmp_files(&p);
    let r = p.call(
        &admin,
        "POST",
        "/api/files",
        Some(json!({"name": "one too many", "size": 1})),
    );
    assert_eq!(r.error(409), "UPLOADS_BUSY");
    assert_eq!(tmp_files(&p), before);
    let r = p.call(
        &admin,
        "DELETE",
        &format!("/api/files/{}", started[0]),
        None,
    );
    assert!(r.status < 300, "{}", r.text());
    let r = p.call(
        &admin,
        "POST",
        "/api/files",
        Some(json!({"name": "now it fits", "size": 1})),
    );
    assert_eq!(r.status, 201, "{}", r.text());
}

#[test]
fn a_kept_file_is_sent_into_a_panes_directory() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.system_key(&admin);
    let node = common::local::attach(&p);
    let r = p
        .req()
        .method("POST")
        .path("/api/subshells")
        .bearer(&key)
        .json(json!({ "nodeId": node.node_id, "harnessId": "shell", "cwd": node.work.to_string_lossy() }))
        .send();
    assert_eq!(r.status, 201, "{}", r.text());
    let sub = r.json()["id"].as_str().unwrap().to_owned();
    let until = Instant::now() + Duration::from_secs(20);
    while p
        .get(&format!("/api/subshells/{sub}"))
        .bearer(&key)
        .send()
        .json()["state"]
        != "running"
    {
        assert!(Instant::now() < until, "the pane never ran");
        std::thread::sleep(Duration::from_millis(50));
    }
    let bytes: Vec<u8> = (0..(PIECE + 99)).map(|i| (i % 13) as u8).collect();
    let r = p
        .req()
        .method("POST")
        .path("/api/files")
        .bearer(&key)
        .json(json!({"name": "brief.md", "size": bytes.len()}))
        .send();
    let id = r.json()["fileId"].as_str().unwrap().to_owned();
    for (i, c) in bytes.chunks(PIECE).enumerate() {
        let r = p
            .req()
            .method("PUT")
            .path(&format!("/api/files/{id}/pieces/{i}"))
            .bearer(&key)
            .json(json!({"dataB64": Base64::encode_string(c)}))
            .send();
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let send_it = |overwrite: bool| {
        p.req()
            .method("POST")
            .path(&format!("/api/files/{id}/send"))
            .bearer(&key)
            .json(json!({"subshellId": sub, "overwrite": overwrite}))
            .send()
    };
    let r = send_it(false);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["done"], true);
    assert_eq!(std::fs::read(node.work.join("brief.md")).unwrap(), bytes);
    assert_eq!(send_it(false).error(409), "UPLOAD_EXISTS");
    std::fs::write(node.work.join("brief.md"), b"changed").unwrap();
    assert_eq!(send_it(true).status, 200);
    assert_eq!(std::fs::read(node.work.join("brief.md")).unwrap(), bytes);
    // The admin's session sees none of the system account's files.
    p.call(
        &admin,
        "POST",
        &format!("/api/files/{id}/send"),
        Some(json!({"subshellId": sub})),
    )
    .error(404);
}

/// An upload whose piece is being written still counts against its owner's quota: with the
/// account full of uploads in progress and pieces arriving on them all the time, no new start
/// is let in (the pending bytes used to be summed only over uploads not busy with a piece).
#[test]
fn uploads_busy_with_a_piece_still_count_against_the_quota() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let ids: Vec<String> = (0..16)
        .map(|_| {
            let r = p.call(
                &admin,
                "POST",
                "/api/files",
                Some(json!({"name": "big", "size": 64 * 1024 * 1024})),
            );
            assert_eq!(r.status, 201, "{}", r.text());
            r.json()["fileId"].as_str().unwrap().to_owned()
        })
        .collect();
    let piece = Base64::encode_string(&vec![7_u8; PIECE]);
    let writing = std::sync::atomic::AtomicUsize::new(ids.len());
    let deadline = Instant::now() + Duration::from_secs(60);
    let let_in = std::thread::scope(|s| {
        for id in &ids {
            let (p, admin, piece, writing) = (&p, &admin, &piece, &writing);
            s.spawn(move || {
                let mut i = 0;
                while i < 12 {
                    let r = p.call(
                        admin,
                        "PUT",
                        &format!("/api/files/{id}/pieces/{i}"),
                        Some(json!({"dataB64": piece})),
                    );
                    // Sixteen writers share the plane's database connections; on a loaded
                    // host one may wait past the pool's timeout and be told to come back
                    // (503 with `Retry-After`): it sends the piece again at once (the request
                    // itself waited the pool's 10 s).
                    let busy = r.status == 503 && r.json()["code"] == "DATABASE_UNAVAILABLE";
                    if !busy {
                        assert_eq!(r.status, 200, "{}", r.text());
                        i += 1;
                    }
                    if Instant::now() > deadline {
                        break;
                    }
                }
                writing.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
            });
        }
        let mut let_in = Vec::new();
        while writing.load(std::sync::atomic::Ordering::SeqCst) > 0 && Instant::now() < deadline {
            let r = p.call(
                &admin,
                "POST",
                "/api/files",
                Some(json!({"name": "one more", "size": 1})),
            );
            // Refused one way or the other: over the quota (409), or told to come back
            // because the writers hold the database's connections (503, as they are).
            let refused =
                r.status == 409 || (r.status == 503 && r.json()["code"] == "DATABASE_UNAVAILABLE");
            if !refused {
                let_in.push(r.text());
            }
        }
        let_in
    });
    assert!(
        let_in.is_empty(),
        "starts let in past the quota: {let_in:?}"
    );
}

#[test]
fn deleting_an_account_removes_the_bytes_of_its_kept_files() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let carol_id = p.create_user(&admin, "carol@example.test", "user");
    let carol = p.sign_in("carol@example.test", common::PASSWORD);
    keep(&p, &carol, "only-hers.txt", b"carol's own bytes");
    // The same content kept by another account stays: its blob is shared.
    keep(&p, &carol, "shared.txt", b"the same bytes");
    keep(&p, &admin, "shared.txt", b"the same bytes");
    assert_eq!(blobs(&p).len(), 2);
    let r = p.call(&admin, "DELETE", &format!("/api/users/{carol_id}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    assert_eq!(blobs(&p).len(), 1, "{:?}", blobs(&p));
    let mine = p.get("/api/files").header("Cookie", &admin).send().json();
    assert_eq!(mine.as_array().unwrap().len(), 1, "{mine}");
}

/// A plane whose data directory is a fresh 24 MiB tmpfs (its SQLite database too), and that
/// disk, to fill; `None` where a tmpfs cannot be mounted (see [`SmallDisk::mount`]).
fn plane_on_small_disk() -> Option<(SmallDisk, Plane)> {
    let disk = SmallDisk::mount(24 * 1024 * 1024)?;
    let p = Plane::start_with(Opts {
        data_dir: Some(disk.dir.clone()),
        ..Opts::default()
    });
    Some((disk, p))
}

/// A disk that fills up under an upload answers 507 `STORAGE_FULL` (not a bare 500): the
/// upload is abandoned with no partial file left, nothing is listed, and the same file is kept
/// once space is freed. On SQLite the database shares the disk: a change that finds it full
/// answers 507 too and leaves no row behind, and the same change goes through afterwards.
#[test]
fn a_full_disk_answers_507_storage_full_and_keeps_nothing() {
    let Some((disk, p)) = plane_on_small_disk() else {
        return;
    };
    let admin = p.setup_admin();
    let bytes: Vec<u8> = (0..PIECE * 4).map(|i| (i % 253) as u8).collect();
    let r = p.call(
        &admin,
        "POST",
        "/api/files",
        Some(json!({"name": "report.bin", "size": bytes.len()})),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["fileId"].as_str().unwrap().to_owned();
    // Room for one piece and a little more, then the disk is full.
    disk.fill("filler");
    disk.free("filler", PIECE as u64 + 64 * 1024);
    let mut answers = Vec::new();
    for (i, chunk) in bytes.chunks(PIECE).enumerate() {
        let r = p.call(
            &admin,
            "PUT",
            &format!("/api/files/{id}/pieces/{i}"),
            Some(json!({"dataB64": Base64::encode_string(chunk)})),
        );
        answers.push(r.status);
        if r.status != 200 {
            assert_eq!(r.error(507), "STORAGE_FULL");
            break;
        }
    }
    assert_eq!(
        answers,
        [200, 507],
        "one piece fits, the next finds the disk full"
    );
    assert_eq!(tmp_files(&p), 0, "the partial file is removed");
    assert!(blobs(&p).is_empty());
    let r = p.call(
        &admin,
        "PUT",
        &format!("/api/files/{id}/pieces/2"),
        Some(json!({"dataB64": Base64::encode_string(&bytes[..PIECE])})),
    );
    assert_eq!(r.error(404), "NOT_FOUND", "the upload was abandoned");
    let list = p.call(&admin, "GET", "/api/files", None).json();
    assert_eq!(list, json!([]));

    if !on_postgres() {
        // The database's next commit needs a page the disk no longer has.
        disk.fill("filler2");
        let r = p.call(
            &admin,
            "POST",
            "/api/users",
            Some(json!({"email": "dana@example.test", "displayName": "Dana", "password": PASSWORD, "role": "user"})),
        );
        assert_eq!(r.error(507), "STORAGE_FULL");
        std::fs::remove_file(disk.dir.join("filler2")).unwrap();
        let users = p.call(&admin, "GET", "/api/users", None).json();
        assert!(
            !users.to_string().contains("dana@example.test"),
            "no half-written account: {users}"
        );
        let r = p.call(
            &admin,
            "POST",
            "/api/users",
            Some(json!({"email": "dana@example.test", "displayName": "Dana", "password": PASSWORD, "role": "user"})),
        );
        assert_eq!(r.status, 201, "{}", r.text());
    }

    std::fs::remove_file(disk.dir.join("filler")).unwrap();
    keep(&p, &admin, "report.bin", &bytes);
    assert_eq!(blobs(&p).len(), 1);
    drop(p);
}

/// A revocation must take effect even when the disk is full: signing out and disabling or
/// deleting a system key are in force at once (the credential is refused from then on), and
/// written once the disk has room again.
#[test]
fn revocations_on_a_full_disk_take_effect_at_once_and_are_written_later() {
    if on_postgres() {
        // The database is not on the small disk there.
        return;
    }
    let Some((disk, p)) = plane_on_small_disk() else {
        return;
    };
    let admin = p.setup_admin();
    let other = p.sign_in(ADMIN, PASSWORD);
    let (first_id, first) = p.system_key(&admin);
    let (second_id, second) = p.system_key(&admin);
    let works = |key: &str| p.get("/api/users").bearer(key).send().status;
    let cookie_works = |c: &str| p.get("/api/auth/session").header("Cookie", c).send().status;
    assert_eq!(
        (works(&first), works(&second), cookie_works(&other)),
        (200, 200, 200)
    );
    disk.fill("filler");
    // Any other write finds the disk full.
    let r = p.call(
        &admin,
        "POST",
        "/api/system-keys",
        Some(json!({"name": "more"})),
    );
    assert_eq!(r.error(507), "STORAGE_FULL");
    let r = p.call(
        &admin,
        "POST",
        &format!("/api/system-keys/{first_id}/disable"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = p.call(
        &admin,
        "DELETE",
        &format!("/api/system-keys/{second_id}"),
        None,
    );
    assert_eq!(r.status, 204, "{}", r.text());
    let r = p.call(&other, "POST", "/api/auth/sign-out", None);
    assert!(r.status < 300, "{}", r.text());
    assert_eq!(works(&first), 401);
    assert_eq!(works(&second), 401);
    assert_eq!(cookie_works(&other), 401);
    assert_eq!(cookie_works(&admin), 200, "only the session signed out");
    // Once there is room, the revocations are written.
    std::fs::remove_file(disk.dir.join("filler")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let keys = p.call(&admin, "GET", "/api/system-keys", None).json();
        let list = keys.as_array().unwrap();
        let first_off = list
            .iter()
            .any(|k| k["id"] == first_id.as_str() && k["enabled"] == false);
        let second_gone = !list.iter().any(|k| k["id"] == second_id.as_str());
        if first_off && second_gone {
            break;
        }
        assert!(Instant::now() < deadline, "never written: {keys}");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(works(&first), 401);
    assert_eq!(works(&second), 401);
    assert_eq!(cookie_works(&other), 401);
}

/// A session signed out on a full disk ends its sockets at once too: its live feed closes
/// with 4403 although the session's row is still in the database (the revocation is held in
/// memory until the disk has room), as it does when the sign-out is written.
#[test]
fn a_sign_out_on_a_full_disk_closes_the_sessions_live_feed_at_once() {
    if on_postgres() {
        // The database is not on the small disk there.
        return;
    }
    let Some((disk, p)) = plane_on_small_disk() else {
        return;
    };
    let admin = p.setup_admin();
    let other = p.sign_in(ADMIN, PASSWORD);
    let r = p.call(&other, "POST", "/api/auth/ws-token", Some(json!({})));
    assert_eq!(r.status, 201, "{}", r.text());
    let token = r.json()["token"].as_str().unwrap().to_owned();
    let origin = p.origin();
    let mut feed = termplane_test_support::viewer::Viewer::open(
        p.addr,
        &format!("/api/live?token={token}"),
        &[("Origin", origin.as_str())],
    )
    .unwrap();
    feed.until("hello", |t| t.has("hello", |_| true));
    disk.fill("filler");
    let r = p.call(&other, "POST", "/api/auth/sign-out", None);
    assert!(r.status < 300, "{}", r.text());
    let deadline = Instant::now() + Duration::from_secs(5);
    while feed.closed.is_none() {
        assert!(
            Instant::now() < deadline,
            "the feed of a session signed out on a full disk is still open"
        );
        feed.pump(Duration::from_millis(100));
    }
    assert_eq!(feed.closed.as_ref().map(|c| c.0), Some(4403));
    // The other session of the account is not affected.
    let r = p.get("/api/auth/session").header("Cookie", &admin).send();
    assert_eq!(r.status, 200);
}

/// Pieces of one upload sent at once, a wrong one among them: the wrong one abandons the
/// upload, and a good piece that was already on its way (it fetched the upload and waited for
/// the piece before it) is told the upload is gone (404), not a server fault from writing to a
/// partial file that was removed. Nothing is kept either way.
#[test]
fn a_piece_racing_the_one_that_abandons_its_upload_is_refused_cleanly() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let good = Base64::encode_string(&vec![3_u8; PIECE]);
    // As long as a good piece, so it takes as long to arrive and be read.
    let short = Base64::encode_string(&vec![3_u8; PIECE - 1]);
    let mut seen = std::collections::BTreeMap::new();
    for round in 0..40 {
        let r = p.call(
            &admin,
            "POST",
            "/api/files",
            Some(json!({"name": "raced", "size": 3 * PIECE})),
        );
        assert_eq!(r.status, 201, "{}", r.text());
        let id = r.json()["fileId"].as_str().unwrap().to_owned();
        // Piece 2 is never sent, so the upload cannot end whole; the short piece 1 (a byte
        // short) is wrong whenever it arrives (too short, or out of order), so it always
        // abandons the upload. Half the rounds send it before the good piece 1, half after.
        let mut sends = [("0", &good), ("1 (short)", &short), ("1", &good)];
        if round % 2 == 1 {
            sends.swap(1, 2);
        }
        let statuses: Vec<(&str, u16, String)> = std::thread::scope(|s| {
            let handles: Vec<_> = sends
                .iter()
                .enumerate()
                .map(|(k, (what, data))| {
                    let (p, admin, id) = (&p, &admin, &id);
                    let index = &what[..1];
                    s.spawn(move || {
                        // The first piece leads; the other two follow it together.
                        if k > 0 {
                            std::thread::sleep(Duration::from_micros(500));
                        }
                        let r = p.call(
                            admin,
                            "PUT",
                            &format!("/api/files/{id}/pieces/{index}"),
                            Some(json!({"dataB64": data})),
                        );
                        (*what, r.status, r.text())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (what, status, body) in statuses {
            assert!(
                [200, 404, 409].contains(&status),
                "piece {what}: {status} {body}"
            );
            *seen.entry((what, status)).or_insert(0) += 1;
        }
        // The upload is gone: a further piece finds nothing.
        let r = p.call(
            &admin,
            "PUT",
            &format!("/api/files/{id}/pieces/0"),
            Some(json!({"dataB64": good})),
        );
        assert_eq!(r.status, 404, "{}", r.text());
    }
    assert_eq!(tmp_files(&p), 0, "partial files left behind");
    assert!(
        blobs(&p).is_empty(),
        "a raced upload was kept: {:?}",
        blobs(&p)
    );
    eprintln!("(piece, status) counts: {seen:?}");
}
