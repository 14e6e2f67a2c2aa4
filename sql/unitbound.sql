-- A private rows-per-unit bound (src/protected/unitbound.c): dpobj.aggregate()
-- with "rows_per_unit": "private" draws k' from 1, 2, 4, ..., k (the declared
-- max_rows_per_unit) as a private 0.9 quantile of the units' row counts, at a
-- tenth of the run's epsilon, keeps k' rows per unit and calibrates the rest
-- of epsilon for k'; k' is released as a row 'rows_per_unit'.
CREATE SCHEMA regress_ub;
CREATE ROLE regress_ub_alice;
GRANT USAGE, CREATE ON SCHEMA regress_ub TO regress_ub_alice;
-- 2000 persons: 1900 of one row, 100 of 40 rows (5900 rows); declared k = 64
CREATE TABLE regress_ub.visits AS
SELECT u AS person, CASE (u + r) % 2 WHEN 0 THEN 'F' ELSE 'M' END AS sex
  FROM generate_series(1, 2000) u, generate_series(1, CASE WHEN u % 20 = 0 THEN 40 ELSE 1 END) r;
SELECT dpobj.declare_domain('regress_ub.visits', 'sex', ARRAY['F', 'M']);
SELECT dpobj.protect('regress_ub.visits', 'person', 64);
SELECT 1 FROM dpobj.grant_budget('regress_ub.visits', 'regress_ub_alice', 100, 0.001);
CREATE TABLE regress_ub.flat AS SELECT * FROM regress_ub.visits;
SELECT dpobj.declare_domain('regress_ub.flat', 'sex', ARRAY['F', 'M']);
SELECT dpobj.protect('regress_ub.flat');
SELECT 1 FROM dpobj.grant_budget('regress_ub.flat', 'regress_ub_alice', 100, 0.001);
-- the same persons as 1000-character texts: 2000 of them outgrow 64kB
CREATE TABLE regress_ub.wide AS SELECT repeat('p', 1000) || person AS person, sex FROM regress_ub.visits;
SELECT dpobj.declare_domain('regress_ub.wide', 'sex', ARRAY['F', 'M']);
SELECT dpobj.protect('regress_ub.wide', 'person', 64);
SELECT 1 FROM dpobj.grant_budget('regress_ub.wide', 'regress_ub_alice', 100, 0.001);
SET ROLE regress_ub_alice;
-- the declared k = 64: the noise for 64 rows per person
CREATE TEMP TABLE declared AS
SELECT * FROM dpobj.aggregate('regress_ub.visits', '[{"stat": "count"}]', 4, 1e-6, '{sex}');
-- private: the 0.9 quantile is 1 row (1900 of 2000 persons); every other
-- candidate's loss is 100 (gamma = 0.4 / 2: each w.p. < e^-19), so k' = 1
CREATE TEMP TABLE private AS
SELECT * FROM dpobj.aggregate('regress_ub.visits', '[{"stat": "count"}]', 4, 1e-6, '{sex}',
                              '{"rows_per_unit": "private"}');
SELECT statistic, estimate FROM private WHERE statistic = 'rows_per_unit';
-- half-widths of the F count: 64 rows at epsilon 4, then 1 row at 3.6
SELECT d.ci_high - d.estimate AS declared_h, p.ci_high - p.estimate AS private_h,
       p.ci_high - p.estimate < (d.ci_high - d.estimate) / 20 AS narrower
  FROM declared d JOIN private p USING (group_values, statistic)
 WHERE group_values = '{"sex": "F"}';
-- one row per person kept: the counts sum to about 2000 (of 5900 rows)
SELECT abs(sum(estimate) - 2000) < 60 AS one_per_person FROM private WHERE statistic = 'count';
-- refusals on public grounds, nothing charged
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ub.visits', '[{"stat": "count"}]', 1, 1e-6, '{sex}', '{"rows_per_unit": 3}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ub.flat', '[{"stat": "count"}]', 1, 1e-6, '{sex}', '{"rows_per_unit": "private"}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ub.visits', '[{"stat": "count"}]', 1, 1e-6, '{person}', '{"rows_per_unit": "private"}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.train('regress_ub.visits', 'linear', ARRAY['sex'], 'person', 1, 1e-6, '{"rows_per_unit": "private"}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.train('regress_ub.visits', 'linear', ARRAY['sex'], 'person', 1, 1e-6, '{"rows_per_unit": 2}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.synthesize('regress_ub.visits', 'regress_ub.syn', 1, 1e-6, ARRAY['sex'], '{"rows_per_unit": "private"}')$$);
SELECT relation, mechanism, epsilon, privacy_unit, rows_per_unit, outcome FROM dpobj.ledger
 WHERE relation LIKE 'regress_ub.%' ORDER BY id;
