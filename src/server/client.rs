//! Who a request comes from, for throttling by client: the connection's
//! peer, or — when that peer is a reverse proxy the console was told to
//! trust — the client the proxy says it forwarded for.

use std::net::IpAddr;

/// The client address of a request that came over a connection from `peer`
/// with `forwarded_for` (the `X-Forwarded-For` header, if any).
///
/// Each proxy appends the address it received the request from, so the
/// header is read from its end: trusted proxies are skipped, and the first
/// address that is not one is the client. Anything to the left of it was
/// written by the client itself and could be anything. Without a trusted
/// peer the header is ignored altogether (anyone can send it); a header
/// that is missing or not a list of addresses leaves the peer's.
pub fn client_ip(peer: IpAddr, forwarded_for: Option<&str>, trusted: &[IpAddr]) -> IpAddr {
    // A dual-stack listener sees IPv4 peers as ::ffff:a.b.c.d.
    let is_trusted = |address: IpAddr| trusted.iter().any(|t| t.to_canonical() == address);
    let peer = peer.to_canonical();
    if !is_trusted(peer) {
        return peer;
    }
    let Some(header) = forwarded_for else {
        return peer;
    };
    let mut client = peer;
    for entry in header.rsplit(',') {
        let Some(address) = address_of(entry.trim()) else {
            // Not an address: nothing further left can be believed.
            return client;
        };
        client = address;
        if !is_trusted(address) {
            return address;
        }
    }
    client
}

/// The console's own origin as a client reached it (`https://console.example`):
/// the `Host` it asked for, over HTTPS when the console serves secure
/// cookies, or when a trusted proxy in front says so (`X-Forwarded-Proto`).
pub fn origin(
    peer: IpAddr,
    host: &str,
    forwarded_proto: Option<&str>,
    trusted: &[IpAddr],
    secure: bool,
) -> String {
    let proxied_https = trusted
        .iter()
        .any(|t| t.to_canonical() == peer.to_canonical())
        && forwarded_proto
            .and_then(|proto| proto.split(',').next())
            .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"));
    let scheme = if secure || proxied_https {
        "https"
    } else {
        "http"
    };
    format!("{scheme}://{host}")
}

/// An entry of `X-Forwarded-For`: an address, or (as some proxies write
/// it) an address with a port: `203.0.113.7:5123`, `[2001:db8::5]:443`.
fn address_of(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<std::net::SocketAddr>().ok().map(|s| s.ip()))
        .map(|address| address.to_canonical())
}

/// The client a request is counted against when throttling: an IPv4
/// address as it is, an IPv6 address as its /64 network. One subscriber or
/// host is given a whole /64 and can take any address in it, so counting
/// single IPv6 addresses would let one client rotate past its limit.
pub fn throttle_key(client: IpAddr) -> String {
    match client.to_canonical() {
        IpAddr::V4(address) => address.to_string(),
        IpAddr::V6(address) => {
            let network = u128::from(address) & !(u128::MAX >> 64);
            format!("{}/64", std::net::Ipv6Addr::from(network))
        }
    }
}

