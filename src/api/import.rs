//! Import: preview what a config file would change, then apply it in one
//! transaction — refused if the app changed since the preview.

use super::AppError;
use crate::domain::import::{ImportPreview, Problem, SourceFormat};
#[cfg(feature = "ssr")]
use crate::domain::org::Action;
use leptos::{prelude::*, server_fn::codec::Json};
use serde::{Deserialize, Serialize};

/// What the console makes of a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ImportAnalysis {
    /// Nothing can be imported; every problem with its JSON path.
    Invalid {
        errors: Vec<Problem>,
        warnings: Vec<Problem>,
    },
    /// What applying it would change, against the app at `revision`.
    Valid {
        format: SourceFormat,
        preview: ImportPreview,
        warnings: Vec<Problem>,
        revision: i64,
        tools: usize,
    },
}

#[server(prefix = "/api", endpoint = "import/preview", input = Json)]
pub async fn preview_import(
    package_name: String,
    content: String,
) -> Result<ImportAnalysis, AppError> {
    use crate::{
        api::context,
        domain::import::{merge, parse, preview},
        server::repo,
    };
    let state = context::state()?;
    let (_, app) = context::app_for(&state, &package_name, Action::Read).await?;
    let imported = match parse(content.as_bytes()) {
        Ok(imported) => imported,
        Err(rejected) => {
            return Ok(ImportAnalysis::Invalid {
                errors: rejected.errors,
                warnings: rejected.warnings,
            })
        }
    };
    let current = repo::apps::load_config(&state.db, &app)
        .await
        .map_err(context::internal)?;
    let mut next = merge(&current, &imported);
    // An app's package name is its own: the file's tools go into it.
    let foreign_package = next.claim_package(&app.details.package_name);
    let preview = ImportPreview {
        foreign_package,
        ..preview(&current, &next)
    };
    Ok(ImportAnalysis::Valid {
        format: imported.format,
        preview,
        warnings: imported.warnings,
        revision: app.details.revision,
        tools: next.tools.len(),
    })
}

/// Replaces the app's configuration with the file's, if the app is still at
/// `revision` (the one the preview was made against). The file is parsed
/// and checked again: the preview is never trusted.
#[server(prefix = "/api", endpoint = "import/apply", input = Json)]
pub async fn apply_import(
    package_name: String,
    revision: i64,
    content: String,
) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{
            import::{merge, parse},
            revision::Change,
            url::encode_component,
            FieldErrors,
        },
        server::{clock::now_ms, repo, repo::apps::Revised},
    };
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, &package_name, Action::Edit).await?;
    let imported = parse(content.as_bytes()).map_err(|rejected| {
        let mut errors = FieldErrors::new();
        for problem in rejected.errors {
            errors.add("content", problem.to_string());
        }
        AppError::Validation(errors)
    })?;
    let current = repo::apps::load_config(&state.db, &app)
        .await
        .map_err(context::internal)?;
    let mut next = merge(&current, &imported);
    // An app's package name is its own: the file's tools go into it.
    next.claim_package(&app.details.package_name);
    let change = Change::Imported {
        tools: next.tools.len(),
    };
    match repo::revisions::replace(&state.db, app.id, revision, &next, change, &developer, now_ms())
        .await?
    {
        Revised::Applied(_) => {
            tracing::info!(developer = developer.id, package = %package_name, tools = next.tools.len(), "imported");
            leptos_axum::redirect(&format!(
                "/console/apps/{}?imported={}",
                encode_component(&app.details.package_name),
                next.tools.len()
            ));
            Ok(())
        }
        Revised::Stale => Err(AppError::Conflict(
            "The app changed since this preview. Preview the import again to see what it would change now."
                .to_owned(),
        )),
    }
}
