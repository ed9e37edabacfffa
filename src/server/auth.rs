//! Who is asking: the session's developer, loaded once per request.

use super::{repo, state::AppState};
use crate::api::auth::CurrentDeveloper;
use axum::{
    extract::{Request, State},
    http::{Method, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};
use tower_sessions::Session;

/// The session key holding the signed-in developer's id.
pub const DEVELOPER_ID_KEY: &str = "developer_id";

/// Paths that never need to know who is asking (static files, health).
fn is_anonymous_path(path: &str) -> bool {
    path.starts_with("/pkg/")
        || path == "/healthz"
        || path == "/favicon.svg"
        || path == "/favicon.ico"
}

/// Puts the session's developer, if any, into the request's extensions as a
/// [`CurrentDeveloper`], for pages and server functions to read.
pub async fn load_developer(
    State(state): State<AppState>,
    session: Session,
    mut request: Request,
    next: Next,
) -> Response {
    if !is_anonymous_path(request.uri().path()) {
        match session.get::<i64>(DEVELOPER_ID_KEY).await {
            Ok(Some(id)) => match repo::developers::find_by_id(&state.db, id).await {
                Ok(Some(developer)) => {
                    keep_alive(&session).await;
                    request.extensions_mut().insert(developer);
                }
                Ok(None) => {
                    // The account is gone; so is the session.
                    let _ = session.flush().await;
                }
                Err(error) => {
                    tracing::error!(%error, "cannot load the session's developer");
                    return (StatusCode::INTERNAL_SERVER_ERROR, "Internal error").into_response();
                }
            },
            Ok(None) => {}
            Err(error) => {
                tracing::error!(%error, "cannot load the session");
                return (StatusCode::INTERNAL_SERVER_ERROR, "Internal error").into_response();
            }
        }
    }
    next.run(request).await
}

/// The session key holding when the session was last extended.
const SEEN_AT_KEY: &str = "seen_at";
/// How often a signed-in developer's session is extended (a store write).
const KEEP_ALIVE_EVERY_MS: i64 = 60 * 60 * 1000;

/// Makes the inactivity expiry slide: tower-sessions only re-saves a session
/// (and so pushes its expiry and the cookie's Max-Age forward) when it is
/// modified, so an active session is touched at most once an hour.
async fn keep_alive(session: &Session) {
    let now = super::clock::now_ms();
    let seen_at = session.get::<i64>(SEEN_AT_KEY).await.ok().flatten();
    if seen_at.is_none_or(|at| now - at >= KEEP_ALIVE_EVERY_MS) {
        if let Err(error) = session.insert(SEEN_AT_KEY, now).await {
            tracing::warn!(%error, "could not extend the session");
        }
    }
}

/// Sends a visitor who is not signed in from any `/console/…` page to
/// `/login`, remembering where they were going.
pub async fn require_developer_for_console(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let is_console = path == "/console" || path.starts_with("/console/");
    let is_page = matches!(*request.method(), Method::GET | Method::HEAD);
    if is_console && is_page && request.extensions().get::<CurrentDeveloper>().is_none() {
        let target = request
            .uri()
            .path_and_query()
            .map(|pq| pq.as_str())
            .unwrap_or(path);
        let location = format!(
            "/login?next={}",
            crate::domain::url::encode_component(target)
        );
        return (
            StatusCode::SEE_OTHER,
            [(axum::http::header::LOCATION, location)],
        )
            .into_response();
    }
    next.run(request).await
}
