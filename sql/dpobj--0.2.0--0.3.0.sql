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
-- M1. One-vs-rest multi-class training (src/mechanisms/glmmulticlass.c):
-- dp_logistic_multiclass and dp_noisysgd_multiclass on dpobj.glm_state
-- (rows carry a class index), with a text label or an integer label
-- (matched by its decimal text) among the option "classes"; and
-- dpobj.predict_class(model, features), the argmax of the K scores.

CREATE FUNCTION dpobj.dp_logistic_multiclass_transfn(dpobj.glm_state, float8[], text, float8, float8, jsonb)
RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_logistic_mc_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_logistic_multiclass_transfn(dpobj.glm_state, float8[], bigint, float8, float8, jsonb)
RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_logistic_mc_int_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_logistic_multiclass_finalfn(dpobj.glm_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_logistic_mc_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_logistic_multiclass(features float8[], label text,
                                              epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_logistic_multiclass_transfn,
    STYPE = dpobj.glm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_logistic_multiclass_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    PARALLEL = SAFE
);
CREATE AGGREGATE dpobj.dp_logistic_multiclass(features float8[], label bigint,
                                              epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_logistic_multiclass_transfn,
    STYPE = dpobj.glm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_logistic_multiclass_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_logistic_multiclass(float8[], text, float8, float8, jsonb) IS
    'One-vs-rest multi-class dp_logistic (budget split over the K classes); options {"classes" (required), "R" (required), "method", "loss", "lambda", "intercept", "h"}';
COMMENT ON AGGREGATE dpobj.dp_logistic_multiclass(float8[], bigint, float8, float8, jsonb) IS
    'One-vs-rest multi-class dp_logistic with an integer label (matched as its decimal text)';

CREATE FUNCTION dpobj.dp_noisysgd_multiclass_transfn(dpobj.glm_state, float8[], text, float8, float8, jsonb)
RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_noisysgd_mc_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_noisysgd_multiclass_transfn(dpobj.glm_state, float8[], bigint, float8, float8, jsonb)
RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_noisysgd_mc_int_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_noisysgd_multiclass_finalfn(dpobj.glm_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_noisysgd_mc_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_noisysgd_multiclass(features float8[], label text,
                                              epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_noisysgd_multiclass_transfn,
    STYPE = dpobj.glm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_noisysgd_multiclass_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    PARALLEL = SAFE
);
CREATE AGGREGATE dpobj.dp_noisysgd_multiclass(features float8[], label bigint,
                                              epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_noisysgd_multiclass_transfn,
    STYPE = dpobj.glm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_noisysgd_multiclass_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_noisysgd_multiclass(float8[], text, float8, float8, jsonb) IS
    'One-vs-rest multi-class noisy gradient descent (rho split over the K classes); options {"classes" (required), "R" (required), "loss", "intercept", "h", "T", "radius", "n"}';
COMMENT ON AGGREGATE dpobj.dp_noisysgd_multiclass(float8[], bigint, float8, float8, jsonb) IS
    'One-vs-rest multi-class noisy gradient descent with an integer label (matched as its decimal text)';

CREATE FUNCTION dpobj.predict_class(m dpobj.model, features float8[])
RETURNS text
AS 'MODULE_PATHNAME', 'dpobj_predict_class'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.predict_class(dpobj.model, float8[]) IS
    'The class of a feature vector under a multi-class model: argmax of the K scores, ties to the first declared class';
