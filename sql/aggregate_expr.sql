-- dpobj.aggregate() of expressions ("expr" in "what") and with the option "where"
-- (context/exprjson.c, core/expreval.c): accepted forms against plain SQL at a large
-- epsilon, bounds derived from the declared domains (and recorded in the layout), rows
-- that would overflow, divide by zero or hold NaN/infinity change only the output, every
-- refusal class before the charge (nothing in the ledger), the accuracy functions and
-- aggregate_rows() on a layout with expressions, a forged one erring.
CREATE SCHEMA regress_ax;
CREATE ROLE regress_ax_alice;
CREATE TABLE regress_ax.t AS
SELECT i, (i % 50) * 2.5 AS hours, (i % 7)::int AS kids,
       CASE i % 3 WHEN 0 THEN 'F' WHEN 1 THEN 'M' END AS sex,
       date '2024-01-01' + i AS d, timestamp '2024-01-01 00:00' + i * interval '7 hours' AS ts,
       i % 2 = 0 AS flag, (i % 5)::float8 AS z, CASE WHEN i % 10 <> 0 THEN i::numeric END AS n,
       'word' || i AS w
  FROM generate_series(1, 300) i;
SELECT dpobj.declare_domain('regress_ax.t', 'hours', 0, 100);
SELECT dpobj.declare_domain('regress_ax.t', 'kids', 0, 10);
SELECT dpobj.declare_domain('regress_ax.t', 'sex', ARRAY['F', 'M']);
SELECT dpobj.declare_domain('regress_ax.t', 'z', 0, 4);
SELECT dpobj.declare_domain('regress_ax.t', 'n', 0, 300);
SELECT dpobj.protect('regress_ax.t');
SELECT 1 FROM dpobj.grant_budget('regress_ax.t', 'regress_ax_alice', 1000000, 0.001);
GRANT USAGE ON SCHEMA regress_ax TO regress_ax_alice;
-- the truths, read by the owner
CREATE TEMP TABLE truth AS
SELECT sum(least(hours * 2, 200)) AS sum2h, avg((kids > 3)::int) AS big,
       count(*) FILTER (WHERE flag AND d BETWEEN '2024-02-01' AND '2024-06-30') AS sel
  FROM regress_ax.t;
GRANT SELECT ON truth TO regress_ax_alice;
SET ROLE regress_ax_alice;

-- arithmetic (clamped to its derived bounds [0, 200]), case, bool, coalesce; at epsilon
-- 1e5 the noise is below the rounding: the SQL truths
SELECT statistic, column_name, round(estimate::numeric, CASE statistic WHEN 'sum' THEN 0 ELSE 1 END) AS estimate
  FROM dpobj.aggregate('regress_ax.t',
    '[{"stat": "count"},
      {"stat": "sum", "expr": {"op": "*", "args": [{"col": "hours"}, {"num": 2}]}},
      {"stat": "mean", "expr": {"op": "case", "when": [{"if": {"op": ">", "args": [{"col": "kids"}, {"num": 3}]}, "then": {"num": 1}}], "else": {"num": 0}}},
      {"stat": "mean", "expr": {"op": "bool", "args": [{"op": ">", "args": [{"col": "kids"}, {"num": 3}]}]}},
      {"stat": "count", "expr": {"op": "/", "args": [{"col": "hours"}, {"op": "+", "args": [{"col": "z"}, {"num": 1}]}]}}]',
    1e5, 1e-6);
SELECT sum2h, round(big, 2) AS big FROM truth;
-- "where": and / between on dates / a boolean column, per group; coalesce of a NULL column
SELECT group_values, statistic, round(estimate::numeric, CASE statistic WHEN 'sum' THEN 0 ELSE 1 END) AS estimate
  FROM dpobj.aggregate('regress_ax.t',
    '[{"stat": "count"}, {"stat": "mean", "expr": {"op": "coalesce", "args": [{"col": "n"}, {"num": 0}]}}]',
    1e5, 1e-6, ARRAY['sex'],
    '{"where": {"op": "and", "args": [{"col": "flag"}, {"op": "between", "args": [{"col": "d"}, {"date": "2024-02-01"}, {"date": "2024-06-30"}]}]}}')
 ORDER BY 1::text, 2;
