//! Organizations, their members and their invitations. Who may call what
//! is decided above (`server::access`) and asked again inside each write
//! (`may_write!`); the rule that an organization keeps an admin is checked
//! here, inside the transaction that would break it.

use super::{api_keys, Scope, WriteError};
use crate::{
    domain::org::{
        leaves_no_admin, Action, InvitationState, InvitationView, Member, OrgPage,
        PendingInvitation, Role, INVITATION_MS,
    },
    in_transaction, on_db, on_writer,
    server::db::Db,
};

/// An organization as a lookup by slug finds it, with the asker's role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrgRef {
    pub id: i64,
    pub slug: String,
    pub name: String,
}

pub(super) fn parse_role(text: &str) -> Result<Role, sqlx::Error> {
    Role::parse(text).ok_or_else(|| sqlx::Error::Decode(format!("unknown role {text:?}").into()))
}

/// Makes an organization with `developer` as its admin; it becomes their
/// current one. Its slug.
pub async fn create(db: &Db, developer: i64, name: &str, now: i64) -> Result<String, sqlx::Error> {
    in_transaction!(db, tx => {
        let (_, slug) = insert_org!(tx, name, name, developer, now).await?;
        tx.commit().await?;
        Ok(slug)
    })
}

/// Makes `org` the current organization of `developer` (a member of it).
pub async fn set_current(db: &Db, developer: i64, org: i64) -> Result<(), sqlx::Error> {
    on_writer!(db, conn => sqlx::query(
        "UPDATE developers SET current_org_id = $1 WHERE id = $2 \
         AND EXISTS (SELECT 1 FROM org_members WHERE org_id = $1 AND developer_id = $2)",
    )
    .bind(org)
    .bind(developer)
    .execute(conn)
    .await
    .map(|_| ()))
}

/// Organization `slug` and `developer`'s role in it; `None` when there is no
/// such organization or they are not a member (the same answer).
pub async fn find_for_member(
    db: &Db,
    developer: i64,
    slug: &str,
) -> Result<Option<(OrgRef, Role)>, sqlx::Error> {
    let row: Option<(i64, String, String, String)> = on_db!(db, pool => sqlx::query_as(
        "SELECT o.id, o.slug, o.name, m.role FROM organizations o \
         JOIN org_members m ON m.org_id = o.id AND m.developer_id = $1 WHERE o.slug = $2",
    )
    .bind(developer)
    .bind(slug)
    .fetch_optional(pool)
    .await)?;
    row.map(|(id, slug, name, text)| Ok((OrgRef { id, slug, name }, parse_role(&text)?)))
        .transpose()
}

/// What the organization's page shows to `me`, whose role is `role`.
pub async fn page(
    db: &Db,
    org: &OrgRef,
    role: Role,
    me: &str,
    now: i64,
) -> Result<OrgPage, sqlx::Error> {
    let members: Vec<(String, String, i64)> = on_db!(db, pool => sqlx::query_as(
        "SELECT d.email, m.role, m.joined_at FROM org_members m \
         JOIN developers d ON d.id = m.developer_id WHERE m.org_id = $1 ORDER BY d.email",
    )
    .bind(org.id)
    .fetch_all(pool)
    .await)?;
    let invitations = if role.may(crate::domain::org::Action::Invite) {
        pending(db, org.id, now).await?
    } else {
        Vec::new()
    };
    let app_count: i64 = on_db!(db, pool => sqlx::query_scalar(
        "SELECT COUNT(*) FROM apps WHERE org_id = $1",
    )
    .bind(org.id)
    .fetch_one(pool)
    .await)?;
    Ok(OrgPage {
        slug: org.slug.clone(),
        name: org.name.clone(),
        role,
        members: members
            .into_iter()
            .map(|(email, text, joined_at)| {
                Ok(Member {
                    email,
                    role: parse_role(&text)?,
                    joined_at,
                })
            })
            .collect::<Result<_, sqlx::Error>>()?,
        invitations,
        app_count,
        me: me.to_owned(),
        invitation_link: None,
        providers: super::providers::list(db, org.id).await?,
        providers_enabled: false,
    })
}

async fn pending(db: &Db, org: i64, now: i64) -> Result<Vec<PendingInvitation>, sqlx::Error> {
    let rows: Vec<(String, String, i64)> = on_db!(db, pool => sqlx::query_as(
        "SELECT email, role, expires_at FROM org_invitations \
         WHERE org_id = $1 AND accepted_at IS NULL AND cancelled_at IS NULL AND expires_at > $2 \
         ORDER BY email",
    )
    .bind(org)
    .bind(now)
    .fetch_all(pool)
    .await)?;
    rows.into_iter()
        .map(|(email, text, expires_at)| {
            Ok(PendingInvitation {
                email,
                role: parse_role(&text)?,
                expires_at,
            })
        })
        .collect()
}

