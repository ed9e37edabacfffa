use crate::{
    api::{auth::Logout, orgs::SwitchOrg},
    domain::url::encode_component,
    ui::session::{current_developer, current_memberships},
};
use leptos::{prelude::*, server_fn::ServerFn};

/// The bar at the top of every page: product name, and for a signed-in
/// developer the console's navigation (apps, the current organization with
/// a switcher, its settings) and their account (email, "Log out"). On a
/// narrow screen the account shares the product's row and the navigation
/// takes the second.
#[component]
pub fn SiteHeader() -> impl IntoView {
    let developer = current_developer();
    let memberships = current_memberships();
    view! {
        <header class="site-header">
            <a class="brand" href="/">
                <span class="brand-mark" aria-hidden="true">"⚒"</span>
                "Toolwright"
            </a>
            {developer.map(|developer| {
                let current = memberships.current().cloned();
                let settings = current
                    .as_ref()
                    .map(|org| format!("/console/orgs/{}", encode_component(&org.slug)));
                let options = memberships
                    .orgs
                    .iter()
                    .map(|org| {
                        let selected = current.as_ref().is_some_and(|c| c.id == org.id);
                        // Two organizations of one name (another developer's
                        // "Personal" they were invited to) are told apart by address.
                        let twins = memberships.orgs.iter().filter(|o| o.name == org.name).count() > 1;
                        let text = if twins {
                            format!("{} ({})", org.name, org.slug)
                        } else {
                            org.name.clone()
                        };
                        view! { <option value=org.slug.clone() selected=selected>{text}</option> }
                    })
                    .collect_view();
                view! {
                    <nav aria-label="Console" class="site-nav">
                        <a href="/console/apps">"Apps"</a>
                        // Switching applies at once with JavaScript (console.js);
                        // without it, with the button.
                        {match settings {
                            Some(href) => view! {
                                <form method="post" action=SwitchOrg::PATH class="inline-form org-switcher">
                                    <label for="org-switch">"Organization"</label>
                                    <select id="org-switch" name="slug" data-submit-on-change="">
                                        {options}
                                    </select>
                                    <button type="submit" class="no-js">"Switch"</button>
                                </form>
                                // Beside the organization's name, "Settings" says enough.
                                <a href=href aria-label="Organization settings">"Settings"</a>
                            }
                                .into_any(),
                            // Left every organization (or deleted it).
                            None => view! { <a href="/console/orgs/new">"New organization"</a> }.into_any(),
                        }}
                    </nav>
                    <div class="account">
                        <span class="who" title=developer.email.clone()>{developer.email.clone()}</span>
                        <form method="post" action=Logout::PATH class="inline-form">
                            <button type="submit">"Log out"</button>
                        </form>
                    </div>
                }
            })}
        </header>
    }
}
