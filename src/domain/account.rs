//! Developer accounts: email and password rules, shared by the sign-up and
//! log-in forms and the server functions behind them.

use crate::domain::FieldErrors;
use serde::{Deserialize, Serialize};
use validator::Validate;

pub const PASSWORD_MIN_CHARS: u64 = 12;
pub const PASSWORD_MAX_CHARS: u64 = 128;
pub const EMAIL_MAX_CHARS: u64 = 254;

/// What the log-in page says for a wrong email *and* for a wrong password,
/// so that the answer does not tell which emails have accounts.
pub const INVALID_CREDENTIALS: &str = "Invalid email or password";

/// The signed-in developer, as pages, server functions and the history see
/// them. (No password hash here, or anywhere serialisable.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrentDeveloper {
    pub id: i64,
    pub email: String,
}

/// Emails are compared and stored trimmed and lower-cased.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

/// The sign-up form, after the email has been normalised.
#[derive(Clone, Debug, Serialize, Deserialize, Validate)]
pub struct NewAccount {
    #[validate(
        length(max = 254, message = "An email address has at most 254 characters"),
        email(message = "Enter a valid email address, like you@example.com")
    )]
    pub email: String,
    #[validate(length(
        min = 12,
        max = 128,
        message = "Use a password of 12 to 128 characters"
    ))]
    pub password: String,
}

impl NewAccount {
    pub fn new(email: &str, password: &str) -> Self {
        NewAccount {
            email: normalize_email(email),
            password: password.to_owned(),
        }
    }

    /// Every rule, with the messages keyed by form field.
    pub fn check(&self) -> Result<(), FieldErrors> {
        self.validate().map_err(FieldErrors::from)
    }
}

/// The log-in form: only presence is checked here; everything else is
/// "Invalid email or password".
pub fn check_login_fields(email: &str, password: &str) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    if email.trim().is_empty() {
        errors.add("email", "Enter your email address");
    }
    if password.is_empty() {
        errors.add("password", "Enter your password");
    }
    errors.into_result()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_trimmed_and_lower_cased() {
        assert_eq!(normalize_email("  Dev@Example.COM \n"), "dev@example.com");
    }

    #[test]
    fn a_well_formed_account_passes() {
        assert!(NewAccount::new("dev@example.com", "correct horse battery")
            .check()
            .is_ok());
    }

    #[test]
    fn a_malformed_email_is_refused_next_to_the_email_field() {
        for email in ["", "dev", "dev@", "@example.com", "dev example@x.com"] {
            let errors = NewAccount::new(email, "correct horse battery")
                .check()
                .unwrap_err();
            assert!(errors.first("email").is_some(), "{email:?}");
            assert!(errors.first("password").is_none(), "{email:?}");
        }
    }

    #[test]
    fn an_overlong_email_is_refused() {
        let email = format!("{}@example.com", "a".repeat(250));
        let errors = NewAccount::new(&email, "correct horse battery")
            .check()
            .unwrap_err();
        assert!(errors.first("email").is_some());
    }

    #[test]
    fn a_password_of_11_characters_is_too_short_and_12_is_enough() {
        let errors = NewAccount::new("dev@example.com", &"x".repeat(11))
            .check()
            .unwrap_err();
        assert_eq!(
            errors.first("password"),
            Some("Use a password of 12 to 128 characters")
        );
        assert!(NewAccount::new("dev@example.com", &"x".repeat(12))
            .check()
            .is_ok());
    }

    #[test]
    fn a_password_of_128_characters_is_allowed_and_129_is_not() {
        assert!(NewAccount::new("dev@example.com", &"x".repeat(128))
            .check()
            .is_ok());
        assert!(NewAccount::new("dev@example.com", &"x".repeat(129))
            .check()
            .is_err());
    }

    #[test]
    fn password_length_counts_characters_not_bytes() {
        // 12 characters, 24 bytes.
        assert!(NewAccount::new("dev@example.com", &"é".repeat(12))
            .check()
            .is_ok());
    }

    #[test]
    fn log_in_needs_both_fields() {
        let errors = check_login_fields(" ", "").unwrap_err();
        assert!(errors.first("email").is_some());
        assert!(errors.first("password").is_some());
        assert!(check_login_fields("a@b.c", "x").is_ok());
    }
}
