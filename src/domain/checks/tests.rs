use super::*;
use crate::domain::{
    export::LLM_DESCRIPTION_MAX,
    tool::{Parameter, ToolHints},
};

fn text(name: &str, description: &str, required: bool) -> Parameter {
    Parameter {
        name: name.into(),
        param_type: ParamType::String,
        description: description.into(),
        required,
        ..Parameter::default()
    }
}

/// A tool with a title, every hint decided, and only required parameters.
fn good_tool(id: &str, title: &str, description: &str, phrases: &[&str]) -> Tool {
    Tool {
        id: id.into(),
        title: Some(title.into()),
        description: description.into(),
        activation_phrases: phrases.iter().map(|p| p.to_string()).collect(),
        hints: ToolHints {
            read_only: Some(false),
            destructive: Some(false),
            idempotent: Some(false),
            open_world: Some(false),
        },
        ..Tool::default()
    }
}

/// A Todo app whose tools are all good: the checks have nothing to say.
fn todo_app() -> AppConfig {
    AppConfig {
        name: "Todo App".into(),
        description: "Manage your to-do items".into(),
        version: "1.0.0".into(),
        public_url: "https://todo.example.com".into(),
        tools: vec![
            Tool {
                parameters: vec![text("todo_item", "The to-do item text", true)],
                ..good_tool(
                    "add_todo",
                    "Add a to-do",
                    "Add a new item to the user's to-do list",
                    &["add a reminder", "create a todo", "remind me to"],
                )
            },
            Tool {
                // Read-only: Destructive and Idempotent mean nothing to MCP here.
                hints: ToolHints {
                    read_only: Some(true),
                    open_world: Some(false),
                    ..ToolHints::default()
                },
                ..good_tool(
                    "get_todos",
                    "Show to-dos",
                    "List the user's open to-do items, newest first",
                    &["show my todos", "list my reminders"],
                )
            },
            Tool {
                parameters: vec![text("todo_item", "The text of the item to delete", true)],
                hints: ToolHints {
                    read_only: Some(false),
                    destructive: Some(true),
                    idempotent: Some(true),
                    open_world: Some(false),
                },
                ..good_tool(
                    "delete_todo",
                    "Delete a to-do",
                    "Delete an item from the user's to-do list",
                    &["delete a todo", "remove a reminder"],
                )
            },
        ]
        .into_iter()
        .map(std::sync::Arc::new)
        .collect(),
        ..AppConfig::default()
    }
}

fn at<'a>(checks: &'a Checks, path: &str) -> Vec<&'a Finding> {
    checks.findings.iter().filter(|f| f.path == path).collect()
}

/// The only finding at `path`.
fn one_at(app: &AppConfig, path: &str) -> Finding {
    let checks = check(app);
    let found = at(&checks, path);
    assert_eq!(found.len(), 1, "{path}: {:#?}", checks.findings);
    found[0].clone()
}

#[test]
fn a_todo_app_of_good_tools_has_no_findings_and_is_ready_for_every_format() {
    let checks = check(&todo_app());
    assert_eq!(checks.findings, vec![]);
    assert_eq!(checks.ready, Format::ALL.map(|f| (f, true)).to_vec());
}

#[test]
fn an_unset_read_only_destructive_or_open_world_hint_blocks_only_the_mcp_export() {
    for kind in [
        HintKind::ReadOnly,
        HintKind::Destructive,
        HintKind::OpenWorld,
    ] {
        let mut app = todo_app();
        app.tool_mut(0).hints.set(kind, None);
        let found = one_at(&app, &format!("tools[0].hints.{}", kind.key()));
        assert_eq!(found.severity, Severity::Blocker);
        assert_eq!(found.consumers, vec![Format::Mcp]);
        assert_eq!(found.tool.as_deref(), Some("add_todo"));
        assert!(found.message.contains(kind.label()), "{}", found.message);
        let checks = check(&app);
        for format in Format::ALL {
            assert_eq!(
                checks.ready_for(format),
                format != Format::Mcp,
                "{kind:?} {format:?}"
            );
        }
        assert!(checks.ready.contains(&(Format::Mcp, false)));
        assert!(checks.ready.contains(&(Format::Tambo, true)));
    }
}

