//! Each app's tools as a live MCP server at `/mcp/{packageName}`: the
//! official SDK's Streamable HTTP transport, run stateless (no protocol
//! sessions, so any server process can answer any request), behind a layer
//! that takes the app's API key. `tools/list` is the `mcp` export;
//! `tools/call` becomes the Mentra `ToolCall` "Try a tool" sends, through
//! the same guarded client.

use super::{
    clock::now_ms,
    exports, outbound,
    repo::{self, apps::StoredApp, mcp_calls::CallRecord},
    security,
    state::AppState,
};
use crate::domain::{
    export::{render, ExportOptions, Format},
    mcp::{check_arguments, page, reply_text, shortened, tool_call, LIST_TTL_MS},
    time::format_iso8601,
    tool_call::interpret,
};
use axum::{
    extract::{Path, Request, State},
    http::{header, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
    Json,
};
use rmcp::{
    model::{
        CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
        Implementation, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
        ServerCapabilities, ServerConfig, Tool as McpTool,
    },
    service::RequestContext,
    transport::streamable_http_server::{
        session::never::NeverSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    },
    ErrorData, RoleServer, ServerHandler,
};
use std::{borrow::Cow, sync::Arc, time::Instant};

/// How much of a call's arguments and outcome the Activity list keeps.
const KEPT_CHARS: usize = 300;
/// JSON-RPC error code of a request over the key's limit (a server error).
const RATE_LIMITED: i32 = -32000;

/// The limit of each API key's `tools/list` requests, kept in this process's
/// memory. A list costs only the console, which answers it from the export
/// it has rendered, so counting it in the database (a write per request, on
/// SQLite's one writer) would cost more than the answer. A key gets the
/// same number a minute from each process; `tools/call`, which reaches the
/// app's own server, is counted in the database, across every process.
pub struct ReadLimit {
    limiter: governor::DefaultKeyedRateLimiter<i64>,
    per_minute: usize,
}

impl std::fmt::Debug for ReadLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadLimit")
            .field("per_minute", &self.per_minute)
            .finish_non_exhaustive()
    }
}

impl ReadLimit {
    /// `per_minute` requests a minute for each key, all of them at once if
    /// it likes (as the database's count allows).
    pub fn per_minute(per_minute: usize) -> ReadLimit {
        let count = u32::try_from(per_minute)
            .ok()
            .and_then(std::num::NonZeroU32::new)
            .unwrap_or(std::num::NonZeroU32::MIN);
        ReadLimit {
            limiter: governor::RateLimiter::keyed(governor::Quota::per_minute(count)),
            per_minute,
        }
    }

    /// Takes one request of key `key_id`: `None`, or how many milliseconds
    /// until it may make the next.
    pub fn take(&self, key_id: i64) -> Option<i64> {
        use governor::clock::{Clock, DefaultClock};
        match self.limiter.check_key(&key_id) {
            Ok(()) => None,
            Err(not_until) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                Some(i64::try_from(wait.as_millis()).unwrap_or(i64::MAX).max(1))
            }
        }
    }
}

/// Who is calling, as the key layer found it: the app of the path, and the
/// key (none for the console's own "Test connection").
#[derive(Clone, Debug)]
pub struct Caller {
    pub app: StoredApp,
    pub key_id: Option<i64>,
    /// The developer the `ToolCall`s are for (`userId`).
    pub email: String,
}

