//! TLS on loopback for the tests: a certificate authority generated at test time, server
//! certificates it signs, a one-shot blocking HTTPS server and a TLS-terminating proxy (the
//! deployment the README describes: the plane speaks plain HTTP behind it).

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use futures_lite::{AsyncWriteExt as _, FutureExt as _};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, date_time_ymd,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};

/// A certificate authority made for one test.
pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A server certificate chain and its key.
pub struct ServerCert {
    pub chain: Vec<CertificateDer<'static>>,
    pub key: PrivateKeyDer<'static>,
}

impl TestCa {
    pub fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        Self { issuer }
    }

    /// The CA certificate as PEM.
    pub fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// Writes the CA certificate to `dir/name` and answers the path.
    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, self.pem()).unwrap();
        p
    }

    /// A certificate for `names` (DNS names or IP addresses), valid now.
    pub fn server_cert(&self, names: &[&str]) -> ServerCert {
        let params =
            CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
                .unwrap();
        self.sign(params)
    }

    /// A certificate for `names` whose validity ended in 2001.
    pub fn expired_server_cert(&self, names: &[&str]) -> ServerCert {
        let mut params =
            CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
                .unwrap();
        params.not_before = date_time_ymd(2000, 1, 1);
        params.not_after = date_time_ymd(2001, 1, 1);
        self.sign(params)
    }

    fn sign(&self, params: CertificateParams) -> ServerCert {
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        ServerCert {
            chain: vec![cert.der().clone(), self.issuer.der().clone()],
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        }
    }
}

impl ServerCert {
    /// A rustls server configuration presenting this certificate.
    pub fn server_config(&self) -> Arc<ServerConfig> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(self.chain.clone(), self.key.clone_key())
            .unwrap();
        Arc::new(config)
    }
}

/// Waits (bounded) for one connection on `l`.
fn accept_one(l: &TcpListener, limit: Duration) -> Result<std::net::TcpStream, String> {
    l.set_nonblocking(true).map_err(|e| e.to_string())?;
    let deadline = Instant::now() + limit;
    loop {
        match l.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false).map_err(|e| e.to_string())?;
                return Ok(s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Err("no connection came".into());
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// Where the head of an HTTP request ends, if it has arrived.
fn head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// The `Content-Length` of a request head (0 when absent).
fn content_length(head: &[u8]) -> usize {
    String::from_utf8_lossy(head)
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0)
}

/// A one-shot HTTPS server on a loopback port: it accepts one connection, completes the TLS
/// handshake, reads one whole request (the head, then `Content-Length` bytes of body, over as
/// many reads as it takes), writes `response` and closes with close_notify. The thread answers
/// the request's bytes, or why it failed (a refused handshake lands here).
pub fn https_once(
    config: Arc<ServerConfig>,
    response: Vec<u8>,
) -> (u16, JoinHandle<Result<Vec<u8>, String>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let t = std::thread::spawn(move || {
        let tcp = accept_one(&l, Duration::from_secs(20))?;
        tcp.set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        tcp.set_write_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        let conn = ServerConnection::new(config).map_err(|e| e.to_string())?;
        let mut s = StreamOwned::new(conn, tcp);
        let mut got = Vec::new();
        let mut buf = vec![0_u8; 16 * 1024];
        for _ in 0..10_000 {
            if let Some(end) = head_end(&got)
                && got.len() >= end + content_length(&got[..end])
            {
                break;
            }
            let n = s.read(&mut buf).map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("the client closed before a whole request".into());
            }
            got.extend_from_slice(&buf[..n]);
        }
        s.write_all(&response).map_err(|e| e.to_string())?;
        s.conn.send_close_notify();
        s.flush().map_err(|e| e.to_string())?;
        Ok(got)
    });
    (port, t)
}

/// A TLS-terminating proxy on a loopback port forwarding every connection's bytes to
/// `127.0.0.1:upstream` in both directions. Dropping it stops the accept loop and every
/// connection, and joins its thread.
pub struct TlsProxy {
    pub port: u16,
    stop: Option<smol::channel::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl TlsProxy {
    pub fn start(config: Arc<ServerConfig>, upstream: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop_tx, stop_rx) = smol::channel::bounded::<()>(1);
        let thread = std::thread::spawn(move || {
            let ex = smol::LocalExecutor::new();
            let acceptor = futures_rustls::TlsAcceptor::from(config);
            let Ok(listener) = smol::net::TcpListener::try_from(listener) else {
                return;
            };
            let accept_loop = async {
                loop {
                    let Ok((tcp, _)) = listener.accept().await else {
                        continue;
                    };
                    let acceptor = acceptor.clone();
                    ex.spawn(async move {
                        let _ = tcp.set_nodelay(true);
                        let Ok(tls) = acceptor.accept(tcp).await else {
                            return;
                        };
                        let Ok(up) = smol::net::TcpStream::connect(("127.0.0.1", upstream)).await
                        else {
                            return;
                        };
                        let _ = up.set_nodelay(true);
                        let (tls_r, mut tls_w) = futures_lite::io::split(tls);
                        let (up_r, mut up_w) = (up.clone(), up);
                        let down = async {
                            let _ = futures_lite::io::copy(up_r, &mut tls_w).await;
                            let _ = tls_w.close().await;
                        };
                        let upward = async {
                            let _ = futures_lite::io::copy(tls_r, &mut up_w).await;
                            let _ = up_w.close().await;
                        };
                        down.or(upward).await;
                    })
                    .detach();
                }
            };
            smol::block_on(ex.run(accept_loop.or(async {
                let _ = stop_rx.recv().await;
            })));
        });
        Self {
            port,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }
}

impl Drop for TlsProxy {
    fn drop(&mut self) {
        // Closing the channel ends the accept loop; the executor and its connections drop with it.
        self.stop.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
