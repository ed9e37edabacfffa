//! Accounts over real HTTP: cookies, session rotation, log-out, throttling,
//! cross-site refusal and security headers.

use crate::common::{
    delete_accounts, poll_until, Browser, ServerProcess, TestDatabase, TestServer,
};
use toolwright::api::AppError;

const PASSWORD: &str = "correct horse battery staple";

#[tokio::test]
async fn signing_up_signs_in_with_a_cookie_that_is_http_only_lax_and_expires() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut browser = Browser::new(&server);
    let answer = browser.signup("Dev@Example.com", PASSWORD).await;
    assert_eq!(answer.status, 302, "{answer:?}");
    assert_eq!(answer.location.as_deref(), Some("/console/apps"));
    let cookie = answer
        .set_cookie
        .iter()
        .find(|c| c.starts_with("toolwright_session="))
        .expect("a session cookie");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Lax"), "{cookie}");
    assert!(cookie.contains("Path=/"), "{cookie}");
    assert!(
        cookie.contains("Max-Age=604800"),
        "7 days of inactivity: {cookie}"
    );
    assert!(
        !cookie.contains("Secure"),
        "not over plain HTTP by default: {cookie}"
    );

    let page = browser.get("/console/apps").await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("dev@example.com"),
        "the header shows the normalised email"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_cookie_is_secure_when_configured_for_https() {
    let db = TestDatabase::sqlite();
    let mut config = db.config();
    config.secure_cookies = true;
    let server = TestServer::start_with(db, config).await;
    let mut browser = Browser::new(&server);
    let answer = browser.signup("dev@example.com", PASSWORD).await;
    assert!(answer
        .set_cookie
        .iter()
        .any(|c| c.starts_with("toolwright_session=") && c.contains("Secure")));
    server.stop().await;
}

#[tokio::test]
async fn logging_in_rotates_the_session_id_and_the_old_one_is_worthless() {
    for db in TestDatabase::all().await {
        let server = TestServer::start(db).await;
        let mut browser = Browser::new(&server);
        browser.signup("dev@example.com", PASSWORD).await;
        let before = browser.session.clone().expect("signed up");

        let answer = browser.login("dev@example.com", PASSWORD).await;
        assert_eq!(answer.status, 302);
        let after = browser.session.clone().expect("still signed in");
        assert_ne!(before, after, "log-in must issue a new session id");

        let mut stale = Browser::new(&server);
        stale.session = Some(before);
        let page = stale.get("/console/apps").await;
        assert_eq!(
            page.status, 303,
            "the pre-log-in id no longer signs anyone in"
        );
        server.stop().await;
    }
}

#[tokio::test]
async fn logging_out_destroys_the_session() {
    for db in TestDatabase::all().await {
        let server = TestServer::start(db).await;
        let mut browser = Browser::new(&server);
        browser.signup("dev@example.com", PASSWORD).await;
        let id = browser.session.clone().unwrap();

        let answer = browser.form_post("/api/logout", &[]).await;
        assert_eq!(answer.status, 302);
        assert_eq!(answer.location.as_deref(), Some("/"));
        assert!(
            browser.session.is_none(),
            "the cookie is removed: {answer:?}"
        );

        let mut replay = Browser::new(&server);
        replay.session = Some(id);
        let page = replay.get("/console/apps").await;
        assert_eq!(page.status, 303);
        assert_eq!(
            page.location.as_deref(),
            Some("/login?next=%2Fconsole%2Fapps")
        );
        server.stop().await;
    }
}

#[tokio::test]
async fn a_log_out_is_seen_at_once_by_another_server_process_on_the_database() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let url = db.url.clone();
        let server = TestServer::start(db).await;
        let other = ServerProcess::start(&url).await;
        let mut browser = Browser::new(&server);
        browser.signup("dev@example.com", PASSWORD).await;

        // The session is the database's: the other process knows it too.
        let mut elsewhere = other.browser(browser.session.clone());
        let page = elsewhere.get("/console/apps").await;
        assert_eq!(page.status, 200, "{label}: {page:?}");

        browser.form_post("/api/logout", &[]).await;
        let page = elsewhere.get("/console/apps").await;
        assert_eq!(page.status, 303, "{label}: signed out everywhere");
        // And logging out there ends it here.
        let mut browser = Browser::new(&server);
        browser.login("dev@example.com", PASSWORD).await;
        let mut elsewhere = other.browser(browser.session.clone());
        assert_eq!(elsewhere.get("/console/apps").await.status, 200, "{label}");
        elsewhere.form_post("/api/logout", &[]).await;
        assert_eq!(browser.get("/console/apps").await.status, 303, "{label}");
        drop(other);
        server.stop().await;
    }
}

