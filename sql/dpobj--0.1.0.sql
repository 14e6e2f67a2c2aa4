/* dpobj--0.1.0.sql — differentially private model training inside PostgreSQL */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION dpobj" to load this file. \quit

-- Every role may use dpobj's functions on data it can already read; the
-- ledger below restricts what each role sees of it.
GRANT USAGE ON SCHEMA dpobj TO PUBLIC;

--------------------------------------------------------------------------
-- The model value
--------------------------------------------------------------------------

-- A released model: the DP output (weights, bias) and public parameters
-- only.  Never a row count, loss or solver objective.
CREATE TYPE dpobj.model AS (
    mechanism text,         -- e.g. 'opdisc'
    weights   float8[],     -- the DP output
    bias      float8,       -- intercept (0 for halfspaces through the origin)
    epsilon   float8,       -- privacy parameters of the run
    delta     float8,
    params    jsonb         -- public parameters: d, tau, B, D2, Q, sigma, ...
);
COMMENT ON TYPE dpobj.model IS
    'A differentially private model: DP weights and public parameters only';

CREATE FUNCTION dpobj.predict(m dpobj.model, features float8[])
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_predict'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.predict(dpobj.model, float8[]) IS
    'true iff <w, x> + bias > 0 (sgn(0) = -1); halfspace models round x to (1/Q)Z as in training';

