-- Every bad input to dp_halfspace gets a clear error with its own SQLSTATE
-- and a hint, never a crash, and never a row value in the message.
-- regress.err() (setup.sql) runs a statement and reports SQLSTATE, message and hint.

-- rows with distinctive values: none of them may appear in a message
CREATE TABLE rows_ok (f float8[], y boolean);
INSERT INTO rows_ok VALUES ('{0.123456, 0.5}', true), ('{-0.654321, 0.25}', false);

SELECT (regress.err(q)).* FROM (VALUES
  -- NULLs
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) FROM (VALUES (NULL::float8[], true)) v(f, y)$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) FROM (VALUES ('{0.25, NULL}'::float8[], true)) v(f, y)$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) FROM (VALUES ('{0.25, 0.5}'::float8[], NULL::boolean)) v(f, y)$$),
  ($$SELECT dpobj.dp_halfspace(f, y, NULL, 1e-6) FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, NULL) FROM rows_ok$$),
  -- non-finite features
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) FROM (VALUES ('{0.25, NaN}'::float8[], true)) v(f, y)$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) FROM (VALUES ('{Infinity, 0.5}'::float8[], true)) v(f, y)$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) FROM (VALUES ('{-Infinity, 0.5}'::float8[], true)) v(f, y)$$),
  -- out of the quantised range: |Q x| must stay below 2^31
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) FROM (VALUES ('{98765432.1, 0.5}'::float8[], true)) v(f, y)$$),
  -- shapes
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) FROM (VALUES ('{0.125, 0.5}'::float8[], true), ('{0.125, 0.5, 0.75}'::float8[], false)) v(f, y)$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) FROM (VALUES ('{}'::float8[], true)) v(f, y)$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) FROM (VALUES ('{{0.125, 0.5}, {0.25, 0.5}}'::float8[], true)) v(f, y)$$),
  ($$SELECT dpobj.dp_halfspace(array_fill(0.5::float8, ARRAY[257]), true, 1, 1e-6)$$),
  -- privacy parameters
  ($$SELECT dpobj.dp_halfspace(f, y, 0, 1e-6) FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, -1, 1e-6) FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 'NaN', 1e-6) FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 'Infinity', 1e-6) FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 0) FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1) FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, -0.5) FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 'NaN') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, CASE WHEN y THEN 1 ELSE 2 END, 1e-6) FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, CASE WHEN y THEN 1e-6 ELSE 1e-7 END) FROM rows_ok$$),
  -- options: B, D2, Q, oracle, time_limit
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"B": 0}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"B": 1.5}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"B": "two"}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"B": 65}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"D2": 0}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"D2": 5000}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"Q": 3}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"Q": 0}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"oracle": "gurobi"}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"oracle": 1}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"time_limit": -1}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '{"tau": 2}') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '[1, 2]') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, '3') FROM rows_ok$$),
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6, CASE WHEN y THEN '{"B": 1}'::jsonb ELSE '{"B": 2}' END) FROM rows_ok$$),
  -- a window function would be a separately charged run per row
  ($$SELECT dpobj.dp_halfspace(f, y, 1, 1e-6) OVER () FROM rows_ok$$)
) AS cases(q);

-- no error above charged anything: they all happen before the final function
SELECT count(*) AS ledger_rows FROM dpobj.ledger;
