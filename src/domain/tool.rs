//! AI tools and their parameters: the canonical model every export renders,
//! the editor's draft of it, and every rule of SPEC.md §1.

use crate::domain::{
    lists::{join_list, parse_enum_values, parse_phrases},
    FieldErrors,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::{borrow::Cow, sync::Arc};
use validator::{Validate, ValidationError, ValidationErrors, ValidationErrorsKind};

pub const TOOL_ID_MAX: usize = 64;
pub const TOOL_DESCRIPTION_MAX: u64 = 1024;
pub const PHRASE_MAX_CHARS: usize = 100;
pub const PHRASES_MAX: usize = 20;
pub const PARAMETERS_MAX: u64 = 50;
pub const TITLE_MAX: u64 = 100;
pub const PARAM_NAME_MAX: usize = 64;
pub const PARAM_DESCRIPTION_MAX: u64 = 500;
pub const ENUM_VALUE_MAX_CHARS: usize = 100;
pub const ENUM_VALUES_MAX: usize = 100;
/// Tambo reserves parameter names with this prefix.
pub const RESERVED_PARAM_PREFIX: &str = "_tambo_";

/// Keys of an imported Mentra or TPA file that the console does not edit
/// (on the app, a tool or a parameter), verbatim and in the file's order:
/// the `mentra` and `tpa` exports give them back, so an import, an edit and
/// an export lose nothing.
pub type KeptKeys = Map<String, Value>;

/// The keys a Mentra `ToolSchema` has that the console edits.
pub const TOOL_SCHEMA_KEYS: [&str; 4] = ["id", "description", "activationPhrases", "parameters"];
/// The keys of a Mentra parameter that the console edits.
pub const PARAMETER_SCHEMA_KEYS: [&str; 4] = ["type", "description", "enum", "required"];

/// The JSON type of a parameter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    #[default]
    String,
    Number,
    Boolean,
}

impl ParamType {
    pub const ALL: [ParamType; 3] = [ParamType::String, ParamType::Number, ParamType::Boolean];

    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
        }
    }

    pub fn parse(text: &str) -> Option<ParamType> {
        ParamType::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

/// Which way a tool or parameter moves in its list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoveDirection {
    Up,
    Down,
}

/// An app's tools at a glance, with the revision they were read at: what
/// the app page lists. A whole tool is fetched when it is edited
/// ([`ToolAt`]), so the page does not carry every parameter of every tool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolsState {
    pub revision: i64,
    pub tools: Vec<ToolSummary>,
}

/// One whole tool with the revision of its app it was read at.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolAt {
    pub revision: i64,
    pub tool: Tool,
}

/// What a tool's card shows: its id, description, number of parameters and
/// first activation phrases.
///
/// As JSON it is an array, `[id, description, parameters, phrases,
/// phrase_count, hints]` (the hints as four letters, `y`, `n` or `-`): the
/// app page carries every tool's summary to its island in an attribute,
/// where the keys would be repeated for every tool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolSummary {
    pub id: String,
    pub description: String,
    /// How many parameters the tool has.
    pub parameters: usize,
    /// The first [`ToolSummary::PHRASES_SHOWN`] activation phrases.
    pub phrases: Vec<String>,
    /// How many activation phrases there are in all.
    pub phrase_count: usize,
    /// Its hints (for "Hints of every tool").
    pub hints: ToolHints,
}

type SummaryFields = (String, String, usize, Vec<String>, usize, String);

/// The hints as four letters in [`HintKind::ALL`] order: `y` yes, `n` no,
/// `-` not set.
fn hint_letters(hints: &ToolHints) -> String {
    HintKind::ALL
        .into_iter()
        .map(|kind| match hints.get(kind) {
            Some(true) => 'y',
            Some(false) => 'n',
            None => '-',
        })
        .collect()
}

fn hints_of_letters(letters: &str) -> ToolHints {
    let mut hints = ToolHints::default();
    for (kind, letter) in HintKind::ALL.into_iter().zip(letters.chars()) {
        hints.set(
            kind,
            match letter {
                'y' => Some(true),
                'n' => Some(false),
                _ => None,
            },
        );
    }
    hints
}