#[test]
fn an_unset_idempotent_hint_is_a_warning_that_leaves_mcp_ready() {
    let mut app = todo_app();
    app.tool_mut(0).hints.idempotent = None;
    let found = one_at(&app, "tools[0].hints.idempotent");
    assert_eq!(found.severity, Severity::Warning);
    assert!(check(&app).ready_for(Format::Mcp));
}

#[test]
fn only_a_read_only_tool_may_leave_destructive_and_idempotent_unset() {
    let mut app = todo_app();
    app.tool_mut(1).hints.read_only = Some(false);
    let checks = check(&app);
    assert_eq!(at(&checks, "tools[1].hints.destructive").len(), 1);
    assert_eq!(at(&checks, "tools[1].hints.idempotent").len(), 1);
    app.tool_mut(1).hints.read_only = None;
    let checks = check(&app);
    assert_eq!(at(&checks, "tools[1].hints.readOnly").len(), 1);
    assert_eq!(at(&checks, "tools[1].hints.destructive").len(), 1);
}

#[test]
fn a_read_only_tool_marked_destructive_is_a_contradiction() {
    let mut app = todo_app();
    app.tool_mut(1).hints.destructive = Some(true);
    let found = one_at(&app, "tools[1].hints.destructive");
    assert_eq!(found.severity, Severity::Warning);
    app.tool_mut(1).hints.destructive = Some(false);
    assert_eq!(check(&app).findings, vec![]);
}

#[test]
fn a_tool_without_a_title_gets_a_warning_for_mcp() {
    for title in [None, Some("  ".to_owned())] {
        let mut app = todo_app();
        app.tool_mut(2).title = title;
        let found = one_at(&app, "tools[2].title");
        assert_eq!(
            (found.severity, found.consumers),
            (Severity::Warning, vec![Format::Mcp])
        );
        assert_eq!(found.tool.as_deref(), Some("delete_todo"));
    }
}

#[test]
fn a_description_of_fewer_than_five_words_is_too_short_to_route_on() {
    let mut app = todo_app();
    app.tool_mut(1).description = "Get all to-do items".into();
    let found = one_at(&app, "tools[1].description");
    assert_eq!(
        (found.severity, found.consumers),
        (Severity::Warning, Format::ALL.to_vec())
    );
    assert!(found.message.contains("five words"), "{}", found.message);
    app.tool_mut(1).description = "Get all open to-do items".into();
    assert_eq!(check(&app).findings, vec![]);
}

#[test]
fn a_description_that_repeats_the_id_gets_one_warning() {
    let mut app = todo_app();
    app.tool_mut(1).description = "Get todos.".into();
    let found = one_at(&app, "tools[1].description");
    assert!(
        found.message.contains("repeating the tool ID"),
        "{}",
        found.message
    );
    // Long enough, but still nothing but the id.
    app.tool_mut(1).id = "list-all-my-open_todos".into();
    app.tool_mut(1).description = "List all my open todos".into();
    let found = one_at(&app, "tools[1].description");
    assert!(
        found.message.contains("repeating the tool ID"),
        "{}",
        found.message
    );
}

#[test]
fn an_app_without_a_description_gets_advice_for_the_mentra_formats() {
    let mut app = todo_app();
    app.description = " ".into();
    let found = one_at(&app, "description");
    assert_eq!(
        (found.severity, found.consumers, found.tool),
        (Severity::Advice, vec![Format::Mentra, Format::Tpa], None)
    );
}

