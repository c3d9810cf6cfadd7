CREATE TABLE documents (id bigint PRIMARY KEY, body text NOT NULL, revision bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN documents.revision IS 'fencegen:token strict';
CREATE TABLE notes (id bigint PRIMARY KEY, body text NOT NULL, revision bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN notes.revision IS 'fencegen:token strict';
