//! The live MCP server's records: how many requests each key made in each
//! minute, for its limit, and each tool call, for the app page's Activity. In
//! the database, so that both hold across every server process.

use crate::{domain::mcp_activity::ActivityEntry, in_transaction, on_db, server::db::Db};

/// How long a call stays in the Activity list.
pub const KEPT_FOR_MS: i64 = 30 * 24 * 60 * 60 * 1000;

/// Counts a request made with key `key_id` at `now_ms` if the key made
/// fewer than `limit` in this minute: `None`, or how many milliseconds until
/// the next minute, when it may again (then nothing is counted). One
/// statement counts and checks at once, in any number of server processes.
pub async fn record_request(
    db: &Db,
    key_id: i64,
    now_ms: i64,
    limit: usize,
) -> Result<Option<i64>, sqlx::Error> {
    let minute = now_ms.div_euclid(MINUTE_MS);
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    in_transaction!(db, tx => {
        sqlx::query("DELETE FROM mcp_request_counts WHERE key_id = $1 AND minute < $2")
            .bind(key_id)
            .bind(minute)
            .execute(&mut *tx)
            .await?;
        let counted: Option<i64> = sqlx::query_scalar(
            "INSERT INTO mcp_request_counts (key_id, minute, count) VALUES ($1, $2, 1) \
             ON CONFLICT (key_id, minute) DO UPDATE SET count = mcp_request_counts.count + 1 \
             WHERE mcp_request_counts.count < $3 RETURNING count",
        )
        .bind(key_id)
        .bind(minute)
        .bind(limit)
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(match counted {
            Some(_) => None,
            None => Some((minute + 1) * MINUTE_MS - now_ms),
        })
    })
}

const MINUTE_MS: i64 = 60_000;

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

/// A page of an app's calls, newest first (`$1` the app, `$2` the call
/// the page goes on from or NULL, `$3` how many). It walks the index on
/// (app_id, id) from its end: an app with many calls kept reads no more
/// rows for its page than one with few (tested by its query plan).
pub const ACTIVITY_PAGE: &str =
    "SELECT c.id, c.tool_id, c.arguments, c.called_at, c.duration_ms, c.outcome, c.is_error, d.email \
     FROM mcp_calls c LEFT JOIN api_keys k ON k.id = c.key_id \
     LEFT JOIN apps a ON a.id = k.app_id \
     LEFT JOIN developers d ON d.id = COALESCE(k.created_by, a.owner_id) \
     WHERE c.app_id = $1 AND ($2 IS NULL OR c.id < $2) ORDER BY c.id DESC LIMIT $3";

/// The app's calls, newest first: `limit` of them, older than call
/// `before` when given (the next page).
pub async fn list(
    db: &Db,
    app_id: i64,
    before: Option<i64>,
    limit: i64,
) -> Result<Vec<ActivityEntry>, sqlx::Error> {
    type Row = (i64, String, String, i64, i64, String, bool, Option<String>);
    // The key's maker, the developer the call reached the app as (for a
    // key from before keys recorded it, the app's creator, as `holder`).
    let rows: Vec<Row> = on_db!(db, pool => sqlx::query_as(ACTIVITY_PAGE)
    .bind(app_id)
    .bind(before)
    .bind(limit)
    .fetch_all(pool)
    .await)?;
    Ok(rows
        .into_iter()
        .map(
            |(id, tool_id, arguments, called_at, duration_ms, outcome, is_error, by)| {
                ActivityEntry {
                    id,
                    by,
                    tool_id,
                    arguments,
                    called_at,
                    duration_ms,
                    outcome,
                    is_error,
                }
            },
        )
        .collect())
}
