-- Private model selection: dp_auto and train()'s mechanism 'auto'
-- (src/families/glm/glmauto.c, docs/PRIVACY.md "Private model selection (auto)").
CREATE SCHEMA regress_auto;
CREATE TABLE regress_auto.pts AS SELECT * FROM regress.points(2000);
CREATE VIEW regress_auto.v AS SELECT ARRAY[a, b]::float8[] AS x, y FROM regress_auto.pts;
-- errors are shown by regress.err() (setup.sql): SQLSTATE, message and hint
GRANT USAGE ON SCHEMA regress_auto TO PUBLIC;
\pset format unaligned

-- refused on public grounds, before any row: bad share, candidate-specific or
-- unknown options, units
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "select_share": 1}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "select_share": 0}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "select_share": "a"}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "method": "cms"}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "T": 100}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "radius": 5}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "bogus": 1}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "candidates": ["objective"]}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "candidates": ["objective", "objective"]}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "candidates": ["objective", "opdisc"]}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "candidates": "cms"}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "rows_per_unit": 2, "candidates": ["cms", "output"]}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "noisysgd_head_start": -1}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "noisysgd_head_start": 65}') FROM regress_auto.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "ebm_head_start": 65}') FROM regress_auto.v$$);

\pset format aligned
-- a seeded direct run: the public params (the selected candidate is a DP output)
SET dpobj.seed = 11;
SELECT (m).mechanism, (m).epsilon, (m).delta, (m).params->'candidates' AS candidates,
       (m).params->>'select_share' AS share, (m).params->>'select_epsilon' AS eps_s,
       (m).params->>'select_delta' AS delta_s, (m).params->>'final_epsilon' AS eps_f,
       (m).params->>'final_delta' AS delta_f,
       (m).params->>'select_laplace_scale' AS laplace_scale,
       (m).params->'candidates' ? ((m).params->>'selected') AS selected_is_candidate,
       cardinality((m).weights) AS d
  FROM (SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5}') m FROM regress_auto.v) s;
-- ebm is a default candidate only with "groups" (train() passes them from declared
-- domains): without, every coordinate would be a numeric term binned over [-1, 1].
-- With "groups" and neither "candidates" nor "select_share", no selection: the balance
-- estimate, drawn as each candidate alone draws it (a share of rho), picks noisy GD or
-- ebm by size, which trains at the rest of rho (eps_f; with "class_weight" too)
SELECT o AS options, (m).params->'candidates' AS candidates, (m).params->>'selected' AS selected,
       (m).params->>'select_share' AS share, (m).params ? 'select_epsilon' AS has_eps_s,
       (m).params->>'final_epsilon' AS eps_f, (m).params ? 'balance_rho' AS own_estimate
  FROM (VALUES ('{"R": 1.5}'), ('{"R": 1.5, "groups": [0, 0]}'),
               ('{"R": 1.5, "groups": [0, 0], "class_weight": {"false": 0.5}}'),
               ('{"R": 1.5, "groups": [0, 0], "select_share": 0.1}')) v(o),
       LATERAL (SELECT dpobj.dp_auto(x, y, 1, 1e-6, o::jsonb) m FROM regress_auto.v) s;
