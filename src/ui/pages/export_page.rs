use crate::{
    api::{
        apps::{get_app, get_checks},
        export::render_export,
        AppError,
    },
    domain::{
        checks::CheckSummary,
        export::{ExportOptions, Format},
        url::encode_component,
    },
    ui::components::{
        checks_panel::field_label, export_panel::ExportPanel, status_page::AppErrorView,
    },
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
                        Ok(app) => match render_export(package_name.clone(), format, options).await {
                            Ok(preview) => get_checks(package_name.clone())
                                .await
                                .map(|checks| (app, preview, checks)),
                            Err(error) => Err(error),
                        },
                        Err(error) => Err::<_, AppError>(error),
                    };
                    match loaded {
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok((app, preview, checks)) => {
                            let back = format!("/console/apps/{}", encode_component(&app.package_name));
                            view! {
                                <Title text=format!("Export {}", app.name)/>
                                <div class="stack">
                                    <div class="page-head">
                                        <h1>"Export " {app.name.clone()}</h1>
                                        <a href=back>"Back to the app"</a>
                                    </div>
                                    <ReadyFor package_name=app.package_name.clone() checks/>
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

/// "Ready for": one line per format, beginning with its key — ✔, or what
/// blocks it, linking to the app page's checks.
#[component]
fn ReadyFor(package_name: String, checks: CheckSummary) -> impl IntoView {
    let checks_href = format!("/console/apps/{}#checks", encode_component(&package_name));
    let lines = Format::ALL
        .into_iter()
        .map(|format| {
            // "add_todo: Read-only, Destructive; get_todos: Open world" —
            // what to fix, by tool; the app page's checks say how.
            let mut by_tool: Vec<(String, Vec<String>)> = Vec::new();
            let mut count = 0;
            for place in checks.blockers_for(format).flat_map(|group| &group.places) {
                count += 1;
                let owner = place.tool.clone().unwrap_or_else(|| "the app".to_owned());
                let label = field_label(&place.path);
                match by_tool.iter_mut().find(|(tool, _)| *tool == owner) {
                    Some((_, labels)) => labels.push(label),
                    None => by_tool.push((owner, vec![label])),
                }
            }
            let blockers: Vec<String> = by_tool
                .iter()
                .map(|(tool, labels)| format!("{tool}: {}", labels.join(", ")))
                .collect();
            let status = if blockers.is_empty() {
                view! { <span class="ready">" ✔ ready"</span> }.into_any()
            } else {
                let count = match count {
                    1 => "1 blocker".to_owned(),
                    n => format!("{n} blockers"),
                };
                view! {
                    <span class="blocked">{format!(" ✘ {count}: ")}</span>
                    <span>{format!("{}.", blockers.join("; "))}</span>
                    " "
                    <a href=checks_href.clone()>{format!("See the checks for {}", format.key())}</a>
                }
                .into_any()
            };
            view! {
                <li>
                    <strong>{format.key()}</strong>
                    {status}
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="card stack ready-for" aria-labelledby="ready-title">
            <h2 id="ready-title">"Ready for"</h2>
            <ul class="ready-list">{lines}</ul>
            <p class="hint">
                <a href="/docs/exports">"What each format does with each field"</a>
            </p>
        </section>
    }
}
