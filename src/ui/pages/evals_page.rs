//! `/console/apps/{packageName}/evals`: the app's eval cases — what a user
//! says and the tool a model should call. Plain HTML forms (the console
//! script asks before a deletion); everything works without JavaScript.

use crate::ui::components::table::StackedTable;
use crate::{
    api::{
        evals::{get_evals_page, AddCase, AddCasesFromPhrases, CancelRun, DeleteCase, RunEvals},
        AppError,
    },
    domain::{
        eval::{EvalCase, EvalsPage as EvalsPageData, RunSummary},
        url::encode_component,
    },
    ui::components::{
        eval_results::ResultsSection,
        form::{
            field_message, initial_value, url_error, ConfirmCard, FormAlert, Notice, SelectField,
            TextArea, TextField,
        },
        status_page::AppErrorView,
    },
};
use leptos::{prelude::*, server_fn::ServerFn};
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

#[component]
pub fn EvalsPage() -> impl IntoView {
    let package_name = use_params_map()
        .read_untracked()
        .get("package_name")
        .unwrap_or_default();
    let query = use_query_map().read_untracked();
    let notice = if query.get("case_added").is_some() {
        Some("Added the case.".to_owned())
    } else if query.get("case_saved").is_some() {
        Some("Saved the case.".to_owned())
    } else if let Some(count) = query.get("from_phrases") {
        Some(match count.as_str() {
            "0" => "Every activation phrase already has a case.".to_owned(),
            "1" => "Added 1 case from the activation phrases.".to_owned(),
            n => format!("Added {n} cases from the activation phrases."),
        })
    } else if query.get("case_deleted").is_some() {
        Some("Deleted the case.".to_owned())
    } else if query.get("cancelled").is_some() {
        Some("Cancelled the run. The calls it made are kept.".to_owned())
    } else {
        query
            .get("already_over")
            .map(|_| "The run had already finished.".to_owned())
    };
    let run = query.get("run").and_then(|id| id.parse::<i64>().ok());
    let deleting = query
        .get("delete_case")
        .and_then(|id| id.parse::<i64>().ok());
    let editing = query.get("edit_case").and_then(|id| id.parse::<i64>().ok());
    let add_error = url_error::<AddCase>();
    let run_error = url_error::<RunEvals>();
    let error = url_error::<DeleteCase>()
        .or_else(url_error::<AddCasesFromPhrases>)
        .or_else(url_error::<CancelRun>);
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {
                let package_name = package_name.clone();
                let notice = notice.clone();
                let add_error = add_error.clone();
                let run_error = run_error.clone();
                let error = error.clone();
                Suspend::new(async move {
                    match get_evals_page(package_name, run).await {
                        Err(error) => view! { <AppErrorView error/> }.into_any(),
                        Ok(page) => view! { <EvalsView page notice deleting editing error add_error run_error/> }.into_any(),
                    }
                })
            }
        </Suspense>
    }
}

#[component]
fn EvalsView(
    page: EvalsPageData,
    notice: Option<String>,
    deleting: Option<i64>,
    editing: Option<i64>,
    error: Option<AppError>,
    add_error: Option<AppError>,
    run_error: Option<AppError>,
) -> impl IntoView {
    let package = page.package_name.clone();
    let results = view! {
        <ResultsSection package=package.clone() runs=page.runs.clone() shown=page.shown.clone()/>
    };
    let run = view! { <RunSection page=page.clone() run_error/> };
    let back = format!("/console/apps/{}", encode_component(&package));
    let confirm = deleting
        .and_then(|id| {
            page.cases
                .iter()
                .find(|(case_id, _)| *case_id == id)
                .cloned()
        })
        .map(|(id, case)| view! { <ConfirmDelete package=package.clone() id case/> });
    view! {
        <Title text=format!("Evals of {}", page.name)/>
        <div class="stack">
            <div class="page-head">
                <h1>"Evals of " {page.name.clone()}</h1>
                <a href=back>"Back to the app"</a>
            </div>
            <Notice message=Signal::stored(notice)/>
            <FormAlert message=Signal::stored(error.map(|e| e.to_string()))/>
            {confirm}
            <CasesSection page editing add_error/>
            {run}
            {results}
        </div>
    }
}

/// Asks before a case is deleted when the page was reached without
/// JavaScript.
#[component]
fn ConfirmDelete(package: String, id: i64, case: EvalCase) -> impl IntoView {
    let back = format!("/console/apps/{}/evals#cases", encode_component(&package));
    view! {
        <ConfirmCard
            action=DeleteCase::PATH
            label="Confirm deletion"
            question=format!("Delete the case “{}”?", case.utterance)
            yes="Yes, delete the case".to_owned()
            fields=vec![("package_name", package), ("id", id.to_string())]
            keep="Keep it"
            back
        />
    }
}

