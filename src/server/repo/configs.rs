//! Apps' configurations as they are at their latest revision, kept in memory.
//!
//! Every change to an app's configuration bumps its revision in the same
//! transaction, so "app N at revision R" names one configuration, for good:
//! an entry can never be stale, only superseded. Reads (the app page, the
//! exports) take it from here instead of reading every tool and parameter
//! again, and a write that starts from the cached revision works out the
//! next configuration from it (see [`crate::domain::tool::ToolEdit`]) instead
//! of reading the app back. App ids are never reused (migration 0007).

use super::snapshots::ToolDigest;
use crate::domain::config::AppConfig;
use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

/// Apps kept at once; beyond that the cache starts over (a full reload of
/// one app's configuration is a few milliseconds).
const CAPACITY: usize = 32;

/// An app's configuration at a revision and, when a write recorded it, its
/// tools' digests as stored (see [`super::snapshots`]).
#[derive(Clone, Debug)]
pub struct Kept {
    pub config: Arc<AppConfig>,
    pub digests: Option<Arc<Vec<ToolDigest>>>,
}

#[derive(Debug, Default)]
pub struct ConfigCache {
    /// The newest revision seen of each app, and what is kept of it.
    entries: Mutex<HashMap<i64, (i64, Kept)>>,
}

impl ConfigCache {
    /// App `app_id`'s configuration at `revision`, if kept.
    pub fn get(&self, app_id: i64, revision: i64) -> Option<Arc<AppConfig>> {
        self.kept(app_id, revision).map(|kept| kept.config)
    }

    /// Everything kept of app `app_id` at `revision`.
    pub fn kept(&self, app_id: i64, revision: i64) -> Option<Kept> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .get(&app_id)
            .filter(|(at, _)| *at == revision)
            .map(|(_, kept)| kept.clone())
    }

    /// Takes what is kept of app `app_id` at `revision` out of the cache.
    pub fn take(&self, app_id: i64, revision: i64) -> Option<Kept> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.get(&app_id).is_some_and(|(at, _)| *at == revision) {
            entries.remove(&app_id).map(|(_, kept)| kept)
        } else {
            None
        }
    }

    /// Keeps `config` as app `app_id`'s at `revision`, unless a newer
    /// revision is kept already.
    pub fn put(&self, app_id: i64, revision: i64, config: Arc<AppConfig>) {
        self.keep(
            app_id,
            revision,
            Kept {
                config,
                digests: None,
            },
        );
    }

    /// Keeps `kept` as app `app_id`'s at `revision`, unless a newer
    /// revision is kept already.
    pub fn keep(&self, app_id: i64, revision: i64, kept: Kept) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.get(&app_id).is_some_and(|(at, _)| *at > revision) {
            return;
        }
        if entries.len() >= CAPACITY && !entries.contains_key(&app_id) {
            entries.clear();
        }
        entries.insert(app_id, (revision, kept));
    }

    /// Forgets app `app_id` (deleted).
    pub fn forget(&self, app_id: i64) {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&app_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(name: &str) -> Arc<AppConfig> {
        Arc::new(AppConfig {
            name: name.into(),
            ..AppConfig::default()
        })
    }

    #[test]
    fn an_entry_answers_only_for_its_revision_and_never_goes_back() {
        let cache = ConfigCache::default();
        cache.put(1, 3, config("three"));
        assert_eq!(cache.get(1, 3).unwrap().name, "three");
        assert!(cache.get(1, 2).is_none());
        assert!(cache.get(2, 3).is_none());
        cache.put(1, 2, config("two"));
        assert_eq!(
            cache.get(1, 3).unwrap().name,
            "three",
            "an older revision is ignored"
        );
        cache.put(1, 4, config("four"));
        assert!(cache.get(1, 3).is_none());
        cache.forget(1);
        assert!(cache.get(1, 4).is_none());
    }

    #[test]
    fn taking_an_entry_removes_it_only_at_its_revision() {
        let cache = ConfigCache::default();
        cache.put(1, 3, config("three"));
        assert!(cache.take(1, 2).is_none(), "another revision is not taken");
        assert_eq!(cache.get(1, 3).unwrap().name, "three");
        let taken = cache.take(1, 3).expect("kept at 3");
        assert_eq!(taken.config.name, "three");
        assert_eq!(
            Arc::strong_count(&taken.config),
            1,
            "the taker holds it alone"
        );
        assert!(cache.get(1, 3).is_none(), "gone from the cache");
        assert!(cache.take(1, 3).is_none());
    }

    #[test]
    fn it_stays_bounded() {
        let cache = ConfigCache::default();
        for app in 0..(CAPACITY as i64 * 3) {
            cache.put(app, 1, config("x"));
        }
        assert!(cache.entries.lock().unwrap().len() <= CAPACITY);
    }
}
