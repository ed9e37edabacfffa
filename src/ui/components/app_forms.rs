//! The forms of an app: create, edit details, delete, and the app page's
//! island that holds them with the tools and the API keys. Over server
//! functions; each form also works as a plain form post without JavaScript.

use crate::{
    api::{
        apps::{CreateApp, DeleteApp, GetChecks, SaveApp},
        AppError,
    },
    domain::{
        app::{AppDetails, DEFAULT_VERSION},
        checks::CheckSummary,
        keys::ApiKeySummary,
        tool::ToolSummary,
    },
    ui::components::{
        api_keys::ApiKeysSection,
        checks_panel::ChecksPanel,
        form::{
            field_message, form_error, form_message, initial_value, FormAlert, Notice,
            SubmitButton, TextArea, TextField,
        },
        tools_section::ToolsSection,
    },
};
use leptos::prelude::*;

const PACKAGE_HINT: &str =
    "Lower-case letters, digits, dots and hyphens, like com.example.todo. It cannot be changed later.";
const URL_HINT: &str =
    "The base URL of your app's server; the assistant sends tool calls to its /tool path.";

#[component]
pub fn NewAppForm(initial_error: Option<AppError>) -> impl IntoView {
    let action = ServerAction::<CreateApp>::new();
    let error = form_error(action, initial_error.clone());
    let value = move |field: &str, default: &str| initial_value(&initial_error, field, default);
    view! {
        <ActionForm action=action attr:novalidate=true attr:aria-label="New app">
            <FormAlert message=form_message(error)/>
            <TextField
                label="Package name"
                name="package_name"
                id="app-package-name"
                value=value("package_name", "")
                hint=PACKAGE_HINT
                autocomplete="off"
                required=true
                error=field_message(error, "package_name")
            />
            <TextField
                label="Name"
                name="name"
                id="app-name"
                value=value("name", "")
                autocomplete="off"
                required=true
                error=field_message(error, "name")
            />
            <TextArea
                label="Description"
                name="description"
                id="app-description"
                value=value("description", "")
                error=field_message(error, "description")
            />
            <TextField
                label="Version"
                name="version"
                id="app-version"
                value=value("version", DEFAULT_VERSION)
                autocomplete="off"
                required=true
                error=field_message(error, "version")
            />
            <TextField
                label="Server URL"
                name="public_url"
                id="app-public-url"
                kind="url"
                value=value("public_url", "")
                hint=URL_HINT
                placeholder="https://todo.example.com"
                required=true
                error=field_message(error, "public_url")
            />
            <div class="form-actions">
                <SubmitButton label="Create app" pending=action.pending()/>
                <a href="/console/apps">"Cancel"</a>
            </div>
        </ActionForm>
    }
}

/// What on the app's page follows its revision: its details and AI tools
/// with their checks, and its API keys. One island: until it wakes it is
/// server HTML whose forms post without JavaScript.
///
/// Its children are the checks as the page was drawn (server HTML, shown
/// until the first change): a large app's checks name every tool a rule
/// concerns, so carrying them in the island's props too would double the
/// heaviest part of the page. The island only needs how many there are.
#[island]
pub fn AppConsole(
    app: AppDetails,
    tools: Vec<ToolSummary>,
    keys: Vec<ApiKeySummary>,
    /// How many lines the checks have, for the count beside "AI Tools".
    findings: usize,
    /// Whether the developer is an admin of the app's organization: only an
    /// admin manages its API keys.
    admin: bool,
    notice: Option<String>,
    save_error: Option<AppError>,
    children: Children,
) -> impl IntoView {
    let package_name = app.package_name.clone();
    view! {
        <div class="stack">
            <AppEditor app tools findings notice initial_error=save_error checks_drawn=children/>
            {if admin {
                view! { <ApiKeysSection package_name=package_name.clone() keys/> }.into_any()
            } else {
                view! {
                    <section class="card stack" aria-labelledby="keys-title">
                        <h2 id="keys-title">"API keys"</h2>
                        <p>
                            {match keys.len() {
                                1 => "The app has 1 API key. ".to_owned(),
                                n => format!("The app has {n} API keys. "),
                            }}
                            "Only an admin of its organization can create or revoke API keys."
                        </p>
                    </section>
                }
                    .into_any()
            }}
        </div>
    }
}

