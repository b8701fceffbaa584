//! HTTP/1.1 request heads and message framing (RFC 9112), as pure functions over bytes.
//!
//! The head is tokenised by `httparse` (strict: no whitespace before a header's colon, no
//! obsolete line folding, tokens and field values checked); everything else a server must decide
//! from a head is decided here, with the answer RFC 9112 and RFC 9110 give for each fault:
//!
//! | fault | answer |
//! |---|---|
//! | head over [`MAX_HEAD_BYTES`] or over [`MAX_HEADERS`] fields | 431, close |
//! | request target over [`MAX_TARGET_BYTES`] | 414, close |
//! | malformed request line or field, NUL, bytes outside UTF-8 | 400, close |
//! | HTTP version other than 1.0 or 1.1 | 505, close |
//! | method not in the IANA registry, or `CONNECT` (a proxy's method) | 501, close |
//! | HTTP/1.1 without exactly one valid `Host` | 400, close |
//! | `Content-Length` not one decimal number (differing duplicates, sign, overflow) | 400, close |
//! | `Transfer-Encoding` with `Content-Length`, in HTTP/1.0, or not ending in `chunked` | 400, close |
//! | a transfer coding other than `chunked` | 501, close |
//! | `Expect` other than `100-continue` | 417 |
//!
//! Every answer carries the spec's error body; "close" means the connection is closed after it,
//! because the framing of whatever follows cannot be trusted.

use std::fmt;

/// Largest request head (request line and fields) accepted.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Most header fields in a request head.
pub const MAX_HEADERS: usize = 64;
/// Longest request target accepted.
pub const MAX_TARGET_BYTES: usize = 8 * 1024;

/// A request method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`.
    Get,
    /// `HEAD`.
    Head,
    /// `POST`.
    Post,
    /// `PUT`.
    Put,
    /// `DELETE`.
    Delete,
    /// `PATCH`.
    Patch,
    /// `OPTIONS`.
    Options,
    /// `TRACE`.
    Trace,
    /// Another method of the IANA HTTP Method Registry: known to HTTP, served by no route here
    /// (answered 405 on an existing path).
    Registered(&'static str),
}

/// Methods of the IANA HTTP Method Registry that no route serves.
const REGISTERED: &[&str] = &[
    "ACL",
    "BASELINE-CONTROL",
    "BIND",
    "CHECKIN",
    "CHECKOUT",
    "COPY",
    "LABEL",
    "LINK",
    "LOCK",
    "MERGE",
    "MKACTIVITY",
    "MKCALENDAR",
    "MKCOL",
    "MKREDIRECTREF",
    "MKWORKSPACE",
    "MOVE",
    "ORDERPATCH",
    "PROPFIND",
    "PROPPATCH",
    "QUERY",
    "REBIND",
    "REPORT",
    "SEARCH",
    "UNBIND",
    "UNCHECKOUT",
    "UNLINK",
    "UNLOCK",
    "UPDATE",
    "UPDATEREDIRECTREF",
    "VERSION-CONTROL",
];

impl Method {
    /// The method's token.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Head => "HEAD",
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Delete => "DELETE",
            Self::Patch => "PATCH",
            Self::Options => "OPTIONS",
            Self::Trace => "TRACE",
            Self::Registered(m) => m,
        }
    }

    fn parse(token: &str) -> Option<Self> {
        Some(match token {
            "GET" => Self::Get,
            "HEAD" => Self::Head,
            "POST" => Self::Post,
            "PUT" => Self::Put,
            "DELETE" => Self::Delete,
            "PATCH" => Self::Patch,
            "OPTIONS" => Self::Options,
            "TRACE" => Self::Trace,
            other => {
                return REGISTERED
                    .iter()
                    .find(|m| **m == other)
                    .map(|m| Self::Registered(m));
            }
        })
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the request's body is delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// No body.
    Empty,
    /// Exactly this many bytes.
    Length(u64),
    /// The chunked transfer coding.
    Chunked,
}

/// A parsed, validated request head.
#[derive(Clone, Debug)]
pub struct Head {
    /// The method.
    pub method: Method,
    /// The path of the request target (origin form; the path of an absolute-form target), still
    /// percent-encoded.
    pub path: String,
    /// The query, without `?`, still encoded.
    pub query: Option<String>,
    /// HTTP/1.1 (`true`) or HTTP/1.0.
    pub http11: bool,
    /// Header fields in order, names lower-cased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// How the body is delimited.
    pub framing: Framing,
    /// The client asked for `100 Continue` before sending its body.
    pub expect_continue: bool,
    /// The connection may carry another request after this one.
    pub keep_alive: bool,
}

