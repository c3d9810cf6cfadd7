CREATE TABLE t (
  id int PRIMARY KEY,
  ints integer[] NOT NULL,
  fs double precision[] NOT NULL,
  bigs bigint[],
  tags text[] NOT NULL,
  doc jsonb NOT NULL,
  raw bytea NOT NULL
);