impl Serialize for ToolSummary {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (
            &self.id,
            &self.description,
            self.parameters,
            &self.phrases,
            self.phrase_count,
            hint_letters(&self.hints),
        )
            .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolSummary {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (id, description, parameters, phrases, phrase_count, hints) =
            SummaryFields::deserialize(deserializer)?;
        Ok(ToolSummary {
            id,
            description,
            parameters,
            phrases,
            phrase_count,
            hints: hints_of_letters(&hints),
        })
    }
}

impl ToolSummary {
    pub const PHRASES_SHOWN: usize = 2;

    pub fn of(tool: &Tool) -> Self {
        ToolSummary {
            id: tool.id.clone(),
            description: tool.description.clone(),
            parameters: tool.parameters.len(),
            phrases: tool
                .activation_phrases
                .iter()
                .take(Self::PHRASES_SHOWN)
                .cloned()
                .collect(),
            phrase_count: tool.activation_phrases.len(),
            hints: tool.hints,
        }
    }

    /// The card's line under the description: how many parameters
    /// ("No parameters", "1 parameter", "3 parameters"), then the first
    /// phrases and how many more there are.
    pub fn meta_text(&self) -> String {
        use std::fmt::Write as _;
        let mut text = String::with_capacity(48);
        match self.parameters {
            0 => text.push_str("No parameters"),
            1 => text.push_str("1 parameter"),
            n => {
                let _ = write!(text, "{n} parameters");
            }
        }
        text.push_str(" · ");
        if self.phrases.is_empty() {
            text.push_str("No activation phrases");
            return text;
        }
        for (i, phrase) in self.phrases.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            text.push_str(phrase);
        }
        let more = self.phrase_count.saturating_sub(self.phrases.len());
        if more > 0 {
            let _ = write!(text, " +{more} more");
        }
        text
    }
}

/// One change to an app's list of tools, as the editor makes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ToolEdit {
    /// Adds `tool` at the end (`original_id` `None`) or puts it in the place
    /// of the tool now called `original_id`.
    Save {
        original_id: Option<String>,
        tool: Box<Tool>,
    },
    Delete(String),
    Move(String, MoveDirection),
}

/// What a tool write answers: the app's new revision and the edit as it was
/// made (a saved tool as the server normalised it). The editor makes the
/// edit on the list it had — the app's list at the revision it sent — which
/// gives the app's list now, without the whole list coming back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolsWritten {
    pub revision: i64,
    pub edit: ToolEdit,
}

/// Why a [`ToolEdit`] cannot be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditRefused {
    /// No tool with that id.
    NotFound,
    /// Another tool already has the id.
    DuplicateId,
}

impl ToolEdit {
    /// Makes the edit on `tools`, in place — exactly what the database's
    /// write does to the stored list, so a list known at one revision and the
    /// edit give the list at the next (the server's cache, the editor's view).
    /// Nothing changes when it is refused.
    pub fn apply(&self, tools: &mut Vec<Arc<Tool>>) -> Result<(), EditRefused> {
        self.apply_to(tools, |t| &t.id, |tool| Arc::new(tool.clone()))
    }

    /// [`ToolEdit::apply`] on the list at a glance (the app page's).
    pub fn apply_to_summaries(&self, list: &mut Vec<ToolSummary>) -> Result<(), EditRefused> {
        self.apply_to(list, |s| &s.id, ToolSummary::of)
    }

    /// [`ToolEdit::apply`] on any list that follows the tools one to one
    /// (`id` gives an item's tool id, `make` the item of a saved tool): the
    /// server keeps its tools' digests in step this way.
    pub fn apply_to<T>(
        &self,
        items: &mut Vec<T>,
        id: impl Fn(&T) -> &str,
        make: impl FnOnce(&Tool) -> T,
    ) -> Result<(), EditRefused> {
        let index_of = |items: &[T], wanted: &str| items.iter().position(|t| id(t) == wanted);
        match self {
            ToolEdit::Save {
                original_id: None,
                tool,
            } => {
                if index_of(items, &tool.id).is_some() {
                    return Err(EditRefused::DuplicateId);
                }
                items.push(make(tool));
            }
            ToolEdit::Save {
                original_id: Some(original_id),
                tool,
            } => {
                let index = index_of(items, original_id).ok_or(EditRefused::NotFound)?;
                if items
                    .iter()
                    .enumerate()
                    .any(|(i, t)| i != index && id(t) == tool.id)
                {
                    return Err(EditRefused::DuplicateId);
                }
                items[index] = make(tool);
            }
            ToolEdit::Delete(wanted) => {
                let index = index_of(items, wanted).ok_or(EditRefused::NotFound)?;
                items.remove(index);
            }
            ToolEdit::Move(wanted, direction) => {
                let index = index_of(items, wanted).ok_or(EditRefused::NotFound)?;
                let target = match direction {
                    MoveDirection::Up => index.saturating_sub(1),
                    MoveDirection::Down => (index + 1).min(items.len() - 1),
                };
                let moved = items.remove(index);
                items.insert(target, moved);
            }
        }
        Ok(())
    }