/// How a change to a member came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberChange {
    Done,
    NoSuchMember,
    /// Refused: the organization would be left without an admin.
    LastAdmin,
}

/// Gives member `email` of `org` the role `to` (`None`: removes them),
/// if developer `by` may still do `action` (an admin's change, or leaving),
/// unless that leaves the organization without an admin.
pub async fn change_member(
    db: &Db,
    org: i64,
    email: &str,
    to: Option<Role>,
    (by, action): (i64, Action),
    now: i64,
) -> Result<MemberChange, WriteError> {
    in_transaction!(db, tx => {
        // Also takes the organization's row (on PostgreSQL): changes to its
        // members run one at a time, so the last admin stays counted.
        may_write!(tx, Scope::Org(org), by, action).await?;
        let target: Option<(i64, String)> = sqlx::query_as(
            "SELECT m.developer_id, m.role FROM org_members m \
             JOIN developers d ON d.id = m.developer_id WHERE m.org_id = $1 AND d.email = $2",
        )
        .bind(org)
        .bind(email)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((developer, text)) = target else {
            return Ok(MemberChange::NoSuchMember);
        };
        let admins: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM org_members WHERE org_id = $1 AND role = 'admin'",
        )
        .bind(org)
        .fetch_one(&mut *tx)
        .await?;
        if leaves_no_admin(admins, parse_role(&text)? == Role::Admin, to == Some(Role::Admin)) {
            return Ok(MemberChange::LastAdmin);
        }
        match to {
            Some(to) => {
                sqlx::query("UPDATE org_members SET role = $1 WHERE org_id = $2 AND developer_id = $3")
                    .bind(to.as_str())
                    .bind(org)
                    .bind(developer)
                    .execute(&mut *tx)
                    .await?;
            }
            None => {
                sqlx::query("DELETE FROM org_members WHERE org_id = $1 AND developer_id = $2")
                    .bind(org)
                    .bind(developer)
                    .execute(&mut *tx)
                    .await?;
                // Their keys of the organization's apps stop working with
                // them (a key from before keys recorded their maker speaks
                // for the app's creator).
                sqlx::query(
                    "UPDATE api_keys SET revoked_at = $1 WHERE revoked_at IS NULL \
                     AND app_id IN (SELECT id FROM apps WHERE org_id = $3) \
                     AND COALESCE(created_by, (SELECT owner_id FROM apps WHERE apps.id = api_keys.app_id)) = $2",
                )
                .bind(now)
                .bind(developer)
                .bind(org)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(MemberChange::Done)
    })
}

/// Whether `email` is already a member of `org`.
pub async fn has_member(db: &Db, org: i64, email: &str) -> Result<bool, sqlx::Error> {
    on_db!(db, pool => sqlx::query_scalar::<_, bool>(
        "SELECT EXISTS (SELECT 1 FROM org_members m JOIN developers d ON d.id = m.developer_id \
         WHERE m.org_id = $1 AND d.email = $2)",
    )
    .bind(org)
    .bind(email)
    .fetch_one(pool)
    .await)
}

/// A new invitation link's token: 32 random bytes in hex (only its hash is stored).
pub fn new_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Invites `email` to `org` as `role` with the link of `token`, valid
/// for [`INVITATION_MS`] from `now`, if developer `invited_by` may still
/// invite: any earlier pending invitation of the same email is cancelled (a
/// resend is a new invitation).
pub async fn invite(
    db: &Db,
    org: i64,
    email: &str,
    role: Role,
    token: &str,
    invited_by: i64,
    now: i64,
) -> Result<(), WriteError> {
    let expires_at = now + INVITATION_MS;
    in_transaction!(db, tx => {
        // Also takes the organization's row (on PostgreSQL): one pending
        // invitation per email.
        may_write!(tx, Scope::Org(org), invited_by, Action::Invite).await?;
        sqlx::query(
            "UPDATE org_invitations SET cancelled_at = $1 \
             WHERE org_id = $2 AND email = $3 AND accepted_at IS NULL AND cancelled_at IS NULL",
        )
        .bind(now)
        .bind(org)
        .bind(email)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO org_invitations (org_id, email, role, token_hash, invited_by, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(org)
        .bind(email)
        .bind(role.as_str())
        .bind(api_keys::hash(token))
        .bind(invited_by)
        .bind(now)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    })
}

/// The role `email`'s pending invitation to `org` offers, if there is one.
pub async fn pending_role(
    db: &Db,
    org: i64,
    email: &str,
    now: i64,
) -> Result<Option<Role>, sqlx::Error> {
    let text: Option<String> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT role FROM org_invitations WHERE org_id = $1 AND email = $2 \
         AND accepted_at IS NULL AND cancelled_at IS NULL AND expires_at > $3 \
         ORDER BY created_at DESC LIMIT 1",
    )
    .bind(org)
    .bind(email)
    .bind(now)
    .fetch_optional(pool)
    .await)?;
    text.map(|text| parse_role(&text)).transpose()
}

