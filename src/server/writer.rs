//! SQLite's one writer: its turns, the transactions that batch writes share
//! (group commit), and the checkpointer that keeps its log short.
//!
//! SQLite takes one writer at a time, and a writer that finds the file
//! locked sleeps and polls (the busy timeout): under concurrent saves,
//! latency piled up in those sleeps. So every write takes its turn, in
//! order, on one connection kept for writing. Being the only connection
//! that changes the file, it also keeps its page cache: a pooled connection
//! drops its whole cache whenever another one has written.
//!
//! sqlx runs a SQLite connection on a thread of its own, and each query is
//! a round trip to that thread — on a busy machine the wait for the thread
//! to wake costs more than the query. A tool save is one [`Batch`] (one
//! round trip), and its commit would be a second. Saves that arrive while
//! one is under way do not each wait for a commit of their own: a batch
//! write that sees others waiting for the turn leaves its transaction open
//! for them, inside a savepoint of its own, and the last of the group
//! commits for all ([`SqliteWriter::write_batch`]). Each write still
//! answers only once its changes are committed, and a write that is refused
//! (a stale revision) is rolled back to its savepoint alone.
//!
//! A write in WAL mode appends pages to the log; a checkpoint copies them
//! back into the database file so that the log can start over. SQLite does
//! it by itself in the commit that takes the log past 1000 pages, on the
//! committing connection — here the one writer, so every write queued
//! behind that commit waited for the copy too (a few milliseconds every few
//! dozen saves: the slowest saves under load). So the writer leaves it to a
//! [`checkpointer`] on a connection of its own, which copies the log beside
//! the writer, and copies the last few pages written meanwhile at the start
//! of the next transaction.

use super::repo::batch::{self, Batch, Outcome};
use sqlx::SqliteConnection;
use std::{
    panic::AssertUnwindSafe,
    sync::{
        atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering},
        Arc, Weak,
    },
    time::Duration,
};
use tokio::sync::{oneshot, Mutex, Notify, OwnedMutexGuard};

/// Writes in one shared transaction at most.
const GROUP_LIMIT: usize = 16;
/// A write waiting for its group's commit longer than this commits the
/// group itself (the write that was to go on with it failed).
const GROUP_WAIT: Duration = Duration::from_secs(1);
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
pub(super) const WRITER_AUTOCHECKPOINT_PAGES: u32 = 20_000;

/// The savepoint each batch write of a group makes its changes in.
const SAVEPOINT: &str = "SAVEPOINT batch_write";
const KEEP: &[&str] = &["RELEASE batch_write"];
const UNDO: &[&str] = &["ROLLBACK TO batch_write", "RELEASE batch_write"];

/// SQLite's writing connection and what its writes and checkpointer share.
#[derive(Debug)]
pub(super) struct SqliteWriter {
    state: Arc<Mutex<State>>,
    /// Batch writes waiting for a turn. Each runs as a task of its own and
    /// takes the turn when it comes, so a group left open for one is always
    /// gone on with.
    batches_waiting: AtomicUsize,
    /// Batch writes run, and the transactions they ran in.
    batch_writes: AtomicU64,
    groups: AtomicU64,
    /// Turns since the checkpointer last copied the log.
    turns: AtomicU32,
    /// Woken every [`CHECKPOINT_EVERY_TURNS`] turns, and at close.
    due: Arc<Notify>,
    /// Set by the checkpointer when all but the last few pages are copied:
    /// the next transaction to begin copies those first, and clears it;
    /// the checkpointer starts no round while it is set.
    finish_checkpoint: AtomicBool,
    closed: AtomicBool,
    /// The checkpointer's task, awaited at close.
    checkpointer: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

#[derive(Debug)]
struct State {
    connection: SqliteConnection,
    /// The transaction batch writes are sharing, while one is open.
    group: Option<Group>,
}

#[derive(Debug)]
struct Group {
    id: u64,
    /// What the group's latest write calls for (keep its savepoint's
    /// changes, or undo them), sent before anything else on the connection.
    latest: &'static [&'static str],
    /// The writes waiting for the group's commit.
    members: Vec<oneshot::Sender<Result<(), String>>>,
}

impl SqliteWriter {
    /// The writer over `connection`, with its checkpointer (on
    /// `checkpointing`, a connection of its own) running.
    pub(super) fn start(
        connection: SqliteConnection,
        checkpointing: SqliteConnection,
    ) -> Arc<SqliteWriter> {
        let writer = Arc::new(SqliteWriter {
            state: Arc::new(Mutex::new(State {
                connection,
                group: None,
            })),
            batches_waiting: AtomicUsize::new(0),
            batch_writes: AtomicU64::new(0),
            groups: AtomicU64::new(0),
            turns: AtomicU32::new(0),
            due: Arc::default(),
            finish_checkpoint: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            checkpointer: std::sync::Mutex::new(None),
        });
        let task = tokio::spawn(checkpointer(
            Arc::downgrade(&writer),
            writer.due.clone(),
            checkpointing,
        ));
        *writer
            .checkpointer
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(task);
        writer
    }

