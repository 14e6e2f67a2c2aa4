-- dpobj.synth_fidelity(): per measurement of a synthesizer model, the fitted model's l1
-- distance to the noisy measurement against the distance its noise alone gives
-- (src/families/synth/synthfidelity.c); post-processing of the model, no charge.
CREATE FUNCTION dpobj.synth_fidelity(m dpobj.model)
RETURNS TABLE(columns text[], cells integer, distance float8, expected_noise float8, ratio float8)
AS 'MODULE_PATHNAME', 'dpobj_synth_fidelity'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpobj.synth_fidelity(dpobj.model) IS
    'Per measurement of a synthesizer model: its columns, cells, the model''s l1 distance to it, the distance its noise alone gives (sqrt(2/pi) sd a cell) and their ratio; post-processing, no charge';
CREATE FUNCTION dpobj.synth_fidelity(name text)
RETURNS TABLE(columns text[], cells integer, distance float8, expected_noise float8, ratio float8)
LANGUAGE sql STABLE STRICT
SET search_path = pg_catalog, pg_temp
AS $$ SELECT * FROM dpobj.synth_fidelity(dpobj.get_model($1)) $$;
COMMENT ON FUNCTION dpobj.synth_fidelity(text) IS
    'dpobj.synth_fidelity() of a stored model, by name';
