-- bench/units/setup.sql — the data of bench/units (run by run.sh after data/adult/load.sql
-- and CREATE EXTENSION dpobj, as a superuser).
--
-- bu.people: adult.train (all 32561 rows of the training split, d = 23 of
-- adult.features_d23) with one named column per feature, as dpobj.train() needs;
-- and a synthetic privacy unit "person": the rows, in the order of
-- md5('row:' || id), are cut into consecutive units whose sizes 1..10 come from
-- md5('size:' || j) for unit j — a fixed, reproducible draw (sizes uniform on 1..10, mean
-- 5.5), independent of the rows' values.  A unit's rows are therefore independent rows
-- of Adult: the bench measures what the bounding costs in rows and noise, not what it
-- does to correlated rows of one person.
-- bu.test: adult.test as (features, label) arrays, public; bu.sizes: the unit sizes
-- (the bench author's knowledge, used only for the public "n" estimates and the
-- per-unit weights of the averaging simulation).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS bu CASCADE;
CREATE SCHEMA bu;

CREATE TABLE bu.sizes AS
WITH s AS (
    SELECT j, 1 + (('x' || substr(md5('size:' || j), 1, 8))::bit(32)::bigint % 10)::int AS size
      FROM generate_series(1, 32561) j)
SELECT j AS person, size,
       coalesce(sum(size) OVER (ORDER BY j ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::int AS first
  FROM s;
DELETE FROM bu.sizes WHERE first >= 32561;

CREATE TABLE bu.people AS
WITH r AS (
    SELECT f.*, (row_number() OVER (ORDER BY md5('row:' || f.id)) - 1)::int AS pos
      FROM adult.features_d23 f
     WHERE f.split = 'train')
SELECT r.id,
       s.person,
       r.features[1] AS ms_divorced, r.features[2] AS ms_married_af_spouse,
       r.features[3] AS ms_married_civ_spouse, r.features[4] AS ms_married_spouse_absent,
       r.features[5] AS ms_never_married, r.features[6] AS ms_separated,
       r.features[7] AS ms_widowed,
       r.features[8] AS rel_husband, r.features[9] AS rel_not_in_family,
       r.features[10] AS rel_other_relative, r.features[11] AS rel_own_child,
       r.features[12] AS rel_unmarried, r.features[13] AS rel_wife,
       r.features[14] AS race_amer_indian, r.features[15] AS race_asian_pac,
       r.features[16] AS race_black, r.features[17] AS race_other, r.features[18] AS race_white,
       r.features[19] AS sex_male, r.features[20] AS sex_female,
       r.features[21] AS capital_gain_scaled, r.features[22] AS capital_loss_scaled,
       r.features[23] AS hours_scaled,
       r.label AS income_gt_50k
  FROM r JOIN (SELECT person, generate_series(first, first + size - 1) AS pos FROM bu.sizes) s
       ON s.pos = r.pos;
-- the last unit may be cut short by the end of the table: its true size
UPDATE bu.sizes s SET size = c.n FROM (SELECT person, count(*)::int AS n FROM bu.people GROUP BY person) c
 WHERE c.person = s.person AND c.n <> s.size;

CREATE TABLE bu.test AS
SELECT f.features, f.label FROM adult.features_d23 f WHERE f.split = 'test';

-- one protected copy per level: row level (no unit) and unit level k = 1, 2, 5, 10
CREATE TABLE bu.rowlevel AS SELECT * FROM bu.people;
CREATE TABLE bu.k1 AS SELECT * FROM bu.people;
CREATE TABLE bu.k2 AS SELECT * FROM bu.people;
CREATE TABLE bu.k5 AS SELECT * FROM bu.people;
CREATE TABLE bu.k10 AS SELECT * FROM bu.people;
ANALYZE;

DROP ROLE IF EXISTS bu_analyst;
CREATE ROLE bu_analyst;
GRANT USAGE ON SCHEMA bu TO bu_analyst;
GRANT SELECT ON bu.test TO bu_analyst;
SELECT dpobj.protect('bu.rowlevel');
SELECT dpobj.protect('bu.k' || k, privacy_unit => 'person', max_rows_per_unit => k)
  FROM unnest(ARRAY[1, 2, 5, 10]) k;
SELECT dpobj.grant_budget(t, 'bu_analyst', 100000, 0.5)
  FROM unnest(ARRAY['bu.rowlevel', 'bu.k1', 'bu.k2', 'bu.k5', 'bu.k10']) t;

-- the averaging arm (run.sh, as the superuser, through the direct aggregates): the rows
-- as arrays with their unit's size
CREATE TABLE bu.rows AS
SELECT p.person, s.size, f.features, f.label
  FROM bu.people p JOIN bu.sizes s USING (person) JOIN adult.features_d23 f ON f.id = p.id AND f.split = 'train';
ANALYZE bu.rows;
CREATE TABLE bu.results (
    arm text, mechanism text, draw int, seconds float8, test_acc float8, rows_used bigint,
    error text);
GRANT INSERT, SELECT ON bu.results TO bu_analyst;
