//! Import: config JSON in, a validated configuration (or every problem, each
//! with its JSON path) out. Understands Mentra's `app_config.json`, the legacy
//! `tpa_config.json`, and an MCP `tools/list` result.
//!
//! Nothing here touches the database: the server merges the result into the
//! stored app ([`merge`]), shows what would change ([`preview`]) and applies
//! it in one transaction.

use crate::domain::{
    app::{is_valid_version, url_problem, NAME_MAX},
    config::{AppConfig, APP_CONFIG_KEYS},
    export::{llm_description, ExportOptions},
    lists::{parse_enum_values, parse_phrases},
    tool::{
        FieldNames, HintKind, KeptKeys, ParamType, Parameter, Tool, ToolHints,
        PARAMETER_SCHEMA_KEYS, TOOL_SCHEMA_KEYS,
    },
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod duplicates;

/// Imports larger than this are refused before parsing.
pub const MAX_IMPORT_BYTES: usize = 1024 * 1024;

/// The key under which the MCP export keeps activation phrases.
const MCP_PHRASES_KEY: &str = "glass.mentra/activationPhrases";

/// One problem (or warning), where it is: `tools[2].parameters.city.type`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Which shape a file had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SourceFormat {
    /// `app_config.json` (has `publicUrl` or `settings`).
    Mentra,
    /// The legacy `tpa_config.json`.
    Tpa,
    /// An MCP `tools/list` result.
    Mcp,
}

impl SourceFormat {
    pub fn label(self) -> &'static str {
        match self {
            SourceFormat::Mentra => "Mentra app_config.json",
            SourceFormat::Tpa => "Mentra tpa_config.json",
            SourceFormat::Mcp => "MCP tools list",
        }
    }
}

/// What a valid file says. App fields it does not have are `None` (the
/// app keeps its own).
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub format: SourceFormat,
    pub name: Option<String>,
    pub description: Option<String>,
    pub version: Option<String>,
    pub public_url: Option<String>,
    pub settings: Option<Value>,
    /// The file's other app keys, kept verbatim (Mentra and TPA files).
    pub extra: KeptKeys,
    pub tools: Vec<Tool>,
    /// Keys that were present but are not the console's to manage.
    pub warnings: Vec<Problem>,
}

/// Every problem with a file, and the warnings found on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
}

