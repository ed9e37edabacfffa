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
            batch::{Batch, Outcome, Value},
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

/// What a write works out before its turn, from the app as it was at the
/// revision the write starts from: the configuration after the change, the
/// tools' digests after it and the tool bodies to store.
pub(crate) struct Ahead {
    pub config: AppConfig,
    pub known: (Vec<ToolDigest>, Vec<StoredTool>),
    /// The parameters of the tool a save replaces, as they were.
    pub replaced_parameters: Option<Vec<Parameter>>,
}

impl Ahead {
    /// `kept` after `edit`, or `kept` back as it was when the edit does not
    /// fit it (then the database refuses the edit too, or decides).
    pub fn tool_edit(kept: Kept, edit: &ToolEdit) -> Result<Result<Ahead, Kept>, sqlx::Error> {
        // Usually the only holder, having taken it from the cache: then
        // this is no copy (a deep copy of 100 tools was a tenth of a save).
        let mut config = Arc::try_unwrap(kept.config).unwrap_or_else(|shared| (*shared).clone());
        let replaced_parameters = match edit {
            ToolEdit::Save {
                original_id: Some(original_id),
                ..
            } => config
                .tools
                .iter()
                .find(|tool| &tool.id == original_id)
                .map(|tool| tool.parameters.clone()),
            _ => None,
        };
        if edit.apply(&mut config.tools).is_err() {
            return Ok(Err(Kept {
                config: Arc::new(config),
                digests: kept.digests,
            }));
        }
        let known = match kept.digests {
            // Recorded before tools were kept by content: all of them.
            None => snapshots::all_tools(&config)?,
            Some(digests) => {
                let new = edit.saved_tool().map(snapshots::stored_tool).transpose()?;
                let new_digest = new.as_ref().map(|(digest, _)| digest.clone());
                let mut digests =
                    Arc::try_unwrap(digests).unwrap_or_else(|shared| (*shared).clone());
                let made = edit.apply_to(
                    &mut digests,
                    |d| &d.id,
                    |tool| ToolDigest {
                        id: tool.id.clone(),
                        digest: new_digest.unwrap_or_default(),
                    },
                );
                match made {
                    Ok(()) => (digests, new.into_iter().collect()),
                    // Out of step with the tools (never, but not worth a
                    // wrong revision): all of them.
                    Err(_) => snapshots::all_tools(&config)?,
                }
            }
        };
        Ok(Ok(Ahead {
            config,
            known,
            replaced_parameters,
        }))
    }

