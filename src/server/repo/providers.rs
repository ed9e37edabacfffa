//! An organization's model providers. The API key arrives sealed (see
//! `server::secrets`); only its last four characters are ever read back
//! for a page.

use super::{Scope, WriteError};
use crate::{
    domain::{
        eval::{ProviderInput, ProviderSummary},
        org::Action,
    },
    in_transaction, on_db,
    server::db::Db,
};

/// Stores provider `input` of organization `org` with its key `sealed`, if
/// developer `by` may still manage providers. A name the organization
/// already uses is a unique violation.
pub async fn create(
    db: &Db,
    org: i64,
    by: i64,
    input: &ProviderInput,
    sealed: &str,
    now_ms: i64,
) -> Result<i64, WriteError> {
    in_transaction!(db, tx => {
        may_write!(tx, Scope::Org(org), by, Action::ManageProviders).await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO model_providers (org_id, name, base_url, model, key_sealed, key_last4, created_by, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
        )
        .bind(org)
        .bind(&input.name)
        .bind(&input.base_url)
        .bind(&input.model)
        .bind(sealed)
        .bind(input.key_last4())
        .bind(by)
        .bind(now_ms)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(id)
    })
}

/// The organization's providers, by name.
pub async fn list(db: &Db, org: i64) -> Result<Vec<ProviderSummary>, sqlx::Error> {
    let rows: Vec<(i64, String, String, String, String)> = on_db!(db, pool => sqlx::query_as(
        "SELECT id, name, base_url, model, key_last4 FROM model_providers \
         WHERE org_id = $1 ORDER BY name, id",
    )
    .bind(org)
    .fetch_all(pool)
    .await)?;
    Ok(rows
        .into_iter()
        .map(|(id, name, base_url, model, key_last4)| ProviderSummary {
            id,
            name,
            base_url,
            model,
            key_last4,
        })
        .collect())
}

/// Removes provider `id` of organization `org`, if developer `by` may still
/// manage providers: its name, or `None` when there is no such provider.
pub async fn delete(db: &Db, org: i64, id: i64, by: i64) -> Result<Option<String>, WriteError> {
    in_transaction!(db, tx => {
        may_write!(tx, Scope::Org(org), by, Action::ManageProviders).await?;
        let name: Option<String> = sqlx::query_scalar(
            "DELETE FROM model_providers WHERE id = $1 AND org_id = $2 RETURNING name",
        )
        .bind(id)
        .bind(org)
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(name)
    })
}

/// What calling provider `id` takes: its endpoint, model and sealed key.
#[derive(Clone, PartialEq, Eq)]
pub struct Access {
    pub base_url: String,
    pub model: String,
    pub key_sealed: String,
}

/// Provider `id`'s endpoint, model and sealed key, if it still exists and
/// belongs to the organization app `app_id` is in (an app moved elsewhere
/// no longer spends its old organization's provider).
pub async fn access(db: &Db, id: i64, app_id: i64) -> Result<Option<Access>, sqlx::Error> {
    let row: Option<(String, String, String)> = on_db!(db, pool => sqlx::query_as(
        "SELECT p.base_url, p.model, p.key_sealed FROM model_providers p \
         JOIN apps a ON a.org_id = p.org_id WHERE p.id = $1 AND a.id = $2",
    )
    .bind(id)
    .bind(app_id)
    .fetch_optional(pool)
    .await)?;
    Ok(row.map(|(base_url, model, key_sealed)| Access {
        base_url,
        model,
        key_sealed,
    }))
}