/// Reads `bytes` as a config file. Never panics, whatever the bytes.
pub fn parse(bytes: &[u8]) -> Result<Imported, Rejected> {
    let mut report = Report::default();
    if bytes.len() > MAX_IMPORT_BYTES {
        report.error("(file)", "is larger than 1 MiB");
        return Err(report.rejected());
    }
    let root: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(error) => {
            report.error(
                "(file)",
                format!(
                    "is not valid JSON: {} at line {}, column {}",
                    json_error_reason(&error),
                    error.line(),
                    error.column()
                ),
            );
            return Err(report.rejected());
        }
    };
    // Valid JSON, but a key given twice in one object is ambiguous: the
    // parser kept only the last one.
    let repeated = duplicates::duplicate_keys(bytes);
    for path in &repeated.paths {
        report.error(
            path.clone(),
            "is given more than once in the same object; only one can be imported, so remove the others",
        );
    }
    if repeated.count > repeated.paths.len() {
        report.error(
            "(file)",
            format!(
                "repeats {} more keys in the same object",
                repeated.count - repeated.paths.len()
            ),
        );
    }
    let Some(root) = root.as_object() else {
        report.error("(root)", "must be a JSON object with a \"tools\" array");
        return Err(report.rejected());
    };
    let Some(tools) = root.get("tools") else {
        report.error(
            "tools",
            "is missing: expected a Mentra app_config.json, a tpa_config.json or an MCP tools list",
        );
        return Err(report.rejected());
    };
    let Some(tools) = tools.as_array() else {
        report.error("tools", "must be an array");
        return Err(report.rejected());
    };
    let is_mcp = tools.iter().any(|t| {
        t.get("inputSchema").is_some() || (t.get("name").is_some() && t.get("id").is_none())
    });
    let format = if is_mcp {
        SourceFormat::Mcp
    } else if root.contains_key("publicUrl") || root.contains_key("settings") {
        SourceFormat::Mentra
    } else {
        SourceFormat::Tpa
    };

    let mut imported = Imported {
        format,
        name: None,
        description: None,
        version: None,
        public_url: None,
        settings: None,
        extra: KeptKeys::new(),
        tools: Vec::new(),
        warnings: Vec::new(),
    };
    if format == SourceFormat::Mcp {
        for (key, _) in root.iter().filter(|(k, _)| k.as_str() != "tools") {
            report.warn(key, "is not part of a tools list; ignored");
        }
    } else {
        read_app_fields(root, &mut imported, &mut report);
    }

    for (index, tool) in tools.iter().enumerate() {
        let path = format!("tools[{index}]");
        let parsed = match format {
            SourceFormat::Mcp => read_mcp_tool(tool, &path, &mut report),
            _ => read_mentra_tool(tool, &path, &mut report),
        };
        if let Some(tool) = parsed {
            let names = JsonPaths {
                tool: path.clone(),
                format,
                parameters: tool.parameters.iter().map(|p| p.name.clone()).collect(),
            };
            if let Err(problems) = tool.check(&names) {
                for (field, messages) in problems.iter() {
                    // A field that could not be read was reported already.
                    let reported = |path: &str| {
                        path == field
                            || path
                                .strip_prefix(field)
                                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
                    };
                    if report.errors.iter().any(|e| reported(&e.path)) {
                        continue;
                    }
                    for message in messages {
                        report.error(field, lower_first(message));
                    }
                }
            }
            let earlier = imported.tools.iter().position(|t: &Tool| t.id == tool.id);
            if let Some(first) = earlier.filter(|_| !tool.id.is_empty()) {
                report.error(
                    format!("{path}.{}", id_key(format)),
                    format!(
                        "repeats the id {:?} of tools[{first}]; tool ids are unique in an app",
                        tool.id
                    ),
                );
            }
            imported.tools.push(tool);
        } else {
            // Keep indexes aligned for the duplicate check.
            imported.tools.push(Tool::default());
        }
    }

    if report.errors.is_empty() {
        imported.warnings = report.warnings;
        Ok(imported)
    } else {
        Err(report.rejected())
    }
}

