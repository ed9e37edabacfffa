use crate::{
    api::{
        apps::{get_app, DeleteApp, SaveApp},
        tools::get_tools,
        AppError,
    },
    ui::components::{
        app_forms::{AppEditor, DeleteAppForm},
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
                    let loaded = match get_app(package_name.clone()).await {
                        Ok(app) => get_tools(package_name).await.map(|tools| (app, tools)),
                        Err(error) => Err::<_, AppError>(error),
                    };
                    match loaded {
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok((app, tools)) => {
                            let name = app.name.clone();
                            let package = app.package_name.clone();
                            view! {
                                <Title text=name.clone()/>
                                <div class="stack">
                                    <div class="page-head">
                                        <h1>{name}</h1>
                                    </div>
                                    <AppEditor
                                        app
                                        tools=tools.tools
                                        notice
                                        initial_error=save_error
                                    />
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
