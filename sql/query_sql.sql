-- Private SQL queries: a plain aggregate SELECT on a protected table, by an analyst with
-- a budget and no SELECT on it, with dpobj.query_epsilon set, is compiled into
-- dpobj.aggregate()'s request and rewritten into a scan of dpobj.query_run(plan): one
-- typed row per group, one charge per execution.  At epsilon 2000 per statistic the
-- counts' noise (scale 2 / 2000) is 0 but with probability e^-1000: counts are exact.
CREATE SCHEMA regress_q;
CREATE ROLE regress_q_ann;
CREATE ROLE regress_q_reader;
CREATE TABLE regress_q.people AS
SELECT i, CASE i % 3 WHEN 0 THEN 'F' WHEN 1 THEN 'M' ELSE 'X' END AS sex,
       (ARRAY['a', 'b', 'c'])[1 + i % 3] AS race, (i % 50) * 2.0 AS hours, i % 2 = 0 AS flag,
       i % 4 AS code, 'city' || (i % 2) AS city, (i % 10) * 100.0::float8 AS spend,
       date '2024-01-01' + i AS day
  FROM generate_series(1, 300) i;
ALTER TABLE regress_q.people ALTER COLUMN i SET NOT NULL;
SELECT dpobj.declare_domain('regress_q.people', 'sex', ARRAY['F', 'M']);
SELECT dpobj.declare_domain('regress_q.people', 'race', ARRAY['a', 'b', 'c']);
SELECT dpobj.declare_domain('regress_q.people', 'code', ARRAY['0', '1', '2', '3']);
SELECT dpobj.declare_domain('regress_q.people', 'hours', 0, 100);
SELECT dpobj.declare_domain('regress_q.people', 'spend', 0, 1000);
SELECT dpobj.protect('regress_q.people');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_q.people', 'regress_q_ann', 1000000, 0.001);
GRANT USAGE ON SCHEMA regress_q TO regress_q_ann, regress_q_reader;
GRANT SELECT ON regress_q.people TO regress_q_reader;
-- EXPLAIN VERBOSE's lines, the table's OID masked
CREATE FUNCTION regress_q.explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || q LOOP
        RETURN NEXT regexp_replace(r, '"relid": [0-9]+', '"relid": N');
    END LOOP;
END $$;
-- the truth, for comparison
SELECT sex, count(*), sum(hours), avg(hours), sum(spend) FROM regress_q.people GROUP BY sex ORDER BY sex;
SET ROLE regress_q_ann;

-- without dpobj.query_epsilon: PostgreSQL's error, its hint naming the setting
SELECT sqlstate, message, hint FROM regress.err($$SELECT count(*) FROM regress_q.people$$);
SHOW dpobj.query_epsilon;
SHOW dpobj.query_delta;
SET dpobj.query_epsilon = 2000;
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_q.people' \gset

-- counts, grouped by declared levels: every level and "other" (NULL), exact at this epsilon
SELECT count(*) FROM regress_q.people;
SELECT sex, count(*) FROM regress_q.people GROUP BY sex ORDER BY sex;
SELECT race, count(*) AS n FROM regress_q.people GROUP BY race ORDER BY race;
SELECT sex, race, count(*) FROM regress_q.people GROUP BY sex, race ORDER BY 1, 2;
SELECT code, count(*) FROM regress_q.people GROUP BY code ORDER BY code;
SELECT count(*), sex FROM regress_q.people GROUP BY 2 ORDER BY 2 DESC;
SELECT p.sex, count(*) FROM regress_q.people AS p GROUP BY p.sex ORDER BY 1;
SELECT sex FROM regress_q.people GROUP BY sex ORDER BY sex;
SELECT count(i) FROM regress_q.people;
SELECT count(*) AS a, count(*) AS b FROM regress_q.people;
-- WHERE conditions "column op constant", ANDed: option "filter"
SELECT count(*) FROM regress_q.people WHERE hours >= 50;
SELECT count(*) FROM regress_q.people WHERE hours >= 50 AND flag = true;
SELECT count(*) FROM regress_q.people WHERE 50 <= hours;
SELECT count(*) FROM regress_q.people WHERE sex = 'F';
SELECT count(*) FROM regress_q.people WHERE hours BETWEEN 10 AND 20;
SELECT count(*) FROM regress_q.people WHERE flag;
SELECT count(*) FROM regress_q.people WHERE NOT flag AND hours < 10;
SELECT sex, count(*) FROM regress_q.people GROUP BY sex, sex ORDER BY sex;
SELECT count(*) FROM regress_q.people WHERE sex <> 'F' AND race = 'a';
SELECT count(*) FROM regress_q.people WHERE i < 101;
SELECT count(*) FROM regress_q.people WHERE spend > 450;
SELECT count(*) FROM regress_q.people WHERE day >= '2024-06-01';
SELECT sex, count(*) FROM regress_q.people WHERE code = 1 GROUP BY sex ORDER BY sex;
-- a condition on constants alone (no scan folded away: a count of no row)
SELECT count(*) FROM regress_q.people WHERE false;
SELECT sex, count(*) FROM regress_q.people WHERE 1 > 2 OR NULL::boolean GROUP BY sex ORDER BY sex;
-- the post-processing stays: expressions over the outputs, HAVING, ORDER BY, LIMIT, OFFSET
SELECT sex, count(*) * 2 AS twice, count(*)::float8 / 300 AS share FROM regress_q.people GROUP BY sex ORDER BY sex;
SELECT race, count(*) FROM regress_q.people GROUP BY race HAVING count(*) > 50 ORDER BY race;
SELECT code, count(*) FROM regress_q.people GROUP BY code ORDER BY count(*) DESC, code LIMIT 2;
SELECT code, count(*) FROM regress_q.people GROUP BY code ORDER BY code LIMIT 2 OFFSET 1;
SELECT 'total' AS label, count(*), 42 AS answer FROM regress_q.people;
SELECT lower(sex) AS s, count(*) FROM regress_q.people GROUP BY sex ORDER BY 1;
SELECT sex, count(*) FROM regress_q.people GROUP BY sex HAVING sex IS NOT NULL ORDER BY 1;
SELECT count(*) > 100 AS many FROM regress_q.people;
SELECT coalesce(sex, 'other') AS sex, count(*) FROM regress_q.people GROUP BY sex ORDER BY 1;
SELECT * FROM (VALUES (1)) v WHERE false;
-- the outputs' names and types: the query's own (count bigint, avg(numeric) numeric, ...)
SELECT sex, count(*), sum(hours), avg(hours), sum(spend), avg(spend), variance(hours),
       stddev(spend), var_pop(hours), stddev_pop(hours), var_samp(hours), stddev_samp(hours),
       min(hours), max(spend), percentile_cont(0.5) WITHIN GROUP (ORDER BY hours) AS median,
       percentile_disc(0.9) WITHIN GROUP (ORDER BY spend) AS p90, sum(code), avg(code), min(code)
  FROM regress_q.people GROUP BY sex \gdesc
