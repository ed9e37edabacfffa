-- The live MCP server. A key now records who made it: a tool call made
-- with it reaches the app as that developer (its ToolCall's userId). Keys
-- made before keep NULL and speak for the app's owner.
ALTER TABLE api_keys ADD COLUMN created_by BIGINT REFERENCES developers (id) ON DELETE SET NULL;

-- How many MCP requests each key made in each minute, for its limit of
-- requests a minute: one row per key and minute, counted up in place, and
-- kept in the database so that the limit holds across every server process.
CREATE TABLE mcp_request_counts (
    key_id BIGINT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    minute BIGINT NOT NULL,
    count  BIGINT NOT NULL,
    PRIMARY KEY (key_id, minute)
);

-- The app page's Activity: each tools/call, logged before its answer is
-- sent, with its arguments cut short; kept for a bounded time.
CREATE TABLE mcp_calls (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id      BIGINT  NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    key_id      BIGINT  REFERENCES api_keys (id) ON DELETE SET NULL,
    tool_id     TEXT    NOT NULL,
    arguments   TEXT    NOT NULL,
    called_at   BIGINT  NOT NULL,
    duration_ms BIGINT  NOT NULL,
    outcome     TEXT    NOT NULL,
    is_error    BOOLEAN NOT NULL
);
CREATE INDEX mcp_calls_app ON mcp_calls (app_id, called_at);
