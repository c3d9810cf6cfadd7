CREATE TABLE documents (
    id        BIGINT PRIMARY KEY,
    body      TEXT NOT NULL,
    revision  BIGINT NOT NULL DEFAULT 0
);
