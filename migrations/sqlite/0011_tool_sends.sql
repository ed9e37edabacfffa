-- When each developer sent tool calls from "Try a tool", for its limit of
-- calls a minute. Kept in the database so that the limit holds across every
-- server process.
CREATE TABLE tool_sends (
    id           INTEGER PRIMARY KEY,
    developer_id BIGINT NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
    sent_at      BIGINT NOT NULL
);
CREATE INDEX tool_sends_developer ON tool_sends (developer_id, sent_at);
