//! Server functions, grouped by domain. Each is thin: who is asking, validate,
//! check ownership, call a repository, map the error.

pub mod apps;
pub mod auth;
pub mod error;
pub mod evals;
pub mod export;
pub mod history;
pub mod import;
pub mod keys;
pub mod mcp;
pub mod orgs;
pub mod providers;
pub mod tools;
pub mod try_tool;

#[cfg(feature = "ssr")]
pub mod context;

pub use error::AppError;
