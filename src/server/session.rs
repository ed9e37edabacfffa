//! Sessions in the console's own database (tower-sessions + its sqlx store),
//! so any number of server instances can share one PostgreSQL.
//!
//! On SQLite the console is the database file's one server, so it also keeps
//! the sessions it has seen in memory ([`Cached`]): every signed-in request
//! reads its session, and a read from SQLite is a round trip to the thread
//! sqlx runs a pooled connection on (and another when the connection goes
//! back to the pool, which pings it) — on a busy machine the waits for those
//! threads are most of a read. Every write still goes to the store first,
//! and the store alone decides whether a session exists: memory only spares
//! reading it again. (PostgreSQL's instances share their sessions, so there
//! each request reads the one store: a session ended on one instance must be
//! ended on all.)

use super::{
    config::Config,
    db::{Db, Pool},
};
use async_trait::async_trait;
use std::{
    collections::HashMap,
    sync::{Arc, Mutex, MutexGuard},
};
use tower_sessions::{
    cookie::{
        time::{Duration, OffsetDateTime},
        SameSite,
    },
    session::{Id, Record},
    session_store::{self, ExpiredDeletion},
    Expiry, SessionManagerLayer, SessionStore,
};
use tower_sessions_sqlx_store::{PostgresStore, SqliteStore};

/// The session cookie's name.
pub const COOKIE_NAME: &str = "toolwright_session";
/// A session ends after this long without a request (documented in README.md).
pub const INACTIVITY_EXPIRY_DAYS: i64 = 7;
/// How often expired sessions are deleted.
const DELETION_PERIOD: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// The session store of whichever backend the console runs on.
#[derive(Clone, Debug)]
pub enum Store {
    Sqlite(SqliteStore, Cached),
    Postgres(PostgresStore),
}

impl Store {
    pub fn for_db(db: &Db) -> Store {
        match db.pool() {
            Pool::Sqlite(pool) => Store::Sqlite(SqliteStore::new(pool.clone()), Cached::default()),
            Pool::Postgres(pool) => Store::Postgres(PostgresStore::new(pool.clone())),
        }
    }

    /// Creates the store's table when missing.
    pub async fn migrate(&self) -> Result<(), sqlx::Error> {
        match self {
            Store::Sqlite(store, _) => store.migrate().await,
            Store::Postgres(store) => store.migrate().await,
        }
    }

    /// Deletes expired sessions now and then, for as long as the server runs.
    pub fn spawn_expired_deletion(&self) -> tokio::task::JoinHandle<()> {
        let store = self.clone();
        tokio::spawn(async move {
            if let Err(error) = store.continuously_delete_expired(DELETION_PERIOD).await {
                tracing::error!(%error, "expired-session deletion stopped");
            }
        })
    }

    /// The layer that loads and saves sessions around each request.
    pub fn layer(&self, config: &Config) -> SessionManagerLayer<Store> {
        SessionManagerLayer::new(self.clone())
            .with_name(COOKIE_NAME)
            .with_http_only(true)
            .with_same_site(SameSite::Lax)
            .with_secure(config.secure_cookies)
            .with_path("/")
            .with_expiry(Expiry::OnInactivity(Duration::days(INACTIVITY_EXPIRY_DAYS)))
    }
}

#[async_trait]
impl SessionStore for Store {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        match self {
            Store::Sqlite(store, cached) => {
                // The store may give the record another id (a clash).
                store.create(record).await?;
                cached.keep(record);
                Ok(())
            }
            Store::Postgres(store) => store.create(record).await,
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        match self {
            Store::Sqlite(store, cached) => {
                // A request under way when its session ended (a log-out in
                // another tab) must not bring it back: the store's save
                // writes the row whether or not it is still there.
                if cached.ended(&record.id) {
                    return Ok(());
                }
                store.save(record).await?;
                if cached.ended(&record.id) {
                    // It ended while this save was under way.
                    return store.delete(&record.id).await;
                }
                cached.keep(record);
                Ok(())
            }
            Store::Postgres(store) => store.save(record).await,
        }
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        match self {
            Store::Sqlite(store, cached) => match cached.get(id) {
                Some(found) => Ok(found),
                None => {
                    let record = store.load(id).await?;
                    if let Some(record) = &record {
                        // Not over a save made while this read was under way.
                        cached.keep_if_unknown(record);
                    }
                    Ok(record)
                }
            },
            Store::Postgres(store) => store.load(id).await,
        }
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        match self {
            Store::Sqlite(store, cached) => {
                // Ended here first: neither a read nor a save under way can
                // bring it back. (Should the store fail to delete it, the
                // log-out fails, and the session stays ended here all the same.)
                cached.end(id);
                store.delete(id).await
            }
            Store::Postgres(store) => store.delete(id).await,
        }
    }
}

