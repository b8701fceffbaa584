//! The API reference against a real plane on loopback: `/api/openapi.json` describes exactly the
//! routes the server answers, with the error body on every error status and response bodies
//! that match their schemas; `/docs` and every asset it names are served from the plane itself.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::collections::BTreeSet;

use common::*;
use serde_json::{Map, Value, json};

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

fn document(p: &Plane) -> Value {
    let r = p.get("/api/openapi.json").send();
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(
        r.header("content-type")
            .is_some_and(|c| c.starts_with("application/json")),
        "{:?}",
        r.headers
    );
    r.json()
}

/// `(path with `{x}` replaced by a value, method, operation)` for every operation.
fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            assert!(METHODS.contains(&method.as_str()), "{method} {path}");
            let concrete = path
                .split('/')
                .map(|s| if s.starts_with('{') { "no-such-row" } else { s })
                .collect::<Vec<_>>()
                .join("/");
            out.push((concrete, method.clone(), op.clone()));
        }
    }
    out
}

fn listed_codes(op: &Value, status: u16) -> Vec<String> {
    op["responses"][status.to_string()]["x-error-codes"]
        .as_array()
        .map(|a| a.iter().map(|c| c.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

/// `termplane openapi` prints, without a running plane, the document a plane at the same
/// address serves: what a client generator is given (the browser app's types come from it).
#[test]
fn the_openapi_command_prints_the_document_the_plane_serves() {
    let p = Plane::start();
    let served = document(&p);
    let base = served["servers"][0]["url"].as_str().unwrap().to_owned();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_termplane"))
        .arg("openapi")
        .env("APP_BASE_URL", &base)
        // The test plane takes http:// and loopback push endpoints; the document says so.
        .env("TERMPLANE_PUSH_ALLOW_HTTP", "on")
        .env("TERMPLANE_PUSH_ALLOW_PRIVATE", "on")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed, served);
    // Nothing but the document on stdout, and nothing on stderr (no log lines).
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // With no APP_BASE_URL, the document names the address a plane here calls itself.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_termplane"))
        .arg("openapi")
        .env_remove("APP_BASE_URL")
        .env_remove("TERMPLANE_PUSH_ALLOW_HTTP")
        .env_remove("TERMPLANE_PUSH_ALLOW_PRIVATE")
        .output()
        .unwrap();
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    // By default it describes a plane that takes only https:// push services.
    assert!(
        printed["components"]["schemas"]["PushEndpoint"]["pattern"]
            .as_str()
            .is_some_and(|p| p.starts_with("^https://")),
        "{}",
        printed["components"]["schemas"]["PushEndpoint"]
    );
    assert_eq!(
        printed["servers"],
        json!([{ "url": "http://localhost:7420" }])
    );
    assert_eq!(printed["paths"], served["paths"]);
}

#[test]
fn document_is_openapi_3_1_with_the_error_body_and_security_schemes() {
    let p = Plane::start();
    let doc = document(&p);
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(doc["info"]["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert_eq!(doc["servers"][0]["url"], p.base.as_str());
    let err = &doc["components"]["schemas"]["Error"];
    assert_eq!(err["type"], "object");
    for f in ["errId", "code", "message", "statusCode"] {
        assert!(
            err["required"].as_array().unwrap().contains(&json!(f)),
            "{f}"
        );
    }
    for f in ["reqId", "metadata"] {
        assert!(err["properties"][f].is_object(), "{f}");
        assert!(
            !err["required"].as_array().unwrap().contains(&json!(f)),
            "{f}"
        );
    }
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["systemKey"]["type"], "http");
    assert_eq!(schemes["systemKey"]["scheme"], "bearer");
    assert_eq!(schemes["session"]["type"], "apiKey");
    assert_eq!(schemes["session"]["in"], "cookie");
    assert_eq!(schemes["session"]["name"], "tp_session");

    let ops = operations(&doc);
    assert!(ops.len() >= 25, "{}", ops.len());
    let mut ids = BTreeSet::new();
    for (path, method, op) in &ops {
        assert!(ids.insert(op["operationId"].as_str().unwrap().to_owned()));
        let responses = op["responses"].as_object().unwrap();
        assert!(
            responses.keys().any(|s| s.starts_with('2')),
            "{method} {path}: no success"
        );
        assert!(responses.contains_key("500"), "{method} {path}: no 500");
        for (status, resp) in responses {
            let status: u16 = status.parse().unwrap();
            if status < 400 {
                continue;
            }
            assert_eq!(
                resp["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/Error",
                "{method} {path} {status}"
            );
            assert!(
                !listed_codes(op, status).is_empty(),
                "{method} {path} {status}"
            );
        }
        for s in op["security"].as_array().unwrap() {
            for name in s.as_object().unwrap().keys() {
                assert!(schemes[name].is_object(), "{method} {path}: {name}");
            }
        }
    }
    // The cookie-only and admin routes say so.
    let admin_op = ops
        .iter()
        .find(|(p, m, _)| p == "/api/system-keys" && m == "post")
        .unwrap();
    assert_eq!(admin_op.2["security"], json!([{ "session": [] }]));
    assert!(listed_codes(&admin_op.2, 403).contains(&"BEARER_NOT_ALLOWED".to_owned()));
    assert!(listed_codes(&admin_op.2, 403).contains(&"ADMIN_REQUIRED".to_owned()));
}

#[test]
fn servers_and_cookie_follow_the_configured_base_url() {
    let p = Plane::start_with(Opts {
        base_url: Some("https://plane.example:8443".into()),
        ..Opts::default()
    });
    let doc = document(&p);
    assert_eq!(
        doc["servers"],
        json!([{ "url": "https://plane.example:8443" }])
    );
    assert_eq!(
        doc["components"]["securitySchemes"]["session"]["name"],
        "__Host-tp_session"
    );
}

/// Every documented operation answers on the server (never "route not found" or 405), with a
/// status and code the document lists for it; every other method on a documented path is 405.
#[test]
fn every_documented_route_is_registered_and_answers_as_documented() {
    let p = Plane::start();
    let doc = document(&p);
    let ops = operations(&doc);
    for (path, method, op) in &ops {
        let r = p
            .req()
            .method(&method.to_uppercase())
            .path(path)
            .header("Origin", &p.origin())
            .send();
        let documented: Vec<u16> = op["responses"]
            .as_object()
            .unwrap()
            .keys()
            .map(|s| s.parse().unwrap())
            .collect();
        assert!(
            documented.contains(&r.status),
            "{method} {path}: undocumented status {} {}",
            r.status,
            r.text()
        );
        if r.status >= 400 {
            let code = r.error(r.status);
            assert!(
                listed_codes(op, r.status).contains(&code),
                "{method} {path}: {code} is not listed for {}",
                r.status
            );
            assert_ne!(r.json()["message"], "route not found", "{method} {path}");
        }
    }
    let mut paths: Vec<&String> = ops.iter().map(|(p, _, _)| p).collect();
    paths.dedup();
    let templates: Vec<(&String, &String)> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(t, item)| item.as_object().unwrap().keys().map(move |m| (t, m)))
        .collect();
    // Whether a documented route `method template` would route `concrete`.
    let routed = |m: &str, concrete: &str| {
        templates.iter().any(|(t, tm)| {
            *tm == m
                && t.split('/').count() == concrete.split('/').count()
                && t.split('/')
                    .zip(concrete.split('/'))
                    .all(|(a, b)| a == b || a.starts_with('{'))
        })
    };
    let mut refused = 0;
    for path in paths {
        for m in METHODS {
            if routed(m, path) {
                continue;
            }
            let r = p
                .req()
                .method(&m.to_uppercase())
                .path(path)
                .header("Origin", &p.origin())
                .send();
            assert_eq!(
                r.error(405),
                "METHOD_NOT_ALLOWED",
                "{m} {path} is registered but not documented"
            );
            refused += 1;
        }
    }
    assert!(refused > 40, "{refused}");
    // And a path the document does not have is not routed.
    assert_eq!(
        p.get("/api/not-in-the-document").send().error(404),
        "NOT_FOUND"
    );
}

// ----- a small JSON Schema check (the subset the document uses) -----

fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => {
            let name = r.strip_prefix("#/components/schemas/").unwrap();
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        other => panic!("unknown type {other}"),
    }
}

fn check(doc: &Value, schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    let s = resolve(doc, schema);
    if let Some(any) = s["anyOf"].as_array() {
        if any.iter().any(|alt| check(doc, alt, v, at).is_ok()) {
            return Ok(());
        }
        return Err(format!("{at}: matches no alternative: {v}"));
    }
    let typed = match &s["type"] {
        Value::String(t) => type_ok(t, v),
        Value::Array(ts) => ts.iter().any(|t| type_ok(t.as_str().unwrap(), v)),
        _ => true,
    };
    if !typed {
        return Err(format!("{at}: {v} is not of type {}", s["type"]));
    }
    if s.get("const").is_some_and(|c| c != v) {
        return Err(format!("{at}: {v} is not {}", s["const"]));
    }
    if s["enum"].as_array().is_some_and(|e| !e.contains(v)) {
        return Err(format!("{at}: {v} not in {}", s["enum"]));
    }
    if let (Some(obj), Some(props)) = (v.as_object(), s["properties"].as_object()) {
        for req in s["required"].as_array().into_iter().flatten() {
            if !obj.contains_key(req.as_str().unwrap()) {
                return Err(format!("{at}: missing {req}"));
            }
        }
        for (k, x) in obj {
            let ps = props
                .get(k)
                .ok_or_else(|| format!("{at}: undocumented field {k}"))?;
            check(doc, ps, x, &format!("{at}.{k}"))?;
        }
    }
    if let (Some(items), Some(arr)) = (s.get("items"), v.as_array()) {
        for (i, x) in arr.iter().enumerate() {
            check(doc, items, x, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

fn success_schema<'a>(doc: &'a Value, path: &str, method: &str) -> (u16, &'a Value) {
    let op = &doc["paths"][path][method];
    let (status, resp) = op["responses"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(s, _)| s.starts_with('2'))
        .unwrap();
    (
        status.parse().unwrap(),
        &resp["content"]["application/json"]["schema"],
    )
}

/// Real answers match the documented success status and response schema, field by field (an
/// undocumented field fails), and error answers match the `Error` schema.
#[test]
fn real_answers_match_their_schemas() {
    let p = Plane::start();
    let doc = document(&p);
    let admin = p.setup_admin();
    let (key_id, _) = p.system_key(&admin);
    let (_, setup_key) = p.setup_key(&admin);
    let enrolled = p.enroll(&setup_key, "n1");
    let node_id = enrolled.json()["nodeId"].as_str().unwrap().to_owned();
    let user_id = p.create_user(&admin, "u@example.test", "user");

    let mut calls: Vec<(&str, &str, String, Value, common::Resp)> = vec![(
        "/api/nodes/enroll",
        "post",
        String::new(),
        Value::Null,
        enrolled,
    )];
    let mut call = |path: &'static str, method: &'static str, concrete: String, body: Value| {
        let r = p
            .req()
            .method(&method.to_uppercase())
            .path(&concrete)
            .header("Cookie", &admin)
            .header("Origin", &p.origin())
            .json(body.clone())
            .send();
        calls.push((path, method, concrete, body, r));
    };
    for path in [
        "/api/openapi.json",
        "/api/setup/status",
        "/api/settings/instance",
        "/api/settings/public",
        "/api/auth/session",
        "/api/users",
        "/api/system-keys",
        "/api/setup-keys",
        "/api/nodes",
        "/api/audit",
    ] {
        call(path, "get", path.to_owned(), Value::Null);
    }
    call(
        "/api/nodes/{id}",
        "get",
        format!("/api/nodes/{node_id}"),
        Value::Null,
    );
    call(
        "/api/nodes/{id}/allowed_dirs",
        "put",
        format!("/api/nodes/{node_id}/allowed_dirs"),
        json!({ "allowedDirs": ["/srv"] }),
    );
    call(
        "/api/nodes/{id}/key_rotate",
        "post",
        format!("/api/nodes/{node_id}/key_rotate"),
        Value::Null,
    );
    call(
        "/api/users/{id}/disable",
        "post",
        format!("/api/users/{user_id}/disable"),
        Value::Null,
    );
    call(
        "/api/users/{id}/enable",
        "post",
        format!("/api/users/{user_id}/enable"),
        Value::Null,
    );
    call(
        "/api/system-keys/{id}/disable",
        "post",
        format!("/api/system-keys/{key_id}/disable"),
        Value::Null,
    );
    call(
        "/api/system-keys",
        "post",
        "/api/system-keys".into(),
        json!({ "name": "second" }),
    );
    call(
        "/api/setup-keys",
        "post",
        "/api/setup-keys".into(),
        Value::Null,
    );
    call(
        "/api/setup",
        "post",
        "/api/setup".into(),
        json!({ "email": "x@example.test", "displayName": "X", "password": PASSWORD }),
    );
    call(
        "/api/users",
        "post",
        "/api/users".into(),
        json!({ "email": "u@example.test", "displayName": "U", "password": PASSWORD }),
    );
    call(
        "/api/nodes/{id}",
        "delete",
        format!("/api/nodes/{node_id}"),
        Value::Null,
    );

    let mut covered = BTreeSet::new();
    for (path, method, concrete, _, r) in &calls {
        let (ok, schema) = success_schema(&doc, path, method);
        if r.status < 400 {
            assert_eq!(r.status, ok, "{method} {concrete}: {}", r.text());
            if ok != 204 {
                check(&doc, schema, &r.json(), &format!("{method} {concrete}")).unwrap();
            }
            covered.insert(format!("{method} {path}"));
        } else {
            let err = json!({ "$ref": "#/components/schemas/Error" });
            check(&doc, &err, &r.json(), &format!("{method} {concrete}")).unwrap();
            let code = r.code();
            let listed = listed_codes(&doc["paths"][*path][*method], r.status);
            assert!(listed.contains(&code), "{method} {concrete}: {code}");
        }
    }
    // The expected refusals happened (and were checked against Error above).
    assert!(!covered.contains("post /api/setup"));
    assert!(!covered.contains("post /api/users"));
    assert!(covered.len() >= 19, "{covered:?}");

    // A system key reads the shared routes; its answers match too.
    let (_, system_key) = p.system_key(&admin);
    for path in [
        "/api/auth/session",
        "/api/users",
        "/api/nodes",
        "/api/settings/public",
    ] {
        let r = p.get(path).bearer(&system_key).send();
        let (ok, schema) = success_schema(&doc, path, "get");
        assert_eq!(r.status, ok, "{path}: {}", r.text());
        check(&doc, schema, &r.json(), path).unwrap();
    }
}

fn run_validator(doc: &Value) -> Option<std::process::Output> {
    let probe = std::process::Command::new("python3")
        .args(["-c", "import openapi_spec_validator"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return None;
    }
    let dir = tempdir("openapi");
    let file = dir.join("openapi.json");
    std::fs::write(&file, serde_json::to_vec_pretty(doc).unwrap()).unwrap();
    let script = "import json, sys\n\
                  from openapi_spec_validator import OpenAPIV31SpecValidator, validate\n\
                  with open(sys.argv[1]) as f:\n    spec = json.load(f)\n\
                  validate(spec, cls=OpenAPIV31SpecValidator)\n\
                  print('valid OpenAPI 3.1')\n";
    Some(
        std::process::Command::new("python3")
            .args(["-c", script])
            .arg(&file)
            .output()
            .unwrap(),
    )
}

/// An independent validator (PyPI `openapi-spec-validator`) accepts the document as OpenAPI 3.1,
/// and rejects a broken copy (so the check can fail).
#[test]
fn document_passes_an_independent_openapi_3_1_validator() {
    let p = Plane::start();
    let doc = document(&p);
    let Some(out) = run_validator(&doc) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "openapi-spec-validator is missing: pip install openapi-spec-validator"
        );
        eprintln!(
            "note: python3 module openapi_spec_validator not found; the independent OpenAPI \
             check was skipped (pip install openapi-spec-validator)"
        );
        return;
    };
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut broken = doc.clone();
    broken["paths"]["/api/users"]["get"]["responses"] = json!({ "200": { "content": 5 } });
    let out = run_validator(&broken).unwrap();
    assert!(!out.status.success(), "a broken document passed");
}

// ----- /docs -----

/// The values of `attr="…"` in `html`.
fn attrs(html: &str, attr: &str) -> Vec<String> {
    let pat = format!("{attr}=\"");
    html.match_indices(&pat)
        .map(|(i, _)| {
            let rest = &html[i + pat.len()..];
            rest[..rest.find('"').unwrap()].to_owned()
        })
        .collect()
}

#[test]
fn docs_page_and_its_assets_are_served_from_the_plane() {
    let p = Plane::start();
    let r = p.get("/docs").send();
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    let csp = r.header("content-security-policy").unwrap().to_owned();
    let directives: Map<String, Value> = csp
        .split(';')
        .map(|d| {
            let mut it = d.split_whitespace();
            let name = it.next().unwrap().to_owned();
            (name, json!(it.collect::<Vec<_>>()))
        })
        .collect();
    assert_eq!(directives["default-src"], json!(["'self'"]), "{csp}");
    for (name, sources) in &directives {
        for s in sources.as_array().unwrap() {
            // Images may also be inline (`data:`: Swagger UI's icons); nothing else may load
            // from anywhere but this plane.
            assert!(
                s == "'self'" || s == "'none'" || (name == "img-src" && s == "data:"),
                "{name} allows {s}: only 'self' may load"
            );
        }
    }
    assert!(r.text().contains(r#"<a href="/">Back to termplane</a>"#));
    for d in ["script-src", "style-src", "connect-src", "frame-ancestors"] {
        assert!(directives.contains_key(d), "{d} missing from {csp}");
    }

    let html = r.text();
    let mut assets: Vec<String> = attrs(&html, "src");
    assets.extend(attrs(&html, "href"));
    assets.retain(|a| a.starts_with("/docs/"));
    // The page links the terminal WebSocket's own reference, served from the same types.
    assert!(assets.iter().any(|a| a == "/docs/terminal"), "{assets:?}");
    let t = p.get("/docs/terminal").send();
    assert_eq!(t.status, 200);
    assert!(t.text().contains("\"attached\"") && t.text().contains("<td>4403</td>"));
    assets.retain(|a| a != "/docs/terminal");
    assert!(assets.len() >= 3, "{assets:?}");
    assert!(!html.contains("<script>"), "no inline script");
    for a in &assets {
        assert!(a.starts_with("/docs/assets/"), "{a}");
        let r = p.get(a).send();
        assert_eq!(r.status, 200, "{a}: {}", r.text());
        assert!(r.body.len() > 100, "{a}");
        let name = a.split('?').next().unwrap();
        let ct = r.header("content-type").unwrap();
        if name.ends_with(".js") {
            assert!(ct.starts_with("text/javascript"), "{a}: {ct}");
        } else if name.ends_with(".css") {
            assert!(ct.starts_with("text/css"), "{a}: {ct}");
        } else {
            panic!("unexpected asset {a}");
        }
        let cache = r.header("cache-control").unwrap();
        assert!(
            cache.contains("max-age=") && cache.contains("public"),
            "{a}: {cache}"
        );
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    }
    assert!(assets.iter().any(|a| a.contains("swagger-ui-bundle.js")));
    assert!(assets.iter().any(|a| a.contains("swagger-ui.css")));

    // The page loads the document, which is served.
    assert_eq!(attrs(&html, "data-document"), vec!["/api/openapi.json"]);
    assert_eq!(document(&p)["openapi"], "3.1.0");
    // The starter script reads that attribute.
    let init = p.get("/docs/assets/init.js").send().text();
    assert!(init.contains("data-document"));

    // Unknown assets answer the error body; the page itself is not cached.
    assert_eq!(p.get("/docs/assets/nope.js").send().error(404), "NOT_FOUND");
    assert_eq!(r.header("cache-control"), Some("no-store"));
}

/// A validator of the request body `method path` takes, as the reference states it (its
/// references resolved against the document's components).
fn body_schema(doc: &Value, path: &str, method: &str) -> jsonschema::Validator {
    let mut schema =
        doc["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"].clone();
    schema["components"] = doc["components"].clone();
    jsonschema::validator_for(&schema).unwrap()
}

/// A validator of the query parameter `name` of `method path`, as the reference states it.
fn param_schema(doc: &Value, path: &str, method: &str, name: &str) -> jsonschema::Validator {
    let p = doc["paths"][path][method]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{method} {path} has no parameter {name}"));
    jsonschema::validator_for(&p["schema"]).unwrap()
}

/// Each place an outside fuzzer found the plane and its reference apart, on a plane that takes
/// only `https://` push endpoints on the public internet: what the plane refuses, the reference
/// refuses (or names as an error of the credential), what it takes, the reference takes, and a
/// refusal changes nothing.
#[test]
fn the_plane_enforces_what_its_reference_states_and_the_reference_states_what_it_enforces() {
    let p = Plane::start_with(Opts {
        public_push_only: true,
        https_push_only: true,
        ..Opts::default()
    });
    let admin = p.setup_admin();
    let (_, key) = p.system_key(&admin);
    let doc = document(&p);

    // An integer above its stated maximum.
    let r = p.call(
        &admin,
        "POST",
        "/api/channels",
        Some(json!({ "name": "c" })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let chan = r.json()["id"].as_str().unwrap().to_owned();
    let after = param_schema(&doc, "/api/channels/{id}/entries", "get", "after");
    let entries = |a: &str| {
        p.call(
            &admin,
            "GET",
            &format!("/api/channels/{chan}/entries?after={a}&waitMs=0"),
            None,
        )
    };
    assert!(after.is_valid(&json!(9_007_199_254_740_991_u64)));
    assert_eq!(entries("9007199254740991").status, 200);
    assert!(!after.is_valid(&json!(9_007_199_254_740_992_u64)));
    let r = entries("9007199254740992");
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{}", r.text());
    assert_eq!(r.json()["metadata"]["field"], "after");
    let limit = param_schema(&doc, "/api/channels/{id}/entries", "get", "limit");
    assert!(!limit.is_valid(&json!(201)));
    let r = p.call(
        &admin,
        "GET",
        &format!("/api/channels/{chan}/entries?limit=201"),
        None,
    );
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{}", r.text());

    // A push endpoint: the scheme and the host's spelling are in the schema.
    let device = body_schema(&doc, "/api/devices", "post");
    let point = {
        use base64ct::{Base64UrlUnpadded, Encoding as _};
        use p256::elliptic_curve::sec1::ToSec1Point as _;
        let public = p256::SecretKey::from_slice(&[7; 32]).unwrap().public_key();
        Base64UrlUnpadded::encode_string(public.to_sec1_point(false).as_bytes())
    };
    let keys = json!({ "p256dh": point, "auth": "AAAAAAAAAAAAAAAAAAAAAA" });
    let body = |endpoint: &str| json!({ "name": "phone", "endpoint": endpoint, "keys": keys });
    for endpoint in [
        "http://0",
        "http://push.invalid/x",
        "https://0/x",
        "https://127.1/x",
    ] {
        assert!(
            !device.is_valid(&body(endpoint)),
            "the reference takes {endpoint}"
        );
        let r = p.call(&admin, "POST", "/api/devices", Some(body(endpoint)));
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{endpoint}");
        assert_eq!(r.json()["metadata"]["field"], "endpoint", "{endpoint}");
    }
    assert_eq!(
        p.call(&admin, "GET", "/api/devices", None).json(),
        json!([])
    );
    assert!(device.is_valid(&body("https://push.invalid/x")));
    let r = p.call(
        &admin,
        "POST",
        "/api/devices",
        Some(body("https://push.invalid/x")),
    );
    assert_eq!(r.status, 201, "{}", r.text());

    // A listen address with leading-zero octets.
    let listener = body_schema(&doc, "/api/network", "post");
    let r = p.call(
        &admin,
        "POST",
        "/api/network",
        Some(json!({ "name": "lan", "address": "01.2.3.4:80" })),
    );
    assert!(!listener.is_valid(&json!({ "name": "lan", "address": "01.2.3.4:80" })));
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{}", r.text());
    assert_eq!(r.json()["metadata"]["field"], "address");
    assert_eq!(
        p.call(&admin, "GET", "/api/network", None).json(),
        json!([])
    );
    assert!(listener.is_valid(&json!({ "name": "lan", "address": "127.0.0.1:0" })));
    let r = p.call(
        &admin,
        "POST",
        "/api/network",
        Some(json!({ "name": "lan", "address": "127.0.0.1:0" })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(
        p.call(&admin, "DELETE", &format!("/api/network/{id}"), None)
            .status,
        204
    );

    // A bearer's attach token without a subshell: a well-formed request this credential may not
    // make, refused as such (403), not as an invalid body.
    let mint = body_schema(&doc, "/api/auth/ws-token", "post");
    assert!(mint.is_valid(&json!({})));
    let r = p
        .req()
        .method("POST")
        .path("/api/auth/ws-token")
        .bearer(&key)
        .json(json!({}))
        .send();
    assert_eq!(r.error(403), "PERMISSION_DENIED", "{}", r.text());
    let op = &doc["paths"]["/api/auth/ws-token"]["post"];
    assert!(listed_codes(op, 403).contains(&"PERMISSION_DENIED".to_owned()));
    assert!(
        op["description"]
            .as_str()
            .unwrap()
            .contains("PERMISSION_DENIED")
    );

    // A piece that is not padded base64: refused by the schema and the plane alike, and the
    // upload goes on (nothing was written).
    let r = p.call(
        &admin,
        "POST",
        "/api/files",
        Some(json!({ "name": "h", "size": 5 })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let file = r.json()["fileId"].as_str().unwrap().to_owned();
    for path in [
        "/api/files/{id}/pieces/{index}",
        "/api/uploads/{id}/pieces/{index}",
    ] {
        let piece = body_schema(&doc, path, "put");
        assert!(!piece.is_valid(&json!({ "dataB64": "aGVsbG8" })), "{path}");
        assert!(!piece.is_valid(&json!({ "dataB64": "aGVsbG9=" })), "{path}");
        assert!(piece.is_valid(&json!({ "dataB64": "aGVsbG8=" })), "{path}");
    }
    for bad in ["aGVsbG8", "aGVsbG9="] {
        let r = p.call(
            &admin,
            "PUT",
            &format!("/api/files/{file}/pieces/0"),
            Some(json!({ "dataB64": bad })),
        );
        assert_eq!(
            r.error(400),
            "INPUT_VALIDATION_ERROR",
            "{bad}: {}",
            r.text()
        );
        assert_eq!(r.json()["metadata"]["field"], "dataB64");
    }
    let r = p.call(
        &admin,
        "PUT",
        &format!("/api/files/{file}/pieces/0"),
        Some(json!({ "dataB64": "aGVsbG8=" })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["done"], true);
    let r = p.call(&admin, "GET", &format!("/api/files/{file}/content"), None);
    assert_eq!(r.body, b"hello");

    // A request target over the limit: 414, which every operation documents.
    let r = p.call(
        &admin,
        "GET",
        &format!("/api/channels/{chan}/entries?after={}", "1".repeat(9000)),
        None,
    );
    assert_eq!(r.error(414), "URI_TOO_LONG");
    for (path, method, op) in operations(&doc) {
        assert!(
            listed_codes(&op, 414).contains(&"URI_TOO_LONG".to_owned()),
            "{method} {path} does not document 414"
        );
    }
}

#[test]
fn the_reference_says_what_a_write_share_grants() {
    let p = Plane::start();
    let doc = document(&p);
    let said = doc["paths"]["/api/subshells/{id}/shares/{userId}"]["put"]["description"]
        .as_str()
        .unwrap()
        .to_owned();
    for words in [
        "full control of that pane",
        "TERMPLANE_TOKEN",
        "reading every subshell of the owner",
        "does not take back a token",
    ] {
        assert!(said.contains(words), "{words:?} is not said: {said}");
    }
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(bytes), &mut out).unwrap();
    out
}

/// The reference's heavy parts go gzip-compressed to a client that asks: Swagger UI's script
/// (1.7 MB as it is), its stylesheet, the reference's own files, the OpenAPI document and the
/// terminal page, each with `Content-Encoding: gzip` and `Vary: Accept-Encoding`, and each the
/// same bytes once inflated. A client that does not ask, or refuses gzip, gets them as they are.
#[test]
fn the_reference_is_sent_gzip_compressed_only_to_a_client_that_asks() {
    let p = Plane::start();
    let dist = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/ui/node_modules/swagger-ui-dist"
    );
    let own = concat!(env!("CARGO_MANIFEST_DIR"), "/ui");
    // (address, the file it serves when there is one, most bytes on the wire compressed)
    let cases: [(&str, Option<String>, usize); 6] = [
        (
            "/docs/assets/swagger-ui-bundle.js",
            Some(format!("{dist}/swagger-ui-bundle.js")),
            520 * 1024,
        ),
        (
            "/docs/assets/swagger-ui.css",
            Some(format!("{dist}/swagger-ui.css")),
            36 * 1024,
        ),
        (
            "/docs/assets/init.js",
            Some(format!("{own}/init.js")),
            2 * 1024,
        ),
        (
            "/docs/assets/reference.css",
            Some(format!("{own}/reference.css")),
            4 * 1024,
        ),
        ("/api/openapi.json", None, 64 * 1024),
        ("/docs/terminal", None, 12 * 1024),
    ];
    for (path, file, most) in cases {
        let plain = p.get(path).send();
        assert_eq!(plain.status, 200, "{path}");
        assert_eq!(plain.header("content-encoding"), None, "{path}");
        assert_eq!(plain.header("vary"), Some("accept-encoding"), "{path}");
        if let Some(f) = &file {
            assert_eq!(plain.body, std::fs::read(f).unwrap(), "{path}");
        }
        let zipped = p.get(path).header("Accept-Encoding", "gzip, br").send();
        assert_eq!(zipped.status, 200, "{path}");
        assert_eq!(zipped.header("content-encoding"), Some("gzip"), "{path}");
        assert_eq!(zipped.header("vary"), Some("accept-encoding"), "{path}");
        assert_eq!(
            zipped.header("content-type"),
            plain.header("content-type"),
            "{path}"
        );
        assert!(
            zipped.body.len() <= most && zipped.body.len() < plain.body.len() / 2,
            "{path}: {} bytes on the wire compressed, {} as it is",
            zipped.body.len(),
            plain.body.len()
        );
        assert_eq!(gunzip(&zipped.body), plain.body, "{path}");
        let refused = p
            .get(path)
            .header("Accept-Encoding", "gzip;q=0, identity")
            .send();
        assert_eq!(refused.header("content-encoding"), None, "{path}");
        assert_eq!(refused.body, plain.body, "{path}");
    }
    // The document is made once: every answer is the same bytes, and it is still the document.
    let again = p
        .get("/api/openapi.json")
        .header("Accept-Encoding", "gzip")
        .send();
    let doc: Value = serde_json::from_slice(&gunzip(&again.body)).unwrap();
    assert_eq!(doc, document(&p));
    assert_eq!(doc["openapi"], "3.1.0");
}
