-- The states whose final function needs every row in memory (the exact
-- oracle of dp_halfspace, dp_halfspace_rspm and dp_expmech; dp_opsamp,
-- dp_auto and the one-vs-rest kinds) keep a uniform sample of at most K
-- rows: K = the option "sample_rows" (halfspace kinds), or what
-- dpobj.max_state_memory holds.  Up to K distinct rows the state is every
-- row, as before (the final function draws K of them if they stand for
-- more); past K it holds exactly K rows, with their sample keys in its
-- flat form, so partial states merge into the sample of their union.  The
-- flat form also carries K, and states of different K merge at the smaller.
CREATE TABLE regress_sample (i int, x float8[], y boolean);
-- every row distinct: round(64 x) = (i + 63, 0), 5 bytes a row in a flat
-- form (words and counts as varints: 2 + 1 + 1 + 1)
INSERT INTO regress_sample SELECT i, ARRAY[(i + 63) / 64.0, 0]::float8[], i % 3 = 0
  FROM generate_series(1, 3000) i;
CREATE TABLE regress_sample_many (i int, x float8[], y boolean);
INSERT INTO regress_sample_many
SELECT i, ARRAY[sin(i * 0.37), cos(i * 0.11)]::float8[], sin(i * 0.37) + 0.3 * cos(i * 0.11) > 0.1
  FROM generate_series(1, 3000) i;
ANALYZE regress_sample;
ANALYZE regress_sample_many;

-- the state itself, through an aggregate without a final function
CREATE AGGREGATE regress_hs_state(float8[], boolean, float8, float8, jsonb) (
    SFUNC = dpobj.dp_halfspace_transfn, STYPE = dpobj.halfspace_state,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn, PARALLEL = SAFE);
-- flags (byte 5: 1 = rows carry keys) and the rows kept: the distinct rows
-- (the count after 36 header bytes -- K at bytes 24-31, the options' length
-- at 32-35 -- and the options' text), or, keyed, the keys (8 bytes each
-- after the rows)
CREATE FUNCTION regress_nrows(b bytea) RETURNS int LANGUAGE sql AS $$
SELECT ('x' || encode(substring(b from 37 + get_byte(b, 34) * 256 + get_byte(b, 35) for 4), 'hex'))::bit(32)::int $$;
CREATE FUNCTION regress_keys(b bytea) RETURNS int LANGUAGE sql AS $$
SELECT (octet_length(b) - 40 - get_byte(b, 34) * 256 - get_byte(b, 35) - 5 * regress_nrows(b)) / 8 $$;
CREATE FUNCTION regress_kept(opts jsonb, OUT flags int, OUT kept int)
LANGUAGE sql AS $$
SELECT get_byte(b, 5), CASE WHEN get_byte(b, 5) = 1 THEN regress_keys(b) ELSE regress_nrows(b) END
  FROM (SELECT decode(regress_hs_state(x, y, 1, 1e-6, opts)::text, 'base64') AS b
          FROM regress_sample) s $$;

-- validation: SQLSTATE, message, hint (regress.err, setup.sql)
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.dp_halfspace(x, y, 1, 1e-6, '{"sample_rows": 0}') FROM regress_sample$$),
  ($$SELECT dpobj.dp_halfspace(x, y, 1, 1e-6, '{"sample_rows": 1.5}') FROM regress_sample$$),
  ($$SELECT dpobj.dp_halfspace(x, y, 1, 1e-6, '{"sample_rows": "10"}') FROM regress_sample$$),
  ($$SELECT dpobj.dp_halfspace_rspm(x, y, 1, 1e-6, '{"sample_rows": -5}') FROM regress_sample$$)
) v(q);

-- up to K rows: every row, no keys (the 0.3 state); past K: exactly K rows
SET max_parallel_workers_per_gather = 0;
SELECT flags FROM regress_kept('{"sample_rows": 3000}');
SELECT flags, kept FROM regress_kept('{"sample_rows": 2999}');
SELECT flags, kept FROM regress_kept('{"sample_rows": 100}');
SELECT flags, kept FROM regress_kept('{"sample_rows": 1}');

