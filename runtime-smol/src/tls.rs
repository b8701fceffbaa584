//! The node's TLS client: one trust decision for every outbound connection it makes — the
//! `https://` enrollment and update downloads (a blocking client) and the `wss://` link (async,
//! through [`futures_rustls`] over a smol socket).
//!
//! * TLS is rustls on the `ring` provider, TLS 1.2 and 1.3 with rustls' safe defaults.
//! * Trusted roots are the operating system's store (read by `rustls-native-certs`; on Debian
//!   that is `/etc/ssl/certs`) plus, when the environment variable [`CA_FILE_ENV`]
//!   (`TERMPLANE_CA_FILE`) names one, a PEM bundle of extra certificate authorities — for a
//!   plane whose certificate comes from a private CA or is self-signed.
//! * Certificate chain, validity period and host name are always verified; there is no switch
//!   that turns verification off. The SNI and the name checked are the URL's host; an IP-address
//!   host is checked against the certificate's IP addresses.
//! * A failed handshake is described in one line naming the cause ([`describe`]).

use std::ffi::OsString;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{CertificateError, ClientConfig, RootCertStore};

/// The environment variable naming an extra PEM CA bundle to trust.
pub const CA_FILE_ENV: &str = "TERMPLANE_CA_FILE";

/// Why no TLS client configuration could be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrustError {
    /// The extra CA bundle is unreadable or holds no usable certificate.
    #[error("{CA_FILE_ENV}={path}: {why}")]
    CaFile {
        /// The file named.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// Neither the system store nor an extra bundle supplied a root certificate.
    #[error(
        "no trusted root certificates: the system store is empty or unreadable; \
         set {CA_FILE_ENV} to your CA bundle"
    )]
    NoRoots,
    /// The TLS library refused the configuration.
    #[error("TLS configuration: {0}")]
    Config(String),
}

