//! The blocking HTTP/1.1 client: enrollment (one JSON POST), downloads, the pane's MCP server
//! talking to the plane, Web Push.
//!
//! HTTP is ureq's (no tokio, no async runtime: a socket per request, closed after it). What is
//! this crate's own is around it: `https://` is rustls with the trust decision the link's
//! `wss://` dial makes, [`termplane_runtime_smol::tls`] (the operating system's root store plus
//! the PEM bundle named by `TERMPLANE_CA_FILE`, with certificate, validity and host name always
//! verified and the URL's host sent as SNI; a refused certificate reported in one line naming
//! the cause), plugged into ureq as its TLS connector; the addresses a request may connect to
//! are [`resolve_reaching`]'s, plugged in as its resolver; no proxy is taken from the
//! environment and no redirect is followed. Bodies are capped.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, ToSocketAddrs as _};
use std::sync::Arc;
use std::time::Duration;

use crate::tls;
use rustls::{ClientConfig, ClientConnection, StreamOwned};
use ureq::unversioned::resolver::{ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, Either, LazyBuffers, NextTimeout, TcpConnector,
    Transport, TransportAdapter,
};

/// The `User-Agent` of every request.
const USER_AGENT: &str = concat!("termplane/", env!("CARGO_PKG_VERSION"));

/// The largest response head read from a server; a larger one ends the request.
const MAX_HEAD: usize = 64 * 1024;

/// A parsed `http://` or `https://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl {
    /// `https://` (TLS) rather than `http://`.
    pub tls: bool,
    /// Host (name or address, brackets stripped for IPv6).
    pub host: String,
    /// Port.
    pub port: u16,
    /// Path with leading `/`.
    pub path: String,
    /// The `Host` header value.
    pub authority: String,
}

impl HttpUrl {
    /// `scheme://authority`, the prefix of error messages about this server.
    #[must_use]
    pub fn origin(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.authority)
    }
}

/// Where the TLS client configuration of an `https://` request comes from; asked only when an
/// `https://` URL is used, so a plain `http://` request never depends on the trust store.
pub type TlsSource<'a> = &'a dyn Fn() -> Result<Arc<ClientConfig>, String>;

/// The process's configuration: the system's roots plus `TERMPLANE_CA_FILE`.
fn env_tls() -> Result<Arc<ClientConfig>, String> {
    tls::client_config_from_env().map_err(|e| e.to_string())
}

/// Which addresses a request may connect to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Any address the host resolves to (the node's own enrollment and downloads, which name
    /// the plane its owner chose).
    Any,
    /// Only addresses of the public internet ([`is_public`]): a URL that someone else chose
    /// (a browser's push endpoint) must not make the caller a way into its own host or private
    /// network. The rule is [`resolve_reaching`]'s, applied to the addresses the name resolves
    /// to at connect time, so a name that resolves to a private address, or a literal in a form
    /// only the resolver reads (`127.1`, `2130706433`), is refused as well.
    PublicOnly,
}

/// Why [`resolve_reaching`] gave no address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreachable {
    /// The host is, or resolves to at least one address, off the public internet (the
    /// message says so in a line).
    Inside(String),
    /// The host does not resolve (the resolver's words).
    Unresolved(String),
}

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Inside(why) | Self::Unresolved(why) => f.write_str(why),
        }
    }
}

