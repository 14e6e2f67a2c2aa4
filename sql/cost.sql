-- dpobj.cost(): what one run would charge, from public state, by the charge's
-- own rule; and the NOTICE, before the charge, when a run changes how the budget
-- composes (docs/PRIVACY.md, "Composition: one filter for every mechanism")
CREATE SCHEMA regress_cost;
GRANT USAGE ON SCHEMA regress_cost TO PUBLIC;
CREATE ROLE regress_cost_analyst;
CREATE TABLE regress_cost.t AS
SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 3) > 0 AS y
  FROM generate_series(1, 200) i;
CREATE TABLE regress_cost.plain AS SELECT * FROM regress_cost.t;
SELECT dpobj.protect('regress_cost.t');
GRANT SELECT ON regress_cost.plain TO regress_cost_analyst;
SET ROLE regress_cost_analyst;
-- not protected: refused as runs_left refuses; protected, no budget: NULLs
SELECT * FROM dpobj.cost('regress_cost.plain', 'auto', 1, 1e-9);
SELECT * FROM dpobj.cost('regress_cost.t', 'auto', 1, 1e-9, '{"R": 1.5}');
RESET ROLE;
SELECT (dpobj.grant_budget('regress_cost.t', 'regress_cost_analyst', 3, 1e-6)).id IS NOT NULL AS granted;
SET ROLE regress_cost_analyst;
CREATE TEMP TABLE before_after (step int, cost_spent numeric, budget_spent numeric);
-- shown to 12 digits: the last of the accountant's float8 arithmetic follows the libm
CREATE FUNCTION pg_temp.c12(r regclass, m text, e numeric, d numeric, o jsonb DEFAULT '{}')
RETURNS TABLE (kind text, charge_epsilon numeric, charge_delta numeric, rho numeric, admitted boolean,
               composition text, adds_epsilon numeric, spent_epsilon numeric,
               remaining_epsilon numeric, remaining_delta numeric) LANGUAGE sql AS $$
  SELECT kind, charge_epsilon, charge_delta, round(rho, 12), admitted, composition, round(adds_epsilon, 12),
         round(spent_epsilon, 12), round(remaining_epsilon, 12), remaining_delta FROM dpobj.cost(r, m, e, d, o) $$;
