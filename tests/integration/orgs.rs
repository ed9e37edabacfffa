//! Teams over real HTTP on both backends: every server function and console
//! route asked by an admin, a member, an outsider and an anonymous visitor;
//! invitations from link to membership; the last admin; moving an app.

use crate::common::{
    api_get, create_key, json_call_with_status, Browser, TestDatabase, TestServer,
};
use serde_json::{json, Value};
use toolwright::{api::AppError, on_db};

pub(crate) const PASSWORD: &str = "correct horse battery staple";
pub(crate) const APP: &str = "com.acme.todo";
pub(crate) const ORG: &str = "acme";

pub(crate) async fn signed_up(server: &TestServer, email: &str) -> Browser {
    let mut browser = Browser::new(server);
    let answer = browser.signup(email, PASSWORD).await;
    assert_eq!(answer.status, 302, "{answer:?}");
    browser
}

pub(crate) fn draft(id: &str) -> Value {
    json!({
        "tool_id": id,
        "description": "Sends a ping",
        "activation_phrases": "ping",
        "title": "",
        "max_calls": "",
        "hints": {},
        "parameters": [{
            "name": "item",
            "param_type": "string",
            "description": "What to ping",
            "required": false,
            "allowed_values": ""
        }]
    })
}

async fn revision(server: &TestServer) -> i64 {
    on_db!(&server.state.db, pool => sqlx::query_scalar::<_, i64>(
        "SELECT revision FROM apps WHERE package_name = $1",
    )
    .bind(APP)
    .fetch_optional(pool)
    .await)
    .unwrap()
    .unwrap_or(0)
}

/// Everything a refused call must leave as it was: the app, its keys and
/// revisions (which hold its tools), organizations, members, invitations and each
/// developer's current organization.
async fn fingerprint(server: &TestServer) -> String {
    let mut out = String::new();
    for sql in [
        "SELECT a.package_name || ':' || CAST(a.revision AS TEXT) || ':' || CAST(a.org_id AS TEXT) || ':' || a.name FROM apps a ORDER BY a.package_name",
        "SELECT k.name || ':' || COALESCE(CAST(k.revoked_at AS TEXT), '-') FROM api_keys k ORDER BY k.id",
        "SELECT CAST(r.app_id AS TEXT) || ':' || CAST(r.revision AS TEXT) || ':' || COALESCE(r.tool_digests, '-') FROM app_revisions r ORDER BY r.id",
        "SELECT o.slug || ':' || o.name FROM organizations o ORDER BY o.slug",
        "SELECT o.slug || ':' || d.email || ':' || m.role FROM org_members m JOIN organizations o ON o.id = m.org_id JOIN developers d ON d.id = m.developer_id ORDER BY o.slug, d.email",
        "SELECT i.email || ':' || i.role || ':' || COALESCE(CAST(i.cancelled_at AS TEXT), '-') || ':' || COALESCE(CAST(i.accepted_at AS TEXT), '-') FROM org_invitations i ORDER BY i.id",
        "SELECT d.email || ':' || COALESCE(CAST(d.current_org_id AS TEXT), '-') FROM developers d ORDER BY d.email",
    ] {
        let rows: Vec<String> = on_db!(&server.state.db, pool => sqlx::query_scalar::<_, String>(sql)
            .fetch_all(pool)
            .await)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
        out.push_str(&rows.join("\n"));
        out.push_str("\n--\n");
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    Anonymous,
    Outsider,
    Member,
    Admin,
}

const EVERYONE: [Who; 4] = [Who::Anonymous, Who::Outsider, Who::Member, Who::Admin];

/// What a call asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    /// Any signed-in developer (it concerns their own things).
    SignedIn,
    /// A member of the organization (admin or member).
    Member,
    /// An admin of the organization.
    Admin,
}

