//! The tools repository on real SQLite and PostgreSQL.

use std::{future::Future, pin::pin, task::Poll, time::Duration};

use crate::common::{owned, tools, TestDatabase};
use toolwright::{
    api::auth::CurrentDeveloper,
    domain::{
        app::AppInput,
        tool::{MoveDirection, ParamType, Parameter, Tool, ToolHints},
    },
    server::{
        repo::{self, revisions::ToolWrite},
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
    let owner = repo::developers::create(&db, "alice@example.com", "h", 1)
        .await
        .unwrap();
    let input = AppInput {
        package_name: "com.example.todo".into(),
        name: "Todo App".into(),
        description: String::new(),
        version: "1.0.0".into(),
        public_url: "https://todo.example.com".into(),
    };
    assert_eq!(owner, alice().id);
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

fn param(name: &str, param_type: ParamType, required: bool) -> Parameter {
    Parameter {
        name: name.into(),
        param_type,
        description: format!("The {name}"),
        required,
        enum_values: vec![],
        extra: Default::default(),
    }
}

fn add_todo() -> Tool {
    Tool {
        id: "add_todo".into(),
        description: "Add a new to-do item".into(),
        activation_phrases: vec!["add a reminder".into(), "create a todo".into()],
        parameters: vec![
            param("todo_item", ParamType::String, true),
            Parameter {
                enum_values: vec!["low".into(), "high".into()],
                ..param("priority", ParamType::String, false)
            },
        ],
        title: Some("Add a to-do".into()),
        max_calls: Some(3),
        hints: ToolHints {
            idempotent: Some(true),
            read_only: Some(false),
            ..ToolHints::default()
        },
        extra: Default::default(),
    }
}

fn get_todos() -> Tool {
    Tool {
        id: "get_todos".into(),
        description: "Get all to-do items".into(),
        parameters: vec![param("include_completed", ParamType::Boolean, false)],
        ..Tool::default()
    }
}

fn applied(write: ToolWrite) -> (i64, Vec<Tool>) {
    match write {
        ToolWrite::Applied { revision, config } => (revision, owned(&config.tools)),
        other => panic!("expected the write to apply, got {other:?}"),
    }
}

#[tokio::test]
async fn a_tool_with_parameters_is_saved_updated_reordered_and_deleted() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, app_id) = app(&test_db).await;

        let (revision, tools) = applied(
            tools::save(&db, app_id, 1, None, &add_todo(), &alice(), 2)
                .await
                .unwrap(),
        );
        assert_eq!(revision, 2, "{label}");
        assert_eq!(tools, vec![add_todo()], "{label}: everything round-trips");
        let (revision, tools) = applied(
            tools::save(&db, app_id, 2, None, &get_todos(), &alice(), 3)
                .await
                .unwrap(),
        );
        assert_eq!(revision, 3);
        assert_eq!(
            tools.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
            ["add_todo", "get_todos"]
        );
        assert_eq!(tools::list_for_app(&db, app_id).await.unwrap(), tools);

        // Update: rename, drop a parameter, reorder the rest.
        let mut changed = add_todo();
        changed.id = "create_todo".into();
        changed.parameters = vec![
            param("due_date", ParamType::String, false),
            param("todo_item", ParamType::String, true),
        ];
        let (revision, tools) = applied(
            tools::save(&db, app_id, 3, Some("add_todo"), &changed, &alice(), 4)
                .await
                .unwrap(),
        );
        assert_eq!(revision, 4);
        assert_eq!(tools[0], changed, "{label}: same place, new content");

        let (revision, tools) = applied(
            tools::move_tool(&db, app_id, 4, "get_todos", MoveDirection::Up, &alice(), 5)
                .await
                .unwrap(),
        );
        assert_eq!(revision, 5);
        assert_eq!(
            tools.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
            ["get_todos", "create_todo"]
        );

        let (revision, tools) = applied(
            tools::delete(&db, app_id, 5, "get_todos", &alice(), 6)
                .await
                .unwrap(),
        );
        assert_eq!(revision, 6);
        assert_eq!(tools, vec![changed]);
        assert_eq!(
            tools::delete(&db, app_id, 6, "get_todos", &alice(), 7)
                .await
                .unwrap(),
            ToolWrite::NotFound
        );
        db.close().await;
    }
}

