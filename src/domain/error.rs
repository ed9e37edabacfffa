//! The one error type every server function returns, and every layer
//! below them speaks (its conversion from a server function's own failure
//! is in `api/`).

use crate::domain::FieldErrors;
use serde::{Deserialize, Serialize};

/// What can go wrong when the browser asks the server for something.
///
/// Messages are written for the developer using the console. Internal details
/// (database errors, panics) are logged on the server and never serialised:
/// the browser only ever sees [`AppError::Internal`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    /// Input that breaks a rule; each message belongs next to its field.
    #[error("Please correct the highlighted fields.")]
    Validation(FieldErrors),
    /// A log-in with an unknown email or a wrong password (the same answer
    /// for both).
    #[error("Invalid email or password")]
    InvalidCredentials,
    /// No session, or the session has expired.
    #[error("Please log in to continue.")]
    Unauthorized,
    /// The thing does not exist — or belongs to someone else, which the
    /// asker must not be able to tell apart.
    #[error("Not found.")]
    NotFound,
    /// What the asker was working on went away while they were (the app or
    /// organization deleted, their membership ended): said in words.
    #[error("{0}")]
    Gone(String),
    /// A save based on stale data, or a state that forbids the action.
    #[error("{0}")]
    Conflict(String),
    /// A plain form post (no JavaScript) based on stale data: the message
    /// of [`AppError::Conflict`] and what was posted, so that the form drawn
    /// again from this error still holds what was typed.
    #[error("{0}")]
    StaleForm(String, FieldErrors),
    /// Throttled (for example repeated failed log-ins).
    #[error("{0}")]
    TooManyRequests(String),
    /// A cross-site request.
    #[error("This request was refused.")]
    Forbidden,
    /// A member of the organization asking for an admin's action ("Only an
    /// admin can …"); nothing changed.
    #[error("{0}")]
    NotAllowed(String),
    /// Anything else on the server; the details are in the server's log.
    #[error("Something went wrong on our side. Please try again.")]
    Internal,
    /// The request never got a proper answer (network, decoding).
    #[error("Could not reach the server ({0}). Please try again.")]
    Transport(String),
    /// Any other refusal of a plain form post, with what was posted, so
    /// that the form drawn again keeps what was typed ("Invalid email or
    /// password" with the email). Made by [`AppError::with_input`].
    #[error("{0}")]
    WithInput(Box<AppError>, FieldErrors),
}

impl AppError {
    /// The HTTP status this error stands for.
    pub fn status(&self) -> u16 {
        match self {
            AppError::Validation(_) => 422,
            AppError::InvalidCredentials | AppError::Unauthorized => 401,
            AppError::Forbidden | AppError::NotAllowed(_) => 403,
            AppError::NotFound | AppError::Gone(_) => 404,
            AppError::Conflict(_) | AppError::StaleForm(..) => 409,
            AppError::TooManyRequests(_) => 429,
            AppError::Internal => 500,
            AppError::Transport(_) => 502,
            AppError::WithInput(error, _) => error.status(),
        }
    }

    /// The field errors of a validation error, or none.
    pub fn field_errors(&self) -> Option<&FieldErrors> {
        match self {
            AppError::Validation(errors) => Some(errors),
            AppError::WithInput(error, _) => error.field_errors(),
            _ => None,
        }
    }

    /// What a plain form post sent, echoed back with its error, for the
    /// form drawn again to show.
    pub fn echoed_input(&self) -> Option<&FieldErrors> {
        match self {
            AppError::Validation(echo)
            | AppError::StaleForm(_, echo)
            | AppError::WithInput(_, echo) => Some(echo),
            _ => None,
        }
    }

    /// This error, carrying what was posted (`input`'s echoed values; a
    /// password is never among them).
    pub fn with_input(self, input: FieldErrors) -> AppError {
        match self {
            AppError::Validation(mut errors) => {
                errors.echo_from(&input);
                AppError::Validation(errors)
            }
            AppError::StaleForm(message, mut echo) => {
                echo.echo_from(&input);
                AppError::StaleForm(message, echo)
            }
            AppError::WithInput(error, mut echo) => {
                echo.echo_from(&input);
                AppError::WithInput(error, echo)
            }
            other => AppError::WithInput(Box::new(other), input),
        }
    }

    /// A save based on stale data: the page offers to reload.
    pub fn is_conflict(&self) -> bool {
        match self {
            AppError::Conflict(_) | AppError::StaleForm(..) => true,
            AppError::WithInput(error, _) => error.is_conflict(),
            _ => false,
        }
    }
}

impl From<FieldErrors> for AppError {
    fn from(errors: FieldErrors) -> Self {
        AppError::Validation(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_map_to_their_http_status() {
        assert_eq!(AppError::NotFound.status(), 404);
        assert_eq!(AppError::Unauthorized.status(), 401);
        assert_eq!(AppError::Validation(FieldErrors::new()).status(), 422);
        assert_eq!(AppError::Conflict("x".into()).status(), 409);
    }

    #[test]
    fn a_stale_form_is_a_conflict_that_gives_back_what_was_posted() {
        let echo = FieldErrors::new().with_echo("name", "Typed here");
        let stale = AppError::StaleForm("Changed elsewhere.".into(), echo);
        assert_eq!(stale.status(), 409);
        assert!(stale.is_conflict());
        assert_eq!(stale.to_string(), "Changed elsewhere.");
        assert_eq!(
            stale.echoed_input().and_then(|e| e.echoed("name")),
            Some("Typed here")
        );
        // No field is marked wrong: only the form-level message is shown.
        assert!(stale.field_errors().is_none());
        // It survives the trip through the redirect's URL (as JSON).
        let json = serde_json::to_string(&stale).unwrap();
        assert_eq!(serde_json::from_str::<AppError>(&json).unwrap(), stale);
        assert!(!AppError::NotFound.is_conflict());
        assert!(AppError::Conflict("x".into()).echoed_input().is_none());
    }

    #[test]
    fn any_refusal_can_carry_what_was_posted() {
        let input = FieldErrors::new().with_echo("email", "dev@example.com");
        let refused = AppError::InvalidCredentials.with_input(input.clone());
        assert_eq!(refused.to_string(), "Invalid email or password");
        assert_eq!(refused.status(), 401);
        assert!(!refused.is_conflict() && refused.field_errors().is_none());
        assert_eq!(
            refused.echoed_input().and_then(|e| e.echoed("email")),
            Some("dev@example.com")
        );
        let json = serde_json::to_string(&refused).unwrap();
        assert_eq!(serde_json::from_str::<AppError>(&json).unwrap(), refused);

        // Invalid input keeps its field messages and gains the echo.
        let invalid = AppError::from(FieldErrors::single("email", "Enter an email address."))
            .with_input(input);
        assert_eq!(invalid.status(), 422);
        let errors = invalid.field_errors().expect("still field errors");
        assert_eq!(errors.first("email"), Some("Enter an email address."));
        assert_eq!(errors.echoed("email"), Some("dev@example.com"));
    }

    #[test]
    fn internal_errors_say_nothing_about_the_cause() {
        assert!(!AppError::Internal.to_string().contains("sql"));
    }
}
