//! Typed handlers: how a route's Rust types both parse its request and document it.
//!
//! A REST handler is an `async fn(Arc<Service>, RequestMeta, A, B, …) -> Result<R, ApiError>`
//! whose extra arguments are extractors ([`Json`], [`Query`], [`Path`]) and whose answer is an
//! [`IntoAnswer`] ([`Json`], [`NoContent`], [`Download`], [`WithCookie`]). Registering it on a
//! route ([`super::routes::RouteDef::handle`]) records, from the same types, the OpenAPI
//! parameters, request body and answer schema, so what a route parses and what the reference
//! says it parses cannot drift apart.

use std::any::TypeId;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};

use schemars::{JsonSchema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::service::{RequestMeta, Service};

/// A boxed, sendable future.
pub(crate) type BoxFut<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// What a REST handler receives besides the service.
pub(crate) struct Call {
    /// The request facts authentication needs.
    pub(crate) meta: RequestMeta,
    /// Path parameters, percent-decoded, by name.
    pub(crate) params: Vec<(&'static str, String)>,
    /// The query string, still encoded.
    pub(crate) query: Option<String>,
    /// The request body.
    pub(crate) body: Vec<u8>,
}

/// The body of an answer.
pub(crate) enum AnswerBody {
    /// No body (204).
    Empty,
    /// A JSON document.
    Json(Vec<u8>),
    /// A file streamed from disk.
    File {
        /// Where it is.
        path: std::path::PathBuf,
        /// Its length.
        len: u64,
    },
}

/// A handler's successful answer, before the adapter renders it.
pub(crate) struct Answer {
    /// The body.
    pub(crate) body: AnswerBody,
    /// Extra headers (lower-case names).
    pub(crate) headers: Vec<(String, String)>,
}

/// The generators the reference's schemas come from: request types are described as they are
/// decoded (optional fields may be absent, unknown fields refused), answers as they are encoded.
pub(crate) struct Gens {
    /// Request bodies, queries and path parameters.
    pub(crate) request: SchemaGenerator,
    /// Answers.
    pub(crate) answer: SchemaGenerator,
}

impl Gens {
    /// Generators whose references point into `#/components/schemas`.
    pub(crate) fn new() -> Self {
        let settings = || {
            schemars::generate::SchemaSettings::draft2020_12().with(|s| {
                s.definitions_path = "/components/schemas".into();
                s.meta_schema = None;
            })
        };
        Self {
            request: settings().for_deserialize().into_generator(),
            answer: settings().for_serialize().into_generator(),
        }
    }
}

/// What the reference says about one operation, built from its handler's types.
#[derive(Default)]
pub(crate) struct OpDoc {
    /// OpenAPI parameter objects.
    pub(crate) params: Vec<Value>,
    /// The request body's schema.
    pub(crate) request: Option<Value>,
    /// Whether the request body is required.
    pub(crate) request_required: bool,
    /// The success answer.
    pub(crate) answer: Option<AnswerDoc>,
}

/// How the success answer is documented.
pub(crate) struct AnswerDoc {
    /// `content` of the OpenAPI response object (none for 204).
    pub(crate) content: Option<Value>,
    /// `headers` of the OpenAPI response object.
    pub(crate) headers: Option<Value>,
}

/// A request part a handler takes as an argument.
pub(crate) trait FromCall: Sized + Send + 'static {
    /// Parses this part of the request.
    fn from_call(call: &mut Call) -> Result<Self, ApiError>;
    /// Adds this part to the operation's documentation.
    fn document(doc: &mut OpDoc, gens: &mut Gens);
}

/// A handler's answer type.
pub(crate) trait IntoAnswer: Send + 'static {
    /// Renders the answer.
    fn into_answer(self) -> Result<Answer, ApiError>;
    /// Documents the success answer.
    fn document(doc: &mut OpDoc, gens: &mut Gens);
}

// ----- JSON bodies and answers -----

/// A JSON request body or answer of type `T`.
pub(crate) struct Json<T>(pub(crate) T);

