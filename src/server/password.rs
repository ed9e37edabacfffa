//! Password hashing with argon2id at OWASP's parameters, off the async runtime.

use crate::domain::AppError;
use argon2::{
    password_hash::{PasswordHasher, PasswordVerifier},
    Algorithm, Argon2, Params, Version,
};
use std::sync::{Arc, OnceLock};
use tokio::sync::Semaphore;

/// OWASP's minimum for argon2id: 19 MiB of memory, 2 iterations, 1 lane.
const MEMORY_KIB: u32 = 19 * 1024;
const ITERATIONS: u32 = 2;
const PARALLELISM: u32 = 1;

fn hasher() -> Argon2<'static> {
    let params = Params::new(MEMORY_KIB, ITERATIONS, PARALLELISM, None)
        .expect("constant argon2 parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// How many hashes may run at once on `cores` cores (see [`off_the_runtime`]).
fn hashes_at_once(cores: usize) -> usize {
    cores.saturating_sub(1).max(1)
}

/// Hashing is CPU work that takes tens of milliseconds: it runs on tokio's
/// blocking threads, never the async runtime's, and at most one hash fewer
/// than there are cores runs at once (one on a single core) — a burst of
/// log-ins waits in line here while one core stays free for the pages,
/// saves and health checks of everyone else.
async fn off_the_runtime<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, AppError> {
    static HASHING: OnceLock<Arc<Semaphore>> = OnceLock::new();
    let hashing = HASHING.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Arc::new(Semaphore::new(hashes_at_once(cores)))
    });
    let permit = hashing
        .clone()
        .acquire_owned()
        .await
        .map_err(super::internal)?;
    // The permit goes with the work: a hash whose request is gone still
    // holds its place until it is done.
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work()
    })
    .await
    .map_err(super::internal)
}

/// A PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`) for `password`.
pub async fn hash_password(password: String) -> Result<String, AppError> {
    off_the_runtime(move || {
        hasher()
            .hash_password(password.as_bytes())
            .map(|hash| hash.to_string())
    })
    .await?
    .map_err(|error| {
        tracing::error!(%error, "password hashing failed");
        AppError::Internal
    })
}

/// Whether `password` matches `stored`. With no stored hash (an unknown
/// email) a dummy hash is verified instead, so both answers take as long.
pub async fn verify_password(password: String, stored: Option<String>) -> Result<bool, AppError> {
    off_the_runtime(move || {
        let (hash, real) = match stored {
            Some(hash) => (hash, true),
            None => (dummy_hash().to_owned(), false),
        };
        let matches = hasher()
            .verify_password(password.as_bytes(), hash.as_str())
            .is_ok();
        matches && real
    })
    .await
}

/// A hash of a random password with the real parameters, made once.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        let random = argon2::password_hash::generate_salt();
        hasher()
            .hash_password(&random)
            .map(|hash| hash.to_string())
            .expect("hashing a random password")
    })
}

/// Computes the dummy hash now, so the first unknown-email log-in is not
/// faster than a known one.
pub async fn warm_up() {
    let _ = tokio::task::spawn_blocking(dummy_hash).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ins_leave_a_core_to_everyone_else() {
        assert_eq!(hashes_at_once(1), 1, "a single core still hashes");
        assert_eq!(hashes_at_once(2), 1);
        assert_eq!(hashes_at_once(8), 7);
    }

    #[tokio::test]
    async fn a_hash_is_argon2id_at_owasp_parameters_and_verifies() {
        let hash = hash_password("correct horse battery".into()).await.unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(
            verify_password("correct horse battery".into(), Some(hash.clone()))
                .await
                .unwrap()
        );
        assert!(
            !verify_password("correct horse battery!".into(), Some(hash))
                .await
                .unwrap()
        );
    }

    #[tokio::test]
    async fn two_hashes_of_one_password_differ_by_their_salt() {
        let a = hash_password("correct horse battery".into()).await.unwrap();
        let b = hash_password("correct horse battery".into()).await.unwrap();
        assert_ne!(a, b);
    }

    #[tokio::test]
    async fn without_a_stored_hash_nothing_verifies() {
        assert!(!verify_password("anything at all".into(), None)
            .await
            .unwrap());
        assert!(dummy_hash().starts_with("$argon2id$"));
    }

    #[tokio::test]
    async fn a_corrupt_stored_hash_does_not_verify_or_panic() {
        assert!(
            !verify_password("x".into(), Some("not a phc string".into()))
                .await
                .unwrap()
        );
    }
}