    /// A turn for a write of its own (a transaction of sqlx's): an open
    /// group is committed first.
    pub(super) async fn turn(&self) -> SqliteTurn<'_> {
        let mut state = self.state.clone().lock_owned().await;
        if state.group.is_some() {
            // In a task of its own: this caller may go away (a request
            // whose client hung up), which must not cut the commit short —
            // its writes would never hear how it went, and the connection
            // would be left in the transaction, holding the file's lock.
            // Its writes hear how it went; this one goes on either way.
            let closing = tokio::spawn(async move {
                let _ = state.close_group().await;
                state
            });
            state = match closing.await {
                Ok(state) => state,
                // It failed half-way and let go of the turn: take it again,
                // and undo whatever of the group may still be open.
                Err(_) => {
                    let mut state = self.state.clone().lock_owned().await;
                    let _ = sqlx::query("ROLLBACK").execute(&mut state.connection).await;
                    state
                }
            };
        }
        self.before_transaction(&mut state).await;
        SqliteTurn {
            state,
            writer: self,
        }
    }

    /// Runs `batch` in a transaction — shared with the batch writes around
    /// it, in a savepoint of its own — and keeps its changes if
    /// `commit(&outcome)` says so; answers once they are committed (or
    /// were undone). Run it as a task of its own: a group left open is
    /// gone on with by the writes waiting for their turn, which must come.
    pub(super) async fn write_batch(
        self: Arc<Self>,
        batch: Batch,
        commit: impl FnOnce(&Outcome) -> bool,
    ) -> Result<Outcome, sqlx::Error> {
        let mut state = {
            let _waiting = Waiting::on(&self.batches_waiting);
            self.state.lock().await
        };
        self.batch_writes.fetch_add(1, Ordering::Relaxed);
        self.count_turn();
        let mut prefix: Vec<&str> = Vec::new();
        match &mut state.group {
            Some(group) => {
                prefix.extend(group.latest);
                // Undone unless this write says otherwise (should it fail
                // before it does).
                group.latest = UNDO;
            }
            None => {
                self.before_transaction(&mut state).await;
                prefix.push("BEGIN IMMEDIATE");
                state.group = Some(Group {
                    id: self.groups.fetch_add(1, Ordering::Relaxed),
                    latest: UNDO,
                    members: Vec::new(),
                });
            }
        }
        prefix.push(SAVEPOINT);
        let (prefix_ran, outcome) =
            match batch::run_on_sqlite(&mut state.connection, &prefix, &batch).await {
                Ok(ran) => ran,
                Err(error) => {
                    state.fail_group(&error).await;
                    return Err(error);
                }
            };
        if prefix_ran < prefix.len() {
            // The transaction could not begin (the file locked past the busy
            // timeout) or go on: nothing of the group stays.
            let error = outcome
                .error()
                .unwrap_or_else(|| sqlx::Error::Protocol("the batch's prefix did not run".into()));
            state.fail_group(&error).await;
            return Err(error);
        }
        // Never what an error cut short, whatever the caller says.
        let keep = std::panic::catch_unwind(AssertUnwindSafe(|| {
            outcome.is_complete() && commit(&outcome)
        }));
        let group = state.group.as_mut().expect("this write's group is open");
        group.latest = if matches!(keep, Ok(true)) { KEEP } else { UNDO };
        let stay_open = keep.is_ok()
            && self.batches_waiting.load(Ordering::SeqCst) > 0
            && group.members.len() + 1 < GROUP_LIMIT;
        if !stay_open {
            let committed = state.close_group().await;
            drop(state);
            return match keep {
                Ok(_) => committed.map(|()| outcome),
                Err(panic) => std::panic::resume_unwind(panic),
            };
        }
        let id = group.id;
        let (sender, mut committed) = oneshot::channel();
        group.members.push(sender);
        drop(state);
        let result = match tokio::time::timeout(GROUP_WAIT, &mut committed).await {
            Ok(result) => result,
            Err(_) => {
                let mut state = self.state.lock().await;
                if state.group.as_ref().is_some_and(|group| group.id == id) {
                    let _ = state.close_group().await;
                }
                drop(state);
                committed.await
            }
        };
        match result {
            Ok(Ok(())) => Ok(outcome),
            Ok(Err(message)) => Err(group_failed(message)),
            Err(_) => Err(group_failed("the group ended unheard".into())),
        }
    }

    /// Before a transaction begins on the connection: the checkpointer's
    /// last few pages, when it asked.
    async fn before_transaction(&self, state: &mut State) {
        if self.finish_checkpoint.load(Ordering::Acquire) {
            // The pages written since the checkpointer's last pass (a save
            // or two): with them copied, this transaction starts the log
            // over instead of making it longer.
            if let Err(error) = checkpoint(&mut state.connection).await {
                tracing::warn!(%error, "SQLite checkpoint failed; the next round tries again");
            }
            // Only now may the checkpointer start another round: two
            // checkpoints at once, one is refused (busy), and were it this
            // one, the log would not start over but grow for another round.
            self.finish_checkpoint.store(false, Ordering::Release);
        }
    }

    /// Batch writes run, and the transactions they ran in.
    pub(super) fn batch_transactions(&self) -> (u64, u64) {
        (
            self.batch_writes.load(Ordering::Relaxed),
            self.groups.load(Ordering::Relaxed),
        )
    }

    fn count_turn(&self) {
        let turns = self.turns.fetch_add(1, Ordering::Relaxed) + 1;
        if turns.is_multiple_of(CHECKPOINT_EVERY_TURNS) {
            self.due.notify_one();
        }
    }

    /// Commits what is open and stops the checkpointer (after the round it
    /// may be in).
    pub(super) async fn close(&self) {
        let _ = self.state.lock().await.close_group().await;
        self.closed.store(true, Ordering::Release);
        self.due.notify_one();
        let task = self
            .checkpointer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(task) = task {
            let _ = task.await;
        }
    }
}