fn json_error_reason(error: &serde_json::Error) -> String {
    // serde_json's message ends with " at line L column C"; keep the reason.
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

fn lower_first(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn id_key(format: SourceFormat) -> &'static str {
    if format == SourceFormat::Mcp {
        "name"
    } else {
        "id"
    }
}

#[derive(Default)]
struct Report {
    errors: Vec<Problem>,
    warnings: Vec<Problem>,
}

impl Report {
    fn error(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.errors.push(Problem {
            path: path.into(),
            message: message.into(),
        });
    }

    fn warn(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(Problem {
            path: path.into(),
            message: message.into(),
        });
    }

    fn rejected(self) -> Rejected {
        Rejected {
            errors: self.errors,
            warnings: self.warnings,
        }
    }
}

/// JSON-path names for the rules of one imported tool.
struct JsonPaths {
    tool: String,
    format: SourceFormat,
    parameters: Vec<String>,
}

impl FieldNames for JsonPaths {
    fn tool_field(&self, field: &str) -> String {
        let mcp = self.format == SourceFormat::Mcp;
        let key = match field {
            "id" => id_key(self.format),
            "activation_phrases" if mcp => "_meta",
            "activation_phrases" => "activationPhrases",
            "parameters" if mcp => "inputSchema.properties",
            "max_calls" => "maxCalls",
            other => other,
        };
        format!("{}.{key}", self.tool)
    }

    fn parameter_field(&self, index: usize, field: &str) -> String {
        let name = self
            .parameters
            .get(index)
            .map(String::as_str)
            .unwrap_or("?");
        let base = if self.format == SourceFormat::Mcp {
            format!("{}.inputSchema.properties.{name}", self.tool)
        } else {
            format!("{}.parameters.{name}", self.tool)
        };
        match field {
            "name" => base,
            "param_type" => format!("{base}.type"),
            "enum_values" | "allowed_values" => format!("{base}.enum"),
            other => format!("{base}.{other}"),
        }
    }
}

fn read_app_fields(root: &Map<String, Value>, imported: &mut Imported, report: &mut Report) {
    if let Some(value) = root.get("name") {
        match value.as_str().map(str::trim) {
            Some(name) if !name.is_empty() && name.chars().count() as u64 <= NAME_MAX => {
                imported.name = Some(name.to_owned())
            }
            Some(_) => report.error("name", "must be 1 to 100 characters"),
            None => report.error("name", "must be a string"),
        }
    }
    if let Some(value) = root.get("description") {
        match value.as_str() {
            Some(text) if text.trim().chars().count() <= 1000 => {
                imported.description = Some(text.trim().to_owned())
            }
            Some(_) => report.error("description", "must be at most 1000 characters"),
            None => report.error("description", "must be a string"),
        }
    }
    if let Some(value) = root.get("version") {
        match value.as_str().map(str::trim) {
            Some(version) if is_valid_version(version) => {
                imported.version = Some(version.to_owned())
            }
            Some(_) => report.error(
                "version",
                "must be a version like 1.0.0 (MAJOR.MINOR.PATCH)",
            ),
            None => report.error("version", "must be a string"),
        }
    }
    if let Some(value) = root.get("publicUrl") {
        match value.as_str() {
            Some(url) => {
                let url = crate::domain::app::normalize_url(url);
                match url_problem(&url) {
                    None => imported.public_url = Some(url),
                    Some(problem) => report.error("publicUrl", lower_first(problem)),
                }
            }
            None => report.error("publicUrl", "must be a string"),
        }
    }
    if let Some(value) = root.get("settings") {
        if value.is_array() {
            imported.settings = Some(value.clone());
        } else {
            report.error("settings", "must be an array");
        }
    }
    imported.extra = kept_keys(root, &APP_CONFIG_KEYS);
}

fn read_string(
    value: Option<&Value>,
    path: &str,
    required: bool,
    report: &mut Report,
) -> Option<String> {
    match value {
        Some(Value::String(text)) => Some(text.trim().to_owned()),
        Some(_) => {
            report.error(path, "must be a string");
            None
        }
        None if required => {
            report.error(path, "is missing");
            None
        }
        None => None,
    }
}

/// A list of strings that the console's comma-separated fields can hold.
fn read_string_list(
    value: &Value,
    path: &str,
    what: &str,
    report: &mut Report,
) -> Option<Vec<String>> {
    let Some(items) = value.as_array() else {
        report.error(path, "must be an array of strings");
        return None;
    };
    let mut out = Vec::new();
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        match item.as_str() {
            Some(text) if text.contains(',') => {
                report.error(
                    format!("{path}[{i}]"),
                    format!("cannot contain a comma (the console keeps {what} in one comma-separated field)"),
                );
                ok = false;
            }
            Some(text) => out.push(text.to_owned()),
            None => {
                report.error(format!("{path}[{i}]"), "must be a string");
                ok = false;
            }
        }
    }
    ok.then_some(out)
}

fn read_bool(value: Option<&Value>, path: &str, report: &mut Report) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            report.error(path, "must be true or false");
            false
        }
    }
}

fn read_param_type(value: Option<&Value>, path: &str, report: &mut Report) -> ParamType {
    match value.and_then(Value::as_str).and_then(ParamType::parse) {
        Some(param_type) => param_type,
        None => {
            if value.is_none() {
                report.error(path, "is missing: must be one of string, number, boolean");
            } else {
                report.error(path, "must be one of string, number, boolean");
            }
            ParamType::String
        }
    }
}

/// Phrases as the console keeps them: the same normalisation as the field.
fn normalized_phrases(list: Vec<String>, path: &str, report: &mut Report) -> Vec<String> {
    let kept = parse_phrases(&list.join(","));
    if kept.len() != list.len() {
        report.warn(path, "had empty or repeated phrases; they were dropped");
    }
    kept
}

fn normalized_enum(list: Vec<String>, path: &str, report: &mut Report) -> Vec<String> {
    let kept = parse_enum_values(&list.join(","));
    if kept.len() != list.len() {
        report.warn(path, "had empty or repeated values; they were dropped");
    }
    kept
}

