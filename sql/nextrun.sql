-- What limits the next run (docs/USAGE.md, "Why the order of runs matters"):
--   * runs_left(rel, delta) and my_budgets show, per kind of run, the largest epsilon the
--     next one may ask for: a cost() at that epsilon is admitted, 0.000001 more refused;
--   * a new user's sequence on a (3, 1e-6) grant (auto 1.0, ebm 0.75, evaluate 0.25,
--     describe 0.25): each step is admitted or refused as the number before it says, and
--     a run whose spend differs from its epsilon says so in one NOTICE line;
--   * every entry point (the registry's) prices in cost() and runs_left() and is in help();
--   * the planning functions start no run: no lock on the table outlives them, and
--     aggregate_accuracy() / aggregate_epsilon() answer budget holders and readers only.
CREATE SCHEMA regress_next;
GRANT USAGE ON SCHEMA regress_next TO PUBLIC;
CREATE ROLE regress_next_user;
CREATE ROLE regress_next_nobody;
CREATE ROLE regress_next_reader;
CREATE TABLE regress_next.t AS
SELECT i, 18 + (i * 37) % 63 AS age, ((i * 53) % 97) / 96.0 AS b, (ARRAY['x', 'y', 'z'])[1 + i % 3] AS c,
       (i * 37) % 63 > 30 OR i % 3 = 2 AS y
  FROM generate_series(1, 2000) i;
SELECT dpobj.protect('regress_next.t');
SELECT dpobj.declare_domain('regress_next.t', 'age', 18, 80);
SELECT dpobj.declare_domain('regress_next.t', 'b', 0, 1);
SELECT dpobj.declare_domain('regress_next.t', 'c', ARRAY['x', 'y', 'z']);
GRANT SELECT ON regress_next.t TO regress_next_reader;
SELECT granted_epsilon, granted_delta FROM dpobj.grant_budget('regress_next.t', 'regress_next_user', 3, 1e-6);

-- ---- every entry point, from the registry ----
-- the names: train()'s (dpobj.mechanisms(), with its methods) and runs_left(rel)'s lists,
-- which name every entry point of each kind (describe and aggregate_keys included)
CREATE TEMP TABLE entries AS
SELECT DISTINCT n AS name
  FROM (SELECT unnest(ARRAY[mechanism] || coalesce(methods, '{}')) AS n FROM dpobj.mechanisms()
        UNION ALL
        SELECT split_part(e, ' with ', 1) FROM dpobj.runs_left('regress_next.t'),
                                             unnest(string_to_array(mechanisms, ', ')) e) s;
GRANT SELECT ON entries TO PUBLIC;
SET ROLE regress_next_user;
-- each prices in cost() and runs_left() as the kind it is charged as
SELECT name, (SELECT kind FROM dpobj.cost('regress_next.t', name, 0.1, 1e-9)) AS kind,
       dpobj.runs_left('regress_next.t', name, 0.1, 1e-9) > 0 AS runs_left
  FROM entries ORDER BY name COLLATE "C";
-- an unknown name: the hint lists them all
SELECT sqlstate, message, hint FROM regress.err($$SELECT * FROM dpobj.cost('regress_next.t', 'describe_all', 0.1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.runs_left('regress_next.t', 'nope', 0.1, 1e-9)$$);
RESET ROLE;
-- help(): every train() name in help('train'), every entry point in help('cost') or
-- help('runs_left') (none is missing)
CREATE FUNCTION pg_temp.help_text(topic text) RETURNS text LANGUAGE sql AS
$$ SELECT string_agg(l, E'\n') FROM dpobj.help(topic) l $$;
SELECT u.m AS missing_from_train_help
  FROM dpobj.mechanisms(), unnest(ARRAY[mechanism] || coalesce(methods, '{}')) u(m)
 WHERE pg_temp.help_text('train') !~ ('\m' || u.m || '\M');
SELECT name AS missing_from_cost_help FROM entries
 WHERE pg_temp.help_text('cost') || pg_temp.help_text('runs_left') !~ ('\m' || name || '\M');

-- ---- the next run's largest epsilon, exactly ----
SET ROLE regress_next_user;
-- per kind at delta 1e-9 (pure: at 0): the number, and whether cost() admits a run of that
-- kind at it and at 0.000001 more (evaluate: pure, noisysgd: gauss, synthesize: zcdp,
-- auto: approx)
CREATE FUNCTION pg_temp.next(k text) RETURNS numeric LANGUAGE sql AS
$$ SELECT next_epsilon FROM dpobj.runs_left('regress_next.t', 1e-9) WHERE kind = k $$;
CREATE FUNCTION pg_temp.edges(k text, OUT next numeric, OUT at_next boolean, OUT above boolean)
LANGUAGE sql AS $$
  SELECT pg_temp.next(k),
         (SELECT admitted FROM dpobj.cost('regress_next.t', m, pg_temp.next(k), d)),
         (SELECT admitted FROM dpobj.cost('regress_next.t', m, pg_temp.next(k) + 0.000001, d))
    FROM (SELECT CASE k WHEN 'pure' THEN 'evaluate' WHEN 'gauss' THEN 'noisysgd'
                        WHEN 'zcdp' THEN 'synthesize' ELSE 'auto' END AS m,
                 CASE k WHEN 'pure' THEN 0 ELSE 1e-9 END AS d) s $$;
CREATE TEMP TABLE steps (step int, kind text, asks numeric, next numeric, at_next boolean,
                         above boolean, admitted boolean);
CREATE FUNCTION pg_temp.before(s int, k text, e numeric) RETURNS void LANGUAGE sql AS
$$ INSERT INTO steps SELECT s, k, e, g.next, g.at_next, g.above, NULL FROM pg_temp.edges(k) g $$;
CREATE FUNCTION pg_temp.after(s int) RETURNS void LANGUAGE sql AS
$$ UPDATE steps SET admitted = (SELECT outcome = 'released' FROM dpobj.ledger
                                 WHERE rolname = current_user ORDER BY id DESC LIMIT 1)
                               AND (SELECT count(*) FROM dpobj.ledger WHERE rolname = current_user) = s
    WHERE step = s $$;
-- before any run, every kind at once
SELECT kind, at_delta, trunc(next_epsilon, 3) AS next_epsilon FROM dpobj.runs_left('regress_next.t', 1e-9);
SELECT next_delta, next_pure_epsilon, next_gauss_epsilon, next_zcdp_epsilon, next_approx_epsilon, last_run FROM dpobj.my_budgets;
-- 1. auto at 1.0 (approx): epsilon adds up, no NOTICE
SELECT pg_temp.before(1, 'approx', 1.0);
SELECT (dpobj.train('regress_next.t', 'auto', ARRAY['age', 'b', 'c'], 'y', 1.0, 1e-9)).mechanism;
SELECT pg_temp.after(1);
-- 2. ebm at 0.75 (gauss): the first Gaussian run spends less than it asks (NOTICE)
SELECT pg_temp.before(2, 'gauss', 0.75);
CREATE TEMP TABLE m AS SELECT dpobj.train('regress_next.t', 'ebm', ARRAY['age', 'b', 'c'], 'y', 0.75, 1e-9) AS m;
SELECT pg_temp.after(2);
-- 3. evaluate at 0.25 (pure): spends more than it asks (NOTICE)
SELECT pg_temp.before(3, 'pure', 0.25);
SELECT dpobj.evaluate('regress_next.t', (SELECT m FROM m), ARRAY['age', 'b', 'c'], 'y', 0.25) IS NOT NULL AS evaluated;
SELECT pg_temp.after(3);
-- 4. describe at 0.25 (pure): spends what it asks, no NOTICE
SELECT pg_temp.before(4, 'pure', 0.25);
SELECT count(*) > 0 AS described FROM dpobj.describe('regress_next.t', 0.25);
SELECT pg_temp.after(4);
-- 5. describe at 0.000001 above the number: refused, nothing charged; at the number: admitted
SELECT pg_temp.before(5, 'pure', pg_temp.next('pure') + 0.000001);
SELECT sqlstate, message FROM regress.err(format($$SELECT count(*) FROM dpobj.describe('regress_next.t', %s)$$,
                                                 pg_temp.next('pure') + 0.000001));
SELECT pg_temp.after(5);
-- each step as the number before it said: admitted iff it asked at most that (and cost()
-- admits that number, not 0.000001 more)
SELECT step, kind, asks, trunc(next, 3) AS next, at_next, above, coalesce(admitted, false) AS admitted,
       coalesce(admitted, false) = (asks <= next) AS as_shown
  FROM steps ORDER BY step;
SELECT count(*) - 4 AS refused_not_charged FROM dpobj.ledger WHERE rolname = current_user;
-- my_budgets: the same numbers, the Gaussian and approximate ones at the last run's delta
SELECT next_delta, next_pure_epsilon, trunc(next_gauss_epsilon, 3) AS next_gauss_epsilon,
       trunc(next_zcdp_epsilon, 3) AS next_zcdp_epsilon, next_approx_epsilon, last_run
  FROM dpobj.my_budgets;
SELECT kind, at_delta, trunc(next_epsilon, 3) AS next_epsilon FROM dpobj.runs_left('regress_next.t');
-- a zCDP run (synthesize) at the number is admitted, 0.000001 more is not
SELECT trunc(next, 3) AS next, at_next, above FROM pg_temp.edges('zcdp');
-- describe at the number: admitted, and then nothing is left for any kind
SELECT sqlstate FROM regress.err(format($$SELECT count(*) FROM dpobj.describe('regress_next.t', %s)$$,
                                        pg_temp.next('pure')));
SELECT spent_epsilon = granted_epsilon AS all_spent, next_pure_epsilon, next_gauss_epsilon,
       next_zcdp_epsilon, next_approx_epsilon
  FROM dpobj.my_budgets;
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.runs_left('regress_next.t', 1)$$);
RESET ROLE;

-- ---- planning functions: no lock that outlives them; plans for budget holders only ----
SET ROLE regress_next_nobody;
BEGIN;
SELECT dpobj.runs_left('regress_next.t', 'auto', 1, 1e-9) AS runs_left, admitted
  FROM dpobj.cost('regress_next.t', 'auto', 1, 1e-9);
SELECT count(*) AS pure_rows FROM dpobj.runs_left('regress_next.t') WHERE next_epsilon = 0;
SELECT count(*) AS table_locks FROM pg_locks
 WHERE pid = pg_backend_pid() AND relation = 'regress_next.t'::regclass;
COMMIT;
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_next.t', '[{"stat": "count"}]', 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_epsilon('regress_next.t', '[{"stat": "sum", "column": "nope"}]', 1)$$);
RESET ROLE;
SET ROLE regress_next_reader;
SELECT statistic, half_width FROM dpobj.aggregate_accuracy('regress_next.t', '[{"stat": "count"}]', 1);
RESET ROLE;
SET ROLE regress_next_user;
BEGIN;
SELECT statistic, column_name, half_width
  FROM dpobj.aggregate_accuracy('regress_next.t', '[{"stat": "count"}, {"stat": "sum", "column": "age"}]', 1, ARRAY['i']);
SELECT statistic, epsilon FROM dpobj.aggregate_epsilon('regress_next.t', '[{"stat": "count"}]', 20);
SELECT count(*) AS table_or_cast_locks FROM pg_locks
 WHERE pid = pg_backend_pid() AND relation IN ('regress_next.t'::regclass, 'pg_cast'::regclass);
COMMIT;
RESET ROLE;

DROP TABLE regress_next.t;
DROP SCHEMA regress_next;
DROP OWNED BY regress_next_user, regress_next_nobody, regress_next_reader;
DROP ROLE regress_next_user, regress_next_nobody, regress_next_reader;
