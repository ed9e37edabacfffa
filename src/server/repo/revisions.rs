//! The history of an app: its recorded revisions, and the changes that
//! replace its whole configuration at once (restore, import).

use super::{apps::Revised, Author};
use crate::{
    domain::{
        config::AppConfig,
        revision::{Change, RevisionDetail, RevisionSummary},
    },
    on_db,
    server::db::Db,
};

/// The app's revisions, newest first.
pub async fn list(db: &Db, app_id: i64) -> Result<Vec<RevisionSummary>, sqlx::Error> {
    let rows: Vec<(i64, String, i64, String)> = on_db!(db, pool => sqlx::query_as(
        "SELECT revision, author_email, created_at, summary FROM app_revisions \
         WHERE app_id = $1 ORDER BY revision DESC",
    )
    .bind(app_id)
    .fetch_all(pool)
    .await)?;
    Ok(rows
        .into_iter()
        .map(|(revision, author, created_at, summary)| RevisionSummary {
            revision,
            author,
            created_at,
            summary,
        })
        .collect())
}

/// One revision with its configuration.
pub async fn get(
    db: &Db,
    app_id: i64,
    revision: i64,
) -> Result<Option<RevisionDetail>, sqlx::Error> {
    let row: Option<(i64, String, i64, String, String)> = on_db!(db, pool => sqlx::query_as(
        "SELECT revision, author_email, created_at, summary, snapshot FROM app_revisions \
         WHERE app_id = $1 AND revision = $2",
    )
    .bind(app_id)
    .bind(revision)
    .fetch_optional(pool)
    .await)?;
    row.map(|(revision, author, created_at, summary, snapshot)| {
        let config: AppConfig =
            serde_json::from_str(&snapshot).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
        Ok(RevisionDetail {
            summary: RevisionSummary {
                revision,
                author,
                created_at,
                summary,
            },
            config,
        })
    })
    .transpose()
}

/// Makes the app exactly `config` (fields, settings, tools) if it is still
/// at `expected_revision`: one transaction, recorded as `change`. Used by
/// restore and import. A clash of tool ids is a unique violation and
/// changes nothing.
pub async fn replace(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    config: &AppConfig,
    change: Change,
    author: &Author,
    now_ms: i64,
) -> Result<Revised, sqlx::Error> {
    let _turn = db.writing().await;
    on_db!(db, pool => {
        let mut tx = pool.begin().await?;
        let Some(revision) = bump_revision!(tx, app_id, expected_revision, now_ms).await? else {
            return Ok(Revised::Stale);
        };
        replace_config!(tx, app_id, config).await?;
        // Read back: exactly what is stored now.
        let stored = fetch_config!(tx, app_id).await?;
        record_revision!(tx, app_id, revision, author, change, now_ms, &stored).await?;
        tx.commit().await?;
        db.configs().put(app_id, revision, std::sync::Arc::new(stored));
        Ok(Revised::Applied(revision))
    })
}
