/* dpobj--0.2.0--0.3.0.sql — upgrade from the 0.2.0 release.
 *
 * 0.1.0 and 0.2.0 are released: sql/dpobj--0.1.0.sql and
 * sql/dpobj--0.1.0--0.2.0.sql never change.  Every SQL change since is here
 * (a fresh CREATE EXTENSION runs the 0.1.0 script and the upgrade chain),
 * and tests/upgrade/ proves that ALTER EXTENSION dpobj UPDATE from either
 * release gives the same catalog as a fresh install and keeps the data.
 *
 * The library refuses every charged or privileged entry point while the
 * database's SQL objects are older than it (src/privileged.c), so a new
 * library installed before this update charges nothing.
 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION dpobj UPDATE TO '0.3.0'" to load this file. \quit
