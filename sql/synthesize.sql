-- dpobj.synthesize(): a private synthetic copy of a protected table's declared columns,
-- charged once through train()'s sealed path; dpobj.sample() and dpobj.marginal() read
-- the stored model at no charge.  Refusals come before the charge (the ledger shows none).
CREATE SCHEMA regress_syn;
CREATE ROLE regress_syn_alice;
CREATE SCHEMA regress_syn_out AUTHORIZATION regress_syn_alice;
CREATE TABLE regress_syn.people AS
SELECT i, CASE i % 3 WHEN 0 THEN 'F' WHEN 1 THEN 'M' ELSE 'X' END AS sex,
       CASE WHEN i % 10 = 0 THEN NULL ELSE (ARRAY['a', 'b', 'c'])[1 + i % 3] END AS race,
       CASE WHEN i % 25 = 0 THEN NULL ELSE (i % 50) * 2.5 END AS hours, 18 + i % 60 AS age
  FROM generate_series(1, 600) i;
SELECT dpobj.declare_domain('regress_syn.people', 'sex', ARRAY['F', 'M']);
SELECT dpobj.declare_domain('regress_syn.people', 'race', ARRAY['a', 'b', 'c']);
SELECT dpobj.declare_domain('regress_syn.people', 'hours', 0, 100);
SELECT dpobj.declare_domain('regress_syn.people', 'age', 18, 80);
SELECT dpobj.protect('regress_syn.people');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_syn.people', 'regress_syn_alice', 100000, 0.01);
GRANT USAGE ON SCHEMA regress_syn TO regress_syn_alice;
SET ROLE regress_syn_alice;

-- public refusals, nothing charged: a column without a domain (every one named), the
-- target (exists, no CREATE), options, NULLs, train() and the direct mechanism name
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.t', 1, 1e-6, ARRAY['sex', 'i'])$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn.t', 1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 't', 1, 1e-6)$$);
CREATE TABLE regress_syn_out.taken (x int);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.taken', 1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.t', 1, 1e-6, NULL, '{"rows": 0}')$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.t', 1, 1e-6, NULL, '{"domains": []}')$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.t', 1, 1e-6, NULL, '{"bogus": 1}')$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.t', 1, 1e-6, NULL, '{"workload": [["sex", "nope"]]}')$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.t', 1, 1e-6, NULL, '{"workload": [["sex", "sex"]]}')$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.t', 1, 1e-6, NULL, '{"workload": []}')$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.t', 1, 1e-6, ARRAY['sex', 'race'], '{"label": "age"}')$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.t', 1, 1e-6, ARRAY['sex', 'sex'])$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.t', 1, NULL)$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.people', 'regress_syn_out.t', 1, 0)$$);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_syn.people', 'synthesize', ARRAY['sex'], 'sex', 1, 1e-6)$$);
SELECT count(*) AS charges FROM dpobj.ledger WHERE relation = 'regress_syn.people';
-- a column of a type without USAGE for the caller (the target's CREATE TABLE needs it),
-- refused before the charge
RESET ROLE;
CREATE DOMAIN regress_syn.private_int AS int;
REVOKE USAGE ON DOMAIN regress_syn.private_int FROM PUBLIC;
CREATE TABLE regress_syn.typed AS
SELECT (i % 10)::regress_syn.private_int AS code FROM generate_series(1, 50) i;
SELECT dpobj.declare_domain('regress_syn.typed', 'code', 0, 10);
SELECT dpobj.protect('regress_syn.typed');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_syn.typed', 'regress_syn_alice', 10, 0.01);
SET ROLE regress_syn_alice;
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.typed', 'regress_syn_out.t', 1, 1e-6, ARRAY['code'])$$);
SELECT count(*) AS charges FROM dpobj.ledger WHERE relation = 'regress_syn.typed';

-- one run: one charge, the model stored under the target's name, the target owned by
-- the caller with the source's column types and the noisy row count (its sd is about
-- 55 rows here: 40 runs gave 496 to 716; the range is 5.5 sd either side)
SELECT target_table, model_name, rows BETWEEN 300 AND 900 AS rows_near
  FROM dpobj.synthesize('regress_syn.people', 'regress_syn_out.people_syn', 1, 1e-6);
SELECT mechanism, outcome, epsilon FROM dpobj.ledger WHERE relation = 'regress_syn.people';
SELECT c.relowner::regrole, a.attname, format_type(a.atttypid, a.atttypmod)
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
 WHERE c.oid = 'regress_syn_out.people_syn'::regclass ORDER BY a.attnum;
SELECT m.mechanism, dpobj.model_kind(m) AS kind, m.params ? 'synthesizer' AS synthesizer
  FROM dpobj.get_model('people_syn') m;
