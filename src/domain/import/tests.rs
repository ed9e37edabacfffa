use super::*;
use crate::domain::export::{render_text, Format};
use proptest::prelude::*;
use serde_json::json;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .unwrap()
}

fn errors_of(value: serde_json::Value) -> Vec<String> {
    match parse(value.to_string().as_bytes()) {
        Ok(imported) => panic!("expected errors, got {imported:?}"),
        Err(rejected) => rejected.errors.iter().map(ToString::to_string).collect(),
    }
}

fn tool_json(extra: serde_json::Value) -> serde_json::Value {
    let mut tool = json!({"id": "add_todo", "description": "Add a new to-do item"});
    if let (Some(tool), Some(extra)) = (tool.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            tool.insert(k.clone(), v.clone());
        }
    }
    tool
}

fn app_with(tools: Vec<serde_json::Value>) -> serde_json::Value {
    json!({"name": "Todo App", "description": "d", "version": "1.0.0", "tools": tools})
}

#[test]
fn the_seed_tpa_config_imports_with_both_tools() {
    let imported = parse(&fixture("tpa_config.todo-example.json")).unwrap();
    assert_eq!(imported.format, SourceFormat::Tpa);
    assert_eq!(imported.name.as_deref(), Some("Todo App"));
    assert_eq!(imported.version.as_deref(), Some("1.0.0"));
    assert_eq!(imported.public_url, None);
    let ids: Vec<&str> = imported.tools.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["add_todo", "get_todos"]);
    assert!(imported.tools[0].parameters[0].required);
    assert!(!imported.tools[1].parameters[0].required);
    assert_eq!(
        imported.tools[1].parameters[0].param_type,
        ParamType::Boolean
    );
    assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
}

#[test]
fn the_mentra_extended_example_imports_keeping_the_apps_name_and_the_settings() {
    let imported = parse(&fixture("mentra-extended-example.app_config.json")).unwrap();
    assert_eq!(imported.format, SourceFormat::Mentra);
    assert_eq!(imported.name, None);
    assert_eq!(imported.version, None);
    assert_eq!(imported.tools.len(), 1);
    assert!(
        imported.tools[0].parameters.is_empty(),
        "\"parameters\": {{ }} is no parameters"
    );
    let current = AppConfig {
        name: "My App".into(),
        version: "2.0.0".into(),
        public_url: "https://mine.example.com".into(),
        ..AppConfig::default()
    };
    let merged = merge(&current, &imported);
    assert_eq!(merged.name, "My App");
    assert_eq!(merged.version, "2.0.0");
    assert_eq!(
        merged.description,
        "A extended example app that shows how to use AugmentOS."
    );
    let settings = merged.settings.clone().unwrap();
    assert_eq!(settings[0]["key"], "show_live_transcription");
    // The mentra export gives the settings back verbatim.
    let exported = render_text(&merged, Format::Mentra, ExportOptions::default());
    let exported: serde_json::Value = serde_json::from_str(&exported).unwrap();
    let original: serde_json::Value =
        serde_json::from_slice(&fixture("mentra-extended-example.app_config.json")).unwrap();
    assert_eq!(exported["settings"], original["settings"]);
}

#[test]
fn malformed_json_reports_line_and_column() {
    let Err(rejected) = parse(b"{\n  \"tools\": [\n    {\"id\": \"x\",,}\n  ]\n}") else {
        panic!()
    };
    assert_eq!(rejected.errors.len(), 1);
    let message = rejected.errors[0].to_string();
    assert!(
        message.starts_with("(file): is not valid JSON"),
        "{message}"
    );
    assert!(message.contains("line 3, column 16"), "{message}");
}

#[test]
fn a_file_over_one_mebibyte_is_refused_before_parsing() {
    let big = vec![b' '; MAX_IMPORT_BYTES + 1];
    assert_eq!(
        parse(&big).unwrap_err().errors[0].to_string(),
        "(file): is larger than 1 MiB"
    );
}

#[test]
fn the_root_must_be_an_object_with_a_tools_array() {
    assert_eq!(
        errors_of(json!([1])),
        vec!["(root): must be a JSON object with a \"tools\" array"]
    );
    assert!(errors_of(json!({"name": "x"}))[0].starts_with("tools: is missing"));
    assert_eq!(
        errors_of(json!({"tools": {}})),
        vec!["tools: must be an array"]
    );
}

