//! The node's `wss://` dial against a TLS + WebSocket echo server on loopback whose certificate
//! is signed by a CA generated for the test: the upgrade completes through TLS and carries the
//! bearer key; an unknown issuer or a wrong host name fails the dial with its cause.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::result_large_err
)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_lite::FutureExt as _;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use termplane_runtime_smol::agent::{DialError, dial_link};
use termplane_runtime_smol::ws::{self, Inbound};

struct Pki {
    ca_pem: String,
    server: Arc<rustls::ServerConfig>,
}

/// A fresh CA and a server configuration presenting a certificate it signed for `names`.
fn pki(names: &[&str]) -> Pki {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    let server = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![cert.der().clone(), ca.der().clone()],
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
    )
    .unwrap();
    Pki {
        ca_pem: ca.pem(),
        server: Arc::new(server),
    }
}

/// The node's client configuration trusting the system's roots plus `ca_pem`.
fn trusting(ca_pem: &str, tag: &str) -> Arc<rustls::ClientConfig> {
    let path = std::env::temp_dir().join(format!("tp-wss-{tag}-{}.pem", std::process::id()));
    std::fs::write(&path, ca_pem).unwrap();
    let config = termplane_runtime_smol::tls::client_config(Some(&path));
    std::fs::remove_file(&path).unwrap();
    config.unwrap()
}

/// Serves one connection: TLS, the WebSocket upgrade (recording the `Authorization` header),
/// then echoes text messages until the client closes. Answers the header, or why it failed.
async fn serve_one(
    listener: smol::net::TcpListener,
    config: Arc<rustls::ServerConfig>,
) -> Result<String, String> {
    let (tcp, _) = listener.accept().await.map_err(|e| e.to_string())?;
    let tls = futures_rustls::TlsAcceptor::from(config)
        .accept(tcp)
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    let seen = Arc::new(Mutex::new(String::new()));
    let record = Arc::clone(&seen);
    let callback = move |req: &async_tungstenite::tungstenite::handshake::server::Request, resp| {
        let auth = req
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        *record.lock().unwrap() = auth;
        Ok(resp)
    };
    let mut socket = async_tungstenite::accept_hdr_async(tls, callback)
        .await
        .map_err(|e| format!("upgrade: {e}"))?;
    for _ in 0..16 {
        match ws::next_inbound(&mut socket).await {
            Inbound::Text(t) => {
                if !ws::send_text(&mut socket, format!("echo {t}")).await {
                    break;
                }
            }
            Inbound::Control => {}
            _ => break,
        }
    }
    Ok(seen.lock().unwrap().clone())
}

/// Runs the echo server and `client` together, bounded in time.
fn with_server<T>(
    config: Arc<rustls::ServerConfig>,
    client: impl FnOnce(u16) -> std::pin::Pin<Box<dyn std::future::Future<Output = T>>>,
) -> (Result<String, String>, T) {
    smol::block_on(
        async {
            let listener = smol::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let port = listener.local_addr().unwrap().port();
            futures_lite::future::zip(serve_one(listener, config), client(port)).await
        }
        .or(async {
            smol::Timer::after(Duration::from_secs(20)).await;
            panic!("the exchange took longer than 20 s");
        }),
    )
}

#[test]
fn a_wss_dial_completes_the_upgrade_over_tls_and_carries_the_bearer() {
    let p = pki(&["127.0.0.1"]);
    let config = trusting(&p.ca_pem, "ok");
    let (server, echoed) = with_server(p.server, move |port| {
        Box::pin(async move {
            let url = format!("wss://127.0.0.1:{port}/ws/node");
            let mut s = dial_link(&url, Some(&config), "nk_test").await.unwrap();
            assert!(ws::send_text(&mut s, "hello".into()).await);
            let got = ws::next_inbound(&mut s).await;
            let _ = ws::close(&mut s, 1000, "done").await;
            got
        })
    });
    assert_eq!(server.unwrap(), "Bearer nk_test");
    assert_eq!(echoed, Inbound::Text("echo hello".into()));
}

#[test]
fn a_wss_dial_to_an_unknown_issuer_fails_naming_the_cause() {
    let p = pki(&["127.0.0.1"]);
    // Only the system's roots: the test CA is unknown to them.
    let config = termplane_runtime_smol::tls::client_config(None).unwrap();
    let (server, (port, dialed)) = with_server(p.server, move |port| {
        Box::pin(async move {
            let url = format!("wss://127.0.0.1:{port}/ws/node");
            (port, dial_link(&url, Some(&config), "nk").await.map(|_| ()))
        })
    });
    assert_eq!(
        dialed,
        Err(DialError {
            status: None,
            reason: format!(
                "wss://127.0.0.1:{port}: certificate not trusted (unknown issuer); \
                 set TERMPLANE_CA_FILE to your CA bundle"
            ),
            retry_after: None,
        })
    );
    assert!(server.is_err(), "the server completed a handshake");
}

#[test]
fn a_wss_dial_verifies_the_host_name() {
    let p = pki(&["plane.example"]);
    let config = trusting(&p.ca_pem, "name");
    let (server, dialed) = with_server(p.server, move |port| {
        Box::pin(async move {
            let url = format!("wss://127.0.0.1:{port}/ws/node");
            dial_link(&url, Some(&config), "nk").await.map(|_| ())
        })
    });
    let e = dialed.unwrap_err();
    assert!(e.reason.contains("does not match the host name"), "{e:?}");
    assert!(server.is_err());
}

#[test]
fn a_ws_url_still_dials_plain_tcp() {
    // A plain listener that answers the upgrade without TLS.
    let (server, dialed) = smol::block_on(async {
        let listener = smol::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let serve = async {
            let (tcp, _) = listener.accept().await.unwrap();
            async_tungstenite::accept_async(tcp).await.map(|_| ())
        };
        let url = format!("ws://127.0.0.1:{port}/ws/node");
        let dial = async {
            // No TLS configuration is involved in a ws:// dial.
            dial_link(&url, None, "nk").await.map(|_| ())
        };
        futures_lite::future::zip(serve, dial)
            .or(async {
                smol::Timer::after(Duration::from_secs(20)).await;
                panic!("the exchange took longer than 20 s");
            })
            .await
    });
    assert!(server.is_ok(), "{server:?}");
    assert_eq!(dialed, Ok(()));
}
