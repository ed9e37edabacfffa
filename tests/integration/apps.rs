//! App server functions over real HTTP: ownership, validation, no-JS posts.

use crate::common::{Browser, TestDatabase, TestServer};
use toolwright::api::AppError;

const PASSWORD: &str = "correct horse battery staple";

const TODO: [(&str, &str); 5] = [
    ("package_name", "com.example.todo"),
    ("name", "Todo App"),
    ("description", "Manage your to-do items"),
    ("version", "1.0.0"),
    ("public_url", "https://todo.example.com/"),
];

async fn signed_in(server: &TestServer, email: &str) -> Browser {
    let mut browser = Browser::new(server);
    let answer = browser.signup(email, PASSWORD).await;
    assert_eq!(answer.status, 302);
    browser
}

#[tokio::test]
async fn creating_an_app_goes_to_its_page_and_lists_it() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    alice.get("/console/apps/new").await;
    let answer = alice.form_post("/api/apps/create", &TODO).await;
    assert_eq!(answer.status, 302, "{answer:?}");
    assert_eq!(
        answer.location.as_deref(),
        Some("/console/apps/com.example.todo?created=1")
    );

    let page = alice.get("/console/apps/com.example.todo").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Todo App"));
    assert!(
        page.body.contains(r#"value="https://todo.example.com""#),
        "trailing slash dropped"
    );
    let list = alice.get("/console/apps").await;
    assert!(list
        .body
        .contains(r#"href="/console/apps/com.example.todo""#));
    server.stop().await;
}

#[tokio::test]
async fn another_developer_gets_not_found_from_every_app_function_and_changes_nothing() {
    for db in TestDatabase::all().await {
        let server = TestServer::start(db).await;
        let mut alice = signed_in(&server, "alice@example.com").await;
        alice.call("/api/apps/create", &TODO).await;
        let mut bob = signed_in(&server, "bob@example.com").await;

        let pkg = ("package_name", "com.example.todo");
        let get = bob.call("/api/apps/get", &[pkg]).await;
        assert_eq!(get.app_error(), AppError::NotFound);
        let page = bob.call("/api/apps/page", &[pkg]).await;
        assert_eq!(page.app_error(), AppError::NotFound);
        let save = bob
            .call(
                "/api/apps/save",
                &[
                    pkg,
                    ("revision", "1"),
                    ("name", "Hijacked"),
                    ("description", ""),
                    ("version", "9.9.9"),
                    ("public_url", "https://evil.example"),
                ],
            )
            .await;
        assert_eq!(save.app_error(), AppError::NotFound);
        let delete = bob
            .call(
                "/api/apps/delete",
                &[pkg, ("confirmation", "com.example.todo")],
            )
            .await;
        assert_eq!(delete.app_error(), AppError::NotFound);
        let list = bob.call("/api/apps/list", &[]).await;
        assert_eq!(list.body, "[]");

        // Pages say "not found", exactly as for an app that does not exist.
        let theirs = bob.get("/console/apps/com.example.todo").await;
        let nobodys = bob.get("/console/apps/com.example.nothing").await;
        assert_eq!(theirs.status, 404);
        assert_eq!(nobodys.status, 404);
        assert!(theirs.body.contains("Not found"));

        // Alice's app is untouched.
        let get = alice.call("/api/apps/get", &[pkg]).await;
        let app: serde_json::Value = serde_json::from_str(&get.body).unwrap();
        assert_eq!(app["name"], "Todo App");
        assert_eq!(app["revision"], 1);
        server.stop().await;
    }
}

#[tokio::test]
async fn app_functions_need_a_session() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut visitor = Browser::new(&server);
    assert_eq!(
        visitor.call("/api/apps/list", &[]).await.app_error(),
        AppError::Unauthorized
    );
    assert_eq!(
        visitor.call("/api/apps/create", &TODO).await.app_error(),
        AppError::Unauthorized
    );
    server.stop().await;
}

#[tokio::test]
async fn invalid_input_gets_field_errors_not_a_server_error() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    let answer = alice
        .call(
            "/api/apps/create",
            &[
                ("package_name", "Bad Name"),
                ("name", " "),
                ("description", ""),
                ("version", "1.0"),
                ("public_url", "ftp://x"),
            ],
        )
        .await;
    let AppError::Validation(errors) = answer.app_error() else {
        panic!("{answer:?}")
    };
    for field in ["package_name", "name", "version", "public_url"] {
        assert!(errors.first(field).is_some(), "{field}: {errors:?}");
    }
    assert_eq!(
        errors.echoed("package_name"),
        Some("Bad Name"),
        "typed input comes back"
    );

    // A field missing altogether, or a revision that is not a number, is a
    // clear error too, not a panic.
    let answer = alice
        .call("/api/apps/create", &[("package_name", "x.y.z")])
        .await;
    assert!(
        matches!(answer.app_error(), AppError::Transport(_)),
        "{answer:?}"
    );
    let answer = alice
        .call(
            "/api/apps/save",
            &[
                ("package_name", "x.y.z"),
                ("revision", "abc"),
                ("name", "n"),
                ("description", ""),
                ("version", "1.0.0"),
                ("public_url", "https://x"),
            ],
        )
        .await;
    assert!(
        matches!(answer.app_error(), AppError::Transport(_)),
        "{answer:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_taken_package_name_is_reported_on_its_field() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    alice.call("/api/apps/create", &TODO).await;
    let mut bob = signed_in(&server, "bob@example.com").await;
    let answer = bob.call("/api/apps/create", &TODO).await;
    let AppError::Validation(errors) = answer.app_error() else {
        panic!("{answer:?}")
    };
    assert!(errors
        .first("package_name")
        .unwrap()
        .contains("already taken"));
    server.stop().await;
}

/// The details form of the TODO app as posted, loaded at `revision`.
fn details_form(revision: &'static str, name: &'static str) -> [(&'static str, &'static str); 6] {
    [
        ("package_name", "com.example.todo"),
        ("revision", revision),
        ("name", name),
        ("description", "d"),
        ("version", "1.0.1"),
        ("public_url", "https://todo.example.com"),
    ]
}

#[tokio::test]
async fn saving_bumps_the_revision_and_a_stale_save_is_refused() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    alice.call("/api/apps/create", &TODO).await;
    let first = alice
        .call("/api/apps/save", &details_form("1", "Renamed"))
        .await;
    assert_eq!(first.status, 200, "{first:?}");
    let saved: serde_json::Value = serde_json::from_str(&first.body).unwrap();
    assert_eq!(saved["revision"], 2);
    assert_eq!(saved["name"], "Renamed");

    let stale = alice
        .call("/api/apps/save", &details_form("1", "Overwrite"))
        .await;
    assert_eq!(
        stale.app_error(),
        AppError::Conflict(
            "This app was changed elsewhere. Reload to see the latest version.".into()
        )
    );
    let get = alice
        .call("/api/apps/get", &[("package_name", "com.example.todo")])
        .await;
    let app: serde_json::Value = serde_json::from_str(&get.body).unwrap();
    assert_eq!(app["name"], "Renamed");
    server.stop().await;
}

