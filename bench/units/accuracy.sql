-- bench/units/accuracy.sql — test accuracy of models trained at row level, at unit level
-- (k = 1, 2, 5, 10) and with per-unit averaging (run by run.sh after setup.sql).
--
-- Row and unit level: dpobj.train() as the analyst bu_analyst (no SELECT on the tables)
-- on bu.rowlevel and bu.k<k>, epsilon = 1, delta = 1e-9, the mechanism's defaults
-- (OPDisc: B, Q, D2 by default; logistic: R = sqrt 7 = the encoding's bound, intercept,
-- default lambda = 2 k beta R_eff^2 / epsilon; noisy GD: R = sqrt 7, T = 1000, the
-- public "n" = the number of rows the run uses — utility only); logistic and noisy GD with
-- "metric": "accuracy" (the cut-off for what is measured).
-- Averaging (logistic objective/output, noisy GD; not implemented in dpobj): the
-- superuser runs the direct aggregate on bu.rows with each row repeated 840 / m_u times
-- (m_u its unit's size, integer division) and "rows_per_unit": 840.  Each unit then has
-- at most 840 rows and the aggregate's own unit-level calibration (k = 840) is valid; in
-- the sum-form objective the repeats give unit u's rows the weight (840/m_u)/840 = 1/m_u
-- (exactly for m_u in 1..8 and 10; 93/840 = 0.9964/9 for m_u = 9) relative to
-- lambda = 840 * 4, i.e. the per-unit averaged objective with the row-level default
-- lambda = 4; noisy GD's gradient sums, sigma and step sizes all scale by 840.
-- Accuracy: share of adult.test rows with dpobj.predict(model, features) = label.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE OR REPLACE FUNCTION bu.score(arm text, mech text, draw int, t0 timestamptz,
                                    m dpobj.model, rows_used bigint) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO bu.results
    SELECT arm, mech, draw, extract(epoch FROM clock_timestamp() - t0),
           avg((dpobj.predict(m, features) = label)::int), rows_used, NULL
      FROM bu.test
$$;

CREATE OR REPLACE FUNCTION bu.train_arm(arm text, mech text, draw int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    feats text[] := ARRAY['ms_divorced', 'ms_married_af_spouse', 'ms_married_civ_spouse',
        'ms_married_spouse_absent', 'ms_never_married', 'ms_separated', 'ms_widowed',
        'rel_husband', 'rel_not_in_family', 'rel_other_relative', 'rel_own_child',
        'rel_unmarried', 'rel_wife', 'race_amer_indian', 'race_asian_pac', 'race_black',
        'race_other', 'race_white', 'sex_male', 'sex_female', 'capital_gain_scaled',
        'capital_loss_scaled', 'hours_scaled'];
    lvl int := CASE arm WHEN 'row' THEN 0 ELSE substr(arm, 2)::int END;
    n bigint := (SELECT n FROM bu.used WHERE used.k = lvl);
    opts jsonb := CASE mech WHEN 'opdisc' THEN '{}'::jsonb
                            WHEN 'noisysgd' THEN jsonb_build_object('R', sqrt(7), 'n', n, 'metric', 'accuracy')
                            ELSE jsonb_build_object('R', sqrt(7), 'metric', 'accuracy') END;
    t0 timestamptz := clock_timestamp();
    m dpobj.model;
BEGIN
    SELECT * INTO m FROM dpobj.train(CASE arm WHEN 'row' THEN 'bu.rowlevel' ELSE 'bu.' || arm END,
                                     mech, feats, 'income_gt_50k', 1, 1e-9, opts);
    PERFORM bu.score(arm, mech, draw, t0, m, n);
EXCEPTION WHEN OTHERS THEN
    -- a charged failure (DP006; the cause, e.g. DP001, is in the server log): counted
    INSERT INTO bu.results VALUES (arm, mech, draw, extract(epoch FROM clock_timestamp() - t0),
                                   NULL, n, SQLSTATE || ': ' || SQLERRM);
END
$$;

CREATE OR REPLACE FUNCTION bu.average_arm(mech text, draw int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    n bigint := (SELECT sum(840 / size) FROM bu.rows);
    opts jsonb := jsonb_build_object('R', sqrt(7), 'rows_per_unit', 840, 'metric', 'accuracy');
    t0 timestamptz := clock_timestamp();
    m dpobj.model;
BEGIN
    IF mech = 'noisysgd' THEN
        m := (SELECT dpobj.dp_noisysgd(features, label, 1, 1e-9, opts || jsonb_build_object('n', n))
                FROM bu.rows, generate_series(1, 840 / size));
    ELSE
        m := (SELECT dpobj.dp_logistic(features, label, 1, 1e-9,
                         opts || jsonb_build_object('method', mech, 'lambda', 840 * 4))
                FROM bu.rows, generate_series(1, 840 / size));
    END IF;
    PERFORM bu.score('avg', mech, draw, t0, m, (SELECT count(DISTINCT person) FROM bu.rows));
EXCEPTION WHEN OTHERS THEN
    INSERT INTO bu.results VALUES ('avg', mech, draw, extract(epoch FROM clock_timestamp() - t0),
                                   NULL, NULL, SQLSTATE || ': ' || SQLERRM);
END
$$;

-- the rows each level uses (public "n" of noisy GD; reported): k = 0 is row level
DROP TABLE IF EXISTS bu.used;
CREATE TABLE bu.used AS
SELECT k, CASE k WHEN 0 THEN (SELECT count(*) FROM bu.people)
                 ELSE (SELECT sum(least(size, k)) FROM bu.sizes) END AS n
  FROM unnest(ARRAY[0, 1, 2, 5, 10]) k;
GRANT SELECT ON bu.used TO bu_analyst;
TRUNCATE bu.results;

-- the approximate-DP mechanisms' runs first: a budget that composes zCDP runs admits no
-- more of them (docs/PRIVACY.md, "Composition")
SET ROLE bu_analyst;
SELECT bu.train_arm(arm, mech, draw)
  FROM generate_series(1, :draws) draw,
       unnest(string_to_array(:'arms', ' ')) arm,
       unnest(string_to_array(:'mechs', ' ')) mech
 ORDER BY mech IN ('output', 'noisysgd'), draw, arm, mech;
RESET ROLE;
SELECT bu.average_arm(mech, draw)
  FROM generate_series(1, :draws) draw,
       unnest(string_to_array(:'avg_mechs', ' ')) mech
 ORDER BY draw, mech;
