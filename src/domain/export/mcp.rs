//! MCP: the result of `tools/list`.

use super::{
    llm_description,
    schema::{object, Dialect},
    ExportOptions,
};
use crate::domain::{
    config::AppConfig,
    tool::{HintKind, Tool},
};
use serde_json::{json, Map, Value};

/// Where activation phrases travel in `_meta`, losslessly.
pub const PHRASES_META_KEY: &str = "glass.mentra/activationPhrases";

/// `{tools: [{name, title?, description, inputSchema, annotations?, _meta?}]}`.
/// `annotations` carry the title (clients of the earlier MCP revision read
/// it there) and exactly the hints the author set: an absent hint means the
/// protocol's default to a client, which is what "not set" means too.
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
            let annotations = annotations(tool);
            if !annotations.is_empty() {
                entry.insert("annotations".into(), Value::Object(annotations));
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

/// `{title?, readOnlyHint?, destructiveHint?, idempotentHint?, openWorldHint?}`.
fn annotations(tool: &Tool) -> Map<String, Value> {
    let mut annotations = Map::new();
    if let Some(title) = &tool.title {
        annotations.insert("title".into(), json!(title));
    }
    for kind in HintKind::ALL {
        if let Some(value) = tool.hints.get(kind) {
            annotations.insert(kind.mcp_key().into(), json!(value));
        }
    }
    annotations
}
