-- Functions and SQL value functions in FROM, as sqlc v1.31.1 reads them
-- without a database (analyze/sqlcfrom.go): its columns, names, types and
-- the star it spells.
-- name: GenSeries :many
SELECT * FROM generate_series(1, 10);
-- name: GenSeriesAlias :many
SELECT g FROM generate_series(1, 10) g;
-- name: GenSeriesColAlias :many
SELECT * FROM generate_series(1, 10) AS g(n);
-- name: GenSeriesOrd :many
SELECT * FROM generate_series(1, 10) WITH ORDINALITY;
-- name: GenSeriesOrdAlias :many
SELECT * FROM generate_series(1, 10) WITH ORDINALITY AS g(n);
-- name: UnnestOrd :many
SELECT * FROM unnest(@ids::int[]) WITH ORDINALITY AS u(a, b);
-- name: UnnestStar :many
SELECT * FROM unnest(@ids::int[]);
-- name: Now :one
SELECT * FROM now();
-- name: FTable :many
SELECT * FROM f_table(1);
-- name: FTableAlias :many
SELECT * FROM f_table(1) AS t;
-- name: FUsers :many
SELECT * FROM f_users();
-- name: FOut :one
SELECT * FROM f_out();
-- name: FOutRec :one
SELECT * FROM f_out_rec();
-- name: FPair :one
SELECT * FROM f_pair();
-- name: FBig :many
SELECT * FROM f_big();
-- name: FArr :one
SELECT * FROM f_arr();
-- name: CurDate :one
SELECT * FROM CURRENT_DATE;
-- name: JsonbEach :many
SELECT * FROM jsonb_each(@j::jsonb);
-- name: JsonbRec :one
SELECT * FROM jsonb_to_record(@j::jsonb) AS x(a int, b text);
-- name: UsersSeries :many
SELECT * FROM users, generate_series(1, 2);
-- name: RowsFrom :many
SELECT * FROM ROWS FROM (generate_series(1, 2), generate_series(1, 3));
-- name: SeriesTs :many
SELECT * FROM generate_series('2020-01-01'::timestamptz, '2020-02-01'::timestamptz, '1 day'::interval) AS d;
-- name: LateralSeries :many
SELECT u.id, s FROM users u, LATERAL generate_series(1, 3) s;
-- name: Upper :one
SELECT * FROM upper('a');
-- name: RegexpMatches :many
SELECT * FROM regexp_matches('a', 'b');
-- name: PgTryAdvisory :one
SELECT * FROM pg_try_advisory_lock(1);
-- name: FOutAlias :one
SELECT * FROM f_out() AS o;
-- name: Coalesce :one
SELECT * FROM COALESCE(1, 2);
-- name: KpiCount :one
SELECT count FROM grouped_kpis WHERE day = @day;
-- name: KpiDay :one
SELECT day FROM grouped_kpis WHERE day = @day;
-- name: RefreshUnnamed :exec
REFRESH MATERIALIZED VIEW unnamed_kpis;
-- name: ValuesAliased :many
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(n, s);
-- name: ValuesBare :many
SELECT * FROM (VALUES (1, 'a')) AS v;
-- name: ValuesQualified :many
SELECT v.* FROM (VALUES (1, 'a')) AS v(n);
-- name: ValuesJoined :many
SELECT * FROM users JOIN (VALUES (1::bigint, 'a')) AS v(n, s) ON v.n = users.id;
-- name: ValuesLateral :many
SELECT * FROM users, LATERAL (VALUES (users.id)) AS l(x);
-- name: ValuesWith :many
WITH v(n, s) AS (VALUES (1, 'a')) SELECT * FROM v;
-- name: ValuesNested :many
SELECT * FROM (SELECT * FROM (VALUES (@n::int)) AS a(n)) AS b;
-- name: UsingJoin :many
SELECT * FROM users JOIN users AS u2 USING (id);
-- name: UsingLeftJoin :many
SELECT * FROM users LEFT JOIN user_notes USING (id) WHERE users.note = @note;
-- name: UsingFullJoin :many
SELECT * FROM users FULL JOIN user_notes USING (id);
-- name: NaturalJoin :many
SELECT * FROM users NATURAL JOIN users AS u2;
-- name: UsingJoinQualified :many
SELECT users.*, u2.note FROM users JOIN users AS u2 USING (id);
