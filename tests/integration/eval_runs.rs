//! Eval runs as jobs in the database, on both backends: carried by real
//! server processes (the console's binary) against the stand-in model
//! server of the test suite (end2end/fixtures/model-standin.cjs, which
//! speaks the Chat Completions protocol), each call made and recorded once
//! — with two processes, across a process killed mid-run, after 429s —
//! cancelled, refused on a private address, and with the provider's key in
//! no page, answer or log.

use crate::{
    common::{create_key, json_call, poll_every, Browser, ServerProcess, TestDatabase},
    orgs::{todo_form, APP, PASSWORD},
};
use serde_json::{json, Value};
use std::time::Duration;
use toolwright::{
    domain::eval::{RunStatus, RunSummary},
    on_db,
    server::{repo, Config, Db},
};

const KEY: &str = "sk-standin-key-7c1e5a";
/// 32 bytes of 9, in base64.
const SECRET: &str = "CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQk=";
const EVALS: &str = "/console/apps/com.acme.todo/evals";

/// The stand-in model server, run with Node.js for the length of a test.
pub struct Standin {
    pub url: String,
    child: std::process::Child,
}

impl Standin {
    pub fn start() -> Standin {
        use std::io::BufRead;
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/end2end/fixtures/model-standin.cjs"
        );
        let mut child = std::process::Command::new("node")
            .arg(script)
            .arg("0")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("Node.js runs the stand-in model server (node on PATH)");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .strip_prefix("READY ")
            .unwrap_or_else(|| panic!("the stand-in says READY: {line:?}"))
            .trim()
            .to_owned();
        Standin {
            url: format!("http://127.0.0.1:{port}"),
            child,
        }
    }

    pub async fn stats(&self) -> Value {
        reqwest::get(format!("{}/stats", self.url))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

impl Drop for Standin {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A console process on `db` with the secret key, a short lease and, if
/// `private`, calls to loopback allowed (the stand-in is on loopback).
async fn console(db: &TestDatabase, private: bool) -> ServerProcess {
    ServerProcess::start_with(
        &db.url,
        &[
            ("RUST_LOG", "info"),
            ("TOOLWRIGHT_SECRET_KEY", SECRET),
            ("TOOLWRIGHT_EVAL_LEASE_SECONDS", "2"),
            (
                "TOOLWRIGHT_ALLOW_PRIVATE_TARGETS",
                if private { "true" } else { "false" },
            ),
        ],
    )
    .await
}

fn tool(id: &str, description: &str, parameter: Option<&str>) -> Value {
    json!({
        "tool_id": id,
        "description": description,
        "activation_phrases": "",
        "title": "",
        "max_calls": "",
        "hints": {},
        "parameters": parameter.map_or(vec![], |name| vec![json!({
            "name": name,
            "param_type": "string",
            "description": "The item",
            "required": true,
            "allowed_values": ""
        })]),
    })
}

/// Alice on `process`: organization Acme, its app com.acme.todo with two
/// tools, the provider "Standin" (`model` at the stand-in, key `key`) and
/// three cases the stand-in answers as expected.
async fn alice_ready(
    process: &ServerProcess,
    standin: &Standin,
    model: &str,
    key: &str,
) -> Browser {
    let mut alice = process.browser(None);
    assert_eq!(
        alice.signup("alice@example.com", PASSWORD).await.status,
        302
    );
    alice
        .form_post("/api/orgs/create", &[("name", "Acme")])
        .await;
    let made = alice
        .call("/api/apps/create", &todo_form("https://todo.example.com"))
        .await;
    assert!(made.status < 400, "{made:?}");
    let mut revision = 1;
    for draft in [
        tool(
            "add_todo",
            "Add an item to the user's to-do list",
            Some("todo_item"),
        ),
        tool("get_todos", "List the to-do items and reminders", None),
    ] {
        let saved = json_call(
            &alice,
            "/api/tools/save",
            json!({"package_name": APP, "revision": revision, "original_id": null, "draft": draft}),
        )
        .await;
        revision = serde_json::from_str::<Value>(&saved).unwrap()["revision"]
            .as_i64()
            .unwrap_or_else(|| panic!("{saved}"));
    }
    let base_url = format!("{}/v1", standin.url);
    let added = alice
        .form_post(
            "/api/orgs/providers/add",
            &[
                ("slug", "acme"),
                ("name", "Standin"),
                ("base_url", &base_url),
                ("model", model),
                ("api_key", key),
            ],
        )
        .await;
    assert!(
        added
            .location
            .as_deref()
            .unwrap_or("")
            .contains("provider_added"),
        "{added:?}"
    );
    for (utterance, expected, arguments) in [
        (
            "add milk to my to-do list",
            "add_todo",
            r#"{"todo_item": "list"}"#,
        ),
        ("list my reminders", "get_todos", ""),
        ("hello there", "", ""),
    ] {
        let added = alice
            .form_post(
                "/api/evals/cases/add",
                &[
                    ("package_name", APP),
                    ("utterance", utterance),
                    ("expected", expected),
                    ("arguments", arguments),
                ],
            )
            .await;
        assert!(
            added
                .location
                .as_deref()
                .unwrap_or("")
                .contains("case_added"),
            "{added:?}"
        );
    }
    alice
}

/// Starts a run from the page's form: its id.
async fn run(alice: &mut Browser, trials: &str) -> i64 {
    let started = alice
        .form_post(
            "/api/evals/runs/start",
            &[
                ("package_name", APP),
                ("provider", "Standin"),
                ("trials", trials),
            ],
        )
        .await;
    let location = started
        .location
        .unwrap_or_else(|| panic!("{}", started.body));
    location
        .split("run=")
        .nth(1)
        .and_then(|rest| rest.split('#').next())
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("{location}"))
}

/// Reads every 50 ms until `done` holds, for `within` at most.
async fn poll_until<T, Fut>(
    within: Duration,
    read: impl FnMut() -> Fut,
    done: impl Fn(&T) -> bool,
) -> T
where
    Fut: std::future::Future<Output = T>,
{
    poll_every(Duration::from_millis(50), within, read, done).await
}

/// A test's parts: the stand-in, a console process (calls to loopback
/// allowed if `private`), Alice ready on it with `model` and `key`, and
/// the database.
async fn ready(
    test_db: &TestDatabase,
    private: bool,
    model: &str,
    key: &str,
) -> (Standin, ServerProcess, Browser, Db) {
    let standin = Standin::start();
    let process = console(test_db, private).await;
    let alice = alice_ready(&process, &standin, model, key).await;
    let db = db_of(test_db).await;
    (standin, process, alice, db)
}

async fn db_of(test_db: &TestDatabase) -> Db {
    Db::connect(&Config::for_database(&test_db.url).unwrap())
        .await
        .unwrap()
}

async fn app_id(db: &Db) -> i64 {
    on_db!(db, pool => sqlx::query_scalar::<_, i64>("SELECT id FROM apps WHERE package_name = $1")
        .bind(APP)
        .fetch_one(pool)
        .await)
    .unwrap()
}

async fn run_of(db: &Db, id: i64) -> RunSummary {
    repo::eval_runs::get(db, app_id(db).await, id)
        .await
        .unwrap()
        .expect("the run")
}

/// Waits (at most `within`) until run `id` is no longer open.
async fn finished(db: &Db, id: i64, within: Duration) -> RunSummary {
    let run = poll_until(within, || run_of(db, id), |run| !run.status.is_open()).await;
    assert!(!run.status.is_open(), "the run finished in time: {run:?}");
    run
}

/// Calls of run `id` recorded (a call recorded twice would be one row
/// with one answer: the counters are what would double).
async fn recorded(db: &Db, id: i64) -> i64 {
    on_db!(db, pool => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM eval_calls WHERE run_id = $1 AND calls_json IS NOT NULL",
    )
    .bind(id)
    .fetch_one(pool)
    .await)
    .unwrap()
}

