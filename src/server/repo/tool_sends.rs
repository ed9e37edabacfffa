//! The tool calls each developer sends from "Try a tool", for its limit of
//! calls a minute: kept in the database, so that the limit holds across
//! every server process.

use crate::{domain::throttle::ThrottlePolicy, in_transaction, server::db::Db};

/// Counts a send by `developer_id` at `now_ms` if `policy` allows it:
/// `None`, or how many milliseconds until it would be allowed (then
/// nothing is counted). One developer's sends are counted one at a time, in
/// any number of server processes.
pub async fn record(
    db: &Db,
    developer_id: i64,
    now_ms: i64,
    policy: ThrottlePolicy,
) -> Result<Option<i64>, sqlx::Error> {
    let postgres = db.backend() == crate::server::config::Backend::Postgres;
    in_transaction!(db, tx => {
        if postgres {
            // SQLite's transaction holds the file's write lock already;
            // PostgreSQL's locks the developer's row.
            sqlx::query("SELECT id FROM developers WHERE id = $1 FOR UPDATE")
                .bind(developer_id)
                .execute(&mut *tx)
                .await?;
        }
        let window_start = policy.window_start(now_ms);
        sqlx::query("DELETE FROM tool_sends WHERE developer_id = $1 AND sent_at < $2")
            .bind(developer_id)
            .bind(window_start)
            .execute(&mut *tx)
            .await?;
        let recent: Vec<i64> =
            sqlx::query_scalar("SELECT sent_at FROM tool_sends WHERE developer_id = $1")
                .bind(developer_id)
                .fetch_all(&mut *tx)
                .await?;
        if let Some(wait) = policy.retry_after(&recent, now_ms) {
            return Ok(Some(wait));
        }
        sqlx::query("INSERT INTO tool_sends (developer_id, sent_at) VALUES ($1, $2)")
            .bind(developer_id)
            .bind(now_ms)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(None)
    })
}
