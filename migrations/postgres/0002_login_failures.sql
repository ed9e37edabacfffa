-- Failed log-ins, for throttling by email and by client address.
-- Kept in the database so that every server instance sees the same counts.
CREATE TABLE login_failures (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email        TEXT   NOT NULL,
    client       TEXT   NOT NULL,
    attempted_at BIGINT NOT NULL
);
CREATE INDEX login_failures_email ON login_failures (email, attempted_at);
CREATE INDEX login_failures_client ON login_failures (client, attempted_at);
