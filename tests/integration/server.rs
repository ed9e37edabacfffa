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
        "text/plain; charset=utf-8"
    );
    let text = response.text().await.unwrap();
    assert!(text.starts_with("# Exports: which field becomes what"));
    assert!(text.contains("`readOnlyHint`"));
    server.stop().await;
}
