/* dpobj--0.3.0--0.4.0.sql — upgrade from the 0.3.0 release.
 *
 * Released with 0.4.0 (2026-11-26): this file never changes.  0.4.0's fresh install,
 * sql/dpobj--0.4.0.sql, is dpobj--0.3.0.sql followed by this script, and tests/upgrade/
 * proves that ALTER EXTENSION dpobj UPDATE from every release gives the same catalog as a
 * fresh install and keeps the data.
 *
 * The library refuses every charged or privileged entry point while the database's SQL
 * objects are older than it (src/protected/privileged.c), so a new library installed
 * before this update charges nothing.
 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION dpobj UPDATE TO '0.4.0'" to load this file. \quit

--------------------------------------------------------------------------
-- 0. Only in a schema that superusers control (docs/SECURITY.md,
-- "Installation").  First in this script on purpose: every later statement
-- names objects "dpobj.x" and runs as a superuser, so in a schema another
-- role controls (owned, CREATE granted, or renamed away while that role
-- planted its own "dpobj") they could run that role's code.  The same rule
-- as dpobj_verify_schema() in src/protected/privileged.c: the extension's schema,
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
