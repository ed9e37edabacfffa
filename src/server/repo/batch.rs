//! Statements that go to the database together: the same SQL on both
//! backends, sent at once to SQLite and one by one to PostgreSQL.
//!
//! Each query to SQLite is a round trip to the thread that owns the
//! connection (sqlx runs every SQLite connection on a thread of its own):
//! two thread wake-ups, which on a busy machine cost more than the query.
//! A tool save was eight of them, one after the other, all on the one
//! writer's turn. SQLite takes several statements in one query, and sqlx
//! binds each statement's `$N` to the N-th value of the whole query, so a
//! batch is one round trip there. (sqlx 0.8 calls several statements in one
//! prepared query deprecated, for SQLite only; this module is the one place
//! that relies on it, and running the statements one by one, as on
//! PostgreSQL, is the way back.) PostgreSQL prepares one statement at a
//! time: there the statements run in order, and a guard that finds nothing
//! stops the rest.
//!
//! A batch runs inside the caller's transaction and decides nothing: it
//! reports what each statement returned, and the caller commits or drops
//! the transaction. On SQLite every statement runs even after a guard found
//! nothing (its effects go with the transaction). After an error the batch
//! is incomplete: on SQLite the statements after a failed one do not run,
//! but those after a value that could not be read may have (sqlx runs
//! ahead of the reader), so an incomplete batch is never to be kept —
//! [`crate::server::db::Db::write_batch`] never keeps one.

use futures_util::StreamExt;
use sqlx::{PgConnection, Row, SqliteConnection};
use std::future::Future;

/// A value bound to a statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    OptInt(Option<i64>),
    Text(String),
    OptText(Option<String>),
    Bool(bool),
}

impl From<i64> for Value {
    fn from(value: i64) -> Value {
        Value::Int(value)
    }
}

impl From<Option<i64>> for Value {
    fn from(value: Option<i64>) -> Value {
        Value::OptInt(value)
    }
}

impl From<&str> for Value {
    fn from(value: &str) -> Value {
        Value::Text(value.to_owned())
    }
}

impl From<String> for Value {
    fn from(value: String) -> Value {
        Value::Text(value)
    }
}

impl From<&String> for Value {
    fn from(value: &String) -> Value {
        Value::Text(value.clone())
    }
}

impl From<Option<String>> for Value {
    fn from(value: Option<String>) -> Value {
        Value::OptText(value)
    }
}

impl From<bool> for Value {
    fn from(value: bool) -> Value {
        Value::Bool(value)
    }
}

/// Binds `$value` to the query `$query` (either backend's).
macro_rules! bind_value {
    ($query:expr, $value:expr) => {
        match $value {
            Value::Int(v) => $query.bind(*v),
            Value::OptInt(v) => $query.bind(*v),
            Value::Text(v) => $query.bind(v.as_str()),
            Value::OptText(v) => $query.bind(v.as_deref()),
            Value::Bool(v) => $query.bind(*v),
        }
    };
}

#[derive(Debug)]
struct Statement {
    /// With its own placeholders, `$1, $2, …` over `values`.
    sql: String,
    values: Vec<Value>,
    /// Without a row back from it, the rest is not worth running.
    guard: bool,
}

/// Statements to run in order, in one transaction (the caller's).
#[derive(Debug, Default)]
pub struct Batch {
    statements: Vec<Statement>,
}

/// Where a statement is in its batch, to read its outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step(usize);

impl Batch {
    /// Adds a statement whose placeholders `$1, $2, …` stand for `values`.
    /// It may return a row (`RETURNING`); the first column of the first
    /// row, an integer, is kept.
    pub fn push(&mut self, sql: impl Into<String>, values: Vec<Value>) -> Step {
        self.add(sql.into(), values, false)
    }

    /// Adds a statement that must return a row for the rest to matter (a
    /// revision check, the row to change): on PostgreSQL the batch stops
    /// when it returns none.
    pub fn guard(&mut self, sql: impl Into<String>, values: Vec<Value>) -> Step {
        self.add(sql.into(), values, true)
    }

    fn add(&mut self, sql: String, values: Vec<Value>, guard: bool) -> Step {
        self.statements.push(Statement { sql, values, guard });
        Step(self.statements.len() - 1)
    }

    /// The statements as one SQLite query: each one's placeholders moved
    /// past the values of those before it.
    fn joined(&self) -> String {
        let mut sql = String::new();
        let mut offset = 0;
        for statement in &self.statements {
            renumber_into(&mut sql, &statement.sql, offset);
            sql.push_str(";\n");
            offset += statement.values.len();
        }
        sql
    }

    /// Runs the batch on `connection` (a transaction's, the caller's).
    pub async fn run<C: RunBatch>(&self, connection: &mut C) -> Result<Outcome, sqlx::Error> {
        connection.run_batch(self).await
    }
}