/// The addresses `host` resolves to, as the operating system's resolver reads it (so `127.1`,
/// `2130706433`, `0x7f000001`, `0177.0.0.1` and `0` are the loopback and unspecified addresses
/// they are to `connect`), for a request `reach` allows.
///
/// With [`Reach::PublicOnly`] the host is refused ([`Unreachable::Inside`]) when it is
/// `localhost` or a name under it (RFC 6761: loopback, whatever a resolver says) or when *any*
/// address it resolves to is not [`is_public`]: a name that answers both a public and a private
/// address is a name pointing inside. This one rule is what a push endpoint meets when it is
/// registered and again when each push is sent.
///
/// The call blocks on the resolver: callers that must answer in bounded time run it on a
/// thread of its own and stop waiting.
pub fn resolve_reaching(
    host: &str,
    port: u16,
    reach: Reach,
) -> Result<Vec<std::net::SocketAddr>, Unreachable> {
    let inside = || {
        Unreachable::Inside(format!(
            "{host} is not on the public internet (it is, or resolves to, a loopback, private or \
             reserved address)"
        ))
    };
    if reach == Reach::PublicOnly {
        let name = host.trim_end_matches('.').to_ascii_lowercase();
        if name == "localhost" || name.ends_with(".localhost") {
            return Err(inside());
        }
    }
    let addrs: Vec<_> = (host, port)
        .to_socket_addrs()
        .map_err(|e| Unreachable::Unresolved(format!("cannot resolve {host}: {e}")))?
        .collect();
    if addrs.is_empty() {
        return Err(Unreachable::Unresolved(format!("cannot resolve {host}")));
    }
    if reach == Reach::PublicOnly && addrs.iter().any(|a| !is_public(a.ip())) {
        return Err(inside());
    }
    Ok(addrs)
}

/// Whether `ip` is an address of the public internet: not unspecified, loopback, private
/// (RFC 1918, unique local `fc00::/7`), shared (`100.64.0.0/10`), link-local (cloud metadata
/// services live at `169.254.169.254`), multicast, broadcast, documentation, benchmarking or
/// reserved; an IPv4 address carried in IPv6 (mapped, compatible, NAT64 `64:ff9b::/96`, 6to4
/// `2002::/16`) is judged as that IPv4 address.
#[must_use]
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b))
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 0 && (c == 0 || c == 2))
        || (a == 192 && b == 88 && c == 99)
        || (a == 192 && b == 168)
        || (a == 198 && (b == 18 || b == 19))
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
        || a >= 224)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let o = ip.octets();
    let v4 = || Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    if s[..5] == [0; 5] && (s[5] == 0xffff || s[5] == 0) {
        // IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible (`::a.b.c.d`, which also
        // covers `::` and `::1`).
        return is_public_v4(v4());
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_public_v4(v4());
    }
    if s[0] == 0x2002 {
        return is_public_v4(Ipv4Addr::new(o[2], o[3], o[4], o[5]));
    }
    !((s[0] & 0xfe00) == 0xfc00           // unique local
        || (s[0] & 0xffc0) == 0xfe80      // link-local
        || (s[0] & 0xffc0) == 0xfec0      // site-local (deprecated)
        || (s[0] & 0xff00) == 0xff00      // multicast
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0x2001 && s[1] < 0x0200) // IETF protocol assignments (Teredo, ORCHID…)
        || (s[0] == 0x0100 && s[1..4] == [0, 0, 0])) // discard-only
}

/// [`resolve_reaching`] as ureq's resolver: the rule of `reach` is met by the very addresses
/// the request then connects to (a name is not resolved again between the check and the
/// connection).
#[derive(Debug)]
struct Reaching(Reach);

impl Resolver for Reaching {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        _config: &ureq::config::Config,
        _timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let host = uri.host().unwrap_or_default();
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = uri
            .port_u16()
            .unwrap_or(if uri.scheme_str() == Some("https") {
                443
            } else {
                80
            });
        let addrs = resolve_reaching(host, port, self.0)
            .map_err(|e| ureq::Error::Io(io::Error::other(e.to_string())))?;
        let mut out = self.empty();
        for a in addrs.into_iter().take(16) {
            out.push(a);
        }
        Ok(out)
    }
}

/// TLS for ureq with this crate's own client configuration ([`tls`]: the same trust decision
/// as the link's `wss://` dial), its handshake completed at connect time so a refused
/// certificate is reported as such, in [`tls::describe`]'s words.
#[derive(Debug)]
struct OwnTls(Option<Arc<ClientConfig>>);

