-- bench/ebm/small.sql — the runs behind results.md's small-table rule (after setup.sql
-- and accuracy.sql): adult12's training split subsampled to 700, 3 000 and 10 000 rows
-- (a fixed public seed; tested on adult12's test split), then rounds x bins x shrinkage
-- there, on bank and on adult12, seeds 1-20, and the default ("by_size") at epsilon 1
-- and 0.5 against shrinkage 8.  Prints the mean balanced accuracy per configuration, then
-- ebm against noisy GD paired by seed on the 700- and 3 000-row subsamples.
-- german is held out.
\set ON_ERROR_STOP 1
\o /dev/null
SELECT setseed(0.2026);
\o
CREATE TEMP TABLE adult_perm AS
SELECT features, label, row_number() OVER (ORDER BY random()) AS k
  FROM (SELECT features, label FROM be.rows WHERE tbl = 'adult12' AND split = 'train'
         ORDER BY features::text, label) s;
INSERT INTO be.rows SELECT 'adult_s' || n, 'train', features, label
  FROM adult_perm, unnest('{700,3000,10000}'::int[]) n WHERE k <= n;
INSERT INTO be.rows SELECT 'adult_s' || n, 'test', features, label
  FROM be.rows, unnest('{700,3000,10000}'::int[]) n WHERE tbl = 'adult12' AND split = 'test';
INSERT INTO be.tables (tbl, groups, lo, w_false)
SELECT 'adult_s' || n, groups, lo, w_false FROM be.tables, unnest('{700,3000,10000}'::int[]) n
 WHERE tbl = 'adult12';
ANALYZE be.rows;
\o /dev/null
SELECT be.run(tbl, 'ebm', jsonb_build_object('rounds', r, 'bins', b, 'shrinkage', sh), s)
  FROM unnest('{adult_s700,adult_s3000,adult_s10000,bank,adult12}'::text[]) tbl,
       unnest('{10,20}'::int[]) r, unnest('{8,16}'::int[]) b, unnest('{8,12,16,24}'::float8[]) sh,
       generate_series(1, 20) s;
SELECT be.run(tbl, 'ebm', o, s, e)
  FROM unnest('{adult_s700,adult_s3000,adult_s10000,bank,adult12}'::text[]) tbl,
       unnest('{"{}","{\"shrinkage\": 8}"}'::jsonb[]) o, unnest('{1,0.5}'::float8[]) e,
       generate_series(1, 20) s;
SELECT be.run(tbl, 'noisysgd', '{}', s)
  FROM unnest('{adult_s700,adult_s3000,adult_s10000}'::text[]) tbl, generate_series(1, 20) s;
\o
\pset format unaligned
\pset tuples_only on
\pset fieldsep ' | '
SELECT arm, eps, options::text,
       to_char(avg(bal_acc) FILTER (WHERE tbl = 'adult_s700'), 'FM0.000'),
       to_char(avg(bal_acc) FILTER (WHERE tbl = 'adult_s3000'), 'FM0.000'),
       to_char(avg(bal_acc) FILTER (WHERE tbl = 'adult_s10000'), 'FM0.000'),
       to_char(avg(bal_acc) FILTER (WHERE tbl = 'adult12'), 'FM0.000'),
       to_char(avg(bal_acc) FILTER (WHERE tbl = 'bank'), 'FM0.000')
  FROM be.results WHERE seed <= 20 AND tbl IN ('adult_s700', 'adult_s3000', 'adult_s10000', 'adult12', 'bank')
 GROUP BY 1, 2, 3 ORDER BY 1, 2 DESC, 3;

-- ebm against noisy GD paired by seed on the 700- and 3 000-row subsamples (seeds 501-560,
-- the defaults, epsilon 1 and 0.5): mean paired difference and its standard error
\pset format aligned
\pset tuples_only off
SELECT * FROM be.paired('{adult_s700,adult_s3000}', 501, 560, '{1,0.5}');
