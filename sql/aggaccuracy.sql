-- Accuracy before a run: dpobj.aggregate_accuracy (the 95 % half-width per statistic at
-- an epsilon) and dpobj.aggregate_epsilon (the least epsilon for a half-width), from
-- public quantities only; they agree with dpobj.aggregate()'s own intervals and charge
-- nothing.  Errors are shown by regress.err() (setup.sql).
CREATE SCHEMA regress_acc;
CREATE ROLE regress_acc_alice;
CREATE TABLE regress_acc.people AS
SELECT i, CASE i % 3 WHEN 0 THEN 'F' WHEN 1 THEN 'M' ELSE 'X' END AS sex,
       (ARRAY['a', 'b', 'c'])[1 + i % 3 + (i / 7) % 2] AS race, (i % 50) * 2.5 AS hours
  FROM generate_series(1, 300) i;
SELECT dpobj.declare_domain('regress_acc.people', 'sex', ARRAY['F', 'M']);
SELECT dpobj.declare_domain('regress_acc.people', 'race', ARRAY['a', 'b', 'c']);
SELECT dpobj.declare_domain('regress_acc.people', 'hours', 0, 100);
SELECT dpobj.protect('regress_acc.people');
SELECT 1 FROM dpobj.grant_budget('regress_acc.people', 'regress_acc_alice', 100000, 0.001);
GRANT USAGE ON SCHEMA regress_acc TO regress_acc_alice;
SET ROLE regress_acc_alice;
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_acc.people' \gset

-- a count alone at epsilon 1: +- 6 (scale 2), as dpobj.aggregate reports it; 4 statistics
-- share epsilon 1 (a count's scale 8, a sum's 4 x 2^15 lattice steps of 100 / 16384);
-- a mean needs the true count it assumes
SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "count"}]', 1);
SELECT statistic, column_name, round(half_width::numeric, 6) AS half_width
  FROM dpobj.aggregate_accuracy('regress_acc.people',
    '[{"stat": "count"}, {"stat": "sum", "column": "hours"}, {"stat": "mean", "column": "hours"},
      {"stat": "histogram", "column": "race"}]', 1, ARRAY['sex']);
SELECT statistic, round(half_width::numeric, 6) AS half_width
  FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "mean", "column": "hours"}]', 1,
                                options => '{"count": 100}');
SELECT statistic, round(half_width::numeric, 6) AS half_width
  FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "mean", "column": "hours"}]', 1,
                                options => '{"count": 10}');
-- a quantile's in ranks: how far past rank t its interval's ends reach (the 97.5 % point
-- of its test's noise at its noisiest edge, core/aggquant.h): shrinking with epsilon,
-- wider beside a count (half the epsilon); and back
SELECT statistic, column_name, half_width
  FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "quantile", "column": "hours", "q": [0.5]}]', 1);
SELECT statistic, half_width
  FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "quantile", "column": "hours", "q": 0.5}, {"stat": "count"}]', 1)
 WHERE statistic = 'quantile';
SELECT statistic, half_width
  FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "quantile", "column": "hours", "q": 0.5, "bins": 100}]', 1,
                                ARRAY['sex']);
SELECT e.statistic, e.epsilon,
       (SELECT half_width FROM dpobj.aggregate_accuracy('regress_acc.people', w, e.epsilon)) <= 40 AS meets,
       (SELECT half_width FROM dpobj.aggregate_accuracy('regress_acc.people', w, e.epsilon * 0.99)) > 40 AS least
  FROM (VALUES ('[{"stat": "quantile", "column": "hours", "q": [0.5]}]'::jsonb)) v(w),
       LATERAL dpobj.aggregate_epsilon('regress_acc.people', w, 40) e;
SELECT bool_and(h <= lag_h) AS quantile_accuracy_monotone
  FROM (SELECT h, lag(h, 1, 'infinity') OVER (ORDER BY eps) AS lag_h
          FROM unnest(ARRAY[0.05, 0.1, 0.3, 1, 3, 10]) eps,
               LATERAL (SELECT half_width AS h FROM dpobj.aggregate_accuracy('regress_acc.people',
                        '[{"stat": "quantile", "column": "hours", "q": [0.25, 0.5]}]', eps)) a) s;

-- the half-width is exactly what a run reports (ci_high - estimate), for every cell whose
-- interval is not cut at 0 (a count's and its interval's ends are clamped there)
CREATE TEMP TABLE acc AS
SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people',
    '[{"stat": "count"}, {"stat": "sum", "column": "hours"}, {"stat": "histogram", "column": "race"}]',
    3, ARRAY['sex']);
SELECT r.statistic, count(*) AS cells,
       bool_and(abs((r.ci_high - r.estimate) - a.half_width) <= 1e-9 * (1 + a.half_width) OR r.ci_low = 0) AS same_high,
       bool_and(abs((r.estimate - r.ci_low) - a.half_width) <= 1e-9 * (1 + a.half_width) OR r.ci_low = 0) AS same_low,
       bool_and(r.ci_high - r.estimate <= a.half_width * (1 + 1e-9)) AS never_wider
  FROM dpobj.aggregate('regress_acc.people',
    '[{"stat": "count"}, {"stat": "sum", "column": "hours"}, {"stat": "histogram", "column": "race"}]',
    3, 1e-6, ARRAY['sex']) r JOIN acc a USING (statistic)
 GROUP BY 1 ORDER BY 1;