/// A client configuration trusting the system's roots plus the certificates of `extra_ca`.
pub fn client_config(extra_ca: Option<&Path>) -> Result<Arc<ClientConfig>, TrustError> {
    let mut roots = RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    for e in &native.errors {
        tracing::debug!(error = %e, "system certificate store");
    }
    let (_added, _ignored) = roots.add_parsable_certificates(native.certs);
    if let Some(path) = extra_ca {
        add_ca_file(&mut roots, path)?;
    }
    if roots.is_empty() {
        return Err(TrustError::NoRoots);
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TrustError::Config(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// Adds every certificate of the PEM file `path` to `roots`; refuses a file that cannot be read,
/// holds no certificate, or holds one that does not parse.
fn add_ca_file(roots: &mut RootCertStore, path: &Path) -> Result<(), TrustError> {
    let bad = |why: String| TrustError::CaFile {
        path: path.display().to_string(),
        why,
    };
    let bytes = std::fs::read(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
    let mut count = 0usize;
    for cert in CertificateDer::pem_slice_iter(&bytes) {
        let cert = cert.map_err(|e| bad(format!("not a PEM certificate bundle: {e}")))?;
        roots
            .add(cert)
            .map_err(|e| bad(format!("a certificate in it is unusable: {e}")))?;
        count += 1;
    }
    if count == 0 {
        return Err(bad("it holds no PEM certificate".into()));
    }
    Ok(())
}

/// The configuration for this process: the system's roots plus the bundle named by
/// [`CA_FILE_ENV`] (unset or empty: none). Built once and reused while the variable keeps its
/// value.
pub fn client_config_from_env() -> Result<Arc<ClientConfig>, TrustError> {
    static CACHE: Mutex<Option<(Option<OsString>, Arc<ClientConfig>)>> = Mutex::new(None);
    let wanted = std::env::var_os(CA_FILE_ENV).filter(|v| !v.is_empty());
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((file, config)) = cache.as_ref()
        && *file == wanted
    {
        return Ok(Arc::clone(config));
    }
    let config = client_config(wanted.as_deref().map(Path::new))?;
    *cache = Some((wanted, Arc::clone(&config)));
    Ok(config)
}

/// The name to send as SNI and to verify: a DNS name, or an IP address (brackets of an IPv6
/// literal stripped).
pub fn server_name(host: &str) -> Result<ServerName<'static>, String> {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    ServerName::try_from(host.to_owned())
        .map_err(|_| format!("`{host}` is not a valid TLS host name"))
}

/// A one-line cause for a failed TLS connection to `target` (`https://host:port` or
/// `wss://host:port`), naming what was wrong with the certificate when that was the reason.
#[must_use]
pub fn describe(target: &str, err: &io::Error) -> String {
    let tls = err
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    let cause = match tls {
        Some(rustls::Error::InvalidCertificate(c)) => certificate_cause(c),
        Some(rustls::Error::AlertReceived(alert)) => {
            format!("the server ended the TLS handshake ({alert:?})")
        }
        Some(rustls::Error::NoCertificatesPresented) => "the server sent no certificate".into(),
        Some(e) => format!("TLS handshake failed: {e}"),
        None if err.kind() == io::ErrorKind::UnexpectedEof => {
            "the connection closed during the TLS handshake (is it a TLS port?)".into()
        }
        None => format!("TLS connection failed: {err}"),
    };
    format!("{target}: {cause}")
}

fn certificate_cause(c: &CertificateError) -> String {
    match c {
        CertificateError::UnknownIssuer => {
            format!("certificate not trusted (unknown issuer); set {CA_FILE_ENV} to your CA bundle")
        }
        CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
            "certificate does not match the host name (wrong hostname)".into()
        }
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            "certificate expired".into()
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            "certificate not valid yet (check the clock)".into()
        }
        CertificateError::Revoked => "certificate revoked".into(),
        CertificateError::BadSignature => "certificate has a bad signature".into(),
        other => format!("certificate refused ({other:?})"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("tp-tls-{}-{name}", std::process::id()))
    }

    #[test]
    fn a_missing_or_empty_ca_file_is_refused_by_name() {
        let missing = temp("missing.pem");
        let e = client_config(Some(&missing)).unwrap_err().to_string();
        assert!(e.starts_with("TERMPLANE_CA_FILE="), "{e}");
        assert!(e.contains("cannot read"), "{e}");

        let empty = temp("empty.pem");
        std::fs::write(&empty, "no certificates here\n").unwrap();
        let e = client_config(Some(&empty)).unwrap_err().to_string();
        std::fs::remove_file(&empty).unwrap();
        assert!(e.contains("holds no PEM certificate"), "{e}");
    }

    #[test]
    fn a_generated_ca_file_is_accepted() {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca = params.self_signed(&key).unwrap();
        let path = temp("ca.pem");
        std::fs::write(&path, ca.pem()).unwrap();
        let ok = client_config(Some(&path));
        std::fs::remove_file(&path).unwrap();
        assert!(ok.is_ok(), "{ok:?}");
    }

    #[test]
    fn ip_and_dns_hosts_make_server_names() {
        assert!(matches!(
            server_name("127.0.0.1").unwrap(),
            ServerName::IpAddress(_)
        ));
        assert!(matches!(
            server_name("[::1]").unwrap(),
            ServerName::IpAddress(_)
        ));
        assert!(matches!(
            server_name("plane.example").unwrap(),
            ServerName::DnsName(_)
        ));
        assert!(server_name("bad host").is_err());
    }

    #[test]
    fn certificate_causes_name_the_problem() {
        let io = |e: rustls::Error| io::Error::new(io::ErrorKind::InvalidData, e);
        let d = describe(
            "https://h:1",
            &io(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer,
            )),
        );
        assert_eq!(
            d,
            "https://h:1: certificate not trusted (unknown issuer); \
             set TERMPLANE_CA_FILE to your CA bundle"
        );
        let d = describe(
            "wss://h:1",
            &io(rustls::Error::InvalidCertificate(CertificateError::Expired)),
        );
        assert_eq!(d, "wss://h:1: certificate expired");
        let d = describe(
            "https://h:1",
            &io(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName,
            )),
        );
        assert!(d.contains("wrong hostname"), "{d}");
    }
}
