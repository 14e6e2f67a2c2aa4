#!/usr/bin/env bash
# bench/aggregate/coverage.sh — dpobj.aggregate()'s 95 % intervals and noise on UCI Adult
# (adult.train, 32 561 rows; data/adult/SOURCE.md): BENCH_RUNS [1000] fresh-noise runs
# (protected runs refuse dpobj.seed) of count, sum(age) and mean(age), age declared in
# [17, 90], at epsilon BENCH_EPS [1] (a third each), ungrouped and grouped by sex (Female,
# Male, "other": 3 cells).  Per statistic: the fraction of intervals that cover the true
# value, the law's own coverage P(|Y| <= h) (a mean's test: >= 95 %), and the errors'
# root mean square against the discrete Laplace's standard deviation sqrt(2q)/(1 - q) (lattice units x step).  Needs a
# running server through PGHOST/PGPORT/PGUSER (a superuser: it owns, protects and grants),
# e.g. from the repository's root:
#   (. scripts/common.sh && dpobj_build_install && dpobj_start_cluster && bash bench/aggregate/coverage.sh).  Writes bench/csv/aggregate_coverage.csv
# (bench/record.py), rendered into docs/BENCHMARKS.md.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS="${BENCH_RUNS:-1000}"
EPS="${BENCH_EPS:-1}"
DB=dpobj_aggcov
cd "$REPO"
# shellcheck source=bench/aggregate/adult.sh
. "$REPO/bench/aggregate/adult.sh"
adult_bench_db "$DB" acov
psql -X -q -d "$DB" -v runs="$RUNS" -v eps="$EPS" <<'SQL' | sed -n '/^statistic,/,$p' | tee /dev/stderr |
SET client_min_messages = warning;
SELECT set_config('bench.runs', :'runs', false), set_config('bench.eps', :'eps', false) \gset
CREATE TABLE runs (run int, grouped bool, key text, statistic text, estimate float8,
                   ci_low float8, ci_high float8);
DO $$
DECLARE
  w jsonb := '[{"stat": "count"}, {"stat": "sum", "column": "age"}, {"stat": "mean", "column": "age"}]';
  e float8 := current_setting('bench.eps')::float8;
BEGIN
  FOR i IN 1..current_setting('bench.runs')::int LOOP
    INSERT INTO runs SELECT i, false, NULL, statistic, estimate, ci_low, ci_high
      FROM dpobj.aggregate('acov', w, e, 1e-6);
    INSERT INTO runs SELECT i, true, coalesce(group_values->>'sex', 'other'), statistic,
           estimate, ci_low, ci_high
      FROM dpobj.aggregate('acov', w, e, 1e-6, ARRAY['sex']);
  END LOOP;
END $$;
-- the true values per cell ("other" is empty: count and sum 0, no mean)
CREATE TABLE truth AS
SELECT false AS grouped, NULL::text AS key, count(*)::float8 AS n, sum(age)::float8 AS s,
       avg(age)::float8 AS m FROM acov
UNION ALL
SELECT true, k, count(a.sex), coalesce(sum(a.age), 0), avg(a.age)
  FROM unnest(ARRAY['Female', 'Male', 'other']) k LEFT JOIN acov a ON a.sex = k GROUP BY k;
-- the discrete Laplace of each slot as aggregate.c draws it: a count's scale
-- 2 x 2^20 / floor(eps/3 x 2^20), a sum's 2^15 x 2^16 / floor(eps/3 x 2^16) lattice steps
-- of 90 / 16384
CREATE TABLE law AS
SELECT statistic, step, exp(-den / num) AS q
  FROM (VALUES ('count', 1.0::float8, 2 * 2.0 ^ 20, floor(current_setting('bench.eps')::float8 / 3 * 2.0 ^ 20)),
               ('sum', 90 / 16384.0, 2.0 ^ 31, floor(current_setting('bench.eps')::float8 / 3 * 2.0 ^ 16))) v(statistic, step, num, den);
\pset format csv
SELECT r.statistic, CASE WHEN r.grouped THEN '3 (by sex)' ELSE '1' END AS cells,
       count(*) AS intervals,
       to_char(avg((t.v BETWEEN r.ci_low AND r.ci_high)::int) * 100, 'FM990.0') || ' % ('
         || coalesce(to_char(avg(1 - 2 * l.q ^ (round((r.ci_high - r.estimate) / l.step) + 1) / (1 + l.q)) * 100,
                             'FM990.0') || ' %', '≥ 95 %') || ')' AS "covered (law)",
       to_char(sqrt(avg((r.estimate - t.v) ^ 2)), 'FM999990.00')
         || coalesce(' / ' || to_char(max(sqrt(2 * l.q) / (1 - l.q) * l.step), 'FM999990.00') || ' = '
                     || to_char(sqrt(avg((r.estimate - t.v) ^ 2)) / max(sqrt(2 * l.q) / (1 - l.q) * l.step), 'FM0.000'),
                     '') AS "error rms / law's sd"
  FROM runs r
  JOIN (SELECT grouped, key, 'count' AS statistic, n AS v FROM truth
        UNION ALL SELECT grouped, key, 'sum', s FROM truth
        UNION ALL SELECT grouped, key, 'mean', m FROM truth WHERE m IS NOT NULL) t
    ON t.grouped = r.grouped AND t.key IS NOT DISTINCT FROM r.key AND t.statistic = r.statistic
  LEFT JOIN law l ON l.statistic = r.statistic
 WHERE r.estimate IS NOT NULL
 GROUP BY r.statistic, r.grouped
 ORDER BY array_position(ARRAY['count', 'sum', 'mean'], r.statistic), r.grouped;
SQL
python3 "$REPO/bench/record.py" aggregate_coverage "BENCH_RUNS=$RUNS BENCH_EPS=$EPS bash bench/aggregate/coverage.sh"
psql -X -q -d postgres -c "DROP DATABASE $DB"
