//! Statements and rows shared by the repositories inside their transactions.
//! The statements are macros so that the same text serves both backends:
//! each expands inside an `in_transaction!` arm, where `$tx` is that
//! backend's transaction.

use crate::domain::tool::{KeptKeys, ParamType, Parameter, Tool, ToolHints};
use std::collections::HashMap;

/// Whether `error` is a violated UNIQUE constraint (on either backend).
pub fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|e| e.is_unique_violation())
}

/// A multi-row insert for the backend of `tx` (its placeholders, its types).
pub(crate) fn insert_into<'args, DB: sqlx::Database>(
    _tx: &sqlx::Transaction<'_, DB>,
    head: &str,
) -> sqlx::QueryBuilder<'args, DB> {
    sqlx::QueryBuilder::new(head)
}

#[derive(sqlx::FromRow)]
pub(crate) struct ToolRow {
    id: i64,
    tool_id: String,
    description: String,
    activation_phrases: String,
    title: Option<String>,
    max_calls: Option<i64>,
    read_only_hint: Option<bool>,
    destructive_hint: Option<bool>,
    idempotent_hint: Option<bool>,
    open_world_hint: Option<bool>,
    extra_json: Option<String>,
}

#[derive(sqlx::FromRow)]
pub(crate) struct ParamRow {
    tool_id: i64,
    name: String,
    param_type: String,
    description: String,
    required: bool,
    enum_values: String,
    extra_json: Option<String>,
}

/// A list typed as comma-separated text (phrases, allowed values) is
/// stored as a JSON array.
fn decode_list(json: &str) -> Result<Vec<String>, sqlx::Error> {
    serde_json::from_str(json).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

/// Keys kept from an imported file: a JSON object, or NULL when there are
/// none (most tools).
pub(crate) fn decode_kept(json: Option<String>) -> Result<KeptKeys, sqlx::Error> {
    match json {
        None => Ok(KeptKeys::new()),
        Some(json) => serde_json::from_str(&json).map_err(|e| sqlx::Error::Decode(Box::new(e))),
    }
}

pub(crate) fn encode_kept(kept: &KeptKeys) -> Option<String> {
    (!kept.is_empty())
        .then(|| serde_json::to_string(kept).ok())
        .flatten()
}

pub(crate) fn encode_list(list: &[String]) -> String {
    serde_json::to_string(list).unwrap_or_else(|_| "[]".to_owned())
}

/// An app's tools from their rows and their parameters' rows, in order.
pub(crate) fn assemble_tools(
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
            extra: decode_kept(row.extra_json)?,
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
                    read_only: row.read_only_hint,
                    destructive: row.destructive_hint,
                    idempotent: row.idempotent_hint,
                    open_world: row.open_world_hint,
                },
                extra: decode_kept(row.extra_json)?,
            })
        })
        .collect()
}

/// Whether `tx` is a PostgreSQL transaction (which locks rows on request;
/// SQLite's write transactions, begun `IMMEDIATE`, hold the whole database).
pub(crate) fn is_postgres<DB: sqlx::Database>(_tx: &sqlx::Transaction<'_, DB>) -> bool {
    DB::NAME == "PostgreSQL"
}

