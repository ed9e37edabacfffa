//! Tools and their parameters. Every write is one transaction that first
//! bumps the app's revision, guarded by the revision the editor was loaded
//! at (so a stale save changes nothing) and by the author's membership (so
//! a removed member's save changes nothing), and ends by recording the
//! revision.

use super::{
    snapshots::{Snapshot, StoredTool},
    sql::is_unique_violation,
    WriteError,
};
use crate::{
    domain::{
        account::CurrentDeveloper,
        config::AppConfig,
        revision::Change,
        tool::{MoveDirection, Tool, ToolEdit},
    },
    in_transaction, on_db,
    server::db::Db,
};
use std::sync::Arc;

/// The outcome of a guarded write.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolWrite {
    /// Done: the app's new revision and its configuration as it now is.
    Applied {
        revision: i64,
        config: Arc<AppConfig>,
    },
    /// The app is no longer at the expected revision.
    Stale,
    /// No tool with that id in this app.
    NotFound,
    /// Another tool of the app already has the id.
    DuplicateId,
}

/// An app's tools, in order, read from the database.
pub async fn list_for_app(db: &Db, app_id: i64) -> Result<Vec<Tool>, sqlx::Error> {
    on_db!(db, pool => fetch_tools!(pool, app_id).await)
}

/// App `app_id` as it is at `revision`: kept in the cache, or read (and
/// kept) if the app is still at that revision; `None` if it is not.
pub async fn snapshot_at(
    db: &Db,
    app_id: i64,
    revision: i64,
) -> Result<Option<Arc<Snapshot>>, sqlx::Error> {
    if let Some(snapshot) = db.configs().get(app_id, revision) {
        return Ok(Some(snapshot));
    }
    type Head = (
        String,
        String,
        String,
        String,
        Option<String>,
        Option<String>,
    );
    let head: Option<Head> = on_db!(db, pool => sqlx::query_as(
        "SELECT name, description, version, public_url, settings_json, extra_json FROM apps \
         WHERE id = $1 AND revision = $2",
    )
    .bind(app_id)
    .bind(revision)
    .fetch_optional(pool)
    .await)?;
    let Some((name, description, version, public_url, settings, extra)) = head else {
        return Ok(None);
    };
    let tools = list_for_app(db, app_id).await?;
    // The tools were read after the app's fields: they are the ones at its
    // revision only if no change came in between (every change bumps it).
    let now: Option<i64> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT revision FROM apps WHERE id = $1",
    )
    .bind(app_id)
    .fetch_optional(pool)
    .await)?;
    if now != Some(revision) {
        return Ok(None);
    }
    let (snapshot, _) = Snapshot::of(AppConfig {
        name,
        description,
        version,
        public_url,
        // Written only by the console from valid JSON.
        settings: settings.and_then(|json| serde_json::from_str(&json).ok()),
        extra: super::sql::decode_kept(extra)?,
        tools,
    })?;
    Ok(Some(db.configs().put(app_id, revision, snapshot)))
}

/// The app's snapshot after `edit`, worked out before the write from the
/// one at `revision` (the write then only writes, and holds SQLite's write
/// lock no longer than that). `None` when the app is no longer at that
/// revision, or the edit does not fit it: the write reads the app back then.
async fn after_edit(
    db: &Db,
    app_id: i64,
    revision: i64,
    edit: &ToolEdit,
) -> Result<Option<(Snapshot, Vec<StoredTool>)>, sqlx::Error> {
    let Some(before) = snapshot_at(db, app_id, revision).await? else {
        return Ok(None);
    };
    let mut config = (*before.config).clone();
    if edit.apply(&mut config.tools).is_err() {
        return Ok(None);
    }
    before.next(config).map(Some)
}

