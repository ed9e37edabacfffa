//! Eval runs: jobs in the database. A run is queued with one row per call
//! (each trial of each case, the case copied), and carried by whichever
//! server process holds its lease: the lease is taken with one `UPDATE …
//! RETURNING` (on PostgreSQL skipping rows another process is taking at
//! that moment), renewed while the run goes on, and taken over by another
//! process when it runs out — so a run survives a restart. A call's result
//! is written only while its run is still running under the same lease, and
//! only once: a run taken over never records a call twice.

use super::{Scope, WriteError};
use crate::{
    domain::{
        eval::{Called, EvalCase, RunStatus, RunSummary, Trial},
        org::Action,
        AppError,
    },
    in_transaction, on_db, on_writer,
    server::db::{Db, Pool},
};

/// A case as a run copies it: utterance, expected tool, arguments (JSON).
type CaseColumns = (String, Option<String>, Option<String>);

/// A row of `eval_calls` as read back.
#[derive(sqlx::FromRow)]
struct CallRow {
    case_no: i32,
    trial: i32,
    utterance: String,
    expected: Option<String>,
    arguments_json: Option<String>,
    calls_json: Option<String>,
}

const CALL_COLUMNS: &str =
    "case_no, trial, utterance, expected, arguments_json, calls_json FROM eval_calls WHERE run_id = $1";

/// Calls inserted per statement when a run is queued (each binds 6 values:
/// well within both backends' limits).
const CALLS_PER_INSERT: usize = 500;

/// Queues a run of the app's cases (as they are in the transaction) at
/// `revision`, `trials` times each, with provider `provider` of the app's
/// organization, if developer `by` may still edit the app: the run's id, or
/// `None` when the app has no cases.
pub async fn create(
    db: &Db,
    app_id: i64,
    revision: i64,
    provider: i64,
    trials: u32,
    by: i64,
    now_ms: i64,
) -> Result<Option<i64>, WriteError> {
    in_transaction!(db, tx => {
        may_write!(tx, Scope::App(app_id), by, Action::Edit).await?;
        let found: Option<(String, String)> = sqlx::query_as(
            "SELECT p.name, p.model FROM model_providers p JOIN apps a ON a.org_id = p.org_id \
             WHERE p.id = $1 AND a.id = $2",
        )
        .bind(provider)
        .bind(app_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((provider_name, model)) = found else {
            return Err(WriteError::Refused(AppError::Gone(
                "That model provider was removed. Choose another.".into(),
            )));
        };
        let cases: Vec<CaseColumns> = sqlx::query_as(
            "SELECT utterance, expected, arguments_json FROM eval_cases WHERE app_id = $1 ORDER BY id",
        )
        .bind(app_id)
        .fetch_all(&mut *tx)
        .await?;
        if cases.is_empty() {
            return Ok(None);
        }
        let total = (cases.len() as i64) * i64::from(trials);
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO eval_runs (app_id, revision, provider_id, provider_name, model, trials, status, \
             calls_total, created_by, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8, $9) RETURNING id",
        )
        .bind(app_id)
        .bind(revision)
        .bind(provider)
        .bind(&provider_name)
        .bind(&model)
        .bind(trials as i32)
        .bind(total as i32)
        .bind(by)
        .bind(now_ms)
        .fetch_one(&mut *tx)
        .await?;
        let calls: Vec<(i32, i32, &CaseColumns)> = (1..=trials as i32)
            .flat_map(|trial| {
                cases
                    .iter()
                    .enumerate()
                    .map(move |(no, case)| (no as i32, trial, case))
            })
            .collect();
        for chunk in calls.chunks(CALLS_PER_INSERT) {
            let mut insert = crate::server::repo::sql::insert_into(
                &tx,
                "INSERT INTO eval_calls (run_id, case_no, trial, utterance, expected, arguments_json) ",
            );
            insert.push_values(chunk, |mut row, (no, trial, (utterance, expected, arguments))| {
                row.push_bind(id)
                    .push_bind(*no)
                    .push_bind(*trial)
                    .push_bind(utterance)
                    .push_bind(expected)
                    .push_bind(arguments);
            });
            insert.build().execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(Some(id))
    })
}

/// A run a server process has taken, and what it needs to carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claimed {
    pub id: i64,
    pub app_id: i64,
    pub revision: i64,
    /// `None` once the provider was removed.
    pub provider_id: Option<i64>,
}

