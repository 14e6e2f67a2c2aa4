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

--------------------------------------------------------------------------
-- The synthesizer's typed rows (src/families/synth/synthtyped.c,
-- synthwrite.c): dpobj.sample_rows() returns dpobj.sample()'s rows as
-- records of a column definition list, dpobj.sample_into() writes them into
-- an existing table at COPY's speed; post-processing, no charge.
--------------------------------------------------------------------------
CREATE FUNCTION dpobj.sample_rows(m dpobj.model, n bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dpobj_synth_sample_rows'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION dpobj.sample_rows(dpobj.model, bigint) IS
    'n synthetic rows of a synthesizer model typed by a column definition list, e.g. AS t(age int, sex text) (each a model column); post-processing, no charge';
CREATE FUNCTION dpobj.sample_into(m dpobj.model, target regclass, n bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'dpobj_synth_sample_into'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dpobj.sample_into(dpobj.model, regclass, bigint) IS
    'Writes n synthetic rows of a synthesizer model into an existing table with a column of each model column''s name (INSERT needed), in batches as COPY does; returns the rows written; post-processing, no charge';
CREATE FUNCTION dpobj.sample_into(name text, target regclass, n bigint)
RETURNS bigint
LANGUAGE sql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpobj.sample_into(dpobj.get_model($1), $2, $3) $$;
COMMENT ON FUNCTION dpobj.sample_into(text, regclass, bigint) IS
    'dpobj.sample_into() of a stored model, by name';
