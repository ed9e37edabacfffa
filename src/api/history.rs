//! The history of an app: its revisions, any one of them in full and
//! compared with now, and restoring one (as a new revision).

use super::AppError;
#[cfg(feature = "ssr")]
use crate::domain::org::Action;
use crate::domain::{diff::LineChange, revision::RevisionSummary};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// A revision as the history page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisionView {
    pub summary: RevisionSummary,
    /// Its canonical JSON.
    pub text: String,
    /// From this revision to the current state.
    pub diff: Vec<(LineChange, String)>,
    pub current_revision: i64,
}

#[server(prefix = "/api", endpoint = "history/list")]
pub async fn list_revisions(package_name: String) -> Result<Vec<RevisionSummary>, AppError> {
    use crate::{api::context, server::repo};
    let state = context::state()?;
    let (_, app) = context::app_for(&state, &package_name, Action::Read).await?;
    repo::revisions::list(&state.db, app.id)
        .await
        .map_err(context::internal)
}

#[server(prefix = "/api", endpoint = "history/get")]
pub async fn get_revision(package_name: String, revision: i64) -> Result<RevisionView, AppError> {
    use crate::{
        api::context,
        domain::{diff::diff_lines, revision::snapshot_text},
        server::repo,
    };
    let state = context::state()?;
    let (_, app) = context::app_for(&state, &package_name, Action::Read).await?;
    let detail = repo::revisions::get(&state.db, app.id, revision)
        .await
        .map_err(context::internal)?
        .ok_or(AppError::NotFound)?;
    let current = repo::apps::load_config(&state.db, &app)
        .await
        .map_err(context::internal)?;
    let text = snapshot_text(&detail.config);
    let now = snapshot_text(&current);
    let diff = diff_lines(&text, &now)
        .into_iter()
        .map(|(change, line)| (change, line.to_owned()))
        .collect();
    Ok(RevisionView {
        summary: detail.summary,
        text,
        diff,
        current_revision: app.details.revision,
    })
}

/// Makes the app what it was at `revision`, as a new revision, if it is
/// still at `current_revision`. A plain form post without `confirmed=yes`
/// (no JavaScript to ask) is sent to the page that asks first.
#[server(prefix = "/api", endpoint = "history/restore")]
pub async fn restore_revision(
    package_name: String,
    revision: i64,
    current_revision: i64,
    #[server(default)] confirmed: String,
) -> Result<(), AppError> {
    use crate::{
        api::{apps::STALE_MESSAGE, context},
        domain::{revision::Change, url::encode_component},
        server::{clock::now_ms, repo, repo::apps::Revised},
    };
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, &package_name, Action::Edit).await?;
    let history = format!(
        "/console/apps/{}/history",
        encode_component(&app.details.package_name)
    );
    if context::is_plain_form_post() && confirmed != "yes" {
        leptos_axum::redirect(&format!("{history}?confirm_restore={revision}"));
        return Ok(());
    }
    let detail = repo::revisions::get(&state.db, app.id, revision)
        .await
        .map_err(context::internal)?
        .ok_or(AppError::NotFound)?;
    if revision == current_revision {
        return Err(AppError::Conflict(format!(
            "Revision {revision} is the current one: the app already is as it was then."
        )));
    }
    let outcome = repo::revisions::replace(
        &state.db,
        app.id,
        current_revision,
        &detail.config,
        Change::Restored(revision),
        &developer,
        now_ms(),
    )
    .await?;
    match outcome {
        Revised::Applied(_) => {
            tracing::info!(developer = developer.id, package = %package_name, revision, "revision restored");
            leptos_axum::redirect(&format!("{history}?restored={revision}"));
            Ok(())
        }
        Revised::Stale => Err(AppError::Conflict(STALE_MESSAGE.to_owned())),
    }
}
