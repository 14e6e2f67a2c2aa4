-- dpobj.max_state_memory: a dp_logistic or dp_noisysgd state whose distinct
-- rows outgrow the cap spills them to temporary files, and the final
-- function reads its design in blocks.  Under the same seed the released
-- model is exactly the one of the state that stayed in memory: serial or
-- parallel, whatever the cap.
CREATE TABLE regress_spill (i int, x float8[], y boolean);
INSERT INTO regress_spill
SELECT i, ARRAY[sin(i * 0.37), cos(i * 0.11), ((i * 7919) % 1000) / 1000.0 - 0.5]::float8[],
       (sin(i * 0.37) + 0.5 * cos(i * 0.11) + ((i * 31) % 7) / 7.0 - 0.4) > 0
  FROM generate_series(1, 6000) i;
-- repeated rows, so that counts above 1 meet across runs
INSERT INTO regress_spill SELECT i + 6000, x, y FROM regress_spill WHERE i % 3 = 0;
ANALYZE regress_spill;

SELECT count(DISTINCT x) AS distinct_rows FROM regress_spill;

-- the setting: kB, superuser only
SHOW dpobj.max_state_memory;
SELECT setting, unit, context, min_val FROM pg_settings WHERE name = 'dpobj.max_state_memory';
CREATE ROLE regress_spill_analyst;
SET ROLE regress_spill_analyst;
SET dpobj.max_state_memory = '64kB';
RESET ROLE;
DROP ROLE regress_spill_analyst;

