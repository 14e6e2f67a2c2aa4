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
