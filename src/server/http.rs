//! The HTTP surface: the Leptos pages and server functions, `/healthz`,
//! static files, request logging.

use super::{auth, eval_api, exports, mcp, security, state::AppState};
use crate::domain::AppError;
use axum::{
    extract::State,
    http::StatusCode,
    middleware,
    response::{IntoResponse, Response},
    routing::get,
    Json, Router,
};
use leptos::{
    nonce::Nonce,
    prelude::{provide_context, use_context},
};
use std::time::Duration;
use tower_http::{
    compression::{
        predicate::{Predicate, SizeAbove},
        CompressionLayer,
    },
    trace::TraceLayer,
    CompressionLevel,
};

/// How long `/healthz` waits for the database before calling it unavailable.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);

/// What every page render and server function gets in its context: the
/// state, and the nonce the security-headers middleware put in this
/// response's Content-Security-Policy, for the inline scripts.
pub fn page_context(state: AppState) -> impl Fn() + Clone + Send + Sync + 'static {
    move || {
        provide_context(state.clone());
        if let Some(nonce) = use_context::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<security::PageNonce>().cloned())
        {
            provide_context(Nonce::from_value(nonce.0));
        }
    }
}

/// The console's routes — `/healthz`, the export downloads and API, and
/// `pages` (the Leptos pages and server functions, mounted by `app.rs`) —
/// in the layers every request goes through.
pub fn router(state: AppState, pages: Router<AppState>) -> Router {
    // Each app's live MCP server, behind its API keys.
    let mcp = Router::new()
        .route_service("/mcp/{package_name}", mcp::service(state.clone()))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            mcp::require_key,
        ));
    Router::new()
        .merge(mcp)
        .route("/healthz", get(healthz))
        .route(
            "/api/v1/apps/{package_name}/config",
            get(exports::api_config),
        )
        .route(
            "/api/v1/apps/{package_name}/checks",
            get(exports::api_checks),
        )
        .route(
            "/api/v1/apps/{package_name}/evals/runs",
            axum::routing::post(eval_api::start),
        )
        .route(
            "/api/v1/apps/{package_name}/evals/runs/{id}",
            get(eval_api::get),
        )
        .route(
            "/console/apps/{package_name}/export/download",
            get(exports::download),
        )
        .merge(pages)
        // Layers run outside-in in the reverse of this order: logging, headers,
        // the cross-site check, the session, who is asking, the console guard.
        .layer(middleware::from_fn(server_fn_error_status))
        .layer(middleware::from_fn(forget_earlier_form_error))
        .layer(middleware::from_fn(auth::require_developer_for_console))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            auth::load_developer,
        ))
        .layer(state.sessions.layer(&state.config))
        .layer(middleware::from_fn(security::refuse_cross_site))
        .layer(middleware::from_fn(security::security_headers))
        .layer(middleware::from_fn(cache_static_files))
        // Pages and JSON compressed on the fly, quickly; the bundle is sent
        // precompressed at the best level (scripts/precompress.sh) and left alone.
        .layer(
            CompressionLayer::new()
                .gzip(true)
                .br(true)
                .quality(CompressionLevel::Precise(4))
                .compress_when(SizeAbove::new(512).and(is_page_or_json)),
        )
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(request_span)
                .on_response(
                    tower_http::trace::DefaultOnResponse::new()
                        .level(tracing::Level::INFO)
                        .latency_unit(tower_http::LatencyUnit::Micros),
                ),
        )
        .with_state(state)
}

/// The request log's span: the method and the route, never the path as
/// sent or its query. Some paths carry a secret (an invitation link's
/// token, `/invitations/{token}`; a `next=` back to one on the log-in and
/// sign-up pages), and a log is read by more people than the secret was
/// meant for. A path that matched no route is logged without its query.
fn request_span(request: &axum::http::Request<axum::body::Body>) -> tracing::Span {
    let route = request
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map(|matched| matched.as_str().to_owned())
        .unwrap_or_else(|| request.uri().path().to_owned());
    tracing::info_span!("request", method = %request.method(), route = %route)
}

/// A server function's error leaves `server_fn` as a 500 whatever it is;
/// this gives it the status it stands for (422 for invalid input, 401, 404,
/// 409, 429…), so API clients and logs can tell a refusal from a failure.
/// Plain form posts are left alone: they are answered with a redirect.
async fn server_fn_error_status(
    request: axum::extract::Request,
    next: middleware::Next,
) -> Response {
    let response = next.run(request).await;
    if response.status() != StatusCode::INTERNAL_SERVER_ERROR
        || !response
            .headers()
            .contains_key(leptos::server_fn::error::SERVER_FN_ERROR_HEADER)
    {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // Error bodies are a few hundred bytes; anything bigger is left as it is.
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "Internal error").into_response();
    };
    if let Ok(error) = serde_json::from_slice::<AppError>(&bytes) {
        parts.status = server_fn_status(&error);
    }
    Response::from_parts(parts, axum::body::Body::from(bytes))
}

