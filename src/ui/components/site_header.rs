use crate::{api::auth::Logout, ui::session::current_developer};
use leptos::{prelude::*, server_fn::ServerFn};

/// The bar at the top of every page: product name, and for a signed-in
/// developer the console's navigation, their email and "Log out".
#[component]
pub fn SiteHeader() -> impl IntoView {
    let developer = current_developer();
    view! {
        <header class="site-header">
            <a class="brand" href="/">
                <span class="brand-mark" aria-hidden="true">"⚒"</span>
                "Toolwright"
            </a>
            {developer.map(|developer| view! {
                <nav aria-label="Console" class="site-nav">
                    <a href="/console/apps">"Apps"</a>
                    <span class="who">{developer.email}</span>
                    <form method="post" action=Logout::PATH class="inline-form">
                        <button type="submit">"Log out"</button>
                    </form>
                </nav>
            })}
        </header>
    }
}