/// The service for the router: one for every app (the caller in the
/// request's extensions says which), stateless.
pub fn service(state: AppState) -> StreamableHttpService<Handler, NeverSessionManager> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_allowed_hosts(state.config.allowed_hosts.clone());
    StreamableHttpService::new(
        move || {
            Ok(Handler {
                state: state.clone(),
            })
        },
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

fn refused(status: StatusCode, message: &str) -> Response {
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}

/// The layer in front of the MCP service: a request whose `Origin` is not
/// the console's own is refused (403, DNS rebinding), one without a live
/// key of an app is 401 with `WWW-Authenticate`, a key of another app is
/// 404, as for the config API; a key limited to exports is 403.
pub async fn require_key(
    State(state): State<AppState>,
    Path(package_name): Path<String>,
    mut request: Request,
    next: Next,
) -> Response {
    if request.headers().contains_key(header::ORIGIN) && security::is_cross_site(request.headers())
    {
        return refused(
            StatusCode::FORBIDDEN,
            "This MCP endpoint answers requests from the console's own origin or from outside a browser.",
        );
    }
    // The same key rule as the config API (`/api/v1`).
    let Some(key) = exports::bearer(request.headers()).map(str::to_owned) else {
        return exports::unauthorized("Send an API key of the app: Authorization: Bearer <key>.");
    };
    let holder = match repo::api_keys::holder(&state.db, &key, now_ms()).await {
        Ok(Some(holder)) => holder,
        Ok(None) => {
            return exports::unauthorized("This API key is not valid (unknown or revoked).")
        }
        Err(error) => return internal(error),
    };
    let app = match repo::apps::find_by_package(&state.db, &package_name).await {
        Ok(Some(app)) if app.id == holder.app_id => app,
        Ok(_) => return refused(StatusCode::NOT_FOUND, "Not found"),
        Err(error) => return internal(error),
    };
    if holder.export_only {
        return refused(
            StatusCode::FORBIDDEN,
            "This API key is limited to exports: make a key without “Export only” to connect an assistant.",
        );
    }
    request.extensions_mut().insert(Caller {
        app,
        key_id: Some(holder.key_id),
        email: holder.email,
    });
    next.run(request).await
}

fn internal(error: sqlx::Error) -> Response {
    tracing::error!(%error, "MCP request failed");
    refused(StatusCode::INTERNAL_SERVER_ERROR, "Internal error")
}

/// The app's tools as MCP lists them: the `tools` of the `mcp` export, so
/// the file and the live list never differ.
pub async fn tool_list(
    state: &AppState,
    app: &StoredApp,
) -> Result<Vec<serde_json::Value>, sqlx::Error> {
    let config = repo::apps::load_config(&state.db, app).await?;
    let export = render(&config, Format::Mcp, ExportOptions::default());
    Ok(export["tools"].as_array().cloned().unwrap_or_default())
}

/// The tools `tools/list` answers with, by app revision: listing is what
/// an assistant does most, and an app's list is the same until its next
/// revision, so it is made from the configuration once per revision.
pub type ListedTools = super::export_cache::ByRevision<(), Arc<Vec<McpTool>>>;

/// The app's tools as `tools/list` gives them, kept by revision.
async fn listed_tools(state: &AppState, app: &StoredApp) -> Result<Arc<Vec<McpTool>>, ErrorData> {
    let key = (app.id, app.details.revision, ());
    if let Some(listed) = state.mcp_tools.get(&key) {
        return Ok(listed);
    }
    let tools = tool_list(state, app)
        .await
        .map_err(storage)?
        .into_iter()
        .map(serde_json::from_value::<McpTool>)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
    let listed = Arc::new(tools);
    state.mcp_tools.put(key, listed.clone());
    Ok(listed)
}

/// "Test connection" for the app's owner: what `initialize` and
/// `tools/list` answer, run by the server itself.
pub async fn test_connection(state: &AppState, app: &StoredApp) -> Result<String, sqlx::Error> {
    let handler = Handler {
        state: state.clone(),
    };
    let info = handler.get_info();
    let tools = tool_list(state, app).await?;
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    let versions = handler
        .supported_protocol_versions()
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" and ");
    Ok(match names.len() {
        0 => format!(
            "Connected: {} speaks MCP {versions}. The app has no tools yet, so tools/list is empty.",
            info.server_info.name
        ),
        n => format!(
            "Connected: {} speaks MCP {versions}. tools/list gives {n} {}: {}.",
            info.server_info.name,
            if n == 1 { "tool" } else { "tools" },
            names.join(", ")
        ),
    })
}

/// The MCP requests of one app's caller.
pub struct Handler {
    state: AppState,
}

