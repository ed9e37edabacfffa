//! The console's secret key, which seals what it keeps but never shows
//! again: a model provider's API key.
//!
//! It is `TOOLWRIGHT_SECRET_KEY` (32 random bytes in base64, as `openssl
//! rand -base64 32` prints them). On the embedded SQLite default without
//! it, the console makes one in a file beside the database, readable by
//! its owner only, so that `make run` works as it is; with PostgreSQL and
//! no setting there is none, and providers cannot be added (the
//! organization page says how to set it).

use super::config::{Backend, Config};
use base64::{engine::general_purpose::STANDARD, Engine};
use chacha20poly1305::{
    aead::{Aead, KeyInit},
    ChaCha20Poly1305, Key, Nonce,
};
use std::path::{Path, PathBuf};

/// What the organization page says when there is no key.
pub use crate::domain::eval::SECRET_KEY_NEEDED as HOW_TO_SET;

const NONCE_LEN: usize = 12;

/// The key (never printed).
#[derive(Clone)]
pub struct SecretKey(Key);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(…)")
    }
}

impl SecretKey {
    /// The key from its base64 text.
    pub fn from_base64(text: &str) -> Result<SecretKey, String> {
        let bytes = STANDARD
            .decode(text.trim())
            .map_err(|_| "TOOLWRIGHT_SECRET_KEY is not base64".to_owned())?;
        let bytes: [u8; 32] = bytes.try_into().map_err(|bytes: Vec<u8>| {
            format!(
                "TOOLWRIGHT_SECRET_KEY must be 32 bytes (it is {}): openssl rand -base64 32 prints one",
                bytes.len()
            )
        })?;
        Ok(SecretKey(Key::from(bytes)))
    }

    /// A new random key.
    pub fn generate() -> Result<SecretKey, String> {
        let mut bytes = [0_u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for a secret key: {e}"))?;
        Ok(SecretKey(Key::from(bytes)))
    }

    fn to_base64(&self) -> String {
        STANDARD.encode(self.0.as_slice())
    }

    /// `plain` sealed: a fresh nonce and the ciphertext, in base64.
    pub fn seal(&self, plain: &str) -> Result<String, String> {
        let mut nonce = [0_u8; NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(|e| format!("no randomness for a nonce: {e}"))?;
        let sealed = ChaCha20Poly1305::new(&self.0)
            .encrypt(Nonce::from_slice(&nonce), plain.as_bytes())
            .map_err(|_| "the key could not be sealed".to_owned())?;
        let mut out = nonce.to_vec();
        out.extend(sealed);
        Ok(STANDARD.encode(out))
    }

    /// What [`SecretKey::seal`] sealed, if it was sealed under this key and
    /// is intact.
    pub fn open(&self, sealed: &str) -> Option<String> {
        let bytes = STANDARD.decode(sealed).ok()?;
        if bytes.len() < NONCE_LEN {
            return None;
        }
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        let plain = ChaCha20Poly1305::new(&self.0)
            .decrypt(Nonce::from_slice(nonce), ciphertext)
            .ok()?;
        String::from_utf8(plain).ok()
    }
}

/// The console's key, as the module comment says: the setting, the file
/// beside a SQLite database (made if missing), or none.
pub fn resolve(config: &Config) -> Result<Option<SecretKey>, String> {
    if let Some(text) = &config.secret_key {
        return SecretKey::from_base64(text).map(Some);
    }
    if config.backend != Backend::Sqlite {
        tracing::warn!("{HOW_TO_SET}");
        return Ok(None);
    }
    let Some(path) = key_file(&config.database_url) else {
        // An in-memory database: a key for as long as it lives.
        return SecretKey::generate().map(Some);
    };
    from_file(&path).map(Some)
}

/// `secret.key` in the SQLite database's directory.
fn key_file(database_url: &str) -> Option<PathBuf> {
    use std::str::FromStr;
    let options = sqlx::sqlite::SqliteConnectOptions::from_str(database_url).ok()?;
    let database = options.get_filename();
    if database.as_os_str().is_empty() || database.to_string_lossy().contains(":memory:") {
        return None;
    }
    let dir = database.parent().unwrap_or(Path::new("."));
    Some(dir.join("secret.key"))
}

fn from_file(path: &Path) -> Result<SecretKey, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => SecretKey::from_base64(&text).map_err(|e| format!("{}: {e}", path.display())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let key = SecretKey::generate()?;
            write_owner_only(path, &key.to_base64())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            tracing::info!(
                path = %path.display(),
                "made a secret key for model providers' API keys; keep it with the database, or set TOOLWRIGHT_SECRET_KEY"
            );
            Ok(key)
        }
        Err(error) => Err(format!("cannot read {}: {error}", path.display())),
    }
}

fn write_owner_only(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(text.as_bytes())?;
    file.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_key_opens_only_under_its_own_key_and_intact() {
        let key = SecretKey::generate().unwrap();
        let sealed = key.seal("sk-test-1234").unwrap();
        assert!(!sealed.contains("sk-test"));
        assert_eq!(key.open(&sealed).as_deref(), Some("sk-test-1234"));
        assert_ne!(
            sealed,
            key.seal("sk-test-1234").unwrap(),
            "a fresh nonce each time"
        );
        let other = SecretKey::generate().unwrap();
        assert_eq!(other.open(&sealed), None);
        let mut bytes = STANDARD.decode(&sealed).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        assert_eq!(key.open(&STANDARD.encode(bytes)), None);
        assert_eq!(key.open("not base64!"), None);
    }

    #[test]
    fn the_setting_must_be_32_bytes_of_base64() {
        assert!(SecretKey::from_base64(&STANDARD.encode([7_u8; 32])).is_ok());
        assert!(SecretKey::from_base64(&STANDARD.encode([7_u8; 16]))
            .unwrap_err()
            .contains("32 bytes"));
        assert!(SecretKey::from_base64("%%%")
            .unwrap_err()
            .contains("base64"));
    }

    #[test]
    fn sqlite_without_the_setting_makes_a_key_file_for_its_owner_and_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/console.db", dir.path().display());
        let config = Config::for_database(&url).unwrap();
        let first = resolve(&config).unwrap().expect("a key");
        let file = dir.path().join("secret.key");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let again = resolve(&config).unwrap().expect("the same key");
        let sealed = first.seal("k").unwrap();
        assert_eq!(again.open(&sealed).as_deref(), Some("k"));
        let postgres = Config::for_database("postgres://root@127.0.0.1:5432/test").unwrap();
        assert!(resolve(&postgres).unwrap().is_none());
    }
}