#[tokio::test]
async fn a_refused_save_leaves_the_stored_tools_unchanged() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, app_id) = app(&test_db).await;
        applied(
            tools::save(&db, app_id, 1, None, &add_todo(), &alice(), 2)
                .await
                .unwrap(),
        );
        applied(
            tools::save(&db, app_id, 2, None, &get_todos(), &alice(), 3)
                .await
                .unwrap(),
        );
        let before = tools::list_for_app(&db, app_id).await.unwrap();

        // Stale revision.
        let mut edit = add_todo();
        edit.description = "Changed".into();
        assert_eq!(
            tools::save(&db, app_id, 2, Some("add_todo"), &edit, &alice(), 4)
                .await
                .unwrap(),
            ToolWrite::Stale,
            "{label}"
        );
        // Renaming onto another tool's id: refused by the database, rolled back.
        let mut clash = add_todo();
        clash.id = "get_todos".into();
        assert_eq!(
            tools::save(&db, app_id, 3, Some("add_todo"), &clash, &alice(), 4)
                .await
                .unwrap(),
            ToolWrite::DuplicateId,
            "{label}"
        );
        assert_eq!(
            tools::save(&db, app_id, 3, None, &get_todos(), &alice(), 4)
                .await
                .unwrap(),
            ToolWrite::DuplicateId
        );
        // Editing a tool that is not there.
        assert_eq!(
            tools::save(&db, app_id, 3, Some("nope"), &edit, &alice(), 4)
                .await
                .unwrap(),
            ToolWrite::NotFound
        );
        assert_eq!(
            tools::list_for_app(&db, app_id).await.unwrap(),
            before,
            "{label}"
        );
        let stored = crate::common::app_of(&db, 1, "com.example.todo")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            stored.details.revision, 3,
            "{label}: no refused write bumped the revision"
        );
        // The next write lands alone: nothing of the refused ones (rolled
        // back on the same writing connection) rides along with it.
        let (revision, tools) = applied(
            tools::save(&db, app_id, 3, Some("add_todo"), &edit, &alice(), 5)
                .await
                .unwrap(),
        );
        let expected = vec![edit.clone(), before[1].clone()];
        assert_eq!((revision, &tools), (4, &expected), "{label}");
        assert_eq!(
            tools::list_for_app(&db, app_id).await.unwrap(),
            expected,
            "{label}"
        );
        db.close().await;
    }
}

#[tokio::test]
async fn deleting_an_app_deletes_its_tools() {
    for test_db in TestDatabase::all().await {
        let (db, app_id) = app(&test_db).await;
        applied(
            tools::save(&db, app_id, 1, None, &add_todo(), &alice(), 2)
                .await
                .unwrap(),
        );
        assert!(repo::apps::delete(&db, app_id, alice().id).await.unwrap());
        assert!(
            tools::list_for_app(&db, app_id).await.unwrap().is_empty(),
            "{}",
            test_db.label()
        );
        let orphans: i64 = toolwright::on_db!(&db, pool => sqlx::query_scalar::<_, i64>(
            "SELECT COUNT(*) FROM revision_tools"
        )
        .fetch_one(pool)
        .await)
        .unwrap();
        assert_eq!(orphans, 0);
        db.close().await;
    }
}

#[tokio::test]
async fn moving_the_first_tool_up_keeps_the_order() {
    let test_db = TestDatabase::sqlite();
    let (db, app_id) = app(&test_db).await;
    applied(
        tools::save(&db, app_id, 1, None, &add_todo(), &alice(), 2)
            .await
            .unwrap(),
    );
    applied(
        tools::save(&db, app_id, 2, None, &get_todos(), &alice(), 3)
            .await
            .unwrap(),
    );
    let (_, tools) = applied(
        tools::move_tool(&db, app_id, 3, "add_todo", MoveDirection::Up, &alice(), 4)
            .await
            .unwrap(),
    );
    assert_eq!(
        tools.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["add_todo", "get_todos"]
    );
    let (_, tools) = applied(
        tools::move_tool(
            &db,
            app_id,
            4,
            "get_todos",
            MoveDirection::Down,
            &alice(),
            5,
        )
        .await
        .unwrap(),
    );
    assert_eq!(
        tools.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["add_todo", "get_todos"]
    );
    db.close().await;
}

