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
--
-- Issue 11: Citus pushes a user aggregate down to the workers
-- (worker_partial_agg / coord_combine_agg) only when its state type is not a
-- pseudo-type, so every aggregate gets a real state type in place of
-- "internal": dpobj.halfspace_state (dp_halfspace, dp_halfspace_rspm,
-- dp_expmech) and dpobj.glm_state (dp_logistic, dp_noisysgd, dp_opsamp).
-- While aggregating, a state is an expanded object updated in place
-- (src/aggstate.h); it travels between processes and nodes in a canonical,
-- portable flat form, as base64 text or binary (send/recv).  A type without
-- "internal" needs no serialise/deserialise functions.
--
-- An aggregate's state type cannot be altered: the aggregates are dropped
-- and created again, with their support functions.  A user view,
-- materialized view or SQL-standard function body that calls one of them
-- makes this update fail ("cannot drop ... because other objects depend on
-- it"): drop those objects, update, create them again (docs/USAGE.md,
-- "Upgrading").  Nothing is dropped with CASCADE.  The 0.1.0 C entry points
-- of the old support functions stay in the library as stubs that ask for
-- ALTER EXTENSION dpobj UPDATE.

DROP AGGREGATE dpobj.dp_halfspace(float8[], boolean, float8, float8);
DROP AGGREGATE dpobj.dp_halfspace(float8[], boolean, float8, float8, jsonb);
DROP AGGREGATE dpobj.dp_halfspace_rspm(float8[], boolean, float8, float8);
DROP AGGREGATE dpobj.dp_halfspace_rspm(float8[], boolean, float8, float8, jsonb);
DROP AGGREGATE dpobj.dp_expmech(float8[], boolean, float8, float8);
DROP AGGREGATE dpobj.dp_expmech(float8[], boolean, float8, float8, jsonb);
DROP AGGREGATE dpobj.dp_logistic(float8[], boolean, float8, float8, jsonb);
DROP AGGREGATE dpobj.dp_noisysgd(float8[], boolean, float8, float8, jsonb);
DROP AGGREGATE dpobj.dp_opsamp(float8[], boolean, float8, float8, jsonb);

DROP FUNCTION dpobj.dp_halfspace_transfn(internal, float8[], boolean, float8, float8);
DROP FUNCTION dpobj.dp_halfspace_transfn(internal, float8[], boolean, float8, float8, jsonb);
DROP FUNCTION dpobj.dp_halfspace_combinefn(internal, internal);
DROP FUNCTION dpobj.dp_halfspace_serialfn(internal);
DROP FUNCTION dpobj.dp_halfspace_deserialfn(bytea, internal);
DROP FUNCTION dpobj.dp_halfspace_finalfn(internal);
DROP FUNCTION dpobj.dp_halfspace_rspm_finalfn(internal);
DROP FUNCTION dpobj.dp_expmech_finalfn(internal);
DROP FUNCTION dpobj.dp_glm_combine(internal, internal);
DROP FUNCTION dpobj.dp_glm_serial(internal);
DROP FUNCTION dpobj.dp_glm_deserial(bytea, internal);
DROP FUNCTION dpobj.dp_logistic_transfn(internal, float8[], boolean, float8, float8, jsonb);
DROP FUNCTION dpobj.dp_logistic_finalfn(internal);
DROP FUNCTION dpobj.dp_noisysgd_transfn(internal, float8[], boolean, float8, float8, jsonb);
DROP FUNCTION dpobj.dp_noisysgd_finalfn(internal);
DROP FUNCTION dpobj.dp_opsamp_transfn(internal, float8[], boolean, float8, float8, jsonb);
DROP FUNCTION dpobj.dp_opsamp_finalfn(internal);

-- the two state types

