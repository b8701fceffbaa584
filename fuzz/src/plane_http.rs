//! The plane's own HTTP/1.1 parsing: request heads, chunked bodies and the router's decoding
//! and matching of paths.

use std::collections::BTreeMap;

use termplane::http::chunked::Chunked;
use termplane::http::wire::{Framing, MAX_CHUNK_LINE, MAX_HEAD_BYTES, MAX_TRAILER_BYTES};
use termplane::http::wire::{MAX_TARGET_BYTES, Method, parse_head};
use termplane::http::{Routed, route, route_table};

use crate::cuts::Cuts;

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

/// What a whole chunked body decodes to, read from the RFC's grammar on its own terms: body
/// bytes so far, and where it ended (`Some(used)`), or `Err` for a malformed one.
fn reference_chunked(input: &[u8]) -> Result<(Vec<u8>, Option<usize>), ()> {
    let mut body = Vec::new();
    let mut at = 0;
    // The line starting at `at`, CRLF included; `Ok(None)` when it has not ended yet.
    let line = |at: usize, cap: usize| -> Result<Option<&[u8]>, ()> {
        let rest = &input[at..];
        match rest.iter().position(|&b| b == b'\n') {
            Some(i) if i < cap => {
                let l = &rest[..=i];
                if l.ends_with(b"\r\n") {
                    Ok(Some(l))
                } else {
                    Err(())
                }
            }
            _ if rest.len() > cap => Err(()),
            _ => Ok(None),
        }
    };
    loop {
        let Some(l) = line(at, MAX_CHUNK_LINE)? else {
            return Ok((body, None));
        };
        at += l.len();
        let size = l[..l.len() - 2].split(|&b| b == b';').next().unwrap_or(&[]);
        if size.is_empty() || size.len() > 16 || !size.iter().all(u8::is_ascii_hexdigit) {
            return Err(());
        }
        let n = size.iter().fold(0_u64, |n, d| {
            n * 16 + u64::from((*d as char).to_digit(16).unwrap_or(0))
        });
        if n == 0 {
            // Trailer lines, capped together, up to an empty one.
            let start = at;
            loop {
                let room = MAX_TRAILER_BYTES - (at - start);
                let Some(l) = line(at, room)? else {
                    return Ok((body, None));
                };
                at += l.len();
                if l == b"\r\n" {
                    return Ok((body, Some(at)));
                }
            }
        }
        let avail = (input.len() - at) as u64;
        if avail < n {
            body.extend_from_slice(&input[at..]);
            return Ok((body, None));
        }
        let n = usize::try_from(n).map_err(|_| ())?;
        body.extend_from_slice(&input[at..at + n]);
        at += n;
        match line(at, MAX_CHUNK_LINE)? {
            None => return Ok((body, None)),
            Some(b"\r\n") => at += 2,
            Some(_) => return Err(()),
        }
    }
}

/// A chunked encoding of `body` in seed-chosen chunks, sizes spelled in either case with
/// leading zeros and extensions, trailer fields after the last chunk.
fn encode_chunked(body: &[u8], seed: u8) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, piece) in Cuts::new(seed).split(body).into_iter().enumerate() {
        let size = match (usize::from(seed) + i) % 4 {
            0 => format!("{:x}", piece.len()),
            1 => format!("{:X};name=value", piece.len()),
            2 => format!("{:016x}", piece.len()),
            _ => format!("0{:x};a;b=\"q\"", piece.len()),
        };
        out.extend_from_slice(size.as_bytes());
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(piece);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n");
    if seed & 1 == 1 {
        out.extend_from_slice(b"Digest: x\r\nOther: y\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// The chunked decoder fed a body in seed-chosen pieces: it agrees with the reference reading
/// of the whole input (the same body, the same end, the same refusal), so where the reads end
/// never matters; and every valid encoding of a body decodes to that body and ends exactly
/// where its encoding does, leaving the next request's bytes alone.
pub fn http_chunked(data: &[u8]) {
    let [flags, seed, rest @ ..] = data else {
        return;
    };
    // Generated bodies of up to 64 KiB: past that a longer body only costs time.
    let sent = &rest[..rest.len().min(65536)];
    let (input, valid) = if flags & 1 == 1 {
        let mut input = encode_chunked(sent, *flags);
        let end = input.len();
        input.extend_from_slice(b"GET /next HTTP/1.1\r\n");
        (input, Some(end))
    } else {
        (rest.to_vec(), None)
    };
    let mut decoder = Chunked::default();
    let mut body = Vec::new();
    let mut offset = 0;
    let mut got = Ok(None);
    for piece in Cuts::for_stream(*seed, input.len()).split(&input) {
        match decoder.feed(piece, &mut body) {
            Err(_) => {
                got = Err(());
                break;
            }
            Ok(step) => {
                assert!(step.used <= piece.len());
                if step.done {
                    got = Ok(Some(offset + step.used));
                    break;
                }
                assert_eq!(step.used, piece.len(), "input left unread before the end");
                offset += piece.len();
            }
        }
    }
    let reference = reference_chunked(&input);
    match (&got, &reference) {
        (Err(()), Err(())) => {}
        (Ok(end), Ok((want, want_end))) => {
            assert_eq!(end, want_end, "the body ended elsewhere");
            assert_eq!(&body, want, "the body differs");
        }
        _ => panic!("decoder {got:?}, reference {reference:?}"),
    }
    if let Some(end) = valid {
        assert_eq!(
            got,
            Ok(Some(end)),
            "a valid encoding did not end where it ends"
        );
        assert_eq!(body, sent, "a valid encoding decoded to another body");
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