/// Takes the oldest open run whose lease is free or ran out, for `owner`
/// until `until`.
pub async fn claim(
    db: &Db,
    owner: &str,
    now_ms: i64,
    until: i64,
) -> Result<Option<Claimed>, sqlx::Error> {
    // The lease is checked again on the row itself: on PostgreSQL a claim
    // that waited for another's to commit sees the lease it took, and
    // leaves the run alone.
    const FREE: &str =
        "status IN ('queued', 'running') AND (lease_until IS NULL OR lease_until < $1)";
    let sql = |lock: &str| {
        format!(
            "UPDATE eval_runs SET status = 'running', started_at = COALESCE(started_at, $1), \
             lease_owner = $2, lease_until = $3 \
             WHERE id = (SELECT id FROM eval_runs WHERE {FREE} ORDER BY id LIMIT 1{lock}) AND {FREE} \
             RETURNING id, app_id, revision, provider_id"
        )
    };
    let sql = match db.writes() {
        Pool::Sqlite(_) => sql(""),
        Pool::Postgres(_) => sql(" FOR UPDATE SKIP LOCKED"),
    };
    let row: Option<(i64, i64, i64, Option<i64>)> = on_writer!(db, conn => sqlx::query_as(&sql)
        .bind(now_ms)
        .bind(owner)
        .bind(until)
        .fetch_optional(conn)
        .await)?;
    Ok(row.map(|(id, app_id, revision, provider_id)| Claimed {
        id,
        app_id,
        revision,
        provider_id,
    }))
}

/// Keeps `owner`'s lease on run `id` until `until`: whether it still holds
/// it (false once the run was cancelled or taken over, or its provider
/// removed or no longer of the app's organization).
pub async fn renew(db: &Db, id: i64, owner: &str, until: i64) -> Result<bool, sqlx::Error> {
    let done = on_writer!(db, conn => sqlx::query(
        "UPDATE eval_runs SET lease_until = $1 \
         WHERE id = $2 AND lease_owner = $3 AND status = 'running' \
         AND EXISTS (SELECT 1 FROM model_providers p JOIN apps a ON a.org_id = p.org_id \
                     WHERE p.id = eval_runs.provider_id AND a.id = eval_runs.app_id)",
    )
    .bind(until)
    .bind(id)
    .bind(owner)
    .execute(conn)
    .await
    .map(|done| done.rows_affected()))?;
    Ok(done > 0)
}

/// A call of a run still to make.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingCall {
    pub case_no: i32,
    pub trial: i32,
    pub case: EvalCase,
}

/// The calls of run `id` not made yet: the first trial of every case first.
pub async fn pending(db: &Db, id: i64) -> Result<Vec<PendingCall>, sqlx::Error> {
    let sql = format!("SELECT {CALL_COLUMNS} AND calls_json IS NULL ORDER BY trial, case_no");
    let rows: Vec<CallRow> = on_db!(db, pool => sqlx::query_as(&sql)
        .bind(id)
        .fetch_all(pool)
        .await)?;
    rows.into_iter()
        .map(|row| {
            Ok(PendingCall {
                case_no: row.case_no,
                trial: row.trial,
                case: case_of(row.utterance, row.expected, row.arguments_json)?,
            })
        })
        .collect()
}

fn case_of(
    utterance: String,
    expected: Option<String>,
    arguments: Option<String>,
) -> Result<EvalCase, sqlx::Error> {
    let arguments = arguments
        .map(|json| serde_json::from_str(&json))
        .transpose()
        .map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
    Ok(EvalCase {
        utterance,
        expected,
        arguments,
    })
}

/// What one call came to.
#[derive(Clone, Debug, PartialEq)]
pub struct Made {
    pub trial: Trial,
    pub passed: bool,
    pub finish_reason: String,
    pub latency_ms: i64,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
}

