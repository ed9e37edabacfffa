-- An API key may be limited to exports (the config and checks API): such a
-- key cannot connect an assistant to the app's live MCP server, which sends
-- tool calls to the app.
ALTER TABLE api_keys ADD COLUMN export_only BOOLEAN NOT NULL DEFAULT FALSE;
