//! What a server function knows about the request it serves.

use crate::domain::{
    account::CurrentDeveloper,
    org::{Action, Memberships, Role},
    AppError,
};
use crate::server::AppState;
use leptos::prelude::use_context;

fn request_parts() -> Option<http::request::Parts> {
    use_context::<http::request::Parts>()
}

/// The developer of the request's session, if signed in.
pub fn current_developer() -> Option<CurrentDeveloper> {
    request_parts().and_then(|parts| parts.extensions.get::<CurrentDeveloper>().cloned())
}

/// The signed-in developer, or [`AppError::Unauthorized`]. Every server
/// function that touches developer data starts here, or with [`app_for`].
pub fn require_developer() -> Result<CurrentDeveloper, AppError> {
    current_developer().ok_or(AppError::Unauthorized)
}

/// The request's session (loaded by the session layer).
pub fn session() -> Result<tower_sessions::Session, AppError> {
    request_parts()
        .and_then(|parts| parts.extensions.get::<tower_sessions::Session>().cloned())
        .ok_or_else(|| {
            tracing::error!("no session layer in front of a server function");
            AppError::Internal
        })
}

/// Who the request comes from, for throttling by client: the connection's
/// peer, or the client a trusted reverse proxy forwarded for — an IPv6
/// client as its /64 network (see [`crate::server::client`]).
pub fn client_address() -> String {
    let trusted = state()
        .map(|state| state.config.trusted_proxies.clone())
        .unwrap_or_default();
    request_parts()
        .and_then(|parts| {
            let peer = parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()?
                .0
                .ip();
            // Several header lines make one list, in order.
            let lines: Vec<&str> = parts
                .headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|value| value.to_str().ok())
                .collect();
            let forwarded_for = (!lines.is_empty()).then(|| lines.join(","));
            let client = crate::server::client::client_ip(peer, forwarded_for.as_deref(), &trusted);
            Some(crate::server::client::throttle_key(client))
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The console's origin as this request reached it (see
/// [`crate::server::client::origin`]), for the URLs the console hands out.
pub fn console_origin() -> String {
    let (trusted, secure) = state()
        .map(|state| {
            (
                state.config.trusted_proxies.clone(),
                state.config.secure_cookies,
            )
        })
        .unwrap_or_default();
    request_parts()
        .and_then(|parts| {
            let peer = parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()?
                .0
                .ip();
            let host = parts.headers.get(http::header::HOST)?.to_str().ok()?;
            let proto = parts
                .headers
                .get("x-forwarded-proto")
                .and_then(|value| value.to_str().ok());
            Some(crate::server::client::origin(
                peer, host, proto, &trusted, secure,
            ))
        })
        .unwrap_or_else(|| "http://127.0.0.1:3000".to_owned())
}

/// Whether the request is a plain HTML form post (no JavaScript), which
/// expects a redirect rather than data.
pub fn is_plain_form_post() -> bool {
    request_parts()
        .and_then(|parts| {
            parts
                .headers
                .get(http::header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .map(|accept| accept.contains("text/html"))
        })
        .unwrap_or(false)
}

pub fn state() -> Result<AppState, AppError> {
    AppState::from_context()
}

pub use crate::server::internal;

/// The signed-in developer and app `package_name`, if they may do
/// `action` to it (see [`crate::server::access`]): [`AppError::Unauthorized`]
/// without a session, [`AppError::NotFound`] outside its organization (as for
/// an unknown app), [`AppError::NotAllowed`] for a member asking for an
/// admin's action.
pub async fn app_for(
    state: &AppState,
    package_name: &str,
    action: Action,
) -> Result<(CurrentDeveloper, crate::server::repo::apps::StoredApp), AppError> {
    let developer = require_developer()?;
    let (app, _) = crate::server::access::app(&state.db, &developer, package_name, action).await?;
    Ok((developer, app))
}

/// [`app_for`], and the app's configuration at the revision it was read at.
pub async fn app_config_for(
    state: &AppState,
    package_name: &str,
    action: Action,
) -> Result<
    (
        CurrentDeveloper,
        crate::server::repo::apps::StoredApp,
        std::sync::Arc<crate::domain::config::AppConfig>,
    ),
    AppError,
> {
    let (developer, app) = app_for(state, package_name, action).await?;
    let config = crate::server::repo::apps::load_config(&state.db, &app)
        .await
        .map_err(internal)?;
    Ok((developer, app, config))
}

/// The signed-in developer and organization `slug`, with their role in it,
/// if they may do `action` to it (as [`app_for`] says).
pub async fn org_for(
    state: &AppState,
    slug: &str,
    action: Action,
) -> Result<(CurrentDeveloper, crate::server::repo::orgs::OrgRef, Role), AppError> {
    let developer = require_developer()?;
    let (org, role) = crate::server::access::org(&state.db, &developer, slug, action).await?;
    Ok((developer, org, role))
}

/// The signed-in developer's organizations and their current one (empty
/// when not signed in).
pub fn memberships() -> Memberships {
    request_parts()
        .and_then(|parts| parts.extensions.get::<Memberships>().cloned())
        .unwrap_or_default()
}