/// "Delete this app", for an admin of the app's organization: an island
/// of its own at the end of the page, a plain form post until it wakes.
#[island]
pub fn DeleteAppSection(package_name: String, initial_error: Option<AppError>) -> impl IntoView {
    view! {
        <section class="card stack danger-zone" aria-labelledby="delete-title">
            <h2 id="delete-title">"Delete this app"</h2>
            <DeleteAppForm package_name initial_error/>
        </section>
    }
}

/// The app's details, its AI tools and their checks, together because they
/// follow the app's revision.
#[component]
fn AppEditor(
    app: AppDetails,
    tools: Vec<ToolSummary>,
    findings: usize,
    notice: Option<String>,
    initial_error: Option<AppError>,
    /// The checks as the page was drawn (server HTML).
    checks_drawn: Children,
) -> impl IntoView {
    let revision = RwSignal::new(app.revision);
    // The checks of the app since its first change on this page (`None`
    // until then: the page shows them as drawn); asked for again after
    // every change.
    let checks = RwSignal::new(None);
    let refresh = ServerAction::<GetChecks>::new();
    let package_for_checks = StoredValue::new(app.package_name.clone());
    Effect::new(move |seen: Option<i64>| {
        let now = revision.get();
        if seen.is_some_and(|seen| seen != now) {
            refresh.dispatch(GetChecks {
                package_name: package_for_checks.get_value(),
            });
        }
        now
    });
    Effect::new(move |_| {
        if let Some(Ok(latest)) = refresh.value().get() {
            checks.set(Some(latest));
        }
    });
    let findings = Signal::derive(move || {
        checks.with(|checks| checks.as_ref().map_or(findings, CheckSummary::count))
    });
    // One notice for the whole page ("Saved.", "Saved tool add_todo."): a
    // status line in the flow, above the tools, announced and covering
    // nothing.
    let notice = RwSignal::new(notice);
    let package_name = app.package_name.clone();
    // The tools come first: they are what the page is for, and a new app's
    // "Add tool" is then in view.
    view! {
        <div class="app-editor stack">
            <Notice message=notice/>
            <ToolsSection package_name=package_name.clone() revision tools notice findings/>
            <ChecksPanel package_name checks drawn=checks_drawn/>
            <section class="card stack" aria-labelledby="details-title">
                <h2 id="details-title">"Details"</h2>
                <AppDetailsForm app revision notice initial_error/>
            </section>
        </div>
    }
}

