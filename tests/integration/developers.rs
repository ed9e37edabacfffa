//! The developers repository on real SQLite and PostgreSQL.

use crate::common::TestDatabase;
use toolwright::{
    domain::account::NewAccount,
    server::{password, repo, Db},
};

async fn open(test_db: &TestDatabase) -> Db {
    let db = Db::connect(&test_db.config()).await.expect("connect");
    db.migrate().await.expect("migrate");
    db
}

/// A log-in attempt for `email` from `client` at `at`, which failed.
async fn failed(db: &Db, email: &str, client: &str, at: i64) {
    let attempt = repo::login_failures::record(db, email, client, at)
        .await
        .unwrap();
    repo::login_failures::fail(db, attempt).await.unwrap();
}

#[tokio::test]
async fn a_developer_is_created_found_and_verified() {
    for test_db in TestDatabase::all().await {
        let db = open(&test_db).await;
        let account = NewAccount::new("  Dev@Example.com ", "correct horse battery");
        let hash = password::hash_password(account.password.clone())
            .await
            .unwrap();
        let id = repo::developers::create(&db, &account.email, &hash, 1)
            .await
            .unwrap();

        let found = repo::developers::find_by_email(&db, "dev@example.com")
            .await
            .unwrap()
            .expect("found by its normalised email");
        assert_eq!(found.id, id, "{}", test_db.label());
        assert_eq!(found.email, "dev@example.com");
        assert!(password::verify_password(
            "correct horse battery".into(),
            Some(found.password_hash.clone())
        )
        .await
        .unwrap());
        assert!(!password::verify_password(
            "correct horse battery?".into(),
            Some(found.password_hash)
        )
        .await
        .unwrap());

        // Signed in, with the personal organization made with the account.
        let (by_id, memberships) = repo::developers::find_signed_in(&db, id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(by_id.email, "dev@example.com");
        assert_eq!(memberships.orgs.len(), 1);
        assert_eq!(
            memberships.current().map(|org| org.name.as_str()),
            Some("Personal")
        );
        assert!(repo::developers::find_signed_in(&db, id + 1000)
            .await
            .unwrap()
            .is_none());
        db.close().await;
    }
}

#[tokio::test]
async fn the_same_email_in_another_case_is_refused_as_a_unique_violation() {
    for test_db in TestDatabase::all().await {
        let db = open(&test_db).await;
        let first = NewAccount::new("dev@example.com", "x");
        repo::developers::create(&db, &first.email, "h", 1)
            .await
            .unwrap();
        let second = NewAccount::new("DEV@EXAMPLE.COM", "x");
        let error = repo::developers::create(&db, &second.email, "h", 2)
            .await
            .unwrap_err();
        assert!(
            repo::is_unique_violation(&error),
            "{}: {error}",
            test_db.label()
        );
        db.close().await;
    }
}

#[tokio::test]
async fn a_successful_log_in_leaves_the_attempts_still_in_flight_counting() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = open(&test_db).await;
        use repo::login_failures as failures;
        // A guess that failed, one still being checked (from elsewhere),
        // and the owner's attempt, which succeeds.
        failed(&db, "a@example.com", "10.0.0.9", 100).await;
        let in_flight = failures::record(&db, "a@example.com", "10.0.0.9", 110)
            .await
            .unwrap();
        let own = failures::record(&db, "a@example.com", "10.0.0.1", 120)
            .await
            .unwrap();
        failures::forgive_for_email(&db, "a@example.com", "10.0.0.1", own)
            .await
            .unwrap();
        assert_eq!(
            failures::since_for_email(&db, "a@example.com", 0, 0)
                .await
                .unwrap(),
            vec![110],
            "{label}: only the attempt in flight is left"
        );
        // It fails after all: it counts against the email, like any failure.
        failures::fail(&db, in_flight).await.unwrap();
        assert_eq!(
            failures::since_for_email(&db, "a@example.com", 0, 0)
                .await
                .unwrap(),
            vec![110],
            "{label}"
        );
        db.close().await;
    }
}

