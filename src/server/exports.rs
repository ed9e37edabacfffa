//! Exports over plain HTTP: the console's download (session) and the
//! read-only API (`Authorization: Bearer <API key>`).

use super::{clock::now_ms, repo, repo::apps::StoredApp, state::AppState};
use crate::{
    domain::account::CurrentDeveloper,
    domain::checks,
    domain::export::{render_text, ExportOptions, Format},
    domain::{org::Action, AppError},
};
use axum::body::Bytes;
use axum::{
    extract::{Path, Query, State},
    http::{header, HeaderMap, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
    Extension, Json,
};
use serde::Deserialize;

/// The export of `app` (as loaded, at its revision), rendered once per revision.
pub async fn rendered(
    state: &AppState,
    app: &StoredApp,
    format: Format,
    options: ExportOptions,
) -> Result<Bytes, sqlx::Error> {
    let key = (app.id, app.details.revision, (format, options));
    if let Some(hit) = state.exports.get(&key) {
        return Ok(hit);
    }
    let mut config = repo::apps::load_config(&state.db, app).await?;
    // The exports name the app's own package, whatever a file said once.
    if config
        .extra
        .contains_key(crate::domain::config::PACKAGE_NAME_KEY)
    {
        std::sync::Arc::make_mut(&mut config).claim_package(&app.details.package_name);
    }
    let text = Bytes::from(render_text(&config, format, options));
    state.exports.put(key, text.clone());
    Ok(text)
}

/// `?format=KEY&include_phrases=…&strict=…` (checkbox values: any value is on).
#[derive(Debug, Default, Deserialize)]
pub struct ExportQuery {
    format: Option<String>,
    include_phrases: Option<String>,
    strict: Option<String>,
}

impl ExportQuery {
    fn options(&self) -> ExportOptions {
        let on = |v: &Option<String>| {
            v.as_deref()
                .is_some_and(|v| !matches!(v, "" | "0" | "false" | "off"))
        };
        ExportOptions {
            include_phrases: on(&self.include_phrases),
            strict: on(&self.strict),
        }
    }

    /// The format asked for (`mentra` when none), or the 400 answer.
    fn format(&self) -> Result<Format, Box<Response>> {
        match self
            .format
            .as_deref()
            .map(str::trim)
            .filter(|k| !k.is_empty())
        {
            None => Ok(Format::Mentra),
            Some(key) => Format::parse(key).ok_or_else(|| {
                Box::new(json_error(
                    StatusCode::BAD_REQUEST,
                    serde_json::json!({
                        "error": format!("Unknown format {key:?}. Use one of: {}.", Format::list()),
                        "formats": Format::ALL.map(Format::key),
                    }),
                ))
            }),
        }
    }
}

pub(super) fn json_error(status: StatusCode, body: serde_json::Value) -> Response {
    (status, Json(body)).into_response()
}

pub(super) fn internal(error: sqlx::Error) -> Response {
    tracing::error!(%error, "export failed");
    json_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        serde_json::json!({ "error": "Internal error" }),
    )
}

fn export_response(text: Bytes, format: Format, attachment: bool) -> Response {
    let mut response = (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        text,
    )
        .into_response();
    if attachment {
        let disposition = format!("attachment; filename=\"{}\"", format.file_name());
        if let Ok(value) = HeaderValue::from_str(&disposition) {
            response
                .headers_mut()
                .insert(header::CONTENT_DISPOSITION, value);
        }
    }
    response
}

