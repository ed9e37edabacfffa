//! An app's eval cases over real HTTP on both backends: from the form, from
//! activation phrases (once each), deleted after asking, and only for the
//! members of the app's organization.

use crate::{
    common::{json_call, TestDatabase, TestServer},
    orgs::{alice_with_acme, draft, signed_up, APP},
};
use serde_json::json;
use toolwright::{api::AppError, on_db};

const EVALS: &str = "/console/apps/com.acme.todo/evals";

async fn cases(server: &TestServer) -> Vec<(i64, String, Option<String>, Option<String>)> {
    on_db!(&server.state.db, pool => sqlx::query_as::<_, (i64, String, Option<String>, Option<String>)>(
        "SELECT id, utterance, expected, arguments_json FROM eval_cases ORDER BY id"
    )
    .fetch_all(pool)
    .await)
    .unwrap()
}

#[tokio::test]
async fn cases_come_from_the_form_and_from_phrases_once_and_are_deleted_after_asking() {
    for db in TestDatabase::all().await {
        let label = db.label();
        let server = TestServer::start(db).await;
        let mut alice = alice_with_acme(&server, "https://todo.example.com").await;
        // Two tools whose phrases are both "ping": one case is made of it.
        let mut revision = 1;
        for id in ["ping", "pong"] {
            let saved = json_call(
                &alice,
                "/api/tools/save",
                json!({"package_name": APP, "revision": revision, "original_id": null, "draft": draft(id)}),
            )
            .await;
            revision = serde_json::from_str::<serde_json::Value>(&saved).unwrap()["revision"]
                .as_i64()
                .unwrap_or_else(|| panic!("{saved}"));
        }
        let fields = [("package_name", APP)];
        let made = alice
            .form_post("/api/evals/cases/from-phrases", &fields)
            .await;
        assert_eq!(
            made.location.as_deref(),
            Some("/console/apps/com.acme.todo/evals?from_phrases=1#cases"),
            "{label}"
        );
        let again = alice
            .form_post("/api/evals/cases/from-phrases", &fields)
            .await;
        assert!(
            again.location.unwrap().contains("from_phrases=0"),
            "{label}: no duplicates"
        );
        // Asked twice at once (a double click): still one case per phrase.
        on_db!(&server.state.db, pool => sqlx::query("DELETE FROM eval_cases")
            .execute(pool)
            .await
            .map(|_| ()))
        .unwrap();
        tokio::join!(
            alice.clone_call("/api/evals/cases/from-phrases", &fields),
            alice.clone_call("/api/evals/cases/from-phrases", &fields),
        );
        assert_eq!(cases(&server).await.len(), 1, "{label}: added once");

        let added = alice
            .form_post(
                "/api/evals/cases/add",
                &[
                    ("package_name", APP),
                    ("utterance", "ping the milk"),
                    ("expected", "pong"),
                    ("arguments", r#"{"item": "milk"}"#),
                ],
            )
            .await;
        assert!(added.location.unwrap().contains("case_added=1"), "{label}");
        let refused = alice
            .call(
                "/api/evals/cases/add",
                &[
                    ("package_name", APP),
                    ("utterance", ""),
                    ("expected", "nope"),
                    ("arguments", "[1]"),
                ],
            )
            .await;
        match refused.app_error() {
            AppError::Validation(errors) => {
                for field in ["utterance", "expected", "arguments"] {
                    assert!(errors.first(field).is_some(), "{label}: {field}");
                }
            }
            other => panic!("{label}: {other:?}"),
        }
        let stored = cases(&server).await;
        let seen: Vec<(&str, Option<&str>)> = stored
            .iter()
            .map(|(_, u, e, _)| (u.as_str(), e.as_deref()))
            .collect();
        assert_eq!(
            seen,
            [("ping", Some("ping")), ("ping the milk", Some("pong"))],
            "{label}"
        );
        assert_eq!(
            stored[1].3.as_deref(),
            Some(r#"{"item":"milk"}"#),
            "{label}"
        );
        let page = alice.get(EVALS).await;
        for shown in [
            "Cases",
            "ping the milk",
            r#"{"item":"milk"}"#,
            "Add cases from activation phrases",
        ] {
            assert!(page.body.contains(shown), "{label}: {shown}");
        }

        // Edited in place, by id; an id that is not one of the app's is not found.
        let edited_id = stored[1].0.to_string();
        let saved = alice
            .form_post(
                "/api/evals/cases/add",
                &[
                    ("package_name", APP),
                    ("id", &edited_id),
                    ("utterance", "ping the bread"),
                    ("expected", ""),
                    ("arguments", ""),
                ],
            )
            .await;
        assert!(saved.location.unwrap().contains("case_saved=1"), "{label}");
        let now = cases(&server).await;
        assert_eq!(
            (now[1].1.as_str(), now[1].2.as_deref(), now[1].3.as_deref()),
            ("ping the bread", None, None),
            "{label}"
        );
        let missing = alice
            .call(
                "/api/evals/cases/add",
                &[
                    ("package_name", APP),
                    ("id", "999999"),
                    ("utterance", "x"),
                    ("expected", ""),
                ],
            )
            .await;
        assert_eq!(missing.app_error(), AppError::NotFound, "{label}");

        // Deleting asks first without JavaScript, then deletes.
        let id = stored[0].0.to_string();
        let asked = alice
            .form_post(
                "/api/evals/cases/delete",
                &[("package_name", APP), ("id", &id)],
            )
            .await;
        let question = asked.location.unwrap();
        assert!(
            question.contains(&format!("delete_case={id}")),
            "{question}"
        );
        assert!(alice
            .get(&question)
            .await
            .body
            .contains("Yes, delete the case"));
        assert_eq!(cases(&server).await.len(), 2, "{label}: asked only");
        let deleted = alice
            .form_post(
                "/api/evals/cases/delete",
                &[("package_name", APP), ("id", &id), ("confirmed", "yes")],
            )
            .await;
        assert!(
            deleted.location.unwrap().contains("case_deleted=1"),
            "{label}"
        );
        assert_eq!(cases(&server).await.len(), 1, "{label}");

        // Someone outside the organization: as for an app that does not exist.
        let mut carol = signed_up(&server, "carol@example.com").await;
        assert_eq!(carol.get(EVALS).await.status, 404, "{label}");
        let answer = carol
            .call(
                "/api/evals/cases/add",
                &[("package_name", APP), ("utterance", "hi"), ("expected", "")],
            )
            .await;
        assert_eq!(answer.app_error(), AppError::NotFound, "{label}");
        assert_eq!(cases(&server).await.len(), 1, "{label}");
        server.stop().await;
    }
}
