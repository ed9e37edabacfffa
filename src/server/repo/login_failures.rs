use crate::{on_db, server::db::Db};

pub async fn record(db: &Db, email: &str, client: &str, at_ms: i64) -> Result<(), sqlx::Error> {
    on_db!(db, pool => sqlx::query(
        "INSERT INTO login_failures (email, client, attempted_at) VALUES ($1, $2, $3)",
    )
    .bind(email)
    .bind(client)
    .bind(at_ms)
    .execute(pool)
    .await
    .map(|_| ()))
}

/// Times of the failures for `email` at or after `since_ms`.
pub async fn since_for_email(db: &Db, email: &str, since_ms: i64) -> Result<Vec<i64>, sqlx::Error> {
    on_db!(db, pool => sqlx::query_scalar::<_, i64>(
        "SELECT attempted_at FROM login_failures WHERE email = $1 AND attempted_at >= $2",
    )
    .bind(email)
    .bind(since_ms)
    .fetch_all(pool)
    .await)
}

/// Times of the failures from `client` at or after `since_ms`.
pub async fn since_for_client(
    db: &Db,
    client: &str,
    since_ms: i64,
) -> Result<Vec<i64>, sqlx::Error> {
    on_db!(db, pool => sqlx::query_scalar::<_, i64>(
        "SELECT attempted_at FROM login_failures WHERE client = $1 AND attempted_at >= $2",
    )
    .bind(client)
    .bind(since_ms)
    .fetch_all(pool)
    .await)
}

/// Forgets the failures of `email` (after a successful log-in).
pub async fn clear_for_email(db: &Db, email: &str) -> Result<(), sqlx::Error> {
    on_db!(db, pool => sqlx::query("DELETE FROM login_failures WHERE email = $1")
        .bind(email)
        .execute(pool)
        .await
        .map(|_| ()))
}

/// Deletes failures older than `before_ms`; they no longer count.
pub async fn prune(db: &Db, before_ms: i64) -> Result<u64, sqlx::Error> {
    on_db!(db, pool => sqlx::query("DELETE FROM login_failures WHERE attempted_at < $1")
        .bind(before_ms)
        .execute(pool)
        .await
        .map(|done| done.rows_affected()))
}