#[test]
fn the_same_phrase_in_two_tools_is_flagged_on_the_later_tool() {
    let mut app = todo_app();
    app.tool_mut(1)
        .activation_phrases
        .push("Add a Reminder".into());
    let found = one_at(&app, "tools[1].activationPhrases");
    assert_eq!(
        (found.severity, found.consumers),
        (Severity::Warning, vec![Format::Mentra, Format::Tpa])
    );
    for name in ["“Add a Reminder”", "add_todo", "get_todos"] {
        assert!(found.message.contains(name), "{name}: {}", found.message);
    }
    assert_eq!(at(&check(&app), "tools[0].activationPhrases").len(), 0);
}

#[test]
fn a_phrase_inside_another_tools_phrase_as_whole_words_is_flagged() {
    let mut app = todo_app();
    app.tool_mut(2).activation_phrases = vec!["remind me".into()];
    let found = one_at(&app, "tools[2].activationPhrases");
    for name in ["“remind me”", "“remind me to”", "add_todo", "delete_todo"] {
        assert!(found.message.contains(name), "{name}: {}", found.message);
    }
    // “create a todo” is in “create a todolist”, but not as whole words.
    app.tool_mut(2).activation_phrases = vec!["create a todolist".into()];
    assert_eq!(check(&app).findings, vec![]);
}

#[test]
fn a_tool_without_activation_phrases_gets_advice() {
    let mut app = todo_app();
    app.tool_mut(0).activation_phrases.clear();
    let found = one_at(&app, "tools[0].activationPhrases");
    assert_eq!(
        (found.severity, found.consumers),
        (Severity::Advice, vec![Format::Mentra, Format::Tpa])
    );
}

#[test]
fn activation_phrases_that_do_not_all_fit_in_an_llm_description_get_advice() {
    let on = ExportOptions {
        include_phrases: true,
        ..ExportOptions::default()
    };
    // The characters the export puts before a first phrase of one character.
    let lead = llm_description("", &["x".to_owned()], on).chars().count() - 1;
    let room = LLM_DESCRIPTION_MAX - lead - "remind me".len();
    let mut app = todo_app();
    app.tool_mut(0).activation_phrases = vec!["remind me".into()];
    app.tool_mut(0).description = "a ".repeat(room / 2) + &"a".repeat(room % 2);
    assert_eq!(app.tools[0].description.chars().count(), room);
    assert_eq!(at(&check(&app), "tools[0].activationPhrases").len(), 0);
    app.tool_mut(0).description.push('a');
    let found = one_at(&app, "tools[0].activationPhrases");
    assert_eq!(found.severity, Severity::Advice);
    assert!(found.consumers.iter().all(|f| f.is_llm()) && found.consumers.len() == 5);
    // The first phrase fits, the second does not.
    app.tool_mut(0).description.truncate(room - 20);
    app.tool_mut(0).activation_phrases.push("x".repeat(30));
    assert_eq!(at(&check(&app), "tools[0].activationPhrases").len(), 1);
}

#[test]
fn a_single_allowed_value_is_advice_for_every_format() {
    let mut app = todo_app();
    let mut priority = text("priority", "How urgent the item is", true);
    priority.enum_values = vec!["high".into()];
    app.tool_mut(0).parameters.push(priority);
    let found = one_at(&app, "tools[0].parameters.priority.enum");
    assert_eq!(
        (found.severity, found.consumers),
        (Severity::Advice, Format::ALL.to_vec())
    );
    assert!(found.message.contains("“high”"), "{}", found.message);
    if let Some(p) = app.tool_mut(0).parameters.last_mut() {
        p.enum_values.push("low".into());
    }
    assert_eq!(check(&app).findings, vec![]);
}

#[test]
fn more_than_128_tools_block_the_openai_export() {
    let mut app = todo_app();
    let more = (app.tools.len()..=OPENAI_TOOLS_MAX).map(|i| {
        good_tool(
            &format!("tool_{i}"),
            "A tool",
            "Do one more thing for the user",
            &[],
        )
    });
    app.tools.extend(more.map(Arc::new));
    assert_eq!(app.tools.len(), OPENAI_TOOLS_MAX + 1);
    let found = one_at(&app, "tools");
    assert_eq!(
        (found.severity, found.consumers, found.tool),
        (Severity::Blocker, vec![Format::Openai], None)
    );
    assert!(found.message.contains("129"), "{}", found.message);
    let checks = check(&app);
    assert!(!checks.ready_for(Format::Openai));
    assert!(checks.ready_for(Format::Anthropic));
    app.tools.pop();
    assert_eq!(at(&check(&app), "tools").len(), 0);
}

