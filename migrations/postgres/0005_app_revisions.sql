-- Every change to an app, kept forever: who, when, a one-line summary and the
-- whole configuration afterwards (canonical JSON). Restoring one adds a new
-- revision; history is never rewritten.
CREATE TABLE app_revisions (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id       BIGINT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    revision     BIGINT NOT NULL,
    author_id    BIGINT REFERENCES developers (id) ON DELETE SET NULL,
    author_email TEXT   NOT NULL,
    created_at   BIGINT NOT NULL,
    summary      TEXT   NOT NULL,
    snapshot     TEXT   NOT NULL,
    UNIQUE (app_id, revision)
);
