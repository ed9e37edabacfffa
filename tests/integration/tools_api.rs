//! Tool server functions over real HTTP: ownership and validation.

use crate::common::{delete_accounts, json_call_with_status, Browser, TestDatabase, TestServer};
use serde_json::{json, Value};
use toolwright::{api::AppError, domain::tool::ToolsState};

const PASSWORD: &str = "correct horse battery staple";

async fn signed_in(server: &TestServer, email: &str) -> Browser {
    let mut browser = Browser::new(server);
    assert_eq!(browser.signup(email, PASSWORD).await.status, 302);
    browser
}

/// `/api/tools/get` for tool `tool_id` of the todo app.
async fn get_tool(browser: &mut Browser, tool_id: &str) -> crate::common::Answer {
    browser
        .call(
            "/api/tools/get",
            &[("package_name", "com.example.todo"), ("tool_id", tool_id)],
        )
        .await
}

fn draft(id: &str) -> Value {
    json!({
        "tool_id": id,
        "description": "Add a new to-do item",
        "activation_phrases": " add a reminder, , Add a Reminder, remind me to",
        "title": "",
        "max_calls": "",
        "hints": {"readOnly": true, "openWorld": false},
        "parameters": [{
            "name": "todo_item",
            "param_type": "string",
            "description": "The to-do item text",
            "required": true,
            "allowed_values": ""
        }]
    })
}

async fn create_app(browser: &mut Browser) {
    browser
        .call(
            "/api/apps/create",
            &[
                ("package_name", "com.example.todo"),
                ("name", "Todo App"),
                ("description", ""),
                ("version", "1.0.0"),
                ("public_url", "https://todo.example.com"),
            ],
        )
        .await;
}

