//! "Try a tool": a form generated from the tool's parameters, the live
//! `ToolCall` it would send, and the app's answer.

use crate::{
    api::{
        try_tool::{Delivery, SendResult, SendToolCall, TryTarget},
        AppError,
    },
    domain::{
        tool::{ParamType, Parameter},
        tool_call::{curl_command, draft_tool_call, param_field, Reply, USER_ID_FIELD},
    },
    ui::components::{
        form::{checked_before_waking, copy_to_clipboard, typed_before_waking, FormAlert},
        json_preview::JsonPreview,
    },
};
use leptos::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

#[island]
pub fn TryPanel(package_name: String, target: TryTarget, timestamp: String) -> impl IntoView {
    let hydrated = RwSignal::new(false);
    let tool = StoredValue::new(target.tool.clone());
    let url = StoredValue::new(target.url.clone());
    let initial: BTreeMap<String, String> = target
        .tool
        .parameters
        .iter()
        .filter(|p| p.param_type == ParamType::Boolean)
        .map(|p| (p.name.clone(), "false".to_owned()))
        .collect();
    let inputs = RwSignal::new(initial);
    // What was put into the fields before the island woke: taken in once it
    // is awake. Not before — the island must wake to the page the server
    // drew (the "not ready" hint, say); waking sets the fields from `inputs`
    // and this sets them back.
    let mut typed: Vec<(String, String)> = target
        .tool
        .parameters
        .iter()
        .filter_map(|p| {
            let id = param_input_id(&p.name);
            let value = if p.param_type == ParamType::Boolean {
                checked_before_waking(&id).map(|checked| checked.to_string())
            } else {
                typed_before_waking(&id)
            };
            value.map(|value| (p.name.clone(), value))
        })
        .collect();
    let mut typed_user = typed_before_waking("try-user-id");
    let user = RwSignal::new(target.default_user.clone());
    Effect::new(move |_| {
        hydrated.set(true);
        if !typed.is_empty() {
            inputs.update(|i| i.extend(std::mem::take(&mut typed)));
        }
        if let Some(typed_user) = typed_user.take() {
            user.set(typed_user);
        }
    });
    let stamp = RwSignal::new(timestamp);
    let touched = RwSignal::new(BTreeSet::<String>::new());
    let attempted = RwSignal::new(false);
    let copied = RwSignal::new(None::<String>);
    let send = ServerAction::<SendToolCall>::new();
    // `pending` makes a new memo at each call: once, here.
    let sending = send.pending();

    // The call as it stands, live: what fits so far, and what is still wrong.
    let drafted = Memo::new(move |_| {
        tool.with_value(|tool| draft_tool_call(tool, &inputs.get(), &user.get(), &stamp.get()))
    });
    let errors = Signal::derive(move || drafted.with(|(_, errors)| errors.clone()));
    let ready = Signal::derive(move || drafted.with(|(_, errors)| errors.is_empty()));
    let preview =
        Signal::derive(move || drafted.with(|(call, _)| crate::domain::export::to_text(call)));
    let message = move |field: String| {
        Signal::derive(move || {
            let show = attempted.get() || touched.with(|t| t.contains(&field));
            show.then(|| errors.with(|e| e.first(&field).map(str::to_owned)))
                .flatten()
        })
    };
    let edited = move |field: String| {
        touched.update(|t| {
            t.insert(field);
        });
        copied.set(None);
        stamp.set(now_iso8601());
    };

    let package = StoredValue::new(package_name);
    let on_send = move |_| {
        attempted.set(true);
        if !ready.get_untracked() {
            return;
        }
        send.dispatch(SendToolCall {
            package_name: package.get_value(),
            tool_id: tool.with_value(|t| t.id.clone()),
            inputs: inputs.get_untracked(),
            user_id: user.get_untracked(),
        });
    };
    let on_copy = move |_| {
        attempted.set(true);
        if ready.get_untracked() {
            let body = drafted.with_untracked(|(call, _)| call.clone());
            copy_to_clipboard(curl_command(&url.get_value(), &body), move |ok| {
                copied.set(Some(
                    if ok { "Copied" } else { "Could not copy" }.to_owned(),
                ))
            });
        }
    };
    let send_error = Signal::derive(move || match send.value().get() {
        Some(Err(AppError::Validation(_))) => {
            Some("Some values do not fit the tool's parameters; see the fields above.".to_owned())
        }
        Some(Err(error)) => Some(error.to_string()),
        _ => None,
    });

    let fields = target
        .tool
        .parameters
        .iter()
        .cloned()
        .map(|parameter| {
            let field = param_field(&parameter.name);
            view! { <ParamInput parameter inputs error=message(field.clone()) on_edit=Callback::new(move |()| edited(field.clone()))/> }
        })
        .collect_view();

    view! {
        <form
            class="stack"
            aria-label="Tool call"
            novalidate
            on:submit=|ev| ev.prevent_default()
            data-hydrated=move || if hydrated.get() { "true" } else { "false" }
        >
            <Show when=move || !hydrated.get()>
                <p class="hint">"Trying tools needs JavaScript."</p>
            </Show>
            {(target.tool.parameters.is_empty())
                .then(|| view! { <p class="hint">"This tool has no parameters."</p> })}
            {fields}
            <div class="field">
                <label for="try-user-id">"User ID"</label>
                <p class="hint" id="try-user-id-hint">"Who the call is for; the app sees it as userId."</p>
                <input
                    id="try-user-id"
                    type="text"
                    autocomplete="off"
                    value=target.default_user.clone()
                    prop:value=move || user.get()
                    on:input=move |ev| {
                        user.set(event_target_value(&ev));
                        edited(USER_ID_FIELD.to_owned());
                    }
                    aria-describedby="try-user-id-hint try-user-id-error"
                    aria-invalid=move || if message(USER_ID_FIELD.to_owned()).get().is_some() { "true" } else { "false" }
                />
                <p class="field-error" id="try-user-id-error">{message(USER_ID_FIELD.to_owned())}</p>
            </div>
            <div class="form-actions">
                <button
                    type="button"
                    class="primary"
                    on:click=on_send
                    disabled=move || !hydrated.get() || sending.get()
                    aria-busy=move || if sending.get() { "true" } else { "false" }
                >
                    "Send to app"
                </button>
                <button type="button" on:click=on_copy disabled=move || !hydrated.get()>
                    "Copy as curl"
                </button>
                <span class="copied" role="status">{move || copied.get()}</span>
            </div>
        </form>
        <section class="stack" aria-labelledby="toolcall-title">
            <h2 id="toolcall-title">"The ToolCall"</h2>
            <p class="meta">"POST " <code>{target.url.clone()}</code> " · Content-Type: application/json"</p>
            <JsonPreview text=preview label="ToolCall JSON"/>
            <Show when=move || !ready.get()>
                <p class="hint">"Not ready to send: the fields marked above are missing or do not fit yet."</p>
            </Show>
        </section>
        <FormAlert message=send_error/>
        {move || send.value().get().and_then(Result::ok).map(|result| view! { <Answer result/> })}
    }
}

