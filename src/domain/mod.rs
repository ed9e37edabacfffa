//! The product's knowledge, in plain Rust: no Leptos, no sqlx.
//!
//! Compiled for the server and for the browser, so a rule written here is the
//! rule both apply. (Named `domain` rather than the `core` of ARCHITECTURE.md:
//! a crate-root module called `core` shadows the built-in `core` crate for
//! macro-generated paths.)

pub mod account;
pub mod app;
pub mod checks;
pub mod config;
pub mod diff;
pub mod error;
pub mod eval;
pub mod export;
pub mod field_errors;
pub mod import;
pub mod keys;
pub mod lists;
pub mod mcp;
pub mod mcp_activity;
pub mod org;
pub mod revision;
pub mod throttle;
pub mod time;
pub mod tool;
pub mod tool_call;
pub mod url;

pub use error::AppError;
pub use field_errors::FieldErrors;
