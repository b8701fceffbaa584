//! The OpenAPI 3.1 document, built from the route table ([`super::routes::routes`]) and the
//! schemas named here. Nothing in it is listed by hand a second time: paths, methods,
//! authentication, success statuses and error codes all come from the route definitions.

use serde_json::{Map, Value, json};

use super::routes::{Auth, Body, RouteDef};

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

fn string(desc: &str) -> Value {
    json!({ "type": "string", "description": desc })
}

fn millis(desc: &str) -> Value {
    json!({ "type": "integer", "format": "int64", "description": format!("{desc} (milliseconds since the Unix epoch)") })
}

fn nullable(mut v: Value) -> Value {
    if let Some(t) = v.get("type").cloned() {
        v["type"] = json!([t, "null"]);
    }
    v
}

fn object(required: &[&str], props: Value) -> Value {
    json!({ "type": "object", "required": required, "properties": props })
}

/// A closed object: the service refuses fields it does not know (`INPUT_VALIDATION_ERROR`).
fn closed(required: &[&str], props: Value) -> Value {
    let mut o = object(required, props);
    o["additionalProperties"] = Value::Bool(false);
    o
}

/// Every named schema (`#/components/schemas/…`).
pub(crate) fn schemas() -> Map<String, Value> {
    let jwk = closed(
        &["kty", "crv", "x", "y"],
        json!({
            "kty": { "const": "EC" },
            "crv": { "const": "P-256" },
            "x": string("32 bytes, unpadded base64url"),
            "y": string("32 bytes, unpadded base64url"),
        }),
    );
    let user_props = json!({
        "id": string("Account id"),
        "email": string("Email (lower-case)"),
        "displayName": string("Display name"),
        "role": { "type": "string", "enum": ["admin", "user", "service"] },
        "disabled": { "type": "boolean" },
    });
    let user_required = ["id", "email", "displayName", "role", "disabled"];
    let mut whoami = object(&user_required, user_props.clone());
    whoami["required"] = json!([
        "id",
        "email",
        "displayName",
        "role",
        "disabled",
        "isAdmin",
        "via"
    ]);
    whoami["properties"]["isAdmin"] =
        json!({ "type": "boolean", "description": "An administrator's browser session" });
    whoami["properties"]["via"] = json!({ "type": "string", "enum": ["session", "system_key"] });
    let system_key_props = json!({
        "id": string("Key id"),
        "name": string("Name given at creation"),
        "preview": string("Non-secret preview of the key"),
        "enabled": { "type": "boolean" },
        "createdAt": millis("Creation time"),
    });
    let mut system_key_created = object(
        &["id", "name", "preview", "enabled", "createdAt", "key"],
        system_key_props.clone(),
    );
    system_key_created["properties"]["key"] = json!({
        "type": "string",
        "pattern": "^tp_",
        "description": "The key's plaintext: shown in this answer and never again"
    });

    let mut m = Map::new();
    let mut put = |name: &str, v: Value| {
        m.insert(name.to_owned(), v);
    };
    put("Error", error_schema());
    put(
        "OpenApiDocument",
        json!({ "type": "object", "description": "An OpenAPI 3.1 document (this one)", "required": ["openapi", "info", "paths"] }),
    );
    put(
        "SetupStatus",
        object(
            &["setupDone"],
            json!({ "setupDone": { "type": "boolean" } }),
        ),
    );
    put(
        "SetupRequest",
        closed(
            &["email", "displayName", "password"],
            json!({
                "email": { "type": "string", "minLength": 3, "maxLength": 254 },
                "displayName": { "type": "string", "minLength": 1, "maxLength": 100 },
                "password": { "type": "string", "minLength": 8, "maxLength": 1024 },
            }),
        ),
    );
    put(
        "InstanceSettings",
        object(
            &["displayName"],
            json!({ "displayName": { "type": "string" } }),
        ),
    );
    put(
        "PublicSettings",
        object(
            &["trustedOrigins"],
            json!({ "trustedOrigins": { "type": "array", "items": { "type": "string" }, "description": "Origins allowed to send state-changing browser requests" } }),
        ),
    );
    put(
        "SignInRequest",
        closed(
            &["email", "password"],
            json!({
                "email": { "type": "string", "minLength": 3, "maxLength": 254 },
                "password": { "type": "string", "minLength": 1, "maxLength": 1024 },
            }),
        ),
    );
    put("User", object(&user_required, user_props));
    put("Whoami", whoami);
    put(
        "CreateUserRequest",
        closed(
            &["email", "displayName", "password"],
            json!({
                "email": { "type": "string", "minLength": 3, "maxLength": 254 },
                "displayName": { "type": "string", "minLength": 1, "maxLength": 100 },
                "password": { "type": "string", "minLength": 8, "maxLength": 1024 },
                "role": { "type": "string", "enum": ["user", "admin"], "default": "user" },
            }),
        ),
    );
    put(
        "SystemKey",
        object(
            &["id", "name", "preview", "enabled", "createdAt"],
            system_key_props,
        ),
    );
    put("SystemKeyCreated", system_key_created);
    put(
        "CreateSystemKeyRequest",
        closed(
            &["name"],
            json!({ "name": { "type": "string", "minLength": 1, "maxLength": 100 } }),
        ),
    );
    put(
        "SystemKeyDisabled",
        object(
            &["id", "enabled"],
            json!({ "id": { "type": "string" }, "enabled": { "const": false } }),
        ),
    );
    put(
        "SetupKey",
        object(
            &[
                "id",
                "key",
                "preview",
                "status",
                "createdAt",
                "expiresAt",
                "usedAt",
                "usedByNodeId",
                "revokedAt",
            ],
            json!({
                "id": string("Key id"),
                "key": { "type": ["string", "null"], "pattern": "^nsk_", "description": "The key in full while it is active" },
                "preview": string("Non-secret preview"),
                "status": { "type": "string", "enum": ["active", "used", "expired", "revoked"] },
                "createdAt": millis("Creation time"),
                "expiresAt": millis("Expiry (24 hours after creation)"),
                "usedAt": nullable(millis("When a node enrolled with it")),
                "usedByNodeId": nullable(string("The node that enrolled with it")),
                "revokedAt": nullable(millis("When it was revoked")),
            }),
        ),
    );
    put("Jwk", jwk);
    put(
        "EnrollRequest",
        closed(
            &[
                "setupKey",
                "name",
                "os",
                "arch",
                "hostname",
                "agentVersion",
                "identityJwk",
            ],
            json!({
                "setupKey": { "type": "string", "pattern": "^nsk_" },
                "name": { "type": "string", "minLength": 1, "maxLength": termplane_proto::limits::NODE_NAME_MAX_CHARS },
                "os": { "type": "string", "enum": ["linux", "darwin", "unknown"] },
                "arch": { "type": "string", "minLength": 1, "maxLength": 64 },
                "hostname": { "type": "string", "minLength": 1, "maxLength": 255 },
                "agentVersion": { "type": "string", "minLength": 1, "maxLength": 64 },
                "identityJwk": { "$ref": "#/components/schemas/Jwk" },
                "encryptPublicKey": { "type": ["string", "null"], "description": "The node's X25519 link public key, 32 bytes of unpadded base64url" },
            }),
        ),
    );
    put(
        "Enrolled",
        object(
            &[
                "nodeId",
                "nodeKey",
                "signingPublicJwk",
                "controlEncryptPublicKey",
                "wsUrl",
            ],
            json!({
                "nodeId": string("The new node's id"),
                "nodeKey": { "type": "string", "pattern": "^tp_", "description": "The node key: shown in this answer only; it opens `/ws/node`" },
                "signingPublicJwk": { "$ref": "#/components/schemas/Jwk" },
                "controlEncryptPublicKey": string("The plane's X25519 link public key, unpadded base64url"),
                "wsUrl": string("Where the node connects"),
            }),
        ),
    );
    put(
        "Node",
        object(
            &[
                "nodeId",
                "name",
                "liveness",
                "allowedDirs",
                "isLocal",
                "createdAt",
                "updatedAt",
            ],
            json!({
                "nodeId": string("Node id"),
                "name": { "type": "string", "maxLength": termplane_proto::limits::NODE_NAME_MAX_CHARS },
                "os": { "type": ["string", "null"], "enum": ["linux", "darwin", "unknown", null] },
                "arch": nullable(string("CPU architecture")),
                "hostname": nullable(string("Host name")),
                "agentVersion": nullable(string("Version of the node daemon")),
                "identityJwk": { "anyOf": [{ "$ref": "#/components/schemas/Jwk" }, { "type": "null" }] },
                "encryptPublicKey": nullable(string("The node's X25519 link public key; null while unpaired")),
                "liveness": { "type": "string", "enum": ["online", "offline"] },
                "runtime": { "type": ["object", "null"], "description": "Supervision snapshot, when reported" },
                "maintenance": { "type": ["object", "null"], "description": "`{ on, changedAt }`, when set" },
                "allowedDirs": { "type": "array", "items": { "type": "string" }, "description": "Empty means unrestricted" },
                "isLocal": { "type": "boolean", "description": "The plane host's own row" },
                "createdAt": millis("Creation time"),
                "updatedAt": millis("Last change"),
            }),
        ),
    );
    put(
        "NodeKeyRotated",
        object(
            &["nodeId", "nodeKey"],
            json!({
                "nodeId": string("Node id"),
                "nodeKey": { "type": "string", "pattern": "^tp_", "description": "The new node key, shown in this answer only" },
            }),
        ),
    );
    put(
        "MaintenanceRequest",
        closed(&["on"], json!({ "on": { "type": "boolean" } })),
    );
    put(
        "MaintenanceSet",
        object(
            &["on", "changedAt", "pushed"],
            json!({
                "on": { "type": "boolean" },
                "changedAt": string("When the mirror changed, ISO 8601 UTC"),
                "pushed": { "type": "boolean", "description": "Whether the online node took the mirror" },
            }),
        ),
    );
    put(
        "NodePing",
        object(
            &["ok", "rttMs"],
            json!({
                "ok": { "type": "boolean", "description": "Whether the node answered `ping` successfully" },
                "rttMs": { "type": "integer", "minimum": 0, "description": "Round trip through the link, in milliseconds" },
                "error": string("The node's refusal, when `ok` is false"),
            }),
        ),
    );
    put(
        "NodeCommandRequest",
        json!({
            "type": "object",
            "required": ["type"],
            "description": "One node command as the link carries it: `type` names it (`ping`, `launch`, `input`, `capture`, `tail_start`, `terminate`, …) and the other fields are that command's, in camelCase, as the node protocol defines them",
            "properties": { "type": string("The command's name") },
        }),
    );
    put(
        "NodeCommandAnswer",
        object(
            &["result", "sentAtUs", "elapsedUs"],
            json!({
                "result": {
                    "type": "object",
                    "description": "The node's `result` event: `ref` (the command's jti), `ok`, and `data` or `error`",
                },
                "sentAtUs": { "type": "integer", "minimum": 0, "description": "Unix microseconds just before the command was dispatched" },
                "elapsedUs": { "type": "integer", "minimum": 0, "description": "Dispatch to result, in microseconds, measured in the plane" },
            }),
        ),
    );
    put(
        "NodeEvents",
        object(
            &["events", "next", "dropped"],
            json!({
                "events": {
                    "type": "array",
                    "items": object(
                        &["seq", "atUs", "kind", "event"],
                        json!({
                            "seq": { "type": "integer", "minimum": 1, "description": "Per-node sequence number (since the plane started)" },
                            "atUs": { "type": "integer", "minimum": 0, "description": "When the plane received it, Unix microseconds" },
                            "kind": string("The event's type (`output`, `exit`, `subshells_report`, `maintenance`, `inventory`, `error`)"),
                            "event": { "type": "object", "description": "The event as the node sent it" },
                        }),
                    ),
                },
                "next": { "type": "integer", "minimum": 0, "description": "Pass as `after` to read on" },
                "dropped": { "type": "boolean", "description": "Events after `after` were evicted before this read" },
            }),
        ),
    );
    let held_entry = object(
        &["nodeId", "reason"],
        json!({
            "nodeId": string("Node id"),
            "name": { "type": ["string", "null"] },
            "agentVersion": { "type": ["string", "null"] },
            "liveness": { "type": ["string", "null"] },
            "reason": string("Why the node is held (names the required and the found version)"),
        }),
    );
    let below_entry = object(
        &["nodeId", "name", "agentVersion"],
        json!({
            "nodeId": string("Node id"),
            "name": string("Node name"),
            "agentVersion": string("The version the node last reported"),
        }),
    );
    put(
        "HeldNodes",
        object(
            &["minNodeVersion", "held", "belowFloor"],
            json!({
                "minNodeVersion": string("The version floor"),
                "held": { "type": "array", "items": held_entry },
                "belowFloor": { "type": "array", "items": below_entry },
            }),
        ),
    );
    put(
        "AllowedDirsRequest",
        closed(
            &["allowedDirs"],
            json!({ "allowedDirs": { "type": "array", "maxItems": 256, "items": { "type": "string", "pattern": "^/", "maxLength": 4096 } } }),
        ),
    );
    put(
        "AuditEntry",
        object(
            &[
                "id",
                "at",
                "actorUserId",
                "actorKind",
                "action",
                "target",
                "detail",
            ],
            json!({
                "id": { "type": "integer", "description": "Sequence number" },
                "at": millis("When"),
                "actorUserId": nullable(string("The acting account")),
                "actorKind": { "type": "string", "enum": ["cookie", "system_key", "setup_key", "plane"] },
                "action": string("What happened (`system_key.created`, …)"),
                "target": nullable(string("The row acted on")),
                "detail": { "description": "Extra facts (never a secret)" },
            }),
        ),
    );
    m
}

