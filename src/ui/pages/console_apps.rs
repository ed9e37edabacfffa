use crate::{
    api::apps::list_apps,
    domain::{app::AppSummary, time::format_utc, url::encode_component},
    ui::components::{form::Notice, status_page::AppErrorView},
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

/// `/console/apps`: the apps of the developer's current organization.
#[component]
pub fn AppsPage() -> impl IntoView {
    let query = use_query_map().read_untracked();
    let memberships = crate::ui::session::current_memberships();
    let joined = query.get("joined").and_then(|slug| {
        memberships
            .orgs
            .iter()
            .find(|org| org.slug == slug)
            .map(|org| format!("You joined {}.", org.name))
    });
    let notice = query
        .get("deleted")
        .map(|package| format!("Deleted the app {package} and its tools."))
        .or(joined);
    let org = memberships.current().cloned();
    view! {
        <Title text="Apps"/>
        <section class="stack" aria-labelledby="apps-title">
            <div class="page-head">
                <h1 id="apps-title">"Apps"</h1>
                <a class="button primary" href="/console/apps/new">"New app"</a>
            </div>
            {match org {
                Some(org) => {
                    let href = format!("/console/orgs/{}", encode_component(&org.slug));
                    view! {
                        <p class="meta">
                            "The apps of " <a href=href>{org.name}</a> ". Switch organization in the header, or "
                            <a href="/console/orgs/new">"create a new organization"</a> "."
                        </p>
                    }
                        .into_any()
                }
                None => view! {
                    <p class="meta">
                        "You belong to no organization: "
                        <a href="/console/orgs/new">"create a new organization"</a> " to make apps in."
                    </p>
                }
                    .into_any(),
            }}
            <Notice message=Signal::stored(notice)/>
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                {Suspend::new(async move {
                    match list_apps().await {
                        Ok(apps) if apps.is_empty() => view! { <EmptyState/> }.into_any(),
                        Ok(apps) => view! { <AppList apps/> }.into_any(),
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

#[component]
fn AppList(apps: Vec<AppSummary>) -> impl IntoView {
    view! {
        <ul class="app-list">
            {apps
                .into_iter()
                .map(|app| {
                    let href = format!("/console/apps/{}", encode_component(&app.package_name));
                    let tools = match app.tool_count {
                        1 => "1 tool".to_owned(),
                        n => format!("{n} tools"),
                    };
                    view! {
                        <li class="card app-card">
                            <h2><a href=href>{app.name}</a></h2>
                            <p><code>{app.package_name}</code></p>
                            <p class="meta">{tools} " · updated " {format_utc(app.updated_at)}</p>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}

#[component]
fn EmptyState() -> impl IntoView {
    view! {
        <div class="card empty-state">
            <p><strong>"Nothing here yet."</strong></p>
            <p>
                "An app is what your AI tools belong to: the assistant learns its tools from the "
                "app's config and sends their calls to the app's server. Create one, then define "
                "the tools it exposes."
            </p>
            <a class="button primary" href="/console/apps/new">"Create your first app"</a>
        </div>
    }
}
