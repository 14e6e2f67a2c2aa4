-- tests/fuzz/struct.sql — the structure-aware model fuzz (tests/fuzz/struct.py), run after
-- setup.sql as a superuser: real models of every kind, each mutated in its structure (every
-- array and object of its params at every depth: elements deleted, duplicated, emptied,
-- reordered, truncated, extended, grafted, a value's JSON type changed; its weights
-- truncated, extended, reshaped, ...) and passed through every function that takes a
-- model, on the server: fz.struct_run(name, seed, first, n) runs cases first..first+n-1 of
-- one model in one statement, each function call in its own exception block (the stored
-- model's, save_model()'s and evaluate()'s on every 4th case: the slow ones).  Case c of
-- (name, seed) is fz.struct_model(name, seed, c) on any server: a failure replays.

-- the budget evaluate() spends (a tiny epsilon per call)
SELECT dpobj.grant_budget('fz.people', current_user::regrole, 1e9, 0.9) IS NULL;

-- the models: setup.sql's (one per kind), and models trained on declared domains (params
-- with an encoding, which the _raw forms and evaluate() read), a multi-class noisy SGD
-- model and a three-column synthesizer with private quantile bins; each with a raw row
SELECT count(*) FROM dpobj.synthesize('fz.people', 'fz.synth3', 1, 1e-6, ARRAY['sex', 'hours', 'a'],
                                      '{"quantile": ["hours"], "integer": ["hours"], "model_name": "fz_synth3"}');
CREATE TABLE fz.smodels (name text PRIMARY KEY, m dpobj.model NOT NULL, raw jsonb NOT NULL,
                         cols text[] NOT NULL, label text NOT NULL);
INSERT INTO fz.smodels
SELECT name, m, '{"sex": "F", "hours": 3}'::jsonb, ARRAY['a', 'b', 'c3'],
       CASE WHEN name IN ('linreg', 'ebm_reg', 'gbdt_reg') THEN 'r' WHEN name = 'multiclass' THEN 'c' ELSE 'y' END
  FROM fz.models
UNION ALL SELECT 'logistic_enc', dpobj.train('fz.people', 'logistic', ARRAY['a', 'sex', 'hours'], 'y', 1, 1e-6,
                                            '{"R": 2}'), '{"a": 0.5, "sex": "F", "hours": 3}', ARRAY['a', 'sex', 'hours'], 'y'
UNION ALL SELECT 'ebm_enc', dpobj.train('fz.people', 'ebm', ARRAY['a', 'sex', 'hours'], 'y', 1, 1e-6, '{}'),
                 '{"a": 0.5, "sex": "M", "hours": 30}', ARRAY['a', 'sex', 'hours'], 'y'
UNION ALL SELECT 'gbdt_enc', dpobj.train('fz.people', 'gbdt', ARRAY['a', 'sex', 'hours'], 'y', 1, 1e-6,
                                        '{"trees": 4, "depth": 2}'),
                 '{"a": 0.5, "sex": "M", "hours": 30}', ARRAY['a', 'sex', 'hours'], 'y'
UNION ALL SELECT 'linreg_enc', dpobj.train('fz.people', 'linear', ARRAY['a', 'sex'], 'r', 1, 1e-6,
                                          '{"R": 2, "y_min": -1, "y_max": 1}'), '{"a": -0.5, "sex": "M"}', ARRAY['a', 'sex'], 'r'
UNION ALL SELECT 'opdisc_enc', dpobj.train('fz.people', 'opdisc', ARRAY['a', 'sex'], 'y', 1, 1e-6, '{}'),
                 '{"a": 0.25, "sex": "F"}', ARRAY['a', 'sex'], 'y'
UNION ALL SELECT 'multiclass_enc', dpobj.train('fz.people', 'logistic_multiclass', ARRAY['a', 'sex'], 'c', 1,
                                              1e-6, '{"R": 2, "classes": ["c0", "c1", "c2"]}'), '{"a": 0, "sex": "F"}',
                 ARRAY['a', 'sex'], 'c'
UNION ALL SELECT 'multiclass_sgd', dpobj.dp_noisysgd_multiclass(f, c, 1, 1e-6, '{"R": 2, "classes": ["c0", "c1", "c2"]}'),
                 '{}', ARRAY['a', 'b', 'c3'], 'c' FROM fz.rows