impl Head {
    /// Every value of header `name` (lower-case), in order.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of header `name` (lower-case).
    #[must_use]
    pub fn one(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether a comma-separated header `name` lists `token` (case-insensitive).
    #[must_use]
    pub fn has_token(&self, name: &str, token: &str) -> bool {
        self.all(name)
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case(token))
    }
}

/// Why a head was refused: the status to answer and a one-line reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// HTTP status.
    pub status: u16,
    /// Error code of the spec's error body.
    pub code: &'static str,
    /// Prose.
    pub message: String,
    /// Whether the connection must close after the answer (every refusal of a head does: what
    /// follows it cannot be framed with confidence).
    pub close: bool,
}

impl Refusal {
    fn new(status: u16, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            close: true,
        }
    }

    fn bad(message: impl Into<String>) -> Self {
        Self::new(400, "BAD_REQUEST", message)
    }
}

/// Parses the head at the start of `buf`. `Ok(None)`: incomplete (read more, unless `buf` is
/// already [`MAX_HEAD_BYTES`] long, which the caller answers with 431).
pub fn parse_head(buf: &[u8]) -> Result<Option<(Head, usize)>, Refusal> {
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut fields);
    let len = match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => {
            if buf.len() >= MAX_HEAD_BYTES {
                return Err(too_large());
            }
            // A request line longer than any target we accept need not be read to its end.
            if !buf[..buf.len().min(MAX_TARGET_BYTES + 64)].contains(&b'\n')
                && buf.len() > MAX_TARGET_BYTES + 32
            {
                return Err(Refusal::new(414, "URI_TOO_LONG", "request target too long"));
            }
            return Ok(None);
        }
        Err(httparse::Error::TooManyHeaders) => return Err(too_large()),
        Err(httparse::Error::Version) => {
            return Err(Refusal::new(
                505,
                "HTTP_VERSION_NOT_SUPPORTED",
                "only HTTP/1.1 and HTTP/1.0 are served",
            ));
        }
        Err(e) => return Err(Refusal::bad(format!("malformed request head: {e}"))),
    };
    if len > MAX_HEAD_BYTES {
        return Err(too_large());
    }
    let fields = req.headers.iter().map(|h| (h.name, h.value)).collect();
    let head = build(Tokens {
        method: req.method.unwrap_or_default(),
        target: req.path.unwrap_or_default(),
        http11: req.version == Some(1),
        fields,
    })?;
    Ok(Some((head, len)))
}

/// A request head as a tokeniser left it: `httparse` here, or hyper (which tokenises with
/// `httparse` too).
pub struct Tokens<'a> {
    /// The method's token.
    pub method: &'a str,
    /// The request target.
    pub target: &'a str,
    /// HTTP/1.1 (`true`) or HTTP/1.0.
    pub http11: bool,
    /// The header fields in order: names as sent, values as bytes.
    pub fields: Vec<(&'a str, &'a [u8])>,
}

