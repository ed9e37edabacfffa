//! The migrations apply on a fresh SQLite file and a fresh PostgreSQL
//! database, twice without harm, and leave SQLite in the promised mode.

use crate::common::TestDatabase;
use toolwright::{on_db, server::Db};

#[tokio::test]
async fn migrations_apply_to_fresh_databases_and_are_idempotent() {
    for test_db in TestDatabase::all().await {
        let db = Db::connect(&test_db.config()).await.expect("connect");
        db.migrate()
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", test_db.label()));
        db.migrate()
            .await
            .unwrap_or_else(|e| panic!("{} (second run): {e}", test_db.label()));

        let applied: i64 = on_db!(&db, pool => sqlx::query_scalar::<_, i64>(
            "SELECT COUNT(*) FROM _sqlx_migrations WHERE success"
        )
        .fetch_one(pool)
        .await)
        .expect("count migrations");
        let files = std::fs::read_dir(format!(
            "{}/migrations/{}",
            env!("CARGO_MANIFEST_DIR"),
            test_db.label()
        ))
        .unwrap()
        .count() as i64;
        assert_eq!(applied, files, "{}", test_db.label());

        // The schema is there and usable.
        let inserted: u64 = on_db!(&db, pool => sqlx::query(
            "INSERT INTO developers (email, password_hash, created_at) VALUES ($1, $2, $3)"
        )
        .bind("dev@example.com")
        .bind("not-a-real-hash")
        .bind(0_i64)
        .execute(pool)
        .await
        .map(|done| done.rows_affected()))
        .expect("insert");
        assert_eq!(inserted, 1);
        db.close().await;
    }
}

#[tokio::test]
async fn both_backends_use_the_same_migration_names() {
    let names = |backend: &str| {
        let mut names: Vec<String> = std::fs::read_dir(format!(
            "{}/migrations/{backend}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
        names.sort();
        names
    };
    assert_eq!(names("sqlite"), names("postgres"));
}

#[tokio::test]
async fn sqlite_runs_in_wal_mode_with_foreign_keys_on_and_creates_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/deeper/toolwright.db");
    let config =
        toolwright::server::Config::for_database(&format!("sqlite://{}", path.display())).unwrap();
    let db = Db::connect(&config)
        .await
        .expect("connect creates the file");
    assert!(path.exists());
    let toolwright::server::db::Pool::Sqlite(pool) = db.pool() else {
        panic!("expected SQLite")
    };
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    let foreign_keys: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(foreign_keys, 1);
    db.close().await;
}

#[tokio::test]
async fn a_sqlite_database_from_before_developer_ids_goes_on_after_its_highest_id() {
    let test_db = TestDatabase::sqlite();
    let db = Db::connect(&test_db.config()).await.expect("connect");
    let toolwright::server::db::Pool::Sqlite(pool) = db.pool() else {
        unreachable!("a SQLite database")
    };
    // The migrations before 0010, and developers 1 to 3.
    let mut before = sqlx::migrate::Migrator::new(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/migrations/sqlite"
    )))
    .await
    .unwrap();
    before.migrations = before
        .migrations
        .iter()
        .filter(|m| m.version < 10)
        .cloned()
        .collect::<Vec<_>>()
        .into();
    before.run(pool).await.unwrap();
    for email in ["a@example.com", "b@example.com", "c@example.com"] {
        sqlx::query(
            "INSERT INTO developers (email, password_hash, created_at) VALUES ($1, 'h', 0)",
        )
        .bind(email)
        .execute(pool)
        .await
        .unwrap();
    }

    db.migrate().await.unwrap();
    // The newest is deleted: its id is not given again.
    sqlx::query("DELETE FROM developers WHERE id = 3")
        .execute(pool)
        .await
        .unwrap();
    let next = toolwright::server::repo::developers::create(&db, "d@example.com", "h", 1)
        .await
        .unwrap();
    assert_eq!(next, 4);
    db.close().await;
}

/// The migrations of `backend` whose file names sort before `before`.
fn migration_files(backend: &str, before: &str) -> Vec<String> {
    let dir = format!("{}/migrations/{backend}", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.as_str() < before)
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| std::fs::read_to_string(format!("{dir}/{name}")).unwrap())
        .collect()
}

