-- bench/ebm/accuracy.sql — be.run(tbl, arm, options, seed[, eps]): one seeded run of the
-- direct aggregate (superuser, unprotected tables, epsilon eps (1), delta 1e-6) on tbl's
-- training split; its balanced test accuracy and ROC AUC into be.results.  Arms: ebm (options
-- merged over {"lo": lo, "hi": 1, "groups": ..., "class_weight": {"false": w_false}}),
-- noisysgd, objective (dp_logistic) and auto (R = sqrt of the columns, the same class
-- weights).
\set ON_ERROR_STOP 1
CREATE TABLE IF NOT EXISTS be.results (tbl text, arm text, options jsonb, seed int,
                                        bal_acc float8, seconds float8, eps float8 DEFAULT 1,
                                        auc float8);
CREATE OR REPLACE FUNCTION be.run(tbl_ text, arm text, opts jsonb, seed int, eps float8 DEFAULT 1)
RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
    t be.tables;
    m dpobj.model;
    o jsonb;
    t0 timestamptz := clock_timestamp();
    secs float8;
    ba float8;
    auc float8;
BEGIN
    SELECT * INTO t FROM be.tables WHERE tbl = tbl_;
    PERFORM set_config('dpobj.seed', seed::text, false);
    o := jsonb_build_object('class_weight', jsonb_build_object('false', t.w_false));
    IF arm = 'ebm' THEN
        o := o || jsonb_build_object('lo', t.lo, 'hi', 1, 'groups', to_jsonb(t.groups)) || opts;
        m := (SELECT dpobj.dp_ebm(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    ELSE
        o := o || jsonb_build_object('R', sqrt(cardinality(t.groups))) || opts;
        -- auto's ebm candidate gets the groups as train() passes them
        IF arm = 'auto' THEN o := o || jsonb_build_object('groups', to_jsonb(t.groups)); END IF;
        IF arm = 'noisysgd' THEN
            m := (SELECT dpobj.dp_noisysgd(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
        ELSIF arm = 'objective' THEN
            m := (SELECT dpobj.dp_logistic(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
        ELSE
            m := (SELECT dpobj.dp_auto(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
        END IF;
    END IF;
    secs := extract(epoch FROM clock_timestamp() - t0);
    -- balanced accuracy at the model's prediction; ROC AUC of its margin (ties: mid-ranks)
    SELECT 0.5 * avg(p::int) FILTER (WHERE label) + 0.5 * avg((NOT p)::int) FILTER (WHERE NOT label),
           (sum(rk) FILTER (WHERE label) - count(*) FILTER (WHERE label) * (count(*) FILTER (WHERE label) + 1) / 2.0)
             / (count(*) FILTER (WHERE label) * count(*) FILTER (WHERE NOT label))
      INTO ba, auc
      FROM (SELECT label, p, rank() OVER (ORDER BY z) + (count(*) OVER (PARTITION BY z) - 1) / 2.0 AS rk
              FROM (SELECT label, dpobj.predict(m, features) AS p, dpobj.score(m, features) AS z
                      FROM be.rows WHERE tbl = tbl_ AND split = 'test') s) r;
    INSERT INTO be.results VALUES (tbl_, arm, opts, seed, ba, secs, eps, auc);
    RETURN ba;
END $$;
-- be.paired(tables, first, last, epsilons): ebm against noisy GD paired by seed (their
-- defaults, seeds first .. last at each epsilon): per table and epsilon the medians and
-- means of balanced test accuracy, the mean paired difference ebm - noisy GD and its
-- standard error (paired.sql, small.sql, gap.sql)
CREATE OR REPLACE FUNCTION be.paired(tbls text[], first int, last int, epss float8[])
RETURNS TABLE(tbl text, eps float8, seeds bigint, median_ebm numeric, median_noisysgd numeric,
              mean_ebm numeric, mean_noisysgd numeric, mean_paired_diff numeric, se numeric)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM be.run(t, arm, '{}', s, e)
       FROM unnest(tbls) t, unnest('{ebm,noisysgd}'::text[]) arm, unnest(epss) e,
            generate_series(first, last) s;
    RETURN QUERY
    WITH p AS (
        SELECT r.tbl, r.eps, r.seed, max(r.bal_acc) FILTER (WHERE r.arm = 'ebm') AS e,
               max(r.bal_acc) FILTER (WHERE r.arm = 'noisysgd') AS n
          FROM be.results r
         WHERE r.seed BETWEEN first AND last AND r.tbl = ANY (tbls) AND r.eps = ANY (epss)
           AND r.options = '{}'
         GROUP BY r.tbl, r.eps, r.seed)
    SELECT p.tbl, p.eps, count(*),
           round(percentile_cont(0.5) WITHIN GROUP (ORDER BY p.e)::numeric, 3),
           round(percentile_cont(0.5) WITHIN GROUP (ORDER BY p.n)::numeric, 3),
           round(avg(p.e)::numeric, 3), round(avg(p.n)::numeric, 3),
           round(avg(p.e - p.n)::numeric, 4), round((stddev(p.e - p.n) / sqrt(count(*)))::numeric, 4)
      FROM p GROUP BY p.tbl, p.eps ORDER BY p.tbl, p.eps DESC;
END $$;
