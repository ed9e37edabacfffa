//! Sessions in the console's own database (tower-sessions and its sqlx
//! store), so any number of server processes can share one PostgreSQL, and
//! a log-out made on one is seen by all of them at once.

use super::{
    config::Config,
    db::{Db, Pool},
};
use async_trait::async_trait;
use tower_sessions::{
    cookie::{time::Duration, SameSite},
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
    Sqlite(SqliteStore),
    Postgres(PostgresStore),
}

impl Store {
    pub fn for_db(db: &Db) -> Store {
        match db.pool() {
            Pool::Sqlite(pool) => Store::Sqlite(SqliteStore::new(pool.clone())),
            Pool::Postgres(pool) => Store::Postgres(PostgresStore::new(pool.clone())),
        }
    }

    /// Creates the store's table when missing.
    pub async fn migrate(&self) -> Result<(), sqlx::Error> {
        match self {
            Store::Sqlite(store) => store.migrate().await,
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

/// The store of the console's backend, as it is: every call goes to it.
#[async_trait]
impl SessionStore for Store {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        match self {
            Store::Sqlite(store) => store.create(record).await,
            Store::Postgres(store) => store.create(record).await,
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        match self {
            Store::Sqlite(store) => store.save(record).await,
            Store::Postgres(store) => store.save(record).await,
        }
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        match self {
            Store::Sqlite(store) => store.load(id).await,
            Store::Postgres(store) => store.load(id).await,
        }
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        match self {
            Store::Sqlite(store) => store.delete(id).await,
            Store::Postgres(store) => store.delete(id).await,
        }
    }
}

#[async_trait]
impl ExpiredDeletion for Store {
    async fn delete_expired(&self) -> session_store::Result<()> {
        match self {
            Store::Sqlite(store) => store.delete_expired().await,
            Store::Postgres(store) => store.delete_expired().await,
        }
    }
}