#[component]
fn CasesSection(
    page: EvalsPageData,
    editing: Option<i64>,
    add_error: Option<AppError>,
) -> impl IntoView {
    let package = page.package_name.clone();
    let base = format!("/console/apps/{}/evals", encode_component(&package));
    // The case being edited fills the form (unless a refusal brought back
    // what was typed).
    let edited = editing.and_then(|id| {
        page.cases
            .iter()
            .find(|(case_id, _)| *case_id == id)
            .cloned()
    });
    let list = if page.cases.is_empty() {
        view! { <p class="meta">"No cases yet."</p> }.into_any()
    } else {
        let rows = page
            .cases
            .iter()
            .map(|(id, case)| {
                let question = format!("Delete the case “{}”?", case.utterance);
                view! {
                    <tr>
                        <td data-label="Utterance">{case.utterance.clone()}</td>
                        <td data-label="Expected tool"><code>{case.expected_text().to_owned()}</code></td>
                        <td data-label="Expected arguments">
                            {match case.arguments_text() {
                                Some(text) => view! { <code>{text}</code> }.into_any(),
                                None => view! { <span class="meta">"Any"</span> }.into_any(),
                            }}
                        </td>
                        <td class="row-actions-cell">
                            <a class="button" href=format!("{base}?edit_case={id}#case-form")>
                                "Edit" <span class="visually-hidden">{format!(" the case “{}”", case.utterance)}</span>
                            </a>
                            <form method="post" action=DeleteCase::PATH class="inline-form" data-confirm=question>
                                <input type="hidden" name="package_name" value=package.clone()/>
                                <input type="hidden" name="id" value=id.to_string()/>
                                <input type="hidden" name="confirmed" value=""/>
                                <button type="submit" class="danger">
                                    "Delete" <span class="visually-hidden">{format!(" the case “{}”", case.utterance)}</span>
                                </button>
                            </form>
                        </td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <StackedTable
                columns=&["Utterance", "Expected tool", "Expected arguments"]
                caption="Cases"
                hidden_caption=true
                actions=true
            >
                {rows}
            </StackedTable>
        }
        .into_any()
    };
    let from_phrases = (page.phrase_count > 0).then(|| {
        view! {
            <form method="post" action=AddCasesFromPhrases::PATH class="inline-form">
                <input type="hidden" name="package_name" value=package.clone()/>
                <button type="submit">"Add cases from activation phrases"</button>
            </form>
        }
    });
    let stored = |field: &str| {
        edited
            .as_ref()
            .map_or(String::new(), |(_, case)| match field {
                "utterance" => case.utterance.clone(),
                "expected" => case.expected.clone().unwrap_or_default(),
                _ => case.arguments_text().unwrap_or_default(),
            })
    };
    let options = std::iter::once((String::new(), "No tool".to_owned()))
        .chain(page.tools.iter().map(|id| (id.clone(), id.clone())))
        .collect();
    let expected = view! {
        <SelectField
            label="Expected tool"
            name="expected"
            id="case-expected"
            options
            selected=initial_value(&add_error, "expected", &stored("expected"))
            error=field_message(Signal::stored(add_error.clone()), "expected").get_untracked()
        />
    };
    let message = add_error.as_ref().map(ToString::to_string);
    view! {
        <section class="card stack" id="cases" aria-labelledby="cases-title">
            <h2 id="cases-title">"Cases"</h2>
            <p class="meta">
                "What a user says, and the tool a model should call for it (or none). A call passes when its first tool is the expected one and its arguments contain the expected ones."
            </p>
            {list}
            {from_phrases}
            <form
                method="post"
                action=AddCase::PATH
                novalidate
                id="case-form"
                aria-label=if edited.is_some() { "Edit case" } else { "Add case" }
                class="stack"
            >
                <FormAlert message=Signal::stored(message)/>
                <input type="hidden" name="package_name" value=package.clone()/>
                {edited.as_ref().map(|(id, _)| view! { <input type="hidden" name="id" value=id.to_string()/> })}
                <TextField
                    label="Utterance"
                    name="utterance"
                    id="case-utterance"
                    value=initial_value(&add_error, "utterance", &stored("utterance"))
                    autocomplete="off"
                    required=true
                    error=field_message(Signal::stored(add_error.clone()), "utterance")
                />
                {expected}
                <TextArea
                    label="Expected arguments"
                    name="arguments"
                    id="case-arguments"
                    value=initial_value(&add_error, "arguments", &stored("arguments"))
                    rows=2
                    hint="Optional: a JSON object the call's arguments must contain, like {\"todo_item\": \"milk\"}"
                    error=field_message(Signal::stored(add_error.clone()), "arguments")
                />
                <div class="form-actions">
                    {match edited {
                        Some(_) => view! {
                            <button type="submit" class="primary">"Save case"</button>
                            <a class="button" href=format!("{base}#cases")>"Cancel"</a>
                        }
                            .into_any(),
                        None => view! { <button type="submit" class="primary">"Add case"</button> }.into_any(),
                    }}
                </div>
            </form>
        </section>
    }
}

/// Region "Run": the form that starts a run and, while the shown run goes
/// on, its progress and "Cancel".
#[component]
fn RunSection(page: EvalsPageData, run_error: Option<AppError>) -> impl IntoView {
    let package = page.package_name.clone();
    let following = page
        .shown
        .as_ref()
        .map(|(run, _)| run.clone())
        .filter(|run| run.status.is_open())
        .map(|run| view! { <RunProgress package=package.clone() run read_at=page.read_at/> });
    let form = if page.providers.is_empty() {
        view! {
            <p class="meta">
                "No model providers yet: an admin of the organization adds them on its page, under “Model providers”."
            </p>
        }
        .into_any()
    } else {
        // The provider of the run shown, so that "Run evals" again compares
        // like with like.
        let last = page
            .shown
            .as_ref()
            .map_or("", |(run, _)| run.provider.as_str());
        let options = page
            .providers
            .iter()
            .map(|provider| {
                let label = format!("{} · {}", provider.name, provider.model);
                (provider.name.clone(), label)
            })
            .collect();
        let provider = view! {
            <SelectField
                label="Provider"
                name="provider"
                id="run-provider"
                options
                selected=initial_value(&run_error, "provider", last)
                error=field_message(Signal::stored(run_error.clone()), "provider").get_untracked()
            />
        };
        let message = run_error.as_ref().map(ToString::to_string);
        view! {
            <form method="post" action=RunEvals::PATH novalidate id="run-form" aria-label="Run evals" class="stack">
                <FormAlert message=Signal::stored(message)/>
                <input type="hidden" name="package_name" value=package.clone()/>
                {provider}
                <TextField
                    label="Trials"
                    name="trials"
                    id="run-trials"
                    kind="number"
                    value=initial_value(&run_error, "trials", "3")
                    hint="How many times each case is sent, 1 to 10: a model does not always choose the same"
                    min="1"
                    max="10"
                    error=field_message(Signal::stored(run_error.clone()), "trials")
                />
                <div class="form-actions">
                    <button type="submit" class="primary">"Run evals"</button>
                </div>
            </form>
        }
        .into_any()
    };
    view! {
        <section class="card stack" id="run" aria-labelledby="run-title">
            <h2 id="run-title">"Run"</h2>
            <p class="meta">
                {format!(
                    "Sends every case ({}) to a model with this app's tools, as the OpenAI export gives them, and records which tool it chooses.",
                    page.cases.len()
                )}
            </p>
            {following}
            {form}
        </section>
    }
}

/// A run under way: a progress bar the console script keeps up to date
/// (reloading the page when the run ends), "Cancel", and without
/// JavaScript a link to look again.
#[component]
fn RunProgress(package: String, run: RunSummary, read_at: i64) -> impl IntoView {
    // The time makes the link another address than the page's own, so that
    // following it loads the page again rather than scrolling to #run.
    let here = format!(
        "/console/apps/{}/evals?run={}&at={}#run",
        encode_component(&package),
        run.id,
        read_at
    );
    let followed = package.clone();
    view! {
        <div class="run-progress stack" data-run-progress=run.id.to_string() data-package=followed>
            <p>
                {format!("Run {} · ", run.id)}
                <span data-progress-status>{run.status.label()}</span>
                " · "
                <span data-progress-text>{format!("{} of {} calls", run.calls_done, run.calls_total)}</span>
            </p>
            <progress
                aria-label="Run progress"
                max=run.calls_total.max(1).to_string()
                value=run.calls_done.to_string()
            ></progress>
            <div class="form-actions">
                <form method="post" action=CancelRun::PATH class="inline-form">
                    <input type="hidden" name="package_name" value=package/>
                    <input type="hidden" name="id" value=run.id.to_string()/>
                    <button type="submit">"Cancel"</button>
                </form>
                <a class="no-js" href=here>"Refresh"</a>
            </div>
        </div>
    }
}
