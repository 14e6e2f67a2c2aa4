/* dpobj--0.5.0.sql — a fresh install of dpobj 0.5.0 (released 2026-11-27).
 *
 * Released: this file never changes; every later SQL change is an upgrade script
 * (dpobj--0.5.0--0.6.0.sql, ...).  It is dpobj--0.4.0.sql followed by the upgrade to 0.5.0
 * (dpobj--0.4.0--0.5.0.sql without its repeated schema check), statement for statement, so
 * that a fresh install and an updated database have the same catalog (tests/upgrade/ proves
 * it), with both schema checks first: nothing is created before dpobj knows that only
 * superusers control its schema and that it holds no other role's objects.  The install
 * scripts of 0.1.0 to 0.4.0 are no longer installed (the upgrade test builds those releases
 * from their commits); their upgrade scripts are, so a database on any of them updates with
 * ALTER EXTENSION dpobj UPDATE.
 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION dpobj" to load this file. \quit

--------------------------------------------------------------------------
-- 0. Only in a schema that superusers control (docs/SECURITY.md,
-- "Installation").  First on purpose: every later statement
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
        RAISE EXCEPTION 'dpobj refuses to install: its schema "dpobj" is not controlled by superusers only'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'The extension''s schema is not named dpobj, is owned by a role that is not a superuser, or such a role may create objects in it; that role could take over dpobj''s privileged code.',
                  HINT = 'A superuser must own schema dpobj (the extension''s own, under that name) and keep CREATE on it to superusers (docs/SECURITY.md, "Installation"), then install again.';
    END IF;
END
$$;

--------------------------------------------------------------------------
-- 0b. Only into a schema holding nothing but the extension's own objects.
-- CREATE EXTENSION also uses a schema dpobj that another role created and
-- filled before a superuser took it over (section 0 then passes): its
-- tables and functions would stay beside the extension's.  An object in the
-- schema must be a member of dpobj, or hang off one (a row type, an array
-- type, an index, a sequence owned by a column).  Here, before anything is
-- created, any object in the schema is another role's.
--------------------------------------------------------------------------
DO $$
DECLARE
    foreign_objects pg_catalog.text;
BEGIN
    WITH RECURSIVE ext AS (
        SELECT e.oid, e.extnamespace FROM pg_catalog.pg_extension e
         WHERE e.extname OPERATOR(pg_catalog.=) 'dpobj'),
    owned(classid, objid) AS (
        SELECT d.classid, d.objid FROM pg_catalog.pg_depend d, ext
         WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.refobjid OPERATOR(pg_catalog.=) ext.oid AND d.deptype OPERATOR(pg_catalog.=) 'e'
        UNION
        SELECT d.classid, d.objid FROM pg_catalog.pg_depend d
          JOIN owned o ON d.refclassid OPERATOR(pg_catalog.=) o.classid
                      AND d.refobjid OPERATOR(pg_catalog.=) o.objid
         WHERE d.deptype OPERATOR(pg_catalog.=) ANY ('{a,i}'::pg_catalog."char"[])),
    present(classid, objid) AS (
        SELECT 'pg_catalog.pg_class'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_class x, ext
         WHERE x.relnamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_type'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_type x, ext
         WHERE x.typnamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_proc'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_proc x, ext
         WHERE x.pronamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_operator'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_operator x, ext
         WHERE x.oprnamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_opclass'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_opclass x, ext
         WHERE x.opcnamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_opfamily'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_opfamily x, ext
         WHERE x.opfnamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_collation'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_collation x, ext
         WHERE x.collnamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_conversion'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_conversion x, ext
         WHERE x.connamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_statistic_ext x, ext
         WHERE x.stxnamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_ts_config'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_ts_config x, ext
         WHERE x.cfgnamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_ts_dict'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_ts_dict x, ext
         WHERE x.dictnamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_ts_parser'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_ts_parser x, ext
         WHERE x.prsnamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_ts_template'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_ts_template x, ext
         WHERE x.tmplnamespace OPERATOR(pg_catalog.=) ext.extnamespace
        UNION ALL SELECT 'pg_catalog.pg_extension'::pg_catalog.regclass, x.oid FROM pg_catalog.pg_extension x, ext
         WHERE x.extnamespace OPERATOR(pg_catalog.=) ext.extnamespace AND x.oid OPERATOR(pg_catalog.<>) ext.oid)
    SELECT pg_catalog.string_agg(i.type OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) i.identity, ', '
                                 ORDER BY i.type, i.identity)
      INTO foreign_objects
      FROM present p, pg_catalog.pg_identify_object(p.classid, p.objid, 0) i
     WHERE NOT EXISTS (SELECT 1 FROM owned o
                        WHERE o.classid OPERATOR(pg_catalog.=) p.classid
                          AND o.objid OPERATOR(pg_catalog.=) p.objid);
    IF foreign_objects IS NOT NULL THEN
        RAISE EXCEPTION 'dpobj refuses to install or update: schema "dpobj" holds objects that are not the extension''s'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = pg_catalog.format('Not the extension''s: %s.  Whoever made them may have made them to run as a superuser.', foreign_objects),
                  HINT = 'A superuser must inspect and drop them (or install into a new, empty schema dpobj), then try again (docs/SECURITY.md, "Installation").';
    END IF;
END
$$;



--------------------------------------------------------------------------
-- The 0.1.0 objects (as sql/dpobj--0.1.0.sql creates them)
--------------------------------------------------------------------------

/* dpobj--0.1.0.sql — differentially private model training inside PostgreSQL */


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
    -- the dpobj.budgets row a protected-path run was charged to
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

-- Parallel (and Citus) aggregation.  Workers build partial states,
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
-- (the security model is docs/SECURITY.md)
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
-- The mechanism family (docs/USAGE.md, one section each)
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
-- Training jobs (dpobj.submit / dpobj.cancel / dpobj.jobs).
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

--------------------------------------------------------------------------
-- The changes of 0.2.0 (as sql/dpobj--0.1.0--0.2.0.sql makes them)
--------------------------------------------------------------------------

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


--------------------------------------------------------------------------
-- 1. Aggregate state types (Citus partial aggregation; docs/SCALING.md)
--------------------------------------------------------------------------
--
-- Citus pushes a user aggregate down to the workers
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

-- 4a. Only into a schema that superusers control.
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

--------------------------------------------------------------------------
-- The changes of 0.3.0 (as sql/dpobj--0.2.0--0.3.0.sql makes them)
--------------------------------------------------------------------------

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

-- U1. Privacy units (docs/PRIVACY.md "Privacy units", docs/USAGE.md).
-- A table's owner names the column that identifies a person (the privacy
-- unit) and the most rows k one unit may contribute; every run on the
-- table then keeps at most k rows per unit inside the sealed query
-- (rows with a NULL unit are dropped) and calibrates its noise for
-- neighbours that differ in all rows of one unit.  The column is recorded
-- by name, number and type: a run refuses (free, before the charge) once
-- the column no longer matches, until the owner calls protect() again.
--------------------------------------------------------------------------
ALTER TABLE dpobj.protected_tables
    ADD COLUMN privacy_unit name,
    ADD COLUMN unit_attnum smallint,
    ADD COLUMN unit_type regtype,
    ADD COLUMN max_rows_per_unit integer,
    ADD CONSTRAINT protected_tables_unit_check CHECK (
        (privacy_unit IS NULL AND unit_attnum IS NULL AND unit_type IS NULL
         AND max_rows_per_unit IS NULL)
        OR (privacy_unit IS NOT NULL AND unit_attnum IS NOT NULL AND unit_type IS NOT NULL
            AND max_rows_per_unit BETWEEN 1 AND 10000));
COMMENT ON COLUMN dpobj.protected_tables.privacy_unit IS
    'The column identifying a privacy unit (a person); NULL: every row is its own unit (row level)';
COMMENT ON COLUMN dpobj.protected_tables.max_rows_per_unit IS
    'k: a run keeps at most k rows per unit and is calibrated for k changed rows';

CREATE FUNCTION dpobj.protect(rel regclass, privacy_unit text, max_rows_per_unit integer)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_protect_unit'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.protect(regclass, text, integer) IS
    'Owner or dpobj_admin: protect the table with a privacy unit column; every run keeps at most max_rows_per_unit rows per unit and is calibrated for them (true if the protection changed)';

-- The contribution bounding inside the sealed run, in two scans of the
-- selected rows and no sort: unit_counts() counts each unit's rows and
-- returns a handle to the counts, unit_keep() then keeps a uniformly random
-- k of each unit's rows (selection sampling), with random bits independent
-- of every row, so which rows a unit keeps depends on that unit's rows only
CREATE FUNCTION dpobj.unit_counts_sfunc(internal, anyelement, bigint)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpobj_unit_counts_sfunc'
LANGUAGE C VOLATILE;
CREATE FUNCTION dpobj.unit_counts_final(internal)
RETURNS bigint
AS 'MODULE_PATHNAME', 'dpobj_unit_counts_final'
LANGUAGE C VOLATILE;
CREATE AGGREGATE dpobj.unit_counts(unit anyelement, k bigint) (
    SFUNC = dpobj.unit_counts_sfunc,
    STYPE = internal,
    FINALFUNC = dpobj.unit_counts_final
);
COMMENT ON AGGREGATE dpobj.unit_counts(anyelement, bigint) IS
    'Internal: counts the rows of each privacy unit for dpobj.unit_keep() in the same query, which keeps k of them; returns a handle';
CREATE FUNCTION dpobj.unit_keep(unit anyelement, counts bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_unit_keep'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION dpobj.unit_keep(anyelement, bigint) IS
    'Internal: whether this row is one of the k random rows its privacy unit keeps (after dpobj.unit_counts() over the same rows)';

-- The level of each charged run, from the protection the run read (train()
-- holds that row FOR SHARE until its transaction ends, so protect() cannot
-- change it in between).  NULL for row-level and direct runs.
ALTER TABLE dpobj.ledger
    ADD COLUMN privacy_unit name,
    ADD COLUMN rows_per_unit integer;
COMMENT ON COLUMN dpobj.ledger.rows_per_unit IS
    'k of the table''s privacy unit when the run was charged (NULL: row level)';

CREATE FUNCTION dpobj.ledger_set_unit()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.privacy_unit := NULL;
    NEW.rows_per_unit := NULL;
    IF NEW.budget_id IS NOT NULL THEN
        SELECT p.privacy_unit, p.max_rows_per_unit
          INTO NEW.privacy_unit, NEW.rows_per_unit
          FROM dpobj.budgets b JOIN dpobj.protected_tables p ON p.relid = b.relid
         WHERE b.id = NEW.budget_id;
    END IF;
    RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION dpobj.ledger_set_unit() FROM PUBLIC;
CREATE TRIGGER ledger_unit
    BEFORE INSERT ON dpobj.ledger
    FOR EACH ROW EXECUTE FUNCTION dpobj.ledger_set_unit();

-- a stored model says at which level it was trained (from its ledger row)
ALTER TABLE dpobj.models
    ADD COLUMN privacy_unit name,
    ADD COLUMN rows_per_unit integer;
COMMENT ON COLUMN dpobj.models.rows_per_unit IS
    'k of the privacy unit the training run was calibrated for (NULL: row level, or a saved model)';

CREATE FUNCTION dpobj.models_set_unit()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.privacy_unit := NULL;
    NEW.rows_per_unit := NULL;
    IF NEW.ledger_id IS NOT NULL THEN
        SELECT l.privacy_unit, l.rows_per_unit
          INTO NEW.privacy_unit, NEW.rows_per_unit
          FROM dpobj.ledger l WHERE l.id = NEW.ledger_id;
    END IF;
    RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION dpobj.models_set_unit() FROM PUBLIC;
CREATE TRIGGER models_unit
    BEFORE INSERT OR UPDATE ON dpobj.models
    FOR EACH ROW EXECUTE FUNCTION dpobj.models_set_unit();

-- an analyst's budgets say at which level the table is protected
CREATE OR REPLACE VIEW dpobj.my_budgets WITH (security_barrier = true) AS
SELECT b.relid AS relation,
       b.granted_epsilon, b.granted_delta,
       b.spent_epsilon, b.spent_delta,
       b.granted_epsilon - b.spent_epsilon AS remaining_epsilon,
       b.granted_delta - b.spent_delta AS remaining_delta,
       p.privacy_unit,
       p.max_rows_per_unit
  FROM dpobj.budgets b
  JOIN dpobj.protected_tables p ON p.relid = b.relid
 WHERE b.rolid::oid = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user);

