use super::{config::Config, db::Db, session};
use crate::domain::AppError;
use axum::extract::FromRef;
use leptos::{config::LeptosOptions, prelude::use_context};
use std::sync::Arc;

/// What request handlers and server functions share. Server functions get it
/// from the Leptos context with [`AppState::from_context`]. It is cloned
/// for every request (the context, the extractors): one reference to
/// [`Shared`].
#[derive(Clone, Debug)]
pub struct AppState(Arc<Shared>);

impl AppState {
    pub fn new(shared: Shared) -> AppState {
        AppState(Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> LeptosOptions {
        state.leptos_options.clone()
    }
}

#[derive(Debug)]
pub struct Shared {
    pub leptos_options: LeptosOptions,
    pub db: Db,
    pub sessions: session::Store,
    pub config: Arc<Config>,
    /// Rendered exports, by app revision.
    pub exports: Arc<super::export_cache::ExportCache>,
    /// The tools MCP lists, by app revision: see [`super::mcp::ListedTools`].
    pub mcp_tools: Arc<super::mcp::ListedTools>,
    /// The checks of each app, by revision.
    pub checks: Arc<super::export_cache::CheckCache>,
    /// Each API key's MCP reads (`tools/list`) in this process: see
    /// [`super::mcp::ReadLimit`].
    pub mcp_reads: Arc<super::mcp::ReadLimit>,
    /// What seals model providers' API keys; none with PostgreSQL until
    /// `TOOLWRIGHT_SECRET_KEY` is set (see [`super::secrets`]).
    pub secret: Option<Arc<super::secrets::SecretKey>>,
    /// Woken when a run is queued, so that this process starts it at once.
    pub eval_queued: Arc<tokio::sync::Notify>,
}

impl AppState {
    /// The state provided to the current server function or page render.
    pub fn from_context() -> Result<AppState, AppError> {
        use_context::<AppState>().ok_or_else(|| {
            tracing::error!("AppState missing from the Leptos context");
            AppError::Internal
        })
    }
}
