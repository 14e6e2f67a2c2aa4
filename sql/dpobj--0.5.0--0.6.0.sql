/* dpobj--0.5.0--0.6.0.sql — upgrade from the 0.5.0 release.
 *
 * Released with 0.6.0 (2026-11-29): this file never changes.  It was built from a shared
 * part and each family's objects (sql/families/<f>.sql, in the registry's order).  A
 * fresh install runs sql/dpobj--0.5.0.sql followed by this script and the upgrades
 * after it, and tests/upgrade/ proves that ALTER EXTENSION dpobj UPDATE from every
 * release gives the same catalog as a fresh install and keeps the data.
 *
 * The library refuses every charged or privileged entry point while the database's SQL
 * objects are older than it (src/base/privileged.c), so a new library installed
 * before this update charges nothing.
 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION dpobj UPDATE TO '0.6.0'" to load this file. \quit

--------------------------------------------------------------------------
-- 0. Only in a schema that superusers control (docs/SECURITY.md,
-- "Installation").  First in this script on purpose: every later statement
-- names objects "dpobj.x" and runs as a superuser, so in a schema another
-- role controls (owned, CREATE granted, or renamed away while that role
-- planted its own "dpobj") they could run that role's code.  The same rule
-- as dpobj_verify_schema() in src/base/privileged.c: the extension's schema,
-- found by pg_extension, is named dpobj, owned by a superuser, and CREATE
-- on it is granted to superusers only.
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
-- 0b. Only into a schema holding nothing but the extension's own objects.
-- CREATE EXTENSION also uses a schema dpobj that another role created and
-- filled before a superuser took it over (section 0 then passes): its
-- tables and functions would stay beside the extension's.  An object in the
-- schema must be a member of dpobj, or hang off one (a row type, an array
-- type, an index, a sequence owned by a column).  A fresh install runs this
-- after dpobj--0.5.0.sql, whose objects are members by then.
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
-- dpobj.aggregate() and dpobj.describe() are epsilon-DP: delta defaults
-- to 0 (grouping by a key without declared levels still needs one).
--------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION dpobj.aggregate(tbl regclass, what jsonb, epsilon float8, delta float8 DEFAULT 0,
                                group_by text[] DEFAULT '{}', options jsonb DEFAULT '{}')
RETURNS TABLE(group_values jsonb, statistic text, column_name text, estimate float8,
              ci_low float8, ci_high float8)
AS 'MODULE_PATHNAME', 'dpobj_aggregate'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
CREATE OR REPLACE FUNCTION dpobj.describe(tbl regclass, epsilon float8, delta float8 DEFAULT 0,
                                          options jsonb DEFAULT '{}')
RETURNS TABLE(group_values jsonb, statistic text, column_name text, estimate float8,
              ci_low float8, ci_high float8)
AS 'MODULE_PATHNAME', 'dpobj_describe'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

--------------------------------------------------------------------------
-- explain() gains "rows": an additive model's released noisy count per
-- level or bin (params "counts"), and weighs its importance by them.  A
-- result column changes: drop and create again (text first: it calls the
-- other).
--------------------------------------------------------------------------
DROP FUNCTION dpobj.explain(text);
DROP FUNCTION dpobj.explain(dpobj.model);
CREATE FUNCTION dpobj.explain(m dpobj.model)
RETURNS TABLE(feature text, level text, contribution float8, importance float8, class text,
              rows float8)
AS 'MODULE_PATHNAME', 'dpobj_explain'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.explain(dpobj.model) IS
    'The model as rows: each weight, level or bin''s contribution to the score; rows, an additive model''s released noisy count (>= 0, rounded; else NULL); the feature''s importance: with rows the rows-weighted mean |contribution - m|, m the rows-weighted mean, else max - min over its domain';
CREATE FUNCTION dpobj.explain(name text)
RETURNS TABLE(feature text, level text, contribution float8, importance float8, class text,
              rows float8)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT * FROM dpobj.explain(dpobj.get_model($1)) $$;
COMMENT ON FUNCTION dpobj.explain(text) IS
    'dpobj.explain of your stored model of this name';

--------------------------------------------------------------------------
-- dpobj.evaluate() is epsilon-DP too: delta defaults to 0.  runs_left() and
-- cost() price such runs at their default: delta 0, which only epsilon-DP
-- mechanisms ('aggregate', 'evaluate') accept, as train() does.
--------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION dpobj.evaluate(rel regclass, model dpobj.model, features text[], label text,
                                          epsilon numeric, delta numeric DEFAULT 0,
                                          options jsonb DEFAULT '{}')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpobj_evaluate'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
CREATE OR REPLACE FUNCTION dpobj.runs_left(rel regclass, mechanism text, epsilon numeric,
                                           delta numeric DEFAULT 0, options jsonb DEFAULT '{}')
RETURNS bigint
AS 'MODULE_PATHNAME', 'dpobj_runs_left'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
CREATE OR REPLACE FUNCTION dpobj.cost(rel regclass, mechanism text, epsilon numeric,
                                      delta numeric DEFAULT 0, options jsonb DEFAULT '{}',
                                      OUT kind text, OUT charge_epsilon numeric,
                                      OUT charge_delta numeric, OUT rho numeric,
                                      OUT admitted boolean, OUT composition text,
                                      OUT adds_epsilon numeric, OUT spent_epsilon numeric,
                                      OUT remaining_epsilon numeric, OUT remaining_delta numeric)
RETURNS record
AS 'MODULE_PATHNAME', 'dpobj_cost'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

--------------------------------------------------------------------------
-- The one number that limits the next run: per kind of run (pure,
-- Gaussian, zCDP, approximate), the largest epsilon the next one may ask for now,
-- by the accountant's own rule on the run's cost (src/ledger/accountnext.c):
-- in my_budgets (the Gaussian and approximate ones at the delta of the
-- budget's last run that asked for one) and in runs_left(rel, delta), which
-- also lists the entry points of each kind from the mechanism registry.
-- my_budgets.last_run is NULL before the first run.  my_budgets.table_names
-- lists the tables a budget covers (the table, or the budget domain's
-- members) as schema-qualified text, so that WHERE 'schema.table' = ANY
-- (table_names) finds the budget that runs on a table charge, a domain's
-- too, without a cast; a budget stays one row.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.budget_next_epsilon(b dpobj.budgets, kind text, delta numeric)
RETURNS numeric
AS 'MODULE_PATHNAME', 'dpobj_budget_next_epsilon'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.budget_next_epsilon(dpobj.budgets, text, numeric) IS
    'The largest epsilon (a multiple of 0.000001) one more run of this kind (pure, gauss, zcdp, approx) at this delta may ask for on the budget row (0: none fits)';
CREATE FUNCTION dpobj.runs_left(rel regclass, delta numeric DEFAULT NULL)
RETURNS TABLE (kind text, at_delta numeric, next_epsilon numeric, mechanisms text)
AS 'MODULE_PATHNAME', 'dpobj_runs_left_next'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.runs_left(regclass, numeric) IS
    'Per kind of run (pure, gauss, zcdp, approx): the largest epsilon your next such run on the table may ask for now (pure at delta 0, the others at delta, else at your last run''s), and the entry points of that kind';
CREATE OR REPLACE VIEW dpobj.my_budgets WITH (security_barrier = true) AS
SELECT b.relid AS relation,
       b.budget_domain,
       b.granted_epsilon, b.granted_delta,
       dpobj.budget_spent_epsilon(b) AS spent_epsilon,
       dpobj.budget_spent_delta(b) AS spent_delta,
       dpobj.budget_remaining_epsilon(b) AS remaining_epsilon,
       b.granted_delta OPERATOR(pg_catalog.-) dpobj.budget_spent_delta(b) AS remaining_delta,
       CASE WHEN l.mechanism IS NOT NULL THEN
         dpobj.run_label(l.mechanism, l.epsilon, l.delta) END AS last_run,
       dpobj.budget_runs_left(b, l.kind, l.epsilon, l.delta, l.rho) AS runs_left,
       p.privacy_unit,
       p.max_rows_per_unit,
       CASE WHEN b.budget_domain IS NOT NULL THEN
         ARRAY(SELECT m.relid FROM dpobj.protected_tables m
                WHERE m.budget_domain OPERATOR(pg_catalog.=) b.budget_domain
                ORDER BY m.relid::pg_catalog.text) END AS domain_tables,
       ARRAY(SELECT pg_catalog.format('%I.%I', n.nspname, c.relname)
               FROM pg_catalog.pg_class c
               JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
              WHERE c.oid OPERATOR(pg_catalog.=) b.relid::pg_catalog.oid
                 OR c.oid OPERATOR(pg_catalog.=) ANY (ARRAY(
                      SELECT m.relid::pg_catalog.oid FROM dpobj.protected_tables m
                       WHERE m.budget_domain OPERATOR(pg_catalog.=) b.budget_domain))
              ORDER BY 1) AS table_names,
       ld.delta AS next_delta,
       dpobj.budget_next_epsilon(b, 'pure', 0) AS next_pure_epsilon,
       dpobj.budget_next_epsilon(b, 'gauss', ld.delta) AS next_gauss_epsilon,
       dpobj.budget_next_epsilon(b, 'zcdp', ld.delta) AS next_zcdp_epsilon,
       dpobj.budget_next_epsilon(b, 'approx', ld.delta) AS next_approx_epsilon
  FROM dpobj.budgets b
  LEFT JOIN dpobj.protected_tables p ON p.relid OPERATOR(pg_catalog.=) b.relid
  LEFT JOIN LATERAL (SELECT r.mechanism, r.epsilon, r.delta, r.kind, r.rho
                       FROM dpobj.ledger r
                      WHERE r.budget_id OPERATOR(pg_catalog.=) b.id
                      ORDER BY r.id DESC LIMIT 1) l ON true
  LEFT JOIN LATERAL (SELECT r.delta
                       FROM dpobj.ledger r
                      WHERE r.budget_id OPERATOR(pg_catalog.=) b.id
                        AND r.delta OPERATOR(pg_catalog.>) 0
                      ORDER BY r.id DESC LIMIT 1) ld ON true
 WHERE b.rolid::pg_catalog.oid OPERATOR(pg_catalog.=)
       (SELECT oid FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) CURRENT_USER);
COMMENT ON VIEW dpobj.my_budgets IS
    'The current role''s privacy budgets per table or budget domain (table_names: the tables it covers, as schema.table text): granted, spent (composed by the accountant at the granted delta) and remaining (epsilon, delta), the last run charged and how many more such runs fit, and the largest epsilon the next pure, Gaussian, zCDP and approximate run may ask for (all but pure at next_delta, the delta of the last run that asked for one)';

--------------------------------------------------------------------------
-- Raw values outside a model's declared levels (src/model/encodemodel.c):
-- on_unknown defaults to NULL, the model's own policy.  train() records
-- "on_unknown": "error" in the models it releases from now on, so a value it
-- never declared is refused (22023, naming the column and the value) unless
-- the caller passes 'other' or 'null'; a model without it (released before)
-- keeps mapping such a value to "other", as it did.  A null is "other" by
-- default, as train() encoded it.  dpobj.encode() is no longer strict: a
-- NULL on_unknown is that default.
--------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION dpobj.encode(m dpobj.model, raw jsonb, on_unknown text DEFAULT NULL)
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'dpobj_encode'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.encode(dpobj.model, jsonb, text) IS
    'The features of raw values {"column": value, ...} under the model''s recorded encoding (other keys are ignored); a categorical value outside the declared levels, or null: on_unknown ''error'' (refused), ''other'' (the "other" level) or ''null'' (NULL); NULL, the default: a null is ''other'' (as train() encoded it), any other value the model''s params on_unknown, else ''other''';
CREATE OR REPLACE FUNCTION dpobj.predict_raw(m dpobj.model, raw jsonb, on_unknown text DEFAULT NULL)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict($1, dpobj.encode($1, $2, $3)) $$;
CREATE OR REPLACE FUNCTION dpobj.score_raw(m dpobj.model, raw jsonb, on_unknown text DEFAULT NULL)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.score($1, dpobj.encode($1, $2, $3)) $$;
CREATE OR REPLACE FUNCTION dpobj.predict_class_raw(m dpobj.model, raw jsonb, on_unknown text DEFAULT NULL)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict_class($1, dpobj.encode($1, $2, $3)) $$;
CREATE OR REPLACE FUNCTION dpobj.probability_raw(m dpobj.model, raw jsonb, on_unknown text DEFAULT NULL)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.probability($1, dpobj.encode($1, $2, $3)) $$;
CREATE OR REPLACE FUNCTION dpobj.predict_raw(name text, raw jsonb, on_unknown text DEFAULT NULL)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict_raw(dpobj.get_model($1), $2, $3) $$;
CREATE OR REPLACE FUNCTION dpobj.score_raw(name text, raw jsonb, on_unknown text DEFAULT NULL)
RETURNS double precision
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.score_raw(dpobj.get_model($1), $2, $3) $$;
CREATE OR REPLACE FUNCTION dpobj.predict_class_raw(name text, raw jsonb, on_unknown text DEFAULT NULL)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.predict_class_raw(dpobj.get_model($1), $2, $3) $$;
CREATE OR REPLACE FUNCTION dpobj.probability_raw(name text, raw jsonb, on_unknown text DEFAULT NULL)
RETURNS double precision
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.probability_raw(dpobj.get_model($1), $2, $3) $$;

--------------------------------------------------------------------------
-- dpobj.aggregate()'s rows of a direct dp_aggregate() release: its
-- estimates and 95 % intervals by post-processing (src/protected/aggrows.c).
-- Quantiles are released as two noisy histograms (docs/PRIVACY.md,
-- "Private statistics"); the aggregates' signatures are unchanged.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.aggregate_rows(layout jsonb, release jsonb)
RETURNS TABLE(group_values jsonb, statistic text, column_name text, estimate float8,
              ci_low float8, ci_high float8)
AS 'MODULE_PATHNAME', 'dpobj_aggregate_rows'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.aggregate_rows(jsonb, jsonb) IS
    'dpobj.aggregate()''s rows (estimates, 95% intervals) of a dp_aggregate() or dp_aggregate_keys() release and the layout it ran with; post-processing only';

--------------------------------------------------------------------------
-- A stored model's kind (src/model/models.c): dpobj.models.kind is
-- dpobj.model_kind(model), read when the model is stored; rows stored
-- before get it here (NULL for one this library cannot read).
--------------------------------------------------------------------------
ALTER TABLE dpobj.models ADD COLUMN kind text;
COMMENT ON COLUMN dpobj.models.kind IS
    'The model''s kind (dpobj.model_kind): linear, regression, halfspace, multiclass, additive or synthesizer';
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT id, model FROM dpobj.models LOOP
        BEGIN
            UPDATE dpobj.models SET kind = dpobj.model_kind(r.model)
             WHERE id OPERATOR(pg_catalog.=) r.id;
        EXCEPTION WHEN invalid_parameter_value OR null_value_not_allowed THEN
            NULL;
        END;
    END LOOP;
END
$$;
COMMENT ON FUNCTION dpobj.model_kind(dpobj.model) IS
    'The model''s kind: linear, regression, halfspace, multiclass, additive or synthesizer';
--------------------------------------------------------------------------
-- ebm, a family of its own (src/families/ebm/): dp_ebm keeps its rows in its
-- own state, dpobj.ebm_state (was dpobj.glm_state of its own kind), with its
-- own transition and combine functions; the final functions keep their C
-- entry points and take the new type.  Models, ledger and jobs are untouched.
--------------------------------------------------------------------------
DROP AGGREGATE dpobj.dp_ebm(float8[], boolean, float8, float8, jsonb);
DROP AGGREGATE dpobj.dp_ebm(float8[], float8, float8, float8, jsonb);
DROP FUNCTION dpobj.dp_ebm_transfn(dpobj.glm_state, float8[], boolean, float8, float8, jsonb);
DROP FUNCTION dpobj.dp_ebm_finalfn(dpobj.glm_state);
DROP FUNCTION dpobj.dp_ebm_reg_transfn(dpobj.glm_state, float8[], float8, float8, float8, jsonb);
DROP FUNCTION dpobj.dp_ebm_reg_finalfn(dpobj.glm_state);
CREATE TYPE dpobj.ebm_state;
CREATE FUNCTION dpobj.ebm_state_in(cstring) RETURNS dpobj.ebm_state
AS 'MODULE_PATHNAME', 'dpobj_ebm_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.ebm_state_out(dpobj.ebm_state) RETURNS cstring
AS 'MODULE_PATHNAME', 'dpobj_ebm_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.ebm_state_recv(internal) RETURNS dpobj.ebm_state
AS 'MODULE_PATHNAME', 'dpobj_ebm_state_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.ebm_state_send(dpobj.ebm_state) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpobj_ebm_state_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE dpobj.ebm_state (
    INPUT = dpobj.ebm_state_in,
    OUTPUT = dpobj.ebm_state_out,
    RECEIVE = dpobj.ebm_state_recv,
    SEND = dpobj.ebm_state_send,
    INTERNALLENGTH = VARIABLE,
    STORAGE = extended
);
COMMENT ON TYPE dpobj.ebm_state IS
    'Aggregate state of dp_ebm: distinct feature vectors (a float8 label last) with label counts (text: base64)';
CREATE FUNCTION dpobj.dp_ebm_combine(dpobj.ebm_state, dpobj.ebm_state)
RETURNS dpobj.ebm_state
AS 'MODULE_PATHNAME', 'dpobj_ebm_state_combine'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_ebm_transfn(dpobj.ebm_state, float8[], boolean, float8, float8, jsonb)
RETURNS dpobj.ebm_state
AS 'MODULE_PATHNAME', 'dpobj_ebm_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_ebm_finalfn(dpobj.ebm_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_ebm_finalfn'
LANGUAGE C VOLATILE;
CREATE AGGREGATE dpobj.dp_ebm(features float8[], label boolean,
                              epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_ebm_transfn,
    STYPE = dpobj.ebm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_ebm_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_ebm_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_ebm(float8[], boolean, float8, float8, jsonb) IS
    'Private additive boosting (per-term bin scores, discrete Gaussian noise on each round''s per-bin residual sums); options {"bins", "rounds", "learning_rate", "shrinkage", "count_share", "lo", "hi", "groups", "class_weight"}';
CREATE FUNCTION dpobj.dp_ebm_reg_transfn(dpobj.ebm_state, float8[], float8, float8, float8, jsonb)
RETURNS dpobj.ebm_state
AS 'MODULE_PATHNAME', 'dpobj_ebm_reg_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_ebm_reg_finalfn(dpobj.ebm_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_ebm_reg_finalfn'
LANGUAGE C VOLATILE;
CREATE AGGREGATE dpobj.dp_ebm(features float8[], label float8,
                              epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_ebm_reg_transfn,
    STYPE = dpobj.ebm_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_ebm_reg_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_ebm_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_ebm(float8[], float8, float8, float8, jsonb) IS
    'Private additive boosting of a bounded float8 label (identity link); options {"y_min", "y_max" (required), "bins", "rounds", "learning_rate", "shrinkage", "count_share", "lo", "hi", "groups"}';
--------------------------------------------------------------------------
-- The synthesizer (src/families/synth/; docs/PRIVACY.md "Synthetic data"):
-- dp_synthesize_cols counts every candidate marginal of the declared
-- columns in one scan (state dpobj.synth_state, a public size), its final
-- function selects, measures and estimates (AIM class) and releases a model
-- of kind synthesizer; dpobj.synthesize() runs it sealed on a protected
-- table and writes a synthetic table owned by the caller; dpobj.sample()
-- and dpobj.marginal() answer from the model at no charge.
--------------------------------------------------------------------------
CREATE TYPE dpobj.synth_state;
CREATE FUNCTION dpobj.synth_state_in(cstring) RETURNS dpobj.synth_state
AS 'MODULE_PATHNAME', 'dpobj_synth_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.synth_state_out(dpobj.synth_state) RETURNS cstring
AS 'MODULE_PATHNAME', 'dpobj_synth_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.synth_state_recv(internal) RETURNS dpobj.synth_state
AS 'MODULE_PATHNAME', 'dpobj_synth_state_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.synth_state_send(dpobj.synth_state) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpobj_synth_state_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE dpobj.synth_state (
    INPUT = dpobj.synth_state_in,
    OUTPUT = dpobj.synth_state_out,
    RECEIVE = dpobj.synth_state_recv,
    SEND = dpobj.synth_state_send,
    INTERNALLENGTH = VARIABLE,
    STORAGE = extended
);
COMMENT ON TYPE dpobj.synth_state IS
    'Aggregate state of dp_synthesize_cols: the counts of every candidate marginal, a public size (text: base64)';
CREATE FUNCTION dpobj.dp_synthesize_cols_transfn(dpobj.synth_state, boolean, float8, float8, jsonb, VARIADIC "any")
RETURNS dpobj.synth_state
AS 'MODULE_PATHNAME', 'dpobj_synth_cols_transfn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_synthesize_combinefn(dpobj.synth_state, dpobj.synth_state)
RETURNS dpobj.synth_state
AS 'MODULE_PATHNAME', 'dpobj_synth_combinefn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_synthesize_finalfn(dpobj.synth_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_synth_finalfn'
LANGUAGE C VOLATILE;
CREATE AGGREGATE dpobj.dp_synthesize_cols(label boolean, epsilon float8, delta float8,
                                          options jsonb, VARIADIC columns "any") (
    SFUNC = dpobj.dp_synthesize_cols_transfn,
    STYPE = dpobj.synth_state,
    FINALFUNC = dpobj.dp_synthesize_finalfn,
    FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = dpobj.dp_synthesize_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_synthesize_cols(boolean, float8, float8, jsonb, VARIADIC "any") IS
    'The synthesizer on the columns of options "domains" as separate arguments (text for levels, else float8); releases a model of kind synthesizer';

CREATE FUNCTION dpobj.synthesize(tbl regclass, target text, epsilon float8, delta float8,
                                 columns text[] DEFAULT NULL, options jsonb DEFAULT '{}',
                                 OUT target_table text, OUT model_name text, OUT rows bigint)
AS 'MODULE_PATHNAME', 'dpobj_synthesize'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.synthesize(regclass, text, float8, float8, text[], jsonb) IS
    'A private synthetic copy of a protected table''s declared columns: charged once, the model stored by name (default the target''s), the target created and owned by the caller with the noisy row count (or options "rows")';

CREATE FUNCTION dpobj.sample(m dpobj.model, n bigint)
RETURNS SETOF jsonb
AS 'MODULE_PATHNAME', 'dpobj_synth_sample'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION dpobj.sample(dpobj.model, bigint) IS
    'n synthetic rows {"column": value} drawn from a synthesizer model; post-processing, no charge';
CREATE FUNCTION dpobj.sample(name text, n bigint)
RETURNS SETOF jsonb
LANGUAGE sql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.sample(dpobj.get_model($1), $2) $$;
COMMENT ON FUNCTION dpobj.sample(text, bigint) IS
    'dpobj.sample() of a stored model, by name';

CREATE FUNCTION dpobj.marginal(m dpobj.model, columns text[])
RETURNS TABLE(cell jsonb, estimate float8, ci_low float8, ci_high float8, basis text)
AS 'MODULE_PATHNAME', 'dpobj_synth_marginal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.marginal(dpobj.model, text[]) IS
    'A synthesizer model''s marginal on the columns: each cell''s estimated count and 95% interval (basis measured or selection; none: NULL); post-processing, no charge';
CREATE FUNCTION dpobj.marginal(name text, columns text[])
RETURNS TABLE(cell jsonb, estimate float8, ci_low float8, ci_high float8, basis text)
LANGUAGE sql STABLE STRICT
SET search_path = pg_catalog, pg_temp
AS $$ SELECT * FROM dpobj.marginal(dpobj.get_model($1), $2) $$;
COMMENT ON FUNCTION dpobj.marginal(text, text[]) IS
    'dpobj.marginal() of a stored model, by name';

-- The synthesizer's array form (src/families/synth/synthagg.c): the declared columns raw as
-- two arrays, the text of those with levels and the float8 of the others, in the order of
-- options "domains"; what train() runs on a Citus table, whose partial aggregate takes no
-- VARIADIC "any" (the same state, combine and final function as dp_synthesize_cols).
CREATE FUNCTION dpobj.dp_synthesize_transfn(dpobj.synth_state, boolean, float8, float8, jsonb, text[], float8[])
RETURNS dpobj.synth_state
AS 'MODULE_PATHNAME', 'dpobj_synth_transfn'
LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpobj.dp_synthesize(label boolean, epsilon float8, delta float8, options jsonb,
                                     levels text[], numbers float8[]) (
    SFUNC = dpobj.dp_synthesize_transfn,
    STYPE = dpobj.synth_state,
    FINALFUNC = dpobj.dp_synthesize_finalfn,
    FINALFUNC_MODIFY = READ_WRITE,
    COMBINEFUNC = dpobj.dp_synthesize_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_synthesize(boolean, float8, float8, jsonb, text[], float8[]) IS
    'dp_synthesize_cols with the columns as two arrays (text of those with levels, float8 of the others, each in the order of options "domains"); train()''s form on Citus';
