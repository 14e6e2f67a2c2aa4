-- Forged model values.  Any role may pass any value of type dpobj.model to the functions
-- that read one (sample, marginal, predict, score, probability, predict_class, explain,
-- model_kind, save_model, dp_evaluate).  A real model of each kind with one structural
-- change -- an element of an array or object deleted, duplicated, emptied or reordered, a
-- value of the wrong JSON type, the weights one short or one long -- is refused with 22023
-- (a NULL where a model needs a value: 22004) before anything reads it; the server never
-- crashes.  (An emptied "potentials" of a synthesizer model used to kill the backend: the
-- fit indexed a potential per measurement.)
CREATE SCHEMA regress_forge;
SET dpobj.seed = 5;
CREATE TABLE regress_forge.rows AS
SELECT i, CASE i % 3 WHEN 0 THEN 'F' WHEN 1 THEN 'M' ELSE 'X' END AS sex,
       (ARRAY['a', 'b', 'c'])[1 + i % 3] AS race, (i % 50) * 2.0 AS hours, (18 + i % 60)::float8 AS age,
       ARRAY[sin(i), cos(i * 7) / 2, ((i % 5) - 2) / 2.0]::float8[] AS f,
       sin(i) + cos(i * 3) > 0.3 AS y, sin(i * 3) AS r, 'c' || (i % 3) AS c
  FROM generate_series(1, 400) i;
CREATE TABLE regress_forge.models (kind text PRIMARY KEY, m dpobj.model NOT NULL);
INSERT INTO regress_forge.models
SELECT 'synthesizer', dpobj.dp_synthesize_cols(true, 1, 1e-6,
         '{"domains": [{"column": "sex", "levels": ["F", "M"]}, {"column": "race", "levels": ["a", "b", "c"]},
                       {"column": "hours", "lo": 0, "hi": 100}, {"column": "age", "lo": 18, "hi": 80}],
           "quantile": ["hours"], "bins": 8}', sex, race, hours::float8, age)
  FROM regress_forge.rows
UNION ALL SELECT 'linear', dpobj.dp_logistic(f, y, 1, 1e-6, '{"R": 2}') FROM regress_forge.rows
UNION ALL SELECT 'regression', dpobj.dp_linear_regression(f, r, 1, 1e-6, '{"R": 2, "y_min": -1, "y_max": 1}')
  FROM regress_forge.rows
UNION ALL SELECT 'multiclass', dpobj.dp_logistic_multiclass(f, c, 1, 1e-6, '{"R": 2, "classes": ["c0", "c1", "c2"]}')
  FROM regress_forge.rows
UNION ALL SELECT 'halfspace', dpobj.dp_halfspace(f, y, 1, 1e-6) FROM regress_forge.rows WHERE i <= 40
UNION ALL SELECT 'additive', dpobj.dp_ebm(f, y, 1, 1e-6, '{"lo": -1, "hi": 1}') FROM regress_forge.rows;
RESET dpobj.seed;
-- the real synthesizer model's shape the changes below assume: measurements, rounds (the
-- last measurements), the last round's record, a quantile column
SELECT jsonb_array_length(m.params->'measurements') > jsonb_array_length(m.params->'rounds') AS rounds_last,
       jsonb_array_length(m.params->'rounds') > 1 AS rounds, jsonb_typeof(m.params->'last') AS last,
       jsonb_array_length(m.params->'potentials') > 4 AS pairs, jsonb_array_length(m.params->'cliques') > 1 AS cliques,
       m.params->'columns'->2->>'kind' AS hours
  FROM regress_forge.models x, LATERAL (SELECT (x.m).*) m WHERE x.kind = 'synthesizer';

-- regress_forge.forge(kind, op, path, value): the real model of a kind with one change:
-- 'set' params at path to value, 'delete' it, 'duplicate' an array element (a copy before
-- it), 'swap' an array element with the next; 'short', 'long': the weights one element
-- short or long; 'params', 'mechanism', 'bias': that field set to value; 'none': unchanged
CREATE FUNCTION regress_forge.forge(k text, op text, path text[] DEFAULT NULL, v jsonb DEFAULT NULL)
RETURNS dpobj.model LANGUAGE plpgsql AS $$
DECLARE
  m dpobj.model;
  par text[];
  nxt text[];
