//! Batches of statements (`repo::batch`) on both backends: the values each
//! statement returns, where a guard or an error stops, and that the
//! caller's transaction decides what stays.

use crate::common::{poll_until, TestDatabase};
use toolwright::{
    on_writer,
    server::{
        db::Db,
        repo::batch::{Batch, Outcome, Value},
    },
};

async fn scratch(test_db: &TestDatabase) -> Db {
    let db = Db::connect(&test_db.config()).await.expect("connect");
    let created: Result<_, sqlx::Error> = async {
        on_writer!(db, conn => {
            sqlx::query(
                "CREATE TABLE scratch (id BIGINT PRIMARY KEY, label TEXT NOT NULL UNIQUE, \
                 flag BOOLEAN, note TEXT, n BIGINT)",
            )
            .execute(conn)
            .await
            .map(|_| ())
        })
    }
    .await;
    created.expect("create the scratch table");
    db
}

type ScratchRow = (i64, String, Option<bool>, Option<String>, Option<i64>);

async fn labels(db: &Db) -> Vec<ScratchRow> {
    let rows: Result<Vec<ScratchRow>, sqlx::Error> = async {
        on_writer!(db, conn => {
            sqlx::query_as("SELECT id, label, flag, note, n FROM scratch ORDER BY id")
                .fetch_all(conn)
                .await
        })
    }
    .await;
    rows.expect("read the scratch table")
}

/// Runs `batch` in a transaction on `db`'s writer; `check` sees the
/// outcome and says whether to commit.
async fn run(db: &Db, batch: &Batch, check: impl Fn(Outcome) -> bool) {
    let done: Result<(), sqlx::Error> = async {
        on_writer!(db, conn => {
            let mut tx = sqlx::Connection::begin(conn).await?;
            let outcome = batch.run(&mut *tx).await?;
            if check(outcome) {
                tx.commit().await?;
            }
            Ok(())
        })
    }
    .await;
    done.expect("run the batch");
}

fn insert(id: i64, label: &str) -> (&'static str, Vec<Value>) {
    (
        "INSERT INTO scratch (id, label, flag, note, n) VALUES ($1, $2, $3, $4, $5) RETURNING id",
        vec![
            id.into(),
            label.into(),
            (id % 2 == 0).into(),
            Some(format!("note {id}")).into(),
            None::<i64>.into(),
        ],
    )
}

#[tokio::test]
async fn every_statement_gets_its_own_values_and_returns_its_own_row() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = scratch(&test_db).await;
        let mut batch = Batch::default();
        let (sql, values) = insert(1, "one");
        let first = batch.push(sql, values);
        let (sql, values) = insert(2, "two");
        let second = batch.guard(sql, values);
        // No row back, and a placeholder used twice.
        let update = batch.push(
            "UPDATE scratch SET n = $1 + $1 WHERE id = $2",
            vec![Value::Int(21), Value::Int(2)],
        );
        let read = batch.push("SELECT n FROM scratch WHERE label = $1", vec!["two".into()]);
        run(&db, &batch, |outcome| {
            assert_eq!(outcome.value(first), Some(1), "{label}");
            assert_eq!(outcome.value(second), Some(2), "{label}");
            assert_eq!(outcome.value(update), None, "{label}");
            assert_eq!(outcome.value(read), Some(42), "{label}");
            outcome.finished().unwrap();
            true
        })
        .await;
        assert_eq!(
            labels(&db).await,
            vec![
                (1, "one".into(), Some(false), Some("note 1".into()), None),
                (2, "two".into(), Some(true), Some("note 2".into()), Some(42)),
            ],
            "{label}"
        );
        db.close().await;
    }
}

#[tokio::test]
async fn an_error_stops_the_batch_where_it_happened() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = scratch(&test_db).await;
        let mut batch = Batch::default();
        let (sql, values) = insert(1, "one");
        let first = batch.push(sql, values);
        // The same label again: a unique violation.
        let (sql, values) = insert(2, "one");
        let clash = batch.push(sql, values);
        let (sql, values) = insert(3, "three");
        let after = batch.push(sql, values);
        run(&db, &batch, |outcome| {
            assert_eq!(outcome.value(first), Some(1), "{label}");
            assert!(!outcome.failed_at(first), "{label}");
            assert!(outcome.failed_at(clash), "{label}");
            assert!(!outcome.failed_at(after), "{label}");
            assert_eq!(outcome.value(after), None, "{label}: never ran");
            let error = outcome.error().expect("the violation");
            assert!(
                toolwright::server::repo::is_unique_violation(&error),
                "{label}: {error}"
            );
            // Committed as it is (on SQLite; PostgreSQL refuses a failed
            // transaction's commit): what ran before the error, and nothing after.
            true
        })
        .await;
        let ids: Vec<i64> = labels(&db).await.into_iter().map(|row| row.0).collect();
        let expected: &[i64] = if label == "postgres" { &[] } else { &[1] };
        assert_eq!(
            ids, expected,
            "{label}: the statement after the error never ran"
        );
        db.close().await;
    }
}

