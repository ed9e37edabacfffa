//! Validation problems keyed by the field (or JSON path) they concern.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Messages per field, in a stable order so pages and tests see the same
/// thing every time. A field's key is the `name` of its input (`email`,
/// `parameters[2].name`, …).
///
/// `echo` carries back what was submitted (never secrets): a form posted
/// without JavaScript is redirected back to its page, which refills itself
/// from the echo so that nothing typed is lost.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldErrors {
    errors: BTreeMap<String, Vec<String>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    echo: BTreeMap<String, String>,
}

impl FieldErrors {
    pub fn new() -> Self {
        Self::default()
    }

    /// A single problem with a single field.
    pub fn single(field: impl Into<String>, message: impl Into<String>) -> Self {
        let mut errors = Self::new();
        errors.add(field, message);
        errors
    }

    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        let messages = self.errors.entry(field.into()).or_default();
        let message = message.into();
        if !messages.contains(&message) {
            messages.push(message);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The first message for a field, the one shown next to it.
    pub fn first(&self, field: &str) -> Option<&str> {
        self.errors
            .get(field)
            .and_then(|m| m.first())
            .map(String::as_str)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.errors.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }

    /// Adds every message of `other`.
    pub fn merge(&mut self, other: FieldErrors) {
        for (field, messages) in other.errors {
            for message in messages {
                self.add(field.clone(), message);
            }
        }
    }

    /// Forgets the messages of one field (it has been edited since).
    pub fn remove(&mut self, field: &str) {
        self.errors.remove(field);
    }

    /// The fields with messages, in order.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.errors.keys().map(String::as_str)
    }

    /// Records what was submitted for `field`, to be shown again.
    pub fn with_echo(mut self, field: impl Into<String>, value: impl Into<String>) -> Self {
        self.echo.insert(field.into(), value.into());
        self
    }

    /// Takes the echoed values of `other` (its messages are not taken).
    pub fn echo_from(&mut self, other: &FieldErrors) {
        for (field, value) in &other.echo {
            self.echo.insert(field.clone(), value.clone());
        }
    }

    /// What was submitted for `field`, if echoed.
    pub fn echoed(&self, field: &str) -> Option<&str> {
        self.echo.get(field).map(String::as_str)
    }

    /// `Ok(())` when there is nothing to report.
    pub fn into_result(self) -> Result<(), FieldErrors> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self)
        }
    }
}

impl From<validator::ValidationErrors> for FieldErrors {
    fn from(errors: validator::ValidationErrors) -> Self {
        let mut out = FieldErrors::new();
        for (field, problems) in errors.field_errors() {
            for problem in problems {
                let message = problem
                    .message
                    .as_ref()
                    .map(|m| m.to_string())
                    .unwrap_or_else(|| format!("{field} is not valid"));
                out.add(field.to_string(), message);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_message_of_a_field_is_the_one_shown() {
        let mut errors = FieldErrors::new();
        errors.add("email", "Enter an email address");
        errors.add("email", "Too long");
        assert_eq!(errors.first("email"), Some("Enter an email address"));
        assert_eq!(errors.first("password"), None);
    }

    #[test]
    fn a_repeated_message_is_kept_once() {
        let mut errors = FieldErrors::new();
        errors.add("name", "Required");
        errors.add("name", "Required");
        assert_eq!(errors.iter().next().unwrap().1.len(), 1);
    }

    #[test]
    fn echoed_values_come_back_and_do_not_count_as_errors() {
        let errors = FieldErrors::new().with_echo("name", "Todo");
        assert!(errors.is_empty());
        assert_eq!(errors.echoed("name"), Some("Todo"));
        assert_eq!(errors.echoed("other"), None);
    }

    #[test]
    fn no_errors_is_ok() {
        assert!(FieldErrors::new().into_result().is_ok());
        assert!(FieldErrors::single("a", "b").into_result().is_err());
    }
}
