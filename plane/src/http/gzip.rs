//! Answers in `gzip` when the request accepts it, as they are otherwise, with
//! `Vary: Accept-Encoding` either way.
//!
//! Nothing is compressed per request: embedded files carry a gzip copy made at build time
//! (`build.rs`), and an answer the plane generates once is compressed once, at its first use
//! ([`Encoded`]). Answers share those bytes ([`Shared`]) instead of copying them.

use std::io::Write as _;
use std::sync::Arc;

use super::server::{Body, Response, Shared};
use super::wire::Head;

/// Whether the request accepts a gzip body (`gzip` or `*` listed without `q=0`).
pub(super) fn accepted(head: &Head) -> bool {
    head.all("accept-encoding").any(|v| {
        v.split(',').any(|item| {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or_default().trim();
            let refused = parts.any(|p| {
                let p = p.trim();
                p.strip_prefix("q=")
                    .is_some_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
            });
            (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
        })
    })
}

/// A 200 with `plain` or, when the request accepts gzip (`accepts`, from [`accepted`]) and the
/// copy is smaller, its gzip copy `gz`.
pub(super) fn answer(accepts: bool, content_type: &str, plain: Shared, gz: Shared) -> Response {
    let gzip = accepts && gz.as_slice().len() < plain.as_slice().len();
    let mut res = Response::bytes(200, content_type, Vec::new());
    res.body = Body::Shared(if gzip { gz } else { plain });
    if gzip {
        res.set_header("content-encoding", "gzip");
    }
    res.set_header("vary", "accept-encoding");
    res
}

/// A generated answer's bytes with their gzip copy, made once and then shared.
pub(super) struct Encoded {
    plain: Arc<[u8]>,
    gz: Arc<[u8]>,
}

impl Encoded {
    /// Compresses `plain` (default level: a generated document is compressed while a request
    /// waits for it).
    pub(super) fn new(plain: Vec<u8>) -> Self {
        let mut enc = flate2::write::GzEncoder::new(
            Vec::with_capacity(plain.len() / 4),
            flate2::Compression::default(),
        );
        // Writing into a `Vec` cannot fail; should it, the plain bytes stand in for the copy
        // (never chosen, as it is not smaller).
        let gz = enc
            .write_all(&plain)
            .and_then(|()| enc.finish())
            .unwrap_or_else(|_| plain.clone());
        Self {
            plain: plain.into(),
            gz: gz.into(),
        }
    }

    /// The answer to a request that accepts gzip or not.
    pub(super) fn answer(&self, accepts: bool, content_type: &str) -> Response {
        answer(
            accepts,
            content_type,
            Shared::Kept(self.plain.clone()),
            Shared::Kept(self.gz.clone()),
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::http::wire::parse_head;

    fn head(accept: Option<&str>) -> Head {
        let mut raw = String::from("GET / HTTP/1.1\r\nHost: x\r\n");
        if let Some(a) = accept {
            raw.push_str(&format!("Accept-Encoding: {a}\r\n"));
        }
        raw.push_str("\r\n");
        parse_head(raw.as_bytes()).unwrap().unwrap().0
    }

    #[test]
    fn gzip_is_accepted_only_when_listed_without_q_zero() {
        for yes in ["gzip", "br, gzip;q=0.8", "GZIP", "*", "deflate, *;q=0.1"] {
            assert!(accepted(&head(Some(yes))), "{yes}");
        }
        for no in [
            "br",
            "gzip;q=0",
            "gzip; q=0.0, identity",
            "identity",
            "*;q=0",
        ] {
            assert!(!accepted(&head(Some(no))), "{no}");
        }
        assert!(!accepted(&head(None)));
    }

    #[test]
    fn an_encoded_answer_is_the_gzip_copy_only_when_asked_and_varies_on_the_encoding() {
        let plain = b"{\"a\":1}".repeat(1000);
        let e = Encoded::new(plain.clone());
        let zipped = e.answer(accepted(&head(Some("gzip"))), "application/json");
        assert_eq!(zipped.header("content-encoding"), Some("gzip"));
        assert_eq!(zipped.header("vary"), Some("accept-encoding"));
        let Body::Shared(b) = &zipped.body else {
            panic!("not shared")
        };
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(b.as_slice()), &mut out)
            .unwrap();
        assert_eq!(out, plain);
        let as_is = e.answer(accepted(&head(None)), "application/json");
        assert_eq!(as_is.header("content-encoding"), None);
        assert_eq!(as_is.header("vary"), Some("accept-encoding"));
        let Body::Shared(b) = &as_is.body else {
            panic!("not shared")
        };
        assert_eq!(b.as_slice(), &plain[..]);
    }
}
