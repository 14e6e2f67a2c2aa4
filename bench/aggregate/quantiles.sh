#!/usr/bin/env bash
# bench/aggregate/quantiles.sh — dpobj.aggregate()'s quantiles and variance on UCI Adult
# (adult.train, 32 561 rows; data/adult/SOURCE.md), age declared in [17, 90]: BENCH_RUNS
# [200] fresh-noise runs of quantiles q = 0.25, 0.5, 0.75 (256 leaves: two noisy
# histograms, one for the three q's) and variance(age) at epsilon BENCH_EPS [1] (a half
# each).  Per statistic: the fraction of 95 % intervals that cover the true value; for
# quantiles the estimate's rank error (its leaf's: max(0, t - rows up to the leaf, rows below
# it + 1 - t)) at the 95th percentile against aggregate_accuracy()'s reach (an interval end's 97.5 % rank
# error) and against OpenDP's quantile mechanism (make_private_quantile, unknown size,
# 1000 candidates) at a third of the statistic's epsilon per q: its Gumbel
# report-noisy-max of scale 2 max(q, 1 - q) / eps_q loses at most scale x ln(1000 / 0.05)
# ranks w.p. >= 95 %.  Then one describe() of (sex, age) at
# epsilon 1 with 20 age bins, against the true histogram: bench/aggregate/describe_adult.csv
# (bench/render.py plots it into docs/img/describe_adult.png).  Needs a running server
# through PGHOST/PGPORT/PGUSER (a superuser), e.g. from the repository's root:
#   (. scripts/common.sh && dpobj_build_install && dpobj_start_cluster && bash bench/aggregate/quantiles.sh)
# Writes bench/csv/aggregate_quantiles.csv (bench/record.py), rendered into docs/BENCHMARKS.md.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS="${BENCH_RUNS:-200}"
EPS="${BENCH_EPS:-1}"
DB=dpobj_aggquant
cd "$REPO"
# shellcheck source=bench/aggregate/adult.sh
. "$REPO/bench/aggregate/adult.sh"
adult_bench_db "$DB" aq
psql -X -q -d "$DB" -v runs="$RUNS" -v eps="$EPS" <<'SQL' | sed -n '/^statistic,/,$p' | tee /dev/stderr |
SET client_min_messages = warning;
SELECT set_config('bench.runs', :'runs', false), set_config('bench.eps', :'eps', false) \gset
CREATE TABLE runs (run int, statistic text, estimate float8, ci_low float8, ci_high float8);
DO $$
DECLARE
  w jsonb := '[{"stat": "quantile", "column": "age", "q": [0.25, 0.5, 0.75]}, {"stat": "variance", "column": "age"}]';
BEGIN
  FOR i IN 1..current_setting('bench.runs')::int LOOP
    INSERT INTO runs SELECT i, statistic, estimate, ci_low, ci_high
      FROM dpobj.aggregate('aq', w, current_setting('bench.eps')::float8, 1e-6);
  END LOOP;
END $$;
-- the truth: rank t = ceil(q n)'s age, var_pop; a bin's rows below and up to it
CREATE TABLE truth AS
SELECT 'quantile(' || q || ')' AS statistic, q,
       (SELECT age FROM aq ORDER BY age OFFSET ceil(q * (SELECT count(*) FROM aq)) - 1 LIMIT 1)::float8 AS v
  FROM unnest(ARRAY[0.25, 0.5, 0.75]) q
UNION ALL SELECT 'variance', NULL, var_pop(age)::float8 FROM aq;
CREATE TABLE leaves AS
SELECT b, coalesce(sum(h.n) FILTER (WHERE h.age < 17 + b * 73 / 256.0), 0) AS below,
       coalesce(sum(h.n) FILTER (WHERE h.age < 17 + (b + 1) * 73 / 256.0), 0) AS upto
  FROM generate_series(0, 255) b CROSS JOIN (SELECT age, count(*) AS n FROM aq GROUP BY age) h GROUP BY b;
-- aggregate_accuracy's reach in ranks (the same share: a count in the variance's place,
-- which it refuses)
CREATE TABLE bound AS
SELECT half_width FROM dpobj.aggregate_accuracy('aq',
  '[{"stat": "quantile", "column": "age", "q": [0.25, 0.5, 0.75]}, {"stat": "count"}]'::jsonb,
  current_setting('bench.eps')::float8) WHERE statistic = 'quantile';
\pset format csv
SELECT r.statistic, count(*) AS runs,
       to_char(avg((t.v BETWEEN r.ci_low AND r.ci_high)::int) * 100, 'FM990.0') || ' %' AS "covered",
       to_char(avg(r.ci_high - r.ci_low), 'FM99990.00') AS "mean width",
       coalesce(to_char(percentile_disc(0.95) WITHIN GROUP (ORDER BY
         CASE WHEN t.q IS NOT NULL THEN greatest(ceil(t.q * 32561) - lv.upto, lv.below + 1 - ceil(t.q * 32561), 0) END),
         'FM99990'), '') AS "rank error p95",
       coalesce(to_char(max(bd.half_width), 'FM99990'), '') AS "bound (ours)",
       coalesce(to_char(max(2 * greatest(t.q, 1 - t.q) / (current_setting('bench.eps')::float8 / 2 / 3)
                            * ln(1000 / 0.05)), 'FM99990'), '') AS "bound (OpenDP, same eps per q)"
  FROM runs r JOIN truth t USING (statistic)
  LEFT JOIN leaves lv ON t.q IS NOT NULL AND lv.b = least(floor((r.estimate - 17) / 73 * 256), 255)
  LEFT JOIN bound bd ON t.q IS NOT NULL
 GROUP BY r.statistic ORDER BY r.statistic;
SQL
python3 "$REPO/bench/record.py" aggregate_quantiles "BENCH_RUNS=$RUNS BENCH_EPS=$EPS bash bench/aggregate/quantiles.sh"
# one describe() of age in 20 bins at epsilon 1 against the true histogram
psql -X -q -d "$DB" --csv <<'SQL' >"$REPO/bench/aggregate/describe_adult.csv"
SELECT d.statistic, d.group_values->'age' AS bin, round(d.estimate::numeric, 1) AS estimate,
       round(d.ci_low::numeric, 1) AS ci_low, round(d.ci_high::numeric, 1) AS ci_high,
       (SELECT count(*) FROM aq WHERE d.statistic = 'histogram' AND
          least(floor((age - 17) / 73.0 * 20), 19) = round(((d.group_values->'age'->>0)::float8 - 17) / 3.65)) AS truth
  FROM dpobj.describe('aq', 1, 1e-6, '{"columns": ["age"], "bins": 20}') d
 WHERE d.statistic IN ('histogram', 'count') OR d.statistic LIKE 'quantile%';
SQL
psql -X -q -d postgres -c "DROP DATABASE $DB"
