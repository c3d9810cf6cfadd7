CREATE TABLE arrays (
  id int PRIMARY KEY,
  ints integer[] NOT NULL,
  fs double precision[] NOT NULL,
  bigs bigint[] NOT NULL,
  tags text[] NOT NULL
);