/// The app as the database has it now, read without any cache: a fresh
/// connection sees only what is stored.
async fn stored_config(test_db: &TestDatabase) -> toolwright::domain::config::AppConfig {
    let fresh = Db::connect(&test_db.config()).await.expect("connect");
    let app = repo::apps::find_by_package(&fresh, "com.example.todo")
        .await
        .unwrap()
        .unwrap();
    let config = repo::apps::load_config(&fresh, &app).await.unwrap();
    fresh.close().await;
    (*config).clone()
}

#[tokio::test]
async fn an_app_loaded_before_a_change_gets_its_configuration_at_that_revision() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, app_id) = app(&test_db).await;
        applied(
            tools::save(&db, app_id, 1, None, &add_todo(), &alice(), 2)
                .await
                .unwrap(),
        );
        // A page loads the app at revision 2; a save lands before it has
        // read the tools (and nothing is cached where it reads).
        let fresh = Db::connect(&test_db.config()).await.expect("connect");
        let loaded = repo::apps::find_by_package(&fresh, "com.example.todo")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(loaded.details.revision, 2, "{label}");
        applied(
            tools::save(&db, app_id, 2, None, &get_todos(), &alice(), 3)
                .await
                .unwrap(),
        );
        let config = repo::apps::load_config(&fresh, &loaded).await.unwrap();
        assert_eq!(
            owned(&config.tools),
            vec![add_todo()],
            "{label}: the tools at revision 2, not the newer ones"
        );
        assert_eq!(config.name, "Todo App", "{label}");
        // The app as it is now is still read as it is now.
        let now = repo::apps::find_by_package(&fresh, "com.example.todo")
            .await
            .unwrap()
            .unwrap();
        let config = repo::apps::load_config(&fresh, &now).await.unwrap();
        assert_eq!(
            config
                .tools
                .iter()
                .map(|t| t.id.as_str())
                .collect::<Vec<_>>(),
            ["add_todo", "get_todos"],
            "{label}"
        );
        fresh.close().await;
        db.close().await;
    }
}

#[tokio::test]
async fn the_configuration_worked_out_from_the_cache_is_the_stored_one() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, app_id) = app(&test_db).await;
        let me = alice();
        let renamed = Tool {
            id: "create_todo".into(),
            description: "Create a to-do item".into(),
            ..add_todo()
        };
        let mut revision = 1;
        // Every kind of change, each starting from the cached revision.
        for (step, write) in [
            ToolEditStep::Save(None, Box::new(add_todo())),
            ToolEditStep::Save(None, Box::new(get_todos())),
            ToolEditStep::Move("get_todos", MoveDirection::Up),
            ToolEditStep::Save(Some("add_todo"), Box::new(renamed.clone())),
            ToolEditStep::Move("get_todos", MoveDirection::Up),
            ToolEditStep::Details("Todo App 2"),
            ToolEditStep::Delete("get_todos"),
        ]
        .into_iter()
        .enumerate()
        {
            let next = match write {
                ToolEditStep::Save(original, tool) => {
                    applied(
                        tools::save(&db, app_id, revision, original, &tool, &me, 10)
                            .await
                            .unwrap(),
                    )
                    .0
                }
                ToolEditStep::Move(id, direction) => {
                    applied(
                        tools::move_tool(&db, app_id, revision, id, direction, &me, 10)
                            .await
                            .unwrap(),
                    )
                    .0
                }
                ToolEditStep::Delete(id) => {
                    applied(
                        tools::delete(&db, app_id, revision, id, &me, 10)
                            .await
                            .unwrap(),
                    )
                    .0
                }
                ToolEditStep::Details(name) => {
                    let input = AppInput {
                        package_name: "com.example.todo".into(),
                        name: name.into(),
                        description: "d".into(),
                        version: "2.0.0".into(),
                        public_url: "https://todo.example.com/v2".into(),
                    };
                    match repo::apps::update(&db, app_id, revision, &input, &me, 10)
                        .await
                        .unwrap()
                    {
                        repo::apps::Revised::Applied(next) => next,
                        other => panic!("{other:?}"),
                    }
                }
            };
            assert_eq!(next, revision + 1);
            revision = next;
            let cached = db
                .configs()
                .get(app_id, revision)
                .expect("kept after the write");
            let stored = stored_config(&test_db).await;
            assert_eq!(*cached.config, stored, "{label}, step {step}");
            // The revision recorded the same configuration.
            let recorded = repo::revisions::get(&db, app_id, revision)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(recorded.config, stored, "{label}, step {step}");
        }
        // A write with nothing cached works it out from the revision's record.
        let cold = Db::connect(&test_db.config()).await.expect("connect");
        assert!(cold.configs().get(app_id, revision).is_none());
        let (next, _) = applied(
            tools::save(&cold, app_id, revision, None, &get_todos(), &me, 11)
                .await
                .unwrap(),
        );
        let stored = stored_config(&test_db).await;
        assert_eq!(
            *cold.configs().get(app_id, next).unwrap().config,
            stored,
            "{label}"
        );
        let ids: Vec<&str> = stored.tools.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["create_todo", "get_todos"], "{label}");
        cold.close().await;
    }
}

