-- Function bodies whose ordinary string constants hold a backslash (issue
-- 24, trial x23 F2), run by TestOracleOffStrings with
-- standard_conforming_strings on and off: PostgreSQL then reads the
-- backslash as itself, or as an escape.
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new');
CREATE TABLE alerts (id bigint PRIMARY KEY, freq text NOT NULL DEFAULT '5s');

-- Read-only helpers as hatchet's convert_duration_to_interval: a regex
-- escape, a replacement's back reference, escapes in a read-only
-- constant EXECUTE.
CREATE FUNCTION to_secs(d text) RETURNS double precision AS $$
BEGIN
  RETURN (regexp_match(d, '^([0-9]+(?:\.[0-9]*)?)s$'))[1]::double precision;
END;
$$ LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION squash(d text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT regexp_replace(d, '\s+([0-9])', ' \1', 'g')
$$;
CREATE FUNCTION count_matching() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE 'SELECT count(*) FROM alerts WHERE freq ~ ''^\d+s$''' INTO n;
  RETURN n;
END $$;

-- Writers whichever the setting: a value with a backslash.
CREATE FUNCTION mark_job(i bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE jobs SET state = 'a\.b' WHERE id = i;
END $$;

-- Writes hidden under standard_conforming_strings on: off, 'a\' goes on
-- past its quote, so the UPDATE runs.
CREATE FUNCTION sneaky() RETURNS text LANGUAGE sql AS $f$
  SELECT 'a\' || '; UPDATE jobs SET state = $s$x$s$; SELECT ' AS z --'
$f$;
-- An escape string's EXECUTE whose command reads so off.
CREATE FUNCTION sneaky_execute() RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
  EXECUTE E'SELECT ''a\\'' || ''; UPDATE jobs SET state = $s$x$s$; SELECT '' AS z --''';
END $f$;
-- A name: off, 'bump_vie\w' names bump_view, whose function writes.
CREATE FUNCTION bump() RETURNS int LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'bumped'; RETURN 1; END $$;
CREATE VIEW bump_view AS SELECT bump() AS b;
CREATE FUNCTION by_name() RETURNS text LANGUAGE sql AS $$
  SELECT table_to_xml('bump_vie\w'::text::regclass, true, false, '')::text
$$;
