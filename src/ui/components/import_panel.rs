//! The import page's form and results: a file or pasted JSON, "Preview
//! import" (every problem with its JSON path, or what would change), then
//! "Apply import".

use crate::{
    api::{
        import::{ApplyImport, ImportAnalysis, PreviewImport},
        AppError,
    },
    domain::import::{ImportPreview, Problem, MAX_IMPORT_BYTES},
    ui::components::form::{typed_before_waking, FormAlert},
};
use leptos::{ev::SubmitEvent, prelude::*};

#[island]
pub fn ImportPanel(package_name: String) -> impl IntoView {
    let hydrated = RwSignal::new(false);
    let content = RwSignal::new(typed_before_waking("import-content").unwrap_or_default());
    let file_loading = RwSignal::new(false);
    let file_error = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        hydrated.set(true);
        read_file_chosen_before_waking(content, file_loading, file_error);
    });
    // The text the last valid preview was made of: "Apply import" applies only that.
    let previewed = RwSignal::new(None::<(String, i64)>);
    // The text the preview under way was asked for.
    let sent = StoredValue::new(String::new());
    let preview = ServerAction::<PreviewImport>::new();
    let apply = ServerAction::<ApplyImport>::new();
    let package = StoredValue::new(package_name);

    Effect::new(move |_| {
        if let Some(Ok(ImportAnalysis::Valid { revision, .. })) = preview.value().get() {
            previewed.set(Some((sent.get_value(), revision)));
        } else if preview.value().with(|v| v.is_some()) {
            previewed.set(None);
        }
    });
    // `pending` makes a new memo at each call: once each, here.
    let (previewing, applying) = (preview.pending(), apply.pending());
    let can_apply = Signal::derive(move || {
        previewed.with(|p| p.as_ref().is_some_and(|(text, _)| *text == content.get()))
            && !applying.get()
    });
    let busy = Signal::derive(move || previewing.get() || applying.get() || file_loading.get());

    let on_file = move |ev: leptos::ev::Event| {
        file_error.set(None);
        read_file(ev, content, file_loading, file_error);
    };
    let on_submit = move |ev: SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        previewed.set(None);
        sent.set_value(content.get_untracked());
        preview.dispatch(PreviewImport {
            package_name: package.get_value(),
            content: content.get_untracked(),
        });
    };
    let on_apply = move |_| {
        if let Some((text, revision)) = previewed.get_untracked() {
            apply.dispatch(ApplyImport {
                package_name: package.get_value(),
                revision,
                content: text,
            });
        }
    };
    let apply_error = Signal::derive(move || match apply.value().get() {
        Some(Err(AppError::Validation(errors))) => Some(
            errors
                .iter()
                .flat_map(|(_, m)| m.to_vec())
                .collect::<Vec<_>>()
                .join("; "),
        ),
        Some(Err(error)) => Some(error.to_string()),
        _ => None,
    });
    let transport_error = Signal::derive(move || match preview.value().get() {
        Some(Err(error)) => Some(error.to_string()),
        _ => None,
    });

    view! {
        <form
            class="stack"
            aria-label="Import"
            novalidate
            on:submit=on_submit
            data-hydrated=move || if hydrated.get() { "true" } else { "false" }
        >
            <Show when=move || !hydrated.get()>
                <p class="hint">"Importing needs JavaScript."</p>
            </Show>
            <div class="field">
                <label for="import-file">"Config file"</label>
                <p class="hint" id="import-file-hint">
                    "A .json file of up to 1 MiB; its text goes into the box below."
                </p>
                <input
                    id="import-file"
                    type="file"
                    accept=".json,application/json"
                    aria-describedby="import-file-hint import-file-error"
                    on:change=on_file
                />
                <p class="field-error" id="import-file-error">{move || file_error.get()}</p>
            </div>
            <div class="field">
                <label for="import-content">"Config JSON"</label>
                <p class="hint" id="import-content-hint">
                    "A Mentra app_config.json or tpa_config.json, or an MCP tools list. Nothing changes until “Apply import”."
                </p>
                <textarea
                    id="import-content"
                    rows="14"
                    spellcheck="false"
                    aria-describedby="import-content-hint"
                    prop:value=move || content.get()
                    on:input=move |ev| content.set(event_target_value(&ev))
                ></textarea>
            </div>
            <div class="form-actions">
                <button
                    type="submit"
                    class="primary"
                    disabled=move || !hydrated.get() || busy.get()
                    aria-busy=move || if previewing.get() { "true" } else { "false" }
                >
                    "Preview import"
                </button>
                <button
                    type="button"
                    disabled=move || !hydrated.get() || !can_apply.get()
                    aria-busy=move || if applying.get() { "true" } else { "false" }
                    on:click=on_apply
                >
                    "Apply import"
                </button>
            </div>
        </form>
        <FormAlert message=transport_error/>
        <FormAlert message=apply_error/>
        {move || {
            preview
                .value()
                .get()
                .and_then(Result::ok)
                .map(|analysis| match analysis {
                    ImportAnalysis::Invalid { errors, warnings } => {
                        view! { <InvalidImport errors warnings/> }.into_any()
                    }
                    ImportAnalysis::Valid { format, preview, warnings, tools, .. } => {
                        view! {
                            <ImportPreviewView
                                package_name=package.get_value()
                                format=format.label()
                                preview
                                warnings
                                tools
                            />
                        }
                            .into_any()
                    }
                })
        }}
    }
}

