//! The REST API's types: every request body, query string, path parameter and answer of the API
//! is a Rust type here, one module per domain (the same split as [`crate::service`] and
//! [`crate::store`]).
//!
//! One definition parses, validates and documents:
//!
//! * **parse** — serde decodes the JSON body (or the query string, or the path parameters) into
//!   the type; every request type refuses unknown fields (`deny_unknown_fields`) and serde's
//!   derive refuses duplicate keys;
//! * **validate** — the constrained field types below ([`Text`], [`Email`], [`AbsPath`],
//!   [`Key32Text`], [`RowId`], …) check their rule *while* they are decoded, so a value of a
//!   request type is valid by construction; serde's error, with the path of the failing field,
//!   becomes the spec's 400 `INPUT_VALIDATION_ERROR` with `metadata.field`, its message in
//!   JSON's words (`expected an integer from 0 to 65535`, never a Rust type's name), and a body
//!   of the wrong kind (an array where an object is taken) is said to be one. A body is read as
//!   JSON whatever its `Content-Type` says (`curl -d` sends a form type): what would make that
//!   dangerous, a browser's cross-site request riding the session cookie, is refused by the
//!   Origin check of every cookie-authenticated write;
//! * **document** — each type derives (or, for the constrained types, implements) `JsonSchema`
//!   from the same constants its validation uses, and the OpenAPI document
//!   (`/api/openapi.json`) is generated from these schemas by the route list.
//!
//! A rule that JSON Schema cannot state (a JWK's point lies on P-256, an X25519 key is not of low
//! order, a setup key exists) is checked by the service after the request's credential, and
//! answers the same 400 with the field named.
//!
//! Text fields share one character rule ([`FORBIDDEN_CHARS`]): no control characters (C0, DEL,
//! C1), no zero-width space, word joiner or invisible operators, no bidirectional controls (LRM,
//! RLM, embeddings, overrides, isolates) and no byte-order mark — the characters that make two
//! different strings look the same or reorder what a reader sees.

pub mod accounts;
pub mod admin;
pub mod audit;
pub mod catalog;
pub mod channels;
pub mod credentials;
pub mod enrollment;
pub mod files;
pub mod install;
pub mod network;
pub mod nodes;
pub mod notifications;
pub mod passkeys;
pub mod subshells;
pub mod terminals;
pub mod uploads;

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

/// Character ranges refused in every text field (inclusive).
pub const FORBIDDEN_CHARS: &[(char, char)] = &[
    ('\u{0000}', '\u{001f}'),
    ('\u{007f}', '\u{009f}'),
    ('\u{200b}', '\u{200b}'),
    ('\u{200e}', '\u{200f}'),
    ('\u{202a}', '\u{202e}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{2069}'),
    ('\u{feff}', '\u{feff}'),
];

/// Whether `c` is refused in text fields.
#[must_use]
pub fn is_forbidden_char(c: char) -> bool {
    FORBIDDEN_CHARS
        .iter()
        .any(|(lo, hi)| (*lo..=*hi).contains(&c))
}

/// The character class of [`FORBIDDEN_CHARS`] as a regular-expression fragment (`\uXXXX`
/// escapes, valid in ECMA-262 and in Python's `re`), without the brackets.
pub(crate) fn forbidden_class() -> String {
    let mut s = String::new();
    for (lo, hi) in FORBIDDEN_CHARS {
        s.push_str(&format!("\\u{:04x}", u32::from(*lo)));
        if lo != hi {
            s.push_str(&format!("-\\u{:04x}", u32::from(*hi)));
        }
    }
    s
}

/// The `pattern` of every text field: no character of [`FORBIDDEN_CHARS`].
#[must_use]
pub fn text_pattern() -> String {
    format!("^[^{}]*$", forbidden_class())
}

fn check_chars(s: &str) -> Result<(), &'static str> {
    if s.chars().any(is_forbidden_char) {
        Err("must not contain control, invisible or bidirectional-control characters")
    } else {
        Ok(())
    }
}

fn length_message(min: usize, max: usize) -> String {
    if min == max {
        format!("must be exactly {min} characters")
    } else {
        format!("must be {min} to {max} characters")
    }
}

