//! Pages for things that went wrong, with the HTTP status set to match.

use crate::api::AppError;
use leptos::prelude::*;
use leptos_meta::Title;

/// Sets the status of the HTTP response being rendered (a no-op in the browser).
pub fn set_http_status(status: u16) {
    #[cfg(feature = "ssr")]
    {
        if let (Some(response), Ok(code)) = (
            use_context::<leptos_axum::ResponseOptions>(),
            http::StatusCode::from_u16(status),
        ) {
            response.set_status(code);
        }
    }
    #[cfg(not(feature = "ssr"))]
    let _ = status;
}

/// A full-page message about a failed request, e.g. "Not found".
#[component]
pub fn StatusPage(
    status: u16,
    #[prop(into)] title: String,
    #[prop(into)] message: String,
) -> impl IntoView {
    set_http_status(status);
    view! {
        <Title text=title.clone()/>
        <section class="status-page" aria-labelledby="status-title">
            <p class="status-code">{status}</p>
            <h1 id="status-title">{title}</h1>
            <p>{message}</p>
            <p><a href="/">"Go to the start page"</a></p>
        </section>
    }
}

/// The fallback of an `<ErrorBoundary>`: shows the first error and sets the
/// response's status from it (404 for not found, 401 for a missing session, …).
#[component]
pub fn ErrorTemplate(errors: ArcRwSignal<Errors>) -> impl IntoView {
    let errors = errors.get_untracked();
    let mut error = errors
        .iter()
        .find_map(|(_, error)| error.downcast_ref::<AppError>().cloned())
        .unwrap_or(AppError::Internal);
    while let AppError::WithInput(inner, _) = error {
        error = *inner;
    }
    let title = match &error {
        AppError::NotFound | AppError::Gone(_) => "Not found",
        AppError::Unauthorized | AppError::InvalidCredentials => "Please log in",
        AppError::Forbidden => "Forbidden",
        AppError::NotAllowed(_) => "Not allowed",
        AppError::Validation(_) => "Invalid request",
        AppError::Conflict(_) | AppError::StaleForm(..) => "Conflict",
        AppError::TooManyRequests(_) => "Too many requests",
        AppError::Internal | AppError::Transport(_) | AppError::WithInput(..) => {
            "Something went wrong"
        }
    };
    view! { <StatusPage status=error.status() title=title message=error.to_string()/> }
}

/// A page's answer when loading its data failed: the matching status page.
#[component]
pub fn AppErrorView(error: AppError) -> impl IntoView {
    let errors = ArcRwSignal::new(Errors::default());
    errors.update(|e| e.insert_with_default_key(error));
    view! { <ErrorTemplate errors/> }
}
