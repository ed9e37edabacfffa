//! Apps: what AI tools belong to. Their fields and every rule of SPEC.md §1.

use crate::domain::FieldErrors;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use validator::{Validate, ValidationError};

pub const PACKAGE_NAME_MIN: usize = 3;
pub const PACKAGE_NAME_MAX: usize = 128;
pub const NAME_MAX: u64 = 100;
pub const DESCRIPTION_MAX: u64 = 1000;
pub const URL_MAX: usize = 2048;
pub const DEFAULT_VERSION: &str = "1.0.0";

/// An app's editable fields as the forms send them, normalised by
/// [`AppInput::normalized`] before they are checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Validate)]
pub struct AppInput {
    #[validate(custom(function = "check_package_name"))]
    pub package_name: String,
    #[validate(length(min = 1, max = 100, message = "Enter a name of 1 to 100 characters"))]
    pub name: String,
    #[validate(length(max = 1000, message = "A description has at most 1000 characters"))]
    pub description: String,
    #[validate(custom(function = "check_version"))]
    pub version: String,
    #[validate(custom(function = "check_public_url"))]
    pub public_url: String,
}

impl AppInput {
    /// Trims what is typed around the values; the server URL also loses
    /// trailing slashes and gets a lower-case scheme.
    pub fn normalized(self) -> AppInput {
        AppInput {
            package_name: self.package_name.trim().to_owned(),
            name: self.name.trim().to_owned(),
            description: self.description.trim().to_owned(),
            version: match self.version.trim() {
                "" => DEFAULT_VERSION.to_owned(),
                version => version.to_owned(),
            },
            public_url: normalize_url(&self.public_url),
        }
    }

    /// Every rule, with the messages keyed by form field.
    pub fn check(&self) -> Result<(), FieldErrors> {
        self.validate().map_err(FieldErrors::from)
    }
}

/// An app as the list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppSummary {
    pub package_name: String,
    pub name: String,
    pub tool_count: i64,
    pub updated_at: i64,
}

/// An app's own fields as stored, with the revision they were read at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppDetails {
    pub package_name: String,
    pub name: String,
    pub description: String,
    pub version: String,
    pub public_url: String,
    pub revision: i64,
    pub updated_at: i64,
}

fn invalid(code: &'static str, message: &'static str) -> ValidationError {
    ValidationError::new(code).with_message(Cow::Borrowed(message))
}

/// `^[a-z0-9][a-z0-9.-]{1,126}[a-z0-9]$`, without a regex engine in the wasm.
pub fn is_valid_package_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let edge = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    (PACKAGE_NAME_MIN..=PACKAGE_NAME_MAX).contains(&bytes.len())
        && bytes.first().is_some_and(edge)
        && bytes.last().is_some_and(edge)
        && bytes.iter().all(|b| edge(b) || *b == b'.' || *b == b'-')
}

/// Package names the console's own addresses use (`/console/apps/new`).
pub const RESERVED_PACKAGE_NAMES: &[&str] = &["new"];

fn check_package_name(name: &str) -> Result<(), ValidationError> {
    if RESERVED_PACKAGE_NAMES.contains(&name) {
        Err(invalid(
            "package_name",
            "This package name is reserved. Choose another one.",
        ))
    } else if is_valid_package_name(name) {
        Ok(())
    } else {
        Err(invalid(
            "package_name",
            "Use 3 to 128 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit (like com.example.todo)",
        ))
    }
}

/// `MAJOR.MINOR.PATCH`, each a number without leading zeros.
pub fn is_valid_version(version: &str) -> bool {
    let parts: Vec<&str> = version.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 9
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
        })
}

fn check_version(version: &str) -> Result<(), ValidationError> {
    if is_valid_version(version) {
        Ok(())
    } else {
        Err(invalid(
            "version",
            "Use a version like 1.0.0 (MAJOR.MINOR.PATCH)",
        ))
    }
}

/// Trimmed, trailing slashes dropped, scheme lower-cased.
pub fn normalize_url(url: &str) -> String {
    let trimmed = url.trim().trim_end_matches('/');
    match trimmed.split_once("://") {
        Some((scheme, rest)) => format!("{}://{}", scheme.to_ascii_lowercase(), rest),
        None => trimmed.to_owned(),
    }
}

/// Why `url` (already normalised) is not a usable server URL, if it is not.
pub fn url_problem(url: &str) -> Option<&'static str> {
    if url.is_empty() {
        return Some("Enter the URL of your app's server, like https://todo.example.com");
    }
    if url.len() > URL_MAX {
        return Some("A server URL has at most 2048 characters");
    }
    let Some(rest) = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
    else {
        return Some("Use an http:// or https:// URL");
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some("A server URL cannot contain spaces");
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return Some("Leave user names and passwords out of the server URL");
    }
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        // An IPv6 literal: [::1] or [::1]:8443.
        let Some((inside, after)) = bracketed.split_once(']') else {
            return Some("The server URL's host is not valid");
        };
        if inside.is_empty() || (!after.is_empty() && !after.starts_with(':')) {
            return Some("The server URL's host is not valid");
        }
        (inside, after.strip_prefix(':'))
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if let Some(port) = port {
        if port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()) {
            return Some("The port after the host must be a number");
        }
    }
    if host.is_empty() {
        return Some("The server URL needs a host name, like https://todo.example.com");
    }
    if rest.contains('?') || rest.contains('#') {
        return Some("A server URL is a base URL: leave out ?query and #fragment");
    }
    None
}