    /// The tool this edit stores anew, if any.
    pub fn saved_tool(&self) -> Option<&Tool> {
        match self {
            ToolEdit::Save { tool, .. } => Some(tool),
            _ => None,
        }
    }
}

/// The MCP annotations (and Tambo's streamable hint) of a tool, each as the
/// author decided it: `None` is "not set", `Some(true)` yes, `Some(false)`
/// no. Not set is not no: an MCP client reads an absent hint as the
/// protocol's default (destructive, open world), so the author decides each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ToolHints {
    #[serde(rename = "readOnly", skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    #[serde(rename = "openWorld", skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

/// One of the four hints, for the places that go through them in turn (the
/// editor's selects, the checks, the history's words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HintKind {
    ReadOnly,
    Destructive,
    Idempotent,
    OpenWorld,
}

impl HintKind {
    pub const ALL: [HintKind; 4] = [
        HintKind::ReadOnly,
        HintKind::Destructive,
        HintKind::Idempotent,
        HintKind::OpenWorld,
    ];

    /// The editor's label.
    pub fn label(self) -> &'static str {
        match self {
            HintKind::ReadOnly => "Read-only",
            HintKind::Destructive => "Destructive",
            HintKind::Idempotent => "Idempotent",
            HintKind::OpenWorld => "Open world",
        }
    }

    /// The key in paths (`tools[0].hints.readOnly`) and revisions.
    pub fn key(self) -> &'static str {
        match self {
            HintKind::ReadOnly => "readOnly",
            HintKind::Destructive => "destructive",
            HintKind::Idempotent => "idempotent",
            HintKind::OpenWorld => "openWorld",
        }
    }

    /// MCP's name for it in `annotations`.
    pub fn mcp_key(self) -> &'static str {
        match self {
            HintKind::ReadOnly => "readOnlyHint",
            HintKind::Destructive => "destructiveHint",
            HintKind::Idempotent => "idempotentHint",
            HintKind::OpenWorld => "openWorldHint",
        }
    }
}

/// A hint's value in words: "not set", "yes", "no".
pub fn hint_word(value: Option<bool>) -> &'static str {
    match value {
        None => "not set",
        Some(true) => "yes",
        Some(false) => "no",
    }
}

/// One row of "Hints of every tool": a tool's four hints as its selects
/// hold them ("", "yes", "no").
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HintsRow {
    pub tool_id: String,
    #[serde(default)]
    pub read_only: String,
    #[serde(default)]
    pub destructive: String,
    #[serde(default)]
    pub idempotent: String,
    #[serde(default)]
    pub open_world: String,
}

impl HintsRow {
    /// The row's form field for `kind`: `read_only`, `open_world`, ….
    pub fn field(kind: HintKind) -> &'static str {
        match kind {
            HintKind::ReadOnly => "read_only",
            HintKind::Destructive => "destructive",
            HintKind::Idempotent => "idempotent",
            HintKind::OpenWorld => "open_world",
        }
    }

    /// What the row's select for `kind` held.
    pub fn value(&self, kind: HintKind) -> &str {
        match kind {
            HintKind::ReadOnly => &self.read_only,
            HintKind::Destructive => &self.destructive,
            HintKind::Idempotent => &self.idempotent,
            HintKind::OpenWorld => &self.open_world,
        }
    }
}

/// The key under which a refused plain form echoes a row's choice for
/// `kind` (`hints.add_todo.read_only`), so the form drawn again keeps it.
pub fn hints_echo_key(tool_id: &str, kind: HintKind) -> String {
    format!("hints.{tool_id}.{}", HintsRow::field(kind))
}