fn body_schema(b: Body) -> Value {
    match b {
        Body::One(name) => json!({ "$ref": format!("#/components/schemas/{name}") }),
        Body::ListOf(name) => {
            json!({ "type": "array", "items": { "$ref": format!("#/components/schemas/{name}") } })
        }
        Body::Binary => json!({ "type": "string", "contentMediaType": "application/octet-stream" }),
    }
}

/// `/api/nodes/:id` → `/api/nodes/{id}`.
pub(crate) fn openapi_path(tide_path: &str) -> String {
    tide_path
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
            json!([{ "systemKey": [] }, { "session": [] }]),
            "Any credential: a system key or a session cookie.",
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
        Auth::NodeKey => (json!([{ "nodeKey": [] }]), "A node key."),
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        413 => "Content Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "Response",
    }
}

fn operation(r: &RouteDef) -> Value {
    let (sec, auth_text) = security(r.auth);
    let mut op = json!({
        "operationId": r.op,
        "tags": [r.tag],
        "summary": r.summary,
        "description": format!("Authentication: {auth_text}"),
        "security": sec,
    });
    let params: Vec<Value> = r
        .params()
        .into_iter()
        .map(|p| json!({ "name": p, "in": "path", "required": true, "schema": { "type": "string" } }))
        .collect();
    if !params.is_empty() {
        op["parameters"] = Value::Array(params);
    }
    if let Some(b) = r.body {
        op["requestBody"] = json!({
            "required": true,
            "content": { "application/json": { "schema": body_schema(b) } }
        });
    }
    let mut responses = Map::new();
    let mut ok = json!({ "description": reason(r.ok) });
    match r.response {
        Some(Body::Binary) => {
            ok["content"] = json!({
                "application/octet-stream": {
                    "schema": { "type": "string", "contentMediaType": "application/octet-stream" }
                }
            });
            ok["headers"] = json!({
                "Content-Length": { "schema": { "type": "integer", "minimum": 0 }, "description": "The file's length" },
                "X-Content-SHA256": { "schema": { "type": "string", "pattern": "^[0-9a-f]{64}$" }, "description": "The file's SHA-256, lowercase hex" },
            });
        }
        Some(b) => ok["content"] = json!({ "application/json": { "schema": body_schema(b) } }),
        None => {}
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
        if status == 429 {
            resp["headers"] = json!({ "Retry-After": { "description": "Seconds to wait", "schema": { "type": "integer" } } });
        }
        responses.insert(status.to_string(), resp);
    }
    op["responses"] = Value::Object(responses);
    op
}