#[tokio::test]
async fn two_processes_carry_runs_each_call_made_once_and_scored() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (standin, first, mut alice, db) = ready(&test_db, true, "standin", KEY).await;
        let second = console(&test_db, true).await;
        // Two runs at once: each process may take one, never both the same.
        let (one, two) = (run(&mut alice, "3").await, run(&mut alice, "2").await);
        for (id, trials) in [(one, 3), (two, 2)] {
            let run = finished(&db, id, Duration::from_secs(30)).await;
            assert_eq!(run.status, RunStatus::Done, "{label}: {run:?}");
            assert_eq!(
                (run.calls_done, run.calls_total, run.calls_passed),
                (3 * trials, 3 * trials, 3 * trials),
                "{label}"
            );
            assert_eq!(recorded(&db, id).await, i64::from(3 * trials), "{label}");
            assert!(
                run.prompt_tokens > 0 && run.completion_tokens > 0,
                "{label}"
            );
        }
        let stats = standin.stats().await;
        assert_eq!(
            stats["requests"], 15,
            "{label}: each call made once: {stats}"
        );
        assert_eq!(stats["byUtterance"]["list my reminders"], 5, "{label}");
        assert_eq!(
            stats["authorizations"],
            json!([format!("Bearer {KEY}")]),
            "{label}"
        );
        // What was sent: the app's tools as the openai export gives them.
        let sent = &stats["lastRequest"];
        assert_eq!(sent["tool_choice"], "auto", "{label}");
        assert_eq!(sent["tools"][0]["type"], "function", "{label}");
        assert_eq!(sent["tools"][0]["function"]["name"], "add_todo", "{label}");
        assert_eq!(sent["messages"][0]["role"], "system", "{label}");

        let page = alice.get(&format!("{EVALS}?run={one}")).await;
        assert!(page.body.contains("Score: 100% (9 of 9 calls)"), "{label}");
        assert!(page.body.contains("Confusion"), "{label}");
        for text in [page.body.as_str(), &first.log(), &second.log()] {
            assert!(!text.contains(KEY), "{label}: the key shows");
        }
    }
}

