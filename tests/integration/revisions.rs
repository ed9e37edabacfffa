//! Revisions: every change recorded, concurrent saves, restore, atomic replace.

use crate::common::{tools, Browser, TestDatabase, TestServer};
use toolwright::{
    api::auth::CurrentDeveloper,
    domain::{
        app::AppInput,
        config::AppConfig,
        revision::Change,
        tool::{MoveDirection, ParamType, Parameter, Tool},
    },
    server::{
        repo::{self, apps::Revised, revisions::ToolWrite},
        Db,
    },
};

fn alice() -> CurrentDeveloper {
    CurrentDeveloper {
        id: 1,
        email: "alice@example.com".into(),
    }
}

async fn app(test_db: &TestDatabase) -> (Db, i64) {
    let db = Db::connect(&test_db.config()).await.expect("connect");
    db.migrate().await.expect("migrate");
    assert_eq!(
        repo::developers::create(&db, "alice@example.com", "h", 1)
            .await
            .unwrap(),
        1
    );
    let input = AppInput {
        package_name: "com.example.todo".into(),
        name: "Todo App".into(),
        description: "Manage your to-do items".into(),
        version: "1.0.0".into(),
        public_url: "https://todo.example.com".into(),
    };
    let id = repo::apps::create(
        &db,
        &alice(),
        crate::common::personal_org(&db, alice().id).await,
        &input,
        1,
    )
    .await
    .unwrap();
    (db, id)
}

fn tool(id: &str) -> Tool {
    Tool {
        id: id.into(),
        description: format!("The {id} tool"),
        activation_phrases: vec![format!("run {id}")],
        parameters: vec![Parameter {
            name: "item".into(),
            param_type: ParamType::String,
            description: "What".into(),
            required: true,
            enum_values: vec![],
            extra: Default::default(),
        }],
        ..Tool::default()
    }
}

async fn revision_of(db: &Db) -> i64 {
    crate::common::app_of(db, 1, "com.example.todo")
        .await
        .unwrap()
        .unwrap()
        .details
        .revision
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_saves_on_one_revision_let_exactly_one_win() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, app_id) = app(&test_db).await;
        let base = revision_of(&db).await;
        let tasks: Vec<_> = (0..20)
            .map(|i| {
                let db = db.clone();
                tokio::spawn(async move {
                    let result = tools::save(
                        &db,
                        app_id,
                        base,
                        None,
                        &tool(&format!("tool_{i}")),
                        &alice(),
                        10 + i,
                    )
                    .await;
                    (i, result)
                })
            })
            .collect();
        let mut winners = vec![];
        let mut stale = 0;
        for task in tasks {
            let (i, result) = task.await.unwrap();
            match result.unwrap_or_else(|e| panic!("{label}: save {i} failed: {e:?}")) {
                ToolWrite::Applied { .. } => winners.push(i),
                ToolWrite::Stale => stale += 1,
                other => panic!("{label}: unexpected {other:?}"),
            }
        }
        assert_eq!(winners.len(), 1, "{label}: exactly one save wins");
        assert_eq!(stale, 19, "{label}");
        let stored = tools::list_for_app(&db, app_id).await.unwrap();
        assert_eq!(
            stored,
            vec![tool(&format!("tool_{}", winners[0]))],
            "{label}: the winner's state"
        );
        assert_eq!(revision_of(&db).await, base + 1);
        let revisions = repo::revisions::list(&db, app_id).await.unwrap();
        assert_eq!(revisions.len(), 2, "{label}: created + the one save");
        db.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_detail_saves_let_exactly_one_win() {
    for test_db in TestDatabase::all().await {
        let (db, app_id) = app(&test_db).await;
        let tasks: Vec<_> = (0..20)
            .map(|i| {
                let db = db.clone();
                tokio::spawn(async move {
                    let input = AppInput {
                        package_name: "com.example.todo".into(),
                        name: format!("Name {i}"),
                        description: String::new(),
                        version: "1.0.0".into(),
                        public_url: "https://todo.example.com".into(),
                    };
                    (
                        i,
                        repo::apps::update(&db, app_id, 1, &input, &alice(), 5)
                            .await
                            .unwrap(),
                    )
                })
            })
            .collect();
        let mut winner = None;
        for task in tasks {
            let (i, outcome) = task.await.unwrap();
            if outcome == Revised::Applied(2) {
                assert!(winner.replace(i).is_none(), "two winners");
            } else {
                assert_eq!(outcome, Revised::Stale);
            }
        }
        let name = crate::common::app_of(&db, 1, "com.example.todo")
            .await
            .unwrap()
            .unwrap()
            .details
            .name;
        assert_eq!(
            name,
            format!("Name {}", winner.expect("one winner")),
            "{}",
            test_db.label()
        );
        db.close().await;
    }
}