/// Decides everything a server must decide from a tokenised head (every row of the module's
/// table after the tokeniser's own), and builds the [`Head`].
pub fn build(t: Tokens<'_>) -> Result<Head, Refusal> {
    let Some(method) = Method::parse(t.method) else {
        return Err(Refusal::new(
            501,
            "NOT_IMPLEMENTED",
            "request method not implemented",
        ));
    };
    let http11 = t.http11;
    let target = t.target;
    if target.len() > MAX_TARGET_BYTES {
        return Err(Refusal::new(414, "URI_TOO_LONG", "request target too long"));
    }
    if t.fields.len() > MAX_HEADERS {
        return Err(too_large());
    }
    if !target.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Refusal::bad(
            "the request target must be printable ASCII (percent-encode other bytes)",
        ));
    }
    let (path, query) = split_target(target)?;

    let mut headers = Vec::with_capacity(t.fields.len());
    for (name, value) in t.fields {
        let Ok(value) = std::str::from_utf8(value) else {
            return Err(Refusal::bad(format!("header {name} is not valid UTF-8")));
        };
        if value.contains('\0') {
            return Err(Refusal::bad(format!("header {name} contains NUL")));
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut head = Head {
        method,
        path,
        query,
        http11,
        headers,
        framing: Framing::Empty,
        expect_continue: false,
        keep_alive: http11,
    };

    let hosts: Vec<&str> = head.all("host").collect();
    match hosts.as_slice() {
        [] if http11 => return Err(Refusal::bad("HTTP/1.1 requests need a Host header")),
        [one] if !valid_host(one) => return Err(Refusal::bad("the Host header is malformed")),
        [_, _, ..] => return Err(Refusal::bad("more than one Host header")),
        _ => {}
    }

    head.framing = framing(&head)?;
    if head.has_token("connection", "close") {
        head.keep_alive = false;
    }
    // HTTP/1.0 connections close after one answer (persistent 1.0 connections are not offered).
    if !http11 {
        head.keep_alive = false;
    }
    let expects: Vec<&str> = head.all("expect").collect();
    match expects.as_slice() {
        [] => {}
        [one] if one.eq_ignore_ascii_case("100-continue") => {
            head.expect_continue = http11 && head.framing != Framing::Empty;
        }
        _ => {
            return Err(Refusal::new(
                417,
                "EXPECTATION_FAILED",
                "only `Expect: 100-continue` is met",
            ));
        }
    }
    Ok(head)
}

fn too_large() -> Refusal {
    Refusal::new(
        431,
        "HEADERS_TOO_LARGE",
        format!("request head over {MAX_HEAD_BYTES} bytes or {MAX_HEADERS} fields"),
    )
}

/// Splits a request target into its path and query. Origin form (`/p?q`) and absolute form
/// (`http://host/p?q`, RFC 9112 §3.2.2) are accepted; `*` (asterisk form) becomes the path `*`.
/// A fragment has no place in a request target; one sent anyway is dropped, whatever the form.
fn split_target(target: &str) -> Result<(String, Option<String>), Refusal> {
    let target = target.split('#').next().unwrap_or_default();
    let rest = if target.starts_with('/') || target == "*" {
        target
    } else {
        let lower = target.get(..8).unwrap_or(target).to_ascii_lowercase();
        let after = if lower.starts_with("http://") {
            &target[7..]
        } else if lower.starts_with("https://") {
            &target[8..]
        } else {
            return Err(Refusal::bad("unsupported request-target form"));
        };
        match after.find(['/', '?']) {
            Some(i) if after.as_bytes()[i] == b'/' => &after[i..],
            Some(i) => return Ok(("/".to_owned(), Some(after[i + 1..].to_owned()))),
            None => "/",
        }
    };
    Ok(match rest.split_once('?') {
        Some((p, q)) => (p.to_owned(), Some(q.to_owned())),
        None => (rest.to_owned(), None),
    })
}

/// RFC 9110 §7.2: `uri-host [ ":" port ]`; permissive on the host's characters, strict on shape.
fn valid_host(h: &str) -> bool {
    !h.is_empty()
        && h.len() <= 255
        && h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-_:[]~!$&'()*+,;=%".contains(&b))
}

fn framing(head: &Head) -> Result<Framing, Refusal> {
    let te: Vec<String> = head
        .all("transfer-encoding")
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().to_ascii_lowercase())
        .collect();
    let cl: Vec<&str> = head
        .all("content-length")
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    if !te.is_empty() {
        if !head.http11 {
            return Err(Refusal::bad("Transfer-Encoding is not allowed in HTTP/1.0"));
        }
        if !cl.is_empty() {
            return Err(Refusal::bad(
                "a request must not carry both Transfer-Encoding and Content-Length",
            ));
        }
        if te.last().map(String::as_str) != Some("chunked") {
            return Err(Refusal::bad("the final transfer coding must be chunked"));
        }
        if te.len() > 1 {
            return Err(Refusal::new(
                501,
                "NOT_IMPLEMENTED",
                "transfer codings other than chunked are not implemented",
            ));
        }
        return Ok(Framing::Chunked);
    }
    let mut length: Option<u64> = None;
    for v in cl {
        if v.is_empty() || v.len() > 19 || !v.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Refusal::bad("Content-Length must be one decimal number"));
        }
        let n: u64 = v
            .parse()
            .map_err(|_| Refusal::bad("Content-Length out of range"))?;
        match length {
            Some(m) if m != n => {
                return Err(Refusal::bad("conflicting Content-Length values"));
            }
            _ => length = Some(n),
        }
    }
    Ok(match length {
        None | Some(0) => Framing::Empty,
        Some(n) => Framing::Length(n),
    })
}

