//! The one store of an app's configuration: its revisions.
//!
//! Every change to an app is a revision — who, when, a one-line summary and
//! the whole configuration afterwards — and the app's configuration now is
//! its latest revision's. A revision keeps the app's own fields as JSON
//! (`app_revisions.snapshot`) and its tools by content: each distinct tool
//! once per app in `revision_tools`, named by the digest of its JSON, and
//! the revision's digests in order (`app_revisions.tool_digests`).
//! Revisions recorded before tools were kept by content hold the whole
//! configuration in `snapshot` (`tool_digests` NULL).
//!
//! A change is made once, in the domain, on the configuration at the
//! revision it was made at ([`revise`]); then one transaction asks again
//! whether its author may still edit the app, moves the app to the next
//! revision if it is still at that one (a stale change writes nothing),
//! stores the tool bodies not stored yet and records the revision.
//!
//! "App N at revision R" names one configuration for good (app ids are never
//! reused, migration 0007), so each app's latest is kept in memory
//! ([`ConfigCache`]): an entry can be superseded, never stale — in one
//! server process or in many sharing a database.

use super::{Scope, WriteError};
use crate::{
    domain::{
        account::CurrentDeveloper,
        config::AppConfig,
        org::Action,
        revision::{Change, RevisionDetail, RevisionSummary},
        tool::{EditRefused, Tool, ToolEdit},
        AppError,
    },
    in_transaction, on_db,
    server::db::Db,
};
use sha2::{Digest, Sha256};
use std::{
    collections::HashMap,
    sync::{Arc, Mutex, MutexGuard},
};

/// The outcome of a change guarded by the app's revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revised {
    /// Applied; the app is now at this revision.
    Applied(i64),
    /// The app is no longer at the expected revision: nothing was changed.
    Stale,
}

/// The outcome of an edit of the app's tools.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolWrite {
    /// Done: the app's new revision and its configuration as it now is.
    Applied {
        revision: i64,
        config: Arc<AppConfig>,
    },
    /// The app is no longer at the expected revision.
    Stale,
    /// No tool with that id in this app.
    NotFound,
    /// Another tool of the app already has the id.
    DuplicateId,
}

/// App `app_id`'s configuration at `revision`, from the cache or from its
/// revision (and then kept if it is the newest seen); `None` if the app has
/// no such revision, or was deleted while it was read.
pub async fn at(db: &Db, app_id: i64, revision: i64) -> Result<Option<Arc<Snapshot>>, sqlx::Error> {
    if let Some(snapshot) = db.configs().get(app_id, revision) {
        return Ok(Some(snapshot));
    }
    let snapshot = match read_row(db, app_id, revision).await? {
        Some(row) => match row.snapshot(db, app_id).await? {
            Some(snapshot) => snapshot,
            None => return Ok(None),
        },
        // An app row made some other way than the console's (by hand, say)
        // has no revision recorded at its own: its fields and no tools.
        None => match unrecorded(db, app_id, revision).await? {
            Some(config) => Snapshot {
                config: Arc::new(config),
                digests: Vec::new(),
            },
            None => return Ok(None),
        },
    };
    Ok(Some(db.configs().put(app_id, revision, snapshot)))
}

/// App `app_id`'s own fields, if it is at `revision`.
async fn unrecorded(db: &Db, app_id: i64, revision: i64) -> Result<Option<AppConfig>, sqlx::Error> {
    let row: Option<(String, String, String, String)> = on_db!(db, pool => sqlx::query_as(
        "SELECT name, description, version, public_url FROM apps WHERE id = $1 AND revision = $2",
    )
    .bind(app_id)
    .bind(revision)
    .fetch_optional(pool)
    .await)?;
    Ok(
        row.map(|(name, description, version, public_url)| AppConfig {
            name,
            description,
            version,
            public_url,
            ..AppConfig::default()
        }),
    )
}

/// The app's configuration now (its latest revision), if the app exists.
pub async fn current(db: &Db, app_id: i64) -> Result<Option<Arc<AppConfig>>, sqlx::Error> {
    let Some(revision) = revision_of(db, app_id).await? else {
        return Ok(None);
    };
    Ok(at(db, app_id, revision).await?.map(|s| s.config.clone()))
}

