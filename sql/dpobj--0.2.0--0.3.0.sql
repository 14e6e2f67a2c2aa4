/* dpobj--0.2.0--0.3.0.sql — upgrade from the 0.2.0 release.
 *
 * 0.1.0 and 0.2.0 are released: sql/dpobj--0.1.0.sql and
 * sql/dpobj--0.1.0--0.2.0.sql never change.  Every SQL change since is here
 * (a fresh CREATE EXTENSION runs the 0.1.0 script and the upgrade chain),
 * and tests/upgrade/ proves that ALTER EXTENSION dpobj UPDATE from either
 * release gives the same catalog as a fresh install and keeps the data.
 *
 * The library refuses every charged or privileged entry point while the
 * database's SQL objects are older than it (src/protected/privileged.c), so a new
 * library installed before this update charges nothing.
 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION dpobj UPDATE TO '0.3.0'" to load this file. \quit

--------------------------------------------------------------------------
-- 0. Only in a schema that superusers control (docs/SECURITY.md,
-- "Installation").  First in this script on purpose: every later statement
-- names objects "dpobj.x" and runs as a superuser, so in a schema another
-- role controls (owned, CREATE granted, or renamed away while that role
-- planted its own "dpobj") they could run that role's code.  The same rule
-- as dpobj_verify_schema() in src/protected/privileged.c: the extension's schema,
-- found by pg_extension, is named dpobj, owned by a superuser, and CREATE
-- on it is granted to superusers only.  0.1.0 -> 0.2.0 checked the schema
-- named dpobj, not the extension's; this also refuses a renamed one.
--------------------------------------------------------------------------
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
-- S1. Superuser-run code checks its schema first (docs/SECURITY.md,
-- "Installation").
--------------------------------------------------------------------------
-- forget_dropped_tables() is SECURITY DEFINER (owned by the installing
-- superuser) and fires on every DROP by any role.  It names
-- dpobj.budgets and dpobj.protected_tables: if the extension's schema has
-- been handed to another role, that role could rename it and plant its
-- own "dpobj.budgets" with a trigger, which this function would then run
-- as a superuser.  So, before anything else, the same check as section 0
-- (and dpobj_verify_schema()); it refuses the DROP rather than skip the
-- cleanup, so that no protection outlives its table.  Without the
-- extension (its own DROP) there is nothing to forget.  The version of the
-- SQL objects is not checked: DROPs inside an update must work.
CREATE OR REPLACE FUNCTION dpobj.forget_dropped_tables()
RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ext_schema oid;
BEGIN
    SELECT e.extnamespace INTO ext_schema FROM pg_catalog.pg_extension e
     WHERE e.extname = 'dpobj';
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n
                     JOIN pg_catalog.pg_authid r ON r.oid = n.nspowner
                    WHERE n.oid = ext_schema AND n.nspname = 'dpobj' AND r.rolsuper)
       OR EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(n.nspacl) a
                   WHERE n.oid = ext_schema AND a.privilege_type = 'CREATE'
                     AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_authid r
                                      WHERE r.oid = a.grantee AND r.rolsuper)) THEN
        RAISE EXCEPTION 'dpobj refuses to run: its schema "dpobj" is not controlled by superusers only'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'dpobj forgets the protection and budgets of dropped tables as a superuser; the extension''s schema is not named dpobj, is owned by a role that is not a superuser, or such a role may create objects in it.',
                  HINT = 'A superuser must own schema dpobj and keep CREATE on it to superusers (docs/SECURITY.md, "Installation"); until then DROP statements are refused.';
    END IF;
    DELETE FROM dpobj.budgets b
     USING pg_catalog.pg_event_trigger_dropped_objects() o
     WHERE o.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
       AND o.objsubid = 0 AND b.relid::pg_catalog.oid = o.objid;
    DELETE FROM dpobj.protected_tables p
     USING pg_catalog.pg_event_trigger_dropped_objects() o
     WHERE o.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
       AND o.objsubid = 0 AND p.relid::pg_catalog.oid = o.objid;
END
$$;

-- S2. dpobj.my_budgets is owned by a superuser, so the RLS of
-- dpobj.budgets does not apply inside it; only its WHERE restricts the
-- rows.  Without a security barrier the planner may evaluate a cheap
-- function from the caller's WHERE before that restriction and show it
-- every role's budgets.
ALTER VIEW dpobj.my_budgets SET (security_barrier = true);

--------------------------------------------------------------------------
-- L1. Private linear regression: dp_linear_regression (AdaSSP or SSP on
-- exact sufficient statistics; docs/PRIVACY.md "Linear regression") and
-- its state type dpobj.linreg_state (text: base64 of a portable form, so
-- that parallel query and Citus ship states instead of rows).
--------------------------------------------------------------------------
CREATE TYPE dpobj.linreg_state;
CREATE FUNCTION dpobj.linreg_state_in(cstring) RETURNS dpobj.linreg_state
AS 'MODULE_PATHNAME', 'dpobj_linreg_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.linreg_state_out(dpobj.linreg_state) RETURNS cstring
AS 'MODULE_PATHNAME', 'dpobj_linreg_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.linreg_state_recv(internal) RETURNS dpobj.linreg_state
AS 'MODULE_PATHNAME', 'dpobj_linreg_state_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.linreg_state_send(dpobj.linreg_state) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpobj_linreg_state_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE dpobj.linreg_state (
    INPUT = dpobj.linreg_state_in,
    OUTPUT = dpobj.linreg_state_out,
    RECEIVE = dpobj.linreg_state_recv,
    SEND = dpobj.linreg_state_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = extended
);
COMMENT ON TYPE dpobj.linreg_state IS
    'Aggregate state of dp_linear_regression: exact sums of the clipped, normalised rows'' X^T X, X^T y, y^T y and their count (text: base64)';

CREATE FUNCTION dpobj.dp_linear_regression_transfn(dpobj.linreg_state, float8[], float8, float8, float8, jsonb)
RETURNS dpobj.linreg_state
AS 'MODULE_PATHNAME', 'dpobj_linreg_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_linear_regression_combine(dpobj.linreg_state, dpobj.linreg_state)
RETURNS dpobj.linreg_state
AS 'MODULE_PATHNAME', 'dpobj_linreg_combine'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_linear_regression_finalfn(dpobj.linreg_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_linreg_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_linear_regression(features float8[], label float8,
                                            epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_linear_regression_transfn,
    STYPE = dpobj.linreg_state,
    FINALFUNC = dpobj.dp_linear_regression_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_linear_regression_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_linear_regression(float8[], float8, float8, float8, jsonb) IS
    'Linear regression by AdaSSP (default) or SSP on exact sufficient statistics with discrete Gaussian noise; options {"R", "y_min", "y_max" (required), "intercept", "method"}';

--------------------------------------------------------------------------
-- L2. Private evaluation of a linear regression model: the float8-label
-- overload of dp_evaluate (src/mechanisms/evalreg.c, docs/PRIVACY.md
-- "Private evaluation of a regression"): noisy count, sum |e|, sum e^2,
-- sum y, sum y^2 of the clamped rows with exact discrete Laplace noise,
-- and MAE, RMSE, R^2 with noise-aware 95 % intervals.  dpobj.evaluate()
-- runs it when its model is a regression (mechanism adassp or ssp).
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.dp_evaluate_regression_transfn(float8[], float8[], float8, float8, float8, jsonb)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpobj_evalreg_transfn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_evaluate_regression_combinefn(float8[], float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpobj_evalreg_combinefn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_evaluate_regression_finalfn(float8[])
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpobj_evalreg_finalfn'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE dpobj.dp_evaluate(features float8[], label float8,
                                   epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_evaluate_regression_transfn,
    STYPE = float8[],
    FINALFUNC = dpobj.dp_evaluate_regression_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_evaluate_regression_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_evaluate(float8[], float8, float8, float8, jsonb) IS
    'DP evaluation of a linear regression model (options {"model": m::text}): MAE, RMSE, R^2 with noise-aware 95% intervals from discrete-Laplace-noised sums of the rows clamped to the model''s [y_min, y_max]';
COMMENT ON FUNCTION dpobj.evaluate(regclass, dpobj.model, text[], text, numeric, numeric, jsonb) IS
    'Evaluate a model on a protected table without reading it, charged to the caller''s budget like dpobj.train(): a DP confusion matrix for a classifier, DP MAE/RMSE/R^2 for a linear regression model (options: "filter")';
