//! Trying a tool: the `ToolCall` body the assistant would POST to the app's
//! server (`{publicUrl}/tool`), built from what the developer typed and
//! checked against the tool's schema, and what the app's answer means.

use crate::domain::{
    tool::{ParamType, Tool},
    FieldErrors,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The constant an app answers with when it replies to the user itself.
pub const GIVE_APP_CONTROL: &str = "GIVE_APP_CONTROL_OF_TOOL_RESPONSE";

/// The field key of the "User ID" input.
pub const USER_ID_FIELD: &str = "user_id";

/// The field key of parameter `name`'s input.
pub fn param_field(name: &str) -> String {
    format!("param.{name}")
}

/// `{"toolId", "toolParameters", "timestamp", "userId", "activeSession": null}`:
/// only the filled-in optional parameters, numbers as JSON numbers, booleans
/// as JSON booleans. `inputs` holds the typed text per parameter name
/// (`"true"`/`"false"` for booleans; a missing entry is not filled in).
pub fn build_tool_call(
    tool: &Tool,
    inputs: &BTreeMap<String, String>,
    user_id: &str,
    timestamp: &str,
) -> Result<Value, FieldErrors> {
    let (call, errors) = draft_tool_call(tool, inputs, user_id, timestamp);
    errors.into_result()?;
    Ok(call)
}

/// The call as it stands while the developer types — every value that
/// already fits, the others left out — and what is still wrong (nothing,
/// when it is the call [`build_tool_call`] makes). The page's live preview.
pub fn draft_tool_call(
    tool: &Tool,
    inputs: &BTreeMap<String, String>,
    user_id: &str,
    timestamp: &str,
) -> (Value, FieldErrors) {
    let mut errors = FieldErrors::new();
    let mut parameters = Map::new();
    for parameter in &tool.parameters {
        let field = param_field(&parameter.name);
        let raw = inputs
            .get(&parameter.name)
            .map(String::as_str)
            .unwrap_or("");
        match parameter.param_type {
            ParamType::Boolean => match raw {
                "true" => {
                    parameters.insert(parameter.name.clone(), json!(true));
                }
                "false" | "" if parameter.required => {
                    parameters.insert(parameter.name.clone(), json!(false));
                }
                "false" | "" => {}
                _ => errors.add(field, "Choose true or false"),
            },
            ParamType::String => {
                if raw.is_empty() {
                    if parameter.required {
                        errors.add(field, "Required: enter a value");
                    }
                } else if !parameter.enum_values.is_empty()
                    && !parameter.enum_values.iter().any(|v| v == raw)
                {
                    errors.add(
                        field,
                        format!("Must be one of: {}", parameter.enum_values.join(", ")),
                    );
                } else {
                    parameters.insert(parameter.name.clone(), json!(raw));
                }
            }
            ParamType::Number => {
                let text = raw.trim();
                if text.is_empty() {
                    if parameter.required {
                        errors.add(field, "Required: enter a number");
                    }
                } else {
                    match number(text) {
                        Some(value) => {
                            parameters.insert(parameter.name.clone(), value);
                        }
                        None => errors.add(field, "Enter a finite number, like 3 or 2.5"),
                    }
                }
            }
        }
    }
    let user_id = user_id.trim();
    if user_id.is_empty() {
        errors.add(USER_ID_FIELD, "Enter the user the call is for");
    }
    let call = json!({
        "toolId": tool.id,
        "toolParameters": Value::Object(parameters),
        "timestamp": timestamp,
        "userId": user_id,
        "activeSession": Value::Null,
    });
    (call, errors)
}

/// A JSON number for `text`: an integer when it is one, else a finite float.
fn number(text: &str) -> Option<Value> {
    if let Ok(integer) = text.parse::<i64>() {
        return Some(json!(integer));
    }
    let float: f64 = text.parse().ok()?;
    if !float.is_finite() {
        return None;
    }
    serde_json::Number::from_f64(float).map(Value::Number)
}

/// The same request as a shell command.
pub fn curl_command(url: &str, body: &Value) -> String {
    let json = serde_json::to_string(body).unwrap_or_default();
    format!(
        "curl -X POST '{}' -H 'Content-Type: application/json' -d '{}'",
        shell_quoted(url),
        shell_quoted(&json)
    )
}

/// Escapes for inside single quotes.
fn shell_quoted(text: &str) -> String {
    text.replace('\'', "'\\''")
}

/// What the app's answer means, in the SDK's terms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reply {
    /// `{"status":"success","reply":"…"}`: what the assistant would say.
    Say(String),
    /// The reply was `GIVE_APP_CONTROL_OF_TOOL_RESPONSE`: the app answers the
    /// user itself and the assistant stays silent.
    AppAnswers,
    /// `{"status":"success","reply":null}`: nothing to say.
    Nothing,
    /// `{"status":"error","message":…}` or another failure the app reported.
    AppError(String),
    /// A non-2xx status without the SDK's error shape.
    HttpError(u16),
    /// 2xx, but not JSON.
    NotJson,
    /// JSON, but not the SDK's answer.
    Unexpected,
}

