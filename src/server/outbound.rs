//! Requests from the console to servers outside it — an app's own server
//! ("Try a tool", MCP's tools/call) and model providers (evals): only to
//! the configured URL, with a timeout, a size cap, no redirects to
//! other hosts, and — unless the console is configured to allow it — never
//! to loopback, private, link-local or metadata addresses (checked on the
//! resolved addresses, and the connection pinned to the one checked).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::{Duration, Instant};

pub const TIMEOUT: Duration = Duration::from_secs(20);
pub const MAX_RESPONSE_BYTES: usize = 1024 * 1024;

/// Why an address may not be called, or `None` when it may: the ranges of
/// IANA's IPv4 and IPv6 Special-Purpose Address Registries that are not
/// globally reachable (and multicast), and every IPv6 form that carries an
/// IPv4 address — refused outright where the embedding is itself not
/// globally reachable (IPv4-mapped, IPv4-compatible, local-use NAT64), and
/// checked against the IPv4 table where it is a translation that reaches
/// the embedded address (NAT64's well-known prefix, 6to4).
pub fn forbidden_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = translated_v4(v6) {
                return forbidden_v4(v4);
            }
            let bits = u128::from(v6);
            SPECIAL_V6
                .iter()
                .find(|(prefix, len, _)| within(bits, u128::from(*prefix), *len, 128))
                .map(|(_, _, reason)| *reason)
        }
    }
}

/// IPv4 ranges refused: IANA's special-purpose registry entries that are
/// not globally reachable, with multicast and broadcast. One row a range;
/// each has a test.
pub const SPECIAL_V4: &[(Ipv4Addr, u32, &str)] = &[
    (
        Ipv4Addr::new(0, 0, 0, 0),
        8,
        "\"this network\" (unspecified)",
    ),
    (Ipv4Addr::new(10, 0, 0, 0), 8, "private"),
    (
        Ipv4Addr::new(100, 64, 0, 0),
        10,
        "shared (carrier-grade NAT)",
    ),
    (Ipv4Addr::new(127, 0, 0, 0), 8, "loopback"),
    (
        Ipv4Addr::new(169, 254, 0, 0),
        16,
        "link-local (cloud metadata)",
    ),
    (Ipv4Addr::new(172, 16, 0, 0), 12, "private"),
    (Ipv4Addr::new(192, 0, 0, 0), 24, "IETF protocol assignments"),
    (
        Ipv4Addr::new(192, 0, 2, 0),
        24,
        "documentation (TEST-NET-1)",
    ),
    (
        Ipv4Addr::new(192, 88, 99, 0),
        24,
        "6to4 relay anycast (deprecated)",
    ),
    (Ipv4Addr::new(192, 168, 0, 0), 16, "private"),
    (Ipv4Addr::new(198, 18, 0, 0), 15, "benchmarking"),
    (
        Ipv4Addr::new(198, 51, 100, 0),
        24,
        "documentation (TEST-NET-2)",
    ),
    (
        Ipv4Addr::new(203, 0, 113, 0),
        24,
        "documentation (TEST-NET-3)",
    ),
    (Ipv4Addr::new(224, 0, 0, 0), 4, "multicast"),
    // Before 240.0.0.0/4, which holds it.
    (Ipv4Addr::new(255, 255, 255, 255), 32, "limited broadcast"),
    (Ipv4Addr::new(240, 0, 0, 0), 4, "reserved"),
];

/// IPv6 ranges refused, as [`SPECIAL_V4`]. The forms that carry an IPv4
/// address and lead to it (NAT64's `64:ff9b::/96`, 6to4's `2002::/16`) are
/// not here: [`forbidden_reason`] checks the address they carry.
pub const SPECIAL_V6: &[(Ipv6Addr, u32, &str)] = &[
    (Ipv6Addr::UNSPECIFIED, 128, "unspecified"),
    (Ipv6Addr::LOCALHOST, 128, "loopback"),
    (
        Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0, 0),
        96,
        "IPv4-mapped",
    ),
    (
        Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 0),
        96,
        "IPv4-compatible (deprecated)",
    ),
    (
        Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0),
        48,
        "local-use IPv4/IPv6 translation",
    ),
    (
        Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0),
        64,
        "discard-only",
    ),
    (
        Ipv6Addr::new(0x100, 0, 0, 1, 0, 0, 0, 0),
        64,
        "dummy prefix",
    ),
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 32, "Teredo"),
    (
        Ipv6Addr::new(0x2001, 2, 0, 0, 0, 0, 0, 0),
        48,
        "benchmarking",
    ),
    (
        Ipv6Addr::new(0x2001, 0x10, 0, 0, 0, 0, 0, 0),
        28,
        "ORCHID (deprecated)",
    ),
    (
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        "documentation",
    ),
    (
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        "documentation",
    ),
    (
        Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        "segment routing (SRv6) SIDs",
    ),
    (
        Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0),
        7,
        "private (unique local)",
    ),
    (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, "link-local"),
    (
        Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0),
        10,
        "site-local (deprecated)",
    ),
    (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, "multicast"),
];

