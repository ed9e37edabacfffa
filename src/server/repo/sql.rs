//! Statements shared by the repositories inside their transactions. They are
//! macros so that the same text serves both backends: each expands inside an
//! `on_db!` arm, where `$tx` is that backend's transaction.

/// Bumps the app's revision if it is still `$expected`: `Option<new revision>`.
macro_rules! bump_revision {
    ($tx:ident, $app_id:expr, $expected:expr, $now:expr) => {
        sqlx::query_scalar::<_, i64>(
            "UPDATE apps SET revision = revision + 1, updated_at = $1 \
             WHERE id = $2 AND revision = $3 RETURNING revision",
        )
        .bind($now)
        .bind($app_id)
        .bind($expected)
        .fetch_optional(&mut *$tx)
    };
}

/// An app's tools in order: two queries, however many tools.
macro_rules! fetch_tools {
    ($exec:expr, $app_id:expr) => {
        async {
            let tool_rows: Vec<$crate::server::repo::tools::ToolRow> = sqlx::query_as(
                "SELECT id, tool_id, description, activation_phrases, title, max_calls, \
                 read_only, destructive, idempotent, open_world \
                 FROM tools WHERE app_id = $1 ORDER BY position, id",
            )
            .bind($app_id)
            .fetch_all($exec)
            .await?;
            let param_rows: Vec<$crate::server::repo::tools::ParamRow> = sqlx::query_as(
                "SELECT p.tool_id, p.name, p.param_type, p.description, p.required, p.enum_values \
                 FROM tool_parameters p JOIN tools t ON t.id = p.tool_id \
                 WHERE t.app_id = $1 ORDER BY p.tool_id, p.position, p.id",
            )
            .bind($app_id)
            .fetch_all($exec)
            .await?;
            $crate::server::repo::tools::assemble(tool_rows, param_rows)
        }
    };
}

/// The app's whole configuration, read inside the transaction `$tx`.
macro_rules! fetch_config {
    ($tx:ident, $app_id:expr) => {
        async {
            let (name, description, version, public_url, settings_json): (
                String,
                String,
                String,
                String,
                Option<String>,
            ) = sqlx::query_as(
                "SELECT name, description, version, public_url, settings_json FROM apps WHERE id = $1",
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
                tools,
            })
        }
    };
}

/// The configuration after a write (worked out ahead, or read back inside
/// `$tx`), and what the revision needs to know of its tools.
macro_rules! after_write {
    ($tx:ident, $app_id:expr, $ahead:expr) => {
        async {
            let ahead: Option<$crate::server::repo::tools::Ahead> = $ahead;
            Ok::<_, sqlx::Error>(match ahead {
                Some(ahead) => (ahead.config, Some(ahead.known)),
                None => (fetch_config!($tx, $app_id).await?, None),
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

/// Stores the tool bodies `$bodies` (`&[StoredTool]`) of app `$app_id`;
/// those stored already are left as they are.
macro_rules! store_tools {
    ($tx:ident, $app_id:expr, $bodies:expr) => {
        async {
            let bodies: &[$crate::server::repo::snapshots::StoredTool] = $bodies;
            for chunk in bodies.chunks(100) {
                let mut sql =
                    String::from("INSERT INTO revision_tools (app_id, digest, body) VALUES ");
                for i in 0..chunk.len() {
                    if i > 0 {
                        sql.push_str(", ");
                    }
                    sql.push_str(&format!("($1, ${}, ${})", 2 * i + 2, 2 * i + 3));
                }
                sql.push_str(" ON CONFLICT (app_id, digest) DO NOTHING");
                let mut query = sqlx::query(&sql).bind($app_id);
                for (digest, body) in chunk {
                    query = query.bind(digest).bind(body);
                }
                query.execute(&mut *$tx).await?;
            }
            Ok::<(), sqlx::Error>(())
        }
    };
}

/// Records revision `$revision` of the app — `$config`, as it now is — by
/// `$author`. `$known` is `Some((digests, new bodies))` when the tools'
/// digests were worked out with the change (see `tools::Ahead`); with `None`
/// every tool is digested and stored (those stored already are skipped).
/// Evaluates to the tools' digests.
macro_rules! record_revision {
    ($tx:ident, $app_id:expr, $revision:expr, $author:expr, $change:expr, $now:expr, $config:expr, $known:expr) => {
        async {
            use $crate::server::repo::snapshots;
            let config: &$crate::domain::config::AppConfig = $config;
            let known: Option<(Vec<snapshots::ToolDigest>, Vec<snapshots::StoredTool>)> = $known;
            let (digests, bodies) = match known {
                Some(known) => known,
                None => snapshots::all_tools(config)?,
            };
            store_tools!($tx, $app_id, &bodies).await?;
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
            .bind(snapshots::head(config)?)
            .bind(snapshots::digest_list(&digests))
            .execute(&mut *$tx)
            .await?;
            Ok::<_, sqlx::Error>(digests)
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
                 title, max_calls, read_only, destructive, idempotent, open_world) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
            )
            .bind($app_id)
            .bind($position)
            .bind(&tool.id)
            .bind(&tool.description)
            .bind($crate::server::repo::tools::encode_list(
                &tool.activation_phrases,
            ))
            .bind(&tool.title)
            .bind(tool.max_calls.map(i64::from))
            .bind(tool.hints.read_only)
            .bind(tool.hints.destructive)
            .bind(tool.hints.idempotent)
            .bind(tool.hints.open_world)
            .fetch_one(&mut *$tx)
            .await?;
            insert_parameters!($tx, row_id, tool).await?;
            Ok::<i64, sqlx::Error>(row_id)
        }
    };
}

/// Inserts `$tool`'s parameters for tool row `$row_id`: one statement (per
/// 50 parameters), since each statement is a round trip to the database.
macro_rules! insert_parameters {
    ($tx:ident, $row_id:expr, $tool:expr) => {
        async {
            let tool: &$crate::domain::tool::Tool = $tool;
            for (chunk_index, chunk) in tool.parameters.chunks(50).enumerate() {
                let mut sql = String::from(
                    "INSERT INTO tool_parameters \
                     (tool_id, position, name, param_type, description, required, enum_values) VALUES ",
                );
                for i in 0..chunk.len() {
                    if i > 0 {
                        sql.push_str(", ");
                    }
                    let n = 6 * i + 2;
                    sql.push_str(&format!(
                        "($1, ${}, ${}, ${}, ${}, ${}, ${})",
                        n,
                        n + 1,
                        n + 2,
                        n + 3,
                        n + 4,
                        n + 5
                    ));
                }
                let mut query = sqlx::query(&sql).bind($row_id);
                for (i, parameter) in chunk.iter().enumerate() {
                    query = query
                        .bind((chunk_index * 50 + i) as i64)
                        .bind(&parameter.name)
                        .bind(parameter.param_type.as_str())
                        .bind(&parameter.description)
                        .bind(parameter.required)
                        .bind($crate::server::repo::tools::encode_list(
                            &parameter.enum_values,
                        ));
                }
                query.execute(&mut *$tx).await?;
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
                 settings_json = $5 WHERE id = $6",
            )
            .bind(&config.name)
            .bind(&config.description)
            .bind(&config.version)
            .bind(&config.public_url)
            .bind(settings)
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