fn check_public_url(url: &str) -> Result<(), ValidationError> {
    match url_problem(url) {
        None => Ok(()),
        Some(message) => Err(invalid("public_url", message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid() -> AppInput {
        AppInput {
            package_name: "com.example.todo".into(),
            name: "Todo App".into(),
            description: "Manage your to-do items".into(),
            version: "1.0.0".into(),
            public_url: "https://todo.example.com".into(),
        }
    }

    fn error_of(input: AppInput, field: &str) -> Option<String> {
        input
            .normalized()
            .check()
            .err()
            .and_then(|e| e.first(field).map(str::to_owned))
    }

    #[test]
    fn a_complete_app_passes() {
        assert!(valid().normalized().check().is_ok());
    }

    #[test]
    fn package_names_follow_the_pattern() {
        for ok in [
            "abc",
            "com.example.todo",
            "a-b.c-d",
            "0.0",
            "x".repeat(128).as_str(),
        ] {
            assert!(is_valid_package_name(ok), "{ok}");
        }
        for bad in [
            "ab",
            "Com.example",
            ".abc",
            "abc.",
            "abc-",
            "-abc",
            "ab_c",
            "ab c",
            "ä.example",
            "x".repeat(129).as_str(),
        ] {
            assert!(!is_valid_package_name(bad), "{bad}");
        }
    }

    #[test]
    fn the_package_name_new_is_reserved_for_the_console() {
        let input = AppInput {
            package_name: "new".into(),
            ..valid()
        };
        assert!(error_of(input, "package_name")
            .unwrap()
            .contains("reserved"));
    }

    #[test]
    fn an_invalid_package_name_is_reported_on_its_field() {
        let input = AppInput {
            package_name: "Not Valid".into(),
            ..valid()
        };
        assert!(error_of(input, "package_name")
            .unwrap()
            .contains("lower-case"));
    }

    #[test]
    fn a_name_is_required_after_trimming_and_at_most_100_characters() {
        assert!(error_of(
            AppInput {
                name: "   ".into(),
                ..valid()
            },
            "name"
        )
        .is_some());
        assert!(error_of(
            AppInput {
                name: "x".repeat(100),
                ..valid()
            },
            "name"
        )
        .is_none());
        assert!(error_of(
            AppInput {
                name: "x".repeat(101),
                ..valid()
            },
            "name"
        )
        .is_some());
        assert!(error_of(
            AppInput {
                name: "é".repeat(100),
                ..valid()
            },
            "name"
        )
        .is_none());
    }

    #[test]
    fn a_description_may_be_empty_and_has_at_most_1000_characters() {
        assert!(error_of(
            AppInput {
                description: "".into(),
                ..valid()
            },
            "description"
        )
        .is_none());
        assert!(error_of(
            AppInput {
                description: "x".repeat(1000),
                ..valid()
            },
            "description"
        )
        .is_none());
        assert!(error_of(
            AppInput {
                description: "x".repeat(1001),
                ..valid()
            },
            "description"
        )
        .is_some());
    }

    #[test]
    fn an_empty_version_defaults_to_1_0_0() {
        let input = AppInput {
            version: "  ".into(),
            ..valid()
        }
        .normalized();
        assert_eq!(input.version, "1.0.0");
        assert!(input.check().is_ok());
    }

    #[test]
    fn versions_are_major_minor_patch_without_leading_zeros() {
        for ok in ["1.0.0", "0.0.1", "10.20.30"] {
            assert!(is_valid_version(ok), "{ok}");
        }
        for bad in [
            "1.0",
            "1.0.0.0",
            "v1.0.0",
            "01.0.0",
            "1.0.0-beta",
            "1..0",
            "",
            "a.b.c",
        ] {
            assert!(!is_valid_version(bad), "{bad}");
        }
        assert!(error_of(
            AppInput {
                version: "1.0".into(),
                ..valid()
            },
            "version"
        )
        .is_some());
    }

    #[test]
    fn server_urls_are_trimmed_and_lose_trailing_slashes() {
        assert_eq!(
            normalize_url("  https://todo.example.com/  "),
            "https://todo.example.com"
        );
        assert_eq!(
            normalize_url("HTTPS://todo.example.com/api//"),
            "https://todo.example.com/api"
        );
        let input = AppInput {
            public_url: " https://todo.example.com/ ".into(),
            ..valid()
        }
        .normalized();
        assert_eq!(input.public_url, "https://todo.example.com");
    }

    #[test]
    fn server_urls_must_be_http_or_https_with_a_host() {
        for ok in [
            "https://todo.example.com",
            "http://localhost:8080",
            "http://127.0.0.1:3000/apps/todo",
            "https://[::1]:8443",
            "https://[::1]",
        ] {
            assert_eq!(url_problem(&normalize_url(ok)), None, "{ok}");
        }
        for bad in [
            "",
            "ftp://example.com",
            "example.com",
            "https://",
            "https://user:pw@example.com",
            "https://example.com:port",
            "https://exa mple.com",
            "https://example.com/?q=1",
            "javascript:alert(1)",
            "https://[::1",
            "https://:80",
        ] {
            assert!(url_problem(&normalize_url(bad)).is_some(), "{bad}");
        }
    }
}
