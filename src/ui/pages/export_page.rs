use crate::{
    api::{apps::get_app, export::render_export, AppError},
    domain::{
        export::{ExportOptions, Format},
        url::encode_component,
    },
    ui::components::{export_panel::ExportPanel, status_page::AppErrorView},
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

/// `/console/apps/{packageName}/export?format=KEY&include_phrases=on&strict=on`
#[component]
pub fn ExportPage() -> impl IntoView {
    let package_name = use_params_map()
        .read_untracked()
        .get("package_name")
        .unwrap_or_default();
    let query = use_query_map().read_untracked();
    let format = query
        .get("format")
        .and_then(|key| Format::parse(&key))
        .unwrap_or_default();
    let on = |name: &str| query.get(name).is_some_and(|v| !v.is_empty() && v != "off");
    let options = ExportOptions {
        include_phrases: on("include_phrases"),
        strict: on("strict"),
    };

    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {
                let package_name = package_name.clone();
                Suspend::new(async move {
                    let loaded = match get_app(package_name.clone()).await {
                        Ok(app) => render_export(package_name.clone(), format, options)
                            .await
                            .map(|preview| (app, preview)),
                        Err(error) => Err::<_, AppError>(error),
                    };
                    match loaded {
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok((app, preview)) => {
                            let back = format!("/console/apps/{}", encode_component(&app.package_name));
                            view! {
                                <Title text=format!("Export {}", app.name)/>
                                <div class="stack">
                                    <div class="page-head">
                                        <h1>"Export " {app.name.clone()}</h1>
                                        <a href=back>"Back to the app"</a>
                                    </div>
                                    <section class="card stack" aria-label="Export">
                                        <ExportPanel package_name=app.package_name format options preview/>
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
