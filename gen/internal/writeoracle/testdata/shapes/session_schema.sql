-- Session shapes (issue 24): names that a query file's DDL or a
-- search_path setting can give a relation through which fenced table
-- jobs (or app.widgets) is written. No event trigger here (the other
-- entry's on_ddl makes every DDL write jobs). lonely exists only in
-- schema app (the catalog finds it there, PostgreSQL's default
-- search_path does not); gadgets is a table in public and a view over
-- app.widgets in app.
CREATE TABLE jobs (
    id bigint PRIMARY KEY,
    state text NOT NULL,
    tok bigint NOT NULL DEFAULT 0
);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
CREATE VIEW jobs_v AS SELECT id, state FROM jobs;
CREATE TABLE events (id bigint PRIMARY KEY, note text);
CREATE SCHEMA app;
CREATE TABLE app.lonely (id bigint PRIMARY KEY, state text);
CREATE TABLE app.widgets (id bigint PRIMARY KEY, v text);
CREATE TABLE gadgets (id bigint PRIMARY KEY, v text);
CREATE VIEW app.gadgets AS SELECT id, v FROM app.widgets;