-- ... ebm when the smaller noisy count less 2 sds, times epsilon, reaches 250 (2 000
-- rows), else noisy GD (300 rows); the model is the candidate's alone under the same
-- seed: the same noisy counts and cut-off, the scores up to rho(eps_f)'s rounding
CREATE TABLE regress_auto.small AS SELECT * FROM regress.points(300);
SELECT n, (a).params->>'selected' AS selected,
       (a).params->>'selected' = CASE WHEN (least(((a).params->'balance_counts'->>0)::float8, ((a).params->'balance_counts'->>1)::float8)
                                            - ((a).params->>'select_size_sds')::float8 * ((a).params->>'balance_sd')::float8)
                                           * (a).epsilon >= ((a).params->>'select_size_min')::float8
                                      THEN 'ebm' ELSE 'noisysgd' END AS rule_holds,
       (a).params->'balance_counts' = (e).params->'balance_counts' AS same_counts,
       (a).params->'threshold' = (e).params->'threshold' AS same_cut,
       (SELECT max(abs(u.wa - u.we)) < 1e-6 FROM unnest((a).weights || (a).bias, (e).weights || (e).bias) u(wa, we)) AS same_scores
  FROM (SELECT 2000 AS n, dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "groups": [0, 0]}') a,
               dpobj.dp_ebm(x, y, 1, 1e-6, '{"groups": [0, 0]}') e FROM regress_auto.v
        UNION ALL
        SELECT 300, dpobj.dp_auto(ARRAY[a, b], y, 1, 1e-6, '{"R": 1.5, "groups": [0, 0]}'),
               dpobj.dp_noisysgd(ARRAY[a, b], y, 1, 1e-6, '{"R": 1.5}') FROM regress_auto.small) t
 ORDER BY n;
-- reproducible under the seed; another share is in the params
SELECT (SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5}') FROM regress_auto.v) =
       (SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5}') FROM regress_auto.v) AS same;
SELECT (m).params->>'select_share' AS share, (m).params->>'select_epsilon' AS eps_s,
       (m).params->>'final_epsilon' AS eps_f
  FROM (SELECT dpobj.dp_auto(x, y, 2, 1e-6, '{"R": 1.5, "select_share": 0.5, "intercept": false}') m
          FROM regress_auto.v) s;
-- all four candidates, in tie-breaking order whatever the order given; the final
-- model's own params follow the selection: a logistic method has one, noisy GD has T
SELECT (m).params->'candidates' AS candidates
  FROM (SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "candidates": ["noisysgd", "output", "cms", "objective"]}') m
          FROM regress_auto.v) s;
SELECT count(*) AS runs,
       bool_and(CASE WHEN (m).params->>'selected' = 'noisysgd' THEN (m).params ? 'T'
                     ELSE (m).params->>'method' = (m).params->>'selected' END) AS own_params,
       bool_and((m).params->'candidates' ? ((m).params->>'selected')) AS in_candidates
  FROM generate_series(1, 12) g,
       LATERAL (SELECT dpobj.dp_auto(x, y, 0.5 + g / 4.0, 1e-6,
                       '{"R": 1.5, "n": 2000, "candidates": ["noisysgd", "output", "cms", "objective"]}') m
                  FROM regress_auto.v) s;
-- noisy GD's head start (public, in the selection's noise scales; 3 by default,
-- reported when noisy GD is a candidate).  Features shifted past the clipping
-- bound: an even race (0) is decided by the seeded noise (every run alike); a head start of
-- 64 scales (2 560 rows at eps_s = 0.05, the share given as 0.1) exceeds the ~670 validation rows, so
-- noisy GD then wins every run
SELECT h, count(*) AS runs, count(*) FILTER (WHERE (m).params->>'selected' = 'noisysgd') AS noisysgd,
       min((m).params->>'noisysgd_head_start') AS reported
  FROM (VALUES (NULL::float8), (0), (64)) v(h), generate_series(1, 12) g,
       LATERAL (SELECT dpobj.dp_auto(ARRAY[a + 3, b + 3]::float8[], y, 0.5, 1e-6,
                       jsonb_build_object('R', 1.5, 'candidates', ARRAY['objective', 'noisysgd'],
                                          'select_share', 0.1)
                       || CASE WHEN h IS NULL THEN '{}'
                               ELSE jsonb_build_object('noisysgd_head_start', h) END) m
                  FROM regress_auto.pts) s
 GROUP BY h ORDER BY h;
SELECT (m).params ? 'noisysgd_head_start' AS reported_without_noisysgd,
       (m).params->>'select_share' AS share_without_noisysgd
  FROM (SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "candidates": ["objective", "cms"]}') m
          FROM regress_auto.v) s;
