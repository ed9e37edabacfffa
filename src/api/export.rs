//! Exports of an app's configuration, for the export page's preview.

use super::AppError;
use crate::domain::export::{ExportOptions, Format};
#[cfg(feature = "ssr")]
use crate::domain::org::Action;
use leptos::{prelude::*, server_fn::codec::Json};

/// The export of one of the developer's apps in `format`, as text.
#[server(prefix = "/api", endpoint = "export/render", input = Json)]
pub async fn render_export(
    package_name: String,
    format: Format,
    options: ExportOptions,
) -> Result<String, AppError> {
    use crate::{api::context, server::exports};
    let state = context::state()?;
    let (_, app) = context::app_for(&state, &package_name, Action::Read).await?;
    let text = exports::rendered(&state, &app, format, options)
        .await
        .map_err(context::internal)?;
    Ok(String::from_utf8_lossy(&text).into_owned())
}
