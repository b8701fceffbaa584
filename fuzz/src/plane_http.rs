//! The plane's own HTTP/1.1 parsing: the rules it holds request heads to (hyper frames bodies)
//! and the router's decoding and matching of paths.

use std::collections::BTreeMap;

use termplane::http::wire::{Framing, MAX_HEAD_BYTES};
use termplane::http::wire::{MAX_TARGET_BYTES, Method, parse_head};
use termplane::http::{Routed, route, route_table};

/// Request heads: no panic; a refusal always closes the connection with one of the statuses
/// the module's table lists; an accepted head is within the caps, its path, query and fields
/// are what the rules allow and its framing agrees with its fields; and a head read in two
/// goes (a prefix, then all of it) is read the same as at once, so where a client's segments
/// end never changes the answer.
pub fn http_head(data: &[u8]) {
    let [flags, n0, n1, cut, rest @ ..] = data else {
        return;
    };
    // Inputs long enough to reach the caps: the first 0x01 byte stands for a run of `a`s.
    let mut buf = rest.to_vec();
    if flags & 1 != 0
        && let Some(at) = buf.iter().position(|&b| b == 1)
    {
        let run = usize::from(u16::from_be_bytes([*n0, *n1]) % 20_000);
        buf.splice(at..=at, std::iter::repeat_n(b'a', run));
    }
    let parsed = parse_head(&buf);
    match &parsed {
        Err(r) => {
            assert!(r.close, "a refused head left the connection open");
            assert!(
                [400, 414, 417, 431, 501, 505].contains(&r.status),
                "status {}",
                r.status
            );
        }
        Ok(None) => assert!(
            buf.len() < MAX_HEAD_BYTES,
            "{} bytes without a head went unrefused",
            buf.len()
        ),
        Ok(Some((head, len))) => {
            assert!(*len <= buf.len() && *len <= MAX_HEAD_BYTES);
            assert!(
                head.path == "*" || head.path.starts_with('/'),
                "path {:?}",
                head.path
            );
            assert!(head.path.len() <= MAX_TARGET_BYTES);
            let printable = |s: &str| s.bytes().all(|b| b.is_ascii_graphic());
            assert!(printable(&head.path) && !head.path.contains(['?', '#']));
            if let Some(q) = &head.query {
                assert!(printable(q) && !q.contains('#'));
            }
            for (name, value) in &head.headers {
                assert!(!name.is_empty() && *name == name.to_ascii_lowercase());
                assert!(!value.contains('\0') && value.trim() == value);
            }
            let hosts = head.all("host").count();
            assert!(hosts <= 1 && (hosts == 1 || !head.http11));
            match head.framing {
                Framing::Chunked => assert!(
                    head.http11
                        && head.one("transfer-encoding").is_some()
                        && head.one("content-length").is_none()
                ),
                Framing::Length(n) => assert!(n > 0 && head.one("transfer-encoding").is_none()),
                Framing::Empty => assert!(head.one("transfer-encoding").is_none()),
            }
            assert!(!head.expect_continue || (head.http11 && head.framing != Framing::Empty));
            assert!(!head.keep_alive || head.http11);

            let again = parse_head(&buf[..*len]);
            assert_eq!(format!("{again:?}"), format!("{parsed:?}"));
            let k = usize::from(*cut) * *len / 256;
            assert!(
                matches!(parse_head(&buf[..k]), Ok(None)),
                "a prefix of {k} bytes of a valid head was not simply incomplete: {:?}",
                parse_head(&buf[..k])
            );
        }
    }
}

const METHODS: [Method; 9] = [
    Method::Get,
    Method::Head,
    Method::Post,
    Method::Put,
    Method::Delete,
    Method::Patch,
    Method::Options,
    Method::Trace,
    Method::Registered("PROPFIND"),
];

/// Strict percent-decoding: every `%` starts two hex digits and the result is UTF-8.
fn decode(seg: &str) -> Result<String, ()> {
    let b = seg.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3).ok_or(())?).map_err(|_| ())?;
            if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                return Err(());
            }
            out.push(u8::from_str_radix(hex, 16).map_err(|_| ())?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| ())
}

/// Whether a segment decodes to more than the 1025 bytes the router looks at before it ends
/// or goes wrong (the router then stops decoding it: 404).
fn too_long(seg: &str) -> bool {
    let b = seg.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < b.len() {
        if n >= 1025 {
            return true;
        }
        if b[i] == b'%' {
            let valid = b
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit));
            if !valid {
                return false;
            }
            i += 3;
        } else {
            i += 1;
        }
        n += 1;
    }
    false
}

