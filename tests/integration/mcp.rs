//! The live MCP server over real HTTP, on SQLite and PostgreSQL: both
//! protocol versions, who may call, tools/list against the export, and
//! every way a tools/call can end.

use crate::common::{create_key, json_call, Browser, TestDatabase, TestServer};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use toolwright::{on_db, server::repo};

const PASSWORD: &str = "correct horse battery staple";

/// A Mentra app's `/tool` on loopback: answers by tool id and keeps every
/// ToolCall it received.
async fn stub_app() -> (String, Arc<Mutex<Vec<Value>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = received.clone();
    let router = axum::Router::new().route(
        "/tool",
        axum::routing::post(move |axum::Json(call): axum::Json<Value>| {
            let kept = kept.clone();
            async move {
                kept.lock().unwrap().push(call.clone());
                let (status, body) = match call["toolId"].as_str() {
                    Some("hand_over") => (
                        200,
                        json!({"status": "success", "reply": "GIVE_APP_CONTROL_OF_TOOL_RESPONSE"}),
                    ),
                    Some("fail") => (500, json!({"status": "error", "message": "The list is locked"})),
                    _ => (
                        200,
                        json!({"status": "success", "reply": format!("Added {}", call["toolParameters"]["todo_item"].as_str().unwrap_or("?"))}),
                    ),
                };
                (
                    axum::http::StatusCode::from_u16(status).unwrap(),
                    axum::Json(body),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    (url, received)
}

async fn developer(server: &TestServer, email: &str) -> Browser {
    let mut browser = Browser::new(server);
    assert_eq!(browser.signup(email, PASSWORD).await.status, 302);
    browser
}

async fn create_app(browser: &mut Browser, package: &str, url: &str) {
    browser
        .call(
            "/api/apps/create",
            &[
                ("package_name", package),
                ("name", "Todo App"),
                ("description", "Manage your to-do items"),
                ("version", "1.0.0"),
                ("public_url", url),
            ],
        )
        .await;
}

async fn add_tool(
    browser: &Browser,
    package: &str,
    revision: i64,
    id: &str,
    parameters: Value,
) -> i64 {
    let saved = json_call(
        browser,
        "/api/tools/save",
        json!({"package_name": package, "revision": revision, "original_id": null, "draft": {
            "tool_id": id, "description": format!("The {id} tool of the to-do list"), "activation_phrases": "",
            "title": "", "max_calls": "", "hints": {"readOnly": false}, "parameters": parameters
        }}),
    )
    .await;
    let written: Value = serde_json::from_str(&saved).unwrap_or_else(|_| panic!("{saved}"));
    written["revision"].as_i64().unwrap()
}

/// Alice's Todo App (server `url`) with `add_todo`, `hand_over` and `fail`.
async fn todo_app(server: &TestServer, url: &str) -> Browser {
    let mut alice = developer(server, "alice@example.com").await;
    create_app(&mut alice, "com.example.todo", url).await;
    let params = json!([
        {"name": "todo_item", "param_type": "string", "description": "The item", "required": true, "allowed_values": ""},
        {"name": "priority", "param_type": "string", "description": "How urgent", "required": false, "allowed_values": "low, high"}
    ]);
    let revision = add_tool(&alice, "com.example.todo", 1, "add_todo", params).await;
    let revision = add_tool(&alice, "com.example.todo", revision, "hand_over", json!([])).await;
    add_tool(&alice, "com.example.todo", revision, "fail", json!([])).await;
    alice
}

struct Rpc<'a> {
    server: &'a TestServer,
    path: String,
    key: Option<String>,
}

impl Rpc<'_> {
    /// POSTs one JSON-RPC message with the headers a client of `version`
    /// sends (none for `initialize`); the status, the headers and the body.
    async fn post_with(
        &self,
        body: Value,
        version: Option<&str>,
        extra: &[(&str, &str)],
    ) -> (u16, reqwest::header::HeaderMap, Value) {
        let mut request = reqwest::Client::new()
            .post(self.server.url(&self.path))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(key) = &self.key {
            request = request.header("authorization", format!("Bearer {key}"));
        }
        if let Some(version) = version {
            request = request.header("mcp-protocol-version", version);
        }
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        let response = request.body(body.to_string()).send().await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        (
            status,
            headers,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// A request of the 2025-11-25 protocol: the result (or the error).
    async fn call(&self, id: i64, method: &str, params: Value) -> Value {
        let (status, _, body) = self
            .post_with(
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
                Some("2025-11-25"),
                &[],
            )
            .await;
        assert_eq!(status, 200, "{method}: {body}");
        body
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1.0.0"}
    }})
}

/// The `meta` a 2026-07-28 request carries.
fn meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

#[tokio::test]
async fn clients_of_both_protocol_versions_list_the_mcp_export() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let (url, _) = stub_app().await;
        let mut config = db.config();
        config.allow_private_targets = true;
        let server = TestServer::start_with(db, config).await;
        let alice = todo_app(&server, &url).await;
        let key = create_key(&alice, "com.example.todo", "Claude").await;
        let rpc = Rpc {
            server: &server,
            path: "/mcp/com.example.todo".into(),
            key: Some(key.clone()),
        };

        // 2025-11-25, as today's TypeScript SDK speaks it: no session.
        let (status, headers, body) = rpc.post_with(initialize(), None, &[]).await;
        assert_eq!(status, 200, "{label}: {body}");
        assert!(
            !headers.contains_key("mcp-session-id"),
            "{label}: stateless"
        );
        assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(body["result"]["serverInfo"]["name"], "Toolwright");
        assert!(body["result"]["capabilities"]["tools"].is_object());
        let (status, _, _) = rpc
            .post_with(
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                Some("2025-11-25"),
                &[],
            )
            .await;
        assert_eq!(status, 202);
        let listed = rpc.call(2, "tools/list", json!({})).await;
        let export: Value = serde_json::from_str(
            &reqwest::Client::new()
                .get(server.url("/api/v1/apps/com.example.todo/config?format=mcp"))
                .header("authorization", format!("Bearer {key}"))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            listed["result"]["tools"], export["tools"],
            "{label}: the list is the export"
        );
        assert!(listed["result"].get("nextCursor").is_none());

        // 2026-07-28: discovery, then a list with the per-request metadata.
        let (status, _, discovered) = rpc
            .post_with(
                json!({"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {"_meta": meta_2026()}}),
                Some("2026-07-28"),
                &[("mcp-method", "server/discover")],
            )
            .await;
        assert_eq!(status, 200, "{label}: {discovered}");
        let versions = discovered["result"]["supportedVersions"].to_string();
        assert!(
            versions.contains("2026-07-28") && versions.contains("2025-11-25"),
            "{discovered}"
        );
        let (status, _, listed) = rpc
            .post_with(
                json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": meta_2026()}}),
                Some("2026-07-28"),
                &[("mcp-method", "tools/list")],
            )
            .await;
        assert_eq!(status, 200, "{label}: {listed}");
        assert_eq!(listed["result"]["tools"], export["tools"]);
        assert_eq!(listed["result"]["ttlMs"], 60_000);
        assert_eq!(listed["result"]["cacheScope"], "private");

        // A change is listed at once: the list is kept by revision.
        add_tool(&alice, "com.example.todo", 4, "later", json!([])).await;
        let listed = rpc.call(5, "tools/list", json!({})).await;
        let names: Vec<&str> = listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        assert_eq!(names, ["add_todo", "hand_over", "fail", "later"], "{label}");
        server.stop().await;
    }
}

/// `key` with its last digit changed.
fn tampered(key: &str) -> String {
    let (head, last) = key.split_at(key.len() - 1);
    format!("{head}{}", if last == "0" { "1" } else { "0" })
}

#[tokio::test]
async fn only_a_live_key_of_the_app_from_outside_a_foreign_page_may_call() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let alice = todo_app(&server, "https://todo.example.com").await;
        let key = create_key(&alice, "com.example.todo", "Claude").await;
        let mut bob = developer(&server, "bob@example.com").await;
        create_app(&mut bob, "com.example.other", "https://other.example.com").await;
        let bobs_key = create_key(&bob, "com.example.other", "Claude").await;
        let rpc = |key: Option<&str>, path: &str| Rpc {
            server: &server,
            path: path.into(),
            key: key.map(str::to_owned),
        };
        let todo = "/mcp/com.example.todo";

        for (key, expected) in [
            (None, 401),
            (Some(tampered(&key)), 401),
            (Some(bobs_key.clone()), 404),
        ] {
            let (status, headers, body) = rpc(key.as_deref(), todo)
                .post_with(initialize(), None, &[])
                .await;
            assert_eq!(status, expected, "{label}: {key:?} {body}");
            if expected == 401 {
                assert!(headers["www-authenticate"]
                    .to_str()
                    .unwrap()
                    .starts_with("Bearer"));
            }
        }
        // An unknown app answers as another's does.
        let (status, _, _) = rpc(Some(&key), "/mcp/com.example.nope")
            .post_with(initialize(), None, &[])
            .await;
        assert_eq!(status, 404);
        // A page of another site may not use a key it got hold of.
        let (status, _, _) = rpc(Some(&key), todo)
            .post_with(initialize(), None, &[("origin", "https://evil.example")])
            .await;
        assert_eq!(status, 403, "{label}");
        // A key limited to exports reads the config, and cannot connect.
        let made: Value = serde_json::from_str(
            &json_call(
                &alice,
                "/api/keys/create",
                json!({"package_name": "com.example.todo", "name": "CI", "export_only": true}),
            )
            .await,
        )
        .unwrap();
        let export_only = made["key"].as_str().unwrap().to_owned();
        assert_eq!(made["keys"][0]["export_only"], json!(true), "{label}");
        let (status, _, body) = rpc(Some(&export_only), todo)
            .post_with(initialize(), None, &[])
            .await;
        assert_eq!(status, 403, "{label}: {body}");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|m| m.contains("limited to exports")),
            "{body}"
        );
        let config = crate::common::api_get(
            &server,
            "/api/v1/apps/com.example.todo/config",
            Some(&export_only),
        )
        .await;
        assert_eq!(config.status(), 200, "{label}");
        let (status, _, _) = rpc(Some(&key), todo)
            .post_with(initialize(), None, &[])
            .await;
        assert_eq!(status, 200);

        // A revoked key is a stranger's.
        let keys: Value = serde_json::from_str(
            &json_call(
                &alice,
                "/api/keys/list",
                json!({"package_name": "com.example.todo"}),
            )
            .await,
        )
        .unwrap();
        let id = keys
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"] == "Claude")
            .and_then(|k| k["id"].as_i64())
            .unwrap();
        json_call(
            &alice,
            "/api/keys/revoke",
            json!({"package_name": "com.example.todo", "key_id": id}),
        )
        .await;
        let (status, _, _) = rpc(Some(&key), todo)
            .post_with(initialize(), None, &[])
            .await;
        assert_eq!(status, 401, "{label}");
        server.stop().await;
    }
}