#[component]
fn InvalidImport(errors: Vec<Problem>, warnings: Vec<Problem>) -> impl IntoView {
    let count = errors.len();
    view! {
        <div class="alert stack" role="alert">
            <p>
                <strong>
                    {if count == 1 {
                        "This file cannot be imported: 1 problem.".to_owned()
                    } else {
                        format!("This file cannot be imported: {count} problems.")
                    }}
                </strong>
                " Nothing was changed."
            </p>
            <ul class="problems">
                {errors.into_iter().map(|p| view! { <li><code>{p.path}</code> ": " {p.message}</li> }).collect_view()}
            </ul>
        </div>
        <Warnings warnings/>
    }
}

#[component]
fn Warnings(warnings: Vec<Problem>) -> impl IntoView {
    (!warnings.is_empty()).then(|| {
        view! {
            <div class="card stack">
                <h3>"Warnings"</h3>
                <ul class="problems">
                    {warnings
                        .into_iter()
                        .map(|p| view! { <li><code>{p.path}</code> ": " {p.message}</li> })
                        .collect_view()}
                </ul>
            </div>
        }
    })
}

#[component]
fn ImportPreviewView(
    /// The app's own package name.
    package_name: String,
    format: &'static str,
    preview: ImportPreview,
    warnings: Vec<Problem>,
    tools: usize,
) -> impl IntoView {
    let nothing = preview.is_empty();
    let list = |title: &'static str, items: Vec<String>| {
        (!items.is_empty()).then(|| {
            view! {
                <h3>{title}</h3>
                <ul>{items.into_iter().map(|i| view! { <li><code>{i}</code></li> }).collect_view()}</ul>
            }
        })
    };
    view! {
        <section class="card stack import-preview" aria-label="Import preview">
            <h2>"What the import would change"</h2>
            <p class="meta">
                {format!("Read as: {format}. After the import the app has {tools} ")}
                {if tools == 1 { "tool." } else { "tools." }}
            </p>
            {preview
                .foreign_package
                .clone()
                .map(|theirs| {
                    view! {
                        <p class="caution">
                            "This file was made for " <code>{theirs}</code> ". Its tools go into "
                            <code>{package_name.clone()}</code>
                            ", which keeps its own package name: an app's package name never changes."
                        </p>
                    }
                })}
            {nothing.then(|| view! { <p>"Nothing: the app already is exactly this."</p> })}
            {(!preview.app_fields.is_empty())
                .then(|| {
                    view! {
                        <h3>"App details"</h3>
                        <ul>{preview.app_fields.into_iter().map(|f| view! { <li>{f}</li> }).collect_view()}</ul>
                    }
                })}
            {list("Tools added", preview.added)}
            {(!preview.changed.is_empty())
                .then(|| {
                    view! {
                        <h3>"Tools changed"</h3>
                        <ul>
                            {preview
                                .changed
                                .into_iter()
                                .map(|c| view! { <li><code>{c.id}</code> ": " {c.changes.join("; ")}</li> })
                                .collect_view()}
                        </ul>
                    }
                })}
            {list("Tools removed", preview.removed)}
            {preview.order_changed.then(|| view! { <p>"The order of the tools changes."</p> })}
            {preview.settings_changed.then(|| view! { <p>"The settings array changes (kept verbatim)."</p> })}
            {(!preview.kept_changed.is_empty())
                .then(|| {
                    view! {
                        <p>
                            "Kept as the file has them (the console does not edit them): "
                            {preview
                                .kept_changed
                                .iter()
                                .enumerate()
                                .map(|(i, key)| view! { {(i > 0).then_some(", ")} <code>{key.clone()}</code> })
                                .collect_view()}
                        </p>
                    }
                })}
            {(preview.unchanged > 0).then(|| view! { <p class="meta">{format!("Unchanged tools: {}", preview.unchanged)}</p> })}
        </section>
        <Warnings warnings/>
    }
}

/// Puts the chosen file's text into `content` (at most 1 MiB).
fn read_file(
    ev: leptos::ev::Event,
    content: RwSignal<String>,
    loading: RwSignal<bool>,
    error: RwSignal<Option<String>>,
) {
    #[cfg(feature = "hydrate")]
    {
        use leptos::wasm_bindgen::JsCast;
        if let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        {
            read_chosen(input, content, loading, error);
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (ev, content, loading, error, MAX_IMPORT_BYTES);
}

/// A file chosen before the island woke (nothing heard its choosing): read
/// now, unless text has been put in since.
fn read_file_chosen_before_waking(
    content: RwSignal<String>,
    loading: RwSignal<bool>,
    error: RwSignal<Option<String>>,
) {
    #[cfg(feature = "hydrate")]
    {
        use leptos::wasm_bindgen::JsCast;
        if !content.get_untracked().is_empty() {
            return;
        }
        if let Some(input) = document()
            .get_element_by_id("import-file")
            .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
        {
            read_chosen(input, content, loading, error);
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (content, loading, error);
}

#[cfg(feature = "hydrate")]
fn read_chosen(
    input: web_sys::HtmlInputElement,
    content: RwSignal<String>,
    loading: RwSignal<bool>,
    error: RwSignal<Option<String>>,
) {
    let Some(file) = input.files().and_then(|files| files.get(0)) else {
        return;
    };
    if file.size() > MAX_IMPORT_BYTES as f64 {
        error.set(Some("This file is larger than 1 MiB.".to_owned()));
        return;
    }
    loading.set(true);
    leptos::task::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(file.text()).await {
            Ok(text) => content.set(text.as_string().unwrap_or_default()),
            Err(_) => error.set(Some("This file could not be read.".to_owned())),
        }
        loading.set(false);
    });
}