SELECT count(*) AS n, sum(hours) AS total FROM regress_q.people \gdesc
-- sums and means near the truth (each group: sum 4900, mean 49; spend 45000): noise
-- scale per statistic 2^15 / (2000 / 3) lattice steps of 100 / 16384
SELECT sex, abs(sum(hours) - 4900) < 5 AS sum_near, abs(avg(hours) - 49) < 1 AS mean_near,
       count(*) = 100 AS count_exact
  FROM regress_q.people GROUP BY sex ORDER BY sex;
SELECT abs(sum(spend) - 135000) < 100 AS near, abs(avg(spend) - 450) < 2 AS mean_near FROM regress_q.people;
-- variances, standard deviations, quantiles, min and max within the declared bounds
SELECT variance(hours) BETWEEN 0 AND 2500 AS v_ok, stddev(hours) BETWEEN 0 AND 50 AS sd_ok,
       abs(stddev(hours) - sqrt(variance(hours))) < 1e-9 AS sd_is_root,
       min(hours) BETWEEN 0 AND 100 AS min_ok, max(hours) BETWEEN 0 AND 100 AS max_ok,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY hours) BETWEEN 0 AND 100 AS median_ok
  FROM regress_q.people;
SELECT abs(variance(hours) - 833) < 60 AS var_near, abs(stddev(hours) - 28.9) < 1.5 AS sd_near
  FROM regress_q.people;
SELECT abs(percentile_cont(0.5) WITHIN GROUP (ORDER BY hours) - 49) < 6 AS median_near,
       min(hours) <= max(hours) AS ordered FROM regress_q.people;
SELECT sex, avg(hours) IS NOT NULL AS has_mean FROM regress_q.people WHERE hours > 1000 GROUP BY sex ORDER BY 1;
-- the same statistic twice is released once: variance, var_samp, stddev and stddev_samp
-- are the sample variance, var_pop and stddev_pop the population one
SELECT abs(stddev(hours) - sqrt(var_samp(hours))) < 1e-9 AS one_sample,
       abs(stddev_pop(hours) - sqrt(var_pop(hours))) < 1e-9 AS one_pop,
       variance(hours) = var_samp(hours) AS same_samp, avg(hours) = avg(hours) AS same FROM regress_q.people;
-- count(c) of a NOT NULL column is count(*): no declaration needed
SELECT count(i) = count(*) AS same FROM regress_q.people;
-- one charge per execution, at query_epsilon, entry 'query'
SELECT count(*) - :ledger_before AS charges, bool_and(mechanism = 'query') AS entry,
       bool_and(epsilon = 2000) AS eps, bool_and(delta = 0) AS delta0
  FROM dpobj.ledger WHERE relation = 'regress_q.people';