CREATE FUNCTION dpobj.score(m dpobj.model, features float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'dpobj_score'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.score(dpobj.model, float8[]) IS
    'The margin <w, x> + bias of a feature vector under a model';

--------------------------------------------------------------------------
-- The privacy-budget ledger
--------------------------------------------------------------------------

-- One row per mechanism run, inserted (outcome 'charged') in its own
-- committed transaction before any noise is drawn, then given its final
-- outcome.  Written only by dpobj's background worker.
CREATE TABLE dpobj.ledger (
    id          bigserial PRIMARY KEY,
    charged_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    rolname     name NOT NULL,
    mechanism   text NOT NULL,
    epsilon     numeric NOT NULL CHECK (epsilon > 0),
    delta       numeric NOT NULL CHECK (delta >= 0 AND delta < 1),
    relation    text,
    outcome     text NOT NULL DEFAULT 'charged'
                CHECK (outcome IN ('charged', 'released', 'not_certified', 'cancelled', 'failed')),
    detail      text,
    finished_at timestamptz,
    -- issue 4: the dpobj.budgets row a protected-path run was charged to
    -- (NULL for direct aggregate runs)
    budget_id   bigint
);
COMMENT ON TABLE dpobj.ledger IS
    'Privacy budget ledger: every mechanism run, charged before its noise is drawn (append-only)';

CREATE INDEX ledger_rolname_idx ON dpobj.ledger (rolname);
CREATE INDEX ledger_budget_idx ON dpobj.ledger (budget_id) WHERE budget_id IS NOT NULL;

-- pg_dump keeps the ledger's rows and its sequence position
SELECT pg_catalog.pg_extension_config_dump('dpobj.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('dpobj.ledger_id_seq', '');

-- Append-only: rows are never deleted, and an update may only move a
-- 'charged' row to its final outcome.  This binds superusers too (short of
-- dropping the trigger).
CREATE FUNCTION dpobj.ledger_guard()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    IF TG_OP = 'DELETE' OR TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION 'dpobj.ledger is append-only'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Ledger rows record spent privacy budget and cannot be removed.';
    END IF;
    IF OLD.outcome <> 'charged'
       OR NEW.id <> OLD.id OR NEW.charged_at <> OLD.charged_at
       OR NEW.rolname <> OLD.rolname OR NEW.mechanism <> OLD.mechanism
       OR NEW.epsilon <> OLD.epsilon OR NEW.delta <> OLD.delta
       OR NEW.relation IS DISTINCT FROM OLD.relation OR NEW.budget_id IS DISTINCT FROM OLD.budget_id THEN
        RAISE EXCEPTION 'dpobj.ledger is append-only'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Only the outcome of a charged run can be recorded, once.';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER ledger_append_only
    BEFORE UPDATE OR DELETE ON dpobj.ledger
    FOR EACH ROW EXECUTE FUNCTION dpobj.ledger_guard();
CREATE TRIGGER ledger_no_truncate
    BEFORE TRUNCATE ON dpobj.ledger
    FOR EACH STATEMENT EXECUTE FUNCTION dpobj.ledger_guard();

-- Everybody may read the ledger, but row-level security shows each role
-- only its own runs (superusers and the table owner see all).
REVOKE ALL ON dpobj.ledger FROM PUBLIC;
REVOKE ALL ON SEQUENCE dpobj.ledger_id_seq FROM PUBLIC;
GRANT SELECT ON dpobj.ledger TO PUBLIC;
ALTER TABLE dpobj.ledger ENABLE ROW LEVEL SECURITY;
CREATE POLICY ledger_own_rows ON dpobj.ledger
    FOR SELECT USING (rolname = current_user);

REVOKE ALL ON FUNCTION dpobj.ledger_guard() FROM PUBLIC;

--------------------------------------------------------------------------
-- OPDisc: dp_halfspace
--------------------------------------------------------------------------

CREATE FUNCTION dpobj.opdisc_sigma(epsilon float8, delta float8, d2 integer)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpobj_opdisc_sigma'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.opdisc_sigma(float8, float8, integer) IS
    'OPDisc noise scale sigma = 7 G D^2 sqrt(ln(1/delta)) / (tau epsilon), tau = G = 1 (Neel et al. 2020, Algorithm 1)';

CREATE FUNCTION dpobj.dp_halfspace_transfn(internal, float8[], boolean, float8, float8)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpobj_halfspace_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_halfspace_transfn(internal, float8[], boolean, float8, float8, jsonb)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpobj_halfspace_opts_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- The final function charges the ledger and draws noise (VOLATILE); final
-- functions always run in the leader, never in a parallel worker.
CREATE FUNCTION dpobj.dp_halfspace_finalfn(internal)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_halfspace_finalfn'
LANGUAGE C VOLATILE;

-- Issue 6: parallel (and Citus) aggregation.  Workers build partial states,
-- serialise them, the leader deserialises and combines them; the final
-- function runs once, on the combined state (docs/SCALING.md).
CREATE FUNCTION dpobj.dp_halfspace_combinefn(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpobj_halfspace_combinefn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_halfspace_serialfn(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'dpobj_halfspace_serialfn'
LANGUAGE C STRICT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_halfspace_deserialfn(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpobj_halfspace_deserialfn'
LANGUAGE C STRICT PARALLEL SAFE;

CREATE AGGREGATE dpobj.dp_halfspace(features float8[], label boolean,
                                    epsilon float8, delta float8) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_halfspace_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    SERIALFUNC = dpobj.dp_halfspace_serialfn,
    DESERIALFUNC = dpobj.dp_halfspace_deserialfn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_halfspace(float8[], boolean, float8, float8) IS
    'OPDisc (Neel et al. 2020): (epsilon, delta)-DP halfspace classifier, exact oracle, charged to dpobj.ledger';

CREATE AGGREGATE dpobj.dp_halfspace(features float8[], label boolean,
                                    epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_halfspace_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    SERIALFUNC = dpobj.dp_halfspace_serialfn,
    DESERIALFUNC = dpobj.dp_halfspace_deserialfn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_halfspace(float8[], boolean, float8, float8, jsonb) IS
    'OPDisc with options {"B", "D2", "Q", "oracle", "time_limit"}';

--------------------------------------------------------------------------
-- Privacy budgets per (table, role) and the protected training path
-- (issue 4; the security model is docs/SECURITY.md)
--------------------------------------------------------------------------

-- Members of dpobj_admin administer budgets on every protected table (the
-- owner of a table administers its own).  Roles are cluster-wide: created
-- only if missing, never dropped with the extension.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dpobj_admin') THEN
        CREATE ROLE dpobj_admin NOLOGIN;
    END IF;
END
$$;

-- Tables that analysts may train on through dpobj.train().
-- relid is regclass on purpose: it follows renames while the database
-- lives (an OID), pg_dump writes it as the qualified name and a restore
-- resolves the name again (the table definitions precede the data), and
-- pg_upgrade preserves table OIDs (regclass is allowed there).
CREATE TABLE dpobj.protected_tables (
    relid        regclass PRIMARY KEY,
    protected_by name NOT NULL,
    protected_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp()
);
COMMENT ON TABLE dpobj.protected_tables IS
    'Tables protected by dpobj.protect(): analysts train on them through dpobj.train() only';

-- One budget per (table, role).  Granted and spent amounts are numeric, so
-- sums are exact (3 x 0.1 = 0.3).  spent_* only ever grows, and only
-- through the ledger worker, together with the ledger row that records the
-- charge: sum(ledger.epsilon) over a budget's rows = spent_epsilon.
-- rolid is regrole for the same reasons as relid (a restore resolves the
-- role by name: restore roles first, e.g. pg_dumpall --globals-only).
CREATE TABLE dpobj.budgets (
    id              bigserial PRIMARY KEY,
    relid           regclass NOT NULL REFERENCES dpobj.protected_tables (relid),
    rolid           regrole NOT NULL,
    granted_epsilon numeric NOT NULL DEFAULT 0,
    granted_delta   numeric NOT NULL DEFAULT 0,
    spent_epsilon   numeric NOT NULL DEFAULT 0,
    spent_delta     numeric NOT NULL DEFAULT 0,
    -- numeric NaN sorts above Infinity: "< 'Infinity'" excludes both
    CHECK (granted_epsilon >= 0 AND granted_epsilon < 'Infinity'),
    CHECK (granted_delta >= 0 AND granted_delta < 'Infinity'),
    CHECK (spent_epsilon >= 0 AND spent_epsilon <= granted_epsilon),
    CHECK (spent_delta >= 0 AND spent_delta <= granted_delta),
    UNIQUE (relid, rolid)
);
COMMENT ON TABLE dpobj.budgets IS
    'Privacy budget of a role on a protected table: granted and spent (epsilon, delta), exact numeric';

-- pg_dump keeps protections, budgets and their sequence (FK order is kept)
SELECT pg_catalog.pg_extension_config_dump('dpobj.protected_tables', '');
SELECT pg_catalog.pg_extension_config_dump('dpobj.budgets', '');
SELECT pg_catalog.pg_extension_config_dump('dpobj.budgets_id_seq', '');

-- Written only by dpobj's C functions (as the bootstrap superuser) and the
-- ledger worker.  Readable through row-level security: an analyst sees its
-- own budgets; a table's owner and dpobj_admin members see the table's.
CREATE FUNCTION dpobj.can_administer(rel regclass)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c
                    WHERE c.oid = rel
                      AND pg_catalog.pg_has_role(current_user, c.relowner, 'USAGE'))
        OR EXISTS (SELECT 1 FROM pg_catalog.pg_roles r
                    WHERE r.rolname = 'dpobj_admin'
                      AND pg_catalog.pg_has_role(current_user, r.oid, 'USAGE'))
$$;
COMMENT ON FUNCTION dpobj.can_administer(regclass) IS
    'true if the current role owns the table (or has its owner''s privileges) or is a member of dpobj_admin';

REVOKE ALL ON dpobj.protected_tables, dpobj.budgets FROM PUBLIC;
REVOKE ALL ON SEQUENCE dpobj.budgets_id_seq FROM PUBLIC;
GRANT SELECT ON dpobj.protected_tables, dpobj.budgets TO PUBLIC;
ALTER TABLE dpobj.protected_tables ENABLE ROW LEVEL SECURITY;
ALTER TABLE dpobj.budgets ENABLE ROW LEVEL SECURITY;
CREATE POLICY protected_visible ON dpobj.protected_tables
    FOR SELECT USING (dpobj.can_administer(relid)
                      OR EXISTS (SELECT 1 FROM dpobj.budgets b WHERE b.relid = protected_tables.relid));
CREATE POLICY budgets_visible ON dpobj.budgets
    FOR SELECT USING (rolid::oid = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user)
                      OR dpobj.can_administer(relid));

-- The ledger: besides its own rows, a role sees the rows charged to the
-- budgets it may see (a table's owner and dpobj_admin: every analyst's
-- charges on the table).  Analysts never see other analysts' rows.
CREATE POLICY ledger_budget_rows ON dpobj.ledger
    FOR SELECT USING (budget_id IN (SELECT id FROM dpobj.budgets));

-- An analyst's remaining budgets
CREATE VIEW dpobj.my_budgets AS
SELECT b.relid AS relation,
       b.granted_epsilon, b.granted_delta,
       b.spent_epsilon, b.spent_delta,
       b.granted_epsilon - b.spent_epsilon AS remaining_epsilon,
       b.granted_delta - b.spent_delta AS remaining_delta
  FROM dpobj.budgets b
 WHERE b.rolid::oid = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user);
COMMENT ON VIEW dpobj.my_budgets IS
    'The current role''s privacy budgets: granted, spent and remaining (epsilon, delta) per table';
GRANT SELECT ON dpobj.my_budgets TO PUBLIC;

-- The entry points.  They are C functions that need the CALLER's identity
-- (the role charged, or whose ownership is checked), which a SECURITY
-- DEFINER function cannot see; they switch user themselves for bounded
-- stretches (src/budget.c, docs/SECURITY.md).  search_path is pinned on
-- every one of them.
CREATE FUNCTION dpobj.protect(rel regclass)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_protect'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.protect(regclass) IS
    'Owner or dpobj_admin: let analysts with a budget train on the table through dpobj.train() (true if newly protected)';

CREATE FUNCTION dpobj.grant_budget(rel regclass, analyst regrole,
                                   epsilon numeric, delta numeric)
RETURNS dpobj.budgets
AS 'MODULE_PATHNAME', 'dpobj_grant_budget'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.grant_budget(regclass, regrole, numeric, numeric) IS
    'Owner or dpobj_admin: add (epsilon, delta) to the role''s budget on a protected table';

CREATE FUNCTION dpobj.revoke_budget(rel regclass, analyst regrole)
RETURNS dpobj.budgets
AS 'MODULE_PATHNAME', 'dpobj_revoke_budget'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.revoke_budget(regclass, regrole) IS
    'Owner or dpobj_admin: take back the unspent rest of the role''s budget (granted := spent)';

CREATE FUNCTION dpobj.train(rel regclass, mechanism text, features text[], label text,
                            epsilon numeric, delta numeric, options jsonb DEFAULT '{}')
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_train'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.train(regclass, text, text[], text, numeric, numeric, jsonb) IS
    'Train on a protected table without reading it: charges (epsilon, delta) to the caller''s budget before any noise is drawn';

-- Dropping a protected table drops its protection and budgets (the ledger
-- keeps the history): a new table that later gets the same name or OID
-- does not inherit them.
CREATE FUNCTION dpobj.forget_dropped_tables()
RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
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
REVOKE ALL ON FUNCTION dpobj.forget_dropped_tables() FROM PUBLIC;
CREATE EVENT TRIGGER dpobj_forget_dropped_tables ON sql_drop
    EXECUTE FUNCTION dpobj.forget_dropped_tables();

--------------------------------------------------------------------------
-- Issue 5: the mechanism family (docs/USAGE.md, one section each)
--------------------------------------------------------------------------

-- Calibrations, exposed for tests and documentation.
CREATE FUNCTION dpobj.rspm_sigma(epsilon float8, delta float8, d integer)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpobj_rspm_sigma'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.rspm_sigma(float8, float8, integer) IS
    'RSPM noise scale sigma = 7 sqrt(m ln(1/delta)) / epsilon with m = 2d separators (Neel et al. 2020, Algorithm 3)';

CREATE FUNCTION dpobj.expmech_grid_size(d integer, b integer, d2 integer)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpobj_expmech_grid_size'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.expmech_grid_size(integer, integer, integer) IS
    'Number of points of the grid {w in Z^d : |w_j| <= B, ||w||^2 <= D2} that dp_expmech enumerates';

CREATE FUNCTION dpobj.glm_calibration(epsilon float8, delta float8, options jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpobj_glm_calibration'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.glm_calibration(float8, float8, jsonb) IS
    'The public calibration dp_logistic would use with these options (lambda, sigma, epsilon_prime, Delta)';

CREATE FUNCTION dpobj.analytic_gauss_sigma(epsilon float8, delta float8, sensitivity float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpobj_analytic_gauss_sigma'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.analytic_gauss_sigma(float8, float8, float8) IS
    'Gaussian mechanism scale: classical for epsilon <= 1, analytic (Balle & Wang 2018) above';

CREATE FUNCTION dpobj.noisysgd_sigma(epsilon float8, delta float8, n bigint, lipschitz float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpobj_noisysgd_sigma'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.noisysgd_sigma(float8, float8, bigint, float8) IS
    'Noisy SGD gradient noise sigma = sqrt(32 L^2 n^2 ln(n/delta) ln(1/delta)) / epsilon (Bassily et al. 2014, Algorithm 1)';

CREATE FUNCTION dpobj.opsamp_calibration(epsilon float8, delta float8, n bigint, d integer,
                                         r float8, beta float8, intercept boolean)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpobj_opsamp_calibration'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.opsamp_calibration(float8, float8, bigint, integer, float8, float8, boolean) IS
    'OPSamp calibration (G, gamma, m, eta, lambda) of Neel et al. 2020, Algorithm 2';

-- RSPM: the halfspace state, transition, combine and (de)serialise functions
-- (hsstate.c); a new final function.
CREATE FUNCTION dpobj.dp_halfspace_rspm_finalfn(internal)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_rspm_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_halfspace_rspm(features float8[], label boolean,
                                         epsilon float8, delta float8) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_halfspace_rspm_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    SERIALFUNC = dpobj.dp_halfspace_serialfn,
    DESERIALFUNC = dpobj.dp_halfspace_deserialfn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_halfspace_rspm(float8[], boolean, float8, float8) IS
    'RSPM (Neel et al. 2020, Algorithm 3): (epsilon, delta)-DP halfspace over {-1,0,1}^d, exact oracle, charged to dpobj.ledger';

CREATE AGGREGATE dpobj.dp_halfspace_rspm(features float8[], label boolean,
                                         epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_halfspace_rspm_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    SERIALFUNC = dpobj.dp_halfspace_serialfn,
    DESERIALFUNC = dpobj.dp_halfspace_deserialfn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_halfspace_rspm(float8[], boolean, float8, float8, jsonb) IS
    'RSPM with options {"Q", "oracle", "time_limit"}';

-- The exact exponential mechanism on small grids: the halfspace state too.
-- Final functions charge and draw noise (VOLATILE); they run only in the leader.
CREATE FUNCTION dpobj.dp_expmech_finalfn(internal)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_expmech_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_expmech(features float8[], label boolean,
                                  epsilon float8, delta float8) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_expmech_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    SERIALFUNC = dpobj.dp_halfspace_serialfn,
    DESERIALFUNC = dpobj.dp_halfspace_deserialfn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_expmech(float8[], boolean, float8, float8) IS
    'Exact exponential mechanism over the OPDisc grid (pure epsilon-DP, 0/1 loss, sensitivity 1); small grids only';

CREATE AGGREGATE dpobj.dp_expmech(features float8[], label boolean,
                                  epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_expmech_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_halfspace_combinefn,
    SERIALFUNC = dpobj.dp_halfspace_serialfn,
    DESERIALFUNC = dpobj.dp_halfspace_deserialfn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_expmech(float8[], boolean, float8, float8, jsonb) IS
    'Exact exponential mechanism with options {"B", "D2", "Q"}';

-- The continuous-weight mechanisms share one state (glmstate.c): clipped,
-- deduplicated rows; combine/serialise/deserialise for parallel plans.
CREATE FUNCTION dpobj.dp_glm_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpobj_glm_combine'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_glm_serial(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'dpobj_glm_serial'
LANGUAGE C STRICT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_glm_deserial(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpobj_glm_deserial'
LANGUAGE C STRICT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_logistic_transfn(internal, float8[], boolean, float8, float8, jsonb)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpobj_logistic_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_logistic_finalfn(internal)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_logistic_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_logistic(features float8[], label boolean,
                                   epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_logistic_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_logistic_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    SERIALFUNC = dpobj.dp_glm_serial,
    DESERIALFUNC = dpobj.dp_glm_deserial,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_logistic(float8[], boolean, float8, float8, jsonb) IS
    'L2-regularised logistic regression / Huber-SVM: Objective-Gauss, Output-Gauss or CMS objective perturbation; options {"R" (required), "method", "loss", "lambda", "intercept", "h"}';

CREATE FUNCTION dpobj.dp_noisysgd_transfn(internal, float8[], boolean, float8, float8, jsonb)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpobj_noisysgd_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_noisysgd_finalfn(internal)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_noisysgd_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_noisysgd(features float8[], label boolean,
                                   epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_noisysgd_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_noisysgd_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    SERIALFUNC = dpobj.dp_glm_serial,
    DESERIALFUNC = dpobj.dp_glm_deserial,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_noisysgd(float8[], boolean, float8, float8, jsonb) IS
    'Noisy projected SGD (Bassily et al. 2014, Algorithm 1); options {"R" (required), "loss", "intercept", "h", "T", "radius"}';

CREATE FUNCTION dpobj.dp_opsamp_transfn(internal, float8[], boolean, float8, float8, jsonb)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpobj_opsamp_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_opsamp_finalfn(internal)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_opsamp_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_opsamp(features float8[], label boolean,
                                 epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_opsamp_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_opsamp_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    SERIALFUNC = dpobj.dp_glm_serial,
    DESERIALFUNC = dpobj.dp_glm_deserial,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_opsamp(float8[], boolean, float8, float8, jsonb) IS
    'OPSamp (Neel et al. 2020, Algorithm 2) for the l1-clipped hinge loss scaled to [0, 1]; options {"R" (required), "intercept", "beta"}';

-- Class-1 probability of a logistic model.
CREATE FUNCTION dpobj.probability(m dpobj.model, features float8[])
RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    s float8;
BEGIN
    IF (m.params ->> 'loss') IS DISTINCT FROM 'logistic' THEN
        RAISE EXCEPTION 'dpobj.probability needs a logistic model'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Train with dpobj.dp_logistic or dpobj.dp_noisysgd and "loss": "logistic"; use dpobj.score for other models.';
    END IF;
    s := dpobj.score(m, features);
    s := greatest(-700.0, least(700.0, s));
    RETURN 1.0 / (1.0 + exp(-s));
END
$$;
COMMENT ON FUNCTION dpobj.probability(dpobj.model, float8[]) IS
    'P(label = true) = 1 / (1 + exp(-(<w, x> + bias))) under a logistic model';

--------------------------------------------------------------------------
-- Issue 6: training jobs (dpobj.submit / dpobj.cancel / dpobj.jobs).
-- Running jobs need shared_preload_libraries = 'dpobj' (src/jobs.c).
--------------------------------------------------------------------------

-- One row per submitted job.  Written only by dpobj's C code (as the
-- bootstrap superuser, fixed statements); analysts read their own rows
-- through the dpobj.jobs view.  Not extension configuration: pg_dump does
-- not carry jobs over (a restored queue would run jobs again).
CREATE TABLE dpobj.job_queue (
    id           bigserial PRIMARY KEY,
    owner        regrole NOT NULL,
    rel          regclass NOT NULL,
    mechanism    text NOT NULL,
    features     text[] NOT NULL,
    label        text NOT NULL,
    epsilon      numeric NOT NULL,
    delta        numeric NOT NULL,
    options      jsonb NOT NULL,
    state        text NOT NULL DEFAULT 'queued'
                 CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    submitted_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    started_at   timestamptz,
    finished_at  timestamptz,
    model        dpobj.model,
    error        text,
    sqlstate     text
);
COMMENT ON TABLE dpobj.job_queue IS
    'Training jobs submitted with dpobj.submit(); read them through dpobj.jobs';
CREATE INDEX job_queue_state_idx ON dpobj.job_queue (state, id)
    WHERE state IN ('queued', 'running');
REVOKE ALL ON dpobj.job_queue FROM PUBLIC;
REVOKE ALL ON SEQUENCE dpobj.job_queue_id_seq FROM PUBLIC;

CREATE FUNCTION dpobj.submit(rel regclass, mechanism text, features text[], label text,
                             epsilon numeric, delta numeric, options jsonb DEFAULT '{}')
RETURNS bigint
AS 'MODULE_PATHNAME', 'dpobj_submit'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.submit(regclass, text, text[], text, numeric, numeric, jsonb) IS
    'Queue dpobj.train(...) as a background job (same arguments and checks); returns the job id at once';

CREATE FUNCTION dpobj.cancel(job_id bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_cancel'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.cancel(bigint) IS
    'Cancel one of your jobs: a queued job never runs; a running solve stops within about a second (a charge already made stays)';

-- phase of a running job, for its owner only (NULL otherwise)
CREATE FUNCTION dpobj.job_phase(job_id bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'dpobj_job_phase'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION dpobj.job_phase(bigint) IS
    'Phase (starting, scanning, solving, releasing) of one of your running jobs; NULL otherwise';

-- The analyst's own jobs (superusers: all).  security_barrier: the owner
-- filter is applied before any function of the caller's query sees a row.
-- Progress is the phase and the elapsed time only: nothing data-dependent.
CREATE VIEW dpobj.jobs WITH (security_barrier) AS
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
       j.sqlstate
  FROM dpobj.job_queue j
 WHERE j.owner::oid IN (SELECT r.oid FROM pg_catalog.pg_roles r
                         WHERE pg_catalog.pg_has_role(current_user, r.oid, 'USAGE'))
    OR (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user);
COMMENT ON VIEW dpobj.jobs IS
    'Your training jobs: state, timestamps, phase and elapsed time, the model when done, the error when failed';
GRANT SELECT ON dpobj.jobs TO PUBLIC;
