-- What a synthetic twin holds (dpobj.synthesize()): only values its source's columns can
-- hold, whatever the noise.  Facts checked on every run, never noisy numbers: a NOT NULL
-- column (catalog) has no NULL and no "other", a level column too when its levels are
-- declared complete or options "not_null" names it; integer columns come back whole,
-- numeric(10,2) with 2 decimals; a bounded column (the default private quantile bins) has
-- no value in a bin the model shuts (no kept weight: e.g. above the data's range); the
-- model marks the columns without NULL "closed".
CREATE SCHEMA regress_sv;
CREATE ROLE regress_sv_alice;
CREATE SCHEMA regress_sv_out AUTHORIZATION regress_sv_alice;
CREATE TABLE regress_sv.t (
    sex text NOT NULL,          -- levels complete
    grade text NOT NULL,        -- levels incomplete: 'z' undeclared
    race text,                  -- nullable, with NULLs and an undeclared value
    tier text,                  -- nullable, levels declared complete
    kids int NOT NULL,          -- [0, 1000] declared, 0..12 true
    spend numeric(10, 2) NOT NULL);  -- [0, 500] declared, up to 161 true
INSERT INTO regress_sv.t
SELECT (ARRAY['F', 'M'])[1 + i % 2], CASE WHEN i % 17 = 0 THEN 'z' ELSE (ARRAY['a', 'b', 'c'])[1 + i % 3] END,
       CASE WHEN i % 11 = 0 THEN NULL WHEN i % 13 = 0 THEN 'q' ELSE (ARRAY['x', 'y'])[1 + i % 2] END,
       (ARRAY['lo', 'mid', 'hi'])[1 + i % 3],
       i % 13, round((i % 700) * 0.23, 2)
  FROM generate_series(1, 3000) i;
SELECT dpobj.declare_domain('regress_sv.t', 'sex', ARRAY['F', 'M']);
SELECT dpobj.declare_domain('regress_sv.t', 'grade', ARRAY['a', 'b', 'c']);
SELECT dpobj.declare_domain('regress_sv.t', 'race', ARRAY['x', 'y']);
SELECT dpobj.declare_domain('regress_sv.t', 'tier', ARRAY['lo', 'mid', 'hi'], true);
SELECT column_name, complete FROM dpobj.feature_domains
 WHERE relid = 'regress_sv.t'::regclass ORDER BY column_name;
-- the three-argument form declares levels not complete; complete is never NULL
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_sv.t', 'tier', ARRAY['lo'], NULL)$$);
SELECT dpobj.declare_domain('regress_sv.t', 'kids', 0, 1000);
SELECT dpobj.declare_domain('regress_sv.t', 'spend', 0, 500);
SELECT dpobj.protect('regress_sv.t');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_sv.t', 'regress_sv_alice', 1000, 0.01);
GRANT USAGE ON SCHEMA regress_sv TO regress_sv_alice;
SET ROLE regress_sv_alice;

-- three twins at epsilon 1 with the defaults
SELECT target_table FROM dpobj.synthesize('regress_sv.t', 'regress_sv_out.t1', 1, 1e-6);
SELECT target_table FROM dpobj.synthesize('regress_sv.t', 'regress_sv_out.t2', 1, 1e-6);
SELECT target_table FROM dpobj.synthesize('regress_sv.t', 'regress_sv_out.t3', 1, 1e-6);
CREATE TEMP TABLE twins AS
SELECT 1 AS r, * FROM regress_sv_out.t1 UNION ALL SELECT 2, * FROM regress_sv_out.t2
 UNION ALL SELECT 3, * FROM regress_sv_out.t3;
-- no NULL (nor "other") in a NOT NULL column nor one of complete levels; integers whole,
-- numeric(10,2) at 2 decimals
SELECT count(*) FILTER (WHERE sex IS NULL OR grade IS NULL OR tier IS NULL OR kids IS NULL OR spend IS NULL) AS nulls,
       count(*) FILTER (WHERE sex NOT IN ('F', 'M') OR grade NOT IN ('a', 'b', 'c')
                           OR tier NOT IN ('lo', 'mid', 'hi')) AS undeclared,
       count(*) FILTER (WHERE spend <> round(spend, 2) OR scale(spend) > 2) AS spend_decimals,
       count(*) FILTER (WHERE kids < 0 OR kids > 1000 OR spend < 0 OR spend > 500) AS outside
  FROM twins;
SELECT format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'regress_sv_out.t1'::regclass AND attname IN ('kids', 'spend') ORDER BY attnum;
-- the models: bounded columns in quantile bins, NOT NULL columns without a NULL level or
-- with "other" closed, the nullable level column with its level
SELECT j, (m.params->'columns'->j)->>'kind' AS kind, (m.params->'columns'->j)->>'nullable' AS nullable,
       (m.params->'columns'->j)->>'closed' AS closed, count(*) AS models
  FROM generate_series(1, 3) r, LATERAL (SELECT (dpobj.get_model('t' || r)).*) m, generate_series(0, 5) j
 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;
-- no value in a bin the model shuts: a quantile bin whose sub-bins the model keeps no weight
-- of (a column with some), unless its first single-column count is at least 3 sd (its
-- cell's variance, else the measurement's)
CREATE TEMP TABLE shut AS
SELECT r, c.name, b.e0, b.e1
  FROM generate_series(1, 3) r, LATERAL (SELECT (dpobj.get_model('t' || r)).*) m,
       LATERAL (VALUES ('kids', 4, 0.0, 1000.0), ('spend', 5, 0.0, 500.0)) c(name, j, lo, hi),
       LATERAL (SELECT ((m.params->'columns'->c.j)->>'sub_bins')::int AS s,
                       ((m.params->'columns'->c.j)->>'noisy_at')::int AS at,
                       (m.params->'columns'->c.j)->'edges' AS edges) q,
       LATERAL (SELECT (x->>'at')::int AS at, (x->>'var_at')::int AS var_at, (x->>'sigma2')::float8 AS s2
                  FROM jsonb_array_elements(m.params->'measurements') WITH ORDINALITY e(x, k)
                 WHERE x->'set' = to_jsonb(ARRAY[c.j]) ORDER BY k LIMIT 1) me,
       LATERAL (SELECT k, (q.edges->>(k - 1))::float8 AS e0, (q.edges->>k)::float8 AS e1
                  FROM generate_series(1, jsonb_array_length(q.edges) - 1) k) b
 WHERE EXISTS (SELECT FROM generate_series(1, q.s) i WHERE m.weights[q.at + i] > 0)
   AND NOT EXISTS (SELECT FROM generate_series(round((b.e0 - c.lo) / (c.hi - c.lo) * q.s)::int + 1,
                                                round((b.e1 - c.lo) / (c.hi - c.lo) * q.s)::int) i
                    WHERE m.weights[q.at + i] > 0)
   AND m.weights[me.at + b.k] < 3 * sqrt(coalesce(m.weights[me.var_at + b.k], me.s2));
-- (kids' range above its 0..12 is a shut bin in a model but with odds about 1e-9)
SELECT bool_or(name = 'kids') AS kids_shut FROM shut;
SELECT n.name, count(t.r) AS in_shut_bins
  FROM (VALUES ('kids'), ('spend')) n(name)
  LEFT JOIN (shut k JOIN twins t USING (r))
    ON k.name = n.name AND CASE n.name WHEN 'kids' THEN t.kids >= k.e0 AND t.kids < k.e1
                                       ELSE t.spend > k.e0 + 0.005 AND t.spend < k.e1 - 0.005 END
 GROUP BY n.name ORDER BY 1;
-- dpobj.sample() and dpobj.sample_rows() honour a closed level: no NULL sex, grade or tier
SELECT count(*) FILTER (WHERE s->>'sex' IS NULL OR s->>'grade' IS NULL OR s->>'tier' IS NULL) AS nulls
  FROM dpobj.sample(dpobj.get_model('t1'), 5000) s;
SELECT count(*) FILTER (WHERE sex IS NULL OR grade IS NULL OR tier IS NULL) AS nulls,
       count(*) FILTER (WHERE kids <> round(kids) OR kids < 0 OR kids > 1000) AS kids_not_whole
  FROM dpobj.sample_rows(dpobj.get_model('t1'), 5000) AS t(sex text, grade text, tier text, kids float8);
-- options "not_null" closes a nullable level column's "other" too (the NOT NULL columns
-- join it); "quantile": false keeps equal-width bins
SELECT target_table FROM dpobj.synthesize('regress_sv.t', 'regress_sv_out.u', 1, 1e-6, ARRAY['race', 'kids'],
                                      '{"not_null": ["race"], "quantile": false}');
SELECT count(*) FILTER (WHERE race IS NULL) AS race_nulls FROM regress_sv_out.u;
SELECT j, (m.params->'columns'->j)->>'kind' AS kind, (m.params->'columns'->j)->>'nullable' AS nullable,
       (m.params->'columns'->j)->>'closed' AS closed
  FROM (SELECT (dpobj.get_model('u')).*) m, generate_series(0, 1) j ORDER BY j;
-- by default an integer column of at most "bins" integers has a bin per integer (kids'
-- [0, 1000] with 1001 bins), of one more integer than its bins quantile bins over a
-- sub-bin per integer when fewer than twice the 4 x bins (x: 250 bins; y: 125, 500 sub-bins),
-- spend (numeric) 4 x bins sub-bins
SELECT target_table FROM dpobj.synthesize('regress_sv.t', 'regress_sv_out.v', 1, 1e-6, ARRAY['kids', 'spend'],
                                      '{"bins": {"kids": 1001}}');
SELECT target_table FROM dpobj.synthesize('regress_sv.t', 'regress_sv_out.w', 1, 1e-6, ARRAY['kids', 'spend'],
                                      '{"bins": {"kids": 1000}}');
SELECT target_table FROM dpobj.synthesize('regress_sv.t', 'regress_sv_out.x', 1, 1e-6, ARRAY['kids', 'spend'],
                                      '{"bins": {"kids": 250}}');
SELECT target_table FROM dpobj.synthesize('regress_sv.t', 'regress_sv_out.y', 1, 1e-6, ARRAY['kids', 'spend'],
                                      '{"bins": {"kids": 125}}');
SELECT n, c->0->>'kind' AS kids, c->0->>'bins' AS kids_bins, c->0->>'sub_bins' AS kids_sub_bins,
       c->1->>'kind' AS spend, c->1->>'sub_bins' AS spend_sub_bins
  FROM unnest(ARRAY['v', 'w', 'x', 'y']) n, LATERAL (SELECT (dpobj.get_model(n)).params->'columns' AS c) m ORDER BY n;
SELECT count(*) FILTER (WHERE kids < 0 OR kids > 1000) AS outside FROM regress_sv_out.v;
SELECT count(*) AS dropped FROM unnest(ARRAY['t1', 't2', 't3', 'u', 'v', 'w', 'x', 'y']) n WHERE dpobj.drop_model(n);
DROP TABLE twins, shut;
RESET ROLE;
DROP SCHEMA regress_sv_out CASCADE;
SELECT dpobj.unprotect('regress_sv.t');
DROP SCHEMA regress_sv CASCADE;
DROP ROLE regress_sv_alice;
