-- Private additive boosting, dp_ebm and train(..., 'ebm', ...) (docs/PRIVACY.md,
-- "Additive boosting"):
--   * the model: a bias and one score table per term, concatenated in term order, and
--     the layout in params->'terms' (a numeric term's bins: runs of a grid's cells of
--     [lo, hi] between its private cuts, or with "binning": "uniform" equal-width bins;
--     a one-hot group's levels); public parameters and DP output only;
--   * private cuts follow the rows where equal-width bins over a wide declared range
--     cannot;
--   * a seeded run on an unprotected table beats the majority class; with a float8 label
--     and public bounds (identity link) the constant mean;
--   * every malformed option is refused before anything is charged;
--   * through train() the terms come from the declared domains, and the run is one
--     ledger row of kind gauss whose rho is the calibration's.
CREATE SCHEMA regress_ebm;
GRANT USAGE ON SCHEMA regress_ebm TO PUBLIC;
-- 2000 rows: a label driven by a threshold on a, a bump in b and a level of c
CREATE TABLE regress_ebm.pts AS
SELECT i, ((i * 37) % 101) / 100.0 AS a, ((i * 53) % 97) / 96.0 AS b, (ARRAY['x', 'y', 'z'])[1 + i % 3] AS c,
       (((i * 37) % 101) / 100.0 > 0.6) OR abs(((i * 53) % 97) / 96.0 - 0.5) < 0.15 OR i % 3 = 2 AS y
  FROM generate_series(1, 2000) i;
CREATE VIEW regress_ebm.v AS
SELECT ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[] AS x, y FROM regress_ebm.pts;
-- the margin of an additive model, as its layout reads: a numeric term's cell among
-- "grid" (else "bins") equal-width cells of [lo, hi], its bin the number of "cuts" at or
-- below the cell (without cuts the cell itself)
CREATE FUNCTION regress_ebm.margin(m dpobj.model, x float8[]) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE z float8 := m.bias; off int := 0; t jsonb; b int; n int; j int; g int;
BEGIN
    FOR t IN SELECT jsonb_array_elements(m.params -> 'terms') LOOP
        j := (t ->> 'index')::int + 1;
        IF t ->> 'type' = 'numeric' THEN
            n := (t ->> 'bins')::int;
            g := coalesce((t ->> 'grid')::int, n);
            b := greatest(0, least(g - 1, floor((x[j] - (t ->> 'lo')::float8)
                                               / ((t ->> 'hi')::float8 - (t ->> 'lo')::float8) * g)::int));
            IF t ? 'cuts' THEN
                b := (SELECT count(*) FROM jsonb_array_elements_text(t -> 'cuts') c WHERE c::int <= b);
            END IF;
        ELSE
            n := (t ->> 'size')::int;
            b := 0;
            FOR l IN 0 .. n - 1 LOOP
                IF x[j + l] = 1 THEN b := l; EXIT; END IF;
            END LOOP;
        END IF;
        z := z + m.weights[off + b + 1];
        off := off + n;
    END LOOP;
    RETURN z;
END $$;
SELECT round(greatest(avg(y::int), 1 - avg(y::int)), 3) AS majority FROM regress_ebm.pts;

-- ---- the surface: layout, public params, seeded reproducibility ----
SET dpobj.seed = 5;
CREATE TEMP TABLE m AS
SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "bins": 8, "learning_rate": 4, "groups": [0, 0, 3]}') AS m
  FROM regress_ebm.v;
SELECT (m).mechanism, cardinality((m).weights) AS scores, (m).params->'terms' AS terms,
       (m).params->>'link' AS link, (m).params->>'bins' AS bins, (m).params->>'rounds' AS rounds,
       (m).params->>'noise' AS noise, (m).params ? 'rho' AS has_rho, (m).params ? 'sigma' AS has_sigma
  FROM m;
SELECT array_agg(key ORDER BY key) AS param_keys FROM m, jsonb_object_keys((m).params) key;
-- the same seed, the same model
SELECT (SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "bins": 8, "learning_rate": 4, "groups": [0, 0, 3]}')
          FROM regress_ebm.v) = m AS reproducible FROM m;
