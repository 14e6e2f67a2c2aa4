-- Privacy units (docs/PRIVACY.md "Privacy units"): dpobj.protect(rel,
-- privacy_unit, max_rows_per_unit), the bounding inside the sealed run, the
-- calibration for k rows per unit, the catalog, ledger, budgets and models
-- that record the level, and every error with its SQLSTATE.
CREATE SCHEMA regress_units;
GRANT USAGE ON SCHEMA regress_units TO PUBLIC;
-- the released counts of an evaluation at a huge epsilon: the discrete
-- Laplace noise of scale 2k/epsilon is 0 with overwhelming probability
CREATE FUNCTION regress_units.kept(rel regclass, eps numeric)
RETURNS TABLE (rows_kept int, epsilon_used float8)
LANGUAGE sql AS $$
    SELECT ((e->>'tp')::int + (e->>'fp')::int + (e->>'tn')::int + (e->>'fn')::int),
           (e->'noise'->>'epsilon_used')::float8
      FROM dpobj.evaluate(rel, ROW('forged', ARRAY[0, 0]::float8[], 1, 1, 1e-6, '{}')::dpobj.model,
                          ARRAY['a', 'b'], 'y', eps, 1e-9) e
$$;

CREATE ROLE regress_units_owner;
CREATE ROLE regress_units_analyst;
-- a second analyst for the zCDP runs: after one, a budget admits no approximate-DP run
CREATE ROLE regress_units_zanalyst;
GRANT CREATE ON SCHEMA regress_units TO regress_units_owner;

SET ROLE regress_units_owner;
-- person p has p rows (1 .. 6), plus 3 rows without a person
CREATE TABLE regress_units.visits (person int, a float8, b float8, y boolean, note text, id uuid);
INSERT INTO regress_units.visits (person, a, b, y)
SELECT p, (r % 3) / 4.0, (p % 4) / 4.0 - 0.5, (p + r) % 2 = 0
  FROM generate_series(1, 6) p, generate_series(1, p) r WHERE r <= p;
INSERT INTO regress_units.visits (person, a, b, y) VALUES (NULL, 0, 0, true), (NULL, 0.1, 0.2, false), (NULL, 0.3, 0.1, true);
REVOKE ALL ON regress_units.visits FROM PUBLIC;
SELECT count(*) AS rows, count(DISTINCT person) AS persons FROM regress_units.visits;

-- the surface: protect(rel) still works; the unit overload by name
SELECT dpobj.protect('regress_units.visits');
SELECT privacy_unit, unit_type, max_rows_per_unit FROM dpobj.protected_tables
 WHERE relid = 'regress_units.visits'::regclass;
SELECT dpobj.protect('regress_units.visits', privacy_unit => 'person', max_rows_per_unit => 2);
-- the same again changes nothing
SELECT dpobj.protect('regress_units.visits', privacy_unit => 'person', max_rows_per_unit => 2);
-- protect(rel) on a unit-protected table keeps the unit
SELECT dpobj.protect('regress_units.visits');
SELECT privacy_unit, unit_attnum, unit_type, max_rows_per_unit FROM dpobj.protected_tables
 WHERE relid = 'regress_units.visits'::regclass;

-- errors of protect() with a unit (public, nothing protected)
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_units.visits', 'nobody', 2)$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_units.visits', 'ctid', 2)$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_units.visits', 'a', 2)$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_units.visits', 'person', 0)$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_units.visits', 'person', 10001)$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_units.visits', NULL, 2)$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_units.visits', 'person', NULL)$$);
RESET ROLE;
-- only the owner (or dpobj_admin) sets the unit
SET ROLE regress_units_analyst;
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_units.visits', 'person', 50)$$);
RESET ROLE;

SET ROLE regress_units_owner;
SELECT 1 FROM dpobj.grant_budget('regress_units.visits', 'regress_units_analyst', 100000, 0.5);
SELECT 1 FROM dpobj.grant_budget('regress_units.visits', 'regress_units_zanalyst', 100, 0.5);
RESET ROLE;

SET ROLE regress_units_analyst;
-- the analyst sees the level of the table in its budgets
SELECT relation, privacy_unit, max_rows_per_unit FROM dpobj.my_budgets;
-- the bounding: units of 1..6 rows keep 1 + 2*5 = 11 rows at k = 2, NULL units none
SELECT * FROM regress_units.kept('regress_units.visits', 2000);
-- the analyst cannot set or lift the bound
SELECT * FROM regress.err($$SELECT dpobj.train('regress_units.visits', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"rows_per_unit": 1}')$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_units.visits', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"rows_per_unit": 1}')$$);
-- every mechanism is calibrated for k = 2 (public parameters only)
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k, (m).params->'sigma' AS sigma
  FROM dpobj.train('regress_units.visits', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) m;
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k, (m).params->'sigma' AS sigma
  FROM dpobj.train('regress_units.visits', 'rspm', ARRAY['a', 'b'], 'y', 1, 1e-6) m;
