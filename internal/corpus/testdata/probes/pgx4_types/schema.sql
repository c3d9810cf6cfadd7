-- Every type sqlc v1.31.1 maps for pgx/v4 (its golang codegen's
-- postgresType), NOT NULL and nullable, and the ones it leaves
-- interface{} for pgx/v4 only.
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE pair AS (a int, b text);
CREATE TABLE kinds (
  id bigserial PRIMARY KEY,
  s2 smallserial NOT NULL,
  i2 smallint, i2n smallint NOT NULL,
  i4 int, i4n int NOT NULL,
  i8 bigint, i8n bigint NOT NULL,
  f4 real, f4n real NOT NULL,
  f8 double precision, f8n double precision NOT NULL,
  num numeric, numn numeric NOT NULL,
  cash money,
  b boolean, bn boolean NOT NULL,
  j json, jn json NOT NULL,
  jb jsonb, jbn jsonb NOT NULL,
  by bytea, byn bytea NOT NULL,
  d date, dn date NOT NULL,
  t time, tn time NOT NULL,
  ttz timetz, ttzn timetz NOT NULL,
  ts timestamp, tsn timestamp NOT NULL,
  tstz timestamptz, tstzn timestamptz NOT NULL,
  txt text, txtn text NOT NULL,
  vc varchar(10), vcn varchar(10) NOT NULL,
  bc char(3), bcn char(3) NOT NULL,
  nm name,
  u uuid, un uuid NOT NULL,
  ip inet, ipn inet NOT NULL,
  net cidr,
  mac macaddr, mac8 macaddr8,
  iv interval, ivn interval NOT NULL,
  r4 int4range, r8 int8range, rn numrange, rts tsrange, rtstz tstzrange, rd daterange,
  mr4 int4multirange,
  bits bit(3), vbits varbit,
  o oid, x xid, x8 xid8, c cid, ti tid,
  pt point, bx box, ln line, ls lseg, pth path, pg polygon, ci circle,
  tv tsvector,
  arr int[] NOT NULL, arrn text[],
  m mood, mn mood NOT NULL,
  cp pair, cpn pair NOT NULL
);
