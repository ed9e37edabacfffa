//! What is made from an app's configuration, kept by app revision: the
//! rendered exports, the tool list MCP answers `tools/list` with, and the
//! checks the app page shows.

use crate::domain::export::{ExportOptions, Format};
use axum::body::Bytes;
use std::{collections::HashMap, hash::Hash, sync::Mutex};

/// Values made from app `.0` at revision `.1`, by what `.2` asks for. Every
/// change to an app bumps its revision and app ids are never reused
/// (migration 0007), so an entry never goes stale: it just stops being
/// asked for.
#[derive(Debug)]
pub struct ByRevision<K, V>(Mutex<HashMap<(i64, i64, K), V>>);

impl<K, V> Default for ByRevision<K, V> {
    fn default() -> Self {
        ByRevision(Mutex::new(HashMap::new()))
    }
}

/// Rendered exports, by format and options.
pub type ExportCache = ByRevision<(Format, ExportOptions), Bytes>;

/// The checks of an app (every rule over every tool: the app page runs them
/// on each render, and an app is read far more often than it changes).
pub type CheckCache = ByRevision<(), std::sync::Arc<crate::domain::checks::CheckSummary>>;

/// Entries kept before the cache starts over.
const CACHE_CAPACITY: usize = 64;

impl<K: Eq + Hash, V: Clone> ByRevision<K, V> {
    pub fn get(&self, key: &(i64, i64, K)) -> Option<V> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    pub fn put(&self, key: (i64, i64, K), value: V) {
        let mut entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= CACHE_CAPACITY {
            entries.clear();
        }
        entries.insert(key, value);
    }

    /// Drops what was made for the app `id` (deleted), to free its memory.
    pub fn forget(&self, id: i64) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|key, _| key.0 != id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_answers_for_its_app_and_revision_and_is_forgotten_with_its_app() {
        let cache: ByRevision<(), &str> = ByRevision::default();
        cache.put((1, 2, ()), "two");
        cache.put((3, 1, ()), "other");
        assert_eq!(cache.get(&(1, 2, ())), Some("two"));
        assert_eq!(cache.get(&(1, 3, ())), None);
        cache.forget(1);
        assert_eq!(cache.get(&(1, 2, ())), None);
        assert_eq!(cache.get(&(3, 1, ())), Some("other"));
        for revision in 0..(CACHE_CAPACITY as i64 * 2) {
            cache.put((5, revision, ()), "x");
        }
        assert!(cache.0.lock().unwrap().len() <= CACHE_CAPACITY);
    }
}
