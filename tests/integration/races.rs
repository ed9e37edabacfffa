//! A permission holds at the moment of the write: each pair of requests
//! below is released together, round after round, on both databases, and
//! whichever side wins, the outcome is one the roles allow — no key
//! outlives its maker's membership, no write lands for someone whose
//! membership had ended, and no answer is a 500. Each test prints how many
//! rounds each side won (`cargo test races -- --nocapture`).
//!
//! (The same gap, closed deterministically: `a_write_checked_on_the_way_in_
//! is_refused_when_the_membership_ended_before_it` below.)

use crate::common::{
    api_get, json_call_with_status, tools, Answer, Browser, TestDatabase, TestServer,
};
use crate::orgs::{alice_with_acme, draft, invite, join, signed_up, APP, ORG};
use serde_json::{json, Value};
use toolwright::{api::AppError, on_db};

const ROUNDS: usize = 20;
const BOB: &str = "bob@example.com";

/// What one side of a race answered: success, or a refusal in words.
#[derive(Debug)]
enum Side {
    Done(String),
    Refused(AppError),
}

impl Side {
    fn of(status: u16, body: String, what: &str) -> Side {
        assert_ne!(status, 500, "{what} answered 500: {body}");
        if status < 400 {
            return Side::Done(body);
        }
        let error: AppError = serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("{what}: not an error in words ({e}): {status} {body}"));
        assert!(!error.to_string().is_empty());
        Side::Refused(error)
    }

    fn from_answer(answer: Answer, what: &str) -> Side {
        Side::of(answer.status, answer.body, what)
    }

    fn done(&self) -> bool {
        matches!(self, Side::Done(_))
    }
}

