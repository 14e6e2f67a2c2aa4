-- What dpobj.aggregate() and describe() print (src/protected/aggrows.c, docs/PRIVACY.md
-- "Post-processing"): quantile intervals a tenth of the range on a 50 000-row table at
-- describe's default split, counts and their intervals at or above 0, a boolean's rate
-- within [0, 1], a value on a histogram edge in the bin above it in every path, floats
-- to 15 significant digits, and describe's NOTICE of its split.
CREATE SCHEMA regress_ac;
CREATE ROLE regress_ac_alice;

-- describe()'s default on 7 declared columns (3 numeric): 11 statistics at epsilon 0.25,
-- as a direct, seeded dp_aggregate_cols with the layout describe() builds (count, then
-- per column by name its histogram and a numeric column's quartiles over 64 leaves, share 1
-- each);
-- age uniform on its declared [18, 80]: each quartile's interval <= 10 % of the range
CREATE TABLE regress_ac.big AS
SELECT i, (18 + 62 * (((i::bigint * 7919) % 50000) + 0.5) / 50000)::float8 AS age,
       (100 * (((i::bigint * 104729) % 50000) + 0.5) / 50000)::float8 AS hours, ((i * 31) % 1000)::float8 AS income,
       (ARRAY['x', 'y', 'z'])[1 + i % 3] AS edu, (ARRAY['a', 'b'])[1 + i % 2] AS race,
       (ARRAY['n', 's'])[1 + i % 5 % 2] AS region, (ARRAY['F', 'M'])[1 + i % 7 % 2] AS sex
  FROM generate_series(1, 50000) i;
SELECT '{"encoding": [{"column": "age", "lo": 18, "hi": 80}, {"column": "edu", "levels": ["x", "y", "z"]},
          {"column": "hours", "lo": 0, "hi": 100}, {"column": "income", "lo": 0, "hi": 1000},
          {"column": "race", "levels": ["a", "b"]}, {"column": "region", "levels": ["n", "s"]},
          {"column": "sex", "levels": ["F", "M"]}], "group_by": [],
        "what": [{"stat": "count"},
          {"stat": "histogram", "column": "age", "bins": 10}, {"stat": "quantile", "column": "age", "q": [0.25, 0.5, 0.75], "bins": 64},
          {"stat": "histogram", "column": "edu"},
          {"stat": "histogram", "column": "hours", "bins": 10}, {"stat": "quantile", "column": "hours", "q": [0.25, 0.5, 0.75], "bins": 64},
          {"stat": "histogram", "column": "income", "bins": 10}, {"stat": "quantile", "column": "income", "q": [0.25, 0.5, 0.75], "bins": 64},
          {"stat": "histogram", "column": "race"}, {"stat": "histogram", "column": "region"},
          {"stat": "histogram", "column": "sex"}]}' AS spec \gset
SET dpobj.seed = 1;
SELECT jsonb_build_object('layout', :'spec'::jsonb) AS spec_opts \gset
CREATE TEMP TABLE spec_release AS
SELECT dpobj.dp_aggregate_cols(true, 0.25, 0, :'spec_opts', age, edu, hours, income,
                               race, region, sex) AS r
  FROM regress_ac.big;
RESET dpobj.seed;
-- the true quartiles: rank ceil(q n)'s age
SELECT q.statistic, round(((q.ci_high - q.ci_low) / 62)::numeric, 3) AS width_share,
       (q.ci_high - q.ci_low) / 62 <= 0.10 AS within_tenth,
       q.ci_low <= t.age AND t.age <= q.ci_high AS covers
  FROM spec_release, dpobj.aggregate_rows(:'spec', r) q,
       LATERAL (SELECT age FROM regress_ac.big ORDER BY age
                 OFFSET ceil(substring(q.statistic FROM '[0-9.]+')::float8 * 50000) - 1 LIMIT 1) t
 WHERE q.column_name = 'age' AND q.statistic LIKE 'quantile%' ORDER BY 1;
-- the count's +- 264 in the split (scale 88), as describe's NOTICE says below
SELECT ci_high - estimate AS count_half_width FROM spec_release, dpobj.aggregate_rows(:'spec', r)
 WHERE statistic = 'count';

-- a table with values on histogram edges, an empty group and a boolean
CREATE TABLE regress_ac.t AS
SELECT i, (ARRAY[0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100])[1 + i % 11]::float8 AS v,
       (ARRAY[24.2, 30.4, 42.8, 49, 67.6])[1 + i % 5]::float8 AS w,
       CASE WHEN i % 2 = 0 THEN 'F' ELSE 'M' END AS sex, i % 3 = 0 AS flag, 'k' AS key
  FROM generate_series(1, 110) i;