#[test]
fn an_invalid_parameter_type_names_its_path() {
    let errors = errors_of(app_with(vec![
        tool_json(json!({})),
        tool_json(json!({"id": "second"})),
        tool_json(
            json!({"id": "weather", "parameters": {"city": {"type": "text", "description": "Which city"}}}),
        ),
    ]));
    assert_eq!(
        errors,
        vec!["tools[2].parameters.city.type: must be one of string, number, boolean"]
    );
}

#[test]
fn a_key_given_twice_is_refused_rather_than_one_of_them_dropped() {
    // serde_json's Value would keep the second description and lose the
    // first without a word.
    let file = br#"{"tools": [
        {"id": "add_todo", "description": "Add a to-do", "description": "Add an item"},
        {"id": "add_todo", "description": "Again"}
    ]}"#;
    let Err(rejected) = parse(file) else {
        panic!("a repeated key must not import")
    };
    let errors: Vec<String> = rejected.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        [
            "tools[0].description: is given more than once in the same object; only one can be imported, so remove the others",
            "tools[1].id: repeats the id \"add_todo\" of tools[0]; tool ids are unique in an app",
        ],
        "reported with every other problem"
    );
}

#[test]
fn every_problem_is_reported_at_once_with_its_path() {
    let errors = errors_of(json!({
        "name": "",
        "version": "1.0",
        "publicUrl": "ftp://x",
        "settings": {},
        "tools": [
            {"id": "bad id", "description": "ok", "parameters": {
                "bad-name": {"type": "string", "description": "d"},
                "count": {"type": "number", "description": "d", "enum": ["1"]},
                "note": {"type": "string"},
                "flag": {"type": "boolean", "description": "d", "required": "yes"}
            }},
            {"id": "ok_tool", "description": "", "activationPhrases": ["fine", 3, "a, b"]},
            {"id": "ok_tool", "description": "again"},
            "not an object",
            {"description": "no id"}
        ]
    }));
    for expected in [
        "name: must be 1 to 100 characters",
        "version: must be a version like 1.0.0 (MAJOR.MINOR.PATCH)",
        "publicUrl: use an http:// or https:// URL",
        "settings: must be an array",
        "tools[0].id: use 1 to 64 letters, digits, _ or -, starting with a letter or _ (like add_todo)",
        "tools[0].parameters.bad-name: use 1 to 64 letters, digits or _, starting with a letter or _ (no hyphens)",
        "tools[0].parameters.count.enum: allowed values are only for string parameters",
        "tools[0].parameters.note.description: is missing",
        "tools[0].parameters.flag.required: must be true or false",
        "tools[1].activationPhrases[1]: must be a string",
        "tools[1].activationPhrases[2]: cannot contain a comma (the console keeps activation phrases in one comma-separated field)",
        "tools[2].id: repeats the id \"ok_tool\" of tools[1]; tool ids are unique in an app",
        "tools[3]: must be an object",
        "tools[4].id: is missing",
    ] {
        assert!(errors.contains(&expected.to_owned()), "missing {expected:?} in {errors:#?}");
    }
}

#[test]
fn an_empty_description_and_the_other_rules_come_from_the_shared_rules() {
    let errors = errors_of(app_with(vec![tool_json(json!({
        "description": " ",
        "activationPhrases": ["p".repeat(101)],
        "parameters": {"_tambo_x": {"type": "string", "description": "d"}}
    }))]));
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("tools[0].description: describe what the tool does")),
        "{errors:?}"
    );
    assert!(errors.iter().any(
        |e| e.starts_with("tools[0].activationPhrases: each phrase has at most 100 characters")
    ));
    assert!(errors
        .iter()
        .any(|e| e
            == "tools[0].parameters._tambo_x: names starting with _tambo_ are reserved by Tambo"));
}

