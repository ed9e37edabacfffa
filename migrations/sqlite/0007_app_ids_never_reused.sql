-- SQLite gives the highest row id to the next row once that row is deleted,
-- so a new app could take the id of an app just deleted — and a request
-- still under way for the deleted app would then reach the new one. Apps
-- now take their ids from this AUTOINCREMENT sequence, which never hands
-- out an id twice. It starts after every id in use.
CREATE TABLE app_ids (id INTEGER PRIMARY KEY AUTOINCREMENT);
INSERT INTO app_ids (id) SELECT MAX(id) FROM apps WHERE EXISTS (SELECT 1 FROM apps);
DELETE FROM app_ids;