// ----- Text and Name -----

/// A string of `MIN` to `MAX` characters (Unicode scalar values, as JSON Schema counts them)
/// with none of [`FORBIDDEN_CHARS`]; unless `BLANK_OK`, more than white space. Used through
/// its two names, [`Text`] and [`Name`].
#[derive(Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Bounded<const MIN: usize, const MAX: usize, const BLANK_OK: bool>(String);

/// A string of `MIN` to `MAX` characters with none of [`FORBIDDEN_CHARS`].
pub type Text<const MIN: usize, const MAX: usize> = Bounded<MIN, MAX, true>;

/// A name: a [`Text`] that is more than white space (a name of blanks shows as nothing: an
/// empty link, a blank row, an option no one can read).
pub type Name<const MIN: usize, const MAX: usize> = Bounded<MIN, MAX, false>;

impl<const MIN: usize, const MAX: usize, const BLANK_OK: bool> Bounded<MIN, MAX, BLANK_OK> {
    /// Validates `s`.
    pub fn new(s: impl Into<String>) -> Result<Self, String> {
        let s = s.into();
        let n = s.chars().count();
        if n < MIN || n > MAX {
            return Err(length_message(MIN, MAX));
        }
        check_chars(&s)?;
        if !BLANK_OK && s.chars().all(char::is_whitespace) {
            return Err("must not be blank".into());
        }
        Ok(Self(s))
    }

    /// The text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    #[must_use]
    pub fn into_string(self) -> String {
        self.0
    }
}

impl<const MIN: usize, const MAX: usize, const BLANK_OK: bool> fmt::Debug
    for Bounded<MIN, MAX, BLANK_OK>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl<'de, const MIN: usize, const MAX: usize, const BLANK_OK: bool> Deserialize<'de>
    for Bounded<MIN, MAX, BLANK_OK>
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::new(s).map_err(de::Error::custom)
    }
}

impl<const MIN: usize, const MAX: usize, const BLANK_OK: bool> JsonSchema
    for Bounded<MIN, MAX, BLANK_OK>
{
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        let kind = if BLANK_OK { "Text" } else { "Name" };
        format!("{kind}{MIN}to{MAX}").into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        if BLANK_OK {
            json_schema!({
                "type": "string",
                "minLength": MIN,
                "maxLength": MAX,
                "pattern": text_pattern(),
            })
        } else {
            json_schema!({
                "type": "string",
                "minLength": MIN,
                "maxLength": MAX,
                "pattern": text_pattern(),
                "not": { "type": "string", "pattern": "^\\s*$" },
                "description": "Not blank (more than white space)."
            })
        }
    }
}

/// A password as set (`8` to `1024` characters).
pub type NewPassword = Text<8, 1024>;
/// A password as presented at sign-in (`1` to `1024` characters: the policy is not revealed).
pub type Password = Text<1, 1024>;
/// A person's or a key's display name.
pub type DisplayName = Name<1, 100>;

// ----- Email -----

/// Longest email address accepted (RFC 5321's path limit).
pub const EMAIL_MAX_CHARS: usize = 254;

