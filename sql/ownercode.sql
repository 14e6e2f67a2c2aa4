-- The table owner's code never resolves a name in the caller's temporary schema.
-- A protected scan runs as the owner, and a name its code leaves unqualified
-- (relation or type) that pg_catalog lacks would be looked up in the calling
-- session's temporary schema.  Here the owner's row-level security policy calls a
-- function without SET search_path that reads "allowed"; the analyst plants a
-- temporary view "allowed" over her own function, which, run as the owner, grants
-- her the table and copies who ran it.  Where the scan runs the owner's code (forced
-- row-level security), train() and evaluate() are refused before the charge while the
-- session's temporary schema holds a relation or a type.
CREATE ROLE regress_owncode_owner;
CREATE ROLE regress_owncode_analyst;
CREATE SCHEMA regress_owncode_s AUTHORIZATION regress_owncode_owner;
CREATE SCHEMA regress_owncode_a AUTHORIZATION regress_owncode_analyst;
GRANT USAGE ON SCHEMA regress_owncode_s TO regress_owncode_analyst;
SET ROLE regress_owncode_owner;
CREATE TABLE regress_owncode_s.t (id int, a float8, y boolean);
INSERT INTO regress_owncode_s.t SELECT i, (i % 7) / 7.0, i % 2 = 0 FROM generate_series(1, 40) i;
-- the owner's allow-list, written carelessly: no schema, no SET search_path
CREATE FUNCTION regress_owncode_s.allowed_id(i int) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM allowed WHERE allowed.id = i);
END $$;
ALTER TABLE regress_owncode_s.t ENABLE ROW LEVEL SECURITY;
ALTER TABLE regress_owncode_s.t FORCE ROW LEVEL SECURITY;
CREATE POLICY allow_list ON regress_owncode_s.t USING (regress_owncode_s.allowed_id(id));
-- a second table without any code of the owner's
CREATE TABLE regress_owncode_s.plain (a float8, y boolean);
INSERT INTO regress_owncode_s.plain SELECT (i % 7) / 7.0, i % 2 = 0 FROM generate_series(1, 40) i;
RESET ROLE;
SELECT dpobj.protect('regress_owncode_s.t');
SELECT dpobj.protect('regress_owncode_s.plain');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_owncode_s.t', 'regress_owncode_analyst', 10, 0.001);
SELECT granted_epsilon FROM dpobj.grant_budget('regress_owncode_s.plain', 'regress_owncode_analyst', 10, 0.001);

SET SESSION AUTHORIZATION regress_owncode_analyst;
-- what the owner's identity would leave behind
CREATE TABLE regress_owncode_a.leak (who name);
GRANT USAGE ON SCHEMA regress_owncode_a TO PUBLIC;
GRANT INSERT ON regress_owncode_a.leak TO PUBLIC;
CREATE FUNCTION regress_owncode_a.evil() RETURNS SETOF int
LANGUAGE plpgsql AS $$
BEGIN
    IF current_user <> session_user THEN
        EXECUTE format('GRANT SELECT ON regress_owncode_s.t TO %I', session_user);
        INSERT INTO regress_owncode_a.leak VALUES (current_user);
    END IF;
    RETURN QUERY SELECT generate_series(1, 40);
