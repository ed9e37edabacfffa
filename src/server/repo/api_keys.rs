//! Read-only API keys of an app. Only a SHA-256 of each key is stored: the
//! key itself is shown once, when it is made.

use super::{Scope, WriteError};
use crate::{
    domain::{keys::ApiKeySummary, org::Action},
    in_transaction, on_db, on_writer,
    server::db::Db,
};
use sha2::{Digest, Sha256};

/// Every key starts with this, so it is recognisable in a config or a log.
pub const KEY_PREFIX: &str = "tw_";
/// Characters of a key shown in lists (prefix included).
const SHOWN: usize = 10;

/// A new random key: `tw_` and 40 hex digits (160 bits).
pub fn generate() -> Result<String, getrandom::Error> {
    let mut bytes = [0_u8; 20];
    getrandom::fill(&mut bytes)?;
    Ok(format!("{KEY_PREFIX}{}", hex(&bytes)))
}

pub fn hash(key: &str) -> String {
    hex(&Sha256::digest(key.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The part of a key shown in lists.
pub fn shown_part(key: &str) -> String {
    key.chars().take(SHOWN).collect()
}

/// A key to store: its name, the key itself, and whether it is limited to
/// exports.
pub struct NewKey<'a> {
    pub name: &'a str,
    pub key: &'a str,
    pub export_only: bool,
}

/// Stores key `new` of app `app_id`, made by developer `created_by` (a tool
/// call made with it over MCP reaches the app as them), if they may still
/// manage its keys: a key is never made after its maker's membership ended.
pub async fn create(
    db: &Db,
    app_id: i64,
    created_by: i64,
    new: NewKey<'_>,
    now_ms: i64,
) -> Result<i64, WriteError> {
    in_transaction!(db, tx => {
        may_write!(tx, Scope::App(app_id), created_by, Action::ManageKeys).await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO api_keys (app_id, created_by, name, prefix, key_hash, created_at, export_only) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(app_id)
        .bind(created_by)
        .bind(new.name)
        .bind(shown_part(new.key))
        .bind(hash(new.key))
        .bind(now_ms)
        .bind(new.export_only)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(id)
    })
}

/// The app's keys that are not revoked, newest first.
pub async fn list_for_app(db: &Db, app_id: i64) -> Result<Vec<ApiKeySummary>, sqlx::Error> {
    let rows: Vec<(i64, String, String, i64, Option<i64>, bool)> = on_db!(db, pool => sqlx::query_as(
        "SELECT id, name, prefix, created_at, last_used_at, export_only FROM api_keys \
         WHERE app_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC",
    )
    .bind(app_id)
    .fetch_all(pool)
    .await)?;
    Ok(rows
        .into_iter()
        .map(
            |(id, name, prefix, created_at, last_used_at, export_only)| ApiKeySummary {
                id,
                name,
                prefix,
                created_at,
                last_used_at,
                export_only,
            },
        )
        .collect())
}

/// Revokes key `key_id` of app `app_id`, if developer `by` may still manage
/// its keys; `false` when there is no such live key.
pub async fn revoke(
    db: &Db,
    app_id: i64,
    key_id: i64,
    by: i64,
    now_ms: i64,
) -> Result<bool, WriteError> {
    in_transaction!(db, tx => {
        may_write!(tx, Scope::App(app_id), by, Action::ManageKeys).await?;
        let done = sqlx::query(
            "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND app_id = $3 AND revoked_at IS NULL",
        )
        .bind(now_ms)
        .bind(key_id)
        .bind(app_id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    })
}

/// "Last used" is recorded to the minute: a busy key costs a read per
/// request, not a write.
const LAST_USED_RESOLUTION_MS: i64 = 60_000;

/// Who a live key speaks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyHolder {
    pub key_id: i64,
    pub app_id: i64,
    /// The developer the key speaks for.
    pub developer_id: i64,
    /// The email of the developer who made the key (the app's owner for a
    /// key made before keys recorded it).
    pub email: String,
    /// Limited to exports (no MCP).
    pub export_only: bool,
}

/// The key's holder (and records the key's use), or `None` for an unknown
/// or revoked key — or one whose maker is no longer a member of the app's
/// organization: a key speaks for its maker, and is only as good as their
/// membership (removal revokes their keys too, for the record; this holds
/// even for a key made in the instant of the removal, or moved out of
/// their reach with its app).
pub async fn holder(db: &Db, key: &str, now_ms: i64) -> Result<Option<KeyHolder>, sqlx::Error> {
    let key_hash = hash(key);
    let found: Option<(i64, i64, Option<i64>, i64, String, bool)> = on_db!(db, pool => sqlx::query_as(
        "SELECT k.id, k.app_id, k.last_used_at, d.id, d.email, k.export_only FROM api_keys k \
         JOIN apps a ON a.id = k.app_id \
         JOIN developers d ON d.id = COALESCE(k.created_by, a.owner_id) \
         JOIN org_members m ON m.org_id = a.org_id AND m.developer_id = d.id \
         WHERE k.key_hash = $1 AND k.revoked_at IS NULL",
    )
    .bind(&key_hash)
    .fetch_optional(pool)
    .await)?;
    let Some((key_id, app_id, last_used_at, developer_id, email, export_only)) = found else {
        return Ok(None);
    };
    if last_used_at.is_none_or(|at| now_ms - at >= LAST_USED_RESOLUTION_MS) {
        on_writer!(db, conn => sqlx::query("UPDATE api_keys SET last_used_at = $1 WHERE id = $2")
            .bind(now_ms)
            .bind(key_id)
            .execute(conn)
            .await
            .map(|_| ()))?;
    }
    Ok(Some(KeyHolder {
        key_id,
        app_id,
        developer_id,
        email,
        export_only,
    }))
}
