-- Private quantiles (two noisy histograms over a public lattice of leaves, the intervals
-- by post-processing) and variances (noisy sum of squares, sum and count) of
-- dpobj.aggregate, and dpobj.describe(): one charge for a profile of the table.
CREATE SCHEMA regress_aq;
CREATE ROLE regress_aq_alice;
CREATE TABLE regress_aq.t AS
SELECT i, CASE i % 3 WHEN 0 THEN 'F' WHEN 1 THEN 'M' ELSE 'X' END AS sex,
       (i % 100)::float8 AS v, i % 2 = 0 AS flag
  FROM generate_series(1, 1000) i;
SELECT dpobj.declare_domain('regress_aq.t', 'sex', ARRAY['F', 'M']);
SELECT dpobj.declare_domain('regress_aq.t', 'v', 0, 100);
SELECT dpobj.declare_domain('regress_aq.t', 'flag', ARRAY['true', 'false']);

-- the direct aggregate, seeded: a quantile of 256 leaves releases their noisy counts and
-- those of 16 coarse bins of 16 leaves, each histogram at half its epsilon (scale 2 / (1/2));
-- both sum to about the 1000 rows; dpobj.aggregate_rows() gives the estimates and intervals
SET dpobj.seed = 7;
CREATE TEMP TABLE q_release AS
SELECT dpobj.dp_aggregate(dpobj.encode_features('[{"column": "v", "lo": 0, "hi": 100}]', '{}'::text[], ARRAY[v]),
                          true, 1, 1e-6, '{"layout": {"encoding": [{"column": "v", "lo": 0, "hi": 100}], "group_by": [],
                           "what": [{"stat": "quantile", "column": "v", "q": [0.25, 0.9]}]}}') r
  FROM regress_aq.t;
SELECT jsonb_array_length(r->'values') AS n, r->'noise'->0 AS leaf_noise, r->'noise'->256 AS coarse_noise,
       abs((SELECT sum(e::text::int) FROM jsonb_array_elements(r->'values') WITH ORDINALITY a(e, i) WHERE i <= 256) - 1000) < 200 AS leaves_sum,
       abs((SELECT sum(e::text::int) FROM jsonb_array_elements(r->'values') WITH ORDINALITY a(e, i) WHERE i > 256) - 1000) < 50 AS coarse_sum
  FROM q_release;
-- the true quantiles 24 and 89 (ranks 250 and 900) inside a few leaves (100 / 256) wide intervals
SELECT statistic, estimate, ci_low, ci_high
  FROM q_release, dpobj.aggregate_rows('{"encoding": [{"column": "v", "lo": 0, "hi": 100}], "group_by": [],
                                        "what": [{"stat": "quantile", "column": "v", "q": [0.25, 0.9]}]}', r);
-- grouped by sex (3 cells), "bins" 10: one flat histogram per cell at the whole epsilon
SELECT r->'noise'->0 AS noise, jsonb_array_length(r->'values') AS n
  FROM (SELECT dpobj.dp_aggregate(dpobj.encode_features('[{"column": "sex", "levels": ["F", "M"]}, {"column": "v", "lo": 0, "hi": 100}]',
                                                        ARRAY[sex], ARRAY[v]),
                                  true, 1, 1e-6, '{"layout": {"encoding": [{"column": "sex", "levels": ["F", "M"]}, {"column": "v", "lo": 0, "hi": 100}],
                                   "group_by": ["sex"], "what": [{"stat": "quantile", "column": "v", "q": 0.5, "bins": 10}]}}') r
          FROM regress_aq.t) s;
