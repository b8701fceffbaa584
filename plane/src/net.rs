//! Client addresses behind reverse proxies.
//!
//! The plane sees the TCP peer's address. Behind a reverse proxy every client shares the proxy's
//! address, so per-address rules (the sign-in backoff) would treat all of them as one. The
//! `X-Forwarded-For` header names the real client, but anyone can send it: it is honoured only
//! when the TCP peer is one of the configured trusted proxies (`TRUSTED_PROXIES`, addresses or
//! CIDR ranges). The client is then the right-most address of the header that is not itself a
//! trusted proxy (each proxy appends the address it received the request from, so everything
//! left of that may have been written by the client).

use std::net::IpAddr;

/// An address range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// Parses `1.2.3.4`, `10.0.0.0/8`, `::1` or `fd00::/8`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let (a, p) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let addr: IpAddr = a
            .parse()
            .map_err(|_| format!("`{s}` is not an IP address or CIDR range"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match p {
            None => max,
            Some(p) => match p.parse::<u8>() {
                Ok(n) if n <= max => n,
                _ => return Err(format!("`{s}` has an invalid prefix length")),
            },
        };
        Ok(Self { addr, prefix })
    }

    /// Whether `ip` is in the range (an IPv4-mapped IPv6 address counts as its IPv4 address).
    #[must_use]
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                prefix_eq(&net.octets(), &ip.octets(), self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                prefix_eq(&net.octets(), &ip.octets(), self.prefix)
            }
            _ => false,
        }
    }
}

fn prefix_eq(a: &[u8], b: &[u8], prefix: u8) -> bool {
    let full = usize::from(prefix / 8);
    let rest = prefix % 8;
    if a[..full] != b[..full] {
        return false;
    }
    if rest == 0 {
        return true;
    }
    let mask = 0xff_u8 << (8 - rest);
    (a[full] & mask) == (b[full] & mask)
}

/// The client's address: `peer`, or when `peer` is a trusted proxy, the right-most address of
/// the `X-Forwarded-For` values that is not a trusted proxy (malformed entries end the walk:
/// the peer's own address, or the last good one, is used).
#[must_use]
pub fn client_ip<'a>(
    peer: IpAddr,
    forwarded_for: impl Iterator<Item = &'a str>,
    trusted: &[Cidr],
) -> IpAddr {
    let is_trusted = |ip: IpAddr| trusted.iter().any(|c| c.contains(ip));
    if !is_trusted(peer) {
        return peer;
    }
    let hops: Vec<&str> = forwarded_for.flat_map(|v| v.split(',')).collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        let Ok(ip) = hop.trim().parse::<IpAddr>() else {
            break;
        };
        client = ip;
        if !is_trusted(ip) {
            break;
        }
    }
    client
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ranges_contain_what_they_should() {
        let c = Cidr::parse("10.0.0.0/8").unwrap();
        assert!(c.contains(ip("10.1.2.3")));
        assert!(!c.contains(ip("11.0.0.1")));
        assert!(c.contains(ip("::ffff:10.9.9.9")));
        let one = Cidr::parse("127.0.0.1").unwrap();
        assert!(one.contains(ip("127.0.0.1")) && !one.contains(ip("127.0.0.2")));
        let v6 = Cidr::parse("fd00::/8").unwrap();
        assert!(v6.contains(ip("fd12::1")) && !v6.contains(ip("fe80::1")));
        assert!(Cidr::parse("10.0.0.0/33").is_err());
        assert!(Cidr::parse("nope").is_err());
        assert!(Cidr::parse("0.0.0.0/0").unwrap().contains(ip("8.8.8.8")));
    }

    #[test]
    fn forwarded_for_is_honoured_only_from_trusted_proxies() {
        let proxies = [
            Cidr::parse("127.0.0.1").unwrap(),
            Cidr::parse("10.0.0.0/8").unwrap(),
        ];
        // A direct client cannot choose its address.
        assert_eq!(
            client_ip(ip("203.0.113.9"), ["1.1.1.1"].into_iter(), &proxies),
            ip("203.0.113.9")
        );
        // Through the proxy: the right-most untrusted hop.
        assert_eq!(
            client_ip(
                ip("127.0.0.1"),
                ["6.6.6.6, 198.51.100.7"].into_iter(),
                &proxies
            ),
            ip("198.51.100.7")
        );
        // Through two proxies.
        assert_eq!(
            client_ip(
                ip("127.0.0.1"),
                ["6.6.6.6", "198.51.100.7, 10.1.1.1"].into_iter(),
                &proxies
            ),
            ip("198.51.100.7")
        );
        // No header: the proxy itself.
        assert_eq!(
            client_ip(ip("127.0.0.1"), [].into_iter(), &proxies),
            ip("127.0.0.1")
        );
        // Garbage ends the walk.
        assert_eq!(
            client_ip(ip("127.0.0.1"), ["nonsense"].into_iter(), &proxies),
            ip("127.0.0.1")
        );
        // Nothing trusted: never honoured.
        assert_eq!(
            client_ip(ip("127.0.0.1"), ["6.6.6.6"].into_iter(), &[]),
            ip("127.0.0.1")
        );
    }
}
