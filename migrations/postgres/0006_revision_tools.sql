-- Revisions keep their tools by content: each distinct tool (its canonical
-- JSON) once per app, and each revision the list of its tools' digests, in
-- order. A save changes one tool, so it stores that tool and a short list
-- instead of the whole configuration again. The snapshot then holds the
-- app's own fields only; revisions recorded before keep their whole
-- snapshot (tool_digests NULL).
CREATE TABLE revision_tools (
    app_id BIGINT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    digest TEXT   NOT NULL,
    body   TEXT   NOT NULL,
    PRIMARY KEY (app_id, digest)
);
ALTER TABLE app_revisions ADD COLUMN tool_digests TEXT;
