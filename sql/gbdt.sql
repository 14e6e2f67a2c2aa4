-- Private boosted trees, dp_gbdt and train(..., 'gbdt', ...) (docs/PRIVACY.md, "Boosted
-- trees"):
--   * the model: trees x 2^depth leaves as its weights, each tree's splits (one per
--     level, oblivious) in params->'splits'; public parameters and DP output only;
--   * a seeded run learns an interaction an additive model cannot (ebm's on the same rows);
--   * the default additive rounds learn a one-term signal, released as step trees;
--   * score, predict and explain read the splits; a forged model errs (22023);
--   * a float8 label within public bounds: the identity link, the model in its units;
--   * every malformed option is refused before anything is charged;
--   * through train() the terms come from the declared domains, one gauss charge.
CREATE SCHEMA regress_gbdt;
GRANT USAGE ON SCHEMA regress_gbdt TO PUBLIC;
-- 4000 rows: y is (a > 0.5) xor (c = 'z'), b is noise; no additive model of a and c fits it
CREATE TABLE regress_gbdt.pts AS
SELECT i, ((i * 37) % 101) / 100.0 AS a, ((i * 53) % 97) / 96.0 AS b, (ARRAY['x', 'y', 'z'])[1 + i % 3] AS c,
       ((((i * 37) % 101) / 100.0 > 0.5) <> (i % 3 = 2)) AS y
  FROM generate_series(1, 4000) i;
CREATE VIEW regress_gbdt.v AS
SELECT ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[] AS x, y FROM regress_gbdt.pts;
-- the margin as the splits read: a numeric split's bin among "bins" equal-width bins of
-- [lo, hi] at least "at", a categorical split's level "at"; leaf = sum of 2^level
CREATE FUNCTION regress_gbdt.margin(m dpobj.model, x float8[]) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE z float8 := m.bias; d int := (m.params->>'depth')::int; s jsonb; j int; b int; leaf int; k int := 0;
BEGIN
    FOR tr IN 0 .. cardinality(m.weights) / (1 << d) - 1 LOOP
        leaf := 0;
        FOR l IN 0 .. d - 1 LOOP
            s := m.params->'splits'->k;
            k := k + 1;
            j := (s->>'index')::int + 1;
            IF s ? 'bins' THEN
                b := greatest(0, least((s->>'bins')::int - 1,
                     floor((x[j] - (s->>'lo')::float8) / ((s->>'hi')::float8 - (s->>'lo')::float8)
                           * (s->>'bins')::int)::int));
                IF b >= (s->>'at')::int THEN leaf := leaf + (1 << l); END IF;
            ELSIF x[j + (s->>'at')::int] = 1 THEN
                leaf := leaf + (1 << l);
            END IF;
        END LOOP;
        z := z + m.weights[tr * (1 << d) + leaf + 1];
    END LOOP;
    RETURN z;
END $$;
SELECT round(greatest(avg(y::int), 1 - avg(y::int)), 3) AS majority FROM regress_gbdt.pts;

-- ---- the surface: layout, public params, seeded reproducibility ----
SET dpobj.seed = 7;
CREATE TEMP TABLE m AS
SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "trees": 20, "depth": 2, "split_passes": 2, "additive_rounds": 0, "learning_rate": 0.5, "groups": [0, 0, 3]}') AS m
  FROM regress_gbdt.v;
SELECT (m).mechanism, cardinality((m).weights) AS leaves, jsonb_array_length((m).params->'splits') AS splits,
       (m).params->>'link' AS link, (m).params->>'trees' AS trees, (m).params->>'depth' AS depth,
       (m).params->>'noise' AS noise
  FROM m;
SELECT array_agg(key ORDER BY key) AS param_keys FROM m, jsonb_object_keys((m).params) key;
-- every split on a declared term: a numeric one's cells of [lo, hi] (private edges: the
-- grid's) and an inner edge, a categorical one's group of 3 and one of its levels
SELECT bool_and(CASE WHEN s ? 'bins' THEN (s->>'index')::int IN (0, 1) AND (s->>'bins')::int = 4096
                          AND (s->>'lo')::float8 = 0 AND (s->>'hi')::float8 = 1
                          AND (s->>'at')::int BETWEEN 1 AND 4095
                     ELSE (s->>'index')::int = 2 AND (s->>'size')::int = 3
                          AND (s->>'at')::int BETWEEN 0 AND 2 END) AS splits_on_terms
  FROM m, jsonb_array_elements((m).params->'splits') s;