/// Sessions at most in memory (a few hundred bytes each); past that, the
/// ended and expired ones go, and then any.
const CACHED_SESSIONS: usize = 4096;

/// The sessions this server has read or written lately, as the store has
/// them, and the ones it has ended lately. A session id is never used again
/// once ended (log-in gives a session a new one): a save is not made for an
/// ended one, and a save under way when it ended is undone; reads and saves
/// under way do not bring it back here either. Forgotten, an ended session
/// is still gone from the store.
#[derive(Clone, Debug, Default)]
pub struct Cached {
    sessions: Arc<Mutex<HashMap<Id, Option<Record>>>>,
}

impl Cached {
    fn sessions(&self) -> MutexGuard<'_, HashMap<Id, Option<Record>>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `Some(found)` if the session is known here: `found` is the record
    /// unless it has expired or was ended. `None`: ask the store.
    fn get(&self, id: &Id) -> Option<Option<Record>> {
        let now = OffsetDateTime::now_utc();
        let mut sessions = self.sessions();
        match sessions.get(id)? {
            Some(record) if record.expiry_date > now => Some(Some(record.clone())),
            Some(_) => {
                // Expired: the store has it no longer either (or soon won't).
                sessions.remove(id);
                Some(None)
            }
            None => Some(None),
        }
    }

    /// The session as the store now has it, unless it was ended.
    fn keep(&self, record: &Record) {
        let mut sessions = self.sessions();
        if !matches!(sessions.get(&record.id), Some(None)) {
            insert(&mut sessions, record.id, Some(record.clone()));
        }
    }

    /// The session as the store had it when read, unless something newer
    /// is known of it by now (a save, its end).
    fn keep_if_unknown(&self, record: &Record) {
        let mut sessions = self.sessions();
        if !sessions.contains_key(&record.id) {
            insert(&mut sessions, record.id, Some(record.clone()));
        }
    }

    fn ended(&self, id: &Id) -> bool {
        matches!(self.sessions().get(id), Some(None))
    }

    fn end(&self, id: &Id) {
        insert(&mut self.sessions(), *id, None);
    }
}

/// Puts `id`'s entry among `sessions`, making room for it first.
fn insert(sessions: &mut HashMap<Id, Option<Record>>, id: Id, entry: Option<Record>) {
    make_room(sessions, &id);
    sessions.insert(id, entry);
}

/// Room for `id` among `sessions`.
fn make_room(sessions: &mut HashMap<Id, Option<Record>>, id: &Id) {
    if sessions.len() < CACHED_SESSIONS || sessions.contains_key(id) {
        return;
    }
    let now = OffsetDateTime::now_utc();
    sessions.retain(|_, record| record.as_ref().is_some_and(|r| r.expiry_date > now));
    if sessions.len() >= CACHED_SESSIONS {
        if let Some(any) = sessions.keys().next().copied() {
            sessions.remove(&any);
        }
    }
}

