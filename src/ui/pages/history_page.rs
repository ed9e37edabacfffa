use crate::{
    api::{
        apps::get_app,
        history::{get_revision, list_revisions, RestoreRevision, RevisionView},
        AppError,
    },
    domain::{
        diff::LineChange, revision::RevisionSummary, time::format_utc, url::encode_component,
    },
    ui::components::{
        form::{url_error, FormAlert, Notice},
        json_preview::JsonPreview,
        status_page::AppErrorView,
    },
};
use leptos::{prelude::*, server_fn::ServerFn};
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

/// `/console/apps/{packageName}/history?revision=N`: every revision, newest
/// first; the chosen one in full and compared with now; "Restore".
#[component]
pub fn HistoryPage() -> impl IntoView {
    let package_name = use_params_map()
        .read_untracked()
        .get("package_name")
        .unwrap_or_default();
    let query = use_query_map().read_untracked();
    let chosen: Option<i64> = query.get("revision").and_then(|r| r.parse().ok());
    let notice = query
        .get("restored")
        .map(|r| format!("Restored revision {r}. It is the newest revision now."));
    let restore_error = url_error::<RestoreRevision>().map(|e| e.to_string());
    // Reached by a "Restore" without JavaScript to ask first.
    let confirming: Option<i64> = query.get("confirm_restore").and_then(|r| r.parse().ok());

    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {
                let package_name = package_name.clone();
                let notice = notice.clone();
                let restore_error = restore_error.clone();
                Suspend::new(async move {
                    let loaded = async {
                        let app = get_app(package_name.clone()).await?;
                        let revisions = list_revisions(package_name.clone()).await?;
                        let view = match chosen {
                            Some(revision) => Some(get_revision(package_name.clone(), revision).await?),
                            None => None,
                        };
                        Ok::<_, AppError>((app, revisions, view))
                    };
                    match loaded.await {
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok((app, revisions, view)) => {
                            let base = format!("/console/apps/{}", encode_component(&app.package_name));
                            let current = app.revision;
                            let package = app.package_name.clone();
                            view! {
                                <Title text=format!("History of {}", app.name)/>
                                <div class="stack">
                                    <div class="page-head">
                                        <h1>"History of " {app.name.clone()}</h1>
                                        <a href=base.clone()>"Back to the app"</a>
                                    </div>
                                    <Notice message=Signal::stored(notice)/>
                                    <FormAlert message=Signal::stored(restore_error)/>
                                    {confirming
                                        .filter(|revision| *revision != current)
                                        .map(|revision| view! {
                                            <ConfirmRestore
                                                package=package.clone()
                                                revision
                                                current
                                                back=format!("{base}/history")
                                            />
                                        })}
                                    {view.map(|view| view! { <RevisionDetailView view base=base.clone()/> })}
                                    <section class="card stack" aria-labelledby="revisions-title">
                                        <h2 id="revisions-title">"Revisions"</h2>
                                        {if revisions.is_empty() {
                                            view! { <p class="hint">"No revisions recorded yet."</p> }.into_any()
                                        } else {
                                            view! {
                                                <ol class="revision-list">
                                                    {revisions
                                                        .into_iter()
                                                        .map(|r| view! {
                                                            <RevisionItem
                                                                revision=r
                                                                current
                                                                package=package.clone()
                                                                base=base.clone()
                                                            />
                                                        })
                                                        .collect_view()}
                                                </ol>
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

#[component]
fn RevisionItem(
    revision: RevisionSummary,
    current: i64,
    package: String,
    base: String,
) -> impl IntoView {
    let number = revision.revision;
    let is_current = number == current;
    view! {
        <li class="revision" id=format!("revision-{number}")>
            <div class="revision-head">
                <h3 id=format!("revision-{number}-title")>
                    {format!("Revision {number}")}
                    {is_current.then(|| view! { <span class="badge">"current"</span> })}
                </h3>
                <p class="meta">
                    {revision.author.clone()} " · " <time>{format_utc(revision.created_at)}</time>
                </p>
            </div>
            <p>{revision.summary.clone()}</p>
            <div class="card-actions">
                <a class="button" href=format!("{base}/history?revision={number}#revision-view")>
                    "View"
                </a>
                // The current revision is what the app is: nothing to restore.
                {(!is_current).then(|| view! {
                    <form
                        method="post"
                        action=RestoreRevision::PATH
                        class="inline-form"
                        data-confirm=restore_question(number)
                    >
                        <input type="hidden" name="package_name" value=package/>
                        <input type="hidden" name="revision" value=number.to_string()/>
                        <input type="hidden" name="current_revision" value=current.to_string()/>
                        <input type="hidden" name="confirmed" value=""/>
                        <button type="submit" aria-describedby=format!("revision-{number}-title")>
                            "Restore"
                        </button>
                    </form>
                })}
            </div>
        </li>
    }
}

fn restore_question(revision: i64) -> String {
    format!(
        "Restore revision {revision}? The app's details and tools become what they were then, as a new revision; nothing is lost."
    )
}

/// Asks before a restore when the page was reached without JavaScript.
#[component]
fn ConfirmRestore(package: String, revision: i64, current: i64, back: String) -> impl IntoView {
    view! {
        <form method="post" action=RestoreRevision::PATH class="card stack" aria-label="Confirm restore">
            <p><strong>{restore_question(revision)}</strong></p>
            <input type="hidden" name="package_name" value=package/>
            <input type="hidden" name="revision" value=revision.to_string()/>
            <input type="hidden" name="current_revision" value=current.to_string()/>
            <input type="hidden" name="confirmed" value="yes"/>
            <div class="card-actions">
                <button type="submit" class="primary">{format!("Yes, restore revision {revision}")}</button>
                <a class="button" href=back>"Keep the app as it is"</a>
            </div>
        </form>
    }
}

#[component]
fn RevisionDetailView(view: RevisionView, base: String) -> impl IntoView {
    let number = view.summary.revision;
    let changed = view.diff.iter().any(|(c, _)| *c != LineChange::Same);
    view! {
        <section class="card stack" id="revision-view" aria-labelledby="revision-view-title">
            <div class="section-head">
                <h2 id="revision-view-title">{format!("Revision {number}: {}", view.summary.summary)}</h2>
                <a href=format!("{base}/history")>"Close"</a>
            </div>
            <h3>"Compared with the current state (revision " {view.current_revision} ")"</h3>
            {if changed {
                view! {
                    <p class="meta diff-legend">
                        <span class="d-removed">{format!("- Removed: only in revision {number}")}</span>
                        " "
                        <span class="d-added">{format!("+ Added: only now, in revision {}", view.current_revision)}</span>
                    </p>
                    <pre class="diff" tabindex="0" aria-label="Changes since this revision">
                        <code>
                            {view
                                .diff
                                .into_iter()
                                .map(|(change, line)| {
                                    let (class, mark) = match change {
                                        LineChange::Same => ("d-same", "  "),
                                        LineChange::Removed => ("d-removed", "- "),
                                        LineChange::Added => ("d-added", "+ "),
                                    };
                                    view! { <span class=class>{format!("{mark}{line}\n")}</span> }
                                })
                                .collect_view()}
                        </code>
                    </pre>
                }
                    .into_any()
            } else {
                view! { <p>"No differences: the app is as it was at this revision."</p> }.into_any()
            }}
            <h3>"The configuration at revision " {number}</h3>
            <JsonPreview text=Signal::stored(view.text) label="Revision JSON"/>
        </section>
    }
}