/// `sql` with every placeholder `$N` written as `$(N + offset)`, appended
/// to `out`. The console's statements have no `$` anywhere else.
fn renumber_into(out: &mut String, sql: &str, offset: usize) {
    let mut rest = sql;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        match rest[..digits].parse::<usize>() {
            Ok(n) => out.push_str(&(n + offset).to_string()),
            Err(_) => out.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
}

/// What a batch did: for each statement that ran to its end, in order, the
/// integer it returned if it returned a row; and the error that stopped it,
/// if one did (at the statement after the last that ran).
#[derive(Debug)]
pub struct Outcome {
    returned: Vec<Option<i64>>,
    error: Option<sqlx::Error>,
}

impl Outcome {
    /// What `step` returned: `None` if it returned no row or did not run.
    pub fn value(&self, step: Step) -> Option<i64> {
        self.returned.get(step.0).copied().flatten()
    }

    /// Whether the error, if any, stopped the batch at `step`.
    pub fn failed_at(&self, step: Step) -> bool {
        self.error.is_some() && self.returned.len() == step.0
    }

    /// The error that stopped the batch, if any.
    pub fn error(self) -> Option<sqlx::Error> {
        self.error
    }

    /// Whether no statement failed (on PostgreSQL a guard that found
    /// nothing stops the batch without failing it).
    pub fn is_complete(&self) -> bool {
        self.error.is_none()
    }

    /// `Ok` if every statement ran, or the error that stopped one.
    pub fn finished(self) -> Result<(), sqlx::Error> {
        self.error.map_or(Ok(()), Err)
    }
}

/// A connection a batch runs on.
pub trait RunBatch {
    fn run_batch(
        &mut self,
        batch: &Batch,
    ) -> impl Future<Output = Result<Outcome, sqlx::Error>> + Send;
}

impl RunBatch for SqliteConnection {
    async fn run_batch(&mut self, batch: &Batch) -> Result<Outcome, sqlx::Error> {
        run_on_sqlite(self, &[], batch)
            .await
            .map(|(_, outcome)| outcome)
    }
}

/// Runs `batch` on SQLite as one query, after the statements of `prefix`
/// (a transaction's begin, a savepoint: see [`crate::server::writer`]).
/// Also says how many of those ran.
pub(crate) async fn run_on_sqlite(
    connection: &mut SqliteConnection,
    prefix: &[&str],
    batch: &Batch,
) -> Result<(usize, Outcome), sqlx::Error> {
    let mut sql = String::new();
    for statement in prefix {
        sql.push_str(statement);
        sql.push_str(";\n");
    }
    sql.push_str(&batch.joined());
    let mut query = sqlx::query(&sql);
    for value in batch.statements.iter().flat_map(|s| &s.values) {
        query = bind_value!(query, value);
    }
    let mut prefix_ran = 0;
    let mut returned = Vec::with_capacity(batch.statements.len());
    let mut first_row = None;
    let mut error = None;
    // Read to the end: the statements have all run (or stopped at an
    // error) by the time the caller decides what to do.
    let mut results = sqlx::Executor::fetch_many(&mut *connection, query);
    while let Some(result) = results.next().await {
        match result {
            Ok(sqlx::Either::Right(row)) => {
                if first_row.is_none() {
                    match row.try_get::<i64, _>(0) {
                        Ok(value) => first_row = Some(value),
                        // As if the statement had failed: the batch stops
                        // here, and the caller undoes what it did.
                        Err(e) => {
                            error = Some(e);
                            break;
                        }
                    }
                }
            }
            Ok(sqlx::Either::Left(_)) if prefix_ran < prefix.len() => prefix_ran += 1,
            Ok(sqlx::Either::Left(_)) => returned.push(first_row.take()),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    drop(results);
    Ok((prefix_ran, Outcome { returned, error }))
}

impl RunBatch for PgConnection {
    async fn run_batch(&mut self, batch: &Batch) -> Result<Outcome, sqlx::Error> {
        let mut returned = Vec::with_capacity(batch.statements.len());
        for statement in &batch.statements {
            let mut query = sqlx::query(&statement.sql);
            for value in &statement.values {
                query = bind_value!(query, value);
            }
            let result = query
                .fetch_optional(&mut *self)
                .await
                .and_then(|row| row.map(|row| row.try_get::<i64, _>(0)).transpose());
            match result {
                Ok(value) => {
                    returned.push(value);
                    if statement.guard && value.is_none() {
                        break;
                    }
                }
                Err(error) => {
                    return Ok(Outcome {
                        returned,
                        error: Some(error),
                    })
                }
            }
        }
        Ok(Outcome {
            returned,
            error: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_move_past_the_values_of_earlier_statements() {
        let mut batch = Batch::default();
        batch.push(
            "UPDATE a SET x = $1 WHERE id = $2",
            vec![1.into(), 2.into()],
        );
        batch.push("DELETE FROM b WHERE a = $1", vec![3.into()]);
        batch.push("INSERT INTO c VALUES ($2, $1, $10)", vec![]);
        assert_eq!(
            batch.joined(),
            "UPDATE a SET x = $1 WHERE id = $2;\nDELETE FROM b WHERE a = $3;\nINSERT INTO c VALUES ($5, $4, $13);\n"
        );
    }

    #[test]
    fn a_dollar_without_digits_is_left_as_it_is() {
        let mut out = String::new();
        renumber_into(&mut out, "SELECT '$' || $1, $", 5);
        assert_eq!(out, "SELECT '$' || $6, $");
    }
}