#[component]
fn AppDetailsForm(
    app: AppDetails,
    revision: RwSignal<i64>,
    notice: RwSignal<Option<String>>,
    initial_error: Option<AppError>,
) -> impl IntoView {
    let action = ServerAction::<SaveApp>::new();
    let error = form_error(action, initial_error.clone());
    // The revision these fields were loaded (or last saved) at: the server
    // refuses them if the app's fields have changed since. Not the page's
    // revision, which follows the tools too: after "Reload" there it is
    // newer than these fields, and saving them at it would silently undo
    // another tab's change to them. Drawn again with errors (a plain form
    // post), the form keeps the revision it was posted with.
    let fields_revision = RwSignal::new(
        initial_value(&initial_error, "revision", "")
            .parse()
            .unwrap_or(app.revision),
    );
    Effect::new(move |_| match action.value().get() {
        Some(Ok(saved)) => {
            fields_revision.set(saved.revision);
            // The tools on the page are still the app's only if nothing
            // else was saved in between; otherwise their next write finds
            // out and offers to reload.
            if revision.get_untracked() == saved.revision - 1 {
                revision.set(saved.revision);
            }
            notice.set(Some("Saved.".to_owned()));
        }
        Some(Err(_)) => notice.set(None),
        None => {}
    });
    let is_conflict =
        Signal::derive(move || error.with(|e| e.as_ref().is_some_and(AppError::is_conflict)));
    let reload_href = format!(
        "/console/apps/{}",
        crate::domain::url::encode_component(&app.package_name)
    );
    let value = move |field: &str, stored: &str| initial_value(&initial_error, field, stored);

    view! {
        <ActionForm action=action attr:novalidate=true attr:aria-label="App details">
            <FormAlert message=form_message(error)/>
            <Show when=move || is_conflict.get()>
                <p><a class="button" href=reload_href.clone()>"Reload"</a></p>
            </Show>
            <TextField
                label="Package name"
                name="package_name"
                id="app-package-name"
                value=app.package_name.clone()
                hint="The app's permanent key; it cannot be changed."
                readonly=true
            />
            <input type="hidden" name="revision" value=move || fields_revision.get().to_string()/>
            <TextField
                label="Name"
                name="name"
                id="app-name"
                value=value("name", &app.name)
                autocomplete="off"
                required=true
                error=field_message(error, "name")
            />
            <TextArea
                label="Description"
                name="description"
                id="app-description"
                value=value("description", &app.description)
                error=field_message(error, "description")
            />
            <TextField
                label="Version"
                name="version"
                id="app-version"
                value=value("version", &app.version)
                autocomplete="off"
                required=true
                error=field_message(error, "version")
            />
            <TextField
                label="Server URL"
                name="public_url"
                id="app-public-url"
                kind="url"
                value=value("public_url", &app.public_url)
                hint=URL_HINT
                required=true
                error=field_message(error, "public_url")
            />
            <div class="form-actions">
                <SubmitButton label="Save app" pending=action.pending()/>
            </div>
        </ActionForm>
    }
}

/// Part of [`DeleteAppSection`]; a plain form post until it wakes.
#[component]
fn DeleteAppForm(package_name: String, initial_error: Option<AppError>) -> impl IntoView {
    let action = ServerAction::<DeleteApp>::new();
    let deleting = action.pending();
    // A refused post without JavaScript draws the form again: it keeps
    // what was typed.
    let typed = initial_value(&initial_error, "confirmation", "");
    let error = form_error(action, initial_error);
    let confirm_error = field_message(error, "confirmation");
    let other_error = Signal::derive(move || {
        error
            .get()
            .filter(|e| e.field_errors().is_none())
            .map(|e| e.to_string())
    });
    let error_id = "delete-confirmation-error";
    view! {
        <ActionForm action=action attr:novalidate=true attr:aria-label="Delete app">
            <FormAlert message=other_error/>
            <p>
                "Deleting the app also deletes all of its tools. This cannot be undone. To confirm, type "
                <code>{package_name.clone()}</code>
                " below."
            </p>
            <input type="hidden" name="package_name" value=package_name.clone()/>
            <div class="field">
                <label for="delete-confirmation">{format!("Type {package_name} to confirm")}</label>
                <input
                    id="delete-confirmation"
                    name="confirmation"
                    type="text"
                    value=typed
                    autocomplete="off"
                    spellcheck="false"
                    aria-describedby=error_id
                    aria-invalid=move || if confirm_error.with(Option::is_some) { "true" } else { "false" }
                />
                <p class="field-error" id=error_id>{move || confirm_error.get()}</p>
            </div>
            <div class="form-actions">
                <button
                    type="submit"
                    class="danger"
                    aria-busy=move || if deleting.get() { "true" } else { "false" }
                    disabled=move || deleting.get()
                >
                    "Delete app"
                </button>
            </div>
        </ActionForm>
    }
}