#[test]
fn keys_the_console_does_not_edit_are_kept_verbatim_and_in_order() {
    let text = r#"{
  "name": "Todo App", "logoURL": "https://x/logo.png", "color": "red",
  "permissions": [{"type": "MICROPHONE", "description": "To hear you"}],
  "tools": [{"id": "t", "description": "d", "icon": "x",
             "parameters": {"p": {"type": "string", "description": "d", "default": "v"}}}],
  "webviewURL": "https://x/webview"
}"#;
    let imported = parse(text.as_bytes()).unwrap();
    assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
    let keys: Vec<&String> = imported.extra.keys().collect();
    assert_eq!(keys, ["logoURL", "color", "permissions", "webviewURL"]);
    assert_eq!(
        imported.extra["permissions"],
        json!([{"type": "MICROPHONE", "description": "To hear you"}])
    );
    assert_eq!(imported.tools[0].extra["icon"], json!("x"));
    assert_eq!(imported.tools[0].parameters[0].extra["default"], json!("v"));

    // Given back by both Mentra exports, the app's keys before its tools.
    let app = merge(&crate::domain::export::tests::todo_app(), &imported);
    let mentra: serde_json::Value =
        serde_json::from_str(&render_text(&app, Format::Mentra, ExportOptions::default())).unwrap();
    let keys: Vec<&String> = mentra.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "name",
            "description",
            "version",
            "publicUrl",
            "settings",
            "logoURL",
            "color",
            "permissions",
            "webviewURL",
            "tools"
        ]
    );
    assert_eq!(mentra["tools"][0]["icon"], json!("x"));
    assert_eq!(mentra["tools"][0]["parameters"]["p"]["default"], json!("v"));
    let tpa: serde_json::Value =
        serde_json::from_str(&render_text(&app, Format::Tpa, ExportOptions::default())).unwrap();
    assert_eq!(tpa["webviewURL"], json!("https://x/webview"));
    assert_eq!(tpa["tools"][0]["icon"], json!("x"));
    // Not in the formats of other consumers.
    let mcp = render_text(&app, Format::Mcp, ExportOptions::default());
    assert!(!mcp.contains("webview") && !mcp.contains("icon"), "{mcp}");
}

