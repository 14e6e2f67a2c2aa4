/* dpobj--0.4.0--0.5.0.sql — upgrade from the 0.4.0 release.
 *
 * Released with 0.5.0 (2026-11-27): this file never changes.  0.5.0's fresh install,
 * sql/dpobj--0.5.0.sql, is dpobj--0.4.0.sql followed by this script, and tests/upgrade/
 * proves that ALTER EXTENSION dpobj UPDATE from every release gives the same catalog as a
 * fresh install and keeps the data.
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
-- 0b. Only into a schema holding nothing but the extension's own objects.
-- CREATE EXTENSION also uses a schema dpobj that another role created and
-- filled before a superuser took it over (section 0 then passes): its
-- tables and functions would stay beside the extension's.  An object in the
-- schema must be a member of dpobj, or hang off one (a row type, an array
-- type, an index, a sequence owned by a column).  A fresh install runs this
-- after dpobj--0.4.0.sql, whose objects are members by then.
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
