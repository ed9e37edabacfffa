//! Plain async functions over the pool: the only code that writes SQL.
//! They know nothing of sessions or requests; the server functions decide
//! who may call them — and every write on behalf of a member asks again,
//! inside its own transaction ([`may_write!`](sql.rs)), so that a permission
//! holds at the moment of the write. An app's configuration is kept in one
//! place, its revisions: every change to it is one transaction that checks
//! and bumps the app's revision and records the next one (see `revisions`).
//!
//! They call each other one way: `apps` → `revisions` → `sql`; `orgs` →
//! `api_keys`.

#[macro_use]
mod sql;

pub mod api_keys;
pub mod apps;
pub mod developers;
pub mod eval_runs;
pub mod evals;
pub mod login_failures;
pub mod mcp_calls;
pub mod orgs;
pub mod providers;
pub mod revisions;
pub mod tool_sends;

pub use sql::is_unique_violation;

use crate::domain::AppError;

/// What a write on behalf of a member needs to hold at the moment it is
/// made: the organization of an app, or an organization itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    App(i64),
    Org(i64),
}

/// Why a write did not happen.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The asker's permission no longer held when the write's transaction
    /// read it (removed, demoted, the app or organization gone): nothing
    /// was written.
    #[error("refused: {0}")]
    Refused(AppError),
    #[error(transparent)]
    Database(sqlx::Error),
}

impl From<sqlx::Error> for WriteError {
    fn from(error: sqlx::Error) -> Self {
        WriteError::Database(error)
    }
}

impl From<WriteError> for AppError {
    fn from(error: WriteError) -> Self {
        match error {
            WriteError::Refused(refusal) => refusal,
            WriteError::Database(error) => database_error(error),
        }
    }
}

/// What a developer is told when two changes met in the database.
pub const CLASHED: &str =
    "Another change reached this at the same moment. Reload the page and try again.";
/// What a developer is told when a change refers to something deleted meanwhile.
pub const VANISHED: &str =
    "What this change refers to no longer exists. Reload the page to see the latest.";

/// The one place a failed write becomes what the developer is told: a
/// constraint that a race between two requests can break (a row deleted
/// under a change that refers to it, a name taken at the same moment, two
/// PostgreSQL transactions that could not both go on) is a 404 or 409 in
/// words; anything else is the server's own failure (logged, 500).
pub fn database_error(error: sqlx::Error) -> AppError {
    use sqlx::error::ErrorKind;
    if let Some(database) = error.as_database_error() {
        match database.kind() {
            ErrorKind::ForeignKeyViolation => return AppError::Gone(VANISHED.to_owned()),
            ErrorKind::UniqueViolation => return AppError::Conflict(CLASHED.to_owned()),
            _ => {}
        }
        // PostgreSQL: serialization failure, deadlock detected.
        if matches!(database.code().as_deref(), Some("40001" | "40P01")) {
            return AppError::Conflict(CLASHED.to_owned());
        }
    }
    super::internal(error)
}