-- private SQL queries: dpobj.query_rows_per_unit = private (k' used, not shown)
SET dpobj.query_epsilon = 4;
SELECT count(*) AS n FROM regress_ub.visits \gset
SELECT abs(:n - 5900) < 400 AS all_rows;
SET dpobj.query_rows_per_unit = private;
SELECT count(*) AS n FROM regress_ub.visits \gset
SELECT abs(:n - 2000) < 60 AS one_per_person;
SET dpobj.query_delta = 1e-6;
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ub.visits GROUP BY person$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ub.flat$$);
RESET dpobj.query_rows_per_unit;
RESET dpobj.query_epsilon;
RESET dpobj.query_delta;
SELECT relation, mechanism, epsilon, rows_per_unit, outcome FROM dpobj.ledger
 WHERE relation LIKE 'regress_ub.%' AND mechanism = 'query' ORDER BY id;
-- the spilled path (units past dpobj.max_state_memory, sorted by unit) chooses the same way
RESET ROLE;
SET dpobj.max_state_memory = 64;
SET ROLE regress_ub_alice;
SELECT statistic, CASE statistic WHEN 'count' THEN abs(estimate - 2000) < 60 END AS one_per_person,
       CASE statistic WHEN 'rows_per_unit' THEN estimate END AS k
  FROM dpobj.aggregate('regress_ub.wide', '[{"stat": "count"}]', 4, 1e-6, '{}', '{"rows_per_unit": "private"}');
-- dpobj.describe() takes the option: the same run, k' chosen first
RESET ROLE;
RESET dpobj.max_state_memory;
SET ROLE regress_ub_alice;
SELECT statistic, CASE statistic WHEN 'count' THEN abs(estimate - 2000) < 60 END AS one_per_person,
       CASE statistic WHEN 'rows_per_unit' THEN estimate END AS k
  FROM dpobj.describe('regress_ub.visits', 4, 1e-6, '{"rows_per_unit": "private"}')
 WHERE statistic <> 'histogram';
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_ub.visits', 1, 1e-6, '{"rows_per_unit": 2}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.describe('regress_ub.flat', 1, 1e-6, '{"rows_per_unit": "private"}')$$);
SELECT relation, mechanism, epsilon, rows_per_unit, outcome FROM dpobj.ledger
 WHERE relation LIKE 'regress_ub.%' AND mechanism = 'describe' ORDER BY id;
-- accuracy before a run: the worst case, the declared k at 0.9 epsilon
SELECT p.half_width = d.half_width AS worst_case
  FROM dpobj.aggregate_accuracy('regress_ub.visits', '[{"stat": "count"}]', 4, '{sex}',
                                '{"rows_per_unit": "private"}') p,
       dpobj.aggregate_accuracy('regress_ub.visits', '[{"stat": "count"}]', 4 * 0.9, '{sex}') d;
SELECT p.epsilon > d.epsilon AS more_epsilon
  FROM dpobj.aggregate_epsilon('regress_ub.visits', '[{"stat": "count"}]', 100, '{sex}',
                               '{"rows_per_unit": "private"}') p,
       dpobj.aggregate_epsilon('regress_ub.visits', '[{"stat": "count"}]', 100, '{sex}') d;
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_ub.flat', '[{"stat": "count"}]', 1, '{sex}', '{"rows_per_unit": "private"}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_ub.visits', '[{"stat": "count"}]', 1, '{person}', '{"rows_per_unit": "private"}')$$);
-- EXPLAIN of a private query: the same widths, "at most"
SET dpobj.query_epsilon = 4;
EXPLAIN (COSTS OFF) SELECT sex, count(*) FROM regress_ub.visits GROUP BY sex;
SET dpobj.query_rows_per_unit = private;
EXPLAIN (COSTS OFF) SELECT sex, count(*) FROM regress_ub.visits GROUP BY sex;
RESET dpobj.query_rows_per_unit;
RESET dpobj.query_epsilon;
DROP TABLE declared, private;
RESET ROLE;
-- outside a run: refused
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.unit_bound(n) FROM generate_series(1, 3) n$$);
-- its Citus form (unitboundshards.c) too; a state that is not its histogram errs
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.unit_bound_shards(n, '{}') FROM generate_series(1, 3) n$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.unit_bound_shards_combine('{1,2}', '{1,2}')$$);
-- a forged state through the caller's own aggregate over its support functions: 22023
CREATE AGGREGATE regress_ub.comb(bigint[]) (sfunc = dpobj.unit_bound_shards_combine, stype = bigint[]);
SELECT sqlstate, message FROM regress.err($$SELECT regress_ub.comb(x) FROM (VALUES ('{1,2}'::bigint[])) v(x)$$);
SELECT sqlstate, message FROM regress.err($$SELECT regress_ub.comb(x) FROM (VALUES ('{0,0,0,0,0,0,0,-1,0,0,0,0,0,0,0}'::bigint[])) v(x)$$);
SELECT regress_ub.comb(x) FROM (VALUES ('{1,0,0,0,0,0,0,0,0,0,0,0,0,0,0}'::bigint[]), ('{1,2,0,0,0,0,0,0,0,0,0,0,0,0,0}'::bigint[])) v(x);
DROP SCHEMA regress_ub CASCADE;
DROP ROLE regress_ub_alice;
