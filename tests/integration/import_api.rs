//! Import over HTTP: preview, apply, stale previews, ownership.

use crate::common::{json_call, Browser, TestDatabase, TestServer};
use serde_json::{json, Value};
use toolwright::api::AppError;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

async fn developer_with_app(server: &TestServer, email: &str) -> Browser {
    let mut browser = Browser::new(server);
    browser.signup(email, "correct horse battery staple").await;
    browser
        .call(
            "/api/apps/create",
            &[
                ("package_name", "com.example.todo"),
                ("name", "My App"),
                ("description", ""),
                ("version", "2.0.0"),
                ("public_url", "https://mine.example.com"),
            ],
        )
        .await;
    browser
}

#[tokio::test]
async fn preview_then_apply_replaces_the_tools_in_one_revision() {
    for db in TestDatabase::all().await {
        let server = TestServer::start(db).await;
        let alice = developer_with_app(&server, "alice@example.com").await;
        let content = fixture("tpa_config.todo-example.json");

        let analysis: Value = serde_json::from_str(
            &json_call(
                &alice,
                "/api/import/preview",
                json!({"package_name": "com.example.todo", "content": content}),
            )
            .await,
        )
        .unwrap();
        let valid = &analysis["Valid"];
        assert_eq!(valid["format"], "Tpa");
        assert_eq!(valid["preview"]["added"], json!(["add_todo", "get_todos"]));
        assert_eq!(valid["revision"], 1);
        // Nothing is written by a preview.
        let tools = alice
            .clone_call("/api/tools/list", &[("package_name", "com.example.todo")])
            .await;
        assert!(tools.contains("\"tools\":[]"), "{tools}");

        let applied = json_call(
            &alice,
            "/api/import/apply",
            json!({"package_name": "com.example.todo", "revision": 1, "content": content}),
        )
        .await;
        assert!(applied.is_empty() || applied == "null", "{applied}");
        let tools: Value = serde_json::from_str(
            &alice
                .clone_call("/api/tools/list", &[("package_name", "com.example.todo")])
                .await,
        )
        .unwrap();
        assert_eq!(tools["revision"], 2);
        assert_eq!(tools["tools"].as_array().unwrap().len(), 2);
        let history: Value = serde_json::from_str(
            &alice
                .clone_call("/api/history/list", &[("package_name", "com.example.todo")])
                .await,
        )
        .unwrap();
        assert_eq!(history[0]["summary"], "Imported 2 tools");

        // Applying the same preview again: the app has moved on.
        let stale = json_call(
            &alice,
            "/api/import/apply",
            json!({"package_name": "com.example.todo", "revision": 1, "content": content}),
        )
        .await;
        assert!(
            matches!(
                serde_json::from_str::<AppError>(&stale).unwrap(),
                AppError::Conflict(_)
            ),
            "{stale}"
        );
        server.stop().await;
    }
}

#[tokio::test]
async fn an_invalid_file_is_never_applied_even_without_a_preview() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let alice = developer_with_app(&server, "alice@example.com").await;
    let broken = json!({"tools": [{"id": "bad id", "description": "d"}]}).to_string();
    let analysis: Value = serde_json::from_str(
        &json_call(
            &alice,
            "/api/import/preview",
            json!({"package_name": "com.example.todo", "content": broken}),
        )
        .await,
    )
    .unwrap();
    assert_eq!(analysis["Invalid"]["errors"][0]["path"], "tools[0].id");
    let applied = json_call(
        &alice,
        "/api/import/apply",
        json!({"package_name": "com.example.todo", "revision": 1, "content": broken}),
    )
    .await;
    let AppError::Validation(errors) = serde_json::from_str(&applied).unwrap() else {
        panic!("{applied}")
    };
    assert!(errors.first("content").unwrap().starts_with("tools[0].id:"));
    let tools = alice
        .clone_call("/api/tools/list", &[("package_name", "com.example.todo")])
        .await;
    assert!(tools.contains("\"revision\":1"), "{tools}");
    server.stop().await;
}

#[tokio::test]
async fn the_extended_examples_settings_survive_import_and_export() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = developer_with_app(&server, "alice@example.com").await;
    let content = fixture("mentra-extended-example.app_config.json");
    json_call(
        &alice,
        "/api/import/apply",
        json!({"package_name": "com.example.todo", "revision": 1, "content": content}),
    )
    .await;
    let exported = alice
        .get("/console/apps/com.example.todo/export/download?format=mentra")
        .await;
    let exported: Value = serde_json::from_str(&exported.body).unwrap();
    let original: Value = serde_json::from_str(&content).unwrap();
    assert_eq!(exported["settings"], original["settings"]);
    assert_eq!(
        exported["name"], "My App",
        "a file without a name keeps the app's own"
    );
    assert_eq!(exported["version"], "2.0.0");
    assert_eq!(exported["tools"][0]["id"], "my_tool_name");
    server.stop().await;
}

#[tokio::test]
async fn another_developer_cannot_preview_or_apply() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let _alice = developer_with_app(&server, "alice@example.com").await;
    let mut bob = Browser::new(&server);
    bob.signup("bob@example.com", "correct horse battery staple")
        .await;
    let content = fixture("tpa_config.todo-example.json");
    for path in ["/api/import/preview", "/api/import/apply"] {
        let answer = json_call(
            &bob,
            path,
            json!({"package_name": "com.example.todo", "revision": 1, "content": content}),
        )
        .await;
        assert_eq!(
            serde_json::from_str::<AppError>(&answer).unwrap(),
            AppError::NotFound,
            "{path}"
        );
    }
    server.stop().await;
}
