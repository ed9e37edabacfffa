//! Shared by the integration tests: throwaway databases and a real server.

use std::{
    net::SocketAddr,
    sync::atomic::{AtomicU32, Ordering},
    time::{SystemTime, UNIX_EPOCH},
};
use toolwright::server::{self, AppState, Config};

/// A database that exists for one test: a SQLite file in a temporary
/// directory, or a fresh PostgreSQL database that is dropped afterwards.
pub struct TestDatabase {
    pub url: String,
    _dir: Option<tempfile::TempDir>,
    postgres: Option<PostgresCleanup>,
}

struct PostgresCleanup {
    admin_url: String,
    name: String,
}

impl TestDatabase {
    pub fn sqlite() -> TestDatabase {
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}", dir.path().join("toolwright.db").display());
        TestDatabase {
            url,
            _dir: Some(dir),
            postgres: None,
        }
    }

    /// A fresh database on the server `TEST_POSTGRES_URL` names, or `None`
    /// (with a message) when it is not set.
    pub async fn postgres() -> Option<TestDatabase> {
        let Some(admin_url) = std::env::var("TEST_POSTGRES_URL")
            .ok()
            .filter(|u| !u.is_empty())
        else {
            eprintln!("TEST_POSTGRES_URL is not set: skipping the PostgreSQL variant of this test");
            return None;
        };
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let name = format!(
            "toolwright_test_{}_{}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            nanos
        );
        use sqlx::{Connection, Executor};
        let mut admin = sqlx::PgConnection::connect(&admin_url)
            .await
            .expect("connect to TEST_POSTGRES_URL");
        admin
            .execute(format!("CREATE DATABASE {name}").as_str())
            .await
            .expect("create a test database");
        admin.close().await.ok();
        Some(TestDatabase {
            url: with_database(&admin_url, &name),
            _dir: None,
            postgres: Some(PostgresCleanup { admin_url, name }),
        })
    }

    /// Both backends: SQLite always, PostgreSQL when configured.
    pub async fn all() -> Vec<TestDatabase> {
        let mut all = vec![TestDatabase::sqlite()];
        all.extend(TestDatabase::postgres().await);
        all
    }

    pub fn config(&self) -> Config {
        Config::for_database(&self.url).expect("a valid test database URL")
    }

    pub fn label(&self) -> &'static str {
        if self.postgres.is_some() {
            "postgres"
        } else {
            "sqlite"
        }
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let Some(cleanup) = self.postgres.take() else {
            return;
        };
        // Drop may run inside a runtime; a thread with its own runtime
        // can block on the cleanup either way.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for cleanup");
            runtime.block_on(async move {
                use sqlx::{Connection, Executor};
                if let Ok(mut admin) = sqlx::PgConnection::connect(&cleanup.admin_url).await {
                    let _ = admin
                        .execute(
                            format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", cleanup.name)
                                .as_str(),
                        )
                        .await;
                }
            });
        })
        .join();
    }
}

/// `postgres://u@h:5432/test?x=y` with database `name` → `postgres://u@h:5432/name?x=y`.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_start = base.find("://").map(|i| i + 3).unwrap_or(0);
    let path_start = base[authority_start..]
        .find('/')
        .map(|i| authority_start + i)
        .unwrap_or(base.len());
    let mut out = format!("{}/{}", &base[..path_start], name);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// The console's real server on a free loopback port.
pub struct TestServer {
    pub addr: SocketAddr,
    pub state: AppState,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    pub db: TestDatabase,
    _site: tempfile::TempDir,
}

impl TestServer {
    pub async fn start(db: TestDatabase) -> TestServer {
        let config = db.config();
        Self::start_with(db, config).await
    }

    /// Starts the server with `config` on `db`. The site root is a temporary
    /// directory holding `public/`, so static files are served without a
    /// front-end build.
    pub async fn start_with(db: TestDatabase, config: Config) -> TestServer {
        let site = tempfile::tempdir().expect("site directory");
        for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/public")).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), site.path().join(entry.file_name())).unwrap();
        }
        let leptos_options = leptos::config::LeptosOptions::builder()
            .output_name("toolwright")
            .site_root(site.path().to_string_lossy().into_owned())
            .site_pkg_dir("pkg")
            .build();
        let state = server::prepare(config, leptos_options)
            .await
            .expect("the server prepares");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind port 0");
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let router = toolwright::app::router(state.clone());
        let task = tokio::spawn(server::serve(listener, state.clone(), router, async move {
            let _ = rx.await;
        }));
        TestServer {
            addr,
            state,
            shutdown: Some(tx),
            task: Some(task),
            db,
            _site: site,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Stops accepting, lets requests finish, and waits for the server task.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            task.await
                .expect("server task")
                .expect("server ran cleanly");
        }
    }
}