#[test]
fn kept_keys_survive_an_mcp_import_and_a_new_mentra_file_replaces_them() {
    let with_keys = parse(
        json!({"name": "Todo", "permissions": [], "tools": [
            {"id": "add_todo", "description": "Add", "icon": "plus",
             "parameters": {"todo_item": {"type": "string", "description": "d", "default": ""}}}
        ]})
        .to_string()
        .as_bytes(),
    )
    .unwrap();
    let app = merge(&AppConfig::default(), &with_keys);
    let mcp = render_text(&app, Format::Mcp, ExportOptions::default());
    let again = merge(&app, &parse(mcp.as_bytes()).unwrap());
    assert_eq!(again, app, "MCP carries none of them, and loses none");
    let without = parse(br#"{"name": "Todo", "tools": []}"#).unwrap();
    let replaced = merge(&app, &without);
    assert!(replaced.extra.is_empty());
    assert_eq!(preview(&app, &replaced).kept_changed, ["permissions"]);
}

#[test]
fn a_kept_key_may_not_stand_in_for_an_edited_field() {
    let mut tool = (*crate::domain::export::tests::todo_app().tools[0]).clone();
    tool.extra.insert("description".into(), json!("other"));
    let errors = tool.check(&crate::domain::tool::EditorFields).unwrap_err();
    assert!(
        errors.iter().any(|(field, _)| field == "extra"),
        "{errors:?}"
    );
}

#[test]
fn mcp_hints_are_read_as_set_or_not_and_an_annotations_title_is_a_title() {
    let imported = parse(
        json!({"tools": [
            {"name": "a", "description": "d", "inputSchema": {"type": "object"},
             "annotations": {"title": "Old place", "readOnlyHint": false, "openWorldHint": true}},
            {"name": "b", "title": "Top", "description": "d", "inputSchema": {"type": "object"},
             "annotations": {"title": "Old place"}}
        ]})
        .to_string()
        .as_bytes(),
    )
    .unwrap();
    let a = &imported.tools[0];
    assert_eq!(
        a.hints,
        ToolHints {
            read_only: Some(false),
            destructive: None,
            idempotent: None,
            open_world: Some(true),
        }
    );
    assert_eq!(a.title.as_deref(), Some("Old place"));
    assert_eq!(
        imported.tools[1].title.as_deref(),
        Some("Top"),
        "the top-level title wins"
    );
    assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
    let errors = errors_of(json!({"tools": [
        {"name": "a", "description": "d", "annotations": {"destructiveHint": "yes"}}
    ]}));
    assert_eq!(
        errors,
        ["tools[0].annotations.destructiveHint: must be true or false"]
    );
}

#[test]
fn every_fixture_comes_back_byte_for_byte() {
    for name in [
        "mentra-extended-example.app_config.json",
        "tpa_config.todo-example.json",
        "mentra-live-captions.app_config.json",
        "mentra-webview-notes.app_config.json",
    ] {
        let imported = parse(&fixture(name)).unwrap();
        let format = match imported.format {
            SourceFormat::Mentra => Format::Mentra,
            SourceFormat::Tpa => Format::Tpa,
            SourceFormat::Mcp => Format::Mcp,
        };
        let app = merge(&crate::domain::export::tests::todo_app(), &imported);
        let first = render_text(&app, format, ExportOptions::default());
        let again = merge(&app, &parse(first.as_bytes()).unwrap());
        assert_eq!(
            render_text(&again, format, ExportOptions::default()),
            first,
            "{name}"
        );
        // Every key of the file is in the export, with its value.
        let file: serde_json::Value = serde_json::from_slice(&fixture(name)).unwrap();
        let out: serde_json::Value = serde_json::from_str(&first).unwrap();
        for (key, value) in file.as_object().unwrap() {
            if key != "tools" {
                assert_eq!(out.get(key), Some(value), "{name}: {key}");
            }
        }
        for (i, tool) in file["tools"].as_array().unwrap().iter().enumerate() {
            for (key, value) in tool.as_object().unwrap() {
                if key != "parameters" && key != "activationPhrases" {
                    assert_eq!(
                        out["tools"][i].get(key),
                        Some(value),
                        "{name}: tools[{i}].{key}"
                    );
                }
            }
        }
    }
}

#[test]
fn messy_lists_are_normalised_with_a_warning() {
    let imported = parse(
        app_with(vec![tool_json(json!({
            "activationPhrases": [" add a reminder ", "", "Add a Reminder", "remind me"],
            "parameters": {"level": {"type": "string", "description": "d", "enum": ["low", "low", "high"]}}
        }))])
        .to_string()
        .as_bytes(),
    )
    .unwrap();
    assert_eq!(
        imported.tools[0].activation_phrases,
        ["add a reminder", "remind me"]
    );
    assert_eq!(imported.tools[0].parameters[0].enum_values, ["low", "high"]);
    assert_eq!(imported.warnings.len(), 2);
}

#[test]
fn an_mcp_tools_list_imports_with_phrases_from_meta_and_hints() {
    let imported = parse(&fixture("rich_app/mcp.json")).unwrap();
    assert_eq!(imported.format, SourceFormat::Mcp);
    let add = &imported.tools[0];
    assert_eq!(add.id, "add_todo");
    assert_eq!(add.title.as_deref(), Some("Add a to-do"));
    assert_eq!(
        add.activation_phrases,
        ["add a reminder", "create a todo", "remind me to"]
    );
    assert_eq!(add.hints.idempotent, Some(true));
    assert_eq!(add.hints.read_only, None, "absent is not set");
    assert_eq!(add.parameters[2].enum_values, ["low", "high"]);
    assert!(add.parameters[0].required && !add.parameters[1].required);
}

#[test]
fn mcp_errors_use_the_mcp_paths() {
    let errors = errors_of(json!({"tools": [
        {"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {"city": {"type": "integer", "description": "d"}}}}
    ]}));
    assert_eq!(
        errors,
        vec!["tools[0].inputSchema.properties.city.type: must be one of string, number, boolean"]
    );
}

#[test]
fn phrases_appended_to_an_mcp_description_are_taken_off_again() {
    let app = crate::domain::export::tests::todo_app();
    let text = render_text(
        &app,
        Format::Mcp,
        ExportOptions {
            include_phrases: true,
            strict: false,
        },
    );
    let imported = parse(text.as_bytes()).unwrap();
    assert_eq!(imported.tools[0].description, "Add a new to-do item");
}

#[test]
fn a_mentra_import_keeps_what_mentra_cannot_carry() {
    let mut current = crate::domain::export::tests::todo_app();
    current.tool_mut(0).title = Some("Add a to-do".into());
    current.tool_mut(0).max_calls = Some(3);
    current.tool_mut(0).hints.read_only = Some(true);
    current.tool_mut(0).hints.open_world = Some(false);
    let text = render_text(&current, Format::Mentra, ExportOptions::default());
    let merged = merge(&current, &parse(text.as_bytes()).unwrap());
    assert_eq!(merged.tools, current.tools);
    assert_eq!(
        merged.settings,
        Some(json!([])),
        "\"settings\": [] is kept as given"
    );
    assert!(
        preview(&current, &merged).is_empty(),
        "no settings and [] are the same"
    );
}

#[test]
fn the_preview_lists_added_changed_and_removed_tools_and_app_fields() {
    let current = crate::domain::export::tests::todo_app();
    let mut next = current.clone();
    next.name = "Todo Deluxe".into();
    next.tools.remove(1);
    next.tool_mut(0).description = "Changed".into();
    next.tool_mut(0).activation_phrases.push("note down".into());
    next.tool_mut(0).parameters[1].param_type = ParamType::Number;
    next.tool_mut(0).parameters.push(Parameter {
        name: "priority".into(),
        param_type: ParamType::String,
        description: "p".into(),
        required: false,
        enum_values: vec![],
        extra: Default::default(),
    });
    next.tools.push(
        Tool {
            id: "clear_todos".into(),
            description: "Clear".into(),
            ..Tool::default()
        }
        .into(),
    );
    let p = preview(&current, &next);
    assert_eq!(p.app_fields, vec!["Name: “Todo App” → “Todo Deluxe”"]);
    assert_eq!(p.added, vec!["clear_todos"]);
    assert_eq!(p.removed, vec!["get_todos"]);
    assert_eq!(p.changed.len(), 1);
    assert_eq!(
        p.changed[0].changes,
        vec![
            "description changed",
            "phrases added: “note down”",
            "parameter due_date: type string → number",
            "parameter priority added",
        ]
    );
    assert_eq!(p.unchanged, 0);
    assert!(!p.order_changed);
}

#[test]
fn the_preview_notices_a_new_order() {
    let current = crate::domain::export::tests::todo_app();
    let mut next = current.clone();
    next.tools.reverse();
    let p = preview(&current, &next);
    assert!(p.order_changed);
    assert_eq!(p.unchanged, 2);
    assert!(!p.is_empty());
}

// Generated apps: every value obeys the rules, so export → import → export
// must give the same bytes in every importable format.
fn word() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,12}"
}

