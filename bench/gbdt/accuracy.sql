-- bench/gbdt/accuracy.sql — gb.run(tbl, arm, options, seed[, eps]): one seeded run of
-- dp_gbdt, dp_ebm or dp_auto (arm 'gbdt', 'ebm' or 'auto': "R" sqrt(d) and the groups, as
-- bench/auto/gap.sql's defaults; its "selected" kept; superuser, unprotected tables, epsilon eps (1),
-- delta 1e-6) on tbl's training split of bench/ebm/setup.sql, each with its defaults as
-- train() runs them (the groups and lo of be.tables, no class weights: balanced accuracy
-- with its private balance estimate) merged with options; its balanced test accuracy and
-- ROC AUC into gb.results.
\set ON_ERROR_STOP 1
CREATE SCHEMA IF NOT EXISTS gb;
CREATE TABLE IF NOT EXISTS gb.results (tbl text, arm text, options jsonb, seed int, eps float8,
                                        bal_acc float8, auc float8, seconds float8);
ALTER TABLE gb.results ADD COLUMN IF NOT EXISTS selected text;
-- bank_pm1 and german_pm1: bank and german as train() encodes them (their numerics, the
-- last coordinates, in [-1, 1]), as adult_pm1 is Adult: where 'auto''s candidates bin
-- over their default [-1, 1]
INSERT INTO be.rows
SELECT r.tbl || '_pm1', split, features[1:cardinality(features) - k] ||
       ARRAY(SELECT 2 * v - 1 FROM unnest(features[cardinality(features) - k + 1:]) v), label
  FROM be.rows r, LATERAL (SELECT count(*) FILTER (WHERE g = 0) AS k FROM be.tables t, unnest(t.groups) g
                            WHERE t.tbl = r.tbl) n
 WHERE r.tbl IN ('bank', 'german') AND NOT EXISTS (SELECT FROM be.rows WHERE tbl = r.tbl || '_pm1');
INSERT INTO be.tables SELECT tbl || '_pm1', groups, w_false, -1 FROM be.tables t
 WHERE tbl IN ('bank', 'german') AND NOT EXISTS (SELECT FROM be.tables WHERE tbl = t.tbl || '_pm1');
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
    ELSIF arm = 'auto' THEN
        o := jsonb_build_object('R', sqrt(cardinality(t.groups)), 'groups', to_jsonb(t.groups)) || opts;
        m := (SELECT dpobj.dp_auto(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
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
                                   extract(epoch FROM clock_timestamp() - t0), m.params->>'selected');
    RETURN ba;
END $$;
