//! API keys of an app: list, create (shown once), revoke.

use super::AppError;
use crate::domain::keys::{ApiKeySummary, NewApiKey};
#[cfg(feature = "ssr")]
use crate::domain::org::Action;
use leptos::{prelude::*, server_fn::codec::Json};

#[server(prefix = "/api", endpoint = "keys/list", input = Json)]
pub async fn list_api_keys(package_name: String) -> Result<Vec<ApiKeySummary>, AppError> {
    use crate::{api::context, server::repo};
    let state = context::state()?;
    let (_, app) = context::app_for(&state, &package_name, Action::Read).await?;
    repo::api_keys::list_for_app(&state.db, app.id)
        .await
        .map_err(context::internal)
}

/// Makes a key named `name`, limited to exports when `export_only`; the
/// answer is the only time the key is shown.
#[server(prefix = "/api", endpoint = "keys/create", input = Json)]
pub async fn create_api_key(
    package_name: String,
    name: String,
    #[server(default)] export_only: bool,
) -> Result<NewApiKey, AppError> {
    use crate::{
        api::context,
        domain::{keys::check_key_name, FieldErrors},
        server::{clock::now_ms, repo},
    };
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, &package_name, Action::ManageKeys).await?;
    let name = check_key_name(&name).map_err(|message| FieldErrors::single("key_name", message))?;
    let key = repo::api_keys::generate().map_err(context::internal)?;
    let new = repo::api_keys::NewKey {
        name: &name,
        key: &key,
        export_only,
    };
    repo::api_keys::create(&state.db, app.id, developer.id, new, now_ms()).await?;
    tracing::info!(developer = developer.id, package = %package_name, "API key created");
    let keys = repo::api_keys::list_for_app(&state.db, app.id)
        .await
        .map_err(context::internal)?;
    Ok(NewApiKey { key, keys })
}

#[server(prefix = "/api", endpoint = "keys/revoke", input = Json)]
pub async fn revoke_api_key(
    package_name: String,
    key_id: i64,
) -> Result<Vec<ApiKeySummary>, AppError> {
    use crate::{
        api::context,
        server::{clock::now_ms, repo},
    };
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, &package_name, Action::ManageKeys).await?;
    if !repo::api_keys::revoke(&state.db, app.id, key_id, developer.id, now_ms()).await? {
        return Err(AppError::NotFound);
    }
    tracing::info!(developer = developer.id, package = %package_name, key_id, "API key revoked");
    repo::api_keys::list_for_app(&state.db, app.id)
        .await
        .map_err(context::internal)
}
