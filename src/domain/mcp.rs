//! The live MCP server's rules, apart from the protocol: which page of the
//! tool list a cursor names, whether a call's arguments fit the tool, the
//! Mentra `ToolCall` a call becomes, and what the app's answer tells the
//! assistant.

use crate::domain::{
    tool::{ParamType, Tool},
    tool_call::Reply,
};
use serde_json::{json, Map, Value};

/// Tools per `tools/list` page: a large app's list arrives in parts.
pub const PAGE_SIZE: usize = 50;

/// How long a client may keep a tool list before asking again
/// (`ttlMs`): no process can tell every client that the tools changed, so
/// the list says how soon to look again.
pub const LIST_TTL_MS: u64 = 60_000;

/// The page of `tools` a `tools/list` cursor names (the offset of its
/// first tool, as the previous page gave it), and the cursor of the next
/// page if there is one. `None` for a cursor this server did not give.
pub fn page<T: Clone>(tools: &[T], cursor: Option<&str>) -> Option<(Vec<T>, Option<String>)> {
    let start = match cursor {
        None => 0,
        Some(text) => text.parse::<usize>().ok().filter(|n| *n <= tools.len())?,
    };
    let end = start.saturating_add(PAGE_SIZE).min(tools.len());
    let next = (end < tools.len()).then(|| end.to_string());
    Some((tools.get(start..end).unwrap_or_default().to_vec(), next))
}

/// The arguments of a `tools/call`, checked against the tool's parameters:
/// the `toolParameters` of its `ToolCall`, or a sentence naming the
/// parameter that does not fit (a tool execution error the assistant can
/// correct).
pub fn check_arguments(
    tool: &Tool,
    arguments: &Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    if let Some(unknown) = arguments
        .keys()
        .find(|name| !tool.parameters.iter().any(|p| &p.name == *name))
    {
        return Err(format!(
            "Unknown parameter “{unknown}”: {} takes {}.",
            tool.id,
            parameter_list(tool)
        ));
    }
    let mut checked = Map::new();
    for parameter in &tool.parameters {
        let name = &parameter.name;
        match arguments.get(name) {
            None | Some(Value::Null) if parameter.required => {
                return Err(format!("Missing the required parameter “{name}”."));
            }
            None | Some(Value::Null) => {}
            Some(value) => {
                let fits = match parameter.param_type {
                    ParamType::String => value.is_string(),
                    ParamType::Number => value.as_f64().is_some_and(f64::is_finite),
                    ParamType::Boolean => value.is_boolean(),
                };
                if !fits {
                    return Err(format!(
                        "Parameter “{name}” must be a {}, not {value}.",
                        parameter.param_type.as_str()
                    ));
                }
                if let (Some(text), false) = (value.as_str(), parameter.enum_values.is_empty()) {
                    if !parameter.enum_values.iter().any(|allowed| allowed == text) {
                        return Err(format!(
                            "Parameter “{name}” must be one of: {}.",
                            parameter.enum_values.join(", ")
                        ));
                    }
                }
                checked.insert(name.clone(), value.clone());
            }
        }
    }
    Ok(checked)
}

