//! Building blocks of the console's forms: labelled fields with their error
//! next to them, the form-level alert, and a submit button with a pending state.

use crate::api::AppError;
use leptos::{prelude::*, server_fn::ServerFn};

/// The error a plain (JavaScript-less) form post of server function `S` left
/// in the URL it was redirected back to, if any. Read on the server and
/// handed to the form's island, so the page and the island agree.
pub fn url_error<S: ServerFn>() -> Option<AppError> {
    let query = leptos_router::hooks::use_query_map();
    let query = query.read_untracked();
    let path = query.get_str("__path")?;
    if path != S::PATH {
        return None;
    }
    let err = query.get_str("__err")?;
    Some(leptos::server_fn::error::ServerFnUrlError::<AppError>::decode_err(err))
}

/// The error to show for a form: the latest answer of its action, or, before
/// any, the one a plain form post left in the URL.
pub fn form_error<S>(action: ServerAction<S>, initial: Option<AppError>) -> Signal<Option<AppError>>
where
    S: ServerFn<Error = AppError> + Clone + Send + Sync + 'static,
    S::Output: Clone + Send + Sync + 'static,
{
    Signal::derive(move || match action.value().get() {
        Some(Err(error)) => Some(error),
        Some(Ok(_)) => None,
        None => initial.clone(),
    })
}

/// The message for one field of a form error.
pub fn field_message(
    error: Signal<Option<AppError>>,
    field: &'static str,
) -> Signal<Option<String>> {
    Signal::derive(move || {
        error.with(|e| {
            e.as_ref()
                .and_then(AppError::field_errors)
                .and_then(|f| f.first(field))
                .map(str::to_owned)
        })
    })
}

/// The form-level message: the error itself (for field errors, a pointer to them).
pub fn form_message(error: Signal<Option<AppError>>) -> Signal<Option<String>> {
    Signal::derive(move || error.with(|e| e.as_ref().map(ToString::to_string)))
}

/// A labelled select of a plain form, its error below: `options` are
/// (value, label), and the one whose value is `selected` is chosen.
#[component]
pub fn SelectField(
    label: &'static str,
    name: &'static str,
    id: &'static str,
    options: Vec<(String, String)>,
    #[prop(into)] selected: String,
    #[prop(default = None)] error: Option<String>,
) -> impl IntoView {
    let error_id = format!("{id}-error");
    let options = options
        .into_iter()
        .map(|(value, label)| {
            let chosen = value == selected;
            view! { <option value=value selected=chosen>{label}</option> }
        })
        .collect_view();
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <select
                id=id
                name=name
                aria-describedby=error_id.clone()
                aria-invalid=if error.is_some() { "true" } else { "false" }
            >
                {options}
            </select>
            <p class="field-error" id=error_id>{error}</p>
        </div>
    }
}

/// A labelled input with its error below, tied with `aria-describedby`.
#[component]
pub fn TextField(
    /// The visible label, also the accessible name.
    label: &'static str,
    /// The input's `name`: the server function's argument.
    name: &'static str,
    /// The input's `id` (unique on the page).
    id: &'static str,
    #[prop(default = "text")] kind: &'static str,
    #[prop(optional, into)] value: String,
    #[prop(optional)] autocomplete: Option<&'static str>,
    #[prop(optional)] hint: Option<&'static str>,
    #[prop(optional)] required: bool,
    #[prop(optional)] readonly: bool,
    #[prop(optional)] inputmode: Option<&'static str>,
    #[prop(optional)] placeholder: Option<&'static str>,
    /// Bounds of a number field.
    #[prop(optional)]
    min: Option<&'static str>,
    #[prop(optional)] max: Option<&'static str>,
    #[prop(into, default = Signal::stored(None))] error: Signal<Option<String>>,
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
                name=name
                type=kind
                value=value
                autocomplete=autocomplete
                inputmode=inputmode
                placeholder=placeholder
                min=min
                max=max
                required=required
                readonly=readonly
                aria-describedby=described_by
                aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
            />
            <p class="field-error" id=error_id>{move || error.get()}</p>
        </div>
    }
}

/// A labelled multi-line field with its error below.
#[component]
pub fn TextArea(
    label: &'static str,
    name: &'static str,
    id: &'static str,
    #[prop(optional, into)] value: String,
    #[prop(optional)] hint: Option<&'static str>,
    #[prop(default = 4)] rows: u32,
    #[prop(into, default = Signal::stored(None))] error: Signal<Option<String>>,
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
            <textarea
                id=id
                name=name
                rows=rows
                class="prose"
                aria-describedby=described_by
                aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
            >
                {value}
            </textarea>
            <p class="field-error" id=error_id>{move || error.get()}</p>
        </div>
    }
}