RESET ROLE;
SELECT sex, count(*), avg(coalesce(n, 0)) FROM regress_ax.t
 WHERE flag AND d BETWEEN '2024-02-01' AND '2024-06-30' GROUP BY 1 ORDER BY 1;
SET ROLE regress_ax_alice;
-- like / is_null / or / not / in, extract, a quantile and a variance of expressions
SELECT statistic, round(estimate::numeric, CASE statistic WHEN 'sum' THEN 0 ELSE 1 END) AS estimate
  FROM dpobj.aggregate('regress_ax.t',
    '[{"stat": "count"}, {"stat": "mean", "expr": {"op": "extract", "field": "month", "args": [{"col": "d"}]}},
      {"stat": "mean", "expr": {"op": "extract", "field": "hour", "args": [{"col": "ts"}]}},
      {"stat": "quantile", "q": 0.5, "expr": {"op": "abs", "args": [{"op": "-", "args": [{"col": "z"}, {"num": 2}]}]}},
      {"stat": "variance", "expr": {"op": "neg", "args": [{"col": "z"}]}}]',
    1e5, 1e-6, '{}',
    '{"where": {"op": "or", "args": [{"op": "like", "args": [{"col": "sex"}, {"text": "F%"}]},
                                     {"op": "and", "args": [{"op": "is_null", "args": [{"col": "sex"}]},
                                                            {"op": "not", "args": [{"op": "in", "args": [{"col": "kids"}, {"num": 1}, {"num": 2}]}]},
                                                            {"op": "ilike", "args": [{"col": "w"}, {"text": "WORD%"}]}]}]}}');
RESET ROLE;
SELECT count(*), round(avg(extract(month FROM d)), 2) AS month, round(avg(extract(hour FROM ts)), 2) AS hour,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY abs(z - 2)) AS q, round(var_pop(-z)::numeric, 2) AS var
  FROM regress_ax.t WHERE sex LIKE 'F%' OR (sex IS NULL AND kids NOT IN (1, 2) AND w ILIKE 'WORD%');
SET ROLE regress_ax_alice;
-- "where" and "filter" together: both hold
SELECT statistic, round(estimate::numeric) AS estimate FROM dpobj.aggregate('regress_ax.t', '[{"stat": "count"}]', 1e5, 1e-6, '{}',
    '{"filter": [{"column": "kids", "op": ">=", "value": 3}], "where": {"op": "not", "args": [{"col": "flag"}]}}');
RESET ROLE;
SELECT count(*) FROM regress_ax.t WHERE kids >= 3 AND NOT flag;
SET ROLE regress_ax_alice;
-- describe() passes "where" on
SELECT statistic, column_name, round(estimate::numeric) AS estimate FROM dpobj.describe('regress_ax.t', 1e5, 1e-6,
    options => '{"where": {"op": ">=", "args": [{"col": "kids"}, {"num": 5}]}}') WHERE statistic = 'count';
-- train() takes "where" too (the shared filter code)
SELECT (dpobj.train('regress_ax.t', 'linear', ARRAY['hours'], 'kids', 10, 1e-6,
    '{"R": 1, "y_min": 0, "y_max": 10, "where": {"op": ">", "args": [{"col": "z"}, {"num": 1}]}}')).mechanism;
-- the accuracy functions take expressions: a sum of 2 x hours is twice as wide as of hours
SELECT statistic, column_name, half_width
  FROM dpobj.aggregate_accuracy('regress_ax.t', '[{"stat": "sum", "expr": {"op": "*", "args": [{"col": "hours"}, {"num": 2}]}}, {"stat": "sum", "column": "hours"}]', 1);
SELECT statistic, epsilon FROM dpobj.aggregate_epsilon('regress_ax.t',
    '[{"stat": "mean", "expr": {"op": "bool", "args": [{"col": "flag"}]}}]', 0.1, options => '{"count": 300}');
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_ax.t' \gset

