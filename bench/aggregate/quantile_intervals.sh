#!/usr/bin/env bash
# bench/aggregate/quantile_intervals.sh — describe()'s quartile intervals at its default
# split: coverage and width (docs/PRIVACY.md, "Private statistics").  Three 50 000-row
# tables of seven declared columns (age on [18, 80], hours, income; four with levels), so
# describe()'s 11 statistics share epsilon BENCH_EPS [0.25]; age is
#   dense   uniform on [18, 80] (distinct values),
#   gappy   uniform on [18, 30] and [50, 80] only (half each: the median falls in the gap),
#   ties    whole years 18 .. 80 (800 rows each: the quartiles are ties).
# BENCH_RUNS [300] fresh-noise runs per table of dp_aggregate_cols with describe()'s own
# layout (count, per column its histogram and a numeric column's quartiles over 64
# leaves), their rows by dpobj.aggregate_rows (what describe() prints).  Per table and q:
# the share of intervals holding x_(t), t = ceil(q n); the width as a share of the range
# (mean, 95th percentile, max); the estimate's RMSE in years; the width in ranks (the rows
# between its ends) against twice the reach aggregate_accuracy() gives (an end's 97.5 %
# rank error from the noise law, computed on a protected copy: public parameters only).  Needs a running server through PGHOST/PGPORT/PGUSER (a
# superuser), e.g. from the repository's root:
#   (. scripts/common.sh && dpobj_build_install && dpobj_start_cluster && bash bench/aggregate/quantile_intervals.sh)
# Writes bench/csv/aggregate_quantile_intervals.csv (bench/record.py), rendered into
# docs/BENCHMARKS.md.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS="${BENCH_RUNS:-300}"
EPS="${BENCH_EPS:-0.25}"
DB=dpobj_quantint
cd "$REPO"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -d "$DB" -v runs="$RUNS" -v eps="$EPS" <<'SQL' | sed -n '/^table,/,$p' | tee /dev/stderr |
SET client_min_messages = warning;
CREATE EXTENSION dpobj;
SELECT set_config('bench.runs', :'runs', false), set_config('bench.eps', :'eps', false) \gset
SELECT setseed(0.5);
CREATE TABLE base AS
SELECT i, 100 * random() AS hours, (1000 * random())::float8 AS income,
       (ARRAY['x', 'y', 'z'])[1 + i % 3] AS edu, (ARRAY['a', 'b'])[1 + i % 2] AS race,
       (ARRAY['n', 's'])[1 + i % 5 % 2] AS region, (ARRAY['F', 'M'])[1 + i % 7 % 2] AS sex,
       random() AS u, random() AS side
  FROM generate_series(1, 50000) i;
CREATE TABLE ages AS
SELECT 'dense' AS tbl, i, 18 + 62 * u AS age FROM base
UNION ALL SELECT 'gappy', i, CASE WHEN side < 0.5 THEN 18 + 12 * u ELSE 50 + 30 * u END FROM base
UNION ALL SELECT 'ties', i, floor(18 + 63 * u)::float8 FROM base;
-- describe()'s layout for these columns (src/protected/describe.c)
CREATE TABLE spec AS SELECT jsonb_build_object('layout', '{"encoding": [{"column": "age", "lo": 18, "hi": 80},
    {"column": "edu", "levels": ["x", "y", "z"]}, {"column": "hours", "lo": 0, "hi": 100},
    {"column": "income", "lo": 0, "hi": 1000}, {"column": "race", "levels": ["a", "b"]},
    {"column": "region", "levels": ["n", "s"]}, {"column": "sex", "levels": ["F", "M"]}], "group_by": [],
  "what": [{"stat": "count"},
    {"stat": "histogram", "column": "age", "bins": 10}, {"stat": "quantile", "column": "age", "q": [0.25, 0.5, 0.75], "bins": 64},
    {"stat": "histogram", "column": "edu"},
    {"stat": "histogram", "column": "hours", "bins": 10}, {"stat": "quantile", "column": "hours", "q": [0.25, 0.5, 0.75], "bins": 64},
    {"stat": "histogram", "column": "income", "bins": 10}, {"stat": "quantile", "column": "income", "q": [0.25, 0.5, 0.75], "bins": 64},
    {"stat": "histogram", "column": "race"}, {"stat": "histogram", "column": "region"},
    {"stat": "histogram", "column": "sex"}]}'::jsonb) AS opts;
