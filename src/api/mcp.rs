//! The app page's live MCP server: its endpoint, a connection test, and the
//! Activity list — each only for the app's owner.

use super::AppError;
use crate::domain::mcp_activity::ActivityEntry;
#[cfg(feature = "ssr")]
use crate::domain::org::Action;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// Calls per page of the Activity list.
pub const ACTIVITY_PAGE: i64 = 20;

/// What the app page shows of its MCP server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpPanel {
    /// The full URL, as this request reached the console.
    pub endpoint: String,
    pub activity: Vec<ActivityEntry>,
    /// The `activity_before` of the next page, when there are older calls.
    pub older: Option<i64>,
}

/// The MCP panel of app `package_name`, its Activity older than call
/// `before` when given (the next page).
#[server(prefix = "/api", endpoint = "mcp/panel")]
pub async fn get_mcp_panel(
    package_name: String,
    before: Option<i64>,
) -> Result<McpPanel, AppError> {
    use crate::api::context;
    let state = context::state()?;
    let (_, app) = context::app_for(&state, &package_name, Action::Read).await?;
    panel(&state, &app, before).await
}

/// The MCP panel of `app`, which the asker may read.
#[cfg(feature = "ssr")]
pub(crate) async fn panel(
    state: &crate::server::AppState,
    app: &crate::server::repo::apps::StoredApp,
    before: Option<i64>,
) -> Result<McpPanel, AppError> {
    use crate::{api::context, domain::mcp::endpoint, server::repo};
    let mut activity = repo::mcp_calls::list(&state.db, app.id, before, ACTIVITY_PAGE + 1)
        .await
        .map_err(context::internal)?;
    let older = (activity.len() as i64 > ACTIVITY_PAGE).then(|| {
        activity.truncate(ACTIVITY_PAGE as usize);
        activity.last().map(|entry| entry.id)
    });
    Ok(McpPanel {
        endpoint: endpoint(&context::console_origin(), &app.details.package_name),
        activity,
        older: older.flatten(),
    })
}

/// "Test connection": the server itself runs `initialize` and `tools/list`
/// for the signed-in developer (no key needed) and says what came back.
#[server(prefix = "/api", endpoint = "mcp/test")]
pub async fn test_mcp_connection(package_name: String) -> Result<String, AppError> {
    use crate::{api::context, server::mcp};
    let state = context::state()?;
    let (_, app) = context::app_for(&state, &package_name, Action::Read).await?;
    mcp::test_connection(&state, &app)
        .await
        .map_err(context::internal)
}
