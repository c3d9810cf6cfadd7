CREATE TYPE state AS ENUM ('open', 'closed');
CREATE TABLE tasks (
    id    BIGINT PRIMARY KEY,
    title TEXT,
    state state,
    due   TIMESTAMP,
    tok   BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN tasks.tok IS 'fencegen:token';
CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT NOT NULL, tags TEXT[]);
