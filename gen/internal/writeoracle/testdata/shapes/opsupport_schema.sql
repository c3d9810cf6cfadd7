-- A btree operator class that is not text's default, whose support
-- function writes: PostgreSQL runs it where its index is kept or
-- searched, not for statements that use neither the index nor an
-- operator only the class holds (issue 24 precision).
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new');
CREATE FUNCTION bump() RETURNS int LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'hacked'; RETURN 1; END $$;
CREATE FUNCTION wcmp(a text, b text) RETURNS int LANGUAGE plpgsql AS $$ BEGIN PERFORM bump(); RETURN bttextcmp(a, b); END $$;
CREATE OPERATOR CLASS wtext_ops FOR TYPE text USING btree AS
  OPERATOR 1 ~<~, OPERATOR 2 ~<=~, OPERATOR 3 =, OPERATOR 4 ~>=~, OPERATOR 5 ~>~,
  FUNCTION 1 wcmp(text, text);
CREATE TABLE tags (id bigint PRIMARY KEY, label text);
CREATE INDEX tags_label ON tags (label wtext_ops);