-- the budget views and pricing know the entry 'query' (pure epsilon)
SELECT last_run, runs_left > 0 AS more FROM dpobj.my_budgets WHERE relation = 'regress_q.people'::regclass;
SELECT kind, charge_epsilon, charge_delta, admitted FROM dpobj.cost('regress_q.people', 'query', 2000);
SELECT dpobj.runs_left('regress_q.people', 'query', 2000) > 0 AS runs_left;
SELECT mechanisms LIKE '%query%' AS listed FROM dpobj.runs_left('regress_q.people') WHERE kind = 'pure';
SELECT count(*) AS ledger_mid FROM dpobj.ledger WHERE relation = 'regress_q.people' \gset

-- a prepared statement charges at each execution, at the settings then
PREPARE q1 AS SELECT sex, count(*) FROM regress_q.people GROUP BY sex ORDER BY sex;
EXECUTE q1;
SET dpobj.query_epsilon = 1000;
EXECUTE q1;
SELECT count(*) - :ledger_mid AS charges FROM dpobj.ledger WHERE relation = 'regress_q.people';
SELECT array_agg(epsilon) AS epsilons_latest_first
  FROM (SELECT epsilon FROM dpobj.ledger WHERE relation = 'regress_q.people' ORDER BY id DESC LIMIT 2) l;
-- unset at execution: refused before any charge
SET dpobj.query_epsilon = 0;
SELECT sqlstate, message FROM regress.err($$EXECUTE q1$$);
SET dpobj.query_epsilon = 2000;
DEALLOCATE q1;
-- query parameters as the values of "column op $n": set when the query runs
PREPARE qp(text, int) AS SELECT count(*) FROM regress_q.people WHERE sex = $1 AND hours >= $2;
EXECUTE qp('F', 50);
EXECUTE qp('M', 0);
SELECT sqlstate, message FROM regress.err($$EXECUTE qp(NULL, 0)$$);
SELECT regress_q.explain($$EXECUTE qp('F', 50)$$);
DEALLOCATE qp;
-- parameters of the post-processing (HAVING, LIMIT) are the caller's own values
PREPARE qh(int, int) AS SELECT race, count(*) FROM regress_q.people GROUP BY race HAVING count(*) > $1 ORDER BY race LIMIT $2;
EXECUTE qh(50, 2);
DEALLOCATE qh;
-- a cursor: one charge
BEGIN;
DECLARE c1 CURSOR FOR SELECT race, count(*) FROM regress_q.people GROUP BY race ORDER BY race;
FETCH 2 FROM c1;
FETCH ALL FROM c1;
COMMIT;
SELECT count(*) AS ledger_mid FROM dpobj.ledger WHERE relation = 'regress_q.people' \gset

-- EXPLAIN: the cost and each aggregate's accuracy, nothing charged
EXPLAIN (COSTS OFF) SELECT sex, count(*), avg(hours), sum(spend), stddev(hours), min(hours)
  FROM regress_q.people WHERE flag GROUP BY sex ORDER BY sex;
EXPLAIN (COSTS OFF) SELECT count(*) FROM regress_q.people;
SELECT regress_q.explain($$SELECT count(*) AS n FROM regress_q.people WHERE hours < 10$$);
-- EXPLAIN EXECUTE of a prepared private query: the same lines (text format only)
PREPARE qe(text) AS SELECT count(*), avg(hours) FROM regress_q.people WHERE sex = $1;
EXPLAIN (COSTS OFF) EXECUTE qe('F');
SET dpobj.query_epsilon = 1;
EXPLAIN (COSTS OFF) EXECUTE qe('M');
SET dpobj.query_epsilon = 2000;
DO $$
DECLARE r text; n int := 0;
BEGIN
    FOR r IN EXECUTE $q$EXPLAIN (COSTS OFF, FORMAT json) EXECUTE qe('F')$q$ LOOP
        n := n + (r LIKE '%dpobj private query%')::int;
    END LOOP;
    RAISE NOTICE 'json lines naming the cost: %', n;
END $$;
DEALLOCATE qe;
PREPARE qn AS SELECT 1 AS one;
EXPLAIN (COSTS OFF) EXECUTE qn;
DEALLOCATE qn;
SELECT count(*) = :ledger_mid AS nothing_charged FROM dpobj.ledger WHERE relation = 'regress_q.people';

-- grouped by a column without declared levels: private key selection, needs query_delta
SELECT sqlstate, message FROM regress.err($$SELECT city, count(*) FROM regress_q.people GROUP BY city$$);
SET dpobj.query_delta = 1e-6;
SELECT city, count(*) FROM regress_q.people GROUP BY city ORDER BY city;
SELECT city, abs(avg(hours) - 50) < 3 AS near FROM regress_q.people GROUP BY city ORDER BY city;
SELECT city, count(*) FROM regress_q.people GROUP BY city \gdesc
SELECT mechanism, epsilon, delta FROM dpobj.ledger WHERE relation = 'regress_q.people' ORDER BY id DESC LIMIT 1;
RESET dpobj.query_delta;
SELECT count(*) AS ledger_mid FROM dpobj.ledger WHERE relation = 'regress_q.people' \gset

