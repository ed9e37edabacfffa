//! `/console/orgs/{slug}`: an organization's members and invitations.
//! Plain HTML forms (the console script makes the role selects apply at
//! once and asks before a removal); everything works without JavaScript.

use crate::ui::components::table::StackedTable;
use crate::{
    api::{
        orgs::{
            get_org_page, CancelInvitation, ChangeRole, DeleteOrg, Invite, RemoveMember,
            ResendInvitation,
        },
        providers::{AddProvider, RemoveProvider},
        AppError,
    },
    domain::{
        eval::ProviderSummary,
        org::{Member, OrgPage as OrgPageData, PendingInvitation, Role},
        time::format_utc,
        url::encode_component,
    },
    ui::components::{
        form::{
            field_message, initial_value, url_error, ConfirmCard, FormAlert, Notice, SelectField,
            TextField,
        },
        status_page::AppErrorView,
    },
};
use leptos::{prelude::*, server_fn::ServerFn};
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

/// The first error a plain form post of any of the organization page's
/// forms left in the URL.
fn org_page_error() -> Option<AppError> {
    url_error::<ChangeRole>()
        .or_else(url_error::<RemoveMember>)
        .or_else(url_error::<ResendInvitation>)
        .or_else(url_error::<CancelInvitation>)
        .or_else(url_error::<RemoveProvider>)
}

/// `/console/orgs/{slug}`: members (an admin changes roles and removes
/// them), invitations (an admin's), and deleting the organization.
#[component]
pub fn OrgPage() -> impl IntoView {
    let slug = use_params_map()
        .read_untracked()
        .get("slug")
        .unwrap_or_default();
    let query = use_query_map().read_untracked();
    let notice = if query.get("created").is_some() {
        Some(
            "Organization created. It is now your current organization: new apps go here."
                .to_owned(),
        )
    } else if let Some(email) = query.get("changed") {
        Some(format!("Changed the role of {email}."))
    } else if let Some(email) = query.get("removed") {
        Some(format!(
            "Removed {email}. What they did stays in the history."
        ))
    } else if let Some(email) = query.get("invited") {
        Some(format!(
            "Invited {email}. Send them the link below; it works once, for 7 days."
        ))
    } else if let Some(name) = query.get("provider_added") {
        Some(format!(
            "Added the model provider {name}. Its API key is stored sealed and is not shown again."
        ))
    } else if let Some(name) = query.get("provider_removed") {
        Some(format!("Removed the model provider {name}."))
    } else {
        query
            .get("cancelled")
            .map(|email| format!("Cancelled the invitation of {email}."))
    };
    let removing = query.get("remove");
    let removing_provider = query
        .get("remove_provider")
        .and_then(|id| id.parse::<i64>().ok());
    let provider_error = url_error::<AddProvider>();
    let error = org_page_error();
    let invite_error = url_error::<Invite>();
    let delete_error = url_error::<DeleteOrg>();
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {
                let slug = slug.clone();
                let notice = notice.clone();
                let removing = removing.clone();
                let error = error.clone();
                let invite_error = invite_error.clone();
                let delete_error = delete_error.clone();
                let provider_error = provider_error.clone();
                Suspend::new(async move {
                    match get_org_page(slug).await {
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok(page) => view! {
                            <OrgView page notice removing removing_provider error invite_error delete_error provider_error/>
                        }
                            .into_any(),
                    }
                })
            }
        </Suspense>
    }
}

#[component]
fn OrgView(
    page: OrgPageData,
    notice: Option<String>,
    removing: Option<String>,
    removing_provider: Option<i64>,
    error: Option<AppError>,
    invite_error: Option<AppError>,
    delete_error: Option<AppError>,
    provider_error: Option<AppError>,
) -> impl IntoView {
    let admin = page.role == Role::Admin;
    let slug = page.slug.clone();
    let confirm = removing
        .filter(|email| page.members.iter().any(|m| &m.email == email))
        .map(|email| view! { <ConfirmRemoval slug=slug.clone() email me=page.me.clone()/> });
    let confirm_provider = removing_provider
        .filter(|_| admin)
        .and_then(|id| page.providers.iter().find(|p| p.id == id).cloned())
        .map(|provider| view! { <ConfirmProviderRemoval slug=slug.clone() provider/> });
    let apps = match page.app_count {
        1 => "1 app".to_owned(),
        n => format!("{n} apps"),
    };
    view! {
        <Title text=page.name.clone()/>
        <div class="stack">
            <div class="page-head">
                <h1>{page.name.clone()}</h1>
                <nav aria-label="Organization" class="page-links">
                    <a class="button" href="/console/apps">"Apps"</a>
                    <a class="button" href="/console/orgs/new">"New organization"</a>
                </nav>
            </div>
            <p class="meta">
                {apps} " · you are " {if admin { "an admin" } else { "a member" }}
            </p>
            <Notice message=Signal::stored(notice)/>
            <FormAlert message=Signal::stored(error.map(|e| e.to_string()))/>
            {confirm}
            {confirm_provider}
            <MembersSection slug=slug.clone() members=page.members admin me=page.me.clone()/>
            <ProvidersSection
                slug=slug.clone()
                providers=page.providers
                admin
                enabled=page.providers_enabled
                initial_error=provider_error
            />
            {admin.then(|| view! {
                <InvitationsSection
                    slug=slug.clone()
                    invitations=page.invitations
                    link=page.invitation_link
                    initial_error=invite_error
                />
                <DeleteOrgSection slug=slug.clone() name=page.name.clone() app_count=page.app_count initial_error=delete_error/>
            })}
        </div>
    }
}