impl<In: Transport> Connector<In> for OwnTls {
    type Out = Either<In, TlsTransport>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        let Some(transport) = chained else {
            return Ok(None);
        };
        if !details.needs_tls() || transport.is_tls() {
            return Ok(Some(Either::A(transport)));
        }
        let origin = format!(
            "https://{}",
            details.uri.authority().map_or("", |a| a.as_str())
        );
        let failed = |why: String| ureq::Error::Io(io::Error::other(format!("{origin}: {why}")));
        let config = self
            .0
            .clone()
            .ok_or_else(|| failed("no TLS configuration".into()))?;
        let name = tls::server_name(details.uri.host().unwrap_or_default()).map_err(failed)?;
        let mut conn =
            ClientConnection::new(config, name).map_err(|e| failed(format!("TLS setup: {e}")))?;
        let mut sock = TransportAdapter::new(transport.boxed(), details.current_time.clone());
        sock.set_timeout(details.timeout);
        // Each round moves the handshake on by at least one flight or fails (the timeouts
        // bound a silent peer); a TLS 1.3 or 1.2 handshake needs a handful.
        for _ in 0..32 {
            if !conn.is_handshaking() {
                break;
            }
            conn.complete_io(&mut sock)
                .map_err(|e| ureq::Error::Io(io::Error::other(tls::describe(&origin, &e))))?;
        }
        if conn.is_handshaking() {
            return Err(failed("the TLS handshake did not finish".into()));
        }
        Ok(Some(Either::B(TlsTransport {
            buffers: LazyBuffers::new(
                details.config.input_buffer_size(),
                details.config.output_buffer_size(),
            ),
            stream: StreamOwned::new(conn, sock),
        })))
    }
}

/// A TLS connection as ureq's transport.
struct TlsTransport {
    buffers: LazyBuffers,
    stream: StreamOwned<ClientConnection, TransportAdapter>,
}

impl std::fmt::Debug for TlsTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TlsTransport")
    }
}

impl Transport for TlsTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        self.stream.get_mut().set_timeout(timeout);
        let output = &self.buffers.output()[..amount];
        self.stream.write_all(output)?;
        Ok(())
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.stream.get_mut().set_timeout(timeout);
        let input = self.buffers.input_append_buf();
        let amount = self.stream.read(input)?;
        self.buffers.input_appended(amount);
        Ok(amount > 0)
    }

    fn is_open(&mut self) -> bool {
        self.stream.get_mut().get_mut().is_open()
    }

    fn is_tls(&self) -> bool {
        true
    }
}

/// A ureq agent for one request to `u`: no proxy from the environment (a proxy would be
/// resolved instead of the URL's host and escape `reach`), no redirect followed, statuses
/// returned rather than raised, 10 s to connect, each read within 60 s and each write within
/// 30 s, a response head of at most 64 KiB; `https://` with the configuration `tls_source`
/// gives (asked only for `https://`, so a plain `http://` request never depends on the trust
/// store).
fn agent(u: &HttpUrl, tls_source: TlsSource<'_>, reach: Reach) -> Result<ureq::Agent, String> {
    let tls = if u.tls {
        Some(tls_source().map_err(|e| format!("{}: {e}", u.origin()))?)
    } else {
        None
    };
    let config = ureq::Agent::config_builder()
        .proxy(None)
        .max_redirects(0)
        .http_status_as_error(false)
        .user_agent(USER_AGENT)
        .max_response_header_size(MAX_HEAD)
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_per_read(Some(Duration::from_secs(60)))
        .timeout_per_write(Some(Duration::from_secs(30)))
        .build();
    let connector = TcpConnector::default().chain(OwnTls(tls));
    Ok(ureq::Agent::with_parts(config, connector, Reaching(reach)))
}

