-- The twin's mean of a skewed numeric column (dpobj.synthesize()): values are drawn within
-- each sub-bin around its measured mean offset (the sub-bins' offset sums), not uniformly.
-- amt is 0 on 95 % of the rows and 500..599 on the rest (mean 27.475), declared [0, 1000]: its 64
-- sub-bins are 15.625 wide, so a uniform draw within the first would add about 7.4 to the
-- mean.  At epsilon 30 with 2 columns a sub-bin's count and offset sum have sd about 1.5
-- (rows; widths): the model's error on the mean is about 0.3 and the draw's about 0.1, so
-- the twin's mean lies within 2.5 of the truth but for odds below 1e-9, and a
-- uniform draw misses it.  Every value stays within [0, 1000], whole for an integer column.
CREATE SCHEMA regress_sm;
CREATE TABLE regress_sm.t (g text NOT NULL, amt numeric(10, 2) NOT NULL, n int NOT NULL);
INSERT INTO regress_sm.t
SELECT (ARRAY['a', 'b'])[1 + i % 2], CASE WHEN i % 20 = 0 THEN 500 + (i / 20) % 100 ELSE 0 END,
       CASE WHEN i % 20 = 0 THEN 500 + (i / 20) % 100 ELSE 0 END
  FROM generate_series(1, 4000) i;
SELECT dpobj.declare_domain('regress_sm.t', 'g', ARRAY['a', 'b'], true);
SELECT dpobj.declare_domain('regress_sm.t', 'amt', 0, 1000);
SELECT dpobj.declare_domain('regress_sm.t', 'n', 0, 1000);
SELECT dpobj.protect('regress_sm.t');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_sm.t', current_user::regrole, 1000, 0.01);
SELECT avg(amt) AS true_mean FROM regress_sm.t;
SELECT target_table FROM dpobj.synthesize('regress_sm.t', 'regress_sm.twin', 30, 1e-6, ARRAY['g', 'amt']);
SELECT abs(avg(amt) - 27.475) < 2.5 AS mean_within,
       count(*) FILTER (WHERE amt < 0 OR amt > 1000 OR amt <> round(amt, 2)) AS outside
  FROM regress_sm.twin;
-- the model holds each quantile column's offset sums and their variance, its points' counts
-- after them (version 4)
SELECT (params->>'synthesizer')::int AS version, c->>'kind' AS kind,
       jsonb_typeof(c->'sums_at') AS sums_at, (c->>'sums_sigma2')::float8 > 0 AS sums_sigma2
  FROM (SELECT (dpobj.get_model('twin')).*) m, jsonb_array_elements(m.params->'columns') c
 WHERE c->>'kind' = 'quantile';
-- an integer column: whole values, the same mean
SELECT target_table FROM dpobj.synthesize('regress_sm.t', 'regress_sm.twin_n', 30, 1e-6, ARRAY['g', 'n']);
SELECT abs(avg(n) - 27.475) < 2.5 AS mean_within,
       count(*) FILTER (WHERE n < 0 OR n > 1000) AS outside
  FROM regress_sm.twin_n;
SELECT count(*) AS dropped FROM unnest(ARRAY['twin', 'twin_n']) n WHERE dpobj.drop_model(n);
-- the offset sums leave a parallel worker with its state: a parallel plan's model (the direct
-- aggregate, seeded) is the serial plan's
CREATE TABLE regress_sm.p AS SELECT g, amt::float8 AS amt FROM regress_sm.t, generate_series(1, 5);
ANALYZE regress_sm.p;
CREATE TEMP TABLE pm (k text, m dpobj.model);
SET dpobj.seed = 5;
SET max_parallel_workers_per_gather = 0;
INSERT INTO pm SELECT 'serial', dpobj.dp_synthesize_cols(true, 1, 1e-6,
  '{"domains": [{"column": "g", "levels": ["a", "b"]}, {"column": "amt", "lo": 0, "hi": 1000}]}', g, amt)
  FROM regress_sm.p;
