//! The router: path templates of the REST list and the other endpoints, matched against a
//! strictly decoded path. Concrete paths win over templated ones; a path that exists for other
//! methods is a 405 with the methods listed.

use std::sync::Arc;

use super::handler::BoxFut;
use super::server::{Request, Response};
use super::wire::Method;
use super::{Ctx, ReqInfo};

/// A handler outside the REST list: the browser app, the reference's page and assets, the node
/// WebSocket and the test-only panic route.
pub(super) type RawHandler =
    fn(Arc<Ctx>, Request, ReqInfo, Vec<(&'static str, String)>) -> BoxFut<Response>;

#[derive(Clone, Copy)]
pub(super) enum Target {
    /// The REST route at this index of [`routes::routes`].
    Rest(usize),
    Raw(RawHandler),
}

pub(super) struct Entry {
    method: Method,
    template: &'static str,
    segments: Vec<Segment>,
    target: Target,
}

enum Segment {
    Literal(&'static str),
    Param(&'static str),
}

pub(super) enum Lookup {
    /// The target, the path's parameters and the route's template (what metrics and the
    /// request log name a request by).
    Found(Target, Vec<(&'static str, String)>, &'static str),
    /// The path exists for these methods only.
    NotAllowed(Vec<Method>),
    NoSuchPath,
    BadPath(&'static str),
}

/// Longest decoded path segment looked at (no route has a longer one).
const MAX_SEGMENT_BYTES: usize = 1024;

pub(super) struct Router {
    pub(super) entries: Vec<Entry>,
}

/// The most specific template shape seen so far (a literal flag per segment), the entries of
/// that shape, and the parameters the path gives them.
type Candidates<'a> = (Vec<bool>, Vec<&'a Entry>, Vec<(&'static str, String)>);

impl Entry {
    pub(super) fn method(&self) -> Method {
        self.method
    }

    pub(super) fn template(&self) -> &'static str {
        self.template
    }
}

impl Router {
    pub(super) fn add(&mut self, method: Method, template: &'static str, target: Target) {
        let segments = template
            .split('/')
            .skip(1)
            .map(|s| match s.strip_prefix(':') {
                Some(p) => Segment::Param(p),
                None => Segment::Literal(s),
            })
            .collect();
        self.entries.push(Entry {
            method,
            template,
            segments,
            target,
        });
    }

    /// Percent-decodes one path segment strictly: every `%` starts two hex digits, the result is
    /// UTF-8. `Ok(None)` for a segment too long to match anything.
    fn decode(seg: &str) -> Result<Option<String>, &'static str> {
        let b = seg.as_bytes();
        let mut out = Vec::with_capacity(b.len().min(MAX_SEGMENT_BYTES));
        let mut i = 0;
        while i < b.len() {
            if out.len() > MAX_SEGMENT_BYTES {
                return Ok(None);
            }
            if b[i] == b'%' {
                let hex = b
                    .get(i + 1..i + 3)
                    .ok_or("a `%` in the path is not followed by two hex digits")?;
                let hi = (hex[0] as char).to_digit(16);
                let lo = (hex[1] as char).to_digit(16);
                let (Some(hi), Some(lo)) = (hi, lo) else {
                    return Err("a `%` in the path is not followed by two hex digits");
                };
                out.push(u8::try_from(hi * 16 + lo).unwrap_or(0));
                i += 3;
            } else {
                out.push(b[i]);
                i += 1;
            }
        }
        String::from_utf8(out)
            .map(Some)
            .map_err(|_| "the path does not decode to UTF-8")
    }

    pub(super) fn find(&self, method: Method, path: &str) -> Lookup {
        let Some(rest) = path.strip_prefix('/') else {
            return Lookup::NoSuchPath;
        };
        let mut segs = Vec::new();
        for raw in rest.split('/') {
            match Self::decode(raw) {
                Ok(Some(s)) => segs.push(s),
                Ok(None) => return Lookup::NoSuchPath,
                Err(why) => return Lookup::BadPath(why),
            }
        }
        let lookup = if method == Method::Head {
            Method::Get
        } else {
            method
        };
        // Of the templates that match the path, the most specific wins (a literal segment
        // beats a parameter at the first place they differ), as OpenAPI matches concrete paths
        // before templated ones: `/api/nodes/enroll` is not `/api/nodes/{id}`.
        let mut best: Option<Candidates<'_>> = None;
        for e in &self.entries {
            if e.segments.len() != segs.len() {
                continue;
            }
            let mut params = Vec::new();
            let matched = e.segments.iter().zip(&segs).all(|(t, s)| match t {
                Segment::Literal(l) => l == s,
                Segment::Param(p) => {
                    if s.is_empty() {
                        return false;
                    }
                    params.push((*p, s.clone()));
                    true
                }
            });
            if !matched {
                continue;
            }
            let shape: Vec<bool> = e
                .segments
                .iter()
                .map(|s| matches!(s, Segment::Literal(_)))
                .collect();
            match &mut best {
                Some((b, entries, _)) if *b == shape => entries.push(e),
                Some((b, _, _)) if *b > shape => {}
                _ => best = Some((shape, vec![e], params)),
            }
        }
        let Some((_, entries, params)) = best else {
            return Lookup::NoSuchPath;
        };
        let mut allowed = Vec::new();
        for e in entries {
            if e.method == lookup {
                return Lookup::Found(e.target, params, e.template);
            }
            if !allowed.contains(&e.method) {
                allowed.push(e.method);
            }
        }
        if allowed.contains(&Method::Get) {
            allowed.push(Method::Head);
        }
        allowed.sort_by_key(|m| m.as_str());
        Lookup::NotAllowed(allowed)
    }
}