#[tokio::test]
async fn fields_loaded_before_a_tool_change_save_on_top_of_it_but_not_over_a_change_to_them() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    alice.call("/api/apps/create", &TODO).await;
    // The form was loaded at revision 1; a tool is added meanwhile (2).
    let added = crate::common::json_call(
        &alice,
        "/api/tools/save",
        serde_json::json!({"package_name": "com.example.todo", "revision": 1, "original_id": null, "draft": {
            "tool_id": "add_todo", "description": "Add a new to-do item", "activation_phrases": "",
            "title": "", "max_calls": "", "hints": {}, "parameters": []
        }}),
    )
    .await;
    assert!(added.contains("add_todo"), "{added}");
    let on_top = alice
        .call("/api/apps/save", &details_form("1", "Renamed"))
        .await;
    assert_eq!(on_top.status, 200, "{on_top:?}");
    let saved: serde_json::Value = serde_json::from_str(&on_top.body).unwrap();
    assert_eq!(saved["revision"], 3);
    assert_eq!(saved["name"], "Renamed");
    let page = alice
        .call("/api/apps/page", &[("package_name", "com.example.todo")])
        .await;
    assert!(
        page.body.contains("add_todo"),
        "the tool is kept: {}",
        page.body
    );

    // Another tab deletes the tool (4). Fields loaded at 2, before the
    // rename at 3, would undo it: refused, whatever came after.
    let deleted = crate::common::json_call(
        &alice,
        "/api/tools/delete",
        serde_json::json!({"package_name": "com.example.todo", "revision": 3, "tool_id": "add_todo"}),
    )
    .await;
    assert!(deleted.contains("\"revision\":4"), "{deleted}");
    let stale = alice
        .call("/api/apps/save", &details_form("2", "Overwrite"))
        .await;
    assert!(
        matches!(stale.app_error(), AppError::Conflict(_)),
        "{stale:?}"
    );
    let get = alice
        .call("/api/apps/get", &[("package_name", "com.example.todo")])
        .await;
    let app: serde_json::Value = serde_json::from_str(&get.body).unwrap();
    assert_eq!(
        (app["name"].as_str(), app["revision"].as_i64()),
        (Some("Renamed"), Some(4))
    );
    server.stop().await;
}

