-- bench/ebm/paired.sql — ebm against noisy GD, paired by seed (after setup.sql and
-- accuracy.sql): bank and german (held out), seeds 301 .. 400 at epsilon 1 and 0.5, the
-- defaults of both; the mean paired difference of balanced test accuracy and its standard
-- error say whether a median gap is beyond the seed-to-seed noise (20-seed medians of a
-- 300-row test split move by several points).
\set ON_ERROR_STOP 1
SELECT * FROM be.paired('{bank,german}', 301, 400, '{1,0.5}');
