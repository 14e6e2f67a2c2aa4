-- bench/auto/accuracy.sql — fixed mechanisms against dp_auto on Adult (run by run.sh
-- after data/adult/load.sql; variables draws, fixed, shares).  The arms are the direct
-- aggregates as the superuser, secure noise (dpobj.seed unset), epsilon = 1, delta =
-- 1e-9, R = sqrt 7, intercept, "metric": "accuracy" (the test accuracy is the score);
-- noisysgd_n adds the public "n" = 32561 (utility only).
-- auto_<share>: dp_auto with its default candidates (objective, noisysgd); auto3n_<share>:
-- with cms as a third candidate and the public "n" (a part's noisy GD gets n / (K + 1)).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE SCHEMA ba;
CREATE TABLE ba.train AS SELECT features, label FROM adult.features_d23 WHERE split = 'train';
CREATE TABLE ba.test AS SELECT features, label FROM adult.features_d23 WHERE split = 'test';
ANALYZE ba.train;
CREATE TABLE ba.results (arm text, draw int, seconds float8, test_acc float8, selected text);

CREATE FUNCTION ba.run(arm text, draw int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
    -- every arm is scored by accuracy: its cut-off chosen for accuracy ("metric")
    r jsonb := jsonb_build_object('R', sqrt(7), 'metric', 'accuracy');
    m dpobj.model;
BEGIN
    IF arm LIKE 'auto3n_%' THEN
        m := (SELECT dpobj.dp_auto(features, label, 1, 1e-9,
                             r || jsonb_build_object('select_share', substr(arm, 8)::float8, 'n', 32561,
                                                     'candidates', '["objective", "cms", "noisysgd"]'::jsonb))
                FROM ba.train);
    ELSIF arm LIKE 'auto_%' THEN
        m := (SELECT dpobj.dp_auto(features, label, 1, 1e-9,
                             r || jsonb_build_object('select_share', substr(arm, 6)::float8)) FROM ba.train);
    ELSIF arm = 'noisysgd' THEN
        m := (SELECT dpobj.dp_noisysgd(features, label, 1, 1e-9, r) FROM ba.train);
    ELSIF arm = 'noisysgd_n' THEN
        m := (SELECT dpobj.dp_noisysgd(features, label, 1, 1e-9, r || '{"n": 32561}') FROM ba.train);
    ELSE
        m := (SELECT dpobj.dp_logistic(features, label, 1, 1e-9, r || jsonb_build_object('method', arm)) FROM ba.train);
    END IF;
    INSERT INTO ba.results
    SELECT arm, draw, extract(epoch FROM clock_timestamp() - t0),
           avg((dpobj.predict(m, features) = label)::int), m.params->>'selected'
      FROM ba.test;
END
$$;

\o /dev/null
SELECT ba.run(arm, draw)
  FROM unnest(string_to_array(:'fixed', ' ') ||
              (SELECT array_agg('auto_' || s) FROM unnest(string_to_array(:'shares', ' ')) s) ||
              (SELECT array_agg('auto3n_' || s) FROM unnest(string_to_array(:'shares', ' ')) s)) arm,
       generate_series(1, :draws) draw
 ORDER BY draw, arm;
\o

\pset format unaligned
\pset tuples_only on
\pset footer off
SELECT '| arm (' || :draws || ' draws) | median (min–max) test accuracy | median s per run | selected |';
SELECT '|---|---:|---:|---|';
SELECT '| ' || CASE WHEN arm = 'noisysgd_n' THEN 'noisysgd, `"n": 32561`'
                    WHEN arm LIKE 'auto3n_%' THEN 'auto + cms, `"n": 32561`, share ' || substr(arm, 8)
                    WHEN arm LIKE 'auto_%' THEN 'auto, share ' || substr(arm, 6)
                    ELSE arm END
       || ' | ' || to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY test_acc), 'FM0.000')
       || ' (' || to_char(min(test_acc), 'FM0.000') || '–' || to_char(max(test_acc), 'FM0.000') || ') | '
       || round(percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds)::numeric, 2)
       || ' | ' || coalesce((SELECT string_agg(selected || ' ' || c, ', ' ORDER BY c DESC, selected)
                               FROM (SELECT selected, count(*) c FROM ba.results r2
                                      WHERE r2.arm = r.arm AND selected IS NOT NULL
                                      GROUP BY selected) x), '') || ' |'
  FROM ba.results r GROUP BY arm
 ORDER BY min(CASE WHEN arm LIKE 'auto3n_%' THEN 3 WHEN arm LIKE 'auto_%' THEN 2 ELSE 1 END),
          array_position(string_to_array(:'fixed', ' '), arm), arm;
SELECT 'test rows: ' || count(*) || '; majority class: ' || to_char(greatest(avg(label::int), 1 - avg(label::int)), 'FM0.000') FROM ba.test;