#[tokio::test]
async fn saves_at_once_to_many_apps_and_to_one_each_land_or_are_stale() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, first) = app(&test_db).await;
        let mut apps = vec![first];
        for n in 1..8 {
            let input = AppInput {
                package_name: format!("com.example.todo{n}"),
                name: format!("Todo {n}"),
                description: String::new(),
                version: "1.0.0".into(),
                public_url: "https://todo.example.com".into(),
            };
            apps.push(
                repo::apps::create(
                    &db,
                    &alice(),
                    crate::common::personal_org(&db, alice().id).await,
                    &input,
                    1,
                )
                .await
                .unwrap(),
            );
        }
        // Each app: four saves at once from revision 1 (one lands, three
        // are stale), then the app's tool edited from the revision it got.
        let mut saves = Vec::new();
        for &app_id in &apps {
            for attempt in 0..4 {
                let db = db.clone();
                saves.push(tokio::spawn(async move {
                    let mut tool = add_todo();
                    tool.description = format!("Attempt {attempt}");
                    let written = tools::save(&db, app_id, 1, None, &tool, &alice(), 2)
                        .await
                        .unwrap();
                    (app_id, tool, written)
                }));
            }
        }
        let mut landed = std::collections::HashMap::new();
        for save in saves {
            let (app_id, tool, written) = save.await.unwrap();
            match written {
                ToolWrite::Applied { revision, config } => {
                    assert_eq!(revision, 2, "{label}");
                    assert_eq!(owned(&config.tools), vec![tool.clone()], "{label}");
                    assert!(landed.insert(app_id, tool).is_none(), "{label}: two landed");
                }
                ToolWrite::Stale => {}
                other => panic!("{label}: {other:?}"),
            }
        }
        assert_eq!(landed.len(), apps.len(), "{label}: one save landed per app");
        let mut edits = Vec::new();
        for &app_id in &apps {
            let db = db.clone();
            edits.push(tokio::spawn(async move {
                let mut tool = add_todo();
                tool.description = format!("Edited in app {app_id}");
                let written = tools::save(&db, app_id, 2, Some("add_todo"), &tool, &alice(), 3)
                    .await
                    .unwrap();
                (app_id, tool, written)
            }));
        }
        for edit in edits {
            let (app_id, tool, written) = edit.await.unwrap();
            assert!(
                matches!(written, ToolWrite::Applied { revision: 3, .. }),
                "{label}: {written:?}"
            );
            assert_eq!(
                tools::list_for_app(&db, app_id).await.unwrap(),
                vec![tool.clone()],
                "{label}"
            );
            let recorded = repo::revisions::get(&db, app_id, 2).await.unwrap().unwrap();
            assert_eq!(
                owned(&recorded.config.tools),
                vec![landed[&app_id].clone()],
                "{label}"
            );
            let recorded = repo::revisions::get(&db, app_id, 3).await.unwrap().unwrap();
            assert_eq!(owned(&recorded.config.tools), vec![tool], "{label}");
        }
        db.close().await;
    }
}

