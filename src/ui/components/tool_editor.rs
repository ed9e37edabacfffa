//! The tool editor: a `<form aria-label="Tool editor">` with one fieldset
//! per parameter. Every rule is checked as the developer types (with the
//! same code the server runs), and again by the server on "Save tool".
//!
//! Parameter rows are keyed by an internal counter, never by anything the
//! developer types, so typing never re-creates an input (and loses focus).

use crate::{
    api::{
        tools::{DeleteTool, GetTools, SaveTool},
        AppError,
    },
    domain::{
        tool::{
            check_unique_id, hint_value, parse_hint, HintKind, KeptKeys, ParamType, ParameterDraft,
            ToolDraft, ToolHints, ToolsState, ToolsWritten,
        },
        FieldErrors,
    },
    ui::components::form::FormAlert,
};
use leptos::{ev::SubmitEvent, prelude::*};
use std::collections::HashSet;

/// What a save or delete in the editor came to.
#[derive(Clone, Debug)]
pub struct EditorOutcome {
    /// The app's new revision and the edit made.
    pub written: ToolsWritten,
    /// What to tell the developer ("Saved tool add_todo.").
    pub message: String,
    /// The tool that was saved (to put the focus back on it).
    pub saved_id: Option<String>,
}

/// One parameter being edited.
#[derive(Clone, Copy)]
struct ParamRow {
    key: u64,
    name: RwSignal<String>,
    param_type: RwSignal<String>,
    description: RwSignal<String>,
    required: RwSignal<bool>,
    allowed_values: RwSignal<String>,
    /// Kept from an imported file, given back untouched.
    extra: StoredValue<KeptKeys>,
}

impl ParamRow {
    fn new(key: u64, draft: &ParameterDraft) -> Self {
        ParamRow {
            key,
            name: RwSignal::new(draft.name.clone()),
            param_type: RwSignal::new(if draft.param_type.is_empty() {
                ParamType::String.as_str().to_owned()
            } else {
                draft.param_type.clone()
            }),
            description: RwSignal::new(draft.description.clone()),
            required: RwSignal::new(draft.required),
            allowed_values: RwSignal::new(draft.allowed_values.clone()),
            extra: StoredValue::new(draft.extra.clone()),
        }
    }

    fn draft(&self) -> ParameterDraft {
        ParameterDraft {
            name: self.name.get(),
            param_type: self.param_type.get(),
            description: self.description.get(),
            required: self.required.get(),
            allowed_values: self.allowed_values.get(),
            extra: self.extra.get_value(),
        }
    }

    /// The DOM id of one of this row's inputs.
    fn input_id(&self, field: &str) -> String {
        format!("param-{}-{field}", self.key)
    }
}

/// Which messages to show: rules broken by what is typed (once a field has
/// been edited, or after a save was attempted), and the server's answer to
/// the last save until its field is edited again.
#[derive(Clone, Copy)]
struct EditorErrors {
    client: Memo<FieldErrors>,
    server: RwSignal<FieldErrors>,
    touched: RwSignal<HashSet<String>>,
    attempted: RwSignal<bool>,
}

impl EditorErrors {
    /// The message for `field` (an error key like `parameters[1].name`),
    /// whose input is `input_id`.
    fn message(&self, field: &str, input_id: &str) -> Option<String> {
        if let Some(message) = self.server.with(|s| s.first(field).map(str::to_owned)) {
            return Some(message);
        }
        let show = self.attempted.get() || self.touched.with(|t| t.contains(input_id));
        if show {
            self.client.with(|c| c.first(field).map(str::to_owned))
        } else {
            None
        }
    }

    fn edited(&self, field: &str, input_id: &str) {
        self.touched.update(|t| {
            t.insert(input_id.to_owned());
        });
        if self.server.with_untracked(|s| s.first(field).is_some()) {
            self.server.update(|s| s.remove(field));
        }
    }
}

fn focus(id: &str) {
    use leptos::wasm_bindgen::JsCast;
    if let Some(element) = document()
        .get_element_by_id(id)
        .and_then(|e| e.dyn_into::<leptos::web_sys::HtmlElement>().ok())
    {
        let _ = element.focus();
    }
}

