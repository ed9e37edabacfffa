use crate::{domain::account::CurrentDeveloper, in_transaction, on_db, server::db::Db};

/// A developer's row, hash included. Deliberately not `Serialize`: the hash
/// never leaves the server.
#[derive(Clone, sqlx::FromRow)]
pub struct DeveloperRecord {
    pub id: i64,
    pub email: String,
    pub password_hash: String,
}

impl std::fmt::Debug for DeveloperRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeveloperRecord")
            .field("id", &self.id)
            .field("email", &self.email)
            .finish_non_exhaustive()
    }
}

/// Inserts a developer; a taken email fails with a unique violation
/// (see [`super::is_unique_violation`](crate::server::repo::is_unique_violation)). `email` must be normalised.
pub async fn create(
    db: &Db,
    email: &str,
    password_hash: &str,
    now_ms: i64,
) -> Result<i64, sqlx::Error> {
    // Sessions name their developer by id, so an id must never be given
    // twice. SQLite would give a deleted developer's id to the next one:
    // there, ids come from a sequence that never repeats one (migration
    // 0010). PostgreSQL's identity never repeats one by itself.
    let sqlite = db.backend() == crate::server::config::Backend::Sqlite;
    in_transaction!(db, tx => {
        let sql = if sqlite {
            let id = next_sqlite_id!(tx, "developers", "developer_ids").await?;
            format!(
                "INSERT INTO developers (id, email, password_hash, created_at) \
                 VALUES ({id}, $1, $2, $3) RETURNING id"
            )
        } else {
            "INSERT INTO developers (email, password_hash, created_at) VALUES ($1, $2, $3) RETURNING id"
                .to_owned()
        };
        let id = sqlx::query_scalar::<_, i64>(&sql)
            .bind(email)
            .bind(password_hash)
            .bind(now_ms)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(id)
    })
}

pub async fn find_by_email(db: &Db, email: &str) -> Result<Option<DeveloperRecord>, sqlx::Error> {
    on_db!(db, pool => sqlx::query_as::<_, DeveloperRecord>(
        "SELECT id, email, password_hash FROM developers WHERE email = $1",
    )
    .bind(email)
    .fetch_optional(pool)
    .await)
}

pub async fn find_by_id(db: &Db, id: i64) -> Result<Option<CurrentDeveloper>, sqlx::Error> {
    let row: Option<(i64, String)> = on_db!(db, pool => sqlx::query_as(
        "SELECT id, email FROM developers WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await)?;
    Ok(row.map(|(id, email)| CurrentDeveloper { id, email }))
}
