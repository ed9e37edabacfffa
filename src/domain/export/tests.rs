use super::*;
use crate::domain::tool::{HintKind, ParamType, Parameter, Tool, ToolHints};
use serde_json::json;

/// The seed's Todo App (SPEC.md §3), with a server URL.
pub fn todo_app() -> AppConfig {
    let param = |name: &str, param_type, description: &str, required| Parameter {
        name: name.into(),
        param_type,
        description: description.into(),
        required,
        enum_values: vec![],
        extra: Default::default(),
    };
    AppConfig {
        name: "Todo App".into(),
        description: "Manage your to-do items".into(),
        version: "1.0.0".into(),
        public_url: "https://todo.example.com".into(),
        settings: None,
        extra: Default::default(),
        tools: vec![
            Tool {
                id: "add_todo".into(),
                description: "Add a new to-do item".into(),
                activation_phrases: vec![
                    "add a reminder".into(),
                    "create a todo".into(),
                    "remind me to".into(),
                ],
                parameters: vec![
                    param("todo_item", ParamType::String, "The to-do item text", true),
                    param(
                        "due_date",
                        ParamType::String,
                        "Due date in ISO format (YYYY-MM-DD)",
                        false,
                    ),
                ],
                ..Tool::default()
            },
            Tool {
                id: "get_todos".into(),
                description: "Get all to-do items".into(),
                activation_phrases: vec!["show my todos".into(), "list my reminders".into()],
                parameters: vec![param(
                    "include_completed",
                    ParamType::Boolean,
                    "Whether to include completed items",
                    false,
                )],
                ..Tool::default()
            },
        ]
        .into_iter()
        .map(std::sync::Arc::new)
        .collect(),
    }
}

/// The Todo App with every optional feature in use.
fn rich_app() -> AppConfig {
    let mut app = todo_app();
    app.tool_mut(0).title = Some("Add a to-do".into());
    app.tool_mut(0).max_calls = Some(2);
    app.tool_mut(0).hints = ToolHints {
        idempotent: Some(true),
        destructive: Some(false),
        ..ToolHints::default()
    };
    app.tool_mut(0).parameters.push(Parameter {
        name: "priority".into(),
        param_type: ParamType::String,
        description: "How urgent".into(),
        required: false,
        enum_values: vec!["low".into(), "high".into()],
        extra: Default::default(),
    });
    app.tool_mut(1).hints = ToolHints {
        read_only: Some(true),
        ..ToolHints::default()
    };
    app
}

fn fixture_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Compares with a checked-in file, byte for byte. With UPDATE_FIXTURES=1
/// the file is (re)written instead — then read it before committing it.
fn assert_matches_fixture(name: &str, actual: &str) {
    let path = fixture_path(name);
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_FIXTURES=1 to create it)",
            path.display()
        )
    });
    assert_eq!(actual, expected, "{name} differs from its fixture");
}

#[test]
fn every_format_renders_the_todo_app_exactly_as_its_fixture() {
    for format in Format::ALL {
        let text = render_text(&todo_app(), format, ExportOptions::default());
        assert_matches_fixture(&format!("todo_app/{}.json", format.key()), &text);
    }
}

#[test]
fn the_options_render_exactly_as_their_fixtures() {
    let phrases = ExportOptions {
        include_phrases: true,
        strict: false,
    };
    let strict = ExportOptions {
        include_phrases: false,
        strict: true,
    };
    assert_matches_fixture(
        "todo_app/openai.strict.json",
        &render_text(&todo_app(), Format::Openai, strict),
    );
    assert_matches_fixture(
        "todo_app/anthropic.phrases.json",
        &render_text(&todo_app(), Format::Anthropic, phrases),
    );
    for format in Format::ALL {
        let text = render_text(&rich_app(), format, ExportOptions::default());
        assert_matches_fixture(&format!("rich_app/{}.json", format.key()), &text);
    }
}

#[test]
fn the_tpa_rendering_equals_the_seed_example_apart_from_required_false() {
    let mut seed: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture_path("tpa_config.todo-example.json")).unwrap(),
    )
    .unwrap();
    // The canonical rendering omits "required": false (absent means optional).
    seed["tools"][1]["parameters"]["include_completed"]
        .as_object_mut()
        .unwrap()
        .remove("required");
    assert_eq!(
        render(&todo_app(), Format::Tpa, ExportOptions::default()),
        seed
    );
}

#[test]
fn rendering_is_deterministic_and_ends_with_a_newline() {
    for format in Format::ALL {
        for options in [
            ExportOptions::default(),
            ExportOptions {
                include_phrases: true,
                strict: true,
            },
        ] {
            let first = render_text(&rich_app(), format, options);
            assert_eq!(
                first,
                render_text(&rich_app(), format, options),
                "{format:?}"
            );
            assert!(
                first.ends_with("}\n") || first.ends_with("]\n"),
                "{format:?}"
            );
            assert!(first.contains("\n  "), "two-space indentation");
            assert!(!first.contains("\n    \n"));
        }
    }
}

