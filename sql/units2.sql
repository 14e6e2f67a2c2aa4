-- The privacy-unit bounding inside train()'s query (src/protected/unitkeep.c):
-- dpobj.unit_counts(unit, k) counts each unit's selected rows within
-- dpobj.max_state_memory and returns a handle (> 0), then
-- dpobj.unit_keep(unit, handle) keeps a uniformly random k of each unit's rows
-- (selection sampling); when the units outgrow the cap it returns 0 and the
-- other branch sorts by unit (a sort, which spills past work_mem), numbers and
-- counts each unit's rows, and dpobj.unit_keep_sorted() samples them as they
-- arrive.  The query below
-- is the shape train() builds (src/protected/trainquery.h).
CREATE TEMP TABLE ub (id int, u int, t text, c char(3));
-- unit j has j rows (j = 1..12), a NULL unit has 4
INSERT INTO ub SELECT 100 * j + r, j, 'p' || j, chr(96 + j) FROM generate_series(1, 12) j, generate_series(1, j) r;
INSERT INTO ub SELECT 9000 + r, NULL, NULL, NULL FROM generate_series(1, 4) r;
-- draw: a distinct call per draw (the planner may not reuse one call's rows)
CREATE FUNCTION pg_temp.kept(k bigint, draw int DEFAULT 0) RETURNS TABLE (id int, u int) LANGUAGE sql VOLATILE AS $$
  SELECT r.id, r.u
    FROM (SELECT dpobj.unit_counts(u, k) AS h FROM ub WHERE u IS NOT NULL) c
   CROSS JOIN LATERAL (
         (SELECT id, u FROM ub
           WHERE c.h > 0 AND CASE WHEN u IS NOT NULL THEN dpobj.unit_keep(u, c.h) ELSE false END
          OFFSET 0)
         UNION ALL
         (SELECT id, u FROM (SELECT id, u, row_number() OVER w AS n, count(*) OVER w AS m
                               FROM ub WHERE c.h = 0 AND u IS NOT NULL WINDOW w AS (PARTITION BY u)) s
           WHERE dpobj.unit_keep_sorted(s.n, s.m, k))) r
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
-- the sorted branch alone: exactly min(m_u, k) rows of every unit, and the same
-- uniform bands for unit 5 at k = 2 (no random keys, so no ties to break)
CREATE FUNCTION pg_temp.kept_sorted(k bigint, draw int DEFAULT 0) RETURNS TABLE (id int, u int) LANGUAGE sql VOLATILE AS $$
  SELECT id, u FROM (SELECT id, u, row_number() OVER w AS n, count(*) OVER w AS m
                       FROM ub WHERE u IS NOT NULL AND draw IS NOT NULL WINDOW w AS (PARTITION BY u)) s
   WHERE dpobj.unit_keep_sorted(s.n, s.m, k) $$;
SELECT k, bool_and(n = least(u, k)) AS min_m_k, count(*) AS units, sum(n) AS rows
  FROM (SELECT k, u, count(*) AS n FROM generate_series(1, 13) k, pg_temp.kept_sorted(k) GROUP BY k, u) s
 GROUP BY k ORDER BY k;
CREATE TEMP TABLE sdraws AS
SELECT d, array_agg(id ORDER BY id) AS ids
  FROM generate_series(1, 600) d, LATERAL (SELECT * FROM pg_temp.kept_sorted(2, d) WHERE u = 5) k
 GROUP BY d;
SELECT count(*) AS draws, bool_and(cardinality(ids) = 2) AS two_each FROM sdraws;
SELECT count(*) AS rows, bool_and(n BETWEEN 144 AND 336) AS rows_uniform
  FROM (SELECT id, count(*) AS n FROM sdraws, unnest(ids) id GROUP BY id) s;
SELECT count(*) AS pairs, bool_and(n BETWEEN 1 AND 118) AS pairs_uniform
  FROM (SELECT ids, count(*) AS n FROM sdraws GROUP BY ids) s;
-- rows out of order raise (at most k per unit whatever the plan): a unit's row 2
-- before its row 1, a row number past the unit's count
\set VERBOSITY sqlstate
SELECT dpobj.unit_keep_sorted(2, 5, 1);
SELECT dpobj.unit_keep_sorted(r, 2, 1) FROM generate_series(1, 3) r;
\set VERBOSITY default
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
-- the sort's grouping is the same equality: char ignores trailing blanks there too
SELECT count(*) AS rows FROM (SELECT row_number() OVER w AS n, count(*) OVER w AS m FROM ubc WINDOW w AS (PARTITION BY c)) s
 WHERE dpobj.unit_keep_sorted(n, m, 1);

-- Past the cap: units whose keys are long texts outgrow dpobj.max_state_memory = 64kB
-- after a few dozen, so unit_counts() gives up (0) and the sorting branch keeps the
-- rows.  us: 200 units of 1..7 rows (unit j has j % 7 + 1; 'u4-...' has 5), each key
-- 300 characters, a NULL unit of 4 rows; the rows are wide enough that at
-- work_mem = 64kB the sort spills to a temporary file.
CREATE TEMP TABLE us (id int, u text, pad text);
INSERT INTO us SELECT 1000 * j + r, 'u' || j || '-' || repeat('x', 300), repeat('y', 200)
  FROM generate_series(1, 200) j, generate_series(1, j % 7 + 1) r;
INSERT INTO us SELECT 900000 + r, NULL, repeat('y', 200) FROM generate_series(1, 4) r;
CREATE FUNCTION pg_temp.kept_us(k bigint, draw int DEFAULT 0) RETURNS TABLE (id int, u text) LANGUAGE sql VOLATILE AS $$
  SELECT r.id, r.u
    FROM (SELECT dpobj.unit_counts(u, k) AS h FROM us WHERE u IS NOT NULL) c
   CROSS JOIN LATERAL (
         (SELECT id, u FROM us
           WHERE c.h > 0 AND CASE WHEN u IS NOT NULL THEN dpobj.unit_keep(u, c.h) ELSE false END
          OFFSET 0)
         UNION ALL
         (SELECT id, u FROM (SELECT id, u, pad, row_number() OVER w AS n, count(*) OVER w AS m
                               FROM us WHERE c.h = 0 AND u IS NOT NULL WINDOW w AS (PARTITION BY u)) s
           WHERE dpobj.unit_keep_sorted(s.n, s.m, k))) r
   WHERE draw IS NOT NULL $$;
-- which branch ran, whether its sort spilled, and the rows each unit kept (the
-- plan's numbers that vary are left out)
CREATE FUNCTION pg_temp.plan_us(k bigint) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE format($q$EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
        SELECT count(*) FROM (SELECT dpobj.unit_counts(u, %s::bigint) AS h FROM us WHERE u IS NOT NULL) c
         CROSS JOIN LATERAL (
               (SELECT id FROM us WHERE c.h > 0 AND CASE WHEN u IS NOT NULL THEN dpobj.unit_keep(u, c.h) ELSE false END
                OFFSET 0)
               UNION ALL
               (SELECT id FROM (SELECT id, pad, row_number() OVER w AS n, count(*) OVER w AS m
                                  FROM us WHERE c.h = 0 AND u IS NOT NULL WINDOW w AS (PARTITION BY u)) s
                 WHERE dpobj.unit_keep_sorted(s.n, s.m, %s::bigint))) r$q$, k, k)
    LOOP
        IF line ~ 'Seq Scan|Sort Method|WindowAgg' THEN
            -- 18 prints actual rows with two decimals (rows=798.00)
            RETURN NEXT regexp_replace(regexp_replace(regexp_replace(line, '(Memory|Disk): \d+kB', '\1: NkB', 'g'),
                                       '^ *(->)? *', ''), 'rows=(\d+)\.00 ', 'rows=\1 ', 'g');
        END IF;
    END LOOP;
END $$;
-- at the default cap: in memory, the sort never runs
SELECT * FROM pg_temp.plan_us(2);
SET dpobj.max_state_memory = '64kB';
SET work_mem = '64kB';
-- past it: the sort runs, on a temporary file
SELECT * FROM pg_temp.plan_us(2);
-- exactly min(m_u, k) rows of every unit on the sorting path, none of the NULL unit
SELECT k, bool_and(n = least(m, k)) AS min_m_k, count(*) AS units, sum(n) AS rows
  FROM (SELECT k, kept.u, count(*) AS n FROM generate_series(1, 8) k, pg_temp.kept_us(k) kept GROUP BY k, kept.u) s
  JOIN (SELECT u, count(*) AS m FROM us GROUP BY u) t USING (u)
 GROUP BY k ORDER BY k;
-- Uniform on both paths: unit 'u4-...' (5 rows) at k = 2, 600 draws each; the 10
-- pairs' chi-square (9 degrees of freedom) stays below 55.45, its 1 - 1e-8 quantile.
-- Then the bounding does not depend on other units: the same unit, sorted among
-- 200 other units of other sizes and order (us2), keeps pairs whose counts are
-- homogeneous with us's (chi-square of the 2 x 10 table, 9 degrees of freedom).
CREATE TEMP TABLE us_draws AS
SELECT 'sorted' AS path, d, array_agg(id ORDER BY id) AS ids
  FROM generate_series(1, 600) d, LATERAL (SELECT * FROM pg_temp.kept_us(2, d) WHERE u LIKE 'u4-%') k
 GROUP BY d;
RESET work_mem;
RESET dpobj.max_state_memory;
INSERT INTO us_draws
SELECT 'memory', d, array_agg(id ORDER BY id)
  FROM generate_series(1, 600) d, LATERAL (SELECT * FROM pg_temp.kept_us(2, d) WHERE u LIKE 'u4-%') k
 GROUP BY d;
-- us2: unit 'u4-...' and 200 other units of 1..7 rows, inserted in another order
SET dpobj.max_state_memory = '64kB';
SET work_mem = '64kB';
ALTER TABLE us RENAME TO us1;
CREATE TEMP TABLE us (id int, u text, pad text);
INSERT INTO us SELECT id, u, pad FROM us1 WHERE u LIKE 'u4-%';
INSERT INTO us SELECT 5000000 + 1000 * j + r, 'v' || j || '-' || repeat('x', 300), repeat('y', 200)
  FROM generate_series(200, 1, -1) j, generate_series(1, (j * 3) % 7 + 1) r;
INSERT INTO us_draws
SELECT 'sorted, other units', d, array_agg(id ORDER BY id)
  FROM generate_series(1, 600) d, LATERAL (SELECT * FROM pg_temp.kept_us(2, d) WHERE u LIKE 'u4-%') k
 GROUP BY d;
RESET work_mem;
RESET dpobj.max_state_memory;
SELECT path, sum(n) AS draws, bool_and(two) AS two_each, count(*) AS pairs,
       sum((n - 60.0) ^ 2 / 60.0) < 55.45 AS chi_square_uniform
  FROM (SELECT path, ids, count(*) AS n, bool_and(cardinality(ids) = 2) AS two
          FROM us_draws GROUP BY path, ids) s
 GROUP BY path ORDER BY path;
SELECT sum((n - e) ^ 2 / e) < 55.45 AS homogeneous
  FROM (SELECT path, ids, count(*) AS n,
               (sum(count(*)) OVER (PARTITION BY ids)) * 600.0 / 1200.0 AS e
          FROM us_draws WHERE path IN ('sorted', 'sorted, other units') GROUP BY path, ids) s;
-- The second scan reads the first one's row hashes a few rows ahead, a prefetch hint
-- only: the kept rows are the same whatever it reads.  ul: 60 000 rows (four chunks
-- of hints) in 2 048 units of about 29 rows, counted in id order, then kept in id
-- order and in reverse (every hint wrong), at the default cap, at 320kB (the hints
-- stop after one chunk) and at 256kB (the counts' table needs their room: freed
-- after 4 732 rows); the counts fit in all three.  Every unit keeps exactly min(m_u, k) rows, each of its
-- own, and a unit of at most k rows keeps all of them.
CREATE TEMP TABLE ul AS
SELECT id, 1 + (hashint4(id) & 2047) AS u FROM generate_series(1, 60000) id;
CREATE FUNCTION pg_temp.kept_ul(k bigint, dir text) RETURNS TABLE (id int, u int) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'SELECT r.id, r.u FROM (SELECT dpobj.unit_counts(u, %s::bigint) AS h FROM (SELECT * FROM ul ORDER BY id OFFSET 0) a) c
      CROSS JOIN LATERAL (SELECT b.id, b.u FROM (SELECT * FROM ul ORDER BY id %s OFFSET 0) b
                          WHERE dpobj.unit_keep(b.u, c.h)) r', k, dir);
END $$;
CREATE TEMP VIEW ul_kept AS
SELECT k, dir, bool_and(n = least(m, k)) AS min_m_k, bool_and(n = m) FILTER (WHERE m <= k) AS all_of_small,
       count(*) AS units, sum(n) AS rows
  FROM (VALUES (3), (29)) ks(k), (VALUES ('ASC'), ('DESC')) dirs(dir),
       LATERAL (SELECT kept.u, count(*) AS n FROM pg_temp.kept_ul(k, dir) kept GROUP BY kept.u) kept
  JOIN (SELECT u, count(*) AS m FROM ul GROUP BY u) t USING (u)
 GROUP BY k, dir ORDER BY k, dir;
SELECT * FROM ul_kept;
SET dpobj.max_state_memory = '320kB';
SELECT * FROM ul_kept;
SET dpobj.max_state_memory = '256kB';
SELECT * FROM ul_kept;
RESET dpobj.max_state_memory;
SELECT count(*) AS units, min(m) AS min_rows, max(m) AS max_rows, count(*) FILTER (WHERE m < 29) AS below_29,
       count(*) FILTER (WHERE m = 29) AS at_29, count(*) FILTER (WHERE m > 29) AS above_29
  FROM (SELECT u, count(*) AS m FROM ul GROUP BY u) t;
-- the keys: 128 bits, a new sequence for every query
SELECT count(DISTINCT dpobj.unit_row_key()) AS keys FROM generate_series(1, 10000);

-- refusals: k out of range, a unit type without hashing, no counts in this query, a
-- unit the counts lack, the handle of counts that spilled
\set VERBOSITY sqlstate
SELECT dpobj.unit_counts(u, 0::bigint) FROM ub;
SELECT dpobj.unit_counts(u, 10001::bigint) FROM ub;
SELECT dpobj.unit_counts(point(id, id), 2::bigint) FROM ub;
SELECT dpobj.unit_keep(1, 12345);
SELECT dpobj.unit_keep(u, (SELECT dpobj.unit_counts(u, 2::bigint) FROM ub WHERE u < 3)) FROM ub WHERE u = 7;
SELECT dpobj.unit_keep('x'::text, (SELECT dpobj.unit_counts(u, 2::bigint) FROM ub));
SET dpobj.max_state_memory = '64kB';
SELECT dpobj.unit_keep(u, (SELECT dpobj.unit_counts(u, 2::bigint) FROM us1)) FROM us1 LIMIT 1;
RESET dpobj.max_state_memory;
\set VERBOSITY default
