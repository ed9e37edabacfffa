//! The app page's live MCP server: the endpoint and how to connect an
//! assistant to it, a connection test, and the calls assistants made.

use crate::ui::components::form::copy_to_clipboard;
use crate::{
    api::mcp::TestMcpConnection,
    domain::{
        mcp::{server_name, setup_snippets},
        mcp_activity::ActivityEntry,
        time::format_utc,
        url::encode_component,
    },
};
use leptos::prelude::*;

/// "Connect an assistant": the endpoint, where to make a key, copyable
/// set-up per assistant, and "Test connection". The set-up is server HTML;
/// copying and testing need JavaScript.
#[island]
pub fn ConnectAssistant(package_name: String, endpoint: String) -> impl IntoView {
    let test = ServerAction::<TestMcpConnection>::new();
    let testing = test.pending();
    let result = Signal::derive(move || match test.value().get() {
        Some(Ok(report)) => report,
        Some(Err(error)) => error.to_string(),
        None => String::new(),
    });
    let package = StoredValue::new(package_name.clone());
    let snippets = setup_snippets(&endpoint, &server_name(&package_name));
    view! {
        <section class="card stack connect" aria-labelledby="connect-title">
            <h2 id="connect-title">"Connect an assistant"</h2>
            <p>
                "This URL is an MCP server of this app's tools: add it to Claude, ChatGPT, Cursor or VS Code "
                "with an API key of the app, and each tool call reaches your app's "<code>"/tool"</code>
                " as it does from “Try a tool”."
            </p>
            <div class="field">
                <label for="mcp-endpoint">"MCP endpoint"</label>
                <input
                    id="mcp-endpoint"
                    type="text"
                    readonly=true
                    spellcheck="false"
                    value=endpoint.clone()
                    aria-describedby="mcp-endpoint-hint"
                />
                <p class="hint" id="mcp-endpoint-hint">
                    "Send an API key as "<code>"Authorization: Bearer …"</code>". "
                    <a href="#key-name">"Create an API key"</a>
                    " in “API keys” above; it is shown once."
                </p>
            </div>
            {snippets
                .into_iter()
                .map(|(label, text)| view! { <Snippet label text/> })
                .collect_view()}
            <div class="form-actions needs-js">
                <button
                    type="button"
                    disabled=move || testing.get()
                    aria-busy=move || if testing.get() { "true" } else { "false" }
                    on:click=move |_| {
                        test.dispatch(TestMcpConnection {
                            package_name: package.get_value(),
                        });
                    }
                >
                    {move || if testing.get() { "Testing…" } else { "Test connection" }}
                </button>
            </div>
            <p class="hint no-js">"Testing the connection needs JavaScript."</p>
            <p role="status" class="test-result" class:filled=move || !result.with(String::is_empty)>
                {move || result.get()}
            </p>
        </section>
    }
}

/// One assistant's set-up, in a disclosure, with a "Copy" button.
#[component]
fn Snippet(label: &'static str, text: String) -> impl IntoView {
    let copied = RwSignal::new(false);
    let for_copy = text.clone();
    view! {
        <details class="snippet">
            <summary>{label}</summary>
            <pre tabindex="0" aria-label=format!("Set-up for {label}")><code>{text}</code></pre>
            <button
                type="button"
                class="needs-js"
                on:click=move |_| copy_to_clipboard(for_copy.clone(), move |ok| copied.set(ok))
                aria-label=format!("Copy the set-up for {label}")
            >
                {move || if copied.get() { "Copied" } else { "Copy" }}
            </button>
        </details>
    }
}

/// "Activity": the last tool calls assistants made, newest first, a page at
/// a time ("Older calls" follows the last one shown).
#[component]
pub fn ActivityTable(
    package_name: String,
    entries: Vec<ActivityEntry>,
    older: Option<i64>,
) -> impl IntoView {
    let older_href = older.map(|before| {
        format!(
            "/console/apps/{}?activity_before={before}#activity-title",
            encode_component(&package_name)
        )
    });
    let empty = entries.is_empty();
    view! {
        <section class="card stack activity" aria-labelledby="activity-title">
            <h2 id="activity-title">"Activity"</h2>
            {if empty {
                view! { <p>"No calls yet: when an assistant calls a tool over MCP, it is listed here."</p> }
                    .into_any()
            } else {
                view! {
                    <div class="table-scroll" tabindex="0" role="group" aria-label="Calls">
                        <table>
                            <thead>
                                <tr>
                                    <th scope="col">"Time (UTC)"</th>
                                    <th scope="col">"Tool"</th>
                                    <th scope="col">"Duration"</th>
                                    <th scope="col">"Outcome"</th>
                                    <th scope="col">"Arguments"</th>
                                    <th scope="col">"Key of"</th>
                                </tr>
                            </thead>
                            <tbody>
                                {entries
                                    .into_iter()
                                    .map(|entry| {
                                        view! {
                                            <tr class=if entry.is_error { "failed" } else { "" }>
                                                <td>{format_utc(entry.called_at)}</td>
                                                <td><code>{entry.tool_id}</code></td>
                                                <td>{format!("{} ms", entry.duration_ms)}</td>
                                                <td>
                                                    {if entry.is_error { "Error: " } else { "" }}
                                                    {entry.outcome}
                                                </td>
                                                <td><code class="arguments">{entry.arguments}</code></td>
                                                <td>{entry.by.unwrap_or_else(|| "—".to_owned())}</td>
                                            </tr>
                                        }
                                    })
                                    .collect_view()}
                            </tbody>
                        </table>
                    </div>
                }
                    .into_any()
            }}
            {older_href.map(|href| view! { <p><a href=href>"Older calls"</a></p> })}
        </section>
    }
}