#[tokio::test]
async fn a_run_whose_process_is_killed_goes_on_in_another_with_no_call_lost_or_doubled() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (standin, mut first, mut alice, db) =
            ready(&test_db, true, "standin-slow-150", KEY).await;
        let id = run(&mut alice, "10").await;
        let midway = poll_until(
            Duration::from_secs(20),
            || run_of(&db, id),
            |run| run.calls_done >= 6,
        )
        .await;
        assert!(midway.calls_done >= 6, "{label}: {midway:?}");
        first.kill();
        let at_kill = run_of(&db, id).await;
        assert_eq!(at_kill.status, RunStatus::Running, "{label}");
        assert!(
            at_kill.calls_done < 30,
            "{label}: still under way when killed"
        );

        // Another process takes the run over once the lease runs out.
        let _second = console(&test_db, true).await;
        let run = finished(&db, id, Duration::from_secs(40)).await;
        assert_eq!(run.status, RunStatus::Done, "{label}: {run:?}");
        assert_eq!((run.calls_done, run.calls_passed), (30, 30), "{label}");
        assert_eq!(recorded(&db, id).await, 30, "{label}");
        let answered = standin.stats().await["answered"].as_i64().unwrap();
        // Only the calls in flight at the kill were made again.
        assert!(
            (30..=30 + toolwright::server::evals::IN_FLIGHT as i64).contains(&answered),
            "{label}: {answered} calls answered"
        );
    }
}