/// The keys of `object` the console does not edit, verbatim and in order.
fn kept_keys(object: &Map<String, Value>, edited: &[&str]) -> KeptKeys {
    object
        .iter()
        .filter(|(key, _)| !edited.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

fn warn_unknown(object: &Map<String, Value>, known: &[&str], path: &str, report: &mut Report) {
    for key in object.keys().filter(|k| !known.contains(&k.as_str())) {
        report.warn(format!("{path}.{key}"), "is not a known key; ignored");
    }
}

fn read_mentra_tool(value: &Value, path: &str, report: &mut Report) -> Option<Tool> {
    let Some(object) = value.as_object() else {
        report.error(path, "must be an object");
        return None;
    };
    let id = read_string(object.get("id"), &format!("{path}.id"), true, report);
    let description = read_string(
        object.get("description"),
        &format!("{path}.description"),
        true,
        report,
    );
    let phrases_path = format!("{path}.activationPhrases");
    let phrases = match object.get("activationPhrases") {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(list) => read_string_list(list, &phrases_path, "activation phrases", report)
            .map(|list| normalized_phrases(list, &phrases_path, report)),
    };
    let mut parameters = Vec::new();
    match object.get("parameters") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (name, spec) in map {
                let param_path = format!("{path}.parameters.{name}");
                let Some(spec) = spec.as_object() else {
                    report.error(&param_path, "must be an object with type and description");
                    continue;
                };
                let param_type =
                    read_param_type(spec.get("type"), &format!("{param_path}.type"), report);
                let description = read_string(
                    spec.get("description"),
                    &format!("{param_path}.description"),
                    true,
                    report,
                );
                let enum_path = format!("{param_path}.enum");
                let enum_values = match spec.get("enum") {
                    None | Some(Value::Null) => Some(Vec::new()),
                    Some(list) => read_string_list(list, &enum_path, "allowed values", report)
                        .map(|list| normalized_enum(list, &enum_path, report)),
                };
                let required = read_bool(
                    spec.get("required"),
                    &format!("{param_path}.required"),
                    report,
                );
                if let (Some(description), Some(enum_values)) = (description, enum_values) {
                    parameters.push(Parameter {
                        name: name.clone(),
                        param_type,
                        description,
                        required,
                        enum_values,
                        extra: kept_keys(spec, &PARAMETER_SCHEMA_KEYS),
                    });
                }
            }
        }
        Some(_) => {
            report.error(
                format!("{path}.parameters"),
                "must be an object of parameters by name",
            );
        }
    }
    // Whatever could not be read is reported already; build the tool from the
    // rest so that every other rule is still checked.
    Some(Tool {
        id: id.unwrap_or_default(),
        description: description.unwrap_or_default(),
        activation_phrases: phrases.unwrap_or_default(),
        parameters,
        extra: kept_keys(object, &TOOL_SCHEMA_KEYS),
        ..Tool::default()
    })
}

