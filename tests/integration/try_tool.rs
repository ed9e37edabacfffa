//! "Try a tool" over HTTP: safety when private targets are off, ownership,
//! throttling.

use crate::common::{json_call, Browser, TestDatabase, TestServer};
use serde_json::{json, Value};
use toolwright::api::AppError;

/// A developer whose app's server URL is `url`, with one tool `ping`.
async fn developer_with_tool(server: &TestServer, email: &str, url: &str) -> Browser {
    let mut browser = Browser::new(server);
    browser.signup(email, "correct horse battery staple").await;
    browser
        .call(
            "/api/apps/create",
            &[
                ("package_name", "com.example.todo"),
                ("name", "Todo"),
                ("description", ""),
                ("version", "1.0.0"),
                ("public_url", url),
            ],
        )
        .await;
    let saved = json_call(
        &browser,
        "/api/tools/save",
        json!({"package_name": "com.example.todo", "revision": 1, "original_id": null, "draft": {
            "tool_id": "ping", "description": "Ping", "activation_phrases": "", "title": "", "max_calls": "",
            "hints": {},
            "parameters": [{"name": "item", "param_type": "string", "description": "What", "required": true, "allowed_values": ""}]
        }}),
    )
    .await;
    assert!(saved.contains("ping"), "{saved}");
    browser
}

fn send_body() -> Value {
    json!({"package_name": "com.example.todo", "tool_id": "ping", "inputs": {"item": "milk"}, "user_id": "u@example.com"})
}

#[tokio::test]
async fn a_private_server_url_is_refused_when_private_targets_are_off() {
    for url in [
        "http://127.0.0.1:9",
        "http://localhost:9",
        "http://10.0.0.7",
        "http://169.254.169.254",
        "http://[::1]:9",
    ] {
        let server = TestServer::start(TestDatabase::sqlite()).await;
        assert!(!server.state.config.allow_private_targets);
        let alice = developer_with_tool(&server, "alice@example.com", url).await;
        let answer = json_call(&alice, "/api/tools/try", send_body()).await;
        let result: Value =
            serde_json::from_str(&answer).unwrap_or_else(|_| panic!("{url}: {answer}"));
        let blocked = result["delivery"]["Blocked"]
            .as_str()
            .unwrap_or_else(|| panic!("{url}: {answer}"));
        assert!(
            blocked.contains("TOOLWRIGHT_ALLOW_PRIVATE_TARGETS"),
            "{blocked}"
        );
        assert!(result["sent"]
            .as_str()
            .unwrap()
            .contains("\"toolId\": \"ping\""));
        server.stop().await;
    }
}

#[tokio::test]
async fn with_private_targets_allowed_a_refused_connection_is_reported() {
    let db = TestDatabase::sqlite();
    let mut config = db.config();
    config.allow_private_targets = true;
    let server = TestServer::start_with(db, config).await;
    let alice = developer_with_tool(&server, "alice@example.com", "http://127.0.0.1:9").await;
    let result: Value =
        serde_json::from_str(&json_call(&alice, "/api/tools/try", send_body()).await).unwrap();
    assert!(
        result["delivery"]["Unreachable"]
            .as_str()
            .unwrap()
            .contains("connect"),
        "{result}"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_call_is_checked_against_the_schema_first() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let alice = developer_with_tool(&server, "alice@example.com", "https://todo.example.com").await;
    let answer = json_call(
        &alice,
        "/api/tools/try",
        json!({"package_name": "com.example.todo", "tool_id": "ping", "inputs": {}, "user_id": ""}),
    )
    .await;
    let AppError::Validation(errors) = serde_json::from_str(&answer).unwrap() else {
        panic!("{answer}")
    };
    assert_eq!(errors.first("param.item"), Some("Required: enter a value"));
    assert!(errors.first("user_id").is_some());
    server.stop().await;
}

#[tokio::test]
async fn only_the_owner_can_send_and_sends_are_throttled() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let alice = developer_with_tool(&server, "alice@example.com", "http://10.0.0.7").await;
    let mut bob = Browser::new(&server);
    bob.signup("bob@example.com", "correct horse battery staple")
        .await;
    let refused = json_call(&bob, "/api/tools/try", send_body()).await;
    assert_eq!(
        serde_json::from_str::<AppError>(&refused).unwrap(),
        AppError::NotFound
    );
    let unknown = json_call(
        &alice,
        "/api/tools/try",
        json!({"package_name": "com.example.todo", "tool_id": "nope", "inputs": {}, "user_id": "u"}),
    )
    .await;
    assert_eq!(
        serde_json::from_str::<AppError>(&unknown).unwrap(),
        AppError::NotFound
    );

    for attempt in 0..30 {
        let answer = json_call(&alice, "/api/tools/try", send_body()).await;
        assert!(answer.contains("Blocked"), "attempt {attempt}: {answer}");
    }
    let throttled = json_call(&alice, "/api/tools/try", send_body()).await;
    assert!(
        matches!(
            serde_json::from_str::<AppError>(&throttled).unwrap(),
            AppError::TooManyRequests(_)
        ),
        "{throttled}"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_limit_on_sends_holds_across_server_processes() {
    use toolwright::{
        domain::throttle::ThrottlePolicy,
        server::{repo, Db},
    };
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        // Two servers' pools on one database, as two processes have.
        let one = Db::connect(&test_db.config()).await.expect("connect");
        one.migrate().await.expect("migrate");
        let two = Db::connect(&test_db.config()).await.expect("connect");
        let developer = repo::developers::create(&one, "dev@example.com", "h", 1)
            .await
            .unwrap();
        let policy = ThrottlePolicy {
            max_failures: 30,
            window_ms: 60_000,
        };
        let now = 1_000_000;
        // Forty sends at once, half through each server.
        let mut sends = tokio::task::JoinSet::new();
        for i in 0..40 {
            let db = if i % 2 == 0 { one.clone() } else { two.clone() };
            sends.spawn(async move { repo::tool_sends::record(&db, developer, now, policy).await });
        }
        let mut allowed = 0;
        while let Some(result) = sends.join_next().await {
            if result.unwrap().unwrap().is_none() {
                allowed += 1;
            }
        }
        assert_eq!(allowed, 30, "{label}");
        let refused = repo::tool_sends::record(&two, developer, now + 1_000, policy)
            .await
            .unwrap();
        assert_eq!(
            refused,
            Some(59_000),
            "{label}: until the first leaves the window"
        );
        // Once the minute has passed, sending is allowed again.
        let later = repo::tool_sends::record(&one, developer, now + 60_000, policy)
            .await
            .unwrap();
        assert_eq!(later, None, "{label}");
        one.close().await;
        two.close().await;
    }
}
