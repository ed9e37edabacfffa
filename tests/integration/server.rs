//! The real server on port 0, spoken to over real HTTP.

use crate::common::{TestDatabase, TestServer};

#[tokio::test]
async fn healthz_is_200_with_a_json_body_while_the_database_answers() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let response = reqwest::get(server.url("/healthz")).await.unwrap();
        assert_eq!(response.status(), 200, "{label}");
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "application/json",
            "{label}"
        );
        let body: serde_json::Value =
            serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"status": "ok", "database": "ok"}),
            "{label}"
        );
        server.stop().await;
    }
}

#[tokio::test]
async fn healthz_is_503_when_the_database_is_gone() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    server.state.db.close().await;
    let response = reqwest::get(server.url("/healthz")).await.unwrap();
    assert_eq!(response.status(), 503);
    let body: serde_json::Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body["status"], "unavailable");
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_path_is_a_404_page() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let response = reqwest::get(server.url("/definitely/not/here"))
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let body = response.text().await.unwrap();
    assert!(body.contains("Page not found"), "{body}");
    assert!(body.contains("<html"), "a full page: {body}");
    server.stop().await;
}

#[tokio::test]
async fn the_landing_page_is_server_rendered() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let response = reqwest::get(server.url("/")).await.unwrap();
    assert_eq!(response.status(), 200);
    let body = response.text().await.unwrap();
    assert!(
        body.contains("Define the AI tools your app exposes"),
        "{body}"
    );
    assert!(body.contains(r#"href="/signup""#), "{body}");
    assert!(body.contains(r#"href="/login""#), "{body}");
    // The island's first render is in the HTML already.
    assert!(body.contains("remind me to"), "{body}");
    server.stop().await;
}

#[tokio::test]
async fn the_exports_guide_the_checks_link_to_is_served_to_anyone() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let response = reqwest::get(server.url("/docs/exports")).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "text/html; charset=utf-8"
    );
    let text = response.text().await.unwrap();
    // A page of the console: its header, the guide's heading, its tables.
    assert!(text.contains(r#"<header class="site-header">"#), "{text}");
    assert!(text.contains("<h1>Exports: which field becomes what</h1>"));
    assert!(text.contains("<table>") && text.contains("<code>readOnlyHint</code>"));
    server.stop().await;
}

/// Started as a deployment starts it, on a site root without the browser
/// bundle, the console says which files are missing and does not start
/// (its pages would never become interactive).
#[tokio::test]
async fn the_binary_refuses_to_start_without_the_bundle_its_pages_ask_for() {
    let db = TestDatabase::sqlite();
    let site = tempfile::tempdir().unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright"));
    command
        .env("DATABASE_URL", &db.url)
        .env("LEPTOS_SITE_ADDR", crate::common::free_port().to_string())
        .env("LEPTOS_SITE_ROOT", site.path())
        .env("LEPTOS_HASH_FILES", "false");
    let output = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        tokio::task::spawn_blocking(move || command.output()),
    )
    .await
    .expect("it stops by itself")
    .unwrap()
    .unwrap();
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stdout);
    let script = site.path().join("pkg").join("toolwright.js");
    assert!(
        said.contains(&script.display().to_string()),
        "names the missing file: {said}"
    );
}

/// The request log names the route an invitation link took, never its
/// token — nor a `next=` that leads back to one.
#[tokio::test]
async fn an_invitation_token_never_reaches_the_request_log() {
    let db = TestDatabase::sqlite();
    let process =
        crate::common::ServerProcess::start_with(&db.url, &[("RUST_LOG", "info,tower_http=info")])
            .await;
    let token = "5ec7e7b0a1d2c3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8";
    let mut browser = process.browser(None);
    browser.get(&format!("/invitations/{token}")).await;
    browser
        .get(&format!("/login?next=%2Finvitations%2F{token}"))
        .await;
    let log = crate::common::poll_until(
        std::time::Duration::from_secs(10),
        || async { process.log() },
        |log| log.matches("finished processing request").count() >= 2,
    )
    .await;
    assert!(
        log.contains("/invitations/{token}"),
        "the route is logged: {log}"
    );
    assert!(!log.contains(token), "the token is not: {log}");
}
