//! The live MCP server's records: each key's requests, for its limit of
//! requests a minute, and each tool call, for the app page's Activity. In
//! the database, so that both hold across every server process.

use crate::{
    domain::{mcp_activity::ActivityEntry, throttle::ThrottlePolicy},
    in_transaction, on_db,
    server::db::Db,
};

/// How long a call stays in the Activity list.
pub const KEPT_FOR_MS: i64 = 30 * 24 * 60 * 60 * 1000;

/// Counts a request made with key `key_id` at `now_ms` if `policy` allows
/// it: `None`, or how many milliseconds until it would be allowed (then
/// nothing is counted).
pub async fn record_request(
    db: &Db,
    key_id: i64,
    now_ms: i64,
    policy: ThrottlePolicy,
) -> Result<Option<i64>, sqlx::Error> {
    let postgres = db.backend() == crate::server::config::Backend::Postgres;
    in_transaction!(db, tx => {
        if postgres {
            // SQLite's transaction holds the file's write lock already;
            // PostgreSQL's locks the key's row, so that one key's requests
            // are counted one at a time in any number of processes.
            sqlx::query("SELECT id FROM api_keys WHERE id = $1 FOR UPDATE")
                .bind(key_id)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query("DELETE FROM mcp_requests WHERE key_id = $1 AND requested_at < $2")
            .bind(key_id)
            .bind(policy.window_start(now_ms))
            .execute(&mut *tx)
            .await?;
        let recent: Vec<i64> =
            sqlx::query_scalar("SELECT requested_at FROM mcp_requests WHERE key_id = $1")
                .bind(key_id)
                .fetch_all(&mut *tx)
                .await?;
        if let Some(wait) = policy.retry_after(&recent, now_ms) {
            return Ok(Some(wait));
        }
        sqlx::query("INSERT INTO mcp_requests (key_id, requested_at) VALUES ($1, $2)")
            .bind(key_id)
            .bind(now_ms)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(None)
    })
}

/// One tool call, as the Activity list shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallRecord<'a> {
    pub app_id: i64,
    pub key_id: Option<i64>,
    pub tool_id: &'a str,
    /// Already shortened.
    pub arguments: &'a str,
    pub called_at: i64,
    pub duration_ms: i64,
    pub outcome: &'a str,
    pub is_error: bool,
}

/// Logs a call, and forgets the app's calls older than [`KEPT_FOR_MS`].
pub async fn log(db: &Db, call: &CallRecord<'_>) -> Result<(), sqlx::Error> {
    in_transaction!(db, tx => {
        sqlx::query("DELETE FROM mcp_calls WHERE app_id = $1 AND called_at < $2")
            .bind(call.app_id)
            .bind(call.called_at - KEPT_FOR_MS)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO mcp_calls \
             (app_id, key_id, tool_id, arguments, called_at, duration_ms, outcome, is_error) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(call.app_id)
        .bind(call.key_id)
        .bind(call.tool_id)
        .bind(call.arguments)
        .bind(call.called_at)
        .bind(call.duration_ms)
        .bind(call.outcome)
        .bind(call.is_error)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    })
}

/// The app's calls, newest first: `limit` of them, older than call
/// `before` when given (the next page).
pub async fn list(
    db: &Db,
    app_id: i64,
    before: Option<i64>,
    limit: i64,
) -> Result<Vec<ActivityEntry>, sqlx::Error> {
    type Row = (i64, String, String, i64, i64, String, bool);
    let rows: Vec<Row> = on_db!(db, pool => sqlx::query_as(
        "SELECT id, tool_id, arguments, called_at, duration_ms, outcome, is_error FROM mcp_calls \
         WHERE app_id = $1 AND ($2 IS NULL OR id < $2) ORDER BY id DESC LIMIT $3",
    )
    .bind(app_id)
    .bind(before)
    .bind(limit)
    .fetch_all(pool)
    .await)?;
    Ok(rows
        .into_iter()
        .map(
            |(id, tool_id, arguments, called_at, duration_ms, outcome, is_error)| ActivityEntry {
                id,
                tool_id,
                arguments,
                called_at,
                duration_ms,
                outcome,
                is_error,
            },
        )
        .collect())
}
