-- Parallel aggregation of dp_halfspace.  Workers compute partial
-- states (transition + serialise), the leader deserialises and combines
-- them, the final function draws the noise once.  Under the same seed a
-- forced-parallel plan gives exactly the model of a serial plan.
CREATE TABLE regress_par (i int, f float8[], y boolean);
INSERT INTO regress_par
SELECT i, ARRAY[(i % 7) / 4.0 - 0.75, (i % 5) / 4.0 - 0.5, (i % 11) / 8.0 - 0.6,
                ((i * 7919) % 13) / 8.0 - 0.8]::float8[],
       ((i % 7) > 3) <> (i % 17 = 0)
  FROM generate_series(1, 50000) i;
ANALYZE regress_par;

-- the support functions and the aggregates' parallel markings
SELECT a.aggfnoid::regprocedure, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn,
       p.proparallel
  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
 WHERE a.aggfnoid::regproc::text = 'dpobj.dp_halfspace'
 ORDER BY 1::text;

-- serial plan
SET dpobj.seed = 42;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT dpobj.dp_halfspace(f, y, 1.0, 1e-6) FROM regress_par;
CREATE TEMP TABLE serial_models AS
SELECT 1 AS k, dpobj.dp_halfspace(f, y, 1.0, 1e-6) AS m FROM regress_par
UNION ALL
SELECT 2, dpobj.dp_halfspace(f, y, 0.5, 1e-7, '{"B": 2, "D2": 6}') FROM regress_par;

-- forced-parallel plan: Partial Aggregate in the workers, Finalize in the leader
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CALL regress.force_parallel('on');
EXPLAIN (COSTS OFF) SELECT dpobj.dp_halfspace(f, y, 1.0, 1e-6) FROM regress_par;
EXPLAIN (COSTS OFF) SELECT dpobj.dp_halfspace(f, y, 0.5, 1e-7, '{"B": 2, "D2": 6}') FROM regress_par;
CREATE TEMP TABLE parallel_models AS
SELECT 1 AS k, (SELECT dpobj.dp_halfspace(f, y, 1.0, 1e-6) FROM regress_par) AS m
UNION ALL
SELECT 2, (SELECT dpobj.dp_halfspace(f, y, 0.5, 1e-7, '{"B": 2, "D2": 6}') FROM regress_par);

-- exactly the same models (weights, parameters, sigma)
SELECT s.k, (s.m).weights AS weights, (s.m)::text = (p.m)::text AS identical
  FROM serial_models s JOIN parallel_models p USING (k) ORDER BY s.k;

-- one ledger row per run, parallel or not (noise drawn once, in the leader)
SELECT count(*) AS runs, count(*) FILTER (WHERE outcome = 'released') AS released
  FROM dpobj.ledger WHERE relation = 'public.regress_par';

-- GROUP BY: one partial state per group and worker, combined per group
SELECT g, (dpobj.dp_halfspace(f, y, 1.0, 1e-6)).weights
  FROM (SELECT i % 2 AS g, f, y FROM regress_par) t GROUP BY g ORDER BY g;
CALL regress.force_parallel('off');
SET max_parallel_workers_per_gather = 0;
SELECT g, (dpobj.dp_halfspace(f, y, 1.0, 1e-6)).weights
  FROM (SELECT i % 2 AS g, f, y FROM regress_par) t GROUP BY g ORDER BY g;

-- combining loses nothing: 20000 rows favour w = +1, the 30000 after them
-- w = -1; any partial state alone (the first blocks) would give +1
CREATE TABLE regress_par_split AS
SELECT i, ARRAY[CASE WHEN i <= 20000 THEN 0.5 ELSE -0.5 END]::float8[] AS f, true AS y
  FROM generate_series(1, 50000) i;
ANALYZE regress_par_split;
SET max_parallel_workers_per_gather = 2;
CALL regress.force_parallel('on');
EXPLAIN (COSTS OFF) SELECT dpobj.dp_halfspace(f, y, 1.0, 1e-6) FROM regress_par_split;
SELECT (dpobj.dp_halfspace(f, y, 1.0, 1e-6)).weights AS parallel_all_rows FROM regress_par_split;
SELECT (dpobj.dp_halfspace(f, y, 1.0, 1e-6)).weights AS first_rows_only
  FROM regress_par_split WHERE i <= 25000;