/// Counts a batch write waiting for the turn, for as long as it waits
/// (a task dropped while waiting, as at shutdown, is no longer counted).
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn on(count: &'a AtomicUsize) -> Waiting<'a> {
        count.fetch_add(1, Ordering::SeqCst);
        Waiting(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn group_failed(message: String) -> sqlx::Error {
    sqlx::Error::Io(std::io::Error::other(format!(
        "the transaction this write shared was not committed: {message}"
    )))
}

impl State {
    /// Commits the open group, if any, and tells its writes.
    async fn close_group(&mut self) -> Result<(), sqlx::Error> {
        let Some(group) = self.group.take() else {
            return Ok(());
        };
        let mut sql = group.latest.join(";\n");
        sql.push_str(";\nCOMMIT");
        let committed = sqlx::query(&sql).execute(&mut self.connection).await;
        if committed.is_err() {
            // Whatever is left of it: undone.
            let _ = sqlx::query("ROLLBACK").execute(&mut self.connection).await;
        }
        let told = committed.as_ref().map(|_| ()).map_err(|e| e.to_string());
        for member in group.members {
            let _ = member.send(told.clone());
        }
        committed.map(|_| ())
    }

    /// Rolls back the open group, if any, and tells its writes why.
    async fn fail_group(&mut self, error: &sqlx::Error) {
        let _ = sqlx::query("ROLLBACK").execute(&mut self.connection).await;
        if let Some(group) = self.group.take() {
            for member in group.members {
                let _ = member.send(Err(error.to_string()));
            }
        }
    }
}

/// A turn on SQLite's writing connection, for a write of its own; counted
/// for the checkpointer when it ends.
pub struct SqliteTurn<'a> {
    state: OwnedMutexGuard<State>,
    writer: &'a SqliteWriter,
}

impl std::ops::Deref for SqliteTurn<'_> {
    type Target = SqliteConnection;
    fn deref(&self) -> &SqliteConnection {
        &self.state.connection
    }
}

impl std::ops::DerefMut for SqliteTurn<'_> {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.state.connection
    }
}

impl Drop for SqliteTurn<'_> {
    fn drop(&mut self) {
        self.writer.count_turn();
    }
}

/// Copies SQLite's log into the database file, off the writer's turn (see
/// the module's notes), until the writer is closed or dropped. Each round
/// is PASSIVE checkpoints on the checkpointer's own connection, beside the
/// writer, while writes go on, until what was written meanwhile is a few
/// pages; those the next transaction to begin copies first, after which
/// the log is fully copied and that transaction starts it over from the
/// beginning. (Waiting for a turn of its own, the checkpointer would queue
/// behind every waiting write and find more to copy, holding up all of
/// them.)
async fn checkpointer(
    writer: Weak<SqliteWriter>,
    due: Arc<Notify>,
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
        // The last round's end is still for the writer to copy (see
        // `before_transaction`): the next waits for it.
        if writer.finish_checkpoint.load(Ordering::Acquire) {
            continue;
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