/// What recording a call came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    Recorded,
    /// The call was recorded already (by this lease's holder, before a
    /// restart of its pending list): nothing changed, the run goes on.
    Already,
    /// The run is no longer carried under this lease (cancelled, or taken
    /// over): nothing was written.
    LeaseLost,
}

/// Records call (`case_no`, `trial`) of run `id` as `made`, if `owner`
/// still carries the run. The run's row is read (and on PostgreSQL locked)
/// first, so a cancel or a takeover either comes before the record and
/// stops it, or after it.
pub async fn record(
    db: &Db,
    id: i64,
    owner: &str,
    case_no: i32,
    trial: i32,
    made: &Made,
) -> Result<Recorded, sqlx::Error> {
    let calls =
        serde_json::to_string(&made.trial.calls).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
    in_transaction!(db, tx => {
        let postgres = crate::server::repo::sql::is_postgres(&tx);
        let ours: Option<i64> = sqlx::query_scalar(if postgres {
            "SELECT id FROM eval_runs WHERE id = $1 AND lease_owner = $2 AND status = 'running' FOR UPDATE"
        } else {
            "SELECT id FROM eval_runs WHERE id = $1 AND lease_owner = $2 AND status = 'running'"
        })
        .bind(id)
        .bind(owner)
        .fetch_optional(&mut *tx)
        .await?;
        if ours.is_none() {
            return Ok(Recorded::LeaseLost);
        }
        let written = sqlx::query(
            "UPDATE eval_calls SET calls_json = $1, finish_reason = $2, latency_ms = $3, \
             prompt_tokens = $4, completion_tokens = $5 \
             WHERE run_id = $6 AND case_no = $7 AND trial = $8 AND calls_json IS NULL",
        )
        .bind(&calls)
        .bind(&made.finish_reason)
        .bind(made.latency_ms)
        .bind(made.prompt_tokens)
        .bind(made.completion_tokens)
        .bind(id)
        .bind(case_no)
        .bind(trial)
        .execute(&mut *tx)
        .await?;
        if written.rows_affected() == 0 {
            return Ok(Recorded::Already);
        }
        sqlx::query(
            "UPDATE eval_runs SET calls_done = calls_done + 1, calls_passed = calls_passed + $1, \
             prompt_tokens = prompt_tokens + $2, completion_tokens = completion_tokens + $3 WHERE id = $4",
        )
        .bind(i32::from(made.passed))
        .bind(made.prompt_tokens)
        .bind(made.completion_tokens)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Recorded::Recorded)
    })
}

/// Ends run `id`, carried by `owner`, as `status` (done or failed, with
/// its reason): whether it was still running under that lease.
pub async fn finish(
    db: &Db,
    id: i64,
    owner: &str,
    status: RunStatus,
    error: Option<&str>,
    now_ms: i64,
) -> Result<bool, sqlx::Error> {
    let done = on_writer!(db, conn => sqlx::query(
        "UPDATE eval_runs SET status = $1, error = $2, finished_at = $3, lease_owner = NULL, lease_until = NULL \
         WHERE id = $4 AND lease_owner = $5 AND status = 'running'",
    )
    .bind(status.key())
    .bind(error)
    .bind(now_ms)
    .bind(id)
    .bind(owner)
    .execute(conn)
    .await
    .map(|done| done.rows_affected()))?;
    Ok(done > 0)
}

/// Cancels run `id` of the app if developer `by` may still edit it:
/// `None` when there is no such run, else whether it was still open.
pub async fn cancel(
    db: &Db,
    app_id: i64,
    id: i64,
    by: i64,
    now_ms: i64,
) -> Result<Option<bool>, WriteError> {
    in_transaction!(db, tx => {
        may_write!(tx, Scope::App(app_id), by, Action::Edit).await?;
        let status: Option<String> = sqlx::query_scalar(
            "SELECT status FROM eval_runs WHERE id = $1 AND app_id = $2",
        )
        .bind(id)
        .bind(app_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(status) = status else {
            return Ok(None);
        };
        if !RunStatus::parse(&status).is_some_and(RunStatus::is_open) {
            return Ok(Some(false));
        }
        // A run that ended since it was read (on PostgreSQL) is left as it is.
        let done = sqlx::query(
            "UPDATE eval_runs SET status = 'cancelled', finished_at = $1, lease_owner = NULL, lease_until = NULL \
             WHERE id = $2 AND status IN ('queued', 'running')",
        )
        .bind(now_ms)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(done.rows_affected() > 0))
    })
}