/// Focuses `id` once the DOM has caught up with a change just made (and
/// so brings it into view).
pub(crate) fn focus_soon(id: String) {
    request_animation_frame(move || focus(&id));
}

#[component]
pub fn ToolEditor(
    package_name: String,
    /// The app's revision, shared with everything else on the page that edits it.
    revision: RwSignal<i64>,
    draft: ToolDraft,
    /// The id of the stored tool being edited; `None` for a new tool.
    original_id: Option<String>,
    /// The ids of the app's other tools (a tool id is unique within its app).
    #[prop(into)]
    other_ids: Signal<Vec<String>>,
    /// A save or delete went through.
    on_done: Callback<EditorOutcome>,
    on_cancel: Callback<()>,
    /// The latest state was fetched after a conflict.
    on_reload: Callback<ToolsState>,
    /// A field to focus as the editor opens, as a check names it
    /// (`hints.destructive`, `parameters.city.enum`, `title`).
    #[prop(default = None)]
    focus_field: Option<String>,
) -> impl IntoView {
    let is_new = original_id.is_none();
    let tool_id = RwSignal::new(draft.tool_id.clone());
    let description = RwSignal::new(draft.description.clone());
    let phrases = RwSignal::new(draft.activation_phrases.clone());
    let title = RwSignal::new(draft.title.clone());
    let max_calls = RwSignal::new(draft.max_calls.clone());
    let hints = RwSignal::new(draft.hints);
    // Kept from an imported file; the editor gives them back untouched.
    let kept = StoredValue::new(draft.extra.clone());

    let next_key = StoredValue::new(0_u64);
    let new_key = move || {
        let key = next_key.get_value();
        next_key.set_value(key + 1);
        key
    };
    let rows = RwSignal::new(
        draft
            .parameters
            .iter()
            .map(|p| ParamRow::new(new_key(), p))
            .collect::<Vec<_>>(),
    );

    let current = move || ToolDraft {
        tool_id: tool_id.get(),
        description: description.get(),
        activation_phrases: phrases.get(),
        title: title.get(),
        max_calls: max_calls.get(),
        hints: hints.get(),
        parameters: rows.get().iter().map(ParamRow::draft).collect(),
        extra: kept.get_value(),
    };
    let client = Memo::new(move |_| {
        let draft = current();
        let mut errors = draft.parse().err().unwrap_or_default();
        if let Err(taken) = other_ids
            .with(|ids| check_unique_id(draft.tool_id.trim(), ids.iter().map(String::as_str)))
        {
            errors.merge(taken);
        }
        errors
    });
    let errors = EditorErrors {
        client,
        server: RwSignal::new(FieldErrors::new()),
        touched: RwSignal::new(HashSet::new()),
        attempted: RwSignal::new(false),
    };
    let alert = RwSignal::new(None::<AppError>);

    let save = ServerAction::<SaveTool>::new();
    let delete = ServerAction::<DeleteTool>::new();
    let reload = ServerAction::<GetTools>::new();
    // Not `let saving = save.pending()` once, as the other forms do: taken
    // here, the pending memos pulled 53 KB of code the lazy chunks share into
    // the main wasm (the app page's first load), for a few memos saved.
    let busy = Signal::derive(move || {
        save.pending().get() || delete.pending().get() || reload.pending().get()
    });

    // The DOM id of the input an error key belongs to.
    let input_for = move |field: &str| -> String {
        if let Some(rest) = field.strip_prefix("parameters[") {
            let (index, param_field) = rest.split_once("].").unwrap_or((rest, "name"));
            let row = index
                .trim_end_matches(']')
                .parse::<usize>()
                .ok()
                .and_then(|i| rows.with_untracked(|r| r.get(i).copied()));
            return match row {
                Some(row) => row.input_id(param_field),
                None => "tool-add-parameter".to_owned(),
            };
        }
        match field {
            "tool_id" => "tool-id".into(),
            "description" => "tool-description".into(),
            "activation_phrases" => "tool-phrases".into(),
            "title" => "tool-title".into(),
            "max_calls" => "tool-max-calls".into(),
            _ => "tool-add-parameter".into(),
        }
    };
    let focus_first_error = move |problems: &FieldErrors| {
        const ORDER: [&str; 5] = [
            "tool_id",
            "description",
            "activation_phrases",
            "title",
            "max_calls",
        ];
        let first = ORDER
            .iter()
            .find(|f| problems.first(f).is_some())
            .map(|f| f.to_string())
            .or_else(|| problems.fields().next().map(str::to_owned));
        if let Some(field) = first {
            focus_soon(input_for(&field));
        }
    };

    // The editor opens with the focus in it: at the field a check named,
    // else at "Tool ID".
    {
        let field = focus_field.unwrap_or_default();
        let id = match field.strip_prefix("hints.") {
            Some(hint) => format!("tool-hint-{hint}"),
            None => {
                let editor_field = match field.as_str() {
                    "activationPhrases" => "activation_phrases".to_owned(),
                    "description" | "title" => field.clone(),
                    other => match other.strip_prefix("parameters.") {
                        Some(rest) => {
                            let (name, what) = rest.rsplit_once('.').unwrap_or((rest, "name"));
                            let what = if what == "enum" {
                                "allowed_values"
                            } else {
                                what
                            };
                            let index = rows.with_untracked(|r| {
                                r.iter().position(|row| row.name.get_untracked() == name)
                            });
                            match index {
                                Some(index) => format!("parameters[{index}].{what}"),
                                None => "tool_id".to_owned(),
                            }
                        }
                        None => "tool_id".to_owned(),
                    },
                };
                input_for(&editor_field)
            }
        };
        Effect::new(move |_| focus_soon(id.clone()));
    }

    let (package_for_save, original_for_save) = (package_name.clone(), original_id.clone());
    let on_submit = move |ev: SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        errors.attempted.set(true);
        let problems = client.get_untracked();
        if !problems.is_empty() {
            focus_first_error(&problems);
            return;
        }
        alert.set(None);
        save.dispatch(SaveTool {
            package_name: package_for_save.clone(),
            revision: revision.get_untracked(),
            original_id: original_for_save.clone(),
            draft: current(),
        });
    };
    Effect::new(move |_| match save.value().get() {
        Some(Ok(written)) => {
            let saved = tool_id.get_untracked().trim().to_owned();
            on_done.run(EditorOutcome {
                written,
                message: format!("Saved tool {saved}."),
                saved_id: Some(saved),
            });
        }
        Some(Err(AppError::Validation(problems))) => {
            focus_first_error(&problems);
            errors.server.set(problems);
        }
        Some(Err(error)) => alert.set(Some(error)),
        None => {}
    });

    let (package_for_delete, original_for_delete) = (package_name.clone(), original_id.clone());
    let on_delete = move |_| {
        let Some(id) = original_for_delete.clone() else {
            return;
        };
        let question = format!(
            "Delete the tool {id}? Its parameters are deleted with it. This cannot be undone."
        );
        if window().confirm_with_message(&question).unwrap_or(false) {
            alert.set(None);
            delete.dispatch(DeleteTool {
                package_name: package_for_delete.clone(),
                revision: revision.get_untracked(),
                tool_id: id,
            });
        }
    };
    Effect::new(move |_| match delete.value().get() {
        Some(Ok(written)) => {
            let deleted = original_id.clone().unwrap_or_default();
            on_done.run(EditorOutcome {
                written,
                message: format!("Deleted tool {deleted}."),
                saved_id: None,
            });
        }
        Some(Err(error)) => alert.set(Some(error)),
        None => {}
    });

    let package_for_reload = StoredValue::new(package_name.clone());
    let on_reload_click = move |_| {
        reload.dispatch(GetTools {
            package_name: package_for_reload.get_value(),
        });
    };
    Effect::new(move |_| match reload.value().get() {
        Some(Ok(state)) => {
            alert.set(None);
            on_reload.run(state);
        }
        Some(Err(error)) => alert.set(Some(error)),
        None => {}
    });

    let add_parameter = move |_| {
        let row = ParamRow::new(new_key(), &ParameterDraft::default());
        rows.update(|r| r.push(row));
        focus_soon(row.input_id("name"));
    };

    let alert_message = Signal::derive(move || alert.get().map(|e| e.to_string()));
    let is_conflict =
        Signal::derive(move || alert.with(|e| e.as_ref().is_some_and(AppError::is_conflict)));

    view! {
        <form class="tool-editor stack" aria-label="Tool editor" novalidate on:submit=on_submit>
            <h3 class="editor-title">
                {if is_new { "New tool".to_owned() } else { format!("Edit tool {}", draft.tool_id) }}
            </h3>
            <FormAlert message=alert_message/>
            <Show when=move || is_conflict.get()>
                <p class="conflict-actions">
                    "What you typed is kept. "
                    <button type="button" on:click=on_reload_click disabled=move || busy.get()>
                        "Reload"
                    </button>
                    " fetches the latest version of the app's tools; saving after it replaces them with yours."
                </p>
            </Show>
            <EditorField
                label="Tool ID"
                id="tool-id"
                field="tool_id"
                value=tool_id
                errors
                hint="Letters, digits, _ and -, starting with a letter or _ (like add_todo)."
            />
            <div class="field">
                <label for="tool-description">"Description"</label>
                <p class="hint" id="tool-description-hint">
                    "What the tool does; the assistant reads this to decide when to use it."
                </p>
                <textarea
                    id="tool-description"
                    name="description"
                    rows="3"
                    class="prose"
                    prop:value=move || description.get()
                    on:input=move |ev| {
                        description.set(event_target_value(&ev));
                        errors.edited("description", "tool-description");
                    }
                    aria-describedby="tool-description-hint tool-description-error"
                    aria-invalid=move || invalid(errors.message("description", "tool-description"))
                ></textarea>
                <p class="field-error" id="tool-description-error">
                    {move || errors.message("description", "tool-description")}
                </p>
            </div>
            <EditorField
                label="Activation phrases"
                id="tool-phrases"
                field="activation_phrases"
                value=phrases
                errors
                hint="Comma-separated, like: add a reminder, create a todo. Repeats and empty entries are dropped."
            />
            <div class="field-row">
                <EditorField label="Title" id="tool-title" field="title" value=title errors hint="Optional display name (MCP, Tambo)."/>
                <EditorField
                    label="Max calls"
                    id="tool-max-calls"
                    field="max_calls"
                    value=max_calls
                    errors
                    numeric=true
                    hint="Optional, 1 to 100 calls per response (Tambo)."
                />
            </div>
            <fieldset class="hints">
                <legend>"Hints"</legend>
                <p class="hint" id="tool-hints-hint">
                    "How an assistant may treat the tool. Decide each: an MCP client reads one not set as destructive and open world."
                </p>
                <div class="hint-grid">
                    {HintKind::ALL
                        .into_iter()
                        .map(|kind| view! { <EditorHint kind hints/> })
                        .collect_view()}
                </div>
            </fieldset>

            <div class="parameters stack">
                <h4>"Parameters"</h4>
                <Show when=move || rows.with(Vec::is_empty)>
                    <p class="hint">"No parameters: the tool is called without input."</p>
                </Show>
                <p class="field-error" id="tool-parameters-error">
                    {move || errors.message("parameters", "tool-add-parameter")}
                </p>
                <For each=move || rows.get() key=|row| row.key let:row>
                    <ParamFieldset row rows errors/>
                </For>
                <div>
                    <button type="button" id="tool-add-parameter" on:click=add_parameter>
                        "Add parameter"
                    </button>
                </div>
            </div>

            <div class="form-actions">
                <button
                    type="submit"
                    class="primary"
                    aria-busy=move || if save.pending().get() { "true" } else { "false" }
                    disabled=move || busy.get()
                >
                    "Save tool"
                </button>
                <button type="button" on:click=move |_| on_cancel.run(()) disabled=move || busy.get()>
                    "Cancel"
                </button>
                {(!is_new)
                    .then(|| {
                        view! {
                            <button
                                type="button"
                                class="danger push-end"
                                on:click=on_delete
                                aria-busy=move || if delete.pending().get() { "true" } else { "false" }
                                disabled=move || busy.get()
                            >
                                "Delete tool"
                            </button>
                        }
                    })}
            </div>
        </form>
    }
}