#[test]
fn database_names_are_replaced_in_postgres_urls() {
    assert_eq!(
        with_database("postgres://root@127.0.0.1:5432/test", "x"),
        "postgres://root@127.0.0.1:5432/x"
    );
    assert_eq!(
        with_database("postgres://root@127.0.0.1:5432/test?sslmode=disable", "x"),
        "postgres://root@127.0.0.1:5432/x?sslmode=disable"
    );
    assert_eq!(with_database("postgres://h", "x"), "postgres://h/x");
}

/// A browser-like HTTP client: follows no redirects, keeps the session
/// cookie, and sends the headers a same-origin form post would.
pub struct Browser {
    pub base: String,
    pub host: String,
    client: reqwest::Client,
    pub session: Option<String>,
    /// The page the next form post comes from (its `Referer`).
    pub page: String,
}

/// What came back, with the parts the tests look at.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub location: Option<String>,
    pub set_cookie: Vec<String>,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Answer {
    /// The server function error in a non-HTML answer's body.
    pub fn app_error(&self) -> toolwright::api::AppError {
        let error = serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not an AppError ({e}): {} {}", self.status, self.body));
        // Every error is sent with the status it stands for, not a blanket 500.
        assert_eq!(
            self.status,
            toolwright::server::http::server_fn_status(&error).as_u16(),
            "status of {error:?}"
        );
        error
    }

    /// The session cookie this answer sets, if any (`Some("")` when it removes it).
    pub fn session_cookie(&self) -> Option<&str> {
        self.set_cookie.iter().find_map(|c| {
            c.strip_prefix("toolwright_session=")
                .map(|rest| rest.split(';').next().unwrap_or(""))
        })
    }
}

impl Browser {
    pub fn new(server: &TestServer) -> Browser {
        Browser {
            base: format!("http://{}", server.addr),
            host: server.addr.to_string(),
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            session: None,
            page: "/".to_owned(),
        }
    }

    async fn send(&mut self, request: reqwest::RequestBuilder) -> Answer {
        let request = match &self.session {
            Some(id) => request.header("cookie", format!("toolwright_session={id}")),
            None => request,
        };
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let location = headers
            .get("location")
            .map(|v| v.to_str().unwrap().to_owned());
        let set_cookie: Vec<String> = headers
            .get_all("set-cookie")
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect();
        let body = response.text().await.unwrap_or_default();
        let answer = Answer {
            status,
            location,
            set_cookie,
            headers,
            body,
        };
        if let Some(cookie) = answer.session_cookie() {
            self.session = (!cookie.is_empty()).then(|| cookie.to_owned());
        }
        answer
    }

    pub async fn get(&mut self, path: &str) -> Answer {
        self.page = path.to_owned();
        let request = self.client.get(format!("{}{path}", self.base));
        self.send(request).await
    }

    /// A plain HTML form post from one of the console's own pages.
    pub async fn form_post(&mut self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let request = self
            .client
            .post(format!("{}{path}", self.base))
            .header("accept", "text/html")
            .header("origin", format!("http://{}", self.host))
            .header("referer", format!("{}{}", self.base, self.page))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(encode_form(fields));
        self.send(request).await
    }

    /// A server function call as the islands make it (answers with data).
    pub async fn call(&mut self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let request = self
            .client
            .post(format!("{}{path}", self.base))
            .header("accept", "application/json")
            .header("origin", format!("http://{}", self.host))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(encode_form(fields));
        self.send(request).await
    }

    /// A request made with whatever extra headers the test wants.
    pub async fn post_with(
        &mut self,
        path: &str,
        headers: &[(&str, &str)],
        fields: &[(&str, &str)],
    ) -> Answer {
        let mut request = self
            .client
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(encode_form(fields));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send(request).await
    }

    /// A server function call that only reads, for checking state.
    pub async fn clone_call(&self, path: &str, fields: &[(&str, &str)]) -> String {
        let mut request = self
            .client
            .post(format!("{}{path}", self.base))
            .header("accept", "application/json")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(encode_form(fields));
        if let Some(id) = &self.session {
            request = request.header("cookie", format!("toolwright_session={id}"));
        }
        request.send().await.unwrap().text().await.unwrap()
    }

    pub async fn signup(&mut self, email: &str, password: &str) -> Answer {
        self.form_post("/api/signup", &[("email", email), ("password", password)])
            .await
    }