-- dpobj.query(sql, epsilon, delta): one row per group, values and 95 % intervals by name
SELECT result, intervals FROM dpobj.query('SELECT sex, count(*) AS n FROM regress_q.people GROUP BY sex', 2000);
SELECT result->>'race' AS race, (result->>'n')::float8 BETWEEN (intervals->'n'->>0)::float8 AND (intervals->'n'->>1)::float8 AS in_ci,
       jsonb_typeof(intervals->'m') AS m_ci
  FROM dpobj.query('SELECT race, count(*) AS n, avg(hours) AS m FROM regress_q.people WHERE flag GROUP BY race', 2000)
 ORDER BY 1;
SELECT count(*) FROM dpobj.query('SELECT city, count(*) FROM regress_q.people GROUP BY city', 2000, 1e-6);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query('SELECT count(*) FROM regress_q.people; SELECT 1', 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query('DELETE FROM regress_q.people', 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query('SELECT count(*) FROM pg_class', 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query('SELECT count(*) FROM regress_q.people ORDER BY 1', 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query('SELECT count(*) * 2 FROM regress_q.people', 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query('SELECT count(*) FROM regress_q.people', 0)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query('SELECT * FROM regress_q.people', 1)$$);
SELECT count(*) - :ledger_mid AS charges FROM dpobj.ledger WHERE relation = 'regress_q.people';
SELECT array_agg(mechanism) AS entries_latest_first
  FROM (SELECT mechanism FROM dpobj.ledger WHERE relation = 'regress_q.people' ORDER BY id DESC LIMIT 3) l;
SELECT count(*) AS ledger_mid FROM dpobj.ledger WHERE relation = 'regress_q.people' \gset

-- refusals at parse analysis, before any charge: each construct outside the subset
SELECT sqlstate, message FROM regress.err($$SELECT * FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT i FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT 1 FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people a, regress_q.people b$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people JOIN pg_class ON true$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT * FROM regress_q.people LIMIT 5) s$$);
SELECT sqlstate, message FROM regress.err($$WITH w AS (SELECT * FROM regress_q.people) SELECT count(*) FROM w, w v$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people WHERE i IN (SELECT 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT (SELECT count(*) FROM regress_q.people)$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people UNION SELECT 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) OVER () FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT DISTINCT sex FROM regress_q.people GROUP BY sex$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people FOR UPDATE$$);
SELECT sqlstate, message FROM regress.err($$SELECT sex, count(*) FROM regress_q.people GROUP BY ROLLUP (sex)$$);
SELECT sqlstate, message FROM regress.err($$SELECT sex, count(*) FROM regress_q.people GROUP BY GROUPING SETS ((sex), ())$$);
SELECT sqlstate, message FROM regress.err($$SELECT generate_series(1, 2), count(*) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people TABLESAMPLE BERNOULLI (50)$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(DISTINCT sex) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FILTER (WHERE random() > 0.5) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT string_agg(sex, ',') FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT bool_and(flag) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT mode() WITHIN GROUP (ORDER BY hours) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT percentile_cont(ARRAY[0.5]) WITHIN GROUP (ORDER BY hours) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY hours) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT rank(3) WITHIN GROUP (ORDER BY hours) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT corr(hours, spend) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT sex || 'x', count(*) FROM regress_q.people GROUP BY sex || 'x'$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*), random() FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people HAVING random() > 0.5$$);
SELECT sqlstate, message FROM regress.err($$SELECT ctid, count(*) FROM regress_q.people GROUP BY ctid$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people WHERE ctid > '(0,1)'$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people WHERE i = (SELECT 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people WHERE sex = current_user$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people WHERE md5(sex) = 'x'$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people WHERE hours > random()$$);
SELECT sqlstate, message FROM regress.err($$SELECT sum(length(sex)) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT avg(hours::text::numeric) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people WHERE people IS NULL$$);
SELECT sqlstate, message FROM regress.err($$INSERT INTO regress_q.people (i) SELECT count(*) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$CREATE TEMP TABLE x AS SELECT count(*) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) INTO TEMP x FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$CREATE TEMP VIEW v AS SELECT count(*) FROM regress_q.people$$);
-- count(DISTINCT ...) counts privacy units: a table without one has none to count
SELECT sqlstate, message FROM regress.err($$SELECT count(DISTINCT i) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_q.people', '[{"stat": "units"}]', 1, 0, ARRAY['sex'], '{}')$$);
-- a SQL-standard function body is analyzed without the hook: stored as written, it reads
-- the table as its caller, whom PostgreSQL refuses
CREATE FUNCTION pg_temp.f() RETURNS bigint BEGIN ATOMIC SELECT count(*) FROM regress_q.people; END;
SELECT sqlstate, message FROM regress.err($$SELECT pg_temp.f()$$);
DROP FUNCTION pg_temp.f();
SELECT sqlstate, message FROM regress.err($$VALUES ((SELECT count(*) FROM regress_q.people))$$);
PREPARE qp2(numeric) AS SELECT sum(hours * $1) FROM regress_q.people;
PREPARE qp3(text) AS SELECT count(*) FROM regress_q.people WHERE sex = $1 OR race = 'a';
SELECT sqlstate, message FROM regress.err($$SELECT max(sex) FROM regress_q.people$$);
-- a user-defined function or operator (in the analyst's own schema) is never compiled
RESET ROLE;
CREATE SCHEMA regress_q_own AUTHORIZATION regress_q_ann;
SET ROLE regress_q_ann;
CREATE FUNCTION regress_q_own.twice(numeric) RETURNS numeric IMMUTABLE LANGUAGE sql AS 'SELECT $1 * 2';
CREATE FUNCTION regress_q_own.plus(numeric, numeric) RETURNS numeric IMMUTABLE LANGUAGE sql AS 'SELECT $1 + $2';
CREATE OPERATOR regress_q_own.+ (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = regress_q_own.plus);
CREATE OPERATOR regress_q_own.= (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = regress_q_own.plus);
SELECT sqlstate, message FROM regress.err($$SELECT sum(regress_q_own.twice(hours)) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people WHERE regress_q_own.twice(hours) > 3$$);
SELECT sqlstate, message FROM regress.err($$SELECT regress_q_own.twice(count(*)) FROM regress_q.people$$);
SET search_path = regress_q_own, pg_catalog;
SELECT sqlstate, message FROM regress.err($$SELECT sum(hours OPERATOR(regress_q_own.+) 1) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people WHERE hours + 1 > 3$$);
RESET search_path;
-- richer conditions and expressions compile to aggregate()'s "where" and "expr" (the JSON
-- expression format) and run end to end, each charged once; counts at epsilon 2000 are exact
-- but with probability e^-1000, the sums are noisy (only released or not is shown)
SELECT count(*) AS ledger_mid FROM dpobj.ledger WHERE relation = 'regress_q.people' \gset
SELECT count(*) FROM regress_q.people WHERE sex = 'F' OR hours > 50;
SELECT count(*) FROM regress_q.people WHERE race IN ('a', 'b');
SELECT count(*) FROM regress_q.people WHERE sex IS NULL;
SELECT count(*) FROM regress_q.people WHERE city LIKE 'city%';
SELECT count(*) FROM regress_q.people WHERE NOT (hours > 3);
SELECT sum(hours * 2 + 1) IS NOT NULL AS released FROM regress_q.people;
SELECT avg(CASE WHEN flag THEN spend ELSE 0 END) IS NOT NULL AS released FROM regress_q.people;
SELECT sum(extract(month FROM day)) IS NOT NULL AS released FROM regress_q.people;
SELECT count(*) - :ledger_mid AS charges FROM dpobj.ledger WHERE relation = 'regress_q.people';
RESET ROLE;
-- the truths, read by the owner
SELECT count(*) FILTER (WHERE sex = 'F' OR hours > 50) AS sex_or_hours,
       count(*) FILTER (WHERE race IN ('a', 'b')) AS race_in, count(*) FILTER (WHERE sex IS NULL) AS sex_null,
       count(*) FILTER (WHERE city LIKE 'city%') AS city_like, count(*) FILTER (WHERE NOT (hours > 3)) AS not_hours
  FROM regress_q.people;
SET ROLE regress_q_ann;
SELECT count(*) AS ledger_mid FROM dpobj.ledger WHERE relation = 'regress_q.people' \gset
-- the compiled plan of such a query (EXPLAIN VERBOSE shows query_run's argument)
SELECT regress_q.explain($$SELECT count(*) FROM regress_q.people
 WHERE (sex = 'F' OR hours > 50.5) AND race NOT IN ('a') AND city LIKE 'c%' AND day IS NOT NULL$$);
SELECT sqlstate, message FROM regress.err($$SELECT regress_q.explain('SELECT sum(abs(hours - 2) * 2), avg(coalesce(spend, 0) / 2), sum(CASE WHEN flag THEN 1 ELSE 0 END) FROM regress_q.people')$$);
-- aggregate()'s own refusals, on public grounds: undeclared columns, levels
SELECT sqlstate, message FROM regress.err($$SELECT sum(i) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT avg(code) FROM regress_q.people$$);
SELECT sqlstate, message FROM regress.err($$SELECT sex, city, count(*) FROM regress_q.people GROUP BY sex, city$$);
SELECT count(*) = :ledger_mid AS nothing_charged FROM dpobj.ledger WHERE relation = 'regress_q.people';

-- NULLs as in SQL: count(*) counts every row; count(x), avg(x), var_samp(x)... the rows where
-- x is not NULL (a numeric and a level column with NULLs), compared with the owner's truth
RESET ROLE;
CREATE TABLE regress_q.gaps AS
SELECT i, CASE WHEN i % 4 = 0 THEN NULL ELSE (ARRAY['F', 'M'])[1 + i % 2] END AS sex,
       CASE WHEN i % 3 = 0 THEN NULL ELSE (i % 10) * 10.0 END AS income,
       CASE WHEN i % 5 = 0 THEN NULL ELSE i % 7 END AS tier, 'city' || (i % 2) AS city
  FROM generate_series(1, 300) i;
SELECT dpobj.declare_domain('regress_q.gaps', 'sex', ARRAY['F', 'M']);
SELECT dpobj.declare_domain('regress_q.gaps', 'tier', ARRAY['0', '1', '2']);
SELECT dpobj.declare_domain('regress_q.gaps', 'income', 0, 100);
SELECT dpobj.protect('regress_q.gaps');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_q.gaps', 'regress_q_ann', 1000000, 0.001);
GRANT SELECT ON regress_q.gaps TO regress_q_reader;
SELECT count(*), count(income), count(sex), count(tier), round(avg(income), 4) AS avg,
       round(var_samp(income), 4) AS var_samp, round(var_pop(income), 4) AS var_pop
  FROM regress_q.gaps;
SELECT avg(income) AS t_avg, var_samp(income) AS t_samp, var_pop(income) AS t_pop FROM regress_q.gaps \gset
SELECT sex, count(*), count(income), count(tier) FROM regress_q.gaps GROUP BY sex ORDER BY sex;
SELECT city, count(*), count(income), count(tier) FROM regress_q.gaps GROUP BY city ORDER BY city;
SET ROLE regress_q_ann;
SET dpobj.query_epsilon = 2000;
SELECT count(*), count(income), count(sex), count(tier), count(income + 1) AS count_expr FROM regress_q.gaps;
SELECT sex, count(*), count(income), count(tier) FROM regress_q.gaps GROUP BY sex ORDER BY sex;
-- by keys without declared levels (rows encoded by dpobj.encode_features_missing)
SET dpobj.query_delta = 1e-6;
SELECT city, count(*), count(income), count(tier) FROM regress_q.gaps GROUP BY city ORDER BY city;
RESET dpobj.query_delta;
-- avg(income) next to count(*): each its own rows (the true difference var_samp - var_pop is 4.2)
SELECT count(*), abs(avg(income) - :t_avg) < 0.5 AS avg_near FROM regress_q.gaps;
-- (at epsilon 20000 the variances' noise is within +- 0.3 but w.p. < 1e-9)
SET dpobj.query_epsilon = 20000;
SELECT abs(var_samp(income) - :t_samp) < 1 AS samp_near, abs(var_pop(income) - :t_pop) < 1 AS pop_near,
       abs(stddev_samp(income) - sqrt(:t_samp)) < 0.1 AS sd_near FROM regress_q.gaps;
SET dpobj.query_epsilon = 2000;
SELECT sum(income) IS NOT NULL AS released, percentile_cont(0.5) WITHIN GROUP (ORDER BY income) <= 100 AS median_ok
  FROM regress_q.gaps WHERE tier IS NULL;
-- an undeclared nullable column's count: aggregate()'s refusal, nothing charged
SELECT count(*) AS gaps_mid FROM dpobj.ledger WHERE relation = 'regress_q.gaps' \gset
SELECT sqlstate, message FROM regress.err($$SELECT count(i) FROM regress_q.gaps$$);
SELECT count(*) = :gaps_mid AS nothing_charged FROM dpobj.ledger WHERE relation = 'regress_q.gaps';
-- the compiled statistics: count(x) with its column, var_samp "sample"
SELECT regress_q.explain($$SELECT count(income), count(sex), var_samp(income), var_pop(income) FROM regress_q.gaps$$);
SET dpobj.query_epsilon = 2000;
-- text in "where" is compared byte-wise by dpobj: as PostgreSQL does under a deterministic
-- collation (=, <>, IN, LIKE, its _ one character), a C one (<, >, ILIKE); under any other
-- refused before any charge, never answered otherwise
RESET ROLE;
CREATE COLLATION regress_q.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE COLLATION regress_q.und (provider = icu, locale = 'und');
CREATE TABLE regress_q.words (i int NOT NULL, w text, wc text COLLATE regress_q.ci, g text DEFAULT 'a', wb char(4));
INSERT INTO regress_q.words VALUES (1, 'é'), (2, 'ab'), (3, 'x'), (4, '中'), (5, 'Ab'), (6, NULL);
UPDATE regress_q.words SET wc = w, wb = w;
SELECT dpobj.declare_domain('regress_q.words', 'g', ARRAY['a']);
SELECT dpobj.protect('regress_q.words');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_q.words', 'regress_q_ann', 1000000, 0.001);
SELECT count(*) FILTER (WHERE w LIKE '_') AS one_char, count(*) FILTER (WHERE w < 'b' COLLATE "C") AS below_b_c
  FROM regress_q.words;
SET ROLE regress_q_ann;
SELECT count(*) AS one_char FROM regress_q.words WHERE w LIKE '_' OR i < 0;
SELECT count(*) AS below_b_c FROM regress_q.words WHERE w < 'b' COLLATE "C" OR i < 0;
SELECT count(*) AS a_prefix FROM regress_q.words WHERE w LIKE 'a%' COLLATE "C" OR w ILIKE 'A_' COLLATE "C" OR i < 0;
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.words WHERE w = 'AB' COLLATE regress_q.ci OR i < 0$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.words WHERE wc IN ('ab', 'x')$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.words WHERE w < 'b' COLLATE regress_q.und OR i < 0$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.words WHERE w ILIKE 'é' COLLATE regress_q.und OR i < 0$$);
SELECT sqlstate, message FROM regress.err($$SELECT wc, count(*) FROM regress_q.words GROUP BY wc$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.words WHERE w LIKE 'a\' OR i < 0$$);
SELECT count(*) AS escaped FROM regress_q.words WHERE w LIKE 'a\\' OR w LIKE '\_' OR i < 0;
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.words WHERE wb LIKE 'ab' OR i < 0$$);
-- "column op constant" ANDed is a filter, compared by PostgreSQL under its collation
SELECT count(*) AS ab_ci FROM regress_q.words WHERE wc = 'AB';

-- dpobj.query_run() called directly: the plan validated, no more than aggregate()
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run('[]') AS t(n bigint)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run('{"relid": "x"}') AS t(n bigint)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(NULL) AS t(n bigint)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "count"}]'::jsonb, 'group_by', '[]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"stat": 0, "fn": "value"}]'::jsonb)) AS t(n text)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "count"}]'::jsonb, 'group_by', '[]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"stat": 3, "fn": "value"}]'::jsonb)) AS t(n bigint)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "histogram", "column": "sex"}]'::jsonb, 'group_by', '[]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"stat": 0, "fn": "value"}]'::jsonb)) AS t(n bigint)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "count"}]'::jsonb, 'group_by', '["sex"]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"group": "race"}, {"stat": 0, "fn": "value"}]'::jsonb)) AS t(s text, n bigint)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "count"}]'::jsonb, 'group_by', '["sex"]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"group": "sex"}, {"stat": 0, "fn": "value"}]'::jsonb)) AS t(s int, n bigint)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "sum", "column": "i"}]'::jsonb, 'group_by', '[]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"stat": 0, "fn": "value"}]'::jsonb)) AS t(n bigint)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'pg_class'::regclass::oid::int8, 'what', '[{"stat": "count"}]'::jsonb, 'group_by', '[]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"stat": 0, "fn": "value"}]'::jsonb)) AS t(n bigint)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "count"}]'::jsonb, 'group_by', '[]'::jsonb, 'options', '{"bogus": 1}'::jsonb, 'outputs', '[{"stat": 0, "fn": "value"}]'::jsonb)) AS t(n bigint)$$);
SELECT count(*) = :ledger_mid AS nothing_charged FROM dpobj.ledger WHERE relation = 'regress_q.people';
-- a valid forged plan runs as aggregate() would, charged
SELECT n FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "count"}]'::jsonb, 'group_by', '[]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"stat": 0, "fn": "value"}]'::jsonb)) AS t(n bigint);
SELECT count(*) - :ledger_mid AS charges FROM dpobj.ledger WHERE relation = 'regress_q.people';