/// The app's parameters as stored, read past any cache: (name,
/// description), in order.
async fn parameter_rows(test_db: &TestDatabase) -> Vec<(String, String)> {
    stored_config(test_db)
        .await
        .tools
        .iter()
        .flat_map(|tool| &tool.parameters)
        .map(|p| (p.name.clone(), p.description.clone()))
        .collect()
}

#[tokio::test]
async fn a_save_stores_its_parameters_as_edited_and_in_their_new_order() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, app_id) = app(&test_db).await;
        applied(
            tools::save(&db, app_id, 1, None, &add_todo(), &alice(), 2)
                .await
                .unwrap(),
        );
        // One description changed, the tool renamed.
        let mut edited = add_todo();
        edited.id = "create_todo".into();
        edited.parameters[1].description = "How urgent it is".into();
        let (_, tools) = applied(
            tools::save(&db, app_id, 2, Some("add_todo"), &edited, &alice(), 3)
                .await
                .unwrap(),
        );
        assert_eq!(tools, vec![edited.clone()], "{label}");
        let rows = parameter_rows(&test_db).await;
        assert_eq!(rows.len(), 2, "{label}");
        assert_eq!(rows[1].1, "How urgent it is", "{label}");
        // Reordered: stored in the new order.
        let mut reordered = edited.clone();
        reordered.parameters.swap(0, 1);
        let (_, tools) = applied(
            tools::save(&db, app_id, 3, Some("create_todo"), &reordered, &alice(), 4)
                .await
                .unwrap(),
        );
        assert_eq!(tools, vec![reordered.clone()], "{label}");
        let names: Vec<String> = parameter_rows(&test_db)
            .await
            .into_iter()
            .map(|row| row.0)
            .collect();
        let expected: Vec<String> = reordered
            .parameters
            .iter()
            .map(|p| p.name.clone())
            .collect();
        assert_eq!(names, expected, "{label}");
        assert_eq!(
            owned(&stored_config(&test_db).await.tools),
            vec![reordered],
            "{label}"
        );
        db.close().await;
    }
}

#[tokio::test]
async fn an_app_recorded_whole_goes_on_and_stores_its_tools_by_content() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, app_id) = app(&test_db).await;
        applied(
            tools::save(&db, app_id, 1, None, &add_todo(), &alice(), 2)
                .await
                .unwrap(),
        );
        let (_, both) = applied(
            tools::save(&db, app_id, 2, None, &get_todos(), &alice(), 3)
                .await
                .unwrap(),
        );
        // As for an app last changed before tools were kept by content: its
        // latest revision holds the whole configuration and no tool is
        // stored by content; a fresh server has nothing cached.
        let whole = serde_json::to_string(&stored_config(&test_db).await).unwrap();
        toolwright::on_db!(db, pool => async {
            sqlx::query(
                "UPDATE app_revisions SET snapshot = $1, tool_digests = NULL \
                 WHERE app_id = $2 AND revision = 3",
            )
            .bind(&whole)
            .bind(app_id)
            .execute(pool)
            .await?;
            sqlx::query("DELETE FROM revision_tools")
                .execute(pool)
                .await
                .map(|_| ())
        }
        .await)
        .unwrap();
        let fresh = Db::connect(&test_db.config()).await.expect("connect");
        assert_eq!(
            tools::list_for_app(&fresh, app_id).await.unwrap(),
            both,
            "{label}: read whole"
        );
        let mut edited = add_todo();
        edited.description = "Add a to-do item, edited".into();
        let (revision, tools) = applied(
            tools::save(&fresh, app_id, 3, Some("add_todo"), &edited, &alice(), 4)
                .await
                .unwrap(),
        );
        assert_eq!(revision, 4, "{label}");
        assert_eq!(tools, vec![edited.clone(), get_todos()], "{label}");
        // Read afresh, the unchanged tool is there too: stored by content now.
        let stored = stored_config(&test_db).await;
        assert_eq!(owned(&stored.tools), tools, "{label}");
        // And a stale save from the whole revision is refused.
        assert_eq!(
            tools::save(
                &fresh,
                app_id,
                3,
                Some("add_todo"),
                &add_todo(),
                &alice(),
                5
            )
            .await
            .unwrap(),
            ToolWrite::Stale,
            "{label}"
        );
        fresh.close().await;
        db.close().await;
    }
}

