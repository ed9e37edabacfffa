//! How a revision keeps its configuration: the app's own fields as JSON
//! (`app_revisions.snapshot`) and its tools by content — each distinct tool
//! once per app in `revision_tools`, named by the digest of its JSON, and the
//! revision's list of digests in order (`app_revisions.tool_digests`).

use crate::domain::{config::AppConfig, tool::Tool};
use sha2::{Digest, Sha256};

/// A tool of a revision: its id (to follow edits) and its content's digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolDigest {
    pub id: String,
    pub digest: String,
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

/// Every tool of `config`, stored: their digests in order, and the bodies.
pub fn all_tools(config: &AppConfig) -> Result<(Vec<ToolDigest>, Vec<StoredTool>), sqlx::Error> {
    let mut digests = Vec::with_capacity(config.tools.len());
    let mut bodies = Vec::with_capacity(config.tools.len());
    for tool in &config.tools {
        let (digest, body) = stored_tool(tool)?;
        digests.push(ToolDigest {
            id: tool.id.clone(),
            digest: digest.clone(),
        });
        bodies.push((digest, body));
    }
    Ok((digests, bodies))
}

/// The snapshot column: the app's own fields (its tools are by digest).
pub fn head(config: &AppConfig) -> Result<String, sqlx::Error> {
    let head = AppConfig {
        name: config.name.clone(),
        description: config.description.clone(),
        version: config.version.clone(),
        public_url: config.public_url.clone(),
        settings: config.settings.clone(),
        tools: Vec::new(),
    };
    serde_json::to_string(&head).map_err(encode_error)
}

/// The tool_digests column: a JSON array of the digests. Written by hand,
/// as a save writes one of a hundred digests or more: hex needs no escaping,
/// and serde_json's escaping, a byte at a time, took a twentieth of a save.
pub fn digest_list(digests: &[ToolDigest]) -> String {
    let mut list =
        String::with_capacity(2 + digests.iter().map(|d| d.digest.len() + 3).sum::<usize>());
    list.push('[');
    for (i, ToolDigest { digest, .. }) in digests.iter().enumerate() {
        if i > 0 {
            list.push(',');
        }
        if digest.bytes().all(|b| b.is_ascii_hexdigit()) {
            list.push('"');
            list.push_str(digest);
            list.push('"');
        } else {
            // Never one of ours (they are hex), but written correctly all the same.
            list.push_str(&serde_json::Value::from(digest.as_str()).to_string());
        }
    }
    list.push(']');
    list
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
    bodies: &std::collections::HashMap<String, String>,
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

    #[test]
    fn a_tool_is_named_by_its_content() {
        let (a, _) = stored_tool(&tool("a", "one")).unwrap();
        assert_eq!(a.len(), 32);
        assert_eq!(a, stored_tool(&tool("a", "one")).unwrap().0);
        assert_ne!(a, stored_tool(&tool("a", "two")).unwrap().0);
    }

    #[test]
    fn the_digest_list_is_the_json_array_of_the_digests() {
        let digests = |list: &[&str]| -> Vec<ToolDigest> {
            list.iter()
                .map(|d| ToolDigest {
                    id: "t".into(),
                    digest: (*d).into(),
                })
                .collect()
        };
        for list in [
            &[][..],
            &["0123456789abcdef0123456789abcdef"][..],
            &["00ff", "a1b2c3", "DEADbeef"][..],
            &["not \"hex\"", "tab\there", "é", ""][..],
        ] {
            let written = digest_list(&digests(list));
            assert_eq!(written, serde_json::to_string(list).unwrap());
            assert_eq!(parse_digest_list(&written).unwrap(), list);
        }
    }

    #[test]
    fn head_digests_and_bodies_give_the_configuration_back() {
        let config = AppConfig {
            name: "Todo".into(),
            version: "1.0.0".into(),
            settings: Some(serde_json::json!([{"key": "k"}])),
            tools: vec![tool("a", "one"), tool("b", "two"), tool("c", "one")],
            ..AppConfig::default()
        };
        let (digests, bodies) = all_tools(&config).unwrap();
        let list = parse_digest_list(&digest_list(&digests)).unwrap();
        let bodies = bodies.into_iter().collect();
        assert_eq!(
            assemble(&head(&config).unwrap(), Some(&list), &bodies).unwrap(),
            config
        );
        // A whole snapshot from before reads as it is.
        let whole = serde_json::to_string(&config).unwrap();
        assert_eq!(assemble(&whole, None, &Default::default()).unwrap(), config);
        // A missing body is an error, not a shorter list.
        assert!(assemble(&head(&config).unwrap(), Some(&list), &Default::default()).is_err());
    }
}