const RUN_COLUMNS: &str = "id, revision, provider_name, model, trials, status, error, \
     calls_done, calls_total, calls_passed, prompt_tokens, completion_tokens, \
     created_at, started_at, finished_at";

/// A row of `eval_runs` as the list reads it.
#[derive(sqlx::FromRow)]
struct RunRow {
    id: i64,
    revision: i64,
    provider_name: String,
    model: String,
    trials: i32,
    status: String,
    error: Option<String>,
    calls_done: i32,
    calls_total: i32,
    calls_passed: i32,
    prompt_tokens: i64,
    completion_tokens: i64,
    created_at: i64,
    started_at: Option<i64>,
    finished_at: Option<i64>,
}

fn summary_of(row: RunRow) -> Result<RunSummary, sqlx::Error> {
    let status = RunStatus::parse(&row.status).ok_or_else(|| {
        sqlx::Error::Decode(format!("unknown run status {:?}", row.status).into())
    })?;
    let count = |n: i32| u32::try_from(n).unwrap_or(0);
    Ok(RunSummary {
        id: row.id,
        revision: row.revision,
        provider: row.provider_name,
        model: row.model,
        trials: count(row.trials),
        status,
        error: row.error,
        calls_done: count(row.calls_done),
        calls_total: count(row.calls_total),
        calls_passed: count(row.calls_passed),
        prompt_tokens: row.prompt_tokens,
        completion_tokens: row.completion_tokens,
        created_at: row.created_at,
        started_at: row.started_at,
        finished_at: row.finished_at,
    })
}

/// The app's runs, newest first (at most `limit`).
pub async fn list(db: &Db, app_id: i64, limit: i64) -> Result<Vec<RunSummary>, sqlx::Error> {
    let sql =
        format!("SELECT {RUN_COLUMNS} FROM eval_runs WHERE app_id = $1 ORDER BY id DESC LIMIT $2");
    let rows: Vec<RunRow> = on_db!(db, pool => sqlx::query_as(&sql)
        .bind(app_id)
        .bind(limit)
        .fetch_all(pool)
        .await)?;
    rows.into_iter().map(summary_of).collect()
}

/// Run `id` of the app.
pub async fn get(db: &Db, app_id: i64, id: i64) -> Result<Option<RunSummary>, sqlx::Error> {
    let sql = format!("SELECT {RUN_COLUMNS} FROM eval_runs WHERE id = $1 AND app_id = $2");
    let row: Option<RunRow> = on_db!(db, pool => sqlx::query_as(&sql)
        .bind(id)
        .bind(app_id)
        .fetch_optional(pool)
        .await)?;
    row.map(summary_of).transpose()
}

/// Run `id`'s cases in order, each with the trials made so far (in order).
pub async fn results(db: &Db, id: i64) -> Result<Vec<(EvalCase, Vec<Trial>)>, sqlx::Error> {
    let sql = format!("SELECT {CALL_COLUMNS} ORDER BY case_no, trial");
    let rows: Vec<CallRow> = on_db!(db, pool => sqlx::query_as(&sql)
        .bind(id)
        .fetch_all(pool)
        .await)?;
    let mut results: Vec<(i32, EvalCase, Vec<Trial>)> = Vec::new();
    for row in rows {
        if results.last().is_none_or(|(no, _, _)| *no != row.case_no) {
            let case = case_of(row.utterance, row.expected, row.arguments_json)?;
            results.push((row.case_no, case, Vec::new()));
        }
        if let Some(calls) = row.calls_json {
            let calls: Vec<Called> =
                serde_json::from_str(&calls).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
            if let Some((_, _, trials)) = results.last_mut() {
                trials.push(Trial { calls });
            }
        }
    }
    Ok(results
        .into_iter()
        .map(|(_, case, trials)| (case, trials))
        .collect())
}
