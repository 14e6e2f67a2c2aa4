-- bench/ebm/setup.sql — the tables and the additive model's margin for bench/ebm
-- (after data/adult, data/bank_marketing and data/german_credit's load.sql).
-- be.rows(tbl, split, features, label): adult12 (Adult's 12 columns: 7 one-hot groups
-- with the training split's levels, 5 numerics scaled to [0, 1]), adult_pm1 (the same,
-- its numerics in [-1, 1] as train()'s encoding has them), bank (d = 50) and german
-- (d = 63) as loaded; be.tables(tbl, groups, w_false, lo): the one-hot groups in order
-- (0 a numeric), the public class weight of a negative row, pos / (1 - pos) of the
-- training split rounded to 2 digits, and the numerics' lower bound.
\set ON_ERROR_STOP 1
CREATE SCHEMA be;
CREATE FUNCTION be.onehot(v text, levels text[]) RETURNS float8[] LANGUAGE sql IMMUTABLE AS
$$ SELECT array_agg((v IS NOT DISTINCT FROM l)::int::float8 ORDER BY o) FROM unnest(levels) WITH ORDINALITY u(l, o) $$;
CREATE TABLE be.levels AS
SELECT c, array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL) || '{NULL}'::text[] AS levels
  FROM adult.train, LATERAL (VALUES ('workclass', workclass), ('education', education),
        ('marital_status', marital_status), ('occupation', occupation), ('relationship', relationship),
        ('race', race), ('sex', sex)) v(c, v)
 GROUP BY c;
CREATE FUNCTION be.adult12(a adult.train) RETURNS float8[] LANGUAGE sql STABLE AS $$
SELECT be.onehot(a.workclass, (SELECT levels FROM be.levels WHERE c = 'workclass'))
    || be.onehot(a.education, (SELECT levels FROM be.levels WHERE c = 'education'))
    || be.onehot(a.marital_status, (SELECT levels FROM be.levels WHERE c = 'marital_status'))
    || be.onehot(a.occupation, (SELECT levels FROM be.levels WHERE c = 'occupation'))
    || be.onehot(a.relationship, (SELECT levels FROM be.levels WHERE c = 'relationship'))
    || be.onehot(a.race, (SELECT levels FROM be.levels WHERE c = 'race'))
    || be.onehot(a.sex, (SELECT levels FROM be.levels WHERE c = 'sex'))
    || ARRAY[least(a.age, 90) / 90.0, a.education_num / 16.0, a.capital_gain / 99999.0,
             a.capital_loss / 4356.0, a.hours_per_week / 99.0]::float8[] $$;
CREATE TABLE be.rows AS
SELECT 'adult12' AS tbl, 'train' AS split, be.adult12(a) AS features, a.income_gt_50k AS label FROM adult.train a
UNION ALL SELECT 'adult12', 'test', be.adult12(ROW(a.*)::adult.train), a.income_gt_50k FROM adult.test a
UNION ALL SELECT 'bank', split, features, label FROM bank.features
UNION ALL SELECT 'german', split, features, label FROM german.features;
INSERT INTO be.rows SELECT 'adult_pm1', split, features[1:cardinality(features) - 5] ||
       ARRAY(SELECT 2 * v - 1 FROM unnest(features[cardinality(features) - 4:]) v), label
  FROM be.rows WHERE tbl = 'adult12';
CREATE TABLE be.tables AS
SELECT 'adult12' AS tbl, (SELECT array_agg(cardinality(levels) ORDER BY c = 'workclass' DESC, c = 'education' DESC,
                                   c = 'marital_status' DESC, c = 'occupation' DESC, c = 'relationship' DESC, c = 'race' DESC)
                            FROM be.levels) || '{0,0,0,0,0}'::int[] AS groups
UNION ALL SELECT 'adult_pm1', NULL
UNION ALL SELECT 'bank', '{12,3,4,2,2,2,3,12,4,0,0,0,0,0,0}'
UNION ALL SELECT 'german', '{4,5,11,5,5,5,3,4,3,3,4,2,2,0,0,0,0,0,0,0}';
UPDATE be.tables SET groups = (SELECT groups FROM be.tables WHERE tbl = 'adult12') WHERE tbl = 'adult_pm1';
ALTER TABLE be.tables ADD COLUMN w_false float8, ADD COLUMN lo float8 DEFAULT 0;
UPDATE be.tables SET lo = -1 WHERE tbl = 'adult_pm1';
UPDATE be.tables t SET w_false = (SELECT round((avg(label::int) / (1 - avg(label::int)))::numeric, 2)
                                    FROM be.rows r WHERE r.tbl = t.tbl AND split = 'train');
CREATE INDEX ON be.rows (tbl, split);
ANALYZE be.rows;
