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

/// The app's configuration after the change `$tx` is making: `$base` (the
/// cached configuration at the revision the change started from) with the
/// change made to it by `$edit` (a closure returning whether it applied), or,
/// when not cached or when the edit does not fit, read back inside `$tx`.
macro_rules! config_after {
    ($tx:ident, $app_id:expr, $base:expr, $edit:expr) => {
        async {
            let base: Option<std::sync::Arc<$crate::domain::config::AppConfig>> = $base;
            if let Some(base) = base {
                let mut config = (*base).clone();
                if ($edit)(&mut config) {
                    return Ok::<_, sqlx::Error>(config);
                }
                tracing::warn!(
                    app = $app_id,
                    "the cached configuration did not fit the change"
                );
            }
            fetch_config!($tx, $app_id).await
        }
    };
}

/// Records revision `$revision` of the app, `$config` (as it now is), by `$author`.
macro_rules! record_revision {
    ($tx:ident, $app_id:expr, $revision:expr, $author:expr, $change:expr, $now:expr, $config:expr) => {
        async {
            let config: &$crate::domain::config::AppConfig = $config;
            let snapshot =
                serde_json::to_string(config).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
            sqlx::query(
                "INSERT INTO app_revisions \
                 (app_id, revision, author_id, author_email, created_at, summary, snapshot) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind($app_id)
            .bind($revision)
            .bind($author.id)
            .bind(&$author.email)
            .bind($now)
            .bind($change.summary())
            .bind(snapshot)
            .execute(&mut *$tx)
            .await?;
            Ok::<_, sqlx::Error>(())
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

/// Inserts `$tool`'s parameters for tool row `$row_id`.
macro_rules! insert_parameters {
    ($tx:ident, $row_id:expr, $tool:expr) => {
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
                .bind($crate::server::repo::tools::encode_list(
                    &parameter.enum_values,
                ))
                .execute(&mut *$tx)
                .await?;
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
