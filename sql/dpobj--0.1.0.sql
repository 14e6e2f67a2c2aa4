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
    finished_at timestamptz
);
COMMENT ON TABLE dpobj.ledger IS
    'Privacy budget ledger: every mechanism run, charged before its noise is drawn (append-only)';

CREATE INDEX ledger_rolname_idx ON dpobj.ledger (rolname);

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
       OR NEW.relation IS DISTINCT FROM OLD.relation THEN
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

CREATE AGGREGATE dpobj.dp_halfspace(features float8[], label boolean,
                                    epsilon float8, delta float8) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_halfspace_finalfn,
    FINALFUNC_MODIFY = READ_ONLY
);
COMMENT ON AGGREGATE dpobj.dp_halfspace(float8[], boolean, float8, float8) IS
    'OPDisc (Neel et al. 2020): (epsilon, delta)-DP halfspace classifier, exact oracle, charged to dpobj.ledger';

CREATE AGGREGATE dpobj.dp_halfspace(features float8[], label boolean,
                                    epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_halfspace_transfn,
    STYPE = internal,
    FINALFUNC = dpobj.dp_halfspace_finalfn,
    FINALFUNC_MODIFY = READ_ONLY
);
COMMENT ON AGGREGATE dpobj.dp_halfspace(float8[], boolean, float8, float8, jsonb) IS
    'OPDisc with options {"B", "D2", "Q", "oracle", "time_limit"}';