/// An email address in its one stored spelling.
///
/// Normalisation, in order: characters of [`FORBIDDEN_CHARS`] (zero-width, bidirectional
/// controls…) are refused; the text is put in Unicode NFKC form (so fullwidth `ａｄｍｉｎ` is
/// `admin`, the Kelvin sign is `k`); surrounding ASCII whitespace is trimmed; what remains must be
/// ASCII — an internationalised domain is accepted in its `xn--` form, a non-ASCII local part
/// (and with it every confusable letter such as the dotless `ı`) is refused — and is
/// lower-cased. The result must be `local@domain`: a local part of 1 to 64 characters of RFC 5322
/// `atext` with single interior dots, a domain of dot-separated labels of 1 to 63 letters, digits
/// and interior hyphens. Two addresses that differ only in ways removed here are one account.
#[derive(Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    /// Normalises and validates `raw`.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let n = raw.chars().count();
        if !(3..=EMAIL_MAX_CHARS).contains(&n) {
            return Err(length_message(3, EMAIL_MAX_CHARS));
        }
        check_chars(raw)?;
        let normal: String = raw.nfkc().collect();
        let normal = normal.trim_matches(|c: char| c.is_ascii_whitespace());
        if !normal.is_ascii() {
            return Err(
                "must be an ASCII email address (an internationalised domain in its \
                        xn-- form; no non-ASCII or look-alike letters)"
                    .to_owned(),
            );
        }
        let e = normal.to_ascii_lowercase();
        let bad = || "must be an email address (local@domain)".to_owned();
        let (local, domain) = e.split_once('@').ok_or_else(bad)?;
        let atext = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+/=?^_`{|}~-".contains(&b);
        let local_ok = (1..=64).contains(&local.len())
            && local
                .split('.')
                .all(|part| !part.is_empty() && part.bytes().all(atext));
        let domain_ok = (1..=253).contains(&domain.len())
            && domain.split('.').all(|label| {
                (1..=63).contains(&label.len())
                    && !label.starts_with('-')
                    && !label.ends_with('-')
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            });
        if !local_ok || !domain_ok || e.len() > EMAIL_MAX_CHARS {
            return Err(bad());
        }
        Ok(Self(e))
    }

    /// The normalised address.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl<'de> Deserialize<'de> for Email {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(de::Error::custom)
    }
}

impl JsonSchema for Email {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Email".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "format": "email",
            "minLength": 3,
            "maxLength": EMAIL_MAX_CHARS,
            "description": "An email address. Stored normalised: Unicode NFKC, trimmed, lower-case; it must then be ASCII (internationalised domains in their xn-- form). Invisible and bidirectional-control characters are refused.",
        })
    }
}

// ----- identifiers and keys -----

/// A row id as the plane mints them: 32 lowercase hex digits (128 random bits).
///
/// As a path parameter, a value of any other shape can name no row: it answers 404
/// `NOT_FOUND`, like an id of the right shape that names nothing.
#[derive(Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct RowId(String);

/// The pattern of [`RowId`].
pub const ROW_ID_PATTERN: &str = "^[0-9a-f]{32}$";

impl RowId {
    /// Validates `s`.
    pub fn parse(s: &str) -> Result<Self, String> {
        if s.len() == 32
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            Ok(Self(s.to_owned()))
        } else {
            Err("must be a row id (32 lowercase hex digits)".to_owned())
        }
    }

    /// The id.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for RowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for RowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for RowId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(de::Error::custom)
    }
}

impl JsonSchema for RowId {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "RowId".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "pattern": ROW_ID_PATTERN })
    }
}

/// The path parameters of a route that names one row: `{id}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdParam {
    /// The row's id.
    pub id: RowId,
}

/// The pattern of a canonical unpadded base64url spelling of 32 bytes: 43 characters whose last
/// carries no stray bits (the two low bits of its sextet are zero), so each key has one spelling.
pub const KEY32_PATTERN: &str = "^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$";

/// 32 bytes in their canonical unpadded base64url spelling (an X25519 key, a P-256 coordinate).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key32Text(pub [u8; 32]);

impl Key32Text {
    /// Decodes `s` strictly.
    pub fn parse(s: &str) -> Result<Self, String> {
        termplane_proto::key::Key32::from_b64(s)
            .map(|k| Self(k.0))
            .map_err(|_| "must be 32 bytes of canonical unpadded base64url (43 characters)".into())
    }

    /// The canonical spelling.
    #[must_use]
    pub fn to_b64(&self) -> String {
        termplane_proto::key::Key32(self.0).to_b64()
    }
}

impl fmt::Debug for Key32Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_b64())
    }
}

impl Serialize for Key32Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_b64())
    }
}

impl<'de> Deserialize<'de> for Key32Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(de::Error::custom)
    }
}

impl JsonSchema for Key32Text {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Key32".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "pattern": KEY32_PATTERN,
            "description": "32 bytes, canonical unpadded base64url",
        })
    }
}

// ----- paths -----

/// Longest path accepted (characters). A list of paths at its longest still fits the request
/// body limit, however a client escapes the characters.
pub const PATH_MAX_CHARS: usize = 1024;

