//! Plain async functions over the pool: the only code that writes SQL.
//! They know nothing of sessions or requests; the server functions decide
//! who may call them. Every change to an app is one transaction that checks
//! and bumps its revision and records it (see `revisions`).
//!
//! They call each other one way: `apps` → `tools`, `revisions` →
//! `snapshots`, `configs`, `sql`; `orgs` → `api_keys`.

#[macro_use]
mod sql;

pub mod api_keys;
pub mod apps;
pub mod configs;
pub mod developers;
pub mod login_failures;
pub mod mcp_calls;
pub mod orgs;
pub mod revisions;
pub mod snapshots;
pub mod tool_sends;
pub mod tools;

pub use sql::is_unique_violation;
