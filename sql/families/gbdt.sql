--------------------------------------------------------------------------
-- Private boosted trees (src/families/gbdt/; docs/PRIVACY.md "Boosted
-- trees"): dp_gbdt keeps its rows in its own state, dpobj.gbdt_state (as
-- dp_ebm's), and releases a model of kind boosted_trees: a boolean label
-- (logit link) or a float8 one within public bounds (identity link).
--------------------------------------------------------------------------
CREATE TYPE dpobj.gbdt_state;
CREATE FUNCTION dpobj.gbdt_state_in(cstring) RETURNS dpobj.gbdt_state
AS 'MODULE_PATHNAME', 'dpobj_gbdt_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.gbdt_state_out(dpobj.gbdt_state) RETURNS cstring
AS 'MODULE_PATHNAME', 'dpobj_gbdt_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.gbdt_state_recv(internal) RETURNS dpobj.gbdt_state
AS 'MODULE_PATHNAME', 'dpobj_gbdt_state_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpobj.gbdt_state_send(dpobj.gbdt_state) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpobj_gbdt_state_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE dpobj.gbdt_state (
    INPUT = dpobj.gbdt_state_in,
    OUTPUT = dpobj.gbdt_state_out,
    RECEIVE = dpobj.gbdt_state_recv,
    SEND = dpobj.gbdt_state_send,
    INTERNALLENGTH = VARIABLE,
    STORAGE = extended
);
COMMENT ON TYPE dpobj.gbdt_state IS
    'Aggregate state of dp_gbdt: distinct feature vectors with label counts (text: base64)';
CREATE FUNCTION dpobj.dp_gbdt_combine(dpobj.gbdt_state, dpobj.gbdt_state)
RETURNS dpobj.gbdt_state
AS 'MODULE_PATHNAME', 'dpobj_gbdt_state_combine'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_gbdt_transfn(dpobj.gbdt_state, float8[], boolean, float8, float8, jsonb)
RETURNS dpobj.gbdt_state
AS 'MODULE_PATHNAME', 'dpobj_gbdt_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_gbdt_finalfn(dpobj.gbdt_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_gbdt_finalfn'
LANGUAGE C VOLATILE;
CREATE AGGREGATE dpobj.dp_gbdt(features float8[], label boolean,
                               epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_gbdt_transfn,
    STYPE = dpobj.gbdt_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_gbdt_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_gbdt_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_gbdt(float8[], boolean, float8, float8, jsonb) IS
    'Private boosted trees (additive rounds, then oblivious trees, on bins at private quantiles; discrete Gaussian noise on the gradient and hessian histograms and on the leaves''); options {"additive_rounds", "additive_rate", "trees", "depth", "split_passes", "bins", "binning", "bin_share", "learning_rate", "residual_clip", "split_share", "reg", "lo", "hi", "groups", "class_weight", "metric"}';
-- dp_gbdt of a float8 label within public bounds (options "y_min", "y_max")
CREATE FUNCTION dpobj.dp_gbdt_reg_transfn(dpobj.gbdt_state, float8[], float8, float8, float8, jsonb)
RETURNS dpobj.gbdt_state
AS 'MODULE_PATHNAME', 'dpobj_gbdt_reg_transfn'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION dpobj.dp_gbdt_reg_finalfn(dpobj.gbdt_state)
RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_gbdt_reg_finalfn'
LANGUAGE C VOLATILE;
CREATE AGGREGATE dpobj.dp_gbdt(features float8[], label float8,
                               epsilon float8, delta float8, options jsonb) (
    SFUNC = dpobj.dp_gbdt_reg_transfn,
    STYPE = dpobj.gbdt_state,
    SSPACE = 16384,
    FINALFUNC = dpobj.dp_gbdt_reg_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = dpobj.dp_gbdt_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpobj.dp_gbdt(float8[], float8, float8, float8, jsonb) IS
    'Private boosted trees of a bounded float8 label (identity link); options {"y_min", "y_max" (required), "additive_rounds", "additive_rate", "trees", "depth", "split_passes", "bins", "binning", "bin_share", "learning_rate", "residual_clip", "split_share", "reg", "lo", "hi", "groups"}';