-- ebm's own head start (11 by default, a public prior: bench/ebm/results.md), reported
-- when ebm is a candidate; noisy GD's only when noisy GD is
SELECT (m).params->>'ebm_head_start' AS ebm_head_start, (m).params ? 'noisysgd_head_start' AS noisysgd_reported
  FROM (VALUES ('{"R": 1.5, "candidates": ["objective", "ebm"]}'::jsonb),
               ('{"R": 1.5, "candidates": ["objective", "ebm"], "ebm_head_start": 0}')) o(o),
       LATERAL (SELECT dpobj.dp_auto(x, y, 1, 1e-6, o) m FROM regress_auto.v) s;
-- the final model is calibrated at the rest of the budget, as dp_logistic would be
-- (logistic candidates only)
SELECT (m).params->>'selected' IN ('objective', 'cms') AS logistic,
       (m).params->>'lambda' = c->>'lambda' AS same_lambda,
       coalesce((m).params->>'sigma', (m).params->>'epsilon_prime') =
       coalesce(c->>'sigma', c->>'epsilon_prime') AS same_noise
  FROM (SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "candidates": ["objective", "cms"]}') m
          FROM regress_auto.v) s,
       LATERAL dpobj.glm_calibration(((m).params->>'final_epsilon')::float8,
                                     ((m).params->>'final_delta')::float8,
                                     jsonb_build_object('R', 1.5, 'method', (m).params->>'selected',
                                                        'metric', 'accuracy')) c;
-- no rows: nothing runs off the protected path
SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5}') IS NULL AS empty FROM regress_auto.v WHERE false;
RESET dpobj.seed;

-- the protected path: one ledger row at (eps, delta), approximate DP
SELECT coalesce(max(id), 0) AS before FROM dpobj.ledger \gset
CREATE ROLE regress_auto_analyst;
SELECT dpobj.protect('regress_auto.pts');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_auto.pts', 'regress_auto_analyst', 10, 0.001);
GRANT USAGE ON SCHEMA regress_auto TO regress_auto_analyst;
SET ROLE regress_auto_analyst;
SELECT dpobj.runs_left('regress_auto.pts', 'auto', 1, 1e-6, '{"R": 1.5}') AS runs_left_auto,
       dpobj.runs_left('regress_auto.pts', 'objective', 1, 1e-6, '{"R": 1.5}') AS runs_left_objective;
SELECT (m).mechanism, (m).epsilon, (m).delta,
       (m).params->'candidates' ? ((m).params->>'selected') AS selected_is_candidate
  FROM dpobj.train('regress_auto.pts', 'auto', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1.5}') m;
-- refused before the charge: a candidate's option, a bad share, a non-boolean label
\pset format unaligned
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.train('regress_auto.pts', 'auto', ARRAY['a', 'b'], 'a', 1, 1e-6, '{"R": 1.5}')$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.train('regress_auto.pts', 'auto', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1.5, "lambda": 3}')$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.train('regress_auto.pts', 'auto', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1.5, "select_share": 1.5}')$$);
\pset format aligned
SELECT dpobj.runs_left('regress_auto.pts', 'auto', 1, 1e-6, '{"R": 1.5}') AS runs_left_after;
RESET ROLE;
SELECT mechanism, epsilon, delta, kind, outcome FROM dpobj.ledger
 WHERE relation = 'regress_auto.pts' AND id > :before ORDER BY id;
SELECT dpobj.unprotect('regress_auto.pts');