/// Tallies who won each round of one pair, and prints it.
struct Tally {
    pair: &'static str,
    label: &'static str,
    first: (&'static str, usize),
    second: (&'static str, usize),
}

impl Tally {
    fn new(
        pair: &'static str,
        label: &'static str,
        first: &'static str,
        second: &'static str,
    ) -> Tally {
        Tally {
            pair,
            label,
            first: (first, 0),
            second: (second, 0),
        }
    }

    fn count(&mut self, first_won: bool) {
        if first_won {
            self.first.1 += 1;
        } else {
            self.second.1 += 1;
        }
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        eprintln!(
            "race {} on {}: {} rounds — {} first {}×, {} first {}×",
            self.pair,
            self.label,
            self.first.1 + self.second.1,
            self.first.0,
            self.first.1,
            self.second.0,
            self.second.1
        );
    }
}

/// Runs `a` and `b` released together: both are polled from the same
/// instant, and the server (on a multi-threaded runtime) serves them in
/// parallel.
async fn together<A, B>(a: A, b: B) -> (A::Output, B::Output)
where
    A: std::future::Future,
    B: std::future::Future,
{
    let barrier = tokio::sync::Barrier::new(2);
    tokio::join!(
        async {
            barrier.wait().await;
            a.await
        },
        async {
            barrier.wait().await;
            b.await
        }
    )
}

async fn count(server: &TestServer, sql: &str, bind: &str) -> i64 {
    on_db!(&server.state.db, pool => sqlx::query_scalar::<_, i64>(sql)
        .bind(bind)
        .fetch_one(pool)
        .await)
    .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// How many apps have a tool called `tool_id` now.
async fn tools_named(server: &TestServer, tool_id: &str) -> i64 {
    let apps: Vec<i64> = on_db!(&server.state.db, pool => sqlx::query_scalar::<_, i64>(
        "SELECT id FROM apps"
    )
    .fetch_all(pool)
    .await)
    .unwrap();
    let mut found = 0;
    for app in apps {
        let tools = tools::list_for_app(&server.state.db, app).await.unwrap();
        found += tools.iter().filter(|t| t.id == tool_id).count() as i64;
    }
    found
}

/// Keys made by `email` that are not revoked.
async fn live_keys_of(server: &TestServer, email: &str) -> i64 {
    count(
        server,
        "SELECT COUNT(*) FROM api_keys k JOIN developers d ON d.id = k.created_by \
         WHERE d.email = $1 AND k.revoked_at IS NULL",
        email,
    )
    .await
}

async fn revision_of(server: &TestServer, package: &str) -> i64 {
    count(
        server,
        "SELECT revision FROM apps WHERE package_name = $1",
        package,
    )
    .await
}

async fn create_key(bob: &Browser, name: String) -> Side {
    let (status, body) = json_call_with_status(
        bob,
        "/api/keys/create",
        json!({"package_name": APP, "name": name}),
    )
    .await;
    Side::of(status, body, "create key")
}

/// A key made in the race works on no route once its maker left.
async fn assert_key_is_dead(server: &TestServer, made: &Side) {
    if let Side::Done(body) = made {
        let key: Value = serde_json::from_str(body).unwrap();
        let key = key["key"].as_str().unwrap();
        let answer = api_get(server, &format!("/api/v1/apps/{APP}/config"), Some(key)).await;
        assert!(
            matches!(answer.status().as_u16(), 401 | 404),
            "a key of a former member answers {}",
            answer.status()
        );
    }
}

/// Alice's Acme with its app, and Bob signed up (not yet a member).
async fn acme_and_bob(server: &TestServer) -> (Browser, Browser) {
    let alice = alice_with_acme(server, "https://todo.example.com").await;
    let bob = signed_up(server, BOB).await;
    (alice, bob)
}

async fn joins(alice: &mut Browser, bob: &mut Browser, role: &str) {
    let link = invite(alice, BOB, role).await;
    let answer = join(bob, &link).await;
    assert!(answer.status < 400, "{answer:?}");
}

fn remove_bob(alice: &mut Browser) -> impl std::future::Future<Output = Answer> + '_ {
    alice.call(
        "/api/orgs/remove",
        &[("slug", ORG), ("email", BOB), ("confirmed", "yes")],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn removal_and_create_key() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let (mut alice, mut bob) = acme_and_bob(&server).await;
        let mut tally = Tally::new("removal × create key", label, "key", "removal");
        for round in 0..ROUNDS {
            joins(&mut alice, &mut bob, "admin").await;
            let (removed, made) = together(
                remove_bob(&mut alice),
                create_key(&bob, format!("race {round}")),
            )
            .await;
            assert!(Side::from_answer(removed, "remove").done());
            assert_eq!(
                live_keys_of(&server, BOB).await,
                0,
                "{label} round {round}: {made:?}"
            );
            assert_key_is_dead(&server, &made).await;
            tally.count(made.done());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn removal_and_edit_tool() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let (mut alice, mut bob) = acme_and_bob(&server).await;
        let mut tally = Tally::new("removal × edit tool", label, "edit", "removal");
        for round in 0..ROUNDS {
            joins(&mut alice, &mut bob, "member").await;
            let revision = revision_of(&server, APP).await;
            let tool = format!("race_{round}");
            let save = async {
                let (status, body) = json_call_with_status(
                    &bob,
                    "/api/tools/save",
                    json!({"package_name": APP, "revision": revision, "original_id": null, "draft": draft(&tool)}),
                )
                .await;
                Side::of(status, body, "save tool")
            };
            let (removed, saved) = together(remove_bob(&mut alice), save).await;
            assert!(Side::from_answer(removed, "remove").done());
            let stored = tools_named(&server, &tool).await;
            assert_eq!(
                stored,
                i64::from(saved.done()),
                "{label} round {round}: {saved:?}"
            );
            // Refused, it says why in words: the membership ended.
            if let Side::Refused(error) = &saved {
                assert!(
                    matches!(error, AppError::Gone(_) | AppError::NotFound),
                    "{error:?}"
                );
            }
            tally.count(saved.done());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn demotion_and_invite() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let (mut alice, mut bob) = acme_and_bob(&server).await;
        joins(&mut alice, &mut bob, "admin").await;
        let mut tally = Tally::new("demotion × invite", label, "invite", "demotion");
        for round in 0..ROUNDS {
            let promoted = alice
                .call(
                    "/api/orgs/role",
                    &[("slug", ORG), ("email", BOB), ("role", "admin")],
                )
                .await;
            assert!(promoted.status < 400, "{promoted:?}");
            let guest = format!("guest{round}@example.com");
            let demotion = [("slug", ORG), ("email", BOB), ("role", "member")];
            let invitation = [("slug", ORG), ("email", guest.as_str()), ("role", "member")];
            let demote = alice.call("/api/orgs/role", &demotion);
            let invite = bob.call("/api/orgs/invite", &invitation);
            let (demoted, invited) = together(demote, invite).await;
            assert!(Side::from_answer(demoted, "demote").done());
            let invited = Side::from_answer(invited, "invite");
            let stored = count(
                &server,
                "SELECT COUNT(*) FROM org_invitations WHERE email = $1",
                &guest,
            )
            .await;
            assert_eq!(
                stored,
                i64::from(invited.done()),
                "{label} round {round}: {invited:?}"
            );
            if let Side::Refused(error) = &invited {
                assert!(matches!(error, AppError::NotAllowed(_)), "{error:?}");
            }
            tally.count(invited.done());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn delete_organization_and_create_app() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let (mut alice, mut bob) = acme_and_bob(&server).await;
        let mut tally = Tally::new(
            "delete organization × create app",
            label,
            "create",
            "delete",
        );
        for round in 0..ROUNDS {
            // A new organization of Alice's, Bob's current one once he joins.
            let name = format!("Beta {round}");
            let slug = format!("beta-{round}");
            let made = alice
                .form_post("/api/orgs/create", &[("name", &name)])
                .await;
            assert!(made.status < 400, "{made:?}");
            alice.get(&format!("/console/orgs/{slug}")).await;
            let answer = alice
                .form_post(
                    "/api/orgs/invite",
                    &[("slug", &slug), ("email", BOB), ("role", "member")],
                )
                .await;
            assert_eq!(answer.status, 302, "{answer:?}");
            let page: Value =
                serde_json::from_str(&alice.call("/api/orgs/page", &[("slug", &slug)]).await.body)
                    .unwrap();
            let joined = join(&mut bob, page["invitation_link"].as_str().unwrap()).await;
            assert!(joined.status < 400, "{joined:?}");

            let package = format!("com.beta.app{round}");
            let deletion = [("slug", slug.as_str()), ("confirmation", name.as_str())];
            let new_app = [
                ("package_name", package.as_str()),
                ("name", "Beta app"),
                ("description", ""),
                ("version", "1.0.0"),
                ("public_url", "https://beta.example.com"),
            ];
            let delete = alice.call("/api/orgs/delete", &deletion);
            let create = bob.call("/api/apps/create", &new_app);
            let (deleted, created) = together(delete, create).await;
            let deleted = Side::from_answer(deleted, "delete organization");
            let created = Side::from_answer(created, "create app");
            // An app made first keeps the organization (its deletion is
            // refused); a deletion first leaves the app nowhere to go — it
            // is refused, or, when Bob's request began after the deletion,
            // made in the organization that became his current one. Never
            // both refused, never an app in a deleted organization.
            assert!(
                deleted.done() || created.done(),
                "{label} round {round}: {deleted:?} {created:?}"
            );
            let apps = count(
                &server,
                "SELECT COUNT(*) FROM apps WHERE package_name = $1",
                &package,
            )
            .await;
            assert_eq!(apps, i64::from(created.done()));
            let homed = count(
                &server,
                "SELECT COUNT(*) FROM apps a JOIN organizations o ON o.id = a.org_id WHERE a.package_name = $1",
                &package,
            )
            .await;
            assert_eq!(
                homed, apps,
                "{label} round {round}: an app in a deleted organization"
            );
            let orgs = count(
                &server,
                "SELECT COUNT(*) FROM organizations WHERE slug = $1",
                &slug,
            )
            .await;
            assert_eq!(orgs, i64::from(!deleted.done()));
            if let Side::Refused(error) = &deleted {
                assert!(matches!(error, AppError::Conflict(_)), "{error:?}");
                assert!(created.done());
            }
            if let Side::Refused(error) = &created {
                assert_eq!(
                    error,
                    &AppError::Gone("This organization no longer exists.".to_owned())
                );
            }
            tally.count(!deleted.done());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn delete_app_and_save_tool() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let (mut alice, mut bob) = acme_and_bob(&server).await;
        joins(&mut alice, &mut bob, "member").await;
        let mut tally = Tally::new("delete app × save tool", label, "save", "delete");
        for round in 0..ROUNDS {
            let package = format!("com.acme.app{round}");
            let made = alice
                .call(
                    "/api/apps/create",
                    &[
                        ("package_name", &package),
                        ("name", "Doomed"),
                        ("description", ""),
                        ("version", "1.0.0"),
                        ("public_url", "https://doomed.example.com"),
                    ],
                )
                .await;
            assert!(made.status < 400, "{made:?}");
            let app_id = count(
                &server,
                "SELECT id FROM apps WHERE package_name = $1",
                &package,
            )
            .await;
            let deletion = [
                ("package_name", package.as_str()),
                ("confirmation", package.as_str()),
            ];
            let delete = alice.call("/api/apps/delete", &deletion);
            let save = async {
                let (status, body) = json_call_with_status(
                    &bob,
                    "/api/tools/save",
                    json!({"package_name": package, "revision": 1, "original_id": null, "draft": draft("late")}),
                )
                .await;
                Side::of(status, body, "save tool")
            };
            let (deleted, saved) = together(delete, save).await;
            assert!(Side::from_answer(deleted, "delete app").done());
            if let Side::Refused(error) = &saved {
                assert!(
                    matches!(error, AppError::Gone(_) | AppError::NotFound),
                    "{error:?}"
                );
            }
            // Nothing of the app is left, whoever came first.
            let id = app_id.to_string();
            for table in ["app_revisions", "revision_tools"] {
                let left = count(
                    &server,
                    &format!("SELECT COUNT(*) FROM {table} WHERE CAST(app_id AS TEXT) = $1"),
                    &id,
                )
                .await;
                assert_eq!(left, 0, "{label} round {round}: {table} of a deleted app");
            }
            tally.count(saved.done());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn move_app_and_create_key() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let (mut alice, mut bob) = acme_and_bob(&server).await;
        joins(&mut alice, &mut bob, "admin").await;
        // Beta: Alice's second organization; Bob is not in it.
        let made = alice
            .form_post("/api/orgs/create", &[("name", "Beta")])
            .await;
        assert!(made.status < 400, "{made:?}");
        let mut tally = Tally::new("move app × create key", label, "key", "move");
        for round in 0..ROUNDS {
            if round > 0 {
                let back = alice
                    .call("/api/apps/move", &[("package_name", APP), ("to", ORG)])
                    .await;
                assert!(back.status < 400, "{back:?}");
            }
            let moved = alice.call("/api/apps/move", &[("package_name", APP), ("to", "beta")]);
            let (moved, made) = together(moved, create_key(&bob, format!("race {round}"))).await;
            assert!(Side::from_answer(moved, "move").done());
            assert_eq!(
                live_keys_of(&server, BOB).await,
                0,
                "{label} round {round}: {made:?}"
            );
            assert_key_is_dead(&server, &made).await;
            if let Side::Refused(error) = &made {
                assert!(
                    matches!(error, AppError::Gone(_) | AppError::NotFound),
                    "{error:?}"
                );
            }
            tally.count(made.done());
        }
    }
}

/// The gap itself, without a race: a request whose check on the way in
/// passed, and whose membership ended before its write, writes nothing —
/// for each kind of write — and says why.
#[tokio::test]
async fn a_write_checked_on_the_way_in_is_refused_when_the_membership_ended_before_it() {
    use toolwright::{
        domain::{account::CurrentDeveloper, app::AppInput, org::Role},
        server::repo::{self, WriteError},
    };
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let (mut alice, mut bob) = acme_and_bob(&server).await;
        joins(&mut alice, &mut bob, "admin").await;
        let state = &server.state;
        let bob_id = count(&server, "SELECT id FROM developers WHERE email = $1", BOB).await;
        let bob_dev = CurrentDeveloper {
            id: bob_id,
            email: BOB.to_owned(),
        };
        let app = crate::common::app_of(&state.db, bob_id, APP)
            .await
            .unwrap()
            .unwrap();
        let org = app.org_id;
        // The check on the way in passed; now Bob is removed.
        let removed = remove_bob(&mut alice).await;
        assert!(removed.status < 400, "{removed:?}");

        let out_of_reach =
            AppError::Gone("This app is no longer in an organization you belong to.".to_owned());
        let not_member =
            AppError::Gone("You are no longer a member of this organization.".to_owned());
        let refused = |result: Result<(), WriteError>, what: &str| match result {
            Err(WriteError::Refused(error)) => {
                let expected = if matches!(what, "create an app" | "invite") {
                    &not_member
                } else {
                    &out_of_reach
                };
                assert_eq!(&error, expected, "{label}: {what}");
            }
            other => panic!("{label}: {what} was not refused: {other:?}"),
        };
        let tool = toolwright::domain::tool::Tool {
            id: "late".to_owned(),
            description: "Too late".to_owned(),
            ..Default::default()
        };
        let revision = app.details.revision;
        refused(
            tools::save(&state.db, app.id, revision, None, &tool, &bob_dev, 1)
                .await
                .map(|_| ()),
            "save a tool",
        );
        refused(
            tools::delete(&state.db, app.id, revision, "late", &bob_dev, 1)
                .await
                .map(|_| ()),
            "delete a tool",
        );
        let key = repo::api_keys::NewKey {
            name: "late",
            key: "tw_late",
            export_only: false,
        };
        refused(
            repo::api_keys::create(&state.db, app.id, bob_id, key, 1)
                .await
                .map(|_| ()),
            "create a key",
        );
        let input = AppInput {
            package_name: "com.acme.late".to_owned(),
            name: "Late".to_owned(),
            description: String::new(),
            version: "1.0.0".to_owned(),
            public_url: "https://late.example.com".to_owned(),
        };
        refused(
            repo::apps::create(&state.db, &bob_dev, org, &input, 1)
                .await
                .map(|_| ()),
            "create an app",
        );
        refused(
            repo::orgs::invite(
                &state.db,
                org,
                "late@example.com",
                Role::Member,
                "t",
                bob_id,
                1,
            )
            .await,
            "invite",
        );
        refused(
            repo::apps::delete(&state.db, app.id, bob_id)
                .await
                .map(|_| ()),
            "delete the app",
        );
        // Nothing of it happened.
        assert_eq!(tools_named(&server, "late").await, 0);
        assert_eq!(live_keys_of(&server, BOB).await, 0);
        assert_eq!(
            count(
                &server,
                "SELECT COUNT(*) FROM apps WHERE package_name = $1",
                APP
            )
            .await,
            1
        );
        assert_eq!(
            count(
                &server,
                "SELECT COUNT(*) FROM org_invitations WHERE email = $1",
                "late@example.com"
            )
            .await,
            0
        );
    }
}