enum Request {
    Form(Vec<(&'static str, String)>),
    Json(Value),
    /// A console page or route (GET).
    Page,
}

struct Call {
    path: String,
    request: Request,
    need: Need,
}

fn form(path: &str, need: Need, fields: &[(&'static str, &str)]) -> Call {
    Call {
        path: path.to_owned(),
        request: Request::Form(fields.iter().map(|(k, v)| (*k, (*v).to_owned())).collect()),
        need,
    }
}

fn json_body(path: &str, need: Need, body: Value) -> Call {
    Call {
        path: path.to_owned(),
        request: Request::Json(body),
        need,
    }
}

fn page(path: &str) -> Call {
    Call {
        path: path.to_owned(),
        request: Request::Page,
        need: Need::Member,
    }
}

/// Every server function and console route that concerns the app or the
/// organization, as `who` would call it now (the app at `revision`, the
/// key `key_id` to revoke). Destructive calls come last.
fn calls(who: Who, revision: i64, key_id: i64, mentra: &str, personal: &str) -> Vec<Call> {
    let rev = revision.to_string();
    let pkg = ("package_name", APP);
    let slug = ("slug", ORG);
    let tag = format!("{who:?}").to_lowercase();
    vec![
        form("/api/apps/list", Need::SignedIn, &[]),
        // First: the new organization becomes current, so the app below is made there.
        form(
            "/api/orgs/create",
            Need::SignedIn,
            &[("name", &format!("Team of {tag}"))],
        ),
        form(
            "/api/apps/create",
            Need::SignedIn,
            &[
                ("package_name", &format!("com.{tag}.made")),
                ("name", "Made"),
                ("description", ""),
                ("version", "1.0.0"),
                ("public_url", "https://made.example.com"),
            ],
        ),
        form("/api/apps/get", Need::Member, &[pkg]),
        form("/api/apps/checks", Need::Member, &[pkg]),
        form("/api/apps/page", Need::Member, &[pkg]),
        form("/api/tools/list", Need::Member, &[pkg]),
        form("/api/tools/get", Need::Member, &[pkg, ("tool_id", "ping")]),
        form("/api/history/list", Need::Member, &[pkg]),
        form("/api/history/get", Need::Member, &[pkg, ("revision", "1")]),
        form("/api/mcp/panel", Need::Member, &[pkg]),
        form("/api/mcp/test", Need::Member, &[pkg]),
        form("/api/orgs/page", Need::Member, &[slug]),
        form("/api/orgs/switch", Need::Member, &[slug]),
        json_body("/api/keys/list", Need::Member, json!({"package_name": APP})),
        json_body(
            "/api/export/render",
            Need::Member,
            json!({"package_name": APP, "format": "mentra", "options": {"include_phrases": false, "strict": false}}),
        ),
        json_body(
            "/api/import/preview",
            Need::Member,
            json!({"package_name": APP, "content": mentra}),
        ),
        json_body(
            "/api/tools/try-target",
            Need::Member,
            json!({"package_name": APP, "tool_id": "ping"}),
        ),
        page(&format!("/console/apps/{APP}")),
        page(&format!("/console/apps/{APP}/export")),
        page(&format!("/console/apps/{APP}/import")),
        page(&format!("/console/apps/{APP}/history")),
        page(&format!("/console/apps/{APP}/tools/ping/try")),
        page(&format!(
            "/console/apps/{APP}/export/download?format=mentra"
        )),
        page(&format!("/console/orgs/{ORG}")),
        form(
            "/api/apps/save",
            Need::Member,
            &[
                pkg,
                ("revision", &rev),
                ("name", &format!("Todo by {tag}")),
                ("description", ""),
                ("version", "1.0.0"),
                ("public_url", "http://127.0.0.1:9"),
            ],
        ),
        json_body(
            "/api/tools/save",
            Need::Member,
            json!({"package_name": APP, "revision": revision, "original_id": "ping", "draft": draft("ping")}),
        ),
        json_body(
            "/api/tools/move",
            Need::Member,
            json!({"package_name": APP, "revision": revision, "tool_id": "ping", "direction": "Down"}),
        ),
        json_body(
            "/api/tools/delete",
            Need::Member,
            json!({"package_name": APP, "revision": revision, "tool_id": format!("temp_{tag}")}),
        ),
        json_body(
            "/api/tools/try",
            Need::Member,
            json!({"package_name": APP, "tool_id": "ping", "inputs": {"item": "milk"}, "user_id": "u@example.com"}),
        ),
        form(
            "/api/history/restore",
            Need::Member,
            &[pkg, ("revision", "2"), ("current_revision", &rev)],
        ),
        json_body(
            "/api/import/apply",
            Need::Member,
            json!({"package_name": APP, "revision": revision, "content": mentra}),
        ),
        json_body(
            "/api/keys/create",
            Need::Admin,
            json!({"package_name": APP, "name": format!("key of {tag}")}),
        ),
        json_body(
            "/api/keys/revoke",
            Need::Admin,
            json!({"package_name": APP, "key_id": key_id}),
        ),
        form(
            "/api/orgs/role",
            Need::Admin,
            &[slug, ("email", "dave@example.com"), ("role", "member")],
        ),
        form(
            "/api/orgs/invite",
            Need::Admin,
            &[
                slug,
                ("email", &format!("{tag}-guest@example.com")),
                ("role", "member"),
            ],
        ),
        form(
            "/api/orgs/resend",
            Need::Admin,
            &[slug, ("email", "erin@example.com")],
        ),
        form(
            "/api/orgs/cancel",
            Need::Admin,
            &[slug, ("email", "erin@example.com")],
        ),
        form(
            "/api/orgs/remove",
            Need::Admin,
            &[slug, ("email", "dave@example.com"), ("confirmed", "yes")],
        ),
        form("/api/apps/move", Need::Admin, &[pkg, ("to", personal)]),
        // Moved to the admin's personal organization: the rest concern an
        // organization without apps, and the app where it is now.
        form(
            "/api/orgs/delete",
            Need::Admin,
            &[slug, ("confirmation", "Acme")],
        ),
    ]
}

/// What `who` gets from a call that needs `need`: `Ok(())` for success,
/// or the error.
fn expected(who: Who, need: Need) -> Result<(), AppError> {
    match (who, need) {
        (Who::Anonymous, _) => Err(AppError::Unauthorized),
        (_, Need::SignedIn) => Ok(()),
        (Who::Outsider, _) => Err(AppError::NotFound),
        (Who::Member, Need::Admin) => Err(AppError::NotAllowed(String::new())),
        _ => Ok(()),
    }
}

/// Makes `call` as `browser`: `Ok(())` or the error it answered with.
async fn make(browser: &mut Browser, call: &Call) -> (u16, Result<(), AppError>, String) {
    let (status, body, location) = match &call.request {
        Request::Form(fields) => {
            let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let answer = browser.call(&call.path, &fields).await;
            (answer.status, answer.body, answer.location)
        }
        Request::Json(body) => {
            let (status, text) = json_call_with_status(browser, &call.path, body.clone()).await;
            (status, text, None)
        }
        Request::Page => {
            let answer = browser.get(&call.path).await;
            (answer.status, answer.body, answer.location)
        }
    };
    let outcome = match (status, &call.request) {
        (200..=399, Request::Page)
            if location.as_deref().is_some_and(|l| l.starts_with("/login")) =>
        {
            Err(AppError::Unauthorized)
        }
        (200..=399, _) => Ok(()),
        (401, Request::Page) => Err(AppError::Unauthorized),
        (404, Request::Page) => Err(AppError::NotFound),
        (403, Request::Page) => Err(AppError::NotAllowed(String::new())),
        _ => Err(serde_json::from_str::<AppError>(&body)
            .unwrap_or_else(|_| panic!("{} {status}: {body}", call.path))),
    };
    (status, outcome, body)
}

/// Alice (admin) made organization Acme with app com.acme.todo (tools
/// ping, temp_member, temp_admin) and a key for each caller to revoke; Bob
/// and Dave joined it as members by invitation; Carol is an outsider; Erin
/// has a pending invitation.
struct Team {
    alice: Browser,
    bob: Browser,
    carol: Browser,
    anonymous: Browser,
    keys: Vec<i64>,
    mentra: String,
    personal: String,
}

/// The invitation link the organization page shows `admin` once, after an invite.
pub(crate) async fn invite(admin: &mut Browser, email: &str, role: &str) -> String {
    admin.get(&format!("/console/orgs/{ORG}")).await;
    let answer = admin
        .form_post(
            "/api/orgs/invite",
            &[("slug", ORG), ("email", email), ("role", role)],
        )
        .await;
    assert_eq!(answer.status, 302, "{answer:?}");
    let page: Value =
        serde_json::from_str(&admin.call("/api/orgs/page", &[("slug", ORG)]).await.body).unwrap();
    let link = page["invitation_link"]
        .as_str()
        .expect("the link, once")
        .to_owned();
    let again: Value =
        serde_json::from_str(&admin.call("/api/orgs/page", &[("slug", ORG)]).await.body).unwrap();
    assert!(again["invitation_link"].is_null(), "the link is shown once");
    link
}

fn token_of(link: &str) -> String {
    link.rsplit_once("/invitations/")
        .expect("an invitation link")
        .1
        .to_owned()
}

pub(crate) async fn join(browser: &mut Browser, link: &str) -> crate::common::Answer {
    browser
        .call("/api/invitations/join", &[("token", &token_of(link))])
        .await
}

/// Alice's organization Acme with app com.acme.todo, and `email` signed up
/// and joined to it as `role` by invitation.
async fn acme_with(server: &TestServer, email: &str, role: &str) -> (Browser, Browser) {
    let mut alice = alice_with_acme(server, "https://todo.example.com").await;
    let mut other = signed_up(server, email).await;
    let link = invite(&mut alice, email, role).await;
    assert!(join(&mut other, &link).await.status < 400);
    (alice, other)
}

/// The form that creates com.acme.todo, whose server is `public_url`.
pub(crate) fn todo_form(public_url: &str) -> [(&'static str, &str); 5] {
    [
        ("package_name", APP),
        ("name", "Todo"),
        ("description", ""),
        ("version", "1.0.0"),
        ("public_url", public_url),
    ]
}

/// Alice, who made organization Acme (now her current one) and its app
/// com.acme.todo, whose server is `public_url`.
pub(crate) async fn alice_with_acme(server: &TestServer, public_url: &str) -> Browser {
    let mut alice = signed_up(server, "alice@example.com").await;
    let answer = alice
        .form_post("/api/orgs/create", &[("name", "Acme")])
        .await;
    assert_eq!(
        answer.location.as_deref(),
        Some("/console/orgs/acme?created=1"),
        "{answer:?}"
    );
    let made = alice.call("/api/apps/create", &todo_form(public_url)).await;
    assert!(made.status < 400, "{made:?}");
    alice
}

async fn team(server: &TestServer) -> Team {
    // The app's server is on loopback: "Try" refuses it at once (private
    // targets are off), without a request going anywhere.
    let mut alice = alice_with_acme(server, "http://127.0.0.1:9").await;
    for (index, id) in ["ping", "temp_member", "temp_admin"]
        .into_iter()
        .enumerate()
    {
        let (status, body) = json_call_with_status(
            &alice,
            "/api/tools/save",
            json!({"package_name": APP, "revision": index + 1, "original_id": null, "draft": draft(id)}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    let mut keys = Vec::new();
    for name in ["one", "two", "three", "four"] {
        let (status, body) = json_call_with_status(
            &alice,
            "/api/keys/create",
            json!({"package_name": APP, "name": name}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let made: Value = serde_json::from_str(&body).unwrap();
        keys.push(made["keys"][0]["id"].as_i64().unwrap());
    }
    let (_, mentra) = json_call_with_status(
        &alice,
        "/api/export/render",
        json!({"package_name": APP, "format": "mentra", "options": {"include_phrases": false, "strict": false}}),
    )
    .await;
    let mentra: String = serde_json::from_str(&mentra).unwrap();

    let mut bob = signed_up(server, "bob@example.com").await;
    let link = invite(&mut alice, "bob@example.com", "member").await;
    assert!(join(&mut bob, &link).await.status < 400);
    let mut dave = signed_up(server, "dave@example.com").await;
    let link = invite(&mut alice, "dave@example.com", "member").await;
    assert!(join(&mut dave, &link).await.status < 400);
    invite(&mut alice, "erin@example.com", "member").await;
    let carol = signed_up(server, "carol@example.com").await;
    Team {
        alice,
        bob,
        carol,
        anonymous: Browser::new(server),
        keys,
        mentra,
        personal: "alice-example-com".to_owned(),
    }
}

#[tokio::test]
async fn every_function_and_route_answers_each_role_as_the_roles_say() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let mut team = team(&server).await;
        let count = calls(Who::Admin, 0, 0, "", "").len();
        for index in 0..count {
            for who in EVERYONE {
                let key = match who {
                    Who::Admin => team.keys[0],
                    Who::Member => team.keys[1],
                    Who::Outsider => team.keys[2],
                    Who::Anonymous => team.keys[3],
                };
                let revision = revision(&server).await;
                let call =
                    calls(who, revision, key, &team.mentra, &team.personal).swap_remove(index);
                let browser = match who {
                    Who::Admin => &mut team.alice,
                    Who::Member => &mut team.bob,
                    Who::Outsider => &mut team.carol,
                    Who::Anonymous => &mut team.anonymous,
                };
                let before = fingerprint(&server).await;
                let (status, outcome, body) = make(browser, &call).await;
                let want = expected(who, call.need);
                let context = format!("{label}: {who:?} {} → {status} {body}", call.path);
                match (&want, &outcome) {
                    (Ok(()), Ok(())) => {}
                    (Err(AppError::NotAllowed(_)), Err(AppError::NotAllowed(message))) => {
                        assert!(
                            message.is_empty() || message.starts_with("Only an admin can"),
                            "{context}"
                        );
                    }
                    (want, got) => assert_eq!(got, want, "{context}"),
                }
                if want.is_err() {
                    assert_eq!(
                        fingerprint(&server).await,
                        before,
                        "{context}: something changed"
                    );
                }
            }
        }
        // The admin's calls did what they say.
        let tail = fingerprint(&server).await;
        assert!(
            !tail.contains("acme:Acme"),
            "{label}: the organization is deleted\n{tail}"
        );
        assert!(
            tail.contains(&format!("{APP}:")),
            "{label}: the app is kept, moved"
        );
        server.stop().await;
    }
}

#[tokio::test]
async fn an_invitation_works_once_for_its_email_and_says_why_it_no_longer_works() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let mut alice = signed_up(&server, "alice@example.com").await;
        alice
            .form_post("/api/orgs/create", &[("name", "Acme")])
            .await;
        let link = invite(&mut alice, "bob@example.com", "admin").await;
        assert!(
            link.starts_with(&format!("http://{}/invitations/", server.addr)),
            "{link}"
        );
        let token = token_of(&link);

        // Logged out, the page names the organization and the role, with
        // links that come back to it.
        let mut visitor = Browser::new(&server);
        let page = visitor.get(&format!("/invitations/{token}")).await;
        assert_eq!(page.status, 200, "{label}");
        assert!(page.body.contains("Join Acme") && page.body.contains("admin"));
        let next = toolwright::domain::url::encode_component(&format!("/invitations/{token}"));
        assert!(
            page.body.contains(&format!("/signup?next={next}")),
            "{label}"
        );
        assert!(
            page.body.contains(&format!("/login?next={next}")),
            "{label}"
        );
        assert!(!page.body.contains(">Join</button>"));

        // Another account is refused, and the link stays usable.
        let mut mallory = signed_up(&server, "mallory@example.com").await;
        let page = mallory.get(&format!("/invitations/{token}")).await;
        assert!(
            page.body
                .contains("but the invitation is for <strong>bob@example.com</strong>"),
            "{label}: the page says whose it is"
        );
        let refused = join(&mut mallory, &link).await;
        match refused.app_error() {
            AppError::NotAllowed(message) => {
                assert!(message.contains("bob@example.com"), "{message}")
            }
            other => panic!("{label}: {other:?}"),
        }
        let page = mallory.call("/api/orgs/page", &[("slug", ORG)]).await;
        assert_eq!(page.app_error(), AppError::NotFound);

        // Signing up through the link comes back to it; "Join" makes the
        // organization current and shows its apps.
        let mut bob = Browser::new(&server);
        let answer = bob
            .form_post(
                "/api/signup",
                &[
                    ("email", "bob@example.com"),
                    ("password", PASSWORD),
                    ("next", &format!("/invitations/{token}")),
                ],
            )
            .await;
        assert_eq!(
            answer.location.as_deref(),
            Some(format!("/invitations/{token}").as_str())
        );
        let page = bob.get(&format!("/invitations/{token}")).await;
        assert!(page.body.contains(">Join</button>"), "{label}");
        let joined = bob
            .form_post("/api/invitations/join", &[("token", &token)])
            .await;
        assert_eq!(
            joined.location.as_deref(),
            Some("/console/apps?joined=acme"),
            "{joined:?}"
        );
        let apps = bob.get("/console/apps?joined=acme").await.body;
        assert!(apps.contains("You joined Acme."), "{label}: {apps}");
        let org: Value =
            serde_json::from_str(&bob.call("/api/orgs/page", &[("slug", ORG)]).await.body).unwrap();
        assert_eq!(org["role"], "admin", "{label}");
        let apps = bob.get("/console/apps").await;
        assert!(apps.body.contains("The apps of"), "{label}");
        assert!(
            apps.body.contains(r#"href="/console/orgs/acme""#),
            "{label}: Acme is current"
        );

        // Used: it says so, and cannot be used again.
        let page = visitor.get(&format!("/invitations/{token}")).await;
        assert!(
            page.body
                .contains("This invitation link has already been used."),
            "{label}"
        );
        let mut carol = signed_up(&server, "carol@example.com").await;
        assert!(matches!(
            join(&mut carol, &link).await.app_error(),
            AppError::Conflict(_)
        ));

        // Cancelled, resent (the old link is cancelled), expired.
        let first = invite(&mut alice, "carol@example.com", "member").await;
        alice
            .form_post(
                "/api/orgs/resend",
                &[("slug", ORG), ("email", "carol@example.com")],
            )
            .await;
        let page = visitor
            .get(&format!("/invitations/{}", token_of(&first)))
            .await;
        assert!(
            page.body.contains("This invitation link was cancelled."),
            "{label}"
        );
        on_db!(&server.state.db, pool => sqlx::query(
            "UPDATE org_invitations SET expires_at = 0 WHERE email = 'carol@example.com' AND cancelled_at IS NULL",
        )
        .execute(pool)
        .await
        .map(|_| ()))
        .unwrap();
        let org: Value =
            serde_json::from_str(&alice.call("/api/orgs/page", &[("slug", ORG)]).await.body)
                .unwrap();
        assert_eq!(
            org["invitations"],
            json!([]),
            "{label}: an expired invitation is not pending"
        );
        let fresh = invite(&mut alice, "carol@example.com", "member").await;
        alice
            .form_post(
                "/api/orgs/cancel",
                &[("slug", ORG), ("email", "carol@example.com")],
            )
            .await;
        let page = visitor
            .get(&format!("/invitations/{}", token_of(&fresh)))
            .await;
        assert!(
            page.body.contains("This invitation link was cancelled."),
            "{label}"
        );
        assert!(matches!(
            join(&mut carol, &fresh).await.app_error(),
            AppError::Conflict(_)
        ));
        let expired = invite(&mut alice, "carol@example.com", "member").await;
        on_db!(&server.state.db, pool => sqlx::query(
            "UPDATE org_invitations SET expires_at = 0 WHERE email = 'carol@example.com' AND cancelled_at IS NULL",
        )
        .execute(pool)
        .await
        .map(|_| ()))
        .unwrap();
        let page = visitor
            .get(&format!("/invitations/{}", token_of(&expired)))
            .await;
        assert!(
            page.body.contains("This invitation link has expired."),
            "{label}"
        );

        // An unknown link is not found.
        let page = visitor.get("/invitations/0000").await;
        assert_eq!(page.status, 404, "{label}");
        server.stop().await;
    }
}

#[tokio::test]
async fn the_last_admin_can_neither_leave_nor_be_demoted_and_a_removed_member_loses_the_apps() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let (mut alice, mut bob) = acme_with(&server, "bob@example.com", "member").await;

        let demote = alice
            .call(
                "/api/orgs/role",
                &[
                    ("slug", ORG),
                    ("email", "alice@example.com"),
                    ("role", "member"),
                ],
            )
            .await;
        assert!(
            matches!(demote.app_error(), AppError::Conflict(m) if m.contains("needs an admin")),
            "{label}"
        );
        let leave = alice
            .call(
                "/api/orgs/remove",
                &[
                    ("slug", ORG),
                    ("email", "alice@example.com"),
                    ("confirmed", "yes"),
                ],
            )
            .await;
        assert!(
            matches!(leave.app_error(), AppError::Conflict(_)),
            "{label}"
        );

        // Without confirmation (no JavaScript), the page asks first.
        let ask = alice
            .form_post(
                "/api/orgs/remove",
                &[("slug", ORG), ("email", "bob@example.com")],
            )
            .await;
        assert_eq!(
            ask.location.as_deref(),
            Some("/console/orgs/acme?remove=bob%40example.com")
        );
        assert_eq!(
            bob.call("/api/apps/get", &[("package_name", APP)])
                .await
                .status,
            200
        );

        // Bob edits, then is removed: his edit stays in the history under his name.
        let saved = bob
            .call(
                "/api/apps/save",
                &[
                    ("package_name", APP),
                    ("revision", "1"),
                    ("name", "Todo by Bob"),
                    ("description", ""),
                    ("version", "1.0.0"),
                    ("public_url", "https://todo.example.com"),
                ],
            )
            .await;
        assert!(saved.status < 400, "{saved:?}");
        let removed = alice
            .form_post(
                "/api/orgs/remove",
                &[
                    ("slug", ORG),
                    ("email", "bob@example.com"),
                    ("confirmed", "yes"),
                ],
            )
            .await;
        assert_eq!(
            removed.location.as_deref(),
            Some("/console/orgs/acme?removed=bob%40example.com")
        );
        assert_eq!(
            bob.call("/api/apps/get", &[("package_name", APP)])
                .await
                .app_error(),
            AppError::NotFound
        );
        assert_eq!(bob.get(&format!("/console/apps/{APP}")).await.status, 404);
        let history = alice.get(&format!("/console/apps/{APP}/history")).await;
        assert!(
            history.body.contains("bob@example.com"),
            "{label}: the history keeps his edit"
        );

        // With another admin, the first may step down.
        let mut carol = signed_up(&server, "carol@example.com").await;
        let link = invite(&mut alice, "carol@example.com", "admin").await;
        join(&mut carol, &link).await;

        // A removed member's keys of the organization's apps stop working.
        let key = create_key(&carol, APP, "Carol's").await;
        let config_path = format!("/api/v1/apps/{APP}/config");
        let config = |key: String| {
            let path = config_path.clone();
            let server = &server;
            async move { api_get(server, &path, Some(&key)).await.status().as_u16() }
        };
        assert_eq!(config(key.clone()).await, 200, "{label}");
        alice
            .call(
                "/api/orgs/remove",
                &[
                    ("slug", ORG),
                    ("email", "carol@example.com"),
                    ("confirmed", "yes"),
                ],
            )
            .await;
        assert_eq!(config(key).await, 401, "{label}: revoked with the member");
        let link = invite(&mut alice, "carol@example.com", "admin").await;
        join(&mut carol, &link).await;

        let demote = alice
            .call(
                "/api/orgs/role",
                &[
                    ("slug", ORG),
                    ("email", "alice@example.com"),
                    ("role", "member"),
                ],
            )
            .await;
        assert!(demote.status < 400, "{label}: {demote:?}");
        let invite_now = alice
            .call(
                "/api/orgs/invite",
                &[
                    ("slug", ORG),
                    ("email", "x@example.com"),
                    ("role", "member"),
                ],
            )
            .await;
        assert!(
            matches!(invite_now.app_error(), AppError::NotAllowed(m) if m.starts_with("Only an admin can"))
        );
        server.stop().await;
    }
}

#[tokio::test]
async fn new_apps_go_to_the_current_organization_and_the_list_shows_only_its_apps() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_up(&server, "alice@example.com").await;
    let create = |pkg: &'static str| {
        [
            ("package_name", pkg),
            ("name", pkg),
            ("description", ""),
            ("version", "1.0.0"),
            ("public_url", "https://x.example.com"),
        ]
    };
    alice
        .call("/api/apps/create", &create("com.alice.personal"))
        .await;
    alice
        .form_post("/api/orgs/create", &[("name", "Acme")])
        .await;
    alice
        .call("/api/apps/create", &create("com.acme.team"))
        .await;
    let list = alice.get("/console/apps").await.body;
    assert!(list.contains("com.acme.team") && !list.contains("com.alice.personal"));
    // Either app opens by its URL, current organization or not.
    assert_eq!(
        alice.get("/console/apps/com.alice.personal").await.status,
        200
    );
    let switched = alice
        .form_post("/api/orgs/switch", &[("slug", "alice-example-com")])
        .await;
    assert_eq!(switched.location.as_deref(), Some("/console/apps"));
    let list = alice.get("/console/apps").await.body;
    assert!(!list.contains("com.acme.team") && list.contains("com.alice.personal"));
    // The header's switcher names both, the current one chosen.
    assert!(
        list.contains(r#"<option value="alice-example-com" selected"#),
        "{list}"
    );
    assert!(list.contains(r#"<option value="acme""#));
    // A name taken gets a numbered slug; a bad name is refused with the field.
    let again = alice
        .form_post("/api/orgs/create", &[("name", "ACME!")])
        .await;
    assert_eq!(
        again.location.as_deref(),
        Some("/console/orgs/acme-2?created=1")
    );
    let empty = alice.call("/api/orgs/create", &[("name", "  ")]).await;
    assert!(matches!(empty.app_error(), AppError::Validation(e) if e.first("name").is_some()));
    server.stop().await;
}

#[tokio::test]
async fn a_moved_app_keeps_only_the_keys_of_members_of_its_new_organization() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let (mut alice, mut carol) = acme_with(&server, "carol@example.com", "admin").await;
        let alices = create_key(&alice, APP, "Alice's").await;
        let carols = create_key(&carol, APP, "Carol's").await;
        let config_path = format!("/api/v1/apps/{APP}/config");
        let status = |key: String| {
            let path = config_path.clone();
            let server = &server;
            async move { api_get(server, &path, Some(&key)).await.status().as_u16() }
        };
        assert_eq!(status(carols.clone()).await, 200, "{label}");

        // Without JavaScript to ask, the app page asks first.
        let asked = alice
            .form_post(
                "/api/apps/move",
                &[("package_name", APP), ("to", "alice-example-com")],
            )
            .await;
        assert_eq!(
            asked.location.as_deref(),
            Some(format!("/console/apps/{APP}?confirm_move=alice-example-com#move-title").as_str())
        );
        assert_eq!(status(carols.clone()).await, 200, "{label}: not moved yet");
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
        assert_eq!(
            moved.location.as_deref(),
            Some(format!("/console/apps/{APP}?moved=Personal").as_str())
        );
        assert_eq!(
            status(alices).await,
            200,
            "{label}: Alice is a member where it went"
        );
        assert_eq!(status(carols).await, 401, "{label}: Carol is not");
        assert_eq!(
            carol
                .call("/api/apps/get", &[("package_name", APP)])
                .await
                .app_error(),
            AppError::NotFound
        );
        server.stop().await;
    }
}

#[tokio::test]
async fn a_link_just_made_shows_on_its_organizations_page_and_nowhere_else() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_up(&server, "alice@example.com").await;
    alice
        .form_post("/api/orgs/create", &[("name", "Acme")])
        .await;
    alice.get(&format!("/console/orgs/{ORG}")).await;
    alice
        .form_post(
            "/api/orgs/invite",
            &[
                ("slug", ORG),
                ("email", "bob@example.com"),
                ("role", "member"),
            ],
        )
        .await;
    let personal: Value = serde_json::from_str(
        &alice
            .call("/api/orgs/page", &[("slug", "alice-example-com")])
            .await
            .body,
    )
    .unwrap();
    assert!(personal["invitation_link"].is_null(), "{personal}");
    let acme: Value =
        serde_json::from_str(&alice.call("/api/orgs/page", &[("slug", ORG)]).await.body).unwrap();
    assert!(
        acme["invitation_link"]
            .as_str()
            .is_some_and(|l| l.contains("/invitations/")),
        "{acme}"
    );
    server.stop().await;
}

#[tokio::test]
async fn without_any_organization_the_console_says_how_to_make_one() {
    let server = TestServer::start(TestDatabase::sqlite()).await;
    let mut alice = signed_up(&server, "alice@example.com").await;
    let deleted = alice
        .form_post(
            "/api/orgs/delete",
            &[("slug", "alice-example-com"), ("confirmation", "Personal")],
        )
        .await;
    assert_eq!(
        deleted.location.as_deref(),
        Some("/console/apps"),
        "{deleted:?}"
    );
    let page = alice.get("/console/apps").await.body;
    assert!(page.contains("You belong to no organization"), "{page}");
    assert!(page.contains(r#"href="/console/orgs/new""#));
    let made = alice
        .call("/api/apps/create", &todo_form("https://todo.example.com"))
        .await;
    assert!(matches!(made.app_error(), AppError::Conflict(m) if m.contains("create one first")));
    server.stop().await;
}
