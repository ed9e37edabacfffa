use super::*;

fn todo_item() -> ParameterDraft {
    ParameterDraft {
        name: "todo_item".into(),
        param_type: "string".into(),
        description: "The to-do item text".into(),
        required: true,
        allowed_values: String::new(),
        extra: Default::default(),
    }
}

fn add_todo() -> ToolDraft {
    ToolDraft {
        tool_id: "add_todo".into(),
        description: "Add a new to-do item".into(),
        activation_phrases: "add a reminder, create a todo, remind me to".into(),
        parameters: vec![todo_item()],
        ..ToolDraft::default()
    }
}

fn error_of(draft: &ToolDraft, field: &str) -> Option<String> {
    draft
        .parse()
        .err()
        .and_then(|e| e.first(field).map(str::to_owned))
}

#[test]
fn the_seed_example_parses_into_a_tool() {
    let tool = add_todo().parse().unwrap();
    assert_eq!(tool.id, "add_todo");
    assert_eq!(
        tool.activation_phrases,
        vec!["add a reminder", "create a todo", "remind me to"]
    );
    assert_eq!(tool.parameters[0].param_type, ParamType::String);
    assert!(tool.parameters[0].required);
    assert_eq!(tool.title, None);
    assert_eq!(tool.max_calls, None);
}

#[test]
fn messy_phrases_are_normalised() {
    let draft = ToolDraft {
        activation_phrases: " a, ,b , A".into(),
        ..add_todo()
    };
    let tool = draft.parse().unwrap();
    assert_eq!(tool.activation_phrases, vec!["a", "b"]);
    assert_eq!(ToolDraft::from_tool(&tool).activation_phrases, "a, b");
}

#[test]
fn tool_ids_follow_the_common_pattern() {
    for ok in ["a", "_x", "add_todo", "Add-Todo_2", &"x".repeat(64)] {
        assert!(is_valid_tool_id(ok), "{ok}");
        assert_eq!(
            error_of(
                &ToolDraft {
                    tool_id: ok.to_string(),
                    ..add_todo()
                },
                "tool_id"
            ),
            None
        );
    }
    for bad in [
        "",
        "1tool",
        "-tool",
        "add todo",
        "add.todo",
        "ädd",
        &"x".repeat(65),
    ] {
        assert!(!is_valid_tool_id(bad), "{bad}");
        assert!(
            error_of(
                &ToolDraft {
                    tool_id: bad.to_string(),
                    ..add_todo()
                },
                "tool_id"
            )
            .is_some(),
            "{bad}"
        );
    }
}

#[test]
fn a_tool_id_is_trimmed_before_it_is_checked() {
    let tool = ToolDraft {
        tool_id: "  add_todo ".into(),
        ..add_todo()
    }
    .parse()
    .unwrap();
    assert_eq!(tool.id, "add_todo");
}

#[test]
fn a_tool_description_is_required_and_at_most_1024_characters() {
    assert!(error_of(
        &ToolDraft {
            description: "  ".into(),
            ..add_todo()
        },
        "description"
    )
    .is_some());
    assert!(error_of(
        &ToolDraft {
            description: "x".repeat(1024),
            ..add_todo()
        },
        "description"
    )
    .is_none());
    assert!(error_of(
        &ToolDraft {
            description: "x".repeat(1025),
            ..add_todo()
        },
        "description"
    )
    .is_some());
}

#[test]
fn a_phrase_has_at_most_100_characters() {
    let ok = ToolDraft {
        activation_phrases: "p".repeat(100),
        ..add_todo()
    };
    assert!(error_of(&ok, "activation_phrases").is_none());
    let long = ToolDraft {
        activation_phrases: format!("fine, {}", "p".repeat(101)),
        ..add_todo()
    };
    assert!(error_of(&long, "activation_phrases")
        .unwrap()
        .contains("at most 100 characters"));
}

