//! The database: one pool, SQLite or PostgreSQL, chosen by the URL's scheme.
//!
//! Repositories write each query once, with `$1, $2, …` placeholders numbered
//! in order of first use (SQLite binds `$N` by order of appearance), and run it
//! through [`on_db!`], which expands the same code for each backend. This keeps
//! the native pools (which the session store needs) and native type decoding,
//! where `sqlx::Any` would need a second pool and lossy conversions.

use super::config::{Backend, Config};
use sqlx::{
    migrate::{MigrateError, Migrator},
    postgres::{PgPool, PgPoolOptions},
    sqlite::{
        SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
    },
};
use std::{str::FromStr, time::Duration};

static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/postgres");

/// How long a connection waits for SQLite's write lock before giving up.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a request waits for a free connection.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone, Debug)]
pub enum Db {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$body` with `$pool` bound to the concrete pool of whichever backend
/// `$db` is. The body is compiled once per backend, so it must be written
/// against sqlx's backend-generic API (`query`, `query_as`, `bind`, `fetch_*`).
#[macro_export]
macro_rules! on_db {
    ($db:expr, $pool:ident => $body:expr) => {
        match $db {
            $crate::server::db::Db::Sqlite($pool) => $body,
            $crate::server::db::Db::Postgres($pool) => $body,
        }
    };
}

impl Db {
    /// Opens the pool `config.database_url` names. A SQLite file (and its
    /// directory) is created when missing, in WAL mode with foreign keys on.
    pub async fn connect(config: &Config) -> Result<Db, sqlx::Error> {
        match config.backend {
            Backend::Sqlite => {
                let options = SqliteConnectOptions::from_str(&config.database_url)?
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(SqliteSynchronous::Normal)
                    .foreign_keys(true)
                    .busy_timeout(SQLITE_BUSY_TIMEOUT);
                if let Some(dir) = options.get_filename().parent() {
                    if !dir.as_os_str().is_empty() {
                        std::fs::create_dir_all(dir)?;
                    }
                }
                let pool = SqlitePoolOptions::new()
                    .max_connections(8)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    .connect_with(options)
                    .await?;
                Ok(Db::Sqlite(pool))
            }
            Backend::Postgres => {
                let pool = PgPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    .connect(&config.database_url)
                    .await?;
                Ok(Db::Postgres(pool))
            }
        }
    }

    pub fn backend(&self) -> Backend {
        match self {
            Db::Sqlite(_) => Backend::Sqlite,
            Db::Postgres(_) => Backend::Postgres,
        }
    }

    /// Applies every migration in `migrations/<backend>/` not applied yet.
    pub async fn migrate(&self) -> Result<(), MigrateError> {
        match self {
            Db::Sqlite(pool) => SQLITE_MIGRATIONS.run(pool).await,
            Db::Postgres(pool) => POSTGRES_MIGRATIONS.run(pool).await,
        }
    }

    /// Answers when the database does (used by `/healthz`).
    pub async fn ping(&self) -> Result<(), sqlx::Error> {
        on_db!(self, pool => sqlx::query("SELECT 1").execute(pool).await.map(|_| ()))
    }

    pub async fn close(&self) {
        on_db!(self, pool => pool.close().await)
    }
}