-- a parallel plan: each worker keeps its own sample of K, the leader the
-- bottom K of their union -- again exactly K rows
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CALL regress.force_parallel('on');
EXPLAIN (COSTS OFF)
SELECT regress_hs_state(x, y, 1, 1e-6, '{"sample_rows": 100}') FROM regress_sample;
SELECT flags, kept FROM regress_kept('{"sample_rows": 100}');
SELECT flags, kept FROM regress_kept('{"sample_rows": 2999}');

-- the sample is a different one each run (keys from pg_strong_random)
CREATE FUNCTION regress_sample_md5() RETURNS text LANGUAGE sql AS $$
SELECT md5(regress_hs_state(x, y, 1, 1e-6, '{"sample_rows": 100}')::text) FROM regress_sample $$;
SELECT count(DISTINCT regress_sample_md5()) > 1 AS samples_differ FROM generate_series(1, 20);
CALL regress.force_parallel('off');
SET max_parallel_workers_per_gather = 0;

-- fewer distinct rows than K: every row, however many (one distinct
-- vector, 3000 rows, K = 100), no keys: the final function draws K of them
CREATE TABLE regress_sample_one AS
SELECT i, ARRAY[0, 0]::float8[] AS x, i <= 2998 AS y FROM generate_series(1, 3000) i;
SELECT get_byte(b, 5) AS flags, regress_nrows(b) AS distinct_rows, octet_length(b) AS bytes
  FROM (SELECT decode(regress_hs_state(x, y, 1, 1e-6, '{"sample_rows": 100}')::text, 'base64') AS b
          FROM regress_sample_one) s;

-- a state's keys are checked when it is read: keys out of order are refused.
-- Three distinct vectors (two of one row each) at K = 2: keyed, and under
-- this seed both kept rows are the vector 0 labelled true, so the flat form
-- is header, options (18 bytes), row count, the row (4 bytes), two keys
-- ascending from byte 62
SET dpobj.seed = 1;
CREATE TEMP TABLE keyed AS
SELECT decode(regress_hs_state(x, y, 1, 1e-6, '{"sample_rows": 2}')::text, 'base64') AS b
  FROM (SELECT CASE WHEN i > 2998 THEN ARRAY[i / 64.0, 0]::float8[] ELSE x END AS x, true AS y
          FROM regress_sample_one) s;
RESET dpobj.seed;
SELECT get_byte(b, 5) AS flags, regress_nrows(b) AS rows, octet_length(b) AS bytes FROM keyed;
CREATE FUNCTION regress_b64(b bytea) RETURNS text LANGUAGE sql
AS $$ SELECT translate(encode(b, 'base64'), E'\n', '') $$;
SELECT regress_b64(b)::dpobj.halfspace_state::text = regress_b64(b) AS reads_back FROM keyed;
SELECT get_byte(b, 62) < 255 AS first_key_can_grow FROM keyed;
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT regress_b64(set_byte(b, 62, 255))::dpobj.halfspace_state FROM keyed$$),
  -- keys on a state whose flags say it has none: the bytes left over are refused
  ($$SELECT regress_b64(set_byte(b, 5, 0))::dpobj.halfspace_state FROM keyed$$),
  -- flags other than 0 and 1
  ($$SELECT regress_b64(set_byte(b, 5, 2))::dpobj.halfspace_state FROM keyed$$),
  -- K 0 on a kind that samples
  ($$SELECT regress_b64(overlay(b placing '\x0000000000000000'::bytea from 25 for 8))::dpobj.halfspace_state FROM keyed$$),
  -- the format of 0.3.0 ("DPH1", no K)
  ($$SELECT regress_b64(set_byte(b, 3, 49))::dpobj.halfspace_state FROM keyed$$)
) v(q);