#[tokio::test]
async fn a_wrong_password_and_an_unknown_email_get_the_same_answer() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut browser = Browser::new(&server);
    browser.signup("dev@example.com", PASSWORD).await;
    browser.form_post("/api/logout", &[]).await;

    let wrong_password = browser
        .call(
            "/api/login",
            &[
                ("email", "dev@example.com"),
                ("password", "wrong password!!"),
            ],
        )
        .await;
    let unknown_email = browser
        .call(
            "/api/login",
            &[("email", "nobody@example.com"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(wrong_password.app_error(), AppError::InvalidCredentials);
    assert_eq!(unknown_email.app_error(), AppError::InvalidCredentials);
    assert_eq!(
        AppError::InvalidCredentials.to_string(),
        "Invalid email or password"
    );
    assert!(browser.session.is_none());
    server.stop().await;
}

#[tokio::test]
async fn a_plain_form_post_that_fails_returns_to_the_form_with_the_error() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut browser = Browser::new(&server);
    browser.get("/login?next=%2Fconsole%2Fapps").await;
    let answer = browser.login("nobody@example.com", PASSWORD).await;
    assert_eq!(answer.status, 302);
    let location = answer.location.unwrap();
    assert!(
        location.contains("/login?next=%2Fconsole%2Fapps&__path="),
        "{location}"
    );
    assert!(location.contains("__err="), "{location}");

    // The page the browser is sent back to renders the message.
    let path = location.trim_start_matches(&browser.base).to_owned();
    let page = browser.get(&path).await;
    assert!(
        page.body.contains("Invalid email or password"),
        "{}",
        page.body
    );
    server.stop().await;
}

#[tokio::test]
async fn the_sixth_attempt_after_five_wrong_passwords_is_throttled() {
    for db in TestDatabase::all().await {
        let server = TestServer::start(db).await;
        let mut browser = Browser::new(&server);
        browser.signup("dev@example.com", PASSWORD).await;
        browser.form_post("/api/logout", &[]).await;

        for attempt in 1..=5 {
            let answer = browser
                .call(
                    "/api/login",
                    &[
                        ("email", "DEV@example.com"),
                        ("password", "wrong password!!"),
                    ],
                )
                .await;
            assert_eq!(
                answer.app_error(),
                AppError::InvalidCredentials,
                "attempt {attempt}"
            );
        }
        // Even the right password is refused now, before any hashing.
        let answer = browser
            .call(
                "/api/login",
                &[("email", "dev@example.com"), ("password", PASSWORD)],
            )
            .await;
        match answer.app_error() {
            AppError::TooManyRequests(message) => {
                assert!(message.starts_with("Too many attempts"), "{message}")
            }
            other => panic!("expected throttling, got {other:?}"),
        }
        assert!(browser.session.is_none());

        // Another account from elsewhere is not affected by this email's lock.
        let mut other = Browser::new(&server);
        let answer = other.signup("other@example.com", PASSWORD).await;
        assert_eq!(answer.status, 302);
        server.stop().await;
    }
}

#[tokio::test]
async fn parallel_wrong_passwords_cannot_slip_past_the_limit_together() {
    for db in TestDatabase::all().await {
        let server = TestServer::start(db).await;
        let mut browser = Browser::new(&server);
        browser.signup("dev@example.com", PASSWORD).await;
        browser.form_post("/api/logout", &[]).await;

        // Twelve attempts at once: each is counted before any is checked.
        let mut attempts = tokio::task::JoinSet::new();
        for _ in 0..12 {
            let mut browser = Browser::new(&server);
            attempts.spawn(async move {
                browser
                    .call(
                        "/api/login",
                        &[
                            ("email", "dev@example.com"),
                            ("password", "wrong password!!"),
                        ],
                    )
                    .await
                    .app_error()
            });
        }
        let (mut checked, mut refused) = (0, 0);
        while let Some(answer) = attempts.join_next().await {
            match answer.unwrap() {
                AppError::InvalidCredentials => checked += 1,
                AppError::TooManyRequests(_) => refused += 1,
                other => panic!("unexpected {other:?}"),
            }
        }
        assert!(checked <= 5, "{checked} passwords were checked");
        assert_eq!(checked + refused, 12);

        // Only the checked ones count as failures: the limit is reached
        // after exactly five, however the attempts interleaved.
        for _ in checked..5 {
            let answer = browser
                .call(
                    "/api/login",
                    &[
                        ("email", "dev@example.com"),
                        ("password", "wrong password!!"),
                    ],
                )
                .await;
            assert_eq!(answer.app_error(), AppError::InvalidCredentials);
        }
        let answer = browser
            .call(
                "/api/login",
                &[("email", "dev@example.com"), ("password", PASSWORD)],
            )
            .await;
        assert!(
            matches!(answer.app_error(), AppError::TooManyRequests(_)),
            "{answer:?}"
        );
        server.stop().await;
    }
}

#[tokio::test]
async fn twenty_failures_from_one_client_throttle_every_email_from_it() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut browser = Browser::new(&server);
    browser.signup("dev@example.com", PASSWORD).await;
    browser.form_post("/api/logout", &[]).await;
    for attempt in 0..20 {
        let email = format!("guess{attempt}@example.com");
        let answer = browser
            .call("/api/login", &[("email", &email), ("password", PASSWORD)])
            .await;
        assert_eq!(
            answer.app_error(),
            AppError::InvalidCredentials,
            "attempt {attempt}"
        );
    }
    let answer = browser
        .call(
            "/api/login",
            &[("email", "dev@example.com"), ("password", PASSWORD)],
        )
        .await;
    assert!(matches!(answer.app_error(), AppError::TooManyRequests(_)));
    server.stop().await;
}