#[test]
fn optional_parameters_get_advice_about_openai_strict_mode_once_per_tool() {
    let mut app = todo_app();
    app.tool_mut(0).parameters.extend([
        text("due_date", "Due date in ISO format (YYYY-MM-DD)", false),
        text("note", "A note to keep with the item", false),
    ]);
    let found = one_at(&app, "tools[0].parameters.due_date.required");
    assert_eq!(
        (found.severity, found.consumers),
        (Severity::Advice, vec![Format::Openai])
    );
    for name in ["“due_date”", "“note”", "Strict mode"] {
        assert!(found.message.contains(name), "{name}: {}", found.message);
    }
    assert_eq!(check(&app).findings.len(), 1);
    assert!(check(&app).ready_for(Format::Openai));
}

#[test]
fn findings_come_app_first_then_tool_by_tool_in_rule_order() {
    let mut app = todo_app();
    app.description.clear();
    app.tool_mut(0).title = None;
    app.tool_mut(0).hints.open_world = None;
    app.tool_mut(0).description = "Adds".into();
    app.tool_mut(2).activation_phrases.clear();
    let checks = check(&app);
    let paths: Vec<&str> = checks.findings.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "description",
            "tools[0].description",
            "tools[0].title",
            "tools[0].hints.openWorld",
            "tools[2].activationPhrases",
        ]
    );
    assert_eq!(check(&app.clone()), checks);
    assert_eq!(
        check(&app).to_json().to_string(),
        checks.to_json().to_string()
    );
}

#[test]
fn the_json_has_the_documented_shape() {
    let mut app = todo_app();
    app.tool_mut(0).hints.open_world = None;
    let checks = check(&app);
    let message = checks.findings[0].message.clone();
    let json = checks.to_json();
    assert_eq!(
        json,
        json!({
            "findings": [{
                "severity": "blocker",
                "consumers": ["mcp"],
                "path": "tools[0].hints.openWorld",
                "message": message,
            }],
            "ready": {
                "mentra": true, "tpa": true, "mcp": false, "openai": true,
                "anthropic": true, "gemini": true, "tambo": true,
            },
        })
    );
    // Map equality ignores order; the order is part of the contract.
    let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
    assert_eq!(keys(&json), Some(vec!["findings".into(), "ready".into()]));
    assert_eq!(
        keys(&json["findings"][0]),
        Some(
            ["severity", "consumers", "path", "message"]
                .map(String::from)
                .to_vec()
        )
    );
    assert_eq!(
        keys(&json["ready"]),
        Some(Format::ALL.map(|f| f.key().to_owned()).to_vec())
    );
}

#[test]
fn severities_are_lowercase_in_json_and_capitalised_as_labels() {
    for (severity, key, label) in [
        (Severity::Blocker, "blocker", "Blocker"),
        (Severity::Warning, "warning", "Warning"),
        (Severity::Advice, "advice", "Advice"),
    ] {
        assert_eq!((severity.as_str(), severity.label()), (key, label));
        assert_eq!(serde_json::to_value(severity).ok(), Some(json!(key)));
    }
}

#[test]
fn checks_travel_as_json_and_back_with_the_tool_only_when_there_is_one() {
    let mut app = todo_app();
    app.description.clear();
    app.tool_mut(0).title = None;
    let checks = check(&app);
    let value = serde_json::to_value(&checks).unwrap_or_default();
    assert!(value["findings"][0].get("tool").is_none());
    assert_eq!(value["findings"][1]["tool"], json!("add_todo"));
    assert_eq!(serde_json::from_value::<Checks>(value).ok(), Some(checks));
}