#[tokio::test]
async fn a_cancelled_run_stops_and_keeps_the_calls_it_made() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (standin, _process, mut alice, db) =
            ready(&test_db, true, "standin-slow-200", KEY).await;
        let id = run(&mut alice, "10").await;
        poll_until(
            Duration::from_secs(20),
            || run_of(&db, id),
            |run| run.calls_done >= 2,
        )
        .await;
        let page = alice.get(&format!("{EVALS}?run={id}")).await;
        assert!(
            page.body.contains("role=\"progressbar\"") || page.body.contains("<progress"),
            "{label}"
        );
        let cancelled = alice
            .form_post(
                "/api/evals/runs/cancel",
                &[("package_name", APP), ("id", &id.to_string())],
            )
            .await;
        assert!(
            cancelled
                .location
                .as_deref()
                .unwrap_or("")
                .contains("cancelled=1"),
            "{label}: {cancelled:?}"
        );
        let at_cancel = run_of(&db, id).await;
        assert_eq!(at_cancel.status, RunStatus::Cancelled, "{label}");
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let later = run_of(&db, id).await;
        assert_eq!(later.status, RunStatus::Cancelled, "{label}");
        assert_eq!(
            later.calls_done, at_cancel.calls_done,
            "{label}: nothing recorded after"
        );
        assert!(later.calls_done < 30, "{label}");
        let answered = standin.stats().await["answered"].as_i64().unwrap();
        assert!(
            answered <= i64::from(later.calls_done) + toolwright::server::evals::IN_FLIGHT as i64,
            "{label}: {answered} calls answered after the cancel"
        );
        // Cancelling again says it is over; another app's run is not found.
        let again = alice
            .form_post(
                "/api/evals/runs/cancel",
                &[("package_name", APP), ("id", &id.to_string())],
            )
            .await;
        assert!(
            again.location.unwrap().contains("already_over=1"),
            "{label}"
        );
        let unknown = alice
            .form_post(
                "/api/evals/runs/cancel",
                &[("package_name", APP), ("id", "999999")],
            )
            .await;
        // A plain form's refusal comes back to the page, in words.
        let back = unknown.location.unwrap_or_default();
        assert!(back.contains("__err"), "{label}: {back}");
        let path = match back.split_once("://") {
            Some((_, rest)) => &rest[rest.find('/').unwrap_or(0)..],
            None => back.as_str(),
        };
        let shown = alice.get(path).await;
        assert!(shown.body.contains("Not found."), "{label}");
    }
}

#[tokio::test]
async fn a_busy_provider_is_waited_for_and_every_call_made() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (standin, _process, mut alice, db) = ready(&test_db, true, "standin-busy", KEY).await;
        let id = run(&mut alice, "3").await;
        let run = finished(&db, id, Duration::from_secs(30)).await;
        assert_eq!(run.status, RunStatus::Done, "{label}: {run:?}");
        assert_eq!((run.calls_done, run.calls_passed), (9, 9), "{label}");
        let stats = standin.stats().await;
        assert_eq!(stats["answered"], 9, "{label}: {stats}");
        // The stand-in turns each call away once before answering it.
        assert_eq!(
            stats["requests"], 18,
            "{label}: the 429s were tried again: {stats}"
        );
    }
}

#[tokio::test]
async fn a_provider_that_refuses_or_fails_fails_the_run_in_words_without_its_key() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        // A wrong key: the provider's 401, told in words, not tried again.
        let bad_key = "bad-key-for-the-standin-3141";
        let (standin, process, mut alice, db) = ready(&test_db, true, "standin", bad_key).await;
        let id = run(&mut alice, "1").await;
        let run = finished(&db, id, Duration::from_secs(20)).await;
        assert_eq!(run.status, RunStatus::Failed, "{label}");
        assert_eq!(
            run.error.as_deref(),
            Some("The provider answered 401: Incorrect API key provided: (the API key)."),
            "{label}"
        );
        // Each of the three cases' calls was made at most once (they were
        // in flight together): a refusal is not tried again.
        let requests = standin.stats().await["requests"].as_i64().unwrap();
        assert!((1..=3).contains(&requests), "{label}: {requests} requests");
        let page = alice.get(&format!("{EVALS}?run={id}")).await;
        assert!(
            page.body
                .contains("The run failed: The provider answered 401"),
            "{label}"
        );
        for text in [page.body.as_str(), &process.log()] {
            assert!(!text.contains(bad_key), "{label}: the key shows");
        }
    }
}