-- refusals before the charge, on public grounds (22023 naming the node's path)
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.train('regress_ax.t', 'linear', ARRAY['hours'], 'kids', 10, 1e-6,
    '{"R": 1, "y_min": 0, "y_max": 10, "where": {"op": ">", "args": [{"col": "zz"}, {"num": 1}]}}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"op": "/", "args": [{"col": "hours"}, {"col": "z"}]}}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"op": "+", "args": [{"col": "hours"}, {"col": "i"}]}}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"op": "+", "args": [{"col": "hours"}, {"col": "sex"}]}}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"op": "pow", "args": [{"col": "hours"}, {"num": 2}]}}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"op": "+", "args": [{"col": "hours"}]}}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"col": "hours", "num": 1}}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"col": "d"}}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"col": "nope"}}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"col": "hours"}, "column": "hours"}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"op": "extract", "field": "week", "args": [{"col": "d"}]}}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"date": "2024-02-30"}}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "sum", "expr": {"num": 1e301}}]', 1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "count"}]', 1, 1e-6, '{}', '{"where": {"op": "bool", "args": [{"col": "flag"}]}}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "count"}]', 1, 1e-6, '{}', '{"where": {"col": "kids"}}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "count"}]', 1, 1e-6, '{}', '{"where": {"op": "=", "args": [{"col": "kids"}, {"text": "3"}]}}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "count"}]', 1, 1e-6, '{}', '{"where": {"op": "in", "args": [{"col": "kids"}, {"col": "z"}]}}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "count"}]', 1, 1e-6, '{}', '{"where": {"op": "like", "args": [{"col": "w"}, {"col": "sex"}]}}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "count"}]', 1, 1e-6, '{}', '{"where": [1]}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ax.t', '[{"stat": "count"}]', 1, 1e-6, '{}', '{"where": {"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"op": "and", "args": [{"col": "flag"}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}]}}')$$);
SELECT count(*) - :ledger_before AS charged_by_refusals FROM dpobj.ledger WHERE relation = 'regress_ax.t';

-- aggregate_rows() on the layout with expressions; a forged one errs
RESET ROLE;
CREATE TABLE regress_ax.o AS
SELECT i, CASE i % 3 WHEN 0 THEN 1e308::float8 WHEN 1 THEN 'NaN'::float8 ELSE 0.5 END AS x,
       (i % 2)::numeric * 1e200 AS y, CASE WHEN i < 5 THEN 'infinity'::date ELSE date '2024-03-01' END AS d,
       CASE WHEN i % 4 = 0 THEN 'Infinity'::numeric ELSE 1 END AS v
  FROM generate_series(1, 30) i;
SELECT dpobj.declare_domain('regress_ax.o', 'x', -1, 1);
SELECT dpobj.declare_domain('regress_ax.o', 'y', 1, 2);
SELECT dpobj.protect('regress_ax.o');
SELECT 1 FROM dpobj.grant_budget('regress_ax.o', 'regress_ax_alice', 1000000, 0.001);
SET ROLE regress_ax_alice;
-- overflow (1e308 squared), NaN, division by zero, infinite dates and numerics: NULLs,
-- the run releases; rows with x 0.5 have x * x = 0.25
SELECT statistic, round(estimate::numeric, CASE statistic WHEN 'sum' THEN 0 ELSE 1 END) AS estimate
  FROM dpobj.aggregate('regress_ax.o', '[{"stat": "count"}, {"stat": "sum", "expr": {"op": "*", "args": [{"col": "x"}, {"col": "x"}]}}]',
    1e5, 1e-6, '{}',
    '{"where": {"op": "or", "args": [{"op": ">", "args": [{"op": "/", "args": [{"col": "x"}, {"num": 0}]}, {"num": 0}]},
                                     {"op": ">", "args": [{"op": "*", "args": [{"col": "y"}, {"col": "y"}]}, {"num": 0}]},
                                     {"op": "=", "args": [{"op": "extract", "field": "year", "args": [{"col": "d"}]}, {"num": 2024}]},
                                     {"op": "is_null", "args": [{"col": "v"}]}]}}');