SELECT dpobj.declare_domain('regress_ac.t', 'v', 0, 100);
SELECT dpobj.declare_domain('regress_ac.t', 'w', 18, 80);
SELECT dpobj.declare_domain('regress_ac.t', 'sex', ARRAY['F', 'M']);
SELECT dpobj.protect('regress_ac.t');
SELECT 1 FROM dpobj.grant_budget('regress_ac.t', 'regress_ac_alice', 1e9, 0.5);
GRANT USAGE ON SCHEMA regress_ac TO regress_ac_alice;
-- the bins every value must land in: [e_k, e_(k+1)), the last closed (v = 100 in [90, 100])
CREATE TEMP TABLE want AS
SELECT 'v' AS col, k, CASE WHEN k < 9 THEN 10 ELSE 20 END AS n FROM generate_series(0, 9) k
UNION ALL
SELECT 'w', k, CASE WHEN k IN (1, 2, 4, 5, 8) THEN 22 ELSE 0 END FROM generate_series(0, 9) k;
GRANT SELECT ON want TO regress_ac_alice;

-- the direct aggregate, serial and in parallel workers (epsilon 1e5: no noise)
SELECT '{"encoding": [{"column": "v", "lo": 0, "hi": 100}, {"column": "w", "lo": 18, "hi": 80}], "group_by": [],
        "what": [{"stat": "histogram", "column": "v", "bins": 10}, {"stat": "histogram", "column": "w", "bins": 10}]}' AS layout \gset
CREATE TEMP TABLE edges_direct AS
SELECT 'serial' AS path, r.group_values, r.estimate
  FROM (SELECT dpobj.dp_aggregate_cols(true, 1e5, 0, jsonb_build_object('layout', :'layout'::jsonb), v, w) AS rel
          FROM regress_ac.t) s, dpobj.aggregate_rows(:'layout', rel) r;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CALL regress.force_parallel('on');
EXPLAIN (COSTS OFF) SELECT dpobj.dp_aggregate_cols(true, 1e5, 0, jsonb_build_object('layout', :'layout'::jsonb), v, w)
  FROM regress_ac.t;
CREATE TEMP TABLE edges_parallel AS
SELECT dpobj.dp_aggregate_cols(true, 1e5, 0, jsonb_build_object('layout', :'layout'::jsonb), v, w) AS rel
  FROM regress_ac.t;
CALL regress.force_parallel('off');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
INSERT INTO edges_direct
SELECT 'parallel', r.group_values, r.estimate FROM edges_parallel, dpobj.aggregate_rows(:'layout', rel) r;
-- the protected paths: aggregate(), describe(), aggregate() by a key without levels
SET ROLE regress_ac_alice;
CREATE TEMP TABLE edges_runs AS
SELECT 'aggregate' AS path, group_values, estimate
  FROM dpobj.aggregate('regress_ac.t', '[{"stat": "histogram", "column": "v"}, {"stat": "histogram", "column": "w"}]', 1e5)
UNION ALL
SELECT 'describe', group_values, estimate
  FROM dpobj.describe('regress_ac.t', 1e5, 0, '{"columns": ["v", "w"]}') WHERE statistic = 'histogram'
UNION ALL
SELECT 'keys', group_values - 'key', estimate
  FROM dpobj.aggregate('regress_ac.t', '[{"stat": "histogram", "column": "v"}, {"stat": "histogram", "column": "w"}]', 1e5,
                       0.1, ARRAY['key']) WHERE statistic = 'histogram';
RESET ROLE;
INSERT INTO edges_runs SELECT * FROM edges_direct;
SELECT path, count(*) AS bins,
       bool_and(round(e.estimate) = w.n) AS every_bin_as_documented
  FROM edges_runs e
  JOIN want w ON e.group_values ? w.col
             AND (e.group_values->w.col->>0)::float8 = (CASE w.col WHEN 'v' THEN 0 ELSE 18 END)
                                                        + w.k * (CASE w.col WHEN 'v' THEN 10 ELSE 6.2 END)
 GROUP BY path ORDER BY path;
SELECT group_values FROM edges_runs WHERE path = 'aggregate' AND group_values ? 'w' ORDER BY 1;

SET ROLE regress_ac_alice;
-- counts, histogram bins and a non-negative column's sum: at or above 0 with their
-- intervals, in the empty group (sex "other") of 20 runs at epsilon 0.5; a boolean's rate
-- and its interval within [0, 1], its variance within [0, 1/4]
CREATE TEMP TABLE clean AS
SELECT g, r.*
  FROM generate_series(1, 20) g,
       dpobj.aggregate('regress_ac.t', '[{"stat": "count"}, {"stat": "sum", "column": "v"}, {"stat": "mean", "column": "flag"},
                       {"stat": "variance", "column": "flag"}, {"stat": "histogram", "column": "v", "bins": 2}]',
                       0.5 + 0 * g, 0, ARRAY['sex']) r;
