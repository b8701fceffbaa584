//! The node's blocking HTTP client over TLS, against a one-shot HTTPS server on loopback whose
//! certificate is signed by a CA generated for the test: trusted requests read their whole
//! body, downloads stream intact, and an untrusted issuer, a wrong host name, an expired
//! certificate or a bad `TERMPLANE_CA_FILE` are refused with their cause.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use crate::support::tls::{ServerCert, TestCa, https_once};
use rustls::ClientConfig;
use sha2::Digest as _;
use termplane_runtime_smol::http;

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!(
            "tp-https-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The node's TLS configuration trusting the system's roots plus `ca`.
fn trusting(ca: &TestCa, dir: &Scratch) -> Arc<ClientConfig> {
    let path = ca.write(&dir.0, "ca.pem");
    termplane_runtime_smol::tls::client_config(Some(&path)).unwrap()
}

/// A GET to a one-shot TLS server presenting `cert`, with `trusted` as the extra CA: answers
/// the port and the client's refusal, after checking the server saw no completed handshake.
fn refused_get(cert: &ServerCert, trusted: &TestCa, dir: &Scratch) -> (u16, String) {
    let (port, server) = https_once(cert.server_config(), b"HTTP/1.1 200 OK\r\n\r\n".to_vec());
    let config = trusting(trusted, dir);
    let e = http::request_with(
        &|| Ok(Arc::clone(&config)),
        "GET",
        &format!("https://127.0.0.1:{port}/"),
        &[],
        None,
        b"",
        1000,
    )
    .unwrap_err();
    assert!(
        server.join().unwrap().is_err(),
        "the server saw a completed handshake"
    );
    (port, e)
}

/// A body of `n` bytes that is not all one value.
fn body_of(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 251) as u8).collect()
}

#[test]
fn an_https_post_with_the_ca_file_trusted_reads_the_whole_body() {
    let dir = Scratch::new("post");
    let ca = TestCa::new("termplane test CA");
    let cert = ca.server_cert(&["127.0.0.1"]);
    let body = body_of(300_000);
    let mut response = format!(
        "HTTP/1.1 201 Created\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(&body);
    let (port, server) = https_once(cert.server_config(), response);
    let config = trusting(&ca, &dir);
    let payload = br#"{"setupKey":"k"}"#;
    let r = http::request_with(
        &|| Ok(Arc::clone(&config)),
        "POST",
        &format!("https://127.0.0.1:{port}/api/nodes/enroll"),
        &[],
        Some("application/json"),
        payload,
        1 << 20,
    )
    .unwrap();
    assert_eq!(r.status, 201);
    assert_eq!(r.body.len(), body.len());
    assert!(r.body == body, "the body differs from what was sent");
    let req = String::from_utf8(server.join().unwrap().unwrap()).unwrap();
    assert!(
        req.starts_with("POST /api/nodes/enroll HTTP/1.1\r\n"),
        "{req}"
    );
    // Field names are case-insensitive (RFC 9110 §5.1); the client sends them in lower case.
    assert!(
        req.contains(&format!("\r\nhost: 127.0.0.1:{port}\r\n")),
        "{req}"
    );
    assert!(req.ends_with("\r\n\r\n{\"setupKey\":\"k\"}"), "{req}");
}

#[test]
fn an_https_get_by_dns_name_reads_a_chunked_body() {
    let dir = Scratch::new("get");
    let ca = TestCa::new("termplane test CA");
    let cert = ca.server_cert(&["localhost"]);
    let response = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n".to_vec();
    let (port, server) = https_once(cert.server_config(), response);
    let config = trusting(&ca, &dir);
    let r = http::request_with(
        &|| Ok(Arc::clone(&config)),
        "GET",
        &format!("https://localhost:{port}/x"),
        &[],
        None,
        b"",
        1000,
    )
    .unwrap();
    assert_eq!((r.status, r.body.as_slice()), (200, &b"hello, world"[..]));
    let req = String::from_utf8(server.join().unwrap().unwrap()).unwrap();
    assert!(req.starts_with("GET /x HTTP/1.1\r\n"), "{req}");
}

#[test]
fn a_certificate_from_an_unknown_issuer_is_refused_as_not_trusted() {
    let dir = Scratch::new("untrusted");
    let ca = TestCa::new("termplane test CA");
    let other = TestCa::new("some other CA");
    let cert = ca.server_cert(&["127.0.0.1"]);
    // Trusts the system's roots and a CA that did not sign the server's certificate.
    let (port, e) = refused_get(&cert, &other, &dir);
    assert_eq!(
        e,
        format!(
            "https://127.0.0.1:{port}: certificate not trusted (unknown issuer); \
             set TERMPLANE_CA_FILE to your CA bundle"
        )
    );
}

#[test]
fn a_certificate_for_another_host_name_is_refused() {
    let dir = Scratch::new("hostname");
    let ca = TestCa::new("termplane test CA");
    let cert = ca.server_cert(&["plane.example"]);
    let (port, e) = refused_get(&cert, &ca, &dir);
    assert!(e.starts_with(&format!("https://127.0.0.1:{port}: ")), "{e}");
    assert!(e.contains("does not match the host name"), "{e}");
}

#[test]
fn an_expired_certificate_is_refused_as_expired() {
    let dir = Scratch::new("expired");
    let ca = TestCa::new("termplane test CA");
    let cert = ca.expired_server_cert(&["127.0.0.1"]);
    let (port, e) = refused_get(&cert, &ca, &dir);
    assert_eq!(e, format!("https://127.0.0.1:{port}: certificate expired"));
}

#[test]
fn an_https_download_streams_the_body_and_its_sha256_matches() {
    let dir = Scratch::new("download");
    let ca = TestCa::new("termplane test CA");
    let cert = ca.server_cert(&["127.0.0.1"]);
    let body = body_of(1_500_000);
    let mut response =
        format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len()).into_bytes();
    response.extend_from_slice(&body);
    let (port, server) = https_once(cert.server_config(), response);
    let config = trusting(&ca, &dir);
    let mut sink = Vec::new();
    let mut calls = 0_u32;
    let mut last = (0, 0);
    let (status, bytes) = http::download_with(
        &|| Ok(Arc::clone(&config)),
        &format!("https://127.0.0.1:{port}/api/downloads/node/x"),
        &mut sink,
        4 << 20,
        &mut |done, total| {
            calls += 1;
            last = (done, total);
        },
    )
    .unwrap();
    assert_eq!((status, bytes), (200, body.len() as u64));
    assert_eq!(last, (body.len() as u64, body.len() as u64));
    assert!(
        calls > 1,
        "the body arrived in one piece: nothing was streamed"
    );
    assert_eq!(sha2::Sha256::digest(&sink), sha2::Sha256::digest(&body));
    let req = String::from_utf8(server.join().unwrap().unwrap()).unwrap();
    assert!(
        req.starts_with("GET /api/downloads/node/x HTTP/1.1\r\n"),
        "{req}"
    );
}

