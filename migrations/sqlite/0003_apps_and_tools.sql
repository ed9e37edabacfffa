-- Apps, and the AI tools they expose with their parameters.
-- An app belongs to one developer; its package name is unique across the
-- console and never changes. `revision` is bumped on every change
-- (optimistic concurrency). Tools and parameters keep the user's order in
-- `position`. Lists typed as comma-separated fields are stored as JSON arrays.
CREATE TABLE apps (
    id           INTEGER PRIMARY KEY,
    owner_id     BIGINT  NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
    package_name TEXT    NOT NULL UNIQUE,
    name         TEXT    NOT NULL,
    description  TEXT    NOT NULL DEFAULT '',
    version      TEXT    NOT NULL,
    public_url   TEXT    NOT NULL,
    revision     BIGINT  NOT NULL DEFAULT 1,
    created_at   BIGINT  NOT NULL,
    updated_at   BIGINT  NOT NULL
);
CREATE INDEX apps_owner ON apps (owner_id, updated_at);

CREATE TABLE tools (
    id                 INTEGER PRIMARY KEY,
    app_id             BIGINT  NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    position           BIGINT  NOT NULL,
    tool_id            TEXT    NOT NULL,
    description        TEXT    NOT NULL,
    activation_phrases TEXT    NOT NULL DEFAULT '[]',
    title              TEXT,
    max_calls          BIGINT,
    read_only          BOOLEAN NOT NULL DEFAULT FALSE,
    destructive        BOOLEAN NOT NULL DEFAULT FALSE,
    idempotent         BOOLEAN NOT NULL DEFAULT FALSE,
    open_world         BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (app_id, tool_id)
);
CREATE INDEX tools_app ON tools (app_id, position);

CREATE TABLE tool_parameters (
    id          INTEGER PRIMARY KEY,
    tool_id     BIGINT  NOT NULL REFERENCES tools (id) ON DELETE CASCADE,
    position    BIGINT  NOT NULL,
    name        TEXT    NOT NULL,
    param_type  TEXT    NOT NULL CHECK (param_type IN ('string', 'number', 'boolean')),
    description TEXT    NOT NULL,
    required    BOOLEAN NOT NULL DEFAULT FALSE,
    enum_values TEXT    NOT NULL DEFAULT '[]',
    UNIQUE (tool_id, name)
);
CREATE INDEX tool_parameters_tool ON tool_parameters (tool_id, position);
