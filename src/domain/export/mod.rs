//! Exports: one canonical [`AppConfig`] in, the JSON a consumer expects out.
//!
//! Every rendering is deterministic — the user's order of tools and
//! parameters, a fixed key order, two-space indentation, a trailing newline —
//! so a config can live in git and be diffed. Optional keys are left out
//! when empty.

mod mcp;
mod mentra;

pub use mentra::whole_config;
mod providers;
mod schema;

use crate::domain::config::AppConfig;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The export formats, by the keys the console and the API use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Mentra,
    Tpa,
    Mcp,
    Openai,
    Anthropic,
    Gemini,
    Tambo,
}

impl Format {
    pub const ALL: [Format; 7] = [
        Format::Mentra,
        Format::Tpa,
        Format::Mcp,
        Format::Openai,
        Format::Anthropic,
        Format::Gemini,
        Format::Tambo,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Format::Mentra => "mentra",
            Format::Tpa => "tpa",
            Format::Mcp => "mcp",
            Format::Openai => "openai",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::Tambo => "tambo",
        }
    }

    pub fn parse(key: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.key() == key)
    }

    /// The file a download is saved as.
    pub fn file_name(self) -> &'static str {
        match self {
            Format::Mentra => "app_config.json",
            Format::Tpa => "tpa_config.json",
            Format::Mcp => "mcp_tools.json",
            Format::Openai => "openai_tools.json",
            Format::Anthropic => "anthropic_tools.json",
            Format::Gemini => "gemini_tools.json",
            Format::Tambo => "tambo_tools.json",
        }
    }

    /// How the format is offered in the "Format" select.
    pub fn label(self) -> &'static str {
        match self {
            Format::Mentra => "Mentra app_config.json",
            Format::Tpa => "Mentra tpa_config.json (legacy)",
            Format::Mcp => "MCP tools/list",
            Format::Openai => "OpenAI function tools",
            Format::Anthropic => "Anthropic tools",
            Format::Gemini => "Gemini function declarations",
            Format::Tambo => "Tambo tools",
        }
    }

    /// The formats an LLM reads directly, where activation phrases can only
    /// travel inside the description.
    pub fn is_llm(self) -> bool {
        !matches!(self, Format::Mentra | Format::Tpa)
    }

    /// "mentra, tpa, mcp, …" for messages.
    pub fn list() -> String {
        Format::ALL.map(Format::key).join(", ")
    }
}

/// The export page's options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ExportOptions {
    /// Append "Possibly activated by phrases like: …" to descriptions (LLM formats).
    pub include_phrases: bool,
    /// OpenAI strict mode.
    pub strict: bool,
}

/// The consumer's JSON for `app`.
pub fn render(app: &AppConfig, format: Format, options: ExportOptions) -> Value {
    match format {
        Format::Mentra => mentra::app_config(app),
        Format::Tpa => mentra::tpa_config(app),
        Format::Mcp => mcp::list_tools(app, options),
        Format::Openai => providers::openai(app, options),
        Format::Anthropic => providers::anthropic(app, options),
        Format::Gemini => providers::gemini(app, options),
        Format::Tambo => providers::tambo(app, options),
    }
}

/// The exact bytes of an export: two-space indentation and a final newline.
pub fn render_text(app: &AppConfig, format: Format, options: ExportOptions) -> String {
    to_text(&render(app, format, options))
}

/// A JSON value as the console writes every file.
pub fn to_text(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_owned());
    text.push('\n');
    text
}

/// OpenAI's limit on a function description; no LLM format gets more.
pub const LLM_DESCRIPTION_MAX: usize = 1024;

/// A tool's description for an LLM format: with the option, followed by its
/// activation phrases the way Mentra's own assistant does it
/// (`\nPossibly activated by phrases like: a, b`), as many phrases as fit
/// in [`LLM_DESCRIPTION_MAX`] characters.
pub fn llm_description(description: &str, phrases: &[String], options: ExportOptions) -> String {
    const LEAD: &str = "\nPossibly activated by phrases like: ";
    if !options.include_phrases || phrases.is_empty() {
        return description.to_owned();
    }
    let mut out = description.to_owned();
    let mut count = out.chars().count();
    for (added, phrase) in phrases.iter().enumerate() {
        let piece = if added == 0 { LEAD } else { ", " };
        let extra = piece.chars().count() + phrase.chars().count();
        if count + extra > LLM_DESCRIPTION_MAX {
            break;
        }
        out.push_str(piece);
        out.push_str(phrase);
        count += extra;
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;
