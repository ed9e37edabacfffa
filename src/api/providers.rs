//! An organization's model providers (for evals): an admin adds and
//! removes them on the organization page, with plain HTML forms. The API
//! key is sealed before it is stored and never sent back.

use super::AppError;
use leptos::prelude::*;

/// Adds a provider. A refused form is drawn again with what was typed,
/// except the API key.
#[server(prefix = "/api", endpoint = "orgs/providers/add")]
pub async fn add_provider(
    slug: String,
    name: String,
    base_url: String,
    model: String,
    api_key: String,
) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{eval::ProviderInput, org::Action, url::encode_component, FieldErrors},
        server::{clock::now_ms, repo, secrets::HOW_TO_SET},
    };
    let state = context::state()?;
    let (developer, org, _) = context::org_for(&state, &slug, Action::ManageProviders).await?;
    let echo = |errors: FieldErrors| {
        errors
            .with_echo("name", name.trim())
            .with_echo("base_url", base_url.trim())
            .with_echo("model", model.trim())
    };
    let Some(secret) = state.secret.clone() else {
        return Err(echo(FieldErrors::single("api_key", HOW_TO_SET)).into());
    };
    let input = ProviderInput::parse(&name, &base_url, &model, &api_key).map_err(echo)?;
    let sealed = secret.seal(&input.api_key).map_err(|error| {
        tracing::error!(%error, "sealing a provider's key failed");
        AppError::Internal
    })?;
    match repo::providers::create(&state.db, org.id, developer.id, &input, &sealed, now_ms()).await
    {
        Ok(_) => {}
        Err(repo::WriteError::Database(error)) if repo::is_unique_violation(&error) => {
            return Err(echo(FieldErrors::single(
                "name",
                "This organization already has a provider of this name",
            ))
            .into())
        }
        Err(error) => return Err(error.into()),
    }
    tracing::info!(developer = developer.id, org = %org.slug, "model provider added");
    leptos_axum::redirect(&format!(
        "/console/orgs/{}?provider_added={}#providers",
        encode_component(&org.slug),
        encode_component(&input.name)
    ));
    Ok(())
}

/// Removes provider `id`. Without `confirmed=yes` (no JavaScript to ask),
/// the page asks first.
#[server(prefix = "/api", endpoint = "orgs/providers/remove")]
pub async fn remove_provider(
    slug: String,
    id: i64,
    #[server(default)] confirmed: String,
) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{org::Action, url::encode_component},
        server::repo,
    };
    let state = context::state()?;
    let (developer, org, _) = context::org_for(&state, &slug, Action::ManageProviders).await?;
    let page = format!("/console/orgs/{}", encode_component(&org.slug));
    if confirmed != "yes" {
        leptos_axum::redirect(&format!("{page}?remove_provider={id}#providers"));
        return Ok(());
    }
    let Some(name) = repo::providers::delete(&state.db, org.id, id, developer.id).await? else {
        return Err(AppError::NotFound);
    };
    tracing::info!(developer = developer.id, org = %org.slug, "model provider removed");
    leptos_axum::redirect(&format!(
        "{page}?provider_removed={}#providers",
        encode_component(&name)
    ));
    Ok(())
}