/// Asks before a removal when the page was reached without JavaScript.
#[component]
fn ConfirmRemoval(slug: String, email: String, me: String) -> impl IntoView {
    let question = if email == me {
        "Leave this organization? You will no longer see its apps.".to_owned()
    } else {
        format!("Remove {email} from this organization? What they did stays in the history, and their API keys of its apps stop working.")
    };
    let back = format!("/console/orgs/{}", encode_component(&slug));
    view! {
        <ConfirmCard
            action=RemoveMember::PATH
            label="Confirm removal"
            question
            yes=format!("Yes, remove {email}")
            fields=vec![("slug", slug), ("email", email)]
            keep="Keep them"
            back
        />
    }
}

/// Asks before a provider is removed when the page was reached without
/// JavaScript.
#[component]
fn ConfirmProviderRemoval(slug: String, provider: ProviderSummary) -> impl IntoView {
    let back = format!("/console/orgs/{}#providers", encode_component(&slug));
    view! {
        <ConfirmCard
            action=RemoveProvider::PATH
            label="Confirm provider removal"
            question=format!("Remove the model provider {}? Its API key is deleted with it.", provider.name)
            yes=format!("Yes, remove {}", provider.name)
            fields=vec![("slug", slug), ("id", provider.id.to_string())]
            keep="Keep it"
            back
        />
    }
}