-- the same seed, the same model
SELECT (SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "trees": 20, "depth": 2, "split_passes": 2, "additive_rounds": 0, "learning_rate": 0.5, "groups": [0, 0, 3]}')
          FROM regress_gbdt.v) = m AS reproducible FROM m;
-- a 64kB cap: the state spills; the passes keep the margins and bins of the first
-- observations only and compute the rest again (gbdt.c, keptbins.h): the same model
SET dpobj.max_state_memory = '64kB';
SELECT (SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "trees": 20, "depth": 2, "split_passes": 2, "additive_rounds": 0, "learning_rate": 0.5, "groups": [0, 0, 3]}')
          FROM regress_gbdt.v) = m AS same_spilled FROM m;
RESET dpobj.max_state_memory;
-- 200 distinct rows at a 64kB cap: in memory (within half the cap), past the design's
-- block (keptdesign.h), so replayed rather than copied (keptstate.h): the same model
CREATE TEMP VIEW v200 AS
SELECT ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[] AS x, y
  FROM regress_gbdt.pts WHERE i <= 200;
SELECT count(DISTINCT x) AS distinct_rows FROM v200;
CREATE TEMP TABLE m200 AS
SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "trees": 5, "groups": [0, 0, 3]}') AS m FROM v200;
SET dpobj.max_state_memory = '64kB';
SELECT (SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "trees": 5, "groups": [0, 0, 3]}')
          FROM v200) = m AS same_replayed FROM m200;
RESET dpobj.max_state_memory;
DROP VIEW v200;
-- and with the defaults (private edges, additive rounds before the trees)
CREATE TEMP TABLE md AS SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "groups": [0, 0, 3]}') AS m
  FROM regress_gbdt.v;
SET dpobj.max_state_memory = '64kB';
SELECT (SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "groups": [0, 0, 3]}')
          FROM regress_gbdt.v) = m AS same_spilled_defaults FROM md;
RESET dpobj.max_state_memory;
-- the trees learn the interaction, ebm's additive model on the same rows cannot
SELECT avg(((regress_gbdt.margin(m, x) > ((m).params->>'threshold')::float8) = y)::int) > 0.9 AS trees_learn,
       (SELECT avg((dpobj.predict(e, x) = y)::int)
          FROM (SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "groups": [0, 0, 3]}') AS e
                  FROM regress_gbdt.v) s, regress_gbdt.v) < 0.75 AS additive_cannot
  FROM m, regress_gbdt.v;
-- the defaults: additive rounds first, their scores released as step trees after the
-- boosted ones (every level the same split); a one-term signal learned, read as any tree
CREATE TEMP TABLE am AS
SELECT dpobj.dp_gbdt(x, x[1] > 0.5, 1, 1e-6, '{"lo": 0, "hi": 1, "groups": [0, 0, 3]}') AS m FROM regress_gbdt.v;
SELECT cardinality((m).weights) / 16 > ((m).params->>'trees')::int AS has_step_trees,
       (SELECT avg((dpobj.predict(m, x) = (x[1] > 0.5))::int) FROM regress_gbdt.v) > 0.9 AS additive_learns,
       (SELECT bool_and(abs(dpobj.score(m, x) - regress_gbdt.margin(m, x)) < 1e-9) FROM regress_gbdt.v) AS score_is_margin
  FROM am;
-- score = margin, predict = margin > the model's cut-off (params "threshold")
SELECT dpobj.model_kind(m) AS kind,
       bool_and(abs(dpobj.score(m, x) - regress_gbdt.margin(m, x)) < 1e-9) AS score_is_margin,
       bool_and(dpobj.predict(m, x) = (regress_gbdt.margin(m, x) > ((m).params->>'threshold')::float8)) AS predict_is_cut,
       bool_and(abs(dpobj.probability(m, x) - 1 / (1 + exp(-regress_gbdt.margin(m, x)))) < 1e-9) AS probability_is_logit
  FROM m, regress_gbdt.v GROUP BY 1;
-- explain: a and c carry the gain, b (noise) less; a & c the main interaction
SELECT feature, level, importance > 0 AS has_gain
  FROM m, dpobj.explain(m) WHERE feature IN ('x[1]', 'x[3]', 'x[1] & x[3]', 'x[3] & x[1]', '(intercept)')
 ORDER BY feature;
SELECT (SELECT feature FROM dpobj.explain(m) WHERE level = '(interaction)' ORDER BY importance DESC LIMIT 1)
         IN ('x[1] & x[3]', 'x[3] & x[1]') AS main_interaction,
       (SELECT importance FROM dpobj.explain(m) WHERE feature = 'x[2]') IS NOT DISTINCT FROM NULL
         OR (SELECT importance FROM dpobj.explain(m) WHERE feature = 'x[2]')
            < (SELECT importance FROM dpobj.explain(m) WHERE feature = 'x[1]') AS noise_less
  FROM m;
