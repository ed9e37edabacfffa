//! Tools and their parameters. Every write is one transaction that first
//! bumps the app's revision, guarded by the revision the editor was loaded
//! at (so a stale save changes nothing), and ends by recording the revision.

use super::Author;
use crate::{
    domain::{
        config::AppConfig,
        revision::Change,
        tool::{MoveDirection, ParamType, Parameter, Tool, ToolEdit, ToolHints},
    },
    on_db, on_writer,
    server::{
        db::Db,
        repo::{
            configs::Kept,
            snapshots::{self, StoredTool, ToolDigest},
        },
    },
};
use std::{collections::HashMap, sync::Arc};

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

#[derive(sqlx::FromRow)]
pub(crate) struct ToolRow {
    id: i64,
    tool_id: String,
    description: String,
    activation_phrases: String,
    title: Option<String>,
    max_calls: Option<i64>,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
}

#[derive(sqlx::FromRow)]
pub(crate) struct ParamRow {
    tool_id: i64,
    name: String,
    param_type: String,
    description: String,
    required: bool,
    enum_values: String,
}

fn decode_list(json: &str) -> Result<Vec<String>, sqlx::Error> {
    serde_json::from_str(json).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

pub(crate) fn encode_list(list: &[String]) -> String {
    serde_json::to_string(list).unwrap_or_else(|_| "[]".to_owned())
}

pub(crate) fn assemble(
    tool_rows: Vec<ToolRow>,
    param_rows: Vec<ParamRow>,
) -> Result<Vec<Tool>, sqlx::Error> {
    let mut params: HashMap<i64, Vec<Parameter>> = HashMap::new();
    for row in param_rows {
        let param_type = ParamType::parse(&row.param_type).ok_or_else(|| {
            sqlx::Error::Decode(format!("unknown parameter type {:?}", row.param_type).into())
        })?;
        params.entry(row.tool_id).or_default().push(Parameter {
            name: row.name,
            param_type,
            description: row.description,
            required: row.required,
            enum_values: decode_list(&row.enum_values)?,
        });
    }
    tool_rows
        .into_iter()
        .map(|row| {
            Ok(Tool {
                parameters: params.remove(&row.id).unwrap_or_default(),
                id: row.tool_id,
                description: row.description,
                activation_phrases: decode_list(&row.activation_phrases)?,
                title: row.title,
                max_calls: row.max_calls.and_then(|n| u32::try_from(n).ok()),
                hints: ToolHints {
                    read_only: row.read_only,
                    destructive: row.destructive,
                    idempotent: row.idempotent,
                    open_world: row.open_world,
                },
            })
        })
        .collect()
}

/// An app's tools, in order, read from the database.
pub async fn list_for_app(db: &Db, app_id: i64) -> Result<Vec<Tool>, sqlx::Error> {
    on_db!(db, pool => fetch_tools!(pool, app_id).await)
}

/// What a write works out before its turn, from what is kept of the app at
/// the revision it starts from: the configuration after the change and,
/// when the digests are kept too, the digests after it and the one new tool
/// to store. Without it, the write reads the app back inside its transaction.
pub(crate) struct Ahead {
    pub config: AppConfig,
    pub known: Option<(Vec<ToolDigest>, Vec<StoredTool>)>,
}

impl Ahead {
    /// `kept` after `edit`; `None` when nothing is kept or the edit does not
    /// fit (then the database refuses it too, or decides).
    pub fn tool_edit(kept: Option<Kept>, edit: &ToolEdit) -> Result<Option<Ahead>, sqlx::Error> {
        let Some(kept) = kept else {
            return Ok(None);
        };
        let mut config = (*kept.config).clone();
        if edit.apply(&mut config.tools).is_err() {
            return Ok(None);
        }
        let known = match kept.digests {
            None => None,
            Some(digests) => {
                let new = edit.saved_tool().map(snapshots::stored_tool).transpose()?;
                let new_digest = new.as_ref().map(|(digest, _)| digest.clone());
                let mut digests = (*digests).clone();
                edit.apply_to(
                    &mut digests,
                    |d| &d.id,
                    |tool| ToolDigest {
                        id: tool.id.clone(),
                        digest: new_digest.unwrap_or_default(),
                    },
                )
                .ok()
                .map(|()| (digests, new.into_iter().collect()))
            }
        };
        Ok(Some(Ahead { config, known }))
    }
}

/// A write that applied: kept as the app's configuration at `revision`.
pub(crate) fn keep(
    db: &Db,
    app_id: i64,
    revision: i64,
    config: AppConfig,
    digests: Vec<ToolDigest>,
) -> Arc<AppConfig> {
    let config = Arc::new(config);
    db.configs().keep(
        app_id,
        revision,
        Kept {
            config: config.clone(),
            digests: Some(Arc::new(digests)),
        },
    );
    config
}

fn applied(
    db: &Db,
    app_id: i64,
    revision: i64,
    config: AppConfig,
    digests: Vec<ToolDigest>,
) -> ToolWrite {
    let config = keep(db, app_id, revision, config, digests);
    ToolWrite::Applied { revision, config }
}

/// Creates `tool` (when `original_id` is `None`, at the end) or replaces the
/// tool now called `original_id` (which may rename it), parameters and all.
pub async fn save(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    original_id: Option<&str>,
    tool: &Tool,
    author: &Author,
    now_ms: i64,
) -> Result<ToolWrite, sqlx::Error> {
    let edit = ToolEdit::Save {
        original_id: original_id.map(str::to_owned),
        tool: tool.clone(),
    };
    // Worked out before the turn: the turn is only for the database.
    let ahead = Ahead::tool_edit(db.configs().kept(app_id, expected_revision), &edit)?;
    on_writer!(db, conn => {
        let mut tx = sqlx::Connection::begin(conn).await?;
        let Some(revision) = bump_revision!(tx, app_id, expected_revision, now_ms).await? else {
            return Ok(ToolWrite::Stale);
        };
        let change = match original_id {
            Some(original_id) => {
                // Replaced in place: same position, new row and parameters.
                let position: Option<i64> = sqlx::query_scalar(
                    "DELETE FROM tools WHERE app_id = $1 AND tool_id = $2 RETURNING position",
                )
                .bind(app_id)
                .bind(original_id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(position) = position else {
                    return Ok(ToolWrite::NotFound);
                };
                match insert_tool!(tx, app_id, position, tool).await {
                    Err(error) if super::is_unique_violation(&error) => {
                        return Ok(ToolWrite::DuplicateId)
                    }
                    other => other?,
                };
                Change::EditedTool(original_id.to_owned(), tool.id.clone())
            }
            None => {
                let position: i64 = sqlx::query_scalar(
                    "SELECT COALESCE(MAX(position), -1) + 1 FROM tools WHERE app_id = $1",
                )
                .bind(app_id)
                .fetch_one(&mut *tx)
                .await?;
                match insert_tool!(tx, app_id, position, tool).await {
                    Err(error) if super::is_unique_violation(&error) => {
                        return Ok(ToolWrite::DuplicateId)
                    }
                    other => other?,
                };
                Change::AddedTool(tool.id.clone())
            }
        };
        let (config, known) = after_write!(tx, app_id, ahead).await?;
        let digests =
            record_revision!(tx, app_id, revision, author, change, now_ms, &config, known).await?;
        tx.commit().await?;
        Ok(applied(db, app_id, revision, config, digests))
    })
}

/// Deletes the tool `tool_id` of the app.
pub async fn delete(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    tool_id: &str,
    author: &Author,
    now_ms: i64,
) -> Result<ToolWrite, sqlx::Error> {
    let edit = ToolEdit::Delete(tool_id.to_owned());
    // Worked out before the turn: the turn is only for the database.
    let ahead = Ahead::tool_edit(db.configs().kept(app_id, expected_revision), &edit)?;
    on_writer!(db, conn => {
        let mut tx = sqlx::Connection::begin(conn).await?;
        let Some(revision) = bump_revision!(tx, app_id, expected_revision, now_ms).await? else {
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
        let (config, known) = after_write!(tx, app_id, ahead).await?;
        let digests =
            record_revision!(tx, app_id, revision, author, change, now_ms, &config, known).await?;
        tx.commit().await?;
        Ok(applied(db, app_id, revision, config, digests))
    })
}

/// Moves the tool `tool_id` one place up or down (at an end, it stays).
pub async fn move_tool(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    tool_id: &str,
    direction: MoveDirection,
    author: &Author,
    now_ms: i64,
) -> Result<ToolWrite, sqlx::Error> {
    let edit = ToolEdit::Move(tool_id.to_owned(), direction);
    // Worked out before the turn: the turn is only for the database.
    let ahead = Ahead::tool_edit(db.configs().kept(app_id, expected_revision), &edit)?;
    on_writer!(db, conn => {
        let mut tx = sqlx::Connection::begin(conn).await?;
        let Some(revision) = bump_revision!(tx, app_id, expected_revision, now_ms).await? else {
            return Ok(ToolWrite::Stale);
        };
        let mut order: Vec<(i64, String)> = sqlx::query_as(
            "SELECT id, tool_id FROM tools WHERE app_id = $1 ORDER BY position, id",
        )
        .bind(app_id)
        .fetch_all(&mut *tx)
        .await?;
        let Some(index) = order.iter().position(|(_, id)| id == tool_id) else {
            return Ok(ToolWrite::NotFound);
        };
        let target = match direction {
            MoveDirection::Up => index.saturating_sub(1),
            MoveDirection::Down => (index + 1).min(order.len() - 1),
        };
        let moved = order.remove(index);
        order.insert(target, moved);
        for (position, (row_id, _)) in order.iter().enumerate() {
            sqlx::query("UPDATE tools SET position = $1 WHERE id = $2")
                .bind(position as i64)
                .bind(*row_id)
                .execute(&mut *tx)
                .await?;
        }
        let change = Change::MovedTool(tool_id.to_owned(), direction);
        let (config, known) = after_write!(tx, app_id, ahead).await?;
        let digests =
            record_revision!(tx, app_id, revision, author, change, now_ms, &config, known).await?;
        tx.commit().await?;
        Ok(applied(db, app_id, revision, config, digests))
    })
}