async fn revision_of(db: &Db, app_id: i64) -> Result<Option<i64>, sqlx::Error> {
    on_db!(db, pool => sqlx::query_scalar("SELECT revision FROM apps WHERE id = $1")
        .bind(app_id)
        .fetch_optional(pool)
        .await)
}

/// Makes a change to app `app_id`, made at `expected_revision`: `make`
/// changes the configuration as it was then and says what it did (or
/// refuses, and nothing is written), and the change is recorded as the next
/// revision — [`Revised::Stale`] if the app has moved on since. A refusal
/// of a change made at an old revision is stale too: it may not hold now.
pub async fn revise<R>(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    author: &CurrentDeveloper,
    now_ms: i64,
    make: impl FnOnce(&mut AppConfig) -> Result<Change, R>,
) -> Result<Result<Revised, R>, WriteError> {
    let made = made(db, app_id, expected_revision, author, now_ms, make).await?;
    Ok(made.map(|made| made.map_or(Revised::Stale, |(revision, _)| Revised::Applied(revision))))
}

/// A change made and recorded: the new revision and its snapshot.
type Made = Option<(i64, Arc<Snapshot>)>;

/// [`revise`], giving the snapshot made (`None` when stale).
async fn made<R>(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    author: &CurrentDeveloper,
    now_ms: i64,
    make: impl FnOnce(&mut AppConfig) -> Result<Change, R>,
) -> Result<Result<Made, R>, WriteError> {
    let Some(before) = at(db, app_id, expected_revision).await? else {
        // No such revision: the app went (said in words by the write's own
        // check of who may edit it), or the revision is not one of its own.
        return gone_or_stale(db, app_id, author).await.map(|()| Ok(None));
    };
    let mut config = (*before.config).clone();
    let change = match make(&mut config) {
        Ok(change) => change,
        // Refused by the domain: said so only if the author may still edit
        // the app and it is still at that revision (else the refusal may
        // not hold now).
        Err(refused) => {
            gone_or_stale(db, app_id, author).await?;
            return Ok(
                if revision_of(db, app_id).await? == Some(expected_revision) {
                    Err(refused)
                } else {
                    Ok(None)
                },
            );
        }
    };
    if let Some(id) = config.repeated_tool_id() {
        return Err(WriteError::Refused(AppError::Conflict(format!(
            "Two tools would have the ID {id}: each tool of an app needs its own."
        ))));
    }
    let (after, bodies) = before.next(config)?;
    record(
        db,
        app_id,
        expected_revision,
        after,
        bodies,
        change,
        author,
        now_ms,
    )
    .await
    .map(Ok)
}

/// Makes app `app_id` exactly `config` (fields, settings, tools) if it is
/// still at `expected_revision`, recorded as `change`: restore and import.
pub async fn replace(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    config: &AppConfig,
    change: Change,
    author: &CurrentDeveloper,
    now_ms: i64,
) -> Result<Revised, WriteError> {
    let revised = revise(db, app_id, expected_revision, author, now_ms, |now| {
        *now = config.clone();
        Ok::<_, std::convert::Infallible>(change)
    })
    .await?;
    Ok(revised.unwrap_or_else(|never| match never {}))
}

/// Makes `edit` on the app's tools as they were at `expected_revision`: the
/// editor's save, delete and move. The edit is the one the browser makes on
/// its own list ([`ToolEdit::apply`]).
pub async fn edit_tools(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    edit: &ToolEdit,
    author: &CurrentDeveloper,
    now_ms: i64,
) -> Result<ToolWrite, WriteError> {
    let made = made(db, app_id, expected_revision, author, now_ms, |config| {
        let change = Change::of_edit(edit, &config.tools);
        edit.apply(&mut config.tools).map(|()| change)
    })
    .await?;
    Ok(match made {
        Ok(Some((revision, snapshot))) => ToolWrite::Applied {
            revision,
            config: snapshot.config.clone(),
        },
        Ok(None) => ToolWrite::Stale,
        Err(EditRefused::NotFound) => ToolWrite::NotFound,
        Err(EditRefused::DuplicateId) => ToolWrite::DuplicateId,
    })
}

