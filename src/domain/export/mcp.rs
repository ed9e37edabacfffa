//! MCP: the result of `tools/list`.

use super::{
    llm_description,
    schema::{object, Dialect},
    ExportOptions,
};
use crate::domain::config::AppConfig;
use serde_json::{json, Map, Value};

/// Where activation phrases travel in `_meta`, losslessly.
pub const PHRASES_META_KEY: &str = "glass.mentra/activationPhrases";

/// `{tools: [{name, title?, description, inputSchema, annotations?, _meta?}]}`.
/// `annotations` appear when any hint is set, and then with all four hints
/// spelled out (MCP's defaults for absent hints are not all `false`).
pub fn list_tools(app: &AppConfig, options: ExportOptions) -> Value {
    let tools: Vec<Value> = app
        .tools
        .iter()
        .map(|tool| {
            let mut entry = Map::new();
            entry.insert("name".into(), json!(tool.id));
            if let Some(title) = &tool.title {
                entry.insert("title".into(), json!(title));
            }
            entry.insert(
                "description".into(),
                json!(llm_description(
                    &tool.description,
                    &tool.activation_phrases,
                    options
                )),
            );
            entry.insert(
                "inputSchema".into(),
                object(&tool.parameters, Dialect::JsonSchema),
            );
            if tool.hints.any() {
                entry.insert(
                    "annotations".into(),
                    json!({
                        "readOnlyHint": tool.hints.read_only,
                        "destructiveHint": tool.hints.destructive,
                        "idempotentHint": tool.hints.idempotent,
                        "openWorldHint": tool.hints.open_world,
                    }),
                );
            }
            if !tool.activation_phrases.is_empty() {
                entry.insert(
                    "_meta".into(),
                    json!({ PHRASES_META_KEY: tool.activation_phrases }),
                );
            }
            Value::Object(entry)
        })
        .collect();
    json!({ "tools": tools })
}