#[tokio::test]
async fn the_package_name_cannot_be_changed_by_a_save() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    alice.call("/api/apps/create", &TODO).await;
    // The form's package name only identifies the app; there is no field to rename it.
    let answer = alice
        .call(
            "/api/apps/save",
            &[
                ("package_name", "com.example.todo"),
                ("revision", "1"),
                ("name", "x"),
                ("description", ""),
                ("version", "1.0.0"),
                ("public_url", "https://x.example"),
            ],
        )
        .await;
    let saved: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(saved["package_name"], "com.example.todo");
    server.stop().await;
}

#[tokio::test]
async fn deleting_needs_the_package_name_typed_and_then_removes_the_app() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    alice.call("/api/apps/create", &TODO).await;
    let pkg = ("package_name", "com.example.todo");
    let refused = alice
        .call("/api/apps/delete", &[pkg, ("confirmation", "yes")])
        .await;
    let AppError::Validation(errors) = refused.app_error() else {
        panic!("{refused:?}")
    };
    assert!(errors.first("confirmation").is_some());
    assert_eq!(
        alice.get("/console/apps/com.example.todo").await.status,
        200
    );

    // Without JavaScript the refusal comes back to the app page, whose
    // form keeps what was typed.
    let refused = alice
        .form_post(
            "/api/apps/delete",
            &[pkg, ("confirmation", "com.example.tod")],
        )
        .await;
    assert_eq!(refused.status, 302, "{refused:?}");
    let back = refused.location.expect("back to the app page");
    let back = back.split_once("://").map_or(back.as_str(), |(_, rest)| {
        &rest[rest.find('/').expect("a path")..]
    });
    assert!(back.starts_with("/console/apps/com.example.todo"), "{back}");
    let page = alice.get(back).await;
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .contains(r#"name="confirmation" type="text" value="com.example.tod""#),
        "{}",
        page.body
    );

    alice.get("/console/apps/com.example.todo").await;
    let done = alice
        .form_post(
            "/api/apps/delete",
            &[pkg, ("confirmation", "com.example.todo")],
        )
        .await;
    assert_eq!(done.status, 302);
    assert_eq!(
        done.location.as_deref(),
        Some("/console/apps?deleted=com.example.todo")
    );
    assert_eq!(
        alice.get("/console/apps/com.example.todo").await.status,
        404
    );
    server.stop().await;
}
