//! Rendered exports, kept by app revision.

use crate::domain::export::{ExportOptions, Format};
use axum::body::Bytes;
use std::{collections::HashMap, sync::Mutex};

/// Rendered exports by app, revision, format and options. Every change to an
/// app bumps its revision and app ids are never reused (migration 0007), so
/// an entry never goes stale: it just stops being asked for.
#[derive(Debug, Default)]
pub struct ExportCache(Mutex<HashMap<ExportKey, Bytes>>);

pub type ExportKey = (i64, i64, Format, ExportOptions);

/// Entries kept before the cache starts over.
const CACHE_CAPACITY: usize = 64;

impl ExportCache {
    pub fn get(&self, key: &ExportKey) -> Option<Bytes> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    pub fn put(&self, key: ExportKey, value: Bytes) {
        let mut entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= CACHE_CAPACITY {
            entries.clear();
        }
        entries.insert(key, value);
    }

    /// Drops the exports of the app `id` (deleted), to free their memory.
    pub fn forget(&self, id: i64) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|key, _| key.0 != id);
    }
}
