//! The database: one pool, SQLite or PostgreSQL, chosen by the URL's scheme,
//! and for SQLite one more connection that every write goes through.
//!
//! Repositories write each query once, with `$1, $2, …` placeholders numbered
//! in order of first use (SQLite binds `$N` by order of appearance), and run it
//! through [`on_db!`] (reads) or [`on_writer!`] (writes), which expand the
//! same code for each backend. This keeps the native pools (which the session
//! store needs) and native type decoding, where `sqlx::Any` would need a
//! second pool and lossy conversions.

pub use super::writer::SqliteTurn;
use super::{
    config::{Backend, Config},
    repo::{
        batch::{Batch, Outcome},
        configs::ConfigCache,
    },
    writer::{SqliteWriter, WRITER_AUTOCHECKPOINT_PAGES},
};
use sqlx::{
    migrate::{MigrateError, Migrator},
    pool::PoolConnection,
    postgres::{PgPool, PgPoolOptions},
    sqlite::{
        SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
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

/// Where writes go: SQLite's one writer (see [`super::writer`]), or for
/// PostgreSQL, which locks rows itself, any pooled connection.
#[derive(Clone, Debug)]
enum Writers {
    Sqlite(Arc<SqliteWriter>),
    Postgres(PgPool),
}

/// A connection to write on, for as long as it is held (see [`on_writer!`]).
pub enum Writer<'a> {
    /// SQLite's one writing connection: the turn lasts as long as it is held.
    Sqlite(SqliteTurn<'a>),
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
                let writer = options
                    .clone()
                    .pragma(
                        "wal_autocheckpoint",
                        WRITER_AUTOCHECKPOINT_PAGES.to_string(),
                    )
                    .connect()
                    .await?;
                let writer = SqliteWriter::start(writer, options.connect().await?);
                Ok(Db {
                    pool: Pool::Sqlite(pool),
                    writer: Writers::Sqlite(writer),
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
            Writers::Sqlite(writer) => Ok(Writer::Sqlite(writer.turn().await)),
            Writers::Postgres(pool) => Ok(Writer::Postgres(pool.acquire().await?)),
        }
    }

    /// Runs `batch` as a transaction of its own — on SQLite, one it may
    /// share with the batch writes around it (see [`super::writer`]) —
    /// keeping its changes if `commit(&outcome)` says so; answers once they
    /// are committed. The write runs as a task of its own: it finishes even
    /// when the caller goes away (a request whose client hung up), so that
    /// no transaction is left open on the writer.
    pub async fn write_batch(
        &self,
        batch: Batch,
        commit: impl FnOnce(&Outcome) -> bool + Send + 'static,
    ) -> Result<Outcome, sqlx::Error> {
        let task = match &self.writer {
            Writers::Sqlite(writer) => tokio::spawn(writer.clone().write_batch(batch, commit)),
            Writers::Postgres(pool) => {
                let pool = pool.clone();
                tokio::spawn(async move {
                    let mut connection = pool.acquire().await?;
                    let mut tx = sqlx::Connection::begin(&mut *connection).await?;
                    let outcome = batch.run(&mut *tx).await?;
                    // Never what an error cut short, whatever the caller says.
                    if outcome.is_complete() && commit(&outcome) {
                        tx.commit().await?;
                    }
                    Ok(outcome)
                })
            }
        };
        match task.await {
            Ok(result) => result,
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            // Cancelled: the runtime is shutting down.
            Err(_) => Err(sqlx::Error::PoolClosed),
        }
    }

    /// SQLite: how many batch writes ran, and in how many transactions
    /// (see [`super::writer`]); `None` on PostgreSQL.
    pub fn batch_transactions(&self) -> Option<(u64, u64)> {
        match &self.writer {
            Writers::Sqlite(writer) => Some(writer.batch_transactions()),
            Writers::Postgres(_) => None,
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

    /// Closes the pool and, for SQLite, commits the writes sharing a
    /// transaction and stops the checkpointer (after the round it may be
    /// in). The writer's connection closes when the last `Db` is dropped.
    pub async fn close(&self) {
        if let Writers::Sqlite(writer) = &self.writer {
            writer.close().await;
        }
        on_db!(self, pool => pool.close().await)
    }
}