/// The words of a failed request to `u`.
fn failure(u: &HttpUrl, e: ureq::Error) -> String {
    match e {
        // Errors only a connection attempt gives; any other I/O error (a reset or a stall
        // mid-answer) is told as it is, with the origin, unless it already names it (the
        // resolver's and the TLS connector's words do).
        ureq::Error::Io(e) => match e.kind() {
            io::ErrorKind::ConnectionRefused
            | io::ErrorKind::HostUnreachable
            | io::ErrorKind::NetworkUnreachable
            | io::ErrorKind::AddrNotAvailable => {
                format!("cannot connect to {}: {e}", u.authority)
            }
            io::ErrorKind::Other => e.to_string(),
            _ => format!("{}: {e}", u.origin()),
        },
        ureq::Error::ConnectionFailed => format!("cannot connect to {}", u.authority),
        ureq::Error::HostNotFound => format!("cannot resolve {}", u.host),
        ureq::Error::LargeResponseHeader(n, max) => {
            format!("a response head above {max} bytes ({n} read)")
        }
        ureq::Error::BodyExceedsLimit(cap) => format!("response body above {cap} bytes"),
        ureq::Error::Timeout(t) => format!("{}: timed out ({t})", u.origin()),
        other => format!("{}: {other}", u.origin()),
    }
}

/// Parses an `http://host[:port][/path]` or `https://host[:port][/path]` URL.
pub fn parse_url(url: &str) -> Result<HttpUrl, String> {
    let (tls, rest) = if let Some(rest) = url.strip_prefix("https://") {
        (true, rest)
    } else if let Some(rest) = url.strip_prefix("http://") {
        (false, rest)
    } else {
        return Err("only http:// and https:// URLs are supported".into());
    };
    let default_port = if tls { 443 } else { 80 };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if authority.is_empty() || authority.contains('@') {
        return Err("the URL has no usable host".into());
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6.split_once(']').ok_or("unterminated IPv6 address")?;
        let port = after.strip_prefix(':').map_or(Ok(default_port), str::parse);
        (h.to_owned(), port.map_err(|_| "bad port")?)
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_owned(), p.parse().map_err(|_| "bad port")?),
            None => (authority.to_owned(), default_port),
        }
    };
    if path.chars().any(|c| c.is_control() || c == ' ') {
        return Err("the URL path holds spaces or control characters".into());
    }
    Ok(HttpUrl {
        tls,
        host,
        port,
        path: path.to_owned(),
        authority: authority.to_owned(),
    })
}

/// A response.
#[derive(Debug)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Body bytes.
    pub body: Vec<u8>,
}

/// Sends one request and reads the whole response (body at most `cap` bytes); `https://` trusts
/// the system's roots plus `TERMPLANE_CA_FILE`.
pub fn request(
    method: &str,
    url: &str,
    content_type: Option<&str>,
    body: &[u8],
    cap: u64,
) -> Result<Response, String> {
    request_with(&env_tls, method, url, &[], content_type, body, cap)
}

/// [`request_headers`] limited to the addresses `reach` allows: a URL someone else chose is
/// sent with [`Reach::PublicOnly`].
pub fn request_reaching(
    reach: Reach,
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    content_type: Option<&str>,
    body: &[u8],
    cap: u64,
) -> Result<Response, String> {
    send(
        &env_tls,
        reach,
        method,
        url,
        headers,
        content_type,
        body,
        cap,
    )
}

/// [`request`] with extra header fields (an `Authorization`, say); a name or value holding a
/// control character is refused before anything is sent.
pub fn request_headers(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    content_type: Option<&str>,
    body: &[u8],
    cap: u64,
) -> Result<Response, String> {
    request_reaching(Reach::Any, method, url, headers, content_type, body, cap)
}

/// [`request_headers`] with the TLS configuration of `https://` URLs taken from `tls_source`.
pub fn request_with(
    tls_source: TlsSource<'_>,
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    content_type: Option<&str>,
    body: &[u8],
    cap: u64,
) -> Result<Response, String> {
    send(
        tls_source,
        Reach::Any,
        method,
        url,
        headers,
        content_type,
        body,
        cap,
    )
}