/// Cancels `email`'s pending invitations to `org`, if developer `by` may
/// still manage invitations; whether there was one.
pub async fn cancel(db: &Db, org: i64, email: &str, by: i64, now: i64) -> Result<bool, WriteError> {
    in_transaction!(db, tx => {
        may_write!(tx, Scope::Org(org), by, Action::Invite).await?;
        let done = sqlx::query(
            "UPDATE org_invitations SET cancelled_at = $1 \
             WHERE org_id = $2 AND email = $3 AND accepted_at IS NULL AND cancelled_at IS NULL",
        )
        .bind(now)
        .bind(org)
        .bind(email)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    })
}

/// The invitation whose link holds `token`, as its page shows it.
pub async fn invitation(
    db: &Db,
    token: &str,
    now: i64,
) -> Result<Option<InvitationView>, sqlx::Error> {
    type Row = (
        String,
        String,
        String,
        String,
        Option<i64>,
        Option<i64>,
        i64,
    );
    let row: Option<Row> = on_db!(db, pool => sqlx::query_as(
        "SELECT o.name, o.slug, i.email, i.role, i.accepted_at, i.cancelled_at, i.expires_at \
         FROM org_invitations i JOIN organizations o ON o.id = i.org_id WHERE i.token_hash = $1",
    )
    .bind(api_keys::hash(token))
    .fetch_optional(pool)
    .await)?;
    row.map(
        |(org_name, org_slug, email, text, accepted, cancelled, expires)| {
            Ok(InvitationView {
                org_name,
                org_slug,
                email,
                role: parse_role(&text)?,
                state: InvitationState::of(accepted, cancelled, expires, now),
            })
        },
    )
    .transpose()
}

/// Accepts the invitation of `token` for `developer` whose email is
/// `email`: they join as its role (a member already keeps their role) and
/// the organization becomes their current one. Its slug; `None` if the
/// invitation is not pending or is for another email (it stays usable).
pub async fn accept(
    db: &Db,
    token: &str,
    developer: i64,
    email: &str,
    now: i64,
) -> Result<Option<String>, sqlx::Error> {
    in_transaction!(db, tx => {
        let accepted: Option<(i64, String)> = sqlx::query_as(
            "UPDATE org_invitations SET accepted_at = $1, accepted_by = $2 \
             WHERE token_hash = $3 AND email = $4 \
             AND accepted_at IS NULL AND cancelled_at IS NULL AND expires_at > $1 \
             RETURNING org_id, role",
        )
        .bind(now)
        .bind(developer)
        .bind(api_keys::hash(token))
        .bind(email)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((org, text)) = accepted else {
            return Ok(None);
        };
        sqlx::query(
            "INSERT INTO org_members (org_id, developer_id, role, joined_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (org_id, developer_id) DO NOTHING",
        )
        .bind(org)
        .bind(developer)
        .bind(parse_role(&text)?.as_str())
        .bind(now)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE developers SET current_org_id = $1 WHERE id = $2")
            .bind(org)
            .bind(developer)
            .execute(&mut *tx)
            .await?;
        let slug: String = sqlx::query_scalar("SELECT slug FROM organizations WHERE id = $1")
            .bind(org)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Some(slug))
    })
}

/// How deleting an organization came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrgDeletion {
    Deleted,
    /// Refused: it still has apps.
    HasApps,
}

/// Deletes `org` with its memberships and invitations, if developer `by`
/// is still an admin of it, unless it has apps.
pub async fn delete(db: &Db, org: i64, by: i64) -> Result<OrgDeletion, WriteError> {
    in_transaction!(db, tx => {
        // Also takes the organization's row (on PostgreSQL): an app being
        // made or moved into it waits, and is then refused as gone.
        may_write!(tx, Scope::Org(org), by, Action::DeleteOrganization).await?;
        let apps: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM apps WHERE org_id = $1")
            .bind(org)
            .fetch_one(&mut *tx)
            .await?;
        if apps > 0 {
            return Ok(OrgDeletion::HasApps);
        }
        sqlx::query("DELETE FROM organizations WHERE id = $1")
            .bind(org)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(OrgDeletion::Deleted)
    })
}
