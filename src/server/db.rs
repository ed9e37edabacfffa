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
    repo::{
        batch::{self, Batch, Outcome},
        configs::ConfigCache,
    },
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
use std::{
    str::FromStr,
    sync::{
        atomic::{AtomicBool, AtomicU32, Ordering},
        Arc,
    },
    time::Duration,
};

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
    Sqlite(Arc<SqliteWriter>),
    Postgres(PgPool),
}

/// SQLite's writing connection, and what its checkpointer needs to know.
///
/// A write in WAL mode appends pages to the log; a checkpoint copies them
/// back into the database file so that the log can start over. SQLite does
/// it by itself in the commit that takes the log past 1000 pages, on the
/// committing connection — here the one writer, so every write queued
/// behind that commit waited for the copy too (a few milliseconds every few
/// dozen saves: the slowest saves under load). So the writer leaves it to a
/// checkpointer on a connection of its own ([`checkpointer`]), which copies
/// the log beside the writer, and copies the last few pages written
/// meanwhile at the start of the next turn ([`SqliteWriter::turn`]).
#[derive(Debug)]
struct SqliteWriter {
    connection: tokio::sync::Mutex<SqliteConnection>,
    /// Turns since the checkpointer last copied the log.
    turns: AtomicU32,
    /// Woken every [`CHECKPOINT_EVERY_TURNS`] turns, and at close.
    due: Arc<tokio::sync::Notify>,
    /// Set by the checkpointer when all but the last few pages are copied:
    /// the next turn copies those before it writes.
    finish_checkpoint: AtomicBool,
    /// Set while a transaction begun by [`Db::write_batch`] may be open:
    /// one left open (its caller went away) is rolled back by the next turn.
    in_transaction: AtomicBool,
    closed: AtomicBool,
    /// The checkpointer's task, awaited at close.
    checkpointer: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl SqliteWriter {
    /// The writer's next turn, once it is this caller's.
    async fn turn(&self) -> SqliteTurn<'_> {
        let mut connection = self.connection.lock().await;
        if self.in_transaction.swap(false, Ordering::AcqRel) {
            // Its write was dropped half-way (or its commit failed): undo
            // what it left. An error here means there was nothing to undo.
            let _ = sqlx::query("ROLLBACK").execute(&mut *connection).await;
        }
        if self.finish_checkpoint.swap(false, Ordering::AcqRel) {
            // The pages written since the checkpointer's last pass (a save
            // or two): with them copied, this turn's write starts the log
            // over instead of making it longer.
            if let Err(error) = checkpoint(&mut connection).await {
                tracing::warn!(%error, "SQLite checkpoint failed; the next round tries again");
            }
        }
        SqliteTurn {
            connection,
            writer: self,
        }
    }
}

/// Turns between checkpoints: a tool save appends about 13 pages to the
/// log, so the log stays near 1000 pages (4 MB), like SQLite's own limit.
/// (Rounds four times rarer took six times longer each, and slowed the
/// writes beside them more: the file system's flush of the copied pages.)
const CHECKPOINT_EVERY_TURNS: u32 = 64;
/// A checkpoint after fewer turns happens when writing pauses this long.
const CHECKPOINT_IDLE: Duration = Duration::from_millis(500);
/// The checkpointer copies beside the writer until a pass finds no more
/// than this many pages appended since the one before (a save or two)...
const CHECKPOINT_FEW_PAGES: i64 = 32;
/// ...or for this many passes at most.
const CHECKPOINT_PASSES: usize = 4;
/// The writer checkpoints by itself only if the log grows past this many
/// pages (the checkpointer stopped or cannot keep up): a limit, not the plan.
const WRITER_AUTOCHECKPOINT_PAGES: u32 = 20_000;

/// A connection to write on, for as long as it is held (see [`on_writer!`]).
pub enum Writer<'a> {
    /// SQLite's one writing connection: the turn lasts as long as it is held.
    Sqlite(SqliteTurn<'a>),
    Postgres(PoolConnection<Postgres>),
}

/// A turn on SQLite's writing connection; counted for the checkpointer
/// when it ends.
pub struct SqliteTurn<'a> {
    connection: tokio::sync::MutexGuard<'a, SqliteConnection>,
    writer: &'a SqliteWriter,
}

impl std::ops::Deref for SqliteTurn<'_> {
    type Target = SqliteConnection;
    fn deref(&self) -> &SqliteConnection {
        &self.connection
    }
}

impl std::ops::DerefMut for SqliteTurn<'_> {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.connection
    }
}

impl Drop for SqliteTurn<'_> {
    fn drop(&mut self) {
        let turns = self.writer.turns.fetch_add(1, Ordering::Relaxed) + 1;
        if turns.is_multiple_of(CHECKPOINT_EVERY_TURNS) {
            self.writer.due.notify_one();
        }
    }
}