fn text() -> impl Strategy<Value = String> {
    "[A-Za-z0-9][A-Za-z0-9 .'()?!-]{0,40}[A-Za-z0-9.!?]".prop_map(|s| s.trim().to_owned())
}

fn parameter() -> impl Strategy<Value = Parameter> {
    (
        word(),
        0..3_u8,
        text(),
        any::<bool>(),
        proptest::collection::vec(word(), 0..4),
    )
        .prop_map(|(name, kind, description, required, values)| {
            let param_type =
                [ParamType::String, ParamType::Number, ParamType::Boolean][kind as usize];
            let enum_values = if param_type == ParamType::String {
                parse_enum_values(&values.join(","))
            } else {
                vec![]
            };
            Parameter {
                name,
                param_type,
                description,
                required,
                enum_values,
                extra: KeptKeys::new(),
            }
        })
        .prop_flat_map(|parameter| {
            kept_keys(&PARAMETER_SCHEMA_KEYS).prop_map(move |extra| Parameter {
                extra,
                ..parameter.clone()
            })
        })
}

/// A value a file might hold under a key the console does not edit.
fn kept_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        "[a-zA-Z :/._-]{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(2, 12, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(serde_json::Value::from),
            proptest::collection::vec(("[a-z][a-zA-Z]{0,6}", inner), 0..3)
                .prop_map(|pairs| serde_json::Value::Object(pairs.into_iter().collect())),
        ]
    })
}

/// Keys of a file the console does not edit, in a generated order.
fn kept_keys(edited: &'static [&'static str]) -> impl Strategy<Value = KeptKeys> {
    let key = prop_oneof![
        Just("permissions".to_owned()),
        Just("webviewURL".to_owned()),
        Just("hardwareRequirements".to_owned()),
        "[a-z][a-zA-Z]{0,8}",
    ];
    proptest::collection::vec((key, kept_value()), 0..3).prop_map(move |pairs| {
        pairs
            .into_iter()
            .filter(|(key, _)| !edited.contains(&key.as_str()))
            .collect()
    })
}