-- GROUP BY one expression over columns with declared levels: the run groups by the
-- columns, each cell (its levels; "other" read as NULL) mapped to the expression's value,
-- the released counts and sums of a value added, an average their quotient.  The truth:
RESET ROLE;
SELECT CASE WHEN race IN ('a', 'b') THEN 'ab' ELSE 'c' END AS zone, count(*), sum(spend), avg(spend)
  FROM regress_q.people GROUP BY 1 ORDER BY 1;
SELECT sex = 'F' OR race = 'c' AS fc, count(*) FROM regress_q.people GROUP BY 1 ORDER BY 1;
SET ROLE regress_q_ann;
SET dpobj.query_epsilon = 2000;
SELECT CASE WHEN race IN ('a', 'b') THEN 'ab' ELSE 'c' END AS zone, count(*),
       abs(sum(spend) - 450 * count(*)) < 250 AS sum_near, abs(avg(spend) - 450) < 5 AS mean_near
  FROM regress_q.people GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT race = 'c' AS c, count(*), avg(hours) FROM regress_q.people GROUP BY 1;
-- the cell (other, other) has no row: its value NULL, its count 0
SELECT sex = 'F' OR race = 'c' AS fc, count(*) FROM regress_q.people GROUP BY 1 ORDER BY 1;
SELECT coalesce(sex, 'none') AS s, count(*) FROM regress_q.people GROUP BY 1 HAVING count(*) > 0 ORDER BY 1;
-- dpobj.query(): a merged interval adds its cells' endpoints, an average's is the quotients' extremes
SELECT result->>'zone' AS zone, result->>'n' AS n, intervals->'n' AS n_interval,
       (intervals->'m'->>0)::float8 <= (result->>'m')::float8 AND (result->>'m')::float8 <= (intervals->'m'->>1)::float8 AS m_inside
  FROM dpobj.query($$SELECT CASE WHEN race = 'c' THEN 'c' ELSE 'ab' END AS zone, count(*) AS n, avg(hours) AS m
                     FROM regress_q.people GROUP BY 1$$, 2000, 0) ORDER BY 1;
