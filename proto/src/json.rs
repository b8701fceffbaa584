//! Strict JSON decoding shared by every inbound frame.
//!
//! serde's derived structs already refuse a duplicated field, but maps, `serde_json::Value` and
//! flattened or tagged shapes keep the last duplicate silently. Every inbound document therefore
//! first passes [`check_no_duplicate_keys`], which walks the whole document and refuses any object
//! that names a key twice, at any depth. Only then is it decoded into its type.

use std::collections::BTreeSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Deepest nesting accepted in an inbound document (serde_json's own limit is 128).
pub const MAX_JSON_DEPTH: usize = 64;

/// Refuses a JSON document in which some object repeats a key, or that nests deeper than
/// [`MAX_JSON_DEPTH`], or that is not JSON at all.
pub fn check_no_duplicate_keys(text: &str) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    Walk { depth: 0 }.deserialize(&mut de)?;
    de.end()
}

/// Decodes `text` into `T` after [`check_no_duplicate_keys`].
pub fn from_str_strict<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    check_no_duplicate_keys(text)?;
    serde_json::from_str(text)
}

#[derive(Clone, Copy)]
struct Walk {
    depth: usize,
}

impl Walk {
    fn deeper<E: de::Error>(self) -> Result<Self, E> {
        if self.depth >= MAX_JSON_DEPTH {
            return Err(E::custom("JSON nested too deeply"));
        }
        Ok(Self {
            depth: self.depth + 1,
        })
    }
}

impl<'de> DeserializeSeed<'de> for Walk {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = self.deeper()?;
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let inner = self.deeper()?;
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if !seen.insert(key.clone().into_owned()) {
                return Err(de::Error::custom(format_args!("duplicate key {key:?}")));
            }
            map.next_value_seed(inner)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        assert!(check_no_duplicate_keys(r#"{"a":1,"b":2}"#).is_ok());
        assert!(check_no_duplicate_keys(r#"{"a":1,"a":2}"#).is_err());
        assert!(check_no_duplicate_keys(r#"{"x":{"a":1,"a":1}}"#).is_err());
        assert!(check_no_duplicate_keys(r#"[{"a":1},{"a":1,"b":[{"c":1,"c":2}]}]"#).is_err());
        // Escaped spellings of the same key are the same key.
        assert!(check_no_duplicate_keys(r#"{"a":1,"\u0061":2}"#).is_err());
    }

    #[test]
    fn trailing_garbage_and_deep_nesting_are_refused() {
        assert!(check_no_duplicate_keys(r#"{"a":1} x"#).is_err());
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(check_no_duplicate_keys(&deep).is_err());
        let ok = format!("{}{}", "[".repeat(60), "]".repeat(60));
        assert!(check_no_duplicate_keys(&ok).is_ok());
    }
}