#[tokio::test]
async fn ticked_hints_become_yes_and_unticked_ones_not_set() {
    use toolwright::domain::tool::ToolHints;
    const DECIDED: &str = "0012";
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = Db::connect(&test_db.config()).await.expect("connect");
        // The schema as it was before hints could be "no", with a tool of each kind.
        for sql in migration_files(label, DECIDED) {
            on_db!(&db, pool => sqlx::raw_sql(&sql).execute(pool).await.map(|_| ()))
                .expect("old migration");
        }
        let seed = "\
            INSERT INTO developers (email, password_hash, created_at) VALUES ('a@example.com', 'h', 0);
            INSERT INTO apps (owner_id, package_name, name, version, public_url, created_at, updated_at)
                SELECT id, 'com.example.todo', 'Todo', '1.0.0', 'https://todo.example.com', 0, 0
                FROM developers;
            INSERT INTO tools (app_id, position, tool_id, description, read_only, destructive, idempotent, open_world)
                SELECT id, 0, 'lookup', 'Looks up', TRUE, FALSE, TRUE, FALSE FROM apps;
            INSERT INTO tools (app_id, position, tool_id, description, read_only, destructive, idempotent, open_world)
                SELECT id, 1, 'plain', 'Nothing ticked', FALSE, FALSE, FALSE, FALSE FROM apps;
            INSERT INTO tool_parameters (tool_id, position, name, param_type, description)
                SELECT id, 0, 'q', 'string', 'What' FROM tools WHERE tool_id = 'lookup';";
        on_db!(&db, pool => sqlx::raw_sql(seed).execute(pool).await.map(|_| ())).expect("seed");
        for sql in migration_files(label, "9999")
            .into_iter()
            .skip(migration_files(label, DECIDED).len())
        {
            on_db!(&db, pool => sqlx::raw_sql(&sql).execute(pool).await.map(|_| ()))
                .expect("new migration");
        }
        let app_id: i64 = on_db!(&db, pool => sqlx::query_scalar::<_, i64>("SELECT id FROM apps")
            .fetch_one(pool)
            .await)
        .expect("the app");
        let tools = crate::common::tools::list_for_app(&db, app_id)
            .await
            .expect("read the migrated tools");
        assert_eq!(tools.len(), 2, "{label}");
        assert_eq!(
            tools[0].hints,
            ToolHints {
                read_only: Some(true),
                destructive: None,
                idempotent: Some(true),
                open_world: None,
            },
            "{label}"
        );
        assert_eq!(tools[1].hints, ToolHints::default(), "{label}");
        assert_eq!(tools[0].parameters.len(), 1, "{label}: parameters intact");
        assert!(tools[0].extra.is_empty() && tools[0].parameters[0].extra.is_empty());
        db.close().await;
    }
}