/// Decides the hints of the tools the rows name, all or nothing. Every row
/// must name a tool of `tools`, once, and hold only "", "yes" or "no"
/// (errors keyed `hints[N].read_only`, …). Gives the ids of the tools whose
/// hints changed, in the app's order.
pub fn decide_hints(
    tools: &mut [Arc<Tool>],
    rows: &[HintsRow],
) -> Result<Vec<String>, FieldErrors> {
    let mut errors = FieldErrors::new();
    let mut decided: Vec<(usize, ToolHints)> = Vec::with_capacity(rows.len());
    for (n, row) in rows.iter().enumerate() {
        let Some(index) = tools.iter().position(|t| t.id == row.tool_id) else {
            errors.add(
                format!("hints[{n}].tool_id"),
                format!("This app has no tool {} (any more).", row.tool_id),
            );
            continue;
        };
        if decided.iter().any(|(i, _)| *i == index) {
            errors.add(
                format!("hints[{n}].tool_id"),
                format!("{} is named twice.", row.tool_id),
            );
            continue;
        }
        let mut hints = ToolHints::default();
        for kind in HintKind::ALL {
            match row.value(kind) {
                "" => {}
                "yes" => hints.set(kind, Some(true)),
                "no" => hints.set(kind, Some(false)),
                _ => errors.add(
                    format!("hints[{n}].{}", HintsRow::field(kind)),
                    format!("{} must be Not set, Yes or No.", kind.label()),
                ),
            }
        }
        decided.push((index, hints));
    }
    errors.into_result()?;
    decided.sort_by_key(|(index, _)| *index);
    let mut changed = Vec::new();
    for (index, hints) in decided {
        if let Some(tool) = tools.get_mut(index) {
            if tool.hints != hints {
                let tool = Arc::make_mut(tool);
                tool.hints = hints;
                changed.push(tool.id.clone());
            }
        }
    }
    Ok(changed)
}

/// A hint's value as the editor's select holds it ("", "yes", "no") back
/// to the model; anything else is not set.
pub fn parse_hint(text: &str) -> Option<bool> {
    match text {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    }
}

/// The select's value for a hint: "", "yes" or "no".
pub fn hint_value(value: Option<bool>) -> &'static str {
    match value {
        None => "",
        Some(true) => "yes",
        Some(false) => "no",
    }
}

impl ToolHints {
    pub fn get(&self, kind: HintKind) -> Option<bool> {
        match kind {
            HintKind::ReadOnly => self.read_only,
            HintKind::Destructive => self.destructive,
            HintKind::Idempotent => self.idempotent,
            HintKind::OpenWorld => self.open_world,
        }
    }

    pub fn set(&mut self, kind: HintKind, value: Option<bool>) {
        let slot = match kind {
            HintKind::ReadOnly => &mut self.read_only,
            HintKind::Destructive => &mut self.destructive,
            HintKind::Idempotent => &mut self.idempotent,
            HintKind::OpenWorld => &mut self.open_world,
        };
        *slot = value;
    }

    /// Whether the author set any hint at all.
    pub fn any_set(&self) -> bool {
        HintKind::ALL
            .into_iter()
            .any(|kind| self.get(kind).is_some())
    }

    /// How the hints changed, in words: "Read-only: not set → yes".
    pub fn changes_from(&self, before: &ToolHints) -> Vec<String> {
        HintKind::ALL
            .into_iter()
            .filter(|kind| before.get(*kind) != self.get(*kind))
            .map(|kind| {
                format!(
                    "{}: {} → {}",
                    kind.label(),
                    hint_word(before.get(kind)),
                    hint_word(self.get(kind))
                )
            })
            .collect()
    }
}

impl<'de> Deserialize<'de> for ToolHints {
    /// Reads hints as revisions keep them. Revisions recorded before hints
    /// could be "no" kept four booleans (`read_only`, …) where `false` meant
    /// nothing was decided; those read as yes or not set, as the database's
    /// own hints were migrated.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Stored {
            #[serde(rename = "readOnly")]
            read_only: Option<bool>,
            destructive: Option<bool>,
            idempotent: Option<bool>,
            #[serde(rename = "openWorld")]
            open_world: Option<bool>,
            #[serde(rename = "read_only")]
            ticked_read_only: Option<bool>,
            #[serde(rename = "open_world")]
            ticked_open_world: Option<bool>,
        }
        let stored = Stored::deserialize(deserializer)?;
        let ticked = |value: Option<bool>| value.filter(|ticked| *ticked);
        // The old `destructive` and `idempotent` keys share the new names; an
        // old record is told apart by its old `read_only` key.
        let old = stored.ticked_read_only.is_some() || stored.ticked_open_world.is_some();
        Ok(if old {
            ToolHints {
                read_only: ticked(stored.ticked_read_only),
                destructive: ticked(stored.destructive),
                idempotent: ticked(stored.idempotent),
                open_world: ticked(stored.ticked_open_world),
            }
        } else {
            ToolHints {
                read_only: stored.read_only,
                destructive: stored.destructive,
                idempotent: stored.idempotent,
                open_world: stored.open_world,
            }
        })
    }
}

