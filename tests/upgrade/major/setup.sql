-- tests/upgrade/major/setup.sql — the database that moves to a newer major version
-- (tests/upgrade/major.sh): protected tables with an integer unit (after a dropped column), a text unit in a budget
-- domain and no unit, budgets granted and spent (epsilon-delta and zCDP), declared column
-- domains, stored models and an analyst's pg_cron job.  Run as a superuser in a database
-- with pg_cron's cron.database_name.
CREATE EXTENSION dpobj;
CREATE EXTENSION pg_cron;
CREATE ROLE major_alice LOGIN;
CREATE ROLE major_bob LOGIN;
CREATE ROLE major_carol LOGIN;
GRANT USAGE ON SCHEMA cron TO major_alice;

-- integer unit, one row per unit, after a dropped column: a dump renumbers it (1, not 2)
CREATE TABLE pts AS
SELECT 0 AS gone, i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
  FROM generate_series(1, 60) i;
ALTER TABLE pts DROP COLUMN gone;
REVOKE ALL ON pts FROM PUBLIC;
SELECT dpobj.protect('pts', privacy_unit => 'i', max_rows_per_unit => 1);
SELECT dpobj.grant_budget('pts', 'major_alice', 0.5, 0.00001);

-- a text unit (the database's collation), up to 2 rows per person, in a budget domain
CREATE TABLE people AS
SELECT 'p' || (i % 40) AS person, CASE WHEN i % 3 = 0 THEN 'x' ELSE 'z' END AS kind,
       (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
  FROM generate_series(1, 80) i;
REVOKE ALL ON people FROM PUBLIC;
SELECT dpobj.create_budget_domain('major_people');
SELECT dpobj.protect('people', privacy_unit => 'person', max_rows_per_unit => 2,
                     budget_domain => 'major_people');
SELECT dpobj.declare_domain('people', 'kind', ARRAY['x', 'z']);
SELECT dpobj.declare_domain('people', 'b', -0.5, 0.5);
SELECT dpobj.grant_domain_budget('major_people', 'major_bob', 1.0, 0.00001);

-- no unit (one row is the neighbour); a zCDP-composed budget
CREATE TABLE zt AS SELECT * FROM pts;
REVOKE ALL ON zt FROM PUBLIC;
SELECT dpobj.protect('zt');
SELECT dpobj.grant_budget('zt', 'major_alice', 2.0, 0.00001);

SET ROLE major_alice;
SELECT dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.000001, model_name => 'alice_pts') IS NOT NULL;
SELECT dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.000001) IS NOT NULL;
SELECT dpobj.train('zt', 'noisysgd', ARRAY['a', 'b'], 'y', 0.5, 0.0000001, '{"R": 2, "T": 5}') IS NOT NULL;
SELECT cron.schedule('major-nightly', '0 3 * * *',
                     $$SELECT dpobj.submit('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.05, 0.000001)$$);
RESET ROLE;
SET ROLE major_bob;
SELECT dpobj.train('people', 'opdisc', ARRAY['kind', 'b'], 'y', 0.25, 0.000001, model_name => 'bob_people') IS NOT NULL;
SELECT dpobj.save_model('bob_copy', dpobj.get_model('bob_people'));
RESET ROLE;