/// The id of the input of the parameter `name`.
fn param_input_id(name: &str) -> String {
    format!("try-param-{name}")
}

/// The input of one parameter, labelled with its name.
#[component]
fn ParamInput(
    parameter: Parameter,
    inputs: RwSignal<BTreeMap<String, String>>,
    error: Signal<Option<String>>,
    on_edit: Callback<()>,
) -> impl IntoView {
    let name = parameter.name.clone();
    let id = param_input_id(&name);
    let hint_id = format!("{id}-hint");
    let error_id = format!("{id}-error");
    let described = format!("{hint_id} {error_id}");
    let set = {
        let name = name.clone();
        move |value: String| {
            inputs.update(|i| {
                i.insert(name.clone(), value);
            });
            on_edit.run(());
        }
    };
    let current = {
        let name = name.clone();
        move || inputs.with(|i| i.get(&name).cloned().unwrap_or_default())
    };
    let invalid = move || {
        if error.get().is_some() {
            "true"
        } else {
            "false"
        }
    };
    let required = parameter.required;
    let control = match (parameter.param_type, parameter.enum_values.is_empty()) {
        (ParamType::Boolean, _) => {
            let set = set.clone();
            view! {
                <label class="checkbox" for=id.clone()>
                    <input
                        type="checkbox"
                        id=id.clone()
                        prop:checked=move || current() == "true"
                        on:change=move |ev| set(if event_target_checked(&ev) { "true" } else { "false" }.to_owned())
                        aria-describedby=described.clone()
                    />
                    {name.clone()}
                </label>
            }
                .into_any()
        }
        (ParamType::String, false) => {
            let set = set.clone();
            let options = parameter.enum_values.clone();
            view! {
                <label for=id.clone()>{name.clone()}</label>
                <select
                    id=id.clone()
                    aria-required=required.to_string()
                    aria-describedby=described.clone()
                    aria-invalid=invalid
                    on:change=move |ev| set(event_target_value(&ev))
                >
                    <option value="" selected=true>{if required { "Choose a value" } else { "(not sent)" }}</option>
                    {options.into_iter().map(|v| view! { <option value=v.clone()>{v.clone()}</option> }).collect_view()}
                </select>
            }
                .into_any()
        }
        (param_type, _) => {
            let set = set.clone();
            let number = param_type == ParamType::Number;
            view! {
                <label for=id.clone()>{name.clone()}</label>
                <input
                    id=id.clone()
                    type=if number { "number" } else { "text" }
                    step=number.then_some("any")
                    inputmode=number.then_some("decimal")
                    autocomplete="off"
                    aria-required=required.to_string()
                    aria-describedby=described.clone()
                    aria-invalid=invalid
                    prop:value=current
                    on:input=move |ev| set(event_target_value(&ev))
                />
            }
            .into_any()
        }
    };
    let kind = parameter.param_type.as_str();
    view! {
        <div class="field">
            {control}
            <p class="hint" id=hint_id>
                {if required { "Required · " } else { "Optional · " }}
                {kind}
                " · "
                {parameter.description.clone()}
            </p>
            <p class="field-error" id=error_id>{move || error.get()}</p>
        </div>
    }
}