-- under one seed, 20 runs alternating serial and parallel plans release one
-- model per aggregate: a state is a function of the multiset of its rows
-- (counts added, rows in canonical order, integer sums), whichever rows each
-- participant read.  200 000 rows of 58 180 distinct (features, label):
-- below K, so no sample (SCALING.md, "Memory bound"); with "sample_rows"
-- 100 000 the states keep every distinct row and the final function draws
-- the sample, in canonical order
CALL regress.force_parallel('off');
SELECT coalesce(max(id), 0) AS ledger_before FROM dpobj.ledger \gset
CREATE TABLE regress_par_seed AS
SELECT i, ARRAY[((i * 7919) % 201) / 100.0 - 1, ((i::bigint * 104729) % 199) / 100.0 - 1]::float8[] AS f,
       (((i * 7919) % 201) / 100.0 + ((i::bigint * 104729) % 199) / 200.0 > 1.4) <> (i % 11 = 0) AS y,
       (((i * 7919) % 201) + ((i * 13) % 50)) / 300.0 AS t
  FROM generate_series(1, 200000) i;
ANALYZE regress_par_seed;
SELECT count(*) AS rows, count(DISTINCT (f, y)) AS distinct_rows FROM regress_par_seed;
SET dpobj.seed = 5;
-- every model of one run, as text (weights, bias, parameters)
CREATE FUNCTION pg_temp.seed_models() RETURNS text LANGUAGE plpgsql AS $f$
DECLARE m text;
BEGIN
  EXECUTE $q$SELECT concat_ws(' | ', dpobj.dp_halfspace(f, y, 1, 1e-6), dpobj.dp_halfspace_rspm(f, y, 1, 1e-6),
      dpobj.dp_expmech(f, y, 1, 1e-6), dpobj.dp_logistic(f, y, 1, 1e-6, '{"R": 2}'),
      dpobj.dp_noisysgd(f, y, 1, 1e-6, '{"R": 2}'),
      dpobj.dp_linear_regression(f, t, 1, 1e-6, '{"R": 2, "y_min": 0, "y_max": 1}'),
      dpobj.dp_passglm(f, y, 1, 1e-6, '{"R": 2}'),
      dpobj.dp_halfspace(f, y, 1, 1e-6, '{"sample_rows": 100000}'),
      dpobj.dp_logistic(f, y, 1, 1e-6, '{"R": 2, "sample_rows": 100000}'),
      dpobj.dp_evaluate(f, y, 1, 1e-6, jsonb_build_object('model',
          ROW('opdisc', ARRAY[1, 0.5]::float8[], 0, 1, 1e-6, '{}')::dpobj.model::text)))
    FROM regress_par_seed$q$ INTO m;
  RETURN m;
END $f$;
-- the workers the same plan launched (EXPLAIN ANALYZE runs it)
CREATE FUNCTION pg_temp.seed_workers() RETURNS int LANGUAGE plpgsql AS $f$
DECLARE p json;
BEGIN
  EXECUTE $q$EXPLAIN (ANALYZE, FORMAT JSON) SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) FROM regress_par_seed$q$ INTO p;
  RETURN coalesce((p->0->'Plan'->'Plans'->0->>'Workers Launched')::int, 0);
END $f$;
CREATE TEMP TABLE seed_runs (run int, plan text, workers int, models text);
DO $$
DECLARE m text;
BEGIN
  FOR r IN 1..20 LOOP
    PERFORM set_config('max_parallel_workers_per_gather', CASE WHEN r % 2 = 0 THEN '2' ELSE '0' END, false);
    m := pg_temp.seed_models();
    INSERT INTO seed_runs VALUES (r, CASE WHEN r % 2 = 0 THEN 'parallel' ELSE 'serial' END,
                                  pg_temp.seed_workers(), m);
  END LOOP;
END $$;
SELECT plan, count(*) AS runs, bool_and(workers > 0) AS workers_launched,
       count(DISTINCT models) AS models
  FROM seed_runs GROUP BY plan ORDER BY plan;
SELECT count(DISTINCT models) AS models_in_20_runs FROM seed_runs;
DROP TABLE seed_runs;
-- dp_logistic without "sample_rows" at a 64kB cap: a worker ships its part as a
-- sample of the few hundred rows that cap holds; the 2 distinct rows of
-- regress_par_split fit, so every part ships exact and the parallel plan fits
-- every row, as the serial plan does (no "sample_rows" in the params)
SET dpobj.max_state_memory = '64kB';
CREATE FUNCTION pg_temp.split_logistic() RETURNS dpobj.model LANGUAGE plpgsql AS $f$
DECLARE m dpobj.model;
BEGIN
  EXECUTE $q$SELECT dpobj.dp_logistic(f, y, 1, 1e-6, '{"R": 1}') FROM regress_par_split$q$ INTO m;
  RETURN m;
