CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN cents AS bigint NOT NULL;
CREATE TABLE authors (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  bio text,
  age int,
  score numeric(10,2),
  rating real,
  weight double precision NOT NULL,
  small smallint NOT NULL,
  born date,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated timestamp,
  tags text[] NOT NULL,
  meta jsonb,
  doc json NOT NULL,
  feeling mood,
  uid uuid NOT NULL,
  price cents,
  active boolean NOT NULL,
  ip inet
);
CREATE TABLE books (
  id bigserial PRIMARY KEY,
  author_id bigint NOT NULL REFERENCES authors(id),
  title text NOT NULL,
  pages int NOT NULL,
  isbn text
);
CREATE VIEW author_names AS SELECT id, name, upper(name) AS up FROM authors;
CREATE FUNCTION add_one(x int) RETURNS int AS $$ SELECT x + 1 $$ LANGUAGE sql;
