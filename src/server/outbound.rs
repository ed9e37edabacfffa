//! Requests from the console to an app's own server ("Try a tool"): only to
//! the app's configured URL, with a timeout, a size cap, no redirects to
//! other hosts, and — unless the console is configured to allow it — never
//! to loopback, private, link-local or metadata addresses (checked on the
//! resolved addresses, and the connection pinned to the one checked).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::{Duration, Instant};

pub const TIMEOUT: Duration = Duration::from_secs(20);
pub const MAX_RESPONSE_BYTES: usize = 1024 * 1024;

/// Why an address may not be called, or `None` when it may.
pub fn forbidden_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                return forbidden_v4(v4);
            }
            let first = v6.segments()[0];
            if v6.is_loopback() {
                Some("loopback")
            } else if v6.is_unspecified() {
                Some("unspecified")
            } else if first & 0xfe00 == 0xfc00 {
                Some("private (unique local)")
            } else if first & 0xffc0 == 0xfe80 {
                Some("link-local")
            } else if first & 0xff00 == 0xff00 {
                Some("multicast")
            } else {
                None
            }
        }
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_private() {
        Some("private")
    } else if ip.is_link_local() {
        // 169.254.0.0/16, which holds the cloud metadata address 169.254.169.254.
        Some("link-local (cloud metadata)")
    } else if ip.is_unspecified() || a == 0 {
        Some("unspecified")
    } else if a == 100 && (64..128).contains(&b) {
        // Shared address space (carrier-grade NAT), also home of some metadata services.
        Some("shared (carrier-grade NAT)")
    } else if ip.is_broadcast() || ip.is_multicast() || a >= 240 {
        Some("broadcast, multicast or reserved")
    } else {
        None
    }
}

/// The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`) or NAT64
/// (`64:ff9b::a.b.c.d`) IPv6 address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    let mapped = s[..5] == [0, 0, 0, 0, 0] && s[5] == 0xffff;
    let nat64 = s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0];
    (mapped || nat64).then_some(tail)
}

/// What a request to the app's server came to.
#[derive(Debug)]
pub enum Outcome {
    /// The server answered (any status) within the limits.
    Answered {
        status: u16,
        body: Vec<u8>,
        latency: Duration,
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
    let response = match client.post(parsed).json(body).send().await {
        Ok(response) => response,
        Err(error) if error.is_timeout() => {
            return Outcome::TimedOut {
                latency: started.elapsed(),
            }
        }
        Err(error) => return Outcome::Unreachable(describe(&error)),
    };
    let status = response.status().as_u16();
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
    }
}

fn describe(error: &reqwest::Error) -> String {
    use std::error::Error as _;
    let mut text = if error.is_connect() {
        "Could not connect to the app's server".to_owned()
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

    #[test]
    fn private_loopback_link_local_and_metadata_ipv4_addresses_are_refused() {
        for ip in [
            "127.0.0.1",
            "127.1.2.3",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "169.254.0.1",
            "0.0.0.0",
            "0.1.2.3",
            "100.64.0.1",
            "100.100.100.200",
            "224.0.0.1",
            "255.255.255.255",
            "240.0.0.1",
        ] {
            assert!(reason(ip).is_some(), "{ip}");
        }
    }

    #[test]
    fn public_ipv4_addresses_are_allowed() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "93.184.216.34",
        ] {
            assert_eq!(reason(ip), None, "{ip}");
        }
    }

    #[test]
    fn ipv6_loopback_private_link_local_and_embedded_ipv4_are_refused() {
        for ip in [
            "::1",
            "::",
            "fc00::1",
            "fd00:ec2::254",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "64:ff9b::a9fe:a9fe",
        ] {
            assert!(reason(ip).is_some(), "{ip}");
        }
        for ip in [
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "::ffff:8.8.8.8",
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
