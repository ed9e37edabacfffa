//! The database: one pool, SQLite or PostgreSQL, chosen by the URL's scheme,
//! and for SQLite one more connection that every write goes through.
//!
//! Repositories write each query once, with `$1, $2, …` placeholders numbered
//! in order of first use (SQLite binds `$N` by order of appearance), and run it
//! through [`on_db!`] (reads) or [`on_writer!`] (writes), which expand the
//! same code for each backend. This keeps the native pools (which the session
//! store needs) and native type decoding, where `sqlx::Any` would need a
//! second pool and lossy conversions.

use super::{
    config::{Backend, Config},
    repo::configs::ConfigCache,
};
use sqlx::{
    migrate::{MigrateError, Migrator},
    pool::PoolConnection,
    postgres::{PgPool, PgPoolOptions},
    sqlite::{
        SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
        SqliteSynchronous,
    },
    ConnectOptions, Postgres,
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

/// The console's database: a pool, and for SQLite the connection of its one writer.
#[derive(Clone, Debug)]
pub struct Db {
    pool: Pool,
    /// Where writes go (see [`on_writer!`]).
    writer: Writers,
    /// Apps' configurations at their latest revision (see [`ConfigCache`]).
    configs: Arc<ConfigCache>,
}

/// Where writes go. SQLite takes one writer at a time, and a writer that
/// finds the file locked sleeps and polls (the busy timeout): under
/// concurrent saves, latency piles up in those sleeps. So every write takes
/// its turn, in order, on one connection kept for writing. Being the only
/// connection that changes the file, it also keeps its page cache: a pooled
/// connection drops its whole cache whenever another one has written, and
/// read the pages back from the file at the start of every write (measured
/// in BENCHMARKS.md). PostgreSQL locks rows itself: any pooled connection.
#[derive(Clone, Debug)]
enum Writers {
    Sqlite(Arc<tokio::sync::Mutex<SqliteConnection>>),
    Postgres(PgPool),
}

/// A connection to write on, for as long as it is held (see [`on_writer!`]).
pub enum Writer<'a> {
    /// SQLite's one writing connection: the turn lasts as long as the guard.
    Sqlite(tokio::sync::MutexGuard<'a, SqliteConnection>),
    Postgres(PoolConnection<Postgres>),
}

/// Runs `$body` with `$conn` bound to a `&mut` connection to write on —
/// SQLite's writing connection, in turn, or a pooled PostgreSQL one. The body
/// is compiled once per backend, like [`on_db!`]'s; `?` on the way in, so
/// the caller returns `Result<_, sqlx::Error>`.
#[macro_export]
macro_rules! on_writer {
    ($db:expr, $conn:ident => $body:expr) => {
        match $db.writer().await? {
            $crate::server::db::Writer::Sqlite(mut turn) => {
                let $conn: &mut sqlx::SqliteConnection = &mut *turn;
                $body
            }
            $crate::server::db::Writer::Postgres(mut pooled) => {
                let $conn: &mut sqlx::PgConnection = &mut *pooled;
                $body
            }
        }
    };
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
                    // A connection to a file in this process cannot drop
                    // away like one over a network: no ping before each
                    // use. (Each ping is a round trip to the connection's
                    // thread, as long as the query itself: every read
                    // paid for two.)
                    .test_before_acquire(false)
                    .connect_with(options.clone())
                    .await?;
                let writer = options.connect().await?;
                Ok(Db {
                    pool: Pool::Sqlite(pool),
                    writer: Writers::Sqlite(Arc::new(tokio::sync::Mutex::new(writer))),
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
                    pool: Pool::Postgres(pool.clone()),
                    writer: Writers::Postgres(pool),
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

    /// A connection to write on: SQLite's writing connection once it is
    /// this writer's turn (hold it for the whole write), or a pooled
    /// PostgreSQL one. Used through [`on_writer!`].
    pub async fn writer(&self) -> Result<Writer<'_>, sqlx::Error> {
        match &self.writer {
            Writers::Sqlite(connection) => Ok(Writer::Sqlite(connection.lock().await)),
            Writers::Postgres(pool) => Ok(Writer::Postgres(pool.acquire().await?)),
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