#[allow(clippy::too_many_arguments)]
fn send(
    tls_source: TlsSource<'_>,
    reach: Reach,
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    content_type: Option<&str>,
    body: &[u8],
    cap: u64,
) -> Result<Response, String> {
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(format!("not a request method: {method:?}"));
    }
    let u = parse_url(url)?;
    let mut req = ureq::http::Request::builder()
        .method(method)
        .uri(url)
        .header("Accept", "*/*")
        .header("Connection", "close");
    let extra = content_type.map(|ct| ("Content-Type", ct));
    for (name, value) in headers.iter().copied().chain(extra) {
        let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(token) {
            return Err(format!("not a header name: {name:?}"));
        }
        if value.chars().any(|c| c.is_control() && c != '\t') {
            return Err(format!("the {name} header holds a control character"));
        }
        req = req.header(name, value);
    }
    let req = req
        .body(body.to_vec())
        .map_err(|e| format!("not a request: {e}"))?;
    let agent = agent(&u, tls_source, reach)?;
    let mut res = agent.run(req).map_err(|e| failure(&u, e))?;
    let status = res.status().as_u16();
    let body = res
        .body_mut()
        .with_config()
        .limit(cap)
        .read_to_vec()
        .map_err(|e| failure(&u, e))?;
    Ok(Response { status, body })
}

