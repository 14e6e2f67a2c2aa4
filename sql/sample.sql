-- The states whose final function needs every row in memory (the exact
-- oracle of dp_halfspace, dp_halfspace_rspm and dp_expmech; dp_opsamp,
-- dp_auto and the one-vs-rest kinds) keep a uniform sample of at most K
-- rows: K = the option "sample_rows" (halfspace kinds), or what
-- dpobj.max_state_memory holds.  Up to K rows the state is every row, as
-- before; past K it holds exactly K rows, with their sample keys in its
-- flat form, so partial states merge into the sample of their union.  The
-- flat form also carries K, and states of different K merge at the smaller.
CREATE TABLE regress_sample (i int, x float8[], y boolean);
-- one distinct feature vector: a sampled state's flat form is then
-- header, options, one row and 8 bytes of key per kept row
INSERT INTO regress_sample SELECT i, ARRAY[0, 0]::float8[], i % 3 = 0
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
-- flags (byte 5: 1 = rows carry keys) and the rows kept, from the flat
-- form's length: 36 header bytes (K at bytes 24-31), the options' length
-- and text, the row count (4), the one row (2 words and 2 counts: 4 to 8
-- bytes), 8 per key
CREATE FUNCTION regress_kept(opts jsonb, OUT flags int, OUT kept numeric)
LANGUAGE sql AS $$
SELECT get_byte(b, 5), floor((octet_length(b) - 36 - octet_length(opts::text) - 4 - 4) / 8.0)
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

-- the sample is a different one each run (keys from pg_strong_random):
-- the label-true count of 100 kept rows varies
CREATE FUNCTION regress_pos_of_sample() RETURNS int LANGUAGE sql AS $$
SELECT get_byte(b, 36 + 20 + 4 + 2)
  FROM (SELECT decode(regress_hs_state(x, y, 1, 1e-6, '{"sample_rows": 100}')::text, 'base64') AS b
          FROM regress_sample) s $$;
SELECT count(DISTINCT regress_pos_of_sample()) > 1 AS samples_differ,
       min(regress_pos_of_sample()) BETWEEN 1 AND 99 AS both_labels
  FROM generate_series(1, 20);
CALL regress.force_parallel('off');
SET max_parallel_workers_per_gather = 0;

-- a state's keys are checked when it is read: keys out of order are refused
SET dpobj.seed = 1;
CREATE TEMP TABLE keyed AS
SELECT decode(regress_hs_state(x, y, 1, 1e-6, '{"sample_rows": 100}')::text, 'base64') AS b
  FROM regress_sample;
RESET dpobj.seed;
CREATE FUNCTION regress_b64(b bytea) RETURNS text LANGUAGE sql
AS $$ SELECT translate(encode(b, 'base64'), E'\n', '') $$;
SELECT regress_b64(b)::dpobj.halfspace_state::text = regress_b64(b) AS reads_back FROM keyed;
SELECT get_byte(b, 64) < 255 AS first_key_can_grow FROM keyed;
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT regress_b64(set_byte(b, 64, 255))::dpobj.halfspace_state FROM keyed$$),
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
-- flags, K (bytes 24-31) and, for a keyed state of one distinct row, the
-- rows kept (regress_kept)
CREATE FUNCTION regress_flat(s dpobj.halfspace_state, OUT flags int, OUT k bigint, OUT kept numeric)
LANGUAGE sql AS $$
SELECT get_byte(b, 5), ('x' || encode(substring(b from 25 for 8), 'hex'))::bit(64)::bigint,
       CASE WHEN get_byte(b, 5) = 1
            THEN floor((octet_length(b) - 36 - (get_byte(b, 34) * 256 + get_byte(b, 35)) - 4 - 4) / 8.0) END
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
SELECT array_length((dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1}')).weights, 1)
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