/// Reads an answer of the app's `/tool` endpoint.
pub fn interpret(status: u16, body: &[u8]) -> Reply {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let object = parsed.as_ref().and_then(Value::as_object);
    let sdk_status = object.and_then(|o| o.get("status")).and_then(Value::as_str);
    match (status, sdk_status) {
        (_, Some("error")) => Reply::AppError(
            object
                .and_then(|o| o.get("message"))
                .and_then(Value::as_str)
                .unwrap_or("The app reported an error without a message")
                .to_owned(),
        ),
        (200..=299, Some("success")) => match object.and_then(|o| o.get("reply")) {
            Some(Value::String(reply)) if reply == GIVE_APP_CONTROL => Reply::AppAnswers,
            Some(Value::String(reply)) => Reply::Say(reply.clone()),
            Some(Value::Null) | None => Reply::Nothing,
            Some(other) => Reply::Say(other.to_string()),
        },
        (200..=299, _) if parsed.is_none() => Reply::NotJson,
        (200..=299, _) => Reply::Unexpected,
        (status, _) => Reply::HttpError(status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::tool::Parameter;

    fn todo_tool() -> Tool {
        let param = |name: &str, param_type, required, enum_values: &[&str]| Parameter {
            name: name.into(),
            param_type,
            description: "d".into(),
            required,
            enum_values: enum_values.iter().map(|v| v.to_string()).collect(),
            extra: Default::default(),
        };
        Tool {
            id: "add_todo".into(),
            description: "Add".into(),
            parameters: vec![
                param("todo_item", ParamType::String, true, &[]),
                param("priority", ParamType::String, false, &["low", "high"]),
                param("count", ParamType::Number, false, &[]),
                param("urgent", ParamType::Boolean, false, &[]),
                param("notify", ParamType::Boolean, true, &[]),
            ],
            ..Tool::default()
        }
    }

    fn inputs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_draft_shows_what_fits_so_far_and_what_is_still_wrong() {
        let (call, errors) = draft_tool_call(
            &todo_tool(),
            &inputs(&[("priority", "urgent!"), ("count", "4")]),
            "dev@example.com",
            "t",
        );
        assert_eq!(call["toolParameters"], json!({"count": 4, "notify": false}));
        assert!(errors.first(&param_field("todo_item")).is_some());
        assert!(errors.first(&param_field("priority")).is_some());
        assert!(errors.first(&param_field("count")).is_none());
        // Once everything fits, the draft is the call.
        let filled = inputs(&[("todo_item", "x"), ("count", "4")]);
        let (call, errors) = draft_tool_call(&todo_tool(), &filled, "u", "t");
        assert!(errors.is_empty());
        assert_eq!(
            call,
            build_tool_call(&todo_tool(), &filled, "u", "t").unwrap()
        );
    }

    #[test]
    fn a_tool_call_has_the_sdk_shape_with_typed_values() {
        let call = build_tool_call(
            &todo_tool(),
            &inputs(&[
                ("todo_item", "buy milk"),
                ("priority", "high"),
                ("count", "3"),
                ("urgent", "true"),
            ]),
            "dev@example.com",
            "2026-12-01T02:17:35.250Z",
        )
        .unwrap();
        assert_eq!(
            call,
            json!({
                "toolId": "add_todo",
                "toolParameters": {"todo_item": "buy milk", "priority": "high", "count": 3, "urgent": true, "notify": false},
                "timestamp": "2026-12-01T02:17:35.250Z",
                "userId": "dev@example.com",
                "activeSession": null
            })
        );
        let keys: Vec<&String> = call.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "toolId",
                "toolParameters",
                "timestamp",
                "userId",
                "activeSession"
            ]
        );
    }

    #[test]
    fn optional_parameters_left_empty_are_omitted() {
        let call = build_tool_call(&todo_tool(), &inputs(&[("todo_item", "x")]), "u", "t").unwrap();
        assert_eq!(
            call["toolParameters"],
            json!({"todo_item": "x", "notify": false})
        );
    }

    #[test]
    fn fractional_numbers_stay_numbers() {
        let call = build_tool_call(
            &todo_tool(),
            &inputs(&[("todo_item", "x"), ("count", " 2.5 ")]),
            "u",
            "t",
        )
        .unwrap();
        assert_eq!(call["toolParameters"]["count"], json!(2.5));
    }

    #[test]
    fn every_problem_is_reported_next_to_its_field() {
        let errors = build_tool_call(
            &todo_tool(),
            &inputs(&[
                ("priority", "medium"),
                ("count", "many"),
                ("urgent", "maybe"),
            ]),
            "  ",
            "t",
        )
        .unwrap_err();
        assert_eq!(
            errors.first("param.todo_item"),
            Some("Required: enter a value")
        );
        assert_eq!(
            errors.first("param.priority"),
            Some("Must be one of: low, high")
        );
        assert_eq!(
            errors.first("param.count"),
            Some("Enter a finite number, like 3 or 2.5")
        );
        assert_eq!(errors.first("param.urgent"), Some("Choose true or false"));
        assert!(errors.first(USER_ID_FIELD).is_some());
    }

    #[test]
    fn infinite_and_nan_numbers_are_refused() {
        for bad in ["inf", "NaN", "1e999"] {
            let errors = build_tool_call(
                &todo_tool(),
                &inputs(&[("todo_item", "x"), ("count", bad)]),
                "u",
                "t",
            );
            assert!(errors.is_err(), "{bad}");
        }
    }

    #[test]
    fn curl_quotes_single_quotes() {
        let body = json!({"toolId": "x", "toolParameters": {"q": "it's"}});
        let curl = curl_command("https://app.example.com/tool", &body);
        assert_eq!(
            curl,
            r#"curl -X POST 'https://app.example.com/tool' -H 'Content-Type: application/json' -d '{"toolId":"x","toolParameters":{"q":"it'\''s"}}'"#
        );
    }

    #[test]
    fn replies_are_read_the_way_the_sdk_writes_them() {
        assert_eq!(
            interpret(200, br#"{"status":"success","reply":"Added milk"}"#),
            Reply::Say("Added milk".into())
        );
        assert_eq!(
            interpret(
                200,
                br#"{"status":"success","reply":"GIVE_APP_CONTROL_OF_TOOL_RESPONSE"}"#
            ),
            Reply::AppAnswers
        );
        assert_eq!(
            interpret(200, br#"{"status":"success","reply":null}"#),
            Reply::Nothing
        );
        assert_eq!(
            interpret(
                500,
                br#"{"status":"error","message":"The oven is on fire"}"#
            ),
            Reply::AppError("The oven is on fire".into())
        );
        assert_eq!(interpret(404, b"Cannot POST /tool"), Reply::HttpError(404));
        assert_eq!(interpret(200, b"<html>hello</html>"), Reply::NotJson);
        assert_eq!(interpret(200, br#"{"ok":true}"#), Reply::Unexpected);
    }
}