-- a 64kB cap: the state spills and the rounds re-bin all but the observations the first
-- pass kept (ebm.c); the same model as the one that kept them all
SET dpobj.max_state_memory = '64kB';
SELECT (SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "bins": 8, "learning_rate": 4, "groups": [0, 0, 3]}')
          FROM regress_ebm.v) = m AS same_spilled FROM m;
RESET dpobj.max_state_memory;
-- 200 distinct rows in memory past the design's block at 64kB: replayed, not copied
-- (keptstate.h); the same model as at the default cap
CREATE TEMP VIEW v200 AS
SELECT ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[] AS x, y
  FROM regress_ebm.pts WHERE i <= 200;
CREATE TEMP TABLE m200 AS
SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "bins": 8, "groups": [0, 0, 3]}') AS m FROM v200;
SET dpobj.max_state_memory = '64kB';
SELECT (SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "bins": 8, "groups": [0, 0, 3]}')
          FROM v200) = m AS same_replayed FROM m200;
RESET dpobj.max_state_memory;
DROP VIEW v200;
-- each term's scores are centred on their noisy counts: the bias holds the base rate;
-- the model beats the majority class (0.719) by far
SELECT avg(((regress_ebm.margin(m, x) > 0) = y)::int) > 0.9 AS beats_majority
  FROM m, regress_ebm.v;
-- the model kinds' dispatch reads the same layout: score = margin, predict = margin >
-- the model's cut-off (params "threshold")
SELECT dpobj.model_kind(m) AS kind,
       bool_and(abs(dpobj.score(m, x) - regress_ebm.margin(m, x)) < 1e-9) AS score_is_margin,
       bool_and(dpobj.predict(m, x) = (regress_ebm.margin(m, x) > ((m).params->>'threshold')::float8)) AS predict_is_cut
  FROM m, regress_ebm.v GROUP BY 1;
-- a row per score, then "(intercept)" and "(threshold)"
SELECT count(*) = cardinality((m).weights) + 2 AS explain_rows, count(DISTINCT feature) AS features
  FROM m, dpobj.explain(m) GROUP BY (m).weights;
-- each numeric term's cuts: increasing cells of the grid, one fewer than its bins (at
-- most 8), the scores as many as the bins and levels
SELECT bool_and((t->>'grid')::int = 4096 AND (t->>'bins')::int = jsonb_array_length(t->'cuts') + 1
                AND (t->>'bins')::int BETWEEN 1 AND 8
                AND (SELECT bool_and(c > 0 AND c < 4096 AND c > coalesce(p, 0))
                       FROM (SELECT c::int, lag(c::int) OVER (ORDER BY o) AS p
                               FROM jsonb_array_elements_text(t->'cuts') WITH ORDINALITY q(c, o)) q))
         FILTER (WHERE t->>'type' = 'numeric') AS cuts_in_grid,
       sum(coalesce((t->>'bins')::int, (t->>'size')::int)) = cardinality((m).weights) AS scores_fit
  FROM m, jsonb_array_elements((m).params->'terms') t GROUP BY (m).weights;
-- "binning": "uniform": 8 equal-width bins over [lo, hi], no cuts, nothing spent on them;
-- no groups: every coordinate a numeric term (5 x 8 scores)
SELECT cardinality((u).weights) AS scores, (u).params->>'binning' AS binning,
       (u).params ? 'bin_share' AS has_share, (u).params->'terms'->0 AS term
  FROM (SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "bins": 8, "binning": "uniform"}') AS u
          FROM regress_ebm.v) s;
