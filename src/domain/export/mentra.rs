//! Mentra's own formats: `app_config.json` and the legacy `tpa_config.json`.

use crate::domain::{
    config::{AppConfig, APP_CONFIG_KEYS},
    tool::{HintKind, KeptKeys, Tool, PARAMETER_SCHEMA_KEYS, TOOL_SCHEMA_KEYS},
};
use serde_json::{json, Map, Value};

/// Adds the kept keys after the ones the console writes. A kept key never
/// has the name of one of those (the rules refuse it), and if one did, the
/// console's own value would win.
fn keep(object: &mut Map<String, Value>, kept: &KeptKeys, edited: &[&str]) {
    for (key, value) in kept {
        if !edited.contains(&key.as_str()) && !object.contains_key(key) {
            object.insert(key.clone(), value.clone());
        }
    }
}

/// `ToolSchema`: `{id, description, activationPhrases?, parameters?}`, then
/// the keys of an imported file that the console does not edit.
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
                keep(&mut parameter, &p.extra, &PARAMETER_SCHEMA_KEYS);
                (p.name.clone(), Value::Object(parameter))
            })
            .collect();
        schema.insert("parameters".into(), Value::Object(parameters));
    }
    keep(&mut schema, &tool.extra, &TOOL_SCHEMA_KEYS);
    Value::Object(schema)
}

fn tools(app: &AppConfig) -> Value {
    Value::Array(app.tools.iter().map(|tool| tool_schema(tool)).collect())
}

/// `{name, description, version, publicUrl, settings, …kept keys, tools}`;
/// `settings` is the imported array, verbatim, or `[]`.
pub fn app_config(app: &AppConfig) -> Value {
    let mut config = Map::new();
    config.insert("name".into(), json!(app.name));
    config.insert("description".into(), json!(app.description));
    config.insert("version".into(), json!(app.version));
    config.insert("publicUrl".into(), json!(app.public_url));
    config.insert(
        "settings".into(),
        app.settings.clone().unwrap_or_else(|| json!([])),
    );
    keep(&mut config, &app.extra, &APP_CONFIG_KEYS);
    config.insert("tools".into(), tools(app));
    Value::Object(config)
}

/// The `mentra` export with what only the other formats carry, each under
/// the name an export gives it: a tool's `title` and `maxCalls` (MCP,
/// Tambo) and its decided hints as MCP `annotations`. The history shows and
/// compares revisions as this: every field the console keeps, and no name
/// that no export uses.
pub fn whole_config(app: &AppConfig) -> Value {
    let mut config = app_config(app);
    if let Some(schemas) = config.get_mut("tools").and_then(Value::as_array_mut) {
        for (schema, tool) in schemas.iter_mut().zip(&app.tools) {
            let Some(schema) = schema.as_object_mut() else {
                continue;
            };
            if let Some(title) = &tool.title {
                schema.insert("title".into(), json!(title));
            }
            if let Some(max_calls) = tool.max_calls {
                schema.insert("maxCalls".into(), json!(max_calls));
            }
            let hints: Map<String, Value> = HintKind::ALL
                .into_iter()
                .filter_map(|kind| Some((kind.mcp_key().to_owned(), json!(tool.hints.get(kind)?))))
                .collect();
            if !hints.is_empty() {
                schema.insert("annotations".into(), Value::Object(hints));
            }
        }
    }
    config
}

/// `{name, description, version, …kept keys, tools}`.
pub fn tpa_config(app: &AppConfig) -> Value {
    let mut config = Map::new();
    config.insert("name".into(), json!(app.name));
    config.insert("description".into(), json!(app.description));
    config.insert("version".into(), json!(app.version));
    keep(&mut config, &app.extra, &APP_CONFIG_KEYS);
    config.insert("tools".into(), tools(app));
    Value::Object(config)
}
