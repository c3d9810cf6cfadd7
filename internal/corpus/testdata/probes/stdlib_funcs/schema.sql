CREATE DOMAIN slug AS TEXT;
CREATE TABLE users(id bigint PRIMARY KEY, email text NOT NULL, note text);
CREATE TABLE ev (id BIGINT PRIMARY KEY, created_at TIMESTAMPTZ NOT NULL DEFAULT now(), note TEXT, n int);
CREATE FUNCTION norm(s slug) RETURNS slug AS $$ SELECT s $$ LANGUAGE sql;
CREATE TABLE posts(id bigint PRIMARY KEY, s slug NOT NULL, ss slug[]);
