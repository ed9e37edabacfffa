//! `toolwright-bench`: the in-process half of `make bench` (scripts/bench.py).
//!
//! ```text
//! toolwright-bench seed DATABASE_URL            # the data set; prints the API key (JSON)
//! toolwright-bench revisions DATABASE_URL       # current revision of each bench app (JSON)
//! toolwright-bench floor-save DATABASE_URL CONNECTIONS SECONDS
//! toolwright-bench floor-export DATABASE_URL THREADS SECONDS
//! toolwright-bench probe ADDR PATH RATE SECONDS CONNECTIONS
//! ```
//!
//! The floors call the same code the server runs — the repository write,
//! the export renderer — without HTTP, sessions or server functions, so the
//! HTTP figures can be read as a ratio against them. The probe asks the
//! server for one path at a steady rate, for latencies at a load it can
//! easily bear (wrk's are at the most it can).

use std::{
    collections::BTreeMap,
    process::ExitCode,
    time::{Duration, Instant},
};
use toolwright::{
    api::auth::CurrentDeveloper,
    domain::{
        app::AppInput,
        config::AppConfig,
        export::{render_text, ExportOptions, Format},
        revision::Change,
        tool::{ParamType, Parameter, Tool},
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

async fn seed(url: &str) -> Result<(), String> {
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
            public_url: "https://bench.example.com".into(),
        };
        let app_id = repo::apps::create(&db, &me, &input, now_ms())
            .await
            .map_err(|e| e.to_string())?;
        let config = AppConfig {
            name: input.name.clone(),
            description: input.description.clone(),
            version: input.version.clone(),
            public_url: input.public_url.clone(),
            settings: None,
            tools: (0..TOOLS).map(|t| tool(t, 0)).collect(),
        };
        repo::revisions::replace(
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
    }
    let app = repo::apps::find_by_package(&db, &app_name(0))
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the first app is missing")?;
    let key = repo::api_keys::generate().map_err(|e| e.to_string())?;
    repo::api_keys::create(&db, app.id, "bench", &key, now_ms())
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "{}",
        serde_json::json!({ "key": key, "email": EMAIL, "password": PASSWORD })
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

fn summary(mut latencies: Vec<Duration>, elapsed: Duration) -> serde_json::Value {
    latencies.sort_unstable();
    serde_json::json!({
        "requests": latencies.len(),
        "rps": latencies.len() as f64 / elapsed.as_secs_f64(),
        "p50_ms": percentile(&latencies, 0.50),
        "p99_ms": percentile(&latencies, 0.99),
    })
}

fn report(latencies: Vec<Duration>, elapsed: Duration) {
    println!("{}", summary(latencies, elapsed));
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
                let written = repo::tools::save(
                    &db,
                    app.id,
                    revision,
                    Some("tool_000"),
                    &tool(0, variant),
                    &me,
                    now_ms(),
                )
                .await
                .map_err(|e| e.to_string())?;
                match written {
                    repo::tools::ToolWrite::Applied { revision: next, .. } => revision = next,
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

/// Asks `http://{addr}{path}` `rate` times a second for `seconds` (after the
/// warm-up), over `connections` kept-alive connections, each on a schedule
/// of its own (staggered), and prints the latencies and the answers other
/// than 200 (JSON).
async fn probe(
    addr: &str,
    path: &str,
    rate: f64,
    seconds: u64,
    connections: usize,
) -> Result<(), String> {
    let measured = Duration::from_secs(seconds);
    let (latencies, errors) =
        probe_latencies(addr, path, rate, connections, warmup(), measured).await?;
    let mut out = summary(latencies, measured);
    out["errors"] = errors.into();
    println!("{out}");
    Ok(())
}

/// The probe's measurements: each request answered 200 that was due in the
/// measured stretch, and how many were not.
///
/// A request is timed from when it was due if its connection was still
/// waiting for the answer before (the server was slow, so the wait is the
/// server's), otherwise from when it was sent (a timer waking late is the
/// probe's, not the server's). So a stall is charged to every request due
/// while it lasts, not only to the few already sent, as a closed loop
/// (wrk), which sends nothing while it waits, would charge it.
async fn probe_latencies(
    addr: &str,
    path: &str,
    rate: f64,
    connections: usize,
    warmup: Duration,
    measured: Duration,
) -> Result<(Vec<Duration>, u64), String> {
    if !(rate.is_finite() && rate > 0.0) || connections == 0 {
        return Err("the rate and the connections must be more than 0".into());
    }
    let interval = Duration::from_secs_f64(connections as f64 / rate);
    let begin = Instant::now() + Duration::from_millis(20);
    let counted_from = begin + warmup;
    let deadline = counted_from + measured;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").into_bytes();
    let mut tasks = Vec::new();
    for index in 0..connections {
        let addr = addr.to_owned();
        let request = request.clone();
        tasks.push(tokio::spawn(async move {
            let mut stream = http::connect(&addr).await?;
            let mut latencies = Vec::new();
            let mut errors = 0u64;
            let mut due = begin + interval.mul_f64(index as f64 / connections as f64);
            while due < deadline {
                let sent = if Instant::now() < due {
                    tokio::time::sleep_until(due.into()).await;
                    Instant::now()
                } else {
                    due
                };
                // As long as wrk waits (`--timeout 10s` in scripts/bench.py).
                let answer = tokio::time::timeout(
                    Duration::from_secs(10),
                    http::exchange(&stream, &request),
                )
                .await;
                let counted = due >= counted_from;
                match answer {
                    Ok(Ok(200)) if counted => latencies.push(sent.elapsed()),
                    Ok(Ok(200)) => {}
                    Ok(Ok(_)) => errors += u64::from(counted),
                    // Lost or timed out: whatever comes on it now is not an
                    // answer to the next request.
                    Ok(Err(_)) | Err(_) => {
                        errors += u64::from(counted);
                        stream = http::connect(&addr).await?;
                    }
                }
                due += interval;
            }
            Ok::<_, String>((latencies, errors))
        }));
    }
    let mut all = Vec::new();
    let mut errors = 0;
    for task in tasks {
        let (latencies, failed) = task.await.map_err(|e| e.to_string())??;
        all.extend(latencies);
        errors += failed;
    }
    Ok((all, errors))
}

/// Just enough HTTP/1.1 for the probe: one request at a time on a kept-alive
/// connection, answers with a Content-Length.
mod http {
    use std::io::{Error, ErrorKind, Result};
    use tokio::net::TcpStream;

    pub async fn connect(addr: &str) -> std::result::Result<TcpStream, String> {
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("{addr}: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        Ok(stream)
    }

    pub async fn write_all(stream: &TcpStream, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            stream.writable().await?;
            match stream.try_write(bytes) {
                Ok(written) => bytes = &bytes[written..],
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Appends what the stream has to `buffer`; an error at its end.
    pub async fn read_some(stream: &TcpStream, buffer: &mut Vec<u8>) -> Result<()> {
        let mut chunk = [0u8; 4096];
        loop {
            stream.readable().await?;
            match stream.try_read(&mut chunk) {
                Ok(0) => return Err(ErrorKind::UnexpectedEof.into()),
                Ok(read) => {
                    buffer.extend_from_slice(&chunk[..read]);
                    return Ok(());
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Sends `request` and reads its whole answer: its status code.
    pub async fn exchange(stream: &TcpStream, request: &[u8]) -> Result<u16> {
        write_all(stream, request).await?;
        let mut buffer = Vec::with_capacity(512);
        loop {
            read_some(stream, &mut buffer).await?;
            if let Some(status) = complete(&buffer)? {
                return Ok(status);
            }
        }
    }

    /// The status code of the answer in `buffer` once all of it is there.
    pub fn complete(buffer: &[u8]) -> Result<Option<u16>> {
        let Some(head_end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") else {
            return Ok(None);
        };
        let head = std::str::from_utf8(&buffer[..head_end])
            .map_err(|_| Error::new(ErrorKind::InvalidData, "a head that is not UTF-8"))?;
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .and_then(|line| line.split(' ').nth(1))
            .and_then(|code| code.parse().ok())
            .ok_or_else(|| Error::new(ErrorKind::InvalidData, "no status line"))?;
        let length: usize = lines
            .filter_map(|line| line.split_once(':'))
            .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
            .and_then(|(_, value)| value.trim().parse().ok())
            .ok_or_else(|| Error::new(ErrorKind::InvalidData, "no Content-Length"))?;
        Ok((buffer.len() >= head_end + 4 + length).then_some(status))
    }
}

// The server's allocator, so that the floors run on it too.
toolwright::install_allocator!();

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    let number = |i: usize, default: u64| arg(i).parse().unwrap_or(default);
    let result = match arg(1) {
        "seed" => seed(arg(2)).await,
        "revisions" => revisions(arg(2)).await,
        "floor-save" => floor_save(arg(2), number(3, 16) as usize, number(4, 5)).await,
        "floor-export" => floor_export(arg(2), number(3, 2) as usize, number(4, 5)).await,
        "probe" => {
            let rate = arg(4).parse().unwrap_or(1000.0);
            probe(arg(2), arg(3), rate, number(5, 5), number(6, 4) as usize).await
        }
        _ => Err(
            "usage: toolwright-bench seed|revisions|floor-save|floor-export DATABASE_URL …, \
             or probe ADDR PATH RATE SECONDS CONNECTIONS"
                .into(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    const OK: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";

    #[test]
    fn an_answer_is_complete_once_its_head_and_body_are_there() {
        assert_eq!(http::complete(b"HTTP/1.1 200 OK\r\nconte").unwrap(), None);
        assert_eq!(http::complete(&OK[..OK.len() - 1]).unwrap(), None);
        assert_eq!(http::complete(OK).unwrap(), Some(200));
        let not_found = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
        assert_eq!(http::complete(not_found).unwrap(), Some(404));
        assert!(http::complete(b"HTTP/1.1 200 OK\r\n\r\n").is_err());
        assert!(http::complete(b"nonsense\r\n\r\n").is_err());
    }

    /// A server on one connection that answers every request at once, but
    /// the `stall_at`th only after `stall`.
    async fn stalling_server(stall_at: usize, stall: Duration) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut buffer = Vec::new();
            for count in 1.. {
                while !buffer.windows(4).any(|w| w == b"\r\n\r\n") {
                    if http::read_some(&stream, &mut buffer).await.is_err() {
                        return;
                    }
                }
                buffer.clear();
                if count == stall_at {
                    tokio::time::sleep(stall).await;
                }
                if http::write_all(&stream, OK).await.is_err() {
                    return;
                }
            }
        });
        addr
    }

    #[tokio::test]
    async fn a_stall_is_charged_to_every_request_due_while_it_lasts() {
        // 1,000 a second on one connection for 300 ms, the 100th answer 50 ms late.
        let addr = stalling_server(100, Duration::from_millis(50)).await;
        let (latencies, errors) = probe_latencies(
            &addr,
            "/",
            1000.0,
            1,
            Duration::ZERO,
            Duration::from_millis(300),
        )
        .await
        .unwrap();
        assert_eq!(errors, 0);
        // One request for each millisecond, stall or not.
        assert_eq!(latencies.len(), 300);
        // The requests due in the stall's first half waited at least its
        // second half; a closed loop would have had one slow request.
        let slow = latencies
            .iter()
            .filter(|took| **took >= Duration::from_millis(25))
            .count();
        assert!(slow >= 20, "{slow} requests took 25 ms or more");
    }
}