#[tokio::test]
async fn a_tool_call_reaches_the_app_and_every_ending_is_a_tool_result() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let (url, received) = stub_app().await;
        let mut config = db.config();
        config.allow_private_targets = true;
        let server = TestServer::start_with(db, config).await;
        let alice = todo_app(&server, &url).await;
        let key = create_key(&alice, "com.example.todo", "Claude").await;
        let rpc = Rpc {
            server: &server,
            path: "/mcp/com.example.todo".into(),
            key: Some(key),
        };
        let call = |id: i64, name: &str, arguments: Value| {
            rpc.call(
                id,
                "tools/call",
                json!({"name": name, "arguments": arguments}),
            )
        };

        let said = call(
            1,
            "add_todo",
            json!({"todo_item": "milk", "priority": "high"}),
        )
        .await;
        assert_eq!(said["result"]["isError"], false, "{label}: {said}");
        assert_eq!(
            said["result"]["content"],
            json!([{"type": "text", "text": "Added milk"}])
        );
        let sent = received.lock().unwrap().last().cloned().unwrap();
        assert_eq!(sent["toolId"], "add_todo");
        assert_eq!(
            sent["toolParameters"],
            json!({"todo_item": "milk", "priority": "high"})
        );
        assert_eq!(sent["userId"], "alice@example.com");
        assert_eq!(sent["activeSession"], Value::Null);
        assert!(sent["timestamp"].as_str().unwrap().ends_with('Z'));

        // Arguments that do not fit never reach the app; the error names them.
        let before = received.lock().unwrap().len();
        let wrong = call(
            2,
            "add_todo",
            json!({"todo_item": "milk", "priority": "urgent"}),
        )
        .await;
        assert_eq!(wrong["result"]["isError"], true);
        assert!(wrong["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("“priority”"));
        let missing = call(3, "add_todo", json!({})).await;
        assert!(missing["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("“todo_item”"));
        assert_eq!(received.lock().unwrap().len(), before);

        // An unknown tool is the protocol's invalid params.
        let unknown = call(4, "no_such_tool", json!({})).await;
        assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

        let handed = call(5, "hand_over", json!({})).await;
        assert_eq!(handed["result"]["isError"], false);
        assert!(handed["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("answered the user itself"));
        let failed = call(6, "fail", json!({})).await;
        assert_eq!(failed["result"]["isError"], true);
        assert!(failed["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("The list is locked"));

        // Each call is in the Activity list, newest first.
        let app = repo::apps::find_by_package(&server.state.db, "com.example.todo")
            .await
            .unwrap()
            .unwrap();
        let activity = repo::mcp_calls::list(&server.state.db, app.id, None, 10)
            .await
            .unwrap();
        let tools: Vec<&str> = activity.iter().map(|a| a.tool_id.as_str()).collect();
        assert_eq!(
            tools,
            ["fail", "hand_over", "add_todo", "add_todo", "add_todo"],
            "{label}"
        );
        assert!(activity[0].is_error && !activity[1].is_error);
        assert_eq!(
            activity[4].arguments,
            r#"{"todo_item":"milk","priority":"high"}"#
        );
        assert_eq!(activity[4].outcome, "Added milk");
        // Each is shown with who made the key it came with.
        assert!(
            activity
                .iter()
                .all(|a| a.by.as_deref() == Some("alice@example.com")),
            "{label}"
        );
        server.stop().await;
    }
}

#[tokio::test]
async fn an_app_that_is_down_is_a_tool_error_not_a_transport_failure() {
    let db = TestDatabase::sqlite();
    let mut config = db.config();
    config.allow_private_targets = true;
    let server = TestServer::start_with(db, config).await;
    let alice = todo_app(&server, "http://127.0.0.1:9").await;
    let rpc = Rpc {
        server: &server,
        path: "/mcp/com.example.todo".into(),
        key: Some(create_key(&alice, "com.example.todo", "Claude").await),
    };
    let down = rpc
        .call(
            1,
            "tools/call",
            json!({"name": "add_todo", "arguments": {"todo_item": "milk"}}),
        )
        .await;
    assert_eq!(down["result"]["isError"], true, "{down}");
    let text = down["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("could not be reached") && text.contains("http://127.0.0.1:9"),
        "{text}"
    );
    server.stop().await;
}

/// Rows of the per-minute counts in the database (of tool calls only).
async fn counted_minutes(server: &TestServer) -> i64 {
    on_db!(&server.state.db, pool => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM mcp_request_counts"
    )
    .fetch_one(pool)
    .await)
    .unwrap()
}

#[tokio::test]
async fn over_its_limit_a_key_gets_an_error_the_client_can_show() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let alice = todo_app(&server, "https://todo.example.com").await;
        let rpc = Rpc {
            server: &server,
            path: "/mcp/com.example.todo".into(),
            key: Some(create_key(&alice, "com.example.todo", "Claude").await),
        };
        // A call reaches the app's server: counted in the database, across
        // processes. The rest of the minute's allowance (and the next
        // minute's, should the clock turn now), as other processes would
        // have counted it.
        let limit = server.state.config.mcp_requests_per_minute as i64;
        assert_eq!(limit, 120, "the default");
        let minute = toolwright::server::clock::now_ms() / 60_000;
        for minute in [minute, minute + 1] {
            on_db!(&server.state.db, pool => sqlx::query(
                "INSERT INTO mcp_request_counts (key_id, minute, count) SELECT id, $1, $2 FROM api_keys \
                 WHERE true ON CONFLICT (key_id, minute) DO UPDATE SET count = excluded.count",
            )
            .bind(minute)
            .bind(limit)
            .execute(pool)
            .await
            .map(|_| ()))
            .unwrap();
        }
        let refused = rpc
            .call(
                2,
                "tools/call",
                json!({"name": "add_todo", "arguments": {"todo_item": "milk"}}),
            )
            .await;
        assert_eq!(refused["error"]["code"], -32000, "{label}: {refused}");
        assert!(refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Try again in"));
        // A list costs only the console: the database's count does not
        // stop it.
        assert!(rpc.call(3, "tools/list", json!({})).await["result"].is_object());
        server.stop().await;
    }
}

#[tokio::test]
async fn listing_tools_writes_nothing_and_is_limited_in_the_process() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let mut config = db.config();
        config.mcp_requests_per_minute = 3;
        let server = TestServer::start_with(db, config).await;
        let alice = todo_app(&server, "https://todo.example.com").await;
        let rpc = Rpc {
            server: &server,
            path: "/mcp/com.example.todo".into(),
            key: Some(create_key(&alice, "com.example.todo", "Claude").await),
        };
        for id in 1..=3 {
            let listed = rpc.call(id, "tools/list", json!({})).await;
            assert!(listed["result"]["tools"].is_array(), "{label}: {listed}");
        }
        assert_eq!(
            counted_minutes(&server).await,
            0,
            "{label}: no count written"
        );
        let refused = rpc.call(4, "tools/list", json!({})).await;
        assert_eq!(refused["error"]["code"], -32000, "{label}: {refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("made 3 requests this minute")),
            "{label}: {refused}"
        );
        // Another key has its own allowance.
        let other = Rpc {
            key: Some(create_key(&alice, "com.example.todo", "Cursor").await),
            ..rpc
        };
        assert!(other.call(5, "tools/list", json!({})).await["result"].is_object());
        server.stop().await;
    }
}

#[tokio::test]
async fn a_large_app_lists_its_tools_in_pages() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = developer(&server, "alice@example.com").await;
    create_app(&mut alice, "com.example.big", "https://big.example.com").await;
    let mut revision = 1;
    for n in 0..55 {
        revision = add_tool(
            &alice,
            "com.example.big",
            revision,
            &format!("tool_{n:02}"),
            json!([]),
        )
        .await;
    }
    let rpc = Rpc {
        server: &server,
        path: "/mcp/com.example.big".into(),
        key: Some(create_key(&alice, "com.example.big", "Claude").await),
    };
    let first = rpc.call(1, "tools/list", json!({})).await;
    assert_eq!(first["result"]["tools"].as_array().unwrap().len(), 50);
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_owned();
    let rest = rpc.call(2, "tools/list", json!({"cursor": cursor})).await;
    let names: Vec<&str> = rest["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["tool_50", "tool_51", "tool_52", "tool_53", "tool_54"]
    );
    assert!(rest["result"].get("nextCursor").is_none());
    let bad = rpc
        .call(3, "tools/list", json!({"cursor": "nonsense"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    server.stop().await;
}

/// The Activity page of an app with thousands of calls kept reads its
/// newest twenty by the index, not by sorting every call: the app page
/// stays as quick as the calls pile up. A plan that sorts is the defect.
#[tokio::test]
async fn the_activity_page_is_read_by_index_however_many_calls_are_kept() {
    use toolwright::server::db::Pool;
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let _alice = todo_app(&server, "https://todo.example.com").await;
        let app = repo::apps::find_by_package(&server.state.db, "com.example.todo")
            .await
            .unwrap()
            .unwrap();
        let now = toolwright::server::clock::now_ms();
        on_db!(&server.state.db, pool => sqlx::query(
            "INSERT INTO mcp_calls (app_id, key_id, tool_id, arguments, called_at, duration_ms, outcome, is_error) \
             SELECT $1, NULL, 'add_todo', '{}', $2 + n, 3, 'Added', false \
             FROM (WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 3000) \
                   SELECT n FROM seq) AS calls",
        )
        .bind(app.id)
        .bind(now)
        .execute(pool)
        .await
        .map(|_| ()))
        .unwrap();
        let plan: Vec<String> = match server.state.db.pool() {
            Pool::Sqlite(pool) => sqlx::query_as::<_, (i64, i64, i64, String)>(&format!(
                "EXPLAIN QUERY PLAN {}",
                repo::mcp_calls::ACTIVITY_PAGE
            ))
            .bind(app.id)
            .bind(None::<i64>)
            .bind(21_i64)
            .fetch_all(pool)
            .await
            .unwrap()
            .into_iter()
            .map(|(_, _, _, detail)| detail)
            .collect(),
            Pool::Postgres(pool) => {
                sqlx::query("ANALYZE mcp_calls")
                    .execute(pool)
                    .await
                    .unwrap();
                sqlx::query_scalar::<_, String>(&format!(
                    "EXPLAIN {}",
                    repo::mcp_calls::ACTIVITY_PAGE
                ))
                .bind(app.id)
                .bind(None::<i64>)
                .bind(21_i64)
                .fetch_all(pool)
                .await
                .unwrap()
            }
        };
        let plan = plan.join("\n");
        // PostgreSQL may walk the primary key backwards instead, as cheap.
        if label == "sqlite" {
            assert!(plan.contains("mcp_calls_app_recent"), "{label}: {plan}");
        }
        assert!(
            !plan.contains("TEMP B-TREE") && !plan.contains("Sort"),
            "{label}: the page sorts the calls: {plan}"
        );
        let page = repo::mcp_calls::list(&server.state.db, app.id, None, 21)
            .await
            .unwrap();
        assert_eq!(page.len(), 21, "{label}");
        assert_eq!(page[0].called_at, now + 3000, "{label}: newest first");
        server.stop().await;
    }
}

#[tokio::test]
async fn the_activity_list_comes_newest_first_a_page_at_a_time_and_only_to_its_owner() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = todo_app(&server, "https://todo.example.com").await;
    let app = repo::apps::find_by_package(&server.state.db, "com.example.todo")
        .await
        .unwrap()
        .unwrap();
    let now = toolwright::server::clock::now_ms();
    for n in 0..25 {
        let arguments = format!("{{\"n\":{n}}}");
        repo::mcp_calls::log(
            &server.state.db,
            &repo::mcp_calls::CallRecord {
                app_id: app.id,
                key_id: None,
                tool_id: "add_todo",
                arguments: &arguments,
                called_at: now + n,
                duration_ms: 3,
                outcome: "Added",
                is_error: false,
            },
        )
        .await
        .unwrap();
    }
    let panel = |answer: crate::common::Answer| -> Value {
        assert_eq!(answer.status, 200, "{}", answer.body);
        serde_json::from_str(&answer.body).unwrap()
    };
    let first = panel(
        alice
            .call("/api/mcp/panel", &[("package_name", "com.example.todo")])
            .await,
    );
    assert!(first["endpoint"]
        .as_str()
        .unwrap()
        .ends_with("/mcp/com.example.todo"));
    let shown: Vec<&str> = first["activity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["arguments"].as_str().unwrap())
        .collect();
    assert_eq!(shown.len(), 20);
    assert_eq!(shown[0], r#"{"n":24}"#, "newest first");
    let older = first["older"].as_i64().expect("a next page").to_string();
    let second = panel(
        alice
            .call(
                "/api/mcp/panel",
                &[("package_name", "com.example.todo"), ("before", &older)],
            )
            .await,
    );
    let rest: Vec<&str> = second["activity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["arguments"].as_str().unwrap())
        .collect();
    assert_eq!(
        rest,
        [
            r#"{"n":4}"#,
            r#"{"n":3}"#,
            r#"{"n":2}"#,
            r#"{"n":1}"#,
            r#"{"n":0}"#
        ]
    );
    assert!(second["older"].is_null());

    let mut bob = developer(&server, "bob@example.com").await;
    let answer = bob
        .call("/api/mcp/panel", &[("package_name", "com.example.todo")])
        .await;
    assert_eq!(answer.app_error(), toolwright::api::AppError::NotFound);
    let answer = bob
        .call("/api/mcp/test", &[("package_name", "com.example.todo")])
        .await;
    assert_eq!(answer.app_error(), toolwright::api::AppError::NotFound);
    let tested = alice
        .call("/api/mcp/test", &[("package_name", "com.example.todo")])
        .await;
    assert!(
        tested
            .body
            .contains("tools/list gives 3 tools: add_todo, hand_over, fail"),
        "{}",
        tested.body
    );
    server.stop().await;
}

#[tokio::test]
async fn calls_older_than_the_time_they_are_kept_are_forgotten() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let _alice = todo_app(&server, "https://todo.example.com").await;
    let app = repo::apps::find_by_package(&server.state.db, "com.example.todo")
        .await
        .unwrap()
        .unwrap();
    let record = |called_at: i64| repo::mcp_calls::CallRecord {
        app_id: app.id,
        key_id: None,
        tool_id: "add_todo",
        arguments: "{}",
        called_at,
        duration_ms: 1,
        outcome: "Added",
        is_error: false,
    };
    let now = toolwright::server::clock::now_ms();
    repo::mcp_calls::log(
        &server.state.db,
        &record(now - repo::mcp_calls::KEPT_FOR_MS - 1),
    )
    .await
    .unwrap();
    repo::mcp_calls::log(&server.state.db, &record(now))
        .await
        .unwrap();
    let kept = repo::mcp_calls::list(&server.state.db, app.id, None, 10)
        .await
        .unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].called_at, now);
    server.stop().await;
}
