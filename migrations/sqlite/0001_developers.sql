-- Developers: the people who sign in to the console.
-- Emails are stored trimmed and lower-cased, so a plain UNIQUE is case-insensitive.
-- Timestamps are Unix milliseconds (BIGINT) on both backends.
CREATE TABLE developers (
    id            INTEGER PRIMARY KEY,
    email         TEXT    NOT NULL UNIQUE,
    password_hash TEXT    NOT NULL,
    created_at    BIGINT  NOT NULL
);
