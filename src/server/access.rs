//! The one answer to "may this developer do this to this app (or this
//! organization)": every server function, page and console route asks here.
//! The rule is `domain::org` (which role may do what); this module looks up
//! the membership it applies to.
//!
//! Someone outside the organization gets [`AppError::NotFound`] — the same
//! as for an app that does not exist, so that they cannot tell which exist;
//! a member asking for an admin's action gets [`AppError::NotAllowed`] with
//! what only an admin can do, and nothing changes.

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

fn allow(role: Role, action: Action) -> Result<(), AppError> {
    if role.may(action) {
        Ok(())
    } else {
        Err(AppError::NotAllowed(action.refusal().to_owned()))
    }
}
