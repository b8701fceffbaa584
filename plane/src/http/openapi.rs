//! The OpenAPI 3.1 document, built from the route table ([`super::routes::routes`]). Nothing in
//! it is written by hand a second time: paths, methods, parameters, authentication, success
//! statuses and error codes come from the route definitions, and every request and answer schema
//! is derived (JSON Schema 2020-12, OpenAPI 3.1's dialect) from the Rust type that parses or
//! produces it ([`crate::api`]).

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::handler::{Gens, OpDoc};
use super::routes::{Auth, RouteDef};
use super::schema::bound_integers;

/// The OpenAPI document, as `GET /api/openapi.json` answers it.
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub(crate) struct Document(pub(crate) Value);

impl JsonSchema for Document {
    fn schema_name() -> Cow<'static, str> {
        "OpenApiDocument".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "An OpenAPI 3.1 document (this one)",
            "required": ["openapi", "info", "paths"],
        })
    }
}

impl Document {
    /// The document as a plane with these push settings serves it: the push endpoint's schema
    /// says what this plane takes (`http://` only with `TERMPLANE_PUSH_ALLOW_HTTP=1`, an
    /// address or `localhost` only with `TERMPLANE_PUSH_ALLOW_PRIVATE=1`), not what any plane
    /// might.
    #[must_use]
    pub(crate) fn for_push_settings(mut self, allow_http: bool, allow_private: bool) -> Self {
        if let Some(s) = self.0.pointer_mut("/components/schemas/PushEndpoint") {
            *s = crate::api::notifications::PushEndpoint::schema(allow_http, allow_private);
        }
        self
    }
}

/// The error body every failure answers with (the spec's "Errors" section).
fn error_schema() -> Value {
    json!({
        "type": "object",
        "description": "The body of every failed request. Clients branch on `code`, never on `message`; responses may carry additional fields.",
        "required": ["errId", "code", "message", "statusCode"],
        "properties": {
            "errId": { "type": "string", "description": "Unique per occurrence; matches the server's log entry." },
            "code": {
                "type": "string",
                "description": "Machine-readable code.",
                "enum": crate::error::CODES.iter().map(|(_, c, _)| *c).collect::<Vec<_>>(),
            },
            "message": { "type": "string", "description": "Prose; may change." },
            "statusCode": { "type": "integer", "description": "Mirrors the HTTP status." },
            "reqId": { "type": "string", "description": "The request id (also in `X-Request-Id`), when known." },
            "metadata": {
                "type": "object",
                "description": "Extra facts when any: `field` for validation errors, `retryAfterMs` with 429.",
                "additionalProperties": true
            }
        }
    })
}