-- more trees or units of k rows: more noise per release
SELECT round((((SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, '{"trees": 80, "depth": 2, "groups": [0, 0, 3]}') FROM regress_gbdt.v)).params->>'sigma')::numeric
             / (((SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, '{"trees": 20, "depth": 2, "groups": [0, 0, 3]}') FROM regress_gbdt.v)).params->>'sigma')::numeric, 2)
         AS four_trees_sigma_ratio,
       round((((SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, '{"rows_per_unit": 3, "trees": 10, "depth": 2, "groups": [0, 0, 3]}') FROM regress_gbdt.v)).params->>'sigma')::numeric
             / (((SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, '{"trees": 10, "depth": 2, "groups": [0, 0, 3]}') FROM regress_gbdt.v)).params->>'sigma')::numeric, 2)
         AS unit_3_sigma_ratio;
RESET dpobj.seed;

-- ---- errors on public grounds, before any row ----
SELECT o, e.* FROM (VALUES
    ('{"trees": 0}'), ('{"trees": 1001}'), ('{"depth": 1}'), ('{"depth": 5}'), ('{"bins": 1}'),
    ('{"learning_rate": 0}'), ('{"residual_clip": 0}'), ('{"residual_clip": 2}'),
    ('{"split_share": 0}'), ('{"split_share": 1}'), ('{"reg": 0}'), ('{"lo": 1, "hi": 1}'),
    ('{"groups": [0, 0, 2]}'), ('{"tree_terms": -1}'), ('{"R": 1}'), ('{"nope": 1}'),
    ('{"y_min": 0, "y_max": 1}'), ('{"class_weight": {"false": 2}}')) v(o),
  LATERAL regress.err(format('SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, %L) FROM regress_gbdt.v', o)) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_gbdt(x, y, 1e-9, 1e-6, '{"trees": 1000}') FROM regress_gbdt.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_gbdt(x, y, 1, 1e-6, NULL) FROM regress_gbdt.v$$) e;

-- ---- a float8 label within public bounds y_min, y_max: the identity link ----
CREATE TABLE regress_gbdt.reg AS
SELECT a, b, c, 10 + 20 * ((a > 0.5) <> (c = 'z'))::int + 5 * a AS t FROM regress_gbdt.pts;
SET dpobj.seed = 7;
CREATE TEMP TABLE rm AS
SELECT dpobj.dp_gbdt(ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[], t::float8, 1, 1e-6,
                     '{"lo": 0, "hi": 1, "groups": [0, 0, 3], "y_min": 0, "y_max": 40, "trees": 20, "depth": 2,
                       "split_passes": 2, "additive_rounds": 0, "learning_rate": 0.5}') AS m
  FROM regress_gbdt.reg;
RESET dpobj.seed;
SELECT (m).params->>'link' AS link, (m).params->>'y_min' AS y_min, (m).params->>'y_max' AS y_max,
       (m).params ? 'threshold' AS has_threshold, cardinality((m).weights) AS leaves FROM rm;
-- the model in the label's units, the interaction learned: its error well below the
-- constant mean's; score = the margin the splits read, predict the same value
SELECT sqrt(avg((t - regress_gbdt.margin(m, ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[]))^2))
         < 0.6 * (SELECT stddev_pop(t) FROM regress_gbdt.reg) AS beats_the_mean,
       bool_and(abs(dpobj.score(m, ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[])
                    - regress_gbdt.margin(m, ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[])) < 1e-9)
         AS score_is_margin
  FROM rm, regress_gbdt.reg;
SELECT o, e.* FROM (VALUES
    ('{"y_min": 0}'), ('{"y_min": 1, "y_max": 1}'), ('{"y_min": 0, "y_max": 1, "class_weight": {"false": 0.5}}')) v(o),
  LATERAL regress.err(format('SELECT dpobj.dp_gbdt(x, 1.0::float8, 1, 1e-6, %L) FROM regress_gbdt.v', o)) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_gbdt(x, 'NaN'::float8, 1, 1e-6, '{"y_min": 0, "y_max": 1}') FROM regress_gbdt.v$$) e;

