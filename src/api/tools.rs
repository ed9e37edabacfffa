//! AI tools of an app: read, save, delete, reorder. Each write checks the
//! session, the app's owner, every rule, and the revision the editor was
//! loaded at, and answers with the new revision and the edit as made.

use super::AppError;
#[cfg(feature = "ssr")]
use crate::domain::org::Action;
#[cfg(feature = "ssr")]
use crate::domain::tool::ToolEdit;
use crate::domain::tool::{HintsRow, MoveDirection, ToolAt, ToolDraft, ToolsState, ToolsWritten};
use leptos::{prelude::*, server_fn::codec::Json};

/// The app's tools at a glance, and its revision.
#[server(prefix = "/api", endpoint = "tools/list")]
pub async fn get_tools(package_name: String) -> Result<ToolsState, AppError> {
    use crate::domain::tool::ToolSummary;
    let (revision, config) = owned_config(&package_name).await?;
    Ok(ToolsState {
        revision,
        tools: config
            .tools
            .iter()
            .map(|tool| ToolSummary::of(tool))
            .collect(),
    })
}

/// One whole tool of the app (for its editor), and the app's revision.
#[server(prefix = "/api", endpoint = "tools/get")]
pub async fn get_tool(package_name: String, tool_id: String) -> Result<ToolAt, AppError> {
    let (revision, config) = owned_config(&package_name).await?;
    let tool = config
        .tools
        .iter()
        .find(|t| t.id == tool_id)
        .map(|tool| (**tool).clone())
        .ok_or(AppError::NotFound)?;
    Ok(ToolAt { revision, tool })
}

/// The signed-in developer's app `package_name`: its revision and its
/// configuration at that revision.
#[cfg(feature = "ssr")]
async fn owned_config(
    package_name: &str,
) -> Result<(i64, std::sync::Arc<crate::domain::config::AppConfig>), AppError> {
    use crate::api::context;
    let state = context::state()?;
    let (_, app, config) = context::app_config_for(&state, package_name, Action::Read).await?;
    Ok((app.details.revision, config))
}

/// Creates a tool (`original_id` `None`) or replaces the tool now called
/// `original_id`, in one transaction.
#[server(prefix = "/api", endpoint = "tools/save", input = Json)]
pub async fn save_tool(
    package_name: String,
    revision: i64,
    original_id: Option<String>,
    draft: ToolDraft,
) -> Result<ToolsWritten, AppError> {
    edit_tools(&package_name, revision, || {
        Ok(ToolEdit::Save {
            original_id,
            tool: Box::new(draft.parse()?),
        })
    })
    .await
}

#[server(prefix = "/api", endpoint = "tools/delete", input = Json)]
pub async fn delete_tool(
    package_name: String,
    revision: i64,
    tool_id: String,
) -> Result<ToolsWritten, AppError> {
    edit_tools(&package_name, revision, || Ok(ToolEdit::Delete(tool_id))).await
}

#[server(prefix = "/api", endpoint = "tools/move", input = Json)]
pub async fn move_tool(
    package_name: String,
    revision: i64,
    tool_id: String,
    direction: MoveDirection,
) -> Result<ToolsWritten, AppError> {
    edit_tools(&package_name, revision, || {
        Ok(ToolEdit::Move(tool_id, direction))
    })
    .await
}

/// Makes the edit `edit` gives (a save checks its draft there) on the
/// signed-in developer's app `package_name`, if they may edit it and it is
/// still at `revision`; answers the edit as made, which the editor makes on
/// its own list.
#[cfg(feature = "ssr")]
async fn edit_tools(
    package_name: &str,
    revision: i64,
    edit: impl FnOnce() -> Result<ToolEdit, AppError>,
) -> Result<ToolsWritten, AppError> {
    use crate::{
        api::{apps::STALE_MESSAGE, context},
        domain::FieldErrors,
        server::{clock::now_ms, repo, repo::revisions::ToolWrite},
    };
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, package_name, Action::Edit).await?;
    let edit = edit()?;
    let written =
        repo::revisions::edit_tools(&state.db, app.id, revision, &edit, &developer, now_ms())
            .await?;
    match written {
        ToolWrite::Applied { revision, .. } => {
            tracing::info!(developer = developer.id, package = %package_name, revision, "tools edited");
            Ok(ToolsWritten { revision, edit })
        }
        ToolWrite::Stale => Err(AppError::Conflict(STALE_MESSAGE.to_owned())),
        ToolWrite::NotFound => Err(AppError::NotFound),
        ToolWrite::DuplicateId => Err(FieldErrors::single(
            "tool_id",
            "Another tool of this app already has this ID",
        )
        .into()),
    }
}

/// "Hints of every tool": decides the four hints of each tool a row names,
/// in one revision, if the app is still at `revision`. Answers the app's
/// tools as they are then; a plain form post goes back to the app's page.
#[server(prefix = "/api", endpoint = "tools/hints")]
pub async fn save_hints(
    package_name: String,
    revision: i64,
    #[server(default)] hints: Vec<HintsRow>,
) -> Result<ToolsState, AppError> {
    use crate::{
        api::{apps::STALE_MESSAGE, context},
        domain::{
            revision::Change,
            tool::{decide_hints, ToolSummary},
            url::encode_component,
        },
        server::{clock::now_ms, repo, repo::apps::Revised},
    };
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, &package_name, Action::Edit).await?;
    // A refused plain form is drawn again with what was chosen.
    let keep_choices = |error: AppError| {
        if !context::is_plain_form_post() {
            return error;
        }
        let mut chosen = crate::domain::FieldErrors::new();
        for row in &hints {
            for kind in crate::domain::tool::HintKind::ALL {
                let key = crate::domain::tool::hints_echo_key(&row.tool_id, kind);
                chosen = chosen.with_echo(key, row.value(kind));
            }
        }
        error.with_input(chosen)
    };
    if app.details.revision != revision {
        return Err(keep_choices(AppError::Conflict(STALE_MESSAGE.to_owned())));
    }
    let mut config = (*repo::apps::load_config(&state.db, &app)
        .await
        .map_err(context::internal)?)
    .clone();
    let changed = decide_hints(&mut config.tools, &hints).map_err(|e| keep_choices(e.into()))?;
    let count = changed.len();
    let revision = if changed.is_empty() {
        revision
    } else {
        let change = Change::DecidedHints(changed);
        match repo::revisions::replace(
            &state.db,
            app.id,
            revision,
            &config,
            change,
            &developer,
            now_ms(),
        )
        .await?
        {
            Revised::Applied(revision) => revision,
            Revised::Stale => {
                return Err(keep_choices(AppError::Conflict(STALE_MESSAGE.to_owned())))
            }
        }
    };
    tracing::info!(developer = developer.id, package = %package_name, tools = count, "hints decided");
    if context::is_plain_form_post() {
        leptos_axum::redirect(&format!(
            "/console/apps/{}?hints={count}#checks",
            encode_component(&app.details.package_name)
        ));
    }
    Ok(ToolsState {
        revision,
        tools: config
            .tools
            .iter()
            .map(|tool| ToolSummary::of(tool))
            .collect(),
    })
}
