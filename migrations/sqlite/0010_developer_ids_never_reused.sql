-- SQLite gives the highest row id to the next row once that row is deleted,
-- so a new developer could take the id of one just deleted (by an operator:
-- the console deletes no accounts) — and the deleted developer's sessions,
-- which name them by id, would then sign in as the new one. Developers now
-- take their ids from this AUTOINCREMENT sequence, as apps do (0007), which
-- never hands out an id twice (each also past every id in use:
-- next_sqlite_id! in src/server/repo/sql.rs). It starts after every id in
-- use now, so that one deleted before the next sign-up is not given again.
CREATE TABLE developer_ids (id INTEGER PRIMARY KEY AUTOINCREMENT);
INSERT INTO developer_ids (id) SELECT id FROM developers ORDER BY id DESC LIMIT 1;
DELETE FROM developer_ids;