#[test]
fn a_tool_has_at_most_20_phrases_after_duplicates_are_dropped() {
    let twenty: Vec<String> = (0..20).map(|i| format!("phrase {i}")).collect();
    let ok = ToolDraft {
        activation_phrases: format!("{}, PHRASE 0", twenty.join(",")),
        ..add_todo()
    };
    assert!(error_of(&ok, "activation_phrases").is_none());
    let many = ToolDraft {
        activation_phrases: format!("{}, one more", twenty.join(",")),
        ..add_todo()
    };
    assert!(error_of(&many, "activation_phrases")
        .unwrap()
        .contains("at most 20"));
}

#[test]
fn phrases_may_be_empty() {
    assert!(ToolDraft {
        activation_phrases: " , ".into(),
        ..add_todo()
    }
    .parse()
    .is_ok());
}

#[test]
fn a_title_is_optional_and_at_most_100_characters() {
    let tool = ToolDraft {
        title: " Add a to-do ".into(),
        ..add_todo()
    }
    .parse()
    .unwrap();
    assert_eq!(tool.title.as_deref(), Some("Add a to-do"));
    assert!(error_of(
        &ToolDraft {
            title: "t".repeat(100),
            ..add_todo()
        },
        "title"
    )
    .is_none());
    assert!(error_of(
        &ToolDraft {
            title: "t".repeat(101),
            ..add_todo()
        },
        "title"
    )
    .is_some());
}

#[test]
fn max_calls_is_a_whole_number_from_1_to_100() {
    assert_eq!(
        ToolDraft {
            max_calls: " 3 ".into(),
            ..add_todo()
        }
        .parse()
        .unwrap()
        .max_calls,
        Some(3)
    );
    assert_eq!(
        ToolDraft {
            max_calls: "100".into(),
            ..add_todo()
        }
        .parse()
        .unwrap()
        .max_calls,
        Some(100)
    );
    for bad in ["0", "101", "-1", "1.5", "many"] {
        assert!(
            error_of(
                &ToolDraft {
                    max_calls: bad.into(),
                    ..add_todo()
                },
                "max_calls"
            )
            .is_some(),
            "{bad}"
        );
    }
}

#[test]
fn hints_are_kept_in_each_of_their_three_states() {
    for value in [None, Some(true), Some(false)] {
        for kind in HintKind::ALL {
            let mut hints = ToolHints::default();
            hints.set(kind, value);
            let tool = ToolDraft {
                hints,
                ..add_todo()
            }
            .parse()
            .unwrap();
            assert_eq!(tool.hints.get(kind), value, "{kind:?}");
            let others = HintKind::ALL.into_iter().filter(|k| *k != kind);
            assert!(others.clone().all(|k| tool.hints.get(k).is_none()));
            // The select's value and back.
            assert_eq!(parse_hint(hint_value(value)), value);
        }
    }
    assert_eq!(parse_hint("maybe"), None, "anything else is not set");
}

#[test]
fn hint_changes_are_told_in_words() {
    let before = ToolHints {
        read_only: Some(true),
        open_world: Some(false),
        ..ToolHints::default()
    };
    let after = ToolHints {
        read_only: Some(true),
        destructive: Some(false),
        open_world: None,
        idempotent: None,
    };
    assert_eq!(
        after.changes_from(&before),
        vec!["Destructive: not set → no", "Open world: no → not set"]
    );
    assert!(after.changes_from(&after).is_empty());
}