-- every synthetic value within its domain: levels or NULL, numbers within the bounds
SELECT bool_and(sex IS NULL OR sex IN ('F', 'M')) AND bool_and(race IS NULL OR race IN ('a', 'b', 'c'))
       AND bool_and(hours IS NULL OR hours BETWEEN 0 AND 100) AND bool_and(age BETWEEN 18 AND 80) AS within
  FROM regress_syn_out.people_syn;
-- a model is no predictor
SELECT * FROM regress.err($$SELECT dpobj.predict(dpobj.get_model('people_syn'), ARRAY[1.0])$$);

-- options: a chosen row count and model name, a column subset, a workload
SELECT target_table, model_name, rows
  FROM dpobj.synthesize('regress_syn.people', 'regress_syn_out.two', 1, 1e-6, ARRAY['sex', 'race'],
                        '{"rows": 50, "model_name": "two_cols", "workload": [["sex", "race"]]}');
SELECT count(*), count(DISTINCT sex) <= 3 AS levels FROM regress_syn_out.two;
-- the workload bounds the selection: over all four columns, every round measures a
-- subset of {sex, race} (columns 0 and 1); with a "label", step 1 measures each other
-- column's pair with it (three pairs, each holding column 3)
SELECT rows FROM dpobj.synthesize('regress_syn.people', 'regress_syn_out.w', 1, 1e-6, NULL,
                                  '{"rows": 10, "model_name": "w", "workload": [["sex", "race"]]}');
SELECT count(*) > 0 AS rounds, bool_and(r->'set' <@ '[0, 1]') AS within
  FROM dpobj.get_model('w') m, jsonb_array_elements(m.params->'rounds') r;
SELECT rows FROM dpobj.synthesize('regress_syn.people', 'regress_syn_out.l', 1, 1e-6, NULL,
                                  '{"rows": 10, "model_name": "l", "label": "age", "quantile": false}');
SELECT jsonb_agg(x->'set' ORDER BY i) AS first_three
  FROM dpobj.get_model('l') m, jsonb_array_elements(m.params->'measurements') WITH ORDINALITY e(x, i)
 WHERE i <= 3;
-- quantile columns only, with a "label": their first releases stay at a column's share (the
-- larger one without a label would spend 1.8 rho here), the run within rho
SELECT rows FROM dpobj.synthesize('regress_syn.people', 'regress_syn_out.lq', 1, 1e-6, ARRAY['hours', 'age'],
                                  '{"rows": 10, "model_name": "lq", "label": "age"}');
SELECT (params->>'rho_spent')::float8 <= (params->>'rho')::float8 AS within FROM dpobj.get_model('lq');

-- at a large epsilon the synthetic copy keeps the 2-way marginal within a few rows
SELECT target_table FROM dpobj.synthesize('regress_syn.people', 'regress_syn_out.exact', 10000, 1e-6,
                                          ARRAY['sex', 'race'], '{"rows": 600}');
RESET ROLE;
SELECT max(abs(coalesce(s.n, 0) - coalesce(t.n, 0))) <= 3 AS close
  FROM (SELECT coalesce(sex, '-') AS sex, coalesce(race, '-') AS race, count(*) n
          FROM regress_syn_out.exact GROUP BY 1, 2) s
  FULL JOIN (SELECT CASE WHEN sex IN ('F', 'M') THEN sex ELSE '-' END AS sex,
                    coalesce(race, '-') AS race, count(*) n
               FROM regress_syn.people GROUP BY 1, 2) t USING (sex, race);
SET ROLE regress_syn_alice;

-- dpobj.marginal(): every cell, an ordered 95 % interval holding the estimate; at a large
-- epsilon the truth; an unknown column refused
SELECT cell, round(estimate) AS estimate, ci_low <= estimate AND estimate <= ci_high AS ordered, basis
  FROM dpobj.marginal('exact', ARRAY['sex']) ORDER BY cell::text;
-- (race's 3 levels and "other" by hours' quantile bins and NULL: as many as its edges;
-- a set never measured: no interval, basis NULL, and a NOTICE, hidden here: whether
-- this one was measured depends on the run)
SET client_min_messages = warning;
SELECT count(*) = 4 * (SELECT jsonb_array_length(params->'columns'->2->'edges')
                         FROM dpobj.get_model('people_syn')) AS cells,
       bool_and(basis IS NULL OR (ci_low <= estimate AND estimate <= ci_high AND ci_low >= 0)) AS ordered,
       bool_and(basis IS NOT NULL OR (ci_low IS NULL AND ci_high IS NULL)) AS null_without_basis,
       bool_and(basis IS DISTINCT FROM 'selection' OR ci_high - ci_low <= 900) AS narrower_than_table
  FROM dpobj.marginal('people_syn', ARRAY['race', 'hours']);
