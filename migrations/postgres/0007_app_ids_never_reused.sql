-- PostgreSQL's identity columns never hand out an id twice; the SQLite
-- migration of the same name makes SQLite's app ids behave the same way.
SELECT 1;
