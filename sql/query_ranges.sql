-- Private SQL queries grouped by an expression over an integer column of a declared
-- range of at most 1000 values (age / 10, width_bucket, CASE WHEN age < 30): its
-- integers are its levels, so every group of the range appears (zero counts too), no
-- key is selected; values outside the range and NULL fall in the NULL group.  At
-- epsilon 2000 per statistic the counts are exact but with probability e^-1000.
CREATE SCHEMA regress_qr;
CREATE ROLE regress_qr_ann;
CREATE TABLE regress_qr.people AS
SELECT i, CASE WHEN i % 50 = 7 THEN NULL WHEN i % 97 = 0 THEN 150 ELSE 18 + i % 50 END AS age,
       (i % 10) * 10.0 AS spend, (i % 7)::float8 AS score
  FROM generate_series(1, 400) i;
SELECT dpobj.declare_domain('regress_qr.people', 'age', 18, 90);
SELECT dpobj.declare_domain('regress_qr.people', 'spend', 0, 100);
SELECT dpobj.declare_domain('regress_qr.people', 'score', 0, 6);
SELECT dpobj.protect('regress_qr.people');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_qr.people', 'regress_qr_ann', 1000000, 0.001);
GRANT USAGE ON SCHEMA regress_qr TO regress_qr_ann;
-- the truth, for comparison: ages outside [18, 90] (150) and NULL are the NULL group
SELECT CASE WHEN age BETWEEN 18 AND 90 THEN age / 10 END AS decade, count(*), sum(spend)
  FROM regress_qr.people GROUP BY 1 ORDER BY 1;
SET ROLE regress_qr_ann;
SET dpobj.query_epsilon = 2000;
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_qr.people' \gset

-- accepted: every decade of [18, 90] appears (80 and 90 with zero rows), NULL last
SELECT age / 10 AS decade, count(*) FROM regress_qr.people GROUP BY age / 10 ORDER BY 1;
SELECT age / 10 AS decade, count(*), round(sum(spend)::numeric, -2) AS spend_100s
  FROM regress_qr.people GROUP BY 1 ORDER BY 1;
SELECT width_bucket(age, 18, 90, 4) AS b, count(*) FROM regress_qr.people GROUP BY 1 ORDER BY 1;
SELECT floor(age / 20.0) AS b, count(*) FROM regress_qr.people GROUP BY 1 ORDER BY 1;
SELECT CASE WHEN age < 30 THEN 'young' WHEN age < 60 THEN 'middle' ELSE 'old' END AS g,
       count(*), avg(spend) > 0 AS pos
  FROM regress_qr.people GROUP BY 1 ORDER BY 1;
-- a plain GROUP BY age: its 73 integers are its groups (90 with zero rows) and NULL
SELECT age, count(*) FROM regress_qr.people GROUP BY age ORDER BY 1 DESC NULLS LAST LIMIT 3;
SELECT age, count(*) FROM regress_qr.people GROUP BY age ORDER BY 1 NULLS FIRST LIMIT 2;
-- dpobj.aggregate() by the column: its 73 integers and "other", no delta needed
SELECT count(*) AS groups, sum(estimate) AS rows, count(*) FILTER (WHERE estimate = 0) AS empty
  FROM dpobj.aggregate('regress_qr.people', '[{"stat": "count"}]', 2000, 0, '{age}');
-- one charge per query
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_qr.people';

-- refused before any charge (0A000), naming the construct
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_qr.people' \gset
SELECT sqlstate, message FROM regress.err($$SELECT score::int / 2, count(*) FROM regress_qr.people GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT age / 10, sum(age) FROM regress_qr.people GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT age / 10, count(age) FROM regress_qr.people GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT i / 10, count(*) FROM regress_qr.people GROUP BY 1$$);
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_qr.people';
RESET ROLE;
-- a range of more than 1000 integers: not levels (a plain GROUP BY selects keys)
SELECT dpobj.declare_domain('regress_qr.people', 'i', 0, 5000);
SET ROLE regress_qr_ann;
SELECT sqlstate, message FROM regress.err($$SELECT i / 10, count(*) FROM regress_qr.people GROUP BY 1$$);
RESET ROLE;
DROP SCHEMA regress_qr CASCADE;
DROP ROLE regress_qr_ann;
