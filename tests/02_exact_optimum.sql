-- With epsilon very large the noise is negligible and OPDisc returns the
-- exact non-private optimum: its 0/1 loss equals the minimum over the whole
-- grid, found here by brute-force enumeration in SQL.  Random data, d <= 4,
-- several seeds, both oracles.  Features lie on the lattice (1/64)Z so the
-- enumeration sees exactly the data the oracle sees.
BEGIN;
SELECT plan(21);

CREATE TEMP TABLE data (ds int, f float8[], y boolean);
SELECT setseed(0.125);
-- datasets 1..4: d = 2, 3, 4, 4 with noisy halfspace labels and duplicates
INSERT INTO data
SELECT ds, f, (f[1] - 0.5 * f[2] + 0.25 * random() > 0.1)
  FROM (SELECT ds, ARRAY(SELECT (floor(random() * 33 + 0 * g) - 16) / 16.0
                           FROM generate_series(1, CASE ds WHEN 1 THEN 2 WHEN 2 THEN 3 ELSE 4 END) j) AS f
          FROM generate_series(1, 4) ds, generate_series(1, 150) g) s;
-- duplicated rows with conflicting labels
INSERT INTO data SELECT ds, f, NOT y FROM data WHERE ds IN (2, 4) AND f[1] > 0.5;
-- dataset 5: d = 7, where the default grid (D2 = 4, B = 2) is not the paper's (D2 = 7)
INSERT INTO data
SELECT 5, f, (f[1] - 0.5 * f[2] + 0.3 * f[6] + 0.25 * random() > 0.1)
  FROM (SELECT ARRAY(SELECT (floor(random() * 33 + 0 * g) - 16) / 16.0
                       FROM generate_series(1, 7) j) AS f
          FROM generate_series(1, 150) g) s;

-- all grid points w with |w_j| <= B and ||w||^2 <= D2 for dimension d
CREATE FUNCTION pg_temp.grid(d int, b int, d2 int) RETURNS SETOF int[]
LANGUAGE sql AS $$
  WITH RECURSIVE g(w) AS (
    SELECT ARRAY[]::int[]
    UNION ALL
    SELECT w || v FROM g, generate_series(-b, b) v
     WHERE cardinality(w) < d
       AND (SELECT coalesce(sum(x * x), 0) FROM unnest(w) x) + v * v <= d2)
  SELECT w FROM g WHERE cardinality(w) = d
$$;

CREATE FUNCTION pg_temp.loss(w float8[], set int) RETURNS bigint
LANGUAGE sql AS $$
  SELECT count(*) FROM data
   WHERE ds = set
     AND ((SELECT sum(w[j] * f[j]) FROM generate_subscripts(f, 1) j) > 0) <> y
$$;

-- minimum loss over the grid; NULL b / d2 mean the default grid:
-- D2 = min(d, 4), B = floor(sqrt(min(d, D2)))
CREATE FUNCTION pg_temp.best(set int, b int, d2 int) RETURNS bigint
LANGUAGE sql AS $$
  SELECT min(pg_temp.loss(w::float8[], set))
    FROM (SELECT cardinality(f) AS d FROM data WHERE ds = set LIMIT 1) dim,
         LATERAL (SELECT coalesce(d2, least(dim.d, 4)) AS d2) g2,
         pg_temp.grid(dim.d, coalesce(b, floor(sqrt(least(dim.d, g2.d2)))::int), g2.d2) w
$$;

SET dpobj.seed = 17;
-- default grid (datasets 1-4, d <= 4: B = floor(sqrt d), D2 = d; dataset 5, d = 7: B = 2,
-- D2 = 4, exact search only: under the MIP oracle the default is the paper's grid) and a
-- larger one (B = 2, D2 = 6)
SELECT is(pg_temp.loss((SELECT (dpobj.dp_halfspace(f, y, 1e9, 1e-6, jsonb_build_object('oracle', o))).weights
                          FROM data WHERE ds = s), s),
          pg_temp.best(s, NULL, NULL),
          format('dataset %s, default grid, oracle %s: loss equals the grid minimum', s, o))
  FROM generate_series(1, 5) s, unnest(ARRAY['search', 'mip']) o
 WHERE s < 5 OR o = 'search';
-- the default grid's parameters at d = 7: the rule's, and the paper's under the MIP oracle
-- (which certifies the paper's grid here in about 2 s)
SELECT is((SELECT (dpobj.dp_halfspace(f, y, 1e9, 1e-6)).params->>'D2' FROM data WHERE ds = 5),
          '4', 'd = 7: the default grid has D2 = min(d, 4)');
SELECT is((SELECT (dpobj.dp_halfspace(f, y, 1e9, 1e-6, '{"oracle": "mip"}')).params->>'D2'
             FROM data WHERE ds = 5),
          '7', 'd = 7, oracle mip: the default grid is the paper''s, D2 = d');
SELECT is(pg_temp.loss((SELECT (dpobj.dp_halfspace(f, y, 1e9, 1e-6,
                                  jsonb_build_object('oracle', o, 'B', 2, 'D2', 6))).weights
                          FROM data WHERE ds = s), s),
          pg_temp.best(s, 2, 6),
          format('dataset %s, B = 2, D2 = 6, oracle %s: loss equals the grid minimum', s, o))
  FROM generate_series(1, 4) s, unnest(ARRAY['search', 'mip']) o;

-- The threaded exact search returns the same model for any thread
-- count (dpobj.oracle_threads, superuser only).  d = 12 one-hot style rows:
-- large enough that subtrees are handed between threads.
CREATE TEMP TABLE wide AS
SELECT ARRAY(SELECT CASE WHEN j <= 4 THEN (floor(random() * 9 + 0 * g) - 4) / 8.0
                         ELSE (CASE WHEN (g * 7 + j * 13) % (j + 1) = 0 THEN 1.0 ELSE 0.0 END) END
               FROM generate_series(1, 12) j) AS f,
       random() < 0.4 AS y
  FROM generate_series(1, 1500) g;
CREATE FUNCTION pg_temp.models(agg text, nthreads int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  out text := '';
  w text;
BEGIN
  EXECUTE format('SET LOCAL dpobj.oracle_threads = %s', nthreads);
  FOR s IN 1..4 LOOP
    EXECUTE format('SET LOCAL dpobj.seed = %s', s);
    EXECUTE format('SELECT ((dpobj.%I(f, y, 2, 1e-6, %L)).weights)::text FROM wide',
                   agg, '{"oracle": "search"}') INTO w;
    out := out || w || ';';
  END LOOP;
  RETURN out;
END $$;
SELECT is(pg_temp.models('dp_halfspace', 3), pg_temp.models('dp_halfspace', 1),
          'OPDisc: 3 threads give the models of one thread (4 seeds)');
SELECT is(pg_temp.models('dp_halfspace_rspm', 3), pg_temp.models('dp_halfspace_rspm', 1),
          'RSPM: 3 threads give the models of one thread (4 seeds)');

SELECT * FROM finish();
ROLLBACK;
