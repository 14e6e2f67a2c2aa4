-- bench/ebm/gap.sql — the tuning tables behind results.md's numeric lines (after setup.sql
-- and accuracy.sql; german held out): small tables with about 20 terms, as german has.
-- "_g": adult12's and bank's training splits subsampled to 700 rows (setseed(0.2026)),
-- each row given irrelevant one-hot columns from the same seeded RNG so the terms number
-- 20 (adult 12 + 8, bank 15 + 5); tested on 4 000 of adult12's test rows and on bank's
-- test split, their added columns drawn alike.  Then ebm (the defaults) against noisy GD
-- paired by seed, seeds 1001-1200, epsilon 1 and 0.5.
\set ON_ERROR_STOP 1
\o /dev/null
SELECT setseed(0.2026);
\o
CREATE FUNCTION be.noise_cols(sizes int[]) RETURNS float8[] LANGUAGE sql VOLATILE AS
$$ SELECT array_agg(v ORDER BY g, l) FROM unnest(sizes) WITH ORDINALITY u(m, g),
          LATERAL (SELECT floor(random() * m)::int AS pick) p,
          LATERAL (SELECT l, (l = p.pick)::int::float8 AS v FROM generate_series(0, m - 1) l) q $$;
CREATE TEMP TABLE perm AS
SELECT tbl, split, features, label, row_number() OVER (PARTITION BY tbl, split ORDER BY random()) AS k
  FROM (SELECT * FROM be.rows WHERE tbl IN ('adult12', 'bank') ORDER BY tbl, split, features::text, label) s;
-- the noise columns go first (categoricals), the tables' own terms after
INSERT INTO be.rows
SELECT CASE tbl WHEN 'adult12' THEN 'adult_g' ELSE 'bank_g' END, split,
       be.noise_cols(CASE tbl WHEN 'adult12' THEN '{4,5,3,3,4,2,2,5}'::int[] ELSE '{4,3,5,2,3}'::int[] END)
       || features, label
  FROM perm WHERE (split = 'train' AND k <= 700) OR (split = 'test' AND (tbl = 'bank' OR k <= 4000))
 ORDER BY tbl, split, k;
INSERT INTO be.tables (tbl, groups, lo, w_false)
SELECT 'adult_g', '{4,5,3,3,4,2,2,5}'::int[] || groups, lo, w_false FROM be.tables WHERE tbl = 'adult12'
UNION ALL
SELECT 'bank_g', '{4,3,5,2,3}'::int[] || groups, lo, w_false FROM be.tables WHERE tbl = 'bank';
ANALYZE be.rows;
-- "_w": the same (setseed(0.2027)), but each added column leans to the label (with probability 0.2 its
-- level is 0 for a positive row, m - 1 for a negative one; else uniform), so the many
-- terms each carry a little signal, as german's do; bank's whole training split
\o /dev/null
SELECT setseed(0.2027);
\o
DROP TABLE perm;
CREATE TEMP TABLE perm AS
SELECT tbl, split, features, label, row_number() OVER (PARTITION BY tbl, split ORDER BY random()) AS k
  FROM (SELECT * FROM be.rows WHERE tbl IN ('adult12', 'bank') ORDER BY tbl, split, features::text, label) s;
CREATE FUNCTION be.weak_cols(sizes int[], y bool) RETURNS float8[] LANGUAGE sql VOLATILE AS
$$ SELECT array_agg(v ORDER BY g, l) FROM unnest(sizes) WITH ORDINALITY u(m, g),
          LATERAL (SELECT CASE WHEN random() < 0.2 THEN CASE WHEN y THEN 0 ELSE m - 1 END
                               ELSE floor(random() * m)::int END AS pick) p,
          LATERAL (SELECT l, (l = p.pick)::int::float8 AS v FROM generate_series(0, m - 1) l) q $$;
INSERT INTO be.rows
SELECT CASE tbl WHEN 'adult12' THEN 'adult_w' ELSE 'bank_w' END, split,
       be.weak_cols(CASE tbl WHEN 'adult12' THEN '{4,5,3,3,4,2,2,5}'::int[] ELSE '{4,3,5,2,3}'::int[] END, label)
       || features, label
  FROM perm WHERE (split = 'train' AND (tbl = 'bank' OR k <= 700)) OR (split = 'test' AND (tbl = 'bank' OR k <= 4000))
 ORDER BY tbl, split, k;
INSERT INTO be.tables (tbl, groups, lo, w_false)
SELECT 'adult_w', '{4,5,3,3,4,2,2,5}'::int[] || groups, lo, w_false FROM be.tables WHERE tbl = 'adult12'
UNION ALL
SELECT 'bank_w', '{4,3,5,2,3}'::int[] || groups, lo, w_false FROM be.tables WHERE tbl = 'bank';
ANALYZE be.rows;
-- "_n": adult12's 700 rows (setseed(0.2028)) with 8 added numeric columns that lean to the label: 4
-- continuous (uniform on [0, 1], shifted by +-0.1 with the label, clamped), 4 ordinal
-- (one of 1/4 .. 4/4, one step up with probability 0.2 for a positive row); 20 terms
\o /dev/null
SELECT setseed(0.2028);
\o
DROP TABLE perm;
CREATE TEMP TABLE perm AS
SELECT tbl, split, features, label, row_number() OVER (PARTITION BY tbl, split ORDER BY random()) AS k
  FROM (SELECT * FROM be.rows WHERE tbl IN ('adult12') ORDER BY tbl, split, features::text, label) s;
CREATE FUNCTION be.weak_nums(y bool) RETURNS float8[] LANGUAGE sql VOLATILE AS
$$ SELECT array_agg(v ORDER BY g) FROM generate_series(1, 8) g,
          LATERAL (SELECT CASE WHEN g <= 4
                      THEN least(1, greatest(0, random() + CASE WHEN y THEN 0.1 ELSE -0.1 END))
                      ELSE least(4, floor(random() * 4) + 1 + (y AND random() < 0.2)::int) / 4.0
                      END AS v) q $$;
INSERT INTO be.rows
SELECT 'adult_n', split, be.weak_nums(label) || features, label
  FROM perm WHERE tbl = 'adult12' AND ((split = 'train' AND k <= 700) OR (split = 'test' AND k <= 4000))
 ORDER BY split, k;
INSERT INTO be.tables (tbl, groups, lo, w_false)
SELECT 'adult_n', '{0,0,0,0,0,0,0,0}'::int[] || groups, lo, w_false FROM be.tables WHERE tbl = 'adult12';
ANALYZE be.rows;
SELECT * FROM be.paired('{adult_g,bank_g,adult_w,bank_w,adult_n}', 1001, 1200, '{1,0.5}');