SELECT statistic, count(*) AS rows,
       bool_and(coalesce(estimate >= 0, true) AND ci_low >= 0 AND ci_high >= 0 AND ci_low <= ci_high) AS at_or_above_0,
       bool_and(coalesce(estimate <= 1, true) AND ci_high <= 1) FILTER (WHERE statistic = 'mean') AS rate_at_most_1,
       bool_and(ci_high <= 0.25) FILTER (WHERE statistic = 'variance') AS variance_at_most_quarter
  FROM clean WHERE group_values->>'sex' IS NULL GROUP BY 1 ORDER BY 1;
SELECT count(*) FILTER (WHERE ci_low < 0) AS negative_bounds_anywhere FROM clean;

-- floats to 15 significant digits: quantile ends on edges as declared bounds print them
-- (no 61.089999999999996), means and variances too
SELECT count(*) AS rows,
       bool_and(length(regexp_replace(split_part(x::text, 'e', 1), '[^0-9]', '', 'g')) <= 15) AS short
  FROM dpobj.aggregate('regress_ac.t', '[{"stat": "quantile", "column": "w", "q": [0.1, 0.5, 0.9], "bins": 997},
                       {"stat": "mean", "column": "w"}, {"stat": "variance", "column": "w"}]', 1) r,
       LATERAL unnest(ARRAY[r.estimate, r.ci_low, r.ci_high]) x;

-- describe() says what its split costs and how to narrow it (a count alone at the full
-- epsilon is +- 6 at epsilon 1: scale 2)
SELECT count(*) AS rows FROM dpobj.describe('regress_ac.t', 1);
SELECT count(*) AS rows FROM dpobj.describe('regress_ac.t', 1, options => '{"columns": ["sex"]}');
RESET ROLE;

-- aggregate_rows() checks the release against the layout
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_rows('{"encoding": [{"column": "v", "lo": 0, "hi": 1}], "group_by": [], "what": [{"stat": "count"}]}', '{"values": [1, 2], "noise": [[2, 1]]}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_rows('{"encoding": [{"column": "v", "lo": 0, "hi": 1}], "group_by": [], "what": [{"stat": "count"}]}', '[]')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_rows('{"encoding": [{"column": "v", "lo": 0, "hi": 1}], "group_by": [], "what": [{"stat": "count"}]}', '{"values": [1], "noise": [[0, 1]]}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_rows('{"encoding": [{"column": "v", "lo": 0, "hi": 1}], "group_by": [], "what": [{"stat": "count"}]}', '{"values": [1.5], "noise": [[2, 1]]}')$$);
SELECT * FROM dpobj.aggregate_rows('{"encoding": [{"column": "v", "lo": 0, "hi": 1}], "group_by": [], "what": [{"stat": "count"}]}', '{"values": [-3], "noise": [[2, 1]]}');
-- forged layouts: "sample" only true or false on a variance, a count's column declared
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_rows('{"encoding": [{"column": "v", "lo": 0, "hi": 1}], "group_by": [], "what": [{"stat": "variance", "column": "v", "sample": 1}]}', '{"values": [1, 1, 1], "noise": [[65536, 65536], [65536, 65536], [2097152, 1048576]]}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_rows('{"encoding": [{"column": "v", "lo": 0, "hi": 1}], "group_by": [], "what": [{"stat": "sum", "column": "v", "sample": false}]}', '{"values": [1], "noise": [[65536, 65536]]}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_rows('{"encoding": [{"column": "v", "lo": 0, "hi": 1}], "group_by": [], "what": [{"stat": "count", "column": "w"}]}', '{"values": [1], "noise": [[2097152, 1048576]]}')$$);
-- a sample variance: none at a noisy count of 1 (its interval's top twice the population
-- one's), the population one times C / (C - 1) above (values: lattice Q, S, C)
SELECT l.sample, r.column_name, r.estimate, r.ci_low, r.ci_high
  FROM (VALUES (false), (true)) l(sample), LATERAL (VALUES (1), (2)) c(n),
       dpobj.aggregate_rows(jsonb_build_object('encoding', '[{"column": "v", "lo": 0, "hi": 1}]'::jsonb, 'group_by', '[]'::jsonb,
                            'what', jsonb_build_array(jsonb_build_object('stat', 'variance', 'column', 'v', 'sample', l.sample))),
                            jsonb_build_object('values', jsonb_build_array(8192 * c.n, 16384, c.n),
                                               'noise', '[[65536, 65536], [65536, 65536], [2097152, 1048576]]'::jsonb)) r
 ORDER BY c.n, l.sample;
DROP TABLE edges_runs, clean, want;
DROP SCHEMA regress_ac CASCADE;
DROP ROLE regress_ac_alice;
