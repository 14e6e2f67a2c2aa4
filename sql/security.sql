-- The sealed protected path (docs/SECURITY.md): every refusal and error of
-- the SQL surface, written as the attacks they stop.  The neighbour comparisons, the
-- statistics counters and server-level attacks are in tests/security/.
CREATE SCHEMA regress_sec;
GRANT USAGE ON SCHEMA regress_sec TO PUBLIC;
CREATE FUNCTION regress_sec.err(q text)
RETURNS TABLE (sqlstate text, message text, detail text, hint text)
LANGUAGE plpgsql AS $$
DECLARE s text; m text; d text; h text;
BEGIN
    EXECUTE q;
    RETURN QUERY SELECT 'ok'::text, NULL::text, NULL::text, NULL::text;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL,
                            h = PG_EXCEPTION_HINT;
    RETURN QUERY SELECT s, m, d, h;
END $$;
CREATE ROLE regress_sec_owner;
CREATE ROLE regress_sec_alice;
CREATE ROLE regress_sec_admin IN ROLE dpobj_admin;
CREATE ROLE regress_sec_admin_alt;
GRANT regress_sec_admin_alt TO regress_sec_admin;
GRANT CREATE ON SCHEMA regress_sec TO regress_sec_owner;

SET ROLE regress_sec_owner;
CREATE TABLE regress_sec.pts (i int, a numeric, b float8, y boolean);
INSERT INTO regress_sec.pts
SELECT i, (i % 7) / 4.0 - 0.75, (i % 5) / 4.0 - 0.5, (i % 7) > 3 FROM generate_series(1, 60) i;
INSERT INTO regress_sec.pts VALUES (61, 7.31e-400, 0.5, true), (62, 1e308, 0.5, false);
REVOKE ALL ON regress_sec.pts FROM PUBLIC;
SELECT dpobj.protect('regress_sec.pts');
SELECT 1 FROM dpobj.grant_budget('regress_sec.pts', 'regress_sec_alice', 10, 0.001);
RESET ROLE;

-- ---- leak 5: no value-dependent cast ------------------------------------------------
-- 7.31e-400 is below the float8 range; 0.1.0 raised 22003 quoting it, for free
SET ROLE regress_sec_alice;
SELECT mechanism, cardinality(weights) AS d
  FROM dpobj.train('regress_sec.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001,
                   '{"filter": [{"column": "i", "op": ">=", "value": 61}]}');
SELECT spent_epsilon FROM dpobj.my_budgets;
RESET ROLE;

-- ---- the epsilon floor and the time limit: public refusals, nothing charged ----------
SET ROLE regress_sec_alice;
SELECT (regress_sec.err(q)).* FROM (VALUES
  ($$SELECT dpobj.train('regress_sec.pts', 'opdisc', ARRAY['a'], 'y', 0.0000009, 1e-5)$$),
  ($$SELECT dpobj.train('regress_sec.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"time_limit": 0.001}')$$),
  ($$SELECT dpobj.submit('regress_sec.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"time_limit": 0}')$$),
  ($$SELECT dpobj.train('regress_sec.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"calibration": "paper"}')$$),
  ($$SELECT dpobj.submit('regress_sec.pts', 'rspm', ARRAY['a'], 'y', 0.1, 1e-5, '{"calibration": "paper"}')$$),
  -- leak 3: OPSamp's number of LP solves comes from a public "n", checked before the scan
  ($$SELECT dpobj.train('regress_sec.pts', 'opsamp', ARRAY['a'], 'y', 0.1, 1e-5, '{"R": 1}')$$),
  ($$SELECT dpobj.train('regress_sec.pts', 'opsamp', ARRAY['a'], 'y', 0.00001, 1e-6, '{"R": 1, "n": 1}')$$),
  -- OPSamp's eps + ln(1 - delta) must be positive (its output noise scale divides by it)
  ($$SELECT dpobj.train('regress_sec.pts', 'opsamp', ARRAY['a'], 'y', 0.000001, 1e-5, '{"R": 1, "n": 1}')$$),
  -- the GLM calibrations depend on public inputs only, so their refusals come before the
  -- scan (they came after it as the charged generic DP006)
  ($$SELECT dpobj.train('regress_sec.pts', 'logistic', ARRAY['a'], 'y', 0.1, 1e-5, '{"R": 1, "lambda": 1e-308, "method": "output"}')$$),
  ($$SELECT dpobj.submit('regress_sec.pts', 'logistic', ARRAY['a'], 'y', 0.00001, 1e-5, '{"R": 1, "method": "output"}')$$),
  ($$SELECT dpobj.train('regress_sec.pts', 'noisysgd', ARRAY['a'], 'y', 0.00001, 1e-5, '{"R": 1, "T": 1000000000}')$$),
  ($$SET dpobj.protected_time_limit = 0.001$$),
  ($$SET dpobj.oracle_threads = 1$$),
  ($$SET dpobj.max_self_grant_epsilon = 100$$),
  ($$SET dpobj.drop_confirm = 'contrib_regression'$$)
) v(q);
-- the analyst's own solver limit does not reach the protected path
SET dpobj.solver_time_limit = 0.000001;
SELECT mechanism FROM dpobj.train('regress_sec.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001,
                                  '{"oracle": "mip"}');
