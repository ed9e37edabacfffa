//! Integration tests: real databases (SQLite, and PostgreSQL when
//! TEST_POSTGRES_URL is set) and the real server over real HTTP. One test
//! binary, so the crate is linked once.
#![cfg(feature = "ssr")]

#[allow(dead_code)]
mod common;

mod apps;
mod apps_repo;
mod auth;
mod developers;
mod eval_runs;
mod evals;
mod export_api;
mod import_api;
mod mcp;
mod migrations;
mod orgs;
mod providers;
mod races;
mod revisions;
mod server;
mod tools_api;
mod tools_repo;
mod try_tool;
