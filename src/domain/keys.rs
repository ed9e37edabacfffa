//! API keys as the console shows them (never the key itself, after creation).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKeySummary {
    pub id: i64,
    pub name: String,
    /// The first characters of the key, to tell keys apart.
    pub prefix: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    /// Limited to exports: it cannot call the app's tools over MCP.
    #[serde(default)]
    pub export_only: bool,
}

/// A key just made: the only time the whole key is shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewApiKey {
    pub key: String,
    pub keys: Vec<ApiKeySummary>,
}

pub const KEY_NAME_MAX: usize = 100;

/// A key's name: 1 to 100 characters after trimming.
pub fn check_key_name(name: &str) -> Result<String, &'static str> {
    let name = name.trim();
    match name.chars().count() {
        0 => Err("Give the key a name, like “CI” or “staging server”"),
        n if n > KEY_NAME_MAX => Err("A key name has at most 100 characters"),
        _ => Ok(name.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_name_is_trimmed_and_between_1_and_100_characters() {
        assert_eq!(check_key_name("  CI  "), Ok("CI".to_owned()));
        assert!(check_key_name("   ").is_err());
        assert!(check_key_name(&"k".repeat(100)).is_ok());
        assert!(check_key_name(&"k".repeat(101)).is_err());
    }
}
