-- bench/gbdt/accuracy.sql — gb.run(tbl, arm, options, seed[, eps]): one seeded run of
-- dp_gbdt or dp_ebm (arm 'gbdt' or 'ebm'; superuser, unprotected tables, epsilon eps (1),
-- delta 1e-6) on tbl's training split of bench/ebm/setup.sql, each with its defaults as
-- train() runs them (the groups and lo of be.tables, no class weights: balanced accuracy
-- with its private balance estimate) merged with options; its balanced test accuracy and
-- ROC AUC into gb.results.
\set ON_ERROR_STOP 1
CREATE SCHEMA IF NOT EXISTS gb;
CREATE TABLE IF NOT EXISTS gb.results (tbl text, arm text, options jsonb, seed int, eps float8,
                                        bal_acc float8, auc float8, seconds float8);
CREATE OR REPLACE FUNCTION gb.run(tbl_ text, arm text, opts jsonb, seed int, eps float8 DEFAULT 1)
RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
    t be.tables;
    m dpobj.model;
    o jsonb;
    t0 timestamptz := clock_timestamp();
    ba float8;
    auc float8;
BEGIN
    SELECT * INTO t FROM be.tables WHERE tbl = tbl_;
    PERFORM set_config('dpobj.seed', seed::text, false);
    o := jsonb_build_object('lo', t.lo, 'hi', 1, 'groups', to_jsonb(t.groups)) || opts;
    IF arm = 'gbdt' THEN
        m := (SELECT dpobj.dp_gbdt(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    ELSE
        m := (SELECT dpobj.dp_ebm(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    END IF;
    -- balanced accuracy at the model's prediction; ROC AUC of its margin (ties: mid-ranks)
    SELECT 0.5 * avg(p::int) FILTER (WHERE label) + 0.5 * avg((NOT p)::int) FILTER (WHERE NOT label),
           (sum(rk) FILTER (WHERE label) - count(*) FILTER (WHERE label) * (count(*) FILTER (WHERE label) + 1) / 2.0)
             / (count(*) FILTER (WHERE label) * count(*) FILTER (WHERE NOT label))
      INTO ba, auc
      FROM (SELECT label, p, rank() OVER (ORDER BY z) + (count(*) OVER (PARTITION BY z) - 1) / 2.0 AS rk
              FROM (SELECT label, dpobj.predict(m, features) AS p, dpobj.score(m, features) AS z
                      FROM be.rows WHERE tbl = tbl_ AND split = 'test') s) r;
    INSERT INTO gb.results VALUES (tbl_, arm, opts, seed, eps, ba, auc,
                                   extract(epoch FROM clock_timestamp() - t0));
    RETURN ba;
END $$;
