//! Evals of an app: its cases (what a user says, and the tool a model
//! should call). Plain HTML forms, each ending on the evals page with a
//! notice.

use super::AppError;
use crate::domain::eval::EvalsPage;
use leptos::prelude::*;

#[cfg(feature = "ssr")]
fn evals_url(package_name: &str, query: &str) -> String {
    format!(
        "/console/apps/{}/evals?{query}#cases",
        crate::domain::url::encode_component(package_name)
    )
}

/// The app's tools and cases.
#[server(prefix = "/api", endpoint = "evals/page")]
pub async fn get_evals_page(package_name: String) -> Result<EvalsPage, AppError> {
    use crate::{api::context, domain::org::Action, server::repo};
    let state = context::state()?;
    let (_, app, config) = context::app_config_for(&state, &package_name, Action::Read).await?;
    let cases = repo::evals::cases(&state.db, app.id)
        .await
        .map_err(context::internal)?;
    Ok(EvalsPage {
        package_name: app.details.package_name,
        name: app.details.name,
        tools: config.tools.iter().map(|tool| tool.id.clone()).collect(),
        phrase_count: config
            .tools
            .iter()
            .map(|tool| tool.activation_phrases.len())
            .sum(),
        cases,
    })
}

/// "Add case" (no `id`) or "Save case" (case `id`, edited): one case from
/// the form. A refused form keeps what was typed.
#[server(prefix = "/api", endpoint = "evals/cases/add")]
pub async fn add_case(
    package_name: String,
    #[server(default)] id: Option<i64>,
    utterance: String,
    expected: String,
    #[server(default)] arguments: String,
) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{eval::CaseDraft, org::Action},
        server::{clock::now_ms, repo},
    };
    let state = context::state()?;
    let (developer, app, config) =
        context::app_config_for(&state, &package_name, Action::Edit).await?;
    let draft = CaseDraft {
        utterance,
        expected,
        arguments,
    };
    let case = draft.parse(&config.tools).map_err(|errors| {
        errors
            .with_echo("utterance", draft.utterance.clone())
            .with_echo("expected", draft.expected.clone())
            .with_echo("arguments", draft.arguments.clone())
    })?;
    let done = match id {
        None => {
            repo::evals::add(&state.db, app.id, developer.id, |_| vec![case], now_ms()).await?;
            "case_added=1"
        }
        Some(id) => {
            if !repo::evals::update(&state.db, app.id, id, developer.id, &case).await? {
                return Err(AppError::NotFound);
            }
            "case_saved=1"
        }
    };
    leptos_axum::redirect(&evals_url(&app.details.package_name, done));
    Ok(())
}

/// "Add cases from activation phrases": a case for each phrase of each
/// tool that no case says yet.
#[server(prefix = "/api", endpoint = "evals/cases/from-phrases")]
pub async fn add_cases_from_phrases(package_name: String) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{eval::cases_from_phrases, org::Action},
        server::{clock::now_ms, repo},
    };
    let state = context::state()?;
    let (developer, app, config) =
        context::app_config_for(&state, &package_name, Action::Edit).await?;
    let added = repo::evals::add(
        &state.db,
        app.id,
        developer.id,
        |existing| cases_from_phrases(&config.tools, existing),
        now_ms(),
    )
    .await?;
    leptos_axum::redirect(&evals_url(
        &app.details.package_name,
        &format!("from_phrases={added}"),
    ));
    Ok(())
}

/// Deletes case `id`. Without `confirmed=yes` (no JavaScript to ask), the
/// page asks first.
#[server(prefix = "/api", endpoint = "evals/cases/delete")]
pub async fn delete_case(
    package_name: String,
    id: i64,
    #[server(default)] confirmed: String,
) -> Result<(), AppError> {
    use crate::{api::context, domain::org::Action, server::repo};
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, &package_name, Action::Edit).await?;
    if confirmed != "yes" {
        leptos_axum::redirect(&evals_url(
            &app.details.package_name,
            &format!("delete_case={id}"),
        ));
        return Ok(());
    }
    if !repo::evals::delete(&state.db, app.id, id, developer.id).await? {
        return Err(AppError::NotFound);
    }
    leptos_axum::redirect(&evals_url(&app.details.package_name, "case_deleted=1"));
    Ok(())
}
