-- PostgreSQL's identity columns never hand out an id twice; the SQLite
-- migration of the same name makes SQLite's developer ids behave the same way.
SELECT 1;