#[test]
fn odd_input_gives_findings_rather_than_a_panic() {
    let odd = Tool {
        activation_phrases: vec!["!!!".into(), "?".into(), String::new()],
        parameters: vec![Parameter {
            enum_values: vec![String::new()],
            ..Parameter::default()
        }],
        ..Tool::default()
    };
    let app = AppConfig {
        tools: vec![odd.clone().into(), odd.into()],
        ..AppConfig::default()
    };
    let checks = check(&app);
    assert_eq!(checks.ready.len(), Format::ALL.len());
    assert!(!checks.ready_for(Format::Mcp));
    // An app without tools is ready for nothing.
    assert!(check(&AppConfig::default())
        .ready
        .iter()
        .all(|(_, ready)| !*ready));
}

#[test]
fn the_page_shows_one_line_per_rule_naming_every_tool_it_concerns() {
    let mut app = todo_app();
    // Four tools that decided no hint: a finding per tool and hint, but a
    // line per rule.
    app.tools = ["add_todo", "get_todos", "complete_todo", "delete_todo"]
        .into_iter()
        .map(|id| Tool {
            hints: Default::default(),
            ..good_tool(id, "A title", "Does one useful thing for the user", &[])
        })
        .map(Arc::new)
        .collect();
    let checks = check(&app);
    assert_eq!(checks.findings.len(), 4 * 4 + 4, "{:#?}", checks.findings);
    let summary = checks.summary();
    let rules: Vec<Rule> = summary.groups.iter().map(|g| g.rule).collect();
    // Blockers first, each rule once.
    assert_eq!(
        rules,
        vec![
            Rule::HintReadOnly,
            Rule::HintDestructive,
            Rule::HintOpenWorld,
            Rule::HintIdempotent,
            Rule::PhrasesPresent,
        ]
    );
    assert_eq!(summary.count(), 5);
    let read_only = &summary.groups[0];
    assert_eq!(read_only.severity, Severity::Blocker);
    assert!(read_only.message.starts_with("Set Read-only to Yes or No"));
    let tools: Vec<_> = read_only.places.iter().map(|p| p.tool.as_deref()).collect();
    assert_eq!(
        tools,
        [
            Some("add_todo"),
            Some("get_todos"),
            Some("complete_todo"),
            Some("delete_todo")
        ]
    );
    assert_eq!(read_only.places[2].path, "tools[2].hints.readOnly");
    // The sentence is the rule's: nothing more to say per tool.
    assert!(read_only.places.iter().all(|p| p.detail.is_none()));
    assert_eq!(summary.ready, checks.ready);
    assert_eq!(summary.blockers_for(Format::Mcp).count(), 3);
    assert_eq!(summary.blockers_for(Format::Openai).count(), 0);
}

#[test]
fn a_rule_whose_findings_differ_says_what_to_do_once_and_keeps_each_detail() {
    let mut app = todo_app();
    app.tool_mut(1).activation_phrases = vec!["add a reminder".into()];
    let summary = check(&app).summary();
    let clash = summary
        .groups
        .iter()
        .find(|g| g.rule == Rule::PhrasesDistinct)
        .expect("the phrase clash");
    assert!(clash
        .message
        .starts_with("Give each activation phrase to one tool only"));
    let detail = clash.places[0].detail.as_deref().unwrap_or_default();
    assert!(
        detail.contains("add a reminder") && detail.contains("get_todos"),
        "{detail}"
    );
}

#[test]
fn an_app_without_tools_is_ready_for_no_format() {
    let app = AppConfig {
        description: "Manage your to-do items".into(),
        ..AppConfig::default()
    };
    let checks = check(&app);
    let found = one_at(&app, "tools");
    assert_eq!(found.rule, Rule::NoTools);
    assert_eq!(found.severity, Severity::Blocker);
    assert!(found.message.starts_with("This app has no tools yet"));
    assert!(
        checks.ready.iter().all(|(_, ready)| !ready),
        "{:?}",
        checks.ready
    );
}