fn read_mcp_tool(value: &Value, path: &str, report: &mut Report) -> Option<Tool> {
    let Some(object) = value.as_object() else {
        report.error(path, "must be an object");
        return None;
    };
    warn_unknown(
        object,
        &[
            "name",
            "title",
            "description",
            "inputSchema",
            "annotations",
            "_meta",
            "outputSchema",
        ],
        path,
        report,
    );
    let id = read_string(object.get("name"), &format!("{path}.name"), true, report);
    let title = read_string(object.get("title"), &format!("{path}.title"), false, report)
        .filter(|t| !t.is_empty());
    let description = read_string(
        object.get("description"),
        &format!("{path}.description"),
        true,
        report,
    );

    let meta_path = format!("{path}._meta.{MCP_PHRASES_KEY}");
    let phrases = match object.get("_meta").and_then(|m| m.get(MCP_PHRASES_KEY)) {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(list) => read_string_list(list, &meta_path, "activation phrases", report)
            .map(|list| normalized_phrases(list, &meta_path, report)),
    };

    let annotations = match object.get("annotations") {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => {
            warn_unknown(
                map,
                &[
                    "title",
                    "readOnlyHint",
                    "destructiveHint",
                    "idempotentHint",
                    "openWorldHint",
                ],
                &format!("{path}.annotations"),
                report,
            );
            Some(map)
        }
        Some(_) => {
            report.error(format!("{path}.annotations"), "must be an object of hints");
            None
        }
    };
    // An absent hint is not set (what a client would read as the
    // protocol's default); true and false are the author's decision.
    let mut hints = ToolHints::default();
    for kind in HintKind::ALL {
        let hint_path = format!("{path}.annotations.{}", kind.mcp_key());
        let value = match annotations.and_then(|a| a.get(kind.mcp_key())) {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                report.error(hint_path, "must be true or false");
                None
            }
        };
        hints.set(kind, value);
    }
    // Clients of the earlier MCP revision read the title from annotations.
    let title = title.or_else(|| {
        read_string(
            annotations.and_then(|a| a.get("title")),
            &format!("{path}.annotations.title"),
            false,
            report,
        )
        .filter(|t| !t.is_empty())
    });

    let schema_path = format!("{path}.inputSchema");
    let mut parameters = Vec::new();
    match object.get("inputSchema") {
        None => {}
        Some(Value::Object(schema)) => {
            warn_unknown(
                schema,
                &[
                    "type",
                    "properties",
                    "required",
                    "additionalProperties",
                    "$schema",
                ],
                &schema_path,
                report,
            );
            if schema.get("type").and_then(Value::as_str) != Some("object") {
                report.error(format!("{schema_path}.type"), "must be \"object\"");
            }
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let properties_map = schema.get("properties").and_then(Value::as_object);
            for (i, name) in required.iter().enumerate() {
                if !properties_map.is_some_and(|p| p.contains_key(*name)) {
                    report.warn(
                        format!("{schema_path}.required[{i}]"),
                        format!("names no property ({name:?}); ignored"),
                    );
                }
            }
            if let Some(properties) = schema.get("properties") {
                let Some(properties) = properties.as_object() else {
                    report.error(format!("{schema_path}.properties"), "must be an object");
                    return None;
                };
                for (name, spec) in properties {
                    let param_path = format!("{schema_path}.properties.{name}");
                    let Some(spec) = spec.as_object() else {
                        report.error(&param_path, "must be an object");
                        continue;
                    };
                    warn_unknown(spec, &["type", "description", "enum"], &param_path, report);
                    let param_type =
                        read_param_type(spec.get("type"), &format!("{param_path}.type"), report);
                    let description = read_string(
                        spec.get("description"),
                        &format!("{param_path}.description"),
                        true,
                        report,
                    );
                    let enum_path = format!("{param_path}.enum");
                    let enum_values = match spec.get("enum") {
                        None | Some(Value::Null) => Some(Vec::new()),
                        Some(list) => read_string_list(list, &enum_path, "allowed values", report)
                            .map(|list| normalized_enum(list, &enum_path, report)),
                    };
                    if let (Some(description), Some(enum_values)) = (description, enum_values) {
                        parameters.push(Parameter {
                            name: name.clone(),
                            param_type,
                            description,
                            required: required.contains(&name.as_str()),
                            enum_values,
                            extra: KeptKeys::new(),
                        });
                    }
                }
            }
        }
        Some(_) => {
            report.error(&schema_path, "must be a JSON Schema object");
        }
    }

    let phrases = phrases.unwrap_or_default();
    let mut description = description.unwrap_or_default();
    // An export made with "Include activation phrases in descriptions"
    // carries them twice; keep them once, in their own field.
    let with_phrases = llm_description(
        "",
        &phrases,
        ExportOptions {
            include_phrases: true,
            strict: false,
        },
    );
    if !phrases.is_empty() {
        if let Some(stripped) = description.strip_suffix(with_phrases.as_str()) {
            description = stripped.to_owned();
        }
    }
    Some(Tool {
        id: id.unwrap_or_default(),
        description,
        activation_phrases: phrases,
        parameters,
        title,
        max_calls: None,
        hints,
        extra: KeptKeys::new(),
    })
}

