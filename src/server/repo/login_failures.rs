//! Log-in attempts that have not (yet) succeeded, for throttling. An attempt
//! is written *before* its password is checked and counted with every other
//! attempt in the window, so parallel attempts cannot slip past the limit
//! together; a refused attempt is taken back, a failed one stays (marked
//! finished), and a successful log-in forgives its email's finished
//! failures — not the attempts still being checked, which count until they
//! end. Forgiven failures no longer count against the email, but still
//! count against the clients that made them (unless that is the client that
//! just logged in: those were its owner's typos, and are gone).

use crate::{in_transaction, on_db, on_writer, server::db::Db};

/// Writes an attempt for `email` from `client` at `at_ms`, not finished
/// yet: its row id.
pub async fn record(db: &Db, email: &str, client: &str, at_ms: i64) -> Result<i64, sqlx::Error> {
    on_writer!(db, conn => sqlx::query_scalar::<_, i64>(
        "INSERT INTO login_failures (email, client, attempted_at, finished) \
         VALUES ($1, $2, $3, FALSE) RETURNING id",
    )
    .bind(email)
    .bind(client)
    .bind(at_ms)
    .fetch_one(conn)
    .await)
}

/// Takes back the attempt `id` (one that was refused before any checking).
pub async fn withdraw(db: &Db, id: i64) -> Result<(), sqlx::Error> {
    on_writer!(db, conn => sqlx::query("DELETE FROM login_failures WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await
        .map(|_| ()))
}

/// Marks the attempt `id` finished: it failed.
pub async fn fail(db: &Db, id: i64) -> Result<(), sqlx::Error> {
    on_writer!(db, conn => sqlx::query("UPDATE login_failures SET finished = TRUE WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await
        .map(|_| ()))
}

/// Times of the attempts for `email` at or after `since_ms`, but `except_id`
/// and those forgiven by a successful log-in.
pub async fn since_for_email(
    db: &Db,
    email: &str,
    since_ms: i64,
    except_id: i64,
) -> Result<Vec<i64>, sqlx::Error> {
    on_db!(db, pool => sqlx::query_scalar::<_, i64>(
        "SELECT attempted_at FROM login_failures \
         WHERE email = $1 AND attempted_at >= $2 AND id <> $3 AND NOT forgiven",
    )
    .bind(email)
    .bind(since_ms)
    .bind(except_id)
    .fetch_all(pool)
    .await)
}

/// Times of the attempts from `client` at or after `since_ms`, but
/// `except_id`; forgiven ones too.
pub async fn since_for_client(
    db: &Db,
    client: &str,
    since_ms: i64,
    except_id: i64,
) -> Result<Vec<i64>, sqlx::Error> {
    on_db!(db, pool => sqlx::query_scalar::<_, i64>(
        "SELECT attempted_at FROM login_failures \
         WHERE client = $1 AND attempted_at >= $2 AND id <> $3",
    )
    .bind(client)
    .bind(since_ms)
    .bind(except_id)
    .fetch_all(pool)
    .await)
}

/// A log-in for `email` from `client` succeeded with the attempt `own`:
/// that attempt is gone, and so are the email's earlier failures from the
/// same client (its owner's typos). The email's failures from other clients
/// stop counting against the email but still count against those clients.
/// Attempts in flight stay.
pub async fn forgive_for_email(
    db: &Db,
    email: &str,
    client: &str,
    own: i64,
) -> Result<(), sqlx::Error> {
    in_transaction!(db, tx => {
        sqlx::query(
            "DELETE FROM login_failures \
             WHERE id = $1 OR (email = $2 AND client = $3 AND finished)",
        )
        .bind(own)
        .bind(email)
        .bind(client)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE login_failures SET forgiven = TRUE WHERE email = $1 AND finished")
            .bind(email)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    })
}

/// Deletes failures older than `before_ms`; they no longer count.
pub async fn prune(db: &Db, before_ms: i64) -> Result<u64, sqlx::Error> {
    on_writer!(db, conn => sqlx::query("DELETE FROM login_failures WHERE attempted_at < $1")
        .bind(before_ms)
        .execute(conn)
        .await
        .map(|done| done.rows_affected()))
}