#[tokio::test]
async fn a_deleted_developers_session_does_not_sign_in_the_next_to_sign_up() {
    for db in TestDatabase::all().await {
        let server = TestServer::start(db).await;
        let mut alice = Browser::new(&server);
        alice.signup("alice@example.com", PASSWORD).await;
        // An operator deletes the newest account (the console itself has
        // no way to); its session cookie lives on in the browser.
        delete_accounts(&server, &["alice@example.com"]).await;

        let mut bob = Browser::new(&server);
        assert_eq!(bob.signup("bob@example.com", PASSWORD).await.status, 302);
        let page = alice.get("/console/apps").await;
        assert_eq!(page.status, 303, "{}: {page:?}", server.db.label());
        assert!(
            page.location
                .as_deref()
                .is_some_and(|l| l.starts_with("/login")),
            "{page:?}"
        );
        assert!(!page.body.contains("bob@example.com"));
        server.stop().await;
    }
}

/// How many log-in attempts the server has written and not yet taken back.
async fn attempts_on_record(server: &TestServer) -> i64 {
    toolwright::on_db!(&server.state.db, pool => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM login_failures",
    )
    .fetch_one(pool)
    .await)
    .unwrap()
}

/// Waits (10 s at most) until `attempts_on_record` is `count`.
async fn until_attempts_on_record(server: &TestServer, count: i64, what: &str) {
    let on_record = poll_until(
        std::time::Duration::from_secs(10),
        || attempts_on_record(server),
        |n| *n == count,
    )
    .await;
    assert_eq!(on_record, count, "{what}");
}

#[tokio::test]
async fn a_log_in_whose_client_hangs_up_still_ends_and_stops_counting() {
    use tokio::io::AsyncWriteExt;

    for db in TestDatabase::all().await {
        let server = TestServer::start(db).await;
        let mut browser = Browser::new(&server);
        browser.signup("dev@example.com", PASSWORD).await;
        browser.form_post("/api/logout", &[]).await;

        let body =
            crate::common::encode_form(&[("email", "dev@example.com"), ("password", PASSWORD)]);
        let request = format!(
            "POST /api/login HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            server.addr,
            body.len()
        );
        // More than one client's budget of attempts, each abandoned while
        // its password is being checked.
        for attempt in 0..=toolwright::domain::throttle::PER_CLIENT.max_failures {
            let mut connection = tokio::net::TcpStream::connect(server.addr).await.unwrap();
            connection.write_all(request.as_bytes()).await.unwrap();
            until_attempts_on_record(&server, 1, "the attempt is written").await;
            drop(connection);
            // The right password: the attempt is taken back once checked,
            // rather than left unfinished, counting against the client.
            until_attempts_on_record(&server, 0, &format!("attempt {attempt} was left on record"))
                .await;
        }
        let answer = browser.login("dev@example.com", PASSWORD).await;
        assert_eq!(answer.status, 302, "{} {answer:?}", server.db.label());
        server.stop().await;
    }
}

