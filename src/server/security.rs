//! Refusing cross-site requests, and the security headers of every response.

use axum::{
    extract::Request,
    http::{header, HeaderMap, HeaderValue, Method, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};

/// The policy of responses that are not pages (server functions, static
/// files, `/healthz`): nothing may run, nothing may frame.
const DEFAULT_CSP: &str =
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// The policy of a page: only the console's own scripts — its bundle, and the
/// inline hydration script carrying this response's `nonce`.
pub fn page_csp(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; \
         object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// The nonce of one response's inline scripts, made here and handed to the
/// renderer through the request's extensions (see `server::http`), so the
/// header and the page cannot disagree.
#[derive(Clone, Debug)]
pub struct PageNonce(pub String);

impl PageNonce {
    fn new() -> PageNonce {
        let mut bytes = [0_u8; 16];
        if getrandom::fill(&mut bytes).is_err() {
            // No randomness: no nonce anyone could guess either; the
            // inline script is then blocked rather than the policy weakened.
            tracing::error!("no randomness for a CSP nonce");
        }
        PageNonce(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }
}

/// Adds the security headers to every response: HTML pages get the policy
/// with this request's nonce, everything else the closed default.
pub async fn security_headers(mut request: Request, next: Next) -> Response {
    let nonce = PageNonce::new();
    request.extensions_mut().insert(nonce.clone());
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    let is_html = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    let policy = if is_html {
        HeaderValue::from_str(&page_csp(&nonce.0)).unwrap_or(HeaderValue::from_static(DEFAULT_CSP))
    } else {
        HeaderValue::from_static(DEFAULT_CSP)
    };
    headers
        .entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(policy);
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// Refuses, with 403, a state-changing request that a browser says comes
/// from another site. Requests without `Origin` or `Sec-Fetch-Site` (curl,
/// API clients) pass: they carry no ambient browser credentials worth
/// forging, and the session cookie is `SameSite=Lax` besides.
pub async fn refuse_cross_site(request: Request, next: Next) -> Response {
    if is_state_changing(request.method()) && is_cross_site(request.headers()) {
        tracing::warn!(
            method = %request.method(),
            path = %request.uri().path(),
            origin = ?request.headers().get(header::ORIGIN),
            "refused a cross-site request"
        );
        return (StatusCode::FORBIDDEN, "Cross-site request refused.").into_response();
    }
    next.run(request).await
}

fn is_state_changing(method: &Method) -> bool {
    !matches!(
        *method,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE
    )
}

/// Whether the browser's own headers say the request comes from elsewhere.
pub fn is_cross_site(headers: &HeaderMap) -> bool {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    cross_site_verdict(
        text(header::HeaderName::from_static("sec-fetch-site")),
        text(header::ORIGIN),
        text(header::HOST),
    )
}

/// The decision itself: `Sec-Fetch-Site` must be `same-origin` (or `none`,
/// a user action), and `Origin` must name the host the request was sent to.
pub fn cross_site_verdict(
    sec_fetch_site: Option<&str>,
    origin: Option<&str>,
    host: Option<&str>,
) -> bool {
    if let Some(site) = sec_fetch_site {
        if !matches!(site, "same-origin" | "none") {
            return true;
        }
    }
    if let Some(origin) = origin {
        let Some(host) = host else { return true };
        let Some((_scheme, authority)) = origin.split_once("://") else {
            // "null" (sandboxed frames, some redirects) or garbage.
            return true;
        };
        if !authority.eq_ignore_ascii_case(host) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_same_origin_post_passes() {
        assert!(!cross_site_verdict(
            Some("same-origin"),
            Some("http://127.0.0.1:3000"),
            Some("127.0.0.1:3000")
        ));
    }

    #[test]
    fn a_request_without_browser_headers_passes() {
        assert!(!cross_site_verdict(None, None, Some("127.0.0.1:3000")));
    }

    #[test]
    fn another_origin_is_refused() {
        assert!(cross_site_verdict(
            None,
            Some("https://evil.example"),
            Some("console.example")
        ));
        assert!(cross_site_verdict(
            None,
            Some("http://127.0.0.1:3001"),
            Some("127.0.0.1:3000")
        ));
    }

    #[test]
    fn a_cross_site_or_same_site_fetch_is_refused_even_without_origin() {
        assert!(cross_site_verdict(Some("cross-site"), None, Some("h")));
        assert!(cross_site_verdict(Some("same-site"), None, Some("h")));
    }

    #[test]
    fn a_null_origin_is_refused() {
        assert!(cross_site_verdict(None, Some("null"), Some("h")));
    }

    #[test]
    fn host_comparison_ignores_case() {
        assert!(!cross_site_verdict(
            None,
            Some("https://Console.Example"),
            Some("console.example")
        ));
    }

    #[test]
    fn the_page_policy_carries_the_nonce_and_forbids_framing() {
        let csp = page_csp("abc123");
        assert!(csp.contains("script-src 'self' 'nonce-abc123'"));
        assert!(csp.contains("frame-ancestors 'none'"));
        assert!(!csp.contains("unsafe-inline"));
    }
}
