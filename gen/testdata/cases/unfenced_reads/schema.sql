CREATE TYPE mood AS ENUM ('happy', 'sad', 'so-so');

CREATE TABLE authors (
    id    BIGSERIAL PRIMARY KEY,
    name  TEXT NOT NULL,
    bio   TEXT,
    mood  mood NOT NULL DEFAULT 'happy',
    tok   BIGINT NOT NULL DEFAULT 0
);

COMMENT ON COLUMN authors.tok IS 'fencegen:token';

CREATE TABLE books (
    id         BIGSERIAL PRIMARY KEY,
    author_id  BIGINT REFERENCES authors (id),
    title      TEXT NOT NULL,
    pages      INTEGER NOT NULL,
    price      NUMERIC(10, 2),
    tags       TEXT[] NOT NULL DEFAULT '{}',
    published  DATE
);
