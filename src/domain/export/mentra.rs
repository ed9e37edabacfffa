//! Mentra's own formats: `app_config.json` and the legacy `tpa_config.json`.

use crate::domain::{config::AppConfig, tool::Tool};
use serde_json::{json, Map, Value};

/// `ToolSchema`: `{id, description, activationPhrases?, parameters?}`.
pub fn tool_schema(tool: &Tool) -> Value {
    let mut schema = Map::new();
    schema.insert("id".into(), json!(tool.id));
    schema.insert("description".into(), json!(tool.description));
    if !tool.activation_phrases.is_empty() {
        schema.insert("activationPhrases".into(), json!(tool.activation_phrases));
    }
    if !tool.parameters.is_empty() {
        let parameters: Map<String, Value> = tool
            .parameters
            .iter()
            .map(|p| {
                let mut parameter = Map::new();
                parameter.insert("type".into(), json!(p.param_type.as_str()));
                parameter.insert("description".into(), json!(p.description));
                if !p.enum_values.is_empty() {
                    parameter.insert("enum".into(), json!(p.enum_values));
                }
                if p.required {
                    parameter.insert("required".into(), json!(true));
                }
                (p.name.clone(), Value::Object(parameter))
            })
            .collect();
        schema.insert("parameters".into(), Value::Object(parameters));
    }
    Value::Object(schema)
}

fn tools(app: &AppConfig) -> Value {
    Value::Array(app.tools.iter().map(tool_schema).collect())
}

/// `{name, description, version, publicUrl, settings, tools}`; `settings` is
/// the imported legacy array, verbatim, or `[]`.
pub fn app_config(app: &AppConfig) -> Value {
    json!({
        "name": app.name,
        "description": app.description,
        "version": app.version,
        "publicUrl": app.public_url,
        "settings": app.settings.clone().unwrap_or_else(|| json!([])),
        "tools": tools(app),
    })
}

/// `{name, description, version, tools}`.
pub fn tpa_config(app: &AppConfig) -> Value {
    json!({
        "name": app.name,
        "description": app.description,
        "version": app.version,
        "tools": tools(app),
    })
}