-- an epsilon-DP run (evaluate, aggregate: describe's) at its default delta 0: charged
-- as 0, remaining_delta kept; a run that needs delta refuses 0, as train() does
SELECT kind, charge_delta, admitted, adds_epsilon, remaining_delta FROM dpobj.cost('regress_cost.t', 'evaluate', 0.25);
SELECT kind, charge_delta, admitted, adds_epsilon, remaining_delta FROM dpobj.cost('regress_cost.t', 'aggregate', 1, 0);
SELECT dpobj.runs_left('regress_cost.t', 'evaluate', 0.25) AS evaluate_left,
       dpobj.runs_left('regress_cost.t', 'aggregate', 1, 0) AS aggregate_left;
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.runs_left('regress_cost.t', 'passglm', 0.5, options => '{"R": 1}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.cost('regress_cost.t', 'aggregate_keys', 1, 0)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.cost('regress_cost.t', 'evaluate', 1, -1e-9)$$);
-- auto (1, 1e-9), passglm 0.5, two evaluations at 0.25: each run's preview is
-- the spend my_budgets shows after it
SELECT * FROM pg_temp.c12('regress_cost.t', 'auto', 1, 1e-9, '{"R": 1.5}');
INSERT INTO before_after SELECT 1, spent_epsilon, NULL FROM dpobj.cost('regress_cost.t', 'auto', 1, 1e-9, '{"R": 1.5}');
SELECT (dpobj.train('regress_cost.t', 'auto', ARRAY['a', 'b'], 'y', 1, 1e-9, '{"R": 1.5}')).mechanism;
UPDATE before_after SET budget_spent = (SELECT spent_epsilon FROM dpobj.my_budgets) WHERE step = 1;
-- the first Gaussian run: the basic filter holds it too, no NOTICE that the composition
-- changes (the charge's one line says what it spends); spent is the smaller of its sum
-- and the other filter's spend
SELECT * FROM pg_temp.c12('regress_cost.t', 'passglm', 0.5, 1e-9, '{"R": 1}');
INSERT INTO before_after SELECT 2, spent_epsilon, NULL FROM dpobj.cost('regress_cost.t', 'passglm', 0.5, 1e-9, '{"R": 1}');
CREATE TEMP TABLE m AS SELECT dpobj.train('regress_cost.t', 'passglm', ARRAY['a', 'b'], 'y', 0.5, 1e-9, '{"R": 1}') m;
UPDATE before_after SET budget_spent = (SELECT spent_epsilon FROM dpobj.my_budgets) WHERE step = 2;
SELECT dpobj.runs_left('regress_cost.t', 'passglm', 0.5, 1e-9, '{"R": 1}') AS passglm_left;
-- a pure run: on the Renyi path it would add 0.86; the basic filter's sum (1.75) is shown
SELECT * FROM pg_temp.c12('regress_cost.t', 'evaluate', 0.25, 1e-9);
INSERT INTO before_after SELECT 3, spent_epsilon, NULL FROM dpobj.cost('regress_cost.t', 'evaluate', 0.25, 1e-9);
SELECT dpobj.evaluate('regress_cost.t', (SELECT m FROM m), ARRAY['a', 'b'], 'y', 0.25, 1e-9) IS NOT NULL AS evaluated;
UPDATE before_after SET budget_spent = (SELECT spent_epsilon FROM dpobj.my_budgets) WHERE step = 3;
-- a run that keeps the composition: no composition NOTICE
SELECT adds_epsilon, composition FROM pg_temp.c12('regress_cost.t', 'evaluate', 0.25, 1e-9);
INSERT INTO before_after SELECT 4, spent_epsilon, NULL FROM dpobj.cost('regress_cost.t', 'evaluate', 0.25, 1e-9);
SELECT dpobj.evaluate('regress_cost.t', (SELECT m FROM m), ARRAY['a', 'b'], 'y', 0.25, 1e-9) IS NOT NULL AS evaluated;
UPDATE before_after SET budget_spent = (SELECT spent_epsilon FROM dpobj.my_budgets) WHERE step = 4;
SELECT step, round(cost_spent, 12) AS cost_spent, cost_spent = budget_spent AS same FROM before_after ORDER BY step;
-- no more than the sum of the runs' epsilon (basic composition)
SELECT spent_epsilon <= 2.0 AS within_sum, basic_epsilon, basic_retired
  FROM dpobj.my_budgets JOIN dpobj.budget_accounting USING (granted_epsilon);
-- a delta above the basic filter's share: only the other filter admits the run, which
-- retires the basic filter for good (the NOTICE, before the charge)
SELECT * FROM pg_temp.c12('regress_cost.t', 'passglm', 0.1, 1e-7, '{"R": 1}');
SELECT dpobj.train('regress_cost.t', 'passglm', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 1}') IS NOT NULL AS trained;
SELECT round(spent_epsilon, 12) AS spent_epsilon FROM dpobj.my_budgets;
-- refused: the budget as it is, nothing added; nothing was charged by any preview
SELECT kind, admitted, composition, adds_epsilon, spent_epsilon, remaining_epsilon
  FROM pg_temp.c12('regress_cost.t', 'auto', 1, 1e-9, '{"R": 1.5}');
SELECT count(*) AS ledger_rows FROM dpobj.ledger WHERE rolname = current_user;
RESET ROLE;
DROP TABLE regress_cost.t, regress_cost.plain;
DROP SCHEMA regress_cost;
DROP OWNED BY regress_cost_analyst;
DROP ROLE regress_cost_analyst;
