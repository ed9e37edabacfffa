//! The HTTP surface: the Leptos pages and server functions, `/healthz`,
//! static files, request logging.

use super::{auth, exports, security, state::AppState};
use crate::app::{shell, App};
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
use leptos_axum::{file_and_error_handler_with_context, generate_route_list, LeptosRoutes};
use std::time::Duration;
use tower_http::trace::TraceLayer;

/// How long `/healthz` waits for the database before calling it unavailable.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);

pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let context = {
        let state = state.clone();
        move || {
            provide_context(state.clone());
            // The nonce the security-headers middleware put in this
            // response's Content-Security-Policy, for the inline scripts.
            if let Some(nonce) = use_context::<http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<security::PageNonce>().cloned())
            {
                provide_context(Nonce::from_value(nonce.0));
            }
        }
    };
    let leptos_options = state.leptos_options.clone();

    Router::new()
        .route("/healthz", get(healthz))
        .route(
            "/api/v1/apps/{package_name}/config",
            get(exports::api_config),
        )
        .route(
            "/console/apps/{package_name}/export/download",
            get(exports::download),
        )
        .leptos_routes_with_context(&state, routes, context.clone(), move || {
            shell(leptos_options.clone())
        })
        .fallback(file_and_error_handler_with_context::<AppState, _>(
            context, shell,
        ))
        // Layers run outside-in in the reverse of this order: logging, headers,
        // the cross-site check, the session, who is asking, the console guard.
        .layer(middleware::from_fn(auth::require_developer_for_console))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            auth::load_developer,
        ))
        .layer(state.sessions.layer(&state.config))
        .layer(middleware::from_fn(security::refuse_cross_site))
        .layer(middleware::from_fn(security::security_headers))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
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