#[test]
fn tools_and_parameters_keep_the_users_order() {
    let mut app = todo_app();
    app.tools.reverse();
    app.tool_mut(1).parameters.reverse();
    let out = render_text(&app, Format::Openai, ExportOptions::default());
    assert!(out.find("get_todos").unwrap() < out.find("add_todo").unwrap());
    assert!(out.find("due_date").unwrap() < out.find("todo_item").unwrap());
}

#[test]
fn optional_keys_are_left_out_when_empty() {
    let mut app = todo_app();
    app.tool_mut(1).activation_phrases.clear();
    app.tool_mut(1).parameters.clear();
    let mentra = render(&app, Format::Mentra, ExportOptions::default());
    let bare = &mentra["tools"][1];
    assert_eq!(
        bare,
        &json!({"id": "get_todos", "description": "Get all to-do items"})
    );
    assert!(mentra["tools"][0]["parameters"]["due_date"]
        .get("required")
        .is_none());
    assert_eq!(
        mentra["tools"][0]["parameters"]["todo_item"]["required"],
        json!(true)
    );
    assert!(!render_text(&app, Format::Mentra, ExportOptions::default()).contains("\"enum\""));
    let mcp = render(&app, Format::Mcp, ExportOptions::default());
    assert!(mcp["tools"][1].get("_meta").is_none());
    assert!(mcp["tools"][1].get("annotations").is_none());
    assert!(mcp["tools"][1]["inputSchema"].get("required").is_none());
}

