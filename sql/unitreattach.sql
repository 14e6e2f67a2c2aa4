-- dpobj.reattach_unit() (docs/VERSIONS.md, "Moving to a newer major version"): a dump
-- and restore writes a table without its dropped columns, so a unit column after one
-- comes back under a lower number and every run is refused before the charge; protect()
-- again is refused under spend.  Here the recorded number is set one higher than the
-- column's, as the restored catalog has it; a superuser reattaches the column of the
-- recorded name, type and typmod, and runs go on against the same budgets.
CREATE SCHEMA regress_ra;
GRANT USAGE ON SCHEMA regress_ra TO PUBLIC;
CREATE ROLE regress_ra_owner;
CREATE ROLE regress_ra_analyst;
GRANT CREATE ON SCHEMA regress_ra TO regress_ra_owner;

SET ROLE regress_ra_owner;
CREATE TABLE regress_ra.visits AS
SELECT i AS visit, 1 + i % 40 AS person, (i % 7) / 4.0 - 0.75 AS a,
       ((i % 5) / 4.0 - 0.5)::float8 AS b, (i % 7) > 3 AS y
  FROM generate_series(1, 200) i;
REVOKE ALL ON regress_ra.visits FROM PUBLIC;
SELECT dpobj.protect('regress_ra.visits', 'person', 2);
SELECT 1 FROM dpobj.grant_budget('regress_ra.visits', 'regress_ra_analyst', 1, 1e-3);
SET ROLE regress_ra_analyst;
SELECT (m).mechanism FROM dpobj.train('regress_ra.visits', 'opdisc', ARRAY['a', 'b'], 'y', 0.25, 1e-6) m;
RESET ROLE;

-- nothing to reattach: the recorded column is the column
SELECT dpobj.reattach_unit('regress_ra.visits');

-- as after a restore that dropped a column before "person"
UPDATE dpobj.protected_tables SET unit_attnum = unit_attnum + 1
 WHERE relid = 'regress_ra.visits'::regclass;
SET ROLE regress_ra_analyst;
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.train('regress_ra.visits', 'opdisc', ARRAY['a', 'b'], 'y', 0.25, 1e-6)$$);
SET ROLE regress_ra_owner;
-- the owner cannot confirm it (spend), nor reattach (only a superuser may)
SELECT sqlstate FROM regress.err($$SELECT dpobj.protect('regress_ra.visits', 'person', 2)$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.reattach_unit('regress_ra.visits')$$);
RESET ROLE;
-- revoked from PUBLIC as well
SELECT has_function_privilege('regress_ra_owner', 'dpobj.reattach_unit(regclass)', 'EXECUTE') AS owner_may;
-- and granted EXECUTE, still only a superuser
GRANT EXECUTE ON FUNCTION dpobj.reattach_unit(regclass) TO regress_ra_owner;
SET ROLE regress_ra_owner;
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.reattach_unit('regress_ra.visits')$$);
RESET ROLE;
REVOKE EXECUTE ON FUNCTION dpobj.reattach_unit(regclass) FROM regress_ra_owner;
SELECT dpobj.reattach_unit('regress_ra.visits');
SELECT dpobj.reattach_unit('regress_ra.visits');
SELECT a.attname, p.max_rows_per_unit
  FROM dpobj.protected_tables p
  JOIN pg_attribute a ON a.attrelid = p.relid AND a.attnum = p.unit_attnum
 WHERE p.relid = 'regress_ra.visits'::regclass;
-- the same budget goes on: 0.25 spent, 0.75 left, then 0.5
SET ROLE regress_ra_analyst;
SELECT (m).mechanism FROM dpobj.train('regress_ra.visits', 'opdisc', ARRAY['a', 'b'], 'y', 0.25, 1e-6) m;
RESET ROLE;
SELECT spent_epsilon FROM dpobj.budgets WHERE relid = 'regress_ra.visits'::regclass;

-- refused: the column's type changed, the column is gone, no unit, NULL
SET ROLE regress_ra_owner;
ALTER TABLE regress_ra.visits ALTER COLUMN person TYPE bigint;
RESET ROLE;
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.reattach_unit('regress_ra.visits')$$);
SET ROLE regress_ra_owner;
ALTER TABLE regress_ra.visits DROP COLUMN person;
RESET ROLE;
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.reattach_unit('regress_ra.visits')$$);
SET ROLE regress_ra_owner;
CREATE TABLE regress_ra.plain AS SELECT 1 AS x;
SELECT dpobj.protect('regress_ra.plain');
RESET ROLE;
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.reattach_unit('regress_ra.plain')$$);
SELECT sqlstate FROM regress.err($$SELECT dpobj.reattach_unit(NULL)$$);