#[test]
fn hints_are_stored_by_what_was_decided_and_old_records_still_read() {
    let hints = ToolHints {
        read_only: Some(false),
        destructive: Some(true),
        ..ToolHints::default()
    };
    let json = serde_json::to_string(&hints).unwrap();
    assert_eq!(json, r#"{"readOnly":false,"destructive":true}"#);
    assert_eq!(serde_json::from_str::<ToolHints>(&json).unwrap(), hints);
    assert_eq!(
        serde_json::from_str::<ToolHints>("{}").unwrap(),
        ToolHints::default()
    );
    // A revision from before hints could be "no": an unticked box meant
    // nothing was decided.
    let old = r#"{"read_only":true,"destructive":false,"idempotent":true,"open_world":false}"#;
    assert_eq!(
        serde_json::from_str::<ToolHints>(old).unwrap(),
        ToolHints {
            read_only: Some(true),
            destructive: None,
            idempotent: Some(true),
            open_world: None,
        }
    );
}

fn with_param(param: ParameterDraft) -> ToolDraft {
    ToolDraft {
        parameters: vec![todo_item(), param],
        ..add_todo()
    }
}

#[test]
fn parameter_names_follow_their_pattern_without_hyphens() {
    for ok in ["due_date", "_x", "A1", &"n".repeat(64)] {
        assert!(is_valid_param_name(ok), "{ok}");
    }
    for bad in ["", "due-date", "1st", "due date", &"n".repeat(65)] {
        assert!(!is_valid_param_name(bad), "{bad}");
        let draft = with_param(ParameterDraft {
            name: bad.to_string(),
            ..todo_item()
        });
        assert!(error_of(&draft, "parameters[1].name").is_some(), "{bad}");
    }
}

#[test]
fn the_tambo_prefix_is_reserved() {
    let draft = with_param(ParameterDraft {
        name: "_tambo_x".into(),
        ..todo_item()
    });
    assert!(error_of(&draft, "parameters[1].name")
        .unwrap()
        .contains("reserved"));
}

#[test]
fn parameter_names_are_unique_within_a_tool() {
    let draft = with_param(todo_item());
    assert_eq!(
        error_of(&draft, "parameters[1].name").as_deref(),
        Some("Another parameter of this tool has this name")
    );
    assert!(
        error_of(&draft, "parameters[0].name").is_none(),
        "the first one is fine"
    );
    let other_case = with_param(ParameterDraft {
        name: "Todo_Item".into(),
        ..todo_item()
    });
    assert!(other_case.parse().is_ok());
}

#[test]
fn a_parameter_type_is_string_number_or_boolean() {
    for ok in ["string", "number", "boolean"] {
        let draft = with_param(ParameterDraft {
            name: "p".into(),
            param_type: ok.into(),
            ..todo_item()
        });
        assert!(draft.parse().is_ok(), "{ok}");
    }
    let draft = with_param(ParameterDraft {
        name: "p".into(),
        param_type: "integer".into(),
        ..todo_item()
    });
    assert!(error_of(&draft, "parameters[1].param_type").is_some());
}

#[test]
fn a_parameter_description_is_required_and_at_most_500_characters() {
    let empty = with_param(ParameterDraft {
        name: "p".into(),
        description: " ".into(),
        ..todo_item()
    });
    assert!(error_of(&empty, "parameters[1].description").is_some());
    let ok = with_param(ParameterDraft {
        name: "p".into(),
        description: "d".repeat(500),
        ..todo_item()
    });
    assert!(ok.parse().is_ok());
    let long = with_param(ParameterDraft {
        name: "p".into(),
        description: "d".repeat(501),
        ..todo_item()
    });
    assert!(error_of(&long, "parameters[1].description").is_some());
}

#[test]
fn allowed_values_are_parsed_with_exact_duplicates_dropped() {
    let draft = with_param(ParameterDraft {
        name: "priority".into(),
        allowed_values: "low, Low,,low , high".into(),
        ..todo_item()
    });
    let tool = draft.parse().unwrap();
    assert_eq!(tool.parameters[1].enum_values, vec!["low", "Low", "high"]);
}

#[test]
fn allowed_values_are_only_for_strings() {
    for param_type in ["number", "boolean"] {
        let draft = with_param(ParameterDraft {
            name: "p".into(),
            param_type: param_type.into(),
            allowed_values: "1, 2".into(),
            ..todo_item()
        });
        assert_eq!(
            error_of(&draft, "parameters[1].allowed_values").as_deref(),
            Some("Allowed values are only for string parameters")
        );
    }
    let blank = with_param(ParameterDraft {
        name: "p".into(),
        param_type: "number".into(),
        allowed_values: " , ".into(),
        ..todo_item()
    });
    assert!(blank.parse().is_ok(), "an empty list means no enum");
}

#[test]
fn allowed_values_have_at_most_100_characters_each_and_100_in_all() {
    let long = with_param(ParameterDraft {
        name: "p".into(),
        allowed_values: "v".repeat(101),
        ..todo_item()
    });
    assert!(error_of(&long, "parameters[1].allowed_values").is_some());
    let hundred: Vec<String> = (0..100).map(|i| format!("v{i}")).collect();
    let ok = with_param(ParameterDraft {
        name: "p".into(),
        allowed_values: hundred.join(","),
        ..todo_item()
    });
    assert!(ok.parse().is_ok());
    let too_many = with_param(ParameterDraft {
        name: "p".into(),
        allowed_values: format!("{},v100", hundred.join(",")),
        ..todo_item()
    });
    assert!(error_of(&too_many, "parameters[1].allowed_values")
        .unwrap()
        .contains("at most 100"));
}

#[test]
fn a_tool_has_at_most_50_parameters() {
    let params = |n: usize| {
        (0..n)
            .map(|i| ParameterDraft {
                name: format!("p{i}"),
                ..todo_item()
            })
            .collect::<Vec<_>>()
    };
    assert!(ToolDraft {
        parameters: params(50),
        ..add_todo()
    }
    .parse()
    .is_ok());
    let errors = ToolDraft {
        parameters: params(51),
        ..add_todo()
    }
    .parse()
    .unwrap_err();
    assert!(errors.first("parameters").unwrap().contains("at most 50"));
}

#[test]
fn every_problem_is_reported_at_once() {
    let draft = ToolDraft {
        tool_id: "bad id".into(),
        description: "".into(),
        max_calls: "0".into(),
        parameters: vec![ParameterDraft {
            name: "bad-name".into(),
            description: "".into(),
            ..todo_item()
        }],
        ..add_todo()
    };
    let errors = draft.parse().unwrap_err();
    for field in [
        "tool_id",
        "description",
        "max_calls",
        "parameters[0].name",
        "parameters[0].description",
    ] {
        assert!(errors.first(field).is_some(), "{field}: {errors:?}");
    }
}

#[test]
fn a_tool_id_must_be_unique_within_the_app() {
    assert!(check_unique_id("add_todo", ["get_todos"]).is_ok());
    assert!(check_unique_id("add_todo", ["get_todos", "add_todo"]).is_err());
}

#[test]
fn a_tool_round_trips_through_its_draft() {
    let tool = Tool {
        id: "get_todos".into(),
        description: "Get all to-do items".into(),
        activation_phrases: vec!["show my todos".into(), "list my reminders".into()],
        parameters: vec![Parameter {
            name: "status".into(),
            param_type: ParamType::String,
            description: "Which items".into(),
            required: false,
            enum_values: vec!["open".into(), "done".into()],
            extra: Default::default(),
        }],
        title: Some("Get to-dos".into()),
        max_calls: Some(2),
        hints: ToolHints {
            read_only: Some(true),
            idempotent: Some(false),
            ..ToolHints::default()
        },
        extra: Default::default(),
    };
    assert_eq!(ToolDraft::from_tool(&tool).parse().unwrap(), tool);
}

fn named(id: &str) -> Tool {
    Tool {
        id: id.into(),
        description: format!("Tool {id}"),
        ..Tool::default()
    }
}

fn ids(tools: &[Arc<Tool>]) -> Vec<&str> {
    tools.iter().map(|t| t.id.as_str()).collect()
}

#[test]
fn edits_add_replace_delete_and_move_tools_in_place() {
    let mut tools: Vec<Arc<Tool>> = vec![named("a").into(), named("b").into(), named("c").into()];
    let save = |original: Option<&str>, tool: Tool| ToolEdit::Save {
        original_id: original.map(str::to_owned),
        tool: Box::new(tool),
    };
    save(None, named("d")).apply(&mut tools).unwrap();
    assert_eq!(ids(&tools), ["a", "b", "c", "d"]);
    // A rename keeps the place.
    save(Some("b"), named("b2")).apply(&mut tools).unwrap();
    assert_eq!(ids(&tools), ["a", "b2", "c", "d"]);
    ToolEdit::Move("c".into(), MoveDirection::Up)
        .apply(&mut tools)
        .unwrap();
    assert_eq!(ids(&tools), ["a", "c", "b2", "d"]);
    // At an end, a move changes nothing.
    ToolEdit::Move("a".into(), MoveDirection::Up)
        .apply(&mut tools)
        .unwrap();
    ToolEdit::Move("d".into(), MoveDirection::Down)
        .apply(&mut tools)
        .unwrap();
    assert_eq!(ids(&tools), ["a", "c", "b2", "d"]);
    ToolEdit::Delete("c".into()).apply(&mut tools).unwrap();
    assert_eq!(ids(&tools), ["a", "b2", "d"]);
}

#[test]
fn a_refused_edit_changes_nothing() {
    let mut tools: Vec<Arc<Tool>> = vec![named("a").into(), named("b").into()];
    let before = tools.clone();
    let refused = [
        (
            ToolEdit::Save {
                original_id: None,
                tool: Box::new(named("b")),
            },
            EditRefused::DuplicateId,
        ),
        (
            ToolEdit::Save {
                original_id: Some("a".into()),
                tool: Box::new(named("b")),
            },
            EditRefused::DuplicateId,
        ),
        (
            ToolEdit::Save {
                original_id: Some("x".into()),
                tool: Box::new(named("x")),
            },
            EditRefused::NotFound,
        ),
        (ToolEdit::Delete("x".into()), EditRefused::NotFound),
        (
            ToolEdit::Move("x".into(), MoveDirection::Down),
            EditRefused::NotFound,
        ),
    ];
    for (edit, why) in refused {
        assert_eq!(edit.apply(&mut tools), Err(why), "{edit:?}");
        assert_eq!(tools, before);
    }
    // Saving a tool under its own id is no clash.
    ToolEdit::Save {
        original_id: Some("a".into()),
        tool: Box::new(named("a")),
    }
    .apply(&mut tools)
    .unwrap();
}

#[test]
fn a_summary_shows_the_parameter_count_and_the_first_two_phrases() {
    let mut tool = add_todo().parse().unwrap();
    tool.activation_phrases = vec!["one".into(), "two".into(), "three".into()];
    let summary = ToolSummary::of(&tool);
    assert_eq!(summary.id, "add_todo");
    assert_eq!(summary.description, tool.description);
    assert_eq!(summary.meta_text(), "1 parameter · one, two +1 more");

    tool.activation_phrases.truncate(2);
    tool.parameters.push(tool.parameters[0].clone());
    let summary = ToolSummary::of(&tool);
    assert_eq!(summary.meta_text(), "2 parameters · one, two");

    tool.activation_phrases.clear();
    tool.parameters.clear();
    let summary = ToolSummary::of(&tool);
    assert_eq!(summary.meta_text(), "No parameters · No activation phrases");

    tool.activation_phrases = vec!["only".into()];
    tool.parameters = vec![add_todo().parse().unwrap().parameters[0].clone(); 12];
    let summary = ToolSummary::of(&tool);
    assert_eq!(summary.meta_text(), "12 parameters · only");
}

#[test]
fn a_summary_is_a_json_array_and_reads_back_whole() {
    let summary = ToolSummary {
        id: "add_todo".into(),
        description: "Adds \"one\" to-do".into(),
        parameters: 3,
        phrases: vec!["add one".into(), "remind me".into()],
        phrase_count: 5,
        hints: ToolHints {
            read_only: Some(false),
            open_world: Some(true),
            ..ToolHints::default()
        },
    };
    let json = serde_json::to_string(&summary).unwrap();
    assert_eq!(
        json,
        r#"["add_todo","Adds \"one\" to-do",3,["add one","remind me"],5,"n--y"]"#
    );
    assert_eq!(serde_json::from_str::<ToolSummary>(&json).unwrap(), summary);
    // Anything else is refused, not read as a summary.
    assert!(serde_json::from_str::<ToolSummary>(r#"["add_todo","d",3,["a"]]"#).is_err());
    assert!(serde_json::from_str::<ToolSummary>(r#"{"id":"add_todo"}"#).is_err());
}

#[test]
fn an_edit_made_on_the_summaries_gives_the_summaries_of_the_edited_list() {
    let mut tools: Vec<Arc<Tool>> = vec![named("a").into(), named("b").into(), named("c").into()];
    let mut summaries: Vec<ToolSummary> = tools.iter().map(|tool| ToolSummary::of(tool)).collect();
    let mut renamed = named("b2");
    renamed.activation_phrases = vec!["x".into(), "y".into(), "z".into()];
    let edits = [
        ToolEdit::Save {
            original_id: None,
            tool: Box::new(named("d")),
        },
        ToolEdit::Save {
            original_id: Some("b".into()),
            tool: Box::new(renamed),
        },
        ToolEdit::Move("d".into(), MoveDirection::Up),
        ToolEdit::Delete("a".into()),
    ];
    for edit in edits {
        edit.apply(&mut tools).unwrap();
        edit.apply_to_summaries(&mut summaries).unwrap();
        let expected: Vec<ToolSummary> = tools.iter().map(|tool| ToolSummary::of(tool)).collect();
        assert_eq!(summaries, expected, "{edit:?}");
    }
    assert_eq!(
        ToolEdit::Delete("a".into()).apply_to_summaries(&mut summaries),
        Err(EditRefused::NotFound)
    );
}

fn hints_row(tool_id: &str, values: [&str; 4]) -> HintsRow {
    let [read_only, destructive, idempotent, open_world] = values.map(str::to_owned);
    HintsRow {
        tool_id: tool_id.into(),
        read_only,
        destructive,
        idempotent,
        open_world,
    }
}

fn tools_named(ids: &[&str]) -> Vec<Arc<Tool>> {
    ids.iter()
        .map(|id| {
            Arc::new(Tool {
                id: (*id).into(),
                description: "Does a thing".into(),
                ..Tool::default()
            })
        })
        .collect()
}

#[test]
fn hints_of_every_tool_are_decided_at_once_and_only_changes_count() {
    let mut tools = tools_named(&["add_todo", "get_todos", "delete_todo"]);
    Arc::make_mut(&mut tools[2]).hints.read_only = Some(false);
    let rows = [
        hints_row("get_todos", ["yes", "", "", "no"]),
        hints_row("add_todo", ["no", "no", "yes", "no"]),
        // As it is: not a change.
        hints_row("delete_todo", ["no", "", "", ""]),
    ];
    let changed = decide_hints(&mut tools, &rows).unwrap();
    assert_eq!(changed, ["add_todo", "get_todos"], "in the app's order");
    assert_eq!(
        tools[0].hints,
        ToolHints {
            read_only: Some(false),
            destructive: Some(false),
            idempotent: Some(true),
            open_world: Some(false),
        }
    );
    assert_eq!(tools[1].hints.read_only, Some(true));
    assert_eq!(tools[1].hints.destructive, None);
    assert_eq!(tools[1].hints.open_world, Some(false));
    // Deciding the same again changes nothing.
    assert_eq!(
        decide_hints(&mut tools, &rows).unwrap(),
        Vec::<String>::new()
    );
}

#[test]
fn hints_rows_are_refused_whole_for_an_unknown_tool_a_repeat_or_an_odd_value() {
    let tools = tools_named(&["add_todo", "get_todos"]);
    let mut edited = tools.clone();
    let errors = decide_hints(
        &mut edited,
        &[
            hints_row("add_todo", ["yes", "", "", ""]),
            hints_row("gone_tool", ["", "", "", ""]),
            hints_row("add_todo", ["", "", "", ""]),
            hints_row("get_todos", ["maybe", "", "", ""]),
        ],
    )
    .unwrap_err();
    assert!(errors
        .first("hints[1].tool_id")
        .is_some_and(|m| m.contains("gone_tool")));
    assert!(errors
        .first("hints[2].tool_id")
        .is_some_and(|m| m.contains("twice")));
    assert_eq!(
        errors.first("hints[3].read_only"),
        Some("Read-only must be Not set, Yes or No.")
    );
    assert_eq!(edited, tools, "nothing decided when a row is refused");
}
