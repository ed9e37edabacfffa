//! Statements and rows shared by the repositories inside their transactions.
//! The statements are macros so that the same text serves both backends:
//! each expands inside an `in_transaction!` arm, where `$tx` is that
//! backend's transaction.

/// Whether `error` is a violated UNIQUE constraint (on either backend).
pub fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|e| e.is_unique_violation())
}

/// A multi-row insert for the backend of `tx` (its placeholders, its types).
pub(crate) fn insert_into<'args, DB: sqlx::Database>(
    _tx: &sqlx::Transaction<'_, DB>,
    head: &str,
) -> sqlx::QueryBuilder<'args, DB> {
    sqlx::QueryBuilder::new(head)
}

/// Whether `tx` is a PostgreSQL transaction (which locks rows on request;
/// SQLite's write transactions, begun `IMMEDIATE`, hold the whole database).
pub(crate) fn is_postgres<DB: sqlx::Database>(_tx: &sqlx::Transaction<'_, DB>) -> bool {
    DB::NAME == "PostgreSQL"
}

/// Reads again, inside the write's transaction `$tx`, whether developer
/// `$developer` may still do `$action` within `$scope` (a
/// [`Scope`](super::Scope)), and holds that answer until `$tx` ends: on
/// PostgreSQL the app's or organization's row is locked against other
/// writes and the membership against removal and change of role (a removal,
/// demotion, move or deletion waits for this write, or this write sees its
/// outcome); on SQLite the write transaction already excludes every other.
/// Evaluates to `Result<Role, WriteError>`: a permission that ended is
/// [`WriteError::Refused`](super::WriteError) with its reason in words.
macro_rules! may_write {
    ($tx:ident, $scope:expr, $developer:expr, $action:expr) => {
        async {
            use $crate::domain::org::{allow_at_write, Standing};
            let scope: $crate::server::repo::Scope = $scope;
            let postgres = $crate::server::repo::sql::is_postgres(&$tx);
            let org: Result<i64, Standing> = match scope {
                $crate::server::repo::Scope::App(app_id) => {
                    let found: Option<Option<i64>> = sqlx::query_scalar(if postgres {
                        "SELECT org_id FROM apps WHERE id = $1 FOR NO KEY UPDATE"
                    } else {
                        "SELECT org_id FROM apps WHERE id = $1"
                    })
                    .bind(app_id)
                    .fetch_optional(&mut *$tx)
                    .await?;
                    found.flatten().ok_or(Standing::AppGone)
                }
                $crate::server::repo::Scope::Org(org) => {
                    let found: Option<i64> = sqlx::query_scalar(if postgres {
                        "SELECT id FROM organizations WHERE id = $1 FOR NO KEY UPDATE"
                    } else {
                        "SELECT id FROM organizations WHERE id = $1"
                    })
                    .bind(org)
                    .fetch_optional(&mut *$tx)
                    .await?;
                    found.ok_or(Standing::OrgGone)
                }
            };
            let not_member = match scope {
                $crate::server::repo::Scope::App(_) => Standing::OutOfReach,
                $crate::server::repo::Scope::Org(_) => Standing::NotMember,
            };
            let standing = match org {
                Err(gone) => gone,
                Ok(org) => {
                    let role: Option<String> = sqlx::query_scalar(if postgres {
                        "SELECT role FROM org_members WHERE org_id = $1 AND developer_id = $2 FOR SHARE"
                    } else {
                        "SELECT role FROM org_members WHERE org_id = $1 AND developer_id = $2"
                    })
                    .bind(org)
                    .bind($developer)
                    .fetch_optional(&mut *$tx)
                    .await?;
                    role.map_or(not_member, Standing::Role)
                }
            };
            allow_at_write(&standing, $action).map_err($crate::server::repo::WriteError::Refused)
        }
    };
}

