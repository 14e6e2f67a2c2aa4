-- The privacy-unit bounding inside train()'s query (src/protected/unitkeep.c):
-- dpobj.unit_counts(unit, k) counts each unit's selected rows and returns a
-- handle, dpobj.unit_keep(unit, handle) then keeps a uniformly random k of
-- each unit's rows (selection sampling).  The query below is the shape
-- train() builds (src/protected/trainquery.h).
CREATE TEMP TABLE ub (id int, u int, t text, c char(3));
-- unit j has j rows (j = 1..12), a NULL unit has 4
INSERT INTO ub SELECT 100 * j + r, j, 'p' || j, chr(96 + j) FROM generate_series(1, 12) j, generate_series(1, j) r;
INSERT INTO ub SELECT 9000 + r, NULL, NULL, NULL FROM generate_series(1, 4) r;
-- draw: a distinct call per draw (the planner may not reuse one call's rows)
CREATE FUNCTION pg_temp.kept(k bigint, draw int DEFAULT 0) RETURNS TABLE (id int, u int) LANGUAGE sql VOLATILE AS $$
  SELECT r.id, r.u
    FROM (SELECT dpobj.unit_counts(u, k) AS h FROM ub WHERE u IS NOT NULL) c
   CROSS JOIN LATERAL (SELECT id, u FROM ub
                        WHERE CASE WHEN u IS NOT NULL THEN dpobj.unit_keep(u, c.h) ELSE false END
                       OFFSET 0) r
   WHERE draw IS NOT NULL $$;
-- exactly min(m_u, k) rows of every unit, none of the NULL unit
SELECT k, bool_and(n = least(u, k)) AS min_m_k, count(*) AS units, sum(n) AS rows
  FROM (SELECT k, u, count(*) AS n FROM generate_series(1, 13) k, pg_temp.kept(k) GROUP BY k, u) s
 GROUP BY k ORDER BY k;
-- Uniform: unit 5's rows at k = 2, 600 times.  Each row is kept with
-- probability 2/5 (mean 240, sd 12) and each pair with 1/10 (mean 60, sd 7.3);
-- the bands are 8 sd wide on each side (a false failure below 1e-14).  Keeping
-- the first k rows in scan order, or any fixed rows, fails them.
CREATE TEMP TABLE draws AS
SELECT d, array_agg(id ORDER BY id) AS ids
  FROM generate_series(1, 600) d, LATERAL (SELECT * FROM pg_temp.kept(2, d) WHERE u = 5) k
 GROUP BY d;
SELECT count(*) AS draws, bool_and(cardinality(ids) = 2) AS two_each FROM draws;
SELECT count(*) AS rows, bool_and(n BETWEEN 144 AND 336) AS rows_uniform
  FROM (SELECT id, count(*) AS n FROM draws, unnest(ids) id GROUP BY id) s;
SELECT count(*) AS pairs, bool_and(n BETWEEN 1 AND 118) AS pairs_uniform
  FROM (SELECT ids, count(*) AS n FROM draws GROUP BY ids) s;
-- counts that miss rows (as a volatile row-level security policy could make the two
-- scans differ): the first scan counts only the odd ids (about half of each unit's
-- rows), the second sees every row; each unit still keeps at most k = 2
SELECT bool_and(n <= 2) AS at_most_k, count(*) AS units, sum(n) AS rows
  FROM (SELECT r.u, count(*) AS n
          FROM (SELECT dpobj.unit_counts(u, 2::bigint) AS h FROM ub WHERE u IS NOT NULL AND id % 2 = 1) c
         CROSS JOIN LATERAL (SELECT u FROM ub WHERE CASE WHEN u IS NOT NULL THEN dpobj.unit_keep(u, c.h) ELSE false END
                             OFFSET 0) r
         GROUP BY r.u) s;
-- text and char units are compared by their type (char ignores trailing blanks)
SELECT count(*) AS rows FROM (SELECT dpobj.unit_counts(t, 3::bigint) AS h FROM ub WHERE t IS NOT NULL) c
 CROSS JOIN LATERAL (SELECT id FROM ub WHERE CASE WHEN t IS NOT NULL THEN dpobj.unit_keep(t, c.h) ELSE false END OFFSET 0) r;
CREATE TEMP TABLE ubc (c char(3));
INSERT INTO ubc VALUES ('a'), ('a '), ('a  '), ('b'), ('b');
SELECT count(*) AS rows FROM (SELECT dpobj.unit_counts(c, 1::bigint) AS h FROM ubc) c
 CROSS JOIN LATERAL (SELECT 1 FROM ubc WHERE dpobj.unit_keep(ubc.c, c.h) OFFSET 0) r;
-- refusals: k out of range, a unit type without hashing, no counts in this query, a
-- unit the counts lack
\set VERBOSITY sqlstate
SELECT dpobj.unit_counts(u, 0::bigint) FROM ub;
SELECT dpobj.unit_counts(u, 10001::bigint) FROM ub;
SELECT dpobj.unit_counts(point(id, id), 2::bigint) FROM ub;
SELECT dpobj.unit_keep(1, 12345);
SELECT dpobj.unit_keep(u, (SELECT dpobj.unit_counts(u, 2::bigint) FROM ub WHERE u < 3)) FROM ub WHERE u = 7;
SELECT dpobj.unit_keep('x'::text, (SELECT dpobj.unit_counts(u, 2::bigint) FROM ub));
\set VERBOSITY default