-- privacy units of k = 40 rows: a unit's rows may land in all K + 1 = 4 parts, so
-- each part gets a quarter of (eps_s, delta_s) = (0.05, 5e-8) (the default share with
-- noisy GD a candidate), the candidates are calibrated for 40 rows, and the noisy
-- max's Laplace scale is 2 k (K + 1) / eps_s = 6400; CMS is refused when named.
-- Declared domains: train() passes "groups"; with ebm named among the candidates the
-- selection runs (the default would train ebm alone)
SELECT dpobj.protect('regress_auto.pts', privacy_unit => 'person', max_rows_per_unit => 40);
SELECT dpobj.declare_domain('regress_auto.pts', 'a', -1, 1);
SELECT dpobj.declare_domain('regress_auto.pts', 'b', -1, 1);
SELECT granted_epsilon FROM dpobj.grant_budget('regress_auto.pts', 'regress_auto_analyst', 10, 0.001);
SET ROLE regress_auto_analyst;
SELECT (m).params->>'selected' IN ('objective', 'noisysgd', 'ebm') AS released,
       (m).params->'candidates' AS candidates,
       ((m).params->>'select_epsilon')::float8 BETWEEN 0.05 / 4 * (1 - 1e-12) AND 0.05 / 4 AS part_epsilon,
       ((m).params->>'select_laplace_scale')::float8 BETWEEN 6400 AND 6400 * (1 + 1e-6) AS laplace_scale
  FROM (SELECT dpobj.train('regress_auto.pts', 'auto', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1.5, "candidates": ["objective", "noisysgd", "ebm"]}') AS m) t;
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.train('regress_auto.pts', 'auto', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1.5, "candidates": ["objective", "cms"]}')$$);
RESET ROLE;
SELECT count(*) AS charged, min(rows_per_unit) AS k FROM dpobj.ledger WHERE relation = 'regress_auto.pts' AND id > :before;
SELECT dpobj.unprotect('regress_auto.pts');
-- an additive model when it wins: y = (|x| > 0.5) has no linear separator, so
-- among ebm and objective every seeded run selects ebm, released as a model of
-- the additive kind (its "terms" public) that predicts through dpobj.predict
CREATE TABLE regress_auto.ring AS
  SELECT ARRAY[x, (i % 7) / 7.0]::float8[] AS x, abs(x) > 0.5 AS y
    FROM (SELECT i, ((i * 7919) % 20000) / 10000.0 - 1 AS x FROM generate_series(1, 20000) i) s;
CREATE TEMP TABLE auto_ring AS
  SELECT seed, (SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "candidates": ["objective", "ebm"]}')
                  FROM regress_auto.ring WHERE c IS NOT NULL) AS m
    FROM generate_series(1, 5) seed, LATERAL set_config('dpobj.seed', seed::text, false) c;
SELECT (m).params->>'selected' AS selected, dpobj.model_kind(m) AS kind,
       jsonb_array_length((m).params->'terms') AS terms, count(DISTINCT (m).weights) AS runs,
       min(a) > 0.9 AS accurate
  FROM auto_ring,
       LATERAL (SELECT avg((dpobj.predict(m, x) = y)::int) AS a FROM regress_auto.ring) q
 GROUP BY 1, 2, 3;
-- gbdt is a candidate only where "candidates" names it: on the same table it wins
-- against objective too, released as a boosted-trees model (its "splits" a DP output)
CREATE TEMP TABLE auto_ring_gbdt AS
  SELECT seed, (SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5, "candidates": ["objective", "gbdt"]}')
                  FROM regress_auto.ring WHERE c IS NOT NULL) AS m
    FROM generate_series(1, 5) seed, LATERAL set_config('dpobj.seed', seed::text, false) c;
SELECT (m).params->>'selected' AS selected, dpobj.model_kind(m) AS kind,
       (m).params->>'ebm_head_start' AS head_start, count(DISTINCT (m).weights) AS runs,
       min(a) > 0.9 AS accurate
  FROM auto_ring_gbdt,
       LATERAL (SELECT avg((dpobj.predict(m, x) = y)::int) AS a FROM regress_auto.ring) q
 GROUP BY 1, 2, 3;
RESET dpobj.seed;
DROP SCHEMA regress_auto CASCADE;
DROP ROLE regress_auto_analyst;