-- a run takes the protection's lock, not a row lock, and its charge is the
-- ledger writer's: the analyst's own transaction writes nothing (no XID)
BEGIN;
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k, (m).params->'sensitivity' AS sensitivity
  FROM dpobj.train('regress_units.visits', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6) m;
SELECT pg_current_xact_id_if_assigned() IS NULL AS no_xid;
COMMIT;
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k, (m).params->'lambda' AS lambda
  FROM dpobj.train('regress_units.visits', 'logistic', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1}') m;
SET ROLE regress_units_zanalyst;
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k, (m).params->'sensitivity' AS sensitivity
  FROM dpobj.train('regress_units.visits', 'logistic', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1, "method": "output"}') m;
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k, (m).params->'sigma' AS sigma
  FROM dpobj.train('regress_units.visits', 'noisysgd', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1, "T": 20}') m;
SET ROLE regress_units_analyst;
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k, (m).params->'lambda' AS lambda
  FROM dpobj.train('regress_units.visits', 'opsamp', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1, "n": 100}') m;
-- CMS has no unit-level derivation: refused before the charge
SELECT * FROM regress.err($$SELECT dpobj.train('regress_units.visits', 'logistic', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1, "method": "cms"}')$$);
-- a stored model records the level
SELECT 1 FROM dpobj.train('regress_units.visits', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6, model_name => 'regress_units_m') m;
SELECT name, privacy_unit, rows_per_unit FROM dpobj.models WHERE name = 'regress_units_m';
-- and so does every ledger row (the CMS refusal was free)
SELECT mechanism, outcome, privacy_unit, rows_per_unit FROM dpobj.ledger
 WHERE relation = 'regress_units.visits' ORDER BY id;
SELECT dpobj.drop_model('regress_units_m');
RESET ROLE;

-- Past dpobj.max_state_memory the bounding sorts the rows (spilling past work_mem)
-- instead of counting them in memory: the same min(m_u, k) rows of each unit, in
-- every run.  regress_units.many: 3000 persons (more than a 64kB cap counts), person
-- p with p % 13 + 1 rows, 3 rows without a person; k = 2.
SET ROLE regress_units_owner;
CREATE TABLE regress_units.many (person int, a float8, b float8, y boolean);
INSERT INTO regress_units.many
SELECT p, (r % 3) / 4.0, (p % 4) / 4.0 - 0.5, (p + r) % 2 = 0
  FROM generate_series(1, 3000) p, generate_series(1, p % 13 + 1) r;
INSERT INTO regress_units.many VALUES (NULL, 0, 0, true), (NULL, 0.1, 0.2, false), (NULL, 0.3, 0.1, true);
SELECT dpobj.protect('regress_units.many', 'person', 2);
SELECT 1 FROM dpobj.grant_budget('regress_units.many', 'regress_units_analyst', 100000, 0.5);
RESET ROLE;
SELECT sum(least(m, 2)) AS min_m_k FROM (SELECT count(*) AS m FROM regress_units.many WHERE person IS NOT NULL GROUP BY person) s;
SET dpobj.max_state_memory = '64kB';
SET work_mem = '64kB';
SET ROLE regress_units_analyst;
SELECT * FROM regress_units.kept('regress_units.many', 2000);
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k
  FROM dpobj.train('regress_units.many', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) m;
-- the analyst's work_mem is pinned at most the cap: a huge one changes nothing
RESET ROLE;
SET work_mem = '2GB';
SET ROLE regress_units_analyst;
SELECT * FROM regress_units.kept('regress_units.many', 2000);
RESET ROLE;
RESET work_mem;
RESET dpobj.max_state_memory;
-- in memory (the default cap): the same
SET ROLE regress_units_analyst;
SELECT * FROM regress_units.kept('regress_units.many', 2000);
SET ROLE regress_units_owner;
SELECT dpobj.unprotect('regress_units.many');
DROP TABLE regress_units.many;
RESET ROLE;

-- k = 1: one row per person
SET ROLE regress_units_owner;
SELECT dpobj.protect('regress_units.visits', 'person', 1);
SET ROLE regress_units_analyst;
SELECT * FROM regress_units.kept('regress_units.visits', 2000);
SELECT (m).params ? 'rows_per_unit' AS k_in_params
  FROM dpobj.train('regress_units.visits', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) m;
SELECT privacy_unit, rows_per_unit FROM dpobj.ledger
 WHERE relation = 'regress_units.visits' ORDER BY id DESC LIMIT 1;
RESET ROLE;

-- the unit column altered after protect(): refused, free, until re-protected
SET ROLE regress_units_owner;
SELECT dpobj.protect('regress_units.visits', 'person', 3);
ALTER TABLE regress_units.visits ALTER COLUMN person TYPE bigint;
SET ROLE regress_units_analyst;
SELECT spent_epsilon AS spent_before FROM dpobj.my_budgets \gset
SELECT * FROM regress.err($$SELECT dpobj.train('regress_units.visits', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_units.visits', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT regress_units.kept('regress_units.visits', 2000)$$);
SELECT spent_epsilon - :'spent_before' AS charged FROM dpobj.my_budgets;
SET ROLE regress_units_owner;
SELECT dpobj.protect('regress_units.visits', 'person', 3);
SET ROLE regress_units_analyst;
-- units of 1..6 rows keep 1 + 2 + 3*4 = 15 rows at k = 3
SELECT * FROM regress_units.kept('regress_units.visits', 2000);
-- renamed, then dropped and added again under the old name: refused each time
SET ROLE regress_units_owner;
ALTER TABLE regress_units.visits RENAME COLUMN person TO who;
SET ROLE regress_units_analyst;
SELECT * FROM regress.err($$SELECT dpobj.train('regress_units.visits', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)$$);
SET ROLE regress_units_owner;
ALTER TABLE regress_units.visits DROP COLUMN who;
ALTER TABLE regress_units.visits ADD COLUMN person bigint;
SET ROLE regress_units_analyst;
SELECT * FROM regress.err($$SELECT dpobj.train('regress_units.visits', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)$$);
RESET ROLE;

-- the unit's identity is what makes two values equal: its type, typmod,
-- collation and the collation's version.  A case-insensitive ICU collation
-- makes 8 spellings of one e-mail one unit; ALTER COLUMN ... TYPE text
-- COLLATE "C" would make them 8 units: refused before the charge, with
-- every entry point, until the owner protects again.
CREATE COLLATION regress_units.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SET ROLE regress_units_owner;
CREATE TABLE regress_units.mails (email text COLLATE regress_units.ci, tag varchar(10),
                                  a float8, b float8, y boolean);
INSERT INTO regress_units.mails
SELECT CASE WHEN i <= 8 THEN (ARRAY['ann@x.org', 'Ann@x.org', 'ANN@x.org', 'aNn@x.org',
                                    'anN@X.org', 'ANN@X.ORG', 'ann@X.ORG', 'Ann@X.Org'])[i]
            ELSE 'p' || i || '@x.org' END,
       't' || i % 3, (i % 3) / 4.0, (i % 4) / 4.0 - 0.5, i % 2 = 0
  FROM generate_series(1, 40) i;
REVOKE ALL ON regress_units.mails FROM PUBLIC;
SELECT count(DISTINCT email) AS units_ci, count(DISTINCT email COLLATE "C") AS units_c
  FROM regress_units.mails;
SELECT dpobj.protect('regress_units.mails', 'email', 1);
SELECT 1 FROM dpobj.grant_budget('regress_units.mails', 'regress_units_analyst', 100, 0.5);
SELECT unit_collation::regcollation, unit_typmod, unit_collversion IS NOT NULL AS has_version
  FROM dpobj.protected_tables WHERE relid = 'regress_units.mails'::regclass;
ALTER TABLE regress_units.mails ALTER COLUMN email TYPE text COLLATE "C";
SET ROLE regress_units_analyst;
SELECT spent_epsilon AS spent_before FROM dpobj.my_budgets
 WHERE relation = 'regress_units.mails'::regclass \gset
SELECT * FROM regress.err($$SELECT dpobj.train('regress_units.mails', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_units.mails', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.evaluate('regress_units.mails', ROW('forged', ARRAY[0, 0]::float8[], 1, 1, 1e-6, '{}')::dpobj.model, ARRAY['a', 'b'], 'y', 0.5, 1e-6)$$);
SELECT spent_epsilon - :'spent_before' AS charged FROM dpobj.my_budgets
 WHERE relation = 'regress_units.mails'::regclass;
SELECT count(*) AS ledger_rows FROM dpobj.ledger WHERE relation = 'regress_units.mails';
-- protected again: the new identity is recorded and runs go on
SET ROLE regress_units_owner;
SELECT dpobj.protect('regress_units.mails', 'email', 1);
SELECT unit_collation::regcollation FROM dpobj.protected_tables
 WHERE relid = 'regress_units.mails'::regclass;
SET ROLE regress_units_analyst;
SELECT (m).mechanism FROM dpobj.train('regress_units.mails', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) m;
-- a typmod change (varchar(10) -> varchar(20)) is refused too; another
-- unit column after spend needs new budgets (sql/unitchange.sql)
SET ROLE regress_units_owner;
SELECT dpobj.unprotect('regress_units.mails');
SELECT dpobj.protect('regress_units.mails', 'tag', 1);
SELECT 1 FROM dpobj.grant_budget('regress_units.mails', 'regress_units_analyst', 100, 0.5);
ALTER TABLE regress_units.mails ALTER COLUMN tag TYPE varchar(20);
SET ROLE regress_units_analyst;
SELECT * FROM regress.err($$SELECT dpobj.train('regress_units.mails', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)$$);
RESET ROLE;
-- the collation's recorded version changing under the column (what
-- ALTER COLLATION ... REFRESH VERSION does after an ICU upgrade; set here
-- by hand): refused until protected again
SET ROLE regress_units_owner;
ALTER TABLE regress_units.mails ALTER COLUMN email TYPE text COLLATE regress_units.ci;
SELECT dpobj.protect('regress_units.mails', 'email', 1);
RESET ROLE;
UPDATE pg_collation SET collversion = '0.0' WHERE oid = 'regress_units.ci'::regcollation;
SET ROLE regress_units_analyst;
SELECT * FROM regress.err($$SELECT dpobj.train('regress_units.mails', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)$$);
RESET ROLE;
SET ROLE regress_units_owner;
SELECT dpobj.protect('regress_units.mails', 'email', 1);
SET ROLE regress_units_analyst;
SELECT (m).mechanism FROM dpobj.train('regress_units.mails', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) m;
RESET ROLE;
-- a job checks again when it runs: submitted, then the column altered in the same
-- transaction (the job starts only after it commits): the job fails before its charge
SET ROLE regress_units_analyst;
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_units.mails' \gset
BEGIN;
SELECT dpobj.submit('regress_units.mails', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) AS job \gset
SET ROLE regress_units_owner;
ALTER TABLE regress_units.mails ALTER COLUMN email TYPE text COLLATE "C";
COMMIT;
SET ROLE regress_units_analyst;
SELECT regress.wait_job(:job);
SELECT state, error LIKE '%was dropped or altered after dpobj.protect()%' AS refused_unit
  FROM dpobj.jobs WHERE id = :job;
SELECT count(*) - :ledger_before AS new_ledger_rows FROM dpobj.ledger WHERE relation = 'regress_units.mails';
RESET ROLE;
SET ROLE regress_units_owner;
SELECT dpobj.unprotect('regress_units.mails');
DROP TABLE regress_units.mails;
RESET ROLE;
DROP COLLATION regress_units.ci;

-- the direct aggregates have no units: "rows_per_unit" is the caller's own
-- bound on its input, used for the calibration only (no rows are dropped)
SELECT (dpobj.dp_halfspace(ARRAY[a, b], y, 1, 1e-6, '{"rows_per_unit": 2}')).params->'rows_per_unit'
  FROM regress_units.visits;
SELECT * FROM regress.err($$SELECT dpobj.dp_halfspace(ARRAY[a, b], y, 1, 1e-6, '{"rows_per_unit": 2, "calibration": "paper"}') FROM regress_units.visits$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_opsamp(ARRAY[a, b], y, 1, 1e-6, '{"R": 1, "rows_per_unit": 2}') FROM regress_units.visits$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_expmech(ARRAY[a, b], y, 1, 1e-6, '{"rows_per_unit": 0}') FROM regress_units.visits$$);
-- the calibrations' unit forms: OPDisc and RSPM sigma grow k-fold exactly
SELECT round(((dpobj.dp_halfspace(ARRAY[a, b], y, 1, 1e-6, '{"rows_per_unit": 4}')).params->>'sigma')::numeric
           / ((dpobj.dp_halfspace(ARRAY[a, b], y, 1, 1e-6)).params->>'sigma')::numeric, 6) AS opdisc_ratio,
       round(((dpobj.dp_halfspace_rspm(ARRAY[a, b], y, 1, 1e-6, '{"rows_per_unit": 4}')).params->>'sigma')::numeric
           / ((dpobj.dp_halfspace_rspm(ARRAY[a, b], y, 1, 1e-6)).params->>'sigma')::numeric, 6) AS rspm_ratio
  FROM regress_units.visits;

-- unprotect forgets the unit; protect(rel) afterwards is row level
SET ROLE regress_units_owner;
SELECT dpobj.unprotect('regress_units.visits');
SELECT dpobj.protect('regress_units.visits');
SELECT privacy_unit, max_rows_per_unit FROM dpobj.protected_tables
 WHERE relid = 'regress_units.visits'::regclass;
SELECT dpobj.unprotect('regress_units.visits');
RESET ROLE;

DROP SCHEMA regress_units CASCADE;
DROP ROLE regress_units_owner;
DROP ROLE regress_units_analyst;
DROP ROLE regress_units_zanalyst;
