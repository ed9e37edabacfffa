//! Organizations: create, switch, members and their roles, invitations,
//! moving an app. The organization pages are plain HTML forms, so each
//! function ends by sending the browser back to a page that says what
//! happened.

use super::AppError;
#[cfg(feature = "ssr")]
use crate::domain::org::{Action, Role};
use crate::domain::org::{InvitationView, OrgPage};
use leptos::prelude::*;

/// The session key holding an invitation link made a moment ago, with the
/// slug of its organization, until that organization's page shows it (once).
#[cfg(feature = "ssr")]
const NEW_INVITATION_LINK: &str = "new_invitation_link";

#[cfg(feature = "ssr")]
fn org_url(slug: &str, query: &str) -> String {
    let slug = crate::domain::url::encode_component(slug);
    if query.is_empty() {
        format!("/console/orgs/{slug}")
    } else {
        format!("/console/orgs/{slug}?{query}")
    }
}

#[cfg(feature = "ssr")]
fn with_email(key: &str, email: &str) -> String {
    format!("{key}={}", crate::domain::url::encode_component(email))
}

/// Makes an organization with the signed-in developer as its admin; it
/// becomes their current one, and its page opens.
#[server(prefix = "/api", endpoint = "orgs/create")]
pub async fn create_org(name: String) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{org::check_org_name, FieldErrors},
        server::{clock::now_ms, repo},
    };
    let developer = context::require_developer()?;
    let name = check_org_name(&name)
        .map_err(|message| FieldErrors::single("name", message).with_echo("name", name.trim()))?;
    let state = context::state()?;
    let slug = repo::orgs::create(&state.db, developer.id, &name, now_ms())
        .await
        .map_err(context::internal)?;
    tracing::info!(developer = developer.id, %slug, "organization created");
    leptos_axum::redirect(&org_url(&slug, "created=1"));
    Ok(())
}

/// Makes organization `slug` (of which the developer is a member) the
/// current one and shows its apps.
#[server(prefix = "/api", endpoint = "orgs/switch")]
pub async fn switch_org(slug: String) -> Result<(), AppError> {
    use crate::{api::context, server::repo};
    let state = context::state()?;
    let (developer, org, _) = context::org_for(&state, &slug, Action::Read).await?;
    repo::orgs::set_current(&state.db, developer.id, org.id)
        .await
        .map_err(context::internal)?;
    leptos_axum::redirect("/console/apps");
    Ok(())
}

/// The organization's page: its members, and for an admin its pending
/// invitations and the link of one just made.
#[server(prefix = "/api", endpoint = "orgs/page")]
pub async fn get_org_page(slug: String) -> Result<OrgPage, AppError> {
    use crate::{
        api::context,
        server::{clock::now_ms, repo},
    };
    let state = context::state()?;
    let (developer, org, role) = context::org_for(&state, &slug, Action::Read).await?;
    let mut page = repo::orgs::page(&state.db, &org, role, &developer.email, now_ms())
        .await
        .map_err(context::internal)?;
    page.providers_enabled = state.secret.is_some();
    if role.may(Action::Invite) {
        let session = context::session()?;
        let made = session
            .remove::<(String, String)>(NEW_INVITATION_LINK)
            .await
            .map_err(context::internal)?;
        match made {
            Some((made_for, link)) if made_for == org.slug => page.invitation_link = Some(link),
            // Made on another organization's page: kept for it.
            Some(other) => session
                .insert(NEW_INVITATION_LINK, other)
                .await
                .map_err(context::internal)?,
            None => {}
        }
    }
    Ok(page)
}

/// Gives member `email` the role `role`. The last admin keeps theirs.
#[server(prefix = "/api", endpoint = "orgs/role")]
pub async fn change_role(slug: String, email: String, role: String) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{account::normalize_email, org::LAST_ADMIN_MESSAGE, FieldErrors},
        server::repo::{self, orgs::MemberChange},
    };
    let state = context::state()?;
    let (developer, org, _) = context::org_for(&state, &slug, Action::ManageMembers).await?;
    let role =
        Role::parse(&role).ok_or_else(|| FieldErrors::single("role", "Choose admin or member"))?;
    let email = normalize_email(&email);
    match repo::orgs::change_member(
        &state.db,
        org.id,
        &email,
        Some(role),
        (developer.id, Action::ManageMembers),
        crate::server::clock::now_ms(),
    )
    .await?
    {
        MemberChange::Done => {}
        MemberChange::NoSuchMember => return Err(AppError::NotFound),
        MemberChange::LastAdmin => return Err(AppError::Conflict(LAST_ADMIN_MESSAGE.to_owned())),
    }
    tracing::info!(developer = developer.id, org = %org.slug, "member role changed");
    leptos_axum::redirect(&org_url(&org.slug, &with_email("changed", &email)));
    Ok(())
}