    pub async fn login(&mut self, email: &str, password: &str) -> Answer {
        self.form_post("/api/login", &[("email", email), ("password", password)])
            .await
    }
}

pub fn encode_form(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(k, v)| {
            format!(
                "{}={}",
                toolwright::domain::url::encode_component(k),
                toolwright::domain::url::encode_component(v)
            )
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// POSTs `body` as JSON to the server function at `path` with `browser`'s
/// session, as the hydrated pages do: the status and the body.
pub async fn json_call_with_status(
    browser: &Browser,
    path: &str,
    body: serde_json::Value,
) -> (u16, String) {
    let response = reqwest::Client::new()
        .post(format!("{}{path}", browser.base))
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("origin", browser.base.clone())
        .header(
            "cookie",
            format!(
                "toolwright_session={}",
                browser.session.clone().unwrap_or_default()
            ),
        )
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// [`json_call_with_status`], the body only.
pub async fn json_call(browser: &Browser, path: &str, body: serde_json::Value) -> String {
    json_call_with_status(browser, path, body).await.1
}

/// Reads with `read` until `done` holds of the reading, for `within` at
/// most, and gives the last reading: for what a task of its own writes a
/// moment after the step that started it.
pub async fn poll_until<T, Fut>(
    within: std::time::Duration,
    read: impl FnMut() -> Fut,
    done: impl Fn(&T) -> bool,
) -> T
where
    Fut: std::future::Future<Output = T>,
{
    poll_every(std::time::Duration::from_millis(2), within, read, done).await
}

/// [`poll_until`], reading every `pause`: for what takes seconds, so that
/// the reads leave the machine's cores to the work they wait for.
pub async fn poll_every<T, Fut>(
    pause: std::time::Duration,
    within: std::time::Duration,
    mut read: impl FnMut() -> Fut,
    done: impl Fn(&T) -> bool,
) -> T
where
    Fut: std::future::Future<Output = T>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let reading = read().await;
        if done(&reading) || tokio::time::Instant::now() >= deadline {
            return reading;
        }
        tokio::time::sleep(pause).await;
    }
}

/// Deletes the accounts of `emails` behind the console's back, as an
/// operator would (the console has no way to); each must exist.
pub async fn delete_accounts(server: &TestServer, emails: &[&str]) {
    for email in emails {
        let deleted: u64 = toolwright::on_db!(&server.state.db, pool => sqlx::query(
            "DELETE FROM developers WHERE email = $1",
        )
        .bind(email)
        .execute(pool)
        .await
        .map(|done| done.rows_affected()))
        .unwrap();
        assert_eq!(deleted, 1, "{email}");
    }
}

/// The console's own binary, run as a process of its own on a free port
/// against `database_url`: a second server beside a [`TestServer`], as in a
/// deployment of several processes on one database.
pub struct ServerProcess {
    pub addr: SocketAddr,
    child: std::process::Child,
    _site: tempfile::TempDir,
}

/// A site root holding the bundle files a binary built by plain cargo or
/// by cargo-leptos names when hashing is off (their content does not matter
/// to these tests): the console refuses to start without them.
pub fn site_with_bundle() -> tempfile::TempDir {
    let site = tempfile::tempdir().expect("site directory");
    let pkg = site.path().join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    for name in [
        "toolwright.js",
        "toolwright.wasm",
        "toolwright_bg.wasm",
        "toolwright.css",
    ] {
        std::fs::write(pkg.join(name), "").unwrap();
    }
    site
}

/// A free port: bound, noted, released for a process to take.
pub fn free_port() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
}

impl ServerProcess {
    pub async fn start(database_url: &str) -> ServerProcess {
        Self::start_with(database_url, &[("RUST_LOG", "warn")]).await
    }

    /// [`ServerProcess::start`] with extra environment variables; what the
    /// process logs is kept ([`ServerProcess::log`]).
    pub async fn start_with(database_url: &str, env: &[(&str, &str)]) -> ServerProcess {
        let site = site_with_bundle();
        let addr = free_port();
        let log = std::fs::File::create(site.path().join("server.log")).expect("a log file");
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .env("DATABASE_URL", database_url)
            .env("LEPTOS_SITE_ADDR", addr.to_string())
            .env("LEPTOS_SITE_ROOT", site.path())
            .env("LEPTOS_HASH_FILES", "false")
            .envs(env.iter().copied())
            .stdout(log)
            .spawn()
            .expect("start the console's binary");
        let process = ServerProcess {
            addr,
            child,
            _site: site,
        };
        let healthz = format!("http://{addr}/healthz");
        let up = poll_until(
            std::time::Duration::from_secs(30),
            || async {
                reqwest::get(&healthz)
                    .await
                    .is_ok_and(|r| r.status() == 200)
            },
            |up| *up,
        )
        .await;
        assert!(up, "the second server process answers on {addr}");
        process
    }

