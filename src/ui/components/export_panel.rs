//! The export page's controls and preview. Without JavaScript it is a plain
//! GET form ("Show preview", "Download"); with it the preview follows every
//! choice and "Copy" puts the text on the clipboard.

use crate::{
    api::export::render_export,
    domain::export::{ExportOptions, Format},
    ui::components::{
        form::{copy_to_clipboard, FormAlert},
        json_preview::JsonPreview,
    },
};
use leptos::prelude::*;

#[island]
pub fn ExportPanel(
    package_name: String,
    format: Format,
    options: ExportOptions,
    preview: String,
) -> impl IntoView {
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    let chosen = RwSignal::new(format);
    let include_phrases = RwSignal::new(options.include_phrases);
    let strict = RwSignal::new(options.strict);
    let text = RwSignal::new(preview);
    // The format of the text shown (the select may be ahead of it).
    let shown = RwSignal::new(format);
    let copied = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let pending = RwSignal::new(false);
    // Answers can arrive out of order; only the latest request's is shown.
    let latest = StoredValue::new(0_u64);

    let base = format!(
        "/console/apps/{}/export",
        crate::domain::url::encode_component(&package_name)
    );
    let download = format!("{base}/download");
    let package = StoredValue::new(package_name);
    let page = StoredValue::new(base.clone());
    let refresh = move || {
        copied.set(None);
        let options = ExportOptions {
            include_phrases: include_phrases.get_untracked(),
            strict: strict.get_untracked(),
        };
        let request = latest.get_value() + 1;
        latest.set_value(request);
        let format = chosen.get_untracked();
        let package_name = package.get_value();
        pending.set(true);
        leptos::task::spawn_local(async move {
            let answer = render_export(package_name, format, options).await;
            if latest.get_value() != request {
                return;
            }
            match answer {
                Ok(rendered) => {
                    text.set(rendered);
                    shown.set(format);
                    error.set(None);
                }
                Err(problem) => error.set(Some(problem.to_string())),
            }
            pending.set(false);
        });
        // Keep the address in step, so a reload shows the same export.
        let mut query = format!("?format={}", chosen.get_untracked().key());
        if options.include_phrases {
            query.push_str("&include_phrases=on");
        }
        if options.strict {
            query.push_str("&strict=on");
        }
        if let Ok(history) = window().history() {
            let url = format!("{}{query}", page.get_value());
            let _ = history.replace_state_with_url(
                &leptos::wasm_bindgen::JsValue::NULL,
                "",
                Some(&url),
            );
        }
    };
    let copy = move |_| {
        let content = text.get_untracked();
        copy_to_clipboard(content, move |ok| {
            copied.set(Some(if ok {
                "Copied".to_owned()
            } else {
                "Could not copy: select the preview and copy it yourself.".to_owned()
            }))
        });
    };

    view! {
        <form
            method="get"
            action=base
            class="export-options stack"
            aria-label="Export options"
            data-hydrated=move || if hydrated.get() { "true" } else { "false" }
        >
            <div class="field">
                <label for="export-format">"Format"</label>
                <select
                    id="export-format"
                    name="format"
                    on:change=move |ev| {
                        if let Some(format) = Format::parse(&event_target_value(&ev)) {
                            chosen.set(format);
                            refresh();
                        }
                    }
                >
                    {Format::ALL
                        .into_iter()
                        .map(|f| {
                            view! {
                                <option value=f.key() selected=f == format>
                                    {format!("{} — {}", f.label(), f.file_name())}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </div>
            <div class="field">
                <label class="checkbox" for="export-include-phrases">
                    <input
                        type="checkbox"
                        id="export-include-phrases"
                        name="include_phrases"
                        value="on"
                        checked=options.include_phrases
                        aria-describedby="export-include-phrases-hint"
                        on:change=move |ev| {
                            include_phrases.set(event_target_checked(&ev));
                            refresh();
                        }
                    />
                    "Include activation phrases in descriptions"
                </label>
                <p class="hint" id="export-include-phrases-hint">
                    "For the LLM formats (MCP, OpenAI, Anthropic, Gemini, Tambo): appends “Possibly activated by phrases like: …” as Mentra's assistant does."
                </p>
            </div>
            <div class="field">
                <label class="checkbox" for="export-strict">
                    <input
                        type="checkbox"
                        id="export-strict"
                        name="strict"
                        value="on"
                        checked=options.strict
                        aria-describedby="export-strict-hint"
                        on:change=move |ev| {
                            strict.set(event_target_checked(&ev));
                            refresh();
                        }
                    />
                    "Strict mode"
                </label>
                <p class="hint" id="export-strict-hint">
                    "OpenAI only: every parameter required, optional ones nullable, no other properties."
                </p>
            </div>
            <div class="form-actions">
                <Show when=move || !hydrated.get()>
                    <button type="submit">"Show preview"</button>
                </Show>
                <button type="submit" class="primary" formaction=download>
                    "Download"
                </button>
                <button type="button" on:click=copy disabled=move || !hydrated.get()>
                    "Copy"
                </button>
                <span class="copied" role="status">{move || copied.get()}</span>
            </div>
            // Without JavaScript "Copy" stays greyed: this says why, and what works.
            <p class="hint no-js">"“Copy” needs JavaScript: use “Download”, or select the preview below and copy it."</p>
        </form>
        <FormAlert message=error/>
        <p class="meta">
            "File: " <code>{move || shown.get().file_name()}</code>
            <span aria-live="polite">{move || if pending.get() { " · updating…" } else { "" }}</span>
        </p>
        <JsonPreview text=text label="Preview"/>
    }
}