-- refused before any charge: a statistic merged cells cannot add, a column without levels,
-- another group column, a parameter; forged merges (a cell missing, a mean, a ratio unmerged, a bad type)
SELECT count(*) AS ledger_mid FROM dpobj.ledger WHERE relation = 'regress_q.people' \gset
SELECT sqlstate, message FROM regress.err($$SELECT race = 'a', variance(hours) FROM regress_q.people GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT race = 'a', max(hours) FROM regress_q.people GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT hours > 10, count(*) FROM regress_q.people GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT city = 'city0', count(*) FROM regress_q.people GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT race = 'a', sex, count(*) FROM regress_q.people GROUP BY 1, 2$$);
PREPARE qm(text) AS SELECT race = $1, count(*) FROM regress_q.people GROUP BY 1;
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_q.people GROUP BY race = 'a' AND random() < 2$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "count"}]'::jsonb, 'group_by', '["race"]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"merge": true}, {"stat": 0, "fn": "value"}]'::jsonb, 'merge', '[[["a"], "x"], [["b"], "x"], [["c"], "y"]]'::jsonb)) AS t(z text, n bigint)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "mean", "column": "hours"}]'::jsonb, 'group_by', '["race"]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"merge": true}, {"stat": 0, "fn": "value"}]'::jsonb, 'merge', '[[["a"], "x"], [["b"], "x"], [["c"], "y"], [[null], "y"]]'::jsonb)) AS t(z text, n float8)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "count"}]'::jsonb, 'group_by', '["race"]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"group": "race"}, {"stat": 0, "fn": "ratio", "den": 0}]'::jsonb)) AS t(z text, n float8)$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "count"}]'::jsonb, 'group_by', '["race"]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"merge": true}, {"stat": 0, "fn": "value"}]'::jsonb, 'merge', '[[["a"], "x"], [["b"], "x"], [["c"], "y"], [[null], "y"]]'::jsonb)) AS t(z int, n bigint)$$);
SELECT count(*) = :ledger_mid AS nothing_charged FROM dpobj.ledger WHERE relation = 'regress_q.people';
-- a valid forged merge runs, charged once
SELECT z, n FROM dpobj.query_run(jsonb_build_object('relid', 'regress_q.people'::regclass::oid::int8, 'what', '[{"stat": "count"}]'::jsonb, 'group_by', '["race"]'::jsonb, 'options', '{}'::jsonb, 'outputs', '[{"merge": true}, {"stat": 0, "fn": "value"}]'::jsonb, 'merge', '[[["a"], "x"], [["b"], "x"], [["c"], "y"], [[null], "y"]]'::jsonb)) AS t(z text, n bigint) ORDER BY z;
SELECT count(*) - :ledger_mid AS charges FROM dpobj.ledger WHERE relation = 'regress_q.people';
-- FILTER (WHERE ...): each aggregate over the rows that pass (the truths below), one charge
SET dpobj.query_epsilon = 2000;
SELECT sex, count(*) FILTER (WHERE flag) AS flagged, count(spend) FILTER (WHERE hours > 3) AS spend_n,
       round(sum(hours) FILTER (WHERE race IN ('a', 'b') OR city IS NULL) / 100.0) AS hours_ab_100
  FROM regress_q.people GROUP BY sex ORDER BY sex;