-- partial states of different K (a Citus worker whose dpobj.max_state_memory
-- is smaller than the coordinator's): the combine keeps the bottom K_min of
-- the union, K_min the smallest K of the states combined, sampled or not, in
-- either order.  At d = 2: K = 35 at 64kB, 88 at 128kB, 216 637 by default
-- (the state and the exact search's tables within the cap, docs/SCALING.md).
CREATE AGGREGATE regress_hs_combine(dpobj.halfspace_state) (
    SFUNC = dpobj.dp_halfspace_combinefn, STYPE = dpobj.halfspace_state);
-- flags, K (bytes 24-31) and, for a keyed state, the rows kept (regress_kept)
CREATE FUNCTION regress_flat(s dpobj.halfspace_state, OUT flags int, OUT k bigint, OUT kept int)
LANGUAGE sql AS $$
SELECT get_byte(b, 5), ('x' || encode(substring(b from 25 for 8), 'hex'))::bit(64)::bigint,
       CASE WHEN get_byte(b, 5) = 1 THEN regress_keys(b) END
  FROM (SELECT decode(s::text, 'base64') AS b) f $$;
CREATE TEMP TABLE parts (part text, s dpobj.halfspace_state);
SET dpobj.max_state_memory = '64kB';
INSERT INTO parts SELECT 'small_keyed', regress_hs_state(x, y, 1, 1e-6, '{}') FROM regress_sample;
INSERT INTO parts SELECT 'small_exact', regress_hs_state(x, y, 1, 1e-6, '{}') FROM regress_sample WHERE i <= 30;
SET dpobj.max_state_memory = '128kB';
INSERT INTO parts SELECT 'large_keyed', regress_hs_state(x, y, 1, 1e-6, '{}') FROM regress_sample;
RESET dpobj.max_state_memory;
INSERT INTO parts SELECT 'large_exact', regress_hs_state(x, y, 1, 1e-6, '{}') FROM regress_sample;
SELECT part, (regress_flat(s)).* FROM parts ORDER BY part;
-- the session's own K (the default cap's) is the largest: K_min is the parts'
SELECT a.part AS first, b.part AS second, (regress_flat(regress_hs_combine(p.s ORDER BY p.ord))).*
  FROM parts a, parts b,
       LATERAL (VALUES (1, a.s), (2, b.s)) p(ord, s)
 WHERE a.part <> b.part
 GROUP BY a.part, b.part
 ORDER BY 1, 2;
-- a session with a smaller K reads a state of a larger one at its own K
SET dpobj.max_state_memory = '64kB';
SELECT part, (regress_flat(regress_hs_combine(s))).* FROM parts
 WHERE part IN ('large_keyed', 'large_exact') GROUP BY part ORDER BY part;
RESET dpobj.max_state_memory;

-- the three halfspace mechanisms release from a sample, serial and parallel
SELECT array_length((dpobj.dp_halfspace(x, y, 1, 1e-6, '{"sample_rows": 200}')).weights, 1)
  FROM regress_sample_many;
SELECT array_length((dpobj.dp_halfspace_rspm(x, y, 1, 1e-6, '{"sample_rows": 200}')).weights, 1)
  FROM regress_sample_many;
SELECT array_length((dpobj.dp_expmech(x, y, 1, 1e-6, '{"sample_rows": 200, "B": 1, "D2": 2}')).weights, 1)
  FROM regress_sample_many;
SET max_parallel_workers_per_gather = 2;
CALL regress.force_parallel('on');
SELECT array_length((dpobj.dp_halfspace(x, y, 1, 1e-6, '{"sample_rows": 200}')).weights, 1)
  FROM regress_sample_many;
CALL regress.force_parallel('off');
SET max_parallel_workers_per_gather = 0;

-- without the option, K is what dpobj.max_state_memory holds with the
-- search: at 64kB and d = 2, 35 rows ((65536 - 21108) / (16 + 3 * 48 + 8 +
-- 1035 + 36) bytes: the search's fixed tables, then a row's key and slots,
-- the search's tables and the canonical copy)
SET dpobj.max_state_memory = '64kB';
SELECT flags, kept FROM regress_kept('{}');
SELECT flags, kept FROM regress_kept('{"sample_rows": 1000}');
SELECT array_length((dpobj.dp_halfspace(x, y, 1, 1e-6)).weights, 1) FROM regress_sample_many;

-- the glm_state kinds that need every row: OPSamp, auto, one-vs-rest
CREATE AGGREGATE regress_opsamp_state(float8[], boolean, float8, float8, jsonb) (
    SFUNC = dpobj.dp_opsamp_transfn, STYPE = dpobj.glm_state,
    COMBINEFUNC = dpobj.dp_glm_combine, PARALLEL = SAFE);
SELECT get_byte(decode(regress_opsamp_state(x, y, 1, 1e-6, '{"R": 1, "n": 3000}')::text, 'base64'), 5)
       AS opsamp_flags
  FROM regress_sample_many;
SELECT array_length((dpobj.dp_opsamp(x, y, 1, 1e-6, '{"R": 1, "n": 3000}')).weights, 1)
  FROM regress_sample_many;
-- (linear candidates only: an additive choice's weights are its score tables)
SELECT array_length((dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1, "candidates": ["objective", "noisysgd"]}')).weights, 1)
  FROM regress_sample_many;
SELECT array_length((dpobj.dp_logistic_multiclass(x, (i % 3)::bigint, 1, 1e-6,
                     '{"R": 1, "classes": [0, 1, 2]}')).weights, 1)
  FROM regress_sample_many;
-- dp_logistic and dp_noisysgd spill instead (every row, sql/spill.sql),
-- unless "sample_rows" asks for a sample (train() on a Citus table does):
-- then K = min(the option, what the cap holds with the final function's
-- canonical copy and its design blocks: (3C/4) / (24 + 3 (8d + 32) + 8d + 20),
-- 240 at 64kB and d = 2), keyed past K, like the kinds above.  A state that
-- keeps every row leaves its process (here: its text form) as the sample of
-- that K too.  Flags (byte 5) and K (bytes 25-32) of the flat state:
CREATE AGGREGATE regress_logistic_state(float8[], boolean, float8, float8, jsonb) (
    SFUNC = dpobj.dp_logistic_transfn, STYPE = dpobj.glm_state,
    COMBINEFUNC = dpobj.dp_glm_combine, PARALLEL = SAFE);
CREATE FUNCTION regress_glm_flat(opts jsonb, OUT flags int, OUT k bigint)
LANGUAGE sql AS $$
SELECT get_byte(b, 5), ('x' || encode(substring(b from 25 for 8), 'hex'))::bit(64)::bigint
  FROM (SELECT decode(regress_logistic_state(x, y, 1, 1e-6, opts)::text, 'base64') AS b
          FROM regress_sample_many) s $$;
SELECT 'every row' AS options, * FROM regress_glm_flat('{"R": 1}')
UNION ALL SELECT '200', * FROM regress_glm_flat('{"R": 1, "sample_rows": 200}')
UNION ALL SELECT '3000 (the cap holds 240)', * FROM regress_glm_flat('{"R": 1, "sample_rows": 3000}')
UNION ALL SELECT '100000', * FROM regress_glm_flat('{"R": 1, "sample_rows": 100000}');
SELECT (m).params->>'sample_rows' AS sample_rows, array_length((m).weights, 1) AS d
  FROM (SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "sample_rows": 200}') m FROM regress_sample_many) s;
SELECT (m).params->>'sample_rows' AS sample_rows, array_length((m).weights, 1) AS d
  FROM (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "sample_rows": 200}') m FROM regress_sample_many) s;
SET max_parallel_workers_per_gather = 2;
CALL regress.force_parallel('on');
SELECT (m).params->>'sample_rows' AS sample_rows, array_length((m).weights, 1) AS d
  FROM (SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "sample_rows": 200}') m FROM regress_sample_many) s;
-- without the option, a parallel plan's parts ship as samples of the cap's
-- K (240): the model says it was fitted to that many rows
SELECT (m).params->>'sample_rows' AS sample_rows, array_length((m).weights, 1) AS d
  FROM (SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') m FROM regress_sample_many) s;
SELECT (m).params->>'sample_rows' AS sample_rows, array_length((m).weights, 1) AS d
  FROM (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1}') m FROM regress_sample_many) s;
CALL regress.force_parallel('off');
SET max_parallel_workers_per_gather = 0;
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "sample_rows": 0}') FROM regress_sample_many$$),
  ($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "sample_rows": 2.5}') FROM regress_sample_many$$),
  ($$SELECT dpobj.dp_opsamp(x, y, 1, 1e-6, '{"R": 1, "n": 3000, "sample_rows": 10}') FROM regress_sample_many$$)
) v(q);
RESET dpobj.max_state_memory;
RESET max_parallel_workers_per_gather;