RESET client_min_messages;
-- dpobj.synth_fidelity(): one row per measurement, its columns by name, the model's l1
-- distance to it against its noise's expected l1; finite, no charge
SELECT count(*) = jsonb_array_length(m.params->'measurements') AS one_a_measurement,
       bool_and(f.columns <@ ARRAY['sex', 'race', 'hours', 'age']) AS named,
       bool_and(f.cells > 0 AND f.expected_noise > 0 AND f.distance >= 0) AS positive,
       bool_and(f.ratio = f.distance / f.expected_noise
                AND f.ratio < 'infinity'::float8) AS finite
  FROM dpobj.get_model('people_syn') m, dpobj.synth_fidelity(m) f GROUP BY m.params;
SELECT * FROM regress.err($$SELECT * FROM dpobj.marginal('people_syn', ARRAY['nope'])$$);
-- dpobj.sample(): n rows, the model's columns, no charge
SELECT count(*), bool_and(r ?& ARRAY['sex', 'race', 'hours', 'age']) AS keys
  FROM dpobj.sample('people_syn', 70000) r;
SELECT * FROM regress.err($$SELECT dpobj.sample('people_syn', -1)$$);
-- a forged row count: beyond 2^53 refused (1e308 made every cell infinite, and the draw
-- never ended); at 2^53 the draw is the model's
SELECT * FROM regress.err($$SELECT dpobj.sample(ROW(m.mechanism, m.weights, m.bias, m.epsilon, m.delta,
         jsonb_set(m.params, '{rows}', '1e308'))::dpobj.model, 5) FROM dpobj.get_model('people_syn') m$$);
SELECT count(*) FROM dpobj.get_model('people_syn') m,
       dpobj.sample(ROW(m.mechanism, m.weights, m.bias, m.epsilon, m.delta,
                        jsonb_set(m.params, '{rows}', '9007199254740992'))::dpobj.model, 5);
-- as a job: dpobj.submit(rel, 'synthesize', columns ('{}': every declared one), label
-- (unused), epsilon, delta, options with "target"), refused at submit like synthesize()
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_syn.people', 'synthesize', '{}', '', 1, 1e-6, '{}')$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_syn.people', 'synthesize', '{}', '', 1, 1e-6, '{"target": "regress_syn_out.two"}')$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_syn.people', 'synthesize', ARRAY['i'], '', 1, 1e-6, '{"target": "regress_syn_out.j"}')$$);
SELECT dpobj.submit('regress_syn.people', 'synthesize', ARRAY['sex', 'race'], '', 1, 1e-6,
                    '{"target": "regress_syn_out.job_syn", "rows": 20, "model_name": "job_syn"}') AS job \gset
SELECT regress.wait_job(:job);
SELECT state, (model).mechanism, error FROM dpobj.jobs WHERE id = :job;
SELECT count(*), (SELECT relowner::regrole FROM pg_class WHERE oid = 'regress_syn_out.job_syn'::regclass)
  FROM regress_syn_out.job_syn;
SELECT count(*) AS charges FROM dpobj.ledger WHERE relation = 'regress_syn.people';
RESET ROLE;
\set opts '{"domains": [{"column": "sex", "levels": ["F", "M"]}, {"column": "race", "levels": ["a", "b", "c"]}, {"column": "hours", "lo": 0, "hi": 100}, {"column": "age", "lo": 18, "hi": 80}]}'