RESET dpobj.solver_time_limit;
SELECT spent_epsilon FROM dpobj.my_budgets;
RESET ROLE;

-- ---- options: non-finite values are refused before anything runs, with hints ---------
SET ROLE regress_sec_alice;
SELECT (regress_sec.err(q)).* FROM (VALUES
  ($$SELECT dpobj.train('regress_sec.pts', 'logistic', ARRAY['a'], 'y', 0.1, 1e-5, '{"R": 1e400}')$$),
  ($$SELECT dpobj.train('regress_sec.pts', 'logistic', ARRAY['a'], 'y', 0.1, 1e-5, '{"R": 1, "lambda": 1e-400}')$$),
  ($$SELECT dpobj.train('regress_sec.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"B": 1e400}')$$),
  ($$SELECT dpobj.train('regress_sec.pts', 'noisysgd', ARRAY['a'], 'y', 0.1, 1e-5, '{"R": 1, "T": "Infinity"}')$$),
  ($$SELECT dpobj.train('regress_sec.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-400)$$)
) v(q);
SELECT spent_epsilon FROM dpobj.my_budgets;
RESET ROLE;
SELECT (regress_sec.err($$SELECT dpobj.dp_halfspace(ARRAY[b]::float8[], y, 1, 1e-5, '{"time_limit": 1e400}') FROM regress_sec.pts$$)).*;

-- ---- never release a non-finite model ------------------------------------------------
-- (lambda 1e-308 makes Output-Gauss's sensitivity infinite: the snapped sampler's range
-- check refuses it; model.c's finiteness check on every released value stays behind it)
SELECT (regress_sec.err($$SELECT dpobj.dp_logistic(ARRAY[b]::float8[], y, 1, 1e-5, '{"R": 1, "lambda": 1e-308, "method": "output"}') FROM regress_sec.pts WHERE i <= 60$$)).*;

-- ---- after the charge, or for a reason that may depend on the rows: one fixed error --
-- The owner's row-level security policy raises for one row value.  The analyst gets
-- DP006 with fixed text (never the value), and the run is charged: probing is not free.
SET ROLE regress_sec_owner;
CREATE FUNCTION regress_sec.audit(x float8) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    IF x > 0.2 THEN RAISE EXCEPTION 'row value % is suspicious', x; END IF;
    RETURN true;
END $$;
CREATE TABLE regress_sec.audited AS SELECT * FROM regress_sec.pts WHERE i <= 60;
ALTER TABLE regress_sec.audited ENABLE ROW LEVEL SECURITY;
ALTER TABLE regress_sec.audited FORCE ROW LEVEL SECURITY;
CREATE POLICY audited_rows ON regress_sec.audited USING (regress_sec.audit(b));
REVOKE ALL ON regress_sec.audited FROM PUBLIC;
SELECT dpobj.protect('regress_sec.audited');
SELECT 1 FROM dpobj.grant_budget('regress_sec.audited', 'regress_sec_alice', 1, 0.001);
RESET ROLE;
SET ROLE regress_sec_alice;
SELECT (regress_sec.err($$SELECT dpobj.train('regress_sec.audited', 'opdisc', ARRAY['a'], 'y', 0.25, 1e-5)$$)).*;
SELECT (regress_sec.err($$SELECT dpobj.train('regress_sec.audited', 'logistic', ARRAY['a'], 'y', 0.25, 1e-5, '{"R": 1}')$$)).*;
SELECT spent_epsilon FROM dpobj.my_budgets WHERE relation = 'regress_sec.audited'::regclass;
SELECT mechanism, epsilon, outcome, detail FROM dpobj.ledger
 WHERE relation = 'regress_sec.audited' ORDER BY id;
RESET ROLE;

-- ---- leak 7: fail closed --------------------------------------------------------------
-- a partitioned table without a partition: the plan scans nothing, refused on public
-- grounds, nothing charged.  A filter prunes no partition (its conditions are one
-- expression that runs on every row, trainquery.c): every partition is read.
SET ROLE regress_sec_owner;
CREATE TABLE regress_sec.parted (i int, a float8, y boolean) PARTITION BY RANGE (i);
REVOKE ALL ON regress_sec.parted FROM PUBLIC;
SELECT dpobj.protect('regress_sec.parted');
SELECT 1 FROM dpobj.grant_budget('regress_sec.parted', 'regress_sec_alice', 1, 0.001);
RESET ROLE;
SET ROLE regress_sec_alice;
SELECT (regress_sec.err($$SELECT dpobj.train('regress_sec.parted', 'opdisc', ARRAY['a'], 'y', 0.25, 1e-5, '{"filter": [{"column": "i", "op": ">", "value": 500}]}')$$)).*;
RESET ROLE;
SET ROLE regress_sec_owner;
CREATE TABLE regress_sec.parted_1 PARTITION OF regress_sec.parted FOR VALUES FROM (0) TO (100);
INSERT INTO regress_sec.parted SELECT i, i / 100.0, i % 3 = 0 FROM generate_series(0, 99) i;
RESET ROLE;
SET ROLE regress_sec_alice;
SELECT mechanism FROM dpobj.train('regress_sec.parted', 'opdisc', ARRAY['a'], 'y', 0.25, 0.00001,
                                  '{"filter": [{"column": "i", "op": ">", "value": 50}]}');
SELECT spent_epsilon FROM dpobj.my_budgets WHERE relation = 'regress_sec.parted'::regclass;
RESET ROLE;
-- a foreign table as a partition: its rows come from elsewhere, refused up front
CREATE FOREIGN DATA WRAPPER regress_sec_fdw;
CREATE SERVER regress_sec_server FOREIGN DATA WRAPPER regress_sec_fdw;
CREATE FOREIGN TABLE regress_sec.parted_far PARTITION OF regress_sec.parted
    FOR VALUES FROM (100) TO (200) SERVER regress_sec_server;
SET ROLE regress_sec_alice;
SELECT (regress_sec.err($$SELECT dpobj.train('regress_sec.parted', 'opdisc', ARRAY['a'], 'y', 0.25, 1e-5)$$)).*;
RESET ROLE;
DROP FOREIGN TABLE regress_sec.parted_far;
-- Citus: a hash-distributed table (partmethod 'h' in pg_catalog.pg_dist_partition) is
-- accepted by protect, train and submit (its job rolled back at once, so it never runs here; jobs
-- on a real cluster: tests/citus/); any other kind (here 'n', a reference
-- table) is refused by all three (stand-in metadata table here; Citus itself is tested in
-- tests/citus/); train() reads the workers' settings first (run_command_on_workers:
-- here a stand-in with no worker)
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass, partmethod "char");
CREATE FUNCTION pg_catalog.run_command_on_workers(command text, OUT nodename text, OUT nodeport int,
                                                  OUT success boolean, OUT result text)
  RETURNS SETOF record LANGUAGE sql AS $$ SELECT NULL::text, NULL::int, NULL::boolean, NULL::text WHERE false $$;
INSERT INTO pg_catalog.pg_dist_partition VALUES ('regress_sec.pts', 'h');
RESET allow_system_table_mods;
SET ROLE regress_sec_alice;
SELECT (regress_sec.err(q)).* FROM (VALUES
  ($$SELECT dpobj.train('regress_sec.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5)$$),
  ($$DO $d$ BEGIN PERFORM dpobj.submit('regress_sec.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5);
               RAISE 'submit accepted (the job is rolled back)'; END $d$ $$)
) v(q);
RESET ROLE;
SET ROLE regress_sec_owner;
SELECT (regress_sec.err($$SELECT dpobj.protect('regress_sec.pts')$$)).*;
RESET ROLE;
UPDATE pg_catalog.pg_dist_partition SET partmethod = 'n';
SET ROLE regress_sec_alice;
SELECT (regress_sec.err(q)).* FROM (VALUES
  ($$SELECT dpobj.train('regress_sec.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.submit('regress_sec.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5)$$)
) v(q);
RESET ROLE;
SET ROLE regress_sec_owner;
SELECT (regress_sec.err($$SELECT dpobj.protect('regress_sec.pts')$$)).*;
RESET ROLE;
SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_partition;
DROP FUNCTION pg_catalog.run_command_on_workers(text);
RESET allow_system_table_mods;

-- ---- leak 8: catalogs, extensions' tables, self-grants, total delta ------------------
SET ROLE regress_sec_admin;
SELECT (regress_sec.err(q)).* FROM (VALUES
  ($$SELECT dpobj.protect('pg_catalog.pg_authid')$$),
  ($$SELECT dpobj.protect('information_schema.sql_features')$$),
  ($$SELECT dpobj.protect('dpobj.ledger')$$),
  ($$SELECT dpobj.grant_budget('regress_sec.pts', 'regress_sec_admin', 1, 1e-5)$$),
  ($$SELECT dpobj.grant_budget('regress_sec.pts', 'regress_sec_admin_alt', 1, 1e-5)$$)
) v(q);
RESET ROLE;
-- the superuser allows self-grants up to a cap
SET dpobj.max_self_grant_epsilon = 2;
SET dpobj.max_self_grant_delta = 0.0001;
SET ROLE regress_sec_admin;
SELECT granted_epsilon, granted_delta
  FROM dpobj.grant_budget('regress_sec.pts', 'regress_sec_admin', 1.5, 0.00005);
SELECT (regress_sec.err(q)).* FROM (VALUES
  ($$SELECT dpobj.grant_budget('regress_sec.pts', 'regress_sec_admin', 1, 1e-6)$$),
  ($$SELECT dpobj.grant_budget('regress_sec.pts', 'regress_sec_admin_alt', 3, 1e-6)$$)
) v(q);
-- granting to others is not capped
SELECT granted_epsilon FROM dpobj.grant_budget('regress_sec.pts', 'regress_sec_alice', 5, 0.0001);
RESET ROLE;
RESET dpobj.max_self_grant_epsilon;
RESET dpobj.max_self_grant_delta;
-- total delta of a budget stays below 1
SET ROLE regress_sec_owner;
SELECT granted_delta FROM dpobj.grant_budget('regress_sec.pts', 'regress_sec_alice', 0, 0.6);
SELECT (regress_sec.err($$SELECT dpobj.grant_budget('regress_sec.pts', 'regress_sec_alice', 0, 0.4)$$)).*;
RESET ROLE;
SELECT (regress_sec.err($$UPDATE dpobj.budgets SET granted_delta = 1 WHERE relid = 'regress_sec.pts'::regclass AND rolid = 'regress_sec_alice'::regrole$$)).message;

-- ---- unprotect: the owner (or a superuser) only; budgets go, the ledger stays -----------
SELECT (regress_sec.err($$SELECT dpobj.unprotect(NULL)$$)).*;
SET ROLE regress_sec_admin;
SELECT (regress_sec.err($$SELECT dpobj.unprotect('regress_sec.parted')$$)).*;
RESET ROLE;
SET ROLE regress_sec_alice;
SELECT (regress_sec.err($$SELECT dpobj.unprotect('regress_sec.parted')$$)).*;
RESET ROLE;
SET ROLE regress_sec_owner;
SELECT dpobj.unprotect('regress_sec.parted');
SELECT dpobj.unprotect('regress_sec.parted');
RESET ROLE;
SELECT count(*) AS parted_budgets FROM dpobj.budgets WHERE relid = 'regress_sec.parted'::regclass;
SELECT count(*) AS parted_ledger_rows FROM dpobj.ledger WHERE relation = 'regress_sec.parted';
SET ROLE regress_sec_alice;
SELECT (regress_sec.err($$SELECT dpobj.train('regress_sec.parted', 'opdisc', ARRAY['a'], 'y', 0.25, 1e-5)$$)).sqlstate;
RESET ROLE;

-- ---- ledger visibility follows the role, not its name ---------------------------------
SELECT count(*) > 0 AS alice_has_rows FROM dpobj.ledger WHERE rolname = 'regress_sec_alice';
ALTER ROLE regress_sec_alice RENAME TO regress_sec_alice_old;
CREATE ROLE regress_sec_alice;
SET ROLE regress_sec_alice;
SELECT count(*) AS newcomer_sees FROM dpobj.ledger;
RESET ROLE;
SET ROLE regress_sec_alice_old;
SELECT count(*) > 0 AS renamed_role_sees_its_rows FROM dpobj.ledger;
RESET ROLE;
DROP ROLE regress_sec_alice;
ALTER ROLE regress_sec_alice_old RENAME TO regress_sec_alice;
-- rolid cannot be rewritten, even by a superuser
SELECT (regress_sec.err($$UPDATE dpobj.ledger SET rolid = 10 WHERE rolname = 'regress_sec_alice'$$)).*;

-- ---- forged models: predict and score are safe ----------------------------------------
SELECT (regress_sec.err(q)).* FROM (VALUES
  ($$SELECT dpobj.score(('logistic', '{NaN,1}', 0, 1, 1e-5, '{}')::dpobj.model, '{1,1}')$$),
  ($$SELECT dpobj.predict(('logistic', '{1,1}', 'Infinity', 1, 1e-5, '{}')::dpobj.model, '{1,1}')$$),
  ($$SELECT dpobj.score(('logistic', '{1e308,1e308}', 0, 1, 1e-5, '{}')::dpobj.model, '{1e308,1e308}')$$),
  ($$SELECT dpobj.predict(('opdisc', '{1e6}', 0, 1, 1e-5, '{"Q": 1e400}')::dpobj.model, '{1}')$$),
  ($$SELECT dpobj.score(('opdisc', array_fill(1000000::float8, ARRAY[5000]), 0, 1, 1e-5, '{"Q": 1048576}')::dpobj.model, array_fill(2000::float8, ARRAY[5000]))$$)
) v(q);
-- the sign is still exact where the margin exceeds float8 (inf - inf would be NaN)
SELECT dpobj.predict(('logistic', '{1e308,1e308,-1e308}', 0, 1, 1e-5, '{}')::dpobj.model,
                     '{1e308,1e308,1e308}') AS positive;
SELECT dpobj.predict(('logistic', '{1e308,-1e308,-1e308}', 0, 1, 1e-5, '{}')::dpobj.model,
                     '{1e308,1e308,1e308}') AS negative;

DROP SCHEMA regress_sec CASCADE;
DROP SERVER regress_sec_server;
DROP FOREIGN DATA WRAPPER regress_sec_fdw;
DROP ROLE regress_sec_owner, regress_sec_alice, regress_sec_admin, regress_sec_admin_alt;
RESET dpobj.seed;