/// The id for a new row of `$table` on SQLite (`Result<i64>`), from
/// `$sequence`, a table of one AUTOINCREMENT column (migrations 0007 and
/// 0010): SQLite alone gives the next row the highest id once that row is
/// deleted, and a sequence never hands out an id twice. Past the highest id
/// in `$table` too, in case a row was added there some other way (by hand,
/// say), so that the id is free. In `$tx`, whose rollback takes the id back.
/// (Compiled for PostgreSQL too, where it is never run: identity columns
/// never repeat an id.)
macro_rules! next_sqlite_id {
    ($tx:ident, $table:literal, $sequence:literal) => {
        async {
            let id: i64 = sqlx::query_scalar(concat!(
                "INSERT INTO ",
                $sequence,
                " (id) VALUES (MAX(COALESCE((SELECT MAX(id) FROM ",
                $table,
                "), 0), COALESCE((SELECT seq FROM sqlite_sequence WHERE name = '",
                $sequence,
                "'), 0)) + 1) RETURNING id"
            ))
            .fetch_one(&mut *$tx)
            .await?;
            sqlx::query(concat!("DELETE FROM ", $sequence))
                .execute(&mut *$tx)
                .await?;
            Ok::<i64, sqlx::Error>(id)
        }
    };
}

/// Inserts revision `$revision` of the app in `$tx`: by `$author`, with
/// `$summary`, the app's own fields `$head`, its tools' digests `$digests`
/// (a JSON list), and the tool bodies `$bodies` not stored yet (those
/// stored already are left as they are).
macro_rules! insert_revision {
    ($tx:ident, $app_id:expr, $revision:expr, $author:expr, $summary:expr, $now:expr, $head:expr, $digests:expr, $bodies:expr) => {
        async {
            let bodies: Vec<$crate::server::repo::revisions::StoredTool> = $bodies;
            if !bodies.is_empty() {
                let mut insert = $crate::server::repo::sql::insert_into(
                    &$tx,
                    "INSERT INTO revision_tools (app_id, digest, body) ",
                );
                insert.push_values(&bodies, |mut row, (digest, body)| {
                    row.push_bind($app_id).push_bind(digest).push_bind(body);
                });
                insert.push(" ON CONFLICT (app_id, digest) DO NOTHING");
                insert.build().execute(&mut *$tx).await?;
            }
            sqlx::query(
                "INSERT INTO app_revisions \
                 (app_id, revision, author_id, author_email, created_at, summary, snapshot, tool_digests) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind($app_id)
            .bind($revision)
            .bind($author.id)
            .bind(&$author.email)
            .bind($now)
            .bind($summary)
            .bind($head)
            .bind($digests)
            .execute(&mut *$tx)
            .await?;
            Ok::<_, sqlx::Error>(())
        }
    };
}

/// Makes organization `$name` in `$tx` with `$developer` (an id) as its
/// admin and their current organization: its slug is made from `$slug_of`
/// (its name, or a personal organization's owner's email), numbered if
/// taken. Evaluates to `(id, slug)`.
macro_rules! insert_org {
    ($tx:ident, $name:expr, $slug_of:expr, $developer:expr, $now:expr) => {
        async {
            let base = $crate::domain::org::slugify($slug_of);
            let mut taken: Vec<String> = sqlx::query_scalar(
                "SELECT slug FROM organizations WHERE slug = $1 OR slug LIKE $2",
            )
            .bind(&base)
            .bind(format!("{base}-%"))
            .fetch_all(&mut *$tx)
            .await?;
            // A slug taken in the meantime by another transaction (two
            // sign-ups whose emails make the same slug): the next one.
            let (id, slug) = loop {
                let slug = $crate::domain::org::unique_slug(&base, &taken);
                let made: Option<i64> = sqlx::query_scalar(
                    "INSERT INTO organizations (name, slug, created_at) VALUES ($1, $2, $3) \
                     ON CONFLICT (slug) DO NOTHING RETURNING id",
                )
                .bind($name)
                .bind(&slug)
                .bind($now)
                .fetch_optional(&mut *$tx)
                .await?;
                match made {
                    Some(id) => break (id, slug),
                    None => taken.push(slug),
                }
            };
            sqlx::query(
                "INSERT INTO org_members (org_id, developer_id, role, joined_at) VALUES ($1, $2, 'admin', $3)",
            )
            .bind(id)
            .bind($developer)
            .bind($now)
            .execute(&mut *$tx)
            .await?;
            sqlx::query("UPDATE developers SET current_org_id = $1 WHERE id = $2")
                .bind(id)
                .bind($developer)
                .execute(&mut *$tx)
                .await?;
            Ok::<(i64, String), sqlx::Error>((id, slug))
        }
    };
}