/// The form-level message, in a live region that exists before it has text.
#[component]
pub fn FormAlert(#[prop(into)] message: Signal<Option<String>>) -> impl IntoView {
    view! { <div class="alert" role="alert">{move || message.get()}</div> }
}

/// A submit button that says it is busy (and takes no second click) while
/// its action runs.
#[component]
pub fn SubmitButton(label: &'static str, #[prop(into)] pending: Signal<bool>) -> impl IntoView {
    view! {
        <button
            type="submit"
            class="primary"
            aria-busy=move || if pending.get() { "true" } else { "false" }
            disabled=move || pending.get()
        >
            {label}
        </button>
    }
}

/// What to show in `field` when a form is first drawn: what was submitted
/// (echoed back by a refused plain form post), or else the stored value.
pub fn initial_value(initial_error: &Option<AppError>, field: &str, stored: &str) -> String {
    initial_error
        .as_ref()
        .and_then(AppError::echoed_input)
        .and_then(|errors| errors.echoed(field))
        .unwrap_or(stored)
        .to_owned()
}

/// A polite live region for "Saved." and the like.
#[component]
pub fn Notice(#[prop(into)] message: Signal<Option<String>>) -> impl IntoView {
    view! { <p class="notice" role="status">{move || message.get()}</p> }
}

/// The value of the page's field `id` as its island wakes: what was typed
/// into it before then, if it was changed (from the value the page came
/// with). An island that sets the field from a
/// signal (`prop:value`) must keep this, or waking would empty the field:
/// it starts the signal from it or, where the value changes what the island
/// draws, sets the signal to it once awake (waking to anything but the page
/// the server drew fails). `None` on the server.
pub fn typed_before_waking(id: &str) -> Option<String> {
    #[cfg(feature = "hydrate")]
    {
        let field = document().get_element_by_id(id)?;
        // `value` and `defaultValue`, whichever kind of field it is (input,
        // textarea, select); a select has no `defaultValue`, and starts
        // empty in the console's forms.
        let read = |name: &str| js_sys::Reflect::get(&field, &name.into()).ok()?.as_string();
        let value = read("value")?;
        let came_with = read("defaultValue").unwrap_or_default();
        (value != came_with).then_some(value)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = id;
        None
    }
}

/// Whether the page's checkbox `id` was checked as its island wakes (see
/// `typed_before_waking`). `None` on the server, or if there is no such box.
pub fn checked_before_waking(id: &str) -> Option<bool> {
    #[cfg(feature = "hydrate")]
    {
        let field = document().get_element_by_id(id)?;
        js_sys::Reflect::get(&field, &"checked".into())
            .ok()?
            .as_bool()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = id;
        None
    }
}

/// Writes `text` to the clipboard, then tells `done` whether it worked (in
/// the browser only: the buttons that call it need JavaScript).
pub fn copy_to_clipboard(text: String, done: impl FnOnce(bool) + 'static) {
    #[cfg(feature = "hydrate")]
    leptos::task::spawn_local(async move {
        let promise = window().navigator().clipboard().write_text(&text);
        done(wasm_bindgen_futures::JsFuture::from(promise).await.is_ok());
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = (text, done);
}

/// Asks before something is removed or deleted when the page was reached
/// without JavaScript (with it, the form's `data-confirm` asks): a form to
/// `action` that sends `fields` and `confirmed=yes`, and a way back.
#[component]
pub fn ConfirmCard(
    /// The server function the form posts to.
    action: &'static str,
    /// The form's accessible name, like "Confirm removal".
    label: &'static str,
    question: String,
    /// The hidden fields naming what is to go.
    fields: Vec<(&'static str, String)>,
    /// The button that goes ahead, like "Yes, remove OpenAI".
    yes: String,
    /// The link that keeps it, and where it goes.
    keep: &'static str,
    back: String,
) -> impl IntoView {
    let hidden = fields
        .into_iter()
        .map(|(name, value)| view! { <input type="hidden" name=name value=value/> })
        .collect_view();
    view! {
        <form method="post" action=action class="card stack danger-zone" aria-label=label>
            <p><strong>{question}</strong></p>
            {hidden}
            <input type="hidden" name="confirmed" value="yes"/>
            <div class="card-actions">
                <button type="submit" class="danger">{yes}</button>
                <a class="button" href=back>{keep}</a>
            </div>
        </form>
    }
}