#[test]
fn plain_http_never_consults_the_trust_store() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let t = std::thread::spawn(move || {
        use std::io::{Read as _, Write as _};
        let (mut c, _) = l.accept().unwrap();
        c.set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0_u8; 1024];
        for _ in 0..100 {
            let n = c.read(&mut buf).unwrap();
            got.extend_from_slice(&buf[..n]);
            if n == 0 || got.ends_with(b"\r\n\r\n") {
                break;
            }
        }
        c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            .unwrap();
    });
    let r = http::request_with(
        &|| Err("the trust store was consulted".into()),
        "GET",
        &format!("http://127.0.0.1:{port}/"),
        &[],
        None,
        b"",
        100,
    )
    .unwrap();
    assert_eq!((r.status, r.body.as_slice()), (200, &b"ok"[..]));
    t.join().unwrap();
}

#[test]
fn enrolling_with_an_unreadable_ca_file_names_the_variable_and_the_file() {
    let dir = Scratch::new("cafile");
    // Something listens, so the TCP connect succeeds and the trust store is consulted.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let missing = dir.0.join("no-such-ca.pem");
    let out = Command::new(env!("CARGO_BIN_EXE_termplane-node"))
        .args(["enroll", "--server", &format!("https://127.0.0.1:{port}")])
        .args(["--setup-key", "nsk_test", "--name", "n", "--config"])
        .arg(dir.0.join("node.json"))
        .env("HOME", &dir.0)
        .env("XDG_CONFIG_HOME", dir.0.join("cfg"))
        .env("XDG_DATA_HOME", dir.0.join("data"))
        .env("TERMPLANE_CA_FILE", &missing)
        .output()
        .unwrap();
    drop(l);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "TERMPLANE_CA_FILE={}: cannot read it",
            missing.display()
        )),
        "{text}"
    );
    assert!(!dir.0.join("node.json").exists());
}