/// The document for `routes`, served at `base_url`, whose session cookie is `cookie_name`.
pub(crate) fn document(routes: &[RouteDef], base_url: &str, cookie_name: &str) -> Value {
    let mut paths = Map::new();
    for r in routes {
        let entry = paths
            .entry(openapi_path(r.path))
            .or_insert_with(|| json!({}));
        entry[r.method.lower()] = operation(r);
    }
    let mut tags: Vec<&str> = Vec::new();
    for r in routes {
        if !tags.contains(&r.tag) {
            tags.push(r.tag);
        }
    }
    json!({
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": "termplane control plane",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The REST API of this control plane, generated from the route table of the build that serves it. Every failure answers the `Error` body. State-changing requests that carry no `Authorization` header must come from a trusted `Origin`.",
            "license": { "name": "Apache-2.0", "identifier": "Apache-2.0" }
        },
        "servers": [{ "url": base_url.trim_end_matches('/') }],
        "tags": tags.iter().map(|t| json!({ "name": t })).collect::<Vec<_>>(),
        "paths": paths,
        "components": {
            "schemas": schemas(),
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
                "nodeKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A node key (`tp_…`, issued at enrollment); it opens the node WebSocket `/ws/node` only and is refused by every REST route."
                }
            }
        }
    })
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
        let doc = document(&routes(), "http://127.0.0.1:1", "tp_session");
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

    #[test]
    fn paths_use_openapi_syntax() {
        assert_eq!(
            openapi_path("/api/nodes/:id/key_rotate"),
            "/api/nodes/{id}/key_rotate"
        );
        assert_eq!(openapi_path("/api/nodes"), "/api/nodes");
    }
}