enum ToolEditStep {
    Save(Option<&'static str>, Box<Tool>),
    Move(&'static str, MoveDirection),
    Delete(&'static str),
    Details(&'static str),
}

#[tokio::test]
async fn a_deleted_apps_configuration_is_forgotten() {
    let test_db = TestDatabase::sqlite();
    let (db, app_id) = app(&test_db).await;
    assert!(db.configs().get(app_id, 1).is_some());
    assert!(repo::apps::delete(&db, app_id, alice().id).await.unwrap());
    assert!(db.configs().get(app_id, 1).is_none());
}

/// Polls `future` up to `times` times, a few milliseconds apart, as a server
/// does while a request waits; `None` if it was still pending, and then it
/// is dropped, as when the request's client hangs up.
async fn poll_then_drop<F: Future>(future: F, times: usize) -> Option<F::Output> {
    let mut future = pin!(future);
    for _ in 0..times {
        let polled = std::future::poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await;
        if let Poll::Ready(output) = polled {
            return Some(output);
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    None
}

#[tokio::test]
async fn saves_go_on_after_saves_dropped_at_any_point() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, app_id) = app(&test_db).await;
        for times in 1..=20 {
            // A save whose client hung up after `times` polls: it may have
            // been written or not, but no save after it may be refused.
            let revision = current_revision(&db).await;
            let _ = poll_then_drop(
                tools::save(&db, app_id, revision, None, &get_todos(), &alice(), 2),
                times,
            )
            .await;
            // And one dropped while its transaction begins, on SQLite's
            // one writing connection.
            if let toolwright::server::db::Pool::Sqlite(writes) = db.writes() {
                let _ = poll_then_drop(writes.begin_with("BEGIN IMMEDIATE"), times).await;
            }
            let mut revision = current_revision(&db).await;
            let tools = tools::list_for_app(&db, app_id).await.unwrap();
            if tools.iter().any(|tool| tool.id == "get_todos") {
                (revision, _) = applied(
                    tools::delete(&db, app_id, revision, "get_todos", &alice(), 3)
                        .await
                        .unwrap_or_else(|error| panic!("{label}, after {times} polls: {error:?}")),
                );
            }
            let (revision, tools) = applied(
                tools::save(&db, app_id, revision, None, &add_todo(), &alice(), 4)
                    .await
                    .unwrap_or_else(|error| panic!("{label}, after {times} polls: {error:?}")),
            );
            assert_eq!(tools, vec![add_todo()], "{label}");
            applied(
                tools::delete(&db, app_id, revision, "add_todo", &alice(), 5)
                    .await
                    .unwrap(),
            );
        }
    }
}

async fn current_revision(db: &Db) -> i64 {
    crate::common::app_of(db, alice().id, "com.example.todo")
        .await
        .unwrap()
        .expect("the app")
        .details
        .revision
}

#[tokio::test]
async fn hints_in_each_state_and_kept_keys_are_stored_as_given() {
    use toolwright::domain::tool::HintKind;
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, app_id) = app(&test_db).await;
        let mut tool = add_todo();
        tool.hints = ToolHints {
            read_only: Some(false),
            destructive: Some(true),
            idempotent: None,
            open_world: Some(false),
        };
        tool.extra
            .insert("icon".into(), serde_json::json!({"name": "plus"}));
        tool.extra
            .insert("confirm".into(), serde_json::json!(false));
        tool.parameters[0]
            .extra
            .insert("maxLength".into(), serde_json::json!(80));
        let (revision, _) = applied(
            tools::save(&db, app_id, 1, None, &tool, &alice(), 2)
                .await
                .unwrap(),
        );
        // Read from the tables, not the configuration kept in memory.
        let stored = tools::list_for_app(&db, app_id).await.unwrap();
        assert_eq!(stored, vec![tool.clone()], "{label}");
        let keys: Vec<&String> = stored[0].extra.keys().collect();
        assert_eq!(keys, ["icon", "confirm"], "{label}: in the file's order");

        // Each hint through each state, and the history says how in words.
        let mut revision = revision;
        for kind in HintKind::ALL {
            for value in [Some(true), Some(false), None] {
                tool.hints.set(kind, value);
                revision = applied(
                    tools::save(&db, app_id, revision, Some("add_todo"), &tool, &alice(), 3)
                        .await
                        .unwrap(),
                )
                .0;
                let stored = tools::list_for_app(&db, app_id).await.unwrap();
                assert_eq!(stored[0].hints.get(kind), value, "{label}: {kind:?}");
            }
        }
        let history = repo::revisions::list(&db, app_id).await.unwrap();
        assert!(
            history
                .iter()
                .any(|r| r.summary == "Edited tool add_todo: Open world: yes → no"),
            "{label}: {:?}",
            history.iter().map(|r| &r.summary).collect::<Vec<_>>()
        );
        db.close().await;
    }
}

#[tokio::test]
async fn an_app_row_made_by_hand_shows_its_fields_and_takes_tools() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, _) = app(&test_db).await;
        // An operator adds an app with SQL: no revision is recorded for it.
        let by_hand: i64 = toolwright::on_db!(&db, pool => sqlx::query_scalar(
            "INSERT INTO apps (owner_id, org_id, package_name, name, description, version, public_url, \
             revision, created_at, updated_at) \
             VALUES ($1, $2, 'com.example.hand', 'Hand', '', '1.0.0', 'https://h.example.com', 1, 2, 2) \
             RETURNING id",
        )
        .bind(alice().id)
        .bind(crate::common::personal_org(&db, alice().id).await)
        .fetch_one(pool)
        .await)
        .unwrap();
        let config = repo::revisions::current(&db, by_hand)
            .await
            .unwrap()
            .expect("its fields");
        assert_eq!(
            (config.name.as_str(), config.tools.len()),
            ("Hand", 0),
            "{label}"
        );
        let (revision, tools) = applied(
            tools::save(&db, by_hand, 1, None, &add_todo(), &alice(), 3)
                .await
                .unwrap(),
        );
        assert_eq!((revision, tools), (2, vec![add_todo()]), "{label}");
        let fresh = Db::connect(&test_db.config()).await.expect("connect");
        let recorded = repo::revisions::current(&fresh, by_hand)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(recorded.name, "Hand", "{label}");
        assert_eq!(owned(&recorded.tools), vec![add_todo()], "{label}");
        fresh.close().await;
        db.close().await;
    }
}

