-- An imported legacy Mentra `settings` array, kept verbatim (JSON), and the
-- read-only API keys of an app (only a SHA-256 of each key is stored).
ALTER TABLE apps ADD COLUMN settings_json TEXT;

CREATE TABLE api_keys (
    id           INTEGER PRIMARY KEY,
    app_id       BIGINT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name         TEXT   NOT NULL,
    prefix       TEXT   NOT NULL,
    key_hash     TEXT   NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX api_keys_app ON api_keys (app_id);
