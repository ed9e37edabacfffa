//! Apps: list, read, create, save, delete — each only ever for the
//! signed-in developer's own apps.

use super::AppError;
#[cfg(feature = "ssr")]
use crate::domain::org::Action;
use crate::domain::{
    app::{AppDetails, AppSummary},
    checks::CheckSummary,
    keys::ApiKeySummary,
    org::{OrgSummary, Role},
    tool::ToolSummary,
};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// The message of a save based on an old revision (SPEC.md §4).
pub const STALE_MESSAGE: &str = "This app was changed elsewhere. Reload to see the latest version.";

/// The apps of the signed-in developer's current organization.
#[server(prefix = "/api", endpoint = "apps/list")]
pub async fn list_apps() -> Result<Vec<AppSummary>, AppError> {
    use crate::{api::context, server::repo};
    context::require_developer()?;
    let state = context::state()?;
    let Some(org) = context::memberships().current().cloned() else {
        return Ok(Vec::new());
    };
    repo::apps::list_for_org(&state.db, org.id)
        .await
        .map_err(context::internal)
}

/// One of the signed-in developer's apps; anyone else's is [`AppError::NotFound`].
#[server(prefix = "/api", endpoint = "apps/get")]
pub async fn get_app(package_name: String) -> Result<AppDetails, AppError> {
    use crate::api::context;
    let state = context::state()?;
    Ok(context::app_for(&state, &package_name, Action::Read)
        .await?
        .1
        .details)
}

/// Everything the app's page shows, loaded with one ownership check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AppPage {
    pub app: AppDetails,
    /// At a glance: a whole tool is fetched when it is edited.
    pub tools: Vec<ToolSummary>,
    pub keys: Vec<ApiKeySummary>,
    pub checks: CheckSummary,
    /// The role of the developer looking, in the app's organization.
    pub role: Role,
    /// Where an admin may move the app: the other organizations they are admin of.
    pub move_targets: Vec<OrgSummary>,
    /// Its live MCP server: the endpoint and the Activity list.
    pub mcp: super::mcp::McpPanel,
}

/// The readiness checks of one of the signed-in developer's apps, as it is
/// now: the app page asks again after each change.
#[server(prefix = "/api", endpoint = "apps/checks")]
pub async fn get_checks(package_name: String) -> Result<CheckSummary, AppError> {
    use crate::api::context;
    let state = context::state()?;
    let (_, app) = context::app_for(&state, &package_name, Action::Read).await?;
    Ok((*checks_of(&state, &app).await?).clone())
}

/// The checks of `app` at its revision, run once per revision.
#[cfg(feature = "ssr")]
async fn checks_of(
    state: &crate::server::AppState,
    app: &crate::server::repo::apps::StoredApp,
) -> Result<std::sync::Arc<CheckSummary>, AppError> {
    use crate::{api::context, domain::checks, server::repo};
    let key = (app.id, app.details.revision, ());
    if let Some(summary) = state.checks.get(&key) {
        return Ok(summary);
    }
    let config = repo::apps::load_config(&state.db, app)
        .await
        .map_err(context::internal)?;
    let summary = std::sync::Arc::new(checks::check(&config).summary());
    state.checks.put(key, summary.clone());
    Ok(summary)
}

/// Everything the app's page shows, its Activity older than call
/// `activity_before` when given.
#[server(prefix = "/api", endpoint = "apps/page")]
pub async fn get_app_page(
    package_name: String,
    activity_before: Option<i64>,
) -> Result<AppPage, AppError> {
    use crate::{api::context, server::repo};
    let state = context::state()?;
    let developer = context::require_developer()?;
    let (app, role) =
        crate::server::access::app(&state.db, &developer, &package_name, Action::Read).await?;
    let config = repo::apps::load_config(&state.db, &app)
        .await
        .map_err(context::internal)?;
    let tools = config
        .tools
        .iter()
        .map(|tool| ToolSummary::of(tool))
        .collect();
    let move_targets = if role.may(Action::MoveApp) {
        context::memberships()
            .orgs
            .into_iter()
            .filter(|org| org.id != app.org_id && org.role.may(Action::MoveApp))
            .collect()
    } else {
        Vec::new()
    };
    let checks = (*checks_of(&state, &app).await?).clone();
    let keys = repo::api_keys::list_for_app(&state.db, app.id)
        .await
        .map_err(context::internal)?;
    let mcp = super::mcp::panel(&state, &app, activity_before).await?;
    Ok(AppPage {
        app: app.details,
        tools,
        keys,
        checks,
        role,
        move_targets,
        mcp,
    })
}

