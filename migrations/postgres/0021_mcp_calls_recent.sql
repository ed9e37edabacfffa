-- The app page's Activity reads an app's newest calls, a page at a time
-- (`ORDER BY id DESC LIMIT`). With only (app_id, called_at) to go by, the
-- database sorted every call the app had kept to find the newest twenty,
-- and the page slowed as an assistant's calls piled up. The older index
-- stays for dropping calls by age.
CREATE INDEX mcp_calls_app_recent ON mcp_calls (app_id, id);
