/* dpobj--0.4.0--0.5.0.sql — upgrade from the 0.4.0 release.
 *
 * Until 0.5.0 is released every SQL change goes here; a fresh install runs
 * dpobj--0.4.0.sql and then this script.  tests/upgrade/ proves that ALTER EXTENSION
 * dpobj UPDATE from every release gives the same catalog as a fresh install and keeps
 * the data.
 *
 * The library refuses every charged or privileged entry point while the database's SQL
 * objects are older than it (src/base/privileged.c), so a new library installed
 * before this update charges nothing.
 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION dpobj UPDATE TO '0.5.0'" to load this file. \quit

--------------------------------------------------------------------------
-- 0. Only in a schema that superusers control (docs/SECURITY.md,
-- "Installation").  First in this script on purpose: every later statement
-- names objects "dpobj.x" and runs as a superuser, so in a schema another
-- role controls (owned, CREATE granted, or renamed away while that role
-- planted its own "dpobj") they could run that role's code.  The same rule
-- as dpobj_verify_schema() in src/base/privileged.c: the extension's schema,
-- found by pg_extension, is named dpobj, owned by a superuser, and CREATE
-- on it is granted to superusers only.  --------------------------------------------------------------------------
DO $$
DECLARE
    ext_schema pg_catalog.oid;
BEGIN
    SELECT e.extnamespace INTO ext_schema FROM pg_catalog.pg_extension e
     WHERE e.extname OPERATOR(pg_catalog.=) 'dpobj';
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n
                     JOIN pg_catalog.pg_authid r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
                    WHERE n.oid OPERATOR(pg_catalog.=) ext_schema
                      AND n.nspname OPERATOR(pg_catalog.=) 'dpobj' AND r.rolsuper)
       OR EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(n.nspacl) a
                   WHERE n.oid OPERATOR(pg_catalog.=) ext_schema
                     AND a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
                     AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_authid r
                                      WHERE r.oid OPERATOR(pg_catalog.=) a.grantee AND r.rolsuper)) THEN
        RAISE EXCEPTION 'dpobj refuses to update: its schema "dpobj" is not controlled by superusers only'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'The extension''s schema is not named dpobj, is owned by a role that is not a superuser, or such a role may create objects in it; that role could take over dpobj''s privileged code.',
                  HINT = 'A superuser must own schema dpobj (the extension''s own, under that name) and keep CREATE on it to superusers (docs/SECURITY.md, "Installation"), then update again.';
    END IF;
END
$$;

--------------------------------------------------------------------------
-- A privacy unit column renumbered by a dump and restore
-- (src/protected/unitreattach.c; docs/VERSIONS.md "Moving to a newer major
-- version"): pg_dump writes a table without its dropped columns, so a unit
-- column after one comes back under a lower number (and a collation other
-- than the default under a new OID), and every run on the table is refused
-- before the charge.  A superuser confirms that the column of the recorded
-- name, type and type modifier is the unit: its number, collation and
-- collation versions are recorded again.  Only a superuser: a table's owner
-- could drop the unit column and add another of the same name.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.reattach_unit(rel regclass)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_reattach_unit'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION dpobj.reattach_unit(regclass) FROM PUBLIC;
COMMENT ON FUNCTION dpobj.reattach_unit(regclass) IS
    'Superuser, after a restore: records the privacy unit column of the recorded name, type and type modifier under its present number and collation (true if that changed anything)';

--------------------------------------------------------------------------
-- The privacy-unit bounding's sorted branch (src/protected/unitkeep.c,
-- src/context/trainquery.h): rows sorted by unit, each unit's rows numbered
-- and counted over its window, and selection sampling as they arrive -- a
-- uniformly random k-subset exactly, where the first k rows by random keys
-- (dpobj.unit_row_key()) were one only when the keys had no ties.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.unit_keep_sorted(r bigint, m bigint, k bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_unit_keep_sorted'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION dpobj.unit_keep_sorted(bigint, bigint, bigint) IS
    'Internal: whether row r of its privacy unit''s m rows (arriving in order, unit by unit) is one of the k random rows the unit keeps';
