//! The client's address for rate limits: the socket peer, or — only when the peer is a proxy named in
//! `PORTAL_TRUSTED_PROXIES` — the nearest address in `X-Forwarded-For` that is not itself a trusted proxy.
//! IPv6 clients are counted by their /64, since one subscriber usually holds a whole /64.

use actix_web::HttpRequest;
use std::net::{IpAddr, Ipv6Addr};

/// An address range: `203.0.113.7`, `10.0.0.0/8`, `2001:db8::/32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpRange {
    network: IpAddr,
    prefix: u8,
}

impl IpRange {
    /// Parses one address or CIDR range.
    ///
    /// # Errors
    /// A message naming the bad entry.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text, None),
        };
        let network: IpAddr = address
            .parse()
            .map_err(|_| format!("`{text}` is not an IP address or CIDR range"))?;
        let max = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("`{text}` has an invalid prefix length"))?,
        };
        Ok(Self { network, prefix })
    }

    #[must_use]
    pub fn contains(&self, address: IpAddr) -> bool {
        match (self.network, canonical(address)) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(self.prefix)).unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(self.prefix)).unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

/// Which proxies may tell the client's address (none by default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpRange>);

impl TrustedProxies {
    /// Parses a comma-separated list of addresses and CIDR ranges (empty: none).
    ///
    /// # Errors
    /// A message naming the first bad entry.
    pub fn parse(list: &str) -> Result<Self, String> {
        list.split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(IpRange::parse)
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
    }

    fn trusts(&self, address: IpAddr) -> bool {
        self.0.iter().any(|range| range.contains(address))
    }

    /// The client's address: the peer, unless the peer is trusted, then walking `X-Forwarded-For` from the
    /// right past trusted proxies. `None` only when actix knows no peer (never on a TCP listener).
    #[must_use]
    pub fn client_address(&self, request: &HttpRequest) -> Option<IpAddr> {
        let peer = canonical(request.peer_addr()?.ip());
        if !self.trusts(peer) {
            return Some(peer);
        }
        let forwarded: Vec<IpAddr> = request
            .headers()
            .get_all("x-forwarded-for")
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(|hop| hop.trim().parse::<IpAddr>().map(canonical))
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        Some(
            forwarded
                .into_iter()
                .rev()
                .find(|hop| !self.trusts(*hop))
                .unwrap_or(peer),
        )
    }
}

/// An IPv4-mapped IPv6 address is the IPv4 address.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        v4 @ IpAddr::V4(_) => v4,
    }
}

/// The rate-limit subject of an address: IPv4 as is, IPv6 as its /64 network.
#[must_use]
pub fn rate_limit_subject(address: IpAddr) -> String {
    match canonical(address) {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let network = u128::from(v6) & (u128::MAX << 64);
            format!("{}/64", Ipv6Addr::from(network))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn request(peer: &str, forwarded: Option<&str>) -> HttpRequest {
        let mut builder = TestRequest::default().peer_addr(peer.parse().unwrap());
        if let Some(value) = forwarded {
            builder = builder.insert_header(("X-Forwarded-For", value));
        }
        builder.to_http_request()
    }

    #[test]
    fn without_trusted_proxies_the_peer_is_the_client_whatever_the_headers_say() {
        let proxies = TrustedProxies::default();
        let client = proxies.client_address(&request("198.51.100.4:5000", Some("1.2.3.4")));
        assert_eq!(client, Some("198.51.100.4".parse().unwrap()));
    }

    #[test]
    fn a_trusted_proxy_forwards_the_nearest_untrusted_address() {
        let proxies = TrustedProxies::parse("10.0.0.0/8, 192.0.2.1").unwrap();
        // The client wrote a fake first hop; the real client is the rightmost untrusted one.
        let client =
            proxies.client_address(&request("10.1.2.3:443", Some("6.6.6.6, 203.0.113.9, 192.0.2.1")));
        assert_eq!(client, Some("203.0.113.9".parse().unwrap()));
        let no_header = proxies.client_address(&request("10.1.2.3:443", None));
        assert_eq!(no_header, Some("10.1.2.3".parse().unwrap()));
    }

    #[test]
    fn a_malformed_forwarded_header_falls_back_to_the_peer() {
        let proxies = TrustedProxies::parse("10.0.0.1").unwrap();
        let client = proxies.client_address(&request("10.0.0.1:1", Some("not an ip")));
        assert_eq!(client, Some("10.0.0.1".parse().unwrap()));
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_slash_64() {
        let a = rate_limit_subject("2001:db8:1:2:aaaa::1".parse().unwrap());
        let b = rate_limit_subject("2001:db8:1:2:ffff:1:2:3".parse().unwrap());
        let other = rate_limit_subject("2001:db8:1:3::1".parse().unwrap());
        assert_eq!(a, "2001:db8:1:2::/64");
        assert_eq!(a, b);
        assert_ne!(a, other);
        assert_eq!(
            rate_limit_subject("::ffff:192.0.2.7".parse().unwrap()),
            "192.0.2.7"
        );
    }

    #[test]
    fn bad_proxy_entries_are_named() {
        assert!(
            TrustedProxies::parse("10.0.0.0/33")
                .unwrap_err()
                .contains("10.0.0.0/33")
        );
        assert!(TrustedProxies::parse("proxy.local").is_err());
        assert_eq!(TrustedProxies::parse(" , ").unwrap(), TrustedProxies::default());
        assert!(
            IpRange::parse("::/0")
                .unwrap()
                .contains("2001:db8::1".parse().unwrap())
        );
    }
}