/// `/api/nodes/:id` → `/api/nodes/{id}`.
pub(crate) fn openapi_path(route_path: &str) -> String {
    route_path
        .split('/')
        .map(|s| match s.strip_prefix(':') {
            Some(p) => format!("{{{p}}}"),
            None => s.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn security(auth: Auth) -> (Value, &'static str) {
    match auth {
        Auth::None => (json!([]), "No credential."),
        Auth::Any => (
            json!([{ "systemKey": [] }, { "session": [] }, { "subshellToken": [] }]),
            "Any credential: a session cookie, a system key or a subshell's token.",
        ),
        Auth::User => (
            json!([{ "systemKey": [] }, { "session": [] }]),
            "A session cookie or a system key; a subshell's token is refused with 403.",
        ),
        Auth::Subshells => (
            json!([{ "systemKey": [] }, { "session": [] }, { "subshellToken": [] }]),
            "A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.",
        ),
        Auth::Cookie => (
            json!([{ "session": [] }]),
            "A session cookie only; a bearer credential is refused with 403.",
        ),
        Auth::CookieAdmin => (
            json!([{ "session": [] }]),
            "An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.",
        ),
        Auth::SetupKey => (
            json!([]),
            "The setup key (`nsk_…`) in the body is the credential; it is spent by a successful enrollment.",
        ),
    }
}

/// The credential class of an operation, as `x-credential` names it (the OpenAPI `security`
/// list cannot tell a session from an administrator's session).
fn credential_name(auth: Auth) -> &'static str {
    match auth {
        Auth::None => "none",
        Auth::Any => "any",
        Auth::User => "user",
        Auth::Subshells => "subshells",
        Auth::Cookie => "cookie",
        Auth::CookieAdmin => "cookie-admin",
        Auth::SetupKey => "setup-key",
    }
}

fn reason(status: u16) -> &'static str {
    super::wire::reason(status)
}

fn operation(r: &RouteDef, gens: &mut Gens) -> Value {
    let (sec, auth_text) = security(r.auth);
    let mut op = json!({
        "operationId": r.op,
        "tags": [r.tag],
        "summary": r.summary,
        "description": match r.description {
            Some(d) => format!("{d}\n\nAuthentication: {auth_text}"),
            None => format!("Authentication: {auth_text}"),
        },
        "security": sec,
        "x-credential": credential_name(r.auth),
    });
    let mut doc = OpDoc::default();
    (r.document)(&mut doc, gens);
    if !doc.params.is_empty() {
        op["parameters"] = Value::Array(doc.params);
    }
    if let Some(schema) = doc.request {
        op["requestBody"] = json!({
            "required": doc.request_required,
            "content": { "application/json": { "schema": schema } }
        });
    }
    let mut responses = Map::new();
    let mut ok = json!({ "description": reason(r.ok) });
    if let Some(answer) = doc.answer {
        if let Some(content) = answer.content {
            ok["content"] = content;
        }
        if let Some(headers) = answer.headers {
            ok["headers"] = headers;
        }
    }
    responses.insert(r.ok.to_string(), ok);
    let mut by_status: Vec<(u16, Vec<(&str, &str)>)> = Vec::new();
    for code in r.error_codes() {
        let (status, when) = crate::error::code_info(code).unwrap_or((500, ""));
        match by_status.iter_mut().find(|(s, _)| *s == status) {
            Some((_, v)) => v.push((code, when)),
            None => by_status.push((status, vec![(code, when)])),
        }
    }
    by_status.sort_by_key(|(s, _)| *s);
    for (status, codes) in by_status {
        let lines: Vec<String> = codes.iter().map(|(c, w)| format!("- `{c}`: {w}")).collect();
        let mut resp = json!({
            "description": format!("{}. Codes:\n{}", reason(status), lines.join("\n")),
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } },
            "x-error-codes": codes.iter().map(|(c, _)| *c).collect::<Vec<_>>(),
        });
        if status == 429 || status == 503 {
            resp["headers"] = json!({ "Retry-After": { "description": "Seconds to wait", "schema": { "type": "integer" } } });
        }
        if status == 405 {
            resp["headers"] = json!({ "Allow": { "description": "The methods the path supports", "schema": { "type": "string" } } });
        }
        responses.insert(status.to_string(), resp);
    }
    op["responses"] = Value::Object(responses);
    op
}

/// Merges the request and answer generators' definitions. A type used both ways has one name;
/// its two descriptions must agree, and two different types may not share a name (a test
/// checks the document for both).
fn components(gens: Gens) -> Map<String, Value> {
    components_and_conflicts(gens).0
}

/// [`components`], with the names whose request and answer schemas differ.
fn components_and_conflicts(gens: Gens) -> (Map<String, Value>, Vec<String>) {
    let Gens {
        mut request,
        mut answer,
    } = gens;
    let mut out = Map::new();
    let mut conflicts = Vec::new();
    out.insert("Error".to_owned(), error_schema());
    for (name, schema) in request
        .take_definitions(true)
        .into_iter()
        .chain(answer.take_definitions(true))
    {
        match out.get(&name) {
            Some(existing) if existing != &schema => {
                tracing::error!(schema = %name, "two schemas share a name");
                conflicts.push(name);
            }
            _ => {
                out.insert(name, schema);
            }
        }
    }
    (out, conflicts)
}