#[tokio::test]
async fn each_developer_gets_a_personal_organization_holding_their_apps() {
    use toolwright::domain::org::Role;
    const TEAMS: &str = "0014";
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = Db::connect(&test_db.config()).await.expect("connect");
        for sql in migration_files(label, TEAMS) {
            on_db!(&db, pool => sqlx::raw_sql(&sql).execute(pool).await.map(|_| ()))
                .expect("old migration");
        }
        // Two developers as the schema before teams had them: an app each
        // with a tool, a revision and a key.
        let seed = "\
            INSERT INTO developers (email, password_hash, created_at) VALUES ('a@example.com', 'h', 1);
            INSERT INTO developers (email, password_hash, created_at) VALUES ('b@example.com', 'h', 2);
            INSERT INTO apps (owner_id, package_name, name, version, public_url, created_at, updated_at)
                SELECT id, 'com.example.' || substr(email, 1, 1), 'App of ' || email, '1.0.0', 'https://x.example.com', 0, 0
                FROM developers;
            INSERT INTO tools (app_id, position, tool_id, description)
                SELECT id, 0, 'lookup', 'Looks up' FROM apps;
            INSERT INTO app_revisions (app_id, revision, author_id, author_email, created_at, summary, snapshot)
                SELECT a.id, 1, a.owner_id, d.email, 0, 'Created the app',
                    '{\"name\":\"' || a.name || '\",\"description\":\"\",\"version\":\"1.0.0\",\"public_url\":\"https://x.example.com\",' ||
                    '\"tools\":[{\"id\":\"lookup\",\"description\":\"Looks up\",\"activation_phrases\":[],\"parameters\":[]}]}\'
                FROM apps a JOIN developers d ON d.id = a.owner_id;
            INSERT INTO api_keys (app_id, name, prefix, key_hash, created_at)
                SELECT id, 'CI', 'tw_', 'hash-' || package_name, 0 FROM apps;";
        on_db!(&db, pool => sqlx::raw_sql(seed).execute(pool).await.map(|_| ())).expect("seed");
        for sql in migration_files(label, "9999")
            .into_iter()
            .skip(migration_files(label, TEAMS).len())
        {
            on_db!(&db, pool => sqlx::raw_sql(&sql).execute(pool).await.map(|_| ()))
                .expect("new migration");
        }
        for (email, package) in [
            ("a@example.com", "com.example.a"),
            ("b@example.com", "com.example.b"),
        ] {
            let id = toolwright::server::repo::developers::find_by_email(&db, email)
                .await
                .unwrap()
                .expect("the developer")
                .id;
            let (developer, memberships) =
                toolwright::server::repo::developers::find_signed_in(&db, id)
                    .await
                    .unwrap()
                    .expect("signed in");
            assert_eq!(memberships.orgs.len(), 1, "{label}: {email}");
            let personal = memberships.current().expect("a current organization");
            // Named after the email by 0014, "Personal" since 0016.
            assert_eq!(personal.name, "Personal", "{label}");
            assert_eq!(personal.role, Role::Admin, "{label}");
            let (app, role) =
                toolwright::server::repo::apps::find_for_member(&db, developer.id, package)
                    .await
                    .unwrap()
                    .unwrap_or_else(|| panic!("{label}: {package} in {email}'s organization"));
            assert_eq!(role, Role::Admin);
            assert_eq!(app.org_id, personal.id, "{label}");
            let other = if package.ends_with('a') {
                "com.example.b"
            } else {
                "com.example.a"
            };
            assert!(
                toolwright::server::repo::apps::find_for_member(&db, developer.id, other)
                    .await
                    .unwrap()
                    .is_none(),
                "{label}: the other developer's app stays theirs"
            );
            let tools = crate::common::tools::list_for_app(&db, app.id)
                .await
                .unwrap();
            assert_eq!(tools.len(), 1, "{label}");
        }
        let counts: Vec<i64> = row_counts(&db).await;
        assert_eq!(
            counts,
            vec![2, 2, 2, 2, 2],
            "{label}: apps, revisions, keys, organizations, members"
        );
        // A new sign-up after the migration gets an organization of their own too.
        let id = toolwright::server::repo::developers::create(&db, "c@example.com", "h", 3)
            .await
            .unwrap();
        let (_, memberships) = toolwright::server::repo::developers::find_signed_in(&db, id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            memberships.current().map(|o| o.slug.as_str()),
            Some("c-example-com"),
            "{label}"
        );
        db.close().await;
    }
}

async fn row_counts(db: &Db) -> Vec<i64> {
    let mut counts = Vec::new();
    for table in [
        "apps",
        "app_revisions",
        "api_keys",
        "organizations",
        "org_members",
    ] {
        let sql = format!("SELECT COUNT(*) FROM {table}");
        counts.push(
            on_db!(db, pool => sqlx::query_scalar::<_, i64>(&sql).fetch_one(pool).await).unwrap(),
        );
    }
    counts
}

