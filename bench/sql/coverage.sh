#!/usr/bin/env bash
# bench/sql/coverage.sh — private SQL queries' 95 % intervals: BENCH_RUNS [200] runs of
# dpobj.query() (the function form of a private query; docs/REFERENCE.md, "query") of
# count(*), sum(x), avg(x) over BENCH_ROWS [50000] rows (x in [0, 100], declared) at epsilon
# BENCH_EPS [1], ungrouped and grouped by g (4 declared levels): per statistic the share of
# intervals that cover the true value (target 93-97 %) and the median relative error (the
# grouped query's empty "other" cell, g NULL, left out).  Needs
# a running server through PGHOST/PGPORT/PGUSER (a superuser), e.g. from the repository's root:
#   (. scripts/common.sh && dpobj_build_install && dpobj_start_cluster && bash bench/sql/coverage.sh)
# Writes bench/csv/sql_coverage.csv (bench/record.py), rendered into docs/BENCHMARKS.md.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS="${BENCH_RUNS:-200}"
N="${BENCH_ROWS:-50000}"
EPS="${BENCH_EPS:-1}"
DB=dpobj_sqlcov
cd "$REPO"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -d "$DB" -c "CREATE EXTENSION dpobj"
psql -X -q -d "$DB" -v runs="$RUNS" -v eps="$EPS" -v n="$N" --csv <<'SQL' | sed -n '/^statistic,/,$p' | tee /dev/stderr |
SET client_min_messages = warning;
DO $$ BEGIN CREATE ROLE bench_sqlcov_analyst; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
SELECT setseed(0.42);
CREATE TABLE t AS SELECT 'g' || (i % 4) AS g, 100 * random() ^ 2 AS x FROM generate_series(1, :n) i;
SELECT dpobj.declare_domain('t', 'g', ARRAY['g0', 'g1', 'g2', 'g3']) \gset
SELECT dpobj.declare_domain('t', 'x', 0, 100) \gset
SELECT dpobj.protect('t') \gset
SELECT dpobj.grant_budget('t', 'bench_sqlcov_analyst', 1e9, 0.5) \gset
CREATE TABLE truth AS
SELECT NULL::text AS g, count(*)::float8 AS n, sum(x) AS s, avg(x) AS m FROM t
UNION ALL SELECT g, count(*), sum(x), avg(x) FROM t GROUP BY g;
CREATE TABLE runs (run int, grouped bool, g text, stat text, est float8, lo float8, hi float8);
GRANT INSERT ON runs TO bench_sqlcov_analyst;
SELECT set_config('bench.runs', :'runs', false), set_config('bench.eps', :'eps', false) \gset
SET ROLE bench_sqlcov_analyst;
DO $$
DECLARE e float8 := current_setting('bench.eps')::float8;
BEGIN
  FOR i IN 1..current_setting('bench.runs')::int LOOP
    INSERT INTO runs SELECT i, false, NULL, s, (result->>s)::float8,
           (intervals->s->>0)::float8, (intervals->s->>1)::float8
      FROM dpobj.query('SELECT count(*) AS n, sum(x) AS s, avg(x) AS m FROM public.t', e),
           unnest(ARRAY['n', 's', 'm']) s;
    INSERT INTO runs SELECT i, true, result->>'g', s, (result->>s)::float8,
           (intervals->s->>0)::float8, (intervals->s->>1)::float8
      FROM dpobj.query('SELECT g, count(*) AS n, sum(x) AS s, avg(x) AS m FROM public.t GROUP BY g', e),
           unnest(ARRAY['n', 's', 'm']) s;
  END LOOP;
END $$;
RESET ROLE;
SELECT CASE r.stat WHEN 'n' THEN 'count(*)' WHEN 's' THEN 'sum(x)' ELSE 'avg(x)' END AS statistic,
       CASE WHEN r.grouped THEN 'by g (4 groups)' ELSE 'whole table' END AS cells,
       count(*) AS intervals,
       round(100.0 * avg((CASE r.stat WHEN 'n' THEN u.n WHEN 's' THEN u.s ELSE u.m END
                          BETWEEN r.lo AND r.hi)::int), 1) AS "covered %",
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(r.est - CASE r.stat WHEN 'n' THEN u.n
             WHEN 's' THEN u.s ELSE u.m END) / CASE r.stat WHEN 'n' THEN u.n WHEN 's' THEN u.s ELSE u.m END)
             * 100)::numeric, 3) AS "median relative error %"
  FROM runs r JOIN truth u ON u.g IS NOT DISTINCT FROM r.g
 WHERE NOT r.grouped OR r.g IS NOT NULL
 GROUP BY 1, 2 ORDER BY 2 DESC, 1;
SQL
python3 "$REPO/bench/record.py" sql_coverage "BENCH_RUNS=$RUNS BENCH_ROWS=$N BENCH_EPS=$EPS bash bench/sql/coverage.sh"
psql -X -q -d postgres -c "DROP DATABASE $DB"
