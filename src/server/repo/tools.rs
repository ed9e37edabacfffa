//! Tools and their parameters. Every write is one transaction that first
//! bumps the app's revision, guarded by the revision the editor was loaded
//! at, so a stale save changes nothing.

use crate::{
    domain::tool::{MoveDirection, ParamType, Parameter, Tool, ToolHints},
    on_db,
    server::db::Db,
};
use std::collections::HashMap;

/// The outcome of a guarded write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolWrite {
    /// Done: the app's new revision and its tools as they now are.
    Applied { revision: i64, tools: Vec<Tool> },
    /// The app is no longer at the expected revision.
    Stale,
    /// No tool with that id in this app.
    NotFound,
    /// Another tool of the app already has the id.
    DuplicateId,
}

const BUMP_REVISION: &str = "UPDATE apps SET revision = revision + 1, updated_at = $1 \
     WHERE id = $2 AND revision = $3 RETURNING revision";

#[derive(sqlx::FromRow)]
struct ToolRow {
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
struct ParamRow {
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

fn encode_list(list: &[String]) -> String {
    serde_json::to_string(list).unwrap_or_else(|_| "[]".to_owned())
}

/// Two queries for any number of tools (no query per tool).
fn assemble(tool_rows: Vec<ToolRow>, param_rows: Vec<ParamRow>) -> Result<Vec<Tool>, sqlx::Error> {
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

/// Loads an app's tools through `$exec` (a pool, or `&mut *tx` inside a
/// transaction), in order.
macro_rules! fetch_tools {
    ($exec:expr, $app_id:expr) => {
        async {
            let tool_rows: Vec<ToolRow> = sqlx::query_as(
                "SELECT id, tool_id, description, activation_phrases, title, max_calls, \
                 read_only, destructive, idempotent, open_world \
                 FROM tools WHERE app_id = $1 ORDER BY position, id",
            )
            .bind($app_id)
            .fetch_all($exec)
            .await?;
            let param_rows: Vec<ParamRow> = sqlx::query_as(
                "SELECT p.tool_id, p.name, p.param_type, p.description, p.required, p.enum_values \
                 FROM tool_parameters p JOIN tools t ON t.id = p.tool_id \
                 WHERE t.app_id = $1 ORDER BY p.tool_id, p.position, p.id",
            )
            .bind($app_id)
            .fetch_all($exec)
            .await?;
            assemble(tool_rows, param_rows)
        }
    };
}

/// Inserts `tool`'s parameters for tool row `row_id` through `$exec`.
macro_rules! insert_parameters {
    ($exec:expr, $row_id:expr, $tool:expr) => {
        async {
            for (position, parameter) in $tool.parameters.iter().enumerate() {
                sqlx::query(
                    "INSERT INTO tool_parameters \
                     (tool_id, position, name, param_type, description, required, enum_values) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind($row_id)
                .bind(position as i64)
                .bind(&parameter.name)
                .bind(parameter.param_type.as_str())
                .bind(&parameter.description)
                .bind(parameter.required)
                .bind(encode_list(&parameter.enum_values))
                .execute($exec)
                .await?;
            }
            Ok::<(), sqlx::Error>(())
        }
    };
}

/// An app's tools, in order.
pub async fn list_for_app(db: &Db, app_id: i64) -> Result<Vec<Tool>, sqlx::Error> {
    on_db!(db, pool => fetch_tools!(pool, app_id).await)
}

/// Creates `tool` (when `original_id` is `None`, at the end) or replaces the
/// tool now called `original_id` (which may rename it), parameters and all.
pub async fn save(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    original_id: Option<&str>,
    tool: &Tool,
    now_ms: i64,
) -> Result<ToolWrite, sqlx::Error> {
    let phrases = encode_list(&tool.activation_phrases);
    let max_calls = tool.max_calls.map(i64::from);
    on_db!(db, pool => {
        let mut tx = pool.begin().await?;
        let revision: Option<i64> = sqlx::query_scalar(BUMP_REVISION)
            .bind(now_ms)
            .bind(app_id)
            .bind(expected_revision)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(revision) = revision else {
            return Ok(ToolWrite::Stale);
        };
        let row_id: i64 = match original_id {
            Some(original_id) => {
                let existing: Option<i64> =
                    sqlx::query_scalar("SELECT id FROM tools WHERE app_id = $1 AND tool_id = $2")
                        .bind(app_id)
                        .bind(original_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                let Some(row_id) = existing else {
                    return Ok(ToolWrite::NotFound);
                };
                let updated = sqlx::query(
                    "UPDATE tools SET tool_id = $1, description = $2, activation_phrases = $3, \
                     title = $4, max_calls = $5, read_only = $6, destructive = $7, \
                     idempotent = $8, open_world = $9 WHERE id = $10",
                )
                .bind(&tool.id)
                .bind(&tool.description)
                .bind(&phrases)
                .bind(&tool.title)
                .bind(max_calls)
                .bind(tool.hints.read_only)
                .bind(tool.hints.destructive)
                .bind(tool.hints.idempotent)
                .bind(tool.hints.open_world)
                .bind(row_id)
                .execute(&mut *tx)
                .await;
                match updated {
                    Err(error) if super::is_unique_violation(&error) => {
                        return Ok(ToolWrite::DuplicateId)
                    }
                    other => other?,
                };
                sqlx::query("DELETE FROM tool_parameters WHERE tool_id = $1")
                    .bind(row_id)
                    .execute(&mut *tx)
                    .await?;
                row_id
            }
            None => {
                let inserted = sqlx::query_scalar::<_, i64>(
                    "INSERT INTO tools (app_id, position, tool_id, description, activation_phrases, \
                     title, max_calls, read_only, destructive, idempotent, open_world) \
                     VALUES ($1, (SELECT COALESCE(MAX(position), -1) + 1 FROM tools WHERE app_id = $1), \
                     $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
                )
                .bind(app_id)
                .bind(&tool.id)
                .bind(&tool.description)
                .bind(&phrases)
                .bind(&tool.title)
                .bind(max_calls)
                .bind(tool.hints.read_only)
                .bind(tool.hints.destructive)
                .bind(tool.hints.idempotent)
                .bind(tool.hints.open_world)
                .fetch_one(&mut *tx)
                .await;
                match inserted {
                    Err(error) if super::is_unique_violation(&error) => {
                        return Ok(ToolWrite::DuplicateId)
                    }
                    other => other?,
                }
            }
        };
        insert_parameters!(&mut *tx, row_id, tool).await?;
        let tools = fetch_tools!(&mut *tx, app_id).await?;
        tx.commit().await?;
        Ok(ToolWrite::Applied { revision, tools })
    })
}

/// Deletes the tool `tool_id` of the app.
pub async fn delete(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    tool_id: &str,
    now_ms: i64,
) -> Result<ToolWrite, sqlx::Error> {
    on_db!(db, pool => {
        let mut tx = pool.begin().await?;
        let revision: Option<i64> = sqlx::query_scalar(BUMP_REVISION)
            .bind(now_ms)
            .bind(app_id)
            .bind(expected_revision)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(revision) = revision else {
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
        let tools = fetch_tools!(&mut *tx, app_id).await?;
        tx.commit().await?;
        Ok(ToolWrite::Applied { revision, tools })
    })
}

/// Moves the tool `tool_id` one place up or down (at an end, it stays).
pub async fn move_tool(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    tool_id: &str,
    direction: MoveDirection,
    now_ms: i64,
) -> Result<ToolWrite, sqlx::Error> {
    on_db!(db, pool => {
        let mut tx = pool.begin().await?;
        let revision: Option<i64> = sqlx::query_scalar(BUMP_REVISION)
            .bind(now_ms)
            .bind(app_id)
            .bind(expected_revision)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(revision) = revision else {
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
        let tools = fetch_tools!(&mut *tx, app_id).await?;
        tx.commit().await?;
        Ok(ToolWrite::Applied { revision, tools })
    })
}
