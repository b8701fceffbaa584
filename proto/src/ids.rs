//! Identifiers that reach node-side paths and the multiplexer, validated at parse time.

use core::fmt;

use serde::{Deserialize, Serialize};

use crate::limits::SUBSHELL_ID_MAX_CHARS;

/// A subshell id: 1 to 64 characters, each a lowercase or uppercase hex digit or a hyphen.
///
/// The rule keeps ids safe to place in file names and multiplexer session names: no dot, slash,
/// colon, `#`, `$`, `;`, whitespace or control character can ever appear.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SubshellId(String);

/// Why a subshell id was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid subshell id: hex digits and '-' only, 1 to {SUBSHELL_ID_MAX_CHARS} characters")]
pub struct SubshellIdError;

impl SubshellId {
    /// Validates `s` against the subshell-id rule.
    pub fn parse(s: &str) -> Result<Self, SubshellIdError> {
        if is_valid_subshell_id(s) {
            Ok(Self(s.to_owned()))
        } else {
            Err(SubshellIdError)
        }
    }

    /// The id as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The subshell-id rule: hex and hyphen only, 1 to 64 characters.
#[must_use]
pub fn is_valid_subshell_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= SUBSHELL_ID_MAX_CHARS
        && s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

impl TryFrom<String> for SubshellId {
    type Error = SubshellIdError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        if is_valid_subshell_id(&s) {
            Ok(Self(s))
        } else {
            Err(SubshellIdError)
        }
    }
}

impl From<SubshellId> for String {
    fn from(id: SubshellId) -> Self {
        id.0
    }
}

impl fmt::Display for SubshellId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for SubshellId {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SubshellId".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": format!("^[0-9A-Fa-f-]{{1,{SUBSHELL_ID_MAX_CHARS}}}$"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_hyphen_up_to_64_are_subshell_ids() {
        for ok in ["a", "0123456789abcdef", "ABCDEF-0123", "-", &"f".repeat(64)] {
            assert!(SubshellId::parse(ok).is_ok(), "{ok:?} refused");
        }
    }

    #[test]
    fn anything_else_is_refused() {
        let long = "a".repeat(65);
        for bad in [
            "", "g", "../x", "a/b", "a.b", "a b", "a;b", "%1", "$(id)", "#(id)", "a\n", "a\0",
            "ａ", &long,
        ] {
            assert!(SubshellId::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn subshell_ids_are_checked_when_deserialized() {
        let ok: Result<SubshellId, _> = serde_json::from_str("\"ab-12\"");
        assert!(ok.is_ok());
        let bad: Result<SubshellId, _> = serde_json::from_str("\"../etc\"");
        assert!(bad.is_err());
    }
}