-- a mean's interval (at epsilon 2000 its count's noise is 0) is within the bound for its
-- cells' true count 100 (here the bound is attained, up to rounding)
SELECT bool_and(greatest(r.ci_high - r.estimate, r.estimate - r.ci_low) <= a.half_width * (1 + 1e-12)) AS within,
       count(*) AS cells
  FROM dpobj.aggregate('regress_acc.people', '[{"stat": "mean", "column": "hours"}]', 2000, 1e-6,
                       ARRAY['sex']) r,
       LATERAL dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "mean", "column": "hours"}]',
                                        2000, ARRAY['sex'], jsonb_build_object('count', 100)) a;

-- the least epsilon: its half-width meets the target, 1 % less does not; monotone both ways
SELECT e.statistic, x, e.epsilon,
       (SELECT half_width FROM dpobj.aggregate_accuracy('regress_acc.people', w, e.epsilon,
                                                        options => '{"count": 200}')) <= x AS meets,
       (SELECT half_width FROM dpobj.aggregate_accuracy('regress_acc.people', w, e.epsilon * 0.99,
                                                        options => '{"count": 200}')) > x AS least
  FROM (VALUES ('[{"stat": "count"}]'::jsonb, 10.0::float8), ('[{"stat": "count"}]', 1),
               ('[{"stat": "count"}]', 0), ('[{"stat": "sum", "column": "hours"}]', 50),
               ('[{"stat": "mean", "column": "hours"}]', 5)) v(w, x),
       LATERAL dpobj.aggregate_epsilon('regress_acc.people', w, x, options => '{"count": 200}') e;
SELECT bool_and(h <= lag_h) AS accuracy_monotone
  FROM (SELECT h, lag(h, 1, 'infinity') OVER (ORDER BY eps) AS lag_h
          FROM unnest(ARRAY[0.01, 0.02, 0.05, 0.1, 0.3, 1, 3, 10, 100]) eps,
               LATERAL (SELECT half_width AS h FROM dpobj.aggregate_accuracy('regress_acc.people',
                        '[{"stat": "sum", "column": "hours"}]', eps)) a) s;
SELECT bool_and(e <= lag_e) AS epsilon_monotone
  FROM (SELECT e, lag(e, 1, 'infinity') OVER (ORDER BY x) AS lag_e
          FROM unnest(ARRAY[0.5, 1, 2, 5, 10, 50, 200]) x,
               LATERAL (SELECT epsilon AS e FROM dpobj.aggregate_epsilon('regress_acc.people',
                        '[{"stat": "count"}]', x)) a) s;
-- a variance's, at an assumed count as a mean's (from its two means' reaches, 97.5 % each),
-- and back; at epsilon 2000 a run's intervals lie within it (each cell's count is 100)
SELECT statistic, round(half_width::numeric, 4) AS half_width
  FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "variance", "column": "hours"}]', 1,
                                options => '{"count": 1000}');
SELECT e.statistic, e.epsilon,
       (SELECT half_width FROM dpobj.aggregate_accuracy('regress_acc.people',
          '[{"stat": "variance", "column": "hours"}]', e.epsilon, options => '{"count": 1000}')) <= 100 AS meets
  FROM dpobj.aggregate_epsilon('regress_acc.people', '[{"stat": "variance", "column": "hours"}]', 100,
                               options => '{"count": 1000}') e;
SELECT bool_and(greatest(r.ci_high - r.estimate, r.estimate - r.ci_low) <= a.half_width) AS within,
       count(*) AS cells
  FROM dpobj.aggregate('regress_acc.people', '[{"stat": "variance", "column": "hours"}]', 2000, 1e-6,
                       ARRAY['sex']) r,
       LATERAL dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "variance", "column": "hours"}]',
                                        2000, ARRAY['sex'], jsonb_build_object('count', 100)) a;
-- NULL: a mean or variance without a count; a sum's half-width 0 (the lattice's noise never vanishes)
SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "mean", "column": "hours"}, {"stat": "variance", "column": "hours"}]', 1);
SELECT * FROM dpobj.aggregate_epsilon('regress_acc.people', '[{"stat": "sum", "column": "hours"}]', 0);

-- refused as dpobj.aggregate refuses, on public grounds
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "sum", "column": "nope"}]', 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "sum", "column": "i"}]', 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "count"}]', 1, ARRAY['hours', 'sex'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "median", "column": "hours"}]', 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "count"}]', 1e-7)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "count"}, {"stat": "count"}]', 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "count"}]', 1, '{}', '{"filter": []}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "count"}]', 1, '{}', '{"count": -1}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_accuracy('regress_acc.people', '[{"stat": "count"}]', NULL)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_epsilon('regress_acc.people', '[{"stat": "count"}]', -1)$$);
-- the three runs above were charged, nothing else
SELECT count(*) - :ledger_before AS charged FROM dpobj.ledger WHERE relation = 'regress_acc.people';
RESET ROLE;

-- a privacy unit of up to 2 rows: noise for epsilon / 2 (+- 12 at epsilon 1, as aggregate)
CREATE TABLE regress_acc.visits AS
SELECT i, i % 50 AS person, CASE i % 2 WHEN 0 THEN 'F' ELSE 'M' END AS sex
  FROM generate_series(1, 200) i;
SELECT dpobj.declare_domain('regress_acc.visits', 'sex', ARRAY['F', 'M']);
SELECT dpobj.protect('regress_acc.visits', 'person', 2);
SELECT * FROM dpobj.aggregate_accuracy('regress_acc.visits', '[{"stat": "count"}]', 1);
SELECT e.epsilon, e.epsilon > 2 * p.epsilon AS more_than_twice
  FROM dpobj.aggregate_epsilon('regress_acc.visits', '[{"stat": "count"}]', 6) e,
       dpobj.aggregate_epsilon('regress_acc.people', '[{"stat": "count"}]', 6) p;
DROP TABLE acc;
DROP SCHEMA regress_acc CASCADE;
DROP ROLE regress_acc_alice;
