-- Hints become decisions: NULL is "not set", TRUE yes, FALSE no. Until now a
-- hint was a checkbox, and an unticked one meant nothing had been decided, so
-- a ticked hint becomes yes and an unticked one not set.
ALTER TABLE tools ADD COLUMN read_only_hint BOOLEAN;
ALTER TABLE tools ADD COLUMN destructive_hint BOOLEAN;
ALTER TABLE tools ADD COLUMN idempotent_hint BOOLEAN;
ALTER TABLE tools ADD COLUMN open_world_hint BOOLEAN;
UPDATE tools SET
    read_only_hint   = CASE WHEN read_only   THEN TRUE END,
    destructive_hint = CASE WHEN destructive THEN TRUE END,
    idempotent_hint  = CASE WHEN idempotent  THEN TRUE END,
    open_world_hint  = CASE WHEN open_world  THEN TRUE END;
ALTER TABLE tools DROP COLUMN read_only;
ALTER TABLE tools DROP COLUMN destructive;
ALTER TABLE tools DROP COLUMN idempotent;
ALTER TABLE tools DROP COLUMN open_world;

-- Keys of an imported Mentra or TPA file that the console does not edit
-- (permissions, webviewURL, anything a newer SDK adds), kept verbatim as a
-- JSON object in the file's order and given back by those exports.
ALTER TABLE apps ADD COLUMN extra_json TEXT;
ALTER TABLE tools ADD COLUMN extra_json TEXT;
ALTER TABLE tool_parameters ADD COLUMN extra_json TEXT;