#[tokio::test]
async fn a_provider_on_a_private_address_is_refused_without_the_setting() {
    let test_db = TestDatabase::sqlite();
    let (standin, _process, mut alice, db) = ready(&test_db, false, "standin", KEY).await;
    let id = run(&mut alice, "1").await;
    let run = finished(&db, id, Duration::from_secs(20)).await;
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.unwrap();
    assert!(
        error.contains("loopback") && error.contains("TOOLWRIGHT_ALLOW_PRIVATE_TARGETS"),
        "{error}"
    );
    assert_eq!(standin.stats().await["requests"], 0, "nothing was sent");
}

#[tokio::test]
async fn ci_starts_a_run_and_reads_its_score_with_an_app_key() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (_standin, process, alice, _) = ready(&test_db, true, "standin", KEY).await;
        let key = create_key(&alice, APP, "CI").await;
        let export_only: Value = serde_json::from_str(
            &json_call(
                &alice,
                "/api/keys/create",
                json!({"package_name": APP, "name": "Exports", "export_only": true}),
            )
            .await,
        )
        .unwrap();
        let export_only = export_only["key"].as_str().unwrap().to_owned();
        let base = format!("http://{}/api/v1/apps/{APP}/evals/runs", process.addr);
        let client = reqwest::Client::new();
        let post = |key: Option<&str>, body: Value| {
            let mut request = client.post(&base).json(&body);
            if let Some(key) = key {
                request = request.bearer_auth(key);
            }
            request.send()
        };
        let body = json!({"provider": "Standin", "trials": 2});
        assert_eq!(
            post(None, body.clone()).await.unwrap().status(),
            401,
            "{label}"
        );
        assert_eq!(
            post(Some(&export_only), body.clone())
                .await
                .unwrap()
                .status(),
            403,
            "{label}"
        );
        let unknown = post(Some(&key), json!({"provider": "Nope", "trials": 2}))
            .await
            .unwrap();
        assert_eq!(unknown.status(), 400, "{label}");
        let unknown: Value = unknown.json().await.unwrap();
        assert!(
            unknown["fields"]["provider"].is_string(),
            "{label}: {unknown}"
        );
        let too_many = post(Some(&key), json!({"provider": "Standin", "trials": 11}))
            .await
            .unwrap();
        assert_eq!(too_many.status(), 400, "{label}");

        let started = post(Some(&key), body).await.unwrap();
        assert_eq!(started.status(), 202, "{label}");
        let started: Value = started.json().await.unwrap();
        assert_eq!(started["status"], "queued", "{label}");
        let id = started["id"].as_i64().unwrap();
        let read = || async {
            client
                .get(format!("{base}/{id}"))
                .bearer_auth(&key)
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        };
        let done = poll_until(Duration::from_secs(30), read, |run| run["status"] == "done").await;
        assert_eq!(done["status"], "done", "{label}: {done}");
        assert_eq!(done["score"], 1.0, "{label}");
        assert_eq!(done["revision"], 3, "{label}");
        assert_eq!(
            done["results"][2],
            json!({"utterance": "hello there", "expected": null, "chosen": ["none", "none"], "passed": true, "trials_passed": 2, "unstable": false}),
            "{label}"
        );
        assert!(!done.to_string().contains(KEY), "{label}");
        // Another app's key, or a run that is not there: 404.
        let mut bob = process.browser(None);
        bob.signup("bob@example.com", PASSWORD).await;
        bob.form_post("/api/orgs/create", &[("name", "Bobs")]).await;
        let mut form = todo_form("https://bob.example.com");
        form[0].1 = "com.bob.app";
        assert!(bob.call("/api/apps/create", &form).await.status < 400);
        let foreign = create_key(&bob, "com.bob.app", "CI").await;
        let answer = client
            .get(format!("{base}/{id}"))
            .bearer_auth(&foreign)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 404, "{label}");
        let answer = post(Some(&foreign), json!({"provider": "Standin", "trials": 1}))
            .await
            .unwrap();
        assert_eq!(answer.status(), 404, "{label}");
        let missing = client
            .get(format!("{base}/{}", id + 1000))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap();
        assert_eq!(missing.status(), 404, "{label}");
    }
}