fn parameter_list(tool: &Tool) -> String {
    if tool.parameters.is_empty() {
        return "no parameters".to_owned();
    }
    tool.parameters
        .iter()
        .map(|p| format!("“{}”", p.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The Mentra `ToolCall` an assistant's call becomes, as "Try a tool" sends it.
pub fn tool_call(
    tool: &Tool,
    parameters: Map<String, Value>,
    user_id: &str,
    timestamp: &str,
) -> Value {
    json!({
        "toolId": tool.id,
        "toolParameters": Value::Object(parameters),
        "timestamp": timestamp,
        "userId": user_id,
        "activeSession": Value::Null,
    })
}

/// What the assistant is told of the app's answer: the text, and whether
/// it is an error the assistant should show as one.
pub fn reply_text(reply: &Reply) -> (String, bool) {
    match reply {
        Reply::Say(text) => (text.clone(), false),
        Reply::AppAnswers => (
            "The app answered the user itself; there is nothing more to say.".to_owned(),
            false,
        ),
        Reply::Nothing => ("Done.".to_owned(), false),
        Reply::AppError(message) => (format!("The app reported an error: {message}"), true),
        Reply::HttpError(status) => (
            format!("The app's server answered with HTTP {status}. Check its logs, then try again."),
            true,
        ),
        Reply::NotJson | Reply::Unexpected => (
            "The app's server answered, but not as a Mentra app does ({\"status\": \"success\", \"reply\": …}). Check that its /tool endpoint is the Mentra SDK's.".to_owned(),
            true,
        ),
    }
}

/// Arguments as the Activity list keeps them: the JSON, cut to `max` characters.
pub fn shortened(arguments: &Map<String, Value>, max: usize) -> String {
    let text = Value::Object(arguments.clone()).to_string();
    if text.chars().count() <= max {
        return text;
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The MCP endpoint of app `package_name` on the console at `origin`
/// (`https://console.example`).
pub fn endpoint(origin: &str, package_name: &str) -> String {
    format!(
        "{}/mcp/{}",
        origin.trim_end_matches('/'),
        crate::domain::url::encode_component(package_name)
    )
}

/// Copyable set-up for the usual assistants, each with its label: Claude
/// Code's command, the `mcp.json` of Claude Desktop and Cursor, VS Code's,
/// and a curl `initialize` to see the server answer. `YOUR_KEY` stands for
/// an API key of the app.
pub fn setup_snippets(endpoint: &str, server_name: &str) -> Vec<(&'static str, String)> {
    let headers = json!({ "Authorization": "Bearer YOUR_KEY" });
    let pretty = |value: Value| serde_json::to_string_pretty(&value).unwrap_or_default();
    let initialize = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "curl", "version": "1.0.0" }
        }
    });
    vec![
        (
            "Claude Code",
            format!(
                "claude mcp add --transport http {server_name} {endpoint} --header \"Authorization: Bearer YOUR_KEY\""
            ),
        ),
        (
            "Claude Desktop and Cursor (mcp.json)",
            pretty(json!({
                "mcpServers": { server_name: { "type": "http", "url": endpoint, "headers": headers } }
            })),
        ),
        (
            "VS Code (.vscode/mcp.json)",
            pretty(json!({
                "servers": { server_name: { "type": "http", "url": endpoint, "headers": headers } }
            })),
        ),
        (
            "curl",
            format!(
                "curl -sS {endpoint} \\\n  -H 'Authorization: Bearer YOUR_KEY' \\\n  -H 'Content-Type: application/json' \\\n  -H 'Accept: application/json, text/event-stream' \\\n  -d '{initialize}'"
            ),
        ),
    ]
}

/// A name for the server in an assistant's settings: the package name's
/// last part (`com.example.todo` → `todo`).
pub fn server_name(package_name: &str) -> String {
    package_name
        .rsplit('.')
        .find(|part| !part.is_empty())
        .unwrap_or(package_name)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::tool::Parameter;

    #[test]
    fn the_setup_names_the_endpoint_and_a_placeholder_for_the_key() {
        let url = endpoint("https://console.example/", "com.example.todo");
        assert_eq!(url, "https://console.example/mcp/com.example.todo");
        assert_eq!(server_name("com.example.todo"), "todo");
        let snippets = setup_snippets(&url, "todo");
        assert_eq!(
            snippets[0].1,
            "claude mcp add --transport http todo https://console.example/mcp/com.example.todo --header \"Authorization: Bearer YOUR_KEY\""
        );
        let desktop: Value = serde_json::from_str(&snippets[1].1).unwrap();
        assert_eq!(desktop["mcpServers"]["todo"]["url"], url.as_str());
        let vscode: Value = serde_json::from_str(&snippets[2].1).unwrap();
        assert_eq!(
            vscode["servers"]["todo"]["headers"]["Authorization"],
            "Bearer YOUR_KEY"
        );
        assert!(snippets[3]
            .1
            .starts_with("curl -sS https://console.example/mcp/com.example.todo"));
        assert!(snippets[3].1.contains("\"method\":\"initialize\""));
    }

    fn add_todo() -> Tool {
        let param = |name: &str, param_type, required, enum_values: &[&str]| Parameter {
            name: name.into(),
            param_type,
            description: "d".into(),
            required,
            enum_values: enum_values.iter().map(|v| v.to_string()).collect(),
            ..Parameter::default()
        };
        Tool {
            id: "add_todo".into(),
            description: "Add a to-do".into(),
            parameters: vec![
                param("todo_item", ParamType::String, true, &[]),
                param("priority", ParamType::String, false, &["low", "high"]),
                param("count", ParamType::Number, false, &[]),
                param("urgent", ParamType::Boolean, false, &[]),
            ],
            ..Tool::default()
        }
    }

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn fitting_arguments_become_the_tool_calls_parameters() {
        let checked = check_arguments(
            &add_todo(),
            &args(json!({"todo_item": "milk", "priority": "high", "count": 2, "urgent": true})),
        )
        .unwrap();
        assert_eq!(
            Value::Object(checked.clone()),
            json!({"todo_item": "milk", "priority": "high", "count": 2, "urgent": true})
        );
        // Optional ones may be left out, or null.
        assert_eq!(
            check_arguments(
                &add_todo(),
                &args(json!({"todo_item": "milk", "count": null}))
            )
            .unwrap()
            .len(),
            1
        );
        let call = tool_call(
            &add_todo(),
            checked,
            "dev@example.com",
            "2026-12-05T10:00:00Z",
        );
        assert_eq!(call["toolId"], "add_todo");
        assert_eq!(call["userId"], "dev@example.com");
        assert_eq!(call["activeSession"], Value::Null);
        assert_eq!(call["toolParameters"]["count"], 2);
    }

    #[test]
    fn arguments_that_do_not_fit_name_their_parameter() {
        let tool = add_todo();
        let error = |value: Value| check_arguments(&tool, &args(value)).unwrap_err();
        assert!(error(json!({})).contains("“todo_item”"));
        assert!(error(json!({"todo_item": 3})).contains("“todo_item” must be a string"));
        assert!(
            error(json!({"todo_item": "a", "priority": "urgent"})).contains("one of: low, high")
        );
        assert!(error(json!({"todo_item": "a", "count": "2"})).contains("“count” must be a number"));
        assert!(error(json!({"todo_item": "a", "urgent": "yes"}))
            .contains("“urgent” must be a boolean"));
        assert!(error(json!({"todo_item": "a", "colour": "red"}))
            .starts_with("Unknown parameter “colour”"));
    }

    #[test]
    fn the_list_comes_in_pages_with_cursors() {
        let tools: Vec<usize> = (0..120).collect();
        let (first, next) = page(&tools, None).unwrap();
        assert_eq!(first.len(), PAGE_SIZE);
        assert_eq!(next.as_deref(), Some("50"));
        let (second, next) = page(&tools, next.as_deref()).unwrap();
        assert_eq!(second[0], 50);
        let (last, next) = page(&tools, next.as_deref()).unwrap();
        assert_eq!(last, (100..120).collect::<Vec<_>>());
        assert_eq!(next, None);
        assert!(page(&tools, Some("x")).is_none());
        assert!(page(&tools, Some("121")).is_none());
        let none: Vec<usize> = Vec::new();
        assert_eq!(page(&none, None), Some((vec![], None)));
    }

    #[test]
    fn the_apps_answers_read_as_text_or_as_errors() {
        assert_eq!(
            reply_text(&Reply::Say("Added milk".into())),
            ("Added milk".into(), false)
        );
        assert!(!reply_text(&Reply::AppAnswers).1);
        assert!(reply_text(&Reply::AppAnswers)
            .0
            .contains("answered the user itself"));
        assert!(reply_text(&Reply::AppError("no list".into())).1);
        assert!(reply_text(&Reply::HttpError(500)).0.contains("HTTP 500"));
        assert!(reply_text(&Reply::NotJson).1);
    }

    #[test]
    fn long_arguments_are_cut_for_the_activity_list() {
        let long = args(json!({"todo_item": "x".repeat(500)}));
        let cut = shortened(&long, 100);
        assert_eq!(cut.chars().count(), 100);
        assert!(cut.ends_with('…'));
        assert_eq!(shortened(&args(json!({"a": 1})), 100), r#"{"a":1}"#);
    }
}