UNION ALL SELECT 'synth3', dpobj.get_model('fz_synth3'), '{}', ARRAY['sex', 'hours', 'a'], 'y';
-- each model's feature vector: its raw row encoded, else three values (d of them)
ALTER TABLE fz.smodels ADD COLUMN x float8[];
UPDATE fz.smodels SET x = CASE WHEN (m).params ? 'encoding' THEN dpobj.encode(m, raw)
                          ELSE array_fill(0.25::float8, ARRAY[coalesce(((m).params ->> 'd')::int, 3)]) END;
-- a dozen rows for dp_evaluate
CREATE TABLE fz.erows AS SELECT * FROM fz.rows WHERE i <= 12;
-- the named model the explain_named and sample_named cases overwrite
SELECT dpobj.save_model('fz_struct', (SELECT m FROM fz.models WHERE name = 'logistic'), true);

-- every node of each model's params: its path, its shape (the path with array indexes as
-- "#"), its JSON type; shapes and their nodes numbered from 0, so that a mutation picks a
-- shape first (the 4th potential weighs no more than "rounds") and then one of its nodes
CREATE TABLE fz.snodes (name text, shape int, k int, path text[], typ text, PRIMARY KEY (name, shape, k));
INSERT INTO fz.snodes
WITH RECURSIVE n(name, path, shape, v) AS (
  SELECT name, ARRAY[]::text[], '', (m).params FROM fz.smodels
  UNION ALL
  SELECT n.name, n.path || e.k, n.shape || '/' || e.s, e.v
    FROM n, LATERAL (
      SELECT key AS k, key AS s, value AS v FROM jsonb_each(CASE WHEN jsonb_typeof(n.v) = 'object' THEN n.v END)
      UNION ALL
      SELECT (o - 1)::text, '#', value
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(n.v) = 'array' THEN n.v END) WITH ORDINALITY a(value, o)) e)
SELECT name, dense_rank() OVER (PARTITION BY name ORDER BY shape) - 1,
       row_number() OVER (PARTITION BY name, shape ORDER BY path) - 1, path, jsonb_typeof(v)
  FROM n;
CREATE TABLE fz.sshapes AS SELECT name, shape, count(*)::int AS n FROM fz.snodes GROUP BY 1, 2;
ALTER TABLE fz.sshapes ADD PRIMARY KEY (name, shape);
ANALYZE fz.smodels, fz.snodes, fz.sshapes;

-- draw k of a case: an int in [0, n)
CREATE FUNCTION fz.sdraw(seed bigint, c int, k int, n int) RETURNS int
LANGUAGE sql IMMUTABLE AS $$
  SELECT ((hashint8extended(c::bigint * 64 + k, seed) & 2147483647) % greatest(n, 1))::int $$;

