use crate::{
    api::apps::{get_app, DeleteApp, SaveApp},
    ui::components::{
        app_forms::{AppDetailsForm, DeleteAppForm},
        form::url_error,
        status_page::AppErrorView,
    },
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

/// `/console/apps/{packageName}`: the app's details, its AI tools, and its
/// deletion. Another developer's app is a 404, like an unknown one.
#[component]
pub fn AppPage() -> impl IntoView {
    let package_name = use_params_map()
        .read_untracked()
        .get("package_name")
        .unwrap_or_default();
    let query = use_query_map().read_untracked();
    let notice = if query.get("created").is_some() {
        Some("App created. Now define its AI tools.".to_owned())
    } else if query.get("saved").is_some() {
        Some("Saved.".to_owned())
    } else {
        None
    };
    let save_error = url_error::<SaveApp>();
    let delete_error = url_error::<DeleteApp>();

    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {
                let package_name = package_name.clone();
                let notice = notice.clone();
                let save_error = save_error.clone();
                let delete_error = delete_error.clone();
                Suspend::new(async move {
                    match get_app(package_name).await {
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok(app) => {
                            let name = app.name.clone();
                            let package = app.package_name.clone();
                            view! {
                                <Title text=name.clone()/>
                                <div class="stack">
                                    <div class="page-head">
                                        <h1>{name}</h1>
                                    </div>
                                    <section class="card stack" aria-labelledby="details-title">
                                        <h2 id="details-title">"Details"</h2>
                                        <AppDetailsForm app notice initial_error=save_error/>
                                    </section>
                                    <section class="card stack" aria-labelledby="tools-title">
                                        <div class="section-head">
                                            <h2 id="tools-title">"AI Tools"</h2>
                                        </div>
                                    </section>
                                    <section class="card stack danger-zone" aria-labelledby="delete-title">
                                        <h2 id="delete-title">"Delete this app"</h2>
                                        <DeleteAppForm package_name=package initial_error=delete_error/>
                                    </section>
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
