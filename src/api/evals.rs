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

/// How many runs the page lists (and charts), newest first.
#[cfg(feature = "ssr")]
const RUNS_LISTED: i64 = 50;

/// The app's tools and cases, the organization's providers, the app's
/// runs, and the results of run `run` (the latest when not given).
#[server(prefix = "/api", endpoint = "evals/page")]
pub async fn get_evals_page(
    package_name: String,
    #[server(default)] run: Option<i64>,
) -> Result<EvalsPage, AppError> {
    use crate::{
        api::context,
        domain::org::Action,
        server::{evals, repo},
    };
    let state = context::state()?;
    let (_, app, config) = context::app_config_for(&state, &package_name, Action::Read).await?;
    let cases = repo::evals::cases(&state.db, app.id)
        .await
        .map_err(context::internal)?;
    let providers = repo::providers::list(&state.db, app.org_id)
        .await
        .map_err(context::internal)?;
    let mut runs = repo::eval_runs::list(&state.db, app.id, RUNS_LISTED)
        .await
        .map_err(context::internal)?;
    // The run asked for, or the latest (also when the one asked for is
    // not this app's).
    let mut shown = None;
    for id in run.into_iter().chain(runs.first().map(|run| run.id)) {
        shown = evals::report(&state, app.id, id)
            .await
            .map_err(context::internal)?;
        if shown.is_some() {
            break;
        }
    }
    // The shown run was read after the list: the list, and the chart drawn
    // from it, say the same of it as its results do (a run that ended in
    // between is not "Done" above and "Running" below).
    if let Some((fresh, _)) = &shown {
        if let Some(listed) = runs.iter_mut().find(|run| run.id == fresh.id) {
            *listed = fresh.clone();
        }
    }
    Ok(EvalsPage {
        providers,
        runs,
        shown,
        read_at: crate::server::clock::now_ms(),
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

/// "Run evals": queues a run of every case with the chosen provider, and
/// shows it on the page as it goes.
#[server(prefix = "/api", endpoint = "evals/runs/start")]
pub async fn run_evals(
    package_name: String,
    #[server(default)] provider: String,
    #[server(default)] trials: String,
) -> Result<(), AppError> {
    use crate::{api::context, domain::org::Action, server::evals};
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, &package_name, Action::Edit).await?;
    let id = evals::queue(&state, &app, developer.id, &provider, &trials)
        .await
        .map_err(|error| match error {
            AppError::Validation(errors) => AppError::Validation(
                errors
                    .with_echo("provider", provider.trim())
                    .with_echo("trials", trials.trim()),
            ),
            other => other,
        })?;
    tracing::info!(developer = developer.id, run = id, "eval run queued");
    leptos_axum::redirect(&format!(
        "/console/apps/{}/evals?run={id}#run",
        crate::domain::url::encode_component(&app.details.package_name)
    ));
    Ok(())
}

/// "Cancel": stops run `id`; the calls made so far stay.
#[server(prefix = "/api", endpoint = "evals/runs/cancel")]
pub async fn cancel_run(package_name: String, id: i64) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::org::Action,
        server::{clock::now_ms, repo},
    };
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, &package_name, Action::Edit).await?;
    let done = match repo::eval_runs::cancel(&state.db, app.id, id, developer.id, now_ms()).await? {
        None => return Err(AppError::NotFound),
        Some(true) => "cancelled=1",
        Some(false) => "already_over=1",
    };
    leptos_axum::redirect(&format!(
        "/console/apps/{}/evals?run={id}&{done}#run",
        crate::domain::url::encode_component(&app.details.package_name)
    ));
    Ok(())
}

/// Where run `id` stands, for the page to follow it without reloading.
#[server(prefix = "/api", endpoint = "evals/runs/progress")]
pub async fn run_progress(package_name: String, id: i64) -> Result<Progress, AppError> {
    use crate::{api::context, domain::org::Action, server::repo};
    let state = context::state()?;
    let (_, app) = context::app_for(&state, &package_name, Action::Read).await?;
    let run = repo::eval_runs::get(&state.db, app.id, id)
        .await
        .map_err(context::internal)?
        .ok_or(AppError::NotFound)?;
    Ok(Progress {
        status: run.status.key().to_owned(),
        done: run.calls_done,
        total: run.calls_total,
        open: run.status.is_open(),
    })
}

/// A run's progress, as the page's script reads it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    pub status: String,
    pub done: u32,
    pub total: u32,
    pub open: bool,
}
