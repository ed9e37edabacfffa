//! The one answer to "may this developer do this to this app (or this
//! organization)": every server function, page and console route asks here.
//! The rule is `domain::org` (which role may do what); this module looks up
//! the membership it applies to.
//!
//! Someone outside the organization gets [`AppError::NotFound`] — the same
//! as for an app that does not exist, so that they cannot tell which exist;
//! a member asking for an admin's action gets [`AppError::NotAllowed`] with
//! what only an admin can do, and nothing changes.
//!
//! This is the check a request makes on its way in. A write asks again
//! inside its own transaction (`may_write!` in `repo/sql.rs`, with the same
//! rule, [`crate::domain::org::allow_at_write`]), so that a membership that
//! ends while the request is on its way ends its permission too.

use super::{db::Db, internal, repo};
use crate::domain::{
    account::CurrentDeveloper,
    org::{Action, Role},
    AppError,
};

/// App `package_name`, if `developer` may do `action` to it, and their role.
pub async fn app(
    db: &Db,
    developer: &CurrentDeveloper,
    package_name: &str,
    action: Action,
) -> Result<(repo::apps::StoredApp, Role), AppError> {
    let (app, role) = repo::apps::find_for_member(db, developer.id, package_name.trim())
        .await
        .map_err(internal)?
        .ok_or(AppError::NotFound)?;
    allow(role, action)?;
    Ok((app, role))
}

/// Organization `slug`, if `developer` may do `action` to it, and their role.
pub async fn org(
    db: &Db,
    developer: &CurrentDeveloper,
    slug: &str,
    action: Action,
) -> Result<(repo::orgs::OrgRef, Role), AppError> {
    let (org, role) = repo::orgs::find_for_member(db, developer.id, slug.trim())
        .await
        .map_err(internal)?
        .ok_or(AppError::NotFound)?;
    allow(role, action)?;
    Ok((org, role))
}

use crate::domain::org::allow;
