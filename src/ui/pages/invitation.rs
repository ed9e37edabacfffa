//! `/invitations/{token}`: what an invitation link offers, and "Join".

use crate::{
    api::{
        orgs::{get_invitation, JoinOrg},
        AppError,
    },
    domain::{
        org::{InvitationState, InvitationView},
        url::encode_component,
    },
    ui::{
        components::{
            form::{url_error, FormAlert},
            status_page::AppErrorView,
        },
        session::current_developer,
    },
};
use leptos::{prelude::*, server_fn::ServerFn};
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

/// `/invitations/{token}`: what the link offers, and "Join" for the
/// signed-in developer (or links to log in or sign up that come back here).
#[component]
pub fn InvitationPage() -> impl IntoView {
    let token = use_params_map()
        .read_untracked()
        .get("token")
        .unwrap_or_default();
    let join_error = url_error::<JoinOrg>();
    let signed_in = current_developer();
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {
                let token = token.clone();
                let join_error = join_error.clone();
                let signed_in = signed_in.clone();
                Suspend::new(async move {
                    match get_invitation(token.clone()).await {
                        Err(AppError::NotFound) => view! {
                            <crate::ui::components::status_page::StatusPage
                                status=404
                                title="Invitation not found"
                                message="This invitation link is not valid. Ask an admin of the organization for a new one."
                            />
                        }
                            .into_any(),
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok(invitation) => view! {
                            <InvitationView
                                invitation
                                token
                                signed_in=signed_in.map(|d| d.email)
                                join_error
                            />
                        }
                            .into_any(),
                    }
                })
            }
        </Suspense>
    }
}

#[component]
fn InvitationView(
    invitation: InvitationView,
    token: String,
    signed_in: Option<String>,
    join_error: Option<AppError>,
) -> impl IntoView {
    let here = format!("/invitations/{token}");
    let next = encode_component(&here);
    let body = match (invitation.state, signed_in) {
        (InvitationState::Pending, None) => view! {
            <p>"Log in or sign up as " <strong>{invitation.email.clone()}</strong> " to join."</p>
            <div class="card-actions">
                <a class="button primary" href=format!("/login?next={next}")>"Log in"</a>
                <a class="button" href=format!("/signup?next={next}")>"Sign up"</a>
            </div>
        }
        .into_any(),
        (InvitationState::Pending, Some(email)) => view! {
            <form method="post" action=JoinOrg::PATH class="stack" aria-label="Join">
                <FormAlert message=Signal::stored(join_error.map(|e| e.to_string()))/>
                {if email == invitation.email {
                    view! { <p>"You are logged in as " <strong>{email}</strong> "."</p> }.into_any()
                } else {
                    view! {
                        <p>
                            "You are logged in as " <strong>{email}</strong> ", but the invitation is for "
                            <strong>{invitation.email.clone()}</strong> ": log in with that account to join."
                        </p>
                    }
                        .into_any()
                }}
                <input type="hidden" name="token" value=token/>
                <div class="form-actions">
                    <button type="submit" class="primary">"Join"</button>
                </div>
            </form>
        }
        .into_any(),
        (state, _) => view! {
            <p class="alert" role="alert">{state.message().unwrap_or_default()}</p>
            <p>"Ask an admin of the organization for a new link."</p>
        }
        .into_any(),
    };
    view! {
        <Title text=format!("Join {}", invitation.org_name)/>
        <section class="card narrow stack" aria-labelledby="invitation-title">
            <h1 id="invitation-title">{format!("Join {}", invitation.org_name)}</h1>
            <p>
                "You are invited to the organization " <strong>{invitation.org_name.clone()}</strong>
                " as " <strong>{invitation.role.as_str()}</strong> "."
            </p>
            {body}
        </section>
    }
}
