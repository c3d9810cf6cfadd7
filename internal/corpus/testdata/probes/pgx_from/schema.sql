CREATE TABLE users(id bigint PRIMARY KEY, email text NOT NULL, note text);
CREATE TYPE pair AS (a int, b text);
CREATE FUNCTION f_table(x int) RETURNS TABLE (id int, name text) AS $$ SELECT 1, 'a' $$ LANGUAGE sql;
CREATE FUNCTION f_users() RETURNS SETOF users AS $$ SELECT * FROM users $$ LANGUAGE sql;
CREATE FUNCTION f_out(OUT a int, OUT b text) AS $$ SELECT 1, 'a' $$ LANGUAGE sql;
CREATE FUNCTION f_out_rec(OUT a int, OUT b text) RETURNS record AS $$ SELECT 1, 'a' $$ LANGUAGE sql;
CREATE FUNCTION f_pair() RETURNS pair AS $$ SELECT 1, 'a' $$ LANGUAGE sql;
CREATE FUNCTION f_big() RETURNS SETOF bigint AS $$ SELECT 1::bigint $$ LANGUAGE sql;
CREATE FUNCTION f_arr() RETURNS text[] AS $$ SELECT ARRAY['a'] $$ LANGUAGE sql;
CREATE TABLE kpis (ts TIMESTAMPTZ, event_id TEXT NOT NULL);
CREATE MATERIALIZED VIEW grouped_kpis AS
SELECT date_trunc('1 day', ts) AS day, COUNT(*) FROM kpis GROUP BY 1;
CREATE MATERIALIZED VIEW unnamed_kpis AS (SELECT 1, 'x' AS label, 2.5);
CREATE TABLE user_notes (id bigint PRIMARY KEY, body text NOT NULL);
