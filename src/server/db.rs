//! The database: one pool, SQLite or PostgreSQL, chosen by the URL's scheme.
//!
//! Repositories write each query once, with `$1, $2, …` placeholders numbered
//! in order of first use (SQLite binds `$N` by order of appearance), and run it
//! through [`on_db!`], which expands the same code for each backend. This keeps
//! the native pools (which the session store needs) and native type decoding,
//! where `sqlx::Any` would need a second pool and lossy conversions.

use super::{
    config::{Backend, Config},
    repo::configs::ConfigCache,
};
use sqlx::{
    migrate::{MigrateError, Migrator},
    postgres::{PgPool, PgPoolOptions},
    sqlite::{
        SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
    },
};
use std::{str::FromStr, sync::Arc, time::Duration};

static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/postgres");

/// How long a connection waits for SQLite's write lock before giving up.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a request waits for a free connection.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// The pool of one backend.
#[derive(Clone, Debug)]
pub enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// The console's database: a pool, and for SQLite the turn of its one writer.
#[derive(Clone, Debug)]
pub struct Db {
    pool: Pool,
    /// SQLite takes one writer at a time, and a writer that finds the file
    /// locked sleeps and polls (the busy timeout): under concurrent saves,
    /// latency piles up in those sleeps. Writers take their turn here, in
    /// order, instead. PostgreSQL locks rows itself and needs no turn.
    writer: Option<Arc<tokio::sync::Mutex<()>>>,
    /// Apps' configurations at their latest revision (see [`ConfigCache`]).
    configs: Arc<ConfigCache>,
}

/// Runs `$body` with `$pool` bound to the concrete pool of whichever backend
/// `$db` is. The body is compiled once per backend, so it must be written
/// against sqlx's backend-generic API (`query`, `query_as`, `bind`, `fetch_*`).
#[macro_export]
macro_rules! on_db {
    ($db:expr, $pool:ident => $body:expr) => {
        match $db.pool() {
            $crate::server::db::Pool::Sqlite($pool) => $body,
            $crate::server::db::Pool::Postgres($pool) => $body,
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
                Ok(Db {
                    pool: Pool::Sqlite(pool),
                    writer: Some(Arc::default()),
                    configs: Arc::default(),
                })
            }
            Backend::Postgres => {
                let pool = PgPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    .connect(&config.database_url)
                    .await?;
                Ok(Db {
                    pool: Pool::Postgres(pool),
                    writer: None,
                    configs: Arc::default(),
                })
            }
        }
    }

    pub fn backend(&self) -> Backend {
        match self.pool {
            Pool::Sqlite(_) => Backend::Sqlite,
            Pool::Postgres(_) => Backend::Postgres,
        }
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// Apps' configurations at their latest revision.
    pub fn configs(&self) -> &ConfigCache {
        &self.configs
    }

    /// Waits for this writer's turn (SQLite); hold the guard for the whole
    /// write. Immediate on PostgreSQL.
    pub async fn writing(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        match &self.writer {
            Some(writer) => Some(writer.lock().await),
            None => None,
        }
    }

    /// Applies every migration in `migrations/<backend>/` not applied yet.
    pub async fn migrate(&self) -> Result<(), MigrateError> {
        match &self.pool {
            Pool::Sqlite(pool) => SQLITE_MIGRATIONS.run(pool).await,
            Pool::Postgres(pool) => POSTGRES_MIGRATIONS.run(pool).await,
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