RESET dpobj.seed;
-- 100 seeded runs at epsilon 0.15: the interval holds the true median 49 (rank 500; each
-- value 10 rows) in >= 95 of them; the estimate lies inside it; the ends vary
CREATE TEMP TABLE qcover (run int, estimate float8, lo float8, hi float8);
DO $$
BEGIN
  FOR i IN 1..100 LOOP
    PERFORM set_config('dpobj.seed', i::text, false);
    INSERT INTO qcover
    SELECT i, q.estimate, q.ci_low, q.ci_high
      FROM (SELECT dpobj.dp_aggregate(dpobj.encode_features('[{"column": "v", "lo": 0, "hi": 100}]', '{}'::text[], ARRAY[v]),
                                      true, 0.15, 1e-6, '{"layout": {"encoding": [{"column": "v", "lo": 0, "hi": 100}], "group_by": [],
                                       "what": [{"stat": "quantile", "column": "v", "q": 0.5}]}}') r
              FROM regress_aq.t) s,
           dpobj.aggregate_rows('{"encoding": [{"column": "v", "lo": 0, "hi": 100}], "group_by": [],
                                 "what": [{"stat": "quantile", "column": "v", "q": 0.5}]}', r) q;
  END LOOP;
END $$;
SELECT count(*) FILTER (WHERE lo <= 49 AND 49 <= hi) >= 95 AS covers,
       bool_and(lo <= estimate AND estimate <= hi) AS estimate_inside,
       count(DISTINCT (lo, hi)) > 20 AS ends_noisy
  FROM qcover;
RESET dpobj.seed;

-- the true quartiles and variances per group, for comparison below
SELECT sex, percentile_disc(ARRAY[0.25, 0.5]) WITHIN GROUP (ORDER BY v) AS true_q,
       round(var_pop(v)::numeric, 2) AS true_var
  FROM regress_aq.t GROUP BY 1 ORDER BY 1;

-- the protected path
SELECT dpobj.protect('regress_aq.t');
SELECT 1 FROM dpobj.grant_budget('regress_aq.t', 'regress_aq_alice', 10000, 0.001);
GRANT USAGE ON SCHEMA regress_aq TO regress_aq_alice;
SET ROLE regress_aq_alice;
-- at epsilon 2000 (1000 per statistic, half of it per histogram or value) near the truth:
-- per group, quantiles within a leaf or two of the true ones and their intervals a few
-- leaves wide (docs/PRIVACY.md), variance inside its interval
SELECT group_values, statistic, column_name, round(estimate::numeric, 1) AS estimate, ci_low, ci_high
  FROM dpobj.aggregate('regress_aq.t', '[{"stat": "quantile", "column": "v", "q": [0.25, 0.5], "bins": 100}]',
                       2000, 1e-6, ARRAY['sex']);
SELECT group_values, statistic,
       abs(estimate - CASE group_values->>'sex' WHEN 'F' THEN 831.74 WHEN 'M' THEN 836.37 ELSE 831.56 END) < 3 AS near,
       ci_low <= estimate AND estimate <= ci_high AS in_ci, ci_low > 700 AND ci_high < 1000 AS narrow
  FROM dpobj.aggregate('regress_aq.t', '[{"stat": "variance", "column": "v"}]', 2000, 1e-6, ARRAY['sex']);
-- at epsilon 1 the variance's interval (>= 95 %) is wider: 20 runs, the truth 833.25
SELECT count(*) FILTER (WHERE ci_low <= 833.25 AND 833.25 <= ci_high) >= 16 AS covers,
       bool_and(ci_low >= 0 AND ci_high <= 2500) AS within_popoviciu
  FROM generate_series(1, 20) g, dpobj.aggregate('regress_aq.t', '[{"stat": "variance", "column": "v"}]', 1 + 0 * g, 1e-6);
SELECT mechanism, epsilon, outcome, detail, count(*) FROM dpobj.ledger WHERE relation = 'regress_aq.t'
 GROUP BY 1, 2, 3, 4 ORDER BY min(id);
