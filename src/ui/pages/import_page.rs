use crate::{
    api::apps::get_app,
    domain::url::encode_component,
    ui::components::{import_panel::ImportPanel, status_page::AppErrorView},
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

/// `/console/apps/{packageName}/import`
#[component]
pub fn ImportPage() -> impl IntoView {
    let package_name = use_params_map()
        .read_untracked()
        .get("package_name")
        .unwrap_or_default();
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {
                let package_name = package_name.clone();
                Suspend::new(async move {
                    match get_app(package_name).await {
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok(app) => {
                            let back = format!("/console/apps/{}", encode_component(&app.package_name));
                            view! {
                                <Title text=format!("Import into {}", app.name)/>
                                <div class="stack">
                                    <div class="page-head">
                                        <h1>"Import into " {app.name.clone()}</h1>
                                        <a href=back>"Back to the app"</a>
                                    </div>
                                    <p>
                                        "Replace this app's tools (and the details the file has) with a config file. "
                                        "Every problem is listed with where it is; the change is one revision you can undo from the history."
                                    </p>
                                    <section class="card stack" aria-label="Config to import">
                                        <ImportPanel package_name=app.package_name/>
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
