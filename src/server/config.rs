//! Configuration from the environment (documented in README.md, "Configuration").
//!
//! The Leptos variables (`LEPTOS_SITE_ADDR`, `LEPTOS_SITE_ROOT`, …) are read by
//! `leptos::config::get_configuration`; everything else is read here.

use std::{fmt, net::IpAddr};

/// Where the embedded SQLite database lives unless `DATABASE_URL` says otherwise.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/toolwright.db";
/// Log filter unless `RUST_LOG` says otherwise.
pub const DEFAULT_LOG_FILTER: &str = "info,toolwright=info,tower_http=info,sqlx=warn";

/// Which database engine a URL selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone, PartialEq, Eq)]
pub struct Config {
    /// `sqlite:…` or `postgres://…` / `postgresql://…`.
    pub database_url: String,
    pub backend: Backend,
    /// A `tracing_subscriber::EnvFilter` directive string.
    pub log_filter: String,
    /// Mark the session cookie `Secure` (set when the console is served over HTTPS).
    pub secure_cookies: bool,
    /// Let "Try a tool" call loopback and private addresses (local development, tests).
    pub allow_private_targets: bool,
    /// Reverse proxies whose `X-Forwarded-For` names the client (see
    /// [`super::client`]); none by default.
    pub trusted_proxies: Vec<IpAddr>,
    /// The host names the MCP endpoint answers to (`TOOLWRIGHT_ALLOWED_HOSTS`,
    /// DNS-rebinding protection): loopback unless configured.
    pub allowed_hosts: Vec<String>,
    /// Requests (`tools/list`, `tools/call`) one API key may make a minute
    /// on the MCP endpoint (`TOOLWRIGHT_MCP_REQUESTS_PER_MINUTE`).
    pub mcp_requests_per_minute: usize,
    /// `TOOLWRIGHT_SECRET_KEY`, as given (see [`super::secrets`]).
    pub secret_key: Option<String>,
    /// How long a server process holds an eval run it carries before
    /// another may take it over (`TOOLWRIGHT_EVAL_LEASE_SECONDS`): how soon
    /// a run goes on after its process died. Renewed while the run goes on.
    pub eval_lease: std::time::Duration,
}

/// The eval run lease unless `TOOLWRIGHT_EVAL_LEASE_SECONDS` says otherwise.
pub const DEFAULT_EVAL_LEASE_SECONDS: usize = 30;

/// The MCP limit per key unless `TOOLWRIGHT_MCP_REQUESTS_PER_MINUTE` says otherwise.
pub const DEFAULT_MCP_REQUESTS_PER_MINUTE: usize = 120;

/// The MCP endpoint's hosts unless `TOOLWRIGHT_ALLOWED_HOSTS` says otherwise.
pub const DEFAULT_ALLOWED_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

