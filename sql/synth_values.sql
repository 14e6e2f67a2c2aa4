-- What a synthetic twin holds (dpobj.synthesize()): only values its source's columns can
-- hold, whatever the noise.  Facts checked on every run, never noisy numbers: a NOT NULL
-- column (catalog) has no NULL and no "other", a level column too when options "not_null"
-- names it; integer columns come back whole, numeric(10,2) with 2 decimals; a bounded
-- column's values lie within the sub-bins the model's released counts keep (the default
-- private quantile bins: no value above the last sub-bin with weight); the model marks
-- those columns "closed".
CREATE SCHEMA regress_sv;
CREATE ROLE regress_sv_alice;
CREATE SCHEMA regress_sv_out AUTHORIZATION regress_sv_alice;
CREATE TABLE regress_sv.t (
    sex text NOT NULL,          -- levels complete
    grade text NOT NULL,        -- levels incomplete: 'z' undeclared
    race text,                  -- nullable, with NULLs and an undeclared value
    kids int NOT NULL,          -- [0, 1000] declared, 0..12 true
    spend numeric(10, 2) NOT NULL);  -- [0, 500] declared, up to 161 true
INSERT INTO regress_sv.t
SELECT (ARRAY['F', 'M'])[1 + i % 2], CASE WHEN i % 17 = 0 THEN 'z' ELSE (ARRAY['a', 'b', 'c'])[1 + i % 3] END,
       CASE WHEN i % 11 = 0 THEN NULL WHEN i % 13 = 0 THEN 'q' ELSE (ARRAY['x', 'y'])[1 + i % 2] END,
       i % 13, round((i % 700) * 0.23, 2)
  FROM generate_series(1, 3000) i;
SELECT dpobj.declare_domain('regress_sv.t', 'sex', ARRAY['F', 'M']);
SELECT dpobj.declare_domain('regress_sv.t', 'grade', ARRAY['a', 'b', 'c']);
SELECT dpobj.declare_domain('regress_sv.t', 'race', ARRAY['x', 'y']);
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
-- no NULL (nor "other") in a NOT NULL column; integers whole, numeric(10,2) at 2 decimals
SELECT count(*) FILTER (WHERE sex IS NULL OR grade IS NULL OR kids IS NULL OR spend IS NULL) AS nulls,
       count(*) FILTER (WHERE sex NOT IN ('F', 'M') OR grade NOT IN ('a', 'b', 'c')) AS undeclared,
       count(*) FILTER (WHERE spend <> round(spend, 2) OR scale(spend) > 2) AS spend_decimals,
       count(*) FILTER (WHERE kids < 0 OR kids > 1000 OR spend < 0 OR spend > 500) AS outside
  FROM twins;
SELECT format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'regress_sv_out.t1'::regclass AND attname IN ('kids', 'spend') ORDER BY attnum;
-- the models: bounded columns in quantile bins, NOT NULL columns without a NULL level or
-- with "other" closed, the nullable level column with its level
SELECT j, (m.params->'columns'->j)->>'kind' AS kind, (m.params->'columns'->j)->>'nullable' AS nullable,
       (m.params->'columns'->j)->>'closed' AS closed, count(*) AS models
  FROM generate_series(1, 3) r, LATERAL (SELECT (dpobj.get_model('t' || r)).*) m, generate_series(0, 4) j
 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;
-- no value above the last sub-bin the model's released counts keep, nor below the first
-- (none kept: equal-width bins drawn uniformly, within the declared range above)
CREATE TEMP TABLE kept AS
SELECT r, c.name, lo + (hi - lo) * min(i - 1) / s AS low, lo + (hi - lo) * max(i) / s AS high
  FROM generate_series(1, 3) r, LATERAL (SELECT (dpobj.get_model('t' || r)).*) m,
       LATERAL (VALUES ('kids', 3, 0.0, 1000.0), ('spend', 4, 0.0, 500.0)) c(name, j, lo, hi),
       LATERAL (SELECT ((m.params->'columns'->c.j)->>'sub_bins')::int AS s,
                       ((m.params->'columns'->c.j)->>'noisy_at')::int AS at) q,
       generate_series(1, q.s) i
 WHERE m.weights[q.at + i] > 0
 GROUP BY r, c.name, lo, hi, s;
SELECT n.name, count(*) FILTER (WHERE (k.name = 'kids' AND (t.kids < floor(k.low) OR t.kids > ceil(k.high)))
                              OR (k.name = 'spend' AND (t.spend < k.low - 0.005 OR t.spend > k.high + 0.005))) AS outside_kept
  FROM (VALUES ('kids'), ('spend')) n(name) LEFT JOIN (kept k JOIN twins t USING (r)) ON k.name = n.name
 GROUP BY n.name ORDER BY 1;
-- dpobj.sample() honours a closed level: none of the model's rows has NULL sex or grade
SELECT count(*) FILTER (WHERE s->>'sex' IS NULL OR s->>'grade' IS NULL) AS nulls
  FROM dpobj.sample(dpobj.get_model('t1'), 5000) s;
-- options "not_null" closes a nullable level column's "other" too (the NOT NULL columns
-- join it); "quantile": false keeps equal-width bins
SELECT target_table FROM dpobj.synthesize('regress_sv.t', 'regress_sv_out.u', 1, 1e-6, ARRAY['race', 'kids'],
                                      '{"not_null": ["race"], "quantile": false}');
SELECT count(*) FILTER (WHERE race IS NULL) AS race_nulls FROM regress_sv_out.u;
SELECT j, (m.params->'columns'->j)->>'kind' AS kind, (m.params->'columns'->j)->>'nullable' AS nullable,
       (m.params->'columns'->j)->>'closed' AS closed
  FROM (SELECT (dpobj.get_model('u')).*) m, generate_series(0, 1) j ORDER BY j;
SELECT count(*) AS dropped FROM unnest(ARRAY['t1', 't2', 't3', 'u']) n WHERE dpobj.drop_model(n);
DROP TABLE twins, kept;
RESET ROLE;
DROP SCHEMA regress_sv_out CASCADE;
SELECT dpobj.unprotect('regress_sv.t');
DROP SCHEMA regress_sv CASCADE;
DROP ROLE regress_sv_alice;