#[tokio::test]
async fn a_guard_that_finds_nothing_is_reported_and_its_transaction_dropped() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = scratch(&test_db).await;
        let mut batch = Batch::default();
        let missing = batch.guard(
            "UPDATE scratch SET n = 1 WHERE id = $1 RETURNING id",
            vec![Value::Int(7)],
        );
        let (sql, values) = insert(1, "one");
        let after = batch.push(sql, values);
        run(&db, &batch, |outcome| {
            assert_eq!(outcome.value(missing), None, "{label}");
            assert!(!outcome.failed_at(missing), "{label}");
            // PostgreSQL stops at the guard; SQLite ran the rest, which
            // the dropped transaction takes back.
            let expected_after = if label == "postgres" { None } else { Some(1) };
            assert_eq!(outcome.value(after), expected_after, "{label}");
            outcome.finished().unwrap();
            false
        })
        .await;
        assert_eq!(labels(&db).await, vec![], "{label}: nothing stays");
        db.close().await;
    }
}

#[tokio::test]
async fn a_batch_of_its_own_is_committed_or_rolled_back_as_its_caller_says() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = scratch(&test_db).await;
        let mut kept = Batch::default();
        let (sql, values) = insert(1, "kept");
        let step = kept.push(sql, values);
        let outcome = db
            .write_batch(kept, move |outcome| outcome.value(step) == Some(1))
            .await
            .unwrap();
        assert!(outcome.is_complete(), "{label}");
        let mut dropped = Batch::default();
        let (sql, values) = insert(2, "dropped");
        dropped.push(sql, values);
        db.write_batch(dropped, |_| false).await.unwrap();
        let ids: Vec<i64> = labels(&db).await.into_iter().map(|row| row.0).collect();
        assert_eq!(ids, [1], "{label}");
        db.close().await;
    }
}

#[tokio::test]
async fn a_write_that_fails_half_way_is_rolled_back_before_the_next_one() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = scratch(&test_db).await;
        // The write fails after the statements ran, before deciding: its
        // transaction is still open on the writer's connection.
        let abandoned = tokio::spawn({
            let db = db.clone();
            async move {
                let mut batch = Batch::default();
                let (sql, values) = insert(1, "abandoned");
                batch.push(sql, values);
                db.write_batch(batch, |_| panic!("the writing task fails half-way"))
                    .await
            }
        });
        assert!(abandoned.await.unwrap_err().is_panic(), "{label}");
        let mut next = Batch::default();
        let (sql, values) = insert(2, "next");
        next.push(sql, values);
        let outcome = db.write_batch(next, |_| true).await.unwrap();
        assert!(outcome.is_complete(), "{label}");
        let ids: Vec<i64> = labels(&db).await.into_iter().map(|row| row.0).collect();
        assert_eq!(ids, [2], "{label}: only the next write stays");
        db.close().await;
    }
}

#[tokio::test]
async fn a_write_whose_caller_goes_away_still_ends_its_transaction() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = scratch(&test_db).await;
        let mut batch = Batch::default();
        let (sql, values) = insert(1, "finished");
        batch.push(sql, values);
        // The caller (a request whose client hung up) is dropped while the
        // write is under way.
        let caller = tokio::spawn({
            let db = db.clone();
            async move { db.write_batch(batch, |_| true).await }
        });
        tokio::task::yield_now().await;
        caller.abort();
        let _ = caller.await;
        // Another connection can write (an open transaction would keep it
        // waiting for the lock, then fail), and the write was finished.
        let other = Db::connect(&test_db.config()).await.expect("connect");
        let mut more = Batch::default();
        let (sql, values) = insert(2, "other");
        more.push(sql, values);
        let outcome = tokio::time::timeout(
            std::time::Duration::from_secs(3),
            other.write_batch(more, |_| true),
        )
        .await
        .expect("not kept waiting for the lock")
        .unwrap();
        assert!(outcome.is_complete(), "{label}");
        // The first write goes on in a task of its own: on PostgreSQL the
        // other write need not wait for it, so it may land a moment later.
        let ids = poll_until(
            std::time::Duration::from_secs(3),
            || async {
                labels(&other)
                    .await
                    .into_iter()
                    .map(|row| row.0)
                    .collect::<Vec<i64>>()
            },
            |ids| ids.len() > 1,
        )
        .await;
        assert_eq!(ids, [1, 2], "{label}: the first write was finished too");
        other.close().await;
        db.close().await;
    }
}

