-- tests/fuzz/setup.sql — what the fuzz cases (tests/fuzz/fuzz.py) call on: public rows, one
-- seeded real model per kind, one real aggregate state per final function, and the
-- deterministic mutators of models and states.  Run as a superuser in a fresh database.
CREATE SCHEMA fz;
SET dpobj.seed = 7;

-- 400 rows: three features in [-1, 1], a yes/no, a number and a class label, two raw columns
CREATE TABLE fz.rows AS
SELECT i, ARRAY[sin(i), cos(i * 7) / 2, ((i % 5) - 2) / 2.0]::float8[] AS f,
       sin(i) + cos(i * 3) > 0.3 AS y, sin(i * 3) AS r, 'c' || (i % 3) AS c, (i % 4)::bigint AS k,
       CASE i % 3 WHEN 0 THEN 'F' WHEN 1 THEN 'M' ELSE 'X' END AS sex, (i % 50) * 2.0 AS hours
  FROM generate_series(1, 400) i;

-- the synthesizer's public domains
CREATE TABLE fz.synth_opts AS
SELECT '{"domains": [{"column": "sex", "levels": ["F", "M"]}, {"column": "hours", "lo": 0, "hi": 100}]}'::jsonb AS o;

CREATE TABLE fz.models (name text PRIMARY KEY, m dpobj.model NOT NULL);
INSERT INTO fz.models
SELECT 'ebm', dpobj.dp_ebm(f, y, 1, 1e-6, '{"lo": -1, "hi": 1}') FROM fz.rows
UNION ALL SELECT 'ebm_reg', dpobj.dp_ebm(f, r, 1, 1e-6, '{"lo": -1, "hi": 1, "y_min": -1, "y_max": 1}') FROM fz.rows
UNION ALL SELECT 'gbdt', dpobj.dp_gbdt(f, y, 1, 1e-6, '{"lo": -1, "hi": 1, "trees": 5, "depth": 3}') FROM fz.rows
UNION ALL SELECT 'gbdt_reg', dpobj.dp_gbdt(f, r, 1, 1e-6, '{"lo": -1, "hi": 1, "trees": 5, "y_min": -1, "y_max": 1}') FROM fz.rows
UNION ALL SELECT 'logistic', dpobj.dp_logistic(f, y, 1, 1e-6, '{"R": 2}') FROM fz.rows
UNION ALL SELECT 'noisysgd', dpobj.dp_noisysgd(f, y, 1, 1e-6, '{"R": 2}') FROM fz.rows
UNION ALL SELECT 'opsamp', dpobj.dp_opsamp(f, y, 1, 1e-6, '{"R": 2}') FROM fz.rows
UNION ALL SELECT 'passglm', dpobj.dp_passglm(f, y, 1, 1e-6, '{"R": 2}') FROM fz.rows
UNION ALL SELECT 'auto', dpobj.dp_auto(f, y, 1, 1e-6, '{"R": 2}') FROM fz.rows
UNION ALL SELECT 'linreg', dpobj.dp_linear_regression(f, r, 1, 1e-6, '{"R": 2, "y_min": -1, "y_max": 1}') FROM fz.rows
UNION ALL SELECT 'multiclass', dpobj.dp_logistic_multiclass(f, c, 1, 1e-6, '{"R": 2, "classes": ["c0", "c1", "c2"]}') FROM fz.rows
UNION ALL SELECT 'halfspace', dpobj.dp_halfspace(f, y, 1, 1e-6) FROM fz.rows WHERE i <= 40
UNION ALL SELECT 'rspm', dpobj.dp_halfspace_rspm(f, y, 1, 1e-6) FROM fz.rows WHERE i <= 40
UNION ALL SELECT 'expmech', dpobj.dp_expmech(f, y, 1, 1e-6) FROM fz.rows WHERE i <= 40
UNION ALL SELECT 'synth', dpobj.dp_synthesize_cols(true, 1, 1e-6, (SELECT o FROM fz.synth_opts), sex, hours::float8)
            FROM fz.rows;

-- each transition function's state, through an aggregate without a final function
CREATE AGGREGATE fz.st_halfspace(float8[], bool, float8, float8)
  (sfunc = dpobj.dp_halfspace_transfn, stype = dpobj.halfspace_state);
CREATE AGGREGATE fz.st_glm(float8[], bool, float8, float8, jsonb)
  (sfunc = dpobj.dp_logistic_transfn, stype = dpobj.glm_state);
CREATE AGGREGATE fz.st_noisysgd(float8[], bool, float8, float8, jsonb)
  (sfunc = dpobj.dp_noisysgd_transfn, stype = dpobj.glm_state);
CREATE AGGREGATE fz.st_linreg(float8[], float8, float8, float8, jsonb)
  (sfunc = dpobj.dp_linear_regression_transfn, stype = dpobj.linreg_state);