EXPLAIN (COSTS OFF) SELECT count(*) FILTER (WHERE flag), avg(hours) FILTER (WHERE sex = 'F') FROM regress_q.people;
SELECT count(*) - :ledger_mid AS charges FROM dpobj.ledger WHERE relation = 'regress_q.people';
RESET ROLE;
SELECT sex, count(*) FILTER (WHERE flag) AS flagged, count(spend) FILTER (WHERE hours > 3) AS spend_n,
       round(sum(hours) FILTER (WHERE race IN ('a', 'b') OR city IS NULL) / 100.0) AS hours_ab_100
  FROM regress_q.people GROUP BY sex ORDER BY sex;

-- a role that may read the table: an ordinary query, no rewrite, nothing charged
SET ROLE regress_q_reader;
SET dpobj.query_epsilon = 1;
SELECT sex, count(*), sum(hours) FROM regress_q.people GROUP BY sex ORDER BY sex;
EXPLAIN (COSTS OFF) SELECT count(*) FROM regress_q.people;
RESET ROLE;
-- a role without a budget: PostgreSQL's own error
CREATE ROLE regress_q_nobody;
GRANT USAGE ON SCHEMA regress_q TO regress_q_nobody;
SET ROLE regress_q_nobody;
SET dpobj.query_epsilon = 1;
SELECT sqlstate, message, hint FROM regress.err($$SELECT count(*) FROM regress_q.people$$);
RESET ROLE;
-- the superuser reads the table: no rewrite
SELECT count(*) FROM regress_q.people;
RESET dpobj.query_epsilon;
DROP SCHEMA regress_q_own CASCADE;
DROP SCHEMA regress_q CASCADE;
DROP ROLE regress_q_ann;
DROP ROLE regress_q_reader;
DROP ROLE regress_q_nobody;
