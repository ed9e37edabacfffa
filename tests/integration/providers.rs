//! An organization's model providers over real HTTP on both backends: the
//! admin adds and removes them, every member sees them, and the API key is
//! sealed at rest and never shown again.

use crate::{
    common::{TestDatabase, TestServer},
    orgs::{alice_with_acme, invite, join, signed_up},
};
use toolwright::{
    api::AppError,
    domain::org::Action,
    on_db,
    server::secrets::{SecretKey, HOW_TO_SET},
};

const KEY: &str = "sk-live-abcdefghijklmnop9876";
/// 32 bytes of 7, in base64.
const SECRET: &str = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=";

fn provider(name: &'static str, key: &'static str) -> [(&'static str, &'static str); 5] {
    [
        ("slug", "acme"),
        ("name", name),
        ("base_url", "https://api.openai.com/v1"),
        ("model", "gpt-4.1-mini"),
        ("api_key", key),
    ]
}

async fn stored(server: &TestServer) -> Vec<(i64, String)> {
    on_db!(&server.state.db, pool => sqlx::query_as::<_, (i64, String)>(
        "SELECT id, key_sealed FROM model_providers ORDER BY id"
    )
    .fetch_all(pool)
    .await)
    .unwrap()
}

#[tokio::test]
async fn an_admin_adds_and_removes_providers_whose_keys_are_sealed_and_never_shown() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let mut config = db.config();
        config.secret_key = Some(SECRET.to_owned());
        let server = TestServer::start_with(db, config).await;
        let mut alice = alice_with_acme(&server, "https://todo.example.com").await;

        let added = alice
            .form_post("/api/orgs/providers/add", &provider("OpenAI", KEY))
            .await;
        assert_eq!(
            added.location.as_deref(),
            Some("/console/orgs/acme?provider_added=OpenAI#providers"),
            "{label}: {added:?}"
        );
        let page = alice.get("/console/orgs/acme?provider_added=OpenAI").await;
        for shown in [
            "Model providers",
            "OpenAI",
            "gpt-4.1-mini",
            "…9876",
            "Added the model provider OpenAI",
        ] {
            assert!(page.body.contains(shown), "{label}: {shown}");
        }
        assert!(
            !page.body.contains("abcdefghijklmnop"),
            "{label}: the key is never shown"
        );
        // Sealed at rest, under the console's key.
        let rows = stored(&server).await;
        assert_eq!(rows.len(), 1, "{label}");
        assert!(!rows[0].1.contains("abcdef"), "{label}");
        let secret = SecretKey::from_base64(SECRET).unwrap();
        assert_eq!(secret.open(&rows[0].1).as_deref(), Some(KEY), "{label}");

        // The same name again: refused in words, and nothing added.
        let again = alice
            .call(
                "/api/orgs/providers/add",
                &provider("OpenAI", "sk-other-1111"),
            )
            .await;
        match again.app_error() {
            AppError::Validation(errors) => assert!(
                errors.first("name").is_some_and(|m| m.contains("already")),
                "{label}: {errors:?}"
            ),
            other => panic!("{label}: {other:?}"),
        }
        // Refused without JavaScript, the form keeps what was typed but the key.
        let refused = alice
            .form_post(
                "/api/orgs/providers/add",
                &provider("", "sk-typed-secret-2222"),
            )
            .await;
        let back = refused.location.clone().expect("back to the page");
        let path = &back[back.find("/console").expect("the page")..];
        let page = alice.get(path).await;
        assert!(page.body.contains("api.openai.com"), "{label}");
        assert!(!page.body.contains("sk-typed-secret"), "{label}");
        assert!(!back.contains("sk-typed-secret"), "{label}: {back}");

        // A member sees the providers, but may not add or remove them.
        let mut bob = signed_up(&server, "bob@example.com").await;
        let link = invite(&mut alice, "bob@example.com", "member").await;
        assert!(join(&mut bob, &link).await.status < 400);
        let seen = bob.get("/console/orgs/acme").await;
        assert!(
            seen.body.contains("OpenAI") && seen.body.contains("…9876"),
            "{label}"
        );
        assert!(!seen.body.contains("Add provider"), "{label}");
        let id = rows[0].0.to_string();
        for (path, fields) in [
            (
                "/api/orgs/providers/add",
                provider("Mine", "sk-bob-3333").to_vec(),
            ),
            (
                "/api/orgs/providers/remove",
                vec![("slug", "acme"), ("id", id.as_str()), ("confirmed", "yes")],
            ),
        ] {
            let answer = bob.call(path, &fields).await;
            assert_eq!(
                answer.app_error(),
                AppError::NotAllowed(Action::ManageProviders.refusal().to_owned()),
                "{label}: {path}"
            );
        }
        assert_eq!(stored(&server).await.len(), 1, "{label}");

        // Removing asks first without JavaScript, then removes.
        let asked = alice
            .form_post(
                "/api/orgs/providers/remove",
                &[("slug", "acme"), ("id", &id)],
            )
            .await;
        let confirm = asked.location.expect("the question");
        assert!(
            confirm.contains(&format!("remove_provider={id}")),
            "{confirm}"
        );
        let question = alice.get(&confirm).await;
        assert!(question.body.contains("Yes, remove OpenAI"), "{label}");
        assert_eq!(
            stored(&server).await.len(),
            1,
            "{label}: asked, not removed"
        );
        let removed = alice
            .form_post(
                "/api/orgs/providers/remove",
                &[("slug", "acme"), ("id", &id), ("confirmed", "yes")],
            )
            .await;
        assert_eq!(
            removed.location.as_deref(),
            Some("/console/orgs/acme?provider_removed=OpenAI#providers"),
            "{label}"
        );
        assert!(stored(&server).await.is_empty(), "{label}");
        let gone = alice
            .call(
                "/api/orgs/providers/remove",
                &[("slug", "acme"), ("id", &id), ("confirmed", "yes")],
            )
            .await;
        assert_eq!(gone.app_error(), AppError::NotFound, "{label}");
        server.stop().await;
    }
}

#[tokio::test]
async fn without_a_secret_key_postgres_adds_no_provider_and_says_how() {
    let Some(db) = TestDatabase::postgres().await else {
        return;
    };
    let config = db.config();
    assert!(config.secret_key.is_none());
    let server = TestServer::start_with(db, config).await;
    let mut alice = alice_with_acme(&server, "https://todo.example.com").await;
    let page = alice.get("/console/orgs/acme").await;
    assert!(page.body.contains("TOOLWRIGHT_SECRET_KEY"));
    assert!(!page.body.contains("Add provider"));
    let refused = alice
        .call("/api/orgs/providers/add", &provider("OpenAI", KEY))
        .await;
    match refused.app_error() {
        AppError::Validation(errors) => {
            assert_eq!(errors.first("api_key"), Some(HOW_TO_SET))
        }
        other => panic!("{other:?}"),
    }
    assert!(stored(&server).await.is_empty());
    server.stop().await;
}
