//! How a revision keeps its configuration: the app's own fields as JSON
//! (`app_revisions.snapshot`) and its tools by content — each distinct tool
//! once per app in `revision_tools`, named by the digest of its JSON, and the
//! revision's list of digests in order (`app_revisions.tool_digests`).

use crate::domain::{config::AppConfig, tool::Tool};
use sha2::{Digest, Sha256};
use std::{collections::HashMap, sync::Arc};

/// An app's configuration at one revision, and its tools' digests as
/// stored (`digests[i]` is `config.tools[i]`'s): what a revision records,
/// and what the cache keeps of an app's latest one.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub config: Arc<AppConfig>,
    pub digests: Vec<String>,
}

/// A tool as stored: `(digest, JSON)`.
pub type StoredTool = (String, String);

fn encode_error(error: serde_json::Error) -> sqlx::Error {
    sqlx::Error::Encode(Box::new(error))
}

fn decode_error(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> sqlx::Error {
    sqlx::Error::Decode(error.into())
}

/// The tool's JSON and its digest (SHA-256, the first 128 bits in hex).
pub fn stored_tool(tool: &Tool) -> Result<StoredTool, sqlx::Error> {
    let body = serde_json::to_string(tool).map_err(encode_error)?;
    let hash = Sha256::digest(body.as_bytes());
    let digest = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
    Ok((digest, body))
}

impl Snapshot {
    /// `config` with every tool digested: the snapshot and every tool's body.
    pub fn of(config: AppConfig) -> Result<(Snapshot, Vec<StoredTool>), sqlx::Error> {
        let bodies = config
            .tools
            .iter()
            .map(stored_tool)
            .collect::<Result<Vec<_>, _>>()?;
        let snapshot = Snapshot {
            digests: bodies.iter().map(|(digest, _)| digest.clone()).collect(),
            config: Arc::new(config),
        };
        Ok((snapshot, bodies))
    }

    /// This snapshot changed into `config`: a tool that is here unchanged
    /// (same id, same content) keeps its digest, the others are digested,
    /// and only their bodies are new. A save changes one tool of many.
    pub fn next(&self, config: AppConfig) -> Result<(Snapshot, Vec<StoredTool>), sqlx::Error> {
        let known: HashMap<&str, (&Tool, &String)> = self
            .config
            .tools
            .iter()
            .zip(&self.digests)
            .map(|(tool, digest)| (tool.id.as_str(), (tool, digest)))
            .collect();
        let mut digests = Vec::with_capacity(config.tools.len());
        let mut bodies = Vec::new();
        for tool in &config.tools {
            match known.get(tool.id.as_str()) {
                Some((was, digest)) if *was == tool => digests.push((*digest).clone()),
                _ => {
                    let (digest, body) = stored_tool(tool)?;
                    digests.push(digest.clone());
                    bodies.push((digest, body));
                }
            }
        }
        Ok((
            Snapshot {
                config: Arc::new(config),
                digests,
            },
            bodies,
        ))
    }

    /// The snapshot column: the app's own fields (its tools are by digest).
    pub fn head(&self) -> Result<String, sqlx::Error> {
        let config = &self.config;
        let head = AppConfig {
            name: config.name.clone(),
            description: config.description.clone(),
            version: config.version.clone(),
            public_url: config.public_url.clone(),
            settings: config.settings.clone(),
            extra: config.extra.clone(),
            tools: Vec::new(),
        };
        serde_json::to_string(&head).map_err(encode_error)
    }

    /// The tool_digests column: a JSON array of the digests.
    pub fn digest_list(&self) -> Result<String, sqlx::Error> {
        serde_json::to_string(&self.digests).map_err(encode_error)
    }
}

/// Reads a tool_digests column.
pub fn parse_digest_list(json: &str) -> Result<Vec<String>, sqlx::Error> {
    serde_json::from_str(json).map_err(decode_error)
}

/// Puts a revision back together: `snapshot` (whole, from before tools were
/// kept by content, or just the head) and the bodies of its digests.
pub fn assemble(
    snapshot: &str,
    digests: Option<&[String]>,
    bodies: &HashMap<String, String>,
) -> Result<AppConfig, sqlx::Error> {
    let mut config: AppConfig = serde_json::from_str(snapshot).map_err(decode_error)?;
    if let Some(digests) = digests {
        config.tools = digests
            .iter()
            .map(|digest| {
                let body = bodies
                    .get(digest)
                    .ok_or_else(|| decode_error(format!("revision tool {digest} is missing")))?;
                serde_json::from_str(body).map_err(decode_error)
            })
            .collect::<Result<_, _>>()?;
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(id: &str, description: &str) -> Tool {
        Tool {
            id: id.into(),
            description: description.into(),
            ..Tool::default()
        }
    }

    fn config(tools: Vec<Tool>) -> AppConfig {
        AppConfig {
            name: "Todo".into(),
            version: "1.0.0".into(),
            settings: Some(serde_json::json!([{"key": "k"}])),
            tools,
            ..AppConfig::default()
        }
    }

    #[test]
    fn a_tool_is_named_by_its_content() {
        let (a, _) = stored_tool(&tool("a", "one")).unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(a, stored_tool(&tool("a", "one")).unwrap().0);
        assert_ne!(a, stored_tool(&tool("a", "two")).unwrap().0);
    }

    #[test]
    fn head_digests_and_bodies_give_the_configuration_back() {
        let config = config(vec![tool("a", "one"), tool("b", "two"), tool("c", "one")]);
        let (snapshot, bodies) = Snapshot::of(config.clone()).unwrap();
        assert_eq!(bodies.len(), 3);
        let list = parse_digest_list(&snapshot.digest_list().unwrap()).unwrap();
        assert_eq!(list, snapshot.digests);
        let bodies = bodies.into_iter().collect();
        assert_eq!(
            assemble(&snapshot.head().unwrap(), Some(&list), &bodies).unwrap(),
            config
        );
        // A whole snapshot from before reads as it is.
        let whole = serde_json::to_string(&config).unwrap();
        assert_eq!(assemble(&whole, None, &HashMap::new()).unwrap(), config);
        // A missing body is an error, not a shorter list.
        assert!(assemble(&snapshot.head().unwrap(), Some(&list), &HashMap::new()).is_err());
    }

    #[test]
    fn the_next_snapshot_digests_only_the_tools_that_changed() {
        let (before, _) = Snapshot::of(config(vec![
            tool("a", "one"),
            tool("b", "two"),
            tool("c", "three"),
        ]))
        .unwrap();
        // b edited, c moved up, d added.
        let after = config(vec![
            tool("a", "one"),
            tool("c", "three"),
            tool("b", "2"),
            tool("d", "4"),
        ]);
        let (next, bodies) = before.next(after.clone()).unwrap();
        let (whole, _) = Snapshot::of(after).unwrap();
        assert_eq!(next, whole, "the same digests as digesting everything");
        let new: Vec<&str> = bodies.iter().map(|(_, body)| body.as_str()).collect();
        assert_eq!(new.len(), 2, "{new:?}");
        assert!(
            new[0].contains("\"b\"") && new[1].contains("\"d\""),
            "{new:?}"
        );
    }
}