/// Creates `tool` (when `original_id` is `None`, at the end) or replaces the
/// tool now called `original_id` (which may rename it), parameters and all.
pub async fn save(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    original_id: Option<&str>,
    tool: &Tool,
    author: &CurrentDeveloper,
    now_ms: i64,
) -> Result<ToolWrite, WriteError> {
    let edit = ToolEdit::Save {
        original_id: original_id.map(str::to_owned),
        tool: Box::new(tool.clone()),
    };
    let after = after_edit(db, app_id, expected_revision, &edit).await?;
    let change = match original_id {
        Some(original_id) => {
            // The history says how the hints changed in words; the tool as it
            // was is in the cache when the editor's revision is the latest.
            let before = snapshot_at(db, app_id, expected_revision).await?;
            let was = before
                .as_ref()
                .and_then(|b| b.config.tools.iter().find(|t| t.id == original_id))
                .map(|was| tool.hints.changes_from(&was.hints))
                .unwrap_or_default();
            Change::EditedTool(original_id.to_owned(), tool.id.clone(), was)
        }
        None => Change::AddedTool(tool.id.clone()),
    };
    in_transaction!(db, tx => {
        let Some(revision) = bump_revision!(tx, app_id, expected_revision, author, now_ms).await? else {
            return Ok(ToolWrite::Stale);
        };
        let written = match original_id {
            // In place: same row, same position; its parameters anew.
            Some(original_id) => {
                let updated = sqlx::query_scalar::<_, i64>(
                    "UPDATE tools SET tool_id = $1, description = $2, activation_phrases = $3, \
                     title = $4, max_calls = $5, read_only_hint = $6, destructive_hint = $7, \
                     idempotent_hint = $8, open_world_hint = $9, extra_json = $10 \
                     WHERE app_id = $11 AND tool_id = $12 RETURNING id",
                )
                .bind(&tool.id)
                .bind(&tool.description)
                .bind(super::sql::encode_list(&tool.activation_phrases))
                .bind(&tool.title)
                .bind(tool.max_calls.map(i64::from))
                .bind(tool.hints.read_only)
                .bind(tool.hints.destructive)
                .bind(tool.hints.idempotent)
                .bind(tool.hints.open_world)
                .bind(super::sql::encode_kept(&tool.extra))
                .bind(app_id)
                .bind(original_id)
                .fetch_optional(&mut *tx)
                .await;
                match updated {
                    Ok(Some(row_id)) => {
                        sqlx::query("DELETE FROM tool_parameters WHERE tool_id = $1")
                            .bind(row_id)
                            .execute(&mut *tx)
                            .await?;
                        insert_parameters!(tx, row_id, tool).await.map(Some)
                    }
                    other => other.map(|found| found.map(|_| ())),
                }
            }
            // At the end.
            None => {
                let position: i64 = sqlx::query_scalar(
                    "SELECT COALESCE(MAX(position), -1) + 1 FROM tools WHERE app_id = $1",
                )
                .bind(app_id)
                .fetch_one(&mut *tx)
                .await?;
                insert_tool!(tx, app_id, position, tool).await.map(|_| Some(()))
            }
        };
        match written {
            Ok(Some(_)) => {}
            Ok(None) => return Ok(ToolWrite::NotFound),
            Err(error) if is_unique_violation(&error) => return Ok(ToolWrite::DuplicateId),
            Err(error) => return Err(error.into()),
        }
        let recorded = match after {
            Some(after) => after,
            None => Snapshot::of(fetch_config!(tx, app_id).await?)?,
        };
        let snapshot =
            record_and_commit!(db, tx, app_id, revision, author, change, now_ms, recorded).await?;
        Ok(ToolWrite::Applied {
            revision,
            config: snapshot.config.clone(),
        })
    })
}

/// Deletes the tool `tool_id` of the app.
pub async fn delete(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    tool_id: &str,
    author: &CurrentDeveloper,
    now_ms: i64,
) -> Result<ToolWrite, WriteError> {
    let edit = ToolEdit::Delete(tool_id.to_owned());
    let after = after_edit(db, app_id, expected_revision, &edit).await?;
    in_transaction!(db, tx => {
        let Some(revision) = bump_revision!(tx, app_id, expected_revision, author, now_ms).await? else {
            return Ok(ToolWrite::Stale);
        };
        let deleted = sqlx::query("DELETE FROM tools WHERE app_id = $1 AND tool_id = $2")
            .bind(app_id)
            .bind(tool_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if deleted == 0 {
            return Ok(ToolWrite::NotFound);
        }
        let change = Change::DeletedTool(tool_id.to_owned());
        let recorded = match after {
            Some(after) => after,
            None => Snapshot::of(fetch_config!(tx, app_id).await?)?,
        };
        let snapshot =
            record_and_commit!(db, tx, app_id, revision, author, change, now_ms, recorded).await?;
        Ok(ToolWrite::Applied {
            revision,
            config: snapshot.config.clone(),
        })
    })
}

/// Moves the tool `tool_id` one place up or down (at an end, it stays).
pub async fn move_tool(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    tool_id: &str,
    direction: MoveDirection,
    author: &CurrentDeveloper,
    now_ms: i64,
) -> Result<ToolWrite, WriteError> {
    let edit = ToolEdit::Move(tool_id.to_owned(), direction);
    let after = after_edit(db, app_id, expected_revision, &edit).await?;
    in_transaction!(db, tx => {
        let Some(revision) = bump_revision!(tx, app_id, expected_revision, author, now_ms).await? else {
            return Ok(ToolWrite::Stale);
        };
        let mut order: Vec<(i64, String, i64)> = sqlx::query_as(
            "SELECT id, tool_id, position FROM tools WHERE app_id = $1 ORDER BY position, id",
        )
        .bind(app_id)
        .fetch_all(&mut *tx)
        .await?;
        let Some(index) = order.iter().position(|(_, id, _)| id == tool_id) else {
            return Ok(ToolWrite::NotFound);
        };
        let target = match direction {
            MoveDirection::Up => index.saturating_sub(1),
            MoveDirection::Down => (index + 1).min(order.len() - 1),
        };
        let moved = order.remove(index);
        order.insert(target, moved);
        // Only the rows whose place changed (after a delete, places have gaps).
        for (position, (row_id, _, was)) in order.iter().enumerate() {
            if *was != position as i64 {
                sqlx::query("UPDATE tools SET position = $1 WHERE id = $2")
                    .bind(position as i64)
                    .bind(*row_id)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        let change = Change::MovedTool(tool_id.to_owned(), direction);
        let recorded = match after {
            Some(after) => after,
            None => Snapshot::of(fetch_config!(tx, app_id).await?)?,
        };
        let snapshot =
            record_and_commit!(db, tx, app_id, revision, author, change, now_ms, recorded).await?;
        Ok(ToolWrite::Applied {
            revision,
            config: snapshot.config.clone(),
        })
    })
}
