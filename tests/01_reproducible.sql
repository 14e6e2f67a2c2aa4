-- Reproducibility under dpobj.seed; fresh cryptographic noise without it.
BEGIN;
SELECT plan(5);

CREATE TEMP TABLE d6 AS
SELECT ARRAY[((i * 7) % 11) / 8.0 - 0.625, ((i * 3) % 13) / 8.0 - 0.75,
             ((i * 5) % 7) / 4.0 - 0.75, (i % 3) - 1, ((i * 11) % 17) / 16.0, 1]::float8[] AS f,
       ((i * 7) % 11) + ((i * 3) % 13) > 11 AS y
  FROM generate_series(1, 300) i;

SET dpobj.seed = 1234;
CREATE TEMP TABLE runs AS
SELECT s, (SELECT (dpobj.dp_halfspace(f, y, 0.5, 1e-6)).weights FROM d6 WHERE s > 0) AS w
  FROM generate_series(1, 3) s;
SELECT is((SELECT count(DISTINCT w) FROM runs), 1::bigint,
          'three runs (one per row: the subquery is correlated) with the same dpobj.seed release the same model');

SET dpobj.seed = 4321;
SELECT isnt((SELECT (dpobj.dp_halfspace(f, y, 0.05, 1e-6)).weights FROM d6),
            (SELECT w FROM runs LIMIT 1),
            'another seed at small epsilon gives another model (noise dominates)');

-- the seed is applied per run: the same statement twice gives the same result
SET dpobj.seed = 99;
SELECT is((SELECT (dpobj.dp_halfspace(f, y, 0.05, 1e-6)).weights FROM d6),
          (SELECT (dpobj.dp_halfspace(f, y, 0.05, 1e-6)).weights FROM d6),
          'dpobj.seed = 99 twice: identical weights');

-- without a seed every run draws fresh noise from pg_strong_random():
-- at epsilon = 0.01 the argmin is essentially a random grid point.  (Measured: 400
-- unseeded runs gave 324 distinct models, none more than 4 times: no model has
-- probability above 0.04 (Clopper-Pearson, 99.9 %).  Sixteen runs show at most two
-- models with probability at most the sum over pairs of (p_i + p_j)^16 <= 0.08^15 (K - 1)
-- < 1e-13 for K <= 1000 models, while a missing or repeated noise draw shows one model.
-- Eight runs left that bound at 0.08^7 * 1000 = 2e-5.)
RESET dpobj.seed;
CREATE TEMP TABLE free_runs AS
SELECT s, (SELECT (dpobj.dp_halfspace(f, y, 0.01, 1e-6)).weights FROM d6 WHERE s > 0) AS w
  FROM generate_series(1, 16) s;
SELECT cmp_ok((SELECT count(DISTINCT w) FROM free_runs), '>=', 3::bigint,
              'sixteen unseeded runs at epsilon = 0.01 give at least three different models');

-- only a superuser can set the seed
CREATE ROLE dpobj_tap_nosuper;
SET ROLE dpobj_tap_nosuper;
SELECT throws_ok($$SET dpobj.seed = 5$$, '42501', NULL,
                 'an ordinary role cannot set dpobj.seed');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