/// The write of a revision: one transaction, and the new revision kept as
/// the app's latest.
#[allow(clippy::too_many_arguments)]
async fn record(
    db: &Db,
    app_id: i64,
    expected_revision: i64,
    after: Snapshot,
    bodies: Vec<StoredTool>,
    change: Change,
    author: &CurrentDeveloper,
    now_ms: i64,
) -> Result<Made, WriteError> {
    let config = after.config.clone();
    let head = after.head()?;
    let digests = after.digest_list()?;
    let revision: i64 = in_transaction!(db, tx => {
        may_write!(tx, Scope::App(app_id), author.id, Action::Edit).await?;
        // The app row carries what lists and finds apps; the guard on its
        // revision makes a change made at an older one write nothing.
        let revision: Option<i64> = sqlx::query_scalar(
            "UPDATE apps SET revision = revision + 1, updated_at = $1, name = $2, \
             description = $3, version = $4, public_url = $5, tool_count = $6 \
             WHERE id = $7 AND revision = $8 RETURNING revision",
        )
        .bind(now_ms)
        .bind(&config.name)
        .bind(&config.description)
        .bind(&config.version)
        .bind(&config.public_url)
        .bind(config.tools.len() as i64)
        .bind(app_id)
        .bind(expected_revision)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(revision) = revision else {
            return Ok(None);
        };
        insert_revision!(tx, app_id, revision, author, change.summary(), now_ms, head, digests, bodies).await?;
        tx.commit().await?;
        revision
    });
    Ok(Some((revision, db.configs().put(app_id, revision, after))))
}

/// Asks whether `author` may still edit app `app_id`: a refusal in words
/// (the app is gone, they left its organization), or else stale.
async fn gone_or_stale(db: &Db, app_id: i64, author: &CurrentDeveloper) -> Result<(), WriteError> {
    in_transaction!(db, tx => {
        may_write!(tx, Scope::App(app_id), author.id, Action::Edit).await?;
        Ok(())
    })
}

/// The app's revisions, newest first.
pub async fn list(db: &Db, app_id: i64) -> Result<Vec<RevisionSummary>, sqlx::Error> {
    let rows: Vec<(i64, String, i64, String)> = on_db!(db, pool => sqlx::query_as(
        "SELECT revision, author_email, created_at, summary FROM app_revisions \
         WHERE app_id = $1 ORDER BY revision DESC",
    )
    .bind(app_id)
    .fetch_all(pool)
    .await)?;
    Ok(rows
        .into_iter()
        .map(|(revision, author, created_at, summary)| RevisionSummary {
            revision,
            author,
            created_at,
            summary,
        })
        .collect())
}

/// One revision with its configuration (the history's; not kept).
pub async fn get(
    db: &Db,
    app_id: i64,
    revision: i64,
) -> Result<Option<RevisionDetail>, sqlx::Error> {
    let Some(row) = read_row(db, app_id, revision).await? else {
        return Ok(None);
    };
    let Some(config) = row.config(db, app_id).await? else {
        return Ok(None);
    };
    Ok(Some(RevisionDetail {
        summary: row.summary,
        config,
    }))
}

struct RevisionRow {
    summary: RevisionSummary,
    snapshot: String,
    digests: Option<Vec<String>>,
}

async fn read_row(db: &Db, app_id: i64, revision: i64) -> Result<Option<RevisionRow>, sqlx::Error> {
    type Row = (i64, String, i64, String, String, Option<String>);
    let row: Option<Row> = on_db!(db, pool => sqlx::query_as(
        "SELECT revision, author_email, created_at, summary, snapshot, tool_digests \
         FROM app_revisions WHERE app_id = $1 AND revision = $2",
    )
    .bind(app_id)
    .bind(revision)
    .fetch_optional(pool)
    .await)?;
    let Some((revision, author, created_at, summary, snapshot, digests)) = row else {
        return Ok(None);
    };
    Ok(Some(RevisionRow {
        summary: RevisionSummary {
            revision,
            author,
            created_at,
            summary,
        },
        snapshot,
        digests: digests
            .as_deref()
            .map(|json| serde_json::from_str(json).map_err(decode_error))
            .transpose()?,
    }))
}