/// A refused plain form post is sent back to the page it came from (its
/// `Referer`) with the error added to the address. A page refused before
/// already has one there: it is taken out first, so the page says the
/// latest error, and its address does not grow with each try.
async fn forget_earlier_form_error(
    mut request: axum::extract::Request,
    next: middleware::Next,
) -> Response {
    if request.method() == axum::http::Method::POST && request.uri().path().starts_with("/api/") {
        let referer = axum::http::header::REFERER;
        let cleaned = request
            .headers()
            .get(&referer)
            .and_then(|value| value.to_str().ok())
            .and_then(crate::domain::url::without_form_error)
            .and_then(|page| axum::http::HeaderValue::from_str(&page).ok());
        if let Some(page) = cleaned {
            request.headers_mut().insert(referer, page);
        }
    }
    next.run(request).await
}

/// The status of a server function's error, as the server sends it.
pub fn server_fn_status(error: &AppError) -> StatusCode {
    match error {
        // On the server, "transport" means the request itself could not be
        // read (a malformed body or missing arguments).
        AppError::Transport(_) => StatusCode::BAD_REQUEST,
        AppError::WithInput(error, _) => server_fn_status(error),
        other => StatusCode::from_u16(other.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
    }
}

/// How long a browser may keep a static file. One whose name carries a
/// hash of its content (`toolwright.<hash>.wasm`) never changes: it is kept
/// for a year and never asked for again. Any other (the favicon) may change
/// with the next deploy: it is checked with the server each time. A page of
/// a new deploy so never meets the code of an old one.
async fn cache_static_files(request: axum::extract::Request, next: middleware::Next) -> Response {
    let policy = static_file_cache_policy(request.uri().path());
    let mut response = next.run(request).await;
    if let Some(policy) = policy.filter(|_| response.status().is_success()) {
        response.headers_mut().insert(
            axum::http::header::CACHE_CONTROL,
            axum::http::HeaderValue::from_static(policy),
        );
    }
    response
}

/// The `Cache-Control` of the static file at `path`, or `None` for what is
/// not a static file (pages, server functions, the API).
fn static_file_cache_policy(path: &str) -> Option<&'static str> {
    let (dir, name) = path.rsplit_once('/')?;
    let is_static = dir.starts_with("/pkg") || (dir.is_empty() && name.starts_with("favicon."));
    if !is_static {
        return None;
    }
    Some(if dir == "/pkg" && is_content_hashed(name) {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    })
}

/// Whether a file name carries the hash of its content, as the build writes
/// it: `stem.HASH.ext`, the hash 22 characters of unpadded base64url.
fn is_content_hashed(name: &str) -> bool {
    let mut parts = name.rsplit('.');
    let (Some(_ext), Some(hash), Some(stem)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    !stem.is_empty()
        && hash.len() == 22
        && hash
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Only pages and JSON are compressed here: compressing the multi-megabyte
/// wasm of a debug build on every request would cost seconds.
fn is_page_or_json(
    _: axum::http::StatusCode,
    _: axum::http::Version,
    headers: &axum::http::HeaderMap,
    _: &axum::http::Extensions,
) -> bool {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html") || t.starts_with("application/json"))
}

/// 200 `{"status":"ok","database":"ok"}` when the database answers within
/// [`HEALTH_TIMEOUT`], 503 otherwise.
async fn healthz(State(state): State<AppState>) -> Response {
    let answer = tokio::time::timeout(HEALTH_TIMEOUT, state.db.ping()).await;
    match answer {
        Ok(Ok(())) => (
            StatusCode::OK,
            Json(serde_json::json!({ "status": "ok", "database": "ok" })),
        )
            .into_response(),
        Ok(Err(error)) => {
            tracing::warn!(%error, "health check: database error");
            unavailable()
        }
        Err(_) => {
            tracing::warn!("health check: database timed out");
            unavailable()
        }
    }
}

fn unavailable() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(serde_json::json!({ "status": "unavailable", "database": "unreachable" })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_bundle_files_are_kept_a_year_and_the_rest_revalidated() {
        let year = Some("public, max-age=31536000, immutable");
        let revalidate = Some("no-cache");
        assert_eq!(
            static_file_cache_policy("/pkg/toolwright.Ab3_-x9Zq0Kd7LmN2pQr4w.wasm"),
            year
        );
        assert_eq!(
            static_file_cache_policy("/pkg/toolwright.Ab3_-x9Zq0Kd7LmN2pQr4w.js"),
            year
        );
        assert_eq!(static_file_cache_policy("/pkg/toolwright.wasm"), revalidate);
        assert_eq!(static_file_cache_policy("/pkg/toolwright.css"), revalidate);
        // Too short, or a character base64url does not have.
        assert_eq!(
            static_file_cache_policy("/pkg/toolwright.Ab3x9Zq0.wasm"),
            revalidate
        );
        assert_eq!(
            static_file_cache_policy("/pkg/toolwright.Ab3+x9Zq0Kd7LmN2pQr4w.wasm"),
            revalidate
        );
        // Files the build does not hash keep their names: checked each time.
        assert_eq!(
            static_file_cache_policy("/pkg/snippets/x-1/inline0.Ab3_-x9Zq0Kd7LmN2pQr4w.js"),
            revalidate
        );
        assert_eq!(static_file_cache_policy("/favicon.svg"), revalidate);
        // Not static files.
        assert_eq!(static_file_cache_policy("/console/apps"), None);
        assert_eq!(static_file_cache_policy("/api/tools/save"), None);
        assert_eq!(static_file_cache_policy("/healthz"), None);
        assert_eq!(static_file_cache_policy("/"), None);
    }
}
