//! Exports over HTTP: the console's download and the API with keys.

use crate::common::{api_get, create_key, json_call, Browser, TestDatabase, TestServer};
use serde_json::{json, Value};
use toolwright::api::AppError;

const PASSWORD: &str = "correct horse battery staple";

/// Signs up and creates the Todo App with one tool.
async fn developer_with_app(server: &TestServer, email: &str, package: &str) -> Browser {
    let mut browser = Browser::new(server);
    assert_eq!(browser.signup(email, PASSWORD).await.status, 302);
    browser
        .call(
            "/api/apps/create",
            &[
                ("package_name", package),
                ("name", "Todo App"),
                ("description", "Manage your to-do items"),
                ("version", "1.0.0"),
                ("public_url", "https://todo.example.com"),
            ],
        )
        .await;
    let saved = json_call(
        &browser,
        "/api/tools/save",
        json!({"package_name": package, "revision": 1, "original_id": null, "draft": {
            "tool_id": "add_todo", "description": "Add a new to-do item", "activation_phrases": "add a reminder",
            "title": "", "max_calls": "", "hints": {"readOnly": false},
            "parameters": [{"name": "todo_item", "param_type": "string", "description": "The to-do item text", "required": true, "allowed_values": ""}]
        }}),
    )
    .await;
    assert!(saved.contains("add_todo"), "{saved}");
    browser
}

#[tokio::test]
async fn an_api_key_works_until_it_is_revoked() {
    for db in TestDatabase::all().await {
        let server = TestServer::start(db).await;
        let alice = developer_with_app(&server, "alice@example.com", "com.example.todo").await;
        let key = create_key(&alice, "com.example.todo", "CI").await;
        assert!(key.starts_with("tw_") && key.len() == 43, "{key}");

        let response = api_get(
            &server,
            "/api/v1/apps/com.example.todo/config?format=mentra",
            Some(&key),
        )
        .await;
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "application/json");
        let body = response.text().await.unwrap();
        assert!(body.ends_with("}\n"));
        let config: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(config["name"], "Todo App");
        assert_eq!(config["tools"][0]["id"], "add_todo");

        // The list shows the key's prefix and that it was used, never the key.
        let listed = json_call(
            &alice,
            "/api/keys/list",
            json!({"package_name": "com.example.todo"}),
        )
        .await;
        let keys: Value = serde_json::from_str(&listed).unwrap();
        assert_eq!(keys[0]["name"], "CI");
        assert_eq!(keys[0]["prefix"], json!(&key[..10]));
        assert!(keys[0]["last_used_at"].is_i64());
        assert!(!listed.contains(&key));

        let id = keys[0]["id"].as_i64().unwrap();
        let remaining = json_call(
            &alice,
            "/api/keys/revoke",
            json!({"package_name": "com.example.todo", "key_id": id}),
        )
        .await;
        assert_eq!(remaining, "[]");
        let response = api_get(&server, "/api/v1/apps/com.example.todo/config", Some(&key)).await;
        assert_eq!(response.status(), 401, "{}", server.db.label());
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        server.stop().await;
    }
}

#[tokio::test]
async fn a_missing_or_unknown_key_is_401_and_a_key_of_another_app_is_404() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let alice = developer_with_app(&server, "alice@example.com", "com.example.todo").await;
    let bob = developer_with_app(&server, "bob@example.com", "com.example.other").await;
    let bobs_key = create_key(&bob, "com.example.other", "bob").await;
    let _alices_key = create_key(&alice, "com.example.todo", "alice").await;

    assert_eq!(
        api_get(&server, "/api/v1/apps/com.example.todo/config", None)
            .await
            .status(),
        401
    );
    assert_eq!(
        api_get(
            &server,
            "/api/v1/apps/com.example.todo/config",
            Some("tw_nope")
        )
        .await
        .status(),
        401
    );
    let cross = api_get(
        &server,
        "/api/v1/apps/com.example.todo/config",
        Some(&bobs_key),
    )
    .await;
    assert_eq!(cross.status(), 404);
    let unknown = api_get(
        &server,
        "/api/v1/apps/com.example.nothing/config",
        Some(&bobs_key),
    )
    .await;
    assert_eq!(unknown.status(), 404);
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_format_is_400_with_the_list_of_formats() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let alice = developer_with_app(&server, "alice@example.com", "com.example.todo").await;
    let key = create_key(&alice, "com.example.todo", "CI").await;
    let response = api_get(
        &server,
        "/api/v1/apps/com.example.todo/config?format=yaml",
        Some(&key),
    )
    .await;
    assert_eq!(response.status(), 400);
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(
        body["formats"],
        json!([
            "mentra",
            "tpa",
            "mcp",
            "openai",
            "anthropic",
            "gemini",
            "tambo"
        ])
    );

    for format in [
        "mentra",
        "tpa",
        "mcp",
        "openai",
        "anthropic",
        "gemini",
        "tambo",
    ] {
        let response = api_get(
            &server,
            &format!("/api/v1/apps/com.example.todo/config?format={format}&strict=true"),
            Some(&key),
        )
        .await;
        assert_eq!(response.status(), 200, "{format}");
        serde_json::from_str::<Value>(&response.text().await.unwrap()).unwrap();
    }
    server.stop().await;
}