impl RevisionRow {
    /// The configuration: the head and the bodies of its tools. `None` if
    /// the app was deleted between reading the row and its bodies (they go
    /// with it); a body missing from an app still there is an error.
    async fn config(&self, db: &Db, app_id: i64) -> Result<Option<AppConfig>, sqlx::Error> {
        let mut config: AppConfig = serde_json::from_str(&self.snapshot).map_err(decode_error)?;
        if let Some(digests) = &self.digests {
            let bodies = read_bodies(db, app_id, digests).await?;
            if let Some(missing) = digests.iter().find(|d| !bodies.contains_key(*d)) {
                if revision_of(db, app_id).await?.is_none() {
                    return Ok(None);
                }
                return Err(decode_error(format!("revision tool {missing} is missing")));
            }
            config.tools = digests
                .iter()
                .map(|digest| serde_json::from_str(&bodies[digest]).map_err(decode_error))
                .collect::<Result<_, _>>()?;
        }
        Ok(Some(config))
    }

    /// The configuration with its digests. A revision recorded whole has
    /// none stored: its tools are stored by content at the next change.
    async fn snapshot(self, db: &Db, app_id: i64) -> Result<Option<Snapshot>, sqlx::Error> {
        let Some(config) = self.config(db, app_id).await? else {
            return Ok(None);
        };
        Ok(Some(Snapshot {
            config: Arc::new(config),
            digests: self.digests.unwrap_or_default(),
        }))
    }
}

/// The bodies of `digests`, by digest.
async fn read_bodies(
    db: &Db,
    app_id: i64,
    digests: &[String],
) -> Result<HashMap<String, String>, sqlx::Error> {
    let mut bodies = HashMap::with_capacity(digests.len());
    for chunk in digests.chunks(200) {
        let placeholders: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 2)).collect();
        let sql = format!(
            "SELECT digest, body FROM revision_tools WHERE app_id = $1 AND digest IN ({})",
            placeholders.join(", ")
        );
        let found: Vec<(String, String)> = on_db!(db, pool => {
            let mut query = sqlx::query_as(&sql).bind(app_id);
            for digest in chunk {
                query = query.bind(digest);
            }
            query.fetch_all(pool).await
        })?;
        bodies.extend(found);
    }
    Ok(bodies)
}