/// Whether `bits` lies in the `len`-bit prefix `prefix` of a `width`-bit address.
fn within(bits: u128, prefix: u128, len: u32, width: u32) -> bool {
    let shift = width - len;
    len == 0 || (bits >> shift) == (prefix >> shift)
}

fn forbidden_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let bits = u128::from(u32::from(ip));
    SPECIAL_V4
        .iter()
        .find(|(prefix, len, _)| within(bits, u128::from(u32::from(*prefix)), *len, 32))
        .map(|(_, _, reason)| *reason)
}

/// The IPv4 address a translating IPv6 address leads to: NAT64's
/// well-known prefix (`64:ff9b::a.b.c.d`) or 6to4 (`2002:AABB:CCDD::/48`).
fn translated_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let v4 = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
        Some(v4(s[6], s[7]))
    } else if s[0] == 0x2002 {
        Some(v4(s[1], s[2]))
    } else {
        None
    }
}

/// What a request to the app's server came to.
#[derive(Debug)]
pub enum Outcome {
    /// The server answered (any status) within the limits.
    Answered {
        status: u16,
        body: Vec<u8>,
        latency: Duration,
        /// How long the server asked to be left alone (`Retry-After`, or
        /// the `retry-after-ms` some model providers send), if it said.
        retry_after: Option<Duration>,
    },
    /// Refused before sending: the URL or its address is not allowed.
    Blocked(String),
    /// Nothing came back in time.
    TimedOut { latency: Duration },
    /// No connection (refused, unreachable, no such host, TLS…).
    Unreachable(String),
    /// The answer was larger than the limit ([`MAX_RESPONSE_BYTES`]).
    TooLarge { status: u16, latency: Duration },
}

/// How long a call may take and how much it may bring back.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub timeout: Duration,
    pub max_response_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: TIMEOUT,
            max_response_bytes: MAX_RESPONSE_BYTES,
        }
    }
}

/// POSTs `body` as JSON to `url`, within the default [`Limits`].
pub async fn post_json(url: &str, body: &serde_json::Value, allow_private: bool) -> Outcome {
    post_json_within(url, body, allow_private, Limits::default()).await
}

/// POSTs `body` as JSON to `url`, within `limits`.
pub async fn post_json_within(
    url: &str,
    body: &serde_json::Value,
    allow_private: bool,
    limits: Limits,
) -> Outcome {
    post(url, body, None, allow_private, limits).await
}

/// POSTs `body` as JSON to `url` with `Authorization: Bearer <token>`,
/// within `limits`.
pub async fn post_json_bearer(
    url: &str,
    body: &serde_json::Value,
    token: &str,
    allow_private: bool,
    limits: Limits,
) -> Outcome {
    post(url, body, Some(token), allow_private, limits).await
}

async fn post(
    url: &str,
    body: &serde_json::Value,
    token: Option<&str>,
    allow_private: bool,
    limits: Limits,
) -> Outcome {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return Outcome::Blocked(format!("{url} is not a valid URL"));
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return Outcome::Blocked("Only http:// and https:// URLs can be called".into());
    }
    let Some(host) = parsed
        .host_str()
        .map(|h| h.trim_start_matches('[').trim_end_matches(']').to_owned())
    else {
        return Outcome::Blocked("The URL has no host".into());
    };
    let port = parsed.port_or_known_default().unwrap_or(80);
    let addresses: Vec<SocketAddr> = match tokio::net::lookup_host((host.as_str(), port)).await {
        Ok(found) => found.collect(),
        Err(error) => return Outcome::Unreachable(format!("Could not resolve {host}: {error}")),
    };
    let Some(address) = addresses.first().copied() else {
        return Outcome::Unreachable(format!("{host} has no address"));
    };
    if !allow_private {
        // Every address the name has must be public: a name with one public
        // and one private address could otherwise be steered to the latter.
        if let Some((ip, reason)) = addresses
            .iter()
            .find_map(|a| forbidden_reason(a.ip()).map(|reason| (a.ip(), reason)))
        {
            return Outcome::Blocked(format!(
                "{host} resolves to {ip}, a {reason} address. The console does not call such addresses \
                 (set TOOLWRIGHT_ALLOW_PRIVATE_TARGETS=true to allow it for local development)."
            ));
        }
    }
    // Redirects are followed only within the same origin (scheme, host and
    // port), and only a few times.
    let origin = parsed.origin();
    let client = match reqwest::Client::builder()
        .timeout(limits.timeout)
        .connect_timeout(limits.timeout)
        // Connect to the address just checked, not a fresh lookup.
        .resolve(&host, address)
        .redirect(reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 3 {
                attempt.error("too many redirects")
            } else if attempt.url().origin() == origin {
                attempt.follow()
            } else {
                attempt.stop()
            }
        }))
        .build()
    {
        Ok(client) => client,
        Err(error) => {
            return Outcome::Unreachable(format!("Could not prepare the request: {error}"))
        }
    };

    let started = Instant::now();
    let mut request = client.post(parsed).json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = match request.send().await {
        Ok(response) => response,
        Err(error) if error.is_timeout() => {
            return Outcome::TimedOut {
                latency: started.elapsed(),
            }
        }
        Err(error) => return Outcome::Unreachable(describe(&error)),
    };
    let status = response.status().as_u16();
    let retry_after = retry_after(response.headers());
    let mut response = response;
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > limits.max_response_bytes {
                    return Outcome::TooLarge {
                        status,
                        latency: started.elapsed(),
                    };
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(error) if error.is_timeout() => {
                return Outcome::TimedOut {
                    latency: started.elapsed(),
                }
            }
            Err(error) => return Outcome::Unreachable(describe(&error)),
        }
    }
    Outcome::Answered {
        status,
        body,
        latency: started.elapsed(),
        retry_after,
    }
}

