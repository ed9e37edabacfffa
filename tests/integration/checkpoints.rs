//! SQLite's log is copied back into the database file by the checkpointer,
//! beside the one writer, so that it stays short however many writes come.

use crate::common::TestDatabase;
use std::time::Duration;
use toolwright::{
    api::auth::CurrentDeveloper,
    domain::{
        app::AppInput,
        tool::{ParamType, Parameter, Tool},
    },
    server::{
        repo::{self, tools::ToolWrite},
        Db,
    },
};

fn wide_tool(variant: usize) -> Tool {
    Tool {
        id: "wide".into(),
        description: format!("A tool with ten parameters, saved for the {variant}th time"),
        activation_phrases: vec!["go wide".into()],
        parameters: (0..10)
            .map(|i| Parameter {
                name: format!("parameter_{i}"),
                param_type: ParamType::String,
                description: format!(
                    "Parameter {i}, described at some length, {}",
                    "x".repeat(200)
                ),
                required: i % 2 == 0,
                enum_values: vec![],
            })
            .collect(),
        ..Tool::default()
    }
}

#[tokio::test]
async fn the_log_stays_short_under_many_saves_and_close_stops_the_checkpointer() {
    let test_db = TestDatabase::sqlite();
    let db = Db::connect(&test_db.config()).await.expect("connect");
    db.migrate().await.expect("migrate");
    let me = CurrentDeveloper {
        id: repo::developers::create(&db, "alice@example.com", "h", 1)
            .await
            .unwrap(),
        email: "alice@example.com".into(),
    };
    let input = AppInput {
        package_name: "com.example.wide".into(),
        name: "Wide".into(),
        description: String::new(),
        version: "1.0.0".into(),
        public_url: "https://wide.example.com".into(),
    };
    let app_id = repo::apps::create(&db, &me, &input, 1).await.unwrap();
    let mut revision = 1;
    let mut original = None;
    let saves = 600;
    for variant in 0..saves {
        match repo::tools::save(&db, app_id, revision, original, &wide_tool(variant), &me, 2)
            .await
            .unwrap()
        {
            ToolWrite::Applied { revision: next, .. } => revision = next,
            other => panic!("save {variant}: {other:?}"),
        }
        original = Some("wide");
    }
    let file = test_db.url.trim_start_matches("sqlite://").to_owned();
    let log = std::fs::metadata(format!("{file}-wal")).unwrap().len();
    let database = std::fs::metadata(&file).unwrap().len();
    // Each save writes some 13 pages to the log (its tool, parameters and
    // revision): kept, the log would be over 30 MB by now — the writer
    // checkpoints by itself only at 20,000 pages. Copied back every 64
    // writes and started over, it stays near 64 saves' worth (3.5 MB).
    eprintln!("the log is {log} bytes after {saves} saves");
    assert!(
        log < 8 * 1024 * 1024,
        "the log is {log} bytes after {saves} saves (the database {database})"
    );
    let closed = tokio::time::timeout(Duration::from_secs(10), db.close()).await;
    assert!(
        closed.is_ok(),
        "close waits for the checkpointer, which stops"
    );
    // Everything written is in the database.
    let reopened = Db::connect(&test_db.config()).await.expect("connect");
    let tools = repo::tools::list_for_app(&reopened, app_id).await.unwrap();
    assert_eq!(tools, vec![wide_tool(saves - 1)]);
    reopened.close().await;
}