/// What a reader of a group of operations needs beyond each operation: the signed texts of
/// channels and identities (a client signs them itself).
fn tag_description(tag: &str) -> Option<&'static str> {
    match tag {
        "channels" | "identities" => Some(crate::api::channels::SIGNING_GUIDE),
        _ => None,
    }
}
/// The document for `routes`, served at `base_url`, whose session cookie is `cookie_name`.
pub(crate) fn document(routes: &[RouteDef], base_url: &str, cookie_name: &str) -> Document {
    let mut gens = Gens::new();
    let mut paths = Map::new();
    for r in routes {
        let entry = paths
            .entry(openapi_path(r.path))
            .or_insert_with(|| json!({}));
        entry[r.method.as_str().to_ascii_lowercase()] = operation(r, &mut gens);
    }
    let mut tags: Vec<&str> = Vec::new();
    for r in routes {
        if !tags.contains(&r.tag) {
            tags.push(r.tag);
        }
    }
    let mut schemas = components(gens);
    for s in schemas.values_mut() {
        bound_integers(s);
    }
    // The subshell lifecycle, computed from the transition table the service applies.
    if let Some(state) = schemas.get_mut("SubshellState") {
        let said = state["description"].as_str().unwrap_or_default().to_owned();
        state["description"] = Value::String(format!(
            "{said}\n\nEvery move between states (any other pair is refused; \"node unreachable\" is a status, not a state):\n\n{}",
            crate::service::lifecycle::table_markdown()
        ));
    }
    for p in paths.values_mut() {
        bound_integers(p);
    }
    Document(json!({
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": "termplane control plane",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The REST API of this control plane, generated from the route table of the build that serves it. Every failure answers the `Error` body. State-changing requests that carry no `Authorization` header must come from a trusted `Origin`.",
            "license": { "name": "Apache-2.0", "identifier": "Apache-2.0" }
        },
        "servers": [{ "url": base_url.trim_end_matches('/') }],
        "tags": tags
            .iter()
            .map(|t| match tag_description(t) {
                Some(d) => json!({ "name": t, "description": d }),
                None => json!({ "name": t }),
            })
            .collect::<Vec<_>>(),
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "systemKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A system key (`tp_…`) in `Authorization: Bearer`; it acts as the `system` service account and is refused on admin surfaces."
                },
                "session": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": cookie_name,
                    "description": "The session cookie set by `POST /api/auth/sign-in`."
                },
                "subshellToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A subshell's own token (`tp_…`), handed to its pane as TERMPLANE_TOKEN and never shown to anyone; it acts as the subshell's owner within its permission map, on the owner's subshells only."
                },
                "nodeKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A node key (`tp_…`, issued at enrollment); it opens the node WebSocket `/ws/node` only and is refused by every REST route."
                }
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::http::routes::routes;

    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    out.push(r.clone());
                }
                m.values().for_each(|x| refs(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }

    #[test]
    fn every_reference_resolves_and_every_schema_is_used() {
        let doc = document(&routes(), "http://127.0.0.1:1", "tp_session").0;
        let mut found = Vec::new();
        refs(&doc, &mut found);
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        for r in &found {
            let name = r.strip_prefix("#/components/schemas/").unwrap();
            assert!(schemas.contains_key(name), "{r} does not resolve");
        }
        for name in schemas.keys() {
            assert!(
                found.iter().any(|r| r.ends_with(&format!("/{name}"))),
                "schema {name} is unused"
            );
        }
    }

    /// Every schema name stands for one schema: a request type and an answer type (or two
    /// types of the same name) never collide in `components`.
    #[test]
    fn no_two_schemas_share_a_name() {
        let mut gens = Gens::new();
        for r in routes() {
            let mut doc = OpDoc::default();
            (r.document)(&mut doc, &mut gens);
        }
        let (_, conflicts) = components_and_conflicts(gens);
        assert!(conflicts.is_empty(), "{conflicts:?}");
    }

    #[test]
    fn the_reference_shows_the_subshell_lifecycle_table() {
        let doc = document(&crate::http::routes::routes(), "http://x", "c").0;
        let d = doc["components"]["schemas"]["SubshellState"]["description"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            d.contains("| running | terminate requested | stopping | revoked |"),
            "{d}"
        );
    }

    #[test]
    fn paths_use_openapi_syntax() {
        assert_eq!(
            openapi_path("/api/nodes/:id/key_rotate"),
            "/api/nodes/{id}/key_rotate"
        );
        assert_eq!(openapi_path("/api/nodes"), "/api/nodes");
    }
}