/// One typed input of a tool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Validate)]
pub struct Parameter {
    #[validate(custom(function = "check_param_name"))]
    pub name: String,
    pub param_type: ParamType,
    #[validate(length(
        min = 1,
        max = 500,
        message = "Describe the parameter in 1 to 500 characters"
    ))]
    pub description: String,
    pub required: bool,
    /// Allowed values; empty means any value (only ever set on strings).
    #[validate(custom(function = "check_enum_values"))]
    pub enum_values: Vec<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[validate(custom(function = "check_parameter_kept_keys"))]
    pub extra: KeptKeys,
}

/// An AI tool, as stored and exported.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Validate)]
pub struct Tool {
    #[validate(custom(function = "check_tool_id"))]
    pub id: String,
    #[validate(length(
        min = 1,
        max = 1024,
        message = "Describe what the tool does in 1 to 1024 characters"
    ))]
    pub description: String,
    #[validate(custom(function = "check_phrases"))]
    pub activation_phrases: Vec<String>,
    #[validate(nested)]
    pub parameters: Vec<Parameter>,
    #[validate(length(max = 100, message = "A title has at most 100 characters"))]
    pub title: Option<String>,
    #[validate(range(
        min = 1,
        max = 100,
        message = "Max calls is a whole number from 1 to 100"
    ))]
    pub max_calls: Option<u32>,
    #[serde(default)]
    pub hints: ToolHints,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[validate(custom(function = "check_tool_kept_keys"))]
    pub extra: KeptKeys,
}

fn invalid(code: &'static str, message: String) -> ValidationError {
    ValidationError::new(code).with_message(Cow::Owned(message))
}

/// `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`: what OpenAI, Anthropic, Gemini, MCP and
/// Tambo all accept.
pub fn is_valid_tool_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= TOOL_ID_MAX
        && (bytes[0].is_ascii_alphabetic() || bytes[0] == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
}