/// Removes member `email` (an admin's action; anyone may remove themselves,
/// which is leaving). Without `confirmed=yes` (no JavaScript to ask), the
/// page asks first. What they did stays in the history.
#[server(prefix = "/api", endpoint = "orgs/remove")]
pub async fn remove_member(
    slug: String,
    email: String,
    #[server(default)] confirmed: String,
) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{account::normalize_email, org::LAST_ADMIN_MESSAGE},
        server::{
            clock::now_ms,
            repo::{self, orgs::MemberChange},
        },
    };
    let state = context::state()?;
    let email = normalize_email(&email);
    let developer = context::require_developer()?;
    let leaving = email == developer.email;
    let action = if leaving {
        Action::Read
    } else {
        Action::ManageMembers
    };
    let (_, org, _) = context::org_for(&state, &slug, action).await?;
    if confirmed != "yes" {
        leptos_axum::redirect(&org_url(&org.slug, &with_email("remove", &email)));
        return Ok(());
    }
    match repo::orgs::change_member(
        &state.db,
        org.id,
        &email,
        None,
        (developer.id, action),
        now_ms(),
    )
    .await?
    {
        MemberChange::Done => {}
        MemberChange::NoSuchMember => return Err(AppError::NotFound),
        MemberChange::LastAdmin => return Err(AppError::Conflict(LAST_ADMIN_MESSAGE.to_owned())),
    }
    tracing::info!(developer = developer.id, org = %org.slug, leaving, "member removed");
    if leaving {
        leptos_axum::redirect("/console/apps");
    } else {
        leptos_axum::redirect(&org_url(&org.slug, &with_email("removed", &email)));
    }
    Ok(())
}

/// Invites `email` as `role`: the link is shown once on the organization
/// page (there is no mail server: the admin sends it). Inviting someone
/// again replaces their earlier link.
#[server(prefix = "/api", endpoint = "orgs/invite")]
pub async fn invite(slug: String, email: String, role: String) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{org::check_invite_email, FieldErrors},
        server::repo,
    };
    let state = context::state()?;
    let (developer, org, _) = context::org_for(&state, &slug, Action::Invite).await?;
    let echo = |errors: FieldErrors| {
        errors
            .with_echo("email", email.trim())
            .with_echo("role", role.trim())
    };
    let mut errors = FieldErrors::new();
    let checked = check_invite_email(&email)
        .map_err(|message| errors.add("email", message))
        .ok();
    let parsed = Role::parse(&role);
    if parsed.is_none() {
        errors.add("role", "Choose admin or member");
    }
    let (Some(address), Some(role_chosen)) = (checked, parsed) else {
        return Err(echo(errors).into());
    };
    if repo::orgs::has_member(&state.db, org.id, &address)
        .await
        .map_err(context::internal)?
    {
        return Err(echo(FieldErrors::single(
            "email",
            format!("{address} is already a member."),
        ))
        .into());
    }
    send_invitation(&state, &org, developer.id, &address, role_chosen).await?;
    tracing::info!(developer = developer.id, org = %org.slug, "invitation made");
    leptos_axum::redirect(&org_url(&org.slug, &with_email("invited", &address)));
    Ok(())
}

/// Stores a new invitation and keeps its link for the page to show once.
#[cfg(feature = "ssr")]
async fn send_invitation(
    state: &crate::server::AppState,
    org: &crate::server::repo::orgs::OrgRef,
    by: i64,
    email: &str,
    role: Role,
) -> Result<(), AppError> {
    use crate::{
        api::context,
        server::{clock::now_ms, repo},
    };
    let token = repo::orgs::new_token().map_err(context::internal)?;
    repo::orgs::invite(&state.db, org.id, email, role, &token, by, now_ms()).await?;
    let link = format!("{}/invitations/{token}", context::console_origin());
    context::session()?
        .insert(NEW_INVITATION_LINK, (org.slug.clone(), link))
        .await
        .map_err(context::internal)?;
    Ok(())
}

/// A fresh link for `email`'s pending invitation (the old one stops working).
#[server(prefix = "/api", endpoint = "orgs/resend")]
pub async fn resend_invitation(slug: String, email: String) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::account::normalize_email,
        server::{clock::now_ms, repo},
    };
    let state = context::state()?;
    let (developer, org, _) = context::org_for(&state, &slug, Action::Invite).await?;
    let email = normalize_email(&email);
    let role = repo::orgs::pending_role(&state.db, org.id, &email, now_ms())
        .await
        .map_err(context::internal)?
        .ok_or(AppError::NotFound)?;
    send_invitation(&state, &org, developer.id, &email, role).await?;
    leptos_axum::redirect(&org_url(&org.slug, &with_email("invited", &email)));
    Ok(())
}

/// Cancels `email`'s pending invitation: its link says so from now on.
#[server(prefix = "/api", endpoint = "orgs/cancel")]
pub async fn cancel_invitation(slug: String, email: String) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::account::normalize_email,
        server::{clock::now_ms, repo},
    };
    let state = context::state()?;
    let (developer, org, _) = context::org_for(&state, &slug, Action::Invite).await?;
    let email = normalize_email(&email);
    if !repo::orgs::cancel(&state.db, org.id, &email, developer.id, now_ms()).await? {
        return Err(AppError::NotFound);
    }
    leptos_axum::redirect(&org_url(&org.slug, &with_email("cancelled", &email)));
    Ok(())
}

