//! Protocol and agent versions, and the strict version parser behind the version floor.

use core::fmt;
use core::str::FromStr;

/// The node link protocol spoken by this build. Matching is exact in both directions.
pub const NODE_PROTOCOL_VERSION: u32 = 14;

/// The lowest agent version the plane brings online (gate 1).
pub const MIN_NODE_VERSION: Version = Version::new(0, 17, 0);

/// A `major.minor.patch` version.
///
/// The parser is strict: exactly three dot-separated decimal numbers, no sign, no leading zero
/// (except `0` itself), no whitespace, no pre-release or build suffix, each part at most nine
/// digits. Anything else is "unparseable", which gate 1 treats like a version below the floor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Version {
    /// Major number.
    pub major: u32,
    /// Minor number.
    pub minor: u32,
    /// Patch number.
    pub patch: u32,
}

/// Why a version string did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unparseable version {found:?}: expected major.minor.patch")]
pub struct VersionError {
    /// The refused text, cut to 64 bytes.
    pub found: String,
}

impl Version {
    /// A version from its parts.
    #[must_use]
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        Self {
            major,
            minor,
            patch,
        }
    }

    /// Parses `text` strictly (see the type's docs).
    pub fn parse(text: &str) -> Result<Self, VersionError> {
        let err = || VersionError {
            found: text.chars().take(64).collect(),
        };
        let mut parts = text.split('.');
        let mut next = || -> Result<u32, VersionError> {
            let p = parts.next().ok_or_else(err)?;
            if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err());
            }
            if p.len() > 1 && p.starts_with('0') {
                return Err(err());
            }
            p.parse::<u32>().map_err(|_| err())
        };
        let v = Self::new(next()?, next()?, next()?);
        if parts.next().is_some() {
            return Err(err());
        }
        Ok(v)
    }
}

impl FromStr for Version {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_is_0_17_0_and_the_protocol_14() {
        assert_eq!(MIN_NODE_VERSION.to_string(), "0.17.0");
        assert_eq!(NODE_PROTOCOL_VERSION, 14);
    }

    #[test]
    fn well_formed_versions_parse_and_order_numerically() {
        assert_eq!(Version::parse("0.17.0"), Ok(Version::new(0, 17, 0)));
        assert_eq!(Version::parse("10.0.123"), Ok(Version::new(10, 0, 123)));
        assert!(Version::parse("0.9.0").unwrap_or(MIN_NODE_VERSION) < MIN_NODE_VERSION);
        assert!(Version::parse("0.17.1").unwrap_or(MIN_NODE_VERSION) > MIN_NODE_VERSION);
        assert!(Version::new(0, 100, 0) > Version::new(0, 17, 9));
    }

    #[test]
    fn malformed_versions_are_refused() {
        for bad in [
            "",
            "0.17",
            "0.17.0.1",
            "v0.17.0",
            "0.17.0-rc1",
            "0.17.0+b",
            " 0.17.0",
            "0.17.0 ",
            "00.17.0",
            "0.017.0",
            "-1.0.0",
            "+1.0.0",
            "1..0",
            "1.0.",
            ".1.0",
            "1.0.x",
            "1234567890.0.0",
            "0.17.0\n",
            "٣.1.0",
        ] {
            assert!(Version::parse(bad).is_err(), "{bad:?} parsed");
        }
    }
}