CREATE TYPE dpobj.halfspace_state;
CREATE FUNCTION dpobj.halfspace_state_in(cstring) RETURNS dpobj.halfspace_state
AS 'MODULE_PATHNAME', 'dpobj_halfspace_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.halfspace_state_out(dpobj.halfspace_state) RETURNS cstring
AS 'MODULE_PATHNAME', 'dpobj_halfspace_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.halfspace_state_recv(internal) RETURNS dpobj.halfspace_state
AS 'MODULE_PATHNAME', 'dpobj_halfspace_state_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.halfspace_state_send(dpobj.halfspace_state) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpobj_halfspace_state_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE dpobj.halfspace_state (
    INPUT = dpobj.halfspace_state_in,
    OUTPUT = dpobj.halfspace_state_out,
    RECEIVE = dpobj.halfspace_state_recv,
    SEND = dpobj.halfspace_state_send,
    INTERNALLENGTH = VARIABLE,
    STORAGE = extended
);
COMMENT ON TYPE dpobj.halfspace_state IS
    'Aggregate state of dp_halfspace, dp_halfspace_rspm and dp_expmech: distinct quantised feature vectors with label counts (text: base64)';

CREATE TYPE dpobj.glm_state;
CREATE FUNCTION dpobj.glm_state_in(cstring) RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.glm_state_out(dpobj.glm_state) RETURNS cstring
AS 'MODULE_PATHNAME', 'dpobj_glm_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.glm_state_recv(internal) RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_state_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.glm_state_send(dpobj.glm_state) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpobj_glm_state_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE dpobj.glm_state (
    INPUT = dpobj.glm_state_in,
    OUTPUT = dpobj.glm_state_out,
    RECEIVE = dpobj.glm_state_recv,
    SEND = dpobj.glm_state_send,
    INTERNALLENGTH = VARIABLE,
    STORAGE = extended
);
COMMENT ON TYPE dpobj.glm_state IS
    'Aggregate state of dp_logistic, dp_noisysgd and dp_opsamp: distinct clipped feature vectors with label counts (text: base64)';

-- halfspace family: transition and combine functions; the final functions
-- keep their C entry points and take the new type