#[tokio::test]
async fn one_store_keeps_every_apps_configuration_and_history() {
    use toolwright::{
        domain::{
            account::CurrentDeveloper,
            config::AppConfig,
            tool::{ParamType, Parameter, Tool, ToolEdit, ToolHints},
        },
        server::repo::{self, revisions::Snapshot},
    };
    const ONE_STORE: &str = "0017";
    let kept = |json: serde_json::Value| serde_json::from_value(json).unwrap();
    // An app last changed before revisions were recorded: its tools (with
    // parameters, kept keys and decided hints) only in the tables.
    let old = AppConfig {
        name: "Old".into(),
        description: "From before".into(),
        version: "1.0.0".into(),
        public_url: "https://old.example.com".into(),
        settings: Some(serde_json::json!([{"key": "units"}])),
        extra: kept(serde_json::json!({"permissions": [{"type": "MICROPHONE"}]})),
        tools: vec![
            Tool {
                id: "first".into(),
                description: "First tool".into(),
                activation_phrases: vec!["add it".into(), "put it".into()],
                parameters: vec![
                    Parameter {
                        name: "a".into(),
                        param_type: ParamType::Number,
                        description: "A".into(),
                        required: true,
                        enum_values: vec![],
                        extra: kept(serde_json::json!({"minimum": 1})),
                    },
                    Parameter {
                        name: "b".into(),
                        param_type: ParamType::String,
                        description: "B".into(),
                        required: false,
                        enum_values: vec!["x".into(), "y".into()],
                        extra: Default::default(),
                    },
                ],
                title: Some("First".into()),
                max_calls: Some(3),
                hints: ToolHints {
                    read_only: Some(true),
                    destructive: Some(false),
                    ..ToolHints::default()
                },
                extra: kept(serde_json::json!({"x-note": "kept"})),
            },
            Tool {
                id: "second".into(),
                description: "Second tool".into(),
                ..Tool::default()
            },
        ]
        .into_iter()
        .map(std::sync::Arc::new)
        .collect(),
    };
    // An app whose revisions kept its tools by content, as the console
    // recorded them until now.
    let recent = AppConfig {
        name: "Recent".into(),
        version: "2.0.0".into(),
        public_url: "https://recent.example.com".into(),
        tools: vec![old.tools[1].clone()],
        ..AppConfig::default()
    };
    let (created, _) = Snapshot::of(AppConfig {
        tools: vec![],
        ..recent.clone()
    })
    .unwrap();
    let (latest, bodies) = Snapshot::of(recent.clone()).unwrap();
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = Db::connect(&test_db.config()).await.expect("connect");
        for sql in migration_files(label, ONE_STORE) {
            on_db!(&db, pool => sqlx::raw_sql(&sql).execute(pool).await.map(|_| ()))
                .expect("old migration");
        }
        let seed = "\
            INSERT INTO developers (email, password_hash, created_at) VALUES ('a@example.com', 'h', 1);
            INSERT INTO organizations (name, slug, created_at) VALUES ('Personal', 'a-example-com', 1);
            INSERT INTO org_members (org_id, developer_id, role, joined_at)
                SELECT o.id, d.id, 'admin', 1 FROM organizations o, developers d;
            UPDATE developers SET current_org_id = (SELECT id FROM organizations);
            INSERT INTO apps (owner_id, org_id, package_name, name, description, version, public_url,
                              revision, created_at, updated_at, settings_json, extra_json)
                SELECT d.id, o.id, 'com.example.old', 'Old', 'From before', '1.0.0', 'https://old.example.com',
                       3, 0, 5, '[{\"key\":\"units\"}]', '{\"permissions\":[{\"type\":\"MICROPHONE\"}]}'
                FROM developers d, organizations o;
            INSERT INTO tools (app_id, position, tool_id, description, activation_phrases, title, max_calls,
                               read_only_hint, destructive_hint, idempotent_hint, open_world_hint, extra_json)
                SELECT id, 1, 'second', 'Second tool', '[]', NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM apps;
            INSERT INTO tools (app_id, position, tool_id, description, activation_phrases, title, max_calls,
                               read_only_hint, destructive_hint, idempotent_hint, open_world_hint, extra_json)
                SELECT id, 0, 'first', 'First tool', '[\"add it\",\"put it\"]', 'First', 3,
                       TRUE, FALSE, NULL, NULL, '{\"x-note\":\"kept\"}' FROM apps;
            INSERT INTO tool_parameters (tool_id, position, name, param_type, description, required, enum_values, extra_json)
                SELECT id, 1, 'b', 'string', 'B', FALSE, '[\"x\",\"y\"]', NULL FROM tools WHERE tool_id = 'first';
            INSERT INTO tool_parameters (tool_id, position, name, param_type, description, required, enum_values, extra_json)
                SELECT id, 0, 'a', 'number', 'A', TRUE, '[]', '{\"minimum\":1}' FROM tools WHERE tool_id = 'first';
            INSERT INTO apps (owner_id, org_id, package_name, name, description, version, public_url,
                              revision, created_at, updated_at)
                SELECT d.id, o.id, 'com.example.recent', 'Recent', '', '2.0.0', 'https://recent.example.com',
                       2, 0, 7 FROM developers d, organizations o;
            INSERT INTO tools (app_id, position, tool_id, description)
                SELECT id, 0, 'second', 'Second tool' FROM apps WHERE package_name = 'com.example.recent';
            INSERT INTO api_keys (app_id, name, prefix, key_hash, created_at, created_by)
                SELECT a.id, 'CI', 'tw_', 'hash-' || a.package_name, 0, a.owner_id FROM apps a;";
        on_db!(&db, pool => sqlx::raw_sql(seed).execute(pool).await.map(|_| ())).expect("seed");
        let recent_id: i64 = on_db!(&db, pool => sqlx::query_scalar::<_, i64>(
            "SELECT id FROM apps WHERE package_name = 'com.example.recent'"
        )
        .fetch_one(pool)
        .await)
        .unwrap();
        for (revision, summary, snapshot) in [
            (1_i64, "Created the app", &created),
            (2, "Added tool second", &latest),
        ] {
            on_db!(&db, pool => sqlx::query(
                "INSERT INTO app_revisions (app_id, revision, author_email, created_at, summary, snapshot, tool_digests) \
                 VALUES ($1, $2, 'a@example.com', 0, $3, $4, $5)",
            )
            .bind(recent_id)
            .bind(revision)
            .bind(summary)
            .bind(snapshot.head().unwrap())
            .bind(snapshot.digest_list().unwrap())
            .execute(pool)
            .await
            .map(|_| ()))
            .unwrap();
        }
        for (digest, body) in &bodies {
            on_db!(&db, pool => sqlx::query(
                "INSERT INTO revision_tools (app_id, digest, body) VALUES ($1, $2, $3)",
            )
            .bind(recent_id)
            .bind(digest)
            .bind(body)
            .execute(pool)
            .await
            .map(|_| ()))
            .unwrap();
        }
        for sql in migration_files(label, "9999")
            .into_iter()
            .skip(migration_files(label, ONE_STORE).len())
        {
            on_db!(&db, pool => sqlx::raw_sql(&sql).execute(pool).await.map(|_| ()))
                .unwrap_or_else(|e| panic!("{label}: {e}"));
        }

        let developer = repo::developers::find_by_email(&db, "a@example.com")
            .await
            .unwrap()
            .unwrap();
        let me = CurrentDeveloper {
            id: developer.id,
            email: "a@example.com".into(),
        };
        let old_app = repo::apps::find_for_member(&db, me.id, "com.example.old")
            .await
            .unwrap()
            .expect("the old app")
            .0;
        let recent_app = repo::apps::find_for_member(&db, me.id, "com.example.recent")
            .await
            .unwrap()
            .expect("the recent app")
            .0;
        assert_eq!(
            *repo::apps::load_config(&db, &old_app).await.unwrap(),
            old,
            "{label}: the old app as its tables held it"
        );
        assert_eq!(
            *repo::apps::load_config(&db, &recent_app).await.unwrap(),
            recent,
            "{label}: the recent app as its latest revision"
        );
        let history = repo::revisions::list(&db, old_app.id).await.unwrap();
        assert_eq!(history.len(), 1, "{label}");
        assert_eq!(history[0].revision, 3, "{label}");
        assert_eq!(
            repo::revisions::list(&db, recent_app.id)
                .await
                .unwrap()
                .len(),
            2
        );
        let listed = repo::apps::list_for_org(&db, old_app.org_id).await.unwrap();
        let counts: Vec<(&str, i64)> = listed
            .iter()
            .map(|a| (a.package_name.as_str(), a.tool_count))
            .collect();
        assert_eq!(
            counts,
            [("com.example.recent", 1), ("com.example.old", 2)],
            "{label}"
        );
        assert_eq!(
            repo::api_keys::list_for_app(&db, old_app.id)
                .await
                .unwrap()
                .len(),
            1,
            "{label}: keys kept"
        );

        // The old app goes on: an edit stores its tools by content, and a
        // fresh server reads them back.
        let mut edited = (*old.tools[1]).clone();
        edited.description = "Second tool, edited".into();
        let edit = ToolEdit::Save {
            original_id: Some("second".into()),
            tool: Box::new(edited.clone()),
        };
        repo::revisions::edit_tools(&db, old_app.id, 3, &edit, &me, 10)
            .await
            .unwrap();
        let fresh = Db::connect(&test_db.config()).await.expect("connect");
        let now = repo::revisions::current(&fresh, old_app.id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            now.tools,
            vec![old.tools[0].clone(), edited.into()],
            "{label}"
        );
        assert_eq!(now.extra, old.extra, "{label}");
        fresh.close().await;
        db.close().await;
    }
}
