//! `toolwright-bench`: the in-process half of `make bench` (scripts/bench.py).
//!
//! ```text
//! toolwright-bench seed DATABASE_URL            # the data set; prints the API key (JSON)
//! toolwright-bench revisions DATABASE_URL       # current revision of each bench app (JSON)
//! toolwright-bench floor-save DATABASE_URL CONNECTIONS SECONDS
//! toolwright-bench floor-export DATABASE_URL THREADS SECONDS
//! ```
//!
//! The floors do what a save and an export do — the repository write, the
//! export renderer — without HTTP, sessions or server functions, so that
//! the report can show how much of a request's time the console adds.

use std::{
    collections::BTreeMap,
    process::ExitCode,
    time::{Duration, Instant},
};
use toolwright::{
    domain::{
        account::CurrentDeveloper,
        app::AppInput,
        config::AppConfig,
        export::{render_text, ExportOptions, Format},
        revision::Change,
        tool::{ParamType, Parameter, Tool, ToolEdit},
    },
    server::{clock::now_ms, password, repo, Config, Db},
};

/// Apps `bench.app00` (export, page) and `bench.app01`…`bench.app16` (saves).
pub const APPS: usize = 17;
pub const TOOLS: usize = 100;
pub const PARAMETERS: usize = 10;
pub const EMAIL: &str = "bench@example.com";
pub const PASSWORD: &str = "correct horse battery staple";
/// Accounts `login0@example.com`… for the log-in load, one per connection.
pub const LOGIN_ACCOUNTS: usize = 8;

fn app_name(index: usize) -> String {
    format!("bench.app{index:02}")
}

/// Tool `index` of an app; `variant` changes its description (for saves).
fn tool(index: usize, variant: u64) -> Tool {
    let parameters = (0..PARAMETERS)
        .map(|p| {
            let param_type = [ParamType::String, ParamType::Number, ParamType::Boolean][p % 3];
            Parameter {
                name: format!("param_{p}"),
                param_type,
                description: format!(
                    "Parameter {p} of tool {index}: what it means and which values make sense"
                ),
                required: p % 4 == 0,
                enum_values: if param_type == ParamType::String && p % 2 == 0 {
                    vec!["low".into(), "medium".into(), "high".into()]
                } else {
                    vec![]
                },
                extra: Default::default(),
            }
        })
        .collect();
    Tool {
        id: format!("tool_{index:03}"),
        description: format!(
            "Tool {index} (version {variant}): does one thing the assistant can ask the app to do, described in a sentence or two."
        ),
        activation_phrases: vec![
            format!("run tool {index}"),
            format!("please do {index}"),
            format!("start number {index}"),
        ],
        parameters,
        ..Tool::default()
    }
}

async fn open(url: &str) -> Result<Db, String> {
    let config = Config::for_database(url).map_err(|e| e.to_string())?;
    let db = Db::connect(&config).await.map_err(|e| e.to_string())?;
    db.migrate().await.map_err(|e| e.to_string())?;
    Ok(db)
}

async fn author(db: &Db) -> Result<CurrentDeveloper, String> {
    let found = repo::developers::find_by_email(db, EMAIL)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("run `seed` first")?;
    Ok(CurrentDeveloper {
        id: found.id,
        email: found.email,
    })
}

/// Seeds the benchmark's database; the first app's server is `first_app_url`
/// (the stub app tools/call reaches), or a placeholder.
async fn seed(url: &str, first_app_url: &str) -> Result<(), String> {
    let db = open(url).await?;
    let hash = password::hash_password(PASSWORD.to_owned())
        .await
        .map_err(|e| e.to_string())?;
    let id = repo::developers::create(&db, EMAIL, &hash, now_ms())
        .await
        .map_err(|e| e.to_string())?;
    let me = CurrentDeveloper {
        id,
        email: EMAIL.to_owned(),
    };
    // The apps go to the developer's personal organization, made with the account.
    let (_, memberships) = repo::developers::find_signed_in(&db, id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the developer just made")?;
    let (org, org_slug) = memberships
        .current()
        .map(|org| (org.id, org.slug.clone()))
        .ok_or("a personal organization")?;
    // The accounts of the log-in load (bench/login.lua): one per connection.
    for index in 0..LOGIN_ACCOUNTS {
        repo::developers::create(&db, &format!("login{index}@example.com"), &hash, now_ms())
            .await
            .map_err(|e| e.to_string())?;
    }
    for index in 0..APPS {
        let input = AppInput {
            package_name: app_name(index),
            name: format!("Benchmark app {index}"),
            description: "An app with 100 tools of 10 parameters each".into(),
            version: "1.0.0".into(),
            public_url: match (index, first_app_url) {
                (0, url) if !url.is_empty() => url.to_owned(),
                _ => "https://bench.example.com".into(),
            },
        };
        let app_id = repo::apps::create(&db, &me, org, &input, now_ms())
            .await
            .map_err(|e| e.to_string())?;
        let config = AppConfig {
            name: input.name.clone(),
            description: input.description.clone(),
            version: input.version.clone(),
            public_url: input.public_url.clone(),
            settings: None,
            extra: Default::default(),
            tools: (0..TOOLS).map(|t| tool(t, 0).into()).collect(),
        };
        let replaced = repo::revisions::replace(
            &db,
            app_id,
            1,
            &config,
            Change::Imported { tools: TOOLS },
            &me,
            now_ms(),
        )
        .await
        .map_err(|e| e.to_string())?;
        if replaced == repo::revisions::Revised::Stale {
            return Err(format!("{} changed while it was seeded", app_name(index)));
        }
    }
    let app = repo::apps::find_by_package(&db, &app_name(0))
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the first app is missing")?;
    let key = repo::api_keys::generate().map_err(|e| e.to_string())?;
    let new = repo::api_keys::NewKey {
        name: "bench",
        key: &key,
        export_only: false,
    };
    repo::api_keys::create(&db, app.id, me.id, new, now_ms())
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "{}",
        serde_json::json!({ "key": key, "email": EMAIL, "password": PASSWORD, "org": org_slug })
    );
    Ok(())
}

