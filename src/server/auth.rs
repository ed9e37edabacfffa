//! Who is asking: the session's developer, looked up once per request
//! before any page or server function runs; and whether a log-in attempt may
//! go ahead and its password matches.

use super::{db::Db, internal, password, repo, state::AppState};
use crate::domain::{
    account::CurrentDeveloper,
    throttle::{too_many_attempts_message, PER_CLIENT, PER_EMAIL},
    AppError,
};
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
/// [`CurrentDeveloper`] with their organizations ([`Memberships`](crate::domain::org::Memberships)),
/// for pages and server functions to read, and extends the session. A session whose account is gone is ended.
pub async fn load_developer(
    State(state): State<AppState>,
    session: Session,
    mut request: Request,
    next: Next,
) -> Response {
    if !is_anonymous_path(request.uri().path()) {
        match session.get::<i64>(DEVELOPER_ID_KEY).await {
            Ok(Some(id)) => match repo::developers::find_signed_in(&state.db, id).await {
                Ok(Some((developer, memberships))) => {
                    keep_alive(&session).await;
                    request.extensions_mut().insert(developer);
                    request.extensions_mut().insert(memberships);
                }
                Ok(None) => {
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
pub async fn keep_alive(session: &Session) {
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

/// One log-in attempt for `email` (normalised) from `client`, made at
/// `now`: the id of the developer whose password it is, or why not.
/// Repeated failures are refused before any hashing; a wrong email and a
/// wrong password get the same answer in about the same time.
///
/// The attempt is written first and the limits count it with every other
/// attempt in the window, finished or not, so parallel attempts cannot all
/// pass the check before any of them is recorded. It must run to its end
/// (the caller spawns it): only its end takes it back, marks it failed, or
/// forgives it.
pub async fn check_log_in(
    db: Db,
    email: String,
    client: String,
    password: String,
    now: i64,
) -> Result<i64, AppError> {
    let db = &db;
    let attempt = repo::login_failures::record(db, &email, &client, now)
        .await
        .map_err(internal)?;
    let by_email =
        repo::login_failures::since_for_email(db, &email, PER_EMAIL.window_start(now), attempt)
            .await
            .map_err(internal)?;
    let by_client =
        repo::login_failures::since_for_client(db, &client, PER_CLIENT.window_start(now), attempt)
            .await
            .map_err(internal)?;
    let wait = [
        PER_EMAIL.retry_after(&by_email, now),
        PER_CLIENT.retry_after(&by_client, now),
    ]
    .into_iter()
    .flatten()
    .max();
    if let Some(wait) = wait {
        // Refused attempts do not count as failures.
        repo::login_failures::withdraw(db, attempt)
            .await
            .map_err(internal)?;
        tracing::warn!(%client, "log-in throttled");
        return Err(AppError::TooManyRequests(too_many_attempts_message(wait)));
    }

    let record = repo::developers::find_by_email(db, &email)
        .await
        .map_err(internal)?;
    let stored_hash = record.as_ref().map(|r| r.password_hash.clone());
    let matches = password::verify_password(password, stored_hash).await?;
    let Some(record) = record.filter(|_| matches) else {
        // The attempt written above stays, as a finished failure. Old
        // failures no longer count; keep the table small.
        if let Err(error) = repo::login_failures::fail(db, attempt).await {
            // Unfinished, it still counts (until it is too old to).
            tracing::warn!(%error, "could not mark a failed log-in");
        }
        let _ = repo::login_failures::prune(db, PER_EMAIL.window_start(now) - 1).await;
        tracing::info!(%client, "failed log-in");
        return Err(AppError::InvalidCredentials);
    };

    repo::login_failures::forgive_for_email(db, &email, &client, attempt)
        .await
        .map_err(internal)?;
    Ok(record.id)
}
