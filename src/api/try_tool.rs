//! "Try a tool": the console sends the tool's `ToolCall` to the app's own
//! server and reports what came back.

use super::AppError;
#[cfg(feature = "ssr")]
use crate::domain::org::Action;
use crate::domain::{tool::Tool, tool_call::Reply};
use leptos::{prelude::*, server_fn::codec::Json};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the try page needs: the tool, where it is sent, for whom by default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TryTarget {
    pub app_name: String,
    pub tool: Tool,
    /// `{publicUrl}/tool`
    pub url: String,
    pub default_user: String,
}

/// What sending came to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Delivery {
    /// The app answered (see the reply's meaning).
    Answered(Reply),
    /// Not sent: the URL or its address is not allowed.
    Blocked(String),
    /// No answer within 20 seconds.
    TimedOut,
    /// No connection, or the request failed.
    Unreachable(String),
    /// The answer was over 1 MiB.
    TooLarge,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendResult {
    pub delivery: Delivery,
    pub status: Option<u16>,
    pub latency_ms: u64,
    /// The answer's body as text (shortened), for showing.
    pub body: String,
    /// The exact body that was sent.
    pub sent: String,
}

/// Sends allowed per developer per minute.
pub const SENDS_PER_MINUTE: usize = 30;

#[server(prefix = "/api", endpoint = "tools/try-target", input = Json)]
pub async fn get_try_target(package_name: String, tool_id: String) -> Result<TryTarget, AppError> {
    Ok(try_target(&package_name, &tool_id).await?.1)
}

/// The signed-in developer and where their tool `tool_id` of app
/// `package_name` is sent.
#[cfg(feature = "ssr")]
async fn try_target(
    package_name: &str,
    tool_id: &str,
) -> Result<(super::auth::CurrentDeveloper, TryTarget), AppError> {
    use crate::{api::context, server::repo};
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, package_name, Action::Edit).await?;
    let tool = repo::apps::load_config(&state.db, &app)
        .await
        .map_err(context::internal)?
        .tools
        .iter()
        .find(|t| t.id == tool_id)
        .map(|tool| (**tool).clone())
        .ok_or(AppError::NotFound)?;
    let target = TryTarget {
        app_name: app.details.name,
        tool,
        url: format!("{}/tool", app.details.public_url),
        default_user: developer.email.clone(),
    };
    Ok((developer, target))
}

/// Builds the `ToolCall` from `inputs` (text per parameter name) and POSTs it
/// to the app's server. Only the app's owner can send, a limited number of
/// times a minute.
#[server(prefix = "/api", endpoint = "tools/try", input = Json)]
pub async fn send_tool_call(
    package_name: String,
    tool_id: String,
    inputs: BTreeMap<String, String>,
    user_id: String,
) -> Result<SendResult, AppError> {
    use crate::{
        api::context,
        domain::{
            throttle::ThrottlePolicy,
            time::format_iso8601,
            tool_call::{build_tool_call, interpret},
        },
        server::{clock::now_ms, outbound, repo},
    };
    let (developer, target) = try_target(&package_name, &tool_id).await?;
    let state = context::state()?;

    let now = now_ms();
    let policy = ThrottlePolicy {
        max_failures: SENDS_PER_MINUTE,
        window_ms: 60_000,
    };
    let wait = repo::tool_sends::record(&state.db, developer.id, now, policy)
        .await
        .map_err(context::internal)?;
    if let Some(wait) = wait {
        return Err(AppError::TooManyRequests(format!(
            "You have sent {SENDS_PER_MINUTE} tool calls in the last minute. Try again in {} seconds.",
            (wait + 999) / 1000
        )));
    }

    let body = build_tool_call(&target.tool, &inputs, &user_id, &format_iso8601(now))?;
    let sent = serde_json::to_string_pretty(&body).unwrap_or_default();
    tracing::info!(developer = developer.id, url = %target.url, tool = %target.tool.id, "trying a tool");
    let outcome = outbound::post_json(&target.url, &body, state.config.allow_private_targets).await;
    let shown = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(json) => serde_json::to_string_pretty(&json).unwrap_or_else(|_| text.to_string()),
            Err(_) => text.chars().take(20_000).collect(),
        }
    };
    let result = match outcome {
        outbound::Outcome::Answered {
            status,
            body,
            latency,
            ..
        } => SendResult {
            delivery: Delivery::Answered(interpret(status, &body)),
            status: Some(status),
            latency_ms: latency.as_millis() as u64,
            body: shown(&body),
            sent,
        },
        outbound::Outcome::Blocked(why) => SendResult {
            delivery: Delivery::Blocked(why),
            status: None,
            latency_ms: 0,
            body: String::new(),
            sent,
        },
        outbound::Outcome::TimedOut { latency } => SendResult {
            delivery: Delivery::TimedOut,
            status: None,
            latency_ms: latency.as_millis() as u64,
            body: String::new(),
            sent,
        },
        outbound::Outcome::Unreachable(why) => SendResult {
            delivery: Delivery::Unreachable(why),
            status: None,
            latency_ms: 0,
            body: String::new(),
            sent,
        },
        outbound::Outcome::TooLarge { status, latency } => SendResult {
            delivery: Delivery::TooLarge,
            status: Some(status),
            latency_ms: latency.as_millis() as u64,
            body: String::new(),
            sent,
        },
    };
    Ok(result)
}