-- scalar subqueries: under a forced parallel plan each aggregate gets its own
-- Gather below its final function (sql/parallel.sql); a view, not a SQL function,
-- whose queries PostgreSQL 18 no longer runs in parallel
CREATE VIEW regress_spill_models AS
SELECT 'objective' AS k, (SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') FROM regress_spill) AS m
UNION ALL
SELECT 'output', (SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "method": "output", "lambda": 5}') FROM regress_spill)
UNION ALL
SELECT 'cms_huber', (SELECT dpobj.dp_logistic(x, y, 2, 1e-6, '{"R": 1, "method": "cms", "loss": "huber", "h": 0.25, "intercept": false}') FROM regress_spill)
UNION ALL
SELECT 'objective_private_r', (SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": "private", "R_quantile": 0.5}') FROM regress_spill)
UNION ALL
SELECT 'noisysgd', (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "T": 200}') FROM regress_spill)
UNION ALL
SELECT 'noisysgd_n', (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "T": 200, "n": 8000}') FROM regress_spill)
UNION ALL
SELECT 'noisysgd_private_r', (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": "private", "R_quantile": 0.5, "T": 200}') FROM regress_spill);

SET dpobj.seed = 7;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE in_memory AS SELECT * FROM regress_spill_models;

-- 64 kB holds 1024 rows of d = 3: the 6000 distinct rows spill in runs
SET dpobj.max_state_memory = '64kB';
SELECT pg_stat_force_next_flush();
CREATE TEMP TABLE temp_before AS
SELECT temp_files FROM pg_stat_database WHERE datname = current_database();
CREATE TEMP TABLE spilled AS SELECT * FROM regress_spill_models;
SELECT pg_stat_force_next_flush();
SELECT 1 AS flushed;
SELECT d.temp_files > b.temp_files AS spilled_to_files
  FROM pg_stat_database d, temp_before b WHERE d.datname = current_database();

-- a parallel plan under the cap: a worker's state leaves its process as
-- the uniform sample of the K rows its cap holds (208 at 64kB and d = 3:
-- (3C/4) / (24 + 3 (8d + 32) + 8d + 20), sql/sample.sql), so its flat form
-- is bounded; the workers spill, then sample from their runs, and the
-- leader keeps the bottom K of their samples: the model says so
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CALL regress.force_parallel('on');
EXPLAIN (COSTS OFF) SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') FROM regress_spill;
CREATE TEMP TABLE spilled_parallel AS SELECT * FROM regress_spill_models;
-- at the default cap every part is within K and ships whole: the same model
RESET dpobj.max_state_memory;
CREATE TEMP TABLE memory_parallel AS SELECT * FROM regress_spill_models;
CALL regress.force_parallel('off');
SET max_parallel_workers_per_gather = 0;

-- serial: exactly the same models in memory and spilled, and in parallel
-- within K; past K a sample of K rows
SELECT a.k, (a.m)::text = (b.m)::text AS same_spilled,
       (a.m)::text = (p.m)::text AS same_parallel,
       (p.m).params ? 'sample_rows' AS parallel_sampled,
       (c.m).params->>'sample_rows' AS parallel_64kb_sample_rows,
       array_length((a.m).weights, 1) AS d, array_length((c.m).weights, 1) AS d_64kb
  FROM in_memory a JOIN spilled b USING (k) JOIN spilled_parallel c USING (k)
  JOIN memory_parallel p USING (k)
 ORDER BY a.k;

-- one more row that is new: still the same model as in memory
INSERT INTO regress_spill VALUES (10000, ARRAY[0.125, -0.25, 0.375], true);
CREATE TEMP TABLE in_memory2 AS SELECT * FROM regress_spill_models;
SET dpobj.max_state_memory = '64kB';
CREATE TEMP TABLE spilled2 AS SELECT * FROM regress_spill_models;
RESET dpobj.max_state_memory;
SELECT a.k, (a.m)::text = (b.m)::text AS same_spilled,
       (a.m)::text = (c.m)::text AS same_as_before
  FROM in_memory2 a JOIN spilled2 b USING (k) JOIN in_memory c USING (k)
 ORDER BY a.k;

-- a state that stays in memory (1000 rows of d = 3 take 57 kB) but whose
-- design is larger than a quarter of the cap: built block by block from
-- the state's own arrays, the same model again
CREATE TEMP TABLE small AS SELECT * FROM regress_spill WHERE i <= 1000;
CREATE FUNCTION regress_small_models() RETURNS TABLE (k text, m dpobj.model)
LANGUAGE sql AS $$
SELECT 'objective', (SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') FROM small)
UNION ALL
SELECT 'objective_private_r', (SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": "private", "R_quantile": 0.5}') FROM small)
UNION ALL
SELECT 'noisysgd', (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "T": 200}') FROM small)
UNION ALL
SELECT 'noisysgd_private_r', (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": "private", "R_quantile": 0.5, "T": 200}') FROM small)
$$;
CREATE TEMP TABLE small_whole AS SELECT * FROM regress_small_models();
SET dpobj.max_state_memory = '64kB';
SELECT pg_stat_force_next_flush();
CREATE TEMP TABLE small_before AS
SELECT temp_files FROM pg_stat_database WHERE datname = current_database();
CREATE TEMP TABLE small_blocks AS SELECT * FROM regress_small_models();
SELECT pg_stat_force_next_flush();
SELECT 1 AS flushed;
RESET dpobj.max_state_memory;
SELECT a.k, (a.m)::text = (b.m)::text AS same_in_blocks
  FROM small_whole a JOIN small_blocks b USING (k) ORDER BY a.k;
SELECT d.temp_files = b.temp_files AS stayed_in_memory
  FROM pg_stat_database d, small_before b WHERE d.datname = current_database();
DROP FUNCTION regress_small_models();

RESET dpobj.seed;

-- the flat form, through an aggregate that returns the state itself: within
-- K every row (flags, byte 5: 0); a state that spilled is flattened as the
-- sample of K rows its cap holds (flags 1, K in bytes 25-32, K rows with
-- their keys), so that no flat form grows with the table
CREATE AGGREGATE regress_glm_state(float8[], boolean, float8, float8, jsonb) (
    SFUNC = dpobj.dp_logistic_transfn, STYPE = dpobj.glm_state);
CREATE FUNCTION regress_flat_k(s text, OUT flags int, OUT k bigint, OUT nrows bigint)
LANGUAGE sql AS $$
SELECT get_byte(b, 5), ('x' || encode(substring(b from 25 for 8), 'hex'))::bit(64)::bigint,
       ('x' || encode(substring(b from 37 + get_byte(b, 35) for 4), 'hex'))::bit(32)::bigint
  FROM decode(s, 'base64') b $$;
CREATE TEMP TABLE flat_memory AS
SELECT regress_glm_state(x, y, 1, 1e-6, '{"R": 1}')::text AS s FROM regress_spill;
SET dpobj.max_state_memory = '64kB';
CREATE TEMP TABLE flat_spilled AS
SELECT regress_glm_state(x, y, 1, 1e-6, '{"R": 1}')::text AS s FROM regress_spill;
RESET dpobj.max_state_memory;
SELECT 'memory' AS state, f.flags, f.k > 6001 AS k_holds_all, f.nrows = 6001 AS every_row,
       length(s) > 100000 AS large
  FROM flat_memory, regress_flat_k(s) f
UNION ALL
SELECT 'spilled', f.flags, f.k > 6001, f.nrows BETWEEN 150 AND f.k, length(s) > 100000
  FROM flat_spilled, regress_flat_k(s) f;
SELECT f.k AS spilled_k FROM flat_spilled, regress_flat_k(s) f;
-- and it reads back (text input) into the same state
SELECT (a.s::dpobj.glm_state)::text = a.s AS round_trip,
       (b.s::dpobj.glm_state)::text = b.s AS round_trip_sample
  FROM flat_memory a, flat_spilled b;
DROP AGGREGATE regress_glm_state(float8[], boolean, float8, float8, jsonb);
DROP FUNCTION regress_flat_k(text);

-- the cap's edge: 64kB holds the table of 512 rows of d = 10 (512 x 112
-- bytes), not of 1024, so 512 distinct rows stay in memory and 513 spill
CREATE TABLE regress_spill_edge (x float8[], y boolean);
INSERT INTO regress_spill_edge
SELECT array_agg(((g * 7 + j * 13) % 101) / 100.0 - 0.5 + g * 1e-4 ORDER BY j), g % 3 = 0
  FROM generate_series(1, 513) g, generate_series(1, 10) j GROUP BY g;
CREATE FUNCTION regress_temp_files() RETURNS bigint LANGUAGE sql AS
$$ SELECT temp_files FROM pg_stat_database WHERE datname = current_database() $$;
SET dpobj.max_state_memory = '64kB';
SET dpobj.seed = 3;
SELECT pg_stat_force_next_flush();
CREATE TEMP TABLE edge AS SELECT regress_temp_files() AS before,
  (SELECT (dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}')).weights IS NOT NULL
     FROM (SELECT * FROM regress_spill_edge ORDER BY x LIMIT 512) t) AS released;
SELECT pg_stat_force_next_flush();
SELECT 1 AS flushed;
SELECT regress_temp_files() = before AS in_memory_at_512, released FROM edge;
DROP TABLE edge;
SELECT pg_stat_force_next_flush();
CREATE TEMP TABLE edge AS SELECT regress_temp_files() AS before,
  (SELECT (dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}')).weights IS NOT NULL
     FROM regress_spill_edge) AS released;
SELECT pg_stat_force_next_flush();
SELECT 1 AS flushed;
SELECT regress_temp_files() > before AS spilled_at_513, released FROM edge;
RESET dpobj.seed;
RESET dpobj.max_state_memory;
DROP FUNCTION regress_temp_files();
DROP TABLE regress_spill_edge;

DROP VIEW regress_spill_models;
DROP TABLE regress_spill;
