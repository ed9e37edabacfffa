//! `/console/apps/{packageName}/hints`: "Hints of every tool", the four
//! hints of each tool in one form — the commonest fix the checks ask for.

use crate::{
    api::{apps::get_app, tools::get_tools, tools::SaveHints, AppError},
    domain::url::encode_component,
    ui::components::{
        checks_panel::HintsForm,
        form::{url_error, FormAlert},
        status_page::AppErrorView,
    },
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

#[component]
pub fn HintsPage() -> impl IntoView {
    let package_name = use_params_map()
        .read_untracked()
        .get("package_name")
        .unwrap_or_default();
    // A refused "Save hints" comes back here with its error and the choices.
    let refused = url_error::<SaveHints>();
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {
                let package_name = package_name.clone();
                let refused = refused.clone();
                Suspend::new(async move {
                    let loaded = async {
                        let app = get_app(package_name.clone()).await?;
                        let tools = get_tools(package_name).await?;
                        Ok::<_, AppError>((app, tools))
                    };
                    match loaded.await {
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok((app, state)) => {
                            let back = format!("/console/apps/{}", encode_component(&app.package_name));
                            let chosen = refused.as_ref().and_then(AppError::echoed_input).cloned();
                            let message = refused.as_ref().map(ToString::to_string);
                            view! {
                                <Title text=format!("Hints of {}", app.name)/>
                                <div class="stack">
                                    <div class="page-head">
                                        <h1>"Hints of " {app.name.clone()}</h1>
                                        <a href=format!("{back}#checks")>"Back to the app"</a>
                                    </div>
                                    <section class="card stack" aria-labelledby="hints-title">
                                        <h2 id="hints-title">"Hints of every tool"</h2>
                                        <p class="hint">
                                            "Decide what each tool does. MCP clients read a hint left unset as the "
                                            "protocol's most cautious default (it changes data, may destroy it, reaches "
                                            "beyond the app), and ChatGPT's app review refuses a tool without Read-only, "
                                            "Destructive and Open world."
                                        </p>
                                        <FormAlert message=Signal::stored(message)/>
                                        {if state.tools.is_empty() {
                                            view! {
                                                <p>"This app has no tools yet: " <a href=back.clone()>"add one"</a> " first."</p>
                                            }
                                                .into_any()
                                        } else {
                                            view! {
                                                <HintsForm
                                                    package_name=app.package_name.clone()
                                                    revision=state.revision
                                                    tools=state.tools
                                                    chosen
                                                />
                                            }
                                                .into_any()
                                        }}
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