#[tokio::test]
async fn a_successful_log_in_gives_a_password_sprayer_none_of_its_budget_back() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = open(&test_db).await;
        use repo::login_failures as failures;
        // One client guesses at two accounts; then one owner logs in.
        for (at, email) in [
            (100, "a@example.com"),
            (110, "b@example.com"),
            (120, "a@example.com"),
        ] {
            failed(&db, email, "10.6.6.6", at).await;
        }
        // The owner mistypes once, then logs in.
        failed(&db, "a@example.com", "10.0.0.1", 125).await;
        let own = failures::record(&db, "a@example.com", "10.0.0.1", 130)
            .await
            .unwrap();
        failures::forgive_for_email(&db, "a@example.com", "10.0.0.1", own)
            .await
            .unwrap();

        assert!(
            failures::since_for_email(&db, "a@example.com", 0, 0)
                .await
                .unwrap()
                .is_empty(),
            "{label}: the owner is not held back by the guesses"
        );
        assert_eq!(
            failures::since_for_email(&db, "b@example.com", 0, 0)
                .await
                .unwrap(),
            vec![110],
            "{label}: other accounts keep their count"
        );
        let mut sprayer = failures::since_for_client(&db, "10.6.6.6", 0, 0)
            .await
            .unwrap();
        sprayer.sort();
        assert_eq!(
            sprayer,
            vec![100, 110, 120],
            "{label}: every guess still counts against its client"
        );
        assert!(
            failures::since_for_client(&db, "10.0.0.1", 0, 0)
                .await
                .unwrap()
                .is_empty(),
            "{label}: the owner's typo and successful attempt are gone"
        );
        db.close().await;
    }
}

#[tokio::test]
async fn login_failures_are_counted_per_email_and_client_and_cleared() {
    for test_db in TestDatabase::all().await {
        let db = open(&test_db).await;
        use repo::login_failures as failures;
        failed(&db, "a@example.com", "10.0.0.1", 100).await;
        let second = failures::record(&db, "a@example.com", "10.0.0.2", 200)
            .await
            .unwrap();
        failures::record(&db, "b@example.com", "10.0.0.1", 300)
            .await
            .unwrap();

        let mut a = failures::since_for_email(&db, "a@example.com", 0, 0)
            .await
            .unwrap();
        a.sort();
        assert_eq!(a, vec![100, 200], "{}", test_db.label());
        assert_eq!(
            failures::since_for_email(&db, "a@example.com", 150, 0)
                .await
                .unwrap(),
            vec![200]
        );
        let mut client = failures::since_for_client(&db, "10.0.0.1", 0, 0)
            .await
            .unwrap();
        client.sort();
        assert_eq!(client, vec![100, 300]);
        // An attempt does not count against itself; withdrawn, it is gone.
        assert_eq!(
            failures::since_for_email(&db, "a@example.com", 0, second)
                .await
                .unwrap(),
            vec![100]
        );
        failures::withdraw(&db, second).await.unwrap();
        assert_eq!(
            failures::since_for_email(&db, "a@example.com", 0, 0)
                .await
                .unwrap(),
            vec![100]
        );

        let own = failures::record(&db, "a@example.com", "10.0.0.1", 250)
            .await
            .unwrap();
        failures::forgive_for_email(&db, "a@example.com", "10.0.0.1", own)
            .await
            .unwrap();
        assert!(failures::since_for_email(&db, "a@example.com", 0, 0)
            .await
            .unwrap()
            .is_empty());
        // The owner's own failure (same client) is gone; b@'s attempt stays.
        assert_eq!(
            failures::since_for_client(&db, "10.0.0.1", 0, 0)
                .await
                .unwrap(),
            vec![300],
            "{}",
            test_db.label()
        );
        assert_eq!(failures::prune(&db, 301).await.unwrap(), 1);
        assert!(failures::since_for_client(&db, "10.0.0.1", 0, 0)
            .await
            .unwrap()
            .is_empty());
        db.close().await;
    }
}

#[tokio::test]
async fn a_developer_added_by_hand_does_not_block_the_next_sign_up() {
    for test_db in TestDatabase::all().await {
        let db = open(&test_db).await;
        let first = repo::developers::create(&db, "a@example.com", "h", 1)
            .await
            .unwrap();
        // An operator adds one with SQL: it takes the next id there is.
        let by_hand: i64 = toolwright::on_db!(&db, pool => sqlx::query_scalar(
            "INSERT INTO developers (email, password_hash, created_at) \
             VALUES ('b@example.com', 'h', 2) RETURNING id",
        )
        .fetch_one(pool)
        .await)
        .unwrap();
        assert!(by_hand > first);
        let next = repo::developers::create(&db, "c@example.com", "h", 3)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", test_db.label()));
        assert!(
            next > by_hand,
            "{}: {next} after {by_hand}",
            test_db.label()
        );
        db.close().await;
    }
}