/// `^[A-Za-z_][A-Za-z0-9_]{0,63}$` (Gemini forbids `-`).
pub fn is_valid_param_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= PARAM_NAME_MAX
        && (bytes[0].is_ascii_alphabetic() || bytes[0] == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

fn check_tool_id(id: &str) -> Result<(), ValidationError> {
    if is_valid_tool_id(id) {
        Ok(())
    } else if id.is_empty() {
        Err(invalid("tool_id", "Enter a tool ID, like add_todo".into()))
    } else {
        Err(invalid(
            "tool_id",
            "Use 1 to 64 letters, digits, _ or -, starting with a letter or _ (like add_todo)"
                .into(),
        ))
    }
}

fn check_param_name(name: &str) -> Result<(), ValidationError> {
    if name.starts_with(RESERVED_PARAM_PREFIX) {
        Err(invalid(
            "param_name",
            "Names starting with _tambo_ are reserved by Tambo".into(),
        ))
    } else if is_valid_param_name(name) {
        Ok(())
    } else if name.is_empty() {
        Err(invalid("param_name", "Enter a name, like due_date".into()))
    } else {
        Err(invalid(
            "param_name",
            "Use 1 to 64 letters, digits or _, starting with a letter or _ (no hyphens)".into(),
        ))
    }
}

fn check_phrases(phrases: &[String]) -> Result<(), ValidationError> {
    if let Some(long) = phrases
        .iter()
        .find(|p| p.chars().count() > PHRASE_MAX_CHARS)
    {
        return Err(invalid(
            "phrases",
            format!(
                "Each phrase has at most 100 characters; “{}…” is longer",
                prefix(long)
            ),
        ));
    }
    if phrases.len() > PHRASES_MAX {
        return Err(invalid(
            "phrases",
            format!(
                "Use at most 20 activation phrases (there are {})",
                phrases.len()
            ),
        ));
    }
    Ok(())
}

fn check_enum_values(values: &[String]) -> Result<(), ValidationError> {
    if let Some(long) = values
        .iter()
        .find(|v| v.chars().count() > ENUM_VALUE_MAX_CHARS)
    {
        return Err(invalid(
            "enum",
            format!(
                "Each allowed value has at most 100 characters; “{}…” is longer",
                prefix(long)
            ),
        ));
    }
    if values.len() > ENUM_VALUES_MAX {
        return Err(invalid(
            "enum",
            format!(
                "Use at most 100 allowed values (there are {})",
                values.len()
            ),
        ));
    }
    Ok(())
}

/// Kept keys never stand in for a field the console edits: an export writes
/// the field, and a second key of the same name would be ambiguous.
fn check_kept_keys(kept: &KeptKeys, edited: &[&str]) -> Result<(), ValidationError> {
    match kept.keys().find(|key| edited.contains(&key.as_str())) {
        Some(key) => Err(invalid(
            "kept_keys",
            format!("“{key}” is edited in the console, not kept from a file"),
        )),
        None => Ok(()),
    }
}

fn check_tool_kept_keys(kept: &KeptKeys) -> Result<(), ValidationError> {
    check_kept_keys(kept, &TOOL_SCHEMA_KEYS)
}

fn check_parameter_kept_keys(kept: &KeptKeys) -> Result<(), ValidationError> {
    check_kept_keys(kept, &PARAMETER_SCHEMA_KEYS)
}

fn prefix(text: &str) -> String {
    text.chars().take(20).collect()
}

/// Where a rule is broken, for the place that shows it: the editor's form
/// field names, or an import's JSON paths.
pub trait FieldNames {
    fn tool_field(&self, field: &str) -> String;
    fn parameter_field(&self, index: usize, field: &str) -> String;
}

/// The tool editor's input names: `tool_id`, `parameters[2].allowed_values`, …
pub struct EditorFields;

impl FieldNames for EditorFields {
    fn tool_field(&self, field: &str) -> String {
        match field {
            "id" => "tool_id".into(),
            other => other.into(),
        }
    }

    fn parameter_field(&self, index: usize, field: &str) -> String {
        let field = match field {
            "enum_values" => "allowed_values",
            other => other,
        };
        format!("parameters[{index}].{field}")
    }
}

impl Tool {
    /// Every rule of one tool — fields, and across fields (unique parameter
    /// names, allowed values only on strings) — reported under `names`.
    /// Uniqueness of the tool's id within its app is [`check_unique_id`].
    pub fn check(&self, names: &dyn FieldNames) -> Result<(), FieldErrors> {
        let mut errors = FieldErrors::new();
        if let Err(found) = self.validate() {
            flatten(&found, names, &mut errors);
        }
        if self.parameters.len() as u64 > PARAMETERS_MAX {
            errors.add(
                names.tool_field("parameters"),
                format!(
                    "A tool has at most 50 parameters (there are {})",
                    self.parameters.len()
                ),
            );
        }
        for (index, parameter) in self.parameters.iter().enumerate() {
            let earlier = &self.parameters[..index];
            if !parameter.name.is_empty() && earlier.iter().any(|p| p.name == parameter.name) {
                errors.add(
                    names.parameter_field(index, "name"),
                    "Another parameter of this tool has this name",
                );
            }
            if parameter.param_type != ParamType::String && !parameter.enum_values.is_empty() {
                errors.add(
                    names.parameter_field(index, "enum_values"),
                    "Allowed values are only for string parameters",
                );
            }
        }
        errors.into_result()
    }
}

/// The tool id is not taken by another tool of the app.
pub fn check_unique_id<'a>(
    id: &str,
    other_ids: impl IntoIterator<Item = &'a str>,
) -> Result<(), FieldErrors> {
    if other_ids.into_iter().any(|other| other == id) {
        Err(FieldErrors::single(
            "tool_id",
            "Another tool of this app already has this ID",
        ))
    } else {
        Ok(())
    }
}