fn tool() -> impl Strategy<Value = Tool> {
    (
        word(),
        text(),
        proptest::collection::vec(text(), 0..4),
        proptest::collection::vec(parameter(), 0..5),
        proptest::option::of(text()),
        proptest::array::uniform4(proptest::option::of(any::<bool>())),
        kept_keys(&TOOL_SCHEMA_KEYS),
    )
        .prop_map(
            |(id, description, phrases, parameters, title, hints, extra)| {
                let mut seen = std::collections::HashSet::new();
                let parameters = parameters
                    .into_iter()
                    .filter(|p| seen.insert(p.name.clone()))
                    .collect();
                Tool {
                    id,
                    description,
                    activation_phrases: parse_phrases(&phrases.join(",")),
                    parameters,
                    title,
                    max_calls: None,
                    hints: ToolHints {
                        read_only: hints[0],
                        destructive: hints[1],
                        idempotent: hints[2],
                        open_world: hints[3],
                    },
                    extra,
                }
            },
        )
}

fn app() -> impl Strategy<Value = AppConfig> {
    (
        text(),
        text(),
        proptest::collection::vec(tool(), 0..5),
        kept_keys(&APP_CONFIG_KEYS),
    )
        .prop_map(|(name, description, tools, extra)| {
            let mut seen = std::collections::HashSet::new();
            AppConfig {
                name,
                description,
                version: "1.2.3".into(),
                public_url: "https://app.example.com".into(),
                settings: None,
                extra,
                tools: tools
                    .into_iter()
                    .filter(|t| seen.insert(t.id.clone()))
                    .map(std::sync::Arc::new)
                    .collect(),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn export_then_import_then_export_gives_the_same_bytes(app in app()) {
        for format in [Format::Mentra, Format::Tpa, Format::Mcp] {
            let first = render_text(&app, format, ExportOptions::default());
            let imported = parse(first.as_bytes());
            prop_assert!(imported.is_ok(), "{:?}: {:?}", format, imported.err());
            let merged = merge(&app, &imported.unwrap());
            prop_assert_eq!(&render_text(&merged, format, ExportOptions::default()), &first, "{:?}", format);
        }
    }

    #[test]
    fn the_parser_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse(&bytes);
    }

    #[test]
    fn the_parser_never_panics_on_arbitrary_json(value in arbitrary_json()) {
        let _ = parse(value.to_string().as_bytes());
        let _ = parse(json!({"tools": [value.clone()]}).to_string().as_bytes());
        let _ = parse(json!({"tools": [{"id": "x", "description": "d", "parameters": {"p": value}}]}).to_string().as_bytes());
    }
}

fn arbitrary_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(serde_json::Value::from),
        "[a-z ,_]{0,8}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            proptest::collection::btree_map(
                prop_oneof![
                    Just("id".to_owned()),
                    Just("type".to_owned()),
                    Just("tools".to_owned()),
                    Just("description".to_owned()),
                    "[a-z]{1,5}"
                ],
                inner,
                0..4
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn an_error_on_one_parameter_does_not_hide_one_on_a_similarly_named_parameter() {
    let errors = errors_of(app_with(vec![tool_json(json!({"parameters": {
        "city": {"type": "text", "description": "d"},
        "ci": {"type": "number", "description": "d", "enum": ["1"]}
    }}))]));
    assert!(
        errors.contains(
            &"tools[0].parameters.city.type: must be one of string, number, boolean".to_owned()
        ),
        "{errors:?}"
    );
    assert!(
        errors.contains(
            &"tools[0].parameters.ci.enum: allowed values are only for string parameters"
                .to_owned()
        ),
        "{errors:?}"
    );
}

#[test]
fn an_empty_settings_array_in_a_file_clears_the_apps_settings() {
    let mut current = crate::domain::export::tests::todo_app();
    current.settings =
        Some(json!([{"type": "toggle", "key": "k", "label": "K", "defaultValue": true}]));
    let imported = parse(json!({"settings": [], "tools": []}).to_string().as_bytes()).unwrap();
    assert_eq!(merge(&current, &imported).settings, Some(json!([])));
    let without = parse(json!({"tools": []}).to_string().as_bytes()).unwrap();
    assert_eq!(
        merge(&current, &without).settings,
        current.settings,
        "absent keeps the app's own"
    );
}

#[test]
fn mcp_annotations_must_be_an_object() {
    let errors =
        errors_of(json!({"tools": [{"name": "t", "description": "d", "annotations": true}]}));
    assert_eq!(
        errors,
        vec!["tools[0].annotations: must be an object of hints"]
    );
}

#[test]
fn every_kind_of_mistake_in_a_mentra_file_names_its_path() {
    let long = "x".repeat(1001);
    let errors = errors_of(json!({
        "name": 7,
        "description": long,
        "version": false,
        "publicUrl": 3,
        "tools": [
            tool_json(json!({"activationPhrases": "not a list"})),
            {"id": "second", "description": "d", "parameters": {"p": "not an object"}},
            {"id": "third", "description": "d", "parameters": ["not", "an", "object"]},
            {"id": "fourth", "description": "d", "parameters": {"p": {"description": "no type"}}},
        ]
    }));
    for expected in [
        "name: must be a string",
        "description: must be at most 1000 characters",
        "version: must be a string",
        "publicUrl: must be a string",
        "tools[0].activationPhrases: must be an array of strings",
        "tools[1].parameters.p: must be an object with type and description",
        "tools[2].parameters: must be an object of parameters by name",
        "tools[3].parameters.p.type: is missing: must be one of string, number, boolean",
    ] {
        assert!(
            errors.contains(&expected.to_owned()),
            "missing {expected:?} in {errors:#?}"
        );
    }
}

#[test]
fn every_kind_of_mistake_in_an_mcp_file_names_its_path() {
    let errors = errors_of(json!({"tools": [
        {"name": "a", "description": "d", "inputSchema": {"type": "array"}},
        {"name": "b", "description": "d", "inputSchema": {"type": "object", "properties": []}},
        {"name": "c", "description": "d", "inputSchema": "object"},
        {"name": "d", "description": "d", "inputSchema": {"type": "object", "properties": {"p": 1}}},
        {"name": "e", "description": "d", "annotations": {"readOnlyHint": "yes"}},
        {"description": "no name", "inputSchema": {"type": "object"}},
    ]}));
    for expected in [
        "tools[0].inputSchema.type: must be \"object\"",
        "tools[1].inputSchema.properties: must be an object",
        "tools[2].inputSchema: must be a JSON Schema object",
        "tools[3].inputSchema.properties.p: must be an object",
        "tools[4].annotations.readOnlyHint: must be true or false",
        "tools[5].name: is missing",
    ] {
        assert!(
            errors.contains(&expected.to_owned()),
            "missing {expected:?} in {errors:#?}"
        );
    }
}

#[test]
fn the_shared_limits_apply_to_imported_tools() {
    let many_params: serde_json::Map<String, serde_json::Value> = (0..51)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "description": "d"}),
            )
        })
        .collect();
    let many_phrases: Vec<String> = (0..21).map(|i| format!("phrase {i}")).collect();
    let many_values: Vec<String> = (0..101).map(|i| format!("v{i}")).collect();
    let errors = errors_of(app_with(vec![
        tool_json(json!({"parameters": many_params})),
        json!({"id": "phrases", "description": "d", "activationPhrases": many_phrases}),
        json!({"id": "long", "description": "x".repeat(1025)}),
        json!({"id": "values", "description": "d", "parameters": {
            "p": {"type": "string", "description": "d", "enum": many_values}
        }}),
    ]));
    let joined = errors.join("\n");
    for path in [
        "tools[0].parameters",
        "tools[1].activationPhrases",
        "tools[2].description",
        "tools[3].parameters.p.enum",
    ] {
        assert!(
            errors.iter().any(|e| e.starts_with(&format!("{path}:"))),
            "no error at {path} in {joined}"
        );
    }
}

#[test]
fn keys_an_mcp_import_drops_are_warnings() {
    let imported = parse(
        json!({"tools": [{
            "name": "t", "description": "d",
            "inputSchema": {
                "type": "object", "$schema": "x", "minProperties": 1,
                "properties": {"p": {"type": "string", "description": "d", "default": "a"}},
                "required": ["p", "ghost"]
            },
            "annotations": {"readOnlyHint": true, "colour": "red"}
        }]})
        .to_string()
        .as_bytes(),
    )
    .unwrap();
    let warnings: Vec<String> = imported.warnings.iter().map(|w| w.path.clone()).collect();
    for path in [
        "tools[0].inputSchema.minProperties",
        "tools[0].inputSchema.properties.p.default",
        "tools[0].inputSchema.required[1]",
        "tools[0].annotations.colour",
    ] {
        assert!(
            warnings.contains(&path.to_owned()),
            "no warning at {path}: {warnings:?}"
        );
    }
    assert!(!warnings.iter().any(|w| w.contains("$schema")));
    assert!(imported.tools[0].parameters[0].required);
}
