//! The JSON-Schema object every LLM format describes a tool's input with.

use crate::domain::tool::{ParamType, Parameter};
use serde_json::{json, Map, Value};

/// How a format spells types.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Plain JSON Schema (MCP, OpenAI, Anthropic, Tambo).
    JsonSchema,
    /// OpenAI strict mode: every property required, optional ones nullable,
    /// no additional properties.
    Strict,
    /// Gemini's OpenAPI subset: upper-case type names.
    Gemini,
}

fn type_name(param_type: ParamType, dialect: Dialect) -> &'static str {
    match (param_type, dialect) {
        (ParamType::String, Dialect::Gemini) => "STRING",
        (ParamType::Number, Dialect::Gemini) => "NUMBER",
        (ParamType::Boolean, Dialect::Gemini) => "BOOLEAN",
        (other, _) => other.as_str(),
    }
}

fn property(parameter: &Parameter, dialect: Dialect) -> Value {
    let mut property = Map::new();
    let nullable = dialect == Dialect::Strict && !parameter.required;
    let type_name = type_name(parameter.param_type, dialect);
    property.insert(
        "type".into(),
        if nullable {
            json!([type_name, "null"])
        } else {
            json!(type_name)
        },
    );
    property.insert("description".into(), json!(parameter.description));
    // Allowed values only ever exist on strings; the guard keeps it that way.
    if parameter.param_type == ParamType::String && !parameter.enum_values.is_empty() {
        let mut values: Vec<Value> = parameter.enum_values.iter().map(|v| json!(v)).collect();
        if nullable {
            values.push(Value::Null);
        }
        if dialect == Dialect::Gemini {
            // Gemini's schema marks an enumerated string with this format.
            property.insert("format".into(), json!("enum"));
        }
        property.insert("enum".into(), Value::Array(values));
    }
    Value::Object(property)
}

/// `{type: "object", properties: {…}, required: […]}`; `required` is left out
/// when empty (except in strict mode, where it names every property).
pub fn object(parameters: &[Parameter], dialect: Dialect) -> Value {
    let properties: Map<String, Value> = parameters
        .iter()
        .map(|p| (p.name.clone(), property(p, dialect)))
        .collect();
    let required: Vec<Value> = parameters
        .iter()
        .filter(|p| p.required || dialect == Dialect::Strict)
        .map(|p| json!(p.name))
        .collect();
    let mut schema = Map::new();
    schema.insert(
        "type".into(),
        json!(if dialect == Dialect::Gemini {
            "OBJECT"
        } else {
            "object"
        }),
    );
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() || dialect == Dialect::Strict {
        schema.insert("required".into(), Value::Array(required));
    }
    if dialect == Dialect::Strict {
        schema.insert("additionalProperties".into(), json!(false));
    }
    Value::Object(schema)
}
