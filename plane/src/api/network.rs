//! Network plugins: extra addresses the plane listens on — its address on an overlay network
//! (a Tailscale or WireGuard interface), a LAN address — added and removed at run time by an
//! administrator, started again with the plane. While one listens, its origin is trusted (it is
//! in `GET /api/settings/public`); a listener that cannot bind is refused with the reason and
//! nothing is stored or changed.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::OnceLock;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::accounts::OriginText;
use super::{PORT_PATTERN, ipv4_pattern, ipv6_pattern, schema_accepts};

/// An address to listen on: `ip:port`, the IPv4 address dotted-decimal (octets 0 to 255, no
/// leading zeros), an IPv6 address in brackets (RFC 3986's form, no zone), the port 0 to 65535
/// without leading zeros (0 picks a free one). Its schema states exactly this; what it
/// matches, the operating system's address parser reads as the same address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListenAddress(pub SocketAddr);

impl ListenAddress {
    /// The schema of a listen address.
    #[must_use]
    pub fn schema() -> Value {
        json!({
            "type": "string",
            "pattern": format!(
                "^(?:{}|\\[{}\\]):(?:0|{PORT_PATTERN})$",
                ipv4_pattern(),
                ipv6_pattern()
            ),
            "description": "`ip:port`: a dotted-decimal IPv4 address (octets 0 to 255, no leading zeros) or an IPv6 address in brackets, and a port 0 to 65535 without leading zeros (0 picks a free one).",
        })
    }

    /// Parses `s`.
    pub fn parse(s: &str) -> Result<Self, String> {
        static SCHEMA: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
        let bad = || {
            "must be ip:port: a dotted-decimal IPv4 address (octets 0 to 255, no leading zeros) \
             or an IPv6 address in brackets, a port 0 to 65535"
                .to_owned()
        };
        if !schema_accepts(&SCHEMA, Self::schema, s) {
            return Err(bad());
        }
        s.parse().map(Self).map_err(|_| bad())
    }
}

impl<'de> Deserialize<'de> for ListenAddress {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(de::Error::custom)
    }
}

impl JsonSchema for ListenAddress {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "ListenAddress".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Schema::try_from(Self::schema()).unwrap_or_default()
    }
}

/// `POST /api/network`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListenerRequest {
    /// A name ("tailnet", "lan").
    pub name: super::Name<1, 64>,
    /// `ip:port` to listen on (port 0 picks a free one); an IPv6 address in brackets.
    pub address: ListenAddress,
    /// The origin browsers use to reach it (a host name on the overlay network, say); by
    /// default `http://<address>`.
    #[serde(default)]
    pub origin: Option<OriginText>,
}

/// Whether a listener listens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ListenerState {
    /// Accepting connections; its origin is trusted.
    Running,
    /// Stored, but it could not bind when the plane started (`error` says why).
    Failed,
}

/// One network plugin.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Listener {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `ip:port` as bound.
    pub address: String,
    /// The origin trusted while it runs.
    pub origin: String,
    /// Whether it listens.
    pub state: ListenerState,
    /// Why it does not, when it failed.
    pub error: Option<String>,
    /// When it was added (ms since the Unix epoch).
    pub created_at: i64,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn addresses_the_schema_refuses_are_refused() {
        let v = jsonschema::validator_for(&ListenAddress::schema()).unwrap();
        for bad in [
            "01.2.3.4:80",
            "1.2.3.4:080",
            "1.2.3.4:65536",
            "256.0.0.1:1",
            "127.1:80",
            "[03ea1]:9",
            "[1:2:3:4:5:6:7::8]:1",
            "[::1%2]:80",
            "[::1]:",
            "1.2.3.4",
        ] {
            assert!(ListenAddress::parse(bad).is_err(), "{bad}");
            assert!(!v.is_valid(&json!(bad)), "{bad}");
        }
        for good in [
            "127.0.0.1:0",
            "0.0.0.0:65535",
            "[::1]:80",
            "[::ffff:10.0.0.1]:8080",
        ] {
            assert!(ListenAddress::parse(good).is_ok(), "{good}");
            assert!(v.is_valid(&json!(good)), "{good}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Whatever the schema's pattern matches, the address parser reads.
        #[test]
        fn what_the_pattern_matches_parses(
            s in proptest::string::string_regex({
                let p = ListenAddress::schema()["pattern"].as_str().unwrap().to_owned();
                p.strip_prefix('^').and_then(|p| p.strip_suffix('$')).unwrap().to_owned()
            }.as_str()).unwrap()
        ) {
            prop_assert!(ListenAddress::parse(&s).is_ok(), "{}", s);
        }
    }
}