/// The reason phrase of a status.
#[must_use]
pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        414 => "URI Too Long",
        417 => "Expectation Failed",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn head(raw: &str) -> Result<Head, Refusal> {
        parse_head(raw.as_bytes()).map(|h| h.unwrap().0)
    }

    fn status(raw: &[u8]) -> u16 {
        match parse_head(raw) {
            Ok(Some(_)) => 200,
            Ok(None) => 0,
            Err(r) => r.status,
        }
    }

    #[test]
    fn a_plain_request_parses() {
        let h = head("GET /api/x?a=1 HTTP/1.1\r\nHost: h\r\nX-A:  b \r\n\r\n").unwrap();
        assert_eq!(h.method, Method::Get);
        assert_eq!(h.path, "/api/x");
        assert_eq!(h.query.as_deref(), Some("a=1"));
        assert_eq!(h.one("x-a"), Some("b"));
        assert!(h.keep_alive && h.http11);
        assert_eq!(h.framing, Framing::Empty);
    }

    #[test]
    fn each_fault_gets_its_rfc_answer() {
        let cases: &[(&[u8], u16)] = &[
            (b"GET / HTTP/1.1\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
            (b"GET / HTTP/1.0\r\n\r\n", 200),
            (b"GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
            (b"BREW / HTTP/1.1\r\nHost: a\r\n\r\n", 501),
            (b"QUERY / HTTP/1.1\r\nHost: a\r\n\r\n", 200),
            (b"CONNECT a:1 HTTP/1.1\r\nHost: a\r\n\r\n", 501),
            (b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\n\r\n", 200),
            (b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +1\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
            (b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400),
            (b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: a\r\nX: a\0b\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: a\r\nX: \xff\xfe\r\n\r\n", 400),
            (b"GET /\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: a\r\nExpect: tea\r\n\r\n", 417),
        ];
        for (raw, want) in cases {
            assert_eq!(status(raw), *want, "{}", String::from_utf8_lossy(raw));
        }
    }

    #[test]
    fn oversized_heads_are_431_and_long_targets_414() {
        let mut big = b"GET / HTTP/1.1\r\nHost: a\r\n".to_vec();
        while big.len() < MAX_HEAD_BYTES + 10 {
            big.extend_from_slice(b"X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
        }
        assert_eq!(status(&big), 431);
        let mut many = b"GET / HTTP/1.1\r\nHost: a\r\n".to_vec();
        for i in 0..MAX_HEADERS {
            many.extend_from_slice(format!("X-{i}: a\r\n").as_bytes());
        }
        many.extend_from_slice(b"\r\n");
        assert_eq!(status(&many), 431);
        let long = format!(
            "GET /{} HTTP/1.1\r\nHost: a\r\n\r\n",
            "a".repeat(MAX_TARGET_BYTES)
        );
        assert_eq!(status(long.as_bytes()), 414);
        let unterminated = format!("GET /{}", "a".repeat(MAX_TARGET_BYTES + 100));
        assert_eq!(status(unterminated.as_bytes()), 414);
    }

    #[test]
    fn absolute_and_asterisk_targets() {
        let h = head("GET http://Plane.example:80/api/x?y HTTP/1.1\r\nHost: a\r\n\r\n").unwrap();
        assert_eq!((h.path.as_str(), h.query.as_deref()), ("/api/x", Some("y")));
        let h = head("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n").unwrap();
        assert_eq!(h.path, "*");
        // A fragment is dropped in every form, a query with no path included.
        for (target, path, query) in [
            ("/api/x?y#z", "/api/x", Some("y")),
            ("/api/x#z?y", "/api/x", None),
            ("http://plane/api/x?y#z", "/api/x", Some("y")),
            ("http://plane?y#/api/z", "/", Some("y")),
            ("http://plane#/api/z?y", "/", None),
        ] {
            let h = head(&format!("GET {target} HTTP/1.1\r\nHost: a\r\n\r\n")).unwrap();
            assert_eq!(
                (h.path.as_str(), h.query.as_deref()),
                (path, query),
                "{target}"
            );
        }
        assert_eq!(status(b"GET ftp://x/ HTTP/1.1\r\nHost: a\r\n\r\n"), 400);
    }

    #[test]
    fn http10_closes_and_connection_close_is_honoured() {
        assert!(!head("GET / HTTP/1.0\r\n\r\n").unwrap().keep_alive);
        assert!(
            !head("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                .unwrap()
                .keep_alive
        );
    }

    #[test]
    fn no_input_panics_the_head_parser() {
        // A deterministic sweep of short byte strings around the interesting delimiters.
        let alphabet = b"GET /:\r\n\0 %HTP1.0\xff";
        let mut seed = 0x2545_f491_u32;
        for _ in 0..20_000 {
            let mut v = b"GET / HTTP/1.1\r\nHost: a\r\n".to_vec();
            for _ in 0..(seed % 40) {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                v.push(alphabet[(seed as usize) % alphabet.len()]);
            }
            let _ = parse_head(&v);
        }
    }
}
