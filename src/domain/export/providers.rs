//! The LLM providers' tool formats: OpenAI, Anthropic, Gemini, and Tambo.

use super::{
    llm_description,
    schema::{object, Dialect},
    ExportOptions,
};
use crate::domain::config::AppConfig;
use serde_json::{json, Map, Value};

/// `[{type: "function", function: {name, description, parameters, strict?}}]`.
pub fn openai(app: &AppConfig, options: ExportOptions) -> Value {
    let dialect = if options.strict {
        Dialect::Strict
    } else {
        Dialect::JsonSchema
    };
    Value::Array(
        app.tools
            .iter()
            .map(|tool| {
                let mut function = Map::new();
                function.insert("name".into(), json!(tool.id));
                function.insert(
                    "description".into(),
                    json!(llm_description(
                        &tool.description,
                        &tool.activation_phrases,
                        options
                    )),
                );
                function.insert("parameters".into(), object(&tool.parameters, dialect));
                if options.strict {
                    function.insert("strict".into(), json!(true));
                }
                json!({ "type": "function", "function": Value::Object(function) })
            })
            .collect(),
    )
}

/// `[{name, description, input_schema}]`.
pub fn anthropic(app: &AppConfig, options: ExportOptions) -> Value {
    Value::Array(
        app.tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.id,
                    "description": llm_description(&tool.description, &tool.activation_phrases, options),
                    "input_schema": object(&tool.parameters, Dialect::JsonSchema),
                })
            })
            .collect(),
    )
}

/// `{functionDeclarations: [{name, description, parameters?}]}`. Gemini
/// refuses an OBJECT without properties, so a tool without parameters has
/// no `parameters`.
pub fn gemini(app: &AppConfig, options: ExportOptions) -> Value {
    let declarations: Vec<Value> = app
        .tools
        .iter()
        .map(|tool| {
            let mut declaration = Map::new();
            declaration.insert("name".into(), json!(tool.id));
            declaration.insert(
                "description".into(),
                json!(llm_description(
                    &tool.description,
                    &tool.activation_phrases,
                    options
                )),
            );
            if !tool.parameters.is_empty() {
                declaration.insert(
                    "parameters".into(),
                    object(&tool.parameters, Dialect::Gemini),
                );
            }
            Value::Object(declaration)
        })
        .collect();
    json!({ "functionDeclarations": declarations })
}

/// `[{name, description, title?, maxCalls?, annotations?, inputSchema,
/// outputSchema}]`; a tool's output is the text the app replies with.
pub fn tambo(app: &AppConfig, options: ExportOptions) -> Value {
    Value::Array(
        app.tools
            .iter()
            .map(|tool| {
                let mut entry = Map::new();
                entry.insert("name".into(), json!(tool.id));
                entry.insert(
                    "description".into(),
                    json!(llm_description(
                        &tool.description,
                        &tool.activation_phrases,
                        options
                    )),
                );
                if let Some(title) = &tool.title {
                    entry.insert("title".into(), json!(title));
                }
                if let Some(max_calls) = tool.max_calls {
                    entry.insert("maxCalls".into(), json!(max_calls));
                }
                if tool.hints.read_only == Some(true) {
                    entry.insert("annotations".into(), json!({ "tamboStreamableHint": true }));
                }
                entry.insert(
                    "inputSchema".into(),
                    object(&tool.parameters, Dialect::JsonSchema),
                );
                entry.insert("outputSchema".into(), json!({ "type": "string" }));
                Value::Object(entry)
            })
            .collect(),
    )
}