-- the array form dp_synthesize (train()'s on Citus): the columns with levels as text[], the
-- others as float8[], each in the order of "domains"; under one seed (a superuser's direct
-- call) dp_synthesize_cols's model; another shape refused
SET dpobj.seed = 7;
SELECT a = c AS same_model
  FROM (SELECT dpobj.dp_synthesize(true, 1, 1e-6, :'opts', ARRAY[sex, race], ARRAY[hours::float8, age::float8])::text a
          FROM regress_syn.people) x,
       (SELECT dpobj.dp_synthesize_cols(true, 1, 1e-6, :'opts', sex, race, hours::float8, age::float8)::text c
          FROM regress_syn.people) y;
RESET dpobj.seed;
SELECT * FROM regress.err($$SELECT dpobj.dp_synthesize(true, 1, 1e-6, '{"domains": [{"column": "sex", "levels": ["F", "M"]}, {"column": "age", "lo": 18, "hi": 80}]}', ARRAY[sex, sex], ARRAY[age::float8]) FROM regress_syn.people$$);
-- with a "label", a quantile column's bins are released by its levels when the sub-bins'
-- noisy mean a bin is at least 10 sd of a cell (epsilon 50 here), else alone (epsilon 1)
SET ROLE regress_syn_alice;
SET client_min_messages = warning;
SELECT e, rows FROM unnest(ARRAY[50, 1]) e,
       dpobj.synthesize('regress_syn.people', 'regress_syn_out.lp' || e, e, 1e-6, ARRAY['sex', 'hours'],
                        format('{"rows": 10, "model_name": "lp%s", "label": "sex"}', e)::jsonb);
SELECT e, (m).params->'measurements'->0->'columns' AS first_measured
  FROM unnest(ARRAY[50, 1]) e, dpobj.get_model('lp' || e) m;
RESET client_min_messages;
RESET ROLE;

-- a table of five columns of 85 to 100 declared levels and nine small ones (an Adult-like
-- shape): with the defaults its workload's triples of wide columns would not fit
-- dpobj.max_state_memory; the sets that would not are left out on public grounds (the
-- levels, the cap), a NOTICE names them and the run's bound, which never exceeds the cap
CREATE TABLE regress_syn.wide AS
SELECT 'v' || (i % 100) AS w1, 'v' || (i * 7 % 95) AS w2, 'v' || (i * 13 % 90) AS w3,
       'v' || (i * 3 % 85) AS w4, 'v' || (i * 11 % 100) AS w5, 'v' || (i % 7) AS s1,
       'v' || (i % 9) AS s2, 'v' || (i % 16) AS s3, 'v' || (i % 5) AS s4, 'v' || (i % 6) AS s5,
       'v' || (i % 2) AS s6, 'v' || (i % 3) AS s7, 'v' || (i % 40) AS s8, 'v' || (i % 2) AS s9
  FROM generate_series(1, 3000) i;
SELECT count(dpobj.declare_domain('regress_syn.wide', c,
                                  (SELECT array_agg('v' || g ORDER BY g) FROM generate_series(0, n - 1) g)))
  FROM (VALUES ('w1', 100), ('w2', 95), ('w3', 90), ('w4', 85), ('w5', 100), ('s1', 7), ('s2', 9),
               ('s3', 16), ('s4', 5), ('s5', 6), ('s6', 2), ('s7', 3), ('s8', 40), ('s9', 2)) v(c, n);
SELECT dpobj.protect('regress_syn.wide');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_syn.wide', 'regress_syn_alice', 2, 0.01);
-- the cap at 64 MB, 256 MB (the default) and 1 GB: each NOTICE's bound is within its cap
-- (epsilon 5 is beyond the budget: refused after the public checks, nothing charged)
SET dpobj.max_state_memory = '64MB';
SET ROLE regress_syn_alice;
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.wide', 'regress_syn_out.wide', 5, 1e-6)$$);
-- refused before the charge only when the single columns and the model cap alone do not fit
-- (the cap, "max_model_cells"), or the singles exceed an explicit "max_state_cells"
RESET ROLE;
SET dpobj.max_state_memory = '1MB';
SET ROLE regress_syn_alice;
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.wide', 'regress_syn_out.wide', 1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.wide', 'regress_syn_out.wide', 1, 1e-6, NULL, '{"max_state_cells": 100}')$$);
RESET ROLE;
SET dpobj.max_state_memory = '1GB';
SET ROLE regress_syn_alice;
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.wide', 'regress_syn_out.wide', 5, 1e-6)$$);
RESET ROLE;
RESET dpobj.max_state_memory;
SET ROLE regress_syn_alice;
-- the first step's model (every column, paired with a "label") beyond "max_model_cells"
-- failed after the charge ("over the size cap"): refused before it now
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_syn.wide', 'regress_syn_out.wide', 1, 1e-6, NULL, '{"label": "s1", "max_model_cells": 256}')$$);
-- with the defaults it runs, charged once; the model never measured a left-out triple
SELECT target_table, rows BETWEEN 2000 AND 4000 AS rows_near
  FROM dpobj.synthesize('regress_syn.wide', 'regress_syn_out.wide', 1, 1e-6);
SELECT count(*) AS charges, bool_and(outcome = 'released') AS released
  FROM dpobj.ledger WHERE relation = 'regress_syn.wide';
SELECT count(*) FILTER (WHERE x->'set' @> '[0, 1, 2]') AS w1_w2_w3_measured
  FROM dpobj.get_model('wide') m, jsonb_array_elements(m.params->'measurements') x;
RESET ROLE;
DROP SCHEMA regress_syn_out CASCADE;
SELECT dpobj.unprotect('regress_syn.wide');
SELECT dpobj.unprotect('regress_syn.people');
SELECT dpobj.unprotect('regress_syn.typed');
DROP SCHEMA regress_syn CASCADE;
DROP ROLE regress_syn_alice;
