-- bench/operating/setup.sql — after bench/ebm/setup.sql: adult23, Adult's 12 columns (as
-- adult12) with positives subsampled to 23 % in both splits (the first in md5 order of
-- the features kept), and be.tables' entry for it.
\set ON_ERROR_STOP 1
INSERT INTO be.rows
SELECT 'adult23', split, features, label
  FROM (SELECT r.*, row_number() OVER (PARTITION BY split, label ORDER BY md5(features::text)) AS rn
          FROM be.rows r WHERE tbl = 'adult12') s
 WHERE NOT label
    OR rn <= round(0.23 / 0.77 * (SELECT count(*) FROM be.rows q
                                   WHERE q.tbl = 'adult12' AND q.split = s.split AND NOT q.label));
INSERT INTO be.tables (tbl, groups, w_false, lo)
SELECT 'adult23', groups, NULL, lo FROM be.tables WHERE tbl = 'adult12';
ANALYZE be.rows;