-- refusals before the charge
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_aq.t' \gset
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_aq.t', '[{"stat": "quantile", "column": "v"}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_aq.t', '[{"stat": "quantile", "column": "v", "q": [0.5, 1]}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_aq.t', '[{"stat": "quantile", "column": "v", "q": "0.5"}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_aq.t', '[{"stat": "quantile", "column": "v", "q": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_aq.t', '[{"stat": "quantile", "column": "v", "q": 0.5, "bins": 1}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_aq.t', '[{"stat": "quantile", "column": "sex", "q": 0.5}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_aq.t', '[{"stat": "variance", "column": "v", "q": 0.5}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_aq.t', '[{"stat": "variance", "column": "v", "bins": 4}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_aq.t', '[{"stat": "quantile", "column": "v", "q": 0.5}]', 1e-18, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_aq.t', '[{"stat": "quantile", "column": "v", "q": 0.5}]', 1, 1e-6, ARRAY['sex', 'flag', 'sex'])$$);
SELECT count(*) = :ledger_before AS nothing_charged FROM dpobj.ledger WHERE relation = 'regress_aq.t';

-- describe: the count, then per declared column (by name) its histogram and a numeric
-- column's quartiles; at epsilon 5000 (1000 per statistic) the counts are exact
SELECT group_values, statistic, column_name, round(estimate::numeric, 1) AS estimate,
       round(ci_low::numeric, 1) AS ci_low, round(ci_high::numeric, 1) AS ci_high
  FROM dpobj.describe('regress_aq.t', 5000, 1e-6, '{"bins": 4}');
-- "columns", "shares" and "filter": one column at the filtered rows (500), the count
-- with half the budget (epsilon 1: scale 2, h = 6)
SELECT statistic, column_name, ci_high - estimate AS h, abs(estimate - 500) < 60 AS near
  FROM dpobj.describe('regress_aq.t', 2, 1e-6, '{"columns": ["sex"], "shares": {"count": 2, "histogram": 2},
                      "filter": [{"column": "flag", "op": "=", "value": true}]}')
 WHERE statistic = 'count';
-- one ledger row per describe
SELECT mechanism, epsilon, outcome FROM dpobj.ledger WHERE relation = 'regress_aq.t' ORDER BY id DESC LIMIT 2;
-- epsilon-DP: delta defaults to 0 (describe) or may be 0 (aggregate), charged as 0, kind pure
SELECT spent_epsilon AS e0, spent_delta AS d0 FROM dpobj.my_budgets WHERE relation = 'regress_aq.t'::regclass \gset
SELECT count(*) AS rows FROM dpobj.describe('regress_aq.t', 1, options => '{"columns": ["sex"]}');
SELECT count(*) AS rows FROM dpobj.aggregate('regress_aq.t', '[{"stat": "count"}]', 1, 0, ARRAY['sex']);
SELECT mechanism, epsilon, delta, kind, accounted, outcome FROM dpobj.ledger
 WHERE relation = 'regress_aq.t' ORDER BY id DESC LIMIT 2;
SELECT spent_epsilon - :e0 AS epsilon, spent_delta - :d0 AS delta FROM dpobj.my_budgets WHERE relation = 'regress_aq.t'::regclass;
-- refusals before the charge
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_aq.t' \gset
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.t', 1, 1e-6, '{"columns": ["nope"]}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.t', 1, 1e-6, '{"columns": ["i"]}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.t', 1, 1e-6, '{"columns": ["sex", "sex"]}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.t', 1, 1e-6, '{"columns": []}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.t', 1, 1e-6, '{"bins": 0}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.t', 1, 1e-6, '{"shares": {"count": 0}}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.t', 1, 1e-6, '{"shares": {"mean": 1}}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.t', 1, 1e-6, '{"group_by": ["sex"]}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.t', 1, NULL)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.t', 1e-7, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.t', 1, -1e-9)$$);
SELECT count(*) = :ledger_before AS nothing_charged FROM dpobj.ledger WHERE relation = 'regress_aq.t';
RESET ROLE;
-- a table without declarations
CREATE TABLE regress_aq.bare AS SELECT 1 AS x;
SELECT dpobj.protect('regress_aq.bare');
SELECT 1 FROM dpobj.grant_budget('regress_aq.bare', 'regress_aq_alice', 10, 0.001);
SET ROLE regress_aq_alice;
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_aq.bare', 1, 1e-6)$$);
RESET ROLE;
DROP SCHEMA regress_aq CASCADE;
DROP ROLE regress_aq_alice;
