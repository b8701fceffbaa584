//! JSON bodies against their schemas: strict decoding into the request type, then the check of
//! the decoded document against the type's published JSON Schema (see `docs/design-notes.md`),
//! and the integer bounds every published schema states.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::error::ApiError;

/// Turns a serde error at `path` into the spec's validation error: `metadata.field` names the
/// top-level field, `metadata.path` the full path when it is deeper.
pub(crate) fn validation_error(path: &str, message: &str) -> ApiError {
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
    // An unknown field's path already ends with its name; a missing one's is the parent's.
    let at_key = message.starts_with("unknown field `");
    let full = match (path, named) {
        ("." | "", Some(n)) => n.to_owned(),
        (p, Some(n)) if at_key && (p == n || p.ends_with(&format!(".{n}"))) => p.to_owned(),
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
    let message = json_words(message);
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

/// serde's words for what it expected, said in JSON's terms: a client reads the reference's
/// schemas, not our Rust types (`expected u16` becomes `expected an integer from 0 to 65535`,
/// `expected struct LaunchRequest` `expected an object`).
fn json_words(message: &str) -> String {
    let Some(i) = message.rfind("expected ") else {
        return message.to_owned();
    };
    let (head, what) = message.split_at(i + "expected ".len());
    let integer = INTEGER_BOUNDS
        .iter()
        .find(|(format, _, _)| {
            let rust = format
                .strip_prefix("uint")
                .map(|bits| format!("u{bits}"))
                .or_else(|| format.strip_prefix("int").map(|bits| format!("i{bits}")));
            rust.is_some_and(|r| r == what)
                || (what == "usize" && *format == "uint64")
                || (what == "isize" && *format == "int64")
        })
        .map(|(_, lo, hi)| format!("an integer from {lo} to {hi}"));
    let plain = match what {
        _ if integer.is_some() => integer,
        _ if what.starts_with("struct ") || what == "a map" => Some("an object".to_owned()),
        "a sequence" | "a tuple" => Some("an array".to_owned()),
        "f32" | "f64" => Some("a number".to_owned()),
        _ => None,
    };
    match plain {
        Some(p) => format!("{head}{p}"),
        None => message.to_owned(),
    }
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
    let decoded = match serde_path_to_error::deserialize(value.clone()) {
        Ok(d) => d,
        Err(e) => {
            // A document of the wrong kind altogether (an array where the route takes an
            // object) is said as such, not as the first field serde tried to read from it.
            root_kind::<T>(&value)?;
            let path = e.path().to_string();
            // Where serde lost the field's path (inside a tagged enum) the schema says it.
            if path == "."
                && let Some((pointer, message)) = precise_schema_error::<T>(&value)
                && pointer.len() > 1
            {
                return Err(schema_error(&pointer, &message));
            }
            return Err(validation_error(&path, &e.into_inner().to_string()));
        }
    };
    schema_gate::<T>(&value)?;
    Ok(decoded)
}

/// The JSON Schema of `T` (request contract) as the reference states it, with its compiled
/// validator, built once per type.
struct Contract {
    schema: Value,
    validator: jsonschema::Validator,
}

/// The compiled JSON Schema of `T` (request contract), built once per type.
fn validator_for<T: JsonSchema + 'static>() -> Result<Arc<Contract>, ApiError> {
    type Cache = Mutex<HashMap<TypeId, Arc<Contract>>>;
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
    bound_integers(&mut schema);
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        // `format` stays an annotation, as JSON Schema 2020-12 has it by default: the field types
        // (`Email`) hold the rules, including normalisation a format check would refuse first.
        .should_validate_formats(false)
        .build(&schema)
        .map_err(|e| {
            tracing::error!(error = %e, "a request schema does not compile");
            ApiError::internal()
        })?;
    let v = Arc::new(Contract { schema, validator });
    cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(id, v.clone());
    Ok(v)
}

/// Refuses a document whose own kind (object, array, string…) is not the one `T`'s schema
/// takes.
fn root_kind<T: JsonSchema + 'static>(value: &Value) -> Result<(), ApiError> {
    let contract = validator_for::<T>()?;
    let wrong = contract.validator.iter_errors(value).find(|e| {
        e.instance_path().as_str().is_empty()
            && matches!(
                e.kind(),
                jsonschema::error::ValidationErrorKind::Type { .. }
            )
    });
    let Some(e) = wrong else {
        return Ok(());
    };
    let found = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    let wanted = match e.kind() {
        jsonschema::error::ValidationErrorKind::Type { kind } => kind_words(kind),
        _ => String::new(),
    };
    Err(ApiError::validation(
        "body",
        format!("the body must be {wanted}, not {found}"),
    ))
}