CREATE AGGREGATE fz.st_passglm(float8[], bool, float8, float8, jsonb)
  (sfunc = dpobj.dp_passglm_transfn, stype = dpobj.linreg_state);
CREATE AGGREGATE fz.st_ebm(float8[], bool, float8, float8, jsonb)
  (sfunc = dpobj.dp_ebm_transfn, stype = dpobj.ebm_state);
CREATE AGGREGATE fz.st_gbdt(float8[], bool, float8, float8, jsonb)
  (sfunc = dpobj.dp_gbdt_transfn, stype = dpobj.gbdt_state);
CREATE AGGREGATE fz.st_synth(bool, float8, float8, jsonb, text[], float8[])
  (sfunc = dpobj.dp_synthesize_transfn, stype = dpobj.synth_state);

-- name, the final and combine functions, the state type, a real state as text
CREATE TABLE fz.states (name text PRIMARY KEY, s text NOT NULL);
INSERT INTO fz.states
SELECT 'halfspace', fz.st_halfspace(f, y, 1, 1e-6)::text FROM fz.rows WHERE i <= 40
UNION ALL SELECT 'logistic', fz.st_glm(f, y, 1, 1e-6, '{"R": 2}')::text FROM fz.rows
UNION ALL SELECT 'noisysgd', fz.st_noisysgd(f, y, 1, 1e-6, '{"R": 2}')::text FROM fz.rows
UNION ALL SELECT 'linreg', fz.st_linreg(f, r, 1, 1e-6, '{"R": 2, "y_min": -1, "y_max": 1}')::text FROM fz.rows
UNION ALL SELECT 'passglm', fz.st_passglm(f, y, 1, 1e-6, '{"R": 2}')::text FROM fz.rows
UNION ALL SELECT 'ebm', fz.st_ebm(f, y, 1, 1e-6, '{"lo": -1, "hi": 1}')::text FROM fz.rows
UNION ALL SELECT 'gbdt', fz.st_gbdt(f, y, 1, 1e-6, '{"lo": -1, "hi": 1, "trees": 5}')::text FROM fz.rows
UNION ALL SELECT 'synth', fz.st_synth(true, 1, 1e-6, (SELECT o FROM fz.synth_opts), ARRAY[sex],
                                      ARRAY[hours::float8])::text FROM fz.rows;

-- a state handed in as text (its input function validates it) through final and combine
-- functions: fz.fin_<name>(text) runs <name>'s final function on the last state given;
-- fz.comb_<name>(text) combines every state given, then runs it
CREATE FUNCTION fz.take_halfspace(dpobj.halfspace_state, text) RETURNS dpobj.halfspace_state
  LANGUAGE sql AS 'SELECT $2::dpobj.halfspace_state';
CREATE FUNCTION fz.take_glm(dpobj.glm_state, text) RETURNS dpobj.glm_state
  LANGUAGE sql AS 'SELECT $2::dpobj.glm_state';
CREATE FUNCTION fz.take_linreg(dpobj.linreg_state, text) RETURNS dpobj.linreg_state
  LANGUAGE sql AS 'SELECT $2::dpobj.linreg_state';
CREATE FUNCTION fz.take_ebm(dpobj.ebm_state, text) RETURNS dpobj.ebm_state
  LANGUAGE sql AS 'SELECT $2::dpobj.ebm_state';
CREATE FUNCTION fz.take_gbdt(dpobj.gbdt_state, text) RETURNS dpobj.gbdt_state
  LANGUAGE sql AS 'SELECT $2::dpobj.gbdt_state';
CREATE FUNCTION fz.take_synth(dpobj.synth_state, text) RETURNS dpobj.synth_state
  LANGUAGE sql AS 'SELECT $2::dpobj.synth_state';
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT * FROM (VALUES
      ('halfspace', 'halfspace', 'dp_halfspace_finalfn', 'dp_halfspace_combinefn'),
      ('rspm', 'halfspace', 'dp_halfspace_rspm_finalfn', 'dp_halfspace_combinefn'),
      ('expmech', 'halfspace', 'dp_expmech_finalfn', 'dp_halfspace_combinefn'),
      ('logistic', 'glm', 'dp_logistic_finalfn', 'dp_glm_combine'),
      ('noisysgd', 'glm', 'dp_noisysgd_finalfn', 'dp_glm_combine'),
      ('opsamp', 'glm', 'dp_opsamp_finalfn', 'dp_glm_combine'),
      ('auto', 'glm', 'dp_auto_finalfn', 'dp_glm_combine'),
      ('linreg', 'linreg', 'dp_linear_regression_finalfn', 'dp_linear_regression_combine'),
      ('passglm', 'linreg', 'dp_passglm_finalfn', 'dp_linear_regression_combine'),
      ('ebm', 'ebm', 'dp_ebm_finalfn', 'dp_ebm_combine'),
      ('ebm_reg', 'ebm', 'dp_ebm_reg_finalfn', 'dp_ebm_combine'),
      ('gbdt', 'gbdt', 'dp_gbdt_finalfn', 'dp_gbdt_combine'),
      ('gbdt_reg', 'gbdt', 'dp_gbdt_reg_finalfn', 'dp_gbdt_combine'),
      ('synth', 'synth', 'dp_synthesize_finalfn', 'dp_synthesize_combinefn')) v(name, st, fin, comb)
  LOOP
    EXECUTE format('CREATE AGGREGATE fz.fin_%s(text) (sfunc = fz.take_%s, stype = dpobj.%s_state, finalfunc = dpobj.%s)',
                   r.name, r.st, r.st, r.fin);
    EXECUTE format('CREATE AGGREGATE fz.comb_%s(dpobj.%s_state) (sfunc = dpobj.%s, stype = dpobj.%s_state, finalfunc = dpobj.%s)',
                   r.name, r.st, r.comb, r.st, r.fin);
  END LOOP;