/// A log-in attempt as the islands make it, with an `X-Forwarded-For`.
async fn login_forwarded_for(browser: &mut Browser, forwarded_for: &str, email: &str) -> AppError {
    let origin = format!("http://{}", browser.host);
    browser
        .post_with(
            "/api/login",
            &[
                ("accept", "application/json"),
                ("origin", &origin),
                ("x-forwarded-for", forwarded_for),
            ],
            &[("email", email), ("password", PASSWORD)],
        )
        .await
        .app_error()
}

/// A server that believes `X-Forwarded-For` from loopback, where the tests' requests come from.
async fn behind_a_trusted_proxy() -> TestServer {
    let db = TestDatabase::sqlite();
    let mut config = db.config();
    config.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    TestServer::start_with(db, config).await
}

/// Twenty failed log-ins, each for another email, the `attempt`th forwarded for
/// `address(attempt)`: a client's whole budget, if they are one client.
async fn fail_twenty_log_ins(browser: &mut Browser, address: impl Fn(usize) -> String) {
    for attempt in 0..20 {
        let email = format!("guess{attempt}@example.com");
        assert_eq!(
            login_forwarded_for(browser, &address(attempt), &email).await,
            AppError::InvalidCredentials,
            "attempt {attempt}"
        );
    }
}

#[tokio::test]
async fn behind_a_trusted_proxy_clients_are_throttled_by_their_forwarded_address() {
    let server = behind_a_trusted_proxy().await;
    let mut browser = Browser::new(&server);
    fail_twenty_log_ins(&mut browser, |_| "198.51.100.1".to_owned()).await;
    assert!(matches!(
        login_forwarded_for(&mut browser, "198.51.100.1", "other@example.com").await,
        AppError::TooManyRequests(_)
    ));
    // Another client behind the same proxy is not throttled with it.
    assert_eq!(
        login_forwarded_for(&mut browser, "198.51.100.2", "other@example.com").await,
        AppError::InvalidCredentials
    );
    server.stop().await;
}

#[tokio::test]
async fn an_ipv6_client_cannot_rotate_addresses_within_its_64_past_the_limit() {
    let server = behind_a_trusted_proxy().await;
    let mut browser = Browser::new(&server);
    fail_twenty_log_ins(&mut browser, |attempt| {
        format!("2001:db8:7:7::{:x}", attempt + 1)
    })
    .await;
    assert!(matches!(
        login_forwarded_for(&mut browser, "2001:db8:7:7:abcd::99", "other@example.com").await,
        AppError::TooManyRequests(_)
    ));
    // The next /64 is another client.
    assert_eq!(
        login_forwarded_for(&mut browser, "2001:db8:7:8::1", "other@example.com").await,
        AppError::InvalidCredentials
    );
    server.stop().await;
}

#[tokio::test]
async fn without_a_trusted_proxy_a_forwarded_address_changes_nothing() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut browser = Browser::new(&server);
    // A client cannot escape its limit by claiming to be someone else.
    fail_twenty_log_ins(&mut browser, |attempt| format!("198.51.100.{attempt}")).await;
    assert!(matches!(
        login_forwarded_for(&mut browser, "198.51.100.99", "other@example.com").await,
        AppError::TooManyRequests(_)
    ));
    server.stop().await;
}

#[tokio::test]
async fn a_cross_origin_post_is_refused_and_changes_nothing() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut browser = Browser::new(&server);
    let fields = [("email", "dev@example.com"), ("password", PASSWORD)];

    let answer = browser
        .post_with(
            "/api/signup",
            &[("origin", "https://evil.example"), ("accept", "text/html")],
            &fields,
        )
        .await;
    assert_eq!(answer.status, 403);
    let answer = browser
        .post_with("/api/signup", &[("sec-fetch-site", "cross-site")], &fields)
        .await;
    assert_eq!(answer.status, 403);
    assert!(browser.session.is_none());

    // Nothing was created: the same email can still sign up, same-origin.
    let answer = browser.signup("dev@example.com", PASSWORD).await;
    assert_eq!(answer.status, 302);
    assert_eq!(answer.location.as_deref(), Some("/console/apps"));
    server.stop().await;
}