impl Handler {
    fn caller(context: &RequestContext<RoleServer>) -> Result<Caller, ErrorData> {
        context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>())
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("The request has no caller", None))
    }

    /// Counts a call (it reaches the app's server) against the key's limit,
    /// in the database; over it, an error the client can show.
    async fn count_call(&self, caller: &Caller) -> Result<(), ErrorData> {
        let Some(key_id) = caller.key_id else {
            return Ok(());
        };
        let limit = self.state.config.mcp_requests_per_minute;
        match repo::mcp_calls::record_request(&self.state.db, key_id, now_ms(), limit).await {
            Ok(None) => Ok(()),
            Ok(Some(wait)) => Err(over_limit(limit, wait)),
            Err(error) => Err(storage(error)),
        }
    }

    /// Counts a list (it costs only the console) against the key's limit in
    /// this process, writing nothing.
    fn count_read(&self, caller: &Caller) -> Result<(), ErrorData> {
        let Some(key_id) = caller.key_id else {
            return Ok(());
        };
        match self.state.mcp_reads.take(key_id) {
            None => Ok(()),
            Some(wait) => Err(over_limit(self.state.config.mcp_requests_per_minute, wait)),
        }
    }

    /// Sends the call to the app and says what came of it: the text for the
    /// assistant, and whether it is an error.
    async fn deliver(&self, caller: &Caller, call: &serde_json::Value) -> (String, bool) {
        let public_url = &caller.app.details.public_url;
        let url = format!("{public_url}/tool");
        match outbound::post_json(&url, call, self.state.config.allow_private_targets).await {
            outbound::Outcome::Answered { status, body, .. } => reply_text(&interpret(status, &body)),
            outbound::Outcome::Blocked(why) => (
                format!("The console does not send calls to this app's server URL ({why}). Change the app's Server URL."),
                true,
            ),
            outbound::Outcome::TimedOut { .. } => (
                format!("The app's server at {public_url} did not answer within 20 seconds. Check that it is running, then try again."),
                true,
            ),
            outbound::Outcome::Unreachable(why) => (
                format!("The app's server at {public_url} could not be reached ({why}). Check that it is running and its Server URL is right."),
                true,
            ),
            outbound::Outcome::TooLarge { .. } => (
                "The app's answer was larger than 1 MiB; the console passes on smaller answers only.".to_owned(),
                true,
            ),
        }
    }
}

/// The error of a request over its key's limit, saying when to try again.
fn over_limit(limit: usize, wait_ms: i64) -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode(RATE_LIMITED),
        format!(
            "This API key made {limit} requests this minute. Try again in {} seconds.",
            (wait_ms + 999) / 1000
        ),
        None,
    )
}

fn storage(error: sqlx::Error) -> ErrorData {
    tracing::error!(%error, "MCP request failed");
    ErrorData::internal_error("The console could not read or write its database", None)
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        // No tools/list_changed: no process can reach every client, so the
        // list's ttlMs says when to ask again.
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("Toolwright", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "The tools of one Mentra app. Each call is sent to the app's own server as a ToolCall; its answer is the text to say.",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(&[ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28])
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let caller = Self::caller(&context)?;
        self.count_read(&caller)?;
        let tools = listed_tools(&self.state, &caller.app).await?;
        let cursor = request.and_then(|r| r.cursor);
        let (tools, next_cursor) = page(&tools, cursor.as_deref()).ok_or_else(|| {
            ErrorData::invalid_params(
                "This cursor was not given by this server's tools/list",
                None,
            )
        })?;
        let mut result = ListToolsResult::with_all_items(tools)
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Private);
        result.next_cursor = next_cursor;
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = Self::caller(&context)?;
        self.count_call(&caller).await?;
        let config = repo::apps::load_config(&self.state.db, &caller.app)
            .await
            .map_err(storage)?;
        let Some(tool) = config.tools.iter().find(|t| t.id == request.name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "Unknown tool “{}”: tools/list names this app's tools.",
                    request.name
                ),
                None,
            ));
        };
        let arguments = request.arguments.unwrap_or_default();
        let started = Instant::now();
        let called_at = now_ms();
        let (text, is_error) = match check_arguments(tool, &arguments) {
            Err(problem) => (problem, true),
            Ok(parameters) => {
                let call = tool_call(tool, parameters, &caller.email, &format_iso8601(called_at));
                tracing::info!(app = caller.app.id, tool = %tool.id, "an assistant calls a tool");
                self.deliver(&caller, &call).await
            }
        };
        let outcome: String = text.chars().take(KEPT_CHARS).collect();
        let record = CallRecord {
            app_id: caller.app.id,
            key_id: caller.key_id,
            tool_id: &tool.id,
            arguments: &shortened(&arguments, KEPT_CHARS),
            called_at,
            duration_ms: started.elapsed().as_millis() as i64,
            outcome: &outcome,
            is_error,
        };
        // Logged before the answer goes out: the Activity list shows every
        // call an assistant was answered.
        repo::mcp_calls::log(&self.state.db, &record)
            .await
            .map_err(storage)?;
        let content = vec![ContentBlock::text(text)];
        Ok(if is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
        .into())
    }
}