/// "Model providers": what evals send their cases to. Every member sees
/// them (by name, model and the key's last four characters); an admin adds
/// and removes them.
#[component]
fn ProvidersSection(
    slug: String,
    providers: Vec<ProviderSummary>,
    admin: bool,
    enabled: bool,
    initial_error: Option<AppError>,
) -> impl IntoView {
    let list = if providers.is_empty() {
        view! { <p class="meta">"No model providers yet."</p> }.into_any()
    } else {
        let rows = providers
            .into_iter()
            .map(|provider| {
                let remove = admin.then(|| {
                    let question = format!(
                        "Remove the model provider {}? Its API key is deleted with it.",
                        provider.name
                    );
                    view! {
                        <form method="post" action=RemoveProvider::PATH class="inline-form" data-confirm=question>
                            <input type="hidden" name="slug" value=slug.clone()/>
                            <input type="hidden" name="id" value=provider.id.to_string()/>
                            <input type="hidden" name="confirmed" value=""/>
                            <button type="submit" class="danger">
                                "Remove" <span class="visually-hidden">{format!(" {}", provider.name)}</span>
                            </button>
                        </form>
                    }
                });
                view! {
                    <tr>
                        <td data-label="Name">{provider.name.clone()}</td>
                        <td data-label="Model"><code>{provider.model.clone()}</code></td>
                        <td data-label="Base URL" class="meta">{provider.base_url.clone()}</td>
                        <td data-label="API key"><code class="key-hint">{provider.key_hint()}</code></td>
                        <td class="row-actions-cell">{remove}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <StackedTable
                columns=&["Name", "Model", "Base URL", "API key"]
                caption="Model providers"
                hidden_caption=true
                actions=true
            >
                {rows}
            </StackedTable>
        }
        .into_any()
    };
    let form = match (admin, enabled) {
        (false, _) => None,
        (true, false) => {
            Some(view! { <p class="hint">{crate::domain::eval::SECRET_KEY_NEEDED}</p> }.into_any())
        }
        (true, true) => {
            let value = |field| initial_value(&initial_error, field, "");
            let error = |field| field_message(Signal::stored(initial_error.clone()), field);
            let message = initial_error.as_ref().map(ToString::to_string);
            Some(
                view! {
                    <form method="post" action=AddProvider::PATH novalidate aria-label="Add provider" class="stack">
                        <FormAlert message=Signal::stored(message)/>
                        <input type="hidden" name="slug" value=slug.clone()/>
                        <TextField label="Provider name" name="name" id="provider-name" value=value("name")
                            autocomplete="off" required=true error=error("name")/>
                        <TextField label="Base URL" name="base_url" id="provider-base-url" kind="url"
                            value=value("base_url") autocomplete="off" required=true
                            hint="An OpenAI-compatible Chat Completions endpoint, like https://api.openai.com/v1"
                            error=error("base_url")/>
                        <TextField label="Model" name="model" id="provider-model" value=value("model")
                            autocomplete="off" required=true error=error("model")/>
                        <TextField label="API key" name="api_key" id="provider-api-key" kind="password"
                            autocomplete="off" required=true
                            hint="Stored sealed; only its last four characters are shown again."
                            error=error("api_key")/>
                        <div class="form-actions">
                            <button type="submit" class="primary">"Add provider"</button>
                        </div>
                    </form>
                }
                .into_any(),
            )
        }
    };
    view! {
        <section class="card stack" id="providers" aria-labelledby="providers-title">
            <h2 id="providers-title">"Model providers"</h2>
            <p class="meta">
                "The models that evals send an app's cases to, to see which tool each picks. Admins add and remove them; every member sees them."
            </p>
            {list}
            {form}
        </section>
    }
}

#[component]
fn MembersSection(slug: String, members: Vec<Member>, admin: bool, me: String) -> impl IntoView {
    // An organization always keeps an admin: its only one is offered no
    // role change and no removal, which could only be refused.
    let admins = members.iter().filter(|m| m.role == Role::Admin).count();
    let rows = members
        .into_iter()
        .enumerate()
        .map(|(index, member)| {
            let is_me = member.email == me;
            let sole_admin = member.role == Role::Admin && admins == 1;
            let role = if sole_admin {
                view! {
                    <span>"admin"</span>
                    <span class="meta">" (the only one: make someone else admin first)"</span>
                }
                    .into_any()
            } else if admin {
                let id = format!("member-role-{index}");
                let options = Role::ALL
                    .iter()
                    .map(|role| {
                        view! {
                            <option value=role.as_str() selected=*role == member.role>
                                {role.as_str()}
                            </option>
                        }
                    })
                    .collect_view();
                view! {
                    <form method="post" action=ChangeRole::PATH class="inline-form role-form">
                        <input type="hidden" name="slug" value=slug.clone()/>
                        <input type="hidden" name="email" value=member.email.clone()/>
                        <label for=id.clone() class="visually-hidden">{format!("Role of {}", member.email)}</label>
                        <select id=id name="role" data-submit-on-change="">{options}</select>
                        <button type="submit" class="no-js">"Change role"</button>
                    </form>
                }
                    .into_any()
            } else {
                view! { <span>{member.role.as_str()}</span> }.into_any()
            };
            let remove = ((admin || is_me) && !sole_admin).then(|| {
                let label = if is_me && !admin { "Leave".to_owned() } else { "Remove".to_owned() };
                let question = if is_me {
                    "Leave this organization? You will no longer see its apps.".to_owned()
                } else {
                    format!(
                        "Remove {}? What they did stays in the history, and their API keys of its apps stop working.",
                        member.email
                    )
                };
                view! {
                    <form method="post" action=RemoveMember::PATH class="inline-form" data-confirm=question>
                        <input type="hidden" name="slug" value=slug.clone()/>
                        <input type="hidden" name="email" value=member.email.clone()/>
                        <input type="hidden" name="confirmed" value=""/>
                        <button type="submit" class="danger">
                            {label} <span class="visually-hidden">{format!(" {}", member.email)}</span>
                        </button>
                    </form>
                }
            });
            view! {
                <tr>
                    <td data-label="Email">{member.email.clone()} {is_me.then_some(" (you)")}</td>
                    <td data-label="Role">{role}</td>
                    <td data-label="Joined" class="meta">{format_utc(member.joined_at)}</td>
                    <td class="row-actions-cell">{remove}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card stack" aria-labelledby="members-title">
            <h2 id="members-title">"Members"</h2>
            <p class="meta">
                "Admins manage members, invitations and API keys, and can delete or move apps; "
                "members create and edit apps and tools, import, export and try them."
            </p>
            <StackedTable columns=&["Email", "Role", "Joined"] actions=true>
                {rows}
            </StackedTable>
        </section>
    }
}

#[component]
fn InvitationsSection(
    slug: String,
    invitations: Vec<PendingInvitation>,
    link: Option<String>,
    initial_error: Option<AppError>,
) -> impl IntoView {
    let email = initial_value(&initial_error, "email", "");
    let chosen = initial_value(&initial_error, "role", "member");
    let email_error = field_message(Signal::stored(initial_error.clone()), "email");
    let role_error = field_message(Signal::stored(initial_error.clone()), "role").get_untracked();
    let message = initial_error.as_ref().map(ToString::to_string);
    let role_options: Vec<(String, String)> = Role::ALL
        .iter()
        .map(|role| (role.as_str().to_owned(), role.as_str().to_owned()))
        .collect();
    let link = link.map(|link| {
        view! {
            <div class="field">
                <label for="invitation-link">"Invitation link"</label>
                <p class="hint" id="invitation-link-hint">
                    "Shown once: copy it now and send it to them. It works once, for 7 days."
                </p>
                <div class="copy-row">
                    <input id="invitation-link" type="text" readonly value=link aria-describedby="invitation-link-hint"/>
                    <button type="button" class="needs-js" data-copy="invitation-link">"Copy"</button>
                </div>
            </div>
        }
    });
    let pending = if invitations.is_empty() {
        view! { <p class="meta">"No pending invitations."</p> }.into_any()
    } else {
        let rows = invitations
            .into_iter()
            .map(|invitation| {
                let hidden = view! {
                    <input type="hidden" name="slug" value=slug.clone()/>
                    <input type="hidden" name="email" value=invitation.email.clone()/>
                };
                let hidden_again = view! {
                    <input type="hidden" name="slug" value=slug.clone()/>
                    <input type="hidden" name="email" value=invitation.email.clone()/>
                };
                view! {
                    <tr>
                        <td data-label="Email">{invitation.email.clone()}</td>
                        <td data-label="Role">{invitation.role.as_str()}</td>
                        <td data-label="Expires" class="meta">{format_utc(invitation.expires_at)}</td>
                        <td class="row-actions-cell">
                            <div class="row-actions">
                                <form method="post" action=ResendInvitation::PATH class="inline-form">
                                    {hidden}
                                    <button type="submit">
                                        "Resend" <span class="visually-hidden">{format!(" {}", invitation.email)}</span>
                                    </button>
                                </form>
                                <form method="post" action=CancelInvitation::PATH class="inline-form">
                                    {hidden_again}
                                    <button type="submit">
                                        "Cancel" <span class="visually-hidden">{format!(" {}", invitation.email)}</span>
                                    </button>
                                </form>
                            </div>
                        </td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <StackedTable
                columns=&["Email", "Role", "Expires"]
                caption="Pending invitations"
                hidden_caption=true
                actions=true
            >
                {rows}
            </StackedTable>
        }
        .into_any()
    };
    view! {
        <section class="card stack" aria-labelledby="invitations-title">
            <h2 id="invitations-title">"Invitations"</h2>
            <form method="post" action=Invite::PATH novalidate aria-label="Invite" class="stack">
                <FormAlert message=Signal::stored(message)/>
                <input type="hidden" name="slug" value=slug.clone()/>
                <TextField
                    label="Email"
                    name="email"
                    id="invite-email"
                    kind="email"
                    value=email
                    autocomplete="off"
                    required=true
                    error=email_error
                />
                <SelectField
                    label="Role"
                    name="role"
                    id="invite-role"
                    options=role_options
                    selected=chosen
                    error=role_error
                />
                <div class="form-actions">
                    <button type="submit" class="primary">"Invite"</button>
                </div>
            </form>
            {link}
            {pending}
        </section>
    }
}

#[component]
fn DeleteOrgSection(
    slug: String,
    name: String,
    app_count: i64,
    initial_error: Option<AppError>,
) -> impl IntoView {
    let label = format!("Type {name} to confirm");
    let confirmation_error = field_message(Signal::stored(initial_error.clone()), "confirmation");
    let message = initial_error
        .as_ref()
        .filter(|e| e.field_errors().is_none())
        .map(ToString::to_string);
    view! {
        <section class="card stack danger-zone" aria-labelledby="delete-org-title">
            <h2 id="delete-org-title">"Delete this organization"</h2>
            {if app_count > 0 {
                view! { <p>"It still has apps: move them to another organization or delete them first."</p> }.into_any()
            } else {
                view! {
                    <form method="post" action=DeleteOrg::PATH novalidate aria-label="Delete organization" class="stack">
                        <FormAlert message=Signal::stored(message)/>
                        <input type="hidden" name="slug" value=slug/>
                        <div class="field">
                            <label for="delete-org-confirmation">{label}</label>
                            <input
                                id="delete-org-confirmation"
                                name="confirmation"
                                type="text"
                                autocomplete="off"
                                aria-describedby="delete-org-confirmation-error"
                            />
                            <p class="field-error" id="delete-org-confirmation-error">{move || confirmation_error.get()}</p>
                        </div>
                        <div class="form-actions">
                            <button type="submit" class="danger">"Delete organization"</button>
                        </div>
                    </form>
                }.into_any()
            }}
        </section>
    }
}
