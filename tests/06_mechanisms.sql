-- Reproducibility under dpobj.seed, the large-epsilon limit of
-- every mechanism (tolerances derived in the comments), clipping, parallel aggregation.
BEGIN;
SELECT plan(32);

-- features on the lattice (1/8)Z, so the halfspace quantisation (Q = 64) is exact
CREATE TEMP TABLE d3 AS
SELECT ARRAY[((i * 7) % 11) / 8.0 - 0.625, ((i * 3) % 13) / 8.0 - 0.75,
             ((i * 5) % 7) / 8.0 - 0.375]::float8[] AS x,
       ((i * 7) % 11) / 8.0 - 0.625 + 0.5 * (((i * 3) % 13) / 8.0 - 0.75)
         + 0.3 * (((i * 13) % 5) / 4.0 - 0.5) > 0 AS y
  FROM generate_series(1, 400) i;

-- ---- reproducibility ---------------------------------------------------
CREATE FUNCTION pg_temp.three(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE s int;
BEGIN
  FOREACH s IN ARRAY ARRAY[11, 11, 12] LOOP
    PERFORM set_config('dpobj.seed', s::text, true);
    RETURN QUERY EXECUTE q;
  END LOOP;
END $$;
CREATE TEMP TABLE rep AS
SELECT k, w[1] AS w1, w[2] AS w2, w[3] AS w3
  FROM (VALUES
  ('objective', $$SELECT (dpobj.dp_logistic(x, y, 0.5, 1e-6, '{"R": 1}')).weights::text FROM d3$$),
  ('noisysgd', $$SELECT (dpobj.dp_noisysgd(x, y, 0.5, 1e-6, '{"R": 1, "T": 5000}')).weights::text FROM d3$$),
  ('opsamp', $$SELECT (dpobj.dp_opsamp(x, y, 0.5, 1e-6, '{"R": 1}')).weights::text FROM d3$$),
  ('cms', $$SELECT (dpobj.dp_logistic(x, y, 0.5, 1e-6, '{"R": 1, "method": "cms"}')).weights::text FROM d3$$)
) v(k, q), LATERAL (SELECT array_agg(t ORDER BY o) AS w FROM pg_temp.three(q) WITH ORDINALITY r(t, o)) a;
SELECT ok((SELECT bool_and(w1 = w2) FROM rep), 'same dpobj.seed, same model (objective, cms, noisy SGD, OPSamp)');
SELECT ok((SELECT bool_and(w1 <> w3) FROM rep), 'another seed, another model (objective, cms, noisy SGD, OPSamp)');
SET dpobj.seed = 5;
SELECT is((SELECT (dpobj.dp_halfspace_rspm(x, y, 0.2, 1e-6)).weights FROM d3),
          (SELECT (dpobj.dp_halfspace_rspm(x, y, 0.2, 1e-6)).weights FROM d3), 'RSPM: same seed, same model');
SELECT is((SELECT (dpobj.dp_expmech(x, y, 0.05, 1e-6)).weights FROM d3),
          (SELECT (dpobj.dp_expmech(x, y, 0.05, 1e-6)).weights FROM d3), 'expmech: same seed, same model');
-- the exact search and the GLPK MIP (certified by the search) release the same argmin
CREATE TEMP TABLE d3s AS SELECT * FROM d3 LIMIT 80;
SELECT is((SELECT (dpobj.dp_halfspace_rspm(x, y, 0.2, 1e-6)).weights FROM d3s),
          (SELECT (dpobj.dp_halfspace_rspm(x, y, 0.2, 1e-6, '{"oracle": "mip"}')).weights FROM d3s),
          'RSPM: the search and the certified GLPK MIP release the same argmin for the same noise');
RESET dpobj.seed;
SELECT isnt((SELECT (dpobj.dp_logistic(x, y, 0.5, 1e-6, '{"R": 1}')).weights FROM d3),
            (SELECT (dpobj.dp_logistic(x, y, 0.5, 1e-6, '{"R": 1}')).weights FROM d3),
            'without a seed every run draws fresh noise');

-- ---- large epsilon: the halfspace mechanisms reach the exact 0/1 minimum ----
-- brute force over W = {-1,0,1}^3 (27 points); errors counted with sgn(0) = -1
CREATE TEMP TABLE grid AS
SELECT ARRAY[a, b, c]::float8[] AS w FROM generate_series(-1, 1) a, generate_series(-1, 1) b, generate_series(-1, 1) c;
CREATE FUNCTION pg_temp.err01(w float8[]) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FILTER (WHERE ((w[1]*x[1] + w[2]*x[2] + w[3]*x[3]) > 0) <> y) FROM d3 $$;
SELECT min(pg_temp.err01(w)) AS min_err FROM grid \gset
SET dpobj.seed = 3;
-- RSPM: |separator noise| <= 6 sigma = 6 * 7 sqrt(6 ln 1e6) / 1e6 < 1e-3 w.p. >= 1 - 1e-8;
-- the noise can then not outweigh one misclassified row: RSPM returns a 0/1 minimiser
SELECT is(pg_temp.err01((SELECT (dpobj.dp_halfspace_rspm(x, y, 1e6, 1e-6)).weights FROM d3)),
          :min_err::bigint, 'RSPM at eps = 1e6 returns a minimiser of the 0/1 loss over {-1,0,1}^3');
-- expmech: a point with one more error has relative weight exp(-eps/2) = 0
SELECT is(pg_temp.err01((SELECT (dpobj.dp_expmech(x, y, 1e6, 1e-6, '{"B": 1, "D2": 3}')).weights FROM d3)),
          :min_err::bigint, 'exponential mechanism at eps = 1e6 returns a 0/1 minimiser');
-- OPDisc on the same grid: |<eta, pi(w)>| <= ||eta|| < 1e-3 likewise
SELECT is(pg_temp.err01((SELECT (dpobj.dp_halfspace(x, y, 1e6, 1e-6, '{"B": 1, "D2": 3}')).weights FROM d3)),
          :min_err::bigint, 'OPDisc at eps = 1e6 on {-1,0,1}^3 agrees with RSPM and the exponential mechanism');
-- and at small epsilon the exponential mechanism is not always at the minimum
SELECT ok((SELECT max(pg_temp.err01(w)) FROM (
             SELECT (dpobj.dp_expmech(x, y, 0.001, 1e-6, '{"B": 1, "D2": 3}')).weights AS w
               FROM d3, generate_series(1, 5) s GROUP BY s) r) > :min_err,
          'at eps = 0.001 the exponential mechanism samples non-minimisers');

-- ---- the exponential mechanism's exact sampler: frequencies on a 3-point grid ----
-- d = 1, W = {-1, 0, 1}; rows (1, true) x2 and (-1, false): 0/1 losses L(-1) = 3,
-- L(0) = 2, L(1) = 0, so at eps = 1 P(w) = exp(-L(w)/2) / Z = 0.140, 0.231, 0.629.
-- 1200 runs, seeds 1..1200 (the verdict is reproducible); chi-square with 2 degrees of
-- freedom has Q(x) = exp(-x/2): x > 27.63 has probability 1e-6 for a correct sampler.
CREATE TEMP TABLE d1 AS
SELECT * FROM (VALUES (ARRAY[1.0]::float8[], true), (ARRAY[1.0]::float8[], true),
                      (ARRAY[-1.0]::float8[], false)) v(x, y);
CREATE FUNCTION pg_temp.expmech_draws(n int) RETURNS SETOF float8 LANGUAGE plpgsql AS $$
BEGIN
  FOR s IN 1..n LOOP
    PERFORM set_config('dpobj.seed', s::text, true);
    RETURN QUERY SELECT (dpobj.dp_expmech(x, y, 1, 1e-6)).weights[1] FROM d1;
  END LOOP;
END $$;
CREATE TEMP TABLE em AS
SELECT w, count(*) AS c FROM pg_temp.expmech_draws(1200) w GROUP BY w;
CREATE TEMP TABLE em_p AS
SELECT w, exp(-l / 2.0) / (exp(-1.5) + exp(-1.0) + 1) AS p
  FROM (VALUES (-1::float8, 3), (0, 2), (1, 0)) v(w, l);
SELECT ok((SELECT sum((coalesce(c, 0) - 1200 * p) ^ 2 / (1200 * p))
             FROM em_p LEFT JOIN em USING (w)) < 27.63,
          'expmech: frequencies on a 3-point grid match exp(-eps L / 2) / Z (chi-square)');
SELECT is((SELECT array_agg(w ORDER BY w) FROM em), ARRAY[-1, 0, 1]::float8[],
          'expmech: every grid point is drawn, and only grid points');
RESET dpobj.seed;

-- ---- large epsilon: the GLM mechanisms approach the non-private minimiser ----
-- Reference: CMS at eps = 1e12, lambda = 1: ||b|| ~ Gamma(p, 2 R_eff / eps') has mean
-- 8e-12, so it is the non-private minimiser of sum l + (1/2)||theta||^2 up to solver error.
-- Objective-Gauss at eps = 1e6: sigma = R_eff sqrt(8 ln(2e6) + 4e6)/1e6 = 0.00283 (R_eff =
-- sqrt 2); the objective is 1-strongly convex, so ||theta(b) - theta(0)|| <= ||b|| and
-- ||b|| <= sigma (sqrt(4) + 6) = 0.023 except w.p. < e^-18.  The minimiser stops at
-- gradient norm <= 1e-6 of the 1/n-scaled objective: <= n 1e-6 = 4e-4 more, each.  Tol 0.03.
SET dpobj.seed = 21;
CREATE TEMP TABLE ref AS
SELECT dpobj.dp_logistic(x, y, 1e12, 1e-6, '{"R": 1, "method": "cms", "lambda": 1}') AS m FROM d3;
CREATE FUNCTION pg_temp.dist(a dpobj.model, b dpobj.model) RETURNS float8 LANGUAGE sql AS $$
  SELECT sqrt(sum((u - v)^2) + (a.bias - b.bias)^2) FROM unnest(a.weights, b.weights) t(u, v) $$;
SELECT cmp_ok(pg_temp.dist((SELECT dpobj.dp_logistic(x, y, 1e6, 1e-6, '{"R": 1, "lambda": 1}') FROM d3),
                           (SELECT m FROM ref)), '<', 0.03::float8,
              'Objective-Gauss at eps = 1e6 is within 0.03 of the non-private minimiser');
-- Output-Gauss at eps = 1e6: analytic Gaussian sigma for sensitivity 2 sqrt2 is < 0.0035,
-- ||N(0, sigma^2 I_4)|| <= 8 sigma < 0.028 except w.p. < e^-18; plus 4e-4 solver error.
SELECT ok((SELECT (dpobj.glm_calibration(1e6, 1e-6, '{"R": 1, "lambda": 1, "method": "output"}')->>'sigma')::float8 < 0.0035),
          'Output-Gauss sigma at eps = 1e6 is below 0.0035');
SELECT cmp_ok(pg_temp.dist((SELECT dpobj.dp_logistic(x, y, 1e6, 1e-6, '{"R": 1, "lambda": 1, "method": "output"}') FROM d3),
                           (SELECT m FROM ref)), '<', 0.03::float8,
              'Output-Gauss at eps = 1e6 is within 0.03 of the non-private minimiser');
SELECT cmp_ok(pg_temp.dist((SELECT dpobj.dp_logistic(x, y, 0.05, 1e-6, '{"R": 1, "lambda": 1, "method": "output"}') FROM d3),
                           (SELECT m FROM ref)), '>', 0.03::float8,
              'at eps = 0.05 Output-Gauss is far from it (the check above can fail)');
-- The minimiser is exact, checked independently of it: the gradient of the regularised
-- loss sum_i l(s_i (<w, x_i> + b)) + (lambda/2)(||w||^2 + b^2), computed here in SQL at the
-- released point, divided by n.  CMS at eps = 1e12 (||b_noise|| ~ 1e-11, no clipping with
-- R = 2 >= max ||x|| = 1.05, Delta = 0): the solver stops at a 1/n-scaled gradient norm
-- below 1e-6; the noise adds ||b_noise||/n.  Tolerance 2e-6.
CREATE FUNCTION pg_temp.grad(m dpobj.model, lambda float8, loss text, h float8) RETURNS float8
LANGUAGE sql AS $$
  WITH r AS (SELECT x, CASE WHEN y THEN 1.0 ELSE -1.0 END::float8 AS s,
                    (SELECT sum(w * v) FROM unnest(m.weights, x) t(w, v)) + m.bias AS z FROM d3),
       l AS (SELECT x, s * CASE WHEN loss = 'logistic' THEN -1 / (1 + exp(least(greatest(s * z, -700), 700)))
                                WHEN s * z > 1 + h THEN 0 WHEN s * z < 1 - h THEN -1
                                ELSE -(1 + h - s * z) / (2 * h) END AS c FROM r),
       g AS (SELECT j, sum(c * x[j]) AS gj, m.weights[j] AS t FROM l, generate_series(1, 3) j GROUP BY j
             UNION ALL SELECT 4, sum(c), m.bias FROM l)
  SELECT sqrt(sum((gj + lambda * t)^2)) / (SELECT count(*) FROM d3) FROM g $$;
SET dpobj.seed = 22;
SELECT cmp_ok(pg_temp.grad((SELECT dpobj.dp_logistic(x, y, 1e12, 1e-6, '{"R": 2, "method": "cms", "lambda": 1}') FROM d3),
                           1, 'logistic', 0), '<', 2e-6::float8,
              'logistic: the released point is stationary (gradient computed in SQL below 2e-6)');
SELECT cmp_ok(pg_temp.grad((SELECT dpobj.dp_logistic(x, y, 1e12, 1e-6, '{"R": 2, "method": "cms", "lambda": 0.5, "loss": "huber", "h": 0.25}') FROM d3),
                           0.5, 'huber', 0.25), '<', 2e-6::float8,
              'Huber: the released point is stationary (gradient computed in SQL below 2e-6)');
SELECT cmp_ok(pg_temp.grad((SELECT dpobj.dp_logistic(x, y, 0.05, 1e-6, '{"R": 2, "method": "output", "lambda": 1}') FROM d3),
                           1, 'logistic', 0), '>', 1e-3::float8,
              'a noisy (output-perturbed) point is not stationary: the check above can fail');
-- Noisy gradient descent at eps = 1e9 (noise negligible), T = 160000 projected full-batch
-- steps on the ball of radius 10 with the public n = 400 (step size 2r / sqrt(t G^2),
-- G = n L R_eff bounds the gradient sum): the last-iterate bound (Shamir & Zhang 2013) on
-- the average logistic loss is ||C|| L R_eff (2 + ln T) / sqrt T = 20 sqrt2 (2 + 12) / 400
-- = 0.99 over the best point of C, and the reference (norm < 10) is in C.
CREATE FUNCTION pg_temp.avgloss(m dpobj.model) RETURNS float8 LANGUAGE sql AS $$
  SELECT avg(ln(1 + exp(-(CASE WHEN y THEN 1 ELSE -1 END) * dpobj.score(m, x)))) FROM d3 $$;
SELECT cmp_ok(pg_temp.avgloss((SELECT dpobj.dp_noisysgd(x, y, 1e9, 1e-6, '{"R": 1, "T": 160000, "n": 400}') FROM d3)),
              '<=', pg_temp.avgloss((SELECT m FROM ref)) + 0.99,
              'noisy SGD at eps = 1e9 is within the SGD bound of the reference loss');
-- OPSamp at eps = 1e12 (no intercept, W = [-1,1]^3, R_1 = 1): every LP solution w_k has
-- L(w_k) <= L(w) + 2 ||sigma^k||_1 for any w in W; sigma ~ Exp(rate eta), eta = 1.4e3 here,
-- and the Laplace scale lambda/eps < 1e-5: the average hinge loss of the output is at most
-- that of any box point + 0.01 (hinge Lipschitz, ||x||_inf <= 1), and the 0/1 error is at
-- most the hinge loss.  Box point: the logistic reference without intercept, clipped.
CREATE TEMP TABLE ref0 AS
SELECT dpobj.dp_logistic(x, y, 1e12, 1e-6, '{"R": 1, "method": "cms", "lambda": 1, "intercept": false}') AS m FROM d3;
SELECT cmp_ok((SELECT avg(((dpobj.score(m, x) > 0) <> y)::int)::float8 FROM d3,
                      (SELECT dpobj.dp_opsamp(x, y, 1e12, 1e-6, '{"R": 1}') AS m FROM d3) o),
              '<=',
              (SELECT avg(greatest(0, 1 - (CASE WHEN y THEN 1 ELSE -1 END) *
                        (greatest(-1, least(1, m.weights[1])) * x[1] + greatest(-1, least(1, m.weights[2])) * x[2]
                         + greatest(-1, least(1, m.weights[3])) * x[3]))) FROM d3, ref0 r, LATERAL (SELECT (r.m).*) m) + 0.01,
              'OPSamp at eps = 1e12: 0/1 error <= hinge loss of a box point + 0.01');

-- ---- clipping --------------------------------------------------------
-- Replacing a row by one with a huge norm gives exactly the model of the clipped row
-- (x * R/||x||): same seed, same noise.  And the change from the original data set is
-- within the sensitivity 2 L R_eff / Lambda of the regularised minimiser.
CREATE TEMP TABLE dbig AS SELECT * FROM d3;
UPDATE dbig SET x = ARRAY[1e300, 1e300, 0] WHERE x = (SELECT x FROM d3 LIMIT 1);
CREATE TEMP TABLE dclip AS SELECT * FROM d3;
UPDATE dclip SET x = ARRAY[sqrt(0.5), sqrt(0.5), 0] WHERE x = (SELECT x FROM d3 LIMIT 1);
CREATE FUNCTION pg_temp.fit(t text, agg text, o jsonb) RETURNS dpobj.model LANGUAGE plpgsql AS $$
DECLARE m dpobj.model;
BEGIN
  PERFORM set_config('dpobj.seed', '77', true);
  EXECUTE format('SELECT (dpobj.%s(x, y, 1, 1e-6, %L)).* FROM %s', agg, o, t) INTO STRICT m;
  RETURN m;
END $$;
SELECT cmp_ok(pg_temp.dist(pg_temp.fit('dbig', 'dp_logistic', '{"R": 1, "lambda": 4}'),
                           pg_temp.fit('dclip', 'dp_logistic', '{"R": 1, "lambda": 4}')),
              '<', 1e-6::float8, 'dp_logistic clips a huge row to norm R (same model as the clipped row)');
SELECT cmp_ok(pg_temp.dist(pg_temp.fit('dbig', 'dp_logistic', '{"R": 1, "lambda": 4}'),
                           pg_temp.fit('d3', 'dp_logistic', '{"R": 1, "lambda": 4}')),
              '<=', 2 * sqrt(2) / 4 + 1e-3, 'a huge row moves Objective-Gauss by at most 2 R_eff / Lambda');
SELECT is((pg_temp.fit('dbig', 'dp_noisysgd', '{"R": 1, "T": 3000}')).weights,
          (pg_temp.fit('dclip', 'dp_noisysgd', '{"R": 1, "T": 3000}')).weights,
          'dp_noisysgd clips a huge row to norm R');
-- OPSamp clips in l1: x * R / ||x||_1
UPDATE dclip SET x = ARRAY[0.5, 0.5, 0] WHERE x = ARRAY[sqrt(0.5), sqrt(0.5), 0]::float8[];
SELECT is((pg_temp.fit('dbig', 'dp_opsamp', '{"R": 1}')).weights,
          (pg_temp.fit('dclip', 'dp_opsamp', '{"R": 1}')).weights,
          'dp_opsamp clips a huge row to l1 norm R');

-- ---- parallel aggregation (combine, serialise, deserialise) ---------------
-- (a regular table: temporary tables are not scanned by parallel workers)
CREATE TABLE public.dpobj_tap_dpar AS SELECT x, y FROM d3, generate_series(1, 50) k;
ANALYZE public.dpobj_tap_dpar;
SET dpobj.seed = 8;
CREATE TEMP TABLE serial_fit AS
SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') AS m FROM public.dpobj_tap_dpar;
SET dpobj.seed = 9;
CREATE TEMP TABLE serial_rspm AS
SELECT (dpobj.dp_halfspace_rspm(x, y, 0.5, 1e-6)).weights AS w FROM public.dpobj_tap_dpar;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL parallel_leader_participation = off;
CREATE FUNCTION pg_temp.plan_text(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; t text := '';
BEGIN
  FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP t := t || r || E'\n'; END LOOP;
  RETURN t;
END $$;
SELECT matches(pg_temp.plan_text($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') FROM public.dpobj_tap_dpar$$)
               || pg_temp.plan_text($$SELECT dpobj.dp_halfspace_rspm(x, y, 1, 1e-6) FROM public.dpobj_tap_dpar$$),
               'Partial Aggregate(.|\n)*Partial Aggregate',
               'dp_logistic and dp_halfspace_rspm run as parallel (partial + combine) aggregates');
SET dpobj.seed = 8;
-- the same rows, combined from two workers' serialised states: the same minimiser (the
-- state's row order differs, so only the summation order and BFGS path differ: 1e-4)
SELECT cmp_ok(pg_temp.dist((SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') FROM public.dpobj_tap_dpar),
                           (SELECT m FROM serial_fit)), '<', 1e-4::float8,
              'parallel and serial aggregation release the same model (same seed)');
SET dpobj.seed = 9;
-- Snapped releases (docs/PRIVACY.md): every released value of Output-Gauss, OPSamp,
-- Objective-Gauss and CMS is an integer multiple of the public lattice in the params (a
-- float value would almost never land on it); the lattice is a power of two.
CREATE FUNCTION pg_temp.on_lattice(m dpobj.model) RETURNS boolean LANGUAGE sql AS $$
  SELECT log(2, ((m).params->>'lattice')::numeric) = round(log(2, ((m).params->>'lattice')::numeric))
         AND bool_and(v / ((m).params->>'lattice')::float8 = round(v / ((m).params->>'lattice')::float8))
         AND count(*) > 0
    FROM unnest((m).weights || (m).bias) v $$;
SELECT ok(pg_temp.on_lattice((SELECT dpobj.dp_logistic(x, y, 0.5, 1e-6, '{"R": 1, "lambda": 1, "method": "output"}') FROM d3)),
          'Output-Gauss releases weights and bias on its public lattice');
SELECT ok(pg_temp.on_lattice((SELECT dpobj.dp_opsamp(x, y, 0.5, 1e-6, '{"R": 1, "n": 50}') FROM d3)),
          'OPSamp releases weights on its public lattice');
SELECT ok(pg_temp.on_lattice((SELECT dpobj.dp_logistic(x, y, 0.5, 1e-6, '{"R": 1}') FROM d3)),
          'Objective-Gauss releases its minimiser snapped to its public lattice');
SELECT ok(pg_temp.on_lattice((SELECT dpobj.dp_logistic(x, y, 2, 1e-6, '{"R": 1, "method": "cms", "loss": "huber"}') FROM d3)),
          'CMS releases its minimiser snapped to its public lattice');
SELECT is((SELECT (dpobj.dp_halfspace_rspm(x, y, 0.5, 1e-6)).weights FROM public.dpobj_tap_dpar),
          (SELECT w FROM serial_rspm),
          'RSPM (the halfspace state) in parallel releases the serial model');
SELECT * FROM finish();
ROLLBACK;