#[tokio::test]
async fn writes_at_once_each_keep_or_lose_their_own_changes_only() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let db = scratch(&test_db).await;
        // 60 writes at once, so that on SQLite they share transactions:
        // every third is refused by its caller, every fifth breaks the
        // label's uniqueness (label "dup"), the rest are kept.
        let mut writes = Vec::new();
        for id in 0..60_i64 {
            let db = db.clone();
            writes.push(tokio::spawn(async move {
                let mut batch = Batch::default();
                let label = if id % 5 == 4 {
                    "dup".to_owned()
                } else {
                    format!("row {id}")
                };
                let (sql, values) = insert(id, &label);
                let step = batch.push(sql, values);
                // A second statement, so that a refusal has more to undo.
                batch.push(
                    "UPDATE scratch SET n = $1 WHERE id = $1",
                    vec![Value::Int(id)],
                );
                let keep = id % 3 != 0;
                let outcome = db
                    .write_batch(batch, move |outcome| {
                        keep && outcome.value(step).is_some() && outcome.is_complete()
                    })
                    .await
                    .unwrap();
                (id, keep, outcome.value(step).is_some())
            }));
        }
        let mut expected = Vec::new();
        let mut dup_kept = false;
        for write in writes {
            let (id, keep, inserted) = write.await.unwrap();
            if id % 5 == 4 {
                // Only one "dup" can be inserted and kept, whichever came first.
                if inserted && keep {
                    assert!(!dup_kept, "{label}: two rows labelled dup");
                    dup_kept = true;
                    expected.push(id);
                }
            } else {
                assert!(inserted, "{label}: write {id}");
                if keep {
                    expected.push(id);
                }
            }
        }
        expected.sort();
        if let Some((writes, transactions)) = db.batch_transactions() {
            assert_eq!(writes, 60, "{label}");
            assert!(
                transactions < 30,
                "{label}: writes shared transactions ({transactions} for {writes})"
            );
        }
        let rows = labels(&db).await;
        let ids: Vec<i64> = rows.iter().map(|row| row.0).collect();
        assert_eq!(ids, expected, "{label}");
        for (id, _, _, _, n) in rows {
            assert_eq!(n, Some(id), "{label}: row {id} kept whole");
        }
        db.close().await;
    }
}

#[tokio::test]
async fn a_write_of_its_own_cut_short_while_closing_a_shared_transaction_does_not_lose_it() {
    let test_db = TestDatabase::sqlite();
    let db = scratch(&test_db).await;
    let mut writes = Vec::new();
    for id in 0..40_i64 {
        writes.push(tokio::spawn({
            let db = db.clone();
            async move {
                let mut batch = Batch::default();
                let (sql, values) = insert(id, &format!("row {id}"));
                batch.push(sql, values);
                db.write_batch(batch, |_| true)
                    .await
                    .map(|o| o.is_complete())
            }
        }));
        if id % 8 == 7 {
            // A write of its own (an sqlx transaction, as most writes are)
            // that takes the turn while batch writes share a transaction,
            // and whose caller goes away at once: the commit it started
            // for them goes on.
            let db = db.clone();
            let cut = tokio::spawn(async move {
                let _turn = db.writer().await;
            });
            // Cut short at some point of its turn: while it waits for the
            // turn, while it commits the shared transaction, or after.
            tokio::time::sleep(std::time::Duration::from_micros(50 * (id as u64 % 5))).await;
            cut.abort();
        }
    }
    for write in writes {
        assert!(write.await.unwrap().unwrap());
    }
    let ids: Vec<i64> = labels(&db).await.into_iter().map(|row| row.0).collect();
    assert_eq!(ids, (0..40).collect::<Vec<_>>());
    // No transaction was left open: another connection writes at once.
    let other = Db::connect(&test_db.config()).await.expect("connect");
    let mut more = Batch::default();
    let (sql, values) = insert(99, "other");
    more.push(sql, values);
    let outcome = tokio::time::timeout(
        std::time::Duration::from_secs(3),
        other.write_batch(more, |_| true),
    )
    .await
    .expect("not kept waiting for the lock")
    .unwrap();
    assert!(outcome.is_complete());
    other.close().await;
    db.close().await;
}