SELECT outcome FROM dpobj.ledger WHERE relation = 'regress_ax.o' ORDER BY id DESC LIMIT 1;
SELECT r.statistic, r.column_name
  FROM dpobj.aggregate_rows('{"encoding": [{"column": "{\"col\": \"x\"}", "lo": -1, "hi": 1}], "group_by": [], "what": [{"stat": "sum", "expr": {"col": "x"}}]}',
                            '{"values": [5], "noise": [[65536, 65536]], "epsilon": 1, "delta": 0}') r;
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_rows('{"encoding": [{"column": "x", "lo": -1, "hi": 1}], "group_by": [], "what": [{"stat": "sum", "expr": {"col": "x"}}]}', '{"values": [5], "noise": [[65536, 65536]], "epsilon": 1, "delta": 0}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate_rows('{"encoding": [{"column": "x", "lo": -1, "hi": 1}], "group_by": [], "what": [{"stat": "sum", "expr": 3}]}', '{"values": [5], "noise": [[65536, 65536]], "epsilon": 1, "delta": 0}')$$);
-- the per-row functions refuse a forged program, never crash
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.expr_value('{"args": ["a"], "e": {"col": "b"}}', 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.expr_value('{"args": [], "e": {"num": 1}}', 1, 2)$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.expr_test('{"args": ["a"], "e": {"col": "a"}}', 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.expr_value('[1]', 1)$$);
SELECT dpobj.expr_value('{"args": ["a", "b"], "e": {"op": "/", "args": [{"col": "a"}, {"col": "b"}]}}', 1, 0) AS div0,
       dpobj.expr_test('{"args": ["a"], "e": {"op": "like", "args": [{"col": "a"}, {"text": "a\\%b_"}]}}', 'a%bc'::text) AS like_escape;

-- with a privacy unit (the unit's rows selected by "where" before its k are kept), and
-- grouped by a key without declared levels
RESET ROLE;
CREATE TABLE regress_ax.u AS
SELECT i, i % 20 AS person, (i % 50) * 2.5 AS hours, 'city' || (i % 3) AS city, i % 2 = 0 AS flag
  FROM generate_series(1, 3000) i;
SELECT dpobj.declare_domain('regress_ax.u', 'hours', 0, 100);
SELECT dpobj.protect('regress_ax.u', privacy_unit => 'person', max_rows_per_unit => 200);
SELECT 1 FROM dpobj.grant_budget('regress_ax.u', 'regress_ax_alice', 1000000, 0.001);
CREATE TABLE regress_ax.k AS SELECT * FROM regress_ax.u;
SELECT dpobj.declare_domain('regress_ax.k', 'hours', 0, 100);
SELECT dpobj.protect('regress_ax.k');
SELECT 1 FROM dpobj.grant_budget('regress_ax.k', 'regress_ax_alice', 1000000, 0.001);
SELECT count(*), sum(least(hours + 1, 101)) FROM regress_ax.u WHERE flag;
SET ROLE regress_ax_alice;
-- (k = 200: the sum's noise has scale ~131 lattice steps of 101 / 16384, ~0.8)
SELECT statistic, abs(estimate - CASE statistic WHEN 'sum' THEN 88500 ELSE 1500 END) < 20 AS near
  FROM dpobj.aggregate('regress_ax.u', '[{"stat": "count"}, {"stat": "sum", "expr": {"op": "+", "args": [{"col": "hours"}, {"num": 1}]}}]',
    1e5, 1e-6, '{}', '{"where": {"col": "flag"}}');
SELECT group_values, statistic, abs(estimate - CASE statistic WHEN 'mean' THEN 59 ELSE 500 END) < 1 AS near
  FROM dpobj.aggregate('regress_ax.k', '[{"stat": "mean", "expr": {"op": "+", "args": [{"col": "hours"}, {"num": 1}]}}]',
    100, 1e-4, ARRAY['city'], '{"where": {"col": "flag"}}')
 ORDER BY 1::text, 2;
RESET ROLE;
DROP TABLE truth;
DROP SCHEMA regress_ax CASCADE;
DROP ROLE regress_ax_alice;
