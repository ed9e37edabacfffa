//! Sign-up, log-in and log-out.

use super::AppError;
pub use crate::domain::account::CurrentDeveloper;
use leptos::prelude::*;

/// Creates an account (with its personal organization), signs the new
/// developer in and sends them to the console, or back to `next`.
#[server(prefix = "/api", endpoint = "signup")]
pub async fn signup(email: String, password: String, next: Option<String>) -> Result<(), AppError> {
    let typed = crate::domain::FieldErrors::new().with_echo("email", email.clone());
    sign_up(email, password, next)
        .await
        .map_err(|error| with_email_typed(error, typed))
}

/// A refused plain form (no JavaScript, drawn again from the error) keeps
/// the email typed — never the password. Other callers get the error as it is.
#[cfg(feature = "ssr")]
fn with_email_typed(error: AppError, typed: crate::domain::FieldErrors) -> AppError {
    if crate::api::context::is_plain_form_post() {
        error.with_input(typed)
    } else {
        error
    }
}

#[cfg(feature = "ssr")]
async fn sign_up(email: String, password: String, next: Option<String>) -> Result<(), AppError> {
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
    // Back to an invitation link, if that is where they came from.
    leptos_axum::redirect(&crate::domain::url::after_login_target(next.as_deref()));
    Ok(())
}

/// Signs a developer in. Wrong email and wrong password get the same answer
/// in about the same time; repeated failures are throttled before any hashing.
#[server(prefix = "/api", endpoint = "login")]
pub async fn login(email: String, password: String, next: Option<String>) -> Result<(), AppError> {
    let typed = crate::domain::FieldErrors::new().with_echo("email", email.clone());
    log_in(email, password, next)
        .await
        .map_err(|error| with_email_typed(error, typed))
}

#[cfg(feature = "ssr")]
async fn log_in(email: String, password: String, next: Option<String>) -> Result<(), AppError> {
    use crate::{
        api::context,
        domain::{
            account::{check_login_fields, normalize_email},
            url::after_login_target,
        },
        server::{
            auth::{self, DEVELOPER_ID_KEY},
            clock::now_ms,
        },
    };

    check_login_fields(&email, &password)?;
    let email = normalize_email(&email);
    let client = context::client_address();
    let state = context::state()?;
    // The attempt runs to its end in a task of its own: dropped half-way (its
    // client hung up), it would stay written but unfinished, counting against
    // its client address for the whole window whatever the password was.
    let check = auth::check_log_in(state.db.clone(), email, client, password, now_ms());
    let developer_id = tokio::spawn(tracing::Instrument::in_current_span(check))
        .await
        .map_err(context::internal)??;

    let session = context::session()?;
    // A new id at log-in: a session id planted before log-in is worthless after it.
    session.cycle_id().await.map_err(context::internal)?;
    session
        .insert(DEVELOPER_ID_KEY, developer_id)
        .await
        .map_err(context::internal)?;
    tracing::info!(developer = developer_id, "logged in");
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
