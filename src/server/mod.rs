//! Everything that runs only on the server: configuration, database, HTTP,
//! sessions and passwords.

pub mod access;
pub mod auth;
pub mod bundle;
pub mod client;
pub mod clock;
pub mod config;
pub mod db;
pub mod eval_api;
pub mod evals;
pub mod export_cache;
pub mod exports;
pub mod http;
pub mod mcp;
pub mod outbound;
pub mod password;
pub mod repo;
pub mod secrets;
pub mod security;
pub mod session;
pub mod state;

pub use config::Config;
pub use db::Db;
pub use state::AppState;

use leptos::config::LeptosOptions;
use std::{future::Future, net::SocketAddr, sync::Arc};
use tokio::net::TcpListener;

/// Logs a failure of the server's own (a database error, say) and gives
/// the opaque error the browser sees in its place.
pub fn internal(error: impl std::fmt::Display) -> crate::domain::AppError {
    tracing::error!(%error, "internal error");
    crate::domain::AppError::Internal
}

/// Why the console could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot open the database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("cannot apply the database migrations: {0}")]
    Migrations(#[from] sqlx::migrate::MigrateError),
    #[error("{0}")]
    SecretKey(String),
}

/// Opens the database, applies the migrations (the console's and the
/// session store's) and assembles the state every handler shares.
pub async fn prepare(
    config: Config,
    leptos_options: LeptosOptions,
) -> Result<AppState, StartError> {
    let db = Db::connect(&config).await?;
    db.migrate().await?;
    let sessions = session::Store::for_db(&db);
    sessions.migrate().await?;
    password::warm_up().await;
    let mcp_reads = Arc::new(mcp::ReadLimit::per_minute(config.mcp_requests_per_minute));
    let secret = secrets::resolve(&config)
        .map_err(StartError::SecretKey)?
        .map(Arc::new);
    Ok(AppState::new(state::Shared {
        leptos_options,
        db,
        sessions,
        config: Arc::new(config),
        exports: Arc::default(),
        mcp_tools: Arc::default(),
        checks: Arc::default(),
        mcp_reads,
        secret,
        eval_queued: Arc::default(),
    }))
}

/// Serves `router` (the console of `state`, see `app::router`) on
/// `listener` until `shutdown` completes, then finishes the requests under way.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    router: axum::Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt;

    let expired_deletion = state.sessions.spawn_expired_deletion();
    let eval_runs = evals::spawn(state.clone());
    // Without TCP_NODELAY, Nagle's algorithm and delayed ACKs hold small
    // keep-alive responses back by ~40 ms.
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::warn!(%error, "could not set TCP_NODELAY");
        }
    });
    let result = axum::serve(
        listener,
        router.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await;
    expired_deletion.abort();
    eval_runs.abort();
    result
}