-- JSON value v with its type changed (number, string, boolean, null, array, object), by r
CREATE FUNCTION fz.retype(v jsonb, r int) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN CASE jsonb_typeof(v)
    WHEN 'number' THEN (ARRAY[to_jsonb(v #>> '{}'), jsonb_build_array(v), jsonb_build_object('v', v),
                              'true', 'null', to_jsonb(trunc((v #>> '{}')::numeric)::text)])[1 + r % 6]
    WHEN 'string' THEN (ARRAY['1', '-1', jsonb_build_array(v), 'null', '{}', 'false'])[1 + r % 6]::jsonb
    WHEN 'boolean' THEN (ARRAY['1', '"true"', 'null', '[true]', '0'])[1 + r % 5]::jsonb
    WHEN 'null' THEN (ARRAY['0', '[]', '{}', '""'])[1 + r % 4]::jsonb
    WHEN 'array' THEN (ARRAY[
        (SELECT coalesce(jsonb_object_agg((o - 1)::text, e), '{}') FROM jsonb_array_elements(v) WITH ORDINALITY a(e, o)),
        coalesce(v -> 0, 'null'), to_jsonb(jsonb_array_length(v)), to_jsonb(v::text),
        (SELECT coalesce(jsonb_agg(jsonb_build_array(e)), '[]') FROM jsonb_array_elements(v) e)])[1 + r % 5]
    ELSE (ARRAY[(SELECT coalesce(jsonb_agg(e), '[]') FROM jsonb_each(v) x(k, e)), jsonb_build_array(v),
                to_jsonb(v::text), '1', 'null'])[1 + r % 5]
  END;
END $$;

-- array v reordered by r: reversed, rotated by one, first and last swapped, sorted
CREATE FUNCTION fz.reorder(v jsonb, r int) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN (SELECT coalesce(jsonb_agg(e ORDER BY CASE r % 4
      WHEN 0 THEN -o
      WHEN 1 THEN (o % n)
      WHEN 2 THEN CASE o WHEN 1 THEN n WHEN n THEN 1 ELSE o END
      ELSE 0 END, CASE WHEN r % 4 = 3 THEN e::text END, o), '[]')
    FROM jsonb_array_elements(v) WITH ORDINALITY a(e, o), LATERAL (SELECT jsonb_array_length(v) AS n) l);
END $$;

-- weights w changed in structure by r: NULL, empty, truncated, extended, doubled, one
-- element dropped, made two-dimensional, a NULL element, another lower bound, another's
CREATE FUNCTION fz.reweigh(w float8[], r int, other float8[]) RETURNS float8[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  n int;
  k int;
BEGIN
  w := ARRAY(SELECT x FROM unnest(w) x);      -- one dimension from 1 (an earlier mutation's may not be)
  n := cardinality(w);
  k := (r / 16) % greatest(n, 1);
  RETURN CASE r % 12
    WHEN 0 THEN NULL
    WHEN 1 THEN '{}'::float8[]
    WHEN 2 THEN w[1:k]
    WHEN 3 THEN w || w[1:k + 1]
    WHEN 4 THEN w || w
    WHEN 5 THEN w[1:k] || w[k + 2:n]
    WHEN 6 THEN CASE WHEN n >= 2 THEN ARRAY[w[1:n / 2], w[n / 2 + 1:2 * (n / 2)]] ELSE ARRAY[w] END
    WHEN 7 THEN w[1:k] || NULL::float8 || w[k + 1:n]
    WHEN 8 THEN CASE WHEN n > 0 THEN ('[' || (k - 3) || ':' || (k - 4 + n) || ']=' || w::text)::float8[] END
    WHEN 9 THEN other
    WHEN 10 THEN w || array_fill(0::float8, ARRAY[1 + k * 3])
    ELSE w[2:n] END;
END $$;

-- params j with one structural mutation at path p (the node's value v), by r
CREATE FUNCTION fz.mutate_node(j jsonb, p text[], r int, graft jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF j #> p IS NULL THEN                -- an earlier mutation removed it
    RETURN j;
  END IF;
  -- the params inside {"r": params}: the root has a parent too
  RETURN coalesce(fz.mutate_in(jsonb_build_object('r', j), ARRAY['r'] || p, r, graft) -> 'r', '{}');
END $$;

-- mutate_node on w = {"r": params}, the node at path p (below "r")
CREATE FUNCTION fz.mutate_in(j jsonb, p text[], r int, graft jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v jsonb := j #> p;
  t text := jsonb_typeof(v);
  pp text[] := p[1:cardinality(p) - 1];
  sib text;
  n int;
BEGIN
  n := CASE t WHEN 'array' THEN jsonb_array_length(v) WHEN 'object' THEN
        (SELECT count(*) FROM jsonb_object_keys(v)) ELSE 0 END;
  CASE r % 10
  WHEN 0 THEN                           -- delete it
    RETURN j #- p;
  WHEN 1 THEN                           -- duplicate it: beside itself, or over a sibling
    IF jsonb_typeof(j #> pp) = 'array' THEN
      RETURN jsonb_insert(j, p, v, true);
    END IF;
    SELECT k INTO sib FROM jsonb_object_keys(j #> pp) k ORDER BY k
     OFFSET (r / 10) % (SELECT count(*) FROM jsonb_object_keys(j #> pp)) LIMIT 1;
    RETURN jsonb_set(j, pp || sib, v);
  WHEN 2 THEN                           -- empty it
    RETURN jsonb_set(j, p, CASE t WHEN 'array' THEN '[]' WHEN 'object' THEN '{}' WHEN 'string' THEN '""'
                                   WHEN 'number' THEN '0' ELSE '{}' END::jsonb);
  WHEN 3 THEN                           -- reorder it (an object: two keys' values swapped)
    IF t = 'array' THEN
      RETURN jsonb_set(j, p, fz.reorder(v, r / 10));
    ELSIF t = 'object' AND n >= 2 THEN
      RETURN jsonb_set(j, p, (SELECT jsonb_object_agg(k, CASE o WHEN 1 THEN v -> k2 WHEN 2 THEN v -> k1 ELSE e END)
                                FROM (SELECT k, e, row_number() OVER (ORDER BY md5(k || r)) o FROM jsonb_each(v) x(k, e)) s,
                                     LATERAL (SELECT (SELECT k FROM jsonb_object_keys(v) k ORDER BY md5(k || r) LIMIT 1) k1,
                                                     (SELECT k FROM jsonb_object_keys(v) k ORDER BY md5(k || r) OFFSET 1 LIMIT 1) k2) ks));
    END IF;
    RETURN jsonb_set(j, p, fz.retype(v, r / 10));
  WHEN 4, 5 THEN                        -- another JSON type
    RETURN jsonb_set(j, p, fz.retype(v, r / 10));
  WHEN 6 THEN                           -- truncate it (an object: some of its keys kept)
    IF t = 'array' THEN
      RETURN jsonb_set(j, p, coalesce((SELECT jsonb_agg(e ORDER BY o) FROM jsonb_array_elements(v) WITH ORDINALITY a(e, o)
                                        WHERE o <= (r / 10) % greatest(n, 1)), '[]'));
    ELSIF t = 'object' THEN
      RETURN jsonb_set(j, p, coalesce((SELECT jsonb_object_agg(k, e) FROM jsonb_each(v) x(k, e)
                                        WHERE md5(k || r) < '8'), '{}'));
    END IF;
    RETURN j #- p;
  WHEN 7 THEN                           -- extend it: its elements again, or an odd one more
    IF t = 'array' THEN
      RETURN jsonb_set(j, p, CASE (r / 10) % 3 WHEN 0 THEN v || v
                                  WHEN 1 THEN v || coalesce(v -> ((r / 30) % greatest(n, 1)), '[]')
                                  ELSE v || (ARRAY['null', '"x"', '{}', '[]', '1e9', '-1', '[[0]]'])[1 + (r / 30) % 7]::jsonb END);
    ELSIF t = 'object' THEN
      RETURN jsonb_set(j, p, v || jsonb_build_object('zz', graft));
    END IF;
    RETURN jsonb_set(j, p, jsonb_build_array(v, v));
  WHEN 8 THEN                           -- another node of the model in its place
    RETURN jsonb_set(j, p, graft);
  ELSE                                  -- unwrapped (its first element or value), or wrapped
    RETURN jsonb_set(j, p, CASE WHEN t = 'array' AND (r / 10) % 2 = 0 THEN coalesce(v -> 0, 'null')
                                WHEN t = 'object' AND (r / 10) % 2 = 0
                                THEN coalesce((SELECT e FROM jsonb_each(v) x(k, e) LIMIT 1), 'null')
                                WHEN (r / 10) % 4 < 2 THEN jsonb_build_array(v) ELSE jsonb_build_object('v', v) END);
  END CASE;
END $$;

-- a node of model name's params: (shape, node) picked by draws a and b
CREATE FUNCTION fz.snode(nm text, a int, b int) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  sh int := a % (SELECT count(*) FROM fz.sshapes s WHERE s.name = nm);
BEGIN
  RETURN (SELECT n.path FROM fz.snodes n, fz.sshapes s
           WHERE n.name = nm AND n.shape = sh AND s.name = nm AND s.shape = sh AND n.k = b % s.n);
END $$;

-- case c of model name under seed: its model with one to three structural mutations
CREATE FUNCTION fz.struct_model(nm text, seed bigint, c int) RETURNS dpobj.model
LANGUAGE plpgsql STABLE AS $$
DECLARE
  m dpobj.model;
  o dpobj.model;
  kinds int := (SELECT count(*) FROM fz.smodels);
  r int;
  p text[];
BEGIN
  m := (SELECT s.m FROM fz.smodels s WHERE s.name = nm);
  FOR i IN 0 .. fz.sdraw(seed, c, 0, 3) LOOP
    r := fz.sdraw(seed, c, 8 * i + 1, 100000);
    o := (SELECT s.m FROM fz.smodels s ORDER BY s.name OFFSET fz.sdraw(seed, c, 8 * i + 2, kinds) LIMIT 1);
    CASE
    WHEN r % 100 < 68 THEN             -- a node of the params
      p := fz.snode(nm, fz.sdraw(seed, c, 8 * i + 3, 1000000), fz.sdraw(seed, c, 8 * i + 4, 1000000));
      m.params := fz.mutate_node(m.params, p, r / 100,
                                 coalesce(m.params #> fz.snode(nm, fz.sdraw(seed, c, 8 * i + 5, 1000000),
                                                               fz.sdraw(seed, c, 8 * i + 6, 1000000)), 'null'));
    WHEN r % 100 < 80 THEN             -- the weights
      m.weights := fz.reweigh(m.weights, r / 100, o.weights);
    WHEN r % 100 < 87 THEN             -- a top-level key of another kind's params grafted
      SELECT m.params || jsonb_build_object(k, o.params -> k) INTO m.params
        FROM jsonb_object_keys(o.params) k ORDER BY k
       OFFSET (r / 100) % greatest((SELECT count(*) FROM jsonb_object_keys(o.params)), 1) LIMIT 1;
    WHEN r % 100 < 91 THEN             -- the whole params
      m.params := (ARRAY[NULL, '[]', '{}', '1', '"x"', o.params, jsonb_build_array(m.params)])[1 + (r / 100) % 7]::jsonb;
    WHEN r % 100 < 96 THEN             -- the mechanism: another kind's, NULL, empty
      m.mechanism := (ARRAY[o.mechanism, NULL, '', o.mechanism])[1 + (r / 100) % 4];
    ELSE                               -- bias, epsilon, delta: NULL or another's
      CASE (r / 100) % 4
      WHEN 0 THEN m.bias := NULL;
      WHEN 1 THEN m.bias := o.bias;
      WHEN 2 THEN m.epsilon := NULL;
      ELSE m.delta := NULL;
      END CASE;
    END CASE;
  END LOOP;
  RETURN m;
END $$;

-- the functions that take a model, in struct_run's order
CREATE FUNCTION fz.struct_fns() RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['model_kind', 'predict', 'score', 'probability', 'predict_class', 'explain', 'encode',
               'predict_raw', 'score_raw', 'probability_raw', 'predict_class_raw', 'sample', 'marginal',
               'fidelity', 'sample_into', 'sample_rows',
               'save_model', 'dp_evaluate', 'explain_named', 'sample_named', 'evaluate'] $$;

-- cases first..first+n-1 of model name under seed, each through every function (fns_only: the
-- functions named, default all); per function and outcome (ok or a SQLSTATE) the count of
-- cases and, for an internal error (XX000, XX001), each case and its message
CREATE FUNCTION fz.struct_run(nm text, seed bigint, first int, n int, fns_only text[] DEFAULT NULL)
RETURNS TABLE (fn text, outcome text, cases bigint, detail text)
LANGUAGE plpgsql AS $$
DECLARE
  m dpobj.model;
  base fz.smodels := (SELECT s FROM fz.smodels s WHERE s.name = nm);
  fns text[] := coalesce(fns_only, fz.struct_fns());
  outs text[] := '{}';
  bad text[] := '{}';
  f text;
  st text;
  msg text;
  x float8[];
  cols text[];
BEGIN
  FOR c IN first .. first + n - 1 LOOP
    BEGIN
      m := CASE WHEN c < 0 THEN base.m ELSE fz.struct_model(nm, seed, c) END;
    EXCEPTION WHEN OTHERS THEN             -- a defect of the fuzz itself: reported, the case skipped
      GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
      bad := bad || format('generator %s case %s: %s', 'error', c, msg);
      CONTINUE;
    END;
    -- the model's feature vector, or one of one to five values
    x := CASE WHEN c % 4 = 3 THEN array_fill(0.25::float8, ARRAY[1 + c % 5]) ELSE base.x END;
    cols := CASE abs(c) % 4 WHEN 0 THEN ARRAY['sex'] WHEN 1 THEN ARRAY['sex', 'hours'] WHEN 2 THEN ARRAY['hours', 'a', 'sex']
            ELSE ARRAY['a'] END;
    FOREACH f IN ARRAY fns LOOP
      -- the slower calls (a stored model, the protected path) on every 4th case
      CONTINUE WHEN f IN ('save_model', 'explain_named', 'sample_named', 'evaluate') AND c % 4 > 0 AND fns_only IS NULL;
      BEGIN
        CASE f
        WHEN 'model_kind' THEN PERFORM dpobj.model_kind(m);
        WHEN 'predict' THEN PERFORM dpobj.predict(m, x);
        WHEN 'score' THEN PERFORM dpobj.score(m, x);
        WHEN 'probability' THEN PERFORM dpobj.probability(m, x);
        WHEN 'predict_class' THEN PERFORM dpobj.predict_class(m, x);
        WHEN 'explain' THEN PERFORM count(*) FROM dpobj.explain(m);
        WHEN 'encode' THEN PERFORM dpobj.encode(m, base.raw);
        WHEN 'predict_raw' THEN PERFORM dpobj.predict_raw(m, base.raw);
        WHEN 'score_raw' THEN PERFORM dpobj.score_raw(m, base.raw);
        WHEN 'probability_raw' THEN PERFORM dpobj.probability_raw(m, base.raw, 'null');
        WHEN 'predict_class_raw' THEN PERFORM dpobj.predict_class_raw(m, base.raw);
        WHEN 'sample' THEN PERFORM count(*) FROM dpobj.sample(m, 3);
        WHEN 'marginal' THEN PERFORM count(*) FROM dpobj.marginal(m, cols);
        WHEN 'fidelity' THEN PERFORM count(*) FROM dpobj.synth_fidelity(m);
        WHEN 'sample_into' THEN               -- synthesize()'s target: synth3's columns (synth's and one more)
          PERFORM dpobj.sample_into(m, 'fz.synth3', 3);
        WHEN 'sample_rows' THEN PERFORM count(*) FROM dpobj.sample_rows(m, 3) AS t(sex text, hours float8);
        WHEN 'save_model' THEN PERFORM dpobj.save_model('fz_struct', m, true);
        WHEN 'explain_named' THEN             -- a model stored unchecked, used by name
          UPDATE dpobj.models SET model = m WHERE name = 'fz_struct';
          PERFORM count(*) FROM dpobj.explain('fz_struct');
        WHEN 'sample_named' THEN
          UPDATE dpobj.models SET model = m WHERE name = 'fz_struct';
          PERFORM count(*) FROM dpobj.sample('fz_struct', 2);
        WHEN 'dp_evaluate' THEN               -- the label type of case c (the model's: -1)
          CASE (CASE WHEN c >= 0 THEN c % 3 ELSE array_position(ARRAY['y', 'r', 'c'], base.label) - 1 END)
          WHEN 0 THEN PERFORM dpobj.dp_evaluate(r.f, r.y, 1, 1e-6, jsonb_build_object('model', m::text)) FROM fz.erows r;
          WHEN 1 THEN PERFORM dpobj.dp_evaluate(r.f, r.r, 1, 1e-6, jsonb_build_object('model', m::text)) FROM fz.erows r;
          ELSE PERFORM dpobj.dp_evaluate(r.f, r.c, 1, 1e-6, jsonb_build_object('model', m::text)) FROM fz.erows r;
          END CASE;
        WHEN 'evaluate' THEN
          PERFORM dpobj.evaluate('fz.people', m, base.cols, base.label, 1e-5, 0);
        END CASE;
        st := 'ok';
      EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
        IF st IN ('XX000', 'XX001') THEN
          bad := bad || format('%s %s case %s: %s', f, st, c, msg);
        END IF;
      END;
      outs := outs || (f || ' ' || st);
    END LOOP;
  END LOOP;
  RETURN QUERY
    SELECT split_part(o, ' ', 1), split_part(o, ' ', 2), count(*), NULL::text FROM unnest(outs) o GROUP BY 1, 2
    UNION ALL
    SELECT split_part(b, ' ', 1), split_part(b, ' ', 2), 1::bigint, b FROM unnest(bad) b;
END $$;
