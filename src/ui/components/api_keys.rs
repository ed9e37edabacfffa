//! The API keys of an app: create (shown once), list, revoke.

use crate::{
    api::{
        keys::{CreateApiKey, RevokeApiKey},
        AppError,
    },
    domain::{keys::ApiKeySummary, time::format_utc},
    ui::components::form::{copy_to_clipboard, FormAlert},
};
use leptos::{ev::SubmitEvent, prelude::*};

/// Part of the app page's island. A key name typed before the island wakes
/// is kept: the field is read when the form is sent, not bound to a signal
/// that would empty it on waking.
#[component]
pub fn ApiKeysSection(package_name: String, keys: Vec<ApiKeySummary>) -> impl IntoView {
    let keys = RwSignal::new(keys);
    let name_field = NodeRef::<leptos::html::Input>::new();
    let export_only_box = NodeRef::<leptos::html::Input>::new();
    let new_key = RwSignal::new(None::<String>);
    let copied = RwSignal::new(false);
    let create = ServerAction::<CreateApiKey>::new();
    let revoke = ServerAction::<RevokeApiKey>::new();
    // `pending` makes a new memo at each call: once each, here.
    let (creating, revoking) = (create.pending(), revoke.pending());
    let package = StoredValue::new(package_name.clone());

    let name_error = Signal::derive(move || match create.value().get() {
        Some(Err(AppError::Validation(errors))) => errors.first("key_name").map(str::to_owned),
        _ => None,
    });
    let alert = RwSignal::new(None::<String>);
    Effect::new(move |_| match create.value().get() {
        Some(Ok(made)) => {
            keys.set(made.keys);
            new_key.set(Some(made.key));
            copied.set(false);
            if let Some(field) = name_field.get_untracked() {
                field.set_value("");
            }
            alert.set(None);
        }
        Some(Err(AppError::Validation(_))) => {}
        Some(Err(error)) => alert.set(Some(error.to_string())),
        None => {}
    });
    Effect::new(move |_| match revoke.value().get() {
        Some(Ok(remaining)) => {
            keys.set(remaining);
            alert.set(None);
        }
        Some(Err(error)) => alert.set(Some(error.to_string())),
        None => {}
    });

    let on_submit = move |ev: SubmitEvent| {
        ev.prevent_default();
        let Some(field) = name_field.get_untracked() else {
            return;
        };
        let export_only = export_only_box
            .get_untracked()
            .is_some_and(|checkbox| checkbox.checked());
        create.dispatch(CreateApiKey {
            package_name: package.get_value(),
            name: field.value(),
            export_only,
        });
    };
    let on_revoke = move |key: ApiKeySummary| {
        let question = format!(
            "Revoke the key “{}” ({}…)? Anything using it will get 401 from now on.",
            key.name, key.prefix
        );
        if window().confirm_with_message(&question).unwrap_or(false) {
            revoke.dispatch(RevokeApiKey {
                package_name: package.get_value(),
                key_id: key.id,
            });
        }
    };
    let endpoint = format!("/api/v1/apps/{package_name}/config?format=mentra");

    view! {
        <section class="card stack" aria-labelledby="keys-title">
            <h2 id="keys-title">"API keys"</h2>
            <p>
                "Read this app's config without a browser (in CI, say): " <code>{format!("GET {endpoint}")}</code>
                " with the header " <code>"Authorization: Bearer <key>"</code>
                ". Any export format works; keys only read."
            </p>
            <FormAlert message=alert/>
            // Without JavaScript the form and the revoke buttons are hidden
            // (`needs-js`, style/main.css) and this says why.
            <p class="hint no-js">"Creating and revoking keys needs JavaScript."</p>
            <form class="inline-fields needs-js" aria-label="Create an API key" on:submit=on_submit novalidate>
                <div class="field">
                    <label for="key-name">"Key name"</label>
                    <input
                        id="key-name"
                        type="text"
                        autocomplete="off"
                        node_ref=name_field
                        aria-describedby="key-name-error"
                        aria-invalid=move || if name_error.get().is_some() { "true" } else { "false" }
                    />
                    <p class="field-error" id="key-name-error">{move || name_error.get()}</p>
                </div>
                <div class="field">
                    <label class="checkbox" for="key-export-only">
                        <input
                            id="key-export-only"
                            type="checkbox"
                            node_ref=export_only_box
                            aria-describedby="key-export-only-hint"
                        />
                        "Export only"
                    </label>
                    <p class="hint" id="key-export-only-hint">
                        "Reads the config and checks; cannot connect an assistant (MCP)."
                    </p>
                </div>
                <div>
                    <button
                        type="submit"
                        disabled=move || creating.get()
                        aria-busy=move || if creating.get() { "true" } else { "false" }
                    >
                        "Create key"
                    </button>
                </div>
            </form>
            {move || {
                new_key
                    .get()
                    .map(|key| {
                        let for_copy = key.clone();
                        view! {
                            <div class="key-once" aria-live="polite">
                                <p>
                                    <strong>"Copy your new key now: "</strong>
                                    "it is shown only this once."
                                </p>
                                <div class="field">
                                    <label for="new-api-key">"New API key"</label>
                                    // A text area: the whole key in view, wrapped.
                                    <textarea
                                        id="new-api-key"
                                        class="new-key"
                                        rows="2"
                                        readonly=true
                                        spellcheck="false"
                                        autocomplete="off"
                                        prop:value=key
                                        on:focus=|ev| {
                                            use leptos::wasm_bindgen::JsCast;
                                            if let Some(field) = ev
                                                .target()
                                                .and_then(|t| t.dyn_into::<leptos::web_sys::HtmlTextAreaElement>().ok())
                                            {
                                                field.select();
                                            }
                                        }
                                    ></textarea>
                                </div>
                                <button
                                    type="button"
                                    on:click=move |_| {
                                        copy_to_clipboard(for_copy.clone(), move |ok| copied.set(ok));
                                    }
                                >
                                    {move || if copied.get() { "Copied key" } else { "Copy key" }}
                                </button>
                            </div>
                        }
                    })
            }}
            <Show
                when=move || !keys.with(Vec::is_empty)
                fallback=|| view! { <p class="hint">"No keys yet."</p> }
            >
                <div class="table-wrap">
                    <table class="stacked">
                        <thead>
                            <tr>
                                <th scope="col">"Name"</th>
                                <th scope="col">"Key"</th>
                                <th scope="col">"Created"</th>
                                <th scope="col">"Last used"</th>
                                <th scope="col"><span class="visually-hidden">"Actions"</span></th>
                            </tr>
                        </thead>
                        <tbody>
                            <For each=move || keys.get() key=|k| k.id let:key>
                                {
                                    let for_revoke = key.clone();
                                    view! {
                                        <tr>
                                            <td data-label="Name">
                                                {key.name.clone()}
                                                {key.export_only.then(|| view! { <span class="meta">" (export only)"</span> })}
                                            </td>
                                            <td data-label="Key"><code>{format!("{}…", key.prefix)}</code></td>
                                            <td data-label="Created">{format_utc(key.created_at)}</td>
                                            <td data-label="Last used">
                                                {key.last_used_at.map(format_utc).unwrap_or_else(|| "never".to_owned())}
                                            </td>
                                            <td class="row-actions-cell">
                                                <button
                                                    type="button"
                                                    class="danger needs-js"
                                                    aria-label=format!("Revoke key {}", key.name)
                                                    disabled=move || revoking.get()
                                                    on:click=move |_| on_revoke(for_revoke.clone())
                                                >
                                                    "Revoke"
                                                </button>
                                            </td>
                                        </tr>
                                    }
                                }
                            </For>
                        </tbody>
                    </table>
                </div>
            </Show>
        </section>
    }
}