fn invalid(message: Option<String>) -> &'static str {
    if message.is_some() {
        "true"
    } else {
        "false"
    }
}

/// A labelled text input of the editor bound to `value`, with its error.
#[component]
fn EditorField(
    label: &'static str,
    id: &'static str,
    /// The error key of this field.
    field: &'static str,
    value: RwSignal<String>,
    errors: EditorErrors,
    #[prop(optional)] hint: Option<&'static str>,
    /// A whole number: a numeric keyboard, but still text, so that whatever
    /// is typed reaches the same check as on the server.
    #[prop(optional)]
    numeric: bool,
) -> impl IntoView {
    let error_id = format!("{id}-error");
    let hint_id = format!("{id}-hint");
    let described_by = match hint {
        Some(_) => format!("{hint_id} {error_id}"),
        None => error_id.clone(),
    };
    view! {
        <div class="field">
            <label for=id>{label}</label>
            {hint.map(|hint| view! { <p class="hint" id=hint_id.clone()>{hint}</p> })}
            <input
                id=id
                name=field
                type="text"
                autocomplete="off"
                spellcheck="false"
                inputmode=numeric.then_some("numeric")
                prop:value=move || value.get()
                on:input=move |ev| {
                    value.set(event_target_value(&ev));
                    errors.edited(field, id);
                }
                aria-describedby=described_by
                aria-invalid=move || invalid(errors.message(field, id))
            />
            <p class="field-error" id=error_id>{move || errors.message(field, id)}</p>
        </div>
    }
}