SET dpobj.seed = 5;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT dpobj.dp_synthesize_cols(true, 1, 1e-6,
  '{"domains": [{"column": "g", "levels": ["a", "b"]}, {"column": "amt", "lo": 0, "hi": 1000}]}', g, amt)
  FROM regress_sm.p;
INSERT INTO pm SELECT 'parallel', dpobj.dp_synthesize_cols(true, 1, 1e-6,
  '{"domains": [{"column": "g", "levels": ["a", "b"]}, {"column": "amt", "lo": 0, "hi": 1000}]}', g, amt)
  FROM regress_sm.p;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET dpobj.seed;
SELECT (a.m).weights = (b.m).weights AS same_weights, (a.m).params = (b.m).params AS same_params
  FROM pm a, pm b WHERE a.k = 'serial' AND b.k = 'parallel';
DROP TABLE pm;
-- points (core/synthdomain.h): x is exactly 0 on 40 % of the rows and past its declared hi
-- (clamped to 1100) on 20 %, the rest spread over [-500, 900).  At epsilon 30 a point's count
-- has sd about 2 rows, so the twin holds exact zeros and exact 1100s at their shares (binomial
-- sd 0.008 of 4 000 rows: within 0.05 but for odds below 1e-9); 0 lies inside its sub-bin
-- [-15.6, 17.2), where a draw is never exactly 0.  Every value stays within [-1000, 1100].
CREATE TABLE regress_sm.z AS
SELECT (ARRAY['a', 'b'])[1 + i % 2] AS g,
       CASE WHEN i % 5 < 2 THEN 0 WHEN i % 5 = 2 THEN 5000 ELSE -500 + (i * 7) % 1400 END::float8 AS x
  FROM generate_series(1, 4000) i;
SELECT dpobj.declare_domain('regress_sm.z', 'g', ARRAY['a', 'b'], true);
SELECT dpobj.declare_domain('regress_sm.z', 'x', -1000, 1100);
SELECT dpobj.protect('regress_sm.z');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_sm.z', current_user::regrole, 1000, 0.01);
SELECT target_table FROM dpobj.synthesize('regress_sm.z', 'regress_sm.twin_z', 30, 1e-6, ARRAY['g', 'x']);
SELECT abs(avg((x = 0)::int) - 0.4) < 0.05 AS zeros, abs(avg((x = 1100)::int) - 0.2) < 0.05 AS at_hi,
       count(*) FILTER (WHERE x < -1000 OR x > 1100) AS outside
  FROM regress_sm.twin_z;
-- the sub-bins' draws follow the offset sums' variance ("sums_sigma2"), never the points'
-- ("points_sigma2"): a copy whose points' variance is a quarter (every point still drawn:
-- its count stays above 2 sd) samples the same rows under one seed
CREATE TEMP TABLE zm AS SELECT model AS m, model AS q FROM dpobj.models WHERE name = 'twin_z';
UPDATE zm SET q.params = jsonb_set((m).params, '{columns,1,points_sigma2}',
  to_jsonb(((m).params->'columns'->1->>'points_sigma2')::float8 / 4));
SELECT ((m).params->'columns'->1->>'points_sigma2')::float8
       <> ((q).params->'columns'->1->>'points_sigma2')::float8 AS differ FROM zm;
SET dpobj.seed = 9;
CREATE TEMP TABLE zs AS SELECT 'm' AS k, s FROM zm, dpobj.sample((SELECT m FROM zm), 400) s;
SET dpobj.seed = 9;
INSERT INTO zs SELECT 'q', s FROM dpobj.sample((SELECT q FROM zm), 400) s;
RESET dpobj.seed;
SELECT (SELECT array_agg(s::text ORDER BY s::text) FROM zs WHERE k = 'm')
     = (SELECT array_agg(s::text ORDER BY s::text) FROM zs WHERE k = 'q') AS same_rows,
       (SELECT count(DISTINCT s::text) FROM zs) > 100 AS varied;
DROP TABLE zm, zs;
SELECT dpobj.drop_model('twin_z');
SELECT dpobj.unprotect('regress_sm.z');
SELECT dpobj.unprotect('regress_sm.t');
DROP SCHEMA regress_sm CASCADE;