-- no numeric term: no edges, nothing spent on them
SELECT (p).params->>'binning' AS binning, (p).params->>'rho' = (u).params->>'rho' AS same_rho
  FROM (SELECT dpobj.dp_ebm(ARRAY[(c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[], y, 1, 1e-6,
                            '{"groups": [3]}') AS p,
               dpobj.dp_ebm(ARRAY[(c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[], y, 1, 1e-6,
                            '{"groups": [3], "binning": "uniform"}') AS u
          FROM regress_ebm.pts) s;
-- a wide declared range: a and b in [0, 1] declared on [0, 100] (4096 cells of 0.0244);
-- 16 equal-width bins put every row into one bin and predict the majority, the private
-- cuts follow the rows (most within the first 41 cells) and learn a's threshold
CREATE TEMP VIEW wide AS SELECT ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[] AS x,
                                a > 0.6 AS y FROM regress_ebm.pts;
SELECT (SELECT count(*) FILTER (WHERE c::int <= 41) > 0.5 * count(*)
          FROM jsonb_array_elements_text(t->'cuts') c) AS cuts_follow_the_rows,
       (SELECT avg(((regress_ebm.margin(w, x) > 0) = y)::int) FROM wide) > 0.9 AS private_learns,
       (SELECT avg(((regress_ebm.margin(u, x) > 0) = y)::int) FROM wide) < 0.65 AS uniform_cannot
  FROM (SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 100, "groups": [0, 0, 3]}') AS w,
               dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 100, "groups": [0, 0, 3], "binning": "uniform"}') AS u
          FROM wide) s, jsonb_array_elements((w).params->'terms') t
 WHERE t->>'index' = '0';
DROP VIEW wide;
-- the edges' noise: the trees' share of rho, their node noise sd; more share, less noise
SELECT (m).params->>'bin_share' AS bin_share, (m).params->>'bin_grid' AS bin_grid,
       ((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "bins": 8, "groups": [0, 0, 3], "bin_share": 0.2}')
           FROM regress_ebm.v).params->>'bin_sigma')::float8
         < ((m).params->>'bin_sigma')::float8 / 1.9 AS quarter_variance
  FROM m;
-- more rounds or units of k rows: more noise per release
SELECT round((((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"rounds": 120, "groups": [0, 0, 3]}') FROM regress_ebm.v)).params->>'sigma')::numeric
             / (((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"rounds": 30, "groups": [0, 0, 3]}') FROM regress_ebm.v)).params->>'sigma')::numeric, 2)
         AS four_rounds_sigma_ratio,
       round((((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"rows_per_unit": 3, "groups": [0, 0, 3]}') FROM regress_ebm.v)).params->>'sigma')::numeric
             / (((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"groups": [0, 0, 3]}') FROM regress_ebm.v)).params->>'sigma')::numeric, 2)
         AS unit_3_sigma_ratio;
-- the default shrinkage ("by_size"): 8 here, so the seeded scores are shrinkage 8's; on
-- 500 rows, where 8 sum-noise sds over c (about 700 pseudo-rows) exceed the noisy count
-- total, more (their ratio, at most 16), so neither 8's nor 16's
SELECT (m).params->>'shrinkage' AS shrinkage,
       ((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "bins": 8, "learning_rate": 4, "groups": [0, 0, 3], "shrinkage": 8}')
           FROM regress_ebm.v)).weights = (m).weights AS large_table_8
  FROM m;
CREATE TEMP VIEW small AS
SELECT ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[] AS x, y
  FROM regress_ebm.pts WHERE i <= 500;
SELECT ((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"groups": [0, 0, 3]}') FROM small)).weights AS w \gset s_
SELECT ((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"groups": [0, 0, 3], "shrinkage": 8}') FROM small)).weights
         <> :'s_w'::float8[] AS small_not_8,
       ((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"groups": [0, 0, 3], "shrinkage": 16}') FROM small)).weights
         <> :'s_w'::float8[] AS small_not_16,
       ((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"groups": [0, 0, 3], "shrinkage": 8}') FROM small)).weights
         = ((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"groups": [0, 0, 3], "shrinkage": 8}') FROM small)).weights
         AS seeded;
-- 60 rows: at most 16, and the numeric terms' steps half pooled along a line (bins' own
-- steps and a ridge line through the noisy sums), so not shrinkage 16's either
CREATE OR REPLACE TEMP VIEW small AS
SELECT ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[] AS x, y
  FROM regress_ebm.pts WHERE i <= 60;
SELECT ((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"groups": [0, 0, 3], "shrinkage": 16}') FROM small)).weights
         <> ((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"groups": [0, 0, 3]}') FROM small)).weights
         AS tiny_not_16,
       ((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"groups": [0, 0, 3]}') FROM small)).weights
         = ((SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"groups": [0, 0, 3]}') FROM small)).weights
         AS tiny_seeded;
DROP VIEW small;
RESET dpobj.seed;

-- ---- errors on public grounds, before any row ----
SELECT o, e.* FROM (VALUES
    ('{"bins": 1}'), ('{"bins": 5000}'), ('{"rounds": 0}'), ('{"learning_rate": 0}'),
    ('{"count_share": 1}'), ('{"count_share": 0}'), ('{"shrinkage": -1}'), ('{"lo": 1, "hi": 1}'),
    ('{"groups": [0, 0, 2]}'), ('{"groups": [1, 0, 0, 3]}'), ('{"groups": "0"}'),
    ('{"groups": [0, 0, 3, 0]}'), ('{"R": 1}'), ('{"T": 5}'), ('{"nope": 1}'),
    ('{"binning": "quantile"}'), ('{"binning": 1}'), ('{"bin_share": 0}'), ('{"bin_share": 1}'),
    ('{"bin_grid": 48}'), ('{"bin_grid": 1}'), ('{"bin_grid": 131072}'),
    ('{"class_weight": {"false": 2}}')) v(o),
  LATERAL regress.err(format('SELECT dpobj.dp_ebm(x, y, 1, 1e-6, %L) FROM regress_ebm.v', o)) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_ebm(x, y, 1e-9, 1e-6, '{"rounds": 10000}') FROM regress_ebm.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_ebm(x, y, 1, 1e-6, NULL) FROM regress_ebm.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '[]') FROM regress_ebm.v$$) e;

-- ---- a float8 label within public bounds y_min, y_max: the identity link ----
CREATE TABLE regress_ebm.reg AS
SELECT a, b, c, 10 + 20 * a + 15 * (abs(b - 0.5) < 0.2)::int + (c = 'z')::int * 5 AS t FROM regress_ebm.pts;
SET dpobj.seed = 5;
CREATE TEMP TABLE rm AS
SELECT dpobj.dp_ebm(ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[], t::float8, 1, 1e-6,
                    '{"lo": 0, "hi": 1, "bins": 8, "groups": [0, 0, 3], "y_min": 0, "y_max": 60,
                      "cyclic": true, "residual_clip": 0.5, "rounds": 5}') AS m
  FROM regress_ebm.reg;
RESET dpobj.seed;
SELECT (m).params->>'link' AS link, (m).params->>'y_min' AS y_min, (m).params->>'y_max' AS y_max,
       cardinality((m).weights) AS scores FROM rm;
-- the model in the label's units (cyclic rounds: each term fits what the others left): its
-- error well below the constant mean's
SELECT sqrt(avg((t - regress_ebm.margin(m, ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[]))^2))
         < 0.6 * (SELECT stddev_pop(t) FROM regress_ebm.reg) AS beats_the_mean
  FROM rm, regress_ebm.reg;
SELECT dpobj.model_kind(m) AS kind,
       bool_and(abs(dpobj.score(m, ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[])
                    - regress_ebm.margin(m, ARRAY[a, b, (c = 'x')::int, (c = 'y')::int, (c = 'z')::int]::float8[])) < 1e-9)
         AS score_is_margin
  FROM rm, regress_ebm.reg GROUP BY 1;
SELECT o, e.* FROM (VALUES
    ('{"y_min": 0}'), ('{"y_min": 1, "y_max": 1}'), ('{"y_min": 0, "y_max": 1, "class_weight": {"false": 0.5}}')) v(o),
  LATERAL regress.err(format('SELECT dpobj.dp_ebm(x, 1.0::float8, 1, 1e-6, %L) FROM regress_ebm.v', o)) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_ebm(x, y, 1, 1e-6, '{"y_min": 0, "y_max": 1}') FROM regress_ebm.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_ebm(x, 'NaN'::float8, 1, 1e-6, '{"y_min": 0, "y_max": 1}') FROM regress_ebm.v$$) e;

-- ---- train(): terms from the declared domains, one gauss charge ----
CREATE ROLE regress_ebm_alice;
SELECT dpobj.protect('regress_ebm.pts');
SELECT dpobj.declare_domain('regress_ebm.pts', 'c', ARRAY['x', 'y', 'z']);
SELECT dpobj.declare_domain('regress_ebm.pts', 'a', 0, 1);
SELECT dpobj.declare_domain('regress_ebm.pts', 'b', 0, 1);
SELECT granted_epsilon FROM dpobj.grant_budget('regress_ebm.pts', 'regress_ebm_alice', 10, 1e-5);
SET ROLE regress_ebm_alice;
-- refused options cost nothing
SELECT e.* FROM regress.err($$SELECT dpobj.train('regress_ebm.pts', 'ebm', ARRAY['c', 'a', 'b'], 'y', 1, 1e-6, '{"bins": 1}')$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.train('regress_ebm.pts', 'ebm', ARRAY['c', 'a', 'b'], 'y', 1, 1e-6, '{"R": 2}')$$) e;
SELECT remaining_epsilon FROM dpobj.my_budgets WHERE relation = 'regress_ebm.pts'::regclass;
CREATE TEMP TABLE tm AS
SELECT dpobj.train('regress_ebm.pts', 'ebm', ARRAY['c', 'a', 'b'], 'y', 1, 1e-6, '{"bins": 8}') AS m;
-- c: x, y, z and "other" (4 levels); a, b: at most 8 bins over the scaled [-1, 1], between
-- private cuts (DP output: the public layout without them)
SELECT (m).mechanism, cardinality((m).weights) BETWEEN 4 + 2 AND 4 + 16 AS scores,
       jsonb_path_query_array((m).params->'terms', '$[*].type') AS types,
       jsonb_path_query_array((m).params->'terms', '$[*].index') AS indexes,
       jsonb_path_query_array((m).params->'terms', '$[*] ? (@.type == "numeric").grid') AS grids
  FROM tm;
-- raw values through the recorded encoding, and explain's rows on the declared scale:
-- the bins from lo (0) to hi (1) at their cuts
SELECT dpobj.predict_raw(m, '{"c": "x", "a": 0.9, "b": 0.5}') IS NOT NULL AS predicts_raw FROM tm;
SELECT feature, count(*) <= 8 AS rows, bool_or(level LIKE '[0, %') AS from_lo,
       bool_or(level LIKE '%, 1]') AS to_hi
  FROM tm, dpobj.explain(m) GROUP BY 1 ORDER BY 1;
SELECT abs(split_part(rtrim(e.level, ')'), ', ', 2)::float8 - (t->'cuts'->>0)::int / 4096.0) < 1e-5
         AS first_bin_ends_at_the_first_cut
  FROM tm, dpobj.explain(m) e, jsonb_array_elements((m).params->'terms') t
 WHERE e.feature = 'a' AND e.level LIKE '[0, %' AND t->>'index' = '4';
SELECT l.mechanism, l.kind,
       l.rho >= ((t.m).params->>'rho')::numeric + ((t.m).params->>'balance_rho')::numeric AS rho_rounded_up,
       l.rho < (((t.m).params->>'rho')::numeric + ((t.m).params->>'balance_rho')::numeric) * 1.000000001 AS by_a_hair
  FROM tm t, dpobj.ledger l WHERE l.relation = 'regress_ebm.pts';
RESET ROLE;
DROP TABLE tm, m, rm;
DROP SCHEMA regress_ebm CASCADE;
DROP ROLE regress_ebm_alice;
