//! Revisions: every change to an app is one, with a one-line summary and the
//! whole configuration as it was afterwards.

use crate::domain::{
    config::AppConfig,
    tool::{MoveDirection, Tool, ToolEdit},
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What a change did, in the words the history shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    CreatedApp,
    EditedDetails,
    AddedTool(String),
    /// Edited the tool now called `.1`, formerly `.0`; `.2` says how its
    /// hints changed, in words (the snapshot's diff shows the rest).
    EditedTool(String, String, Vec<String>),
    DeletedTool(String),
    MovedTool(String, MoveDirection),
    Imported {
        tools: usize,
    },
    Restored(i64),
    /// "Hints of every tool" decided the hints of these tools.
    DecidedHints(Vec<String>),
}

impl Change {
    /// What `edit` does to `tools` (the list it is made on), in the
    /// history's words: an edit's hint changes are spelled out.
    pub fn of_edit(edit: &ToolEdit, tools: &[Arc<Tool>]) -> Change {
        match edit {
            ToolEdit::Save {
                original_id: None,
                tool,
            } => Change::AddedTool(tool.id.clone()),
            ToolEdit::Save {
                original_id: Some(original_id),
                tool,
            } => {
                let hints = tools
                    .iter()
                    .find(|was| &was.id == original_id)
                    .map(|was| tool.hints.changes_from(&was.hints))
                    .unwrap_or_default();
                Change::EditedTool(original_id.clone(), tool.id.clone(), hints)
            }
            ToolEdit::Delete(id) => Change::DeletedTool(id.clone()),
            ToolEdit::Move(id, direction) => Change::MovedTool(id.clone(), *direction),
        }
    }

    pub fn summary(&self) -> String {
        match self {
            Change::CreatedApp => "Created the app".to_owned(),
            Change::EditedDetails => "Edited the app's details".to_owned(),
            Change::AddedTool(id) => format!("Added tool {id}"),
            Change::EditedTool(old, new, hints) => {
                let mut summary = format!("Edited tool {new}");
                if old != new {
                    summary.push_str(&format!(" (was {old})"));
                }
                if !hints.is_empty() {
                    summary.push_str(": ");
                    summary.push_str(&hints.join("; "));
                }
                summary
            }
            Change::DeletedTool(id) => format!("Deleted tool {id}"),
            Change::MovedTool(id, MoveDirection::Up) => format!("Moved tool {id} up"),
            Change::MovedTool(id, MoveDirection::Down) => format!("Moved tool {id} down"),
            Change::Imported { tools: 1 } => "Imported 1 tool".to_owned(),
            Change::Imported { tools } => format!("Imported {tools} tools"),
            Change::Restored(revision) => format!("Restored revision {revision}"),
            Change::DecidedHints(tools) => format!("Decided the hints of {}", tools.join(", ")),
        }
    }
}

/// A revision as the history lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisionSummary {
    pub revision: i64,
    pub author: String,
    pub created_at: i64,
    pub summary: String,
}

/// One revision in full.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RevisionDetail {
    pub summary: RevisionSummary,
    pub config: AppConfig,
}

/// The text a revision is shown and compared as: the `mentra` export with
/// every other field the console keeps, in the exports' names.
pub fn snapshot_text(config: &AppConfig) -> String {
    use crate::domain::export::{to_text, whole_config};
    to_text(&whole_config(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_name_the_change() {
        assert_eq!(Change::CreatedApp.summary(), "Created the app");
        assert_eq!(
            Change::AddedTool("add_todo".into()).summary(),
            "Added tool add_todo"
        );
        assert_eq!(
            Change::EditedTool("add_todo".into(), "add_todo".into(), vec![]).summary(),
            "Edited tool add_todo"
        );
        assert_eq!(
            Change::EditedTool("add".into(), "add_todo".into(), vec![]).summary(),
            "Edited tool add_todo (was add)"
        );
        assert_eq!(
            Change::EditedTool(
                "add_todo".into(),
                "add_todo".into(),
                vec![
                    "Read-only: not set → yes".into(),
                    "Open world: yes → no".into()
                ]
            )
            .summary(),
            "Edited tool add_todo: Read-only: not set → yes; Open world: yes → no"
        );
        assert_eq!(Change::DeletedTool("x".into()).summary(), "Deleted tool x");
        assert_eq!(
            Change::MovedTool("x".into(), MoveDirection::Down).summary(),
            "Moved tool x down"
        );
        assert_eq!(Change::Imported { tools: 2 }.summary(), "Imported 2 tools");
        assert_eq!(Change::Imported { tools: 1 }.summary(), "Imported 1 tool");
        assert_eq!(Change::Restored(7).summary(), "Restored revision 7");
        assert_eq!(
            Change::DecidedHints(vec!["add_todo".into(), "get_todos".into()]).summary(),
            "Decided the hints of add_todo, get_todos"
        );
    }

    #[test]
    fn an_edit_says_what_it_did_and_how_the_hints_changed() {
        use crate::domain::tool::ToolHints;
        let was = Tool {
            id: "add".into(),
            ..Tool::default()
        };
        let now = Tool {
            id: "add_todo".into(),
            hints: ToolHints {
                read_only: Some(true),
                ..ToolHints::default()
            },
            ..Tool::default()
        };
        let tools = [Arc::new(was)];
        let save = |original_id: Option<&str>| ToolEdit::Save {
            original_id: original_id.map(str::to_owned),
            tool: Box::new(now.clone()),
        };
        assert_eq!(
            Change::of_edit(&save(None), &tools).summary(),
            "Added tool add_todo"
        );
        assert_eq!(
            Change::of_edit(&save(Some("add")), &tools).summary(),
            "Edited tool add_todo (was add): Read-only: not set → yes"
        );
        assert_eq!(
            Change::of_edit(&ToolEdit::Move("add".into(), MoveDirection::Up), &tools).summary(),
            "Moved tool add up"
        );
        assert_eq!(
            Change::of_edit(&ToolEdit::Delete("add".into()), &tools).summary(),
            "Deleted tool add"
        );
    }

    #[test]
    fn a_revision_reads_in_the_exports_names_with_every_field_kept() {
        use crate::domain::tool::ToolHints;
        let mut app = crate::domain::export::tests::todo_app();
        app.tool_mut(0).title = Some("Add a to-do".into());
        app.tool_mut(0).max_calls = Some(3);
        app.tool_mut(0).hints = ToolHints {
            read_only: Some(false),
            destructive: Some(false),
            ..ToolHints::default()
        };
        let text = snapshot_text(&app);
        for name in [
            "\"publicUrl\"",
            "\"activationPhrases\"",
            "\"type\": \"string\"",
            "\"title\": \"Add a to-do\"",
            "\"maxCalls\": 3",
            "\"readOnlyHint\": false",
            "\"destructiveHint\": false",
        ] {
            assert!(text.contains(name), "{name} in {text}");
        }
        for internal in [
            "public_url",
            "param_type",
            "enum_values",
            "activation_phrases",
            "max_calls",
        ] {
            assert!(!text.contains(internal), "{internal} in {text}");
        }
        // A hint not decided is not written.
        assert!(!text.contains("idempotentHint"), "{text}");
    }
}