/// `GET /console/apps/{package}/export/download`: the export as a file.
pub async fn download(
    State(state): State<AppState>,
    developer: Option<Extension<CurrentDeveloper>>,
    Path(package_name): Path<String>,
    Query(query): Query<ExportQuery>,
) -> Response {
    let Some(Extension(developer)) = developer else {
        return StatusCode::UNAUTHORIZED.into_response();
    };
    let format = match query.format() {
        Ok(format) => format,
        Err(response) => return *response,
    };
    let app = match super::access::app(&state.db, &developer, &package_name, Action::Read).await {
        Ok((app, _)) => app,
        Err(AppError::NotFound) => return (StatusCode::NOT_FOUND, "Not found").into_response(),
        Err(error) => {
            let status =
                StatusCode::from_u16(error.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            return (status, error.to_string()).into_response();
        }
    };
    match rendered(&state, &app, format, query.options()).await {
        Ok(text) => export_response(text, format, true),
        Err(error) => internal(error),
    }
}

/// The bearer token of a request, if it has one.
pub(super) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

pub(super) fn unauthorized(message: &str) -> Response {
    let mut response = json_error(
        StatusCode::UNAUTHORIZED,
        serde_json::json!({ "error": message }),
    );
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// The app of `package_name` if the request's API key is one of its live
/// keys: otherwise 401 without a live key, 404 for a key of another app (or
/// an unknown app), the same answer either way.
async fn app_of_key(
    state: &AppState,
    package_name: &str,
    headers: &HeaderMap,
) -> Result<StoredApp, Response> {
    Ok(holder_of_key(state, package_name, headers).await?.0)
}

/// [`app_of_key`], with who the key speaks for.
pub(super) async fn holder_of_key(
    state: &AppState,
    package_name: &str,
    headers: &HeaderMap,
) -> Result<(StoredApp, repo::api_keys::KeyHolder), Response> {
    let Some(key) = bearer(headers) else {
        return Err(unauthorized(
            "Send an API key: Authorization: Bearer <key>.",
        ));
    };
    let holder = match repo::api_keys::holder(&state.db, key, now_ms()).await {
        Ok(Some(holder)) => holder,
        Ok(None) => {
            return Err(unauthorized(
                "This API key is not valid (unknown or revoked).",
            ))
        }
        Err(error) => return Err(internal(error)),
    };
    match repo::apps::find_by_package(&state.db, package_name).await {
        Ok(Some(app)) if app.id == holder.app_id => Ok((app, holder)),
        Ok(_) => Err(json_error(
            StatusCode::NOT_FOUND,
            serde_json::json!({ "error": "Not found" }),
        )),
        Err(error) => Err(internal(error)),
    }
}

/// `GET /api/v1/apps/{package}/config?format=KEY`: the export, for a key of
/// the app (see [`app_of_key`]); 400 for an unknown format.
pub async fn api_config(
    State(state): State<AppState>,
    Path(package_name): Path<String>,
    Query(query): Query<ExportQuery>,
    headers: HeaderMap,
) -> Response {
    let app = match app_of_key(&state, &package_name, &headers).await {
        Ok(app) => app,
        Err(response) => return response,
    };
    let format = match query.format() {
        Ok(format) => format,
        Err(response) => return *response,
    };
    match rendered(&state, &app, format, query.options()).await {
        Ok(text) => export_response(text, format, false),
        Err(error) => internal(error),
    }
}

/// `GET /api/v1/apps/{package}/checks`: the app's findings and whether each
/// export is ready, so that a CI job can fail a build on a blocker. The
/// same key rule as the config API.
pub async fn api_checks(
    State(state): State<AppState>,
    Path(package_name): Path<String>,
    headers: HeaderMap,
) -> Response {
    let app = match app_of_key(&state, &package_name, &headers).await {
        Ok(app) => app,
        Err(response) => return response,
    };
    match repo::apps::load_config(&state.db, &app).await {
        Ok(config) => Json(checks::check(&config).to_json()).into_response(),
        Err(error) => internal(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens_are_read_case_insensitively_and_trimmed() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer  tw_abc "),
        );
        assert_eq!(bearer(&headers), Some("tw_abc"));
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Basic dXNlcg=="),
        );
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&headers), None);
    }

    #[test]
    fn checkbox_values_turn_options_on() {
        let query = ExportQuery {
            format: None,
            include_phrases: Some("on".into()),
            strict: Some("false".into()),
        };
        assert_eq!(
            query.options(),
            ExportOptions {
                include_phrases: true,
                strict: false
            }
        );
        assert!(matches!(query.format(), Ok(Format::Mentra)));
    }
}