/// The invitation of a link, as its page shows it; anyone with the link may
/// see it (the token is the secret).
#[server(prefix = "/api", endpoint = "invitations/get")]
pub async fn get_invitation(token: String) -> Result<InvitationView, AppError> {
    use crate::{
        api::context,
        server::{clock::now_ms, repo},
    };
    let state = context::state()?;
    repo::orgs::invitation(&state.db, token.trim(), now_ms())
        .await
        .map_err(context::internal)?
        .ok_or(AppError::NotFound)
}

/// Joins the organization of an invitation link with the signed-in
/// account, which must be the invited email; it becomes the current
/// organization and its apps show.
#[server(prefix = "/api", endpoint = "invitations/join")]
pub async fn join_org(token: String) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::org::InvitationState,
        server::{clock::now_ms, repo},
    };
    let developer = context::require_developer()?;
    let state = context::state()?;
    let now = now_ms();
    let token = token.trim();
    let invitation = repo::orgs::invitation(&state.db, token, now)
        .await
        .map_err(context::internal)?
        .ok_or(AppError::NotFound)?;
    if let Some(message) = invitation.state.message() {
        return Err(AppError::Conflict(message.to_owned()));
    }
    if invitation.email != developer.email {
        return Err(AppError::NotAllowed(format!(
            "This invitation is for {}, and you are logged in as {}. Log in with {} to join.",
            invitation.email, developer.email, invitation.email
        )));
    }
    let slug = match repo::orgs::accept(&state.db, token, developer.id, &developer.email, now)
        .await
        .map_err(context::internal)?
    {
        Some(slug) => {
            tracing::info!(developer = developer.id, %slug, "joined an organization");
            slug
        }
        // Used, cancelled or expired since it was read: say which.
        None => {
            let state_now = repo::orgs::invitation(&state.db, token, now_ms())
                .await
                .map_err(context::internal)?
                .map_or(InvitationState::Cancelled, |invitation| invitation.state);
            let message = state_now
                .message()
                .unwrap_or("This invitation link no longer works.");
            return Err(AppError::Conflict(message.to_owned()));
        }
    };
    // The apps page says "You joined …" (the organization is the current one now).
    leptos_axum::redirect(&format!(
        "/console/apps?joined={}",
        crate::domain::url::encode_component(&slug)
    ));
    Ok(())
}

/// Deletes organization `slug`, which must have no apps left;
/// `confirmation` repeats its name.
#[server(prefix = "/api", endpoint = "orgs/delete")]
pub async fn delete_org(slug: String, confirmation: String) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::FieldErrors,
        server::repo::{self, orgs::OrgDeletion},
    };
    let state = context::state()?;
    let (developer, org, _) = context::org_for(&state, &slug, Action::DeleteOrganization).await?;
    if confirmation.trim() != org.name {
        return Err(FieldErrors::single(
            "confirmation",
            "Type the organization's name exactly to confirm the deletion",
        )
        .into());
    }
    match repo::orgs::delete(&state.db, org.id, developer.id).await? {
        OrgDeletion::Deleted => {}
        OrgDeletion::HasApps => {
            return Err(AppError::Conflict(
                "This organization still has apps: move or delete them first.".to_owned(),
            ))
        }
    }
    tracing::info!(developer = developer.id, org = %org.slug, "organization deleted");
    leptos_axum::redirect("/console/apps");
    Ok(())
}

/// Moves app `package_name` to organization `to` — for an admin of both.
#[server(prefix = "/api", endpoint = "apps/move")]
pub async fn move_app(
    package_name: String,
    to: String,
    #[server(default)] confirmed: String,
) -> Result<(), AppError> {
    use crate::{api::context, domain::url::encode_component, server::repo};
    let state = context::state()?;
    let (developer, app) = context::app_for(&state, &package_name, Action::MoveApp).await?;
    let (_, org, _) = context::org_for(&state, &to, Action::MoveApp).await?;
    // A plain form post without JavaScript to ask: the app page asks first.
    if context::is_plain_form_post() && confirmed != "yes" {
        leptos_axum::redirect(&format!(
            "/console/apps/{}?confirm_move={}#move-title",
            encode_component(&app.details.package_name),
            encode_component(&org.slug)
        ));
        return Ok(());
    }
    repo::apps::move_to(
        &state.db,
        app.id,
        org.id,
        developer.id,
        crate::server::clock::now_ms(),
    )
    .await?;
    tracing::info!(developer = developer.id, package = %app.details.package_name, org = %org.slug, "app moved");
    leptos_axum::redirect(&format!(
        "/console/apps/{}?moved={}",
        encode_component(&app.details.package_name),
        encode_component(&org.name)
    ));
    Ok(())
}