/// An app's configuration at one revision, and its tools' digests as
/// stored (`digests[i]` is `config.tools[i]`'s; none when its tools are not
/// stored by content yet): what a revision records, and what the cache
/// keeps of an app's latest one.
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
        Snapshot {
            config: Arc::default(),
            digests: Vec::new(),
        }
        .next(config)
    }

    /// This snapshot changed into `config`: a tool that is here unchanged
    /// (same id, same content) keeps its digest, the others are digested,
    /// and only their bodies are new. A save changes one tool of many.
    pub fn next(&self, config: AppConfig) -> Result<(Snapshot, Vec<StoredTool>), sqlx::Error> {
        let known: HashMap<&str, (&Arc<Tool>, &String)> = self
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
                // A tool carried over from the snapshot is the same value;
                // one made anew is compared by content.
                Some((was, digest)) if Arc::ptr_eq(was, tool) || *was == tool => {
                    digests.push((*digest).clone())
                }
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

/// Apps kept at once; beyond that the cache starts over (reading one app's
/// latest revision again is a few milliseconds).
const CAPACITY: usize = 32;

/// Each app's newest revision seen and its snapshot, so that the app page,
/// the exports and the next change do not read a hundred tools again.
#[derive(Debug, Default)]
pub struct ConfigCache {
    entries: Mutex<HashMap<i64, (i64, Arc<Snapshot>)>>,
}

impl ConfigCache {
    fn entries(&self) -> MutexGuard<'_, HashMap<i64, (i64, Arc<Snapshot>)>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// App `app_id` at `revision`, if kept.
    pub fn get(&self, app_id: i64, revision: i64) -> Option<Arc<Snapshot>> {
        self.entries()
            .get(&app_id)
            .filter(|(at, _)| *at == revision)
            .map(|(_, snapshot)| snapshot.clone())
    }

    /// Keeps `snapshot` as app `app_id`'s at `revision`, unless a newer
    /// revision is kept already; gives it back.
    pub fn put(&self, app_id: i64, revision: i64, snapshot: Snapshot) -> Arc<Snapshot> {
        let snapshot = Arc::new(snapshot);
        let mut entries = self.entries();
        if entries.get(&app_id).is_some_and(|(at, _)| *at > revision) {
            return snapshot;
        }
        if entries.len() >= CAPACITY && !entries.contains_key(&app_id) {
            entries.clear();
        }
        entries.insert(app_id, (revision, snapshot.clone()));
        snapshot
    }

    /// Forgets app `app_id` (deleted).
    pub fn forget(&self, app_id: i64) {
        self.entries().remove(&app_id);
    }
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
            tools: tools.into_iter().map(Arc::new).collect(),
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
    fn the_head_keeps_the_apps_own_fields_and_no_tools() {
        let config = config(vec![tool("a", "one")]);
        let (snapshot, bodies) = Snapshot::of(config.clone()).unwrap();
        assert_eq!(bodies.len(), 1);
        let head: AppConfig = serde_json::from_str(&snapshot.head().unwrap()).unwrap();
        assert_eq!(
            head,
            AppConfig {
                tools: Vec::new(),
                ..config
            }
        );
        let list: Vec<String> = serde_json::from_str(&snapshot.digest_list().unwrap()).unwrap();
        assert_eq!(list, snapshot.digests);
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

    #[test]
    fn an_edit_shares_the_tools_it_leaves_alone_with_the_revision_before() {
        let (before, _) = Snapshot::of(config(vec![
            tool("a", "one"),
            tool("b", "two"),
            tool("c", "three"),
        ]))
        .unwrap();
        // The save path: the configuration at the revision, one tool edited.
        let mut config = (*before.config).clone();
        let edit = ToolEdit::Save {
            original_id: Some("b".into()),
            tool: Box::new(tool("b", "2")),
        };
        edit.apply(&mut config.tools).unwrap();
        let (next, bodies) = before.next(config).unwrap();
        assert_eq!(bodies.len(), 1);
        for index in [0, 2] {
            assert!(
                Arc::ptr_eq(&next.config.tools[index], &before.config.tools[index]),
                "tool {index} is the same value, not a copy"
            );
            assert_eq!(next.digests[index], before.digests[index]);
        }
        assert!(!Arc::ptr_eq(&next.config.tools[1], &before.config.tools[1]));
        assert_eq!(
            before.config.tools[1].description, "two",
            "the revision before keeps its own"
        );
    }

    #[test]
    fn a_snapshot_without_stored_digests_stores_every_tool_next() {
        let tools = vec![tool("a", "one"), tool("b", "two")];
        let whole = Snapshot {
            config: Arc::new(config(tools.clone())),
            digests: Vec::new(),
        };
        let (_, bodies) = whole.next(config(tools)).unwrap();
        assert_eq!(bodies.len(), 2, "nothing was stored by content yet");
    }

    fn snapshot(name: &str) -> Snapshot {
        Snapshot {
            config: Arc::new(AppConfig {
                name: name.into(),
                ..AppConfig::default()
            }),
            digests: Vec::new(),
        }
    }

    fn name(cache: &ConfigCache, app_id: i64, revision: i64) -> Option<String> {
        cache
            .get(app_id, revision)
            .map(|snapshot| snapshot.config.name.clone())
    }

    #[test]
    fn an_entry_answers_only_for_its_revision_and_never_goes_back() {
        let cache = ConfigCache::default();
        cache.put(1, 3, snapshot("three"));
        assert_eq!(name(&cache, 1, 3).as_deref(), Some("three"));
        assert_eq!(name(&cache, 1, 2), None);
        assert_eq!(name(&cache, 2, 3), None);
        cache.put(1, 2, snapshot("two"));
        assert_eq!(
            name(&cache, 1, 3).as_deref(),
            Some("three"),
            "an older revision is ignored"
        );
        cache.put(1, 4, snapshot("four"));
        assert_eq!(name(&cache, 1, 3), None);
        cache.forget(1);
        assert_eq!(name(&cache, 1, 4), None);
    }

    #[test]
    fn it_stays_bounded() {
        let cache = ConfigCache::default();
        for app in 0..(CAPACITY as i64 * 3) {
            cache.put(app, 1, snapshot("x"));
        }
        assert!(cache.entries().len() <= CAPACITY);
    }
}
