-- A successful log-in forgives its email's failures: they stop counting
-- against the email, so its owner is not locked out by guesses made before.
-- They still count against the clients that made them: a password sprayer
-- gets none of its budget back when one of its targets logs in.
ALTER TABLE login_failures ADD COLUMN forgiven BOOLEAN NOT NULL DEFAULT FALSE;