/// The todo app with one tool, `add_todo`, saved at revision 1 (the app
/// is then at revision 2).
async fn todo_app_with_add_todo(browser: &mut Browser) {
    create_app(browser).await;
    let (status, body) = json_call_with_status(
        browser,
        "/api/tools/save",
        json!({"package_name": "com.example.todo", "revision": 1, "original_id": null, "draft": draft("add_todo")}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

/// Every write to tool `add_todo` of the todo app at revision 2: replacing
/// it, adding another, deleting it, moving it.
fn writes_to_add_todo() -> [(&'static str, Value); 4] {
    [
        (
            "/api/tools/save",
            json!({"package_name": "com.example.todo", "revision": 2, "original_id": "add_todo", "draft": draft("hijacked")}),
        ),
        (
            "/api/tools/save",
            json!({"package_name": "com.example.todo", "revision": 2, "original_id": null, "draft": draft("planted")}),
        ),
        (
            "/api/tools/delete",
            json!({"package_name": "com.example.todo", "revision": 2, "tool_id": "add_todo"}),
        ),
        (
            "/api/tools/move",
            json!({"package_name": "com.example.todo", "revision": 2, "tool_id": "add_todo", "direction": "Down"}),
        ),
    ]
}

/// Each of [`writes_to_add_todo`], made by `browser`, is refused with `expected`.
async fn assert_writes_refused(browser: &Browser, expected: AppError) {
    for (path, body) in writes_to_add_todo() {
        let (status, answer) = json_call_with_status(browser, path, body).await;
        let error: AppError =
            serde_json::from_str(&answer).unwrap_or_else(|_| panic!("{path}: {answer}"));
        assert_eq!(error, expected, "{path}");
        assert_eq!(
            status,
            toolwright::server::http::server_fn_status(&expected).as_u16(),
            "{path}"
        );
    }
}

/// Alice's app still holds only `add_todo`, at revision 2.
async fn assert_nothing_written(alice: &mut Browser) {
    let list = alice
        .call("/api/tools/list", &[("package_name", "com.example.todo")])
        .await;
    let state: ToolsState = serde_json::from_str(&list.body).unwrap();
    assert_eq!(state.revision, 2, "nothing was written");
    let ids: Vec<&str> = state.tools.iter().map(|tool| tool.id.as_str()).collect();
    assert_eq!(ids, ["add_todo"]);
}

#[tokio::test]
async fn a_tool_is_saved_normalised_and_bumps_the_revision() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    create_app(&mut alice).await;
    let (status, body) = json_call_with_status(
        &alice,
        "/api/tools/save",
        json!({"package_name": "com.example.todo", "revision": 1, "original_id": null, "draft": draft("add_todo")}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // The answer is the new revision and the tool as saved (normalised)...
    let written: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(written["revision"], 2);
    let saved = &written["edit"]["Save"]["tool"];
    assert_eq!(saved["id"], "add_todo");
    assert_eq!(
        saved["activation_phrases"],
        json!(["add a reminder", "remind me to"])
    );
    // Decided hints as decided; the two not set are left out.
    assert_eq!(
        saved["hints"],
        json!({"readOnly": true, "openWorld": false})
    );
    // ...which is what the app now holds: in its list at a glance...
    let list = alice
        .call("/api/tools/list", &[("package_name", "com.example.todo")])
        .await;
    let state: Value = serde_json::from_str(&list.body).unwrap();
    assert_eq!(state["revision"], 2);
    // (a summary is [id, description, parameters, phrases, phrase count,
    // hints as letters: read-only yes, destructive and idempotent not set,
    // open world no])
    assert_eq!(
        state["tools"],
        json!([[
            "add_todo",
            saved["description"],
            saved["parameters"].as_array().unwrap().len(),
            ["add a reminder", "remind me to"],
            2,
            "y--n",
        ]])
    );
    // ...and whole, as the editor fetches it.
    let one = get_tool(&mut alice, "add_todo").await;
    let at: Value = serde_json::from_str(&one.body).unwrap();
    assert_eq!(at["revision"], 2);
    assert_eq!(&at["tool"], saved);
    let missing = get_tool(&mut alice, "nope").await;
    assert_eq!(missing.app_error(), AppError::NotFound);
    server.stop().await;
}

#[tokio::test]
async fn another_developers_save_delete_and_move_are_refused_and_change_nothing() {
    for db in TestDatabase::all().await {
        let server = TestServer::start(db).await;
        let mut alice = signed_in(&server, "alice@example.com").await;
        todo_app_with_add_todo(&mut alice).await;
        let mut bob = signed_in(&server, "bob@example.com").await;
        let list = bob
            .call("/api/tools/list", &[("package_name", "com.example.todo")])
            .await;
        assert_eq!(list.app_error(), AppError::NotFound);
        let one = get_tool(&mut bob, "add_todo").await;
        assert_eq!(one.app_error(), AppError::NotFound);

        assert_writes_refused(&bob, AppError::NotFound).await;
        assert_nothing_written(&mut alice).await;
        server.stop().await;
    }
}

#[tokio::test]
async fn an_invalid_tool_gets_a_validation_error_not_a_server_error() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    create_app(&mut alice).await;
    let mut bad = draft("bad id");
    bad["parameters"][0]["param_type"] = json!("number");
    bad["parameters"][0]["allowed_values"] = json!("1, 2");
    let (status_of_invalid, body) = json_call_with_status(
        &alice,
        "/api/tools/save",
        json!({"package_name": "com.example.todo", "revision": 1, "original_id": null, "draft": bad}),
    )
    .await;
    assert_eq!(status_of_invalid, 422, "invalid input is a 422, not a 500");
    let AppError::Validation(errors) = serde_json::from_str(&body).unwrap() else {
        panic!("{body}")
    };
    assert!(errors.first("tool_id").is_some());
    assert_eq!(
        errors.first("parameters[0].allowed_values"),
        Some("Allowed values are only for string parameters")
    );

    // A body that is not a tool at all.
    let (status, body) = json_call_with_status(
        &alice,
        "/api/tools/save",
        json!({"package_name": "com.example.todo", "draft": 7}),
    )
    .await;
    assert_eq!(status, 400, "a malformed request is a 400: {body}");
    let error: AppError = serde_json::from_str(&body).unwrap();
    assert!(matches!(error, AppError::Transport(_)), "{body}");
    server.stop().await;
}

#[tokio::test]
async fn a_stale_tool_save_is_a_conflict() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    create_app(&mut alice).await;
    let body = json!({"package_name": "com.example.todo", "revision": 1, "original_id": null, "draft": draft("add_todo")});
    assert_eq!(
        json_call_with_status(&alice, "/api/tools/save", body.clone())
            .await
            .0,
        200
    );
    let mut second = body;
    second["draft"] = draft("other_tool");
    let (_, answer) = json_call_with_status(&alice, "/api/tools/save", second).await;
    assert!(
        matches!(
            serde_json::from_str(&answer).unwrap(),
            AppError::Conflict(_)
        ),
        "{answer}"
    );
    server.stop().await;
}

#[tokio::test]
async fn tool_functions_need_a_session_and_change_nothing_without_one() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    todo_app_with_add_todo(&mut alice).await;

    // Someone without a session, who knows the app and the tool.
    let mut visitor = Browser::new(&server);
    let list = visitor
        .call("/api/tools/list", &[("package_name", "com.example.todo")])
        .await;
    assert_eq!(list.app_error(), AppError::Unauthorized);
    assert_eq!(
        get_tool(&mut visitor, "add_todo").await.app_error(),
        AppError::Unauthorized
    );
    assert_writes_refused(&visitor, AppError::Unauthorized).await;
    assert_nothing_written(&mut alice).await;
    server.stop().await;
}

#[tokio::test]
async fn a_deleted_developers_calls_are_refused_and_end_their_session() {
    for db in TestDatabase::all().await {
        let server = TestServer::start(db).await;
        let mut alice = signed_in(&server, "alice@example.com").await;
        create_app(&mut alice).await;
        let mut carol = signed_in(&server, "carol@example.com").await;
        let dave = signed_in(&server, "dave@example.com").await;
        // An operator deletes these accounts (the console has no way to);
        // alice's app goes with hers, and their session cookies live on.
        delete_accounts(
            &server,
            &["alice@example.com", "carol@example.com", "dave@example.com"],
        )
        .await;
        // Bob makes an app of the same name, with a tool.
        let mut bob = signed_in(&server, "bob@example.com").await;
        todo_app_with_add_todo(&mut bob).await;

        // A function of an app, and one of none: each session is refused
        // (not told the app is missing) and ends.
        let answer = alice
            .call("/api/tools/list", &[("package_name", "com.example.todo")])
            .await;
        assert_eq!(
            answer.app_error(),
            AppError::Unauthorized,
            "{}",
            server.db.label()
        );
        assert_eq!(answer.session_cookie(), Some(""), "{answer:?}");
        let answer = carol.call("/api/apps/list", &[]).await;
        assert_eq!(
            answer.app_error(),
            AppError::Unauthorized,
            "{}",
            server.db.label()
        );
        assert_eq!(answer.session_cookie(), Some(""), "{answer:?}");

        // Writes, the first of them with the session still held.
        assert_writes_refused(&dave, AppError::Unauthorized).await;
        assert_nothing_written(&mut bob).await;
        server.stop().await;
    }
}

#[tokio::test]
async fn hints_of_every_tool_are_one_revision_and_a_refused_form_keeps_the_choices() {
    use toolwright::domain::tool::{hints_echo_key, HintKind};
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    todo_app_with_add_todo(&mut alice).await;
    let choose = |open_world: &'static str| {
        [
            ("package_name", "com.example.todo"),
            ("revision", "2"),
            ("hints[0][tool_id]", "add_todo"),
            ("hints[0][read_only]", "no"),
            ("hints[0][destructive]", "no"),
            ("hints[0][idempotent]", ""),
            ("hints[0][open_world]", open_world),
        ]
    };
    // A plain form post (no JavaScript): saved as one revision, back to the page.
    let saved = alice.form_post("/api/tools/hints", &choose("yes")).await;
    assert_eq!(
        saved.location.as_deref(),
        Some("/console/apps/com.example.todo?hints=1#checks"),
        "{saved:?}"
    );
    let tool: Value = serde_json::from_str(&get_tool(&mut alice, "add_todo").await.body).unwrap();
    assert_eq!(tool["revision"], 3);
    assert_eq!(
        tool["tool"]["hints"],
        json!({"readOnly": false, "destructive": false, "openWorld": true})
    );
    let page = alice
        .get("/console/apps/com.example.todo/history")
        .await
        .body;
    assert!(page.contains("Decided the hints of add_todo"), "{page}");

    // Refused (the app has moved on since revision 2): the page comes back
    // with the error and what was chosen (Open world: no, where it is yes).
    let refused = alice.form_post("/api/tools/hints", &choose("no")).await;
    let location = refused.location.expect("back to the page");
    let err = location
        .split('&')
        .find_map(|pair| pair.strip_prefix("__err="))
        .expect("the error in the address");
    let err = percent_decode(err);
    let error = leptos::server_fn::error::ServerFnUrlError::<AppError>::decode_err(&err);
    assert!(error.is_conflict(), "{error:?}");
    let chosen = error.echoed_input().expect("the choices");
    assert_eq!(
        chosen.echoed(&hints_echo_key("add_todo", HintKind::OpenWorld)),
        Some("no")
    );
    assert_eq!(
        chosen.echoed(&hints_echo_key("add_todo", HintKind::Idempotent)),
        Some("")
    );
    // The hints page, drawn with that error, holds the choices.
    let query = location.split_once('?').map(|(_, q)| q).unwrap_or_default();
    let page = alice
        .get(&format!("/console/apps/com.example.todo/hints?{query}"))
        .await
        .body;
    assert!(page.contains("This app was changed elsewhere"), "{page}");
    let select = page
        .split(r#"id="hints-0-open_world""#)
        .nth(1)
        .and_then(|rest| rest.split("</select>").next())
        .expect("the Open world select of add_todo");
    assert!(select.contains(r#"value="no" selected"#), "{select}");
    // The same from a script: the conflict as it is.
    let stale = alice
        .call(
            "/api/tools/hints",
            &[("package_name", "com.example.todo"), ("revision", "2")],
        )
        .await;
    assert!(matches!(stale.app_error(), AppError::Conflict(_)));
    server.stop().await;
}

/// `%3D` and the like, as a URL's query carries them.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1..i + 3)) {
            (b'%', Some(hex)) => {
                let hex = std::str::from_utf8(hex).unwrap_or("00");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

/// The app page draws its checks once, as server HTML. The island that
/// follows the app carries how many lines they have, not the lines: a
/// large app's checks name every tool a rule concerns, and carrying them
/// in the island's props as well would double the page's heaviest part.
#[tokio::test]
async fn the_app_page_draws_its_checks_once_and_its_island_only_counts_them() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_in(&server, "alice@example.com").await;
    todo_app_with_add_todo(&mut alice).await;
    let page = alice.get("/console/apps/com.example.todo").await;
    assert_eq!(page.status, 200);

    // add_todo has no Title: the line saying so links to the field.
    let link = "?tool=add_todo&amp;field=title";
    assert_eq!(page.body.matches(link).count(), 1, "{}", page.body);
    let lines = page.body.matches(r#"<li class="finding "#).count();
    assert!(lines > 0);

    let props: Vec<&str> = page
        .body
        .split(r#"data-props=""#)
        .skip(1)
        .map(|rest| &rest[..rest.find('"').expect("the attribute ends")])
        .collect();
    assert!(!props.is_empty(), "the app page has islands");
    for island in &props {
        assert!(
            !island.contains("tools[0].title") && !island.contains("Give the tool a Title"),
            "an island's props repeat the checks: {island}"
        );
    }
    let count = format!("&quot;findings&quot;:{lines}");
    assert!(
        props.iter().any(|island| island.contains(&count)),
        "the app's island counts the {lines} lines: {props:?}"
    );
    server.stop().await;
}