#[test]
fn strict_mode_requires_every_property_and_makes_optional_ones_nullable() {
    let openai = render(
        &rich_app(),
        Format::Openai,
        ExportOptions {
            strict: true,
            include_phrases: false,
        },
    );
    let function = &openai[0]["function"];
    assert_eq!(function["strict"], json!(true));
    let parameters = &function["parameters"];
    assert_eq!(parameters["additionalProperties"], json!(false));
    assert_eq!(
        parameters["required"],
        json!(["todo_item", "due_date", "priority"])
    );
    assert_eq!(
        parameters["properties"]["todo_item"]["type"],
        json!("string")
    );
    assert_eq!(
        parameters["properties"]["due_date"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(
        parameters["properties"]["priority"]["enum"],
        json!(["low", "high", null])
    );
    // A tool without parameters is still a strict object.
    let mut app = todo_app();
    app.tool_mut(1).parameters.clear();
    let openai = render(
        &app,
        Format::Openai,
        ExportOptions {
            strict: true,
            include_phrases: false,
        },
    );
    assert_eq!(
        openai[1]["function"]["parameters"],
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

#[test]
fn without_strict_mode_openai_has_plain_json_schema() {
    let openai = render(&rich_app(), Format::Openai, ExportOptions::default());
    let function = &openai[0]["function"];
    assert!(function.get("strict").is_none());
    assert!(function["parameters"].get("additionalProperties").is_none());
    assert_eq!(function["parameters"]["required"], json!(["todo_item"]));
}

#[test]
fn enums_are_only_ever_rendered_on_strings() {
    let mut app = rich_app();
    // A number parameter carrying values (the rules refuse it; the renderer
    // must not pass it on regardless).
    app.tool_mut(1).parameters.push(Parameter {
        name: "limit".into(),
        param_type: ParamType::Number,
        description: "How many".into(),
        required: false,
        enum_values: vec!["1".into()],
        extra: Default::default(),
    });
    for format in [
        Format::Mcp,
        Format::Openai,
        Format::Anthropic,
        Format::Gemini,
        Format::Tambo,
    ] {
        let text = render_text(
            &app,
            format,
            ExportOptions {
                strict: true,
                include_phrases: false,
            },
        );
        assert_eq!(
            text.matches("\"enum\": [").count(),
            1,
            "{format:?}: only `priority` has one"
        );
    }
}

#[test]
fn gemini_uses_its_own_type_names_and_no_parameters_for_a_tool_without_them() {
    let mut app = todo_app();
    app.tool_mut(1).parameters.clear();
    let gemini = render(&app, Format::Gemini, ExportOptions::default());
    let first = &gemini["functionDeclarations"][0]["parameters"];
    assert_eq!(first["type"], json!("OBJECT"));
    assert_eq!(first["properties"]["todo_item"]["type"], json!("STRING"));
    assert!(gemini["functionDeclarations"][1]
        .get("parameters")
        .is_none());
}

#[test]
fn phrases_go_into_llm_descriptions_the_way_mentra_does_it() {
    let options = ExportOptions {
        include_phrases: true,
        strict: false,
    };
    let anthropic = render(&todo_app(), Format::Anthropic, options);
    assert_eq!(
        anthropic[0]["description"],
        json!("Add a new to-do item\nPossibly activated by phrases like: add a reminder, create a todo, remind me to")
    );
    // Mentra's own formats keep them in activationPhrases, never in the description.
    let mentra = render(&todo_app(), Format::Mentra, options);
    assert_eq!(
        mentra["tools"][0]["description"],
        json!("Add a new to-do item")
    );
}

#[test]
fn appended_phrases_never_push_a_description_past_1024_characters() {
    let description = "d".repeat(970);
    let phrases = vec!["short".to_owned(), "x".repeat(30)];
    let options = ExportOptions {
        include_phrases: true,
        strict: false,
    };
    let out = llm_description(&description, &phrases, options);
    assert!(out.chars().count() <= LLM_DESCRIPTION_MAX);
    assert!(out.ends_with("like: short"), "{out}");
    let full = "d".repeat(1024);
    assert_eq!(llm_description(&full, &phrases, options), full);
}

#[test]
fn mcp_keeps_phrases_in_meta_and_only_the_hints_that_are_set() {
    let mcp = render(&rich_app(), Format::Mcp, ExportOptions::default());
    let tool = &mcp["tools"][0];
    assert_eq!(tool["title"], json!("Add a to-do"));
    assert_eq!(
        tool["_meta"]["glass.mentra/activationPhrases"],
        json!(["add a reminder", "create a todo", "remind me to"])
    );
    assert_eq!(
        tool["annotations"],
        json!({"title": "Add a to-do", "destructiveHint": false, "idempotentHint": true})
    );
    // Without a title, only the hint; with nothing decided, no annotations.
    assert_eq!(
        mcp["tools"][1]["annotations"],
        json!({"readOnlyHint": true})
    );
    let plain = render(&todo_app(), Format::Mcp, ExportOptions::default());
    assert!(plain["tools"][0].get("annotations").is_none());
}

#[test]
fn every_hint_in_every_state_reaches_mcp_and_tambo_as_decided() {
    for kind in HintKind::ALL {
        for value in [None, Some(true), Some(false)] {
            let mut app = todo_app();
            app.tool_mut(0).hints.set(kind, value);
            let mcp = render(&app, Format::Mcp, ExportOptions::default());
            let annotations = &mcp["tools"][0]["annotations"];
            match value {
                None => assert!(annotations.is_null(), "{kind:?}: {annotations}"),
                Some(set) => assert_eq!(annotations, &json!({ kind.mcp_key(): set }), "{kind:?}"),
            }
            let tambo = render(&app, Format::Tambo, ExportOptions::default());
            let streamable = kind == HintKind::ReadOnly && value == Some(true);
            assert_eq!(
                tambo[0].get("annotations").is_some(),
                streamable,
                "{kind:?} {value:?}"
            );
            // The other formats have no place for hints.
            for format in [
                Format::Mentra,
                Format::Tpa,
                Format::Openai,
                Format::Anthropic,
                Format::Gemini,
            ] {
                assert_eq!(
                    render(&app, format, ExportOptions::default()),
                    render(&todo_app(), format, ExportOptions::default()),
                    "{format:?}"
                );
            }
        }
    }
}

#[test]
fn tambo_has_its_extras_and_a_string_output() {
    let tambo = render(&rich_app(), Format::Tambo, ExportOptions::default());
    assert_eq!(tambo[0]["title"], json!("Add a to-do"));
    assert_eq!(tambo[0]["maxCalls"], json!(2));
    assert!(tambo[0].get("annotations").is_none());
    assert_eq!(
        tambo[1]["annotations"],
        json!({"tamboStreamableHint": true})
    );
    assert_eq!(tambo[1]["outputSchema"], json!({"type": "string"}));
}

#[test]
fn the_mentra_export_gives_back_imported_settings_verbatim() {
    let mut app = todo_app();
    let settings = json!([{"type": "toggle", "key": "show_live_transcription", "label": "Show live transcription", "defaultValue": true}]);
    app.settings = Some(settings.clone());
    assert_eq!(
        render(&app, Format::Mentra, ExportOptions::default())["settings"],
        settings
    );
    assert_eq!(
        render(&todo_app(), Format::Mentra, ExportOptions::default())["settings"],
        json!([])
    );
}

#[test]
fn format_keys_file_names_and_labels_are_distinct_and_parse_back() {
    for format in Format::ALL {
        assert_eq!(Format::parse(format.key()), Some(format));
        assert!(format.file_name().ends_with(".json"));
    }
    assert_eq!(Format::parse("yaml"), None);
    assert_eq!(
        Format::list(),
        "mentra, tpa, mcp, openai, anthropic, gemini, tambo"
    );
    assert_eq!(Format::default(), Format::Mentra);
}