/// Reads again, inside the write's transaction `$tx`, whether developer
/// `$developer` may still do `$action` within `$scope` (a
/// [`Scope`](super::Scope)), and holds that answer until `$tx` ends: on
/// PostgreSQL the app's or organization's row is locked against other
/// writes and the membership against removal and change of role (a removal,
/// demotion, move or deletion waits for this write, or this write sees its
/// outcome); on SQLite the write transaction already excludes every other.
/// Evaluates to `Result<Role, WriteError>`: a permission that ended is
/// [`WriteError::Refused`](super::WriteError) with its reason in words.
macro_rules! may_write {
    ($tx:ident, $scope:expr, $developer:expr, $action:expr) => {
        async {
            use $crate::domain::org::{allow_at_write, Standing};
            let scope: $crate::server::repo::Scope = $scope;
            let postgres = $crate::server::repo::sql::is_postgres(&$tx);
            let org: Result<i64, Standing> = match scope {
                $crate::server::repo::Scope::App(app_id) => {
                    let found: Option<Option<i64>> = sqlx::query_scalar(if postgres {
                        "SELECT org_id FROM apps WHERE id = $1 FOR NO KEY UPDATE"
                    } else {
                        "SELECT org_id FROM apps WHERE id = $1"
                    })
                    .bind(app_id)
                    .fetch_optional(&mut *$tx)
                    .await?;
                    found.flatten().ok_or(Standing::AppGone)
                }
                $crate::server::repo::Scope::Org(org) => {
                    let found: Option<i64> = sqlx::query_scalar(if postgres {
                        "SELECT id FROM organizations WHERE id = $1 FOR NO KEY UPDATE"
                    } else {
                        "SELECT id FROM organizations WHERE id = $1"
                    })
                    .bind(org)
                    .fetch_optional(&mut *$tx)
                    .await?;
                    found.ok_or(Standing::OrgGone)
                }
            };
            let not_member = match scope {
                $crate::server::repo::Scope::App(_) => Standing::OutOfReach,
                $crate::server::repo::Scope::Org(_) => Standing::NotMember,
            };
            let standing = match org {
                Err(gone) => gone,
                Ok(org) => {
                    let role: Option<String> = sqlx::query_scalar(if postgres {
                        "SELECT role FROM org_members WHERE org_id = $1 AND developer_id = $2 FOR SHARE"
                    } else {
                        "SELECT role FROM org_members WHERE org_id = $1 AND developer_id = $2"
                    })
                    .bind(org)
                    .bind($developer)
                    .fetch_optional(&mut *$tx)
                    .await?;
                    role.map_or(not_member, Standing::Role)
                }
            };
            allow_at_write(&standing, $action).map_err($crate::server::repo::WriteError::Refused)
        }
    };
}

/// Bumps the app's revision if it is still `$expected` and `$author` may
/// still edit it (see [`may_write!`]): `Result<Option<new revision>, WriteError>`,
/// `None` for a stale revision. Every change to an app goes through here.
macro_rules! bump_revision {
    ($tx:ident, $app_id:expr, $expected:expr, $author:expr, $now:expr) => {
        async {
            may_write!(
                $tx,
                $crate::server::repo::Scope::App($app_id),
                $author.id,
                $crate::domain::org::Action::Edit
            )
            .await?;
            let revision = sqlx::query_scalar::<_, i64>(
                "UPDATE apps SET revision = revision + 1, updated_at = $1 \
                 WHERE id = $2 AND revision = $3 RETURNING revision",
            )
            .bind($now)
            .bind($app_id)
            .bind($expected)
            .fetch_optional(&mut *$tx)
            .await?;
            Ok::<_, $crate::server::repo::WriteError>(revision)
        }
    };
}

/// An app's tools in order: two queries, however many tools.
macro_rules! fetch_tools {
    ($exec:expr, $app_id:expr) => {
        async {
            let tool_rows: Vec<$crate::server::repo::sql::ToolRow> = sqlx::query_as(
                "SELECT id, tool_id, description, activation_phrases, title, max_calls, \
                 read_only_hint, destructive_hint, idempotent_hint, open_world_hint, extra_json \
                 FROM tools WHERE app_id = $1 ORDER BY position, id",
            )
            .bind($app_id)
            .fetch_all($exec)
            .await?;
            let param_rows: Vec<$crate::server::repo::sql::ParamRow> = sqlx::query_as(
                "SELECT p.tool_id, p.name, p.param_type, p.description, p.required, p.enum_values, \
                 p.extra_json \
                 FROM tool_parameters p JOIN tools t ON t.id = p.tool_id \
                 WHERE t.app_id = $1 ORDER BY p.tool_id, p.position, p.id",
            )
            .bind($app_id)
            .fetch_all($exec)
            .await?;
            $crate::server::repo::sql::assemble_tools(tool_rows, param_rows)
        }
    };
}

/// The app's whole configuration, read inside the transaction `$tx`.
macro_rules! fetch_config {
    ($tx:ident, $app_id:expr) => {
        async {
            let (name, description, version, public_url, settings_json, extra_json): (
                String,
                String,
                String,
                String,
                Option<String>,
                Option<String>,
            ) = sqlx::query_as(
                "SELECT name, description, version, public_url, settings_json, extra_json \
                 FROM apps WHERE id = $1",
            )
            .bind($app_id)
            .fetch_one(&mut *$tx)
            .await?;
            let tools = fetch_tools!(&mut *$tx, $app_id).await?;
            Ok::<_, sqlx::Error>($crate::domain::config::AppConfig {
                name,
                description,
                version,
                public_url,
                settings: settings_json.and_then(|json| serde_json::from_str(&json).ok()),
                extra: $crate::server::repo::sql::decode_kept(extra_json)?,
                tools,
            })
        }
    };
}