// Hand-written so that a password inside DATABASE_URL never reaches a log.
impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("database_url", &redact_url(&self.database_url))
            .field("backend", &self.backend)
            .field("log_filter", &self.log_filter)
            .field("secure_cookies", &self.secure_cookies)
            .field("allow_private_targets", &self.allow_private_targets)
            .field("trusted_proxies", &self.trusted_proxies)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("mcp_requests_per_minute", &self.mcp_requests_per_minute)
            .field("secret_key", &self.secret_key.as_ref().map(|_| "(set)"))
            .field("eval_lease", &self.eval_lease)
            .finish()
    }
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("DATABASE_URL must start with sqlite:, postgres:// or postgresql:// (got {0:?})")]
    UnsupportedDatabaseUrl(String),
    #[error("{name} must be one of true, false, 1, 0, yes, no (got {value:?})")]
    NotABoolean { name: &'static str, value: String },
    #[error("TOOLWRIGHT_TRUSTED_PROXIES must be IP addresses separated by commas (got {0:?})")]
    NotAnAddressList(String),
    #[error("{name} must be a whole number from 1 up (got {value:?})")]
    NotACount { name: &'static str, value: String },
}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Config, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads configuration through `lookup` (the environment, or a map in tests).
    /// Empty values count as unset.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());

        let database_url = get("DATABASE_URL")
            .map(|v| v.trim().to_owned())
            .unwrap_or_else(|| DEFAULT_DATABASE_URL.to_owned());
        let backend = backend_of(&database_url)
            .ok_or_else(|| ConfigError::UnsupportedDatabaseUrl(redact_url(&database_url)))?;

        let log_filter = get("RUST_LOG").unwrap_or_else(|| DEFAULT_LOG_FILTER.to_owned());

        let flag = |name: &'static str| match get(name) {
            None => Ok(false),
            Some(value) => parse_bool(&value).ok_or(ConfigError::NotABoolean { name, value }),
        };
        let secure_cookies = flag("TOOLWRIGHT_SECURE_COOKIES")?;
        let allow_private_targets = flag("TOOLWRIGHT_ALLOW_PRIVATE_TARGETS")?;
        let trusted_proxies = match get("TOOLWRIGHT_TRUSTED_PROXIES") {
            None => Vec::new(),
            Some(value) => super::client::parse_trusted_proxies(&value)
                .ok_or(ConfigError::NotAnAddressList(value))?,
        };

        let allowed_hosts = match get("TOOLWRIGHT_ALLOWED_HOSTS") {
            None => DEFAULT_ALLOWED_HOSTS.map(str::to_owned).to_vec(),
            Some(value) => value
                .split(',')
                .map(|host| host.trim().to_owned())
                .filter(|host| !host.is_empty())
                .collect(),
        };

        let count = |name: &'static str, default: usize| match get(name) {
            None => Ok(default),
            Some(value) => value
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or(ConfigError::NotACount { name, value }),
        };
        let mcp_requests_per_minute = count(
            "TOOLWRIGHT_MCP_REQUESTS_PER_MINUTE",
            DEFAULT_MCP_REQUESTS_PER_MINUTE,
        )?;
        // At most a day: a lease longer than that only keeps a dead
        // process's runs waiting.
        let eval_lease_seconds =
            count("TOOLWRIGHT_EVAL_LEASE_SECONDS", DEFAULT_EVAL_LEASE_SECONDS)?.min(86_400) as u64;

        Ok(Config {
            database_url,
            backend,
            log_filter,
            secure_cookies,
            allow_private_targets,
            trusted_proxies,
            allowed_hosts,
            mcp_requests_per_minute,
            secret_key: get("TOOLWRIGHT_SECRET_KEY"),
            eval_lease: std::time::Duration::from_secs(eval_lease_seconds),
        })
    }

    /// A configuration for tests and tools: the given database, defaults otherwise.
    pub fn for_database(database_url: &str) -> Result<Config, ConfigError> {
        let url = database_url.to_owned();
        Self::from_lookup(move |name| (name == "DATABASE_URL").then(|| url.clone()))
    }
}

/// The engine a database URL selects, or `None` for anything else.
pub fn backend_of(url: &str) -> Option<Backend> {
    if url.starts_with("sqlite:") {
        Some(Backend::Sqlite)
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Some(Backend::Postgres)
    } else {
        None
    }
}

