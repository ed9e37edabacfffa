//! The canonical form of an app's configuration: what every export renders,
//! what an import produces, what a revision keeps.

use crate::domain::{
    app::AppDetails,
    tool::{KeptKeys, Tool},
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AppConfig {
    pub name: String,
    pub description: String,
    pub version: String,
    pub public_url: String,
    /// A Mentra `settings` array (the app's settings for its users), kept
    /// verbatim from an import and given back by the `mentra` export (the
    /// console does not edit it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Value>,
    /// The imported file's other app keys the console does not edit
    /// (`permissions`, `webviewURL`, …), given back by `mentra` and `tpa`.
    #[serde(default, skip_serializing_if = "KeptKeys::is_empty")]
    pub extra: KeptKeys,
    /// Shared, not copied: a change makes a new configuration from the
    /// one before, and the tools it leaves alone stay the same values
    /// (cheap to carry over, and known unchanged without comparing them).
    pub tools: Vec<Arc<Tool>>,
}

/// The key under which a Mentra file names the package it was made for.
/// The console does not write it, but gives back a file's: always with the
/// app's own package name, which never changes.
pub const PACKAGE_NAME_KEY: &str = "packageName";

impl AppConfig {
    /// Makes the kept `packageName` (if the file had one) the app's own,
    /// `package`. Gives the one it replaced, when the file was made for
    /// another package.
    pub fn claim_package(&mut self, package: &str) -> Option<String> {
        let kept = self.extra.get_mut(PACKAGE_NAME_KEY)?;
        if kept.as_str() == Some(package) {
            return None;
        }
        let theirs = match &*kept {
            serde_json::Value::String(name) => name.clone(),
            other => other.to_string(),
        };
        *kept = serde_json::Value::String(package.to_owned());
        Some(theirs)
    }
}

/// The keys of a Mentra `app_config.json` that the console edits or
/// renders itself.
pub const APP_CONFIG_KEYS: [&str; 6] = [
    "name",
    "description",
    "version",
    "publicUrl",
    "settings",
    "tools",
];

impl AppConfig {
    /// Tool `index`, to change: this configuration's own copy of it (the
    /// configuration it was made from keeps its own).
    pub fn tool_mut(&mut self, index: usize) -> &mut Tool {
        Arc::make_mut(&mut self.tools[index])
    }

    /// A tool id two of its tools share, if any: a configuration the
    /// console never stores (each tool of an app has its own id).
    pub fn repeated_tool_id(&self) -> Option<&str> {
        let mut seen = std::collections::HashSet::new();
        self.tools
            .iter()
            .map(|tool| tool.id.as_str())
            .find(|id| !seen.insert(*id))
    }

    /// Whether the app's own fields here (name, description, version,
    /// server URL) are those of `details`.
    pub fn has_fields_of(&self, details: &AppDetails) -> bool {
        self.name == details.name
            && self.description == details.description
            && self.version == details.version
            && self.public_url == details.public_url
    }
}

#[cfg(test)]
mod fields_tests {
    use super::*;

    #[test]
    fn a_repeated_tool_id_is_found() {
        let tool = |id: &str| crate::domain::tool::Tool {
            id: id.into(),
            ..Default::default()
        };
        let mut config = AppConfig {
            tools: vec![tool("a").into(), tool("b").into()],
            ..AppConfig::default()
        };
        assert_eq!(config.repeated_tool_id(), None);
        config.tools.push(tool("a").into());
        assert_eq!(config.repeated_tool_id(), Some("a"));
    }

    #[test]
    fn the_app_fields_are_compared_and_nothing_else() {
        let details = AppDetails {
            package_name: "com.example.todo".into(),
            name: "Todo".into(),
            description: "d".into(),
            version: "1.0.0".into(),
            public_url: "https://todo.example.com".into(),
            revision: 7,
            updated_at: 1,
        };
        let config = AppConfig {
            name: "Todo".into(),
            description: "d".into(),
            version: "1.0.0".into(),
            public_url: "https://todo.example.com".into(),
            settings: Some(serde_json::json!([])),
            extra: KeptKeys::new(),
            tools: vec![Tool::default().into()],
        };
        assert!(
            config.has_fields_of(&details),
            "tools and settings do not count"
        );
        for changed in [
            AppConfig {
                name: "Other".into(),
                ..config.clone()
            },
            AppConfig {
                description: "e".into(),
                ..config.clone()
            },
            AppConfig {
                version: "1.0.1".into(),
                ..config.clone()
            },
            AppConfig {
                public_url: "https://x.example".into(),
                ..config.clone()
            },
        ] {
            assert!(!changed.has_fields_of(&details), "{changed:?}");
        }
    }

    #[test]
    fn a_kept_package_name_is_always_the_apps_own() {
        let mut config = AppConfig::default();
        // A file without one: nothing to claim, and none is added.
        assert_eq!(config.claim_package("com.example.empty"), None);
        assert!(config.extra.is_empty());

        config.extra.insert(
            PACKAGE_NAME_KEY.into(),
            serde_json::json!("com.someone.else"),
        );
        assert_eq!(
            config.claim_package("com.example.empty").as_deref(),
            Some("com.someone.else")
        );
        assert_eq!(
            config.extra.get(PACKAGE_NAME_KEY),
            Some(&serde_json::json!("com.example.empty"))
        );
        // Already the app's own: nothing to say.
        assert_eq!(config.claim_package("com.example.empty"), None);
        // The Mentra export gives it back, with the app's name.
        let exported = crate::domain::export::render(
            &config,
            crate::domain::export::Format::Mentra,
            Default::default(),
        );
        assert_eq!(exported[PACKAGE_NAME_KEY], "com.example.empty");
    }
}