#[tokio::test]
async fn every_change_is_recorded_with_its_author_summary_and_snapshot() {
    for test_db in TestDatabase::all().await {
        let (db, app_id) = app(&test_db).await;
        let me = alice();
        tools::save(&db, app_id, 1, None, &tool("add_todo"), &me, 2)
            .await
            .unwrap();
        tools::save(&db, app_id, 2, None, &tool("get_todos"), &me, 3)
            .await
            .unwrap();
        let mut renamed = tool("create_todo");
        renamed.description = "Renamed".into();
        tools::save(&db, app_id, 3, Some("add_todo"), &renamed, &me, 4)
            .await
            .unwrap();
        tools::move_tool(&db, app_id, 4, "get_todos", MoveDirection::Up, &me, 5)
            .await
            .unwrap();
        tools::delete(&db, app_id, 5, "create_todo", &me, 6)
            .await
            .unwrap();

        let list = repo::revisions::list(&db, app_id).await.unwrap();
        let summaries: Vec<(i64, &str)> = list
            .iter()
            .map(|r| (r.revision, r.summary.as_str()))
            .collect();
        assert_eq!(
            summaries,
            vec![
                (6, "Deleted tool create_todo"),
                (5, "Moved tool get_todos up"),
                (4, "Edited tool create_todo (was add_todo)"),
                (3, "Added tool get_todos"),
                (2, "Added tool add_todo"),
                (1, "Created the app"),
            ],
            "{}",
            test_db.label()
        );
        assert!(list.iter().all(|r| r.author == "alice@example.com"));

        let first = repo::revisions::get(&db, app_id, 1).await.unwrap().unwrap();
        assert_eq!(first.config.name, "Todo App");
        assert!(first.config.tools.is_empty());
        let fourth = repo::revisions::get(&db, app_id, 4).await.unwrap().unwrap();
        let ids: Vec<&str> = fourth.config.tools.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["create_todo", "get_todos"], "renamed in place");
        assert!(repo::revisions::get(&db, app_id, 99)
            .await
            .unwrap()
            .is_none());
        db.close().await;
    }
}

#[tokio::test]
async fn restoring_a_revision_brings_its_content_back_as_a_new_revision() {
    for test_db in TestDatabase::all().await {
        let (db, app_id) = app(&test_db).await;
        let me = alice();
        tools::save(&db, app_id, 1, None, &tool("first"), &me, 2)
            .await
            .unwrap();
        let mut edited = tool("first");
        edited.description = "Edited".into();
        tools::save(&db, app_id, 2, Some("first"), &edited, &me, 3)
            .await
            .unwrap();
        tools::save(&db, app_id, 3, None, &tool("second"), &me, 4)
            .await
            .unwrap();

        let old = repo::revisions::get(&db, app_id, 2).await.unwrap().unwrap();
        let outcome =
            repo::revisions::replace(&db, app_id, 4, &old.config, Change::Restored(2), &me, 5)
                .await
                .unwrap();
        assert_eq!(outcome, Revised::Applied(5));
        assert_eq!(
            tools::list_for_app(&db, app_id).await.unwrap(),
            vec![tool("first")]
        );
        let list = repo::revisions::list(&db, app_id).await.unwrap();
        assert_eq!(list[0].summary, "Restored revision 2");
        assert_eq!(
            list.len(),
            5,
            "{}: history is never rewritten",
            test_db.label()
        );

        // A restore based on a stale revision changes nothing.
        let again =
            repo::revisions::replace(&db, app_id, 4, &old.config, Change::Restored(2), &me, 6)
                .await
                .unwrap();
        assert_eq!(again, Revised::Stale);
        db.close().await;
    }
}

