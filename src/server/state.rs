use super::{config::Config, db::Db, session};
use crate::api::AppError;
use axum::extract::FromRef;
use leptos::{config::LeptosOptions, prelude::use_context};
use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

/// What request handlers and server functions share. Server functions get it
/// from the Leptos context with [`AppState::from_context`].
#[derive(Clone, Debug, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub db: Db,
    pub sessions: session::Store,
    pub config: Arc<Config>,
    /// When each developer last tried tools (throttling "Send to app").
    pub tool_sends: Arc<Mutex<HashMap<i64, Vec<i64>>>>,
    /// Rendered exports, by app revision.
    pub exports: Arc<super::exports::ExportCache>,
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
