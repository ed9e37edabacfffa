//! The history of an app: its recorded revisions, and the changes that
//! replace its whole configuration at once (restore, import).

use super::{
    snapshots::{self, Snapshot},
    WriteError,
};
use crate::{
    domain::{
        account::CurrentDeveloper,
        config::AppConfig,
        revision::{Change, RevisionDetail, RevisionSummary},
    },
    in_transaction, on_db,
    server::db::Db,
};
use std::collections::HashMap;

/// The outcome of a change guarded by the app's revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revised {
    /// Applied; the app is now at this revision.
    Applied(i64),
    /// The app is no longer at the expected revision: nothing was changed.
    Stale,
}

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
    type Row = (i64, String, i64, String, String, Option<String>);
    let row: Option<Row> = on_db!(db, pool => sqlx::query_as(
        "SELECT revision, author_email, created_at, summary, snapshot, tool_digests \
         FROM app_revisions WHERE app_id = $1 AND revision = $2",
    )
    .bind(app_id)
    .bind(revision)
    .fetch_optional(pool)
    .await)?;
    let Some((revision, author, created_at, summary, snapshot, digests)) = row else {
        return Ok(None);
    };
    let digests = digests
        .as_deref()
        .map(snapshots::parse_digest_list)
        .transpose()?;
    let mut bodies = HashMap::new();
    for chunk in digests.as_deref().unwrap_or_default().chunks(200) {
        let placeholders: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 2)).collect();
        let sql = format!(
            "SELECT digest, body FROM revision_tools WHERE app_id = $1 AND digest IN ({})",
            placeholders.join(", ")
        );
        let found: Vec<(String, String)> = on_db!(db, pool => {
            let mut query = sqlx::query_as(&sql).bind(app_id);
            for digest in chunk {
                query = query.bind(digest);
            }
            query.fetch_all(pool).await
        })?;
        bodies.extend(found);
    }
    let config = snapshots::assemble(&snapshot, digests.as_deref(), &bodies)?;
    Ok(Some(RevisionDetail {
        summary: RevisionSummary {
            revision,
            author,
            created_at,
            summary,
        },
        config,
    }))
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
    author: &CurrentDeveloper,
    now_ms: i64,
) -> Result<Revised, WriteError> {
    in_transaction!(db, tx => {
        let Some(revision) = bump_revision!(tx, app_id, expected_revision, author, now_ms).await? else {
            return Ok(Revised::Stale);
        };
        replace_config!(tx, app_id, config).await?;
        // Read back: exactly what is stored now.
        let recorded = Snapshot::of(fetch_config!(tx, app_id).await?)?;
        record_and_commit!(db, tx, app_id, revision, author, change, now_ms, recorded).await?;
        Ok(Revised::Applied(revision))
    })
}