/// `retry-after-ms`, else `Retry-After` in whole seconds (its date form is
/// not worth reading: a wait is retried anyway).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let number = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    let wait = number("retry-after-ms")
        .map(|ms| ms / 1000.0)
        .or_else(|| number("retry-after"))?;
    (wait.is_finite() && wait >= 0.0).then(|| Duration::from_secs_f64(wait.min(3600.0)))
}

fn describe(error: &reqwest::Error) -> String {
    use std::error::Error as _;
    let mut text = if error.is_connect() {
        "Could not connect to the server".to_owned()
    } else {
        "The request failed".to_owned()
    };
    let mut source = error.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(ip: &str) -> Option<&'static str> {
        forbidden_reason(ip.parse().unwrap())
    }

    /// One address inside each refused range, and the first address
    /// past its end, which is not refused (unless the next row begins there).
    #[test]
    fn every_row_of_the_ipv4_table_is_refused_from_its_first_to_its_last_address() {
        for (prefix, len, reason) in SPECIAL_V4 {
            let first = u32::from(*prefix);
            let last = first | (u32::MAX.checked_shr(*len).unwrap_or(0));
            assert_eq!(
                forbidden_reason(IpAddr::V4(Ipv4Addr::from(first))),
                Some(*reason),
                "{prefix}/{len}"
            );
            // The last address may belong to a narrower row (240.0.0.0/4
            // ends at the limited broadcast address).
            let last = Ipv4Addr::from(last);
            assert!(
                forbidden_reason(IpAddr::V4(last)).is_some(),
                "{last} in {prefix}/{len}"
            );
        }
    }

    #[test]
    fn every_row_of_the_ipv6_table_is_refused_from_its_first_to_its_last_address() {
        for (prefix, len, reason) in SPECIAL_V6 {
            let first = u128::from(*prefix);
            let last = first | (u128::MAX.checked_shr(*len).unwrap_or(0));
            for ip in [first, last] {
                let ip = Ipv6Addr::from(ip);
                let found = forbidden_reason(IpAddr::V6(ip));
                // ::/96 holds :: and ::1, which have rows of their own.
                assert!(found.is_some(), "{ip} in {prefix}/{len} ({reason})");
            }
        }
    }

    #[test]
    fn addresses_named_in_the_registries_are_refused() {
        for (ip, expected) in [
            ("127.0.0.1", "loopback"),
            ("10.1.2.3", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("169.254.169.254", "link-local (cloud metadata)"),
            ("0.1.2.3", "\"this network\" (unspecified)"),
            ("100.64.0.1", "shared (carrier-grade NAT)"),
            ("100.100.100.200", "shared (carrier-grade NAT)"),
            ("192.0.0.8", "IETF protocol assignments"),
            ("192.0.2.10", "documentation (TEST-NET-1)"),
            ("198.18.0.1", "benchmarking"),
            ("198.19.255.254", "benchmarking"),
            ("198.51.100.7", "documentation (TEST-NET-2)"),
            ("203.0.113.9", "documentation (TEST-NET-3)"),
            ("224.0.0.1", "multicast"),
            ("240.0.0.1", "reserved"),
            ("255.255.255.255", "limited broadcast"),
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("::ffff:127.0.0.1", "IPv4-mapped"),
            ("::ffff:8.8.8.8", "IPv4-mapped"),
            ("::127.0.0.1", "IPv4-compatible (deprecated)"),
            ("::8.8.8.8", "IPv4-compatible (deprecated)"),
            ("64:ff9b::7f00:1", "loopback"),
            ("64:ff9b::a9fe:a9fe", "link-local (cloud metadata)"),
            ("64:ff9b::c000:201", "documentation (TEST-NET-1)"),
            ("64:ff9b:1::a00:1", "local-use IPv4/IPv6 translation"),
            ("2002:7f00:1::1", "loopback"),
            ("2002:a00:1::", "private"),
            ("2002:c0a8:101::1", "private"),
            ("2001::1", "Teredo"),
            ("2001:2::1", "benchmarking"),
            ("2001:db8::1", "documentation"),
            ("3fff::1", "documentation"),
            ("100::1", "discard-only"),
            ("fc00::1", "private (unique local)"),
            ("fd00:ec2::254", "private (unique local)"),
            ("fe80::1", "link-local"),
            ("fec0::1", "site-local (deprecated)"),
            ("ff02::1", "multicast"),
        ] {
            assert_eq!(reason(ip), Some(expected), "{ip}");
        }
    }

    #[test]
    fn globally_reachable_addresses_are_allowed_in_every_form() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "93.184.216.34",
            "192.0.3.1",
            "198.20.0.1",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert_eq!(reason(ip), None, "{ip}");
        }
    }

    #[tokio::test]
    async fn a_name_resolving_to_loopback_is_refused_unless_allowed() {
        let body = serde_json::json!({});
        match post_json("http://localhost:9/tool", &body, false).await {
            Outcome::Blocked(message) => assert!(message.contains("loopback"), "{message}"),
            other => panic!("expected a refusal, got {other:?}"),
        }
        // Allowed, it gets as far as connecting (nothing listens on port 9).
        assert!(matches!(
            post_json("http://127.0.0.1:9/tool", &body, true).await,
            Outcome::Unreachable(_)
        ));
    }

    #[tokio::test]
    async fn other_schemes_are_refused() {
        assert!(matches!(
            post_json("ftp://example.com/tool", &serde_json::json!({}), true).await,
            Outcome::Blocked(_)
        ));
    }

    /// A one-shot HTTP server on loopback that reads a request and, after
    /// `delay`, answers with `response`: its base URL.
    async fn answering(response: Vec<u8>, delay: Duration) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let response = response.clone();
                tokio::spawn(async move {
                    let mut request = vec![0u8; 64 * 1024];
                    let _ = socket.read(&mut request).await;
                    tokio::time::sleep(delay).await;
                    let _ = socket.write_all(&response).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        format!("http://{address}")
    }

    fn http_response(status: &str, headers: &str, body: &[u8]) -> Vec<u8> {
        let mut out = format!(
            "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n{headers}\r\n",
            body.len()
        )
        .into_bytes();
        out.extend_from_slice(body);
        out
    }

    #[tokio::test]
    async fn a_server_that_does_not_answer_in_time_is_a_timeout() {
        let url = answering(http_response("200 OK", "", b"{}"), Duration::from_secs(3)).await;
        let limits = Limits {
            timeout: Duration::from_millis(200),
            ..Limits::default()
        };
        let outcome = post_json_within(&url, &serde_json::json!({}), true, limits).await;
        assert!(matches!(outcome, Outcome::TimedOut { .. }), "{outcome:?}");
    }

    #[tokio::test]
    async fn an_answer_over_the_size_limit_is_cut_off() {
        let big = vec![b'x'; 5000];
        let url = answering(http_response("200 OK", "", &big), Duration::ZERO).await;
        let limits = Limits {
            max_response_bytes: 4096,
            ..Limits::default()
        };
        let outcome = post_json_within(&url, &serde_json::json!({}), true, limits).await;
        assert!(
            matches!(outcome, Outcome::TooLarge { status: 200, .. }),
            "{outcome:?}"
        );
        // Within the limit, the body comes back whole, JSON or not.
        let url = answering(http_response("500 Oops", "", b"not json"), Duration::ZERO).await;
        match post_json_within(&url, &serde_json::json!({}), true, limits).await {
            Outcome::Answered { status, body, .. } => {
                assert_eq!(status, 500);
                assert_eq!(body, b"not json");
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_redirect_to_another_origin_is_not_followed() {
        // Same host, another port: another origin.
        let elsewhere = answering(
            http_response("200 OK", "", b"{\"followed\":true}"),
            Duration::ZERO,
        )
        .await;
        let url = answering(
            http_response(
                "307 Temporary Redirect",
                &format!("location: {elsewhere}/x\r\n"),
                b"",
            ),
            Duration::ZERO,
        )
        .await;
        match post_json_within(&url, &serde_json::json!({}), true, Limits::default()).await {
            Outcome::Answered { status, .. } => assert_eq!(status, 307),
            other => panic!("{other:?}"),
        }
    }
}
