use crate::{
    api::try_tool::get_try_target,
    domain::{time::format_iso8601, url::encode_component},
    ui::components::{status_page::AppErrorView, try_panel::TryPanel},
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

/// `/console/apps/{packageName}/tools/{toolId}/try`
#[component]
pub fn TryPage() -> impl IntoView {
    let params = use_params_map().read_untracked();
    let package_name = params.get("package_name").unwrap_or_default();
    let tool_id = params.get("tool_id").unwrap_or_default();
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {
                let package_name = package_name.clone();
                let tool_id = tool_id.clone();
                Suspend::new(async move {
                    match get_try_target(package_name.clone(), tool_id).await {
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok(target) => {
                            let back = format!("/console/apps/{}", encode_component(&package_name));
                            let timestamp = format_iso8601(now());
                            view! {
                                <Title text=format!("Try {}", target.tool.id)/>
                                <div class="stack">
                                    <div class="page-head">
                                        <h1>"Try " <code>{target.tool.id.clone()}</code></h1>
                                        <a href=back>{format!("Back to {}", target.app_name)}</a>
                                    </div>
                                    <p>{target.tool.description.clone()}</p>
                                    <p class="hint">
                                        "Send the call the assistant would make to your app's server, and see what it answers."
                                    </p>
                                    <section class="card stack" aria-label="Try the tool">
                                        <TryPanel package_name=package_name.clone() target timestamp/>
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

fn now() -> i64 {
    #[cfg(feature = "ssr")]
    {
        crate::server::clock::now_ms()
    }
    #[cfg(not(feature = "ssr"))]
    {
        0
    }
}