END $$;

-- the private bound's Citus state (a bigint[] of 15 bins) handed in through the caller's own
-- aggregates: combined (its combine function as a transition), finished, and as the initial
-- state of its transition
CREATE FUNCTION fz.take_bins(bigint[], bigint[]) RETURNS bigint[]
  LANGUAGE sql AS 'SELECT $2';
CREATE AGGREGATE fz.comb_bins(bigint[]) (sfunc = dpobj.unit_bound_shards_combine, stype = bigint[]);
CREATE AGGREGATE fz.fin_bins(bigint[])
  (sfunc = fz.take_bins, stype = bigint[], finalfunc = dpobj.unit_bound_shards_final);
CREATE AGGREGATE fz.init_bins(bigint, jsonb)
  (sfunc = dpobj.unit_bound_shards_sfunc, stype = bigint[], initcond = '{1,2,3}');
CREATE AGGREGATE fz.init0_bins(bigint, jsonb)
  (sfunc = dpobj.unit_bound_shards_sfunc, stype = bigint[], initcond = '[0:14]={0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}');
CREATE AGGREGATE fz.initneg_bins(bigint, jsonb)
  (sfunc = dpobj.unit_bound_shards_sfunc, stype = bigint[], initcond = '{0,0,0,0,0,0,0,-1,0,0,0,0,0,0,0}');

-- an odd JSON value, the k-th of a fixed list
CREATE FUNCTION fz.odd(k int) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT (ARRAY['null', 'true', 'false', '0', '-1', '1', '2', '0.5', '1e308', '-1e308', '1e-320',
                '2147483648', '-9223372036854775809', '1e400', '"NaN"', '"Infinity"', '""',
                '"x"', '[]', '[1]', '[[1, 2]]', '{}', '{"a": 1}', '[null]', '["a", "a"]', '-0',
                '100000000', '4096', '65', '[0, 1e308]'])[1 + abs(k) % 30]::jsonb $$;

-- every path of a JSON value (object keys and array indexes), in a fixed order
CREATE FUNCTION fz.paths(j jsonb) RETURNS TABLE (path text[]) LANGUAGE sql IMMUTABLE AS $$
  WITH RECURSIVE p(path, v) AS (
    SELECT ARRAY[]::text[], j
    UNION ALL
    SELECT p.path || e.key, e.value
      FROM p, LATERAL (
        SELECT key, value FROM jsonb_each(CASE WHEN jsonb_typeof(p.v) = 'object' THEN p.v ELSE '{}' END)
        UNION ALL
        SELECT (o - 1)::text, value
          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p.v) = 'array' THEN p.v ELSE '[]' END)
               WITH ORDINALITY a(value, o)) e)
  SELECT path FROM p WHERE cardinality(path) > 0 ORDER BY path $$;

-- a model with one mutation, chosen by (a, b, c): a params key or path replaced or deleted,
-- the weights, bias, epsilon, delta or mechanism changed
CREATE FUNCTION fz.mutate(m dpobj.model, a int, b int, c int) RETURNS dpobj.model
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  p text[];
  n int;
