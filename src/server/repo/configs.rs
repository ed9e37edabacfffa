//! Apps' configurations at their latest revision, kept in memory.
//!
//! Every change to an app's configuration bumps its revision in the same
//! transaction, so "app N at revision R" names one configuration, for good:
//! an entry can never be stale, only superseded — in one server process or
//! in many sharing a database. Reads (the app page, the exports) take it
//! from here instead of reading every tool and parameter again, and a write
//! that starts from the cached revision works out the next snapshot from it
//! instead of reading the app back. App ids are never reused (migration 0007).

use super::snapshots::Snapshot;
use std::{
    collections::HashMap,
    sync::{Arc, Mutex, MutexGuard},
};

/// Apps kept at once; beyond that the cache starts over (a full reload of
/// one app's configuration is a few milliseconds).
const CAPACITY: usize = 32;

#[derive(Debug, Default)]
pub struct ConfigCache {
    /// The newest revision seen of each app, and its snapshot.
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
    use crate::domain::config::AppConfig;

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