-- ---- forged models: every model function errs 22023, never crashes ----
SELECT o AS forged, e.* FROM (VALUES
    ('{"splits": null}'), ('{"splits": []}'), ('{"depth": 5}'), ('{"depth": "2"}'), ('{"d": 1}'),
    ('{"link": "probit"}'), ('{"splits": [1, 2]}')) v(o),
  LATERAL regress.err(format('SELECT dpobj.score(ROW(%L, %L::float8[], 0, 1, 1e-6, %L)::dpobj.model, %L::float8[])',
                             (SELECT (m).mechanism FROM m), (SELECT (m).weights FROM m),
                             (SELECT (m).params || o::jsonb FROM m), '{0.5, 0.5, 0, 0, 1}')) e;
SELECT o AS forged_split, e.* FROM (VALUES
    ('{"at": -1}'), ('{"at": 4097}'), ('{"index": 5}'), ('{"bins": 1}'), ('{"lo": 2}'), ('{"gain": "x"}'),
    ('{"size": 9}')) v(o),
  LATERAL regress.err(format('SELECT * FROM dpobj.explain(ROW(%L, %L::float8[], 0, 1, 1e-6, %L)::dpobj.model)',
                             (SELECT (m).mechanism FROM m), (SELECT (m).weights FROM m),
                             (SELECT jsonb_set((m).params, '{splits,0}', ((m).params->'splits'->0) || o::jsonb) FROM m))) e;
-- the leaves one short of the trees' 2^depth
SELECT e.* FROM regress.err(format('SELECT dpobj.predict(ROW(%L, %L::float8[], 0, 1, 1e-6, %L)::dpobj.model, %L::float8[])',
                                   (SELECT (m).mechanism FROM m), (SELECT (m).weights[2:] FROM m),
                                   (SELECT (m).params FROM m), '{0.5, 0.5, 0, 0, 1}')) e;

-- ---- train(): terms from the declared domains, one gauss charge ----
CREATE ROLE regress_gbdt_alice;
SELECT dpobj.protect('regress_gbdt.pts');
SELECT dpobj.declare_domain('regress_gbdt.pts', 'c', ARRAY['x', 'y', 'z']);
SELECT dpobj.declare_domain('regress_gbdt.pts', 'a', 0, 1);
SELECT dpobj.declare_domain('regress_gbdt.pts', 'b', 0, 1);
SELECT granted_epsilon FROM dpobj.grant_budget('regress_gbdt.pts', 'regress_gbdt_alice', 10, 1e-5);
SET ROLE regress_gbdt_alice;
-- refused options cost nothing
SELECT e.* FROM regress.err($$SELECT dpobj.train('regress_gbdt.pts', 'gbdt', ARRAY['c', 'a', 'b'], 'y', 1, 1e-6, '{"depth": 9}')$$) e;
SELECT remaining_epsilon FROM dpobj.my_budgets WHERE relation = 'regress_gbdt.pts'::regclass;
CREATE TEMP TABLE tm AS
SELECT dpobj.train('regress_gbdt.pts', 'gbdt', ARRAY['c', 'a', 'b'], 'y', 1, 1e-6, '{"trees": 10, "depth": 2}') AS m;
-- c: x, y, z and "other" (a group of 4 at index 0), a and b numeric after it; the 10
-- trees' leaves, then the additive rounds' step trees' (as many as the private cuts)
SELECT (m).mechanism, cardinality((m).weights) % 4 = 0 AND cardinality((m).weights) > 40 AS leaves,
       bool_and(CASE WHEN s ? 'size' THEN (s->>'index')::int = 0 AND (s->>'size')::int = 4
                     ELSE (s->>'index')::int IN (4, 5) END) AS splits_on_declared_terms
  FROM tm, jsonb_array_elements((m).params->'splits') s GROUP BY 1, 2;
SELECT dpobj.predict_raw(m, '{"c": "z", "a": 0.9, "b": 0.5}') IS NOT NULL AS predicts_raw,
       dpobj.probability_raw(m, '{"c": "x", "a": 0.1, "b": 0.5}') BETWEEN 0 AND 1 AS probability_raw
  FROM tm;
-- explain names the declared columns
SELECT feature FROM tm, dpobj.explain(m) WHERE level IS NULL AND feature IN ('a', 'b', 'c') ORDER BY 1 LIMIT 1;
SELECT l.mechanism, l.kind,
       l.rho >= ((t.m).params->>'rho')::numeric + ((t.m).params->>'balance_rho')::numeric AS rho_rounded_up,
       l.rho < (((t.m).params->>'rho')::numeric + ((t.m).params->>'balance_rho')::numeric) * 1.000000001 AS by_a_hair
  FROM tm t, dpobj.ledger l WHERE l.relation = 'regress_gbdt.pts';
RESET ROLE;
DROP TABLE tm, m, rm;
DROP SCHEMA regress_gbdt CASCADE;
DROP ROLE regress_gbdt_alice;
