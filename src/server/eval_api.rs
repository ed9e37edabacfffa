//! Evals for CI: `POST /api/v1/apps/{package}/evals/runs` queues a run,
//! `GET /api/v1/apps/{package}/evals/runs/{id}` says where it stands and,
//! once done, its score and results — so that a build can fail when the
//! model's choices get worse. Both take an app API key that may do more
//! than export (a run spends the organization's provider credit), speaking
//! for the developer who made it.

use super::{
    evals,
    exports::{holder_of_key, internal, json_error},
    state::AppState,
};
use crate::domain::{eval::EVAL_API_EXPORT_ONLY, AppError};
use axum::{
    extract::{Path, State},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use serde::Deserialize;
use serde_json::json;

/// The body of `POST …/evals/runs`.
#[derive(Debug, Deserialize)]
pub struct StartRun {
    provider: String,
    /// 3 when not given.
    trials: Option<serde_json::Value>,
}

/// `POST /api/v1/apps/{package}/evals/runs` with `{"provider", "trials"}`:
/// 202 `{"id", "status"}`.
pub async fn start(
    State(state): State<AppState>,
    Path(package_name): Path<String>,
    headers: HeaderMap,
    body: Result<Json<StartRun>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let (app, holder) = match holder_of_key(&state, &package_name, &headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if holder.export_only {
        return json_error(
            StatusCode::FORBIDDEN,
            json!({ "error": EVAL_API_EXPORT_ONLY }),
        );
    }
    let Json(body) = match body {
        Ok(body) => body,
        Err(rejection) => {
            return json_error(
                StatusCode::BAD_REQUEST,
                json!({ "error": format!("Send JSON like {{\"provider\": \"OpenAI\", \"trials\": 3}}: {rejection}") }),
            )
        }
    };
    let trials = match &body.trials {
        None => "3".to_owned(),
        Some(serde_json::Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    };
    match evals::queue(&state, &app, holder.developer_id, &body.provider, &trials).await {
        Ok(id) => {
            tracing::info!(
                run = id,
                key = holder.key_id,
                "eval run queued through the API"
            );
            (
                StatusCode::ACCEPTED,
                Json(json!({ "id": id, "status": "queued" })),
            )
                .into_response()
        }
        Err(AppError::Validation(errors)) => {
            let fields: serde_json::Map<String, serde_json::Value> = errors
                .iter()
                .map(|(field, messages)| (field.to_owned(), json!(messages.join(" "))))
                .collect();
            let error = fields
                .iter()
                .map(|(field, message)| format!("{field}: {}", message.as_str().unwrap_or("")))
                .collect::<Vec<_>>()
                .join("; ");
            json_error(
                StatusCode::BAD_REQUEST,
                json!({ "error": error, "fields": fields }),
            )
        }
        Err(error) => {
            let status =
                StatusCode::from_u16(error.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            json_error(status, json!({ "error": error.to_string() }))
        }
    }
}

/// `GET /api/v1/apps/{package}/evals/runs/{id}`: the run's status, score
/// (0 to 1, of the calls made), revision and results case by case.
pub async fn get(
    State(state): State<AppState>,
    Path((package_name, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let (app, _) = match holder_of_key(&state, &package_name, &headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    // Read after the key: an id that is no number is a run that is not there.
    let Ok(id) = id.parse::<i64>() else {
        return json_error(StatusCode::NOT_FOUND, json!({ "error": "Not found" }));
    };
    let (run, summary) = match evals::report(&state, app.id, id).await {
        Ok(Some(found)) => found,
        Ok(None) => return json_error(StatusCode::NOT_FOUND, json!({ "error": "Not found" })),
        Err(error) => return internal(error),
    };
    let results: Vec<serde_json::Value> = summary
        .cases
        .iter()
        .map(|result| {
            json!({
                "utterance": result.case.utterance,
                "expected": result.case.expected,
                "chosen": result.trials.iter().map(|t| t.chosen()).collect::<Vec<_>>(),
                "passed": !result.passed.is_empty() && result.passed.iter().all(|p| *p),
                "trials_passed": result.passed.iter().filter(|p| **p).count(),
                "unstable": result.unstable,
            })
        })
        .collect();
    Json(json!({
        "id": run.id,
        "status": run.status.key(),
        "score": run.score().ratio(),
        "passed": run.calls_passed,
        "calls": run.calls_done,
        "calls_total": run.calls_total,
        "revision": run.revision,
        "provider": run.provider,
        "model": run.model,
        "error": run.error,
        "tokens": { "prompt": run.prompt_tokens, "completion": run.completion_tokens },
        "duration_ms": run.duration_ms(),
        "results": results,
    }))
    .into_response()
}