CREATE FUNCTION dpobj.dp_halfspace_transfn(dpobj.halfspace_state, float8[], boolean, float8, float8)
RETURNS dpobj.halfspace_state
AS 'MODULE_PATHNAME', 'dpobj_hs_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_halfspace_transfn(dpobj.halfspace_state, float8[], boolean, float8, float8, jsonb)
RETURNS dpobj.halfspace_state
AS 'MODULE_PATHNAME', 'dpobj_hs_opts_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_halfspace_combinefn(dpobj.halfspace_state, dpobj.halfspace_state)
RETURNS dpobj.halfspace_state
AS 'MODULE_PATHNAME', 'dpobj_hs_combine'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- final functions charge the ledger and draw noise (VOLATILE); they run
-- once, in the leader or on the Citus coordinator, never on a worker
CREATE FUNCTION dpobj.dp_halfspace_finalfn(dpobj.halfspace_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_halfspace_finalfn'
LANGUAGE C VOLATILE;

CREATE FUNCTION dpobj.dp_halfspace_rspm_finalfn(dpobj.halfspace_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_rspm_finalfn'
LANGUAGE C VOLATILE;

CREATE FUNCTION dpobj.dp_expmech_finalfn(dpobj.halfspace_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_expmech_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_halfspace(features float8[], label boolean,
                                    epsilon float8, delta float8) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = dpobj.halfspace_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_halfspace_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_halfspace(float8[], boolean, float8, float8) IS
    'OPDisc (Neel et al. 2020): (epsilon, delta)-DP halfspace classifier, exact oracle, charged to dpobj.ledger';

CREATE AGGREGATE dpobj.dp_halfspace(features float8[], label boolean,
                                    epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = dpobj.halfspace_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_halfspace_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_halfspace(float8[], boolean, float8, float8, jsonb) IS
    'OPDisc with options {"B", "D2", "Q", "oracle", "time_limit"}';

CREATE AGGREGATE dpobj.dp_halfspace_rspm(features float8[], label boolean,
                                         epsilon float8, delta float8) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = dpobj.halfspace_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_halfspace_rspm_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_halfspace_rspm(float8[], boolean, float8, float8) IS
    'RSPM (Neel et al. 2020, Algorithm 3): (epsilon, delta)-DP halfspace over {-1,0,1}^d, exact oracle, charged to dpobj.ledger';

CREATE AGGREGATE dpobj.dp_halfspace_rspm(features float8[], label boolean,
                                         epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = dpobj.halfspace_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_halfspace_rspm_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_halfspace_rspm(float8[], boolean, float8, float8, jsonb) IS
    'RSPM with options {"Q", "oracle", "time_limit"}';

CREATE AGGREGATE dpobj.dp_expmech(features float8[], label boolean,
                                  epsilon float8, delta float8) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = dpobj.halfspace_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_expmech_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_expmech(float8[], boolean, float8, float8) IS
    'Exact exponential mechanism over the OPDisc grid (pure epsilon-DP, 0/1 loss, sensitivity 1); small grids only';

CREATE AGGREGATE dpobj.dp_expmech(features float8[], label boolean,
                                  epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = dpobj.halfspace_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_expmech_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_expmech(float8[], boolean, float8, float8, jsonb) IS
    'Exact exponential mechanism with options {"B", "D2", "Q"}';

-- GLM family

CREATE FUNCTION dpobj.dp_glm_combine(dpobj.glm_state, dpobj.glm_state)
RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_state_combine'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_logistic_transfn(dpobj.glm_state, float8[], boolean, float8, float8, jsonb)
RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_logistic_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_logistic_finalfn(dpobj.glm_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_logistic_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_logistic(features float8[], label boolean,
                                   epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_logistic_transfn,
    STYPE = dpobj.glm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_logistic_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_logistic(float8[], boolean, float8, float8, jsonb) IS
    'L2-regularised logistic regression / Huber-SVM: Objective-Gauss, Output-Gauss or CMS objective perturbation; options {"R" (required), "method", "loss", "lambda", "intercept", "h"}';

CREATE FUNCTION dpobj.dp_noisysgd_transfn(dpobj.glm_state, float8[], boolean, float8, float8, jsonb)
RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_noisysgd_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_noisysgd_finalfn(dpobj.glm_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_noisysgd_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_noisysgd(features float8[], label boolean,
                                   epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_noisysgd_transfn,
    STYPE = dpobj.glm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_noisysgd_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_noisysgd(float8[], boolean, float8, float8, jsonb) IS
    'Noisy projected SGD (Bassily et al. 2014, Algorithm 1); options {"R" (required), "loss", "intercept", "h", "T", "radius"}';

CREATE FUNCTION dpobj.dp_opsamp_transfn(dpobj.glm_state, float8[], boolean, float8, float8, jsonb)
RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_opsamp_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_opsamp_finalfn(dpobj.glm_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_opsamp_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_opsamp(features float8[], label boolean,
                                 epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_opsamp_transfn,
    STYPE = dpobj.glm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_opsamp_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_opsamp(float8[], boolean, float8, float8, jsonb) IS
    'OPSamp (Neel et al. 2020, Algorithm 2) for the l1-clipped hinge loss scaled to [0, 1]; options {"R" (required), "intercept", "beta"}';

--------------------------------------------------------------------------
-- 2. Privacy calibration (docs/PRIVACY.md)
--------------------------------------------------------------------------

-- OPDisc and RSPM calibrate their noise soundly by default (calibrate.c); the
-- 0.1.0 functions keep returning the paper's sigma.
CREATE FUNCTION dpobj.opdisc_sigma(epsilon float8, delta float8, d integer, d2 integer,
                                   calibration text)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpobj_opdisc_sigma_cal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.opdisc_sigma(float8, float8, integer, integer, text) IS
    'Noise scale of OPDisc (dp_halfspace) for d features and norm bound D2; calibration "sound" (the default of the mechanisms, docs/PRIVACY.md) or "paper"';

CREATE FUNCTION dpobj.rspm_sigma(epsilon float8, delta float8, d integer, calibration text)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpobj_rspm_sigma_cal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.rspm_sigma(float8, float8, integer, text) IS
    'Noise scale of RSPM (dp_halfspace_rspm) with m = 2d separators; calibration "sound" (the default, docs/PRIVACY.md) or "paper"';

COMMENT ON FUNCTION dpobj.opdisc_sigma(float8, float8, integer) IS
    'The paper''s OPDisc sigma = 7 D2 sqrt(ln(1/delta)) / epsilon (Algorithm 1 as boxed); dp_halfspace uses the sound calibration unless its options say {"calibration": "paper"}; see opdisc_sigma(epsilon, delta, d, d2, calibration)';
COMMENT ON FUNCTION dpobj.rspm_sigma(float8, float8, integer) IS
    'The paper''s RSPM sigma = 7 sqrt(2d ln(1/delta)) / epsilon (Algorithm 3); dp_halfspace_rspm uses the sound calibration unless its options say {"calibration": "paper"}; see rspm_sigma(epsilon, delta, d, calibration)';

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

-- 4a. Only into a schema that superusers control (issue 9, leak 8).
-- CREATE EXTENSION uses an existing schema "dpobj" as it is: a role that
-- created it beforehand would own it and could replace the objects that
-- dpobj's privileged code (the ledger and job workers, the event triggers,
-- the entry points acting as the bootstrap superuser) runs.  A fresh
-- install runs 0.1.0 and then this script, so this check guards installs
-- and updates alike; C code checks again at run time (src/privileged.c).
DO $$
DECLARE
    owner_super boolean;
    others_create boolean;
BEGIN
    SELECT r.rolsuper INTO owner_super
      FROM pg_catalog.pg_namespace n
      JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
     WHERE n.nspname OPERATOR(pg_catalog.=) 'dpobj';
    SELECT EXISTS (
             SELECT 1 FROM pg_catalog.pg_namespace n,
                           pg_catalog.aclexplode(n.nspacl) a
              WHERE n.nspname OPERATOR(pg_catalog.=) 'dpobj'
                AND a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
                AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r
                                 WHERE r.oid OPERATOR(pg_catalog.=) a.grantee AND r.rolsuper))
      INTO others_create;
    IF NOT coalesce(owner_super, false) OR others_create THEN
        RAISE EXCEPTION 'dpobj must be installed in a schema "dpobj" that only superusers control'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'The schema is owned by a role that is not a superuser, or such a role may create objects in it; that role could take over dpobj''s privileged code.',
                  HINT = 'Drop or rename that schema (or make a superuser its owner and revoke CREATE on it from other roles), then install dpobj again.';
    END IF;
END
$$;

-- 4b. The total delta granted on a budget stays below 1 (leak 8); 0.1.0
-- only bounded each grant.  dpobj.grant_budget() refuses such grants with
-- a hint; the constraint backs it up.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM dpobj.budgets WHERE granted_delta OPERATOR(pg_catalog.>=) 1) THEN
        RAISE EXCEPTION 'dpobj.budgets has budgets with a total granted delta of 1 or more'
            USING ERRCODE = 'check_violation',
                  HINT = 'Revoke them with dpobj.revoke_budget() (it sets granted := spent), then update again.';
    END IF;
END
$$;
ALTER TABLE dpobj.budgets
    ADD CONSTRAINT budgets_granted_delta_below_one CHECK (granted_delta < 1);

-- 4c. dpobj.unprotect(): the table's owner (or a superuser) ends its
-- protection; budgets go, the ledger keeps the history.
CREATE FUNCTION dpobj.unprotect(rel regclass)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_unprotect'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.unprotect(regclass) IS
    'Owner or superuser: stop protecting the table; its budgets are deleted, the ledger keeps every charge (true if it was protected)';

-- 4d. Ledger visibility by role OID, not by name: a role that later takes
-- a dropped or renamed role's name does not see its charges.  rolid is
-- filled on insert (from the budget for protected runs, else from the
-- role's current name, at the moment of the charge) and never changes.
ALTER TABLE dpobj.ledger ADD COLUMN rolid oid;
COMMENT ON COLUMN dpobj.ledger.rolid IS
    'OID of the role that was charged; ledger rows are visible to that role (not to whoever has its name later)';

CREATE FUNCTION dpobj.ledger_set_rolid()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.rolid IS NULL THEN
            NEW.rolid := coalesce(
                (SELECT b.rolid::pg_catalog.oid FROM dpobj.budgets b
                  WHERE b.id OPERATOR(pg_catalog.=) NEW.budget_id),
                (SELECT r.oid FROM pg_catalog.pg_roles r
                  WHERE r.rolname OPERATOR(pg_catalog.=) NEW.rolname));
        END IF;
    ELSIF NEW.rolid IS DISTINCT FROM OLD.rolid THEN
        RAISE EXCEPTION 'dpobj.ledger is append-only'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Only the outcome of a charged run can be recorded, once.';
    END IF;
    RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION dpobj.ledger_set_rolid() FROM PUBLIC;
CREATE TRIGGER ledger_rolid
    BEFORE INSERT OR UPDATE ON dpobj.ledger
    FOR EACH ROW EXECUTE FUNCTION dpobj.ledger_set_rolid();

-- rows of 0.1.0: the same rule, applied once (the append-only triggers are
-- off for this one statement of the update)
ALTER TABLE dpobj.ledger DISABLE TRIGGER ledger_append_only;
ALTER TABLE dpobj.ledger DISABLE TRIGGER ledger_rolid;
UPDATE dpobj.ledger l
   SET rolid = coalesce(
         (SELECT b.rolid::pg_catalog.oid FROM dpobj.budgets b
           WHERE b.id OPERATOR(pg_catalog.=) l.budget_id),
         (SELECT r.oid FROM pg_catalog.pg_roles r
           WHERE r.rolname OPERATOR(pg_catalog.=) l.rolname))
 WHERE l.rolid IS NULL;
ALTER TABLE dpobj.ledger ENABLE TRIGGER ledger_append_only;
ALTER TABLE dpobj.ledger ENABLE TRIGGER ledger_rolid;
CREATE INDEX ledger_rolid_idx ON dpobj.ledger (rolid);

ALTER POLICY ledger_own_rows ON dpobj.ledger
    USING (rolid OPERATOR(pg_catalog.=) (SELECT r.oid FROM pg_catalog.pg_roles r
                                           WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER));

-- 4e. DROP EXTENSION dpobj (or DROP SCHEMA dpobj, DROP OWNED BY its owner,
-- ALTER EXTENSION dpobj DROP ...) is refused while the ledger or budgets
-- hold rows, or with CASCADE, unless a superuser confirms with
-- SET dpobj.drop_confirm = '<current database>' (src/dropguard.c).
-- ENABLE ALWAYS: session_replication_role = replica does not switch it off.
CREATE FUNCTION dpobj.drop_guard()
RETURNS event_trigger
AS 'MODULE_PATHNAME', 'dpobj_drop_guard'
LANGUAGE C;
REVOKE ALL ON FUNCTION dpobj.drop_guard() FROM PUBLIC;
CREATE EVENT TRIGGER dpobj_drop_guard ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED', 'ALTER EXTENSION')
    EXECUTE FUNCTION dpobj.drop_guard();
ALTER EVENT TRIGGER dpobj_drop_guard ENABLE ALWAYS;

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

-- Model catalog (docs/USAGE.md "Store and use models by name"; src/models.c):
-- named models per owner.  Written only by dpobj's C code (dpobj.train with
-- model_name, dpobj.save_model, dpobj.drop_model); every role reads its own
-- rows, dpobj_admin members and superusers all.  A row holds the released
-- model and public parameters only.
CREATE TABLE dpobj.models (
    id bigserial PRIMARY KEY,
    name text NOT NULL,
    ownerid oid NOT NULL,
    mechanism text NOT NULL,
    created timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    epsilon numeric NOT NULL,
    delta numeric NOT NULL,
    params jsonb NOT NULL,
    relation text,
    ledger_id bigint,
    model dpobj.model NOT NULL,
    UNIQUE (ownerid, name)
);
COMMENT ON TABLE dpobj.models IS
    'Named models: dpobj.train(..., model_name => ...) and dpobj.save_model() store, dpobj.predict/score(name, ...) use, dpobj.drop_model() removes';
COMMENT ON COLUMN dpobj.models.ownerid IS 'The role (OID) that stored the model';
COMMENT ON COLUMN dpobj.models.relation IS 'The protected table a dpobj.train() run read (NULL for saved models)';
COMMENT ON COLUMN dpobj.models.ledger_id IS 'The dpobj.ledger row of that run (NULL for saved models)';
SELECT pg_catalog.pg_extension_config_dump('dpobj.models', '');
SELECT pg_catalog.pg_extension_config_dump('dpobj.models_id_seq', '');
REVOKE ALL ON dpobj.models FROM PUBLIC;
REVOKE ALL ON SEQUENCE dpobj.models_id_seq FROM PUBLIC;
GRANT SELECT ON dpobj.models TO PUBLIC;
ALTER TABLE dpobj.models ENABLE ROW LEVEL SECURITY;
CREATE POLICY models_visible ON dpobj.models
    FOR SELECT USING (ownerid OPERATOR(pg_catalog.=) (SELECT r.oid FROM pg_catalog.pg_roles r
                                                       WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER)
                      OR pg_catalog.pg_has_role(CURRENT_USER, 'dpobj_admin', 'MEMBER'));

CREATE FUNCTION dpobj.save_model(name text, model dpobj.model, replace boolean DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME', 'dpobj_save_model'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.save_model(text, dpobj.model, boolean) IS
    'Store a model (e.g. from a direct aggregate) in dpobj.models under your name; replace => true overwrites a model of that name';

CREATE FUNCTION dpobj.drop_model(name text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_drop_model'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.drop_model(text) IS
    'Remove one of your models from dpobj.models (true if it existed)';

-- your model of this name (row-level security: only your own rows)
CREATE FUNCTION dpobj.get_model(name text)
RETURNS dpobj.model
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    result dpobj.model;
BEGIN
    SELECT (m.model).* INTO result FROM dpobj.models m
     WHERE m.name OPERATOR(pg_catalog.=) $1
       AND m.ownerid OPERATOR(pg_catalog.=) (SELECT r.oid FROM pg_catalog.pg_roles r
                                              WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'you have no model named "%"', $1
            USING ERRCODE = 'undefined_object',
                  HINT = 'SELECT name FROM dpobj.models lists yours; dpobj.train(..., model_name => ...) or dpobj.save_model() store one.';
    END IF;
    RETURN result;
END
$$;
COMMENT ON FUNCTION dpobj.get_model(text) IS 'Your stored model of this name (dpobj.models)';

CREATE FUNCTION dpobj.predict(name text, features float8[])
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict(dpobj.get_model($1), $2) $$;
COMMENT ON FUNCTION dpobj.predict(text, float8[]) IS
    'The prediction of your stored model of this name (see dpobj.predict(model, features))';

CREATE FUNCTION dpobj.score(name text, features float8[])
RETURNS float8
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.score(dpobj.get_model($1), $2) $$;
COMMENT ON FUNCTION dpobj.score(text, float8[]) IS
    'The margin of your stored model of this name (see dpobj.score(model, features))';

-- dpobj.train() gains model_name: a new trailing argument (DROP + CREATE;
-- the C function is the same, it reads the argument when present)
DROP FUNCTION dpobj.train(regclass, text, text[], text, numeric, numeric, jsonb);
CREATE FUNCTION dpobj.train(rel regclass, mechanism text, features text[], label text,
                            epsilon numeric, delta numeric, options jsonb DEFAULT '{}',
                            model_name text DEFAULT NULL)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_train'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.train(regclass, text, text[], text, numeric, numeric, jsonb, text) IS
    'Train on a protected table without reading it: charges (epsilon, delta) to the caller''s budget before any noise is drawn; with model_name the model is also stored in dpobj.models';

-- dpobj.submit(..., model_name): the job's train() stores the model by name
ALTER TABLE dpobj.job_queue ADD COLUMN model_name text;
COMMENT ON COLUMN dpobj.job_queue.model_name IS
    'dpobj.models name the job''s model is stored under (NULL: not stored)';
CREATE OR REPLACE VIEW dpobj.jobs WITH (security_barrier) AS
SELECT j.id,
       j.owner,
       j.rel AS relation,
       j.mechanism,
       j.epsilon,
       j.delta,
       j.state,
       j.submitted_at,
       j.started_at,
       j.finished_at,
       CASE WHEN j.state = 'running' THEN dpobj.job_phase(j.id) END AS phase,
       CASE WHEN j.state = 'running' THEN pg_catalog.clock_timestamp() - j.started_at
            ELSE j.finished_at - j.started_at END AS elapsed,
       j.model,
       j.error,
       j.sqlstate,
       j.model_name
  FROM dpobj.job_queue j
 WHERE j.owner::oid IN (SELECT r.oid FROM pg_catalog.pg_roles r
                         WHERE pg_catalog.pg_has_role(current_user, r.oid, 'USAGE'))
    OR (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user);

DROP FUNCTION dpobj.submit(regclass, text, text[], text, numeric, numeric, jsonb);
CREATE FUNCTION dpobj.submit(rel regclass, mechanism text, features text[], label text,
                             epsilon numeric, delta numeric, options jsonb DEFAULT '{}',
                             model_name text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'dpobj_submit'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.submit(regclass, text, text[], text, numeric, numeric, jsonb, text) IS
    'Queue dpobj.train(...) as a background job (same arguments and checks); returns the job id at once; with model_name the job stores its model in dpobj.models';

-- Private evaluation (src/evaluate.c, docs/PRIVACY.md "Private evaluation"): a
-- DP confusion matrix with exact discrete Laplace noise, charged like any run.
CREATE FUNCTION dpobj.dp_evaluate_transfn(float8[], float8[], boolean, float8, float8, jsonb)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpobj_evaluate_transfn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_evaluate_combinefn(float8[], float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpobj_evaluate_combinefn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_evaluate_finalfn(float8[])
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpobj_evaluate_finalfn'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE dpobj.dp_evaluate(features float8[], label boolean,
                                   epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_evaluate_transfn,
    STYPE = float8[],
    FINALFUNC = dpobj.dp_evaluate_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_evaluate_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_evaluate(float8[], boolean, float8, float8, jsonb) IS
    'DP confusion matrix of a model (options {"model": m::text}) with discrete Laplace noise, plus accuracy, precision, recall with noise-aware 95% intervals';

CREATE FUNCTION dpobj.evaluate(rel regclass, model dpobj.model, features text[], label text,
                               epsilon numeric, delta numeric, options jsonb DEFAULT '{}')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpobj_evaluate'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.evaluate(regclass, dpobj.model, text[], text, numeric, numeric, jsonb) IS
    'Evaluate a model on a protected table without reading it: a DP confusion matrix charged to the caller''s budget like dpobj.train() (options: "filter")';