/// An absolute path with no `..` segment and none of [`FORBIDDEN_CHARS`], at most
/// [`PATH_MAX_CHARS`] characters long (a path on a node: the node resolves it again under its own policy).
#[derive(Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct AbsPath(String);

impl AbsPath {
    /// Validates `s`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let ok = s.starts_with('/')
            && s.chars().count() <= PATH_MAX_CHARS
            && check_chars(s).is_ok()
            && !s.split('/').any(|seg| seg == "..");
        if ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(format!(
                "must be an absolute path without `..` segments or control characters, \
                 at most {PATH_MAX_CHARS} characters"
            ))
        }
    }

    /// The path.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for AbsPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl<'de> Deserialize<'de> for AbsPath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(de::Error::custom)
    }
}

/// The pattern of [`AbsPath`]: `/`-separated segments, none equal to `..`.
#[must_use]
pub fn abs_path_pattern() -> String {
    let bad = forbidden_class();
    let c = format!("[^/{bad}]");
    let d = format!("[^/.{bad}]");
    format!(r"^(?:/(?:{d}{c}*|\.(?:{d}{c}*)?|\.\.{c}+)?)+$")
}

impl JsonSchema for AbsPath {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "AbsPath".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "maxLength": PATH_MAX_CHARS,
            "pattern": abs_path_pattern(),
            "description": "An absolute path without `..` segments",
        })
    }
}

// ----- network addresses -----

/// A decimal octet, 0 to 255, without a leading zero.
const DEC_OCTET: &str = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";

/// A dotted-decimal IPv4 address: four octets of 0 to 255 without leading zeros. The other
/// spellings a resolver or a URL parser reads as an address (`127.1`, `2130706433`,
/// `0x7f000001`, `0177.0.0.1`) do not match.
#[must_use]
pub fn ipv4_pattern() -> String {
    format!("{DEC_OCTET}(?:\\.{DEC_OCTET}){{3}}")
}

/// An IPv6 address as RFC 3986 writes `IPv6address`: eight groups of one to four hex digits,
/// one run of them shortened to `::`, the last two groups possibly a dotted-decimal IPv4
/// address; no zone.
#[must_use]
pub fn ipv6_pattern() -> String {
    let h = "[0-9A-Fa-f]{1,4}";
    let ls32 = format!("(?:{h}:{h}|{})", ipv4_pattern());
    let before = |n: usize| {
        if n == 0 {
            String::new()
        } else {
            format!("(?:(?:{h}:){{0,{}}}{h})?", n - 1)
        }
    };
    let forms = [
        format!("(?:{h}:){{6}}{ls32}"),
        format!("::(?:{h}:){{5}}{ls32}"),
        format!("(?:{h})?::(?:{h}:){{4}}{ls32}"),
        format!("{}::(?:{h}:){{3}}{ls32}", before(2)),
        format!("{}::(?:{h}:){{2}}{ls32}", before(3)),
        format!("{}::{h}:{ls32}", before(4)),
        format!("{}::{ls32}", before(5)),
        format!("{}::{h}", before(6)),
        format!("{}::", before(7)),
    ];
    format!("(?:{})", forms.join("|"))
}

/// A port, 1 to 65535, in decimal without a leading zero.
pub const PORT_PATTERN: &str =
    "(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})";

/// A DNS host name: labels of 1 to 63 letters, digits and inner hyphens, the last starting
/// with a letter (so no URL parser reads the name as an IPv4 address), a final dot allowed.
pub const HOST_NAME_PATTERN: &str = concat!(
    "(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*",
    "[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.?"
);

/// Whether `value` is valid against `schema` (compiled once into `cell`), with the JSON Schema
/// validator the request gate uses: a constrained type that checks its own pattern this way
/// accepts exactly what its published schema states.
pub(crate) fn schema_accepts(
    cell: &'static std::sync::OnceLock<Option<jsonschema::Validator>>,
    schema: impl FnOnce() -> serde_json::Value,
    value: &str,
) -> bool {
    cell.get_or_init(|| {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema())
            .map_err(|e| tracing::error!(error = %e, "a field schema does not compile"))
            .ok()
    })
    .as_ref()
    .is_some_and(|v| v.is_valid(&serde_json::Value::String(value.to_owned())))
}