#[async_trait]
impl ExpiredDeletion for Store {
    async fn delete_expired(&self) -> session_store::Result<()> {
        match self {
            Store::Sqlite(store, _) => store.delete_expired().await,
            Store::Postgres(store) => store.delete_expired().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(expires_in: Duration) -> Record {
        Record {
            id: Id::default(),
            data: Default::default(),
            expiry_date: OffsetDateTime::now_utc() + expires_in,
        }
    }

    #[test]
    fn a_kept_session_is_found_until_it_expires() {
        let cached = Cached::default();
        let live = record(Duration::days(1));
        let expired = record(Duration::seconds(-1));
        assert_eq!(cached.get(&live.id), None, "unknown: ask the store");
        cached.keep(&live);
        cached.keep(&expired);
        assert_eq!(cached.get(&live.id), Some(Some(live.clone())));
        assert_eq!(cached.get(&expired.id), Some(None), "expired: no session");
        assert_eq!(cached.get(&expired.id), None, "and forgotten");
    }

    #[test]
    fn an_ended_session_stays_ended_even_if_kept_again() {
        let cached = Cached::default();
        let session = record(Duration::days(1));
        cached.keep(&session);
        cached.end(&session.id);
        assert_eq!(cached.get(&session.id), Some(None));
        // A save or a load under way when it ended.
        cached.keep(&session);
        assert_eq!(cached.get(&session.id), Some(None));
    }

    #[test]
    fn a_read_does_not_replace_a_save_made_meanwhile() {
        let cached = Cached::default();
        let read = record(Duration::days(1));
        let mut saved = read.clone();
        saved.expiry_date += Duration::days(1);
        cached.keep(&saved);
        cached.keep_if_unknown(&read);
        assert_eq!(cached.get(&read.id), Some(Some(saved)));
        let other = record(Duration::days(1));
        cached.keep_if_unknown(&other);
        assert_eq!(cached.get(&other.id), Some(Some(other.clone())));
    }

    /// A session created through the caching store over an in-memory
    /// SQLite table, and the plain store over the same table.
    async fn stored_session() -> (Store, SqliteStore, Record) {
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(1)
            .connect("sqlite::memory:")
            .await
            .unwrap();
        let plain = SqliteStore::new(pool);
        plain.migrate().await.unwrap();
        let store = Store::Sqlite(plain.clone(), Cached::default());
        let mut session = record(Duration::days(1));
        store.create(&mut session).await.unwrap();
        (store, plain, session)
    }

    #[tokio::test]
    async fn a_session_once_written_is_read_from_memory() {
        let (store, plain, session) = stored_session().await;
        // Gone from the table behind the store's back (by hand): the
        // console still has it.
        plain.delete(&session.id).await.unwrap();
        assert_eq!(store.load(&session.id).await.unwrap(), Some(session));
    }

    #[tokio::test]
    async fn a_save_under_way_when_its_session_ends_does_not_bring_it_back() {
        let (store, plain, session) = stored_session().await;
        store.delete(&session.id).await.unwrap();
        // The request that was under way ends with a save of the session.
        store.save(&session).await.unwrap();
        assert_eq!(plain.load(&session.id).await.unwrap(), None);
        assert_eq!(store.load(&session.id).await.unwrap(), None);
        // Even once this server has forgotten it ended.
        let fresh = Store::Sqlite(plain, Cached::default());
        assert_eq!(fresh.load(&session.id).await.unwrap(), None);
    }

    #[test]
    fn it_holds_a_bounded_number_of_sessions_the_newest_kept() {
        let cached = Cached::default();
        let expired = record(Duration::seconds(-1));
        cached.keep(&expired);
        let ended = record(Duration::days(1));
        cached.end(&ended.id);
        for _ in 0..CACHED_SESSIONS - 2 {
            cached.keep(&record(Duration::days(1)));
        }
        assert_eq!(cached.sessions().len(), CACHED_SESSIONS);
        // Full: the expired and the ended go first.
        let newest = record(Duration::days(1));
        cached.keep(&newest);
        assert_eq!(cached.sessions().len(), CACHED_SESSIONS - 1);
        assert_eq!(cached.get(&expired.id), None);
        for _ in 0..10 {
            cached.keep(&record(Duration::days(1)));
        }
        assert_eq!(cached.sessions().len(), CACHED_SESSIONS);
        let last = record(Duration::days(1));
        cached.keep(&last);
        assert_eq!(cached.sessions().len(), CACHED_SESSIONS, "one went");
        assert_eq!(cached.get(&last.id), Some(Some(last.clone())));
        // Keeping one already there makes no room.
        cached.keep(&last);
        assert_eq!(cached.sessions().len(), CACHED_SESSIONS);
    }
}