#[tokio::test]
async fn a_replace_with_a_repeated_tool_id_is_refused_and_changes_nothing() {
    for test_db in TestDatabase::all().await {
        let (db, app_id) = app(&test_db).await;
        let me = alice();
        tools::save(&db, app_id, 1, None, &tool("keep_me"), &me, 2)
            .await
            .unwrap();
        let before = tools::list_for_app(&db, app_id).await.unwrap();

        // The second tool repeats the first's id: refused, nothing written.
        let broken = AppConfig {
            name: "Changed".into(),
            description: String::new(),
            version: "9.9.9".into(),
            public_url: "https://changed.example.com".into(),
            settings: Some(serde_json::json!([{"type": "toggle"}])),
            extra: Default::default(),
            tools: vec![tool("dup").into(), tool("dup").into()],
        };
        let result = repo::revisions::replace(
            &db,
            app_id,
            2,
            &broken,
            Change::Imported { tools: 2 },
            &me,
            3,
        )
        .await;
        let error = result.expect_err("the duplicate fails the transaction");
        assert!(
            matches!(&error, repo::WriteError::Refused(toolwright::domain::AppError::Conflict(why)) if why.contains("dup")),
            "{}: {error:?}",
            test_db.label()
        );

        assert_eq!(tools::list_for_app(&db, app_id).await.unwrap(), before);
        let stored = crate::common::app_of(&db, 1, "com.example.todo")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.details.name, "Todo App");
        assert_eq!(stored.details.revision, 2);
        let config = repo::apps::load_config(&db, &stored).await.unwrap();
        assert_eq!(config.settings, None);
        assert_eq!(repo::revisions::list(&db, app_id).await.unwrap().len(), 2);
        db.close().await;
    }
}

#[tokio::test]
async fn the_history_page_and_restore_work_over_http_for_the_owner_only() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = Browser::new(&server);
    alice
        .signup("alice@example.com", "correct horse battery staple")
        .await;
    alice
        .call(
            "/api/apps/create",
            &[
                ("package_name", "com.example.todo"),
                ("name", "First name"),
                ("description", ""),
                ("version", "1.0.0"),
                ("public_url", "https://todo.example.com"),
            ],
        )
        .await;
    alice
        .call(
            "/api/apps/save",
            &[
                ("package_name", "com.example.todo"),
                ("revision", "1"),
                ("name", "Second name"),
                ("description", ""),
                ("version", "1.0.0"),
                ("public_url", "https://todo.example.com"),
            ],
        )
        .await;

    let page = alice
        .get("/console/apps/com.example.todo/history?revision=1")
        .await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Created the app"), "{}", page.body);
    assert!(page.body.contains("Edited the app"), "{}", page.body);
    // "Restore" on revision 1, not on the current one.
    assert_eq!(
        page.body.matches("Restore</button>").count(),
        1,
        "{}",
        page.body
    );
    assert!(
        page.body.contains("First name"),
        "the revision's JSON is shown"
    );

    // Without JavaScript to ask, a plain "Restore" first asks on the page.
    let asked = alice
        .form_post(
            "/api/history/restore",
            &[
                ("package_name", "com.example.todo"),
                ("revision", "1"),
                ("current_revision", "2"),
                ("confirmed", ""),
            ],
        )
        .await;
    assert_eq!(asked.status, 302);
    assert_eq!(
        asked.location.as_deref(),
        Some("/console/apps/com.example.todo/history?confirm_restore=1")
    );
    let page = alice
        .get("/console/apps/com.example.todo/history?confirm_restore=1")
        .await;
    assert!(
        page.body.contains("Yes, restore revision 1"),
        "{}",
        page.body
    );
    let answer = alice
        .form_post(
            "/api/history/restore",
            &[
                ("package_name", "com.example.todo"),
                ("revision", "1"),
                ("current_revision", "2"),
                ("confirmed", "yes"),
            ],
        )
        .await;
    assert_eq!(answer.status, 302);
    assert_eq!(
        answer.location.as_deref(),
        Some("/console/apps/com.example.todo/history?restored=1")
    );
    let app = alice
        .call("/api/apps/get", &[("package_name", "com.example.todo")])
        .await;
    let app: serde_json::Value = serde_json::from_str(&app.body).unwrap();
    assert_eq!(app["name"], "First name");
    assert_eq!(app["revision"], 3);

    let stale = alice
        .call(
            "/api/history/restore",
            &[
                ("package_name", "com.example.todo"),
                ("revision", "2"),
                ("current_revision", "2"),
            ],
        )
        .await;
    assert!(matches!(
        stale.app_error(),
        toolwright::api::AppError::Conflict(_)
    ));

    let mut bob = Browser::new(&server);
    bob.signup("bob@example.com", "correct horse battery staple")
        .await;
    assert_eq!(
        bob.get("/console/apps/com.example.todo/history")
            .await
            .status,
        404
    );
    let refused = bob
        .call(
            "/api/history/restore",
            &[
                ("package_name", "com.example.todo"),
                ("revision", "1"),
                ("current_revision", "3"),
            ],
        )
        .await;
    assert_eq!(refused.app_error(), toolwright::api::AppError::NotFound);
    server.stop().await;
}

