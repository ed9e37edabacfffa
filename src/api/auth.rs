//! Sign-up, log-in and log-out.

use super::AppError;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// The signed-in developer, as pages and server functions see them.
/// (No password hash here, or anywhere serialisable.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrentDeveloper {
    pub id: i64,
    pub email: String,
}

/// Creates an account, signs the new developer in and sends them to the console.
#[server(prefix = "/api", endpoint = "signup")]
pub async fn signup(email: String, password: String) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{account::NewAccount, FieldErrors},
        server::{auth::DEVELOPER_ID_KEY, clock::now_ms, password, repo},
    };

    let account = NewAccount::new(&email, &password);
    account.check()?;
    let state = context::state()?;
    let hash = password::hash_password(password).await?;
    let id = match repo::developers::create(&state.db, &account.email, &hash, now_ms()).await {
        Ok(id) => id,
        Err(error) if repo::is_unique_violation(&error) => {
            return Err(FieldErrors::single(
                "email",
                "This email is already registered. Log in instead.",
            )
            .into());
        }
        Err(error) => return Err(context::internal(error)),
    };
    let session = context::session()?;
    session.cycle_id().await.map_err(context::internal)?;
    session
        .insert(DEVELOPER_ID_KEY, id)
        .await
        .map_err(context::internal)?;
    tracing::info!(developer = id, "signed up");
    leptos_axum::redirect("/console/apps");
    Ok(())
}

/// Signs a developer in. Wrong email and wrong password get the same answer
/// in about the same time; repeated failures are throttled before any hashing.
#[server(prefix = "/api", endpoint = "login")]
pub async fn login(email: String, password: String, next: Option<String>) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{
            account::{check_login_fields, normalize_email},
            throttle::{too_many_attempts_message, PER_CLIENT, PER_EMAIL},
            url::after_login_target,
        },
        server::{auth::DEVELOPER_ID_KEY, clock::now_ms, password, repo},
    };

    check_login_fields(&email, &password)?;
    let email = normalize_email(&email);
    let client = context::client_address();
    let state = context::state()?;
    let db = &state.db;
    let now = now_ms();

    // The attempt is written first and the limits count it with every other
    // attempt in the window, finished or not: parallel attempts cannot all
    // pass the check before any of them is recorded.
    let attempt = repo::login_failures::record(db, &email, &client, now)
        .await
        .map_err(context::internal)?;
    let by_email =
        repo::login_failures::since_for_email(db, &email, PER_EMAIL.window_start(now), attempt)
            .await
            .map_err(context::internal)?;
    let by_client =
        repo::login_failures::since_for_client(db, &client, PER_CLIENT.window_start(now), attempt)
            .await
            .map_err(context::internal)?;
    let wait = [
        PER_EMAIL.retry_after(&by_email, now),
        PER_CLIENT.retry_after(&by_client, now),
    ]
    .into_iter()
    .flatten()
    .max();
    if let Some(wait) = wait {
        // Refused attempts do not count as failures.
        repo::login_failures::withdraw(db, attempt)
            .await
            .map_err(context::internal)?;
        tracing::warn!(%client, "log-in throttled");
        return Err(AppError::TooManyRequests(too_many_attempts_message(wait)));
    }

    let record = repo::developers::find_by_email(db, &email)
        .await
        .map_err(context::internal)?;
    let stored_hash = record.as_ref().map(|r| r.password_hash.clone());
    let matches = password::verify_password(password, stored_hash).await?;
    let Some(record) = record.filter(|_| matches) else {
        // The attempt written above stays, as a finished failure. Old
        // failures no longer count; keep the table small.
        if let Err(error) = repo::login_failures::fail(db, attempt).await {
            // Unfinished, it still counts (until it is too old to).
            tracing::warn!(%error, "could not mark a failed log-in");
        }
        let _ = repo::login_failures::prune(db, PER_EMAIL.window_start(now) - 1).await;
        tracing::info!(%client, "failed log-in");
        return Err(AppError::InvalidCredentials);
    };

    repo::login_failures::forgive_for_email(db, &email, &client, attempt)
        .await
        .map_err(context::internal)?;
    let session = context::session()?;
    // A new id at log-in: a session id planted before log-in is worthless after it.
    session.cycle_id().await.map_err(context::internal)?;
    session
        .insert(DEVELOPER_ID_KEY, record.id)
        .await
        .map_err(context::internal)?;
    tracing::info!(developer = record.id, "logged in");
    leptos_axum::redirect(&after_login_target(next.as_deref()));
    Ok(())
}

/// Ends the session (deleted from the store, cookie removed) and goes home.
#[server(prefix = "/api", endpoint = "logout")]
pub async fn logout() -> Result<(), AppError> {
    use crate::api::context;

    let session = context::session()?;
    session.flush().await.map_err(context::internal)?;
    leptos_axum::redirect("/");
    Ok(())
}