fn kind_words(kind: &jsonschema::error::TypeKind) -> String {
    use jsonschema::JsonType;
    let one = |t: &JsonType| match t {
        JsonType::Array => "an array",
        JsonType::Boolean => "a boolean",
        JsonType::Integer => "an integer",
        JsonType::Null => "null",
        JsonType::Number => "a number",
        JsonType::Object => "a JSON object",
        JsonType::String => "a string",
    };
    match kind {
        jsonschema::error::TypeKind::Single(t) => one(t).to_owned(),
        jsonschema::error::TypeKind::Multiple(ts) => {
            ts.iter().map(|t| one(&t)).collect::<Vec<_>>().join(" or ")
        }
    }
}

/// Refuses a decoded document that its type's published schema does not describe.
fn schema_gate<T: JsonSchema + 'static>(value: &Value) -> Result<(), ApiError> {
    let contract = validator_for::<T>()?;
    let Err(e) = contract.validator.validate(value) else {
        return Ok(());
    };
    let (pointer, message) = precise(&e);
    Err(schema_error(&pointer, &message))
}

/// Checks a query string that decoded into `T` against `T`'s published schema, so every rule
/// the reference states of a parameter (`maximum`, `minimum`, `pattern`…) holds for a query as
/// it does for a body. Each parameter's text is read as the JSON value its property's type
/// names: digits as a number where an integer is taken, `true` and `false` where a boolean is,
/// text otherwise.
pub(crate) fn query_gate<T: JsonSchema + 'static>(
    pairs: &[(String, String)],
) -> Result<(), ApiError> {
    let contract = validator_for::<T>()?;
    let mut doc = serde_json::Map::new();
    for (name, text) in pairs {
        let property = &contract.schema["properties"][name];
        let property = match property["$ref"].as_str() {
            Some(r) => r
                .strip_prefix("#/$defs/")
                .map_or(&Value::Null, |def| &contract.schema["$defs"][def]),
            None => property,
        };
        let takes = |kind: &str| match &property["type"] {
            Value::String(t) => t == kind,
            Value::Array(ts) => ts.iter().any(|t| t == kind),
            _ => false,
        };
        let value = if takes("integer") || takes("number") {
            text.parse::<u64>()
                .map(Value::from)
                .or_else(|_| text.parse::<i64>().map(Value::from))
                .unwrap_or_else(|_| Value::String(text.clone()))
        } else if takes("boolean") && (text == "true" || text == "false") {
            Value::Bool(text == "true")
        } else {
            Value::String(text.clone())
        };
        doc.insert(name.clone(), value);
    }
    schema_gate::<T>(&Value::Object(doc))
}

/// The error the published schema finds in `value`, as precisely as it can say where: inside a
/// `oneOf` (a tagged enum) it is the error of the one branch whose tag matched.
///
/// Serde reads such an enum's fields from a buffer of the whole object, and the path of a field
/// read there is lost (`field: body`); the schema still knows it.
fn precise_schema_error<T: JsonSchema + 'static>(value: &Value) -> Option<(String, String)> {
    let contract = validator_for::<T>().ok()?;
    let e = contract.validator.iter_errors(value).next()?;
    Some(precise(&e))
}