#[tokio::test]
async fn pages_server_functions_and_static_files_carry_the_security_headers() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut browser = Browser::new(&server);

    let page = browser.get("/login").await;
    let static_file = browser.get("/favicon.svg").await;
    let server_fn = browser
        .call(
            "/api/login",
            &[("email", "x@example.com"), ("password", "y")],
        )
        .await;
    assert_eq!(static_file.status, 200);

    for (what, answer) in [
        ("page", &page),
        ("static file", &static_file),
        ("server function", &server_fn),
    ] {
        let header = |name: &str| {
            answer
                .headers
                .get(name)
                .unwrap_or_else(|| panic!("{what} lacks {name}"))
                .to_str()
                .unwrap()
                .to_owned()
        };
        assert!(
            header("content-security-policy").contains("frame-ancestors 'none'"),
            "{what}"
        );
        assert_eq!(header("x-content-type-options"), "nosniff", "{what}");
        assert_eq!(header("referrer-policy"), "same-origin", "{what}");
    }

    // The page's policy allows exactly its own inline script, by nonce.
    let csp = page.headers["content-security-policy"].to_str().unwrap();
    let nonce = csp
        .split("'nonce-")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .expect("a nonce in the page's policy");
    assert!(
        page.body.contains(&format!(r#"nonce="{nonce}""#)),
        "the inline script carries the nonce"
    );
    assert!(!csp.contains("unsafe-inline"));
    server.stop().await;
}

#[tokio::test]
async fn every_console_page_sends_a_visitor_to_log_in() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut browser = Browser::new(&server);
    for path in [
        "/console",
        "/console/apps",
        "/console/apps/new",
        "/console/apps/x.y/history",
    ] {
        let answer = browser.get(path).await;
        assert_eq!(answer.status, 303, "{path}");
        let location = answer.location.unwrap();
        assert!(
            location.starts_with("/login?next=%2Fconsole"),
            "{path} → {location}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn an_active_session_is_extended_at_most_once_an_hour() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut browser = Browser::new(&server);
    browser.signup("dev@example.com", PASSWORD).await;
    let id = browser.session.clone().unwrap();

    // The first request after signing in pushes the expiry forward: the same
    // session comes back with a fresh seven-day cookie.
    let first = browser.get("/console/apps").await;
    let cookie = first
        .set_cookie
        .iter()
        .find(|c| c.starts_with("toolwright_session="))
        .expect("the session is extended");
    assert!(
        cookie.contains(&id) && cookie.contains("Max-Age=604800"),
        "{cookie}"
    );

    // Within the hour it is not written again.
    let second = browser.get("/console/apps").await;
    assert!(second.session_cookie().is_none(), "{:?}", second.set_cookie);
    server.stop().await;
}

#[tokio::test]
async fn a_server_function_extends_its_session_too() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let extended = |answer: &crate::common::Answer, id: &str| {
        answer.set_cookie.iter().any(|c| {
            c.starts_with("toolwright_session=") && c.contains(id) && c.contains("Max-Age=604800")
        })
    };
    // A function of no app: its session's developer is looked up alone.
    let mut browser = Browser::new(&server);
    browser.signup("dev@example.com", PASSWORD).await;
    let id = browser.session.clone().unwrap();
    let app = [
        ("package_name", "com.example.todo"),
        ("name", "Todo App"),
        ("description", ""),
        ("version", "1.0.0"),
        ("public_url", "https://todo.example.com"),
    ];
    let created = browser.call("/api/apps/create", &app).await;
    assert!(extended(&created, &id), "{:?}", created.set_cookie);
    let listed = browser.call("/api/apps/list", &[]).await;
    assert!(listed.session_cookie().is_none(), "{:?}", listed.set_cookie);

    // A function of an app: the developer is checked with the app.
    let mut other = Browser::new(&server);
    other.login("dev@example.com", PASSWORD).await;
    let id = other.session.clone().unwrap();
    let pkg = [("package_name", "com.example.todo")];
    let got = other.call("/api/apps/get", &pkg).await;
    assert_eq!(got.status, 200, "{}", got.body);
    assert!(extended(&got, &id), "{:?}", got.set_cookie);
    let again = other.call("/api/apps/get", &pkg).await;
    assert!(again.session_cookie().is_none(), "{:?}", again.set_cookie);
    server.stop().await;
}