-- S3. The release deadline of protected runs (docs/SECURITY.md, "Run
-- time").  The outcome of train()/submit()/evaluate() on a protected table
-- comes no sooner than the call's start plus the larger of the table
-- owner's floor (here) and the analyst's "deadline" option, so its run
-- time does not show.  The floor is public (visible wherever the
-- protection is); dpobj.protect() keeps its signature and sets 0 (none).
--------------------------------------------------------------------------
ALTER TABLE dpobj.protected_tables
    ADD COLUMN release_deadline double precision NOT NULL DEFAULT 0
    CONSTRAINT protected_tables_release_deadline_check
        CHECK (release_deadline >= 0 AND release_deadline <= 86400);
COMMENT ON COLUMN dpobj.protected_tables.release_deadline IS
    'Seconds from the start of a protected run before its outcome is released (floor; 0 = none); set with dpobj.set_release_deadline()';

CREATE FUNCTION dpobj.set_release_deadline(rel regclass, seconds double precision)
RETURNS double precision
AS 'MODULE_PATHNAME', 'dpobj_set_release_deadline'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.set_release_deadline(regclass, double precision) IS
    'Owner (or dpobj_admin, raising only): the floor of the release deadline of every protected run on the table, in seconds (0 = none)';

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

--------------------------------------------------------------------------
-- Z1. The zCDP accountant (docs/PRIVACY.md, "Composition: the zCDP
-- filter"; src/protected/accountant.c).  Every run records the form of its
-- cost: kind 'zcdp' (a Gaussian release calibrated in zero-concentrated DP:
-- rho, the level its calibration used, rounded up), 'pure' (epsilon-DP:
-- rho = epsilon^2 / 2, rounded up) or 'approx' ((epsilon, delta)-DP only);
-- the analyst-facing (epsilon, delta) stays in epsilon and delta.  A
-- budget stays (epsilon, delta); its spend is a linear part (spent_epsilon,
-- spent_delta: the runs counted as (epsilon, delta)) and spent_rho (the
-- runs counted by rho), and a run is admitted when the composed total fits
-- (dpobj.budget_admits).  Rows of 0.1.0 and 0.2.0 are approximate-DP rows
-- counted linearly, which is exactly how they were charged.
--------------------------------------------------------------------------
ALTER TABLE dpobj.ledger
    ADD COLUMN kind text NOT NULL DEFAULT 'approx'
        CONSTRAINT ledger_kind_check CHECK (kind IN ('approx', 'pure', 'zcdp')),
    ADD COLUMN rho numeric
        CONSTRAINT ledger_rho_check CHECK (rho > 0 AND rho < 'Infinity'),
    ADD COLUMN accounted text DEFAULT 'linear'
        CONSTRAINT ledger_accounted_check CHECK (accounted IN ('linear', 'rho')),
    ADD CONSTRAINT ledger_kind_rho_check CHECK ((kind = 'approx') = (rho IS NULL));
-- new rows name their kind and how they were counted (NULL: no budget)
ALTER TABLE dpobj.ledger ALTER COLUMN kind DROP DEFAULT;
ALTER TABLE dpobj.ledger ALTER COLUMN accounted DROP DEFAULT;
-- direct runs of 0.1.0 and 0.2.0 were charged to no budget (the
-- append-only triggers are off for this one statement of the update)
ALTER TABLE dpobj.ledger DISABLE TRIGGER ledger_append_only;
ALTER TABLE dpobj.ledger DISABLE TRIGGER ledger_rolid;
UPDATE dpobj.ledger SET accounted = NULL WHERE budget_id IS NULL;
ALTER TABLE dpobj.ledger ENABLE TRIGGER ledger_append_only;
ALTER TABLE dpobj.ledger ENABLE TRIGGER ledger_rolid;
COMMENT ON COLUMN dpobj.ledger.kind IS
    'Form of the run''s privacy cost: zcdp (calibrated in zero-concentrated DP, cost rho), pure (epsilon-DP, rho = epsilon^2/2) or approx ((epsilon, delta)-DP only)';
COMMENT ON COLUMN dpobj.ledger.rho IS
    'zCDP cost of a zcdp or pure run (rounded up); NULL for approx';
COMMENT ON COLUMN dpobj.ledger.accounted IS
    'How the run counts against its budget: linear ((epsilon, delta) summed) or rho (summed, composed in zCDP); NULL for a run charged to no budget';

-- The ledger stays append-only for the new columns too (the privacy
-- unit columns of U1 included).
CREATE OR REPLACE FUNCTION dpobj.ledger_guard()
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
       OR NEW.relation IS DISTINCT FROM OLD.relation OR NEW.budget_id IS DISTINCT FROM OLD.budget_id
       OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.rho IS DISTINCT FROM OLD.rho
       OR NEW.accounted IS DISTINCT FROM OLD.accounted
       OR NEW.privacy_unit IS DISTINCT FROM OLD.privacy_unit
       OR NEW.rows_per_unit IS DISTINCT FROM OLD.rows_per_unit THEN
        RAISE EXCEPTION 'dpobj.ledger is append-only'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Only the outcome of a charged run can be recorded, once.';
    END IF;
    RETURN NEW;
END
$$;

-- spent_epsilon / spent_delta: the sum over the budget's rows accounted
-- 'linear'; spent_rho: the sum of rho over its rows accounted 'rho'.
ALTER TABLE dpobj.budgets
    ADD COLUMN spent_rho numeric NOT NULL DEFAULT 0
        CONSTRAINT budgets_spent_rho_check CHECK (spent_rho >= 0 AND spent_rho < 'Infinity');
COMMENT ON COLUMN dpobj.budgets.spent_rho IS
    'zCDP part of the spend: the sum of rho over the runs counted by rho (the linear part is spent_epsilon, spent_delta)';

-- The accountant's arithmetic (C, rounding against the analyst).  They
-- depend on their arguments only.
CREATE FUNCTION dpobj.zcdp_epsilon(rho numeric, delta numeric)
RETURNS numeric
AS 'MODULE_PATHNAME', 'dpobj_zcdp_epsilon'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.zcdp_epsilon(numeric, numeric) IS
    'An upper bound on the epsilon that rho-zCDP guarantees at delta (Renyi conversion, rounded up); 0 for rho = 0, NULL when delta is not in (0, 1)';

CREATE FUNCTION dpobj.budget_admits(granted_epsilon numeric, granted_delta numeric,
                                    spent_epsilon numeric, spent_delta numeric,
                                    spent_rho numeric, kind text,
                                    epsilon numeric, delta numeric, rho numeric)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_budget_admits'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.budget_admits(numeric, numeric, numeric, numeric, numeric, text, numeric, numeric, numeric) IS
    'The admission rule: does one more run of this kind and cost fit a budget with this spend (docs/PRIVACY.md)';

CREATE FUNCTION dpobj.budget_remaining_epsilon(granted_epsilon numeric, granted_delta numeric,
                                               spent_epsilon numeric, spent_delta numeric,
                                               spent_rho numeric)
RETURNS numeric
AS 'MODULE_PATHNAME', 'dpobj_budget_remaining_epsilon'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.budget_remaining_epsilon(numeric, numeric, numeric, numeric, numeric) IS
    'Epsilon still available at the budget''s delta under the accountant';

-- The odometer: remaining epsilon at the budget's delta under the
-- accountant, the spend's zCDP part, and whether approximate-DP runs are
-- still admitted.  spent_epsilon is now the composed spend at the granted
-- delta (linear part + the zCDP part converted at the delta left to it).
CREATE OR REPLACE VIEW dpobj.my_budgets WITH (security_barrier = true) AS
SELECT b.relid AS relation,
       b.granted_epsilon, b.granted_delta,
       b.spent_epsilon OPERATOR(pg_catalog.+)
         COALESCE(dpobj.zcdp_epsilon(b.spent_rho, b.granted_delta OPERATOR(pg_catalog.-) b.spent_delta),
                  b.granted_epsilon OPERATOR(pg_catalog.-) b.spent_epsilon) AS spent_epsilon,
       b.spent_delta,
       dpobj.budget_remaining_epsilon(b.granted_epsilon, b.granted_delta, b.spent_epsilon,
                                      b.spent_delta, b.spent_rho) AS remaining_epsilon,
       b.granted_delta OPERATOR(pg_catalog.-) b.spent_delta AS remaining_delta,
       p.privacy_unit,
       p.max_rows_per_unit,
       b.spent_rho,
       b.spent_rho OPERATOR(pg_catalog.=) 0 AS approx_admitted
  FROM dpobj.budgets b
  JOIN dpobj.protected_tables p ON p.relid OPERATOR(pg_catalog.=) b.relid
 WHERE b.rolid::pg_catalog.oid OPERATOR(pg_catalog.=)
       (SELECT oid FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) CURRENT_USER);
COMMENT ON VIEW dpobj.my_budgets IS
    'The current role''s privacy budgets: granted, spent (composed by the accountant) and remaining (epsilon, delta) per table, the zCDP part rho, and whether approximate-DP runs are still admitted';

-- How many more runs of a mechanism at (epsilon, delta) the caller's
-- budget admits, by the admission rule itself, before spending anything.
CREATE FUNCTION dpobj.runs_left(rel regclass, mechanism text, epsilon numeric,
                                delta numeric, options jsonb DEFAULT '{}')
RETURNS bigint
AS 'MODULE_PATHNAME', 'dpobj_runs_left'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.runs_left(regclass, text, numeric, numeric, jsonb) IS
    'How many more dpobj.train() runs of this mechanism at (epsilon, delta) your budget on the table admits (the accountant''s rule; nothing is charged)';

-- L3. Private evaluation of a one-vs-rest multi-class model: the text-label
-- overload of dp_evaluate (src/mechanisms/evalmc.c, docs/PRIVACY.md
-- "Private evaluation of a multi-class model"): the K x K confusion counts
-- (true x predicted class, in the model's declared class order) with
-- exact discrete Laplace noise, and accuracy, macro recall and per-class
-- recall and precision with noise-aware 95 % intervals.  dpobj.evaluate()
-- runs it when its model is multi-class (params "classes").
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.dp_evaluate_multiclass_transfn(float8[], float8[], text, float8, float8, jsonb)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpobj_evalmc_transfn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_evaluate_multiclass_combinefn(float8[], float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpobj_evalmc_combinefn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_evaluate_multiclass_finalfn(float8[])
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpobj_evalmc_finalfn'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE dpobj.dp_evaluate(features float8[], label text,
                                   epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_evaluate_multiclass_transfn,
    STYPE = float8[],
    FINALFUNC = dpobj.dp_evaluate_multiclass_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_evaluate_multiclass_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_evaluate(float8[], text, float8, float8, jsonb) IS
    'DP evaluation of a multi-class model (options {"model": m::text}): the K x K confusion counts with discrete Laplace noise, accuracy, macro recall, per-class recall and precision with noise-aware 95% intervals';
COMMENT ON FUNCTION dpobj.evaluate(regclass, dpobj.model, text[], text, numeric, numeric, jsonb) IS
    'Evaluate a model on a protected table without reading it, charged to the caller''s budget like dpobj.train(): a DP confusion matrix for a classifier or a multi-class model, DP MAE/RMSE/R^2 for a linear regression model (options: "filter")';

--------------------------------------------------------------------------
-- D1. Public feature domains (src/protected/domains.c, src/model/encode.c;
-- docs/USAGE.md "Features from declared domains", docs/PRIVACY.md
-- "Encoded features").  The table's owner declares, per column, its
-- categories (one-hot with a final "other" level for anything not listed,
-- NULL included) or its range (clipped and scaled to [-1, 1]); train(),
-- submit() and evaluate() then encode raw columns in the sealed query from
-- the declarations alone, R follows from them, and the released model
-- records its encoding so that dpobj.predict_raw() takes raw values.
--------------------------------------------------------------------------
CREATE TABLE dpobj.feature_domains (
    relid regclass NOT NULL,
    column_name name NOT NULL,
    levels text[],
    lo double precision,
    hi double precision,
    declared_by name NOT NULL,
    declared_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (relid, column_name),
    CONSTRAINT feature_domains_kind CHECK (
        (levels IS NOT NULL AND lo IS NULL AND hi IS NULL)
        OR (levels IS NULL AND lo IS NOT NULL AND hi IS NOT NULL AND lo < hi))
);
COMMENT ON TABLE dpobj.feature_domains IS
    'Public feature domains declared by a table''s owner (dpobj.declare_domain): categorical levels or numeric bounds; never read from the data';
SELECT pg_catalog.pg_extension_config_dump('dpobj.feature_domains', '');
REVOKE ALL ON dpobj.feature_domains FROM PUBLIC;
GRANT SELECT ON dpobj.feature_domains TO PUBLIC;
ALTER TABLE dpobj.feature_domains ENABLE ROW LEVEL SECURITY;
-- who may see a table's domains: its administrators, analysts with a
-- budget on it, and roles that can read it anyway
CREATE POLICY feature_domains_visible ON dpobj.feature_domains
    FOR SELECT USING (dpobj.can_administer(relid)
                      OR EXISTS (SELECT 1 FROM dpobj.budgets b
                                  WHERE b.relid OPERATOR(pg_catalog.=) feature_domains.relid)
                      OR pg_catalog.has_table_privilege(relid::pg_catalog.oid, 'SELECT'));

CREATE FUNCTION dpobj.declare_domain(rel regclass, column_name name, levels text[])
RETURNS void
AS 'MODULE_PATHNAME', 'dpobj_declare_domain_levels'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.declare_domain(regclass, name, text[]) IS
    'Owner (or dpobj_admin): declare a column''s public categories; one-hot encoded with a final "other" level (unlisted values and NULL); replaces an earlier declaration';

CREATE FUNCTION dpobj.declare_domain(rel regclass, column_name name,
                                     lo double precision, hi double precision)
RETURNS void
AS 'MODULE_PATHNAME', 'dpobj_declare_domain_bounds'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.declare_domain(regclass, name, double precision, double precision) IS
    'Owner (or dpobj_admin): declare a column''s public range; values are clipped to [lo, hi] and scaled to [-1, 1] (NULL or NaN: the row is dropped); replaces an earlier declaration';

CREATE FUNCTION dpobj.drop_domain(rel regclass, column_name name)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_drop_domain'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.drop_domain(regclass, name) IS
    'Owner (or dpobj_admin): forget a column''s declared domain (true if there was one); stored models keep the encoding they record';

-- one encoded row; train()'s sealed query calls it, it raises no error
-- that depends on a value
CREATE FUNCTION dpobj.encode_features(encoding jsonb, categorical text[], numbers double precision[])
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'dpobj_encode_features'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.encode_features(jsonb, text[], double precision[]) IS
    'One row under an encoding (as a model''s params->''encoding''): categorical values as text, numeric values as float8, in the encoding''s order';

CREATE FUNCTION dpobj.encode(m dpobj.model, raw jsonb)
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'dpobj_encode'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.encode(dpobj.model, jsonb) IS
    'The features of raw values {"column": value, ...} under the model''s recorded encoding (other keys are ignored)';

-- raw values: new names, since a jsonb overload of predict/score would make
-- the existing calls with an untyped '{1,2}' literal ambiguous
CREATE FUNCTION dpobj.predict_raw(m dpobj.model, raw jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict($1, dpobj.encode($1, $2)) $$;
COMMENT ON FUNCTION dpobj.predict_raw(dpobj.model, jsonb) IS
    'dpobj.predict on raw values {"column": value, ...} (e.g. to_jsonb(row)) of a model trained on declared domains';
CREATE FUNCTION dpobj.score_raw(m dpobj.model, raw jsonb)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.score($1, dpobj.encode($1, $2)) $$;
COMMENT ON FUNCTION dpobj.score_raw(dpobj.model, jsonb) IS
    'dpobj.score on raw values of a model trained on declared domains';
CREATE FUNCTION dpobj.predict_class_raw(m dpobj.model, raw jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict_class($1, dpobj.encode($1, $2)) $$;
COMMENT ON FUNCTION dpobj.predict_class_raw(dpobj.model, jsonb) IS
    'dpobj.predict_class on raw values of a multi-class model trained on declared domains';
CREATE FUNCTION dpobj.predict_raw(name text, raw jsonb)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict_raw(dpobj.get_model($1), $2) $$;
COMMENT ON FUNCTION dpobj.predict_raw(text, jsonb) IS
    'The prediction of your stored model of this name on raw values';
CREATE FUNCTION dpobj.score_raw(name text, raw jsonb)
RETURNS double precision
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.score_raw(dpobj.get_model($1), $2) $$;
COMMENT ON FUNCTION dpobj.score_raw(text, jsonb) IS
    'The margin of your stored model of this name on raw values';
CREATE FUNCTION dpobj.predict_class_raw(name text, raw jsonb)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict_class_raw(dpobj.get_model($1), $2) $$;
COMMENT ON FUNCTION dpobj.predict_class_raw(text, jsonb) IS
    'The class of your stored multi-class model of this name on raw values';

-- A dropped table's declarations go with it (as its protection and
-- budgets do), and so do a dropped column's: S1's function, plus that.
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
    DELETE FROM dpobj.feature_domains f
     USING pg_catalog.pg_event_trigger_dropped_objects() o
     WHERE o.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
       AND f.relid::pg_catalog.oid = o.objid
       AND (o.objsubid = 0 OR f.column_name = o.address_names[3]);
END
$$;

-- A1. Private model selection (src/mechanisms/glmauto.c, docs/PRIVACY.md
-- "Private model selection (auto)"): dp_auto on dpobj.glm_state chooses
-- among dp_logistic's methods and dp_noisysgd under one charge; train()'s
-- mechanism 'auto'.

CREATE FUNCTION dpobj.dp_auto_transfn(dpobj.glm_state, float8[], boolean, float8, float8, jsonb)
RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_auto_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_auto_finalfn(dpobj.glm_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_auto_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_auto(features float8[], label boolean,
                               epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_auto_transfn,
    STYPE = dpobj.glm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_auto_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_auto(float8[], boolean, float8, float8, jsonb) IS
    'Private model selection among dp_logistic''s methods and dp_noisysgd (random partition, report noisy max, retrain the choice), one charge of (epsilon, delta); options {"R" (required), "loss", "intercept", "h", "class_weight", "select_share"}';

--------------------------------------------------------------------------
-- B1. Budget domains (src/protected/budgetdomains.c; docs/PRIVACY.md
-- "Budget domains", docs/USAGE.md).  Tables whose privacy unit columns
-- identify the same people share one budget per role: the data owner
-- creates a named domain and puts unit-protected tables into it; budgets
-- are then granted per (domain, role), and a run on any member table is
-- admitted against and charged to that one budget (the same accountant,
-- the same guarded debit in the ledger writer).  A member table has no
-- budgets of its own.  A budget row of dpobj.budgets is either a table's
-- (relid) or a domain's (budget_domain), and a ledger row names the
-- domain its budget belongs to.
--------------------------------------------------------------------------
CREATE TABLE dpobj.budget_domains (
    name name PRIMARY KEY,
    owner regrole NOT NULL,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp()
);
COMMENT ON TABLE dpobj.budget_domains IS
    'Budget domains (dpobj.create_budget_domain): tables holding the same people share one privacy budget per role';
COMMENT ON COLUMN dpobj.budget_domains.owner IS
    'The role that created the domain; it (and dpobj_admin members) grant the domain''s budgets';
SELECT pg_catalog.pg_extension_config_dump('dpobj.budget_domains', '');
-- the names and owners are public, as table names are; which tables are
-- members and who has a budget stay behind the RLS of protected_tables
-- and budgets
REVOKE ALL ON dpobj.budget_domains FROM PUBLIC;
GRANT SELECT ON dpobj.budget_domains TO PUBLIC;

CREATE FUNCTION dpobj.can_administer_domain(budget_domain name)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (SELECT 1 FROM dpobj.budget_domains d
                    WHERE d.name = budget_domain
                      AND pg_catalog.pg_has_role(current_user, d.owner::pg_catalog.oid, 'USAGE'))
        OR EXISTS (SELECT 1 FROM pg_catalog.pg_roles r
                    WHERE r.rolname = 'dpobj_admin'
                      AND pg_catalog.pg_has_role(current_user, r.oid, 'USAGE'))
$$;
COMMENT ON FUNCTION dpobj.can_administer_domain(name) IS
    'true if the current role has the privileges of the budget domain''s owner or is a member of dpobj_admin';

-- membership: only a table with a privacy unit joins a domain
ALTER TABLE dpobj.protected_tables
    ADD COLUMN budget_domain name REFERENCES dpobj.budget_domains (name),
    ADD CONSTRAINT protected_tables_domain_unit_check
        CHECK (budget_domain IS NULL OR privacy_unit IS NOT NULL);
COMMENT ON COLUMN dpobj.protected_tables.budget_domain IS
    'The budget domain the table belongs to (dpobj.set_budget_domain): its runs are charged to the domain''s budgets; NULL: the table''s own';
CREATE INDEX protected_tables_domain_idx ON dpobj.protected_tables (budget_domain)
    WHERE budget_domain IS NOT NULL;

-- a budget is a table's or a domain's
ALTER TABLE dpobj.budgets
    ALTER COLUMN relid DROP NOT NULL,
    ADD COLUMN budget_domain name REFERENCES dpobj.budget_domains (name),
    ADD CONSTRAINT budgets_one_target_check CHECK ((relid IS NULL) <> (budget_domain IS NULL)),
    ADD CONSTRAINT budgets_budget_domain_rolid_key UNIQUE (budget_domain, rolid);
COMMENT ON COLUMN dpobj.budgets.budget_domain IS
    'The budget domain of a domain budget (relid is then NULL): every member table''s runs are charged to it';

-- the one budget a run of analyst on rel is admitted against and charged
-- to: the domain's if rel is a member, else the table's own (train()'s
-- pre-check, dpobj.runs_left and the ledger writer's debit all use it)
CREATE FUNCTION dpobj.budget_for(rel regclass, analyst regrole)
RETURNS bigint
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT b.id FROM dpobj.protected_tables p
      JOIN dpobj.budgets b
        ON CASE WHEN p.budget_domain IS NULL THEN b.relid = p.relid
                ELSE b.budget_domain = p.budget_domain END
     WHERE p.relid = rel AND b.rolid = analyst
$$;
REVOKE ALL ON FUNCTION dpobj.budget_for(regclass, regrole) FROM PUBLIC;
COMMENT ON FUNCTION dpobj.budget_for(regclass, regrole) IS
    'Internal: the dpobj.budgets row a run of the role on the table is charged to (its domain''s, or the table''s own)';

-- who sees what: a domain budget is visible to its analyst and the
-- domain's administrators; a member table's protection (and its declared
-- feature domains) to analysts with a budget on the domain
ALTER POLICY budgets_visible ON dpobj.budgets
    USING (rolid::pg_catalog.oid OPERATOR(pg_catalog.=)
               (SELECT oid FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) CURRENT_USER)
           OR (relid IS NOT NULL AND dpobj.can_administer(relid))
           OR (budget_domain IS NOT NULL AND dpobj.can_administer_domain(budget_domain)));
ALTER POLICY protected_visible ON dpobj.protected_tables
    USING (dpobj.can_administer(relid)
           OR EXISTS (SELECT 1 FROM dpobj.budgets b
                       WHERE b.relid OPERATOR(pg_catalog.=) protected_tables.relid
                          OR b.budget_domain OPERATOR(pg_catalog.=) protected_tables.budget_domain)
           OR (budget_domain IS NOT NULL AND dpobj.can_administer_domain(budget_domain)));
ALTER POLICY feature_domains_visible ON dpobj.feature_domains
    USING (dpobj.can_administer(relid)
           OR EXISTS (SELECT 1 FROM dpobj.budgets b
                       WHERE b.relid OPERATOR(pg_catalog.=) feature_domains.relid)
           OR EXISTS (SELECT 1 FROM dpobj.budgets b
                        JOIN dpobj.protected_tables p
                          ON p.budget_domain OPERATOR(pg_catalog.=) b.budget_domain
                       WHERE p.relid OPERATOR(pg_catalog.=) feature_domains.relid)
           OR pg_catalog.has_table_privilege(relid::pg_catalog.oid, 'SELECT'));

-- the ledger names the domain a run was charged to (from its budget, as
-- rolid), and the privacy unit of the member table the run read
ALTER TABLE dpobj.ledger ADD COLUMN budget_domain name;
COMMENT ON COLUMN dpobj.ledger.budget_domain IS
    'The budget domain whose budget the run was charged to (NULL: the table''s own budget, or none); relation is the member table it read';

CREATE OR REPLACE FUNCTION dpobj.ledger_set_unit()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    domain_name name;
    table_relid regclass;
BEGIN
    NEW.privacy_unit := NULL;
    NEW.rows_per_unit := NULL;
    NEW.budget_domain := NULL;
    IF NEW.budget_id IS NOT NULL THEN
        SELECT b.budget_domain, b.relid INTO domain_name, table_relid
          FROM dpobj.budgets b WHERE b.id = NEW.budget_id;
        IF domain_name IS NOT NULL THEN
            -- the member table the run read (train() holds its lock and
            -- its protection row until the run ends)
            table_relid := pg_catalog.to_regclass(NEW.relation);
        END IF;
        NEW.budget_domain := domain_name;
        SELECT p.privacy_unit, p.max_rows_per_unit
          INTO NEW.privacy_unit, NEW.rows_per_unit
          FROM dpobj.protected_tables p
         WHERE p.relid = table_relid
           AND p.budget_domain IS NOT DISTINCT FROM domain_name;
    END IF;
    RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION dpobj.ledger_guard()
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
       OR NEW.relation IS DISTINCT FROM OLD.relation OR NEW.budget_id IS DISTINCT FROM OLD.budget_id
       OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.rho IS DISTINCT FROM OLD.rho
       OR NEW.accounted IS DISTINCT FROM OLD.accounted
       OR NEW.privacy_unit IS DISTINCT FROM OLD.privacy_unit
       OR NEW.rows_per_unit IS DISTINCT FROM OLD.rows_per_unit OR NEW.budget_domain IS DISTINCT FROM OLD.budget_domain THEN
        RAISE EXCEPTION 'dpobj.ledger is append-only'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Only the outcome of a charged run can be recorded, once.';
    END IF;
    RETURN NEW;
END
$$;

-- an analyst's budgets: a domain budget is one row (relation NULL), with
-- the domain and its member tables
CREATE OR REPLACE VIEW dpobj.my_budgets WITH (security_barrier = true) AS
SELECT b.relid AS relation,
       b.granted_epsilon, b.granted_delta,
       b.spent_epsilon OPERATOR(pg_catalog.+)
         COALESCE(dpobj.zcdp_epsilon(b.spent_rho, b.granted_delta OPERATOR(pg_catalog.-) b.spent_delta),
                  b.granted_epsilon OPERATOR(pg_catalog.-) b.spent_epsilon) AS spent_epsilon,
       b.spent_delta,
       dpobj.budget_remaining_epsilon(b.granted_epsilon, b.granted_delta, b.spent_epsilon,
                                      b.spent_delta, b.spent_rho) AS remaining_epsilon,
       b.granted_delta OPERATOR(pg_catalog.-) b.spent_delta AS remaining_delta,
       p.privacy_unit,
       p.max_rows_per_unit,
       b.spent_rho,
       b.spent_rho OPERATOR(pg_catalog.=) 0 AS approx_admitted,
       b.budget_domain,
       CASE WHEN b.budget_domain IS NOT NULL THEN
         ARRAY(SELECT m.relid FROM dpobj.protected_tables m
                WHERE m.budget_domain OPERATOR(pg_catalog.=) b.budget_domain
                ORDER BY m.relid::pg_catalog.text) END AS domain_tables
  FROM dpobj.budgets b
  LEFT JOIN dpobj.protected_tables p ON p.relid OPERATOR(pg_catalog.=) b.relid
 WHERE b.rolid::pg_catalog.oid OPERATOR(pg_catalog.=)
       (SELECT oid FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) CURRENT_USER);
COMMENT ON VIEW dpobj.my_budgets IS
    'The current role''s privacy budgets: granted, spent (composed by the accountant) and remaining (epsilon, delta) per table or budget domain, the zCDP part rho, and whether approximate-DP runs are still admitted';

-- the entry points (C; the caller's identity decides, as for budgets)
CREATE FUNCTION dpobj.create_budget_domain(budget_domain name)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_create_budget_domain'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.create_budget_domain(name) IS
    'Create a budget domain owned by the current role (true if it was created)';

CREATE FUNCTION dpobj.drop_budget_domain(budget_domain name)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_drop_budget_domain'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.drop_budget_domain(name) IS
    'Domain owner or superuser: drop an empty budget domain with its budgets; the ledger keeps every charge (true if it existed)';

CREATE FUNCTION dpobj.set_budget_domain(rel regclass, budget_domain name)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_set_budget_domain'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.set_budget_domain(regclass, name) IS
    'Table owner (administering the domain): put a table with a privacy unit into a budget domain, or take it out (NULL) (true if its membership changed)';

CREATE FUNCTION dpobj.grant_domain_budget(budget_domain name, analyst regrole,
                                          epsilon numeric, delta numeric)
RETURNS dpobj.budgets
AS 'MODULE_PATHNAME', 'dpobj_grant_domain_budget'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.grant_domain_budget(name, regrole, numeric, numeric) IS
    'Domain owner or dpobj_admin: add (epsilon, delta) to the role''s budget on a budget domain, charged by runs on every member table';

CREATE FUNCTION dpobj.revoke_domain_budget(budget_domain name, analyst regrole)
RETURNS dpobj.budgets
AS 'MODULE_PATHNAME', 'dpobj_revoke_domain_budget'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.revoke_domain_budget(name, regrole) IS
    'Domain owner or dpobj_admin: take back the unspent rest of the role''s budget on a budget domain';

-- protect() joins a domain in the same call (the table's owner only)
DROP FUNCTION dpobj.protect(regclass, text, integer);
CREATE FUNCTION dpobj.protect(rel regclass, privacy_unit text, max_rows_per_unit integer,
                              budget_domain name DEFAULT NULL)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_protect_unit'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.protect(regclass, text, integer, name) IS
    'Owner or dpobj_admin: protect the table with a privacy unit column; every run keeps at most max_rows_per_unit rows per unit and is calibrated for them; with budget_domain (owner only) the table also joins that budget domain (true if the protection changed)';

--------------------------------------------------------------------------
-- The changes of 0.4.0 (as sql/dpobj--0.3.0--0.4.0.sql makes them)
--------------------------------------------------------------------------

--------------------------------------------------------------------------
-- Budget domains that no one can take over, and the privacy unit's
-- identity (docs/SECURITY.md "Budget domains", "Privacy unit identity").
--
-- A domain's name is its owner's: creating a name that exists is an error
-- (src/protected/budgetdomains.c).  A table joins a domain only when both
-- owners agree: the table's owner is the domain's owner (the same role:
-- membership is not consent), or the domain's owner (or a dpobj_admin
-- member) allowed that table, owned by that role, and the table's owner
-- joins naming the domain's owner (set_budget_domain's third argument).
-- Before joining, that table's owner sees the domain's budgets (RLS of
-- dpobj.budgets).  A join is refused while a budget on the domain exceeds
-- the self-grant caps and could have been granted uncapped only because
-- its holder owned every member.  The membership holds while the role
-- that joined owns the table (domain_joined_by).  A domain's powers are
-- its owner's, not its members' (can_administer_domain).
--------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION dpobj.can_administer_domain(budget_domain name)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (SELECT 1 FROM dpobj.budget_domains d
                    WHERE d.name = budget_domain
                      AND d.owner::pg_catalog.oid = (SELECT r.oid FROM pg_catalog.pg_roles r
                                                      WHERE r.rolname = current_user))
        OR EXISTS (SELECT 1 FROM pg_catalog.pg_roles r
                    WHERE r.rolname = 'dpobj_admin'
                      AND pg_catalog.pg_has_role(current_user, r.oid, 'USAGE'))
$$;
COMMENT ON FUNCTION dpobj.can_administer_domain(name) IS
    'true if the current role is the budget domain''s owner (not a member of it) or a member of dpobj_admin';

CREATE TABLE dpobj.budget_domain_allowed (
    budget_domain name NOT NULL REFERENCES dpobj.budget_domains (name) ON DELETE CASCADE,
    relid regclass NOT NULL REFERENCES dpobj.protected_tables (relid) ON DELETE CASCADE,
    table_owner regrole NOT NULL,
    allowed_by regrole NOT NULL,
    allowed_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    PRIMARY KEY (budget_domain, relid)
);
COMMENT ON TABLE dpobj.budget_domain_allowed IS
    'Tables a budget domain''s owner (or dpobj_admin) allowed to join it (dpobj.allow_budget_domain_member), each while owned by table_owner';
SELECT pg_catalog.pg_extension_config_dump('dpobj.budget_domain_allowed', '');
REVOKE ALL ON dpobj.budget_domain_allowed FROM PUBLIC;
GRANT SELECT ON dpobj.budget_domain_allowed TO PUBLIC;
ALTER TABLE dpobj.budget_domain_allowed ENABLE ROW LEVEL SECURITY;
CREATE POLICY budget_domain_allowed_visible ON dpobj.budget_domain_allowed FOR SELECT
    USING (dpobj.can_administer_domain(budget_domain)
           OR pg_catalog.pg_has_role(CURRENT_USER, table_owner::pg_catalog.oid, 'USAGE'));

-- true if the current role owns a table the domain's owner allowed into it
CREATE FUNCTION dpobj.may_join_domain(budget_domain name)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (SELECT 1 FROM dpobj.budget_domain_allowed a
                     JOIN pg_catalog.pg_class c ON c.oid = a.relid::pg_catalog.oid
                    WHERE a.budget_domain = may_join_domain.budget_domain
                      AND c.relowner = a.table_owner::pg_catalog.oid
                      AND pg_catalog.pg_has_role(current_user, c.relowner, 'USAGE'))
$$;
COMMENT ON FUNCTION dpobj.may_join_domain(name) IS
    'true if the current role owns a table that the budget domain''s owner allowed to join it (it may then see the domain''s budgets)';

-- the owner of an allowed table sees who holds budgets on the domain
-- before joining it
ALTER POLICY budgets_visible ON dpobj.budgets
    USING (rolid::pg_catalog.oid OPERATOR(pg_catalog.=)
               (SELECT oid FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) CURRENT_USER)
           OR (relid IS NOT NULL AND dpobj.can_administer(relid))
           OR (budget_domain IS NOT NULL AND dpobj.can_administer_domain(budget_domain))
           OR (budget_domain IS NOT NULL AND dpobj.may_join_domain(budget_domain)));

CREATE FUNCTION dpobj.allow_budget_domain_member(budget_domain name, rel regclass)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_allow_budget_domain_member'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.allow_budget_domain_member(name, regclass) IS
    'Domain owner or dpobj_admin: allow a protected table (while its current owner owns it) to join the budget domain; its owner then joins with dpobj.set_budget_domain(rel, domain, domain_owner) (true if newly allowed)';

CREATE FUNCTION dpobj.disallow_budget_domain_member(budget_domain name, rel regclass)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_disallow_budget_domain_member'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.disallow_budget_domain_member(name, regclass) IS
    'Domain owner or dpobj_admin: withdraw an allowance that was not used yet; a member stays until its owner takes it out (true if one was withdrawn)';

CREATE FUNCTION dpobj.set_budget_domain(rel regclass, budget_domain name, domain_owner regrole)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_set_budget_domain_owned'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.set_budget_domain(regclass, name, regrole) IS
    'Table owner: put the table into a budget domain that domain_owner owns and allowed it into (dpobj.allow_budget_domain_member) (true if its membership changed)';
COMMENT ON FUNCTION dpobj.set_budget_domain(regclass, name) IS
    'Table owner: put a table with a privacy unit into a budget domain its owner also owns (the same role), or take it out (NULL) (true if its membership changed)';
COMMENT ON FUNCTION dpobj.create_budget_domain(name) IS
    'Create a budget domain owned by the current role; an error if the name exists (true)';

-- the unit column's identity: its type (a domain over a base type is its
-- own type), typmod, collation and that collation's version (the recorded
-- pg_collation/pg_database version and the library's actual one), checked
-- before every run (src/protected/units.c)
CREATE FUNCTION dpobj.unit_collation_version(coll oid)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN coll = 0 THEN NULL
                WHEN coll = 100 THEN
                  (SELECT COALESCE(d.datcollversion, '') || '/'
                          || COALESCE(pg_catalog.pg_database_collation_actual_version(d.oid), '')
                     FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
                ELSE
                  (SELECT COALESCE(c.collversion, '') || '/'
                          || COALESCE(pg_catalog.pg_collation_actual_version(c.oid), '')
                     FROM pg_catalog.pg_collation c WHERE c.oid = coll) END
$$;
REVOKE ALL ON FUNCTION dpobj.unit_collation_version(oid) FROM PUBLIC;
COMMENT ON FUNCTION dpobj.unit_collation_version(oid) IS
    'Internal: a collation''s recorded and actual versions ("recorded/actual"), as protect() records them for a privacy unit column';

ALTER TABLE dpobj.protected_tables
    ADD COLUMN unit_typmod integer,
    ADD COLUMN unit_collation oid,
    ADD COLUMN unit_collversion text;
COMMENT ON COLUMN dpobj.protected_tables.unit_typmod IS
    'The privacy unit column''s type modifier at dpobj.protect()';
COMMENT ON COLUMN dpobj.protected_tables.unit_collation IS
    'The privacy unit column''s collation at dpobj.protect() (0: none)';
COMMENT ON COLUMN dpobj.protected_tables.unit_collversion IS
    'That collation''s versions at dpobj.protect(), recorded/actual (dpobj.unit_collation_version)';
-- units protected before this version: their column as it is now
UPDATE dpobj.protected_tables p
   SET unit_typmod = a.atttypmod, unit_collation = a.attcollation,
       unit_collversion = dpobj.unit_collation_version(a.attcollation)
  FROM pg_catalog.pg_attribute a
 WHERE p.privacy_unit IS NOT NULL
   AND a.attrelid = p.relid::pg_catalog.oid AND a.attnum = p.unit_attnum;
ALTER TABLE dpobj.protected_tables
    ADD CONSTRAINT protected_tables_unit_identity_check
        CHECK (privacy_unit IS NULL OR (unit_typmod IS NOT NULL AND unit_collation IS NOT NULL));

-- Domains of 0.3.0: a table joined a domain when its owner had the
-- privileges of the domain's owner or of dpobj_admin (superusers too),
-- so a member may sit in a domain another role (a group its owner is in,
-- say) created under the name its owner meant for its own.  Such a member
-- (its owner not the domain's owner) leaves the domain: its runs find no
-- budget until its owner joins again with the domain owner's agreement
-- (or grants budgets on the table); the domain's budgets and the ledger
-- keep every charge.  The others record their owner as the one that
-- joined.
ALTER TABLE dpobj.protected_tables ADD COLUMN domain_joined_by regrole;
COMMENT ON COLUMN dpobj.protected_tables.domain_joined_by IS
    'The table''s owner when it joined its budget domain: the membership counts while that role owns the table';
DO $$
DECLARE
    m record;
BEGIN
    FOR m IN
        SELECT p.relid, p.budget_domain, d.owner
          FROM dpobj.protected_tables p
          JOIN dpobj.budget_domains d ON d.name = p.budget_domain
          JOIN pg_catalog.pg_class c ON c.oid = p.relid::pg_catalog.oid
         WHERE c.relowner <> d.owner::pg_catalog.oid
         ORDER BY p.relid::pg_catalog.text
    LOOP
        UPDATE dpobj.protected_tables SET budget_domain = NULL WHERE relid = m.relid;
        RAISE WARNING 'dpobj: table % left budget domain "%" of role %: its owner did not own the domain',
                      m.relid, m.budget_domain, m.owner
            USING HINT = 'The domain''s owner allows it with dpobj.allow_budget_domain_member(); the table''s owner joins again with dpobj.set_budget_domain(rel, domain, domain_owner).';
    END LOOP;
END
$$;
UPDATE dpobj.protected_tables p SET domain_joined_by = c.relowner::pg_catalog.regrole
  FROM pg_catalog.pg_class c
 WHERE p.budget_domain IS NOT NULL AND c.oid = p.relid::pg_catalog.oid;
ALTER TABLE dpobj.protected_tables
    ADD CONSTRAINT protected_tables_domain_joined_check
        CHECK (budget_domain IS NULL OR domain_joined_by IS NOT NULL);

--------------------------------------------------------------------------
-- P1. One-pass logistic regression: dp_passglm (PASS-GLM: the logistic
-- loss replaced by its degree-2 Chebyshev approximation, whose
-- sufficient statistics are dp_linear_regression's on labels -1 / +1;
-- released once with discrete Gaussian noise, rho-zCDP; docs/PRIVACY.md
-- "One-pass logistic regression (passglm)").  It shares the state type
-- dpobj.linreg_state (the state records which aggregate made it).
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.dp_passglm_transfn(dpobj.linreg_state, float8[], boolean, float8, float8, jsonb)
RETURNS dpobj.linreg_state
AS 'MODULE_PATHNAME', 'dpobj_passglm_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dpobj.dp_passglm_finalfn(dpobj.linreg_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_passglm_finalfn'
LANGUAGE C VOLATILE;

CREATE AGGREGATE dpobj.dp_passglm(features float8[], label boolean,
                                  epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_passglm_transfn,
    STYPE = dpobj.linreg_state,
    FINALFUNC = dpobj.dp_passglm_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_linear_regression_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_passglm(float8[], boolean, float8, float8, jsonb) IS
    'One-pass logistic regression (PASS-GLM, degree-2 Chebyshev approximation) from exact sufficient statistics with discrete Gaussian noise, rho-zCDP; options {"R" (required), "intercept", "ridge"}';
COMMENT ON TYPE dpobj.linreg_state IS
    'Aggregate state of dp_linear_regression and dp_passglm: exact sums of the clipped, normalised rows'' X^T X, X^T y, y^T y and their count (text: base64)';

--------------------------------------------------------------------------
-- L2. dp_linear_regression and dp_passglm with the features as separate
-- float8 arguments (VARIADIC "any": passed one by one, no array built per
-- row); the same state, combine and final functions, so the same model
-- under one dpobj.seed.  dpobj.train() runs them except on Citus tables.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.dp_linear_regression_cols_transfn(dpobj.linreg_state, float8, float8, float8, jsonb, VARIADIC "any")
RETURNS dpobj.linreg_state
AS 'MODULE_PATHNAME', 'dpobj_linreg_cols_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE AGGREGATE dpobj.dp_linear_regression_cols(label float8, epsilon float8, delta float8,
                                                 options jsonb, VARIADIC features "any") (
    SFUNC = dpobj.dp_linear_regression_cols_transfn,
    STYPE = dpobj.linreg_state,
    FINALFUNC = dpobj.dp_linear_regression_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_linear_regression_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_linear_regression_cols(float8, float8, float8, jsonb, VARIADIC "any") IS
    'dp_linear_regression with the features as separate float8 arguments after the options (no array per row); every option and its default: SELECT dpobj.help(''linear'')';

CREATE FUNCTION dpobj.dp_passglm_cols_transfn(dpobj.linreg_state, boolean, float8, float8, jsonb, VARIADIC "any")
RETURNS dpobj.linreg_state
AS 'MODULE_PATHNAME', 'dpobj_passglm_cols_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE AGGREGATE dpobj.dp_passglm_cols(label boolean, epsilon float8, delta float8,
                                       options jsonb, VARIADIC features "any") (
    SFUNC = dpobj.dp_passglm_cols_transfn,
    STYPE = dpobj.linreg_state,
    FINALFUNC = dpobj.dp_passglm_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_linear_regression_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_passglm_cols(boolean, float8, float8, jsonb, VARIADIC "any") IS
    'dp_passglm with the features as separate float8 arguments after the options (no array per row); every option and its default: SELECT dpobj.help(''passglm'')';

--------------------------------------------------------------------------
-- F1. One filter for every mechanism, in any order (docs/PRIVACY.md,
-- "Composition: one filter for every mechanism"; src/protected/accountant.c).
-- Runs before a budget's first zCDP run add up linearly (spent_epsilon,
-- spent_delta), as before.  That run begins the zCDP part: a Renyi filter on
-- the rest, which now admits approximate-DP runs too, each at the Renyi cost
-- min(epsilon, alpha epsilon^2/2) (spent_rdp) at one order alpha
-- (filter_order, fixed from the grant when the zCDP part begins, whatever
-- the grant later), its delta taken from a reserve
-- fixed when the zCDP part began (reserve_delta: reserve_share of the
-- granted delta, at most half of what the linear part left;
-- spent_reserve_delta).  reserve_share is the setting
-- dpobj.approx_delta_reserve (default 0.1) of the session that grants the
-- budget; budgets of earlier versions get 0: they admit what they did.  The
-- accountant reads whole budgets rows.
--------------------------------------------------------------------------
ALTER TABLE dpobj.budgets
    ADD COLUMN reserve_delta numeric NOT NULL DEFAULT 0,
    ADD COLUMN spent_reserve_delta numeric NOT NULL DEFAULT 0,
    ADD COLUMN spent_rdp numeric NOT NULL DEFAULT 0,
    ADD COLUMN filter_order float8,
    ADD COLUMN reserve_share numeric NOT NULL DEFAULT 0,
    ADD CONSTRAINT budgets_reserve_share_check CHECK (reserve_share >= 0 AND reserve_share <= 0.5),
    ADD CONSTRAINT budgets_reserve_check
        CHECK (reserve_delta >= 0 AND spent_reserve_delta >= 0
               AND spent_reserve_delta <= reserve_delta
               AND spent_delta + reserve_delta <= granted_delta),
    ADD CONSTRAINT budgets_spent_rdp_check CHECK (spent_rdp >= 0 AND spent_rdp < 'Infinity'),
    ADD CONSTRAINT budgets_filter_order_check CHECK (filter_order > 1 AND filter_order < 'Infinity');
COMMENT ON COLUMN dpobj.budgets.reserve_delta IS
    'The delta kept, when the budget''s first zCDP run was charged, for approximate-DP runs after it';
COMMENT ON COLUMN dpobj.budgets.spent_reserve_delta IS
    'The delta of the approximate-DP runs charged after the first zCDP run (at most reserve_delta)';
COMMENT ON COLUMN dpobj.budgets.spent_rdp IS
    'Their Renyi cost at filter_order: the sum of min(epsilon, filter_order epsilon^2 / 2), rounded up';
COMMENT ON COLUMN dpobj.budgets.reserve_share IS
    'The share of granted_delta the reserve takes when the zCDP part begins: dpobj.approx_delta_reserve of the session that created the budget (0 for budgets from before 0.4.0)';
COMMENT ON COLUMN dpobj.budgets.filter_order IS
    'The Renyi order the zCDP part is composed at, fixed by the grant in force when it began (NULL: no zCDP part)';

ALTER TABLE dpobj.ledger DROP CONSTRAINT ledger_accounted_check;
ALTER TABLE dpobj.ledger ADD CONSTRAINT ledger_accounted_check
    CHECK (accounted IN ('linear', 'rho', 'reserve'));
COMMENT ON COLUMN dpobj.ledger.accounted IS
    'How the run was counted in its budget: linear (spent_epsilon, spent_delta), rho (spent_rho) or reserve (spent_rdp, spent_reserve_delta); NULL without a budget';

-- F2. Gaussian runs compose in Gaussian DP.  A run whose every release is
-- a discrete Gaussian (noisy GD, Output-Gauss, passglm, linear regression,
-- their one-vs-rest forms, without "R": "private") is charged kind 'gauss'.
-- On a budget with a reserve, a zCDP part that begins with such a run splits
-- delta_c in halves (gaussian_split): while it has such runs only it is
-- composed in GDP at one half (gaussian_only); any other run in it moves the
-- part to the Renyi filter at the other half, for good.  Other parts convert
-- at the whole delta_c, as before.
ALTER TABLE dpobj.budgets
    ADD COLUMN gaussian_only boolean NOT NULL DEFAULT false,
    ADD COLUMN gaussian_split boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN dpobj.budgets.gaussian_only IS
    'Every run of the zCDP part so far is a Gaussian one (ledger kind gauss) and the part is split: it is composed in Gaussian DP';
COMMENT ON COLUMN dpobj.budgets.gaussian_split IS
    'The zCDP part began with a Gaussian run on a budget with a reserve: its delta is split between the Gaussian and the Renyi path';
ALTER TABLE dpobj.ledger DROP CONSTRAINT ledger_kind_check;
ALTER TABLE dpobj.ledger ADD CONSTRAINT ledger_kind_check
    CHECK (kind IN ('approx', 'pure', 'zcdp', 'gauss'));
COMMENT ON COLUMN dpobj.ledger.kind IS
    'Form of the run''s privacy cost: gauss (discrete Gaussian releases only, cost rho, also composed in Gaussian DP), zcdp (calibrated in zero-concentrated DP, cost rho), pure (epsilon-DP, rho = epsilon^2/2) or approx ((epsilon, delta)-DP only)';
COMMENT ON COLUMN dpobj.ledger.rho IS
    'zCDP cost of a gauss, zcdp or pure run (rounded up); NULL for approx';
CREATE FUNCTION dpobj.gauss_epsilon(rho numeric, delta numeric)
RETURNS numeric
AS 'MODULE_PATHNAME', 'dpobj_gauss_epsilon'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.gauss_epsilon(numeric, numeric) IS
    'An upper bound on the epsilon that discrete Gaussian releases of total rho (ledger kind gauss) guarantee at delta, composed in Gaussian DP (rounded up; never above zcdp_epsilon); 0 for rho = 0, NULL when delta is not in (0, 1)';

CREATE FUNCTION dpobj.budget_debit(b dpobj.budgets, kind text, epsilon numeric, delta numeric,
                                   rho numeric)
RETURNS dpobj.budgets
AS 'MODULE_PATHNAME', 'dpobj_budget_debit'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.budget_debit(dpobj.budgets, text, numeric, numeric, numeric) IS
    'The budget after one more run of this kind and cost, NULL if it does not fit (docs/PRIVACY.md)';

CREATE FUNCTION dpobj.budget_spent_epsilon(b dpobj.budgets)
RETURNS numeric
AS 'MODULE_PATHNAME', 'dpobj_budget_spent_epsilon'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.budget_spent_epsilon(dpobj.budgets) IS
    'The epsilon a budget has spent, composed by the accountant at its granted delta';

DROP FUNCTION dpobj.budget_admits(numeric, numeric, numeric, numeric, numeric, text, numeric, numeric, numeric);
CREATE FUNCTION dpobj.budget_admits(b dpobj.budgets, kind text, epsilon numeric, delta numeric,
                                    rho numeric)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dpobj_budget_admits'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.budget_admits(dpobj.budgets, text, numeric, numeric, numeric) IS
    'The admission rule: does one more run of this kind and cost fit the budget (docs/PRIVACY.md)';

CREATE FUNCTION dpobj.budget_remaining_epsilon(b dpobj.budgets)
RETURNS numeric
AS 'MODULE_PATHNAME', 'dpobj_budget_remaining_epsilon'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.budget_remaining_epsilon(dpobj.budgets) IS
    'The epsilon a budget has left at its granted delta (for dpobj.my_budgets)';

-- an analyst's budgets: a domain budget is one row (relation NULL), with
-- the domain and its member tables; approx_delta_left: the delta an
-- approximate-DP run may still take (the linear part's, then the reserve's)
CREATE OR REPLACE VIEW dpobj.my_budgets WITH (security_barrier = true) AS
SELECT b.relid AS relation,
       b.granted_epsilon, b.granted_delta,
       dpobj.budget_spent_epsilon(b) AS spent_epsilon,
       b.spent_delta,
       dpobj.budget_remaining_epsilon(b) AS remaining_epsilon,
       b.granted_delta OPERATOR(pg_catalog.-) b.spent_delta AS remaining_delta,
       p.privacy_unit,
       p.max_rows_per_unit,
       b.spent_rho,
       b.spent_rho OPERATOR(pg_catalog.=) 0
         OR b.spent_reserve_delta OPERATOR(pg_catalog.<) b.reserve_delta AS approx_admitted,
       b.budget_domain,
       CASE WHEN b.budget_domain IS NOT NULL THEN
         ARRAY(SELECT m.relid FROM dpobj.protected_tables m
                WHERE m.budget_domain OPERATOR(pg_catalog.=) b.budget_domain
                ORDER BY m.relid::pg_catalog.text) END AS domain_tables,
       CASE WHEN b.spent_rho OPERATOR(pg_catalog.=) 0
            THEN b.granted_delta OPERATOR(pg_catalog.-) b.spent_delta
            ELSE b.reserve_delta OPERATOR(pg_catalog.-) b.spent_reserve_delta END AS approx_delta_left
  FROM dpobj.budgets b
  LEFT JOIN dpobj.protected_tables p ON p.relid OPERATOR(pg_catalog.=) b.relid
 WHERE b.rolid::pg_catalog.oid OPERATOR(pg_catalog.=)
       (SELECT oid FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) CURRENT_USER);
COMMENT ON VIEW dpobj.my_budgets IS
    'The current role''s privacy budgets: granted, spent (composed by the accountant) and remaining (epsilon, delta) per table or budget domain, the zCDP part rho, whether approximate-DP runs are still admitted and the delta they may take';

DROP FUNCTION dpobj.budget_remaining_epsilon(numeric, numeric, numeric, numeric, numeric);

-- A zCDP part begun before this update gets its order now, from its grant
-- (the one a part gets at its first run): the order is fixed before any
-- later grant and any later output (docs/PRIVACY.md, "Composition: one filter for every mechanism").
CREATE FUNCTION dpobj.budget_part_order(b dpobj.budgets) RETURNS float8
AS 'MODULE_PATHNAME', 'dpobj_budget_part_order'
LANGUAGE C STRICT;
UPDATE dpobj.budgets b SET filter_order = dpobj.budget_part_order(b)
 WHERE spent_rho OPERATOR(pg_catalog.>) 0 AND filter_order IS NULL;
DROP FUNCTION dpobj.budget_part_order(dpobj.budgets);

-- The options aggregates' comments listed options by name and fell behind the
-- options they take; they now name the help topic that lists them all
-- (docs/REFERENCE.md, the same text).
COMMENT ON AGGREGATE dpobj.dp_halfspace(float8[], boolean, float8, float8, jsonb) IS
    'OPDisc with options; every option and its default: SELECT dpobj.help(''opdisc'')';
COMMENT ON AGGREGATE dpobj.dp_halfspace_rspm(float8[], boolean, float8, float8, jsonb) IS
    'RSPM with options; every option and its default: SELECT dpobj.help(''rspm'')';
COMMENT ON AGGREGATE dpobj.dp_expmech(float8[], boolean, float8, float8, jsonb) IS
    'Exact exponential mechanism with options; every option and its default: SELECT dpobj.help(''expmech'')';
COMMENT ON AGGREGATE dpobj.dp_logistic(float8[], boolean, float8, float8, jsonb) IS
    'L2-regularised logistic regression / Huber-SVM: Objective-Gauss, Output-Gauss or CMS objective perturbation; every option and its default: SELECT dpobj.help(''logistic'')';
COMMENT ON AGGREGATE dpobj.dp_noisysgd(float8[], boolean, float8, float8, jsonb) IS
    'Noisy projected gradient descent (Bassily et al. 2014, Algorithm 1); every option and its default: SELECT dpobj.help(''noisysgd'')';
COMMENT ON AGGREGATE dpobj.dp_opsamp(float8[], boolean, float8, float8, jsonb) IS
    'OPSamp (Neel et al. 2020, Algorithm 2) for the l1-clipped hinge loss scaled to [0, 1]; every option and its default: SELECT dpobj.help(''opsamp'')';
COMMENT ON AGGREGATE dpobj.dp_linear_regression(float8[], float8, float8, float8, jsonb) IS
    'Linear regression by AdaSSP (default) or SSP on exact sufficient statistics with discrete Gaussian noise; every option and its default: SELECT dpobj.help(''linear'')';
COMMENT ON AGGREGATE dpobj.dp_logistic_multiclass(float8[], text, float8, float8, jsonb) IS
    'One-vs-rest multi-class dp_logistic (budget split over the K classes); every option and its default: SELECT dpobj.help(''multiclass'')';
COMMENT ON AGGREGATE dpobj.dp_auto(float8[], boolean, float8, float8, jsonb) IS
    'Private model selection among dp_logistic''s methods and dp_noisysgd (random partition, report noisy max, retrain the choice), one charge of (epsilon, delta); every option and its default: SELECT dpobj.help(''auto'')';

-- Privacy units in bounded memory (docs/PRIVACY.md "Privacy units",
-- src/protected/unitkeep.c): unit_counts() keeps its per-unit counters within
-- dpobj.max_state_memory and returns 0 when the units would outgrow it; the
-- sealed query then keeps each unit's first k rows in the order of
-- unit_row_key(), i.i.d. random keys, through PostgreSQL's sort (which spills
-- to temporary files beyond work_mem).  Both ways keep a uniformly random
-- k-subset of each unit's rows.
COMMENT ON AGGREGATE dpobj.unit_counts(anyelement, bigint) IS
    'Internal: counts the rows of each privacy unit for dpobj.unit_keep() in the same query, which keeps k of them; returns a handle (> 0), or 0 when the units outgrow dpobj.max_state_memory';
CREATE FUNCTION dpobj.unit_row_key()
RETURNS uuid
AS 'MODULE_PATHNAME', 'dpobj_unit_row_key'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dpobj.unit_row_key() IS
    'Internal: 128 random bits (pg_prng seeded from pg_strong_random once per query), the key by which a privacy unit''s rows are ordered when its first k are kept';

-- dpobj.budget_for in C with a kept plan (src/protected/budgetdomains.c), the
-- same lookup: as a SQL function it was parsed and planned at each of its two
-- calls per protected run (train()'s pre-check, the ledger writer's debit).
-- CREATE OR REPLACE keeps its owner, REVOKE and comment.
CREATE OR REPLACE FUNCTION dpobj.budget_for(rel regclass, analyst regrole)
RETURNS bigint
AS 'MODULE_PATHNAME', 'dpobj_budget_for'
LANGUAGE C STABLE STRICT;

-- A numeric feature's float8 on the protected path (src/protected/numfeature.c):
-- the sealed query's CASE WHEN abs(x) >= 1e300 THEN NULL WHEN abs(x) < 1e-300 THEN
-- 0 ELSE x::float8 END as one C call, reading the digits in place (the exact fast
-- path of a short decimal, else numeric_float8): the same value, never an error.
CREATE FUNCTION dpobj.numeric_feature(x numeric)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpobj_numeric_feature'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.numeric_feature(numeric) IS
    'Internal: a numeric feature as train() reads it: NULL (the row is dropped) for NaN, +-Infinity and |x| >= 1e300, 0 for |x| < 1e-300, else x::float8; never an error';

-- Roles by name in a dump.  dpobj.ledger.rolid and dpobj.models.ownerid
-- were oid columns: pg_dump wrote them as numbers, and restored into
-- another cluster (a newer major version, whose roles have other OIDs)
-- they named no role or another one, so a model or a ledger row left its
-- owner.  As regrole (like budgets.rolid) a dump holds the role's name and
-- the restore its new OID (restore the roles first: pg_dumpall
-- --roles-only); a dropped role's rows keep its number, as before.
-- Columns used by a policy cannot change type: the two policies are
-- dropped and made again as they were.
DROP POLICY ledger_own_rows ON dpobj.ledger;
DROP POLICY models_visible ON dpobj.models;
ALTER TABLE dpobj.ledger ALTER COLUMN rolid TYPE pg_catalog.regrole;
ALTER TABLE dpobj.models ALTER COLUMN ownerid TYPE pg_catalog.regrole;
CREATE POLICY ledger_own_rows ON dpobj.ledger
    FOR SELECT USING (rolid OPERATOR(pg_catalog.=) (SELECT r.oid FROM pg_catalog.pg_roles r
                                                     WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER));
CREATE POLICY models_visible ON dpobj.models
    FOR SELECT USING (ownerid OPERATOR(pg_catalog.=) (SELECT r.oid FROM pg_catalog.pg_roles r
                                                       WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER)
                      OR pg_catalog.pg_has_role(CURRENT_USER, 'dpobj_admin', 'MEMBER'));
COMMENT ON COLUMN dpobj.models.ownerid IS 'The role that stored the model';
COMMENT ON COLUMN dpobj.ledger.rolid IS
    'The role that was charged; ledger rows are visible to that role (not to whoever has its name later)';

-- Raw values outside a model's declared domain (src/model/encodemodel.c):
-- on_unknown 'other' (the default, as before and as train() encoded such a
-- value), 'error' (refused, naming the column and value) or 'null' (a NULL
-- result).  The two-argument forms are replaced: a default keeps their calls.
DROP FUNCTION dpobj.predict_raw(dpobj.model, jsonb);
DROP FUNCTION dpobj.score_raw(dpobj.model, jsonb);
DROP FUNCTION dpobj.predict_class_raw(dpobj.model, jsonb);
DROP FUNCTION dpobj.predict_raw(text, jsonb);
DROP FUNCTION dpobj.score_raw(text, jsonb);
DROP FUNCTION dpobj.predict_class_raw(text, jsonb);
DROP FUNCTION dpobj.encode(dpobj.model, jsonb);
CREATE FUNCTION dpobj.encode(m dpobj.model, raw jsonb, on_unknown text DEFAULT 'other')
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'dpobj_encode'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.encode(dpobj.model, jsonb, text) IS
    'The features of raw values {"column": value, ...} under the model''s recorded encoding (other keys are ignored); a categorical value outside the declared levels: on_unknown ''other'' (default), ''error'' or ''null'' (NULL)';
CREATE FUNCTION dpobj.predict_raw(m dpobj.model, raw jsonb, on_unknown text DEFAULT 'other')
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict($1, dpobj.encode($1, $2, $3)) $$;
COMMENT ON FUNCTION dpobj.predict_raw(dpobj.model, jsonb, text) IS
    'dpobj.predict on raw values {"column": value, ...} (e.g. to_jsonb(row)) of a model trained on declared domains; on_unknown as in dpobj.encode';
CREATE FUNCTION dpobj.score_raw(m dpobj.model, raw jsonb, on_unknown text DEFAULT 'other')
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.score($1, dpobj.encode($1, $2, $3)) $$;
COMMENT ON FUNCTION dpobj.score_raw(dpobj.model, jsonb, text) IS
    'dpobj.score on raw values of a model trained on declared domains; on_unknown as in dpobj.encode';
CREATE FUNCTION dpobj.predict_class_raw(m dpobj.model, raw jsonb, on_unknown text DEFAULT 'other')
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict_class($1, dpobj.encode($1, $2, $3)) $$;
COMMENT ON FUNCTION dpobj.predict_class_raw(dpobj.model, jsonb, text) IS
    'dpobj.predict_class on raw values of a multi-class model trained on declared domains; on_unknown as in dpobj.encode';
CREATE FUNCTION dpobj.predict_raw(name text, raw jsonb, on_unknown text DEFAULT 'other')
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict_raw(dpobj.get_model($1), $2, $3) $$;
COMMENT ON FUNCTION dpobj.predict_raw(text, jsonb, text) IS
    'The prediction of your stored model of this name on raw values; on_unknown as in dpobj.encode';
CREATE FUNCTION dpobj.score_raw(name text, raw jsonb, on_unknown text DEFAULT 'other')
RETURNS double precision
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.score_raw(dpobj.get_model($1), $2, $3) $$;
COMMENT ON FUNCTION dpobj.score_raw(text, jsonb, text) IS
    'The margin of your stored model of this name on raw values; on_unknown as in dpobj.encode';
CREATE FUNCTION dpobj.predict_class_raw(name text, raw jsonb, on_unknown text DEFAULT 'other')
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict_class_raw(dpobj.get_model($1), $2, $3) $$;
COMMENT ON FUNCTION dpobj.predict_class_raw(text, jsonb, text) IS
    'The class of your stored multi-class model of this name on raw values; on_unknown as in dpobj.encode';

--------------------------------------------------------------------------
-- What a person needs about a budget, and the accountant's state apart.
-- dpobj.my_budgets and the result of grant/revoke (type dpobj.budget_summary)
-- show granted, spent and remaining (epsilon, delta) and how many more runs
-- like the budget's last one it admits; the accountant's internals (rho,
-- reserve, Renyi order, Gaussian split, what approximate-DP runs may still
-- take) move to dpobj.budget_accounting, read under dpobj.budgets' row-level
-- security: a role's own budgets, a table's owner and dpobj_admin theirs.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.budget_runs_left(b dpobj.budgets, kind text, epsilon numeric, delta numeric,
                                       rho numeric)
RETURNS bigint
AS 'MODULE_PATHNAME', 'dpobj_budget_runs_left'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.budget_runs_left(dpobj.budgets, text, numeric, numeric, numeric) IS
    'How many more runs of this kind and cost the budget admits (as dpobj.runs_left counts them); NULL without a kind';

CREATE FUNCTION dpobj.run_label(mechanism text, epsilon numeric, delta numeric)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT format('%s (epsilon %s, delta %s)', mechanism, epsilon, delta) $$;
COMMENT ON FUNCTION dpobj.run_label(text, numeric, numeric) IS
    'A run as my_budgets.last_run shows it: mechanism (epsilon e, delta d)';

CREATE TYPE dpobj.budget_summary AS (
    id bigint,
    relation regclass,
    budget_domain name,
    analyst regrole,
    granted_epsilon numeric,
    granted_delta numeric,
    spent_epsilon numeric,
    spent_delta numeric,
    remaining_epsilon numeric,
    remaining_delta numeric,
    last_run text,
    runs_left bigint
);
COMMENT ON TYPE dpobj.budget_summary IS
    'A budget after a grant or revoke: granted, spent (composed at the granted delta) and remaining, the last run charged to it and how many more such runs it admits';

DROP FUNCTION dpobj.grant_budget(regclass, regrole, numeric, numeric);
DROP FUNCTION dpobj.revoke_budget(regclass, regrole);
DROP FUNCTION dpobj.grant_domain_budget(name, regrole, numeric, numeric);
DROP FUNCTION dpobj.revoke_domain_budget(name, regrole);
CREATE FUNCTION dpobj.grant_budget(rel regclass, analyst regrole,
                                   epsilon numeric, delta numeric)
RETURNS dpobj.budget_summary
AS 'MODULE_PATHNAME', 'dpobj_grant_budget'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.grant_budget(regclass, regrole, numeric, numeric) IS
    'Owner or dpobj_admin: add (epsilon, delta) to the role''s budget on a protected table';
CREATE FUNCTION dpobj.revoke_budget(rel regclass, analyst regrole)
RETURNS dpobj.budget_summary
AS 'MODULE_PATHNAME', 'dpobj_revoke_budget'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.revoke_budget(regclass, regrole) IS
    'Owner or dpobj_admin: take back the unspent rest of the role''s budget (granted := spent)';
CREATE FUNCTION dpobj.grant_domain_budget(budget_domain name, analyst regrole,
                                          epsilon numeric, delta numeric)
RETURNS dpobj.budget_summary
AS 'MODULE_PATHNAME', 'dpobj_grant_domain_budget'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.grant_domain_budget(name, regrole, numeric, numeric) IS
    'Domain owner or dpobj_admin: add (epsilon, delta) to the role''s budget on a budget domain, charged by runs on every member table';
CREATE FUNCTION dpobj.revoke_domain_budget(budget_domain name, analyst regrole)
RETURNS dpobj.budget_summary
AS 'MODULE_PATHNAME', 'dpobj_revoke_domain_budget'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.revoke_domain_budget(name, regrole) IS
    'Domain owner or dpobj_admin: take back the unspent rest of the role''s budget on a budget domain';

DROP VIEW dpobj.my_budgets;
CREATE VIEW dpobj.my_budgets WITH (security_barrier = true) AS
SELECT b.relid AS relation,
       b.budget_domain,
       b.granted_epsilon, b.granted_delta,
       dpobj.budget_spent_epsilon(b) AS spent_epsilon,
       b.spent_delta,
       dpobj.budget_remaining_epsilon(b) AS remaining_epsilon,
       b.granted_delta OPERATOR(pg_catalog.-) b.spent_delta AS remaining_delta,
       dpobj.run_label(l.mechanism, l.epsilon, l.delta) AS last_run,
       dpobj.budget_runs_left(b, l.kind, l.epsilon, l.delta, l.rho) AS runs_left,
       p.privacy_unit,
       p.max_rows_per_unit,
       CASE WHEN b.budget_domain IS NOT NULL THEN
         ARRAY(SELECT m.relid FROM dpobj.protected_tables m
                WHERE m.budget_domain OPERATOR(pg_catalog.=) b.budget_domain
                ORDER BY m.relid::pg_catalog.text) END AS domain_tables
  FROM dpobj.budgets b
  LEFT JOIN dpobj.protected_tables p ON p.relid OPERATOR(pg_catalog.=) b.relid
  LEFT JOIN LATERAL (SELECT r.mechanism, r.epsilon, r.delta, r.kind, r.rho
                       FROM dpobj.ledger r
                      WHERE r.budget_id OPERATOR(pg_catalog.=) b.id
                      ORDER BY r.id DESC LIMIT 1) l ON true
 WHERE b.rolid::pg_catalog.oid OPERATOR(pg_catalog.=)
       (SELECT oid FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) CURRENT_USER);
COMMENT ON VIEW dpobj.my_budgets IS
    'The current role''s privacy budgets per table or budget domain: granted, spent (composed by the accountant at the granted delta) and remaining (epsilon, delta), the last run charged and how many more such runs fit';
GRANT SELECT ON dpobj.my_budgets TO PUBLIC;

CREATE VIEW dpobj.budget_accounting WITH (security_invoker = true) AS
SELECT b.id, b.relid AS relation, b.budget_domain, b.rolid AS analyst,
       b.granted_epsilon, b.granted_delta,
       b.spent_epsilon AS linear_epsilon, b.spent_delta AS linear_delta,
       b.spent_rho,
       b.reserve_share, b.reserve_delta, b.spent_reserve_delta, b.spent_rdp, b.filter_order,
       b.gaussian_split, b.gaussian_only,
       b.spent_rho OPERATOR(pg_catalog.=) 0
         OR b.spent_reserve_delta OPERATOR(pg_catalog.<) b.reserve_delta AS approx_admitted,
       CASE WHEN b.spent_rho OPERATOR(pg_catalog.=) 0
            THEN b.granted_delta OPERATOR(pg_catalog.-) b.spent_delta
            ELSE b.reserve_delta OPERATOR(pg_catalog.-) b.spent_reserve_delta END AS approx_delta_left
  FROM dpobj.budgets b;
COMMENT ON VIEW dpobj.budget_accounting IS
    'The accountant''s state of the budgets you may see (dpobj.budgets'' row-level security: your own, and a table''s or domain''s you administer): the linear part, the zCDP part''s rho, the reserve for approximate-DP runs and what they may still take, the Renyi order and the Gaussian split (docs/REFERENCE.md, "budgets")';
GRANT SELECT ON dpobj.budget_accounting TO PUBLIC;


--------------------------------------------------------------------------
-- The 0.5.0 update (as sql/dpobj--0.4.0--0.5.0.sql makes it)
--------------------------------------------------------------------------

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
-- dpobj.probability on raw values, as predict_raw/score_raw: the class-1
-- probability of a logistic model trained on declared domains, from
-- {"column": value, ...} encoded with the model's recorded encoding.
-- Post-processing of a released model: nothing is charged.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.probability_raw(m dpobj.model, raw jsonb, on_unknown text DEFAULT 'other')
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.probability($1, dpobj.encode($1, $2, $3)) $$;
COMMENT ON FUNCTION dpobj.probability_raw(dpobj.model, jsonb, text) IS
    'dpobj.probability on raw values of a logistic model trained on declared domains; on_unknown as in dpobj.encode';
CREATE FUNCTION dpobj.probability_raw(name text, raw jsonb, on_unknown text DEFAULT 'other')
RETURNS double precision
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.probability_raw(dpobj.get_model($1), $2, $3) $$;
COMMENT ON FUNCTION dpobj.probability_raw(text, jsonb, text) IS
    'The class-1 probability of your stored logistic model of this name on raw values; on_unknown as in dpobj.encode';

--------------------------------------------------------------------------
-- dpobj.help() returns its text one row per line (src/api/help.c): psql shows
-- lines instead of one value with "+" at every line end.  The name of a
-- function, table or view a topic documents finds that topic.
--------------------------------------------------------------------------
DROP FUNCTION dpobj.help(text);
CREATE FUNCTION dpobj.help(topic text DEFAULT NULL)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'dpobj_help'
LANGUAGE C STABLE PARALLEL SAFE ROWS 60;
COMMENT ON FUNCTION dpobj.help(text) IS
    'dpobj''s reference manual, one row per line: without a topic the overview and the list of topics, with a topic (or a function name it documents) its section';

--------------------------------------------------------------------------
-- What one dpobj.train() run would charge, from public state, by the
-- accountant's own rule (src/protected/runsleft.c), charging nothing: the
-- ledger's (kind, epsilon, delta, rho), whether the caller's budget admits
-- it, the budget's composition after it ('linear', 'gaussian', 'renyi'),
-- the epsilon it adds to the composed spend, and spent and remaining after.
CREATE FUNCTION dpobj.cost(rel regclass, mechanism text, epsilon numeric,
                           delta numeric, options jsonb DEFAULT '{}',
                           OUT kind text, OUT charge_epsilon numeric,
                           OUT charge_delta numeric, OUT rho numeric,
                           OUT admitted boolean, OUT composition text,
                           OUT adds_epsilon numeric, OUT spent_epsilon numeric,
                           OUT remaining_epsilon numeric, OUT remaining_delta numeric)
RETURNS record
AS 'MODULE_PATHNAME', 'dpobj_cost'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.cost(regclass, text, numeric, numeric, jsonb) IS
    'What one dpobj.train() run of this mechanism at (epsilon, delta) would charge your budget on the table, and the budget after it (the accountant''s rule; nothing is charged)';

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

-- Private descriptive statistics (src/mechanisms/aggregate.c,
-- src/protected/aggrun.c; docs/PRIVACY.md "Private statistics"): noisy
-- counts, sums, means and histograms of a protected table, grouped by
-- columns with declared levels, one pure-epsilon charge per call.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.dp_aggregate_transfn(float8[], float8[], boolean, float8, float8, jsonb)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpobj_aggregate_transfn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_aggregate_combinefn(float8[], float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpobj_aggregate_combinefn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_aggregate_finalfn(float8[])
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpobj_aggregate_finalfn'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE dpobj.dp_aggregate(features float8[], label boolean,
                                    epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_aggregate_transfn,
    STYPE = float8[],
    FINALFUNC = dpobj.dp_aggregate_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_aggregate_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_aggregate(float8[], boolean, float8, float8, jsonb) IS
    'DP noisy cells (counts, lattice sums) of encoded rows for the layout in options {"layout": ...}; dpobj.aggregate() runs it on a protected table';

CREATE FUNCTION dpobj.aggregate(tbl regclass, what jsonb, epsilon float8, delta float8,
                                group_by text[] DEFAULT '{}', options jsonb DEFAULT '{}')
RETURNS TABLE(group_values jsonb, statistic text, column_name text, estimate float8,
              ci_low float8, ci_high float8)
AS 'MODULE_PATHNAME', 'dpobj_aggregate'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.aggregate(regclass, jsonb, float8, float8, text[], jsonb) IS
    'DP counts, sums, means, variances, quantiles and histograms of a protected table, grouped by columns with declared levels, with 95% intervals; one charge to the caller''s budget (options: "filter", "deadline")';

-- Accuracy before a run (src/protected/aggplan.c): dpobj.aggregate()'s 95 % half-width
-- per statistic at an epsilon, and the least epsilon for a half-width, from public
-- quantities only (declared domains, the privacy unit, the noise law); nothing charged.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.aggregate_accuracy(tbl regclass, what jsonb, epsilon float8,
                                         group_by text[] DEFAULT '{}', options jsonb DEFAULT '{}')
RETURNS TABLE(statistic text, column_name text, half_width float8)
AS 'MODULE_PATHNAME', 'dpobj_aggregate_accuracy'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.aggregate_accuracy(regclass, jsonb, float8, text[], jsonb) IS
    'Per statistic of "what", the 95% half-width dpobj.aggregate() gives at epsilon, from public quantities only; a mean needs options {"count": n}; nothing charged';
CREATE FUNCTION dpobj.aggregate_epsilon(tbl regclass, what jsonb, half_width float8,
                                        group_by text[] DEFAULT '{}', options jsonb DEFAULT '{}')
RETURNS TABLE(statistic text, column_name text, epsilon float8)
AS 'MODULE_PATHNAME', 'dpobj_aggregate_epsilon'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.aggregate_epsilon(regclass, jsonb, float8, text[], jsonb) IS
    'Per statistic of "what", the least epsilon of dpobj.aggregate() (6 digits, rounded up) giving a 95% half-width at most half_width; NULL if none; nothing charged';

-- A private profile of a protected table (src/protected/describe.c): one
-- dpobj.aggregate() run, so one charge: the row count, per declared column a
-- histogram (and a numeric column's quartiles), with 95% intervals.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.describe(tbl regclass, epsilon float8, delta float8, options jsonb DEFAULT '{}')
RETURNS TABLE(group_values jsonb, statistic text, column_name text, estimate float8,
              ci_low float8, ci_high float8)
AS 'MODULE_PATHNAME', 'dpobj_describe'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.describe(regclass, float8, float8, jsonb) IS
    'DP profile of a protected table: row count, per declared column a histogram (numeric: and quartiles), 95% intervals; one charge (options: "columns", "bins", "shares", "filter", "deadline")';

-- Model kinds (linear, halfspace, multi-class, additive): probability in C
-- through the kind dispatch, explain() and model_kind() for every kind
--------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION dpobj.probability(m dpobj.model, features float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'dpobj_probability'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.probability(dpobj.model, float8[]) IS
    'P(label = true) = 1 / (1 + exp(-score)) under a logistic or logit-link additive model';

CREATE FUNCTION dpobj.model_kind(m dpobj.model)
RETURNS text
AS 'MODULE_PATHNAME', 'dpobj_model_kind'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.model_kind(dpobj.model) IS
    'The model''s kind: linear, regression, halfspace, multiclass or additive';

CREATE FUNCTION dpobj.explain(m dpobj.model)
RETURNS TABLE(feature text, level text, contribution float8, importance float8, class text)
AS 'MODULE_PATHNAME', 'dpobj_explain'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.explain(dpobj.model) IS
    'The model as rows: each weight, level or bin''s contribution to the score, and the feature''s importance (max - min of its term over its domain)';
CREATE FUNCTION dpobj.explain(name text)
RETURNS TABLE(feature text, level text, contribution float8, importance float8, class text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT * FROM dpobj.explain(dpobj.get_model($1)) $$;
COMMENT ON FUNCTION dpobj.explain(text) IS
    'dpobj.explain of your stored model of this name';

-- A basic-composition filter beside the current one (src/ledger/accountant.c;
-- docs/PRIVACY.md "Composition: one filter for every mechanism"): from the
-- first zCDP run on, every run's (epsilon, delta) summed within granted
-- epsilon and basic_share of the delta the linear part left; the current
-- filter composes at the rest.  A run fits if either admits it; the first
-- run only one admits ends the other for good.  Budgets from before 0.5.0
-- get basic_share 0: no basic filter, the rule they had.
--------------------------------------------------------------------------
ALTER TABLE dpobj.budgets
    ADD COLUMN basic_share numeric NOT NULL DEFAULT 0,
    ADD COLUMN basic_epsilon numeric NOT NULL DEFAULT 0,
    ADD COLUMN basic_delta numeric NOT NULL DEFAULT 0,
    ADD COLUMN basic_retired boolean NOT NULL DEFAULT false,
    ADD COLUMN filter_refused boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT budgets_basic_share_check CHECK (basic_share >= 0 AND basic_share < 0.5),
    ADD CONSTRAINT budgets_basic_check
        CHECK (basic_epsilon >= 0 AND basic_epsilon < 'Infinity'
               AND basic_delta >= 0 AND basic_delta < 'Infinity');
COMMENT ON COLUMN dpobj.budgets.basic_share IS
    'The share of the delta the linear part leaves that the basic filter takes (0: none, budgets from before 0.5.0)';
COMMENT ON COLUMN dpobj.budgets.basic_epsilon IS
    'The basic filter: the sum of every run''s epsilon while it is on';
COMMENT ON COLUMN dpobj.budgets.basic_delta IS
    'The basic filter: the sum of every run''s delta (0 for pure runs) while it is on';
COMMENT ON COLUMN dpobj.budgets.basic_retired IS
    'A run only the other filter admitted came: the basic filter admits nothing more';
COMMENT ON COLUMN dpobj.budgets.filter_refused IS
    'A run only the basic filter admitted came: the other filter (spent_epsilon .. gaussian_split, as they were then) admits nothing more';
CREATE OR REPLACE VIEW dpobj.budget_accounting WITH (security_invoker = true) AS
SELECT b.id, b.relid AS relation, b.budget_domain, b.rolid AS analyst,
       b.granted_epsilon, b.granted_delta,
       b.spent_epsilon AS linear_epsilon, b.spent_delta AS linear_delta,
       b.spent_rho,
       b.reserve_share, b.reserve_delta, b.spent_reserve_delta, b.spent_rdp, b.filter_order,
       b.gaussian_split, b.gaussian_only,
       NOT a.part2 OR a.basic_left OPERATOR(pg_catalog.>) 0
         OR (NOT b.filter_refused
             AND b.spent_reserve_delta OPERATOR(pg_catalog.<) b.reserve_delta) AS approx_admitted,
       CASE WHEN NOT a.part2 THEN b.granted_delta OPERATOR(pg_catalog.-) b.spent_delta
            ELSE GREATEST(CASE WHEN b.filter_refused THEN 0
                                ELSE b.reserve_delta OPERATOR(pg_catalog.-) b.spent_reserve_delta END,
                          a.basic_left) END AS approx_delta_left,
       b.basic_share, b.basic_epsilon, b.basic_delta, b.basic_retired, b.filter_refused
  FROM dpobj.budgets b,
       LATERAL (SELECT b.spent_rho OPERATOR(pg_catalog.>) 0 OR b.filter_refused AS part2,
                       CASE WHEN b.basic_share OPERATOR(pg_catalog.>) 0 AND NOT b.basic_retired
                            THEN b.basic_share OPERATOR(pg_catalog.*)
                                   (b.granted_delta OPERATOR(pg_catalog.-) b.spent_delta)
                                 OPERATOR(pg_catalog.-) (b.basic_delta OPERATOR(pg_catalog.-) b.spent_delta)
                            ELSE 0 END AS basic_left) a;
-- my_budgets: spent_delta is the delta spent_epsilon goes with, the basic
-- filter's sum of delta while spent_epsilon is its sum of epsilon.
CREATE FUNCTION dpobj.budget_spent_delta(b dpobj.budgets)
RETURNS numeric
AS 'MODULE_PATHNAME', 'dpobj_budget_spent_delta'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.budget_spent_delta(dpobj.budgets) IS
    'The delta dpobj.budget_spent_epsilon goes with: the basic filter''s sum while that is its sum, else the linear part''s';
CREATE OR REPLACE VIEW dpobj.my_budgets WITH (security_barrier = true) AS
SELECT b.relid AS relation,
       b.budget_domain,
       b.granted_epsilon, b.granted_delta,
       dpobj.budget_spent_epsilon(b) AS spent_epsilon,
       dpobj.budget_spent_delta(b) AS spent_delta,
       dpobj.budget_remaining_epsilon(b) AS remaining_epsilon,
       b.granted_delta OPERATOR(pg_catalog.-) dpobj.budget_spent_delta(b) AS remaining_delta,
       dpobj.run_label(l.mechanism, l.epsilon, l.delta) AS last_run,
       dpobj.budget_runs_left(b, l.kind, l.epsilon, l.delta, l.rho) AS runs_left,
       p.privacy_unit,
       p.max_rows_per_unit,
       CASE WHEN b.budget_domain IS NOT NULL THEN
         ARRAY(SELECT m.relid FROM dpobj.protected_tables m
                WHERE m.budget_domain OPERATOR(pg_catalog.=) b.budget_domain
                ORDER BY m.relid::pg_catalog.text) END AS domain_tables
  FROM dpobj.budgets b
  LEFT JOIN dpobj.protected_tables p ON p.relid OPERATOR(pg_catalog.=) b.relid
  LEFT JOIN LATERAL (SELECT r.mechanism, r.epsilon, r.delta, r.kind, r.rho
                       FROM dpobj.ledger r
                      WHERE r.budget_id OPERATOR(pg_catalog.=) b.id
                      ORDER BY r.id DESC LIMIT 1) l ON true
 WHERE b.rolid::pg_catalog.oid OPERATOR(pg_catalog.=)
       (SELECT oid FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) CURRENT_USER);

-- A boolean column's declared levels as declare_domain stores them now
-- (src/protected/domains.c): 0.3.0 and 0.4.0 kept the owner's spelling (t/f,
-- yes/no, on/off, 1/0 and boolin's prefixes, any case), which no value's
-- text ('true', 'false') matched, so every row encoded as "other".  A level
-- repeated by the normalisation is kept once, first place; other levels stay.
UPDATE dpobj.feature_domains d
   SET levels = (SELECT pg_catalog.array_agg(v ORDER BY o)
                   FROM (SELECT v, pg_catalog.min(o) AS o
                           FROM (SELECT CASE WHEN pg_catalog.lower(l) OPERATOR(pg_catalog.=) ANY
                                                  ('{t,tr,tru,true,y,ye,yes,on,1}'::pg_catalog.text[]) THEN 'true'
                                             WHEN pg_catalog.lower(l) OPERATOR(pg_catalog.=) ANY
                                                  ('{f,fa,fal,fals,false,n,no,off,0}'::pg_catalog.text[]) THEN 'false'
                                             ELSE l END AS v, o
                                   FROM pg_catalog.unnest(d.levels) WITH ORDINALITY AS u(l, o)) n
                          GROUP BY v) g)
 WHERE d.levels IS NOT NULL
   AND EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a
                WHERE a.attrelid OPERATOR(pg_catalog.=) d.relid::pg_catalog.oid
                  AND a.attname OPERATOR(pg_catalog.=) d.column_name AND NOT a.attisdropped
                  AND a.atttypid OPERATOR(pg_catalog.=) 'pg_catalog.bool'::pg_catalog.regtype);

--------------------------------------------------------------------------
-- Private additive boosting: dp_ebm on noisy GD's kept rows (glm_state of its
-- own kind), train(..., 'ebm', ...) with the terms from the declared domains.
CREATE FUNCTION dpobj.dp_ebm_transfn(dpobj.glm_state, float8[], boolean, float8, float8, jsonb)
RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_ebm_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_ebm_finalfn(dpobj.glm_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_ebm_finalfn'
LANGUAGE C VOLATILE;
CREATE AGGREGATE dpobj.dp_ebm(features float8[], label boolean,
                              epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_ebm_transfn,
    STYPE = dpobj.glm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_ebm_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_ebm(float8[], boolean, float8, float8, jsonb) IS
    'Private additive boosting (per-term bin scores, discrete Gaussian noise on each round''s per-bin residual sums); options {"bins", "rounds", "learning_rate", "shrinkage", "count_share", "lo", "hi", "groups", "class_weight"}';
-- dp_ebm of a float8 label within public bounds (options "y_min", "y_max")
CREATE FUNCTION dpobj.dp_ebm_reg_transfn(dpobj.glm_state, float8[], float8, float8, float8, jsonb)
RETURNS dpobj.glm_state
AS 'MODULE_PATHNAME', 'dpobj_glm_ebm_reg_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_ebm_reg_finalfn(dpobj.glm_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_ebm_reg_finalfn'
LANGUAGE C VOLATILE;
CREATE AGGREGATE dpobj.dp_ebm(features float8[], label float8,
                              epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_ebm_reg_transfn,
    STYPE = dpobj.glm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_ebm_reg_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_glm_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_ebm(float8[], float8, float8, float8, jsonb) IS
    'Private additive boosting of a bounded float8 label (identity link); options {"y_min", "y_max" (required), "bins", "rounds", "learning_rate", "shrinkage", "count_share", "lo", "hi", "groups"}';

--------------------------------------------------------------------------
-- The mechanisms dpobj.train() accepts, from its registry
-- (src/mechanisms/registry.c), in the order of its hint: each name and the
-- methods it also accepts by name (logistic: objective, output, cms).
CREATE FUNCTION dpobj.mechanisms(OUT mechanism text, OUT methods text[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dpobj_mechanisms'
LANGUAGE C STABLE PARALLEL SAFE ROWS 16;
COMMENT ON FUNCTION dpobj.mechanisms() IS
    'The mechanisms dpobj.train() accepts, in registry order, and the methods each also accepts by name';

--------------------------------------------------------------------------
-- dp_aggregate with the encoding's columns as separate arguments
-- (src/mechanisms/aggregate.c): text for a column with levels, else float8,
-- in the encoding's order, encoded in the transition function, so no array
-- is built per row.  dpobj.aggregate() and describe() run it except on
-- Citus tables.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.dp_aggregate_cols_transfn(float8[], boolean, float8, float8, jsonb, VARIADIC "any")
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpobj_aggregate_cols_transfn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpobj.dp_aggregate_cols(label boolean, epsilon float8, delta float8,
                                         options jsonb, VARIADIC columns "any") (
    SFUNC = dpobj.dp_aggregate_cols_transfn,
    STYPE = float8[],
    FINALFUNC = dpobj.dp_aggregate_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_aggregate_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_aggregate_cols(boolean, float8, float8, jsonb, VARIADIC "any") IS
    'dp_aggregate with the layout encoding''s columns as separate arguments (text for levels, else float8), encoded per row without an array';

--------------------------------------------------------------------------
-- dpobj.aggregate() grouped by a column without declared levels
-- (src/mechanisms/aggkeys.c; docs/PRIVACY.md "Private key selection"):
-- each row's slots sorted by its key's text, keys released by a noisy
-- threshold after the one (epsilon, delta) charge.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.dp_aggregate_keys_transfn(internal, float8[], text, float8, float8, jsonb)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpobj_aggregate_keys_transfn'
LANGUAGE C VOLATILE;
CREATE FUNCTION dpobj.dp_aggregate_keys_finalfn(internal)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpobj_aggregate_keys_finalfn'
LANGUAGE C VOLATILE;
CREATE AGGREGATE dpobj.dp_aggregate_keys(features float8[], key text,
                                         epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_aggregate_keys_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_aggregate_keys_finalfn,
    FINALFUNC_MODIFY = READ_WRITE
);
COMMENT ON AGGREGATE dpobj.dp_aggregate_keys(float8[], text, float8, float8, jsonb) IS
    'DP noisy cells of encoded rows per key, keys released by a noisy count threshold; options {"layout": ...} with "max_keys"; dpobj.aggregate() runs it for a group_by column without declared levels';
