-- bench/figure1/figure1.sql — the paper's Figure 1, in the database (run by run.sh).
-- Adult balanced subset (n = 15682), feature view :view (features_d23 = the paper's), delta = 1/n^2,
-- eps in :eps_list, :runs runs per eps, mechanisms OPDisc, RSPM, Objective-Gauss
-- logistic regression, noisy GD; 0/1 accuracy on the training subset and on adult.test.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

DROP SCHEMA IF EXISTS fig CASCADE;
CREATE SCHEMA fig;
CREATE TABLE fig.train AS
SELECT f.features, f.label FROM adult.:view f JOIN adult.balanced_ids b USING (id)
 WHERE f.split = 'train';
CREATE TABLE fig.test AS
SELECT f.features, f.label FROM adult.:view f WHERE f.split = 'test';
ANALYZE fig.train; ANALYZE fig.test;

CREATE TABLE fig.results (
    mechanism text, epsilon float8, run int, ok boolean, seconds float8,
    train_acc float8, test_acc float8, error text, model dpobj.model);

-- One run: train, time it, score it; a refused/uncertified run is recorded, not fatal.
CREATE FUNCTION fig.run(mech text, eps float8, r int, opts jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    n float8 := (SELECT count(*) FROM fig.train);
    delta float8 := 1.0 / (n * n);
    t0 timestamptz;
    m dpobj.model;
    secs float8;
BEGIN
    PERFORM set_config('dpobj.seed', (r + 1000 * ((least(eps, 1000) * 1000)::bigint % 1000000))::text, true);
    t0 := clock_timestamp();
    BEGIN
        CASE mech
        WHEN 'opdisc' THEN
            m := (SELECT dpobj.dp_halfspace(features, label, eps, delta, opts) FROM fig.train);
        WHEN 'rspm' THEN
            m := (SELECT dpobj.dp_halfspace_rspm(features, label, eps, delta, opts) FROM fig.train);
        WHEN 'logistic', 'logistic_nonprivate' THEN
            m := (SELECT dpobj.dp_logistic(features, label, eps, delta, opts) FROM fig.train);
        WHEN 'noisysgd' THEN
            m := (SELECT dpobj.dp_noisysgd(features, label, eps, delta, opts) FROM fig.train);
        WHEN 'opdisc_nonprivate' THEN
            m := (SELECT dpobj.dp_halfspace(features, label, eps, delta, opts) FROM fig.train);
        END CASE;
    EXCEPTION WHEN OTHERS THEN
        secs := extract(epoch FROM clock_timestamp() - t0);
        INSERT INTO fig.results VALUES (mech, eps, r, false, secs, NULL, NULL,
                                        SQLSTATE || ': ' || SQLERRM, NULL);
        RETURN;
    END;
    secs := extract(epoch FROM clock_timestamp() - t0);
    INSERT INTO fig.results VALUES (mech, eps, r, true, secs,
        (SELECT avg((dpobj.predict(m, features) = label)::int) FROM fig.train),
        (SELECT avg((dpobj.predict(m, features) = label)::int) FROM fig.test),
        NULL, m);
END
$$;

-- R = sqrt(:r2): for d23 four one-hot groups (norm 1 each) + three features scaled to
-- [0, 1] (r2 = 7); for d9 two groups + two features (r2 = 4).  A public bound from the
-- encoding, not from the data (no row is clipped).  "metric": "accuracy": the paper's
-- 0/1 loss, the cut-off 0.
SELECT format('{"R": %s, "metric": "accuracy"}', sqrt(:r2)) AS r_opts \gset
-- OPDisc on the paper's grid (B = floor(sqrt d), D2 = d; dpobj's default grid is smaller)
SELECT jsonb_build_object('B', floor(sqrt(d))::int, 'D2', d) AS paper_grid
  FROM (SELECT cardinality(features) AS d FROM fig.train LIMIT 1) s \gset

SELECT fig.run(mech, eps, r,
               CASE mech
                 WHEN 'opdisc' THEN :'paper_grid'::jsonb || jsonb_build_object('time_limit', :opdisc_limit)
                 WHEN 'rspm' THEN jsonb_build_object('time_limit', :rspm_limit)
                 WHEN 'logistic' THEN :'r_opts'::jsonb
                 ELSE (:'r_opts'::jsonb) || jsonb_build_object('T', :sgd_T)
               END)
  FROM unnest(string_to_array(:'eps_list', ' ')::float8[]) eps,
       unnest(string_to_array(:'mechs', ' ')) mech,
       generate_series(1, :runs) r
 ORDER BY eps, r, mech;

-- the eps -> infinity references (one run each): OPDisc's grid argmin of the 0/1 loss
-- (sigma ~ 0) and (almost) unregularised, (almost) noiseless logistic regression.
SELECT fig.run('opdisc_nonprivate', 1e9, 1,
               :'paper_grid'::jsonb || jsonb_build_object('time_limit', :nonpriv_limit));
SELECT fig.run('logistic_nonprivate', 1e9, 1, :'r_opts'::jsonb);

\copy (SELECT mechanism, epsilon, run, ok, round(seconds::numeric, 3), train_acc, test_acc, error FROM fig.results ORDER BY mechanism, epsilon, run) TO 'results.csv' WITH (FORMAT csv, HEADER)
\copy (SELECT mechanism, epsilon, count(*) FILTER (WHERE ok) AS ok_runs, count(*) AS runs, coalesce(round(avg(train_acc)::numeric, 4)::text, 'NaN'), coalesce(round(stddev_samp(train_acc)::numeric, 4)::text, 'NaN'), coalesce(round(avg(test_acc)::numeric, 4)::text, 'NaN'), coalesce(round(stddev_samp(test_acc)::numeric, 4)::text, 'NaN'), round(avg(seconds)::numeric, 3), round(max(seconds)::numeric, 3) FROM fig.results GROUP BY 1, 2 ORDER BY 1, 2) TO 'summary.dat' WITH (FORMAT csv, DELIMITER ' ')