fn flatten(found: &ValidationErrors, names: &dyn FieldNames, out: &mut FieldErrors) {
    for (field, kind) in found.errors() {
        match kind {
            ValidationErrorsKind::Field(problems) => {
                for problem in problems {
                    out.add(names.tool_field(field), message_of(problem));
                }
            }
            ValidationErrorsKind::List(items) => {
                for (index, nested) in items {
                    for (param_field, kind) in nested.errors() {
                        if let ValidationErrorsKind::Field(problems) = kind {
                            for problem in problems {
                                out.add(
                                    names.parameter_field(*index, param_field),
                                    message_of(problem),
                                );
                            }
                        }
                    }
                }
            }
            ValidationErrorsKind::Struct(_) => {}
        }
    }
}

fn message_of(problem: &ValidationError) -> String {
    problem
        .message
        .as_ref()
        .map(|m| m.to_string())
        .unwrap_or_else(|| format!("is not valid ({})", problem.code))
}

/// A parameter as the editor holds it: text fields as typed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParameterDraft {
    pub name: String,
    pub param_type: String,
    pub description: String,
    pub required: bool,
    /// Comma-separated.
    pub allowed_values: String,
    /// Carried through the editor untouched, so that editing an imported
    /// tool keeps what its file had.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: KeptKeys,
}

/// A tool as the editor holds it, before it is parsed and checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolDraft {
    pub tool_id: String,
    pub description: String,
    /// Comma-separated.
    pub activation_phrases: String,
    pub title: String,
    pub max_calls: String,
    #[serde(default)]
    pub hints: ToolHints,
    pub parameters: Vec<ParameterDraft>,
    /// Carried through the editor untouched (see [`ParameterDraft::extra`]).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: KeptKeys,
}

impl ParameterDraft {
    pub fn from_parameter(parameter: &Parameter) -> Self {
        ParameterDraft {
            name: parameter.name.clone(),
            param_type: parameter.param_type.as_str().to_owned(),
            description: parameter.description.clone(),
            required: parameter.required,
            allowed_values: join_list(&parameter.enum_values),
            extra: parameter.extra.clone(),
        }
    }
}

impl ToolDraft {
    /// The draft of a stored tool: lists joined with ", ".
    pub fn from_tool(tool: &Tool) -> Self {
        ToolDraft {
            tool_id: tool.id.clone(),
            description: tool.description.clone(),
            activation_phrases: join_list(&tool.activation_phrases),
            title: tool.title.clone().unwrap_or_default(),
            max_calls: tool.max_calls.map(|n| n.to_string()).unwrap_or_default(),
            hints: tool.hints,
            parameters: tool
                .parameters
                .iter()
                .map(ParameterDraft::from_parameter)
                .collect(),
            extra: tool.extra.clone(),
        }
    }

    /// Trims and splits what was typed into a [`Tool`] and checks every rule
    /// of one tool; errors are keyed by the editor's field names.
    pub fn parse(&self) -> Result<Tool, FieldErrors> {
        let mut errors = FieldErrors::new();
        let max_calls = match self.max_calls.trim() {
            "" => None,
            text => match text.parse::<u32>() {
                Ok(n) => Some(n),
                Err(_) => {
                    errors.add("max_calls", "Max calls is a whole number from 1 to 100");
                    None
                }
            },
        };
        let title = Some(self.title.trim().to_owned()).filter(|t| !t.is_empty());
        let parameters = self
            .parameters
            .iter()
            .enumerate()
            .map(|(index, draft)| {
                let param_type = ParamType::parse(draft.param_type.trim()).unwrap_or_else(|| {
                    errors.add(
                        format!("parameters[{index}].param_type"),
                        "Choose a type: string, number or boolean",
                    );
                    ParamType::String
                });
                Parameter {
                    name: draft.name.trim().to_owned(),
                    param_type,
                    description: draft.description.trim().to_owned(),
                    required: draft.required,
                    enum_values: parse_enum_values(&draft.allowed_values),
                    extra: draft.extra.clone(),
                }
            })
            .collect();
        let tool = Tool {
            id: self.tool_id.trim().to_owned(),
            description: self.description.trim().to_owned(),
            activation_phrases: parse_phrases(&self.activation_phrases),
            parameters,
            title,
            max_calls,
            hints: self.hints,
            extra: self.extra.clone(),
        };
        if let Err(found) = tool.check(&EditorFields) {
            for (field, messages) in found.iter() {
                for message in messages {
                    errors.add(field, message.clone());
                }
            }
        }
        errors.into_result().map(|()| tool)
    }
}

#[cfg(test)]
mod tests;
