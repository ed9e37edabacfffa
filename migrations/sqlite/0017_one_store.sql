-- One store: an app's configuration is its latest revision (its own fields
-- in app_revisions.snapshot, its tools by content in revision_tools). The
-- tools and tool_parameters tables kept the same tools a second time; they
-- go, and so do the app's settings and kept keys, which the revision holds.
-- The app row keeps what lists and finds apps, and its tool count.

-- An app created before revisions were recorded (0005) and not changed
-- since has no revision at its current one: its configuration is recorded
-- from its tools, whole (tool_digests NULL), as revisions from before 0006
-- are, in the JSON the console reads them in.
INSERT INTO app_revisions (app_id, revision, author_id, author_email, created_at, summary, snapshot)
SELECT a.id, a.revision, a.owner_id, COALESCE(d.email, ''), a.updated_at,
       'The configuration as it was when revisions began',
       json_object(
           'name', a.name,
           'description', a.description,
           'version', a.version,
           'public_url', a.public_url,
           'settings', json(a.settings_json),
           'extra', json(COALESCE(a.extra_json, '{}')),
           'tools', (
               SELECT json_group_array(json_object(
                   'id', t.tool_id,
                   'description', t.description,
                   'activation_phrases', json(t.activation_phrases),
                   'parameters', (
                       SELECT json_group_array(json_object(
                           'name', p.name,
                           'param_type', p.param_type,
                           'description', p.description,
                           'required', CASE WHEN p.required THEN json('true') ELSE json('false') END,
                           'enum_values', json(p.enum_values),
                           'extra', json(COALESCE(p.extra_json, '{}'))
                       ) ORDER BY p.position, p.id)
                       FROM tool_parameters p WHERE p.tool_id = t.id
                   ),
                   'title', t.title,
                   'max_calls', t.max_calls,
                   'hints', json_object(
                       'readOnly', CASE t.read_only_hint WHEN 1 THEN json('true') WHEN 0 THEN json('false') END,
                       'destructive', CASE t.destructive_hint WHEN 1 THEN json('true') WHEN 0 THEN json('false') END,
                       'idempotent', CASE t.idempotent_hint WHEN 1 THEN json('true') WHEN 0 THEN json('false') END,
                       'openWorld', CASE t.open_world_hint WHEN 1 THEN json('true') WHEN 0 THEN json('false') END
                   ),
                   'extra', json(COALESCE(t.extra_json, '{}'))
               ) ORDER BY t.position, t.id)
               FROM tools t WHERE t.app_id = a.id
           )
       )
FROM apps a LEFT JOIN developers d ON d.id = a.owner_id
WHERE NOT EXISTS (
    SELECT 1 FROM app_revisions r WHERE r.app_id = a.id AND r.revision = a.revision
);

-- The apps list shows how many tools each app has.
ALTER TABLE apps ADD COLUMN tool_count BIGINT NOT NULL DEFAULT 0;
UPDATE apps SET tool_count = (SELECT COUNT(*) FROM tools t WHERE t.app_id = apps.id);

DROP TABLE tool_parameters;
DROP TABLE tools;
ALTER TABLE apps DROP COLUMN settings_json;
ALTER TABLE apps DROP COLUMN extra_json;
