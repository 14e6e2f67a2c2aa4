/* dpobj--0.1.0--0.2.0.sql — upgrade from the 0.1.0 release.
 *
 * 0.1.0 is released: sql/dpobj--0.1.0.sql never changes.  Every SQL change
 * since is here (a fresh CREATE EXTENSION runs the 0.1.0 script and then
 * this one), and tests/upgrade/ proves that ALTER EXTENSION dpobj UPDATE on
 * a database with ledger, budgets, protected tables and stored models gives
 * the same catalog as a fresh install and keeps the data.
 *
 * Sections, in the order the objects depend on each other.
 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION dpobj UPDATE TO '0.2.0'" to load this file. \quit

--------------------------------------------------------------------------
-- 1. Aggregate state types (Citus partial aggregation; docs/SCALING.md)
--------------------------------------------------------------------------

--------------------------------------------------------------------------
-- 2. Privacy calibration (docs/PRIVACY.md)
--------------------------------------------------------------------------

--------------------------------------------------------------------------
-- 3. The ledger and its writer
--------------------------------------------------------------------------

-- A new outcome, 'aborted': a model was computed but the query that ran the
-- mechanism then failed (an error later in the statement, a cancel,
-- statement_timeout).  'released' now means that this query completed.
-- Existing rows keep their values (the new list contains the old one).
ALTER TABLE dpobj.ledger DROP CONSTRAINT ledger_outcome_check;
ALTER TABLE dpobj.ledger ADD CONSTRAINT ledger_outcome_check
    CHECK (outcome IN ('charged', 'released', 'not_certified', 'cancelled', 'failed', 'aborted'));
COMMENT ON COLUMN dpobj.ledger.outcome IS
    'charged: in flight, or the server crashed; released: a model was computed and the query that ran the mechanism (for train(), the query calling train()) completed; aborted: a model was computed but that query failed; not_certified: the exact oracle did not certify, no model; cancelled: interrupted before a model existed; failed: the mechanism failed or an error ended the run before a model existed.  The budget is charged in every case.';

--------------------------------------------------------------------------
-- 4. The sealed protected path (docs/SECURITY.md)
--------------------------------------------------------------------------

--------------------------------------------------------------------------
-- 5. Model catalog, help and private evaluation (docs/USAGE.md)
--------------------------------------------------------------------------

-- Online help: the sections of docs/REFERENCE.md, compiled into the library.
CREATE FUNCTION dpobj.help(topic text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'dpobj_help'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.help(text) IS
    'dpobj''s reference manual: without a topic the overview and the list of topics, with one its section';
