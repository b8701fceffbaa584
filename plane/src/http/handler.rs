//! Typed handlers: how a route's Rust types both parse its request and document it.
//!
//! A REST handler is an `async fn(Arc<Services>, C, A, B, …) -> Result<R, ApiError>` whose `C`
//! says who may call it ([`super::callers`]: the credential is resolved before anything else is
//! parsed; a route open to anyone, or one not yet moved to these types, takes the request's
//! `RequestMeta` there instead and checks the credential in its service) and whose extra
//! arguments are extractors ([`Json`], [`Query`], [`Path`]) and whose answer is an
//! [`IntoAnswer`] ([`Json`], [`NoContent`], [`Download`], [`WithCookie`]). Registering it on a
//! route ([`super::routes::RouteDef::handle`]) records, from the same types, the OpenAPI
//! parameters, request body and answer schema, so what a route parses and what the reference
//! says it parses cannot drift apart.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::{JsonSchema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::callers::Credential;
use super::routes::Auth;
use super::schema::{decode_json, query_gate, validation_error};
use crate::error::ApiError;
use crate::service::{RequestMeta, Services};

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
    /// Bytes of another media type, built in memory.
    Bytes {
        /// Their `Content-Type`.
        content_type: &'static str,
        /// The bytes.
        bytes: Vec<u8>,
    },
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

// ----- request facts -----

/// The request's `Host` header, for answers that name the plane's address when no base URL is
/// configured (it is not a parameter of the operation: nothing is documented).
pub(crate) struct RequestHost(pub(crate) Option<String>);

impl FromCall for RequestHost {
    fn from_call(call: &mut Call) -> Result<Self, ApiError> {
        Ok(Self(call.meta.host.clone()))
    }
    fn document(_: &mut OpDoc, _: &mut Gens) {}
}

// ----- JSON bodies and answers -----

/// A JSON request body or answer of type `T`.
pub(crate) struct Json<T>(pub(crate) T);

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

/// The query string decoded into `T` (unknown parameters refused), then held to `T`'s
/// published schema as a body is ([`query_gate`]): a bound the reference states is a bound the
/// plane keeps.
pub(crate) struct Query<T>(pub(crate) T);

impl<T: DeserializeOwned + JsonSchema + Send + 'static> FromCall for Query<T> {
    fn from_call(call: &mut Call) -> Result<Self, ApiError> {
        let q = call.query.as_deref().unwrap_or_default();
        let de = serde_urlencoded::Deserializer::new(form_urlencoded_pairs(q));
        let decoded = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            validation_error(&path, &e.into_inner().to_string())
        })?;
        let pairs: Vec<(String, String)> = form_urlencoded_pairs(q)
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        query_gate::<T>(&pairs)?;
        Ok(Self(decoded))
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
    /// The name a browser saves it under (`Content-Disposition: attachment`), if any.
    pub(crate) file_name: Option<String>,
}

/// `attachment; filename="…"; filename*=UTF-8''…` for `name`: the quoted form keeps ASCII
/// letters, digits and `._-` (others become `_`), the RFC 8187 form carries the exact name.
fn content_disposition(name: &str) -> String {
    let plain: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut exact = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-') {
            exact.push(char::from(b));
        } else {
            exact.push_str(&format!("%{b:02X}"));
        }
    }
    format!("attachment; filename=\"{plain}\"; filename*=UTF-8''{exact}")
}