#[tokio::test]
async fn keys_of_another_developers_app_cannot_be_made_listed_or_revoked() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let alice = developer_with_app(&server, "alice@example.com", "com.example.todo").await;
    let key = create_key(&alice, "com.example.todo", "CI").await;
    let mut bob = Browser::new(&server);
    bob.signup("bob@example.com", PASSWORD).await;
    for (path, body) in [
        (
            "/api/keys/create",
            json!({"package_name": "com.example.todo", "name": "mine now"}),
        ),
        (
            "/api/keys/list",
            json!({"package_name": "com.example.todo"}),
        ),
        (
            "/api/keys/revoke",
            json!({"package_name": "com.example.todo", "key_id": 1}),
        ),
    ] {
        let answer = json_call(&bob, path, body).await;
        assert_eq!(
            serde_json::from_str::<AppError>(&answer).unwrap(),
            AppError::NotFound,
            "{path}"
        );
    }
    assert_eq!(
        api_get(&server, "/api/v1/apps/com.example.todo/config", Some(&key))
            .await
            .status(),
        200
    );
    server.stop().await;
}

#[tokio::test]
async fn a_key_needs_a_name() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let alice = developer_with_app(&server, "alice@example.com", "com.example.todo").await;
    let answer = json_call(
        &alice,
        "/api/keys/create",
        json!({"package_name": "com.example.todo", "name": "  "}),
    )
    .await;
    let AppError::Validation(errors) = serde_json::from_str(&answer).unwrap() else {
        panic!("{answer}")
    };
    assert!(errors.first("key_name").is_some());
    server.stop().await;
}

#[tokio::test]
async fn the_download_is_an_attachment_with_the_formats_file_name() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = developer_with_app(&server, "alice@example.com", "com.example.todo").await;
    for (format, file) in [
        ("mentra", "app_config.json"),
        ("tpa", "tpa_config.json"),
        ("openai", "openai_tools.json"),
    ] {
        let answer = alice
            .get(&format!(
                "/console/apps/com.example.todo/export/download?format={format}&include_phrases=on"
            ))
            .await;
        assert_eq!(answer.status, 200, "{format}");
        assert_eq!(
            answer.headers["content-disposition"],
            format!("attachment; filename=\"{file}\"").as_str()
        );
        serde_json::from_str::<Value>(&answer.body).unwrap();
    }
    let answer = alice
        .get("/console/apps/com.example.todo/export/download?format=openai&include_phrases=on")
        .await;
    assert!(answer
        .body
        .contains("Possibly activated by phrases like: add a reminder"));

    let mut bob = Browser::new(&server);
    bob.signup("bob@example.com", PASSWORD).await;
    assert_eq!(
        bob.get("/console/apps/com.example.todo/export/download")
            .await
            .status,
        404
    );
    let mut visitor = Browser::new(&server);
    assert_eq!(
        visitor
            .get("/console/apps/com.example.todo/export/download")
            .await
            .status,
        303
    );
    server.stop().await;
}

#[tokio::test]
async fn the_export_page_renders_its_preview_on_the_server() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = developer_with_app(&server, "alice@example.com", "com.example.todo").await;
    let page = alice
        .get("/console/apps/com.example.todo/export?format=gemini")
        .await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("functionDeclarations"), "{}", page.body);
    assert!(page.body.contains("STRING"));
    let mut bob = Browser::new(&server);
    bob.signup("bob@example.com", PASSWORD).await;
    assert_eq!(
        bob.get("/console/apps/com.example.todo/export")
            .await
            .status,
        404
    );
    server.stop().await;
}

#[tokio::test]
async fn a_new_app_never_gets_the_export_of_a_deleted_one() {
    // SQLite gives the id of a deleted app (the newest) to the next app
    // created: the exports cached for the deleted one must not answer for it.
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = developer_with_app(&server, "alice@example.com", "com.example.todo").await;
    let alice_key = create_key(&alice, "com.example.todo", "CI").await;
    let first = api_get(
        &server,
        "/api/v1/apps/com.example.todo/config",
        Some(&alice_key),
    )
    .await;
    assert_eq!(first.status(), 200);
    assert!(first.text().await.unwrap().contains("Todo App"));
    let deleted = alice
        .call(
            "/api/apps/delete",
            &[
                ("package_name", "com.example.todo"),
                ("confirmation", "com.example.todo"),
            ],
        )
        .await;
    assert!(deleted.status < 400, "{deleted:?}");

    // Bob's app reaches the same revision with other content.
    let mut bob = Browser::new(&server);
    assert_eq!(bob.signup("bob@example.com", PASSWORD).await.status, 302);
    bob.call(
        "/api/apps/create",
        &[
            ("package_name", "com.example.bob"),
            ("name", "Bob's App"),
            ("description", ""),
            ("version", "1.0.0"),
            ("public_url", "https://bob.example.com"),
        ],
    )
    .await;
    let saved = json_call(
        &bob,
        "/api/tools/save",
        json!({"package_name": "com.example.bob", "revision": 1, "original_id": null, "draft": {
            "tool_id": "say_hello", "description": "Say hello", "activation_phrases": "",
            "title": "", "max_calls": "", "hints": {"readOnly": false},
            "parameters": []
        }}),
    )
    .await;
    assert!(saved.contains("say_hello"), "{saved}");
    let bob_key = create_key(&bob, "com.example.bob", "CI").await;
    let export = api_get(
        &server,
        "/api/v1/apps/com.example.bob/config",
        Some(&bob_key),
    )
    .await
    .text()
    .await
    .unwrap();
    assert!(export.contains("Bob's App"), "{export}");
    assert!(!export.contains("Todo App"), "{export}");
    server.stop().await;
}

