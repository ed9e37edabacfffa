-- A run of an app's eval cases against a model provider. A run is a job in
-- the database: whichever server process holds its lease (lease_owner,
-- until lease_until, in ms) carries it, and another takes it over when the
-- lease runs out, so a run survives a restart. Status: queued, running,
-- done, failed or cancelled. The provider's name and model are copied, so
-- the list of runs still reads after the provider is removed.
CREATE TABLE eval_runs (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id            BIGINT  NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    revision          BIGINT  NOT NULL,
    provider_id       BIGINT  REFERENCES model_providers (id) ON DELETE SET NULL,
    provider_name     TEXT    NOT NULL,
    model             TEXT    NOT NULL,
    trials            INTEGER NOT NULL,
    status            TEXT    NOT NULL,
    error             TEXT,
    calls_total       INTEGER NOT NULL,
    calls_done        INTEGER NOT NULL DEFAULT 0,
    calls_passed      INTEGER NOT NULL DEFAULT 0,
    prompt_tokens     BIGINT  NOT NULL DEFAULT 0,
    completion_tokens BIGINT  NOT NULL DEFAULT 0,
    lease_owner       TEXT,
    lease_until       BIGINT,
    created_by        BIGINT  REFERENCES developers (id) ON DELETE SET NULL,
    created_at        BIGINT  NOT NULL,
    started_at        BIGINT,
    finished_at       BIGINT
);
CREATE INDEX eval_runs_app ON eval_runs (app_id, id);
CREATE INDEX eval_runs_open ON eval_runs (id) WHERE status IN ('queued', 'running');

-- Each call of a run: one trial of one case (copied from the case, so that
-- editing cases never changes a run), and once made, what the model chose
-- (calls_json: its tool calls as [{"name", "arguments"}]), why it stopped,
-- how long it took and the tokens it used.
CREATE TABLE eval_calls (
    run_id            BIGINT  NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
    case_no           INTEGER NOT NULL,
    trial             INTEGER NOT NULL,
    utterance         TEXT    NOT NULL,
    expected          TEXT,
    arguments_json    TEXT,
    calls_json        TEXT,
    finish_reason     TEXT,
    latency_ms        BIGINT,
    prompt_tokens     BIGINT,
    completion_tokens BIGINT,
    PRIMARY KEY (run_id, case_no, trial)
);