/// An error's JSON pointer and message (`masked`: the value is left out, it may be a password),
/// descending into the branch of a `oneOf` or `anyOf` whose tag matched.
fn precise(e: &jsonschema::ValidationError<'_>) -> (String, String) {
    use jsonschema::error::ValidationErrorKind as K;
    let here = e.instance_path().to_string();
    if let K::OneOfNotValid { context } | K::AnyOf { context } = e.kind() {
        // A branch whose tag is not the document's fails on a `const` (or one-value `enum`)
        // one level down; the branch left is the variant the document names.
        let is_tag_miss = |b: &jsonschema::ValidationError<'_>| {
            matches!(b.kind(), K::Constant { .. } | K::Enum { .. })
                && b.instance_path()
                    .to_string()
                    .strip_prefix(here.as_str())
                    .is_some_and(|rest| rest.matches('/').count() == 1)
        };
        let mut named = context
            .iter()
            .filter(|branch| !branch.iter().any(is_tag_miss));
        if let (Some(branch), None) = (named.next(), named.next())
            && let Some(inner) = branch.first()
        {
            return precise(inner);
        }
    }
    (here, e.masked().to_string())
}

/// The error body for a schema error at JSON pointer `pointer`.
fn schema_error(pointer: &str, message: &str) -> ApiError {
    let segments: Vec<&str> = pointer.split('/').skip(1).collect();
    let top = segments.first().copied().unwrap_or("body").to_owned();
    let mut meta = json!({ "field": top });
    if segments.len() > 1 {
        meta["path"] = Value::String(segments.join("."));
    }
    ApiError::new(400, "INPUT_VALIDATION_ERROR", format!("`{top}`: {message}")).with_metadata(meta)
}