#[tokio::test]
async fn a_provider_removed_mid_run_fails_the_run_in_words() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (_standin, _process, mut alice, db) =
            ready(&test_db, true, "standin-slow-300", KEY).await;
        let id = run(&mut alice, "10").await;
        poll_until(
            Duration::from_secs(20),
            || run_of(&db, id),
            |run| run.calls_done >= 1,
        )
        .await;
        let provider: i64 =
            on_db!(&db, pool => sqlx::query_scalar("SELECT id FROM model_providers")
            .fetch_one(pool)
            .await)
            .unwrap();
        let removed = alice
            .form_post(
                "/api/orgs/providers/remove",
                &[
                    ("slug", "acme"),
                    ("id", &provider.to_string()),
                    ("confirmed", "yes"),
                ],
            )
            .await;
        assert!(
            removed
                .location
                .as_deref()
                .unwrap_or("")
                .contains("provider_removed"),
            "{label}: {removed:?}"
        );
        // The lease is renewed every 2/3 s: the run ends within a few.
        let run = finished(&db, id, Duration::from_secs(10)).await;
        assert_eq!(run.status, RunStatus::Failed, "{label}");
        assert_eq!(
            run.error.as_deref(),
            Some("The model provider was removed, or the app moved to another organization, before the run finished."),
            "{label}"
        );
        assert!(run.calls_done < 30, "{label}");
    }
}

#[tokio::test]
async fn an_app_moved_to_another_organization_mid_run_stops_spending_its_provider() {
    for test_db in TestDatabase::all().await {
        let label = test_db.label();
        let (standin, _process, mut alice, db) =
            ready(&test_db, true, "standin-slow-300", KEY).await;
        let id = run(&mut alice, "10").await;
        poll_until(
            Duration::from_secs(20),
            || run_of(&db, id),
            |run| run.calls_done >= 1,
        )
        .await;
        // To Alice's personal organization, which has no such provider.
        let moved = alice
            .form_post(
                "/api/apps/move",
                &[
                    ("package_name", APP),
                    ("to", "alice-example-com"),
                    ("confirmed", "yes"),
                ],
            )
            .await;
        assert!(
            moved.location.as_deref().unwrap_or("").contains("moved="),
            "{label}: {moved:?}"
        );
        let run = finished(&db, id, Duration::from_secs(10)).await;
        assert_eq!(run.status, RunStatus::Failed, "{label}");
        assert_eq!(
            run.error.as_deref(),
            Some("The model provider was removed, or the app moved to another organization, before the run finished."),
            "{label}"
        );
        // No call starts after the lease ends; those in flight may finish.
        let answered = standin.stats().await["answered"].as_i64().unwrap();
        tokio::time::sleep(Duration::from_millis(800)).await;
        let later = standin.stats().await["answered"].as_i64().unwrap();
        assert!(
            later - answered <= toolwright::server::evals::IN_FLIGHT as i64,
            "{label}: {answered} then {later}"
        );
        assert!(later < 30, "{label}");
    }
}