-- refused: the owner swapped the unit column in place (dropped it, added another of
-- the same name and type, generated or with a default, whose values need not be the
-- units' own)
SET ROLE regress_ra_owner;
CREATE TABLE regress_ra.swap AS SELECT i AS id, (i % 10)::text AS pid, i % 2 = 0 AS y
  FROM generate_series(1, 40) i;
SELECT dpobj.protect('regress_ra.swap', 'pid', 2);
ALTER TABLE regress_ra.swap DROP COLUMN pid;
ALTER TABLE regress_ra.swap ADD COLUMN pid text GENERATED ALWAYS AS (id::text) STORED;
RESET ROLE;
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.reattach_unit('regress_ra.swap')$$);
SET ROLE regress_ra_owner;
ALTER TABLE regress_ra.swap DROP COLUMN pid;
ALTER TABLE regress_ra.swap ADD COLUMN pid text DEFAULT 'x';
RESET ROLE;
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.reattach_unit('regress_ra.swap')$$);
-- after a restore (no dropped column at the recorded number) nothing tells a swap
-- from a unit column that always had its default: reattached
UPDATE dpobj.protected_tables SET unit_attnum = 3 WHERE relid = 'regress_ra.swap'::regclass;
SELECT dpobj.reattach_unit('regress_ra.swap');
SET ROLE regress_ra_owner;
SELECT dpobj.unprotect('regress_ra.swap');
DROP TABLE regress_ra.swap;
RESET ROLE;

-- admitted: a unit column protected with a default (a serial) or generated values,
-- as it is, and after a restore renumbered it; runs go on
SET ROLE regress_ra_owner;
CREATE TABLE regress_ra.defaulted (pid serial, email text, a float8, y boolean,
                                   who text GENERATED ALWAYS AS (lower(email)) STORED);
INSERT INTO regress_ra.defaulted (pid, email, a, y)
SELECT 1 + i % 20, 'P' || (i % 20), (i % 7) / 4.0 - 0.75, i % 3 = 0
  FROM generate_series(1, 100) i;
REVOKE ALL ON regress_ra.defaulted FROM PUBLIC;
CREATE TABLE regress_ra.generated (LIKE regress_ra.defaulted INCLUDING GENERATED);
INSERT INTO regress_ra.generated (pid, email, a, y)
SELECT pid, email, a, y FROM regress_ra.defaulted;
REVOKE ALL ON regress_ra.generated FROM PUBLIC;
SELECT dpobj.protect('regress_ra.defaulted', 'pid', 2);
SELECT dpobj.protect('regress_ra.generated', 'who', 2);
SELECT 1 FROM dpobj.grant_budget('regress_ra.defaulted', 'regress_ra_analyst', 1, 1e-3);
RESET ROLE;
SELECT dpobj.reattach_unit('regress_ra.defaulted') AS defaulted,
       dpobj.reattach_unit('regress_ra.generated') AS generated;
-- as after a restore that dropped a column before the unit
UPDATE dpobj.protected_tables SET unit_attnum = unit_attnum + 1
 WHERE relid IN ('regress_ra.defaulted'::regclass, 'regress_ra.generated'::regclass);
SELECT dpobj.reattach_unit('regress_ra.defaulted') AS defaulted,
       dpobj.reattach_unit('regress_ra.generated') AS generated;
SET ROLE regress_ra_analyst;
SELECT (m).mechanism FROM dpobj.train('regress_ra.defaulted', 'opdisc', ARRAY['a'], 'y', 0.25, 1e-6) m;
SET ROLE regress_ra_owner;
SELECT dpobj.unprotect('regress_ra.defaulted'), dpobj.unprotect('regress_ra.generated');
DROP TABLE regress_ra.defaulted, regress_ra.generated;
RESET ROLE;

-- ---- clean up ----------------------------------------------------------------
SET ROLE regress_ra_owner;
SELECT dpobj.unprotect('regress_ra.visits');
SELECT dpobj.unprotect('regress_ra.plain');
DROP TABLE regress_ra.visits, regress_ra.plain;
RESET ROLE;
DROP SCHEMA regress_ra;
DROP OWNED BY regress_ra_owner, regress_ra_analyst;
DROP ROLE regress_ra_owner, regress_ra_analyst;
