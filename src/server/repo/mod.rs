//! Plain async functions over the pool: the only code that writes SQL.
//! They know nothing of sessions or requests; the server functions decide
//! who may call them. Every change to an app is one transaction that checks
//! and bumps its revision and records it (see `revisions`).

#[macro_use]
mod sql;

pub mod api_keys;
pub mod apps;
pub mod batch;
pub mod configs;
pub mod developers;
pub mod login_failures;
pub mod revisions;
pub mod snapshots;
pub mod tools;

/// Whether `error` is a violated UNIQUE constraint (on either backend).
pub fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|e| e.is_unique_violation())
}

/// Who made a change: the history shows their email.
pub use crate::api::auth::CurrentDeveloper as Author;
