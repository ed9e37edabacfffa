//! Password hashing with argon2id at OWASP's parameters, off the async runtime.

use crate::api::AppError;
use argon2::{
    password_hash::{PasswordHasher, PasswordVerifier},
    Algorithm, Argon2, Params, Version,
};
use std::sync::OnceLock;

/// OWASP's minimum for argon2id: 19 MiB of memory, 2 iterations, 1 lane.
const MEMORY_KIB: u32 = 19 * 1024;
const ITERATIONS: u32 = 2;
const PARALLELISM: u32 = 1;

fn hasher() -> Argon2<'static> {
    let params = Params::new(MEMORY_KIB, ITERATIONS, PARALLELISM, None)
        .expect("constant argon2 parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

type Job = Box<dyn FnOnce() + Send>;

/// Hashing is CPU work that takes tens of milliseconds: it runs on threads of
/// its own, never the async runtime's. There are one fewer than the cores
/// (at least one), so a core is always left for everything else, and they
/// run at a lower priority (nice 10), so that under a burst of log-ins the
/// runtime's threads still get the CPU first and other requests stay quick.
/// Hashes beyond that wait in line.
fn hashing_queue() -> &'static std::sync::Mutex<std::sync::mpsc::Sender<Job>> {
    static QUEUE: OnceLock<std::sync::Mutex<std::sync::mpsc::Sender<Job>>> = OnceLock::new();
    QUEUE.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel::<Job>();
        let receiver = std::sync::Arc::new(std::sync::Mutex::new(receiver));
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        for index in 0..cores.saturating_sub(1).max(1) {
            let receiver = receiver.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("argon2-{index}"))
                .spawn(move || {
                    lower_this_threads_priority();
                    loop {
                        let job = match receiver.lock() {
                            Ok(receiver) => receiver.recv(),
                            Err(_) => return,
                        };
                        match job {
                            // A panic in one job must not take the thread with it.
                            Ok(job) => {
                                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                            }
                            Err(_) => return,
                        }
                    }
                });
            if let Err(error) = spawned {
                tracing::error!(%error, "could not start a password hashing thread");
            }
        }
        std::sync::Mutex::new(sender)
    })
}

fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: on Linux, PRIO_PROCESS with 0 names the calling thread; only
    // its nice value is read and changed (ten steps nicer, 19 at most).
    unsafe {
        let nice = libc::getpriority(libc::PRIO_PROCESS, 0);
        libc::setpriority(libc::PRIO_PROCESS, 0, (nice + 10).min(19));
    }
}

/// Runs `work` on a hashing thread and waits for it without blocking.
async fn on_hashing_thread<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, AppError> {
    let (reply, answer) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        // The request that asked may be gone (the client left): skip the work.
        if !reply.is_closed() {
            let _ = reply.send(work());
        }
    });
    hashing_queue()
        .lock()
        .map_err(|_| AppError::Internal)?
        .send(job)
        .map_err(|_| {
            tracing::error!("no password hashing thread is running");
            AppError::Internal
        })?;
    answer.await.map_err(|_| {
        tracing::error!("a password hashing job was lost");
        AppError::Internal
    })
}

/// A PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`) for `password`.
pub async fn hash_password(password: String) -> Result<String, AppError> {
    on_hashing_thread(move || {
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
    on_hashing_thread(move || {
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
    async fn hashing_runs_on_its_own_threads_at_a_lower_priority() {
        // SAFETY: reads the calling thread's nice value.
        let here = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        let (name, nice) = on_hashing_thread(|| {
            let name = std::thread::current().name().map(str::to_owned);
            // SAFETY: as above, on the hashing thread.
            let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
            (name, nice)
        })
        .await
        .unwrap();
        assert!(name.is_some_and(|n| n.starts_with("argon2-")));
        // Ten steps nicer than the threads that start them (19 at most).
        assert_eq!(nice, (here + 10).min(19));
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