fn parse_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// `postgres://user:secret@host/db` → `postgres://user:***@host/db`.
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_owned();
    };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match (authority.rfind('@'), authority.find(':')) {
        (Some(at), Some(colon)) if colon < at => format!(
            "{}://{}:***{}",
            &url[..scheme_end],
            &authority[..colon],
            &rest[at..]
        ),
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn without_variables_the_console_uses_the_embedded_sqlite_file() {
        let c = config(&[]).unwrap();
        assert_eq!(c.database_url, "sqlite://data/toolwright.db");
        assert_eq!(c.backend, Backend::Sqlite);
        assert_eq!(c.log_filter, DEFAULT_LOG_FILTER);
        assert!(!c.secure_cookies);
        assert!(
            !c.allow_private_targets,
            "private targets are off by default"
        );
        assert!(
            c.trusted_proxies.is_empty(),
            "no proxy is trusted by default"
        );
    }

    #[test]
    fn the_mcp_endpoint_answers_loopback_and_limits_keys_unless_told_otherwise() {
        let c = config(&[]).unwrap();
        assert_eq!(c.allowed_hosts, ["localhost", "127.0.0.1", "::1"]);
        assert_eq!(c.mcp_requests_per_minute, 120);
        let c = config(&[
            ("TOOLWRIGHT_ALLOWED_HOSTS", "console.example, localhost ,"),
            ("TOOLWRIGHT_MCP_REQUESTS_PER_MINUTE", " 600 "),
        ])
        .unwrap();
        assert_eq!(c.allowed_hosts, ["console.example", "localhost"]);
        assert_eq!(c.mcp_requests_per_minute, 600);
        for bad in ["0", "-1", "many"] {
            let err = config(&[("TOOLWRIGHT_MCP_REQUESTS_PER_MINUTE", bad)]).unwrap_err();
            assert!(
                err.to_string()
                    .contains("TOOLWRIGHT_MCP_REQUESTS_PER_MINUTE"),
                "{err}"
            );
        }
    }

    #[test]
    fn trusted_proxies_are_addresses_and_anything_else_is_refused() {
        let c = config(&[("TOOLWRIGHT_TRUSTED_PROXIES", "10.0.0.2, ::1")]).unwrap();
        assert_eq!(
            c.trusted_proxies,
            [
                "10.0.0.2".parse::<std::net::IpAddr>().unwrap(),
                "::1".parse().unwrap()
            ]
        );
        let err = config(&[("TOOLWRIGHT_TRUSTED_PROXIES", "10.0.0.0/8")]).unwrap_err();
        assert!(
            err.to_string().contains("TOOLWRIGHT_TRUSTED_PROXIES"),
            "{err}"
        );
    }

    #[test]
    fn private_targets_can_be_allowed() {
        let c = config(&[("TOOLWRIGHT_ALLOW_PRIVATE_TARGETS", "true")]).unwrap();
        assert!(c.allow_private_targets);
        assert!(config(&[("TOOLWRIGHT_ALLOW_PRIVATE_TARGETS", "sometimes")]).is_err());
    }

    #[test]
    fn a_postgres_url_selects_postgres() {
        for url in ["postgres://root@127.0.0.1:5432/test", "postgresql://h/db"] {
            let c = config(&[("DATABASE_URL", url)]).unwrap();
            assert_eq!(c.backend, Backend::Postgres);
            assert_eq!(c.database_url, url);
        }
    }

    #[test]
    fn an_empty_database_url_counts_as_unset() {
        let c = config(&[("DATABASE_URL", "  ")]).unwrap();
        assert_eq!(c.database_url, DEFAULT_DATABASE_URL);
    }

    #[test]
    fn an_unknown_database_scheme_is_refused_without_echoing_the_password() {
        let err = config(&[("DATABASE_URL", "mysql://u:hunter2@h/db")]).unwrap_err();
        assert_eq!(
            err,
            ConfigError::UnsupportedDatabaseUrl("mysql://u:***@h/db".into())
        );
        assert!(!err.to_string().contains("hunter2"));
    }

    #[test]
    fn rust_log_sets_the_log_filter() {
        let c = config(&[("RUST_LOG", "debug")]).unwrap();
        assert_eq!(c.log_filter, "debug");
    }

    #[test]
    fn secure_cookies_accepts_the_usual_spellings() {
        for (value, expected) in [
            ("1", true),
            ("TRUE", true),
            ("yes", true),
            ("0", false),
            ("off", false),
        ] {
            let c = config(&[("TOOLWRIGHT_SECURE_COOKIES", value)]).unwrap();
            assert_eq!(c.secure_cookies, expected, "{value}");
        }
    }

    #[test]
    fn secure_cookies_rejects_anything_else() {
        let err = config(&[("TOOLWRIGHT_SECURE_COOKIES", "maybe")]).unwrap_err();
        assert!(matches!(err, ConfigError::NotABoolean { .. }));
    }

    #[test]
    fn debug_output_hides_the_database_password() {
        let c = config(&[("DATABASE_URL", "postgres://u:hunter2@h:5432/db")]).unwrap();
        let shown = format!("{c:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("postgres://u:***@h:5432/db"), "{shown}");
    }

    #[test]
    fn urls_without_a_password_are_shown_as_they_are() {
        assert_eq!(redact_url("postgres://root@h/db"), "postgres://root@h/db");
        assert_eq!(redact_url("sqlite://data/x.db"), "sqlite://data/x.db");
    }
}
