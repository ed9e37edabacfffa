use crate::{
    domain::{
        account::CurrentDeveloper,
        org::{Memberships, OrgSummary},
    },
    in_transaction, on_db,
    server::db::Db,
};

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

/// Inserts a developer with their personal organization; a taken email fails with a unique violation
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
        // Their personal organization, where their first apps go: called
        // "Personal" (the header names them already), its address made from
        // their email, which is theirs alone.
        insert_org!(tx, crate::domain::org::PERSONAL, email, id, now_ms).await?;
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

/// The signed-in developer `id` with the organizations they belong to (by
/// name) and their current one: one query, made on every request.
pub async fn find_signed_in(
    db: &Db,
    id: i64,
) -> Result<Option<(CurrentDeveloper, Memberships)>, sqlx::Error> {
    type Row = (
        i64,
        String,
        Option<i64>,
        Option<i64>,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    let rows: Vec<Row> = on_db!(db, pool => sqlx::query_as(
        "SELECT d.id, d.email, d.current_org_id, o.id, o.slug, o.name, m.role \
         FROM developers d LEFT JOIN org_members m ON m.developer_id = d.id \
         LEFT JOIN organizations o ON o.id = m.org_id \
         WHERE d.id = $1 ORDER BY o.name, o.id",
    )
    .bind(id)
    .fetch_all(pool)
    .await)?;
    let Some((id, email, current_id, ..)) = rows.first().cloned() else {
        return Ok(None);
    };
    let mut orgs = Vec::new();
    for (_, _, _, org, slug, name, role) in rows {
        if let (Some(id), Some(slug), Some(name), Some(role)) = (org, slug, name, role) {
            let role = super::orgs::parse_role(&role)?;
            orgs.push(OrgSummary {
                id,
                slug,
                name,
                role,
            });
        }
    }
    Ok(Some((
        CurrentDeveloper { id, email },
        Memberships { orgs, current_id },
    )))
}
