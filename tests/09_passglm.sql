-- One-pass logistic regression (dp_passglm) as properties (docs/PRIVACY.md
-- "One-pass logistic regression (passglm)"): in the large-epsilon limit it
-- classifies; exact sums make the release the same in parallel and serially and
-- whatever the row order; its noise is k times larger for k rows per unit; and it
-- is charged in zCDP, so a (1, 1e-6) budget admits as many runs at (0.1, 1e-7) as
-- noisy GD's, where approximate-DP charging would admit 10.  The charges are
-- committed by the ledger writer: nothing runs inside one transaction, and the end
-- of the file drops what it created.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS tap_pg CASCADE;
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpobj_tap_pg_bob') THEN DROP ROLE dpobj_tap_pg_bob; END IF;
END $$;
CREATE ROLE dpobj_tap_pg_bob;
CREATE SCHEMA tap_pg;
GRANT USAGE ON SCHEMA tap_pg TO PUBLIC;
-- 30000 rows: label = 0.8 a - 0.6 b + 0.1 > 0 with 10 % of the labels flipped
CREATE TABLE tap_pg.t AS
SELECT i, ((i::bigint * 7919) % 1000) / 1000.0 - 0.5 AS a, ((i::bigint * 104729) % 997) / 997.0 - 0.5 AS b,
       ((0.8 * (((i::bigint * 7919) % 1000) / 1000.0 - 0.5) - 0.6 * (((i::bigint * 104729) % 997) / 997.0 - 0.5)
         + 0.1 > 0) <> (i % 10 = 0)) AS y
  FROM generate_series(1, 30000) i;
ANALYZE tap_pg.t;
CREATE TABLE tap_pg.small AS SELECT * FROM tap_pg.t WHERE i <= 40;
REVOKE ALL ON tap_pg.small FROM PUBLIC;
SELECT dpobj.protect('tap_pg.small') \g /dev/null
SELECT dpobj.grant_budget('tap_pg.small', 'dpobj_tap_pg_bob', 1, 1e-6) \g /dev/null
RESET client_min_messages;

SELECT plan(9);

-- large epsilon: the noise is negligible and the model is the approximate minimiser;
-- "metric": "accuracy" keeps the cut-off at the margin's 0 (what accuracy measures)
SET dpobj.seed = 3;
CREATE TEMP TABLE big AS
SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1000, 1e-6, '{"R": 1, "metric": "accuracy"}') AS m FROM tap_pg.t;
SELECT cmp_ok((SELECT avg((dpobj.predict(m, ARRAY[a, b]::float8[]) = y)::int)::float8
                 FROM big, tap_pg.t), '>=', 0.88::float8,
              'large epsilon: accuracy near the 90 % the flipped labels allow');
SELECT ok((SELECT (m).weights[1] > 0 AND (m).weights[2] < 0 AND (m).bias > 0 FROM big),
          'large epsilon: the direction of the true separator');
-- the model is on the logistic scale: probability rises with the margin
SELECT ok((SELECT dpobj.probability(m, ARRAY[0.4, -0.4]::float8[]) > 0.8
                  AND dpobj.probability(m, ARRAY[-0.4, 0.4]::float8[]) < 0.2 FROM big),
          'probabilities on the logistic scale');

-- exact sums: the same seed gives the same model serially, in parallel, in any order
SET dpobj.seed = 5;
CREATE TEMP TABLE serial AS
SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{"R": 1}') AS m FROM tap_pg.t;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET dpobj.seed = 5;
CREATE TEMP TABLE par AS
SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{"R": 1}') AS m FROM tap_pg.t;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET dpobj.seed = 5;
CREATE TEMP TABLE rev AS
SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{"R": 1}' ORDER BY i DESC) AS m
  FROM tap_pg.t;
SELECT ok((SELECT s.m = p.m FROM serial s, par p), 'parallel and serial release the same model');
SELECT ok((SELECT s.m = r.m FROM serial s, rev r), 'row order does not change the release');
RESET dpobj.seed;

-- k rows per unit: every noise scale k times the row level's, nothing else changes
SELECT is((SELECT round((((m4).params->>'sigma_xx')::float8 / ((m1).params->>'sigma_xx')::float8)::numeric, 9)
             FROM (SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{"R": 1}') AS m1,
                          dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{"R": 1, "rows_per_unit": 4}') AS m4
                     FROM tap_pg.small) s),
          4.000000000::numeric, 'rows_per_unit 4: sigma_xx four times');

-- charged in zCDP: as many runs as noisy GD's (the same rho), not basic composition's 10
SET ROLE dpobj_tap_pg_bob;
SELECT is((SELECT dpobj.runs_left('tap_pg.small', 'passglm', 0.1, 1e-7, '{"R": 1}')),
          (SELECT dpobj.runs_left('tap_pg.small', 'noisysgd', 0.1, 1e-7, '{"R": 1}')),
          'runs_left: passglm counts as noisy GD does');
CREATE FUNCTION pg_temp.admitted() RETURNS int LANGUAGE plpgsql AS $$
DECLARE n int := 0;
BEGIN
  LOOP
    BEGIN
      PERFORM dpobj.train('tap_pg.small', 'passglm', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 1}');
      n := n + 1;
    EXCEPTION WHEN SQLSTATE 'DP004' THEN
      RETURN n;
    END;
    EXIT WHEN n > 200;
  END LOOP;
  RETURN n;
END $$;
SELECT is(pg_temp.admitted(), 102, 'a (1, 1e-6) budget admits 102 runs at (0.1, 1e-7), composed in Gaussian DP (basic composition: 10; zCDP: 95)');
RESET ROLE;
SELECT is((SELECT min(kind) || '/' || max(kind) FROM dpobj.ledger WHERE relation = 'tap_pg.small'),
          'gauss/gauss', 'every run recorded as gauss (discrete Gaussian releases)');

SELECT * FROM finish();
SET client_min_messages = warning;
DROP FUNCTION pg_temp.admitted();
SELECT dpobj.unprotect('tap_pg.small') \g /dev/null
DROP SCHEMA tap_pg CASCADE;
DROP ROLE dpobj_tap_pg_bob;
