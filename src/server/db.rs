//! The database: SQLite or PostgreSQL, chosen by the URL's scheme.
//!
//! Repositories write each query once, with `$1, $2, …` placeholders numbered
//! in order of first use (SQLite binds `$N` by order of appearance), and run it
//! through [`on_db!`] (reads), [`on_writer!`] (a single write) or
//! [`in_transaction!`] (several), which expand the same code for each
//! backend. This keeps the native pools (which the session store needs) and
//! native type decoding, where `sqlx::Any` would need a second pool and lossy
//! conversions.
//!
//! SQLite takes one writer at a time, so its writes go through a pool of one
//! connection, each transaction beginning `IMMEDIATE` (it takes the write lock
//! at once, rather than failing half-way when another write got there first);
//! reads go through a pool of their own and never wait for a write (WAL).
//! PostgreSQL locks rows itself: one pool does both.

use super::{
    config::{Backend, Config},
    repo::revisions::ConfigCache,
};
use sqlx::{
    migrate::{MigrateError, Migrator},
    postgres::{PgPool, PgPoolOptions},
    sqlite::{
        SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
    },
    Connection,
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

/// The console's database: where reads go, where writes go, and the apps'
/// configurations at their latest revision.
#[derive(Clone, Debug)]
pub struct Db {
    reads: Pool,
    writes: Pool,
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

/// [`on_db!`] for a write of one statement: `$conn` is the pool writes go
/// through.
#[macro_export]
macro_rules! on_writer {
    ($db:expr, $conn:ident => $body:expr) => {
        match $db.writes() {
            $crate::server::db::Pool::Sqlite($conn) => $body,
            $crate::server::db::Pool::Postgres($conn) => $body,
        }
    };
}

/// Runs `$body` with `$tx` bound to a new transaction on the pool writes go
/// through (on SQLite begun `IMMEDIATE`). The body commits it; returning
/// without committing rolls it back. `?` on the way in, so the caller
/// returns `Result<_, sqlx::Error>`.
#[macro_export]
macro_rules! in_transaction {
    ($db:expr, $tx:ident => $body:expr) => {
        match $db.writes() {
            $crate::server::db::Pool::Sqlite(pool) => {
                let mut $tx = pool.begin_with("BEGIN IMMEDIATE").await?;
                $body
            }
            $crate::server::db::Pool::Postgres(pool) => {
                let mut $tx = pool.begin().await?;
                $body
            }
        }
    };
}

impl Db {
    /// Opens the pools `config.database_url` names. A SQLite file (and its
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
                let writes = SqlitePoolOptions::new()
                    .max_connections(1)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    // A request dropped while its transaction was beginning
                    // (its client hung up) can leave sqlx's SQLite connection
                    // inside that transaction with nothing left to end it,
                    // and every later write would be refused. Closing such a
                    // connection rolls the transaction back; the pool opens
                    // a new one. The ping first lets the rollback of a
                    // transaction dropped without commit run.
                    .after_release(|conn, _| {
                        Box::pin(async move {
                            conn.ping().await?;
                            Ok(!conn.is_in_transaction())
                        })
                    })
                    .connect_with(options.clone())
                    .await?;
                let reads = SqlitePoolOptions::new()
                    .max_connections(8)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    .connect_with(options)
                    .await?;
                Ok(Db {
                    reads: Pool::Sqlite(reads),
                    writes: Pool::Sqlite(writes),
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
                    reads: Pool::Postgres(pool.clone()),
                    writes: Pool::Postgres(pool),
                    configs: Arc::default(),
                })
            }
        }
    }

    pub fn backend(&self) -> Backend {
        match self.reads {
            Pool::Sqlite(_) => Backend::Sqlite,
            Pool::Postgres(_) => Backend::Postgres,
        }
    }

    /// Where reads go (see [`on_db!`]).
    pub fn pool(&self) -> &Pool {
        &self.reads
    }

    /// Where writes go (see [`on_writer!`] and [`in_transaction!`]).
    pub fn writes(&self) -> &Pool {
        &self.writes
    }

    /// Apps' configurations at their latest revision.
    pub fn configs(&self) -> &ConfigCache {
        &self.configs
    }

    /// Applies every migration in `migrations/<backend>/` not applied yet.
    pub async fn migrate(&self) -> Result<(), MigrateError> {
        match &self.writes {
            Pool::Sqlite(pool) => SQLITE_MIGRATIONS.run(pool).await,
            Pool::Postgres(pool) => POSTGRES_MIGRATIONS.run(pool).await,
        }
    }

    /// Answers when the database does (used by `/healthz`).
    pub async fn ping(&self) -> Result<(), sqlx::Error> {
        on_db!(self, pool => sqlx::query("SELECT 1").execute(pool).await.map(|_| ()))
    }

    /// Closes the pools: waits for the connections in use to come back.
    pub async fn close(&self) {
        on_db!(self, pool => pool.close().await);
        on_writer!(self, pool => pool.close().await);
    }
}