/// Streams a `GET` of `url` into `sink` (at most `cap` bytes, `Content-Length` required),
/// calling `progress(done, total)` after each chunk. Answers the status and the byte count;
/// a non-200 answer writes nothing. `https://` trusts the system's roots plus
/// `TERMPLANE_CA_FILE`.
pub fn download(
    url: &str,
    sink: &mut dyn Write,
    cap: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(u16, u64), String> {
    download_with(&env_tls, url, sink, cap, progress)
}

/// [`download`] with the TLS configuration of `https://` URLs taken from `tls_source`.
pub fn download_with(
    tls_source: TlsSource<'_>,
    url: &str,
    sink: &mut dyn Write,
    cap: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(u16, u64), String> {
    let u = parse_url(url)?;
    let agent = agent(&u, tls_source, Reach::Any)?;
    let req = ureq::http::Request::builder()
        .method("GET")
        .uri(url)
        .header("Accept", "*/*")
        .header("Connection", "close")
        .body(())
        .map_err(|e| format!("not a request: {e}"))?;
    let mut res = agent.run(req).map_err(|e| failure(&u, e))?;
    let status = res.status().as_u16();
    if status != 200 {
        return Ok((status, 0));
    }
    let total = res
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .ok_or("the download has no Content-Length")?;
    if total > cap {
        return Err(format!("download above {cap} bytes"));
    }
    let mut r = res.body_mut().with_config().limit(cap).reader();
    let mut buf = vec![0_u8; 64 * 1024];
    let mut done = 0_u64;
    while done < total {
        let want = usize::try_from((total - done).min(buf.len() as u64)).unwrap_or(buf.len());
        let n = r.read(&mut buf[..want]).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the download ended early".into());
        }
        sink.write_all(&buf[..n]).map_err(|e| e.to_string())?;
        done += n as u64;
        progress(done, total);
    }
    Ok((status, done))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn only_addresses_of_the_public_internet_count_as_public() {
        let private = [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "127.0.0.1",
            "127.255.255.254",
            "100.64.0.1",
            "100.127.255.255",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::127.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "2002:c0a8:101::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "2001::1",
            "100::1",
        ];
        for a in private {
            assert!(!is_public(a.parse().unwrap()), "{a} was taken as public");
        }
        let public = [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.0",
            "142.250.1.1",
            "172.15.255.255",
            "172.32.0.0",
            "169.253.0.1",
            "192.167.1.1",
            "198.20.0.1",
            "223.255.255.255",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "2606:4700::1111",
            "2a00:1450:4001::200e",
            "2001:4860:4860::8888",
        ];
        for a in public {
            assert!(is_public(a.parse().unwrap()), "{a} was taken as not public");
        }
    }

    #[test]
    fn a_public_only_request_never_connects_to_a_loopback_listener_whatever_names_it() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        let port = l.local_addr().unwrap().port();
        // Forms the resolver reads as 127.0.0.1, a name that resolves to it, and IPv6 forms.
        for host in [
            "127.0.0.1",
            "127.1",
            "2130706433",
            "0x7f.0.0.1",
            "localhost",
            "[::ffff:127.0.0.1]",
            "[::1]",
        ] {
            let url = format!("http://{host}:{port}/push");
            let e = request_reaching(Reach::PublicOnly, "POST", &url, &[], None, b"x", 1024)
                .unwrap_err();
            assert!(
                e.contains("is not on the public internet") || e.contains("cannot resolve"),
                "{url}: {e}"
            );
            assert!(l.accept().is_err(), "{url} reached the listener");
        }
        // The same request without the restriction does connect (the check above can fail).
        let url = format!("http://127.1:{port}/push");
        let t =
            std::thread::spawn(move || request_with(&env_tls, "POST", &url, &[], None, b"x", 1024));
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            if l.accept().is_ok() {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the unrestricted request never came"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        drop(l);
        let _ = t.join();
    }

    #[test]
    fn every_spelling_of_loopback_is_refused_by_the_public_only_rule() {
        // The forms the resolver reads as 127.0.0.1 or 0.0.0.0, and the names RFC 6761 keeps
        // for loopback in any case.
        for host in [
            "127.0.0.1",
            "127.1",
            "2130706433",
            "0x7f000001",
            "0177.0.0.1",
            "0",
            "::1",
            "::ffff:127.0.0.1",
            "localhost",
            "LocalHost.",
            "api.localhost",
        ] {
            assert!(
                matches!(
                    resolve_reaching(host, 443, Reach::PublicOnly),
                    Err(Unreachable::Inside(_))
                ),
                "{host}: {:?}",
                resolve_reaching(host, 443, Reach::PublicOnly)
            );
        }
        // Without the restriction the same forms resolve, to the addresses the rule saw.
        let any = resolve_reaching("0177.0.0.1", 443, Reach::Any).unwrap();
        assert_eq!(any, vec!["127.0.0.1:443".parse().unwrap()]);
        assert!(matches!(
            resolve_reaching("8.8.8.8", 443, Reach::PublicOnly),
            Ok(a) if a == vec!["8.8.8.8:443".parse().unwrap()]
        ));
    }

    #[test]
    fn http_and_https_urls_parse_with_their_default_ports() {
        let u = parse_url("http://127.0.0.1:8080/api/x").unwrap();
        assert_eq!(
            (u.tls, u.host.as_str(), u.port, u.path.as_str()),
            (false, "127.0.0.1", 8080, "/api/x")
        );
        assert_eq!(parse_url("http://[::1]/").unwrap().host, "::1");
        assert_eq!(parse_url("http://h").unwrap().port, 80);
        let s = parse_url("https://h").unwrap();
        assert_eq!((s.tls, s.port, s.path.as_str()), (true, 443, "/"));
        assert_eq!(s.origin(), "https://h");
        let v6 = parse_url("https://[::1]:8443/p").unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 8443));
        assert!(parse_url("http://u@h/").is_err());
        assert!(parse_url("ftp://h/").unwrap_err().contains("https://"));
    }

    #[test]
    fn a_loopback_post_round_trips() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let t = std::thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            c.set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .unwrap();
            // The head and the body may arrive in separate segments: read until both are here
            // (the body is the 2 bytes `{}`), with a bound on the number of reads.
            let mut got = Vec::new();
            let mut buf = vec![0_u8; 4096];
            for _ in 0..100 {
                let n = c.read(&mut buf).unwrap();
                got.extend_from_slice(&buf[..n]);
                if n == 0 || got.ends_with(b"\r\n\r\n{}") {
                    break;
                }
            }
            let req = String::from_utf8_lossy(&got).into_owned();
            c.write_all(b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
                .unwrap();
            req
        });
        let r = request(
            "POST",
            &format!("http://127.0.0.1:{port}/p"),
            Some("application/json"),
            b"{}",
            1000,
        )
        .unwrap();
        assert_eq!(r.status, 201);
        assert_eq!(r.body, b"abcde");
        let req = t.join().unwrap();
        assert!(req.starts_with("POST /p HTTP/1.1\r\n"));
        assert!(req.ends_with("\r\n\r\n{}"));
    }

    #[test]
    fn extra_headers_are_sent_and_injection_is_refused_before_connecting() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}/q");
        // Refused before any connection is made: the listener never sees these.
        for (name, value) in [
            ("Authorization", "Bearer a\r\nX-Evil: 1"),
            ("X Bad", "v"),
            ("", "v"),
            ("X-Nul", "a\0b"),
        ] {
            let e = request_headers("GET", &url, &[(name, value)], None, b"", 10).unwrap_err();
            assert!(e.contains("header"), "{e}");
        }
        assert!(request_headers("GET\r\n", &url, &[], None, b"", 10).is_err());
        let t = std::thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            c.set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .unwrap();
            let mut got = Vec::new();
            let mut buf = vec![0_u8; 4096];
            for _ in 0..100 {
                let n = c.read(&mut buf).unwrap();
                got.extend_from_slice(&buf[..n]);
                if n == 0 || got.ends_with(b"\r\n\r\n") {
                    break;
                }
            }
            c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                .unwrap();
            String::from_utf8_lossy(&got).into_owned()
        });
        let r = request_headers(
            "GET",
            &url,
            &[("Authorization", "Bearer t\tk")],
            None,
            b"",
            10,
        )
        .unwrap();
        assert_eq!((r.status, r.body.as_slice()), (200, b"ok".as_slice()));
        // Field names are case-insensitive (RFC 9110 §5.1); ureq sends them in lower case.
        let req = t.join().unwrap();
        assert!(req.contains("\r\nauthorization: Bearer t\tk\r\n"), "{req}");
        assert!(req.contains("\r\nuser-agent: termplane/"), "{req}");
    }

    /// A server on loopback that answers each of `n` connections with `answer` once its request
    /// head has arrived, then closes it.
    fn answering(answer: &'static [u8], n: usize) -> (u16, std::thread::JoinHandle<()>) {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let t = std::thread::spawn(move || {
            for _ in 0..n {
                let (mut c, _) = l.accept().unwrap();
                c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut got = Vec::new();
                let mut buf = [0_u8; 4096];
                for _ in 0..100 {
                    let k = c.read(&mut buf).unwrap_or(0);
                    got.extend_from_slice(&buf[..k]);
                    if k == 0 || got.ends_with(b"\r\n\r\n") {
                        break;
                    }
                }
                let _ = c.write_all(answer);
            }
        });
        (port, t)
    }

    #[test]
    fn a_body_read_to_the_end_of_the_stream_is_read_whole_within_its_cap() {
        let answer = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nthe whole body";
        let (port, t) = answering(answer, 3);
        let url = format!("http://127.0.0.1:{port}/");
        let r = request("GET", &url, None, b"", u64::MAX).unwrap();
        assert_eq!((r.status, &r.body[..]), (200, &b"the whole body"[..]));
        let e = request("GET", &url, None, b"", 13).unwrap_err();
        assert!(e.contains("above 13 bytes"), "{e}");
        assert_eq!(
            request("GET", &url, None, b"", 14).unwrap().body,
            b"the whole body"
        );
        t.join().unwrap();
    }

    #[test]
    fn a_redirect_is_returned_not_followed_and_a_status_is_not_an_error() {
        let answer = b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:9/elsewhere\r\nContent-Length: 5\r\n\r\nmoved";
        let (port, t) = answering(answer, 1);
        let r = request("GET", &format!("http://127.0.0.1:{port}/"), None, b"", 100).unwrap();
        assert_eq!((r.status, &r.body[..]), (307, &b"moved"[..]));
        t.join().unwrap();
    }

    #[test]
    fn a_server_sending_an_endless_header_line_is_cut_off() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let t = std::thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            let _ = c.write_all(b"HTTP/1.1 200 OK\r\nX-Long: ");
            // 1 MiB of one header line, written until the client hangs up.
            let piece = vec![b'a'; 64 * 1024];
            for _ in 0..16 {
                if c.write_all(&piece).is_err() {
                    break;
                }
            }
        });
        let e = request("GET", &format!("http://127.0.0.1:{port}/"), None, b"", 10).unwrap_err();
        assert!(e.contains("head above"), "{e}");
        t.join().unwrap();
    }
}