BEGIN
  SELECT (x.m).* INTO m FROM regress_forge.models x WHERE x.kind = k;
  CASE op
  WHEN 'none' THEN NULL;
  WHEN 'set' THEN m.params := jsonb_set(m.params, path, v);
  WHEN 'delete' THEN m.params := m.params #- path;
  WHEN 'duplicate' THEN m.params := jsonb_insert(m.params, path, m.params #> path);
  WHEN 'swap' THEN
    par := path[1:cardinality(path) - 1];
    nxt := par || (path[cardinality(path)]::int + 1)::text;
    m.params := jsonb_set(jsonb_set(m.params, path, m.params #> nxt), nxt, m.params #> path);
  WHEN 'short' THEN m.weights := m.weights[1:cardinality(m.weights) - 1];
  WHEN 'long' THEN m.weights := m.weights || 0::float8;
  WHEN 'params' THEN m.params := v;
  WHEN 'mechanism' THEN m.mechanism := v #>> '{}';
  WHEN 'bias' THEN m.bias := (v #>> '{}')::float8;
  END CASE;
  RETURN m;
END $$;

-- ---- the synthesizer: dpobj.sample(), dpobj.marginal() (a pair no measurement holds:
-- no interval when the last round's bound is wider than the table), dpobj.model_kind() ----
CREATE TABLE regress_forge.synth_cases (n serial, label text, op text, path text[], v jsonb);
INSERT INTO regress_forge.synth_cases (label, op, path, v) VALUES
  ('the real model', 'none', NULL, NULL),
  ('potentials emptied', 'set', '{potentials}', '[]'),
  ('a potential deleted', 'delete', '{potentials,0}', NULL),
  ('the last potential deleted', 'delete', '{potentials,-1}', NULL),
  ('a potential duplicated', 'duplicate', '{potentials,1}', NULL),
  ('potentials reordered', 'swap', '{potentials,0}', NULL),
  ('a potential an array', 'set', '{potentials,0}', '[0]'),
  ('a potential''s set a string', 'set', '{potentials,0,set}', '"x"'),
  ('a potential''s set emptied', 'set', '{potentials,0,set}', '[]'),
  ('a potential''s set a column twice', 'set', '{potentials,4,set}', '[0, 0]'),
  ('a potential''s set out of range', 'set', '{potentials,0,set}', '[4]'),
  ('a potential''s offset deleted', 'delete', '{potentials,0,at}', NULL),
  ('a potential''s offset past the weights', 'set', '{potentials,0,at}', '1000000'),
  ('a potential''s offset -1', 'set', '{potentials,0,at}', '-1'),
  ('a potential''s offset 0 (overlapping)', 'set', '{potentials,0,at}', '0'),
  ('a potential''s offset a fraction', 'set', '{potentials,0,at}', '0.5'),
  ('a potential''s offset a string', 'set', '{potentials,0,at}', '"0"'),
  ('measurements emptied', 'set', '{measurements}', '[]'),
  ('a measurement deleted', 'delete', '{measurements,0}', NULL),
  ('the last measurement deleted', 'delete', '{measurements,-1}', NULL),
  ('a measurement duplicated', 'duplicate', '{measurements,0}', NULL),
  ('measurements reordered', 'swap', '{measurements,0}', NULL),
  ('a measurement''s set out of range', 'set', '{measurements,0,set}', '[-1]'),
  ('a measurement''s variance 0', 'set', '{measurements,0,sigma2}', '0'),
  ('a measurement''s variance a string', 'set', '{measurements,0,sigma2}', '"1"'),
  ('a measurement''s variance deleted', 'delete', '{measurements,0,sigma2}', NULL),
  ('a measurement''s offset past the weights', 'set', '{measurements,1,at}', '1000000'),
  ('a measurement''s cell variances moved', 'set', '{measurements,0,var_at}', '0'),
  ('rounds emptied', 'set', '{rounds}', '[]'),
  ('a round deleted', 'delete', '{rounds,0}', NULL),
  ('a round duplicated', 'duplicate', '{rounds,0}', NULL),
  ('rounds reordered', 'swap', '{rounds,0}', NULL),
  ('a round''s set another', 'set', '{rounds,0,set}', '[0, 1, 2]'),
  ('a round''s candidates a string', 'set', '{rounds,0,candidates}', '"x"'),
  ('cliques emptied', 'set', '{cliques}', '[]'),
  ('a clique deleted', 'delete', '{cliques,0}', NULL),
  ('a clique duplicated', 'duplicate', '{cliques,0}', NULL),
  ('cliques reordered', 'swap', '{cliques,0}', NULL),
  ('cliques an object', 'set', '{cliques}', '{}'),
  ('the last round a string', 'set', '{last}', '"x"'),
  ('the last round emptied', 'set', '{last}', '{}'),
  ('the last round''s candidates emptied', 'set', '{last,candidates}', '[]'),
  ('a last round''s candidate deleted', 'delete', '{last,candidates,0}', NULL),
  ('the last round''s weights deleted', 'delete', '{last,weights}', NULL),
  ('a last round''s weight a fraction', 'set', '{last,weights,0}', '0.5'),
  ('a last round''s weight 2^63', 'set', '{last,weights,0}', '9223372036854775808'),
  ('the last round''s potentials emptied', 'set', '{last,potentials}', '[]'),
  ('a last round''s potential deleted', 'delete', '{last,potentials,0}', NULL),
  ('a last round''s potential duplicated', 'duplicate', '{last,potentials,0}', NULL),
  ('the last round''s gamma a string', 'set', '{last,gamma}', '"1"'),
  ('columns emptied', 'set', '{columns}', '[]'),
  ('a column deleted', 'delete', '{columns,0}', NULL),
  ('a column duplicated', 'duplicate', '{columns,0}', NULL),
  ('columns reordered', 'swap', '{columns,1}', NULL),
  ('a column''s kind unknown', 'set', '{columns,3,kind}', '"spline"'),
  ('a column''s bins a string', 'set', '{columns,3,bins}', '"16"'),
  ('a column''s nullable deleted', 'delete', '{columns,3,nullable}', NULL),
  ('a levels column not nullable', 'set', '{columns,0,nullable}', 'false'),
  ('a column''s closed a string', 'set', '{columns,0,closed}', '"yes"'),
  ('a column''s closed deleted', 'delete', '{columns,1,closed}', NULL),
  ('a column without NULL closed', 'set', '{columns,3}', '{"kind": "bins", "bins": 8, "integer": false, "nullable": false, "closed": true}'),
  ('the version 5', 'set', '{synthesizer}', '5'),
  ('a quantile column''s sums_sigma2 negative', 'set', '{columns,2,sums_sigma2}', '-1'),
  ('a quantile column''s sums_at deleted', 'delete', '{columns,2,sums_at}', NULL),
  ('a quantile column''s sub-bins one fewer', 'set', '{columns,2,sub_bins}', '31'),
  ('a quantile column''s edges deleted', 'delete', '{columns,2,edges}', NULL),
  ('a quantile column''s edge moved', 'set', '{columns,2,edges,1}', '99'),
  ('a domain deleted', 'delete', '{domains,0}', NULL),
  ('a domain''s column named twice', 'set', '{domains,1,column}', '"sex"'),
  ('a domain''s levels one more', 'set', '{domains,0,levels}', '["F", "M", "X"]'),
  ('a domain''s range too wide for its bins', 'set', '{domains,3,hi}', '1e308'),
  ('a measurement''s columns another', 'set', '{measurements,0,columns}', '["race"]'),
  ('a measurement''s columns one more', 'set', '{measurements,0,columns}', '["sex", "race"]'),
  ('a measurement''s columns a string', 'set', '{measurements,0,columns}', '"sex"'),
  ('a measurement''s columns a number', 'set', '{measurements,0,columns,0}', '0'),
  ('a measurement''s columns deleted (older)', 'delete', '{measurements,0,columns}', NULL),
  ('rows 1e308', 'set', '{rows}', '1e308'),
  ('rho spent beyond rho', 'set', '{rho_spent}', '1'),
  ('the cap a string', 'set', '{max_model_cells}', '"65536"'),
  ('the cap below its floor', 'set', '{max_model_cells}', '16'),
  ('params emptied', 'params', NULL, '{}'),
  ('params an array', 'params', NULL, '[]'),
  ('the weights one short', 'short', NULL, NULL),
  ('the weights one long', 'long', NULL, NULL),
  ('the mechanism another', 'mechanism', NULL, '"logistic"'),
  ('the bias 1', 'bias', NULL, '1');
SELECT c.label, s.sqlstate AS sample, g.sqlstate AS marginal, k.sqlstate AS kind,
       q.sqlstate AS fidelity, coalesce(s.message, g.message, k.message, q.message) AS message
  FROM regress_forge.synth_cases c,
       LATERAL (SELECT regress_forge.forge('synthesizer', c.op, c.path, c.v)::text AS m) f,
       LATERAL regress.err(format('SELECT count(*) FROM dpobj.sample(%L::dpobj.model, 3)', f.m)) s,
       LATERAL regress.err(format('SELECT count(*) FROM dpobj.marginal(%L::dpobj.model, ARRAY[''sex'', ''age''])', f.m)) g,
       LATERAL regress.err(format('SELECT dpobj.model_kind(%L::dpobj.model)', f.m)) k,
       LATERAL regress.err(format('SELECT count(*) FROM dpobj.synth_fidelity(%L::dpobj.model)', f.m)) q
 ORDER BY c.n;

-- a hand-made model that passes every check answers like a real one: two level columns,
-- each measured once, no round (the rounds may end before the first), no last round; the
-- pair no measurement holds has an estimate and no interval
CREATE TABLE regress_forge.handmade AS
SELECT ROW('synthesize', '{10, 20, 30, 15, 15, 30, 0, 0, 0, 0, 0, 0}'::float8[], 0, 1, 1e-6,
  '{"synthesizer": 1, "domains": [{"column": "u", "levels": ["a", "b"]}, {"column": "v", "levels": ["p", "q"]}],
    "columns": [{"kind": "levels", "bins": 0, "integer": false, "nullable": true},
                {"kind": "levels", "bins": 0, "integer": false, "nullable": true}],
    "rows": 60, "rho": 0.5, "rho_spent": 0.5, "rows_per_unit": 1, "max_model_cells": 65536,
    "iterations": 0, "round_iterations": 1,
    "measurements": [{"set": [0], "sigma2": 1, "at": 0}, {"set": [1], "sigma2": 1, "at": 3}],
    "potentials": [{"set": [0], "at": 6}, {"set": [1], "at": 9}], "cliques": [[0], [1]],
    "rounds": [], "last": null}')::dpobj.model AS m;
SELECT count(*) FROM regress_forge.handmade, dpobj.sample(m, 60);
SELECT cell, round(estimate) AS estimate, ci_low, ci_high, basis
  FROM regress_forge.handmade, dpobj.marginal(m, ARRAY['u', 'v']) ORDER BY cell::text;
SELECT cell, round(estimate) AS estimate, basis
  FROM regress_forge.handmade, dpobj.marginal(m, ARRAY['u']) ORDER BY cell::text;
-- dpobj.synth_fidelity() of the handmade model: each measurement by name, the model's l1
-- distance to it, the noise's expected l1 (sqrt(2/pi) a cell at sigma2 1)
SELECT f.columns, f.cells, round(f.distance::numeric, 3) AS distance,
       round(f.expected_noise::numeric, 3) AS expected_noise, round(f.ratio::numeric, 3) AS ratio
  FROM regress_forge.handmade, dpobj.synth_fidelity(m) f;
-- the same with its cliques in another order than the tree the reader rebuilds
SELECT * FROM regress.err($$SELECT count(*) FROM dpobj.sample((SELECT ROW(mechanism, weights, bias, epsilon, delta,
         jsonb_set(params, '{cliques}', '[[1], [0]]'))::dpobj.model FROM regress_forge.handmade, LATERAL (SELECT (m).*) x), 1)$$);

-- ---- the other kinds: predict (or predict_class), explain, dp_evaluate; a model of a
-- kind that predicts with one change ----
CREATE TABLE regress_forge.kind_cases (n serial, kind text, label text, op text, path text[], v jsonb);
INSERT INTO regress_forge.kind_cases (kind, label, op, path, v) VALUES
  ('linear', 'the real model', 'none', NULL, NULL),
  ('linear', 'the weights one long', 'long', NULL, NULL),
  ('linear', 'params an array', 'params', NULL, '[]'),
  ('linear', 'd another', 'set', '{d}', '4'),
  ('linear', 'the threshold a string', 'set', '{threshold}', '"0"'),
  ('linear', 'an encoding of its width', 'set', '{encoding}', '[{"column": "s", "levels": ["F", "M"]}]'),
  ('linear', 'an encoding of another width', 'set', '{encoding}', '[{"column": "s", "levels": ["F", "M", "X"]}]'),
  ('linear', 'an encoding an object', 'set', '{encoding}', '{"column": "s", "levels": ["F", "M"]}'),
  ('linear', 'an encoding''s levels emptied', 'set', '{encoding}', '[{"column": "s", "levels": []}]'),
  ('linear', 'the mechanism NULL', 'mechanism', NULL, 'null'),
  ('regression', 'the real model', 'none', NULL, NULL),
  ('regression', 'y_max a string', 'set', '{y_max}', '"1"'),
  ('regression', 'y_min deleted', 'delete', '{y_min}', NULL),
  ('multiclass', 'the real model', 'none', NULL, NULL),
  ('multiclass', 'classes emptied', 'set', '{classes}', '[]'),
  ('multiclass', 'a class deleted', 'delete', '{classes,0}', NULL),
  ('multiclass', 'a class duplicated', 'duplicate', '{classes,0}', NULL),
  ('multiclass', 'a class a number', 'set', '{classes,0}', '0'),
  ('multiclass', 'dims reordered', 'swap', '{dims,0}', NULL),
  ('multiclass', 'dims one deleted', 'delete', '{dims,1}', NULL),
  ('multiclass', 'the weights one short', 'short', NULL, NULL),
  ('multiclass', 'an encoding of another width', 'set', '{encoding}', '[{"column": "s", "levels": ["F", "M", "X"]}]'),
  ('halfspace', 'the real model', 'none', NULL, NULL),
  ('halfspace', 'Q a string', 'set', '{Q}', '"64"'),
  ('halfspace', 'Q a fraction', 'set', '{Q}', '0.5'),
  ('halfspace', 'the bias 1', 'bias', NULL, '1'),
  ('additive', 'the real model', 'none', NULL, NULL),
  ('additive', 'terms emptied', 'set', '{terms}', '[]'),
  ('additive', 'a term deleted', 'delete', '{terms,0}', NULL),
  ('additive', 'a term duplicated', 'duplicate', '{terms,0}', NULL),
  ('additive', 'terms reordered (same sizes: still a model)', 'swap', '{terms,0}', NULL),
  ('additive', 'a term an array', 'set', '{terms,0}', '[]'),
  ('additive', 'a term''s index a string', 'set', '{terms,0,index}', '"0"'),
  ('additive', 'a term''s index past d', 'set', '{terms,0,index}', '3'),
  ('additive', 'a term''s cuts deleted', 'delete', '{terms,0,cuts}', NULL),
  ('additive', 'a term''s cuts reordered', 'swap', '{terms,0,cuts,0}', NULL),
  ('additive', 'counts one deleted', 'delete', '{counts,0}', NULL),
  ('additive', 'counts a string', 'set', '{counts}', '"x"'),
  ('additive', 'd below the terms', 'set', '{d}', '1'),
  ('additive', 'link deleted', 'delete', '{link}', NULL),
  ('additive', 'the weights one short', 'short', NULL, NULL);
SELECT c.kind, c.label, p.sqlstate AS predict, e.sqlstate AS explain, v.sqlstate AS evaluate,
       coalesce(p.message, e.message, v.message) AS message
  FROM regress_forge.kind_cases c,
       LATERAL (SELECT regress_forge.forge(c.kind, c.op, c.path, c.v)::text AS m) f,
       LATERAL regress.err(format(CASE c.kind WHEN 'multiclass' THEN 'SELECT dpobj.predict_class(%L::dpobj.model, ''{0.1, 0.2, 0.3}'')'
                                   ELSE 'SELECT dpobj.predict(%L::dpobj.model, ''{0.1, 0.2, 0.3}'')' END, f.m)) p,
       LATERAL regress.err(format('SELECT count(*) FROM dpobj.explain(%L::dpobj.model)', f.m)) e,
       LATERAL regress.err(format('SELECT dpobj.dp_evaluate(r.f, %s, 1, 1e-6, jsonb_build_object(''model'', %L)) FROM regress_forge.rows r',
                                  CASE c.kind WHEN 'multiclass' THEN 'r.c' WHEN 'regression' THEN 'r.r' ELSE 'r.y' END, f.m)) v
 ORDER BY c.n;
-- a model refused by its readers is refused when saved (the readers' own checks)
SELECT * FROM regress.err($$SELECT dpobj.save_model('regress_forge', regress_forge.forge('multiclass', 'delete', '{classes,0}'))$$);
SELECT * FROM regress.err($$SELECT dpobj.save_model('regress_forge', regress_forge.forge('linear', 'mechanism', NULL, 'null'))$$);

DROP SCHEMA regress_forge CASCADE;