/// Turns a serde error at `path` into the spec's validation error: `metadata.field` names the
/// top-level field, `metadata.path` the full path when it is deeper.
fn validation_error(path: &str, message: &str) -> ApiError {
    let message = match message.rfind(" at line ") {
        Some(i) => &message[..i],
        None => message,
    };
    // serde names missing and unknown fields in its message, at the parent's path.
    let named = ["missing field `", "unknown field `", "duplicate field `"]
        .iter()
        .find_map(|p| message.strip_prefix(p))
        .and_then(|rest| rest.split('`').next())
        .or_else(|| {
            message
                .strip_prefix("duplicate key \"")
                .and_then(|rest| rest.split('"').next())
        });
    let full = match (path, named) {
        ("." | "", Some(n)) => n.to_owned(),
        (p, Some(n)) => format!("{p}.{n}"),
        (p, None) => p.to_owned(),
    };
    let full = if full.is_empty() || full == "." {
        "body".to_owned()
    } else {
        full
    };
    let top = full
        .split(['.', '['])
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or("body")
        .to_owned();
    let text = if top == "body" {
        format!("the body is not valid: {message}")
    } else {
        format!("`{full}`: {message}")
    };
    let mut meta = json!({ "field": top });
    if full != top {
        meta["path"] = Value::String(full);
    }
    ApiError::new(400, "INPUT_VALIDATION_ERROR", text).with_metadata(meta)
}

/// Decodes a JSON body into `T`: strict JSON (UTF-8, no key repeated in any object, at most
/// [`termplane_proto::json::MAX_JSON_DEPTH`] deep, nothing after the document), unknown fields
/// refused, every constraint of `T`'s fields checked.
///
/// A number with a zero fraction (`2.0`, `1e2`) is an integer, as JSON Schema says: it is read
/// as one wherever an integer is expected.
///
/// Then the decoded document is checked against `T`'s JSON Schema — the very schema the
/// reference publishes — so what serde would also accept beyond it (a struct written as an
/// array, say) is refused too: the schema, not the decoder's leniency, is the contract.
pub(crate) fn decode_json<T: DeserializeOwned + JsonSchema + 'static>(
    bytes: &[u8],
) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::validation("body", "a JSON body is required"));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|_| ApiError::validation("body", "the body is not UTF-8"))?;
    if let Err(e) = termplane_proto::json::check_no_duplicate_keys(text) {
        let message = e.to_string();
        if e.is_data() {
            return Err(validation_error(".", &message));
        }
        return Err(ApiError::validation(
            "body",
            format!("the body is not JSON: {message}"),
        ));
    }
    let mut value: Value = serde_json::from_str(text)
        .map_err(|e| ApiError::validation("body", format!("the body is not JSON: {e}")))?;
    integral_numbers(&mut value);
    let decoded = serde_path_to_error::deserialize(value.clone()).map_err(|e| {
        let path = e.path().to_string();
        validation_error(&path, &e.into_inner().to_string())
    })?;
    schema_gate::<T>(&value)?;
    Ok(decoded)
}

/// The compiled JSON Schema of `T` (request contract), built once per type.
fn validator_for<T: JsonSchema + 'static>() -> Result<Arc<jsonschema::Validator>, ApiError> {
    type Cache = Mutex<HashMap<TypeId, Arc<jsonschema::Validator>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    let id = TypeId::of::<T>();
    if let Some(v) = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&id)
    {
        return Ok(v.clone());
    }
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    super::openapi::bound_integers(&mut schema);
    let v = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        // `format` stays an annotation, as JSON Schema 2020-12 has it by default: the field types
        // (`Email`) hold the rules, including normalisation a format check would refuse first.
        .should_validate_formats(false)
        .build(&schema)
        .map_err(|e| {
            tracing::error!(error = %e, "a request schema does not compile");
            ApiError::internal()
        })?;
    let v = Arc::new(v);
    cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(id, v.clone());
    Ok(v)
}

/// Refuses a decoded document that its type's published schema does not describe.
fn schema_gate<T: JsonSchema + 'static>(value: &Value) -> Result<(), ApiError> {
    let validator = validator_for::<T>()?;
    let Err(e) = validator.validate(value) else {
        return Ok(());
    };
    let pointer = e.instance_path().to_string();
    let segments: Vec<&str> = pointer.split('/').skip(1).collect();
    let top = segments.first().copied().unwrap_or("body").to_owned();
    let mut meta = json!({ "field": top });
    if segments.len() > 1 {
        meta["path"] = Value::String(segments.join("."));
    }
    // `masked` leaves the value out of the message (it may be a password).
    Err(ApiError::new(
        400,
        "INPUT_VALIDATION_ERROR",
        format!("`{top}`: {}", e.masked()),
    )
    .with_metadata(meta))
}