/// The app as it would be after the import: the file's fields where it has
/// them, the app's own otherwise. What a format cannot carry (titles, max
/// calls and hints in Mentra's formats; max calls and the kept keys of a
/// Mentra file in MCP) is kept from the stored tool of the same id, so a
/// round trip through a simpler format loses nothing.
pub fn merge(current: &AppConfig, imported: &Imported) -> AppConfig {
    let from_mcp = imported.format == SourceFormat::Mcp;
    let tools = imported
        .tools
        .iter()
        .map(|tool| {
            let mut tool = tool.clone();
            if let Some(existing) = current.tools.iter().find(|t| t.id == tool.id) {
                tool.max_calls = existing.max_calls;
                if from_mcp {
                    tool.extra = existing.extra.clone();
                    for parameter in &mut tool.parameters {
                        if let Some(stored) = existing
                            .parameters
                            .iter()
                            .find(|p| p.name == parameter.name)
                        {
                            parameter.extra = stored.extra.clone();
                        }
                    }
                } else {
                    tool.title = existing.title.clone();
                    tool.hints = existing.hints;
                }
            }
            std::sync::Arc::new(tool)
        })
        .collect();
    AppConfig {
        name: imported
            .name
            .clone()
            .unwrap_or_else(|| current.name.clone()),
        description: imported
            .description
            .clone()
            .unwrap_or_else(|| current.description.clone()),
        version: imported
            .version
            .clone()
            .unwrap_or_else(|| current.version.clone()),
        public_url: imported
            .public_url
            .clone()
            .unwrap_or_else(|| current.public_url.clone()),
        settings: imported
            .settings
            .clone()
            .or_else(|| current.settings.clone()),
        // A Mentra or TPA file is the whole app: its kept keys are the app's.
        extra: if from_mcp {
            current.extra.clone()
        } else {
            imported.extra.clone()
        },
        tools,
    }
}

/// How one tool would change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolChange {
    pub id: String,
    pub changes: Vec<String>,
}

/// What an import would do to the app.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportPreview {
    /// "name: Todo App → Todo Deluxe"
    pub app_fields: Vec<String>,
    pub added: Vec<String>,
    pub changed: Vec<ToolChange>,
    pub removed: Vec<String>,
    pub unchanged: usize,
    pub order_changed: bool,
    pub settings_changed: bool,
    /// The app keys kept from a file (not edited here) that would change.
    pub kept_changed: Vec<String>,
    /// The package the file was made for, when it names another than the
    /// app's (its tools go into the app all the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreign_package: Option<String>,
}

impl ImportPreview {
    pub fn is_empty(&self) -> bool {
        self.app_fields.is_empty()
            && self.added.is_empty()
            && self.changed.is_empty()
            && self.removed.is_empty()
            && !self.order_changed
            && !self.settings_changed
            && self.kept_changed.is_empty()
    }
}

/// What changes from `current` to `next`.
pub fn preview(current: &AppConfig, next: &AppConfig) -> ImportPreview {
    let mut out = ImportPreview::default();
    let mut field = |label: &str, from: &str, to: &str| {
        if from != to {
            out.app_fields
                .push(format!("{label}: {} → {}", shown(from), shown(to)));
        }
    };
    field("Name", &current.name, &next.name);
    field("Description", &current.description, &next.description);
    field("Version", &current.version, &next.version);
    field("Server URL", &current.public_url, &next.public_url);
    out.settings_changed = !same_settings(&current.settings, &next.settings);
    out.kept_changed = changed_keys(&current.extra, &next.extra);

    for tool in &next.tools {
        match current.tools.iter().find(|t| t.id == tool.id) {
            None => out.added.push(tool.id.clone()),
            Some(old) if old == tool => out.unchanged += 1,
            Some(old) => out.changed.push(ToolChange {
                id: tool.id.clone(),
                changes: tool_changes(old, tool),
            }),
        }
    }
    out.removed = current
        .tools
        .iter()
        .filter(|t| !next.tools.iter().any(|n| n.id == t.id))
        .map(|t| t.id.clone())
        .collect();
    let kept_order =
        |tools: &[std::sync::Arc<Tool>], other: &[std::sync::Arc<Tool>]| -> Vec<String> {
            tools
                .iter()
                .filter(|t| other.iter().any(|o| o.id == t.id))
                .map(|t| t.id.clone())
                .collect()
        };
    out.order_changed =
        kept_order(&current.tools, &next.tools) != kept_order(&next.tools, &current.tools);
    out
}

