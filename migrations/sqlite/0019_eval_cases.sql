-- An app's eval cases: what a user says, the tool a model should call for
-- it (NULL: no tool), and the arguments the call must contain (a JSON
-- object, or NULL for any). Listed in the order they were added.
CREATE TABLE eval_cases (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id         BIGINT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    utterance      TEXT   NOT NULL,
    expected       TEXT,
    arguments_json TEXT,
    created_at     BIGINT NOT NULL
);
CREATE INDEX eval_cases_app ON eval_cases (app_id, id);