#[tokio::test]
async fn a_save_or_a_read_with_nothing_cached_meeting_a_deletion_is_never_a_database_error() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, _) = app(&test_db).await;
        let org = crate::common::personal_org(&db, alice().id).await;
        for round in 0..20 {
            let package = format!("com.example.race{round}");
            let input = AppInput {
                package_name: package.clone(),
                name: "Race".into(),
                description: String::new(),
                version: "1.0.0".into(),
                public_url: "https://race.example.com".into(),
            };
            let app_id = repo::apps::create(&db, &alice(), org, &input, 1)
                .await
                .unwrap();
            let (revision, _) = applied(
                tools::save(&db, app_id, 1, None, &add_todo(), &alice(), 2)
                    .await
                    .unwrap(),
            );
            // Another server process: nothing cached.
            let cold = Db::connect(&test_db.config()).await.expect("connect");
            let stored = repo::apps::find_by_package(&cold, &package)
                .await
                .unwrap()
                .unwrap();
            let (more, me) = (get_todos(), alice());
            let (saved, read, deleted) = tokio::join!(
                tools::save(&cold, app_id, revision, None, &more, &me, 3),
                repo::apps::load_config(&cold, &stored),
                repo::apps::delete(&db, app_id, alice().id),
            );
            assert!(deleted.is_ok(), "{label} round {round}: {deleted:?}");
            assert!(read.is_ok(), "{label} round {round}: {read:?}");
            match saved {
                Ok(_) | Err(repo::WriteError::Refused(_)) => {}
                Err(error) => panic!("{label} round {round}: {error:?}"),
            }
            cold.close().await;
        }
        db.close().await;
    }
}
