pub use super::revisions::Revised;
use super::{
    revisions::{self, Snapshot},
    Scope, WriteError,
};
use crate::{
    domain::{
        account::CurrentDeveloper,
        app::{AppDetails, AppInput, AppSummary},
        config::AppConfig,
        org::{Action, Role},
        revision::Change,
    },
    in_transaction, on_db,
    server::db::Db,
};
use std::sync::Arc;

/// An app as loaded for a member: its row id and its fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredApp {
    pub id: i64,
    /// The organization it belongs to.
    pub org_id: i64,
    pub details: AppDetails,
}

#[derive(sqlx::FromRow)]
struct AppRow {
    id: i64,
    // Nullable in SQLite's table (a column added later); always set.
    org_id: Option<i64>,
    package_name: String,
    name: String,
    description: String,
    version: String,
    public_url: String,
    revision: i64,
    updated_at: i64,
}

impl From<AppRow> for StoredApp {
    fn from(row: AppRow) -> Self {
        StoredApp {
            id: row.id,
            org_id: row.org_id.unwrap_or_default(),
            details: AppDetails {
                package_name: row.package_name,
                name: row.name,
                description: row.description,
                version: row.version,
                public_url: row.public_url,
                revision: row.revision,
                updated_at: row.updated_at,
            },
        }
    }
}

/// Inserts a new app of organization `org` at revision 1 (recorded as
/// "Created the app"), if `author` is still a member of it. A taken package
/// name fails with a unique violation (see [`super::is_unique_violation`]).
pub async fn create(
    db: &Db,
    author: &CurrentDeveloper,
    org: i64,
    input: &AppInput,
    now_ms: i64,
) -> Result<i64, WriteError> {
    // SQLite would give a deleted app's id to the next app: ids come from a
    // sequence that never repeats one (migration 0007). PostgreSQL's
    // identity never does.
    let sqlite = db.backend() == crate::server::config::Backend::Sqlite;
    let (created, _) = Snapshot::of(AppConfig {
        name: input.name.clone(),
        description: input.description.clone(),
        version: input.version.clone(),
        public_url: input.public_url.clone(),
        ..AppConfig::default()
    })?;
    let head = created.head()?;
    in_transaction!(db, tx => {
        may_write!(tx, Scope::Org(org), author.id, Action::Edit).await?;
        let sql = if sqlite {
            let id = next_sqlite_id!(tx, "apps", "app_ids").await?;
            format!(
                "INSERT INTO apps (id, owner_id, org_id, package_name, name, description, version, public_url, revision, created_at, updated_at) \
                 VALUES ({id}, $1, $8, $2, $3, $4, $5, $6, 1, $7, $7) RETURNING id"
            )
        } else {
            "INSERT INTO apps (owner_id, org_id, package_name, name, description, version, public_url, revision, created_at, updated_at) \
             VALUES ($1, $8, $2, $3, $4, $5, $6, 1, $7, $7) RETURNING id"
                .to_owned()
        };
        let app_id: i64 = sqlx::query_scalar(&sql)
            .bind(author.id)
            .bind(&input.package_name)
            .bind(&input.name)
            .bind(&input.description)
            .bind(&input.version)
            .bind(&input.public_url)
            .bind(now_ms)
            .bind(org)
            .fetch_one(&mut *tx)
            .await?;
        insert_revision!(tx, app_id, 1_i64, author, Change::CreatedApp.summary(), now_ms, head, "[]", Vec::new())
            .await?;
        tx.commit().await?;
        db.configs().put(app_id, 1, created);
        Ok(app_id)
    })
}

/// The organization's apps, most recently updated first, with their tool counts.
pub async fn list_for_org(db: &Db, org: i64) -> Result<Vec<AppSummary>, sqlx::Error> {
    let rows: Vec<(String, String, i64, i64)> = on_db!(db, pool => sqlx::query_as(
        "SELECT package_name, name, tool_count, updated_at FROM apps \
         WHERE org_id = $1 ORDER BY updated_at DESC, package_name",
    )
    .bind(org)
    .fetch_all(pool)
    .await)?;
    Ok(rows
        .into_iter()
        .map(|(package_name, name, tool_count, updated_at)| AppSummary {
            package_name,
            name,
            tool_count,
            updated_at,
        })
        .collect())
}

/// The app with this package name and `developer`'s role in its
/// organization, if they are a member of it. Anyone else's app is `None`,
/// exactly like an unknown one.
pub async fn find_for_member(
    db: &Db,
    developer: i64,
    package_name: &str,
) -> Result<Option<(StoredApp, Role)>, sqlx::Error> {
    let row: Option<MemberAppRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT a.id, a.org_id, a.package_name, a.name, a.description, a.version, a.public_url, a.revision, \
         a.updated_at, m.role \
         FROM apps a JOIN org_members m ON m.org_id = a.org_id AND m.developer_id = $1 \
         WHERE a.package_name = $2",
    )
    .bind(developer)
    .bind(package_name)
    .fetch_optional(pool)
    .await)?;
    row.map(|row| {
        let role = Role::parse(&row.role)
            .ok_or_else(|| sqlx::Error::Decode(format!("unknown role {:?}", row.role).into()))?;
        Ok((StoredApp::from(row.app), role))
    })
    .transpose()
}