/// Rewrites every number with a zero fraction that fits 64 bits as an integer.
fn integral_numbers(v: &mut Value) {
    match v {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n.as_f64()
                && f.is_finite()
                && f.fract() == 0.0
            {
                // Exact conversions only: the bounds are powers of two, exactly representable.
                if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
                    *v = Value::from(f as u64);
                } else if (-9_223_372_036_854_775_808.0..0.0).contains(&f) {
                    *v = Value::from(f as i64);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(integral_numbers),
        Value::Object(o) => o.values_mut().for_each(integral_numbers),
        _ => {}
    }
}

impl<T: DeserializeOwned + JsonSchema + Send + 'static> FromCall for Json<T> {
    fn from_call(call: &mut Call) -> Result<Self, ApiError> {
        decode_json(&call.body).map(Json)
    }
    fn document(doc: &mut OpDoc, gens: &mut Gens) {
        doc.request = Some(gens.request.subschema_for::<T>().to_value());
        doc.request_required = true;
    }
}

/// An optional JSON body: none (an empty body) or `null` reads as `None`; anything else must be
/// a `T`. Routes that take no input use `MaybeJson<Empty>`, so a stray body is refused rather
/// than silently ignored.
pub(crate) struct MaybeJson<T>(pub(crate) Option<T>);

impl<T: DeserializeOwned + JsonSchema + Send + 'static> FromCall for MaybeJson<T> {
    fn from_call(call: &mut Call) -> Result<Self, ApiError> {
        if call.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Self(None));
        }
        decode_json::<Option<T>>(&call.body).map(MaybeJson)
    }
    fn document(doc: &mut OpDoc, gens: &mut Gens) {
        doc.request = Some(gens.request.subschema_for::<Option<T>>().to_value());
        doc.request_required = false;
    }
}

impl<T: Serialize + JsonSchema + Send + 'static> IntoAnswer for Json<T> {
    fn into_answer(self) -> Result<Answer, ApiError> {
        let bytes = serde_json::to_vec(&self.0).map_err(|e| {
            tracing::error!(error = %e, "an answer could not be encoded");
            ApiError::internal()
        })?;
        Ok(Answer {
            body: AnswerBody::Json(bytes),
            headers: Vec::new(),
        })
    }
    fn document(doc: &mut OpDoc, gens: &mut Gens) {
        let schema = gens.answer.subschema_for::<T>().to_value();
        doc.answer = Some(AnswerDoc {
            content: Some(json!({ "application/json": { "schema": schema } })),
            headers: None,
        });
    }
}

// ----- query strings -----

/// The query string decoded into `T` (unknown parameters refused).
pub(crate) struct Query<T>(pub(crate) T);

impl<T: DeserializeOwned + JsonSchema + Send + 'static> FromCall for Query<T> {
    fn from_call(call: &mut Call) -> Result<Self, ApiError> {
        let q = call.query.as_deref().unwrap_or_default();
        let de = serde_urlencoded::Deserializer::new(form_urlencoded_pairs(q));
        serde_path_to_error::deserialize(de)
            .map(Query)
            .map_err(|e| {
                let path = e.path().to_string();
                validation_error(&path, &e.into_inner().to_string())
            })
    }
    fn document(doc: &mut OpDoc, gens: &mut Gens) {
        doc.params
            .extend(object_params::<T>(&mut gens.request, "query"));
    }
}

fn form_urlencoded_pairs(q: &str) -> form_urlencoded::Parse<'_> {
    form_urlencoded::parse(q.as_bytes())
}

/// OpenAPI parameter objects for the properties of `T`'s (object) schema.
fn object_params<T: JsonSchema>(generator: &mut SchemaGenerator, location: &str) -> Vec<Value> {
    let schema = generator.root_schema_for::<T>().to_value();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let props = schema["properties"].as_object().unwrap_or(&empty);
    props
        .iter()
        .map(|(name, s)| {
            let mut s = s.clone();
            let description = s
                .as_object_mut()
                .and_then(|o| o.remove("description"))
                .unwrap_or(Value::Null);
            let mut p = json!({
                "name": name,
                "in": location,
                "required": location == "path" || required.contains(&name.as_str()),
                "schema": s,
            });
            if !description.is_null() {
                p["description"] = description;
            }
            p
        })
        .collect()
}

// ----- path parameters -----

/// The path parameters decoded into `T`. A parameter that does not fit its type names no row,
/// so it answers 404 `NOT_FOUND`.
pub(crate) struct Path<T>(pub(crate) T);