async fn count(db: &Db, sql: &str, app_id: i64) -> i64 {
    toolwright::on_db!(db, pool => sqlx::query_scalar::<_, i64>(sql)
        .bind(app_id)
        .fetch_one(pool)
        .await)
    .unwrap()
}

#[tokio::test]
async fn a_revision_stores_only_the_tools_it_changed() {
    for test_db in TestDatabase::all().await {
        let (db, app_id) = app(&test_db).await;
        let me = alice();
        let tools: Vec<Tool> = (0..20).map(|i| tool(&format!("tool_{i}"))).collect();
        let config = AppConfig {
            name: "Todo App".into(),
            version: "1.0.0".into(),
            public_url: "https://todo.example.com".into(),
            tools: tools.iter().cloned().map(std::sync::Arc::new).collect(),
            ..AppConfig::default()
        };
        let imported = Change::Imported { tools: 20 };
        repo::revisions::replace(&db, app_id, 1, &config, imported, &me, 2)
            .await
            .unwrap();
        let stored = "SELECT COUNT(*) FROM revision_tools WHERE app_id = $1";
        assert_eq!(count(&db, stored, app_id).await, 20, "{}", test_db.label());

        // Editing one tool stores that one; moving and editing the app's
        // details store none; saving a tool back as it was stores none.
        let mut edited = tool("tool_3");
        edited.description = "Edited".into();
        tools::save(&db, app_id, 2, Some("tool_3"), &edited, &me, 3)
            .await
            .unwrap();
        assert_eq!(count(&db, stored, app_id).await, 21);
        tools::move_tool(&db, app_id, 3, "tool_3", MoveDirection::Up, &me, 4)
            .await
            .unwrap();
        let details = AppInput {
            package_name: "com.example.todo".into(),
            name: "Renamed".into(),
            description: String::new(),
            version: "1.0.1".into(),
            public_url: "https://todo.example.com".into(),
        };
        repo::apps::update(&db, app_id, 4, &details, &me, 5)
            .await
            .unwrap();
        tools::save(&db, app_id, 5, Some("tool_3"), &tool("tool_3"), &me, 6)
            .await
            .unwrap();
        assert_eq!(count(&db, stored, app_id).await, 21, "{}", test_db.label());

        // Every revision still reads back whole.
        let third = repo::revisions::get(&db, app_id, 3).await.unwrap().unwrap();
        assert_eq!(third.config.tools.len(), 20);
        assert_eq!(*third.config.tools[3], edited);
        let fourth = repo::revisions::get(&db, app_id, 4).await.unwrap().unwrap();
        assert_eq!(fourth.config.tools[2].id, "tool_3");
        let sixth = repo::revisions::get(&db, app_id, 6).await.unwrap().unwrap();
        assert_eq!(sixth.config.name, "Renamed");
        assert_eq!(
            sixth.config.tools,
            config.tools[..2]
                .iter()
                .chain([&config.tools[3], &config.tools[2]])
                .chain(&config.tools[4..])
                .cloned()
                .collect::<Vec<_>>()
        );
        db.close().await;
    }
}

#[tokio::test]
async fn a_revision_recorded_whole_before_tools_were_kept_by_content_still_reads() {
    for test_db in TestDatabase::all().await {
        let (db, app_id) = app(&test_db).await;
        let config = AppConfig {
            name: "Old".into(),
            version: "0.9.0".into(),
            public_url: "https://old.example.com".into(),
            tools: vec![tool("legacy").into()],
            ..AppConfig::default()
        };
        let snapshot = serde_json::to_string(&config).unwrap();
        toolwright::on_db!(&db, pool => sqlx::query(
            "INSERT INTO app_revisions (app_id, revision, author_id, author_email, created_at, summary, snapshot) \
             VALUES ($1, 42, NULL, 'someone@example.com', 0, 'From before', $2)",
        )
        .bind(app_id)
        .bind(&snapshot)
        .execute(pool)
        .await
        .map(|_| ()))
        .unwrap();
        let old = repo::revisions::get(&db, app_id, 42)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(old.config, config, "{}", test_db.label());
        db.close().await;
    }
}