/// The id for a new row of `$table` on SQLite (`Result<i64>`), from
/// `$sequence`, a table of one AUTOINCREMENT column (migrations 0007 and
/// 0010): SQLite alone gives the next row the highest id once that row is
/// deleted, and a sequence never hands out an id twice. Past the highest id
/// in `$table` too, in case a row was added there some other way (by hand,
/// say), so that the id is free. In `$tx`, whose rollback takes the id back.
/// (Compiled for PostgreSQL too, where it is never run: identity columns
/// never repeat an id.)
macro_rules! next_sqlite_id {
    ($tx:ident, $table:literal, $sequence:literal) => {
        async {
            let id: i64 = sqlx::query_scalar(concat!(
                "INSERT INTO ",
                $sequence,
                " (id) VALUES (MAX(COALESCE((SELECT MAX(id) FROM ",
                $table,
                "), 0), COALESCE((SELECT seq FROM sqlite_sequence WHERE name = '",
                $sequence,
                "'), 0)) + 1) RETURNING id"
            ))
            .fetch_one(&mut *$tx)
            .await?;
            sqlx::query(concat!("DELETE FROM ", $sequence))
                .execute(&mut *$tx)
                .await?;
            Ok::<i64, sqlx::Error>(id)
        }
    };
}

/// Records revision `$revision` of the app — `$snapshot`, the app as it now
/// is — by `$author`, storing the tool bodies `$bodies` (those stored
/// already are left as they are). Then commits `$tx` and keeps the snapshot
/// as the app's latest: evaluates to it.
macro_rules! record_and_commit {
    ($db:expr, $tx:ident, $app_id:expr, $revision:expr, $author:expr, $change:expr, $now:expr, $recorded:expr) => {
        async {
            let (snapshot, bodies): (
                $crate::server::repo::snapshots::Snapshot,
                Vec<$crate::server::repo::snapshots::StoredTool>,
            ) = $recorded;
            if !bodies.is_empty() {
                let mut insert = $crate::server::repo::sql::insert_into(
                    &$tx,
                    "INSERT INTO revision_tools (app_id, digest, body) ",
                );
                insert.push_values(&bodies, |mut row, (digest, body)| {
                    row.push_bind($app_id).push_bind(digest).push_bind(body);
                });
                insert.push(" ON CONFLICT (app_id, digest) DO NOTHING");
                insert.build().execute(&mut *$tx).await?;
            }
            sqlx::query(
                "INSERT INTO app_revisions \
                 (app_id, revision, author_id, author_email, created_at, summary, snapshot, tool_digests) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind($app_id)
            .bind($revision)
            .bind($author.id)
            .bind(&$author.email)
            .bind($now)
            .bind($change.summary())
            .bind(snapshot.head()?)
            .bind(snapshot.digest_list()?)
            .execute(&mut *$tx)
            .await?;
            $tx.commit().await?;
            Ok::<_, sqlx::Error>($db.configs().put($app_id, $revision, snapshot))
        }
    };
}

/// Inserts `$tool` (parameters and all) at `$position`: `Result<row id>`.
/// A taken tool id is a unique violation.
macro_rules! insert_tool {
    ($tx:ident, $app_id:expr, $position:expr, $tool:expr) => {
        async {
            let tool: &$crate::domain::tool::Tool = $tool;
            let row_id: i64 = sqlx::query_scalar(
                "INSERT INTO tools (app_id, position, tool_id, description, activation_phrases, \
                 title, max_calls, read_only_hint, destructive_hint, idempotent_hint, \
                 open_world_hint, extra_json) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
            )
            .bind($app_id)
            .bind($position)
            .bind(&tool.id)
            .bind(&tool.description)
            .bind($crate::server::repo::sql::encode_list(
                &tool.activation_phrases,
            ))
            .bind(&tool.title)
            .bind(tool.max_calls.map(i64::from))
            .bind(tool.hints.read_only)
            .bind(tool.hints.destructive)
            .bind(tool.hints.idempotent)
            .bind(tool.hints.open_world)
            .bind($crate::server::repo::sql::encode_kept(&tool.extra))
            .fetch_one(&mut *$tx)
            .await?;
            insert_parameters!($tx, row_id, tool).await?;
            Ok::<i64, sqlx::Error>(row_id)
        }
    };
}

/// Inserts `$tool`'s parameters for tool row `$row_id`, in one statement.
macro_rules! insert_parameters {
    ($tx:ident, $row_id:expr, $tool:expr) => {
        async {
            let tool: &$crate::domain::tool::Tool = $tool;
            if !tool.parameters.is_empty() {
                let mut insert = $crate::server::repo::sql::insert_into(
                    &$tx,
                    "INSERT INTO tool_parameters \
                     (tool_id, position, name, param_type, description, required, enum_values, \
                     extra_json) ",
                );
                insert.push_values(
                    tool.parameters.iter().enumerate(),
                    |mut row, (position, parameter)| {
                        row.push_bind($row_id)
                            .push_bind(position as i64)
                            .push_bind(&parameter.name)
                            .push_bind(parameter.param_type.as_str())
                            .push_bind(&parameter.description)
                            .push_bind(parameter.required)
                            .push_bind($crate::server::repo::sql::encode_list(
                                &parameter.enum_values,
                            ))
                            .push_bind($crate::server::repo::sql::encode_kept(&parameter.extra));
                    },
                );
                insert.build().execute(&mut *$tx).await?;
            }
            Ok::<(), sqlx::Error>(())
        }
    };
}

/// Makes the app exactly `$config`: its fields, settings and tools.
macro_rules! replace_config {
    ($tx:ident, $app_id:expr, $config:expr) => {
        async {
            let config: &$crate::domain::config::AppConfig = $config;
            let settings = match &config.settings {
                Some(settings) => Some(
                    serde_json::to_string(settings)
                        .map_err(|e| sqlx::Error::Encode(Box::new(e)))?,
                ),
                None => None,
            };
            sqlx::query(
                "UPDATE apps SET name = $1, description = $2, version = $3, public_url = $4, \
                 settings_json = $5, extra_json = $6 WHERE id = $7",
            )
            .bind(&config.name)
            .bind(&config.description)
            .bind(&config.version)
            .bind(&config.public_url)
            .bind(settings)
            .bind($crate::server::repo::sql::encode_kept(&config.extra))
            .bind($app_id)
            .execute(&mut *$tx)
            .await?;
            sqlx::query("DELETE FROM tools WHERE app_id = $1")
                .bind($app_id)
                .execute(&mut *$tx)
                .await?;
            for (position, tool) in config.tools.iter().enumerate() {
                insert_tool!($tx, $app_id, position as i64, tool).await?;
            }
            Ok::<(), sqlx::Error>(())
        }
    };
}

/// Makes organization `$name` in `$tx` with `$developer` (an id) as its
/// admin and their current organization: its slug is made from `$slug_of`
/// (its name, or a personal organization's owner's email), numbered if
/// taken. Evaluates to `(id, slug)`.
macro_rules! insert_org {
    ($tx:ident, $name:expr, $slug_of:expr, $developer:expr, $now:expr) => {
        async {
            let base = $crate::domain::org::slugify($slug_of);
            let mut taken: Vec<String> = sqlx::query_scalar(
                "SELECT slug FROM organizations WHERE slug = $1 OR slug LIKE $2",
            )
            .bind(&base)
            .bind(format!("{base}-%"))
            .fetch_all(&mut *$tx)
            .await?;
            // A slug taken in the meantime by another transaction (two
            // sign-ups whose emails make the same slug): the next one.
            let (id, slug) = loop {
                let slug = $crate::domain::org::unique_slug(&base, &taken);
                let made: Option<i64> = sqlx::query_scalar(
                    "INSERT INTO organizations (name, slug, created_at) VALUES ($1, $2, $3) \
                     ON CONFLICT (slug) DO NOTHING RETURNING id",
                )
                .bind($name)
                .bind(&slug)
                .bind($now)
                .fetch_optional(&mut *$tx)
                .await?;
                match made {
                    Some(id) => break (id, slug),
                    None => taken.push(slug),
                }
            };
            sqlx::query(
                "INSERT INTO org_members (org_id, developer_id, role, joined_at) VALUES ($1, $2, 'admin', $3)",
            )
            .bind(id)
            .bind($developer)
            .bind($now)
            .execute(&mut *$tx)
            .await?;
            sqlx::query("UPDATE developers SET current_org_id = $1 WHERE id = $2")
                .bind(id)
                .bind($developer)
                .execute(&mut *$tx)
                .await?;
            Ok::<(i64, String), sqlx::Error>((id, slug))
        }
    };
}