impl<T: DeserializeOwned + JsonSchema + Send + 'static> FromCall for Path<T> {
    fn from_call(call: &mut Call) -> Result<Self, ApiError> {
        let map: Map<String, Value> = call
            .params
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Value::String(v.clone())))
            .collect();
        serde_json::from_value(Value::Object(map))
            .map(Path)
            .map_err(|e| ApiError::new(404, "NOT_FOUND", format!("no such resource: {e}")))
    }
    fn document(doc: &mut OpDoc, gens: &mut Gens) {
        doc.params
            .extend(object_params::<T>(&mut gens.request, "path"));
    }
}

// ----- other answers -----

/// An empty answer (204).
pub(crate) struct NoContent;

impl IntoAnswer for NoContent {
    fn into_answer(self) -> Result<Answer, ApiError> {
        Ok(Answer {
            body: AnswerBody::Empty,
            headers: Vec::new(),
        })
    }
    fn document(doc: &mut OpDoc, _: &mut Gens) {
        doc.answer = Some(AnswerDoc {
            content: None,
            headers: None,
        });
    }
}

/// A file download: the bytes of `path`, `len` long, with its SHA-256.
pub(crate) struct Download {
    /// Where the file is.
    pub(crate) path: std::path::PathBuf,
    /// Its length.
    pub(crate) len: u64,
    /// Lowercase hex SHA-256 of its content.
    pub(crate) sha256: String,
}

impl IntoAnswer for Download {
    fn into_answer(self) -> Result<Answer, ApiError> {
        Ok(Answer {
            body: AnswerBody::File {
                path: self.path,
                len: self.len,
            },
            headers: vec![
                ("content-type".into(), "application/octet-stream".into()),
                ("x-content-sha256".into(), self.sha256),
            ],
        })
    }
    fn document(doc: &mut OpDoc, _: &mut Gens) {
        doc.answer = Some(AnswerDoc {
            content: Some(json!({
                "application/octet-stream": {
                    "schema": { "type": "string", "contentMediaType": "application/octet-stream" }
                }
            })),
            headers: Some(json!({
                "Content-Length": { "schema": { "type": "integer", "minimum": 0 }, "description": "The file's length" },
                "X-Content-SHA256": { "schema": { "type": "string", "pattern": "^[0-9a-f]{64}$" }, "description": "The file's SHA-256, lowercase hex" },
            })),
        });
    }
}

/// A JSON answer that also sets (or clears) the session cookie.
pub(crate) struct WithCookie<T> {
    /// The answer.
    pub(crate) answer: T,
    /// The `Set-Cookie` value.
    pub(crate) set_cookie: String,
}

impl<T: IntoAnswer> IntoAnswer for WithCookie<T> {
    fn into_answer(self) -> Result<Answer, ApiError> {
        let mut a = self.answer.into_answer()?;
        a.headers.push(("set-cookie".into(), self.set_cookie));
        Ok(a)
    }
    fn document(doc: &mut OpDoc, gens: &mut Gens) {
        T::document(doc, gens);
        if let Some(a) = doc.answer.as_mut() {
            a.headers = Some(json!({
                "Set-Cookie": { "schema": { "type": "string" }, "description": "The session cookie (HttpOnly, SameSite=Lax, Path=/; Secure and `__Host-` over https)" }
            }));
        }
    }
}

// ----- handlers -----

/// An erased handler, as a route stores it.
pub(crate) type ErasedHandler =
    Arc<dyn Fn(Arc<Service>, Call) -> BoxFut<Result<Answer, ApiError>> + Send + Sync>;

/// A function that can handle a route, with its arguments `Args` as extractors.
pub(crate) trait Handler<Args>: Send + Sync + 'static {
    /// Runs the handler.
    fn call(&self, svc: Arc<Service>, call: Call) -> BoxFut<Result<Answer, ApiError>>;
    /// Documents the operation from the handler's types.
    fn document(doc: &mut OpDoc, gens: &mut Gens);
}

macro_rules! impl_handler {
    ($($a:ident),*) => {
        impl<F, Fut, R, $($a,)*> Handler<($($a,)*)> for F
        where
            F: Fn(Arc<Service>, RequestMeta, $($a,)*) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<R, ApiError>> + Send + 'static,
            R: IntoAnswer,
            $($a: FromCall,)*
        {
            #[allow(non_snake_case, unused_mut)]
            fn call(&self, svc: Arc<Service>, mut call: Call) -> BoxFut<Result<Answer, ApiError>> {
                $(
                    let $a = match $a::from_call(&mut call) {
                        Ok(v) => v,
                        Err(e) => return Box::pin(async move { Err(e) }),
                    };
                )*
                let fut = (self)(svc, call.meta, $($a,)*);
                Box::pin(async move { fut.await?.into_answer() })
            }
            fn document(doc: &mut OpDoc, gens: &mut Gens) {
                $( $a::document(doc, gens); )*
                R::document(doc, gens);
            }
        }
    };
}

