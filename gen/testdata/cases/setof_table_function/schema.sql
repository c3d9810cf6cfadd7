CREATE TABLE users (id bigint PRIMARY KEY, team text NOT NULL, email text);
CREATE FUNCTION users_of(t text) RETURNS SETOF users LANGUAGE sql STABLE AS $$ SELECT * FROM users WHERE team = t $$;