#[component]
fn Answer(result: SendResult) -> impl IntoView {
    let meta = match (result.status, result.latency_ms) {
        (Some(status), ms) => format!("HTTP {status} · {ms} ms"),
        (None, 0) => "Not sent".to_owned(),
        (None, ms) => format!("No answer · {ms} ms"),
    };
    let says = matches!(result.delivery, Delivery::Answered(Reply::Say(_)));
    let (good, text): (bool, String) = match result.delivery {
        Delivery::Answered(Reply::Say(reply)) => (true, reply),
        Delivery::Answered(Reply::AppAnswers) => (
            true,
            "The app answers the user itself (GIVE_APP_CONTROL_OF_TOOL_RESPONSE): the assistant stays silent.".to_owned(),
        ),
        Delivery::Answered(Reply::Nothing) => {
            (true, "The app answered without a reply: the assistant has nothing to say.".to_owned())
        }
        Delivery::Answered(Reply::AppError(message)) => (false, format!("The app reported an error: {message}")),
        Delivery::Answered(Reply::HttpError(status)) => {
            (false, format!("The app's server answered HTTP {status}."))
        }
        Delivery::Answered(Reply::NotJson) => (false, "The app's server answered, but not with JSON.".to_owned()),
        Delivery::Answered(Reply::Unexpected) => (
            false,
            "The app's server answered JSON, but not the SDK's {status, reply} answer.".to_owned(),
        ),
        Delivery::Blocked(why) => (false, why),
        Delivery::TimedOut => (false, "The app's server did not answer within 20 seconds.".to_owned()),
        Delivery::Unreachable(why) => (false, why),
        Delivery::TooLarge => (false, "The app's answer was larger than 1 MiB.".to_owned()),
    };
    // The answer appears below the ToolCall, out of sight of "Send to app":
    // the focus goes to it, which brings it into view and reads it out.
    let heading = NodeRef::<leptos::html::H2>::new();
    Effect::new(move |_| {
        if let Some(heading) = heading.get() {
            let _ = heading.focus();
        }
    });
    view! {
        <section class="card stack answer" aria-labelledby="answer-title">
            <h2 id="answer-title" tabindex="-1" node_ref=heading>"The app's answer"</h2>
            <p class="meta">{meta}</p>
            {if good {
                view! {
                    <div class="reply" aria-live="polite">
                        {says.then(|| view! { <p class="reply-label">"The assistant would say:"</p> })}
                        <p class="reply-text">{text}</p>
                    </div>
                }
                    .into_any()
            } else {
                view! { <p class="alert" role="alert">{text}</p> }.into_any()
            }}
            {(!result.body.is_empty())
                .then(|| {
                    view! {
                        <details>
                            <summary>"Response body"</summary>
                            <pre class="json-preview">{result.body.clone()}</pre>
                        </details>
                    }
                })}
        </section>
    }
}

/// Now, as JSON documents carry time.
fn now_iso8601() -> String {
    #[cfg(feature = "hydrate")]
    {
        crate::domain::time::format_iso8601(js_sys::Date::now() as i64)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        String::new()
    }
}