BEGIN
  CASE abs(a) % 10
  WHEN 0, 1 THEN
    SELECT count(*) INTO n FROM jsonb_object_keys(CASE WHEN jsonb_typeof(m.params) = 'object' THEN m.params END);
    IF n > 0 THEN
      SELECT ARRAY[k] INTO p FROM jsonb_object_keys(m.params) k ORDER BY k OFFSET abs(b) % n LIMIT 1;
      m.params := jsonb_set(m.params, p, fz.odd(c));
    END IF;
  WHEN 2, 3, 9 THEN
    SELECT count(*) INTO n FROM fz.paths(m.params);
    IF n > 0 THEN
      SELECT path INTO p FROM fz.paths(m.params) OFFSET abs(b) % n LIMIT 1;
      m.params := jsonb_set(m.params, p, fz.odd(c));
    END IF;
  WHEN 4 THEN
    SELECT count(*) INTO n FROM fz.paths(m.params);
    IF n > 0 THEN
      SELECT path INTO p FROM fz.paths(m.params) OFFSET abs(b) % n LIMIT 1;
      m.params := m.params #- p;
    END IF;
  WHEN 5 THEN
    m.weights := CASE abs(b) % 6
      WHEN 0 THEN NULL WHEN 1 THEN '{}'::float8[] WHEN 2 THEN m.weights || 'NaN'::float8
      WHEN 3 THEN m.weights[1:greatest(cardinality(m.weights) - 1, 0)]
      WHEN 4 THEN array_fill('Infinity'::float8, ARRAY[greatest(cardinality(m.weights), 1)])
      ELSE m.weights || m.weights END;
  WHEN 6 THEN
    CASE abs(b) % 3
    WHEN 0 THEN m.bias := (ARRAY[NULL, 'NaN', '-Infinity', '1e308'])[1 + abs(c) % 4]::float8;
    WHEN 1 THEN m.epsilon := (ARRAY[NULL, 'NaN', '-1', '0'])[1 + abs(c) % 4]::float8;
    ELSE m.delta := (ARRAY[NULL, 'NaN', '2', '-1'])[1 + abs(c) % 4]::float8;
    END CASE;
  WHEN 7 THEN
    SELECT (o.m).mechanism INTO m.mechanism FROM fz.models o ORDER BY o.name OFFSET abs(b) % 13 LIMIT 1;
  ELSE
    m.params := (ARRAY[NULL, '{}', '[]', '1', m.params || jsonb_build_object('zz', fz.odd(c))])[1 + abs(b) % 5];
  END CASE;
  RETURN m;
END $$;

-- a state's text with one mutation, chosen by (a, b, c): a byte set, a float8 or int4
-- written, a truncation, bytes appended, a slice repeated
CREATE FUNCTION fz.forge(s text, a int, b int, c int) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  x bytea := decode(s, 'base64');
  n int := length(x);
  pos int := abs(b) % greatest(n, 1);
BEGIN
  CASE abs(a) % 6
  WHEN 0 THEN x := set_byte(x, pos, abs(c) % 256);
  WHEN 1 THEN x := overlay(x PLACING float8send((ARRAY['NaN', 'Infinity', '-1', '0', '1e308', '5e-324', '-0'])[1 + abs(c) % 7]::float8)
                   FROM 1 + (pos / 8) * 8 FOR 8);
  WHEN 2 THEN x := overlay(x PLACING int4send((ARRAY[-1, 0, 2147483647, -2147483648, 65536, 7])[1 + abs(c) % 6])
                   FROM 1 + (pos / 4) * 4 FOR 4);
  WHEN 3 THEN x := substr(x, 1, pos);
  WHEN 4 THEN x := x || decode(repeat(lpad(to_hex(abs(c) % 256), 2, '0'), 1 + abs(b) % 64), 'hex');
  ELSE x := substr(x, 1, pos) || substr(x, 1 + pos / 2, 1 + abs(c) % 64) || substr(x, pos + 1);
  END CASE;
  RETURN replace(encode(x, 'base64'), E'\n', '');
END $$;

-- the protected path: fz.people protected with declared domains, the analyst fz_analyst
-- (no SELECT on it) with a large budget, and a schema of the analyst's for synthesize()
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'fz_analyst') THEN
    CREATE ROLE fz_analyst NOLOGIN;
  END IF;
END $$;
CREATE TABLE fz.people AS
SELECT i, sex, hours, f[1] AS a, f[2] AS b, f[3] AS c3, y, r, c FROM fz.rows;
SELECT dpobj.declare_domain('fz.people', 'sex', ARRAY['F', 'M']);
SELECT dpobj.declare_domain('fz.people', 'hours', 0, 100);
SELECT dpobj.declare_domain('fz.people', 'a', -1, 1);
SELECT dpobj.declare_domain('fz.people', 'b', -1, 1);
SELECT dpobj.declare_domain('fz.people', 'c3', -1, 1);
SELECT dpobj.declare_domain('fz.people', 'r', -1, 1);
SELECT dpobj.protect('fz.people');
SELECT dpobj.grant_budget('fz.people', 'fz_analyst', 100000, 0.5);
GRANT USAGE ON SCHEMA fz TO fz_analyst;
GRANT SELECT ON fz.models TO fz_analyst;
CREATE SCHEMA fz_out AUTHORIZATION fz_analyst;