/// Creates an app and goes to its page.
#[server(prefix = "/api", endpoint = "apps/create")]
pub async fn create_app(
    package_name: String,
    name: String,
    description: String,
    version: String,
    public_url: String,
) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{app::AppInput, url::encode_component, FieldErrors},
        server::{clock::now_ms, repo},
    };
    let developer = context::require_developer()?;
    let input = AppInput {
        package_name,
        name,
        description,
        version,
        public_url,
    }
    .normalized();
    input
        .check()
        .map_err(|errors| echo_app_input(errors, &input))?;
    let state = context::state()?;
    // A new app is made in the current organization (any member may).
    let org = context::memberships().current().cloned().ok_or_else(|| {
        AppError::Conflict(
            "You belong to no organization any more: create one first (New organization)."
                .to_owned(),
        )
    })?;
    match repo::apps::create(&state.db, &developer, org.id, &input, now_ms()).await {
        Ok(_) => {}
        // The database decides, not a racy pre-check.
        Err(repo::WriteError::Database(error)) if repo::is_unique_violation(&error) => {
            let errors = FieldErrors::single(
                "package_name",
                "This package name is already taken. Choose another one.",
            );
            return Err(echo_app_input(errors, &input).into());
        }
        Err(error) => return Err(error.into()),
    }
    tracing::info!(developer = developer.id, package = %input.package_name, "app created");
    leptos_axum::redirect(&format!(
        "/console/apps/{}?created=1",
        encode_component(&input.package_name)
    ));
    Ok(())
}

/// Saves an app's own fields, if they are still as they were at `revision`
/// (the revision the form was loaded at): changes since then to anything
/// else are kept. Answers with the saved app; a plain form post is sent back
/// to the app's page instead.
#[server(prefix = "/api", endpoint = "apps/save")]
pub async fn save_app(
    package_name: String,
    revision: i64,
    name: String,
    description: String,
    version: String,
    public_url: String,
) -> Result<AppDetails, AppError> {
    use crate::{
        api::context,
        domain::{app::AppInput, url::encode_component},
        server::{clock::now_ms, repo},
    };
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, &package_name, Action::Edit).await?;
    let input = AppInput {
        // Immutable: whatever the form says, the stored one is kept.
        package_name: app.details.package_name.clone(),
        name,
        description,
        version,
        public_url,
    }
    .normalized();
    // What a plain form post (no JavaScript) is drawn again with after an
    // error: what was typed, and the revision the fields were loaded at.
    let echo = |errors| echo_app_input(errors, &input).with_echo("revision", revision.to_string());
    input.check().map_err(echo)?;

    let now = now_ms();
    // `revision` is the one the form's fields were loaded at.
    match repo::apps::update_fields(&state.db, &app, revision, &input, &developer, now).await? {
        repo::apps::Revised::Applied(new_revision) => {
            tracing::info!(developer = developer.id, package = %input.package_name, new_revision, "app saved");
            if context::is_plain_form_post() {
                leptos_axum::redirect(&format!(
                    "/console/apps/{}?saved=1",
                    encode_component(&input.package_name)
                ));
            }
            Ok(AppDetails {
                package_name: input.package_name,
                name: input.name,
                description: input.description,
                version: input.version,
                public_url: input.public_url,
                revision: new_revision,
                updated_at: now,
            })
        }
        // Kept at the revision it was loaded at, the form is refused again
        // until the page is reloaded.
        repo::apps::Revised::Stale if context::is_plain_form_post() => Err(AppError::StaleForm(
            STALE_MESSAGE.to_owned(),
            echo(crate::domain::FieldErrors::new()),
        )),
        repo::apps::Revised::Stale => Err(AppError::Conflict(STALE_MESSAGE.to_owned())),
    }
}

/// Deletes an app and its tools. `confirmation` must repeat the package name.
#[server(prefix = "/api", endpoint = "apps/delete")]
pub async fn delete_app(package_name: String, confirmation: String) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{url::encode_component, FieldErrors},
        server::repo,
    };
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, &package_name, Action::DeleteApp).await?;
    if confirmation.trim() != app.details.package_name {
        return Err(FieldErrors::single(
            "confirmation",
            "Type the package name exactly to confirm the deletion",
        )
        .with_echo("confirmation", &confirmation)
        .into());
    }
    if !repo::apps::delete(&state.db, app.id, developer.id).await? {
        return Err(AppError::NotFound);
    }
    state.exports.forget(app.id);
    state.mcp_tools.forget(app.id);
    state.checks.forget(app.id);
    tracing::info!(developer = developer.id, package = %app.details.package_name, "app deleted");
    leptos_axum::redirect(&format!(
        "/console/apps?deleted={}",
        encode_component(&app.details.package_name)
    ));
    Ok(())
}

/// Validation errors of an app form, with what was typed echoed back.
#[cfg(feature = "ssr")]
fn echo_app_input(
    errors: crate::domain::FieldErrors,
    input: &crate::domain::app::AppInput,
) -> crate::domain::FieldErrors {
    errors
        .with_echo("package_name", &input.package_name)
        .with_echo("name", &input.name)
        .with_echo("description", &input.description)
        .with_echo("version", &input.version)
        .with_echo("public_url", &input.public_url)
}
