//! The apps repository on real SQLite and PostgreSQL.

use crate::common::TestDatabase;
use toolwright::{
    api::auth::CurrentDeveloper,
    domain::app::AppInput,
    server::{
        repo::{self, apps::Revised},
        Db,
    },
};

async fn open(test_db: &TestDatabase) -> (Db, CurrentDeveloper, CurrentDeveloper) {
    let db = Db::connect(&test_db.config()).await.expect("connect");
    db.migrate().await.expect("migrate");
    let mut made = vec![];
    for email in ["alice@example.com", "bob@example.com"] {
        let id = repo::developers::create(&db, email, "h", 1).await.unwrap();
        made.push(CurrentDeveloper {
            id,
            email: email.into(),
        });
    }
    let bob = made.pop().unwrap();
    (db, made.pop().unwrap(), bob)
}

fn input(package_name: &str, name: &str) -> AppInput {
    AppInput {
        package_name: package_name.into(),
        name: name.into(),
        description: "Manage your to-do items".into(),
        version: "1.0.0".into(),
        public_url: "https://todo.example.com".into(),
    }
}

#[tokio::test]
async fn an_app_is_created_listed_updated_and_deleted() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (db, alice, _) = open(&test_db).await;
        repo::apps::create(
            &db,
            &alice,
            crate::common::personal_org(&db, alice.id).await,
            &input("com.example.todo", "Todo App"),
            1000,
        )
        .await
        .unwrap();

        let listed =
            repo::apps::list_for_org(&db, crate::common::personal_org(&db, alice.id).await)
                .await
                .unwrap();
        assert_eq!(listed.len(), 1, "{label}");
        assert_eq!(listed[0].package_name, "com.example.todo");
        assert_eq!(listed[0].name, "Todo App");
        assert_eq!(listed[0].tool_count, 0);
        assert_eq!(listed[0].updated_at, 1000);

        let stored = crate::common::app_of(&db, alice.id, "com.example.todo")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.details.revision, 1);
        assert_eq!(stored.details.public_url, "https://todo.example.com");

        let changed = AppInput {
            version: "1.1.0".into(),
            ..input("com.example.todo", "Todo")
        };
        let outcome = repo::apps::update(&db, stored.id, 1, &changed, &alice, 2000)
            .await
            .unwrap();
        assert_eq!(outcome, Revised::Applied(2), "{label}");
        let reread = crate::common::app_of(&db, alice.id, "com.example.todo")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(reread.details.name, "Todo");
        assert_eq!(reread.details.version, "1.1.0");
        assert_eq!(reread.details.revision, 2);
        assert_eq!(reread.details.updated_at, 2000);

        assert!(repo::apps::delete(&db, stored.id, alice.id).await.unwrap());
        assert!(crate::common::app_of(&db, alice.id, "com.example.todo")
            .await
            .unwrap()
            .is_none());
        // Gone already: refused in words, nothing else happens.
        assert!(matches!(
            repo::apps::delete(&db, stored.id, alice.id).await,
            Err(repo::WriteError::Refused(
                toolwright::domain::AppError::Gone(_)
            ))
        ));
        db.close().await;
    }
}

#[tokio::test]
async fn a_save_based_on_an_old_revision_changes_nothing() {
    for test_db in TestDatabase::all().await {
        let (db, alice, _) = open(&test_db).await;
        repo::apps::create(
            &db,
            &alice,
            crate::common::personal_org(&db, alice.id).await,
            &input("com.example.todo", "Todo App"),
            1,
        )
        .await
        .unwrap();
        let stored = crate::common::app_of(&db, alice.id, "com.example.todo")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            repo::apps::update(
                &db,
                stored.id,
                1,
                &input("com.example.todo", "First"),
                &alice,
                2
            )
            .await
            .unwrap(),
            Revised::Applied(2)
        );
        assert_eq!(
            repo::apps::update(
                &db,
                stored.id,
                1,
                &input("com.example.todo", "Second"),
                &alice,
                3
            )
            .await
            .unwrap(),
            Revised::Stale,
            "{}",
            test_db.label()
        );
        let reread = crate::common::app_of(&db, alice.id, "com.example.todo")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(reread.details.name, "First");
        assert_eq!(reread.details.revision, 2);
        db.close().await;
    }
}