CREATE TABLE runs (tbl text, run int, statistic text, estimate float8, ci_low float8, ci_high float8);
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['dense', 'gappy', 'ties'] LOOP
    FOR r IN 1..current_setting('bench.runs')::int LOOP
      INSERT INTO runs
      SELECT t, r, q.statistic, q.estimate, q.ci_low, q.ci_high
        FROM (SELECT dpobj.dp_aggregate_cols(true, current_setting('bench.eps')::float8, 0, (SELECT opts FROM spec),
                                             a.age, b.edu, b.hours, b.income, b.race, b.region, b.sex) AS rel
                FROM base b JOIN ages a ON a.i = b.i AND a.tbl = t) s,
             dpobj.aggregate_rows((SELECT opts->'layout' FROM spec), rel) q
       WHERE q.column_name = 'age' AND q.statistic LIKE 'quantile%';
    END LOOP;
  END LOOP;
END $$;
-- the truth: rank ceil(q n)'s age; the rows below each of the 64 leaves' edges
CREATE TABLE truth AS
SELECT tbl, 'quantile(' || q || ')' AS statistic, q,
       (SELECT age FROM ages a WHERE a.tbl = t.tbl ORDER BY age OFFSET ceil(q * 50000) - 1 LIMIT 1) AS v
  FROM (VALUES ('dense'), ('gappy'), ('ties')) t(tbl), unnest(ARRAY[0.25, 0.5, 0.75]) q;
CREATE TABLE below AS
SELECT tbl, k, (SELECT count(*) FROM ages a WHERE a.tbl = t.tbl AND a.age < 18 + k * 62 / 64.0) AS n
  FROM (VALUES ('dense'), ('gappy'), ('ties')) t(tbl), generate_series(0, 64) k;
-- aggregate_accuracy()'s reach: describe()'s quartiles on a protected copy (public parameters only)
CREATE TABLE prot AS SELECT b.i, a.age, b.hours, b.income, b.edu, b.race, b.region, b.sex
  FROM base b JOIN ages a ON a.i = b.i AND a.tbl = 'dense';
SELECT dpobj.declare_domain('prot', 'age', 18, 80), dpobj.declare_domain('prot', 'hours', 0, 100),
       dpobj.declare_domain('prot', 'income', 0, 1000), dpobj.declare_domain('prot', 'edu', ARRAY['x', 'y', 'z']),
       dpobj.declare_domain('prot', 'race', ARRAY['a', 'b']), dpobj.declare_domain('prot', 'region', ARRAY['n', 's']),
       dpobj.declare_domain('prot', 'sex', ARRAY['F', 'M']), dpobj.protect('prot');
CREATE TABLE reach AS
SELECT half_width FROM dpobj.aggregate_accuracy('prot', (SELECT opts->'layout'->'what' FROM spec),
                                                current_setting('bench.eps')::float8)
 WHERE statistic = 'quantile' AND column_name = 'age';
\pset format csv
SELECT r.tbl AS "table", r.statistic, count(*) AS runs,
       to_char(avg((t.v BETWEEN r.ci_low AND r.ci_high)::int) * 100, 'FM990.0') || ' %' AS covered,
       to_char(avg(r.ci_high - r.ci_low) / 62 * 100, 'FM990.0') || ' %' AS "width (mean)",
       to_char(percentile_cont(0.95) WITHIN GROUP (ORDER BY r.ci_high - r.ci_low) / 62 * 100, 'FM990.0') || ' %' AS "width p95",
       to_char(max(r.ci_high - r.ci_low) / 62 * 100, 'FM990.0') || ' %' AS "width max",
       to_char(sqrt(avg((r.estimate - t.v) ^ 2)), 'FM990.00') AS "estimate RMSE (years)",
       to_char(avg(bh.n - bl.n) / (2 * (SELECT half_width FROM reach)), 'FM90.00') AS "ranks / 2 reach"
  FROM runs r JOIN truth t USING (tbl, statistic)
  JOIN below bl ON bl.tbl = r.tbl AND bl.k = round((r.ci_low - 18) / 62 * 64)
  JOIN below bh ON bh.tbl = r.tbl AND bh.k = round((r.ci_high - 18) / 62 * 64)
 GROUP BY r.tbl, r.statistic ORDER BY r.tbl, r.statistic;
SQL
python3 "$REPO/bench/record.py" aggregate_quantile_intervals "BENCH_RUNS=$RUNS BENCH_EPS=$EPS bash bench/aggregate/quantile_intervals.sh"
psql -X -q -d postgres -c "DROP DATABASE $DB"