impl IntoAnswer for Download {
    fn into_answer(self) -> Result<Answer, ApiError> {
        Ok(Answer {
            body: AnswerBody::File {
                path: self.path,
                len: self.len,
            },
            headers: {
                let mut h = vec![
                    ("content-type".into(), "application/octet-stream".into()),
                    ("x-content-sha256".into(), self.sha256),
                ];
                if let Some(n) = self.file_name {
                    h.push(("content-disposition".into(), content_disposition(&n)));
                }
                h
            },
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

/// A pane's recording as an asciicast v2 file (`application/x-asciicast`), saved by a browser
/// under `<name>.cast`.
pub(crate) struct Cast {
    /// The file.
    pub(crate) bytes: Vec<u8>,
    /// The name it is saved under, without `.cast`.
    pub(crate) name: String,
}

impl IntoAnswer for Cast {
    fn into_answer(self) -> Result<Answer, ApiError> {
        Ok(Answer {
            body: AnswerBody::Bytes {
                content_type: "application/x-asciicast",
                bytes: self.bytes,
            },
            headers: vec![(
                "content-disposition".into(),
                content_disposition(&format!("{}.cast", self.name)),
            )],
        })
    }
    fn document(doc: &mut OpDoc, _: &mut Gens) {
        doc.answer = Some(AnswerDoc {
            content: Some(json!({
                "application/x-asciicast": {
                    "schema": {
                        "type": "string",
                        "contentMediaType": "application/x-asciicast",
                        "description": "asciicast v2: a header line, then one JSON array per line, [seconds, \"o\", text] or [seconds, \"r\", \"COLSxROWS\"]"
                    }
                }
            })),
            headers: None,
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
    Arc<dyn Fn(Arc<Services>, Call) -> BoxFut<Result<Answer, ApiError>> + Send + Sync>;

/// A function that can handle a route, with its arguments `Args` as extractors.
pub(crate) trait Handler<Args>: Send + Sync + 'static {
    /// Runs the handler.
    fn call(&self, svc: Arc<Services>, call: Call) -> BoxFut<Result<Answer, ApiError>>;
    /// Documents the operation from the handler's types.
    fn document(doc: &mut OpDoc, gens: &mut Gens);
    /// The credential the handler's signature requires ([`super::callers`]), if it names one.
    fn credential() -> Option<Auth> {
        None
    }
}

/// The arguments of a handler whose first argument after the service is a [`Credential`] `G`
/// and whose others are the extractors `T`.
pub(crate) struct Guarded<G, T>(std::marker::PhantomData<(G, T)>);

macro_rules! impl_handler {
    ($($a:ident),*) => {
        impl<F, Fut, R, $($a,)*> Handler<($($a,)*)> for F
        where
            F: Fn(Arc<Services>, RequestMeta, $($a,)*) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<R, ApiError>> + Send + 'static,
            R: IntoAnswer,
            $($a: FromCall,)*
        {
            #[allow(non_snake_case, unused_mut)]
            fn call(&self, svc: Arc<Services>, mut call: Call) -> BoxFut<Result<Answer, ApiError>> {
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

macro_rules! impl_guarded_handler {
    ($($a:ident),*) => {
        impl<F, Fut, R, G, $($a,)*> Handler<Guarded<G, ($($a,)*)>> for F
        where
            F: Fn(Arc<Services>, G, $($a,)*) -> Fut + Clone + Send + Sync + 'static,
            Fut: Future<Output = Result<R, ApiError>> + Send + 'static,
            R: IntoAnswer,
            G: Credential,
            $($a: FromCall,)*
        {
            #[allow(non_snake_case, unused_mut)]
            fn call(&self, svc: Arc<Services>, mut call: Call) -> BoxFut<Result<Answer, ApiError>> {
                let f = self.clone();
                Box::pin(async move {
                    // The credential first: a refusal answers before any input is parsed.
                    let who = G::resolve(&svc, &call.meta).await?;
                    $( let $a = $a::from_call(&mut call)?; )*
                    f(svc, who, $($a,)*).await?.into_answer()
                })
            }
            fn document(doc: &mut OpDoc, gens: &mut Gens) {
                $( $a::document(doc, gens); )*
                R::document(doc, gens);
            }
            fn credential() -> Option<Auth> {
                Some(G::AUTH)
            }
        }
    };
}

impl_guarded_handler!();
impl_guarded_handler!(A);
impl_guarded_handler!(A, B);
impl_guarded_handler!(A, B, C);

impl_handler!();
impl_handler!(A);
impl_handler!(A, B);
impl_handler!(A, B, C);