#[tokio::test]
async fn package_names_are_unique_across_the_console() {
    for test_db in TestDatabase::all().await {
        let (db, alice, bob) = open(&test_db).await;
        repo::apps::create(
            &db,
            &alice,
            crate::common::personal_org(&db, alice.id).await,
            &input("com.example.todo", "A"),
            1,
        )
        .await
        .unwrap();
        let error = repo::apps::create(
            &db,
            &bob,
            crate::common::personal_org(&db, bob.id).await,
            &input("com.example.todo", "B"),
            1,
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&error, repo::WriteError::Database(e) if repo::is_unique_violation(e)),
            "{}: {error:?}",
            test_db.label()
        );
        db.close().await;
    }
}

#[tokio::test]
async fn listing_and_finding_only_return_the_owners_apps() {
    for test_db in TestDatabase::all().await {
        let (db, alice, bob) = open(&test_db).await;
        repo::apps::create(
            &db,
            &alice,
            crate::common::personal_org(&db, alice.id).await,
            &input("com.alice.one", "One"),
            1,
        )
        .await
        .unwrap();
        repo::apps::create(
            &db,
            &alice,
            crate::common::personal_org(&db, alice.id).await,
            &input("com.alice.two", "Two"),
            2,
        )
        .await
        .unwrap();
        repo::apps::create(
            &db,
            &bob,
            crate::common::personal_org(&db, bob.id).await,
            &input("com.bob.one", "Bob's"),
            3,
        )
        .await
        .unwrap();

        let names: Vec<String> =
            repo::apps::list_for_org(&db, crate::common::personal_org(&db, alice.id).await)
                .await
                .unwrap()
                .into_iter()
                .map(|a| a.package_name)
                .collect();
        assert_eq!(
            names,
            vec!["com.alice.two", "com.alice.one"],
            "newest first"
        );
        assert!(crate::common::app_of(&db, alice.id, "com.bob.one")
            .await
            .unwrap()
            .is_none());
        assert!(crate::common::app_of(&db, bob.id, "com.bob.one")
            .await
            .unwrap()
            .is_some());
        db.close().await;
    }
}

#[tokio::test]
async fn a_deleted_apps_id_is_never_given_to_a_new_app() {
    for test_db in TestDatabase::all().await {
        let (db, alice, bob) = open(&test_db).await;
        let first = repo::apps::create(
            &db,
            &alice,
            crate::common::personal_org(&db, alice.id).await,
            &input("com.example.a", "A"),
            1,
        )
        .await
        .unwrap();
        let newest = repo::apps::create(
            &db,
            &alice,
            crate::common::personal_org(&db, alice.id).await,
            &input("com.example.b", "B"),
            2,
        )
        .await
        .unwrap();
        assert!(newest > first);
        assert!(repo::apps::delete(&db, newest, alice.id).await.unwrap());
        // A write still under way for the deleted app must not find another.
        let next = repo::apps::create(
            &db,
            &bob,
            crate::common::personal_org(&db, bob.id).await,
            &input("com.example.c", "C"),
            3,
        )
        .await
        .unwrap();
        assert!(next > newest, "{}: {next} after {newest}", test_db.label());
        let late =
            repo::apps::update(&db, newest, 1, &input("com.example.b", "B2"), &alice, 4).await;
        assert!(
            matches!(
                late,
                Err(repo::WriteError::Refused(
                    toolwright::domain::AppError::Gone(_)
                ))
            ),
            "{late:?}"
        );
        db.close().await;
    }
}

#[tokio::test]
async fn an_app_added_by_hand_does_not_block_the_next_one() {
    for test_db in TestDatabase::all().await {
        let (db, alice, _) = open(&test_db).await;
        let first = repo::apps::create(
            &db,
            &alice,
            crate::common::personal_org(&db, alice.id).await,
            &input("com.example.a", "A"),
            1,
        )
        .await
        .unwrap();
        // An operator adds one with SQL: it takes the next id there is.
        let by_hand: i64 = toolwright::on_db!(&db, pool => sqlx::query_scalar(
            "INSERT INTO apps (owner_id, org_id, package_name, name, description, version, public_url, \
             revision, created_at, updated_at) \
             VALUES ($1, $2, 'com.example.hand', 'Hand', '', '1.0.0', 'https://h.example.com', 1, 2, 2) \
             RETURNING id",
        )
        .bind(alice.id)
        .bind(crate::common::personal_org(&db, alice.id).await)
        .fetch_one(pool)
        .await)
        .unwrap();
        assert!(by_hand > first);
        let next = repo::apps::create(
            &db,
            &alice,
            crate::common::personal_org(&db, alice.id).await,
            &input("com.example.b", "B"),
            3,
        )
        .await
        .unwrap_or_else(|e| panic!("{}: {e:?}", test_db.label()));
        assert!(
            next > by_hand,
            "{}: {next} after {by_hand}",
            test_db.label()
        );
        db.close().await;
    }
}