END $$;
CREATE TEMP VIEW allowed AS SELECT e AS id FROM regress_owncode_a.evil() e;
GRANT SELECT ON allowed TO regress_owncode_owner;
SELECT has_table_privilege('regress_owncode_s.t', 'SELECT') AS can_read;
SELECT count(*) AS charges FROM dpobj.ledger \gset before_
-- one ordinary run: refused, nothing charged
SELECT dpobj.train('regress_owncode_s.t', 'logistic', ARRAY['a'], 'y', 1, 1e-5, '{"R": 1}') IS NOT NULL AS released;
SELECT count(*) - :before_charges AS new_charges FROM dpobj.ledger;
-- the owner's code did not run the analyst's: no grant, nothing copied
SELECT has_table_privilege('regress_owncode_s.t', 'SELECT') AS can_read;
SELECT count(*) AS leaked FROM regress_owncode_a.leak;
-- any relation: the owner's code cannot be known not to name it
DROP VIEW allowed;
CREATE TEMP TABLE scratch (x int);
SELECT dpobj.train('regress_owncode_s.t', 'logistic', ARRAY['a'], 'y', 1, 1e-5, '{"R": 1}') IS NOT NULL AS released;
-- a type too (a domain's CHECK would run as the owner)
DROP TABLE scratch;
CREATE TYPE pg_temp.mood AS ENUM ('ok');
SELECT dpobj.train('regress_owncode_s.t', 'logistic', ARRAY['a'], 'y', 1, 1e-5, '{"R": 1}') IS NOT NULL AS released;
-- a table whose scan runs none of the owner's code is trained on
SELECT dpobj.train('regress_owncode_s.plain', 'logistic', ARRAY['a'], 'y', 1, 1e-5, '{"R": 1}') AS m \gset
SELECT count(*) - :before_charges AS new_charges FROM dpobj.ledger;
-- dpobj.evaluate() scans the same way
SELECT dpobj.evaluate('regress_owncode_s.t', :'m'::dpobj.model, ARRAY['a'], 'y', 1, 1e-5) IS NOT NULL AS released;
-- through the parent of a child with forced row-level security too
SET SESSION AUTHORIZATION regress_owncode_owner;
CREATE TABLE regress_owncode_s.child () INHERITS (regress_owncode_s.plain);
ALTER TABLE regress_owncode_s.child ENABLE ROW LEVEL SECURITY;
ALTER TABLE regress_owncode_s.child FORCE ROW LEVEL SECURITY;
SET SESSION AUTHORIZATION regress_owncode_analyst;
SELECT dpobj.train('regress_owncode_s.plain', 'logistic', ARRAY['a'], 'y', 1, 1e-5, '{"R": 1}') IS NOT NULL AS released;
SELECT count(*) - :before_charges AS new_charges FROM dpobj.ledger;
-- an emptied temporary schema runs
DISCARD TEMP;
SELECT dpobj.train('regress_owncode_s.plain', 'logistic', ARRAY['a'], 'y', 1, 1e-5, '{"R": 1}') IS NOT NULL AS released;
SELECT count(*) - :before_charges AS new_charges FROM dpobj.ledger;
DISCARD TEMP;
-- A key column is read as text as the owner: a cast to text by a function that is not
-- built in would run it.  The analyst owns an enum and such a cast, by her function; the
-- owner's table uses the enum, directly and through a domain.  Refused before the charge,
-- the function not run; without the cast the key is read by the type's output function.
CREATE TYPE regress_owncode_a.tag AS ENUM ('p', 'q');
CREATE FUNCTION regress_owncode_a.tag_text(regress_owncode_a.tag) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
    IF current_user <> session_user THEN
        INSERT INTO regress_owncode_a.leak VALUES (current_user);
    END IF;
    RETURN 'k';
END $$;
CREATE CAST (regress_owncode_a.tag AS text) WITH FUNCTION regress_owncode_a.tag_text(regress_owncode_a.tag);
SET SESSION AUTHORIZATION regress_owncode_owner;
CREATE DOMAIN regress_owncode_s.tagd AS regress_owncode_a.tag;
CREATE TABLE regress_owncode_s.keyed (t regress_owncode_a.tag, d regress_owncode_s.tagd, a float8);
INSERT INTO regress_owncode_s.keyed SELECT 'p', 'q', 0.5 FROM generate_series(1, 40);
RESET SESSION AUTHORIZATION;
SELECT dpobj.protect('regress_owncode_s.keyed');
SELECT dpobj.declare_domain('regress_owncode_s.keyed', 'a', 0, 1);
SELECT granted_epsilon FROM dpobj.grant_budget('regress_owncode_s.keyed', 'regress_owncode_analyst', 10, 0.001);
SET SESSION AUTHORIZATION regress_owncode_analyst;
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_owncode_s.keyed', '[{"stat": "sum", "column": "a"}]', 1, 1e-5, ARRAY['t'])$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_owncode_s.keyed', '[{"stat": "sum", "column": "a"}]', 1, 1e-5, ARRAY['d'])$$);
SELECT count(*) - :before_charges AS new_charges FROM dpobj.ledger;
SELECT count(*) AS leaked FROM regress_owncode_a.leak;
DROP CAST (regress_owncode_a.tag AS text);
-- a cast she made by a built-in function is refused too: quote_literal(anyelement) casts
-- its argument to text again, a recursion that fails on the first row read
CREATE CAST (regress_owncode_a.tag AS text) WITH FUNCTION pg_catalog.quote_literal(anyelement);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_owncode_s.keyed', '[{"stat": "sum", "column": "a"}]', 1, 1e-5, ARRAY['t'])$$);
SELECT count(*) - :before_charges AS new_charges FROM dpobj.ledger;
DROP CAST (regress_owncode_a.tag AS text);
-- the query is parsed after the check (and after any wait for the budget): pg_cast is
-- share-locked until the query is parsed and planned, so no cast is created in between
-- (tests/security/keycastrace.sh), and no longer: the open transaction holds no lock on it
BEGIN;
SELECT count(*) >= 0 AS ran FROM dpobj.aggregate('regress_owncode_s.keyed', '[{"stat": "sum", "column": "a"}]', 1, 1e-5, ARRAY['d']);
SELECT mode, granted FROM pg_locks
 WHERE locktype = 'relation' AND relation = 'pg_catalog.pg_cast'::regclass
   AND pid = pg_backend_pid() AND mode = 'ShareLock';
COMMIT;
SELECT count(*) - :before_charges AS new_charges FROM dpobj.ledger;
RESET SESSION AUTHORIZATION;
SELECT dpobj.unprotect('regress_owncode_s.keyed');
DROP TABLE regress_owncode_s.keyed;
DROP DOMAIN regress_owncode_s.tagd;
DROP FUNCTION regress_owncode_a.tag_text(regress_owncode_a.tag);
DROP TYPE regress_owncode_a.tag;

DROP SCHEMA regress_owncode_a CASCADE;
SELECT dpobj.unprotect('regress_owncode_s.t');
SELECT dpobj.unprotect('regress_owncode_s.plain');
DROP SCHEMA regress_owncode_s CASCADE;
DROP ROLE regress_owncode_owner;
DROP ROLE regress_owncode_analyst;
