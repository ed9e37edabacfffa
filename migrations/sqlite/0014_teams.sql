-- Teams: apps belong to organizations, whose members have a role (admin or
-- member); admins invite by a link (only a SHA-256 of its token is stored).
-- Every developer gets a personal organization, named after their email,
-- in which they are admin and to which their apps move; it becomes their
-- current one (the header's switcher, where new apps are made).
CREATE TABLE organizations (
    -- AUTOINCREMENT: a deleted organization's id is never given again (see 0007).
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT   NOT NULL,
    slug       TEXT   NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);

CREATE TABLE org_members (
    org_id       BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    developer_id BIGINT NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
    role         TEXT   NOT NULL CHECK (role IN ('admin', 'member')),
    joined_at    BIGINT NOT NULL,
    PRIMARY KEY (org_id, developer_id)
);
CREATE INDEX org_members_developer ON org_members (developer_id);

CREATE TABLE org_invitations (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    org_id       BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    email        TEXT   NOT NULL,
    role         TEXT   NOT NULL CHECK (role IN ('admin', 'member')),
    token_hash   TEXT   NOT NULL UNIQUE,
    invited_by   BIGINT REFERENCES developers (id) ON DELETE SET NULL,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    accepted_at  BIGINT,
    accepted_by  BIGINT REFERENCES developers (id) ON DELETE SET NULL,
    cancelled_at BIGINT
);
CREATE INDEX org_invitations_org ON org_invitations (org_id, email);

-- An organization with apps cannot be deleted (move or delete them first).
ALTER TABLE apps ADD COLUMN org_id BIGINT REFERENCES organizations (id) ON DELETE RESTRICT;
ALTER TABLE developers ADD COLUMN current_org_id BIGINT REFERENCES organizations (id) ON DELETE SET NULL;

INSERT INTO organizations (name, slug, created_at)
    SELECT substr(email, 1, 100), 'personal-' || id, created_at FROM developers ORDER BY id;
INSERT INTO org_members (org_id, developer_id, role, joined_at)
    SELECT o.id, d.id, 'admin', d.created_at
    FROM developers d JOIN organizations o ON o.slug = 'personal-' || d.id;
UPDATE developers SET current_org_id =
    (SELECT o.id FROM organizations o WHERE o.slug = 'personal-' || developers.id);
UPDATE apps SET org_id =
    (SELECT o.id FROM organizations o WHERE o.slug = 'personal-' || apps.owner_id);
CREATE INDEX apps_org ON apps (org_id, updated_at);