/// Parses `TOOLWRIGHT_TRUSTED_PROXIES`: addresses separated by commas.
pub fn parse_trusted_proxies(value: &str) -> Option<Vec<IpAddr>> {
    value
        .split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(|entry| entry.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_is_https_when_served_so_or_a_trusted_proxy_says_so() {
        let proxy: IpAddr = "10.0.0.2".parse().unwrap();
        let stranger: IpAddr = "203.0.113.9".parse().unwrap();
        let host = "console.example";
        assert_eq!(
            origin(stranger, host, None, &[], false),
            "http://console.example"
        );
        assert_eq!(
            origin(stranger, host, None, &[], true),
            "https://console.example"
        );
        assert_eq!(
            origin(proxy, host, Some("https"), &[proxy], false),
            "https://console.example"
        );
        // Anyone else's word for it counts for nothing.
        assert_eq!(
            origin(stranger, host, Some("https"), &[proxy], false),
            "http://console.example"
        );
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    const PROXY: &str = "10.0.0.2";

    #[test]
    fn without_trusted_proxies_the_header_is_ignored() {
        assert_eq!(
            client_ip(ip("203.0.113.7"), Some("198.51.100.1"), &[]),
            ip("203.0.113.7")
        );
        // Even from a peer that looks like a proxy, if it is not trusted.
        assert_eq!(
            client_ip(ip(PROXY), Some("198.51.100.1"), &[ip("10.0.0.3")]),
            ip(PROXY)
        );
    }

    #[test]
    fn behind_a_trusted_proxy_the_client_is_the_address_it_forwarded_for() {
        assert_eq!(
            client_ip(ip(PROXY), Some("198.51.100.1"), &[ip(PROXY)]),
            ip("198.51.100.1")
        );
    }

    #[test]
    fn addresses_the_client_wrote_itself_are_not_believed() {
        // The client sent "X-Forwarded-For: 1.2.3.4"; the proxy appended
        // the address it really came from.
        assert_eq!(
            client_ip(ip(PROXY), Some("1.2.3.4, 198.51.100.1"), &[ip(PROXY)]),
            ip("198.51.100.1")
        );
    }

    #[test]
    fn a_chain_of_trusted_proxies_is_walked_back_to_the_client() {
        let trusted = [ip(PROXY), ip("10.0.0.3")];
        assert_eq!(
            client_ip(ip(PROXY), Some("198.51.100.1, 10.0.0.3"), &trusted),
            ip("198.51.100.1")
        );
        // Only proxies in the header: the one furthest back.
        assert_eq!(
            client_ip(ip(PROXY), Some("10.0.0.3"), &trusted),
            ip("10.0.0.3")
        );
    }

    #[test]
    fn a_missing_or_garbled_header_leaves_the_last_address_believed() {
        assert_eq!(client_ip(ip(PROXY), None, &[ip(PROXY)]), ip(PROXY));
        assert_eq!(
            client_ip(ip(PROXY), Some("not-an-address"), &[ip(PROXY)]),
            ip(PROXY)
        );
        assert_eq!(
            client_ip(ip(PROXY), Some("198.51.100.1, ::1 junk"), &[ip(PROXY)]),
            ip(PROXY)
        );
        assert_eq!(
            client_ip(ip(PROXY), Some(" 2001:db8::5 "), &[ip(PROXY)]),
            ip("2001:db8::5")
        );
    }

    #[test]
    fn ipv4_addresses_mapped_into_ipv6_are_the_same_addresses() {
        assert_eq!(
            client_ip(
                ip("::ffff:10.0.0.2"),
                Some("::ffff:198.51.100.1"),
                &[ip(PROXY)]
            ),
            ip("198.51.100.1")
        );
        assert_eq!(
            client_ip(ip(PROXY), Some("198.51.100.1"), &[ip("::ffff:10.0.0.2")]),
            ip("198.51.100.1")
        );
    }

    #[test]
    fn an_address_may_come_with_a_port() {
        assert_eq!(
            client_ip(ip(PROXY), Some("198.51.100.1:5123"), &[ip(PROXY)]),
            ip("198.51.100.1")
        );
        assert_eq!(
            client_ip(ip(PROXY), Some("[2001:db8::5]:443"), &[ip(PROXY)]),
            ip("2001:db8::5")
        );
    }

    #[test]
    fn an_ipv6_client_is_counted_by_its_64_network() {
        let key = |text: &str| throttle_key(ip(text));
        assert_eq!(key("2001:db8:1:2::1"), "2001:db8:1:2::/64");
        assert_eq!(key("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
        assert_ne!(key("2001:db8:1:3::1"), key("2001:db8:1:2::1"));
        assert_eq!(key("203.0.113.7"), "203.0.113.7");
        assert_ne!(key("203.0.113.8"), key("203.0.113.7"));
        // An IPv4 client seen through a dual-stack listener is still itself.
        assert_eq!(key("::ffff:203.0.113.7"), "203.0.113.7");
    }

    #[test]
    fn the_setting_is_a_comma_separated_list_of_addresses() {
        assert_eq!(
            parse_trusted_proxies("10.0.0.2, ::1,"),
            Some(vec![ip("10.0.0.2"), ip("::1")])
        );
        assert_eq!(parse_trusted_proxies(""), Some(vec![]));
        assert_eq!(parse_trusted_proxies("10.0.0.0/8"), None);
        assert_eq!(parse_trusted_proxies("proxy.internal"), None);
    }
}