async fn revisions(url: &str) -> Result<(), String> {
    let db = open(url).await?;
    let mut out = BTreeMap::new();
    for index in 0..APPS {
        let app = repo::apps::find_by_package(&db, &app_name(index))
            .await
            .map_err(|e| e.to_string())?
            .ok_or("run `seed` first")?;
        out.insert(app_name(index), app.details.revision);
    }
    println!("{}", serde_json::to_string(&out).unwrap_or_default());
    Ok(())
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at].as_secs_f64() * 1000.0
}

/// Prints how many were done a second and their latencies (JSON).
fn report(mut latencies: Vec<Duration>, elapsed: Duration) {
    latencies.sort_unstable();
    let summary = serde_json::json!({
        "requests": latencies.len(),
        "rps": latencies.len() as f64 / elapsed.as_secs_f64(),
        "p50_ms": percentile(&latencies, 0.50),
        "p99_ms": percentile(&latencies, 0.99),
    });
    println!("{summary}");
}

/// Seconds of the same load before a floor is measured (`BENCH_WARMUP`,
/// as for the HTTP scenarios): a fresh connection starts with nothing
/// cached.
fn warmup() -> Duration {
    Duration::from_secs(
        std::env::var("BENCH_WARMUP")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1),
    )
}

/// `connections` tasks, each saving tool_000 of its own app over and over.
async fn floor_save(url: &str, connections: usize, seconds: u64) -> Result<(), String> {
    let db = open(url).await?;
    let me = author(&db).await?;
    let started = Instant::now() + warmup();
    let deadline = started + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for index in 0..connections {
        let db = db.clone();
        let me = me.clone();
        tasks.push(tokio::spawn(async move {
            let app = repo::apps::find_by_package(&db, &app_name(1 + index % (APPS - 1)))
                .await
                .ok()
                .flatten()
                .ok_or("run `seed` first".to_owned())?;
            let mut revision = app.details.revision;
            let mut latencies = Vec::new();
            let mut variant = 1_000_000 * (index as u64 + 1);
            while Instant::now() < deadline {
                variant += 1;
                let began = Instant::now();
                let edit = ToolEdit::Save {
                    original_id: Some("tool_000".to_owned()),
                    tool: Box::new(tool(0, variant)),
                };
                let written =
                    repo::revisions::edit_tools(&db, app.id, revision, &edit, &me, now_ms())
                        .await
                        .map_err(|e| e.to_string())?;
                match written {
                    repo::revisions::ToolWrite::Applied { revision: next, .. } => revision = next,
                    other => return Err(format!("unexpected {other:?}")),
                }
                if began >= started {
                    latencies.push(began.elapsed());
                }
            }
            Ok::<_, String>(latencies)
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.map_err(|e| e.to_string())??);
    }
    report(all, started.elapsed());
    Ok(())
}

/// `threads` threads rendering the first app's export as fast as they can.
async fn floor_export(url: &str, threads: usize, seconds: u64) -> Result<(), String> {
    let db = open(url).await?;
    let app = repo::apps::find_by_package(&db, &app_name(0))
        .await
        .map_err(|e| e.to_string())?
        .ok_or("run `seed` first")?;
    let config = repo::apps::load_config(&db, &app)
        .await
        .map_err(|e| e.to_string())?;
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let config = config.clone();
            std::thread::spawn(move || {
                let mut latencies = Vec::new();
                while Instant::now() < deadline {
                    let began = Instant::now();
                    let text = render_text(&config, Format::Mentra, ExportOptions::default());
                    std::hint::black_box(text);
                    latencies.push(began.elapsed());
                }
                latencies
            })
        })
        .collect();
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.join().map_err(|_| "a render thread panicked")?);
    }
    report(all, started.elapsed());
    Ok(())
}

// The server's allocator, so that the floors run on it too.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    let number = |i: usize, default: u64| arg(i).parse().unwrap_or(default);
    let result = match arg(1) {
        "seed" => seed(arg(2), arg(3)).await,
        "revisions" => revisions(arg(2)).await,
        "floor-save" => floor_save(arg(2), number(3, 16) as usize, number(4, 5)).await,
        "floor-export" => floor_export(arg(2), number(3, 2) as usize, number(4, 5)).await,
        _ => Err(
            "usage: toolwright-bench seed|revisions|floor-save|floor-export DATABASE_URL …".into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("toolwright-bench: {error}");
            ExitCode::FAILURE
        }
    }
}
