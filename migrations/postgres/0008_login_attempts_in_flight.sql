-- An attempt is written before its password is checked and marked finished
-- once it has failed. A successful log-in clears its email's finished
-- failures only: attempts still being checked keep counting, whatever they
-- come to. (Attempts recorded before this column were all finished.)
ALTER TABLE login_failures ADD COLUMN finished BOOLEAN NOT NULL DEFAULT TRUE;