/// Decodes a client's text frame on a WebSocket (terminal, live feed): serde's reading first,
/// and only when that fails, again with numbers of zero fraction read as integers (`80.0`), as
/// for request bodies.
pub(crate) fn decode_frame<T: DeserializeOwned>(text: &str) -> Option<T> {
    if let Ok(f) = serde_json::from_str(text) {
        return Some(f);
    }
    let mut v: Value = serde_json::from_str(text).ok()?;
    integral_numbers(&mut v);
    serde_json::from_value(v).ok()
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

/// The range of each integer format the Rust types use. Schemars names the format; the bounds
/// are stated too, so a client (or a fuzzer) knows that `uint32` stops at 4,294,967,295.
const INTEGER_BOUNDS: &[(&str, i128, i128)] = &[
    ("uint8", 0, u8::MAX as i128),
    ("uint16", 0, u16::MAX as i128),
    ("uint32", 0, u32::MAX as i128),
    ("uint64", 0, u64::MAX as i128),
    ("uint", 0, u64::MAX as i128),
    ("int8", i8::MIN as i128, i8::MAX as i128),
    ("int16", i16::MIN as i128, i16::MAX as i128),
    ("int32", i32::MIN as i128, i32::MAX as i128),
    ("int64", i64::MIN as i128, i64::MAX as i128),
    ("int", i64::MIN as i128, i64::MAX as i128),
];

/// Adds the bounds of [`INTEGER_BOUNDS`] to every integer schema that names a format and
/// leaves a bound unstated.
pub(crate) fn bound_integers(v: &mut Value) {
    match v {
        Value::Object(o) => {
            let format = o.get("format").and_then(Value::as_str).map(str::to_owned);
            if o.get("type").and_then(Value::as_str) == Some("integer")
                && let Some((_, lo, hi)) = format
                    .as_deref()
                    .and_then(|f| INTEGER_BOUNDS.iter().find(|(n, _, _)| *n == f))
            {
                let num = |n: i128| {
                    u64::try_from(n)
                        .map(Value::from)
                        .or_else(|_| i64::try_from(n).map(Value::from))
                        .unwrap_or(Value::Null)
                };
                o.entry("minimum").or_insert_with(|| num(*lo));
                o.entry("maximum").or_insert_with(|| num(*hi));
            }
            o.values_mut().for_each(bound_integers);
        }
        Value::Array(a) => a.iter_mut().for_each(bound_integers),
        _ => {}
    }
}

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

    #[test]
    fn a_field_inside_a_tagged_command_keeps_its_path() {
        use crate::api::nodes::NodeCommandRequest;
        let id = "0123456789abcdef0123456789abcdef";
        let cases = [
            (
                format!(
                    r#"{{"type":"tail_start","subshellId":"{id}","subId":"s","fromByte":"x"}}"#
                ),
                "fromByte",
                None,
                "integer",
            ),
            (
                format!(
                    r#"{{"type":"launch","subshellId":"{id}","argv":["a"],"cwd":"/","harnessId":"h",
                        "cols":80,"rows":24,"resolve":{{"binaryName":"a","knownPaths":[1]}}}}"#
                ),
                "resolve",
                Some("resolve.knownPaths.0"),
                "string",
            ),
            (
                format!(
                    r#"{{"type":"launch","subshellId":"{id}","argv":["a"],"cwd":"/","harnessId":"h",
                        "cols":80,"rows":24,"resolve":{{"binaryName":"a","bogus":1}}}}"#
                ),
                "resolve",
                None,
                "'bogus' was unexpected",
            ),
        ];
        for (body, field, path, says) in cases {
            let e = decode_json::<NodeCommandRequest>(body.as_bytes()).unwrap_err();
            let m = e.metadata.clone().unwrap();
            assert_eq!(m["field"], field, "{body}: {}", e.message);
            assert!(e.message.contains(says), "{body}: {}", e.message);
            if let Some(p) = path {
                assert_eq!(m["path"], p, "{body}: {}", e.message);
            }
        }
    }

    #[test]
    fn an_unknown_field_is_named_once_and_a_missing_one_under_its_parent() {
        let top = decode_json::<crate::api::subshells::LaunchRequest>(
            br#"{"nodeId":"0123456789abcdef0123456789abcdef","harnessId":"shell","bogus":1}"#,
        )
        .unwrap_err();
        assert!(
            top.message.starts_with("`bogus`: unknown field"),
            "{}",
            top.message
        );
        let m = top.metadata.unwrap();
        assert_eq!(m["field"], "bogus");
        assert!(m.get("path").is_none(), "{m}");
        let nested = decode_json::<crate::api::subshells::LaunchRequest>(
            br#"{"nodeId":"0123456789abcdef0123456789abcdef","harnessId":"shell","permissions":{"x":1}}"#,
        )
        .unwrap_err();
        let m = nested.metadata.unwrap();
        assert_eq!(
            (m["field"].as_str(), m["path"].as_str()),
            (Some("permissions"), Some("permissions.x"))
        );
        // serde reports a missing field at its parent's path.
        let missing = validation_error("rules[0]", "missing field `resolve`");
        let m = missing.metadata.unwrap();
        assert_eq!(
            (m["field"].as_str(), m["path"].as_str()),
            (Some("rules"), Some("rules[0].resolve"))
        );
    }

    #[test]
    fn a_body_of_the_wrong_kind_is_said_so_in_json_terms() {
        for (body, found) in [
            (&b"[]"[..], "an array"),
            (b"[1,2,3,4,5,6,7,8,9,10,11]", "an array"),
            (b"\"text\"", "a string"),
            (b"7", "a number"),
            (b"null", "null"),
        ] {
            let e = decode_json::<crate::api::subshells::LaunchRequest>(body).unwrap_err();
            assert_eq!(
                e.message,
                format!("the body must be a JSON object, not {found}")
            );
            assert_eq!(e.metadata.unwrap()["field"], "body");
        }
        // Rust's names for what serde expected do not reach the client.
        let e = decode_json::<crate::api::subshells::LaunchRequest>(
            br#"{"nodeId":"0123456789abcdef0123456789abcdef","harnessId":"shell","cols":"wide"}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "`cols`: invalid type: string \"wide\", expected an integer from 0 to 65535"
        );
        assert_eq!(
            json_words("invalid length 0, expected struct X with 2 elements"),
            "invalid length 0, expected an object"
        );
        assert_eq!(
            json_words("invalid type: map, expected a sequence"),
            "invalid type: map, expected an array"
        );
        assert_eq!(
            json_words("invalid value: integer `-1`, expected i8"),
            "invalid value: integer `-1`, expected an integer from -128 to 127"
        );
        assert_eq!(
            json_words("must be an absolute path"),
            "must be an absolute path"
        );
    }

    #[test]
    fn integer_schemas_state_their_bounds() {
        let mut v = json!({"a": {"type": "integer", "format": "uint32", "minimum": 0}, "b": [{"type": "integer", "format": "int64"}]});
        bound_integers(&mut v);
        assert_eq!(v["a"]["maximum"], json!(4_294_967_295_u64));
        assert_eq!(v["b"][0]["minimum"], json!(i64::MIN));
        assert_eq!(v["b"][0]["maximum"], json!(i64::MAX));
    }
}