    /// Kills the process at once (SIGKILL): nothing of it finishes.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Everything the process has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self._site.path().join("server.log")).unwrap_or_default()
    }

    /// A browser pointed at this process, holding `session`.
    pub fn browser(&self, session: Option<String>) -> Browser {
        Browser {
            base: format!("http://{}", self.addr),
            host: self.addr.to_string(),
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            session,
            page: "/".to_owned(),
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// App `package` if `developer` is a member of its organization.
pub async fn app_of(
    db: &toolwright::server::Db,
    developer: i64,
    package: &str,
) -> Result<Option<toolwright::server::repo::apps::StoredApp>, sqlx::Error> {
    Ok(
        toolwright::server::repo::apps::find_for_member(db, developer, package)
            .await?
            .map(|(app, _)| app),
    )
}

/// The id of `developer`'s personal organization (made with the account).
pub async fn personal_org(db: &toolwright::server::Db, developer: i64) -> i64 {
    toolwright::server::repo::developers::find_signed_in(db, developer)
        .await
        .expect("read the developer")
        .and_then(|(_, memberships)| memberships.orgs.first().map(|org| org.id))
        .expect("a developer with an organization")
}

/// A new API key named `name` of app `package`, made by `browser`'s
/// developer: the key itself, shown once.
pub async fn create_key(browser: &Browser, package: &str, name: &str) -> String {
    let made: serde_json::Value = serde_json::from_str(
        &json_call(
            browser,
            "/api/keys/create",
            serde_json::json!({"package_name": package, "name": name}),
        )
        .await,
    )
    .unwrap();
    made["key"]
        .as_str()
        .unwrap_or_else(|| panic!("the key, shown once: {made}"))
        .to_owned()
}

/// A GET of the REST API at `path`, with `key` as its bearer token if any.
pub async fn api_get(server: &TestServer, path: &str, key: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(server.url(path));
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    request.send().await.unwrap()
}

/// The editor's three edits and an app's tools now, as the tests make and
/// read them: through the one write every change takes, and the app's
/// latest revision.
pub mod tools {
    use toolwright::{
        domain::{
            account::CurrentDeveloper,
            tool::{MoveDirection, Tool, ToolEdit},
        },
        server::{
            repo::{
                revisions::{self, ToolWrite},
                WriteError,
            },
            Db,
        },
    };

    pub async fn save(
        db: &Db,
        app_id: i64,
        revision: i64,
        original_id: Option<&str>,
        tool: &Tool,
        author: &CurrentDeveloper,
        now_ms: i64,
    ) -> Result<ToolWrite, WriteError> {
        let edit = ToolEdit::Save {
            original_id: original_id.map(str::to_owned),
            tool: Box::new(tool.clone()),
        };
        revisions::edit_tools(db, app_id, revision, &edit, author, now_ms).await
    }

    pub async fn delete(
        db: &Db,
        app_id: i64,
        revision: i64,
        tool_id: &str,
        author: &CurrentDeveloper,
        now_ms: i64,
    ) -> Result<ToolWrite, WriteError> {
        let edit = ToolEdit::Delete(tool_id.to_owned());
        revisions::edit_tools(db, app_id, revision, &edit, author, now_ms).await
    }

    pub async fn move_tool(
        db: &Db,
        app_id: i64,
        revision: i64,
        tool_id: &str,
        direction: MoveDirection,
        author: &CurrentDeveloper,
        now_ms: i64,
    ) -> Result<ToolWrite, WriteError> {
        let edit = ToolEdit::Move(tool_id.to_owned(), direction);
        revisions::edit_tools(db, app_id, revision, &edit, author, now_ms).await
    }

    /// The app's tools at its latest revision (none for an app that is gone).
    pub async fn list_for_app(db: &Db, app_id: i64) -> Result<Vec<Tool>, sqlx::Error> {
        Ok(revisions::current(db, app_id)
            .await?
            .map(|config| crate::common::owned(&config.tools))
            .unwrap_or_default())
    }
}

/// Tools as a configuration shares them, as values to compare.
pub fn owned(
    tools: &[std::sync::Arc<toolwright::domain::tool::Tool>],
) -> Vec<toolwright::domain::tool::Tool> {
    tools.iter().map(|tool| (**tool).clone()).collect()
}