impl_handler!();
impl_handler!(A);
impl_handler!(A, B);
impl_handler!(A, B, C);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::api::accounts::SetupRequest;

    #[test]
    fn serde_errors_name_the_field() {
        let e =
            decode_json::<SetupRequest>(br#"{"email":"a@b.c","displayName":"A","password":"x"}"#)
                .unwrap_err();
        assert_eq!(e.status, 400);
        assert_eq!(e.metadata.unwrap()["field"], "password");
        let e = decode_json::<SetupRequest>(br#"{"email":"a@b.c","password":"long enough"}"#)
            .unwrap_err();
        assert_eq!(e.metadata.unwrap()["field"], "displayName");
        let e = decode_json::<SetupRequest>(
            br#"{"email":"a@b.c","displayName":"A","password":"long enough","x":1}"#,
        )
        .unwrap_err();
        assert_eq!(e.metadata.unwrap()["field"], "x");
        let e = decode_json::<SetupRequest>(
            br#"{"email":"a@b.c","email":"c@d.e","displayName":"A","password":"long enough"}"#,
        )
        .unwrap_err();
        assert_eq!(e.metadata.unwrap()["field"], "email");
        let e = decode_json::<SetupRequest>(b"{").unwrap_err();
        assert_eq!(e.metadata.unwrap()["field"], "body");
        let e = decode_json::<SetupRequest>(b"").unwrap_err();
        assert_eq!(e.metadata.unwrap()["field"], "body");
        let e = decode_json::<SetupRequest>(b"{\"email\":\"\xff\"}").unwrap_err();
        assert_eq!(e.metadata.unwrap()["field"], "body");
        let e = decode_json::<SetupRequest>(
            br#"{"email":"a@b.c","displayName":"A","password":"long enough"} x"#,
        )
        .unwrap_err();
        assert_eq!(e.metadata.unwrap()["field"], "body");
    }

    #[test]
    fn integral_numbers_are_integers() {
        let q: crate::api::nodes::NodeEventsQuery =
            decode_json(br#"{"after": 7.0, "waitMs": 1e3}"#).unwrap();
        assert_eq!((q.after, q.wait_ms), (7, 1000));
        let e =
            decode_json::<crate::api::nodes::NodeEventsQuery>(br#"{"after": 7.5}"#).unwrap_err();
        assert_eq!(e.metadata.unwrap()["field"], "after");
        let e =
            decode_json::<crate::api::nodes::NodeEventsQuery>(br#"{"after": -1.0}"#).unwrap_err();
        assert_eq!(e.metadata.unwrap()["field"], "after");
    }

    #[test]
    fn a_struct_written_as_an_array_is_refused() {
        // serde would read these as structs from their fields in order; the schema says object.
        let e = decode_json::<SetupRequest>(br#"["a@b.c", "A", "long enough"]"#).unwrap_err();
        assert_eq!(e.status, 400);
        let e = decode_json::<Option<crate::api::Empty>>(b"[]").unwrap_err();
        assert_eq!(e.status, 400);
        let e = decode_json::<crate::api::nodes::NodeCommandRequest>(br#"["ping"]"#).unwrap_err();
        assert_eq!(e.status, 400);
        assert!(
            decode_json::<Option<crate::api::Empty>>(b"null")
                .unwrap()
                .is_none()
        );
        assert!(
            decode_json::<Option<crate::api::Empty>>(b"{}")
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        let e = decode_json::<crate::api::nodes::NodeCommandRequest>(
            br#"{"type":"detect","envNames":[],"rules":[{"harnessId":"a","harnessId":"b","resolve":{"binaryName":"x"}}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.status, 400);
    }

    #[test]
    fn nested_paths_keep_the_top_field_and_the_full_path() {
        let e = decode_json::<crate::api::nodes::AllowedDirsRequest>(
            br#"{"allowedDirs":["/a","relative"]}"#,
        )
        .unwrap_err();
        let m = e.metadata.unwrap();
        assert_eq!(m["field"], "allowedDirs");
        assert_eq!(m["path"], "allowedDirs[1]");
    }
}
