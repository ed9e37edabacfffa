//! The canonical form of an app's configuration: what every export renders,
//! what an import produces, what a revision keeps.

use crate::domain::tool::Tool;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AppConfig {
    pub name: String,
    pub description: String,
    pub version: String,
    pub public_url: String,
    /// A legacy Mentra `settings` array, kept verbatim from an import and
    /// given back by the `mentra` export (the console does not edit it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Value>,
    pub tools: Vec<Tool>,
}
