use crate::{
    api::apps::{get_app_page, AppPage, DeleteApp, SaveApp},
    api::orgs::MoveApp as MoveAppFn,
    domain::{
        org::{OrgSummary, Role},
        url::encode_component,
    },
    ui::components::{
        app_forms::{AppConsole, DeleteAppSection},
        checks_panel::findings_list,
        form::{url_error, FormAlert},
        mcp_panel::{ActivityTable, ConnectAssistant},
        status_page::AppErrorView,
    },
};
use leptos::{prelude::*, server_fn::ServerFn};
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

/// `/console/apps/{packageName}`: the app's details, its AI tools, its API
/// keys and its deletion. Another developer's app is a 404, like an unknown one.
#[component]
pub fn AppPage() -> impl IntoView {
    let package_name = use_params_map()
        .read_untracked()
        .get("package_name")
        .unwrap_or_default();
    let query = use_query_map().read_untracked();
    let mut notice = if query.get("created").is_some() {
        Some("App created. Now define its AI tools.".to_owned())
    } else if query.get("saved").is_some() {
        Some("Saved.".to_owned())
    } else {
        query.get("imported").map(|count| match count.as_str() {
            "1" => "Imported. The app has 1 tool now.".to_owned(),
            n => format!("Imported. The app has {n} tools now."),
        })
    };
    let activity_before = query
        .get("activity_before")
        .and_then(|before| before.parse::<i64>().ok());
    if let Some(org) = query.get("moved") {
        notice = Some(format!("Moved the app to {org}."));
    }
    let confirm_move = query.get("confirm_move");
    if let Some(count) = query.get("hints") {
        notice = Some(if count == "0" {
            "The hints were already so: nothing to save.".to_owned()
        } else {
            "Saved hints.".to_owned()
        });
    }
    let save_error = url_error::<SaveApp>();
    let delete_error = url_error::<DeleteApp>();

    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {
                let package_name = package_name.clone();
                let notice = notice.clone();
                let save_error = save_error.clone();
                let delete_error = delete_error.clone();
                let confirm_move = confirm_move.clone();
                Suspend::new(async move {
                    match get_app_page(package_name, activity_before).await {
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok(AppPage { app, tools, keys, checks, role, move_targets, mcp }) => {
                            let admin = role == Role::Admin;
                            let moving = (!move_targets.is_empty())
                                .then(|| view! {
                                    <MoveApp
                                        package_name=app.package_name.clone()
                                        targets=move_targets
                                        confirming=confirm_move
                                    />
                                });
                            let name = app.name.clone();
                            let package = app.package_name.clone();
                            let base = format!("/console/apps/{}", encode_component(&package));
                            let findings = checks.count();
                            let checks_drawn = findings_list(&checks);
                            view! {
                                <Title text=name.clone()/>
                                <div class="stack">
                                    <div class="page-head">
                                        <h1>{name}</h1>
                                        <nav aria-label="App" class="page-links">
                                            <a class="button" href=format!("{base}/export")>"Export"</a>
                                            <a class="button" href=format!("{base}/import")>"Import"</a>
                                            <a class="button" href=format!("{base}/history")>"History"</a>
                                            <a class="button" href=format!("{base}/evals")>"Evals"</a>
                                        </nav>
                                    </div>
                                    <AppConsole
                                        app
                                        tools
                                        keys
                                        findings
                                        admin
                                        notice
                                        save_error
                                    >
                                        {checks_drawn}
                                    </AppConsole>
                                    <ConnectAssistant package_name=package.clone() endpoint=mcp.endpoint/>
                                    <ActivityTable
                                        package_name=package.clone()
                                        entries=mcp.activity
                                        older=mcp.older
                                    />
                                    {moving}
                                    {admin.then(|| view! {
                                        <DeleteAppSection package_name=package.clone() initial_error=delete_error/>
                                    })}
                                </div>
                            }
                                .into_any()
                        }
                    }
                })
            }
        </Suspense>
    }
}

/// Moving the app to another organization the developer is admin of (a
/// plain form: the app's URL stays the same). It asks first: with
/// JavaScript in a dialog, without it here (`confirming`, the chosen
/// organization's slug).
#[component]
fn MoveApp(
    package_name: String,
    targets: Vec<OrgSummary>,
    confirming: Option<String>,
) -> impl IntoView {
    let error = url_error::<MoveAppFn>().map(|e| e.to_string());
    let confirm = confirming
        .and_then(|slug| targets.iter().find(|org| org.slug == slug).cloned())
        .map(|org| {
            view! {
                <form method="post" action=MoveAppFn::PATH class="stack" aria-label="Confirm move">
                    <p><strong>{format!("Move this app to {}? {MOVE_CONSEQUENCE}", org.name)}</strong></p>
                    <input type="hidden" name="package_name" value=package_name.clone()/>
                    <input type="hidden" name="to" value=org.slug.clone()/>
                    <input type="hidden" name="confirmed" value="yes"/>
                    <div class="card-actions">
                        <button type="submit" class="primary">{format!("Yes, move it to {}", org.name)}</button>
                        <a class="button" href="?">"Keep it here"</a>
                    </div>
                </form>
            }
        });
    let options = targets
        .into_iter()
        .map(|org| view! { <option value=org.slug>{org.name}</option> })
        .collect_view();
    view! {
        <section class="card stack" aria-labelledby="move-title">
            <h2 id="move-title">"Move to another organization"</h2>
            <p class="meta">{MOVE_CONSEQUENCE}</p>
            {confirm}
            <form
                method="post"
                action=MoveAppFn::PATH
                class="inline-fields"
                aria-label="Move app"
                data-confirm=format!("Move this app to the chosen organization? {MOVE_CONSEQUENCE}")
            >
                <FormAlert message=Signal::stored(error)/>
                <input type="hidden" name="package_name" value=package_name/>
                <input type="hidden" name="confirmed" value=""/>
                <div class="field">
                    <label for="move-to">"Move to organization"</label>
                    <select id="move-to" name="to">{options}</select>
                </div>
                <button type="submit">"Move app"</button>
            </form>
        </section>
    }
}

const MOVE_CONSEQUENCE: &str =
    "Its members will see the app; this organization's members will no longer.";