/// The route table, each template with its segments.
type Table = Vec<(Method, &'static str, Vec<&'static str>)>;

fn table() -> &'static Table {
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        route_table()
            .into_iter()
            .map(|(m, t)| (m, t, t.split('/').skip(1).collect()))
            .collect()
    })
}

/// Percent-encodes every byte but the unreserved ones.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A template a path fits: how literal it is segment by segment, its method and template, and
/// the parameters the path gives it.
type Match = (Vec<bool>, Method, &'static str, Vec<(&'static str, String)>);

/// What the router must answer, from the route table alone; `None` when a segment decodes to
/// more than the router looks at (it then answers 404 or 400, nothing else).
fn expected_route(method: Method, path: &str) -> Option<Routed> {
    let Some(rest) = path.strip_prefix('/') else {
        return Some(Routed::NoSuchPath);
    };
    let mut segs = Vec::new();
    for raw in rest.split('/') {
        if too_long(raw) {
            return None;
        }
        match decode(raw) {
            Ok(s) => segs.push(s),
            Err(()) => return Some(Routed::BadPath("")),
        }
    }
    let lookup = if method == Method::Head {
        Method::Get
    } else {
        method
    };
    // Every template the path matches, with how literal it is, segment by segment.
    let mut matches: Vec<Match> = Vec::new();
    for (m, template, t) in table() {
        let (m, template) = (*m, *template);
        if t.len() != segs.len() {
            continue;
        }
        let mut params = Vec::new();
        let mut shape = Vec::new();
        let fits = t.iter().zip(&segs).all(|(t, s)| match t.strip_prefix(':') {
            Some(name) => {
                params.push((name, s.clone()));
                shape.push(false);
                !s.is_empty()
            }
            None => {
                shape.push(true);
                t == s
            }
        });
        if fits {
            matches.push((shape, m, template, params));
        }
    }
    let best = matches.iter().map(|m| m.0.clone()).max()?;
    let best: Vec<_> = matches.into_iter().filter(|m| m.0 == best).collect();
    if let Some((_, _, template, params)) = best.iter().find(|m| m.1 == lookup) {
        return Some(Routed::Found(template, params.clone()));
    }
    let mut allowed: BTreeMap<&'static str, Method> =
        best.iter().map(|m| (m.1.as_str(), m.1)).collect();
    if allowed.contains_key("GET") {
        allowed.insert("HEAD", Method::Head);
    }
    Some(Routed::NotAllowed(allowed.into_values().collect()))
}

fn same(got: &Routed, want: &Routed) -> bool {
    match (got, want) {
        (Routed::BadPath(_), Routed::BadPath(_)) => true,
        _ => got == want,
    }
}

/// The plane's router on arbitrary paths: it answers what the route table says (strict
/// percent-decoding, a concrete path before a templated one, 405 with the methods the path
/// has); an encoded `/` stays inside its segment and `.`/`..` are never resolved, so a path
/// reaches only a template with as many segments as it has; and the parameters it gives, put
/// back into their template encoded, route to the same place with the same parameters.
pub fn plane_router(data: &[u8]) {
    let [m, rest @ ..] = data else {
        return;
    };
    let method = METHODS[usize::from(*m) % METHODS.len()];
    let path = String::from_utf8_lossy(rest);
    let got = route(method, &path);
    match expected_route(method, &path) {
        Some(want) => assert!(same(&got, &want), "{got:?}, the table says {want:?}"),
        None => assert!(
            matches!(got, Routed::NoSuchPath | Routed::BadPath(_)),
            "{got:?} for an overlong segment"
        ),
    }
    if let Routed::Found(template, params) = &got {
        assert_eq!(template.split('/').count(), path.split('/').count());
        let mut p = params.iter();
        let rebuilt: Vec<String> = template
            .split('/')
            .map(|t| match t.strip_prefix(':') {
                Some(_) => encode(&p.next().expect("a parameter per placeholder").1),
                None => t.to_owned(),
            })
            .collect();
        let rebuilt = rebuilt.join("/");
        assert_eq!(
            route(method, &rebuilt),
            got,
            "{rebuilt:?} did not route back"
        );
    }
}
