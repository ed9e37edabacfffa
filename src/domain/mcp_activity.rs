//! The app page's Activity: the last calls assistants made over MCP.

use serde::{Deserialize, Serialize};

/// One call as the Activity list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActivityEntry {
    pub id: i64,
    pub tool_id: String,
    /// The arguments' JSON, cut short.
    pub arguments: String,
    pub called_at: i64,
    pub duration_ms: i64,
    /// What the assistant was told, cut short ("Added milk", "The app's
    /// server did not answer within 20 seconds.").
    pub outcome: String,
    pub is_error: bool,
    /// The email of the member whose key made the call (for a key made
    /// before keys recorded their maker, the app's creator; none once the
    /// key is gone).
    pub by: Option<String>,
}
