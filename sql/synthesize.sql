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
-- (race's 3 levels and "other" by hours' quantile bins and NULL: as many as its edges)
SELECT count(*) = 4 * (SELECT jsonb_array_length(params->'columns'->2->'edges')
                         FROM dpobj.get_model('people_syn')) AS cells,
       bool_and(ci_low <= estimate AND estimate <= ci_high AND ci_low >= 0) AS ordered
  FROM dpobj.marginal('people_syn', ARRAY['race', 'hours']);
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
DROP SCHEMA regress_syn_out CASCADE;
SELECT dpobj.unprotect('regress_syn.people');
SELECT dpobj.unprotect('regress_syn.typed');
DROP SCHEMA regress_syn CASCADE;
DROP ROLE regress_syn_alice;