#[component]
fn EditorHint(kind: HintKind, hints: RwSignal<ToolHints>) -> impl IntoView {
    let id = format!("tool-hint-{}", kind.key());
    let option = move |value: Option<bool>, label: &'static str| {
        view! {
            <option value=hint_value(value) selected=move || hints.get().get(kind) == value>
                {label}
            </option>
        }
    };
    view! {
        <div class="field">
            <label for=id.clone()>{kind.label()}</label>
            <select
                id=id
                aria-describedby="tool-hints-hint"
                prop:value=move || hint_value(hints.get().get(kind))
                on:change=move |ev| {
                    let value = parse_hint(&event_target_value(&ev));
                    hints.update(|h| h.set(kind, value));
                }
            >
                {option(None, "Not set")}
                {option(Some(true), "Yes")}
                {option(Some(false), "No")}
            </select>
        </div>
    }
}

/// One parameter: "Parameter N" with its fields and its row's buttons.
#[component]
fn ParamFieldset(
    row: ParamRow,
    rows: RwSignal<Vec<ParamRow>>,
    errors: EditorErrors,
) -> impl IntoView {
    let key = row.key;
    let index =
        Memo::new(move |_| rows.with(|r| r.iter().position(|other| other.key == key).unwrap_or(0)));
    let count = Memo::new(move |_| rows.with(Vec::len));
    let error_key = move |field: &str| format!("parameters[{}].{field}", index.get());
    let message = move |field: &'static str| {
        let input_id = row.input_id(field);
        Signal::derive(move || errors.message(&error_key(field), &input_id))
    };
    let edited = move |field: &'static str| {
        errors.edited(
            &format!("parameters[{}].{field}", index.get_untracked()),
            &row.input_id(field),
        );
    };
    let is_string = Memo::new(move |_| row.param_type.get() == ParamType::String.as_str());

    let shift = move |up: bool| {
        let from = index.get_untracked();
        let to = if up {
            from.checked_sub(1)
        } else {
            Some(from + 1)
        };
        let Some(to) = to.filter(|to| *to < count.get_untracked()) else {
            return;
        };
        rows.update(|r| r.swap(from, to));
        // Moving a node drops its focus; give it back to the same button.
        let at_end = (up && to == 0) || (!up && to + 1 == count.get_untracked());
        let button = if at_end == up { "down" } else { "up" };
        focus_soon(format!("param-{key}-move-{button}"));
    };
    let remove = move |_| {
        let at = index.get_untracked();
        rows.update(|r| {
            r.retain(|other| other.key != key);
        });
        // Focus the next row's name, or "Add parameter".
        let next = rows.with_untracked(|r| r.get(at).or(r.last()).copied());
        focus_soon(match next {
            Some(next) => next.input_id("name"),
            None => "tool-add-parameter".to_owned(),
        });
    };

    let ids = |field: &str| {
        (
            row.input_id(field),
            format!("{}-error", row.input_id(field)),
        )
    };
    let (name_id, name_error_id) = ids("name");
    let (type_id, type_error_id) = ids("param_type");
    let (description_id, description_error_id) = ids("description");
    let (required_id, _) = ids("required");
    let required_label_for = required_id.clone();
    let (allowed_id, allowed_error_id) = ids("allowed_values");
    let allowed_hint_id = format!("{allowed_id}-hint");
    let (name_message, type_message, description_message, allowed_message) = (
        message("name"),
        message("param_type"),
        message("description"),
        message("allowed_values"),
    );
    let legend_id = format!("param-{key}-legend");

    view! {
        <fieldset class="parameter">
            <legend id=legend_id>{move || format!("Parameter {}", index.get() + 1)}</legend>
            <div class="field-row">
                <div class="field">
                    <label for=name_id.clone()>"Name"</label>
                    <input
                        id=name_id
                        type="text"
                        autocomplete="off"
                        spellcheck="false"
                        prop:value=move || row.name.get()
                        on:input=move |ev| {
                            row.name.set(event_target_value(&ev));
                            edited("name");
                        }
                        aria-describedby=name_error_id.clone()
                        aria-invalid=move || invalid(name_message.get())
                    />
                    <p class="field-error" id=name_error_id>{move || name_message.get()}</p>
                </div>
                <div class="field">
                    <label for=type_id.clone()>"Type"</label>
                    <select
                        id=type_id
                        prop:value=move || row.param_type.get()
                        on:change=move |ev| {
                            let chosen = event_target_value(&ev);
                            if chosen != ParamType::String.as_str() {
                                // Allowed values are only for strings: clear them.
                                row.allowed_values.set(String::new());
                            }
                            row.param_type.set(chosen);
                            edited("param_type");
                        }
                        aria-describedby=type_error_id.clone()
                        aria-invalid=move || invalid(type_message.get())
                    >
                        {ParamType::ALL
                            .into_iter()
                            .map(|t| {
                                view! {
                                    <option value=t.as_str() selected=move || row.param_type.get() == t.as_str()>
                                        {t.as_str()}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                    <p class="field-error" id=type_error_id>{move || type_message.get()}</p>
                </div>
            </div>
            <div class="field">
                <label for=description_id.clone()>"Description"</label>
                <input
                    id=description_id
                    type="text"
                    autocomplete="off"
                    prop:value=move || row.description.get()
                    on:input=move |ev| {
                        row.description.set(event_target_value(&ev));
                        edited("description");
                    }
                    aria-describedby=description_error_id.clone()
                    aria-invalid=move || invalid(description_message.get())
                />
                <p class="field-error" id=description_error_id>{move || description_message.get()}</p>
            </div>
            <label class="checkbox" for=required_label_for>
                <input
                    type="checkbox"
                    id=required_id
                    prop:checked=move || row.required.get()
                    on:change=move |ev| row.required.set(event_target_checked(&ev))
                />
                "Required"
            </label>
            <div class="field">
                <label for=allowed_id.clone()>"Allowed values"</label>
                <p class="hint" id=allowed_hint_id.clone()>
                    {move || {
                        if is_string.get() {
                            "Optional, comma-separated, like: low, medium, high."
                        } else {
                            "Only string parameters have allowed values."
                        }
                    }}
                </p>
                <input
                    id=allowed_id
                    type="text"
                    autocomplete="off"
                    disabled=move || !is_string.get()
                    prop:value=move || row.allowed_values.get()
                    on:input=move |ev| {
                        row.allowed_values.set(event_target_value(&ev));
                        edited("allowed_values");
                    }
                    aria-describedby=format!("{allowed_hint_id} {allowed_error_id}")
                    aria-invalid=move || invalid(allowed_message.get())
                />
                <p class="field-error" id=allowed_error_id>{move || allowed_message.get()}</p>
            </div>
            <div class="row-actions">
                <button
                    type="button"
                    id=format!("param-{key}-move-up")
                    on:click=move |_| shift(true)
                    disabled=move || index.get() == 0
                >
                    "Move up"
                </button>
                <button
                    type="button"
                    id=format!("param-{key}-move-down")
                    on:click=move |_| shift(false)
                    disabled=move || { index.get() + 1 >= count.get() }
                >
                    "Move down"
                </button>
                <button type="button" class="danger" on:click=remove>
                    "Remove parameter"
                </button>
            </div>
        </fieldset>
    }
}