/// An empty object (answers and bodies with no fields).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn text_refuses_controls_invisibles_and_bidi_controls_and_counts_characters() {
        type T = Text<1, 3>;
        assert!(T::new("abc").is_ok());
        assert!(T::new("äöü").is_ok(), "three characters, six bytes");
        assert!(T::new("").is_err());
        assert!(T::new("abcd").is_err());
        for bad in [
            "a\0",
            "a\n",
            "a\u{7f}",
            "a\u{85}",
            "a\u{200b}",
            "a\u{202e}",
            "a\u{2066}",
            "\u{feff}a",
        ] {
            assert!(T::new(bad).is_err(), "{bad:?}");
        }
        // Joiners used by scripts and emoji sequences stay allowed.
        assert!(T::new("a\u{200d}b").is_ok());
    }

    #[test]
    fn a_name_is_more_than_white_space() {
        type N = Name<1, 10>;
        assert!(N::new(" Bea ").is_ok());
        for blank in [" ", "   ", "\t", "\u{3000}", "\u{a0}\u{a0}"] {
            assert!(N::new(blank).is_err(), "{blank:?}");
        }
        let v: Result<N, _> = serde_json::from_str("\"   \"");
        assert!(v.unwrap_err().to_string().contains("must not be blank"));
    }

    #[test]
    fn emails_normalise_to_one_spelling() {
        let e = |s: &str| Email::parse(s).map(|e| e.as_str().to_owned());
        assert_eq!(e("Admin@Example.COM").unwrap(), "admin@example.com");
        assert_eq!(e("  admin@example.com ").unwrap(), "admin@example.com");
        assert_eq!(
            e("ａｄｍｉｎ@ｅｘａｍｐｌｅ.ｃｏｍ").unwrap(),
            "admin@example.com",
            "fullwidth letters fold by NFKC"
        );
        assert_eq!(e("\u{212a}im@example.com").unwrap(), "kim@example.com");
        assert!(e("admin\u{200b}@example.com").is_err(), "zero-width space");
        assert!(e("admin@example.com\u{202e}").is_err(), "bidi override");
        assert!(e("adm\u{131}n@example.com").is_err(), "dotless i");
        assert!(e("admin@xn--bcher-kva.example").is_ok(), "IDN in xn-- form");
        for bad in [
            "admin",
            "@example.com",
            "admin@",
            "a@b@c",
            "a..b@c",
            ".a@c",
            "a@-c",
            "a@c-",
            "a b@c",
        ] {
            assert!(e(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_abs_path_pattern_and_the_rule_agree() {
        let re = abs_path_pattern();
        // The pattern is only used by clients; check its shape on the cases the rule decides.
        assert!(re.starts_with("^(?:/"));
        for ok in ["/", "/a", "/a/b/", "//a", "/a/./b", "/...", "/..a", "/a.."] {
            assert!(AbsPath::parse(ok).is_ok(), "{ok}");
        }
        for bad in ["", "a", "/..", "/a/../b", "/a/..", "/a\0", "/a\u{202e}"] {
            assert!(AbsPath::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn key32_has_one_spelling() {
        let k = Key32Text([7; 32]);
        let s = k.to_b64();
        assert_eq!(Key32Text::parse(&s).unwrap(), k);
        assert!(Key32Text::parse(&format!("{s}=")).is_err());
        assert!(Key32Text::parse(&s[..42]).is_err());
        let last = s.chars().last().unwrap();
        assert!("AEIMQUYcgkosw048".contains(last));
    }

    #[test]
    fn row_ids_are_32_lowercase_hex() {
        assert!(RowId::parse(&"a".repeat(32)).is_ok());
        assert!(RowId::parse(&"A".repeat(32)).is_err());
        assert!(RowId::parse(&"a".repeat(31)).is_err());
        assert!(RowId::parse(&"%".repeat(17)).is_err());
    }
}