END $f$;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE split_runs AS SELECT 'serial' AS plan, pg_temp.split_logistic() AS m;
SET max_parallel_workers_per_gather = 2;
INSERT INTO split_runs SELECT 'parallel', pg_temp.split_logistic();
SELECT plan, (m).params->>'sample_rows' AS sample_rows,
       (m)::text = (SELECT (m)::text FROM split_runs WHERE plan = 'serial') AS serial_model
  FROM split_runs ORDER BY plan;
DROP TABLE split_runs;
RESET dpobj.max_state_memory;
-- one ledger row per run, whatever the plan: 20 x 10 aggregates, 20 EXPLAIN
-- ANALYZE runs, 2 dp_logistic
SELECT count(*) AS ledger_rows FROM dpobj.ledger WHERE id > :ledger_before;
CALL regress.force_parallel('on');
SET dpobj.seed = 42;

-- errors found while combining are the row errors: options differ between
-- rows (terse: the error may come from a worker or from the leader)
\set VERBOSITY terse
SELECT dpobj.dp_halfspace(f, y, 1.0, 1e-6, CASE WHEN i > 40000 THEN '{"B": 2}' ELSE '{}' END::jsonb)
  FROM regress_par;
SELECT dpobj.dp_halfspace(f, y, CASE WHEN i > 40000 THEN 2.0 ELSE 1.0 END, 1e-6)
  FROM regress_par;
\set VERBOSITY default

-- the protected path: a parallel plan where train() allows one (linear regression's sums),
-- its workers dropping bad rows as the leader does (the "sealed" option); the others
-- serial whatever the settings; the same public parameters as a serial run, each run
-- charged once
CREATE ROLE regress_par_analyst;
-- bad rows spread over every block, so that every parallel participant meets some
CREATE TABLE regress_par_prot AS
SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE (i % 7) / 4.0 - 0.75 END AS a,
       CASE WHEN i % 89 = 0 THEN 'NaN' ELSE (i % 5) / 4.0 - 0.5 END::float8 AS b,
       CASE WHEN i % 83 = 0 THEN NULL ELSE (i % 7) > 3 END AS y,
       (i % 5) / 4.0 AS t
  FROM generate_series(1, 20000) i;
REVOKE ALL ON regress_par_prot FROM PUBLIC;
SELECT dpobj.protect('regress_par_prot');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_par_prot', 'regress_par_analyst', 20, 1e-4);
-- protected runs refuse dpobj.seed, so the two runs' noise differs: the same public
-- parameters (a parallel plan changes nothing the model's params show but its DP output)
RESET dpobj.seed;
CREATE TEMP TABLE prot_runs (k int, plan text, m dpobj.model);
-- the runs, each once with parallel settings and once serially
CREATE TEMP TABLE prot_specs (k int, mech text, label text, opts jsonb);
INSERT INTO prot_specs VALUES
  (1, 'opdisc', 'y', '{}'),
  (2, 'linear', 't', '{"R": 2, "y_min": 0, "y_max": 1}'),
  (3, 'logistic', 'y', '{"R": 2, "sample_rows": 500}'),
  (4, 'logistic', 'y', '{"R": 2}');
GRANT ALL ON prot_runs, prot_specs TO regress_par_analyst;
SET parallel_leader_participation = off;
SET ROLE regress_par_analyst;
INSERT INTO prot_runs
SELECT k, 'parallel', dpobj.train('regress_par_prot', mech, ARRAY['a', 'b'], label, 0.5, 1e-6, opts)
  FROM prot_specs ORDER BY k;
RESET ROLE;
CALL regress.force_parallel('off');
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 0;
SET ROLE regress_par_analyst;
INSERT INTO prot_runs
SELECT k, 'serial', dpobj.train('regress_par_prot', mech, ARRAY['a', 'b'], label, 0.5, 1e-6, opts)
  FROM prot_specs ORDER BY k;
RESET ROLE;
SELECT p.k, (p.m).mechanism, cardinality((p.m).weights) AS d,
       ((p.m).params - regress.dpout_params())::text = ((s.m).params - regress.dpout_params())::text
         AS same_params
  FROM prot_runs p JOIN prot_runs s ON s.k = p.k AND s.plan = 'serial'
 WHERE p.plan = 'parallel' ORDER BY p.k;
SELECT mechanism, outcome, count(*) FROM dpobj.ledger
 WHERE relation = 'public.regress_par_prot' GROUP BY 1, 2 ORDER BY 1, 2;
DROP TABLE prot_runs, prot_specs;

RESET dpobj.seed;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE regress_par, regress_par_prot, regress_par_split, regress_par_seed;
DROP ROLE regress_par_analyst;
