//! An app's eval cases. They are not part of its configuration (no
//! revision records them): they test it.

use super::{Scope, WriteError};
use crate::{
    domain::{eval::EvalCase, org::Action},
    in_transaction, on_db,
    server::db::Db,
};

/// The app's cases in the order they were added, with their ids.
pub async fn cases(db: &Db, app_id: i64) -> Result<Vec<(i64, EvalCase)>, sqlx::Error> {
    let rows: Vec<(i64, String, Option<String>, Option<String>)> = on_db!(db, pool => sqlx::query_as(
        "SELECT id, utterance, expected, arguments_json FROM eval_cases WHERE app_id = $1 ORDER BY id",
    )
    .bind(app_id)
    .fetch_all(pool)
    .await)?;
    rows.into_iter()
        .map(|(id, utterance, expected, arguments)| {
            let arguments = arguments
                .map(|json| serde_json::from_str(&json))
                .transpose()
                .map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
            Ok((
                id,
                EvalCase {
                    utterance,
                    expected,
                    arguments,
                },
            ))
        })
        .collect()
}

/// The arguments_json column of `case`.
fn arguments_json(case: &EvalCase) -> Result<Option<String>, sqlx::Error> {
    case.arguments
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| sqlx::Error::Encode(Box::new(e)))
}

/// Adds to the app's cases those `make` gives, from the cases it has (read
/// in the same transaction, so two additions at once each see the other),
/// if developer `by` may still edit it: how many were added.
pub async fn add(
    db: &Db,
    app_id: i64,
    by: i64,
    make: impl FnOnce(&[EvalCase]) -> Vec<EvalCase>,
    now_ms: i64,
) -> Result<usize, WriteError> {
    in_transaction!(db, tx => {
        may_write!(tx, Scope::App(app_id), by, Action::Edit).await?;
        let rows: Vec<(String, Option<String>)> = sqlx::query_as(
            "SELECT utterance, expected FROM eval_cases WHERE app_id = $1 ORDER BY id",
        )
        .bind(app_id)
        .fetch_all(&mut *tx)
        .await?;
        let existing: Vec<EvalCase> = rows
            .into_iter()
            .map(|(utterance, expected)| EvalCase {
                utterance,
                expected,
                arguments: None,
            })
            .collect();
        let new = make(&existing);
        for case in &new {
            sqlx::query(
                "INSERT INTO eval_cases (app_id, utterance, expected, arguments_json, created_at) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(app_id)
            .bind(&case.utterance)
            .bind(&case.expected)
            .bind(arguments_json(case)?)
            .bind(now_ms)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(new.len())
    })
}

/// Makes case `id` of the app `case`, if developer `by` may still edit
/// it: whether there was one.
pub async fn update(
    db: &Db,
    app_id: i64,
    id: i64,
    by: i64,
    case: &EvalCase,
) -> Result<bool, WriteError> {
    let arguments = arguments_json(case)?;
    in_transaction!(db, tx => {
        may_write!(tx, Scope::App(app_id), by, Action::Edit).await?;
        let done = sqlx::query(
            "UPDATE eval_cases SET utterance = $1, expected = $2, arguments_json = $3 \
             WHERE id = $4 AND app_id = $5",
        )
        .bind(&case.utterance)
        .bind(&case.expected)
        .bind(arguments)
        .bind(id)
        .bind(app_id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    })
}

/// Deletes case `id` of the app, if developer `by` may still edit it:
/// whether there was one.
pub async fn delete(db: &Db, app_id: i64, id: i64, by: i64) -> Result<bool, WriteError> {
    in_transaction!(db, tx => {
        may_write!(tx, Scope::App(app_id), by, Action::Edit).await?;
        let done = sqlx::query("DELETE FROM eval_cases WHERE id = $1 AND app_id = $2")
            .bind(id)
            .bind(app_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    })
}