/// No settings and an empty settings array export the same (`"settings": []`).
fn same_settings(a: &Option<Value>, b: &Option<Value>) -> bool {
    let empty = |s: &Option<Value>| {
        s.as_ref()
            .is_none_or(|v| v.as_array().is_some_and(Vec::is_empty))
    };
    a == b || (empty(a) && empty(b))
}

/// The keys added, removed or changed from `old` to `new`, in order.
fn changed_keys(old: &KeptKeys, new: &KeptKeys) -> Vec<String> {
    let mut keys: Vec<String> = new
        .iter()
        .filter(|(key, value)| old.get(*key) != Some(*value))
        .map(|(key, _)| key.clone())
        .collect();
    keys.extend(old.keys().filter(|key| !new.contains_key(*key)).cloned());
    keys
}

fn shown(text: &str) -> String {
    if text.is_empty() {
        "(empty)".to_owned()
    } else if text.chars().count() > 60 {
        format!("“{}…”", text.chars().take(60).collect::<String>())
    } else {
        format!("“{text}”")
    }
}

fn tool_changes(old: &Tool, new: &Tool) -> Vec<String> {
    let mut changes = Vec::new();
    if old.description != new.description {
        changes.push("description changed".to_owned());
    }
    let added: Vec<&String> = new
        .activation_phrases
        .iter()
        .filter(|p| !old.activation_phrases.contains(p))
        .collect();
    let removed: Vec<&String> = old
        .activation_phrases
        .iter()
        .filter(|p| !new.activation_phrases.contains(p))
        .collect();
    if !added.is_empty() {
        changes.push(format!("phrases added: {}", join_quoted(&added)));
    }
    if !removed.is_empty() {
        changes.push(format!("phrases removed: {}", join_quoted(&removed)));
    }
    if added.is_empty() && removed.is_empty() && old.activation_phrases != new.activation_phrases {
        changes.push("phrases reordered".to_owned());
    }
    for param in &new.parameters {
        match old.parameters.iter().find(|p| p.name == param.name) {
            None => changes.push(format!("parameter {} added", param.name)),
            Some(before) if before != param => {
                let mut what = Vec::new();
                if before.param_type != param.param_type {
                    what.push(format!(
                        "type {} → {}",
                        before.param_type.as_str(),
                        param.param_type.as_str()
                    ));
                }
                if before.required != param.required {
                    what.push(
                        if param.required {
                            "now required"
                        } else {
                            "now optional"
                        }
                        .to_owned(),
                    );
                }
                if before.description != param.description {
                    what.push("description changed".to_owned());
                }
                if before.enum_values != param.enum_values {
                    what.push("allowed values changed".to_owned());
                }
                if before.extra != param.extra {
                    what.push("keys kept from the file changed".to_owned());
                }
                changes.push(format!("parameter {}: {}", param.name, what.join(", ")));
            }
            Some(_) => {}
        }
    }
    for param in &old.parameters {
        if !new.parameters.iter().any(|p| p.name == param.name) {
            changes.push(format!("parameter {} removed", param.name));
        }
    }
    let names = |t: &Tool| {
        t.parameters
            .iter()
            .map(|p| p.name.clone())
            .collect::<Vec<_>>()
    };
    let (old_names, new_names) = (names(old), names(new));
    let common_old: Vec<&String> = old_names.iter().filter(|n| new_names.contains(n)).collect();
    let common_new: Vec<&String> = new_names.iter().filter(|n| old_names.contains(n)).collect();
    if common_old != common_new {
        changes.push("parameters reordered".to_owned());
    }
    if old.title != new.title {
        changes.push("title changed".to_owned());
    }
    for key in changed_keys(&old.extra, &new.extra) {
        changes.push(format!("{key} changed (kept from the file)"));
    }
    changes.extend(new.hints.changes_from(&old.hints));
    if changes.is_empty() {
        changes.push("changed".to_owned());
    }
    changes
}

fn join_quoted(items: &[&String]) -> String {
    items
        .iter()
        .map(|i| format!("“{i}”"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