    /// What is known of app `app_id` at `revision` after `edit`: from the
    /// cache, taken out of it for the write (it is kept again, at the next
    /// revision, when the write applies), or from the revision's record.
    /// `None` when the revision is not recorded (apps from before history
    /// was kept): the write then reads the app back in its transaction.
    pub async fn of_edit(
        db: &Db,
        app_id: i64,
        revision: i64,
        edit: &ToolEdit,
    ) -> Result<Option<Ahead>, sqlx::Error> {
        let kept = match db.configs().take(app_id, revision) {
            Some(kept) => kept,
            None => match super::revisions::kept(db, app_id, revision).await? {
                Some(kept) => kept,
                None => return Ok(None),
            },
        };
        Ok(match Ahead::tool_edit(kept, edit)? {
            Ok(ahead) => Some(ahead),
            Err(kept) => {
                db.configs().keep(app_id, revision, kept);
                None
            }
        })
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
///
/// Everything but the transaction's begin and commit is one [`Batch`]: the
/// revision check, the tool, its parameters and, when the configuration
/// after the save was worked out ahead (nearly always), the revision's
/// record.
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
    let ahead = Ahead::of_edit(db, app_id, expected_revision, &edit).await?;
    let change = match original_id {
        Some(original_id) => Change::EditedTool(original_id.to_owned(), tool.id.clone()),
        None => Change::AddedTool(tool.id.clone()),
    };
    let mut batch = Batch::default();
    let bump = batch.guard(
        "UPDATE apps SET revision = revision + 1, updated_at = $1 \
         WHERE id = $2 AND revision = $3 RETURNING revision",
        vec![now_ms.into(), app_id.into(), expected_revision.into()],
    );
    let fields = || -> Vec<Value> {
        vec![
            (&tool.id).into(),
            (&tool.description).into(),
            encode_list(&tool.activation_phrases).into(),
            tool.title.clone().into(),
            tool.max_calls.map(i64::from).into(),
            tool.hints.read_only.into(),
            tool.hints.destructive.into(),
            tool.hints.idempotent.into(),
            tool.hints.open_world.into(),
        ]
    };
    let row = match original_id {
        // In place: same row, same position; new parameters.
        Some(original_id) => {
            let mut values: Vec<Value> = vec![app_id.into(), original_id.into()];
            values.extend(fields());
            let row = batch.guard(
                "UPDATE tools SET tool_id = $3, description = $4, activation_phrases = $5, \
                 title = $6, max_calls = $7, read_only = $8, destructive = $9, idempotent = $10, \
                 open_world = $11 WHERE app_id = $1 AND tool_id = $2 RETURNING id",
                values,
            );
            let before = ahead
                .as_ref()
                .and_then(|a| a.replaced_parameters.as_deref());
            match before {
                // The same parameters in the same places: only those that
                // changed are written (a save usually changes one thing;
                // rewriting every row rewrote their indexes too).
                Some(before) if same_names_in_order(before, &tool.parameters) => {
                    push_parameter_changes(&mut batch, app_id, tool, before)
                }
                _ => {
                    batch.push(
                        "DELETE FROM tool_parameters WHERE tool_id = \
                         (SELECT id FROM tools WHERE app_id = $1 AND tool_id = $2)",
                        vec![app_id.into(), (&tool.id).into()],
                    );
                    push_parameters(&mut batch, app_id, tool);
                }
            }
            row
        }
        None => {
            let mut values: Vec<Value> = vec![app_id.into()];
            values.extend(fields());
            let row = batch.guard(
                "INSERT INTO tools (app_id, position, tool_id, description, activation_phrases, \
                 title, max_calls, read_only, destructive, idempotent, open_world) \
                 VALUES ($1, (SELECT COALESCE(MAX(position), -1) + 1 FROM tools WHERE app_id = $1), \
                 $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
                values,
            );
            push_parameters(&mut batch, app_id, tool);
            row
        }
    };
    if let Some(ahead) = &ahead {
        push_record(
            &mut batch,
            app_id,
            expected_revision + 1,
            author,
            &change,
            now_ms,
            ahead,
        )?;
    }
    // What the batch did: the new revision, or the write's refusal.
    let written = |outcome: Outcome| -> Result<Result<i64, ToolWrite>, sqlx::Error> {
        let Some(revision) = outcome.value(bump) else {
            return match outcome.failed_at(bump) {
                true => Err(outcome.error().unwrap_or(sqlx::Error::RowNotFound)),
                false => Ok(Err(ToolWrite::Stale)),
            };
        };
        if outcome.value(row).is_none() {
            return match outcome.failed_at(row).then(|| outcome.error()).flatten() {
                Some(error) if super::is_unique_violation(&error) => {
                    Ok(Err(ToolWrite::DuplicateId))
                }
                Some(error) => Err(error),
                None => Ok(Err(ToolWrite::NotFound)),
            };
        }
        outcome.finished()?;
        Ok(Ok(revision))
    };
    let Some(ahead) = ahead else {
        // Read back and recorded in the same transaction.
        return on_writer!(db, conn => {
            let mut tx = sqlx::Connection::begin(conn).await?;
            let revision = match written(batch.run(&mut *tx).await?)? {
                Ok(revision) => revision,
                Err(refused) => return Ok(refused),
            };
            let config = fetch_config!(tx, app_id).await?;
            let digests =
                record_revision!(tx, app_id, revision, author, change, now_ms, &config, None).await?;
            tx.commit().await?;
            Ok(applied(db, app_id, revision, config, digests))
        });
    };
    let outcome = db
        .write_batch(batch, move |outcome| {
            outcome.value(bump).is_some() && outcome.value(row).is_some() && outcome.is_complete()
        })
        .await?;
    Ok(match written(outcome)? {
        Ok(revision) => applied(db, app_id, revision, ahead.config, ahead.known.0),
        Err(refused) => refused,
    })
}

/// Whether `after` has the parameters of `before`, by name, in the same
/// places: then each stays in its row, and its place with it.
fn same_names_in_order(before: &[Parameter], after: &[Parameter]) -> bool {
    before.len() == after.len() && before.iter().zip(after).all(|(b, a)| b.name == a.name)
}

/// The parameters of `tool` (its row found by its id in app `app_id`) that
/// differ from `before`, which has the same names in the same places.
fn push_parameter_changes(batch: &mut Batch, app_id: i64, tool: &Tool, before: &[Parameter]) {
    for (parameter, was) in tool.parameters.iter().zip(before) {
        if parameter == was {
            continue;
        }
        batch.push(
            "UPDATE tool_parameters SET param_type = $3, description = $4, required = $5, \
             enum_values = $6 WHERE tool_id = (SELECT id FROM tools WHERE app_id = $1 AND tool_id = $2) \
             AND name = $7",
            vec![
                app_id.into(),
                (&tool.id).into(),
                parameter.param_type.as_str().into(),
                (&parameter.description).into(),
                parameter.required.into(),
                encode_list(&parameter.enum_values).into(),
                (&parameter.name).into(),
            ],
        );
    }
}

/// `tool`'s parameters, for its row (found by its id) in app `app_id`: one
/// statement.
fn push_parameters(batch: &mut Batch, app_id: i64, tool: &Tool) {
    if tool.parameters.is_empty() {
        return;
    }
    let mut sql = String::from(
        "INSERT INTO tool_parameters \
         (tool_id, position, name, param_type, description, required, enum_values) VALUES ",
    );
    let mut values: Vec<Value> = vec![app_id.into(), (&tool.id).into()];
    for (position, parameter) in tool.parameters.iter().enumerate() {
        if position > 0 {
            sql.push_str(", ");
        }
        let n = values.len() + 1;
        sql.push_str(&format!(
            "((SELECT id FROM tools WHERE app_id = $1 AND tool_id = $2), ${}, ${}, ${}, ${}, ${}, ${})",
            n,
            n + 1,
            n + 2,
            n + 3,
            n + 4,
            n + 5
        ));
        values.extend([
            (position as i64).into(),
            (&parameter.name).into(),
            parameter.param_type.as_str().into(),
            (&parameter.description).into(),
            parameter.required.into(),
            encode_list(&parameter.enum_values).into(),
        ]);
    }
    batch.push(sql, values);
}

/// The record of revision `revision`, as worked out `ahead`: the new tool
/// bodies (those stored already are left as they are) and the revision.
fn push_record(
    batch: &mut Batch,
    app_id: i64,
    revision: i64,
    author: &Author,
    change: &Change,
    now_ms: i64,
    ahead: &Ahead,
) -> Result<(), sqlx::Error> {
    let (digests, bodies) = &ahead.known;
    for (digest, body) in bodies {
        batch.push(
            "INSERT INTO revision_tools (app_id, digest, body) VALUES ($1, $2, $3) \
             ON CONFLICT (app_id, digest) DO NOTHING",
            vec![app_id.into(), digest.into(), body.into()],
        );
    }
    batch.push(
        "INSERT INTO app_revisions \
         (app_id, revision, author_id, author_email, created_at, summary, snapshot, tool_digests) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        vec![
            app_id.into(),
            revision.into(),
            author.id.into(),
            (&author.email).into(),
            now_ms.into(),
            change.summary().into(),
            snapshots::head(&ahead.config)?.into(),
            snapshots::digest_list(digests).into(),
        ],
    );
    Ok(())
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
    let ahead = Ahead::of_edit(db, app_id, expected_revision, &edit).await?;
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
    let ahead = Ahead::of_edit(db, app_id, expected_revision, &edit).await?;
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