#[derive(sqlx::FromRow)]
struct MemberAppRow {
    #[sqlx(flatten)]
    app: AppRow,
    role: String,
}

/// Moves app `app_id` to organization `org`, if developer `by` is still an
/// admin of both. Nothing of the app changes, so its revision stays; its
/// API keys made by someone who is not a member of `org` are revoked (they
/// no longer speak for anyone who may reach it).
pub async fn move_to(
    db: &Db,
    app_id: i64,
    org: i64,
    by: i64,
    now_ms: i64,
) -> Result<(), WriteError> {
    in_transaction!(db, tx => {
        may_write!(tx, Scope::App(app_id), by, Action::MoveApp).await?;
        may_write!(tx, Scope::Org(org), by, Action::MoveApp).await?;
        sqlx::query("UPDATE apps SET org_id = $1 WHERE id = $2")
            .bind(org)
            .bind(app_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE api_keys SET revoked_at = $1 WHERE app_id = $2 AND revoked_at IS NULL \
             AND COALESCE(created_by, (SELECT owner_id FROM apps WHERE id = $2)) NOT IN \
                 (SELECT developer_id FROM org_members WHERE org_id = $3)",
        )
        .bind(now_ms)
        .bind(app_id)
        .bind(org)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    })
}

/// The app with this package name, whoever owns it (for API keys, which
/// are checked against the app they belong to).
pub async fn find_by_package(
    db: &Db,
    package_name: &str,
) -> Result<Option<StoredApp>, sqlx::Error> {
    let row: Option<AppRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT id, org_id, package_name, name, description, version, public_url, revision, updated_at \
         FROM apps WHERE package_name = $1",
    )
    .bind(package_name)
    .fetch_optional(pool)
    .await)?;
    Ok(row.map(StoredApp::from))
}

/// The app's whole configuration at the revision it was loaded at (`app`),
/// as the pages and exports show it. Deleted meanwhile (its revisions with
/// it), it has its fields and no tools.
pub async fn load_config(db: &Db, app: &StoredApp) -> Result<Arc<AppConfig>, sqlx::Error> {
    let revision = app.details.revision;
    if let Some(snapshot) = revisions::at(db, app.id, revision).await? {
        return Ok(snapshot.config.clone());
    }
    Ok(Arc::new(AppConfig {
        name: app.details.name.clone(),
        description: app.details.description.clone(),
        version: app.details.version.clone(),
        public_url: app.details.public_url.clone(),
        ..AppConfig::default()
    }))
}

/// Saves the app's own fields (never its package name) from a form loaded
/// at `fields_revision`: at that revision, or, when the app has moved on
/// since only by changes that left these fields as they were (tools,
/// settings), on top of them — such changes cannot be lost by saving the
/// fields. A change to the fields since then is [`Revised::Stale`]. `app`
/// is the app as read for this request.
pub async fn update_fields(
    db: &Db,
    app: &StoredApp,
    fields_revision: i64,
    input: &AppInput,
    author: &CurrentDeveloper,
    now_ms: i64,
) -> Result<Revised, WriteError> {
    let mut base = fields_revision;
    if fields_revision < app.details.revision {
        let unchanged = revisions::get(db, app.id, fields_revision)
            .await?
            .is_some_and(|then| then.config.has_fields_of(&app.details));
        if !unchanged {
            return Ok(Revised::Stale);
        }
        // Still checked: a change after `app` was read makes this stale too.
        base = app.details.revision;
    }
    update(db, app.id, base, input, author, now_ms).await
}

/// Updates the app's own fields (never its package name) if it is still at
/// `expected_revision`, as its next revision.
pub async fn update(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    input: &AppInput,
    author: &CurrentDeveloper,
    now_ms: i64,
) -> Result<Revised, WriteError> {
    let revised = revisions::revise(db, app_id, expected_revision, author, now_ms, |config| {
        config.name = input.name.clone();
        config.description = input.description.clone();
        config.version = input.version.clone();
        config.public_url = input.public_url.clone();
        Ok::<_, std::convert::Infallible>(Change::EditedDetails)
    })
    .await?;
    Ok(revised.unwrap_or_else(|never| match never {}))
}

/// Deletes app `app_id` and, by cascade, its tools, if developer `by` may
/// still delete it. Deleted already (by someone else, meanwhile), it is
/// refused as gone, in words.
pub async fn delete(db: &Db, app_id: i64, by: i64) -> Result<bool, WriteError> {
    let deleted: Option<i64> = in_transaction!(db, tx => {
        may_write!(tx, Scope::App(app_id), by, Action::DeleteApp).await?;
        let deleted = sqlx::query_scalar("DELETE FROM apps WHERE id = $1 RETURNING id")
            .bind(app_id)
            .fetch_optional(&mut *tx)
            .await?;
        tx.commit().await?;
        deleted
    });
    if let Some(app_id) = deleted {
        // Its configuration is never asked for again: free the memory.
        db.configs().forget(app_id);
    }
    Ok(deleted.is_some())
}
