-- The protected mode carried by the aggregate's own options ("sealed": true), so that a
-- Citus worker running the transition function for a shard drops bad rows exactly like
-- the coordinator does (docs/SCALING.md).  On the direct path the key only turns a
-- row-dependent error into a silently dropped row; it never relaxes a check.
CREATE SCHEMA regress_citus;
CREATE TABLE regress_citus.pts (id int, x float8[], y boolean, v float8);
INSERT INTO regress_citus.pts
SELECT i, ARRAY[((i * 7) % 11) / 11.0 - 0.5, ((i * 3) % 13) / 13.0 - 0.5],
       (i * 7) % 11 > 5, ((i * 5) % 7) / 7.0
  FROM generate_series(1, 200) i;
-- one bad row of each kind: a NaN feature, a NULL label, a NULL element, an infinite label
INSERT INTO regress_citus.pts VALUES
  (201, ARRAY['NaN', 0]::float8[], true, 0.5),
  (202, ARRAY[0.1, 0.2]::float8[], NULL, 0.5),
  (203, ARRAY[NULL, 0.2]::float8[], false, 0.5),
  (204, ARRAY[0.1, 0.2]::float8[], true, 'Infinity');
CREATE FUNCTION regress_citus.try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  EXECUTE q INTO r;
  RETURN 'released: ' || r;
EXCEPTION WHEN OTHERS THEN
  RETURN 'error ' || SQLSTATE || ': ' || SQLERRM;
END $$;
-- without the key every bad row is an error; with it the run releases
SELECT n, o, regress_citus.try(format(q, o)) FROM (VALUES
  ('halfspace, NaN feature', $$SELECT (dpobj.dp_halfspace(x, y, 1, 1e-6, %L)).mechanism FROM regress_citus.pts WHERE id <> 202 AND id <> 203$$),
  ('halfspace, NULL label', $$SELECT (dpobj.dp_halfspace(x, y, 1, 1e-6, %L)).mechanism FROM regress_citus.pts WHERE id <> 201 AND id <> 203$$),
  ('logistic, NULL element', $$SELECT (dpobj.dp_logistic(x, y, 1, 1e-6, %L::jsonb || '{"R": 1}')).mechanism FROM regress_citus.pts WHERE id <> 202$$),
  ('linear, infinite label', $$SELECT (dpobj.dp_linear_regression(x, v, 1, 1e-6, %L::jsonb || '{"R": 1, "y_min": 0, "y_max": 1}')).mechanism FROM regress_citus.pts WHERE id <> 202$$),
  ('evaluate, NaN feature', $$SELECT dpobj.dp_evaluate(x, y, 1, 1e-6, %L::jsonb || jsonb_build_object('model', ROW('opdisc', ARRAY[1, 0.5]::float8[], 0, 1, 1e-6, '{}')::dpobj.model::text)) IS NOT NULL FROM regress_citus.pts WHERE id <> 202$$)
) v(n, q), (VALUES ('{}'), ('{"sealed": false}'), ('{"sealed": true}')) w(o)
ORDER BY n, o;
-- the key is a boolean, like every other option
SELECT regress_citus.try($$SELECT (dpobj.dp_halfspace(x, y, 1, 1e-6, '{"sealed": 1}')).mechanism FROM regress_citus.pts$$);
SELECT regress_citus.try($$SELECT dpobj.dp_evaluate(x, y, 1, 1e-6, jsonb_build_object('sealed', 'yes', 'model', ROW('opdisc', ARRAY[1, 0.5]::float8[], 0, 1, 1e-6, '{}')::dpobj.model::text)) IS NOT NULL FROM regress_citus.pts$$);
-- with the key the other checks stay: a bad epsilon is still refused
SELECT regress_citus.try($$SELECT (dpobj.dp_halfspace(x, y, -1, 1e-6, '{"sealed": true}')).mechanism FROM regress_citus.pts$$);
DROP SCHEMA regress_citus CASCADE;
