//! The console's server: configuration → database → migrations → HTTP.

use leptos::config::get_configuration;
use std::process::ExitCode;
use toolwright::server::{self, Config};
use tracing_subscriber::EnvFilter;

/// A page of a large app is built from many small allocations, which
/// mimalloc serves much faster than glibc's malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(error) => {
            eprintln!("toolwright: configuration error: {error}");
            return ExitCode::FAILURE;
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_new(&config.log_filter)
                .unwrap_or_else(|_| EnvFilter::new(server::config::DEFAULT_LOG_FILTER)),
        )
        .init();

    // `None`: Leptos reads the LEPTOS_* variables, with the defaults cargo-leptos
    // compiled in from Cargo.toml's [package.metadata.leptos].
    let leptos_options = match get_configuration(None) {
        Ok(conf) => {
            let mut options = conf.leptos_options;
            // cargo-leptos compiles the bundle's name in; a binary built by
            // plain cargo (`cargo test` builds one too) would otherwise point
            // pages at /pkg/.js.
            if options.output_name.is_empty() {
                options.output_name = env!("CARGO_PKG_NAME").into();
            }
            let hash_files_set = std::env::var_os("LEPTOS_HASH_FILES").is_some();
            if let Err(error) = server::bundle::prepare(&mut options, hash_files_set) {
                tracing::error!("cannot start: {error}");
                return ExitCode::FAILURE;
            }
            options
        }
        Err(error) => {
            tracing::error!(%error, "invalid LEPTOS_* configuration");
            return ExitCode::FAILURE;
        }
    };
    let addr = leptos_options.site_addr;

    tracing::info!(?config, "starting");
    let state = match server::prepare(config, leptos_options).await {
        Ok(state) => state,
        Err(error) => {
            tracing::error!(%error, "cannot start");
            return ExitCode::FAILURE;
        }
    };
    let db = state.db.clone();

    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(error) => {
            tracing::error!(%error, %addr, "cannot listen");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!("Toolwright is serving http://{addr}");

    let router = toolwright::app::router(state.clone());
    let result = server::serve(listener, state, router, shutdown_signal()).await;
    db.close().await;
    match result {
        Ok(()) => {
            tracing::info!("stopped");
            ExitCode::SUCCESS
        }
        Err(error) => {
            tracing::error!(%error, "server error");
            ExitCode::FAILURE
        }
    }
}

/// Completes on Ctrl-C (SIGINT) or SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        _ = interrupt => tracing::info!("SIGINT received, shutting down"),
        _ = terminate => tracing::info!("SIGTERM received, shutting down"),
    }
}