/// Copies SQLite's log into the database file, off the writer's turn (see
/// [`SqliteWriter`]), until the writer is closed or dropped. Each round is
/// PASSIVE checkpoints on the checkpointer's own connection, beside the
/// writer, while writes go on, until what was written meanwhile is a few
/// pages; those the writer's next turn copies, after which the log is
/// fully copied and that turn's write starts it over from the beginning.
/// (Waiting for a turn of its own, the checkpointer would queue behind
/// every waiting write and find more to copy, holding up all of them.)
async fn checkpointer(
    writer: std::sync::Weak<SqliteWriter>,
    due: Arc<tokio::sync::Notify>,
    mut connection: SqliteConnection,
) {
    use sqlx::Connection;
    loop {
        // Waiting without holding the writer: when the console lets go of
        // it, this ends at the next wake-up.
        let _ = tokio::time::timeout(CHECKPOINT_IDLE, due.notified()).await;
        let Some(writer) = writer.upgrade() else {
            break;
        };
        if writer.closed.load(Ordering::Acquire) {
            break;
        }
        if writer.turns.swap(0, Ordering::AcqRel) == 0 {
            continue;
        }
        let round = async {
            // A pass copies the log as it was when the pass began: the
            // next one finds what the writer appended meanwhile.
            let mut seen = checkpoint(&mut connection).await?;
            for _ in 1..CHECKPOINT_PASSES {
                let log = checkpoint(&mut connection).await?;
                let appended = log - seen;
                seen = log;
                if (0..=CHECKPOINT_FEW_PAGES).contains(&appended) {
                    break;
                }
            }
            Ok::<_, sqlx::Error>(())
        };
        match round.await {
            Ok(()) => writer.finish_checkpoint.store(true, Ordering::Release),
            Err(error) => {
                tracing::warn!(%error, "SQLite checkpoint failed; the next round tries again")
            }
        }
        if writer.closed.load(Ordering::Acquire) {
            break;
        }
    }
    let _ = connection.close().await;
}

/// A PASSIVE checkpoint of the log as it is when it begins: the log's
/// length then, in pages (it starts over at 0).
async fn checkpoint(connection: &mut SqliteConnection) -> Result<i64, sqlx::Error> {
    let (_busy, log, _copied): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
        .fetch_one(connection)
        .await?;
    Ok(log)
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
                let writer = Arc::new(SqliteWriter {
                    connection: tokio::sync::Mutex::new(writer),
                    turns: AtomicU32::new(0),
                    due: Arc::default(),
                    finish_checkpoint: AtomicBool::new(false),
                    in_transaction: AtomicBool::new(false),
                    closed: AtomicBool::new(false),
                    checkpointer: std::sync::Mutex::new(None),
                });
                let task = tokio::spawn(checkpointer(
                    Arc::downgrade(&writer),
                    writer.due.clone(),
                    options.connect().await?,
                ));
                *writer
                    .checkpointer
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = Some(task);
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

    /// Runs `batch` as a transaction of its own, committed if
    /// `commit(&outcome)` says so and rolled back otherwise.
    ///
    /// On SQLite the transaction's begin goes with the statements, in the
    /// same round trip to the writer's thread (see [`crate::server::repo::batch`]):
    /// two in all with the commit, where a transaction of sqlx's takes
    /// three. sqlx does not know of that transaction, so it must not be
    /// left open: the write runs as a task of its own, which ends it even
    /// when the caller goes away (a request whose client hung up) — an open
    /// transaction would keep every other connection from writing. Should
    /// the task itself fail half-way, the writer's next turn rolls back.
    pub async fn write_batch(
        &self,
        batch: Batch,
        commit: impl FnOnce(&Outcome) -> bool + Send + 'static,
    ) -> Result<Outcome, sqlx::Error> {
        let task = match &self.writer {
            Writers::Sqlite(writer) => {
                let writer = writer.clone();
                tokio::spawn(async move {
                    let mut turn = writer.turn().await;
                    writer.in_transaction.store(true, Ordering::Release);
                    let (began, outcome) = batch::run_on_sqlite(&mut turn, &batch, true).await?;
                    if began {
                        let end = if commit(&outcome) {
                            "COMMIT"
                        } else {
                            "ROLLBACK"
                        };
                        // On an error the flag stays: the next turn rolls back.
                        sqlx::query(end).execute(&mut *turn).await?;
                    }
                    writer.in_transaction.store(false, Ordering::Release);
                    Ok(outcome)
                })
            }
            Writers::Postgres(pool) => {
                let pool = pool.clone();
                tokio::spawn(async move {
                    let mut connection = pool.acquire().await?;
                    let mut tx = sqlx::Connection::begin(&mut *connection).await?;
                    let outcome = batch.run(&mut *tx).await?;
                    if commit(&outcome) {
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

    /// Closes the pool and, for SQLite, stops the checkpointer (after the
    /// round it may be in) and closes the writer's connection.
    pub async fn close(&self) {
        if let Writers::Sqlite(writer) = &self.writer {
            writer.closed.store(true, Ordering::Release);
            writer.due.notify_one();
            let task = writer
                .checkpointer
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            if let Some(task) = task {
                let _ = task.await;
            }
        }
        on_db!(self, pool => pool.close().await)
    }
}