#[tokio::test]
async fn the_checks_api_answers_a_key_of_the_app_and_nobody_else() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let alice = developer_with_app(&server, "alice@example.com", "com.example.todo").await;
        let bob = developer_with_app(&server, "bob@example.com", "com.example.other").await;
        let key = create_key(&alice, "com.example.todo", "CI").await;
        let bobs_key = create_key(&bob, "com.example.other", "CI").await;
        let path = "/api/v1/apps/com.example.todo/checks";

        let response = api_get(&server, path, None).await;
        assert_eq!(response.status(), 401, "{label}");
        assert!(response.headers().contains_key("www-authenticate"));
        let tampered = format!("{}x", &key[..key.len() - 1]);
        assert_eq!(api_get(&server, path, Some(&tampered)).await.status(), 401);
        assert_eq!(api_get(&server, path, Some(&bobs_key)).await.status(), 404);

        let response = api_get(&server, path, Some(&key)).await;
        assert_eq!(response.status(), 200, "{label}");
        let body: Value = response.json().await.unwrap();
        let ready: Vec<&String> = body["ready"].as_object().unwrap().keys().collect();
        assert_eq!(
            ready,
            [
                "mentra",
                "tpa",
                "mcp",
                "openai",
                "anthropic",
                "gemini",
                "tambo"
            ]
        );
        // Read-only is decided ("no"); Destructive and Open world are not.
        assert_eq!(body["ready"]["mcp"], json!(false));
        assert_eq!(body["ready"]["mentra"], json!(true));
        let paths: Vec<&str> = body["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert!(paths.contains(&"tools[0].hints.destructive"), "{paths:?}");
        assert!(paths.contains(&"tools[0].hints.openWorld"), "{paths:?}");
        assert!(!paths.contains(&"tools[0].hints.readOnly"), "{paths:?}");
        let destructive = body["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == "tools[0].hints.destructive")
            .unwrap();
        assert_eq!(destructive["severity"], json!("blocker"));
        assert_eq!(destructive["consumers"], json!(["mcp"]));
        server.stop().await;
    }
}

#[tokio::test]
async fn the_app_page_shows_a_line_per_rule_and_the_api_every_finding() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let alice = developer_with_app(&server, "alice@example.com", "com.example.todo").await;
    // Ten tools with no title and no hint decided: a finding per tool and
    // field, a line per rule.
    for index in 0..10 {
        let revision = index + 2;
        let draft = json!({
            "tool_id": format!("tool_{index}"), "description": "Does one thing",
            "activation_phrases": "", "title": "", "max_calls": "", "hints": {}, "parameters": []
        });
        let (status, body) = crate::common::json_call_with_status(
            &alice,
            "/api/tools/save",
            json!({"package_name": "com.example.todo", "revision": revision, "original_id": null, "draft": draft}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    let key = create_key(&alice, "com.example.todo", "CI").await;
    let all: Value = api_get(&server, "/api/v1/apps/com.example.todo/checks", Some(&key))
        .await
        .json()
        .await
        .unwrap();
    let findings = all["findings"].as_array().unwrap();
    let read_only = findings
        .iter()
        .filter(|f| {
            f["path"]
                .as_str()
                .is_some_and(|p| p.ends_with(".hints.readOnly"))
        })
        .count();
    assert_eq!(read_only, 10, "the API lists every finding");

    let mut browser = alice;
    let answer = browser
        .call("/api/apps/page", &[("package_name", "com.example.todo")])
        .await;
    let page: Value = serde_json::from_str(&answer.body).unwrap();
    let groups = page["checks"]["groups"].as_array().unwrap();
    let rules: Vec<&str> = groups.iter().filter_map(|g| g["rule"].as_str()).collect();
    let mut unique = rules.clone();
    unique.dedup();
    assert_eq!(rules, unique, "each rule once: {rules:?}");
    let line = groups
        .iter()
        .find(|g| g["rule"] == json!("hintReadOnly"))
        .expect("the Read-only line");
    assert_eq!(line["places"].as_array().unwrap().len(), 10);
    assert!(groups.len() < findings.len());
    let html = browser.get("/console/apps/com.example.todo").await.body;
    assert!(
        html.contains(&format!("{} findings", groups.len())),
        "the count is of the lines"
    );
    server.stop().await;
}
