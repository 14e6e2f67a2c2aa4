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
